#!/usr/bin/env bash
# trace_h5_nolib.sh — where libhdf5 cannot be loaded (here a library of its name that is not one, found first on
# LD_LIBRARY_PATH), the default HDF5 trace fails the run with exit 1 and an error naming the library and the way
# out (--trace csv), for a run shorter than one block (found when the trace closes) and one longer (found while it
# runs: the writer thread loads the library beside the first cycles); no trace.h5 is left as if complete, and
# `--trace csv` still runs.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
soname=$(strings "$IRL" | grep -m1 -x 'libhdf5[a-z_]*\.so\.[0-9]*') || fail "no libhdf5 soname in $IRL"
mkdir "$tmp/lib" && : >"$tmp/lib/$soname"
# programs/lin_circ.irl: 6,254 cycles, under one block; bench/dryrun/lin_circ_60s.irl: 61,061, seven blocks
for prog in "$root/programs/lin_circ.irl" "$root/bench/dryrun/lin_circ_60s.irl"; do
    cd "$(dirname "$prog")"; prog=$(basename "$prog")
    [ -f "$prog" ] || fail "no programs/$prog"
    LD_LIBRARY_PATH="$tmp/lib" "$IRL" run --no-plots --no-html --out "$tmp/$prog" "$prog" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc = 1 ] || fail "$prog: exit $rc, expected 1: $(head -3 "$tmp/err")"
    grep -q "cannot load libhdf5.*(--trace csv writes the trace without it)" "$tmp/err" ||
        fail "$prog: no error naming the library: $(head -3 "$tmp/err")"
    [ ! -e "$tmp/$prog/trace.h5" ] || fail "$prog: a trace.h5 was left"
    LD_LIBRARY_PATH="$tmp/lib" "$IRL" run --trace csv --no-plots --no-html --out "$tmp/$prog.csv" "$prog" >/dev/null 2>&1 ||
        fail "$prog: --trace csv failed without libhdf5"
    [ -s "$tmp/$prog.csv/trace.csv" ] || fail "$prog: no trace.csv"
done
echo "ok: without libhdf5 the HDF5 trace fails with exit 1 and names the library; --trace csv runs"
