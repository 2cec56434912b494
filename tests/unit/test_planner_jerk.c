/* test_planner_jerk.c — per-axis jerk (and speed, acceleration) limits in the sampled stream of blends that
 * involve Cartesian segments, on the PUMA 560 cell (models/puma560_cell.irm) with jerk limits set here: one
 * blend of each kind (PTP->LIN, LIN->PTP, LIN->LIN, LIN->CIRC, CIRC->LIN, CIRC->CIRC, PTP->CIRC, CIRC->PTP, and
 * LIN->LIN' and CIRC->CIRC' that turn back, where the two segments' accelerations and jerks add) for three jerk
 * limits at three sampling phases, exact stops next to Cartesian segments, and seeded random mixed sequences.
 *
 * The stream is checked as runtime/exec/checks.c checks it: speed and acceleration as sampled, jerk as the
 * difference of two consecutive accelerations over the cycle. Tolerance: speed and acceleration none, jerk
 * 1e-6 relative (CHECKS_DIFF_RTOL, the checks' own tolerance for differentiated channels: a jerk planned exactly
 * at the limit samples as limit * (1 + 1e-13) from rounding; the blend check itself keeps 0.5 % below every
 * limit, so this tolerance hides no real excess). Continuity: no cycle moves an axis further than its speed
 * limit allows, nor changes its speed by more than its acceleration limit allows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "geom.h"
#include "machine.h"
#include "motion/planner.h"
#include "test_rand.h"
#include "utest.h"

#define JERK_RTOL 1e-6

typedef struct {
    Model m;
    Planner p;
    PlannerConfig c;
    int ok;
} Cell;

/* The cell with jerk limits acc / ramp (a ramp of `ramp` seconds from 0 to the acceleration limit); path jerk
 * (LIN/CIRC) `pjerk` m/s^3. */
static void cell_open(Cell *x, double ramp, double pjerk, double dt)
{
    static ModelDesc d;
    Diag diag;
    char err[256];
    memset(x, 0, sizeof *x);
    diag_init(&diag, stdout);
    int rc = machine_load("models/puma560_cell.irm", &d, &diag);
    diag_free(&diag);
    if (rc != MACHINE_OK) return;
    for (int i = 0; i < d.njoints; i++) d.joint[i].limits.jmax = d.joint[i].limits.amax / ramp;
    if (model_open(&x->m, &d, err, sizeof err) < 0) {
        printf("#   model_open: %s\n", err);
        return;
    }
    planner_config_init(&x->c, x->m.dof);
    planner_config_from_model(&x->c, &x->m);
    x->c.dt = dt;
    x->c.jerk = pjerk;
    x->ok = planner_init(&x->p, &x->c) == PLANNER_OK;
}

static void cell_close(Cell *x)
{
    if (!x->ok) return;
    planner_free(&x->p);
    model_close(&x->m);
}

/* What a stream showed: peaks relative to the limits, and violations. */
typedef struct {
    double v, a, j;          /* peak |value| / limit over all axes */
    int bad, cycles;
} StreamStat;

/* Sample from t0 (then every dt) until the planner is idle, checking every cycle as runtime/exec/checks.c does. */
static void run_checked(Cell *x, double t0, StreamStat *st)
{
    Planner *p = &x->p;
    int n = x->c.dof, printed = 0;
    PlannerSetpoint sp[2];
    memset(st, 0, sizeof *st);
    for (long k = 0; k < 2000000; k++) {
        PlannerSetpoint *z = &sp[(k + 1) & 1], *a = &sp[k & 1];
        int rc = planner_sample(p, t0 + k * x->c.dt, a);
        if (rc < 0) { st->bad++; printf("#   planner_sample: %d at t %.4f\n", rc, a->t); return; }
        st->cycles++;
        for (int i = 0; i < n; i++) {
            const ModelAxisLimits *L = &x->c.limits[i];
            double rv = fabs(a->qd[i]) / L->vmax, ra = fabs(a->qdd[i]) / L->amax, rj = 0;
            int b = !(rv <= 1) + !(ra <= 1);
            if (k > 0) {
                rj = fabs(a->qdd[i] - z->qdd[i]) / x->c.dt / L->jmax;
                b += !(rj <= 1 + JERK_RTOL);
                b += !(fabs(a->q[i] - z->q[i]) <= L->vmax * x->c.dt * (1 + 1e-9));
                b += !(fabs(a->qd[i] - z->qd[i]) <= L->amax * x->c.dt * (1 + 1e-9));
            }
            st->v = fmax(st->v, rv), st->a = fmax(st->a, ra), st->j = fmax(st->j, rj);
            if (b && printed++ < 5)
                printf("#   t %.4f axis %d: speed %.4f acc %.4f jerk %.4f of the limits (line %d)\n", a->t, i + 1,
                       rv, ra, rj, a->src.line);
            st->bad += b;
        }
        if (rc == PLANNER_IDLE && planner_pending(p) == 0) return;
    }
    st->bad++;
}

/* One move of a test sequence: 'P' joint target (deg), 'L' position (m), 'C' via and target (m); the
 * orientation is the start's throughout. approx: APPROX (m) or APPROX_PTP (fraction). */
typedef struct {
    char kind;
    double a[6], b[3];
    double approx;
} Move;

static int push_move(Cell *x, const Move *mv, int line, double acc, PlannerPushInfo *info)
{
    Planner *p = &x->p;
    double pos[3], quat[4];
    planner_last_target(p, NULL, pos, quat);
    PlannerParams par = {.speed = 0.4, .acc = acc};
    PlannerSrc src = {"jerk.irl", line, 3};
    if (mv->kind == 'P') {
        double q[PLANNER_MAX_AXES];
        for (int i = 0; i < 6; i++) q[i] = mv->a[i] * M_PI / 180;
        par.approx_ptp = mv->approx;
        return planner_push_ptp(p, q, &par, src, info);
    }
    par.approx = mv->approx;
    if (mv->kind == 'L') return planner_push_lin(p, mv->a, quat, &par, src, info);
    return planner_push_circ(p, mv->a, mv->b, quat, &par, src, info);
}

/* Run a sequence (the first move from the home position with an exact stop, the pair under test blended) at
 * three sampling phases; every blend of the pair must happen and keep the limits. hard: LIN/CIRC at 8 m/s^2 and
 * 200 m/s^3 (else 2 m/s^2, 10 m/s^3), so that their joint jerk comes near the limits. */
static void blend_case(const char *name, double ramp, int hard, const Move *mv, int nmv, double *worst)
{
    for (int ph = 0; ph < 3; ph++) {
        static const double phase[3] = {0, 0.37, 0.81};
        Cell x;
        cell_open(&x, ramp, hard ? 200 : 10, 1e-3);
        CHECK(x.ok);
        if (!x.ok) return;
        int blends = 0, pushed = 1;
        for (int k = 0; k < nmv; k++) {
            PlannerPushInfo info;
            int rc = push_move(&x, &mv[k], 10 + k, hard ? 8 : 2, &info);
            if (rc != PLANNER_OK) printf("#   %s move %d: %s\n", name, k + 1, planner_error(&x.p));
            pushed &= rc == PLANNER_OK;
            blends += k > 0 && info.overlap > 0;
        }
        CHECK(pushed);
        CHECK(blends == nmv - 2);   /* the first move ends at rest at the start of the pair */
        StreamStat st;
        run_checked(&x, phase[ph] * 1e-3, &st);
        if (ph == 0)
            printf("#   %-11s ramp %.0f ms%s: %d blends, peak speed %.3f acc %.3f jerk %.4f of the limits\n", name,
                   ramp * 1e3, hard ? ", hard" : "", blends, st.v, st.a, st.j);
        CHECK(st.bad == 0);
        *worst = fmax(*worst, st.j);
        cell_close(&x);
    }
}

#define POSE_START {'L', {0.60, -0.15, 0.00}, {0}, 0}
#define J_VIA {'P', {30, 40, -170, 0, 50, 0}, {0}, 0.6}

UTEST(blend_kinds_keep_jerk)
{
    const double z = 0.05;
    const Move ptp_lin[] = {POSE_START, J_VIA, {'L', {0.45, 0.30, 0.10}, {0}, 0}};
    const Move lin_ptp[] = {POSE_START, {'L', {0.60, -0.15, 0.10}, {0}, 0.02}, {'P', {30, 40, -170, 0, 50, 0}, {0}, 0}};
    const Move lin_lin[] = {POSE_START, {'L', {0.60, -0.15, 0.10}, {0}, 0.02}, {'L', {0.45, 0.30, 0.10}, {0}, 0}};
    const Move lin_back[] = {POSE_START, {'L', {0.60, -0.15, 0.10}, {0}, 0.02}, {'L', {0.60, -0.15, 0.0}, {0}, 0}};
    const Move circ_back[] = {{'L', {0.55, 0.00, z}, {0}, 0}, {'C', {0.60, 0.05, z}, {0.65, 0.00, z}, 0.02},
                              {'C', {0.60, -0.05, z}, {0.55, 0.00, z}, 0}};
    const Move lin_circ[] = {{'L', {0.55, -0.20, z}, {0}, 0}, {'L', {0.55, 0.00, z}, {0}, 0.02},
                             {'C', {0.60, 0.05, z}, {0.65, 0.00, z}, 0}};
    const Move circ_lin[] = {{'L', {0.55, 0.00, z}, {0}, 0}, {'C', {0.60, 0.05, z}, {0.65, 0.00, z}, 0.02},
                             {'L', {0.65, -0.20, z}, {0}, 0}};
    const Move circ_circ[] = {{'L', {0.55, 0.00, z}, {0}, 0}, {'C', {0.60, 0.05, z}, {0.65, 0.00, z}, 0.02},
                              {'C', {0.70, -0.05, z}, {0.65, -0.10, z}, 0}};
    const Move ptp_circ[] = {POSE_START, J_VIA, {'C', {0.50, 0.35, 0.10}, {0.45, 0.30, 0.15}, 0}};
    const Move circ_ptp[] = {{'L', {0.55, 0.00, z}, {0}, 0}, {'C', {0.60, 0.05, z}, {0.65, 0.00, z}, 0.02},
                             {'P', {0, 45, -180, 0, 45, 0}, {0}, 0}};
    static const double ramps[3] = {0.1, 0.05, 0.3};
    for (int c = 0; c < 6; c++) {
        int r = c % 3, hard = c / 3;
        double w = 0;
        blend_case("PTP->LIN", ramps[r], hard, ptp_lin, 3, &w);
        blend_case("LIN->PTP", ramps[r], hard, lin_ptp, 3, &w);
        blend_case("LIN->LIN", ramps[r], hard, lin_lin, 3, &w);
        blend_case("LIN->LIN'", ramps[r], hard, lin_back, 3, &w);
        blend_case("LIN->CIRC", ramps[r], hard, lin_circ, 3, &w);
        blend_case("CIRC->LIN", ramps[r], hard, circ_lin, 3, &w);
        blend_case("CIRC->CIRC", ramps[r], hard, circ_circ, 3, &w);
        blend_case("CIRC->CIRC'", ramps[r], hard, circ_back, 3, &w);
        blend_case("PTP->CIRC", ramps[r], hard, ptp_circ, 3, &w);
        blend_case("CIRC->PTP", ramps[r], hard, circ_ptp, 3, &w);
        printf("#   ramp %.0f ms%s: worst jerk %.4f of the limit\n", ramps[r] * 1e3, hard ? ", hard" : "", w);
    }
}

/* Exact stops (no approximation) between a Cartesian segment and a PTP, both queued: the cycle that straddles
 * the junction must not add the end of one to the start of the other. */
UTEST(exact_stop_next_to_cartesian)
{
    const Move lin_ptp[] = {POSE_START, {'L', {0.60, -0.15, 0.10}, {0}, 0}, {'P', {30, 40, -170, 0, 50, 0}, {0}, 0},
                            {'L', {0.45, 0.30, 0.10}, {0}, 0}, {'L', {0.45, 0.30, 0.02}, {0}, 0}};
    for (int ph = 0; ph < 5; ph++) {
        Cell x;
        cell_open(&x, 0.05, 10, 1e-3);
        CHECK(x.ok);
        if (!x.ok) return;
        for (int k = 0; k < 5; k++) CHECK(push_move(&x, &lin_ptp[k], 10 + k, 2, NULL) == PLANNER_OK);
        StreamStat st;
        run_checked(&x, ph * 0.2e-3, &st);
        if (ph == 0) printf("#   exact stops: peak jerk %.4f of the limit\n", st.j);
        CHECK(st.bad == 0);
        cell_close(&x);
    }
}

/* A random point of the cell's work area in front of the arm. */
static void random_point(double p[3])
{
    p[0] = 0.42 + 0.25 * urand();
    p[1] = -0.25 + 0.55 * urand();
    p[2] = -0.05 + 0.2 * urand();
}

/* Seeded random sequences of PTP, LIN and CIRC moves with random approximation, speed and acceleration. */
UTEST(random_mixed_sequences)
{
    int blends[3][3] = {{0}}, lowered_acc = 0, lowered_approx = 0, moves = 0, skipped = 0;
    double worst = 0;
    for (int seq = 0; seq < 6; seq++) {
        Cell x;
        cell_open(&x, seq & 1 ? 0.05 : 0.1, seq < 3 ? 10 : 100, 1e-3);
        CHECK(x.ok);
        if (!x.ok) return;
        int prev = -1;
        for (int k = 0; k < 24; k++) {
            double a[3], b[3], pos[3], quat[4];
            planner_last_target(&x.p, NULL, pos, quat);
            random_point(a);
            PlannerParams par = {.speed = 0.1 + 0.5 * urand(), .acc = 0.5 + 6 * urand()};
            par.approx = urand() < 0.8 ? 0.005 + 0.03 * urand() : 0;
            par.approx_ptp = urand() < 0.8 ? urand() : 0;
            PlannerSrc src = {"random.irl", k + 1, 3};
            PlannerPushInfo info;
            int kind = (int)(urand() * 3), rc;
            if (kind == 0) {
                double q[PLANNER_MAX_AXES];
                ModelIkInfo ii;
                planner_last_target(&x.p, q, NULL, NULL);
                rc = model_ik(&x.m, a, quat, q, q, &ii) < 0 ? PLANNER_EIK
                                                             : planner_push_ptp(&x.p, q, &par, src, &info);
            } else if (kind == 1) {
                rc = planner_push_lin(&x.p, a, quat, &par, src, &info);
            } else {
                random_point(b);
                rc = planner_push_circ(&x.p, a, b, quat, &par, src, &info);
            }
            if (rc != PLANNER_OK) { skipped++; continue; }   /* out of reach, or a circle through a singularity */
            moves++;
            if (prev >= 0 && info.overlap > 0) blends[prev][kind]++;
            lowered_acc += (info.lowered & PLANNER_LOWERED_ACC) != 0;
            lowered_approx += (info.lowered & PLANNER_LOWERED_APPROX) != 0;
            prev = kind;
        }
        StreamStat st;
        run_checked(&x, 0.3e-3 * seq, &st);
        CHECK(st.bad == 0);
        worst = fmax(worst, st.j);
        cell_close(&x);
    }
    int cart = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) cart += (i || j) ? blends[i][j] : 0;
    printf("#   %d moves (%d refused), blends PTP->PTP %d, with a Cartesian segment %d (ACC lowered %d, APPROX "
           "lowered %d); worst jerk %.4f of the limit\n", moves, skipped, blends[0][0], cart, lowered_acc,
           lowered_approx, worst);
    CHECK(cart >= 20);
}

int main(void)
{
    RUN(blend_kinds_keep_jerk);
    RUN(exact_stop_next_to_cartesian);
    RUN(random_mixed_sequences);
    return utest_done();
}
