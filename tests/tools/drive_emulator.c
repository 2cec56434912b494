/* drive_emulator.c — a Modbus TCP drive for the online tests (irl-drive-emulator): N axes behind the register map
 * of runtime/online/drivers/modbus_map.h, each following its position setpoint with a first-order lag, with a
 * communication watchdog, scripted digital inputs and fault injection. It listens on 127.0.0.1 only, serves one
 * client, and ends by itself: when that client disconnects (status 0) or after --timeout (status 3).
 *
 *   irl-drive-emulator [--port N] [--port-file F] [--axes N] [--start q1,q2,...] [--tau T] [--watchdog T]
 *                      [--timeout T] [--fault-at T --fault drive|stall[:AXIS]] [--input CH=V@T ...] [--unit N]
 *                      [--delay T [--delay-at T]]
 *
 *   --port N        TCP port; 0 (the default) takes a free one; the port is printed ("port N") on stdout and
 *                   written to --port-file when given (written whole, then renamed: a reader never sees half)
 *   --axes N        axes (default 6)        --start ...   their positions at power-up, SI (default 0)
 *   --tau T         first-order lag of every axis, s (default 0.005)
 *   --watchdog T    while enabled, a request must come within T s or the drive faults (default 0.1; 0 = off)
 *   --timeout T     end after T s whatever happens (default 30)
 *   --fault-at T    T s after the enable: --fault drive sets the fault (code 1), stall[:AXIS] freezes AXIS
 *                   (1-based, default 1) so it stops following (the controller sees a following error)
 *   --input CH=V@T  digital input channel CH (0..63) becomes V (0/1) T s after the enable
 *   --delay T       a slow peer: every reply goes out T s after its request (from --delay-at T s after the enable;
 *                   default 0: from the start); requests that arrive meanwhile wait their turn
 * Times take an optional unit (s, ms). On exit one line on stderr: requests served, where the axes stand (SI), the
 * fault code, "disabled" or "still enabled". Exit status: 0 client served, 1 error, 2 usage, 3 timeout. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <modbus.h>

#include "online/drivers/modbus_map.h"

#define EMU_MAX_INPUTS 16

typedef struct {
    int port, axes, unit;
    const char *port_file;
    double start[MODBUS_MAP_MAX_AXES];
    double tau, watchdog, timeout, fault_at, delay, delay_at;
    int fault_kind;          /* 0 none, 1 drive, 2 stall */
    int stall_axis;          /* 0-based */
    int ninputs;
    int in_ch[EMU_MAX_INPUTS], in_v[EMU_MAX_INPUTS];
    double in_t[EMU_MAX_INPUTS];
} EmuOptions;

typedef struct {
    EmuOptions o;
    modbus_mapping_t *map;
    double x[MODBUS_MAP_MAX_AXES], v[MODBUS_MAP_MAX_AXES], sp[MODBUS_MAP_MAX_AXES];
    int enabled, fault, fault_axis, stalled;
    double t_enable, t_update, t_request;
    uint64_t din;
    long requests;
} Emu;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage(void)
{
    fputs("usage: irl-drive-emulator [--port N] [--port-file F] [--axes N] [--start q1,...] [--tau T]\n"
          "                          [--watchdog T] [--timeout T] [--fault-at T --fault drive|stall[:AXIS]]\n"
          "                          [--input CH=V@T ...] [--unit N]\n", stderr);
    return 2;
}

/* A time with an optional unit (s, ms). 0 or -1. */
static int parse_time(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s) return -1;
    if (strcmp(end, "ms") == 0) x *= 1e-3;
    else if (*end && strcmp(end, "s") != 0) return -1;
    if (!(x >= 0 && isfinite(x))) return -1;
    *v = x;
    return 0;
}

static int parse_args(EmuOptions *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->axes = 6, o->unit = 1, o->tau = 0.005, o->watchdog = 0.1, o->timeout = 30, o->fault_at = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return -1;
        i++;
        if (strcmp(a, "--port") == 0) o->port = atoi(v);
        else if (strcmp(a, "--port-file") == 0) o->port_file = v;
        else if (strcmp(a, "--axes") == 0) o->axes = atoi(v);
        else if (strcmp(a, "--unit") == 0) o->unit = atoi(v);
        else if (strcmp(a, "--tau") == 0) { if (parse_time(v, &o->tau)) return -1; }
        else if (strcmp(a, "--watchdog") == 0) { if (parse_time(v, &o->watchdog)) return -1; }
        else if (strcmp(a, "--timeout") == 0) { if (parse_time(v, &o->timeout)) return -1; }
        else if (strcmp(a, "--fault-at") == 0) { if (parse_time(v, &o->fault_at)) return -1; }
        else if (strcmp(a, "--delay") == 0) { if (parse_time(v, &o->delay)) return -1; }
        else if (strcmp(a, "--delay-at") == 0) { if (parse_time(v, &o->delay_at)) return -1; }
        else if (strcmp(a, "--fault") == 0) {
            if (strcmp(v, "drive") == 0) o->fault_kind = 1;
            else if (strncmp(v, "stall", 5) == 0) {
                o->fault_kind = 2;
                o->stall_axis = v[5] == ':' ? atoi(v + 6) - 1 : 0;
                if (v[5] && v[5] != ':') return -1;
            } else return -1;
        } else if (strcmp(a, "--start") == 0) {
            const char *p = v;
            for (int k = 0; *p && k < MODBUS_MAP_MAX_AXES; k++) {
                char *end;
                o->start[k] = strtod(p, &end);
                if (end == p) return -1;
                p = *end == ',' ? end + 1 : end;
            }
        } else if (strcmp(a, "--input") == 0) {
            int ch, val;
            char t[64];
            if (o->ninputs >= EMU_MAX_INPUTS || sscanf(v, "%d=%d@%63s", &ch, &val, t) != 3 || ch < 0 || ch > 63 ||
                parse_time(t, &o->in_t[o->ninputs]))
                return -1;
            o->in_ch[o->ninputs] = ch, o->in_v[o->ninputs] = val != 0;
            o->ninputs++;
        } else return -1;
    }
    if (o->axes < 1 || o->axes > MODBUS_MAP_MAX_AXES || o->port < 0 || o->port > 65535) return -1;
    if (o->fault_kind == 2 && (o->stall_axis < 0 || o->stall_axis >= o->axes)) return -1;
    return 0;
}

/* Advance the axes to time t under the current setpoints; apply the scripted inputs and faults. */
static void advance(Emu *e, double t)
{
    double h = t - e->t_update;
    e->t_update = t;
    if (!e->enabled || e->fault) {
        for (int i = 0; i < e->o.axes; i++) e->v[i] = 0;
        return;
    }
    double te = t - e->t_enable;
    if (e->o.fault_at >= 0 && te >= e->o.fault_at) {
        if (e->o.fault_kind == 1) e->fault = MODBUS_MAP_FAULT_INJECTED, e->fault_axis = 0, e->enabled = 0;
        if (e->o.fault_kind == 2) e->stalled = 1;
    }
    for (int k = 0; k < e->o.ninputs; k++)
        if (te >= e->o.in_t[k])
            e->din = (e->din & ~((uint64_t)1 << e->o.in_ch[k])) | ((uint64_t)e->o.in_v[k] << e->o.in_ch[k]);
    if (h <= 0) return;
    double a = e->o.tau > 0 ? exp(-h / e->o.tau) : 0;
    for (int i = 0; i < e->o.axes; i++) {
        double x0 = e->x[i];
        if (!(e->stalled && i == e->o.stall_axis)) e->x[i] = e->sp[i] + (e->x[i] - e->sp[i]) * a;
        e->v[i] = (e->x[i] - x0) / h;
    }
}

/* The read area from the drive's state. */
static void publish(Emu *e)
{
    uint16_t *r = e->map->tab_registers + MODBUS_MAP_READ;
    r[MODBUS_MAP_R_MAGIC] = MODBUS_MAP_MAGIC;
    r[MODBUS_MAP_R_NAXES] = (uint16_t)e->o.axes;
    r[MODBUS_MAP_R_STATUS] = (uint16_t)((e->enabled ? MODBUS_MAP_ST_ENABLED : 0) | (e->fault ? MODBUS_MAP_ST_FAULT : 0));
    r[MODBUS_MAP_R_FAULT] = (uint16_t)e->fault;
    r[MODBUS_MAP_R_FAULT_AXIS] = (uint16_t)e->fault_axis;
    modbus_map_put_bits(r + MODBUS_MAP_R_DIN, e->din);
    for (int i = 0; i < e->o.axes; i++) {
        modbus_map_put(r + MODBUS_MAP_AXES_R + 4 * i, e->x[i]);
        modbus_map_put(r + MODBUS_MAP_AXES_R + 4 * i + 2, e->v[i]);
    }
}

/* What a request wrote: control word (enable, reset) and setpoints. */
static void take_writes(Emu *e, double t)
{
    const uint16_t *w = e->map->tab_registers;
    uint16_t ctl = w[MODBUS_MAP_CONTROL];
    if (ctl & MODBUS_MAP_CTL_RESET) e->fault = 0, e->fault_axis = 0, e->stalled = 0;
    if ((ctl & MODBUS_MAP_CTL_ENABLE) && !e->enabled && !e->fault) e->enabled = 1, e->t_enable = t;
    if (!(ctl & MODBUS_MAP_CTL_ENABLE)) e->enabled = 0;
    for (int i = 0; i < e->o.axes; i++) e->sp[i] = modbus_map_get(w + MODBUS_MAP_AXES_W + 4 * i);
}

/* Listen on 127.0.0.1 and tell the port. The listening socket, or -1. */
static int listen_local(Emu *e, modbus_t *ctx)
{
    int s = modbus_tcp_listen(ctx, 1);
    if (s < 0) return fprintf(stderr, "irl-drive-emulator: listen: %s\n", modbus_strerror(errno)), -1;
    struct sockaddr_in a;
    socklen_t n = sizeof a;
    if (getsockname(s, (struct sockaddr *)&a, &n) == 0) e->o.port = ntohs(a.sin_port);
    printf("port %d\n", e->o.port);
    fflush(stdout);
    if (e->o.port_file) {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", e->o.port_file);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%d\n", e->o.port) < 0 || fclose(f) != 0 || rename(tmp, e->o.port_file) != 0)
            return fprintf(stderr, "irl-drive-emulator: cannot write %s\n", e->o.port_file), close(s), -1;
    }
    return s;
}

/* Wait until fd is readable or `until`; 1 readable, 0 timed out (after 10 ms at most, to check the clocks). */
static int wait_readable(int fd, double until)
{
    double left = until - now_s();
    if (left > 0.01) left = 0.01;
    if (left < 0) left = 0;
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(fd, &rd);
    struct timeval tv = {0, (suseconds_t)(left * 1e6)};
    return select(fd + 1, &rd, NULL, NULL, &tv) > 0;
}

/* Serve one client until it leaves (0) or the timeout (3). */
static int serve(Emu *e, modbus_t *ctx, int ls, double deadline)
{
    int cs = -1;
    while (cs < 0) {
        if (now_s() >= deadline) return 3;
        if (wait_readable(ls, deadline)) cs = modbus_tcp_accept(ctx, &ls);
    }
    uint8_t req[MODBUS_TCP_MAX_ADU_LENGTH];
    e->t_update = e->t_request = now_s();
    for (;;) {
        double t = now_s();
        if (t >= deadline) return 3;
        if (!wait_readable(cs, deadline)) { /* nothing pending: has the controller gone quiet? */
            t = now_s();
            if (e->enabled && e->o.watchdog > 0 && t - e->t_request > e->o.watchdog) {
                advance(e, t);
                e->fault = MODBUS_MAP_FAULT_WATCHDOG, e->fault_axis = 0, e->enabled = 0;
            }
            continue;
        }
        int n = modbus_receive(ctx, req);
        if (n < 0) return 0; /* the client has gone */
        if (n == 0) continue;
        t = now_s();
        e->t_request = t;
        e->requests++;
        advance(e, t);
        publish(e);
        if (e->o.delay > 0 && e->enabled && t - e->t_enable >= e->o.delay_at) {
            struct timespec d = {(time_t)e->o.delay, (long)((e->o.delay - floor(e->o.delay)) * 1e9)};
            nanosleep(&d, NULL);
        }
        modbus_reply(ctx, req, n, e->map);
        take_writes(e, t);
    }
}

int main(int argc, char **argv)
{
    Emu e;
    memset(&e, 0, sizeof e);
    if (parse_args(&e.o, argc, argv) < 0) return usage();
    for (int i = 0; i < e.o.axes; i++) e.x[i] = e.sp[i] = e.o.start[i];
    modbus_t *ctx = modbus_new_tcp("127.0.0.1", e.o.port);
    e.map = modbus_mapping_new(0, 0, MODBUS_MAP_REGS, 0);
    if (!ctx || !e.map) return fprintf(stderr, "irl-drive-emulator: %s\n", modbus_strerror(errno)), 1;
    modbus_set_slave(ctx, e.o.unit);
    double deadline = now_s() + e.o.timeout;
    publish(&e);
    int ls = listen_local(&e, ctx);
    if (ls < 0) return 1;
    int rc = serve(&e, ctx, ls, deadline);
    char at[MODBUS_MAP_MAX_AXES * 20] = "";
    for (int i = 0, k = 0; i < e.o.axes && k >= 0 && (size_t)k < sizeof at; i++)
        k += snprintf(at + k, sizeof at - (size_t)k, "%s%.9g", i ? "," : "", e.x[i]);
    fprintf(stderr, "irl-drive-emulator: %s after %ld requests; axes at %s; fault %d (%s); %s\n",
            rc == 3 ? "timed out" : "client left", e.requests, at, e.fault, modbus_map_fault_name(e.fault),
            e.enabled ? "still enabled" : "disabled");
    close(ls);
    modbus_close(ctx);
    modbus_free(ctx);
    modbus_mapping_free(e.map);
    return rc;
}
