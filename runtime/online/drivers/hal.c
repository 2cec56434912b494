/* hal.c — the "hal" driver: irl as a userspace component of a running LinuxCNC HAL (Debian's linuxcnc-uspace).
 * The setpoints reach the servo thread through HAL's shared-memory stream (hal_stream_*), the one the `streamer`
 * component reads, as halstreamer fills it; the stream is pre-filled at the enable and kept between a low and a
 * high water mark (the pace hook moves the cycle's deadline), so the servo thread paces the run. The component's
 * pins: enable out; enable-in, estop and fault in; per axis pos-cmd and vel-cmd out (the setpoint the servo
 * thread takes now) and pos-fb in; digital-out-NN out and digital-in-NN in.
 *
 * Options (--driver hal:key=value,...): channel=N (streamer channel, default 0), name=NAME (component, default
 * irl), units=si|linuxcnc, dio=N (digital pins each way, default 8), low=N and high=N (water marks, in samples),
 * wait=T (how long to wait for NAME.enable-in, default 10 s), stall=T (the longest the servo thread may take no
 * sample, default 0.1 s), feedback=yes|no (default yes). docs/ONLINE-DRIVERS.md, "hal".
 *
 * Built without LinuxCNC's hal.h (IRL_HAVE_HAL undefined) the driver is still registered, and any use of it is
 * an error that says so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "online/drivers/driver.h"

static const char *const hal_keys[] = {"channel", "name", "units", "dio", "low", "high", "wait", "stall",
                                       "feedback", NULL};

#ifndef IRL_HAVE_HAL

static int hal_check(const char *opts, char *err, size_t errlen)
{
    (void)opts;
    return snprintf(err, errlen, "--driver hal: irl was built without LinuxCNC's HAL (install linuxcnc-uspace-dev "
                    "and rebuild)"), -1;
}

static int hal_open(const DriverConfig *cfg, void **state, DriverCaps *caps, char *err, size_t errlen)
{
    (void)cfg, (void)state, (void)caps;
    return hal_check("", err, errlen);
}

static int hal_enable(void *state, char *err, size_t errlen) { return (void)state, hal_check("", err, errlen); }
static int hal_read(void *state, DriverFeedback *fb) { return (void)state, fb->fault = 1, -1; }
static int hal_write(void *state, const double *q, const double *qd, uint64_t dout)
{
    return (void)state, (void)q, (void)qd, (void)dout, -1;
}
static void hal_disable(void *state) { (void)state; }
static const char *hal_fault(void *state) { return (void)state, "hal: built without LinuxCNC's HAL"; }
static void hal_close(void *state) { (void)state; }

const DriverType driver_hal = {
    .name = "hal", .keys = hal_keys, .check = hal_check, .open = hal_open, .enable = hal_enable,
    .read = hal_read, .write = hal_write, .disable = hal_disable, .fault = hal_fault, .close = hal_close,
};

#else

#include <errno.h>
#include <stdatomic.h>

#include <hal.h>

#include "osal.h"

#define HAL_STREAMER_KEY 0x48535430   /* streamer's shared-memory key for channel 0 (LinuxCNC's streamer.h) */
#define HAL_STREAMER_MAX 8            /* streamer channels */
#define HAL_DIO_MAX 64
#define HAL_PREFILL 0.2               /* s of the start position written into the stream at the enable */

/* The pin pointers: HAL requires them in its own shared memory (hal_malloc). */
typedef struct {
    hal_bit_t *enable, *enable_in, *estop, *fault;
    hal_float_t *pos_cmd[DRIVER_MAX_AXES], *vel_cmd[DRIVER_MAX_AXES], *pos_fb[DRIVER_MAX_AXES];
    hal_bit_t *dout[HAL_DIO_MAX], *din[HAL_DIO_MAX];
} HalPins;

typedef struct {
    int channel, dio, feedback, linuxcnc;
    char name[HAL_NAME_LEN + 1];
    double low, high, wait, stall;  /* low/high: samples (0: the default) */
} HalOpts;

/* One written sample, kept until the servo thread has taken it (for the pins and the following error). */
typedef struct {
    double q[DRIVER_MAX_AXES], qd[DRIVER_MAX_AXES];
    uint64_t dout;
} HalSample;

typedef struct {
    HalOpts o;
    int comp, attached, n, speeds, nbits;  /* speeds: the stream carries them after the positions */
    hal_stream_t stream;
    HalPins *p;
    double dt, scale[DRIVER_MAX_AXES];
    const double *q_enable;                /* DriverConfig.q0: where the enable holds the axes */
    long low, high, maxdepth;
    long written, consumed;                /* samples written; taken by the servo thread */
    long prefill;                          /* of the written samples, the enable's */
    _Atomic long published;                /* written, for taken() in another thread */
    int disabled_ok;                       /* hal_disable: the stream played out and the thread ran on */
    const hal_data_u *underruns;           /* streamer.N.underruns (the stream's own count stays 0) */
    int underruns0;                        /* its value once the servo thread took from the filled stream */
    int64_t progress_at;                   /* when the servo thread last took a sample, ns */
    HalSample *ring;                       /* maxdepth + 1 samples, indexed by sample number */
    long nring;
    char fault_text[DRIVER_FAULT_LEN];
} Hal;

static int hal_options(HalOpts *o, const char *opts, char *err, size_t errlen)
{
    if (driver_opts_known("hal", opts, hal_keys, err, errlen) < 0) return -1;
    double channel = 0, dio = 8;
    o->low = o->high = 0, o->wait = 10, o->stall = 0.1;
    if (driver_opt_num("hal", opts, "channel", 0, &channel, err, errlen) < 0 ||
        driver_opt_num("hal", opts, "dio", 0, &dio, err, errlen) < 0 ||
        driver_opt_num("hal", opts, "low", 0, &o->low, err, errlen) < 0 ||
        driver_opt_num("hal", opts, "high", 0, &o->high, err, errlen) < 0 ||
        driver_opt_num("hal", opts, "wait", 1, &o->wait, err, errlen) < 0 ||
        driver_opt_num("hal", opts, "stall", 1, &o->stall, err, errlen) < 0)
        return -1;
    if (channel != floor(channel) || channel < 0 || channel >= HAL_STREAMER_MAX)
        return snprintf(err, errlen, "--driver hal: channel must be 0..%d", HAL_STREAMER_MAX - 1), -1;
    if (dio != floor(dio) || dio < 0 || dio > HAL_DIO_MAX)
        return snprintf(err, errlen, "--driver hal: dio must be 0..%d", HAL_DIO_MAX), -1;
    if (o->low != floor(o->low) || o->high != floor(o->high) || o->low < 0 || o->high < 0 ||
        (o->low && o->high && o->high <= o->low))
        return snprintf(err, errlen, "--driver hal: low and high are whole numbers of samples, low < high"), -1;
    if (!(o->wait >= 0) || !(o->stall > 0)) return snprintf(err, errlen, "--driver hal: wait >= 0, stall > 0"), -1;
    o->channel = (int)channel, o->dio = (int)dio;
    snprintf(o->name, sizeof o->name, "irl");
    driver_opt(opts, "name", o->name, sizeof o->name);
    if (!o->name[0] || strspn(o->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
        strlen(o->name) || strlen(o->name) > 20)
        return snprintf(err, errlen, "--driver hal: name: up to 20 letters, digits, '_' or '-'"), -1;
    char v[32] = "si";
    driver_opt(opts, "units", v, sizeof v);
    if (strcmp(v, "si") && strcmp(v, "linuxcnc"))
        return snprintf(err, errlen, "--driver hal: units=%s: give si or linuxcnc", v), -1;
    o->linuxcnc = strcmp(v, "linuxcnc") == 0;
    snprintf(v, sizeof v, "yes");
    driver_opt(opts, "feedback", v, sizeof v);
    if (strcmp(v, "yes") && strcmp(v, "no"))
        return snprintf(err, errlen, "--driver hal: feedback=%s: give yes or no", v), -1;
    o->feedback = strcmp(v, "yes") == 0;
    return 0;
}

static int hal_check(const char *opts, char *err, size_t errlen)
{
    HalOpts o;
    return hal_options(&o, opts, err, errlen);
}

/* The stream's element types as streamer's cfg letters ("ffffff"). */
static void stream_types(Hal *h, char *s, size_t len)
{
    int n = hal_stream_element_count(&h->stream);
    size_t k = 0;
    for (int i = 0; i < n && k + 1 < len; i++) {
        hal_type_t t = hal_stream_element_type(&h->stream, i);
        s[k++] = t == HAL_FLOAT ? 'f' : t == HAL_BIT ? 'b' : t == HAL_S32 ? 's' : t == HAL_U32 ? 'u' : '?';
    }
    s[k] = '\0';
}

/* The stream's layout against the axes: n floats (positions) or 2n (positions, then speeds), then optionally
 * bits (digital outputs 0, 1, ...). 0, or -1 with a message. */
static int check_layout(Hal *h, char *err, size_t errlen)
{
    char types[HAL_STREAM_MAX_PINS + 2];
    stream_types(h, types, sizeof types);
    int nf = (int)strspn(types, "f"), nb = (int)strspn(types + nf, "b");
    if ((nf == h->n || nf == 2 * h->n) && types[nf + nb] == '\0') {
        h->speeds = nf == 2 * h->n;
        h->nbits = nb;
        return 0;
    }
    char want[DRIVER_MAX_AXES + 1];
    memset(want, 'f', (size_t)h->n);
    want[h->n] = '\0';
    return snprintf(err, errlen, "hal: streamer channel %d carries %d elements (cfg=%s); the program has %d axes: "
                    "give cfg=%s (positions), the f's twice (then speeds), optionally followed by b's (digital "
                    "outputs 0, 1, ...)", h->o.channel, (int)strlen(types), types, h->n, want), -1;
}

/* A pin NAME.suffix of type t and direction d into *ptr. 0, or -1 with a message. */
static int new_pin(Hal *h, hal_type_t t, hal_pin_dir_t d, void **ptr, const char *suffix, char *err, size_t errlen)
{
    char pin[HAL_NAME_LEN + 32];
    snprintf(pin, sizeof pin, "%s.%s", h->o.name, suffix);
    int r = strlen(pin) > HAL_NAME_LEN ? -EINVAL : hal_pin_new(pin, t, d, ptr, h->comp);
    if (r < 0) return snprintf(err, errlen, "hal: cannot create pin %s: %s", pin, strerror(-r)), -1;
    return 0;
}

/* Every pin of the component. 0, or -1 with a message. */
static int make_pins(Hal *h, const DriverConfig *cfg, char *err, size_t errlen)
{
    HalPins *p = h->p;
    char s[HAL_NAME_LEN + 32];
    if (new_pin(h, HAL_BIT, HAL_OUT, (void **)&p->enable, "enable", err, errlen) < 0 ||
        new_pin(h, HAL_BIT, HAL_IN, (void **)&p->enable_in, "enable-in", err, errlen) < 0 ||
        new_pin(h, HAL_BIT, HAL_IN, (void **)&p->estop, "estop", err, errlen) < 0 ||
        new_pin(h, HAL_BIT, HAL_IN, (void **)&p->fault, "fault", err, errlen) < 0)
        return -1;
    for (int i = 0; i < h->n; i++) {
        const char *a = cfg->axis_name[i];
        snprintf(s, sizeof s, "%.40s.pos-cmd", a);
        if (new_pin(h, HAL_FLOAT, HAL_OUT, (void **)&p->pos_cmd[i], s, err, errlen) < 0) return -1;
        snprintf(s, sizeof s, "%.40s.vel-cmd", a);
        if (new_pin(h, HAL_FLOAT, HAL_OUT, (void **)&p->vel_cmd[i], s, err, errlen) < 0) return -1;
        snprintf(s, sizeof s, "%.40s.pos-fb", a);
        if (new_pin(h, HAL_FLOAT, HAL_IN, (void **)&p->pos_fb[i], s, err, errlen) < 0) return -1;
    }
    for (int c = 0; c < h->o.dio; c++) {
        snprintf(s, sizeof s, "digital-out-%02d", c);
        if (new_pin(h, HAL_BIT, HAL_OUT, (void **)&p->dout[c], s, err, errlen) < 0) return -1;
        snprintf(s, sizeof s, "digital-in-%02d", c);
        if (new_pin(h, HAL_BIT, HAL_IN, (void **)&p->din[c], s, err, errlen) < 0) return -1;
    }
    return 0;
}

static void hal_close(void *state)
{
    Hal *h = state;
    if (h->attached) hal_stream_detach(&h->stream);
    if (h->comp > 0) hal_exit(h->comp);
    free(h->ring);
    free(h);
}

/* The water marks: as given; else low 20 ms of samples (half of high when only high is given) and high twice low
 * or 40 ms, whichever is more; high below the stream's depth. 0, or -1 with a message. */
static int water_marks(Hal *h, char *err, size_t errlen)
{
    h->maxdepth = hal_stream_maxdepth(&h->stream);
    h->low = h->o.low ? (long)h->o.low : h->o.high ? (long)h->o.high / 2 : (long)ceil(0.02 / h->dt - 1e-9);
    h->high = h->o.high ? (long)h->o.high : (long)fmax(2.0 * (double)h->low, ceil(0.04 / h->dt - 1e-9));
    if (h->low < 1 || h->high <= h->low)
        return snprintf(err, errlen, "--driver hal: water marks low=%ld, high=%ld: give 1 <= low < high", h->low,
                        h->high), -1;
    if (h->high >= h->maxdepth)
        return snprintf(err, errlen, "hal: streamer channel %d holds %ld samples; the high water mark (%ld) needs "
                        "more (loadrt streamer depth=...)", h->o.channel, h->maxdepth, h->high), -1;
    h->nring = h->maxdepth + 2;
    h->ring = calloc((size_t)h->nring, sizeof *h->ring);
    if (!h->ring) return snprintf(err, errlen, "out of memory"), -1;
    return 0;
}

static int hal_open(const DriverConfig *cfg, void **state, DriverCaps *caps, char *err, size_t errlen)
{
    Hal *h = calloc(1, sizeof *h);
    if (!h) return snprintf(err, errlen, "out of memory"), -1;
    if (hal_options(&h->o, cfg->opts, err, errlen) < 0) return free(h), -1;
    h->n = cfg->naxes;
    h->dt = cfg->dt;
    for (int i = 0; i < h->n; i++) h->scale[i] = !h->o.linuxcnc ? 1 : cfg->linear[i] ? 1000.0 : 180.0 / M_PI;
    h->comp = hal_init(h->o.name);
    if (h->comp < 0)
        return snprintf(err, errlen, "hal: cannot join HAL as component '%s' (hal_init: %s): is the name taken, or "
                        "HAL's shared memory closed to this user?", h->o.name, strerror(-h->comp)), free(h), -1;
    int r = hal_stream_attach(&h->stream, h->comp, HAL_STREAMER_KEY + h->o.channel, NULL);
    if (r < 0) {
        snprintf(err, errlen, "hal: no streamer channel %d (%s): is a HAL running, with loadrt streamer depth=... "
                 "cfg=... and addf streamer.%d to its servo thread? (docs/ONLINE-DRIVERS.md)", h->o.channel,
                 strerror(-r), h->o.channel);
        return hal_close(h), -1;
    }
    h->attached = 1;
    h->p = hal_malloc(sizeof *h->p);
    if (!h->p) return snprintf(err, errlen, "hal: out of HAL shared memory"), hal_close(h), -1;
    memset(h->p, 0, sizeof *h->p);
    if (check_layout(h, err, errlen) < 0 || water_marks(h, err, errlen) < 0 || make_pins(h, cfg, err, errlen) < 0)
        return hal_close(h), -1;
    r = hal_ready(h->comp);
    if (r < 0) return snprintf(err, errlen, "hal: hal_ready: %s", strerror(-r)), hal_close(h), -1;
    h->q_enable = cfg->q0;
    *state = h;
    *caps = (DriverCaps){.has_feedback = h->o.feedback, .has_inputs = h->o.dio > 0,
                         .confirms = DRIVER_CONFIRMS_TAKEN};
    return 0;
}

/* Append one sample to the stream (scaled), and to the ring. 0, or -1 when the stream is full. */
static int put_sample(Hal *h, const double *q, const double *qd, uint64_t dout)
{
    union hal_stream_data d[HAL_STREAM_MAX_PINS];
    int k = 0;
    for (int i = 0; i < h->n; i++) d[k++].f = q[i] * h->scale[i];
    for (int i = 0; h->speeds && i < h->n; i++) d[k++].f = qd[i] * h->scale[i];
    for (int c = 0; c < h->nbits; c++) d[k++].b = (dout >> c) & 1;
    if (!hal_stream_writable(&h->stream) || hal_stream_write(&h->stream, d) < 0) return -1;
    HalSample *s = &h->ring[h->written % h->nring];
    memcpy(s->q, q, (size_t)h->n * sizeof *q);
    memcpy(s->qd, qd, (size_t)h->n * sizeof *qd);
    s->dout = dout;
    h->written++;
    atomic_store_explicit(&h->published, h->written, memory_order_release);
    return 0;
}

/* Wait up to t seconds for cond(h) (polled every 1 ms). 1 met, 0 not. */
static int wait_for(Hal *h, double t, int (*cond)(Hal *))
{
    int64_t end = osal_now() + (int64_t)(t * 1e9);
    while (!cond(h)) {
        if (osal_now() >= end) return 0;
        osal_sleep(1000000);
    }
    return 1;
}

static int gate_open(Hal *h) { return *h->p->enable_in || *h->p->estop || *h->p->fault; }
static int taken_two(Hal *h) { return h->written - hal_stream_depth(&h->stream) >= 2; }
static int drained(Hal *h) { return hal_stream_depth(&h->stream) == 0; }

/* Wait up to `wait` for NAME.enable-in (or E-stop, fault). 0, or -1 with a message. */
static int wait_gate(Hal *h, char *err, size_t errlen)
{
    const char *nm = h->o.name;
    if (!wait_for(h, h->o.wait, gate_open))
        return snprintf(err, errlen, "hal: %s.enable-in stayed FALSE for %.3g s (net it to the machine's enable "
                        "chain, or setp %s.enable-in 1)", nm, h->o.wait, nm), -1;
    return 0;
}

/* Once the machine is wired (NAME.enable-in): the pos-fb pins; without feedback, the start (nothing to tell). */
static int hal_actual(void *state, double *q, char *err, size_t errlen)
{
    Hal *h = state;
    if (wait_gate(h, err, errlen) < 0) return -1;
    for (int i = 0; i < h->n; i++) q[i] = h->o.feedback ? *h->p->pos_fb[i] / h->scale[i] : h->q_enable[i];
    return 0;
}

/* Wait for NAME.enable-in, pre-fill the stream with the enable position (HAL_PREFILL, at most the stream's depth),
 * see the servo thread take from it, then raise NAME.enable. */
static int hal_enable(void *state, char *err, size_t errlen)
{
    Hal *h = state;
    const char *nm = h->o.name;
    if (wait_gate(h, err, errlen) < 0) return -1;
    if (*h->p->estop) return snprintf(err, errlen, "hal: %s.estop is TRUE: not enabling", nm), -1;
    if (*h->p->fault) return snprintf(err, errlen, "hal: %s.fault is TRUE: not enabling", nm), -1;
    if (hal_stream_depth(&h->stream) != 0)
        return snprintf(err, errlen, "hal: streamer channel %d already holds %d samples: another writer "
                        "(halstreamer?) uses it", h->o.channel, hal_stream_depth(&h->stream)), -1;
    char pin[HAL_NAME_LEN + 1];
    hal_type_t type;
    hal_data_u *under;
    snprintf(pin, sizeof pin, "streamer.%d.underruns", h->o.channel);
    if (hal_get_pin_value_by_name(pin, &type, &under, NULL) < 0 || type != HAL_S32)
        return snprintf(err, errlen, "hal: no s32 pin %s: is this stream streamer's?", pin), -1;
    h->underruns = under;
    double zero[DRIVER_MAX_AXES] = {0};
    /* enough to cover the normal thread's way to the first real-time cycle on a busy machine; the first cycles
     * then wait (pace) until the stream is down between the marks, before any motion */
    long fill = (long)fmin((double)h->maxdepth - 1, fmax((double)(h->low + h->high) / 2, ceil(HAL_PREFILL / h->dt)));
    for (int i = 0; i < h->n; i++) *h->p->pos_cmd[i] = h->q_enable[i] * h->scale[i], *h->p->vel_cmd[i] = 0;
    for (long k = 0; k < fill; k++)
        if (put_sample(h, h->q_enable, zero, 0) < 0) return snprintf(err, errlen, "hal: cannot pre-fill the stream"), -1;
    h->prefill = fill;
    if (!wait_for(h, fmax(h->o.stall, 50 * h->dt), taken_two))
        return snprintf(err, errlen, "hal: the servo thread does not read streamer channel %d (addf streamer.%d "
                        "to a thread, then start)", h->o.channel, h->o.channel), -1;
    h->underruns0 = h->underruns->s;
    h->consumed = h->written - hal_stream_depth(&h->stream);
    h->progress_at = osal_now();
    *h->p->enable = 1;
    return 0;
}

/* The first fault condition of the HAL side into fault_text ("" none). */
static void check_faults(Hal *h, int64_t now)
{
    const char *nm = h->o.name;
    char *f = h->fault_text;
    size_t n = sizeof h->fault_text;
    int under = h->underruns->s - h->underruns0;
    if (*h->p->estop) snprintf(f, n, "hal: E-stop (%s.estop)", nm);
    else if (*h->p->fault) snprintf(f, n, "hal: %s.fault is TRUE (drive fault)", nm);
    else if (!*h->p->enable_in) snprintf(f, n, "hal: %s.enable-in fell (the machine withdrew its enable)", nm);
    else if (under > 0)
        snprintf(f, n, "hal: underrun: streamer channel %d ran empty for %d periods (irl was held up beyond the "
                 "stream's lead: raise low and high)", h->o.channel, under);
    else if ((double)(now - h->progress_at) * 1e-9 > h->o.stall)
        snprintf(f, n, "hal: the servo thread took no sample from streamer channel %d for %.3g s", h->o.channel,
                 (double)(now - h->progress_at) * 1e-9);
}

static int hal_read(void *state, DriverFeedback *fb)
{
    Hal *h = state;
    HalPins *p = h->p;
    int64_t now = osal_now();
    for (int i = 0; i < h->n; i++) fb->q[i] = *p->pos_fb[i] / h->scale[i];
    long consumed = h->written - hal_stream_depth(&h->stream);
    if (consumed != h->consumed) h->consumed = consumed, h->progress_at = now;
    /* the sample the servo thread holds now: what the feedback answers */
    const HalSample *s = &h->ring[(consumed > 0 ? consumed - 1 : 0) % h->nring];
    for (int i = 0; i < h->n; i++) {
        *p->pos_cmd[i] = s->q[i] * h->scale[i];
        *p->vel_cmd[i] = s->qd[i] * h->scale[i];
        fb->cmd[i] = s->q[i];
    }
    fb->has_cmd = 1;
    fb->din = 0;
    for (int c = 0; c < h->o.dio; c++) {
        *p->dout[c] = (s->dout >> c) & 1;
        fb->din |= (uint64_t)(*p->din[c] != 0) << c;
    }
    if (!h->fault_text[0]) check_faults(h, now);
    /* a condition that persists keeps reporting; its first text stays */
    int active = *p->estop || *p->fault || !*p->enable_in || h->fault_text[0];
    fb->fault = active;
    return active ? -1 : 0;
}

/* The stream's depth against the marks; 0 once the servo thread has stalled (nothing would drain it: the stop
 * ramp is then written at irl's own pace until the stream is full). */
static int hal_pace(void *state)
{
    Hal *h = state;
    if ((double)(osal_now() - h->progress_at) * 1e-9 > h->o.stall) return 0;
    long depth = hal_stream_depth(&h->stream);
    return depth > h->high ? (int)(depth - h->high) : depth < h->low ? -1 : 0;
}

static int hal_write(void *state, const double *q, const double *qd, uint64_t dout)
{
    Hal *h = state;
    if (put_sample(h, q, qd, dout) == 0) return 0;
    if (!h->fault_text[0])
        snprintf(h->fault_text, sizeof h->fault_text, "hal: streamer channel %d is full (%ld samples): the servo "
                 "thread is not reading it", h->o.channel, h->maxdepth);
    return -1;
}

static int ran_on(Hal *h) { return h->underruns->s != h->underruns0; }

/* Let the servo thread play what the stream still holds (bounded), then drop NAME.enable. Confirmed when the
 * stream played out (the last setpoint, at rest, reached the pins) and the servo thread then ran a period with
 * NAME.enable FALSE (it counts an underrun each period it finds the stream empty). */
static void hal_disable(void *state)
{
    Hal *h = state;
    int played = wait_for(h, (double)hal_stream_depth(&h->stream) * h->dt + h->o.stall, drained);
    *h->p->enable = 0;
    h->underruns0 = h->underruns->s;
    h->disabled_ok = played && wait_for(h, h->o.stall, ran_on);
}

static int hal_disable_confirmed(void *state) { return ((Hal *)state)->disabled_ok; }

/* The setpoints write() put into the stream that the servo thread has taken (DRIVER_CONFIRMS_TAKEN). A sample
 * written between the two reads counts as not taken yet. */
static long hal_taken(void *state)
{
    Hal *h = state;
    long w = atomic_load_explicit(&h->published, memory_order_acquire);
    long t = w - hal_stream_depth(&h->stream) - h->prefill;
    return t > 0 ? t : 0;
}

static const char *hal_fault(void *state) { return ((Hal *)state)->fault_text; }

const DriverType driver_hal = {
    .name = "hal", .keys = hal_keys, .check = hal_check, .open = hal_open, .actual = hal_actual,
    .enable = hal_enable, .read = hal_read, .write = hal_write, .disable = hal_disable,
    .disable_confirmed = hal_disable_confirmed, .fault = hal_fault, .close = hal_close, .pace = hal_pace,
    .taken = hal_taken,
};

#endif
