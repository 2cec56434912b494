#!/usr/bin/env bash
# tests/sh/ptp_ik_all.sh: a PTP to a POSE considers every inverse-kinematics solution (docs/MOTION.md, docs/MODELS.md
# "IK configurations"). On the PUMA cell: a pose the local search from the home cannot reach (`irl model … ik` exits
# 1) is reached by the PTP, at the joints it was made from; the nearest solution within the limits is taken, WITH
# CONFIG picks another; a configuration whose only solution is beyond a limit, an unreachable pose and a CONFIG on an
# arm without a spherical wrist fail at the PTP's line with the pose and the reason (joint, value and limit in deg;
# distance in m); `irl model … ik --all` lists every solution with its configuration.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
IRL=${IRL:-$root/build/release/irl}
M=$root/models/puma560_cell.irm
tmp=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
cd "$tmp"

# pose_of Q: the tool pose at joints Q as an irl POSE literal (metres, unit quaternion)
pose_of() {
    "$IRL" model "$M" fk --q "$1" | python3 -c '
import json, math, sys
d = json.load(sys.stdin); R = d["rotation"]; p = d["position"]
w = math.sqrt(max(0.0, 1 + R[0][0] + R[1][1] + R[2][2])) / 2
x, y, z = (R[2][1] - R[1][2]) / (4 * w), (R[0][2] - R[2][0]) / (4 * w), (R[1][0] - R[0][1]) / (4 * w)
print("POSE(POS(%.15f m, %.15f m, %.15f m), ORIQUAT(%.15f, %.15f, %.15f, %.15f))" % tuple(p + [w, x, y, z]))'
}
# pose_cli Q: the same pose as --pose x,y,z,qw,qx,qy,qz
pose_cli() { pose_of "$1" | sed 's/POSE(POS(//; s/ m//g; s/), ORIQUAT(/,/; s/))//; s/ //g'; }
# final NAME: the last trace row's joints, rounded to 1e-6 rad
final() { tail -1 "o_$1/trace.csv" | cut -d, -f2-7 | awk -F, '{for (i = 1; i <= 6; i++) printf "%s%.6f", (i > 1 ? "," : ""), $i + 0; print ""}'; }
# run NAME: dry-runs NAME.irl; echoes the exit status
run() { "$IRL" run --no-plots --out "o_$1" "$1.irl" >"$1.out" 2>"$1.err"; echo $?; }
prog() { # NAME TARGET [WITH …]: a PTP to the home, then to TARGET
    cat >"$1.irl" <<IRL
PROGRAM $1;
  DEVICE arm : CHAIN "$M";
BEGIN
  MOVE PTP JOINT(0, 0, 0, 0, 0, 0);
  MOVE PTP $2${3:+ WITH $3};
ENDPROGRAM
IRL
}

# 1. the local search from the home fails; the PTP finds the solution the pose was made from
far_q=1.2,0.3,-3.0,-1.0,1.0,2.0
"$IRL" model "$M" ik --q 0,0,0,0,0,0 --pose "$(pose_cli $far_q)" >/dev/null 2>&1 &&
    note "the local IK from the home reaches the pose of $far_q: the case proves nothing"
prog far "$(pose_of $far_q)"
rc=$(run far)
[ "$rc" = 0 ] || note "far: exit $rc: $(cat far.err)"
[ "$(final far)" = "1.200000,0.300000,-3.000000,-1.000000,1.000000,2.000000" ] || note "far: ends at $(final far)"

# 2. the nearest within the limits (elbow down for this pose), WITH CONFIG := 0 the elbow-up one
q0=0.3,0.4,-0.9,0.5,0.7,-0.4
P0=$(pose_of $q0)
prog near "$P0"
[ "$(run near)" = 0 ] || note "near: $(cat near.err)"
case $(final near) in 0.300000,0.400000,-0.900000,*) ;; *) note "near: ends at $(final near)";; esac
prog up "$P0" "CONFIG := 0"
[ "$(run up)" = 0 ] || note "up: $(cat up.err)"
case $(final up) in 0.300000,1.024174,-2.147637,*) ;; *) note "up (CONFIG 0): ends at $(final up)";; esac
prog turn "$P0" "CONFIG := 2, TURN := 36"
[ "$(run turn)" = 0 ] || note "turn: $(cat turn.err)"

# 3. failures say why, with the pose, at the PTP's line
prog back "$P0" "CONFIG := 7"
rc=$(run back)
[ "$rc" != 0 ] && grep -q 'back.irl:5:' back.err && grep -q 'POS(0.6390[0-9]* m, 0.0406[0-9]* m, 0.5373[0-9]* m) ORIZYX(' back.err &&
    grep -q 'joint j1 at 170.08[0-9]* deg, beyond its limit 160 deg' back.err || note "back (CONFIG 7): exit $rc: $(cat back.err)"
prog reach "POSE(POS(1.5 m, 0, 0.3 m), ORIQUAT(1, 0, 0, 0))"
rc=$(run reach)
[ "$rc" != 0 ] && grep -q 'reach.irl:5:' reach.err && grep -q 'POS(1.5 m, 0 m, 0.3 m) ORIZYX(0 deg, 0 deg, 0 deg) is out of reach by 0\.[0-9]* m' reach.err ||
    note "reach: exit $rc: $(cat reach.err)"
prog badcfg "$P0" "CONFIG := 9"
rc=$(run badcfg)
[ "$rc" != 0 ] && grep -q 'WITH CONFIG 9 is not one of 0 to 7' badcfg.err || note "badcfg: exit $rc: $(cat badcfg.err)"

ur5=$root/tests/robots/universalUR5.urdf
if [ -f "$ur5" ]; then
    cat >ur5cfg.irl <<IRL
PROGRAM ur5cfg;
  DEVICE arm : CHAIN "$ur5";
BEGIN
  MOVE PTP JOINT(30 deg, -60 deg, 60 deg, 10 deg, 30 deg, 0);
  MOVE PTP POSE(POS(0.3 m, 0.2 m, 0.4 m), ORIQUAT(0, 1, 0, 0)) WITH CONFIG := 1;
ENDPROGRAM
IRL
    rc=$(run ur5cfg)
    [ "$rc" != 0 ] && grep -q 'ur5cfg.irl:5:.*WITH CONFIG names a configuration, which this device does not have' ur5cfg.err ||
        note "ur5cfg: exit $rc: $(cat ur5cfg.err)"
fi

# 5. a 7-axis arm: a PTP to a pose by the multi-start search; a LIN through the wrist singularity (axes 5 and 7 in
# line) whose joint speeds explode and whose IK then fails is charged to the LIN's own line, not to a later statement
I7=$root/models/iiwa7.irm
cat >seven.irl <<IRL
PROGRAM seven;
  DEVICE arm : CHAIN "$I7";
BEGIN
  MOVE PTP JOINT(0, 30 deg, 0, -70 deg, 0, 1 deg, 0);
  MOVE LIN POS(0.60 m, 0.05 m, 0.66 m) WITH SPEED := 0.2 m/s;
  PRINT "after the LIN";
  WAIT 1 s;
  MOVE PTP JOINT(0, 30 deg, 0, -70 deg, 0, 30 deg, 0);
ENDPROGRAM
IRL
rc=$(run seven)
[ "$rc" != 0 ] && grep -q '^seven.irl:5:3: runtime error: inverse kinematics failed' seven.err &&
    grep -Eq '^seven.irl:5:3: error: arm axis [0-9]( \([^)]*\))? speed .* deg/s exceeds its limit' seven.err &&
    ! grep -q '^seven.irl:[6-9]:.*error' seven.err || note "seven: exit $rc: $(head -5 seven.err)"
sed -i 's/WAIT 1 s;//' seven.irl
rc=$(run seven)
[ "$rc" != 0 ] && grep -q '^seven.irl:5:3: runtime error: inverse kinematics failed' seven.err || note "seven (drained at the end): exit $rc: $(head -3 seven.err)"
q7=0.2,0.5,-0.3,-1.2,0.4,0.8,0.1
P7=$("$IRL" model "$I7" fk --q $q7 | python3 -c '
import json, math, sys
d = json.load(sys.stdin); R = d["rotation"]; p = d["position"]
w = math.sqrt(max(0.0, 1 + R[0][0] + R[1][1] + R[2][2])) / 2
x, y, z = (R[2][1] - R[1][2]) / (4 * w), (R[0][2] - R[2][0]) / (4 * w), (R[1][0] - R[0][1]) / (4 * w)
print("POSE(POS(%.15f m, %.15f m, %.15f m), ORIQUAT(%.15f, %.15f, %.15f, %.15f))" % tuple(p + [w, x, y, z]))')
cat >seven_ptp.irl <<IRL
PROGRAM seven_ptp;
  DEVICE arm : CHAIN "$I7";
BEGIN
  MOVE PTP JOINT(0, 30 deg, 0, -70 deg, 0, 30 deg, 0);
  MOVE PTP $P7;
ENDPROGRAM
IRL
[ "$(run seven_ptp)" = 0 ] || note "seven_ptp: $(head -3 seven_ptp.err)"

# 4. irl model … ik --all
"$IRL" model "$M" ik --all --q 0,0,0,0,0,0 --pose "$(pose_cli $q0)" >all.json || note "ik --all: exit $?"
python3 - all.json <<'PY' || note "ik --all: $(head -c 600 all.json)"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["solutions"]
assert d["method"] == "closed form", d["method"]
cfgs = {x["config"] for x in s}
assert cfgs == set(range(8)), cfgs
assert s[0]["within_limits"] and abs(s[0]["q"][2] + 0.9) < 1e-9, s[0]
assert all(a["distance"] <= b["distance"] for a, b in zip(s, s[1:]))
assert all(x["within_limits"] == (x["limit_joint"] is None) for x in s)
PY
"$IRL" model "$M" ik --all --q 0,0,0,0,0,0 --pose 3,0,0,1,0,0,0 >/dev/null 2>reach_cli.err
rc=$?
[ "$rc" = 1 ] && grep -q 'out of reach by 2\.[0-9]* m' reach_cli.err || note "ik --all out of reach: exit $rc: $(cat reach_cli.err)"
"$IRL" model "$M" fk --all --q 0,0,0,0,0,0 >/dev/null 2>&1
[ $? = 64 ] || note "fk --all is not a usage error"
exit $fail
