/* follow.c — MOVE FOLLOW's setpoint stream (a ring of per-cycle samples) and its table splines (follow.h). */
#include "motion/follow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_vector.h>

int follow_init(FollowStream *f, int n)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->ring = calloc(FOLLOW_QUEUE, sizeof *f->ring);
    return f->ring ? 0 : -1;
}

void follow_free(FollowStream *f)
{
    free(f->ring);
    memset(f, 0, sizeof *f);
}

void follow_begin(FollowStream *f, PlannerSrc src, const FollowSample *s0)
{
    f->src = src;
    f->start = *s0;
    f->fresh = 1;
    f->open = 1;
    f->last = *s0;
}

void follow_end(FollowStream *f) { f->open = 0; }

int follow_full(const FollowStream *f) { return f->head - f->tail >= FOLLOW_QUEUE; }

long follow_pending(const FollowStream *f) { return f->head - f->tail; }

void follow_push(FollowStream *f, const FollowSample *s) { f->ring[f->head++ % FOLLOW_QUEUE] = *s; }

int follow_take(FollowStream *f, double t, double dt, FollowSample *out, FollowSample *start)
{
    while (f->head > f->tail && f->ring[f->tail % FOLLOW_QUEUE].t < t - dt / 2) f->tail++; /* stale */
    if (f->head == f->tail && f->open) { /* a FOLLOW left unfinished (an error in its function): hold still */
        *out = f->last;
        out->t = t;
        memset(out->qd, 0, sizeof out->qd);
        memset(out->qdd, 0, sizeof out->qdd);
        return 1;
    }
    if (f->head == f->tail || f->ring[f->tail % FOLLOW_QUEUE].t > t + dt / 2) return 0;
    *out = f->ring[f->tail++ % FOLLOW_QUEUE];
    f->last = *out;
    if (!f->fresh) return 1;
    f->fresh = 0;
    *start = f->start;
    return 2;
}

int follow_table_bad_row(const double *t, int rows)
{
    for (int i = 0; i < rows; i++)
        if (!isfinite(t[i]) || (i > 0 && !(t[i] > t[i - 1]))) return i;
    return -1;
}

/* The clamped spline's second derivatives at the samples of one axis: the symmetric tridiagonal system of the
 * continuity of the first derivative, with q'(t_0) = q'(t_n-1) = 0. 0, or -1. */
static int clamped(const double *t, const double *y, double *m, int n, double *work)
{
    double *diag = work, *off = work + n, *rhs = work + 2 * n;
    for (int i = 0; i < n; i++) {
        double hl = i > 0 ? t[i] - t[i - 1] : 0, hr = i < n - 1 ? t[i + 1] - t[i] : 0;
        double sl = i > 0 ? (y[i] - y[i - 1]) / hl : 0, sr = i < n - 1 ? (y[i + 1] - y[i]) / hr : 0;
        diag[i] = 2 * (hl + hr);
        if (i < n - 1) off[i] = hr;
        rhs[i] = 6 * (sr - sl);
    }
    gsl_vector_view d = gsl_vector_view_array(diag, (size_t)n), e = gsl_vector_view_array(off, (size_t)n - 1),
                    b = gsl_vector_view_array(rhs, (size_t)n), x = gsl_vector_view_array(m, (size_t)n);
    return gsl_linalg_solve_symm_tridiag(&d.vector, &e.vector, &b.vector, &x.vector) == GSL_SUCCESS ? 0 : -1;
}

int follow_table_init(FollowTable *tb, const double *t, const double *q, int rows, int n, char *err, size_t errlen)
{
    memset(tb, 0, sizeof *tb);
    gsl_set_error_handler_off();
    if (rows < FOLLOW_MIN_ROWS || n < 1 || n > PLANNER_MAX_AXES)
        return snprintf(err, errlen, "a table needs at least %d samples, got %d", FOLLOW_MIN_ROWS, rows), -1;
    tb->n = n, tb->rows = rows;
    size_t r = (size_t)rows;
    tb->t = malloc(r * sizeof *tb->t);
    tb->q = malloc(r * (size_t)n * sizeof *tb->q);
    tb->m = malloc(r * (size_t)n * sizeof *tb->m);
    double *work = malloc(3 * r * sizeof *work);
    if (!tb->t || !tb->q || !tb->m || !work) {
        free(work);
        follow_table_free(tb);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    memcpy(tb->t, t, r * sizeof *t);
    for (int a = 0; a < n; a++) {
        for (int i = 0; i < rows; i++) {
            double v = q[(size_t)i * (size_t)n + (size_t)a];
            if (!isfinite(v)) {
                free(work);
                follow_table_free(tb);
                return snprintf(err, errlen, "sample %d: axis %d is not a finite number", i + 1, a + 1), -1;
            }
            tb->q[(size_t)a * r + (size_t)i] = v;
        }
        if (clamped(tb->t, tb->q + (size_t)a * r, tb->m + (size_t)a * r, rows, work) < 0) {
            free(work);
            follow_table_free(tb);
            return snprintf(err, errlen, "the cubic spline of axis %d cannot be built", a + 1), -1;
        }
    }
    free(work);
    return 0;
}

int follow_table_eval(FollowTable *tb, double tau, FollowSample *s)
{
    const double *t = tb->t;
    long last = tb->rows - 1, i = tb->seg;
    tau = tau < t[0] ? t[0] : tau > t[last] ? t[last] : tau;
    if (i < 0 || i >= last || tau < t[i]) i = 0;
    while (i < last - 1 && tau > t[i + 1]) i++;
    tb->seg = i;
    double h = t[i + 1] - t[i], A = t[i + 1] - tau, B = tau - t[i];
    for (int a = 0; a < tb->n; a++) {
        const double *y = tb->q + (size_t)a * (size_t)tb->rows, *m = tb->m + (size_t)a * (size_t)tb->rows;
        double c0 = y[i] / h - m[i] * h / 6, c1 = y[i + 1] / h - m[i + 1] * h / 6;
        s->q[a] = (m[i] * A * A * A + m[i + 1] * B * B * B) / (6 * h) + c0 * A + c1 * B;
        s->qd[a] = (m[i + 1] * B * B - m[i] * A * A) / (2 * h) - c0 + c1;
        s->qdd[a] = (m[i] * A + m[i + 1] * B) / h;
    }
    return 0;
}

void follow_table_free(FollowTable *tb)
{
    free(tb->t);
    free(tb->q);
    free(tb->m);
    memset(tb, 0, sizeof *tb);
}
