/* freeflyer_kin.c — kinematics of the free-floating manipulator's physical bodies in the inertial frame (origin at
 * the system's centre of mass): centres of mass and body frames from the barycentric vectors, the tool point as
 * the Virtual Manipulator's tip, its Jacobian, and the sums over the bodies (momenta, centre of mass, energy) that
 * the tests and the outputs use as invariants. Independent of both dynamics formulations. */
#include "freeflyer.h"

#include <math.h>

#include "dmath.h"

/* r = Rot(phi) v */
static void rot2(double r[2], double phi, const double v[2])
{
    double c, s;
    dm_sincos(phi, &s, &c);
    r[0] = c * v[0] - s * v[1];
    r[1] = s * v[0] + c * v[1];
}

/* Absolute angles and rates (qd may be NULL). */
static void absolute(const FreeflyerVm *vm, const double *q, const double *qd, double *phi, double *phid)
{
    double a = 0.0, b = 0.0;
    for (int k = 0; k < vm->n; k++) {
        a += q[k], phi[k] = a;
        if (qd) b += qd[k], phid[k] = b;
    }
}

/* rho_i = sum_k Rot(phi_k) V_ik; rho_i' = sum_k phi_k' J Rot(phi_k) V_ik. */
void freeflyer_kin_body(const FreeflyerVm *vm, const double *q, const double *qd, int i, double pos[2],
                        double vel[2])
{
    double phi[FREEFLYER_MAX_BODIES], phid[FREEFLYER_MAX_BODIES], t[2];
    absolute(vm, q, vel ? qd : NULL, phi, phid);
    pos[0] = pos[1] = 0.0;
    if (vel) vel[0] = vel[1] = 0.0;
    for (int k = 0; k < vm->n; k++) {
        rot2(t, phi[k], vm->V[i][k]);
        pos[0] += t[0], pos[1] += t[1];
        if (vel) vel[0] -= phid[k] * t[1], vel[1] += phid[k] * t[0];
    }
}

/* The base frame sits c0 before the base's centre of mass, joint i's frame L_i before link i's. */
void freeflyer_kin_frame(const FreeflyerVm *vm, const double *q, int i, double pos[2])
{
    double phi[FREEFLYER_MAX_BODIES], t[2];
    absolute(vm, q, NULL, phi, NULL);
    freeflyer_kin_body(vm, q, NULL, i, pos, NULL);
    rot2(t, phi[i], i == 0 ? vm->c0 : vm->L[i]);
    pos[0] -= t[0], pos[1] -= t[1];
}

/* tip = sum_k Rot(phi_k) W_k. */
void freeflyer_kin_tip(const FreeflyerVm *vm, const double *q, const double *qd, double pos[2], double vel[2])
{
    double phi[FREEFLYER_MAX_BODIES], phid[FREEFLYER_MAX_BODIES], t[2];
    absolute(vm, q, vel ? qd : NULL, phi, phid);
    pos[0] = pos[1] = 0.0;
    if (vel) vel[0] = vel[1] = 0.0;
    for (int k = 0; k < vm->n; k++) {
        rot2(t, phi[k], vm->W[k]);
        pos[0] += t[0], pos[1] += t[1];
        if (vel) vel[0] -= phid[k] * t[1], vel[1] += phid[k] * t[0];
    }
}

/* d tip / d q_a = sum_{k >= a} J Rot(phi_k) W_k. */
void freeflyer_kin_tip_jacobian(const FreeflyerVm *vm, const double *q, double *J)
{
    int n = vm->n;
    double phi[FREEFLYER_MAX_BODIES], t[2], sx = 0.0, sy = 0.0;
    absolute(vm, q, NULL, phi, NULL);
    for (int a = n - 1; a >= 0; a--) {
        rot2(t, phi[a], vm->W[a]);
        sx -= t[1], sy += t[0];
        J[a] = sx, J[n + a] = sy;
    }
}

/* p = sum m_i rho_i', L = sum (m_i rho_i x rho_i' + I_i phi_i'), cm = sum m_i rho_i / M, E = 1/2 sum (m_i |rho_i'|^2 +
 * I_i phi_i'^2). */
void freeflyer_kin_sums(const FreeflyerVm *vm, const double *q, const double *qd, double p[2], double *L,
                        double cm[2], double *E)
{
    double phi[FREEFLYER_MAX_BODIES], phid[FREEFLYER_MAX_BODIES], P[2] = {0, 0}, C[2] = {0, 0}, ang = 0, e = 0;
    absolute(vm, q, qd, phi, phid);
    for (int i = 0; i < vm->n; i++) {
        double r[2], v[2], m = vm->m[i];
        freeflyer_kin_body(vm, q, qd, i, r, v);
        P[0] += m * v[0], P[1] += m * v[1];
        C[0] += m * r[0], C[1] += m * r[1];
        ang += m * (r[0] * v[1] - r[1] * v[0]) + vm->I[i] * phid[i];
        e += 0.5 * (m * (v[0] * v[0] + v[1] * v[1]) + vm->I[i] * phid[i] * phid[i]);
    }
    if (p) p[0] = P[0], p[1] = P[1];
    if (L) *L = ang;
    if (cm) cm[0] = C[0] / vm->M, cm[1] = C[1] / vm->M;
    if (E) *E = e;
}
