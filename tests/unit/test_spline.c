/* test_spline.c — the SPLINE segment's geometry (motion/spline.h, path.h): the natural cubic splines pass through
 * their knots, are C2 at every interior knot with zero curvature at the ends, agree with GSL's own natural cubic
 * spline (gsl_interp_cspline, an independent implementation) everywhere; the derivative bounds are the true maxima;
 * the path-length table gives a line's length and inverts to the parameter; coincident knots are refused. */
#include <gsl/gsl_interp.h>
#include <gsl/gsl_spline.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motion/spline.h"
#include "test_rand.h"
#include "utest.h"

/* Random knots (nk, ncomp components) with chords between 0.05 and 1 in the first nchord components. */
static void random_knots(int nk, int ncomp, double (*y)[PLANNER_SPLINE_DIM])
{
    for (int k = 0; k < nk; k++)
        for (int c = 0; c < ncomp; c++) y[k][c] = (k ? y[k - 1][c] : 0) + 0.05 + 0.95 * (urand() - 0.5) * 2;
}

UTEST(through_knots_c2_natural)
{
    static PlannerSegment g;
    double y[PLANNER_SPLINE_MAX][PLANNER_SPLINE_DIM];
    double worst_v = 0, worst_d1 = 0, worst_d2 = 0, worst_end = 0;
    for (int trial = 0; trial < 200; trial++) {
        int nk = 2 + trial % (PLANNER_SPLINE_MAX - 1), at;
        random_knots(nk, 7, y);
        CHECK(spline_fit(&g, nk, (const double(*)[PLANNER_SPLINE_DIM])y, 7, 3, &at) == 0);
        for (int k = 0; k < nk; k++) {
            double v[PLANNER_SPLINE_DIM];
            planner_spline_at(&g, g.knot[k], v, NULL, NULL);
            for (int c = 0; c < 7; c++) worst_v = fmax(worst_v, fabs(v[c] - y[k][c]));
        }
        for (int k = 1; k + 1 < nk; k++)   /* the left interval's polynomial at its end against the right's start */
            for (int c = 0; c < 7; c++) {
                const double *a = g.cf[k - 1][c], *b = g.cf[k][c];
                double h = g.knot[k] - g.knot[k - 1];
                double v = a[0] + h * (a[1] + h * (a[2] + h * a[3])), d1 = a[1] + h * (2 * a[2] + 3 * h * a[3]);
                double d2 = 2 * a[2] + 6 * h * a[3];
                worst_v = fmax(worst_v, fabs(v - b[0]));
                worst_d1 = fmax(worst_d1, fabs(d1 - b[1]) / (1 + fabs(b[1])));
                worst_d2 = fmax(worst_d2, fabs(d2 - 2 * b[2]) / (1 + fabs(b[2])));
            }
        for (int c = 0; c < 7; c++) {
            double d2[PLANNER_SPLINE_DIM], v[PLANNER_SPLINE_DIM];
            planner_spline_at(&g, 0, v, NULL, d2);
            worst_end = fmax(worst_end, fabs(d2[c]));
            planner_spline_at(&g, 1, v, NULL, d2);
            worst_end = fmax(worst_end, fabs(d2[c]));
        }
    }
    printf("#   knots %.3g, C1 %.3g, C2 %.3g (relative), end curvature %.3g\n", worst_v, worst_d1, worst_d2, worst_end);
    CHECK(worst_v < 1e-12);
    CHECK(worst_d1 < 1e-10);
    CHECK(worst_d2 < 1e-8);
    CHECK(worst_end < 1e-8);
}

UTEST(agrees_with_gsl_cspline)
{
    static PlannerSegment g;
    double y[PLANNER_SPLINE_MAX][PLANNER_SPLINE_DIM], worst = 0;
    gsl_interp_accel *acc = gsl_interp_accel_alloc();
    for (int trial = 0; trial < 50; trial++) {
        int nk = 3 + trial % (PLANNER_SPLINE_MAX - 2), at;
        random_knots(nk, 4, y);
        CHECK(spline_fit(&g, nk, (const double(*)[PLANNER_SPLINE_DIM])y, 4, 4, &at) == 0);
        for (int c = 0; c < 4; c++) {
            double xs[PLANNER_SPLINE_MAX], ys[PLANNER_SPLINE_MAX];
            for (int k = 0; k < nk; k++) xs[k] = g.knot[k], ys[k] = y[k][c];
            gsl_spline *sp = gsl_spline_alloc(gsl_interp_cspline, (size_t)nk);
            gsl_spline_init(sp, xs, ys, (size_t)nk);
            gsl_interp_accel_reset(acc);   /* its cached index belongs to the previous spline */
            for (int i = 0; i <= 1000; i++) {
                double s = i / 1000.0, v[PLANNER_SPLINE_DIM], d1[PLANNER_SPLINE_DIM], d2[PLANNER_SPLINE_DIM];
                planner_spline_at(&g, s, v, d1, d2);
                worst = fmax(worst, fabs(v[c] - gsl_spline_eval(sp, s, acc)));
                worst = fmax(worst, fabs(d1[c] - gsl_spline_eval_deriv(sp, s, acc)) * 1e-2);
                worst = fmax(worst, fabs(d2[c] - gsl_spline_eval_deriv2(sp, s, acc)) * 1e-4);
            }
            gsl_spline_free(sp);
        }
    }
    gsl_interp_accel_free(acc);
    printf("#   worst difference from gsl_interp_cspline %.3g (value; derivatives scaled by 1e-2, 1e-4)\n", worst);
    CHECK(worst < 1e-9);
}

UTEST(bounds_are_the_maxima)
{
    static PlannerSegment g;
    double y[PLANNER_SPLINE_MAX][PLANNER_SPLINE_DIM], D1[PLANNER_SPLINE_DIM], D2[PLANNER_SPLINE_DIM];
    double D3[PLANNER_SPLINE_DIM];
    int at;
    random_knots(9, 6, y);
    CHECK(spline_fit(&g, 9, (const double(*)[PLANNER_SPLINE_DIM])y, 6, 6, &at) == 0);
    spline_component_bounds(&g, D1, D2, D3);
    double m1[6] = {0}, m2[6] = {0}, m3[6] = {0};
    for (int i = 0; i <= 200000 + g.nk; i++) {   /* a fine grid, and the knots (where |v''| peaks) */
        double s = i <= 200000 ? i / 200000.0 : g.knot[i - 200001];
        double v[PLANNER_SPLINE_DIM], d1[PLANNER_SPLINE_DIM], d2[PLANNER_SPLINE_DIM];
        planner_spline_at(&g, s, v, d1, d2);
        for (int c = 0; c < 6; c++) m1[c] = fmax(m1[c], fabs(d1[c])), m2[c] = fmax(m2[c], fabs(d2[c]));
    }
    for (int k = 0; k + 1 < g.nk; k++)
        for (int c = 0; c < 6; c++) m3[c] = fmax(m3[c], fabs(6 * g.cf[k][c][3]));
    for (int c = 0; c < 6; c++) {
        CHECK(D1[c] >= m1[c] * (1 - 1e-12) && D1[c] <= m1[c] * (1 + 1e-6));
        CHECK(D2[c] >= m2[c] * (1 - 1e-12) && D2[c] <= m2[c] * (1 + 1e-9));
        CHECK_REL(D3[c], m3[c], 1e-12);
    }
}

UTEST(length_of_a_line_and_its_inverse)
{
    static PlannerSegment g;
    double y[PLANNER_SPLINE_MAX][PLANNER_SPLINE_DIM] = {{0.1, 0.2, 0.3, 1, 0, 0, 0}, {0.4, -0.2, 0.3, 1, 0, 0, 0}};
    int at;
    g.kind = PLANNER_SPLINE;
    CHECK(spline_fit(&g, 2, (const double(*)[PLANNER_SPLINE_DIM])y, 7, 3, &at) == 0);
    spline_arc(&g);
    CHECK_NEAR(g.length, 0.5, 1e-14);
    for (int k = 0; k <= PLANNER_SPLINE_ARC; k += 16)
        CHECK_NEAR(planner_s_at_length(&g, g.arc[k]), (double)k / PLANNER_SPLINE_ARC, 1e-12);
    /* a bent path: the table's length against 10^6 chords */
    double z[PLANNER_SPLINE_MAX][PLANNER_SPLINE_DIM] = {{0, 0, 0, 1, 0, 0, 0}, {0.1, 0.05, 0, 1, 0, 0, 0},
                                                        {0.15, 0.15, 0.02, 1, 0, 0, 0}, {0.05, 0.2, 0, 1, 0, 0, 0}};
    CHECK(spline_fit(&g, 4, (const double(*)[PLANNER_SPLINE_DIM])z, 7, 3, &at) == 0);
    spline_arc(&g);
    double L = 0, p[PLANNER_SPLINE_DIM], q[PLANNER_SPLINE_DIM];
    planner_spline_at(&g, 0, p, NULL, NULL);
    for (int i = 1; i <= 1000000; i++) {
        planner_spline_at(&g, i / 1e6, q, NULL, NULL);
        L += sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]));
        memcpy(p, q, sizeof p);
    }
    printf("#   bent path: table %.12g m, chords %.12g m\n", g.length, L);
    CHECK_NEAR(g.length, L, 1e-9);
}

UTEST(coincident_knots_refused)
{
    static PlannerSegment g;
    double y[PLANNER_SPLINE_MAX][PLANNER_SPLINE_DIM] = {{0, 0, 0}, {1, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    int at = 0;
    CHECK(spline_fit(&g, 4, (const double(*)[PLANNER_SPLINE_DIM])y, 3, 3, &at) == -1);
    CHECK(at == 2);
}

int main(void)
{
    RUN(through_knots_c2_natural);
    RUN(agrees_with_gsl_cspline);
    RUN(bounds_are_the_maxima);
    RUN(length_of_a_line_and_its_inverse);
    RUN(coincident_knots_refused);
    return utest_done();
}
