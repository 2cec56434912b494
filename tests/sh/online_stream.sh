#!/usr/bin/env bash
# tests/sh/online_stream.sh: the stream driver (runtime/online/drivers/stream.c): to standard output, one line per cycle
# of space-separated joint positions (what halstreamer reads), exactly the positions online.csv logged, whose run
# rows are the dry-run trace's; PRINT goes to standard error meanwhile. Then through a FIFO read by a background
# reader, in degrees (units=linuxcnc); and a FIFO nobody reads (a clear error, no hang). Needs $IRL.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d)
reader=""
cleanup() { [ -n "$reader" ] && kill "$reader" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

"$IRL" run --trace csv --no-plots --no-progress --out "$tmp/dry" lin_short.irl >/dev/null 2>&1 || note "dry-run failed"

# 1. standard output
"$IRL" run --trace csv --online --max-missed 1000000 --driver stream --queue 500 --no-plots --out "$tmp/so" lin_short.irl >"$tmp/so.out" 2>"$tmp/so.err"
rc=$?
[ $rc = 0 ] || note "stream stdout: exit $rc: $(head -3 "$tmp/so.err")"
grep -qx "\[[0-9.]* s\] done" "$tmp/so.err" || note "PRINT did not go to stderr"
awk 'NF != 6 { print "line " NR ": " NF " fields"; exit 1 }' "$tmp/so.out" || note "stream lines"

# 2. a FIFO with a reader, in degrees
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" & reader=$!
"$IRL" run --trace csv --online --max-missed 1000000 --driver stream:out="$tmp/fifo",units=linuxcnc --queue 500 --no-plots --out "$tmp/ff" ptp_short.irl \
    >/dev/null 2>"$tmp/ff.err" || note "stream FIFO: $(head -3 "$tmp/ff.err")"
wait "$reader"; reader=""

msg=$(python3 "$root/tests/online/online_check.py" \
    stream "$tmp/so/online.csv" "$tmp/so.out" + same "$tmp/dry/trace.csv" "$tmp/so/online.csv" --complete \
    + json "$tmp/so/online.json" 'j["complete"] and j["axes"][0]["following_error_limit"] > 0' \
    + stream "$tmp/ff/online.csv" "$tmp/fifo.out" deg) || note "$msg"

# 3. a FIFO nobody reads: a clear error after the wait, not a hang
mkfifo "$tmp/lonely"
timeout 20 "$IRL" run --trace csv --online --max-missed 1000000 --driver stream:out="$tmp/lonely",wait=0.2 --no-plots --out "$tmp/lo" ptp_short.irl \
    >/dev/null 2>"$tmp/lo.err"
rc=$?
[ $rc = 1 ] || note "FIFO without reader: exit $rc"
grep -q "no reader opened the FIFO" "$tmp/lo.err" || note "FIFO without reader: $(head -2 "$tmp/lo.err")"
exit $fail
