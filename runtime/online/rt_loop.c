/* rt_loop.c — the real-time cycle thread and the signal watcher of the online mode (rt_loop.h). The cycle reads as
 * its list of steps; each step is a short function without a loop of its own. */
#include "online/rt_loop.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "osal.h"

static RtState get_state(RtLoop *rt) { return (RtState)atomic_load_explicit(&rt->state, memory_order_acquire); }
static void set_state(RtLoop *rt, RtState s) { atomic_store_explicit(&rt->state, (int)s, memory_order_release); }

/* Seconds since the first deadline. */
static double wall(const RtLoop *rt) { return (double)(rt->wake - rt->t0) * 1e-9; }

/* Is any axis's last written speed non-zero? */
static int moving(const RtLoop *rt)
{
    for (int i = 0; i < rt->cfg.naxes; i++)
        if (rt->qd[i] != 0) return 1;
    return 0;
}

/* The candidate of this cycle: hold the last written position at rest. */
static void hold(RtLoop *rt, int log_state)
{
    memcpy(rt->cq, rt->q, sizeof rt->cq);
    memset(rt->cqd, 0, sizeof rt->cqd);
    rt->log_state = log_state;
}

/* Record the first stop cause (published for the other threads) and start the ramp unless one runs. */
static void begin_stop(RtLoop *rt, RtStopCause cause, const SafetyViolation *v, int signo)
{
    if (cause != RT_STOP_NONE && atomic_load_explicit(&rt->cause, memory_order_relaxed) == RT_STOP_NONE) {
        RtStop *s = &rt->stop;
        s->cause = cause;
        s->signo = signo;
        if (v) s->v = *v;
        s->moving = moving(rt);
        s->approach = rt->approaching ? rt->stats.approach : 0;
        s->t = rt->last_t;
        s->cycle = rt->last_cycle;
        s->starve = (double)rt->starve * rt->cfg.dt;
        if (cause == RT_STOP_FAULT) {
            const char *f = rt->cfg.drv->fault(rt->cfg.drv_state);
            size_t n = f ? strnlen(f, sizeof s->fault - 1) : 0;
            memcpy(s->fault, f ? f : "", n);
            s->fault[n] = '\0';
        }
        atomic_store_explicit(&rt->cause, (int)cause, memory_order_release);
    }
    RtState st = get_state(rt);
    if (st != RT_STOPPING && st != RT_DONE) {
        safety_ramp_begin(&rt->ramp, rt->cfg.axes, rt->cfg.naxes, rt->cfg.dt, rt->q, rt->qd, rt->qdd);
        rt->post = 0;
        set_state(rt, RT_STOPPING);
    }
}

/* The ramp's next setpoint; at rest, the end of a stop (hold, then DONE) or of the stream (SETTLE). */
static void ramp_step(RtLoop *rt)
{
    rt->log_state = RT_LOG_STOP;
    if (safety_ramp_next(&rt->ramp, rt->cq, rt->cqd)) {
        rt->stats.ramp++;
        return;
    }
    if (atomic_load_explicit(&rt->cause, memory_order_relaxed) == RT_STOP_NONE) {
        rt->settle_from = rt->stats.cycles;
        set_state(rt, RT_SETTLE);
    } else if (++rt->post >= RT_STOP_HOLD) {
        set_state(rt, RT_DONE);
    }
}

/* Step: sleep until the absolute deadline; the wake-up latency and the period. */
static void step_wait(RtLoop *rt)
{
    osal_sleep_until(rt->deadline);
    rt->wake = osal_now();
    online_hist_add(&rt->stats.latency, rt->wake - rt->deadline);
    if (rt->last_wake >= 0) online_hist_add(&rt->stats.period, rt->wake - rt->last_wake);
    rt->last_wake = rt->wake;
    rt->stats.cycles++;
}

/* Step: a driver whose reader paces the run (DriverType.pace) moves the deadline: later while the reader's
 * buffer is above its high water mark, to now while below its low one. */
static void step_pace(RtLoop *rt)
{
    if (!rt->cfg.drv->pace) return;
    int p = rt->cfg.drv->pace(rt->cfg.drv_state);
    if (p > 0) rt->deadline += p * rt->dt_ns;
    else if (p < 0 && rt->deadline > osal_now()) rt->deadline = osal_now();
}

/* Step: the driver's feedback (actual positions, inputs, fault). */
static void step_feedback(RtLoop *rt)
{
    rt->fb.fault = 0;
    rt->fb.has_cmd = 0;
    if (rt->cfg.drv->read(rt->cfg.drv_state, &rt->fb) < 0) rt->fb.fault = 1;
    if (rt->cfg.caps.has_inputs) atomic_store_explicit(&rt->din, rt->fb.din, memory_order_release);
}

/* Step: the monitors: a third signal disabling at once, an E-stop signal, a driver fault, the following error. */
static void step_monitors(RtLoop *rt)
{
    if (atomic_load_explicit(&rt->abort_request, memory_order_acquire) && get_state(rt) != RT_DONE) {
        begin_stop(rt, RT_STOP_SIGNAL, NULL, SIGINT); /* recorded if it is the first cause */
        rt->aborted = 1;
        set_state(rt, RT_DONE);
        return;
    }
    int sig = atomic_exchange_explicit(&rt->stop_request, 0, memory_order_acq_rel);
    if (sig) {
        begin_stop(rt, RT_STOP_SIGNAL, NULL, sig);
        return;
    }
    if (rt->fb.fault) {
        begin_stop(rt, RT_STOP_FAULT, NULL, 0);
        return;
    }
    SafetyViolation v;
    const double *cmd = rt->fb.has_cmd ? rt->fb.cmd : rt->q; /* the setpoint the feedback answers */
    if (rt->cfg.caps.has_feedback && rt->have_written &&
        safety_following(rt->cfg.axes, rt->cfg.naxes, cmd, rt->fb.q, &v) != SAFETY_OK)
        begin_stop(rt, RT_STOP_FOLLOWING, &v, 0);
}

/* The next setpoint from the queue; an empty queue is the end of the stream, a hold at rest, or a watchdog stop. */
static void next_from_queue(RtLoop *rt)
{
    long waiting = (long)spsc_count(rt->cfg.queue);
    int done = atomic_load_explicit(&rt->producer_done, memory_order_acquire); /* then the queue drains */
    if (!done && (rt->stats.queue_min < 0 || waiting < rt->stats.queue_min)) rt->stats.queue_min = waiting;
    int got = spsc_pop(rt->cfg.queue, &rt->sp);
    if (!got && (done || atomic_load_explicit(&rt->producer_done, memory_order_acquire))) {
        got = spsc_pop(rt->cfg.queue, &rt->sp); /* pushed just before it said done */
        if (!got) {
            if (moving(rt)) {
                rt->ended_moving = 1;
                begin_stop(rt, RT_STOP_NONE, NULL, 0);
                ramp_step(rt);
            } else {
                rt->settle_from = rt->stats.cycles;
                set_state(rt, RT_SETTLE);
                hold(rt, RT_LOG_SETTLE);
            }
            return;
        }
    }
    if (got) {
        memcpy(rt->cq, rt->sp.q, sizeof rt->cq);
        memcpy(rt->cqd, rt->sp.qd, sizeof rt->cqd);
        rt->dout = rt->sp.dout;
        rt->from_queue = 1;
        rt->starve = 0;
        rt->log_state = rt->sp.approach ? RT_LOG_APPROACH : RT_LOG_RUN;
        return;
    }
    rt->starve++;
    if (moving(rt) || (double)rt->starve * rt->cfg.dt >= rt->cfg.watchdog - 1e-12) {
        begin_stop(rt, RT_STOP_WATCHDOG, NULL, 0);
        ramp_step(rt);
        return;
    }
    rt->stats.holds++;
    hold(rt, RT_LOG_HOLD);
}

/* Step: this cycle's candidate setpoint, by state. */
static void step_next(RtLoop *rt)
{
    rt->from_queue = 0;
    switch (get_state(rt)) {
    case RT_PRIME:
        if (spsc_count(rt->cfg.queue) < rt->cfg.queue->cap &&
            !atomic_load_explicit(&rt->producer_done, memory_order_acquire) && wall(rt) < RT_PRIME_MAX) {
            rt->stats.prime++;
            hold(rt, RT_LOG_PRIME);
            return;
        }
        set_state(rt, RT_RUN);
        next_from_queue(rt);
        return;
    case RT_RUN: next_from_queue(rt); return;
    case RT_STOPPING: ramp_step(rt); return;
    case RT_SETTLE: {
        hold(rt, RT_LOG_SETTLE);
        rt->stats.settle++;
        int in_pos = 1;
        for (int i = 0; rt->cfg.caps.has_feedback && i < rt->cfg.naxes; i++) {
            double tol = isfinite(rt->cfg.axes[i].ferr) ? 0.1 * rt->cfg.axes[i].ferr : 1e-4;
            in_pos &= fabs(rt->fb.q[i] - rt->q[i]) <= tol;
        }
        if (in_pos || (double)(rt->stats.cycles - rt->settle_from) * rt->cfg.dt >= RT_SETTLE_MAX) set_state(rt, RT_DONE);
        return;
    }
    case RT_DONE: hold(rt, RT_LOG_SETTLE); return;
    }
}

/* Step: the limit re-check of a queued setpoint; a failure is a stop (the setpoint is not written). */
static void step_limits(RtLoop *rt)
{
    if (!rt->from_queue) return;
    SafetyViolation v;
    if (safety_check(rt->cfg.axes, rt->cfg.naxes, rt->cfg.dt, rt->cq, rt->cqd, rt->q, rt->qd, &v) == SAFETY_OK)
        return;
    rt->from_queue = 0;
    begin_stop(rt, RT_STOP_LIMIT, &v, 0);
    ramp_step(rt);
}

/* Step: write the candidate; it becomes the last written setpoint. */
static void step_write(RtLoop *rt)
{
    int bad = rt->cfg.drv->write(rt->cfg.drv_state, rt->cq, rt->cqd, rt->dout) < 0;
    int later = rt->cfg.caps.confirms == DRIVER_CONFIRMS_TAKEN;
    rt->confirmed = !rt->cfg.caps.confirms ? -1 : bad ? 0 : later ? -2 : 1;
    rt->accepted += !bad;
    for (int i = 0; i < rt->cfg.naxes; i++) rt->qdd[i] = (rt->cqd[i] - rt->qd[i]) / rt->cfg.dt; /* for a stop ramp */
    memcpy(rt->q, rt->cq, sizeof rt->q);
    memcpy(rt->qd, rt->cqd, sizeof rt->qd);
    rt->have_written = 1;
    rt->stats.written++;
    if (rt->from_queue) rt->approaching = rt->sp.approach;
    if (rt->from_queue && rt->sp.approach) rt->stats.approach++;
    if (rt->from_queue && !rt->sp.approach) {
        rt->stats.from_queue++;
        rt->last_cycle = rt->sp.cycle;
        rt->last_t = rt->sp.t;
        atomic_store_explicit(&rt->written_cycle, rt->sp.cycle, memory_order_release);
    }
    if (bad) begin_stop(rt, RT_STOP_FAULT, NULL, 0);
}

/* Step: one log row (dropped and counted when the log writer is behind). */
static void step_log(RtLoop *rt)
{
    RtLogRow row;
    int n = rt->cfg.naxes;
    row.wall = wall(rt);
    row.cycle = rt->from_queue && !rt->sp.approach ? rt->sp.cycle : -1;
    row.t = rt->last_t;
    row.state = rt->log_state;
    row.confirmed = rt->confirmed;
    row.seq = rt->accepted - 1;
    memcpy(row.q, rt->q, (size_t)n * sizeof *row.q);
    memcpy(row.qd, rt->qd, (size_t)n * sizeof *row.qd);
    for (int i = 0; i < n; i++) row.qa[i] = rt->cfg.caps.has_feedback ? rt->fb.q[i] : NAN;
    if (!spsc_push(rt->cfg.log, &row)) rt->stats.log_dropped++;
}

/* Step: the work time, overruns, the next deadline (skipping those already past), the missed-deadline budget. */
static void step_timing(RtLoop *rt)
{
    int64_t end = osal_now();
    online_hist_add(&rt->stats.work, end - rt->wake);
    int64_t next = rt->deadline + rt->dt_ns;
    long late = 0; /* the deadlines at or before end: skipped */
    if (end > next) {
        late = (end - next) / rt->dt_ns + 1;
        next += late * rt->dt_ns;
        rt->stats.overruns++;
        rt->stats.missed += late;
    }
    rt->deadline = next;
    rt->miss_left += RT_MISS_REFILL - (double)late;
    if (rt->miss_left > rt->cfg.miss_budget) rt->miss_left = rt->cfg.miss_budget;
    if (rt->miss_left < 0 && get_state(rt) == RT_RUN) begin_stop(rt, RT_STOP_TIMING, NULL, 0);
}

/* One cycle. */
static void rt_cycle(RtLoop *rt)
{
    step_pace(rt);
    step_wait(rt);
    step_feedback(rt);
    step_monitors(rt);
    step_next(rt);
    step_limits(rt);
    step_write(rt);
    step_log(rt);
    step_timing(rt);
}

static void *rt_thread(void *arg)
{
    RtLoop *rt = arg;
    osal_prefault_stack(64 * 1024);
    if (!osal_is_fifo()) { /* the normal policy: raised above the planner thread, which then is not (exec_online.c) */
        int old;
        rt->nice = osal_boost(RT_NORMAL_NICE, &old) == 0 ? RT_NORMAL_NICE : old;
    }
    rt->dt_ns = (int64_t)llround(rt->cfg.dt * 1e9);
    rt->t0 = rt->deadline = osal_now() + rt->dt_ns;
    while (get_state(rt) != RT_DONE) rt_cycle(rt);
    rt->cfg.drv->disable(rt->cfg.drv_state);
    rt->disable_confirmed = rt->cfg.drv->disable_confirmed ? rt->cfg.drv->disable_confirmed(rt->cfg.drv_state) : -1;
    if (rt->disable_confirmed == 0 && rt->cfg.drv->disable_unconfirmed)
        rt->disable_unconfirmed = rt->cfg.drv->disable_unconfirmed(rt->cfg.drv_state);
    return NULL;
}

/* The watcher (rt_loop.h): the first SIGINT/SIGTERM asks for the controlled stop, a second is acknowledged, a
 * third disables the axes at once; one after the axes were disabled ends the program, at once if it does not
 * come to its next motion request within 2 s (it cannot hold the terminal). */
static void *watch_thread(void *arg)
{
    RtLoop *rt = arg;
    int seen = 0;
    int64_t end_by = -1;
    while (!atomic_load_explicit(&rt->quit_watch, memory_order_acquire)) {
        int s = osal_signals_wait(50 * 1000000LL);
        if (end_by >= 0 && osal_now() > end_by)
            osal_exit_now("irl: the program did not end within 2 s of the signal: ending at once (the axes are "
                          "disabled; the report and online.json are not written)\n", 1);
        if (!s) continue;
        if (get_state(rt) == RT_DONE) {
            if (end_by < 0) end_by = osal_now() + 2000000000LL;
            atomic_store_explicit(&rt->end_request, 1, memory_order_release);
            continue;
        }
        if (++seen == 1) atomic_store_explicit(&rt->stop_request, s, memory_order_release);
        else if (seen == 2)
            fprintf(stderr, "irl: stopping under control (the ramp runs to rest); a third signal disables the axes "
                    "at once\n");
        else atomic_store_explicit(&rt->abort_request, 1, memory_order_release);
    }
    return NULL;
}

int rt_loop_start(RtLoop *rt, const RtConfig *cfg, char *err, size_t errlen)
{
    rt->cfg = *cfg;
    atomic_init(&rt->state, RT_PRIME);
    atomic_init(&rt->cause, RT_STOP_NONE);
    atomic_init(&rt->stop_request, 0);
    atomic_init(&rt->producer_done, 0);
    atomic_init(&rt->quit_watch, 0);
    atomic_init(&rt->abort_request, 0);
    atomic_init(&rt->end_request, 0);
    rt->miss_left = cfg->miss_budget;
    rt->disable_confirmed = -1;
    rt->disable_unconfirmed = 0;
    rt->confirmed = -1;
    rt->accepted = 0;
    atomic_init(&rt->din, 0);
    atomic_init(&rt->written_cycle, -1);
    memset(&rt->stop, 0, sizeof rt->stop);
    rt->stop.cycle = -1;
    online_stats_init(&rt->stats);
    rt->last_cycle = -1;
    rt->last_wake = -1;
    for (int i = 0; i < cfg->naxes; i++) rt->q[i] = rt->cq[i] = cfg->q0[i];
    int w = osal_thread_start(&rt->watch, watch_thread, rt, OSAL_RT_STACK, 0, err, errlen);
    if (w < 0) return -1;
    rt->watching = 1;
    rt->sched_note[0] = '\0';
    rt->nice = 0;
    int r = osal_thread_start(&rt->th, rt_thread, rt, OSAL_RT_STACK, cfg->prio, rt->sched_note,
                              sizeof rt->sched_note);
    if (r < 0) {
        snprintf(err, errlen, "%s", rt->sched_note);
        atomic_store(&rt->quit_watch, 1);
        osal_thread_join(rt->watch);
        rt->watching = 0;
        return -1;
    }
    rt->fifo = r == 1;
    rt->started = 1;
    return 0;
}

void rt_loop_producer_done(RtLoop *rt) { atomic_store_explicit(&rt->producer_done, 1, memory_order_release); }

RtState rt_loop_state(RtLoop *rt) { return get_state(rt); }

RtStopCause rt_loop_cause(RtLoop *rt) { return (RtStopCause)atomic_load_explicit(&rt->cause, memory_order_acquire); }

int rt_loop_end_requested(RtLoop *rt) { return atomic_load_explicit(&rt->end_request, memory_order_acquire); }

long rt_loop_written_cycle(RtLoop *rt) { return atomic_load_explicit(&rt->written_cycle, memory_order_acquire); }

uint64_t rt_loop_inputs(RtLoop *rt) { return atomic_load_explicit(&rt->din, memory_order_acquire); }

void rt_loop_join(RtLoop *rt)
{
    if (rt->started) osal_thread_join(rt->th);
    rt->started = 0;
    if (rt->watching) {
        atomic_store_explicit(&rt->quit_watch, 1, memory_order_release);
        osal_thread_join(rt->watch);
    }
    rt->watching = 0;
}
