#!/usr/bin/env bash
# spline_path.sh — MOVE SPLINE: the path passes through every point (the trace row nearest to it within half a
# cycle's travel), is twice continuously differentiable in time (run at two cycle times, the largest change of the
# velocity and of the acceleration from one cycle to the next halves with the cycle: a jump would not shrink), and
# keeps the limits (verdict PASS); a spline that overshoots an axis' position range between its points is a
# violation at its own line. A Cartesian spline of POSITIONs, one of POSEs (the orientation too), a JOINT one.
# The traces have 12 significant digits (--digits 12): the cycle-to-cycle changes are differences of them.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; } # the column number of a header name

cat >"$tmp/p.irl" <<IRL
PROGRAM spline_path;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE arm SPLINE POS(0.62 m, -0.12 m, -0.05 m), POS(0.66 m, -0.05 m, 0), POS(0.6 m, 0.02 m, 0.05 m), POS(0.55 m, -0.1 m, 0.02 m) WITH SPEED := 0.1 m/s;
  MOVE arm SPLINE JOINT(0.3, 0.6, -2.8, 0.2, 0.6, 0.1), JOINT(0.6, 0.9, -2.5, 0.5, 0.3, 0.4), JOINT(0.2, 0.7, -2.9, 0, 0.7, 0);
  MOVE arm SPLINE POSE(POS(0.6 m, -0.1 m, 0), ORIQUAT(0.70, 0.05, 0.71, 0)), POSE(POS(0.64 m, -0.04 m, 0.03 m), ORIQUAT(0.72, 0, 0.69, 0.05)), POSE(POS(0.58 m, 0, 0.02 m), ORIQUAT(0.69, -0.04, 0.72, -0.03));
ENDPROGRAM
IRL
for c in 0.001 0.0005; do
  "$IRL" run --trace csv --digits 12 --no-plots --cycle $c --out "$tmp/o$c" "$tmp/p.irl" >/dev/null 2>"$tmp/err" ||
    fail "run --cycle $c: $(head -3 "$tmp/err")"
  grep -q "^verdict: PASS" "$tmp/o$c/report.txt" || fail "--cycle $c: $(head -4 "$tmp/o$c/report.txt")"
done
tr="$tmp/o0.001/trace.csv"
cx=$(col "$tr" arm.x); cq=$(col "$tr" arm.q1.j1); cv=$(col "$tr" arm.tcp_speed); cd=$(col "$tr" arm.qd1.j1)
[ -n "$cx" ] && [ -n "$cq" ] && [ -n "$cv" ] && [ -n "$cd" ] || fail "missing columns: $(head -1 "$tr")"

# through the points: the nearest row of the statement to each point, against half the largest step of a cycle
awk -F, -v x="$cx" -v q="$cq" -v v="$cv" -v qd="$cd" '
  function abs(a) { return a < 0 ? -a : a }
  BEGIN { np = split("0.62 -0.12 -0.05 0.66 -0.05 0 0.6 0.02 0.05 0.55 -0.1 0.02", P, " ") / 3
          nj = split("0.3 0.6 -2.8 0.2 0.6 0.1 0.6 0.9 -2.5 0.5 0.3 0.4 0.2 0.7 -2.9 0 0.7 0", J, " ") / 6
          for (k = 1; k <= np; k++) dc[k] = 1e9; for (k = 1; k <= nj; k++) dj[k] = 1e9 }
  NR == 1 { next }
  NR == 3 { dt = $1 - t1 } { t1 = $1 }
  $NF == 4 { if ($v > vmax) vmax = $v
             for (k = 1; k <= np; k++) { d = sqrt(($x - P[3*k-2]) ^ 2 + ($(x+1) - P[3*k-1]) ^ 2 + ($(x+2) - P[3*k]) ^ 2)
                                          if (d < dc[k]) dc[k] = d } }
  $NF == 5 { for (i = 0; i < 6; i++) if (abs($(qd + i)) > wmax) wmax = abs($(qd + i))
             for (k = 1; k <= nj; k++) { d = 0; for (i = 0; i < 6; i++) if (abs($(q + i) - J[6*k-6+i+1]) > d) d = abs($(q + i) - J[6*k-6+i+1])
                                          if (d < dj[k]) dj[k] = d } }
  END { ok = vmax > 0.09 && wmax > 0.1
        for (k = 1; k <= np; k++) { printf "POSITION point %d: %.3g m (half a step: %.3g m)\n", k, dc[k], vmax * dt / 2
                                     ok = ok && dc[k] <= vmax * dt / 2 + 1e-9 }
        for (k = 1; k <= nj; k++) { printf "JOINT point %d: %.3g rad (half a step: %.3g rad)\n", k, dj[k], wmax * dt / 2
                                     ok = ok && dj[k] <= wmax * dt / 2 + 1e-9 }
        exit !ok }' "$tr" >"$tmp/r" || fail "through the points: $(cat "$tmp/r")"
cat "$tmp/r"

# the POSE spline (line 6) through its points: position as above, and at that row the orientation (the trace's
# quaternion, either sign) within one cycle's largest turn of the given one (ORIQUAT normalises)
cw=$(col "$tr" arm.qw)
awk -F, -v x="$cx" -v w="$cw" -v v="$cv" '
  function abs(a) { return a < 0 ? -a : a }
  BEGIN { np = split("0.6 -0.1 0 0.64 -0.04 0.03 0.58 0 0.02", P, " ") / 3
          split("0.70 0.05 0.71 0 0.72 0 0.69 0.05 0.69 -0.04 0.72 -0.03", Q, " ")
          for (k = 1; k <= np; k++) { n = 0; for (i = 1; i <= 4; i++) n += Q[4*k-4+i] ^ 2
                                      for (i = 1; i <= 4; i++) Q[4*k-4+i] /= sqrt(n); dc[k] = 1e9 } }
  NR == 1 { next }
  NR == 3 { dt = $1 - t1 } { t1 = $1 }
  $NF == 6 { if ($v > vmax) vmax = $v
             if (seen) { d = 0; for (i = 0; i < 4; i++) d += ($(w + i) - pq[i]) ^ 2; if (sqrt(d) > qstep) qstep = sqrt(d) }
             for (i = 0; i < 4; i++) pq[i] = $(w + i); seen = 1
             for (k = 1; k <= np; k++) { d = sqrt(($x - P[3*k-2]) ^ 2 + ($(x+1) - P[3*k-1]) ^ 2 + ($(x+2) - P[3*k]) ^ 2)
                                          if (d < dc[k]) { dc[k] = d; a = 0; b = 0
                                            for (i = 0; i < 4; i++) { a += ($(w + i) - Q[4*k-3+i]) ^ 2; b += ($(w + i) + Q[4*k-3+i]) ^ 2 }
                                            dq[k] = sqrt(a < b ? a : b) } } }
  END { ok = vmax > 0.05
        for (k = 1; k <= np; k++) { printf "POSE point %d: %.3g m (half a step: %.3g m), orientation %.3g (a step: %.3g)\n",
                                           k, dc[k], vmax * dt / 2, dq[k], qstep
                                     ok = ok && dc[k] <= vmax * dt / 2 + 1e-9 && dq[k] <= qstep + 1e-9 }
        exit !ok }' "$tr" >"$tmp/r" || fail "POSE spline through its points: $(cat "$tmp/r")"
cat "$tmp/r"

# the largest change per cycle of the velocity and the acceleration (central differences of the statement's own
# rows: across the boundary with the statement before, its own stop, a short jerk ramp, can end within a cycle;
# x y z on line 4, of the
# six axes on line 5, of x y z and the quaternion on line 6), at each cycle time
jumps() {
  awk -F, -v x="$cx" -v q="$cq" -v w="$cw" -v line="$2" '
    function abs(a) { return a < 0 ? -a : a }
    NR == 1 { next }
    { n++; t[n] = $1; ln[n] = $NF
      for (i = 0; i < 7; i++) P[n, i] = line == 5 ? (i < 6 ? $(q + i) : 0) : i < 3 ? $(x + i) : line == 6 ? $(w + i - 3) : 0 }
    END { h = t[2] - t[1]
          for (k = 3; k < n - 1; k++) {
            if (ln[k - 2] != line || ln[k + 1] != line) continue   # differences of this statement'"'"'s rows only
            for (i = 0; i < 7; i++) {
              v1 = (P[k + 1, i] - P[k - 1, i]) / (2 * h); v0 = (P[k, i] - P[k - 2, i]) / (2 * h)
              a1 = (P[k + 1, i] - 2 * P[k, i] + P[k - 1, i]) / (h * h); a0 = (P[k, i] - 2 * P[k - 1, i] + P[k - 2, i]) / (h * h)
              if (abs(v1 - v0) > dv) dv = abs(v1 - v0); if (abs(a1 - a0) > da) da = abs(a1 - a0) } }
          printf "%.6g %.6g\n", dv, da }' "$1"
}
for line in 4 5 6; do
  read -r dv1 da1 <<<"$(jumps "$tmp/o0.001/trace.csv" $line)"
  read -r dv2 da2 <<<"$(jumps "$tmp/o0.0005/trace.csv" $line)"
  echo "line $line: largest change per cycle of the velocity $dv1 -> $dv2, of the acceleration $da1 -> $da2 (1 ms -> 0.5 ms)"
  awk -v a="$dv1" -v b="$dv2" -v c="$da1" -v d="$da2" 'BEGIN { exit !(a > 0 && c > 0 && b / a < 0.6 && d / c < 0.6) }' ||
    fail "line $line: a change that does not halve with the cycle is a jump (want both ratios < 0.6)"
done

# a JOINT spline through axis 1 at 2.7 and 2.75 rad overshoots its 2.79 rad limit between them: a violation there
cat >"$tmp/q.irl" <<IRL
PROGRAM overshoot;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE arm SPLINE JOINT(0, 0.8, -3.1, 0, 0.8, 0), JOINT(2.7, 0.8, -3.1, 0, 0.8, 0), JOINT(2.75, 0.8, -3.1, 0, 0.8, 0), JOINT(0, 0.8, -3.1, 0, 0.8, 0);
ENDPROGRAM
IRL
"$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/q" "$tmp/q.irl" >/dev/null 2>"$tmp/err" && fail "the overshooting spline passed"
grep -qE "q.irl:4:3: error: arm axis 1 \(j1\) position .* exceeds its limit (2.79253 rad|160 deg)" "$tmp/q/report.txt" ||
  fail "no position violation at line 4: $(head -6 "$tmp/q/report.txt")"
echo "PASS spline_path"
