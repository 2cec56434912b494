#!/usr/bin/env python3
"""urdf_for_mujoco.py IN.urdf OUT.urdf — the same robot, re-expressed so that MuJoCo's URDF importer reads it
without approximation (tests/unit/test_urdf_mujoco.c compares irl's inverse dynamics of IN with MuJoCo's of OUT).

MuJoCo 2.2.2 diagonalises a full inertia tensor, and the sum it forms when it fuses a fixed link into its parent,
by an eigen-decomposition good to only about 1e-9 relative. This script does both exactly (to round-off), reading
the file with nothing of irl's, so that the two sides share only the file:
  - <visual> and <collision> are dropped (their package:// meshes are absent; they carry no dynamics);
  - every fixed joint is removed: its child link's inertial is added to the parent's (masses summed, the centre
    of mass is the mass-weighted mean, inertias moved to it by the parallel-axis theorem), and the child's own
    joints hang from the parent with their origins composed with the fixed joint's;
  - every inertia is rotated to its principal axes (cyclic Jacobi to round-off): the output's <inertial> has an
    <origin rpy> that is those axes and ixy = ixz = iyz = 0, the same tensor in another frame;
  - <dynamics>, <transmission> and everything else without mass or geometry are left out (the test zeroes
    MuJoCo's damping, armature and friction loss).
Numbers are written with 17 significant digits. Only the Python standard library is used."""
import math
import sys
import xml.etree.ElementTree as ET


def rpy_to_R(r, p, y):
    """URDF's fixed-axis roll, pitch, yaw: R = Rz(y) Ry(p) Rx(r)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def R_to_rpy(R):
    return (math.atan2(R[2][1], R[2][2]), math.atan2(-R[2][0], math.hypot(R[2][1], R[2][2])),
            math.atan2(R[1][0], R[0][0]))


def mul(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def tr(A):
    return [[A[j][i] for j in range(3)] for i in range(3)]


def mulv(A, v):
    return [sum(A[i][k] * v[k] for k in range(3)) for i in range(3)]


def det(A):
    return (A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0])
            + A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]))


def nums(s, n, default):
    if s is None:
        return list(default)
    v = [float(x) for x in s.split()]
    if len(v) != n:
        sys.exit("urdf_for_mujoco: expected %d numbers in %r" % (n, s))
    return v


def origin(elem):
    """(R, p) of an element's <origin>, identity when absent."""
    o = elem.find("origin")
    xyz = nums(o.get("xyz") if o is not None else None, 3, (0, 0, 0))
    rpy = nums(o.get("rpy") if o is not None else None, 3, (0, 0, 0))
    return rpy_to_R(*rpy), xyz


def jacobi(A):
    """Eigen-decomposition of a symmetric 3x3 matrix: (values, V) with A = V diag(values) V^T, to round-off."""
    A = [row[:] for row in A]
    V = [[1.0 if i == j else 0.0 for j in range(3)] for i in range(3)]
    for _ in range(50):
        off = sum(A[i][j] ** 2 for i in range(3) for j in range(3) if i != j)
        if off == 0 or off <= 1e-40 * sum(A[i][i] ** 2 for i in range(3)):
            break
        for p, q in ((0, 1), (0, 2), (1, 2)):
            if A[p][q] == 0:
                continue
            theta = (A[q][q] - A[p][p]) / (2 * A[p][q])
            t = math.copysign(1.0, theta) / (abs(theta) + math.sqrt(theta * theta + 1))
            c = 1 / math.sqrt(t * t + 1)
            s = t * c
            for k in range(3):  # A <- J^T A J, V <- V J with J the rotation in the (p, q) plane
                akp, akq = A[k][p], A[k][q]
                A[k][p], A[k][q] = c * akp - s * akq, s * akp + c * akq
            for k in range(3):
                apk, aqk = A[p][k], A[q][k]
                A[p][k], A[q][k] = c * apk - s * aqk, s * apk + c * aqk
            for k in range(3):
                vkp, vkq = V[k][p], V[k][q]
                V[k][p], V[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
    return [A[i][i] for i in range(3)], V


def principal(I):
    """(values, R) with I = R diag(values) R^T, R a rotation whose rpy is far from gimbal lock."""
    vals, V = jacobi(I)
    best = None
    for perm in ((0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 0, 2)):
        for sgn in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1), (-1, -1, -1), (-1, 1, 1), (1, -1, 1), (1, 1, -1)):
            R = [[sgn[j] * V[i][perm[j]] for j in range(3)] for i in range(3)]
            if det(R) > 0 and (best is None or abs(R[2][0]) < abs(best[1][2][0])):
                best = ([vals[k] for k in perm], R)
    return best


class Inertial:
    """Mass, centre of mass and inertia about it, all in the owning link's frame."""

    def __init__(self, m, c, I):
        self.m, self.c, self.I = m, c, I

    def moved(self, R, p):
        """The same body seen from a frame in which this link's frame is at (R, p)."""
        return Inertial(self.m, [a + b for a, b in zip(mulv(R, self.c), p)], mul(mul(R, self.I), tr(R)))

    def plus(self, o):
        m = self.m + o.m
        if m == 0:
            return self
        c = [(self.m * a + o.m * b) / m for a, b in zip(self.c, o.c)]
        I = [[0.0] * 3 for _ in range(3)]
        for b in (self, o):
            d = [b.c[k] - c[k] for k in range(3)]
            dd = sum(x * x for x in d)
            for i in range(3):
                for j in range(3):
                    I[i][j] += b.I[i][j] + b.m * ((dd if i == j else 0.0) - d[i] * d[j])
        return Inertial(m, c, I)


def read_inertial(link):
    e = link.find("inertial")
    if e is None:
        return None
    R, p = origin(e)
    m = float(e.find("mass").get("value"))
    t = e.find("inertia")
    g = {k: float(t.get(k, "0")) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    I = [[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]]
    return Inertial(m, [0.0, 0.0, 0.0], I).moved(R, p)


def f(x):
    return "%.17g" % x


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: urdf_for_mujoco.py IN.urdf OUT.urdf")
    robot = ET.parse(sys.argv[1]).getroot()
    links = {l.get("name"): read_inertial(l) for l in robot.findall("link")}
    joints = []
    for j in robot.findall("joint"):
        R, p = origin(j)
        joints.append({"e": j, "name": j.get("name"), "type": j.get("type"), "parent": j.find("parent").get("link"),
                       "child": j.find("child").get("link"), "R": R, "p": p})
    while True:
        fixed = next((j for j in joints if j["type"] == "fixed"), None)
        if fixed is None:
            break
        par, ch, R, p = fixed["parent"], fixed["child"], fixed["R"], fixed["p"]
        if links[ch] is not None:
            moved = links[ch].moved(R, p)
            links[par] = moved if links[par] is None else links[par].plus(moved)
        for j in joints:
            if j["parent"] == ch:
                j["parent"], j["R"], j["p"] = par, mul(R, j["R"]), [a + b for a, b in zip(mulv(R, j["p"]), p)]
                j["moved"] = True
        joints.remove(fixed)
        del links[ch]

    out = ET.Element("robot", name=robot.get("name", "robot"))
    for name, b in links.items():
        le = ET.SubElement(out, "link", name=name)
        if b is None:
            continue
        vals, R = principal(b.I)
        ie = ET.SubElement(le, "inertial")
        ET.SubElement(ie, "origin", xyz=" ".join(map(f, b.c)), rpy=" ".join(map(f, R_to_rpy(R))))
        ET.SubElement(ie, "mass", value=f(b.m))
        ET.SubElement(ie, "inertia", ixx=f(vals[0]), ixy="0", ixz="0", iyy=f(vals[1]), iyz="0", izz=f(vals[2]))
    for j in joints:
        je = ET.SubElement(out, "joint", name=j["name"], type=j["type"])
        if j.get("moved"):
            ET.SubElement(je, "origin", xyz=" ".join(map(f, j["p"])), rpy=" ".join(map(f, R_to_rpy(j["R"]))))
        elif j["e"].find("origin") is not None:  # as written: no round trip through rpy
            je.append(j["e"].find("origin"))
        ET.SubElement(je, "parent", link=j["parent"])
        ET.SubElement(je, "child", link=j["child"])
        for tag in ("axis", "limit", "mimic"):
            e = j["e"].find(tag)
            if e is not None:
                je.append(e)
    ET.ElementTree(out).write(sys.argv[2], xml_declaration=True, encoding="utf-8")


main()
