#!/usr/bin/env bash
# bench/dryrun/run.sh IRL: dry-run speed of lin_circ_60s.irl (PUMA 560 LIN/CIRC at 1 ms) with no trace, the CSV
# trace and the HDF5 trace, the default (and the two traces' sizes per simulated minute, and of the 1-hour
# program): simulated seconds per wall-clock second and µs per cycle (medians of 7 runs, wall time to the
# millisecond), pipelined over two threads (--threads 2, the default) and in one (--threads 1), runs of the two
# alternating, with their CPU time and the hypervisor's steal over them;
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
# One run: appends "wall cpu" to file $1 and leaves max RSS in $tmp/rss; rest: irl run options and the program.
run_once() {
    local out=$1; shift
    # wall and CPU time from bash's time (millisecond resolution; /usr/bin/time prints hundredths, 10 % of a 0.1 s run)
    { time /usr/bin/time -f "%M" -o "$tmp/rss" "$IRL" run --no-plots --out "$tmp/o" "$@" >/dev/null 2>&1; } 2>"$tmp/time"
    awk '{ print $1, $2 + $3 }' "$tmp/time" >>"$out"
}
# The line of one mode: $1 label, $2 the file of "wall cpu" rows.
report_mode() {
    local w c sim cycles
    w=$(cut -d' ' -f1 "$2" | median); c=$(cut -d' ' -f2 "$2" | median)
    read -r sim cycles < <(duration "$tmp/o")
    awk -v l="$1" -v s="$sim" -v n="$cycles" -v w="$w" -v c="$c" -v m="$(cat "$tmp/rss")" 'BEGIN {
        printf "%-36s %6.1f s simulated  %6.3f s wall  %7.0fx real time  %5.2f us/cycle  %6.3f s CPU  max RSS %d KB\n",
               l, s, w, s / w, 1e6 * w / n, c, m }'
}
# $1 label, $2 program, rest: options. The two modes alternate run by run (7 each), so that both meet the same
# machine: this one's speed drifts by tens of per cent within minutes.
measure() {
    local label=$1 prog=$2; shift 2
    rm -f "$tmp/t1" "$tmp/t2"
    for r in 1 2 3 4 5 6 7; do
        run_once "$tmp/t2" --threads 2 "$@" "$prog"
        run_once "$tmp/t1" --threads 1 "$@" "$prog"
    done
    report_mode "$label, 2 threads" "$tmp/t2"
    report_mode "$label, 1 thread" "$tmp/t1"
}
# CPU time the hypervisor took from this virtual machine (steal), in %, between two /proc/stat readings: the
# development machine's speed varies with it, so the figures are printed with it
cpu_now() { grep '^cpu ' /proc/stat; }
steal_since() { echo "$1" "$(cpu_now)" | awk '{ for (i = 2; i <= 11; i++) { d = $(i + 11) - $i; t += d; if (i == 9) s = d } printf "%.0f", (t > 0 ? 100 * s / t : 0) }'; }
cpu0=$(cpu_now)
echo "irl dry-run benchmark (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
measure "60 s LIN/CIRC, no trace" lin_circ_60s.irl --no-trace --no-html
measure "60 s LIN/CIRC, trace csv" lin_circ_60s.irl --trace csv --no-html
size_csv=$(stat -c %s "$tmp/o/trace.csv")
measure "60 s LIN/CIRC, trace h5 (default)" lin_circ_60s.irl --trace h5 --no-html
size_h5=$(stat -c %s "$tmp/o/trace.h5")
measure "60 s LIN/CIRC, trace h5 + report.html" lin_circ_60s.irl
sim=$(duration "$tmp/o" | cut -d' ' -f1)
awk -v c="$size_csv" -v h="$size_h5" -v s="$sim" 'BEGIN {
    printf "trace size per simulated minute: csv %.1f MB, h5 %.1f MB (%.1f %% of the csv)\n", c / s * 60 / 1e6, h / s * 60 / 1e6, 100 * h / c }'
echo "steal during the 60 s runs: $(steal_since "$cpu0") % of the CPU time"
sed 's/FOR i := 1 TO 11 DO/FOR i := 1 TO 740 DO/; s/PROGRAM lin_circ_60s/PROGRAM lin_circ_1h/' lin_circ_60s.irl >"$tmp/lin_circ_1h.irl"
sed -i 's|"../../models/|"'"$PWD"'/../../models/|' "$tmp/lin_circ_1h.irl"
/usr/bin/time -f "%U %M" -o "$tmp/time1h" "$IRL" run --no-plots --trace csv --out "$tmp/h" "$tmp/lin_circ_1h.irl" >/dev/null 2>&1
read -r u m < <(tail -1 "$tmp/time1h") # the last line: time first notes the exit status 1 (--max-time 3600 s ends it)
csv1h=$(stat -c %s "$tmp/h/trace.csv")
echo "1 h LIN/CIRC, trace csv: $(sed -n 's/^duration \([0-9.]*\) s.*/\1/p' "$tmp/h/report.txt") s simulated in $u s CPU, max RSS $m KB, trace.csv $((csv1h / 1000000)) MB"
/usr/bin/time -f "%U %M" -o "$tmp/time1h" "$IRL" run --no-plots --out "$tmp/h" "$tmp/lin_circ_1h.irl" >/dev/null 2>&1
read -r u m < <(tail -1 "$tmp/time1h") # the last line: time first notes the exit status 1 (--max-time 3600 s ends it)
h51h=$(stat -c %s "$tmp/h/trace.h5")
echo "1 h LIN/CIRC, trace h5 (the default): $u s CPU, max RSS $m KB, trace.h5 $((h51h / 1000000)) MB ($(awk -v h="$h51h" -v c="$csv1h" 'BEGIN { printf "%.1f", 100 * h / c }') % of the csv)"

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
measure_wall "10 min centrifuge, trace h5" centrifuge_training_10min.irl
