#!/usr/bin/env bash
# tests/sh/online_sim.sh: `irl run --online --driver sim` does what the dry-run showed (runtime/online/exec_online.h): the
# online run's trace.csv and report.json are byte-identical to the dry-run's, and every setpoint the real-time
# thread wrote (online.csv, 17 digits) is the dry-run trace's position of that cycle, all cycles in order; the sim
# axes follow as their lag allows; online.json says complete and carries the cycle statistics. Without the
# privileges for SCHED_FIFO and mlockall the run warns and completes. The usage errors (exit 64). Needs $IRL.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

"$IRL" run --trace csv --no-plots --no-progress --out "$tmp/dry" lin_short.irl >"$tmp/dry.out" 2>"$tmp/dry.err" || note "dry-run failed"

# 1. identical outputs, identical setpoints
"$IRL" run --trace csv --online --max-missed 1000000 --driver sim --queue 500 --no-plots --out "$tmp/on" lin_short.irl >"$tmp/on.out" 2>"$tmp/on.err"
rc=$?
[ $rc = 0 ] || note "online sim: exit $rc: $(head -5 "$tmp/on.err")"
# PRINT "done" comes when the axes reach the end, stamped with that program time (the trace's last row)
[ "$(cat "$tmp/on.out")" = "$(printf '[%.3f s] done' "$(tail -1 "$tmp/dry/trace.csv" | cut -d, -f1)")" ] \
    || note "online sim: stdout $(head -3 "$tmp/on.out")"
cmp -s "$tmp/dry/trace.csv" "$tmp/on/trace.csv" || note "online trace.csv differs from the dry-run's"
cmp -s "$tmp/dry/report.json" "$tmp/on/report.json" || note "online report.json differs from the dry-run's"
grep -q "irl: online: .* cycles of 1 ms; period median" "$tmp/on.err" || note "no cycle statistics on stderr"
j="$tmp/on/online.json"
msg=$(python3 "$root/tests/online/online_check.py" \
    same "$tmp/dry/trace.csv" "$tmp/on/online.csv" --complete + lag "$tmp/on/online.csv" 0.002 \
    + json "$j" 'j["complete"] is True and j["status"] == "complete" and j["stop"] is None and j["driver"] == "sim" and j["queue"] == 500' \
    + json "$j" 'j["cycles"] == j["written"] and j["log_dropped"] == 0 and j["from_queue"] == j["setpoints_produced"]' \
    + json "$j" 'j["last_cycle_written"] == j["from_queue"] - 1 and j["holds"] >= 0 and j["overruns"] >= 0' \
    + json "$j" 'all(j[h]["samples"] >= j["cycles"] - 1 > 500 and 0 <= j[h]["min"] <= j[h]["p50"] <= j[h]["p99"] <= j[h]["p999"] <= j[h]["max"] for h in ("period_us", "wakeup_latency_us", "work_us"))' \
    + json "$j" 'all(j[h]["samples"] == j["setpoints_produced"] - 1 and 0 < j[h]["min"] <= j[h]["p50"] <= j[h]["p99"] <= j[h]["max"] for h in ("compute_us", "compute_wall_us"))' \
    + json "$j" 'j["sched_fifo"] is False or (j["rt_nice"] is None and j["planner_nice"] <= 0)' \
    + json "$j" '900 < j["period_us"]["p50"] < 1100 and j["queue_min"] >= 0 and j["approach"] is None and j["approach_setpoints"] == 0' \
    + json "$j" 'len(j["axes"]) == 6 and abs(j["axes"][0]["following_error_limit"] - 2.0 * 0.05) < 1e-12') \
    || note "$msg"

# 2. without the privileges for SCHED_FIFO and mlockall (root drops them here; a user has none): warnings, and the
#    run goes on under the normal policy
if [ "$(id -u)" = 0 ] && setpriv --inh-caps=-sys_nice,-ipc_lock --bounding-set=-sys_nice,-ipc_lock true 2>/dev/null; then
    setpriv --inh-caps=-sys_nice,-ipc_lock --bounding-set=-sys_nice,-ipc_lock \
        "$IRL" run --trace csv --online --max-missed 1000000 --driver sim --no-plots --out "$tmp/np" ptp_short.irl >/dev/null 2>"$tmp/np.err"
    rc=$?
    [ $rc = 0 ] || note "unprivileged: exit $rc: $(head -3 "$tmp/np.err")"
    grep -q "irl: warning: SCHED_FIFO 80 not permitted" "$tmp/np.err" || note "unprivileged: no SCHED_FIFO warning"
    grep -q '"sched_fifo": false' "$tmp/np/online.json" || note "unprivileged: online.json sched_fifo"
    grep -q '"complete": true' "$tmp/np/online.json" || note "unprivileged: not complete"
    msg=$(python3 "$root/tests/online/online_check.py" json "$tmp/np/online.json" \
        'j["rt_nice"] is not None and j["rt_nice"] <= j["planner_nice"]') || note "unprivileged: $msg"
fi
# the cycle thread always outranks the planner thread: under the normal policy by choice (--rt-priority 0) it takes
# the raised nice value itself, and the planner thread keeps its own
"$IRL" run --trace csv --online --max-missed 1000000 --rt-priority 0 --driver sim --no-plots --out "$tmp/nf" ptp_short.irl \
    >/dev/null 2>"$tmp/nf.err" || note "--rt-priority 0: exit $?: $(head -3 "$tmp/nf.err")"
msg=$(python3 "$root/tests/online/online_check.py" json "$tmp/nf/online.json" \
    'j["sched_fifo"] is False and j["rt_nice"] is not None and j["rt_nice"] <= j["planner_nice"] and (j["rt_nice"] == -10 or j["planner_nice"] == j["rt_nice"])') \
    || note "--rt-priority 0: $msg"

# 3. usage errors
expect64() { # $1 what, rest: arguments
    local what=$1; shift
    "$IRL" run --trace csv "$@" >/dev/null 2>"$tmp/u.err"; local r=$?
    [ $r = 64 ] || note "$what: exit $r, expected 64"
    grep -q "irl: " "$tmp/u.err" || note "$what: no message"
}
expect64 "--online without --driver" --online --out-temp lin_short.irl
expect64 "unknown driver" --online --driver ethercat --out-temp lin_short.irl
expect64 "unknown driver option" --online --driver sim:tua=1 --out-temp lin_short.irl
expect64 "--driver without --online" --driver sim --out-temp lin_short.irl
expect64 "bad --queue" --online --driver sim --queue 1 --out-temp lin_short.irl
expect64 "--following-error count" --online --driver sim --following-error 0.1,0.1 --out-temp lin_short.irl
expect64 "--closed-loop with --online" --online --driver sim --closed-loop --out-temp lin_short.irl
printf 'PROGRAM nodev;\nBEGIN\n  PRINT 1;\nENDPROGRAM\n' >"$tmp/nodev.irl"
expect64 "no DEVICE" --online --driver sim --out-temp "$tmp/nodev.irl"
exit $fail
