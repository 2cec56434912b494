#!/usr/bin/env bash
# trace_h5.sh — the HDF5 trace (docs/RUNNING.md "Trace formats"): the default trace.h5 and `--trace csv` of the
# same run hold the same channels (h5py and pandas read every column equal to the CSV's at its printed digits,
# with units, joint names, devices, source lines and version; the values rounded to the digits' mantissa bits, and
# every bit with --digits 17); the figures' plots.csv is the CSV trace thinned;
# `irl trace FILE.h5 --csv` prints the CSV byte for byte, and a channel/time selection of it; a run interrupted by
# SIGINT leaves a trace.h5 that says complete = 0, a killed one only trace.h5.part; the same run gives the same
# bytes; bad `irl trace` and `--trace` uses give clear errors. cell.irl's 23 s are three blocks of TRACE_H5_CHUNK
# rows: the writer thread's hand-overs are in the comparison.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export IRL_GNUPLOT=/nonexistent/gnuplot   # plots.csv and plots.gp are checked, not the figures: no need to draw
# Debian's python3-h5py and python3-pandas (.ci/packages): the first python3 that has them
PY=""
for p in python3 /usr/bin/python3; do "$p" -c 'import h5py, pandas' 2>/dev/null && { PY=$p; break; }; done
[ -n "$PY" ] || fail "no python3 with h5py and pandas (install python3-h5py python3-pandas)"
version=$("$IRL" --version | sed 's/^irl //')

cat >"$tmp/cell.irl" <<IRL
PROGRAM cell;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0);
  MOVE LIN POS(0.5 m, 0.1 m, 0.3 m);
  WAIT 20 s;
  MOVE PTP JOINT(0.6, 0.8, -3.0, 0, 0.8, 0);
ENDPROGRAM
IRL
cat >"$tmp/gee.irl" <<IRL
PROGRAM gee;
  DEVICE hc : CENTRIFUGE "$root/models/centrifuge.irm";
BEGIN
  GMOVE hc TO 2 G WITH ONSET := 0.5 G/s, HOLD := 3 s;
ENDPROGRAM
IRL
cp "$tmp/cell.irl" "$tmp/cell17.irl"
for prog in cell gee cell17; do
    digits=(); [ $prog = cell17 ] && digits=(--digits 17)
    "$IRL" run --no-plots --trace csv "${digits[@]}" --out "$tmp/$prog-csv" "$tmp/$prog.irl" >/dev/null 2>"$tmp/err" ||
        fail "$prog --trace csv: $(cat "$tmp/err")"
    "$IRL" run "${digits[@]}" --out "$tmp/$prog-h5" "$tmp/$prog.irl" >/dev/null 2>"$tmp/err" || # trace.h5: the default
        fail "$prog (trace h5): $(cat "$tmp/err")"
    [ -f "$tmp/$prog-h5/trace.h5" ] && [ ! -e "$tmp/$prog-h5/trace.csv" ] || fail "$prog: files $(ls "$tmp/$prog-h5")"
    # the figures' plots.csv: the CSV trace's header, rows 0, s, 2s, ... (s the smallest power of two keeping at most
    # 4999) and its last row, byte for byte
    out=$(awk -v max=5000 'NR == FNR { full[FNR] = $0; n = FNR - 1; next }
        FNR == 1 { s = 1; while (int((n - 1) / s) + 1 > max - 1) s *= 2; k = 0
                   for (j = 0; j * s <= n - 1; j++) want[++k] = full[2 + j * s]
                   if ((n - 1) % s) want[++k] = full[n + 1]
                   if ($0 != full[1]) bad = "header"; next }
        { if ($0 != want[FNR - 1]) bad = bad " row" FNR }
        END { if (FNR - 1 != k || k > max) bad = bad " count " FNR - 1 " (want " k ")"
              if (bad) { print bad; exit 1 } else print "plots.csv: " k " of " n " rows (stride " s ", and the last)" }' \
        "$tmp/$prog-csv/trace.csv" "$tmp/$prog-h5/plots.csv") || fail "$prog: plots.csv is not the thinned trace:$out"
    echo "$prog: $out"
    [ -s "$tmp/$prog-h5/plots.gp" ] && grep -q "plots.csv" "$tmp/$prog-h5/plots.gp" ||
        fail "$prog: plots.gp does not read plots.csv"
    ls "$tmp/$prog-h5" | grep -q '\.part$' && fail "$prog: .part left: $(ls "$tmp/$prog-h5")"
    # the same verdict and peaks: the trace format changes nothing else
    diff <(grep -v '^trace' "$tmp/$prog-csv/report.txt") <(grep -v '^trace' "$tmp/$prog-h5/report.txt") >/dev/null ||
        fail "$prog: report.txt differs between the formats"
    out=$("$PY" "$root/tests/py/trace_h5_check.py" "$tmp/$prog-h5/trace.h5" "$tmp/$prog-csv/trace.csv" \
          "$tmp/$prog.irl" "$version") || fail "$prog: $out"
    echo "$prog: $out"
    "$IRL" trace "$tmp/$prog-h5/trace.h5" --csv >"$tmp/$prog-export.csv" || fail "$prog: irl trace exit $?"
    cmp "$tmp/$prog-export.csv" "$tmp/$prog-csv/trace.csv" || fail "$prog: irl trace --csv differs from trace.csv"
    echo "$prog: irl trace --csv is byte for byte the --trace csv trace ($(wc -l <"$tmp/$prog-export.csv") lines)"
done
# the same run gives the same bytes (no clock in the file), with one thread or two
sleep 1.1
"$IRL" run --no-plots --threads 1 --trace h5 --out "$tmp/again" "$tmp/cell.irl" >/dev/null 2>&1 || fail "cell again"
cmp "$tmp/cell-h5/trace.h5" "$tmp/again/trace.h5" || fail "two runs of cell.irl gave different trace.h5 bytes"
echo "cell: trace.h5 byte-identical a second later with --threads 1"
sz_csv=$(stat -c %s "$tmp/cell-csv/trace.csv"); sz_h5=$(stat -c %s "$tmp/cell-h5/trace.h5")
[ "$sz_h5" -lt "$sz_csv" ] || fail "trace.h5 ($sz_h5 B) not smaller than trace.csv ($sz_csv B)"

# a selection: t, then the named channels in the order given; rows with from <= t <= to (t only grows)
"$IRL" trace "$tmp/cell-h5/trace.h5" --csv --channels line,arm.qd2,arm.x --from 0.4995 --to 1.2005 >"$tmp/sel.csv" ||
    fail "selection: exit $?"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { n = split($i, q, "."); c[n == 3 ? q[1] "." q[2] : $i] = i }; print "t,line,arm.qd2,arm.x"; next }
         $1 >= 0.4995 && $1 <= 1.2005 { print $1 "," $c["line"] "," $c["arm.qd2"] "," $c["arm.x"] }' \
    "$tmp/cell-csv/trace.csv" >"$tmp/sel-want.csv"
[ "$(wc -l <"$tmp/sel.csv")" -gt 100 ] || fail "selection: $(wc -l <"$tmp/sel.csv") lines"
head -1 "$tmp/sel.csv" | grep -qx 't,line,arm\.qd2\.[^,]*,arm\.x' || fail "selection header: $(head -1 "$tmp/sel.csv")"
cmp <(tail -n +2 "$tmp/sel.csv") <(tail -n +2 "$tmp/sel-want.csv") || fail "selection differs from the CSV's columns and rows"
"$IRL" trace "$tmp/cell-h5/trace.h5" --csv --to 500ms | tail -1 | grep -q '^0.5,' || fail "--to 500ms"
echo "--channels / --from / --to: the CSV's columns and rows ($(wc -l <"$tmp/sel.csv") lines)"

# errors
"$IRL" trace "$tmp/cell-h5/trace.h5" --csv --channels arm.q9 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 65 ] && grep -q "no channel 'arm.q9' in the trace" "$tmp/err" || fail "unknown channel: exit $rc, $(cat "$tmp/err")"
"$IRL" trace "$tmp/cell-csv/trace.csv" --csv >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 65 ] && grep -q "trace.csv: not an HDF5 file" "$tmp/err" || fail "a CSV given: exit $rc, $(cat "$tmp/err")"
"$IRL" trace "$tmp/none.h5" --csv >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 66 ] && grep -q "none.h5: No such file" "$tmp/err" || fail "missing file: exit $rc, $(cat "$tmp/err")"
"$IRL" trace "$tmp/cell-h5/trace.h5" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 64 ] && grep -q -- "--csv" "$tmp/err" || fail "no --csv: exit $rc, $(cat "$tmp/err")"
"$IRL" trace "$tmp/cell-h5/trace.h5" --csv --from soon >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 64 ] && grep -q "bad value for --from: 'soon'" "$tmp/err" || fail "--from soon: exit $rc, $(cat "$tmp/err")"
"$IRL" run --trace parquet --out-temp "$tmp/cell.irl" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 64 ] && grep -q "bad value for --trace: 'parquet'" "$tmp/err" || fail "--trace parquet: exit $rc"
"$IRL" run --no-plots --trace none --out "$tmp/cell-h5" "$tmp/cell.irl" >/dev/null 2>&1 || fail "--trace none failed"
[ -z "$(ls "$tmp/cell-h5" | grep trace)" ] || fail "--trace none left $(ls "$tmp/cell-h5")"
echo "errors: unknown channel 65, not HDF5 65, missing 66, usage 64; --trace none writes no trace"

# interrupted: SIGINT ends the trace with complete = 0 and why; SIGKILL leaves only the .part
cat >"$tmp/long.irl" <<IRL
PROGRAM long_move;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0) WITH TIME := 1e5 s;
ENDPROGRAM
IRL
for sig in INT KILL; do
    rm -rf "$tmp/int"
    "$IRL" run --trace h5 --out "$tmp/int" "$tmp/long.irl" >/dev/null 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 100); do [ -e "$tmp/int/trace.h5.part" ] && break; sleep 0.05; done
    sleep 0.7
    kill -$sig $pid; { wait $pid; } 2>/dev/null; rc=$?; pid=""
    if [ $sig = INT ]; then
        [ $rc = 130 ] || fail "SIGINT: exit $rc ($(cat "$tmp/err"))"
        [ -f "$tmp/int/trace.h5" ] && [ ! -e "$tmp/int/trace.h5.part" ] || fail "SIGINT: files $(ls "$tmp/int")"
        got=$("$PY" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r"); a = f.attrs
print(int(a["complete"]), str(a["incomplete"]), int(a["rows"]) == f["trace"].shape[0] > 100)' "$tmp/int/trace.h5") ||
            fail "SIGINT: h5py cannot read the trace"
        [[ "$got" == "0 interrupted by SIGINT at t = "*" s True" ]] || fail "SIGINT: attributes: $got"
        echo "SIGINT: trace.h5 readable, complete = 0, incomplete = '${got#0 }'"
    else
        [ ! -e "$tmp/int/trace.h5" ] && [ -e "$tmp/int/trace.h5.part" ] || fail "SIGKILL: files $(ls "$tmp/int")"
        echo "SIGKILL: no trace.h5, only trace.h5.part"
    fi
done
