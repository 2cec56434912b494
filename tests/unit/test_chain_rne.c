/* test_chain_rne.c — the chain's recursive Newton-Euler (DH-like joints: R^T v by a reorder and Rz(q)^T, with the
 * terms of a zero origin, zero first moment or diagonal inertia skipped; general revolute and prismatic joints by
 * the full rotation) against the Lagrange form (chain_lagrange.c, an independent derivation), on the PUMA 560 (built
 * in C and read from its machine file) and on seeded random chains and trees that mix DH joints of every kind with
 * general revolute and prismatic joints. Also: a cache hit gives the bits of a miss, and bias = ID with qdd = 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "chain_lagrange.h"
#include "diag.h"
#include "geom.h"
#include "machine.h"
#include "model.h"
#include "puma560_desc.h"
#include "test_rand.h"
#include "utest.h"

#define NMAX MODEL_MAX_DOF

static double urange(double a, double b) { return a + (b - a) * urand(); }

/* max |a - b| / max(max |b|, 1) */
static double rel_err(const double *a, const double *b, int n)
{
    double scale = 1.0, e = 0.0;
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
    return e / scale;
}

/* A random rotation (normalised random quaternion). */
static void rand_rotation(double R[9])
{
    double q[4], n;
    do {
        for (int k = 0; k < 4; k++) q[k] = urange(-1, 1);
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 0.1 || n > 1);
    for (int k = 0; k < 4; k++) q[k] /= n;
    quat_to_m3(R, q);
}

/* A random proper signed permutation: column k = s_k e_perm(k), det +1. Half of them are made the way a machine
 * file makes Rx(+-90 deg) and Ry, Rz of +-90 / 180 deg: from cos and sin, with 6e-17 where the exact matrix has 0. */
static void rand_signed_perm(double R[9])
{
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    if (urand() < 0.5) {
        double a = (double)(1 + (int)(urand() * 3)) * M_PI / 2, c = cos(a), s = sin(a);
        int ax = (int)(urand() * 3);
        double Rx[9] = {1, 0, 0, 0, c, -s, 0, s, c}, Ry[9] = {c, 0, s, 0, 1, 0, -s, 0, c},
               Rz[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
        memcpy(R, ax == 0 ? Rx : ax == 1 ? Ry : Rz, sizeof Rx);
        return;
    }
    int pi = (int)(urand() * 6);
    double s[3] = {urand() < 0.5 ? -1.0 : 1.0, urand() < 0.5 ? -1.0 : 1.0, 1.0};
    s[2] = (pi < 3 ? 1.0 : -1.0) * s[0] * s[1]; /* det = sign(perm) s0 s1 s2 = +1 */
    memset(R, 0, 9 * sizeof(double));
    for (int k = 0; k < 3; k++) R[3 * perms[pi][k] + k] = s[k];
}

/* Random link inertia: mass in [0.5, 5], COM within 0.3 m, inertia about the COM R diag R^T (physical). */
static void rand_inertial(ModelJoint *j)
{
    double a = urange(0.001, 0.1), b = urange(0.001, 0.1), c = urange(0.001, 0.1), R[9];
    double D[3] = {b + c, a + c, a + b};
    j->mass = urange(0.5, 5);
    for (int k = 0; k < 3; k++) j->com[k] = urange(-0.3, 0.3);
    rand_rotation(R);
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += R[3 * p + k] * D[k] * R[3 * q + k];
            j->inertia[3 * p + q] = s;
        }
    j->inertia[3] = j->inertia[1], j->inertia[6] = j->inertia[2], j->inertia[7] = j->inertia[5];
}

/* Joint kinds: DH-like ones (axis exactly z, origin rotation a signed permutation) with each of the DH path's
 * special cases, and the joints the DH path must leave to the general one. */
enum {
    K_DH,           /* DH, everything general */
    K_DH_P0,        /* DH at the parent's origin (p0 = 0) */
    K_DH_MASSLESS,  /* DH, massless link with inertia (first moment 0), like the PUMA's link 1 */
    K_DH_COM0,      /* DH, COM at the link origin (first moment 0) */
    K_DH_DIAG,      /* DH, COM on z and principal axes along the link axes (diagonal inertia about the origin) */
    K_DH_IDENT,     /* DH with the identity origin rotation */
    K_REV_Z_ROT,    /* revolute about z, origin rotation general: not DH */
    K_REV,          /* revolute about a general axis */
    K_PRISM_Z,      /* prismatic along z with a signed-permutation origin: not DH */
    K_PRISM,        /* prismatic along a general axis */
    K_COUNT
};

/* A random machine of n joints: kinds drawn from all of the above, or from the DH ones only (dh_only); first joint's
 * kind forced when first >= 0; serial
 * (tree = 0) or with parents drawn among earlier joints. */
static void rand_machine(ModelDesc *d, int n, int tree, int first, int dh_only)
{
    model_desc_init(d);
    snprintf(d->name, sizeof d->name, "%s%d%s", dh_only ? "dh" : "mixed", n, tree ? "tree" : "");
    strcpy(d->backend, "chain");
    d->njoints = n;
    v3_set(d->gravity, urange(-1, 1), urange(-1, 1), -9.81);
    for (int i = 0; i < n; i++) {
        ModelJoint *j = &d->joint[i];
        int kind = i == 0 && first >= 0 ? first : (int)(urand() * (dh_only ? K_DH_IDENT + 1 : K_COUNT));
        snprintf(j->name, sizeof j->name, "j%d", i);
        j->parent = i == 0 ? -1 : tree ? (int)(urand() * i) : i - 1;
        j->type = kind == K_PRISM_Z || kind == K_PRISM ? MODEL_PRISMATIC : MODEL_REVOLUTE;
        for (int k = 0; k < 3; k++) j->origin_xyz[k] = urange(-0.5, 0.5);
        rand_inertial(j);
        v3_set(j->axis, 0, 0, 1);
        rand_signed_perm(j->origin_R);
        switch (kind) {
        case K_DH_P0: v3_set(j->origin_xyz, 0, 0, 0); break;
        case K_DH_MASSLESS: j->mass = 0; break;
        case K_DH_COM0: v3_set(j->com, 0, 0, 0); break;
        case K_DH_DIAG:
            v3_set(j->com, 0, 0, urange(-0.3, 0.3));
            for (int k = 0; k < 9; k++)
                if (k % 4) j->inertia[k] = 0;
            break;
        case K_DH_IDENT: m3_identity(j->origin_R); break;
        case K_REV_Z_ROT: case K_PRISM: rand_rotation(j->origin_R); break;
        default: break;
        }
        if (kind == K_REV || kind == K_PRISM) {
            double a[3];
            do {
                for (int k = 0; k < 3; k++) a[k] = urange(-1, 1);
            } while (v3_norm(a) < 0.1);
            v3_copy(j->axis, a);
        }
        j->limits.min = j->type == MODEL_PRISMATIC ? -0.5 : -M_PI;
        j->limits.max = -j->limits.min;
    }
    d->tool_link = n - 1;
}

static int load_file(const char *path, ModelDesc *d)
{
    Diag diag;
    diag_init(&diag, stdout);
    int rc = machine_load(path, d, &diag);
    diag_free(&diag);
    return rc;
}

/* The machines: PUMA 560 (C description and machine file), random mixed chains and trees (several seeds each),
 * random chains and trees of DH joints only. */
enum { NMACHINES = 16 };
static int make_machine(int which, ModelDesc *d)
{
    rng_state = 0x5EED0000ull + (uint64_t)which * 7919;
    if (which == 0) {
        puma560_desc(d);
        return 0;
    }
    if (which == 1) return load_file("models/puma560_cell.irm", d) == MACHINE_OK ? 0 : -1;
    if (which == 2) rand_machine(d, 9, 0, K_DH, 0);          /* DH base */
    else if (which == 3) rand_machine(d, 9, 0, K_REV, 0);    /* general base */
    else if (which == 4) rand_machine(d, 9, 0, K_PRISM, 0);  /* prismatic base */
    else if (which == 5) rand_machine(d, 10, 1, K_DH_MASSLESS, 0);
    else if (which == 6) rand_machine(d, 10, 1, K_REV_Z_ROT, 0);
    else if (which < 12) rand_machine(d, 6 + which % 5, which % 2, -1, 0);
    else rand_machine(d, 7 + which % 4, which % 2, -1, 1);  /* DH only */
    return 0;
}

/* 1 when the back-end takes joint j on the DH path (its test: revolute, axis along +z, every column of the origin
 * rotation within 1e-15 of a signed unit vector). */
static int is_dh(const ModelJoint *j)
{
    if (j->type != MODEL_REVOLUTE || j->axis[0] != 0 || j->axis[1] != 0 || !(j->axis[2] > 0)) return 0;
    for (int k = 0; k < 3; k++) {
        int ones = 0, zeros = 0;
        for (int r = 0; r < 3; r++) {
            double v = fabs(j->origin_R[3 * r + k]);
            ones += fabs(v - 1) <= 1e-15;
            zeros += v <= 1e-15;
        }
        if (ones != 1 || zeros != 2) return 0;
    }
    return 1;
}

/* Coverage of the DH path's cases over the machines: DH joints at the base, after a general joint, before one,
 * at the parent's origin, with zero first moment, with a diagonal inertia about the origin, on a branch of a tree
 * (parent not the joint before: the parent's force sums several children's). */
enum { C_DH, C_DH_BASE, C_DH_AFTER_GEN, C_GEN_AFTER_DH, C_DH_P0, C_DH_MC0, C_DH_DIAG, C_DH_BRANCH, C_COUNT };
static void count_cases(const ModelDesc *d, int cnt[C_COUNT])
{
    for (int i = 0; i < d->njoints; i++) {
        const ModelJoint *j = &d->joint[i];
        int p = j->parent, dh = is_dh(j), pdh = p >= 0 && is_dh(&d->joint[p]);
        cnt[C_GEN_AFTER_DH] += !dh && pdh;
        if (!dh) continue;
        const double *c = j->com, *I = j->inertia;
        cnt[C_DH]++;
        cnt[C_DH_BASE] += p < 0;
        cnt[C_DH_AFTER_GEN] += p >= 0 && !pdh;
        cnt[C_DH_P0] += j->origin_xyz[0] == 0 && j->origin_xyz[1] == 0 && j->origin_xyz[2] == 0;
        cnt[C_DH_MC0] += j->mass == 0 || (c[0] == 0 && c[1] == 0 && c[2] == 0);
        cnt[C_DH_DIAG] += c[0] == 0 && c[1] == 0 && I[1] == 0 && I[2] == 0 && I[5] == 0;
        cnt[C_DH_BRANCH] += p >= 0 && p != i - 1;
    }
}

/* Joint state within limits; every 8th at rest (gravity only), every 8th with qdd = 0. */
static void rand_state(const ModelDesc *d, int t, double *q, double *qd, double *qdd)
{
    for (int i = 0; i < d->njoints; i++) {
        const ModelAxisLimits *l = &d->joint[i].limits;
        double span = d->joint[i].type == MODEL_REVOLUTE ? M_PI : 0.5;
        double lo = isfinite(l->min) ? l->min : -span, hi = isfinite(l->max) ? l->max : span;
        q[i] = urange(lo, hi);
        qd[i] = t % 8 == 0 ? 0 : urange(-3, 3);
        qdd[i] = t % 8 == 0 || t % 8 == 1 ? 0 : urange(-8, 8);
    }
}

/* The RNE vs the Lagrange form at random states: tau to 1e-9 relative, over machines that cover every case of the
 * DH-like joints' path (count_cases). */
UTEST(rne_vs_lagrange)
{
    double worst_all = 0;
    int cnt[C_COUNT] = {0};
    for (int which = 0; which < NMACHINES; which++) {
        ModelDesc *d = malloc(sizeof *d);
        Model m;
        char err[256];
        CHECK(make_machine(which, d) == 0);
        CHECK(model_open(&m, d, err, sizeof err) == MODEL_OK);
        ChainLagrange *L = chain_lagrange_create(d, err, sizeof err);
        CHECK(L != NULL);
        if (!m.state || !L) {
            free(d);
            continue;
        }
        int n = d->njoints, ndh = 0;
        for (int i = 0; i < n; i++) ndh += is_dh(&d->joint[i]);
        count_cases(d, cnt);
        double worst = 0;
        for (int t = 0; t < 400; t++) {
            double q[NMAX], qd[NMAX], qdd[NMAX], tf[NMAX], tl[NMAX], h[NMAX], z[NMAX] = {0}, tf0[NMAX];
            rand_state(d, t, q, qd, qdd);
            CHECK(model_inverse_dynamics(&m, q, qd, qdd, tf) == MODEL_OK);
            chain_lagrange_inverse_dynamics(L, q, qd, qdd, tl);
            worst = fmax(worst, rel_err(tf, tl, n));
            /* bias = ID(q, qd, 0) */
            CHECK(model_bias(&m, q, qd, h) == MODEL_OK);
            CHECK(model_inverse_dynamics(&m, q, qd, z, tf0) == MODEL_OK);
            CHECK(memcmp(h, tf0, (size_t)n * sizeof(double)) == 0);
        }
        printf("# %s (%d joints, %d DH-like): RNE vs Lagrange worst rel %.2e\n", d->name, n, ndh, worst);
        CHECK(worst < 1e-9);
        worst_all = fmax(worst_all, worst);
        chain_lagrange_free(L);
        model_close(&m);
        free(d);
    }
    printf("# all machines: RNE vs Lagrange worst rel %.2e\n", worst_all);
    printf("# DH joints %d: at the base %d, after a general joint %d, before one %d, p0 = 0 %d, m c = 0 %d, "
           "diagonal inertia %d, on a branch %d\n", cnt[C_DH], cnt[C_DH_BASE], cnt[C_DH_AFTER_GEN],
           cnt[C_GEN_AFTER_DH], cnt[C_DH_P0], cnt[C_DH_MC0], cnt[C_DH_DIAG], cnt[C_DH_BRANCH]);
    for (int k = 0; k < C_COUNT; k++) CHECK(cnt[k] >= 2);
}

/* The result at q does not depend on whether cos/sin of q came from the cache: a miss (first call), a hit (the
 * next), and a miss again after three other joint vectors evicted it, bit for bit. */
UTEST(cache_hit_equals_miss)
{
    for (int which = 0; which < NMACHINES; which += 3) {
        ModelDesc *d = malloc(sizeof *d);
        Model m;
        char err[256];
        CHECK(make_machine(which, d) == 0);
        CHECK(model_open(&m, d, err, sizeof err) == MODEL_OK);
        if (!m.state) {
            free(d);
            continue;
        }
        int n = d->njoints, same = 1;
        for (int t = 0; t < 50; t++) {
            double q[NMAX], qd[NMAX], qdd[NMAX], t1[NMAX], t2[NMAX], t3[NMAX], o[NMAX], od[NMAX], odd[NMAX];
            rand_state(d, t + 2, q, qd, qdd);
            model_inverse_dynamics(&m, q, qd, qdd, t1);
            model_inverse_dynamics(&m, q, qd, qdd, t2);
            for (int k = 0; k < 3; k++) {
                rand_state(d, t + 2, o, od, odd);
                model_inverse_dynamics(&m, o, od, odd, t3);
            }
            model_inverse_dynamics(&m, q, qd, qdd, t3);
            same &= memcmp(t1, t2, (size_t)n * sizeof(double)) == 0 && memcmp(t1, t3, (size_t)n * sizeof(double)) == 0;
        }
        CHECK(same);
        model_close(&m);
        free(d);
    }
}

int main(void)
{
    RUN(rne_vs_lagrange);
    RUN(cache_hit_equals_miss);
    return utest_done();
}
