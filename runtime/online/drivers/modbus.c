/* modbus.c — the "modbus" driver: Modbus TCP drives through libmodbus, laid out by a register map (src/regmap.h,
 * read from a map file by the CLI; docs/ONLINE-DRIVERS.md). The map places each object (controlword, statusword,
 * target and actual position, ...) in the holding registers with its type, word order, scale and function codes;
 * the driver plans from it, once, the requests of a cycle: one "write and read registers" (function 23) for the
 * objects marked 23, write runs (16, or 6 for one register) and read spans (3) for the others.
 *
 * Options (--driver modbus:key=value,...):
 *   host=ADDR     the drive's address (default 127.0.0.1)
 *   port=N        its TCP port (default 502)
 *   unit=N        Modbus unit identifier (default 1)
 *   timeout=T     how long a cycle's requests may take together before it is a fault (default 20 ms, at least
 *                 2 cycles)
 *   map=FILE      the register map (read by the CLI; default: the emulator's, drives/emulator.map)
 *   mode=csp|csv  the CiA 402 mode of operation, over the map's
 *
 * Before the enable, actual reads where the axes stand (position_actual is readable in every state); the enable
 * writes the position the caller gives as the target (the drive holds there), then walks the drive's state
 * machine (the map's profile: CiA 402, or the emulator's one bit), confirmed by the statusword; each transition
 * may take the map's state_timeout. Before the first cycle a request may take max(timeout, 0.5 s). A request that
 * times out is a fault (the stop follows); from then on a cycle blocks at most a quarter of the cycle time: it
 * first waits for the late reply still owed, and sends its setpoint only once it came (requests do not pile up at a
 * slow peer, and the stop is not stretched); a setpoint not acknowledged is written unconfirmed (online.csv). The
 * disable at the end waits up to max(timeout, 0.5 s) for what is owed, switches the power stage off and reads the
 * statusword back until it says so (at most the map's state_timeout more): disable_confirmed, and
 * disable_unconfirmed names the axes whose statusword did not (every axis when one statusword speaks for the
 * drive). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <modbus.h>

#include "online/drivers/driver.h"
#include "online/drivers/modbus_map.h"
#include "osal.h"
#include "regmap.h"

#define MB_MAX_REQ 64       /* requests per cycle */
#define MB_REGS 65536       /* the holding-register address space */
#define MB_POLL_NS 1000000  /* between two statusword reads while the drive changes state */
#define MB_SETUP_TIMEOUT 0.5 /* s, the least a request may take before the first cycle (opening, enabling) */

/* CiA 402 statusword: the device states (IEC 61800-7-201, table "state coding") and controlword commands. */
enum { ST_NOT_READY, ST_SWITCH_ON_DISABLED, ST_READY, ST_SWITCHED_ON, ST_ENABLED, ST_QUICK_STOP, ST_FAULT_REACTION,
       ST_FAULT };
static const char *const state_names[] = {"Not ready to switch on", "Switch on disabled", "Ready to switch on",
                                          "Switched on", "Operation enabled", "Quick stop active",
                                          "Fault reaction active", "Fault"};
enum { CW_DISABLE_VOLTAGE = 0x0000, CW_SHUTDOWN = 0x0006, CW_SWITCH_ON = 0x0007, CW_ENABLE_OPERATION = 0x000F,
       CW_FAULT_RESET = 0x0080 };
#define SW_FAULT 0x0008

/* One request of the cycle: fc 23 (write then read), 16 or 6 (write), 3 (read). */
typedef struct {
    int fc;
    int waddr, wn, raddr, rn;
} Req;

typedef struct {
    modbus_t *ctx;
    RegMap map;
    int n;
    const int *linear;
    const char (*axis_name)[DRIVER_NAME_LEN];
    const double *q_enable;     /* DriverConfig.q0: where the enable holds the axes */
    uint16_t *w, *r;            /* images of the holding registers written and read (MB_REGS each) */
    Req req[MB_MAX_REQ];
    int nreq;
    DriverFeedback fb;          /* from the last cycle */
    double dt, timeout;         /* s */
    int mode;                   /* REGMAP_MODE_* */
    int owed;                   /* a request timed out: its reply is still owed */
    int degraded;               /* after a timeout: the cycle's requests share a quarter of the cycle */
    int disabled_ok;            /* the drive confirmed the disable */
    uint32_t not_off;           /* after a disable not confirmed: the axes that did not confirm it (bit k: axis k) */
    int live;                   /* the enable began and no disable followed yet: close disables first */
    char where[64];
    char fault_text[DRIVER_FAULT_LEN];
} Modbus;

static const char *const modbus_keys[] = {"host", "port", "unit", "timeout", "map", "mode", NULL};

typedef struct {
    char host[256];
    double port, unit, timeout;
    int mode;                   /* 0: the map's */
} ModbusOpts;

static int modbus_options(ModbusOpts *o, const char *opts, double dt, char *err, size_t errlen)
{
    if (driver_opts_known("modbus", opts, modbus_keys, err, errlen) < 0) return -1;
    snprintf(o->host, sizeof o->host, "127.0.0.1");
    driver_opt(opts, "host", o->host, sizeof o->host);
    o->port = 502, o->unit = 1, o->timeout = fmax(0.02, 2 * dt), o->mode = 0;
    if (driver_opt_num("modbus", opts, "port", 0, &o->port, err, errlen) < 0 ||
        driver_opt_num("modbus", opts, "unit", 0, &o->unit, err, errlen) < 0 ||
        driver_opt_num("modbus", opts, "timeout", 1, &o->timeout, err, errlen) < 0)
        return -1;
    if (o->port != floor(o->port) || o->port < 1 || o->port > 65535)
        return snprintf(err, errlen, "--driver modbus: port must be 1..65535"), -1;
    if (o->unit != floor(o->unit) || o->unit < 0 || o->unit > 255)
        return snprintf(err, errlen, "--driver modbus: unit must be 0..255"), -1;
    if (!(o->timeout > 0 && o->timeout < 10)) return snprintf(err, errlen, "--driver modbus: timeout must be 0..10 s"), -1;
    char mode[16];
    if (driver_opt(opts, "mode", mode, sizeof mode)) {
        if (strcmp(mode, "csp") == 0) o->mode = REGMAP_MODE_CSP;
        else if (strcmp(mode, "csv") == 0) o->mode = REGMAP_MODE_CSV;
        else return snprintf(err, errlen, "--driver modbus: mode must be csp or csv"), -1;
    }
    return 0;
}

static int modbus_check(const char *opts, char *err, size_t errlen)
{
    ModbusOpts o;
    return modbus_options(&o, opts, 0.001, err, errlen);
}

/* ---- Objects in the register images. --------------------------------------------------------------------- */

static int type_regs(RegMapType t) { return t == REGMAP_UINT64 ? 4 : t == REGMAP_INT16 || t == REGMAP_UINT16 ? 1 : 2; }

static const RegMapObject *obj(const Modbus *m, int id) { return &m->map.obj[id]; }
static int has(const Modbus *m, int id) { return m->map.obj[id].present; }
static int addr(const Modbus *m, int id, int axis) { return obj(m, id)->reg + obj(m, id)->stride * axis; }

/* The raw value's words into the image at the object's registers, in its word order. */
static void put_raw(const Modbus *m, uint16_t *img, int id, int axis, uint64_t raw)
{
    const RegMapObject *o = obj(m, id);
    int k = type_regs(o->type), a = addr(m, id, axis);
    for (int i = 0; i < k; i++) img[a + (o->low_first ? i : k - 1 - i)] = (uint16_t)(raw >> (16 * i));
}

static uint64_t get_raw(const Modbus *m, const uint16_t *img, int id, int axis)
{
    const RegMapObject *o = obj(m, id);
    int k = type_regs(o->type), a = addr(m, id, axis);
    uint64_t raw = 0;
    for (int i = 0; i < k; i++) raw |= (uint64_t)img[a + (o->low_first ? i : k - 1 - i)] << (16 * i);
    return raw;
}

static double scale(const Modbus *m, int id, int axis)
{
    return m->linear[axis] ? obj(m, id)->scale_m : obj(m, id)->scale_rad;
}

/* x (SI) as the object's counts into the write image; 0, or -1 when out of the type's range (image untouched). */
static int put_si(Modbus *m, int id, int axis, double x)
{
    double c = x / scale(m, id, axis);
    uint64_t raw;
    switch (obj(m, id)->type) {
    case REGMAP_FLOAT32: {
        if (!(fabs(c) <= FLT_MAX)) return -1;
        float f = (float)c;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        raw = u;
        break;
    }
    case REGMAP_INT16: c = nearbyint(c); if (!(c >= -32768.0 && c <= 32767.0)) return -1; raw = (uint16_t)(int16_t)c; break;
    case REGMAP_UINT16: c = nearbyint(c); if (!(c >= 0 && c <= 65535.0)) return -1; raw = (uint16_t)c; break;
    case REGMAP_INT32:
        c = nearbyint(c);
        if (!(c >= -2147483648.0 && c <= 2147483647.0)) return -1;
        raw = (uint32_t)(int32_t)c;
        break;
    default: c = nearbyint(c); if (!(c >= 0 && c <= 4294967295.0)) return -1; raw = (uint32_t)c; break;
    }
    put_raw(m, m->w, id, axis, raw);
    return 0;
}

/* The object's value from the read image, SI (times its scale; plain objects: scale 1). */
static double get_value(const Modbus *m, int id, int axis)
{
    uint64_t raw = get_raw(m, m->r, id, axis);
    double c;
    switch (obj(m, id)->type) {
    case REGMAP_FLOAT32: {
        uint32_t u = (uint32_t)raw;
        float f;
        memcpy(&f, &u, sizeof f);
        c = f;
        break;
    }
    case REGMAP_INT16: c = (int16_t)(uint16_t)raw; break;
    case REGMAP_INT32: c = (int32_t)(uint32_t)raw; break;
    default: c = (double)raw; break;
    }
    return obj(m, id)->scale_rad || obj(m, id)->scale_m ? c * scale(m, id, axis) : c;
}

static uint16_t statusword(const Modbus *m, int axis) { return (uint16_t)get_raw(m, m->r, REGMAP_STATUSWORD, axis); }

/* ---- The requests. ---------------------------------------------------------------------------------------- */

static void set_timeout(Modbus *m, double t)
{
    uint32_t us = (uint32_t)llround(fmax(t, 1e-4) * 1e6);
    modbus_set_response_timeout(m->ctx, us / 1000000, us % 1000000);
}

static void set_io_fault(Modbus *m, const char *what)
{
    if (!m->fault_text[0])
        snprintf(m->fault_text, sizeof m->fault_text, "modbus: %.48s: %.30s: %.50s", m->where, what, modbus_strerror(errno));
    m->fb.fault = 1;
}

/* One request; 0, or -1 (errno set by libmodbus). Function 23 writes, then reads. */
static int transfer(Modbus *m, const Req *q)
{
    switch (q->fc) {
    case 23:
        return modbus_write_and_read_registers(m->ctx, q->waddr, q->wn, m->w + q->waddr, q->raddr, q->rn,
                                               m->r + q->raddr) == q->rn ? 0 : -1;
    case 16: return modbus_write_registers(m->ctx, q->waddr, q->wn, m->w + q->waddr) == q->wn ? 0 : -1;
    case 6: return modbus_write_register(m->ctx, q->waddr, m->w[q->waddr]) == 1 ? 0 : -1;
    default: return modbus_read_registers(m->ctx, q->raddr, q->rn, m->r + q->raddr) == q->rn ? 0 : -1;
    }
}

/* Every request of the cycle plan whose direction is asked for: writes (function 23 as 16), reads (23 as 3), or
 * both (the plan as it is). 0, or -1 with errno. For the normal thread (enable), not the cycle. */
enum { DO_WRITES = 1, DO_READS = 2 };
static int plan_run(Modbus *m, int what)
{
    for (int i = 0; i < m->nreq; i++) {
        Req q = m->req[i];
        if (what == DO_WRITES && q.fc == 23) q.fc = 16;
        if (what == DO_READS && q.fc == 23) q.fc = 3;
        int writes = q.fc != 3, reads = q.fc == 3 || q.fc == 23;
        if (((what & DO_WRITES) && writes) || ((what & DO_READS) && reads))
            if (transfer(m, &q) < 0) return -1;
    }
    return 0;
}

/* Write one object of one axis alone, with its function code (23 as 16). 0 or -1 (errno). */
static int write_object(Modbus *m, int id, int axis)
{
    const RegMapObject *o = obj(m, id);
    Req q = {.fc = o->write_fc == 6 ? 6 : 16, .waddr = addr(m, id, axis), .wn = type_regs(o->type)};
    return transfer(m, &q);
}

/* Read one object alone (function 3). 0 or -1. */
static int read_object(Modbus *m, int id, int axis)
{
    Req q = {.fc = 3, .raddr = addr(m, id, axis), .rn = type_regs(obj(m, id)->type)};
    return transfer(m, &q);
}

/* ---- The plan of a cycle, from the map. -------------------------------------------------------------------- */

typedef struct {
    int a, n, fc, id, axis;
} Span;

static int span_cmp(const void *x, const void *y)
{
    const Span *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->id != q->id ? (p->id < q->id ? -1 : 1) : (p->axis > q->axis) - (p->axis < q->axis);
}

/* Is the object part of every cycle? Writes: all but the state machine's (unless in function 23's block);
 * reads: all but the identity and the mode display (unless in 23's). */
static int cyclic(const Modbus *m, int id, int write)
{
    const RegMapObject *o = obj(m, id);
    if (!o->present || !(write ? o->write_fc : o->read_fc)) return 0;
    if ((write ? o->write_fc : o->read_fc) == 23) return 1;
    if (write) return id != REGMAP_CONTROLWORD && id != REGMAP_MODES;
    return id != REGMAP_MAGIC && id != REGMAP_AXIS_COUNT && id != REGMAP_MODES_DISPLAY;
}

/* The registers every cycle writes (write 1) or reads, or (all 1) every register written at all, sorted. Their
 * count. */
static int collect(const Modbus *m, int write, int all, Span *s)
{
    int k = 0;
    for (int id = 0; id < REGMAP_NOBJECTS; id++) {
        if (all ? !(obj(m, id)->present && obj(m, id)->write_fc) : !cyclic(m, id, write)) continue;
        const RegMapObject *o = obj(m, id);
        for (int a = 0; a < (o->stride ? m->n : 1); a++)
            s[k++] = (Span){addr(m, id, a), type_regs(o->type), write ? o->write_fc : o->read_fc, id, a};
    }
    qsort(s, (size_t)k, sizeof *s, span_cmp);
    return k;
}

static int add_req(Modbus *m, Req q, char *err, size_t errlen)
{
    if (m->nreq == MB_MAX_REQ)
        return snprintf(err, errlen, "modbus: the map %s needs more than %d requests per cycle for %d axes", m->map.file,
                        MB_MAX_REQ, m->n), -1;
    m->req[m->nreq++] = q;
    return 0;
}

#define NAME_(id, n, axis, way, kind) [REGMAP_##id] = n,
static const char *const object_names[REGMAP_NOBJECTS] = {REGMAP_OBJECTS(NAME_)};
#undef NAME_

/* The cycle's requests: function 23's block (its writes one contiguous run of at most 121 registers, its reads one
 * span of at most 125), write runs of 16 (at most 123 registers) and 6, read spans of 3 (at most 125). */
static int plan(Modbus *m, char *err, size_t errlen)
{
    Span s[REGMAP_NOBJECTS * DRIVER_MAX_AXES];
    int k = collect(m, 1, 1, s);
    for (int i = 1; i < k; i++) /* a cycle's write would overwrite another object */
        if (s[i].a < s[i - 1].a + s[i - 1].n)
            return snprintf(err, errlen, "modbus: the map %s writes register %d twice: %s (axis %d) and %s (axis %d)",
                            m->map.file, s[i].a, object_names[s[i - 1].id], s[i - 1].axis + 1, object_names[s[i].id],
                            s[i].axis + 1), -1;
    k = collect(m, 1, 0, s);
    Req r23 = {.fc = 23, .waddr = -1, .raddr = -1};
    for (int i = 0; i < k; i++) {
        if (s[i].fc == 23) {
            if (r23.waddr >= 0 && s[i].a != r23.waddr + r23.wn)
                return snprintf(err, errlen, "modbus: the map %s: the objects written with function 23 are not one "
                                "block of registers (a gap before register %d, %s)", m->map.file, s[i].a,
                                object_names[s[i].id]), -1;
            if (r23.waddr < 0) r23.waddr = s[i].a;
            r23.wn = s[i].a + s[i].n - r23.waddr;
        } else if (s[i].fc == 6) {
            if (add_req(m, (Req){.fc = 6, .waddr = s[i].a, .wn = 1}, err, errlen) < 0) return -1;
        } else {
            Req *last = m->nreq ? &m->req[m->nreq - 1] : NULL;
            if (last && last->fc == 16 && last->waddr + last->wn == s[i].a && last->wn + s[i].n <= 123) last->wn += s[i].n;
            else if (add_req(m, (Req){.fc = 16, .waddr = s[i].a, .wn = s[i].n}, err, errlen) < 0) return -1;
        }
    }
    k = collect(m, 0, 0, s);
    for (int i = 0; i < k; i++) {
        if (s[i].fc == 23) {
            if (r23.raddr < 0) r23.raddr = s[i].a;
            r23.rn = s[i].a + s[i].n - r23.raddr;
            continue;
        }
        Req *last = m->nreq ? &m->req[m->nreq - 1] : NULL;
        if (last && last->fc == 3 && s[i].a + s[i].n - last->raddr <= 125)
            last->rn = s[i].a + s[i].n - last->raddr > last->rn ? s[i].a + s[i].n - last->raddr : last->rn;
        else if (add_req(m, (Req){.fc = 3, .raddr = s[i].a, .rn = s[i].n}, err, errlen) < 0) return -1;
    }
    if (r23.waddr >= 0 || r23.raddr >= 0) {
        if (r23.waddr < 0 || r23.raddr < 0)
            return snprintf(err, errlen, "modbus: the map %s: function 23 needs objects both written and read with it",
                            m->map.file), -1;
        if (r23.wn > 121 || r23.rn > 125)
            return snprintf(err, errlen, "modbus: the map %s: function 23 carries at most 121 written and 125 read "
                            "registers; %d axes need %d and %d", m->map.file, m->n, r23.wn, r23.rn), -1;
        if (add_req(m, r23, err, errlen) < 0) return -1;
        Req t = m->req[0]; /* the combined request first: it carries the setpoints */
        m->req[0] = m->req[m->nreq - 1], m->req[m->nreq - 1] = t;
    }
    return 0;
}

/* The map fits the program's axes: every register within the address space, a scale for each axis's kind. */
static int map_fits(Modbus *m, char *err, size_t errlen)
{
    for (int id = 0; id < REGMAP_NOBJECTS; id++) {
        const RegMapObject *o = obj(m, id);
        if (!o->present) continue;
        if (addr(m, id, o->stride ? m->n - 1 : 0) + type_regs(o->type) > MB_REGS)
            return snprintf(err, errlen, "modbus: %s:%d: %s of axis %d lies beyond register 65535", m->map.file,
                            o->line, object_names[id], m->n), -1;
        if (!(o->scale_rad || o->scale_m)) continue;
        for (int a = 0; a < m->n; a++)
            if (scale(m, id, a) == 0)
                return snprintf(err, errlen, "modbus: %s:%d: %s has no %s scale, and axis %s is %s", m->map.file,
                                o->line, object_names[id], m->linear[a] ? "linear (m)" : "angular (rad, deg)",
                                m->axis_name[a], m->linear[a] ? "prismatic" : "revolute"), -1;
    }
    return 0;
}

/* ---- The drive's state. ------------------------------------------------------------------------------------ */

/* The CiA 402 state an axis's statusword codes. */
static int cia_state(uint16_t sw)
{
    if ((sw & 0x4f) == 0x00) return ST_NOT_READY;
    if ((sw & 0x4f) == 0x40) return ST_SWITCH_ON_DISABLED;
    if ((sw & 0x6f) == 0x21) return ST_READY;
    if ((sw & 0x6f) == 0x23) return ST_SWITCHED_ON;
    if ((sw & 0x6f) == 0x27) return ST_ENABLED;
    if ((sw & 0x6f) == 0x07) return ST_QUICK_STOP;
    if ((sw & 0x4f) == 0x0f) return ST_FAULT_REACTION;
    return (sw & SW_FAULT) ? ST_FAULT : ST_NOT_READY;
}

/* Is the axis's power stage on (the emulator's enabled bit; CiA 402 Switched on and beyond)? */
static int powered(const Modbus *m, int axis)
{
    uint16_t sw = statusword(m, axis);
    if (m->map.profile == REGMAP_PROFILE_IRL) return (sw & MODBUS_MAP_ST_ENABLED) != 0;
    int st = cia_state(sw);
    return st == ST_SWITCHED_ON || st == ST_ENABLED || st == ST_QUICK_STOP || st == ST_FAULT_REACTION;
}

static int faulted(const Modbus *m, int axis)
{
    uint16_t sw = statusword(m, axis);
    if (m->map.profile == REGMAP_PROFILE_IRL) return (sw & MODBUS_MAP_ST_FAULT) != 0;
    int st = cia_state(sw);
    return st == ST_FAULT || st == ST_FAULT_REACTION;
}

/* The axis's state in words, with its statusword (and error code): "Fault (statusword 0x0008, error code 0x7500)". */
static void state_text(const Modbus *m, int axis, char *b, size_t n)
{
    uint16_t sw = statusword(m, axis);
    const char *name = m->map.profile == REGMAP_PROFILE_IRL ? (sw & MODBUS_MAP_ST_FAULT ? "fault" : sw & MODBUS_MAP_ST_ENABLED ? "enabled" : "disabled")
                                                             : state_names[cia_state(sw)];
    int k = snprintf(b, n, "%s (statusword 0x%04x", name, sw);
    if (has(m, REGMAP_ERROR_CODE) && k > 0 && (size_t)k < n)
        k += snprintf(b + k, n - (size_t)k, ", error code 0x%04x", (unsigned)get_raw(m, m->r, REGMAP_ERROR_CODE, axis));
    if (k > 0 && (size_t)k < n) snprintf(b + k, n - (size_t)k, ")");
}

/* The axes the statusword tells apart (one statusword for all: one). */
static int state_axes(const Modbus *m) { return obj(m, REGMAP_STATUSWORD)->stride ? m->n : 1; }
static const char *axis_label(const Modbus *m, int axis, char *b, size_t n)
{
    if (state_axes(m) == 1 && m->n > 1) snprintf(b, n, "the drive");
    else snprintf(b, n, "axis %s", m->axis_name[axis]);
    return b;
}

/* The feedback from the read image into m->fb; -1 (fault text set) when the drive reports a fault or an axis
 * left Operation enabled. */
static int parse_feedback(Modbus *m)
{
    for (int i = 0; i < m->n; i++) m->fb.q[i] = get_value(m, REGMAP_POSITION_ACTUAL, i);
    if (has(m, REGMAP_DIGITAL_INPUTS)) m->fb.din = get_raw(m, m->r, REGMAP_DIGITAL_INPUTS, 0);
    for (int a = 0; a < state_axes(m); a++) {
        int bad = faulted(m, a) || (m->map.profile == REGMAP_PROFILE_CIA402 && cia_state(statusword(m, a)) != ST_ENABLED);
        if (!bad) continue;
        if (!m->fault_text[0]) {
            char st[96], who[DRIVER_NAME_LEN + 8];
            if (m->map.profile == REGMAP_PROFILE_IRL) {
                int code = has(m, REGMAP_FAULT_CODE) ? (int)get_raw(m, m->r, REGMAP_FAULT_CODE, 0) : 0;
                int axis = has(m, REGMAP_FAULT_AXIS) ? (int)get_raw(m, m->r, REGMAP_FAULT_AXIS, 0) : 0;
                char ax[32] = "";
                if (axis) snprintf(ax, sizeof ax, " on axis %d", axis);
                snprintf(m->fault_text, sizeof m->fault_text, "modbus: %.48s reports fault %d (%s)%s", m->where, code,
                         modbus_map_fault_name(code), ax);
            } else {
                state_text(m, a, st, sizeof st);
                snprintf(m->fault_text, sizeof m->fault_text, "modbus: %.30s: %.30s %s: %.60s", m->where,
                         axis_label(m, a, who, sizeof who), faulted(m, a) ? "reports a fault" : "left Operation enabled",
                         st);
            }
        }
        m->fb.fault = 1;
        return -1;
    }
    return 0;
}

/* Write each axis's controlword (one for all when it has no stride). 0, or -1 with errno. */
static int command(Modbus *m, int axis, uint16_t cw)
{
    put_raw(m, m->w, REGMAP_CONTROLWORD, axis, cw);
    return write_object(m, REGMAP_CONTROLWORD, axis);
}

/* The controlword that moves a CiA 402 axis from state st toward Operation enabled (on 1) or a power stage off
 * (on 0), after `last` (-1: none written yet); -1 nothing to do but wait (or done). A fault is reset on a rising
 * edge of bit 7: when what the drive holds is unknown 0 first, then 0x80, held (one reset: a fault that stays
 * runs into the state timeout). */
static int next_command(int st, int on, int last)
{
    if (!on) return st == ST_SWITCHED_ON || st == ST_ENABLED ? CW_SHUTDOWN : st == ST_QUICK_STOP ? CW_DISABLE_VOLTAGE : -1;
    switch (st) {
    case ST_SWITCH_ON_DISABLED: return CW_SHUTDOWN;
    case ST_READY: return CW_SWITCH_ON;
    case ST_SWITCHED_ON: return CW_ENABLE_OPERATION;
    case ST_QUICK_STOP: return CW_DISABLE_VOLTAGE;
    case ST_FAULT: return last < 0 ? CW_DISABLE_VOLTAGE : CW_FAULT_RESET;
    default: return -1;
    }
}

static const char *command_name(int cw)
{
    switch (cw) {
    case CW_SHUTDOWN: return "shutdown";
    case CW_SWITCH_ON: return "switch on";
    case CW_ENABLE_OPERATION: return "enable operation";
    case CW_FAULT_RESET: return "fault reset";
    case CW_DISABLE_VOLTAGE: return "disable voltage";
    default: return "none";
    }
}

/* Is the axis where the walk goes (on: Operation enabled, or the emulator's enabled bit; off: no power)? */
static int arrived(const Modbus *m, int axis, int on)
{
    if (!on) return !powered(m, axis);
    if (m->map.profile == REGMAP_PROFILE_IRL) return powered(m, axis) && !faulted(m, axis);
    return cia_state(statusword(m, axis)) == ST_ENABLED;
}

/* Walk every axis's state machine to Operation enabled (on 1) or to a power stage off (on 0), reading the
 * statuswords every MB_POLL_NS; an axis whose state does not change within the map's state_timeout of a command
 * fails the walk; the whole walk ends by `until` (ns) at the latest. 0, or -1 with a message in err. */
static int walk(Modbus *m, int on, int64_t until, char *err, size_t errlen)
{
    int na = state_axes(m), last_st[DRIVER_MAX_AXES], cw[DRIVER_MAX_AXES];
    int64_t since[DRIVER_MAX_AXES], limit = (int64_t)(m->map.state_timeout * 1e9);
    for (int a = 0; a < na; a++) last_st[a] = -1, cw[a] = -1;
    for (;;) {
        if (plan_run(m, DO_READS) < 0)
            return snprintf(err, errlen, "modbus: %s: cannot read the statusword: %s", m->where, modbus_strerror(errno)), -1;
        int64_t now = osal_now();
        int done = 1;
        for (int a = 0; a < na; a++) {
            if (arrived(m, a, on)) continue;
            done = 0;
            int st = m->map.profile == REGMAP_PROFILE_IRL ? (int)statusword(m, a) : cia_state(statusword(m, a));
            if (st != last_st[a]) last_st[a] = st, since[a] = now;
            int want = m->map.profile == REGMAP_PROFILE_IRL ? (on ? MODBUS_MAP_CTL_ENABLE : 0)
                                                             : next_command(st, on, cw[a]);
            if (m->map.profile == REGMAP_PROFILE_IRL && on && faulted(m, a)) want = MODBUS_MAP_CTL_RESET;
            if (want >= 0 && want != cw[a]) {
                if (command(m, a, (uint16_t)want) < 0)
                    return snprintf(err, errlen, "modbus: %s: cannot write the controlword: %s", m->where,
                                    modbus_strerror(errno)), -1;
                cw[a] = want, since[a] = now;
            }
            if (now - since[a] > limit || now > until) {
                char st_txt[96], who[DRIVER_NAME_LEN + 8];
                state_text(m, a, st_txt, sizeof st_txt);
                return snprintf(err, errlen, "modbus: %s stays in %s more than %.3g s after '%s': it did not reach %s",
                                axis_label(m, a, who, sizeof who), st_txt, m->map.state_timeout,
                                m->map.profile == REGMAP_PROFILE_IRL ? (on ? "enable" : "disable") : command_name(cw[a]),
                                on ? (m->map.profile == REGMAP_PROFILE_IRL ? "enabled" : "Operation enabled")
                                   : "a state with the power stage off"), -1;
            }
        }
        if (done) return 0;
        osal_sleep(MB_POLL_NS);
    }
}

/* ---- The driver. ------------------------------------------------------------------------------------------- */

static void free_modbus(Modbus *m)
{
    if (m->ctx) modbus_close(m->ctx), modbus_free(m->ctx);
    free(m->w);
    free(m->r);
    free(m);
}

/* A failed open: free everything. -1. */
static int open_fail(Modbus *m)
{
    free_modbus(m);
    return -1;
}

/* The drive's identity, when the map gives one: the magic value, and at least as many axes as the program. */
static int identify(Modbus *m, char *err, size_t errlen)
{
    if (has(m, REGMAP_MAGIC)) {
        if (read_object(m, REGMAP_MAGIC, 0) < 0)
            return snprintf(err, errlen, "modbus: %s: cannot read the magic value: %s", m->where, modbus_strerror(errno)), -1;
        if (get_raw(m, m->r, REGMAP_MAGIC, 0) != obj(m, REGMAP_MAGIC)->expect)
            return snprintf(err, errlen, "modbus: %s does not answer with the register map %s (magic 0x%x at register "
                            "%d)", m->where, m->map.file, (unsigned)obj(m, REGMAP_MAGIC)->expect,
                            obj(m, REGMAP_MAGIC)->reg), -1;
    }
    if (has(m, REGMAP_AXIS_COUNT)) {
        if (read_object(m, REGMAP_AXIS_COUNT, 0) < 0)
            return snprintf(err, errlen, "modbus: %s: %s", m->where, modbus_strerror(errno)), -1;
        int na = (int)get_raw(m, m->r, REGMAP_AXIS_COUNT, 0);
        if (na < m->n)
            return snprintf(err, errlen, "modbus: the drive at %s has %d axes; the program has %d", m->where, na, m->n), -1;
    }
    return 0;
}

static int modbus_open(const DriverConfig *cfg, void **state, DriverCaps *caps, char *err, size_t errlen)
{
    ModbusOpts o;
    if (modbus_options(&o, cfg->opts, cfg->dt, err, errlen) < 0) return -1;
    if (!cfg->regmap) return snprintf(err, errlen, "--driver modbus: no register map was read"), -1;
    Modbus *m = calloc(1, sizeof *m);
    if (!m) return snprintf(err, errlen, "out of memory"), -1;
    m->w = calloc(MB_REGS, sizeof *m->w), m->r = calloc(MB_REGS, sizeof *m->r);
    if (!m->w || !m->r) return snprintf(err, errlen, "out of memory"), open_fail(m);
    m->map = *cfg->regmap;
    m->n = cfg->naxes, m->linear = cfg->linear, m->axis_name = cfg->axis_name, m->q_enable = cfg->q0;
    m->dt = cfg->dt, m->timeout = o.timeout;
    m->mode = o.mode ? o.mode : m->map.mode;
    if (m->mode == REGMAP_MODE_CSV && (m->map.profile != REGMAP_PROFILE_CIA402 || !has(m, REGMAP_TARGET_VELOCITY)))
        return snprintf(err, errlen, "--driver modbus: mode=csv needs a CiA 402 map with target_velocity (%s)",
                        m->map.file), open_fail(m);
    if (map_fits(m, err, errlen) < 0 || plan(m, err, errlen) < 0) return open_fail(m);
    snprintf(m->where, sizeof m->where, "%.40s:%d", o.host, (int)o.port);
    m->ctx = modbus_new_tcp(o.host, (int)o.port);
    if (!m->ctx) return snprintf(err, errlen, "--driver modbus: %s: %s", m->where, modbus_strerror(errno)), open_fail(m);
    modbus_set_slave(m->ctx, (int)o.unit);
    set_timeout(m, fmax(o.timeout, MB_SETUP_TIMEOUT)); /* the cycle's timeout from the first cycle on */
    if (modbus_connect(m->ctx) < 0) {
        snprintf(err, errlen, "modbus: cannot connect to %s: %s", m->where, modbus_strerror(errno));
        modbus_free(m->ctx);
        m->ctx = NULL;
        return open_fail(m);
    }
    if (identify(m, err, errlen) < 0) return open_fail(m);
    *state = m;
    *caps = (DriverCaps){.has_feedback = 1, .has_inputs = has(m, REGMAP_DIGITAL_INPUTS), .confirms = 1};
    return 0;
}

/* The connection up (open connects; a socket closed since is connected again). 0, or -1 with errno. */
static int connected(Modbus *m) { return modbus_get_socket(m->ctx) >= 0 ? 0 : modbus_connect(m->ctx); }

/* Where the axes stand before the enable: the read plan (position_actual is readable in every state of the drive),
 * each request bounded by max(timeout, 0.5 s). */
static int modbus_actual(void *state, double *q, char *err, size_t errlen)
{
    Modbus *m = state;
    set_timeout(m, fmax(m->timeout, MB_SETUP_TIMEOUT));
    if (connected(m) < 0 || plan_run(m, DO_READS) < 0)
        return snprintf(err, errlen, "modbus: cannot read where the axes stand (position_actual) from %s: %s",
                        m->where, modbus_strerror(errno)), -1;
    for (int i = 0; i < m->n; i++) {
        q[i] = get_value(m, REGMAP_POSITION_ACTUAL, i);
        if (!isfinite(q[i]))
            return snprintf(err, errlen, "modbus: %s: axis %s's position_actual reads %g", m->where, m->axis_name[i],
                            q[i]), -1;
    }
    return 0;
}

/* After a failed enable (message in err): the axes back to a power stage off, what that gave appended. -1. */
static int switch_off(Modbus *m, char *err, size_t errlen)
{
    char why[DRIVER_FAULT_LEN];
    size_t k = strlen(err);
    m->live = 0;
    if (walk(m, 0, osal_now() + (int64_t)((m->timeout + m->map.state_timeout) * 1e9), why, sizeof why) < 0 &&
        k < errlen)
        snprintf(err + k, errlen - k, "; switching the axes off failed too: %s", why);
    return -1;
}

/* Enable: the target positions at cfg->q0 as it reads now (the program's start, or where actual found the axes
 * when an approach follows: the caller checked they stand there), the target velocities 0, the mode of operation,
 * then the state machine to Operation enabled, confirmed by the statusword. */
static int modbus_enable(void *state, char *err, size_t errlen)
{
    Modbus *m = state;
    int64_t until = osal_now() + (int64_t)(4 * m->map.state_timeout * 1e9) +
                    (int64_t)(8 * fmax(m->timeout, MB_SETUP_TIMEOUT) * 1e9);
    for (int i = 0; i < m->n; i++) {
        if (put_si(m, REGMAP_TARGET_POSITION, i, m->q_enable[i]) < 0)
            return snprintf(err, errlen, "modbus: axis %s: %g %s is outside target_position's range", m->axis_name[i],
                            m->q_enable[i], m->linear[i] ? "m" : "rad"), -1;
        if (has(m, REGMAP_TARGET_VELOCITY)) put_si(m, REGMAP_TARGET_VELOCITY, i, 0.0);
    }
    if (has(m, REGMAP_MODES))
        for (int a = 0; a < (obj(m, REGMAP_MODES)->stride ? m->n : 1); a++) put_raw(m, m->w, REGMAP_MODES, a, (uint64_t)m->mode);
    if (plan_run(m, DO_WRITES) < 0)
        return snprintf(err, errlen, "modbus: %s: cannot write the setpoints: %s", m->where, modbus_strerror(errno)), -1;
    if (has(m, REGMAP_MODES))
        for (int a = 0; a < (obj(m, REGMAP_MODES)->stride ? m->n : 1); a++)
            if (obj(m, REGMAP_MODES)->write_fc != 23 && write_object(m, REGMAP_MODES, a) < 0)
                return snprintf(err, errlen, "modbus: %s: cannot write the mode of operation: %s", m->where,
                                modbus_strerror(errno)), -1;
    m->live = 1;
    if (walk(m, 1, until, err, errlen) < 0) return switch_off(m, err, errlen);
    if (has(m, REGMAP_MODES_DISPLAY))
        for (int a = 0; a < (obj(m, REGMAP_MODES_DISPLAY)->stride ? m->n : 1); a++) {
            if (read_object(m, REGMAP_MODES_DISPLAY, a) < 0)
                return snprintf(err, errlen, "modbus: %s: %s", m->where, modbus_strerror(errno)), switch_off(m, err, errlen);
            int shown = (int16_t)get_raw(m, m->r, REGMAP_MODES_DISPLAY, a);
            if (shown != m->mode)
                return snprintf(err, errlen, "modbus: axis %s runs in mode %d, not %d (%s) as asked", m->axis_name[a],
                                shown, m->mode, m->mode == REGMAP_MODE_CSP ? "cyclic synchronous position"
                                                                           : "cyclic synchronous velocity"),
                       switch_off(m, err, errlen);
        }
    if (parse_feedback(m) < 0) return snprintf(err, errlen, "%s", m->fault_text), switch_off(m, err, errlen);
    set_timeout(m, m->timeout);
    return 0;
}

static int modbus_read(void *state, DriverFeedback *fb)
{
    Modbus *m = state;
    *fb = m->fb;
    return m->fb.fault ? -1 : 0;
}

/* Wait up to t for the reply a timed-out request still owes. 1 it came (or nothing was owed), 0 not yet. */
static int settle_owed(Modbus *m, double t)
{
    if (!m->owed) return 1;
    uint8_t rsp[MODBUS_TCP_MAX_ADU_LENGTH];
    set_timeout(m, t);
    if (modbus_receive_confirmation(m->ctx, rsp) > 0) m->owed = 0;
    return !m->owed;
}

static int modbus_write(void *state, const double *q, const double *qd, uint64_t dout)
{
    Modbus *m = state;
    double budget = m->dt / 4; /* after a timeout: what one cycle may block, all requests together */
    if (m->degraded && !settle_owed(m, budget / 2)) return -1; /* the slow peer still owes a reply: not sent */
    for (int i = 0; i < m->n; i++) {
        if (put_si(m, REGMAP_TARGET_POSITION, i, q[i]) < 0 ||
            (has(m, REGMAP_TARGET_VELOCITY) && put_si(m, REGMAP_TARGET_VELOCITY, i, qd[i]) < 0)) {
            if (!m->fault_text[0])
                snprintf(m->fault_text, sizeof m->fault_text, "modbus: axis %s setpoint out of the register range",
                         m->axis_name[i]);
            m->fb.fault = 1;
            return -1;
        }
    }
    if (has(m, REGMAP_DIGITAL_OUTPUTS)) put_raw(m, m->w, REGMAP_DIGITAL_OUTPUTS, 0, dout);
    if (has(m, REGMAP_CYCLE_COUNTER))
        put_raw(m, m->w, REGMAP_CYCLE_COUNTER, 0, (get_raw(m, m->w, REGMAP_CYCLE_COUNTER, 0) + 1) & 0xffff);
    int64_t t0 = osal_now();
    double total = m->degraded ? budget / 2 : m->timeout; /* the cycle's requests together */
    for (int i = 0; i < m->nreq; i++) {
        double left = total - (double)(osal_now() - t0) * 1e-9;
        if (left <= 0) { /* the time is up before this request: not sent, nothing owed */
            errno = ETIMEDOUT;
            set_io_fault(m, "no reply in time");
            m->degraded = 1;
            return -1;
        }
        if (m->nreq > 1 || m->degraded) set_timeout(m, left);
        if (transfer(m, &m->req[i]) < 0) {
            int timed_out = errno == ETIMEDOUT;
            set_io_fault(m, timed_out ? "no reply in time" : "request failed");
            if (timed_out) m->owed = 1, m->degraded = 1;
            return -1;
        }
    }
    return parse_feedback(m);
}

/* Every axis as a mask, bit k for axis k. */
static uint32_t all_axes(const Modbus *m) { return m->n >= 32 ? 0xffffffffu : (1u << m->n) - 1; }

/* The axes whose statusword, as last read, does not show the power stage off (bit k: axis k); when one statusword
 * speaks for the drive, or none says which, every axis. */
static uint32_t axes_not_off(const Modbus *m)
{
    uint32_t all = all_axes(m), bits = 0;
    if (state_axes(m) == 1) return arrived(m, 0, 0) ? 0 : all;
    for (int a = 0; a < m->n; a++)
        if (!arrived(m, a, 0)) bits |= 1u << a;
    return bits ? bits : all;
}

static void modbus_disable(void *state)
{
    Modbus *m = state;
    double t = fmax(m->timeout, 0.5);
    char err[DRIVER_FAULT_LEN];
    m->disabled_ok = 0, m->live = 0;
    m->not_off = all_axes(m);
    if (!settle_owed(m, t)) return;
    set_timeout(m, t);
    m->owed = 0;
    /* the emulator's one control word: cleared whatever the status says (a faulted drive too) */
    if (m->map.profile == REGMAP_PROFILE_IRL && command(m, 0, 0) < 0) return;
    m->disabled_ok = walk(m, 0, osal_now() + (int64_t)((t + m->map.state_timeout) * 1e9), err, sizeof err) == 0;
    m->not_off = m->disabled_ok ? 0 : axes_not_off(m);
}

static int modbus_disable_confirmed(void *state) { return ((Modbus *)state)->disabled_ok; }

static uint32_t modbus_disable_unconfirmed(void *state) { return ((Modbus *)state)->not_off; }

static const char *modbus_fault(void *state) { return ((Modbus *)state)->fault_text; }

/* Close; a drive enabled and never disabled (the run refused after the enable) is disabled first. */
static void modbus_close_(void *state)
{
    Modbus *m = state;
    if (m->live) modbus_disable(m);
    free_modbus(m);
}

const DriverType driver_modbus = {
    .name = "modbus", .keys = modbus_keys, .check = modbus_check, .open = modbus_open, .actual = modbus_actual,
    .enable = modbus_enable, .read = modbus_read, .write = modbus_write, .disable = modbus_disable,
    .disable_confirmed = modbus_disable_confirmed, .disable_unconfirmed = modbus_disable_unconfirmed,
    .fault = modbus_fault,
    .close = modbus_close_,
};
