#!/usr/bin/env bash
# tests/sh/dryrun_singularity.sh: singularity proximity is checked where it matters (docs/RUNNING.md, "Checks").
# A joint-interpolated PTP may start at, end at or pass through a singular pose: PTPs from the all-zero home of two
# URDFs (arm stretched, wrist singular) and PTPs through and onto A5 = 0 on the PUMA cell pass. A LIN, a CIRC and
# two blended LINs through the wrist singularity fail at the Cartesian statement's line; a PTP to a POSE whose IK
# solution is wrist-singular fails at the PTP's line. A violation present from the very first cycle (gravity alone beyond a torque limit at the start pose) is
# charged to the program's first statement, never to line 0, also when that statement fails before anything moves.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
IRL=${IRL:-$root/build/release/irl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
cd "$tmp"

# run NAME: dry-runs NAME.irl into o_NAME, stderr in NAME.err; echoes the exit status
run() { "$IRL" run --no-plots --out "o_$1" "$1.irl" >/dev/null 2>"$1.err"; echo $?; }
# passes NAME: exit 0, verdict PASS, no error message
passes() {
    local rc; rc=$(run "$1")
    [ "$rc" = 0 ] && grep -q '^verdict: PASS' "o_$1/report.txt" && ! grep -q 'error' "$1.err" ||
        note "$1: exit $rc, want a pass: $(head -3 "$1.err")"
}

cat >puma_urdf_home.irl <<IRL
PROGRAM puma_urdf_home;
  DEVICE arm : CHAIN "$root/models/puma560.urdf";
BEGIN
  MOVE PTP JOINT(0, 0, 0, 0, 0, 0);
  MOVE PTP JOINT(30 deg, 20 deg, -40 deg, 10 deg, 30 deg, 0);
  MOVE PTP JOINT(30 deg, 20 deg, -40 deg, 10 deg, -30 deg, 0);
  MOVE PTP JOINT(0, 0, 0, 0, 0, 0);
ENDPROGRAM
IRL
passes puma_urdf_home

ur5=$root/tests/robots/universalUR5.urdf
if [ -f "$ur5" ]; then
    cat >ur5_home.irl <<IRL
PROGRAM ur5_home;
  DEVICE arm : CHAIN "$ur5";
BEGIN
  MOVE PTP JOINT(30 deg, -60 deg, 60 deg, 10 deg, 30 deg, 0);
ENDPROGRAM
IRL
    passes ur5_home
else
    echo "# universalUR5.urdf not found: the UR5 case is skipped"
fi

# through A5 = 0 (line 5), onto it (line 6) and away
cat >ptp_a5.irl <<IRL
PROGRAM ptp_a5;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE PTP JOINT(0, 45 deg, -160 deg, 0, 20 deg, 0);
  MOVE PTP JOINT(20 deg, 40 deg, -170 deg, 30 deg, -30 deg, 10 deg);
  MOVE PTP JOINT(0, 45 deg, -160 deg, 0, 0, 0);
  MOVE PTP JOINT(0, 45 deg, -160 deg, 0, 20 deg, 0);
ENDPROGRAM
IRL
passes ptp_a5

# a LIN whose path crosses the wrist singularity (q5 within 0.4 deg of 0)
cat >lin_sing.irl <<IRL
PROGRAM lin_sing;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  \$SPEED := 0.2 m/s;
  MOVE PTP JOINT(0, 45 deg, -160 deg, 0, 20 deg, 0);
  MOVE_INC LIN POS(0, 0.005 m, 0.2 m);
  MOVE PTP JOINT(0, 45 deg, -160 deg, 10 deg, -20 deg, 0);
ENDPROGRAM
IRL
rc=$(run lin_sing)
[ "$rc" = 1 ] && grep -q '^lin_sing.irl:6:3: error: arm singularity: measure' lin_sing.err &&
    [ "$(grep -c 'error' lin_sing.err)" = 1 ] || note "lin_sing: exit $rc, want one singularity error at 6:3: $(cat lin_sing.err)"

# a CIRC, and two blended LINs, over the same crossing: at the Cartesian statement, never at the PTP after it
sed 's/^PROGRAM lin_sing;/PROGRAM circ_sing;/; s|MOVE_INC LIN POS(0, 0.005 m, 0.2 m);|MOVE_INC CIRC POS(0.002 m, 0.003 m, 0.1 m), POS(0, 0.005 m, 0.2 m);|' \
    lin_sing.irl >circ_sing.irl
rc=$(run circ_sing)
[ "$rc" = 1 ] && grep -q '^circ_sing.irl:6:3: error: arm singularity: measure' circ_sing.err &&
    [ "$(grep -c 'error' circ_sing.err)" = 1 ] || note "circ_sing: exit $rc, want one singularity error at 6:3: $(cat circ_sing.err)"
sed 's/^PROGRAM lin_sing;/PROGRAM blend_sing;/; s|\$SPEED := 0.2 m/s;|\$SPEED := 0.2 m/s;  \$APPROX := 30 mm;|
     s|MOVE_INC LIN POS(0, 0.005 m, 0.2 m);|MOVE_INC LIN POS(0, 0.0025 m, 0.1 m);  MOVE_INC LIN POS(0, 0.0025 m, 0.1 m);|' \
    lin_sing.irl >blend_sing.irl
rc=$(run blend_sing)
[ "$rc" = 1 ] && grep -q '^blend_sing.irl:6:[0-9]*: error: arm singularity: measure' blend_sing.err &&
    [ "$(grep -c 'error' blend_sing.err)" = 1 ] || note "blend_sing: exit $rc, want one singularity error at line 6: $(cat blend_sing.err)"

# a PTP to a POSE whose IK solution has q5 = 0 (the pose of JOINT(0, 45 deg, -160 deg, 0, 0, 0))
cat >ptp_pose_sing.irl <<IRL
PROGRAM ptp_pose_sing;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE PTP JOINT(0, 45 deg, -160 deg, 0, 20 deg, 0);
  MOVE PTP POSE(POS(0.68809325984544067 m, -0.15005 m, 0.10444409461987328 m), ORIZYX(0, 115 deg, 0));
  MOVE PTP JOINT(0, 45 deg, -160 deg, 0, 20 deg, 0);
ENDPROGRAM
IRL
rc=$(run ptp_pose_sing)
[ "$rc" = 1 ] && grep -q '^ptp_pose_sing.irl:5:3: error: arm singularity: measure' ptp_pose_sing.err &&
    [ "$(grep -c 'error' ptp_pose_sing.err)" = 1 ] ||
    note "ptp_pose_sing: exit $rc, want one singularity error at 5:3: $(cat ptp_pose_sing.err)"

# gravity alone beyond axis 2's torque limit from the first cycle (t = 0, before any statement)
sed 's/effort = 186.4 Nm;  home = 45 deg;/effort = 5 Nm;  home = 45 deg;/' "$root/models/puma560_cell.irm" >low.irm
grep -q 'effort = 5 Nm' low.irm || note "could not lower axis 2's torque limit"
cat >line0.irl <<IRL
PROGRAM line0;
  DEVICE arm : CHAIN "low.irm";
BEGIN
  WAIT 10 ms;
  MOVE PTP JOINT(10 deg, 45 deg, -180 deg, 0, 45 deg, 0);
ENDPROGRAM
IRL
rc=$(run line0)
[ "$rc" = 1 ] && grep -q '^line0.irl:4:3: error: arm axis 2 (j2) torque' line0.err && ! grep -q ':0:0:' line0.err &&
    ! grep -q ':0:0:' o_line0/report.txt || note "line0: exit $rc, want the torque error at 4:3 and nothing at 0:0: $(cat line0.err)"

# the same when the first statement fails before anything moves: charged to that statement
cat >line0_first.irl <<IRL
PROGRAM line0_first;
  DEVICE arm : CHAIN "low.irm";
BEGIN
  MOVE PTP JOINT(10 deg, 45 deg, 180 deg, 0, 45 deg, 0);
ENDPROGRAM
IRL
rc=$(run line0_first)
[ "$rc" = 1 ] && grep -q '^line0_first.irl:4:3: runtime error: MOVE PTP: axis 3' line0_first.err &&
    grep -q '^line0_first.irl:4:3: error: arm axis 2 (j2) torque' line0_first.err && ! grep -q ':0:0:' line0_first.err &&
    ! grep -q ':0:0:' o_line0_first/report.txt ||
    note "line0_first: exit $rc, want the torque error at 4:3 and nothing at 0:0: $(cat line0_first.err)"

[ $fail = 0 ] && echo "singularity checked on LIN (6:3) and at a PTP's IK target (5:3); PTPs through singular poses pass"
exit $fail
