/* test_stewart.c — the `stewart` back-end (seed 003, ERRATA S1-S6): rotation and angular-velocity matrices against
 * products of elementary rotations and finite differences, FK(legs) o IK round trips, Jacobians against finite
 * differences, Fichter's singularity, and the inverse dynamics three independent ways (the paper's eq. 18 in
 * mass-centre coordinates written here, the committed `chain` back-end's Newton-Euler on the serial twin
 * P-P-P-Rz-Ry-Rx, and Lagrange's equations by finite differences of an energy written here), energy balance,
 * the mass matrix, forward dynamics, the leg outputs and the machine file. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "geom.h"
#include "machine.h"
#include "model.h"
#include "stewart.h"
#include "utest.h"

/* ---- helpers ---- */

static uint64_t rng_state = 0x5DEECE66Dull;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
    return lo + (hi - lo) * ((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static double max_abs_diff(const double *a, const double *b, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static double max_abs(const double *a, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

#define DEG (M_PI / 180.0)

/* The flight-simulator machine of models/stewart_flightsim.irm, built by hand (the machine-file test compares). */
static void desc_flightsim(ModelDesc *d)
{
    model_desc_init(d);
    snprintf(d->name, sizeof d->name, "heli_sim");
    snprintf(d->backend, sizeof d->backend, "stewart");
    d->njoints = 6;
    const char *names[6] = {"x", "y", "z", "roll", "pitch", "yaw"};
    for (int i = 0; i < 6; i++) {
        snprintf(d->joint[i].name, sizeof d->joint[i].name, "%s", names[i]);
        snprintf(d->joint[i].link, sizeof d->joint[i].link, "%s", names[i]);
        d->joint[i].type = i < 3 ? MODEL_PRISMATIC : MODEL_REVOLUTE;
        d->joint[i].parent = i - 1;
    }
    d->joint[2].home = 2.05;
    struct { const char *n; int k; double v[6]; } p[] = {
        {"base_radius", 1, {1.30}}, {"base_e", 1, {1.50}}, {"base_d", 1, {0}},
        {"base_lambda", 6, {0, 0, 120 * DEG, 120 * DEG, 240 * DEG, 240 * DEG}},
        {"platform_radius", 1, {1.38}}, {"platform_e", 1, {-0.25}}, {"platform_d", 1, {0}},
        {"platform_delta", 6, {0, 0, 120 * DEG, 120 * DEG, 240 * DEG, 240 * DEG}},
        {"platform_mass", 1, {3000}}, {"platform_com", 3, {0.10, 0, 0.95}},
        {"platform_inertia", 6, {2600, 5000, 5600, 0, -150, 0}}};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        ModelParam *mp = &d->param[d->nparams++];
        snprintf(mp->name, sizeof mp->name, "%s", p[i].n);
        mp->n = p[i].k;
        memcpy(mp->v, p[i].v, sizeof p[i].v);
    }
    for (int i = 0; i < 6; i++) {
        ModelOutputLimit *o = &d->output_limit[d->noutput_limits++];
        snprintf(o->name, sizeof o->name, "L%d", i + 1);
        o->min = 1.90, o->max = 2.90;
    }
}

static ModelParam *add_param(ModelDesc *d, const char *name, int n, const double *v)
{
    ModelParam *mp = &d->param[d->nparams++];
    snprintf(mp->name, sizeof mp->name, "%s", name);
    mp->n = n;
    memcpy(mp->v, v, (size_t)n * sizeof *v);
    return mp;
}

/* A random machine: explicit anchors near two circles, random mass, mass centre, full inertia tensor (a random
 * rotation of random principal moments), gravity tilted when `tilt`. Home z = 2. */
typedef struct {
    double b[18], a[18], m, c[3], I[9], g[3];
} RandMach;

static void rand_machine(ModelDesc *d, RandMach *rm, int tilt)
{
    model_desc_init(d);
    snprintf(d->backend, sizeof d->backend, "stewart");
    d->njoints = 6;
    for (int i = 0; i < 6; i++) d->joint[i].type = i < 3 ? MODEL_PRISMATIC : MODEL_REVOLUTE;
    d->joint[2].home = 2.0;
    for (int i = 0; i < 6; i++) {
        double ab = (i / 2) * 120 * DEG + (i % 2 ? 1 : -1) * urand(35, 55) * DEG;
        double ap = (i / 2) * 120 * DEG + (i % 2 ? 1 : -1) * urand(5, 20) * DEG;
        double rb = urand(1.7, 2.3), rp = urand(1.1, 1.6);
        v3_set(rm->b + 3 * i, rb * cos(ab), rb * sin(ab), urand(-0.1, 0.1));
        v3_set(rm->a + 3 * i, rp * cos(ap), rp * sin(ap), urand(-0.1, 0.1));
    }
    add_param(d, "base_anchors", 18, rm->b);
    add_param(d, "platform_anchors", 18, rm->a);
    rm->m = urand(500, 5000);
    v3_set(rm->c, urand(-0.4, 0.4), urand(-0.4, 0.4), urand(0, 1.2));
    double ax[3] = {urand(-1, 1), urand(-1, 1), urand(-1, 1)}, Rr[9], P[9] = {0}, T[9], RT[9];
    double n = v3_norm(ax);
    v3_scale(ax, ax, 1.0 / n);
    m3_axis_angle(Rr, ax, urand(0, M_PI));
    P[0] = urand(500, 6000), P[4] = urand(500, 6000), P[8] = urand(500, 6000);
    m3_mul(T, Rr, P);
    m3_transpose(RT, Rr);
    m3_mul(rm->I, T, RT);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++) rm->I[3 * i + j] = rm->I[3 * j + i]; /* exactly symmetric */
    add_param(d, "platform_mass", 1, &rm->m);
    add_param(d, "platform_com", 3, rm->c);
    double I6[6] = {rm->I[0], rm->I[4], rm->I[8], rm->I[1], rm->I[2], rm->I[5]};
    add_param(d, "platform_inertia", 6, I6);
    if (tilt) v3_set(rm->g, urand(-3, 3), urand(-3, 3), -9.81);
    else v3_set(rm->g, 0, 0, -9.81);
    v3_copy(d->gravity, rm->g);
}

static void *create(const ModelDesc *d)
{
    void *s = NULL;
    char err[512] = "";
    int st = model_stewart.create(d, &s, err, sizeof err);
    if (st < 0) printf("#   create failed: %s\n", err);
    return s;
}

/* A random pose near the home of the flight simulator, within its axis limits. */
static void rand_pose(double q[6], double scale)
{
    q[0] = scale * urand(-0.5, 0.5);
    q[1] = scale * urand(-0.45, 0.45);
    q[2] = 2.05 + scale * urand(-0.3, 0.3);
    q[3] = scale * urand(-22, 22) * DEG;
    q[4] = scale * urand(-22, 22) * DEG;
    q[5] = scale * urand(-28, 28) * DEG;
}

/* The rotation as a product of elementary rotations built here (Rodrigues). */
static void rot_zyx(const double eta[3], double R[9])
{
    double Rx[9], Ry[9], Rz[9], T[9];
    m3_axis_angle(Rx, (double[3]){1, 0, 0}, eta[0]);
    m3_axis_angle(Ry, (double[3]){0, 1, 0}, eta[1]);
    m3_axis_angle(Rz, (double[3]){0, 0, 1}, eta[2]);
    m3_mul(T, Ry, Rx);
    m3_mul(R, Rz, T);
}

/* The vector w of a skew matrix S = [w]x (averaging the antisymmetric part). */
static void vee(const double S[9], double w[3])
{
    v3_set(w, 0.5 * (S[7] - S[5]), 0.5 * (S[2] - S[6]), 0.5 * (S[3] - S[1]));
}

/* Solve A x = b (n x n, destroyed), Gauss-Jordan with full row pivoting, written here. */
static int solve_n(int n, double *A, double *b)
{
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c; r < n; r++)
            if (fabs(A[n * r + c]) > fabs(A[n * p + c])) p = r;
        if (A[n * p + c] == 0.0) return -1;
        for (int j = 0; j < n; j++) {
            double t = A[n * c + j]; A[n * c + j] = A[n * p + j]; A[n * p + j] = t;
        }
        double t = b[c]; b[c] = b[p]; b[p] = t;
        for (int r = 0; r < n; r++) {
            if (r == c) continue;
            double f = A[n * r + c] / A[n * c + c];
            for (int j = 0; j < n; j++) A[n * r + j] -= f * A[n * c + j];
            b[r] -= f * b[c];
        }
    }
    for (int r = 0; r < n; r++) b[r] /= A[n * r + r];
    return 0;
}

/* ---- 1. the rotation, Omega and Omega-dot ---- */

UTEST(rotation_omega)
{
    double worst_R = 0, worst_S4 = 0, worst_Om = 0, worst_det = 0, worst_wb = 0;
    for (int n = 0; n < 500; n++) {
        double eta[3] = {urand(-1.5, 1.5), urand(-1.5, 1.5), urand(-3, 3)}, R[9], Rref[9], Om[9];
        stewart_rotation(eta, R);
        rot_zyx(eta, Rref);
        worst_R = fmax(worst_R, max_abs_diff(R, Rref, 9));
        /* ERRATA S4 entries, written out: alpha_k, beta_k, gamma_k are rows of R */
        double cs = cos(eta[0]), ss = sin(eta[0]), ct = cos(eta[1]), st = sin(eta[1]), cf = cos(eta[2]),
               sf = sin(eta[2]);
        double S4[9] = {cf * ct, cf * st * ss - sf * cs, cf * st * cs + sf * ss,
                        sf * ct, sf * st * ss + cf * cs, sf * st * cs - cf * ss,
                        -st,     ct * ss,                ct * cs};
        worst_S4 = fmax(worst_S4, max_abs_diff(R, S4, 9));
        /* Omega column j = vee(dR/deta_j R'), by central differences */
        stewart_omega_matrix(eta, Om);
        double RT[9];
        m3_transpose(RT, Rref);
        for (int j = 0; j < 3; j++) {
            double e1[3], e2[3], Rp[9], Rm[9], D[9], S[9], w[3], h = 1e-6;
            memcpy(e1, eta, sizeof e1);
            memcpy(e2, eta, sizeof e2);
            e1[j] += h, e2[j] -= h;
            rot_zyx(e1, Rp);
            rot_zyx(e2, Rm);
            for (int k = 0; k < 9; k++) D[k] = (Rp[k] - Rm[k]) / (2 * h);
            m3_mul(S, D, RT);
            vee(S, w);
            for (int i = 0; i < 3; i++) worst_Om = fmax(worst_Om, fabs(w[i] - Om[3 * i + j]));
        }
        double det = Om[0] * (Om[4] * Om[8] - Om[5] * Om[7]) - Om[1] * (Om[3] * Om[8] - Om[5] * Om[6]) +
                     Om[2] * (Om[3] * Om[7] - Om[4] * Om[6]);
        worst_det = fmax(worst_det, fabs(det - ct)); /* ERRATA S6: det Omega = cos theta */
        /* Omega-dot etad against d/dt (Omega(eta(t))) etad at t = 0 along eta(t) = eta + t etad */
        double etad[3] = {urand(-2, 2), urand(-2, 2), urand(-2, 2)}, wb[3], Op[9], Omm[9], h = 1e-6;
        double ep[3], em[3];
        for (int i = 0; i < 3; i++) ep[i] = eta[i] + h * etad[i], em[i] = eta[i] - h * etad[i];
        stewart_omega_matrix(ep, Op);
        stewart_omega_matrix(em, Omm);
        stewart_omega_bias(eta, etad, wb);
        for (int i = 0; i < 3; i++) {
            double v = 0;
            for (int j = 0; j < 3; j++) v += (Op[3 * i + j] - Omm[3 * i + j]) / (2 * h) * etad[j];
            worst_wb = fmax(worst_wb, fabs(v - wb[i]));
        }
    }
    printf("#   rotation vs Rz Ry Rx %.1e, vs ERRATA S4 %.1e, Omega vs FD %.1e, det-cos %.1e, Omega-dot %.1e\n",
           worst_R, worst_S4, worst_Om, worst_det, worst_wb);
    CHECK(worst_R < 1e-15);
    CHECK(worst_S4 < 1e-15);
    CHECK(worst_Om < 1e-8);
    CHECK(worst_det < 1e-15);
    CHECK(worst_wb < 1e-7);
}

/* ---- 2. angles of a rotation ---- */

UTEST(euler_angles)
{
    double worst = 0;
    for (int n = 0; n < 2000; n++) {
        double eta[3] = {urand(-3, 3), urand(-1.55, 1.55), urand(-3, 3)}, R[9], back[3];
        stewart_rotation(eta, R);
        CHECK(stewart_euler(R, NULL, back) == 0);
        worst = fmax(worst, max_abs_diff(eta, back, 3));
        /* a seed two turns away brings roll and yaw along */
        double seed[3] = {eta[0] + 4 * M_PI + 0.3, 0, eta[2] - 4 * M_PI - 0.2}, w[3];
        stewart_euler(R, seed, w);
        CHECK(fabs(w[0] - (eta[0] + 4 * M_PI)) < 1e-9 && fabs(w[2] - (eta[2] - 4 * M_PI)) < 1e-9);
    }
    CHECK(worst < 1e-12);
    /* gimbal lock: pitch +-90 deg keeps the seed's yaw and reproduces the rotation */
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        double eta[3] = {0.4, sgn * M_PI / 2, -0.7}, R[9], back[3], R2[9], seed[3] = {0, 0, 0.25};
        stewart_rotation(eta, R);
        CHECK(stewart_euler(R, seed, back) == 1);
        CHECK(back[2] == 0.25);
        stewart_rotation(back, R2);
        CHECK(max_abs_diff(R, R2, 9) < 1e-12);
    }
}

/* ---- 3. the paper's anchor layout ---- */

UTEST(paper_anchors)
{
    ModelDesc d;
    desc_flightsim(&d);
    void *s = create(&d);
    CHECK(s != NULL);
    if (!s) return;
    double b[18], a[18];
    stewart_anchors(s, b, a);
    /* eqs. 5-7 and 8-10, 1-based i: B_i = Rz(lambda_i) (R_B, (-1)^i e_B, d_B),
     * A_i = Rz(delta_i) (r_p, (-1)^(i+1) e_p, d_p) */
    for (int i = 1; i <= 6; i++) {
        double lam = ((i - 1) / 2) * 120 * DEG, eb = (i % 2 ? -1 : 1) * 1.50, ep = (i % 2 ? 1 : -1) * -0.25;
        double B[3] = {1.30 * cos(lam) - eb * sin(lam), 1.30 * sin(lam) + eb * cos(lam), 0};
        double A[3] = {1.38 * cos(lam) - ep * sin(lam), 1.38 * sin(lam) + ep * cos(lam), 0};
        CHECK(max_abs_diff(B, b + 3 * (i - 1), 3) < 1e-15);
        CHECK(max_abs_diff(A, a + 3 * (i - 1), 3) < 1e-15);
    }
    /* the mid-stroke home: all six legs 2.4025 m at z = 2.05 (the machine file's comment) */
    double q[6] = {0, 0, 2.05, 0, 0, 0}, L[6];
    stewart_legs(s, q, L, NULL);
    for (int i = 0; i < 6; i++) CHECK(fabs(L[i] - sqrt(0.08 * 0.08 + 1.25 * 1.25 + 2.05 * 2.05)) < 1e-14);
    model_stewart.destroy(s);
    /* ERRATA S1: 120 deg for the last pair (as printed) puts legs 3, 4 and 5, 6 on the same points: refused */
    double bad[6] = {0, 0, 120 * DEG, 120 * DEG, 120 * DEG, 120 * DEG};
    for (int i = 0; i < d.nparams; i++)
        if (strcmp(d.param[i].name, "base_lambda") == 0) memcpy(d.param[i].v, bad, sizeof bad);
    void *s2 = NULL;
    char err[512] = "";
    CHECK(model_stewart.create(&d, &s2, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "share an anchor point") != NULL);
}

/* ---- 4. leg lengths, FK o IK ---- */

/* Leg lengths computed here from the anchors and the elementary rotations. */
static void legs_here(void *s, const double q[6], double L[6])
{
    double b[18], a[18], R[9];
    stewart_anchors(s, b, a);
    rot_zyx(q + 3, R);
    for (int i = 0; i < 6; i++) {
        double ra[3], l[3];
        m3_mulv(ra, R, a + 3 * i);
        for (int j = 0; j < 3; j++) l[j] = q[j] + ra[j] - b[3 * i + j];
        L[i] = v3_norm(l);
    }
}

UTEST(fk_ik_roundtrip)
{
    ModelDesc d;
    desc_flightsim(&d);
    void *s = create(&d);
    if (!s) { CHECK(0); return; }
    double worst_L = 0, worst_rt = 0, worst_ik = 0;
    int n_ok = 0, max_it = 0, n_out = 0;
    double lmin[6], lmax[6];
    stewart_stroke(s, lmin, lmax);
    while (n_ok < 2000) {
        double q[6], L[6], Lh[6], back[6], pos[3], R[9], quat[4], qi[6];
        rand_pose(q, 1.0);
        stewart_legs(s, q, L, NULL);
        legs_here(s, q, Lh);
        worst_L = fmax(worst_L, max_abs_diff(L, Lh, 6));
        /* the pose's tool point through IK (closed form) */
        model_stewart.fk(s, q, -1, pos, R);
        m3_to_quat(quat, R);
        ModelIkInfo info;
        int inside = 1;
        for (int i = 0; i < 6; i++) inside &= L[i] >= lmin[i] && L[i] <= lmax[i];
        int st = model_stewart.ik(s, pos, quat, NULL, qi, &info);
        CHECK(st == (inside ? MODEL_OK : MODEL_EUNREACH));
        worst_ik = fmax(worst_ik, max_abs_diff(q, qi, 6));
        if (!inside) { n_out++; continue; }
        /* the leg lengths back to the pose, Newton-Raphson from the home pose */
        st = stewart_fk_legs(s, L, NULL, back, &info);
        CHECK(st == MODEL_OK);
        max_it = info.iterations > max_it ? info.iterations : max_it;
        worst_rt = fmax(worst_rt, max_abs_diff(q, back, 6));
        n_ok++;
    }
    printf("#   2000 poses in the stroke (%d outside skipped): legs vs here %.1e m, IK %.1e, FK(IK) %.1e, "
           "<= %d Newton iterations\n", n_out, worst_L, worst_ik, worst_rt, max_it);
    CHECK(worst_L < 1e-14);
    CHECK(worst_ik < 1e-13);
    CHECK(worst_rt < 1e-9);
    CHECK(max_it <= 8);
    model_stewart.destroy(s);
}

UTEST(fk_seeded_and_errors)
{
    ModelDesc d;
    desc_flightsim(&d);
    void *s = create(&d);
    if (!s) { CHECK(0); return; }
    /* a 1 ms step of a motion: seeded with the previous pose, Newton needs two or three iterations */
    double q[6] = {0.1, -0.05, 2.1, 3 * DEG, -4 * DEG, 5 * DEG}, q2[6], L[6], back[6];
    ModelIkInfo info;
    memcpy(q2, q, sizeof q2);
    for (int i = 0; i < 6; i++) q2[i] += 1e-3 * (i + 1) * (i < 3 ? 0.5 : 0.01);
    stewart_legs(s, q2, L, NULL);
    CHECK(stewart_fk_legs(s, L, q, back, &info) == MODEL_OK);
    CHECK(info.iterations <= 3);
    CHECK(max_abs_diff(back, q2, 6) < 1e-12);
    CHECK(info.residual < 1e-12);
    /* lengths no pose has (far too short for the anchors' spread) */
    double Lbad[6] = {0.2, 0.2, 0.2, 0.2, 0.2, 0.2};
    CHECK(stewart_fk_legs(s, Lbad, NULL, back, &info) == MODEL_EUNREACH);
    Lbad[0] = -1;
    CHECK(stewart_fk_legs(s, Lbad, NULL, back, &info) == MODEL_EINVAL);
    Lbad[0] = NAN;
    CHECK(stewart_fk_legs(s, Lbad, NULL, back, &info) == MODEL_EINVAL);
    model_stewart.destroy(s);
}

UTEST(ik_workspace_and_tool)
{
    ModelDesc d;
    desc_flightsim(&d);
    /* a tool point: the pilot's eye, 0.4 m forward, 0.3 m left, 1.3 m up, looking along x tilted 10 deg */
    v3_set(d.tool_xyz, 0.4, 0.3, 1.3);
    m3_axis_angle(d.tool_R, (double[3]){0, 1, 0}, 10 * DEG);
    void *s = create(&d);
    if (!s) { CHECK(0); return; }
    double q[6] = {0.1, 0.2, 2.0, 5 * DEG, -8 * DEG, 12 * DEG}, pos[3], R[9], quat[4], qi[6], Rp[9];
    model_stewart.fk(s, q, -1, pos, R);
    /* the tool point by hand: p + R t, R R_tool */
    double Rq[9], t[3], ref[3], Rref[9];
    rot_zyx(q + 3, Rq);
    m3_mulv(t, Rq, d.tool_xyz);
    v3_add(ref, q, t);
    m3_mul(Rref, Rq, d.tool_R);
    CHECK(max_abs_diff(pos, ref, 3) < 1e-15 && max_abs_diff(R, Rref, 9) < 1e-15);
    model_stewart.fk(s, q, 3, ref, Rp); /* a pose axis' link: the platform frame */
    CHECK(max_abs_diff(ref, q, 3) == 0 && max_abs_diff(Rp, Rq, 9) < 1e-15);
    m3_to_quat(quat, R);
    ModelIkInfo info;
    CHECK(model_stewart.ik(s, pos, quat, NULL, qi, &info) == MODEL_OK);
    CHECK(max_abs_diff(qi, q, 6) < 1e-13);
    CHECK(info.residual < 1e-13 && info.iterations == 0);
    /* yaw near a seed a turn away */
    double seed[6] = {0, 0, 2, 0, 0, 2 * M_PI};
    CHECK(model_stewart.ik(s, pos, quat, seed, qi, &info) == MODEL_OK);
    CHECK(fabs(qi[5] - (q[5] + 2 * M_PI)) < 1e-12);
    /* out of the stroke: 0.6 m up puts every leg near 2.95 m > 2.90; the residual is the worst excess */
    double up[6] = {0, 0, 2.65, 0, 0, 0}, L[6];
    model_stewart.fk(s, up, -1, pos, R);
    m3_to_quat(quat, R);
    CHECK(model_stewart.ik(s, pos, quat, NULL, qi, &info) == MODEL_EUNREACH);
    stewart_legs(s, up, L, NULL);
    CHECK(fabs(info.residual - (max_abs(L, 6) - 2.90)) < 1e-12);
    CHECK(fabs(qi[2] - 2.65) < 1e-12); /* q is filled all the same */
    /* a non-unit quaternion is refused */
    double bad[4] = {1.1, 0, 0, 0};
    CHECK(model_stewart.ik(s, pos, bad, NULL, qi, &info) == MODEL_EINVAL);
    model_stewart.destroy(s);
}

/* ---- 5. Jacobians and the singularity measure ---- */

UTEST(jacobians_fd)
{
    ModelDesc d;
    desc_flightsim(&d);
    v3_set(d.tool_xyz, 0.4, 0.3, 1.3);
    void *s = create(&d);
    if (!s) { CHECK(0); return; }
    double worst_JL = 0, worst_J = 0;
    for (int n = 0; n < 200; n++) {
        double q[6], JL[36], J[36];
        rand_pose(q, 1.0);
        stewart_leg_jacobian(s, q, JL);
        model_stewart.jacobian(s, q, J);
        double p0[3], R0[9], R0T[9];
        model_stewart.fk(s, q, -1, p0, R0);
        m3_transpose(R0T, R0);
        for (int j = 0; j < 6; j++) {
            double qp[6], qm[6], Lp[6], Lm[6], pp[3], pm[3], Rp[9], Rm[9], h = 1e-6;
            memcpy(qp, q, sizeof qp);
            memcpy(qm, q, sizeof qm);
            qp[j] += h, qm[j] -= h;
            legs_here(s, qp, Lp);
            legs_here(s, qm, Lm);
            for (int i = 0; i < 6; i++) worst_JL = fmax(worst_JL, fabs((Lp[i] - Lm[i]) / (2 * h) - JL[6 * i + j]));
            model_stewart.fk(s, qp, -1, pp, Rp);
            model_stewart.fk(s, qm, -1, pm, Rm);
            double D[9], S[9], w[3];
            for (int k = 0; k < 9; k++) D[k] = (Rp[k] - Rm[k]) / (2 * h);
            m3_mul(S, D, R0T);
            vee(S, w);
            for (int i = 0; i < 3; i++) {
                worst_J = fmax(worst_J, fabs((pp[i] - pm[i]) / (2 * h) - J[6 * i + j]));
                worst_J = fmax(worst_J, fabs(w[i] - J[6 * (3 + i) + j]));
            }
        }
    }
    printf("#   leg Jacobian vs FD %.1e, tool Jacobian vs FD %.1e\n", worst_JL, worst_J);
    CHECK(worst_JL < 1e-8);
    CHECK(worst_J < 1e-8);
    model_stewart.destroy(s);
}

static double det6(const double *G)
{
    double A[36], b[6] = {0};
    memcpy(A, G, sizeof A);
    /* determinant by elimination with partial pivoting */
    double det = 1;
    for (int c = 0; c < 6; c++) {
        int p = c;
        for (int r = c; r < 6; r++)
            if (fabs(A[6 * r + c]) > fabs(A[6 * p + c])) p = r;
        if (p != c) {
            det = -det;
            for (int j = 0; j < 6; j++) { double t = A[6 * c + j]; A[6 * c + j] = A[6 * p + j]; A[6 * p + j] = t; }
        }
        det *= A[6 * c + c];
        if (A[6 * c + c] == 0) return 0;
        for (int r = c + 1; r < 6; r++) {
            double f = A[6 * r + c] / A[6 * c + c];
            for (int j = c; j < 6; j++) A[6 * r + j] -= f * A[6 * c + j];
        }
    }
    (void)b;
    return det;
}

UTEST(singularity_fichter)
{
    ModelDesc d;
    desc_flightsim(&d);
    void *s = create(&d);
    if (!s) { CHECK(0); return; }
    double q[6] = {0, 0, 2.05, 0, 0, 0}, m0, m;
    model_stewart.singularity(s, q, NULL, &m0);
    printf("#   singularity measure at home %.4f\n", m0);
    CHECK(m0 > 0.3 && m0 <= 1.0);
    /* Fichter (1986): this family (semi-regular hexagons, pairs 60 deg apart) is singular when the platform turns
     * 90 deg about the vertical, at any height. The leg Jacobian's determinant changes sign there. */
    for (double z = 1.8; z <= 2.4; z += 0.3) {
        double qa[6] = {0, 0, z, 0, 0, 89 * DEG}, qb[6] = {0, 0, z, 0, 0, 91 * DEG}, qs[6] = {0, 0, z, 0, 0, M_PI / 2};
        double Ja[36], Jb[36];
        stewart_leg_jacobian(s, qa, Ja);
        stewart_leg_jacobian(s, qb, Jb);
        CHECK(det6(Ja) * det6(Jb) < 0);
        model_stewart.singularity(s, qs, NULL, &m);
        CHECK(m < 1e-12);
        model_stewart.singularity(s, qa, NULL, &m);
        CHECK(m > 1e-3 && m < 0.05);
        double f[6], zero[6] = {0};
        CHECK(stewart_leg_forces(s, qs, zero, zero, f) == MODEL_ESINGULAR);
    }
    model_stewart.destroy(s);
}

/* ---- 6. dynamics ---- */

/* The paper's eq. 18 in its own coordinates X_P = (X_C, Y_C, Z_C, psi, theta, phi) of the mass centre C, written
 * here: tau = I_P^-T (M_P Xdd + C_P Xd + G_C), M_P = diag(m, m, m, Omega' I_0 Omega), C_P Xd = (0, Omega' (I_0
 * Omegadot etad + w x I_0 w)) (ERRATA S3), G_C = (-m g, 0) (the paper's (0, 0, m g, 0, 0, 0) for g = -g Z), I_P =
 * dL/dX_P with the platform anchors taken from C (eq. 11). */
static void paper_eq18(const RandMach *rm, const double q[6], const double qd[6], const double qdd[6], double tau[6])
{
    double R[9], Om[9], cw[3], w[3], wd[3], t[3], u[3];
    rot_zyx(q + 3, R);
    /* Omega from the columns Rz Ry ex, Rz ey, ez, and its time derivative by differences of that formula */
    double ct = cos(q[4]), st = sin(q[4]), cf = cos(q[5]), sf = sin(q[5]);
    double O[9] = {ct * cf, -sf, 0, ct * sf, cf, 0, -st, 0, 1};
    memcpy(Om, O, sizeof O);
    double td = qd[4], fd = qd[5];
    double Od[9] = {-st * td * cf - ct * sf * fd, -cf * fd, 0,
                    -st * td * sf + ct * cf * fd, -sf * fd, 0,
                    -ct * td, 0, 0};
    m3_mulv(cw, R, rm->c);
    m3_mulv(w, Om, qd + 3);
    double Odd[3];
    m3_mulv(Odd, Od, qd + 3);
    m3_mulv(wd, Om, qdd + 3);
    v3_add(wd, wd, Odd);
    /* C's motion from o's */
    double Xd[3], Xdd[3];
    v3_cross(t, w, cw);
    v3_add(Xd, qd, t);
    v3_cross(t, wd, cw);
    v3_cross(u, w, cw);
    double u2[3];
    v3_cross(u2, w, u);
    for (int i = 0; i < 3; i++) Xdd[i] = qdd[i] + t[i] + u2[i];
    (void)Xd;
    /* I_0 = R I R' and the angular terms */
    double I0[9], T[9], RT[9];
    m3_mul(T, R, rm->I);
    m3_transpose(RT, R);
    m3_mul(I0, T, RT);
    double rhs[6], a1[3], a2[3], a3[3], OmT[9];
    for (int i = 0; i < 3; i++) rhs[i] = rm->m * Xdd[i] - rm->m * rm->g[i];
    m3_transpose(OmT, Om);
    m3_mulv(a1, I0, wd); /* I_0 (Omega etadd + Omegadot etad): M_P and the first part of C_P together */
    m3_mulv(a2, I0, w);
    v3_cross(a3, w, a2);
    v3_add(a1, a1, a3);
    m3_mulv(rhs + 3, OmT, a1);
    /* I_P: legs from C: A_i = X_C + R (a_i - c) */
    double IP[36], IPT[36];
    for (int i = 0; i < 6; i++) {
        double ac[3], ra[3], l[3], L, uu[3], mo[3], mO[3];
        v3_sub(ac, rm->a + 3 * i, rm->c);
        m3_mulv(ra, R, ac);
        for (int j = 0; j < 3; j++) l[j] = q[j] + cw[j] + ra[j] - rm->b[3 * i + j];
        L = v3_norm(l);
        v3_scale(uu, l, 1 / L);
        v3_cross(mo, ra, uu);
        m3_tmulv(mO, Om, mo);
        for (int j = 0; j < 3; j++) IP[6 * i + j] = uu[j], IP[6 * i + 3 + j] = mO[j];
    }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) IPT[6 * i + j] = IP[6 * j + i];
    memcpy(tau, rhs, sizeof rhs);
    solve_n(6, IPT, tau);
}

static void rand_state(double q[6], double qd[6], double qdd[6])
{
    rand_pose(q, 1.0);
    q[2] = urand(1.8, 2.3);
    for (int i = 0; i < 6; i++) {
        qd[i] = i < 3 ? urand(-0.8, 0.8) : urand(-0.8, 0.8);
        qdd[i] = i < 3 ? urand(-6, 6) : urand(-5, 5);
    }
}

UTEST(id_vs_paper_eq18)
{
    double worst = 0;
    int machines = 0;
    for (int n = 0; n < 300; n++) {
        ModelDesc d;
        RandMach rm;
        rand_machine(&d, &rm, n % 2);
        void *s = NULL;
        char err[256];
        if (model_stewart.create(&d, &s, err, sizeof err) < 0) continue; /* a singular random home: another */
        machines++;
        for (int k = 0; k < 5; k++) {
            double q[6], qd[6], qdd[6], f[6], out[18], ref[6], sm;
            rand_state(q, qd, qdd);
            model_stewart.singularity(s, q, NULL, &sm);
            if (sm < 0.02) continue;
            CHECK(stewart_leg_forces(s, q, qd, qdd, f) == MODEL_OK);
            CHECK(model_stewart.outputs(s, q, qd, qdd, out) == MODEL_OK);
            CHECK(max_abs_diff(f, out + 12, 6) == 0);
            paper_eq18(&rm, q, qd, qdd, ref);
            double scale = fmax(max_abs(ref, 6), 1.0);
            worst = fmax(worst, max_abs_diff(f, ref, 6) / scale);
        }
        model_stewart.destroy(s);
    }
    printf("#   leg forces vs the paper's eq. 18 (mass-centre coordinates) on %d random machines: %.1e relative\n",
           machines, worst);
    CHECK(machines > 250);
    CHECK(worst < 1e-11);
}

/* The serial twin: prismatic x, y, z, then revolute about z (yaw), y (pitch), x (roll), the platform on the last
 * link: its link frame is (p, Rz Ry Rx), so the chain back-end's q = (x, y, z, phi, theta, psi). */
static void chain_twin(const RandMach *rm, ModelDesc *d)
{
    model_desc_init(d);
    snprintf(d->backend, sizeof d->backend, "chain");
    d->njoints = 6;
    const double axes[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}};
    for (int i = 0; i < 6; i++) {
        ModelJoint *j = &d->joint[i];
        snprintf(j->name, sizeof j->name, "j%d", i);
        snprintf(j->link, sizeof j->link, "l%d", i);
        j->parent = i - 1;
        j->type = i < 3 ? MODEL_PRISMATIC : MODEL_REVOLUTE;
        v3_copy(j->axis, axes[i]);
    }
    d->joint[5].mass = rm->m;
    v3_copy(d->joint[5].com, rm->c);
    memcpy(d->joint[5].inertia, rm->I, sizeof rm->I);
    v3_copy(d->gravity, rm->g);
}

UTEST(id_vs_chain_twin)
{
    static const int perm[6] = {0, 1, 2, 5, 4, 3}; /* chain index of each stewart coordinate */
    double worst_tau = 0, worst_M = 0;
    for (int n = 0; n < 100; n++) {
        ModelDesc d, dc;
        RandMach rm;
        rand_machine(&d, &rm, n % 2);
        void *s = NULL;
        char err[256] = "";
        if (model_stewart.create(&d, &s, err, sizeof err) < 0) continue;
        chain_twin(&rm, &dc);
        Model ch;
        if (model_open(&ch, &dc, err, sizeof err) < 0) {
            printf("#   chain: %s\n", err);
            CHECK(0);
            model_stewart.destroy(s);
            return;
        }
        for (int k = 0; k < 5; k++) {
            double q[6], qd[6], qdd[6], qc[6], qdc[6], qddc[6], tau[6], tc[6], M[36], Mc[36];
            rand_state(q, qd, qdd);
            for (int i = 0; i < 6; i++) qc[perm[i]] = q[i], qdc[perm[i]] = qd[i], qddc[perm[i]] = qdd[i];
            model_stewart.inverse_dynamics(s, q, qd, qdd, tau);
            CHECK(model_inverse_dynamics(&ch, qc, qdc, qddc, tc) == MODEL_OK);
            double scale = fmax(max_abs(tc, 6), 1.0);
            for (int i = 0; i < 6; i++) worst_tau = fmax(worst_tau, fabs(tau[i] - tc[perm[i]]) / scale);
            model_stewart.mass_matrix(s, q, M);
            model_mass_matrix(&ch, qc, Mc);
            double ms = max_abs(Mc, 36);
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++)
                    worst_M = fmax(worst_M, fabs(M[6 * i + j] - Mc[6 * perm[i] + perm[j]]) / ms);
        }
        model_close(&ch);
        model_stewart.destroy(s);
    }
    printf("#   pose-coordinate ID vs the chain back-end's RNE on the serial twin: tau %.1e, M %.1e relative\n",
           worst_tau, worst_M);
    CHECK(worst_tau < 1e-12);
    CHECK(worst_M < 1e-13);
}

/* Lagrange's equations by finite differences of an energy written here (T = 1/2 m |v_C|^2 + 1/2 w' I_0 w with
 * w = Omega etad from the columns Rz Ry ex, Rz ey, ez (checked against vee(Rdot R') in rotation_omega),
 * V = -m g . r_C): Q_j = d/dt dT/dqd_j - dT/dq_j + dV/dq_j along q(t) = q0 + qd0 t + qdd0 t^2/2. */
static double energy_T(const RandMach *rm, const double q[6], const double qd[6])
{
    double R[9], RT[9], w[3], cw[3], v[3], I0[9], T[9], Iw[3];
    double ct = cos(q[4]), st = sin(q[4]), cf = cos(q[5]), sf = sin(q[5]);
    double O[9] = {ct * cf, -sf, 0, ct * sf, cf, 0, -st, 0, 1};
    rot_zyx(q + 3, R);
    m3_transpose(RT, R);
    m3_mulv(w, O, qd + 3);
    m3_mulv(cw, R, rm->c);
    v3_cross(v, w, cw);
    v3_add(v, v, qd);
    m3_mul(T, R, rm->I);
    m3_mul(I0, T, RT);
    m3_mulv(Iw, I0, w);
    return 0.5 * rm->m * v3_dot(v, v) + 0.5 * v3_dot(w, Iw);
}

static double energy_V(const RandMach *rm, const double q[6])
{
    double R[9], cw[3], r[3];
    rot_zyx(q + 3, R);
    m3_mulv(cw, R, rm->c);
    v3_add(r, q, cw);
    return -rm->m * v3_dot(rm->g, r);
}

/* dT/dqd_j at (q, qd): T is quadratic in qd, so a central difference is exact up to rounding. */
static double dT_dqd(const RandMach *rm, const double q[6], const double qd[6], int j)
{
    double a[6], b[6], h = 1e-3;
    memcpy(a, qd, sizeof a);
    memcpy(b, qd, sizeof b);
    a[j] += h, b[j] -= h;
    return (energy_T(rm, q, a) - energy_T(rm, q, b)) / (2 * h);
}

UTEST(id_vs_lagrange_fd)
{
    double worst = 0;
    for (int n = 0; n < 40; n++) {
        ModelDesc d;
        RandMach rm;
        rand_machine(&d, &rm, n % 2);
        void *s = NULL;
        char err[256];
        if (model_stewart.create(&d, &s, err, sizeof err) < 0) continue;
        double q0[6], qd0[6], qdd0[6], tau[6];
        rand_state(q0, qd0, qdd0);
        model_stewart.inverse_dynamics(s, q0, qd0, qdd0, tau);
        double ht = 3e-5, hq = 1e-5; /* truncation ~ ht^2 dominates; measured 4e-9 */
        for (int j = 0; j < 6; j++) {
            /* d/dt of p_j = dT/dqd_j along the trajectory */
            double qa[6], qda[6], qb[6], qdb[6];
            for (int i = 0; i < 6; i++) {
                qa[i] = q0[i] + qd0[i] * ht + 0.5 * qdd0[i] * ht * ht, qda[i] = qd0[i] + qdd0[i] * ht;
                qb[i] = q0[i] - qd0[i] * ht + 0.5 * qdd0[i] * ht * ht, qdb[i] = qd0[i] - qdd0[i] * ht;
            }
            double dp = (dT_dqd(&rm, qa, qda, j) - dT_dqd(&rm, qb, qdb, j)) / (2 * ht);
            double qp[6], qm[6];
            memcpy(qp, q0, sizeof qp);
            memcpy(qm, q0, sizeof qm);
            qp[j] += hq, qm[j] -= hq;
            double dT = (energy_T(&rm, qp, qd0) - energy_T(&rm, qm, qd0)) / (2 * hq);
            double dV = (energy_V(&rm, qp) - energy_V(&rm, qm)) / (2 * hq);
            double Q = dp - dT + dV;
            worst = fmax(worst, fabs(Q - tau[j]) / fmax(max_abs(tau, 6), 1.0));
        }
        model_stewart.destroy(s);
    }
    printf("#   ID vs Lagrange's equations by finite differences of the energy: %.1e relative\n", worst);
    CHECK(worst < 1e-7);
}

UTEST(energy_and_virtual_power)
{
    /* along a smooth motion: the legs' power sum f_i Ldot_i equals Q . qd (virtual work), and the work of Q over
     * the motion equals the change of the energy (Simpson's rule, 4000 steps) */
    ModelDesc d;
    desc_flightsim(&d);
    void *s = create(&d);
    if (!s) { CHECK(0); return; }
    double A[6] = {0.2, 0.15, 0.12, 0.2, 0.25, 0.3}, Wf[6] = {1.1, 1.7, 2.3, 1.3, 0.9, 1.9};
    double q0[6] = {0, 0, 2.05, 0, 0, 0};
    double worst_pw = 0, T = 3.0, work = 0;
    int N = 4000;
    for (int k = 0; k <= N; k++) {
        double t = T * k / N, q[6], qd[6], qdd[6], tau[6], out[18];
        for (int i = 0; i < 6; i++) {
            q[i] = q0[i] + A[i] * sin(Wf[i] * t);
            qd[i] = A[i] * Wf[i] * cos(Wf[i] * t);
            qdd[i] = -A[i] * Wf[i] * Wf[i] * sin(Wf[i] * t);
        }
        model_stewart.inverse_dynamics(s, q, qd, qdd, tau);
        CHECK(model_stewart.outputs(s, q, qd, qdd, out) == MODEL_OK);
        double pq = 0, pl = 0;
        for (int i = 0; i < 6; i++) pq += tau[i] * qd[i], pl += out[12 + i] * out[6 + i];
        worst_pw = fmax(worst_pw, fabs(pq - pl) / fmax(fabs(pq), 1.0));
        work += (k == 0 || k == N ? 1 : (k % 2 ? 4 : 2)) * pq * (T / N) / 3;
    }
    double qs[6], qds[6], qe[6], qde[6], E0, E1;
    for (int i = 0; i < 6; i++) {
        qs[i] = q0[i], qds[i] = A[i] * Wf[i];
        qe[i] = q0[i] + A[i] * sin(Wf[i] * T), qde[i] = A[i] * Wf[i] * cos(Wf[i] * T);
    }
    stewart_energy(s, qs, qds, &E0);
    stewart_energy(s, qe, qde, &E1);
    printf("#   leg power vs Q.qd %.1e relative; work %.6f J vs energy change %.6f J\n", worst_pw, work, E1 - E0);
    CHECK(worst_pw < 1e-11);
    CHECK(fabs(work - (E1 - E0)) < 1e-6 * fmax(fabs(E1 - E0), 1.0));
    model_stewart.destroy(s);
}

UTEST(mass_matrix_and_forward_dynamics)
{
    double worst_sym = 0, worst_hm = 0, worst_fd = 0;
    for (int n = 0; n < 100; n++) {
        ModelDesc d;
        RandMach rm;
        rand_machine(&d, &rm, n % 2);
        void *s = NULL;
        char err[256];
        if (model_stewart.create(&d, &s, err, sizeof err) < 0) continue;
        double q[6], qd[6], qdd[6], M[36], h[6], tau[6], back[6], Mq[6], L[36];
        rand_state(q, qd, qdd);
        model_stewart.mass_matrix(s, q, M);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) worst_sym = fmax(worst_sym, fabs(M[6 * i + j] - M[6 * j + i]));
        /* positive definite: a Cholesky factorisation succeeds */
        memcpy(L, M, sizeof L);
        int pd = 1;
        for (int j = 0; j < 6 && pd; j++) {
            double dd = L[6 * j + j];
            for (int k = 0; k < j; k++) dd -= L[6 * j + k] * L[6 * j + k];
            if (!(dd > 0)) { pd = 0; break; }
            L[6 * j + j] = sqrt(dd);
            for (int i = j + 1; i < 6; i++) {
                double v = L[6 * i + j];
                for (int k = 0; k < j; k++) v -= L[6 * i + k] * L[6 * j + k];
                L[6 * i + j] = v / L[6 * j + j];
            }
        }
        CHECK(pd);
        model_stewart.bias(s, q, qd, h);
        model_stewart.inverse_dynamics(s, q, qd, qdd, tau);
        for (int i = 0; i < 6; i++) {
            Mq[i] = h[i];
            for (int j = 0; j < 6; j++) Mq[i] += M[6 * i + j] * qdd[j];
        }
        worst_hm = fmax(worst_hm, max_abs_diff(Mq, tau, 6) / fmax(max_abs(tau, 6), 1.0));
        CHECK(model_stewart.forward_dynamics(s, q, qd, tau, back) == MODEL_OK);
        worst_fd = fmax(worst_fd, max_abs_diff(back, qdd, 6) / fmax(max_abs(qdd, 6), 1.0));
        model_stewart.destroy(s);
    }
    printf("#   M symmetry %.1e, ID vs M qdd + h %.1e, FD(ID) %.1e relative\n", worst_sym, worst_hm, worst_fd);
    CHECK(worst_sym == 0);
    CHECK(worst_hm < 1e-12);
    CHECK(worst_fd < 1e-9);
    /* pitch 90 deg: Omega (the representation) is singular, so is M */
    ModelDesc d;
    desc_flightsim(&d);
    void *s = create(&d);
    if (!s) { CHECK(0); return; }
    double q[6] = {0, 0, 2.05, 0, M_PI / 2, 0}, z[6] = {0}, qdd[6];
    CHECK(model_stewart.forward_dynamics(s, q, z, z, qdd) == MODEL_ESINGULAR);
    model_stewart.destroy(s);
}

/* ---- 7. the leg outputs ---- */

UTEST(outputs)
{
    ModelDesc d;
    desc_flightsim(&d);
    void *s = create(&d);
    if (!s) { CHECK(0); return; }
    CHECK(model_stewart.output_count(s) == 18);
    const char *want[18] = {"L1", "L2", "L3", "L4", "L5", "L6", "L1dot", "L2dot", "L3dot", "L4dot", "L5dot",
                            "L6dot", "F1", "F2", "F3", "F4", "F5", "F6"};
    for (int i = 0; i < 18; i++) CHECK(strcmp(model_stewart.output_name(s, i), want[i]) == 0);
    CHECK(model_stewart.output_name(s, 18) == NULL && model_stewart.output_name(s, -1) == NULL);
    /* leg speeds against differences of the lengths along q(t) = q + qd t */
    double worst_v = 0;
    for (int n = 0; n < 200; n++) {
        double q[6], qd[6], qdd[6], out[18], qp[6], qm[6], Lp[6], Lm[6], h = 1e-6;
        rand_state(q, qd, qdd);
        model_stewart.outputs(s, q, qd, qdd, out);
        for (int i = 0; i < 6; i++) qp[i] = q[i] + h * qd[i], qm[i] = q[i] - h * qd[i];
        legs_here(s, qp, Lp);
        legs_here(s, qm, Lm);
        for (int i = 0; i < 6; i++) worst_v = fmax(worst_v, fabs((Lp[i] - Lm[i]) / (2 * h) - out[6 + i]));
    }
    CHECK(worst_v < 1e-8);
    model_stewart.destroy(s);
    /* statics in closed form: mass centre on the axis of a 3-fold symmetric machine at rest: every leg carries
     * m g / (6 u_z) */
    for (int i = 0; i < d.nparams; i++)
        if (strcmp(d.param[i].name, "platform_com") == 0) v3_set(d.param[i].v, 0, 0, 0.7);
    s = create(&d);
    if (!s) { CHECK(0); return; }
    double q[6] = {0, 0, 2.05, 0, 0, 0}, z[6] = {0}, out[18], L[6];
    model_stewart.outputs(s, q, z, z, out);
    stewart_legs(s, q, L, NULL);
    for (int i = 0; i < 6; i++) CHECK(fabs(out[12 + i] - 3000 * 9.81 / (6 * 2.05 / L[i])) < 1e-9);
    model_stewart.destroy(s);
}

/* ---- 8. descriptions and the machine file ---- */

UTEST(create_rejects)
{
    struct { const char *what, *msg; } cases[] = {
        {"njoints", "exactly 6 joints"}, {"type", "PRISMATIC"}, {"mass", "carry no mass"},
        {"nomass", "platform_mass"},    {"inertia", "positive definite"}, {"both", "not both"},
        {"noanchors", "bad parameter base_radius: required"}, {"home", "home pose"}, {"charlen", "char_length"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ModelDesc d;
        desc_flightsim(&d);
        const char *w = cases[k].what;
        if (!strcmp(w, "njoints")) d.njoints = 5;
        if (!strcmp(w, "type")) d.joint[1].type = MODEL_REVOLUTE;
        if (!strcmp(w, "mass")) d.joint[5].mass = 10;
        if (!strcmp(w, "nomass")) strcpy(d.param[8].name, "platform_masss");
        if (!strcmp(w, "inertia")) d.param[10].v[1] = -1;
        if (!strcmp(w, "both")) add_param(&d, "base_anchors", 18, (double[18]){0});
        if (!strcmp(w, "noanchors")) strcpy(d.param[0].name, "base_rad");
        if (!strcmp(w, "home")) d.joint[5].home = M_PI / 2; /* Fichter's singularity */
        if (!strcmp(w, "charlen")) add_param(&d, "char_length", 1, (double[1]){-1});
        void *s = NULL;
        char err[512] = "";
        int st = model_stewart.create(&d, &s, err, sizeof err);
        CHECK(st == MODEL_EINVAL && s == NULL);
        if (!strstr(err, cases[k].msg)) printf("#   %s: '%s'\n", w, err);
        CHECK(strstr(err, cases[k].msg) != NULL);
        CHECK(strncmp(err, "stewart: ", 9) == 0);
    }
}

UTEST(machine_file)
{
    ModelDesc got, want;
    Diag diag;
    diag_init(&diag, stderr);
    int rc = machine_load("models/stewart_flightsim.irm", &got, &diag);
    diag_free(&diag);
    CHECK(rc == MACHINE_OK);
    if (rc != MACHINE_OK) return;
    desc_flightsim(&want);
    CHECK(strcmp(got.backend, "stewart") == 0);
    Model m;
    char err[512];
    CHECK(model_open(&m, &got, err, sizeof err) == MODEL_OK);
    void *s = create(&want);
    if (!s) { CHECK(0); model_close(&m); return; }
    /* the same machine: anchors, homes, dynamics at a random state agree exactly */
    double b1[18], a1[18], b2[18], a2[18];
    stewart_anchors(m.state, b1, a1);
    stewart_anchors(s, b2, a2);
    CHECK(max_abs_diff(b1, b2, 18) < 1e-15 && max_abs_diff(a1, a2, 18) < 1e-15);
    for (int i = 0; i < 6; i++) CHECK(got.joint[i].home == want.joint[i].home);
    double q[6], qd[6], qdd[6], o1[18], o2[18];
    rand_state(q, qd, qdd);
    model_outputs(&m, q, qd, qdd, o1);
    model_stewart.outputs(s, q, qd, qdd, o2);
    CHECK(max_abs_diff(o1, o2, 18) < 1e-9);
    double lmin[6], lmax[6];
    stewart_stroke(m.state, lmin, lmax);
    for (int i = 0; i < 6; i++) CHECK(lmin[i] == 1.90 && lmax[i] == 2.90);
    /* the limits the checks read: 18 output limits, the axes' */
    CHECK(got.noutput_limits == 18);
    CHECK(fabs(got.joint[4].limits.max - 25 * DEG) < 1e-15 && fabs(got.joint[3].limits.amax - 300 * DEG) < 1e-12);
    CHECK(got.joint[2].limits.min == 1.70 && got.joint[2].limits.vmax == 0.6);
    model_close(&m);
    model_stewart.destroy(s);
}

int main(void)
{
    RUN(rotation_omega);
    RUN(euler_angles);
    RUN(paper_anchors);
    RUN(fk_ik_roundtrip);
    RUN(fk_seeded_and_errors);
    RUN(ik_workspace_and_tool);
    RUN(jacobians_fd);
    RUN(singularity_fichter);
    RUN(id_vs_paper_eq18);
    RUN(id_vs_chain_twin);
    RUN(id_vs_lagrange_fd);
    RUN(energy_and_virtual_power);
    RUN(mass_matrix_and_forward_dynamics);
    RUN(outputs);
    RUN(create_rejects);
    RUN(machine_file);
    return utest_done();
}
