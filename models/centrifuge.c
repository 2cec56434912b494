/* centrifuge.c — the `centrifuge` model back-end: seed 000's 3-DoF human centrifuge with FK/IK/Jacobian from
 * centrifuge_kin.c, inverse dynamics by the covariant Lagrange equations (metric tensor, Christoffel symbols of the
 * first kind, gravity's generalized force: eqs. 15-18) and the G-load outputs at the seat and the head.
 *
 * Description mapping (docs/MODELS.md §9): joint[0] = planetary arm (link 1), joint[1] = gondola pitch ring
 * (link 2), joint[2] = gondola/cabin with occupant (link 3). Each joint gives its link's mass, centre of mass and
 * inertia about it in the link frame (frame 1 has its origin on the planetary axis at the arm's height, frames 2
 * and 3 at the seat E), limits and the powered flag. The geometry is the paper's: origin_xyz, origin_R and axis are
 * ignored. Named params: arm_length (a1, m, required), head_height (m along +z3, default 0). Gravity must be
 * non-zero; its magnitude is the unit of all G outputs (default 9.81 m/s^2). */
#include "centrifuge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dmath.h"
#include "geom.h"
#include "spd_solve.h"

typedef struct {
    double a1, head;     /* arm length, head height above the seat along +z3 */
    double gvec[3], g;   /* gravity and its magnitude (the G unit) */
    double m[3];         /* link masses */
    double com[3][3];    /* mass centres, link frames */
    double I[3][9];      /* inertia about the mass centre, link axes */
    int powered[3];
} Centrifuge;

/* Positions, axes and velocity Jacobians of the three links at one q (all base frame). */
typedef struct {
    double R[3][9];     /* A01, A02, A03 */
    double z[3][3];     /* joint axes: z0, -y1, x2 */
    double rc[3][3];    /* mass centres */
    double T[3][3][3];  /* T[i][a] = d rc_i / d q_a, zero for a > i (eq. 9, T-bar) */
    double J[3][9];     /* inertia tensors about the mass centres, base axes */
} Kin;

static const char *const output_names[] = {"G", "Gx", "Gy", "Gz", "Ghead", "omega", "omegadot"};
enum { OUT_G, OUT_GX, OUT_GY, OUT_GZ, OUT_GHEAD, OUT_OMEGA, OUT_OMEGADOT, NOUT };

/* ---- creation ---- */

static int fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen) snprintf(err, errlen, "centrifuge: %s", msg);
    return MODEL_EINVAL;
}

/* Copy the machine out of the description and validate it. */
static int centrifuge_create(const ModelDesc *d, void **out, char *err, size_t errlen)
{
    if (d->njoints != CENTRIFUGE_DOF) return fail(err, errlen, "needs exactly 3 joints (planetary, pitch, roll)");
    double a1, head = 0.0;
    int st = model_param_get(d, "arm_length", 1, "m", &a1, err, errlen);
    if (st == 0) return model_param_bad(d, err, errlen, "arm_length", "required (a length > 0 m)");
    if (st > 0 && !(a1 > 0.0)) return model_param_bad(d, err, errlen, "arm_length", "must be > 0 m");
    if (st < 0 || model_param_get(d, "head_height", 1, "m", &head, err, errlen) < 0) return MODEL_EINVAL;
    double g = v3_norm(d->gravity);
    if (!(g > 0.0) || !isfinite(g)) return fail(err, errlen, "gravity must be non-zero (it is the G unit)");
    for (int i = 0; i < 3; i++) {
        const ModelJoint *j = &d->joint[i];
        if (j->type != MODEL_REVOLUTE) return fail(err, errlen, "all three joints are revolute");
        if (!(j->mass >= 0.0) || !isfinite(j->mass)) return fail(err, errlen, "bad link mass");
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                if (!isfinite(j->inertia[3 * r + c]) || fabs(j->inertia[3 * r + c] - j->inertia[3 * c + r]) >
                                                            1e-9 * (1.0 + fabs(j->inertia[3 * r + c])))
                    return fail(err, errlen, "inertia tensors must be symmetric and finite");
    }
    Centrifuge *s = calloc(1, sizeof *s);
    if (!s) return MODEL_ENOMEM;
    s->a1 = a1;
    s->head = head;
    v3_copy(s->gvec, d->gravity);
    s->g = g;
    for (int i = 0; i < 3; i++) {
        s->m[i] = d->joint[i].mass;
        v3_copy(s->com[i], d->joint[i].com);
        memcpy(s->I[i], d->joint[i].inertia, sizeof s->I[i]);
        s->powered[i] = d->joint[i].powered;
    }
    *out = s;
    return MODEL_OK;
}

static void centrifuge_destroy(void *s) { free(s); }

/* ---- kinematics of the links ---- */

/* Fill k at q: link frames, axes, mass centres, their Jacobians T and the base-frame inertia tensors. */
static void kin_eval(const Centrifuge *s, const double q[3], Kin *k)
{
    double E[3], Jw[9], tmp[9], RT[9];
    for (int i = 0; i < 3; i++) centrifuge_link_rotation(q, i, k->R[i]);
    centrifuge_seat(s->a1, q, E);
    centrifuge_jacobian_omega(q, Jw);
    for (int a = 0; a < 3; a++) v3_set(k->z[a], Jw[a], Jw[3 + a], Jw[6 + a]);
    /* Axis 1 passes through the base origin, axes 2 and 3 through the seat E. */
    const double *p[3] = {(const double[3]){0, 0, 0}, E, E};
    for (int i = 0; i < 3; i++) {
        m3_mulv(k->rc[i], k->R[i], s->com[i]);
        if (i > 0) v3_add(k->rc[i], k->rc[i], E);
        for (int a = 0; a < 3; a++) {
            if (a > i) { v3_set(k->T[i][a], 0, 0, 0); continue; }
            double d[3];
            v3_sub(d, k->rc[i], p[a]);
            v3_cross(k->T[i][a], k->z[a], d);
        }
        m3_mul(tmp, k->R[i], s->I[i]);
        m3_transpose(RT, k->R[i]);
        m3_mul(k->J[i], tmp, RT);
    }
}

/* d T[i][a] / d q_k: rigid rotation about axis k for k <= a, the motion of rc_i for a < k <= i, else 0. */
static void dT(const Kin *k, int i, int a, int kk, double out[3])
{
    if (kk > i || a > i) v3_set(out, 0, 0, 0);
    else if (kk <= a) v3_cross(out, k->z[kk], k->T[i][a]);
    else v3_cross(out, k->z[a], k->T[i][kk]);
}

/* d z_a / d q_k = z_k x z_a for k < a, else 0. */
static void dz(const Kin *k, int a, int kk, double out[3])
{
    if (kk < a) v3_cross(out, k->z[kk], k->z[a]);
    else v3_set(out, 0, 0, 0);
}

/* ---- dynamics: the covariant Lagrange equations ---- */

/* Metric a_ab = sum_i m_i T_ia . T_ib + z_a . J_i z_b (eq. 18: E_k = 1/2 qd' a qd) and, when da is not NULL,
 * da[k][a][b] = d a_ab / d q_k from the analytic derivatives of T, z and J_i (dJ_i/dq_k = [z_k]x J_i - J_i [z_k]x). */
static void metric(const Centrifuge *s, const Kin *k, double a[9], double *da)
{
    for (int x = 0; x < 3; x++)
        for (int y = x; y < 3; y++) {
            double v = 0.0;
            for (int i = y; i < 3; i++) {
                double Jz[3];
                m3_mulv(Jz, k->J[i], k->z[y]);
                v += s->m[i] * v3_dot(k->T[i][x], k->T[i][y]) + v3_dot(k->z[x], Jz);
            }
            a[3 * x + y] = a[3 * y + x] = v; /* exactly symmetric */
        }
    if (!da) return;
    for (int kk = 0; kk < 3; kk++)
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++) {
                double v = 0.0;
                int i0 = x > y ? x : y;
                for (int i = i0; i < 3; i++) {
                    if (kk > i) continue;
                    double dTx[3], dTy[3], dzx[3], dzy[3], Jz[3], Jdz[3], zkJz[3], zkz[3], Jzkz[3];
                    dT(k, i, x, kk, dTx);
                    dT(k, i, y, kk, dTy);
                    dz(k, x, kk, dzx);
                    dz(k, y, kk, dzy);
                    m3_mulv(Jz, k->J[i], k->z[y]);
                    m3_mulv(Jdz, k->J[i], dzy);
                    v3_cross(zkJz, k->z[kk], Jz);
                    v3_cross(zkz, k->z[kk], k->z[y]);
                    m3_mulv(Jzkz, k->J[i], zkz);
                    v += s->m[i] * (v3_dot(dTx, k->T[i][y]) + v3_dot(k->T[i][x], dTy)) + v3_dot(dzx, Jz) +
                         v3_dot(k->z[x], Jdz) + v3_dot(k->z[x], zkJz) - v3_dot(k->z[x], Jzkz);
                }
                da[9 * kk + 3 * x + y] = v;
            }
}

/* Gravity's generalized force Q^G_a = sum_i m_i g . T_ia (eq. 15). */
static void gravity_force(const Centrifuge *s, const Kin *k, double QG[3])
{
    for (int a = 0; a < 3; a++) {
        QG[a] = 0.0;
        for (int i = a; i < 3; i++) QG[a] += s->m[i] * v3_dot(s->gvec, k->T[i][a]);
    }
}

/* h_c = sum_ab Gamma_{ab,c} qd_a qd_b - Q^G_c with Gamma_{ab,c} = 1/2 (d_a a_bc + d_b a_ca - d_c a_ab) (eq. 17). */
static void bias_terms(const Centrifuge *s, const Kin *k, const double da[27], const double *qd, double h[3])
{
    double QG[3];
    gravity_force(s, k, QG);
    for (int c = 0; c < 3; c++) {
        double v = 0.0;
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++) {
                double gam = 0.5 * (da[9 * x + 3 * y + c] + da[9 * y + 3 * c + x] - da[9 * c + 3 * x + y]);
                v += gam * qd[x] * qd[y];
            }
        h[c] = v - QG[c];
    }
}

void centrifuge_geometry(void *st, double *a1, double *g, double *head)
{
    const Centrifuge *s = st;
    if (a1) *a1 = s->a1;
    if (g) *g = s->g;
    if (head) *head = s->head;
}

int centrifuge_metric(void *st, const double q[3], double a[9], double *da)
{
    Kin k;
    kin_eval(st, q, &k);
    metric(st, &k, a, da);
    return MODEL_OK;
}

int centrifuge_energy(void *st, const double q[3], const double qd[3], double *energy)
{
    const Centrifuge *s = st;
    Kin k;
    double a[9], aq[3];
    kin_eval(s, q, &k);
    metric(s, &k, a, NULL);
    m3_mulv(aq, a, qd);
    double e = 0.5 * v3_dot(qd, aq);
    for (int i = 0; i < 3; i++) e -= s->m[i] * v3_dot(s->gvec, k.rc[i]);
    *energy = e;
    return MODEL_OK;
}

/* tau = a(q) qdd + h(q, qd): eq. 16 solved for the actuator force Q_a. */
static int centrifuge_inverse_dynamics(void *st, const double *q, const double *qd, const double *qdd, double *tau)
{
    Kin k;
    double a[9], da[27], h[3], aq[3];
    kin_eval(st, q, &k);
    metric(st, &k, a, da);
    bias_terms(st, &k, da, qd, h);
    m3_mulv(aq, a, qdd);
    v3_add(tau, aq, h);
    return MODEL_OK;
}

static int centrifuge_mass_matrix(void *st, const double *q, double *M)
{
    return centrifuge_metric(st, q, M, NULL);
}

static int centrifuge_bias(void *st, const double *q, const double *qd, double *h)
{
    Kin k;
    double a[9], da[27];
    kin_eval(st, q, &k);
    metric(st, &k, a, da);
    bias_terms(st, &k, da, qd, h);
    return MODEL_OK;
}

/* qdd = a^-1 (tau - h). */
static int centrifuge_forward_dynamics(void *st, const double *q, const double *qd, const double *tau, double *qdd)
{
    Kin k;
    double a[9], da[27], h[3];
    kin_eval(st, q, &k);
    metric(st, &k, a, da);
    bias_terms(st, &k, da, qd, h);
    for (int i = 0; i < 3; i++) qdd[i] = tau[i] - h[i];
    return spd_solve(a, qdd, 3, 3, 1e-12);
}

/* Powered joints: qdd given, tau computed; unpowered: tau given, qdd from a_NN qdd_N = tau_N - h_N - a_NP qdd_P. */
static int centrifuge_semi_inverse(void *st, const double *q, const double *qd, double *qdd, double *tau)
{
    const Centrifuge *s = st;
    Kin k;
    double a[9], da[27], h[3], A[9], b[3];
    int idx[3], n = 0;
    kin_eval(s, q, &k);
    metric(s, &k, a, da);
    bias_terms(s, &k, da, qd, h);
    for (int i = 0; i < 3; i++)
        if (!s->powered[i]) idx[n++] = i;
    for (int r = 0; r < n; r++) {
        b[r] = tau[idx[r]] - h[idx[r]];
        for (int c = 0; c < 3; c++)
            if (s->powered[c]) b[r] -= a[3 * idx[r] + c] * qdd[c];
        for (int c = 0; c < n; c++) A[3 * r + c] = a[3 * idx[r] + idx[c]];
    }
    int st2 = spd_solve(A, b, n, 3, 1e-12);
    if (st2 < 0) return st2;
    for (int r = 0; r < n; r++) qdd[idx[r]] = b[r];
    for (int i = 0; i < 3; i++) {
        if (!s->powered[i]) continue;
        tau[i] = h[i];
        for (int c = 0; c < 3; c++) tau[i] += a[3 * i + c] * qdd[c];
    }
    return MODEL_OK;
}

/* ---- model operations: kinematics ---- */

/* Link 0: the arm frame at the base origin; links 1, 2 and the tool (-1): the seat E with A02 / A03. */
static int centrifuge_fk(void *st, const double *q, int link, double pos[3], double R[9])
{
    const Centrifuge *s = st;
    if (link < -1 || link > 2) return MODEL_EINVAL;
    if (link == -1) link = 2;
    if (link == 0) v3_set(pos, 0, 0, 0);
    else centrifuge_seat(s->a1, q, pos);
    centrifuge_link_rotation(q, link, R);
    return MODEL_OK;
}

/* IK of the seat pose: the orientation fixes q (corrected eqs. 11); the position must then agree with q1 (C17).
 * At q2 = +-pi/2 the orientation leaves q1 free and the position supplies it. */
static int centrifuge_ik(void *st, const double pos[3], const double quat[4], const double *q_seed, double *q,
                         ModelIkInfo *info)
{
    const Centrifuge *s = st;
    const double tol = 1e-6; /* m: position/orientation disagreement accepted as round-off */
    double qn = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    if (!isfinite(qn) || fabs(qn - 1.0) > 1e-6) return MODEL_EINVAL;
    if (!isfinite(pos[0]) || !isfinite(pos[1]) || !isfinite(pos[2])) return MODEL_EINVAL;
    double u[4] = {quat[0] / qn, quat[1] / qn, quat[2] / qn, quat[3] / qn}, R[9], seed[3], E[3], Rq[9], re[3];
    quat_to_m3(R, u);
    /* The seat's azimuth is q1 (mod 2 pi): put it into the seed so that it picks the orientation's branch. */
    double q1 = dm_atan2(pos[1], pos[0]);
    if (q_seed) q1 += 2.0 * M_PI * nearbyint((q_seed[0] - q1) / (2.0 * M_PI));
    v3_set(seed, q1, q_seed ? q_seed[1] : 0.0, q_seed ? q_seed[2] : 0.0);
    if (centrifuge_ik_orientation(R, seed, q) || fabs(dm_cos(q[1])) < 1e-6) {
        /* At (or next to) the mechanism singularity the orientation fixes only q1 +- q3: q1 comes from the
         * position, q2 and q3 from the orientation with that q1. */
        centrifuge_ik_given_q1(R, q1, q);
        if (q_seed) q[2] += 2.0 * M_PI * nearbyint((q_seed[2] - q[2]) / (2.0 * M_PI));
    }
    centrifuge_seat(s->a1, q, E);
    v3_sub(E, pos, E);
    centrifuge_link_rotation(q, 2, Rq);
    m3_rotation_error(re, Rq, R);
    double res = v3_norm(E) + v3_norm(re);
    if (info) { info->iterations = 0; info->residual = res; }
    return v3_norm(E) > tol ? MODEL_EUNREACH : MODEL_OK;
}

/* Rows vx vy vz (J_I) and wx wy wz (J_omega), base frame, at the seat. */
static int centrifuge_jacobian(void *st, const double *q, double *J)
{
    const Centrifuge *s = st;
    double JI[9], Jw[9];
    centrifuge_jacobian_position(s->a1, q, JI);
    centrifuge_jacobian_omega(q, Jw);
    memcpy(J, JI, sizeof JI);
    memcpy(J + 9, Jw, sizeof Jw);
    return MODEL_OK;
}

/* The mechanism's own singularity |c2| = |det J_omega|; the Euler-angle one is a property of the representation
 * (centrifuge_singularity_euler) and would flag the upright rest pose. */
static int centrifuge_singularity(void *st, const double *q, const double band[2], double *measure)
{
    (void)st, (void)band;
    *measure = centrifuge_singularity_mechanism(q);
    return MODEL_OK;
}

/* ---- G-load outputs ---- */

static int centrifuge_output_count(void *st) { (void)st; return NOUT; }

static const char *centrifuge_output_name(void *st, int i)
{
    (void)st;
    return i >= 0 && i < NOUT ? output_names[i] : NULL;
}

static const char *centrifuge_output_unit(void *st, int i)
{
    static const char *const unit[] = {"G", "G", "G", "G", "G", "rad/s", "rad/s^2"};
    (void)st;
    return i >= 0 && i < NOUT ? unit[i] : NULL;
}

/* Specific force f = a - g at the seat (in gondola frame 3) and at the head E + h z3, in units of |g|. */
static int centrifuge_outputs(void *st, const double *q, const double *qd, const double *qdd, double *out)
{
    const Centrifuge *s = st;
    double c1, s1, A03[9], Jw[9], f[3], f3[3];
    dm_sincos(q[0], &s1, &c1);
    double aE[3] = {s->a1 * (-s1 * qdd[0] - c1 * qd[0] * qd[0]), s->a1 * (c1 * qdd[0] - s1 * qd[0] * qd[0]), 0.0};
    v3_sub(f, aE, s->gvec);
    centrifuge_link_rotation(q, 2, A03);
    m3_tmulv(f3, A03, f);
    out[OUT_G] = v3_norm(f) / s->g;
    out[OUT_GX] = f3[0] / s->g;
    out[OUT_GY] = f3[1] / s->g;
    out[OUT_GZ] = f3[2] / s->g;
    /* Head: a_H = a_E + h (wd x z3 + w x (w x z3)); wd = J_w qdd + (qd1 z1 x z2) qd2 + ((qd1 z1 + qd2 z2) x z3) qd3. */
    centrifuge_jacobian_omega(q, Jw);
    double z[3][3], w[3], wd[3], t[3], u[3], zh[3] = {A03[2], A03[5], A03[8]}, aH[3];
    for (int a = 0; a < 3; a++) v3_set(z[a], Jw[a], Jw[3 + a], Jw[6 + a]);
    m3_mulv(w, Jw, qd);
    m3_mulv(wd, Jw, qdd);
    v3_cross(t, z[0], z[1]);
    v3_axpy(wd, qd[0] * qd[1], t);
    double w2[3] = {qd[0] * z[0][0] + qd[1] * z[1][0], qd[0] * z[0][1] + qd[1] * z[1][1],
                    qd[0] * z[0][2] + qd[1] * z[1][2]};
    v3_cross(t, w2, z[2]);
    v3_axpy(wd, qd[2], t);
    v3_copy(aH, aE);
    v3_cross(t, wd, zh);
    v3_axpy(aH, s->head, t);
    v3_cross(t, w, zh);
    v3_cross(u, w, t);
    v3_axpy(aH, s->head, u);
    v3_sub(f, aH, s->gvec);
    out[OUT_GHEAD] = v3_norm(f) / s->g;
    out[OUT_OMEGA] = qd[0];
    out[OUT_OMEGADOT] = qdd[0];
    return MODEL_OK;
}

/* G-profiles: the GMOVE map needs the arm and the G unit. */
static int centrifuge_gprofile(void *st, double *a1, double *g)
{
    centrifuge_geometry(st, a1, g, NULL);
    return MODEL_OK;
}

/* The six graphs of seed 000 section 4 (Figs. 3-8): commanded G, planetary actuator moment, its angular
 * acceleration, the x component of the seat's linear acceleration in the base frame, its angular velocity and its
 * angle. The seat moves on the horizontal circle (a1 cos q1, a1 sin q1, 0) (ERRATA C17), so its base-frame x
 * acceleration is exactly -q1'^2 x - q1'' y from the trace's own columns; the back-end has no such output. */
static const ModelPlotGroup centrifuge_plots[] = {
    {"planetary", "planetary axis (seed 000, section 4)", 6, {
        {"commanded G (Fig. 3)", MODEL_PLOT_OUTPUT, 0, "G", NULL, NULL},
        {"planetary actuator moment (Fig. 4)", MODEL_PLOT_TAU, 0, NULL, NULL, NULL},
        {"planetary angular acceleration (Fig. 5)", MODEL_PLOT_QDD, 0, NULL, NULL, NULL},
        {"seat linear acceleration x, base frame (Fig. 6)", MODEL_PLOT_EXPR, 0, NULL,
         "-{qd:0}**2 * {pose:0} - {qdd:0} * {pose:1}", "m/s^2"},
        {"planetary angular velocity (Fig. 7)", MODEL_PLOT_QD, 0, NULL, NULL, NULL},
        {"planetary angle (Fig. 8)", MODEL_PLOT_Q, 0, NULL, NULL, NULL},
    }},
};

const ModelType model_centrifuge = {
    .name = "centrifuge",
    .create = centrifuge_create,
    .destroy = centrifuge_destroy,
    .fk = centrifuge_fk,
    .ik = centrifuge_ik,
    .jacobian = centrifuge_jacobian,
    .singularity = centrifuge_singularity,
    .inverse_dynamics = centrifuge_inverse_dynamics,
    .mass_matrix = centrifuge_mass_matrix,
    .bias = centrifuge_bias,
    .forward_dynamics = centrifuge_forward_dynamics,
    .semi_inverse = centrifuge_semi_inverse,
    .output_count = centrifuge_output_count,
    .output_name = centrifuge_output_name,
    .output_unit = centrifuge_output_unit,
    .outputs = centrifuge_outputs,
    .gprofile = centrifuge_gprofile,
    .nplots = 1,
    .plots = centrifuge_plots,
};
