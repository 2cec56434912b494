#!/usr/bin/env bash
# same_bits_any_cpu.sh — the programs on serial arms and the Stewart platform give the same bits whatever the x86-64
# CPU: glibc picks FMA/AVX2 forms of its functions by CPU (libm's among them), so the dry-run is run once as this
# CPU allows and once with those features masked (GLIBC_TUNABLES), and trace.csv and report.json must be equal
# byte for byte. On a CPU without FMA both runs take the same paths and the comparison proves nothing: it says so.
# The centrifuge and free-flyer back-ends still call libm (docs/MODELS.md §2, "Same bits"): not compared. Needs $IRL.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
[ "$(uname -m)" = x86_64 ] || { echo "not x86-64: nothing to compare"; exit 0; }
grep -qw fma /proc/cpuinfo || echo "note: this CPU has no FMA: both runs take the same paths"
mask='glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX512F'
for p in demo lin_circ pick_place stewart_flightsim; do
    for m in native masked; do
        env=(); [ $m = masked ] && env=(GLIBC_TUNABLES=$mask)
        (cd "$root/programs" && env "${env[@]}" "$IRL" run --trace csv --no-plots --out "$tmp/$p.$m" $p.irl >/dev/null 2>&1)
    done
    for o in trace.csv report.json; do
        [ -s "$tmp/$p.native/$o" ] || { note "$p: no $o"; continue; }
        cmp -s <(sed "s|$tmp/$p.native|OUT|g" "$tmp/$p.native/$o") <(sed "s|$tmp/$p.masked|OUT|g" "$tmp/$p.masked/$o") ||
            note "$p: $o differs with the CPU's FMA/AVX2 forms masked"
    done
done
[ $fail = 0 ] && echo "same bits with and without the CPU's FMA/AVX2 forms: demo, lin_circ, pick_place, stewart_flightsim"
exit $fail
