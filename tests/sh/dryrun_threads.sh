#!/usr/bin/env bash
# dryrun_threads.sh — the pipelined dry-run (--threads 2: setpoints in the VM's thread, dynamics, checks and trace
# in a worker) writes byte-identical trace.csv, report.json, report.txt, plots.csv and plots.gp to the one-thread
# run, on every shipped program with its own options (but with plots) and on the dry-run benchmark; and a trace that
# cannot be written fails the run with the same message and exit status in both modes. Needs $IRL.
# With IRL_SANITIZED=1 the long runs are left out, code the others take too: the benchmark (60 s of
# programs/lin_circ.irl's moves) and four of the five centrifuge profiles (centrifuge_glimit stays).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
export IRL_GNUPLOT=/nonexistent/gnuplot   # plots.csv and plots.gp are compared: no need to draw (a warning)
note() { echo "FAIL $*"; fail=1; }
compared=0
bench=$root/bench/dryrun/lin_circ_60s.irl long=""
[ "${IRL_SANITIZED:-0}" = 1 ] && bench="" long=" centrifuge_acm centrifuge_gradual centrifuge_profile centrifuge_rapid "
for f in "$root"/programs/*.irl $bench; do
    [[ $long == *" $(basename "$f" .irl) "* ]] && continue
    p=$(basename "$f" .irl)
    # the program's own options (its `// cmd:` line) without the output folder ones
    opts=$(sed -n 's|^.*// cmd: *run *||p' "$f" | head -1 | sed 's/--out-temp//; s/--no-plots//')
    for t in 1 2; do
        (cd "$(dirname "$f")" && "$IRL" run --trace csv $opts --threads $t --out "$tmp/$p.$t" "$(basename "$f")" \
            >"$tmp/$p.$t.out" 2>"$tmp/$p.$t.err")
        echo $? >"$tmp/$p.$t.rc"
    done
    cmp -s "$tmp/$p.1.rc" "$tmp/$p.2.rc" || note "$p: exit status $(cat "$tmp/$p.1.rc") vs $(cat "$tmp/$p.2.rc")"
    for o in trace.csv report.json report.txt plots.csv plots.gp; do
        [ -s "$tmp/$p.1/$o" ] || { note "$p: no $o"; continue; }
        # the reports and the plot script name their own folder: compared with it replaced (the traces name none)
        case $o in
            *.csv) cmp -s "$tmp/$p.1/$o" "$tmp/$p.2/$o" ;;
            *) cmp -s <(sed "s|$tmp/$p.1|OUT|g" "$tmp/$p.1/$o") <(sed "s|$tmp/$p.2|OUT|g" "$tmp/$p.2/$o") ;;
        esac || note "$p: $o differs between --threads 1 and --threads 2"
    done
    compared=$((compared + 1))
done
# a trace that cannot be written (the file it is written to before its rename is /dev/full): the same error and
# status in both modes
for t in 1 2; do
    mkdir -p "$tmp/full.$t" && ln -s /dev/full "$tmp/full.$t/trace.csv.part"
    (cd "$root/programs" && "$IRL" run --trace csv --no-plots --threads $t --out "$tmp/full.$t" lin_circ.irl >/dev/null 2>"$tmp/full.$t.err")
    rc=$?
    [ $rc = 1 ] || note "--threads $t, unwritable trace: exit $rc, want 1"
    grep -q "cannot write" "$tmp/full.$t.err" || note "--threads $t, unwritable trace: no 'cannot write' message ($(head -2 "$tmp/full.$t.err"))"
done
[ $compared -ge 10 ] || note "only $compared programs compared"
[ $fail = 0 ] && echo "--threads 2 = --threads 1 byte for byte on $compared programs; an unwritable trace fails both"
exit $fail
