#!/usr/bin/env bash
# bench/online/hal60.sh IRL: 60 s of streaming to LinuxCNC's HAL at 1 ms (issue 14, item 7): bench/dryrun's
# lin_circ_60s.irl online with `--driver hal`, against the HAL of tests/sh/online_hal.sh (tests/sh/hal_setup.bash:
# docs/ONLINE-DRIVERS.md's HAL files, an unprivileged HAL user, the servo thread under SCHED_FIFO), once with the
# default water marks (20/40 ms) and once with the tests' (60/100 ms). Reports, from the sampler's record of what
# the servo thread received, the samples, the underruns (streamer.0.underruns) and empty periods between the first
# and the last sample irl wrote; irl's own status and timing. The fresh streamer's pins stand at 0, so the first
# run approaches the start first (--approach, 13 s): its streaming counts too.
set -u
IRL=$(realpath "${1:-build/release/irl}")
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/sh/hal_setup.bash"
hal_start_servo
n=0
for marks in "" low=60,high=100; do
    n=$((n + 1))
    as halcmd sets estop 0 2>/dev/null
    "${as[@]}" halsampler -t >"$tmp/$n.samples" 2>/dev/null & sampler=$!
    (cd "$root/bench/dryrun" && "$IRL" run --online --approach --driver "hal${marks:+:$marks}" --queue 500 --no-plots \
        --no-progress --no-trace --out "$tmp/$n" lin_circ_60s.irl >/dev/null 2>"$tmp/$n.err"; echo $? >"$tmp/$n.rc") &
    irl_pid=$!
    for _ in $(seq 100); do
        as halcmd list pin irl.enable-in 2>/dev/null | grep -q enable-in && break
        sleep 0.1
    done
    (cd "$tmp" && as halcmd -f irl-wire.hal) >"$tmp/$n.wire" 2>&1 || note "irl-wire.hal: $(head -2 "$tmp/$n.wire")"
    wait "$irl_pid"
    sleep 0.3
    kill "$sampler"; wait "$sampler" 2>/dev/null; sampler=""
    python3 - "$tmp" "$n" "${marks:-default (20/40 ms)}" <<'PY'
import json, sys
tmp, n, marks = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [l.split() for l in open("%s/%s.samples" % (tmp, n)) if len(l.split()) == 10]
empty = [int(r[7]) for r in rows]
under = [int(r[8]) for r in rows]
idx = [i for i, e in enumerate(empty) if e == 0]
rc = open("%s/%s.rc" % (tmp, n)).read().strip()
j = json.load(open("%s/%s/online.json" % (tmp, n)))
a, b = (idx[0], idx[-1]) if idx else (0, 0)
print("HAL, water marks %s: irl exit %s, %s%s" % (marks, rc, j["status"],
      ", stop: " + j["stop"]["message"] if j["stop"] else ""))
print("  %d samples received over %.1f s (approach %d, program %d), %d underruns, %d empty periods between the "
      "first and the last" % (len(idx), (b - a + 1) * 1e-3, j["approach_setpoints"], j["from_queue"],
                               under[b] - under[a] if idx else -1, sum(empty[a:b + 1]) if idx else -1))
w, c = j["wakeup_latency_us"], j["compute_us"]
print("  irl wake-up latency p50 %.1f, p99 %.1f, p99.9 %.1f, max %.1f us; compute p99 %.1f us; %d overruns" %
      (w["p50"], w["p99"], w["p999"], w["max"], c.get("p99", 0), j["overruns"]))
PY
done
exit $fail
