#!/usr/bin/env bash
# tests/sh/dryrun_jerk.sh: the shipped PUMA programs keep the jerk limits of models/puma560_cell.irm in their sampled
# streams (docs/MOTION.md §3). For demo, pick_place and lin_circ: the machine file has a finite jerk limit on every
# axis (else the test would prove nothing); the run passes with no violation in report.json; independently of
# runtime/checks.c, the jerk recomputed from trace.csv ((qdd_k - qdd_k-1) / cycle, the trace's 12 digits) stays
# within the limits to 1e-6 relative (the checks' own tolerance for differentiated channels); and the report names
# the requests the planner lowered for the blends (demo.irl: ACC_PTP at line 14, the PTP blending out of a LIN
# into another LIN). Needs $IRL.
set -u
cd "$(dirname "$0")/../../programs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

# jerk limits of the cell, one per axis, in rad/s^3
J=$(sed -n 's/.*jerk = \([0-9.eE+-]*\) rad\/s^3;.*/\1/p' ../models/puma560_cell.irm | tr '\n' ' ')
[ "$(echo $J | wc -w)" = 6 ] || note "puma560_cell.irm: expected 6 jerk limits, found '$J'"

for p in demo pick_place lin_circ; do
    extra=(); [ $p = pick_place ] && extra=(--input part_ready=1@0.5)
    "$IRL" run --no-plots --out "$tmp/$p" "${extra[@]}" "$p.irl" >/dev/null 2>"$tmp/$p.err" \
        || note "$p: exit $? ($(head -3 "$tmp/$p.err"))"
    [ -s "$tmp/$p/trace.csv" ] || { note "$p: no trace"; continue; }
    grep -q '"violation_count": 0,' "$tmp/$p/report.json" || note "$p: report.json lists violations"
    grep -q '"quantity": "jerk"' "$tmp/$p/report.json" || note "$p: report.json has no jerk channel"
    msg=$(awk -F, -v J="$J" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; n = split(J, lim, " "); next }
        { t = $1; for (k = 1; k <= n; k++) { a = $(col["arm.qdd" k])
            if (NR > 2) { j = (a - prev[k]) / (t - tp); if (j < 0) j = -j; r = j / lim[k]
                if (r > worst) { worst = r; wk = k; wt = t }
                if (r > 1 + 1e-6) { printf "axis %d jerk %g > %g at t=%s\n", k, j, lim[k], t; bad = 1; exit } }
            prev[k] = a }
          tp = t }
        END { if (!bad) printf "peak jerk %.4f of the limit (axis %d, t=%s)\n", worst, wk, wt; exit bad }' \
        "$tmp/$p/trace.csv") || note "$p: $msg"
    echo "$p: $msg"
done

# the blend reshaping is reported with the statement's line
grep -q 'demo.irl:14:3: note: arm ACC_PTP 1 lowered to' "$tmp/demo/report.txt" \
    || note "demo: report.txt does not name the ACC_PTP lowered at line 14"
exit $fail
