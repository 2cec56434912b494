/* chain.c — the `chain` model back-end: kinematics and rigid-body dynamics of any open chain or tree of
 * revolute/prismatic joints (FK, Jacobian, damped-least-squares IK, recursive Newton-Euler, composite-rigid-body
 * mass matrix, forward dynamics, and seed 002's semi-inverse problem for powered/unpowered joints).
 *
 * Everything is allocated in chain_create(); the operations work in the state's workspace and may run in the
 * real-time cycle. See chain.h for the frame conventions; docs/MODELS.md for the singularity measure and IK. */
#include "chain.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"
#include "spd_solve.h"

#define N_MAX MODEL_MAX_DOF
#define CHAIN_FO_MAX 8 /* joints on the base-to-tool path the first-order singularity bound handles */
#define CHAIN_FO_REMAKE 0.05 /* its K is remade at a Weyl reference farther than this (sum of |q_w - q_K|) */

/* Two doubles operated on together (GCC vector extension: SSE2 on x86-64); the RNE pairs w with wd and f with n,
 * which every rotation and several cross products treat alike. */
typedef double ChainV2 __attribute__((vector_size(16)));
/* Four doubles operated on together (AVX in the functions compiled for it, else two SSE2 halves): the IK's tool-pose
 * FK (chain_ik_pose_error) keeps a rotation as its three columns and a position, lane 3 unused. Never passed by
 * value across a call (the ABI of such arguments differs with AVX). */
typedef double ChainV4 __attribute__((vector_size(32)));
#if defined(__SSE2__)
/* The IK's per-joint loops take two joints per SSE2 operation (then the scalar loop does an odd last one). */
#include <emmintrin.h>
#endif

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
 * operations keep its layout. dh: the joint takes the DH path (ChainJoint.dh, unless the parameter rne_fast is 0:
 * then every joint takes the general path, the tests' reference). The DH path's constants, each broadcast to both
 * halves of a pair: ps0, ps1, ps2 = psign[0], psign[1], psign[2]; Io2 = Io[0], Io[1], Io[2], Io[4], Io[5], Io[8]
 * (Io is symmetric); mc2 = m c; p02 = p0. p0_zero, mc_zero, io_diag: p0 or m c is exactly (0, 0, 0), Io is exactly
 * diagonal, so the terms they would multiply are exactly 0 and are skipped. */
typedef struct {
    int dh, parent, perm[3];
    int p0_zero, mc_zero, io_diag;
    double mass, p0[3];
    ChainV2 ps0, ps1, ps2, Io2[6], mc2[3], p02[3];
    /* The AVX path's (chain_rne_avx): 3-vectors in 4 lanes (lane 3 = 0). vperm_f: the lanes (of 32 bits) that
     * reorder v into (v_perm0, v_perm1, v_perm2, 0); vperm_b: the inverse reorder. v_psc = (ps0, ps1, 0, 0), v_psz =
     * (0, 0, ps2, 0), v_pss = (ps1, -ps0, 0, 0). v_r, v_h: p0 and m c, each also as yzx and zxy (the lanes turned
     * once, for cross products). v_id = Io's diagonal, v_io1 = (Io01, Io12, Io20), v_io2 = (Io02, Io10, Io21): Io v =
     * v_id v + v_io1 v_yzx + v_io2 v_zxy lane by lane. */
    int vperm_f[8], vperm_b[8];
    double v_psc[4], v_psz[4], v_pss[4];
    double v_r[3][4], v_h[3][4], v_id[4], v_io1[4], v_io2[4];
} ChainRneJoint;

/* The RNE's state of one link, in the link's frame. Paired so that the DH path turns both halves of a pair with one
 * 2-wide operation. */
typedef struct {
    ChainV2 ww[3];  /* (w_k, wd_k): angular velocity and acceleration */
    ChainV2 fn[3];  /* (f_k, n_k): force on the link from its parent, and moment about the link origin */
    double a[3];    /* acceleration of the link origin */
    ChainV2 rot[4]; /* DH path: the rotation's cs0, ss0, cs1, ss1 (ChainDhRot) for the backward pass */
} ChainRneLink;

/* The AVX path's state of one link, in the link's frame, each 3-vector in 4 lanes (lane 3 = 0): w, wd, a, f, n as
 * in ChainRneLink; cc = (cs0, cs1, s2, 0) and ss = (ss1, -ss0, 0, 0) of the joint's rotation (chain_rne_avx). */
typedef struct {
    double w[4], wd[4], a[4], f[4], n[4], cc[4], ss[4];
} ChainRneV4;

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
    int ik_fast;             /* 1: try the Newton tracking path first (parameter ik_fast, default 1) */
    int ik_track_sse;        /* for tests: the tracking path's SSE2 form even where the CPU has AVX2 */
    ChainIkStats ik_stats;
    int nc, nn;              /* powered / unpowered joint counts */
    int idx_c[N_MAX], idx_n[N_MAX];

    /* workspace: relative and world transforms */
    double Rrel[N_MAX][9], rrel[N_MAX][3];
    double Rw[N_MAX][9], pw[N_MAX][3];
    /* RNE */
    ChainRneJoint rj[N_MAX];
    ChainRneLink rne[N_MAX];
    int rne_all_dh;          /* every joint takes the RNE's DH path */
    int rne_avx;             /* ... in its AVX2 form (chain_rne_avx): the CPU has AVX2 and FMA, parameter rne_avx */
    ChainRneV4 rne4[N_MAX];  /* the AVX form's link states */
    double a0v[4];           /* a0 in 4 lanes */
    double zero[N_MAX];
    /* CRBA composites, world frame about the base origin */
    double cm[N_MAX], ch[N_MAX][3], cJ[N_MAX][9];
    double zw[N_MAX][3], pzw[N_MAX][3];  /* world joint axes z, p x z */
    double M[N_MAX * N_MAX], h[N_MAX], v[N_MAX];
    double J[6 * N_MAX];
    double qtry[N_MAX];
    ChainCache cache[CHAIN_NCACHE];
    int cache_last;                    /* the entry written last */
    int trig_vec;            /* chain_trig takes libmvec's 4-wide cos/sin (chain_trig_vector) */
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
    int sv_skip;             /* parameter singularity_skip (default 1) */
    int sv_pairs;            /* parameter singularity_pairs (default 1; 0: the 6 x 6 SVD on the scalar loops) */
    int sv_refresh;          /* parameter singularity_refresh (default 1; 0: no chain_sing_refresh) */
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
    long sv_stats[8];        /* chain_sing_stats */
    int sv_defer;            /* parameter singularity_defer (default 1) */
    /* singularity_defer's kept cycle (chain_singularity_settle): its q and the warm state it would have started from */
    int sv_pend;
    double sv_pq[N_MAX], sv_pV[6][6], sv_peta;
    long sv_dstats[2];       /* chain_sing_defer_stats */
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

/* The reference for tests (chain_fk_world_test): chain_fk_world_trig as it was before its DH-like joints took
 * chain_dh_step, row by row in scalars, the same bits. */
static void chain_fk_world_trig_ref(Chain *c, const double *q, const double *cq, const double *sq,
                                double (*restrict Rw)[9], double (*restrict pw)[3])
{
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double O3[3] = {0, 0, 0};
    int n = c->n;
    for (int i = 0; i < n; i++) {
        const ChainJoint *jt = &c->j[i];
        int p = jt->parent;
        double *R = Rw[i], *x = pw[i];
        if (jt->dh) {
            const double *Rp = p < 0 ? I3 : Rw[p], *pp = p < 0 ? O3 : pw[p], *o = jt->p0;
            /* row r: u, v, w = the parent's entries in columns perm[0], perm[1], perm[2] (column pointers, stride
             * 3); the signs are folded into cos/sin (a product with +-1 is exact, so the bits are those of
             * ci * (sign u) + si * (sign v)) */
            const double *P0 = Rp + jt->perm[0], *P1 = Rp + jt->perm[1], *P2 = Rp + jt->perm[2];
            double ci = cq[i], si = sq[i], s0 = jt->psign[0], s1 = jt->psign[1], s2 = jt->psign[2];
            double a = s0 * ci, b = s1 * si, cc = s1 * ci, d = s0 * si;
            double x0 = pp[0], x1 = pp[1], x2 = pp[2], o0 = o[0], o1 = o[1], o2 = o[2];
            /* x = pp + Rp o, summed in the order pp + Rp[r][0] o0 + Rp[r][1] o1 + Rp[r][2] o2 with the terms of a
             * zero offset left out (they are +-0: only the sign of a zero result can differ); DH offsets have one
             * or two zero components, often three */
            if (o0 != 0) x0 += Rp[0] * o0, x1 += Rp[3] * o0, x2 += Rp[6] * o0;
            if (o1 != 0) x0 += Rp[1] * o1, x1 += Rp[4] * o1, x2 += Rp[7] * o1;
            if (o2 != 0) x0 += Rp[2] * o2, x1 += Rp[5] * o2, x2 += Rp[8] * o2;
            x[0] = x0, x[1] = x1, x[2] = x2;
#pragma GCC unroll 3
            for (int r = 0; r < 9; r += 3) {
                double u = P0[r], v = P1[r];
                R[r] = a * u + b * v;
                R[r + 1] = cc * v - d * u;
                R[r + 2] = s2 * P2[r];
            }
            continue;
        }
        chain_world_step_general(c, i, q, cq, sq, Rw, pw);
    }
}

/* One DH-like joint of the column-vector FK (chain_ik_pose_error, chain_fk_world_trig): the parent's rotation
 * columns *P0, *P1, *P2 and position *x (one lane per row) become the joint's, at cos/sin ci, si. The bits of
 * chain_fk_world_trig's scalar DH rows: its N0 = a U + b V, N1 = cc V - d U, N2 = s2 W with a = psign[0] ci etc.,
 * and a product with psign = -1 is exact, so (-ci) U is -(ci U) and a + (-b) is a - b bit for bit; the offset's
 * zero components are left out, as there. */
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

/* World transforms of every link into Rw, pw, from q and the cos/sin of each joint value (revolute joints): the
 * workspace c->Rw, c->pw, or the IK's c->ik_work (for its Jacobian). A DH-like joint takes chain_dh_step on its
 * parent's columns (held in registers from the joint before when that is the parent, else read from Rw), the others
 * chain_rel_trig and the 3 x 3 products. */
static inline __attribute__((always_inline)) void chain_fk_world_trig_n(Chain *c, const double *q, const double *cq,
                                                                        const double *sq,
                                                                        double (*restrict Rw)[9],
                                                                        double (*restrict pw)[3])
{
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double O3[3] = {0, 0, 0};
    int n = c->n, held = -2;   /* the link whose columns P0..P2 and position x hold (-1: the base, -2: none) */
    ChainV4 P0 = {0, 0, 0, 0}, P1 = P0, P2 = P0, x = P0;
    for (int i = 0; i < n; i++) {
        const ChainJoint *jt = &c->j[i];
        int p = jt->parent;
        double *R = Rw[i], *y = pw[i];
        if (jt->dh) {
            if (p != held) {
                const double *Rp = p < 0 ? I3 : Rw[p], *pp = p < 0 ? O3 : pw[p];
                P0 = (ChainV4){Rp[0], Rp[3], Rp[6], 0};
                P1 = (ChainV4){Rp[1], Rp[4], Rp[7], 0};
                P2 = (ChainV4){Rp[2], Rp[5], Rp[8], 0};
                x = (ChainV4){pp[0], pp[1], pp[2], 0};
            }
            chain_dh_step(&c->fk_link[i], cq[i], sq[i], &P0, &P1, &P2, &x);
            R[0] = P0[0], R[1] = P1[0], R[2] = P2[0];
            R[3] = P0[1], R[4] = P1[1], R[5] = P2[1];
            R[6] = P0[2], R[7] = P1[2], R[8] = P2[2];
            y[0] = x[0], y[1] = x[1], y[2] = x[2];
            held = i;
            continue;
        }
        chain_world_step_general(c, i, q, cq, sq, Rw, pw);
        held = -2;
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static void chain_fk_world_trig_avx2(Chain *c, const double *q, const double *cq,
                                                                   const double *sq, double (*restrict Rw)[9],
                                                                   double (*restrict pw)[3])
{
    chain_fk_world_trig_n(c, q, cq, sq, Rw, pw);
}
#endif

static void chain_fk_world_trig_sse(Chain *c, const double *q, const double *cq, const double *sq,
                                    double (*restrict Rw)[9], double (*restrict pw)[3])
{
    chain_fk_world_trig_n(c, q, cq, sq, Rw, pw);
}

/* chain_fk_world_trig_n with AVX where the CPU has AVX2 (c->trig_vec), else SSE2: the same bits either way. */
static void chain_fk_world_trig(Chain *c, const double *q, const double *cq, const double *sq,
                                double (*restrict Rw)[9], double (*restrict pw)[3])
{
#if defined(__x86_64__)
    if (c->trig_vec) {
        chain_fk_world_trig_avx2(c, q, cq, sq, Rw, pw);
        return;
    }
#endif
    chain_fk_world_trig_sse(c, q, cq, sq, Rw, pw);
}

#if defined(__x86_64__)
/* glibc's vector math library (libmvec, part of libc6): cos and sin of 4 doubles at once with AVX2, within 4 ulp of
 * the true values (like libm's scalar ones, which are within 1) at about a fifth of their cost. */
#include <immintrin.h>
__attribute__((target("avx2"))) __m256d _ZGVdN4v_cos(__m256d x);
__attribute__((target("avx2"))) __m256d _ZGVdN4v_sin(__m256d x);

/* chain_trig_avx2's blocks for 4 <= n <= 8: one at 0 and one ending at n (straight-line code, the loop's bits) */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void chain_trig_avx2_2(int n,
                                                                                                    const double *q,
                                                                                                    double *cq,
                                                                                                    double *sq)
{
    _mm256_storeu_pd(cq, _ZGVdN4v_cos(_mm256_loadu_pd(q)));
    _mm256_storeu_pd(sq, _ZGVdN4v_sin(_mm256_loadu_pd(q)));
    _mm256_storeu_pd(cq + n - 4, _ZGVdN4v_cos(_mm256_loadu_pd(q + n - 4)));
    _mm256_storeu_pd(sq + n - 4, _ZGVdN4v_sin(_mm256_loadu_pd(q + n - 4)));
}

/* (chain_trig_avx2_2 is the IK's own: this loop stays chain_trig's, so the tests' SSE2 form of the IK, which
 * takes chain_trig, checks it) */
__attribute__((target("avx2"))) static void chain_trig_avx2(int n, const double *q, double *cq, double *sq)
{
    if (n < 4) {
        double x[4] = {0, 0, 0, 0}, co[4], si[4];
        memcpy(x, q, (size_t)n * sizeof *q);
        __m256d v = _mm256_loadu_pd(x);
        _mm256_storeu_pd(co, _ZGVdN4v_cos(v));
        _mm256_storeu_pd(si, _ZGVdN4v_sin(v));
        memcpy(cq, co, (size_t)n * sizeof *q);
        memcpy(sq, si, (size_t)n * sizeof *q);
        return;
    }
    /* blocks of 4, the last one ending at n (overlapping the one before: each lane's value depends on its own
     * argument only, so the overlap is written twice with the same bits) */
    for (int i = 0;; i += 4) {
        if (i > n - 4) i = n - 4;
        __m256d v = _mm256_loadu_pd(q + i);
        _mm256_storeu_pd(cq + i, _ZGVdN4v_cos(v));
        _mm256_storeu_pd(sq + i, _ZGVdN4v_sin(v));
        if (i == n - 4) break;
    }
}
#endif

/* 1 when chain_trig takes libmvec's 4-wide cos/sin: this CPU has AVX2 (fixed for the process, so every model
 * instance, and both stages of a pipelined dry-run, make the same bits). */
static int chain_trig_vector(void)
{
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* cos and sin of every joint value: the only place they are computed for a cache entry or an IK point, so a q
 * gets the same bits wherever it is met. libmvec's where the CPU has AVX2 (c->trig_vec), else libm's. */
static void chain_trig(const Chain *c, const double *q, double *cq, double *sq)
{
#if defined(__x86_64__)
    if (c->trig_vec) {
        chain_trig_avx2(c->n, q, cq, sq);
        return;
    }
#endif
    for (int i = 0; i < c->n; i++) {
        double x = q[i];   /* one value for both calls: the compiler makes them one sincos */
        cq[i] = cos(x);
        sq[i] = sin(x);
    }
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

/* The cache entry of q (equal bit for bit), or NULL; the newest entries first. The first joint's bits are compared
 * first, inline: they reject almost every miss (a hit must compare every joint). */
static ChainCache *chain_cache_find(Chain *c, const double *q)
{
    uint64_t k0;
    memcpy(&k0, q, 8);
    ChainCache *x = &c->cache[c->cache_last];
    for (int k = 0; k < CHAIN_NCACHE; k++) {
        uint64_t x0;
        memcpy(&x0, x->q, 8);
        if (x0 == k0 && x->valid && chain_same_bits(x->q + 1, q + 1, c->n - 1)) return x;
        x = x == c->cache ? x + CHAIN_NCACHE - 1 : x - 1;
    }
    return NULL;
}

/* Store q with chain_trig's cos/sin of it (cq, sq) in the oldest entry; no world transforms yet. A six-joint
 * chain's copies are fixed-size moves (the dry-run's second stage stores every cycle's q this way). */
static inline ChainCache *chain_cache_put(Chain *c, const double *q, const double *cq, const double *sq)
{
    c->cache_last = c->cache_last == CHAIN_NCACHE - 1 ? 0 : c->cache_last + 1;
    ChainCache *e = &c->cache[c->cache_last];
    if (c->n == 6) {
        memcpy(e->q, q, 6 * sizeof(double));
        memcpy(e->cq, cq, 6 * sizeof(double));
        memcpy(e->sq, sq, 6 * sizeof(double));
    } else {
        size_t len = (size_t)c->n * sizeof(double);
        memcpy(e->q, q, len);
        memcpy(e->cq, cq, len);
        memcpy(e->sq, sq, len);
    }
    e->valid = 1;
    e->has_world = 0;
    return e;
}

/* Copy the workspace's world transforms (those of e->q) into the entry. */
static void chain_cache_world(Chain *c, ChainCache *e)
{
    memcpy(e->Rw, c->Rw, (size_t)c->n * sizeof c->Rw[0]);
    memcpy(e->pw, c->pw, (size_t)c->n * sizeof c->pw[0]);
    e->has_world = 1;
}

/* World transforms of every link into the workspace (c->Rw, c->pw), from the cache when q is in it, and kept
 * there. */
static void chain_fk_world(Chain *c, const double *q)
{
    ChainCache *e = chain_cache_find(c, q);
    if (e && e->has_world) {
        memcpy(c->Rw, e->Rw, (size_t)c->n * sizeof c->Rw[0]);
        memcpy(c->pw, e->pw, (size_t)c->n * sizeof c->pw[0]);
        return;
    }
    if (!e) {
        double cq[N_MAX], sq[N_MAX];
        chain_trig(c, q, cq, sq);
        e = chain_cache_put(c, q, cq, sq);
    }
    chain_fk_world_trig(c, q, e->cq, e->sq, c->Rw, c->pw);
    chain_cache_world(c, e);
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

/* World pose of the tool point (after chain_fk_world). */
static void chain_tool_pose(const Chain *c, double pos[3], double R[9])
{
    chain_tool_pose_at(c, (const double (*)[9])c->Rw, (const double (*)[3])c->pw, pos, R);
}

/* FK of one link (-1: the tool point). */
static int chain_fk(void *s, const double *q, int link, double pos[3], double R[9])
{
    Chain *c = s;
    if (link < -1 || link >= c->n) return MODEL_EINVAL;
    chain_fk_world(c, q);
    if (link < 0) {
        chain_tool_pose(c, pos, R);
    } else {
        v3_copy(pos, c->pw[link]);
        if (R) memcpy(R, c->Rw[link], 9 * sizeof(double));
    }
    return MODEL_OK;
}

int chain_fk_all(void *s, const double *q, double *pos, double *R)
{
    Chain *c = s;
    chain_fk_world(c, q);
    memcpy(pos, c->pw, (size_t)c->n * 3 * sizeof(double));
    memcpy(R, c->Rw, (size_t)c->n * 9 * sizeof(double));
    return MODEL_OK;
}

/* Jacobian (rows x n, rows = 6, or 3: the position rows only) of the world point x on link `link` from the world
 * transforms Rw, pw, its position rows multiplied by scale (1: unchanged, the product is exact). */
static inline void chain_jac_rows(const Chain *c, const double (*Rw)[9], const double (*pw)[3], int link,
                                  const double x[3], int rows, double scale, double *J)
{
    int n = c->n;
    memset(J, 0, (size_t)(rows * n) * sizeof(double));
    for (int i = link; i >= 0; i = c->j[i].parent) {
        double z[3], d[3], v[3];
        const double *R = Rw[i];
        if (c->j[i].dh) v3_set(z, R[2], R[5], R[8]); /* axis exactly z: the rotation's last column */
        else m3_mulv(z, R, c->j[i].axis);
        if (c->j[i].revolute) {
            v3_sub(d, x, pw[i]);
            v3_cross(v, z, d);
            J[i] = v[0] * scale, J[n + i] = v[1] * scale, J[2 * n + i] = v[2] * scale;
            if (rows == 6) J[3 * n + i] = z[0], J[4 * n + i] = z[1], J[5 * n + i] = z[2];
        } else {
            J[i] = z[0] * scale, J[n + i] = z[1] * scale, J[2 * n + i] = z[2] * scale;
        }
    }
}

/* Jacobian of the world point x on link `link`, from the world transforms already computed. */
static void chain_jac_world(const Chain *c, int link, const double x[3], double *J)
{
    chain_jac_rows(c, (const double (*)[9])c->Rw, (const double (*)[3])c->pw, link, x, 6, 1.0, J);
}

int chain_point_jacobian(void *s, const double *q, int link, const double point[3], double *J)
{
    Chain *c = s;
    if (link < -1 || link >= c->n) return MODEL_EINVAL;
    chain_fk_world(c, q);
    double x[3], t[3];
    if (link < 0) {
        chain_tool_pose(c, x, NULL);
        link = c->tool_link;
    } else {
        m3_mulv(t, c->Rw[link], point);
        v3_add(x, c->pw[link], t);
    }
    chain_jac_world(c, link, x, J);
    return MODEL_OK;
}

static int chain_jacobian(void *s, const double *q, double *J)
{
    return chain_point_jacobian(s, q, -1, NULL, J);
}

/* One-sided Jacobi (Hestenes) on the k columns of B (each m long, k <= 6): rotates pairs of columns until every
 * pair is orthogonal to m * eps relative, applying the same rotations to the columns of V. Afterwards the column
 * norms are the singular values of the matrix B had on entry (times V's, which stay orthogonal), those below
 * m * eps * |B|_F to that absolute accuracy. Returns the number of sweeps, or -1 when 30 sweeps were not enough. */
static inline __attribute__((always_inline)) int chain_jacobi_sv_n(int m, int k, double B[6][N_MAX],
                                                                     double V[6][6])
{
    double tol = m * 2.220446049250313e-16, frob2 = 0;
    for (int p = 0; p < k; p++)
        for (int i = 0; i < m; i++) frob2 += B[p][i] * B[p][i];
    /* a column below tol * |B|_F is rounding noise (a rank-deficient B): no rotation can make it orthogonal to
     * the others to tol relative, and its norm is a singular value to that noise level already */
    double floor2 = tol * tol * frob2;
    for (int sweep = 1; sweep <= 30; sweep++) {
        int rotated = 0;
        /* squared column norms, exact at the start of each sweep and updated by each rotation (alpha - t gamma,
         * beta + t gamma): one dot product per pair instead of three */
        double nrm[6];
        for (int p = 0; p < k; p++) {
            double a = 0;
#pragma GCC unroll 6
            for (int i = 0; i < m; i++) a += B[p][i] * B[p][i];
            nrm[p] = a;
        }
        for (int p = 0; p < k - 1; p++)
            for (int r = p + 1; r < k; r++) {
                double *bp = B[p], *br = B[r], alpha = nrm[p], beta = nrm[r], gamma = 0;
#pragma GCC unroll 6
                for (int i = 0; i < m; i++) gamma += bp[i] * br[i];
                if (fabs(gamma) <= tol * sqrt(alpha * beta) || alpha <= floor2 || beta <= floor2) continue;
                double zeta = (beta - alpha) / (2 * gamma);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double cs = 1 / sqrt(1 + t * t), sn = cs * t;
#pragma GCC unroll 6
                for (int i = 0; i < m; i++) {
                    double x = bp[i], y = br[i];
                    bp[i] = cs * x - sn * y;
                    br[i] = sn * x + cs * y;
                }
#pragma GCC unroll 6
                for (int i = 0; i < k; i++) {
                    double x = V[p][i], y = V[r][i];
                    V[p][i] = cs * x - sn * y;
                    V[r][i] = sn * x + cs * y;
                }
                nrm[p] = alpha - t * gamma;
                nrm[r] = beta + t * gamma;
                rotated = 1;
            }
        if (!rotated) return sweep;
    }
    return -1;
}

/* The world transforms of q: the cache entry's when q is there with them, else computed (and cached): into the
 * entry itself when q is there without them (an IK answer, or an imported entry), else into the workspace. */
static inline __attribute__((always_inline)) void chain_world(Chain *c, const double *q, const double (**Rw)[9],
                                                              const double (**pw)[3])
{
    ChainCache *e = chain_cache_find(c, q);
    if (e && !e->has_world) {
        chain_fk_world_trig(c, e->q, e->cq, e->sq, e->Rw, e->pw);
        e->has_world = 1;
    }
    if (e) {
        *Rw = (const double (*)[9])e->Rw, *pw = (const double (*)[3])e->pw;
        return;
    }
    chain_fk_world(c, q);
    *Rw = (const double (*)[9])c->Rw, *pw = (const double (*)[3])c->pw;
}

/* The normalised tool Jacobian A (rows x n, row-major) from the world transforms Rw, pw: the geometric Jacobian
 * with its position rows divided by the machine's characteristic length (so metres and radians weigh alike). */
static void chain_sing_matrix(const Chain *c, const double (*Rw)[9], const double (*pw)[3], int rows, double *A)
{
    int l = c->tool_link;
    double x[3], t[3];
    m3_mulv(t, Rw[l], c->tool_p);
    v3_add(x, pw[l], t);
    if (rows == 6 && c->sv_fo_ok && c->sv_np == c->n) {
        /* every joint revolute and on the path: chain_jac_rows' columns, every entry written (no clearing) */
        int n = c->n;
        double scale = 1.0 / c->char_len;
        for (int i = 0; i < n; i++) {
            double z[3], d[3], v[3];
            const double *R = Rw[i];
            if (c->j[i].dh) v3_set(z, R[2], R[5], R[8]);
            else m3_mulv(z, R, c->j[i].axis);
            v3_sub(d, x, pw[i]);
            v3_cross(v, z, d);
            A[i] = v[0] * scale, A[n + i] = v[1] * scale, A[2 * n + i] = v[2] * scale;
            A[3 * n + i] = z[0], A[4 * n + i] = z[1], A[5 * n + i] = z[2];
        }
        return;
    }
    chain_jac_rows(c, Rw, pw, l, x, rows, 1.0 / c->char_len, A);
}

/* sigma_min / sigma_max of A (rows x n) by a one-sided Jacobi SVD of the k = min(rows, n) columns of A V (of A^T V
 * when n > rows), warm-started from V (k x k, the right singular vectors of the last matrix decomposed): in a 1 ms
 * cycle A V is already orthogonal to ~1e-3, so two or three sweeps finish where GSL's Golub-Kahan SVD cost ~35,000
 * instructions. V is re-orthonormalised (Gram-Schmidt) first, so the history changes the answer by rounding only;
 * it is updated in place. */
/* sv_B = A' V (m x k, column-major B[col][row]), A' = A (rows x n) or A^T when n > rows. Inlined with n = rows =
 * 6, the loops' bounds are constants. */
static inline __attribute__((always_inline)) void chain_sing_project_n(Chain *c, int n, int rows, const double *A,
                                                                       double V[6][6])
{
    int k = n < rows ? n : rows, m = n < rows ? rows : n;
    for (int col = 0; col < k; col++)
#pragma GCC unroll 6
        for (int i = 0; i < m; i++) {
            double acc = 0;
            if (n <= rows)
#pragma GCC unroll 6
                for (int j = 0; j < k; j++) acc += A[i * n + j] * V[col][j];
            else
                for (int j = 0; j < k; j++) acc += A[j * n + i] * V[col][j];
            c->sv_B[col][i] = acc;
        }
}

/* sigma_min, sigma_max of A (rows x n) by the one-sided Jacobi SVD of A' V (see chain_sing_exact), V updated in place
 * (orthonormalised first by modified Gram-Schmidt when eta, its last measured distance from orthogonal, is above
 * 1e-13; a column that collapses resets V to the identity); *eta_out = |V^T V - I|_F afterwards, doubled for its
 * own rounding. Inlined with n = rows = 6, the loops' bounds are constants. */
static inline __attribute__((always_inline)) int chain_sing_jacobi_n(Chain *c, int n, int rows, const double *A,
                                                                     double V[6][6], double eta, double *smin_out,
                                                                     double *smax_out, double *eta_out)
{
    int k = n < rows ? n : rows, m = n < rows ? rows : n;
    for (int p = 0; p < k && eta > 1e-13; p++) {
        double *vp = V[p];
        for (int r = 0; r < p; r++) {
            double d = 0;
#pragma GCC unroll 6
            for (int i = 0; i < k; i++) d += vp[i] * V[r][i];
#pragma GCC unroll 6
            for (int i = 0; i < k; i++) vp[i] -= d * V[r][i];
        }
        double nn = 0;
#pragma GCC unroll 6
        for (int i = 0; i < k; i++) nn += vp[i] * vp[i];
        if (!(nn > 0.25)) { /* lost (never after a reset to the identity, which is orthonormal) */
            for (int p2 = 0; p2 < k; p2++)
                for (int i = 0; i < k; i++) V[p2][i] = p2 == i;
            p = -1;
            continue;
        }
        nn = 1 / sqrt(nn);
#pragma GCC unroll 6
        for (int i = 0; i < k; i++) vp[i] *= nn;
    }
    chain_sing_project_n(c, n, rows, A, V);
    if (chain_jacobi_sv_n(m, k, c->sv_B, V) < 0) {
        for (int p = 0; p < k; p++)
            for (int i = 0; i < k; i++) V[p][i] = p == i;
        return MODEL_ENUMERIC;
    }
    double smax = 0, smin = INFINITY, d2 = 0;
    for (int p = 0; p < k; p++) {
        double nn = 0;
#pragma GCC unroll 6
        for (int i = 0; i < m; i++) nn += c->sv_B[p][i] * c->sv_B[p][i];
        nn = sqrt(nn);
        if (nn > smax) smax = nn;
        if (nn < smin) smin = nn;
    }
    for (int p = 0; p < k; p++)
        for (int r = p; r < k; r++) {
            double d = -(p == r);
#pragma GCC unroll 6
            for (int i = 0; i < k; i++) d += V[p][i] * V[r][i];
            d2 += (p == r ? 1 : 2) * d * d;
        }
    *smin_out = smin, *smax_out = smax, *eta_out = 2 * sqrt(d2) + 1e-14;
    return MODEL_OK;
}

/* The 6 x 6 case (a 6-joint arm on all six rows, ~every call) with each 6-long column held as three pairs of
 * doubles (ChainV2), so that every rotation and the projection A V take half the operations. Each element gets the
 * same operations in the same order as in chain_jacobi_sv_n and chain_sing_project_n (products of pairs are the
 * products of their halves, and the dot products add the halves in the scalar loops' order, from 0), so the bits
 * are theirs: test_chain_sing compares the two paths bit for bit. */
typedef ChainV2 ChainSvCol[3];

/* x . y over a 6-long column, summed from 0 in the order of elements 0 to 5 as the scalar loops do. */
static inline double chain_sv_dot6(const ChainV2 *x, const ChainV2 *y)
{
    ChainV2 p0 = x[0] * y[0], p1 = x[1] * y[1], p2 = x[2] * y[2];
    return 0.0 + p0[0] + p0[1] + p1[0] + p1[1] + p2[0] + p2[1];
}

/* b[col] = A V[col] (A 6 x 6 row-major): each pair of rows of A taken down a column (At), the sum over j from 0 in
 * order as chain_sing_project_n. */
static inline void chain_sv_project66(const double *A, const double V[6][6], ChainSvCol b[6])
{
    ChainV2 At[6][3];
#pragma GCC unroll 6
    for (int j = 0; j < 6; j++)
#pragma GCC unroll 3
        for (int h = 0; h < 3; h++) At[j][h] = (ChainV2){A[(2 * h) * 6 + j], A[(2 * h + 1) * 6 + j]};
#pragma GCC unroll 6
    for (int col = 0; col < 6; col++) {
        ChainV2 a0 = {0, 0}, a1 = {0, 0}, a2 = {0, 0};
#pragma GCC unroll 6
        for (int j = 0; j < 6; j++) {
            ChainV2 v = {V[col][j], V[col][j]};
            a0 += At[j][0] * v, a1 += At[j][1] * v, a2 += At[j][2] * v;
        }
        b[col][0] = a0, b[col][1] = a1, b[col][2] = a2;
    }
}

/* chain_jacobi_sv_n for m = k = 6 on the pairs b and V (v, loaded by the caller and stored back by it), at most
 * max_sweeps sweeps (30 for a decomposition; 1 for chain_sing_refresh, whose V then rarely converged: -1). */
static inline __attribute__((always_inline)) int chain_jacobi_sv_66(ChainSvCol b[6], ChainSvCol v[6], int max_sweeps)
{
    double tol = 6 * 2.220446049250313e-16, frob2 = 0;
    for (int p = 0; p < 6; p++)
        for (int h = 0; h < 3; h++) frob2 += b[p][h][0] * b[p][h][0], frob2 += b[p][h][1] * b[p][h][1];
    double floor2 = tol * tol * frob2;
    for (int sweep = 1; sweep <= max_sweeps; sweep++) {
        int rotated = 0;
        double nrm[6];
        for (int p = 0; p < 6; p++) nrm[p] = chain_sv_dot6(b[p], b[p]);
        for (int p = 0; p < 5; p++)
            for (int r = p + 1; r < 6; r++) {
                double alpha = nrm[p], beta = nrm[r], gamma = chain_sv_dot6(b[p], b[r]);
                if (fabs(gamma) <= tol * sqrt(alpha * beta) || alpha <= floor2 || beta <= floor2) continue;
                double zeta = (beta - alpha) / (2 * gamma);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double cs = 1 / sqrt(1 + t * t), sn = cs * t;
                ChainV2 C = {cs, cs}, S = {sn, sn};
                for (int h = 0; h < 3; h++) {
                    ChainV2 x = b[p][h], y = b[r][h];
                    b[p][h] = C * x - S * y;
                    b[r][h] = S * x + C * y;
                    x = v[p][h], y = v[r][h];
                    v[p][h] = C * x - S * y;
                    v[r][h] = S * x + C * y;
                }
                nrm[p] = alpha - t * gamma;
                nrm[r] = beta + t * gamma;
                rotated = 1;
            }
        if (!rotated) return sweep;
    }
    return -1;
}

/* |V^T V - I|_F of V held as pairs, doubled for its own rounding (chain_sing_jacobi_n's eta, the same bits). */
static inline double chain_sv_eta66(ChainSvCol v[6])
{
    double d2 = 0;
    for (int p = 0; p < 6; p++)
        for (int r = p; r < 6; r++) {
            ChainV2 q0 = v[p][0] * v[r][0], q1 = v[p][1] * v[r][1], q2 = v[p][2] * v[r][2];
            double d = -(p == r) + q0[0] + q0[1] + q1[0] + q1[1] + q2[0] + q2[1];
            d2 += (p == r ? 1 : 2) * d * d;
        }
    return 2 * sqrt(d2) + 1e-14;
}

/* chain_sing_jacobi_n for n = rows = 6 on pairs (the same bits). */
static int chain_sing_jacobi_66(const double *A, double V[6][6], double eta, double *smin_out, double *smax_out,
                                double *eta_out)
{
    for (int p = 0; p < 6 && eta > 1e-13; p++) { /* the Gram-Schmidt of chain_sing_jacobi_n, rarely needed */
        double *vp = V[p];
        for (int r = 0; r < p; r++) {
            double d = 0;
            for (int i = 0; i < 6; i++) d += vp[i] * V[r][i];
            for (int i = 0; i < 6; i++) vp[i] -= d * V[r][i];
        }
        double nn = 0;
        for (int i = 0; i < 6; i++) nn += vp[i] * vp[i];
        if (!(nn > 0.25)) {
            for (int p2 = 0; p2 < 6; p2++)
                for (int i = 0; i < 6; i++) V[p2][i] = p2 == i;
            p = -1;
            continue;
        }
        nn = 1 / sqrt(nn);
        for (int i = 0; i < 6; i++) vp[i] *= nn;
    }
    ChainSvCol b[6], v[6];
    chain_sv_project66(A, (const double (*)[6])V, b);
    for (int p = 0; p < 6; p++)
        for (int h = 0; h < 3; h++) v[p][h] = (ChainV2){V[p][2 * h], V[p][2 * h + 1]};
    int sweeps = chain_jacobi_sv_66(b, v, 30);
    for (int p = 0; p < 6; p++)
        for (int h = 0; h < 3; h++) V[p][2 * h] = v[p][h][0], V[p][2 * h + 1] = v[p][h][1];
    if (sweeps < 0) {
        for (int p = 0; p < 6; p++)
            for (int i = 0; i < 6; i++) V[p][i] = p == i;
        return MODEL_ENUMERIC;
    }
    double smax = 0, smin = INFINITY;
    for (int p = 0; p < 6; p++) {
        double nn = sqrt(chain_sv_dot6(b[p], b[p]));
        if (nn > smax) smax = nn;
        if (nn < smin) smin = nn;
    }
    *smin_out = smin, *smax_out = smax, *eta_out = chain_sv_eta66(v);
    return MODEL_OK;
}

/* The Jacobi SVD of A (chain_sing_jacobi_n); on pairs (chain_sing_jacobi_66) for a 6 x 6 A unless c->sv_pairs is 0
 * (the tests' reference path). */
static int chain_sing_jacobi(Chain *c, int rows, const double *A, double V[6][6], double eta, double *smin,
                             double *smax, double *eta_out)
{
    if (c->n == 6 && rows == 6)
        return c->sv_pairs ? chain_sing_jacobi_66(A, V, eta, smin, smax, eta_out)
                           : chain_sing_jacobi_n(c, 6, 6, A, V, eta, smin, smax, eta_out);
    return chain_sing_jacobi_n(c, c->n, rows, A, V, eta, smin, smax, eta_out);
}

/* Bounds [lb, ub] on any value the Jacobi SVD could return at a matrix whose true extreme singular values lie in
 * iv (sigma_min in [iv0, iv1], sigma_max in [iv2, iv3]) and whose Frobenius norm is at most f: the SVD's singular
 * values are within 1e-11 f of the true ones, and each division rounds by an ulp. */
static inline __attribute__((always_inline)) void chain_sing_bounds(const double iv[4], double f, double *lb,
                                                                   double *ub)
{
    double dl = 1e-11 * f, a = iv[0] - dl, b = iv[1] + dl, cc = iv[2] - dl, d = iv[3] + dl;
    /* fmax(x, 0) and fmin(x, 1) written as comparisons (a NaN x gives 0 and 1 as they do; no libm call) */
    double x = a / d * (1 - 1e-12), y = b / cc * (1 + 1e-12);
    *lb = a > 0 && d > 0 && x > 0 ? x : 0.0;
    *ub = cc > 0 && y < 1 ? y : 1.0;
}

/* A (at q) becomes the Weyl reference, with bounds iv on its true extreme singular values (widened by 1e-13 relative for
 * their own rounding) and f >= |A|_F. */
static void chain_sing_set_weyl(Chain *c, const double *q, int len, const double *A, const double iv[4], double f)
{
    memcpy(c->sv_qw, q, (size_t)c->n * sizeof(double));
    memcpy(c->sv_Aw, A, (size_t)len * sizeof(double));
    c->sv_iv[0] = iv[0] * (1 - 1e-13), c->sv_iv[1] = iv[1] * (1 + 1e-13);
    c->sv_iv[2] = iv[2] * (1 - 1e-13), c->sv_iv[3] = iv[3] * (1 + 1e-13);
    c->sv_fw = f * (1 + 1e-13);
    c->sv_w_ok = isfinite(c->sv_iv[0] + c->sv_iv[1] + c->sv_iv[2] + c->sv_iv[3] + c->sv_fw);
    c->sv_m_ok = 0;
}

/* The measure of A from the warm state (sv_V); A becomes the reference of the skip's bound. */
static int chain_sing_exact(Chain *c, const double *q, int rows, const double *A, double *measure)
{
    int len = rows * c->n;
    double smin, smax, f2 = 0;
    c->sv_ref_ok = c->sv_w_ok = 0;
    int st = chain_sing_jacobi(c, rows, A, c->sv_V, c->sv_eta, &smin, &smax, &c->sv_eta);
    if (st < 0) return st;
    *measure = smax > 0 ? smin / smax : 0.0;
    for (int i = 0; i < len; i++) f2 += A[i] * A[i];
    if (isfinite(f2) && isfinite(smin) && isfinite(smax)) {
        memcpy(c->sv_Aref, A, (size_t)len * sizeof(double));
        c->sv_mref = *measure;
        /* the true singular values lie within 1e-11 |A|_F of the Jacobi SVD's (which are exact to ~1e-15 |A|_F) */
        double f = sqrt(f2), dl = 1e-11 * f;
        double iv[4] = {smin - dl, smin + dl, smax - dl, smax + dl};
        chain_sing_set_weyl(c, q, len, A, iv, f);
        c->sv_ref_ok = c->sv_eta < 1e-6;
    }
    return MODEL_OK;
}

/* Bounds on the measure at A from the Weyl reference: |sigma_i(A) - sigma_i(A_w)| <= |A - A_w|_2 <= |A - A_w|_F
 * = e (widened by 1e-6 relative for its rounding). */
static void chain_sing_weyl(const Chain *c, int len, const double *A, double *lb, double *ub)
{
    double e2 = 0;
#pragma GCC unroll 6
    for (int i = 0; i < len; i++) {
        double d = A[i] - c->sv_Aw[i];
        e2 += d * d;
    }
    double e = sqrt(e2) * (1 + 1e-6);
    double iv[4] = {c->sv_iv[0] - e, c->sv_iv[1] + e, c->sv_iv[2] - e, c->sv_iv[3] + e};
    chain_sing_bounds(iv, c->sv_fw + e, lb, ub);
}

/* Bounds iv on the true extreme singular values of A (sigma_min in [iv0, iv1], sigma_max in [iv2, iv3]) and f >=
 * |A|_F, from the Gram matrix G of B = A' V, V the last decomposition's right singular vectors: B's columns are
 * orthogonal there and stay nearly so nearby, so G is nearly diagonal and its extreme eigenvalues (sigma_min^2,
 * sigma_max^2 of B) are pinned to second order by Temple's inequality: for the unit vector e_i of G's smallest
 * diagonal entry mu, with r^2 the sum of the squares of the rest of its column and beta <= lambda_2, lambda_1 >=
 * mu - r^2 / (beta - mu) (and <= mu); beta comes from interlacing (lambda_2(G) >= lambda_min of G without row and
 * column i) and Gershgorin. Likewise for the largest. Margins: 1e-12 |A|_F^2 on G's entries (the rounding of
 * forming it), V's distance from orthogonal eta (sigma(A) = sigma(B) within sqrt(1 -+ eta)), and 1e-6 relative on
 * the second-order terms. 0, or -1 when the extremes are too close to separate. */
/* G = B^T B with B = A' V (sv_B, as chain_sing_project), the loops' bounds constants when inlined with n = rows = 6. */
static inline __attribute__((always_inline)) void chain_sing_gram_n(Chain *c, int n, int rows, const double *A,
                                                                    double G[6][6])
{
    int k = n < rows ? n : rows, m = n < rows ? rows : n;
    chain_sing_project_n(c, n, rows, A, c->sv_V);
    for (int p = 0; p < k; p++)
        for (int r = p; r < k; r++) {
            double acc = 0;
#pragma GCC unroll 6
            for (int i = 0; i < m; i++) acc += c->sv_B[p][i] * c->sv_B[r][i];
            G[p][r] = G[r][p] = acc;
        }
}

/* Temple's bounds from G (k x k), the Gram matrix of A V with V eta from orthogonal (chain_sing_temple). Inlined
 * with k = 6, the loops unroll; the terms a condition leaves out are added as +0, which leaves a sum of non-negative
 * terms as it was, so the bits are those of skipping them. */
static inline __attribute__((always_inline)) int chain_sing_temple_g_n(int k, double G[6][6], double eta,
                                                                       double iv[4], double *f)
{
    double F2 = 0;
    int lo = 0, hi = 0;
    for (int p = 0; p < k; p++) {
        F2 += G[p][p];
        if (G[p][p] < G[lo][lo]) lo = p;
        if (G[p][p] > G[hi][hi]) hi = p;
    }
    if (lo == hi || !(F2 > 0) || !isfinite(F2)) return -1;
    F2 = F2 / (1 - eta) * (1 + 1e-10); /* |A|_F^2 <= trace(G) / (1 - eta) */
    double tau = 1e-12 * F2;
    /* beta: Gershgorin on G without row/column lo; alpha: on G without hi */
    double beta = INFINITY, alpha = -INFINITY, r2lo = 0, r2hi = 0;
#pragma GCC unroll 6
    for (int p = 0; p < k; p++) {
        double slo = 0, shi = 0;
#pragma GCC unroll 6
        for (int r = 0; r < k; r++) {
            double a = fabs(G[p][r]);
            slo += r != p && r != lo ? a : 0.0;
            shi += r != p && r != hi ? a : 0.0;
        }
        double gb = G[p][p] - slo * (1 + 1e-10), ga = G[p][p] + shi * (1 + 1e-10); /* fmin/fmax, no libm call */
        beta = p != lo && gb < beta ? gb : beta;
        alpha = p != hi && ga > alpha ? ga : alpha;
        double xl = G[lo][p], xh = G[hi][p];
        r2lo += p != lo ? xl * xl : 0.0;
        r2hi += p != hi ? xh * xh : 0.0;
    }
    double mu = G[lo][lo], rho = G[hi][hi];
    if (!(beta - mu > 1e-6 * F2) || !(rho - alpha > 1e-6 * F2)) return -1;
    double lam1 = mu - r2lo / (beta - mu) * (1 + 1e-6), lamk = rho + r2hi / (rho - alpha) * (1 + 1e-6);
    double vlo = sqrt(1 + eta), vhi = sqrt(1 - eta); /* sigma_max(V), sigma_min(V) bounds */
    double l1 = lam1 - tau > 0 ? lam1 - tau : 0, lk = rho - tau > 0 ? rho - tau : 0; /* fmax(., 0) */
    iv[0] = sqrt(l1) / vlo, iv[1] = sqrt(mu + tau) / vhi;
    iv[2] = sqrt(lk) / vlo, iv[3] = sqrt(lamk + tau) / vhi;
    *f = sqrt(F2);
    return isfinite(iv[0] + iv[1] + iv[2] + iv[3]) ? 0 : -1;
}

static int chain_sing_temple_g(int k, double G[6][6], double eta, double iv[4], double *f)
{
    return k == 6 ? chain_sing_temple_g_n(6, G, eta, iv, f) : chain_sing_temple_g_n(k, G, eta, iv, f);
}

/* G from b (pairs): the same bits as chain_sing_gram_n. */
static inline void chain_sv_gram66(ChainSvCol b[6], double G[6][6])
{
#pragma GCC unroll 6
    for (int p = 0; p < 6; p++)
#pragma GCC unroll 6
        for (int r = p; r < 6; r++) G[p][r] = G[r][p] = chain_sv_dot6(b[p], b[r]);
}

/* b: where the pairs path leaves A sv_V for chain_sing_refresh (6 x 6 with sv_pairs; else untouched). */
static int chain_sing_temple(Chain *c, int rows, const double *A, ChainSvCol b[6], double iv[4], double *f)
{
    int n = c->n, k = n < rows ? n : rows;
    if (k < 2) return -1;
    double G[6][6];
    if (n == 6 && rows == 6 && c->sv_pairs) { /* on pairs, the same bits as chain_sing_gram_n */
        chain_sv_project66(A, (const double (*)[6])c->sv_V, b);
        chain_sv_gram66(b, G);
    } else if (n == 6 && rows == 6) chain_sing_gram_n(c, 6, 6, A, G);
    else chain_sing_gram_n(c, n, rows, A, G);
    return chain_sing_temple_g(k, G, c->sv_eta, iv, f);
}

/* Temple again after one Jacobi sweep has refreshed a stale V (6 x 6 on pairs): the sweep on b = A sv_V (from
 * chain_sing_temple) and on a copy v of sv_V, whose distance from orthogonal *eta is measured anew; G is formed again
 * from A v, as chain_sing_temple forms it from A sv_V, so the bounds rest on the same margins. ~2,500 instructions
 * where a decomposition costs ~9,000; the caller keeps v, *eta as the warm state when the bounds prove. */
static int chain_sing_refresh(const double *A, ChainSvCol b[6], const double V[6][6], ChainSvCol v[6], double *eta,
                              double iv[4], double *f)
{
    double Vn[6][6], G[6][6];
    for (int p = 0; p < 6; p++)
        for (int h = 0; h < 3; h++) v[p][h] = (ChainV2){V[p][2 * h], V[p][2 * h + 1]};
    chain_jacobi_sv_66(b, v, 1);
    *eta = chain_sv_eta66(v);
    if (!(*eta < 1e-6)) return -1;
    for (int p = 0; p < 6; p++)
        for (int h = 0; h < 3; h++) Vn[p][2 * h] = v[p][h][0], Vn[p][2 * h + 1] = v[p][h][1];
    chain_sv_project66(A, (const double (*)[6])Vn, b);
    chain_sv_gram66(b, G);
    return chain_sing_temple_g(6, G, *eta, iv, f);
}

/* Bounds on the measure at q from the Weyl reference without forming A: |A(q) - A_w|_F <= sum_i L_i |q_i - qw_i|
 * (chain_sing_lipschitz), plus the rounding of forming A at q and at the reference (allowed 1e-12 |A|_F each, far
 * above the ~1e-15 it is), widened by 1e-6 relative like the Weyl bound. Far cruder than Weyl's on the matrix itself
 * but it costs no kinematics: it proves the cycles just after a reference was made. */
static double chain_sing_lipschitz_e(const Chain *c, const double *q)
{
    double e = 0;
    int n = c->n;
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) e += c->sv_lip[i] * fabs(q[i] - c->sv_qw[i]);
    return e;
}

/* Bounds on the measure at q from the Weyl reference and e >= |A*(q) - A*(q_w)|_F (the true matrices): e widened
 * by 1e-6 relative and by the rounding of forming A at q and at the reference (1e-12 |A|_F each). */
static inline void chain_sing_e_bounds(const Chain *c, double e, double *lb, double *ub)
{
    e = e * (1 + 1e-6) + 2e-12 * (c->sv_fw + e);
    double iv[4] = {c->sv_iv[0] - e, c->sv_iv[1] + e, c->sv_iv[2] - e, c->sv_iv[3] + e};
    chain_sing_bounds(iv, c->sv_fw + e, lb, ub);
}

/* K = the Gram matrix of the derivatives D_a = dA/dq_a (path position a) at the joint values qk whose normalised
 * Jacobian is A (6 rows): with column j = (v_j, z_j), v_j = z_j x (x - p_j) / l, turning joint a turns everything
 * beyond it about z_a, so for j at or beyond a, dcol_j = (z_a x v_j, z_a x z_j), and for j before a only the tool
 * point moves: dcol_j = (z_j x v_a, 0). Off-path columns are 0 and stay 0. */
static inline __attribute__((always_inline)) void chain_sing_gram_k_n(Chain *c, int np, const double *qk,
                                                                      const double *A)
{
    int n = c->n;
    double v[CHAIN_FO_MAX][3], z[CHAIN_FO_MAX][3], D[CHAIN_FO_MAX][CHAIN_FO_MAX][6], f2 = 0;
    for (int a = 0; a < np; a++) {
        int j = c->sv_path[a];
        for (int r = 0; r < 3; r++) v[a][r] = A[r * n + j], z[a][r] = A[(3 + r) * n + j];
    }
    for (int i = 0; i < 6 * n; i++) f2 += A[i] * A[i];
    for (int a = 0; a < np; a++)
        for (int b = 0; b < np; b++) {
            if (b >= a) {
                v3_cross(D[a][b], z[a], v[b]);
                v3_cross(D[a][b] + 3, z[a], z[b]);
            } else {
                v3_cross(D[a][b], z[b], v[a]);
                D[a][b][3] = D[a][b][4] = D[a][b][5] = 0;
            }
        }
    for (int a = 0; a < np; a++)
        for (int b = a; b < np; b++) {
            double k = 0;
            for (int j = 0; j < np; j++)
#pragma GCC unroll 6
                for (int r = 0; r < 6; r++) k += D[a][j][r] * D[b][j][r];
            c->sv_K[a][b] = c->sv_K[b][a] = k;
            c->sv_K2[a][b] = 2 * k;
        }
    for (int a = 0; a < np; a++) {
        c->sv_kd[a] = sqrt(c->sv_K[a][a]);
        c->sv_qk[a] = qk[c->sv_path[a]];
    }
    c->sv_fk = sqrt(f2);
    c->sv_k_ok = isfinite(c->sv_fk);
    c->sv_m_ok = 0;
}

static void chain_sing_gram_k(Chain *c, const double *qk, const double *A)
{
    if (c->sv_np == 6) chain_sing_gram_k_n(c, 6, qk, A);
    else chain_sing_gram_k_n(c, c->sv_np, qk, A);
}

/* e >= |A*(q) - A*(q_w)|_F by a first-order expansion: along the segment from q_w, A(q) - A(q_w) = sum_a dq_a
 * integral of D_a(q_w + t dq) over t in [0, 1], and |D_a(y) - D_a(q_K)|_F <= sum_b M_ab |y_b - qk_b| with M_ab <=
 * mu_a mu_b (mu_a = sqrt(max_b M_ab), M symmetric), so e = sqrt(dq^T K dq) + T (dk + T / 2), with T = sum_a mu_a
 * |dq_a| and dk = sum_b mu_b |qw_b - qk_b|; plus margins for K's own rounding (1e-12 (sum_a sqrt(K_aa) |dq_a|)^2
 * under the root) and for K coming from the formed matrix at q_K rather than the true one (1e-10 f (1 + f) sum_a
 * |dq_a|, f = |A_K|_F). K is remade at the Weyl reference when dk there exceeds CHAIN_FO_REMAKE. ~150 instructions
 * and no kinematics; to first order it equals the Weyl bound's |A - A_w|_F. */
static inline __attribute__((always_inline)) double chain_sing_first_order_n(Chain *c, int np, const double *q)
{
    const int *pa = c->sv_path;
    if (!c->sv_m_ok) { /* a new Weyl reference: remake K there when q_K is too far */
        double dk = 0;
        if (c->sv_k_ok)
            for (int a = 0; a < np; a++) dk += c->sv_mu[a] * fabs(c->sv_qw[pa[a]] - c->sv_qk[a]);
        if (!c->sv_k_ok || dk > CHAIN_FO_REMAKE) chain_sing_gram_k(c, c->sv_qw, c->sv_Aw), dk = 0;
        if (!c->sv_k_ok) return INFINITY;
        c->sv_dk = dk;
        c->sv_m_ok = 1;
    }
    double d[CHAIN_FO_MAX], ad[CHAIN_FO_MAX], Q = 0, sk = 0, s1 = 0, tm = 0;
#pragma GCC unroll 8
    for (int a = 0; a < np; a++) {
        d[a] = q[pa[a]] - c->sv_qw[pa[a]];
        ad[a] = fabs(d[a]);
        sk += c->sv_kd[a] * ad[a], s1 += ad[a], tm += c->sv_mu[a] * ad[a];
    }
#pragma GCC unroll 8
    for (int a = 0; a < np; a++) { /* dq^T K dq over the upper triangle (sv_K2 = 2 K above the diagonal) */
        double qa = c->sv_K[a][a] * d[a];
        for (int b = a + 1; b < np; b++) qa += c->sv_K2[a][b] * d[b];
        Q += qa * d[a];
    }
    Q += 1e-12 * sk * sk;
    return (Q > 0 ? sqrt(Q) : 0) + tm * (c->sv_dk + 0.5 * tm) + 1e-10 * c->sv_fk * (1 + c->sv_fk) * s1;
}

static double chain_sing_first_order(Chain *c, const double *q)
{
    return c->sv_np == 6 ? chain_sing_first_order_n(c, 6, q) : chain_sing_first_order_n(c, c->sv_np, q);
}

/* The measure at q when it may lie outside [lo, hi] (lo > hi: always), else only the proof that it lies inside:
 * returns 1 with measure = a lower bound of it in [lo, hi].
 *
 * The proof: A_ref, the last matrix decomposed, and Weyl's inequality |sigma_i(A) - sigma_i(A_ref)| <=
 * |A - A_ref|_2 <= |A - A_ref|_F = e put the measure in [(smin_ref - e) / (smax_ref + e), (smin_ref + e) /
 * (smax_ref - e)]. e is widened by 1e-6 relative and by 1e-11 |A|_F absolute, which covers the rounding of the
 * Jacobi SVD at A_ref and at A (its singular values are exact to ~1e-15 |A|_F) and of the bound itself: any value
 * the SVD could return at A lies in the interval too.
 *
 * Before forming A at all, the same interval with e bounded through the joint values instead
 * (chain_sing_lipschitz_bounds) may already prove it: no forward kinematics then.
 *
 * Otherwise the measure comes from the Jacobi SVD warm-started from the last decomposition, and A becomes the
 * reference; A bitwise equal to the reference (a machine at rest) returns the reference's measure. With the
 * parameter singularity_skip = 0 a proved measure is computed too, from a copy of the warm state, so the values of
 * every other call, and the decompositions the history is made of, are the same as with the skip: the two differ
 * only in the values that were proved to lie in [lo, hi] (tests/sh/dryrun_sing_skip.sh compares the reports).
 *
 * With fb = {flo, fhi, floor} this is singularity_defer: 2 with the bounds [*measure, *ub] when a proof puts the
 * measure below flo and at or above floor, or above fhi (q and the warm state are kept for
 * chain_singularity_settle, nothing else changes). A proof outside [lo, hi] but not beyond [flo, fhi] then goes on
 * to the tighter ones (without fb it ends them: the value is needed). */
static inline __attribute__((always_inline)) int chain_sing_within_core(Chain *c, const double *q, double lo,
                                                                       double hi, const double *fb,
                                                                       double *measure, double *ub_out)
{
    int rows = c->sv_posonly ? 3 : 6, len = rows * c->n;
    int band = c->sv_ref_ok && c->sv_w_ok && lo <= hi;
    double A[6 * N_MAX], lb, ub;
    int by = 0, dfr = 0;
#define CHAIN_SING_DEFERS(l, u) (fb && (((u) < fb[0] && (l) >= fb[2]) || (l) > fb[1]))
    if (band && c->sv_lip_ok && !chain_same_bits(q, c->sv_qw, c->n)) {
        double e = chain_sing_lipschitz_e(c, q);
        chain_sing_e_bounds(c, e, &lb, &ub);
        if (lb >= lo && ub <= hi) by = 5;
        else if (CHAIN_SING_DEFERS(lb, ub)) dfr = 1;
        /* proved outside the band (a new extreme): no other proof can hold, the value is needed */
        else if (!fb && (ub < lo || lb > hi)) band = 0;
        else if (c->sv_fo_ok) {
            double e1 = chain_sing_first_order(c, q);
            chain_sing_e_bounds(c, e1 < e ? e1 : e, &lb, &ub);
            if (lb >= lo && ub <= hi) by = 6;
            else if (CHAIN_SING_DEFERS(lb, ub)) dfr = 1;
            else if (!fb && (ub < lo || lb > hi)) band = 0;
        }
    }
    if (!by && !dfr) {
        const double (*Rw)[9], (*pw)[3];
        chain_world(c, q, &Rw, &pw);
        chain_sing_matrix(c, Rw, pw, rows, A);
        if (c->sv_ref_ok && memcmp(A, c->sv_Aref, (size_t)len * sizeof(double)) == 0) {
            c->sv_stats[0]++, c->sv_stats[4]++;
            *measure = c->sv_mref;
            return MODEL_OK;
        }
    }
    c->sv_stats[0]++;
    if (band && !by && !dfr) {
        double iv[4], f;
        ChainSvCol b[6];
        chain_sing_weyl(c, len, A, &lb, &ub);
        by = lb >= lo && ub <= hi ? 1 : 0;
        if (!by && CHAIN_SING_DEFERS(lb, ub)) dfr = 1;
        else if (!by && (fb || !(ub < lo || lb > hi))) {
            int tst = chain_sing_temple(c, rows, A, b, iv, &f);
            if (tst == 0) {
                chain_sing_bounds(iv, f, &lb, &ub);
                by = lb >= lo && ub <= hi ? 2 : 0;
                if (!by && CHAIN_SING_DEFERS(lb, ub)) dfr = 1;
            }
            /* not proved in the band nor outside it (nor beyond the far band): V may have gone stale since the
             * last decomposition; one sweep refreshes it, and when Temple then proves the value in the band, the
             * refreshed V is the warm state from here on (a deferral leaves the warm state as it is) */
            if (!by && !dfr && !(tst == 0 && !fb && (ub < lo || lb > hi)) && c->sv_refresh && c->n == 6 &&
                rows == 6 && c->sv_pairs && c->sv_eta < 1e-6) {
                ChainSvCol v[6];
                double eta;
                if (chain_sing_refresh(A, b, (const double (*)[6])c->sv_V, v, &eta, iv, &f) == 0) {
                    chain_sing_bounds(iv, f, &lb, &ub);
                    if (CHAIN_SING_DEFERS(lb, ub)) dfr = 1; /* the refreshed V is not kept */
                    else if (lb >= lo && ub <= hi) {
                        by = 2;
                        c->sv_stats[7]++;
                        for (int p = 0; p < 6; p++)
                            for (int h = 0; h < 3; h++)
                                c->sv_V[p][2 * h] = v[p][h][0], c->sv_V[p][2 * h + 1] = v[p][h][1];
                        c->sv_eta = eta;
                    }
                }
            }
            if (by == 2) chain_sing_set_weyl(c, q, len, A, iv, f); /* the next cycles' Weyl bound starts here */
        }
    }
#undef CHAIN_SING_DEFERS
    if (dfr) { /* q and the warm state it would start from are kept: the settled value is the one computed now */
        c->sv_pend = 1;
        memcpy(c->sv_pq, q, (size_t)c->n * sizeof(double));
        memcpy(c->sv_pV, c->sv_V, sizeof c->sv_pV);
        c->sv_peta = c->sv_eta;
        c->sv_dstats[0]++;
        *measure = lb, *ub_out = ub;
        return 2;
    }
    if (by) {
        c->sv_stats[by]++;
        if (c->sv_skip) {
            *measure = lb;
            return 1;
        }
        /* singularity_skip = 0: the measure too, from a copy of the warm state (the history stays as with the skip) */
        if (by >= 5) {
            const double (*Rw)[9], (*pw)[3];
            chain_world(c, q, &Rw, &pw);
            chain_sing_matrix(c, Rw, pw, rows, A);
        }
        double V[6][6], smin, smax, eta;
        memcpy(V, c->sv_V, sizeof V);
        int st = chain_sing_jacobi(c, rows, A, V, c->sv_eta, &smin, &smax, &eta);
        if (st < 0) return st;
        *measure = smax > 0 ? smin / smax : 0.0;
        return MODEL_OK;
    }
    c->sv_stats[3]++;
    return chain_sing_exact(c, q, rows, A, measure);
}

/* singularity_within (model.h). */
static int chain_singularity_within(void *s, const double *q, double lo, double hi, double *measure)
{
    return chain_sing_within_core(s, q, lo, hi, NULL, measure, NULL);
}

/* singularity_defer (model.h): b = {lo, hi, flo, fhi, floor}. */
static int chain_singularity_defer(void *s, const double *q, const double b[5], double *measure, double *ub)
{
    Chain *c = s;
    if (!c->sv_defer) return chain_singularity_within(s, q, b[0], b[1], measure);
    return chain_sing_within_core(c, q, b[0], b[1], b + 2, measure, ub);
}

/* singularity_settle (model.h): the measure at the kept q from the warm state kept with it, as chain_sing_exact
 * would have computed it then; the present warm state and the skip's references are left as they are. */
static int chain_singularity_settle(void *s, double *measure)
{
    Chain *c = s;
    if (!c->sv_pend) return MODEL_EINVAL;
    c->sv_pend = 0;
    int rows = c->sv_posonly ? 3 : 6;
    double A[6 * N_MAX], V[6][6], smin, smax, eta;
    const double (*Rw)[9], (*pw)[3];
    chain_world(c, c->sv_pq, &Rw, &pw);
    chain_sing_matrix(c, Rw, pw, rows, A);
    memcpy(V, c->sv_pV, sizeof V);
    c->sv_dstats[1]++;
    int st = chain_sing_jacobi(c, rows, A, V, c->sv_peta, &smin, &smax, &eta);
    if (st < 0) return st;
    *measure = smax > 0 ? smin / smax : 0.0;
    return MODEL_OK;
}

/* Singularity measure: sigma_min / sigma_max (inverse condition number) of the tool Jacobian whose position rows
 * are divided by the machine's characteristic length. Machines with fewer than 6 joints use the position rows only
 * (their orientation is not theirs to choose). 0 at a singularity, 1 for an isotropic configuration. */
static int chain_singularity(void *s, const double *q, double *measure)
{
    return chain_singularity_within(s, q, 1.0, 0.0, measure);
}

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

#if defined(__x86_64__)
/* The DH path in AVX2 (every joint DH-like, the CPU with AVX2 and FMA): each 3-vector in the 4 lanes of a __m256d,
 * lane 3 = 0, so one instruction does a whole vector. R^T v is x = (v_perm0, v_perm1, v_perm2, 0) (one lane
 * reorder) then cc x + ss swap(x), swap exchanging lanes 0 and 1: the products of chain_rne_dh. R v is the same in
 * reverse: cc v + swap(ss v), then the inverse reorder. A cross product a x b is a_yzx b_zxy - a_zxy b_yzx, a's
 * turned lanes made once for all its products (w's serve four). Fused multiply-adds: the bits differ from the
 * other paths' in the last places. */
#define CHAIN_AVX_INLINE static inline __attribute__((always_inline, target("avx2,fma")))
CHAIN_AVX_INLINE __m256d chain_v4_yzx(__m256d v) { return _mm256_permute4x64_pd(v, 0xC9); }
CHAIN_AVX_INLINE __m256d chain_v4_zxy(__m256d v) { return _mm256_permute4x64_pd(v, 0xD2); }
CHAIN_AVX_INLINE __m256d chain_v4_ld(const double *p) { return _mm256_loadu_pd(p); }

/* a x b from a_yzx, a_zxy, b_yzx, b_zxy */
CHAIN_AVX_INLINE __m256d chain_v4_cross(__m256d ay, __m256d az, __m256d by, __m256d bz)
{
    return _mm256_fmsub_pd(ay, bz, _mm256_mul_pd(az, by));
}

/* a x b from a_yzx, a_zxy and b */
CHAIN_AVX_INLINE __m256d chain_v4_cross_b(__m256d ay, __m256d az, __m256d b)
{
    return chain_v4_cross(ay, az, chain_v4_yzx(b), chain_v4_zxy(b));
}

/* v's lanes reordered by idx (32-bit lane indices: a double's two halves) */
CHAIN_AVX_INLINE __m256d chain_v4_perm(__m256d v, __m256i idx)
{
    return _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), idx));
}

/* R^T v of a DH-like joint (chain_rne_dh's reorder and Rz(q)^T) */
CHAIN_AVX_INLINE __m256d chain_v4_rot_t(__m256d v, __m256i idx, __m256d cc, __m256d ss)
{
    __m256d x = chain_v4_perm(v, idx);
    return _mm256_fmadd_pd(cc, x, _mm256_mul_pd(ss, _mm256_permute_pd(x, 5)));
}

/* R v */
CHAIN_AVX_INLINE __m256d chain_v4_rot(__m256d v, __m256i idx, __m256d cc, __m256d ss)
{
    return chain_v4_perm(_mm256_fmadd_pd(cc, v, _mm256_permute_pd(_mm256_mul_pd(ss, v), 5)), idx);
}

/* chain_rne_dh and chain_rne_dh_back for every joint (c->rne_all_dh), in AVX2: tau from cos/sin of q, qd, qdd. */
__attribute__((target("avx2,fma"))) static void chain_rne_avx(Chain *c, const double *cq, const double *sq,
                                                               const double *qd, const double *qdd, double *tau)
{
    int n = c->n;
    const __m256d EZ = _mm256_set_pd(0, 1, 0, 0), SG = _mm256_set_pd(0, 0, -1, 1); /* (0, 0, 1, 0), (1, -1, 0, 0) */
    for (int i = 0; i < n; i++) {
        const ChainRneJoint *jt = &c->rj[i];
        ChainRneV4 *L = &c->rne4[i];
        __m256i idx = _mm256_loadu_si256((const __m256i *)jt->vperm_f);
        __m256d cc = _mm256_fmadd_pd(_mm256_broadcast_sd(&cq[i]), chain_v4_ld(jt->v_psc), chain_v4_ld(jt->v_psz));
        __m256d ss = _mm256_mul_pd(_mm256_broadcast_sd(&sq[i]), chain_v4_ld(jt->v_pss));
        __m256d QD = _mm256_broadcast_sd(&qd[i]), QDD = _mm256_broadcast_sd(&qdd[i]), W, WD, A;
        int p = jt->parent;
        if (p < 0) {
            /* the base is at rest: w = qd z, wd = qdd z, a = R^T (-g) */
            W = _mm256_mul_pd(QD, EZ);
            WD = _mm256_mul_pd(QDD, EZ);
            A = chain_v4_rot_t(chain_v4_ld(c->a0v), idx, cc, ss);
        } else {
            const ChainRneV4 *P = &c->rne4[p];
            __m256d Wp = chain_v4_ld(P->w), WDp = chain_v4_ld(P->wd), Ap = chain_v4_ld(P->a);
            if (!jt->p0_zero) {
                /* acceleration of this joint's origin, parent frame: a_p + wd_p x r + w_p x (w_p x r) */
                __m256d ry = chain_v4_ld(jt->v_r[1]), rz = chain_v4_ld(jt->v_r[2]);
                __m256d Wy = chain_v4_yzx(Wp), Wz = chain_v4_zxy(Wp);
                __m256d X = chain_v4_cross(Wy, Wz, ry, rz);
                __m256d Xd = chain_v4_cross(chain_v4_yzx(WDp), chain_v4_zxy(WDp), ry, rz);
                Ap = _mm256_add_pd(Ap, _mm256_add_pd(Xd, chain_v4_cross_b(Wy, Wz, X)));
            }
            __m256d U = chain_v4_rot_t(Wp, idx, cc, ss), UD = chain_v4_rot_t(WDp, idx, cc, ss);
            A = chain_v4_rot_t(Ap, idx, cc, ss);
            /* revolute about z: w = u + qd z, wd = ud + qdd z + u x qd z = ud + qdd z + qd (u1, -u0, 0) */
            W = _mm256_fmadd_pd(QD, EZ, U);
            WD = _mm256_fmadd_pd(QDD, EZ, _mm256_fmadd_pd(_mm256_permute_pd(U, 5), _mm256_mul_pd(QD, SG), UD));
        }
        /* f = m a + wd x mc + w x (w x mc);  n = Io wd + w x Io w + mc x a  (about the link origin) */
        __m256d Wy = chain_v4_yzx(W), Wz = chain_v4_zxy(W), D = chain_v4_ld(jt->v_id), IW, IWD;
        if (jt->io_diag) {
            IW = _mm256_mul_pd(D, W);
            IWD = _mm256_mul_pd(D, WD);
        } else {
            __m256d O1 = chain_v4_ld(jt->v_io1), O2 = chain_v4_ld(jt->v_io2);
            IW = _mm256_fmadd_pd(O2, Wz, _mm256_fmadd_pd(O1, Wy, _mm256_mul_pd(D, W)));
            IWD = _mm256_fmadd_pd(O2, chain_v4_zxy(WD), _mm256_fmadd_pd(O1, chain_v4_yzx(WD), _mm256_mul_pd(D, WD)));
        }
        __m256d M = _mm256_broadcast_sd(&jt->mass), F, N = _mm256_add_pd(IWD, chain_v4_cross_b(Wy, Wz, IW));
        if (jt->mc_zero) {
            F = _mm256_mul_pd(M, A);
        } else {
            __m256d hy = chain_v4_ld(jt->v_h[1]), hz = chain_v4_ld(jt->v_h[2]);
            __m256d Y = chain_v4_cross(Wy, Wz, hy, hz);
            __m256d YD = chain_v4_cross(chain_v4_yzx(WD), chain_v4_zxy(WD), hy, hz);
            F = _mm256_fmadd_pd(M, A, _mm256_add_pd(YD, chain_v4_cross_b(Wy, Wz, Y)));
            N = _mm256_add_pd(N, chain_v4_cross_b(hy, hz, A));
        }
        _mm256_storeu_pd(L->w, W), _mm256_storeu_pd(L->wd, WD), _mm256_storeu_pd(L->a, A);
        _mm256_storeu_pd(L->f, F), _mm256_storeu_pd(L->n, N);
        _mm256_storeu_pd(L->cc, cc), _mm256_storeu_pd(L->ss, ss);
    }
    /* backward: tau = n_z; the parent gets (R f, R n + r x R f) */
    for (int i = n - 1; i >= 0; i--) {
        const ChainRneJoint *jt = &c->rj[i];
        const ChainRneV4 *L = &c->rne4[i];
        tau[i] = L->n[2];
        int p = jt->parent;
        if (p < 0) continue;
        __m256i idx = _mm256_loadu_si256((const __m256i *)jt->vperm_b);
        __m256d cc = chain_v4_ld(L->cc), ss = chain_v4_ld(L->ss);
        __m256d F = chain_v4_rot(chain_v4_ld(L->f), idx, cc, ss), N = chain_v4_rot(chain_v4_ld(L->n), idx, cc, ss);
        if (!jt->p0_zero) N = _mm256_add_pd(N, chain_v4_cross_b(chain_v4_ld(jt->v_r[1]), chain_v4_ld(jt->v_r[2]), F));
        ChainRneV4 *P = &c->rne4[p];
        _mm256_storeu_pd(P->f, _mm256_add_pd(chain_v4_ld(P->f), F));
        _mm256_storeu_pd(P->n, _mm256_add_pd(chain_v4_ld(P->n), N));
    }
}

/* 1 when the RNE may take chain_rne_avx: this CPU has AVX2 and FMA (fixed for the process, so both stages of a
 * pipelined dry-run make the same bits). */
static int chain_rne_avx_ok(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static int chain_rne_avx_ok(void) { return 0; }
#endif

/* Recursive Newton-Euler in link frames: tau = M(q) qdd + h(q, qd). Gravity enters as a base acceleration -g.
 * DH-like joints take chain_rne_dh, the others chain_rne_general; both keep the link's state in its own frame, so
 * they mix freely along a chain or tree. A machine of DH-like joints only takes chain_rne_avx where it may. */
static int chain_inverse_dynamics(void *s, const double *q, const double *qd, const double *qdd, double *tau)
{
    Chain *c = s;
    int n = c->n;
    const ChainCache *e = chain_cache_find(c, q);
    if (!e) {
        double cq[N_MAX], sq[N_MAX];
        chain_trig(c, q, cq, sq);
        e = chain_cache_put(c, q, cq, sq);
    }
#if defined(__x86_64__)
    if (c->rne_avx) {
        chain_rne_avx(c, e->cq, e->sq, qd, qdd, tau);
        return MODEL_OK;
    }
#endif
    if (c->rne_all_dh) {
        /* the common case, without the general path's calls in the loops */
        for (int i = 0; i < n; i++) chain_rne_dh(c, &c->rj[i], &c->rne[i], e->cq[i], e->sq[i], qd[i], qdd[i]);
        for (int i = n - 1; i >= 0; i--) chain_rne_dh_back(c, &c->rj[i], &c->rne[i], &tau[i]);
        return MODEL_OK;
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

static int chain_bias(void *s, const double *q, const double *qd, double *h)
{
    Chain *c = s;
    return chain_inverse_dynamics(s, q, qd, c->zero, h);
}

/* Composite rigid body algorithm in the base frame: each subtree's mass, first moment and inertia about the
 * base origin; column i is the momentum of subtree i under unit qd_i, projected on the joints above it. */
static int chain_mass_matrix(void *s, const double *q, double *M)
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
static int chain_forward_dynamics(void *s, const double *q, const double *qd, const double *tau, double *qdd)
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
static int chain_semi_inverse(void *s, const double *q, const double *qd, double *qdd, double *tau)
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

/* Clamp q into the joint limits. */
static void chain_clamp(const Chain *c, double *q)
{
    for (int i = 0; i < c->n; i++) {
        if (q[i] < c->j[i].qmin) q[i] = c->j[i].qmin;
        if (q[i] > c->j[i].qmax) q[i] = c->j[i].qmax;
    }
}

/* Rotation vector of Rb Ra^T (as m3_rotation_error). Below 1e-3 rad it comes from the skew part alone:
 * v = vee(E - E^T) / 2 = sin(theta) axis, and theta / sin(theta) = 1 + s^2/6 + 3 s^4/40 + O(s^6) (s = |v|; the
 * omitted terms are below 1e-19 relative), which skips the quaternion, atan2 and two square roots. */
static void chain_rotation_error(double err[3], const double Ra[9], const double Rb[9])
{
    /* E_ij = row i of Rb . row j of Ra */
    double e21 = Rb[6] * Ra[3] + Rb[7] * Ra[4] + Rb[8] * Ra[5], e12 = Rb[3] * Ra[6] + Rb[4] * Ra[7] + Rb[5] * Ra[8];
    double e02 = Rb[0] * Ra[6] + Rb[1] * Ra[7] + Rb[2] * Ra[8], e20 = Rb[6] * Ra[0] + Rb[7] * Ra[1] + Rb[8] * Ra[2];
    double e10 = Rb[3] * Ra[0] + Rb[4] * Ra[1] + Rb[5] * Ra[2], e01 = Rb[0] * Ra[3] + Rb[1] * Ra[4] + Rb[2] * Ra[5];
    double v[3] = {0.5 * (e21 - e12), 0.5 * (e02 - e20), 0.5 * (e10 - e01)};
    double s2 = v3_dot(v, v);
    if (s2 < 1e-6) {   /* theta < 1e-3 rad, or near pi (where sin is small too): the trace tells them apart */
        double tr = Rb[0] * Ra[0] + Rb[1] * Ra[1] + Rb[2] * Ra[2] + Rb[3] * Ra[3] + Rb[4] * Ra[4] + Rb[5] * Ra[5] +
                    Rb[6] * Ra[6] + Rb[7] * Ra[7] + Rb[8] * Ra[8];
        if (tr > 1.0) {
            v3_scale(err, v, 1.0 + s2 * (1.0 / 6.0 + s2 * (3.0 / 40.0)));
            return;
        }
    }
    m3_rotation_error(err, Ra, Rb);
}

/* Pose error of the tool (world transforms Rw, pw) against the target, e[0..6); returns the residual
 * |e[0..3)| + |e[3..6)| (the IK's convergence measure). */
static double chain_tool_error_at(const Chain *c, const double (*Rw)[9], const double (*pw)[3], const double pos[3],
                                  const double *Rt, double e[6])
{
    double p[3], R[9];
    const double *Rtool = R;
    if (c->tool_R_identity) { /* the tool's rotation is its link's (the product with I differs in signs of 0 only) */
        chain_tool_pose_at(c, Rw, pw, p, NULL);
        Rtool = Rw[c->tool_link];
    } else {
        chain_tool_pose_at(c, Rw, pw, p, R);
    }
    v3_sub(e, pos, p);
    if (Rt) chain_rotation_error(e + 3, Rtool, Rt);
    else v3_set(e + 3, 0, 0, 0);
    return v3_norm(e) + v3_norm(e + 3);
}

/* Pose error of the tool (after chain_fk_world) against the target; returns the squared norm, e[0..6). */
static double chain_tool_error(Chain *c, const double pos[3], const double *Rt, double e[6])
{
    chain_tool_error_at(c, (const double (*)[9])c->Rw, (const double (*)[3])c->pw, pos, Rt, e);
    return v3_dot(e, e) + v3_dot(e + 3, e + 3);
}

/* Pose error of the tool at q against the target; returns the squared norm, e[0..rows). */
static double chain_ik_error(Chain *c, const double *q, const double pos[3], const double *Rt, double e[6])
{
    chain_fk_world(c, q);
    return chain_tool_error(c, pos, Rt, e);
}

/* The IK's tool pose at q (cos/sin cq, sq) and its error against the target, e[0..6); returns the residual
 * |e[0..3)| + |e[3..6)|. The same bits as chain_fk_world_trig followed by chain_tool_error_at (every product and sum
 * is theirs, in their order, one lane per row), but only along the joints from the base to the tool link, keeping
 * the running rotation as three column vectors and storing none of the links' transforms (the IK's trial points need
 * only the tool's pose; the Jacobian's factorisation makes them with chain_fk_world_trig). Rt NULL: position only. */
static inline __attribute__((always_inline)) double chain_ik_pose_error_n(const Chain *c, const double *q,
                                                                          const double *cq, const double *sq,
                                                                          const double pos[3], const double *Rt,
                                                                          double e[6])
{
    /* P0, P1, P2: the running rotation's columns (chain_fk_world_trig's I3 at the base); x: the position (its O3) */
    ChainV4 P0 = {1, 0, 0, 0}, P1 = {0, 1, 0, 0}, P2 = {0, 0, 1, 0}, x = {0, 0, 0, 0};
    for (int k = 0; k < c->ik_np; k++) {
        const ChainIkLink *L = &c->ik_link[k];
        int i = L->i;
        /* chain_fk_world_trig's DH rows, one lane per row, else chain_rel_trig, m3_mul, m3_mulv and v3_add by
         * columns */
        if (!chain_dh_step_sw(L, cq[i], sq[i], &P0, &P1, &P2, &x)) {
            const ChainJoint *jt = &c->j[i];
            ChainV4 N0, N1, N2;
            double Rr[9], r[3];
            if (jt->revolute) {
                for (int m = 0; m < 9; m++) Rr[m] = jt->C[m] + cq[i] * jt->AmC[m] + sq[i] * jt->B[m];
                v3_copy(r, jt->p0);
            } else {
                memcpy(Rr, jt->A, sizeof Rr);
                for (int m = 0; m < 3; m++) r[m] = jt->p0[m] + q[i] * jt->R0a[m];
            }
            if (k == 0) {   /* the base's child: its relative transform is its world one */
                N0 = (ChainV4){Rr[0], Rr[3], Rr[6], 0};
                N1 = (ChainV4){Rr[1], Rr[4], Rr[7], 0};
                N2 = (ChainV4){Rr[2], Rr[5], Rr[8], 0};
                x = (ChainV4){r[0], r[1], r[2], 0};
            } else {
                N0 = P0 * Rr[0] + P1 * Rr[3] + P2 * Rr[6];
                N1 = P0 * Rr[1] + P1 * Rr[4] + P2 * Rr[7];
                N2 = P0 * Rr[2] + P1 * Rr[5] + P2 * Rr[8];
                x = x + (P0 * r[0] + P1 * r[1] + P2 * r[2]);
            }
            P0 = N0, P1 = N1, P2 = N2;
        }
    }
    /* the tool point and rotation (chain_tool_pose_at) */
    const double *tp = c->tool_p;
    if (!c->ik_tool_p_zero) x = x + (P0 * tp[0] + P1 * tp[1] + P2 * tp[2]);
    if (!c->tool_R_identity) {
        const double *T = c->tool_R;
        ChainV4 N0 = P0 * T[0] + P1 * T[3] + P2 * T[6];
        ChainV4 N1 = P0 * T[1] + P1 * T[4] + P2 * T[7];
        ChainV4 N2 = P0 * T[2] + P1 * T[5] + P2 * T[8];
        P0 = N0, P1 = N1, P2 = N2;
    }
    e[0] = pos[0] - x[0], e[1] = pos[1] - x[1], e[2] = pos[2] - x[2];
    if (!Rt) {
        v3_set(e + 3, 0, 0, 0);
        return v3_norm(e) + v3_norm(e + 3);
    }
    /* chain_rotation_error(e + 3, Ra = the tool's rotation, Rb = Rt): row i of E = Rb Ra^T, lane j = e_ij */
    ChainV4 E0 = P0 * Rt[0] + P1 * Rt[1] + P2 * Rt[2];
    ChainV4 E1 = P0 * Rt[3] + P1 * Rt[4] + P2 * Rt[5];
    ChainV4 E2 = P0 * Rt[6] + P1 * Rt[7] + P2 * Rt[8];
    double v[3] = {0.5 * (E2[1] - E1[2]), 0.5 * (E0[2] - E2[0]), 0.5 * (E1[0] - E0[1])};
    double s2 = v3_dot(v, v);
    /* the trace only tells theta < 1e-3 (about 3) from theta near pi (about -1): summed as e00 + e11 + e22, not in
     * chain_rotation_error's order, which cannot change the comparison */
    if (s2 < 1e-6 && E0[0] + E1[1] + E2[2] > 1.0) {
        v3_scale(e + 3, v, 1.0 + s2 * (1.0 / 6.0 + s2 * (3.0 / 40.0)));
    } else {
        double Ra[9] = {P0[0], P1[0], P2[0], P0[1], P1[1], P2[1], P0[2], P1[2], P2[2]};
        m3_rotation_error(e + 3, Ra, Rt);
    }
    return v3_norm(e) + v3_norm(e + 3);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static double chain_ik_pose_error_avx2(const Chain *c, const double *q,
                                                                     const double *cq, const double *sq,
                                                                     const double pos[3], const double *Rt,
                                                                     double e[6])
{
    return chain_ik_pose_error_n(c, q, cq, sq, pos, Rt, e);
}
#endif

static double chain_ik_pose_error_sse(const Chain *c, const double *q, const double *cq, const double *sq,
                                      const double pos[3], const double *Rt, double e[6])
{
    return chain_ik_pose_error_n(c, q, cq, sq, pos, Rt, e);
}

/* chain_ik_pose_error_n with AVX where the CPU has AVX2 (c->trig_vec), else SSE2: the same bits either way. */
static double chain_ik_pose_error(const Chain *c, const double *q, const double *cq, const double *sq,
                                  const double pos[3], const double *Rt, double e[6])
{
#if defined(__x86_64__)
    if (c->trig_vec) return chain_ik_pose_error_avx2(c, q, cq, sq, pos, Rt, e);
#endif
    return chain_ik_pose_error_sse(c, q, cq, sq, pos, Rt, e);
}

/* The joints from the base to the tool link, base first, for chain_ik_pose_error. */
static void chain_ik_setup(Chain *c)
{
    for (int i = 0; i < c->n; i++) {
        const ChainJoint *jt = &c->j[i];
        ChainIkLink *L = &c->fk_link[i];
        memset(L, 0, sizeof *L);
        L->i = i;
        L->kind = CHAIN_IK_GENERAL;
        L->code = -1;
        if (!jt->dh) continue;
        L->u = jt->perm[0] + (jt->psign[0] < 0 ? 3 : 0);
        L->v = jt->perm[1] + (jt->psign[1] < 0 ? 3 : 0);
        L->w = jt->perm[2] + (jt->psign[2] < 0 ? 3 : 0);
        int uvw = 100 * L->u + 10 * L->v + L->w;
        L->kind = uvw == 12 ? CHAIN_IK_DH_I : uvw == 24 ? CHAIN_IK_DH_XP : uvw == 51 ? CHAIN_IK_DH_XM : CHAIN_IK_DH;
        for (int m = 0; m < 3; m++) {
            L->o[m] = jt->p0[m];
            L->om |= (jt->p0[m] != 0) << m;
        }
        L->code = 8 * (L->kind - CHAIN_IK_DH) + L->om;
    }
    int np = 0;
    for (int i = c->tool_link; i >= 0; i = c->j[i].parent) np++;
    c->ik_np = np;
    for (int i = c->tool_link, k = np; i >= 0; i = c->j[i].parent) c->ik_link[--k] = c->fk_link[i];
    c->ik_tool_p_zero = c->tool_p[0] == 0 && c->tool_p[1] == 0 && c->tool_p[2] == 0;
    for (int i = 0; i < c->n; i++) c->ik_qmin[i] = c->j[i].qmin, c->ik_qmax[i] = c->j[i].qmax;
}

/* Fast-path thresholds. A tracking seed (the previous cycles' answers, extrapolated) is off by ~1e-13..1e-4; the
 * path is only tried below FAST_MAX_RES, takes steps of at most FAST_MAX_STEP per joint (so it never jumps to
 * another branch near a singularity), and gives up when the Jacobian's pivots spread by more than FAST_MIN_PIVOT
 * (near-singular: damping matters there), when a step does not at least halve the residual, or after
 * FAST_MAX_ITER steps. */
#define FAST_MAX_RES 1e-2
#define FAST_MAX_STEP 0.05
#define FAST_MIN_PIVOT 1e-4
#define FAST_MAX_ITER 8
/* The factorisation is kept from call to call (chord steps, no Jacobian): an answer reached by such steps alone
 * must meet the tighter CHORD_TOL (a chord step leaves ~ e0 |q - q_factored|, not e0^2, and the dry-run's qdd are
 * second differences of the answers over 1 ms: an error of 1e-13 there is 4e-7 rad/s^2). It is used for a seed
 * within CHORD_MAX_DIST (per joint) of the point it was factored at, and dropped after a chord step that
 * contracted the residual by less than CHORD_KAPPA (the next call factors afresh at its seed). */
#define CHORD_TOL 1e-13
#define CHORD_MAX_DIST 0.05
#define CHORD_KAPPA 3e-2
#define CHORD_MAX_RES 1e-6
#define CORR_MAX 1e-6

/* Factor the square n x n matrix A (row-major, in place) as P A = L U with partial pivoting; piv[k] is the row
 * swapped into k. Returns min |u_kk| / max |u_kk| (0: singular). */
static inline __attribute__((always_inline)) double chain_lu_n(double *A, int n, int *piv)
{
    double umax = 0, umin = INFINITY;
#pragma GCC unroll 6
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        piv[k] = p;
        if (p != k)
            for (int j = 0; j < n; j++) {
                double t = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = t;
            }
        double d = A[k * n + k], ad = fabs(d);
        if (!(ad > 0)) return 0;
        umax = ad > umax ? ad : umax;
        umin = ad < umin ? ad : umin;
        double inv = 1.0 / d;
#pragma GCC unroll 6
        for (int i = k + 1; i < n; i++) {
            double l = A[i * n + k] * inv;
            A[i * n + k] = l;
            for (int j = k + 1; j < n; j++) A[i * n + j] -= l * A[k * n + j];
        }
    }
    return umax > 0 ? umin / umax : 0;
}

/* chain_lu_n with n = 6 known to the compiler (the common square case: 6 joints, full pose), else general. */
static double chain_lu(double *A, int n, int *piv)
{
    return n == 6 ? chain_lu_n(A, 6, piv) : chain_lu_n(A, n, piv);
}

/* The inverse of A from its factors (P A = L U, chain_lu_n) into X by columns (X[k * n + i]: row i, column k):
 * column k is the solve of unit vector k (the row swaps, L's forward and U's backward substitution), all six at
 * once: row i of B holds entry i of each, in three pairs of doubles, so each column gets the same operations in the
 * same order as solved alone. */
static inline __attribute__((always_inline)) void chain_lu_inverse_n(const double *f, int n, const int *piv,
                                                                     double *lu)
{
    ChainV2 B[6][3];
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++)
#pragma GCC unroll 3
        for (int m = 0; m < 3; m++) B[i][m] = (ChainV2){2 * m == i, 2 * m + 1 == i};
#pragma GCC unroll 6
    for (int k = 0; k < n; k++)
        if (piv[k] != k)
#pragma GCC unroll 3
            for (int m = 0; m < 3; m++) {
                ChainV2 t = B[k][m];
                B[k][m] = B[piv[k]][m], B[piv[k]][m] = t;
            }
#pragma GCC unroll 6
    for (int i = 1; i < n; i++)
#pragma GCC unroll 3
        for (int m = 0; m < 3; m++) {
            ChainV2 sum = B[i][m];
#pragma GCC unroll 6
            for (int k = 0; k < i; k++) sum -= f[i * n + k] * B[k][m];
            B[i][m] = sum;
        }
#pragma GCC unroll 6
    for (int i = n - 1; i >= 0; i--)
#pragma GCC unroll 3
        for (int m = 0; m < 3; m++) {
            ChainV2 sum = B[i][m];
#pragma GCC unroll 6
            for (int k = i + 1; k < n; k++) sum -= f[i * n + k] * B[k][m];
            B[i][m] = sum / f[i * n + i];
        }
#pragma GCC unroll 6
    for (int k = 0; k < n; k++)
#pragma GCC unroll 6
        for (int i = 0; i < n; i++) lu[k * n + i] = B[i][k / 2][k % 2];
}

/* Factor the IK's Jacobian c->ik_J (rows x n) for Newton steps: a square J by LU with partial pivoting, then its
 * inverse into lu (n x n, by columns: lu[k * n + i] is row i, column k; each step is then one matrix-vector product,
 * a column per joint of e, ~40 instructions for the PUMA instead of the LU solve's ~140; the step differs from the
 * solve's by rounding only, and the pivots bound cond(J) by ~1e4);
 * otherwise J Jt by Cholesky (the minimum-norm step; lu holds the factor). Returns 0, or -1 when the Jacobian is
 * near-singular. */
static int chain_newton_factor(Chain *c, int rows, double *lu)
{
    int n = c->n, piv[6];
    const double *J = c->ik_J;
    if (rows == n) {
        double f[36];
        memcpy(f, J, (size_t)rows * n * sizeof(double));
        if (!(chain_lu(f, n, piv) >= FAST_MIN_PIVOT)) return -1;
        if (n == 6) chain_lu_inverse_n(f, 6, piv, lu);
        else chain_lu_inverse_n(f, n, piv, lu);
        return 0;
    }
    if (n < rows) return -1;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k <= r; k++) {
            double sum = 0;
            for (int j = 0; j < n; j++) sum += J[r * n + j] * J[k * n + j];
            lu[r * 6 + k] = sum;
        }
    double y[6] = {0};
    if (spd_solve(lu, y, rows, 6, 0) < 0) return -1;
    double dmax = 0, dmin = INFINITY;
    for (int r = 0; r < rows; r++) {
        dmax = fmax(dmax, lu[r * 6 + r]);
        dmin = fmin(dmin, lu[r * 6 + r]);
    }
    return dmin >= FAST_MIN_PIVOT * dmax ? 0 : -1;
}

/* dq from the factorisation of chain_newton_factor (of c->ik_J) and the error e. A square J: dq = J^-1 e, row i
 * summed as lu(i, 0) e[0] + lu(i, 1) e[1] + ... in that order, so each lane of the column sums has its row's bits. */
static inline __attribute__((always_inline)) void chain_newton_step_n(const Chain *c, int rows, const double *lu,
                                                                      const double e[6], double *dq)
{
    int n = c->n;
    if (rows == 6 && n == 6) {   /* the common case: columns of 4 + 2 rows */
        ChainV4 a, t;
        ChainV2 b, u;
        memcpy(&a, lu, sizeof a), memcpy(&b, lu + 4, sizeof b);
        a = a * e[0], b = b * e[0];
#pragma GCC unroll 5
        for (int k = 1; k < 6; k++) {
            memcpy(&t, lu + 6 * k, sizeof t), memcpy(&u, lu + 6 * k + 4, sizeof u);
            a = a + t * e[k], b = b + u * e[k];
        }
        memcpy(dq, &a, sizeof a), memcpy(dq + 4, &b, sizeof b);
        return;
    }
    if (rows == n) {
        for (int i = 0; i < n; i++) {
            double d = 0;
            for (int k = 0; k < n; k++) d += lu[k * n + i] * e[k];
            dq[i] = d;
        }
        return;
    }
    double y[6];
    memcpy(y, e, (size_t)rows * sizeof(double));
    for (int i = 0; i < rows; i++) {          /* L y = e */
        double sum = y[i];
        for (int k = 0; k < i; k++) sum -= lu[i * 6 + k] * y[k];
        y[i] = sum / lu[i * 6 + i];
    }
    for (int i = rows - 1; i >= 0; i--) {     /* L^T x = y */
        double sum = y[i];
        for (int k = i + 1; k < rows; k++) sum -= lu[k * 6 + i] * y[k];
        y[i] = sum / lu[i * 6 + i];
    }
    for (int j = 0; j < n; j++) {
        double d = 0;
        for (int r = 0; r < rows; r++) d += c->ik_J[r * n + j] * y[r];
        dq[j] = d;
    }
}

/* Keep the correction from the caller's seed (clamped, in q) to the Newton path's answer a, and copy a into q; the
 * next seed gets the correction when it is small (<= CORR_MAX per joint). An answer of the damped path keeps none
 * (c->ik_ref_corr_ok = 0). */
static void chain_ik_remember(Chain *c, double *q, const double *a)
{
    int n = c->n, ok = 1, i = 0;
#if defined(__SSE2__)
    const __m128d cmax = _mm_set1_pd(CORR_MAX), absm = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
    int om = 3;
    for (; i + 2 <= n; i += 2) {   /* two joints at a time, as the scalar loop below */
        __m128d av = _mm_loadu_pd(a + i), d = _mm_sub_pd(av, _mm_loadu_pd(q + i));
        _mm_storeu_pd(c->ik_ref_corr + i, d);
        om &= _mm_movemask_pd(_mm_cmple_pd(_mm_and_pd(d, absm), cmax));
        _mm_storeu_pd(q + i, av);
    }
    ok = om == 3;
#endif
    for (; i < n; i++) {
        double d = a[i] - q[i];
        c->ik_ref_corr[i] = d;
        ok &= fabs(d) <= CORR_MAX;
        q[i] = a[i];
    }
    c->ik_ref_corr_ok = ok;
}

/* The caller's seed q_seed clamped into the joint limits into q, and the tracking path's seed into w: q plus the last call's correction (its answer
 * minus its caller's seed) when that was small (a tracking call, chain_ik_remember). A planner extrapolating its
 * last answers polynomially makes errors that change slowly from cycle to cycle (by the next derivative times the
 * cycle), so this removes most of it: with the planner's cubic extrapolation the seed error drops from ~1e-11 to
 * ~1e-13 (the quartic's). The answer depends on the IK calls before it only. The seed's cos/sin are chain_trig's,
 * so a seed within the tolerance is the answer as it is (one pose error). Returns 1 when the kept factorisation (if any)
 * was made within CHORD_MAX_DIST of the seed in every joint. */
static inline __attribute__((always_inline)) int chain_ik_seed(const Chain *c, const double *q_seed, double *q,
                                                              ChainCache *restrict w)
{
    int n = c->n, near = 1, ok = c->ik_ref_corr_ok, i = 0;
    const double *corr = c->ik_ref_corr, *lq = c->ik_lu_q, *lo = c->ik_qmin, *hi = c->ik_qmax;
#if defined(__SSE2__)
    /* two joints at a time, the bits of the scalar loop below: maxpd(l, v) is l > v ? l : v, minpd(h, v) is
     * h < v ? h : v (a NaN v stays), and the clamp of u as one max of a min since lo <= hi */
    const __m128d dmax = _mm_set1_pd(CHORD_MAX_DIST), absm = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
    int nm = 3;
    for (; i + 2 <= n; i += 2) {
        __m128d l = _mm_loadu_pd(lo + i), h = _mm_loadu_pd(hi + i);
        __m128d v = _mm_min_pd(h, _mm_max_pd(l, _mm_loadu_pd(q_seed + i)));
        _mm_storeu_pd(q + i, v);
        __m128d u = ok ? _mm_add_pd(v, _mm_loadu_pd(corr + i)) : v;
        u = _mm_max_pd(l, _mm_min_pd(h, u));
        _mm_storeu_pd(w->q + i, u);
        __m128d d = _mm_and_pd(_mm_sub_pd(u, _mm_loadu_pd(lq + i)), absm);
        nm &= _mm_movemask_pd(_mm_cmple_pd(d, dmax));
    }
    near = nm == 3;
#endif
    for (; i < n; i++) {
        double v = q_seed[i];   /* the caller's seed clamped (chain_clamp) */
        v = v < lo[i] ? lo[i] : v;
        v = v > hi[i] ? hi[i] : v;
        q[i] = v;
        /* the corrected seed clamped like the caller's: it may be the answer as it is */
        double u = ok ? v + corr[i] : v;
        u = u < lo[i] ? lo[i] : u > hi[i] ? hi[i] : u;
        w->q[i] = u;
        near &= fabs(u - lq[i]) <= CHORD_MAX_DIST;
    }
    return near;
}

typedef double (*ChainIkPoint)(const Chain *c, ChainCache *w, const double pos[3], const double *Rt, double e[6]);

/* The IK's evaluation of a point w (w->q set): chain_trig's cos/sin of it into w, and its pose error (returned as
 * chain_ik_pose_error's residual, e). The tracking path's body (chain_ik_track_n) takes one of these as a constant
 * and inlines it: compiled once with AVX (libmvec's blocks and the AVX pose error, where the CPU has AVX2) and once
 * without (chain_trig and chain_ik_pose_error): the same bits either way. */
#if defined(__x86_64__)
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) double chain_ik_point_avx2(const Chain *c, ChainCache *w, const double pos[3], const double *Rt, double e[6])
{
    if (c->n >= 4 && c->n <= 8) chain_trig_avx2_2(c->n, w->q, w->cq, w->sq);
    else chain_trig_avx2(c->n, w->q, w->cq, w->sq);
    return chain_ik_pose_error_n(c, w->q, w->cq, w->sq, pos, Rt, e);
}
#endif

static inline __attribute__((always_inline)) double chain_ik_point_sse(const Chain *c, ChainCache *w,
                                                                       const double pos[3], const double *Rt,
                                                                       double e[6])
{
    chain_trig(c, w->q, w->cq, w->sq);
    return chain_ik_pose_error(c, w->q, w->cq, w->sq, pos, Rt, e);
}

/* Jacobian of the tool at the point of w (q, cos/sin), factored and kept for this call's and later calls' steps
 * (c->ik_J, ik_lu; ik_lu_q = w->q). The world transforms it needs go into c->ik_work's. Returns 0, or -1
 * when near-singular (nothing kept). */
__attribute__((noinline)) static int chain_ik_factor(Chain *c, int rows, const ChainCache *w)
{
    chain_fk_world_trig(c, w->q, w->cq, w->sq, c->ik_work.Rw, c->ik_work.pw);
    const double (*Rw)[9] = (const double (*)[9])c->ik_work.Rw;
    const double (*pw)[3] = (const double (*)[3])c->ik_work.pw;
    double x[3];
    chain_tool_pose_at(c, Rw, pw, x, NULL);
    chain_jac_rows(c, Rw, pw, c->tool_link, x, rows, 1.0, c->ik_J);
    c->ik_stats.factored++;
    if (chain_newton_factor(c, rows, c->ik_lu) < 0) {
        c->ik_lu_rows = 0;
        return -1;
    }
    c->ik_lu_rows = rows;
    for (int i = 0; i < c->n; i++) c->ik_lu_q[i] = w->q[i];
    return 0;
}

/* The tracking path: Newton steps from the seed in c->ik_work (q within limits, cos/sin of q computed, error e,
 * residual *res). The steps use the kept factorisation of an earlier call (chord steps) when the seed is near the
 * point it was made at, else a Jacobian factored at the seed; a chord step that fails (does not contract tenfold,
 * or breaks the step or limit bound) makes a fresh one at the current point. Every trial point's cos/sin are
 * chain_trig's, its error chain_ik_pose_error's (the tool's pose only: the answer enters the cache without world
 * transforms, which chain_fk_world makes, the same bits, if a later call needs them); the points go into the cache
 * entry the answer replaces or into c->ik_work, alternately. The answer meets CHORD_TOL, or ik_tol when its last step used a Jacobian factored in
 * this call (as without kept factorisations). On success e, *res hold the answer's error, the answer is the cache
 * entry returned (newest), and *steps the steps taken; NULL when it gives up (the seed's entry may have been
 * dropped from the cache); the caller then runs the damped least squares from the seed. */
static inline __attribute__((always_inline)) ChainCache *chain_ik_newton(Chain *c, const double pos[3],
                                                                          const double *Rt, int rows, int near,
                                                                          double e[6], double *res, int *steps_out,
                                                                          ChainIkPoint point)
{
    int n = c->n, steps = 0, slot = c->cache_last == CHAIN_NCACHE - 1 ? 0 : c->cache_last + 1;
    double r = *res, en[6], dq[N_MAX];
    double ctol = 0.5 * c->ik_tol < CHORD_TOL ? 0.5 * c->ik_tol : CHORD_TOL, tol = ctol;
    ChainCache *cur = &c->ik_work, *nb = &c->cache[slot];
    nb->valid = 0;
    /* usable: the kept factorisation serves this seed; fresh: it is at the current point; made: in this call;
     * (a seed within tol is the answer as it is: its cos/sin are chain_trig's) */
    int usable = (c->ik_lu_rows == rows) & (r <= CHORD_MAX_RES) & near, fresh = 0, made = 0;
    while (!(r <= tol)) {
        if (steps == FAST_MAX_ITER) { c->ik_stats.fallback_contract++; return NULL; }
        if (!usable) {
            if (chain_ik_factor(c, rows, cur) < 0) { c->ik_stats.fallback_singular++; return NULL; }
            usable = made = fresh = 1;
        }
        chain_newton_step_n(c, rows, c->ik_lu, e, dq);
        int big = 0, out = 0;
        const double *lo = c->ik_qmin, *hi = c->ik_qmax;
        int j = 0;
#if defined(__SSE2__)
        const __m128d smax = _mm_set1_pd(FAST_MAX_STEP), absm = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
        for (; j + 2 <= n; j += 2) {   /* two joints at a time, as the scalar loop below */
            __m128d d = _mm_loadu_pd(dq + j), x = _mm_add_pd(_mm_loadu_pd(cur->q + j), d);
            big |= _mm_movemask_pd(_mm_cmpnle_pd(_mm_and_pd(d, absm), smax));
            out |= _mm_movemask_pd(_mm_or_pd(_mm_cmplt_pd(x, _mm_loadu_pd(lo + j)),
                                             _mm_cmpgt_pd(x, _mm_loadu_pd(hi + j))));
            _mm_storeu_pd(nb->q + j, x);
        }
#endif
        for (; j < n; j++) {
            double qj = cur->q[j] + dq[j];
            big |= !(fabs(dq[j]) <= FAST_MAX_STEP);
            out |= (qj < lo[j]) | (qj > hi[j]);
            nb->q[j] = qj;
        }
        int bad = big ? 1 : out ? 2 : 0;
        double rn = INFINITY;
        if (!bad) rn = point(c, nb, pos, Rt, en);
        if (rn <= (made ? c->ik_tol : ctol) || rn <= (fresh ? 0.5 : 0.1) * r) {
            ChainCache *t = cur;
            cur = nb, nb = t;
            if (!fresh && rn > CHORD_KAPPA * r) c->ik_lu_rows = 0; /* kept too long: factor afresh next call */
            for (int k = 0; k < 6; k++) e[k] = en[k];
            r = rn;
            tol = made ? c->ik_tol : ctol;
            fresh = 0;
            steps++;
            continue;
        }
        if (fresh) {
            if (bad == 1) c->ik_stats.fallback_step++;
            else if (bad == 2) c->ik_stats.fallback_limit++;
            else c->ik_stats.fallback_contract++;
            return NULL;
        }
        /* the chord step failed: factor afresh at the current point (chain_ik_factor makes its transforms) */
        if (chain_ik_factor(c, rows, cur) < 0) { c->ik_stats.fallback_singular++; return NULL; }
        usable = made = fresh = 1;
    }
    if (!made) c->ik_stats.chord++;
    *res = r;
    *steps_out = steps;
    ChainCache *ans = &c->cache[slot];
    if (cur != ans) { /* an even number of steps: the answer is in the IK's work entry */
        size_t len = (size_t)n * sizeof(double);
        memcpy(ans->q, cur->q, len);
        memcpy(ans->cq, cur->cq, len);
        memcpy(ans->sq, cur->sq, len);
    }
    ans->valid = 1;
    ans->has_world = 0;   /* chain_fk_world makes them, the same bits, if a call needs them */
    c->cache_last = slot;
    return ans;
}

/* The tracking path of chain_ik: the seed (chain_ik_seed) into q and c->ik_work, its error, then the Newton steps
 * (chain_ik_newton) unless the seed is farther than FAST_MAX_RES. Returns the answer's cache entry (e, *res, *steps
 * its error, residual and steps), or NULL for the damped path. One body for the AVX and the SSE2 forms, so the
 * points' cos/sin and pose errors are evaluated without a call each. */
static inline __attribute__((always_inline)) ChainCache *chain_ik_track_n(Chain *c, const double pos[3],
                                                                         const double *Rt, int rows,
                                                                         const double *q_seed, double *q, double e[6],
                                                                         double *res, int *steps, ChainIkPoint point)
{
    ChainCache *w = &c->ik_work;
    int near = chain_ik_seed(c, q_seed, q, w);
    *res = point(c, w, pos, Rt, e);
    if (!(*res <= FAST_MAX_RES)) {
        c->ik_stats.fallback_far++;
        return NULL;
    }
    return chain_ik_newton(c, pos, Rt, rows, near, e, res, steps, point);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static ChainCache *chain_ik_track_avx2(Chain *c, const double pos[3],
                                                                       const double *Rt, int rows,
                                                                       const double *q_seed, double *q, double e[6],
                                                                       double *res, int *steps)
{
    return chain_ik_track_n(c, pos, Rt, rows, q_seed, q, e, res, steps, chain_ik_point_avx2);
}
#endif

static ChainCache *chain_ik_track_sse(Chain *c, const double pos[3], const double *Rt, int rows,
                                      const double *q_seed, double *q, double e[6], double *res, int *steps)
{
    return chain_ik_track_n(c, pos, Rt, rows, q_seed, q, e, res, steps, chain_ik_point_sse);
}

/* Numerical IK. A seed close to the answer (a tracking cycle) goes first through plain Newton steps
 * (chain_ik_newton); when those give up, or the seed is far, Levenberg-Marquardt damped least squares,
 * dq = J^T (J J^T + lambda^2 I)^-1 e, projected onto the joint limits. The damping shrinks after an improving step (towards Gauss-Newton) and grows after a failed
 * one; when it exceeds its ceiling, or the iterations run out, the target is reported unreachable. quat NULL:
 * position only. */
static int chain_ik(void *s, const double pos[3], const double quat[4], const double *q_seed, double *q,
                    ModelIkInfo *info)
{
    Chain *c = s;
    int n = c->n, rows = quat ? 6 : 3, it = 0, st = MODEL_EUNREACH;
    double e[6], lambda = 1e-2;
    /* the target rotation: kept in c->ik_Rt, as it is when the quaternion has the last call's bits (most cycles of
     * a move) */
    if (quat && !(c->ik_quat_ok && chain_same_bits(quat, c->ik_quat, 4))) {
        double qn = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        if (!(qn > 0)) return MODEL_EINVAL;
        double u[4] = {quat[0] / qn, quat[1] / qn, quat[2] / qn, quat[3] / qn};
        quat_to_m3(c->ik_Rt, u);
        memcpy(c->ik_quat, quat, sizeof c->ik_quat);
        c->ik_quat_ok = 1;
    }
    const double *Rt = quat ? c->ik_Rt : NULL;
    double err2, res;
    c->ik_stats.calls++;
    if (!c->ik_fast) {
        memcpy(q, q_seed, (size_t)n * sizeof(double));
        chain_clamp(c, q);
    } else { /* the tracking path first; the damped path below starts again from the (clamped) seed */
        int steps = 0;
        const double *rt = Rt;
        ChainCache *ans;
#if defined(__x86_64__)
        if (c->trig_vec && !c->ik_track_sse) ans = chain_ik_track_avx2(c, pos, rt, rows, q_seed, q, e, &res, &steps);
        else
#endif
            ans = chain_ik_track_sse(c, pos, rt, rows, q_seed, q, e, &res, &steps);
        if (ans) {
            c->ik_stats.fast++;
            chain_ik_remember(c, q, ans->q);
            if (info) {
                info->iterations = steps;
                info->residual = res;
            }
            return MODEL_OK;
        }
        /* back to the seed: the damped least squares below runs exactly as without the fast path */
    }
    err2 = chain_ik_error(c, q, pos, Rt, e);
    res = v3_norm(e) + v3_norm(e + 3);
    for (; it < c->ik_max_iter; it++) {
        if (res <= c->ik_tol) { st = MODEL_OK; break; }
        double x[3];
        chain_tool_pose(c, x, NULL);   /* world transforms are those of q (last accepted) */
        chain_jac_world(c, c->tool_link, x, c->J);
        gsl_matrix_view Lv = gsl_matrix_submatrix(c->L6, 0, 0, rows, rows);
        gsl_vector_view yv = gsl_vector_subvector(c->y6, 0, rows);
        int improved = 0;
        while (!improved && lambda <= 1e4) {
            for (int r = 0; r < rows; r++) {
                for (int k = 0; k <= r; k++) {
                    double sum = 0;
                    for (int j = 0; j < n; j++) sum += c->J[r * n + j] * c->J[k * n + j];
                    gsl_matrix_set(&Lv.matrix, r, k, sum + (r == k ? lambda * lambda : 0.0));
                }
                gsl_vector_set(&yv.vector, r, e[r]);
            }
            if (gsl_linalg_cholesky_decomp1(&Lv.matrix) != GSL_SUCCESS ||
                gsl_linalg_cholesky_svx(&Lv.matrix, &yv.vector) != GSL_SUCCESS)
                return MODEL_ENUMERIC;
            for (int j = 0; j < n; j++) {
                double d = 0;
                for (int r = 0; r < rows; r++) d += c->J[r * n + j] * gsl_vector_get(&yv.vector, r);
                c->qtry[j] = q[j] + d;
            }
            chain_clamp(c, c->qtry);
            double etry[6];
            double err2try = chain_ik_error(c, c->qtry, pos, Rt, etry);
            if (err2try < err2) {
                improved = 1;
                memcpy(q, c->qtry, (size_t)n * sizeof(double));
                memcpy(e, etry, sizeof etry);
                err2 = err2try;
                res = v3_norm(e) + v3_norm(e + 3);
                lambda = fmax(lambda * 0.3, 1e-9);
            } else {
                lambda *= 10.0;
            }
        }
        if (!improved) {
            chain_fk_world(c, q);     /* leave the workspace consistent with the answer */
            break;
        }
    }
    if (st != MODEL_OK && res <= c->ik_tol) st = MODEL_OK;
    if (st == MODEL_OK) c->ik_ref_corr_ok = 0;   /* chain_ik_remember: no correction from a damped answer */
    if (info) {
        info->iterations = it;
        info->residual = res;
    }
    return st;
}

static void chain_destroy(void *s)
{
    Chain *c = s;
    if (!c) return;
    gsl_matrix_free(c->L6);
    gsl_vector_free(c->y6);
    free(c);
}

/* Check one joint of the description; a message names it on failure. */
static int chain_check_joint(const ModelDesc *d, int i, char *err, size_t errlen)
{
    const ModelJoint *jd = &d->joint[i];
    const char *src = d->source[0] ? d->source : d->name;
    const double *R = jd->origin_R;
    if (jd->parent < -1 || jd->parent >= i) {
        snprintf(err, errlen, "%s: joint '%s': parent %d must be -1 or an earlier joint (< %d)", src, jd->name,
                 jd->parent, i);
        return MODEL_EINVAL;
    }
    if (jd->type != MODEL_REVOLUTE && jd->type != MODEL_PRISMATIC) {
        snprintf(err, errlen, "%s: joint '%s': unknown joint type", src, jd->name);
        return MODEL_EINVAL;
    }
    if (!(v3_norm(jd->axis) > 1e-12)) {
        snprintf(err, errlen, "%s: joint '%s': zero axis", src, jd->name);
        return MODEL_EINVAL;
    }
    double RtR[9], Rt[9];
    m3_transpose(Rt, R);
    m3_mul(RtR, Rt, R);
    double dev = 0;
    for (int k = 0; k < 9; k++) dev = fmax(dev, fabs(RtR[k] - (k % 4 == 0 ? 1.0 : 0.0)));
    double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                 R[2] * (R[3] * R[7] - R[4] * R[6]);
    if (!(dev < 1e-6) || !(det > 0)) {
        snprintf(err, errlen, "%s: joint '%s': origin rotation is not a proper rotation", src, jd->name);
        return MODEL_EINVAL;
    }
    const double *I = jd->inertia;
    if (!(jd->mass >= 0) || !isfinite(jd->mass) || fabs(I[1] - I[3]) > 1e-9 * (1 + fabs(I[1])) ||
        fabs(I[2] - I[6]) > 1e-9 * (1 + fabs(I[2])) || fabs(I[5] - I[7]) > 1e-9 * (1 + fabs(I[5])) ||
        I[0] < 0 || I[4] < 0 || I[8] < 0) {
        snprintf(err, errlen, "%s: joint '%s': link mass must be >= 0 and inertia symmetric with diagonal >= 0",
                 src, jd->name);
        return MODEL_EINVAL;
    }
    if (jd->limits.min > jd->limits.max) {
        snprintf(err, errlen, "%s: joint '%s': lower limit above upper limit", src, jd->name);
        return MODEL_EINVAL;
    }
    return MODEL_OK;
}

/* Precompute the per-joint constants of joint i. */
static void chain_setup_joint(ChainJoint *jt, const ModelJoint *jd)
{
    double n = v3_norm(jd->axis), *a = jt->axis, K[9], aaT[9];
    v3_scale(a, jd->axis, 1.0 / n);
    jt->parent = jd->parent;
    jt->revolute = jd->type == MODEL_REVOLUTE;
    v3_copy(jt->p0, jd->origin_xyz);
    memcpy(jt->A, jd->origin_R, sizeof jt->A);
    m3_mulv(jt->R0a, jt->A, a);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) aaT[3 * r + k] = a[r] * a[k];
    m3_skew(K, a);
    m3_mul(jt->B, jt->A, K);
    m3_mul(jt->C, jt->A, aaT);
    for (int k = 0; k < 9; k++) jt->AmC[k] = jt->A[k] - jt->C[k];
    jt->mass = jd->mass;
    v3_copy(jt->com, jd->com);
    v3_scale(jt->mc, jd->com, jd->mass);
    for (int k = 0; k < 9; k++) jt->Ic[k] = jd->inertia[k];
    /* symmetrise (the check allowed 1e-9 slack) */
    jt->Ic[1] = jt->Ic[3] = 0.5 * (jd->inertia[1] + jd->inertia[3]);
    jt->Ic[2] = jt->Ic[6] = 0.5 * (jd->inertia[2] + jd->inertia[6]);
    jt->Ic[5] = jt->Ic[7] = 0.5 * (jd->inertia[5] + jd->inertia[7]);
    double cc = v3_dot(jd->com, jd->com);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            jt->Io[3 * r + k] = jt->Ic[3 * r + k] + jd->mass * ((r == k ? cc : 0.0) - jd->com[r] * jd->com[k]);
    jt->qmin = jd->limits.min;
    jt->qmax = jd->limits.max;
    /* DH-like? axis exactly z and every column of R0 within 1e-15 of a signed unit vector */
    jt->dh = jt->revolute && a[0] == 0 && a[1] == 0 && a[2] == 1;
    int used[3] = {0, 0, 0};
    for (int k = 0; k < 3 && jt->dh; k++) {
        int found = 0;
        for (int r = 0; r < 3; r++) {
            double v = jt->A[3 * r + k];
            if (fabs(fabs(v) - 1) <= 1e-15 && !used[r]) {
                jt->perm[k] = r;
                jt->psign[k] = v > 0 ? 1.0 : -1.0;
                used[r] = 1;
                found++;
            } else if (fabs(v) > 1e-15) {
                found = 2;
            }
        }
        if (found != 1) jt->dh = 0;
    }
}

/* The RNE's constants of joint i (after chain_setup_joint); fast = 0 sends it to the general path. */
static void chain_rne_setup(ChainRneJoint *rj, const ChainJoint *jt, int fast)
{
    static const int io_k[6] = {0, 1, 2, 4, 5, 8};
    rj->dh = jt->dh && fast;
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
    if (rj->dh) {
        for (int k = 0; k < 3; k++) {
            int pk = jt->perm[k];
            rj->vperm_f[2 * k] = 2 * pk, rj->vperm_f[2 * k + 1] = 2 * pk + 1;
            rj->vperm_b[2 * pk] = 2 * k, rj->vperm_b[2 * pk + 1] = 2 * k + 1;
        }
        rj->vperm_f[6] = rj->vperm_b[6] = 6, rj->vperm_f[7] = rj->vperm_b[7] = 7;
        double ps0 = jt->psign[0], ps1 = jt->psign[1], ps2 = jt->psign[2];
        const double *p = jt->p0, *h = jt->mc, *I = jt->Io;
        double psc[4] = {ps0, ps1, 0, 0}, psz[4] = {0, 0, ps2, 0}, pss[4] = {ps1, -ps0, 0, 0};
        double r[3][4] = {{p[0], p[1], p[2], 0}, {p[1], p[2], p[0], 0}, {p[2], p[0], p[1], 0}};
        double hh[3][4] = {{h[0], h[1], h[2], 0}, {h[1], h[2], h[0], 0}, {h[2], h[0], h[1], 0}};
        double id[4] = {I[0], I[4], I[8], 0}, io1[4] = {I[1], I[5], I[6], 0}, io2[4] = {I[2], I[3], I[7], 0};
        memcpy(rj->v_psc, psc, sizeof psc), memcpy(rj->v_psz, psz, sizeof psz), memcpy(rj->v_pss, pss, sizeof pss);
        memcpy(rj->v_r, r, sizeof r), memcpy(rj->v_h, hh, sizeof hh);
        memcpy(rj->v_id, id, sizeof id), memcpy(rj->v_io1, io1, sizeof io1), memcpy(rj->v_io2, io2, sizeof io2);
    }
    rj->ps0 = (ChainV2){jt->psign[0], jt->psign[0]};
    rj->ps1 = (ChainV2){jt->psign[1], jt->psign[1]};
    rj->ps2 = (ChainV2){jt->psign[2], jt->psign[2]};
    for (int k = 0; k < 6; k++) rj->Io2[k] = (ChainV2){jt->Io[io_k[k]], jt->Io[io_k[k]]};
}

/* Allocate the GSL workspaces; MODEL_ENOMEM when any fails. */
static int chain_alloc(Chain *c)
{
    int n = c->n;
    c->L6 = gsl_matrix_alloc(6, 6);
    c->y6 = gsl_vector_alloc(6);
    c->sv_posonly = n < 6;
    for (int p = 0; p < 6; p++)
        for (int i = 0; i < 6; i++) c->sv_V[p][i] = p == i;
    c->sv_eta = 1; /* unknown: the first decomposition orthonormalises V */
    if (!c->L6 || !c->y6) return MODEL_ENOMEM;
    return MODEL_OK;
}

/* The constants L_i of the normalised Jacobian A (chain_sing_matrix): |dA/dq_i|_F <= L_i at every q, so |A(q) -
 * A(q')|_F <= sum_i L_i |q_i - q'_i| (A integrated along the segment between them). On the path from the base to the
 * tool (other joints leave A alone), column j is (z_j x r_j / l, z_j), r_j = x - p_j the tool point seen from joint
 * j, |r_j| <= R_j = the sum of the offsets between them (rotations keep lengths). Turning joint i turns everything
 * beyond it about z_i: for j beyond i, dz_j = z_i x z_j (norm <= 1) and dr_j = z_i x r_j, so |d(z_j x r_j)| <= 2 R_j;
 * for j = i only r_j turns (<= R_j); for j before i only x moves, by z_i x r_i (<= R_i). A prismatic joint on the
 * path makes the offsets depend on q: then no constants (sv_lip_ok = 0). */
static void chain_sing_lipschitz(Chain *c)
{
    int path[N_MAX], np = 0;
    double R[N_MAX], reach = v3_norm(c->tool_p);
    c->sv_lip_ok = 0;
    memset(c->sv_lip, 0, sizeof c->sv_lip);
    for (int i = c->tool_link; i >= 0; i = c->j[i].parent) {
        if (!c->j[i].revolute) return;
        R[i] = reach;
        reach += v3_norm(c->j[i].p0);
        path[np++] = i; /* from the tool towards the base: path[b] lies beyond path[a] when b < a */
    }
    double il = 1.0 / c->char_len;
    for (int a = 0; a < np; a++) {
        int i = path[a];
        double s2 = 0;
        for (int b = 0; b < np; b++) {
            int j = path[b];
            double dv = (b < a ? 2 * R[j] : b == a ? R[j] : R[i]) * il, dw = b < a && !c->sv_posonly ? 1 : 0;
            s2 += dv * dv + dw * dw;
        }
        c->sv_lip[i] = sqrt(s2) * (1 + 1e-12);
    }
    c->sv_lip_ok = 1;
    /* the first-order bound's second-derivative constants M_ab (path positions, base first): d/dq_b of the
     * derivative columns above (chain_sing_gram_k), with |d z_m / dq_b| <= 1 for b before m (else 0) and |d v_m /
     * dq_b| <= |v_m| for b at or before m, |v_b| beyond it (|v_m| <= R_m / l):
     *   j at or beyond a: d(z_a x v_j) <= [b before a] |v_j| + (b <= j ? |v_j| : |v_b|),
     *                     d(z_a x z_j) <= [b before a] + [b before j];
     *   j before a:       d(z_j x v_a) <= [b before j] |v_a| + (b <= a ? |v_a| : |v_b|);
     * M_ab^2 sums their squares over j. */
    c->sv_fo_ok = 0;
    if (c->sv_posonly || np > CHAIN_FO_MAX) return;
    for (int a = 0; a + 1 < np; a++)
        if (path[a + 1] >= path[a]) return; /* a joint numbered before its parent: positions need not follow */
    c->sv_np = np;
    double rv[CHAIN_FO_MAX];
    for (int a = 0; a < np; a++) {
        c->sv_path[a] = path[np - 1 - a];
        rv[a] = R[c->sv_path[a]] * il;
    }
    for (int a = 0; a < np; a++)
        for (int b = 0; b < np; b++) {
            double s2 = 0;
            for (int j = 0; j < np; j++) {
                double bv, bw;
                if (j >= a) {
                    bv = (b < a ? rv[j] : 0) + (b <= j ? rv[j] : rv[b]);
                    bw = (b < a ? 1 : 0) + (b < j ? 1 : 0);
                } else {
                    bv = (b < j ? rv[a] : 0) + (b <= a ? rv[a] : rv[b]);
                    bw = 0;
                }
                s2 += bv * bv + bw * bw;
            }
            c->sv_M[a][b] = sqrt(s2) * (1 + 1e-12);
        }
    /* d2A/dq_a dq_b = d2A/dq_b dq_a: both bounds hold, keep the smaller (symmetric), then mu */
    for (int a = 0; a < np; a++) {
        double mx = 0;
        for (int b = 0; b < np; b++) {
            double m = c->sv_M[a][b] < c->sv_M[b][a] ? c->sv_M[a][b] : c->sv_M[b][a];
            if (m > mx) mx = m;
        }
        c->sv_mu[a] = sqrt(mx) * (1 + 1e-12);
    }
    c->sv_fo_ok = 1;
}

/* Build the state from the description: check it, precompute the joint constants, allocate the workspace.
 * Optional parameters: ik_tol (default 1e-10), ik_max_iter (200), ik_fast (1; 0 turns the Newton tracking path
 * off), char_length (singularity normalisation, default the sum of link offsets from the base to the tool),
 * singularity_skip (1; 0: singularity_within computes the measures it proved to lie in the band too),
 * singularity_pairs (1; 0: the 6 x 6 Jacobi SVD and Temple Gram matrix on the scalar loops, the tests' reference),
 * singularity_refresh (1; 0: a V too stale for Temple is not refreshed by a sweep, chain_sing_refresh),
 * singularity_defer (1; 0: singularity_defer never defers, it is singularity_within). */
static int chain_create(const ModelDesc *d, void **out, char *err, size_t errlen)
{
    const char *src = d->source[0] ? d->source : d->name;
    int st;
    *out = NULL;
    gsl_set_error_handler_off();
    if (d->njoints < 1 || d->njoints > N_MAX) {
        snprintf(err, errlen, "%s: chain needs 1..%d joints, got %d", src, N_MAX, d->njoints);
        return MODEL_EINVAL;
    }
    for (int i = 0; i < d->njoints; i++)
        if ((st = chain_check_joint(d, i, err, errlen)) < 0) return st;
    if (d->tool_link < -1 || d->tool_link >= d->njoints) {
        snprintf(err, errlen, "%s: tool link %d out of range", src, d->tool_link);
        return MODEL_EINVAL;
    }
    Chain *c = calloc(1, sizeof *c);
    if (!c) return MODEL_ENOMEM;
    c->n = d->njoints;
    for (int i = 0; i < c->n; i++) {
        chain_setup_joint(&c->j[i], &d->joint[i]);
        if (d->joint[i].powered) c->idx_c[c->nc++] = i;
        else c->idx_n[c->nn++] = i;
    }
    const ModelParam *rne_fast = model_desc_param(d, "rne_fast");
    c->rne_all_dh = 1;
    for (int i = 0; i < c->n; i++) {
        chain_rne_setup(&c->rj[i], &c->j[i], !(rne_fast && rne_fast->n >= 1 && rne_fast->v[0] == 0));
        c->rne_all_dh &= c->rj[i].dh;
    }
    v3_copy(c->gravity, d->gravity);
    v3_scale(c->a0, d->gravity, -1.0);
    v3_copy(c->a0v, c->a0);
    const ModelParam *rne_avx = model_desc_param(d, "rne_avx");
    c->rne_avx = c->rne_all_dh && chain_rne_avx_ok() && !(rne_avx && rne_avx->n >= 1 && rne_avx->v[0] == 0);
    c->tool_link = d->tool_link < 0 ? c->n - 1 : d->tool_link;
    v3_copy(c->tool_p, d->tool_xyz);
    memcpy(c->tool_R, d->tool_R, sizeof c->tool_R);
    c->tool_R_identity = 1;
    for (int k = 0; k < 9; k++) c->tool_R_identity &= c->tool_R[k] == (k % 4 == 0 ? 1.0 : 0.0);
    double len = v3_norm(d->tool_xyz);
    for (int i = c->tool_link; i >= 0; i = c->j[i].parent) len += v3_norm(c->j[i].p0);
    c->char_len = len > 1e-6 ? len : 1.0;
    c->ik_tol = 1e-10;
    c->trig_vec = chain_trig_vector();
    chain_ik_setup(c);
    c->ik_max_iter = 200;
    c->ik_fast = 1;
    const ModelParam *p;
    if ((p = model_desc_param(d, "ik_tol")) && p->n >= 1 && p->v[0] > 0) c->ik_tol = p->v[0];
    if ((p = model_desc_param(d, "ik_max_iter")) && p->n >= 1 && p->v[0] >= 1) c->ik_max_iter = (int)p->v[0];
    if ((p = model_desc_param(d, "ik_fast")) && p->n >= 1) c->ik_fast = p->v[0] != 0;
    if ((p = model_desc_param(d, "char_length")) && p->n >= 1 && p->v[0] > 0) c->char_len = p->v[0];
    c->sv_skip = 1;
    if ((p = model_desc_param(d, "singularity_skip")) && p->n >= 1) c->sv_skip = p->v[0] != 0;
    c->sv_pairs = 1;
    if ((p = model_desc_param(d, "singularity_pairs")) && p->n >= 1) c->sv_pairs = p->v[0] != 0;
    c->sv_refresh = 1;
    if ((p = model_desc_param(d, "singularity_refresh")) && p->n >= 1) c->sv_refresh = p->v[0] != 0;
    c->sv_defer = 1;
    if ((p = model_desc_param(d, "singularity_defer")) && p->n >= 1) c->sv_defer = p->v[0] != 0;
    if ((st = chain_alloc(c)) < 0) {
        chain_destroy(c);
        snprintf(err, errlen, "%s: out of memory", src);
        return st;
    }
    chain_sing_lipschitz(c);
    *out = c;
    return MODEL_OK;
}

/* The kin_* operations (model.h): a cache entry (§8.2.2 of docs/MODELS.md) as q, cos q and sin q, 3 doubles per
 * joint. Not the world transforms: those are 12 more doubles per joint for the two cores to pass through their
 * caches every cycle, and chain_fk_world makes the same bits of them from the entry's cos/sin when a call needs
 * them (the inverse dynamics does not). */
static size_t chain_kin_size(void *s)
{
    Chain *c = s;
    return (size_t)c->n * 3 * sizeof(double);
}

/* The entry of q, copied. The dry-run exports the IK answer of the cycle before (the entry before the newest, a
 * newer IK answer after it), so a six-joint chain compares that entry and the newest inline first and copies by
 * fixed-size moves; else the general lookup and copy. */
static size_t chain_kin_export(void *s, const double *q, void *buf, size_t cap)
{
    Chain *c = s;
    size_t n = (size_t)c->n, len = chain_kin_size(s);
    if (cap < len) return 0;
    double *b = buf;
    if (n == 6) {
        const ChainCache *e = &c->cache[c->cache_last], *f = e == c->cache ? e + CHAIN_NCACHE - 1 : e - 1;
        e = f->valid && chain_same_bits(f->q, q, 6) ? f : e->valid && chain_same_bits(e->q, q, 6) ? e : NULL;
        if (e) {
            memcpy(b, e->q, 6 * sizeof(double));
            memcpy(b + 6, e->cq, 6 * sizeof(double));
            memcpy(b + 12, e->sq, 6 * sizeof(double));
            return len;
        }
    }
    const ChainCache *e = chain_cache_find(c, q);
    if (!e) return 0;
    memcpy(b, e->q, n * sizeof(double));
    memcpy(b + n, e->cq, n * sizeof(double));
    memcpy(b + 2 * n, e->sq, n * sizeof(double));
    return len;
}

/* q with its cos/sin into the cache, unless there already. */
static void chain_kin_import(void *s, const void *buf, size_t len)
{
    Chain *c = s;
    size_t n = (size_t)c->n;
    const double *b = buf;
    if (len != chain_kin_size(s) || chain_cache_find(c, b)) return;
    chain_cache_put(c, b, b + n, b + 2 * n);
}

const ModelType model_chain = {
    .name = "chain",
    .create = chain_create,
    .destroy = chain_destroy,
    .fk = chain_fk,
    .ik = chain_ik,
    .jacobian = chain_jacobian,
    .singularity = chain_singularity,
    .singularity_within = chain_singularity_within,
    .singularity_defer = chain_singularity_defer,
    .singularity_settle = chain_singularity_settle,
    .inverse_dynamics = chain_inverse_dynamics,
    .mass_matrix = chain_mass_matrix,
    .bias = chain_bias,
    .forward_dynamics = chain_forward_dynamics,
    .semi_inverse = chain_semi_inverse,
    .kin_size = chain_kin_size,
    .kin_export = chain_kin_export,
    .kin_import = chain_kin_import,
};

int chain_sing_first_order_bound(void *s, const double *qk, const double *qw, const double *q, double *e)
{
    Chain *c = s;
    if (!c->sv_fo_ok) return MODEL_EINVAL;
    const double (*Rw)[9], (*pw)[3];
    double A[6 * N_MAX];
    chain_world(c, qk, &Rw, &pw);
    chain_sing_matrix(c, Rw, pw, 6, A);
    chain_sing_gram_k(c, qk, A);
    memcpy(c->sv_qw, qw, (size_t)c->n * sizeof(double));
    c->sv_m_ok = 0; /* K stays the one at qk (a test's dk may exceed CHAIN_FO_REMAKE) */
    double dk = 0;
    for (int a = 0; a < c->sv_np; a++) dk += fabs(qw[c->sv_path[a]] - c->sv_qk[a]);
    c->sv_dk = dk, c->sv_m_ok = 1;
    *e = chain_sing_first_order(c, q);
    c->sv_w_ok = c->sv_ref_ok = 0; /* sv_qw no longer belongs to the Weyl reference */
    return isfinite(*e) ? MODEL_OK : MODEL_ENUMERIC;
}

void chain_sing_defer_stats(void *s, long counts[2])
{
    Chain *c = s;
    memcpy(counts, c->sv_dstats, sizeof c->sv_dstats);
}

void chain_sing_stats(void *s, long counts[8], int reset)
{
    Chain *c = s;
    if (counts) memcpy(counts, c->sv_stats, sizeof c->sv_stats);
    if (reset) memset(c->sv_stats, 0, sizeof c->sv_stats);
}

int chain_ik_pose_error_test(void *s, int path, const double *q, const double pos[3], const double quat[4],
                             double e[6], double *res)
{
    Chain *c = s;
    double cq[N_MAX], sq[N_MAX], Rt[9];
    if (quat) {
        double qn = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        if (!(qn > 0)) return MODEL_EINVAL;
        double u[4] = {quat[0] / qn, quat[1] / qn, quat[2] / qn, quat[3] / qn};
        quat_to_m3(Rt, u);
    }
    chain_trig(c, q, cq, sq);
    const double *R = quat ? Rt : NULL;
    if (path == 0) {
        chain_fk_world_trig_ref(c, q, cq, sq, c->Rw, c->pw);
        *res = chain_tool_error_at(c, (const double (*)[9])c->Rw, (const double (*)[3])c->pw, pos, R, e);
    } else if (path == 1) {
        *res = chain_ik_pose_error_sse(c, q, cq, sq, pos, R, e);
#if defined(__x86_64__)
    } else if (path == 2 && c->trig_vec) {
        *res = chain_ik_pose_error_avx2(c, q, cq, sq, pos, R, e);
#endif
    } else {
        return MODEL_EINVAL;
    }
    return MODEL_OK;
}

int chain_fk_world_test(void *s, int path, const double *q, double *pos, double *R)
{
    Chain *c = s;
    double cq[N_MAX], sq[N_MAX];
    chain_trig(c, q, cq, sq);
    if (path == 0) {
        chain_fk_world_trig_ref(c, q, cq, sq, c->Rw, c->pw);
    } else if (path == 1) {
        chain_fk_world_trig_sse(c, q, cq, sq, c->Rw, c->pw);
#if defined(__x86_64__)
    } else if (path == 2 && c->trig_vec) {
        chain_fk_world_trig_avx2(c, q, cq, sq, c->Rw, c->pw);
#endif
    } else {
        return MODEL_EINVAL;
    }
    memcpy(pos, c->pw, (size_t)c->n * 3 * sizeof(double));
    memcpy(R, c->Rw, (size_t)c->n * 9 * sizeof(double));
    return MODEL_OK;
}

void chain_ik_track_form(void *s, int sse)
{
    Chain *c = s;
    c->ik_track_sse = sse != 0;
}

void chain_ik_stats(void *s, ChainIkStats *st, int reset)
{
    Chain *c = s;
    if (st) *st = c->ik_stats;
    if (reset) memset(&c->ik_stats, 0, sizeof c->ik_stats);
}
