/* online_safety.c — limit re-check, following error and the stop ramp of the online mode (online_safety.h). */
#include "online/online_safety.h"

#include <math.h>
#include <string.h>

#define REL_TOL 1e-6
#define JUMP_TOL 1e-2

static SafetyKind violation(SafetyViolation *v, SafetyKind k, int axis, double value, double limit)
{
    v->kind = k, v->axis = axis, v->value = value, v->limit = limit;
    return k;
}

SafetyKind safety_check(const SafetyAxis *ax, int n, double dt, const double *q, const double *qd,
                        const double *q_prev, const double *qd_prev, SafetyViolation *v)
{
    for (int i = 0; i < n; i++) {
        const SafetyAxis *a = &ax[i];
        if (!isfinite(q[i]) || !isfinite(qd[i])) return violation(v, SAFETY_NONFINITE, i, isfinite(q[i]) ? qd[i] : q[i], 0);
        if (q[i] < a->min - 1e-9 * (1 + fabs(a->min))) return violation(v, SAFETY_POSITION, i, q[i], a->min);
        if (q[i] > a->max + 1e-9 * (1 + fabs(a->max))) return violation(v, SAFETY_POSITION, i, q[i], a->max);
        if (fabs(qd[i]) > a->vmax * (1 + REL_TOL)) return violation(v, SAFETY_SPEED, i, qd[i], a->vmax);
        double step = fabs(q[i] - q_prev[i]);
        if (step > a->vmax * dt * (1 + REL_TOL) + 1e-12) return violation(v, SAFETY_STEP, i, step / dt, a->vmax);
        double dv = fabs(qd[i] - qd_prev[i]);
        if (dv > a->amax * dt * (1 + JUMP_TOL) + 1e-12) return violation(v, SAFETY_SPEED_JUMP, i, dv / dt, a->amax);
    }
    return SAFETY_OK;
}

SafetyKind safety_following(const SafetyAxis *ax, int n, const double *cmd, const double *act, SafetyViolation *v)
{
    SafetyKind k = SAFETY_OK;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double e = act[i] - cmd[i], over = fabs(e) / ax[i].ferr;
        if (!(fabs(e) <= ax[i].ferr) && (k == SAFETY_OK || over > worst || isnan(e))) {
            k = violation(v, SAFETY_FOLLOWING, i, e, ax[i].ferr);
            worst = isnan(e) ? INFINITY : over;
        }
    }
    return k;
}

const char *safety_kind_name(SafetyKind k)
{
    switch (k) {
    case SAFETY_OK: return "ok";
    case SAFETY_POSITION: return "position";
    case SAFETY_SPEED: return "speed";
    case SAFETY_STEP: return "position step";
    case SAFETY_SPEED_JUMP: return "speed jump";
    case SAFETY_NONFINITE: return "non-finite setpoint";
    case SAFETY_FOLLOWING: return "following error";
    }
    return "?";
}

/* ---- The stop ramp. ------------------------------------------------------------------------------------- */

/* The shape of one axis's jerk-limited stop from (v0, a0), in coordinates mirrored so that the speed left once
 * the acceleration is brought straight to zero (v0 + a0|a0|/2j) is >= 0: there the stop decelerates at a level
 * -d. Two families of d: d >= -A (the first ramp goes down to -d; duration A/j + d/j + K/d, falling in d up to
 * d = sqrt(j K)) and, when A < 0, d < -A (the first ramp eases off to -d; duration -A/j + K2/d). */
typedef struct {
    double j, dir, V, A;   /* jerk limit; mirror sign; mirrored start speed and acceleration */
    double K, K2;          /* V + A^2/2j, V - A^2/2j */
    double dstar;          /* the deceleration level of the fastest stop: min(sqrt(j K), amax) */
    double tmin;           /* its duration */
    int brake_only;        /* bringing the acceleration to zero brings the axis to rest: nothing to stretch */
} StopShape;

static void stop_shape(StopShape *g, double v0, double a0, double amax, double j)
{
    double vb = v0 + a0 * fabs(a0) / (2 * j);
    g->j = j;
    g->dir = vb >= 0 ? 1 : -1;
    g->V = g->dir * v0, g->A = g->dir * a0;
    g->K = g->V + g->A * g->A / (2 * j);
    g->K2 = g->V - g->A * g->A / (2 * j);
    double left = g->A >= 0 ? g->K : g->K2; /* = |vb| */
    g->brake_only = !(left > 1e-12 * (fabs(g->V) + g->A * g->A / (2 * j)));
    g->dstar = 0;
    if (g->brake_only) {
        g->tmin = fabs(g->A) / j;
        return;
    }
    double dpk = sqrt(j * g->K);
    g->dstar = dpk < amax ? dpk : amax;
    g->tmin = g->dstar >= -g->A ? (g->A + g->dstar) / j + g->K / g->dstar : -g->A / j + g->K2 / g->dstar;
}

double safety_stop_min_time(double v0, double a0, double amax, double jmax)
{
    StopShape g;
    stop_shape(&g, v0, a0, amax, jmax);
    return g.tmin;
}

/* The boundary states of a stop whose phases (tb, jerk) and start state (v[0], a[0]) are set. */
static void stop_integrate(SafetyStopAxis *s)
{
    s->p[0] = 0;
    for (int k = 0; k < 3; k++) {
        double u = s->tb[k + 1] - s->tb[k], J = s->jerk[k];
        s->p[k + 1] = s->p[k] + s->v[k] * u + s->a[k] * u * u / 2 + J * u * u * u / 6;
        s->v[k + 1] = s->v[k] + s->a[k] * u + J * u * u / 2;
        s->a[k + 1] = s->a[k] + J * u;
    }
}

/* Plan an axis's jerk-limited stop to last T (or its minimum, if longer; a brake-only stop lasts its minimum). */
static void stop_plan_scurve(SafetyStopAxis *s, double v0, double a0, double amax, double j, double T)
{
    StopShape g;
    stop_shape(&g, v0, a0, amax, j);
    s->dir = g.dir;
    s->v[0] = g.V, s->a[0] = g.A;
    double t1, t2 = 0, t3 = 0, J1;
    if (g.brake_only) {
        t1 = fabs(g.A) / j;
        J1 = g.A > 0 ? -j : j;
    } else {
        if (T < g.tmin) T = g.tmin;
        double d;
        if (g.A >= 0 || (g.dstar >= -g.A && T <= -g.K / g.A)) { /* d >= -A: d^2 - (jT - A) d + jK = 0, smaller root */
            double b = j * T - g.A, disc = b * b - 4 * j * g.K;
            d = 2 * j * g.K / (b + sqrt(disc > 0 ? disc : 0));
        } else { /* d < -A */
            d = g.K2 / (T + g.A / j);
        }
        if (d > g.dstar) d = g.dstar;
        J1 = g.A > -d ? -j : j;
        t1 = fabs(g.A + d) / j;
        t3 = d / j;
        t2 = T - t1 - t3;
        if (t2 < 0) t2 = 0;
    }
    s->tb[0] = 0, s->tb[1] = t1, s->tb[2] = t1 + t2, s->tb[3] = t1 + t2 + t3;
    s->jerk[0] = J1, s->jerk[1] = 0, s->jerk[2] = j;
    stop_integrate(s);
}

/* Plan an axis's linear stop (no jerk limit): the speed falls from v0 to 0 in T, the acceleration steps. */
static void stop_plan_linear(SafetyStopAxis *s, double v0, double T)
{
    s->dir = 1;
    s->v[0] = v0, s->a[0] = T > 0 ? -v0 / T : 0;
    s->tb[0] = s->tb[1] = 0, s->tb[2] = s->tb[3] = T;
    s->jerk[0] = s->jerk[1] = s->jerk[2] = 0;
    stop_integrate(s);
}

/* The stop's own duration for an axis (before synchronisation). */
static double stop_time(const SafetyAxis *a, double v0, double a0)
{
    int has_a = isfinite(a->amax) && a->amax > 0, has_j = isfinite(a->jmax) && a->jmax > 0;
    if (has_j) {
        if (has_a) return safety_stop_min_time(v0, a0, a->amax, a->jmax);
        if (v0 == 0 && a0 == 0) return 0;
        double t = safety_stop_min_time(v0, a0, INFINITY, a->jmax);
        return t > SAFETY_STOP_TIME ? t : SAFETY_STOP_TIME;
    }
    if (v0 == 0) return 0;
    return has_a ? fabs(v0) / a->amax : SAFETY_STOP_TIME;
}

/* The acceleration the stop starts from: a, but lowered so that the speed it adds while the jerk limit brings it to
 * zero keeps |v| + a^2/2j within vmax (a backward difference overstates a falling acceleration by up to jmax dt). */
static double start_acceleration(const SafetyAxis *ax, double v, double a)
{
    if (!(isfinite(ax->jmax) && ax->jmax > 0 && isfinite(ax->vmax)) || v * a <= 0) return a;
    double room = ax->vmax - fabs(v), amax_here = room > 0 ? sqrt(2 * ax->jmax * room) : 0;
    return fabs(a) <= amax_here ? a : copysign(amax_here, a);
}

void safety_ramp_begin(SafetyRamp *r, const SafetyAxis *ax, int n, double dt, const double *q, const double *qd,
                       const double *qdd)
{
    memset(r, 0, sizeof *r);
    r->ax = ax, r->n = n, r->dt = dt;
    double T = 0, v0[DRIVER_MAX_AXES], a0[DRIVER_MAX_AXES];
    for (int i = 0; i < n; i++) {
        r->q[i] = r->st[i].q0 = q[i];
        v0[i] = isfinite(qd[i]) ? qd[i] : 0;
        a0[i] = start_acceleration(&ax[i], v0[i], qdd && isfinite(qdd[i]) ? qdd[i] : 0);
        double Ti = stop_time(&ax[i], v0[i], a0[i]);
        if (Ti > T) T = Ti;
    }
    r->steps = T > 0 ? (long)ceil(T / dt - 1e-9) : 0;
    if (T > 0 && r->steps < 1) r->steps = 1;
    T = (double)r->steps * dt;
    for (int i = 0; i < n; i++) {
        const SafetyAxis *a = &ax[i];
        if (isfinite(a->jmax) && a->jmax > 0) stop_plan_scurve(&r->st[i], v0[i], a0[i], a->amax, a->jmax, T);
        else stop_plan_linear(&r->st[i], v0[i], T);
    }
}

/* An axis's stop at time t: position into *q, speed into *v. */
static void stop_at(const SafetyStopAxis *s, double t, double *q, double *v)
{
    if (t >= s->tb[3]) {
        *q = s->q0 + s->dir * s->p[3], *v = 0;
        return;
    }
    int k = t >= s->tb[2] ? 2 : t >= s->tb[1] ? 1 : 0;
    double u = t - s->tb[k], J = s->jerk[k];
    *q = s->q0 + s->dir * (s->p[k] + s->v[k] * u + s->a[k] * u * u / 2 + J * u * u * u / 6);
    *v = s->dir * (s->v[k] + s->a[k] * u + J * u * u / 2);
}

int safety_ramp_next(SafetyRamp *r, double *q, double *qd)
{
    if (r->k >= r->steps) {
        for (int i = 0; i < r->n; i++) q[i] = r->q[i], qd[i] = 0;
        return 0;
    }
    r->k++;
    double t = r->k == r->steps ? INFINITY : (double)r->k * r->dt; /* the last step is the end state exactly */
    for (int i = 0; i < r->n; i++) {
        SafetyStopAxis *s = &r->st[i];
        double x = r->q[i], v = 0;
        if (!s->held) stop_at(s, t, &x, &v);
        if (x < r->ax[i].min || x > r->ax[i].max) /* held at the limit from here on */
            x = x < r->ax[i].min ? r->ax[i].min : r->ax[i].max, v = 0, s->held = 1;
        r->q[i] = x;
        q[i] = x, qd[i] = v;
    }
    return 1;
}
