/* test_friction.c — joint friction (models/friction.c, the model_* wrappers in models/model.c) and the machine-file
 * properties friction_* and ferror (src/machine.c, src/urdf.c): the readers, the law (inverse dynamics with
 * friction minus without is the law), the wrappers' consistency (forward dynamics inverts inverse dynamics, bias,
 * semi-inverse), the refusal on back-ends whose coordinates are not joints, and an energy balance of forward
 * dynamics: tau.qd = dE/dt + tau_f.qd, integrated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_rng.h>

#include "machine.h"
#include "urdf.h"
#include "utest.h"

#define DEG (M_PI / 180.0)
#define EPS 2.220446049250313e-16

/* Load `text` as a machine file; diagnostics into *msgs (caller frees). */
static int load_text(const char *text, ModelDesc *d, char **msgs)
{
    size_t len;
    FILE *out = open_memstream(msgs, &len);
    Diag diag;
    diag_init(&diag, out);
    int rc = machine_load_text("t.irm", text, strlen(text), d, &diag);
    diag_free(&diag);
    fclose(out);
    return rc;
}

/* A one-joint machine with the given joint properties (text pasted into the JOINT block). */
static int load_joint(const char *type, const char *props, ModelDesc *d, char **msgs)
{
    char text[1024];
    snprintf(text, sizeof text, "MACHINE t : CHAIN;\n  JOINT j1 : %s;\n    mass = 1 kg;\n    %s\n  ENDJOINT;\nENDMACHINE\n",
             type, props);
    return load_text(text, d, msgs);
}

/* friction_* and ferror are read with their units; coulomb_neg defaults to coulomb. */
UTEST(irm_friction_and_ferror)
{
    static ModelDesc d;
    char *msgs = NULL;
    CHECK(load_joint("REVOLUTE", "friction_viscous = 2 Nm / 1 rad/s;  friction_coulomb = 3 Nm;  ferror = 0.5 deg;",
                     &d, &msgs) == MACHINE_OK);
    CHECK(d.joint[0].friction.viscous == 2 && d.joint[0].friction.coulomb_pos == 3);
    CHECK(d.joint[0].friction.coulomb_neg == 3);
    CHECK(fabs(d.joint[0].ferror - 0.5 * DEG) < 1e-18);
    free(msgs);
    msgs = NULL;
    CHECK(load_joint("PRISMATIC", "friction_viscous = 40;  friction_coulomb = 5 N;  friction_coulomb_neg = 7 N;  "
                     "ferror = 1 mm;", &d, &msgs) == MACHINE_OK);
    CHECK(d.joint[0].friction.viscous == 40 && d.joint[0].friction.coulomb_pos == 5 &&
          d.joint[0].friction.coulomb_neg == 7);
    CHECK(fabs(d.joint[0].ferror - 1e-3) < 1e-18);
    free(msgs);
    msgs = NULL;
    CHECK(load_joint("REVOLUTE", "home = 0;", &d, &msgs) == MACHINE_OK);
    CHECK(isinf(d.joint[0].ferror) && d.joint[0].friction.viscous == 0 && d.joint[0].friction.coulomb_pos == 0 &&
          d.joint[0].friction.coulomb_neg == 0);
    free(msgs);
    struct { const char *props, *msg; } bad[] = {
        {"friction_coulomb = 3 m;", "t.irm:4:24: error: friction_coulomb: expected"},
        {"friction_viscous = 3 Nm;", "t.irm:4:24: error: friction_viscous: expected"},
        {"friction_coulomb = -1 Nm;", "t.irm:4:24: error: friction_coulomb: friction must be finite and >= 0"},
        {"friction_viscous = INF;", "t.irm:4:24: error: friction_viscous: friction must be finite and >= 0"},
        {"friction_stiction = 1 Nm;", "t.irm:4:5: error: unknown friction property 'friction_stiction'"},
        {"ferror = 0 deg;", "t.irm:4:14: error: ferror: the following-error limit must be > 0"},
        {"ferror = 2 m;", "t.irm:4:14: error: ferror: expected"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        msgs = NULL;
        int rc = load_joint("REVOLUTE", bad[k].props, &d, &msgs);
        CHECK(rc == MACHINE_EINVALID);
        if (!msgs || !strstr(msgs, bad[k].msg)) {
            CHECK(!"message");
            printf("#   %s -> %s", bad[k].props, msgs ? msgs : "(none)\n");
        }
        free(msgs);
    }
}

/* Write text to a temporary file (path: static buffer). */
static const char *write_tmp(const char *text, const char *ext)
{
    static char path[80];
    snprintf(path, sizeof path, "/tmp/irl_test_friction_%d.%s", (int)getpid(), ext);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* URDF <dynamics damping friction>: symmetric Coulomb; absent: none; negative: an error at its value (line:col). */
UTEST(urdf_dynamics)
{
    static ModelDesc d;
    char err[256];
    const char *fmt = "<robot name=\"r\">\n<link name=\"base\"/>\n<link name=\"l1\"><inertial><mass value=\"1\"/>"
                      "<inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link>\n"
                      "<joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"l1\"/>"
                      "<limit lower=\"-1\" upper=\"1\" velocity=\"1\" effort=\"10\"/>\n%s</joint>\n</robot>\n";
    char text[1024];
    snprintf(text, sizeof text, fmt, "<dynamics damping=\"0.5\" friction=\"2.5\"/>");
    const char *path = write_tmp(text, "urdf");
    CHECK(urdf_read(path, &d, err, sizeof err) == MODEL_OK);
    CHECK(d.njoints == 1 && d.joint[0].friction.viscous == 0.5 && d.joint[0].friction.coulomb_pos == 2.5 &&
          d.joint[0].friction.coulomb_neg == 2.5);
    snprintf(text, sizeof text, fmt, "<dynamics damping=\"0.5\"/>");
    CHECK(urdf_read(write_tmp(text, "urdf"), &d, err, sizeof err) == MODEL_OK);
    CHECK(d.joint[0].friction.viscous == 0.5 && d.joint[0].friction.coulomb_pos == 0);
    snprintf(text, sizeof text, fmt, "");
    CHECK(urdf_read(write_tmp(text, "urdf"), &d, err, sizeof err) == MODEL_OK);
    CHECK(d.joint[0].friction.viscous == 0 && d.joint[0].friction.coulomb_pos == 0);
    snprintf(text, sizeof text, fmt, "<dynamics damping=\"0.5\" friction=\"-1\"/>");
    CHECK(urdf_read(write_tmp(text, "urdf"), &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, ":5:35: error: joint 'j1': <dynamics> damping and friction must be finite and >= 0") != NULL);
    remove(path);
}

/* Corke's mdl_puma560 friction, referred to the motor (B, Tc+, Tc-) with the gear ratio G: the joint-side values
 * puma560_motors.irm must hold are B G^2, |G| Tc+, |G| |Tc-| (Link.friction). */
static const double corke[6][4] = {
    {-62.6111, 1.48e-3, 0.395, -0.435}, {107.815, .817e-3, 0.126, -0.071}, {-53.7063, 1.38e-3, 0.132, -0.105},
    {76.0364, 71.2e-6, 11.2e-3, -16.9e-3}, {71.923, 82.6e-6, 9.26e-3, -14.5e-3}, {76.686, 36.7e-6, 3.96e-3, -10.5e-3},
};

/* The shipped PUMA with motors and friction; *m0 the same machine without friction. rotors: the motors' reflected
 * inertia N^2 Jr folded into each link's Izz (it then adds N^2 Jr to M's diagonal entry of the joint, whose axis is
 * the link's z), for the integration below: the model's own dynamics has no rotors, and without them the light
 * wrist sticking in the Coulomb band is a stiff system (Tc / (vband I) ~ 2e7 1/s) an explicit stepper crawls through. */
static int open_puma_rotors(Model *m, Model *m0, int rotors)
{
    static ModelDesc d, d0;
    Diag diag;
    diag_init(&diag, stdout);
    int rc = machine_load("models/puma560_motors.irm", &d, &diag);
    diag_free(&diag);
    if (rc != MACHINE_OK) return -1;
    for (int i = 0; rotors && i < d.njoints; i++)
        d.joint[i].inertia[8] += d.joint[i].motor.gear * d.joint[i].motor.gear * d.joint[i].motor.rotor_inertia;
    d0 = d;
    for (int i = 0; i < d0.njoints; i++) memset(&d0.joint[i].friction, 0, sizeof d0.joint[i].friction);
    char err[256];
    if (model_open(m, &d, err, sizeof err) < 0 || model_open(m0, &d0, err, sizeof err) < 0) {
        printf("# %s\n", err);
        return -1;
    }
    return 0;
}
static int open_puma(Model *m, Model *m0) { return open_puma_rotors(m, m0, 0); }

UTEST(puma560_motors_holds_corke_friction)
{
    Model m, m0;
    CHECK(open_puma(&m, &m0) == 0);
    if (!m.type) return;
    CHECK(m.has_friction && !m0.has_friction);
    for (int i = 0; i < 6; i++) {
        const ModelFriction *f = &m.desc.joint[i].friction;
        double G = fabs(corke[i][0]);
        CHECK_REL(f->viscous, corke[i][1] * G * G, 1e-14);
        CHECK_REL(f->coulomb_pos, G * corke[i][2], 1e-14);
        CHECK_REL(f->coulomb_neg, G * -corke[i][3], 1e-14);
    }
    model_close(&m);
    model_close(&m0);
}

/* ID(friction) − ID(none) = B qd + Tc+ (qd > 0) or − Tc− (qd < 0), to rounding, at speeds beyond the smoothing
 * band (|qd| >= 0.02 rad/s > 19.1 MODEL_FRICTION_VBAND, where tanh rounds to ±1); inside it, the documented smooth
 * law; at qd = 0, nothing at all. */
UTEST(inverse_dynamics_adds_the_law)
{
    Model m, m0;
    CHECK(open_puma(&m, &m0) == 0);
    if (!m.type) return;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double q[6], qd[6], qdd[6], t1[6], t0[6], worst = 0;
    for (int s = 0; s < 2000; s++) {
        for (int i = 0; i < 6; i++) {
            q[i] = -M_PI + 2 * M_PI * gsl_rng_uniform(r);
            double v = 0.02 + 3 * gsl_rng_uniform(r);
            qd[i] = gsl_rng_uniform(r) < 0.5 ? -v : v;
            qdd[i] = -10 + 20 * gsl_rng_uniform(r);
        }
        CHECK(model_inverse_dynamics(&m, q, qd, qdd, t1) == 0 && model_inverse_dynamics(&m0, q, qd, qdd, t0) == 0);
        for (int i = 0; i < 6; i++) {
            const ModelFriction *f = &m.desc.joint[i].friction;
            double law = f->viscous * qd[i] + (qd[i] > 0 ? f->coulomb_pos : -f->coulomb_neg);
            double err = fabs((t1[i] - t0[i]) - law) / (fabs(t0[i]) + fabs(law));
            if (err > worst) worst = err;
        }
    }
    printf("# ID with minus without friction vs B qd + Tc+- sign(qd): worst error %.2g of |tau| + |tau_f|\n", worst);
    CHECK(worst <= 4 * EPS);
    /* qd = 0: exactly the frictionless torque; inside the band: the smooth law of model.h */
    for (int i = 0; i < 6; i++) qd[i] = 0;
    CHECK(model_inverse_dynamics(&m, q, qd, qdd, t1) == 0 && model_inverse_dynamics(&m0, q, qd, qdd, t0) == 0);
    for (int i = 0; i < 6; i++) CHECK(t1[i] == t0[i]);
    for (int i = 0; i < 6; i++) qd[i] = (i % 2 ? -0.5 : 0.7) * MODEL_FRICTION_VBAND;
    CHECK(model_inverse_dynamics(&m, q, qd, qdd, t1) == 0 && model_inverse_dynamics(&m0, q, qd, qdd, t0) == 0);
    for (int i = 0; i < 6; i++) {
        const ModelFriction *f = &m.desc.joint[i].friction;
        double x = tanh(qd[i] / MODEL_FRICTION_VBAND);
        double law = f->viscous * qd[i] + 0.5 * (f->coulomb_pos + f->coulomb_neg) * x +
                     0.5 * (f->coulomb_pos - f->coulomb_neg) * x * x;
        CHECK_NEAR(t1[i] - t0[i], law, 4 * EPS * (fabs(t0[i]) + fabs(law)));
        CHECK(law * qd[i] > 0); /* dissipative in the band too */
    }
    gsl_rng_free(r);
    model_close(&m);
    model_close(&m0);
}

/* Forward dynamics inverts inverse dynamics with friction; bias is ID at qdd = 0; semi-inverse with a passive
 * joint gives the qdd whose ID (with friction) is the given torque there. */
UTEST(wrappers_consistent)
{
    Model m, m0;
    CHECK(open_puma(&m, &m0) == 0);
    if (!m.type) return;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double q[6], qd[6], qdd[6], tau[6], back[6], h[6], id0[6], zero[6] = {0}, worst = 0;
    for (int s = 0; s < 500; s++) {
        for (int i = 0; i < 6; i++) {
            q[i] = -M_PI + 2 * M_PI * gsl_rng_uniform(r);
            qd[i] = -2 + 4 * gsl_rng_uniform(r);
            if (s % 5 == 0) qd[i] *= 1e-3; /* inside the band too */
            qdd[i] = -10 + 20 * gsl_rng_uniform(r);
        }
        CHECK(model_inverse_dynamics(&m, q, qd, qdd, tau) == 0);
        CHECK(model_forward_dynamics(&m, q, qd, tau, back) == 0);
        for (int i = 0; i < 6; i++) worst = fmax(worst, fabs(back[i] - qdd[i]) / (1 + fabs(qdd[i])));
        CHECK(model_bias(&m, q, qd, h) == 0 && model_inverse_dynamics(&m, q, qd, zero, id0) == 0);
        for (int i = 0; i < 6; i++) CHECK_NEAR(h[i], id0[i], 1e-12 * (1 + fabs(id0[i])));
    }
    printf("# FD(ID(qdd)) with friction: worst |qdd error| %.2g (relative to 1 + |qdd|)\n", worst);
    CHECK(worst < 1e-9);
    /* semi-inverse: joint 2 passive with a given torque of 3 Nm */
    Model ms;
    ModelDesc ds = m.desc;
    ds.joint[1].powered = 0;
    char err[256];
    CHECK(model_open(&ms, &ds, err, sizeof err) == 0);
    double sq[6], sqdd[6], stau[6], chk[6];
    for (int i = 0; i < 6; i++) sq[i] = 0.3 * i - 0.5, qd[i] = 0.4 - 0.15 * i, sqdd[i] = 1.0 - 0.3 * i, stau[i] = 0;
    stau[1] = 3.0;
    int st = model_semi_inverse(&ms, sq, qd, sqdd, stau);
    CHECK(st == 0);
    CHECK(stau[1] == 3.0); /* the given torque is left as given */
    CHECK(model_inverse_dynamics(&ms, sq, qd, sqdd, chk) == 0);
    for (int i = 0; i < 6; i++) CHECK_NEAR(chk[i], stau[i], 1e-9 * (1 + fabs(stau[i])));
    model_close(&ms);
    gsl_rng_free(r);
    model_close(&m);
    model_close(&m0);
}

/* Friction on coordinates that are not joints is refused with the joint's name: every stewart coordinate, the
 * freeflyer's base angle; the freeflyer's arm joints take it. Negative values are refused by model_open too. */
UTEST(refused_where_not_a_joint)
{
    static ModelDesc d;
    Model m;
    char err[512];
    Diag diag;
    diag_init(&diag, stdout);
    CHECK(machine_load("models/stewart_flightsim.irm", &d, &diag) == MACHINE_OK);
    d.joint[3].friction.viscous = 1;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "joint roll: friction is not supported here: the stewart back-end") != NULL);
    d.joint[3].friction.viscous = 0;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_OK);
    model_close(&m);
    CHECK(machine_load("models/freeflyer_vm.irm", &d, &diag) == MACHINE_OK);
    d.joint[0].friction.coulomb_pos = d.joint[0].friction.coulomb_neg = 0.1;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "joint alpha: friction is not supported here: the freeflyer") != NULL);
    d.joint[0].friction.coulomb_pos = d.joint[0].friction.coulomb_neg = 0;
    d.joint[1].friction.viscous = 0.2;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_OK && m.has_friction);
    model_close(&m);
    d.joint[1].friction.viscous = -0.2;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "joint shoulder: viscous friction -0.2 must be finite and >= 0") != NULL);
    diag_free(&diag);
}

/* ---- energy balance ---- */

typedef struct {
    Model *m;
    double q0[6], amp[6], w, kp[6], kd[6];
    int fail;
} Sim;

/* The applied torque: gravity compensation plus PD towards q0 + amp sin(w t) (the joints reverse direction). */
static void sim_tau(Sim *s, double t, const double *q, const double *qd, double *tau)
{
    double zero[6] = {0};
    if (model_bias(s->m, q, zero, tau) < 0) s->fail = 1; /* g(q): friction at qd = 0 is 0 */
    for (int i = 0; i < 6; i++) tau[i] += s->kp[i] * (s->q0[i] + s->amp[i] * sin(s->w * t) - q[i]) - s->kd[i] * qd[i];
}

/* y = (q, qd, W_in, W_f): dW_in/dt = tau.qd, dW_f/dt = tau_f(qd).qd. */
static int sim_rhs(double t, const double y[], double dy[], void *p)
{
    Sim *s = p;
    double tau[6], tf[6];
    sim_tau(s, t, y, y + 6, tau);
    if (model_forward_dynamics(s->m, y, y + 6, tau, dy + 6) < 0) return GSL_EBADFUNC;
    model_friction(s->m, y + 6, tf);
    dy[12] = dy[13] = 0;
    for (int i = 0; i < 6; i++) dy[i] = y[6 + i], dy[12] += tau[i] * y[6 + i], dy[13] += tf[i] * y[6 + i];
    return GSL_SUCCESS;
}

/* Kinetic + potential energy: qd'M qd / 2 − sum m_i g.c_i (c_i: link i's centre of mass by forward kinematics). */
static double energy(Model *m, const double *q, const double *qd)
{
    double M[36], E = 0, p[3], R[9];
    model_mass_matrix(m, q, M);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) E += 0.5 * qd[i] * M[6 * i + j] * qd[j];
    for (int i = 0; i < 6; i++) {
        const ModelJoint *jt = &m->desc.joint[i];
        model_fk(m, q, i, p, R);
        for (int k = 0; k < 3; k++) {
            double c = p[k] + R[3 * k] * jt->com[0] + R[3 * k + 1] * jt->com[1] + R[3 * k + 2] * jt->com[2];
            E -= jt->mass * m->desc.gravity[k] * c;
        }
    }
    return E;
}

/* Integrate 3 s at tolerance tol: residual E(T) − E(0) − (W_in − W_f); W_in, W_f returned. */
static double balance(Model *m, double tol, double *win, double *wf, long *reversals)
{
    Sim s = {.m = m, .w = 2 * M_PI * 0.7};
    for (int i = 0; i < 6; i++) s.q0[i] = (i == 1 ? 45 : i == 2 ? -150 : 10) * DEG, s.amp[i] = (30 - 3 * i) * DEG;
    double y[14] = {0}, t = 0, M0[36];
    for (int i = 0; i < 6; i++) y[i] = s.q0[i];
    /* PD gains scaled by each joint's inertia at q0: a 20 rad/s loop on every joint */
    model_mass_matrix(m, y, M0);
    for (int i = 0; i < 6; i++) s.kp[i] = 400 * M0[7 * i], s.kd[i] = 40 * M0[7 * i];
    double E0 = energy(m, y, y + 6);
    gsl_odeiv2_system sys = {sim_rhs, NULL, 14, &s};
    gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-4, tol, tol);
    double prev[6] = {0};
    *reversals = 0;
    for (int k = 1; k <= 3000 && !s.fail; k++) { /* 1 ms outputs, to count the speed reversals */
        if (gsl_odeiv2_driver_apply(drv, &t, k * 1e-3, y) != GSL_SUCCESS) s.fail = 1;
        for (int i = 0; i < 6; i++) {
            if (prev[i] * y[6 + i] < 0) (*reversals)++;
            prev[i] = y[6 + i];
        }
    }
    gsl_odeiv2_driver_free(drv);
    *win = y[12], *wf = y[13];
    return s.fail ? INFINITY : energy(m, y, y + 6) - E0 - (y[12] - y[13]);
}

/* tau.qd = dE/dt + tau_f.qd over 3 s of a PUMA with Corke's friction, driven back and forth through qd = 0 (the
 * Coulomb band included). Tolerance: the residual r = E(T) - E(0) - (W_in - W_f) is the integrator's, so it must
 * follow the driver's local tolerance tol; measured here, |r| = 1.5e-4, 3e-6, 6e-8, 1e-9 J at tol = 1e-3 .. 1e-6
 * (below 0.2 tol J) and ~1e-13 J (rounding of E ~ 3e2 J) from tol = 1e-10 on. The test allows 1e-6 J at tol = 1e-10,
 * far above that yet 1e8 times below the friction work W_f (~2.8e2 J) that a missing, doubled or wrong-signed term
 * would leave; and it asks that tol = 1e-4 leaves a much larger residual (the balance is not met by construction). */
UTEST(energy_balance_forward_dynamics)
{
    Model m, m0;
    CHECK(open_puma_rotors(&m, &m0, 1) == 0);
    if (!m.type) return;
    double win, wf, win2, wf2;
    long rev, rev2;
    double r10 = balance(&m, 1e-10, &win, &wf, &rev);
    double r4 = balance(&m, 1e-4, &win2, &wf2, &rev2);
    printf("# energy balance 3 s: W_in %.6g J, W_friction %.6g J, %ld speed reversals; residual %.3g J (tol 1e-10), "
           "%.3g J (tol 1e-4)\n", win, wf, rev, r10, r4);
    CHECK(fabs(r10) < 1e-6);
    CHECK(wf > 100 && rev >= 20);              /* friction did real work, through many reversals */
    CHECK(fabs(r4) > 1e3 * fabs(r10));         /* the residual follows the integrator's tolerance */
    double r0 = balance(&m0, 1e-10, &win2, &wf2, &rev2); /* frictionless: W_f = 0 and the same balance holds */
    printf("# frictionless: W_in %.6g J, residual %.3g J\n", win2, r0);
    CHECK(wf2 == 0 && fabs(r0) < 1e-6);
    model_close(&m);
    model_close(&m0);
}

int main(void)
{
    gsl_set_error_handler_off();
    RUN(irm_friction_and_ferror);
    RUN(urdf_dynamics);
    RUN(puma560_motors_holds_corke_friction);
    RUN(inverse_dynamics_adds_the_law);
    RUN(wrappers_consistent);
    RUN(refused_where_not_a_joint);
    RUN(energy_balance_forward_dynamics);
    return utest_done();
}
