/* test_closed_loop.c — the closed-loop dry-run engine against closed forms: computed-torque PD error response,
 * energy of an unactuated double pendulum, the DC motor's speed/current transient and electrical time constant,
 * voltage saturation and anti-windup, integrator accuracy against its tolerance, PID under gravity, and the cost
 * of a PUMA 560 cycle. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plant/closed_loop.h"
#include "plant/controller.h"
#include "puma560_desc.h"
#include "utest.h"

/* A 2R arm in the vertical x-z plane: both axes along y, gravity −z, rods along x (l1 = 1 m, m1 = 2 kg;
 * l2 = 0.8 m, m2 = 1 kg). powered = 0 makes both joints passive. */
static void arm2r_desc(ModelDesc *d, int powered)
{
    static const double m[2] = {2.0, 1.0}, l[2] = {1.0, 0.8};
    model_desc_init(d);
    strcpy(d->name, "2r");
    strcpy(d->backend, "chain");
    d->njoints = 2;
    for (int i = 0; i < 2; i++) {
        ModelJoint *j = &d->joint[i];
        model_joint_init(j);
        snprintf(j->name, sizeof j->name, "j%d", i + 1);
        snprintf(j->link, sizeof j->link, "l%d", i + 1);
        j->parent = i - 1;
        j->type = MODEL_REVOLUTE;
        if (i == 1) j->origin_xyz[0] = l[0];
        j->axis[0] = 0, j->axis[1] = 1, j->axis[2] = 0;
        j->mass = m[i];
        j->com[0] = l[i] / 2;
        double I = m[i] * l[i] * l[i] / 12;
        double In[9] = {1e-4, 0, 0, 0, I, 0, 0, 0, I};
        memcpy(j->inertia, In, sizeof In);
        j->powered = powered;
    }
}

/* A single rotor about the vertical axis (gravity along it: no gravity torque), link inertia J about the axis,
 * optionally with a DC motor. */
static void rotor_desc(ModelDesc *d, double J, const ModelMotor *mo)
{
    model_desc_init(d);
    strcpy(d->name, "rotor");
    strcpy(d->backend, "chain");
    d->njoints = 1;
    ModelJoint *j = &d->joint[0];
    model_joint_init(j);
    strcpy(j->name, "j1");
    strcpy(j->link, "l1");
    j->parent = -1;
    j->type = MODEL_REVOLUTE;
    j->axis[2] = 1;
    j->mass = 1;
    double In[9] = {J, 0, 0, 0, J, 0, 0, 0, J};
    memcpy(j->inertia, In, sizeof In);
    if (mo) j->motor = *mo;
}

/* Total mechanical energy ½ q̇ᵀ M q̇ − Σ m g·c of a chain. */
static double energy(Model *m, const double *q, const double *qd)
{
    int n = m->dof;
    double M[MODEL_MAX_DOF * MODEL_MAX_DOF], E = 0;
    model_mass_matrix(m, q, M);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) E += 0.5 * qd[a] * M[a * n + b] * qd[b];
    for (int j = 0; j < n; j++) {
        double p[3], R[9];
        model_fk(m, q, j, p, R);
        const ModelJoint *jt = &m->desc.joint[j];
        for (int k = 0; k < 3; k++) {
            double c = p[k] + R[3 * k] * jt->com[0] + R[3 * k + 1] * jt->com[1] + R[3 * k + 2] * jt->com[2];
            E -= jt->mass * m->desc.gravity[k] * c;
        }
    }
    return E;
}

/* The 2R reference trajectory used by the tracking tests. */
static void ref2(double t, double *q, double *qd, double *qdd)
{
    q[0] = 0.5 * sin(1.5 * t), qd[0] = 0.75 * cos(1.5 * t), qdd[0] = -1.125 * sin(1.5 * t);
    q[1] = 0.3 + 0.4 * cos(2 * t), qd[1] = -0.8 * sin(2 * t), qdd[1] = -1.6 * cos(2 * t);
}

/* Computed-torque PD on the 2R arm, started 0.01 / −0.02 rad off a moving trajectory at its speed; returns the
 * largest deviation of e(t) from the critically damped closed form e0 (1 + ωt) e^{−ωt} over 1 s. */
static double ct_offset_deviation_rate(double cycle, double w, int continuous)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    arm2r_desc(&d, 1);
    if (model_open(&m, &d, err, sizeof err) < 0) return INFINITY;
    controller_gains_default(&g, &m, CONTROLLER_CT, w, cycle);
    double q[2], qd[2], qdd[2], q0[2], e0[2] = {-0.01, 0.02}, dev = 0;
    ref2(0, q, qd, qdd);
    q0[0] = q[0] - e0[0], q0[1] = q[1] - e0[1];
    if (closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = cycle, .continuous = continuous}, q0, qd, err,
                         sizeof err) < 0) {
        printf("# %s\n", err);
        model_close(&m);
        return INFINITY;
    }
    long ncyc = lround(1.0 / cycle);
    for (long k = 0; k < ncyc; k++) {
        double t = k * cycle;
        ref2(t, q, qd, qdd);
        if (closed_loop_step(&cl, q, qd, qdd) < 0) { dev = INFINITY; break; }
        for (int j = 0; j < 2; j++) {
            double ea = e0[j] * (1 + w * t) * exp(-w * t);
            dev = fmax(dev, fabs(cl.out.e[j] - ea));
        }
    }
    closed_loop_free(&cl);
    model_close(&m);
    return dev;
}

static double ct_offset_deviation(double cycle, double w) { return ct_offset_deviation_rate(cycle, w, 0); }

/* The sampled loop follows the continuous PD's closed form, to first order in the cycle time. */
UTEST(ct_pd_offset_matches_closed_form)
{
    double d1 = ct_offset_deviation(1e-3, 10), d4 = ct_offset_deviation(2.5e-4, 10);
    printf("# CT PD offset, deviation from e0(1+wt)e^-wt: cycle 1 ms %.3g rad, 0.25 ms %.3g rad (e0 = 0.02)\n", d1,
           d4);
    /* The zero-order hold delays the torque by about half a cycle: deviation ~ |e0| ω h / 2 = 1e-4 at 1 ms. */
    CHECK(d1 < 2e-4);
    CHECK(d4 < 0.5e-4);
    CHECK(d1 / d4 > 3 && d1 / d4 < 5); /* first order in h */
}

/* The controller inside the ODE, on the quintic between the cycles' setpoints, is the continuous PD: its error is
 * the closed form to the integrator's tolerance, whatever the cycle (the quintic is exact to O(h^6)). */
UTEST(ct_pd_continuous_matches_closed_form)
{
    double d1 = ct_offset_deviation_rate(1e-3, 10, 1), d10 = ct_offset_deviation_rate(1e-2, 10, 1);
    printf("# CT PD continuous, deviation from e0(1+wt)e^-wt: cycle 1 ms %.3g rad, 10 ms %.3g rad (e0 = 0.02)\n", d1,
           d10);
    CHECK(d1 < 1e-12);
    CHECK(d10 < 1e-12);
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    arm2r_desc(&d, 1);
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    controller_gains_default(&g, &m, CONTROLLER_PID, 10, 1e-3);
    double q0[2] = {0, 0};
    CHECK(closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = 1e-3, .continuous = 1}, q0, NULL, err,
                           sizeof err) < 0);
    CHECK(strstr(err, "computed-torque") != NULL);
    model_close(&m);
}

/* A step torque disturbance on a constant inertia under computed torque: ë + 2ωė + ω²e = −d/J, so
 * e(t) = −d/(J ω²) (1 − (1 + ωt) e^{−ωt}). */
UTEST(ct_pd_step_disturbance)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    double J = 0.5, w = 20, dist = 2.0, cycle = 1e-4;
    rotor_desc(&d, J, NULL);
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    CHECK(controller_gains_default(&g, &m, CONTROLLER_CT, w, cycle) == 0);
    CHECK_NEAR(g.kp[0], w * w, 1e-12);
    CHECK_NEAR(g.kd[0], 2 * w, 1e-12);
    double q0 = 0, zero = 0, dev = 0, e_end = 0;
    CHECK(closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = cycle}, &q0, NULL, err, sizeof err) == 0);
    closed_loop_set_disturbance(&cl, &dist);
    for (long k = 0; k < 10000; k++) {
        double t = k * cycle;
        CHECK(closed_loop_step(&cl, &zero, &zero, &zero) == 0);
        double ea = -dist / (J * w * w) * (1 - (1 + w * t) * exp(-w * t));
        dev = fmax(dev, fabs(cl.out.e[0] - ea));
        e_end = cl.out.e[0];
    }
    printf("# step disturbance: e_ss %.6g (closed form %.6g), max deviation %.3g\n", e_end, -dist / (J * w * w), dev);
    CHECK_NEAR(e_end, -dist / (J * w * w), 1e-6);
    CHECK(dev < 1e-3 * dist / (J * w * w) * 5); /* ω h = 2e-3: 0.5 % of the steady error */
    closed_loop_free(&cl);
    model_close(&m);
}

/* Run an unactuated double pendulum for T seconds from q0 at rest; final state into y[4]; max |ΔE|. */
static double pendulum(double T, double cycle, double eps, const char *stepper, double y[4], long *evals)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    arm2r_desc(&d, 0);
    if (model_open(&m, &d, err, sizeof err) < 0) return INFINITY;
    controller_gains_default(&g, &m, CONTROLLER_CT, 0, cycle);
    double q0[2] = {0.3, -0.2}, in[2] = {5, 5}; /* inputs on passive joints must be ignored */
    if (closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = cycle, .epsabs = eps, .epsrel = eps,
                                                          .stepper = stepper},
                         q0, NULL, err, sizeof err) < 0)
        return INFINITY;
    double E0 = energy(&m, q0, (double[2]){0, 0}), dE = 0;
    long n = lround(T / cycle);
    for (long k = 0; k < n; k++) {
        if (closed_loop_step_open(&cl, in) < 0) return INFINITY;
        dE = fmax(dE, fabs(energy(&m, cl.y, cl.y + 2) - E0));
    }
    memcpy(y, cl.y, 4 * sizeof *y);
    if (evals) *evals = cl.stats.rhs_evals;
    closed_loop_free(&cl);
    model_close(&m);
    return dE;
}

/* Free fall of a passive double pendulum (chaotic) conserves energy to the integrator's tolerance. */
UTEST(free_fall_conserves_energy)
{
    double y[4];
    long ev;
    double dE = pendulum(5, 1e-3, 1e-9, NULL, y, &ev);
    double dE45 = pendulum(5, 1e-3, 1e-9, "rkf45", y, NULL);
    /* energy scale m g l ~ 20 J; 5000 cycles of local errors <= 1e-9 */
    printf("# free fall 5 s: max |dE| %.3g J (rk8pd, %ld evaluations), %.3g J (rkf45)\n", dE, ev, dE45);
    CHECK(dE < 1e-6);
    CHECK(dE45 < 1e-6);
    CHECK(fabs(y[0] - 0.3) > 0.1 || fabs(y[1] + 0.2) > 0.1); /* it did fall */
}

/* Halving the tolerance changes the result little, and the error against a tight reference follows the
 * tolerance. At a 1 ms cycle every step is the whole cycle and the local error estimates are ~1e-17, so the
 * tolerance does not bind; with 50 ms cycles (here: open loop, nothing held but zero torque) it does. */
UTEST(integrator_accuracy_vs_tolerance)
{
    double yr[4], y1[4], y2[4];
    pendulum(2, 0.05, 1e-13, NULL, yr, NULL);
    pendulum(2, 0.05, 1e-6, "rkf45", y1, NULL);
    pendulum(2, 0.05, 0.5e-6, "rkf45", y2, NULL);
    double d12 = 0, e1 = 0, e2 = 0;
    for (int k = 0; k < 4; k++)
        d12 = fmax(d12, fabs(y1[k] - y2[k])), e1 = fmax(e1, fabs(y1[k] - yr[k])), e2 = fmax(e2, fabs(y2[k] - yr[k]));
    printf("# pendulum 2 s, 50 ms cycles, rkf45: tol 1e-6 err %.3g, tol 5e-7 err %.3g, difference %.3g\n", e1, e2,
           d12);
    CHECK(d12 > 0);
    CHECK(d12 < 50 * 1e-6); /* global error ~ tolerance x (number of steps ~ 10 per cycle) */
    CHECK(e1 < 50 * 1e-6 && e2 < 50 * 0.5e-6);
    CHECK(e2 < 0.75 * e1); /* the error follows the tolerance (proportionally, here) */
}

/* e^{At} of a 2x2 matrix, in closed form (Putzer): e^{st}[c(t) I + s(t) (A − sI)], s = tr/2. */
static void expm2(const double A[4], double t, double E[4])
{
    double s = 0.5 * (A[0] + A[3]), det = A[0] * A[3] - A[1] * A[2], disc = s * s - det, c, sn;
    if (disc < 0) {
        double mu = sqrt(-disc);
        c = cos(mu * t), sn = sin(mu * t) / mu;
    } else if (disc > 0) {
        double mu = sqrt(disc);
        c = cosh(mu * t), sn = sinh(mu * t) / mu;
    } else {
        c = 1, sn = t;
    }
    double e = exp(s * t);
    E[0] = e * (c + sn * (A[0] - s)), E[1] = e * sn * A[1], E[2] = e * sn * A[2], E[3] = e * (c + sn * (A[3] - s));
}

static const ModelMotor test_motor = {.present = 1, .resistance = 2.0, .inductance = 4e-3, .kt = 0.2, .ke = 0.2,
                                      .gear = 50, .rotor_inertia = 1e-5, .vmax = 0};

/* A DC motor alone on a rotor, constant voltage: x = (ω, i) obeys x' = A x + b with
 * A = [[0, N kt/Jt], [−ke N/L, −R/L]], b = (0, u/L), Jt = J + N² Jr; steady speed u/(ke N), current 0. */
UTEST(dc_motor_transient_closed_form)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    const ModelMotor *mo = &test_motor;
    double J = 0.02, u = 12, cycle = 1e-3, N = mo->gear, Jt = J + N * N * mo->rotor_inertia;
    rotor_desc(&d, J, mo);
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    controller_gains_default(&g, &m, CONTROLLER_PID, 0, cycle);
    double q0 = 0;
    CHECK(closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = cycle}, &q0, NULL, err, sizeof err) == 0);
    CHECK(cl.ny == 3); /* q, q̇, i */
    double A[4] = {0, N * mo->kt / Jt, -mo->ke * N / mo->inductance, -mo->resistance / mo->inductance};
    double wss = u / (mo->ke * N), worst = 0, worst_i = 0;
    for (long k = 0; k < 1000; k++) {
        CHECK(closed_loop_step_open(&cl, &u) == 0);
        double t = (k + 1) * cycle, E[4];
        expm2(A, t, E);
        /* x(t) = x_ss + e^{At}(x0 − x_ss), x0 = 0, x_ss = (wss, 0) */
        double w = wss - E[0] * wss, i = -E[2] * wss;
        worst = fmax(worst, fabs(cl.y[1] - w));
        worst_i = fmax(worst_i, fabs(cl.y[2] - i));
    }
    printf("# DC motor 1 s at %g V: speed %.9g rad/s (u/(ke N) = %.9g), max |dw| %.3g, max |di| %.3g\n", u, cl.y[1],
           wss, worst, worst_i);
    CHECK(worst < 1e-6 * wss);
    CHECK(worst_i < 1e-6 * u / mo->resistance);
    CHECK_REL(cl.y[1], wss, 1e-6); /* mechanical time constant R Jt/(ke kt N²) = 0.01 s: settled */
    CHECK(cl.out.u[0] == u && cl.out.sat[0] == 0);
    closed_loop_free(&cl);
    model_close(&m);

    /* With viscous friction b: ω_ss = u N kt / (R b + ke kt N²). */
    double b = 0.5, q00 = 0;
    ClosedLoopConfig cfg = {.cycle = cycle};
    cfg.viscous[0] = b;
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    CHECK(closed_loop_init(&cl, &m, &g, &cfg, &q00, NULL, err, sizeof err) == 0);
    for (long k = 0; k < 1000; k++) CHECK(closed_loop_step_open(&cl, &u) == 0);
    CHECK_REL(cl.y[1], u * N * mo->kt / (mo->resistance * b + mo->ke * mo->kt * N * N), 1e-6);
    closed_loop_free(&cl);
    model_close(&m);
}

/* Locked rotor (huge inertia): i(t) = u/R (1 − e^{−tR/L}); at t = L/R the current is 63.2 % of u/R. */
UTEST(dc_motor_electrical_time_constant)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    const ModelMotor *mo = &test_motor;
    double tau_e = mo->inductance / mo->resistance, cycle = tau_e / 20, u = 10;
    rotor_desc(&d, 1e9, mo);
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    controller_gains_default(&g, &m, CONTROLLER_PID, 0, cycle);
    double q0 = 0;
    CHECK(closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = cycle}, &q0, NULL, err, sizeof err) == 0);
    for (int k = 0; k < 20; k++) CHECK(closed_loop_step_open(&cl, &u) == 0);
    double ist = u / mo->resistance;
    printf("# locked rotor: i(L/R) = %.9g A, (u/R)(1 - 1/e) = %.9g A\n", cl.y[2], ist * (1 - exp(-1)));
    CHECK_REL(cl.y[2], ist * (1 - exp(-1)), 1e-7);
    for (int k = 0; k < 20; k++) CHECK(closed_loop_step_open(&cl, &u) == 0);
    CHECK_REL(cl.y[2], ist * (1 - exp(-2)), 1e-7);
    closed_loop_free(&cl);
    model_close(&m);
}

/* Voltage saturation: computed torque asks a geared rotor for 3000 rad/s² from rest. With |u| <= vmax and
 * ω >= 0, di/dt < 0 whenever i > vmax/R, so the current stays below vmax/R and the acceleration below
 * N kt vmax/(R Jt); the speed cannot pass the back-EMF limit vmax/(ke N). The clipping is reported. */
UTEST(voltage_saturation_limits_acceleration)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    ModelMotor mo = test_motor;
    mo.vmax = 24, mo.gear = 10;
    double J = 0.02, cycle = 1e-3, N = mo.gear, Jt = J + N * N * mo.rotor_inertia, acc = 3000;
    double amax = N * mo.kt * mo.vmax / (mo.resistance * Jt), wmax = mo.vmax / (mo.ke * N);
    rotor_desc(&d, J, &mo);
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    CHECK(controller_gains_default(&g, &m, CONTROLLER_CT, 20, cycle) == 0);
    double q0 = 0, peak_acc = 0, peak_w = 0, prev_qd = 0;
    int nsat = 0, u_ok = 1;
    CHECK(closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = cycle}, &q0, NULL, err, sizeof err) == 0);
    for (long k = 0; k < 300; k++) {
        double t = k * cycle, qr = 0.5 * acc * t * t, qdr = acc * t;
        CHECK(closed_loop_step(&cl, &qr, &qdr, &acc) == 0);
        if (k > 0) peak_acc = fmax(peak_acc, (cl.out.qd[0] - prev_qd) / cycle);
        prev_qd = cl.out.qd[0];
        peak_w = fmax(peak_w, cl.out.qd[0]);
        nsat += cl.out.sat[0] != 0;
        if (fabs(cl.out.u[0]) > mo.vmax) u_ok = 0;
    }
    printf("# saturation: demanded %g rad/s^2, achieved at most %.5g (bound N kt vmax/(R Jt) = %.5g), speed %.6g "
           "(bound %.6g), %d cycles clipped\n", acc, peak_acc, amax, peak_w, wmax, nsat);
    CHECK(amax < acc);
    CHECK(peak_acc <= amax * (1 + 1e-9));
    CHECK(peak_acc > 0.5 * amax);
    CHECK(peak_w <= wmax * (1 + 1e-9) && peak_w > 0.99 * wmax);
    CHECK(u_ok);
    CHECK(nsat == 300);
    CHECK(cl.stats.sat_cycles[0] == nsat);
    CHECK(cl.stats.nev == 1);
    CHECK(cl.stats.ev[0].voltage == 1 && cl.stats.ev[0].limit == 24 && cl.stats.ev[0].worst > 24);
    CHECK(cl.stats.ev[0].t_start == 0 && cl.stats.ev[0].cycles == 300);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    closed_loop_report(&cl, "rot", 0, f);
    fclose(f);
    CHECK(strstr(buf, "rot axis 1: voltage at its limit 24 V from t = 0 to 0.299 s (300 cycles)") != NULL);
    free(buf);
    closed_loop_free(&cl);
    model_close(&m);
}

/* Anti-windup: while the voltage is clipped and the error pushes further, the PID integrator does not grow;
 * without the clamp the integral would have grown by Ki ∫e dt. */
UTEST(pid_antiwindup)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    ModelMotor mo = test_motor;
    mo.vmax = 24;
    double cycle = 1e-3, q0 = 0, qr = 3, zero = 0, z0, eint = 0;
    rotor_desc(&d, 0.02, &mo);
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    CHECK(controller_gains_default(&g, &m, CONTROLLER_PID, 20, cycle) == 0);
    CHECK(closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = cycle}, &q0, NULL, err, sizeof err) == 0);
    z0 = cl.ctl.z[0];
    int sat = 0;
    for (int k = 0; k < 50; k++) {
        CHECK(closed_loop_step(&cl, &qr, &zero, &zero) == 0);
        sat += cl.out.sat[0] == 1;
        eint += cl.out.e[0] * cycle;
    }
    printf("# anti-windup: %d of 50 cycles clipped, integrator %.3g Nm (would be %.3g)\n", sat, cl.ctl.z[0],
           z0 + g.ki[0] * eint);
    CHECK(sat == 50);
    CHECK(cl.ctl.z[0] == z0);
    CHECK(g.ki[0] * eint > 1); /* the clamp did something */
    closed_loop_free(&cl);
    model_close(&m);
}

/* Default PID gains put a triple pole at −ω: on a free rotor J q̈ = τ started e0 off the setpoint at rest with an
 * empty integrator, −J ë = Kp e + Kd ė + z, ż = Ki e gives e(t) = e0 (1 + ωt − ω²t²) e^{−ωt}
 * (e(0) = e0, ė(0) = 0, ë(0) = −Kp e0/J = −3ω² e0). */
UTEST(pid_triple_pole_closed_form)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    double J = 0.5, w = 10, cycle = 1e-4, e0 = 0.1, q0 = -e0, zero = 0, dev = 0;
    rotor_desc(&d, J, NULL);
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    CHECK(controller_gains_default(&g, &m, CONTROLLER_PID, w, cycle) == 0);
    CHECK_REL(g.kp[0], 3 * J * w * w, 1e-12);
    CHECK_REL(g.kd[0], 3 * J * w, 1e-12);
    CHECK_REL(g.ki[0], J * w * w * w, 1e-12);
    CHECK(closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = cycle}, &q0, NULL, err, sizeof err) == 0);
    for (long k = 0; k < 20000; k++) {
        double t = k * cycle;
        CHECK(closed_loop_step(&cl, &zero, &zero, &zero) == 0);
        dev = fmax(dev, fabs(cl.out.e[0] - e0 * (1 + w * t - w * w * t * t) * exp(-w * t)));
    }
    printf("# PID triple pole: max deviation from e0(1+wt-w^2t^2)e^-wt %.3g (e0 = %g)\n", dev, e0);
    CHECK(dev < 1e-3 * e0); /* ω h = 1e-3 */
    closed_loop_free(&cl);
    model_close(&m);
}

/* Independent-joint PID holds the 2R arm at a setpoint against gravity: the error goes to zero (integral
 * action), from a 0.05 rad offset. */
UTEST(pid_2r_regulates_under_gravity)
{
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    arm2r_desc(&d, 1);
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    CHECK(controller_gains_default(&g, &m, CONTROLLER_PID, 10, 1e-3) == 0);
    CHECK(g.kp[0] > 0 && g.ki[0] > 0 && g.kd[0] > 0);
    double q0[2] = {0.2, 0.1}, qr[2] = {0.25, 0.05}, z[2] = {0, 0};
    CHECK(closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = 1e-3}, q0, NULL, err, sizeof err) == 0);
    for (int k = 0; k < 4000; k++) CHECK(closed_loop_step(&cl, qr, z, z) == 0);
    printf("# PID 2R after 4 s: e = (%.3g, %.3g) rad, peak (%.3g, %.3g)\n", cl.out.e[0], cl.out.e[1],
           cl.stats.emax[0], cl.stats.emax[1]);
    CHECK(fabs(cl.out.e[0]) < 1e-5 && fabs(cl.out.e[1]) < 1e-5);
    closed_loop_free(&cl);
    model_close(&m);
}

/* Gain lists: one value for all, or exactly n. */
UTEST(gain_lists)
{
    double v[3] = {7, 7, 7};
    CHECK(controller_parse_list("100", v, 3) == 0 && v[0] == 100 && v[2] == 100);
    CHECK(controller_parse_list("1,2,3", v, 3) == 0 && v[0] == 1 && v[1] == 2 && v[2] == 3);
    CHECK(controller_parse_list("1,2", v, 3) < 0 && v[0] == 1);
    CHECK(controller_parse_list("1,2,3,4", v, 3) < 0);
    CHECK(controller_parse_list("1,,3", v, 3) < 0);
    CHECK(controller_parse_list("abc", v, 3) < 0);
    CHECK(controller_parse_list("", v, 3) < 0);
}

/* Plausible PUMA-class motor data for the tests (not a datasheet): Corke's gear ratios and rotor inertia, a
 * 0.22 Nm/A motor, 1.6 ohm, 3 mH, 40 V. */
static void puma_motors(ModelDesc *d)
{
    static const double gear[6] = {-62.6111, 107.815, -53.7063, 76.0364, 71.923, 76.686};
    for (int j = 0; j < 6; j++)
        d->joint[j].motor = (ModelMotor){.present = 1, .resistance = 1.6, .inductance = 3e-3, .kt = 0.22,
                                         .ke = 0.22, .gear = gear[j], .rotor_inertia = 200e-6, .vmax = 40};
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* PUMA 560 following a smooth 6-axis motion under computed torque for 2 s: error stays tiny; returns the median
 * CPU time of a cycle in µs. */
static double puma_run(int motors, double *emax, int *nsat)
{
    static double dt_us[2000];
    ModelDesc d;
    Model m;
    ClosedLoop cl;
    ClosedLoopGains g;
    char err[256];
    puma560_desc(&d);
    if (motors) puma_motors(&d);
    if (model_open(&m, &d, err, sizeof err) < 0) return INFINITY;
    controller_gains_default(&g, &m, CONTROLLER_CT, 0, 1e-3);
    double q[6], qd[6], qdd[6];
    static const double amp[6] = {0.8, 0.5, 0.6, 1.0, 0.8, 1.2};
    for (int j = 0; j < 6; j++) q[j] = 0.3, qd[j] = amp[j] * 1.2;
    if (closed_loop_init(&cl, &m, &g, &(ClosedLoopConfig){.cycle = 1e-3}, q, qd, err, sizeof err) < 0) {
        printf("# %s\n", err);
        return INFINITY;
    }
    *nsat = 0;
    for (int k = 0; k < 2000; k++) {
        double t = k * 1e-3;
        for (int j = 0; j < 6; j++) {
            double w = 1.2 + 0.1 * j;
            q[j] = 0.3 + amp[j] * sin(w * t) * (1.2 / w), qd[j] = amp[j] * 1.2 * cos(w * t);
            qdd[j] = -amp[j] * 1.2 * w * sin(w * t);
        }
        double t0 = cpu_now();
        int st = closed_loop_step(&cl, q, qd, qdd);
        dt_us[k] = 1e6 * (cpu_now() - t0);
        if (st < 0) return INFINITY;
        *nsat += cl.out.nsat;
    }
    *emax = 0;
    for (int j = 0; j < 6; j++) *emax = fmax(*emax, cl.stats.emax[j]);
    printf("# PUMA CT%s: %ld integrator steps, %ld rejected, %ld evaluations in 2000 cycles\n",
           motors ? " with motors" : "", cl.stats.steps, cl.stats.failed_steps, cl.stats.rhs_evals);
    closed_loop_free(&cl);
    model_close(&m);
    qsort(dt_us, 2000, sizeof *dt_us, cmp_double);
    return dt_us[1000];
}

UTEST(puma_tracking_and_cost)
{
    double e0, e1;
    int s0, s1;
    double c0 = puma_run(0, &e0, &s0), c1 = puma_run(1, &e1, &s1);
    printf("# PUMA 560 closed-loop cycle at 1 ms: median %.1f us CPU (rigid), %.1f us (with DC motors); peak "
           "tracking error %.3g / %.3g rad; %d / %d clipped\n", c0, c1, e0, e1, s0, s1);
    CHECK(e0 < 1e-4);
    CHECK(e1 < 1e-3);
    CHECK(s0 == 0 && s1 == 0);
#ifdef NDEBUG
    CHECK(c0 < 100 && c1 < 100);
#endif
}

int main(void)
{
    RUN(ct_pd_offset_matches_closed_form);
    RUN(ct_pd_step_disturbance);
    RUN(ct_pd_continuous_matches_closed_form);
    RUN(free_fall_conserves_energy);
    RUN(integrator_accuracy_vs_tolerance);
    RUN(dc_motor_transient_closed_form);
    RUN(dc_motor_electrical_time_constant);
    RUN(voltage_saturation_limits_acceleration);
    RUN(pid_antiwindup);
    RUN(pid_triple_pole_closed_form);
    RUN(pid_2r_regulates_under_gravity);
    RUN(gain_lists);
    RUN(puma_tracking_and_cost);
    return utest_done();
}
