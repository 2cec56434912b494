/* online_safety.h — the online mode's safety arithmetic, free of threads and I/O so it is tested alone: the
 * limit re-check of every setpoint before it is written, the following-error test, and the controlled stop (a
 * ramp from the last written setpoint down to rest within each axis's acceleration and jerk limits).
 *
 * The re-check (safety_check), per axis, against the machine file's limits:
 *   position   min <= q <= max                         (1e-9 relative slack for rounding)
 *   speed      |qd| <= vmax                            (1e-6 relative, as the dry-run's checks)
 *   step       |q - q_prev| <= vmax dt                 (a jump in position between two cycles)
 *   speed jump |qd - qd_prev| <= amax dt               (1 % slack: a guard against jumps, not a fine check)
 *   finite     q and qd are numbers
 * Infinite or absent limits are not checked.
 *
 * The stop ramp starts from the last written setpoint's position, speed and acceleration (q, qd, qdd; qdd is the
 * written speed's difference over the last cycle, the acceleration the drive was given) and brings every axis to
 * rest at the same instant T (rounded up to whole cycles), positions clamped to the position limits:
 *   - an axis with an acceleration and a jerk limit follows a jerk-limited stop (an S-curve: the jerk is +-jmax or
 *     0, in at most three phases: the acceleration ramps from qdd to a deceleration level -d, holds it, ramps back
 *     to 0). Alone it would stop in its time-optimal T_i (d = amax when that is reached); synchronised to a later
 *     T it takes the smaller d whose stop lasts exactly T. |acceleration| <= max(|qdd|, amax), |jerk| <= jmax.
 *     An axis whose acceleration alone brings it to rest (qd = -qdd|qdd|/(2 jmax)) cannot be stretched: it
 *     reaches rest at T_i <= T and holds.
 *   - an axis with an acceleration limit but no jerk limit decelerates linearly in speed (the acceleration steps
 *     to -qd/T <= amax): T_i = |qd| / amax.
 *   - an axis without an acceleration limit counts T_i = SAFETY_STOP_TIME (its jerk-limited stop when it has a
 *     jerk limit, else linear).
 * T = max T_i. The axes arrive together, but the joint-space path is kept only where the axes' stops have the
 * same shape (axes without a jerk limit stop linearly and keep it among themselves, as before). Positions are the
 * exact integral of the speed profile. An axis that would pass a position limit is held at the limit from there on
 * (a hard stop: it is beyond saving). An axis whose speed and acceleration have the same sign gains qdd^2/(2 jmax)
 * more while its acceleration ramps down, the least any stop within the jerk limit can add; so that this never
 * passes vmax, the start acceleration is first lowered to sqrt(2 jmax (vmax - |qd|)) when it is larger (the
 * backward difference qdd overstates a falling acceleration by up to jmax dt; the step is a jerk within that).
 * Nothing is allocated: the ramp is planned once at its start (closed form, no iteration), then evaluated. The
 * rest-to-rest profiles of profile.h do not start from a moving state, hence this stop's own closed form. */
#ifndef IRL_ONLINE_SAFETY_H
#define IRL_ONLINE_SAFETY_H

#include "online/drivers/driver.h"

#define SAFETY_STOP_TIME 0.2   /* s: the stop time of an axis without an acceleration limit */

typedef struct {
    double min, max;   /* position limits (-INF/INF: none) */
    double vmax, amax; /* speed and acceleration limits (INF: none) */
    double jmax;       /* jerk limit (INF or 0: none; only the stop ramp uses it) */
    double ferr;       /* following-error limit (INF: none) */
} SafetyAxis;

typedef enum {
    SAFETY_OK = 0,
    SAFETY_POSITION,
    SAFETY_SPEED,
    SAFETY_STEP,
    SAFETY_SPEED_JUMP,
    SAFETY_NONFINITE,
    SAFETY_FOLLOWING,
} SafetyKind;

typedef struct {
    SafetyKind kind;
    int axis;           /* 0-based */
    double value, limit;
} SafetyViolation;

/* Re-check a setpoint (q, qd) that follows the last written one (q_prev, qd_prev). SAFETY_OK, or the first
 * violation (v filled). */
SafetyKind safety_check(const SafetyAxis *ax, int n, double dt, const double *q, const double *qd,
                        const double *q_prev, const double *qd_prev, SafetyViolation *v);
/* Following error: the actual positions act against the commanded cmd. SAFETY_OK or SAFETY_FOLLOWING (the
 * axis with the largest error over its limit in v). */
SafetyKind safety_following(const SafetyAxis *ax, int n, const double *cmd, const double *act, SafetyViolation *v);
/* "position", "speed", ... */
const char *safety_kind_name(SafetyKind k);

/* One axis's stop: up to three phases of constant jerk from the start state, in coordinates mirrored by dir so
 * that the deceleration level is -d <= 0; the boundary states are computed once at the start. */
typedef struct {
    double q0, dir;             /* start position; +1 or -1 */
    double tb[4];               /* phase boundaries: 0, t1, t1 + t2, T_i (the axis is at rest from T_i) */
    double jerk[3];             /* per phase (mirrored) */
    double p[4], v[4], a[4];    /* state at each boundary (mirrored; p relative to q0) */
    int held;                   /* clamped at a position limit: holds q */
} SafetyStopAxis;

/* A controlled stop in progress. */
typedef struct {
    const SafetyAxis *ax;
    int n;
    double dt;
    long k, steps;      /* steps taken, steps to rest */
    double q[DRIVER_MAX_AXES];
    SafetyStopAxis st[DRIVER_MAX_AXES];
} SafetyRamp;

/* Start a stop from the last written setpoint (q, qd) and acceleration qdd (NULL: zero). */
void safety_ramp_begin(SafetyRamp *r, const SafetyAxis *ax, int n, double dt, const double *q, const double *qd,
                       const double *qdd);
/* The ramp's next setpoint into q, qd: 1 while the axes still move, 0 once at rest (q held, qd 0). */
int safety_ramp_next(SafetyRamp *r, double *q, double *qd);

/* The time-optimal duration of a jerk-limited stop of one axis from speed v0 and acceleration a0 to rest under
 * |a| <= amax (INF: none) and |j| <= jmax (finite, > 0). */
double safety_stop_min_time(double v0, double a0, double amax, double jmax);

#endif
