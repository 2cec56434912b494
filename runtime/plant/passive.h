/* passive.h — the unpowered (passive) joints of a device in the open-loop dry-run: their motion integrated
 * from the model's semi-inverse problem along the planned motion of the powered joints.
 *
 * The planner plans every axis as if it were driven, so the setpoint column of a joint with powered = FALSE is
 * only a placeholder. Nothing drives such a joint: with its torque zero, its acceleration follows from the
 * powered joints' motion (model_semi_inverse: for powered joints q̈ given -> τ, for unpowered ones τ = 0 given
 * -> q̈). This module integrates that q̈ into q and q̇ of the passive joints, from the device's start state (at
 * rest), and overwrites the passive entries of each cycle's setpoint with them.
 *
 * Between two cycles the powered joints follow the quintic that matches their sampled q, q̇, q̈ at both ends
 * (exact for the planner's polynomial segments within a cycle); the passive state (q, q̇) is integrated over
 * the cycle by GSL's rk8pd stepper with a fixed number of fixed steps (none longer than PASSIVE_MAX_STEP), no
 * error control: the result depends on the setpoint stream only and is byte-deterministic.
 *
 * Use (runtime/exec/exec_offline.c, open loop only; under --closed-loop the plant integrates every joint itself):
 *   if (passive_count(m) > 0) p = passive_new(m, start, cycle, err, errlen);   once, before cycle 0
 *   every cycle, after the planner's setpoint:  passive_step(p, q, qd, qdd)     (the first call is cycle 0)
 *   at the end: passive_free(p)
 * A device with no unpowered joint needs no PassiveJoints at all. Nothing allocates after passive_new. */
#ifndef IRL_PASSIVE_H
#define IRL_PASSIVE_H

#include <stddef.h>

#include "model.h"

#define PASSIVE_MAX_STEP 1e-3 /* s: the longest integrator step; a cycle of dt takes ceil(dt / 1 ms) steps */

typedef struct PassiveJoints PassiveJoints;

/* The number of unpowered joints of m (ModelJoint.powered == 0). */
int passive_count(const Model *m);

/* The integrator for model m (borrowed; must outlive it), starting at rest at q0 (all m->dof joints; the passive
 * entries are the start), one call of passive_step per cycle of dt seconds. NULL with a message in err when m
 * has no unpowered joint, has no semi_inverse operation, dt is not > 0, or memory runs out. */
PassiveJoints *passive_new(Model *m, const double *q0, double dt, char *err, size_t errlen);

/* This cycle's setpoint q, qd, qdd (all m->dof joints): the powered entries are read, the passive entries
 * overwritten with the integrated motion. The first call sets the start (q0, at rest) and its q̈; every later
 * call integrates over one cycle from the previous call's setpoint. Returns 0, or a MODEL_E* code (< 0) when the
 * model's semi_inverse fails or the state stops being finite (the passive entries are then NAN and every later
 * call fails too). */
int passive_step(PassiveJoints *p, double *q, double *qd, double *qdd);

/* Free p (NULL is fine). */
void passive_free(PassiveJoints *p);

#endif
