/* planner_blend.c — plan-time checks of the sampled stream of Cartesian segments: a blend involving one (the
 * overlap window on a grid, each side's speed, acceleration and jerk enveloped over the window the stream's
 * differences see, the sums against the limits, and the longest overlap that fits), and a LIN/CIRC alone (the
 * peaks of its joint rates over its whole duration). Both take the joint path's derivatives from an IK table and
 * the chain rule. See planner_blend.h and docs/MOTION.md §2-§3. */
#include "motion/planner_blend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmath.h"
#include "geom.h"

#define GRID 2048        /* at most this many grid intervals over the longest overlap (h/2 each when fewer) */
#define PADMAX 16        /* grid intervals beyond each end of the overlap: 2 cycles + 2 (at h/2: 6 .. 8) */
#define NINT (GRID + 2 * PADMAX + 2)
#define TAB 64           /* intervals of a Cartesian segment's joint path table over its part of the overlap */
#define TAB_DT 2e-3      /* s: the table's nodes are at least this far apart in time (at the peak path speed) */
#define NCAND 64         /* overlap candidates: omax, then 90 % steps */
#define MARGIN 0.995     /* the enveloped sum must stay below this fraction of each limit */
#define LONE_GRID 256    /* a lone segment's peaks: at most this many grid steps over its duration (or 4 per */
                         /* table interval, when more) */
#define LONE_TAB0 64     /* a lone segment's table: intervals of s at first, */
#define LONE_TABMAX 2048 /* ... doubled up to this many while it is not resolved: */
#define LONE_DQ 0.05     /* an axis moves more than this (rad or m) between two nodes, */
#define LONE_CONV 0.05   /* or a derivative's peak changed by more than this fraction at the last doubling */
#define LONE_DT 2.5e-4   /* s: but nodes stay at least this far apart in time at the path's peak speed */

#define MAX2(a, b) ((a) > (b) ? (a) : (b))   /* (fmax is a libm call here, and this is the inner loop) */
#define MIN2(a, b) ((a) < (b) ? (a) : (b))

/* One side of the blend. */
typedef struct {
    const PlannerSegment *g;
    int tail;                               /* 1: the predecessor (grid counted back from its end) */
    double s0, ds;                          /* Cartesian: table nodes s0 + k ds, k = -2 .. TAB + 2 */
    double q[TAB + 5][PLANNER_MAX_AXES];    /* q[k + 2]: joint path at node k */
    double d[TAB + 1][3][PLANNER_MAX_AXES]; /* dq/ds, d2q/ds2, d3q/ds3 at nodes 0 .. TAB */
    /* the grid the envelopes were computed on (the predecessor's are reused while it is the same) */
    int id, lo, hi;
    double delta;
} Side;

struct PlannerBlendWork {
    int n;                            /* axes */
    Side side[2];
    /* the whole path of the lone segment being planned (planner_blend_lone_*): nodes k ds, k = -2 .. N + 2 */
    const PlannerSegment *lone;       /* the segment the table is of (NULL: none) */
    int done;                         /* its table is finished (ends, derivatives, refinement), not only level 0 */
    double lfail;                     /* path parameter where the table's IK failed last */
    int N;                            /* intervals, LONE_TAB0 .. LONE_TABMAX (doubled until resolved) */
    double lds;
    double *lq;                       /* [(LONE_TABMAX + 5) * n]: q at node k in row k + 2 */
    double *ld;                       /* [(LONE_TABMAX + 1) * 3 * n]: dq/ds, d2q/ds2, d3q/ds3 at node k */
    double node[3][NINT + 1];         /* one axis of one side: speed, acc, jerk at the grid nodes */
    double raw[6][NINT];              /* ... max (0-2) and min (3-5) of each over each grid interval */
    double tmp[2][NINT];              /* sliding-window scratch */
    double *env;                      /* [side][axis][6][NINT]: raw taken over the window the stream sees */
};

PlannerBlendWork *planner_blend_work_new(int n)
{
    PlannerBlendWork *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->n = n;
    w->env = malloc(sizeof(double) * 2 * (size_t)n * 6 * NINT);
    w->lq = malloc(sizeof(double) * (LONE_TABMAX + 5) * (size_t)n);
    w->ld = malloc(sizeof(double) * (LONE_TABMAX + 1) * 3 * (size_t)n);
    if (!w->env || !w->lq || !w->ld) {
        planner_blend_work_free(w);
        return NULL;
    }
    return w;
}

void planner_blend_work_free(PlannerBlendWork *w)
{
    if (!w) return;
    free(w->env);
    free(w->lq);
    free(w->ld);
    free(w);
}

/* The envelope row r (0-2: max of speed, acc, jerk; 3-5: min) of one axis of one side. */
static double *env_row(PlannerBlendWork *w, int side, int axis, int r)
{
    return w->env + (((size_t)side * (size_t)w->n + (size_t)axis) * 6 + (size_t)r) * NINT;
}

/* The model's tool point at path parameter s without clamping s to [0, 1] (the line, circle and slerp continued:
 * for the table's difference stencils at the path's ends). */
static void pose_ext(const PlannerSegment *g, double s, double pos[3], double quat[4])
{
    if (s >= 0 && s <= 1) planner_path_pose(g, s, pos, quat);
    else planner_path_pose_ext(g, s, pos, quat);
    planner_tcp_to_flange(g, pos, quat);
}

/* IK at path parameter s (the path continued beyond [0, 1]) into q, seeded by extrapolation through q1 and q2 (the
 * nodes at s - ds and s - 2 ds), quadratically through q3 too (at s - 3 ds; NULL: linearly) where the quadratic
 * term is small beside the linear one (a smooth stretch: the seed's error drops from ds^2 q'' to ds^3 q''', one
 * Newton step fewer). Near a singularity, where the joint path turns fast, a seed can overshoot and the IK not
 * converge: then the path is walked from q1 in 8, then 64 steps, each seeded by the one before (as the cycle's IK
 * follows it). */
static int path_ik(Model *m, const PlannerSegment *g, int n, double s, double ds, const double *q1, const double *q2,
                   const double *q3, const double *q4, double *q)
{
    double pos[3], quat[4], seed[PLANNER_MAX_AXES];
    ModelIkInfo ii;
    int quad = q3 != NULL, cub = quad && q4 != NULL;
    for (int i = 0; quad && i < n; i++) quad = fabs(q1[i] - 2 * q2[i] + q3[i]) <= 0.25 * fabs(q1[i] - q2[i]) + 1e-9;
    cub = cub && quad;   /* cubic only where the stretch passed the quadratic test too */
    for (int i = 0; cub && i < n; i++) cub = fabs(q1[i] - 3 * q2[i] + 3 * q3[i] - q4[i]) <= 0.25 * fabs(q1[i] - q2[i]) + 1e-9;
    for (int i = 0; i < n; i++)
        seed[i] = cub ? 4 * (q1[i] + q3[i]) - 6 * q2[i] - q4[i] : quad ? 3 * (q1[i] - q2[i]) + q3[i] : 2 * q1[i] - q2[i];
    pose_ext(g, s, pos, quat);
    int st = model_ik(m, pos, quat, seed, q, &ii);
    for (int steps = 8; st < 0 && steps <= 64; steps *= 8) {
        memcpy(seed, q1, (size_t)n * sizeof(double));
        for (int j = 1; j <= steps && st < 0; j++) {
            pose_ext(g, j == steps ? s : s - ds + ds * j / steps, pos, quat);
            int sj = model_ik(m, pos, quat, seed, q, &ii);
            if (sj < 0) break;
            if (j == steps) st = sj;
            memcpy(seed, q, (size_t)n * sizeof(double));
        }
    }
    return st;
}

/* IK at table node k (s = s0 + k ds) seeded by extrapolation through the nodes k - dir and k - 2 dir. */
static int table_ik(Model *m, Side *sd, int n, int k, int dir)
{
    return path_ik(m, sd->g, n, sd->s0 + k * sd->ds, dir * sd->ds, sd->q[k - dir + 2], sd->q[k - 2 * dir + 2], NULL, NULL,
                   sd->q[k + 2]);
}

/* dq/ds, d2q/ds2, d3q/ds3 of n axes at a node of step h, by central differences of the nodes two before (m2) to
 * two after (p2). */
static void node_derivs(int n, double h, const double *m2, const double *m1, const double *c, const double *p1,
                        const double *p2, double *d1, double *d2, double *d3)
{
    for (int i = 0; i < n; i++) {
        d1[i] = (p1[i] - m1[i]) / (2 * h);
        d2[i] = (p1[i] - 2 * c[i] + m1[i]) / (h * h);
        d3[i] = (p2[i] - 2 * p1[i] + 2 * m1[i] - m2[i]) / (2 * h * h * h);
    }
}

/* The next of four equally spaced rows of n values going a, b, c, d away from it, by a cubic continuation (where
 * the IK of a table's node beyond the path's end fails). */
static void cubic_next(int n, const double *a, const double *b, const double *c, const double *d, double *out)
{
    for (int i = 0; i < n; i++) out[i] = 4 * a[i] - 6 * b[i] + 4 * c[i] - d[i];
}

/* The chain rule: joint speed, acceleration and jerk from dq/ds, d2q/ds2, d3q/ds3 (d) and the path state s. */
static inline void chain_rule(const double d[3], const ProfileState *s, double out[3])
{
    out[0] = d[0] * s->v;
    out[1] = d[0] * s->a + d[1] * s->v * s->v;
    out[2] = d[0] * s->j + 3 * d[1] * s->v * s->a + d[2] * s->v * s->v * s->v;
}

/* The joint path table of a Cartesian side at the nodes s0 + k ds (sd->s0, sd->ds set), walked from its planned
 * end (tail) or start, and the derivatives at its nodes. Returns 0 or < 0 (IK failed inside the path). */
static int side_table_nodes(Side *sd, Model *m, int n)
{
    const PlannerSegment *g = sd->g;
    /* the first node from the planned end (tail: s = 1 is q1) or start (q0), then walk */
    int k0 = sd->tail ? TAB : 0, dir = sd->tail ? -1 : 1;
    const double *qe = sd->tail ? g->q1 : g->q0;
    for (int e = 0; e < 3; e++) memcpy(sd->q[k0 - e * dir + 2], qe, (size_t)n * sizeof(double));
    int st = table_ik(m, sd, n, k0, dir);        /* s0 + TAB ds may differ from 1 by rounding: solve it */
    if (st < 0) return st;
    memcpy(sd->q[k0 - dir + 2], sd->q[k0 + 2], (size_t)n * sizeof(double));
    for (int k = k0 + dir; k >= 0 && k <= TAB; k += dir)
        if ((st = table_ik(m, sd, n, k, dir)) < 0) return st;
    /* two nodes beyond each end for the difference stencils: IK on the continued path, or where it fails
     * there (outside the path's reach), a cubic continuation of the table */
    int ext_ok = 1;
    for (int k = k0 - dir; ext_ok && k >= -2 && k <= TAB + 2; k -= dir) ext_ok = table_ik(m, sd, n, k, -dir) >= 0;
    for (int k = TAB - k0 + dir; ext_ok && k >= -2 && k <= TAB + 2; k += dir) ext_ok = table_ik(m, sd, n, k, dir) >= 0;
    for (int e = 0; !ext_ok && e < 2; e++) {
        int lo = -1 - e, hi = TAB + 1 + e;
        cubic_next(n, sd->q[lo + 3], sd->q[lo + 4], sd->q[lo + 5], sd->q[lo + 6], sd->q[lo + 2]);
        cubic_next(n, sd->q[hi + 1], sd->q[hi], sd->q[hi - 1], sd->q[hi - 2], sd->q[hi + 2]);
    }
    for (int k = 0; k <= TAB; k++)
        node_derivs(n, sd->ds, sd->q[k], sd->q[k + 1], sd->q[k + 2], sd->q[k + 3], sd->q[k + 4], sd->d[k][0],
                    sd->d[k][1], sd->d[k][2]);
    return 0;
}

/* The joint path table of a Cartesian side over the path parameters its part of the overlap reaches (up to the
 * local time x_far into the segment from its blended end). Returns 0 or < 0 (IK failed inside the path). */
static int side_table(Side *sd, Model *m, int n, double x_far)
{
    const PlannerSegment *g = sd->g;
    ProfileState f;
    profile_at(&g->path, sd->tail ? g->T - x_far : x_far, &f);
    /* nodes at least TAB_DT apart in time at the path's peak speed: a third difference amplifies the IK's
     * rounding by 6 / ds^3, so a table much finer than the motion needs would add noise, not accuracy */
    double span = fmin(sd->tail ? 1 - f.p : f.p, 1);
    sd->ds = fmin(fmax(span / TAB, TAB_DT * g->path.vpk), 1.0 / TAB);
    sd->s0 = sd->tail ? 1 - TAB * sd->ds : 0;
    return side_table_nodes(sd, m, n);
}

/* Speed, acceleration and jerk of axis i of a Cartesian side whose path parameter is in state s: the chain rule
 * on the table's derivatives, interpolated linearly between its nodes. */
static void cart_rates(const Side *sd, int i, const ProfileState *ps, double out[3])
{
    const ProfileState s = *ps;
    if (s.v == 0 && s.a == 0 && s.j == 0) {
        out[0] = out[1] = out[2] = 0;
        return;
    }
    double f = (s.p - sd->s0) / sd->ds;
    int k = (int)floor(f);
    if (k < 0) k = 0;
    if (k > TAB - 1) k = TAB - 1;
    double w = f - k, d[3];
    for (int r = 0; r < 3; r++) d[r] = (1 - w) * sd->d[k][r][i] + w * sd->d[k + 1][r][i];
    chain_rule(d, &s, out);
}

/* Speed, acceleration and jerk of axis i of a side at its local time x. */
static void side_state(const Side *sd, int i, double x, double out[3])
{
    const PlannerSegment *g = sd->g;
    ProfileState s;
    if (g->kind == PLANNER_PTP) {
        profile_at(&g->ax[i], x, &s);
        out[0] = s.v, out[1] = s.a, out[2] = s.j;
        return;
    }
    profile_at(&g->path, x, &s);
    cart_rates(sd, i, &s, out);
}

/* Local time of grid node k of a side (successor: k delta; predecessor: counted back from its end). */
static double node_time(const Side *sd, int k, double delta) { return sd->tail ? sd->g->T - k * delta : k * delta; }

/* Grid interval holding local time x. */
static int interval_of(const Side *sd, double x, double delta)
{
    return (int)floor(sd->tail ? (sd->g->T - x) / delta : x / delta);
}

/* The max and min of axis i's speed, acc and jerk over each grid interval lo .. hi of a side: its two nodes and
 * both sides of every phase boundary inside (jerk is piecewise constant or smooth between boundaries), stored
 * at index k - lo. */
static void side_raw(PlannerBlendWork *w, const Side *sd, int i, double delta, int lo, int hi)
{
    int nn = hi - lo + 2;
    for (int k = 0; k < nn; k++) {
        double o[3];
        side_state(sd, i, node_time(sd, lo + k, delta), o);
        for (int r = 0; r < 3; r++) w->node[r][k] = o[r];
    }
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < nn - 1; k++) {
            double x = w->node[r][k], y = w->node[r][k + 1];
            w->raw[r][k] = MAX2(x, y);
            w->raw[r + 3][k] = MIN2(x, y);
        }
    const Profile *pr = sd->g->kind == PLANNER_PTP ? &sd->g->ax[i] : &sd->g->path;
    double b[8] = {pr->Tj, pr->Ta - pr->Tj, pr->Ta, pr->T - pr->Ta, pr->T - pr->Ta + pr->Tj, pr->T - pr->Tj,
                   0, sd->g->T};
    double eps = 1e-6 * delta;
    for (int e = 0; e < 16; e++) {
        double x = b[e / 2] + (e & 1 ? eps : -eps);
        int k = interval_of(sd, x, delta) - lo;
        if (k < 0 || k >= nn - 1) continue;
        double o[3];
        side_state(sd, i, x, o);
        for (int r = 0; r < 3; r++) {
            w->raw[r][k] = MAX2(w->raw[r][k], o[r]);
            w->raw[r + 3][k] = MIN2(w->raw[r + 3][k], o[r]);
        }
    }
}

/* out[k] = max (or min) of x over k - before .. k + after, clamped to 0 .. count - 1 (a clamped window is taken
 * over its whole block: larger, never smaller): van Herk / Gil-Werman, the running extreme from the start and
 * from the end of each block of the window's width, three comparisons per entry whatever the width. */
static void slide(PlannerBlendWork *w, const double *x, double *out, int count, int before, int after, int is_max)
{
    int W = before + after + 1;
    double *g = w->tmp[0], *h = w->tmp[1], sg = is_max ? 1 : -1;   /* min as the max of -x */
    for (int k = 0, j = 0; k < count; k++, j = j + 1 == W ? 0 : j + 1)
        g[k] = j == 0 ? sg * x[k] : MAX2(g[k - 1], sg * x[k]);
    for (int k = count - 1, j = (count - 1) % W; k >= 0; k--, j = j == 0 ? W - 1 : j - 1)
        h[k] = k == count - 1 || j == W - 1 ? sg * x[k] : MAX2(h[k + 1], sg * x[k]);
    for (int k = 0; k < count; k++) {
        int a = k - before < 0 ? 0 : k - before, b = k + after >= count ? count - 1 : k + after;
        out[k] = sg * MAX2(h[a], g[b]);
    }
}

/* The envelopes of every axis of side s on the grid (delta, lo .. hi): each interval's extremes taken over the
 * window of intervals the stream's differences reach from it. */
static void side_envelopes(PlannerBlendWork *w, int s, double delta, int lo, int hi, int c1, int c2)
{
    const Side *sd = &w->side[s];
    int cart = sd->g->kind != PLANNER_PTP, count = hi - lo + 1;
    /* the windows, in grid intervals before and after the cycle's interval (forward time): Cartesian speed and
     * acc [t - h, t + h], jerk [t - 2h, t + h]; PTP speed and acc [t, t], jerk [t - h, t] */
    int cb[3] = {c1, c1, c2}, ca[3] = {c1, c1, c1}, pb[3] = {0, 0, c1}, pa[3] = {0, 0, 0};
    const int *before = cart ? cb : pb, *after = cart ? ca : pa;
    for (int i = 0; i < w->n; i++) {
        side_raw(w, sd, i, delta, lo, hi);
        for (int r = 0; r < 6; r++) {
            /* the predecessor's index runs backwards in time: its window's before and after swap */
            int bf = sd->tail ? after[r % 3] : before[r % 3], af = sd->tail ? before[r % 3] : after[r % 3];
            if (bf + af == 0) memcpy(env_row(w, s, i, r), w->raw[r], (size_t)count * sizeof(double));
            else slide(w, w->raw[r], env_row(w, s, i, r), count, bf, af, r < 3);
        }
    }
}

double planner_blend_overlap(PlannerBlendWork *w, Model *m, const PlannerBlendLimits *lim, double dt,
                             const PlannerSegment *a, const PlannerSegment *b, double omax)
{
    int n = w->n;
    /* grid step: about half a cycle (at most GRID steps), dividing omax exactly (omax is the first candidate) */
    int kmax = (int)ceil(omax / MAX2(0.5 * dt, omax / GRID) - 1e-9);
    if (kmax < 1) return 0;
    double delta = omax / kmax;
    int c1 = (int)ceil(dt / delta - 1e-9), c2 = (int)ceil(2 * dt / delta - 1e-9), pad = c2 + 2;
    int lo = -pad, hi = kmax + pad;
    Side *sa = &w->side[0], *sb = &w->side[1];
    /* the predecessor's envelopes depend on its grid only: kept while a successor is replanned */
    if (sa->g != a || sa->id != a->id || sa->delta != delta || sa->lo != lo || sa->hi != hi) {
        sa->g = a, sa->tail = 1, sa->id = a->id, sa->delta = delta, sa->lo = lo, sa->hi = hi;
        if (a->kind != PLANNER_PTP && side_table(sa, m, n, (hi + 1) * delta) < 0) {
            sa->g = NULL;
            return -1;
        }
        side_envelopes(w, 0, delta, lo, hi, c1, c2);
    }
    sb->g = b, sb->tail = 0, sb->id = b->id;
    if (b->kind != PLANNER_PTP && side_table(sb, m, n, (hi + 1) * delta) < 0) return -1;
    side_envelopes(w, 1, delta, lo, hi, c1, c2);
    /* the candidates, longest first (90 % steps); the first that keeps every limit on every axis wins */
    for (int c = 0, K = kmax; c < NCAND && K >= 1; c++, K = (int)MIN2(K - 1, floor(0.9 * K))) {
        int fits = 1;
        for (int i = 0; i < n && fits; i++) {
            double L[3] = {MARGIN * lim[i].v, MARGIN * lim[i].a, isinf(lim[i].j) ? INFINITY : MARGIN * lim[i].j};
            for (int r = 0; r < 3 && fits; r++) {
                /* interval k of the window is the successor's k and the predecessor's K - 1 - k */
                const double *bu = env_row(w, 1, i, r) - lo, *bd = env_row(w, 1, i, r + 3) - lo;
                const double *au = env_row(w, 0, i, r) - lo + K - 1, *ad = env_row(w, 0, i, r + 3) - lo + K - 1;
                for (int k = 0; k <= K + c1; k++)
                    if (bu[k] + au[-k] > L[r] || bd[k] + ad[-k] < -L[r]) {
                        fits = 0;
                        break;
                    }
            }
        }
        if (fits) return K * delta;
    }
    return 0;
}

/* Row of node k (-2 .. N + 2) of the lone table. */
static double *lone_q(PlannerBlendWork *w, int k) { return w->lq + (size_t)(k + 2) * (size_t)w->n; }

/* The two nodes beyond each end of the lone table (IK on the continued path, or where it fails there, a cubic
 * continuation), then the derivatives at every node; and the largest move of an axis between two nodes and the
 * peak |derivative| of each axis (pk[r * n + i]). */
static void lone_finish(PlannerBlendWork *w, Model *m, double *dqmax, double *pk)
{
    int n = w->n, N = w->N, ok = 1;
    const PlannerSegment *g = w->lone;
    for (int k = -1; ok && k >= -2; k--)
        ok = path_ik(m, g, n, k * w->lds, -w->lds, lone_q(w, k + 1), lone_q(w, k + 2), lone_q(w, k + 3), lone_q(w, k + 4), lone_q(w, k)) >= 0;
    for (int k = N + 1; ok && k <= N + 2; k++)
        ok = path_ik(m, g, n, k * w->lds, w->lds, lone_q(w, k - 1), lone_q(w, k - 2), lone_q(w, k - 3), lone_q(w, k - 4), lone_q(w, k)) >= 0;
    for (int e = 0; !ok && e < 2; e++) {
        cubic_next(n, lone_q(w, -e), lone_q(w, 1 - e), lone_q(w, 2 - e), lone_q(w, 3 - e), lone_q(w, -1 - e));
        cubic_next(n, lone_q(w, N + e), lone_q(w, N - 1 + e), lone_q(w, N - 2 + e), lone_q(w, N - 3 + e),
                   lone_q(w, N + 1 + e));
    }
    *dqmax = 0;
    for (int j = 0; j < 3 * n; j++) pk[j] = 0;
    for (int k = 0; k <= N; k++) {
        double *d = w->ld + (size_t)k * 3 * (size_t)n;
        node_derivs(n, w->lds, lone_q(w, k - 2), lone_q(w, k - 1), lone_q(w, k), lone_q(w, k + 1), lone_q(w, k + 2),
                    d, d + n, d + 2 * n);
        for (int j = 0; j < 3 * n; j++) pk[j] = MAX2(pk[j], fabs(d[j]));
        for (int i = 0; k < N && i < n; i++) *dqmax = MAX2(*dqmax, fabs(lone_q(w, k + 1)[i] - lone_q(w, k)[i]));
    }
}

void planner_blend_lone_reset(PlannerBlendWork *w) { w->lone = NULL, w->done = 0; }

/* Level 0 of g's lone table: LONE_TAB0 intervals walked from the start (q0), each node seeded by extrapolation
 * through the nodes before. Returns 0, or < 0 when the IK failed (at w->lfail). */
static int lone_level0(PlannerBlendWork *w, Model *m, const PlannerSegment *g)
{
    int n = w->n, st;
    w->lone = g;
    w->done = 0;
    w->N = LONE_TAB0;
    w->lds = 1.0 / LONE_TAB0;
    for (int e = 0; e < 3; e++) memcpy(lone_q(w, -e), g->q0, (size_t)n * sizeof(double));
    for (int k = 0; k <= w->N; k++)
        if ((st = path_ik(m, g, n, k * w->lds, w->lds, lone_q(w, k - 1), lone_q(w, k - 2), k >= 3 ? lone_q(w, k - 3) : NULL,
                          k >= 4 ? lone_q(w, k - 4) : NULL, lone_q(w, k))) < 0) {
            w->lone = NULL;
            w->lfail = k * w->lds;
            return st;
        }
    return 0;
}

_Static_assert(LONE_TAB0 % PLANNER_PATH_SAMPLES == 0, "the planner's path samples are nodes of the lone table");

int planner_blend_lone_path(PlannerBlendWork *w, Model *m, const PlannerSegment *g, double (*qs)[PLANNER_MAX_AXES])
{
    int st = lone_level0(w, m, g), step = LONE_TAB0 / PLANNER_PATH_SAMPLES;
    if (st < 0) return st;
    for (int k = 1; k <= PLANNER_PATH_SAMPLES; k++) memcpy(qs[k], lone_q(w, k * step), (size_t)w->n * sizeof(double));
    return 0;
}

int planner_blend_lone_table(PlannerBlendWork *w, Model *m, const PlannerBlendLimits *lim, const PlannerSegment *g)
{
    int n = w->n, st;
    double prev[3 * PLANNER_MAX_AXES], cur[3 * PLANNER_MAX_AXES], dq;
    /* the first level, unless planner_blend_lone_path just built it */
    if ((w->lone != g || w->done || w->N != LONE_TAB0) && (st = lone_level0(w, m, g)) < 0) return st;
    lone_finish(w, m, &dq, cur);
    /* doubled while an axis moves fast between nodes (a swing near a singularity that the table steps over) or,
     * after a doubling, a derivative's peak still changed; each new node seeded by the mean of its neighbours */
    double vpk = g->path.vpk > 0 ? g->path.vpk : 1;
    for (int lev = 0; 2 * w->N <= LONE_TABMAX && 0.5 * w->lds >= LONE_DT * vpk; lev++) {
        int conv = dq <= LONE_DQ;
        for (int j = 0; lev > 0 && conv && j < 3 * n; j++) {
            /* a derivative matters as far as its term can come near the limit at the peak path speed */
            int r = j / n, i = j % n;
            double L = r == 0 ? lim[i].v : r == 1 ? lim[i].a : lim[i].j;
            conv = isinf(L) || fabs(cur[j] - prev[j]) <= LONE_CONV * MAX2(cur[j], prev[j]) + 0.01 * L / dm_pow(vpk, r + 1);
        }
        if (conv) break;
        memcpy(prev, cur, sizeof prev);
        for (int k = w->N; k >= 0; k--) memmove(lone_q(w, 2 * k), lone_q(w, k), (size_t)n * sizeof(double));
        w->N *= 2;
        w->lds = 1.0 / w->N;
        for (int k = 1; k < w->N; k += 2) {
            /* seeded by extrapolation through its left neighbour from the right one (their mean) */
            double seed[PLANNER_MAX_AXES];
            for (int i = 0; i < n; i++) seed[i] = 0.5 * (3 * lone_q(w, k - 1)[i] - lone_q(w, k + 1)[i]);
            if ((st = path_ik(m, g, n, k * w->lds, w->lds, lone_q(w, k - 1), seed, NULL, NULL, lone_q(w, k))) < 0) {
                w->lone = NULL;
                w->lfail = k * w->lds;
                return st;
            }
        }
        lone_finish(w, m, &dq, cur);
    }
    w->done = 1;
    return 0;
}

/* Fold the rates of every axis in path state s into the peaks r[3] (|value| times il, the inverse limits: il[r * n
 * + i], 0 for an INFINITY jerk limit). */
static void lone_fold(const PlannerBlendWork *w, const double *il, const ProfileState *s, double r[3])
{
    int n = w->n, N = w->N;
    if (s->v == 0 && s->a == 0 && s->j == 0) return;
    double f = s->p / w->lds;
    int k = (int)f;             /* s->p >= 0: truncation is the floor */
    if (k > N - 1) k = N - 1;
    double u = f - k, t = 1 - u;
    /* the chain rule's coefficients of dq/ds, d2q/ds2, d3q/ds3 in speed, acceleration and jerk */
    double v = s->v, a = s->a, j = s->j, v2 = v * v, va3 = 3 * v * a, v3 = v2 * v;
    const double *d0 = w->ld + (size_t)k * 3 * (size_t)n, *d1 = d0 + 3 * n;
    double r0 = r[0], r1 = r[1], r2 = r[2];
    for (int i = 0; i < n; i++) {
        double q1 = t * d0[i] + u * d1[i], q2 = t * d0[n + i] + u * d1[n + i];
        double q3 = t * d0[2 * n + i] + u * d1[2 * n + i];
        double o0 = fabs(q1 * v) * il[i], o1 = fabs(q1 * a + q2 * v2) * il[n + i];
        double o2 = fabs(q1 * j + q2 * va3 + q3 * v3) * il[2 * n + i];
        r0 = MAX2(r0, o0), r1 = MAX2(r1, o1), r2 = MAX2(r2, o2);
    }
    r[0] = r0, r[1] = r1, r[2] = r2;
}

int planner_blend_lone_nodes(const PlannerBlendWork *w, const PlannerSegment *g)
{
    return w->lone == g && w->done ? w->N : 0;
}

double planner_blend_lone_failed_at(const PlannerBlendWork *w) { return w->lfail; }

void planner_blend_lone_peaks(PlannerBlendWork *w, const PlannerBlendLimits *lim, double dt, const PlannerSegment *g,
                              double r[3])
{
    r[0] = r[1] = r[2] = 0;
    if (w->lone != g || !w->done || !(g->T > 0)) return;
    /* the stream's values are means of the continuous ones over windows inside [-2h, T + h], where the segment is
     * at rest outside [0, T]; so the peak of the continuous rates over [0, T] bounds them: taken on a grid of
     * half a cycle (at most LONE_GRID steps, or 4 per table interval: the rates are smooth between the table's
     * nodes and the profile's phase boundaries) and on both sides of every phase boundary of the path profile */
    int kmax = (int)ceil(g->T / (0.5 * dt) - 1e-9), kcap = MAX2(LONE_GRID, 4 * w->N);
    if (kmax > kcap) kmax = kcap;
    if (kmax < 1) kmax = 1;
    const Profile *pr = &g->path;
    ProfileState s;
    double il[3 * PLANNER_MAX_AXES];
    for (int i = 0; i < w->n; i++) {
        il[i] = 1 / lim[i].v, il[w->n + i] = 1 / lim[i].a;
        il[2 * w->n + i] = isinf(lim[i].j) ? 0 : 1 / lim[i].j;
    }
    for (int k = 0; k <= kmax; k++) {
        profile_at(pr, g->T * k / kmax, &s);
        lone_fold(w, il, &s, r);
    }
    double b[6] = {pr->Tj, pr->Ta - pr->Tj, pr->Ta, pr->T - pr->Ta, pr->T - pr->Ta + pr->Tj, pr->T - pr->Tj};
    double eps = 1e-9 * g->T;
    for (int e = 0; e < 12; e++) {
        double x = b[e / 2] + (e & 1 ? eps : -eps);
        if (x <= 0 || x >= g->T) continue;
        profile_at(pr, x, &s);
        lone_fold(w, il, &s, r);
    }
}
