#!/usr/bin/env bash
# tcp_path.sh — LIN and CIRC move the TCP named by $TOOL on the programmed line and circle, at the programmed path
# speed, while the orientation turns (the model's tool point then runs on another curve). Each trace row's TCP
# (its x y z columns) is checked against the geometry computed here from the program's own numbers.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; } # the column number of a header name

# The tool's 0.09 m offset starts along the base's x axis. Line 5: a LIN of (0.1, 0.05, -0.05) m turning 20 deg
# about z (the model's tool point leaves the line by 0.66 mm, and the TCP's speed would reach 0.107 m/s); line 6: a
# CIRC through start + (0.05, 0.05, 0) to start + (0.1, 0, 0) (centre start + (0.05, 0, 0), radius 0.05 m, in the plane z = start z) turning 20 deg about y
# (at 0.05 m/s: 0.1 m/s is lowered there by the joint speed limits)
cat >"$tmp/p.irl" <<IRL
PROGRAM tcp_path;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  \$TOOL := POSE(POS(0, 0, 0.09 m), ORIXYZ(0, 0, 0));
  MOVE_INC LIN POSE(POS(0.1 m, 0.05 m, -0.05 m), ORIXYZ(0, 0, 20 deg)) WITH SPEED := 0.1 m/s;
  MOVE_INC CIRC POS(0.05 m, 0.05 m, 0), POSE(POS(0.1 m, 0, 0), ORIXYZ(0, 20 deg, 0)) WITH SPEED := 0.05 m/s;
  \$TOOL := POSE(POS(0.03 m, 0, 0.09 m), ORIXYZ(0, 0, 0));
  MOVE_INC LIN POSE(POS(-0.1 m, 0, 0), ORIXYZ(0, 0, -20 deg)) WITH SPEED := 0.1 m/s, APPROX := 0.01 m;
  MOVE_INC LIN POSE(POS(0, -0.1 m, 0), ORIXYZ(0, -15 deg, 0)) WITH SPEED := 0.1 m/s;
ENDPROGRAM
IRL
"$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/o" "$tmp/p.irl" >/dev/null 2>"$tmp/err" || fail "run: $(head -3 "$tmp/err")"
tr="$tmp/o/trace.csv"
cx=$(col "$tr" arm.x); cv=$(col "$tr" arm.tcp_speed)
[ -n "$cx" ] && [ -n "$cv" ] || fail "no arm.x or arm.tcp_speed column: $(head -1 "$tr")"
# row 3 (t = 0.001 s) is the first with $TOOL set: the LIN's start. Per row of each statement: the distance from
# the line (LIN) or from the circle and its plane (CIRC), and the largest TCP speed; at the end, the distance from
# the programmed target (the CIRC's last row is a cycle before it stops: 1e-8 m). The trace prints 12 digits (--digits 12): 1e-9 m
# is far above its rounding.
awk -F, -v x="$cx" -v v="$cv" '
  function abs(a) { return a < 0 ? -a : a }
  NR == 3 { x0 = $x; y0 = $(x + 1); z0 = $(x + 2); dx = 0.1; dy = 0.05; dz = -0.05; L2 = dx * dx + dy * dy + dz * dz }
  NR > 3 && $NF == 5 { px = $x - x0; py = $(x + 1) - y0; pz = $(x + 2) - z0; s = (px * dx + py * dy + pz * dz) / L2
                       ex = px - s * dx; ey = py - s * dy; ez = pz - s * dz; d = sqrt(ex * ex + ey * ey + ez * ez)
                       if (d > eline) eline = d; if ($v > vlin) vlin = $v; nl++ }
  NR > 3 && $NF == 6 { px = $x - (x0 + 0.15); py = $(x + 1) - (y0 + 0.05); pz = $(x + 2) - (z0 - 0.05)
                       d = abs(sqrt(px * px + py * py) - 0.05); if (abs(pz) > d) d = abs(pz)
                       if (d > ecirc) ecirc = d; if ($v > vcirc) vcirc = $v; nc++ }
  NR > 3 && $NF == 6 { xl = $x; yl = $(x + 1); zl = $(x + 2) }
  END { ee = sqrt((xl - x0 - 0.2) ^ 2 + (yl - y0 - 0.05) ^ 2 + (zl - z0 + 0.05) ^ 2)
        printf "line %.3g m (%d rows, vmax %.12g m/s), circle %.3g m (%d rows, vmax %.12g m/s), end %.3g m\n",
               eline, nl, vlin, ecirc, nc, vcirc, ee
        exit !(nl > 1000 && nc > 1000 && eline < 1e-9 && ecirc < 1e-9 && ee < 1e-8 &&
               vlin <= 0.1 + 1e-9 && vcirc <= 0.05 + 1e-9 && vlin > 0.099 && vcirc > 0.0495) }' "$tr" >"$tmp/r" ||
  fail "TCP path: $(cat "$tmp/r") (want the line and the circle within 1e-9 m, the TCP speed reaching 0.1 and 0.05 m/s, never more)"
# Lines 8 and 9: a new tool from the next segment on, and two LINs blended. Each LIN's rows lie on its line: line 8's
# through its first row, line 9's (a blend's rows carry the incoming statement's line) in the second half of its
# rows through its last. A blend superposes the two segments' joint motions: its TCP is on neither line.
awk -F, -v x="$cx" -v v="$cv" '
  function off(px, py, pz, dx, dy, dz,   s, ex, ey, ez) { s = (px * dx + py * dy + pz * dz) / (dx * dx + dy * dy + dz * dz)
                                                          ex = px - s * dx; ey = py - s * dy; ez = pz - s * dz
                                                          return sqrt(ex * ex + ey * ey + ez * ez) }
  $NF == 8 { if (!n8++) { x8 = $x; y8 = $(x + 1); z8 = $(x + 2) }
             d = off($x - x8, $(x + 1) - y8, $(x + 2) - z8, -0.1, 0, 0); if (d > e8) e8 = d; if ($v > vm) vm = $v }
  $NF == 9 { r9[++n9] = $x " " $(x + 1) " " $(x + 2) }
  END { split(r9[n9], a, " ")
        for (k = int(n9 / 2); k <= n9; k++) { split(r9[k], b, " "); d = off(b[1] - a[1], b[2] - a[2], b[3] - a[3], 0, -0.1, 0)
                                             if (d > e9) e9 = d }
        printf "line 8 %.3g m (%d rows), line 9 %.3g m (%d rows), vmax %.12g m/s\n", e8, n8, e9, n9 - int(n9 / 2) + 1, vm
        exit !(n8 > 500 && n9 > 500 && e8 < 1e-9 && e9 < 1e-9 && vm <= 0.1 + 1e-9) }' "$tr" >"$tmp/b" ||
  fail "after a tool change, blended: $(cat "$tmp/b") (want both lines within 1e-9 m)"
echo "ok: $(cat "$tmp/r"); $(cat "$tmp/b")"
