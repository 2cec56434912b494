/* stewart.h — the 6-DoF Stewart-Gough platform of seed 003 (Plitea et al., a helicopter flight simulator), as
 * corrected by ERRATA S1-S6: pure kinematics of the pose coordinates, and the leg-space operations of a live
 * back-end state (leg lengths, leg Jacobian, forward kinematics from leg lengths by Newton-Raphson, leg forces).
 * The back-end itself is `model_stewart` (model.h). See docs/MODELS.md §10.
 *
 * Coordinates. The machine's axes are the platform pose q = (x, y, z, psi, theta, phi): the position of the
 * platform frame's origin o in the base frame, and roll psi about X, pitch theta about Y, yaw phi about Z, all
 * about the fixed axes, applied in that order: R = Rz(phi) Ry(theta) Rx(psi) (the paper's eqs. 13 and 16, ERRATA
 * S4/S6). The base frame has Z up. The six legs are prismatic actuators between base anchor b_i (base frame) and
 * platform anchor a_i (platform frame): l_i = p + R a_i - b_i, leg length L_i = |l_i|, unit u_i = l_i / L_i.
 * A leg force f_i > 0 pushes the platform away from the base (the actuator extends against the load). */
#ifndef IRL_STEWART_H
#define IRL_STEWART_H

#include "model.h"

/* The back-end (registered by models/model.c under "stewart"). */
extern const ModelType model_stewart;

#define STEWART_DOF 6
#define STEWART_LEGS 6

/* ---- pure kinematics of the pose coordinates (stewart_kin.c) ---- */

/* R = Rz(phi) Ry(theta) Rx(psi) of eta = (psi, theta, phi). */
void stewart_rotation(const double eta[3], double R[9]);
/* Omega(eta): omega = Omega etadot (base frame); columns Rz Ry ex, Rz ey, ez (eq. 13, det = cos theta). */
void stewart_omega_matrix(const double eta[3], double Om[9]);
/* Omega-dot times etadot: omegadot = Omega etadd + stewart_omega_bias(eta, etad). */
void stewart_omega_bias(const double eta[3], const double etad[3], double wb[3]);
/* Roll, pitch, yaw of R on the branch theta in [-pi/2, pi/2]. With a seed (may be NULL), psi and phi are moved by
 * multiples of 2 pi next to the seed's. When cos theta = 0 (gimbal lock) only phi -+ psi is defined: phi is then
 * the seed's (or 0) and the function returns 1; otherwise 0. */
int stewart_euler(const double R[9], const double *seed, double eta[3]);
/* The paper's anchor layout (eqs. 5-10, ERRATA S1): point i (0-based) = Rz(ang[i]) (r, sign_i e, d) with
 * sign_i = -1, +1, -1, ... for the base (e_Bi = (-1)^i e_B, i 1-based) and +1, -1, ... for the platform
 * (e_pi = (-1)^(i+1) e_p). `platform` selects the sign pattern. pts: 6 x 3. */
void stewart_paper_anchors(double r, double e, double d, const double ang[6], int platform, double pts[18]);

/* ---- leg space of a live state (s from model_stewart.create) ---- */

/* Leg lengths L (6) and, when u is not NULL, the unit leg vectors u (6 x 3) at pose q. */
int stewart_legs(void *s, const double *q, double L[6], double *u);
/* Leg Jacobian dL/dq (6 x 6, row-major): row i = [u_i', (R a_i x u_i)' Omega]. */
int stewart_leg_jacobian(void *s, const double *q, double *JL);
/* Forward kinematics from leg lengths: Newton-Raphson (GSL gsl_multiroot_fdfsolver_newton with the analytic
 * Jacobian) from q_seed (NULL: the home pose) to |L(q) - L| < 1e-12 m. MODEL_EUNREACH when it does not converge
 * (info: iterations and the final max |L(q) - L|); MODEL_EINVAL for a non-finite or non-positive length. */
int stewart_fk_legs(void *s, const double L[6], const double *q_seed, double *q, ModelIkInfo *info);
/* Leg forces f (6) along u_i for the motion (q, qd, qdd): G' f = W, the platform's Newton-Euler wrench.
 * MODEL_ESINGULAR at a singular leg configuration. */
int stewart_leg_forces(void *s, const double *q, const double *qd, const double *qdd, double f[6]);
/* Total energy of the platform: kinetic 1/2 m v_C^2 + 1/2 w' I w plus potential -m g . r_C (J). */
int stewart_energy(void *s, const double *q, const double *qd, double *energy);
/* Anchors of the state: base b (6 x 3, base frame), platform a (6 x 3, platform frame). Either may be NULL. */
void stewart_anchors(void *s, double *b, double *a);
/* The stroke the back-end uses as its workspace (from the machine's OUTPUT L1..L6 limits; +-INF without). */
void stewart_stroke(void *s, double lmin[6], double lmax[6]);

#endif
