/* bench_ik.c — cost of one chain IK call along a 1 ms PUMA 560 LIN trajectory, seeded the way the planner seeds
 * it (the previous solution extrapolated linearly through the one before), plus RNE and FK per call.
 *
 * The trajectory: the LIN of tests/unit/test_planner.c (0.21 m, 0.4 rad about (0, 0.6, 0.8)) on a quintic time law
 * over 2 s, sampled every 1 ms; ik_tol as the planner's tests use it (1e-13) and the
 * default (1e-10). Reports the median over rounds of ns per call, and the mean iteration count.
 * Usage: bench_ik [rounds]   (IRL_BENCH_ONCE=1: one pass, for callgrind) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chain.h"
#include "geom.h"
#include "bench_clock.h"
#include "model.h"
#include "puma560_desc.h"

#define NSAMP 2001   /* 2 s at 1 ms */

/* Poses along the line a -> b, rotation Ra -> Rd Ra, quintic time law. */
static void make_path(Model *m, const double *q0, double (*pos)[3], double (*quat)[4])
{
    double a[3], Ra[9], ax[3] = {0, 0.6, 0.8}, off[3] = {0.12, -0.15, 0.08};
    double nrm = v3_norm(ax);
    v3_scale(ax, ax, 1.0 / nrm);
    model_fk(m, q0, -1, a, Ra);
    for (int k = 0; k < NSAMP; k++) {
        double t = (double)k / (NSAMP - 1), s = t * t * t * (10 - 15 * t + 6 * t * t), Rd[9], R[9];
        for (int i = 0; i < 3; i++) pos[k][i] = a[i] + s * off[i];
        m3_axis_angle(Rd, ax, 0.4 * s);
        m3_mul(R, Rd, Ra);
        m3_to_quat(quat[k], R);
    }
}

/* One pass of IK along the path, seeded as the planner does. Returns failures; sums iterations. */
static int ik_pass(Model *m, const double *q0, double (*pos)[3], double (*quat)[4], double (*qs)[6], long *iters)
{
    int bad = 0;
    memcpy(qs[0], q0, sizeof qs[0]);
    for (int k = 1; k < NSAMP; k++) {
        double seed[6];
        for (int i = 0; i < 6; i++) seed[i] = qs[k - 1][i] + (k >= 2 ? qs[k - 1][i] - qs[k - 2][i] : 0);
        ModelIkInfo info;
        if (model_ik(m, pos[k], quat[k], seed, qs[k], &info) < 0 && bad++ == 0 && getenv("IRL_BENCH_DEBUG"))
            fprintf(stderr, "first failure at sample %d: residual %.3g after %d iterations\n", k, info.residual,
                    info.iterations);
        *iters += info.iterations;
    }
    return bad;
}

static void open_puma(Model *m, double tol)
{
    ModelDesc *d = malloc(sizeof *d);
    char err[256];
    puma560_desc(d);
    ModelParam *p = &d->param[d->nparams++];
    strcpy(p->name, "ik_tol");
    p->n = 1;
    p->v[0] = tol;
    if (model_open(m, d, err, sizeof err) < 0) {
        fprintf(stderr, "bench_ik: %s\n", err);
        exit(1);
    }
    free(d);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    int once = getenv("IRL_BENCH_ONCE") != NULL;
    if (once) rounds = 1;
    static double pos[NSAMP][3], quat[NSAMP][4], qs[NSAMP][6];
    static const double q0[6] = {0.1, 0.3, -0.2, 0.2, 0.7, -0.3};
    double tols[2] = {1e-13, 1e-10};
    for (int ti = 0; ti < 2; ti++) {
        Model m;
        open_puma(&m, tols[ti]);
        make_path(&m, q0, pos, quat);
        double *ns = malloc((size_t)rounds * sizeof *ns);
        long iters = 0;
        int bad = 0;
        for (int r = 0; r < rounds; r++) {
            double t0 = now_ns();
            bad += ik_pass(&m, q0, pos, quat, qs, &iters);
            ns[r] = (now_ns() - t0) / (NSAMP - 1);
        }
        qsort(ns, (size_t)rounds, sizeof *ns, cmp_d);
        printf("PUMA LIN 1 ms, ik_tol %.0e: IK %.0f ns/call median (min %.0f), %.2f iterations/call, %d failures\n",
               tols[ti], ns[rounds / 2], ns[0], (double)iters / rounds / (NSAMP - 1), bad);
        if (!once) {
            double qd[6] = {0.3, -0.2, 0.4, 1.0, -0.5, 0.7}, qdd[6] = {1, 2, -1, 3, 2, -2}, tau[6];
            for (int r = 0; r < rounds; r++) {
                double t0 = now_ns();
                for (int k = 1; k < NSAMP; k++) model_inverse_dynamics(&m, qs[k], qd, qdd, tau);
                ns[r] = (now_ns() - t0) / (NSAMP - 1);
            }
            qsort(ns, (size_t)rounds, sizeof *ns, cmp_d);
            if (ti == 0) printf("PUMA RNE inverse dynamics: %.0f ns/call median\n", ns[rounds / 2]);
            for (int r = 0; r < rounds; r++) {
                double t0 = now_ns(), x[3], R[9];
                for (int k = 1; k < NSAMP; k++) model_fk(&m, qs[k], -1, x, R);
                ns[r] = (now_ns() - t0) / (NSAMP - 1);
            }
            qsort(ns, (size_t)rounds, sizeof *ns, cmp_d);
            if (ti == 0) printf("PUMA FK (tool): %.0f ns/call median\n", ns[rounds / 2]);
        }
        free(ns);
        model_close(&m);
    }
    return 0;
}
