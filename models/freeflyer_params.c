/* freeflyer_params.c — the parameter maps of the free-floating manipulator: physical bodies to the Dynamically
 * Equivalent Manipulator (corrected eq. 10) and back, and the Virtual Manipulator's barycentric vectors (eqs. 2-7
 * with ERRATA F1). M_k = m_0 + ... + m_k are the partial masses, M = M_{n-1} the total. */
#include "freeflyer.h"

#include <string.h>

/* Partial masses M_k and their total. */
static double partial_masses(const double *m, int n, double *Mk)
{
    double s = 0.0;
    for (int k = 0; k < n; k++) s += m[k], Mk[k] = s;
    return s;
}

/* r_k = R_k M_k / M and l_k = L_k M_{k-1} / M (eqs. 6-7). */
static void rl_vectors(const FreeflyerPhys *p, const double *Mk, double M, double r[][2], double l[][2])
{
    for (int k = 0; k < p->n; k++)
        for (int c = 0; c < 2; c++) {
            r[k][c] = p->R[k][c] * Mk[k] / M;
            l[k][c] = k > 0 ? p->L[k][c] * Mk[k - 1] / M : 0.0;
        }
}

/* m'_k = m_k M^2 / (M_{k-1} M_k) (ERRATA F6: M^2, not M), W_k = r_k + l_k, l'_k = l_k, I'_k = I_k. */
void freeflyer_dem_from_phys(const FreeflyerPhys *p, FreeflyerDem *d)
{
    double Mk[FREEFLYER_MAX_BODIES], r[FREEFLYER_MAX_BODIES][2], l[FREEFLYER_MAX_BODIES][2];
    double M = partial_masses(p->m, p->n, Mk);
    rl_vectors(p, Mk, M, r, l);
    memset(d, 0, sizeof *d);
    d->n = p->n;
    for (int k = 0; k < p->n; k++) {
        d->m[k] = k > 0 ? p->m[k] * M * M / (Mk[k - 1] * Mk[k]) : 0.0;
        d->I[k] = p->I[k];
        for (int c = 0; c < 2; c++) d->W[k][c] = r[k][c] + l[k][c], d->l[k][c] = l[k][c];
    }
}

/* Backwards from M_{n-1} = M: m'_k = m_k M^2 / ((M_k - m_k) M_k) solved for m_k is m_k = m'_k M_k^2 / (M^2 +
 * m'_k M_k), then M_{k-1} = M_k - m_k, and m_0 = M_0. Lengths: L_k = l'_k M / M_{k-1}, R_k = (W_k - l'_k) M / M_k. */
int freeflyer_phys_from_dem(const FreeflyerDem *d, double M, FreeflyerPhys *p)
{
    double Mk[FREEFLYER_MAX_BODIES];
    if (!(M > 0) || d->n < 1 || d->n > FREEFLYER_MAX_BODIES) return MODEL_EINVAL;
    memset(p, 0, sizeof *p);
    p->n = d->n;
    Mk[d->n - 1] = M;
    for (int k = d->n - 1; k >= 1; k--) {
        p->m[k] = d->m[k] * Mk[k] * Mk[k] / (M * M + d->m[k] * Mk[k]);
        Mk[k - 1] = Mk[k] - p->m[k];
        if (!(p->m[k] > 0) || !(Mk[k - 1] > 0)) return MODEL_EINVAL;
    }
    p->m[0] = Mk[0];
    for (int k = 0; k < d->n; k++) {
        p->I[k] = d->I[k];
        for (int c = 0; c < 2; c++) {
            p->L[k][c] = k > 0 ? d->l[k][c] * M / Mk[k - 1] : 0.0;
            p->R[k][c] = (d->W[k][c] - d->l[k][c]) * M / Mk[k];
        }
    }
    return MODEL_OK;
}

/* V[i][k] = W_k (k < i), W_i - R_i (k = i), W_k - R_k - L_k (k > i). */
void freeflyer_vm_init(FreeflyerVm *vm, const FreeflyerPhys *p)
{
    double Mk[FREEFLYER_MAX_BODIES], r[FREEFLYER_MAX_BODIES][2], l[FREEFLYER_MAX_BODIES][2];
    memset(vm, 0, sizeof *vm);
    vm->n = p->n;
    vm->M = partial_masses(p->m, p->n, Mk);
    rl_vectors(p, Mk, vm->M, r, l);
    memcpy(vm->m, p->m, sizeof vm->m);
    memcpy(vm->I, p->I, sizeof vm->I);
    memcpy(vm->c0, p->c0, sizeof vm->c0);
    memcpy(vm->L, p->L, sizeof vm->L);
    for (int k = 0; k < p->n; k++)
        for (int c = 0; c < 2; c++) vm->W[k][c] = r[k][c] + l[k][c];
    for (int i = 0; i < p->n; i++)
        for (int k = 0; k < p->n; k++)
            for (int c = 0; c < 2; c++) {
                double v = vm->W[k][c];
                if (k >= i) v -= p->R[k][c];
                if (k > i) v -= p->L[k][c];
                vm->V[i][k][c] = v;
            }
}
