#!/usr/bin/env bash
# trigger_trace.sh — TRIGGER switches its output in the cycle at which the path reaches its point: each DOUT column
# of the trace (--trace csv --digits 17: every bit) is checked against the cycle at which the TCP's path length, summed from the trace's
# own x y z columns, reaches d from the motion's start (FROM START) or is d from its end (BEFORE END), or at which
# a PTP's leading axis has covered its percentage; DELAY shifts that cycle by DELAY / cycle. Exactly, d = 0
# included: AT 0 FROM START of the CIRC, which starts between two cycles (one cycle of rest after the LIN's end), is
# the first row in which it moves (an axis speed not 0); AT 0 BEFORE END the first row in which the motion has
# stopped (every axis speed 0: in the last tens of microseconds of a jerk-limited end the positions no longer
# change in the digits the trace prints, so "reached" by position alone would come a cycle early). MOTION.md §7.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; } # the column number of a header name

# line 8: a LIN of 122 mm; 10: a CIRC (half a circle of radius 50 mm, 157 mm; its trigger p at 0 mm FROM START);
# 12: a PTP; 14 and 16: two LINs
# blended over 10 mm (their triggers outside the blend zone: 20 mm from the first's start, 15 mm before the
# second's end); 19: a LIN with a positive and a negative DELAY.
cat >"$tmp/p.irl" <<IRL
PROGRAM trig;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
  IO a : DOUT 1; IO b : DOUT 2; IO c : DOUT 3; IO e : DOUT 4; IO f : DOUT 5; IO g : DOUT 6; IO h : DOUT 7;
  IO k : DOUT 8; IO n : DOUT 9; IO p : DOUT 10;
BEGIN
  TRIGGER arm AT 20 mm FROM START DO a := TRUE;
  TRIGGER arm AT 30 mm BEFORE END DO b := TRUE;
  MOVE_INC LIN POS(0.1 m, 0.05 m, -0.05 m) WITH SPEED := 0.1 m/s;
  TRIGGER arm AT 100 mm FROM START DO c := TRUE; TRIGGER arm AT 0 mm FROM START DO p := TRUE;
  MOVE_INC CIRC POS(0.05 m, 0.05 m, 0), POS(0.1 m, 0, 0) WITH SPEED := 0.05 m/s;
  TRIGGER arm AT 40 % FROM START DO e := TRUE;
  MOVE arm PTP JOINT(0.3, 0.6, -2.8, 0.2, 0.6, 0.1);
  TRIGGER arm AT 20 mm FROM START DO f := TRUE;
  MOVE_INC LIN POS(0.1 m, 0, 0) WITH SPEED := 0.1 m/s, APPROX := 10 mm;
  TRIGGER arm AT 15 mm BEFORE END DO g := TRUE;
  MOVE_INC LIN POS(0, 0.1 m, 0) WITH SPEED := 0.1 m/s;
  TRIGGER arm AT 30 mm FROM START DELAY 40 ms DO h := TRUE;
  TRIGGER arm AT 30 mm BEFORE END DELAY -25 ms DO k := TRUE;
  TRIGGER arm AT 0 % BEFORE END DO n := TRUE;
  MOVE_INC LIN POS(-0.1 m, 0, 0) WITH SPEED := 0.1 m/s;
ENDPROGRAM
IRL
"$IRL" run --trace csv --digits 17 --no-plots --out "$tmp/o" "$tmp/p.irl" >/dev/null 2>"$tmp/err" || fail "run: $(head -3 "$tmp/err")"
tr="$tmp/o/trace.csv"
cx=$(col "$tr" arm.x); cq=$(col "$tr" arm.q1.j1); ca=$(col "$tr" io.a)
[ -n "$cx" ] && [ -n "$cq" ] && [ -n "$ca" ] || fail "no arm.x, arm.q1.j1 or io.a column: $(head -1 "$tr")"
# check NAME KIND LINE D DELAY TO: the first row after the motion of line LINE starts at which column io.NAME
# becomes TO, against the row at which the motion has covered D (KIND from: m from its start; end: m before its
# end; ptp: the fraction D of the leading axis' travel), shifted by DELAY s. The motion's rows carry its line.
check() {
  local c; c=$(col "$tr" "io.$1")
  awk -F, -v x="$cx" -v q="$cq" -v io="$c" -v kind="$2" -v line="$3" -v d="$4" -v delay="$5" -v to="$6" '
    function abs(a) { return a < 0 ? -a : a }
    NR == 1 { next }
    { n++; t[n] = $1; ln[n] = $NF; v[n] = $io
      if (n > 1) S[n] = S[n - 1] + sqrt(($x - px) ^ 2 + ($(x + 1) - py) ^ 2 + ($(x + 2) - pz) ^ 2); else S[n] = 0
      px = $x; py = $(x + 1); pz = $(x + 2)
      for (j = 0; j < 6; j++) { Q[n, j] = $(q + j); QD[n, j] = $(q + 6 + j) } }
    END {
      for (i = 1; i <= n; i++) if (ln[i] == line) { if (!first) first = i; last = i }
      if (!first) { print "no rows of line " line; exit 1 }
      s0 = S[first - 1]; s1 = S[last]; lead = 0; big = 0
      for (j = 0; j < 6; j++) if (abs(Q[last, j] - Q[first - 1, j]) > big) { big = abs(Q[last, j] - Q[first - 1, j]); lead = j }
      for (i = first - 1; i <= last + 1 && !want; i++) {
        moving = 0; for (j = 0; j < 6; j++) if (QD[i, j] != 0) moving = 1
        if (kind == "from" && (d > 0 ? S[i] - s0 >= d - 1e-12 : i >= first && moving)) want = i
        if (kind == "end" && (d > 0 ? s1 - S[i] <= d + 1e-12 : i > first && !moving)) want = i
        if (kind == "ptp" && abs(Q[i, lead] - Q[first - 1, lead]) >= d * big - 1e-12) want = i }
      dt = t[2] - t[1]; want += delay / dt
      for (i = 2; i <= n && !got; i++) if (v[i] == to && v[i - 1] != to && i >= first - 60) got = i
      printf "%s: switches at row %d (t = %s s), the path reaches it at row %d\n", "'"$1"'", got, t[got], want
      exit !(got > 0 && got == want) }' "$tr"
}
out=$(
  check a from 8 0.020 0 1 && check b end 8 0.030 0 1 && check c from 10 0.100 0 1 && check e ptp 12 0.40 0 1 &&
  check f from 14 0.020 0 1 && check g end 16 0.015 0 1 && check h from 20 0.030 0.040 1 &&
  check k end 20 0.030 -0.025 1 && check n end 20 0 0 1 && check p from 10 0 0 1
) || fail "$out"
echo "$out"
echo "PASS trigger_trace"
