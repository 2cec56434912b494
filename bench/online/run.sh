#!/usr/bin/env bash
# bench/online/run.sh IRL: the online mode's timing (issue 14, item 7; a benchmark, not a test: it prints figures
# and fails only when a run fails).
#   1. programs/lin_circ.irl (PUMA 560 LIN and CIRC at 1 ms) online with the sim driver, 5 runs with the default trace
#      (trace.h5, as `irl run --online` writes it by default) and 5 with --no-trace, alternating: the planner thread's
#      compute time per program cycle (online.json compute_us, its CPU time: planner, IK, inverse dynamics, checks
#      and, with it, the trace row of one cycle; compute_wall_us, the same cycles' wall time, preemption included)
#      and the real-time thread's wake-up latency (wakeup_latency_us) and work, p50/p99/p99.9/max, each run's and
#      their medians, against the target of 20 us at p99 for the compute time;
#   2. bench/online/hal60.sh: 60 s of streaming to LinuxCNC's HAL at 1 ms, its underruns.
# The machine's load is printed: on a shared machine the percentiles measure it as much as irl.
set -u
IRL=$(realpath "${1:-build/release/irl}")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=5
echo "irl online benchmark: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
# --queue 500 (as the tests): the planner thread rides over the load's stalls; a run that stops anyway (watchdog,
# timing) is reported with its cause and its figures still count (they measure the cycles it ran)
for r in $(seq $runs); do
    for mode in trace no-trace; do
        opt=""
        [ $mode = no-trace ] && opt=--no-trace
        "$IRL" run --online --driver sim --queue 500 --no-plots --no-progress $opt --out "$tmp/$mode$r" \
            "$root/programs/lin_circ.irl" >/dev/null 2>"$tmp/$mode$r.err"
        [ -s "$tmp/$mode$r/online.json" ] || { echo "run $r: no online.json: $(tail -3 "$tmp/$mode$r.err")"; exit 1; }
    done
done
python3 - "$tmp" $runs <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
keys = ("p50", "p99", "p999", "max")
for mode in ("trace", "no-trace"):
    js = [json.load(open("%s/%s%d/online.json" % (tmp, mode, r))) for r in range(1, runs + 1)]
    print("== %s" % ("with the default trace (trace.h5)" if mode == "trace" else "--no-trace"))
    for h, what in (("compute_us", "compute per program cycle (planner thread's CPU time)"),
                    ("compute_wall_us", "compute per program cycle (its wall time, preemption included)"),
                    ("wakeup_latency_us", "wake-up latency (real-time thread)"),
                    ("work_us", "cycle work, wake-up to write (real-time thread)")):
        print("%s, us, %d runs of %d samples:" % (what, runs, js[0][h]["samples"]))
        for k, j in enumerate(js, 1):
            print("  run %d  " % k + "  ".join("%s %8.2f" % (p, j[h][p]) for p in keys))
        med = {p: statistics.median(j[h][p] for j in js) for p in keys}
        print("  median " + "  ".join("%s %8.2f" % (p, med[p]) for p in keys))
        if h == "compute_us":
            p99 = med["p99"]
            print("  target: p99 <= 20 us: %s (median p99 %.2f us, %.0f %% of the target)" %
                  ("met" if p99 <= 20 else "NOT met", p99, 100 * p99 / 20))
    print("overruns per run: %s; missed deadlines per run: %s; queue low-water mark per run: %s" % (
        [j["overruns"] for j in js], [j["missed_deadlines"] for j in js], [j["queue_min"] for j in js]))
    for k, j in enumerate(js, 1):
        if j["status"] != "complete":
            print("run %d %s: %s" % (k, j["status"], j["stop"]["message"] if j["stop"] else ""))
PY
echo "load average at the end of the sim runs: $(cut -d' ' -f1-3 /proc/loadavg)"
bash "$root/bench/online/hal60.sh" "$IRL"
