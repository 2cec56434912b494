/* test_machine.c — machine files (.irm): models/puma560.irm against the C-built description of
 * tests/unit/puma560_desc.h field by field, and the reader's unit, syntax and consistency errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine.h"
#include "urdf.h"
#include "puma560_desc.h"
#include "utest.h"

/* Equal numbers, or the same infinity (absent limits). */
#define CHECK_SAME(a, b) CHECK_SAME_TOL(a, b, 1e-12)

#include "desc_check.h"

/* Write `text` to a temporary .irm file; returns its path (static buffer). */
static const char *write_irm(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/irl_test_machine_%d.irm", (int)getpid());
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* An absolute path for a file of the tree (the temporary .irm lives in /tmp); static buffer. */
static const char *realpath_or(const char *rel)
{
    static char buf[4096];
    return realpath(rel, buf) ? buf : rel;
}

/* Load `text` as a machine file, capturing the diagnostics into *msgs (caller frees). */
static int load_text(const char *text, ModelDesc *d, char **msgs)
{
    size_t len;
    FILE *out = open_memstream(msgs, &len);
    Diag diag;
    diag_init(&diag, out);
    const char *path = write_irm(text);
    int rc = machine_load(path, d, &diag);
    diag_free(&diag);
    fclose(out);
    remove(path);
    return rc;
}

UTEST(puma560_matches_c_description)
{
    static ModelDesc want, got;
    puma560_desc(&want);
    Diag diag;
    diag_init(&diag, stdout);
    int rc = machine_load("models/puma560.irm", &got, &diag);
    diag_free(&diag);
    CHECK(rc == MACHINE_OK);
    if (rc != MACHINE_OK)
        return;
    CHECK(strcmp(got.name, want.name) == 0);
    CHECK(strcmp(got.backend, want.backend) == 0);
    CHECK(strcmp(got.source, "models/puma560.irm") == 0);
    for (int k = 0; k < 3; k++)
        CHECK_SAME(got.gravity[k], want.gravity[k]);
    check_joints_same(&got, &want);
    CHECK(got.tool_link == want.tool_link);
    for (int k = 0; k < 3; k++)
        CHECK_SAME(got.tool_xyz[k], want.tool_xyz[k]);
    for (int k = 0; k < 9; k++)
        CHECK_SAME(got.tool_R[k], want.tool_R[k]);
    CHECK(got.nparams == want.nparams);
    CHECK(got.noutput_limits == want.noutput_limits);
}

UTEST(every_field_with_units)
{
    static ModelDesc d;
    char *msgs = NULL;
    int rc = load_text("MACHINE t : Centrifuge;\n"
                       "  gravity = POS(0, 0, -1 G);\n"
                       "  PARAM arm_length = 8 m;\n"
                       "  PARAM anchors = LIST(1, 2 mm, 3);\n"
                       "  OUTPUT G = LIMITS(0, 9 G);\n"
                       "  OUTPUT Gdot = LIMITS(-6 G/s, 6);\n"
                       "  JOINT a : PRISMATIC;\n"
                       "    origin = POSE(POS(1 m, 20 mm, 0), ORIZYX(90 deg, 0, 0));\n"
                       "    axis = POS(0, 2, 0);  mass = 2 kg;  com = POS(0, 0, 5 mm);\n"
                       "    inertia = INERTIA(2, 2.5, 3, 0.4, 0.5, 0.6);  powered = FALSE;  home = 10 mm;\n"
                       "    min = -0.5 m;  max = 500 mm;  speed = 2 m/s;  acc = 1 G;  jerk = 3;  effort = 100 N;\n"
                       "  ENDJOINT;\n"
                       "  JOINT b : REVOLUTE;\n"
                       "    parent = base;  link = cabin;  speed = 30 rpm;  acc = 2 rad/s^2;  effort = 5 Nm;\n"
                       "    motor_resistance = 0.5;  motor_kt = 0.2;  motor_gear = 100;  motor_voltage = 48;\n"
                       "    motor_rotor_inertia = 2e-4;  motor_inductance = 1e-3;  motor_ke = 0.2;\n"
                       "  ENDJOINT;\n"
                       "  tool_link = a;\n"
                       "  tool = POSE(POS(0, 0, 0.85 m), ORIQUAT(0, 0, 0, 2));\n"
                       "ENDMACHINE\n",
                       &d, &msgs);
    CHECK(rc == MACHINE_OK);
    if (msgs && *msgs)
        printf("#   %s", msgs);
    free(msgs);
    CHECK(strcmp(d.name, "t") == 0 && strcmp(d.backend, "centrifuge") == 0);
    CHECK_NEAR(d.gravity[2], -9.81, 1e-12);
    CHECK(d.nparams == 2 && strcmp(d.param[0].name, "arm_length") == 0 && d.param[0].n == 1);
    CHECK_NEAR(d.param[0].v[0], 8, 0);
    CHECK(d.param[1].n == 3);
    CHECK_NEAR(d.param[1].v[1], 0.002, 1e-15);
    CHECK(d.noutput_limits == 2 && strcmp(d.output_limit[0].name, "G") == 0);
    CHECK_NEAR(d.output_limit[0].max, 9, 1e-12); /* written in G, kept in G */
    CHECK_NEAR(d.output_limit[1].min, -6, 1e-12);
    CHECK_NEAR(d.output_limit[1].max, 6, 1e-12);
    CHECK(d.njoints == 2);
    const ModelJoint *a = &d.joint[0], *b = &d.joint[1];
    CHECK(a->type == MODEL_PRISMATIC && a->parent == -1 && strcmp(a->link, "a") == 0);
    CHECK_NEAR(a->origin_xyz[0], 1, 0);
    CHECK_NEAR(a->origin_xyz[1], 0.02, 1e-15);
    CHECK_NEAR(a->origin_R[0], 0, 1e-15); /* Rz(90 deg): x -> y */
    CHECK_NEAR(a->origin_R[3], 1, 1e-15);
    CHECK_NEAR(a->axis[1], 1, 0); /* normalised */
    CHECK_NEAR(a->mass, 2, 0);
    CHECK_NEAR(a->com[2], 0.005, 1e-15);
    CHECK_NEAR(a->inertia[1], 0.4, 0);
    CHECK_NEAR(a->inertia[3], 0.4, 0);
    CHECK_NEAR(a->inertia[2], 0.5, 0);
    CHECK_NEAR(a->inertia[5], 0.6, 0);
    CHECK_NEAR(a->inertia[8], 3, 0);
    CHECK(a->powered == 0);
    CHECK_NEAR(a->home, 0.01, 1e-15);
    CHECK_NEAR(a->limits.min, -0.5, 0);
    CHECK_NEAR(a->limits.max, 0.5, 1e-15);
    CHECK_NEAR(a->limits.vmax, 2, 0);
    CHECK_NEAR(a->limits.amax, 9.81, 1e-12);
    CHECK_NEAR(a->limits.jmax, 3, 0);
    CHECK_NEAR(a->limits.effort, 100, 0);
    CHECK(a->motor.present == 0);
    CHECK(b->type == MODEL_REVOLUTE && b->parent == -1 && strcmp(b->link, "cabin") == 0);
    CHECK_NEAR(b->limits.vmax, M_PI, 1e-12);
    CHECK_NEAR(b->limits.effort, 5, 0);
    CHECK(b->motor.present == 1);
    CHECK_NEAR(b->motor.resistance, 0.5, 0);
    CHECK_NEAR(b->motor.inductance, 1e-3, 0);
    CHECK_NEAR(b->motor.kt, 0.2, 0);
    CHECK_NEAR(b->motor.ke, 0.2, 0);
    CHECK_NEAR(b->motor.gear, 100, 0);
    CHECK_NEAR(b->motor.rotor_inertia, 2e-4, 0);
    CHECK_NEAR(b->motor.vmax, 48, 0);
    CHECK(d.tool_link == 0);
    CHECK_NEAR(d.tool_xyz[2], 0.85, 1e-15);
    CHECK_NEAR(d.tool_R[0], -1, 1e-15); /* quaternion (0,0,0,1) normalised: 180 deg about z */
    CHECK_NEAR(d.tool_R[8], 1, 1e-15);
}

/* Each bad file gives exactly the expected message (with its line and column) and MACHINE_EINVALID. */
static void expect_error(const char *text, const char *want)
{
    static ModelDesc d;
    char *msgs = NULL;
    int rc = load_text(text, &d, &msgs);
    CHECK(rc == MACHINE_EINVALID);
    if (!msgs || !strstr(msgs, want)) {
        CHECK(!"expected message");
        printf("#   want: %s\n#   got:  %s\n", want, msgs ? msgs : "(nothing)");
    }
    free(msgs);
}

UTEST(unit_and_consistency_errors)
{
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    effort = 3 m;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:14: error: effort (a torque): expected a torque");
    expect_error("MACHINE t : chain;\n  JOINT a : PRISMATIC;\n    effort = 3 Nm;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:14: error: effort (a force): expected");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    max = 1 m;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:11: error: max: expected an angle");
    expect_error("MACHINE t : chain;\n  gravity = POS(0, 0, -9.81 m);\nENDMACHINE\n",
                 ":2:23: error: gravity: expected");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    mass = 1 kg + 2 m;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:17: error: cannot add");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    parent = b;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:14: error: parent 'b' is not a joint declared before 'a'");
    expect_error("MACHINE t : chain;\n  JOINT a : HINGE;\n  ENDJOINT;\nENDMACHINE\n",
                 ":2:13: error: expected REVOLUTE or PRISMATIC, found 'HINGE'");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    colour = 1;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:5: error: unknown joint property 'colour'");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    mass = 1;\n    mass = 2;\n  ENDJOINT;\nENDMACHINE\n",
                 ":4:5: error: 'mass' is given twice (first at line 3)");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n  ENDJIONT;\nENDMACHINE\n",
                 ":3:3: error: expected ENDJOINT to close the JOINT block, found identifier 'ENDJIONT'");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    axis = POS(0, 0, 0);\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:12: error: axis: the zero vector has no direction");
    expect_error("MACHINE t : chain;\n  tool_link = z;\nENDMACHINE\n",
                 ":2:15: error: tool_link 'z' is not a joint of this machine");
    expect_error("MACHINE t : chain;\n  gravity = POS(0, 0 -9.81);\nENDMACHINE\n", ":2:13: error: POS takes 3 arguments, got 2");
    expect_error("MACHINE t : chain;\n  gravity := POS(0, 0, -9.81);\nENDMACHINE\n",
                 ":2:11: error: expected identifier or '=', found ':='");
    expect_error("PROGRAM p;\nBEGIN\nENDPROGRAM\n", ":1:1: error:");
}

UTEST(missing_file)
{
    static ModelDesc d;
    char *msgs = NULL;
    size_t len;
    FILE *out = open_memstream(&msgs, &len);
    Diag diag;
    diag_init(&diag, out);
    int rc = machine_load("/nonexistent/x.irm", &d, &diag);
    diag_free(&diag);
    fclose(out);
    CHECK(rc == MACHINE_EIO);
    CHECK(msgs && strcmp(msgs, "irl: cannot open '/nonexistent/x.irm': No such file or directory\n") == 0);
    free(msgs);
}

/* Physically impossible bodies and limits: errors at the value's column, with the value and its unit. */
UTEST(impossible_data)
{
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    mass = 17.4 kg;\n"
                 "    inertia = INERTIA(0.13, 0.524, 0.539, 2, 2, 2);\n  ENDJOINT;\nENDMACHINE\n",
                 ":4:15: error: joint 'a': inertia (ixx 0.13, iyy 0.524, izz 0.539, ixy 2, ixz 2, iyz 2 kg m^2) is not "
                 "positive semi-definite: principal moments -1.74206, -1.46844, 4.40351 kg m^2");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    mass = -1 kg;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:12: error: joint 'a': mass -1 kg: must be finite and >= 0");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    mass = 1 kg;  inertia = INERTIA(0.1, 0.1, 0.3, 0, 0, 0);\n"
                 "  ENDJOINT;\nENDMACHINE\n",
                 ":3:29: error: joint 'a': inertia violates the triangle inequality: principal moments 0.1 + 0.1 < 0.3");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    axis = POS(1, 0, 0);\n"
                 "    mass = 0 kg;  inertia = INERTIA(0, 0, 0.35, 0, 0, 0);\n  ENDJOINT;\nENDMACHINE\n",
                 ":4:12: error: joint 'a': mass 0 kg with an inertia (principal moments 0, 0, 0.35 kg m^2): a body "
                 "with inertia has a mass > 0");
    /* inertia given, mass left out (0 kg): at the inertia */
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    inertia = INERTIA(0.1, 0.1, 0.1, 0, 0, 0);\n"
                 "  ENDJOINT;\nENDMACHINE\n",
                 ":3:15: error: joint 'a': mass 0 kg with an inertia (principal moments 0.1, 0.1, 0.1 kg m^2)");
    /* a rotor's inertia about the joint's own axis on a massless link (the PUMA's link 1 as Corke writes it): no
     * rigid body has it; the message says how to write the link, with a disc's inertia about that axis */
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    axis = POS(0, 0, 2);\n"
                 "    mass = 0 kg;  inertia = INERTIA(0, 0, 0.35, 0, 0, 0);\n  ENDJOINT;\nENDMACHINE\n",
                 ":4:12: error: joint 'a': mass 0 kg with 0.35 kg m^2 about the joint axis alone, which no rigid body "
                 "has: give the link its mass (on a link turning about a fixed axis through its centre of mass any "
                 "mass > 0 gives the same torques) and a body's inertia, e.g. a disc's: ixx 0.175, iyy 0.175, izz "
                 "0.35, ixy 0, ixz 0, iyz 0 kg m^2 (link frame)");
    expect_error("MACHINE t : freeflyer;\n  JOINT a : REVOLUTE;\n    mass = 0 kg;\n"
                 "    inertia = INERTIA(0, 0, 0.4, 0, 0, 0);\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:12: error: joint 'a': mass 0 kg with an inertia izz 0.4 kg m^2: a body with inertia has a "
                 "mass > 0");
    expect_error("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    speed = 1e-300 rad/s;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:13: error: joint 'a': speed 1e-300 rad/s: absurdly small (below 1e-06 rad/s)");
    expect_error("MACHINE t : chain;\n  JOINT a : PRISMATIC;\n    effort = -1 N;\n  ENDJOINT;\nENDMACHINE\n",
                 ":3:14: error: joint 'a': effort -1 N: a limit must be > 0");
    expect_error("MACHINE t : freeflyer;\n  JOINT a : REVOLUTE;\n    inertia = INERTIA(0, 0, -0.1, 0, 0, 0);\n"
                 "  ENDJOINT;\nENDMACHINE\n",
                 ":3:15: error: joint 'a': inertia izz -0.1 kg m^2: must be finite and >= 0");
    /* a back-end's body given by PARAMs (the Stewart platform's): the same rules, at the value that breaks them */
    expect_error("MACHINE t : stewart;\n  PARAM platform_mass = 3000 kg;\n"
                 "  PARAM platform_inertia = LIST(2600, 5000, 5600, 9000, -150, 0);\nENDMACHINE\n",
                 ":3:28: error: parameter 'platform_inertia': inertia (ixx 2600, iyy 5000, izz 5600, ixy 9000, ixz "
                 "-150, iyz 0 kg m^2) is not positive semi-definite");
    expect_error("MACHINE t : stewart;\n  PARAM platform_inertia = LIST(100, 100, 5600, 0, 0, 0);\n"
                 "  PARAM platform_mass = 3000 kg;\nENDMACHINE\n",
                 ":2:28: error: parameter 'platform_inertia': inertia violates the triangle inequality: principal "
                 "moments 100 + 100 < 5600 kg m^2");
    expect_error("MACHINE t : stewart;\n  PARAM platform_inertia = LIST(2600, 5000, 5600, 0, 0, 0);\n"
                 "  PARAM platform_mass = -3000 kg;\nENDMACHINE\n",
                 ":3:25: error: parameter 'platform_mass': mass -3000 kg: must be finite and >= 0");
    expect_error("MACHINE t : stewart;\n  PARAM platform_mass = 0 kg;\n"
                 "  PARAM platform_inertia = LIST(2600, 5000, 5600, 0, 0, 0);\nENDMACHINE\n",
                 ":2:25: error: parameter 'platform_mass': mass 0 kg with an inertia");
    /* that link written as the message says, and a massless link without inertia, load */
    ModelDesc d;
    char *msgs = NULL;
    CHECK(load_text("MACHINE t : chain;\n  JOINT a : REVOLUTE;\n    axis = POS(0, 0, 1);\n"
                    "    mass = 1 kg;  inertia = INERTIA(0.175, 0.175, 0.35, 0, 0, 0);\n  ENDJOINT;\n"
                    "  JOINT b : REVOLUTE;\n    parent = a;  mass = 0 kg;\n  ENDJOINT;\nENDMACHINE\n",
                    &d, &msgs) == MACHINE_OK);
    CHECK(msgs && !*msgs);
    free(msgs);
}

/* A machine file that adds to a URDF: the URDF's joints and geometry, this file's limits and body data. */
UTEST(adds_to_a_urdf)
{
    static ModelDesc d, u;
    char *msgs = NULL, err[512];
    CHECK(urdf_read("tests/robots/kr120r2500pro.urdf", &u, err, sizeof err) == 0);
    Diag diag;
    size_t len;
    FILE *out = open_memstream(&msgs, &len);
    diag_init(&diag, out);
    int rc = machine_load("tests/robots/kr120_site.irm", &d, &diag);
    diag_free(&diag);
    fclose(out);
    if (msgs && *msgs) printf("#   %s", msgs);
    free(msgs);
    CHECK(rc == MACHINE_OK);
    CHECK(strcmp(d.name, "kr120_site") == 0 && d.njoints == 6);
    CHECK(strcmp(d.source, "tests/robots/kr120_site.irm (adding to tests/robots/kr120r2500pro.urdf)") == 0);
    for (int i = 0; i < 6; i++) {
        CHECK(strcmp(d.joint[i].name, u.joint[i].name) == 0);
        CHECK(d.joint[i].limits.min == u.joint[i].limits.min && d.joint[i].limits.vmax == u.joint[i].limits.vmax);
        CHECK(memcmp(d.joint[i].origin_xyz, u.joint[i].origin_xyz, sizeof d.joint[i].origin_xyz) == 0);
        CHECK(isinf(u.joint[i].limits.effort) && isinf(u.joint[i].limits.amax)); /* effort="0": not given */
    }
    CHECK(d.joint[0].limits.amax == 3 && d.joint[0].limits.jmax == 30 && d.joint[0].limits.effort == 12000);
    CHECK(d.joint[5].mass == 42 && u.joint[5].mass == 2);
    CHECK(d.joint[1].mass == u.joint[1].mass);
    const char *rel = "MACHINE s : chain;\n  urdf = \"%s\";\n%s\nENDMACHINE\n";
    char text[4608];
    snprintf(text, sizeof text, rel, "/nonexistent/none.urdf", "");
    expect_error(text, ":2:10: error: urdf: /nonexistent/none.urdf");
    snprintf(text, sizeof text, rel, realpath_or("tests/robots/kr120r2500pro.urdf"), "  JOINT a7;  acc = 1;  ENDJOINT;");
    expect_error(text, ":3:9: error: 'a7' is not a movable joint of");
    snprintf(text, sizeof text, rel, realpath_or("tests/robots/kr120r2500pro.urdf"),
             "  JOINT joint_a1 : PRISMATIC;  axis = POS(1, 0, 0);  ENDJOINT;");
    expect_error(text, ":3:20: error: joint 'joint_a1' is revolute in");
    expect_error(text, ":3:32: error: joint 'joint_a1': axis comes from");
    snprintf(text, sizeof text, "MACHINE s : stewart;\n  urdf = \"%s\";\nENDMACHINE\n",
             realpath_or("tests/robots/kr120r2500pro.urdf"));
    expect_error(text, ":2:10: error: urdf: a URDF describes a CHAIN machine, not a stewart one");
}

/* models/FILE with the line of `PARAM name = ...` replaced by `  PARAM name = value;` (value NULL: removed; added
 * before ENDMACHINE when the file has none) must give
 * `want` at the value's line:col (removed: at the MACHINE line's name). The expected place is counted here from the
 * text, not taken from the reader. */
static void expect_param(const char *file, const char *name, const char *value, const char *want)
{
    FILE *f = fopen(file, "r");
    static char text[65536], out[65536], at[64], msg[512];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = '\0';
    char key[96];
    snprintf(key, sizeof key, "PARAM %s =", name);
    const char *hit = strstr(text, key), *bol = hit ? hit : strstr(text, "\nENDMACHINE"), *eol;
    CHECK(bol && (hit || value));
    if (!bol || (!hit && !value)) return;
    if (!hit) bol++; /* not in the file: added before ENDMACHINE */
    while (bol > text && bol[-1] != '\n') bol--;
    eol = hit ? strchr(hit, '\n') : bol - 1;
    int line = 1, mline = 1;
    for (const char *c = text; c < bol; c++) line += *c == '\n';
    for (const char *c = text; c < strstr(text, "\nMACHINE ") + 1; c++) mline += *c == '\n';
    if (value) {
        snprintf(out, sizeof out, "%.*s  PARAM %s = %s;%s", (int)(bol - text), text, name, value, eol);
        snprintf(at, sizeof at, ":%d:%d: error: ", line, (int)(strlen("  PARAM ") + strlen(name) + strlen(" = ")) + 1);
    } else {
        snprintf(out, sizeof out, "%.*s%s", (int)(bol - text), text, eol + 1);
        snprintf(at, sizeof at, ":%d:%d: error: ", mline, (int)strlen("MACHINE ") + 1);
    }
    snprintf(msg, sizeof msg, "%s%s", at, want);
    expect_error(out, msg);
}

/* A back-end's refused PARAM (negative, missing, in another unit) at its place, with its value and unit. */
UTEST(backend_params)
{
    const char *c = "models/centrifuge.irm", *s = "models/stewart_flightsim.irm", *f = "models/freeflyer_dem.irm";
    expect_param(c, "arm_length", "-8 m", "centrifuge: parameter 'arm_length' = -8 m: must be > 0 m");
    expect_param(c, "arm_length", NULL, "centrifuge: parameter 'arm_length' is missing: required (a length > 0 m)");
    expect_param(c, "arm_length", "8 kg",
                 "centrifuge: parameter 'arm_length' = 8 kg: expected a value in m, not in kg");
    expect_param(c, "head_height", "LIST(1 m, 2 m)",
                 "centrifuge: parameter 'head_height' = LIST(1, 2) m: takes 1 number, not 2");
    expect_param(s, "platform_mass", "-3000 kg", "parameter 'platform_mass': mass -3000 kg: must be finite and >= 0");
    expect_param(s, "char_length", "-2 m", "stewart: parameter 'char_length' = -2 m: must be from 1e-06 m to 1000 m");
    expect_param(s, "base_d", "-0.2 s", "stewart: parameter 'base_d' = -0.2 s: expected a value in m, not in s");
    expect_param(s, "platform_mass", NULL,
                 "stewart: parameter 'platform_mass' is missing: required (a mass > 0 kg)");
    expect_param(s, "platform_inertia", "LIST(2600 kg, 5000, 5600, 0, -150, 0)",
                 "stewart: parameter 'platform_inertia' = LIST(2600, 5000, 5600, 0, -150, 0) kg: expected a value in "
                 "kg*m^2, not in kg");
    expect_param(s, "base_radius", "1.3 kg",
                 "stewart: parameter 'base_radius' = 1.3 kg: expected a value in m, not in kg");
    expect_param(f, "total_mass", "-6 kg", "parameter 'total_mass': mass -6 kg: must be finite and >= 0");
    expect_param(f, "total_mass", "0 kg", "freeflyer: parameter 'total_mass' = 0 kg: must be > 0 kg");
    expect_param(f, "total_mass", NULL, "freeflyer: parameter 'total_mass' is missing: required with the DEM "
                                        "formulation (a mass > 0 kg)");
    expect_param(f, "total_mass", "6 m", "freeflyer: parameter 'total_mass' = 6 m: expected a value in kg, not in m");
    expect_param(f, "formulation", "DEMO", "freeflyer: parameter 'formulation' = DEMO: must be VM or DEM");
    expect_param(f, "formulation", NULL, "freeflyer: parameter 'formulation' is missing: required: VM or DEM");
}

/* The chain's optional PARAMs: out of range, not a number, in a unit, a fraction of an iteration; stewart's radii. */
UTEST(chain_params)
{
    const char *c = "models/puma560_cell.irm", *s = "models/stewart_flightsim.irm";
    const char *tol = "must be from 1e-14 to 1e-06 (the IK's residual: |dp| in m plus |dtheta| in rad)";
    static char want[256];
    static const char *const bad_tol[][2] = {{"-1e-10", "-1e-10"}, {"0", "0"}, {"1e+09", "1e+09"}, {"1", "1"},
                                             {"1e-17", "1e-17"}};
    for (size_t i = 0; i < sizeof bad_tol / sizeof *bad_tol; i++) {
        snprintf(want, sizeof want, "chain: parameter 'ik_tol' = %s: %s", bad_tol[i][1], tol);
        expect_param(c, "ik_tol", bad_tol[i][0], want);
    }
    expect_param(c, "ik_tol", "fast", "chain: parameter 'ik_tol' = FAST: expected a number, not a word");
    expect_param(c, "ik_tol", "1e-10 m", "chain: parameter 'ik_tol' = 1e-10 m: expected a value in no unit, not in m");
    expect_param(c, "ik_tol", "LIST(1e-10, 2)", "chain: parameter 'ik_tol' = LIST(1e-10, 2): takes 1 number, not 2");
    expect_param(c, "ik_max_iter", "0", "chain: parameter 'ik_max_iter' = 0: must be a whole number from 1 to 10000 "
                                        "(iterations of the IK's damped search)");
    expect_param(c, "ik_max_iter", "2.5", "chain: parameter 'ik_max_iter' = 2.5: must be a whole number from 1 to "
                                          "10000 (iterations of the IK's damped search)");
    expect_param(c, "ik_max_iter", "1e12", "chain: parameter 'ik_max_iter' = 1e+12: must be a whole number from 1 to "
                                           "10000 (iterations of the IK's damped search)");
    expect_param(c, "char_length", "-1 m", "chain: parameter 'char_length' = -1 m: must be from 1e-06 m to 1000 m "
                                           "(the singularity measure's length scale)");
    expect_param(c, "char_length", "1e-300 m", "chain: parameter 'char_length' = 1e-300 m: must be from 1e-06 m to "
                                               "1000 m (the singularity measure's length scale)");
    expect_param(c, "char_length", "2 kg",
                 "chain: parameter 'char_length' = 2 kg: expected a value in m, not in kg");
    expect_param(s, "base_radius", "-1.3 m", "stewart: parameter 'base_radius' = -1.3 m: must be > 0 m (a radius)");
    expect_param(s, "platform_radius", "0 m", "stewart: parameter 'platform_radius' = 0 m: must be > 0 m (a radius)");
    expect_param(s, "char_length", "1e300 m", "stewart: parameter 'char_length' = 1e+300 m: must be from 1e-06 m to "
                                              "1000 m (default: the mean platform anchor radius)");
}

int main(void)
{
    RUN(puma560_matches_c_description);
    RUN(every_field_with_units);
    RUN(unit_and_consistency_errors);
    RUN(impossible_data);
    RUN(adds_to_a_urdf);
    RUN(missing_file);
    RUN(backend_params);
    RUN(chain_params);
    return utest_done();
}
