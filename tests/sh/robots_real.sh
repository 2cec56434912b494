#!/usr/bin/env bash
# tests/sh/robots_real.sh: the five real URDFs of tests/robots/ (unmodified, as their makers publish them) load, answer
# `irl model … fk`, and dry-run a pick-and-place program generated for each from its own joint limits; checked from
# the outputs: the trace stays inside the limits read from the URDF text by awk (not by irl), effort="0" is "not
# given" (no torque limit, no violation), the files without <inertial> get a warning naming their links and a
# report that says the torque check is incomplete, the others do not; kr120_site.irm adds limits to the vendor's
# file and the report shows them; an APPROX_PTP the planner lowers names the axis and the limit the machine gives,
# and irl's defaults (the URDF's missing acceleration) never lower one; a gripper with a <mimic> finger appended to
# a real file loads and dry-runs; a negative effort is refused at its file:line:col. Needs $IRL.
set -u
cd "$(dirname "$0")/../robots"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

# "min max" of each movable joint, in document order (these five files list their joints base to tool)
limits() {
    awk 'match($0, /<joint [^>]*type="(revolute|prismatic|continuous)"/) { mov = 1; cont = ($0 ~ /continuous/) }
         /<joint [^>]*type="fixed"/ { mov = 0 }
         mov && /<limit / { lo = hi = ""; if (match($0, /lower="[^"]*"/)) lo = substr($0, RSTART + 7, RLENGTH - 8);
                            if (match($0, /upper="[^"]*"/)) hi = substr($0, RSTART + 7, RLENGTH - 8);
                            if (cont || lo == "") { lo = -10; hi = 10 } print lo, hi; mov = 0 }' "$1"
}
# start, pick and place joints (rad) of each robot: arm bent, wrist bent (a5 away from 0), tool roughly down
declare -A START PICK PLACE
START[universalUR5]=0,-1.2,1.5,-1.9,-1.57,0;  PICK[universalUR5]=0.4,-1.1,1.4,-1.9,-1.57,0.3
PLACE[universalUR5]=-0.4,-1.3,1.6,-1.9,-1.57,-0.3
for r in abbIrb120 irb2400 yaskawaMotomanMH5; do
    START[$r]=0,0.2,0.1,0,0.8,0;  PICK[$r]=0.4,0.3,0.1,0.2,0.9,0.2;  PLACE[$r]=-0.4,0.25,0.05,-0.2,0.85,-0.2
done
START[kr120r2500pro]=0,-1.57,1.57,0,0.8,0;  PICK[kr120r2500pro]=0.4,-1.4,1.4,0.2,0.9,0.2
PLACE[kr120r2500pro]=-0.4,-1.5,1.5,-0.2,0.85,-0.2

for urdf in universalUR5 abbIrb120 irb2400 kr120r2500pro yaskawaMotomanMH5; do
    f=$urdf.urdf
    limits "$f" >"$tmp/$urdf.lim"
    [ "$(wc -l <"$tmp/$urdf.lim")" = 6 ] || { note "$urdf: expected 6 movable joints in the URDF text"; continue; }
    q0=${START[$urdf]}
    "$IRL" model "$f" fk --q "$q0" >"$tmp/$urdf.fk" 2>"$tmp/$urdf.fkerr" || note "$urdf: irl model fk: exit $? ($(cat "$tmp/$urdf.fkerr"))"
    grep -q '"position"' "$tmp/$urdf.fk" || note "$urdf: fk printed no position"
    if grep -q '<inertial>' "$f"; then
        [ -s "$tmp/$urdf.fkerr" ] && note "$urdf: unexpected stderr: $(cat "$tmp/$urdf.fkerr")"
    else
        grep -q "warning: no <inertial> for links .*link_1\|warning: no <inertial> for links .*link_s" "$tmp/$urdf.fkerr" ||
            note "$urdf: no warning naming the links without <inertial>: $(cat "$tmp/$urdf.fkerr")"
    fi
    cat >"$tmp/$urdf.irl" <<IRL
PROGRAM pick_place_$urdf;
  DEVICE arm : CHAIN "$PWD/$f";
  IO gripper : DOUT 1;
  VAR n : INT;
BEGIN
  FOR n := 1 TO 2 DO
    MOVE PTP JOINT(${PICK[$urdf]}) WITH SPEED_PTP := 50 %;
    MOVE_INC LIN POS(0, 0, -0.05 m) WITH SPEED := 0.1 m/s;
    gripper := TRUE;
    WAIT 0.2 s;
    MOVE_INC LIN POS(0, 0, 0.05 m) WITH SPEED := 0.1 m/s;
    MOVE PTP JOINT(${PLACE[$urdf]}) WITH SPEED_PTP := 50 %;
    MOVE_INC LIN POS(0, 0, -0.05 m) WITH SPEED := 0.1 m/s;
    gripper := FALSE;
    WAIT 0.2 s;
    MOVE_INC LIN POS(0, 0, 0.05 m) WITH SPEED := 0.1 m/s;
  ENDFOR;
ENDPROGRAM
IRL
    out=$tmp/$urdf.out
    "$IRL" run --trace csv --no-plots --out "$out" --start "arm=$q0" "$tmp/$urdf.irl" >"$tmp/$urdf.stdout" 2>"$tmp/$urdf.err" ||
        { note "$urdf: dry-run exit $? ($(head -5 "$tmp/$urdf.err"))"; continue; }
    grep -q '^verdict: PASS' "$out/report.txt" || note "$urdf: $(grep verdict "$out/report.txt")"
    # positions inside the URDF's own limits, every cycle
    msg=$(awk -F, -v L="$(tr '\n' ' ' <"$tmp/$urdf.lim")" '
        NR == 1 { split(L, l, " "); for (i = 1; i <= NF; i++) { n = split($i, p, "."); col[n == 3 ? p[1] "." p[2] : $i] = i }; next }
        { for (k = 1; k <= 6; k++) { q = $(col["arm.q" k]);
            if (q < l[2 * k - 1] - 1e-9 || q > l[2 * k] + 1e-9) { print "axis " k " at " q " t=" $1; exit 1 } } }' \
        "$out/trace.csv") || note "$urdf: outside the URDF's limits: $msg"
    rows=$(wc -l <"$out/trace.csv"); [ "$rows" -gt 1000 ] || note "$urdf: a trace of $rows rows"
    if grep -q 'effort="0"' "$f"; then
        grep -E '^[ !] torque +1 ' "$out/report.txt" | grep -q ' - ' || note "$urdf: effort=\"0\" shown as a limit: $(grep -E 'torque +1 ' "$out/report.txt")"
    fi
    if grep -q '<inertial>' "$f"; then
        grep -q 'torque check incomplete' "$out/report.txt" && note "$urdf: torque check called incomplete"
    else
        grep -q '^verdict: PASS; torque check incomplete: .* link_' "$out/report.txt" ||
            note "$urdf: the report does not say the torque check is incomplete"
        grep -q '"torque_check": "incomplete"' "$out/report.json" || note "$urdf: report.json lacks torque_check"
    fi
    # a URDF carries no acceleration or jerk limit: the report says which limits are irl's defaults
    grep -q "^  limits arm's machine file does not give: acceleration (axes 1, 2, 3, 4, 5, 6: planned with irl's default 286.479 deg/s^2 (a blend up to twice it), not checked); jerk (axes 1, 2, 3, 4, 5, 6: not limited" "$out/report.txt" ||
        note "$urdf: report.txt does not name the limits not given: $(grep 'does not give' "$out/report.txt")"
    python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["devices"][0]["limits_not_given"]
sys.exit(g["acceleration"]["axes"] != [1, 2, 3, 4, 5, 6] or "default 5" not in g["acceleration"]["what"] or
         (sys.argv[2] == "1") != ("torque" in g))' "$out/report.json" "$(grep -c 'effort="0"' "$f" | sed 's/^[1-9][0-9]*$/1/')" ||
        note "$urdf: report.json limits_not_given"
    echo "# $urdf: $(head -3 "$out/report.txt" | tail -2 | tr '\n' ' ')"
done
# the site file gives acceleration, jerk and torque: none of them is listed as not given

# the site file: the vendor's KR 120 URDF plus acceleration, jerk and torque limits
sed "s|CHAIN \"$PWD/kr120r2500pro.urdf\"|CHAIN \"$PWD/kr120_site.irm\"|" "$tmp/kr120r2500pro.irl" >"$tmp/site.irl"
q0=${START[kr120r2500pro]}
"$IRL" run --trace csv --no-plots --out "$tmp/site" --start "arm=$q0" "$tmp/site.irl" >/dev/null 2>"$tmp/site.err" ||
    note "kr120_site: exit $? ($(head -5 "$tmp/site.err"))"
grep -E '^[ !] torque +1 ' "$tmp/site/report.txt" | grep -q ' 12000 ' || note "kr120_site: torque limit of axis 1 not 12000 Nm"
grep -q "does not give: .*\(acceleration\|torque\)" "$tmp/site/report.txt" && note "kr120_site: $(grep 'does not give' "$tmp/site/report.txt")"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { n = split($i, p, "."); col[n == 3 ? p[1] "." p[2] : $i] = i }; next }
    { a = $(col["arm.qdd1"]); if (a > 3 + 1e-9 || -a > 3 + 1e-9) { print "qdd1 " a " at t=" $1; exit 1 } }' \
    "$tmp/site/trace.csv" || note "kr120_site: axis 1 beyond its 3 rad/s^2"
"$IRL" model kr120_site.irm info | grep -q '"name": "joint_a1", "type": "revolute", "min": -3.22885911619[0-9]*, "max": 3.2288[0-9]*, "vmax": 2.72271363311[0-9]*, "amax": 3, "jmax": 30, "effort": 12000' ||
    note "kr120_site: info does not show the URDF's limits with the site's added"

# APPROX_PTP 50 % between PTPs that reverse axis 2: with the site file's acceleration limits the blend is lowered and
# the note names the axis and the limit; on the vendor's URDF alone (irl's default acceleration, no limit of the
# machine) it is granted whole; a pair keeping its directions is granted whole
approx() { # $1 machine, $2 name, $3 third PTP[, $4 APPROX_PTP, default 50 %]
    cat >"$tmp/$2.irl" <<IRL
PROGRAM $2;
  DEVICE arm : CHAIN "$PWD/$1";
BEGIN
  \$APPROX_PTP := ${4:-50 %};
  MOVE PTP JOINT(20 deg, -80 deg, 80 deg, 10 deg, 40 deg, 0);
  MOVE PTP JOINT(40 deg, -70 deg, 70 deg, 20 deg, 50 deg, 10 deg);
  MOVE PTP JOINT($3);
ENDPROGRAM
IRL
    "$IRL" run --trace csv --no-plots --out "$tmp/$2" --start "arm=0,-1.57,1.57,0,0.8,0" "$tmp/$2.irl" >/dev/null 2>&1 ||
        note "$2: exit $?"
}
approx kr120r2500pro.urdf blend_urdf "60 deg, -80 deg, 80 deg, 10 deg, 40 deg, 0"
grep -qi 'approx' "$tmp/blend_urdf/report.txt" && note "blend_urdf: $(grep -i 'approx' "$tmp/blend_urdf/report.txt")"
# granted 50 %: each blend overlaps a quarter of its predecessor (the half of its half move; the successor is longer
# than half of it), so the run is the exact-stop run less a quarter of lines 5 and 6 (within 3 cycles)
approx kr120r2500pro.urdf blend_exact "60 deg, -80 deg, 80 deg, 10 deg, 40 deg, 0" "0 %"
dur() { sed -n 's/^duration \([0-9.]*\) s.*/\1/p' "$tmp/$1/report.txt"; }
motion() { sed -n "s/.*\"duration\": \([0-9.e-]*\), .*\"line\": $2,.*/\1/p" "$tmp/$1/report.json"; }
awk -v b="$(dur blend_urdf)" -v e="$(dur blend_exact)" -v t5="$(motion blend_exact 5)" -v t6="$(motion blend_exact 6)" \
    'BEGIN { want = e - 0.25 * (t5 + t6); if (!(b > 0 && t5 > 0 && t6 > 0) || b - want > 3e-3 || want - b > 3e-3) {
             print "blended " b " s, exact " e " s, lines 5 and 6 " t5 " s and " t6 " s: want " want " s"; exit 1 } }' ||
    note "blend_urdf: not granted 50 %"
# what the granted blend demands: axis 2 reverses at the default 5 rad/s^2 each way, so the overlap sums up to twice
# it; the peak is above the default and no more than twice it
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { n = split($i, p, "."); col[n == 3 ? p[1] "." p[2] : $i] = i }; next }
    { a = $(col["arm.qdd2"]); if (a < 0) a = -a; if (a > pk) pk = a }
    END { if (!(pk > 5 + 1e-6 && pk <= 10 + 1e-6)) { print "peak |qdd2| " pk " rad/s^2"; exit 1 } }' \
    "$tmp/blend_urdf/trace.csv" || note "blend_urdf: axis 2's blended acceleration not in (5, 10] rad/s^2"
grep -q "^  acceleration  *2 joint_a2  *-\?572.958 deg/s^2 .* - *- *-\$" "$tmp/blend_urdf/report.txt" ||
    note "blend_urdf: the peaks do not show axis 2's 572.958 deg/s^2 (twice the default): $(grep '^  acceleration  *2 ' "$tmp/blend_urdf/report.txt")"
approx kr120_site.irm blend_site "60 deg, -80 deg, 80 deg, 10 deg, 40 deg, 0"
grep -q "^$tmp/blend_site.irl:6:3: note: arm APPROX_PTP 50 % lowered to [0-9.]* %: the blend asked for would take axis 2's acceleration to [0-9.]* deg/s^2, beyond its limit 171.9 deg/s^2\$" "$tmp/blend_site/report.txt" ||
    note "blend_site: $(grep -i 'approx' "$tmp/blend_site/report.txt")"
# a Franka-style gripper (two prismatic fingers, the second a <mimic> of the first) on the IRB 120's flange: the
# file loads, the follower is no axis (7 axes: 6 + finger_joint1) and the dry-run passes
sed 's|</robot>|<link name="finger1"/><link name="finger2"/>\
<joint name="finger_joint1" type="prismatic"><parent link="link_6"/><child link="finger1"/><origin xyz="0.05 0.01 0"/><axis xyz="0 1 0"/><limit effort="20" lower="0" upper="0.04" velocity="0.2"/></joint>\
<joint name="finger_joint2" type="prismatic"><parent link="link_6"/><child link="finger2"/><origin xyz="0.05 -0.01 0"/><axis xyz="0 -1 0"/><limit effort="20" lower="0" upper="0.04" velocity="0.2"/><mimic joint="finger_joint1"/></joint>\
</robot>|' abbIrb120.urdf >"$tmp/gripper.urdf"
cat >"$tmp/gripper.irl" <<IRL
PROGRAM gripper;
  DEVICE arm : CHAIN "$tmp/gripper.urdf";
BEGIN
  MOVE PTP JOINT(30 deg, 20 deg, 10 deg, 0, -40 deg, 0, 30 mm);
ENDPROGRAM
IRL
"$IRL" run --trace csv --no-plots --out "$tmp/gripper" "$tmp/gripper.irl" >/dev/null 2>"$tmp/gripper.err" || note "gripper: exit $? ($(head -3 "$tmp/gripper.err"))"
grep -q '^verdict: PASS' "$tmp/gripper/report.txt" || note "gripper: $(grep verdict "$tmp/gripper/report.txt")"
h=$(head -1 "$tmp/gripper/trace.csv")
case ",$h," in *",arm.q6.joint_6,arm.q7.finger_joint1,arm.qd1."*) ;; *) note "gripper: trace header ${h:0:160}" ;; esac
case "$h" in *finger_joint2*) note "gripper: the mimic joint is an axis of the trace" ;; esac
awk -F, 'END { if ($8 < 0.03 - 1e-9 || $8 > 0.03 + 1e-9) { print "finger at " $8; exit 1 } }' "$tmp/gripper/trace.csv" ||
    note "gripper: the finger did not reach 30 mm"

# a real file's first effort made negative: refused at the attribute's value, file:line:col counted here by awk
sed '0,/effort="[^"]*"/s//effort="-1"/' universalUR5.urdf >"$tmp/neg.urdf"
at=$(awk '{ i = index($0, "effort=\"-1\""); if (i) { print NR ":" i + 8; exit } }' "$tmp/neg.urdf")
"$IRL" model "$tmp/neg.urdf" info >/dev/null 2>"$tmp/neg.err" && note "negative effort: accepted"
grep -q "^$tmp/neg.urdf:$at: error: joint '[^']*': negative effort -1 Nm" "$tmp/neg.err" ||
    note "negative effort at $at: $(head -1 "$tmp/neg.err")"

approx kr120r2500pro.urdf blend_same "60 deg, -60 deg, 60 deg, 30 deg, 60 deg, 20 deg"
grep -qi 'approx' "$tmp/blend_same/report.txt" && note "blend_same: $(grep -i 'approx' "$tmp/blend_same/report.txt")"
exit $fail
