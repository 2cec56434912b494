/* test_planner_lone.c — a lone LIN (exact stops both sides) that passes near the PUMA 560's wrist singularity
 * keeps every per-axis speed, acceleration and jerk limit in its sampled stream (docs/MOTION.md §2): the 33-sample
 * bounds D1-D3 miss the wrist's swing there, the lone stream check (planner_blend.c: an IK table refined until the
 * swing is resolved, and the chain rule) slows the path down to it.
 *
 * The arm is models/puma560_cell.irm with its jerk limits replaced by acc / ramp for a few ramps, so that speed,
 * acceleration or jerk binds in turn. The stream is checked as runtime/exec/checks.c checks it: speed and acceleration
 * as sampled (no tolerance), jerk as the difference of two consecutive accelerations over the cycle (1e-6 relative,
 * the checks' tolerance for differentiated channels). With the old bounds alone the LIN sampled 1.11 times axis 4's
 * speed limit (ramps 0.02 and 0.1 s) and 1.18 and 1.26 times its jerk limit (ramps 0.1 and 0.3 s): this test
 * failed. */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "geom.h"
#include "machine.h"
#include "motion/planner.h"
#include "utest.h"

/* Peaks of a stream relative to the limits, and the cycles over a limit. */
typedef struct {
    double v, a, j;
    int bad;
} Peaks;

/* The PUMA cell's machine file into d; MACHINE_OK or its error. */
static int load_cell(ModelDesc *d)
{
    Diag diag;
    diag_init(&diag, stdout);
    int rc = machine_load("models/puma560_cell.irm", d, &diag);
    diag_free(&diag);
    return rc;
}

/* Push PTP home -> the LIN near the singularity (exact stops) on the cell with jerk = acc / ramp, sample it at
 * phase*dt, and return the LIN's stream peaks and its planned duration. */
static int lone_lin(double ramp, double phase, Peaks *pk, double *T, int *lowered)
{
    static ModelDesc d;
    char err[256];
    Model m;
    Planner p;
    PlannerConfig c;
    memset(pk, 0, sizeof *pk);
    int rc = load_cell(&d);
    if (rc != MACHINE_OK) return -1;
    for (int i = 0; i < d.njoints; i++) d.joint[i].limits.jmax = d.joint[i].limits.amax / ramp;
    if (model_open(&m, &d, err, sizeof err) < 0) return -1;
    planner_config_init(&c, m.dof);
    planner_config_from_model(&c, &m);
    c.dt = 1e-3;
    c.speed = 0.5, c.acc = 2;
    if (planner_init(&p, &c) != PLANNER_OK) { model_close(&m); return -1; }
    /* q5 = 20 deg, then up 0.2 m and 5 mm aside, orientation held: q5 comes within 0.4 deg of 0 and axes 4
     * and 6 turn by 2.9 rad in about a second */
    const double q[6] = {0, M_PI / 4, -160 * M_PI / 180, 0, 20 * M_PI / 180, 0};
    PlannerParams par = {0};
    PlannerPushInfo info;
    PlannerSrc src = {"lone.irl", 1, 3};
    double pos[3], quat[4];
    rc = planner_push_ptp(&p, q, &par, src, &info);
    planner_last_target(&p, NULL, pos, quat);
    pos[1] += 0.005, pos[2] += 0.2;
    src.line = 2;
    if (rc == PLANNER_OK) rc = planner_push_lin(&p, pos, quat, &par, src, &info);
    if (rc != PLANNER_OK) printf("#   push: %s\n", planner_error(&p));
    *T = info.duration;
    *lowered = info.lowered;
    PlannerSetpoint sp[2];
    for (long k = 0; rc == PLANNER_OK && k < 100000; k++) {
        PlannerSetpoint *a = &sp[k & 1], *z = &sp[(k + 1) & 1];
        int r = planner_sample(&p, (k + phase) * c.dt, a);
        if (r < 0) { pk->bad++; break; }
        for (int i = 0; i < 6 && k > 0; i++) {
            const ModelAxisLimits *L = &c.limits[i];
            double rv = fabs(a->qd[i]) / L->vmax, ra = fabs(a->qdd[i]) / L->amax;
            double rj = fabs(a->qdd[i] - z->qdd[i]) / c.dt / L->jmax;
            if (a->seg_id == 2 || z->seg_id == 2) {
                pk->v = fmax(pk->v, rv), pk->a = fmax(pk->a, ra), pk->j = fmax(pk->j, rj);
                pk->bad += !(rv <= 1) + !(ra <= 1) + !(rj <= 1 + 1e-6);
            }
        }
        if (r == PLANNER_IDLE && planner_pending(&p) == 0) break;
    }
    planner_free(&p);
    model_close(&m);
    return rc;
}

UTEST(lone_lin_near_wrist_singularity)
{
    static const double ramps[] = {0.02, 0.1, 0.3}, phases[] = {0, 0.5};
    for (int r = 0; r < 3; r++)
        for (int f = 0; f < 2; f++) {
            Peaks pk;
            double T;
            int lowered;
            CHECK(lone_lin(ramps[r], phases[f], &pk, &T, &lowered) == PLANNER_OK);
            if (f == 0)
                printf("#   ramp %.2f s: LIN %.3f s, peak speed %.4f acc %.4f jerk %.4f of the limits\n", ramps[r], T,
                       pk.v, pk.a, pk.j);
            CHECK(pk.bad == 0);
            CHECK(lowered & PLANNER_LOWERED_SPEED);   /* the report says the path was slowed down */
            /* not slowed more than needed: some limit within 10 % */
            CHECK(fmax(pk.v, fmax(pk.a, pk.j)) > 0.9);
        }
}

/* A LIN whose IK table cannot follow the path (from q5 = 5 deg up 0.2 m and 5 mm aside: the wrist would swing
 * axis 4 past its 170 deg limit, docs/MOTION.md 8) fails its push where the table's walk fails, with the place:
 * the planner's own path samples are nodes of that table, so this is the first IK failure the push meets. */
UTEST(lone_lin_ik_failure_at_push)
{
    static ModelDesc d;
    char err[256];
    Model m;
    Planner p;
    PlannerConfig c;
    int rc = load_cell(&d);
    CHECK(rc == MACHINE_OK);
    if (rc != MACHINE_OK) return;
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    planner_config_init(&c, m.dof);
    planner_config_from_model(&c, &m);
    c.speed = 0.2, c.acc = 1;
    CHECK(planner_init(&p, &c) == PLANNER_OK);
    const double q[6] = {0, M_PI / 4, -160 * M_PI / 180, 0, 5 * M_PI / 180, 0};
    PlannerParams par = {0};
    PlannerPushInfo info;
    double pos[3], quat[4];
    CHECK(planner_push_ptp(&p, q, &par, (PlannerSrc){"lone.irl", 1, 3}, &info) == PLANNER_OK);
    planner_last_target(&p, NULL, pos, quat);
    pos[1] += 0.005, pos[2] += 0.2;
    CHECK(planner_push_lin(&p, pos, quat, &par, (PlannerSrc){"lone.irl", 2, 3}, &info) == PLANNER_EIK);
    printf("#   %s\n", planner_error(&p));
    CHECK(strstr(planner_error(&p), "inverse kinematics failed at 28 % of the path") != NULL);
    CHECK(planner_pending(&p) == 1);   /* nothing of the LIN was published */
    planner_free(&p);
    model_close(&m);
}

int main(void)
{
    RUN(lone_lin_near_wrist_singularity);
    RUN(lone_lin_ik_failure_at_push);
    return utest_done();
}
