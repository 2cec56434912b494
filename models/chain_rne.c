/* chain_rne.c — the chain back-end's dynamics: recursive Newton-Euler inverse dynamics (DH-like joints by a reorder
 * and Rz(q), the others by their full rotation, in one pass), the composite-rigid-body mass matrix, forward dynamics
 * and seed 002's semi-inverse problem for powered and unpowered joints. */
#include "chain_internal.h"
#include "spd_solve.h"

/* One joint's step of the RNE's forward pass on the general path: relative transform, velocity, acceleration, and
 * the link's force and moment about its origin (link frame), from its parent's. */
static inline void chain_rne_general(Chain *c, int i, double q, double cq, double sq, double qd,
                                                         double qdd)
{
    const ChainJoint *jt = &c->j[i];
    ChainRneLink *L = &c->rne[i];
    chain_rel_trig(c, i, q, cq, sq);
    const double *R = c->Rrel[i], *r = c->rrel[i];
    double wp[3] = {0, 0, 0}, wdp[3] = {0, 0, 0}, ap[3], t1[3], t2[3];
    if (jt->parent >= 0) {
        const ChainRneLink *P = &c->rne[jt->parent];
        const ChainV2 *V = P->ww;
        wp[0] = V[0][0], wp[1] = V[1][0], wp[2] = V[2][0];
        wdp[0] = V[0][1], wdp[1] = V[1][1], wdp[2] = V[2][1];
        /* acceleration of this joint's origin, parent frame */
        v3_cross(t1, wdp, r);
        v3_cross(t2, wp, r);
        v3_cross(ap, wp, t2);
        ap[0] += P->a[0] + t1[0]; ap[1] += P->a[1] + t1[1]; ap[2] += P->a[2] + t1[2];
    } else {
        v3_copy(ap, c->a0);
    }
    double w[3], wd[3], *a = L->a;
    m3_tmulv(w, R, wp);
    m3_tmulv(wd, R, wdp);
    m3_tmulv(a, R, ap);
    const double *ax = jt->axis;
    if (jt->revolute) {
        double wqd[3];
        v3_scale(wqd, ax, qd);
        v3_cross(t1, w, wqd);           /* w is still the parent's velocity here */
        wd[0] += ax[0] * qdd + t1[0]; wd[1] += ax[1] * qdd + t1[1]; wd[2] += ax[2] * qdd + t1[2];
        v3_add(w, w, wqd);
    } else {
        double vqd[3];
        v3_scale(vqd, ax, 2.0 * qd);
        v3_cross(t1, w, vqd);
        a[0] += ax[0] * qdd + t1[0]; a[1] += ax[1] * qdd + t1[1]; a[2] += ax[2] * qdd + t1[2];
    }
    /* f = m a + wd x mc + w x (w x mc);  n = Io wd + w x Io w + mc x a  (about the link origin) */
    double f[3], nm[3], Iw[3];
    v3_cross(t1, wd, jt->mc);
    v3_cross(t2, w, jt->mc);
    v3_cross(f, w, t2);
    f[0] += jt->mass * a[0] + t1[0]; f[1] += jt->mass * a[1] + t1[1]; f[2] += jt->mass * a[2] + t1[2];
    m3_mulv(Iw, jt->Io, w);
    m3_mulv(nm, jt->Io, wd);
    v3_cross(t1, w, Iw);
    v3_cross(t2, jt->mc, a);
    nm[0] += t1[0] + t2[0]; nm[1] += t1[1] + t2[1]; nm[2] += t1[2] + t2[2];
    L->ww[0] = (ChainV2){w[0], wd[0]}, L->ww[1] = (ChainV2){w[1], wd[1]}, L->ww[2] = (ChainV2){w[2], wd[2]};
    L->fn[0] = (ChainV2){f[0], nm[0]}, L->fn[1] = (ChainV2){f[1], nm[1]}, L->fn[2] = (ChainV2){f[2], nm[2]};
}

/* The general path's backward step: tau of joint i, and its link's force and moment passed on to the parent. */
static inline void chain_rne_general_back(Chain *c, int i, double *tau)
{
    const ChainJoint *jt = &c->j[i];
    const ChainRneLink *L = &c->rne[i];
    double f[3], nm[3];
    const ChainV2 *F = L->fn;
    f[0] = F[0][0], f[1] = F[1][0], f[2] = F[2][0];
    nm[0] = F[0][1], nm[1] = F[1][1], nm[2] = F[2][1];
    *tau = v3_dot(jt->axis, jt->revolute ? nm : f);
    if (jt->parent >= 0) {
        ChainRneLink *P = &c->rne[jt->parent];
        double fp[3], np[3], t[3];
        m3_mulv(fp, c->Rrel[i], f);
        m3_mulv(np, c->Rrel[i], nm);
        v3_cross(t, c->rrel[i], fp);
        P->fn[0] += (ChainV2){fp[0], np[0] + t[0]};
        P->fn[1] += (ChainV2){fp[1], np[1] + t[1]};
        P->fn[2] += (ChainV2){fp[2], np[2] + t[2]};
    }
}

/* The rotation of a DH-like joint (ChainJoint.dh) relative to its parent: R = P Rz(q), P the signed permutation
 * with column k = psign[k] e_perm[k]. So (R^T v)_0 = cs0 v_k0 + ss1 v_k1, (R^T v)_1 = cs1 v_k1 - ss0 v_k0,
 * (R^T v)_2 = s2 v_k2 with cs0 = psign0 cos q, ss0 = psign0 sin q, cs1 = psign1 cos q, ss1 = psign1 sin q,
 * s2 = psign2: a reorder and 6 flops instead of forming R and a 15-flop product. (Products with +-1 are exact: the
 * bits are those of Rz^T applied to the signed, reordered vector.) The factors are broadcast to both halves of a
 * pair. */
typedef struct {
    int k0, k1, k2;
    ChainV2 cs0, ss0, cs1, ss1, s2;
} ChainDhRot;

/* The forward step (chain_rne_general's) of a DH-like joint: R^T by the reorder above, the axis z, w and wd (and f
 * and n) in pairs; the rotation is kept in L->rot for the backward step. Everything is read into locals first:
 * the stores into the state could otherwise alias the joint's constants. */
static inline __attribute__((always_inline)) void chain_rne_dh(Chain *c, const ChainRneJoint *jt, ChainRneLink *L,
                                                               double cq, double sq, double qd, double qdd)
{
    ChainV2 C = {cq, cq}, S = {sq, sq};
    ChainDhRot t = {jt->perm[0], jt->perm[1], jt->perm[2], jt->ps0 * C, jt->ps0 * S, jt->ps1 * C, jt->ps1 * S,
                    jt->ps2};
    L->rot[0] = t.cs0, L->rot[1] = t.ss0, L->rot[2] = t.cs1, L->rot[3] = t.ss1;
    int p = jt->parent;
    ChainV2 W0, W1, W2;     /* (w_k, wd_k) */
    double a0, a1, a2;
    double cs0 = t.cs0[0], ss0 = t.ss0[0], cs1 = t.cs1[0], ss1 = t.ss1[0], s2 = t.s2[0];
    if (p < 0) {
        /* the base is at rest: w = qd z, wd = qdd z, a = R^T (-g) */
        const double *g = c->a0;
        a0 = cs0 * g[t.k0] + ss1 * g[t.k1], a1 = cs1 * g[t.k1] - ss0 * g[t.k0], a2 = s2 * g[t.k2];
        W0 = (ChainV2){0, 0}, W1 = (ChainV2){0, 0}, W2 = (ChainV2){qd, qdd};
    } else {
        const ChainRneLink *P = &c->rne[p];
        const ChainV2 *V = P->ww;
        double ap[3];
        if (jt->p0_zero) {
            ap[0] = P->a[0], ap[1] = P->a[1], ap[2] = P->a[2];
        } else {
            /* acceleration of this joint's origin, parent frame: a_p + wd_p x r + w_p x (w_p x r) */
            const ChainV2 *r = jt->p02;
            ChainV2 X0 = V[1] * r[2] - V[2] * r[1], X1 = V[2] * r[0] - V[0] * r[2], X2 = V[0] * r[1] - V[1] * r[0];
            double w0 = V[0][0], w1 = V[1][0], w2 = V[2][0];
            ap[0] = P->a[0] + X0[1] + (w1 * X2[0] - w2 * X1[0]);
            ap[1] = P->a[1] + X1[1] + (w2 * X0[0] - w0 * X2[0]);
            ap[2] = P->a[2] + X2[1] + (w0 * X1[0] - w1 * X0[0]);
        }
        ChainV2 U0 = t.cs0 * V[t.k0] + t.ss1 * V[t.k1], U1 = t.cs1 * V[t.k1] - t.ss0 * V[t.k0];
        ChainV2 U2 = t.s2 * V[t.k2];
        a0 = cs0 * ap[t.k0] + ss1 * ap[t.k1], a1 = cs1 * ap[t.k1] - ss0 * ap[t.k0], a2 = s2 * ap[t.k2];
        /* revolute about z: w = u + qd z, wd = ud + qdd z + u x qd z */
        W0 = U0 + (ChainV2){0, U1[0] * qd}, W1 = U1 - (ChainV2){0, U0[0] * qd}, W2 = U2 + (ChainV2){qd, qdd};
    }
    /* f = m a + wd x mc + w x (w x mc);  n = Io wd + w x Io w + mc x a  (about the link origin) */
    const ChainV2 *I = jt->Io2;
    double m = jt->mass, w0 = W0[0], w1 = W1[0], w2 = W2[0];
    ChainV2 I0, I1, I2;                                            /* (Io w, Io wd) */
    if (jt->io_diag) {
        I0 = I[0] * W0, I1 = I[3] * W1, I2 = I[5] * W2;
    } else {
        I0 = I[0] * W0 + I[1] * W1 + I[2] * W2;
        I1 = I[1] * W0 + I[3] * W1 + I[4] * W2;
        I2 = I[2] * W0 + I[4] * W1 + I[5] * W2;
    }
    ChainV2 *F = L->fn;                                            /* (f, n) */
    if (jt->mc_zero) {
        /* f = m a, n = Io wd + w x Io w */
        F[0] = (ChainV2){m * a0, I0[1] + (w1 * I2[0] - w2 * I1[0])};
        F[1] = (ChainV2){m * a1, I1[1] + (w2 * I0[0] - w0 * I2[0])};
        F[2] = (ChainV2){m * a2, I2[1] + (w0 * I1[0] - w1 * I0[0])};
    } else {
        const ChainV2 *h = jt->mc2;
        double h0 = h[0][0], h1 = h[1][0], h2 = h[2][0];
        /* Y = (w x mc, wd x mc); P = (w x mc, Io w); G = (wd x mc, Io wd); Z = w x P */
        ChainV2 Y0 = W1 * h[2] - W2 * h[1], Y1 = W2 * h[0] - W0 * h[2], Y2 = W0 * h[1] - W1 * h[0];
        ChainV2 P0 = {Y0[0], I0[0]}, P1 = {Y1[0], I1[0]}, P2 = {Y2[0], I2[0]};
        ChainV2 G0 = {Y0[1], I0[1]}, G1 = {Y1[1], I1[1]}, G2 = {Y2[1], I2[1]};
        ChainV2 Z0 = w1 * P2 - w2 * P1, Z1 = w2 * P0 - w0 * P2, Z2 = w0 * P1 - w1 * P0;
        F[0] = G0 + Z0 + (ChainV2){m * a0, h1 * a2 - h2 * a1};
        F[1] = G1 + Z1 + (ChainV2){m * a1, h2 * a0 - h0 * a2};
        F[2] = G2 + Z2 + (ChainV2){m * a2, h0 * a1 - h1 * a0};
    }
    L->ww[0] = W0, L->ww[1] = W1, L->ww[2] = W2;
    L->a[0] = a0, L->a[1] = a1, L->a[2] = a2;
}

/* The backward step of a DH-like joint: tau = n . z; the parent gets (R f, R n + r x R f). */
static inline __attribute__((always_inline)) void chain_rne_dh_back(Chain *c, const ChainRneJoint *jt,
                                                                    const ChainRneLink *L, double *tau)
{
    const ChainV2 *F = L->fn, *t = L->rot;
    int p = jt->parent;
    *tau = F[2][1];
    if (p < 0) return;
    ChainV2 P[3];
    P[jt->perm[0]] = t[0] * F[0] - t[1] * F[1];
    P[jt->perm[1]] = t[3] * F[0] + t[2] * F[1];
    P[jt->perm[2]] = jt->ps2 * F[2];
    ChainV2 *Fp = c->rne[p].fn;
    if (jt->p0_zero) {
        Fp[0] += P[0], Fp[1] += P[1], Fp[2] += P[2];
    } else {
        const double *r = jt->p0;
        double f0 = P[0][0], f1 = P[1][0], f2 = P[2][0];
        Fp[0] += P[0] + (ChainV2){0, r[1] * f2 - r[2] * f1};
        Fp[1] += P[1] + (ChainV2){0, r[2] * f0 - r[0] * f2};
        Fp[2] += P[2] + (ChainV2){0, r[0] * f1 - r[1] * f0};
    }
}

/* Recursive Newton-Euler in link frames: tau = M(q) qdd + h(q, qd). Gravity enters as a base acceleration -g.
 * DH-like joints take chain_rne_dh, the others chain_rne_general; both keep the link's state in its own frame, so
 * they mix freely along a chain or tree. */
int chain_inverse_dynamics(void *s, const double *q, const double *qd, const double *qdd, double *tau)
{
    Chain *c = s;
    int n = c->n;
    const ChainCache *e = chain_cache_find(c, q);
    if (!e) {
        double cq[N_MAX], sq[N_MAX];
        chain_trig(c, q, cq, sq);
        e = chain_cache_put(c, q, cq, sq);
    }
    for (int i = 0; i < n; i++) {
        const ChainRneJoint *jt = &c->rj[i];
        if (jt->dh) chain_rne_dh(c, jt, &c->rne[i], e->cq[i], e->sq[i], qd[i], qdd[i]);
        else chain_rne_general(c, i, q[i], e->cq[i], e->sq[i], qd[i], qdd[i]);
    }
    for (int i = n - 1; i >= 0; i--) {
        const ChainRneJoint *jt = &c->rj[i];
        if (jt->dh) chain_rne_dh_back(c, jt, &c->rne[i], &tau[i]);
        else chain_rne_general_back(c, i, &tau[i]);
    }
    return MODEL_OK;
}

int chain_bias(void *s, const double *q, const double *qd, double *h)
{
    Chain *c = s;
    return chain_inverse_dynamics(s, q, qd, c->zero, h);
}

/* Composite rigid body algorithm in the base frame: each subtree's mass, first moment and inertia about the
 * base origin; column i is the momentum of subtree i under unit qd_i, projected on the joints above it. */
int chain_mass_matrix(void *s, const double *q, double *M)
{
    Chain *c = s;
    int n = c->n;
    chain_fk_world(c, q);
    for (int i = 0; i < n; i++) {
        const ChainJoint *jt = &c->j[i];
        double cw[3], t[3], RI[9], Rt[9];
        m3_mulv(t, c->Rw[i], jt->com);
        v3_add(cw, c->pw[i], t);
        m3_mul(RI, c->Rw[i], jt->Ic);
        m3_transpose(Rt, c->Rw[i]);
        m3_mul(c->cJ[i], RI, Rt);
        double m = jt->mass, cc = v3_dot(cw, cw);
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) c->cJ[i][3 * r + k] += m * ((r == k ? cc : 0.0) - cw[r] * cw[k]);
        c->cm[i] = m;
        v3_scale(c->ch[i], cw, m);
    }
    for (int i = n - 1; i >= 0; i--) {
        int p = c->j[i].parent;
        if (p < 0) continue;
        c->cm[p] += c->cm[i];
        v3_add(c->ch[p], c->ch[p], c->ch[i]);
        for (int k = 0; k < 9; k++) c->cJ[p][k] += c->cJ[i][k];
    }
    for (int i = 0; i < n; i++) {
        m3_mulv(c->zw[i], c->Rw[i], c->j[i].axis);
        v3_cross(c->pzw[i], c->pw[i], c->zw[i]);
    }
    memset(M, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++) {
        double P[3], Lm[3], t[3];
        const double *z = c->zw[i];
        if (c->j[i].revolute) {
            const double *vO = c->pzw[i];         /* velocity of the point at the base origin: p x z */
            v3_cross(t, z, c->ch[i]);
            v3_scale(P, vO, c->cm[i]);
            v3_add(P, P, t);                      /* P = m vO + w x h */
            m3_mulv(Lm, c->cJ[i], z);
            v3_cross(t, c->ch[i], vO);
            v3_add(Lm, Lm, t);                    /* L = J w + h x vO */
        } else {
            v3_scale(P, z, c->cm[i]);
            v3_cross(Lm, c->ch[i], z);
        }
        for (int k = i; k >= 0; k = c->j[k].parent) {
            /* revolute: z_k . (L - p_k x P), the moment about joint k's origin, = z_k . L + P . (p_k x z_k) */
            double mki = c->j[k].revolute ? v3_dot(c->zw[k], Lm) + v3_dot(P, c->pzw[k]) : v3_dot(c->zw[k], P);
            M[k * n + i] = mki;
            M[i * n + k] = mki;
        }
    }
    return MODEL_OK;
}

/* qdd = M^-1 (tau - h) by Cholesky. */
int chain_forward_dynamics(void *s, const double *q, const double *qd, const double *tau, double *qdd)
{
    Chain *c = s;
    int n = c->n;
    chain_mass_matrix(s, q, c->M);
    chain_bias(s, q, qd, c->h);
    for (int i = 0; i < n; i++) qdd[i] = tau[i] - c->h[i];
    return spd_solve(c->M, qdd, n, n, 0);
}

/* Seed 002 eqs. 2.5-2.6 (ERRATA V2-V4): with C the powered and N the unpowered joints,
 *   H_NN qdd_N = P_N - h_N - H_NC qdd_C,      P_C = H_CC qdd_C + H_CN qdd_N + h_C.
 * In: qdd[C], tau[N]. Out: qdd[N], tau[C]. */
int chain_semi_inverse(void *s, const double *q, const double *qd, double *qdd, double *tau)
{
    Chain *c = s;
    int n = c->n, st;
    if (c->nn == 0) return chain_inverse_dynamics(s, q, qd, qdd, tau);
    chain_mass_matrix(s, q, c->M);
    chain_bias(s, q, qd, c->h);
    for (int a = 0; a < c->nn; a++) {
        int ia = c->idx_n[a];
        for (int b = 0; b < c->nn; b++) c->Mnn[a * N_MAX + b] = c->M[ia * n + c->idx_n[b]];
        double r = tau[ia] - c->h[ia];
        for (int k = 0; k < c->nc; k++) r -= c->M[ia * n + c->idx_c[k]] * qdd[c->idx_c[k]];
        c->v[a] = r;
    }
    if ((st = spd_solve(c->Mnn, c->v, c->nn, N_MAX, 0)) < 0) return st;
    for (int a = 0; a < c->nn; a++) qdd[c->idx_n[a]] = c->v[a];
    for (int k = 0; k < c->nc; k++) {
        int ic = c->idx_c[k];
        double t = c->h[ic];
        for (int j = 0; j < n; j++) t += c->M[ic * n + j] * qdd[j];
        tau[ic] = t;
    }
    return MODEL_OK;
}

/* The RNE's constants of joint i (after chain_setup_joint). */
void chain_rne_setup(ChainRneJoint *rj, const ChainJoint *jt)
{
    static const int io_k[6] = {0, 1, 2, 4, 5, 8};
    rj->dh = jt->dh;
    rj->parent = jt->parent;
    rj->mass = jt->mass;
    for (int k = 0; k < 3; k++) {
        rj->perm[k] = jt->perm[k];
        rj->p0[k] = jt->p0[k];
        rj->mc2[k] = (ChainV2){jt->mc[k], jt->mc[k]};
        rj->p02[k] = (ChainV2){jt->p0[k], jt->p0[k]};
    }
    rj->p0_zero = jt->p0[0] == 0 && jt->p0[1] == 0 && jt->p0[2] == 0;
    rj->mc_zero = jt->mc[0] == 0 && jt->mc[1] == 0 && jt->mc[2] == 0;
    rj->io_diag = jt->Io[1] == 0 && jt->Io[2] == 0 && jt->Io[5] == 0;
    rj->ps0 = (ChainV2){jt->psign[0], jt->psign[0]};
    rj->ps1 = (ChainV2){jt->psign[1], jt->psign[1]};
    rj->ps2 = (ChainV2){jt->psign[2], jt->psign[2]};
    for (int k = 0; k < 6; k++) rj->Io2[k] = (ChainV2){jt->Io[io_k[k]], jt->Io[io_k[k]]};
}
