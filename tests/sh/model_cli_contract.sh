#!/usr/bin/env bash
# model_cli_contract.sh — the `irl model` contract: the JSON shape of every op (python3's json module, when
# present), the relations between ops (tau = M qdd + h, fd(id) = qdd, ik(fk(q)) reaches the pose, --link),
# exit codes 1/64/65/66 with their messages and nothing on stdout, and hostile arguments never crash.
set -u
. "$(dirname "$0")/model_cli_lib.bash"
tmpd=$(mktemp -d); trap 'rm -rf "$tmpd"' EXIT
fail=0
P=models/puma560.irm C=models/centrifuge.irm
Q=0.1,0.5,-0.3,0.7,0.4,-1.2 QD=1,-2,0.5,3,-1,2 QDD=0.3,-0.2,1.5,-4,2,0.7

# ---- exit codes and messages (bash only) ----
expect_exit 64 "usage: irl model" || fail=1
expect_exit 64 "usage: irl model" $P || fail=1
expect_exit 64 "unknown operation 'frob'" $P frob || fail=1
expect_exit 64 "unknown option '--frob'" $P id --frob 1 || fail=1
expect_exit 64 "--q has 2 numbers, machine 'puma560' has 6 joints" $P id --q 1,2 || fail=1
expect_exit 64 "--qd has 7 numbers" $P id --qd 1,2,3,4,5,6,7 || fail=1
expect_exit 64 "--q: 'x' is not a number" $P id --q 1,x,3,4,5,6 || fail=1
expect_exit 64 "--q: '1deg' is not a number" $P fk --q 1deg,0,0,0,0,0 || fail=1
expect_exit 64 "an empty item" $P id --q 1,,3,4,5,6 || fail=1
expect_exit 64 "an empty item" $P id --q "" || fail=1
expect_exit 64 "'nan' is not a finite number" $P id --q nan,0,0,0,0,0 || fail=1
expect_exit 64 "'1e999' is not a finite number" $P id --q 1e999,0,0,0,0,0 || fail=1
expect_exit 64 "--q needs a value" $P id --q || fail=1
expect_exit 64 "--q given twice" $P id --q 0,0,0,0,0,0 --q 0,0,0,0,0,0 || fail=1
expect_exit 64 "'id' does not use --tau" $P id --tau 1,2,3,4,5,6 || fail=1
expect_exit 64 "'mass' does not use --qd" $P mass --qd 1,2,3,4,5,6 || fail=1
expect_exit 64 "'ik' needs --pose" $P ik || fail=1
expect_exit 64 "--pose has 3 numbers, expected 7" $P ik --pose 1,2,3 || fail=1
expect_exit 64 "the quaternion (qw, qx, qy, qz) has zero length" $P ik --pose 0.4,0,0.4,0,0,0,0 || fail=1
expect_exit 64 "--gravity has 2 numbers, expected 3" $P id --gravity 0,1 || fail=1
expect_exit 64 "no link named 'nolink'" $P fk --link nolink || fail=1
expect_exit 64 "'id' does not use --link" $P id --link link2 || fail=1
expect_exit 64 "unexpected argument 'extra'" $P id extra || fail=1
expect_exit 64 "more than 64 numbers" $P id --q "$(printf '1,%.0s' {1..70})1" || fail=1
expect_exit 66 "cannot open machine file 'no/such.irm'" no/such.irm info || fail=1
expect_exit 66 "cannot open machine file 'no/such.urdf'" no/such.urdf info || fail=1
expect_exit 66 "Is a directory" models info || fail=1
expect_exit 66 "cannot open plugin 'no/such.so'" $P info --plugin no/such.so || fail=1
# An operation the back-end cannot do, and an unreachable pose: exit 1.
expect_exit 1 "ik: the pose is out of reach" $P ik --pose 5,0,0,1,0,0,0 || fail=1
printf 'MACHINE ghost : CHAIN;\n  JOINT j1 : REVOLUTE;\n    mass = 0 kg;\n  ENDJOINT;\nENDMACHINE\n' >"$tmpd/ghost.irm"
expect_exit 1 "fd: singular configuration (back-end 'chain')" "$tmpd/ghost.irm" fd || fail=1
# Bad machine files: their own file:line:col errors, exit 65.
printf 'MACHINE bad : CHAIN;\n  JOINT j1 : REVOLUTE;\n    effort = 3 m;\n  ENDJOINT;\nENDMACHINE\n' >"$tmpd/bad.irm"
expect_exit 65 "bad.irm:3:" "$tmpd/bad.irm" info || fail=1
expect_exit 65 "error: effort" "$tmpd/bad.irm" info || fail=1
printf 'MACHINE m : NOSUCH;\n  JOINT j1 : REVOLUTE;\n    mass = 1 kg;\n  ENDJOINT;\nENDMACHINE\n' >"$tmpd/nob.irm"
expect_exit 65 "unknown model back-end 'nosuch'" "$tmpd/nob.irm" info || fail=1
# The back-end refuses the description (create() fails): its message, once prefixed with the file, exit 65.
printf 'MACHINE e : CHAIN;\nENDMACHINE\n' >"$tmpd/empty.irm"
expect_exit 65 "empty.irm: chain needs 1..64 joints, got 0" "$tmpd/empty.irm" info || fail=1
if "$IRL" model "$tmpd/empty.irm" info 2>&1 | grep -q 'empty.irm: .*empty.irm'; then echo "FAIL file named twice"; fail=1; fi
printf 'MACHINE c : CENTRIFUGE;\n  JOINT a : REVOLUTE;\n  ENDJOINT;\nENDMACHINE\n' >"$tmpd/c1.irm"
expect_exit 65 "c1.irm: centrifuge: needs exactly 3 joints" "$tmpd/c1.irm" info || fail=1
printf '<robot name="r">\n  <link name="a"/>\n  <joint name="j" type="planar">\n' >"$tmpd/bad.urdf"
expect_exit 65 "bad.urdf:" "$tmpd/bad.urdf" info || fail=1
printf '<robot name="r">\n  <link name="a"/><link name="b"/>\n  <joint name="j" type="floating"><parent link="a"/><child link="b"/></joint>\n</robot>\n' >"$tmpd/float.urdf"
expect_exit 65 "float.urdf:3:25: error:" "$tmpd/float.urdf" info || fail=1
printf 'PROGRAM p;\nBEGIN\nENDPROGRAM\n' >"$tmpd/prog.irm"
expect_exit 65 "is not a machine file" "$tmpd/prog.irm" info || fail=1
head -c 3000 /dev/urandom >"$tmpd/noise.irm"
expect_exit 65 "noise.irm:" "$tmpd/noise.irm" info || fail=1

# ---- hostile arguments: whatever happens, a defined exit status and no crash ----
for args in "--q" "-" "--" "$P --" "$P id --q=" "$P id --q=,,,," "$P id --q -0x1p3,0,0,0,0,0" \
            "$P fk --link ''" "$P id --q 1e308,1e308,1e308,1e308,1e308,1e308 --qd 1e308,1e308,1e308,1e308,1e308,1e308" \
            "$P ik --pose 1e308,0,0,1,0,0,0" "$P ik --pose 0.4,0.1,0.3,1e-300,0,0,0" "$C ik --pose 8,0,0,2,0,0,0" \
            "$C fd --q 0,1.5707963267948966,0" "$P fk --link tool" "/dev/null info" "/dev/zero info" \
            "$P info --plugin $P" "$P info --plugin /dev/null" "$P id --gravity 1e308,1e308,1e308"; do
    # shellcheck disable=SC2086
    eval "\"\$IRL\" model $args" >"$tmpd/out" 2>"$tmpd/err"; rc=$?
    case $rc in 0|1|64|65|66) ;; *) echo "FAIL exit $rc: irl model $args"; head -5 "$tmpd/err"; fail=1 ;; esac
    if grep -qE 'Sanitizer|runtime error:' "$tmpd/err"; then echo "FAIL sanitizer: irl model $args"; head "$tmpd/err"; fail=1; fi
    if [ $rc != 0 ] && [ -s "$tmpd/out" ]; then echo "FAIL stdout on error: irl model $args"; fail=1; fi
done

# ---- the JSON answers ----
if ! command -v python3 >/dev/null; then
    echo "note: python3 absent, JSON shapes not checked"; exit $fail
fi
# ans NAME ARGS...: irl model ARGS into $tmpd/NAME.json (a failure leaves $tmpd/failed).
ans() { local f="$tmpd/$1.json"; shift; "$IRL" model "$@" >"$f" 2>"$tmpd/err" || { echo "FAIL exit $?: irl model $*"; cat "$tmpd/err"; touch "$tmpd/failed"; }; }
field() { python3 -c 'import json,sys; print(",".join(repr(x) for x in json.load(open(sys.argv[1]))[sys.argv[2]]))' "$tmpd/$1.json" "$2"; }
ans info $P info; ans uinfo models/puma560.urdf info; ans cinfo $C info
ans fk $P fk --q $Q; ans fk6 $P fk --q $Q --link link6; ans fk2 $P fk --q=$Q --link j3
ans J $P jacobian --q $Q; ans s $P singularity --q $Q
ans id $P id --q $Q --qd $QD --qdd $QDD; ans M $P mass --q $Q; ans h $P bias --q $Q --qd $QD
ans id0 $P id; ans g0 $P id --q $Q --gravity 0,0,0
ans fd $P fd --q $Q --qd $QD --tau "$(field id tau)"
pose=$(python3 - "$tmpd/fk.json" <<'PY'
import json, math, sys
a = json.load(open(sys.argv[1])); R = a["rotation"]
# rotation matrix -> quaternion (w, x, y, z), trace method (R is well away from 180 deg here)
w = math.sqrt(max(0.0, 1 + R[0][0] + R[1][1] + R[2][2])) / 2
x = (R[2][1] - R[1][2]) / (4 * w); y = (R[0][2] - R[2][0]) / (4 * w); z = (R[1][0] - R[0][1]) / (4 * w)
print(",".join(repr(v) for v in a["position"] + [w, x, y, z]))
PY
)
ans ik $P ik --pose "$pose" --q 0.2,0.4,-0.2,0.6,0.5,-1.1
ans out $P outputs --q $Q; ans cout $C outputs --q 0,0.3,0 --qd 2,0,0
ans semi $P semi --q $Q --qd $QD --qdd $QDD
[ -e "$tmpd/failed" ] && fail=1
cd "$tmpd" || exit 1
python3 - info.json uinfo.json cinfo.json fk.json fk6.json fk2.json J.json s.json id.json M.json h.json id0.json \
    g0.json fd.json ik.json out.json cout.json semi.json "$QDD" "$pose" <<'PY' || fail=1
import json, math, re, sys
(info, uinfo, cinfo, fk, fk6, fk2, J, s, id_, M, h, id0, g0, fd, ik, out, cout, semi) = [
    json.load(open(p)) for p in sys.argv[1:19]]
qdd = [float(x) for x in sys.argv[19].split(",")]
pose = [float(x) for x in sys.argv[20].split(",")]
bad = 0
def check(cond, what):
    global bad
    if not cond:
        bad += 1
        print("FAIL", what)
def isnum(x): return isinstance(x, (int, float)) and not isinstance(x, bool)
def vec(v, n): return isinstance(v, list) and len(v) == n and all(isnum(x) for x in v)
def mat(m, r, c): return isinstance(m, list) and len(m) == r and all(vec(row, c) for row in m)

check(set(info) == {"name", "backend", "dof", "joints"}, "info keys %s" % sorted(info))
check(info["name"] == "puma560" and info["backend"] == "chain" and info["dof"] == 6, "info name/backend/dof")
check(len(info["joints"]) == 6, "info: 6 joints")
for j in info["joints"] + uinfo["joints"] + cinfo["joints"]:
    check(set(j) == {"name", "type", "min", "max", "vmax", "amax", "jmax", "effort"}, "joint keys %s" % sorted(j))
    check(j["type"] in ("revolute", "prismatic"), "joint type")
    for k in ("min", "max", "vmax", "amax", "jmax", "effort"):
        check(j[k] is None or isnum(j[k]), "limit %s is a number or null" % k)
j1 = info["joints"][0]
check(j1["name"] == "j1" and abs(j1["min"] + math.radians(160)) < 1e-15 and abs(j1["max"] - math.radians(160)) < 1e-15,
      "puma j1 limits +-160 deg in rad")
check(j1["vmax"] is None and j1["effort"] is None, "absent limits are null")
check(uinfo["joints"][0]["effort"] == 100 and uinfo["joints"][0]["vmax"] == 3, "urdf limits read")
c0 = cinfo["joints"][0]
check(cinfo["backend"] == "centrifuge" and c0["min"] is None and c0["max"] is None and c0["effort"] == 1.2e6,
      "centrifuge planetary: unlimited position, 1.2 MN m")

for a in (fk, fk6, fk2):
    check(set(a) == {"position", "rotation"} and vec(a["position"], 3) and mat(a["rotation"], 3, 3), "fk shape")
R = fk["rotation"]
for i in range(3):
    for k in range(3):
        d = sum(R[i][m] * R[k][m] for m in range(3))
        check(abs(d - (i == k)) < 1e-12, "fk rotation orthonormal")
check(fk6 == fk, "--link link6 is the tool (the PUMA's tool is link 6's frame)")
check(abs(math.sqrt(sum(x * x for x in fk2["position"])) - 0.4318) < 1e-12,
      "--link j3: link 3's origin sits a2 = 0.4318 m from the base origin")
# 17 significant digits: a number that is not short prints with 17.
txt = open(sys.argv[4]).read()
longest = max(len(re.sub(r"[-.]|e.*", "", t).lstrip("0")) for t in re.findall(r"-?[0-9][0-9.e+-]*", txt))
check(longest == 17, "numbers carry 17 significant digits (saw %d)" % longest)

check(set(J) == {"J"} and mat(J["J"], 6, 6), "jacobian 6x6")
check(set(s) == {"measure"} and isnum(s["measure"]) and 0 < s["measure"] <= 1, "singularity measure")
check(set(id_) == {"tau"} and vec(id_["tau"], 6), "id shape")
check(set(M) == {"M"} and mat(M["M"], 6, 6), "mass shape")
Mm = M["M"]
check(all(abs(Mm[i][k] - Mm[k][i]) <= 1e-14 * max(1, abs(Mm[i][k])) for i in range(6) for k in range(6)), "M symmetric")
check(set(h) == {"h"} and vec(h["h"], 6), "bias shape")
# tau = M qdd + h
for i in range(6):
    t = sum(Mm[i][k] * qdd[k] for k in range(6)) + h["h"][i]
    check(abs(t - id_["tau"][i]) <= 1e-12 * max(1, abs(t)), "tau = M qdd + h, row %d" % i)
check(abs(id0["tau"][1] - 37.48366665) < 1e-6 and id0["tau"][0] == 0, "defaults: zeros, gravity -9.81 z (puma at q=0)")
check(all(x == 0 for x in g0["tau"]), "--gravity 0,0,0 at rest: no torque")
check(set(fd) == {"qdd"} and vec(fd["qdd"], 6), "fd shape")
check(all(abs(a - b) < 1e-9 * max(1, abs(b)) for a, b in zip(fd["qdd"], qdd)), "fd(id(qdd)) = qdd: %s" % fd["qdd"])
check(set(ik) == {"q", "iterations", "residual"} and vec(ik["q"], 6) and isinstance(ik["iterations"], int)
      and isnum(ik["residual"]), "ik shape")
check(ik["residual"] < 1e-9 and ik["iterations"] > 0, "ik converged: residual %s" % ik["residual"])
check(out == {"names": [], "values": []}, "chain: no extra outputs")
check(set(cout) == {"names", "values"} and len(cout["names"]) == len(cout["values"]) == 7, "centrifuge outputs")
G = dict(zip(cout["names"], cout["values"]))
# steady spin 2 rad/s on an 8 m arm, 9.81: G = sqrt((8*4)^2 + 9.81^2)/9.81
check(abs(G["G"] - math.hypot(32, 9.81) / 9.81) < 1e-12 and G["omega"] == 2, "centrifuge G at 2 rad/s: %s" % G["G"])
check(set(semi) == {"qdd", "tau"} and semi["qdd"] == qdd and
      all(abs(a - b) < 1e-12 * max(1, abs(b)) for a, b in zip(semi["tau"], id_["tau"])), "semi with all powered = id")
sys.exit(1 if bad else 0)
PY
cd - >/dev/null || exit 1
# --link on a machine with a mimic joint in the middle of the file (a finger on link 1 following j1, then j2): j2 is
# axis 2 and its link is link2; the follower's link is selectable and sits where the same tree with the follower
# set by hand (q_f = 0.5 q1 + 0.01) puts it.
urdf() { # $1: the finger's <mimic> element, or nothing (a joint of its own)
    cat <<URDF
<robot name="m"><link name="base"/><link name="link1"/><link name="fingerpad"/><link name="link2"/>
<joint name="j1" type="revolute"><parent link="base"/><child link="link1"/><axis xyz="0 0 1"/>
  <limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
<joint name="jf" type="prismatic"><parent link="link1"/><child link="fingerpad"/><origin xyz="0.1 0.2 0.3"/>
  <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/>$1</joint>
<joint name="j2" type="revolute"><parent link="link1"/><child link="link2"/><origin xyz="0.5 0 0"/><axis xyz="0 1 0"/>
  <limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
</robot>
URDF
}
urdf '<mimic joint="j1" multiplier="0.5" offset="0.01"/>' >"$tmpd/mimic.urdf"
urdf '' >"$tmpd/free.urdf"
ans mf "$tmpd/mimic.urdf" fk --q 0.4,0.7 --link fingerpad
ans hf "$tmpd/free.urdf" fk --q 0.4,0.21,0.7 --link fingerpad
same_numbers "$(field mf position)" "$(field hf position)" 1e-12 "--link on a mimic joint's follower" || fail=1
ans mj "$tmpd/mimic.urdf" fk --q 0.4,0.7 --link jf
same_numbers "$(field mj position)" "$(field hf position)" 1e-12 "--link by the follower joint's name" || fail=1
ans m2 "$tmpd/mimic.urdf" fk --q 0.4,0.7 --link link2
ans h2 "$tmpd/free.urdf" fk --q 0.4,0.21,0.7 --link link2
same_numbers "$(field m2 position)" "$(field h2 position)" 1e-12 "--link link2 after a follower in the file" || fail=1
expect_exit 64 "(links: link1 link2 fingerpad, tool)" "$tmpd/mimic.urdf" fk --link nolink || fail=1
[ -e "$tmpd/failed" ] && fail=1

# ik's answer reaches the pose: fk(ik(q)) position equals the asked one.
ans back $P fk --q "$(field ik q)"
same_numbers "$(field fk position)" "$(field back position)" 1e-9 "fk(ik(fk(q))) position" || fail=1
exit $fail
