/* freeflyer_dem.c — dynamics of the free-floating manipulator by its Dynamically Equivalent Manipulator: a
 * fixed-base planar chain (joint 0 passive, at the inertial origin, the system's centre of mass) solved by
 * recursive Newton-Euler, written apart from the Virtual Manipulator's energy form (freeflyer_vm.c) so that the
 * two formulations check each other.
 *
 * Link k turns by phi_k = q_0 + ... + q_k; s_k = Rot(phi_k) l'_k (joint k to its centre of mass) and
 * w_k = Rot(phi_k) W_k (joint k to joint k+1). Outwards: a_C,k = a_J,k + phi_k'' J s_k - phi_k'^2 s_k, the same
 * with w_k for a_J,k+1, a_J,0 = 0. Inwards: the force f_k and the moment n_k that link k-1 exerts on link k at
 * joint k: f_k = m'_k a_C,k + f_k+1 and n_k = I'_k phi_k'' + s_k x m'_k a_C,k + w_k x f_k+1 + n_k+1 (moments about
 * joint k). The joint torque is tau_k = n_k. */
#include "freeflyer.h"

#include <string.h>
#include <math.h>

#include "dmath.h"

/* tau = M(q) qdd + h(q, qd), no gravity. */
void freeflyer_dem_rne(const FreeflyerDem *d, const double *q, const double *qd, const double *qdd, double *tau)
{
    int n = d->n;
    double s[FREEFLYER_MAX_BODIES][2], w[FREEFLYER_MAX_BODIES][2], F[FREEFLYER_MAX_BODIES][2];
    double ph = 0.0, om = 0.0, al = 0.0, aj[2] = {0.0, 0.0}, wd[FREEFLYER_MAX_BODIES];
    for (int k = 0; k < n; k++) {
        ph += q[k], om += qd[k], al += qdd[k];
        double c, sn, om2 = om * om;
        dm_sincos(ph, &sn, &c);
        s[k][0] = c * d->l[k][0] - sn * d->l[k][1];
        s[k][1] = sn * d->l[k][0] + c * d->l[k][1];
        w[k][0] = c * d->W[k][0] - sn * d->W[k][1];
        w[k][1] = sn * d->W[k][0] + c * d->W[k][1];
        /* a_C = a_J + al J s - om^2 s; J (x, y) = (-y, x) */
        F[k][0] = d->m[k] * (aj[0] - al * s[k][1] - om2 * s[k][0]);
        F[k][1] = d->m[k] * (aj[1] + al * s[k][0] - om2 * s[k][1]);
        aj[0] += -al * w[k][1] - om2 * w[k][0];
        aj[1] += al * w[k][0] - om2 * w[k][1];
        wd[k] = al;
    }
    double f[2] = {0.0, 0.0}, nm = 0.0; /* f_k+1, n_k+1: nothing beyond the last link */
    for (int k = n - 1; k >= 0; k--) {
        nm += d->I[k] * wd[k] + (s[k][0] * F[k][1] - s[k][1] * F[k][0]) + (w[k][0] * f[1] - w[k][1] * f[0]);
        f[0] += F[k][0];
        f[1] += F[k][1];
        tau[k] = nm;
    }
}

/* Column j of M is the torque of a unit acceleration of joint j at rest. */
void freeflyer_dem_mass(const FreeflyerDem *d, const double *q, double *M)
{
    int n = d->n;
    double zero[FREEFLYER_MAX_BODIES] = {0}, e[FREEFLYER_MAX_BODIES], t[FREEFLYER_MAX_BODIES];
    for (int j = 0; j < n; j++) {
        memset(e, 0, sizeof e);
        e[j] = 1.0;
        freeflyer_dem_rne(d, q, zero, e, t);
        for (int i = 0; i < n; i++) M[i * n + j] = t[i];
    }
    for (int i = 0; i < n; i++) /* symmetric to round-off; make it exact */
        for (int j = i + 1; j < n; j++) M[i * n + j] = M[j * n + i] = 0.5 * (M[i * n + j] + M[j * n + i]);
}
