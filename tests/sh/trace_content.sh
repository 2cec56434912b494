#!/usr/bin/env bash
# trace_content.sh — what the trace and the report show (issue 13 item 6): the TCP pose with $TOOL and $BASE
# applied and its linear speed, checked against a Cartesian speed limit of the machine file; a peak reached at a
# motion's exact stop belongs to that motion's statement.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; } # the column number of a header name

# --- the TCP: program frame, straight path, speed -----------------------------------------------------------
cat >"$tmp/tcp.irl" <<IRL
PROGRAM tcp;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  \$TOOL := POSE(POS(0.05 m, 0, 0.12 m), ORIXYZ(0, 20 deg, 0));
  \$BASE := POSE(POS(0.1 m, -0.2 m, 0.3 m), ORIXYZ(0, 0, 30 deg));
  MOVE_INC LIN POS(0.1 m, 0, 0) WITH SPEED := 0.1 m/s;
  MOVE_INC LIN POSE(POS(0, 0.05 m, 0), ORIXYZ(0, 0, 20 deg)) WITH SPEED := 0.1 m/s;
ENDPROGRAM
IRL
"$IRL" run --no-plots --out "$tmp/o" "$tmp/tcp.irl" >/dev/null 2>"$tmp/err" || fail "tcp run: $(head -3 "$tmp/err")"
tr="$tmp/o/trace.csv"
cx=$(col "$tr" arm.x); cv=$(col "$tr" arm.tcp_speed)
[ -n "$cx" ] && [ -n "$cv" ] || fail "no arm.x or arm.tcp_speed column: $(head -1 "$tr")"
# row 2 (t = 0.001 s) is the first under the program's frames; rows of line 6 move by (0.1, 0, 0) along x only,
# those of line 7 end 0.05 m further in y: the frames are the program's, the TCP is the tool's point
awk -F, -v x="$cx" -v v="$cv" '
  NR == 3 { x0 = $x; y0 = $(x + 1); z0 = $(x + 2) }
  NR > 3 && $NF == 6 { dy = $(x + 1) - y0; dz = $(x + 2) - z0; if (dy < 0) dy = -dy; if (dz < 0) dz = -dz
                       if (dy > e) e = dy; if (dz > e) e = dz; if ($v > vmax) vmax = $v }
  NR > 3 { xl = $x; yl = $(x + 1); zl = $(x + 2) }
  END { ex = xl - x0 - 0.1; ey = yl - y0 - 0.05; ez = zl - z0
        if (ex < 0) ex = -ex; if (ey < 0) ey = -ey; if (ez < 0) ez = -ez
        printf "straight %.3g, end %.3g %.3g %.3g, vmax %.12g\n", e, ex, ey, ez, vmax
        exit !(e < 1e-9 && ex < 1e-9 && ey < 1e-9 && ez < 1e-9 && vmax > 0.1 - 1e-6 && vmax < 0.1 + 1e-6) }' "$tr" \
  >"$tmp/tcp" || fail "TCP path in the program frame: $(cat "$tmp/tcp") (want a straight line of 0.1 m along x at 0.1 m/s, then +0.05 m in y)"
# tcp_speed = |d(x y z)/dt| of the trace's own TCP positions (central differences; the second LIN turns the tool,
# so the flange's speed differs from the TCP's; 1e-5 m/s covers the differences' truncation, jerk dt^2 / 6)
awk -F, -v x="$cx" -v v="$cv" 'NR > 2 { t[NR] = $1; px[NR] = $x; py[NR] = $(x + 1); pz[NR] = $(x + 2); s[NR] = $v; n = NR }
  END { for (i = 4; i < n; i++) { dx = px[i + 1] - px[i - 1]; dy = py[i + 1] - py[i - 1]; dz = pz[i + 1] - pz[i - 1]
          d = sqrt(dx * dx + dy * dy + dz * dz) / (t[i + 1] - t[i - 1]) - s[i]; if (d < 0) d = -d; if (d > m) m = d }
        printf "%.3g", m; exit !(m < 1e-5 && n > 1000) }' "$tr" >"$tmp/fd" ||
  fail "tcp_speed differs from the TCP positions' central differences by $(cat "$tmp/fd") m/s"
echo "TCP: program frame, straight LIN, end points exact; tcp_speed = |dp/dt| to $(cat "$tmp/fd") m/s"

# --- a Cartesian speed limit in the machine file: a violation at the moving statement --------------------------
sed 's/^  gravity = .*/&\n  OUTPUT tcp_speed = LIMITS(-INF, 0.08 m\/s);/' "$root/models/puma560_cell.irm" >"$tmp/cell.irm"
grep -q "OUTPUT tcp_speed" "$tmp/cell.irm" || fail "could not add the limit to the machine file"
st=0; "$IRL" run --no-plots --out "$tmp/o2" --device arm="$tmp/cell.irm" "$tmp/tcp.irl" >/dev/null 2>"$tmp/err2" || st=$?
[ "$st" = 1 ] || fail "a TCP speed beyond its limit: exit $st, want 1"
grep -q "tcp.irl:6:3: error: arm tcp_speed 0.1 m/s exceeds its limit 0.08 m/s" "$tmp/o2/report.txt" ||
  fail "no violation of tcp_speed at line 6: $(grep error "$tmp/o2/report.txt" | head -3)"
grep -q "tcp.irl:7:3: error: arm tcp_speed" "$tmp/o2/report.txt" || fail "no violation of tcp_speed at line 7"
echo "OUTPUT tcp_speed = LIMITS(-INF, 0.08 m/s): violated at lines 6 and 7, exit 1"

# --- the exact stop belongs to the statement that moved the device ------------------------------------------
cat >"$tmp/stop.irl" <<IRL
PROGRAM stop;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE PTP JOINT(0.6, 0.9, -3.0, 0, 0.8, 0);
  WAIT 0.1 s;
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0);
ENDPROGRAM
IRL
"$IRL" run --no-plots --out "$tmp/o3" "$tmp/stop.irl" >/dev/null 2>"$tmp/err3" || fail "stop run: $(head -3 "$tmp/err3")"
# axis 1 reaches its largest value, the first target, in the cycle that arrives at rest
line=$(awk '/"quantity": "position".*"axis": 1,/ { getline; getline; getline; print; exit }' "$tmp/o3/report.json")
case "$line" in *'"value": 0.59999999999999998'*'"line": 4,'*) ;; *) fail "axis 1's largest position not at line 4: $line" ;; esac
# the trace's row of that cycle says line 4, the next row (at rest, the WAIT) line 5
c1=$(col "$tmp/o3/trace.csv" arm.q1.j1)
awk -F, -v c="$c1" 'NR > 1 && $c == 0.6 { print $NF; n++; if (n == 2) exit }' "$tmp/o3/trace.csv" | tr '\n' ' ' >"$tmp/l"
[ "$(cat "$tmp/l")" = "4 5 " ] || fail "rows at the first target: lines '$(cat "$tmp/l")', want '4 5 '"
echo "exact stop: the arrival cycle is line 4's (peak and trace), the next one the WAIT's"
