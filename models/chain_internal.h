/* chain_internal.h — the chain back-end's state (Chain, its per-joint constants and its cache of joint values) and
 * the calls its files share: chain.c (description, create, cache, FK, Jacobian), chain_ik.c (inverse kinematics),
 * chain_rne.c (dynamics), chain_sing.c (singularity measure). Only models/chain*.c include it. */
#ifndef IRL_CHAIN_INTERNAL_H
#define IRL_CHAIN_INTERNAL_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "chain.h"
#include "geom.h"

#define N_MAX MODEL_MAX_DOF
#define CHAIN_FO_MAX 8 /* joints on the base-to-tool path the first-order singularity bound handles */
#define CHAIN_FO_REMAKE 0.05 /* its K is remade at a Weyl reference farther than this (sum of |q_w - q_K|) */

/* Two doubles operated on together (GCC vector extension, compiled for the baseline x86-64); the RNE pairs w with wd and f with n,
 * which every rotation and several cross products treat alike. */
typedef double ChainV2 __attribute__((vector_size(16)));
/* Four doubles operated on together (compiled for the baseline x86-64, two SSE2 halves): the FK keeps a rotation as
 * its three columns and a position, lane 3 unused. Never passed by value across a call. */
typedef double ChainV4 __attribute__((vector_size(32)));

/* Per-joint constants, precomputed so the hot loops only combine them with cos q / sin q. */
typedef struct {
    int parent;
    int revolute;
    double axis[3];   /* unit axis in the joint (= link) frame */
    double p0[3];     /* joint origin in the parent link frame */
    double R0a[3];    /* origin_R * axis: the axis in the parent frame (prismatic translation direction) */
    /* Revolute: rotation of the link frame in the parent frame R(q) = C + cos q (A - C) + sin q B, with
     * A = R0, B = R0 [axis]x, C = R0 axis axis^T (Rodrigues, premultiplied by the fixed origin rotation).
     * Prismatic: R = A = R0. */
    double AmC[9], B[9], C[9], A[9];
    double mass;
    double mc[3];     /* mass * centre of mass, link frame */
    double com[3];
    double Ic[9];     /* inertia about the COM, link frame */
    double Io[9];     /* inertia about the link frame origin, link frame */
    double qmin, qmax;
    /* DH-like joint (revolute about z, origin rotation a signed permutation to 1e-15, as Rx(+-90 deg) is): the
     * world rotation is then (R_parent with columns permuted and signed) Rz(q), 12 multiplications instead of
     * 45. Column k of R_parent A is psign[k] times column perm[k] of R_parent. */
    int dh;
    int perm[3];
    double psign[3];
} ChainJoint;

/* The RNE's constants of one joint (chain_rne_setup), kept apart from ChainJoint so the loops of the other
 * operations keep its layout. dh: the joint takes the DH path (ChainJoint.dh). The DH path's constants, each broadcast to both
 * halves of a pair: ps0, ps1, ps2 = psign[0], psign[1], psign[2]; Io2 = Io[0], Io[1], Io[2], Io[4], Io[5], Io[8]
 * (Io is symmetric); mc2 = m c; p02 = p0. p0_zero, mc_zero, io_diag: p0 or m c is exactly (0, 0, 0), Io is exactly
 * diagonal, so the terms they would multiply are exactly 0 and are skipped. */
typedef struct {
    int dh, parent, perm[3];
    int p0_zero, mc_zero, io_diag;
    double mass, p0[3];
    ChainV2 ps0, ps1, ps2, Io2[6], mc2[3], p02[3];
} ChainRneJoint;

/* The RNE's state of one link, in the link's frame. Paired so that the DH path turns both halves of a pair with one
 * 2-wide operation. */
typedef struct {
    ChainV2 ww[3];  /* (w_k, wd_k): angular velocity and acceleration */
    ChainV2 fn[3];  /* (f_k, n_k): force on the link from its parent, and moment about the link origin */
    double a[3];    /* acceleration of the link origin */
    ChainV2 rot[4]; /* DH path: the rotation's cs0, ss0, cs1, ss1 (ChainDhRot) for the backward pass */
} ChainRneLink;


/* Joint values met recently (IK answers, dynamics and singularity calls), with chain_trig's cos/sin of each joint
 * value and, when has_world, the world transforms chain_fk_world_trig makes of them: a call at a q equal bit for bit
 * to an entry's reuses them and gets the very bits it would have computed (the dry-run evaluates the dynamics and
 * the singularity measure at the IK answer of the cycle before). */
#define CHAIN_NCACHE 3

/* One joint of the IK's base-to-tool path (chain_ik_pose_error): its index i, its kind (CHAIN_IK_*) and, for a
 * DH-like joint, the parent's columns its rotation combines with cos/sin, signs folded in (u, v, w: 0..2 = column
 * k, 3..5 = minus column k - 3: psign times column perm), and its offset p0 with the mask om of its nonzero
 * components (bit k: p0[k] != 0). */
enum { CHAIN_IK_GENERAL, CHAIN_IK_DH, CHAIN_IK_DH_I, CHAIN_IK_DH_XP, CHAIN_IK_DH_XM };
typedef struct {
    int i, kind, u, v, w, om;
    int code;   /* a DH-like joint's kind and om as 8 (kind - CHAIN_IK_DH) + om (chain_dh_step_sw), else -1 */
    double o[3];
} ChainIkLink;
typedef struct {
    int valid, has_world;
    int shifted;             /* an IK point whose cos/sin are chain_trig_near's (never valid in the cache) */
    double q[N_MAX], cq[N_MAX], sq[N_MAX];
    double Rw[N_MAX][9], pw[N_MAX][3];
} ChainCache;

typedef struct {
    int n;
    ChainJoint j[N_MAX];
    double a0[3];            /* base acceleration that stands in for gravity: -g */
    double gravity[3];
    int tool_link;
    double tool_p[3], tool_R[9];
    int tool_R_identity;     /* tool_R is exactly I */
    double char_len;         /* length that normalises the Jacobian's position rows (singularity measure) */
    int ik_max_iter;
    double ik_tol;
    ChainIkStats ik_stats;
    int nc, nn;              /* powered / unpowered joint counts */
    int idx_c[N_MAX], idx_n[N_MAX];

    /* workspace: relative and world transforms */
    double Rrel[N_MAX][9], rrel[N_MAX][3];
    double Rw[N_MAX][9], pw[N_MAX][3];
    /* RNE */
    ChainRneJoint rj[N_MAX];
    ChainRneLink rne[N_MAX];
    double zero[N_MAX];
    /* CRBA composites, world frame about the base origin */
    double cm[N_MAX], ch[N_MAX][3], cJ[N_MAX][9];
    double zw[N_MAX][3], pzw[N_MAX][3];  /* world joint axes z, p x z */
    double M[N_MAX * N_MAX], h[N_MAX], v[N_MAX];
    double J[6 * N_MAX];
    double qtry[N_MAX];
    ChainCache cache[CHAIN_NCACHE];
    int cache_last;                    /* the entry written last */
    /* the last IK answer minus its caller's seed, to add to the next seed (chain_ik_seed), when ik_ref_corr_ok: an
     * answer depends on the IK calls before it and on nothing else (not on the dynamics or singularity calls that
     * fill the cache in between: the dry-run makes those on a twin model when it pipelines) */
    int ik_ref_corr_ok;
    double ik_ref_corr[N_MAX];
    /* the Newton path's kept factorisation (chain_ik_factor): the tool Jacobian ik_J (rows x n) at ik_lu_q, factored
     * for ik_lu_rows rows (0: none kept): J^-1 by columns for a square J, else a Cholesky factor; later calls near
     * ik_lu_q take chord steps with it */
    int ik_lu_rows;
    double ik_lu_q[N_MAX], ik_lu[36], ik_J[6 * N_MAX];
    ChainCache ik_work;      /* the IK's seed and every other trial point (the rest go into the answer's entry) */
    /* the IK's anchor, when ik_anc_ok: the last point whose cos/sin it took from chain_trig; its other points near
     * it take theirs from it (chain_trig_near) */
    int ik_anc_ok;
    double ik_anc_q[N_MAX], ik_anc_c[N_MAX], ik_anc_s[N_MAX];
    /* the target orientation of the last call with one (quaternion bits ik_quat, its rotation ik_Rt), when
     * ik_quat_ok: a call with the same bits skips the normalisation and quat_to_m3 */
    int ik_quat_ok;
    double ik_quat[4], ik_Rt[9];
    int ik_np;               /* the joints from the base to the tool link, base first (chain_ik_pose_error) */
    ChainIkLink ik_link[N_MAX];
    ChainIkLink fk_link[N_MAX]; /* every joint's, by index (chain_fk_world_trig) */
    int ik_tool_p_zero;      /* tool_p is exactly (0, 0, 0) */
    double ik_qmin[N_MAX], ik_qmax[N_MAX]; /* the joint limits, contiguous */
    double Mnn[N_MAX * N_MAX]; /* H_NN of the semi-inverse problem, leading dimension N_MAX */
    gsl_matrix *L6;          /* 6 x 6, IK normal equations */
    gsl_vector *y6;
    /* singularity measure: one-sided Jacobi SVD of the normalised Jacobian, warm-started from the last V; the last
     * matrix decomposed (rows x n), its extreme singular values, Frobenius norm and measure (the skip's bound) */
    double sv_B[6][N_MAX], sv_V[6][6];
    int sv_posonly;
    int sv_ref_ok;           /* the last decomposition: its matrix, measure, V's distance from orthogonal */
    double sv_Aref[6 * N_MAX], sv_mref, sv_eta;
    int sv_w_ok;             /* the Weyl reference: a matrix with bounds on its true extreme singular values */
    double sv_Aw[6 * N_MAX], sv_iv[4], sv_fw; /* sigma_min in [iv0, iv1], sigma_max in [iv2, iv3]; |Aw|_F */
    double sv_qw[N_MAX];     /* the joint values the Weyl reference was made at */
    /* the Lipschitz bound: |A(q) - A(q')|_F <= sum_i sv_lip[i] |q_i - q'_i| anywhere (chain_sing_lipschitz);
     * sv_lip_ok = 0 when the chain has no such bound (a prismatic joint between base and tool) */
    int sv_lip_ok;
    double sv_lip[N_MAX];
    /* the first-order bound (chain_sing_first_order): |A(q) - A_w|_F <= sqrt(dq^T K dq) + a second-order rest, K the
     * Gram matrix of the derivatives dA/dq_i at q_K (from the Weyl reference's matrix then), the rest from the
     * constants sv_M (|d2A/dq_i dq_k|_F <= M_ik anywhere). Indices are positions on the base-to-tool path
     * (sv_path, base first); sv_fo_ok = 0 when the chain has no such bound (no Lipschitz constants, fewer than 6
     * joints, more than CHAIN_FO_MAX on the path, or a path joint numbered before its parent) */
    int sv_fo_ok, sv_np, sv_path[CHAIN_FO_MAX];
    double sv_M[CHAIN_FO_MAX][CHAIN_FO_MAX];
    int sv_k_ok;             /* sv_K, sv_kd, sv_qk, sv_fk are those of q_K */
    double sv_K[CHAIN_FO_MAX][CHAIN_FO_MAX], sv_kd[CHAIN_FO_MAX], sv_qk[CHAIN_FO_MAX], sv_fk; /* kd_a = sqrt(K_aa) */
    double sv_K2[CHAIN_FO_MAX][CHAIN_FO_MAX]; /* 2 K */
    double sv_mu[CHAIN_FO_MAX]; /* sqrt(max_b M_ab): M_ab <= mu_a mu_b */
    int sv_m_ok;             /* sv_dk = sum_a mu_a |qw_a - qk_a| for the present Weyl reference and q_K */
    double sv_dk;
    long sv_stats[7];        /* chain_sing_stats */
} Chain;

/* Relative transform of joint i at q (cq, sq: cos q, sin q for a revolute joint): link frame i in the parent
 * frame. */
static inline void chain_rel_trig(Chain *c, int i, double q, double cq, double sq)
{
    const ChainJoint *jt = &c->j[i];
    double *R = c->Rrel[i], *r = c->rrel[i];
    if (jt->revolute) {
        for (int k = 0; k < 9; k++) R[k] = jt->C[k] + cq * jt->AmC[k] + sq * jt->B[k];
        v3_copy(r, jt->p0);
    } else {
        memcpy(R, jt->A, sizeof jt->A);
        r[0] = jt->p0[0] + q * jt->R0a[0];
        r[1] = jt->p0[1] + q * jt->R0a[1];
        r[2] = jt->p0[2] + q * jt->R0a[2];
    }
}

/* Joint i's world transform (Rw[i], pw[i]) from its parent's when it is not DH-like: its relative transform
 * (chain_rel_trig) composed by the 3 x 3 products. */
static inline void chain_world_step_general(Chain *c, int i, const double *q, const double *cq, const double *sq,
                                            double (*restrict Rw)[9], double (*restrict pw)[3])
{
    int p = c->j[i].parent;
    chain_rel_trig(c, i, q[i], cq[i], sq[i]);
    if (p < 0) {
        memcpy(Rw[i], c->Rrel[i], 9 * sizeof(double));
        v3_copy(pw[i], c->rrel[i]);
    } else {
        double t[3];
        m3_mul(Rw[i], Rw[p], c->Rrel[i]);
        m3_mulv(t, Rw[p], c->rrel[i]);
        v3_add(pw[i], pw[p], t);
    }
}

/* One DH-like joint of the column-vector FK (chain_ik_pose_error, chain_fk_world_trig): the parent's rotation
 * columns *P0, *P1, *P2 and position *x (one lane per row) become the joint's, at cos/sin ci, si: the joint's
 * rotation is the parent's with columns permuted and signed (U, V, W), times Rz(q). The offset's zero components
 * are left out (they add +-0: only the sign of a zero result could differ). */
static inline __attribute__((always_inline)) void chain_dh_step_c(const ChainIkLink *L, double ci, double si,
                                                                  ChainV4 *P0, ChainV4 *P1, ChainV4 *P2, ChainV4 *x,
                                                                  int om, int kind)
{
    ChainV4 N0, N1, N2;
    if (om & 1) *x = *x + *P0 * L->o[0];
    if (om & 2) *x = *x + *P1 * L->o[1];
    if (om & 4) *x = *x + *P2 * L->o[2];
    if (kind == CHAIN_IK_DH_XM) {          /* origin Rx(-90 deg): U = col 0, V = -col 2, W = col 1 */
        N0 = ci * *P0 - si * *P2;
        N1 = -(ci * *P2) - si * *P0;
        N2 = *P1;
    } else if (kind == CHAIN_IK_DH_XP) {   /* origin Rx(+90 deg): U = col 0, V = col 2, W = -col 1 */
        N0 = ci * *P0 + si * *P2;
        N1 = ci * *P2 - si * *P0;
        N2 = -*P1;
    } else if (kind == CHAIN_IK_DH_I) {    /* origin I */
        N0 = ci * *P0 + si * *P1;
        N1 = ci * *P1 - si * *P0;
        N2 = *P2;
    } else {                               /* any other signed permutation */
        ChainV4 P[6] = {*P0, *P1, *P2, -*P0, -*P1, -*P2};
        ChainV4 U = P[L->u], V = P[L->v];
        N0 = ci * U + si * V;
        N1 = ci * V - si * U;
        N2 = P[L->w];
    }
    *P0 = N0, *P1 = N1, *P2 = N2;
}

static inline __attribute__((always_inline)) void chain_dh_step(const ChainIkLink *L, double ci, double si,
                                                                ChainV4 *P0, ChainV4 *P1, ChainV4 *P2, ChainV4 *x)
{
    chain_dh_step_c(L, ci, si, P0, P1, P2, x, L->om, L->kind);
}

/* chain_dh_step by one jump on L->code to a copy compiled for its kind and offset mask: the same operations without
 * the tests of om's bits and of the kind. Returns 0 for a joint that is not DH-like (code -1: nothing done). */
static inline __attribute__((always_inline)) int chain_dh_step_sw(const ChainIkLink *L, double ci, double si,
                                                                   ChainV4 *P0, ChainV4 *P1, ChainV4 *P2, ChainV4 *x)
{
#define CHAIN_DH_CASE(k, o) \
    case 8 * ((k) - CHAIN_IK_DH) + (o): chain_dh_step_c(L, ci, si, P0, P1, P2, x, o, k); return 1;
#define CHAIN_DH_CASES(k) \
    CHAIN_DH_CASE(k, 0) CHAIN_DH_CASE(k, 1) CHAIN_DH_CASE(k, 2) CHAIN_DH_CASE(k, 3) \
    CHAIN_DH_CASE(k, 4) CHAIN_DH_CASE(k, 5) CHAIN_DH_CASE(k, 6) CHAIN_DH_CASE(k, 7)
    switch (L->code) {
        CHAIN_DH_CASES(CHAIN_IK_DH)
        CHAIN_DH_CASES(CHAIN_IK_DH_I)
        CHAIN_DH_CASES(CHAIN_IK_DH_XP)
        CHAIN_DH_CASES(CHAIN_IK_DH_XM)
    default: return 0;
    }
#undef CHAIN_DH_CASES
#undef CHAIN_DH_CASE
}

/* 1 when a and b (n doubles) are equal bit for bit: the XORs of their 64-bit patterns, two joints per test (a miss
 * usually differs in the first pair; a hit must compare every joint). */
static inline int chain_same_bits(const double *a, const double *b, int n)
{
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t a0, a1, b0, b1;
        memcpy(&a0, a + i, 8), memcpy(&a1, a + i + 1, 8), memcpy(&b0, b + i, 8), memcpy(&b1, b + i + 1, 8);
        if ((a0 ^ b0) | (a1 ^ b1)) return 0;
    }
    if (i < n) {
        uint64_t a0, b0;
        memcpy(&a0, a + i, 8), memcpy(&b0, b + i, 8);
        return a0 == b0;
    }
    return 1;
}

/* World pose of the tool point from the world transforms Rw, pw. */
static inline void chain_tool_pose_at(const Chain *c, const double (*Rw)[9], const double (*pw)[3], double pos[3],
                                      double R[9])
{
    int l = c->tool_link;
    if (c->tool_p[0] == 0 && c->tool_p[1] == 0 && c->tool_p[2] == 0) {
        v3_copy(pos, pw[l]);   /* pw + R 0: the same up to the sign of a zero */
    } else {
        double t[3];
        m3_mulv(t, Rw[l], c->tool_p);
        v3_add(pos, pw[l], t);
    }
    if (R) m3_mul(R, Rw[l], c->tool_R);
}

/* chain.c: cos/sin of every joint value (the only place they are computed, so a q gets the same bits wherever it is
 * met); the cache of joint values; world transforms; the tool pose; Jacobians. */
void chain_trig(const Chain *c, const double *q, double *cq, double *sq);
int chain_trig_near(const Chain *c, const double *qa, const double *ca, const double *sa, const double *q, double *cq,
                    double *sq);
ChainCache *chain_cache_find(Chain *c, const double *q);
ChainCache *chain_cache_put(Chain *c, const double *q, const double *cq, const double *sq);
void chain_fk_world_trig(Chain *c, const double *q, const double *cq, const double *sq, double (*restrict Rw)[9],
                         double (*restrict pw)[3]);
void chain_fk_world(Chain *c, const double *q);
void chain_tool_pose(const Chain *c, double pos[3], double R[9]);
void chain_jac_rows(const Chain *c, const double (*Rw)[9], const double (*pw)[3], int link, const double x[3],
                    int rows, double scale, double *J);
void chain_jac_world(const Chain *c, int link, const double x[3], double *J);
int chain_fk(void *s, const double *q, int link, double pos[3], double R[9]);
int chain_jacobian(void *s, const double *q, double *J);

/* chain_ik.c */
void chain_ik_setup(Chain *c);
int chain_ik(void *s, const double pos[3], const double quat[4], const double *q_seed, double *q, ModelIkInfo *info);

/* chain_ik_all.c: the ik_all operation */
int chain_ik_all(void *s, const double pos[3], const double quat[4], const double *q_ref, ModelIkSolution *sol,
                 int max, ModelIkWhy *why);

/* chain_rne.c */
void chain_rne_setup(ChainRneJoint *rj, const ChainJoint *jt);
int chain_inverse_dynamics(void *s, const double *q, const double *qd, const double *qdd, double *tau);
int chain_bias(void *s, const double *q, const double *qd, double *h);
int chain_mass_matrix(void *s, const double *q, double *M);
int chain_forward_dynamics(void *s, const double *q, const double *qd, const double *tau, double *qdd);
int chain_semi_inverse(void *s, const double *q, const double *qd, double *qdd, double *tau);

/* chain_sing.c */
void chain_sing_lipschitz(Chain *c);
int chain_singularity(void *s, const double *q, const double band[2], double *measure);

#endif
