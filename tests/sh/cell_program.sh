#!/usr/bin/env bash
# cell_program.sh — programs/cell.irl (issue 15's own example) over its whole cycle, checked from its trace.csv:
# verdict PASS and the same trace twice; glue switches on 20 mm (TCP distance to the LIN's target) before the LIN's
# end less 10 ms, and off in the SPLINE's first moving cycle; both FOLLOWs pass through their samples (the table
# is 0.2 rad sin^4 on axis 1, recorded.csv read here) at their own times; the door opened at 3.5 s (during the
# SPLINE) fires the interrupt, brakes the arm to rest and halts; opened at 6 s it brakes the arm during the table's
# FOLLOW; the online run (sim driver) writes the dry-run's trace.csv and report.json byte for byte, with and without
# the door. Needs $IRL.
set -u
cd "$(dirname "$0")/../../programs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
# traces with 12 significant digits (--digits 12): the FOLLOWs' samples are checked to 1e-9 rad
run() { local out=$1; shift; "$IRL" run --trace csv --digits 12 --no-plots --no-html --out "$tmp/$out" "$@" cell.irl >"$tmp/$out.out" 2>"$tmp/$out.err"; }

run a || note "cell: exit $? ($(head -3 "$tmp/a.err"))"
run b || note "cell (second run): exit $?"
grep -q '^verdict: PASS' "$tmp/a/report.txt" || note "cell: $(grep '^verdict' "$tmp/a/report.txt")"
cmp -s "$tmp/a/trace.csv" "$tmp/b/trace.csv" || note "cell: trace.csv differs between two runs"
[ -s "$tmp/a.out" ] && note "cell: stdout without a door: $(head -2 "$tmp/a.out")"

lspline=$(grep -n 'MOVE arm SPLINE' cell.irl | cut -d: -f1); lfollow=$(grep -n 'MOVE arm FOLLOW path' cell.irl | cut -d: -f1)
lbrake=$(grep -n 'BRAKE arm;' cell.irl | cut -d: -f1); lproc=$(grep -n 'PROCEDURE door_opened' cell.irl | cut -d: -f1)

# glue: on in the cycle 10 ms before the TCP is 20 mm from the LIN's target; off at the SPLINE's start (its first
# cycle in the trace's line column), within one cycle as tests/sh/trigger_trace.sh
msg=$(awk -F, -v L="$lspline" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { t = $1; x = $(c["arm.x"]); y = $(c["arm.y"]); z = $(c["arm.z"]); g = $(c["io.glue"])
      d = sqrt((x - 0.5)^2 + (y - 0.1)^2 + (z - 0.3)^2)
      if (!t20 && d <= 0.020) t20 = t
      if (!tleave && $(c["line"]) == L) tleave = t
      if (g != pg) { sw[++n] = t; val[n] = g; pg = g } }
    END { if (n != 2 || val[1] != 1 || val[2] != 0) { print n " switches of glue"; exit 1 }
          if ((sw[1] - (t20 - 0.010))^2 > 1e-12) { print "on at " sw[1] " s, expected " t20 - 0.010; exit 1 }
          if (sw[2] < tleave - 1e-9 || sw[2] > tleave + 0.001 + 1e-9) { print "off at " sw[2] " s, the SPLINE starts at " tleave; exit 1 } }' \
    "$tmp/a/trace.csv") || note "glue: $msg"

# the FOLLOWs: axis 1 = q0 + 0.2 sin^4(pi k / 199) at the table's sample k (every 20 ms from the FOLLOW's start:
# the first cycle after the arm came to rest at the SPLINE's end), then recorded.csv's rows on every axis
msg=$(awk -F, -v csv=recorded.csv -v L="$lfollow" 'BEGIN { pi = atan2(0, -1); while ((getline l < csv) > 0) if (l ~ /^[0-9]/) row[nr++] = l }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { t[NR] = $1; for (k = 1; k <= 6; k++) q[NR, k] = $(c["arm.q" k ".j" k]); qd = 0
      for (k = 1; k <= 6; k++) if ($(c["arm.qd" k ".j" k]) != 0) qd = 1
      line[NR] = $(c["line"]); moving[NR] = qd; last = NR }
    END { for (r = 2; r <= last; r++) if (line[r] == L) { s = r; break }
          if (!s) { print "no cycle of the FOLLOW at line " L; exit 1 }
          s--   # the sample at t = 0 is where the arm stands, the cycle before the FOLLOW first commands
          for (k = 0; k < 200; k++) { r = s + 20 * k; v = sin(pi * k / 199); v = v * v * v * v
              e = q[r, 1] - (q[s, 1] + 0.2 * v); if (e * e > 1e-18) { print "table sample " k + 1 " at t=" t[r] ": axis 1 off by " e; exit 1 } }
          s += 20 * 199
          for (k = 0; k < nr; k++) { split(row[k], f, ","); r = s + 20 * k
              for (a = 1; a <= 6; a++) { e = q[r, a] - f[a + 1]; if (e * e > 1e-18) { print "recorded.csv row " k + 1 " at t=" t[r] ": axis " a " off by " e; exit 1 } } }
          if (r != last) { print "the trace goes on after recorded.csv: " t[r] " to " t[last]; exit 1 } }' \
    "$tmp/a/trace.csv") || note "follow: $msg"

# the door during the SPLINE: interrupt, both BRAKEs, the arm at rest when the handler prints, HALT
run door --input door=1@3.5 || note "door: exit $?"
[ "$(cat "$tmp/door.out")" = "door opened at 3.677" ] || note "door: stdout $(head -2 "$tmp/door.out")"
grep -q "cell.irl:$lbrake:5: note: interrupt guard fired at t = 3.5 s: its handler door_opened (line $lproc) ran in the main body" \
    "$tmp/door/report.txt" || note "door: no interrupt note in report.txt"
grep -q 'BRAKE arm: controlled stop from t = 3.5 s' "$tmp/door/report.txt" || note "door: no BRAKE note"
msg=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { for (k = 1; k <= 6; k++) if ($1 > 3.677 - 1e-9 && $(c["arm.qd" k ".j" k]) != 0) { print "axis " k " moves at t=" $1; exit 1 } }
    END { if ($1 < 3.677 - 1e-9) { print "the run ends at " $1 " s"; exit 1 } }' "$tmp/door/trace.csv") || note "door: $msg"

# the door during the table's FOLLOW (6 s): BRAKE drops the rest of the table, the arm stops from the FOLLOW's
# setpoint with no speed step (|q̇ change| per cycle within the axis's 6 rad/s^2 · 1 ms) and stays at rest
run door6 --input door=1@6 || note "door at 6 s: exit $? ($(head -3 "$tmp/door6.err"))"
[ "$(cat "$tmp/door6.out")" = "door opened at 6.111" ] || note "door at 6 s: stdout $(head -2 "$tmp/door6.out")"
grep -q '^verdict: PASS' "$tmp/door6/report.txt" || note "door at 6 s: $(grep '^verdict' "$tmp/door6/report.txt")"
msg=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { v = $(c["arm.qd1.j1"]); if (NR > 2) { d = v - pv; if (d < 0) d = -d; if (d > 0.006 + 1e-12) { print "speed step " d " rad/s at t=" $1; exit 1 } }; pv = v
      if ($1 > 6.111 - 1e-9 && v != 0) { print "still moving at t=" $1; exit 1 } }
    END { if ($1 < 6.111 - 1e-9) { print "the run ends at " $1 " s"; exit 1 } }' "$tmp/door6/trace.csv") || note "door at 6 s: $msg"

# online (sim driver): the same setpoints, the same report
for p in a door door6; do
    args=(); [ $p = door ] && args=(--input door=1@3.5); [ $p = door6 ] && args=(--input door=1@6)
    "$IRL" run --trace csv --digits 12 --online --max-missed 1000000 --driver sim --queue 500 --no-plots --no-html --out "$tmp/on$p" "${args[@]}" cell.irl \
        >"$tmp/on$p.out" 2>"$tmp/on$p.err" || note "online $p: exit $? ($(head -3 "$tmp/on$p.err"))"
    for f in trace.csv report.json; do cmp -s "$tmp/$p/$f" "$tmp/on$p/$f" || note "online $p: $f differs from the dry-run's"; done
done
exit $fail
