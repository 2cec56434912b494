#!/usr/bin/env bash
# tcp_path.sh — LIN and CIRC move the TCP named by $TOOL on the programmed line and circle, at the programmed path
# speed, while the orientation turns (the model's tool point then runs on another curve). Each trace row's TCP
# (its x y z columns) is checked against the geometry computed here from the program's own numbers.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; } # the column number of a header name

# line 5: a LIN of (0.1, 0.05, -0.05) m turning 20 deg about x; line 6: a CIRC through start + (0.05, 0.05, 0) to
# start + (0.1, 0, 0) (centre start + (0.05, 0, 0), radius 0.05 m, in the plane z = start z) turning 20 deg about y
# (at 0.05 m/s: 0.1 m/s is lowered there by the joint speed limits)
cat >"$tmp/p.irl" <<IRL
PROGRAM tcp_path;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  \$TOOL := POSE(POS(0, 0, 0.09 m), ORIXYZ(0, 0, 0));
  MOVE_INC LIN POSE(POS(0.1 m, 0.05 m, -0.05 m), ORIXYZ(20 deg, 0, 0)) WITH SPEED := 0.1 m/s;
  MOVE_INC CIRC POS(0.05 m, 0.05 m, 0), POSE(POS(0.1 m, 0, 0), ORIXYZ(0, 20 deg, 0)) WITH SPEED := 0.05 m/s;
ENDPROGRAM
IRL
"$IRL" run --no-plots --out "$tmp/o" "$tmp/p.irl" >/dev/null 2>"$tmp/err" || fail "run: $(head -3 "$tmp/err")"
tr="$tmp/o/trace.csv"
cx=$(col "$tr" arm.x); cv=$(col "$tr" arm.tcp_speed)
[ -n "$cx" ] && [ -n "$cv" ] || fail "no arm.x or arm.tcp_speed column: $(head -1 "$tr")"
# row 3 (t = 0.001 s) is the first with $TOOL set: the LIN's start. Per row of each statement: the distance from
# the line (LIN) or from the circle and its plane (CIRC), and the largest TCP speed; at the end, the distance from
# the programmed target. The trace prints 12 digits: 1e-9 m is far above its rounding.
awk -F, -v x="$cx" -v v="$cv" '
  function abs(a) { return a < 0 ? -a : a }
  NR == 3 { x0 = $x; y0 = $(x + 1); z0 = $(x + 2); dx = 0.1; dy = 0.05; dz = -0.05; L2 = dx * dx + dy * dy + dz * dz }
  NR > 3 && $NF == 5 { px = $x - x0; py = $(x + 1) - y0; pz = $(x + 2) - z0; s = (px * dx + py * dy + pz * dz) / L2
                       ex = px - s * dx; ey = py - s * dy; ez = pz - s * dz; d = sqrt(ex * ex + ey * ey + ez * ez)
                       if (d > eline) eline = d; if ($v > vlin) vlin = $v; nl++ }
  NR > 3 && $NF == 6 { px = $x - (x0 + 0.15); py = $(x + 1) - (y0 + 0.05); pz = $(x + 2) - (z0 - 0.05)
                       d = abs(sqrt(px * px + py * py) - 0.05); if (abs(pz) > d) d = abs(pz)
                       if (d > ecirc) ecirc = d; if ($v > vcirc) vcirc = $v; nc++ }
  NR > 3 { xl = $x; yl = $(x + 1); zl = $(x + 2) }
  END { ee = sqrt((xl - x0 - 0.2) ^ 2 + (yl - y0 - 0.05) ^ 2 + (zl - z0 + 0.05) ^ 2)
        printf "line %.3g m (%d rows, vmax %.12g m/s), circle %.3g m (%d rows, vmax %.12g m/s), end %.3g m\n",
               eline, nl, vlin, ecirc, nc, vcirc, ee
        exit !(nl > 1000 && nc > 1000 && eline < 1e-9 && ecirc < 1e-9 && ee < 1e-9 &&
               vlin <= 0.1 + 1e-9 && vcirc <= 0.05 + 1e-9 && vlin > 0.099 && vcirc > 0.0495) }' "$tr" >"$tmp/r" ||
  fail "TCP path: $(cat "$tmp/r") (want the line and the circle within 1e-9 m, the TCP speed reaching 0.1 and 0.05 m/s, never more)"
echo "ok: $(cat "$tmp/r")"
