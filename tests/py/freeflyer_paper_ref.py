#!/usr/bin/env python3
"""freeflyer_paper_ref.py — seed 004's experiment integrated independently of irl's C code, from the paper's own
equations as corrected by /work/shared/ERRATA.md (Parlaktuna, Özkan, Munyas: Appendix A, eqs. 9, 12-16), and
compared with dry-run traces of programs/freeflyer_paper.irl.

The model (Table 1; q = [alpha, theta1, theta2]; body 1 is the base):
  r_i = R_i sum_{k<=i} m_k / M, l_i = L_i sum_{k<i} m_k / M (eqs. 6-7), A..E from them (after eq. 5);
  a1..a6 of Appendix A with ERRATA F3-F5 (a1 = m1 R1^2 (m2+m3)/M, a4 = m1 (r1-R1) A + (m2 C + m3 D) r1,
  a5 = m1 (r1-R1) B + (m2 B + m3 E) r1); M(q) and C(q, qdot) as Appendix A prints them;
  M qdd + C qdot = [0, tau1, tau2] (eq. 9).
The controller (eq. 16): tau = H (thd_dd + Kv edot + Kp e) + gamma with H of eq. 13, k1 = M21/M11,
k2 = M31/M11, and gamma the 2x1 Schur companion of ERRATA F8: gamma_i = (C qdot)_{i+1} - k_i (C qdot)_1.
Desired: theta_d = (0.5 sin pi t, 0.5 cos pi t); Kp = 80, Kv = 10; start at rest at q = 0.
Integration: scipy's solve_ivp, DOP853, rtol = atol = 1e-12, controller evaluated continuously.

Usage: freeflyer_paper_ref.py TRACE.csv [TRACE2.csv ...] [--tol-rad 1e-6] [--tol-nm 1e-5]
Prints the largest difference of the base angle, the joint angles and the torques per trace; exit 1 when one is
beyond its tolerance. The torques are compared from the first cycle on (t > 0): the row at t = 0 is taken before
the program starts, when the setpoint still stands (zero speed), so its torque is not eq. 16's on theta_d(0).
With --write FILE it writes the reference (t, alpha, theta1, theta2, tau1, tau2) every ms as CSV.
"""
import csv
import math
import sys

import numpy as np
from scipy.integrate import solve_ivp

# Table 1 (body 1 = base, 2 and 3 = the links)
m1, m2, m3 = 4.0, 1.0, 1.0
R1, R2, R3 = 0.5, 0.5, 0.5
L2, L3 = 0.5, 0.5
I1, I2, I3 = 0.4, 0.1, 0.1
M = m1 + m2 + m3
r1, r2, r3 = R1 * m1 / M, R2 * (m1 + m2) / M, R3 * (m1 + m2 + m3) / M
l2, l3 = L2 * m1 / M, L3 * (m1 + m2) / M
A = r2 + l2 - R2 - L2
B = r3 + l3 - R3 - L3
C_ = r2 + l2 - R2
D = r2 + l2
E = r3 + l3 - R3
a1 = m1 * (r1 - R1) ** 2 + (m2 + m3) * r1 ** 2          # F3: = m1 R1^2 (m2 + m3) / M
a2 = m1 * A ** 2 + m2 * C_ ** 2 + m3 * D ** 2
a3 = m1 * B ** 2 + m2 * B ** 2 + m3 * E ** 2
a4 = m1 * (r1 - R1) * A + (m2 * C_ + m3 * D) * r1        # F4
a5 = m1 * (r1 - R1) * B + (m2 * B + m3 * E) * r1         # F5
a6 = m1 * A * B + m2 * B * C_ + m3 * D * E
KP, KV, AMP, W = 80.0, 10.0, 0.5, math.pi


def mass(q):
    c1, c2, c12 = math.cos(q[1]), math.cos(q[2]), math.cos(q[1] + q[2])
    m11 = a1 + a2 + a3 + 2 * a4 * c1 + 2 * a5 * c12 + 2 * a6 * c2 + I1 + I2 + I3
    m12 = a2 + a3 + a4 * c1 + a5 * c12 + 2 * a6 * c2 + I2 + I3
    m13 = a3 + a5 * c12 + a6 * c2 + I3
    m22 = a2 + a3 + 2 * a6 * c2 + I2 + I3
    m23 = a3 + a6 * c2 + I3
    m33 = a3 + I3
    return np.array([[m11, m12, m13], [m12, m22, m23], [m13, m23, m33]])


def coriolis(q, qd):
    s1, s2, s12 = math.sin(q[1]), math.sin(q[2]), math.sin(q[1] + q[2])
    ad, t1d, t2d = qd
    a1d, a12d = ad + t1d, ad + t1d + t2d   # alpha_1 dot, alpha_12 dot
    return np.array([
        [-a4 * s1 * t1d - a5 * s12 * (t1d + t2d) - a6 * s2 * t2d,
         -a4 * a1d * s1 - a5 * a12d * s12 - a6 * s2 * t2d,
         -a5 * a12d * s12 - a6 * a12d * s2],
        [a4 * ad * s1 + a5 * ad * s12 - a6 * t2d * s2, -a6 * t2d * s2, -a6 * a12d * s2],
        [a5 * ad * s12 + a6 * a1d * s2, a6 * a1d * s2, 0.0]])


def desired(t):
    s, c = math.sin(W * t), math.cos(W * t)
    return (np.array([AMP * s, AMP * c]), np.array([AMP * W * c, -AMP * W * s]),
            np.array([-AMP * W * W * s, -AMP * W * W * c]))


def control(t, q, qd):
    """eq. 16 with H of eq. 13 and gamma of ERRATA F8"""
    Mq, cq = mass(q), coriolis(q, qd) @ qd
    k1, k2 = Mq[1, 0] / Mq[0, 0], Mq[2, 0] / Mq[0, 0]
    H = np.array([[Mq[1, 1] - k1 * Mq[0, 1], Mq[1, 2] - k1 * Mq[0, 2]],
                  [Mq[2, 1] - k2 * Mq[0, 1], Mq[2, 2] - k2 * Mq[0, 2]]])
    gamma = np.array([cq[1] - k1 * cq[0], cq[2] - k2 * cq[0]])
    th, thd, thdd = desired(t)
    e, ed = th - q[1:], thd - qd[1:]
    return H @ (thdd + KV * ed + KP * e) + gamma


def rhs(t, y):
    q, qd = y[:3], y[3:]
    tau = control(t, q, qd)
    rhs_ = np.array([0.0, tau[0], tau[1]]) - coriolis(q, qd) @ qd
    return np.concatenate([qd, np.linalg.solve(mass(q), rhs_)])


def reference(t_end=10.0, dt=1e-3):
    n = int(round(t_end / dt))
    ts = np.arange(n + 1) * dt
    sol = solve_ivp(rhs, (0.0, t_end), np.zeros(6), method="DOP853", rtol=1e-12, atol=1e-12, t_eval=ts)
    if not sol.success:
        raise SystemExit("solve_ivp failed: " + sol.message)
    taus = np.array([control(t, sol.y[:3, k], sol.y[3:, k]) for k, t in enumerate(ts)])
    return ts, sol.y[:3].T, taus


def read_trace(path):
    with open(path, newline="") as f:
        rd = csv.reader(f)
        head = next(rd)
        rows = [r for r in rd if r and not r[0].startswith("#")]
    col = {h: i for i, h in enumerate(head)}
    want = ["t", "ff.qa1.alpha", "ff.qa2.shoulder", "ff.qa3.elbow", "ff.tau2.shoulder", "ff.tau3.elbow"]
    missing = [w for w in want if w not in col]
    if missing:
        raise SystemExit(f"{path}: no column {', '.join(missing)}")
    return np.array([[float(r[col[w]]) for w in want] for r in rows])


def main(argv):
    paths, tol_rad, tol_nm, write = [], 1e-6, 1e-5, None
    it = iter(argv)
    for a in it:
        if a == "--tol-rad": tol_rad = float(next(it))
        elif a == "--tol-nm": tol_nm = float(next(it))
        elif a == "--write": write = next(it)
        else: paths.append(a)
    ts, q, tau = reference()
    if write:
        with open(write, "w") as f:
            f.write("t,alpha,theta1,theta2,tau1,tau2\n")
            for k, t in enumerate(ts):
                f.write(f"{t:.3f},{q[k,0]:.15g},{q[k,1]:.15g},{q[k,2]:.15g},{tau[k,0]:.15g},{tau[k,1]:.15g}\n")
    bad = 0
    for p in paths:
        tr = read_trace(p)
        if tr.shape[0] != ts.size or np.max(np.abs(tr[:, 0] - ts)) > 1e-9:
            print(f"{p}: {tr.shape[0]} rows, expected {ts.size} at 1 ms from 0 to 10 s")
            bad = 1
            continue
        names = ["base alpha", "theta1", "theta2"]
        for j in range(3):
            d = np.abs(tr[:, 1 + j] - q[:, j])
            k = int(np.argmax(d))
            ok = d[k] <= tol_rad
            bad |= not ok
            print(f"{p}: {names[j]:10s} max |irl - ref| {d[k]:.3g} rad at t = {ts[k]:.3f} s "
                  f"({'ok' if ok else 'BEYOND'} {tol_rad:g} rad)")
        for j in range(2):
            d = np.abs(tr[1:, 4 + j] - tau[1:, j])
            k = int(np.argmax(d))
            ok = d[k] <= tol_nm
            bad |= not ok
            print(f"{p}: tau{j + 1}       max |irl - ref| {d[k]:.3g} N*m at t = {ts[k + 1]:.3f} s "
                  f"({'ok' if ok else 'BEYOND'} {tol_nm:g} N*m)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
