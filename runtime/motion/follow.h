/* follow.h — MOVE FOLLOW's setpoint stream: joint samples (q, q̇, q̈), one per cycle, that the VM's door
 * produces from a time-stamped table (a clamped cubic spline per axis) or from a function of time, and the
 * cycle consumes at its own time stamps (docs/MOTION.md, "FOLLOW").
 *
 * Producer (the door): follow_push while !follow_full; sample k of a FOLLOW is the setpoint of the cycle at
 * t0 + k·dt, where t0 is when the FOLLOW started (the device standing at its sample 0). Consumer (the cycle):
 * follow_take at each cycle time; it never allocates, prints or blocks. One thread (the VM's): plain indices. */
#ifndef IRL_FOLLOW_H
#define IRL_FOLLOW_H

#include <stddef.h>

#include "motion/path.h"

#define FOLLOW_QUEUE 64 /* samples the door may run ahead of the cycle */

typedef struct {
    double t;                        /* absolute cycle time, s */
    double q[PLANNER_MAX_AXES], qd[PLANNER_MAX_AXES], qdd[PLANNER_MAX_AXES];
} FollowSample;

typedef struct {
    FollowSample *ring;              /* FOLLOW_QUEUE samples */
    long head, tail;                 /* pushed / taken */
    int n;                           /* axes */
    PlannerSrc src;                  /* the FOLLOW statement the queued samples belong to */
    int fresh;                       /* the next sample taken is a FOLLOW's first after its sample 0 */
    FollowSample start;              /* that sample 0: the setpoint at t0 (position, and the speed it starts with) */
    int open;                        /* a FOLLOW has begun and not finished (follow_begin .. follow_end) */
    FollowSample last;               /* the last sample taken */
} FollowStream;

/* 0, or -1 when out of memory. */
int follow_init(FollowStream *f, int n);
void follow_free(FollowStream *f);
/* A new FOLLOW from statement src, standing at its sample 0 (s0) now. */
void follow_begin(FollowStream *f, PlannerSrc src, const FollowSample *s0);
/* The FOLLOW has ended (or was abandoned by an error): the device stands at last.q once the queue is empty. */
void follow_end(FollowStream *f);
int follow_full(const FollowStream *f);
long follow_pending(const FollowStream *f);
void follow_push(FollowStream *f, const FollowSample *s);
/* The sample for the cycle at time t (cycle dt): 0 none (the planner has the device), 1 *out filled, 2 *out filled
 * and it is the first of its FOLLOW (*start: the FOLLOW's sample 0, the setpoint just before). A FOLLOW still open
 * with nothing queued (its producer stopped by an error) holds its last position at rest. */
int follow_take(FollowStream *f, double t, double dt, FollowSample *out, FollowSample *start);

/* A table (t_i, q_i), rows >= FOLLOW_MIN_ROWS, strictly increasing t, as one clamped cubic spline per axis: C²,
 * through every sample, with zero speed at the first and the last (the device starts at rest where it stands and
 * is left at rest). Its second derivatives at the samples come from GSL's symmetric tridiagonal solver. */
#define FOLLOW_MIN_ROWS 3
typedef struct {
    int n, rows;
    double *t, *q, *m;               /* owned: t[rows], q and m (second derivatives) [axis * rows + row] */
    long seg;                        /* the interval the last evaluation fell in (the cycle walks forward) */
} FollowTable;

/* The first row whose time is not finite or not after the previous one's (0: t[0] not finite), or -1: none. */
int follow_table_bad_row(const double *t, int rows);
/* Build the splines of q (row-major: q[row * n + axis]). 0, or -1 with a message in err. */
int follow_table_init(FollowTable *tb, const double *t, const double *q, int rows, int n, char *err, size_t errlen);
/* The sample at table time tau (clamped to the table), its time field left as is. 0, or -1. */
int follow_table_eval(FollowTable *tb, double tau, FollowSample *s);
void follow_table_free(FollowTable *tb);

#endif
