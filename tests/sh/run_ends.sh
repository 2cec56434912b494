#!/usr/bin/env bash
# run_ends.sh — every dry-run ends (docs/RUNNING.md "Every run ends"): --max-time stops an endless LOOP of moves,
# a move lasting 1e7 s and a machine whose speed limit is 1e-300 rad/s, at the statement executing, past any ON ERROR
# handler; a WAIT FOR that nothing can change fails at once with ERR_TIMEOUT and a hint about --input (instead of
# writing trace for ever); a gnuplot that hangs is killed after --plot-timeout and the run completes with a warning.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cell="$root/models/puma560_cell.irm"

# last trace row's t, and the verdict line of report.txt
last_t() { tail -1 "$1/trace.csv" | cut -d, -f1; }
verdict() { sed -n 's/^verdict: //p' "$1/report.txt"; }

# 1. an endless LOOP of moves ends at --max-time, at a MOVE of the loop, and its handler does not run; the report's
#    cycle-time line stays short however many passes ran
cat >"$tmp/loop.irl" <<IRL
PROGRAM endless;
  DEVICE arm : CHAIN "$cell";
BEGIN
  LOOP
    MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0);
    MOVE PTP JOINT(0.6, 0.9, -3.0, 0, 0.8, 0);
  ENDLOOP;
ON ERROR
  PRINT "handler ran";
  RETRY;
ENDERROR
ENDPROGRAM
IRL
start=$SECONDS
timeout 120 "$IRL" run --trace csv --no-plots --max-time 4s --out "$tmp/o1" "$tmp/loop.irl" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "endless loop: exit $rc, want 1 ($(head -3 "$tmp/err"))"
grep -q 'loop.irl:[56]:5: runtime error: the run reached its bound on simulated time, --max-time 4 s' "$tmp/err" ||
    fail "endless loop: stderr: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "endless loop: the handler ran: $(cat "$tmp/out")"
[ "$(last_t "$tmp/o1")" = 4 ] || fail "endless loop: the trace ends at t = $(last_t "$tmp/o1"), want 4"
[ "$(verdict "$tmp/o1")" = ERROR ] || fail "endless loop: verdict $(verdict "$tmp/o1")"
grep -q '"error": ".*(ERR_TIMEOUT)"' "$tmp/o1/report.json" || fail "endless loop: report.json has no ERR_TIMEOUT"
echo "endless LOOP: ends at --max-time 4 s (trace to t = 4 s, ERROR, handler not run) in $((SECONDS - start)) s"
# a minute of it: report.txt lists the first 10 passes and the extremes, on a line one can read; report.json all
"$IRL" run --no-plots --no-trace --max-time 60s --out "$tmp/o1m" "$tmp/loop.irl" >/dev/null 2>&1
ct=$(grep '^cycle time of the outermost loop' "$tmp/o1m/report.txt")
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cycle_time"]["loop"]["passes"]))' \
    "$tmp/o1m/report.json")
[ "$n" -gt 20 ] && echo "$ct" | grep -Eq "^cycle time of the outermost loop \(lines 4..6\): $n passes:( [0-9.]+ s,){10} \.\.\. \($((n - 10)) more; shortest [0-9.]+ s, longest [0-9.]+ s\)\$" ||
    fail "a minute of the loop: $n passes in report.json, report.txt: $ct"

# 2. a move of 1e7 s ends at --max-time at its own line
cat >"$tmp/long.irl" <<IRL
PROGRAM long_move;
  DEVICE arm : CHAIN "$cell";
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0) WITH TIME := 1e7 s;
ENDPROGRAM
IRL
timeout 120 "$IRL" run --trace csv --no-plots --max-time 2s --out "$tmp/o2" "$tmp/long.irl" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q 'long.irl:4:3: runtime error: the run reached its bound' "$tmp/err" ||
    fail "1e7 s move: exit $rc: $(cat "$tmp/err")"
[ "$(last_t "$tmp/o2")" = 2 ] || fail "1e7 s move: the trace ends at t = $(last_t "$tmp/o2")"
echo "a 1e7 s move: ends at --max-time 2 s at its line"

# 3. speed = 1e-300 rad/s: refused at load, at the value's file:line:col (docs/MODELS.md 5.5), never a run without end
sed '0,/speed = 2.0 rad\/s/s//speed = 1e-300 rad\/s/' "$cell" >"$tmp/slow.irm"
grep -q 'speed = 1e-300 rad/s' "$tmp/slow.irm" || fail "could not make the slow machine file"
sed "s|$cell|$tmp/slow.irm|" "$tmp/long.irl" | sed 's/ WITH TIME := 1e7 s//' >"$tmp/slow.irl"
timeout 120 "$IRL" run --trace csv --no-plots --max-time 2s --out "$tmp/o3" "$tmp/slow.irl" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 65 ] && grep -q 'slow.irm:[0-9]*:[0-9]*: error: joint .j1.: speed 1e-300 rad/s: absurdly small' "$tmp/err" ||
    fail "speed 1e-300 rad/s: exit $rc, want 65 and the value's file:line:col: $(cat "$tmp/err")"
echo "speed 1e-300 rad/s: refused at load"

# 4. WAIT FOR with no input stimulus: ERR_TIMEOUT at once with the --input hint, a short trace
cat >"$tmp/wait.irl" <<IRL
PROGRAM wait_part;
  DEVICE arm : CHAIN "$cell";
  IO part : DIN 1;
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0);
  WAIT FOR part;
ENDPROGRAM
IRL
start=$SECONDS
timeout 60 "$IRL" run --trace csv --no-plots --out "$tmp/o4" "$tmp/wait.irl" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "WAIT FOR: exit $rc ($(head -3 "$tmp/err"))"
grep -q 'wait.irl:6:3: runtime error: WAIT FOR can never end: .*--input part=VALUE@T.*(ERR_TIMEOUT)' "$tmp/err" ||
    fail "WAIT FOR: stderr: $(cat "$tmp/err")"
size=$(stat -c %s "$tmp/o4/trace.csv")
[ "$size" -lt 1000000 ] || fail "WAIT FOR: trace of $size bytes"
awk -F, -v t="$(last_t "$tmp/o4")" 'BEGIN { exit !(t > 0.5 && t < 1.5) }' ||
    fail "WAIT FOR: trace ends at t = $(last_t "$tmp/o4") s, want the end of the PTP (0.5 .. 1.5 s)"
# ... and with a stimulus it waits for it
timeout 60 "$IRL" run --trace csv --no-plots --out "$tmp/o4" --input part=1@3 "$tmp/wait.irl" >/dev/null 2>"$tmp/err" ||
    fail "WAIT FOR with --input: $(cat "$tmp/err")"
[ "$(last_t "$tmp/o4")" = 3 ] || fail "WAIT FOR with --input part=1@3 ends at $(last_t "$tmp/o4")"
echo "WAIT FOR without stimulus: ERR_TIMEOUT at t = 0.5 .. 1.5 s with the --input hint, trace $size bytes, in $((SECONDS - start)) s"

# 5. a gnuplot that hangs (and its child) is killed after --plot-timeout; the run completes with a warning
mkdir "$tmp/bin"
cat >"$tmp/bin/gnuplot" <<SH
#!/bin/sh
sleep 300 &
echo \$! >"$tmp/child.pid"
wait
SH
chmod +x "$tmp/bin/gnuplot"
cat >"$tmp/ok.irl" <<IRL
PROGRAM ok;
  DEVICE arm : CHAIN "$cell";
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0);
ENDPROGRAM
IRL
start=$SECONDS
PATH="$tmp/bin:$PATH" timeout 60 "$IRL" run --trace csv --plot-timeout 1s --out "$tmp/o5" "$tmp/ok.irl" >/dev/null 2>"$tmp/err"; rc=$?
took=$((SECONDS - start))
[ $rc = 0 ] || fail "hung gnuplot: exit $rc: $(cat "$tmp/err")"
grep -q 'irl: warning: gnuplot did not finish within --plot-timeout 1 s: killed' "$tmp/err" ||
    fail "hung gnuplot: no warning: $(cat "$tmp/err")"
[ $took -lt 30 ] || fail "hung gnuplot: the run took $took s"
[ "$(verdict "$tmp/o5")" = PASS ] || fail "hung gnuplot: verdict $(verdict "$tmp/o5")"
sleep 0.2
child=$(cat "$tmp/child.pid") # gone, or a zombie waiting for its new parent to reap it
state=$(awk '{ print $3 }' "/proc/$child/stat" 2>/dev/null)
if [ -n "$state" ] && [ "$state" != Z ]; then kill "$child"; fail "gnuplot's child survived (state $state)"; fi
echo "hung gnuplot: killed with its child after 1 s, run completes (PASS, exit 0) in $took s"
