/* chain_lagrange.h — the Lagrange form of a chain's dynamics (metric tensor a_ij(q), its derivatives, Christoffel
 * symbols of the first kind, potential-energy gradient), computed from link Jacobians by a route independent of
 * the chain back-end's Newton-Euler and composite-rigid-body code. A cross-check for tests and for users who
 * want the symbolic-style quantities; not for the real-time cycle (O(n^4), but it does not allocate after
 * create either).
 *
 *   tau_i = sum_j a_ij qdd_j + sum_jk Gamma_{i,jk} qd_j qd_k + dV/dq_i,
 *   Gamma_{i,jk} = 1/2 (d a_ij/dq_k + d a_ik/dq_j - d a_jk/dq_i). */
#ifndef IRL_CHAIN_LAGRANGE_H
#define IRL_CHAIN_LAGRANGE_H

#include <stddef.h>

#include "model.h"

typedef struct ChainLagrange ChainLagrange;

/* Build from a description (same conventions and checks as the chain back-end). NULL on error, message in err. */
ChainLagrange *chain_lagrange_create(const ModelDesc *d, char *err, size_t errlen);
void chain_lagrange_free(ChainLagrange *L);
int chain_lagrange_dof(const ChainLagrange *L);

/* Metric tensor (mass matrix) a_ij(q), n x n row-major. */
int chain_lagrange_metric(ChainLagrange *L, const double *q, double *M);
/* Its analytic partial derivatives: dM[(k * n + i) * n + j] = d a_ij / d q_k. */
int chain_lagrange_metric_deriv(ChainLagrange *L, const double *q, double *dM);
/* Christoffel symbols of the first kind: G[(i * n + j) * n + k] = Gamma_{i,jk}. */
int chain_lagrange_christoffel(ChainLagrange *L, const double *q, double *G);
/* Potential energy V(q) = -sum m g.c and its gradient dV/dq. */
double chain_lagrange_potential(ChainLagrange *L, const double *q);
int chain_lagrange_gravity(ChainLagrange *L, const double *q, double *g);
/* Kinetic energy 1/2 qd^T a(q) qd. */
double chain_lagrange_kinetic(ChainLagrange *L, const double *q, const double *qd);
/* tau from the Lagrange equations above. */
int chain_lagrange_inverse_dynamics(ChainLagrange *L, const double *q, const double *qd, const double *qdd,
                                    double *tau);

#endif
