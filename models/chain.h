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

/* Every IK solution (the ik_all operation) by a method of choice: 1 the closed form of a 6R arm with a spherical
 * wrist (MODEL_ENOTSUP for another geometry), 2 the multi-start search with nseeds seeds besides q_ref, 0 the
 * closed form when the geometry allows it, else the search. */
int chain_ik_all_method(void *s, const double pos[3], const double quat[4], const double *q_ref, int method,
                        int nseeds, ModelIkSolution *sol, int max, ModelIkWhy *why);
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
/* Counts of the singularity operation's paths since create (or the last reset): [0] calls, [1] proved in the band
 * by the Weyl bound, [2] by the Temple bound, [3] decomposed, [4] the last decomposed matrix again (at rest), [5]
 * proved by the Lipschitz bound, [6] by the first-order bound (neither needs kinematics). Copied into counts (if not
 * NULL); reset != 0 zeroes them. */
void chain_sing_stats(void *s, long counts[7], int reset);
/* The first-order bound e >= |A(q) - A(qw)|_F of the singularity skip (A the normalised Jacobian) with its
 * K made at qk. Leaves the instance without a skip reference. MODEL_EINVAL when the chain has no such bound. */
int chain_sing_first_order_bound(void *s, const double *qk, const double *qw, const double *q, double *e);

#endif
