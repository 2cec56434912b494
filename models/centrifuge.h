/* centrifuge.h — the 3-DoF human centrifuge of seed 000 (planetary arm q1, gondola pitch q2, gondola roll q3):
 * its pure kinematics in the paper's frames (as corrected by ERRATA C1-C17), its metric tensor, and the GMOVE map
 * from a commanded G profile to the three axes. The back-end itself is `model_centrifuge` (model.h); the
 * functions here are what the runtime's GMOVE planner and the tests call directly. See docs/MODELS.md §9.
 *
 * Frames: base 0 has z0 up along the planetary axis. A01 = Rz(q1); A12 = Rodrigues rotation by q2 about
 * e2 = -y1, i.e. [[c2,0,-s2],[0,1,0],[s2,0,c2]]; A23 = Rx(q3). The seat E sits at the intersection of the gondola
 * axes, r_E = a1 (c1, s1, 0). The occupant's head-to-foot axis is z3, head toward +z3. Positive q2 tilts z3 toward
 * the planetary axis (the swing-out direction). Euler angles are z-x-z: A03 = Rz(psi) Rx(theta) Rz(phi). */
#ifndef IRL_CENTRIFUGE_H
#define IRL_CENTRIFUGE_H

#include "model.h"

/* The back-end (registered by models/model.c under "centrifuge"). */
extern const ModelType model_centrifuge;

#define CENTRIFUGE_DOF 3
#define CENTRIFUGE_BLEND_DEFAULT 0.5 /* s: default onset-rate blend of a G ramp (ERRATA) */

/* ---- kinematics (pure functions of q; a1 = arm length) ---- */

/* Rotation A_{0,link+1} of link `link` (0 arm, 1 pitch ring, 2 gondola) in the base frame. */
void centrifuge_link_rotation(const double q[3], int link, double R[9]);
/* Seat position r_E = a1 (c1, s1, 0). */
void centrifuge_seat(double a1, const double q[3], double r[3]);
/* z-x-z Euler angles (psi, theta, phi) of a rotation, theta in [0, pi]. When sin theta = 0 (gimbal lock) only
 * psi +- phi is defined: phi is set to 0 and the function returns 1; otherwise 0. */
int centrifuge_euler(const double R[9], double euler[3]);
/* The rotation Rz(psi) Rx(theta) Rz(phi) of z-x-z Euler angles (eq. 5 right-hand side, ERRATA C1-C3). */
void centrifuge_euler_matrix(const double euler[3], double R[9]);
/* Joint angles from a gondola orientation A03 (corrected eqs. 11, ERRATA C6). Two branches: c2 > 0 and
 * (q1 + pi, pi - q2, q3 + pi). Without a seed (q_seed NULL) the c2 > 0 branch with principal values; with one, q1
 * and q3 are wrapped modulo 2 pi next to the seed and the branch nearer to it wins. At the mechanism singularity
 * c2 = 0 only q1 + q3 (or q1 - q3) is defined: q1 is taken from q_seed (or 0), and the function returns 1. */
int centrifuge_ik_orientation(const double R[9], const double *q_seed, double q[3]);
/* q2, q3 (principal values) of orientation R for a given arm angle q1; q[0] = q1. */
void centrifuge_ik_given_q1(const double R[9], double q1, double q[3]);
/* J_I = d r_E / dq (3x3). */
void centrifuge_jacobian_position(double a1, const double q[3], double JI[9]);
/* J_omega: omega_3 = J_omega qdot, base frame (3x3); det J_omega = c2. */
void centrifuge_jacobian_omega(const double q[3], double Jw[9]);
/* J_II = d(psi, theta, phi) / dq = E(psi, theta)^-1 J_omega (ERRATA C8-C11). MODEL_ESINGULAR when sin theta = 0. */
int centrifuge_jacobian_euler(const double q[3], double JII[9]);
/* Mechanism singularity measure |c2| (0 at q2 = +-pi/2, where axes 1 and 3 are collinear; 1 upright). */
double centrifuge_singularity_mechanism(const double q[3]);
/* Euler-representation singularity measure sin theta = sqrt(1 - c2^2 c3^2) (0 at q2 = 0 with q3 = 0 or pi). */
double centrifuge_singularity_euler(const double q[3]);

/* ---- dynamics helpers of a live back-end state (s from model_centrifuge.create) ---- */

/* The machine's arm length a1 (m), gravity magnitude g (m/s^2, the G unit) and head height (m): what the GMOVE
 * planner passes to the map below. Any pointer may be NULL. */
void centrifuge_geometry(void *s, double *a1, double *g, double *head);
/* Metric tensor a_ij (3x3) and its partial derivatives da[k*9 + i*3 + j] = d a_ij / d q_k (da may be NULL). */
int centrifuge_metric(void *s, const double q[3], double a[9], double *da);
/* Total energy: kinetic (1/2 qd' a qd) plus potential (-sum m_i g . r_Ci), J. */
int centrifuge_energy(void *s, const double q[3], const double qd[3], double *energy);

/* ---- GMOVE map (pure functions; a1 = arm length, m; g = gravity magnitude, m/s^2; G in units of g) ----
 * Given the commanded G and its first three time derivatives Gd = (G, G', G'', G'''):
 *   planetary rate     a1 w^2 = g sqrt(G^2 - 1)
 *   gondola pitch      q2 = atan2(a1 w^2, g)
 *   gondola roll       q3 = atan2(-a1 w', sqrt(a1^2 w^4 + g^2))
 * which puts the whole specific force at the seat on +z3 (Gx = Gy = 0). The felt magnitude is then
 * sqrt(G^2 + (a1 w'/g)^2): the command fixes the radial + gravity resultant, not the tangential part (ERRATA).
 * q2'' needs w'', i.e. G''; q3'' needs w''', i.e. G'''. */

/* w = (w, w', w'', w''') from Gd = (G, G', G'', G'''). MODEL_EINVAL when G < 1 or not finite; MODEL_ESINGULAR at
 * G = 1 with a non-zero derivative (w ~ (G - 1)^(1/4) has infinite slope there). */
int centrifuge_gmove_omega(double a1, double g, const double Gd[4], double w[4]);
/* Gondola angles with two derivatives, q2d = (q2, q2', q2''), q3d = (q3, q3', q3''), from w = (w, w', w'', w'''). */
void centrifuge_gmove_gondola(double a1, double g, const double w[4], double q2d[3], double q3d[3]);
/* The whole map: q[1], q[2], qd[0..2], qdd[0..2] from Gd. q[0] (the planetary angle, the time integral of w) is
 * left untouched: the planner integrates it (centrifuge_gramp_angle for a ramp). Status as centrifuge_gmove_omega. */
int centrifuge_gmove_map(double a1, double g, const double Gd[4], double q[3], double qd[3], double qdd[3]);
/* Felt specific-force magnitude at the seat on the map, in g: sqrt(G^2 + (a1 w'/g)^2). */
double centrifuge_gmove_felt(double a1, double g, double G, double wdot);

/* ---- a C2 G ramp (GMOVE TO target WITH ONSET := rate) ----
 * G' rises from 0 to +-rate with the quintic smoothstep s(x) = 10x^3 - 15x^4 + 6x^5 over `blend` seconds, stays
 * at +-rate, and falls back to 0 over the last `blend` seconds, so G is C3 and G'' (hence q3'' and the torques)
 * is continuous. Peak G-jerk 1.875 rate / blend. Duration |G1 - G0| / rate + blend. A step shorter than
 * rate * blend keeps the blend time and lowers the peak rate to |G1 - G0| / blend (duration 2 blend). */
typedef struct {
    double G0, G1;  /* start and target G */
    double rate;    /* signed peak onset rate actually used, G/s */
    double blend;   /* s */
    double T;       /* duration, s */
} CentrifugeGRamp;

/* Plan a ramp; rate > 0 (G/s), blend <= 0 selects CENTRIFUGE_BLEND_DEFAULT. MODEL_EINVAL on bad arguments. */
int centrifuge_gramp_init(CentrifugeGRamp *r, double G0, double G1, double rate, double blend);
/* A hold at G0 for `duration` seconds. */
int centrifuge_gramp_hold(CentrifugeGRamp *r, double G0, double duration);
/* Gd = (G, G', G'', G''') at local time t (clamped to [0, T]: constant G outside). */
void centrifuge_gramp_eval(const CentrifugeGRamp *r, double t, double Gd[4]);
/* Planetary angle advance: the integral of w(t) over [t0, t1] along the ramp (8-point Gauss-Legendre on
 * sub-intervals of at most 0.1 s that never straddle a blend boundary). NAN when G < 1 somewhere on the way. */
double centrifuge_gramp_angle(const CentrifugeGRamp *r, double a1, double g, double t0, double t1);

#endif
