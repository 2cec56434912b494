/* online_safety.h — the online mode's safety arithmetic, free of threads and I/O so it is tested alone: the
 * limit re-check of every setpoint before it is written, the following-error test, and the controlled stop (a
 * ramp from the last written setpoint down to rest within each axis's acceleration limit).
 *
 * The re-check (safety_check), per axis, against the machine file's limits:
 *   position   min <= q <= max                         (1e-9 relative slack for rounding)
 *   speed      |qd| <= vmax                            (1e-6 relative, as the dry-run's checks)
 *   step       |q - q_prev| <= vmax dt                 (a jump in position between two cycles)
 *   speed jump |qd - qd_prev| <= amax dt               (1 % slack: a guard against jumps, not a fine check)
 *   finite     q and qd are numbers
 * Infinite or absent limits are not checked.
 *
 * The stop ramp: all axes decelerate linearly in speed and reach rest together after T = max_i |v_i| / amax_i
 * (rounded up to whole cycles), so the joint-space direction of the motion is kept; each axis's deceleration is
 * v_i / T <= amax_i. An axis without an acceleration limit stops in SAFETY_STOP_TIME. Positions integrate the
 * speed by the trapezoid rule and are clamped to the position limits. Jerk is not limited during the ramp. */
#ifndef IRL_ONLINE_SAFETY_H
#define IRL_ONLINE_SAFETY_H

#include "drivers/driver.h"

#define SAFETY_STOP_TIME 0.2   /* s: the stop time of an axis without an acceleration limit */

typedef struct {
    double min, max;   /* position limits (-INF/INF: none) */
    double vmax, amax; /* speed and acceleration limits (INF: none) */
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

/* A controlled stop in progress. */
typedef struct {
    const SafetyAxis *ax;
    int n;
    double dt;
    long k, steps;      /* steps taken, steps to rest */
    double q[DRIVER_MAX_AXES], v[DRIVER_MAX_AXES], v0[DRIVER_MAX_AXES];
} SafetyRamp;

/* Start a stop from the last written setpoint (q, qd). */
void safety_ramp_begin(SafetyRamp *r, const SafetyAxis *ax, int n, double dt, const double *q, const double *qd);
/* The ramp's next setpoint into q, qd: 1 while the axes still move, 0 once at rest (q held, qd 0). */
int safety_ramp_next(SafetyRamp *r, double *q, double *qd);

#endif
