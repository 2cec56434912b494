#!/usr/bin/env bash
# plot_display.sh — what the figures and report.txt show, read from plots.gp (written even without gnuplot) and the
# reports: (1) the Stewart platform's outputs figure has three panels, leg lengths (m), leg speeds (m/s) and leg
# forces (N), each with the six legs as curves named L1…L6 (L1dot…, F1…) plotting the trace's columns of those
# names, the machine file's limits drawn; its rotation axes in degrees, its translations in metres; no
# panel or legend says "axis N", every axis has a name; (2) a URDF robot (UR5): its panels are titled by the URDF's
# joint names in order, positions, speeds and accelerations in deg, deg/s, deg/s² (the trace's radians times
# 180/π), torques in Nm unscaled; report.txt in degrees, with each peak equal to report.json's SI value times
# 180/π; (3) --display si: radians in both, report.json and trace.csv byte-identical to the degree run's;
# --display with another value is a usage error (64).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
export IRL_GNUPLOT=/nonexistent/gnuplot # plots.gp is what is checked: no need to draw

# the plot lines of figure $2 in plots.gp $1 (its PNG), one per panel
plots_of() {
    awk -v f="$2.png" 'index($0, "set output") && index($0, f) { on = 1; next }
                       index($0, "set output") { on = 0 }
                       on && /^plot / { line = $0; while (line ~ /\\$/) { sub(/\\$/, "", line); getline nx; line = line nx }
                                        print line }
                       on && /^set (title|ylabel) / { print }' "$1"
}
# the 1-based column of header name $2 in CSV $1
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# 1. Stewart platform
cd "$root/programs"
"$IRL" run --out "$tmp/st" stewart_flightsim.irl >"$tmp/st.out" 2>&1 || note "stewart: exit $? ($(tail -2 "$tmp/st.out"))"
gp=$tmp/st/plots.gp tr=$tmp/st/trace.csv
[ -s "$gp" ] || { echo "FAIL stewart: no plots.gp"; exit 1; }
plots_of "$gp" sim_outputs >"$tmp/st.fig"
[ "$(grep -c '^plot ' "$tmp/st.fig")" = 3 ] || note "stewart outputs: $(grep -c '^plot ' "$tmp/st.fig") panels, want 3"
k=0
for g in "leg lengths:m:L%d" "leg speeds:m/s:L%ddot" "leg forces:N:F%d"; do
    k=$((k + 1))
    title=${g%%:*} rest=${g#*:} unit=${rest%%:*} pat=${rest#*:}
    sed -n "$((3 * k - 2))p" "$tmp/st.fig" | grep -q "^set title '$title[^']*  ·  peak " || note "stewart panel $k: title not '$title'"
    sed -n "$((3 * k - 1))p" "$tmp/st.fig" | grep -qx "set ylabel '$unit'" || note "stewart panel $k: y label not '$unit'"
    line=$(sed -n "$((3 * k))p" "$tmp/st.fig")
    for leg in 1 2 3 4 5 6; do
        name=$(printf "$pat" $leg)
        c=$(col "$tr" "sim.$name")
        [ -n "$c" ] || { note "stewart: no trace column sim.$name"; continue; }
        echo "$line" | grep -q "using 1:$c with lines [^,]* title '$name'" ||
            note "stewart panel $k: no curve '$name' of trace column $c"
    done
done
# the machine file's limits are drawn: leg lengths 1.90 m and 2.90 m, leg speeds ±0.9 m/s, leg forces ±25000 N (each
# within the span of its panel's values beyond them)
lim=$(sed -n 3p "$tmp/st.fig") spd=$(sed -n 6p "$tmp/st.fig") frc=$(sed -n 9p "$tmp/st.fig")
echo "$lim" | grep -q ", 2.9 with lines" && echo "$lim" | grep -q ", 1.9 with lines" || note "stewart: leg-length limits not drawn"
echo "$spd" | grep -q ", 0.9 with lines" && echo "$spd" | grep -q ", -0.9 with lines" || note "stewart: leg-speed limits not drawn"
echo "$frc" | grep -q ", 25000 with lines" && echo "$frc" | grep -q ", -25000 with lines" || note "stewart: leg-force limits not drawn"
# positions: x y z in m as traced, roll pitch yaw in degrees
plots_of "$gp" sim_positions >"$tmp/stp.fig"
i=0
for ax in x y z roll pitch yaw; do
    i=$((i + 1))
    c=$(col "$tr" "sim.q$i.$ax")
    [ -n "$c" ] || { note "stewart: no trace column sim.q$i.$ax"; continue; }
    blk=$(grep -A2 "^set title '$ax  ·  " "$tmp/stp.fig")
    if [ $i -le 3 ]; then
        echo "$blk" | grep -q "set ylabel 'position (m)'" && echo "$blk" | grep -q "using 1:$c with" ||
            note "stewart $ax: not in m from column $c: $blk"
    else
        echo "$blk" | grep -q "set ylabel 'position (deg)'" && echo "$blk" | grep -q "using 1:(\$$c \* 57.2957795130823[0-9]*)" ||
            note "stewart $ax: not in degrees from column $c: $blk"
    fi
done
grep -Eq "^set title 'axis [0-9]|title 'axis [0-9]|'axis [0-9]+ \(" "$gp" && note "stewart: a panel or legend says 'axis N': $(grep -m1 "'axis [0-9]" "$gp")"
echo "stewart: outputs in 3 panels (leg lengths m, leg speeds m/s, leg forces N), legends L1…L6, L1dot…, F1…; roll pitch yaw in deg"

# 2. a URDF robot: joint names, degrees
cd "$tmp"
urdf=$root/tests/robots/universalUR5.urdf
cat >ur5.irl <<IRL
PROGRAM ur5_display;
  DEVICE arm : CHAIN "$urdf";
BEGIN
  MOVE PTP JOINT(0.4, -1.1, 1.4, -1.9, -1.57, 0.3) WITH SPEED_PTP := 50 %;
  MOVE PTP JOINT(-0.4, -1.3, 1.6, -1.9, -1.57, -0.3) WITH SPEED_PTP := 50 %;
ENDPROGRAM
IRL
start="arm=0,-1.2,1.5,-1.9,-1.57,0"
"$IRL" run --out "$tmp/ur" --start "$start" ur5.irl >"$tmp/ur.out" 2>&1 || note "ur5: exit $? ($(tail -2 "$tmp/ur.out"))"
"$IRL" run --display si --out "$tmp/si" --start "$start" ur5.irl >"$tmp/si.out" 2>&1 || note "ur5 si: exit $?"
# the URDF's movable joints, in file order
names=$(awk 'match($0, /<joint [^>]*name="[^"]*"[^>]*type="(revolute|continuous|prismatic)"/) {
                 s = substr($0, RSTART, RLENGTH); match(s, /name="[^"]*"/); print substr(s, RSTART + 6, RLENGTH - 7) }' "$urdf")
[ "$(echo "$names" | wc -l)" = 6 ] || note "ur5: cannot read 6 joint names from the URDF: $names"
for fig in positions:position:deg:1 speeds:speed:deg/s:1 accelerations:acceleration:deg/s²:1 torques:torque:Nm:0; do
    IFS=: read -r f q u scaled <<<"$fig"
    plots_of "$tmp/ur/plots.gp" "arm_$f" >"$tmp/ur.$f"
    got=$(sed -n "s/^set title '\([^ ]*\)  ·  .*/\1/p" "$tmp/ur.$f")
    [ "$got" = "$names" ] || note "ur5 $f: panel titles '$(echo $got)', the URDF's joints '$(echo $names)'"
    [ "$(grep -cx "set ylabel '$q ($u)'" "$tmp/ur.$f")" = 6 ] || note "ur5 $f: y labels not '$q ($u)'"
    n=$(grep -c '57.2957795130823' "$tmp/ur.$f")
    [ "$scaled" = 1 ] && [ "$n" != 6 ] && note "ur5 $f: $n of 6 panels scaled to degrees"
    [ "$scaled" = 0 ] && [ "$n" != 0 ] && note "ur5 $f: torques scaled"
    plots_of "$tmp/si/plots.gp" "arm_$f" | grep -q '57.2957795130823' && note "ur5 --display si: $f scaled"
done
grep -q "set ylabel 'position (rad)'" "$tmp/si/plots.gp" || note "ur5 --display si: no 'position (rad)'"
# report.txt: degrees, each peak report.json's radians times 180/pi (6 digits); --display si: radians, the same JSON
python3 - "$tmp/ur" "$tmp/si" <<'PY' || fail=1
import json, math, re, sys
deg, si = sys.argv[1], sys.argv[2]
rep = json.load(open(deg + "/report.json"))
bad = []
def rows(path):
    out = {}
    for line in open(path):
        m = re.match(r"^[ !] (position|speed|acceleration|jerk|torque) +(\d) +(\S+) +(\S+) (\S+) ", line)
        if m: out[(m.group(1), int(m.group(2)))] = (m.group(3), float(m.group(4)), m.group(5))
    return out
d, s = rows(deg + "/report.txt"), rows(si + "/report.txt")
units = {"position": ("deg", "rad"), "speed": ("deg/s", "rad/s"), "acceleration": ("deg/s^2", "rad/s^2"),
         "jerk": ("deg/s^3", "rad/s^3"), "torque": ("Nm", "Nm")}
n = 0
for c in rep["devices"][0]["channels"]:
    key = (c["quantity"], c["axis"])
    if key not in d: continue
    n += 1
    k = 180 / math.pi if units[c["quantity"]][0] != "Nm" else 1
    v = c["peak"]["value"]
    jd, vd, ud = d[key]
    js, vs, us = s[key]
    if jd != c["joint"][:32] or js != jd: bad.append(f"{key}: joint {jd}, report.json {c['joint']}")
    if (ud, us) != units[c["quantity"]]: bad.append(f"{key}: units {ud} / {us}")
    if abs(vd - k * v) > 1e-5 * max(1, abs(k * v)): bad.append(f"{key}: report.txt {vd} {ud}, report.json {v} -> {k * v}")
    if abs(vs - v) > 1e-5 * max(1, abs(v)): bad.append(f"{key}: --display si {vs}, report.json {v}")
if n < 30: bad.append(f"only {n} peak rows matched")
if open(deg + "/report.json").read() != open(si + "/report.json").read(): bad.append("report.json differs between deg and si")
if open(deg + "/trace.csv").read() != open(si + "/trace.csv").read(): bad.append("trace.csv differs between deg and si")
for b in bad: print("FAIL ur5:", b)
sys.exit(1 if bad else 0)
PY
grep -q "^  limits arm's machine file does not give: acceleration (axes 1, 2, 3, 4, 5, 6: planned with irl's default 286.479 deg/s^2" "$tmp/ur/report.txt" ||
    note "ur5: the default acceleration not in deg/s^2: $(grep 'does not give' "$tmp/ur/report.txt")"
grep -q "default 5 rad/s^2" "$tmp/si/report.txt" || note "ur5 --display si: the default acceleration not in rad/s^2"
echo "ur5: panels titled $(echo $names | tr ' ' ','); deg, deg/s, deg/s² (Nm as is); report.txt in degrees = report.json x 180/pi; --display si in radians, same report.json and trace"

# 3. a bad --display
"$IRL" run --display rad --out-temp ur5.irl >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 64 ] && grep -q "bad value for --display: 'rad'" "$tmp/bad.err" || note "--display rad: exit $rc, $(head -1 "$tmp/bad.err")"
[ $fail = 0 ] && echo "plot_display: ok"
exit $fail
