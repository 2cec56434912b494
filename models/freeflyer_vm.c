/* freeflyer_vm.c — dynamics of the free-floating manipulator by the Virtual Manipulator: the bodies' kinetic energy
 * (eq. 1) with every centre of mass written as rho_i = sum_k Rot(phi_k) V_ik (the barycentric vectors, ERRATA F1).
 *
 * In absolute angles phi: with w_ik = Rot(phi_k) V_ik, rho_i' = sum_k phi_k' J w_ik and
 * rho_i'' = sum_k (phi_k'' J w_ik - phi_k'^2 w_ik) (J: +90 degrees). d'Alembert's principle along d rho_i / d phi_k =
 * J w_ik gives Q_phi = G phi'' + h_phi with
 *   G_kl = sum_i m_i w_ik . w_il + delta_kl I_k,      h_phi,k = sum_l phi_l'^2 sum_i m_i (w_il x w_ik)
 * (x: the planar cross product a_x b_y - a_y b_x). phi = S q with S lower-triangular ones, so M = S' G S,
 * h = S' h_phi: suffix sums over the absolute-angle indices. */
#include "freeflyer.h"

#include <math.h>

#include "dmath.h"

void freeflyer_vm_turn(const FreeflyerVm *vm, const double *q, FreeflyerVmTurned *t)
{
    double(*w)[FREEFLYER_MAX_BODIES][2] = t->w, phi = 0.0;
    for (int k = 0; k < vm->n; k++) {
        phi += q[k];
        double c, s;
        dm_sincos(phi, &s, &c);
        for (int i = 0; i < vm->n; i++) {
            const double *v = vm->V[i][k];
            w[i][k][0] = c * v[0] - s * v[1];
            w[i][k][1] = s * v[0] + c * v[1];
        }
    }
}

/* In place: x_a = sum_{k >= a} x_k (S' x). */
static void suffix_sum(double *x, int n)
{
    for (int a = n - 2; a >= 0; a--) x[a] += x[a + 1];
}

/* M = S' G S, i.e. M_ab = sum_{k >= a, l >= b} G_kl. */
void freeflyer_vm_mass(const FreeflyerVm *vm, const FreeflyerVmTurned *t, double *M)
{
    int n = vm->n;
    const double(*w)[FREEFLYER_MAX_BODIES][2] = t->w;
    double G[FREEFLYER_MAX_BODIES * FREEFLYER_MAX_BODIES];
    for (int k = 0; k < n; k++)
        for (int l = k; l < n; l++) {
            double g = k == l ? vm->I[k] : 0.0;
            for (int i = 0; i < n; i++) g += vm->m[i] * (w[i][k][0] * w[i][l][0] + w[i][k][1] * w[i][l][1]);
            G[k * n + l] = G[l * n + k] = g;
        }
    /* rows then columns: suffix sums of G's rows give G S, of its columns S' (G S) */
    for (int k = 0; k < n; k++)
        for (int b = n - 2; b >= 0; b--) G[k * n + b] += G[k * n + b + 1];
    for (int b = 0; b < n; b++)
        for (int a = n - 2; a >= 0; a--) G[a * n + b] += G[(a + 1) * n + b];
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++) M[a * n + b] = M[b * n + a] = G[a * n + b]; /* exactly symmetric */
}

/* h = S' h_phi with h_phi,k = sum_l phi_l'^2 sum_i m_i (w_il x w_ik). */
void freeflyer_vm_bias(const FreeflyerVm *vm, const FreeflyerVmTurned *t, const double *qd, double *h)
{
    int n = vm->n;
    const double(*w)[FREEFLYER_MAX_BODIES][2] = t->w;
    double phid[FREEFLYER_MAX_BODIES], s = 0.0;
    for (int k = 0; k < n; k++) s += qd[k], phid[k] = s;
    for (int k = 0; k < n; k++) {
        double hk = 0.0;
        for (int l = 0; l < n; l++) {
            if (l == k) continue; /* w x w = 0 */
            double c = 0.0;
            for (int i = 0; i < n; i++) c += vm->m[i] * (w[i][l][0] * w[i][k][1] - w[i][l][1] * w[i][k][0]);
            hk += phid[l] * phid[l] * c;
        }
        h[k] = hk;
    }
    suffix_sum(h, n);
}
