#!/usr/bin/env bash
# tests/sh/online_approach.sh: the approach to the start (`--approach`, runtime/online/online_approach.h). The sim
# driver's axes stand away from the program's start (sim:offset=):
#   1. without --approach the run does not start: the message (and online.json's reason) names the axis and its
#      distance with its unit;
#   2. with --approach every axis is moved to the start first (one joint-synchronised PTP at 10 % of the speed,
#      acceleration and jerk limits: checked on the written positions' differences), logged as `approach` rows
#      (cycle -1) and in online.json (per axis from, to, distance, unit; duration), the axes arrive together, and
#      the program's part is the dry-run's: trace.csv byte-identical, every run row the trace's;
#   3. SIGINT and a drive fault during the approach stop it under control (a ramp within the limits, exit 1,
#      "stopped", the message says how far into the approach);
#   4. the drive emulator (modbus driver) standing 0.2 rad away on axis 2: without --approach the refusal names the
#      axis and distance before anything is enabled (the emulator ends disabled where it stood); with --approach
#      the driver reads where the axes stand, enables them there, and the approach runs as with sim (its rows
#      within 10 % of the limits, online.json's entry, the trace the dry-run's), the emulator ending disabled at the
#      program's end; a driver without feedback (stream) refuses --approach; --approach at the start changes
#      nothing.
# Needs $IRL, $BUILD.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d)
emu_pid=""
cleanup() { [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
check() { python3 "$root/tests/online/online_check.py" "$@"; }
vmax=2,2,2.5,4,4,4 amax=6,5,8,15,15,15 jmax=60,50,80,300,300,300 # models/puma560_cell.irm, rad/s^k

"$IRL" run --trace csv --no-plots --no-progress --out "$tmp/dry" lin_short.irl >/dev/null 2>&1 || note "dry-run failed"

# 1. away, no --approach: refused, naming the axis and the distance
"$IRL" run --trace csv --online --max-missed 1000000 --driver sim:offset=0.2,offset_axis=2 --no-plots --out "$tmp/away" lin_short.irl \
    >/dev/null 2>"$tmp/away.err"
rc=$?
[ $rc = 1 ] || note "away: exit $rc"
want="axis arm.2 stands 11.4592 deg from the program's start"
grep -q "$want" "$tmp/away.err" || note "away: stderr lacks '$want': $(head -2 "$tmp/away.err")"
grep -q -- "--approach" "$tmp/away.err" || note "away: the message does not name --approach"
msg=$(check json "$tmp/away/online.json" "j['status'] == 'not_started' and \"$want\" in j['reason']") || note "$msg"

# 2. every axis 0.15 rad (8.59437 deg) away: the approach, then the program exactly as the dry-run
"$IRL" run --trace csv --online --max-missed 1000000 --approach --driver sim:offset=-0.15 --queue 200 --no-plots --out "$tmp/ap" lin_short.irl \
    >"$tmp/ap.out" 2>"$tmp/ap.err"
rc=$?
[ $rc = 0 ] || note "approach: exit $rc: $(head -3 "$tmp/ap.err")"
cmp -s "$tmp/dry/trace.csv" "$tmp/ap/trace.csv" || note "approach: trace.csv differs from the dry-run's"
grep -q "irl: approach to the program's start at 10 % of the speed, acceleration and jerk limits, [0-9.]* s: arm.1 +8.59437 deg" \
    "$tmp/ap.err" || note "approach: stderr $(grep approach "$tmp/ap.err" | head -2)"
j="$tmp/ap/online.json"
msg=$(check same "$tmp/dry/trace.csv" "$tmp/ap/online.csv" --complete + approach "$tmp/ap" $vmax $amax $jmax \
    + json "$j" 'j["status"] == "complete" and j["approach"]["override"] == 0.1 and j["approach_setpoints"] == j["approach"]["setpoints"] > 0' \
    + json "$j" 'all(abs(a["distance"] - 0.15) < 1e-12 and a["unit"] == "rad" for a in j["approach"]["axes"])' \
    + json "$j" 'abs(j["approach"]["duration_s"] - 0.001 * j["approach"]["setpoints"]) < 1e-9') || note "$msg"
# the axes arrive together: each one's last approach row away from the start is the same row
python3 - "$tmp/ap/online.csv" <<'PY' || note "approach: the axes do not arrive together"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["state"] == "approach"]
end = [float(rows[-1]["arm.q%d" % k]) for k in range(1, 7)]
last = [max(i for i, r in enumerate(rows) if abs(float(r["arm.q%d" % k]) - end[k - 1]) > 1e-9) for k in range(1, 7)]
print("approach: %d rows, the axes' last moving rows %s" % (len(rows), last))
sys.exit(0 if max(last) - min(last) <= 1 and max(last) >= len(rows) - 3 else 1)
PY

# 3. SIGINT and a fault (0.5 s after the enable, less the cycles that held the axes while the queue filled) during
#    the approach: controlled stops
"$IRL" run --trace csv --online --max-missed 1000000 --approach --driver sim:offset=0.3 --no-plots --out "$tmp/int" lin_short.irl \
    >/dev/null 2>"$tmp/int.err" &
pid=$!
sleep 1.2
kill -INT $pid
wait $pid
rc=$?
[ $rc = 1 ] || note "SIGINT in the approach: exit $rc"
"$IRL" run --trace csv --online --max-missed 1000000 --approach --driver sim:offset=0.3,fault_at=0.5 --no-plots --out "$tmp/fault" lin_short.irl \
    >/dev/null 2>"$tmp/fault.err"
rc=$?
[ $rc = 1 ] || note "fault in the approach: exit $rc"
msg=$(check stopped "$tmp/int" signal "s into the approach to the program's start" $vmax $amax \
    + stopped "$tmp/fault" driver_fault "s into the approach to the program's start" $vmax $amax \
    + json "$tmp/int/online.json" 'j["approach"]["complete"] is False and 0 < j["approach"]["written"] < j["approach"]["setpoints"] and j["from_queue"] == 0' \
    + json "$tmp/fault/online.json" '400 < j["approach"]["written"] <= 500 and j["last_cycle_written"] == -1') || note "$msg"

# 4. the drive emulator standing away: refused without --approach, approached with it
emu="$BUILD/tools/irl-drive-emulator"
away="0,0.9853981633974483,-3.141592653589793,0,0.7853981633974483,0" # the PUMA cell's home, axis 2 + 0.2 rad
for what in refuse emu_ap; do
    rm -f "$tmp/$what.port"
    "$emu" --port-file "$tmp/$what.port" --start "$away" --watchdog 0.5 --timeout 20 >/dev/null 2>"$tmp/$what.emu" &
    emu_pid=$!
    for _ in $(seq 100); do [ -s "$tmp/$what.port" ] && break; sleep 0.05; done
    opt=""
    [ $what = emu_ap ] && opt=--approach
    "$IRL" run --trace csv --online $opt --driver "modbus:port=$(cat "$tmp/$what.port"),timeout=0.5" --max-missed 1000000 \
        --no-plots --out "$tmp/$what" lin_short.irl >/dev/null 2>"$tmp/$what.err"
    rc=$?
    wait "$emu_pid"; emu_pid=""
    want=1
    [ $what = emu_ap ] && want=0
    [ $rc = $want ] || note "emulator $what: exit $rc: $(head -3 "$tmp/$what.err")"
    grep -q "; disabled$" "$tmp/$what.emu" || note "emulator $what: the drive ended $(cat "$tmp/$what.emu")"
done
grep -q "axis arm.2 stands 11.459[12] deg from the program's start" "$tmp/refuse.err" \
    || note "emulator refuse: $(head -2 "$tmp/refuse.err")"
grep -q "; axes at 0,0.985398163,-3.14159265,0,0.785398163,0;" "$tmp/refuse.emu" \
    || note "emulator refuse: the drive moved: $(cat "$tmp/refuse.emu")"
msg=$(check json "$tmp/refuse/online.json" "j['status'] == 'not_started' and 'axis arm.2 stands 11.459' in j['reason']") \
    || note "$msg"
grep -q "irl: approach to the program's start at 10 % of the speed, acceleration and jerk limits, [0-9.]* s: arm.1 +0 deg, arm.2 -11.459[12] deg" \
    "$tmp/emu_ap.err" || note "emulator approach: stderr $(head -3 "$tmp/emu_ap.err")"
cmp -s "$tmp/dry/trace.csv" "$tmp/emu_ap/trace.csv" || note "emulator approach: trace.csv differs from the dry-run's"
j="$tmp/emu_ap/online.json"
msg=$(check same "$tmp/dry/trace.csv" "$tmp/emu_ap/online.csv" --complete + approach "$tmp/emu_ap" $vmax $amax $jmax \
    + json "$j" 'j["status"] == "complete" and j["driver"] == "modbus" and j["disabled_confirmed"] is True and j["approach"]["complete"]' \
    + json "$j" '[round(a["distance"], 6) for a in j["approach"]["axes"]] == [0, -0.2, 0, 0, 0, 0]' \
    + json "$j" 'abs(j["approach"]["axes"][1]["from"] - 0.985398) < 1e-12') || note "$msg"
# the emulator's axes, where it ended (disabled), are the program's end: the trace's last row
python3 - "$tmp/dry/trace.csv" "$tmp/emu_ap.emu" <<'PY' || note "emulator approach: the drive did not end at the program's end"
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
end = [float(rows[-1][i]) for i, h in enumerate(rows[0]) if re.match(r"arm\.q\d\b", h)]
at = [float(x) for x in re.search(r"; axes at ([^;]*);", open(sys.argv[2]).read()).group(1).split(",")]
print("emulator approach: the drive ended at %s, the program's end %s" % (at, end))
sys.exit(0 if len(end) == 6 and all(abs(a - e) < 1e-5 for a, e in zip(at, end)) else 1)
PY
"$IRL" run --trace csv --online --max-missed 1000000 --approach --driver stream:out="$tmp/s.txt" --no-plots --out "$tmp/st" lin_short.irl \
    >/dev/null 2>"$tmp/st.err"
rc=$?
[ $rc = 1 ] || note "stream --approach: exit $rc"
grep -q "the stream driver reports no actual positions" "$tmp/st.err" || note "stream --approach: $(head -2 "$tmp/st.err")"
"$IRL" run --trace csv --online --max-missed 1000000 --approach --driver sim --no-plots --out "$tmp/at" lin_short.irl >/dev/null 2>"$tmp/at.err"
rc=$?
[ $rc = 0 ] || note "--approach at the start: exit $rc"
msg=$(check same "$tmp/dry/trace.csv" "$tmp/at/online.csv" --complete \
    + json "$tmp/at/online.json" 'j["approach"] is None and j["approach_setpoints"] == 0') || note "$msg"
"$IRL" run --trace csv --approach --out-temp lin_short.irl >/dev/null 2>&1
[ $? = 64 ] || note "--approach without --online: not a usage error"
exit $fail
