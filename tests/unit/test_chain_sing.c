/* test_chain_sing.c — the chain's certified singularity skip (singularity_within): on 100,000 random configurations
 * near a reference decomposition (PUMA 560, a random 7-joint chain, a 4-joint arm on position rows), whenever the
 * op claims the measure lies in [lo, hi] it does, by GSL's Golub-Kahan SVD and by a second model's own Jacobi SVD,
 * and the lower bound it returns never exceeds either; bands straddling or missing the measure by as little as
 * 1e-13 relative are never certified; the skip happens on most near configurations (the test is not vacuous).
 * Also: a machine at rest gets the same bits again, and a walk with the checks' band ends with the extremes of a
 * model that computes every value. */
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "geom.h"
#include "chain_models.h"
#include "model.h"
#include "puma560_desc.h"
#include "utest.h"

#define NMAX 8

static void add_param(ModelDesc *d, const char *name, double v)
{
    ModelParam *p = &d->param[d->nparams++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->n = 1;
    p->v[0] = v;
}

/* Machine `which`: 0 PUMA 560, 1 a random 7-joint chain (transposed SVD), 2 the PUMA cut to 4 joints (3 rows). */
static void make_desc(int which, ModelDesc *d, gsl_rng *r)
{
    if (which == 1) {
        cm_random_desc(d, r, 7, 0, 3);
    } else {
        puma560_desc(d);
        if (which == 2) d->njoints = 4, d->tool_link = -1;
    }
}

/* GSL's measure of the normalised Jacobian at q (the independent reference). */
static double gsl_measure(Model *m, const double *q, double L)
{
    int n = m->dof, rows = n < 6 ? 3 : 6, k = n < rows ? n : rows;
    double J[6 * NMAX];
    model_jacobian(m, q, J);
    gsl_matrix *A = gsl_matrix_alloc(n > rows ? n : rows, k), *V = gsl_matrix_alloc(k, k);
    gsl_vector *S = gsl_vector_alloc(k), *w = gsl_vector_alloc(k);
    for (int row = 0; row < rows; row++)
        for (int j = 0; j < n; j++) {
            double v = J[row * n + j] * (row < 3 ? 1.0 / L : 1.0);
            if (n > rows) gsl_matrix_set(A, j, row, v);
            else gsl_matrix_set(A, row, j, v);
        }
    gsl_linalg_SV_decomp(A, V, S, w);
    double s = gsl_vector_get(S, k - 1) / gsl_vector_get(S, 0);
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_vector_free(S);
    gsl_vector_free(w);
    return s;
}

UTEST(bound_never_exceeds_the_measure)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 4711);
    const double L = 0.8;
    long trials = 0, skipped = 0, wrong = 0, straddle_claimed = 0, edge_trials = 0, by[7] = {0}, st5[7];
    double worst_gap = INFINITY; /* smallest (measure - lower bound) seen, relative */
    for (int which = 0; which < 3; which++) {
        ModelDesc *d = malloc(sizeof *d);
        make_desc(which, d, r);
        add_param(d, "char_length", L);
        Model m, ref;
        char err[256];
        CHECK(model_open(&m, d, err, sizeof err) == MODEL_OK);
        CHECK(model_open(&ref, d, err, sizeof err) == MODEL_OK);
        int n = d->njoints;
        long per = which == 0 ? 50000 : 25000;
        for (long t = 0; t < per; t++, trials++) {
            double q0[NMAX], q[NMAX], s0, s_own, s_gsl, out;
            for (int i = 0; i < n; i++) q0[i] = cm_uniform(r, -M_PI, M_PI);
            /* the reference decomposition: an empty band always computes */
            CHECK(model_singularity_within(&m, q0, 1.0, 0.0, &s0) == 0);
            double scale = pow(10.0, cm_uniform(r, -7, -1));
            for (int i = 0; i < n; i++) q[i] = q0[i] + scale * cm_uniform(r, -1, 1);
            CHECK(model_singularity(&ref, q, &s_own) == MODEL_OK);
            s_gsl = gsl_measure(&ref, q, L);
            double lo_true = fmin(s_own, s_gsl), hi_true = fmax(s_own, s_gsl);
            /* a band around the measure, or one that just misses it on either side */
            double lo, hi, w = s_own * pow(10.0, cm_uniform(r, -6, -1));
            int kind = (int)gsl_rng_uniform_int(r, 4);
            if (kind == 0) lo = s_own - w, hi = s_own + w;
            else if (kind == 1) lo = hi_true * (1 + 1e-13), hi = lo + w;       /* just above the measure */
            else if (kind == 2) hi = lo_true * (1 - 1e-13), lo = hi - w;       /* just below */
            else lo = 0, hi = 1;                                              /* everything */
            if (kind == 1 || kind == 2) edge_trials++;
            int st = model_singularity_within(&m, q, lo, hi, &out);
            CHECK(st >= 0);
            if (st == 1) {
                skipped++;
                if (kind == 1 || kind == 2) straddle_claimed++;
                if (!(lo_true >= lo && hi_true <= hi && out >= lo && out <= hi && out <= lo_true)) {
                    if (wrong++ < 5)
                        printf("#   machine %d: band [%.17g, %.17g], bound %.17g, measure %.17g (GSL %.17g)\n",
                               which, lo, hi, out, s_own, s_gsl);
                }
                if (s_own > 0) worst_gap = fmin(worst_gap, (lo_true - out) / s_own);
            } else if (st == 0) {
                /* computed: the value is the measure (to rounding) */
                if (!(fabs(out - s_own) <= 1e-13)) wrong++;
            }
        }
        chain_sing_stats(m.state, st5, 0);
        for (int i = 0; i < 7; i++) by[i] += st5[i];
        model_close(&m);
        model_close(&ref);
        free(d);
    }
    printf("# %ld trials: %ld certified without computing (Weyl %ld, Temple %ld, "
           "Lipschitz %ld, first-order %ld), %ld edge bands (none may be certified), smallest (measure - bound) / "
           "measure %.2e\n", trials, skipped, by[1], by[2], by[5], by[6], edge_trials, worst_gap);
    CHECK(wrong == 0);
    CHECK(straddle_claimed == 0);
    CHECK(skipped > trials / 4);
    /* every proof was exercised */
    CHECK(by[1] > trials / 50 && by[2] > trials / 50 && by[5] > trials / 50 && by[6] > trials / 200);
    gsl_rng_free(r);
}

/* The first-order bound of singularity_within (chain_sing_first_order_bound): e >= |A(q) - A(qw)|_F for the
 * normalised Jacobian A, with K made at a third point qk, on the PUMA, a random 7-joint serial chain and a random
 * 8-joint tree (off-path joints), steps from 1e-6 to 0.5 rad; and it is first-order tight: for steps below 1e-3 it
 * exceeds the true distance by less than 10 % in most trials (the Lipschitz bound's constants are 3-7 times). */
UTEST(first_order_bound_holds)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 815);
    const double L = 0.8;
    long trials = 0, below = 0, small = 0, tight = 0;
    double worst = INFINITY;
    for (int which = 0; which < 3; which++) {
        ModelDesc *d = malloc(sizeof *d);
        if (which == 0) puma560_desc(d);
        else cm_random_desc(d, r, which == 1 ? 7 : 8, which == 2, 0);
        add_param(d, "char_length", L);
        Model m, ref;
        char err[256];
        CHECK(model_open(&m, d, err, sizeof err) == MODEL_OK);
        CHECK(model_open(&ref, d, err, sizeof err) == MODEL_OK);
        int n = d->njoints;
        for (long t = 0; t < 20000; t++, trials++) {
            double qk[NMAX], qw[NMAX], q[NMAX], e, Jw[6 * NMAX], J[6 * NMAX], d2 = 0;
            double sk = pow(10.0, cm_uniform(r, -6, -0.3)), sw = pow(10.0, cm_uniform(r, -6, -0.3));
            for (int i = 0; i < n; i++) {
                qk[i] = cm_uniform(r, -M_PI, M_PI);
                qw[i] = qk[i] + (t % 4 == 0 ? 0 : sk * cm_uniform(r, -1, 1));
                q[i] = qw[i] + sw * cm_uniform(r, -1, 1);
            }
            CHECK(chain_sing_first_order_bound(m.state, qk, qw, q, &e) == MODEL_OK);
            CHECK(model_jacobian(&ref, qw, Jw) == MODEL_OK);
            CHECK(model_jacobian(&ref, q, J) == MODEL_OK);
            for (int row = 0; row < 6; row++)
                for (int j = 0; j < n; j++) {
                    double x = (J[row * n + j] - Jw[row * n + j]) * (row < 3 ? 1.0 / L : 1.0);
                    d2 += x * x;
                }
            double act = sqrt(d2);
            /* e bounds the true matrices' distance; the two formed here carry ~1e-16 of rounding each */
            if (!(e * (1 + 1e-9) + 1e-14 >= act)) {
                if (below++ < 5) printf("#   machine %d: bound %.17g < distance %.17g\n", which, e, act);
            }
            if (act > 0) worst = fmin(worst, e / act);
            if (sw < 1e-3 && sk < 1e-3 && act > 0) small++, tight += e < 1.1 * act;
        }
        model_close(&m);
        model_close(&ref);
        free(d);
    }
    printf("# first-order bound: %ld trials, smallest bound / distance %.6f, within 10 %% on %ld of %ld small steps\n",
           trials, worst, tight, small);
    CHECK(below == 0);
    CHECK(small > 1000 && tight > small / 2);
    gsl_rng_free(r);
}

/* A machine at rest: the same q gives the same bits, whatever the band. A model asked without a band computes every
 * value; one asked with the checks' band (the running minimum and maximum) skips most, and where it computes, its
 * values agree with the first's to rounding (their warm starts differ), so the extremes come out the same. */
UTEST(rest_and_walk)
{
    ModelDesc *d = malloc(sizeof *d);
    puma560_desc(d);
    Model a, b;
    char err[256];
    CHECK(model_open(&a, d, err, sizeof err) == MODEL_OK);
    CHECK(model_open(&b, d, err, sizeof err) == MODEL_OK);
    double q[6] = {0.1, 0.7, -2.9, 0.2, 0.6, 0.1}, s1, s2, s3;
    CHECK(model_singularity_within(&a, q, 1, 0, &s1) == 0);
    CHECK(model_singularity_within(&a, q, 0, 1, &s2) == 0); /* at rest: computed (same bits), not a bound */
    CHECK(model_singularity(&a, q, &s3) == MODEL_OK);
    CHECK(memcmp(&s1, &s2, sizeof s1) == 0 && memcmp(&s1, &s3, sizeof s1) == 0);
    CHECK(model_singularity(&b, q, &s2) == MODEL_OK); /* the same history for b */
    long askip = 0, acomp = 0;
    double differ = 0;
    double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
    for (int t = 0; t < 4000; t++) {
        for (int i = 0; i < 6; i++) q[i] += 1e-3 * (i + 1) * cos(0.003 * t + i);
        double sa, sb;
        int sta = model_singularity_within(&a, q, amin, amax, &sa);
        CHECK(model_singularity(&b, q, &sb) == MODEL_OK);
        if (sta == 1) {
            askip++;
            CHECK(sa <= sb && sb >= amin && sb <= amax);
        } else {
            acomp++;
            differ = fmax(differ, fabs(sa - sb));
        }
        amin = fmin(amin, sa), amax = fmax(amax, sa);
        bmin = fmin(bmin, sb), bmax = fmax(bmax, sb);
    }
    printf("# walk: %ld of 4000 skipped, %ld computed; computed values differing by up to %.2e; "
           "range [%.6f, %.6f]\n", askip, acomp, differ, bmin, bmax);
    CHECK(askip > 1000 && acomp > 10);
    CHECK(differ <= 1e-13);
    CHECK(fabs(amin - bmin) <= 1e-13 && fabs(amax - bmax) <= 1e-13);
    model_close(&a);
    model_close(&b);
    free(d);
}

int main(void)
{
    RUN(bound_never_exceeds_the_measure);
    RUN(first_order_bound_holds);
    RUN(rest_and_walk);
    return utest_done();
}
