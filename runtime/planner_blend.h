/* planner_blend.h — internal to the planner (planner.c): the plan-time check of a blend in which at least one of
 * the two segments is Cartesian (LIN/CIRC). See docs/MOTION.md §3.
 *
 * The check bounds what the executor's stream will show, not only the plan: a Cartesian segment's joint speed,
 * acceleration and jerk are central differences of its cycle IK solutions (their jerk, the difference of two
 * such accelerations, is a weighted mean of the continuous jerk over [t - 2h, t + h]), a PTP segment's are its
 * analytic speed and acceleration (jerk: the mean over [t - h, t]). So each side's continuous value is taken at
 * its worst over that window (an envelope) before the two sides are added. The continuous joint speed,
 * acceleration and jerk of a Cartesian segment come from the chain rule on its time law s(t) (exact) and the
 * derivatives of its joint path q(s), from a table of IK solutions over the part of the path the overlap can
 * reach (64 intervals, at least 2 ms apart). */
#ifndef IRL_PLANNER_BLEND_H
#define IRL_PLANNER_BLEND_H

#include "planner.h"

/* Per-axis limits the blended sum must keep (speed, acceleration, jerk; jerk may be INFINITY). */
typedef struct {
    double v, a, j;
} PlannerBlendLimits;

/* Allocate / free the producer's scratch for n axes (about 0.2 MB per axis, once per planner). */
PlannerBlendWork *planner_blend_work_new(int n);
void planner_blend_work_free(PlannerBlendWork *w);

/* The longest overlap o <= omax of successor b with predecessor a (a ladder from omax down in 90 % steps, each a
 * multiple of the check grid) whose blended sum keeps every limit in lim[axis] in the sampled stream of cycle
 * dt. Returns o (0: no overlap fits), or < 0 when the IK of the path table failed (the blend is then refused).
 * m is the producer's model (IK). */
double planner_blend_overlap(PlannerBlendWork *w, Model *m, const PlannerBlendLimits *lim, double dt,
                             const PlannerSegment *a, const PlannerSegment *b, double omax);

#endif
