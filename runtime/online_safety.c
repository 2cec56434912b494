/* online_safety.c — limit re-check, following error and the stop ramp of the online mode (online_safety.h). */
#include "online_safety.h"

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

void safety_ramp_begin(SafetyRamp *r, const SafetyAxis *ax, int n, double dt, const double *q, const double *qd)
{
    memset(r, 0, sizeof *r);
    r->ax = ax, r->n = n, r->dt = dt;
    double T = 0;
    for (int i = 0; i < n; i++) {
        r->q[i] = q[i];
        r->v[i] = r->v0[i] = isfinite(qd[i]) ? qd[i] : 0;
        double a = ax[i].amax, Ti = fabs(r->v0[i]) == 0 ? 0 : isfinite(a) && a > 0 ? fabs(r->v0[i]) / a : SAFETY_STOP_TIME;
        if (Ti > T) T = Ti;
    }
    r->steps = T > 0 ? (long)ceil(T / dt - 1e-9) : 0;
    if (T > 0 && r->steps < 1) r->steps = 1;
}

int safety_ramp_next(SafetyRamp *r, double *q, double *qd)
{
    if (r->k >= r->steps) {
        for (int i = 0; i < r->n; i++) q[i] = r->q[i], qd[i] = 0;
        return 0;
    }
    r->k++;
    double f = 1.0 - (double)r->k / (double)r->steps;
    for (int i = 0; i < r->n; i++) {
        double v = r->v0[i] * f, x = r->q[i] + 0.5 * (r->v[i] + v) * r->dt;
        if (x < r->ax[i].min || x > r->ax[i].max) /* held at the limit from here on */
            x = x < r->ax[i].min ? r->ax[i].min : r->ax[i].max, v = 0, r->v0[i] = 0;
        r->q[i] = x, r->v[i] = v;
        q[i] = x, qd[i] = v;
    }
    return 1;
}
