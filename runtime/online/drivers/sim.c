/* sim.c — the "sim" driver: virtual axes that follow the setpoints with actuator dynamics, deterministic (their
 * clock is the count of cycles, not the wall clock), for trying a program online without hardware.
 *
 * Options (--driver sim:key=value,...):
 *   tau=T        first-order lag: x' = (x_sp - x) / T (default 2 ms; 0 = the axes follow exactly)
 *   wn=W         second order instead: x'' = W^2 (x_sp - x) + 2 zeta W (v_sp - v) (velocity feed-forward)
 *   zeta=Z       its damping ratio (default 1)
 *   fault_at=T   the drive reports a fault T seconds after it was enabled (tests the fault stop)
 *   stall=A      axis A (1-based, over all devices) stops moving at stall_at (tests the following-error stop)
 *   stall_at=T   default 0
 *   offset=D     at power-up the axes stand D (rad or m) from the program's start (tests --approach)
 *   offset_axis=A  only axis A (1-based) does; default every axis */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmath.h"
#include "online/drivers/driver.h"

enum { SIM_SUBSTEPS = 10 };

typedef struct {
    int n;
    double dt, tau, wn, zeta, fault_at, stall_at, offset;
    int stall;                    /* 0-based axis, -1 none */
    int offset_axis;              /* 0-based axis, -1 every axis */
    const double *q_enable;       /* DriverConfig.q0: where the enable holds the axes */
    double x[DRIVER_MAX_AXES], v[DRIVER_MAX_AXES];     /* actual position and speed */
    double sp[DRIVER_MAX_AXES], spd[DRIVER_MAX_AXES];  /* last setpoint */
    long cycles;                  /* cycles read since enable */
    int enabled, fault;
    char fault_text[DRIVER_FAULT_LEN];
} Sim;

static const char *const sim_keys[] = {"tau", "wn", "zeta", "fault_at", "stall", "stall_at", "offset",
                                       "offset_axis", NULL};

/* Read every option into s (defaults first). 0, or -1 with a message. */
static int sim_options(Sim *s, const char *opts, char *err, size_t errlen)
{
    s->tau = 0.002, s->wn = 0, s->zeta = 1, s->fault_at = -1, s->stall_at = 0, s->offset = 0;
    double stall = 0, offset_axis = 0;
    if (driver_opts_known("sim", opts, sim_keys, err, errlen) < 0) return -1;
    if (driver_opt_num("sim", opts, "tau", 1, &s->tau, err, errlen) < 0 ||
        driver_opt_num("sim", opts, "wn", 0, &s->wn, err, errlen) < 0 ||
        driver_opt_num("sim", opts, "zeta", 0, &s->zeta, err, errlen) < 0 ||
        driver_opt_num("sim", opts, "fault_at", 1, &s->fault_at, err, errlen) < 0 ||
        driver_opt_num("sim", opts, "stall", 0, &stall, err, errlen) < 0 ||
        driver_opt_num("sim", opts, "stall_at", 1, &s->stall_at, err, errlen) < 0 ||
        driver_opt_num("sim", opts, "offset", 0, &s->offset, err, errlen) < 0 ||
        driver_opt_num("sim", opts, "offset_axis", 0, &offset_axis, err, errlen) < 0)
        return -1;
    if (!(s->tau >= 0) || !(s->wn >= 0) || !(s->zeta > 0))
        return snprintf(err, errlen, "--driver sim: tau and wn must be >= 0, zeta > 0"), -1;
    if (stall != floor(stall) || stall < 0 || stall > DRIVER_MAX_AXES)
        return snprintf(err, errlen, "--driver sim: stall=A names an axis by its number, 1..%d", DRIVER_MAX_AXES), -1;
    s->stall = (int)stall - 1;
    if (offset_axis != floor(offset_axis) || offset_axis < 0 || offset_axis > DRIVER_MAX_AXES)
        return snprintf(err, errlen, "--driver sim: offset_axis=A names an axis by its number, 1..%d",
                        DRIVER_MAX_AXES), -1;
    s->offset_axis = (int)offset_axis - 1;
    return 0;
}

static int sim_check(const char *opts, char *err, size_t errlen)
{
    Sim s;
    return sim_options(&s, opts, err, errlen);
}

static int sim_open(const DriverConfig *cfg, void **state, DriverCaps *caps, char *err, size_t errlen)
{
    Sim *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (sim_options(s, cfg->opts, err, errlen) < 0) return free(s), -1;
    if (s->stall >= cfg->naxes || s->offset_axis >= cfg->naxes)
        return snprintf(err, errlen, "--driver sim: stall=%d, offset_axis=%d: the program has %d axes", s->stall + 1,
                        s->offset_axis + 1, cfg->naxes), free(s), -1;
    s->n = cfg->naxes;
    s->dt = cfg->dt;
    s->q_enable = cfg->q0;
    for (int i = 0; i < s->n; i++)
        s->x[i] = s->sp[i] = cfg->q0[i] + (s->offset_axis < 0 || s->offset_axis == i ? s->offset : 0);
    *state = s;
    *caps = (DriverCaps){.has_feedback = 1};
    return 0;
}

static int sim_actual(void *state, double *q, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    Sim *s = state;
    memcpy(q, s->x, (size_t)s->n * sizeof *q);
    return 0;
}

static int sim_enable(void *state, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    Sim *s = state;
    memcpy(s->sp, s->q_enable, (size_t)s->n * sizeof *s->sp);
    s->enabled = 1;
    s->cycles = 0;
    return 0;
}

/* One cycle of the axes' dynamics under the last setpoint. */
static void sim_step(Sim *s)
{
    double t = (double)s->cycles * s->dt;
    for (int i = 0; i < s->n; i++) {
        if (i == s->stall && t >= s->stall_at) {
            s->v[i] = 0;
            continue;
        }
        if (s->wn > 0) {
            double h = s->dt / SIM_SUBSTEPS, w = s->wn, z = s->zeta;
            for (int k = 0; k < SIM_SUBSTEPS; k++) { /* semi-implicit Euler */
                s->v[i] += h * (w * w * (s->sp[i] - s->x[i]) + 2 * z * w * (s->spd[i] - s->v[i]));
                s->x[i] += h * s->v[i];
            }
        } else {
            double x0 = s->x[i];
            s->x[i] = s->tau > 0 ? s->sp[i] + (s->x[i] - s->sp[i]) * dm_exp(-s->dt / s->tau) : s->sp[i];
            s->v[i] = (s->x[i] - x0) / s->dt;
        }
    }
}

static int sim_read(void *state, DriverFeedback *fb)
{
    Sim *s = state;
    if (s->enabled) {
        sim_step(s);
        s->cycles++;
    }
    memcpy(fb->q, s->x, (size_t)s->n * sizeof *fb->q);
    fb->din = 0;
    double t = (double)s->cycles * s->dt;
    if (!s->fault && s->enabled && s->fault_at >= 0 && t >= s->fault_at - 1e-12) {
        s->fault = 1;
        snprintf(s->fault_text, sizeof s->fault_text, "sim: drive fault injected at %.3f s (fault_at)", t);
    }
    fb->fault = s->fault;
    return s->fault ? -1 : 0;
}

static int sim_write(void *state, const double *q, const double *qd, uint64_t dout)
{
    (void)dout;
    Sim *s = state;
    memcpy(s->sp, q, (size_t)s->n * sizeof *q);
    memcpy(s->spd, qd, (size_t)s->n * sizeof *qd);
    return s->fault ? -1 : 0;
}

static void sim_disable(void *state) { ((Sim *)state)->enabled = 0; }

static const char *sim_fault(void *state) { return ((Sim *)state)->fault_text; }

static void sim_close(void *state) { free(state); }

const DriverType driver_sim = {
    .name = "sim", .keys = sim_keys, .check = sim_check, .open = sim_open, .actual = sim_actual,
    .enable = sim_enable,
    .read = sim_read, .write = sim_write, .disable = sim_disable, .fault = sim_fault, .close = sim_close,
};
