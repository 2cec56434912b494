/* chain_lagrange.c — Lagrange form of chain dynamics from link Jacobians: metric tensor, its analytic derivative,
 * Christoffel symbols of the first kind and the potential-energy gradient. Deliberately shares no code with
 * chain.c (its own FK by Rodrigues composition, base-frame Jacobians), so the two agree only if both are right. */
#include "chain_lagrange.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"

struct ChainLagrange {
    int n;
    int parent[MODEL_MAX_DOF], revolute[MODEL_MAX_DOF];
    double axis[MODEL_MAX_DOF][3], p0[MODEL_MAX_DOF][3], R0[MODEL_MAX_DOF][9];
    double mass[MODEL_MAX_DOF], com[MODEL_MAX_DOF][3], Ic[MODEL_MAX_DOF][9];
    double gravity[3];
    unsigned char anc[MODEL_MAX_DOF][MODEL_MAX_DOF]; /* anc[k][i]: joint k moves link i (k ancestor-or-self) */
    /* base-frame kinematics at the last q */
    double z[MODEL_MAX_DOF][3], o[MODEL_MAX_DOF][3], c[MODEL_MAX_DOF][3], Iw[MODEL_MAX_DOF][9];
    /* scratch: n^3 derivative buffer, link Jacobians */
    double *dM, *Jv, *Jw, *dJv, *dJw;
};

/* Base-frame axis z_i and origin o_i of every joint, COM c_i and rotated inertia of every link. */
static void lag_kinematics(ChainLagrange *L, const double *q)
{
    double Rl[MODEL_MAX_DOF][9], pl[MODEL_MAX_DOF][3];
    for (int i = 0; i < L->n; i++) {
        double Rj[9], pj[3], Rq[9], t[3];
        int p = L->parent[i];
        /* joint frame in the base: parent link pose composed with the fixed origin */
        if (p < 0) {
            memcpy(Rj, L->R0[i], sizeof Rj);
            v3_copy(pj, L->p0[i]);
        } else {
            m3_mul(Rj, Rl[p], L->R0[i]);
            m3_mulv(t, Rl[p], L->p0[i]);
            v3_add(pj, pl[p], t);
        }
        m3_mulv(L->z[i], Rj, L->axis[i]);
        v3_copy(L->o[i], pj);
        if (L->revolute[i]) {
            m3_axis_angle(Rq, L->axis[i], q[i]);
            m3_mul(Rl[i], Rj, Rq);
            v3_copy(pl[i], pj);
        } else {
            memcpy(Rl[i], Rj, sizeof Rj);
            v3_copy(pl[i], pj);
            v3_axpy(pl[i], q[i], L->z[i]);
        }
        m3_mulv(t, Rl[i], L->com[i]);
        v3_add(L->c[i], pl[i], t);
        double RI[9], Rt[9];
        m3_mul(RI, Rl[i], L->Ic[i]);
        m3_transpose(Rt, Rl[i]);
        m3_mul(L->Iw[i], RI, Rt);
    }
}

/* Linear (at the COM) and angular Jacobians of link l, 3 x n each. */
static void lag_link_jacobian(const ChainLagrange *L, int l, double *Jv, double *Jw)
{
    int n = L->n;
    memset(Jv, 0, 3 * (size_t)n * sizeof(double));
    memset(Jw, 0, 3 * (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        if (!L->anc[i][l]) continue;
        double v[3], d[3];
        if (L->revolute[i]) {
            v3_sub(d, L->c[l], L->o[i]);
            v3_cross(v, L->z[i], d);
            for (int r = 0; r < 3; r++) Jw[r * n + i] = L->z[i][r];
        } else {
            v3_copy(v, L->z[i]);
        }
        for (int r = 0; r < 3; r++) Jv[r * n + i] = v[r];
    }
}

/* Derivative wrt q_k of a base-frame point x carried by link `body` (body -1: the base). */
static void lag_dpoint(const ChainLagrange *L, int k, int body, const double x[3], double dx[3])
{
    v3_set(dx, 0, 0, 0);
    if (body < 0 || !L->anc[k][body]) return;
    if (L->revolute[k]) {
        double d[3];
        v3_sub(d, x, L->o[k]);
        v3_cross(dx, L->z[k], d);
    } else {
        v3_copy(dx, L->z[k]);
    }
}

/* Derivative wrt q_k of a base-frame direction carried by link `body`. */
static void lag_dvector(const ChainLagrange *L, int k, int body, const double v[3], double dv[3])
{
    v3_set(dv, 0, 0, 0);
    if (body < 0 || !L->anc[k][body] || !L->revolute[k]) return;
    v3_cross(dv, L->z[k], v);
}

/* d Jv_l / d q_k and d Jw_l / d q_k (3 x n each). Joint i's axis and origin ride on link parent[i]. */
static void lag_link_jacobian_deriv(const ChainLagrange *L, int l, int k, double *dJv, double *dJw)
{
    int n = L->n;
    memset(dJv, 0, 3 * (size_t)n * sizeof(double));
    memset(dJw, 0, 3 * (size_t)n * sizeof(double));
    double dc[3];
    lag_dpoint(L, k, l, L->c[l], dc);
    for (int i = 0; i < n; i++) {
        if (!L->anc[i][l]) continue;
        double dz[3], dv[3];
        lag_dvector(L, k, L->parent[i], L->z[i], dz);
        if (L->revolute[i]) {
            double d[3], dd[3], doi[3], t1[3], t2[3];
            lag_dpoint(L, k, L->parent[i], L->o[i], doi);
            v3_sub(d, L->c[l], L->o[i]);
            v3_sub(dd, dc, doi);
            v3_cross(t1, dz, d);
            v3_cross(t2, L->z[i], dd);
            v3_add(dv, t1, t2);
            for (int r = 0; r < 3; r++) dJw[r * n + i] = dz[r];
        } else {
            v3_copy(dv, dz);
        }
        for (int r = 0; r < 3; r++) dJv[r * n + i] = dv[r];
    }
}

/* M += m Jv^T Jv + Jw^T I Jw  (or the symmetric product of the derivative terms). */
static void lag_accumulate(int n, double *M, double m, const double *Av, const double *Bv, const double *Aw,
                           const double *I, const double *Bw)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int r = 0; r < 3; r++) s += m * Av[r * n + i] * Bv[r * n + j];
            for (int r = 0; r < 3; r++)
                for (int t = 0; t < 3; t++) s += Aw[r * n + i] * I[3 * r + t] * Bw[t * n + j];
            M[i * n + j] += s;
        }
}

int chain_lagrange_metric(ChainLagrange *L, const double *q, double *M)
{
    int n = L->n;
    lag_kinematics(L, q);
    memset(M, 0, (size_t)n * n * sizeof(double));
    for (int l = 0; l < n; l++) {
        lag_link_jacobian(L, l, L->Jv, L->Jw);
        lag_accumulate(n, M, L->mass[l], L->Jv, L->Jv, L->Jw, L->Iw[l], L->Jw);
    }
    return MODEL_OK;
}

/* d/dq_k of sum_l m Jv^T Jv + Jw^T Iw Jw, term by term (product rule), with dIw = [z_k]x Iw - Iw [z_k]x. */
int chain_lagrange_metric_deriv(ChainLagrange *L, const double *q, double *dM)
{
    int n = L->n;
    lag_kinematics(L, q);
    memset(dM, 0, (size_t)n * n * n * sizeof(double));
    for (int l = 0; l < n; l++) {
        lag_link_jacobian(L, l, L->Jv, L->Jw);
        for (int k = 0; k < n; k++) {
            double *D = dM + (size_t)k * n * n;
            if (!L->anc[k][l]) continue;   /* q_k does not move link l: its Jacobians do not depend on q_k */
            lag_link_jacobian_deriv(L, l, k, L->dJv, L->dJw);
            lag_accumulate(n, D, L->mass[l], L->dJv, L->Jv, L->dJw, L->Iw[l], L->Jw);
            lag_accumulate(n, D, L->mass[l], L->Jv, L->dJv, L->Jw, L->Iw[l], L->dJw);
            if (L->revolute[k]) {
                const double *z = L->z[k], *I = L->Iw[l];
                double S[9], SI[9], IS[9], dI[9];
                m3_skew(S, z);
                m3_mul(SI, S, I);
                m3_mul(IS, I, S);
                for (int t = 0; t < 9; t++) dI[t] = SI[t] - IS[t];
                lag_accumulate(n, D, 0.0, L->Jv, L->Jv, L->Jw, dI, L->Jw);
            }
        }
    }
    return MODEL_OK;
}

int chain_lagrange_christoffel(ChainLagrange *L, const double *q, double *G)
{
    int n = L->n;
    chain_lagrange_metric_deriv(L, q, L->dM);
    const double *d = L->dM;
#define DM(k, i, j) d[((size_t)(k) * n + (i)) * n + (j)]
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                G[((size_t)i * n + j) * n + k] = 0.5 * (DM(k, i, j) + DM(j, i, k) - DM(i, j, k));
#undef DM
    return MODEL_OK;
}

double chain_lagrange_potential(ChainLagrange *L, const double *q)
{
    lag_kinematics(L, q);
    double V = 0;
    for (int l = 0; l < L->n; l++) V -= L->mass[l] * v3_dot(L->gravity, L->c[l]);
    return V;
}

/* dV/dq_i = -sum_l m_l g . Jv_l(:, i) */
int chain_lagrange_gravity(ChainLagrange *L, const double *q, double *g)
{
    int n = L->n;
    lag_kinematics(L, q);
    memset(g, 0, (size_t)n * sizeof(double));
    for (int l = 0; l < n; l++) {
        lag_link_jacobian(L, l, L->Jv, L->Jw);
        for (int i = 0; i < n; i++)
            for (int r = 0; r < 3; r++) g[i] -= L->mass[l] * L->gravity[r] * L->Jv[r * n + i];
    }
    return MODEL_OK;
}

double chain_lagrange_kinetic(ChainLagrange *L, const double *q, const double *qd)
{
    int n = L->n;
    double *M = L->dM;   /* scratch: n^3 >= n^2 */
    chain_lagrange_metric(L, q, M);
    double T = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) T += 0.5 * qd[i] * M[i * n + j] * qd[j];
    return T;
}

int chain_lagrange_inverse_dynamics(ChainLagrange *L, const double *q, const double *qd, const double *qdd,
                                    double *tau)
{
    int n = L->n;
    /* gravity first, into tau; then the Christoffel terms from dM (kept in L->dM), then the metric */
    chain_lagrange_gravity(L, q, tau);
    chain_lagrange_metric_deriv(L, q, L->dM);
    const double *d = L->dM;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                double G = 0.5 * (d[((size_t)k * n + i) * n + j] + d[((size_t)j * n + i) * n + k] -
                                  d[((size_t)i * n + j) * n + k]);
                s += G * qd[j] * qd[k];
            }
        tau[i] += s;
    }
    double *M = L->dM;
    chain_lagrange_metric(L, q, M);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) tau[i] += M[i * n + j] * qdd[j];
    return MODEL_OK;
}

int chain_lagrange_dof(const ChainLagrange *L) { return L->n; }

void chain_lagrange_free(ChainLagrange *L)
{
    if (!L) return;
    free(L->dM);
    free(L->Jv);
    free(L->Jw);
    free(L->dJv);
    free(L->dJw);
    free(L);
}

ChainLagrange *chain_lagrange_create(const ModelDesc *d, char *err, size_t errlen)
{
    int n = d->njoints;
    if (n < 1 || n > MODEL_MAX_DOF) {
        snprintf(err, errlen, "%s: chain needs 1..%d joints", d->name, MODEL_MAX_DOF);
        return NULL;
    }
    ChainLagrange *L = calloc(1, sizeof *L);
    if (!L) return NULL;
    L->n = n;
    for (int i = 0; i < n; i++) {
        const ModelJoint *j = &d->joint[i];
        if (j->parent < -1 || j->parent >= i || !(v3_norm(j->axis) > 0)) {
            snprintf(err, errlen, "%s: joint '%s': bad parent or axis", d->name, j->name);
            chain_lagrange_free(L);
            return NULL;
        }
        L->parent[i] = j->parent;
        L->revolute[i] = j->type == MODEL_REVOLUTE;
        v3_scale(L->axis[i], j->axis, 1.0 / v3_norm(j->axis));
        v3_copy(L->p0[i], j->origin_xyz);
        memcpy(L->R0[i], j->origin_R, sizeof L->R0[i]);
        L->mass[i] = j->mass;
        v3_copy(L->com[i], j->com);
        memcpy(L->Ic[i], j->inertia, sizeof L->Ic[i]);
        for (int k = i; k >= 0; k = L->parent[k]) L->anc[k][i] = 1;
    }
    v3_copy(L->gravity, d->gravity);
    L->dM = malloc((size_t)n * n * n * sizeof(double));
    L->Jv = malloc(3 * (size_t)n * sizeof(double));
    L->Jw = malloc(3 * (size_t)n * sizeof(double));
    L->dJv = malloc(3 * (size_t)n * sizeof(double));
    L->dJw = malloc(3 * (size_t)n * sizeof(double));
    if (!L->dM || !L->Jv || !L->Jw || !L->dJv || !L->dJw) {
        chain_lagrange_free(L);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return L;
}
