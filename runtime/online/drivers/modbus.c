/* modbus.c — the "modbus" driver: Modbus TCP drives through libmodbus, register map in modbus_map.h. Each cycle is
 * one "write and read registers" request (function 23): the setpoints, outputs and cycle counter go out, the
 * status, fault code, inputs and actual positions come back (the drive's state before this setpoint).
 *
 * Options (--driver modbus:key=value,...):
 *   host=ADDR     the drive's address (default 127.0.0.1)
 *   port=N        its TCP port (default 502)
 *   unit=N        Modbus unit identifier (default 1)
 *   timeout=T     how long a request may take before it is a fault (default 20 ms, at least 2 cycles)
 *
 * A request that times out is a fault (the stop follows). From then on a request blocks at most a quarter of the
 * cycle time: a cycle first waits that long for the late reply still owed, and sends its setpoint only once it came
 * (so requests do not pile up at a slow peer, and the stop is not stretched); a setpoint not acknowledged is
 * written unconfirmed (online.csv). The disable at the end waits up to max(timeout, 0.5 s) for what is owed,
 * clears the control word and reads the status back: confirmed when the drive says it is no longer enabled. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <modbus.h>

#include "online/drivers/driver.h"
#include "online/drivers/modbus_map.h"

typedef struct {
    modbus_t *ctx;
    int n, drive_axes;
    uint16_t w[MODBUS_MAP_REGS], r[MODBUS_MAP_REGS];
    DriverFeedback fb;          /* from the last request */
    double dt, timeout;         /* s */
    int owed;                   /* a request timed out: its reply is still owed */
    int disabled_ok;            /* the drive confirmed the disable */
    char where[64];
    char fault_text[DRIVER_FAULT_LEN];
} Modbus;

static const char *const modbus_keys[] = {"host", "port", "unit", "timeout", NULL};

typedef struct {
    char host[256];
    double port, unit, timeout;
} ModbusOpts;

static int modbus_options(ModbusOpts *o, const char *opts, double dt, char *err, size_t errlen)
{
    if (driver_opts_known("modbus", opts, modbus_keys, err, errlen) < 0) return -1;
    snprintf(o->host, sizeof o->host, "127.0.0.1");
    driver_opt(opts, "host", o->host, sizeof o->host);
    o->port = 502, o->unit = 1, o->timeout = fmax(0.02, 2 * dt);
    if (driver_opt_num("modbus", opts, "port", 0, &o->port, err, errlen) < 0 ||
        driver_opt_num("modbus", opts, "unit", 0, &o->unit, err, errlen) < 0 ||
        driver_opt_num("modbus", opts, "timeout", 1, &o->timeout, err, errlen) < 0)
        return -1;
    if (o->port != floor(o->port) || o->port < 1 || o->port > 65535)
        return snprintf(err, errlen, "--driver modbus: port must be 1..65535"), -1;
    if (o->unit != floor(o->unit) || o->unit < 0 || o->unit > 255)
        return snprintf(err, errlen, "--driver modbus: unit must be 0..255"), -1;
    if (!(o->timeout > 0 && o->timeout < 10)) return snprintf(err, errlen, "--driver modbus: timeout must be 0..10 s"), -1;
    return 0;
}

static int modbus_check(const char *opts, char *err, size_t errlen)
{
    ModbusOpts o;
    return modbus_options(&o, opts, 0.001, err, errlen);
}

/* The feedback in the read area r into m->fb; -1 (fault text set) when the drive reports a fault. */
static int parse_feedback(Modbus *m)
{
    const uint16_t *r = m->r;
    for (int i = 0; i < m->n; i++) m->fb.q[i] = modbus_map_get(r + MODBUS_MAP_AXES_R + 4 * i);
    m->fb.din = modbus_map_get_bits(r + MODBUS_MAP_R_DIN);
    if (r[MODBUS_MAP_R_STATUS] & MODBUS_MAP_ST_FAULT) {
        if (!m->fault_text[0]) {
            int code = r[MODBUS_MAP_R_FAULT], axis = r[MODBUS_MAP_R_FAULT_AXIS];
            char ax[32] = "";
            if (axis) snprintf(ax, sizeof ax, " on axis %d", axis);
            snprintf(m->fault_text, sizeof m->fault_text, "modbus: %.48s reports fault %d (%s)%s", m->where, code,
                     modbus_map_fault_name(code), ax);
        }
        m->fb.fault = 1;
        return -1;
    }
    return 0;
}

static void set_io_fault(Modbus *m, const char *what)
{
    if (!m->fault_text[0])
        snprintf(m->fault_text, sizeof m->fault_text, "modbus: %.48s: %.30s: %.50s", m->where, what, modbus_strerror(errno));
    m->fb.fault = 1;
}

/* A failed open after the connection: close it, free everything. -1. */
static int open_fail(Modbus *m)
{
    modbus_close(m->ctx);
    modbus_free(m->ctx);
    free(m);
    return -1;
}

static int modbus_open(const DriverConfig *cfg, void **state, DriverCaps *caps, char *err, size_t errlen)
{
    ModbusOpts o;
    if (modbus_options(&o, cfg->opts, cfg->dt, err, errlen) < 0) return -1;
    if (cfg->naxes > MODBUS_MAP_MAX_AXES)
        return snprintf(err, errlen, "--driver modbus: %d axes; the register map carries at most %d", cfg->naxes,
                        MODBUS_MAP_MAX_AXES), -1;
    Modbus *m = calloc(1, sizeof *m);
    if (!m) return snprintf(err, errlen, "out of memory"), -1;
    m->n = cfg->naxes;
    m->dt = cfg->dt, m->timeout = o.timeout;
    snprintf(m->where, sizeof m->where, "%.40s:%d", o.host, (int)o.port);
    m->ctx = modbus_new_tcp(o.host, (int)o.port);
    if (!m->ctx) return snprintf(err, errlen, "--driver modbus: %s: %s", m->where, modbus_strerror(errno)), free(m), -1;
    modbus_set_slave(m->ctx, (int)o.unit);
    uint32_t us = (uint32_t)llround(o.timeout * 1e6);
    modbus_set_response_timeout(m->ctx, us / 1000000, us % 1000000);
    if (modbus_connect(m->ctx) < 0) {
        snprintf(err, errlen, "modbus: cannot connect to %s: %s", m->where, modbus_strerror(errno));
        modbus_free(m->ctx);
        free(m);
        return -1;
    }
    int nr = modbus_map_rcount(m->n);
    if (modbus_read_registers(m->ctx, MODBUS_MAP_READ, nr, m->r) != nr || m->r[MODBUS_MAP_R_MAGIC] != MODBUS_MAP_MAGIC) {
        snprintf(err, errlen, "modbus: %s does not answer with the irl register map (docs/ONLINE-DRIVERS.md)",
                 m->where);
        return open_fail(m);
    }
    m->drive_axes = m->r[MODBUS_MAP_R_NAXES];
    if (m->drive_axes < m->n) {
        snprintf(err, errlen, "modbus: the drive at %s has %d axes; the program has %d", m->where, m->drive_axes,
                 m->n);
        return open_fail(m);
    }
    for (int i = 0; i < m->n; i++) {
        if (modbus_map_put(m->w + MODBUS_MAP_AXES_W + 4 * i, cfg->q0[i]) < 0) {
            snprintf(err, errlen, "modbus: axis %s starts at %g, outside the register range", cfg->axis_name[i],
                     cfg->q0[i]);
            return open_fail(m);
        }
        modbus_map_put(m->w + MODBUS_MAP_AXES_W + 4 * i + 2, 0.0);
    }
    *state = m;
    *caps = (DriverCaps){.has_feedback = 1, .has_inputs = 1, .confirms = 1};
    return 0;
}

static int modbus_enable(void *state, char *err, size_t errlen)
{
    Modbus *m = state;
    int nw = modbus_map_wcount(m->n), nr = modbus_map_rcount(m->n);
    m->w[MODBUS_MAP_CONTROL] = MODBUS_MAP_CTL_RESET;
    if (modbus_write_registers(m->ctx, 0, nw, m->w) != nw)
        return snprintf(err, errlen, "modbus: %s: cannot write the setpoints: %s", m->where, modbus_strerror(errno)), -1;
    m->w[MODBUS_MAP_CONTROL] = MODBUS_MAP_CTL_ENABLE;
    if (modbus_write_and_read_registers(m->ctx, 0, nw, m->w, MODBUS_MAP_READ, nr, m->r) != nr)
        return snprintf(err, errlen, "modbus: %s: cannot enable: %s", m->where, modbus_strerror(errno)), -1;
    /* the answer predates the enable: read the state it took */
    if (modbus_read_registers(m->ctx, MODBUS_MAP_READ, nr, m->r) != nr)
        return snprintf(err, errlen, "modbus: %s: %s", m->where, modbus_strerror(errno)), -1;
    if (parse_feedback(m) < 0) return snprintf(err, errlen, "%s", m->fault_text), -1;
    if (!(m->r[MODBUS_MAP_R_STATUS] & MODBUS_MAP_ST_ENABLED))
        return snprintf(err, errlen, "modbus: the drive at %s did not enable", m->where), -1;
    return 0;
}

static int modbus_read(void *state, DriverFeedback *fb)
{
    Modbus *m = state;
    *fb = m->fb;
    return m->fb.fault ? -1 : 0;
}

static void set_timeout(Modbus *m, double t)
{
    uint32_t us = (uint32_t)llround(fmax(t, 1e-4) * 1e6);
    modbus_set_response_timeout(m->ctx, us / 1000000, us % 1000000);
}

/* Wait up to t for the reply a timed-out request still owes. 1 it came (or nothing was owed), 0 not yet. */
static int settle_owed(Modbus *m, double t)
{
    if (!m->owed) return 1;
    uint8_t rsp[MODBUS_TCP_MAX_ADU_LENGTH];
    set_timeout(m, t);
    if (modbus_receive_confirmation(m->ctx, rsp) > 0) m->owed = 0;
    set_timeout(m, m->dt / 4); /* after a timeout, the stop: no request blocks a cycle for long again */
    return !m->owed;
}

static int modbus_write(void *state, const double *q, const double *qd, uint64_t dout)
{
    Modbus *m = state;
    uint16_t *w = m->w;
    if (!settle_owed(m, m->dt / 4)) return -1; /* the slow peer still owes a reply: this setpoint is not sent */
    for (int i = 0; i < m->n; i++) {
        if (modbus_map_put(w + MODBUS_MAP_AXES_W + 4 * i, q[i]) < 0 ||
            modbus_map_put(w + MODBUS_MAP_AXES_W + 4 * i + 2, qd[i]) < 0) {
            if (!m->fault_text[0])
                snprintf(m->fault_text, sizeof m->fault_text, "modbus: axis %d setpoint out of the register range",
                         i + 1);
            m->fb.fault = 1;
            return -1;
        }
    }
    modbus_map_put_bits(w + MODBUS_MAP_DOUT, dout);
    w[MODBUS_MAP_COUNTER]++;
    int nw = modbus_map_wcount(m->n), nr = modbus_map_rcount(m->n);
    if (modbus_write_and_read_registers(m->ctx, 0, nw, w, MODBUS_MAP_READ, nr, m->r) != nr) {
        int timed_out = errno == ETIMEDOUT;
        set_io_fault(m, timed_out ? "no reply in time" : "request failed");
        if (timed_out) m->owed = 1, set_timeout(m, m->dt / 4); /* from now on a cycle blocks dt/4 at most */
        return -1;
    }
    return parse_feedback(m);
}

static void modbus_disable(void *state)
{
    Modbus *m = state;
    double t = fmax(m->timeout, 0.5);
    m->disabled_ok = 0;
    if (!settle_owed(m, t)) return;
    set_timeout(m, t);
    uint16_t st;
    if (modbus_write_register(m->ctx, MODBUS_MAP_CONTROL, 0) == 1 &&
        modbus_read_registers(m->ctx, MODBUS_MAP_READ + MODBUS_MAP_R_STATUS, 1, &st) == 1)
        m->disabled_ok = !(st & MODBUS_MAP_ST_ENABLED);
}

static int modbus_disable_confirmed(void *state) { return ((Modbus *)state)->disabled_ok; }

static const char *modbus_fault(void *state) { return ((Modbus *)state)->fault_text; }

static void modbus_close_(void *state)
{
    Modbus *m = state;
    modbus_close(m->ctx);
    modbus_free(m->ctx);
    free(m);
}

const DriverType driver_modbus = {
    .name = "modbus", .keys = modbus_keys, .check = modbus_check, .open = modbus_open, .enable = modbus_enable,
    .read = modbus_read, .write = modbus_write, .disable = modbus_disable,
    .disable_confirmed = modbus_disable_confirmed, .fault = modbus_fault,
    .close = modbus_close_,
};
