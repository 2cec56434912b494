/* chain.h — the `chain` back-end (any open chain or tree of revolute/prismatic joints) and the few calls it
 * offers beyond the ModelType contract: the pose of every link at once and the Jacobian of any point.
 *
 * Conventions (URDF): joint i's frame sits at origin_xyz/origin_R in the frame of link parent[i] (the base frame
 * for parent -1); link i's frame is that joint frame rotated by q[i] about, or translated by q[i] along, the unit
 * axis. Joints must be listed parents first (parent[i] < i). Link index i = the link moved by joint i. The tool
 * point is tool_xyz/tool_R in the frame of link tool_link (-1: the last joint's link).
 *
 * The state is the opaque `void *` of the ModelType; these calls take the state a Model holds (m->state) and,
 * like the contract's operations, allocate nothing. */
#ifndef IRL_CHAIN_H
#define IRL_CHAIN_H

#include "model.h"

extern const ModelType model_chain;

/* Poses of all links in the base frame: pos n x 3, R n x 9 (row-major), n = dof. */
int chain_fk_all(void *s, const double *q, double *pos, double *R);
/* Geometric Jacobian (6 x dof, rows vx vy vz wx wy wz, base frame) of the point `point` (link frame) fixed to
 * link `link` (-1: the tool point, `point` ignored). Columns of joints that do not move the link are zero. */
int chain_point_jacobian(void *s, const double *q, int link, const double point[3], double *J);

/* Counts of the IK's paths since create (or the last reset): calls; answered by the Newton tracking path (fast),
 * of those without a Jacobian of their own: by chord steps with a factorisation kept from an earlier call, or the
 * seed as it was (chord); Jacobians the Newton path factored (factored); sent to the damped least squares because the seed's error was above 1e-2 (far), the
 * Jacobian near-singular, a step above 0.05 per joint, a joint limit in the way, or a step that did not contract. */
typedef struct {
    long calls, fast, chord, factored;
    long fallback_far, fallback_singular, fallback_step, fallback_limit, fallback_contract;
} ChainIkStats;
/* Copy the counts into *st (if st is not NULL); reset != 0 zeroes them. */
void chain_ik_stats(void *s, ChainIkStats *st, int reset);
/* For tests: the tool's pose error at q against pos and the unit quaternion quat (NULL: position only) into e[6] and
 * the residual |e[0..3)| + |e[3..6)| into *res, by the reference FK (chain_fk_world_test's path 0) and the general
 * error (path 0) or by the IK tracking path's
 * own (chain_ik_pose_error: path 1 its SSE2 build, 2 its AVX build). MODEL_EINVAL for path 2 where the CPU lacks
 * AVX2. Leaves the FK workspace changed. */
int chain_ik_pose_error_test(void *s, int path, const double *q, const double pos[3], const double quat[4],
                             double e[6], double *res);
/* For tests: the poses of all links at q (as chain_fk_all) by the FK before its DH-like joints took column vectors
 * (path 0, the reference), or by the present one (path 1 its SSE2 build, 2 its AVX build; MODEL_EINVAL where the CPU
 * lacks AVX2). Leaves the FK workspace changed. */
int chain_fk_world_test(void *s, int path, const double *q, double *pos, double *R);
/* For tests: sse != 0 makes the IK's tracking path take its SSE2 form (each point's cos/sin and pose error by
 * chain_trig and chain_ik_pose_error calls) even where the CPU has AVX2 and it would take the AVX form (the same
 * inlined); 0 restores the default. */
void chain_ik_track_form(void *s, int sse);

/* Counts of singularity_within's (and singularity's) paths since create (or the last reset): [0] calls, [1] proved
 * in the band by the Weyl bound, [2] by the Temple bound, [3] decomposed, [4] the last decomposed matrix again (at
 * rest), [5] proved by the Lipschitz bound, [6] by the first-order bound (neither needs kinematics), [7] of [2],
 * those proved after a sweep refreshed a stale V. Copied into counts (if not NULL); reset != 0 zeroes them. */
void chain_sing_stats(void *s, long counts[8], int reset);
/* Counts of singularity_defer's deferred cycles [0] and singularity_settle's decompositions [1] since create. */
void chain_sing_defer_stats(void *s, long counts[2]);
/* For tests: the first-order bound e >= |A(q) - A(qw)|_F of singularity_within (A the normalised Jacobian) with its
 * K made at qk. Leaves the instance without a skip reference. MODEL_EINVAL when the chain has no such bound. */
int chain_sing_first_order_bound(void *s, const double *qk, const double *qw, const double *q, double *e);


#endif
