/* bench_centrifuge.c — inverse dynamics of the human centrifuge (tests/unit/centrifuge_desc.h) by its own
 * back-end (`centrifuge`, the closed-form equations of seed 000/002) against the general `chain` back-end (RNE) on
 * the very same description, on the same machine, interleaved round by round (issue 5 item 7).
 *
 * Before timing, the two answers are compared on every state. Reports ns per call (median over rounds) and the
 * median of the per-round ratios centrifuge / chain. Usage: bench_centrifuge [rounds]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "centrifuge_desc.h"
#include "model.h"

#define NSTATES 4096
#define REPS 25

static unsigned long long rng = 88172645463325252ull;
static double urand(double lo, double hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* ns per call of model_inverse_dynamics over all states, REPS times; returns a checksum to keep the work. */
static double time_id(Model *m, double (*q)[3], double (*qd)[3], double (*qdd)[3], double *ns)
{
    double sum = 0, tau[3];
    double t0 = now_ns();
    for (int r = 0; r < REPS; r++)
        for (int k = 0; k < NSTATES; k++) {
            model_inverse_dynamics(m, q[k], qd[k], qdd[k], tau);
            sum += tau[0];
        }
    *ns = (now_ns() - t0) / ((double)REPS * NSTATES);
    return sum;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    static ModelDesc d;
    static double q[NSTATES][3], qd[NSTATES][3], qdd[NSTATES][3];
    Model mc, mh;
    char err[256];
    centrifuge_desc_fill(&d);
    d.joint[1].origin_xyz[0] = model_desc_param(&d, "arm_length")->v[0];   /* as test_centrifuge.c does */
    if (model_open(&mc, &d, err, sizeof err) < 0) { fprintf(stderr, "centrifuge: %s\n", err); return 1; }
    snprintf(d.backend, sizeof d.backend, "chain");
    if (model_open(&mh, &d, err, sizeof err) < 0) { fprintf(stderr, "chain: %s\n", err); return 1; }
    double worst = 0;
    for (int k = 0; k < NSTATES; k++) {
        double t1[3], t2[3];
        for (int i = 0; i < 3; i++) {
            q[k][i] = urand(-3, 3);
            qd[k][i] = urand(-3, 3);
            qdd[k][i] = urand(-5, 5);
        }
        model_inverse_dynamics(&mc, q[k], qd[k], qdd[k], t1);
        model_inverse_dynamics(&mh, q[k], qd[k], qdd[k], t2);
        for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(t1[i] - t2[i]) / fmax(1.0, fabs(t2[i])));
    }
    printf("centrifuge vs chain inverse dynamics on %d states: worst relative difference %.2e\n", NSTATES, worst);
    double *nc = malloc((size_t)rounds * sizeof *nc), *nh = malloc((size_t)rounds * sizeof *nh);
    double *ratio = malloc((size_t)rounds * sizeof *ratio), sink = 0;
    for (int r = 0; r < rounds; r++) {
        sink += time_id(&mc, q, qd, qdd, &nc[r]);
        sink += time_id(&mh, q, qd, qdd, &nh[r]);
        ratio[r] = nc[r] / nh[r];
    }
    qsort(nc, (size_t)rounds, sizeof *nc, cmp_d);
    qsort(nh, (size_t)rounds, sizeof *nh, cmp_d);
    qsort(ratio, (size_t)rounds, sizeof *ratio, cmp_d);
    printf("inverse dynamics, ns/call (median of %d rounds): centrifuge %.1f, chain %.1f; ratio centrifuge/chain "
           "%.2f (median of per-round ratios)%s\n",
           rounds, nc[rounds / 2], nh[rounds / 2], ratio[rounds / 2], "");
    volatile double keep = sink;   /* the answers are used: the calls cannot be optimised away */
    (void)keep;
    free(nc);
    free(nh);
    free(ratio);
    model_close(&mc);
    model_close(&mh);
    return worst < 1e-9 ? 0 : 1;
}
