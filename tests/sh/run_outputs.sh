#!/usr/bin/env bash
# run_outputs.sh — nothing lost, nothing stale (docs/RUNNING.md "The output folder", "Verdicts"): a run-time error
# keeps the motion before it (trace, peaks, plots, an ERROR report at the statement); SIGINT / SIGTERM end the trace
# on a whole row with an INCOMPLETE report and exit 130 / 143; a new run leaves nothing of the previous one; a second
# run on the same --out is refused while the first holds it, and a killed run's lock does not block; --out-temp
# folders are removed on every exit path; messages are whole and carry units.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
bg=""
trap '[ -n "$bg" ] && kill -9 $bg 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cell="$root/models/puma560_cell.irm"
verdict() { sed -n 's/^verdict: //p' "$1/report.txt"; }
# every row of the trace has the header's number of fields, and the file ends with a newline
whole_rows() {
    awk -F, 'NR == 1 { n = NF } NF != n { bad++ } END { exit bad > 0 }' "$1" && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}

# 1. three good PTPs, then an unreachable LIN: the PTPs run to their end in the trace, the report is ERROR at the LIN
cat >"$tmp/lost.irl" <<IRL
PROGRAM lost;
  DEVICE arm : CHAIN "$cell";
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0);
  MOVE PTP JOINT(0.6, 0.9, -3.0, 0, 0.8, 0);
  MOVE PTP JOINT(0.6, 0.8, -3.0, 0, 0.8, 0);
  MOVE LIN POS(5 m, 0 m, 0 m);
ENDPROGRAM
IRL
"$IRL" run --out "$tmp/o1" "$tmp/lost.irl" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "lost: exit $rc"
grep -q 'lost.irl:7:3: runtime error: MOVE LIN: .*(ERR_IK)' "$tmp/err" || fail "lost: stderr: $(cat "$tmp/err")"
[ "$(verdict "$tmp/o1")" = ERROR ] || fail "lost: verdict $(verdict "$tmp/o1")"
grep -q '^the program stopped: .*lost.irl:7:3: runtime error: MOVE LIN' "$tmp/o1/report.txt" || fail "lost: report lacks the error"
# the last row holds the third PTP's target, reached after more than a second
read -r t q1 q2 <<<"$(tail -1 "$tmp/o1/trace.csv" | awk -F, '{ print $1, $2, $3 }')"
awk -v t="$t" -v a="$q1" -v b="$q2" 'BEGIN { exit !(t > 1 && a == 0.6 && b == 0.8) }' ||
    fail "lost: the trace ends at t = $t s with q1 = $q1, q2 = $q2 (want the third PTP's end: 0.6, 0.8)"
dur=$(sed -n 's/^duration \([0-9.]*\) s.*/\1/p' "$tmp/o1/report.txt")
[ "$dur" = "$t" ] || fail "lost: report duration $dur s, trace to $t s"
# the peaks saw the motion: axis 1's speed peak is not 0
pk=$(awk '$1 == "speed" && $2 == 1 { print $4 }' "$tmp/o1/report.txt")
awk -v p="$pk" 'BEGIN { exit !(p > 0.1) }' || fail "lost: axis 1 speed peak '$pk'"
grep -q '"verdict": "error"' "$tmp/o1/report.json" || fail "lost: report.json verdict"
ls "$tmp/o1"/arm_positions.png >/dev/null 2>&1 || ! command -v gnuplot >/dev/null || fail "lost: no plots"
echo "run-time error: the PTPs before it run to t = $t s in the trace, peaks kept (speed 1: $pk deg/s), ERROR at lost.irl:7:3, plots drawn"

# 2. SIGINT and SIGTERM: a whole last row, INCOMPLETE with the time reached, exit 130 / 143; and the previous
#    run's PASS report does not survive beside the new trace
cat >"$tmp/long.irl" <<IRL
PROGRAM long_move;
  DEVICE arm : CHAIN "$cell";
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0) WITH TIME := 1e5 s;
ENDPROGRAM
IRL
cat >"$tmp/ok.irl" <<IRL
PROGRAM ok;
  DEVICE arm : CHAIN "$cell";
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0);
ENDPROGRAM
IRL
for sig in INT TERM; do
    "$IRL" run --no-plots --out "$tmp/o2" "$tmp/ok.irl" >/dev/null 2>&1 || fail "ok.irl failed"
    [ "$(verdict "$tmp/o2")" = PASS ] || fail "ok.irl: verdict $(verdict "$tmp/o2")"
    "$IRL" run --no-plots --out "$tmp/o2" "$tmp/long.irl" >/dev/null 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 100); do [ -s "$tmp/o2/trace.csv.part" ] && break; sleep 0.05; done
    sleep 0.5
    kill -$sig $pid
    wait $pid; rc=$?
    want=$([ $sig = INT ] && echo 130 || echo 143)
    [ $rc = "$want" ] || fail "SIG$sig: exit $rc, want $want ($(cat "$tmp/err"))"
    [ "$(verdict "$tmp/o2")" = INCOMPLETE ] || fail "SIG$sig: verdict $(verdict "$tmp/o2")"
    t=$(tail -1 "$tmp/o2/trace.csv" | cut -d, -f1)
    grep -q "^the run was interrupted by SIG$sig at t = $t s" "$tmp/o2/report.txt" ||
        fail "SIG$sig: report.txt does not say interrupted at t = $t s: $(grep interrupted "$tmp/o2/report.txt")"
    grep -q "\"incomplete\": \"interrupted by SIG$sig at t = $t s\"" "$tmp/o2/report.json" || fail "SIG$sig: report.json"
    whole_rows "$tmp/o2/trace.csv" || fail "SIG$sig: the trace does not end on a whole row"
    grep -q 'long.irl' "$tmp/o2/report.txt" || fail "SIG$sig: report of another program"
    ls "$tmp/o2" | grep -q '\.part$' && fail "SIG$sig: .part files left: $(ls "$tmp/o2")"
    echo "SIG$sig: exit $rc, INCOMPLETE at t = $t s (whole rows), the earlier PASS report replaced"
done

# 3. a run without a trace after one with: the old trace is gone (no report beside another run's trace)
"$IRL" run --no-plots --no-trace --out "$tmp/o2" "$tmp/ok.irl" >/dev/null 2>&1 || fail "--no-trace run failed"
[ ! -e "$tmp/o2/trace.csv" ] || fail "the previous run's trace.csv survived a --no-trace run"
# files the user keeps in the folder are not touched
echo keep >"$tmp/o2/notes.txt"
"$IRL" run --no-plots --out "$tmp/o2" "$tmp/ok.irl" >/dev/null 2>&1 || fail "ok.irl failed"
[ "$(cat "$tmp/o2/notes.txt")" = keep ] || fail "a user's file in the output folder was touched"
echo "a new run removes the previous run's files only"

# 4. a second run on the same --out is refused while the first runs; a killed run's lock does not block
"$IRL" run --no-plots --out "$tmp/o3" "$tmp/long.irl" >/dev/null 2>&1 &
bg=$!
for _ in $(seq 100); do [ -s "$tmp/o3/trace.csv.part" ] && break; sleep 0.05; done
"$IRL" run --no-plots --out "$tmp/o3" "$tmp/ok.irl" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc != 0 ] || fail "a second run on the same --out was not refused"
grep -q "irl: the output folder '$tmp/o3' is in use by another irl run (pid $bg)" "$tmp/err" ||
    fail "second run: $(cat "$tmp/err")"
first=$bg
kill -9 $bg; wait $bg 2>/dev/null; bg=""
"$IRL" run --no-plots --out "$tmp/o3" "$tmp/ok.irl" >/dev/null 2>"$tmp/err" || fail "after a killed run: $(cat "$tmp/err")"
[ "$(verdict "$tmp/o3")" = PASS ] && [ ! -e "$tmp/o3/trace.csv.part" ] || fail "after a killed run: $(ls -A "$tmp/o3")"
echo "second run refused (exit $rc, names pid $first); after kill -9 of the first a run proceeds and clears its leftovers"

# 5. --out-temp folders are removed on every exit path
mkdir "$tmp/t"
cat >"$tmp/wait.irl" <<IRL
PROGRAM wait_part;
  DEVICE arm : CHAIN "$cell";
  IO part : DIN 1;
BEGIN
  WAIT FOR part;
ENDPROGRAM
IRL
TMPDIR="$tmp/t" "$IRL" run --out-temp "$tmp/ok.irl" >/dev/null 2>&1 || fail "--out-temp ok.irl"
TMPDIR="$tmp/t" "$IRL" run --out-temp "$tmp/lost.irl" >/dev/null 2>&1 && fail "--out-temp lost.irl passed"
TMPDIR="$tmp/t" "$IRL" run --out-temp "$tmp/wait.irl" >/dev/null 2>&1 && fail "--out-temp wait.irl passed"
TMPDIR="$tmp/t" "$IRL" run --out-temp --max-time 1s "$tmp/long.irl" >/dev/null 2>&1 && fail "--out-temp long.irl passed"
TMPDIR="$tmp/t" "$IRL" run --out-temp "$tmp/long.irl" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -n "$(ls -A "$tmp/t")" ] && break; sleep 0.05; done
sleep 0.3
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ] || fail "--out-temp interrupted: exit $rc"
[ -z "$(ls -A "$tmp/t")" ] || fail "--out-temp left $(ls -A "$tmp/t")"
echo "--out-temp: removed after success, a run-time error, WAIT FOR, --max-time and SIGINT"

# 6. messages are whole and carry units
cat >"$tmp/gl.irl" <<IRL
PROGRAM gl;
  DEVICE hc : CENTRIFUGE "$root/models/centrifuge.irm";
BEGIN
  GMOVE hc TO 2 G WITH ONSET := 0.5 G/s, HOLD := 5 s;
  GMOVE hc TO 8 G WITH ONSET := 12 G/s, HOLD := 10 s;
ENDPROGRAM
IRL
"$IRL" run --no-plots --out-temp "$tmp/gl.irl" >/dev/null 2>"$tmp/err" && fail "gl.irl passed"
grep -Eq 'gl.irl:5:3: runtime error: .*onset rate 12 G/s outside \[-6, 6\] G/s .*the largest feasible onset rate from this baseline is [0-9.]+ G/s \(ERR_GLIMIT\)$' "$tmp/err" ||
    fail "GLIMIT message: $(cat "$tmp/err")"
(cd "$root/programs" && "$IRL" run --no-plots --out-temp stewart_stroke_violation.irl) >/dev/null 2>"$tmp/err"
grep -Eq 'error: sim L[1-6] [0-9.]+ m exceeds its limit 2.9 m at t = ' "$tmp/err" || fail "leg length violation: $(head -3 "$tmp/err")"
echo "messages: the GLIMIT message whole with G/s, leg lengths in m"
