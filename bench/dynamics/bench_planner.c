/* bench_planner.c — cost of one planner cycle on a PUMA 560 LIN (the case of tests/unit/test_planner.c: model with
 * ik_tol 1e-13, home (0.1, 0.3, -0.2, 0.2, 0.7, -0.3), LIN of (0.1, 0, -0.05) m at 0.01 m/s sampled at 1 ms), and
 * of the per-cycle model work the dry-run adds: planner_sample + inverse dynamics at the setpoint.
 * Each round samples the same 5000 cycles of a fresh plan; the figures are medians over rounds.
 * Usage: bench_planner [rounds]   (IRL_BENCH_ONCE=1: one round, for callgrind)
 * -DBENCH_NO_IK_STATS builds it against a library older than chain_ik_stats (for before/after figures). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chain.h"
#include "bench_clock.h"
#include "model.h"
#include "motion/planner.h"
#include "puma_planner_cell.h"

#define CYCLES 5000

#ifdef BENCH_NO_IK_STATS
#define chain_ik_stats(s, st, reset) ((void)(s), (void)(st), (void)(reset))
#endif

/* The model and planner of test_planner.c's puma_open. */
static void puma_open(Model *m, Planner *p, PlannerConfig *c, double dt)
{
    ModelDesc *d = malloc(sizeof *d);
    char err[256];
    puma_planner_desc(d);
    if (model_open(m, d, err, sizeof err) < 0) {
        fprintf(stderr, "bench_planner: %s\n", err);
        exit(1);
    }
    free(d);
    puma_planner_init(p, c, m, dt);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11;
    if (getenv("IRL_BENCH_ONCE")) rounds = 1;
    double dt = 1e-3;
    Model m;
    Planner p;
    PlannerConfig c;
    puma_open(&m, &p, &c, dt);
    double a[3], qa[4], qh[6];
    planner_last_target(&p, qh, a, qa);
    double b[3] = {a[0] + 0.1, a[1], a[2] - 0.05};
    static const PlannerParams no_params;
    PlannerParams par = no_params;
    par.speed = 0.01;
    double *ns_pl = malloc((size_t)rounds * sizeof *ns_pl), *ns_all = malloc((size_t)rounds * sizeof *ns_all);
    int bad = 0;
    ChainIkStats st = {0};
    for (int r = 0; r < rounds; r++) {
        PlannerSetpoint sp;
        double tau[6];
        for (int pass = 0; pass < 2; pass++) {
            planner_reset(&p, qh);
            if (planner_push_lin(&p, b, qa, &par, (PlannerSrc){0}, NULL) < 0) bad++;
            chain_ik_stats(m.state, NULL, 1);
            double t0 = now_ns();
            for (int k = 0; k < CYCLES; k++) {
                if (planner_sample(&p, k * dt, &sp) < 0) bad++;
                if (pass) model_inverse_dynamics(&m, sp.q, sp.qd, sp.qdd, tau);
            }
            double t = (now_ns() - t0) / CYCLES;
            if (pass) ns_all[r] = t;
            else ns_pl[r] = t;
        }
        chain_ik_stats(m.state, &st, 0);
    }
    qsort(ns_pl, (size_t)rounds, sizeof *ns_pl, cmp_d);
    qsort(ns_all, (size_t)rounds, sizeof *ns_all, cmp_d);
    printf("planner_sample, PUMA LIN 1 ms: %.0f ns/cycle median (min %.0f); + inverse dynamics: %.0f ns/cycle "
           "median (min %.0f); %d errors\n",
           ns_pl[rounds / 2], ns_pl[0], ns_all[rounds / 2], ns_all[0], bad);
    printf("IK calls in the last pass: %ld (%ld on the Newton path, %ld far, %ld singular, %ld step, %ld limit, "
           "%ld contract)\n",
           st.calls, st.fast, st.fallback_far, st.fallback_singular, st.fallback_step, st.fallback_limit,
           st.fallback_contract);
    free(ns_pl);
    free(ns_all);
    planner_free(&p);
    model_close(&m);
    return bad != 0;
}
