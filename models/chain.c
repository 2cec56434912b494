/* chain.c — the `chain` model back-end (chain.h): its description (checks, per-joint constants), create and destroy,
 * the cache of joint values met recently, forward kinematics and Jacobians, and the ModelType. Inverse kinematics
 * is chain_ik.c, dynamics chain_rne.c, the singularity measure chain_sing.c; their shared state chain_internal.h.
 *
 * Everything is allocated in chain_create(); the operations work in the state's workspace and may run in the
 * real-time cycle. See chain.h for the frame conventions; docs/MODELS.md for the singularity measure and IK. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "chain_internal.h"
#include "trig.h"

/* World transforms of every link into Rw, pw, from q and the cos/sin of each joint value (revolute joints): the
 * workspace c->Rw, c->pw, or the IK's c->ik_work (for its Jacobian). A DH-like joint takes chain_dh_step on its
 * parent's columns (held in registers from the joint before when that is the parent, else read from Rw), the others
 * chain_rel_trig and the 3 x 3 products. */
void chain_fk_world_trig(Chain *c, const double *q, const double *cq, const double *sq,
                                double (*restrict Rw)[9], double (*restrict pw)[3])
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

/* cos and sin of every joint value, two at a time (trig_sincos2): the only place they are computed for a cache entry
 * or an IK point, so a q gets the same bits wherever it is met. */
void chain_trig(const Chain *c, const double *q, double *cq, double *sq)
{
    int n = c->n, i = 0;
#pragma GCC unroll 3
    for (; i + 2 <= n; i += 2) {
        TrigV2 x = {q[i], q[i + 1]}, co, si;
        trig_sincos2(x, &co, &si);
        cq[i] = co[0], cq[i + 1] = co[1], sq[i] = si[0], sq[i + 1] = si[1];
    }
    if (i < n) {
        TrigV2 x = {q[i], 0}, co, si;
        trig_sincos2(x, &co, &si);
        cq[i] = co[0], sq[i] = si[0];
    }
}

/* The cache entry of q (equal bit for bit), or NULL; the newest entries first. The first joint's bits are compared
 * first, inline: they reject almost every miss (a hit must compare every joint). */
/* cos and sin of every joint value q from those of a nearby qa (ca, sa) by trig_shift2, two joints at a time;
 * returns 0 when q is farther than TRIG_SHIFT_MAX from qa (Euclidean norm; or NaN), and then cq, sq hold nothing
 * usable. Their
 * bits differ from chain_trig's by a rounding or two, so they never enter the cache. */
int chain_trig_near(const Chain *c, const double *qa, const double *ca, const double *sa, const double *q, double *cq,
                    double *sq)
{
    TrigV2 x, xa, c0, s0, co, si, d, dd = {0, 0};
    int n = c->n, i = 0;
    for (; i + 2 <= n; i += 2) {
        memcpy(&x, q + i, 16), memcpy(&xa, qa + i, 16), memcpy(&c0, ca + i, 16), memcpy(&s0, sa + i, 16);
        d = x - xa;
        dd += d * d;
        trig_shift2(c0, s0, d, &co, &si);
        memcpy(cq + i, &co, 16), memcpy(sq + i, &si, 16);
    }
    if (i < n) {
        double di = q[i] - qa[i];
        d = (TrigV2){di, 0}, c0 = (TrigV2){ca[i], ca[i]}, s0 = (TrigV2){sa[i], sa[i]};
        dd += d * d;
        trig_shift2(c0, s0, d, &co, &si);
        cq[i] = co[0], sq[i] = si[0];
    }
    return dd[0] + dd[1] <= TRIG_SHIFT_MAX * TRIG_SHIFT_MAX;   /* also 0 for a NaN */
}

ChainCache *chain_cache_find(Chain *c, const double *q)
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
ChainCache *chain_cache_put(Chain *c, const double *q, const double *cq, const double *sq)
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
void chain_fk_world(Chain *c, const double *q)
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

/* World pose of the tool point (after chain_fk_world). */
void chain_tool_pose(const Chain *c, double pos[3], double R[9])
{
    chain_tool_pose_at(c, (const double (*)[9])c->Rw, (const double (*)[3])c->pw, pos, R);
}

/* FK of one link (-1: the tool point). */
int chain_fk(void *s, const double *q, int link, double pos[3], double R[9])
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
void chain_jac_rows(const Chain *c, const double (*Rw)[9], const double (*pw)[3], int link,
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
void chain_jac_world(const Chain *c, int link, const double x[3], double *J)
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

int chain_jacobian(void *s, const double *q, double *J)
{
    return chain_point_jacobian(s, q, -1, NULL, J);
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

/* The optional numeric PARAM `name` in `unit` ("": a bare number) into *v when given, within [lo, hi] (a whole
 * number when `whole`): 0 (absent or read) or MODEL_EINVAL with model_param_bad's message, naming the range. */
static int chain_param(const ModelDesc *d, const char *name, const char *unit, double lo, double hi, int whole,
                       const char *what, double *v, char *err, size_t errlen)
{
    double x;
    int st = model_param_get(d, name, 1, unit, &x, err, errlen);
    if (st <= 0) return st;
    if (!(x >= lo && x <= hi) || (whole && x != floor(x)))
        return model_param_bad(d, err, errlen, name, "must be %s %.6g%s%s to %.6g%s%s (%s)", whole ? "a whole number from" :
                               "from", lo, unit[0] ? " " : "", unit, hi, unit[0] ? " " : "", unit, what);
    *v = x;
    return 0;
}

/* The chain's PARAMs: ik_tol below the residual's rounding (~1e-16 on an arm of metres) never converges and above a
 * micrometre accepts a wrong pose; ik_max_iter bounds a failing IK's time; char_length scales the Jacobian's
 * position rows (a length between a micrometre and a kilometre keeps them finite). char_len 0: not given. */
static int chain_params(const ModelDesc *d, double *tol, double *maxit, double *char_len, char *err, size_t errlen)
{
    int st = chain_param(d, "ik_tol", "", 1e-14, 1e-6, 0, "the IK's residual: |dp| in m plus |dtheta| in rad",
                         tol, err, errlen);
    if (st == 0)
        st = chain_param(d, "ik_max_iter", "", 1, 10000, 1, "iterations of the IK's damped search", maxit, err,
                         errlen);
    if (st == 0)
        st = chain_param(d, "char_length", "m", 1e-6, 1e3, 0, "the singularity measure's length scale", char_len,
                         err, errlen);
    return st;
}

/* Build the state from the description: check it, precompute the joint constants, allocate the workspace.
 * Optional parameters: ik_tol (default 1e-10), ik_max_iter (200), char_length (singularity normalisation, default
 * the sum of link offsets from the base to the tool). */
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
    double ik_tol = 1e-10, ik_max_iter = 200, char_len = 0;
    if ((st = chain_params(d, &ik_tol, &ik_max_iter, &char_len, err, errlen)) < 0) return st;
    Chain *c = calloc(1, sizeof *c);
    if (!c) return MODEL_ENOMEM;
    c->n = d->njoints;
    for (int i = 0; i < c->n; i++) {
        chain_setup_joint(&c->j[i], &d->joint[i]);
        if (d->joint[i].powered) c->idx_c[c->nc++] = i;
        else c->idx_n[c->nn++] = i;
    }
    for (int i = 0; i < c->n; i++) chain_rne_setup(&c->rj[i], &c->j[i]);
    v3_copy(c->gravity, d->gravity);
    v3_scale(c->a0, d->gravity, -1.0);
    c->tool_link = d->tool_link < 0 ? c->n - 1 : d->tool_link;
    v3_copy(c->tool_p, d->tool_xyz);
    memcpy(c->tool_R, d->tool_R, sizeof c->tool_R);
    c->tool_R_identity = 1;
    for (int k = 0; k < 9; k++) c->tool_R_identity &= c->tool_R[k] == (k % 4 == 0 ? 1.0 : 0.0);
    double len = v3_norm(d->tool_xyz);
    for (int i = c->tool_link; i >= 0; i = c->j[i].parent) len += v3_norm(c->j[i].p0);
    c->char_len = char_len > 0 ? char_len : len > 1e-6 ? len : 1.0;
    c->ik_tol = ik_tol;
    chain_ik_setup(c);
    c->ik_max_iter = (int)ik_max_iter;
    if ((st = chain_alloc(c)) < 0) {
        chain_destroy(c);
        snprintf(err, errlen, "%s: out of memory", src);
        return st;
    }
    chain_sing_lipschitz(c);
    *out = c;
    return MODEL_OK;
}

const ModelType model_chain = {
    .name = "chain",
    .create = chain_create,
    .destroy = chain_destroy,
    .fk = chain_fk,
    .ik = chain_ik,
    .ik_all = chain_ik_all,
    .jacobian = chain_jacobian,
    .singularity = chain_singularity,
    .inverse_dynamics = chain_inverse_dynamics,
    .mass_matrix = chain_mass_matrix,
    .bias = chain_bias,
    .forward_dynamics = chain_forward_dynamics,
    .semi_inverse = chain_semi_inverse,
};
