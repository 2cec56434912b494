/* test_checks.c — the sampled-stream checks on synthetic streams with known answers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/checks.h"
#include "puma560_desc.h"
#include "utest.h"

#define DT 1e-3

static ModelDesc desc;
static SampleLayout lay;
static Sample smp;
static char err[256];

/* One device "arm" with n revolute axes and the given symmetric limits (INFINITY: none). */
static void setup(int n, double qmax, double vmax, double amax, double jmax, double effort)
{
    model_desc_init(&desc);
    desc.njoints = n;
    for (int i = 0; i < n; i++) {
        model_joint_init(&desc.joint[i]);
        desc.joint[i].limits.min = -qmax, desc.joint[i].limits.max = qmax;
        desc.joint[i].limits.vmax = vmax, desc.joint[i].limits.amax = amax;
        desc.joint[i].limits.jmax = jmax, desc.joint[i].limits.effort = effort;
    }
    memset(&lay, 0, sizeof lay);
    lay.ndev = 1;
    strcpy(lay.dev[0].name, "arm");
    lay.dev[0].naxes = n;
    lay.dev[0].desc = &desc;
    sample_init(&smp, &lay);
}

static void init_checks(Checks *ck, int maxv)
{
    ChecksConfig cfg = {.cycle = DT, .max_violations = maxv};
    int rc = checks_init(ck, &lay, &cfg, err, sizeof err);
    CHECK(rc == 0);
}

/* Set cycle i's time and the statement (line) producing it. */
static void at(long i, int line)
{
    smp.cycle = i;
    smp.t = i * DT;
    smp.src.file = "prog.irl", smp.src.line = line, smp.src.col = 1;
    smp.dev[0].src = smp.src;
}

/* q = A sin(ωt) on axis 0 (f = 1 Hz) and its derivatives: peaks A, Aω, Aω² at known times and lines. */
UTEST(sine_peaks)
{
    setup(2, 10, 100, 1000, 1e5, INFINITY);
    Checks ck;
    init_checks(&ck, 10);
    double A = 0.5, w = 2 * M_PI;
    for (long i = 0; i <= 1000; i++) {
        double t = i * DT;
        at(i, i < 500 ? 7 : 9);
        smp.dev[0].q[0] = A * sin(w * t), smp.dev[0].qd[0] = A * w * cos(w * t);
        smp.dev[0].qdd[0] = -A * w * w * sin(w * t);
        checks_sample(&ck, &smp);
    }
    const ChecksChannel *q = checks_channel(&ck, 0, CHK_POSITION, 0);
    CHECK_NEAR(q->max.v, A, 1e-15);
    CHECK_NEAR(q->max.t, 0.25, 1e-12);
    CHECK(q->max.src.line == 7);
    CHECK_NEAR(q->min.v, -A, 1e-15);
    CHECK_NEAR(q->min.t, 0.75, 1e-12);
    CHECK(q->min.src.line == 9);
    CHECK_NEAR(checks_margin(q), 10 - A, 1e-12);
    CHECK_NEAR(checks_margin_pct(q), 100 * (10 - A) / 10, 1e-9); /* symmetric ±10: % of the limit */
    const ChecksChannel *v = checks_channel(&ck, 0, CHK_SPEED, 0);
    CHECK_NEAR(checks_peak(v)->v, A * w, 1e-12);
    CHECK(checks_peak(v)->t == 0.0 || fabs(checks_peak(v)->t - 0.5) < 1e-12 || fabs(checks_peak(v)->t - 1) < 1e-12);
    CHECK_NEAR(checks_margin(v), 100 - A * w, 1e-12);
    CHECK_NEAR(checks_margin_pct(v), 100 - A * w, 1e-12); /* % of 100 */
    const ChecksChannel *a = checks_channel(&ck, 0, CHK_ACCEL, 0);
    CHECK_NEAR(fabs(checks_peak(a)->v), A * w * w, 1e-12);
    /* jerk differentiated from the stream: A ω³ up to O(ω dt) */
    const ChecksChannel *j = checks_channel(&ck, 0, CHK_JERK, 0);
    CHECK_REL(fabs(checks_peak(j)->v), A * w * w * w, 1e-4);
    CHECK(j->nsamples == 1000); /* no jerk on the first cycle */
    CHECK(checks_passed(&ck));
    CHECK(ck.nviol == 0);
    checks_free(&ck);
}

/* Symmetric limits: margin % is of the limit; asymmetric: of the range. */
UTEST(margin_pct)
{
    ChecksChannel c = {.lo = -2, .hi = 2, .nsamples = 1, .min = {.v = -1.5}, .max = {.v = 0.5}};
    CHECK_NEAR(checks_margin(&c), 0.5, 1e-15);
    CHECK_NEAR(checks_margin_pct(&c), 25, 1e-12);
    c.lo = 0, c.hi = 4, c.min.v = 1, c.max.v = 3.5;
    CHECK_NEAR(checks_margin(&c), 0.5, 1e-15);
    CHECK_NEAR(checks_margin_pct(&c), 12.5, 1e-12);
    c.lo = -INFINITY, c.hi = INFINITY;
    CHECK(isinf(checks_margin(&c)));
}

/* q = 2 on cycles 100..199 (limit 1): one record, exact start and end, blamed on the first statement. */
UTEST(interval_exact)
{
    setup(1, 1, INFINITY, INFINITY, INFINITY, INFINITY);
    Checks ck;
    init_checks(&ck, 10);
    for (long i = 0; i < 400; i++) {
        at(i, i < 150 ? 3 : 4);
        smp.dev[0].q[0] = (i >= 100 && i <= 199) ? 1.5 + (i == 160 ? 0.5 : 0) : 0.0;
        checks_sample(&ck, &smp);
    }
    CHECK(ck.nviol == 1);
    const ChecksViolation *w = &ck.viol[0];
    CHECK(w->qty == CHK_POSITION && w->dev == 0 && w->index == 0);
    CHECK_NEAR(w->t_start, 0.100, 1e-15);
    CHECK_NEAR(w->t_end, 0.199, 1e-15);
    CHECK(w->cycles == 100);
    CHECK_NEAR(w->peak, 2.0, 0);
    CHECK_NEAR(w->t_peak, 0.160, 1e-15);
    CHECK(w->limit == 1.0);
    CHECK(w->src.line == 3 && w->src_peak.line == 4);
    CHECK(!checks_passed(&ck));
    CHECK_NEAR(checks_margin(checks_channel(&ck, 0, CHK_POSITION, 0)), -1.0, 0);
    checks_free(&ck);
}

/* Two separate runs give two records; a run crossing the lower limit records the lower limit. */
UTEST(merging)
{
    setup(2, INFINITY, 1, INFINITY, INFINITY, INFINITY);
    Checks ck;
    init_checks(&ck, 10);
    for (long i = 0; i < 100; i++) {
        at(i, 5);
        smp.dev[0].qd[0] = ((i >= 10 && i < 20) || (i >= 50 && i < 52)) ? -3.0 : 0.5;
        smp.dev[0].qd[1] = (i >= 10 && i < 90) ? 1.25 : 0; /* axis 2: one long run overlapping both */
        checks_sample(&ck, &smp);
    }
    CHECK(ck.nviol == 3);
    CHECK(ck.viol[0].index == 0 && ck.viol[0].cycles == 10 && ck.viol[0].limit == -1.0);
    CHECK(ck.viol[1].index == 1 && ck.viol[1].cycles == 80);
    CHECK(ck.viol[2].index == 0 && ck.viol[2].cycles == 2);
    CHECK_NEAR(ck.viol[2].t_start, 0.050, 1e-15);
    CHECK_NEAR(ck.viol[2].t_end, 0.051, 1e-15);
    CHECK(checks_violation_count(&ck) == 3);
    checks_free(&ck);
}

/* A full list counts what it drops; channels keep their peaks. */
UTEST(overflow)
{
    setup(1, INFINITY, 1, INFINITY, INFINITY, INFINITY);
    Checks ck;
    init_checks(&ck, 3);
    for (long i = 0; i < 100; i++) {
        at(i, 2);
        smp.dev[0].qd[0] = (i % 10 == 5) ? 2.0 + i : 0; /* 10 one-cycle runs, growing */
        checks_sample(&ck, &smp);
    }
    CHECK(ck.nviol == 3);
    CHECK(ck.viol_dropped == 7);
    CHECK(checks_violation_count(&ck) == 10);
    CHECK_NEAR(checks_channel(&ck, 0, CHK_SPEED, 0)->max.v, 97.0, 0);
    CHECK(!checks_passed(&ck));
    checks_free(&ck);
}

/* NaN is a violation even without limits; IK failures are violations. */
UTEST(nan_and_ik)
{
    setup(1, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY);
    Checks ck;
    init_checks(&ck, 10);
    for (long i = 0; i < 10; i++) {
        at(i, 2);
        smp.dev[0].qdd[0] = i == 4 ? NAN : 0;
        smp.dev[0].ik_status = (i >= 6 && i < 8) ? MODEL_EUNREACH : 0;
        checks_sample(&ck, &smp);
    }
    /* the NaN acceleration (cycle 4) also makes the jerk NaN on cycles 4 and 5 */
    int nacc = 0, njerk = 0, nik = 0;
    for (int i = 0; i < ck.nviol; i++) {
        nacc += ck.viol[i].qty == CHK_ACCEL;
        njerk += ck.viol[i].qty == CHK_JERK;
        if (ck.viol[i].qty == CHK_IK) {
            nik++;
            CHECK(ck.viol[i].cycles == 2);
            CHECK_NEAR(ck.viol[i].t_start, 0.006, 1e-15);
        }
    }
    CHECK(nacc == 1 && njerk == 1 && nik == 1);
    CHECK(isnan(ck.viol[0].peak));
    checks_free(&ck);
}

/* Extra outputs: a limit on G by name, and "Gdot" differentiated from G. */
UTEST(outputs_and_rates)
{
    setup(1, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY);
    strcpy(desc.output_limit[0].name, "g"), desc.output_limit[0].min = -INFINITY, desc.output_limit[0].max = 5;
    strcpy(desc.output_limit[1].name, "Gdot"), desc.output_limit[1].min = -2, desc.output_limit[1].max = 2;
    desc.noutput_limits = 2;
    lay.dev[0].nout = 2;
    strcpy(lay.dev[0].out_name[0], "G"), strcpy(lay.dev[0].out_name[1], "Ghead");
    Checks ck;
    init_checks(&ck, 10);
    /* G ramps 1 -> 6 at 3 G/s (t 0..5/3 s), then holds */
    for (long i = 0; i <= 3000; i++) {
        at(i, i < 2000 ? 11 : 12);
        double t = i * DT;
        smp.dev[0].out[0] = t < 5.0 / 3 ? 1 + 3 * t : 6;
        smp.dev[0].out[1] = 1;
        checks_sample(&ck, &smp);
    }
    const ChecksChannel *g = checks_channel(&ck, 0, CHK_OUTPUT, 0);
    const ChecksChannel *gd = checks_channel(&ck, 0, CHK_OUTPUT_RATE, 0);
    CHECK(g && gd);
    CHECK(g->hi == 5 && gd->hi == 2);
    CHECK(strcmp(checks_label(&ck, gd), "Gdot") == 0);
    CHECK_NEAR(gd->max.v, 3, 1e-9);
    CHECK(checks_channel(&ck, 0, CHK_OUTPUT_RATE, 1) == NULL); /* no rate limit on Ghead */
    int ng = 0, ngd = 0;
    for (int i = 0; i < ck.nviol; i++) {
        if (ck.viol[i].qty == CHK_OUTPUT) {
            ng++;
            CHECK_NEAR(ck.viol[i].t_start, 1.334, 1e-12); /* first sample with 1 + 3t > 5 */
            CHECK_NEAR(ck.viol[i].t_end, 3.0, 1e-12);
        }
        if (ck.viol[i].qty == CHK_OUTPUT_RATE) {
            ngd++;
            CHECK_NEAR(ck.viol[i].t_start, 0.001, 1e-15); /* the first difference */
        }
    }
    CHECK(ng == 1 && ngd == 1);
    checks_free(&ck);
}

/* A two-axis torque stream τ = g + a sin(ωt) with constant g. */
typedef struct {
    double g[2], a[2], L;
} TorqueCase;

static int gravity_cb(void *ud, int dev, const double *q, double *g)
{
    (void)dev, (void)q;
    const TorqueCase *tc = ud;
    g[0] = tc->g[0], g[1] = tc->g[1];
    return 0;
}

/* Run the stream stretched by k (τ = (τ − g)/k² + g, times k·t); returns the checks' k and violations. */
static double run_torque(const TorqueCase *tc, double k, int use_cb, long *nviol)
{
    setup(2, INFINITY, INFINITY, INFINITY, INFINITY, tc->L);
    Checks ck;
    ChecksConfig cfg = {.cycle = DT * k, .max_violations = 100};
    if (use_cb) cfg.gravity = gravity_cb, cfg.gravity_ud = (void *)tc;
    CHECK(checks_init(&ck, &lay, &cfg, err, sizeof err) == 0);
    for (long i = 0; i <= 2000; i++) {
        double t = i * DT;
        at(i, 20);
        smp.t = k * t;
        smp.dev[0].tau_ok = 1;
        smp.dev[0].has_grav = !use_cb;
        for (int j = 0; j < 2; j++) {
            double tau = tc->g[j] + tc->a[j] * sin(2 * M_PI * (j + 1) * t + 0.3);
            smp.dev[0].tau[j] = (tau - tc->g[j]) / (k * k) + tc->g[j];
            smp.dev[0].grav[j] = tc->g[j];
        }
        checks_sample(&ck, &smp);
    }
    double kk = ck.k;
    *nviol = checks_violation_count(&ck);
    checks_free(&ck);
    return kk;
}

/* The suggested k makes the stream pass and is minimal; the closed form matches the analytic answer. */
UTEST(torque_time_scale)
{
    TorqueCase tc = {.g = {30, -10}, .a = {50, 80}, .L = 60};
    long nv;
    double k = run_torque(&tc, 1.0, 0, &nv);
    CHECK(nv > 0);
    /* analytic: axis 1 needs (80 - (-10))... per axis worst: (L - g)/a vs (L + g)/a for the sign that exceeds */
    double k2a = 50 / (60.0 - 30), k2b = 80 / (60.0 - 10); /* axis 1 above +L: d/(L-g); axis 2 below -L */
    double kexp = sqrt(fmax(k2a, k2b));
    CHECK_REL(k, kexp, 1e-5); /* the sampled peak of the sine is within O(dt^2) of the analytic one */
    CHECK(k > 1);
    long nv2;
    double k_again = run_torque(&tc, k, 0, &nv2);
    CHECK(nv2 == 0);
    CHECK(k_again == 1.0);
    run_torque(&tc, k * (1 - 1e-6), 0, &nv2);
    CHECK(nv2 > 0);
    /* the gravity callback gives the same k */
    double kcb = run_torque(&tc, 1.0, 1, &nv2);
    CHECK(kcb == k);
}

/* The PUMA 560 moving all joints fast (cycloidal steps of 1 s, inside the joint limits): the stream at time
 * scale k (samples at the same positions, q̇/k, q̈/k²) with τ recomputed by the model's inverse dynamics — not
 * by the formula. effort[] gives the torque limits (NULL: none); peak_tau/peak_g (optional) receive max |τ| and
 * max |g| per axis. Returns the checks' k and the number of violations. */
static double run_puma(Model *m, const double *effort, double k, long *nviol, double *peak_tau, double *peak_g)
{
    static const double A[6] = {1.2, 0.7, -0.7, 1.5, -1.2, 2.0};
    static const double zero[6];
    Model *models[1] = {m};
    ModelDesc d = m->desc;
    memset(&lay, 0, sizeof lay);
    lay.ndev = 1;
    strcpy(lay.dev[0].name, "puma");
    lay.dev[0].naxes = 6, lay.dev[0].desc = &d;
    for (int i = 0; i < 6; i++) d.joint[i].limits.effort = effort ? effort[i] : INFINITY;
    sample_init(&smp, &lay);
    Checks ck;
    ChecksConfig cfg = {.cycle = DT * k, .gravity = checks_model_gravity, .gravity_ud = models};
    CHECK(checks_init(&ck, &lay, &cfg, err, sizeof err) == 0);
    double T = 1.0, w = 2 * M_PI / T, g[6];
    for (long i = 0; i <= 1000; i++) {
        double t = i * DT, u = t / T;
        at(i, 30);
        smp.t = k * t;
        SampleDevice *sd = &smp.dev[0];
        for (int j = 0; j < 6; j++) {
            sd->q[j] = A[j] * (u - sin(w * t) / (2 * M_PI));
            sd->qd[j] = A[j] * (1 - cos(w * t)) / T / k;
            sd->qdd[j] = A[j] * w * sin(w * t) / T / (k * k);
        }
        sd->tau_ok = model_inverse_dynamics(m, sd->q, sd->qd, sd->qdd, sd->tau) >= 0;
        CHECK(sd->tau_ok);
        if (peak_tau) {
            model_inverse_dynamics(m, sd->q, zero, zero, g);
            for (int j = 0; j < 6; j++)
                peak_tau[j] = fmax(peak_tau[j], fabs(sd->tau[j])), peak_g[j] = fmax(peak_g[j], fabs(g[j]));
        }
        checks_sample(&ck, &smp);
    }
    double kk = ck.k;
    *nviol = checks_violation_count(&ck);
    for (int i = 0; i < ck.nviol; i++) CHECK(ck.viol[i].qty == CHK_TORQUE);
    checks_free(&ck);
    return kk;
}

/* With a real model (Coriolis and centrifugal terms included) the suggested k passes and is minimal. */
UTEST(torque_time_scale_puma)
{
    ModelDesc pd;
    puma560_desc(&pd);
    Model m;
    CHECK(model_open(&m, &pd, err, sizeof err) >= 0);
    double ptau[6] = {0}, pg[6] = {0}, L[6];
    long nv, nv2, nv3;
    run_puma(&m, NULL, 1.0, &nv, ptau, pg);
    CHECK(nv == 0);
    /* limits between gravity and the dynamic peak: slowing down can fix them */
    for (int j = 0; j < 6; j++) L[j] = fmax(1.05 * pg[j], 0.8 * ptau[j]);
    double k = run_puma(&m, L, 1.0, &nv, NULL, NULL);
    printf("#   PUMA: k = %.9f, %ld torque violation runs at k = 1\n", k, nv);
    CHECK(nv > 0 && k > 1 && isfinite(k));
    double k2 = run_puma(&m, L, k, &nv2, NULL, NULL);
    CHECK(nv2 == 0 && k2 == 1.0);
    run_puma(&m, L, k * (1 - 1e-6), &nv3, NULL, NULL);
    CHECK(nv3 > 0);
    model_close(&m);
}

/* Gravity alone above the limit: no k helps. */
UTEST(torque_time_scale_infeasible)
{
    TorqueCase tc = {.g = {70, 0}, .a = {5, 0}, .L = 60};
    long nv;
    double k = run_torque(&tc, 1.0, 0, &nv);
    CHECK(isinf(k));
    CHECK(nv > 0);
}

/* Lowered requests: the same statement again only counts. */
UTEST(limited_notes)
{
    setup(1, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY);
    Checks ck;
    init_checks(&ck, 10);
    SampleSrc a = {"p.irl", 4, 3}, b = {"p.irl", 5, 3};
    checks_note_limited(&ck, 0, -1, "SPEED", 2.0, 1.3, 0.5, a);
    checks_note_limited(&ck, 0, -1, "SPEED", 2.0, 1.3, 1.5, a);
    checks_note_limited(&ck, 0, -1, "ACC", 20, 10, 1.5, a);
    checks_note_limited(&ck, 0, 2, "SPEED_PTP", 1.0, 0.8, 2.5, b);
    CHECK(ck.nlimited == 3);
    CHECK(ck.limited[0].count == 2);
    CHECK(checks_passed(&ck)); /* lowering a request is not a failure */
    checks_free(&ck);
}

/* Motor voltage: V = R i + ke N qd with i = tau / (N kt), against vmax. */
UTEST(motor_voltage)
{
    setup(1, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY);
    ModelMotor *m = &desc.joint[0].motor;
    m->present = 1, m->resistance = 2, m->kt = 0.5, m->ke = 0.5, m->gear = 10, m->rotor_inertia = 0, m->vmax = 24;
    Checks ck;
    init_checks(&ck, 10);
    at(0, 1);
    smp.dev[0].tau_ok = 1;
    smp.dev[0].tau[0] = 20, smp.dev[0].qd[0] = 3; /* i = 4 A, V = 8 + 15 = 23 */
    checks_sample(&ck, &smp);
    CHECK_NEAR(checks_channel(&ck, 0, CHK_VOLTAGE, 0)->max.v, 23, 1e-12);
    CHECK(checks_passed(&ck));
    at(1, 1);
    smp.dev[0].qd[0] = 3.4; /* V = 8 + 17 = 25 > 24 */
    checks_sample(&ck, &smp);
    CHECK(!checks_passed(&ck));
    CHECK(ck.viol[0].qty == CHK_VOLTAGE);
    CHECK_NEAR(checks_channel(&ck, 0, CHK_POWER, 0)->max.v, 68, 1e-12);
    checks_free(&ck);
}

/* Named power limits: "power1" on axis 1's τ·q̇, "power" on the device's total; regeneration (negative) too. */
UTEST(power_limits)
{
    setup(2, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY);
    strcpy(desc.output_limit[0].name, "Power1"), desc.output_limit[0].min = -10, desc.output_limit[0].max = 50;
    strcpy(desc.output_limit[1].name, "power"), desc.output_limit[1].min = -INFINITY, desc.output_limit[1].max = 80;
    desc.noutput_limits = 2;
    Checks ck;
    init_checks(&ck, 10);
    CHECK(checks_channel(&ck, 0, CHK_POWER, 0)->hi == 50 && checks_channel(&ck, 0, CHK_POWER, 1)->hi == INFINITY);
    CHECK(checks_channel(&ck, 0, CHK_POWER_TOTAL, -1)->hi == 80);
    static const double tau0[5] = {10, 10, 0, -10, 10}, qd0[5] = {4, 6, 0, 2, 1}, tau1[5] = {0, 20, 0, 0, 10},
                        qd1[5] = {0, 2, 0, 0, 1};
    for (int i = 0; i < 5; i++) { /* axis-1 power 40, 60, 0, -20, 10; total 40, 100, 0, -20, 20 */
        at(i, 7 + i);
        smp.dev[0].tau_ok = 1;
        smp.dev[0].tau[0] = tau0[i], smp.dev[0].qd[0] = qd0[i];
        smp.dev[0].tau[1] = tau1[i], smp.dev[0].qd[1] = qd1[i];
        checks_sample(&ck, &smp);
    }
    CHECK(ck.nviol == 3);
    CHECK(ck.viol[0].qty == CHK_POWER && ck.viol[0].src.line == 8 && ck.viol[0].peak == 60 && ck.viol[0].limit == 50);
    CHECK(ck.viol[1].qty == CHK_POWER_TOTAL && ck.viol[1].peak == 100);
    CHECK(ck.viol[2].qty == CHK_POWER && ck.viol[2].src.line == 10 && ck.viol[2].peak == -20 && ck.viol[2].limit == -10);
    checks_free(&ck);
}

/* The quiet window (ChecksChannel.wlo/whi: a value inside only counts) changes nothing: a random stream with new
 * extremes, violation runs opening and closing, NaNs, torque-less cycles (skipped channels), IK failures, motors,
 * outputs and a rate leaves every channel, violation and the torque time scale exactly as the full update of every
 * value does (ChecksConfig.no_window). Two layouts: six axes without motors (the dry-run's usual fast loop), and
 * three axes, two of them with motors, plus outputs; and the six axes again on a periodic stream, where most values
 * lie inside their windows and a few jump out. */
static int grav_const(void *ud, int dev, const double *q, double *g)
{
    (void)ud, (void)dev, (void)q;
    for (int i = 0; i < 6; i++) g[i] = 0.3 * i - 0.5;
    return 0;
}

static int same_point(const ChecksPoint *a, const ChecksPoint *b)
{
    return a->v == b->v && a->t == b->t && a->src.line == b->src.line && a->src.col == b->src.col;
}

static int same_checks(const Checks *a, const Checks *b)
{
    int ok = a->nchan == b->nchan && a->nviol == b->nviol && a->viol_dropped == b->viol_dropped && a->k == b->k &&
             a->k_t == b->k_t && a->k_dev == b->k_dev && a->k_unknown == b->k_unknown && a->ncycles == b->ncycles;
    for (int i = 0; ok && i < a->nchan; i++) {
        const ChecksChannel *x = &a->chan[i], *y = &b->chan[i];
        ok = same_point(&x->min, &y->min) && same_point(&x->max, &y->max) && x->nsamples == y->nsamples &&
             x->nbad == y->nbad && x->open == y->open && x->rec == y->rec;
    }
    for (int i = 0; ok && i < a->nviol; i++) {
        const ChecksViolation *x = &a->viol[i], *y = &b->viol[i];
        ok = x->channel == y->channel && x->t_start == y->t_start && x->t_end == y->t_end && x->cycles == y->cycles &&
             (x->peak == y->peak || (isnan(x->peak) && isnan(y->peak))) && x->t_peak == y->t_peak &&
             x->limit == y->limit && x->src.line == y->src.line && x->src_peak.line == y->src_peak.line &&
             x->k == y->k;
    }
    return ok;
}

UTEST(window_vs_full)
{
    for (int layout = 0; layout < 3; layout++) {
        int n = layout == 1 ? 3 : 6;
        setup(n, 1.0, 2.0, 5.0, 400.0, 30.0);
        if (layout == 1) {
            for (int i = 0; i < 2; i++) {
                ModelMotor *m = &desc.joint[i].motor;
                m->present = 1, m->resistance = 2, m->kt = 0.5, m->ke = 0.5, m->gear = 10, m->vmax = 40;
            }
            strcpy(desc.output_limit[0].name, "G"), desc.output_limit[0].min = -INFINITY, desc.output_limit[0].max = 2;
            strcpy(desc.output_limit[1].name, "Gdot"), desc.output_limit[1].min = -50, desc.output_limit[1].max = 50;
            desc.noutput_limits = 2;
            lay.dev[0].nout = 2;
            strcpy(lay.dev[0].out_name[0], "G"), strcpy(lay.dev[0].out_name[1], "H");
        }
        Checks a, b;
        ChecksConfig cfg = {.cycle = DT, .max_violations = 40, .gravity = grav_const};
        CHECK(checks_init(&a, &lay, &cfg, err, sizeof err) == 0);
        cfg.no_window = 1;
        CHECK(checks_init(&b, &lay, &cfg, err, sizeof err) == 0);
        srand(7 + layout);
        double x[6 * 8] = {0};
        int same = 1;
        for (long c = 0; c < 20000 && same; c++) {
            at(c, 3 + (int)(c / 1500));
            SampleDevice *sd = &smp.dev[0];
            for (int k = 0; k < 6 * n + 2; k++) { /* random walks, now and then a jump */
                double r = rand() / (double)RAND_MAX - 0.5;
                if (layout == 2) /* periodic, mostly inside the range already met: quiet cycles */
                    x[k] = 0.9 * sin(0.002 * (1 + k % 5) * (double)c + k) + (rand() % 20000 == 0 ? 40 * r : 0);
                else
                    x[k] += (rand() % 500 == 0 ? 40 : 0.02) * r, x[k] *= 0.999;
            }
            for (int i = 0; i < n; i++) {
                sd->q[i] = x[i], sd->qd[i] = 2 * x[n + i];
                sd->qdd[i] = 5 * x[2 * n + i], sd->tau[i] = 30 * x[3 * n + i];
                if (rand() % 3000 == 0) sd->qd[i] = NAN;
            }
            sd->tau_ok = rand() % 200 != 0;
            sd->sing = rand() % 300 == 0 ? NAN : fabs(x[4 * n]);
            sd->ik_status = rand() % 700 == 0 ? -1 : 0;
            sd->out[0] = 2 + x[5 * n], sd->out[1] = x[5 * n + 1];
            checks_sample(&a, &smp);
            checks_sample(&b, &smp);
            if (c % 97 == 0 || c == 19999) same = same_checks(&a, &b);
        }
        CHECK(same);
        CHECK(a.nviol > 10);                    /* runs really opened (and closed: more than one per channel) */
        long quiet = 0;
        for (int i = 0; i < a.nchan; i++) quiet += a.chan[i].nsamples - a.chan[i].nbad;
        CHECK(quiet > 100000);                  /* and most values were inside their windows */
        printf("# layout %d: %ld values in limits\n", layout, quiet);
        checks_free(&a);
        checks_free(&b);
    }
}

/* Cost of checking one cycle of a 6-axis arm with torques (printed; the dry-run budget is ~1 us a cycle). */
UTEST(cycle_cost)
{
    setup(6, 3, 5, 20, 1e7, 100);
    Checks ck;
    init_checks(&ck, 100);
    const long N = 500000;
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (long i = 0; i < N; i++) {
        at(i, 4);
        smp.dev[0].tau_ok = 1;
        for (int j = 0; j < 6; j++) {
            double x = 1e-3 * (double)(i % 1000);
            smp.dev[0].q[j] = x, smp.dev[0].qd[j] = 0.5 * x, smp.dev[0].qdd[j] = x, smp.dev[0].tau[j] = 20 * x;
        }
        checks_sample(&ck, &smp);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / N;
    printf("#   checks: %.0f ns CPU per cycle (6 axes, %d channels)\n", ns, ck.nchan);
    CHECK(ck.nviol == 0 && ck.ncycles == N);
    checks_free(&ck);
}

/* A jerk planned exactly at its limit (q̈ ramps at jmax = 60; the difference quotient rounds to 60 ± a few ulps,
 * some cycles above 60) passes; 1e-5 beyond the limit does not; directly sampled quantities get no tolerance
 * (an acceleration one ulp above amax is a violation). */
UTEST(jerk_tolerance)
{
    const double jmax = 60, amax = 100;
    setup(1, INFINITY, INFINITY, amax, jmax, INFINITY);
    Checks ck;
    init_checks(&ck, 10);
    int above = 0;
    double prev = 0;
    for (long i = 0; i < 1000; i++) {
        at(i, 5);
        smp.dev[0].qdd[0] = jmax * (0.1 + 0.001 * (double)i); /* q̈(t) = jmax (t + 0.1) at t = 1 ms steps */
        if (i > 0 && (smp.dev[0].qdd[0] - prev) / DT > jmax) above++;
        prev = smp.dev[0].qdd[0];
        checks_sample(&ck, &smp);
    }
    const ChecksChannel *jc = checks_channel(&ck, 0, CHK_JERK, 0);
    printf("#   jerk at its limit: %d of 999 cycles rounded above 60, peak %.17g, margin %g\n", above,
           checks_peak(jc)->v, checks_margin(jc));
    CHECK(above > 0);                 /* the case the tolerance exists for really occurs */
    CHECK(jc->max.v > jmax);          /* the peak is reported as measured */
    CHECK(ck.nviol == 0 && jc->nbad == 0 && checks_passed(&ck));
    CHECK(checks_margin(jc) == 0.0);  /* on its limit, not crossed */
    checks_free(&ck);

    init_checks(&ck, 10);
    for (long i = 0; i < 10; i++) {
        at(i, 6);
        smp.dev[0].qdd[0] = i == 5 ? nextafter(amax, INFINITY) : jmax * (1 + 1e-5) * DT * (double)i;
        checks_sample(&ck, &smp);
    }
    int njerk = 0, nacc = 0;
    for (int i = 0; i < ck.nviol; i++) njerk += ck.viol[i].qty == CHK_JERK, nacc += ck.viol[i].qty == CHK_ACCEL;
    CHECK(nacc == 1);                 /* one ulp above amax */
    CHECK(njerk >= 1);                /* 1e-5 above jmax (and the jump to amax) */
    CHECK(!checks_passed(&ck));
    checks_free(&ck);
}

int main(void)
{
    RUN(sine_peaks);
    RUN(margin_pct);
    RUN(interval_exact);
    RUN(merging);
    RUN(overflow);
    RUN(nan_and_ik);
    RUN(outputs_and_rates);
    RUN(torque_time_scale);
    RUN(torque_time_scale_puma);
    RUN(torque_time_scale_infeasible);
    RUN(limited_notes);
    RUN(motor_voltage);
    RUN(power_limits);
    RUN(jerk_tolerance);
    RUN(window_vs_full);
    RUN(cycle_cost);
    return utest_done();
}
