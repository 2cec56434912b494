/* spline.c — SPLINE geometry (spline.h): natural cubic splines by chord length, the path-length table, bounds. */
#include "motion/spline.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <string.h>

#define BOUND_SAMPLES 64 /* samples per interval for the Cartesian speed bounds */

/* Second derivatives M of the natural cubic spline (M[0] = M[nk-1] = 0) through y (stride PLANNER_SPLINE_DIM,
 * component c) at knots u: the symmetric tridiagonal system of the interior knots, solved by GSL. */
static int natural_m(int nk, const double *u, const double (*y)[PLANNER_SPLINE_DIM], int c, double *M)
{
    int m = nk - 2;
    memset(M, 0, (size_t)nk * sizeof *M);
    if (m <= 0) return 0;
    double diag[PLANNER_SPLINE_MAX], off[PLANNER_SPLINE_MAX], rhs[PLANNER_SPLINE_MAX];
    for (int i = 1; i <= m; i++) {
        double h0 = u[i] - u[i - 1], h1 = u[i + 1] - u[i];
        diag[i - 1] = 2 * (h0 + h1);
        off[i - 1] = h1;
        rhs[i - 1] = 6 * ((y[i + 1][c] - y[i][c]) / h1 - (y[i][c] - y[i - 1][c]) / h0);
    }
    if (m == 1) {
        M[1] = rhs[0] / diag[0];
        return 0;
    }
    gsl_vector_view d = gsl_vector_view_array(diag, (size_t)m), e = gsl_vector_view_array(off, (size_t)m - 1);
    gsl_vector_view b = gsl_vector_view_array(rhs, (size_t)m), x = gsl_vector_view_array(M + 1, (size_t)m);
    return gsl_linalg_solve_symm_tridiag(&d.vector, &e.vector, &b.vector, &x.vector) == GSL_SUCCESS ? 0 : -2;
}

int spline_fit(PlannerSegment *g, int nk, const double (*y)[PLANNER_SPLINE_DIM], int ncomp, int nchord, int *at)
{
    double u[PLANNER_SPLINE_MAX], M[PLANNER_SPLINE_MAX];
    u[0] = 0;
    for (int k = 1; k < nk; k++) {
        double d2 = 0;
        for (int c = 0; c < nchord; c++) d2 += (y[k][c] - y[k - 1][c]) * (y[k][c] - y[k - 1][c]);
        if (!(sqrt(d2) > 1e-9)) return *at = k, -1;
        u[k] = u[k - 1] + sqrt(d2);
    }
    for (int k = 0; k < nk; k++) g->knot[k] = u[k] / u[nk - 1];
    g->knot[nk - 1] = 1;
    g->nk = nk;
    g->ncomp = ncomp;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    for (int c = 0; c < ncomp; c++) {
        if (natural_m(nk, g->knot, y, c, M) < 0) return gsl_set_error_handler(old), -2;
        for (int k = 0; k + 1 < nk; k++) {
            double h = g->knot[k + 1] - g->knot[k];
            double *cf = g->cf[k][c];
            cf[0] = y[k][c];
            cf[1] = (y[k + 1][c] - y[k][c]) / h - h * (2 * M[k] + M[k + 1]) / 6;
            cf[2] = M[k] / 2;
            cf[3] = (M[k + 1] - M[k]) / (6 * h);
        }
    }
    gsl_set_error_handler(old);
    return 0;
}

/* |dp/ds| of a SPLINE at s. */
static double path_speed(const PlannerSegment *g, double s)
{
    double v[PLANNER_SPLINE_DIM], d[PLANNER_SPLINE_DIM];
    planner_spline_at(g, s, v, d, NULL);
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

void spline_arc(PlannerSegment *g)
{
    const int N = PLANNER_SPLINE_ARC;
    g->arc[0] = 0;
    double f0 = path_speed(g, 0);
    for (int k = 0; k < N; k++) {
        double a = (double)k / N, b = (double)(k + 1) / N;
        double fm = path_speed(g, 0.5 * (a + b)), f1 = path_speed(g, b);
        g->arc[k + 1] = g->arc[k] + (b - a) / 6 * (f0 + 4 * fm + f1);
        f0 = f1;
    }
    g->length = g->arc[N];
}

void spline_component_bounds(const PlannerSegment *g, double *D1, double *D2, double *D3)
{
    for (int c = 0; c < g->ncomp; c++) {
        double d1 = 0, d2 = 0, d3 = 0;
        for (int k = 0; k + 1 < g->nk; k++) {
            const double *cf = g->cf[k][c];
            double h = g->knot[k + 1] - g->knot[k];
            /* v' = b + 2 c t + 3 d t^2: its ends and its vertex; v'' = 2 c + 6 d t: its ends; v''' = 6 d */
            double ts[3] = {0, h, cf[3] != 0 ? -cf[2] / (3 * cf[3]) : 0};
            for (int i = 0; i < 3; i++) {
                double t = ts[i];
                if (t < 0 || t > h) continue;
                d1 = fmax(d1, fabs(cf[1] + t * (2 * cf[2] + 3 * t * cf[3])));
            }
            d2 = fmax(d2, fmax(fabs(2 * cf[2]), fabs(2 * cf[2] + 6 * h * cf[3])));
            d3 = fmax(d3, fabs(6 * cf[3]));
        }
        D1[c] = d1, D2[c] = d2, D3[c] = d3;
    }
}

void spline_cart_bounds(const PlannerSegment *g, double *L, double *th)
{
    double l = 0, w = 0;
    for (int k = 0; k + 1 < g->nk; k++)
        for (int i = 0; i <= BOUND_SAMPLES; i++) {
            double s = g->knot[k] + (g->knot[k + 1] - g->knot[k]) * i / BOUND_SAMPLES;
            double v[PLANNER_SPLINE_DIM], d[PLANNER_SPLINE_DIM];
            planner_spline_at(g, s, v, d, NULL);
            l = fmax(l, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
            /* the unit quaternion q/|q| turns at 2 |d(q/|q|)/ds| = 2 |q' - q (q.q') / |q|^2| / |q| */
            double qq = 0, qd = 0, r = 0;
            for (int j = 3; j < 7; j++) qq += v[j] * v[j], qd += v[j] * d[j];
            for (int j = 3; j < 7; j++) {
                double x = d[j] - v[j] * qd / qq;
                r += x * x;
            }
            w = fmax(w, 2 * sqrt(r / qq));
        }
    *L = l, *th = w;
}
