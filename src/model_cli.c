/* model_cli.c — `irl model MACHINE OP [options]`: one model operation on a machine file, answered as one JSON
 * object on stdout (numbers with 17 significant digits, SI units, vectors as lists, matrices as lists of rows).
 *
 * The order of the checks fixes the exit status: the command line first (64: unknown op or option, bad number,
 * an option the op does not use), then plugins and the machine file (66: missing or unreadable; 65: invalid),
 * then the vectors against the machine (64: wrong length, unknown link), then the operation itself (1: not
 * supported by the back-end, singular, out of reach). */
#include "model_cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "diag.h"
#include "machine.h"
#include "model.h"
#include "urdf.h"

enum { CLI_OK = 0, CLI_RUNTIME = 1, CLI_USAGE = 64, CLI_INVALID = 65, CLI_NOINPUT = 66 };

#define CLI_MAX_PLUGINS 8

/* Which inputs an operation reads (an option it does not read is a usage error, so typos do not pass
 * silently: `irl model m.irm id --tau …` has no meaning). */
enum { U_Q = 1, U_QD = 2, U_QDD = 4, U_TAU = 8, U_POSE = 16, U_LINK = 32, U_ALL = 64 };

/* One numeric option: a comma-separated list of numbers. */
typedef struct {
    const char *opt; /* "--q", for messages */
    int given;
    int n;
    double v[MODEL_MAX_DOF];
} CliVec;

typedef struct {
    const char *machine, *op;
    CliVec q, qd, qdd, tau, pose, gravity;
    const char *link;
    int all; /* ik --all: every solution */
    const char *plugin[CLI_MAX_PLUGINS];
    int nplugins;
} CliArgs;

/* Everything an operation needs: the open model and the vectors, padded with zeros to the machine's dof. */
typedef struct {
    Model *m;
    const CliArgs *a;
    int dof;
    int link; /* -1: the tool point */
} CliCtx;

typedef int (*CliRun)(CliCtx *c);

typedef struct {
    const char *name;
    unsigned uses;
    CliRun run;
} CliOp;

static const char cli_usage_text[] =
    "usage: irl model MACHINE OP [--q a,b,...] [--qd ...] [--qdd ...] [--tau ...]\n"
    "                 [--pose x,y,z,qw,qx,qy,qz] [--gravity gx,gy,gz] [--link NAME] [--all] [--plugin lib.so]\n"
    "  MACHINE  a machine file: .irm (irl syntax) or .urdf\n"
    "  OP       info fk jacobian singularity id mass bias fd ik outputs semi\n";

/* Print a usage error on stderr; returns the usage exit status. */
static int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int cli_usage(const char *fmt, ...)
{
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs("irl model: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    } else {
        fputs(cli_usage_text, stderr);
    }
    return CLI_USAGE;
}

/* ---- JSON output ---- */

/* A number with 17 significant digits (round-trips a double); JSON has no NaN or infinity: null. */
static void json_num(double x)
{
    if (isfinite(x))
        printf("%.17g", x);
    else
        fputs("null", stdout);
}

/* A string, escaped (URDF names may hold any character). */
static void json_str(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

/* [v0, v1, …] */
static void json_vec(const double *v, int n)
{
    putchar('[');
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", stdout);
        json_num(v[i]);
    }
    putchar(']');
}

/* A row-major rows x cols matrix as a list of rows. */
static void json_mat(const double *M, int rows, int cols)
{
    putchar('[');
    for (int r = 0; r < rows; r++) {
        if (r) fputs(", ", stdout);
        json_vec(M + (size_t)r * cols, cols);
    }
    putchar(']');
}

/* {"key": [vector]} as the whole answer. */
static void json_vec_object(const char *key, const double *v, int n)
{
    printf("{\"%s\": ", key);
    json_vec(v, n);
    puts("}");
}

/* ---- command line ---- */

/* Parse "a,b,c" into v; at most `max` numbers, each finite. Returns 0 or a usage error. */
static int cli_parse_vec(CliVec *v, const char *text, int max)
{
    if (v->given) return cli_usage("%s given twice", v->opt);
    v->given = 1;
    v->n = 0;
    const char *p = text;
    for (;;) {
        const char *end = p;
        while (*end && *end != ',') end++;
        size_t len = (size_t)(end - p);
        char buf[128];
        if (len == 0 || len >= sizeof buf)
            return cli_usage("%s: %s in '%s' (expected numbers separated by commas, SI units)", v->opt,
                             len == 0 ? "an empty item" : "an item too long", text);
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *stop;
        double x = strtod(buf, &stop);
        while (*stop == ' ' || *stop == '\t') stop++;
        if (stop == buf || *stop)
            return cli_usage("%s: '%s' is not a number (numbers are plain SI values, no units)", v->opt, buf);
        if (!isfinite(x)) return cli_usage("%s: '%s' is not a finite number", v->opt, buf);
        if (v->n >= max)
            return cli_usage("%s: more than %d numbers", v->opt, max);
        v->v[v->n++] = x;
        if (!*end) break;
        p = end + 1;
    }
    return 0;
}

/* Split `--name=value` or `--name value`. Returns the value or NULL (missing; *i advanced past the name). */
static const char *cli_value(int argc, char **argv, int *i, const char *arg, size_t namelen)
{
    if (arg[namelen] == '=') return arg + namelen + 1;
    if (*i + 1 < argc) return argv[++*i];
    return NULL;
}

/* Parse the whole command line into *a. Returns 0 or a usage error. */
static int cli_parse(CliArgs *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->q.opt = "--q";
    a->qd.opt = "--qd";
    a->qdd.opt = "--qdd";
    a->tau.opt = "--tau";
    a->pose.opt = "--pose";
    a->gravity.opt = "--gravity";
    struct {
        const char *name;
        CliVec *vec;
        int max;
    } vecs[] = {{"--q", &a->q, MODEL_MAX_DOF},       {"--qd", &a->qd, MODEL_MAX_DOF},
                {"--qdd", &a->qdd, MODEL_MAX_DOF},   {"--tau", &a->tau, MODEL_MAX_DOF},
                {"--pose", &a->pose, 7},             {"--gravity", &a->gravity, 3}};
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') {
            if (!a->machine) a->machine = arg;
            else if (!a->op) a->op = arg;
            else return cli_usage("unexpected argument '%s' (one MACHINE and one OP)", arg);
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return cli_usage(NULL);
        size_t nl = strcspn(arg, "=");
        const char *val = NULL;
        int matched = 0;
        for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) {
            if (strlen(vecs[k].name) != nl || strncmp(arg, vecs[k].name, nl) != 0) continue;
            matched = 1;
            if (!(val = cli_value(argc, argv, &i, arg, nl))) return cli_usage("%s needs a value", vecs[k].name);
            int rc = cli_parse_vec(vecs[k].vec, val, vecs[k].max);
            if (rc) return rc;
        }
        if (matched) continue;
        if (strcmp(arg, "--all") == 0) {
            if (a->all) return cli_usage("--all given twice");
            a->all = 1;
        } else if (nl == 6 && strncmp(arg, "--link", 6) == 0) {
            if (a->link) return cli_usage("--link given twice");
            if (!(a->link = cli_value(argc, argv, &i, arg, nl))) return cli_usage("--link needs a name");
        } else if (nl == 8 && strncmp(arg, "--plugin", 8) == 0) {
            if (a->nplugins >= CLI_MAX_PLUGINS) return cli_usage("more than %d --plugin options", CLI_MAX_PLUGINS);
            if (!(a->plugin[a->nplugins++] = cli_value(argc, argv, &i, arg, nl)))
                return cli_usage("--plugin needs a shared object");
        } else {
            return cli_usage("unknown option '%s'", arg);
        }
    }
    if (!a->machine || !a->op) {
        fputs(cli_usage_text, stderr);
        return CLI_USAGE;
    }
    return 0;
}

/* ---- the operations ---- */

/* A failed operation: its message, exit 1. */
static int cli_fail(CliCtx *c, int rc)
{
    fprintf(stderr, "irl model: %s: %s (back-end '%s')\n", c->a->op, model_strerror(rc), c->m->type->name);
    return CLI_RUNTIME;
}

static const char *cli_joint_type(ModelJointType t)
{
    return t == MODEL_PRISMATIC ? "prismatic" : "revolute";
}

/* info: name, back-end, dof and per-joint limits (absent limits: null). */
static int op_info(CliCtx *c)
{
    const ModelDesc *d = &c->m->desc;
    fputs("{\"name\": ", stdout);
    json_str(d->name);
    fputs(", \"backend\": ", stdout);
    json_str(c->m->type->name);
    printf(", \"dof\": %d, \"joints\": [", c->dof);
    for (int i = 0; i < c->dof; i++) {
        const ModelJoint *j = &d->joint[i];
        const ModelAxisLimits *l = &j->limits;
        fputs(i ? ", {\"name\": " : "{\"name\": ", stdout);
        json_str(j->name);
        fputs(", \"type\": ", stdout);
        json_str(cli_joint_type(j->type));
        const char *key[] = {"min", "max", "vmax", "amax", "jmax", "effort"};
        const double val[] = {l->min, l->max, l->vmax, l->amax, l->jmax, l->effort};
        for (int k = 0; k < 6; k++) {
            printf(", \"%s\": ", key[k]);
            json_num(val[k]);
        }
        putchar('}');
    }
    puts("]}");
    return CLI_OK;
}

/* fk: position and rotation of the tool point (or --link) in the base frame. */
static int op_fk(CliCtx *c)
{
    double p[3], R[9];
    int rc = model_fk(c->m, c->a->q.v, c->link, p, R);
    if (rc < 0) return cli_fail(c, rc);
    fputs("{\"position\": ", stdout);
    json_vec(p, 3);
    fputs(", \"rotation\": ", stdout);
    json_mat(R, 3, 3);
    puts("}");
    return CLI_OK;
}

/* jacobian: 6 x dof, rows vx vy vz wx wy wz, base frame, at the tool point. */
static int op_jacobian(CliCtx *c)
{
    double J[6 * MODEL_MAX_DOF];
    int rc = model_jacobian(c->m, c->a->q.v, J);
    if (rc < 0) return cli_fail(c, rc);
    fputs("{\"J\": ", stdout);
    json_mat(J, 6, c->dof);
    puts("}");
    return CLI_OK;
}

/* singularity: the back-end's measure (0 at a singularity, about 1 well away). */
static int op_singularity(CliCtx *c)
{
    double s;
    int rc = model_singularity(c->m, c->a->q.v, &s);
    if (rc < 0) return cli_fail(c, rc);
    fputs("{\"measure\": ", stdout);
    json_num(s);
    puts("}");
    return CLI_OK;
}

/* id: tau = M(q) qdd + h(q, qd). */
static int op_id(CliCtx *c)
{
    double tau[MODEL_MAX_DOF];
    int rc = model_inverse_dynamics(c->m, c->a->q.v, c->a->qd.v, c->a->qdd.v, tau);
    if (rc < 0) return cli_fail(c, rc);
    json_vec_object("tau", tau, c->dof);
    return CLI_OK;
}

/* mass: M(q), dof x dof. */
static int op_mass(CliCtx *c)
{
    double M[MODEL_MAX_DOF * MODEL_MAX_DOF];
    int rc = model_mass_matrix(c->m, c->a->q.v, M);
    if (rc < 0) return cli_fail(c, rc);
    fputs("{\"M\": ", stdout);
    json_mat(M, c->dof, c->dof);
    puts("}");
    return CLI_OK;
}

/* bias: h(q, qd) (Coriolis, centrifugal, gravity). */
static int op_bias(CliCtx *c)
{
    double h[MODEL_MAX_DOF];
    int rc = model_bias(c->m, c->a->q.v, c->a->qd.v, h);
    if (rc < 0) return cli_fail(c, rc);
    json_vec_object("h", h, c->dof);
    return CLI_OK;
}

/* fd: qdd = M^-1 (tau - h). */
static int op_fd(CliCtx *c)
{
    double qdd[MODEL_MAX_DOF];
    int rc = model_forward_dynamics(c->m, c->a->q.v, c->a->qd.v, c->a->tau.v, qdd);
    if (rc < 0) return cli_fail(c, rc);
    json_vec_object("qdd", qdd, c->dof);
    return CLI_OK;
}

/* ik --all: every solution, nearest --q first, each with its configuration (docs/MODELS.md) and limits; none is
 * exit 1 saying why. */
static int op_ik_all(CliCtx *c, const double *pos, const double *quat)
{
    static ModelIkSolution sol[MODEL_IK_MAX_SOLUTIONS];
    ModelIkWhy why;
    int k = model_ik_all(c->m, pos, quat, c->a->q.v, sol, MODEL_IK_MAX_SOLUTIONS, &why);
    if (k < 0) return cli_fail(c, k);
    if (k == 0) {
        if (why.reach_excess > 0 && isfinite(why.reach_excess))
            fprintf(stderr, "irl model: ik: the pose is out of reach by %.6g m%s\n", why.reach_excess,
                    why.method == 2 ? " (the nearest the numerical search came)" : "");
        else
            fprintf(stderr, "irl model: ik: the pose has no inverse-kinematics solution\n");
        return CLI_RUNTIME;
    }
    printf("{\"method\": \"%s\", \"solutions\": [", why.method == 1 ? "closed form" : why.method == 2 ? "search" : "ik");
    for (int i = 0; i < k; i++) {
        const ModelIkSolution *s = &sol[i];
        fputs(i ? ",\n  {\"q\": " : "\n  {\"q\": ", stdout);
        json_vec(s->q, c->dof);
        if (s->config >= 0)
            printf(", \"config\": %d, \"shoulder\": \"%s\", \"elbow\": \"%s\", \"wrist\": \"%s\"", s->config,
                   s->config & MODEL_CFG_BACK ? "back" : "front", s->config & MODEL_CFG_ELBOW_DOWN ? "down" : "up",
                   s->config & MODEL_CFG_FLIP ? "flip" : "no flip");
        else
            fputs(", \"config\": null", stdout);
        printf(", \"turn\": %d, \"within_limits\": %s, \"limit_joint\": ", s->turn,
               s->limit_joint < 0 ? "true" : "false");
        if (s->limit_joint < 0) fputs("null", stdout);
        else json_str(c->m->desc.joint[s->limit_joint].name);
        fputs(", \"limit_excess\": ", stdout);
        json_num(s->limit_excess);
        fputs(", \"distance\": ", stdout);
        json_num(s->dist);
        printf(", \"singular\": %s}", s->singular ? "true" : "false");
    }
    puts("\n]}");
    return CLI_OK;
}

/* ik: joints reaching --pose from the seed --q; out of reach is exit 1 with the residual. --all: op_ik_all. */
static int op_ik(CliCtx *c)
{
    const double *pose = c->a->pose.v;
    double qn = sqrt(pose[3] * pose[3] + pose[4] * pose[4] + pose[5] * pose[5] + pose[6] * pose[6]);
    if (!(qn > 1e-12) || !isfinite(qn))
        return cli_usage("--pose: the quaternion (qw, qx, qy, qz) has zero length");
    double quat[4] = {pose[3] / qn, pose[4] / qn, pose[5] / qn, pose[6] / qn};
    if (c->a->all) return op_ik_all(c, pose, quat);
    double q[MODEL_MAX_DOF];
    ModelIkInfo info = {0, NAN};
    int rc = model_ik(c->m, pose, quat, c->a->q.v, q, &info);
    if (rc == MODEL_EUNREACH) {
        fprintf(stderr, "irl model: ik: the pose is out of reach: no joint values within tolerance (residual %.6g "
                        "after %d iterations)\n", info.residual, info.iterations);
        return CLI_RUNTIME;
    }
    if (rc < 0) return cli_fail(c, rc);
    fputs("{\"q\": ", stdout);
    json_vec(q, c->dof);
    printf(", \"iterations\": %d, \"residual\": ", info.iterations);
    json_num(info.residual);
    puts("}");
    return CLI_OK;
}

/* outputs: the back-end's named extra outputs (G-load, leg forces…); none is two empty lists. */
static int op_outputs(CliCtx *c)
{
    int n = model_output_count(c->m);
    if (n < 0) return cli_fail(c, n);
    if (n > MODEL_MAX_OUTPUTS) n = MODEL_MAX_OUTPUTS;
    double out[MODEL_MAX_OUTPUTS];
    if (n > 0) {
        int rc = model_outputs(c->m, c->a->q.v, c->a->qd.v, c->a->qdd.v, out);
        if (rc < 0) return cli_fail(c, rc);
    }
    fputs("{\"names\": [", stdout);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", stdout);
        const char *nm = model_output_name(c->m, i);
        json_str(nm ? nm : "");
    }
    fputs("], \"values\": ", stdout);
    json_vec(out, n);
    puts("}");
    return CLI_OK;
}

/* semi: the semi-inverse problem — qdd of powered joints and tau of unpowered ones in, the rest out. */
static int op_semi(CliCtx *c)
{
    double qdd[MODEL_MAX_DOF], tau[MODEL_MAX_DOF];
    memcpy(qdd, c->a->qdd.v, sizeof qdd);
    memcpy(tau, c->a->tau.v, sizeof tau);
    int rc = model_semi_inverse(c->m, c->a->q.v, c->a->qd.v, qdd, tau);
    if (rc < 0) return cli_fail(c, rc);
    fputs("{\"qdd\": ", stdout);
    json_vec(qdd, c->dof);
    fputs(", \"tau\": ", stdout);
    json_vec(tau, c->dof);
    puts("}");
    return CLI_OK;
}

static const CliOp cli_ops[] = {
    {"info", 0, op_info},
    {"fk", U_Q | U_LINK, op_fk},
    {"jacobian", U_Q, op_jacobian},
    {"singularity", U_Q, op_singularity},
    {"id", U_Q | U_QD | U_QDD, op_id},
    {"mass", U_Q, op_mass},
    {"bias", U_Q | U_QD, op_bias},
    {"fd", U_Q | U_QD | U_TAU, op_fd},
    {"ik", U_Q | U_POSE | U_ALL, op_ik},
    {"outputs", U_Q | U_QD | U_QDD, op_outputs},
    {"semi", U_Q | U_QD | U_QDD | U_TAU, op_semi},
};

/* An option given to an op that does not read it. */
static int cli_check_uses(const CliArgs *a, const CliOp *op)
{
    struct {
        unsigned bit;
        int given;
        const char *name;
    } opts[] = {{U_Q, a->q.given, "--q"},       {U_QD, a->qd.given, "--qd"},     {U_QDD, a->qdd.given, "--qdd"},
                {U_TAU, a->tau.given, "--tau"}, {U_POSE, a->pose.given, "--pose"}, {U_LINK, a->link != NULL, "--link"},
                {U_ALL, a->all, "--all"}};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        if (opts[k].given && !(op->uses & opts[k].bit))
            return cli_usage("'%s' does not use %s", op->name, opts[k].name);
    if ((op->uses & U_POSE) && !a->pose.given) return cli_usage("'%s' needs --pose x,y,z,qw,qx,qy,qz", op->name);
    if (a->pose.given && a->pose.n != 7)
        return cli_usage("--pose has %d numbers, expected 7 (x,y,z,qw,qx,qy,qz)", a->pose.n);
    if (a->gravity.given && a->gravity.n != 3)
        return cli_usage("--gravity has %d numbers, expected 3 (gx,gy,gz)", a->gravity.n);
    return 0;
}

/* ---- the machine ---- */

static int cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* Missing, unreadable or a directory: the message and 66; else 0. */
static int cli_check_input(const char *path, const char *what)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "irl: cannot open %s '%s': %s\n", what, path, strerror(errno));
        return CLI_NOINPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "irl: cannot open %s '%s': %s\n", what, path, strerror(EISDIR));
        return CLI_NOINPUT;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "irl: cannot open %s '%s': %s\n", what, path, strerror(errno));
        return CLI_NOINPUT;
    }
    fclose(f);
    return 0;
}

/* Read the machine file into *d: .urdf through the URDF reader, anything else as a .irm machine file. */
static int cli_load_machine(const char *path, ModelDesc *d)
{
    int rc = cli_check_input(path, "machine file");
    if (rc) return rc;
    if (cli_ends_with(path, ".urdf")) {
        char err[1024];
        int st = urdf_read(path, d, err, sizeof err);
        if (st < 0) {
            fprintf(stderr, "%s\n", err);
            return CLI_INVALID;
        }
        return 0;
    }
    Diag diag;
    diag_init(&diag, stderr);
    int st = machine_load(path, d, &diag);
    diag_free(&diag);
    if (st == MACHINE_EIO) return CLI_NOINPUT;
    return st == MACHINE_OK ? 0 : CLI_INVALID;
}

/* The name of model link i (model_fk's numbering: the axes, then the mimic joints' followers in file order) from
 * the file's description d, or NULL past the last. */
static const char *cli_link_name(const Model *m, const ModelDesc *d, int i, const char **joint)
{
    const ModelJoint *j = NULL;
    if (i < m->dof) j = &m->desc.joint[i];
    for (int k = 0, f = m->dof; !j && k < d->njoints; k++)
        if (d->joint[k].mimic_of && f++ == i) j = &d->joint[k];
    if (!j) return NULL;
    *joint = j->name;
    return j->link[0] ? j->link : j->name;
}

/* A link by name (the link's name, else the joint's; exact, then ignoring case); "tool" is the tool point. A mimic
 * joint's follower is found too: it is no axis, but it has a place. */
static int cli_find_link(const Model *m, const ModelDesc *d, const char *name, int *link)
{
    const char *ln, *jn;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; (ln = cli_link_name(m, d, i, &jn)); i++) {
            int hit = pass == 0 ? (strcmp(ln, name) == 0 || strcmp(jn, name) == 0)
                                : (strcasecmp(ln, name) == 0 || strcasecmp(jn, name) == 0);
            if (hit) {
                *link = i;
                return 0;
            }
        }
    if (strcasecmp(name, "tool") == 0) {
        *link = -1;
        return 0;
    }
    fprintf(stderr, "irl model: --link: no link named '%s' in machine '%s' (links:", name, d->name);
    for (int i = 0; (ln = cli_link_name(m, d, i, &jn)); i++) fprintf(stderr, " %s", ln);
    fputs(", tool)\n", stderr);
    return CLI_USAGE;
}

/* The joint vectors must have one number per joint (absent ones are zeros). */
static int cli_check_lengths(const CliArgs *a, const ModelDesc *d, int dof)
{
    const CliVec *v[] = {&a->q, &a->qd, &a->qdd, &a->tau};
    for (int k = 0; k < 4; k++)
        if (v[k]->given && v[k]->n != dof)
            return cli_usage("%s has %d number%s, machine '%s' has %d joint%s", v[k]->opt, v[k]->n,
                             v[k]->n == 1 ? "" : "s", d->name, dof, dof == 1 ? "" : "s");
    return 0;
}

/* The subcommand: parse, load plugins and the machine, open the model, run the op, print JSON. */
int model_cli_main(int argc, char **argv)
{
    CliArgs *a = calloc(1, sizeof *a);
    ModelDesc *d = calloc(1, sizeof *d);
    Model *m = calloc(1, sizeof *m);
    int status = CLI_RUNTIME;
    if (!a || !d || !m) {
        fputs("irl model: out of memory\n", stderr);
        goto done;
    }
    if ((status = cli_parse(a, argc, argv))) goto done;
    const CliOp *op = NULL;
    for (size_t k = 0; k < sizeof cli_ops / sizeof cli_ops[0]; k++)
        if (strcmp(a->op, cli_ops[k].name) == 0) op = &cli_ops[k];
    if (!op) {
        status = cli_usage("unknown operation '%s' (info fk jacobian singularity id mass bias fd ik outputs semi)",
                           a->op);
        goto done;
    }
    if ((status = cli_check_uses(a, op))) goto done;

    for (int i = 0; i < a->nplugins; i++) {
        if ((status = cli_check_input(a->plugin[i], "plugin"))) goto done;
        /* dlopen searches the library path for a name without '/': the file just found is meant. */
        char path[4096], err[1024];
        snprintf(path, sizeof path, "%s%s", strchr(a->plugin[i], '/') ? "" : "./", a->plugin[i]);
        if (model_load_plugin(path, err, sizeof err) < 0) {
            fprintf(stderr, "irl model: %s\n", err);
            status = CLI_INVALID;
            goto done;
        }
    }
    if ((status = cli_load_machine(a->machine, d))) goto done;
    if (a->gravity.given) memcpy(d->gravity, a->gravity.v, sizeof d->gravity);
    if (!model_find(d->backend)) {
        fprintf(stderr, "%s: unknown model back-end '%s' (built in: chain, centrifuge, freeflyer, stewart; "
                        "others load with --plugin lib.so)\n", a->machine, d->backend);
        status = CLI_INVALID;
        goto done;
    }
    char err[1024];
    if (model_open(m, d, err, sizeof err) < 0) {
        /* Some back-ends name the file in their message already (d->source). */
        if (err[0] && strncmp(err, a->machine, strlen(a->machine)) == 0)
            fprintf(stderr, "%s\n", err);
        else
            fprintf(stderr, "%s: %s\n", a->machine, err[0] ? err : "the back-end rejected the machine");
        status = CLI_INVALID;
        goto done;
    }
    CliCtx c = {.m = m, .a = a, .dof = m->dof, .link = -1};
    if ((status = cli_check_lengths(a, d, c.dof)) == 0 && (!a->link || (status = cli_find_link(m, d, a->link, &c.link)) == 0)) {
        status = op->run(&c);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "irl model: cannot write the answer: %s\n", strerror(errno));
            status = CLI_RUNTIME;
        }
    }
    model_close(m);
done:
    free(a);
    free(d);
    free(m);
    return status;
}
