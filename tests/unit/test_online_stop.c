/* test_online_stop.c — the online mode's jerk-limited controlled stop (online_safety.h): the single-axis stop time
 * against an independent numerical search for the optimum and against closed forms; seeded random multi-axis
 * ramps checked on their samples (speed, acceleration and jerk as differences of the written speeds, the
 * positions as the integral of the speeds); the brake-only case, an axis without an acceleration limit, the
 * position clamp. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "online/online_safety.h"
#include "motion/profile.h"
#include "test_rand.h"
#include "utest.h"

/* Duration of the stop "jerk sigma*j for t1, then hold the acceleration a1, then ramp it to zero at j", or INF
 * when that is not a stop within amax. */
static double ref_candidate(double v0, double a0, double amax, double j, double sigma, double t1)
{
    double a1 = a0 + sigma * j * t1, v1 = v0 + a0 * t1 + sigma * j * t1 * t1 / 2;
    if (fabs(a1) > amax * (1 + 1e-12)) return INFINITY;
    if (a1 == 0) return v1 == 0 ? t1 : INFINITY;
    double t3 = fabs(a1) / j, t2 = -(v1 + a1 * t3 / 2) / a1;
    return t2 < 0 ? INFINITY : t1 + t2 + t3;
}

/* The time-optimal stop by brute force: every bang-hold-bang candidate, the first ramp's length searched on a
 * grid, then refined four times around the best (independent of the closed form in online_safety.c). */
static double ref_stop_time(double v0, double a0, double amax, double j)
{
    double best = INFINITY, t1max = (fabs(a0) + amax) / j;
    for (int sg = -1; sg <= 1; sg += 2) {
        double step = t1max / 20000, bt = 0, bT = INFINITY;
        for (int i = 0; i <= 20000; i++) {
            double T = ref_candidate(v0, a0, amax, j, sg, i * step);
            if (T < bT) bT = T, bt = i * step;
        }
        for (int round = 0; round < 4 && isfinite(bT); round++) {
            double lo = bt - step > 0 ? bt - step : 0;
            step /= 100;
            for (int i = 0; i <= 200; i++) {
                double T = ref_candidate(v0, a0, amax, j, sg, lo + i * step);
                if (T < bT) bT = T, bt = lo + i * step;
            }
        }
        if (bT < best) best = bT;
    }
    return best;
}

/* A start (v0, a0) within the limits from which they can be kept: the speed that the acceleration alone adds
 * before the jerk limit brings it to zero stays below vmax. */
static void random_start(double vmax, double amax, double jmax, double *v0, double *a0)
{
    for (;;) {
        *v0 = (2 * urand() - 1) * vmax;
        *a0 = isfinite(amax) ? (2 * urand() - 1) * amax : (2 * urand() - 1) * 10;
        double over = isfinite(jmax) ? *a0 * *a0 / (2 * jmax) : 0;
        double peak = *v0 * *a0 > 0 ? fabs(*v0) + over : fmax(fabs(*v0), over);
        if (peak <= vmax) return;
    }
}

/* Closed forms from rest-to-rest profiles: from a0 = 0 the stop is the acceleration half of a profile whose peak
 * speed is v0 (profile.c), the known 2 sqrt(v0/j) when amax is not reached, amax/j + v0/amax when it is. */
UTEST(stop_time_closed_forms)
{
    Profile pr;
    CHECK(profile_plan(&pr, 0, 1e6, 2.0, 6, 60) == PROFILE_OK);
    CHECK_REL(safety_stop_min_time(2.0, 0, 6, 60), pr.Ta, 1e-12);
    CHECK_REL(safety_stop_min_time(-2.0, 0, 6, 60), 6.0 / 60 + 2.0 / 6, 1e-12);
    CHECK_REL(safety_stop_min_time(0.2, 0, 6, 60), 2 * sqrt(0.2 / 60), 1e-12);
    CHECK(safety_stop_min_time(0, 0, 6, 60) == 0);
    /* brake only: 0.5 rad/s at -10 rad/s^2 and 100 rad/s^3 comes to rest exactly as the acceleration reaches 0 */
    CHECK_REL(safety_stop_min_time(0.5, -10, 20, 100), 0.1, 1e-12);
    /* no acceleration limit: 2 sqrt(v0/j) */
    CHECK_REL(safety_stop_min_time(3.0, 0, INFINITY, 50), 2 * sqrt(3.0 / 50), 1e-12);
}

/* The closed-form optimum equals the brute-force search over random starts, and a one-axis ramp takes it
 * rounded up to whole cycles. */
UTEST(stop_time_is_optimal)
{
    double worst = 0, worst_ratio = 0, dt = 0.001;
    for (int n = 0; n < 1000; n++) {
        double amax = 1 + 19 * urand(), j = 10 + 490 * urand(), v0, a0;
        random_start(3, amax, j, &v0, &a0);
        double t = safety_stop_min_time(v0, a0, amax, j), ref = ref_stop_time(v0, a0, amax, j);
        double e = fabs(t - ref) / (1e-3 + ref);
        if (e > worst) worst = e;
        SafetyAxis ax = {-1e9, 1e9, 10, amax, j, 1};
        SafetyRamp r;
        safety_ramp_begin(&r, &ax, 1, dt, (double[]){0}, &v0, &a0);
        double ratio = r.steps * dt / ref;
        if (ratio > worst_ratio && ref > 0.05) worst_ratio = ratio;
        CHECK(r.steps * dt >= ref - 1e-9 && r.steps * dt <= ref + dt + 1e-9);
    }
    printf("# stop time vs brute-force optimum: max relative difference %.2g; ramp / optimum at most %.4f (dt 1 ms, "
           "optimum > 50 ms)\n", worst, worst_ratio);
    CHECK(worst < 1e-8);
    CHECK(worst_ratio <= 1 + dt / 0.05 + 1e-9);
}

typedef struct {
    double worst_v, worst_a, worst_j, worst_j3, worst_int; /* ratios to the limit (integral: to its bound) */
} Worst;

/* Run one ramp from (q0, v0, a0) and check its samples; the ramp must take T steps. */
static void check_ramp(const SafetyAxis *ax, int n, double dt, const double *q0, const double *v0, const double *a0,
                       double T, Worst *w)
{
    SafetyRamp r;
    safety_ramp_begin(&r, ax, n, dt, q0, v0, a0);
    long steps = (long)ceil(T / dt - 1e-9);
    CHECK(r.steps == steps);
    double q[DRIVER_MAX_AXES], v[DRIVER_MAX_AXES], qp[DRIVER_MAX_AXES], vp[DRIVER_MAX_AXES], ap[DRIVER_MAX_AXES];
    double q1[DRIVER_MAX_AXES], q2[DRIVER_MAX_AXES], qmax = 1;
    memcpy(qp, q0, n * sizeof *q0);
    memcpy(vp, v0, n * sizeof *v0);
    memcpy(ap, a0, n * sizeof *a0);
    for (int i = 0; i < n; i++) qmax = fmax(qmax, fabs(q0[i]) + 10);
    long k = 0;
    while (safety_ramp_next(&r, q, v)) {
        k++;
        for (int i = 0; i < n; i++) {
            const SafetyAxis *x = &ax[i];
            int jerk = isfinite(x->jmax);
            double a = (v[i] - vp[i]) / dt, jk = (a - ap[i]) / dt;
            w->worst_v = fmax(w->worst_v, fabs(v[i]) / x->vmax);
            if (isfinite(x->amax)) w->worst_a = fmax(w->worst_a, fabs(a) / x->amax);
            if (jerk) w->worst_j = fmax(w->worst_j, (fabs(jk) - 1e-12 / (dt * dt)) / x->jmax);
            /* positions: the integral of a speed whose second derivative is the jerk */
            double dev = fabs(q[i] - qp[i] - (v[i] + vp[i]) * dt / 2), bound = (jerk ? x->jmax : 0) * dt * dt * dt / 12;
            w->worst_int = fmax(w->worst_int, dev / (bound + 1e-14 * qmax));
            if (jerk && k >= 3) { /* jerk as third differences of the positions */
                double j3 = (q[i] - 3 * qp[i] + 3 * q1[i] - q2[i]) / (dt * dt * dt);
                w->worst_j3 = fmax(w->worst_j3, (fabs(j3) - 16 * 2.3e-16 * qmax / (dt * dt * dt)) / x->jmax);
            }
            q2[i] = q1[i], q1[i] = qp[i];
            qp[i] = q[i], vp[i] = v[i], ap[i] = a;
        }
        if (k == steps - 1) /* synchronised: every axis that moved still moves one cycle before the end */
            for (int i = 0; i < n; i++)
                if (v0[i] != 0 &&
                    !(isfinite(ax[i].jmax) && fabs(v0[i] + a0[i] * fabs(a0[i]) / (2 * ax[i].jmax)) < 1e-9))
                    CHECK(v[i] != 0); /* (a brake-only stop rests early: online_safety.h) */
    }
    CHECK(k == steps);
    for (int i = 0; i < n; i++) CHECK(v[i] == 0);
    CHECK(safety_ramp_next(&r, q, v) == 0 && memcmp(q, qp, n * sizeof *q) == 0);
}

/* Random multi-axis stops: within every limit on their samples, at rest together after the slowest axis's own
 * time rounded up to whole cycles. Some axes have no jerk limit (linear speed), some no acceleration limit. */
UTEST(stop_random_within_limits)
{
    Worst w = {0};
    double worst_sync = 0;
    for (int trial = 0; trial < 400; trial++) {
        int n = 1 + (int)(urand() * 6);
        double dt = trial % 2 ? 0.001 : 0.004, q0[6], v0[6], a0[6], T = 0, Tref = 0;
        SafetyAxis ax[6];
        for (int i = 0; i < n; i++) {
            double u = urand();
            ax[i] = (SafetyAxis){-1e3, 1e3, 0.5 + 4 * urand(), 1 + 19 * urand(), 10 + 490 * urand(), 1};
            if (u < 0.15) ax[i].jmax = INFINITY;
            else if (u < 0.25) ax[i].amax = INFINITY;
            q0[i] = 3 * (2 * urand() - 1);
            random_start(ax[i].vmax, ax[i].amax, ax[i].jmax, &v0[i], &a0[i]);
            if (isinf(ax[i].jmax)) a0[i] = 0;
            double Ti;
            if (isinf(ax[i].jmax)) Ti = fabs(v0[i]) / ax[i].amax;
            else if (isinf(ax[i].amax))
                Ti = fmax(SAFETY_STOP_TIME, safety_stop_min_time(v0[i], a0[i], INFINITY, ax[i].jmax));
            else Ti = ref_stop_time(v0[i], a0[i], ax[i].amax, ax[i].jmax);
            if (Ti > Tref) Tref = Ti;
            if (isfinite(ax[i].jmax) && isfinite(ax[i].amax))
                Ti = safety_stop_min_time(v0[i], a0[i], ax[i].amax, ax[i].jmax);
            if (Ti > T) T = Ti;
        }
        worst_sync = fmax(worst_sync, fabs(T - Tref));
        check_ramp(ax, n, dt, q0, v0, a0, T, &w);
    }
    printf("# random stops, peak / limit: speed %.9f, acceleration %.9f, jerk (speed differences) %.9f, jerk (third "
           "position differences) %.9f; position vs integral of speed %.6f of its bound\n",
           w.worst_v, w.worst_a, w.worst_j, w.worst_j3, w.worst_int);
    CHECK(worst_sync < 1e-7);
    CHECK(w.worst_v <= 1 + 1e-9);
    CHECK(w.worst_a <= 1 + 1e-9);
    CHECK(w.worst_j <= 1 + 1e-6);
    CHECK(w.worst_j3 <= 1 + 1e-6);
    CHECK(w.worst_int <= 1);
}

/* Brake only: the axis's acceleration alone brings it to rest at 0.1 s; synchronised to a slower axis it rests
 * there and holds, its jerk within the limit. */
UTEST(stop_brake_only_holds)
{
    SafetyAxis ax[2] = {{-10, 10, 5, 20, 100, 1}, {-10, 10, 5, 4, 40, 1}};
    double q0[2] = {0, 0}, v0[2] = {0.5, 2}, a0[2] = {-10, 0};
    Worst w = {0};
    double T = safety_stop_min_time(2, 0, 4, 40);
    CHECK(T > 0.5);
    check_ramp(ax, 2, 0.001, q0, v0, a0, T, &w);
    CHECK(w.worst_j <= 1 + 1e-6 && w.worst_a <= 1 + 1e-9);
    SafetyRamp r;
    double q[2], v[2];
    safety_ramp_begin(&r, ax, 2, 0.001, q0, v0, a0);
    for (int k = 0; k < 150; k++) safety_ramp_next(&r, q, v);
    CHECK(v[0] == 0 && v[1] != 0);
    CHECK_NEAR(q[0], 0.5 * 0.1 - 10 * 0.01 / 2 + 100 * 0.001 / 6, 1e-12); /* v0 t + a0 t^2/2 + j t^3/6 at t = 0.1 */
}

/* An axis without an acceleration limit but with a jerk limit stops in SAFETY_STOP_TIME. */
UTEST(stop_no_acceleration_limit)
{
    SafetyAxis ax[1] = {{-10, 10, 5, INFINITY, 200, 1}};
    Worst w = {0};
    check_ramp(ax, 1, 0.001, (double[]){0}, (double[]){0.1}, (double[]){0}, SAFETY_STOP_TIME, &w);
    CHECK(w.worst_j <= 1 + 1e-6);
}

/* A stop that would pass the position limit is held at the limit. */
UTEST(stop_clamps_at_position_limit)
{
    SafetyAxis ax[1] = {{-1, 0.101, 5, 1, 10, 1}};
    SafetyRamp r;
    double q[1], v[1];
    safety_ramp_begin(&r, ax, 1, 0.001, (double[]){0.1}, (double[]){1.0}, (double[]){0.5});
    int moving = 1;
    for (int k = 0; k < 4000 && moving; k++) {
        moving = safety_ramp_next(&r, q, v);
        CHECK(q[0] <= 0.101);
    }
    CHECK(!moving && q[0] == 0.101 && v[0] == 0);
}

/* A stop from near the end of an acceleration phase: v just under vmax, a > 0 as a backward difference gives it
 * (up to jmax dt more than the planner's), so v + a^2/2j may pass vmax: the written speeds stay within vmax. */
UTEST(stop_near_vmax_keeps_speed)
{
    double worst = 0;
    for (int trial = 0; trial < 2000; trial++) {
        double vmax = 2, amax = 10, jmax = 50 + urand() * 450, dt = trial % 2 ? 0.001 : 0.004;
        SafetyAxis ax[1] = {{-100, 100, vmax, amax, jmax, INFINITY}};
        /* a state on the planner's approach to vmax (v + a^2/2j = vmax at time tau before it), then a backward
         * difference over dt of a falling acceleration, overstating it by up to jmax dt */
        double tau = urand() * amax / jmax, a = jmax * tau, v = vmax - a * a / (2 * jmax);
        double a_seen = a + urand() * jmax * dt, v0 = trial % 3 ? v : fmin(v, vmax - 1e-9);
        double sign = trial % 4 < 2 ? 1 : -1;
        SafetyRamp r;
        safety_ramp_begin(&r, ax, 1, dt, (double[]){0}, (double[]){sign * v0}, (double[]){sign * a_seen});
        double q[1], qd[1];
        while (safety_ramp_next(&r, q, qd)) worst = fmax(worst, fabs(qd[0]) / vmax);
        CHECK(qd[0] == 0);
    }
    printf("  worst speed / vmax over the stops near vmax: %.9f\n", worst);
    CHECK(worst <= 1);
}

int main(void)
{
    RUN(stop_time_closed_forms);
    RUN(stop_time_is_optimal);
    RUN(stop_random_within_limits);
    RUN(stop_brake_only_holds);
    RUN(stop_no_acceleration_limit);
    RUN(stop_clamps_at_position_limit);
    RUN(stop_near_vmax_keeps_speed);
    return utest_done();
}
