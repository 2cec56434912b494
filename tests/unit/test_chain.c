/* test_chain.c — the chain back-end against independent references: the Lagrange form (chain_lagrange.c), finite
 * differences of FK, energy balance, published PUMA 560 values, and round trips (FD of ID, IK of FK). */
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "chain_lagrange.h"
#include "chain_models.h"
#include "geom.h"
#include "model.h"
#include "puma560_desc.h"
#include "test_rand.h"
#include "trig.h"
#include "utest.h"

#define NMAX MODEL_MAX_DOF

/* The three machines every property test runs on: PUMA 560, a random 8-joint tree, a random 7-joint chain with
 * prismatic joints. */
enum { NMODELS = 3 };
static void make_model(int which, ModelDesc *d)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1000 + which);
    if (which == 0) puma560_desc(d);
    else if (which == 1) cm_random_desc(d, r, 8, 1, 0);
    else cm_random_desc(d, r, 7, 0, 3);
    gsl_rng_free(r);
}

static int open_model(int which, Model *m, ModelDesc *d)
{
    char err[256];
    make_model(which, d);
    int rc = model_open(m, d, err, sizeof err);
    if (rc < 0) printf("#   model_open: %s\n", err);
    return rc;
}

/* Random joint state within limits (or within +-pi / +-0.5 m when unlimited). */
static void random_state(gsl_rng *r, const ModelDesc *d, double *q, double *qd, double *qdd)
{
    for (int i = 0; i < d->njoints; i++) {
        const ModelAxisLimits *l = &d->joint[i].limits;
        double span = d->joint[i].type == MODEL_REVOLUTE ? M_PI : 0.5;
        double lo = isfinite(l->min) ? l->min : -span, hi = isfinite(l->max) ? l->max : span;
        if (q) q[i] = cm_uniform(r, lo, hi);
        if (qd) qd[i] = cm_uniform(r, -2, 2);
        if (qdd) qdd[i] = cm_uniform(r, -5, 5);
    }
}

/* max |a - b| / max(max |b|, 1) over n entries */
static double rel_err(const double *a, const double *b, int n)
{
    double scale = 1.0, e = 0.0;
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
    return e / scale;
}

/* The error of v against the reference r (long double) in units of the last place of a double near |r| (|r| below
 * 2^-1022 counts as 2^-1022). */
static double ulps(double v, long double r)
{
    double a = fabs((double)r);
    int e = a > 0x1p-1022 ? ilogb(a) : -1022;
    return (double)fabsl((long double)v - r) / ldexp(1.0, e - 52);
}

/* trig.h against long double cosl/sinl: trig_sincos2 within 1 ulp for |x| <= 10 (joint angles) and 1e5; trig_shift2
 * from trig_sincos2's values at x0 to x1 = x0 + d (|d| <= TRIG_SHIFT_MAX) within the anchor's error plus one
 * rounding: 2 ulp of the larger of |cos x1| and |cos x0| (and of sin) plus 4e-19 absolute. */
UTEST(trig_accuracy)
{
    double worst = 0, worst_shift = 0;
    for (int k = 0; k < 200000; k++) {
        double span = k < 150000 ? 10.0 : 1e5;
        TrigV2 x = {span * (2 * urand() - 1), span * (2 * urand() - 1)}, c, s;
        trig_sincos2(x, &c, &s);
        for (int l = 0; l < 2; l++) {
            double e1 = ulps(c[l], cosl((long double)x[l])), e2 = ulps(s[l], sinl((long double)x[l]));
            worst = fmax(worst, fmax(e1, e2));
        }
        /* the shift from x to x + d, d's bits those of (x + d) - x */
        TrigV2 d = {TRIG_SHIFT_MAX * (2 * urand() - 1), TRIG_SHIFT_MAX * (2 * urand() - 1)}, x1 = x + d, c1, s1;
        d = x1 - x;
        trig_shift2(c, s, d, &c1, &s1);
        for (int l = 0; l < 2; l++) {
            long double rc = cosl((long double)x1[l]), rs = sinl((long double)x1[l]);
            double uc = ldexp(1.0, ilogb(fmax(fabs((double)rc), fabs(c[l]))) - 52);
            double us = ldexp(1.0, ilogb(fmax(fabs((double)rs), fabs(s[l]))) - 52);
            double ec = (double)fabsl((long double)c1[l] - rc), es = (double)fabsl((long double)s1[l] - rs);
            worst_shift = fmax(worst_shift, fmax((ec - 4e-19) / uc, (es - 4e-19) / us));
        }
    }
    printf("# trig_sincos2 worst %.3f ulp; trig_shift2 worst %.3f ulp (beyond 4e-19)\n", worst, worst_shift);
    CHECK(worst < 1.0);
    CHECK(worst_shift < 2.0);
    /* the exact points */
    TrigV2 z = {0.0, -0.0}, c, s;
    trig_sincos2(z, &c, &s);
    CHECK(c[0] == 1.0 && c[1] == 1.0 && s[0] == 0.0 && s[1] == 0.0 && signbit(s[1]));
}

UTEST(registry_and_errors)
{
    ModelDesc d;
    Model m;
    char err[256];
    CHECK(model_find("chain") == &model_chain);
    CHECK(model_find("no-such-backend") == NULL);
    puma560_desc(&d);
    strcpy(d.backend, "no-such-backend");
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "no-such-backend") != NULL);
    puma560_desc(&d);
    d.joint[2].parent = 4;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "j3") != NULL);
    puma560_desc(&d);
    v3_set(d.joint[1].axis, 0, 0, 0);
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    puma560_desc(&d);
    d.joint[1].origin_R[0] = 2;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    puma560_desc(&d);
    d.njoints = 0;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    puma560_desc(&d);
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_OK);
    CHECK(m.dof == 6);
    CHECK(model_output_count(&m) == 0);
    double q[6] = {0}, out[1];
    CHECK(model_outputs(&m, q, q, q, out) == MODEL_ENOTSUP);
    double p[3], R[9];
    CHECK(model_fk(&m, q, 6, p, R) == MODEL_EINVAL);
    model_close(&m);
    model_close(&m); /* twice is harmless */
    CHECK(model_fk(&m, q, -1, p, R) == MODEL_ENOTSUP);
    for (int s = 0; s >= -6; s--) CHECK(strlen(model_strerror(s)) > 3);
}

/* Corke, Robotics Toolbox: p560.fkine(qz) = translation (0.4521, -0.1500, 0.4318), identity rotation. */
UTEST(puma560_fk_published)
{
    ModelDesc d;
    Model m;
    CHECK(open_model(0, &m, &d) == MODEL_OK);
    double q[6] = {0}, p[3], R[9];
    CHECK(model_fk(&m, q, -1, p, R) == MODEL_OK);
    CHECK_NEAR(p[0], 0.4521, 1e-4);
    CHECK_NEAR(p[1], -0.15005, 1e-9);
    CHECK_NEAR(p[2], 0.4318, 1e-9);
    for (int k = 0; k < 9; k++) CHECK_NEAR(R[k], k % 4 == 0 ? 1.0 : 0.0, 1e-12);
    /* ready pose qr = (0, pi/2, -pi/2, 0, 0, 0): arm straight up, tool at z = 0.4318 + 0.0203 + 0.4318 */
    double qr[6] = {0, M_PI / 2, -M_PI / 2, 0, 0, 0};
    CHECK(model_fk(&m, qr, -1, p, R) == MODEL_OK);
    CHECK_NEAR(p[0], 0.0203, 1e-9);
    CHECK_NEAR(p[1], -0.15005, 1e-9);
    CHECK_NEAR(p[2], 0.8636, 1e-9);
    model_close(&m);
}

/* Corke, Robotics Toolbox: p560.gravload(qn) = [0 31.6399 6.0351 0 0.0283 0] with qn = [0 pi/4 pi 0 pi/4 0]. */
UTEST(puma560_gravload_published)
{
    ModelDesc d;
    Model m;
    CHECK(open_model(0, &m, &d) == MODEL_OK);
    double qn[6] = {0, M_PI / 4, M_PI, 0, M_PI / 4, 0}, z[6] = {0}, tau[6];
    CHECK(model_inverse_dynamics(&m, qn, z, z, tau) == MODEL_OK);
    const double want[6] = {0, 31.6399, 6.0351, 0, 0.0283, 0};
    for (int i = 0; i < 6; i++) CHECK_NEAR(tau[i], want[i], 1e-4);
    model_close(&m);
}

/* Newton-Euler and composite rigid body vs the Lagrange form, 1e-9 relative. */
UTEST(newton_euler_vs_lagrange)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 42);
    for (int which = 0; which < NMODELS; which++) {
        ModelDesc d;
        Model m;
        char err[256];
        CHECK(open_model(which, &m, &d) == MODEL_OK);
        ChainLagrange *L = chain_lagrange_create(&d, err, sizeof err);
        CHECK(L != NULL);
        if (!L) continue;
        int n = d.njoints;
        double worst_id = 0, worst_m = 0, worst_g = 0;
        for (int t = 0; t < 300; t++) {
            double q[NMAX], qd[NMAX], qdd[NMAX], z[NMAX] = {0}, tau[NMAX], tauL[NMAX], M[NMAX * NMAX],
                                                                 ML[NMAX * NMAX], g[NMAX], gL[NMAX];
            random_state(r, &d, q, qd, qdd);
            CHECK(model_inverse_dynamics(&m, q, qd, qdd, tau) == MODEL_OK);
            chain_lagrange_inverse_dynamics(L, q, qd, qdd, tauL);
            worst_id = fmax(worst_id, rel_err(tau, tauL, n));
            CHECK(model_mass_matrix(&m, q, M) == MODEL_OK);
            chain_lagrange_metric(L, q, ML);
            worst_m = fmax(worst_m, rel_err(M, ML, n * n));
            CHECK(model_inverse_dynamics(&m, q, z, z, g) == MODEL_OK);
            chain_lagrange_gravity(L, q, gL);
            worst_g = fmax(worst_g, rel_err(g, gL, n));
        }
        printf("# %s: NE-Lagrange worst rel. diff: ID %.2e, M %.2e, gravity %.2e\n", d.name, worst_id, worst_m,
               worst_g);
        CHECK(worst_id < 1e-9);
        CHECK(worst_m < 1e-9);
        CHECK(worst_g < 1e-9);
        chain_lagrange_free(L);
        model_close(&m);
    }
    gsl_rng_free(r);
}

/* The analytic dM/dq (the Christoffel symbols' source) vs central differences of M. */
UTEST(metric_derivative_vs_finite_difference)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    for (int which = 0; which < NMODELS; which++) {
        ModelDesc d;
        char err[256];
        make_model(which, &d);
        ChainLagrange *L = chain_lagrange_create(&d, err, sizeof err);
        int n = d.njoints;
        static double dM[NMAX * NMAX * NMAX];
        double worst = 0;
        for (int t = 0; t < 20; t++) {
            double q[NMAX], Mp[NMAX * NMAX], Mm[NMAX * NMAX];
            random_state(r, &d, q, NULL, NULL);
            chain_lagrange_metric_deriv(L, q, dM);
            for (int k = 0; k < n; k++) {
                const double h = 1e-5;
                double qk = q[k];
                q[k] = qk + h;
                chain_lagrange_metric(L, q, Mp);
                q[k] = qk - h;
                chain_lagrange_metric(L, q, Mm);
                q[k] = qk;
                for (int ij = 0; ij < n * n; ij++) {
                    double fd = (Mp[ij] - Mm[ij]) / (2 * h);
                    worst = fmax(worst, fabs(fd - dM[k * n * n + ij]) / fmax(1.0, fabs(fd)));
                }
            }
        }
        printf("# %s: dM/dq analytic vs central difference: %.2e\n", d.name, worst);
        CHECK(worst < 1e-7);
        chain_lagrange_free(L);
    }
    gsl_rng_free(r);
}

/* M symmetric (Lagrange form, which does not force it) and positive definite (smallest eigenvalue > 0). */
UTEST(mass_matrix_spd)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    for (int which = 0; which < NMODELS; which++) {
        ModelDesc d;
        Model m;
        char err[256];
        CHECK(open_model(which, &m, &d) == MODEL_OK);
        ChainLagrange *L = chain_lagrange_create(&d, err, sizeof err);
        int n = d.njoints;
        gsl_matrix *A = gsl_matrix_alloc(n, n);
        gsl_vector *ev = gsl_vector_alloc(n);
        gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(n);
        double min_eig = INFINITY, asym = 0;
        for (int t = 0; t < 200; t++) {
            double q[NMAX], M[NMAX * NMAX], ML[NMAX * NMAX];
            random_state(r, &d, q, NULL, NULL);
            model_mass_matrix(&m, q, M);
            chain_lagrange_metric(L, q, ML);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    asym = fmax(asym, fabs(ML[i * n + j] - ML[j * n + i]));
                    gsl_matrix_set(A, i, j, M[i * n + j]);
                }
            CHECK(gsl_eigen_symm(A, ev, w) == 0);
            for (int i = 0; i < n; i++) min_eig = fmin(min_eig, gsl_vector_get(ev, i));
        }
        printf("# %s: min eigenvalue of M %.3e, Lagrange asymmetry %.2e\n", d.name, min_eig, asym);
        CHECK(min_eig > 0);
        CHECK(asym < 1e-12);
        gsl_eigen_symm_free(w);
        gsl_vector_free(ev);
        gsl_matrix_free(A);
        chain_lagrange_free(L);
        model_close(&m);
    }
    gsl_rng_free(r);
}

/* FD(q, qd, ID(q, qd, qdd)) = qdd, and bias = ID with qdd = 0. */
UTEST(forward_of_inverse_dynamics)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (int which = 0; which < NMODELS; which++) {
        ModelDesc d;
        Model m;
        CHECK(open_model(which, &m, &d) == MODEL_OK);
        int n = d.njoints;
        double worst = 0;
        for (int t = 0; t < 500; t++) {
            double q[NMAX], qd[NMAX], qdd[NMAX], tau[NMAX], back[NMAX], h[NMAX], z[NMAX] = {0}, id0[NMAX];
            random_state(r, &d, q, qd, qdd);
            model_inverse_dynamics(&m, q, qd, qdd, tau);
            CHECK(model_forward_dynamics(&m, q, qd, tau, back) == MODEL_OK);
            worst = fmax(worst, rel_err(back, qdd, n));
            model_bias(&m, q, qd, h);
            model_inverse_dynamics(&m, q, qd, z, id0);
            for (int i = 0; i < n; i++) CHECK(h[i] == id0[i]);
        }
        printf("# %s: FD(ID(qdd)) - qdd worst rel %.2e\n", d.name, worst);
        CHECK(worst < 1e-9);
        model_close(&m);
    }
    gsl_rng_free(r);
}

/* Total energy from the Lagrange form: T (metric) + V (potential). */
static double energy(ChainLagrange *L, const double *q, const double *qd)
{
    return chain_lagrange_kinetic(L, q, qd) + chain_lagrange_potential(L, q);
}

/* Energy balance, two ways. (1) Instantaneous: dE/dt along (qd, FD(q, qd, tau)) by central difference equals
 * tau . qd. (2) Along an RK4 trajectory driven by tau(t): E(T) - E(0) = integral of tau . qd dt. */
UTEST(energy_balance)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 99);
    for (int which = 0; which < NMODELS; which++) {
        ModelDesc d;
        Model m;
        char err[256];
        CHECK(open_model(which, &m, &d) == MODEL_OK);
        ChainLagrange *L = chain_lagrange_create(&d, err, sizeof err);
        int n = d.njoints;
        double worst = 0;
        for (int t = 0; t < 50; t++) {
            double q[NMAX], qd[NMAX], tau[NMAX], qdd[NMAX], qp[NMAX], qdp[NMAX], qm[NMAX], qdm[NMAX];
            /* torques scaled to the machine: those of a random acceleration of +-5 rad/s^2 */
            random_state(r, &d, q, qd, qdd);
            model_inverse_dynamics(&m, q, qd, qdd, tau);
            CHECK(model_forward_dynamics(&m, q, qd, tau, qdd) == MODEL_OK);
            const double h = 1e-5;
            for (int i = 0; i < n; i++) {
                qp[i] = q[i] + h * qd[i]; qdp[i] = qd[i] + h * qdd[i];
                qm[i] = q[i] - h * qd[i]; qdm[i] = qd[i] - h * qdd[i];
            }
            double dE = (energy(L, qp, qdp) - energy(L, qm, qdm)) / (2 * h), P = 0, scale = 1;
            for (int i = 0; i < n; i++) P += tau[i] * qd[i], scale += fabs(tau[i] * qd[i]);
            worst = fmax(worst, fabs(dE - P) / scale);
        }
        printf("# %s: dE/dt vs tau.qd worst rel %.2e\n", d.name, worst);
        CHECK(worst < 1e-6);

        /* RK4 trajectory under gravity, tau_i(t) = A_i sin(w_i t), 1 s at 0.5 ms; the work W' = tau . qd is a fourth state
         * integrated by the same RK4 stages */
        double q[NMAX], qd[NMAX], A[NMAX], W[NMAX];
        random_state(r, &d, q, qd, NULL);
        double M0[NMAX * NMAX];
        model_mass_matrix(&m, q, M0);  /* input torques scaled by each joint's own inertia: ~5 rad/s^2 */
        for (int i = 0; i < n; i++) {
            A[i] = 5 * M0[i * n + i] * cm_uniform(r, -1, 1);
            W[i] = cm_uniform(r, 1, 6);
            qd[i] *= 0.5;
        }
        const double dt = 5e-4;
        const int steps = 2000;
        double E0 = energy(L, q, qd), work = 0;
        int ok = 1;
        for (int s = 0; s < steps && ok; s++) {
            double tt = s * dt, kq[4][NMAX], kv[4][NMAX], kw[4], qs[NMAX], vs[NMAX], tau[NMAX];
            static const double c[4] = {0, 0.5, 0.5, 1};
            memcpy(qs, q, sizeof qs);
            memcpy(vs, qd, sizeof vs);
            for (int st = 0; st < 4; st++) {
                if (st > 0)
                    for (int i = 0; i < n; i++) {
                        qs[i] = q[i] + c[st] * dt * kq[st - 1][i];
                        vs[i] = qd[i] + c[st] * dt * kv[st - 1][i];
                    }
                kw[st] = 0;
                for (int i = 0; i < n; i++) {
                    tau[i] = A[i] * sin(W[i] * (tt + c[st] * dt));
                    kq[st][i] = vs[i];
                    kw[st] += tau[i] * vs[i];
                }
                ok &= model_forward_dynamics(&m, qs, vs, tau, kv[st]) == 0;
            }
            for (int i = 0; i < n; i++) {
                q[i] += dt / 6 * (kq[0][i] + 2 * kq[1][i] + 2 * kq[2][i] + kq[3][i]);
                qd[i] += dt / 6 * (kv[0][i] + 2 * kv[1][i] + 2 * kv[2][i] + kv[3][i]);
            }
            work += dt / 6 * (kw[0] + 2 * kw[1] + 2 * kw[2] + kw[3]);
        }
        CHECK(ok);
        double E1 = energy(L, q, qd), scale = fmax(1.0, fabs(E0) + fabs(work));
        printf("# %s: RK4 1 s: E1 - E0 = %.9g, work = %.9g, rel diff %.2e\n", d.name, E1 - E0, work,
               fabs(E1 - E0 - work) / scale);
        CHECK(fabs(E1 - E0 - work) / scale < 1e-8);
        chain_lagrange_free(L);
        model_close(&m);
    }
    gsl_rng_free(r);
}

/* Tool Jacobian and the Jacobian of a point on every link vs central differences of FK (linear: position;
 * angular: rotation error between the two perturbed poses). */
UTEST(jacobian_vs_finite_difference)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    for (int which = 0; which < NMODELS; which++) {
        ModelDesc d;
        Model m;
        CHECK(open_model(which, &m, &d) == MODEL_OK);
        int n = d.njoints;
        double worst = 0;
        for (int t = 0; t < 50; t++) {
            double q[NMAX], qd[NMAX], J[6 * NMAX], Jt[6 * NMAX];
            random_state(r, &d, q, qd, NULL);
            CHECK(model_jacobian(&m, q, Jt) == MODEL_OK);
            for (int link = -1; link < n; link++) {
                double pt[3] = {cm_uniform(r, -0.3, 0.3), cm_uniform(r, -0.3, 0.3), cm_uniform(r, -0.3, 0.3)};
                CHECK(chain_point_jacobian(m.state, q, link, pt, J) == MODEL_OK);
                if (link < 0)
                    for (int k = 0; k < 6 * n; k++) CHECK(J[k] == Jt[k]);
                /* velocity of the point by central differences along qd */
                const double h = 1e-6;
                double qp[NMAX], qm[NMAX], pp[3], pm[3], Rp[9], Rm[9], t3[3], v[3], w[3];
                for (int i = 0; i < n; i++) { qp[i] = q[i] + h * qd[i]; qm[i] = q[i] - h * qd[i]; }
                model_fk(&m, qp, link, pp, Rp);
                model_fk(&m, qm, link, pm, Rm);
                if (link >= 0) {
                    m3_mulv(t3, Rp, pt); v3_add(pp, pp, t3);
                    m3_mulv(t3, Rm, pt); v3_add(pm, pm, t3);
                }
                m3_rotation_error(w, Rm, Rp);
                for (int k = 0; k < 3; k++) { v[k] = (pp[k] - pm[k]) / (2 * h); w[k] /= 2 * h; }
                for (int k = 0; k < 3; k++) {
                    double jv = 0, jw = 0;
                    for (int i = 0; i < n; i++) { jv += J[k * n + i] * qd[i]; jw += J[(3 + k) * n + i] * qd[i]; }
                    worst = fmax(worst, fmax(fabs(jv - v[k]), fabs(jw - w[k])));
                }
            }
        }
        printf("# %s: Jacobian vs FK central difference worst %.2e\n", d.name, worst);
        CHECK(worst < 1e-7);
        model_close(&m);
    }
    gsl_rng_free(r);
}

/* chain_fk_all agrees with per-link FK. */
UTEST(fk_all_links)
{
    ModelDesc d;
    Model m;
    CHECK(open_model(1, &m, &d) == MODEL_OK);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 8);
    double q[NMAX], pos[NMAX * 3], R[NMAX * 9], p[3], Rl[9];
    random_state(r, &d, q, NULL, NULL);
    CHECK(chain_fk_all(m.state, q, pos, R) == MODEL_OK);
    for (int l = 0; l < d.njoints; l++) {
        model_fk(&m, q, l, p, Rl);
        for (int k = 0; k < 3; k++) CHECK(p[k] == pos[3 * l + k]);
        for (int k = 0; k < 9; k++) CHECK(Rl[k] == R[9 * l + k]);
    }
    gsl_rng_free(r);
    model_close(&m);
}

/* IK(FK(q)) for thousands of random PUMA configurations, seeded from a nearby configuration (+-0.2 rad), and a
 * redundant random 7-joint chain. Success must be near total; every success must really hit the target. */
static void ik_roundtrip(int which, int trials, double seed_dev, double min_rate)
{
    ModelDesc d;
    Model m;
    CHECK(open_model(which, &m, &d) == MODEL_OK);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2024 + which);
    int n = d.njoints, ok = 0, iters = 0, maxit = 0;
    double worst_pos = 0, worst_rot = 0;
    for (int t = 0; t < trials; t++) {
        double q[NMAX], seed[NMAX], qs[NMAX], p[3], R[9], quat[4], p2[3], R2[9], e[3];
        random_state(r, &d, q, NULL, NULL);
        for (int i = 0; i < n; i++) {
            seed[i] = q[i] + cm_uniform(r, -seed_dev, seed_dev);
            const ModelAxisLimits *l = &d.joint[i].limits;
            seed[i] = fmin(fmax(seed[i], l->min), l->max);
        }
        model_fk(&m, q, -1, p, R);
        m3_to_quat(quat, R);
        ModelIkInfo info;
        int rc = model_ik(&m, p, quat, seed, qs, &info);
        if (rc == MODEL_OK) {
            ok++;
            iters += info.iterations;
            if (info.iterations > maxit) maxit = info.iterations;
            model_fk(&m, qs, -1, p2, R2);
            v3_sub(e, p2, p);
            worst_pos = fmax(worst_pos, v3_norm(e));
            m3_rotation_error(e, R, R2);
            worst_rot = fmax(worst_rot, v3_norm(e));
            for (int i = 0; i < n; i++) CHECK(qs[i] >= d.joint[i].limits.min && qs[i] <= d.joint[i].limits.max);
        } else {
            CHECK(rc == MODEL_EUNREACH);
            CHECK(info.residual > 1e-10);
        }
    }
    double rate = (double)ok / trials;
    printf("# %s: IK round trip %d/%d = %.2f%% (seed +-%.2f rad), mean %.1f / max %d iterations, "
           "worst |dp| %.1e m, |dtheta| %.1e rad\n",
           d.name, ok, trials, 100 * rate, seed_dev, ok ? (double)iters / ok : 0.0, maxit, worst_pos, worst_rot);
    CHECK(rate >= min_rate);
    CHECK(worst_pos < 1e-9);
    CHECK(worst_rot < 1e-9);
    gsl_rng_free(r);
    model_close(&m);
}

UTEST(ik_roundtrip_puma560) { ik_roundtrip(0, 3000, 0.2, 0.99); }
UTEST(ik_roundtrip_random_redundant) { ik_roundtrip(1, 1000, 0.2, 0.95); }

/* A target 5 m away is unreachable for the PUMA: EUNREACH with an honest residual. Position-only IK works. */
UTEST(ik_unreachable_and_position_only)
{
    ModelDesc d;
    Model m;
    CHECK(open_model(0, &m, &d) == MODEL_OK);
    double seed[6] = {0, 0.5, -0.5, 0, 0.3, 0}, q[6], quat[4] = {1, 0, 0, 0};
    double far[3] = {5, 0, 0};
    ModelIkInfo info;
    CHECK(model_ik(&m, far, quat, seed, q, &info) == MODEL_EUNREACH);
    CHECK(info.residual > 3.5);
    double near[3] = {0.3, -0.2, 0.3}, p[3], R[9];
    CHECK(model_ik(&m, near, NULL, seed, q, &info) == MODEL_OK);
    model_fk(&m, q, -1, p, R);
    for (int k = 0; k < 3; k++) CHECK_NEAR(p[k], near[k], 1e-9);
    model_close(&m);
}

/* Semi-inverse: with a random powered/unpowered split, the answer satisfies the full equations H qdd + h = tau
 * (checked with the Lagrange form), keeps the given qdd_C and tau_N. */
UTEST(semi_inverse_satisfies_full_equations)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 77);
    for (int which = 0; which < NMODELS; which++) {
        double worst = 0;
        for (int t = 0; t < 100; t++) {
            ModelDesc d;
            Model m;
            char err[256];
            make_model(which, &d);
            int n = d.njoints, nn = 0;
            for (int i = 0; i < n; i++) {
                d.joint[i].powered = gsl_rng_uniform(r) < 0.6;
                nn += !d.joint[i].powered;
            }
            if (model_open(&m, &d, err, sizeof err) < 0) { CHECK(0); continue; }
            ChainLagrange *L = chain_lagrange_create(&d, err, sizeof err);
            double q[NMAX], qd[NMAX], qdd[NMAX], tau[NMAX], qdd_in[NMAX], tau_in[NMAX], tauL[NMAX];
            random_state(r, &d, q, qd, qdd);
            for (int i = 0; i < n; i++) tau[i] = d.joint[i].powered ? NAN : (t % 2 ? 0.0 : cm_uniform(r, -3, 3));
            for (int i = 0; i < n; i++) if (!d.joint[i].powered) qdd[i] = NAN;
            memcpy(qdd_in, qdd, sizeof qdd_in);
            memcpy(tau_in, tau, sizeof tau_in);
            CHECK(model_semi_inverse(&m, q, qd, qdd, tau) == MODEL_OK);
            chain_lagrange_inverse_dynamics(L, q, qd, qdd, tauL);
            worst = fmax(worst, rel_err(tau, tauL, n));
            for (int i = 0; i < n; i++) {
                CHECK(isfinite(qdd[i]) && isfinite(tau[i]));
                if (d.joint[i].powered) CHECK(qdd[i] == qdd_in[i]);
                else CHECK(tau[i] == tau_in[i]);
            }
            chain_lagrange_free(L);
            model_close(&m);
        }
        printf("# model %d: semi-inverse vs Lagrange H qdd + h worst rel %.2e\n", which, worst);
        CHECK(worst < 1e-9);
    }
    gsl_rng_free(r);
}

/* Singularity measure: 0 at the PUMA's wrist singularity (q5 = 0: axes 4 and 6 aligned), clearly > 0 at qn. */
UTEST(singularity_measure)
{
    ModelDesc d;
    Model m;
    CHECK(open_model(0, &m, &d) == MODEL_OK);
    double qs[6] = {0.3, 0.5, -1.0, 0.2, 0.0, 0.4}, qn[6] = {0, M_PI / 4, M_PI, 0, M_PI / 4, 0}, s0, s1, s2;
    CHECK(model_singularity(&m, qs, &s0) == MODEL_OK);
    CHECK(model_singularity(&m, qn, &s1) == MODEL_OK);
    qs[4] = 1e-3;
    CHECK(model_singularity(&m, qs, &s2) == MODEL_OK);
    printf("# puma560 singularity measure: wrist singular %.2e, q5 = 1e-3 %.2e, qn %.3f\n", s0, s2, s1);
    CHECK(s0 < 1e-12);
    CHECK(s2 > s0 && s2 < 1e-2);
    CHECK(s1 > 0.01 && s1 <= 1.0);
    model_close(&m);
}

/* The singularity measure (one-sided Jacobi, warm-started from the last decomposition's V, re-orthonormalised only
 * when it has drifted) against GSL's Golub-Kahan SVD of
 * the same normalised Jacobian, on the three machines plus PUMA arms cut to 4 joints (position rows, transposed)
 * and 2 joints (position rows, fewer columns than rows): random configurations (a cold V every time in effect)
 * and a slow 1 ms-like walk (the warm start), agreement to 1e-12 relative to sigma_max. */
UTEST(singularity_vs_gsl_svd)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 31);
    double worst = 0;
    for (int which = 0; which < NMODELS + 2; which++) {
        ModelDesc d;
        Model m;
        make_model(which < NMODELS ? which : 0, &d);
        if (which >= NMODELS) {
            d.njoints = which == NMODELS ? 4 : 2;
            d.tool_link = -1;
        }
        const double L = 0.7;
        d.nparams = 1;
        snprintf(d.param[0].name, sizeof d.param[0].name, "char_length");
        d.param[0].n = 1;
        d.param[0].v[0] = L;
        char err[256];
        CHECK(model_open(&m, &d, err, sizeof err) == MODEL_OK);
        int n = d.njoints, rows = n < 6 ? 3 : 6, k = n < rows ? n : rows;
        gsl_matrix *A = gsl_matrix_alloc(n > rows ? n : rows, k), *V = gsl_matrix_alloc(k, k);
        gsl_vector *S = gsl_vector_alloc(k), *w = gsl_vector_alloc(k);
        double q[NMAX], J[6 * NMAX], dq[NMAX];
        random_state(r, &d, q, dq, NULL);
        for (int t = 0; t < 400; t++) {
            if (t % 100 == 0) random_state(r, &d, q, dq, NULL);
            else for (int i = 0; i < n; i++) q[i] += 1e-3 * dq[i];
            double s;
            CHECK(model_singularity(&m, q, &s) == MODEL_OK);
            CHECK(model_jacobian(&m, q, J) == MODEL_OK);
            for (int row = 0; row < rows; row++)
                for (int j = 0; j < n; j++) {
                    double v = J[row * n + j] / (row < 3 ? L : 1.0);
                    if (n > rows) gsl_matrix_set(A, j, row, v);
                    else gsl_matrix_set(A, row, j, v);
                }
            CHECK(gsl_linalg_SV_decomp(A, V, S, w) == GSL_SUCCESS);
            double ref = gsl_vector_get(S, k - 1) / gsl_vector_get(S, 0);
            worst = fmax(worst, fabs(s - ref));
        }
        gsl_matrix_free(A);
        gsl_matrix_free(V);
        gsl_vector_free(S);
        gsl_vector_free(w);
        model_close(&m);
    }
    printf("# singularity measure vs GSL SVD: worst |difference| %.2e\n", worst);
    CHECK(worst < 1e-12);
    gsl_rng_free(r);
}

/* A massless, inertia-free link makes M singular: forward dynamics says so instead of returning garbage. */
UTEST(singular_mass_matrix)
{
    ModelDesc d;
    Model m;
    char err[256];
    model_desc_init(&d);
    strcpy(d.backend, "chain");
    d.njoints = 2;
    d.joint[1].parent = 0;
    d.joint[1].origin_xyz[0] = 0.5;
    d.joint[1].mass = 1;   /* joint 0 carries all; joint 1's link is a point mass on its own axis */
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_OK);
    double q[2] = {0.1, 0.2}, qd[2] = {0, 0}, tau[2] = {1, 1}, qdd[2];
    CHECK(model_forward_dynamics(&m, q, qd, tau, qdd) == MODEL_ESINGULAR);
    model_close(&m);
}

int main(void)
{
    RUN(registry_and_errors);
    RUN(puma560_fk_published);
    RUN(puma560_gravload_published);
    RUN(newton_euler_vs_lagrange);
    RUN(metric_derivative_vs_finite_difference);
    RUN(mass_matrix_spd);
    RUN(forward_of_inverse_dynamics);
    RUN(energy_balance);
    RUN(jacobian_vs_finite_difference);
    RUN(fk_all_links);
    RUN(ik_roundtrip_puma560);
    RUN(ik_roundtrip_random_redundant);
    RUN(ik_unreachable_and_position_only);
    RUN(semi_inverse_satisfies_full_equations);
    RUN(trig_accuracy);
    RUN(singularity_measure);
    RUN(singularity_vs_gsl_svd);
    RUN(singular_mass_matrix);
    return utest_done();
}
