/* exec_online.c — the online executor (exec_online.h): the dry-run's executor as the producer of setpoints, a
 * real-time thread as their consumer, and what joins them: the wrapped cycle callback, the input and output
 * hooks, the end of the stream, the stop as a run-time error, and online.json. */
#include "online/exec_online.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "online/drivers/driver.h"
#include "errcodes.h"
#include "exec/exec_offline.h"
#include "online/online_approach.h"
#include "online/online_log.h"
#include "online/online_print.h"
#include "online/online_safety.h"
#include "output/display.h"
#include "output/report.h"
#include "online/rt_loop.h"
#include "osal.h"
#include "exec/spsc.h"

enum { EX_OK = 0, EX_RUNTIME = 1, EX_ENABLED = 3, EX_USAGE = 64 }; /* 3: the disable not confirmed (RUNNING.md) */

#define ONLINE_LOG_RING 4096   /* log rows buffered between the cycle and online.csv (4 s at 1 ms) */
#define ONLINE_PLANNER_NICE -10 /* the planner thread's nice value under a SCHED_FIFO cycle thread, when permitted */
#define ONLINE_CLOCK_PROBES 16  /* back-to-back clock reads that measure what reading the clocks adds to a cycle */
#define ONLINE_MARGIN_S 0.1     /* the planner thread keeps at least this much queued (or the whole queue) */

typedef struct {
    ExecOffline ex;                  /* the producer: the very same executor as the dry-run */
    RunOptions opt;                  /* the caller's, with the progress bar off */
    Vm *vm;
    const DriverType *drv;
    char drv_name[32];
    const char *drv_opts;
    void *drv_state;
    DriverCaps caps;
    int naxes;
    char axis_name[DRIVER_MAX_AXES][DRIVER_NAME_LEN];
    int linear[DRIVER_MAX_AXES];
    SafetyAxis axes[DRIVER_MAX_AXES];
    double q0[DRIVER_MAX_AXES];      /* the program's start */
    double q_enable[DRIVER_MAX_AXES]; /* where the driver enables the axes: q0, or where they stand (approach) */
    double q_actual[DRIVER_MAX_AXES]; /* where the driver found them before the enable (DriverType.actual) */
    int approaching;                 /* an approach from q_actual to q0 runs before the program */
    int enabled;                     /* the driver enabled the axes */
    OnlineApproach ap;
    OnlineHist compute;              /* the planner thread's CPU time per program cycle (online_stats.h) */
    OnlineHist compute_wall;         /* its wall time per program cycle: with preemption and steal */
    int64_t timing_overhead;         /* CPU time the clock reads themselves add to a sample, ns (subtracted) */
    Spsc queue, log;
    size_t queue_low;                /* once full, the queue is refilled when down to this (push_setpoint) */
    OnlineLog lg;
    OnlinePrint pr;                  /* PRINT output held until the axes reach it */
    FILE *out;                       /* where it goes then */
    RtLoop rt;
    OsalSignals sig;
    int signals_blocked;
    int mlocked;
    char mlock_note[200];
    int boosted, old_nice;           /* the planner thread runs at ONLINE_PLANNER_NICE (SCHED_FIFO cycle thread) */
    int planner_nice;                /* the nice value it ran at */
    int vm_done, producer_done;
    long pushed;                     /* setpoints pushed */
    long after_stop;                 /* motion-door calls answered with the stop error */
    char stop_text[400];
} Online;

/* ---- Set-up. --------------------------------------------------------------------------------------------- */

/* The flat axis table over all devices: names, limits, start positions, following-error limits. 0, or an exit
 * status after a message in err. */
static int setup_axes(Online *on, char *err, size_t errlen)
{
    const SampleLayout *lay = &on->ex.lay;
    double ferr[DRIVER_MAX_AXES];
    int nferr = 0;
    for (const char *p = on->opt.following_error; p && *p && nferr < DRIVER_MAX_AXES;) {
        char *end;
        ferr[nferr++] = strtod(p, &end);
        p = *end == ',' ? end + 1 : end;
    }
    for (int d = 0; d < lay->ndev; d++)
        for (int i = 0; i < lay->dev[d].naxes; i++) {
            if (on->naxes >= DRIVER_MAX_AXES)
                return snprintf(err, errlen, "--online drives at most %d axes over all devices", DRIVER_MAX_AXES),
                       EX_USAGE;
            int k = on->naxes++;
            const ModelJoint *j = &lay->dev[d].desc->joint[i];
            snprintf(on->axis_name[k], DRIVER_NAME_LEN, "%s.%d", lay->dev[d].name, i + 1);
            on->linear[k] = j->type == MODEL_PRISMATIC;
            on->axes[k] = (SafetyAxis){.min = j->limits.min, .max = j->limits.max, .vmax = j->limits.vmax,
                                       .amax = j->limits.amax, .jmax = j->limits.jmax,
                                       .ferr = j->limits.vmax * RUN_FERR_TIME};
            on->q0[k] = on->ex.s.dev[d].q[i];
        }
    if (nferr && nferr != 1 && nferr != on->naxes)
        return snprintf(err, errlen, "--following-error gives %d values; the program has %d axes (give one or %d)",
                        nferr, on->naxes, on->naxes), EX_USAGE;
    for (int k = 0; k < nferr && k < on->naxes; k++)
        if (!(ferr[k] > 0)) return snprintf(err, errlen, "--following-error: limits must be > 0"), EX_USAGE;
    for (int k = 0; nferr && k < on->naxes; k++) on->axes[k].ferr = ferr[nferr == 1 ? 0 : k];
    return 0;
}

/* How axis k shows derivative `order` (0 position, 1 speed, 2 acceleration) in messages: SI, or degrees
 * (--display, output/display.h). */
static DisplayUnit axis_du(const Online *on, int k, int order)
{
    return display_axis(on->linear[k], order, !on->opt.display_si);
}

/* The axes standing further than their following-error limit from the program's start, as one line into b
 * ("axis arm.1 stands 5.72958 deg from the program's start (at .., the start ..)"; ...). The count of such axes. */
static int away_text(const Online *on, const double *q, char *b, size_t n)
{
    int away = 0;
    b[0] = '\0';
    for (int k = 0; k < on->naxes; k++) {
        double d = on->q0[k] - q[k];
        if (fabs(d) <= on->axes[k].ferr) continue;
        size_t len = strlen(b);
        DisplayUnit du = axis_du(on, k, 0);
        const char *u = du.unit;
        snprintf(b + len, n - len, "%saxis %s stands %.6g %s from the program's start (at %.6g %s, the start %.6g %s; "
                 "following-error limit %.3g %s)", away++ ? "; " : "", on->axis_name[k], du.k * fabs(d), u, du.k * q[k],
                 u, du.k * on->q0[k], u, du.k * on->axes[k].ferr, u);
    }
    return away;
}

/* With --approach, after DriverType.actual: plan the approach from where the axes stand (enabled there).
 * 0, or -1 with a message in err. */
static int plan_approach(Online *on, char *err, size_t errlen)
{
    int need = 0;
    for (int k = 0; k < on->naxes; k++) {
        DisplayUnit du = axis_du(on, k, 0);
        if (!(on->q_actual[k] >= on->axes[k].min && on->q_actual[k] <= on->axes[k].max))
            return snprintf(err, errlen, "axis %s stands at %.6g %s, beyond its limits [%.6g, %.6g] %s: --approach "
                            "moves only from within them", on->axis_name[k], du.k * on->q_actual[k], du.unit,
                            du.k * on->axes[k].min, du.k * on->axes[k].max, du.unit), -1;
        need |= fabs(on->q_actual[k] - on->q0[k]) > ONLINE_APPROACH_MIN;
    }
    if (!need) return 0;
    Model *models[SAMPLE_MAX_DEVICES];
    int dof[SAMPLE_MAX_DEVICES];
    for (int d = 0; d < on->ex.lay.ndev; d++) models[d] = &on->ex.devs.dev[d].model, dof[d] = on->ex.lay.dev[d].naxes;
    if (online_approach_plan(&on->ap, models, dof, on->ex.lay.ndev, on->q_actual, on->q0, on->opt.cycle, err,
                             errlen) < 0)
        return -1;
    on->approaching = on->ap.steps > 0;
    if (on->approaching) memcpy(on->q_enable, on->q_actual, sizeof on->q_enable);
    return 0;
}

/* Open and enable the driver; the start position must be within the limits, and the axes must stand there (or,
 * with --approach, within the limits, and be moved there first). 0, or -1 with a message in err. */
static int setup_driver(Online *on, char *err, size_t errlen)
{
    SafetyViolation v;
    double zero[DRIVER_MAX_AXES] = {0};
    char away[1000];
    if (safety_check(on->axes, on->naxes, on->opt.cycle, on->q0, zero, on->q0, zero, &v) != SAFETY_OK) {
        DisplayUnit du = axis_du(on, v.axis, 0);
        return snprintf(err, errlen, "the start position of axis %s (%.6g %s) is beyond its limits [%.6g, %.6g] %s",
                        on->axis_name[v.axis], du.k * on->q0[v.axis], du.unit, du.k * on->axes[v.axis].min,
                        du.k * on->axes[v.axis].max, du.unit), -1;
    }
    memcpy(on->q_enable, on->q0, sizeof on->q_enable);
    DriverConfig cfg = {.naxes = on->naxes, .dt = on->opt.cycle, .q0 = on->q_enable,
                        .axis_name = (const char (*)[DRIVER_NAME_LEN])on->axis_name, .linear = on->linear,
                        .opts = on->drv_opts, .regmap = on->opt.regmap};
    if (on->drv->open(&cfg, &on->drv_state, &on->caps, err, errlen) < 0) return -1;
    if (on->caps.confirms == DRIVER_CONFIRMS_TAKEN) online_log_confirm_later(&on->lg, on->drv->taken, on->drv_state);
    if (on->opt.approach && !on->caps.has_feedback)
        return snprintf(err, errlen, "--approach: the %s driver reports no actual positions: nothing to approach "
                        "from", on->drv_name), -1;
    if (on->opt.approach && !on->drv->actual) /* its enable would hold the axes at the start, wherever they stand */
        return snprintf(err, errlen, "--approach: the %s driver cannot tell where the axes stand before it enables "
                        "them (docs/ONLINE-DRIVERS.md): nothing was enabled", on->drv_name), -1;
    if (on->drv->actual) {
        if (on->drv->actual(on->drv_state, on->q_actual, err, errlen) < 0) return -1;
        if (!on->opt.approach && away_text(on, on->q_actual, away, sizeof away))
            return snprintf(err, errlen, "%.420s: give --approach to move there first (at %.0f %% of the speed, "
                            "acceleration and jerk limits), or --start", away, 100 * ONLINE_APPROACH_OVERRIDE), -1;
        if (on->opt.approach && plan_approach(on, err, errlen) < 0) return -1;
    }
    if (on->drv->enable(on->drv_state, err, errlen) < 0) return -1;
    on->enabled = 1; /* from here a refusal disables the axes again (start) */
    if (!on->caps.has_feedback) return 0;
    DriverFeedback fb;
    memset(&fb, 0, sizeof fb);
    if (on->drv->read(on->drv_state, &fb) < 0)
        return snprintf(err, errlen, "%s", on->drv->fault(on->drv_state)), -1;
    for (int k = 0; k < on->naxes; k++)
        if (!(fabs(fb.q[k] - on->q_enable[k]) <= on->axes[k].ferr)) {
            DisplayUnit du = axis_du(on, k, 0);
            if (on->drv->actual || !away_text(on, fb.q, away, sizeof away)) /* moved since actual() */
                return snprintf(err, errlen, "axis %s stands at %.6g %s once enabled, %.6g %s from where it was "
                                "enabled", on->axis_name[k], du.k * fb.q[k], du.unit,
                                du.k * (fb.q[k] - on->q_enable[k]), du.unit), -1;
            return snprintf(err, errlen, "%.420s: move them there first (--approach), or give --start", away), -1;
        }
    return 0;
}

/* ---- The producer side. ---------------------------------------------------------------------------------- */

/* The stop cause as one line (also the run-time error's message). */
static const char *stop_text(Online *on)
{
    if (on->stop_text[0]) return on->stop_text;
    const RtStop *s = &on->rt.stop;
    char *b = on->stop_text;
    size_t n = sizeof on->stop_text;
    int ax = s->v.axis >= 0 && s->v.axis < on->naxes ? s->v.axis : 0;
    char when[120]; /* program time, or how far into the approach */
    if (s->approach) snprintf(when, sizeof when, "%.3f s into the approach to the program's start",
                              (double)s->approach * on->opt.cycle);
    else snprintf(when, sizeof when, "t = %.3f s", s->t);
    switch (s->cause) {
    case RT_STOP_SIGNAL:
        snprintf(b, n, "E-stop (%s) at %s", s->signo == SIGINT ? "SIGINT" : s->signo == SIGTERM ? "SIGTERM"
                 : "signal", when);
        break;
    case RT_STOP_FAULT:
        snprintf(b, n, "driver fault: %s%s%s", s->fault[0] ? s->fault : "(no text)", s->approach ? ", " : "",
                 s->approach ? when : "");
        break;
    case RT_STOP_FOLLOWING: {
        DisplayUnit du = axis_du(on, ax, 0);
        snprintf(b, n, "following error: axis %s off by %.4g %s (limit %.4g %s) at %s", on->axis_name[ax],
                 du.k * s->v.value, du.unit, du.k * s->v.limit, du.unit, when);
        break;
    }
    case RT_STOP_LIMIT: {
        DisplayUnit du = axis_du(on, ax, s->v.kind == SAFETY_POSITION ? 0 : s->v.kind == SAFETY_SPEED_JUMP ? 2 : 1);
        snprintf(b, n, "limit: axis %s %s %.6g %s beyond %.6g %s, refused after %s", on->axis_name[ax],
                 safety_kind_name(s->v.kind), du.k * s->v.value, du.unit, du.k * s->v.limit, du.unit, when);
        break;
    }
    case RT_STOP_WATCHDOG:
        if (s->moving) snprintf(b, n, "watchdog: the setpoint queue ran dry while moving at %s", when);
        else snprintf(b, n, "watchdog: no setpoint for %.3g s at rest (%s)", s->starve, when);
        break;
    case RT_STOP_TIMING:
        snprintf(b, n, "timing: %ld deadlines missed in %ld cycles (%ld overruns), beyond the budget of %.0f "
                 "(--max-missed, refilled at %.0f %% of the cycles) at %s", on->rt.stats.missed, on->rt.stats.cycles,
                 on->rt.stats.overruns, (double)on->opt.max_missed, 100 * RT_MISS_REFILL, when);
        break;
    case RT_STOP_NONE: snprintf(b, n, "stopped"); break;
    }
    return on->stop_text;
}

/* The run-time error of a stop, for the motion door. A program whose ON ERROR handler keeps asking for time after
 * the stop (RETRY) gets the error again each time, one cycle apart, and a hint once. */
static int stop_error(Online *on, char *msg, size_t msglen)
{
    snprintf(msg, msglen, "online stop: %s; report and trace incomplete", stop_text(on));
    if (rt_loop_end_requested(&on->rt)) return -IRL_ERR_DEVICE; /* past any handler: the program ends */
    if (++on->after_stop > 1) osal_sleep((int64_t)(on->opt.cycle * 1e9));
    if (on->after_stop == 1000)
        fprintf(stderr, "irl: the program keeps running after the online stop (its ON ERROR handler retries); "
                "SIGINT ends it\n");
    return IRL_ERR_DEVICE;
}

/* Wait while the queue holds more than low setpoints: the log drained and PRINT output released meanwhile. 0, or
 * -1 when the real-time side has stopped. */
static int wait_queue(Online *on, size_t low)
{
    int64_t nap = (int64_t)(on->opt.cycle * 0.5e9);
    while (spsc_count(&on->queue) > low) {
        if (rt_loop_cause(&on->rt) != RT_STOP_NONE || rt_loop_state(&on->rt) == RT_DONE) return -1;
        online_log_drain(&on->lg, &on->log, 0);
        online_print_release(&on->pr, rt_loop_written_cycle(&on->rt));
        osal_sleep(nap);
    }
    return 0;
}

/* Push this cycle's sample (positions, speeds, outputs). Once the queue is full, wait until it is down to its
 * low-water mark (queue_low): the cycles are then computed in runs, back to back, on warm caches (one cycle per
 * wake-up ran 2-3 times slower on a busy machine, docs/RUNNING.md). 0, or -1 when the real-time side has
 * stopped. */
static int push_setpoint(Online *on)
{
    RtSetpoint sp;
    const Sample *s = &on->ex.s;
    sp.cycle = s->cycle;
    sp.t = s->t;
    sp.approach = 0;
    sp.dout = devices_io_outputs(&on->ex.devs);
    int k = 0;
    for (int d = 0; d < on->ex.lay.ndev; d++)
        for (int i = 0; i < on->ex.lay.dev[d].naxes; i++, k++) sp.q[k] = s->dev[d].q[i], sp.qd[k] = s->dev[d].qd[i];
    for (; k < DRIVER_MAX_AXES; k++) sp.q[k] = sp.qd[k] = 0;
    if ((++on->pushed & 31) == 0) online_log_drain(&on->lg, &on->log, 0);
    online_print_release(&on->pr, rt_loop_written_cycle(&on->rt));
    while (!spsc_push(&on->queue, &sp))
        if (wait_queue(on, on->queue_low) < 0) return -1;
    return 0;
}

/* The approach to the start (online_approach.h): its setpoints into the queue, waiting while it is full, then the
 * program's first. 0, or -1 when the real-time side has stopped. */
static int run_approach(Online *on)
{
    char text[1500] = "";
    for (int k = 0; k < on->naxes; k++) {
        size_t len = strlen(text);
        DisplayUnit du = axis_du(on, k, 0);
        snprintf(text + len, sizeof text - len, "%s%s %+.6g %s", k ? ", " : "", on->axis_name[k],
                 du.k * (on->q0[k] - on->q_actual[k]), du.unit);
    }
    fprintf(stderr, "irl: approach to the program's start at %.0f %% of the speed, acceleration and jerk limits, "
            "%.3f s: %s\n", 100 * ONLINE_APPROACH_OVERRIDE, (double)on->ap.steps * on->opt.cycle, text);
    RtSetpoint sp = {.cycle = -1, .t = 0, .approach = 1, .dout = devices_io_outputs(&on->ex.devs)};
    while (online_approach_next(&on->ap, sp.q, sp.qd))
        while (!spsc_push(&on->queue, &sp))
            if (wait_queue(on, on->queue_low) < 0) return -1;
    return push_setpoint(on);
}

/* The end of the stream: tell the real-time side, wait until it is done (the log drained meanwhile). 1 when it
 * stopped for a cause, 0 when it ran to the end. Called again, it only answers. */
static int finish_stream(Online *on)
{
    if (!on->producer_done) {
        rt_loop_producer_done(&on->rt);
        on->producer_done = 1;
    }
    while (rt_loop_state(&on->rt) != RT_DONE) {
        online_log_drain(&on->lg, &on->log, 0);
        online_print_release(&on->pr, rt_loop_written_cycle(&on->rt));
        osal_sleep(1000000);
    }
    online_print_release(&on->pr, rt_loop_written_cycle(&on->rt));
    online_log_drain(&on->lg, &on->log, 0);
    return rt_loop_cause(&on->rt) != RT_STOP_NONE;
}

/* Motions pushed into and retired from every device's queues so far (planner segments and GMOVEs). */
static void motion_marks(const Online *on, long *pushed, long *retired)
{
    *pushed = *retired = 0;
    for (int d = 0; d < on->ex.lay.ndev; d++) {
        const MotionDevice *md = &on->ex.motion.dev[d];
        *pushed += (long)atomic_load(&md->planner.head) + md->gm.head;
        *retired += (long)atomic_load(&md->planner.tail) + md->gm.tail;
    }
}

/* The motions pushed so far: the mark of what the program prints now (online_print.h). */
static long print_mark_now(void *ctx)
{
    long pushed, retired;
    motion_marks(ctx, &pushed, &retired);
    return pushed;
}

/* PRINT output whose motions have run reaches this cycle (online_print.h). */
static void print_mark(Online *on)
{
    long pushed, retired;
    motion_marks(on, &pushed, &retired);
    online_print_reach(&on->pr, retired, on->ex.s.cycle, on->ex.s.t);
}

/* The motion door's cycle online: the dry-run's cycle, then the driver's inputs, then the setpoint to the queue. */
static int online_cycle(void *ctx, char *msg, size_t msglen)
{
    Online *on = ctx;
    print_mark(on);
    if (rt_loop_cause(&on->rt) != RT_STOP_NONE) return stop_error(on, msg, msglen);
    int64_t c0 = osal_thread_cpu(), w0 = osal_now();
    int rc = exec_offline_cycle(&on->ex, msg, msglen);
    int64_t w1 = osal_now(), c1 = osal_thread_cpu();
    online_hist_add(&on->compute, c1 - c0 - on->timing_overhead);
    online_hist_add(&on->compute_wall, w1 - w0);
    print_mark(on);
    if (on->caps.has_inputs) devices_io_set_inputs(&on->ex.devs, rt_loop_inputs(&on->rt));
    if (push_setpoint(on) < 0) return stop_error(on, msg, msglen);
    if (rc) return rc;
    /* the program has ended and this was the last cycle its motion needed: wait for the axes */
    if (on->vm_done && motion_pending(&on->ex.motion) == 0 && finish_stream(on)) return stop_error(on, msg, msglen);
    return 0;
}

/* ---- Outputs. -------------------------------------------------------------------------------------------- */

/* The VM's error fields as if the program had raised msg (so the report carries it). */
static void set_vm_error(Online *on, const char *msg)
{
    on->vm->err_code = IRL_ERR_DEVICE;
    on->vm->err_pc = -1;
    snprintf(on->vm->err_msg, sizeof on->vm->err_msg, "%.255s", msg);
    fprintf(stderr, "%s:0:0: runtime error: %s (ERR_DEVICE)\n", on->ex.program, msg);
}

static const char *cause_name(RtStopCause c)
{
    static const char *const names[] = {"none", "signal", "driver_fault", "following_error", "limit", "watchdog",
                                        "timing"};
    return (unsigned)c < sizeof names / sizeof *names ? names[c] : "?";
}

/* The start of online.json: program, driver, options and the run's status ("not_started", "running",
 * "complete", "stopped"). The file, or NULL after a message in err. */
static FILE *json_open(Online *on, const char *path, const char *status, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) return snprintf(err, errlen, "cannot create %.500s", path), NULL;
    fputs("{\n  \"program\": ", f);
    report_json_string(f, on->ex.program);
    fputs(",\n  \"driver\": ", f);
    report_json_string(f, on->drv_name);
    fputs(",\n  \"driver_options\": ", f);
    report_json_string(f, on->drv_opts);
    fprintf(f, ",\n  \"status\": \"%s\"", status);
    return f;
}

/* Close online.json. 0, or -1 with a message in err. */
static int json_close(FILE *f, const char *path, char *err, size_t errlen)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return snprintf(err, errlen, "%.500s: write failed", path), -1;
    return 0;
}

/* online.json before the axes move ("running": it replaces the file of an earlier run at once) or when they never
 * did ("not_started", with the reason): no cycle statistics. Nothing with --out-temp; a failure is a warning. */
static void write_json_early(Online *on, const char *status, const char *reason)
{
    if (on->opt.out_temp || !on->ex.out_dir[0]) return; /* no output folder (yet) */
    char path[4300], err[600];
    snprintf(path, sizeof path, "%s/online.json", on->ex.out_dir);
    FILE *f = json_open(on, path, status, err, sizeof err);
    if (f) {
        fputs(",\n  \"reason\": ", f);
        if (reason) report_json_string(f, reason);
        else fputs("null", f);
        fputs(",\n  \"complete\": false,\n  \"stop\": null\n}\n", f);
    }
    if (!f || json_close(f, path, err, sizeof err) < 0) fprintf(stderr, "irl: warning: %s\n", err);
}

/* online.json at the end: driver, status, stop, axes, cycle statistics. */
static int write_json(Online *on, const char *path, char *err, size_t errlen)
{
    RtLoop *rt = &on->rt;
    RtStopCause c = rt_loop_cause(rt);
    FILE *f = json_open(on, path, c == RT_STOP_NONE ? "complete" : "stopped", err, errlen);
    if (!f) return -1;
    fprintf(f, ",\n  \"complete\": %s,\n  \"stop\": ", c == RT_STOP_NONE ? "true" : "false");
    if (c == RT_STOP_NONE) {
        fputs("null", f);
    } else {
        fprintf(f, "{\"cause\": \"%s\", \"message\": ", cause_name(c));
        report_json_string(f, stop_text(on));
        fprintf(f, ", \"t\": %.9g, \"cycle\": %ld, \"moving\": %s}", rt->stop.t, rt->stop.cycle,
                rt->stop.moving ? "true" : "false");
    }
    fputs(",\n  \"approach\": ", f);
    if (on->approaching)
        online_approach_json(f, &on->ap, (const char (*)[DRIVER_NAME_LEN])on->axis_name, on->linear,
                             rt->stats.approach, rt->stats.approach == on->ap.steps);
    else fputs("null", f);
    fprintf(f, ",\n  \"ended_moving\": %s,\n", rt->ended_moving ? "true" : "false");
    fprintf(f, "  \"stop_cut_short\": %s,\n  \"disabled_confirmed\": %s,\n", rt->aborted ? "true" : "false",
            rt->disable_confirmed < 0 ? "null" : rt->disable_confirmed ? "true" : "false");
    fputs("  \"disable_unconfirmed\": ", f); /* the axes that did not confirm it, when the driver tells */
    if (!rt->disable_unconfirmed) fputs("null", f);
    for (int k = 0, n = 0; k < on->naxes && rt->disable_unconfirmed; k++)
        if (rt->disable_unconfirmed >> k & 1) fputs(n++ ? ", " : "[", f), report_json_string(f, on->axis_name[k]);
    fputs(rt->disable_unconfirmed ? "],\n" : ",\n", f);
    fprintf(f, "  \"max_missed\": %d,\n", on->opt.max_missed);
    fprintf(f, "  \"last_cycle_written\": %ld,\n  \"last_t_written\": %.9g,\n  \"setpoints_produced\": %ld,\n",
            rt->last_cycle, rt->last_t, on->pushed);
    fprintf(f, "  \"queue\": %d,\n  \"input_latency_max_s\": %.9g,\n", on->opt.queue,
            (on->opt.queue + 1) * on->opt.cycle);
    fprintf(f, "  \"sched_fifo\": %s,\n  \"rt_priority\": %d,\n  \"sched_note\": ", rt->fifo ? "true" : "false",
            rt->fifo ? on->opt.rt_priority : 0);
    report_json_string(f, rt->sched_note);
    fprintf(f, ",\n  \"planner_nice\": %d,\n  \"rt_nice\": ", on->planner_nice);
    if (rt->fifo) fputs("null,\n", f);
    else fprintf(f, "%d,\n", rt->nice);
    fprintf(f, "  \"memory_locked\": %s,\n  \"mlock_note\": ", on->mlocked ? "true" : "false");
    report_json_string(f, on->mlock_note);
    fprintf(f, ",\n  \"watchdog_s\": %.9g,\n  \"axes\": [", on->opt.watchdog);
    for (int k = 0; k < on->naxes; k++) {
        fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
        report_json_string(f, on->axis_name[k]);
        fprintf(f, ", \"following_error_limit\": ");
        if (isfinite(on->axes[k].ferr)) fprintf(f, "%.9g}", on->axes[k].ferr);
        else fputs("null}", f);
    }
    fputs("\n  ],\n", f);
    online_stats_json(f, &rt->stats, &on->compute, &on->compute_wall, on->opt.cycle);
    fputs("}\n", f);
    return json_close(f, path, err, errlen);
}

/* ---- The run. -------------------------------------------------------------------------------------------- */

/* Stop the threads, close the driver and the log. */
static void teardown(Online *on)
{
    rt_loop_join(&on->rt);
    if (on->signals_blocked) osal_signals_restore(&on->sig);
    on->signals_blocked = 0;
    online_log_drain(&on->lg, &on->log, 1);
    char err[200];
    if (online_log_close(&on->lg, err, sizeof err) < 0) fprintf(stderr, "irl: %s\n", err);
    if (on->drv_state) on->drv->close(on->drv_state);
    on->drv_state = NULL;
    if (on->mlocked) osal_unlock_memory();
    if (on->boosted) osal_unboost(on->old_nice);
    on->boosted = 0;
    spsc_free(&on->queue);
    spsc_free(&on->log);
    online_approach_free(&on->ap);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* What reading the CPU clock and the wall clock around a cycle adds to its CPU time (online_cycle): the median of
 * a few empty measurements, ns. */
static int64_t timing_overhead(void)
{
    int64_t d[ONLINE_CLOCK_PROBES];
    for (int i = 0; i < ONLINE_CLOCK_PROBES; i++) {
        int64_t c0 = osal_thread_cpu(), w0 = osal_now(), w1 = osal_now(), c1 = osal_thread_cpu();
        (void)w0, (void)w1;
        d[i] = c1 - c0;
    }
    qsort(d, ONLINE_CLOCK_PROBES, sizeof *d, cmp_i64);
    return d[ONLINE_CLOCK_PROBES / 2];
}

/* Everything from the enabled driver to the real-time thread running. 0, or -1 with a message in err. */
static int start(Online *on, char *err, size_t errlen)
{
    if (spsc_init(&on->queue, (size_t)on->opt.queue, sizeof(RtSetpoint)) < 0 ||
        spsc_init(&on->log, ONLINE_LOG_RING, sizeof(RtLogRow)) < 0)
        return snprintf(err, errlen, "out of memory"), -1;
    /* half the queue, but never below ONLINE_MARGIN_S of setpoints, which ride over a stall of the planner thread
       (a queue shorter than that stays full) */
    size_t cap = on->queue.cap, margin = (size_t)ceil(ONLINE_MARGIN_S / on->opt.cycle);
    on->queue_low = cap / 2 > margin ? cap / 2 : margin < cap ? margin : cap - 1;
    if (!on->opt.out_temp) {
        char path[4300];
        snprintf(path, sizeof path, "%s/online.csv", on->ex.out_dir);
        if (online_log_open(&on->lg, path, on->naxes, (const char (*)[DRIVER_NAME_LEN])on->axis_name, err,
                            errlen) < 0)
            return -1;
    }
    /* locked before the drives are enabled: locking faults every page in, which takes a while */
    on->mlocked = osal_lock_memory(on->mlock_note, sizeof on->mlock_note);
    if (setup_driver(on, err, errlen) < 0) return -1;
    if (!on->approaching && push_setpoint(on) < 0) return snprintf(err, errlen, "the setpoint queue is too small"), -1;
    osal_signals_block(&on->sig);
    on->signals_blocked = 1;
    RtConfig rc = {.dt = on->opt.cycle, .naxes = on->naxes, .axes = on->axes, .watchdog = on->opt.watchdog,
                   .drv = on->drv, .drv_state = on->drv_state, .caps = on->caps, .q0 = on->q_enable,
                   .queue = &on->queue, .log = &on->log, .prio = on->opt.rt_priority,
                   .miss_budget = on->opt.max_missed};
    if (rt_loop_start(&on->rt, &rc, err, errlen) < 0) return -1;
    /* the cycle thread must outrank the planner thread: under the normal policy it takes the raised nice value
       itself (rt_loop.c) and the planner thread keeps its own */
    on->boosted = on->rt.fifo && osal_boost(ONLINE_PLANNER_NICE, &on->old_nice) == 0;
    if (!on->boosted) on->old_nice = osal_nice();
    on->planner_nice = on->boosted ? ONLINE_PLANNER_NICE : on->old_nice;
    on->timing_overhead = timing_overhead();
    if (on->rt.sched_note[0]) fprintf(stderr, "irl: warning: %s\n", on->rt.sched_note);
    if (!on->mlocked && strstr(on->mlock_note, "sanitizer") == NULL)
        fprintf(stderr, "irl: warning: memory not locked (%s)\n", on->mlock_note);
    return 0;
}

/* The driver's name and options from spec "NAME[:options]", found and checked. 0, or an exit status after a
 * message. */
static int pick_driver(const char *spec, const DriverType **drv, char *name, size_t namelen, const char **opts)
{
    const char *colon = strchr(spec, ':');
    snprintf(name, namelen, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
    *opts = colon ? colon + 1 : "";
    *drv = driver_find(name);
    if (!*drv)
        return fprintf(stderr, "irl: --driver %s: no such driver (drivers: %s)\n", name, driver_names()), EX_USAGE;
    char err[300];
    if ((*drv)->check(*opts, err, sizeof err) < 0) return fprintf(stderr, "irl: %s\n", err), EX_USAGE;
    return 0;
}

/* Usage errors that need no program. 0, or an exit status after a message. */
static int check_options(const RunOptions *o)
{
    if (!o->driver)
        return fprintf(stderr, "irl: --online needs --driver NAME[:options] (drivers: %s)\n", driver_names()), EX_USAGE;
    if (o->closed_loop)
        return fprintf(stderr, "irl: --closed-loop is a dry-run mode; it does not combine with --online\n"), EX_USAGE;
    return 0;
}

/* After the driver's disable: confirmed 1, 0 not (mask: the axes that did not, 0 unknown), -1 the driver cannot tell.
 * Not confirmed is an error whatever else the run did: an axis may still be enabled. 1 then, after the message. */
static int disable_unconfirmed(const Online *on, int confirmed, uint32_t mask)
{
    if (confirmed != 0) return 0;
    char who[1200] = "";
    int n = 0;
    for (int k = 0; k < on->naxes; k++)
        if (k < 32 && (mask >> k & 1)) {
            size_t len = strlen(who);
            snprintf(who + len, sizeof who - len, "%s%s", n++ ? ", " : "", on->axis_name[k]);
        }
    fprintf(stderr, "irl: error: the drive did not confirm the disable%s%s%s: %s may still be enabled; make the "
            "machine safe before going near it (exit %d)\n", n > 1 ? " (axes " : n ? " (axis " : "", who, n ? ")" : "",
            n == 1 ? "that axis" : n ? "those axes" : "the axes", EX_ENABLED);
    return 1;
}

/* The end: wait for the axes, write the report (exec_offline_end), online.json and the statistics. */
static int finish(Online *on, int vm_status)
{
    print_mark(on);
    if (!(vm_status == VM_OK && motion_pending(&on->ex.motion) > 0)) { /* else the drain's last cycle waits */
        if (finish_stream(on) && vm_status == VM_OK) {
            char msg[500];
            stop_error(on, msg, sizeof msg);
            set_vm_error(on, msg);
            vm_status = VM_ERROR;
        }
    }
    int status = exec_offline_end(&on->ex, vm_status);
    print_mark(on);
    finish_stream(on);
    on->vm->out = on->out;
    online_print_close(&on->pr); /* what the axes never reached is dropped */
    teardown(on);
    if (!on->opt.out_temp) {
        char path[4300], err[600];
        snprintf(path, sizeof path, "%s/online.json", on->ex.out_dir);
        if (write_json(on, path, err, sizeof err) < 0) fprintf(stderr, "irl: %s\n", err), status = EX_RUNTIME;
    }
    online_stats_text(stderr, &on->rt.stats, &on->compute, &on->compute_wall, on->opt.cycle);
    if (on->rt.stats.missed > 0)
        fprintf(stderr, "irl: warning: %ld deadlines missed (%ld overruns): for those cycles the axes received no new "
                "setpoint (online.json)\n", on->rt.stats.missed, on->rt.stats.overruns);
    if (on->rt.aborted) fprintf(stderr, "irl: the axes were disabled at once (third signal): the stop ramp was cut short\n");
    if (rt_loop_cause(&on->rt) != RT_STOP_NONE) status = EX_RUNTIME;
    return disable_unconfirmed(on, on->rt.disable_confirmed, on->rt.disable_unconfirmed) ? EX_ENABLED : status;
}

int exec_online_check(const RunOptions *o)
{
    const DriverType *drv;
    char name[32];
    const char *opts;
    int st = check_options(o);
    return st ? st : pick_driver(o->driver, &drv, name, sizeof name, &opts);
}

/* Copy what the pre-flight wrote to its held-back stderr onto stderr; its first error line into first. */
static void preflight_show(FILE *held, char *first, size_t firstlen)
{
    char line[1024];
    first[0] = '\0';
    rewind(held);
    while (fgets(line, sizeof line, held)) {
        fputs(line, stderr);
        if (!first[0] && strstr(line, "error")) snprintf(first, firstlen, "%.*s", (int)strcspn(line, "\n"), line);
    }
}

int exec_online_preflight(const Chunk *c, const char *program, const RunOptions *o)
{
    Online *on = calloc(1, sizeof *on);
    FILE *quiet = fopen("/dev/null", "w"), *held = tmpfile();
    Vm vm;
    int st = EX_RUNTIME;
    if (!on || !quiet || !held || vm_init(&vm, c, quiet, stderr) != VM_OK) {
        fprintf(stderr, "irl: pre-flight: cannot start the dry-run (out of memory)\n");
        goto out;
    }
    on->opt = *o;
    on->opt.online = 0, on->opt.no_trace = 1, on->opt.no_plots = 1, on->opt.progress = 0;
    if ((st = pick_driver(o->driver, &on->drv, on->drv_name, sizeof on->drv_name, &on->drv_opts)) == 0) {
        fflush(stderr);
        int saved = dup(STDERR_FILENO); /* the online run repeats every note: shown only when the dry-run fails */
        if (saved >= 0) dup2(fileno(held), STDERR_FILENO);
        st = exec_offline_begin(&on->ex, &vm, c, program, &on->opt);
        if (st == 0) st = exec_offline_end(&on->ex, vm_run(&vm));
        fflush(stderr);
        if (saved >= 0) dup2(saved, STDERR_FILENO), close(saved);
    }
    if (st != 0) {
        char first[600], reason[800];
        preflight_show(held, first, sizeof first);
        snprintf(reason, sizeof reason, "pre-flight: the dry-run failed (exit %d)%s%s", st, first[0] ? ": " : "",
                 first);
        fprintf(stderr, "irl: pre-flight: the dry-run of %s failed (exit %d): nothing moved (its report is in the "
                "output folder; --force goes online without the pre-flight)\n", program, st);
        write_json_early(on, "not_started", reason);
    }
    vm_free(&vm);
out:
    if (quiet) fclose(quiet);
    if (held) fclose(held);
    free(on);
    return st;
}

int exec_online_run(Vm *vm, const Chunk *c, const char *program, const RunOptions *o)
{
    int st = check_options(o);
    if (st) return st;
    Online *on = calloc(1, sizeof *on);
    if (!on) return fprintf(stderr, "irl: out of memory\n"), EX_RUNTIME;
    on->opt = *o;
    on->opt.progress = 0;
    on->vm = vm;
    online_hist_init(&on->compute);
    online_hist_init(&on->compute_wall);
    if ((st = pick_driver(on->opt.driver, &on->drv, on->drv_name, sizeof on->drv_name, &on->drv_opts)) != 0 ||
        (st = exec_offline_begin(&on->ex, vm, c, program, &on->opt)) != 0) {
        free(on);
        return st;
    }
    char err[600];
    if (!on->ex.active) {
        fprintf(stderr, "irl: --online: the program declares no DEVICE: there is nothing to drive\n");
        exec_offline_end(&on->ex, VM_OK);
        free(on);
        return EX_USAGE;
    }
    if ((st = setup_axes(on, err, sizeof err)) != 0) {
        fprintf(stderr, "irl: %s\n", err);
        write_json_early(on, "not_started", err);
        exec_offline_end(&on->ex, VM_OK);
        free(on);
        return st;
    }
    write_json_early(on, "running", NULL);
    if (start(on, err, sizeof err) < 0) {
        char msg[700];
        int unconfirmed = 0;
        if (on->enabled) { /* the real-time thread never ran: nothing else will */
            on->drv->disable(on->drv_state);
            int ok = on->drv->disable_confirmed ? on->drv->disable_confirmed(on->drv_state) : -1;
            unconfirmed = disable_unconfirmed(on, ok, ok == 0 && on->drv->disable_unconfirmed ?
                                                  on->drv->disable_unconfirmed(on->drv_state) : 0);
        }
        write_json_early(on, "not_started", err);
        snprintf(msg, sizeof msg, "online: %s", err);
        set_vm_error(on, msg);
        st = exec_offline_end(&on->ex, VM_ERROR);
        teardown(on);
        free(on);
        return unconfirmed ? EX_ENABLED : st ? st : EX_RUNTIME;
    }
    if (on->caps.has_inputs && (o->ninput || o->ncsv))
        fprintf(stderr, "irl: warning: --input feeds the pre-flight only: online, the driver gives the inputs\n");
    on->out = on->caps.uses_stdout ? stderr : vm->out; /* standard output carries the setpoints */
    vm->out = online_print_open(&on->pr, on->out, print_mark_now, on) == 0 ? online_print_stream(&on->pr) : on->out;
    on->ex.motion.cycle = online_cycle;
    on->ex.motion.cycle_ctx = on;
    if (on->approaching && run_approach(on) < 0) { /* stopped before the program's first setpoint */
        char msg[500];
        stop_error(on, msg, sizeof msg);
        set_vm_error(on, msg);
        st = finish(on, VM_ERROR);
        free(on);
        return st;
    }
    int vs = vm_run(vm);
    on->vm_done = 1;
    st = finish(on, vs);
    free(on);
    return st;
}
