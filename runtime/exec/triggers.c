/* triggers.c — path-triggered I/O (triggers.h): arm a TRIGGER, bind it to its device's next planned segment,
 * fire it in the cycle its point of the path is reached. */
#include "exec/triggers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "errcodes.h"
#include "exec/motion.h"

#define FAIL(code, ...) (snprintf(msg, msglen, __VA_ARGS__), (code))

static const char *kind_name(PlannerKind k)
{
    switch (k) {
    case PLANNER_PTP: return "MOVE PTP";
    case PLANNER_LIN: return "MOVE LIN";
    case PLANNER_CIRC: return "MOVE CIRC";
    case PLANNER_SPLINE: return "MOVE SPLINE";
    default: return "MOVE SPLINE (JOINT)";
    }
}

int triggers_arm(Motion *m, int dev, int pc, SampleSrc src, int shape, const Value *ops, int nops, char *msg,
                 size_t msglen)
{
    if (nops < 4) return FAIL(IRL_ERR_USER, "TRIGGER: malformed operands");
    Trigger *tr = NULL;
    int slot = 0;
    while (slot < MOTION_TRIGGERS && m->trig[slot].state) slot++;
    if (slot < MOTION_TRIGGERS) tr = &m->trig[slot];
    if (!tr) return FAIL(IRL_ERR_USER, "TRIGGER: more than %d triggers are waiting for their motion", MOTION_TRIGGERS);
    double d = ops[0].r, delay = ops[1].r;
    int fraction = (shape & MOTION_TRIGGER_FRACTION) != 0;
    if (!(d >= 0) || !isfinite(d))
        return fraction ? FAIL(IRL_ERR_MATH, "TRIGGER AT %g %%: the distance is a finite value >= 0", 100 * d)
                        : FAIL(IRL_ERR_MATH, "TRIGGER AT %g mm: the distance is a finite value >= 0", 1e3 * d);
    if (!isfinite(delay)) return FAIL(IRL_ERR_MATH, "TRIGGER: DELAY %g s is not finite", delay);
    int io = (shape & MOTION_TRIGGER_IO) != 0;
    int64_t target = ops[2].i;
    if (io ? !m->devs || target < 0 || target >= m->devs->nio : target < 0 || target >= m->nvars)
        return FAIL(IRL_ERR_USER, "TRIGGER: invalid target %lld", (long long)target);
    *tr = (Trigger){.state = 1, .dev = dev, .task = m->task, .pc = pc, .src = src, .end = (shape & MOTION_TRIGGER_END) != 0,
                    .fraction = fraction, .io = io, .d = d, .delay = delay, .target = target, .value = ops[3]};
    if (slot >= m->trig_hi) m->trig_hi = slot + 1;
    return 0;
}

/* The time from the start of segment g at which it has covered d (from its start, or d before its end): path
 * length on its own time law (LIN, CIRC, SPLINE), or fraction of the leading axis' travel (PTP) or of the path
 * parameter (joint SPLINE). 0, or an error code with msg. */
static int switch_time(const Trigger *tr, const PlannerSegment *g, SampleSrc move, double *t, char *msg,
                       size_t msglen)
{
    int cart = planner_kind_cartesian(g->kind);
    const char *what = kind_name(g->kind), *from = tr->end ? "BEFORE END" : "FROM START";
    if (tr->fraction && cart && tr->d != 0)
        return FAIL(IRL_ERR_USER, "TRIGGER AT %g %% %s: the %s at line %d is measured by its path length; give the "
                    "distance in mm or m", 100 * tr->d, from, what, move.line);
    if (!tr->fraction && !cart)
        return FAIL(IRL_ERR_USER, "TRIGGER AT %g mm %s: the %s at line %d is measured in percent of its motion "
                    "(AT 50 %%)", 1e3 * tr->d, from, what, move.line);
    if (cart) {
        double L = g->length;
        if (tr->d > L * (1 + 1e-9) + 1e-12)
            return FAIL(IRL_ERR_USER, "TRIGGER AT %.6g mm %s is beyond the path of the %s at line %d, %.6g mm long",
                        1e3 * tr->d, from, what, move.line, 1e3 * L);
        double len = tr->end ? L - tr->d : tr->d;
        *t = profile_time_at_fraction(&g->path, planner_s_at_length(g, len));
        return 0;
    }
    if (tr->d > 1 + 1e-12)
        return FAIL(IRL_ERR_USER, "TRIGGER AT %.6g %% %s is beyond the %s at line %d (100 %%)", 100 * tr->d, from,
                    what, move.line);
    double f = tr->end ? 1 - tr->d : tr->d;
    if (g->kind == PLANNER_JSPLINE) {
        *t = profile_time_at_fraction(&g->path, f);
        return 0;
    }
    int lead = -1;
    double big = 0;
    for (int i = 0; i < g->n; i++)
        if (fabs(g->q1[i] - g->q0[i]) > big) big = fabs(g->q1[i] - g->q0[i]), lead = i;
    *t = lead < 0 ? f * g->T : profile_time_at_fraction(&g->ax[lead], f);
    return 0;
}

int triggers_bind(Motion *m, int dev, const PlannerSegment *g, SampleSrc move, char *msg, size_t msglen)
{
    for (int i = 0; i < m->trig_hi; i++) {
        Trigger *tr = &m->trig[i];
        if (tr->state != 1 || tr->dev != dev || tr->task != m->task) continue;
        double t;
        int e = switch_time(tr, g, move, &t, msg, msglen);
        if (e) {
            tr->state = 0;
            m->err_pc = tr->pc;
            return e;
        }
        tr->state = 2;
        tr->seg = g->id;
        tr->resets = m->dev[dev].planner.resets;
        tr->move = move;
        tr->kind = g->kind;
        tr->t_local = t + tr->delay;
        tr->have_start = 0;
    }
    return 0;
}

/* Make the assignment of a trigger. */
static void fire(Motion *m, Trigger *tr)
{
    if (tr->io) {
        const DevicesIo *p = &m->devs->io[tr->target];
        int analog = p->kind == 2 || p->kind == 3;
        devices_io_write(m->devs, (int)tr->target, analog ? tr->value.r : (double)(tr->value.i != 0));
    } else {
        m->vars[tr->target] = tr->value;
    }
    tr->state = 0;
}

int triggers_cycle(Motion *m, double t, char *msg, size_t msglen)
{
    double eps = 1e-9 * m->dt;
    for (int i = 0; i < m->trig_hi; i++) {
        Trigger *tr = &m->trig[i];
        if (tr->state != 2) continue;
        if (m->dev[tr->dev].planner.resets != tr->resets) {   /* its motion was dropped (an error, a stop) */
            tr->state = 0;
            continue;
        }
        if (!tr->have_start) {
            double start;
            int k = planner_segment_start(&m->dev[tr->dev].planner, t, tr->seg, &start);
            if (k < 0) {            /* finished before its start was seen (every queued one is seen first): now */
                fire(m, tr);
                continue;
            }
            if (k == 0) continue;
            tr->have_start = 1;
            tr->at = start + tr->t_local;
            if (tr->at < -eps) {
                tr->state = 0;
                m->fail_src = tr->src;
                return FAIL(IRL_ERR_USER, "TRIGGER: DELAY %.6g ms moves its switching point to t = %.6g s, before the "
                            "program starts (the %s at line %d starts at t = %.6g s)", 1e3 * tr->delay, tr->at,
                            kind_name(tr->kind), tr->move.line, start);
            }
        }
        if (tr->at <= t + eps) fire(m, tr);
    }
    while (m->trig_hi > 0 && !m->trig[m->trig_hi - 1].state) m->trig_hi--;
    return 0;
}

int triggers_full(const Motion *m)
{
    for (int i = 0; i < MOTION_TRIGGERS; i++)
        if (!m->trig[i].state) return 0;
    return 1;
}

int triggers_waiting(const Motion *m)
{
    int n = 0;
    for (int i = 0; i < m->trig_hi; i++) n += m->trig[i].state == 2;
    return n;
}

int triggers_waiting_on(const Motion *m, int d)
{
    int n = 0;
    for (int i = 0; i < m->trig_hi; i++) n += m->trig[i].state == 2 && m->trig[i].dev == d;
    return n;
}

int triggers_unbound(Motion *m, char *msg, size_t msglen)
{
    for (int i = 0; i < m->trig_hi; i++) {
        Trigger *tr = &m->trig[i];
        if (tr->state != 1) continue;
        tr->state = 0;
        m->fail_src = tr->src;
        return FAIL(IRL_ERR_USER, "TRIGGER with no MOVE of device %s after it: the program ended before one",
                    m->devs && tr->dev < m->devs->ndev ? m->devs->dev[tr->dev].name : "?");
    }
    return 0;
}
