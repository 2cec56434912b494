#!/usr/bin/env bash
# trace_content.sh — what the trace and the report show (issue 13 item 6): the TCP pose with $TOOL and $BASE
# applied and its linear speed, checked against a Cartesian speed limit of the machine file; a peak reached at a
# motion's exact stop belongs to that motion's statement. The traces have 12 significant digits (--digits 12),
# which the differences below need.
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
"$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/o" "$tmp/tcp.irl" >/dev/null 2>"$tmp/err" || fail "tcp run: $(head -3 "$tmp/err")"
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
# tcp_speed = the TCP's mean speed over the cycle, |p(t) - p(t - dt)| / dt, from the trace's own TCP positions (in
# the program's frame; tcp_speed is computed in the model's: the two agree only if the frames are applied right).
# The second LIN turns the tool, so the flange's speed differs from the TCP's there. 1e-8 m/s: the 12 digits of
# the positions over a 1 ms cycle.
awk -F, -v x="$cx" -v v="$cv" 'NR > 3 { dx = $x - px; dy = $(x + 1) - py; dz = $(x + 2) - pz
                                       d = sqrt(dx * dx + dy * dy + dz * dz) / ($1 - pt) - $v; if (d < 0) d = -d
                                       if (d > m) m = d; n++ }
    NR > 2 { pt = $1; px = $x; py = $(x + 1); pz = $(x + 2) }
    END { printf "%.3g", m; exit !(m < 1e-8 && n > 1000) }' "$tr" >"$tmp/fd" ||
  fail "tcp_speed differs from the TCP positions' differences by $(cat "$tmp/fd") m/s"
echo "TCP: program frame, straight LIN, end points exact; tcp_speed = |dp|/dt to $(cat "$tmp/fd") m/s"

# --- a Cartesian speed limit in the machine file: a violation at the moving statement --------------------------
sed 's/^  gravity = .*/&\n  OUTPUT tcp_speed = LIMITS(-INF, 0.08 m\/s);/' "$root/models/puma560_cell.irm" >"$tmp/cell.irm"
grep -q "OUTPUT tcp_speed" "$tmp/cell.irm" || fail "could not add the limit to the machine file"
st=0; "$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/o2" --device arm="$tmp/cell.irm" "$tmp/tcp.irl" >/dev/null 2>"$tmp/err2" || st=$?
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
"$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/o3" "$tmp/stop.irl" >/dev/null 2>"$tmp/err3" || fail "stop run: $(head -3 "$tmp/err3")"
# axis 1 reaches its largest value, the first target, in the cycle that arrives at rest
line=$(awk '/"quantity": "position".*"axis": 1,/ { getline; getline; getline; print; exit }' "$tmp/o3/report.json")
case "$line" in *'"value": 0.59999999999999998'*'"line": 4,'*) ;; *) fail "axis 1's largest position not at line 4: $line" ;; esac
# the trace's row of that cycle says line 4, the next row (at rest, the WAIT) line 5
c1=$(col "$tmp/o3/trace.csv" arm.q1.j1)
awk -F, -v c="$c1" 'NR > 1 && $c == 0.6 { print $NF; n++; if (n == 2) exit }' "$tmp/o3/trace.csv" | tr '\n' ' ' >"$tmp/l"
[ "$(cat "$tmp/l")" = "4 5 " ] || fail "rows at the first target: lines '$(cat "$tmp/l")', want '4 5 '"
echo "exact stop: the arrival cycle is line 4's (peak and trace), the next one the WAIT's"

# --- digital I/O as columns ------------------------------------------------------------------------------------
cat >"$tmp/io.irl" <<IRL
PROGRAM iotest;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
  IO part : DIN 1;
  IO grip : DOUT 2;
  IO lamp : DOUT 3;
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0);
  grip := TRUE;
  WAIT 0.3 s;
  grip := FALSE;
  PULSE lamp FOR 0.2 s;
  WAIT 0.5 s;
ENDPROGRAM
IRL
"$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/o4" --input part=1@0.1 "$tmp/io.irl" >/dev/null 2>"$tmp/err4" || fail "io run: $(head -3 "$tmp/err4")"
hdr=$(head -1 "$tmp/o4/trace.csv")
case "$hdr" in *,arm.tcp_speed,io.part,io.grip,io.lamp,line) ;; *) fail "I/O columns: header ends '${hdr: -60}'" ;; esac
# per column: the times of its rising and falling edges
edges=$(awk -F, 'NR > 1 { for (k = 0; k < 3; k++) { v = $(NF - 3 + k); if (v != "0" && v != "1") { print "bad " v; exit }
                                                  if (NR > 2 && v != p[k]) printf "%s%s@%s ", substr("pgl", k + 1, 1), v, $1; p[k] = v } }' \
        "$tmp/o4/trace.csv")
# the part at 0.1 s; grip on when the move has ended (t0), off 0.3 s later; the lamp on then for 0.2 s. A statement
# writes between two cycles (after the sample at its time), so its edge shows in the next row; the PULSE's reset
# falls on a cycle (0.2 s after the write) and shows there: the lamp's row count is 199 at 1 ms
read -r t0 <<<"$(echo "$edges" | grep -o 'g1@[0-9.]*' | cut -d@ -f2)"
[ -n "$t0" ] || fail "grip never set: $edges"
want=$(awk -v t="$t0" 'BEGIN { printf "p1@0.1 g1@%.12g g0@%.12g l1@%.12g l0@%.12g ", t, t + 0.3, t + 0.3, t + 0.499 }')
[ "$edges" = "$want" ] || fail "I/O edges '$edges', want '$want'"
echo "I/O columns io.part, io.grip, io.lamp: edges $edges"

# --- joint names in the headers and the report ------------------------------------------------------------------
for c in arm.q1.j1 arm.qd6.j6 arm.qdd3.j3 arm.tau2.j2; do
    case ",$hdr," in *",$c,"*) ;; *) fail "no column $c" ;; esac
done
grep -q '"axis": 2, "joint": "j2", "unit": "rad/s"' "$tmp/o4/report.json" || fail "report.json: no joint name for axis 2"
grep -Eq '^  speed +2 j2 ' "$tmp/o4/report.txt" || fail "report.txt: no joint column"
ff=$(head -1 "$("$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/o5" "$root/programs/freeflyer_swing.irl" >/dev/null 2>&1; echo "$tmp/o5/trace.csv")")
case ",$ff," in *",ff.q1.alpha,ff.q2.shoulder,ff.q3.elbow,"*) ;; *) fail "freeflyer joint names: ${ff:0:80}" ;; esac
echo "joint names: arm.q1.j1 ..., ff.q1.alpha ff.q2.shoulder ff.q3.elbow; report.json \"joint\", report.txt joint column"

# --- every motion statement with its start and duration; the outermost loop's passes ----------------------------
cat >"$tmp/loop.irl" <<IRL
PROGRAM loop3;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
  VAR n : INT;
BEGIN
  MOVE PTP JOINT(0, 0.9, -3.0, 0, 0.8, 0);
  FOR n := 1 TO 3 DO
    MOVE PTP JOINT(0.5, 0.9, -3.0, 0, 0.8, 0);
    WAIT 0.25 s;
    MOVE PTP JOINT(0, 0.9, -3.0, 0, 0.8, 0);
  ENDFOR;
  PRINT "done";
ENDPROGRAM
IRL
"$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/o6" "$tmp/loop.irl" >/dev/null 2>"$tmp/err6" || fail "loop run: $(head -3 "$tmp/err6")"
# motions from report.json: line t_start duration
grep -o '{"device": "arm", "t_start": [^}]*}' "$tmp/o6/report.json" |
    sed -E 's/.*"t_start": ([^,]*), "duration": ([^,]*),.*"line": ([0-9]+).*/\3 \1 \2/' >"$tmp/mv"
[ "$(awk '{ printf "%s ", $1 }' "$tmp/mv")" = "5 7 9 7 9 7 9 " ] || fail "motions: $(tr '\n' ';' <"$tmp/mv")"
# each motion's cycles (t_start, t_start + duration] carry its line in the trace, and they are all its rows
awk -F, -v M="$tmp/mv" 'BEGIN { while ((getline l < M) > 0) { split(l, f, " "); n++; L[n] = f[1]; a[n] = f[2]; b[n] = f[2] + f[3] } }
    NR > 1 { for (k = 1; k <= n; k++) if ($1 > a[k] + 1e-9 && $1 <= b[k] + 1e-9) { in_k = k; break } else in_k = 0
             if (in_k && $NF != L[in_k]) { print "t " $1 " line " $NF ", motion " in_k " is line " L[in_k]; exit 1 }
             if (!in_k && ($NF == 7 || $NF == 9)) { print "t " $1 " line " $NF " outside every listed motion"; exit 1 } }' \
    "$tmp/o6/trace.csv" >"$tmp/chk" || fail "motions against the trace: $(cat "$tmp/chk")"
# passes: 3, each = its first MOVE + the WAIT + its second MOVE (to a cycle), and the next pass starts there
grep -o '"passes": \[[^]]*\]' "$tmp/o6/report.json" | grep -o '"duration": [0-9.e-]*' | awk '{ print $2 }' >"$tmp/pass"
[ "$(wc -l <"$tmp/pass")" = 3 ] || fail "passes: $(tr '\n' ' ' <"$tmp/pass")"
awk -v M="$tmp/mv" 'BEGIN { while ((getline l < M) > 0) { split(l, f, " "); n++; d[n] = f[3] } }
    { k = 2 * NR; want = d[k] + 0.25 + d[k + 1]; e = $1 - want; if (e < 0) e = -e
      if (e > 0.0025) { print "pass " NR " " $1 " s, want " want " s"; exit 1 } }' "$tmp/pass" >"$tmp/chk" ||
    fail "$(cat "$tmp/chk")"
grep -q "^cycle time of the outermost loop (lines 6..9): 3 passes: " "$tmp/o6/report.txt" || fail "report.txt: no cycle time"
grep -q "loop.irl:7:5: arm moves from t = " "$tmp/o6/report.txt" || fail "report.txt: no motion list"
echo "motions: 7 listed, each matching its trace rows; 3 passes of the FOR loop: $(tr '\n' ' ' <"$tmp/pass")s"
