/* chain_ik.c — the chain back-end's inverse kinematics: Newton steps from a tracking seed (with a factorisation kept
 * from call to call), and damped least squares (Levenberg-Marquardt) when they give up or the seed is far. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "chain_internal.h"
#include "spd_solve.h"

/* Clamp q into the joint limits. */
static void chain_clamp(const Chain *c, double *q)
{
    for (int i = 0; i < c->n; i++) {
        if (q[i] < c->j[i].qmin) q[i] = c->j[i].qmin;
        if (q[i] > c->j[i].qmax) q[i] = c->j[i].qmax;
    }
}

/* Rotation vector of Rb Ra^T (as m3_rotation_error). Below 1e-3 rad it comes from the skew part alone:
 * v = vee(E - E^T) / 2 = sin(theta) axis, and theta / sin(theta) = 1 + s^2/6 + 3 s^4/40 + O(s^6) (s = |v|; the
 * omitted terms are below 1e-19 relative), which skips the quaternion, atan2 and two square roots. */
static void chain_rotation_error(double err[3], const double Ra[9], const double Rb[9])
{
    /* E_ij = row i of Rb . row j of Ra */
    double e21 = Rb[6] * Ra[3] + Rb[7] * Ra[4] + Rb[8] * Ra[5], e12 = Rb[3] * Ra[6] + Rb[4] * Ra[7] + Rb[5] * Ra[8];
    double e02 = Rb[0] * Ra[6] + Rb[1] * Ra[7] + Rb[2] * Ra[8], e20 = Rb[6] * Ra[0] + Rb[7] * Ra[1] + Rb[8] * Ra[2];
    double e10 = Rb[3] * Ra[0] + Rb[4] * Ra[1] + Rb[5] * Ra[2], e01 = Rb[0] * Ra[3] + Rb[1] * Ra[4] + Rb[2] * Ra[5];
    double v[3] = {0.5 * (e21 - e12), 0.5 * (e02 - e20), 0.5 * (e10 - e01)};
    double s2 = v3_dot(v, v);
    if (s2 < 1e-6) {   /* theta < 1e-3 rad, or near pi (where sin is small too): the trace tells them apart */
        double tr = Rb[0] * Ra[0] + Rb[1] * Ra[1] + Rb[2] * Ra[2] + Rb[3] * Ra[3] + Rb[4] * Ra[4] + Rb[5] * Ra[5] +
                    Rb[6] * Ra[6] + Rb[7] * Ra[7] + Rb[8] * Ra[8];
        if (tr > 1.0) {
            v3_scale(err, v, 1.0 + s2 * (1.0 / 6.0 + s2 * (3.0 / 40.0)));
            return;
        }
    }
    m3_rotation_error(err, Ra, Rb);
}

/* Pose error of the tool (world transforms Rw, pw) against the target, e[0..6); returns the residual
 * |e[0..3)| + |e[3..6)| (the IK's convergence measure). */
static double chain_tool_error_at(const Chain *c, const double (*Rw)[9], const double (*pw)[3], const double pos[3],
                                  const double *Rt, double e[6])
{
    double p[3], R[9];
    const double *Rtool = R;
    if (c->tool_R_identity) { /* the tool's rotation is its link's (the product with I differs in signs of 0 only) */
        chain_tool_pose_at(c, Rw, pw, p, NULL);
        Rtool = Rw[c->tool_link];
    } else {
        chain_tool_pose_at(c, Rw, pw, p, R);
    }
    v3_sub(e, pos, p);
    if (Rt) chain_rotation_error(e + 3, Rtool, Rt);
    else v3_set(e + 3, 0, 0, 0);
    return v3_norm(e) + v3_norm(e + 3);
}

/* Pose error of the tool (after chain_fk_world) against the target; returns the squared norm, e[0..6). */
static double chain_tool_error(Chain *c, const double pos[3], const double *Rt, double e[6])
{
    chain_tool_error_at(c, (const double (*)[9])c->Rw, (const double (*)[3])c->pw, pos, Rt, e);
    return v3_dot(e, e) + v3_dot(e + 3, e + 3);
}

/* Pose error of the tool at q against the target; returns the squared norm, e[0..rows). */
static double chain_ik_error(Chain *c, const double *q, const double pos[3], const double *Rt, double e[6])
{
    chain_fk_world(c, q);
    return chain_tool_error(c, pos, Rt, e);
}

/* The IK's tool pose at q (cos/sin cq, sq) and its error against the target, e[0..6); returns the residual
 * |e[0..3)| + |e[3..6)|. The same bits as chain_fk_world_trig followed by chain_tool_error_at (every product and sum
 * is theirs, in their order, one lane per row), but only along the joints from the base to the tool link, keeping
 * the running rotation as three column vectors and storing none of the links' transforms (the IK's trial points need
 * only the tool's pose; the Jacobian's factorisation makes them with chain_fk_world_trig). Rt NULL: position only. */
static inline __attribute__((always_inline)) double chain_ik_pose_error(const Chain *c, const double *q,
                                                                        const double *cq, const double *sq,
                                                                        const double pos[3], const double *Rt,
                                                                        double e[6])
{
    /* P0, P1, P2: the running rotation's columns (chain_fk_world_trig's I3 at the base); x: the position (its O3) */
    ChainV4 P0 = {1, 0, 0, 0}, P1 = {0, 1, 0, 0}, P2 = {0, 0, 1, 0}, x = {0, 0, 0, 0};
    for (int k = 0; k < c->ik_np; k++) {
        const ChainIkLink *L = &c->ik_link[k];
        int i = L->i;
        /* chain_fk_world_trig's DH rows, one lane per row, else chain_rel_trig, m3_mul, m3_mulv and v3_add by
         * columns */
        if (!chain_dh_step_sw(L, cq[i], sq[i], &P0, &P1, &P2, &x)) {
            const ChainJoint *jt = &c->j[i];
            ChainV4 N0, N1, N2;
            double Rr[9], r[3];
            if (jt->revolute) {
                for (int m = 0; m < 9; m++) Rr[m] = jt->C[m] + cq[i] * jt->AmC[m] + sq[i] * jt->B[m];
                v3_copy(r, jt->p0);
            } else {
                memcpy(Rr, jt->A, sizeof Rr);
                for (int m = 0; m < 3; m++) r[m] = jt->p0[m] + q[i] * jt->R0a[m];
            }
            if (k == 0) {   /* the base's child: its relative transform is its world one */
                N0 = (ChainV4){Rr[0], Rr[3], Rr[6], 0};
                N1 = (ChainV4){Rr[1], Rr[4], Rr[7], 0};
                N2 = (ChainV4){Rr[2], Rr[5], Rr[8], 0};
                x = (ChainV4){r[0], r[1], r[2], 0};
            } else {
                N0 = P0 * Rr[0] + P1 * Rr[3] + P2 * Rr[6];
                N1 = P0 * Rr[1] + P1 * Rr[4] + P2 * Rr[7];
                N2 = P0 * Rr[2] + P1 * Rr[5] + P2 * Rr[8];
                x = x + (P0 * r[0] + P1 * r[1] + P2 * r[2]);
            }
            P0 = N0, P1 = N1, P2 = N2;
        }
    }
    /* the tool point and rotation (chain_tool_pose_at) */
    const double *tp = c->tool_p;
    if (!c->ik_tool_p_zero) x = x + (P0 * tp[0] + P1 * tp[1] + P2 * tp[2]);
    if (!c->tool_R_identity) {
        const double *T = c->tool_R;
        ChainV4 N0 = P0 * T[0] + P1 * T[3] + P2 * T[6];
        ChainV4 N1 = P0 * T[1] + P1 * T[4] + P2 * T[7];
        ChainV4 N2 = P0 * T[2] + P1 * T[5] + P2 * T[8];
        P0 = N0, P1 = N1, P2 = N2;
    }
    e[0] = pos[0] - x[0], e[1] = pos[1] - x[1], e[2] = pos[2] - x[2];
    if (!Rt) {
        v3_set(e + 3, 0, 0, 0);
        return v3_norm(e) + v3_norm(e + 3);
    }
    /* chain_rotation_error(e + 3, Ra = the tool's rotation, Rb = Rt): row i of E = Rb Ra^T, lane j = e_ij */
    ChainV4 E0 = P0 * Rt[0] + P1 * Rt[1] + P2 * Rt[2];
    ChainV4 E1 = P0 * Rt[3] + P1 * Rt[4] + P2 * Rt[5];
    ChainV4 E2 = P0 * Rt[6] + P1 * Rt[7] + P2 * Rt[8];
    double v[3] = {0.5 * (E2[1] - E1[2]), 0.5 * (E0[2] - E2[0]), 0.5 * (E1[0] - E0[1])};
    double s2 = v3_dot(v, v);
    /* the trace only tells theta < 1e-3 (about 3) from theta near pi (about -1): summed as e00 + e11 + e22, not in
     * chain_rotation_error's order, which cannot change the comparison */
    if (s2 < 1e-6 && E0[0] + E1[1] + E2[2] > 1.0) {
        v3_scale(e + 3, v, 1.0 + s2 * (1.0 / 6.0 + s2 * (3.0 / 40.0)));
    } else {
        double Ra[9] = {P0[0], P1[0], P2[0], P0[1], P1[1], P2[1], P0[2], P1[2], P2[2]};
        m3_rotation_error(e + 3, Ra, Rt);
    }
    return v3_norm(e) + v3_norm(e + 3);
}

/* The joints from the base to the tool link, base first, for chain_ik_pose_error. */
void chain_ik_setup(Chain *c)
{
    for (int i = 0; i < c->n; i++) {
        const ChainJoint *jt = &c->j[i];
        ChainIkLink *L = &c->fk_link[i];
        memset(L, 0, sizeof *L);
        L->i = i;
        L->kind = CHAIN_IK_GENERAL;
        L->code = -1;
        if (!jt->dh) continue;
        L->u = jt->perm[0] + (jt->psign[0] < 0 ? 3 : 0);
        L->v = jt->perm[1] + (jt->psign[1] < 0 ? 3 : 0);
        L->w = jt->perm[2] + (jt->psign[2] < 0 ? 3 : 0);
        int uvw = 100 * L->u + 10 * L->v + L->w;
        L->kind = uvw == 12 ? CHAIN_IK_DH_I : uvw == 24 ? CHAIN_IK_DH_XP : uvw == 51 ? CHAIN_IK_DH_XM : CHAIN_IK_DH;
        for (int m = 0; m < 3; m++) {
            L->o[m] = jt->p0[m];
            L->om |= (jt->p0[m] != 0) << m;
        }
        L->code = 8 * (L->kind - CHAIN_IK_DH) + L->om;
    }
    int np = 0;
    for (int i = c->tool_link; i >= 0; i = c->j[i].parent) np++;
    c->ik_np = np;
    for (int i = c->tool_link, k = np; i >= 0; i = c->j[i].parent) c->ik_link[--k] = c->fk_link[i];
    c->ik_tool_p_zero = c->tool_p[0] == 0 && c->tool_p[1] == 0 && c->tool_p[2] == 0;
    for (int i = 0; i < c->n; i++) c->ik_qmin[i] = c->j[i].qmin, c->ik_qmax[i] = c->j[i].qmax;
}

/* Fast-path thresholds. A tracking seed (the previous cycles' answers, extrapolated) is off by ~1e-13..1e-4; the
 * path is only tried below FAST_MAX_RES, takes steps of at most FAST_MAX_STEP per joint (so it never jumps to
 * another branch near a singularity), and gives up when the Jacobian's pivots spread by more than FAST_MIN_PIVOT
 * (near-singular: damping matters there), when a step does not at least halve the residual, or after
 * FAST_MAX_ITER steps. */
#define FAST_MAX_RES 1e-2
#define FAST_MAX_STEP 0.05
#define FAST_MIN_PIVOT 1e-4
#define FAST_MAX_ITER 8
/* The factorisation is kept from call to call (chord steps, no Jacobian): an answer reached by such steps alone
 * must meet the tighter CHORD_TOL (a chord step leaves ~ e0 |q - q_factored|, not e0^2, and the dry-run's qdd are
 * second differences of the answers over 1 ms: an error of 1e-13 there is 4e-7 rad/s^2). It is used for a seed
 * within CHORD_MAX_DIST (per joint) of the point it was factored at, and dropped after a chord step that
 * contracted the residual by less than CHORD_KAPPA (the next call factors afresh at its seed). */
#define CHORD_TOL 1e-13
#define CHORD_MAX_DIST 0.05
#define CHORD_KAPPA 3e-2
#define CHORD_MAX_RES 1e-6
#define CORR_MAX 1e-6

/* Factor the square n x n matrix A (row-major, in place) as P A = L U with partial pivoting; piv[k] is the row
 * swapped into k. Returns min |u_kk| / max |u_kk| (0: singular). */
static inline __attribute__((always_inline)) double chain_lu_n(double *A, int n, int *piv)
{
    double umax = 0, umin = INFINITY;
#pragma GCC unroll 6
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        piv[k] = p;
        if (p != k)
            for (int j = 0; j < n; j++) {
                double t = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = t;
            }
        double d = A[k * n + k], ad = fabs(d);
        if (!(ad > 0)) return 0;
        umax = ad > umax ? ad : umax;
        umin = ad < umin ? ad : umin;
        double inv = 1.0 / d;
#pragma GCC unroll 6
        for (int i = k + 1; i < n; i++) {
            double l = A[i * n + k] * inv;
            A[i * n + k] = l;
            for (int j = k + 1; j < n; j++) A[i * n + j] -= l * A[k * n + j];
        }
    }
    return umax > 0 ? umin / umax : 0;
}

/* chain_lu_n with n = 6 known to the compiler (the common square case: 6 joints, full pose), else general. */
static double chain_lu(double *A, int n, int *piv)
{
    return n == 6 ? chain_lu_n(A, 6, piv) : chain_lu_n(A, n, piv);
}

/* The inverse of A from its factors (P A = L U, chain_lu_n) into X by columns (X[k * n + i]: row i, column k):
 * column k is the solve of unit vector k (the row swaps, L's forward and U's backward substitution), all six at
 * once: row i of B holds entry i of each, in three pairs of doubles, so each column gets the same operations in the
 * same order as solved alone. */
static inline __attribute__((always_inline)) void chain_lu_inverse_n(const double *f, int n, const int *piv,
                                                                     double *lu)
{
    ChainV2 B[6][3];
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++)
#pragma GCC unroll 3
        for (int m = 0; m < 3; m++) B[i][m] = (ChainV2){2 * m == i, 2 * m + 1 == i};
#pragma GCC unroll 6
    for (int k = 0; k < n; k++)
        if (piv[k] != k)
#pragma GCC unroll 3
            for (int m = 0; m < 3; m++) {
                ChainV2 t = B[k][m];
                B[k][m] = B[piv[k]][m], B[piv[k]][m] = t;
            }
#pragma GCC unroll 6
    for (int i = 1; i < n; i++)
#pragma GCC unroll 3
        for (int m = 0; m < 3; m++) {
            ChainV2 sum = B[i][m];
#pragma GCC unroll 6
            for (int k = 0; k < i; k++) sum -= f[i * n + k] * B[k][m];
            B[i][m] = sum;
        }
#pragma GCC unroll 6
    for (int i = n - 1; i >= 0; i--)
#pragma GCC unroll 3
        for (int m = 0; m < 3; m++) {
            ChainV2 sum = B[i][m];
#pragma GCC unroll 6
            for (int k = i + 1; k < n; k++) sum -= f[i * n + k] * B[k][m];
            B[i][m] = sum / f[i * n + i];
        }
#pragma GCC unroll 6
    for (int k = 0; k < n; k++)
#pragma GCC unroll 6
        for (int i = 0; i < n; i++) lu[k * n + i] = B[i][k / 2][k % 2];
}

/* Factor the IK's Jacobian c->ik_J (rows x n) for Newton steps: a square J by LU with partial pivoting, then its
 * inverse into lu (n x n, by columns: lu[k * n + i] is row i, column k; each step is then one matrix-vector product,
 * a column per joint of e, ~40 instructions for the PUMA instead of the LU solve's ~140; the step differs from the
 * solve's by rounding only, and the pivots bound cond(J) by ~1e4);
 * otherwise J Jt by Cholesky (the minimum-norm step; lu holds the factor). Returns 0, or -1 when the Jacobian is
 * near-singular. */
static int chain_newton_factor(Chain *c, int rows, double *lu)
{
    int n = c->n, piv[6];
    const double *J = c->ik_J;
    if (rows == n) {
        double f[36];
        memcpy(f, J, (size_t)rows * n * sizeof(double));
        if (!(chain_lu(f, n, piv) >= FAST_MIN_PIVOT)) return -1;
        if (n == 6) chain_lu_inverse_n(f, 6, piv, lu);
        else chain_lu_inverse_n(f, n, piv, lu);
        return 0;
    }
    if (n < rows) return -1;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k <= r; k++) {
            double sum = 0;
            for (int j = 0; j < n; j++) sum += J[r * n + j] * J[k * n + j];
            lu[r * 6 + k] = sum;
        }
    double y[6] = {0};
    if (spd_solve(lu, y, rows, 6, 0) < 0) return -1;
    double dmax = 0, dmin = INFINITY;
    for (int r = 0; r < rows; r++) {
        dmax = fmax(dmax, lu[r * 6 + r]);
        dmin = fmin(dmin, lu[r * 6 + r]);
    }
    return dmin >= FAST_MIN_PIVOT * dmax ? 0 : -1;
}

/* dq from the factorisation of chain_newton_factor (of c->ik_J) and the error e. A square J: dq = J^-1 e, row i
 * summed as lu(i, 0) e[0] + lu(i, 1) e[1] + ... in that order, so each lane of the column sums has its row's bits. */
static inline __attribute__((always_inline)) void chain_newton_step_n(const Chain *c, int rows, const double *lu,
                                                                      const double e[6], double *dq)
{
    int n = c->n;
    if (rows == 6 && n == 6) {   /* the common case: columns of 4 + 2 rows */
        ChainV4 a, t;
        ChainV2 b, u;
        memcpy(&a, lu, sizeof a), memcpy(&b, lu + 4, sizeof b);
        a = a * e[0], b = b * e[0];
#pragma GCC unroll 5
        for (int k = 1; k < 6; k++) {
            memcpy(&t, lu + 6 * k, sizeof t), memcpy(&u, lu + 6 * k + 4, sizeof u);
            a = a + t * e[k], b = b + u * e[k];
        }
        memcpy(dq, &a, sizeof a), memcpy(dq + 4, &b, sizeof b);
        return;
    }
    if (rows == n) {
        for (int i = 0; i < n; i++) {
            double d = 0;
            for (int k = 0; k < n; k++) d += lu[k * n + i] * e[k];
            dq[i] = d;
        }
        return;
    }
    double y[6];
    memcpy(y, e, (size_t)rows * sizeof(double));
    for (int i = 0; i < rows; i++) {          /* L y = e */
        double sum = y[i];
        for (int k = 0; k < i; k++) sum -= lu[i * 6 + k] * y[k];
        y[i] = sum / lu[i * 6 + i];
    }
    for (int i = rows - 1; i >= 0; i--) {     /* L^T x = y */
        double sum = y[i];
        for (int k = i + 1; k < rows; k++) sum -= lu[k * 6 + i] * y[k];
        y[i] = sum / lu[i * 6 + i];
    }
    for (int j = 0; j < n; j++) {
        double d = 0;
        for (int r = 0; r < rows; r++) d += c->ik_J[r * n + j] * y[r];
        dq[j] = d;
    }
}

/* Keep the correction from the caller's seed (clamped, in q) to the Newton path's answer a, and copy a into q; the
 * next seed gets the correction when it is small (<= CORR_MAX per joint). An answer of the damped path keeps none
 * (c->ik_ref_corr_ok = 0). */
static void chain_ik_remember(Chain *c, double *q, const double *a)
{
    int n = c->n, ok = 1;
    for (int i = 0; i < n; i++) {
        double d = a[i] - q[i];
        c->ik_ref_corr[i] = d;
        ok &= fabs(d) <= CORR_MAX;
        q[i] = a[i];
    }
    c->ik_ref_corr_ok = ok;
}

/* The caller's seed q_seed clamped into the joint limits into q, and the tracking path's seed into w: q plus the last call's correction (its answer
 * minus its caller's seed) when that was small (a tracking call, chain_ik_remember). A planner extrapolating its
 * last answers polynomially makes errors that change slowly from cycle to cycle (by the next derivative times the
 * cycle), so this removes most of it: with the planner's cubic extrapolation the seed error drops from ~1e-11 to
 * ~1e-13 (the quartic's). The answer depends on the IK calls before it only. The seed's cos/sin are chain_ik_point's,
 * so a seed within the tolerance is the answer as it is (one pose error). Returns 1 when the kept factorisation (if any)
 * was made within CHORD_MAX_DIST of the seed in every joint. */
static inline __attribute__((always_inline)) int chain_ik_seed(const Chain *c, const double *q_seed, double *q,
                                                              ChainCache *restrict w)
{
    int n = c->n, near = 1, ok = c->ik_ref_corr_ok;
    const double *corr = c->ik_ref_corr, *lq = c->ik_lu_q, *lo = c->ik_qmin, *hi = c->ik_qmax;
    for (int i = 0; i < n; i++) {
        double v = q_seed[i];   /* the caller's seed clamped (chain_clamp) */
        v = v < lo[i] ? lo[i] : v;
        v = v > hi[i] ? hi[i] : v;
        q[i] = v;
        /* the corrected seed clamped like the caller's: it may be the answer as it is */
        double u = ok ? v + corr[i] : v;
        u = u < lo[i] ? lo[i] : u > hi[i] ? hi[i] : u;
        w->q[i] = u;
        near &= fabs(u - lq[i]) <= CHORD_MAX_DIST;
    }
    return near;
}

/* The IK's evaluation of a point w (w->q set): its cos/sin into w, and its pose error (returned as
 * chain_ik_pose_error's residual, e). The cos/sin come from the anchor's when w is near it (chain_trig_near:
 * w->shifted = 1), else from chain_trig, and w becomes the anchor: a tracking call moves a fraction of
 * TRIG_SHIFT_MAX, so most calls evaluate no cos or sin, and every point is one step from chain_trig's values. */
static inline __attribute__((always_inline)) double chain_ik_point(Chain *c, ChainCache *w,
                                                                   const double pos[3], const double *Rt, double e[6])
{
    w->shifted = c->ik_anc_ok && chain_trig_near(c, c->ik_anc_q, c->ik_anc_c, c->ik_anc_s, w->q, w->cq, w->sq);
    if (!w->shifted) {
        size_t len = (size_t)c->n * sizeof(double);
        chain_trig(c, w->q, w->cq, w->sq);
        memcpy(c->ik_anc_q, w->q, len), memcpy(c->ik_anc_c, w->cq, len), memcpy(c->ik_anc_s, w->sq, len);
        c->ik_anc_ok = 1;
    }
    return chain_ik_pose_error(c, w->q, w->cq, w->sq, pos, Rt, e);
}

/* Jacobian of the tool at the point of w (q, cos/sin), factored and kept for this call's and later calls' steps
 * (c->ik_J, ik_lu; ik_lu_q = w->q). The world transforms it needs go into c->ik_work's. Returns 0, or -1
 * when near-singular (nothing kept). */
__attribute__((noinline)) static int chain_ik_factor(Chain *c, int rows, const ChainCache *w)
{
    chain_fk_world_trig(c, w->q, w->cq, w->sq, c->ik_work.Rw, c->ik_work.pw);
    const double (*Rw)[9] = (const double (*)[9])c->ik_work.Rw;
    const double (*pw)[3] = (const double (*)[3])c->ik_work.pw;
    double x[3];
    chain_tool_pose_at(c, Rw, pw, x, NULL);
    chain_jac_rows(c, Rw, pw, c->tool_link, x, rows, 1.0, c->ik_J);
    c->ik_stats.factored++;
    if (chain_newton_factor(c, rows, c->ik_lu) < 0) {
        c->ik_lu_rows = 0;
        return -1;
    }
    c->ik_lu_rows = rows;
    for (int i = 0; i < c->n; i++) c->ik_lu_q[i] = w->q[i];
    return 0;
}

/* The tracking path: Newton steps from the seed in c->ik_work (q within limits, cos/sin of q computed, error e,
 * residual *res). The steps use the kept factorisation of an earlier call (chord steps) when the seed is near the
 * point it was made at, else a Jacobian factored at the seed; a chord step that fails (does not contract tenfold,
 * or breaks the step or limit bound) makes a fresh one at the current point. Every trial point's cos/sin are
 * chain_ik_point's, its error chain_ik_pose_error's (the tool's pose only: an answer with chain_trig's cos/sin enters
 * the cache without world transforms, which chain_fk_world makes, the same bits, if a later call needs them); the points go into the cache
 * entry the answer replaces or into c->ik_work, alternately. The answer meets CHORD_TOL, or ik_tol when its last step used a Jacobian factored in
 * this call (as without kept factorisations). On success e, *res hold the answer's error, the answer is the cache
 * entry returned (newest), and *steps the steps taken; NULL when it gives up (the seed's entry may have been
 * dropped from the cache); the caller then runs the damped least squares from the seed. */
static inline __attribute__((always_inline)) ChainCache *chain_ik_newton(Chain *c, const double pos[3],
                                                                          const double *Rt, int rows, int near,
                                                                          double e[6], double *res, int *steps_out)
{
    int n = c->n, steps = 0, slot = c->cache_last == CHAIN_NCACHE - 1 ? 0 : c->cache_last + 1;
    double r = *res, en[6], dq[N_MAX];
    double ctol = 0.5 * c->ik_tol < CHORD_TOL ? 0.5 * c->ik_tol : CHORD_TOL, tol = ctol;
    ChainCache *cur = &c->ik_work, *nb = &c->cache[slot];
    nb->valid = 0;
    /* usable: the kept factorisation serves this seed; fresh: it is at the current point; made: in this call;
     * (a seed within tol is the answer as it is) */
    int usable = (c->ik_lu_rows == rows) & (r <= CHORD_MAX_RES) & near, fresh = 0, made = 0;
    while (!(r <= tol)) {
        if (steps == FAST_MAX_ITER) { c->ik_stats.fallback_contract++; return NULL; }
        if (!usable) {
            if (chain_ik_factor(c, rows, cur) < 0) { c->ik_stats.fallback_singular++; return NULL; }
            usable = made = fresh = 1;
        }
        chain_newton_step_n(c, rows, c->ik_lu, e, dq);
        int big = 0, out = 0;
        const double *lo = c->ik_qmin, *hi = c->ik_qmax;
        for (int j = 0; j < n; j++) {
            double qj = cur->q[j] + dq[j];
            big |= !(fabs(dq[j]) <= FAST_MAX_STEP);
            out |= (qj < lo[j]) | (qj > hi[j]);
            nb->q[j] = qj;
        }
        int bad = big ? 1 : out ? 2 : 0;
        double rn = INFINITY;
        if (!bad) rn = chain_ik_point(c, nb, pos, Rt, en);
        if (rn <= (made ? c->ik_tol : ctol) || rn <= (fresh ? 0.5 : 0.1) * r) {
            ChainCache *t = cur;
            cur = nb, nb = t;
            if (!fresh && rn > CHORD_KAPPA * r) c->ik_lu_rows = 0; /* kept too long: factor afresh next call */
            for (int k = 0; k < 6; k++) e[k] = en[k];
            r = rn;
            tol = made ? c->ik_tol : ctol;
            fresh = 0;
            steps++;
            continue;
        }
        if (fresh) {
            if (bad == 1) c->ik_stats.fallback_step++;
            else if (bad == 2) c->ik_stats.fallback_limit++;
            else c->ik_stats.fallback_contract++;
            return NULL;
        }
        /* the chord step failed: factor afresh at the current point (chain_ik_factor makes its transforms) */
        if (chain_ik_factor(c, rows, cur) < 0) { c->ik_stats.fallback_singular++; return NULL; }
        usable = made = fresh = 1;
    }
    if (!made) c->ik_stats.chord++;
    *res = r;
    *steps_out = steps;
    ChainCache *ans = &c->cache[slot];
    if (cur != ans) { /* an even number of steps: the answer is in the IK's work entry */
        size_t len = (size_t)n * sizeof(double);
        memcpy(ans->q, cur->q, len);
        memcpy(ans->cq, cur->cq, len);
        memcpy(ans->sq, cur->sq, len);
    }
    ans->valid = !cur->shifted;   /* the cache holds chain_trig's bits only */
    ans->has_world = 0;   /* chain_fk_world makes them, the same bits, if a call needs them */
    c->cache_last = slot;
    return ans;
}

/* The tracking path of chain_ik: the seed (chain_ik_seed) into q and c->ik_work, its error, then the Newton steps
 * (chain_ik_newton) unless the seed is farther than FAST_MAX_RES. Returns the answer's cache entry (e, *res, *steps
 * its error, residual and steps), or NULL for the damped path. The points' pose errors are inlined into it. */
static ChainCache *chain_ik_track(Chain *c, const double pos[3], const double *Rt, int rows, const double *q_seed,
                                  double *q, double e[6], double *res, int *steps)
{
    ChainCache *w = &c->ik_work;
    int near = chain_ik_seed(c, q_seed, q, w);
    *res = chain_ik_point(c, w, pos, Rt, e);
    if (!(*res <= FAST_MAX_RES)) {
        c->ik_stats.fallback_far++;
        return NULL;
    }
    return chain_ik_newton(c, pos, Rt, rows, near, e, res, steps);
}

/* Numerical IK. A seed close to the answer (a tracking cycle) goes first through plain Newton steps
 * (chain_ik_newton); when those give up, or the seed is far, Levenberg-Marquardt damped least squares,
 * dq = J^T (J J^T + lambda^2 I)^-1 e, projected onto the joint limits. The damping shrinks after an improving step (towards Gauss-Newton) and grows after a failed
 * one; when it exceeds its ceiling, or the iterations run out, the target is reported unreachable. quat NULL:
 * position only. */
int chain_ik(void *s, const double pos[3], const double quat[4], const double *q_seed, double *q,
                    ModelIkInfo *info)
{
    Chain *c = s;
    int n = c->n, rows = quat ? 6 : 3, it = 0, st = MODEL_EUNREACH;
    double e[6], lambda = 1e-2;
    /* the target rotation: kept in c->ik_Rt, as it is when the quaternion has the last call's bits (most cycles of
     * a move) */
    if (quat && !(c->ik_quat_ok && chain_same_bits(quat, c->ik_quat, 4))) {
        double qn = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        if (!(qn > 0)) return MODEL_EINVAL;
        double u[4] = {quat[0] / qn, quat[1] / qn, quat[2] / qn, quat[3] / qn};
        quat_to_m3(c->ik_Rt, u);
        memcpy(c->ik_quat, quat, sizeof c->ik_quat);
        c->ik_quat_ok = 1;
    }
    const double *Rt = quat ? c->ik_Rt : NULL;
    double err2, res;
    c->ik_stats.calls++;
    /* the tracking path first; the damped path below starts again from the seed (clamped into q) */
    int steps = 0;
    ChainCache *ans = chain_ik_track(c, pos, Rt, rows, q_seed, q, e, &res, &steps);
    if (ans) {
        c->ik_stats.fast++;
        chain_ik_remember(c, q, ans->q);
        if (info) {
            info->iterations = steps;
            info->residual = res;
        }
        return MODEL_OK;
    }
    err2 = chain_ik_error(c, q, pos, Rt, e);
    res = v3_norm(e) + v3_norm(e + 3);
    for (; it < c->ik_max_iter; it++) {
        if (res <= c->ik_tol) { st = MODEL_OK; break; }
        double x[3];
        chain_tool_pose(c, x, NULL);   /* world transforms are those of q (last accepted) */
        chain_jac_world(c, c->tool_link, x, c->J);
        gsl_matrix_view Lv = gsl_matrix_submatrix(c->L6, 0, 0, rows, rows);
        gsl_vector_view yv = gsl_vector_subvector(c->y6, 0, rows);
        int improved = 0;
        while (!improved && lambda <= 1e4) {
            for (int r = 0; r < rows; r++) {
                for (int k = 0; k <= r; k++) {
                    double sum = 0;
                    for (int j = 0; j < n; j++) sum += c->J[r * n + j] * c->J[k * n + j];
                    gsl_matrix_set(&Lv.matrix, r, k, sum + (r == k ? lambda * lambda : 0.0));
                }
                gsl_vector_set(&yv.vector, r, e[r]);
            }
            if (gsl_linalg_cholesky_decomp1(&Lv.matrix) != GSL_SUCCESS ||
                gsl_linalg_cholesky_svx(&Lv.matrix, &yv.vector) != GSL_SUCCESS)
                return MODEL_ENUMERIC;
            for (int j = 0; j < n; j++) {
                double d = 0;
                for (int r = 0; r < rows; r++) d += c->J[r * n + j] * gsl_vector_get(&yv.vector, r);
                c->qtry[j] = q[j] + d;
            }
            chain_clamp(c, c->qtry);
            double etry[6];
            double err2try = chain_ik_error(c, c->qtry, pos, Rt, etry);
            if (err2try < err2) {
                improved = 1;
                memcpy(q, c->qtry, (size_t)n * sizeof(double));
                memcpy(e, etry, sizeof etry);
                err2 = err2try;
                res = v3_norm(e) + v3_norm(e + 3);
                lambda = fmax(lambda * 0.3, 1e-9);
            } else {
                lambda *= 10.0;
            }
        }
        if (!improved) {
            chain_fk_world(c, q);     /* leave the workspace consistent with the answer */
            break;
        }
    }
    if (st != MODEL_OK && res <= c->ik_tol) st = MODEL_OK;
    if (st == MODEL_OK) c->ik_ref_corr_ok = 0;   /* chain_ik_remember: no correction from a damped answer */
    if (info) {
        info->iterations = it;
        info->residual = res;
    }
    return st;
}

void chain_ik_stats(void *s, ChainIkStats *st, int reset)
{
    Chain *c = s;
    if (st) *st = c->ik_stats;
    if (reset) memset(&c->ik_stats, 0, sizeof c->ik_stats);
}
