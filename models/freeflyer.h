/* freeflyer.h — the free-floating planar space manipulator of seed 004 (Parlaktuna et al.): a base and a serial
 * arm of revolute joints about z, no gravity, no external force or torque, so the system's centre of mass stays
 * where it is (the inertial origin) and its angular momentum stays at zero. The paper's arm has two links; the
 * code takes any count from 1 to FREEFLYER_MAX_BODIES - 1. See docs/MODELS.md §11.
 *
 * Coordinates: q = (alpha, theta_1, ..., theta_{n-1}) with alpha the base's rotation in the inertial frame (the
 * passive "joint" 0 of both formulations) and theta_k the arm's joint angles. Absolute angles phi_k = q_0 + ... +
 * q_k. Body 0 is the base, body k (k >= 1) the k-th link; joint k (k >= 1) joins body k-1 to body k. All vectors are
 * planar, in their body's frame. Indices are the paper's minus one (its body i is our body i-1).
 *
 * Two formulations of the same dynamics (ERRATA "Seed 004" gives the paper's misprints, corrected here):
 *   VM   the Virtual Manipulator (Vafa & Dubowsky): every body's centre of mass is a sum of barycentric vectors
 *        V_ik turned by phi_k; the kinetic energy of the bodies in these coordinates (freeflyer_vm.c);
 *   DEM  the Dynamically Equivalent Manipulator (Liang et al.): a fixed-base serial chain, passive joint 0 at the
 *        system's centre of mass, link masses m'_k = m_k M^2 / (M_{k-1} M_k) (corrected eq. 10), lengths
 *        W_k = r_k + l_k, centres l'_k = l_k, inertias I'_k = I_k; recursive Newton-Euler (freeflyer_dem.c).
 * The back-end `model_freeflyer` (freeflyer.c) runs the one its machine file names (PARAM formulation = VM | DEM);
 * kinematics and outputs are those of the physical bodies in both (freeflyer_kin.c). */
#ifndef IRL_FREEFLYER_H
#define IRL_FREEFLYER_H

#include "model.h"

#define FREEFLYER_MAX_BODIES 8 /* the base and up to 7 links */

/* The back-end (registered by models/model.c under "freeflyer"). */
extern const ModelType model_freeflyer;

typedef enum { FREEFLYER_VM, FREEFLYER_DEM } FreeflyerFormulation;

/* The physical system (the paper's Table 1 and Fig. 1). */
typedef struct {
    int n;                              /* bodies = degrees of freedom (the base + n-1 links) */
    double m[FREEFLYER_MAX_BODIES];     /* masses, kg (all > 0) */
    double I[FREEFLYER_MAX_BODIES];     /* inertia about the body's centre of mass, about z, kg m^2 */
    double c0[2];                       /* the base's centre of mass in the base frame */
    double L[FREEFLYER_MAX_BODIES][2];  /* L_k: joint k to the centre of mass of body k (L_0 = 0) */
    double R[FREEFLYER_MAX_BODIES][2];  /* R_k: centre of mass of body k to joint k+1; R_{n-1}: to the tool point */
} FreeflyerPhys;

/* The Dynamically Equivalent Manipulator: a fixed-base chain, joint 0 at the inertial origin. */
typedef struct {
    int n;
    double m[FREEFLYER_MAX_BODIES];     /* m'_k, kg; m'_0 is undefined (ERRATA F7) and unused: 0 */
    double I[FREEFLYER_MAX_BODIES];     /* I'_k = I_k */
    double W[FREEFLYER_MAX_BODIES][2];  /* W_k: joint k to joint k+1 (W_{n-1}: joint n-1 to the tool point) */
    double l[FREEFLYER_MAX_BODIES][2];  /* l'_k: joint k to the centre of mass of link k (l'_0 = 0) */
} FreeflyerDem;

/* The Virtual Manipulator's precomputed data: the barycentric vectors of every body. */
typedef struct {
    int n;
    double m[FREEFLYER_MAX_BODIES], I[FREEFLYER_MAX_BODIES], M; /* masses, inertias, total mass */
    /* V[i][k]: the part of body i's centre of mass that turns with phi_k (rho_i = sum_k Rot(phi_k) V[i][k]):
     * W_k for k < i, W_i - R_i for k = i, W_k - R_k - L_k for k > i, with W_k = r_k + l_k, r_k = R_k M_k / M,
     * l_k = L_k M_{k-1} / M, M_k = m_0 + ... + m_k (eqs. 2-7, ERRATA F1). */
    double V[FREEFLYER_MAX_BODIES][FREEFLYER_MAX_BODIES][2];
    double W[FREEFLYER_MAX_BODIES][2];  /* the virtual links; the tool point is sum_k Rot(phi_k) W_k */
    double c0[2], L[FREEFLYER_MAX_BODIES][2]; /* for the body frames (FK) */
} FreeflyerVm;

/* ---- parameters (freeflyer_params.c) ---- */

/* The DEM of a physical system (corrected eq. 10). */
void freeflyer_dem_from_phys(const FreeflyerPhys *p, FreeflyerDem *d);
/* The physical system of a DEM with total mass M (the inverse map; the base frame is put at the base's centre of
 * mass, c0 = 0, since the DEM does not say where it is). Every M > 0 gives positive masses (m_k < M_k); the DEM
 * fixes the dynamics, M only where the bodies are. MODEL_EINVAL for M <= 0 or non-positive m'_k. */
int freeflyer_phys_from_dem(const FreeflyerDem *d, double M, FreeflyerPhys *p);
/* Precompute the Virtual Manipulator of a physical system. */
void freeflyer_vm_init(FreeflyerVm *vm, const FreeflyerPhys *p);

/* ---- dynamics of each formulation (all n x n row-major, tau/h/M filled for every coordinate) ---- */

/* VM: M(q) = S' G S and h = S' h_phi, with G and h_phi the bodies' kinetic energy in absolute angles, both from
 * the turned barycentric vectors w[i][k] = Rot(phi_k) V_ik at q (computed once for the two). */
typedef struct {
    double w[FREEFLYER_MAX_BODIES][FREEFLYER_MAX_BODIES][2];
} FreeflyerVmTurned;
void freeflyer_vm_turn(const FreeflyerVm *vm, const double *q, FreeflyerVmTurned *t);
void freeflyer_vm_mass(const FreeflyerVm *vm, const FreeflyerVmTurned *t, double *M);
void freeflyer_vm_bias(const FreeflyerVm *vm, const FreeflyerVmTurned *t, const double *qd, double *h);
/* DEM: recursive Newton-Euler of the fixed-base chain, tau = M qdd + h (no gravity). */
void freeflyer_dem_rne(const FreeflyerDem *d, const double *q, const double *qd, const double *qdd, double *tau);
void freeflyer_dem_mass(const FreeflyerDem *d, const double *q, double *M);

/* ---- kinematics of the physical bodies (freeflyer_kin.c), inertial frame with its origin at the CM ---- */

/* Centre of mass of body i and its velocity (vel may be NULL). */
void freeflyer_kin_body(const FreeflyerVm *vm, const double *q, const double *qd, int i, double pos[2],
                        double vel[2]);
/* Origin of body i's frame (the base frame for i = 0, joint i's frame for a link). */
void freeflyer_kin_frame(const FreeflyerVm *vm, const double *q, int i, double pos[2]);
/* The tool point (the Virtual Manipulator's tip) and its velocity (vel may be NULL). */
void freeflyer_kin_tip(const FreeflyerVm *vm, const double *q, const double *qd, double pos[2], double vel[2]);
/* d tip / d q: 2 x n, row-major (the Virtual Manipulator's Jacobian: every column, the base's included). */
void freeflyer_kin_tip_jacobian(const FreeflyerVm *vm, const double *q, double *J);
/* Sums over the bodies: linear momentum p, angular momentum L about the origin, centre of mass cm, kinetic
 * energy E (any pointer may be NULL). */
void freeflyer_kin_sums(const FreeflyerVm *vm, const double *q, const double *qd, double p[2], double *L,
                        double cm[2], double *E);

/* ---- helpers of a live back-end state (s from model_freeflyer.create) ---- */

FreeflyerFormulation freeflyer_formulation(void *s);
/* Copies of the state's physical system and its DEM (either may be NULL). */
void freeflyer_params(void *s, FreeflyerPhys *p, FreeflyerDem *d);
/* The base's rate and acceleration that keep the angular momentum at zero and the base torque at zero while the
 * arm moves with qd[1..], qdd[1..] (qd[0], qdd[0] are not read; qdd may be NULL, then *acc is not set). */
int freeflyer_base_motion(void *s, const double *q, const double *qd, const double *qdd, double *rate, double *acc);
/* The generalized Jacobian (Umetani & Yoshida) at zero momentum: tool-point velocity (vx, vy) per arm joint rate,
 * 2 x (n-1) row-major. */
int freeflyer_generalized_jacobian(void *s, const double *q, double *J);

#endif
