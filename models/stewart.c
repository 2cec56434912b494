/* stewart.c — the `stewart` model back-end: seed 003's 6-DoF Stewart-Gough platform (ERRATA S1-S6) with the
 * platform pose as the machine's axes. Leg lengths in closed form (eq. 12), the leg Jacobian, forward kinematics
 * from leg lengths by Newton-Raphson (GSL), a singularity measure, inverse dynamics by virtual work (eq. 18: the
 * platform's Newton-Euler wrench mapped onto the pose coordinates and onto the legs), the mass matrix, forward
 * dynamics, and the legs as named outputs (lengths, speeds, forces) for the runtime's limit checks.
 *
 * Description mapping (docs/MODELS.md §10): joints 0-2 are the PRISMATIC axes x, y, z (the position of the
 * platform frame's origin), joints 3-5 the REVOLUTE axes roll psi, pitch theta, yaw phi; their limits and homes are
 * the pose axes' (origins and axes are ignored; joint masses must be 0: the platform's inertia is a PARAM). Named
 * params: the paper's anchor layout base_radius/base_e/base_d/base_lambda and platform_radius/platform_e/
 * platform_d/platform_delta, or explicit base_anchors/platform_anchors (18 numbers each); platform_mass,
 * platform_com, platform_inertia (Ixx Iyy Izz Ixy Ixz Iyz about the mass centre, platform axes); char_length.
 * The legs are massless, as in the paper (its second hypothesis). OUTPUT limits L1..L6 are the strokes: the
 * workspace of `ik`. */
#include "stewart.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multiroots.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "geom.h"
#include "spd_solve.h"

#define FK_TOL 1e-12     /* m: sum of |L(q) - L| at which the leg-length FK has converged */
#define FK_MAX_ITER 60
#define STROKE_TOL 1e-12 /* m: a leg this far beyond its stroke still counts as inside (round-off) */

typedef struct {
    double b[6][3], a[6][3];  /* anchors: base (base frame), platform (platform frame) */
    double m, c[3], Ic[9];    /* platform mass, mass centre and inertia about it (platform frame) */
    double gvec[3];
    double tool_xyz[3], tool_R[9];
    double home[6];
    double lmin[6], lmax[6];  /* strokes (OUTPUT L1..L6), +-INF without */
    double char_len;          /* normalises the moment columns of the singularity measure */
    /* workspace (allocated once in create) */
    gsl_multiroot_fdfsolver *fk;
    gsl_multiroot_function_fdf fdf;
    gsl_vector *x0;
    double fk_target[6];
    gsl_matrix *sv_A, *sv_Q;
    gsl_vector *sv_S;
} Stewart;

/* Everything about the legs at one pose. */
typedef struct {
    double R[9], Om[9];
    double r[6][3];   /* R a_i: platform anchors relative to o, base axes */
    double u[6][3];   /* unit leg vectors, base anchor -> platform anchor */
    double L[6];
    double mo[6][3];  /* r_i x u_i: the moment of a unit leg force about o */
} Kin;

static const char *const output_names[] = {
    "L1", "L2", "L3", "L4", "L5", "L6", "L1dot", "L2dot", "L3dot", "L4dot", "L5dot", "L6dot",
    "F1", "F2", "F3", "F4", "F5", "F6"};
enum { OUT_L = 0, OUT_LDOT = 6, OUT_F = 12, NOUT = 18 };

/* ---- legs ---- */

/* Fill k at pose q. MODEL_ESINGULAR when a leg has zero length (its direction is undefined). */
static int kin_eval(const Stewart *s, const double *q, Kin *k)
{
    stewart_rotation(q + 3, k->R);
    stewart_omega_matrix(q + 3, k->Om);
    int st = MODEL_OK;
    for (int i = 0; i < 6; i++) {
        double l[3];
        m3_mulv(k->r[i], k->R, s->a[i]);
        for (int j = 0; j < 3; j++) l[j] = q[j] + k->r[i][j] - s->b[i][j];
        k->L[i] = v3_norm(l);
        if (!(k->L[i] > 0.0)) {
            v3_set(k->u[i], 0, 0, 0);
            st = MODEL_ESINGULAR;
        } else {
            v3_scale(k->u[i], l, 1.0 / k->L[i]);
        }
        v3_cross(k->mo[i], k->r[i], k->u[i]);
    }
    return st;
}

/* Row i of dL/dq: [u_i', mo_i' Omega]. */
static void leg_jacobian(const Kin *k, double *JL)
{
    for (int i = 0; i < 6; i++) {
        double *row = JL + 6 * i;
        for (int j = 0; j < 3; j++) row[j] = k->u[i][j];
        m3_tmulv(row + 3, k->Om, k->mo[i]);
    }
}

int stewart_legs(void *st, const double *q, double L[6], double *u)
{
    Kin k;
    int rc = kin_eval(st, q, &k);
    memcpy(L, k.L, sizeof k.L);
    if (u) memcpy(u, k.u, sizeof k.u);
    return rc;
}

int stewart_leg_jacobian(void *st, const double *q, double *JL)
{
    Kin k;
    int rc = kin_eval(st, q, &k);
    leg_jacobian(&k, JL);
    return rc;
}

void stewart_anchors(void *st, double *b, double *a)
{
    const Stewart *s = st;
    if (b) memcpy(b, s->b, sizeof s->b);
    if (a) memcpy(a, s->a, sizeof s->a);
}

void stewart_stroke(void *st, double lmin[6], double lmax[6])
{
    const Stewart *s = st;
    memcpy(lmin, s->lmin, sizeof s->lmin);
    memcpy(lmax, s->lmax, sizeof s->lmax);
}

/* ---- forward kinematics from leg lengths (Newton-Raphson) ---- */

/* The residual L(x) - L_target into f and its Jacobian J_L into J (either may be NULL), from one kin_eval. */
static int fk_eval(const gsl_vector *x, void *params, gsl_vector *f, gsl_matrix *J)
{
    Stewart *s = params;
    Kin k;
    double JL[36];
    if (kin_eval(s, x->data, &k) < 0) return GSL_EBADFUNC;
    if (f)
        for (int i = 0; i < 6; i++) gsl_vector_set(f, i, k.L[i] - s->fk_target[i]);
    if (J) {
        leg_jacobian(&k, JL);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) gsl_matrix_set(J, i, j, JL[6 * i + j]);
    }
    return GSL_SUCCESS;
}

static int fk_f(const gsl_vector *x, void *params, gsl_vector *f) { return fk_eval(x, params, f, NULL); }
static int fk_df(const gsl_vector *x, void *params, gsl_matrix *J) { return fk_eval(x, params, NULL, J); }

int stewart_fk_legs(void *st, const double L[6], const double *q_seed, double *q, ModelIkInfo *info)
{
    Stewart *s = st;
    for (int i = 0; i < 6; i++)
        if (!(L[i] > 0.0) || !isfinite(L[i])) return MODEL_EINVAL;
    memcpy(s->fk_target, L, sizeof s->fk_target);
    const double *seed = q_seed ? q_seed : s->home;
    for (int i = 0; i < 6; i++) gsl_vector_set(s->x0, i, seed[i]);
    int iter = 0, status = gsl_multiroot_fdfsolver_set(s->fk, &s->fdf, s->x0), done = 0;
    while (status == GSL_SUCCESS && iter < FK_MAX_ITER) {
        if (gsl_multiroot_test_residual(s->fk->f, FK_TOL) == GSL_SUCCESS) {
            done = 1;
            break;
        }
        iter++;
        status = gsl_multiroot_fdfsolver_iterate(s->fk);
    }
    if (!done && status == GSL_SUCCESS && gsl_multiroot_test_residual(s->fk->f, FK_TOL) == GSL_SUCCESS) done = 1;
    double res = 0.0;
    for (int i = 0; i < 6; i++) {
        q[i] = gsl_vector_get(s->fk->x, i);
        double e = fabs(gsl_vector_get(s->fk->f, i));
        res = e > res || isnan(e) ? e : res;
    }
    /* the angles on their principal range (the iteration may have wandered by 2 pi) */
    double R[9];
    stewart_rotation(q + 3, R);
    stewart_euler(R, seed + 3, q + 3);
    if (info) {
        info->iterations = iter;
        info->residual = res;
    }
    return done ? MODEL_OK : MODEL_EUNREACH;
}

/* ---- dynamics: the platform's Newton-Euler wrench, mapped by virtual work (eq. 18) ---- */

/* I_w = R I_c R': the inertia about the mass centre in base axes. */
static void world_inertia(const double R[9], const double Ic[9], double Iw[9])
{
    double tmp[9], RT[9];
    m3_mul(tmp, R, Ic);
    m3_transpose(RT, R);
    m3_mul(Iw, tmp, RT);
}

/* The wrench W = (F, N_o) the legs exert on the platform, base axes, moment about the platform origin o:
 *   F = m (a_C - g),  N_o = I_w wd + w x I_w w + c_w x F,  a_C = pdd + wd x c_w + w x (w x c_w),
 * with w = Omega etad, wd = Omega etadd + Omega-dot etad and c_w = R c. Virtual work gives the generalized
 * force on the pose coordinates, Q = T' W with T = diag(I, Omega) (Q . qd = F . pd + N_o . w). */
static void platform_wrench(const Stewart *s, const Kin *k, const double *q, const double *qd, const double *qdd,
                            double W[6], double Q[6])
{
    double w[3], wd[3], cw[3], t[3], u[3], aC[3], Iw[9], Iw_w[3];
    m3_mulv(w, k->Om, qd + 3);
    m3_mulv(wd, k->Om, qdd + 3);
    stewart_omega_bias(q + 3, qd + 3, t);
    v3_add(wd, wd, t);
    m3_mulv(cw, k->R, s->c);
    v3_cross(t, wd, cw);
    v3_cross(u, w, cw);
    v3_cross(aC, w, u);
    v3_add(aC, aC, t);
    v3_add(aC, aC, qdd);
    double *F = W, *N = W + 3;
    for (int j = 0; j < 3; j++) F[j] = s->m * (aC[j] - s->gvec[j]);
    world_inertia(k->R, s->Ic, Iw);
    m3_mulv(Iw_w, Iw, w);
    m3_mulv(N, Iw, wd);
    v3_cross(t, w, Iw_w);
    v3_add(N, N, t);
    v3_cross(t, cw, F);
    v3_add(N, N, t);
    if (Q) {
        v3_copy(Q, F);
        m3_tmulv(Q + 3, k->Om, N);
    }
}

/* M = T' M_o T with the spatial inertia about o, M_o = [[m I, -m [c]x], [m [c]x, I_w - m [c]x [c]x]]:
 * M_pp = m I, M_peta = -m [c]x Omega, M_etaeta = Omega' (I_w + m (|c|^2 I - c c')) Omega. Exactly symmetric. */
static void mass_matrix(const Stewart *s, const Kin *k, double *M)
{
    double cw[3], Iw[9], A[9], K[9], KO[9], B[9], OmT[9];
    m3_mulv(cw, k->R, s->c);
    world_inertia(k->R, s->Ic, Iw);
    double C[9];
    m3_skew(C, cw);
    m3_mul(A, C, k->Om);
    double c2 = v3_dot(cw, cw);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) K[3 * i + j] = Iw[3 * i + j] + s->m * ((i == j) * c2 - cw[i] * cw[j]);
    m3_mul(KO, K, k->Om);
    m3_transpose(OmT, k->Om);
    m3_mul(B, OmT, KO);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            M[6 * i + j] = i == j ? s->m : 0.0;
            M[6 * i + 3 + j] = M[6 * (3 + j) + i] = -s->m * A[3 * i + j];
            M[6 * (3 + i) + 3 + j] = 0.5 * (B[3 * i + j] + B[3 * j + i]);
        }
}

/* Solve A x = b (6 x 6, row-major, destroyed) by Gaussian elimination with partial pivoting. MODEL_ESINGULAR
 * when a pivot falls below 1e-13 of the largest entry (the legs cannot carry some wrench). */
static int solve6(double A[36], double b[6])
{
    double big = 0.0;
    for (int i = 0; i < 36; i++) big = fabs(A[i]) > big ? fabs(A[i]) : big;
    if (!(big > 0.0) || !isfinite(big)) return MODEL_ESINGULAR;
    for (int c = 0; c < 6; c++) {
        int p = c;
        for (int r = c + 1; r < 6; r++)
            if (fabs(A[6 * r + c]) > fabs(A[6 * p + c])) p = r;
        if (!(fabs(A[6 * p + c]) > 1e-13 * big)) return MODEL_ESINGULAR;
        if (p != c) {
            for (int j = 0; j < 6; j++) {
                double t = A[6 * c + j];
                A[6 * c + j] = A[6 * p + j];
                A[6 * p + j] = t;
            }
            double t = b[c];
            b[c] = b[p];
            b[p] = t;
        }
        for (int r = c + 1; r < 6; r++) {
            double f = A[6 * r + c] / A[6 * c + c];
            for (int j = c; j < 6; j++) A[6 * r + j] -= f * A[6 * c + j];
            b[r] -= f * b[c];
        }
    }
    for (int r = 5; r >= 0; r--) {
        double v = b[r];
        for (int j = r + 1; j < 6; j++) v -= A[6 * r + j] * b[j];
        b[r] = v / A[6 * r + r];
    }
    return MODEL_OK;
}

/* Leg forces from the wrench: sum_i f_i u_i = F and sum_i f_i (r_i x u_i) = N_o, i.e. G' f = W (eq. 18: with
 * Q = J_L' f this is tau = J_L^-T Q, the paper's I_P^-T). */
static int leg_forces(const Kin *k, const double W[6], double f[6])
{
    double A[36];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 3; j++) {
            A[6 * j + i] = k->u[i][j];
            A[6 * (3 + j) + i] = k->mo[i][j];
        }
    memcpy(f, W, 6 * sizeof *f);
    return solve6(A, f);
}

int stewart_leg_forces(void *st, const double *q, const double *qd, const double *qdd, double f[6])
{
    Kin k;
    double W[6];
    int rc = kin_eval(st, q, &k);
    if (rc < 0) return rc;
    platform_wrench(st, &k, q, qd, qdd, W, NULL);
    return leg_forces(&k, W, f);
}

int stewart_energy(void *st, const double *q, const double *qd, double *energy)
{
    const Stewart *s = st;
    double R[9], Om[9], w[3], cw[3], v[3], t[3], Iw[9], Iw_w[3];
    stewart_rotation(q + 3, R);
    stewart_omega_matrix(q + 3, Om);
    m3_mulv(w, Om, qd + 3);
    m3_mulv(cw, R, s->c);
    v3_cross(t, w, cw);
    v3_add(v, qd, t);
    world_inertia(R, s->Ic, Iw);
    m3_mulv(Iw_w, Iw, w);
    double rC[3];
    v3_add(rC, q, cw);
    *energy = 0.5 * s->m * v3_dot(v, v) + 0.5 * v3_dot(w, Iw_w) - s->m * v3_dot(s->gvec, rC);
    return MODEL_OK;
}

static int stewart_inverse_dynamics(void *st, const double *q, const double *qd, const double *qdd, double *tau)
{
    Kin k;
    double W[6];
    kin_eval(st, q, &k); /* the platform's dynamics need no leg direction */
    platform_wrench(st, &k, q, qd, qdd, W, tau);
    return MODEL_OK;
}

static int stewart_mass_matrix(void *st, const double *q, double *M)
{
    Kin k;
    kin_eval(st, q, &k);
    mass_matrix(st, &k, M);
    return MODEL_OK;
}

static int stewart_bias(void *st, const double *q, const double *qd, double *h)
{
    static const double zero[6] = {0};
    return stewart_inverse_dynamics(st, q, qd, zero, h);
}

/* qdd = M^-1 (tau - h); M is singular at pitch +-90 deg (Omega, the representation) and without inertia. */
static int stewart_forward_dynamics(void *st, const double *q, const double *qd, const double *tau, double *qdd)
{
    Kin k;
    double W[6], h[6], M[36];
    static const double zero[6] = {0};
    kin_eval(st, q, &k);
    platform_wrench(st, &k, q, qd, zero, W, h);
    mass_matrix(st, &k, M);
    for (int i = 0; i < 6; i++) qdd[i] = tau[i] - h[i];
    return spd_solve(M, qdd, 6, 6, 1e-12);
}

/* ---- model operations: kinematics ---- */

/* Link -1: the tool point; links 0-5 (the six pose axes): the platform frame, which all of them move. */
static int stewart_fk(void *st, const double *q, int link, double pos[3], double R[9])
{
    const Stewart *s = st;
    if (link < -1 || link > 5) return MODEL_EINVAL;
    double Rp[9];
    stewart_rotation(q + 3, Rp);
    if (link >= 0) {
        v3_copy(pos, q);
        memcpy(R, Rp, sizeof Rp);
        return MODEL_OK;
    }
    double t[3];
    m3_mulv(t, Rp, s->tool_xyz);
    v3_add(pos, q, t);
    m3_mul(R, Rp, s->tool_R);
    return MODEL_OK;
}

/* IK of the tool pose in closed form: the platform's rotation R = R_target R_tool', its angles (principal pitch
 * branch, roll and yaw wrapped next to the seed), its origin p = pos - R t. The workspace is the strokes: a leg
 * outside [Lmin, Lmax] gives MODEL_EUNREACH, with q filled and the residual = the largest excess (m). */
static int stewart_ik(void *st, const double pos[3], const double quat[4], const double *q_seed, double *q,
                      ModelIkInfo *info)
{
    const Stewart *s = st;
    double qn = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    if (!isfinite(qn) || fabs(qn - 1.0) > 1e-6) return MODEL_EINVAL;
    if (!isfinite(pos[0]) || !isfinite(pos[1]) || !isfinite(pos[2])) return MODEL_EINVAL;
    double u[4] = {quat[0] / qn, quat[1] / qn, quat[2] / qn, quat[3] / qn}, Rt[9], RtoolT[9], Rp[9], t[3];
    quat_to_m3(Rt, u);
    m3_transpose(RtoolT, s->tool_R);
    m3_mul(Rp, Rt, RtoolT);
    stewart_euler(Rp, q_seed ? q_seed + 3 : NULL, q + 3);
    stewart_rotation(q + 3, Rp); /* the rotation of the angles, so that p matches FK exactly */
    m3_mulv(t, Rp, s->tool_xyz);
    v3_sub(q, pos, t);
    /* residual of FK(q) against the target */
    double pf[3], Rf[9], dp[3], re[3];
    stewart_fk(st, q, -1, pf, Rf);
    v3_sub(dp, pf, pos);
    m3_rotation_error(re, Rf, Rt);
    Kin k;
    int rc = kin_eval(s, q, &k);
    double excess = rc < 0 ? INFINITY : 0.0;
    for (int i = 0; i < 6; i++) {
        double e = fmax(s->lmin[i] - k.L[i], k.L[i] - s->lmax[i]);
        if (e > excess) excess = e;
    }
    int out = excess > STROKE_TOL;
    if (info) {
        info->iterations = 0;
        info->residual = out ? excess : v3_norm(dp) + v3_norm(re);
    }
    return out ? MODEL_EUNREACH : MODEL_OK;
}

/* Geometric Jacobian at the tool point: v = pd + w x R t, w = Omega etad: [[I, -[R t]x Omega], [0, Omega]]. */
static int stewart_jacobian(void *st, const double *q, double *J)
{
    const Stewart *s = st;
    double R[9], Om[9], t[3];
    stewart_rotation(q + 3, R);
    stewart_omega_matrix(q + 3, Om);
    m3_mulv(t, R, s->tool_xyz);
    double C[9], A[9];
    m3_skew(C, t);
    m3_mul(A, C, Om);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            J[6 * i + j] = i == j;
            J[6 * i + 3 + j] = -A[3 * i + j];
            J[6 * (3 + i) + j] = 0.0;
            J[6 * (3 + i) + 3 + j] = Om[3 * i + j];
        }
    return MODEL_OK;
}

/* sigma_min / sigma_max of the legs' twist matrix G (rows [u_i', (r_i x u_i)' / char_len]): 0 where the six leg
 * lines are linearly dependent (the platform gains a motion the locked legs do not stop), independent of the
 * angle representation. One-sided Jacobi SVD (GSL) in preallocated workspace. */
static int stewart_singularity(void *st, const double *q, const double band[2], double *measure)
{
    (void)band;
    Stewart *s = st;
    Kin k;
    if (kin_eval(s, q, &k) < 0) {
        *measure = 0.0;
        return MODEL_OK;
    }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 3; j++) {
            gsl_matrix_set(s->sv_A, i, j, k.u[i][j]);
            gsl_matrix_set(s->sv_A, i, 3 + j, k.mo[i][j] / s->char_len);
        }
    if (gsl_linalg_SV_decomp_jacobi(s->sv_A, s->sv_Q, s->sv_S) != GSL_SUCCESS) return MODEL_ENUMERIC;
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < 6; i++) {
        double v = gsl_vector_get(s->sv_S, i);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    *measure = hi > 0.0 ? lo / hi : 0.0;
    return MODEL_OK;
}

/* ---- outputs: the legs ---- */

static int stewart_output_count(void *st) { (void)st; return NOUT; }

static const char *stewart_output_name(void *st, int i)
{
    (void)st;
    return i >= 0 && i < NOUT ? output_names[i] : NULL;
}

/* Leg lengths in m, their rates in m/s, leg forces in N. */
static const char *stewart_output_unit(void *st, int i)
{
    (void)st;
    return i < 0 || i >= NOUT ? NULL : i < OUT_LDOT ? "m" : i < OUT_F ? "m/s" : "N";
}

/* L1..L6 (m), L1dot..L6dot = J_L qd (m/s), F1..F6 (N, > 0 pushing). At a singular leg configuration the forces
 * are NaN and the status MODEL_ESINGULAR (the lengths and speeds are still filled). */
static int stewart_outputs(void *st, const double *q, const double *qd, const double *qdd, double *out)
{
    Kin k;
    double JL[36], W[6];
    int rc = kin_eval(st, q, &k);
    leg_jacobian(&k, JL);
    for (int i = 0; i < 6; i++) {
        out[OUT_L + i] = k.L[i];
        double v = 0.0;
        for (int j = 0; j < 6; j++) v += JL[6 * i + j] * qd[j];
        out[OUT_LDOT + i] = v;
    }
    if (rc == MODEL_OK) {
        platform_wrench(st, &k, q, qd, qdd, W, NULL);
        rc = leg_forces(&k, W, out + OUT_F);
    }
    if (rc < 0)
        for (int i = 0; i < 6; i++) out[OUT_F + i] = NAN;
    return rc;
}

/* ---- creation ---- */

/* A refused description: "stewart: msg" (the caller prefixes the file). */
static int fail(char *err, size_t errlen, const ModelDesc *d, const char *msg)
{
    (void)d;
    if (err && errlen) snprintf(err, errlen, "stewart: %s", msg);
    return MODEL_EINVAL;
}

/* Parameter `name` with exactly n finite numbers in `unit` into v: 1 found, 0 absent (v untouched), MODEL_EINVAL
 * with "bad parameter NAME: why" in err. */
#define param_get(d, name, n, unit, v) model_param_get(d, name, n, unit, v, err, errlen)

/* The anchors: explicit lists, or the paper's layout (eqs. 5-10 with ERRATA S1's 240 deg). */
static int setup_anchors(Stewart *s, const ModelDesc *d, char *err, size_t errlen)
{
    static const double paper_ang[6] = {0, 0, 2 * M_PI / 3, 2 * M_PI / 3, 4 * M_PI / 3, 4 * M_PI / 3};
    double bl[18], al[18];
    int hb = param_get(d, "base_anchors", 18, "m", bl), ha;
    if (hb < 0 || (ha = param_get(d, "platform_anchors", 18, "m", al)) < 0) return MODEL_EINVAL;
    const char *paper[] = {"base_radius", "base_e", "base_d", "base_lambda",
                           "platform_radius", "platform_e", "platform_d", "platform_delta"};
    int any_paper = 0;
    for (int i = 0; i < 8; i++) any_paper |= model_desc_param(d, paper[i]) != NULL;
    if ((hb || ha) && any_paper)
        return fail(err, errlen, d, "give the anchors either as base_anchors/platform_anchors or by the paper's "
                                    "parameters (base_radius, ...), not both");
    if (hb != ha) return fail(err, errlen, d, "base_anchors and platform_anchors go together");
    if (!hb) {
        double RB, eB, dB = 0, rp, ep, dp = 0, lam[6], del[6];
        memcpy(lam, paper_ang, sizeof lam);
        memcpy(del, paper_ang, sizeof del);
        const char *need[4] = {"base_radius", "base_e", "platform_radius", "platform_e"};
        double *to[4] = {&RB, &eB, &rp, &ep};
        for (int i = 0; i < 4; i++) {
            int st = param_get(d, need[i], 1, "m", to[i]);
            if (st < 0) return MODEL_EINVAL;
            if (st == 0 && any_paper)
                return model_param_bad(d, err, errlen, need[i], "required with the paper's anchor parameters "
                                                                "(a length, m)");
            if (st == 0)
                return fail(err, errlen, d, "needs the anchors: base_radius, base_e, platform_radius, platform_e (and "
                                            "optionally base_d, platform_d, base_lambda, platform_delta), or "
                                            "base_anchors and platform_anchors");
            if ((i == 0 || i == 2) && !(*to[i] > 0.0))
                return model_param_bad(d, err, errlen, need[i], "must be > 0 m (a radius)");
        }
        if (param_get(d, "base_d", 1, "m", &dB) < 0 || param_get(d, "platform_d", 1, "m", &dp) < 0 ||
            param_get(d, "base_lambda", 6, "rad", lam) < 0 || param_get(d, "platform_delta", 6, "rad", del) < 0)
            return MODEL_EINVAL;
        stewart_paper_anchors(RB, eB, dB, lam, 0, bl);
        stewart_paper_anchors(rp, ep, dp, del, 1, al);
    }
    for (int i = 0; i < 6; i++) {
        v3_copy(s->b[i], bl + 3 * i);
        v3_copy(s->a[i], al + 3 * i);
    }
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++) {
            double db[3], da[3];
            v3_sub(db, s->b[i], s->b[j]);
            v3_sub(da, s->a[i], s->a[j]);
            if (v3_norm(db) < 1e-9 || v3_norm(da) < 1e-9)
                return fail(err, errlen, d, "two legs share an anchor point (a 240 deg entry written as 120 deg? "
                                            "ERRATA S1)");
        }
    return MODEL_OK;
}

/* The platform's inertia: mass > 0, mass centre, tensor about it (positive definite). */
static int setup_inertia(Stewart *s, const ModelDesc *d, char *err, size_t errlen)
{
    double I6[6];
    v3_set(s->c, 0, 0, 0);
    int st = param_get(d, "platform_mass", 1, "kg", &s->m);
    if (st == 0) return model_param_bad(d, err, errlen, "platform_mass", "required (a mass > 0 kg)");
    if (st > 0 && !(s->m > 0.0)) return model_param_bad(d, err, errlen, "platform_mass", "must be > 0 kg");
    if (st < 0 || param_get(d, "platform_com", 3, "m", s->c) < 0 ||
        (st = param_get(d, "platform_inertia", 6, "kg*m^2", I6)) < 0)
        return MODEL_EINVAL;
    if (st == 0)
        return model_param_bad(d, err, errlen, "platform_inertia", "required: LIST(Ixx, Iyy, Izz, Ixy, Ixz, Iyz) "
                                                                   "(kg m^2, about the mass centre, platform axes)");
    double *I = s->Ic;
    I[0] = I6[0], I[4] = I6[1], I[8] = I6[2];
    I[1] = I[3] = I6[3], I[2] = I[6] = I6[4], I[5] = I[7] = I6[5];
    double m2 = I[0] * I[4] - I[1] * I[3];
    double det = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
                 I[2] * (I[3] * I[7] - I[4] * I[6]);
    if (!(I[0] > 0.0) || !(m2 > 0.0) || !(det > 0.0))
        return model_param_bad(d, err, errlen, "platform_inertia", "not positive definite");
    for (int i = 0; i < 6; i++)
        if (d->joint[i].mass != 0.0)
            return fail(err, errlen, d, "the pose axes carry no mass: give the platform's as platform_mass, "
                                        "platform_com and platform_inertia");
    return MODEL_OK;
}

static void stewart_destroy(void *st)
{
    Stewart *s = st;
    if (!s) return;
    if (s->fk) gsl_multiroot_fdfsolver_free(s->fk);
    if (s->x0) gsl_vector_free(s->x0);
    if (s->sv_A) gsl_matrix_free(s->sv_A);
    if (s->sv_Q) gsl_matrix_free(s->sv_Q);
    if (s->sv_S) gsl_vector_free(s->sv_S);
    free(s);
}

/* Copy the machine out of the description, check it, allocate the solvers' workspace. */
static int stewart_create(const ModelDesc *d, void **out, char *err, size_t errlen)
{
    *out = NULL;
    gsl_set_error_handler_off();
    if (d->njoints != STEWART_DOF)
        return fail(err, errlen, d, "needs exactly 6 joints, the pose axes x, y, z, roll, pitch, yaw");
    for (int i = 0; i < 6; i++)
        if (d->joint[i].type != (i < 3 ? MODEL_PRISMATIC : MODEL_REVOLUTE))
            return fail(err, errlen, d, "joints 1-3 (x, y, z) are PRISMATIC and joints 4-6 (roll, pitch, yaw) "
                                        "REVOLUTE");
    double g = v3_norm(d->gravity);
    if (!isfinite(g)) return fail(err, errlen, d, "gravity must be finite");
    Stewart *s = calloc(1, sizeof *s);
    if (!s) return MODEL_ENOMEM;
    int rc = setup_anchors(s, d, err, errlen);
    if (rc == MODEL_OK) rc = setup_inertia(s, d, err, errlen);
    if (rc < 0) {
        free(s);
        return rc;
    }
    v3_copy(s->gvec, d->gravity);
    v3_copy(s->tool_xyz, d->tool_xyz);
    memcpy(s->tool_R, d->tool_R, sizeof s->tool_R);
    for (int i = 0; i < 6; i++) {
        s->home[i] = d->joint[i].home;
        s->lmin[i] = -INFINITY;
        s->lmax[i] = INFINITY;
    }
    for (int o = 0; o < d->noutput_limits && o < MODEL_MAX_OUTPUTS; o++)
        for (int i = 0; i < 6; i++)
            if (strcasecmp(d->output_limit[o].name, output_names[OUT_L + i]) == 0) {
                s->lmin[i] = d->output_limit[o].min;
                s->lmax[i] = d->output_limit[o].max;
            }
    s->char_len = 0.0;
    for (int i = 0; i < 6; i++) s->char_len += v3_norm(s->a[i]) / 6.0;
    int st = param_get(d, "char_length", 1, "m", &s->char_len);
    if (st < 0 || !(s->char_len >= 1e-6 && s->char_len <= 1e3)) { /* the Jacobian's rows stay finite */
        free(s);
        return st < 0 ? st : model_param_bad(d, err, errlen, "char_length", "must be from 1e-06 m to 1000 m (default: "
                                                                           "the mean platform anchor radius)");
    }
    s->fk = gsl_multiroot_fdfsolver_alloc(gsl_multiroot_fdfsolver_newton, 6);
    s->x0 = gsl_vector_alloc(6);
    s->sv_A = gsl_matrix_alloc(6, 6);
    s->sv_Q = gsl_matrix_alloc(6, 6);
    s->sv_S = gsl_vector_alloc(6);
    if (!s->fk || !s->x0 || !s->sv_A || !s->sv_Q || !s->sv_S) {
        stewart_destroy(s);
        return MODEL_ENOMEM;
    }
    s->fdf = (gsl_multiroot_function_fdf){.f = fk_f, .df = fk_df, .fdf = fk_eval, .n = 6, .params = s};
    /* the home pose seeds the leg-length FK: it must be a regular configuration */
    double sing;
    if (stewart_singularity(s, s->home, NULL, &sing) < 0 || !(sing > 1e-6)) {
        stewart_destroy(s);
        return fail(err, errlen, d, "the home pose (the joints' home values) is singular or puts a leg at zero "
                                    "length");
    }
    *out = s;
    return MODEL_OK;
}

/* The outputs figure: the six legs' lengths, speeds and forces, a panel each (m, m/s, N), the legs named. */
static const ModelPlotGroup stewart_plots[] = {
    {"outputs", "legs", 3, {
        {"leg lengths", MODEL_PLOT_OUTPUT, 0, "L1 L2 L3 L4 L5 L6", NULL, NULL},
        {"leg speeds", MODEL_PLOT_OUTPUT, 0, "L1dot L2dot L3dot L4dot L5dot L6dot", NULL, NULL},
        {"leg forces (> 0 pushing)", MODEL_PLOT_OUTPUT, 0, "F1 F2 F3 F4 F5 F6", NULL, NULL},
    }},
};

const ModelType model_stewart = {
    .name = "stewart",
    .create = stewart_create,
    .destroy = stewart_destroy,
    .fk = stewart_fk,
    .ik = stewart_ik,
    .jacobian = stewart_jacobian,
    .singularity = stewart_singularity,
    .singular_in_joint_space = 1,
    .inverse_dynamics = stewart_inverse_dynamics,
    .mass_matrix = stewart_mass_matrix,
    .bias = stewart_bias,
    .forward_dynamics = stewart_forward_dynamics,
    .output_count = stewart_output_count,
    .output_name = stewart_output_name,
    .output_unit = stewart_output_unit,
    .outputs = stewart_outputs,
    .nplots = 1,
    .plots = stewart_plots,
};
