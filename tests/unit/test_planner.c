/* test_planner.c — the planner and interpolator on sampled streams: PTP synchronisation and exact stop,
 * seeded random PTP blends (continuity, limits), LIN on its line and CIRC on its circle through the PUMA 560's
 * IK, orientation slerp, Cartesian joint limits, IK failures with their source location, the queue (one thread
 * with a late producer, deterministically; two threads as a stress test: IRL_PLANNER_STRESS=N pushes N moves
 * instead of the default 300), the blend check at the overlap window's ends (a regression), and the start of
 * each queued segment as planner_segment_start predicts it (TRIGGER's clock). */
#include <stdio.h>

#include "motion/planner.h"
#include "puma_planner_cell.h"
#include "utest.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "geom.h"

#define TEST_RAND_SEED 0x2545F4914F6CDD1Dull
#include "test_rand.h"

/* A sampled stream: every cycle's setpoint from t = 0 until the planner is idle (and one idle sample). */
typedef struct {
    int n, cap;
    PlannerSetpoint *sp;
    int status;      /* first error returned, 0 if none */
} Stream;

#define STREAM_MAX 400000   /* samples (400 s at 1 ms): a stream that does not end by then is an error */

/* Sample from t0 (the first cycle; later ones at k dt) until idle. The buffer grows with the stream (a stream
 * is ~400 bytes a cycle: buffers sized for the longest run, or streams kept whole, are what made the binary's
 * resident size grow). */
static void run_from(Planner *p, double t0, double dt, Stream *s)
{
    s->n = 0;
    s->status = 0;
    for (long k = 0;; k++) {
        if (s->n == s->cap) {
            if (s->cap >= STREAM_MAX) { s->status = -100; break; }
            s->cap = s->cap ? 2 * s->cap : 4096;
            s->sp = realloc(s->sp, (size_t)s->cap * sizeof *s->sp);
        }
        int st = planner_sample(p, k ? k * dt : t0, &s->sp[s->n++]);
        if (st < 0) { s->status = st; break; }
        if (st == PLANNER_IDLE && planner_pending(p) == 0) break;
    }
}

static void run(Planner *p, double dt, Stream *s) { run_from(p, 0, dt, s); }

/* Limits and continuity of one setpoint after the previous (NULL for the first): |qd| <= vmax, |qdd| <= amax,
 * the jerk (difference of qdd) <= jmax, and no jumps: |dq| <= vmax dt, |dqd| <= amax dt. rel_*: tolerances
 * relative to each limit. Returns the number of violations (the first few are printed). */
static int step_limits(const Planner *p, const PlannerSetpoint *z, const PlannerSetpoint *a, double dt,
                       double rel_va, double rel_j, int *printed)
{
    int bad = 0;
    for (int i = 0; i < p->cfg.dof; i++) {
        const ModelAxisLimits *L = &p->cfg.limits[i];
        int b = !(fabs(a->qd[i]) <= L->vmax * (1 + rel_va)) + !(fabs(a->qdd[i]) <= L->amax * (1 + rel_va));
        if (z) {
            b += !(fabs(a->q[i] - z->q[i]) <= L->vmax * dt * (1 + rel_va));
            b += !(fabs(a->qd[i] - z->qd[i]) <= L->amax * dt * (1 + rel_va));
            if (!isinf(L->jmax)) b += !(fabs(a->qdd[i] - z->qdd[i]) <= L->jmax * dt * (1 + rel_j));
        }
        if (b && (*printed)++ < 5)
            printf("#   t %.4f axis %d: q %.9g qd %.9g qdd %.9g (line %d)\n", a->t, i + 1, a->q[i], a->qd[i],
                   a->qdd[i], a->src.line);
        bad += b;
    }
    return bad;
}

static int stream_limits(const Planner *p, const Stream *s, double dt, double rel_va, double rel_j)
{
    int bad = 0, printed = 0;
    for (int k = 0; k < s->n; k++) bad += step_limits(p, k ? &s->sp[k - 1] : NULL, &s->sp[k], dt, rel_va, rel_j, &printed);
    return bad;
}

static void limits3(PlannerConfig *c)
{
    static const double v[3] = {1.0, 2.0, 0.5}, a[3] = {4.0, 10.0, 3.0}, j[3] = {40.0, 200.0, 20.0};
    for (int i = 0; i < 3; i++) {
        c->limits[i].vmax = v[i];
        c->limits[i].amax = a[i];
        c->limits[i].jmax = j[i];
    }
}

static const PlannerParams no_params;

UTEST(ptp_synchronised_exact_stop)
{
    PlannerConfig c;
    Planner p;
    planner_config_init(&c, 3);
    limits3(&c);
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    double q1[3] = {1.0, -0.3, 0.2}, q2[3] = {0.1, 0.4 + 1.0 / 3, -0.1};
    PlannerPushInfo info;
    CHECK(planner_push_ptp(&p, q1, &no_params, (PlannerSrc){"t.irl", 7, 3}, &info) == PLANNER_OK);
    /* slowest axis: axis 1 (1 rad at 1 rad/s) or axis 3 (0.2 rad at 0.5 rad/s); all stretched to it */
    double Tslow = fmax(fmax(profile_min_time(1.0, 1, 4, 40), profile_min_time(0.3, 2, 10, 200)),
                        profile_min_time(0.2, 0.5, 3, 20));
    CHECK_NEAR(info.duration, Tslow, 1e-12);
    const PlannerSegment *g = &p.ring[0];
    for (int i = 0; i < 3; i++) CHECK_NEAR(g->ax[i].T, Tslow, 1e-12 * Tslow);
    CHECK(planner_push_ptp(&p, q2, &no_params, (PlannerSrc){"t.irl", 8, 3}, NULL) == PLANNER_OK);
    CHECK(planner_pending(&p) == 2);
    /* exactly at the end of the first segment every axis is on its target, at rest */
    PlannerSetpoint sp;
    planner_sample(&p, 0, &sp);
    planner_sample(&p, info.duration, &sp);
    for (int i = 0; i < 3; i++) CHECK(sp.q[i] == q1[i] && sp.qd[i] == 0 && sp.qdd[i] == 0);
    planner_reset(&p, c.q_start);
    planner_push_ptp(&p, q1, &no_params, (PlannerSrc){"t.irl", 7, 3}, NULL);
    planner_push_ptp(&p, q2, &no_params, (PlannerSrc){"t.irl", 8, 3}, NULL);
    Stream s = {0};
    double dt = 1e-3;
    run(&p, dt, &s);
    CHECK(s.status == 0);
    CHECK(stream_limits(&p, &s, dt, 1e-9, 1e-6) == 0);
    /* every axis moves until just before the end of the first segment (they end together) */
    int k1 = (int)floor(Tslow / dt);
    for (int i = 0; i < 3; i++) {
        CHECK(fabs(s.sp[k1 - 1].qd[i]) > 0);
        CHECK(fabs(s.sp[k1].q[i] - q1[i]) < 1e-6);
        CHECK(s.sp[s.n - 1].q[i] == q2[i]);     /* the final stop is exact */
        CHECK(s.sp[s.n - 1].qd[i] == 0 && s.sp[s.n - 1].qdd[i] == 0);
    }
    CHECK(s.sp[10].src.line == 7 && s.sp[k1 + 10].src.line == 8);
    /* TIME stretches, SPEED_PTP slows */
    PlannerParams par = no_params;
    par.time = 5;
    CHECK(planner_push_ptp(&p, q1, &par, (PlannerSrc){0}, &info) == PLANNER_OK);
    CHECK_NEAR(info.duration, 5, 1e-12);
    CHECK(!(info.lowered & PLANNER_LOWERED_TIME));
    par.time = 0.1;
    CHECK(planner_push_ptp(&p, q2, &par, (PlannerSrc){0}, &info) == PLANNER_OK);
    CHECK(info.lowered & PLANNER_LOWERED_TIME);
    free(s.sp);
    planner_free(&p);
}

/* APPROX_PTP 50 % between two ordinary PTPs of the PUMA (a model with IK) with the cell's axis limits
 * (models/puma560_cell.irm) is granted whole: every axis keeps its direction, and each PTP of the pair plans its
 * jerk at half the limit, so the predecessor's last jerk ramp and the successor's first, coinciding in the overlap,
 * keep their sum within it. The stream keeps every limit. A pair where axis 1 reverses at its full acceleration is shortened, and the planner
 * says why: axis 1's acceleration, the blended sum beyond its limit. */
UTEST(ptp_pair_approx_granted)
{
    static const double v[6] = {2.0, 2.0, 2.5, 4.0, 4.0, 4.0}, a[6] = {6, 5, 8, 15, 15, 15};
    static const double j[6] = {60, 50, 80, 300, 300, 300};
    const double d = M_PI / 180;
    PlannerConfig c;
    Planner p;
    Model m;
    ModelDesc *md = malloc(sizeof *md);
    char err[256];
    puma_planner_desc(md);
    CHECK(model_open(&m, md, err, sizeof err) >= 0);
    free(md);
    planner_config_init(&c, 6);
    c.model = &m;
    for (int i = 0; i < 6; i++) c.limits[i].vmax = v[i], c.limits[i].amax = a[i], c.limits[i].jmax = j[i];
    double home[6] = {0, 45 * d, -180 * d, 0, 45 * d, 0};
    memcpy(c.q_start, home, sizeof home);
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    double q1[6] = {20 * d, 55 * d, -170 * d, 10 * d, 60 * d, 0}, q2[6] = {50 * d, 70 * d, -150 * d, 30 * d, 80 * d, 20 * d};
    PlannerParams par = no_params;
    par.approx_ptp = 0.5;
    PlannerPushInfo i1, i2;
    CHECK(planner_push_ptp(&p, q1, &par, (PlannerSrc){"t.irl", 5, 3}, &i1) == PLANNER_OK);
    CHECK(planner_push_ptp(&p, q2, &no_params, (PlannerSrc){"t.irl", 6, 3}, &i2) == PLANNER_OK);
    double zone = fmin(0.25 * i1.duration, 0.5 * i2.duration);
    printf("#   same directions: overlap %.6f s of the zone %.6f s, lowered %d\n", i2.overlap, zone, i2.lowered);
    CHECK(i2.overlap == zone && !(i2.lowered & PLANNER_LOWERED_APPROX));
    Stream s = {0};
    double dt = 1e-3;
    run(&p, dt, &s);
    CHECK(s.status == 0);
    CHECK(stream_limits(&p, &s, dt, 1e-9, 1e-6) == 0);
    /* axis 1 there and back, each way at its full acceleration: the overlap sums two decelerations */
    planner_reset(&p, home);
    double r1[6], r2[6];
    memcpy(r1, home, sizeof home), memcpy(r2, home, sizeof home);
    r1[0] = 1.0;
    CHECK(planner_push_ptp(&p, r1, &par, (PlannerSrc){"t.irl", 8, 3}, &i1) == PLANNER_OK);
    CHECK(planner_push_ptp(&p, r2, &no_params, (PlannerSrc){"t.irl", 9, 3}, &i2) == PLANNER_OK);
    const PlannerBlendWhy *w = &i2.approx_why;
    printf("#   axis 1 reversing: overlap %.6f s of %.6f s; why: axis %d quantity %d, %.6g beyond %.6g\n", i2.overlap,
           fmin(0.25 * i1.duration, 0.5 * i2.duration), w->axis + 1, w->qty, w->value, w->limit);
    CHECK((i2.lowered & PLANNER_LOWERED_APPROX) && i2.approx_ptp && i2.approx_src.line == 8);
    CHECK(i2.approx_applied < 0.5 && w->axis == 0 && w->qty == 1 && fabs(w->value) > a[0] && w->limit == a[0]);
    run(&p, dt, &s);
    CHECK(s.status == 0);
    CHECK(stream_limits(&p, &s, dt, 1e-9, 1e-6) == 0);
    free(s.sp);
    planner_free(&p);
    model_close(&m);
}

/* irl's default acceleration (PLANNER_DEFAULT_AXIS_AMAX, for an axis whose machine file gives none, as a URDF's)
 * shapes each PTP but is no limit of the machine: an axis reversing at it is granted the whole APPROX_PTP 50 %
 * zone, and the blend demands more than the default, at most twice it (two segments each within it). The same
 * value given as the machine's limit shortens the blend and names axis 1's acceleration and that limit. */
UTEST(ptp_pair_default_limits_do_not_lower)
{
    const double dt = 1e-3, A = PLANNER_DEFAULT_AXIS_AMAX;
    PlannerConfig c;
    Planner p;
    Stream s = {0};
    for (int given = 0; given < 2; given++) {
        planner_config_init(&c, 2);
        for (int i = 0; i < 2; i++) c.limits[i].vmax = 2.0, c.limits[i].amax = given ? A : INFINITY;
        CHECK(planner_init(&p, &c) == PLANNER_OK);
        PlannerParams par = no_params;
        par.approx_ptp = 0.5;
        PlannerPushInfo i1, i2;
        CHECK(planner_push_ptp(&p, (double[2]){1.0, 0.5}, &par, (PlannerSrc){"t.irl", 5, 3}, &i1) == PLANNER_OK);
        CHECK(planner_push_ptp(&p, (double[2]){0.0, 0.5}, &no_params, (PlannerSrc){"t.irl", 6, 3}, &i2) == PLANNER_OK);
        double zone = fmin(0.25 * i1.duration, 0.5 * i2.duration);
        run(&p, dt, &s);
        CHECK(s.status == 0);
        CHECK(stream_limits(&p, &s, dt, 1e-9, 1e-6) == 0);   /* the given speed limits */
        double pk = 0;
        for (int k = 0; k < s.n; k++) pk = fmax(pk, fabs(s.sp[k].qdd[0]));
        const PlannerBlendWhy *w = &i2.approx_why;
        printf("#   acceleration %s: overlap %.6f s of the zone %.6f s, lowered %d, peak |qdd1| %.6g rad/s^2\n",
               given ? "given" : "default", i2.overlap, zone, i2.lowered, pk);
        if (!given) {
            CHECK(fabs(i2.overlap - zone) <= 1e-12 * zone && !(i2.lowered & PLANNER_LOWERED_APPROX) && w->axis < 0);
            CHECK(pk > A * (1 + 1e-3) && pk <= 2 * A * (1 + 1e-9));
        } else {
            CHECK((i2.lowered & PLANNER_LOWERED_APPROX) && i2.overlap < zone && i2.approx_applied < 0.5);
            CHECK(w->axis == 0 && w->qty == 1 && w->limit == A && fabs(w->value) > A);
            CHECK(pk <= A * (1 + 1e-9));
        }
        planner_free(&p);
    }
    free(s.sp);
}

UTEST(random_ptp_blends)
{
    PlannerConfig c;
    Planner p;
    planner_config_init(&c, 3);
    limits3(&c);
    c.capacity = 8;
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    Stream s = {0};
    double dt = 1e-3, exact_total = 0, blended_total = 0;
    int bad = 0, blends = 0;
    for (int trial = 0; trial < 40; trial++) {
        double q[3];
        planner_reset(&p, (double[3]){0, 0, 0});
        PlannerParams par[6];
        double tg[6][3];
        for (int m = 0; m < 6; m++) {
            for (int i = 0; i < 3; i++) tg[m][i] = q[i] = (urand() - 0.5) * 2;
            par[m] = no_params;
            par[m].approx_ptp = urand() < 0.8 ? urand() : 0;
            par[m].speed_ptp = 0.3 + 0.7 * urand();
            par[m].acc_ptp = 0.3 + 0.7 * urand();
            PlannerPushInfo info;
            if (planner_push_ptp(&p, q, &par[m], (PlannerSrc){"r.irl", 10 + m, 1}, &info) != 0) bad++;
            blends += info.overlap > 0;
        }
        run(&p, dt, &s);
        blended_total += s.n * dt;
        bad += s.status != 0;
        bad += stream_limits(&p, &s, dt, 1e-9, 1e-6);
        for (int i = 0; i < 3; i++) bad += s.sp[s.n - 1].q[i] != q[i];   /* the last stop is exact */
        /* the same moves without blending take longer */
        planner_reset(&p, (double[3]){0, 0, 0});
        for (int m = 0; m < 6; m++) {
            par[m].approx_ptp = 0;
            planner_push_ptp(&p, tg[m], &par[m], (PlannerSrc){0}, NULL);
        }
        run(&p, dt, &s);
        exact_total += s.n * dt;
    }
    printf("#   %d blends; total %.3f s blended vs %.3f s exact stop\n", blends, blended_total, exact_total);
    /* cost of one PTP cycle (3 axes, closed form) */
    planner_reset(&p, (double[3]){0, 0, 0});
    planner_push_ptp(&p, (double[3]){20, -20, 10}, &no_params, (PlannerSrc){0}, NULL);
    struct timespec t0, t1;
    PlannerSetpoint sp;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; k < 20000; k++) planner_sample(&p, k * dt, &sp);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("#   planner_sample on a 3-axis PTP: %.3f us per cycle\n",
           ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / 20000);
    CHECK(bad == 0);
    CHECK(blends > 80);
    CHECK(blended_total < exact_total - 10);
    free(s.sp);
    planner_free(&p);
}

UTEST(queue_full_and_flush)
{
    PlannerConfig c;
    Planner p;
    planner_config_init(&c, 1);
    c.capacity = 3;
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    PlannerParams par = no_params;
    par.approx_ptp = 1;
    for (int m = 0; m < 3; m++) CHECK(planner_push_ptp(&p, (double[1]){m + 1.0}, &par, (PlannerSrc){0}, NULL) == 0);
    CHECK(planner_push_ptp(&p, (double[1]){9}, &par, (PlannerSrc){0}, NULL) == PLANNER_EFULL);
    PlannerSetpoint sp;
    double t = 0;
    while (planner_pending(&p) == 3) planner_sample(&p, t += 1e-3, &sp);
    CHECK(planner_push_ptp(&p, (double[1]){9}, &par, (PlannerSrc){0}, NULL) == 0);
    /* after a flush the next segment does not blend */
    planner_flush(&p);
    PlannerPushInfo info;
    CHECK(planner_push_ptp(&p, (double[1]){0}, &par, (PlannerSrc){0}, &info) == PLANNER_EFULL ||
          info.overlap == 0);
    planner_free(&p);
}


/* The move sequence of the queue tests: targets in [-1, 1] rad on three axes, blended at APPROX_PTP 50 %. */
static void seq_target(uint64_t *x, double q[3])
{
    for (int i = 0; i < 3; i++) {
        *x ^= *x << 13; *x ^= *x >> 7; *x ^= *x << 17;
        q[i] = ((double)(*x % 2001) - 1000) / 1000.0;
    }
}

static PlannerParams seq_params(void)
{
    PlannerParams par = no_params;
    par.approx_ptp = 0.5;
    return par;
}

/* Plan-level check of one PTP blend, independent of the planner's own sampling: the summed jerk is constant
 * between consecutive breakpoints (the window's ends and every phase boundary of either profile), so it is
 * taken at each piece's midpoint; the summed acceleration is piecewise linear, taken at the breakpoints; the
 * summed speed on a fine grid. Returns the number of violations. */
static int blend_plan_violations(const PlannerConfig *c, const PlannerSegment *a, const PlannerSegment *b)
{
    double o = b->overlap, tb[2 + 2 * 8 * PLANNER_MAX_AXES];
    if (!(o > 0)) return 0;
    int nb = 0, bad = 0;
    tb[nb++] = 0;
    tb[nb++] = o;
    for (int i = 0; i < c->dof; i++)
        for (int side = 0; side < 2; side++) {
            const Profile *pr = side ? &b->ax[i] : &a->ax[i];
            double sh = side ? 0 : a->T - o;
            double ph[8] = {0, pr->Tj, pr->Ta - pr->Tj, pr->Ta, pr->T - pr->Ta, pr->T - pr->Ta + pr->Tj,
                            pr->T - pr->Tj, pr->T};
            for (int k = 0; k < 8; k++)
                if (ph[k] - sh > 0 && ph[k] - sh < o) tb[nb++] = ph[k] - sh;
        }
    for (int u = 1; u < nb; u++)   /* insertion sort */
        for (int w = u; w > 0 && tb[w] < tb[w - 1]; w--) { double z = tb[w]; tb[w] = tb[w - 1]; tb[w - 1] = z; }
    for (int i = 0; i < c->dof; i++) {
        const ModelAxisLimits *L = &c->limits[i];
        ProfileState sa, sb;
        for (int k = 0; k < nb; k++) {
            profile_at(&a->ax[i], a->T - o + tb[k], &sa);
            profile_at(&b->ax[i], tb[k], &sb);
            bad += !(fabs(sa.a + sb.a) <= L->amax * (1 + 1e-9));
            if (k + 1 < nb && tb[k + 1] - tb[k] > 1e-12) {
                double mid = 0.5 * (tb[k] + tb[k + 1]);
                profile_at(&a->ax[i], a->T - o + mid, &sa);
                profile_at(&b->ax[i], mid, &sb);
                bad += !(fabs(sa.j + sb.j) <= L->jmax * (1 + 1e-9));
            }
        }
        for (int k = 0; k <= 2000; k++) {
            profile_at(&a->ax[i], a->T - o + o * k / 2000, &sa);
            profile_at(&b->ax[i], o * k / 2000, &sb);
            bad += !(fabs(sa.v + sb.v) <= L->vmax * (1 + 1e-9));
        }
    }
    return bad;
}

/* Regression: the blend check missed the piece of the overlap window before the first phase boundary (there
 * the successor's jerk was read at tau = 0, i.e. at rest), and accepted blends with twice the jerk limit for a
 * few microseconds. Move 936 of the queue sequence is one: the two-thread test failed on it whenever the
 * sampling phase (which depends on which earlier blends the late producer missed) put a sample just after the
 * successor's start. Replayed here with chosen phases, and the plan checked exactly for the whole sequence
 * and for random pairs. */
UTEST(blend_window_start_jerk)
{
    PlannerConfig c;
    Planner p;
    planner_config_init(&c, 3);
    limits3(&c);
    c.capacity = 4;
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    uint64_t x = 12345;
    double q[937][3];
    for (int m = 1; m <= 936; m++) seq_target(&x, q[m]);
    PlannerParams par = seq_params();
    double dt = 1e-3;
    static const double delta[] = {2e-6, 26e-6, 100e-6, 400e-6, 900e-6};
    Stream s = {0};
    int bad = 0;
    for (int d = 0; d < 5; d++) {
        PlannerPushInfo ia, ib;
        planner_reset(&p, q[934]);
        CHECK(planner_push_ptp(&p, q[935], &par, (PlannerSrc){"thr.irl", 935, 1}, &ia) == 0);
        CHECK(planner_push_ptp(&p, q[936], &par, (PlannerSrc){"thr.irl", 936, 1}, &ib) == 0);
        CHECK(ib.overlap > 0);
        /* the first cycle at t0 starts 935; 936 then starts at t0 + T - overlap, delta before a cycle */
        double r = fmod(ia.duration - ib.overlap + delta[d], dt), t0 = r > 0 ? dt - r : 0;
        if (t0 >= dt) t0 = 0;
        run_from(&p, t0, dt, &s);
        bad += s.status != 0;
        bad += stream_limits(&p, &s, dt, 1e-9, 1e-6);
        for (int i = 0; i < 3; i++) bad += s.sp[s.n - 1].q[i] != q[936][i];
        bad += blend_plan_violations(&c, &p.ring[0], &p.ring[1]);
    }
    CHECK(bad == 0);
    /* the whole sequence, planned as the producer plans it (one queue holding all of it), and random pairs */
    int plan_bad = 0, blends = 0, lowered = 0;
    Planner pq;
    PlannerConfig cq = c;
    cq.capacity = 2000;
    CHECK(planner_init(&pq, &cq) == PLANNER_OK);
    x = 12345;
    for (int m = 0; m < 2000; m++) {
        double t[3];
        PlannerPushInfo info;
        seq_target(&x, t);
        CHECK(planner_push_ptp(&pq, t, &par, (PlannerSrc){0}, &info) == 0);
        blends += info.overlap > 0;
        if (m > 0) plan_bad += blend_plan_violations(&c, &pq.ring[m - 1], &pq.ring[m]);
    }
    planner_free(&pq);
    for (int k = 0; k < 4000; k++) {
        double qa[3], qb[3];
        PlannerParams pa = no_params, pb = no_params;
        PlannerPushInfo info;
        for (int i = 0; i < 3; i++) { qa[i] = (urand() - 0.5) * 2; qb[i] = (urand() - 0.5) * 2; }
        pa.approx_ptp = urand();
        pa.speed_ptp = pb.speed_ptp = 0.3 + 0.7 * urand();
        pa.acc_ptp = 0.3 + 0.7 * urand();
        pb.acc_ptp = 0.3 + 0.7 * urand();
        planner_reset(&p, (double[3]){0, 0, 0});
        planner_push_ptp(&p, qa, &pa, (PlannerSrc){0}, NULL);
        CHECK(planner_push_ptp(&p, qb, &pb, (PlannerSrc){0}, &info) == 0);
        blends += info.overlap > 0;
        lowered += (info.lowered & PLANNER_LOWERED_APPROX) != 0;
        plan_bad += blend_plan_violations(&c, &p.ring[0], &p.ring[1]);
    }
    printf("#   %d blends checked exactly (%d shortened), %d violations\n", blends, lowered, plan_bad);
    CHECK(plan_bad == 0);
    CHECK(blends > 3000);
    free(s.sp);
    planner_free(&p);
}

/* The producer late, in one thread and deterministically: move m + 1 is published `late[m % 9]` cycles after
 * (or before) the cycle at which the consumer reaches move m's approximation zone, or only once the machine is
 * at rest. The consumer must blend exactly when the successor was published before it reached the zone (and
 * the plan found an overlap), otherwise stop exactly and start the successor from rest; every move runs once,
 * in order, within the limits, and the last stop is exact. */
UTEST(late_producer_single_thread)
{
    PlannerConfig c;
    Planner p;
    planner_config_init(&c, 3);
    limits3(&c);
    c.capacity = 4;
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    static const int late[9] = {-300, -2, -1, 0, 1, 2, 20, 80, 1 << 30};
    enum { NM = 90 };
    int expect_blend[NM + 2] = {0}, blended[NM + 2] = {0}, pushed = 0, bad = 0, printed = 0, order_bad = 0;
    int last_line = 0, mismatch = 0, nblend = 0, nstop = 0;
    double overlap[NM + 2] = {0}, q[3], last[3];
    uint64_t x = 99;
    PlannerParams par = seq_params();
    PlannerSetpoint sp[2];
    double dt = 1e-3;
    long k = 0;
    for (;; k++) {
        /* the producer's turn, between two cycles */
        if (pushed < NM) {
            int due;
            if (pushed == 0) due = 1;
            else {
                int off = late[pushed % 9];
                const PlannerSegment *g = p.main.seg;
                if (off == 1 << 30) due = planner_pending(&p) == 0;
                else due = planner_pending(&p) == 0 ||
                           (g && g->id == pushed && k * dt - p.main.start >= g->zone_t + off * dt);
            }
            if (due) {
                PlannerPushInfo info;
                /* blend expected: the predecessor is running and has not reached its zone yet */
                int before = p.main.seg && p.main.seg->id == pushed && !p.zone_decided;
                seq_target(&x, q);
                CHECK(planner_push_ptp(&p, q, &par, (PlannerSrc){"late.irl", pushed + 1, 1}, &info) == 0);
                pushed++;
                overlap[pushed] = info.overlap;
                expect_blend[pushed] = before && info.overlap > 0;
                memcpy(last, q, sizeof q);
            }
        }
        PlannerSetpoint *cur = &sp[k & 1], *prev = k ? &sp[(k - 1) & 1] : NULL;
        int st = planner_sample(&p, k * dt, cur);
        if (p.next.seg) blended[p.next.seg->id] = 1;
        bad += st < 0;
        bad += step_limits(&p, prev, cur, dt, 1e-9, 1e-6, &printed);
        if (cur->src.line) {
            order_bad += cur->src.line < last_line || cur->src.line > last_line + 1;
            last_line = cur->src.line;
        }
        if (st == PLANNER_IDLE && pushed == NM && planner_pending(&p) == 0) break;
        if (k > 2000000) { bad++; break; }
    }
    for (int m = 2; m <= NM; m++) {
        if (blended[m] != expect_blend[m] && mismatch++ < 5)
            printf("#   move %d: blended %d, expected %d (overlap %g, late %d)\n", m, blended[m], expect_blend[m],
                   overlap[m], late[(m - 1) % 9]);
        nblend += blended[m];
        nstop += !blended[m];
    }
    printf("#   %ld cycles, %d blends, %d exact stops\n", k + 1, nblend, nstop);
    CHECK(bad == 0);
    CHECK(order_bad == 0);
    CHECK(last_line == NM);
    CHECK(mismatch == 0);
    CHECK(nblend >= 8 && nstop >= 40);   /* many pairs have no overlap that keeps the limits */
    for (int i = 0; i < 3; i++) CHECK(sp[k & 1].q[i] == last[i]);
    planner_free(&p);
}

/* The queue between two threads (a stress test; the deterministic version is above): a producer pushes
 * blended PTP moves (retrying when full) while the consumer samples; every segment is run once, in order, the
 * stream keeps the limits and ends on the target. */
typedef struct {
    Planner *p;
    int moves;
    double last[3];
    atomic_int done;
} Producer;

static void *producer_main(void *arg)
{
    Producer *pr = arg;
    uint64_t x = 12345;
    for (int m = 0; m < pr->moves; m++) {
        double q[3];
        seq_target(&x, q);
        PlannerParams par = seq_params();
        while (planner_push_ptp(pr->p, q, &par, (PlannerSrc){"thr.irl", m + 1, 1}, NULL) == PLANNER_EFULL)
            sched_yield();
        memcpy(pr->last, q, sizeof q);
    }
    atomic_store(&pr->done, 1);
    return NULL;
}

UTEST(two_threads_spsc)
{
    PlannerConfig c;
    Planner p;
    planner_config_init(&c, 3);
    limits3(&c);
    c.capacity = 4;
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    const char *env = getenv("IRL_PLANNER_STRESS");
    Producer pr = {.p = &p, .moves = env && atoi(env) > 0 ? atoi(env) : 300};
    atomic_init(&pr.done, 0);
    pthread_t th;
    pthread_create(&th, NULL, producer_main, &pr);
    PlannerSetpoint sp[2];
    int last_line = 0, order_bad = 0, bad = 0, printed = 0;
    long k = 0;
    double dt = 1e-3;
    for (;; k++) {
        /* a real cycle would run at real time: idle while the producer is behind, without advancing time */
        while (planner_pending(&p) == 0 && !atomic_load(&pr.done)) sched_yield();
        PlannerSetpoint *cur = &sp[k & 1], *prev = k ? &sp[(k - 1) & 1] : NULL;
        int st = planner_sample(&p, k * dt, cur);
        bad += step_limits(&p, prev, cur, dt, 1e-9, 1e-6, &printed);
        if (cur->src.line) {
            order_bad += cur->src.line < last_line || cur->src.line > last_line + 1;
            last_line = cur->src.line;
        }
        if (st == PLANNER_IDLE && atomic_load(&pr.done) && planner_pending(&p) == 0) break;
    }
    pthread_join(th, NULL);
    printf("#   %d moves, %ld cycles, last line %d\n", pr.moves, k + 1, last_line);
    CHECK(order_bad == 0);
    CHECK(last_line == pr.moves);
    CHECK(bad == 0);
    for (int i = 0; i < 3; i++) CHECK(sp[k & 1].q[i] == pr.last[i]);
    planner_free(&p);
}

/* --- a Cartesian gantry with an IK hole, to test IK failure reporting: q = position, orientation ignored;
 *     IK fails for x in (0.5003, 0.5009), a gap the 32-point pre-sampling of a 1 m LIN does not hit. */
static int gantry_fk(void *s, const double *q, int link, double pos[3], double R[9])
{
    (void)s, (void)link;
    v3_set(pos, q[0], q[1], q[2]);
    m3_identity(R);
    return 0;
}
static int gantry_ik(void *s, const double pos[3], const double quat[4], const double *seed, double *q,
                     ModelIkInfo *info)
{
    (void)s, (void)quat, (void)seed, (void)info;
    if (pos[0] > 0.5003 && pos[0] < 0.5009) return MODEL_EUNREACH;
    q[0] = pos[0]; q[1] = pos[1]; q[2] = pos[2];
    return 0;
}
static const ModelType gantry_type = {.name = "gantry", .fk = gantry_fk, .ik = gantry_ik};

UTEST(ik_failure_reported_with_location)
{
    static Model m;
    m.type = &gantry_type;
    m.dof = 3;
    PlannerConfig c;
    Planner p;
    planner_config_init(&c, 3);
    limits3(&c);
    c.model = &m;
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    double quat[4] = {1, 0, 0, 0};
    /* the pre-sampling catches a target out of reach at push time */
    CHECK(planner_push_lin(&p, (double[3]){0.5005, 0, 0}, quat, &no_params, (PlannerSrc){"g.irl", 3, 5}, NULL) ==
          PLANNER_EIK);
    CHECK(strstr(planner_error(&p), "inverse kinematics failed") != NULL);
    /* the cycle catches the hole on the way */
    CHECK(planner_push_lin(&p, (double[3]){1.0, 0, 0}, quat, &no_params, (PlannerSrc){"g.irl", 4, 5}, NULL) == 0);
    Stream s = {0};
    run(&p, 1e-3, &s);
    CHECK(s.status == PLANNER_EIK);
    PlannerSetpoint *last = &s.sp[s.n - 1];
    CHECK(last->src.line == 4 && last->src.col == 5 && strcmp(last->src.file, "g.irl") == 0);
    CHECK(last->q[0] < 0.5003);
    PlannerSetpoint sp;
    CHECK(planner_sample(&p, 100, &sp) == PLANNER_EIK);    /* holds until reset */
    free(s.sp);
    planner_free(&p);
}

/* --- slerp: the orientation at s is q0 rotated by s times the whole relative rotation, about one fixed axis */
UTEST(slerp_orientation)
{
    PlannerSegment g;
    memset(&g, 0, sizeof g);
    g.kind = PLANNER_LIN;
    double axis[3] = {1 / sqrt(3.0), -1 / sqrt(3.0), 1 / sqrt(3.0)}, R0[9], Rd[9], R1[9];
    double e0[3] = {0.3, 0.8, 0.52};
    double n0 = v3_norm(e0);
    v3_scale(e0, e0, 1 / n0);
    m3_axis_angle(R0, e0, 0.7);
    double theta = 2.5;                            /* relative rotation of 2.5 rad about `axis` (base frame) */
    m3_axis_angle(Rd, axis, theta);
    m3_mul(R1, Rd, R0);
    m3_to_quat(g.quat0, R0);
    m3_to_quat(g.quat1, R1);
    double dot = 0;
    for (int i = 0; i < 4; i++) dot += g.quat0[i] * g.quat1[i];
    if (dot < 0) for (int i = 0; i < 4; i++) g.quat1[i] = -g.quat1[i];
    g.omega = acos(fabs(dot));
    CHECK_NEAR(2 * g.omega, theta, 1e-12);
    for (int k = 0; k <= 20; k++) {
        double s = k / 20.0, pos[3], quat[4], R[9], Rexp[9], Rs[9], err[3];
        planner_path_pose(&g, s, pos, quat);
        quat_to_m3(R, quat);
        m3_axis_angle(Rs, axis, s * theta);
        m3_mul(Rexp, Rs, R0);
        m3_rotation_error(err, R, Rexp);
        CHECK(v3_norm(err) < 1e-12);
    }
}

/* --- PUMA 560 -------------------------------------------------------------------------------------------- */

static void puma_open(Model *m, Planner *p, PlannerConfig *c, double dt)
{
    ModelDesc *d = malloc(sizeof *d);
    char err[256];
    puma_planner_desc(d);
    int st = model_open(m, d, err, sizeof err);
    if (st < 0) printf("#   model_open: %s\n", err);
    free(d);
    puma_planner_init(p, c, m, dt);
}

/* The pose (a, qa) moved by off and turned by angle about the base-frame axis ax: (b, qb). */
static void moved_target(const double a[3], const double qa[4], const double off[3], const double ax[3], double angle,
                         double b[3], double qb[4])
{
    double R[9], Rd[9], Rb[9];
    v3_add(b, a, off);
    quat_to_m3(R, qa);
    m3_axis_angle(Rd, ax, angle);
    m3_mul(Rb, Rd, R);
    m3_to_quat(qb, Rb);
}

/* distance of x from the line through a and b */
static double line_dist(const double x[3], const double a[3], const double b[3])
{
    double u[3], w[3], c[3];
    v3_sub(u, b, a);
    v3_sub(w, x, a);
    v3_cross(c, u, w);
    return v3_norm(c) / v3_norm(u);
}

UTEST(puma_lin_on_line_and_exact_stop)
{
    Model m;
    Planner p;
    PlannerConfig c;
    double dt = 1e-3;
    puma_open(&m, &p, &c, dt);
    double a[3], qa[4], b[3], qb[4];
    CHECK(planner_last_target(&p, NULL, a, qa));
    double off[3] = {0.12, -0.15, 0.08}, ax[3] = {0, 0.6, 0.8};
    moved_target(a, qa, off, ax, 0.4, b, qb);
    PlannerParams par = no_params;
    par.speed = 0.3;
    par.speed_ori = 0.5;
    PlannerPushInfo info;
    CHECK(planner_push_lin(&p, b, qb, &par, (PlannerSrc){"p.irl", 12, 1}, &info) == PLANNER_OK);
    Stream s = {0};
    run(&p, dt, &s);
    CHECK(s.status == 0);
    double worst = 0, worst_ori_rate = 0, worst_speed = 0;
    for (int k = 0; k < s.n; k++) {
        double x[3], Rq[9];
        model_fk(&m, s.sp[k].q, -1, x, Rq);
        worst = fmax(worst, line_dist(x, a, b));
        if (k > 0 && s.sp[k].has_pose && s.sp[k - 1].has_pose) {
            double R1[9], R0[9], e[3], d[3];
            quat_to_m3(R1, s.sp[k].quat);
            quat_to_m3(R0, s.sp[k - 1].quat);
            m3_rotation_error(e, R0, R1);
            worst_ori_rate = fmax(worst_ori_rate, v3_norm(e) / dt);
            v3_sub(d, s.sp[k].pos, s.sp[k - 1].pos);
            worst_speed = fmax(worst_speed, v3_norm(d) / dt);
        }
    }
    printf("#   LIN: %d cycles, max distance from the line %.3g m, speed %.4f m/s, rotation %.4f rad/s\n", s.n,
           worst, worst_speed, worst_ori_rate);
    CHECK(worst <= 1e-9);
    CHECK(worst_speed <= 0.3 * (1 + 1e-6));
    CHECK(worst_ori_rate <= 0.5 * (1 + 1e-6));
    double x[3], Rq[9], Rb[9], e[3];
    model_fk(&m, s.sp[s.n - 1].q, -1, x, Rq);
    double d[3];
    v3_sub(d, x, b);
    CHECK(v3_norm(d) <= 1e-9);
    quat_to_m3(Rb, qb);
    m3_rotation_error(e, Rq, Rb);
    CHECK(v3_norm(e) <= 1e-9);
    CHECK(stream_limits(&p, &s, dt, 1e-6, 1e-2) == 0);
    free(s.sp);
    planner_free(&p);
    model_close(&m);
}

UTEST(puma_circ_on_circle)
{
    Model m;
    Planner p;
    PlannerConfig c;
    double dt = 1e-3;
    puma_open(&m, &p, &c, dt);
    double a[3], qa[4], via[3], b[3];
    planner_last_target(&p, NULL, a, qa);
    /* a circle of radius 0.1 m in a tilted plane through the start: via and target on it */
    double cen[3], u[3] = {0, 0.8, 0.6}, w[3] = {1, 0, 0};
    for (int i = 0; i < 3; i++) cen[i] = a[i] - 0.1 * u[i];
    for (int i = 0; i < 3; i++) {
        via[i] = cen[i] + 0.1 * (cos(1.2) * u[i] + sin(1.2) * w[i]);
        b[i] = cen[i] + 0.1 * (cos(2.6) * u[i] + sin(2.6) * w[i]);
    }
    PlannerParams par = no_params;
    par.speed = 0.25;
    CHECK(planner_push_circ(&p, via, b, qa, &par, (PlannerSrc){"p.irl", 20, 1}, NULL) == PLANNER_OK);
    const PlannerSegment *g = &p.ring[0];
    double dc[3];
    v3_sub(dc, g->centre, cen);
    CHECK(v3_norm(dc) < 1e-12);
    CHECK_NEAR(g->radius, 0.1, 1e-12);
    CHECK_NEAR(g->phi, 2.6, 1e-12);
    Stream s = {0};
    run(&p, dt, &s);
    CHECK(s.status == 0);
    double worst_r = 0, worst_plane = 0, n[3];
    v3_cross(n, u, w);
    for (int k = 0; k < s.n; k++) {
        double x[3], Rq[9], d[3];
        model_fk(&m, s.sp[k].q, -1, x, Rq);
        v3_sub(d, x, cen);
        worst_r = fmax(worst_r, fabs(v3_norm(d) - 0.1));
        worst_plane = fmax(worst_plane, fabs(v3_dot(d, n)));
    }
    printf("#   CIRC: %d cycles, max radial error %.3g m, max out of plane %.3g m\n", s.n, worst_r, worst_plane);
    CHECK(worst_r <= 1e-9);
    CHECK(worst_plane <= 1e-9);
    double x[3], Rq[9], d[3];
    model_fk(&m, s.sp[s.n - 1].q, -1, x, Rq);
    v3_sub(d, x, b);
    CHECK(v3_norm(d) <= 1e-9);
    CHECK(stream_limits(&p, &s, dt, 1e-6, 1e-2) == 0);
    /* collinear points are refused */
    CHECK(planner_push_circ(&p, a, b, qa, &par, (PlannerSrc){0}, NULL) == PLANNER_EGEOM);
    free(s.sp);
    planner_free(&p);
    model_close(&m);
}

/* Seeded random LIN moves at a speed the joints cannot follow: the planner lowers the path speed (and says
 * so), the stream keeps every joint limit; blends between them stay continuous. */
UTEST(puma_random_lin_limits_and_blends)
{
    Model m;
    Planner p;
    PlannerConfig c;
    double dt = 1e-3;
    puma_open(&m, &p, &c, dt);
    double a[3], qa[4];
    planner_last_target(&p, NULL, a, qa);
    int lowered = 0, blends = 0, bad = 0;
    Stream s = {0};
    for (int trial = 0; trial < 6; trial++) {
        for (int k = 0; k < 4; k++) {
            double b[3];
            for (int i = 0; i < 3; i++) b[i] = a[i] + (urand() - 0.5) * 0.2;
            PlannerParams par = no_params;
            par.speed = urand() < 0.5 ? 3.0 : 0.2;      /* 3 m/s: beyond what the joints allow */
            par.acc = 5.0;
            par.approx = urand() < 0.7 ? 0.02 : 0;
            PlannerPushInfo info;
            int st = planner_push_lin(&p, b, qa, &par, (PlannerSrc){"p.irl", 30 + k, 1}, &info);
            if (st != 0) { printf("#   push: %s\n", planner_error(&p)); bad++; }
            lowered += (info.lowered & PLANNER_LOWERED_SPEED) != 0;
            blends += info.overlap > 0;
        }
        run(&p, dt, &s);
        bad += s.status != 0;
        bad += stream_limits(&p, &s, dt, 1e-6, 1e-2);
    }
    printf("#   %d lowered, %d blends\n", lowered, blends);
    CHECK(bad == 0);
    CHECK(lowered >= 5);
    CHECK(blends >= 5);
    /* cost of one cycle of a LIN (IK + differences) */
    double b[3] = {a[0] + 0.1, a[1], a[2] - 0.05};
    PlannerParams par = no_params;
    par.speed = 0.01;
    planner_reset(&p, p.q_end);
    planner_push_lin(&p, b, qa, &par, (PlannerSrc){0}, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    PlannerSetpoint sp;
    int cycles = 5000;
    for (int k = 0; k < cycles; k++) planner_sample(&p, k * dt, &sp);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("#   planner_sample on a PUMA LIN: %.3f us per cycle\n",
           ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / cycles);
    free(s.sp);
    planner_free(&p);
    model_close(&m);
}

/* Push a LIN (position and orientation) and a CIRC after it, exact stops, onto a fresh PUMA planner. */
static void push_lin_circ(Planner *p)
{
    double a[3], qa[4], b[3], qb[4], via[3], e[3];
    planner_last_target(p, NULL, a, qa);
    double off[3] = {0.1, -0.12, 0.06}, ax[3] = {0.6, 0, 0.8};
    moved_target(a, qa, off, ax, 0.3, b, qb);
    PlannerParams par = no_params;
    par.speed = 0.3;
    CHECK(planner_push_lin(p, b, qb, &par, (PlannerSrc){"w.irl", 1, 1}, NULL) == PLANNER_OK);
    planner_flush(p);
    for (int i = 0; i < 3; i++) via[i] = b[i] + 0.05 * (i == 1), e[i] = b[i] + 0.05 * (i == 1) + 0.05 * (i == 2);
    CHECK(planner_push_circ(p, via, e, qb, &par, (PlannerSrc){"w.irl", 2, 1}, NULL) == PLANNER_OK);
}

/* The plan-time path samples (PlannerSegment.qs, every second node of the lone check's table) are IK solutions of
 * the path at s = k / PLANNER_PATH_SAMPLES; a CIRC's pose from its table of cos and sin is libm's to rounding; and
 * the cycle's window (slot_eval keeps q(x - dt), q(x), q(x + dt)
 * for the next cycle) gives the stream that sampling without it gives: a second planner sampled also half way
 * between the cycles, so that its window is never reused, agrees with the first one to the IK's tolerance. */
UTEST(puma_shared_samples_and_window)
{
    Model m[2];
    Planner p[2];
    PlannerConfig c[2];
    double dt = 1e-3;
    for (int j = 0; j < 2; j++) {
        puma_open(&m[j], &p[j], &c[j], dt);
        push_lin_circ(&p[j]);
    }
    double worst_pos = 0, worst_ori = 0;
    for (int sg = 0; sg < 2; sg++) {
        const PlannerSegment *g = &p[0].ring[sg];
        for (int k = 0; k <= PLANNER_PATH_SAMPLES; k++) {
            double x[3], Rq[9], pos[3], quat[4], Rp[9], d[3], e[3];
            model_fk(&m[0], g->qs[k], -1, x, Rq);
            planner_path_pose(g, (double)k / PLANNER_PATH_SAMPLES, pos, quat);
            quat_to_m3(Rp, quat);
            v3_sub(d, x, pos);
            m3_rotation_error(e, Rq, Rp);
            worst_pos = fmax(worst_pos, v3_norm(d));
            worst_ori = fmax(worst_ori, v3_norm(e));
        }
        CHECK(memcmp(g->qs[PLANNER_PATH_SAMPLES], g->q1, sizeof(double) * 6) == 0);
    }
    /* the CIRC's pose from its trig table against libm's cos and sin, on and between the table's nodes */
    const PlannerSegment *gc = &p[0].ring[1];
    CHECK(gc->kind == PLANNER_CIRC && gc->ntrig == PLANNER_TRIG);
    double worst_trig = 0;
    for (int k = 0; k <= 4000; k++) {
        double sk = k / 4000.0, pos[3], quat[4];
        planner_path_pose(gc, sk, pos, quat);
        double c = gc->radius * cos(gc->phi * sk), d = gc->radius * sin(gc->phi * sk);
        for (int i = 0; i < 3; i++)
            worst_trig = fmax(worst_trig, fabs(pos[i] - (gc->centre[i] + c * gc->e1[i] + d * gc->e2[i])));
    }
    printf("#   CIRC pose from the trig table: %.3g m from libm's\n", worst_trig);
    CHECK(worst_trig <= 1e-15);
    printf("#   path samples: FK off the path by at most %.3g m, %.3g rad\n", worst_pos, worst_ori);
    CHECK(worst_pos <= 1e-9 && worst_ori <= 1e-9);
    Stream s = {0};
    run(&p[0], dt, &s);
    CHECK(s.status == 0);
    double dq = 0, dqd = 0, dqdd = 0, dpose = 0;
    int compared = 0;
    for (long k = 0; k < s.n; k++) {
        PlannerSetpoint a, h;
        CHECK(planner_sample(&p[1], k * dt, &a) >= 0);
        CHECK(planner_sample(&p[1], (k + 0.5) * dt, &h) >= 0);
        const PlannerSetpoint *r = &s.sp[k];
        CHECK(a.seg_id == r->seg_id && a.has_pose == r->has_pose);
        for (int i = 0; i < 6; i++) {
            dq = fmax(dq, fabs(a.q[i] - r->q[i]));
            dqd = fmax(dqd, fabs(a.qd[i] - r->qd[i]));
            dqdd = fmax(dqdd, fabs(a.qdd[i] - r->qdd[i]));
        }
        for (int i = 0; i < 3 && r->has_pose; i++) dpose = fmax(dpose, fabs(a.pos[i] - r->pos[i]));
        for (int i = 0; i < 4 && r->has_pose; i++) dpose = fmax(dpose, fabs(a.quat[i] - r->quat[i]));
        compared++;
    }
    printf("#   %d cycles without the window: |dq| %.3g rad, |dqd| %.3g rad/s, |dqdd| %.3g rad/s^2, pose %.3g\n",
           compared, dq, dqd, dqdd, dpose);
    CHECK(compared > 1000);
    /* the IK's tolerance (1e-10) in q, divided by the cycle once and twice; a window off by a cycle would be off
     * by the motion of a cycle (1e-4 rad) */
    CHECK(dq <= 1e-9 && dqd <= 1e-5 && dqdd <= 1e-2);
    /* the window's pose is the one solved at the last cycle's x + dt, x to rounding: the pose to rounding (a pose
     * off by a cycle would be off by the motion of a cycle, 1e-4 m) */
    CHECK(dpose <= 1e-15);
    free(s.sp);
    for (int j = 0; j < 2; j++) {
        planner_free(&p[j]);
        model_close(&m[j]);
    }
}

/* The PUMA 560 (dof 6) or, dof 7, the same arm with a seventh revolute joint on the flange (an odd count: the
 * cycle's loops handle the axes two at a time and the odd one alone), and its planner. */
static void arm_open(Model *m, Planner *p, PlannerConfig *c, double dt, int dof)
{
    ModelDesc *d = malloc(sizeof *d);
    char err[256];
    puma_planner_desc(d);
    if (dof == 7) {
        ModelJoint *j = &d->joint[6];
        *j = d->joint[5];
        snprintf(j->name, sizeof j->name, "j7");
        snprintf(j->link, sizeof j->link, "link7");
        j->parent = 5;
        j->origin_xyz[0] = 0.02, j->origin_xyz[1] = 0, j->origin_xyz[2] = 0.05;
        j->axis[0] = 1, j->axis[1] = 0, j->axis[2] = 0;
        j->home = 0.3;
        d->njoints = 7;
        d->tool_link = 6;
    }
    int st = model_open(m, d, err, sizeof err);
    if (st < 0) printf("#   model_open: %s\n", err);
    free(d);
    planner_config_init(c, dof);
    planner_config_from_model(c, m);
    c->dt = dt;
    c->speed = 0.5;
    c->acc = 2.0;
    c->jerk = 20.0;
    planner_init(p, c);
}

/* `moves` LINs and CIRCs from the start pose with and without approximation, some turning the tool (slerp), an
 * exact stop after the third; the same moves for every planner (relative to the start pose, no random numbers). */
static int push_cycle_moves(Planner *p, int moves)
{
    double a[3], qa[4], qb[4], b[3], via[3];
    int bad = 0;
    planner_last_target(p, NULL, a, qa);
    double turn[4] = {cos(0.15), sin(0.15) * 0.6, 0, sin(0.15) * 0.8};   /* 0.3 rad about (0.6, 0, 0.8) */
    quat_mul(qb, turn, qa);
    for (int k = 0; k < moves; k++) {
        PlannerParams par = no_params;
        par.speed = k % 3 == 2 ? 0.8 : 0.25;
        par.approx = k % 2 ? 0.02 : 0;
        const double *qt = k % 2 ? qb : qa;
        for (int i = 0; i < 3; i++) b[i] = a[i] + 0.06 * ((k + i) % 3 == 0) - 0.04 * ((k + i) % 3 == 1);
        if (k % 3 == 1) {
            for (int i = 0; i < 3; i++) via[i] = 0.5 * (a[i] + b[i]) + 0.02 * (i == 2);
            bad += planner_push_circ(p, via, b, qt, &par, (PlannerSrc){"c.irl", k + 1, 1}, NULL) != PLANNER_OK;
        } else {
            bad += planner_push_lin(p, b, qt, &par, (PlannerSrc){"c.irl", k + 1, 1}, NULL) != PLANNER_OK;
        }
        if (k == 2) planner_flush(p);
    }
    if (bad) printf("#   push: %s\n", planner_error(p));
    return bad;
}

/* The cycle's joint speed and acceleration are the central differences of the stream's own positions (the
 * window's rows are the neighbouring cycles' setpoints), to the bit, on every axis, with 6 axes and with 7. */
UTEST(cycle_differences)
{
    double dt = 1e-3;
    for (int dof = 6; dof <= 7; dof++) {
        Model m;
        Planner p;
        PlannerConfig c;
        Stream s = {0};
        arm_open(&m, &p, &c, dt, dof);
        CHECK(push_cycle_moves(&p, dof == 6 ? 6 : 4) == 0);   /* the 7-axis arm's cycle IK fails in the 5th */
        run(&p, dt, &s);
        if (s.status) printf("#   dof %d: status %d at t %.4f, line %d\n", dof, s.status, s.sp[s.n - 1].t, s.sp[s.n - 1].src.line);
        CHECK(s.status == 0);
        CHECK(s.n > 2000);
        int cart = 0, diffs = 0, bad_diff = 0;
        for (int k = 0; k < s.n; k++) {
            const PlannerSetpoint *a = &s.sp[k];
            cart += a->has_pose;
            if (k == 0 || k + 1 >= s.n) continue;
            const PlannerSetpoint *z = &s.sp[k - 1], *n = &s.sp[k + 1];
            if (!a->has_pose || !z->has_pose || !n->has_pose || z->seg_id != a->seg_id || n->seg_id != a->seg_id)
                continue;   /* only inside one Cartesian segment, not blending */
            diffs++;
            for (int i = 0; i < dof; i++) {
                double qd = (n->q[i] - z->q[i]) / (2 * dt), qdd = (n->q[i] - 2 * a->q[i] + z->q[i]) / (dt * dt);
                if (memcmp(&qd, &a->qd[i], sizeof qd) || memcmp(&qdd, &a->qdd[i], sizeof qdd)) {
                    if (bad_diff++ < 3)
                        printf("#   dof %d t %.4f axis %d: qd %.17g vs %.17g, qdd %.17g vs %.17g\n", dof, a->t, i + 1,
                               a->qd[i], qd, a->qdd[i], qdd);
                }
            }
        }
        printf("#   dof %d: %d cycles (%d Cartesian), %d cycles' differences checked\n", dof, s.n, cart, diffs);
        CHECK(cart > s.n / 2 && diffs > s.n / 2);
        CHECK(bad_diff == 0);
        free(s.sp);
        planner_free(&p);
        model_close(&m);
    }
}

/* planner_segment_start (TRIGGER's clock): the start each queued segment is predicted to have, asked every cycle
 * before the cycle samples, is the start the cycle gives it (main or blending slot), for PTP-PTP and LIN-LIN blends,
 * exact stops between PTP, LIN and CIRC (with the rest cycle next to a Cartesian one), a JOINT SPLINE, and a LIN
 * pushed after its predecessor passed its approximation zone (no blend); a finished segment answers -1. */
UTEST(segment_start_predicted)
{
    Model m;
    Planner p;
    PlannerConfig c;
    double dt = 1e-3, a[3], qa[4], b[3], qb[4], q0[PLANNER_MAX_AXES];
    puma_open(&m, &p, &c, dt);
    planner_last_target(&p, q0, a, qa);
    PlannerParams par = no_params, pz = no_params, lz = no_params;
    pz.approx_ptp = 0.5;
    lz.approx = 0.02;
    lz.speed = par.speed = 0.2;
    double q1[PLANNER_MAX_AXES], q2[PLANNER_MAX_AXES], js[2][PLANNER_MAX_AXES];
    for (int i = 0; i < 6; i++) q1[i] = q0[i] + 0.2, q2[i] = q0[i] + 0.1 * (i % 2);
    for (int i = 0; i < 6; i++) js[0][i] = q0[i] + 0.05, js[1][i] = q0[i] - 0.05 * (i % 3);
    PlannerSrc src = {"s.irl", 1, 1};
    CHECK(planner_push_ptp(&p, q1, &pz, src, NULL) == PLANNER_OK);          /* 1, blends into 2 */
    CHECK(planner_push_ptp(&p, q2, &par, src, NULL) == PLANNER_OK);         /* 2, exact stop */
    planner_last_target(&p, NULL, a, qa);
    double off[3] = {0.08, -0.05, 0.04}, ax[3] = {0, 0, 1}, off2[3] = {0, 0.08, 0};
    moved_target(a, qa, off, ax, 0.2, b, qb);
    CHECK(planner_push_lin(&p, b, qb, &lz, src, NULL) == PLANNER_OK);       /* 3: rest after the PTP, blends */
    moved_target(b, qb, off2, ax, 0, a, qa);
    CHECK(planner_push_lin(&p, a, qa, &par, src, NULL) == PLANNER_OK);      /* 4 */
    double via[3] = {a[0] + 0.03, a[1] + 0.03, a[2]}, e[3] = {a[0] + 0.06, a[1], a[2]};
    CHECK(planner_push_circ(&p, via, e, qa, &par, src, NULL) == PLANNER_OK); /* 5 */
    CHECK(planner_push_jspline(&p, 2, (const double(*)[PLANNER_MAX_AXES])js, &par, src, NULL) == PLANNER_OK); /* 6 */
    CHECK(planner_push_ptp(&p, q0, &pz, src, NULL) == PLANNER_OK);          /* 7, with a zone from 0.75 T */
    double pred[9], got[9];
    for (int id = 0; id < 9; id++) pred[id] = got[id] = NAN;
    int mismatch = 0, pushed8 = 0;
    PlannerSetpoint sp;
    for (long k = 0; k < 200000; k++) {
        double t = k * dt, st;
        for (int id = 1; id <= (pushed8 ? 8 : 7); id++) {
            int r = planner_segment_start(&p, t, id, &st);
            if (r == 1 && isnan(got[id])) {
                if (isnan(pred[id])) pred[id] = st;
                else if (fabs(st - pred[id]) > 1e-12) mismatch++;
            }
        }
        int rc = planner_sample(&p, t, &sp);
        if (p.main.seg && isnan(got[p.main.seg->id])) got[p.main.seg->id] = p.main.start;
        if (p.next.seg && isnan(got[p.next.seg->id])) got[p.next.seg->id] = p.next.start;
        if (!pushed8 && p.main.seg && p.main.seg->id == 7 && t - p.main.start > 0.8 * p.main.seg->T) {
            planner_last_target(&p, NULL, a, qa);
            moved_target(a, qa, off, ax, 0, b, qb);
            CHECK(planner_push_lin(&p, b, qb, &par, src, NULL) == PLANNER_OK);  /* 8: too late to blend into 7 */
            pushed8 = 1;
        }
        if (rc == PLANNER_IDLE && planner_pending(&p) == 0 && pushed8) break;
    }
    for (int id = 1; id <= 8; id++)
        printf("#   segment %d: predicted start %.9g s, started %.9g s\n", id, pred[id], got[id]);
    CHECK(mismatch == 0);
    for (int id = 1; id <= 8; id++) CHECK_NEAR(pred[id], got[id], 1e-12);
    CHECK(got[2] < got[1] + p.ring[0].T);                 /* 2 blended into 1 */
    CHECK_NEAR(got[8], got[7] + p.ring[6].T + dt, 1e-12); /* 8 after 7's end and a rest cycle */
    for (int id = 1; id <= 8; id++) {
        double st;
        CHECK(planner_segment_start(&p, 300, id, &st) == -1);
    }
    planner_free(&p);
    model_close(&m);
}

int main(void)
{
    RUN(ptp_synchronised_exact_stop);
    RUN(ptp_pair_approx_granted);
    RUN(ptp_pair_default_limits_do_not_lower);
    RUN(random_ptp_blends);
    RUN(queue_full_and_flush);
    RUN(blend_window_start_jerk);
    RUN(late_producer_single_thread);
    RUN(two_threads_spsc);
    RUN(ik_failure_reported_with_location);
    RUN(slerp_orientation);
    RUN(puma_lin_on_line_and_exact_stop);
    RUN(puma_circ_on_circle);
    RUN(puma_random_lin_limits_and_blends);
    RUN(puma_shared_samples_and_window);
    RUN(cycle_differences);
    RUN(segment_start_predicted);
    return utest_done();
}
