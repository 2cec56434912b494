/* profile.h — one-dimensional time-optimal jerk-limited (double-S, 7-phase) point-to-point profiles from rest
 * to rest, evaluated exactly at any time.
 *
 * A profile moves a coordinate from p0 to p1 starting and ending at rest (v = a = 0) under |v| <= vmax,
 * |a| <= amax, |j| <= jmax. jmax = INFINITY gives the trapezoid (acceleration steps); amax = INFINITY gives a
 * pure jerk-limited profile; vmax = INFINITY means no cruise limit. At most one of amax and jmax may be
 * INFINITY. The jerk pattern is +j, 0, -j, 0 (cruise), -j, 0, +j; any phase may have zero length.
 *
 * Rest-to-rest profiles with symmetric limits are point-symmetric about their midpoint, so the second half is
 * evaluated as the mirror of the first, counted back from the end: profile_at(T) returns p1 exactly (bit for
 * bit), and the end state is exactly (p1, 0, 0).
 *
 * Results follow Ruckig's convention: >= 0 success (a positive value is a note), < 0 an error. */
#ifndef IRL_PROFILE_H
#define IRL_PROFILE_H

enum {
    PROFILE_OK = 0,
    PROFILE_STRETCH_LIMITED = 1, /* profile_plan_duration: the requested time was below the minimum; planned at
                                    the minimum time instead */
    PROFILE_EINVAL = -1,         /* a limit <= 0 or NaN, both amax and jmax infinite, or a NaN position */
};

/* State of the coordinate at one instant. */
typedef struct {
    double p, v, a, j;
} ProfileState;

/* A planned profile. Times in s; magnitudes are along the direction of motion (dir = +1 or -1). */
typedef struct {
    double p0, p1;   /* start and target */
    double h;        /* |p1 - p0| */
    double dir;      /* sign of p1 - p0 (+1 when equal) */
    double jmax;     /* jerk magnitude of the ramps (may be INFINITY: then Tj = 0) */
    double apk;      /* peak acceleration reached (<= amax) */
    double vpk;      /* peak speed reached (<= vmax) */
    double Tj;       /* duration of one jerk ramp */
    double Ta;       /* duration of the acceleration half (ramp up, constant, ramp down) */
    double Tv;       /* cruise duration */
    double T;        /* total duration = 2 Ta + Tv */
    double p_tj, v_tj; /* distance and speed at the end of the first ramp (t = Tj) */
    double p_ta;     /* distance covered by the acceleration half: vpk Ta / 2 */
} Profile;

/* Plan the time-optimal profile from p0 to p1 under the limits. */
int profile_plan(Profile *pr, double p0, double p1, double vmax, double amax, double jmax);

/* Plan a profile from p0 to p1 that takes exactly `duration` (for synchronising axes or a TIME request): the
 * acceleration and jerk limits are kept and the peak speed is lowered until the duration fits. A duration below
 * the minimum gives the minimum-time profile and PROFILE_STRETCH_LIMITED. pr->T is the duration achieved
 * (equal to the request up to rounding). */
int profile_plan_duration(Profile *pr, double p0, double p1, double vmax, double amax, double jmax,
                          double duration);

/* Minimum duration of a rest-to-rest move of length h >= 0 under the limits (no profile built). */
double profile_min_time(double h, double vmax, double amax, double jmax);

/* The state at time t (clamped to [0, T]: before the start it is (p0,0,0,0), after the end (p1,0,0,0)). */
void profile_at(const Profile *pr, double t, ProfileState *s);

/* The first half of the profile (t in [0, T/2]), as magnitudes along the direction of motion (profile_at and
 * profile_pos; inline so the position alone costs only its own branch). */
static inline __attribute__((always_inline)) void profile_half(const Profile *pr, double t, ProfileState *s)
{
    double j = pr->jmax;
    if (t < pr->Tj) {                         /* ramp up: jerk +j */
        s->j = j;
        s->a = j * t;
        s->v = 0.5 * j * t * t;
        s->p = j * t * t * t / 6.0;
    } else if (t < pr->Ta - pr->Tj) {         /* constant acceleration */
        double u = t - pr->Tj;
        s->j = 0;
        s->a = pr->apk;
        s->v = pr->v_tj + pr->apk * u;
        s->p = pr->p_tj + pr->v_tj * u + 0.5 * pr->apk * u * u;
    } else if (t < pr->Ta) {                  /* ramp down: jerk -j, counted back from the end of the half */
        double u = pr->Ta - t;
        s->j = -j;
        s->a = j * u;
        s->v = pr->vpk - 0.5 * j * u * u;
        s->p = pr->p_ta - pr->vpk * u + j * u * u * u / 6.0;
    } else {                                  /* cruise */
        s->j = 0;
        s->a = 0;
        s->v = pr->vpk;
        s->p = pr->p_ta + pr->vpk * (t - pr->Ta);
    }
}

/* The position alone at time t: profile_at's p, to the bit (the same expressions), inline for the cycle's path
 * parameter (the compiler drops the speed, acceleration and jerk). */
static inline __attribute__((always_inline)) double profile_pos(const Profile *pr, double t)
{
    ProfileState m;
    if (!(t > 0)) return pr->p0;              /* also NaN */
    if (t >= pr->T) return pr->p1;
    if (t <= 0.5 * pr->T) {
        profile_half(pr, t, &m);
        return pr->p0 + pr->dir * m.p;
    }
    profile_half(pr, pr->T - t, &m);
    return pr->p1 - pr->dir * m.p;
}

/* The time at which the profile has covered the fraction `frac` in [0, 1] of its distance (the inverse of the
 * position, by bisection; for approximation zones). */
double profile_time_at_fraction(const Profile *pr, double frac);

#endif
