#!/usr/bin/env bash
# tests/sh/online_stop.sh: the online safety stops (runtime/online/rt_loop.h), each a controlled stop and a run-time error:
# SIGINT and SIGTERM in the middle of a move (the written positions decelerate to rest within the machine's speed,
# acceleration and jerk limits, no jump; online.csv flushed to the last cycle; report verdict "error" saying the
# report and trace are incomplete; online.json "complete": false, "status": "stopped"); the watchdog when the
# planner thread stalls while the arm moves, and when it stalls at rest beyond --watchdog; the limit re-check
# refusing a stream faster than the machine (--time-scale 0.5 doubles every speed); a start position beyond the
# limits (online.json "status": "not_started"). Needs $IRL.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
checks=() # run by one python3 at the end (tests/online/online_check.py)
vmax=2,2,2.5,4,4,4 amax=6,5,8,15,15,15 jmax=60,50,80,300,300,300 # models/puma560_cell.irm, rad/s, /s^2, /s^3

# The stop ramp's jerk (online_safety.h) in the written setpoints of $1/online.csv, as the dry-run's checks define
# it (differences of the stream's accelerations; here the accelerations are the written speeds' differences), from
# the first stop row on (its jerk takes the last two run rows), and as third differences of the written
# positions from the third stop row on (all four positions the ramp's or its start, the last run row): within
# JMAX (1e-6 relative, the checks' tolerance for differentiated channels). Prints the peaks.
ramp_jerk() {
    python3 - "$1/online.csv" "$jmax" <<'PY'
import csv, sys
DT = 0.001
rows = list(csv.reader(open(sys.argv[1])))
head, rows = rows[0], rows[1:]
jmax = [float(x) for x in sys.argv[2].split(',')]
col = lambda p: [i for i, c in enumerate(head) if c.split('.')[-1][len(p):].isdigit() and c.split('.')[-1].startswith(p)]
state = [r[3] for r in rows]
first = state.index('stop') if 'stop' in state else None
if first is None or first < 3 or state[first - 1] != 'run':
    sys.exit('no stop ramp after run rows')
peak_v, peak_q = [], []
for a, (iq, iv) in enumerate(zip(col('q'), col('qd'))):
    q = [float(r[iq]) for r in rows]
    v = [float(r[iv]) for r in rows]
    jv = max(abs(v[k] - 2 * v[k - 1] + v[k - 2]) / DT ** 2 for k in range(first, len(rows)))
    jq = max(abs(q[k] - 3 * q[k - 1] + 3 * q[k - 2] - q[k - 3]) / DT ** 3 for k in range(first + 2, len(rows)))
    peak_v.append(jv / jmax[a])
    peak_q.append(jq / jmax[a])
    if jv > jmax[a] * (1 + 1e-6) + 1e-6 or jq > jmax[a] * (1 + 1e-6) + 1e-3:
        sys.exit('axis %d: ramp jerk %.6g (speeds) %.6g (positions) beyond %g' % (a + 1, jv, jq, jmax[a]))
print('ramp jerk / limit, per axis: speeds %s, positions %s' % (' '.join('%.4f' % x for x in peak_v),
                                                                  ' '.join('%.4f' % x for x in peak_q)))
PY
}

# 1. SIGINT, then SIGTERM, in the middle of the move
#    (SIGTERM's run writes the default trace.h5, whose writer thread must not swallow the signal; its CSV comes from
#    `irl trace --csv`)
for sig in INT TERM; do
    fmt=csv; [ $sig = TERM ] && fmt=h5
    "$IRL" run --trace $fmt --online --max-missed 1000000 --driver sim --queue 200 --no-plots --out "$tmp/$sig" ptp_long.irl >"$tmp/$sig.out" 2>"$tmp/$sig.err" &
    pid=$!
    # signal once the axes have moved for a while (200 logged cycles; the signals are taken from then on)
    for _ in $(seq 250); do [ "$(cat "$tmp/$sig/online.csv" 2>/dev/null | wc -l)" -gt 200 ] && break; sleep 0.02; done
    kill -"$sig" "$pid"
    wait "$pid"; rc=$?; pid=""
    [ $rc = 1 ] || note "SIG$sig: exit $rc"
    grep -q "runtime error: online stop: E-stop (SIG$sig) at t = " "$tmp/$sig.err" || note "SIG$sig: $(head -3 "$tmp/$sig.err")"
    [ $fmt = h5 ] && { "$IRL" trace "$tmp/$sig/trace.h5" --csv >"$tmp/$sig/trace.csv" || note "SIG$sig: irl trace exit $?"; }
    checks+=(stopped "$tmp/$sig" signal "E-stop (SIG$sig)" $vmax $amax +
             json "$tmp/$sig/online.json" 'j["status"] == "stopped"' +)
    ramp_jerk "$tmp/$sig" >"$tmp/$sig.jerk" || note "SIG$sig: $(cat "$tmp/$sig.jerk")"
done

# 2. watchdog: the planner thread computes while the arm moves (tests/online/stall.irl), the queue runs dry
"$IRL" run --trace csv --online --max-missed 1000000 --driver sim --queue 20 --no-plots --out "$tmp/wd" stall.irl >/dev/null 2>"$tmp/wd.err"
rc=$?
[ $rc = 1 ] || note "watchdog: exit $rc"
grep -q "online stop: watchdog: the setpoint queue ran dry while moving" "$tmp/wd.err" || note "watchdog: $(head -3 "$tmp/wd.err")"
checks+=(stopped "$tmp/wd" watchdog "watchdog" $vmax $amax +)
ramp_jerk "$tmp/wd" >"$tmp/wd.jerk" || note "watchdog: $(cat "$tmp/wd.jerk")"

# 3. watchdog at rest: after a WAIT (at rest, the queue full) the program computes for longer than the queue (2
#    setpoints) and --watchdog (10 ms) last: the axes hold, then stop (without a ramp)
cat >"$tmp/rest.irl" <<IRL
PROGRAM stall_rest;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
  VAR n : INT;  x : REAL;
BEGIN
  WAIT 300 ms;
  x := 0;
  FOR n := 1 TO 10000000 DO x := x + 1.0; ENDFOR;
  MOVE PTP JOINT(3 deg, 45 deg, -180 deg, 0, 45 deg, 0);
ENDPROGRAM
IRL
"$IRL" run --trace csv --online --max-missed 1000000 --driver sim --queue 2 --watchdog 10ms --no-plots --out "$tmp/wr" "$tmp/rest.irl" >/dev/null 2>"$tmp/wr.err"
rc=$?
[ $rc = 1 ] || note "watchdog at rest: exit $rc"
grep -q "online stop: watchdog: no setpoint for 0.01 s at rest" "$tmp/wr.err" || note "watchdog at rest: $(head -3 "$tmp/wr.err")"
checks+=(json "$tmp/wr/online.json" 'j["stop"]["moving"] is False and j["holds"] >= 9 and j["stop_ramp"] == 0' +)

# 4. the limit re-check: the same move twice as fast as the machine allows (--force: the pre-flight would refuse it)
"$IRL" run --trace csv --online --max-missed 1000000 --force --driver sim --time-scale 0.5 --no-plots --out "$tmp/li" ptp_long.irl >/dev/null 2>"$tmp/li.err"
rc=$?
[ $rc = 1 ] || note "limit: exit $rc"
grep -q "online stop: limit: axis arm.1 speed jump .* deg/s^2 beyond 343.775 deg/s^2," "$tmp/li.err" || note "limit: $(grep online "$tmp/li.err" | head -3)"
# every speed written changed by at most the acceleration limit (1 % slack): the refused setpoint was not written
checks+=(stopped "$tmp/li" limit "limit: axis arm.1" + speeds "$tmp/li/online.csv" $amax +)
ramp_jerk "$tmp/li" >"$tmp/li.jerk" || note "limit: $(cat "$tmp/li.jerk")" # the stream's own jerk is 8 x

# 5. a start position beyond the limits is refused before anything is enabled (--force: past the pre-flight)
"$IRL" run --trace csv --online --max-missed 1000000 --force --driver sim --start arm=3,0.785,-3.14,0,0.785,0 --no-plots --out "$tmp/sp" ptp_long.irl >/dev/null 2>"$tmp/sp.err"
rc=$?
[ $rc = 1 ] || note "start beyond limits: exit $rc"
grep -q "online: the start position of axis arm.1 (171.887 deg) is beyond its limits \[-160, 160\] deg" "$tmp/sp.err" || note "start: $(head -2 "$tmp/sp.err")"
checks+=(json "$tmp/sp/online.json" 'j["status"] == "not_started" and "start position" in j["reason"]' +)

msg=$(python3 "$root/tests/online/online_check.py" "${checks[@]}" json "$tmp/sp/report.json" 'j["verdict"] == "error"') \
    || note "$msg"
exit $fail
