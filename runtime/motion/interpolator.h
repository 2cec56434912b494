/* interpolator.h — the consumer side of the planner's queue: every cycle, the setpoint (q, q̇, q̈ and, for
 * LIN/CIRC, the path pose) sampled from the published segments, blends superposed. Implemented in
 * interpolator.c; the queue and the producer side are planner.h's. See docs/MOTION.md §5. */
#ifndef IRL_INTERPOLATOR_H
#define IRL_INTERPOLATOR_H

#include "motion/path.h"

typedef struct Planner Planner;

/* The setpoint of one cycle. */
typedef struct {
    double t;
    int n;
    double q[PLANNER_MAX_AXES], qd[PLANNER_MAX_AXES], qdd[PLANNER_MAX_AXES];
    int has_pose;                  /* pos/quat valid (Cartesian segments; with pose_every_cycle always) */
    double pos[3], quat[4];
    int seg_id;                    /* the segment driving the motion (the newer one in a blend), 0: idle */
    /* where the singularity proximity is checked: 1 while a LIN/CIRC drives the motion or blends with it; 2 in
     * the last cycle of a PTP to an IK-solved target (sing: the measure at that target); 0 otherwise (a joint-
     * interpolated PTP may start at, end at or pass through a singular pose) */
    int sing_due;
    double sing;
    PlannerSrc src;                /* its statement */
} PlannerSetpoint;

/* Consumer state of one segment being executed. */
typedef struct {
    const PlannerSegment *seg;     /* NULL: free */
    double start;                  /* absolute start time */
    /* slot_eval's last window of three points (x - dt, x, x + dt): a cycle one dt later shares two of them */
    double wx;                     /* its x (local time), when wn */
    int wn, w0;                    /* wn: a window is kept; w0: the row of wq holding q(x - dt), then x, x + dt */
    double wq[3][PLANNER_MAX_AXES];
    double wp[3][7];               /* the path pose (x, y, z, qw, qx, qy, qz) slot_q solved each row for; wp[r][0]
                                    * NaN: none (the row came from the segment's ends or the cache) */
    double tc[4];                  /* cache of cycle IK solutions at local times tc */
    double qc[4][PLANNER_MAX_AXES];
    int nc;
    int ci;                        /* the entry written last (slot_q's usual cycle: ci, ci - 1, .. back in time) */
} PlannerSlot;

/* The setpoint at absolute time t (non-decreasing from call to call). Returns PLANNER_OK while moving,
 * PLANNER_IDLE at rest, PLANNER_EIK when the cycle's IK failed (sp->src names the statement; the planner then
 * holds the last good position until planner_reset). */
int planner_sample(Planner *p, double t, PlannerSetpoint *sp);

/* The absolute start time of published segment id, as the cycle at time t (before its planner_sample) will run it:
 * the segment executing or blending in, or a queued one after them (each starts where advance() starts it: blended
 * by its overlap, or after its predecessor's end, resting one cycle next to a Cartesian segment; an idle planner
 * starts its first queued segment at t). Returns 1 with *start, 0 when it cannot be known yet (not published, or
 * the planner holds after a fault), -1 when the segment has finished (or was dropped). Consumer side. */
int planner_segment_start(const Planner *p, double t, int id, double *start);

#endif
