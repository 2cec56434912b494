/* test_online.c — the online mode's parts that need no real time: the SPSC ring (alone and across two threads),
 * the limit re-check, the following-error test, the stop ramp, the cycle histogram, the driver option parser,
 * the sim driver's dynamics, the stream driver's lines, the Modbus register packing and the hal driver's options. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "online/drivers/driver.h"
#include "online/drivers/modbus_map.h"
#include "online/online_safety.h"
#include "online/online_stats.h"
#include "exec/spsc.h"
#include "utest.h"

UTEST(spsc_fifo_order_and_capacity)
{
    Spsc q;
    CHECK(spsc_init(&q, 3, sizeof(long)) == 0);
    long v, out;
    for (v = 1; v <= 3; v++) CHECK(spsc_push(&q, &v) == 1);
    v = 4;
    CHECK(spsc_push(&q, &v) == 0); /* full: nothing changed */
    CHECK(spsc_count(&q) == 3);
    CHECK(spsc_pop(&q, &out) == 1 && out == 1);
    CHECK(spsc_push(&q, &v) == 1); /* wraps around */
    for (long want = 2; want <= 4; want++) CHECK(spsc_pop(&q, &out) == 1 && out == want);
    CHECK(spsc_pop(&q, &out) == 0);
    spsc_free(&q);
    Spsc none;
    CHECK(spsc_init(&none, 0, 8) == -1 && none.buf == NULL);
}

typedef struct {
    Spsc *q;
    long n;
} ProdArg;

static void *producer(void *arg)
{
    ProdArg *a = arg;
    for (long i = 0; i < a->n; i++) {
        long rec[4] = {i, i * 3, i ^ 0x5a5a, -i};
        while (!spsc_push(a->q, rec)) {
        }
    }
    return NULL;
}

/* Two threads, a small ring, every record intact and in order. */
UTEST(spsc_two_threads)
{
    Spsc q;
    CHECK(spsc_init(&q, 7, 4 * sizeof(long)) == 0);
    ProdArg a = {&q, 200000};
    pthread_t th;
    pthread_create(&th, NULL, producer, &a);
    long bad = 0;
    for (long i = 0; i < a.n;) {
        long rec[4];
        if (!spsc_pop(&q, rec)) continue;
        bad += rec[0] != i || rec[1] != i * 3 || rec[2] != (i ^ 0x5a5a) || rec[3] != -i;
        i++;
    }
    pthread_join(th, NULL);
    CHECK(bad == 0);
    CHECK(spsc_count(&q) == 0);
    spsc_free(&q);
}

static const SafetyAxis two_axes[2] = {{-1, 1, 2, 10, INFINITY, 0.05},
                                       {-INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY}};

UTEST(safety_check_limits)
{
    double dt = 0.001, qp[2] = {0.5, 0}, vp[2] = {1, 0}, q[2], v[2];
    SafetyViolation s;
    q[0] = 0.501, v[0] = 1.001, q[1] = 123, v[1] = 1e6;
    CHECK(safety_check(two_axes, 2, dt, q, v, qp, vp, &s) == SAFETY_OK); /* unlimited axis 2 is not checked */
    q[0] = 1.0001;
    CHECK(safety_check(two_axes, 2, dt, q, v, qp, vp, &s) == SAFETY_POSITION && s.axis == 0 && s.limit == 1);
    q[0] = 0.501, v[0] = 2.01;
    CHECK(safety_check(two_axes, 2, dt, q, v, qp, vp, &s) == SAFETY_SPEED && s.value == 2.01);
    v[0] = 2.0; /* exactly at the limit passes */
    CHECK(safety_check(two_axes, 2, dt, q, v, qp, (double[]){1.995, 0}, &s) == SAFETY_OK);
    q[0] = 0.5021, v[0] = 1; /* a position step of 2.1 mm in 1 ms: 2.1 rad/s */
    CHECK(safety_check(two_axes, 2, dt, q, v, qp, vp, &s) == SAFETY_STEP);
    q[0] = 0.501, v[0] = 1.0102; /* speed jumps by 10.2 rad/s^2 > 10 (1 % slack) */
    CHECK(safety_check(two_axes, 2, dt, q, v, qp, vp, &s) == SAFETY_SPEED_JUMP);
    v[0] = 1.0100; /* within the slack */
    CHECK(safety_check(two_axes, 2, dt, q, v, qp, vp, &s) == SAFETY_OK);
    q[1] = NAN;
    CHECK(safety_check(two_axes, 2, dt, q, v, qp, vp, &s) == SAFETY_NONFINITE && s.axis == 1);
}

UTEST(safety_following_worst_axis)
{
    SafetyAxis ax[3] = {{-9, 9, 1, 1, INFINITY, 0.1}, {-9, 9, 1, 1, INFINITY, 0.01}, {-9, 9, 1, 1, INFINITY, 0.1}};
    double cmd[3] = {0, 0, 0}, act[3] = {0.05, 0.02, -0.15};
    SafetyViolation v;
    CHECK(safety_following(ax, 3, cmd, act, &v) == SAFETY_FOLLOWING);
    CHECK(v.axis == 1 && v.value == 0.02 && v.limit == 0.01); /* twice its limit beats 1.5 times */
    act[1] = 0.01, act[2] = 0.1;
    CHECK(safety_following(ax, 3, cmd, act, &v) == SAFETY_OK);
    act[0] = NAN;
    CHECK(safety_following(ax, 3, cmd, act, &v) == SAFETY_FOLLOWING && v.axis == 0);
}

/* Axes without a jerk limit: the ramp reaches rest together on all axes, within each acceleration limit, with no
 * jump in speed (the speed falls linearly). */
UTEST(safety_ramp_to_rest)
{
    SafetyAxis ax[3] = {{-10, 10, 5, 4, INFINITY, 1}, {-10, 10, 5, 20, INFINITY, 1},
                         {-10, 10, 5, INFINITY, INFINITY, 1}};
    double dt = 0.001, q0[3] = {0.1, -0.2, 0.3}, v0[3] = {2.0, -3.0, 0.0};
    SafetyRamp r;
    safety_ramp_begin(&r, ax, 3, dt, q0, v0, NULL);
    CHECK(r.steps == 500); /* axis 1: 2 rad/s at 4 rad/s^2 */
    double q[3], v[3], qp[3], vp[3];
    memcpy(qp, q0, sizeof qp);
    memcpy(vp, v0, sizeof vp);
    long n = 0;
    double amax_seen[3] = {0};
    while (safety_ramp_next(&r, q, v)) {
        n++;
        for (int i = 0; i < 3; i++) {
            double a = fabs(v[i] - vp[i]) / dt;
            if (a > amax_seen[i]) amax_seen[i] = a;
            CHECK_NEAR(q[i] - qp[i], 0.5 * (v[i] + vp[i]) * dt, 1e-15);
        }
        memcpy(qp, q, sizeof qp);
        memcpy(vp, v, sizeof vp);
    }
    CHECK(n == 500);
    CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0);
    CHECK(amax_seen[0] <= 4 * (1 + 1e-9));
    CHECK_REL(amax_seen[1], 6, 1e-9); /* 3 rad/s over the common 0.5 s */
    CHECK_NEAR(q[0], 0.1 + 2.0 * 0.5 / 2, 1e-12);
    CHECK_NEAR(q[1], -0.2 - 3.0 * 0.5 / 2, 1e-12);
    CHECK(safety_ramp_next(&r, q, v) == 0 && q[0] == qp[0]); /* at rest it holds */
    /* at rest already: no steps; an axis without an acceleration limit stops in SAFETY_STOP_TIME */
    safety_ramp_begin(&r, ax, 3, dt, q0, (double[]){0, 0, 0}, NULL);
    CHECK(r.steps == 0 && safety_ramp_next(&r, q, v) == 0 && q[2] == 0.3);
    safety_ramp_begin(&r, ax, 3, dt, q0, (double[]){0, 0, 1}, NULL);
    CHECK(r.steps == (long)llround(SAFETY_STOP_TIME / dt));
}

UTEST(safety_ramp_clamps_at_position_limit)
{
    SafetyAxis ax[1] = {{-1, 0.101, 5, 1, INFINITY, 1}};
    SafetyRamp r;
    double q[1], v[1];
    safety_ramp_begin(&r, ax, 1, 0.001, (double[]){0.1}, (double[]){1.0}, NULL); /* needs 0.5 rad, has 1 mrad */
    int moving = 1;
    for (int k = 0; k < 2000 && moving; k++) {
        moving = safety_ramp_next(&r, q, v);
        CHECK(q[0] <= 0.101);
    }
    CHECK(q[0] == 0.101 && v[0] == 0);
}

UTEST(stats_histogram_quantiles)
{
    static OnlineStats s; /* large: not on the stack */
    online_stats_init(&s);
    for (int i = 1; i <= 1000; i++) online_hist_add(&s.latency, (int64_t)i * 1000); /* 1 .. 1000 us */
    online_hist_add(&s.latency, 50 * 1000000LL);                                     /* 50 ms */
    CHECK(s.latency.n == 1001);
    CHECK(llabs(online_hist_quantile(&s.latency, 0.5) - 501000) <= 501000 / 256);
    CHECK(llabs(online_hist_quantile(&s.latency, 0.99) - 991000) <= 991000 / 256);
    CHECK(online_hist_quantile(&s.latency, 1.0) == 50 * 1000000LL);
    CHECK(s.latency.min == 1000);
    online_hist_add(&s.period, -5); /* a clock oddity counts as 0 */
    CHECK(s.period.min == 0 && online_hist_quantile(&s.period, 0.5) == 0);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Seeded: values spread over ns to minutes; every percentile within half a bin (1/256) of the exact one from the
 * sorted values, and values below 128 ns exactly. */
UTEST(stats_histogram_relative_error)
{
    static OnlineHist h;
    static int64_t v[20001];
    static const double ps[] = {0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0};
    uint64_t x = 12345;
    for (int round = 0; round < 3; round++) {
        online_hist_init(&h);
        int n = round == 0 ? 100 : 20001;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            /* round 0: 0..127 ns (exact); else log-uniform over 2^0 .. 2^36 ns */
            double e = (double)(x >> 11) / 9007199254740992.0;
            v[i] = round == 0 ? (int64_t)(x >> 57) : (int64_t)exp2(36.0 * e);
            online_hist_add(&h, v[i]);
        }
        qsort(v, (size_t)n, sizeof *v, cmp_i64);
        for (int k = 0; k < 7; k++) {
            uint64_t rank = (uint64_t)(ps[k] * n + 0.5);
            int64_t exact = v[(rank < 1 ? 1 : rank) - 1], got = online_hist_quantile(&h, ps[k]);
            CHECK(round == 0 ? got == exact : llabs(got - exact) <= exact / 256 + 1);
        }
    }
}

UTEST(driver_options)
{
    char v[64], err[300];
    CHECK(driver_opt("tau=2ms,zeta=0.7", "zeta", v, sizeof v) == 1 && strcmp(v, "0.7") == 0);
    CHECK(driver_opt("tau=2ms", "wn", v, sizeof v) == 0);
    static const char *const keys[] = {"tau", "zeta", NULL};
    CHECK(driver_opts_known("sim", "tau=1,zeta=2", keys, err, sizeof err) == 0);
    CHECK(driver_opts_known("sim", "tua=1", keys, err, sizeof err) == -1 && strstr(err, "unknown option 'tua'"));
    CHECK(driver_opts_known("sim", "tau", keys, err, sizeof err) == -1 && strstr(err, "needs a value"));
    double x = -1;
    CHECK(driver_opt_num("sim", "tau=2ms", "tau", 1, &x, err, sizeof err) == 0 && fabs(x - 0.002) < 1e-15);
    CHECK(driver_opt_num("sim", "tau=2xs", "tau", 1, &x, err, sizeof err) == -1);
    CHECK(driver_find("sim") && driver_find("stream") && driver_find("modbus") && !driver_find("ethercat"));
    CHECK(driver_find("sim")->check("stall=0.5", err, sizeof err) == -1); /* an axis number */
    CHECK(driver_find("stream")->check("digits=18", err, sizeof err) == -1);
    CHECK(driver_find("modbus")->check("port=70000", err, sizeof err) == -1);
}

/* First-order lag: after one cycle the actual position covers 1 - exp(-dt/tau) of a step; a fault at its time. */
UTEST(sim_driver_dynamics)
{
    const DriverType *d = driver_find("sim");
    double q0[2] = {0, 1};
    char names[2][DRIVER_NAME_LEN] = {"a.1", "a.2"};
    int lin[2] = {0, 1};
    DriverConfig cfg = {.naxes = 2, .dt = 0.001, .q0 = q0, .axis_name = (const char (*)[DRIVER_NAME_LEN])names,
                        .linear = lin, .opts = "tau=4ms,fault_at=0.01"};
    void *s;
    DriverCaps caps;
    char err[300];
    CHECK(d->open(&cfg, &s, &caps, err, sizeof err) == 0 && caps.has_feedback && !caps.has_inputs);
    CHECK(d->enable(s, err, sizeof err) == 0);
    DriverFeedback fb;
    CHECK(d->read(s, &fb) == 0 && fb.q[0] == 0 && fb.q[1] == 1);
    CHECK(d->write(s, (double[]){1, 1}, (double[]){0, 0}, 0) == 0);
    CHECK(d->read(s, &fb) == 0);
    CHECK_NEAR(fb.q[0], 1 - exp(-0.25), 1e-15);
    CHECK(fb.q[1] == 1);
    int faulted = 0;
    for (int k = 0; k < 20 && !faulted; k++) faulted = d->read(s, &fb) < 0;
    CHECK(faulted && fb.fault && strstr(d->fault(s), "fault_at"));
    d->disable(s);
    d->close(s);
}

/* The stream driver writes one line per cycle, positions separated by spaces, exact with 17 digits. */
UTEST(stream_driver_lines)
{
    char path[] = "/tmp/irl-test-stream-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char opts[200];
    snprintf(opts, sizeof opts, "out=%s", path);
    const DriverType *d = driver_find("stream");
    double q0[2] = {0, 0};
    char names[2][DRIVER_NAME_LEN] = {"a.1", "a.2"};
    int lin[2] = {0, 1};
    DriverConfig cfg = {.naxes = 2, .dt = 0.001, .q0 = q0, .axis_name = (const char (*)[DRIVER_NAME_LEN])names,
                        .linear = lin, .opts = opts};
    void *s;
    DriverCaps caps;
    char err[300];
    CHECK(d->open(&cfg, &s, &caps, err, sizeof err) == 0 && !caps.has_feedback && !caps.uses_stdout);
    double a[2] = {0.1, -2.5e-7}, b[2] = {M_PI, 1e300};
    CHECK(d->write(s, a, q0, 0) == 0 && d->write(s, b, q0, 0) == 0);
    d->close(s);
    FILE *f = fopen(path, "r");
    double x[4];
    int n = f ? fscanf(f, "%lf %lf\n%lf %lf", &x[0], &x[1], &x[2], &x[3]) : 0;
    if (f) fclose(f);
    CHECK(n == 4 && x[0] == a[0] && x[1] == a[1] && x[2] == b[0] && x[3] == b[1]);
    snprintf(opts, sizeof opts, "out=%s,units=linuxcnc,digits=6", path);
    CHECK(d->open(&cfg, &s, &caps, err, sizeof err) == 0);
    CHECK(d->write(s, (double[]){M_PI, 0.25}, q0, 0) == 0);
    d->close(s);
    char line[100] = "";
    f = fopen(path, "r");
    if (f && !fgets(line, sizeof line, f)) line[0] = '\0';
    if (f) fclose(f);
    CHECK(strcmp(line, "180 250\n") == 0); /* degrees, millimetres */
    unlink(path);
}

UTEST(modbus_map_packing)
{
    uint16_t r[4] = {0, 0, 0, 0};
    CHECK(modbus_map_put(r, -3.14159265) == 0);
    CHECK(modbus_map_get(r) == -3.141593); /* whole micro-units */
    CHECK(modbus_map_put(r, 2147.483647) == 0 && r[0] == 0x7fff && r[1] == 0xffff);
    CHECK(modbus_map_put(r, 2147.5) == -1);
    CHECK(modbus_map_put(r, NAN) == -1);
    modbus_map_put_bits(r, 0x8000000000000002ULL);
    CHECK(r[0] == 2 && r[3] == 0x8000 && modbus_map_get_bits(r) == 0x8000000000000002ULL);
    CHECK(modbus_map_wcount(MODBUS_MAP_MAX_AXES) <= 121 && modbus_map_rcount(MODBUS_MAP_MAX_AXES) <= 125);
}

/* The hal driver's options (a build without LinuxCNC's HAL refuses every use, saying so). */
UTEST(hal_driver_options)
{
    const DriverType *d = driver_find("hal");
    char err[300];
    CHECK(d != NULL);
    if (d->check("", err, sizeof err) < 0) {
        CHECK(strstr(err, "built without LinuxCNC's HAL (install linuxcnc-uspace-dev and rebuild)") != NULL);
        return;
    }
    CHECK(d->pace != NULL);
    CHECK(d->check("channel=7,name=cell-2,units=linuxcnc,dio=64,low=5,high=9,wait=2s,stall=50ms,feedback=no", err,
                   sizeof err) == 0);
    CHECK(d->check("channel=8", err, sizeof err) < 0 && strstr(err, "channel must be 0..7"));
    CHECK(d->check("low=9,high=9", err, sizeof err) < 0 && strstr(err, "low < high"));
    CHECK(d->check("name=a.b", err, sizeof err) < 0 && strstr(err, "name"));
    CHECK(d->check("units=inch", err, sizeof err) < 0 && strstr(err, "units=inch"));
    CHECK(d->check("feedback=maybe", err, sizeof err) < 0 && strstr(err, "yes or no"));
    CHECK(d->check("depth=9", err, sizeof err) < 0 && strstr(err, "unknown option 'depth'"));
}

int main(void)
{
    RUN(spsc_fifo_order_and_capacity);
    RUN(spsc_two_threads);
    RUN(safety_check_limits);
    RUN(safety_following_worst_axis);
    RUN(safety_ramp_to_rest);
    RUN(safety_ramp_clamps_at_position_limit);
    RUN(stats_histogram_quantiles);
    RUN(stats_histogram_relative_error);
    RUN(driver_options);
    RUN(sim_driver_dynamics);
    RUN(stream_driver_lines);
    RUN(modbus_map_packing);
    RUN(hal_driver_options);
    return utest_done();
}
