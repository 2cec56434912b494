/* planner_blend.c — plan-time check of a blend involving a Cartesian segment: the overlap window on a grid, each
 * side's speed, acceleration and jerk enveloped over the window the stream's differences see, the sums against
 * the limits, and the longest overlap that fits. See planner_blend.h and docs/MOTION.md §3. */
#include "planner_blend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"

#define GRID 2048        /* at most this many grid intervals over the longest overlap (h/2 each when fewer) */
#define PADMAX 16        /* grid intervals beyond each end of the overlap: 2 cycles + 2 (at h/2: 6 .. 8) */
#define NINT (GRID + 2 * PADMAX + 2)
#define TAB 64           /* intervals of a Cartesian segment's joint path table over its part of the overlap */
#define TAB_DT 2e-3      /* s: the table's nodes are at least this far apart in time (at the peak path speed) */
#define NCAND 64         /* overlap candidates: omax, then 90 % steps */
#define MARGIN 0.995     /* the enveloped sum must stay below this fraction of each limit */

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
    if (!w->env) {
        free(w);
        return NULL;
    }
    return w;
}

void planner_blend_work_free(PlannerBlendWork *w)
{
    if (!w) return;
    free(w->env);
    free(w);
}

/* The envelope row r (0-2: max of speed, acc, jerk; 3-5: min) of one axis of one side. */
static double *env_row(PlannerBlendWork *w, int side, int axis, int r)
{
    return w->env + (((size_t)side * (size_t)w->n + (size_t)axis) * 6 + (size_t)r) * NINT;
}

/* The path pose at s without clamping s to [0, 1] (the line, circle and slerp continued: for the table's
 * difference stencils at the path's ends). */
static void pose_ext(const PlannerSegment *g, double s, double pos[3], double quat[4])
{
    if (s >= 0 && s <= 1) planner_path_pose(g, s, pos, quat);
    else planner_path_pose_ext(g, s, pos, quat);
}

/* IK at table node k (s = s0 + k ds) seeded by extrapolation through the nodes k - dir and k - 2 dir. */
static int table_ik(Model *m, Side *sd, int n, int k, int dir)
{
    double pos[3], quat[4], seed[PLANNER_MAX_AXES];
    ModelIkInfo ii;
    const double *q1 = sd->q[k - dir + 2], *q2 = sd->q[k - 2 * dir + 2];
    for (int i = 0; i < n; i++) seed[i] = 2 * q1[i] - q2[i];
    pose_ext(sd->g, sd->s0 + k * sd->ds, pos, quat);
    return model_ik(m, pos, quat, seed, sd->q[k + 2], &ii);
}

/* The joint path table of a Cartesian side over the path parameters its part of the overlap reaches (up to the
 * local time x_far into the segment from its blended end), and the derivatives at its nodes. Returns 0 or < 0
 * (IK failed inside the path). */
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
        for (int i = 0; i < n; i++) {
            int lo = -1 - e, hi = TAB + 1 + e;
            sd->q[lo + 2][i] = 4 * sd->q[lo + 3][i] - 6 * sd->q[lo + 4][i] + 4 * sd->q[lo + 5][i] - sd->q[lo + 6][i];
            sd->q[hi + 2][i] = 4 * sd->q[hi + 1][i] - 6 * sd->q[hi][i] + 4 * sd->q[hi - 1][i] - sd->q[hi - 2][i];
        }
    }
    for (int k = 0; k <= TAB; k++) {
        const double *m2 = sd->q[k], *m1 = sd->q[k + 1], *c = sd->q[k + 2], *p1 = sd->q[k + 3], *p2 = sd->q[k + 4];
        double h = sd->ds;
        for (int i = 0; i < n; i++) {
            sd->d[k][0][i] = (p1[i] - m1[i]) / (2 * h);
            sd->d[k][1][i] = (p1[i] - 2 * c[i] + m1[i]) / (h * h);
            sd->d[k][2][i] = (p2[i] - 2 * p1[i] + 2 * m1[i] - m2[i]) / (2 * h * h * h);
        }
    }
    return 0;
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
    out[0] = d[0] * s.v;
    out[1] = d[0] * s.a + d[1] * s.v * s.v;
    out[2] = d[0] * s.j + 3 * d[1] * s.v * s.a + d[2] * s.v * s.v * s.v;
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
