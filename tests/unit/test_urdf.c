/* test_urdf.c — the URDF reader: models/puma560.urdf against the C-built PUMA 560 (FK, ID, M), fixed-joint inertia
 * lumping against the linearity of the dynamics in the inertial parameters, and file:line error messages. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain_models.h"
#include "model.h"
#include "puma560_desc.h"
#include "urdf.h"
#include "utest.h"

/* Write text to a fresh temporary .urdf file; the caller unlinks it. */
static void write_tmp(char *path, const char *text)
{
    strcpy(path, "/tmp/irl_urdf_XXXXXX.urdf");
    int fd = mkstemps(path, 5);
    if (fd < 0) { perror("mkstemps"); exit(2); }
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

/* Read URDF text; returns the status, message in err. */
static int read_text(const char *text, ModelDesc *d, char *err, size_t errlen)
{
    char path[64];
    write_tmp(path, text);
    int rc = urdf_read(path, d, err, errlen);
    unlink(path);
    return rc;
}

UTEST(puma560_urdf_matches_c_description)
{
    ModelDesc du, dc;
    Model mu, mc;
    char err[512];
    int rc = urdf_read("models/puma560.urdf", &du, err, sizeof err);
    if (rc < 0) printf("#   %s\n", err);
    CHECK(rc == 0);
    puma560_desc(&dc);
    CHECK(du.njoints == 6);
    CHECK(strcmp(du.name, "puma560") == 0);
    CHECK(strcmp(du.backend, "chain") == 0);
    CHECK(du.tool_link == 5);
    for (int i = 0; i < 6; i++) {
        CHECK(du.joint[i].parent == i - 1);
        CHECK(strcmp(du.joint[i].name, dc.joint[i].name) == 0);
        CHECK_NEAR(du.joint[i].limits.min, dc.joint[i].limits.min, 1e-15);
        CHECK_NEAR(du.joint[i].limits.max, dc.joint[i].limits.max, 1e-15);
        CHECK(du.joint[i].limits.vmax == 3 && du.joint[i].limits.effort == 100);
        CHECK_NEAR(du.joint[i].mass, dc.joint[i].mass, 0);
    }
    CHECK(model_open(&mu, &du, err, sizeof err) == 0);
    CHECK(model_open(&mc, &dc, err, sizeof err) == 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    double worst = 0;
    for (int t = 0; t < 200; t++) {
        double q[6], qd[6], qdd[6], tu[6], tc[6], Mu[36], Mc[36], pu[3], pc[3], Ru[9], Rc[9];
        for (int i = 0; i < 6; i++) {
            q[i] = cm_uniform(r, -3, 3); qd[i] = cm_uniform(r, -2, 2); qdd[i] = cm_uniform(r, -5, 5);
        }
        model_inverse_dynamics(&mu, q, qd, qdd, tu);
        model_inverse_dynamics(&mc, q, qd, qdd, tc);
        model_mass_matrix(&mu, q, Mu);
        model_mass_matrix(&mc, q, Mc);
        model_fk(&mu, q, -1, pu, Ru);
        model_fk(&mc, q, -1, pc, Rc);
        for (int i = 0; i < 6; i++) worst = fmax(worst, fabs(tu[i] - tc[i]) / fmax(1, fabs(tc[i])));
        for (int i = 0; i < 36; i++) worst = fmax(worst, fabs(Mu[i] - Mc[i]) / fmax(1, fabs(Mc[i])));
        for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(pu[i] - pc[i]));
        for (int i = 0; i < 9; i++) worst = fmax(worst, fabs(Ru[i] - Rc[i]));
    }
    printf("# puma560.urdf vs puma560_desc.h: worst rel. diff over FK, ID, M: %.2e\n", worst);
    CHECK(worst < 1e-12);
    gsl_rng_free(r);
    model_close(&mu);
    model_close(&mc);
}

/* A two-joint arm whose second body is two links welded by a fixed joint (each with a rotated inertial frame).
 * ID is linear in the inertial parameters, so ID(both) = ID(only X) + ID(only Y) - ID(neither): this checks the
 * lumping without using its parallel-axis formula. */
static const char *lump_fmt =
    "<robot name=\"lump\">\n"
    "  <link name=\"base\"/>\n"
    "  <link name=\"a\"><inertial><origin xyz=\"0.1 0.2 0.05\" rpy=\"0.3 -0.2 0.7\"/><mass value=\"2\"/>"
    "<inertia ixx=\"0.02\" ixy=\"0.001\" ixz=\"-0.002\" iyy=\"0.03\" iyz=\"0.003\" izz=\"0.025\"/></inertial></link>\n"
    "  <link name=\"x\"><inertial><origin xyz=\"0.2 -0.1 0.1\" rpy=\"0.5 0.1 -0.4\"/><mass value=\"%g\"/>"
    "<inertia ixx=\"%g\" ixy=\"%g\" ixz=\"%g\" iyy=\"%g\" iyz=\"%g\" izz=\"%g\"/></inertial></link>\n"
    "  <link name=\"y\"><inertial><origin xyz=\"-0.05 0.3 0.02\" rpy=\"-0.6 0.9 0.2\"/><mass value=\"%g\"/>"
    "<inertia ixx=\"%g\" ixy=\"%g\" ixz=\"%g\" iyy=\"%g\" iyz=\"%g\" izz=\"%g\"/></inertial></link>\n"
    "  <joint name=\"j1\" type=\"continuous\"><parent link=\"base\"/><child link=\"a\"/>"
    "<origin xyz=\"0 0 0.3\" rpy=\"0 0 0\"/><axis xyz=\"0 0 1\"/></joint>\n"
    "  <joint name=\"j2\" type=\"revolute\"><parent link=\"a\"/><child link=\"x\"/>"
    "<origin xyz=\"0.4 0 0\" rpy=\"0.2 0.1 0.3\"/><axis xyz=\"0 1 1\"/>"
    "<limit lower=\"-2\" upper=\"2\" velocity=\"1\" effort=\"10\"/></joint>\n"
    "  <joint name=\"weld\" type=\"%s\"><parent link=\"x\"/><child link=\"y\"/>"
    "<origin xyz=\"0.1 0.2 -0.1\" rpy=\"1.0 -0.5 0.25\"/><axis xyz=\"1 0 0\"/>%s</joint>\n"
    "</robot>\n";

/* weld_movable: the fixed joint becomes a revolute one (held at q = 0 by the caller), so the chain itself carries
 * link y through its own kinematics: the reference for the lumped inertia. */
static int lump_model_ex(int with_x, int with_y, int weld_movable, Model *m)
{
    char text[4096], err[512];
    ModelDesc d;
    double sx = with_x ? 1 : 0, sy = with_y ? 1 : 0;  /* each welded link's inertial parameters on or off */
    snprintf(text, sizeof text, lump_fmt, 1.5 * sx, 0.04 * sx, 0.002 * sx, 0.001 * sx, 0.05 * sx, -0.001 * sx,
             0.06 * sx, 0.7 * sy, 0.03 * sy, -0.003 * sy, 0.002 * sy, 0.02 * sy, 0.001 * sy, 0.04 * sy,
             weld_movable ? "revolute" : "fixed",
             weld_movable ? "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>" : "");
    int rc = read_text(text, &d, err, sizeof err);
    if (rc < 0) { printf("#   %s\n", err); return rc; }
    if (d.njoints != 2 + weld_movable) return -100;
    rc = model_open(m, &d, err, sizeof err);
    if (rc < 0) printf("#   %s\n", err);
    return rc;
}

static int lump_model(int with_x, int with_y, Model *m) { return lump_model_ex(with_x, with_y, 0, m); }

/* The lumped two-joint model gives the same joint torques as the three-joint model with the weld held at 0. */
UTEST(fixed_joint_lumping_vs_held_joint)
{
    Model lumped, held;
    CHECK(lump_model_ex(1, 1, 0, &lumped) == 0);
    CHECK(lump_model_ex(1, 1, 1, &held) == 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 29);
    double worst = 0;
    for (int t = 0; t < 100; t++) {
        double q[3] = {0}, qd[3] = {0}, qdd[3] = {0}, tl[2], th[3];
        for (int i = 0; i < 2; i++) {
            q[i] = cm_uniform(r, -2, 2); qd[i] = cm_uniform(r, -2, 2); qdd[i] = cm_uniform(r, -5, 5);
        }
        model_inverse_dynamics(&lumped, q, qd, qdd, tl);
        model_inverse_dynamics(&held, q, qd, qdd, th);
        for (int i = 0; i < 2; i++) worst = fmax(worst, fabs(tl[i] - th[i]) / fmax(1, fabs(th[i])));
    }
    printf("# fixed-joint lumping vs the weld as a joint held at 0: worst rel %.2e\n", worst);
    CHECK(worst < 1e-12);
    gsl_rng_free(r);
    model_close(&lumped);
    model_close(&held);
}

UTEST(fixed_joint_lumping_is_linear)
{
    Model both, x, y, none;
    CHECK(lump_model(1, 1, &both) == 0);
    CHECK(lump_model(1, 0, &x) == 0);
    CHECK(lump_model(0, 1, &y) == 0);
    CHECK(lump_model(0, 0, &none) == 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 23);
    double worst = 0, ydiff = 0;
    for (int t = 0; t < 100; t++) {
        double q[2], qd[2], qdd[2], tb[2], tx[2], ty[2], tn[2];
        for (int i = 0; i < 2; i++) {
            q[i] = cm_uniform(r, -2, 2); qd[i] = cm_uniform(r, -2, 2); qdd[i] = cm_uniform(r, -5, 5);
        }
        model_inverse_dynamics(&both, q, qd, qdd, tb);
        model_inverse_dynamics(&x, q, qd, qdd, tx);
        model_inverse_dynamics(&y, q, qd, qdd, ty);
        model_inverse_dynamics(&none, q, qd, qdd, tn);
        for (int i = 0; i < 2; i++) worst = fmax(worst, fabs(tb[i] - (tx[i] + ty[i] - tn[i])) / fmax(1, fabs(tb[i])));
        for (int i = 0; i < 2; i++) ydiff = fmax(ydiff, fabs(ty[i] - tn[i]));
    }
    printf("# fixed-joint lumping: ID(both) - (ID(x) + ID(y) - ID(none)) worst rel %.2e\n", worst);
    CHECK(worst < 1e-12);
    CHECK(ydiff > 0.1);   /* the welded link does contribute */
    gsl_rng_free(r);
    model_close(&both);
    model_close(&x);
    model_close(&y);
    model_close(&none);
}

/* Each bad file gives "path:LINE:COL: error: ..." with the expected place (COL: the offending attribute's value, or
 * the element's '<'; 0: libxml2's own errors, which give the line only) and words. */
static void expect_error(const char *text, int line, int col, const char *words)
{
    char path[64], err[512], want[96];
    ModelDesc d;
    write_tmp(path, text);
    int rc = urdf_read(path, &d, err, sizeof err);
    unlink(path);
    if (col) snprintf(want, sizeof want, "%s:%d:%d: error: ", path, line, col);
    else snprintf(want, sizeof want, "%s:%d: error: ", path, line);
    CHECK(rc == MODEL_EINVAL);
    int ok = strncmp(err, want, strlen(want)) == 0 && strstr(err, words) != NULL;
    if (!ok) printf("#   got \"%s\", want prefix \"%s\" and \"%s\"\n", err, want, words);
    CHECK(ok);
}

UTEST(error_messages)
{
    expect_error("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n"
                 "<joint name=\"j\" type=\"revolute\">\n<parent link=\"a\"/>\n<child link=\"c\"/>\n</joint>\n</robot>\n",
                 6, 14, "unknown child link 'c'");
    expect_error("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n"
                 "<joint name=\"j\" type=\"floating\">\n<parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
                 4, 23, "type 'floating' is not supported");
    expect_error("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n"
                 "<joint name=\"j\" type=\"revolute\">\n<parent link=\"a\"/><child link=\"b\"/>\n"
                 "<origin xyz=\"0 0 zero\"/>\n</joint>\n</robot>\n",
                 6, 14, "expected 3 numbers");
    expect_error("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n"
                 "<joint name=\"j\" type=\"prismatic\">\n<parent link=\"a\"/><child link=\"b\"/>\n</joint>\n</robot>\n",
                 4, 1, "needs <limit>");
    expect_error("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n<link name=\"c\"/>\n"
                 "<joint name=\"j\" type=\"continuous\">\n<parent link=\"a\"/><child link=\"b\"/>\n</joint>\n</robot>\n",
                 4, 1, "second root link 'c'");
    expect_error("<robot name=\"r\">\n<link name=\"a\">\n<inertial>\n<mass value=\"1\"/>\n</inertial>\n</link>\n</robot>\n",
                 3, 1, "without <inertia>");
    expect_error("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"a\"/>\n</robot>\n", 3, 1, "defined twice");
    /* malformed XML: libxml2 notices at the end of the data, line 4 */
    expect_error("<robot name=\"r\">\n<link name=\"a\">\n</robot>\n", 4, 0, "Premature end of data");
    expect_error("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n"
                 "<joint name=\"j\" type=\"revolute\">\n<parent link=\"a\"/><child link=\"b\"/>\n"
                 "<limit lower=\"1\" upper=\"-1\" effort=\"1\" velocity=\"1\"/>\n</joint>\n</robot>\n",
                 6, 15, "lower limit");
    /* the second of two tags on a line; an attribute on a later line of its start tag */
    expect_error("<robot name=\"r\">\n<link name=\"a\"/><link name=\"a\"/><link name=\"c\"/>\n</robot>\n", 2, 17,
                 "link 'a' defined twice");
    expect_error("<robot name=\"r\">\n<link name=\"a\"/><link name=\"b\"/>\n"
                 "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>\n  <limit\n"
                 "     lower=\"0\"\n     upper=\"1\" effort=\"-3\"\n     velocity=\"1\"/>\n</joint>\n</robot>\n",
                 6, 24, "negative effort -3 Nm");
    char err[512];
    ModelDesc d;
    CHECK(urdf_read("/nonexistent/robot.urdf", &d, err, sizeof err) == MODEL_EINVAL);
    CHECK(strstr(err, "/nonexistent/robot.urdf") == err);
}

/* A two-link robot: one revolute joint with `limit` attributes, the child link's <inertial> (or none). */
static void two_links(char *out, size_t n, const char *limit, const char *inertial)
{
    snprintf(out, n,
             "<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\">%s</link>\n"
             "<joint name=\"j\" type=\"revolute\">\n<parent link=\"a\"/><child link=\"b\"/>\n"
             "<limit lower=\"-1\" upper=\"1\" %s/>\n</joint>\n</robot>\n", inertial, limit);
}

/* ROS-Industrial's conventions: effort="0"/velocity="0" are "not given", negative values and impossible bodies are
 * errors at their line, links without <inertial> are named. */
UTEST(real_file_conventions)
{
    static const char *I = "\n<inertial><mass value=\"2\"/>"
                           "<inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial>\n";
    char text[1024], err[512];
    ModelDesc d;
    two_links(text, sizeof text, "effort=\"0\" velocity=\"0\"", I);
    CHECK(read_text(text, &d, err, sizeof err) == 0);
    CHECK(isinf(d.joint[0].limits.effort) && isinf(d.joint[0].limits.vmax));
    CHECK(d.inertia_missing[0] == '\0');
    two_links(text, sizeof text, "effort=\"-1\" velocity=\"2\"", I);
    expect_error(text, 8, 37, "negative effort -1 Nm");
    two_links(text, sizeof text, "effort=\"10\" velocity=\"1e-300\"", I);
    expect_error(text, 8, 51, "speed 1e-300 rad/s: absurdly small");
    expect_error("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\">\n"
                 "<parent link=\"a\"/><child link=\"b\"/>\n<limit lower=\"2\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n"
                 "</joint>\n</robot>\n", 6, 15, "joint 'j': lower limit 2 rad above upper limit 1 rad");
    two_links(text, sizeof text, "effort=\"10\" velocity=\"2\"",
              "\n<inertial><mass value=\"2\"/>"
              "<inertia ixx=\"0.13\" ixy=\"2\" ixz=\"2\" iyy=\"0.524\" iyz=\"2\" izz=\"0.539\"/></inertial>\n");
    expect_error(text, 4, 28, "not positive semi-definite: principal moments -1.74206, -1.46844, 4.40351 kg m^2");
    two_links(text, sizeof text, "effort=\"10\" velocity=\"2\"",
              "\n<inertial><mass value=\"2\"/>"
              "<inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.1\"/></inertial>\n");
    expect_error(text, 4, 28, "triangle inequality: principal moments 0.01 + 0.01 < 0.1 kg m^2");
    two_links(text, sizeof text, "effort=\"10\" velocity=\"2\"",
              "\n<inertial><mass value=\"0\"/>"
              "<inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial>\n");
    expect_error(text, 4, 24, "mass 0 kg with an inertia (principal moments 0.1, 0.1, 0.1 kg m^2): a body with inertia "
                 "has a mass > 0");
    /* a rotor's inertia about the joint axis (URDF's default, x) on a massless link: how to write it instead */
    two_links(text, sizeof text, "effort=\"10\" velocity=\"2\"",
              "\n<inertial><mass value=\"0\"/>"
              "<inertia ixx=\"0.35\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/></inertial>\n");
    expect_error(text, 4, 24,
                 "link 'b': mass 0 kg with 0.35 kg m^2 about the joint axis alone, which no rigid body has: "
                 "give the link its mass (on a link turning about a fixed axis through its centre of mass any mass > 0 "
                 "gives the same torques) and a body's inertia, e.g. a disc's: ixx 0.35, iyy 0.175, izz 0.175, ixy 0, "
                 "ixz 0, iyz 0 kg m^2 (link frame)");
    two_links(text, sizeof text, "effort=\"10\" velocity=\"2\"",
              "\n<inertial><mass value=\"1\"/>"
              "<inertia ixx=\"0.35\" ixy=\"0\" ixz=\"0\" iyy=\"0.175\" iyz=\"0\" izz=\"0.175\"/></inertial>\n");
    CHECK(read_text(text, &d, err, sizeof err) == 0);
    /* no <inertial>: loads, the body is named in the description and in one warning at the link's line */
    two_links(text, sizeof text, "effort=\"10\" velocity=\"2\"", "");
    char path[64], *msgs = NULL;
    size_t len;
    write_tmp(path, text);
    FILE *warn = open_memstream(&msgs, &len);
    CHECK(urdf_read_to(path, &d, err, sizeof err, warn) == 0);
    fclose(warn);
    unlink(path);
    CHECK(strstr(msgs, ":3: warning: no <inertial> for link b: counted as massless, the torque check is incomplete"));
    free(msgs);
    CHECK(strcmp(d.inertia_missing, "b") == 0);
    CHECK(d.joint[0].mass == 0);
}

/* A hand on a revolute wrist with two fingers, the second mimicking the first (Franka's gripper); mimic selects
 * whether the <mimic> element is written (else three independent joints, the reference). */
static void gripper_urdf(char *out, size_t n, int mimic)
{
    static const char *I = "<inertial><origin xyz=\"0.01 0.02 0.03\"/><mass value=\"%s\"/>"
                           "<inertia ixx=\"0.01\" ixy=\"0.001\" ixz=\"0\" iyy=\"0.012\" iyz=\"0\" izz=\"0.015\"/>"
                           "</inertial>";
    char l1[256], l2[256], l3[256];
    snprintf(l1, sizeof l1, I, "1.5");
    snprintf(l2, sizeof l2, I, "0.3");
    snprintf(l3, sizeof l3, I, "0.2");
    snprintf(out, n,
             "<robot name=\"g\">\n<link name=\"base\"/>\n<link name=\"hand\">%s</link>\n"
             "<link name=\"f1\">%s</link>\n<link name=\"f2\">%s</link>\n"
             "<joint name=\"wrist\" type=\"revolute\"><parent link=\"base\"/><child link=\"hand\"/>"
             "<origin xyz=\"0 0 0.3\" rpy=\"0.2 0 0\"/><axis xyz=\"0 1 0\"/>"
             "<limit lower=\"-2\" upper=\"2\" effort=\"50\" velocity=\"2\"/></joint>\n"
             "<joint name=\"finger1\" type=\"prismatic\"><parent link=\"hand\"/><child link=\"f1\"/>"
             "<origin xyz=\"0 0 0.1\"/><axis xyz=\"0 1 0\"/>"
             "<limit lower=\"0\" upper=\"0.04\" effort=\"20\" velocity=\"0.2\"/></joint>\n"
             "<joint name=\"finger2\" type=\"prismatic\"><parent link=\"hand\"/><child link=\"f2\"/>"
             "<origin xyz=\"0 0 0.1\" rpy=\"0 0 0.5\"/><axis xyz=\"0 -1 0\"/>"
             "<limit lower=\"-1\" upper=\"1\" effort=\"20\" velocity=\"0.2\"/>%s</joint>\n</robot>\n",
             l1, l2, l3, mimic ? "<mimic joint=\"finger1\" multiplier=\"0.9\" offset=\"0.002\"/>" : "");
}

/* Mimic joints follow their leader: the model's axes are the independent joints, and its FK, Jacobian, inverse
 * dynamics, mass matrix and forward dynamics are those of the same tree with the follower set from its leader
 * (tau = C' tau_full, J = J_full C, M = C' M_full C). */
UTEST(mimic_joints)
{
    char text[4096], err[512];
    static ModelDesc dm, df;
    gripper_urdf(text, sizeof text, 1);
    int rc = read_text(text, &dm, err, sizeof err);
    if (rc) printf("#   %s\n", err);
    CHECK(rc == 0 && dm.njoints == 3 && dm.joint[2].mimic_of == 2);
    gripper_urdf(text, sizeof text, 0);
    CHECK(read_text(text, &df, err, sizeof err) == 0);
    Model mm, mf;
    CHECK(model_open(&mm, &dm, err, sizeof err) == 0 && model_open(&mf, &df, err, sizeof err) == 0);
    CHECK(mm.dof == 2 && mm.desc.njoints == 2 && strcmp(mm.desc.joint[1].name, "finger1") == 0);
    double C[3][2] = {{1, 0}, {0, 1}, {0, 0.9}}, worst = 0;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (int t = 0; t < 50; t++) {
        double q[2], qd[2], qdd[2], qf[3], qdf[3], qddf[3];
        for (int i = 0; i < 2; i++) {
            q[i] = cm_uniform(r, -1, 1); qd[i] = cm_uniform(r, -1, 1); qdd[i] = cm_uniform(r, -3, 3);
        }
        for (int k = 0; k < 3; k++) {
            qf[k] = C[k][0] * q[0] + C[k][1] * q[1] + (k == 2 ? 0.002 : 0);
            qdf[k] = C[k][0] * qd[0] + C[k][1] * qd[1];
            qddf[k] = C[k][0] * qdd[0] + C[k][1] * qdd[1];
        }
        double p1[3], p2[3], R1[9], R2[9], tau[2], tauf[3], J[12], Jf[18], M[4], Mf[9], back[2];
        CHECK(model_fk(&mm, q, -1, p1, R1) == 0 && model_fk(&mf, qf, -1, p2, R2) == 0);
        for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(p1[i] - p2[i]));
        CHECK(model_fk(&mm, q, 2, p1, R1) == 0 && model_fk(&mf, qf, 2, p2, R2) == 0); /* the follower's link */
        for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(p1[i] - p2[i]));
        CHECK(model_fk(&mm, q, 3, p1, R1) < 0);
        CHECK(model_inverse_dynamics(&mm, q, qd, qdd, tau) == 0 && model_inverse_dynamics(&mf, qf, qdf, qddf, tauf) == 0);
        CHECK(model_jacobian(&mm, q, J) == 0 && model_jacobian(&mf, qf, Jf) == 0);
        CHECK(model_mass_matrix(&mm, q, M) == 0 && model_mass_matrix(&mf, qf, Mf) == 0);
        for (int i = 0; i < 2; i++) {
            double want = 0;
            for (int k = 0; k < 3; k++) want += C[k][i] * tauf[k];
            worst = fmax(worst, fabs(tau[i] - want) / fmax(1, fabs(want)));
            for (int row = 0; row < 6; row++) {
                double w = 0;
                for (int k = 0; k < 3; k++) w += Jf[row * 3 + k] * C[k][i];
                worst = fmax(worst, fabs(J[row * 2 + i] - w));
            }
            for (int j = 0; j < 2; j++) {
                double w = 0;
                for (int k = 0; k < 3; k++)
                    for (int l = 0; l < 3; l++) w += C[k][i] * Mf[k * 3 + l] * C[l][j];
                worst = fmax(worst, fabs(M[i * 2 + j] - w));
            }
        }
        CHECK(model_forward_dynamics(&mm, q, qd, tau, back) == 0);
        for (int i = 0; i < 2; i++) worst = fmax(worst, fabs(back[i] - qdd[i]) / (1 + fabs(qdd[i])));
    }
    printf("# mimic finger vs the same tree with the follower set by hand: worst %.2e (FK m, tau, J, M, FD)\n", worst);
    CHECK(worst < 1e-12);
    CHECK(model_semi_inverse(&mm, (double[2]){0}, (double[2]){0}, (double[2]){0}, (double[2]){0}) == MODEL_ENOTSUP);
    gsl_rng_free(r);
    model_close(&mm);
    model_close(&mf);
    /* a mimic of a joint that does not exist */
    gripper_urdf(text, sizeof text, 1);
    char *at = strstr(text, "joint=\"finger1\" multiplier");
    memcpy(at, "joint=\"fingerX\"", 15);
    const char *bol = at;
    while (bol > text && bol[-1] != '\n') bol--;
    expect_error(text, 8, (int)(at - bol) + (int)strlen("joint=\"") + 1,
                 "joint 'finger2' mimics 'fingerX', which is not a movable joint");
}

int main(void)
{
    RUN(mimic_joints);
    RUN(puma560_urdf_matches_c_description);
    RUN(real_file_conventions);
    RUN(fixed_joint_lumping_vs_held_joint);
    RUN(fixed_joint_lumping_is_linear);
    RUN(error_messages);
    return utest_done();
}
