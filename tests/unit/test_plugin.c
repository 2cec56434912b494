/* test_plugin.c — model back-ends from shared objects: model_load_plugin loads tests/plugin/example_plugin.c (a
 * 1-DoF pendulum, built by make into BUILD/plugin/), the registry finds it by name, its dynamics match the closed
 * form and the built-in `chain` back-end on the same pendulum, and the error paths (missing file, no entry
 * symbol, incomplete type, duplicate name, bad description) fail with a message and leave the registry intact. */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "utest.h"

/* BUILD/plugin, from this binary's path BUILD/tests/test_plugin. */
static char plugin_dir[4096];

static const char *plugin_path(const char *file)
{
    static char buf[4200];
    snprintf(buf, sizeof buf, "%s/%s", plugin_dir, file);
    return buf;
}

#define PEND_M 2.0   /* kg */
#define PEND_L 0.5   /* m */
#define PEND_IYY 0.1 /* kg m^2 about the COM */
#define PEND_G 9.81

/* The pendulum of example_plugin.c as a description: one joint about y, COM l below the pivot. The same
 * description opens under "chain" as well (the chain reads origins, axes and inertias; the plugin reads mass,
 * Iyy and PARAM length). */
static void pendulum_desc(ModelDesc *d, const char *backend)
{
    model_desc_init(d);
    snprintf(d->name, sizeof d->name, "pend");
    snprintf(d->backend, sizeof d->backend, "%s", backend);
    d->njoints = 1;
    ModelJoint *j = &d->joint[0];
    snprintf(j->name, sizeof j->name, "swing");
    snprintf(j->link, sizeof j->link, "bob");
    j->axis[0] = 0, j->axis[1] = 1, j->axis[2] = 0;
    j->mass = PEND_M;
    j->com[2] = -PEND_L;
    j->inertia[0] = 0.07, j->inertia[4] = PEND_IYY, j->inertia[8] = 0.05;
    /* The chain's tool point: the bob's centre, where the plugin puts its tool. */
    d->tool_xyz[2] = -PEND_L;
    d->nparams = 1;
    snprintf(d->param[0].name, sizeof d->param[0].name, "length");
    d->param[0].n = 1;
    d->param[0].v[0] = PEND_L;
}

UTEST(load_and_find)
{
    char err[512] = "";
    CHECK(model_find("pendulum") == NULL);
    int rc = model_load_plugin(plugin_path("example_plugin.so"), err, sizeof err);
    CHECK(rc == MODEL_OK);
    if (rc) printf("#   %s\n", err);
    const ModelType *t = model_find("pendulum");
    CHECK(t != NULL);
    CHECK(t && strcmp(t->name, "pendulum") == 0);
    CHECK(model_find("chain") != NULL); /* the built-ins are still there */
}

UTEST(closed_form_dynamics)
{
    ModelDesc d;
    pendulum_desc(&d, "pendulum");
    Model m;
    char err[256];
    int rc = model_open(&m, &d, err, sizeof err);
    CHECK(rc == MODEL_OK);
    if (rc) {
        printf("#   %s\n", err);
        return;
    }
    CHECK(m.dof == 1);
    const double J = PEND_M * PEND_L * PEND_L + PEND_IYY;
    for (int k = 0; k < 50; k++) {
        double q = -3.0 + 0.123 * k, qd = 0.7 * k - 10, qdd = 2.5 - 0.3 * k, tau, M, h, acc;
        CHECK(model_inverse_dynamics(&m, &q, &qd, &qdd, &tau) == MODEL_OK);
        CHECK_NEAR(tau, J * qdd + PEND_M * PEND_G * PEND_L * sin(q), 1e-12);
        CHECK(model_mass_matrix(&m, &q, &M) == MODEL_OK);
        CHECK_NEAR(M, J, 1e-15);
        CHECK(model_bias(&m, &q, &qd, &h) == MODEL_OK);
        CHECK_NEAR(h, PEND_M * PEND_G * PEND_L * sin(q), 1e-12);
        CHECK(model_forward_dynamics(&m, &q, &qd, &tau, &acc) == MODEL_OK);
        CHECK_NEAR(acc, qdd, 1e-12);
    }
    double q = 0.4, pos[3], R[9], out;
    CHECK(model_fk(&m, &q, -1, pos, R) == MODEL_OK);
    CHECK_NEAR(pos[0], -PEND_L * sin(0.4), 1e-15);
    CHECK_NEAR(pos[2], -PEND_L * cos(0.4), 1e-15);
    CHECK(model_output_count(&m) == 1);
    CHECK(model_output_name(&m, 0) && strcmp(model_output_name(&m, 0), "height") == 0);
    CHECK(model_outputs(&m, &q, &q, &q, &out) == MODEL_OK);
    CHECK_NEAR(out, PEND_L * (1 - cos(0.4)), 1e-15);
    /* What the plugin leaves out is MODEL_ENOTSUP, not a crash. */
    double quat[4] = {1, 0, 0, 0}, s;
    ModelIkInfo info;
    CHECK(model_ik(&m, pos, quat, &q, &q, &info) == MODEL_ENOTSUP);
    CHECK(model_singularity(&m, &q, &s) == MODEL_ENOTSUP);
    CHECK(model_semi_inverse(&m, &q, &q, &q, &s) == MODEL_ENOTSUP);
    model_close(&m);
}

/* The same pendulum under the built-in chain back-end: an independent computation (Newton-Euler, CRBA). */
UTEST(agrees_with_chain)
{
    ModelDesc dp, dc;
    pendulum_desc(&dp, "pendulum");
    pendulum_desc(&dc, "chain");
    Model mp, mc;
    char err[256];
    CHECK(model_open(&mp, &dp, err, sizeof err) == MODEL_OK);
    CHECK(model_open(&mc, &dc, err, sizeof err) == MODEL_OK);
    if (!mp.type || !mc.type) return;
    double worst = 0;
    for (int k = 0; k < 40; k++) {
        double q = -3.1 + 0.157 * k, qd = 1.3 * k - 20, qdd = 4 - 0.21 * k, t1, t2, M1, M2, p1[3], p2[3], R1[9],
               R2[9], J1[6], J2[6];
        CHECK(model_inverse_dynamics(&mp, &q, &qd, &qdd, &t1) == MODEL_OK);
        CHECK(model_inverse_dynamics(&mc, &q, &qd, &qdd, &t2) == MODEL_OK);
        worst = fmax(worst, fabs(t1 - t2) / fmax(1, fabs(t2)));
        CHECK(model_mass_matrix(&mp, &q, &M1) == MODEL_OK && model_mass_matrix(&mc, &q, &M2) == MODEL_OK);
        CHECK_NEAR(M1, M2, 1e-13);
        CHECK(model_fk(&mp, &q, -1, p1, R1) == MODEL_OK && model_fk(&mc, &q, -1, p2, R2) == MODEL_OK);
        CHECK(model_jacobian(&mp, &q, J1) == MODEL_OK && model_jacobian(&mc, &q, J2) == MODEL_OK);
        for (int i = 0; i < 3; i++) CHECK_NEAR(p1[i], p2[i], 1e-14);
        for (int i = 0; i < 9; i++) CHECK_NEAR(R1[i], R2[i], 1e-14);
        for (int i = 0; i < 6; i++) CHECK_NEAR(J1[i], J2[i], 1e-14);
    }
    CHECK(worst < 1e-12);
    printf("# pendulum plugin vs chain: ID worst relative difference %.2g\n", worst);
    model_close(&mp);
    model_close(&mc);
}

UTEST(error_paths)
{
    char err[512];
    err[0] = '\0';
    CHECK(model_load_plugin(plugin_path("no_such_plugin.so"), err, sizeof err) < 0);
    CHECK(strstr(err, "no_such_plugin.so") != NULL);
    CHECK(strstr(err, "cannot load plugin") != NULL);

    err[0] = '\0';
    CHECK(model_load_plugin(plugin_path("example_plugin_noentry.so"), err, sizeof err) < 0);
    CHECK(strstr(err, "irl_model_plugin") != NULL);

    err[0] = '\0';
    CHECK(model_load_plugin(plugin_path("example_plugin_old_abi.so"), err, sizeof err) < 0);
    char abi[64];
    snprintf(abi, sizeof abi, "model ABI %d, this irl has %d", MODEL_PLUGIN_ABI - 1, MODEL_PLUGIN_ABI);
    CHECK(strstr(err, abi) != NULL && strstr(err, "rebuild") != NULL);
    CHECK(model_find("pendulum") != NULL); /* the registry still holds the good one, loaded earlier */

    err[0] = '\0';
    CHECK(model_load_plugin(plugin_path("example_plugin_incomplete.so"), err, sizeof err) < 0);
    CHECK(strstr(err, "incomplete") != NULL);
    CHECK(model_find("pendulum_incomplete") == NULL);

    /* The same plugin again: its name is taken. */
    err[0] = '\0';
    CHECK(model_load_plugin(plugin_path("example_plugin.so"), err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "'pendulum'") != NULL && strstr(err, "loaded already") != NULL);

    /* Not a shared object at all. */
    err[0] = '\0';
    CHECK(model_load_plugin("models/model.h", err, sizeof err) < 0);
    CHECK(err[0] != '\0');

    /* The registry still answers after every failure, with the first load intact. */
    const ModelType *t = model_find("pendulum");
    CHECK(t != NULL);
    ModelDesc d;
    pendulum_desc(&d, "pendulum");
    Model m;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_OK);
    double q = 0.2, qd = 0, qdd = 0, tau;
    CHECK(model_inverse_dynamics(&m, &q, &qd, &qdd, &tau) == MODEL_OK);
    CHECK_NEAR(tau, PEND_M * PEND_G * PEND_L * sin(0.2), 1e-12);
    model_close(&m);
}

/* The plugin's create() checks its description; model_open passes the message on. */
UTEST(bad_description)
{
    ModelDesc d;
    pendulum_desc(&d, "pendulum");
    d.nparams = 0;
    Model m;
    char err[256] = "";
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "length") != NULL);
    model_close(&m); /* safe on a model that failed to open */
    pendulum_desc(&d, "pendulum");
    d.joint[0].type = MODEL_PRISMATIC;
    CHECK(model_open(&m, &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "REVOLUTE") != NULL);
}

int main(int argc, char **argv)
{
    char self[4096];
    snprintf(self, sizeof self, "%s", argc > 0 ? argv[0] : "./test_plugin");
    snprintf(plugin_dir, sizeof plugin_dir, "%s/../plugin", dirname(self));
    RUN(load_and_find);
    RUN(closed_form_dynamics);
    RUN(agrees_with_chain);
    RUN(error_paths);
    RUN(bad_description);
    return utest_done();
}
