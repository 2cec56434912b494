#!/usr/bin/env bash
# tests/sh/online_cia402.sh: the modbus driver's register maps (drives/*.map, src/regmap_read.c) and its CiA 402
# state machine, against an independent peer: tests/tools/cia402_drive.py, a CiA 402 drive served by pymodbus
# (python3-pymodbus) on 127.0.0.1, a free port. Shows:
#   1. programs/lin_circ.irl end to end with drives/cia402.map (CSP, 4 ms): every axis walked to Operation enabled
#      before the first setpoint, the drive received exactly online.csv's positions in its counts (0.0001 degree),
#      whose run rows are the dry-run's trace, and the disable at the end took every axis to Ready to switch on,
#      confirmed (online.json "disabled_confirmed": true);
#   2. the same drive in cyclic synchronous velocity (mode=csv): it runs in mode 9 and follows;
#   3. a drive fault mid-run (axis 2): a controlled stop, exit 1, online.json says why, the disable confirmed; a
#      peer whose replies come late: a driver fault, a stop whose cycles block a bounded time, the disable confirmed;
#   4. an axis that never reaches Operation enabled: the run does not start, the message names the axis and its
#      state, and the axes already enabled are switched off again; a drive that powers up in Fault is reset;
#   5. bad map files: errors with file:line:col, exit 65 (66 for a missing file); objects sharing a register;
#   6. drives/emulator.map named explicitly, against irl's own emulator: the run completes as with the built-in map;
#   7. --approach: the drive powers up 5 degrees away on axis 2 and 3 on axis 5; the driver reads where it stands,
#      enables it there, and the drive's log shows it moved from there to the program's start within 10 % of the
#      speed and acceleration limits, then received the program (online.csv's rows, whose run rows are the trace);
#   8. an axis that does not leave Operation enabled at the disable: exit 3, online.json "disabled_confirmed": false
#      and "disable_unconfirmed" names it, as the error on stderr does.
# Every peer ends by itself (--timeout) and is killed by pid on the way out. Needs $IRL, $BUILD.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d)
peer_pid=""
cleanup() { [ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
PY=""
for p in python3 /usr/bin/python3; do "$p" -c 'import pymodbus' 2>/dev/null && { PY=$p; break; }; done
[ -n "$PY" ] || { echo "FAIL python3-pymodbus is not installed (.ci/packages)"; exit 1; }
map="$root/drives/cia402.map"
home="0,450000,-1800000,0,450000,0"   # the PUMA cell's home (0, 45, -180, 0, 45, 0 degrees) in 0.0001 degree
scale=$(python3 -c 'print(repr(0.0001 * 0.017453292519943295))')   # rad per count, as the map gives it

start_peer() { # $1 name, rest: drive options; sets port, peer_pid
    local name=$1; shift
    rm -f "$tmp/$name.port"
    "$PY" "$root/tests/tools/cia402_drive.py" --port-file "$tmp/$name.port" --start "$home" --timeout 40 \
        --log "$tmp/$name.log" "$@" >/dev/null 2>"$tmp/$name.peer" &
    peer_pid=$!
    for _ in $(seq 200); do [ -s "$tmp/$name.port" ] && break; sleep 0.05; done
    port=$(cat "$tmp/$name.port" 2>/dev/null)
    [ -n "$port" ] || note "$name: the drive did not start: $(tail -3 "$tmp/$name.peer")"
}
end_peer() { kill "$peer_pid" 2>/dev/null; wait "$peer_pid" 2>/dev/null; peer_pid=""; }
checks=()

# 1. lin_circ end to end in CSP
start_peer circ
"$IRL" run --trace csv --online --driver modbus:port="$port",map="$map",timeout=0.5 --cycle 4ms --max-missed 1000000 \
    --no-plots --out "$tmp/circ" "$root/programs/lin_circ.irl" >"$tmp/circ.out" 2>"$tmp/circ.err"
rc=$?; end_peer
[ $rc = 0 ] || note "lin_circ: exit $rc: $(head -3 "$tmp/circ.err")"
grep -q "the drive did not confirm" "$tmp/circ.err" && note "lin_circ: disable not confirmed"
# the enable: each axis Switch on disabled -> Ready to switch on -> Switched on -> Operation enabled before the
# first cyclic setpoint (the log's second target line)
awk -F, '/^sp,/ { sp++ } /^state,/ && sp < 2 { s[$2] = s[$2] "/" $3 }
         END { for (a = 1; a <= 6; a++) if (s[a] !~ /Switch on disabled\/Ready to switch on\/Switched on\/Operation enabled$/) {
                   print "axis " a ": " s[a]; bad = 1 }
               exit bad }' "$tmp/circ.log" >"$tmp/circ.walk" || note "lin_circ: enable walk $(cat "$tmp/circ.walk")"
checks+=(same "$tmp/circ/trace.csv" "$tmp/circ/online.csv" --complete
         + drive "$tmp/circ/online.csv" "$tmp/circ.log" "$scale"
         + states "$tmp/circ.log" 1,2,3,4,5,6 "Operation enabled" "Ready to switch on"
         + json "$tmp/circ/online.json" 'j["complete"] and j["disabled_confirmed"] is True and j["driver"] == "modbus"')

# 2. cyclic synchronous velocity: the drive integrates the speed setpoints over its wall time, so a cycle that
# comes late on a loaded machine leaves it ahead of the setpoint: a wide following-error limit (1 rad), the test
# is about the mode (the driver refuses a drive whose mode display is not 9)
start_peer csv
"$IRL" run --trace csv --online --driver modbus:port="$port",map="$map",timeout=0.5,mode=csv --cycle 4ms --max-missed 1000000 \
    --following-error 1 --no-plots --out "$tmp/csv" lin_short.irl >"$tmp/csv.out" 2>"$tmp/csv.err"
rc=$?; end_peer
[ $rc = 0 ] || note "csv: exit $rc: $(head -3 "$tmp/csv.err")"
checks+=(+ states "$tmp/csv.log" 1,2,3,4,5,6 "Operation enabled" "Ready to switch on"
         + json "$tmp/csv/online.json" 'j["complete"] and j["disabled_confirmed"] is True')

# 3. axis 2 faults 0.3 s after the enable: controlled stop, exit 1, the reason in online.json
start_peer fault --fault-at 0.3 --fault-axis 2
"$IRL" run --trace csv --online --driver modbus:port="$port",map="$map",timeout=0.5 --cycle 4ms --max-missed 1000000 \
    --no-plots --out "$tmp/df" lin_short.irl >/dev/null 2>"$tmp/df.err"
rc=$?; end_peer
[ $rc = 1 ] || note "fault: exit $rc"
want="driver fault: modbus: 127.0.0.1:$port: axis arm.2 reports a fault: Fault"
grep -q "online stop: $want" "$tmp/df.err" || note "fault: message $(head -3 "$tmp/df.err")"
grep -q "error code 0x2310" "$tmp/df.err" || note "fault: no error code in $(head -3 "$tmp/df.err")"
checks+=(+ stopped "$tmp/df" driver_fault "axis arm.2 reports a fault"
         + json "$tmp/df/online.json" "j['status'] == 'stopped' and j['disabled_confirmed'] is True and 'axis arm.2 reports a fault' in j['stop']['message']"
         + states "$tmp/fault.log" 2 "Fault" "Fault" + states "$tmp/fault.log" 1,3,4,5,6 "Operation enabled" "Ready to switch on")

# 3b. a slow peer: from 0.3 s after the enable every reply comes 30 ms late (the cycle's requests may take 20 ms
# together): a driver fault, and the stop that follows blocks each cycle a quarter of the 4 ms cycle at most, so
# its rows span their ramp time plus at most 50 ms of wall time; the disable still confirmed
start_peer slow --delay 0.03 --delay-at 0.3
"$IRL" run --trace csv --online --driver modbus:port="$port",map="$map" --cycle 4ms --max-missed 1000000 --no-plots \
    --out "$tmp/sl" lin_short.irl >/dev/null 2>"$tmp/sl.err"
rc=$?; end_peer
[ $rc = 1 ] || note "slow: exit $rc"
grep -q "online stop: driver fault: modbus: 127.0.0.1:$port: no reply in time" "$tmp/sl.err" \
    || note "slow: message $(head -3 "$tmp/sl.err")"
checks+=(+ json "$tmp/sl/online.json" 'j["status"] == "stopped" and j["disabled_confirmed"] is True and j["stop_ramp"] > 0 or print(j["status"], j["disabled_confirmed"], j["stop_ramp"], j["stop"])'
         + states "$tmp/slow.log" 1,2,3,4,5,6 "Operation enabled" "Ready to switch on")
msg=$(python3 - "$tmp/sl/online.csv" "$tmp/sl/online.json" <<'EOF2'
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["state"] == "stop"]
span = float(rows[-1]["wall"]) - float(rows[0]["wall"]) if rows else 0
if not rows or span > 0.004 * len(rows) + 0.05:
    j = json.load(open(sys.argv[2]))
    print("the stop's %d rows took %.3f s of wall time; %s" % (len(rows), span, {k: j[k] for k in (
        "status", "stop", "disabled_confirmed", "stop_ramp")}))
EOF2
)
[ -z "$msg" ] || note "slow: $msg"

# 4. axis 3 stays in Switched on (enable operation refused): no start, the axes switched off again
start_peer refuse --refuse-enable 3
"$IRL" run --trace csv --online --driver modbus:port="$port",map="$map",timeout=0.5 --no-plots --out "$tmp/rf" lin_short.irl \
    >/dev/null 2>"$tmp/rf.err"
rc=$?; end_peer
[ $rc = 1 ] || note "refuse: exit $rc"
want="modbus: axis arm.3 stays in Switched on (statusword 0x0233, error code 0x0000) more than 0.5 s after 'enable operation': it did not reach Operation enabled"
grep -qF "$want" "$tmp/rf.err" || note "refuse: message $(head -3 "$tmp/rf.err")"
grep -q "^sp," "$tmp/refuse.log" && [ "$(grep -c '^sp,' "$tmp/refuse.log")" != 1 ] && note "refuse: cyclic setpoints were sent"
checks+=(+ json "$tmp/rf/online.json" "j['status'] == 'not_started' and 'axis arm.3 stays in Switched on' in j['reason']"
         + states "$tmp/refuse.log" 1,2,3,4,5,6 "Switched on" "Ready to switch on")

# 4b. a drive that powers up in Fault: the enable resets it (bit 7's rising edge) and goes on to Operation enabled
start_peer reset --start-in-fault
"$IRL" run --trace csv --online --driver modbus:port="$port",map="$map",timeout=0.5 --cycle 4ms --max-missed 1000000 \
    --no-plots --out "$tmp/rs" lin_short.irl >/dev/null 2>"$tmp/rs.err"
rc=$?; end_peer
[ $rc = 0 ] || note "reset: exit $rc: $(head -3 "$tmp/rs.err")"
awk -F, '/^state,/ { s[$2] = s[$2] "/" $3 } END { for (a = 1; a <= 6; a++) if (s[a] !~ /^\/Fault\/Switch on disabled\/Ready/) bad = 1
         exit bad }' "$tmp/reset.log" || note "reset: states $(grep -m 8 '^state' "$tmp/reset.log" | tr '\n' ' ')"
checks+=(+ states "$tmp/reset.log" 1,2,3,4,5,6 "Operation enabled" "Ready to switch on"
         + json "$tmp/rs/online.json" 'j["complete"] and j["disabled_confirmed"] is True')

# 5. bad maps: each error with file:line:col
bad_map() { # $1 name, $2 expected message (file:line:col: error: ...), stdin: the map
    cat >"$tmp/$1.map"
    "$IRL" run --trace csv --online --driver modbus:port=1,map="$tmp/$1.map" --no-plots --out "$tmp/bm" lin_short.irl \
        >/dev/null 2>"$tmp/$1.err"
    local rc=$?
    [ $rc = 65 ] || note "map $1: exit $rc"
    grep -qF "$tmp/$1.map:$2" "$tmp/$1.err" || note "map $1: wanted '$2', got $(head -2 "$tmp/$1.err")"
}
bad_map type "3:22: error: unknown type 'int33'" <<'EOF'
profile cia402
# object   register type
target_position  0   int33 write=16 scale=1e-6rad
EOF
bad_map unit "2:47: error: scale: a position's unit is rad, not 'rad/s'" <<'EOF'
profile cia402
target_position  0   int32 write=16 scale=1e-6rad/s
EOF
bad_map fc "1:34: error: write: function 6 writes one register; int32 takes 2" <<'EOF'
target_position  0   int32 write=6 scale=1e-6rad
EOF
bad_map missing "1:1: error: profile cia402 needs statusword: no line gives it" <<'EOF'
profile cia402
controlword 0 uint16 write=6
modes_of_operation 1 int16 write=6
target_position 2 int32 write=16 scale=0.001deg
position_actual 10 int32 read=3 scale=0.001deg
EOF
bad_map twice "3:1: error: controlword is given twice (first on line 2)" <<'EOF'
profile irl
controlword 0 uint16 write=6
controlword 1 uint16 write=6
EOF
# a map whose objects share a register: refused when the driver opens, before anything is written
sed 's/^controlword .*/controlword 2 uint16 write=6 stride=4/' "$map" >"$tmp/overlap.map"
"$IRL" run --trace csv --online --driver modbus:port=1,map="$tmp/overlap.map" --no-plots --out "$tmp/ov" lin_short.irl \
    >/dev/null 2>"$tmp/overlap.err"
rc=$?
[ $rc = 1 ] || note "overlap: exit $rc"
grep -qF "modbus: the map $tmp/overlap.map writes register 2 twice: controlword (axis 1) and target_velocity (axis 1)" \
    "$tmp/overlap.err" || note "overlap: $(head -2 "$tmp/overlap.err")"
"$IRL" run --trace csv --online --driver modbus:port=1,map="$tmp/none.map" --no-plots --out "$tmp/bm" lin_short.irl \
    >/dev/null 2>"$tmp/none.err"
rc=$?
[ $rc = 66 ] || note "no map file: exit $rc"
grep -q "cannot open the register map '$tmp/none.map'" "$tmp/none.err" || note "no map file: $(head -2 "$tmp/none.err")"

# 6. the emulator's map named explicitly, against irl's emulator
emu="$BUILD/tools/irl-drive-emulator"
"$emu" --port-file "$tmp/emu.port" --start 0,0.7853981633974483,-3.141592653589793,0,0.7853981633974483,0 \
    --timeout 15 --watchdog 0.5 >/dev/null 2>"$tmp/emu.err" &
peer_pid=$!
for _ in $(seq 100); do [ -s "$tmp/emu.port" ] && break; sleep 0.05; done
"$IRL" run --trace csv --online --driver modbus:port="$(cat "$tmp/emu.port")",map="$root/drives/emulator.map",timeout=0.5 \
    --max-missed 1000000 --no-plots --out "$tmp/emu" lin_short.irl >/dev/null 2>"$tmp/emu.irl"
rc=$?
wait "$peer_pid"; erc=$?; peer_pid=""
[ $rc = 0 ] || note "emulator map: exit $rc: $(head -3 "$tmp/emu.irl")"
[ $erc = 0 ] || note "emulator: exit $erc"
grep -q "; disabled$" "$tmp/emu.err" || note "emulator: $(cat "$tmp/emu.err")"
checks+=(+ same "$tmp/emu/trace.csv" "$tmp/emu/online.csv" --complete + micro "$tmp/emu/online.csv"
         + json "$tmp/emu/online.json" 'j["complete"] and j["disabled_confirmed"] is True')

# 7. the approach to the start from where the drive powers up
vmax=2,2,2.5,4,4,4 amax=6,5,8,15,15,15 jmax=60,50,80,300,300,300 # models/puma560_cell.irm, rad/s^k
away="0,500000,-1800000,0,420000,0"
start_peer approach --start "$away"
"$IRL" run --trace csv --online --approach --driver modbus:port="$port",map="$map",timeout=0.5 --cycle 4ms --max-missed 1000000 \
    --no-plots --out "$tmp/ap" lin_short.irl >/dev/null 2>"$tmp/ap.err"
rc=$?; end_peer
[ $rc = 0 ] || note "approach: exit $rc: $(head -3 "$tmp/ap.err")"
grep -q "irl: approach to the program's start at 10 % of the speed, acceleration and jerk limits, [0-9.]* s: arm.1 +0 deg, arm.2 -5 deg, arm.3 +0 deg, arm.4 +0 deg, arm.5 +3 deg" \
    "$tmp/ap.err" || note "approach: stderr $(head -3 "$tmp/ap.err")"
checks+=(+ same "$tmp/ap/trace.csv" "$tmp/ap/online.csv" --complete + approach "$tmp/ap" $vmax $amax $jmax
         + drive "$tmp/ap/online.csv" "$tmp/approach.log" "$scale"
         + moved "$tmp/approach.log" "$scale" "$away" "$home" $vmax $amax 0.004
         + states "$tmp/approach.log" 1,2,3,4,5,6 "Operation enabled" "Ready to switch on"
         + json "$tmp/ap/online.json" 'j["complete"] and j["disabled_confirmed"] is True and j["disable_unconfirmed"] is None'
         + json "$tmp/ap/online.json" '[round(a["distance"] * 180 / 3.141592653589793, 9) for a in j["approach"]["axes"]] == [0, -5, 0, 0, 3, 0]')

# 8. axis 4 keeps its power stage on at the disable
start_peer offdis --refuse-disable 4
"$IRL" run --trace csv --online --driver modbus:port="$port",map="$map",timeout=0.5 --cycle 4ms --max-missed 1000000 \
    --no-plots --out "$tmp/od" lin_short.irl >/dev/null 2>"$tmp/od.err"
rc=$?; end_peer
[ $rc = 3 ] || note "disable refused: exit $rc, want 3 (an axis may still be enabled)"
grep -q "irl: error: the drive did not confirm the disable (axis arm.4): that axis may still be enabled" "$tmp/od.err" \
    || note "disable refused (exit $rc): stderr $(tail -3 "$tmp/od.err")"
checks+=(+ json "$tmp/od/online.json" 'j["complete"] and j["disabled_confirmed"] is False and j["disable_unconfirmed"] == ["arm.4"]'
         + states "$tmp/offdis.log" 4 "Operation enabled" "Operation enabled"
         + states "$tmp/offdis.log" 1,2,3,5,6 "Operation enabled" "Ready to switch on")

msg=$(python3 "$root/tests/online/online_check.py" "${checks[@]}") || note "$msg"
exit $fail
