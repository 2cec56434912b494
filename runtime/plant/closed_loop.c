/* closed_loop.c — the closed-loop dry-run engine: controller at the cycle rate (or inside the ODE), actuators,
 * and the plant integrated by GSL's odeiv2 driver between cycles. */
#include "plant/closed_loop.h"
#include "plant/ode_control.h"
#include "spd_solve.h"
#include "output/display.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "dmath.h"

/* printf into err (may be NULL). */
static int fail(char *err, size_t errlen, int st, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* Joint friction at speed qd: viscous plus Coulomb smoothed by tanh. */
static double friction(const ClosedLoop *cl, int j, double qd)
{
    const ClosedLoopConfig *c = &cl->cfg;
    double f = c->viscous[j] * qd;
    if (c->coulomb[j] != 0) f += c->coulomb[j] * dm_tanh(qd / CLOSED_LOOP_COULOMB_V);
    return f;
}

/* The joint torque axis j delivers with the held inputs, at speed qd and current i (motored axes). */
static double axis_torque(const ClosedLoop *cl, int j, double qd, double i)
{
    double t = cl->dist[j] - friction(cl, j, qd);
    switch (cl->kind[j]) {
    case CL_AXIS_MOTOR: return t + actuator_torque(&cl->act[j], i);
    case CL_AXIS_TORQUE: return t + cl->tau_hold[j];
    case CL_AXIS_PASSIVE: break;
    }
    return t;
}

/* The current of motored axis j in state y (a state, or algebraic when L = 0). */
static double axis_current(const ClosedLoop *cl, int j, const double *y)
{
    if (cl->icur[j] >= 0) return y[cl->icur[j]];
    return actuator_current_static(&cl->act[j], cl->u_hold[j], y[cl->n + j]);
}

/* Continuous controller: the torque axes' inputs at time t of the interval, from the state (q, q̇) and the
 * interval's quintic reference. */
static int control_inside(ClosedLoop *cl, double t, const double *q, const double *qd)
{
    int n = cl->n;
    double r[3][MODEL_MAX_DOF] = {{0}}, x = t - cl->rt0;
    for (int j = 0; j < n; j++) {
        const double c0 = cl->rc[0][j], c1 = cl->rc[1][j], c2 = cl->rc[2][j], c3 = cl->rc[3][j], c4 = cl->rc[4][j],
                     c5 = cl->rc[5][j];
        r[0][j] = c0 + x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5))));
        r[1][j] = c1 + x * (2 * c2 + x * (3 * c3 + x * (4 * c4 + x * 5 * c5)));
        r[2][j] = 2 * c2 + x * (6 * c3 + x * (12 * c4 + x * 20 * c5));
    }
    int st = controller_update(&cl->ctl, q, qd, r[0], r[1], r[2], cl->tau_cmd);
    if (st < 0) return st;
    for (int j = 0; j < n; j++) {
        if (cl->kind[j] != CL_AXIS_TORQUE) continue;
        double lim = cl->m->desc.joint[j].limits.effort, d = cl->tau_cmd[j] + friction(cl, j, qd[j]);
        cl->tau_hold[j] = d > lim ? lim : d < -lim ? -lim : d;
    }
    return 0;
}

/* dy/dt = (q̇, q̈, di/dt) with the inputs held for this cycle (or, continuous, computed at t). */
static int rhs(double t, const double y[], double dydt[], void *p)
{
    ClosedLoop *cl = p;
    int n = cl->n, st;
    const double *q = y, *qd = y + n;
    cl->stats.rhs_evals++;
    if (cl->cfg.continuous && (st = control_inside(cl, t, q, qd)) < 0) goto bad;
    for (int j = 0; j < n; j++) {
        double i = cl->kind[j] == CL_AXIS_MOTOR ? axis_current(cl, j, y) : 0;
        cl->tj[j] = axis_torque(cl, j, qd[j], i);
        if (cl->icur[j] >= 0) dydt[cl->icur[j]] = actuator_didt(&cl->act[j], cl->u_hold[j], i, qd[j]);
    }
    if (cl->own_solve) {
        if ((st = model_mass_matrix(cl->m, q, cl->M)) < 0 || (st = model_bias(cl->m, q, qd, cl->h)) < 0) goto bad;
        for (int j = 0; j < n; j++) cl->M[j * n + j] += cl->D[j], cl->qdd[j] = cl->tj[j] - cl->h[j];
        if ((st = spd_solve(cl->M, cl->qdd, n, n, 0)) < 0) goto bad;
    } else if ((st = model_forward_dynamics(cl->m, q, qd, cl->tj, cl->qdd)) < 0) {
        goto bad;
    }
    for (int j = 0; j < n; j++) {
        if (!isfinite(cl->qdd[j])) { st = MODEL_ENUMERIC; goto bad; }
        dydt[j] = qd[j], dydt[n + j] = cl->qdd[j];
    }
    return GSL_SUCCESS;
bad:
    cl->rhs_status = st;
    return GSL_EBADFUNC; /* odeiv2: abort the step at once, y restored */
}

/* Classify the axes and place the currents in the state. */
static int setup_axes(ClosedLoop *cl, char *err, size_t errlen)
{
    int n = cl->n;
    cl->ny = 2 * n;
    cl->own_solve = 0;
    for (int j = 0; j < n; j++) {
        const ModelJoint *jt = &cl->m->desc.joint[j];
        cl->icur[j] = -1;
        cl->D[j] = 0;
        if (!jt->powered) {
            cl->kind[j] = CL_AXIS_PASSIVE;
        } else if (jt->motor.present && !cl->cfg.no_motors) {
            if (actuator_from_model(&cl->act[j], &jt->motor) < 0)
                return fail(err, errlen, MODEL_EINVAL,
                            "joint %s: motor needs resistance > 0, kt != 0, inductance >= 0, rotor inertia >= 0",
                            jt->name);
            cl->kind[j] = CL_AXIS_MOTOR;
            cl->D[j] = actuator_reflected_inertia(&cl->act[j]);
            if (cl->D[j] > 0) cl->own_solve = 1;
            if (cl->act[j].L > 0) cl->icur[j] = cl->ny++;
        } else {
            cl->kind[j] = CL_AXIS_TORQUE;
        }
    }
    return 0;
}

/* Start in equilibrium at (q0, qd0): currents / held torques / PID integrator hold ID(q0, qd0, 0) + friction. */
static int start_state(ClosedLoop *cl, const double *q0, const double *qd0, char *err, size_t errlen)
{
    int n = cl->n, st;
    double zero[MODEL_MAX_DOF] = {0}, hold[MODEL_MAX_DOF];
    for (int j = 0; j < n; j++) cl->y[j] = q0[j], cl->y[n + j] = qd0 ? qd0[j] : 0;
    if ((st = model_inverse_dynamics(cl->m, cl->y, cl->y + n, zero, hold)) < 0)
        return fail(err, errlen, st, "closed loop: inverse dynamics at the start: %s", model_strerror(st));
    for (int j = 0; j < n; j++) {
        hold[j] += friction(cl, j, cl->y[n + j]);
        cl->tau_hold[j] = cl->kind[j] == CL_AXIS_TORQUE ? hold[j] : 0;
        if (cl->kind[j] == CL_AXIS_MOTOR) {
            const Actuator *a = &cl->act[j];
            double i0 = hold[j] / (a->N * a->kt);
            cl->u_hold[j] = a->R * i0 + a->ke * a->N * cl->y[n + j];
            if (cl->icur[j] >= 0) cl->y[cl->icur[j]] = i0;
        }
    }
    controller_preload(&cl->ctl, hold);
    return 0;
}

/* Set up everything; the GSL driver is the only allocation. */
int closed_loop_init(ClosedLoop *cl, Model *m, const ClosedLoopGains *g, const ClosedLoopConfig *cfg,
                     const double *q0, const double *qd0, char *err, size_t errlen)
{
    int st;
    memset(cl, 0, sizeof *cl);
    gsl_set_error_handler_off();
    if (!cfg || !(cfg->cycle > 0)) return fail(err, errlen, MODEL_EINVAL, "closed loop: the cycle time must be > 0");
    cl->cfg = *cfg;
    if (cl->cfg.epsabs <= 0) cl->cfg.epsabs = CLOSED_LOOP_EPSABS;
    if (cl->cfg.epsrel <= 0) cl->cfg.epsrel = CLOSED_LOOP_EPSREL;
    cl->m = m;
    cl->n = m->dof;
    cl->cycle = cfg->cycle;
    if (cl->n <= 0 || cl->n > MODEL_MAX_DOF) return fail(err, errlen, MODEL_EINVAL, "closed loop: bad axis count");
    if ((st = controller_init(&cl->ctl, m, g, cl->cycle)) < 0)
        return fail(err, errlen, st, "closed loop: gains: %d given for %d axes, or negative / not finite", g->n,
                    m->dof);
    if ((st = setup_axes(cl, err, errlen)) < 0) return st;
    if (cl->cfg.continuous) {
        if (g->kind != CONTROLLER_CT)
            return fail(err, errlen, MODEL_EINVAL, "closed loop: a continuous controller must be the computed-torque "
                        "one (a PID's integrator is sampled)");
        for (int j = 0; j < cl->n; j++)
            if (cl->kind[j] == CL_AXIS_MOTOR)
                return fail(err, errlen, MODEL_EINVAL, "closed loop: joint %s has a motor, whose voltage is set once "
                            "per cycle: a continuous controller drives torques only", m->desc.joint[j].name);
    }
    if ((st = start_state(cl, q0, qd0, err, errlen)) < 0) return st;
    for (int j = 0; j < cl->n; j++) cl->ref[0][j] = q0[j], cl->ref[1][j] = qd0 ? qd0[j] : 0, cl->ref[2][j] = 0;
    const gsl_odeiv2_step_type *T = gsl_odeiv2_step_rk8pd;
    if (cfg->stepper && strcmp(cfg->stepper, "rkf45") == 0) T = gsl_odeiv2_step_rkf45;
    else if (cfg->stepper && strcmp(cfg->stepper, "rk8pd") != 0)
        return fail(err, errlen, MODEL_EINVAL, "closed loop: unknown stepper '%s' (rk8pd, rkf45)", cfg->stepper);
    cl->sys = (gsl_odeiv2_system){rhs, NULL, (size_t)cl->ny, cl};
    cl->drv = gsl_odeiv2_driver_alloc_y_new(&cl->sys, T, cl->cycle / 4, cl->cfg.epsabs, cl->cfg.epsrel);
    if (!cl->drv) return fail(err, errlen, MODEL_ENOMEM, "closed loop: out of memory");
    if (ode_control_install(cl->drv, cl->cfg.epsabs, cl->cfg.epsrel) != GSL_SUCCESS) {
        closed_loop_free(cl);
        return fail(err, errlen, MODEL_ENOMEM, "closed loop: out of memory");
    }
    if (gsl_odeiv2_driver_set_hmax(cl->drv, cl->cycle) != GSL_SUCCESS) {
        closed_loop_free(cl);
        return fail(err, errlen, MODEL_EINVAL, "closed loop: bad cycle time");
    }
    for (int j = 0; j < cl->n; j++) cl->stats.open[j] = -1;
    return 0;
}

void closed_loop_free(ClosedLoop *cl)
{
    if (cl->drv) gsl_odeiv2_driver_free(cl->drv);
    cl->drv = NULL;
}

void closed_loop_set_disturbance(ClosedLoop *cl, const double *tau_ext)
{
    for (int j = 0; j < cl->n; j++) cl->dist[j] = tau_ext ? tau_ext[j] : 0;
}

/* The state at t_k into out (errors left to the caller). */
static void read_state(ClosedLoop *cl)
{
    ClosedLoopOut *o = &cl->out;
    int n = cl->n;
    o->t = (double)cl->k * cl->cycle;
    o->nsat = 0;
    for (int j = 0; j < n; j++) {
        o->q[j] = cl->y[j], o->qd[j] = cl->y[n + j];
        o->i[j] = cl->kind[j] == CL_AXIS_MOTOR ? axis_current(cl, j, cl->y) : NAN;
        o->u[j] = NAN;
        o->sat[j] = 0;
    }
}

/* Hold an input on axis j: a voltage demand (motored) or a torque demand (others); clip, record. Returns the
 * saturation sign in the torque direction (for anti-windup). */
static int hold_input(ClosedLoop *cl, int j, double demand)
{
    ClosedLoopOut *o = &cl->out;
    int sat = 0;
    double lim;
    if (cl->kind[j] == CL_AXIS_MOTOR) {
        const Actuator *a = &cl->act[j];
        cl->u_hold[j] = actuator_saturate(a, demand, &sat);
        o->u[j] = cl->u_hold[j];
        lim = a->vmax;
        /* the current at t_k for L = 0 follows the new voltage at once */
        if (cl->icur[j] < 0) o->i[j] = actuator_current_static(a, cl->u_hold[j], cl->y[cl->n + j]);
    } else if (cl->kind[j] == CL_AXIS_TORQUE) {
        lim = cl->m->desc.joint[j].limits.effort;
        cl->tau_hold[j] = demand;
        if (demand > lim) cl->tau_hold[j] = lim, sat = 1;
        else if (demand < -lim) cl->tau_hold[j] = -lim, sat = -1;
    } else {
        return 0;
    }
    o->sat[j] = sat;
    ClosedLoopStats *s = &cl->stats;
    if (!sat) {
        s->open[j] = -1;
        return 0;
    }
    o->nsat++;
    s->sat_cycles[j]++;
    ClosedLoopSatEvent *ev = s->open[j] >= 0 ? &s->ev[s->open[j]] : NULL;
    if (!ev && s->open[j] == -1) {
        if (s->nev < CLOSED_LOOP_MAX_EVENTS) {
            s->open[j] = s->nev;
            ev = &s->ev[s->nev++];
            *ev = (ClosedLoopSatEvent){.axis = j, .voltage = cl->kind[j] == CL_AXIS_MOTOR, .t_start = o->t,
                                       .limit = lim};
        } else {
            s->open[j] = -2; /* an event we could not keep: counted once */
            s->ev_dropped++;
        }
    }
    if (ev) {
        ev->t_end = o->t;
        ev->cycles++;
        if (fabs(demand) > ev->worst) ev->worst = fabs(demand), ev->worst_t = o->t;
    }
    if (cl->kind[j] == CL_AXIS_MOTOR && cl->act[j].N * cl->act[j].kt < 0) sat = -sat;
    return sat;
}

/* The statistics of this cycle's outputs. */
static void note_peaks(ClosedLoop *cl)
{
    ClosedLoopStats *s = &cl->stats;
    ClosedLoopOut *o = &cl->out;
    for (int j = 0; j < cl->n; j++) {
        double ae = fabs(o->e[j]);
        if (ae > s->emax[j]) s->emax[j] = ae, s->emax_t[j] = o->t;
        if (cl->kind[j] == CL_AXIS_MOTOR) {
            if (fabs(o->u[j]) > s->umax[j]) s->umax[j] = fabs(o->u[j]);
            if (fabs(o->i[j]) > s->imax[j]) s->imax[j] = fabs(o->i[j]);
        }
    }
}

/* Integrate the plant over [t_k, t_k+1] with the inputs of this cycle. */
static int integrate(ClosedLoop *cl)
{
    ClosedLoopStats *s = &cl->stats;
    double t = (double)cl->k * cl->cycle, t1 = (double)(cl->k + 1) * cl->cycle;
    cl->rhs_status = 0;
    /* The held inputs changed: the evolver must not reuse the last cycle's derivative at the first step (it
     * would, and then reject step after step until h is tiny). Resetting keeps the driver's step size. */
    gsl_odeiv2_evolve_reset(cl->drv->e);
    int st = gsl_odeiv2_driver_apply(cl->drv, &t, t1, cl->y);
    s->steps += (long)cl->drv->e->count;
    s->failed_steps += (long)cl->drv->e->failed_steps;
    if (st != GSL_SUCCESS) return cl->rhs_status < 0 ? cl->rhs_status : CLOSED_LOOP_EODE;
    cl->k++;
    s->cycles = cl->k;
    return 0;
}

/* Integrate with the held inputs and note the cycle's peaks. */
static int advance(ClosedLoop *cl)
{
    note_peaks(cl);
    return integrate(cl);
}

void closed_loop_set_reference(ClosedLoop *cl, const double *qr, const double *qdr, const double *qddr)
{
    for (int j = 0; j < cl->n; j++) cl->ref[0][j] = qr[j], cl->ref[1][j] = qdr[j], cl->ref[2][j] = qddr[j];
}

/* The quintic from the stored reference (t_k) to (qr, qdr, qddr) at t_k + h, in powers of t − t_k. */
static void reference_quintic(ClosedLoop *cl, const double *qr, const double *qdr, const double *qddr)
{
    double h = cl->cycle;
    cl->rt0 = (double)cl->k * h;
    for (int j = 0; j < cl->n; j++) {
        double p0 = cl->ref[0][j], v0 = cl->ref[1][j], a0 = cl->ref[2][j], dp = qr[j] - p0;
        cl->rc[0][j] = p0, cl->rc[1][j] = v0, cl->rc[2][j] = a0 / 2;
        cl->rc[3][j] = (20 * dp - (8 * qdr[j] + 12 * v0) * h - (3 * a0 - qddr[j]) * h * h) / (2 * h * h * h);
        cl->rc[4][j] = (-30 * dp + (14 * qdr[j] + 16 * v0) * h + (3 * a0 - 2 * qddr[j]) * h * h) / (2 * h * h * h * h);
        cl->rc[5][j] = (12 * dp - 6 * (qdr[j] + v0) * h + (qddr[j] - a0) * h * h) / (2 * h * h * h * h * h);
    }
}

/* One continuous-controller cycle: integrate to t_k with the controller inside (from the second step on: the
 * first one is at the start), then the outputs at t_k. */
static int step_continuous(ClosedLoop *cl, const double *qr, const double *qdr, const double *qddr)
{
    ClosedLoopOut *o = &cl->out;
    int st;
    if (cl->started) {
        reference_quintic(cl, qr, qdr, qddr);
        if ((st = integrate(cl)) < 0) return st;
    }
    cl->started = 1;
    closed_loop_set_reference(cl, qr, qdr, qddr);
    read_state(cl);
    if ((st = controller_update(&cl->ctl, o->q, o->qd, qr, qdr, qddr, o->tau)) < 0) return st;
    for (int j = 0; j < cl->n; j++) {
        o->e[j] = cl->ctl.e[j], o->ed[j] = cl->ctl.ed[j];
        hold_input(cl, j, o->tau[j] + friction(cl, j, o->qd[j]));
    }
    note_peaks(cl);
    return 0;
}

/* One closed-loop cycle: read the state, control, drive, integrate. */
int closed_loop_step(ClosedLoop *cl, const double *qr, const double *qdr, const double *qddr)
{
    ClosedLoopOut *o = &cl->out;
    int n = cl->n, st, ct = cl->ctl.g.kind == CONTROLLER_CT;
    if (cl->cfg.continuous) return step_continuous(cl, qr, qdr, qddr);
    read_state(cl);
    if ((st = controller_update(&cl->ctl, o->q, o->qd, qr, qdr, qddr, o->tau)) < 0) return st;
    for (int j = 0; j < n; j++) {
        o->e[j] = cl->ctl.e[j], o->ed[j] = cl->ctl.ed[j];
        double demand = o->tau[j];
        if (ct) demand += friction(cl, j, o->qd[j]); /* the perfect model knows the friction */
        if (cl->kind[j] == CL_AXIS_MOTOR) {
            const Actuator *a = &cl->act[j];
            if (ct) demand += cl->D[j] * cl->ctl.a[j]; /* ... and the rotor it accelerates */
            double i_star = demand / (a->N * a->kt);
            demand = actuator_voltage_for_current(a, i_star, o->i[j], o->qd[j], cl->cycle);
        }
        int sat = hold_input(cl, j, demand);
        controller_saturated(&cl->ctl, j, sat);
    }
    return advance(cl);
}

/* One open-loop cycle with the given inputs held. */
int closed_loop_step_open(ClosedLoop *cl, const double *input)
{
    ClosedLoopOut *o = &cl->out;
    read_state(cl);
    for (int j = 0; j < cl->n; j++) {
        o->e[j] = o->ed[j] = 0;
        o->tau[j] = cl->kind[j] == CL_AXIS_PASSIVE ? 0 : input[j];
        hold_input(cl, j, input[j]);
    }
    return advance(cl);
}

/* Channels: qa, e for every axis; u, i too when some axis has a motor. */
static int has_motor(const ClosedLoop *cl)
{
    for (int j = 0; j < cl->n; j++)
        if (cl->kind[j] == CL_AXIS_MOTOR) return 1;
    return 0;
}

int closed_loop_channel_count(const ClosedLoop *cl) { return (has_motor(cl) ? 4 : 2) * cl->n; }

void closed_loop_channel_name(const ClosedLoop *cl, const char *dev, int k, char *buf, size_t len)
{
    static const char *const grp[] = {"qa", "e", "u", "i"};
    snprintf(buf, len, "%s.%s%d", dev, grp[k / cl->n], k % cl->n + 1);
}

void closed_loop_channel_values(const ClosedLoop *cl, double *v)
{
    int n = cl->n;
    for (int j = 0; j < n; j++) v[j] = cl->out.q[j], v[n + j] = cl->out.e[j];
    if (has_motor(cl))
        for (int j = 0; j < n; j++) v[2 * n + j] = cl->out.u[j], v[3 * n + j] = cl->out.i[j];
}

/* Human summary. */
void closed_loop_report(const ClosedLoop *cl, const char *dev, int degrees, FILE *f)
{
    const ClosedLoopStats *s = &cl->stats;
    fprintf(f, "%s: closed loop (%s), %ld cycles, %ld integrator steps (%ld rejected), %ld evaluations\n", dev,
            cl->ctl.g.kind != CONTROLLER_CT ? "PID" : cl->cfg.continuous ? "computed-torque PD, continuous"
                                                                            : "computed-torque PD", s->cycles, s->steps,
            s->failed_steps, s->rhs_evals);
    for (int j = 0; j < cl->n; j++) {
        int pri = j < cl->m->desc.njoints && cl->m->desc.joint[j].type == MODEL_PRISMATIC;
        DisplayUnit du = display_axis(pri, 0, degrees);
        const char *jn = j < cl->m->desc.njoints ? cl->m->desc.joint[j].name : "";
        fprintf(f, "  axis %d%s%s%s", j + 1, *jn ? " (" : "", jn, *jn ? ")" : "");
        if (cl->kind[j] == CL_AXIS_PASSIVE) /* nothing drives it: its setpoint is only the planner's placeholder */
            fprintf(f, ", passive, not driven: peak |setpoint - actual| %.4g %s at t = %.6g s", du.k * s->emax[j],
                    du.unit, s->emax_t[j]);
        else
            fprintf(f, ": peak tracking error %.4g %s at t = %.6g s", du.k * s->emax[j], du.unit, s->emax_t[j]);
        if (cl->kind[j] == CL_AXIS_MOTOR) fprintf(f, ", peak |u| %.4g V, peak |i| %.4g A", s->umax[j], s->imax[j]);
        if (s->sat_cycles[j]) fprintf(f, ", %ld cycles saturated", s->sat_cycles[j]);
        fputc('\n', f);
    }
    for (int k = 0; k < s->nev; k++) {
        const ClosedLoopSatEvent *e = &s->ev[k];
        fprintf(f, "  %s axis %d: %s at its limit %.4g %s from t = %.6g to %.6g s (%ld cycles), demand up to %.4g "
                "%s at t = %.6g s\n", dev, e->axis + 1, e->voltage ? "voltage" : "torque", e->limit,
                e->voltage ? "V" : "Nm", e->t_start, e->t_end, e->cycles, e->worst, e->voltage ? "V" : "Nm", e->worst_t);
    }
    if (s->ev_dropped) fprintf(f, "  %ld more saturation events not listed\n", s->ev_dropped);
}

const char *closed_loop_strerror(int status)
{
    if (status == CLOSED_LOOP_EODE) return "the ODE solver failed (step size underflow)";
    return model_strerror(status);
}
