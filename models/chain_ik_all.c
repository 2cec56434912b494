/* chain_ik_all.c — every inverse-kinematics solution of a chain (the ik_all operation): in closed form for a 6R arm
 * with a spherical wrist, recognised from its geometry at q = 0 (axis 1 not parallel to axis 2, axes 2 and 3
 * parallel, axes 4, 5 and 6 through one point), by a deterministic multi-start damped least squares otherwise;
 * each solution with its configuration (shoulder, elbow, wrist flip), its turns and its joint limits checked,
 * nearest the reference first. The closed form follows Paden-Kahan's subproblems on the product of exponentials. */
#include "chain_internal.h"
#include "dmath.h"
#include "spd_solve.h"

#define IKA_GEOM_TOL 1e-4 /* m, rad: the geometry counts as a spherical wrist within it (the answers are polished) */
#define IKA_TOL 1e-12     /* an answer's residual, |dp| (m) + |dtheta| (rad) */
#define IKA_ACCEPT 1e-10  /* a polished candidate further than this is no answer */
#define IKA_SAME 1e-6     /* two answers within this (rad, m) in every joint are one */
#define IKA_SEEDS 64      /* multi-start seeds besides the reference */
#define IKA_CAND 64       /* answers collected before the turns are expanded */

/* The spherical-wrist geometry at q = 0, world frame. */
typedef struct {
    double w[6][3], r[6][3]; /* joint axes and a point on each */
    double c0[3];            /* the wrist centre */
    double c4[3];            /* the wrist centre in link 4's frame */
    double p0[3], R0[9];     /* the tool pose */
    double f[3], f1[3];      /* "front": from axis 1 towards the wrist centre, perpendicular to axis 1; in link 1 */
    double q3s, q5s;         /* joint 3 with the arm stretched, joint 5 with axes 4 and 6 aligned */
    int plus_up;             /* 1: q3 above q3s is elbow up */
} IkaGeom;

/* World transforms of every link at q into Rw, pw, and the tool pose. */
static void ika_fk(Chain *c, const double *q, double (*Rw)[9], double (*pw)[3], double p[3], double R[9])
{
    double cq[N_MAX], sq[N_MAX];
    chain_trig(c, q, cq, sq);
    chain_fk_world_trig(c, q, cq, sq, Rw, pw);
    chain_tool_pose_at(c, (const double (*)[9])Rw, (const double (*)[3])pw, p, R);
}

/* Pose error at q into e (position, then the rotation vector when Rt); returns |e_p| + |e_r|. */
static double ika_err(Chain *c, const double *q, const double pos[3], const double *Rt, double (*Rw)[9],
                      double (*pw)[3], double e[6])
{
    double p[3], R[9];
    ika_fk(c, q, Rw, pw, p, R);
    v3_sub(e, pos, p);
    if (Rt) m3_rotation_error(e + 3, R, Rt);
    else v3_set(e + 3, 0, 0, 0);
    return v3_norm(e) + v3_norm(e + 3);
}

/* Damped least squares from q (in place), at most iters steps; clamp: projected onto the joint limits. Returns the
 * residual reached. */
static double ika_lm(Chain *c, double *q, const double pos[3], const double *Rt, int clamp, int iters)
{
    int n = c->n, rows = Rt ? 6 : 3;
    double Rw[N_MAX][9], pw[N_MAX][3], e[6], et[6], J[6 * N_MAX], qt[N_MAX], lambda = 1e-3;
    double r = ika_err(c, q, pos, Rt, Rw, pw, e), e2 = v3_dot(e, e) + v3_dot(e + 3, e + 3);
    for (int it = 0; it < iters && r > IKA_TOL; it++) {
        double x[3];
        chain_tool_pose_at(c, (const double (*)[9])Rw, (const double (*)[3])pw, x, NULL);
        chain_jac_rows(c, (const double (*)[9])Rw, (const double (*)[3])pw, c->tool_link, x, rows, 1.0, J);
        int better = 0;
        while (!better && lambda < 1e6) {
            double A[36], y[6];
            for (int a = 0; a < rows; a++) {
                for (int b = 0; b < rows; b++) {
                    double s = 0;
                    for (int j = 0; j < n; j++) s += J[a * n + j] * J[b * n + j];
                    A[a * 6 + b] = s + (a == b ? lambda * lambda : 0);
                }
                y[a] = e[a];
            }
            if (spd_solve(A, y, rows, 6, 0) < 0) { lambda *= 10; continue; }
            for (int j = 0; j < n; j++) {
                double d = 0;
                for (int a = 0; a < rows; a++) d += J[a * n + j] * y[a];
                qt[j] = q[j] + d;
                if (clamp) qt[j] = fmin(fmax(qt[j], c->j[j].qmin), c->j[j].qmax);
            }
            double rt = ika_err(c, qt, pos, Rt, Rw, pw, et), e2t = v3_dot(et, et) + v3_dot(et + 3, et + 3);
            if (e2t < e2) {
                better = 1;
                memcpy(q, qt, (size_t)n * sizeof *q);
                memcpy(e, et, sizeof e);
                e2 = e2t, r = rt;
                lambda = fmax(lambda * 0.1, 1e-12);
            } else {
                lambda *= 10;
            }
        }
        if (!better) break; /* else Rw, pw and e are already q's: the accepted trial's */
    }
    return r;
}

/* Rotation of the vector v about the unit axis w by th. */
static void ika_rot(double out[3], const double w[3], double th, const double v[3])
{
    double R[9];
    m3_axis_angle(R, w, th);
    m3_mulv(out, R, v);
}

/* Subproblem 1: the angle about the axis (w through r) that turns point p into point t. 1 when p lies on the axis
 * (the angle is free), else 0. */
static int ika_sp1(const double w[3], const double r[3], const double p[3], const double t[3], double *th)
{
    double u[3], v[3], x[3];
    v3_sub(u, p, r), v3_sub(v, t, r);
    v3_axpy(u, -v3_dot(w, u), w), v3_axpy(v, -v3_dot(w, v), w);
    if (v3_norm(u) < 1e-12 || v3_norm(v) < 1e-12) return 1;
    v3_cross(x, u, v);
    *th = dm_atan2(v3_dot(w, x), v3_dot(u, v));
    return 0;
}

/* a cos th + b sin th = d: its two solutions (equal at a tangent). Returns 2, 0 when none (*excess = |d| - rho),
 * -1 when a and b vanish (th is free). */
static int ika_trig(double a, double b, double d, double th[2], double *excess)
{
    double rho = dm_hypot(a, b);
    if (rho < 1e-12) return -1;
    double x = d / rho;
    if (fabs(x) > 1) {
        if (fabs(x) > 1 + 1e-9) { *excess = fabs(d) - rho; return 0; }
        x = x > 0 ? 1 : -1;
    }
    double phi = dm_atan2(b, a), al = dm_acos(x);
    th[0] = phi + al, th[1] = phi - al;
    return 2;
}

/* The closest points of two lines (p + s u, q + t v, unit u, v): their midpoint into m; returns their distance, or
 * INFINITY for parallel lines. */
static double ika_lines(const double p[3], const double u[3], const double q[3], const double v[3], double m[3])
{
    double w0[3], uv = v3_dot(u, v), den = 1 - uv * uv;
    if (den < 1e-12) return INFINITY;
    v3_sub(w0, p, q);
    double d = v3_dot(u, w0), e = v3_dot(v, w0), s = (uv * e - d) / den, t = (e - uv * d) / den, a[3], b[3], x[3];
    v3_copy(a, p), v3_axpy(a, s, u);
    v3_copy(b, q), v3_axpy(b, t, v);
    v3_sub(x, a, b);
    for (int k = 0; k < 3; k++) m[k] = 0.5 * (a[k] + b[k]);
    return v3_norm(x);
}

/* Distance of point x from the line through p along the unit u. */
static double ika_line_dist(const double p[3], const double u[3], const double x[3])
{
    double d[3], k[3];
    v3_sub(d, x, p);
    v3_cross(k, u, d);
    return v3_norm(k);
}

/* Recognise a 6R serial arm with a spherical wrist and fill g. Returns 1 when it is one. */
static int ika_geometry(Chain *c, IkaGeom *g)
{
    if (c->n != 6 || c->tool_link != 5) return 0;
    for (int i = 0; i < 6; i++)
        if (!c->j[i].revolute || c->j[i].parent != i - 1) return 0;
    double q0[6] = {0}, Rw[N_MAX][9], pw[N_MAX][3], x[3];
    ika_fk(c, q0, Rw, pw, g->p0, g->R0);
    for (int i = 0; i < 6; i++) {
        m3_mulv(g->w[i], Rw[i], c->j[i].axis);
        v3_scale(g->w[i], g->w[i], 1 / v3_norm(g->w[i]));
        v3_copy(g->r[i], pw[i]);
    }
    v3_cross(x, g->w[0], g->w[1]);
    if (v3_norm(x) < 0.1) return 0;
    v3_cross(x, g->w[1], g->w[2]);
    if (v3_norm(x) > IKA_GEOM_TOL) return 0;
    if (ika_lines(g->r[3], g->w[3], g->r[4], g->w[4], g->c0) > IKA_GEOM_TOL) return 0;
    if (ika_line_dist(g->r[5], g->w[5], g->c0) > IKA_GEOM_TOL) return 0;
    /* the wrist centre must not lie on axis 3 (then axes 2 and 3 could not place it) */
    if (ika_line_dist(g->r[2], g->w[2], g->c0) < 1e-6) return 0;
    double d[3];
    v3_sub(d, g->c0, g->r[3]);
    m3_tmulv(g->c4, Rw[3], d);
    /* front: perpendicular to axes 1 and 2 (so that a lateral shoulder offset does not count), towards the wrist
     * centre at q = 0 (else towards axis 2's point, else as it comes) */
    double v[3], t0[3];
    v3_cross(v, g->w[0], g->w[1]);
    v3_scale(v, v, 1 / v3_norm(v));
    v3_sub(t0, g->c0, g->r[0]);
    double side = v3_dot(t0, v);
    if (fabs(side) < 1e-6) v3_sub(t0, g->r[1], g->r[0]), side = v3_dot(t0, v);
    v3_scale(g->f, v, side < 0 ? -1 : 1);
    m3_tmulv(g->f1, Rw[0], g->f);
    /* joint 3 stretched: w . R(w3, q3) u largest, u = c0 - r3, w = r3 - r2 */
    double u[3], wv[3], up[3], k[3];
    v3_sub(u, g->c0, g->r[2]), v3_sub(wv, g->r[2], g->r[1]);
    v3_copy(up, u), v3_axpy(up, -v3_dot(u, g->w[2]), g->w[2]);
    v3_cross(k, g->w[2], u);
    g->q3s = dm_atan2(v3_dot(wv, k), v3_dot(wv, up));
    /* up: bent by +0.5 rad from stretched, the elbow above the shoulder-wrist line for an arm reaching forward */
    double xr[3], L[3], n3[3], ref[3];
    ika_rot(xr, g->w[2], g->q3s + 0.5, u);
    v3_add(xr, xr, g->r[2]);
    v3_sub(xr, xr, g->r[1]);
    v3_sub(L, g->r[2], g->r[1]);
    v3_cross(n3, L, xr);
    v3_cross(ref, g->w[0], g->f);
    g->plus_up = (v3_dot(n3, g->w[1]) > 0) == (v3_dot(ref, g->w[1]) > 0);
    /* joint 5 aligned: w4 . R(w5, q5) w6 largest */
    double w6p[3], k5[3];
    v3_copy(w6p, g->w[5]), v3_axpy(w6p, -v3_dot(g->w[5], g->w[4]), g->w[4]);
    v3_cross(k5, g->w[4], g->w[5]);
    g->q5s = dm_atan2(v3_dot(g->w[3], k5), v3_dot(g->w[3], w6p));
    return 1;
}

/* The configuration bits (MODEL_CFG_*) of q on a spherical-wrist arm. */
static int ika_config(Chain *c, const IkaGeom *g, const double *q)
{
    double Rw[N_MAX][9], pw[N_MAX][3], p[3], R[9], cw[3], f[3], d[3];
    ika_fk(c, q, Rw, pw, p, R);
    m3_mulv(cw, Rw[3], g->c4);
    v3_add(cw, cw, pw[3]);
    m3_mulv(f, Rw[0], g->f1);
    v3_sub(d, cw, g->r[0]);
    int cfg = 0;
    if (v3_dot(d, f) < 0) cfg |= MODEL_CFG_BACK;
    if ((dm_sin(q[2] - g->q3s) > 0) != g->plus_up) cfg |= MODEL_CFG_ELBOW_DOWN;
    if (dm_sin(q[4] - g->q5s) < 0) cfg |= MODEL_CFG_FLIP;
    return cfg;
}

/* A candidate answer collected before the turns are expanded. */
typedef struct {
    int n;
    double q[IKA_CAND][N_MAX];
    int singular[IKA_CAND];
} IkaSet;

/* Wrap revolute joints into [-pi, pi]; add q to the set unless an answer within IKA_SAME is there. */
static void ika_add(Chain *c, IkaSet *s, const double *q, int singular)
{
    double w[N_MAX];
    for (int i = 0; i < c->n; i++) w[i] = c->j[i].revolute ? remainder(q[i], 2 * M_PI) : q[i];
    for (int k = 0; k < s->n; k++) {
        int same = 1;
        for (int i = 0; i < c->n && same; i++) {
            double d = w[i] - s->q[k][i];
            if (c->j[i].revolute) d = remainder(d, 2 * M_PI);
            same = fabs(d) <= IKA_SAME;
        }
        if (same) return;
    }
    if (s->n == IKA_CAND) return;
    memcpy(s->q[s->n], w, (size_t)c->n * sizeof *w);
    s->singular[s->n++] = singular;
}

/* The closed form: candidates into s (each polished and checked by FK). Returns 0, or -1 with why filled when the
 * pose is out of reach. */
static int ika_closed(Chain *c, const IkaGeom *g, const double pos[3], const double *Rt, const double *q_ref,
                      IkaSet *s, ModelIkWhy *why)
{
    double cw[3], d[3], RtR0T[9], R0T[9];
    m3_transpose(R0T, g->R0);
    m3_mul(RtR0T, Rt, R0T);
    v3_sub(d, g->c0, g->p0);
    m3_mulv(cw, RtR0T, d);
    v3_add(cw, cw, pos);
    /* q1: w2 . (R(w1, -q1)(cw - r1) + r1 - r2) = w2 . (c0 - r2) */
    const double *w1 = g->w[0], *w2 = g->w[1], *w3 = g->w[2];
    double v[3], vpar[3], vperp[3], k1[3], t0[3];
    v3_sub(v, cw, g->r[0]);
    v3_scale(vpar, w1, v3_dot(v, w1));
    v3_sub(vperp, v, vpar);
    v3_cross(k1, w1, v);
    v3_sub(t0, g->c0, g->r[0]);
    double a = v3_dot(w2, vperp), b = -v3_dot(w2, k1), dd = v3_dot(w2, t0) - v3_dot(w2, vpar);
    double q1s[2], excess = 0;
    int n1 = ika_trig(a, b, dd, q1s, &excess), sing1 = 0;
    if (n1 == 0) {
        why->reach_excess = excess;
        return -1;
    }
    if (n1 < 0) n1 = 1, q1s[0] = q_ref[0], sing1 = 1, why->singular = 1;
    double u[3], wv[3], upar[3], uperp[3], k3[3];
    v3_sub(u, g->c0, g->r[2]), v3_sub(wv, g->r[2], g->r[1]);
    v3_scale(upar, w3, v3_dot(u, w3));
    v3_sub(uperp, u, upar);
    v3_cross(k3, w3, u);
    double a3 = v3_dot(wv, uperp), b3 = v3_dot(wv, k3), base = v3_dot(u, u) + v3_dot(wv, wv) + 2 * v3_dot(wv, upar);
    double best_excess = INFINITY;
    for (int i1 = 0; i1 < n1; i1++) {
        double q1 = q1s[i1], cp[3], x[3];
        ika_rot(cp, w1, -q1, v);
        v3_add(cp, cp, g->r[0]);
        v3_sub(x, cp, g->r[1]);
        double del2 = v3_dot(x, x), q3s[2], ex3 = 0;
        int n3 = ika_trig(a3, b3, 0.5 * (del2 - base), q3s, &ex3);
        if (n3 == 0) {
            double rho = dm_hypot(a3, b3), del = sqrt(del2);
            double dmax = sqrt(fmax(base + 2 * rho, 0)), dmin = sqrt(fmax(base - 2 * rho, 0));
            double e = del > dmax ? del - dmax : dmin - del;
            best_excess = fmin(best_excess, e);
            continue;
        }
        if (n3 < 0) continue; /* the wrist centre on axis 3: not this geometry */
        for (int i3 = 0; i3 < n3; i3++) {
            double q3 = q3s[i3], xr[3], q2 = q_ref[1];
            ika_rot(xr, w3, q3, u);
            v3_add(xr, xr, g->r[2]);
            int sing = sing1 | ika_sp1(w2, g->r[1], xr, cp, &q2);
            if (sing) q2 = q_ref[1];
            /* the wrist: R(w4, q4) R(w5, q5) R(w6, q6) = M = R123^T Rt R0^T */
            double R1[9], R2[9], R3[9], R12[9], R123[9], M[9], R123T[9];
            m3_axis_angle(R1, w1, q1), m3_axis_angle(R2, w2, q2), m3_axis_angle(R3, w3, q3);
            m3_mul(R12, R1, R2), m3_mul(R123, R12, R3);
            m3_transpose(R123T, R123);
            m3_mul(M, R123T, RtR0T);
            const double *w4 = g->w[3], *w5 = g->w[4], *w6 = g->w[5];
            double t[3], c45 = v3_dot(w4, w5), x45[3];
            m3_mulv(t, M, w6);
            v3_cross(x45, w4, w5);
            double den = 1 - c45 * c45, al = (v3_dot(w4, t) - c45 * v3_dot(w5, w6)) / den;
            double be = (v3_dot(w5, w6) - c45 * v3_dot(w4, t)) / den;
            double g2 = (1 - al * al - be * be - 2 * al * be * c45) / v3_dot(x45, x45);
            double gam = sqrt(fmax(g2, 0)), zero[3] = {0, 0, 0};
            for (int ig = 0; ig < 2; ig++) {
                double z[3], q4 = q_ref[3], q5 = q_ref[4], q6 = q_ref[5], R4[9], R5[9], R45[9], R45T[9], N[9];
                for (int k = 0; k < 3; k++) z[k] = al * w4[k] + be * w5[k] + (ig ? -gam : gam) * x45[k];
                int sw = sing;
                if (ika_sp1(w5, zero, w6, z, &q5)) q5 = q_ref[4];
                if (ika_sp1(w4, zero, z, t, &q4)) q4 = q_ref[3], sw = 1;
                m3_axis_angle(R4, w4, q4), m3_axis_angle(R5, w5, q5);
                m3_mul(R45, R4, R5);
                m3_transpose(R45T, R45);
                m3_mul(N, R45T, M);
                double e0[3] = {1, 0, 0}, e1[3] = {0, 1, 0}, pv[3], tv[3];
                v3_cross(pv, w6, fabs(w6[0]) < 0.9 ? e0 : e1);
                m3_mulv(tv, N, pv);
                if (ika_sp1(w6, zero, pv, tv, &q6)) q6 = q_ref[5];
                double q[6] = {q1, q2, q3, q4, q5, q6};
                /* the answer by FK; polished (a geometry spherical only within IKA_GEOM_TOL, rounding) */
                if (ika_lm(c, q, pos, Rt, 0, 20) <= IKA_ACCEPT) ika_add(c, s, q, sw);
                if (gam == 0) break;
            }
        }
    }
    if (s->n == 0 && isfinite(best_excess)) {
        why->reach_excess = best_excess;
        return -1;
    }
    return 0;
}

/* The next prime after p. */
static int ika_next_prime(int p)
{
    for (int x = p + 1;; x++) {
        int prime = 1;
        for (int d = 2; d * d <= x && prime; d++) prime = x % d != 0;
        if (prime) return x;
    }
}

/* The multi-start search: the reference, then nseeds Halton points over the joints' ranges (deterministic). A
 * redundant chain (more joints than pose rows) is kept within its limits, so that its answers can be used. */
static void ika_search(Chain *c, const double pos[3], const double *Rt, const double *q_ref, int nseeds,
                       IkaSet *s, ModelIkWhy *why)
{
    int n = c->n, clamp = n > (Rt ? 6 : 3);
    double best = INFINITY;
    for (int k = 0; k <= nseeds; k++) {
        double q[N_MAX];
        int prime = 1;
        for (int i = 0; i < n; i++) {
            prime = ika_next_prime(prime);
            double lo = c->j[i].qmin, hi = c->j[i].qmax;
            if (c->j[i].revolute) {
                lo = isfinite(lo) ? fmax(lo, -2 * M_PI) : -M_PI;
                hi = isfinite(hi) ? fmin(hi, 2 * M_PI) : M_PI;
            } else {
                lo = isfinite(lo) ? lo : -1;
                hi = isfinite(hi) ? hi : 1;
            }
            double h = 0, f = 1;
            for (int m = k; m > 0; m /= prime) f /= prime, h += f * (m % prime);
            q[i] = k == 0 ? fmin(fmax(q_ref[i], c->j[i].qmin), c->j[i].qmax) : lo + h * (hi - lo);
        }
        double r = ika_lm(c, q, pos, Rt, clamp, 200);
        if (r <= IKA_ACCEPT) ika_add(c, s, q, 0);
        else {
            double Rw[N_MAX][9], pw[N_MAX][3], e[6];
            ika_err(c, q, pos, Rt, Rw, pw, e);
            best = fmin(best, v3_norm(e));
        }
    }
    if (s->n == 0) why->reach_excess = best;
}

/* Add the solutions of the wrapped answer w, one per choice of turns (values within the limits, else the one
 * nearest them), to sol; returns the new count. Pass 0 adds the choice nearest q_ref, pass 1 the others (so that
 * every answer has its nearest choice in the list before any answer's other turns fill it). */
static int ika_expand(Chain *c, const double *w, int singular, int cfg, const double *q_ref,
                      ModelIkSolution *sol, int k, int max, int pass)
{
    int n = c->n, cnt[N_MAX], near[N_MAX];
    double val[N_MAX][8];
    for (int i = 0; i < n; i++) {
        const ChainJoint *j = &c->j[i];
        cnt[i] = 0;
        if (!j->revolute) {
            val[i][cnt[i]++] = w[i];
            continue;
        }
        if (!isfinite(j->qmin) || !isfinite(j->qmax)) { /* the turn nearest the reference */
            val[i][cnt[i]++] = w[i] + 2 * M_PI * round((q_ref[i] - w[i]) / (2 * M_PI));
            continue;
        }
        double bestv = w[i], bestx = INFINITY;
        for (int m = -4; m <= 4; m++) {
            double x = w[i] + 2 * M_PI * m, ex = fmax(j->qmin - x, x - j->qmax);
            if (ex <= 1e-12 && cnt[i] < 8) val[i][cnt[i]++] = fmin(fmax(x, j->qmin), j->qmax);
            if (ex < bestx) bestx = ex, bestv = x;
        }
        if (!cnt[i]) val[i][cnt[i]++] = bestv;
    }
    int idx[N_MAX] = {0};
    for (int i = 0; i < n; i++) {
        near[i] = 0;
        for (int m = 1; m < cnt[i]; m++)
            if (fabs(val[i][m] - q_ref[i]) < fabs(val[i][near[i]] - q_ref[i])) near[i] = m;
        if (pass == 0) idx[i] = near[i];
    }
    for (;;) {
        if (k == max) return k;
        int is_near = 1;
        for (int i = 0; i < n; i++) is_near &= idx[i] == near[i];
        ModelIkSolution *o = &sol[k];
        if (pass == 0 || !is_near) k++;
        double d2 = 0, worst = 0;
        o->config = cfg, o->turn = 0, o->singular = singular, o->limit_joint = -1, o->limit_excess = 0;
        for (int i = 0; i < n; i++) {
            double x = val[i][idx[i]], ex = fmax(c->j[i].qmin - x, x - c->j[i].qmax);
            o->q[i] = x;
            d2 += (x - q_ref[i]) * (x - q_ref[i]);
            if (i < 31 && x < 0) o->turn |= 1 << i;
            if (ex > worst) worst = ex, o->limit_joint = i, o->limit_excess = ex;
        }
        o->dist = sqrt(d2);
        if (pass == 0) return k;
        int i = 0;
        while (i < n && ++idx[i] == cnt[i]) idx[i++] = 0;
        if (i == n) return k;
    }
}

/* qsort: nearest the reference first. */
static int ika_cmp(const void *a, const void *b)
{
    const ModelIkSolution *x = a, *y = b;
    return (x->dist > y->dist) - (x->dist < y->dist);
}

/* Every solution (ModelType.ik_all) by method: 1 closed form (refused unless the geometry is one), 2 the search, 0
 * the closed form when the geometry is one, else the search. */
static int ika_solve(Chain *c, const double pos[3], const double quat[4], const double *q_ref, int method,
                     int nseeds, ModelIkSolution *sol, int max, ModelIkWhy *why)
{
    ModelIkWhy w0;
    if (!why) why = &w0;
    *why = (ModelIkWhy){0, 0, 0};
    double Rt[9];
    if (quat) {
        double qn = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        if (!(qn > 0)) return MODEL_EINVAL;
        double u[4] = {quat[0] / qn, quat[1] / qn, quat[2] / qn, quat[3] / qn};
        quat_to_m3(Rt, u);
    }
    IkaSet set;
    IkaGeom g;
    int sph = quat && ika_geometry(c, &g);
    if (method == 1 && !sph) return MODEL_ENOTSUP;
    set.n = 0;
    if (sph && method != 2) {
        why->method = 1;
        if (ika_closed(c, &g, pos, Rt, q_ref, &set, why) < 0) return 0;
    } else {
        why->method = 2;
        ika_search(c, pos, quat ? Rt : NULL, q_ref, nseeds, &set, why);
    }
    int k = 0, cfg[IKA_CAND];
    for (int i = 0; i < set.n; i++) cfg[i] = sph ? ika_config(c, &g, set.q[i]) : -1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < set.n; i++) k = ika_expand(c, set.q[i], set.singular[i], cfg[i], q_ref, sol, k, max, pass);
    if (k > 0) why->reach_excess = 0;
    qsort(sol, (size_t)k, sizeof *sol, ika_cmp);
    return k;
}

int chain_ik_all(void *s, const double pos[3], const double quat[4], const double *q_ref, ModelIkSolution *sol,
                 int max, ModelIkWhy *why)
{
    return ika_solve(s, pos, quat, q_ref, 0, ((Chain *)s)->n > 6 ? IKA_SEEDS / 2 : IKA_SEEDS, sol, max, why);
}

int chain_ik_all_method(void *s, const double pos[3], const double quat[4], const double *q_ref, int method,
                        int nseeds, ModelIkSolution *sol, int max, ModelIkWhy *why)
{
    return ika_solve(s, pos, quat, q_ref, method, nseeds, sol, max, why);
}
