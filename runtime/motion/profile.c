/* profile.c — time-optimal jerk-limited rest-to-rest profiles (double S): closed-form planning and exact
 * evaluation. The formulas are derived in docs/MOTION.md §1 (after Biagiotti & Melchiorri, "Trajectory
 * Planning for Automatic Machines and Robots", §3.4, for the rest-to-rest case). */
#include "motion/profile.h"

#include <math.h>

#include "dmath.h"

/* Limits valid: positive (possibly infinite) and not both amax and jmax infinite. */
static int limits_ok(double vmax, double amax, double jmax)
{
    return vmax > 0 && amax > 0 && jmax > 0 && !(isinf(amax) && isinf(jmax));
}

/* Duration of the acceleration half that reaches speed v (v finite, > 0). */
static double accel_time(double v, double a, double j)
{
    if (v * j >= a * a) return a / j + v / a;   /* amax reached: ramp, constant a, ramp */
    return 2.0 * sqrt(v / j);                   /* amax not reached: two ramps, peak a = sqrt(v j) */
}

/* Fill the phase durations and peaks of the fastest rest-to-rest profile over h >= 0 whose speed stays below
 * v (the cruise speed if it is reached), acceleration below a, jerk below j. */
static void shape(Profile *pr, double h, double v, double a, double j)
{
    pr->jmax = j;
    pr->Tj = pr->Ta = pr->Tv = pr->apk = pr->vpk = 0;
    if (h > 0) {
        int cruise = 0;
        if (!isinf(v)) {
            double Ta = accel_time(v, a, j), Tv = h / v - Ta;
            if (Tv >= 0) {
                cruise = 1;
                pr->Ta = Ta;
                pr->Tv = Tv;
                pr->vpk = v;
                if (v * j >= a * a) { pr->Tj = a / j; pr->apk = a; }
                else { pr->Tj = sqrt(v / j); pr->apk = j * pr->Tj; }
            }
        }
        if (!cruise && h >= 2.0 * a * a * a / (j * j)) {
            /* no cruise, amax reached: h = a (Ta - Tj) Ta */
            pr->Tj = a / j;
            pr->Ta = 0.5 * (pr->Tj + sqrt(pr->Tj * pr->Tj + 4.0 * h / a));
            pr->apk = a;
            pr->vpk = a * (pr->Ta - pr->Tj);
        } else if (!cruise) {
            /* no cruise, amax not reached: h = 2 j Tj^3 */
            pr->Tj = dm_cbrt(h / (2.0 * j));
            pr->Ta = 2.0 * pr->Tj;
            pr->apk = j * pr->Tj;
            pr->vpk = j * pr->Tj * pr->Tj;
        }
    }
    pr->T = 2.0 * pr->Ta + pr->Tv;
    if (pr->Tj > 0) {
        pr->p_tj = j * pr->Tj * pr->Tj * pr->Tj / 6.0;
        pr->v_tj = 0.5 * j * pr->Tj * pr->Tj;
    } else {
        pr->p_tj = pr->v_tj = 0;
    }
    pr->p_ta = 0.5 * pr->vpk * pr->Ta;
}

/* Set the endpoints and direction. */
static void endpoints(Profile *pr, double p0, double p1)
{
    pr->p0 = p0;
    pr->p1 = p1;
    pr->h = fabs(p1 - p0);
    pr->dir = p1 >= p0 ? 1.0 : -1.0;
}

int profile_plan(Profile *pr, double p0, double p1, double vmax, double amax, double jmax)
{
    if (!limits_ok(vmax, amax, jmax) || isnan(p0) || isnan(p1)) return PROFILE_EINVAL;
    endpoints(pr, p0, p1);
    shape(pr, pr->h, vmax, amax, jmax);
    return PROFILE_OK;
}

double profile_min_time(double h, double vmax, double amax, double jmax)
{
    Profile pr;
    if (!limits_ok(vmax, amax, jmax)) return NAN;
    shape(&pr, fabs(h), vmax, amax, jmax);
    return pr.T;
}

/* Stretch: the duration h/v + Ta(v) of a profile with cruise speed v falls monotonically in v up to the
 * peak speed of the minimum-time profile, so bisection on v finds the cruise speed that fits `duration`. */
int profile_plan_duration(Profile *pr, double p0, double p1, double vmax, double amax, double jmax,
                          double duration)
{
    int st = profile_plan(pr, p0, p1, vmax, amax, jmax);
    if (st < 0) return st;
    if (!(duration >= 0)) return PROFILE_EINVAL;
    if (duration <= pr->T) return duration < pr->T * (1 - 1e-12) ? PROFILE_STRETCH_LIMITED : PROFILE_OK;
    if (pr->h == 0) {           /* stand still for the duration */
        pr->Tv = pr->T = duration;
        return PROFILE_OK;
    }
    double lo = 0, hi = pr->vpk;
    for (int i = 0; i < 200 && lo < hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (pr->h / mid + accel_time(mid, amax, jmax) > duration) lo = mid;
        else hi = mid;
    }
    /* hi: the slowest speed whose duration does not exceed the request (within one ulp of the root) */
    shape(pr, pr->h, hi, amax, jmax);
    return PROFILE_OK;
}

void profile_at(const Profile *pr, double t, ProfileState *s)
{
    if (!(t > 0)) {                           /* also NaN */
        s->p = pr->p0;
        s->v = s->a = s->j = 0;
        return;
    }
    if (t >= pr->T) {
        s->p = pr->p1;
        s->v = s->a = s->j = 0;
        return;
    }
    ProfileState m;
    if (t <= 0.5 * pr->T) {
        profile_half(pr, t, &m);
        s->p = pr->p0 + pr->dir * m.p;
        s->a = pr->dir * m.a;
    } else {                                  /* mirror: p(T - u) = h - p(u), v even, a odd, jerk even */
        profile_half(pr, pr->T - t, &m);
        s->p = pr->p1 - pr->dir * m.p;
        s->a = -pr->dir * m.a;
    }
    s->v = pr->dir * m.v;
    s->j = pr->dir * m.j;
}

double profile_time_at_fraction(const Profile *pr, double frac)
{
    if (frac <= 0 || pr->h == 0) return 0;
    if (frac >= 1) return pr->T;
    double target = frac * pr->h, lo = 0, hi = pr->T;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        ProfileState s;
        profile_at(pr, mid, &s);
        if (pr->dir * (s.p - pr->p0) < target) lo = mid;
        else hi = mid;
    }
    return hi;
}
