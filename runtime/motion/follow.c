/* follow.c — MOVE FOLLOW's setpoint stream (a ring of per-cycle samples) and its table splines (follow.h). */
#include "motion/follow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

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

int follow_table_init(FollowTable *tb, const double *t, const double *q, int rows, int n, char *err, size_t errlen)
{
    memset(tb, 0, sizeof *tb);
    gsl_set_error_handler_off();
    if (rows < FOLLOW_MIN_ROWS || n < 1 || n > PLANNER_MAX_AXES)
        return snprintf(err, errlen, "a table needs at least %d samples, got %d", FOLLOW_MIN_ROWS, rows), -1;
    tb->n = n, tb->rows = rows;
    tb->t = malloc((size_t)rows * sizeof *tb->t);
    tb->q = malloc((size_t)rows * (size_t)n * sizeof *tb->q);
    tb->acc = gsl_interp_accel_alloc();
    if (!tb->t || !tb->q || !tb->acc) goto oom;
    memcpy(tb->t, t, (size_t)rows * sizeof *t);
    for (int a = 0; a < n; a++) {
        for (int i = 0; i < rows; i++) {
            double v = q[(size_t)i * (size_t)n + (size_t)a];
            if (!isfinite(v)) {
                follow_table_free(tb);
                return snprintf(err, errlen, "sample %d: axis %d is not a finite number", i + 1, a + 1), -1;
            }
            tb->q[(size_t)a * (size_t)rows + (size_t)i] = v;
        }
        if (!(tb->ip[a] = gsl_interp_alloc(gsl_interp_cspline, (size_t)rows))) goto oom;
        if (gsl_interp_init(tb->ip[a], tb->t, tb->q + (size_t)a * (size_t)rows, (size_t)rows) != GSL_SUCCESS) {
            follow_table_free(tb);
            return snprintf(err, errlen, "the cubic spline of axis %d cannot be built", a + 1), -1;
        }
    }
    return 0;
oom:
    follow_table_free(tb);
    return snprintf(err, errlen, "out of memory"), -1;
}

int follow_table_eval(FollowTable *tb, double tau, FollowSample *s)
{
    double lo = tb->t[0], hi = tb->t[tb->rows - 1];
    tau = tau < lo ? lo : tau > hi ? hi : tau;
    for (int a = 0; a < tb->n; a++) {
        const double *y = tb->q + (size_t)a * (size_t)tb->rows;
        if (gsl_interp_eval_e(tb->ip[a], tb->t, y, tau, tb->acc, &s->q[a]) != GSL_SUCCESS ||
            gsl_interp_eval_deriv_e(tb->ip[a], tb->t, y, tau, tb->acc, &s->qd[a]) != GSL_SUCCESS ||
            gsl_interp_eval_deriv2_e(tb->ip[a], tb->t, y, tau, tb->acc, &s->qdd[a]) != GSL_SUCCESS)
            return -1;
    }
    return 0;
}

void follow_table_free(FollowTable *tb)
{
    for (int a = 0; a < PLANNER_MAX_AXES; a++)
        if (tb->ip[a]) gsl_interp_free(tb->ip[a]);
    if (tb->acc) gsl_interp_accel_free(tb->acc);
    free(tb->t);
    free(tb->q);
    memset(tb, 0, sizeof *tb);
}
