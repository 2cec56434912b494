#!/usr/bin/env bash
# bench/dryrun/run.sh IRL: dry-run speed of lin_circ_60s.irl (PUMA 560 LIN/CIRC at 1 ms) with and without the
# trace: simulated seconds per wall-clock second and µs per cycle (medians of 5 runs, wall time to the
# millisecond), pipelined over two threads (--threads 2, the default) and in one (--threads 1, with its CPU time);
# and peak memory (max RSS) of a 1-hour program (the same path repeated) against the 60 s one: it must not grow
# with the program's length.
# Then centrifuge_training_10min.irl (a 10-minute GMOVE training session on models/centrifuge.irm, issue 5 item 7):
# simulated seconds per wall-clock second and µs per cycle, with and without the trace, medians of 3 runs.
set -u
TIMEFORMAT='%3R %3U %3S'
IRL=$(realpath "${1:-build/release/irl}")
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# "SIM CYCLES": the simulated duration and cycle count that run's report.txt in directory $1 gives.
duration() { sed -n 's/^duration \([0-9.]*\) s, \([0-9]*\) cycles.*/\1 \2/p' "$1/report.txt"; }
measure() { # $1 label, $2 program, rest: options
    local label=$1 prog=$2; shift 2
    local wall=() cpu=() rss=0 sim cycles
    for r in 1 2 3 4 5; do
        # wall and CPU time from bash's time (millisecond resolution; /usr/bin/time prints hundredths, 10 % of a
        # 0.1 s run)
        { time /usr/bin/time -f "%M" -o "$tmp/rss" "$IRL" run --no-plots --out "$tmp/o" "$@" "$prog" >/dev/null 2>&1; } 2>"$tmp/time"
        read -r w u s <"$tmp/time"; read -r m <"$tmp/rss"
        wall+=("$w"); cpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"); rss=$m
    done
    read -r sim cycles < <(duration "$tmp/o")
    local w c; w=$(printf '%s\n' "${wall[@]}" | median); c=$(printf '%s\n' "${cpu[@]}" | median)
    awk -v l="$label" -v s="$sim" -v n="$cycles" -v w="$w" -v c="$c" -v m="$rss" 'BEGIN {
        printf "%-36s %6.1f s simulated  %6.3f s wall  %7.0fx real time  %5.2f us/cycle  %6.3f s CPU  max RSS %d KB\n",
               l, s, w, s / w, 1e6 * w / n, c, m }'
}
echo "irl dry-run benchmark (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
measure "60 s LIN/CIRC, no trace" lin_circ_60s.irl --no-trace
measure "60 s LIN/CIRC, trace" lin_circ_60s.irl
measure "60 s LIN/CIRC, no trace, 1 thread" lin_circ_60s.irl --no-trace --threads 1
measure "60 s LIN/CIRC, trace, 1 thread" lin_circ_60s.irl --threads 1
sed 's/FOR i := 1 TO 11 DO/FOR i := 1 TO 740 DO/; s/PROGRAM lin_circ_60s/PROGRAM lin_circ_1h/' lin_circ_60s.irl >"$tmp/lin_circ_1h.irl"
sed -i 's|"../../models/|"'"$PWD"'/../../models/|' "$tmp/lin_circ_1h.irl"
/usr/bin/time -f "%U %M" -o "$tmp/time1h" "$IRL" run --no-plots --out "$tmp/h" "$tmp/lin_circ_1h.irl" >/dev/null 2>&1
read -r u m <"$tmp/time1h"
echo "1 h LIN/CIRC, trace: $(sed -n 's/^duration \([0-9.]*\) s.*/\1/p' "$tmp/h/report.txt") s simulated in $u s CPU, max RSS $m KB, trace $(du -m "$tmp/h/trace.csv" | cut -f1) MB on disk"

measure_wall() { # $1 label, $2 program, rest: options (wall-clock time, medians of 3)
    local label=$1 prog=$2; shift 2
    local wall=() sim cycles
    for r in 1 2 3; do
        /usr/bin/time -f "%e %M" -o "$tmp/time" "$IRL" run --no-plots --out "$tmp/c" "$@" "$prog" >/dev/null 2>&1
        read -r e m <"$tmp/time"; wall+=("$e")
    done
    read -r sim cycles < <(duration "$tmp/c")
    local w; w=$(printf '%s\n' "${wall[@]}" | median)
    awk -v l="$label" -v s="$sim" -v n="$cycles" -v w="$w" -v m="$m" 'BEGIN {
        printf "%-28s %8.1f s simulated  %7.3f s wall  %8.0f sim s / wall s  %6.2f us/cycle  max RSS %d KB\n", l, s, w, s / w, 1e6 * w / n, m }'
}
measure_wall "10 min centrifuge, no trace" centrifuge_training_10min.irl --no-trace
measure_wall "10 min centrifuge, trace" centrifuge_training_10min.irl
