/* planner_blend.h — internal to the planner (planner.c; it knows segments, path.h, not the planner): the plan-time
 * checks of the sampled stream of Cartesian (LIN/CIRC) segments: a blend in which at least one of the two segments
 * is Cartesian (docs/MOTION.md §3), and a LIN/CIRC alone (§2).
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

#include "model.h"
#include "motion/path.h"

typedef struct PlannerBlendWork PlannerBlendWork; /* the producer's scratch for the checks */

/* Per-axis limits the blended sum must keep (speed, acceleration, jerk; jerk may be INFINITY). */
typedef struct {
    double v, a, j;
} PlannerBlendLimits;

/* Allocate / free the producer's scratch for n axes (about 0.27 MB per axis, once per planner). */
PlannerBlendWork *planner_blend_work_new(int n);
void planner_blend_work_free(PlannerBlendWork *w);

/* The longest overlap o <= omax of successor b with predecessor a (a ladder from omax down in 90 % steps, each a
 * multiple of the check grid) whose blended sum keeps every limit in lim[axis] in the sampled stream of cycle
 * dt. Returns o (0: no overlap fits), or < 0 when the IK of the path table failed (the blend is then refused).
 * m is the producer's model (IK). */
double planner_blend_overlap(PlannerBlendWork *w, Model *m, const PlannerBlendLimits *lim, double dt,
                             const PlannerSegment *a, const PlannerSegment *b, double omax);

/* Forget the lone table (a new segment is being planned in a ring slot that an older one used). */
void planner_blend_lone_reset(PlannerBlendWork *w);

/* The first level of g's lone table (64 intervals of s, walked from g->q0) built ahead of
 * planner_blend_lone_table, which then goes on from it, and its nodes at s = k / PLANNER_PATH_SAMPLES into qs[k]
 * for k = 1 .. PLANNER_PATH_SAMPLES (every second node): the planner's own path samples (PlannerSegment.qs) are
 * these, not solved again. Returns 0, or < 0 when the IK failed at a node (planner_blend_lone_failed_at). m is the
 * producer's model. */
int planner_blend_lone_path(PlannerBlendWork *w, Model *m, const PlannerSegment *g, double (*qs)[PLANNER_MAX_AXES]);

/* The joint path table of a LIN/CIRC g over its whole path, for planner_blend_lone_peaks: 64 intervals of s,
 * doubled (up to 2048) while an axis moves more than 0.05 between two nodes or a derivative's peak still changes
 * by more than 5 % (beyond what could matter for lim at g's planned peak path speed). It depends on g's geometry,
 * so it is built once and kept while g is replanned slower. Returns 0, or < 0 when the IK failed at a node of the
 * path. m is the producer's model. */
int planner_blend_lone_table(PlannerBlendWork *w, Model *m, const PlannerBlendLimits *lim, const PlannerSegment *g);

/* Intervals of the lone table when it is g's and finished, else 0. */
int planner_blend_lone_nodes(const PlannerBlendWork *w, const PlannerSegment *g);

/* The path parameter s in [0, 1] at which planner_blend_lone_table's IK failed last. */
double planner_blend_lone_failed_at(const PlannerBlendWork *w);

/* The peaks of g's joint speed, acceleration and jerk relative to lim (r[0], r[1], r[2]: the largest |value| /
 * limit over every axis; jerk 0 where the limit is INFINITY) over its whole duration, as its sampled stream at
 * cycle dt can show them when it runs alone (from rest to rest; not blended): the chain rule on g's planned path
 * profile and the table of the last planner_blend_lone_table(g). All zero when there is no table of g. */
void planner_blend_lone_peaks(PlannerBlendWork *w, const PlannerBlendLimits *lim, double dt, const PlannerSegment *g,
                              double r[3]);

#endif
