/* interpolator.c — the cycle's side of the planner: start, blend in and retire the published segments on the
 * time line, and sample each cycle's setpoint (PTP from its profiles; LIN/CIRC by IK at the path pose, seeded
 * from a cache of the last solutions, with speed and acceleration by central differences). See
 * docs/MOTION.md §5. */
#include "motion/interpolator.h"

#include <math.h>
#include <string.h>

#include "motion/planner.h"

/* r = a, whole rows of PLANNER_MAX_AXES: a constant size compiles to six moves, cheaper than a libc memcpy call
 * of n doubles (every row slot_q reads or writes is that wide, and set beyond n: zero or copied). */
static inline void row_copy(double *restrict r, const double *restrict a)
{
    memcpy(r, a, PLANNER_MAX_AXES * sizeof *r);
}

/* The seed w0 q0 + w1 q1 + w2 q2 + w3 q3, axis by axis, summed in that order. */
static inline void seed_sum(double *restrict seed, const double *q0, const double *q1, const double *q2,
                            const double *q3, double w0, double w1, double w2, double w3, int n)
{
    for (int i = 0; i < n; i++) seed[i] = w0 * q0[i] + w1 * q1[i] + w2 * q2[i] + w3 * q3[i];
}

/* Is x the usual next cycle of a full cache: beyond the entry ci written last by d0 > tol, with ci - 1, ci - 2,
 * ci - 3 (mod 4) at 2 d0, 3 d0, 4 d0 behind x? cache_seed would then sort them nearest first in that same order,
 * take the equally spaced weights by the same test and replace ci - 3 (the oldest): this gets there without the
 * search. */
static inline int cache_usual(const PlannerSlot *s, double x, double tol)
{
    int c = s->ci;
    double d0 = x - s->tc[c];
    if (s->nc < 4 || !(d0 > tol)) return 0;
    double d1 = x - s->tc[(c + 3) & 3], d2 = x - s->tc[(c + 2) & 3], d3 = x - s->tc[(c + 1) & 3];
    return fabs(d1 - 2 * d0) <= 1e-9 * d0 && fabs(d2 - 3 * d0) <= 1e-9 * d0 && fabs(d3 - 4 * d0) <= 1e-9 * d0;
}

/* slot_q's seed at x from the cache in general (any times, any count), and the entry a new solution replaces
 * when the cache is full (*old: the earliest). Returns 1 when x is a cached time: q is then the solution. */
static int cache_seed(const PlannerSlot *s, const PlannerSegment *g, double x, double tol, int n, double *seed,
                      double *q, int *old)
{
    double dist[4];
    int ord[4], m = 0;
    *old = 0;
    for (int k = 0; k < s->nc; k++) {   /* the cached solutions by distance from x, nearest first */
        double d = fabs(s->tc[k] - x);
        if (d <= tol) { row_copy(q, s->qc[k]); return 1; }
        int j = m++;
        for (; j > 0 && d < dist[j - 1]; j--) dist[j] = dist[j - 1], ord[j] = ord[j - 1];
        dist[j] = d, ord[j] = k;
        if (s->tc[k] < s->tc[*old]) *old = k;
    }
    /* seed: the solutions at the nearest m cached times extrapolated to x by the polynomial through them
     * (Lagrange weights w): cubic through four, seed error ~ h^4 times the fourth derivative (~1e-12 in a 1 ms
     * cycle, where one Newton step with a factorisation kept from an earlier cycle reaches ~1e-15; quadratic:
     * ~ h^3 q''' ~ 1e-9). Only nearby points, so the weights stay small (4, -6, 4, -1 for the usual equally
     * spaced cache: sum |w| = 15); otherwise fewer points. */
    double w[4], t[4], d[4];
    for (int k = 0; k < m; k++) t[k] = s->tc[ord[k]], d[k] = x - t[k];
    if (m == 4 && fabs(d[1] - 2 * d[0]) <= 1e-9 * dist[0] && fabs(d[2] - 3 * d[0]) <= 1e-9 * dist[0] &&
        fabs(d[3] - 4 * d[0]) <= 1e-9 * dist[0]) {   /* the usual cycle: the equally spaced weights, exactly */
        w[0] = 4, w[1] = -6, w[2] = 4, w[3] = -1;
        m = -4;
    }
    for (; m > 1; m--) {
        double sum = 0;
        for (int k = 0; k < m; k++) {
            double num = 1, den = 1;
            for (int j = 0; j < m; j++) {
                if (j == k) continue;
                num *= d[j];
                den *= t[k] - t[j];
            }
            w[k] = num / den;
            sum += fabs(w[k]);
        }
        if (sum <= 16) break;   /* also false for NaN (two equal times) */
    }
    if (m < 0) m = 4;
    if (m == 0) {
        row_copy(seed, g->q0);
    } else if (m == 1) {
        row_copy(seed, s->qc[ord[0]]);
    } else {
        const double *q0 = s->qc[ord[0]], *q1 = s->qc[ord[1]], *q2 = s->qc[ord[m > 2 ? 2 : 1]];
        const double *q3 = s->qc[ord[m > 3 ? 3 : 1]];
        seed_sum(seed, q0, q1, q2, q3, w[0], w[1], m > 2 ? w[2] : 0, m > 3 ? w[3] : 0, n);
    }
    return 0;
}

/* Joint position q (a row of PLANNER_MAX_AXES) of a Cartesian slot at local time x: the ends exactly, in between
 * IK seeded with the cached solutions extrapolated; solutions are cached (4 entries) so a cycle stepping by dt
 * computes one. pose (7 doubles) gets the path pose the IK solved for, or NaN first when none was solved. */
static inline __attribute__((always_inline)) int slot_q(Planner *p, PlannerSlot *s, double x, double *q,
                                                        double *pose)
{
    const PlannerSegment *g = s->seg;
    int n = p->cfg.dof;
    if (x <= 0 || x >= g->T) {
        row_copy(q, x <= 0 ? g->q0 : g->q1);
        pose[0] = NAN;
        return 0;
    }
    double tol = 1e-9 * p->cfg.dt, seed[PLANNER_MAX_AXES];
    int old;
    if (cache_usual(s, x, tol)) {   /* the cubic through the last four, newest first */
        int c = s->ci;
        seed_sum(seed, s->qc[c], s->qc[(c + 3) & 3], s->qc[(c + 2) & 3], s->qc[(c + 1) & 3], 4, -6, 4, -1, n);
        old = (c + 1) & 3;
    } else if (cache_seed(s, g, x, tol, n, seed, q, &old)) {
        pose[0] = NAN;   /* a cached solution: no pose solved here */
        return 0;
    }
    ModelIkInfo ii;
    planner_path_flange(g, profile_pos(&g->path, x), pose, pose + 3);
    int st = model_ik(p->cfg.model, pose, pose + 3, seed, q, &ii);
    if (st < 0) return PLANNER_EIK;
    int k = s->nc < 4 ? s->nc++ : old;
    s->tc[k] = x;
    s->ci = k;
    row_copy(s->qc[k], q);
    return 0;
}

/* slot_q out of line: the window's restarts (slot_q itself is inlined in the cycle's one call). */
static int slot_q_restart(Planner *p, PlannerSlot *s, double x, double *q, double *pose)
{
    return slot_q(p, s, x, q, pose);
}

/* q, qd, qdd of one active slot at absolute time t; pose when Cartesian (and pos not NULL). Inlined in
 * planner_sample for the main slot (its call costs as much as a tenth of the cycle's own work). */
static inline __attribute__((always_inline)) int slot_eval(Planner *p, PlannerSlot *s, double t, double *q,
                                                           double *qd, double *qdd, double *pos, double *quat)
{
    const PlannerSegment *g = s->seg;
    int n = p->cfg.dof;
    double x = t - s->start;
    if (g->kind == PLANNER_JSPLINE) {   /* q(s(x)) and the chain rule: exact */
        ProfileState ps;
        double d1[PLANNER_SPLINE_DIM], d2[PLANNER_SPLINE_DIM];
        profile_at(&g->path, x, &ps);
        planner_spline_at(g, ps.p, q, d1, d2);
        for (int i = 0; i < n; i++) {
            qd[i] = d1[i] * ps.v;
            qdd[i] = d2[i] * ps.v * ps.v + d1[i] * ps.a;
        }
        return 0;
    }
    if (g->kind == PLANNER_PTP) {
        for (int i = 0; i < n; i++) {
            ProfileState ps;
            profile_at(&g->ax[i], x, &ps);
            q[i] = ps.p;
            qd[i] = ps.v;
            qdd[i] = ps.a;
        }
        return 0;
    }
    /* central differences over one cycle of the IK solutions (exact rest outside the segment). The window of the
     * cycle before, when it was one dt earlier (slot_q's tolerance), gives q(x - h) and q(x): only q(x + h) is
     * new (slot_q would find the other two in its cache, at the cost of searching it) */
    double h = p->cfg.dt;
    int r0 = s->w0, r1 = r0 == 2 ? 0 : r0 + 1, r2 = r1 == 2 ? 0 : r1 + 1;
    if (s->wn && fabs(x - h - s->wx) <= 1e-9 * h) {
        r0 = r1, r1 = r2, r2 = s->w0;   /* slide by one: the oldest row takes q(x + h) */
    } else if (slot_q_restart(p, s, x - h, s->wq[r0], s->wp[r0]) < 0 ||
               slot_q_restart(p, s, x, s->wq[r1], s->wp[r1]) < 0) {
        s->wn = 0;
        return PLANNER_EIK;
    }
    if (slot_q(p, s, x + h, s->wq[r2], s->wp[r2]) < 0) {
        s->wn = 0;
        return PLANNER_EIK;
    }
    s->wn = 1, s->wx = x, s->w0 = r0;
    const double *restrict qm = s->wq[r0], *restrict qc = s->wq[r1], *restrict qp = s->wq[r2];
    double *restrict oq = q, *restrict oqd = qd, *restrict oqdd = qdd;   /* the setpoint's rows, not the window's */
    if (x <= 0 || x >= g->T) {
        for (int i = 0; i < n; i++) oq[i] = qc[i], oqd[i] = oqdd[i] = 0;
    } else {
        double h2 = 2 * h, hh = h * h;
        for (int i = 0; i < n; i++) {
            oq[i] = qc[i];
            oqd[i] = (qp[i] - qm[i]) / h2;
            oqdd[i] = (qp[i] - 2 * qc[i] + qm[i]) / hh;
        }
    }
    if (pos && !isnan(s->wp[r1][0])) {   /* the pose q(x) was solved for (the last cycle's x + dt, usually) */
        memcpy(pos, s->wp[r1], 3 * sizeof *pos);
        memcpy(quat, s->wp[r1] + 3, 4 * sizeof *quat);
    } else if (pos) {
        planner_path_flange(g, profile_pos(&g->path, x), pos, quat);
    }
    return 0;
}

/* slot_eval out of line: the segment blending in (no path pose). */
static int slot_eval_next(Planner *p, double t, double *q, double *qd, double *qdd)
{
    return slot_eval(p, &p->next, t, q, qd, qdd, NULL, NULL);
}

/* Is the segment with ring index i published? */
static const PlannerSegment *published(Planner *p, size_t i)
{
    if (i >= atomic_load_explicit(&p->head, memory_order_acquire)) return NULL;
    return &p->ring[i % (size_t)p->cfg.capacity];
}

static void slot_start(PlannerSlot *s, const PlannerSegment *g, double start)
{
    s->seg = g;
    s->start = start;
    s->wn = 0;
    s->nc = 0;
    s->ci = 0;
}

/* Does an exact stop between g and its successor nx rest one cycle (advance)? */
static int rests(const PlannerSegment *g, const PlannerSegment *nx)
{
    return planner_kind_cartesian(g->kind) || planner_kind_cartesian(nx->kind);
}

/* Advance the queue to time t: start, blend in and retire segments. */
static void advance(Planner *p, double t)
{
    const PlannerSegment *cur = p->main.seg;
    double xc = cur ? t - p->main.start : 0;
    if (cur && (p->zone_decided || xc < cur->zone_t) && xc < cur->T) return;   /* the usual cycle: nothing to do */
    size_t tail = atomic_load_explicit(&p->tail, memory_order_relaxed);
    if (!p->main.seg) {
        const PlannerSegment *g = published(p, tail);
        if (g) { slot_start(&p->main, g, t); p->zone_decided = 0; }
    }
    for (int guard = 0; p->main.seg && guard <= p->cfg.capacity + 2; guard++) {
        const PlannerSegment *g = p->main.seg;
        double x = t - p->main.start;
        if (!p->zone_decided && x >= g->zone_t) {
            p->zone_decided = 1;
            const PlannerSegment *nx = published(p, tail + 1);
            if (nx && nx->overlap > 0) slot_start(&p->next, nx, p->main.start + g->T - nx->overlap);
        }
        if (x < g->T) break;
        double end = p->main.start + g->T;
        memcpy(p->q_hold, g->q1, (size_t)p->cfg.dof * sizeof(double));
        atomic_store_explicit(&p->tail, ++tail, memory_order_release);
        p->zone_decided = 0;
        if (p->next.seg) {
            p->main = p->next;
            p->next.seg = NULL;
        } else {
            const PlannerSegment *nx = published(p, tail);
            p->main.seg = NULL;
            /* an exact stop next to a Cartesian segment rests one cycle: that segment's differences reach a
             * cycle beyond its end (and before its start), where they would meet the other segment's first jerk
             * ramp in one cycle (up to the limit plus a sixth of the Cartesian ramp; docs/MOTION.md §3) */
            int rest = nx && rests(g, nx);
            if (nx) slot_start(&p->main, nx, end + (rest ? p->cfg.dt : 0));
        }
    }
}

int planner_segment_start(const Planner *p, double t, int id, double *start)
{
    size_t tail = atomic_load_explicit(&p->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&p->head, memory_order_acquire), cap = (size_t)p->cfg.capacity;
    if (p->fault) return 0;
    if (tail == head || id < p->ring[tail % cap].id) return -1;
    const PlannerSegment *g = p->main.seg ? p->main.seg : &p->ring[tail % cap];
    double s = p->main.seg ? p->main.start : t;
    size_t i = tail + 1;
    int decided = p->main.seg && p->zone_decided;
    if (p->next.seg) {
        if (g->id == id) return *start = s, 1;
        g = p->next.seg, s = p->next.start, i++, decided = 0;
    }
    for (;; i++) {
        if (g->id == id) return *start = s, 1;
        if (i >= head) return 0;
        const PlannerSegment *nx = &p->ring[i % cap];
        /* a successor published while g has not reached its zone blends in (advance); else it starts after g */
        s = nx->overlap > 0 && !decided ? s + g->T - nx->overlap : s + g->T + (rests(g, nx) ? p->cfg.dt : 0);
        g = nx, decided = 0;
    }
}

/* Is the singularity proximity checked this cycle (PlannerSetpoint.sing_due)? A PTP to an IK-solved target: in its
 * last cycle before it ends, unless a successor is already blending in (the target is then not reached). */
static void sing_due(const Planner *p, double t, PlannerSetpoint *sp)
{
    const PlannerSegment *g = p->main.seg, *nx = p->next.seg;
    if (planner_kind_cartesian(g->kind) || (nx && planner_kind_cartesian(nx->kind))) {
        sp->sing_due = 1;
    } else if (g->ik_target && !nx && t - p->main.start >= g->T - p->cfg.dt) {
        sp->sing_due = 2;
        sp->sing = g->sing_target;
    }
}

int planner_sample(Planner *p, double t, PlannerSetpoint *sp)
{
    int n = p->cfg.dof;
    sp->t = t;
    sp->n = n;
    sp->has_pose = 0;
    sp->sing_due = 0;
    p->t_last = t;
    if (!p->fault) advance(p, t);
    if (p->fault || !p->main.seg) {
        memcpy(sp->q, p->q_hold, (size_t)n * sizeof(double));
        memset(sp->qd, 0, (size_t)n * sizeof(double));
        memset(sp->qdd, 0, (size_t)n * sizeof(double));
        sp->seg_id = 0;
        if (p->fault) { sp->src = p->fault_src; return p->fault; }
        sp->src = (PlannerSrc){0};
        if (p->cfg.pose_every_cycle && p->cfg.model)
            sp->has_pose = planner_fk_pose(p->cfg.model, sp->q, sp->pos, sp->quat) == 0;
        return PLANNER_IDLE;
    }
    PlannerSlot *cur = p->next.seg ? &p->next : &p->main;
    sp->seg_id = cur->seg->id;
    sp->src = cur->seg->src;
    sing_due(p, t, sp);
    int st = slot_eval(p, &p->main, t, sp->q, sp->qd, sp->qdd, sp->pos, sp->quat);
    sp->has_pose = planner_kind_cartesian(p->main.seg->kind);
    if (st == 0 && p->next.seg) {
        double q[PLANNER_MAX_AXES], qd[PLANNER_MAX_AXES], qdd[PLANNER_MAX_AXES];
        st = slot_eval_next(p, t, q, qd, qdd);   /* a blend has no path pose */
        for (int i = 0; i < n && st == 0; i++) {
            sp->q[i] += q[i] - p->next.seg->q0[i];
            sp->qd[i] += qd[i];
            sp->qdd[i] += qdd[i];
        }
        sp->has_pose = 0;
        if (st < 0) sp->src = p->next.seg->src;
    }
    if (st < 0) {                /* hold the last good position, report the statement */
        if (!p->next.seg) sp->src = p->main.seg->src;
        p->fault = PLANNER_EIK;
        p->fault_src = sp->src;
        memset(sp->qd, 0, (size_t)n * sizeof(double));
        memset(sp->qdd, 0, (size_t)n * sizeof(double));
        for (int k = 0; k < p->main.nc; k++) memcpy(p->q_hold, p->main.qc[k], (size_t)n * sizeof(double));
        memcpy(sp->q, p->q_hold, (size_t)n * sizeof(double));
        return PLANNER_EIK;
    }
    if (!sp->has_pose && p->cfg.pose_every_cycle && p->cfg.model)
        sp->has_pose = planner_fk_pose(p->cfg.model, sp->q, sp->pos, sp->quat) == 0;
    return PLANNER_OK;
}
