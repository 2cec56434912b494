#!/usr/bin/env bash
# tests/sh/online_not_started.sh: a run that never moved the axes still writes online.json, saying so
# ("status": "not_started" and the reason), over the file an earlier run left in the same folder: a drive that cannot
# be reached (modbus, nobody listening), a start position beyond the limits, a usage error found after the output
# folder was made (--following-error with the wrong count). A run that starts says "running" until its end. Needs
# $IRL.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

# the file an earlier, complete run left behind
stale() { mkdir -p "$1" && printf '{"status": "complete", "complete": true, "stop": null}\n' >"$1/online.json"; }

# $1 folder, $2 expected exit, $3 text the reason must hold
not_started() {
    python3 - "$1/online.json" "$3" <<'PY' || note "$1: $(cat "$1/online.json" 2>/dev/null | head -12)"
import json, sys
j = json.load(open(sys.argv[1]))
ok = (j["status"] == "not_started" and j["complete"] is False and j["stop"] is None and sys.argv[2] in j["reason"]
      and j["driver"] and j["program"])
sys.exit(0 if ok else 1)
PY
}

# 1. no drive listening: the driver fails to open
stale "$tmp/nc"
"$IRL" run --online --max-missed 1000000 --driver modbus:port=1 --no-plots --out "$tmp/nc" lin_short.irl >/dev/null 2>"$tmp/nc.err"
rc=$?
[ $rc = 1 ] || note "no drive: exit $rc"
not_started "$tmp/nc" 1 "modbus: cannot connect to 127.0.0.1:1"

# 2. a start position beyond the limits: the pre-flight dry-run fails (exit 1, its report written, its diagnostics
#    shown, nothing moved: no online.csv); with --force (a warning) the online check refuses it before the driver
#    is opened
stale "$tmp/pf"
"$IRL" run --online --max-missed 1000000 --driver sim --start arm=3,0.785,-3.14,0,0.785,0 --no-plots --out "$tmp/pf" lin_short.irl \
    >/dev/null 2>"$tmp/pf.err"
rc=$?
[ $rc = 1 ] || note "pre-flight: exit $rc"
not_started "$tmp/pf" 1 "pre-flight: the dry-run failed (exit 1): lin_short.irl:11:3: runtime error: MOVE LIN"
grep -q "irl: pre-flight: the dry-run of lin_short.irl failed (exit 1): nothing moved" "$tmp/pf.err" \
    || note "pre-flight: message $(tail -2 "$tmp/pf.err")"
grep -Eq "error: arm axis 1( \([^)]*\))? position 171\.887 deg exceeds its limit" "$tmp/pf.err" || note "pre-flight: diagnostics not shown"
grep -q '"verdict": "error"' "$tmp/pf/report.json" || note "pre-flight: no report"
[ ! -e "$tmp/pf/online.csv" ] && [ ! -e "$tmp/pf/trace.csv" ] || note "pre-flight: online.csv or trace.csv written"
stale "$tmp/sp"
"$IRL" run --online --max-missed 1000000 --force --driver sim --start arm=3,0.785,-3.14,0,0.785,0 --no-plots --out "$tmp/sp" lin_short.irl \
    >/dev/null 2>"$tmp/sp.err"
rc=$?
[ $rc = 1 ] || note "start beyond limits: exit $rc"
not_started "$tmp/sp" 1 "the start position of axis arm.1 (171.887 deg) is beyond its limits [-160, 160] deg"
grep -q "irl: warning: --force: no pre-flight dry-run" "$tmp/sp.err" || note "--force: no warning"
grep -q "irl: pre-flight:" "$tmp/sp.err" && note "--force: a pre-flight ran"

# 3. a usage error once the output folder exists: three following-error limits for six axes
stale "$tmp/fe"
"$IRL" run --online --max-missed 1000000 --driver sim --following-error 0.1,0.1,0.1 --no-plots --out "$tmp/fe" lin_short.irl \
    >/dev/null 2>"$tmp/fe.err"
rc=$?
[ $rc = 64 ] || note "following-error count: exit $rc"
not_started "$tmp/fe" 64 "--following-error gives 3 values"

# 4. a run that starts: "running" while it runs (read while the stream driver waits on its standard output), then
#    "complete" (the reader pauses while it checks, which may stall the stream's writes: no timing stop here)
stale "$tmp/ok"
"$IRL" run --online --driver stream --queue 500 --max-missed 1000000 --no-plots --out "$tmp/ok" lin_short.irl 2>"$tmp/ok.err" | {
    IFS= read -r _
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["status"] != "running")' "$tmp/ok/online.json" \
        || note "running: $(head -6 "$tmp/ok/online.json")"
    cat >/dev/null
}
rc=${PIPESTATUS[0]}
[ $rc = 0 ] || note "stream run: exit $rc: $(head -3 "$tmp/ok.err")"
grep -q '"status": "complete"' "$tmp/ok/online.json" || note "complete: $(head -6 "$tmp/ok/online.json")"
exit $fail
