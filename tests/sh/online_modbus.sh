#!/usr/bin/env bash
# tests/sh/online_modbus.sh: the modbus driver (runtime/online/drivers/modbus.c) against the drive emulator
# ($BUILD/tools/irl-drive-emulator, real Modbus TCP on 127.0.0.1, a free port): a program that waits for a
# digital input the drive raises at 0.3 s, then moves (the input reaches the program within the queue's latency,
# the run completes, the setpoints written are the dry-run's, the actual positions come back in micro-units); an
# axis that stalls (following-error stop: controlled, exit 1, the message names the cause and the axis); a drive
# fault (stop, exit 1); no drive listening (a clear error).
# Every emulator ends by itself (client gone or --timeout) and is killed by pid on the way out. Request timeout and
# drive watchdog are 0.5 s: the test is about function, not the loaded machine's latency. Needs $IRL, $BUILD.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d)
emu_pid=""
cleanup() { [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
emu="$BUILD/tools/irl-drive-emulator"
home="0,0.7853981633974483,-3.141592653589793,0,0.7853981633974483,0" # the PUMA cell's home, rad
[ -x "$emu" ] || { echo "FAIL no $emu"; exit 1; }

start_emu() { # $1 name, rest: emulator options; sets port, emu_pid
    local name=$1; shift
    rm -f "$tmp/$name.port"
    "$emu" --port-file "$tmp/$name.port" --start "$home" --timeout 15 --watchdog 0.5 "$@" >/dev/null 2>"$tmp/$name.emu" &
    emu_pid=$!
    for _ in $(seq 100); do [ -s "$tmp/$name.port" ] && break; sleep 0.05; done
    port=$(cat "$tmp/$name.port" 2>/dev/null)
    [ -n "$port" ] || note "$name: the emulator did not start"
}
end_emu() { # $1 name: the emulator ends by itself once the client left
    wait "$emu_pid"; local r=$?; emu_pid=""
    [ $r = 0 ] || note "$1: emulator exit $r ($(cat "$tmp/$1.emu"))"
}

# 1. an input from the drive, then a move; the run completes
start_emu input --input 1=1@0.3
"$IRL" run --trace csv --online --driver modbus:port="$port",timeout=0.5 --max-missed 1000000 --input part=1@0.3 --queue 50 --no-plots --out "$tmp/in" wait_input.irl \
    >"$tmp/in.out" 2>"$tmp/in.err"
rc=$?; end_emu input
[ $rc = 0 ] || note "input: exit $rc: $(head -3 "$tmp/in.err")"
# the program saw the input at program time T: the drive raised it 0.3 s after the enable, and the planner thread
# runs at most --queue + 1 cycles ahead of the drive (plus what the first cycles took); program time falls behind
# the drive's clock by one cycle for every deadline the loop missed or held at rest (a loaded machine), as
# online.json counts them
t=$(sed -n 's/^\[[0-9.]* s\] part at *//p' "$tmp/in.out")
lag=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print((j["missed_deadlines"] + j["holds"]) * j["cycle_s"])' \
      "$tmp/in/online.json" 2>/dev/null || echo 0)
awk -v t="$t" -v lag="$lag" 'BEGIN { exit !(t >= 0.3 - lag - 1e-9 && t <= 0.3 + 0.051 + 0.25) }' ||
    note "input seen at program time '$t' (missed or held cycles: $lag s)"
checks=(same "$tmp/in/trace.csv" "$tmp/in/online.csv" --complete + micro "$tmp/in/online.csv"
        + json "$tmp/in/online.json" 'j["complete"] and j["driver"] == "modbus"')

# 2. axis 2 stalls 0.3 s after the enable: following-error stop
start_emu stall --fault-at 0.3 --fault stall:2
"$IRL" run --trace csv --online --driver modbus:port="$port",timeout=0.5 --max-missed 1000000 --following-error 0.01 --queue 100 --no-plots --out "$tmp/st" \
    lin_short.irl >"$tmp/st.out" 2>"$tmp/st.err"
rc=$?; end_emu stall
[ $rc = 1 ] || note "stall: exit $rc"
grep -q "runtime error: online stop: following error: axis arm.2 off by .* deg (limit 0.573 deg)" "$tmp/st.err" \
    || note "stall: message $(head -3 "$tmp/st.err")"
checks+=(+ stopped "$tmp/st" following_error "following error: axis arm.2" 2,2,2.5,4,4,4 6,5,8,15,15,15
         + json "$tmp/st/online.json" 'j["stop"]["moving"] is True and j["stop_ramp"] > 0')

# 3. a drive fault
start_emu fault --fault-at 0.3 --fault drive
"$IRL" run --trace csv --online --driver modbus:port="$port",timeout=0.5 --max-missed 1000000 --queue 100 --no-plots --out "$tmp/df" lin_short.irl \
    >/dev/null 2>"$tmp/df.err"
rc=$?; end_emu fault
[ $rc = 1 ] || note "drive fault: exit $rc"
grep -q "online stop: driver fault: modbus: 127.0.0.1:$port reports fault 1 (drive fault)" "$tmp/df.err" \
    || note "drive fault: message $(head -3 "$tmp/df.err")"

# 4. nobody listening: a clear error
"$IRL" run --trace csv --online --driver modbus:port=1 --no-plots --out "$tmp/nc" lin_short.irl >/dev/null 2>"$tmp/nc.err"
rc=$?
[ $rc = 1 ] || note "no drive: exit $rc"
grep -q "modbus: cannot connect to 127.0.0.1:1" "$tmp/nc.err" || note "no drive: $(head -2 "$tmp/nc.err")"

msg=$(python3 "$root/tests/online/online_check.py" "${checks[@]}") || note "$msg"
exit $fail
