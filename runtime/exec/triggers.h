/* triggers.h — path-triggered I/O: `TRIGGER [dev] AT d (FROM START | BEFORE END) [DELAY t] DO target := value`.
 *
 * A TRIGGER is armed when the program runs it (its value and target evaluated then), bound to the next MOVE of its
 * device when that MOVE's segment is planned (d turned into a time on the segment's own time law: the path length
 * of a LIN, CIRC or SPLINE, the fraction of the leading axis' travel of a PTP or of a joint-space SPLINE's path
 * parameter), and fired by the cycle (triggers_cycle, before the cycle samples its setpoints) in the first cycle
 * at or after the segment's start + that time + DELAY. Nothing stops look-ahead or blending; the segment's start is
 * the planner's (planner_segment_start). See docs/LANGUAGE.md (TRIGGER) and docs/MOTION.md §7. */
#ifndef IRL_TRIGGERS_H
#define IRL_TRIGGERS_H

#include <stddef.h>
#include <stdint.h>

#include "chunk.h"
#include "exec/sample.h"
#include "motion/path.h"

#define MOTION_TRIGGERS 64 /* triggers armed or bound and not yet fired, over all devices */

typedef struct {
    int state;          /* 0 free, 1 armed (waiting for its MOVE), 2 bound to segment `seg` */
    int dev;
    int task;           /* the task that ran it (Motion.task): it binds to that task's next MOVE of dev */
    int pc;             /* the TRIGGER's instruction (its error's location) */
    SampleSrc src;
    int end, fraction;  /* BEFORE END; d is a fraction (PTP, joint SPLINE) rather than a length */
    int io;             /* the target is IO point `target`, else the global slot `target` */
    double d, delay;    /* m or fraction; s */
    int64_t target;
    Value value;
    int seg;            /* the planner segment it is bound to */
    long resets;        /* the planner's planner_reset count then (a reset drops the segment, and the trigger) */
    SampleSrc move;     /* that MOVE */
    PlannerKind kind;   /* its kind */
    double t_local;     /* its switching time from the segment's start (DELAY included), s */
    int have_start;
    double at;          /* absolute switching time once the segment's start is known, s */
} Trigger;

struct Motion;

/* TRIGGER: arm one for device dev from its operands (opcodes.h). 0, or an error code with msg. */
int triggers_arm(struct Motion *m, int dev, int pc, SampleSrc src, int shape, const Value *ops, int nops, char *msg,
                 size_t msglen);
/* After a MOVE of device dev published segment g: bind every armed trigger of dev to it. 0, or an error code with
 * msg (a distance beyond the motion, a length for a PTP, ...; m->err_pc then names the TRIGGER). */
int triggers_bind(struct Motion *m, int dev, const PlannerSegment *g, SampleSrc move, char *msg, size_t msglen);
/* The cycle at time t, before its setpoints: fire every bound trigger whose time has come. 0, or an error code
 * with msg (m->fail_src names the TRIGGER). Never allocates. */
int triggers_cycle(struct Motion *m, double t, char *msg, size_t msglen);
/* Is every slot taken (armed or bound)? */
int triggers_full(const struct Motion *m);
/* Bound triggers not yet fired (the motion is not finished while one waits for its time): all, or device d's. */
int triggers_waiting(const struct Motion *m);
int triggers_waiting_on(const struct Motion *m, int d);
/* At the program's end: a trigger still armed had no MOVE after it. 0, or an error code with msg and
 * m->fail_src set to the TRIGGER. */
int triggers_unbound(struct Motion *m, char *msg, size_t msglen);

#endif
