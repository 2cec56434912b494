/* planner.c — the producer side of the planner: the segment queue, PTP/LIN/CIRC planning with limits from the
 * joint-space path, blending by superposition (the checks with a Cartesian segment are planner_blend.c's). The
 * per-cycle sampling is interpolator.c's. Design and formulas: docs/MOTION.md. */
#include "motion/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmath.h"
#include "geom.h"
#include "motion/spline.h"

#define NS PLANNER_PATH_SAMPLES
#define BLEND_SAMPLES 400       /* samples of an overlap window checked against the limits at plan time */
#define BLEND_MARGIN 0.995      /* the blended sum must stay below this fraction of each limit at those samples */
#define LONE_MARGIN 0.99        /* a lone LIN/CIRC: 1 % below each limit (its peaks came up to 0.4 % below the stream) */
#define LONE_ITER 8             /* at most this many slow-downs of a lone LIN/CIRC (one is the rule) */

/* ---------------------------------------------------------------- configuration */

void planner_config_init(PlannerConfig *c, int dof)
{
    memset(c, 0, sizeof *c);
    c->dof = dof;
    for (int i = 0; i < PLANNER_MAX_AXES; i++) {
        c->limits[i] = (ModelAxisLimits){-INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
    }
    c->capacity = 64;
    c->dt = 1e-3;
    c->axis_vmax = PLANNER_DEFAULT_AXIS_VMAX;
    c->axis_amax = PLANNER_DEFAULT_AXIS_AMAX;
    c->speed = 0.2;
    c->speed_ori = 1.0;
    c->acc = 1.0;
    c->acc_ori = 5.0;
    c->jerk = 10.0;
    c->jerk_ori = 50.0;
}

void planner_config_from_model(PlannerConfig *c, Model *m)
{
    int n = m->dof < PLANNER_MAX_AXES ? m->dof : PLANNER_MAX_AXES;
    c->dof = m->dof;
    c->model = m;
    for (int i = 0; i < n; i++) {
        c->limits[i] = m->desc.joint[i].limits;
        c->q_start[i] = m->desc.joint[i].home;
    }
}

/* Effective speed, acceleration and jerk limit of axis i (defaults where the machine gives none). */
static double ax_v(const Planner *p, int i)
{
    double v = p->cfg.limits[i].vmax;
    return isinf(v) ? p->cfg.axis_vmax : v;
}
static double ax_a(const Planner *p, int i)
{
    double a = p->cfg.limits[i].amax;
    return isinf(a) ? p->cfg.axis_amax : a;
}
static double ax_j(const Planner *p, int i) { return p->cfg.limits[i].jmax; }

static Model *plan_model(Planner *p) { return p->cfg.plan_model ? p->cfg.plan_model : p->cfg.model; }

/* Every axis's speed, acceleration and jerk limit, as the checks of planner_blend.c take them. */
static void blend_limits(const Planner *p, PlannerBlendLimits *lim)
{
    for (int i = 0; i < p->cfg.dof; i++) lim[i] = (PlannerBlendLimits){ax_v(p, i), ax_a(p, i), ax_j(p, i)};
}

/* Every axis's limits as the machine gives them (INFINITY: not given): what a blend must keep. A default is a
 * planning value of each segment, not a limit of the machine, and does not lower or refuse a blend. */
static void given_limits(const Planner *p, PlannerBlendLimits *lim)
{
    for (int i = 0; i < p->cfg.dof; i++) {
        const ModelAxisLimits *g = &p->cfg.limits[i];
        lim[i] = (PlannerBlendLimits){g->vmax, g->amax, g->jmax};
    }
}

int planner_init(Planner *p, const PlannerConfig *cfg)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    if (cfg->dof < 1 || cfg->dof > PLANNER_MAX_AXES || cfg->capacity < 2 || !(cfg->dt > 0)) {
        snprintf(p->err, sizeof p->err, "planner: %d axes (1..%d), capacity %d (>= 2), cycle %g s (> 0)",
                 cfg->dof, PLANNER_MAX_AXES, cfg->capacity, cfg->dt);
        return PLANNER_EINVAL;
    }
    if (cfg->model && cfg->model->dof != cfg->dof) {
        snprintf(p->err, sizeof p->err, "planner: %d axes but the model has %d", cfg->dof, cfg->model->dof);
        return PLANNER_EINVAL;
    }
    p->ring = calloc((size_t)cfg->capacity, sizeof *p->ring);
    if (!p->ring) {
        snprintf(p->err, sizeof p->err, "planner: out of memory");
        return PLANNER_EINVAL;
    }
    if (cfg->model || cfg->plan_model) {
        p->blend = planner_blend_work_new(cfg->dof);
        if (!p->blend) {
            free(p->ring);
            p->ring = NULL;
            snprintf(p->err, sizeof p->err, "planner: out of memory");
            return PLANNER_EINVAL;
        }
    }
    atomic_init(&p->head, 0);
    atomic_init(&p->tail, 0);
    p->next_id = 1;
    p->no_blend = 1;
    planner_reset(p, cfg->q_start);
    return PLANNER_OK;
}

void planner_free(Planner *p)
{
    free(p->ring);
    p->ring = NULL;
    planner_blend_work_free(p->blend);
    p->blend = NULL;
}

void planner_reset(Planner *p, const double *q)
{
    size_t h = atomic_load_explicit(&p->head, memory_order_acquire);
    atomic_store_explicit(&p->tail, h, memory_order_release);
    memset(&p->main, 0, sizeof p->main);
    memset(&p->next, 0, sizeof p->next);
    p->zone_decided = 0;
    p->fault = 0;
    p->no_blend = 1;
    p->resets++;
    memcpy(p->q_hold, q, (size_t)p->cfg.dof * sizeof *q);
    memcpy(p->q_end, q, (size_t)p->cfg.dof * sizeof *q);
    Model *m = plan_model(p);
    p->have_pose_end = m && planner_fk_pose(m, q, p->pos_end, p->quat_end) == 0;
}

const char *planner_error(const Planner *p) { return p->err; }

const PlannerSegment *planner_last_pushed(const Planner *p)
{
    size_t h = atomic_load_explicit(&p->head, memory_order_relaxed);
    return p->next_id > 1 ? &p->ring[(h - 1) % (size_t)p->cfg.capacity] : NULL;
}

size_t planner_pending(const Planner *p)
{
    return atomic_load_explicit(&p->head, memory_order_acquire) -
           atomic_load_explicit(&p->tail, memory_order_acquire);
}

int planner_last_target(const Planner *p, double *q, double *pos, double *quat)
{
    if (q) memcpy(q, p->q_end, (size_t)p->cfg.dof * sizeof *q);
    if (p->have_pose_end) {
        if (pos) v3_copy(pos, p->pos_end);
        if (quat) memcpy(quat, p->quat_end, 4 * sizeof *quat);
    }
    return p->have_pose_end;
}

void planner_flush(Planner *p) { p->no_blend = 1; }

void planner_set_tool(Planner *p, const double tool[7])
{
    memcpy(p->tool, tool, sizeof p->tool);
    p->has_tool = tool[0] || tool[1] || tool[2] || tool[3] != 1 || tool[4] || tool[5] || tool[6];
}

/* ---------------------------------------------------------------- circle geometry */

/* Circle through a, b (via) and c: centre, radius, in-plane basis (e1 towards a) and the arc angle from a to
 * c passing b. Returns 0 or PLANNER_EGEOM. */
static int circle_through(PlannerSegment *g, const double a[3], const double b[3], const double c[3])
{
    double u[3], v[3], n[3], w[3], x[3], d[3];
    v3_sub(u, b, a);
    v3_sub(v, c, a);
    v3_cross(n, u, v);
    double nn = v3_dot(n, n), uu = v3_dot(u, u), vv = v3_dot(v, v);
    if (!(nn > 1e-24 * uu * vv) || uu == 0 || vv == 0) return PLANNER_EGEOM;
    /* centre - a = (|u|^2 v - |v|^2 u) x (u x v) / (2 |u x v|^2) */
    for (int i = 0; i < 3; i++) w[i] = uu * v[i] - vv * u[i];
    v3_cross(x, w, n);
    for (int i = 0; i < 3; i++) g->centre[i] = a[i] + x[i] / (2 * nn);
    v3_sub(d, a, g->centre);
    g->radius = v3_norm(d);
    v3_scale(g->e1, d, 1.0 / g->radius);
    double nu[3];
    v3_scale(nu, n, 1.0 / sqrt(nn));
    v3_cross(g->e2, nu, g->e1);
    v3_sub(d, c, g->centre);
    g->phi = dm_atan2(v3_dot(d, g->e2), v3_dot(d, g->e1));
    if (g->phi <= 0) g->phi += 2 * M_PI;   /* a -> b -> c runs counter-clockwise about n */
    for (int k = 0; k <= PLANNER_TRIG; k++) {
        double ak = g->phi * k / PLANNER_TRIG;   /* the expression planner_path_pose_ext repeats, to the bit */
        dm_sincos(ak, &g->trig[k][1], &g->trig[k][0]);
    }
    g->ntrig = PLANNER_TRIG;
    return 0;
}

/* ---------------------------------------------------------------- planning */

/* What planning a LIN/CIRC needs beyond its segment, kept for replanning it when a blend lowers it. */
typedef struct {
    double L, th;                                   /* path length (m) and rotation angle (rad) */
    double D1[PLANNER_MAX_AXES], D2[PLANNER_MAX_AXES], D3[PLANNER_MAX_AXES]; /* |dq/ds|, |d2q/ds2|, |d3q/ds3| */
} CartPlan;

/* PTP with PTP: the speed, acceleration and jerk of every axis of a PTP segment at local time t (the blend check
 * with a Cartesian segment is planner_blend.c's). */
static void plan_eval(const Planner *p, const PlannerSegment *g, double t, double *qd, double *qdd, double *qj)
{
    for (int i = 0; i < p->cfg.dof; i++) {
        ProfileState s;
        profile_at(&g->ax[i], t, &s);
        qd[i] = s.v;
        qdd[i] = s.a;
        qj[i] = s.j;
    }
}

/* Does the sum s of two values x, y keep the limit lim? Below BLEND_MARGIN of it (room for the peaks between the
 * samples), or no further from zero than one of them alone (a segment planned at its limit, the other adding
 * nothing or pulling back: its own plan keeps the limit). */
static int sum_fits(double x, double y, double lim)
{
    double s = fabs(x + y);
    return s <= BLEND_MARGIN * lim || s <= fmax(fabs(x), fabs(y)) * (1 + 1e-9);
}

/* Does the blended sum at overlap time tau (0 at the successor's start) keep every limit the machine gives? A
 * default (ax_v, ax_a where the machine file gives none) is a planning value, not a limit of the machine: it
 * shapes each segment, never the blend (docs/MOTION.md §2). With why (not NULL) every axis is looked at, and the
 * value furthest beyond its limit (relative) so far is kept in why. */
static int blend_point_fits(const Planner *p, const PlannerSegment *a, const PlannerSegment *b, double o,
                            double tau, PlannerBlendWhy *why)
{
    int n = p->cfg.dof, fits = 1;
    double va[PLANNER_MAX_AXES], aa[PLANNER_MAX_AXES], ja[PLANNER_MAX_AXES];
    double vb[PLANNER_MAX_AXES], ab[PLANNER_MAX_AXES], jb[PLANNER_MAX_AXES];
    plan_eval(p, a, a->T - o + tau, va, aa, ja);
    plan_eval(p, b, tau, vb, ab, jb);
    for (int i = 0; i < n; i++) {
        const ModelAxisLimits *g = &p->cfg.limits[i];   /* INFINITY: not given, not checked */
        double x[3] = {va[i], aa[i], ja[i]}, y[3] = {vb[i], ab[i], jb[i]}, l[3] = {g->vmax, g->amax, g->jmax};
        for (int q = 0; q < 3; q++) {
            if (q < 2 ? sum_fits(x[q], y[q], l[q]) : isinf(l[q]) || fabs(x[q] + y[q]) <= l[q] * (1 + 1e-9)) continue;
            if (!why) return 0;
            fits = 0;
            double r = fabs(x[q] + y[q]) / l[q];
            if (why->axis < 0 || r > fabs(why->value) / why->limit)
                *why = (PlannerBlendWhy){i, q, x[q] + y[q], l[q], o, tau};
        }
    }
    return fits;
}

/* The phase boundaries of a profile (local times). */
static void phase_bounds(const Profile *pr, double b[6])
{
    b[0] = pr->Tj; b[1] = pr->Ta - pr->Tj; b[2] = pr->Ta;
    b[3] = pr->T - pr->Ta; b[4] = pr->T - pr->Ta + pr->Tj; b[5] = pr->T - pr->Tj;
}

/* The overlap window sampled uniformly and, for PTP profiles, just after every phase boundary of either
 * segment (the summed jerk is constant between boundaries, so this sees every jerk sum exactly). The window's
 * own ends are boundaries too: at tau = 0 the successor reports the jerk of rest (0), not that of its first
 * phase, so the piece between the window start and the first phase boundary is sampled just inside it (that
 * piece was missed, and a blend with twice the jerk limit there was accepted); likewise just before the end. */
static int blend_fits(const Planner *p, const PlannerSegment *a, const PlannerSegment *b, double o,
                      PlannerBlendWhy *why)
{
    int n = p->cfg.dof, fits = 1;   /* with why, every point is looked at (the worst is kept) */
    double eps = 1e-9 * o, bd[6];
#define POINT(tau) do { if (!blend_point_fits(p, a, b, o, (tau), why) && (fits = 0, !why)) return 0; } while (0)
    POINT(eps);
    POINT(o - eps);
    for (int i = 0; i < n; i++) {
        if (a->kind == PLANNER_PTP) {
            phase_bounds(&a->ax[i], bd);
            for (int k = 0; k < 6; k++) {
                double tau = bd[k] - (a->T - o) + eps;
                if (tau > 0 && tau < o) POINT(tau);
            }
        }
        if (b->kind == PLANNER_PTP) {
            phase_bounds(&b->ax[i], bd);
            for (int k = 0; k < 6; k++) {
                double tau = bd[k] + eps;
                if (tau > 0 && tau < o) POINT(tau);
            }
        }
    }
    for (int k = 0; k <= BLEND_SAMPLES; k++) POINT(o * k / BLEND_SAMPLES);
#undef POINT
    return fits;
}

/* PTP with PTP: overlap of the new segment b with its predecessor a: the predecessor's approximation zone, at
 * most half of b, shortened (80 % steps) until the blended sum keeps every limit; 0 when nothing fits. When it is
 * shortened, info->approx_why says which limit the longest overlap would break. */
static double blend_overlap(const Planner *p, const PlannerSegment *a, const PlannerSegment *b,
                            PlannerPushInfo *info)
{
    double omax = fmin(a->T - a->zone_t, 0.5 * b->T);
    if (!(omax > 0)) return 0;
    double o = omax;
    for (int k = 0; k < 30; k++, o *= 0.8) {
        if (blend_fits(p, a, b, o, k == 0 ? &info->approx_why : NULL)) {
            if (k > 0) info->lowered |= PLANNER_LOWERED_APPROX;
            return o;
        }
    }
    info->lowered |= PLANNER_LOWERED_APPROX;
    return 0;
}

/* The published segment the one being planned may blend with (NULL: it starts from rest). */
static const PlannerSegment *predecessor(const Planner *p)
{
    if (p->no_blend || p->next_id <= 1) return NULL;
    size_t h = atomic_load_explicit(&p->head, memory_order_relaxed);
    return &p->ring[(h - 1) % (size_t)p->cfg.capacity];
}

/* A requested value, or the default when it is not given (<= 0 or NaN). */
static double given(double v, double dflt) { return v > 0 ? v : dflt; }

/* Per-axis synchronised profiles: every axis stretched to the slowest axis' minimum time (or TIME). kacc scales
 * the acceleration and jerk fraction (ACC_PTP) when a blend needs it lowered. On a device that can move in
 * Cartesian space (its model has IK), a PTP with an approximation zone keeps PLANNER_JERK_RESERVE of every jerk
 * limit free, and so does a PTP that a PTP with a zone precedes:
 * superposed, the predecessor's last jerk ramp and the successor's first (of the same sign where an axis keeps
 * its direction) may coincide, and each at half the limit keeps their sum within it. That reserve also leaves a
 * LIN/CIRC successor the room it needs (its joint jerk is nowhere exactly zero). A device that moves by PTP only
 * plans at the full limit: its programs may shape blends exactly (freeflyer_pd.irl chains S-curves whose ramps
 * cancel), and a short PTP-PTP overlap there is shortened to what the full ramps allow. */
static int plan_ptp(Planner *p, PlannerSegment *g, const PlannerParams *par, double kacc, PlannerPushInfo *info)
{
    int n = p->cfg.dof;
    double fv = fmin(given(par->speed_ptp, 1.0), 1.0), fa = fmin(given(par->acc_ptp, 1.0), 1.0) * kacc, Tmin = 0;
    double f = fmin(fmax(par->approx_ptp > 0 ? par->approx_ptp : 0, 0), 1);
    const PlannerSegment *a = predecessor(p);
    Model *m = plan_model(p);
    int blended = f > 0 || (a && a->kind == PLANNER_PTP && a->zone_t < a->T);
    double fj = blended && m && m->type->ik ? fa * (1 - PLANNER_JERK_RESERVE) : fa;
    g->acc_req = fa;
    g->approx_req = f;
    for (int i = 0; i < n; i++) {
        double t = profile_min_time(g->q1[i] - g->q0[i], ax_v(p, i) * fv, ax_a(p, i) * fa, ax_j(p, i) * fj);
        if (isnan(t)) {
            snprintf(p->err, sizeof p->err, "axis %d: invalid limits", i + 1);
            return PLANNER_EINVAL;
        }
        Tmin = fmax(Tmin, t);
    }
    double T = Tmin;
    if (par->time > 0) {
        if (par->time < Tmin * (1 - 1e-12)) info->lowered |= PLANNER_LOWERED_TIME;
        T = fmax(T, par->time);
    }
    g->T = 0;
    for (int i = 0; i < n; i++) {
        if (profile_plan_duration(&g->ax[i], g->q0[i], g->q1[i], ax_v(p, i) * fv, ax_a(p, i) * fa,
                                  ax_j(p, i) * fj, T) < 0)
            return PLANNER_EINVAL;
        g->T = fmax(g->T, g->ax[i].T);
    }
    g->zone_t = g->T - 0.5 * f * g->T;
    return PLANNER_OK;
}

/* The message of an IK failure (model status st) in the lone table of path g; returns PLANNER_EIK. */
static int path_ik_failed(Planner *p, const PlannerSegment *g, int st)
{
    double pos[3], quat[4], s = planner_blend_lone_failed_at(p->blend);
    planner_path_pose(g, s, pos, quat);
    snprintf(p->err, sizeof p->err, "inverse kinematics failed at %.0f %% of the path, pose (%.6g, %.6g, %.6g) m: %s",
             100 * s, pos[0], pos[1], pos[2], model_strerror(st));
    return PLANNER_EIK;
}

/* The joint-space table of a Cartesian path (IK at NS + 1 points: every second node of the lone check's first table
 * level, planner_blend.c, which walks the path in 64 steps; solved once for both) and the bounds D1, D2, D3 of
 * |dq/ds|, |d2q/ds2|, |d3q/ds3| per axis, from differences with a safety factor. */
static int path_table(Planner *p, PlannerSegment *g, double *D1, double *D2, double *D3)
{
    int n = p->cfg.dof;
    memcpy(g->qs[0], g->q0, (size_t)n * sizeof(double));
    int st = planner_blend_lone_path(p->blend, plan_model(p), g, g->qs);
    if (st < 0) return path_ik_failed(p, g, st);
    memcpy(g->q1, g->qs[NS], (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        double d1 = 0, d2 = 0, d3 = 0;
        for (int k = 0; k < NS; k++) d1 = fmax(d1, fabs(g->qs[k + 1][i] - g->qs[k][i]) * NS);
        for (int k = 1; k < NS; k++)
            d2 = fmax(d2, fabs(g->qs[k + 1][i] - 2 * g->qs[k][i] + g->qs[k - 1][i]) * NS * NS);
        for (int k = 1; k < NS - 1; k++)
            d3 = fmax(d3, fabs(g->qs[k + 2][i] - 3 * g->qs[k + 1][i] + 3 * g->qs[k][i] - g->qs[k - 1][i]) *
                              NS * NS * NS);
        D1[i] = 1.10 * d1 + 1e-12;
        D2[i] = 1.25 * d2 + 1.0 * d1;    /* the table is coarse: keep a floor tied to the first derivative */
        D3[i] = 1.50 * d3 + 1.0 * d2 + 1.0 * d1;
    }
    return PLANNER_OK;
}

/* LIN/CIRC geometry: path length, rotation angle, and the joint-space table with its derivative bounds. */
static int cart_geometry(Planner *p, PlannerSegment *g, CartPlan *cp)
{
    cp->L = g->kind == PLANNER_CIRC ? g->radius * g->phi : 0;
    if (g->kind == PLANNER_LIN) {
        double d[3];
        v3_sub(d, g->p1, g->p0);
        cp->L = v3_norm(d);
    }
    double dot = 0;
    for (int i = 0; i < 4; i++) dot += g->quat0[i] * g->quat1[i];
    if (dot < 0) {
        for (int i = 0; i < 4; i++) g->quat1[i] = -g->quat1[i];
        dot = -dot;
    }
    g->omega = dm_acos(fmin(dot, 1.0));
    cp->th = 2 * g->omega;
    g->length = cp->L;
    planner_blend_lone_reset(p->blend);   /* p->blend exists: a Cartesian move needs a model */
    return path_table(p, g, cp->D1, cp->D2, cp->D3);
}

/* The path profile under V, A, J (stretched to TIME when one is given). */
static int path_profile(PlannerSegment *g, const PlannerParams *par, double V, double A, double J,
                        PlannerPushInfo *info)
{
    Profile *pr = &g->path;
    if (par->time > 0) {
        if (profile_plan_duration(pr, 0, 1, V, A, J, par->time) == PROFILE_STRETCH_LIMITED)
            info->lowered |= PLANNER_LOWERED_TIME;
    } else if (profile_plan(pr, 0, 1, V, A, J) < 0) {
        return PLANNER_EINVAL;
    }
    g->T = pr->T;
    return PLANNER_OK;
}

/* The lone stream check of a planned LIN/CIRC (planner_blend.c): while the peaks of its joint speed, acceleration
 * or jerk over the whole path exceed LONE_MARGIN of a limit, slow the path down in time by the factor c that the
 * worst of them asks for (speed scales as 1/c, acceleration 1/c^2, jerk 1/c^3), and replan. *V is lowered with
 * it. The bounds D1-D3 usually leave room; this catches what their 33 samples miss (near a singularity). */
static int lone_fit(Planner *p, PlannerSegment *g, const PlannerParams *par, double *V, double *A, double *J,
                    PlannerPushInfo *info)
{
    PlannerBlendLimits lim[PLANNER_MAX_AXES];
    blend_limits(p, lim);
    /* the table once per segment, at its first planning (its refinement looks at the path speed planned) */
    int st;
    if (!planner_blend_lone_nodes(p->blend, g) &&
        (st = planner_blend_lone_table(p->blend, plan_model(p), lim, g)) < 0)
        return path_ik_failed(p, g, st);
    for (int it = 0; it < LONE_ITER; it++) {
        double r[3];
        planner_blend_lone_peaks(p->blend, lim, p->cfg.dt, g, r);
        double c = fmax(fmax(r[0], sqrt(r[1])), dm_cbrt(r[2])) / LONE_MARGIN;
        /* a slow-down by c lands the worst peak on the margin itself: a hair above it is rounding, not a reason for
         * another 1 % (which rounding alone used to decide, either way) */
        if (!(c > 1 + 1e-9)) return PLANNER_OK;
        c *= 1 + 0.01 * it;          /* should the scaling not be exact (TIME, grid), step beyond it */
        *V /= c, *A /= c * c, *J /= c * c * c;
        if ((st = path_profile(g, par, *V, *A, *J, info)) < 0) return st;
    }
    return PLANNER_OK;
}

/* LIN/CIRC: path-parameter profile from 0 to 1 whose limits keep the requested Cartesian speeds and every
 * joint limit (q' s_dot, q' s_ddot + q'' s_dot^2, q' s_dddot + 3 q'' s_dot s_ddot + q''' s_dot^3). kacc scales
 * the path acceleration and jerk when a blend needs them lowered. */
static int plan_cart(Planner *p, PlannerSegment *g, const CartPlan *cp, const PlannerParams *par, double kacc,
                     PlannerPushInfo *info)
{
    int n = p->cfg.dof;
    double L = cp->L, th = cp->th;
    const double *D1 = cp->D1, *D2 = cp->D2, *D3 = cp->D3;
    double speed = given(par->speed, p->cfg.speed), sori = given(par->speed_ori, p->cfg.speed_ori);
    double acc = given(par->acc, p->cfg.acc);
    double V = fmin(L > 0 ? speed / L : INFINITY, th > 0 ? sori / th : INFINITY);
    double A = fmin(L > 0 ? acc / L : INFINITY, th > 0 ? p->cfg.acc_ori / th : INFINITY);
    double J = fmin(L > 0 ? p->cfg.jerk / L : INFINITY, th > 0 ? p->cfg.jerk_ori / th : INFINITY);
    info->speed_req = speed;
    info->speed_max = speed;
    g->acc_req = kacc * acc;
    g->approx_req = par->approx > 0 ? par->approx : 0;
    if (isinf(V)) {             /* nothing moves: stand still for TIME (or no time at all) */
        profile_plan_duration(&g->path, 0, 0, 1, 1, 1, par->time > 0 ? par->time : 0);
        g->T = g->path.T;
        g->zone_t = g->T;
        return PLANNER_OK;
    }
    double Vreq = V;
    for (int i = 0; i < n; i++) {
        double vm = ax_v(p, i), am = ax_a(p, i), jm = ax_j(p, i);
        V = fmin(V, vm / D1[i]);
        V = fmin(V, sqrt(0.5 * am / D2[i]));
        if (!isinf(jm)) V = fmin(V, dm_cbrt(0.25 * jm / D3[i]));
    }
    V *= dm_cbrt(kacc);            /* a blend's lowering: every joint speed by cbrt(k), acc by k^(2/3), jerk by k */
    for (int i = 0; i < n; i++) {
        double am = ax_a(p, i), jm = ax_j(p, i);
        A = fmin(A, (am - D2[i] * V * V) / D1[i]);
        if (!isinf(jm)) A = fmin(A, 0.25 * jm / (3 * D2[i] * V));
    }
    for (int i = 0; i < n; i++) {
        double jm = ax_j(p, i);
        if (!isinf(jm)) J = fmin(J, (jm - 3 * D2[i] * V * A - D3[i] * V * V * V) / D1[i]);
    }
    A *= kacc;
    J *= kacc;
    Profile *pr = &g->path;
    int st = path_profile(g, par, V, A, J, info);
    if (st == PLANNER_OK && p->blend) st = lone_fit(p, g, par, &V, &A, &J, info);
    if (st < 0) return st;
    if (V < Vreq * (1 - 1e-9)) {
        info->lowered |= PLANNER_LOWERED_SPEED;
        info->speed_max = L > 0 ? V * L : speed;
    }
    g->zone_t = g->T;
    if (par->approx > 0 && L > 0) g->zone_t = profile_time_at_fraction(pr, 1 - fmin(par->approx / L, 0.5));
    return PLANNER_OK;
}

/* (Re)plan segment g with the acceleration factor kacc (its geometry already done for LIN/CIRC). */
static int plan_segment(Planner *p, PlannerSegment *g, const CartPlan *cp, const PlannerParams *par, double kacc,
                        PlannerPushInfo *info)
{
    return g->kind == PLANNER_PTP ? plan_ptp(p, g, par, kacc, info) : plan_cart(p, g, cp, par, kacc, info);
}

/* The predecessor's approximation in its own units (APPROX: remaining path, m; APPROX_PTP: fraction of the
 * half move) that an overlap of o seconds amounts to. */
static double approx_of(const PlannerSegment *a, double o)
{
    if (a->kind == PLANNER_PTP) return a->T > 0 ? fmin(2 * o / a->T, 1) : 0;
    ProfileState s;
    profile_at(&a->path, a->T - o, &s);
    return a->length * (1 - s.p);
}

/* Blend of a new segment b with its published predecessor a, against the limits the machine gives (given_limits:
 * irl's defaults do not limit a blend). PTP with PTP: blend_overlap (exact). With a
 * Cartesian segment: the stream-envelope check of planner_blend.c; when it does not keep at least half of the
 * longest overlap, b is replanned with its acceleration and jerk (ACC, ACC_PTP) lowered in steps, and the
 * first step that keeps half of it is taken (else the one with the longest overlap, else exact stop).
 * Reports what was lowered in info. */
static int blend(Planner *p, const PlannerSegment *a, PlannerSegment *b, const CartPlan *cp,
                 const PlannerParams *par, PlannerPushInfo *info)
{
    static const double ks[] = {1, 0.8, 0.64, 0.5, 0.4, 0.3, 0.2, 0.14, 0.1, 0.07, 0.05};
    int nk = (int)(sizeof ks / sizeof ks[0]);
    double o = 0, kbest = 1;
    PlannerPushInfo tmp = *info;
    if (a->kind == PLANNER_PTP && b->kind == PLANNER_PTP) {
        o = blend_overlap(p, a, b, info);
    } else {
        PlannerBlendLimits lim[PLANNER_MAX_AXES];
        given_limits(p, lim);
        double planned = 1;     /* the factor b is planned with now (0: a replanning failed half-way) */
        for (int k = 0; k < nk && p->blend; k++) {
            if (k > 0) {
                tmp = *info;
                planned = plan_segment(p, b, cp, par, ks[k], &tmp) < 0 ? 0 : ks[k];
                if (!planned) break;
            }
            double omax = fmin(a->T - a->zone_t, 0.5 * b->T);
            if (!(omax > 0)) break;
            double ok = planner_blend_overlap(p->blend, plan_model(p), lim, p->cfg.dt, a, b, omax);
            if (ok < 0) break;  /* the IK of a path table failed: no blend */
            if (ok > o * (1 + 1e-9)) o = ok, kbest = ks[k];
            if (ok >= 0.5 * omax) break;
        }
        if (planned != kbest) {
            tmp = *info;
            if (plan_segment(p, b, cp, par, kbest, &tmp) < 0) return PLANNER_EINVAL;
        }
        if (kbest < 1) {
            *info = tmp;
            info->lowered |= PLANNER_LOWERED_ACC;
            info->acc_req = b->acc_req / kbest;
            info->acc_applied = b->acc_req;
        }
        if (o < fmin(a->T - a->zone_t, 0.5 * b->T) * (1 - 1e-9)) info->lowered |= PLANNER_LOWERED_APPROX;
    }
    b->overlap = o;
    if (info->lowered & PLANNER_LOWERED_APPROX) {
        info->approx_src = a->src;
        info->approx_req = a->approx_req;
        info->approx_applied = approx_of(a, o);
        info->approx_ptp = a->kind == PLANNER_PTP;
    }
    return PLANNER_OK;
}

static int is_spline(const PlannerSegment *g) { return g->kind == PLANNER_SPLINE || g->kind == PLANNER_JSPLINE; }

/* Common tail of every push: blend with the predecessor, publish, remember the programmed end. */
static int publish(Planner *p, PlannerSegment *g, const CartPlan *cp, const PlannerParams *par,
                   PlannerPushInfo *info)
{
    size_t h = atomic_load_explicit(&p->head, memory_order_relaxed);
    g->overlap = 0;
    const PlannerSegment *a = predecessor(p);
    if (a && (is_spline(a) || is_spline(g))) {  /* a SPLINE starts and ends at rest: the predecessor stops */
        if (a->zone_t < a->T) {
            info->lowered |= PLANNER_LOWERED_APPROX;
            info->approx_src = a->src;
            info->approx_req = a->approx_req;
            info->approx_applied = 0;
            info->approx_ptp = a->kind == PLANNER_PTP;
        }
        a = NULL;
    }
    if (a) {
        int st = blend(p, a, g, cp, par, info);
        if (st < 0) return st;
    }
    g->id = p->next_id++;
    info->id = g->id;
    info->duration = g->T;
    info->overlap = g->overlap;
    p->no_blend = 0;
    memcpy(p->q_end, g->q1, (size_t)p->cfg.dof * sizeof(double));
    if (planner_kind_cartesian(g->kind)) {   /* the end pose is the model's tool point's, whatever tool the next uses */
        v3_copy(p->pos_end, g->p1);
        memcpy(p->quat_end, g->quat1, sizeof p->quat_end);
        planner_tcp_to_flange(g, p->pos_end, p->quat_end);
        p->have_pose_end = 1;
    } else {
        Model *m = plan_model(p);
        p->have_pose_end = m && planner_fk_pose(m, g->q1, p->pos_end, p->quat_end) == 0;
    }
    atomic_store_explicit(&p->head, h + 1, memory_order_release);
    return PLANNER_OK;
}

/* The answer to a push into a full queue: the message, info (if any) cleared, PLANNER_EFULL. */
static int queue_full_answer(Planner *p, PlannerPushInfo *info, PlannerKind kind)
{
    static const char msg[] = "planner queue full";
    memcpy(p->err, msg, sizeof msg);
    if (info) {
        memset(info, 0, sizeof *info);
        info->kind = kind;
    }
    return PLANNER_EFULL;
}

/* Is the queue full? Checked before any work: the producer retries a push after every cycle while it waits. */
static inline int queue_full(const Planner *p)
{
    return atomic_load_explicit(&p->head, memory_order_relaxed) -
               atomic_load_explicit(&p->tail, memory_order_acquire) >= (size_t)p->cfg.capacity;
}

/* A free slot for the next segment (the queue is not full). */
static PlannerSegment *slot_for_push(Planner *p, PlannerKind kind, PlannerSrc src, PlannerPushInfo *info)
{
    size_t h = atomic_load_explicit(&p->head, memory_order_relaxed);
    memset(info, 0, sizeof *info);
    info->kind = kind;
    info->approx_why.axis = -1;
    PlannerSegment *g = &p->ring[h % (size_t)p->cfg.capacity];
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->src = src;
    g->n = p->cfg.dof;
    memcpy(g->q0, p->q_end, (size_t)p->cfg.dof * sizeof(double));
    g->has_tool = p->has_tool;
    memcpy(g->tool, p->tool, sizeof g->tool);
    return g;
}

int planner_push_ptp(Planner *p, const double *q_target, const PlannerParams *par, PlannerSrc src,
                     PlannerPushInfo *info)
{
    PlannerPushInfo dummy;
    if (!info) info = &dummy;
    for (int i = 0; i < p->cfg.dof; i++)
        if (!isfinite(q_target[i])) {
            snprintf(p->err, sizeof p->err, "PTP target axis %d is not a finite number", i + 1);
            return PLANNER_EINVAL;
        }
    if (queue_full(p)) return queue_full_answer(p, info, PLANNER_PTP);
    PlannerSegment *g = slot_for_push(p, PLANNER_PTP, src, info);
    info->time_req = par->time > 0 ? par->time : 0;
    memcpy(g->q1, q_target, (size_t)p->cfg.dof * sizeof(double));
    g->ik_target = par->ik_target;
    g->sing_target = par->sing_target;
    int st = plan_ptp(p, g, par, 1, info);
    return st < 0 ? st : publish(p, g, NULL, par, info);
}

/* Shared part of LIN and CIRC: start pose, target pose, checks. */
static PlannerSegment *cart_begin(Planner *p, PlannerKind kind, const double pos[3], const double quat[4],
                                  PlannerSrc src, PlannerPushInfo *info, int *st)
{
    *st = PLANNER_OK;
    if (!plan_model(p) || !p->have_pose_end) {
        snprintf(p->err, sizeof p->err, "a Cartesian move needs a model with forward and inverse kinematics");
        *st = PLANNER_ENOMODEL;
        return NULL;
    }
    double qn = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    if (!isfinite(pos[0] + pos[1] + pos[2]) || !(qn > 0) || !isfinite(qn)) {
        snprintf(p->err, sizeof p->err, "Cartesian target is not finite, or its orientation is zero");
        *st = PLANNER_EINVAL;
        return NULL;
    }
    PlannerSegment *g = slot_for_push(p, kind, src, info);
    v3_copy(g->p0, p->pos_end);
    memcpy(g->quat0, p->quat_end, sizeof g->quat0);
    planner_flange_to_tcp(g, g->p0, g->quat0);   /* the path starts at the TCP of this segment's tool */
    v3_copy(g->p1, pos);
    for (int i = 0; i < 4; i++) g->quat1[i] = quat[i] / qn;
    return g;
}

/* planner_push_lin once the queue has room (out of line: the producer retries a push into a full queue every
 * cycle, and that answer should not pay for this function's frame). */
static __attribute__((noinline)) int push_lin(Planner *p, const double pos[3], const double quat[4],
                                              const PlannerParams *par, PlannerSrc src, PlannerPushInfo *info)
{
    PlannerPushInfo dummy;
    int st;
    if (!info) info = &dummy;
    PlannerSegment *g = cart_begin(p, PLANNER_LIN, pos, quat, src, info, &st);
    if (!g) return st;
    info->time_req = par->time > 0 ? par->time : 0;
    CartPlan cp;
    if ((st = cart_geometry(p, g, &cp)) < 0) return st;
    st = plan_cart(p, g, &cp, par, 1, info);
    return st < 0 ? st : publish(p, g, &cp, par, info);
}

int planner_push_lin(Planner *p, const double pos[3], const double quat[4], const PlannerParams *par,
                     PlannerSrc src, PlannerPushInfo *info)
{
    if (queue_full(p)) return queue_full_answer(p, info, PLANNER_LIN);
    return push_lin(p, pos, quat, par, src, info);
}

/* planner_push_circ once the queue has room (out of line, as push_lin). */
static __attribute__((noinline)) int push_circ(Planner *p, const double via[3], const double pos[3],
                                               const double quat[4], const PlannerParams *par, PlannerSrc src,
                                               PlannerPushInfo *info)
{
    PlannerPushInfo dummy;
    int st;
    if (!info) info = &dummy;
    if (!isfinite(via[0] + via[1] + via[2])) {
        snprintf(p->err, sizeof p->err, "CIRC via point is not finite");
        return PLANNER_EINVAL;
    }
    PlannerSegment *g = cart_begin(p, PLANNER_CIRC, pos, quat, src, info, &st);
    if (!g) return st;
    if (circle_through(g, g->p0, via, g->p1) < 0) {
        snprintf(p->err, sizeof p->err, "CIRC: start, via and target are collinear or coincide");
        return PLANNER_EGEOM;
    }
    info->time_req = par->time > 0 ? par->time : 0;
    CartPlan cp;
    if ((st = cart_geometry(p, g, &cp)) < 0) return st;
    st = plan_cart(p, g, &cp, par, 1, info);
    return st < 0 ? st : publish(p, g, &cp, par, info);
}

int planner_push_circ(Planner *p, const double via[3], const double pos[3], const double quat[4],
                      const PlannerParams *par, PlannerSrc src, PlannerPushInfo *info)
{
    if (queue_full(p)) return queue_full_answer(p, info, PLANNER_CIRC);
    return push_circ(p, via, pos, quat, par, src, info);
}


/* ---------------------------------------------------------------- SPLINE */

/* The message of spline_fit's failure st (knot `at`); returns the planner status. */
static int spline_failed(Planner *p, int st, int at)
{
    if (st == -1) {
        snprintf(p->err, sizeof p->err, "point %d coincides with the %s", at,
                 at == 1 ? "position it starts from" : "point before it");
        return PLANNER_EGEOM;
    }
    snprintf(p->err, sizeof p->err, "the linear system of the spline could not be solved");
    return PLANNER_EINVAL;
}

/* planner_push_spline once the queue has room. */
static __attribute__((noinline)) int push_spline(Planner *p, int npts, const double (*pts)[7],
                                                 const PlannerParams *par, PlannerSrc src, PlannerPushInfo *info)
{
    PlannerPushInfo dummy;
    int st, at;
    if (!info) info = &dummy;
    if (npts < 1 || npts > PLANNER_SPLINE_MAX - 1) {
        snprintf(p->err, sizeof p->err, "SPLINE through %d points (1 to %d)", npts, PLANNER_SPLINE_MAX - 1);
        return PLANNER_EINVAL;
    }
    for (int k = 0; k < npts; k++)
        if (!isfinite(pts[k][0] + pts[k][1] + pts[k][2] + pts[k][3] + pts[k][4] + pts[k][5] + pts[k][6])) {
            snprintf(p->err, sizeof p->err, "SPLINE point %d is not finite", k + 1);
            return PLANNER_EINVAL;
        }
    PlannerSegment *g = cart_begin(p, PLANNER_SPLINE, pts[npts - 1], pts[npts - 1] + 3, src, info, &st);
    if (!g) return st;
    /* the knots: where it starts, then the points, each quaternion unit length on its predecessor's side */
    double y[PLANNER_SPLINE_MAX][PLANNER_SPLINE_DIM];
    memcpy(y[0], g->p0, 3 * sizeof(double));
    memcpy(y[0] + 3, g->quat0, 4 * sizeof(double));
    for (int k = 1; k <= npts; k++) {
        const double *q = pts[k - 1] + 3;
        double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), dot = 0;
        for (int i = 0; i < 4; i++) dot += q[i] * y[k - 1][3 + i];
        memcpy(y[k], pts[k - 1], 3 * sizeof(double));
        for (int i = 0; i < 4; i++) y[k][3 + i] = (dot < 0 ? -q[i] : q[i]) / n;
    }
    if ((st = spline_fit(g, npts + 1, (const double(*)[PLANNER_SPLINE_DIM])y, 7, 3, &at)) < 0)
        return spline_failed(p, st, at);
    memcpy(g->p1, y[npts], 3 * sizeof(double));
    memcpy(g->quat1, y[npts] + 3, 4 * sizeof(double));
    spline_arc(g);
    info->time_req = par->time > 0 ? par->time : 0;
    CartPlan cp;
    spline_cart_bounds(g, &cp.L, &cp.th);
    cp.L *= 1.01, cp.th *= 1.01;   /* the sampled maxima, with room for what falls between the samples */
    planner_blend_lone_reset(p->blend);
    if ((st = path_table(p, g, cp.D1, cp.D2, cp.D3)) < 0) return st;
    PlannerParams pr = *par;
    pr.approx = 0;
    st = plan_cart(p, g, &cp, &pr, 1, info);
    return st < 0 ? st : publish(p, g, &cp, &pr, info);
}

int planner_push_spline(Planner *p, int npts, const double (*pts)[7], const PlannerParams *par, PlannerSrc src,
                        PlannerPushInfo *info)
{
    if (queue_full(p)) return queue_full_answer(p, info, PLANNER_SPLINE);
    return push_spline(p, npts, pts, par, src, info);
}

/* JOINT SPLINE: the path parameter's profile under every axis' limits scaled by SPEED_PTP and ACC_PTP, by the chain
 * rule on the exact bounds of the first three derivatives of q(s) (as plan_cart, 1 % below each limit). Without
 * jerk limits the path parameter's jerk is ten times its acceleration per second (its acceleration stays
 * continuous). */
static int plan_jspline(Planner *p, PlannerSegment *g, const PlannerParams *par, PlannerPushInfo *info)
{
    int n = p->cfg.dof;
    double D1[PLANNER_SPLINE_DIM], D2[PLANNER_SPLINE_DIM], D3[PLANNER_SPLINE_DIM];
    double fv = fmin(given(par->speed_ptp, 1.0), 1.0) * LONE_MARGIN;
    double fa = fmin(given(par->acc_ptp, 1.0), 1.0) * LONE_MARGIN;
    spline_component_bounds(g, D1, D2, D3);
    double V = INFINITY, A = INFINITY, J = INFINITY;
    for (int i = 0; i < n; i++) {
        double vm = ax_v(p, i) * fv, am = ax_a(p, i) * fa, jm = ax_j(p, i) * fa;
        if (D1[i] > 0) V = fmin(V, vm / D1[i]);
        if (D2[i] > 0) V = fmin(V, sqrt(0.5 * am / D2[i]));
        if (!isinf(jm) && D3[i] > 0) V = fmin(V, dm_cbrt(0.25 * jm / D3[i]));
    }
    for (int i = 0; i < n; i++) {
        double am = ax_a(p, i) * fa, jm = ax_j(p, i) * fa;
        if (D1[i] > 0) A = fmin(A, (am - D2[i] * V * V) / D1[i]);
        if (!isinf(jm) && D2[i] > 0) A = fmin(A, 0.25 * jm / (3 * D2[i] * V));
    }
    for (int i = 0; i < n; i++) {
        double jm = ax_j(p, i) * fa;
        if (!isinf(jm) && D1[i] > 0) J = fmin(J, (jm - 3 * D2[i] * V * A - D3[i] * V * V * V) / D1[i]);
    }
    if (isinf(J)) J = 10 * A;
    if (!(V > 0 && A > 0 && J > 0) || isinf(V)) {
        snprintf(p->err, sizeof p->err, "SPLINE: no speed keeps the axis limits along the path");
        return PLANNER_EINVAL;
    }
    g->acc_req = fa;
    int st = path_profile(g, par, V, A, J, info);
    if (st < 0) return st;
    g->zone_t = g->T;
    return PLANNER_OK;
}

int planner_push_jspline(Planner *p, int npts, const double (*q)[PLANNER_MAX_AXES], const PlannerParams *par,
                         PlannerSrc src, PlannerPushInfo *info)
{
    PlannerPushInfo dummy;
    int n = p->cfg.dof, st, at;
    if (!info) info = &dummy;
    if (npts < 1 || npts > PLANNER_SPLINE_MAX - 1) {
        snprintf(p->err, sizeof p->err, "SPLINE through %d points (1 to %d)", npts, PLANNER_SPLINE_MAX - 1);
        return PLANNER_EINVAL;
    }
    for (int k = 0; k < npts; k++)
        for (int i = 0; i < n; i++)
            if (!isfinite(q[k][i])) {
                snprintf(p->err, sizeof p->err, "SPLINE point %d, axis %d is not a finite number", k + 1, i + 1);
                return PLANNER_EINVAL;
            }
    if (queue_full(p)) return queue_full_answer(p, info, PLANNER_JSPLINE);
    PlannerSegment *g = slot_for_push(p, PLANNER_JSPLINE, src, info);
    double y[PLANNER_SPLINE_MAX][PLANNER_SPLINE_DIM];
    memcpy(y[0], g->q0, (size_t)n * sizeof(double));
    for (int k = 0; k < npts; k++) memcpy(y[k + 1], q[k], (size_t)n * sizeof(double));
    if ((st = spline_fit(g, npts + 1, (const double(*)[PLANNER_SPLINE_DIM])y, n, n, &at)) < 0)
        return spline_failed(p, st, at);
    memcpy(g->q1, q[npts - 1], (size_t)n * sizeof(double));
    info->time_req = par->time > 0 ? par->time : 0;
    st = plan_jspline(p, g, par, info);
    return st < 0 ? st : publish(p, g, NULL, par, info);
}
