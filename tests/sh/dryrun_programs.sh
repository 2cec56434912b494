#!/usr/bin/env bash
# tests/sh/dryrun_programs.sh: dry-runs of the shipped PUMA programs, checked from their outputs independently of
# runtime/exec/checks.c: speed, acceleration and torque limits of models/puma560_cell.irm never exceeded in trace.csv;
# exact stop on the last PTP target to 1e-9; lin_circ.irl on its lines and circles to 1e-9 m (trace poses);
# byte-identical trace.csv and report.json across two runs; torque_violation.irl fails, and passes when run with
# the time scale its report suggests. The traces have 12 significant digits (--digits 12), which the 1e-9 checks
# need. Needs $IRL.
set -u
cd "$(dirname "$0")/../../programs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

# limits of puma560_cell.irm: speed, acc, effort per axis
VMAX="2 2 2.5 4 4 4"; AMAX="6 5 8 15 15 15"; TMAX="97.6 186.4 89.4 24.2 20.1 21.3"
check_limits() { # $1 trace
    awk -F, -v V="$VMAX" -v A="$AMAX" -v T="$TMAX" '
        NR == 1 { for (i = 1; i <= NF; i++) { col[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) col[h] = i }; split(V, v, " "); split(A, a, " "); split(T, tq, " "); next }
        { for (k = 1; k <= 6; k++) {
            qd = $(col["arm.qd" k]); qdd = $(col["arm.qdd" k]); tau = $(col["arm.tau" k]);
            if (qd > v[k] * (1 + 1e-9) || -qd > v[k] * (1 + 1e-9)) { print "speed axis " k " " qd " at t=" $1; bad = 1; exit }
            if (qdd > a[k] * (1 + 1e-9) || -qdd > a[k] * (1 + 1e-9)) { print "acc axis " k " " qdd " at t=" $1; bad = 1; exit }
            if (tau > tq[k] || -tau > tq[k]) { print "torque axis " k " " tau " at t=" $1; bad = 1; exit } } }
        END { exit bad }' "$1"
}

for p in demo pick_place lin_circ; do
    extra=(); [ $p = pick_place ] && extra=(--input part_ready=1@0.5)
    for run in a b; do
        "$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/$p.$run" "${extra[@]}" "$p.irl" >"$tmp/$p.$run.out" 2>"$tmp/$p.$run.err" \
            || note "$p: exit $? ($(head -3 "$tmp/$p.$run.err"))"
    done
    [ -s "$tmp/$p.a/trace.csv" ] || { note "$p: no trace"; continue; }
    cmp -s "$tmp/$p.a/trace.csv" "$tmp/$p.b/trace.csv" || note "$p: trace.csv differs between two runs"
    cmp -s "$tmp/$p.a/report.json" "$tmp/$p.b/report.json" || note "$p: report.json differs between two runs"
    msg=$(check_limits "$tmp/$p.a/trace.csv") || note "$p: limit exceeded in the trace: $msg"
done

# exact stop: demo.irl ends with MOVE PTP JOINT(0, 45 deg, -180 deg, 0, 45 deg, 0)
awk -F, 'END { pi = atan2(0, -1); w[1] = 0; w[2] = pi / 4; w[3] = -pi; w[4] = 0; w[5] = pi / 4; w[6] = 0;
    for (k = 1; k <= 6; k++) { d = $(k + 1) - w[k]; if (d > 1e-9 || -d > 1e-9) { print "axis " k " off by " d; exit 1 } } }' \
    "$tmp/demo.a/trace.csv" || note "demo: the last PTP does not stop on its target"

# lin_circ.irl: once at z = 0.05 m, every sample lies on x = 0.55 or x = 0.65 (y in [-0.2, 0]) or on the circles
# of radius 0.05 m about (0.60, 0) and (0.60, -0.20)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { col[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) col[h] = i }; next }
    { x = $(col["arm.x"]); y = $(col["arm.y"]); z = $(col["arm.z"]) }
    !on && (z - 0.05)^2 < 1e-18 && (x - 0.55)^2 < 1e-18 && (y + 0.2)^2 < 1e-18 { on = 1 }
    on { best = 1; dz = z - 0.05; if (dz < 0) dz = -dz
         if (y >= -0.2 && y <= 0) { d = x - 0.55; if (d < 0) d = -d; if (d < best) best = d; d = x - 0.65; if (d < 0) d = -d; if (d < best) best = d }
         if (y >= 0) { d = sqrt((x - 0.6)^2 + y^2) - 0.05; if (d < 0) d = -d; if (d < best) best = d }
         if (y <= -0.2) { d = sqrt((x - 0.6)^2 + (y + 0.2)^2) - 0.05; if (d < 0) d = -d; if (d < best) best = d }
         if (best > 1e-9 || dz > 1e-9) { print "off the path by " best " (z " dz ") at t=" $1; exit 1 }; n++ }
    END { if (n < 1000) { print "only " n + 0 " samples on the path"; exit 1 } }' "$tmp/lin_circ.a/trace.csv" \
    || note "lin_circ: path check"

# the deliberate violator fails, names line 13, and passes with the suggested time scale
"$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/tv" torque_violation.irl >/dev/null 2>"$tmp/tv.err"; rc=$?
[ $rc = 1 ] || note "torque_violation: exit $rc, expected 1"
grep -q 'torque_violation.irl:13:3: error: arm axis 2 (j2) torque' "$tmp/tv.err" || note "torque_violation: line 13 not named"
k=$(grep -o 'time scale k = [0-9.]*' "$tmp/tv/report.txt" | awk '{print $5}')
[ -n "$k" ] || note "torque_violation: no time scale in the report"
if [ -n "$k" ]; then
    k2=$(awk -v k="$k" 'BEGIN { printf "%.9g", k * 1.000001 }')
    "$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/tv2" --time-scale "$k2" torque_violation.irl >/dev/null 2>"$tmp/tv2.err" \
        || note "torque_violation: fails with --time-scale $k2: $(head -3 "$tmp/tv2.err")"
    k3=$(awk -v k="$k" 'BEGIN { printf "%.9g", 1 + (k - 1) * 0.9 }')
    "$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/tv3" --time-scale "$k3" torque_violation.irl >/dev/null 2>&1 \
        && note "torque_violation: passes already with --time-scale $k3 (k is not the smallest)"
fi
exit $fail
