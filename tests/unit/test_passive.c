/* test_passive.c — runtime/plant/passive.c: the passive joints' motion from the semi-inverse problem, against
 * independent references: the free floater's base angle from the conservation of angular momentum (a first-order
 * equation, integrated apart), the same base on the DEM and on the chain back-end's twin of it, a pendulum on a
 * passive joint against its own ODE; byte determinism; the refusals. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "machine.h"
#include "model.h"
#include "plant/passive.h"
#include "utest.h"

static int open_file(Model *m, const char *path)
{
    static ModelDesc d;
    Diag diag;
    diag_init(&diag, stdout);
    int rc = machine_load(path, &d, &diag);
    diag_free(&diag);
    if (rc != MACHINE_OK) return -1;
    char err[256] = "";
    rc = model_open(m, &d, err, sizeof err);
    if (rc < 0) printf("#   %s: %s\n", path, err);
    return rc;
}

/* The arm's motion, from rest at 0: theta_k = a_k (1 - cos(w_k t)), exact q, qd, qdd into entries 1 and 2. */
static const double A[3] = {0, 0.6, -0.5}, W[3] = {0, 3.141592653589793, 2.3};
static void arm(double t, double *q, double *qd, double *qdd)
{
    for (int k = 1; k < 3; k++) {
        q[k] = A[k] * (1 - cos(W[k] * t));
        qd[k] = A[k] * W[k] * sin(W[k] * t);
        qdd[k] = A[k] * W[k] * W[k] * cos(W[k] * t);
    }
}

/* d alpha / dt = -(M_01 qd_1 + M_02 qd_2) / M_00: zero angular momentum, the first-order form. */
static int momentum_rhs(double t, const double y[], double dydt[], void *p)
{
    Model *m = p;
    double q[3] = {y[0], 0, 0}, qd[3], qdd[3], M[9];
    arm(t, q, qd, qdd);
    model_mass_matrix(m, q, M);
    dydt[0] = -(M[1] * qd[1] + M[2] * qd[2]) / M[0];
    return GSL_SUCCESS;
}

/* Run the passive module on model m along arm() for n cycles of dt from the base angle a0; base angle, rate and
 * acceleration of every cycle into al, ar, aa (n + 1 values). 0 or the first failure. */
static int run(Model *m, double a0, double dt, int n, double *al, double *ar, double *aa)
{
    char err[256] = "";
    double q0[3] = {a0, 0, 0};
    PassiveJoints *p = passive_new(m, q0, dt, err, sizeof err);
    if (!p) return printf("#   passive_new: %s\n", err), -1;
    for (int i = 0; i <= n; i++) {
        double q[3] = {-7, 0, 0}, qd[3] = {-7, 0, 0}, qdd[3] = {-7, 0, 0}; /* the planner's placeholder: ignored */
        arm(i * dt, q, qd, qdd);
        int st = passive_step(p, q, qd, qdd);
        if (st < 0) return passive_free(p), st;
        al[i] = q[0], ar[i] = qd[0], aa[i] = qdd[0];
    }
    passive_free(p);
    return 0;
}

enum { NCYC = 3000 };
static double al[3][NCYC + 1], ar[3][NCYC + 1], aa[3][NCYC + 1];

/* (a, b) The base on the VM machine against zero angular momentum integrated apart (GSL rk8pd, 1e-13), every
 * 1 ms cycle for 3 s; its momentum (M qd)_0 and the model's output L along the way; its rate and acceleration
 * against what inverse dynamics implies (the outputs base_rate, base_acc). */
UTEST(base_from_momentum)
{
    Model m;
    CHECK(open_file(&m, "models/freeflyer_vm.irm") == 0);
    if (!m.state) return;
    double dt = 1e-3, a0 = 0.3;
    CHECK(passive_count(&m) == 1);
    CHECK(run(&m, a0, dt, NCYC, al[0], ar[0], aa[0]) == 0);
    gsl_odeiv2_system sys = {momentum_rhs, NULL, 1, &m};
    gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-4, 1e-14, 1e-14);
    double t = 0, y[1] = {a0}, wq = 0, wL = 0, wLout = 0, wr = 0, wa = 0, amax = 0;
    for (int i = 0; i <= NCYC; i++) {
        if (i > 0) CHECK(gsl_odeiv2_driver_apply(drv, &t, i * dt, y) == GSL_SUCCESS);
        wq = fmax(wq, fabs(al[0][i] - y[0]));
        amax = fmax(amax, fabs(al[0][i] - a0));
        double q[3] = {al[0][i]}, qd[3] = {ar[0][i]}, qdd[3] = {aa[0][i]}, M[9], out[16];
        arm(i * dt, q, qd, qdd);
        model_mass_matrix(&m, q, M);
        wL = fmax(wL, fabs(M[0] * qd[0] + M[1] * qd[1] + M[2] * qd[2]));
        CHECK(model_output_count(&m) <= 16 && strcmp(model_output_name(&m, 0), "L") == 0);
        model_outputs(&m, q, qd, qdd, out);
        wLout = fmax(wLout, fabs(out[0]));
        wr = fmax(wr, fabs(qd[0] - out[8]));
        wa = fmax(wa, fabs(qdd[0] - out[9]) / fmax(1, fabs(out[9])));
    }
    gsl_odeiv2_driver_free(drv);
    printf("# base angle vs zero momentum integrated apart: %.2g rad (the base swings %.3f rad); |(M qd)_0| %.2g, "
           "|L| %.2g N m s; rate vs base_rate %.2g rad/s, acc vs base_acc %.2g (rel)\n", wq, amax, wL, wLout, wr, wa);
    CHECK(amax > 0.1); /* the base does turn */
    CHECK(wq < 1e-12);
    CHECK(wL < 1e-12 && wLout < 1e-12);
    CHECK(wr < 1e-12 && wa < 1e-12);
    model_close(&m);
}

/* (c) The same base on the DEM file and on freeflyer_dem_chain.irm (the chain back-end's Newton-Euler with a
 * passive first joint): equal to rounding. And the run is byte-deterministic. */
UTEST(same_base_on_three_machines)
{
    const char *files[3] = {"models/freeflyer_vm.irm", "models/freeflyer_dem.irm", "models/freeflyer_dem_chain.irm"};
    for (int f = 0; f < 3; f++) {
        Model m;
        CHECK(open_file(&m, files[f]) == 0);
        if (!m.state) return;
        CHECK(passive_count(&m) == 1);
        CHECK(run(&m, 0.3, 1e-3, NCYC, al[f], ar[f], aa[f]) == 0);
        if (f == 2) { /* again: bit for bit */
            static double b[3][NCYC + 1];
            CHECK(run(&m, 0.3, 1e-3, NCYC, b[0], b[1], b[2]) == 0);
            CHECK(memcmp(b[0], al[f], sizeof b[0]) == 0 && memcmp(b[1], ar[f], sizeof b[1]) == 0 &&
                  memcmp(b[2], aa[f], sizeof b[2]) == 0);
        }
        model_close(&m);
    }
    double w[3] = {0, 0, 0};
    for (int f = 1; f < 3; f++)
        for (int i = 0; i <= NCYC; i++) {
            w[0] = fmax(w[0], fabs(al[f][i] - al[0][i]));
            w[1] = fmax(w[1], fabs(ar[f][i] - ar[0][i]));
            w[2] = fmax(w[2], fabs(aa[f][i] - aa[0][i]));
        }
    printf("# VM vs DEM vs chain twin over 3 s: angle %.2g rad, rate %.2g rad/s, acc %.2g rad/s^2\n", w[0], w[1],
           w[2]);
    CHECK(w[0] < 1e-12 && w[1] < 1e-12 && w[2] < 1e-11);
}

/* A pendulum on a passive joint (gravity, a nonzero momentum): joint 1 powered about z and held still, joint 2
 * passive about y carrying a 1 kg point at 1 m below it (izz etc. 0.01). Against theta'' = -(m g l / I) sin theta
 * integrated apart, over 2 s from 0.5 rad; its energy stays constant. A 4 ms cycle takes 4 steps. */
static int pendulum_rhs(double t, const double y[], double dydt[], void *p)
{
    (void)t, (void)p;
    dydt[0] = y[1];
    dydt[1] = -9.81 * sin(y[0]) / 1.01;
    return GSL_SUCCESS;
}

UTEST(pendulum)
{
    static ModelDesc d;
    model_desc_init(&d);
    snprintf(d.backend, sizeof d.backend, "chain");
    d.njoints = 2;
    for (int k = 0; k < 2; k++) {
        ModelJoint *j = &d.joint[k];
        model_joint_init(j);
        snprintf(j->name, sizeof j->name, "j%d", k + 1);
        snprintf(j->link, sizeof j->link, "l%d", k + 1);
        j->parent = k - 1;
        j->mass = 1;
        j->inertia[0] = j->inertia[4] = j->inertia[8] = k ? 0.01 : 0.1;
    }
    d.joint[1].powered = 0;
    d.joint[1].axis[0] = 0, d.joint[1].axis[1] = 1, d.joint[1].axis[2] = 0;
    d.joint[1].com[2] = -1;
    Model m;
    char err[256] = "";
    CHECK(model_open(&m, &d, err, sizeof err) == 0);
    if (!m.state) return;
    double dt = 4e-3, q0[2] = {0, 0.5};
    PassiveJoints *p = passive_new(&m, q0, dt, err, sizeof err);
    CHECK(p != NULL);
    if (!p) return;
    gsl_odeiv2_system sys = {pendulum_rhs, NULL, 2, NULL};
    gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-4, 1e-14, 1e-14);
    double t = 0, y[2] = {0.5, 0}, w = 0, wE = 0, E0 = -9.81 * cos(0.5);
    for (int i = 0; i <= 500; i++) {
        double q[2] = {0, 0}, qd[2] = {0, 0}, qdd[2] = {0, 0};
        CHECK(passive_step(p, q, qd, qdd) == 0);
        if (i > 0) CHECK(gsl_odeiv2_driver_apply(drv, &t, i * dt, y) == GSL_SUCCESS);
        w = fmax(w, fmax(fabs(q[1] - y[0]), fabs(qd[1] - y[1])));
        wE = fmax(wE, fabs(0.5 * 1.01 * qd[1] * qd[1] - 9.81 * cos(q[1]) - E0));
        CHECK(q[0] == 0 && qd[0] == 0 && qdd[0] == 0); /* powered entries untouched */
    }
    printf("# pendulum on a passive joint, 2 s at 4 ms cycles: vs its ODE %.2g (rad, rad/s), energy %.2g J\n", w, wE);
    CHECK(w < 1e-12 && wE < 1e-12);
    gsl_odeiv2_driver_free(drv);
    passive_free(p);
    model_close(&m);
}

/* No passive joint, no semi-inverse, a bad cycle: refused with a message. A failure is sticky and NAN. */
UTEST(refusals)
{
    Model m;
    char err[256] = "";
    double q0[MODEL_MAX_DOF] = {0};
    CHECK(open_file(&m, "models/puma560.irm") == 0);
    if (m.state) {
        CHECK(passive_count(&m) == 0);
        CHECK(passive_new(&m, q0, 1e-3, err, sizeof err) == NULL && strstr(err, "has none"));
        model_close(&m);
    }
    CHECK(open_file(&m, "models/freeflyer_vm.irm") == 0);
    if (!m.state) return;
    CHECK(passive_new(&m, q0, 0, err, sizeof err) == NULL && strstr(err, "cycle"));
    q0[0] = NAN;
    CHECK(passive_new(&m, q0, 1e-3, err, sizeof err) == NULL && strstr(err, "not finite"));
    q0[0] = 0;
    ModelType t = *m.type;
    const ModelType *keep = m.type;
    t.semi_inverse = NULL;
    m.type = &t;
    CHECK(passive_new(&m, q0, 1e-3, err, sizeof err) == NULL && strstr(err, "no semi-inverse"));
    m.type = keep;
    PassiveJoints *p = passive_new(&m, q0, 1e-3, err, sizeof err);
    CHECK(p != NULL);
    if (p) {
        double q[3] = {0, 0, 0}, qd[3] = {0, 0, 0}, qdd[3] = {0, 0, 0};
        CHECK(passive_step(p, q, qd, qdd) == 0);
        qdd[1] = NAN; /* a setpoint that is not finite */
        CHECK(passive_step(p, q, qd, qdd) == MODEL_ENUMERIC && isnan(q[0]) && isnan(qd[0]));
        qdd[1] = 0;
        CHECK(passive_step(p, q, qd, qdd) == MODEL_ENUMERIC && isnan(q[0]));
        passive_free(p);
    }
    passive_free(NULL);
    model_close(&m);
}

int main(void)
{
    gsl_set_error_handler_off();
    RUN(base_from_momentum);
    RUN(same_base_on_three_machines);
    RUN(pendulum);
    RUN(refusals);
    return utest_done();
}
