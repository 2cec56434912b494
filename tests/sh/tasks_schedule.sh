#!/usr/bin/env bash
# tests/sh/tasks_schedule.sh: programs/cell_tasks.irl (two PUMA 560s, a feeder TASK, EVENTs, an INTERRUPT that
# BRAKEs both arms) under the deterministic schedule (docs/LANGUAGE.md, "Tasks, events and interrupts"): two
# dry-runs give byte-identical stdout, trace.csv and report.json, and so do one and two threads; both arms move in
# the same cycles; with the door opening at 2.5 s the report notes the interrupt and both BRAKEs, every axis stays
# within its speed and acceleration limits while it stops, and both arms are at rest from the end of the stop on;
# the online run (sim driver) writes the dry-run's very trace and report. Needs $IRL.
set -u
cd "$(dirname "$0")/../../programs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

run() { # $1 name, then irl run options
    local n=$1
    shift
    "$IRL" run --trace csv --no-plots --no-progress --out "$tmp/$n" "$@" cell_tasks.irl >"$tmp/$n.out" 2>"$tmp/$n.err" \
        || note "$n: exit $? ($(head -3 "$tmp/$n.err"))"
}
same() { # $1 $2 runs
    for f in trace.csv report.json; do
        cmp -s "$tmp/$1/$f" "$tmp/$2/$f" || note "$f differs between $1 and $2"
    done
    cmp -s "$tmp/$1.out" "$tmp/$2.out" || note "stdout differs between $1 and $2"
}

run a
run b
run t1 --threads 1
run t2 --threads 2
same a b
same t1 t2
same a t1
[ "$(wc -l <"$tmp/a.out")" = 4 ] || note "stdout: $(cat "$tmp/a.out")"

# both arms move at once in some cycles (the feeder's task beside the main body)
both=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "arm.qd1.j1") a = i; if ($i == "feeder_arm.qd1.j1") b = i }; next }
    $a != 0 && $b != 0 { n++ } END { print n + 0 }' "$tmp/a/trace.csv")
[ "$both" -gt 100 ] || note "both arms move together in $both cycles only"

# the door at 2.5 s: the interrupt, both BRAKEs, limits kept, rest after the stop
run door --input door=1@2.5
grep -q "^door opened at 2.501$" "$tmp/door.out" || note "door: stdout $(cat "$tmp/door.out")"
r="$tmp/door/report.txt"
grep -q "note: interrupt guard fired at t = 2.5 s: its handler door_opened (line 27) ran in the main body" "$r" \
    || note "no interrupt note in report.txt"
grep -q "note: BRAKE feeder_arm: controlled stop from t = 2.5 s, at rest 0.382 s later" "$r" || note "no BRAKE note"
grep -q "^verdict: PASS" "$r" || note "door: verdict $(grep verdict "$r")"
msg=$(awk -F, -v V="2 2 2.5 4 4 4" -v A="6 5 8 15 15 15" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; split(V, v, " "); split(A, a, " "); next }
    { for (k = 1; k <= 6; k++) for (d = 0; d < 2; d++) {
        dev = d ? "feeder_arm" : "arm"; qd = $(col[dev ".qd" k ".j" k]); qdd = $(col[dev ".qdd" k ".j" k]);
        if (qd > v[k] * (1 + 1e-9) || -qd > v[k] * (1 + 1e-9)) { print dev " speed axis " k " " qd " at t=" $1; exit 1 }
        if (qdd > a[k] * (1 + 1e-9) || -qdd > a[k] * (1 + 1e-9)) { print dev " acc axis " k " " qdd " at t=" $1; exit 1 }
        if ($1 > 2.5 + 0.382 + 1e-9 && qd != 0) { print dev " axis " k " still moves at t=" $1; exit 1 } } }
    END { if ($1 < 2.882) { print "the run ends at " $1 " s, before the stop"; exit 1 } }' "$tmp/door/trace.csv") \
    || note "door: $msg"

# online: the same interleaving, the same setpoints
"$IRL" run --trace csv --online --max-missed 1000000 --driver sim --queue 500 --no-plots --out "$tmp/on" cell_tasks.irl --input door=1@2.5 \
    >"$tmp/on.out" 2>"$tmp/on.err" || note "online: exit $? ($(head -3 "$tmp/on.err"))"
for f in trace.csv report.json; do
    cmp -s "$tmp/door/$f" "$tmp/on/$f" || note "online $f differs from the dry-run's"
done
exit $fail
