/* checks.c — limit checks, peaks and violation intervals on the sampled stream (see checks.h). */
#include "exec/checks.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ORDER ChecksQty */
static const char *const qty_names[CHK_NQTY] = {
    "position", "speed", "acceleration", "jerk", "torque", "power", "voltage",
    "total power", "singularity", "IK failure", "output", "rate", "following error",
};

/* Units per joint type: revolute, prismatic. ORDER ChecksQty (axis quantities). */
static const char *const axis_units[CHK_NAXISQTY][2] = {
    {"rad", "m"}, {"rad/s", "m/s"}, {"rad/s^2", "m/s^2"}, {"rad/s^3", "m/s^3"}, {"Nm", "N"}, {"W", "W"}, {"V", "V"},
};

#define DEFAULT_SING 0.01
#define DEFAULT_CAP 1000

/* {====================================================================== set-up */

/* The output limit named `name` (case-insensitive), or NULL. */
static const ModelOutputLimit *find_limit(const ModelDesc *d, const char *name)
{
    if (!d) return NULL;
    for (int i = 0; i < d->noutput_limits && i < MODEL_MAX_OUTPUTS; i++)
        if (strcasecmp(d->output_limit[i].name, name) == 0) return &d->output_limit[i];
    return NULL;
}

/* Index of the output named `name` in a device, or -1. */
static int find_output(const SampleDeviceInfo *info, const char *name)
{
    for (int o = 0; o < info->nout; o++)
        if (strcasecmp(info->out_name[o], name) == 0) return o;
    return -1;
}

/* The output a rate limit "Xdot" differentiates: X's index, or -1 when the name is not such a rate or the
 * model already gives "Xdot" itself. */
static int rate_source(const SampleDeviceInfo *info, const char *limit_name)
{
    size_t n = strlen(limit_name);
    if (n <= 3 || strcasecmp(limit_name + n - 3, "dot") != 0) return -1;
    if (find_output(info, limit_name) >= 0) return -1;
    char base[MODEL_NAME_LEN];
    snprintf(base, sizeof base, "%.*s", (int)(n - 3), limit_name);
    return find_output(info, base);
}

/* Number of rate channels of a device. */
static int count_rates(const SampleDeviceInfo *info)
{
    int n = 0;
    if (!info->desc) return 0;
    for (int i = 0; i < info->desc->noutput_limits && i < MODEL_MAX_OUTPUTS; i++)
        if (rate_source(info, info->desc->output_limit[i].name) >= 0) n++;
    return n;
}

/* The closed-loop group of the tracking error e when some axis has a ferror limit (checks.h), else -1. */
static int ferror_group(const SampleDeviceInfo *info)
{
    int g = 0;
    while (g < info->ncl_groups && g < SAMPLE_MAX_CL_GROUPS && strcmp(info->cl_group[g], "e") != 0) g++;
    if (g >= info->ncl_groups || g >= SAMPLE_MAX_CL_GROUPS || !info->desc) return -1;
    for (int i = 0; i < info->naxes && i < info->desc->njoints; i++) {
        double f = info->desc->joint[i].ferror;
        if (f > 0 && isfinite(f)) return g;
    }
    return -1;
}

/* Channels of one device: the axis block, three per-device ones, outputs, rates, following errors. */
static int device_channels(const SampleDeviceInfo *info)
{
    int ferr = ferror_group(info) >= 0 ? info->naxes : 0;
    return CHK_NAXISQTY * info->naxes + 3 + info->nout + count_rates(info) + ferr;
}

/* A channel with no data yet. */
static void chan_init(ChecksChannel *c, int dev, int qty, int index, double lo, double hi)
{
    memset(c, 0, sizeof *c);
    c->dev = dev, c->qty = qty, c->index = index;
    c->lo = lo, c->hi = hi;
    c->lo_ok = lo, c->hi_ok = hi;
    if (qty == CHK_JERK || qty == CHK_OUTPUT_RATE) { /* differentiated: CHECKS_DIFF_RTOL (checks.h) */
        c->lo_ok = lo - CHECKS_DIFF_RTOL * fabs(lo);
        c->hi_ok = hi + CHECKS_DIFF_RTOL * fabs(hi);
    }
    c->min.v = INFINITY, c->max.v = -INFINITY;
    c->wlo = INFINITY, c->whi = -INFINITY; /* empty until the first value (chan_window) */
    c->rec = -1;
    c->src_output = -1;
}

/* The limits of axis quantity q of axis i: [lo, hi]. */
static void axis_limits(const SampleDeviceInfo *info, int q, int i, double *lo, double *hi)
{
    const ModelDesc *d = info->desc;
    *lo = -INFINITY, *hi = INFINITY;
    if (!d) return;
    if (q == CHK_POWER) { /* a named limit "power<i>" */
        char name[32];
        snprintf(name, sizeof name, "power%d", i + 1);
        const ModelOutputLimit *pl = find_limit(d, name);
        if (pl) *lo = pl->min, *hi = pl->max;
        return;
    }
    if (i >= d->njoints) return;
    const ModelAxisLimits *l = &d->joint[i].limits;
    double sym = INFINITY;
    switch (q) {
    case CHK_POSITION: *lo = l->min, *hi = l->max; return;
    case CHK_SPEED: sym = l->vmax; break;
    case CHK_ACCEL: sym = l->amax; break;
    case CHK_JERK: sym = l->jmax; break;
    case CHK_TORQUE: sym = l->effort; break;
    case CHK_VOLTAGE: sym = d->joint[i].motor.present ? d->joint[i].motor.vmax : INFINITY; break;
    }
    *lo = -fabs(sym), *hi = fabs(sym);
}

/* Lay out and initialise the channels of device `dev` starting at ck->chan[base]. */
static void init_device(Checks *ck, int dev, int base)
{
    const SampleDeviceInfo *info = &ck->lay->dev[dev];
    const ModelDesc *d = info->desc;
    int n = info->naxes;
    ChecksChannel *c = ck->chan + base;
    double lo, hi;
    for (int q = 0; q < CHK_NAXISQTY; q++)
        for (int i = 0; i < n; i++) {
            axis_limits(info, q, i, &lo, &hi);
            chan_init(&c[q * n + i], dev, q, i, lo, hi);
        }
    c += CHK_NAXISQTY * n;
    const ModelOutputLimit *pl = find_limit(d, "power");
    chan_init(c++, dev, CHK_POWER_TOTAL, -1, pl ? pl->min : -INFINITY, pl ? pl->max : INFINITY);
    chan_init(c++, dev, CHK_SINGULARITY, -1, ck->cfg.sing_threshold, INFINITY);
    chan_init(c++, dev, CHK_IK, -1, -INFINITY, 0.5);
    for (int o = 0; o < info->nout; o++) {
        const ModelOutputLimit *ol = find_limit(d, info->out_name[o]);
        chan_init(c++, dev, CHK_OUTPUT, o, ol ? ol->min : -INFINITY, ol ? ol->max : INFINITY);
    }
    for (int i = 0; d && i < d->noutput_limits && i < MODEL_MAX_OUTPUTS; i++) {
        int src = rate_source(info, d->output_limit[i].name);
        if (src < 0) continue;
        chan_init(c, dev, CHK_OUTPUT_RATE, src, d->output_limit[i].min, d->output_limit[i].max);
        c->src_output = src;
        c++;
    }
    ck->nmotor[dev] = 0;
    for (int i = 0; i < n && i < SAMPLE_MAX_AXES; i++) {
        const ModelMotor *m = (d && i < d->njoints) ? &d->joint[i].motor : NULL;
        ck->motor[dev][i] = m && m->present && m->kt != 0 ? m : NULL;
        ck->nmotor[dev] += ck->motor[dev][i] != NULL;
    }
    ck->ferror_group[dev] = ferror_group(info);
    ck->ferror_n[dev] = ck->ferror_group[dev] >= 0 ? n : 0;
    for (int i = 0; i < ck->ferror_n[dev]; i++) {
        double f = i < d->njoints ? d->joint[i].ferror : INFINITY;
        if (!(f > 0)) f = INFINITY; /* 0: no limit (model.h) */
        chan_init(c++, dev, CHK_FERROR, i, -INFINITY, f); /* on |e| */
    }
}

/* Allocate and lay out every channel; the violation and limited lists at their fixed capacities. */
int checks_init(Checks *ck, const SampleLayout *lay, const ChecksConfig *cfg, char *err, size_t errlen)
{
    memset(ck, 0, sizeof *ck);
    ck->cfg = *cfg;
    if (ck->cfg.sing_threshold <= 0) ck->cfg.sing_threshold = DEFAULT_SING;
    if (ck->cfg.max_violations <= 0) ck->cfg.max_violations = DEFAULT_CAP;
    if (ck->cfg.max_limited <= 0) ck->cfg.max_limited = DEFAULT_CAP;
    if (!(ck->cfg.cycle > 0)) {
        snprintf(err, errlen, "checks: cycle time must be > 0");
        return -1;
    }
    if (lay->ndev < 0 || lay->ndev > SAMPLE_MAX_DEVICES) {
        snprintf(err, errlen, "checks: %d devices (at most %d)", lay->ndev, SAMPLE_MAX_DEVICES);
        return -1;
    }
    ck->lay = lay;
    int total = 0;
    for (int d = 0; d < lay->ndev; d++) {
        if (lay->dev[d].naxes < 0 || lay->dev[d].naxes > SAMPLE_MAX_AXES) {
            snprintf(err, errlen, "checks: device %s has %d axes (at most %d)", lay->dev[d].name,
                     lay->dev[d].naxes, SAMPLE_MAX_AXES);
            return -1;
        }
        ck->dev_base[d] = total;
        total += device_channels(&lay->dev[d]);
    }
    ck->dev_base[lay->ndev] = total;
    ck->nchan = total;
    ck->viol_cap = ck->cfg.max_violations;
    ck->limited_cap = ck->cfg.max_limited;
    ck->chan = calloc(total ? (size_t)total : 1, sizeof *ck->chan);
    ck->viol = calloc((size_t)ck->viol_cap, sizeof *ck->viol);
    ck->limited = calloc((size_t)ck->limited_cap, sizeof *ck->limited);
    ck->notes_cap = CHECKS_MAX_NOTES;
    ck->notes = calloc((size_t)ck->notes_cap, sizeof *ck->notes);
    if (!ck->chan || !ck->viol || !ck->limited || !ck->notes) {
        checks_free(ck);
        snprintf(err, errlen, "checks: out of memory");
        return -1;
    }
    for (int d = 0; d < lay->ndev; d++) {
        init_device(ck, d, ck->dev_base[d]);
        ck->sing_chan[d] = ck->dev_base[d] + CHK_NAXISQTY * lay->dev[d].naxes + 1;
    }
    ck->k = 1.0;
    ck->k_dev = -1;
    for (int d = 0; d < SAMPLE_MAX_DEVICES; d++) ck->dev_k[d] = 1.0;
    return 0;
}

/* Release what checks_init allocated. */
void checks_free(Checks *ck)
{
    free(ck->chan);
    free(ck->viol);
    free(ck->limited);
    free(ck->notes);
    ck->chan = NULL, ck->viol = NULL, ck->limited = NULL, ck->notes = NULL;
}

/* }====================================================================== */

/* {====================================================================== per cycle */

/* How far v lies beyond [lo, hi] (NaN stays NaN). */
static double excess(const ChecksChannel *c, double v)
{
    return fmax(v - c->hi, c->lo - v);
}

/* Open a violation run on channel c (or count it dropped when the list is full). */
static void open_violation(Checks *ck, ChecksChannel *c, double v, double t, SampleSrc src)
{
    c->open = 1;
    if (ck->nviol >= ck->viol_cap) {
        c->rec = -1;
        ck->viol_dropped++;
        return;
    }
    c->rec = ck->nviol++;
    ChecksViolation *w = &ck->viol[c->rec];
    w->channel = (int)(c - ck->chan);
    w->dev = c->dev, w->qty = c->qty, w->index = c->index;
    w->t_start = w->t_end = w->t_peak = t;
    w->cycles = 1;
    w->peak = v;
    w->limit = (v < c->lo) ? c->lo : c->hi;
    w->src = w->src_peak = src;
    w->k = 0;
}

/* Extend the open run of c by one cycle. */
static void extend_violation(Checks *ck, ChecksChannel *c, double v, double t, SampleSrc src)
{
    if (c->rec < 0) return;
    ChecksViolation *w = &ck->viol[c->rec];
    w->t_end = t;
    w->cycles++;
    if (isnan(w->peak)) return;
    if (isnan(v) || excess(c, v) > excess(c, w->peak)) {
        w->peak = v, w->t_peak = t, w->src_peak = src;
        if (!isnan(v)) w->limit = (v < c->lo) ? c->lo : c->hi;
    }
}

/* The channel's quiet window from its state (ChecksChannel.wlo): empty while a run is open, before the first
 * value (min.v = +inf) and with ck->cfg.no_window. Written with comparisons, not fmax/fmin, so that a NaN limit
 * leaves it empty as it makes every value a violation. */
static void chan_window(const Checks *ck, ChecksChannel *c)
{
    if (c->open || ck->cfg.no_window) {
        c->wlo = INFINITY, c->whi = -INFINITY;
    } else {
        c->wlo = c->min.v > c->lo_ok ? c->min.v : c->lo_ok;
        c->whi = c->max.v < c->hi_ok ? c->max.v : c->hi_ok;
    }
}

/* The full update of a channel by one value: extremes, violation runs, then the window. Returns 1 when v is out
 * of limits. */
static __attribute__((noinline)) int chan_full(Checks *ck, ChecksChannel *c, double v)
{
    double t = ck->cur_t;
    SampleSrc src = ck->cur_src;
    int bad = 0;
    c->nsamples++;
    if (v > c->max.v) c->max.v = v, c->max.t = t, c->max.src = src;
    if (v < c->min.v) c->min.v = v, c->min.t = t, c->min.src = src;
    if (v >= c->lo_ok && v <= c->hi_ok) {
        if (c->open) c->open = 0, c->rec = -1; /* a run ends (rec is -1 whenever open is 0) */
    } else {
        c->nbad++;
        if (c->open) extend_violation(ck, c, v, t, src);
        else open_violation(ck, c, v, t, src);
        bad = 1;
    }
    chan_window(ck, c);
    return bad;
}

/* Feed one value to a channel: extremes, and violation runs. Returns 1 when v is out of limits. Inline: ~40
 * channels a cycle, almost all inside their window (in limits, no new extreme, no open run), where the full
 * update would only count the value (NaN fails both comparisons). */
static inline int chan_update(Checks *ck, ChecksChannel *c, double v)
{
    if (__builtin_expect(v >= c->wlo && v <= c->whi, 1)) {
        c->nsamples++;
        return 0;
    }
    return chan_full(ck, c, v);
}

/* A channel that gave no value this cycle ends any run it was in (rec is -1 whenever open is 0). */
static inline void chan_skip(const Checks *ck, ChecksChannel *c)
{
    if (c->open) {
        c->open = 0, c->rec = -1;
        chan_window(ck, c);
    }
}

/* Smallest k >= 1 with every |(τ − g)/k² + g| <= L, for one cycle of one device: INFINITY when none. */
static double time_scale(const ChecksChannel *tc, int n, const double *tau, const double *g)
{
    double k2lo = 1.0, k2hi = INFINITY; /* feasible k² interval */
    for (int i = 0; i < n; i++) {
        double L = tc[i].hi, tq = tau[i], gi = g[i], d = tq - gi;
        if (isinf(L)) continue;
        if (isnan(tq) || isnan(gi)) return INFINITY;
        if (fabs(gi) > L) {
            /* gravity alone exceeds: only small k (τ still away from g) can be inside */
            if (fabs(tq) > L) return INFINITY;
            /* inside now; τ(k) leaves the interval when (τ−g)/k² + g crosses ±L on g's side */
            double edge = gi > 0 ? L : -L;
            double k2 = d / (edge - gi); /* same sign as needed: d and edge−g opposite to g's excess */
            if (k2 > 0) k2hi = fmin(k2hi, k2);
            continue;
        }
        if (tq > L) k2lo = fmax(k2lo, (L - gi) > 0 ? d / (L - gi) : INFINITY);
        else if (tq < -L) k2lo = fmax(k2lo, (L + gi) > 0 ? -d / (L + gi) : INFINITY);
    }
    if (k2lo > k2hi) return INFINITY;
    /* rounded up by 1e-12 so that applying k exactly passes despite rounding in (τ − g)/k² + g */
    return sqrt(k2lo) * (1 + 1e-12);
}

/* Torque time scale of one device on a cycle where some torque exceeded its limit. */
static void torque_scale(Checks *ck, const Sample *s, int dev, ChecksChannel *tc, SampleSrc src)
{
    const SampleDevice *sd = &s->dev[dev];
    int n = ck->lay->dev[dev].naxes;
    const double *g = sd->grav;
    if (!sd->has_grav) {
        if (!ck->cfg.gravity || ck->cfg.gravity(ck->cfg.gravity_ud, dev, sd->q, ck->gscratch) < 0) {
            ck->k_unknown++;
            return;
        }
        g = ck->gscratch;
    }
    double k = time_scale(tc, n, sd->tau, g);
    if (k > ck->dev_k[dev]) ck->dev_k[dev] = k;
    if (k > ck->k || (ck->k_dev < 0 && k >= ck->k)) ck->k = k, ck->k_t = s->t, ck->k_src = src, ck->k_dev = dev;
    for (int i = 0; i < n; i++)
        if (tc[i].open && tc[i].rec >= 0 && k > ck->viol[tc[i].rec].k) ck->viol[tc[i].rec].k = k;
}

/* Motor voltage needed on axis i: V = R·i + ke·N·q̇, i = (τ/N + Jr·N·q̈)/kt. */
static double motor_voltage(const ModelMotor *m, double qd, double qdd, double tau)
{
    double N = m->gear != 0 ? m->gear : 1.0;
    double cur = (tau / N + m->rotor_inertia * N * qdd) / m->kt;
    return m->resistance * cur + m->ke * N * qd;
}

/* The usual cycle of check_axes: every axis channel but the voltage gets a value (the same updates in the same
 * order as its general loop; a device without motors has no voltage channel that could be open). Returns 1 when
 * some torque is out of limits. Inlined with n = 6 too, where the loop unrolls and every channel's offset is a
 * constant. */
static inline __attribute__((always_inline)) int axes_usual(Checks *ck, const SampleDevice *sd, int dev,
                                                            ChecksChannel *c, int n)
{
    ChecksChannel *cq = c, *cv = c + n, *ca = c + 2 * n, *cj = c + 3 * n, *ct = c + 4 * n, *cp = c + 5 * n;
    const double *prev = ck->prev_qdd[dev], cycle = ck->cfg.cycle;
    int torque_bad = 0;
    double ptotal = 0;
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) {
        double qd = sd->qd[i], qdd = sd->qdd[i], tau = sd->tau[i], p = tau * qd;
        chan_update(ck, cq + i, sd->q[i]);
        chan_update(ck, cv + i, qd);
        chan_update(ck, ca + i, qdd);
        chan_update(ck, cj + i, (qdd - prev[i]) / cycle);
        torque_bad |= chan_update(ck, ct + i, tau);
        ptotal += p;
        chan_update(ck, cp + i, p);
    }
    chan_update(ck, c + CHK_NAXISQTY * n, ptotal);
    return torque_bad;
}

/* The axis channels of one device for one cycle. */
static void check_axes(Checks *ck, const Sample *s, int dev, ChecksChannel *c, SampleSrc src)
{
    const SampleDeviceInfo *info = &ck->lay->dev[dev];
    const SampleDevice *sd = &s->dev[dev];
    int n = info->naxes, torque_bad = 0;
    double ptotal = 0;
    if (ck->have_prev && sd->tau_ok && !ck->nmotor[dev]) {
        if (n == 6 ? axes_usual(ck, sd, dev, c, 6) : axes_usual(ck, sd, dev, c, n))
            torque_scale(ck, s, dev, c + CHK_TORQUE * n, src);
        return;
    }
    for (int i = 0; i < n; i++) {
        chan_update(ck, &c[CHK_POSITION * n + i], sd->q[i]);
        chan_update(ck, &c[CHK_SPEED * n + i], sd->qd[i]);
        chan_update(ck, &c[CHK_ACCEL * n + i], sd->qdd[i]);
        if (ck->have_prev)
            chan_update(ck, &c[CHK_JERK * n + i], (sd->qdd[i] - ck->prev_qdd[dev][i]) / ck->cfg.cycle);
        else
            chan_skip(ck, &c[CHK_JERK * n + i]);
        if (sd->tau_ok) {
            torque_bad |= chan_update(ck, &c[CHK_TORQUE * n + i], sd->tau[i]);
            double p = sd->tau[i] * sd->qd[i];
            ptotal += p;
            chan_update(ck, &c[CHK_POWER * n + i], p);
        } else {
            chan_skip(ck, &c[CHK_TORQUE * n + i]);
            chan_skip(ck, &c[CHK_POWER * n + i]);
        }
        const ModelMotor *m = ck->motor[dev][i];
        if (sd->tau_ok && m)
            chan_update(ck, &c[CHK_VOLTAGE * n + i], motor_voltage(m, sd->qd[i], sd->qdd[i], sd->tau[i]));
        else
            chan_skip(ck, &c[CHK_VOLTAGE * n + i]);
    }
    ChecksChannel *dc = c + CHK_NAXISQTY * n;
    if (sd->tau_ok) chan_update(ck, &dc[0], ptotal);
    else chan_skip(ck, &dc[0]);
    if (torque_bad) torque_scale(ck, s, dev, &c[CHK_TORQUE * n], src);
}

/* The singularity channel c of device dev for one cycle (NAN: the back-end has no measure). */
static void check_sing(Checks *ck, const SampleDevice *sd, ChecksChannel *c)
{
    if (isnan(sd->sing)) chan_skip(ck, c);
    else chan_update(ck, c, sd->sing);
}

/* The per-device, output and rate channels of one device for one cycle. */
static void check_device_outputs(Checks *ck, const Sample *s, int dev, ChecksChannel *c, int nchan)
{
    const SampleDeviceInfo *info = &ck->lay->dev[dev];
    const SampleDevice *sd = &s->dev[dev];
    int n = info->naxes;
    ChecksChannel *dc = c + CHK_NAXISQTY * n;
    check_sing(ck, sd, &dc[1]);
    chan_update(ck, &dc[2], sd->ik_status < 0 ? 1.0 : 0.0);
    ChecksChannel *oc = dc + 3;
    for (int o = 0; o < info->nout; o++) chan_update(ck, &oc[o], sd->out[o]);
    for (ChecksChannel *rc = oc + info->nout; rc < c + nchan; rc++) {
        int o = rc->src_output;
        if (ck->have_prev) chan_update(ck, rc, (sd->out[o] - ck->prev_out[dev][o]) / ck->cfg.cycle);
        else chan_skip(ck, rc);
    }
}

/* The cycles before the program's first statement (the start state at t = 0) have no statement: a violation they
 * opened (and the torque time scale's note) is charged to the first statement that follows, so that no violation
 * is reported at line 0. */
static __attribute__((noinline)) void charge_unattributed(Checks *ck, SampleSrc src)
{
    for (int i = 0; i < ck->nviol; i++) {
        if (ck->viol[i].src.line <= 0) ck->viol[i].src = src;
        if (ck->viol[i].src_peak.line <= 0) ck->viol[i].src_peak = src;
    }
    if (ck->k_dev >= 0 && ck->k_src.line <= 0) ck->k_src = src;
    ck->unattributed = 0;
}

void checks_charge_start(Checks *ck, SampleSrc src)
{
    if (ck->unattributed && src.line > 0) charge_unattributed(ck, src);
}

/* Check one cycle of every device, then remember what the differentiated channels need. */
void checks_sample(Checks *ck, const Sample *s)
{
    const SampleLayout *lay = ck->lay;
    for (int d = 0; d < lay->ndev; d++) {
        const SampleDevice *sd = &s->dev[d];
        SampleSrc src = sd->src.line > 0 ? sd->src : s->src;
        if (src.line <= 0) ck->unattributed = 1;
        else if (__builtin_expect(ck->unattributed, 0)) charge_unattributed(ck, src);
        ChecksChannel *c = ck->chan + ck->dev_base[d];
        ck->cur_t = s->t, ck->cur_src = src; /* for chan_full */
        check_axes(ck, s, d, c, src);
        int nchan = ck->dev_base[d + 1] - ck->dev_base[d];
        check_device_outputs(ck, s, d, c, nchan - ck->ferror_n[d]);
        for (int i = 0; i < ck->ferror_n[d]; i++) /* |e|, e = setpoint − actual from the closed loop */
            chan_update(ck, &c[nchan - ck->ferror_n[d] + i],
                        fabs(sd->cl[ck->ferror_group[d] * lay->dev[d].naxes + i]));
        int n = lay->dev[d].naxes;
        if (n == 6) memcpy(ck->prev_qdd[d], sd->qdd, 6 * sizeof(double)); /* a constant size: inline moves */
        else memcpy(ck->prev_qdd[d], sd->qdd, (size_t)n * sizeof(double));
        for (int o = 0; o < lay->dev[d].nout; o++) ck->prev_out[d][o] = sd->out[o];
    }
    if (ck->ncycles == 0) ck->t_first = s->t;
    ck->t_last = s->t;
    ck->ncycles++;
    ck->have_prev = 1;
}

/* }====================================================================== */

/* Measures inside [max(threshold, min), max] change neither extreme nor open a violation (chan_update). */
void checks_sing_band(const Checks *ck, int dev, double *lo, double *hi)
{
    const ChecksChannel *c = ck->chan + ck->sing_chan[dev];
    /* fmax/fmin by comparisons (the same values, NaN included: either one NaN gives the other; no libm call) */
    double a = c->lo_ok, b = c->min.v, x = c->hi_ok, y = c->max.v;
    *lo = a >= b || b != b ? a : b;
    *hi = x <= y || y != y ? x : y;
}

/* Gravity torque of a live model: τ(q, 0, 0). */
int checks_model_gravity(void *ud, int dev, const double *q, double *g)
{
    static const double zero[MODEL_MAX_DOF];
    Model *m = ((Model **)ud)[dev];
    return m ? model_inverse_dynamics(m, q, zero, zero, g) : -1;
}

/* {====================================================================== planner notes, queries */

/* Record a lowered request; the same statement lowering the same thing again only counts. */
void checks_note_limited(Checks *ck, int dev, int axis, const char *what, double requested, double applied,
                         double t, SampleSrc src)
{
    for (int i = 0; i < ck->nlimited; i++) {
        ChecksLimited *l = &ck->limited[i];
        if (l->dev == dev && l->axis == axis && strcmp(l->what, what) == 0 && sample_src_same(l->src, src)) {
            l->count++;
            return;
        }
    }
    if (ck->nlimited >= ck->limited_cap) {
        ck->limited_dropped++;
        return;
    }
    ChecksLimited *l = &ck->limited[ck->nlimited++];
    l->dev = dev, l->axis = axis, l->what = what;
    l->requested = requested, l->applied = applied, l->t = t, l->src = src, l->count = 1;
}

/* Record a free-text note; the same text from the same statement again only counts. */
void checks_note_text(Checks *ck, int dev, double t, SampleSrc src, const char *fmt, ...)
{
    char text[CHECKS_NOTE_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (int i = 0; i < ck->nnotes; i++) {
        ChecksNote *n = &ck->notes[i];
        if (n->dev == dev && sample_src_same(n->src, src) && strcmp(n->text, text) == 0) {
            n->count++;
            return;
        }
    }
    if (ck->nnotes >= ck->notes_cap) {
        ck->notes_dropped++;
        return;
    }
    ChecksNote *n = &ck->notes[ck->nnotes++];
    n->dev = dev, n->t = t, n->src = src, n->count = 1;
    memcpy(n->text, text, sizeof text);
}

/* Violation runs recorded and dropped. */
long checks_violation_count(const Checks *ck)
{
    return ck->nviol + ck->viol_dropped;
}

/* The verdict: no violation of any kind. */
int checks_passed(const Checks *ck)
{
    return checks_violation_count(ck) == 0;
}

/* Find a channel by device, quantity and index (linear: for reports and tests, not the cycle). */
const ChecksChannel *checks_channel(const Checks *ck, int dev, ChecksQty q, int index)
{
    if (dev < 0 || dev >= ck->lay->ndev) return NULL;
    for (int i = ck->dev_base[dev]; i < ck->dev_base[dev + 1]; i++)
        if (ck->chan[i].qty == (int)q && ck->chan[i].index == index) return &ck->chan[i];
    return NULL;
}

/* "position", "speed", ... */
const char *checks_qty_name(ChecksQty q)
{
    return (q >= 0 && q < CHK_NQTY) ? qty_names[q] : "?";
}

/* 1 when the channel's axis is prismatic. */
static int prismatic(const Checks *ck, const ChecksChannel *c)
{
    const ModelDesc *d = ck->lay->dev[c->dev].desc;
    return d && c->index >= 0 && c->index < d->njoints && d->joint[c->index].type == MODEL_PRISMATIC;
}

/* SI unit of a channel's values by joint type; "" for the model's outputs (their own units). */
const char *checks_unit(const Checks *ck, const ChecksChannel *c)
{
    if (c->qty < CHK_NAXISQTY) return axis_units[c->qty][prismatic(ck, c)];
    if (c->qty == CHK_FERROR) return axis_units[CHK_POSITION][prismatic(ck, c)];
    if (c->qty == CHK_POWER_TOTAL) return "W";
    if (c->qty == CHK_OUTPUT) return ck->lay->dev[c->dev].out_unit[c->index];
    if (c->qty == CHK_OUTPUT_RATE) return ck->lay->dev[c->dev].out_rate_unit[c->index];
    return "";
}

/* Display name: "torque"/"force", an output's name, a rate limit's name. */
const char *checks_label(const Checks *ck, const ChecksChannel *c)
{
    if (c->qty == CHK_TORQUE && prismatic(ck, c)) return "force";
    if (c->qty == CHK_OUTPUT || c->qty == CHK_OUTPUT_RATE) {
        const ModelDesc *d = ck->lay->dev[c->dev].desc;
        if (c->qty == CHK_OUTPUT) return ck->lay->dev[c->dev].out_name[c->index];
        /* the rate's own limit name ("Gdot") */
        for (int i = 0; d && i < d->noutput_limits; i++)
            if (rate_source(&ck->lay->dev[c->dev], d->output_limit[i].name) == c->index)
                return d->output_limit[i].name;
    }
    return checks_qty_name((ChecksQty)c->qty);
}

/* Distance of the extremes to the nearer limit (negative: crossed; 0 when a differentiated channel's extreme lies
 * beyond its limit but within CHECKS_DIFF_RTOL, which is not a violation). */
double checks_margin(const ChecksChannel *c)
{
    if (c->nsamples == 0) return NAN;
    double m = fmin(c->hi - c->max.v, c->min.v - c->lo);
    return (m < 0 && c->nbad == 0) ? 0.0 : m;
}

/* The margin as % of the limit (symmetric) or of the range (asymmetric). */
double checks_margin_pct(const ChecksChannel *c)
{
    double m = checks_margin(c), scale;
    if (isnan(m) || isinf(m)) return m;
    if (isfinite(c->lo) && isfinite(c->hi)) scale = (c->lo == -c->hi) ? c->hi : c->hi - c->lo;
    else scale = isfinite(c->hi) ? fabs(c->hi) : fabs(c->lo);
    return scale > 0 ? 100.0 * m / scale : NAN;
}

/* The extreme shown as "peak". */
const ChecksPoint *checks_peak(const ChecksChannel *c)
{
    if (c->qty == CHK_SINGULARITY) return &c->min;
    if (c->nsamples == 0) return &c->max;
    return fabs(c->min.v) > fabs(c->max.v) ? &c->min : &c->max;
}

/* }====================================================================== */
