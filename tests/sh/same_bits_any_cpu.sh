#!/usr/bin/env bash
# same_bits_any_cpu.sh — every shipped program gives the same bits whatever the x86-64 CPU (docs/MODELS.md §2, "Same
# bits"). glibc picks FMA/AVX2 forms of its functions by CPU (libm's among them), so each program is dry-run as this
# CPU allows and as on the x86-64 baseline (FMA, AVX, AVX2, AVX-512 and SSE4 masked through GLIBC_TUNABLES: glibc then
# takes the forms it takes on the oldest x86-64); trace.csv and report.json must be equal byte for byte. The programs:
# the golden ones with their options (tests/golden/*/run), every other programs/*.irl, and the centrifuge, Stewart
# and free-flyer ones under --closed-loop too (the ODE driver). Before that, the library itself: no libm
# transcendental function (sin, pow, ... come from models/dmath.h) and no FMA instruction. On a CPU without FMA the
# masked runs take the paths of the native one and prove little: it says so. Needs $IRL and $BUILD.
# Not under sanitizers: the masks change only which forms glibc picks, never a path through irl, and every shipped
# program runs under ASan + UBSan as a language test (programs/*.irl), closed-loop ones in closed_loop_run.sh.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
[ "$(uname -m)" = x86_64 ] || { echo "not x86-64: nothing to compare"; exit 0; }
grep -qw fma /proc/cpuinfo || echo "note: this CPU has no FMA: the masked runs take the native paths"

# The library: no libm transcendental function (models/dmath.h has them all) and no fused multiply-add.
lib=$BUILD/libirl.a
[ -s "$lib" ] || { echo "FAIL no $lib"; exit 1; }
libm='sin|cos|tan|sincos|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|exp|exp2|expm1|log|log2|log10|log1p'
libm+='|pow|cbrt|hypot|erf|erfc|tgamma|lgamma'
calls=$(nm -A -u "$lib" 2>/dev/null | grep -E " U ($libm)f?$" | sed 's|^.*:\(.*\.o\): *U |\1 |' |
        awk '{f[$1] = f[$1] " " $2} END {for (o in f) print "  " o ":" f[o]}' | sort)
[ -z "$calls" ] ||
    note "the library calls libm's transcendental functions (the numerics take them from models/dmath.h):"$'\n'"$calls"
fma=$(objdump -d "$lib" | grep -cE '\bv?f(n)?m(add|sub)[0-9]{3}')
[ "$fma" = 0 ] || note "the library has $fma fused multiply-add instructions (compile without -mfma / -march)"

masks=(native 'glibc.cpu.hwcaps=-AVX,-AVX2,-FMA,-FMA4,-AVX512F,-SSE4_1,-SSE4_2,-SSSE3')
runs=() # "program.irl|options"
for g in "$root"/tests/golden/*/run; do
    p=$(sed -n 's|^program: *programs/||p' "$g"); o=$(sed -n 's|^options: *||p' "$g")
    runs+=("$p|$o")
done
for f in "$root"/programs/*.irl; do
    p=$(basename "$f")
    printf '%s\n' "${runs[@]}" | grep -q "^$p|" || runs+=("$p|")
done
runs+=("centrifuge_profile.irl|--closed-loop" "stewart_flightsim.irl|--closed-loop" "freeflyer_swing.irl|--closed-loop")

# A run's file with its own output folder's name taken out.
norm() { sed "s|$tmp/$1|OUT|g" "$tmp/$1/$2"; } # $1 run folder, $2 file

n=0
for r in "${runs[@]}"; do
    p=${r%%|*} o=${r#*|}
    name=${p%.irl}${o:+_cl}
    for i in 0 1; do
        env=(); [ $i -gt 0 ] && env=(GLIBC_TUNABLES="${masks[$i]}")
        # shellcheck disable=SC2086
        (cd "$root/programs" && env "${env[@]}" "$IRL" run --trace csv --no-plots $o --out "$tmp/$name.$i" "$p" >/dev/null 2>&1)
        echo $? >"$tmp/$name.$i.rc"
    done
    for f in trace.csv report.json; do
        [ -s "$tmp/$name.0/$f" ] || { note "$name: no $f"; continue; }
        a=$tmp/$name.0/$f b=$tmp/$name.1/$f
        # the report names its folder; the trace does not (tens of MB through sed would cost more than the runs)
        if [ $f = report.json ]; then norm "$name.0" $f >"$tmp/a"; norm "$name.1" $f >"$tmp/b"; a=$tmp/a b=$tmp/b; fi
        cmp -s "$a" "$b" || note "$name: $f differs in $(diff "$a" "$b" | grep -c '^<') lines under ${masks[1]}"
    done
    cmp -s "$tmp/$name.0.rc" "$tmp/$name.1.rc" || note "$name: the exit status depends on the CPU"
    n=$((n + 1))
done
[ $fail = 0 ] && echo "same bits on this CPU and on the x86-64 baseline: $n programs"
exit $fail
