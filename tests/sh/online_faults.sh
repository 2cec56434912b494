#!/usr/bin/env bash
# tests/sh/online_faults.sh: faults that stop safely (runtime/online/rt_loop.h, drivers/stream.c, drivers/modbus.c):
# a FIFO reader that goes away mid-run is a driver fault, not a SIGPIPE death (exit 1, the stop, online.json
# "stopped"); two SIGINTs 20 ms apart keep the stop ramp to rest, three disable the axes at once, one after the
# disable ends a program whose handler retries for ever (its outputs written); a slow Modbus
# peer (the drive emulator replying 30 ms late) is a driver fault whose stop is not stretched, with the disable
# confirmed and the rows the drive did not acknowledge marked; replies 5 ms late at a 1 ms cycle overdraw the
# missed-deadline budget (a timing stop). Every case: exit 1, online.csv whole (every row has every field),
# online.json final ("stopped"). Needs $IRL, $BUILD.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d)
pid="" emu_pid="" rd_pid=""
cleanup() { for p in $pid $emu_pid $rd_pid; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
emu="$BUILD/tools/irl-drive-emulator"
home="0,0.7853981633974483,-3.141592653589793,0,0.7853981633974483,0"

# $1 folder, $2 stop cause, $3 python condition on j (online.json) and rows (online.csv as dicts): the run ended
# "stopped" for that cause and its log is whole
final() {
    python3 - "$1" "$2" "$3" <<'PY' || note "$1: $(head -c 600 "$1/online.json" 2>/dev/null)"
import csv, json, sys
d, cause, cond = sys.argv[1:]
j = json.load(open(d + '/online.json'))
text = open(d + '/online.csv').read()
lines = text.split('\n')
assert text.endswith('\n'), 'online.csv cut mid-row'
width = len(lines[0].split(','))
assert all(len(l.split(',')) == width for l in lines[1:-1]), 'a row of online.csv with missing fields'
rows = list(csv.DictReader(open(d + '/online.csv')))
assert len(rows) == j['written'], '%d rows, %d written' % (len(rows), j['written'])
assert j['status'] == 'stopped' and j['complete'] is False and j['stop']['cause'] == cause, j['stop']
assert eval("(" + cond + ")"), cond
PY
}

# 1. the FIFO's reader goes away after 300 lines
mkfifo "$tmp/fifo"
head -n 300 <"$tmp/fifo" >/dev/null &
rd_pid=$!
"$IRL" run --trace csv --online --max-missed 1000000 --driver stream:out="$tmp/fifo" --no-plots --out "$tmp/rd" ptp_long.irl >/dev/null 2>"$tmp/rd.err"
rc=$?; wait "$rd_pid"; rd_pid=""
[ $rc = 1 ] || note "reader gone: exit $rc (141 is a SIGPIPE death)"
grep -q "online stop: driver fault: stream: .*fifo: the reader has gone" "$tmp/rd.err" \
    || note "reader gone: message $(head -3 "$tmp/rd.err")"
final "$tmp/rd" driver_fault 'j["stop_ramp"] > 0 and rows[-1]["state"] in ("stop", "settle")'

# 2. SIGINT twice, 20 ms apart: the ramp runs to rest; 3. three times: the axes are disabled at once
signals() { # $1 name, $2 count
    "$IRL" run --trace csv --online --max-missed 1000000 --driver sim --no-plots --out "$tmp/$1" ptp_long.irl >/dev/null 2>"$tmp/$1.err" &
    pid=$!
    for _ in $(seq 250); do [ "$(cat "$tmp/$1/online.csv" 2>/dev/null | wc -l)" -gt 300 ] && break; sleep 0.02; done
    for _ in $(seq "$2"); do kill -INT "$pid"; sleep 0.02; done
    wait "$pid"; rc=$?; pid=""
    [ $rc = 1 ] || note "$1: exit $rc: $(tail -3 "$tmp/$1.err")"
}
signals two 2
grep -q "irl: stopping under control (the ramp runs to rest); a third signal disables the axes at once" \
    "$tmp/two.err" || note "two signals: no acknowledgement"
final "$tmp/two" signal 'j["stop_cut_short"] is False and j["stop_ramp"] > 50 and
    all(float(v) == 0 for k, v in rows[-1].items() if ".qd" in k)'
signals three 3
grep -q "the axes were disabled at once (third signal)" "$tmp/three.err" || note "three signals: no message"
final "$tmp/three" signal 'j["stop_cut_short"] is True'

# a program whose ON ERROR handler retries for ever: once the axes are disabled, a signal ends it at its next retry,
# every output written
"$IRL" run --trace csv --online --max-missed 1000000 --driver sim --no-plots --out "$tmp/rf" retry_forever.irl >"$tmp/rf.out" 2>"$tmp/rf.err" &
pid=$!
for _ in $(seq 250); do [ "$(cat "$tmp/rf/online.csv" 2>/dev/null | wc -l)" -gt 300 ] && break; sleep 0.02; done
kill -INT "$pid"
sleep 1.5 # the stop ramp (under 0.5 s) and the hold: the axes are disabled, the handler retries
kill -INT "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
wait "$pid"; rc=$?; pid=""
[ $rc = 1 ] || note "retry for ever: exit $rc: $(tail -3 "$tmp/rf.err")"
grep -q "ending at once" "$tmp/rf.err" && note "retry for ever: ended at once, without its outputs"
[ -s "$tmp/rf.out" ] && note "retry for ever: printed $(head -1 "$tmp/rf.out") (never reached)"
final "$tmp/rf" signal 'j["stop_cut_short"] is False and j["stop_ramp"] > 50'

# 4. a slow Modbus peer: from 0.3 s after the enable every reply comes 30 ms late (the request timeout is 20 ms)
[ -x "$emu" ] || { echo "FAIL no $emu"; exit 1; }
slow() { # $1 name, $2 delay, $3 driver options, $4 more irl options
    rm -f "$tmp/$1.port"
    "$emu" --port-file "$tmp/$1.port" --start "$home" --timeout 15 --watchdog 0.5 --delay "$2" --delay-at 0.3 \
        >/dev/null 2>"$tmp/$1.emu" &
    emu_pid=$!
    for _ in $(seq 100); do [ -s "$tmp/$1.port" ] && break; sleep 0.05; done
    "$IRL" run --trace csv --online --driver "modbus:port=$(cat "$tmp/$1.port")$3" ${4:-} --no-plots --out "$tmp/$1" lin_short.irl \
        >/dev/null 2>"$tmp/$1.err"
    rc=$?
    wait "$emu_pid"; emu_pid=""
    [ $rc = 1 ] || note "$1: exit $rc: $(tail -3 "$tmp/$1.err")"
    grep -q "; disabled$" "$tmp/$1.emu" || note "$1: the drive ended $(cat "$tmp/$1.emu")"
}
# (the deadline budget is the next case's; here a loaded machine's missed deadlines must not stop the run first)
slow late 30ms "" "--max-missed 1000000"
grep -q "online stop: driver fault: modbus: 127.0.0.1:[0-9]*: no reply in time" "$tmp/late.err" \
    || note "slow peer: message $(head -3 "$tmp/late.err")"
# the stop lasts its ramp in wall time (plus one cycle's bounded wait per row), not 30 ms per row
final "$tmp/late" driver_fault 'j["disabled_confirmed"] is True and
    any(r["confirmed"] == "0" for r in rows if r["state"] == "stop") and
    all(r["confirmed"] == "1" for r in rows[:200]) and
    (lambda s: float(s[-1]["wall"]) - float(s[0]["wall"]) <= 0.001 * len(s) + 0.05)([r for r in rows if r["state"] == "stop"])'
slow budget 5ms ",timeout=0.5"
grep -q "online stop: timing: .* deadlines missed in .* beyond the budget of 50" "$tmp/budget.err" \
    || note "timing: message $(head -3 "$tmp/budget.err")"
grep -q "irl: warning: .* deadlines missed (.* overruns)" "$tmp/budget.err" || note "timing: no warning"
final "$tmp/budget" timing 'j["disabled_confirmed"] is True and j["missed_deadlines"] > 50'

exit $fail
