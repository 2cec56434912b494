/* urdf.c — URDF reader: libxml2 tree of <robot>/<link>/<joint> into a chain ModelDesc (see urdf.h). */
#include "urdf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "dmath.h"
#include "geom.h"
#include "syntax.h"
#include "xml_loader.h"

#define URDF_MAX 512  /* links or joints in one file */

/* The source line of an element (libxml2 is loaded by the time there is one). */
static int line_of(const xmlNode *n)
{
    return (int)xml_api(NULL, 0)->get_line_no(n);
}

typedef struct {
    const char *name;
    const xmlNode *node;
    int has_inertial;
    const xmlNode *inertial, *mass_at, *inertia_at; /* <inertial>, its <mass> and <inertia> */
    double mass, com[3], I[9]; /* inertia about the COM, link frame axes */
    int body;                  /* ModelDesc joint moving this link, -1: the base */
    double T_p[3], T_R[9];     /* this link's frame in the body's frame */
    int parent_joint;          /* URDF joint whose child this link is, -1: none */
    int visited;
} UrdfLink;

typedef struct {
    const char *name;
    const xmlNode *node;
    int kind;                  /* 0 fixed, 1 revolute, 2 continuous, 3 prismatic */
    int parent, child;         /* link indices */
    double xyz[3], R[9], axis[3];
    double lower, upper, velocity, effort;
    int has_limit;
    const xmlNode *limit;      /* <limit>, or the joint when it has none */
    double damping, friction;  /* <dynamics>: viscous (Nm s/rad, N s/m) and Coulomb (Nm, N) friction, default 0 */
    const char *mimic;         /* <mimic joint multiplier offset>: the leader's name, NULL: none */
    double mult, offset;
    const xmlNode *mimic_at;
} UrdfJoint;

typedef struct {
    const char *path;
    const char *text;          /* the file's bytes, for columns (NULL: unread, errors give the line only) */
    size_t len;
    FILE *warn;                /* where warnings go */
    char *err;
    size_t errlen;
    int failed;
    UrdfLink link[URDF_MAX];
    UrdfJoint joint[URDF_MAX];
    int nlinks, njoints;
    /* lumping sums per ModelDesc joint: mass, first moment, inertia about the body origin, contributors */
    double lm[MODEL_MAX_DOF], lh[MODEL_MAX_DOF][3], lIo[MODEL_MAX_DOF][9];
    int lcount[MODEL_MAX_DOF];
} Urdf;

/* The line and column of attribute attr's value in n's start tag, or of the start tag's '<' (attr NULL or not
 * found there): libxml2 gives an element its line only, so the tag is found in the text, backwards from the end of
 * that line (a start tag may span lines). *col = 0 when the text is not at hand. */
static void urdf_place(const Urdf *u, const xmlNode *n, const char *attr, int *line, int *col)
{
    *line = n ? line_of(n) : 1, *col = 0;
    if (!u->text || !n) return;
    const char *t = u->text, *end = t + u->len, *eol = t, *tag = NULL, *at;
    for (int l = 1; eol < end && (l < *line || *eol != '\n'); eol++) l += *eol == '\n';
    size_t nl = strlen((const char *)n->name);
    int later = 0; /* same-named siblings after n on its line (`<link name="a"/><link name="b"/>`) */
    for (const xmlNode *x = n->next; x; x = x->next)
        later += x->type == XML_ELEMENT_NODE && strcmp((const char *)x->name, (const char *)n->name) == 0 &&
                 line_of(x) == *line;
    for (const char *c = eol + 1; c > t && !tag;) {
        c--;
        if (*c == '<' && (size_t)(end - c) > nl + 1 && strncmp(c + 1, (const char *)n->name, nl) == 0 &&
            strchr(" \t\r\n/>", c[1 + nl]) && later-- == 0)
            tag = c;
    }
    if (!tag) return;
    at = tag;
    size_t al = attr ? strlen(attr) : 0;
    for (const char *c = tag + 1 + nl; attr && c < end && *c != '>'; c++) {
        if (*c == '"' || *c == '\'') { /* skip a value */
            const char *q = memchr(c + 1, *c, (size_t)(end - c - 1));
            if (!q) break;
            c = q;
            continue;
        }
        if (!strchr(" \t\r\n", c[-1]) || (size_t)(end - c) <= al || strncmp(c, attr, al) != 0) continue;
        const char *v = c + al;
        while (v < end && strchr(" \t\r\n", *v)) v++;
        if (v >= end || *v != '=') continue;
        for (v++; v < end && strchr(" \t\r\n", *v); v++) {}
        if (v < end && (*v == '"' || *v == '\'')) at = v + 1;
        break;
    }
    *line = 1;
    const char *bol = t;
    for (const char *c = t; c < at; c++)
        if (*c == '\n') (*line)++, bol = c + 1;
    *col = (int)(at - bol) + 1;
}

/* Record the first error as "file:line:col: error: message", at attribute attr of n (NULL: at n's start tag). */
__attribute__((format(printf, 4, 5))) static int urdf_error(Urdf *u, const xmlNode *n, const char *attr,
                                                            const char *fmt, ...)
{
    if (!u->failed) {
        int line, col, k;
        urdf_place(u, n, attr, &line, &col);
        if (col > 0) k = snprintf(u->err, u->errlen, "%s:%d:%d: error: ", u->path, line, col);
        else k = snprintf(u->err, u->errlen, "%s:%d: error: ", u->path, line);
        if (k >= 0 && (size_t)k < u->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(u->err + k, u->errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    u->failed = 1;
    return MODEL_EINVAL;
}

static int urdf_is(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* First child element called name, or NULL. */
static xmlNode *urdf_child(xmlNode *n, const char *name)
{
    for (xmlNode *c = n->children; c; c = c->next)
        if (urdf_is(c, name)) return c;
    return NULL;
}

/* Attribute value (interned in the document via the property node), or NULL. */
static const char *urdf_attr(xmlNode *n, const char *name)
{
    xmlAttr *a = xml_api(NULL, 0)->has_prop(n, (const xmlChar *)name);
    if (!a || !a->children || !a->children->content) return NULL;
    return (const char *)a->children->content;
}

/* Parse exactly k numbers from attribute `name`; absent: keep the defaults in v, return 0. */
static int urdf_numbers(Urdf *u, xmlNode *n, const char *name, double *v, int k)
{
    const char *s = urdf_attr(n, name);
    if (!s) return 0;
    char *end;
    for (int i = 0; i < k; i++) {
        v[i] = strtod(s, &end);
        if (end == s || !isfinite(v[i]))
            return urdf_error(u, n, name, "<%s %s=\"%s\">: expected %d number%s", (const char *)n->name,
                              name, urdf_attr(n, name), k, k > 1 ? "s" : "");
        s = end;
    }
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (*s)
        return urdf_error(u, n, name, "<%s %s=\"%s\">: expected %d number%s", (const char *)n->name, name,
                          urdf_attr(n, name), k, k > 1 ? "s" : "");
    return 0;
}

/* A required numeric attribute. */
static int urdf_required(Urdf *u, xmlNode *n, const char *name, double *v)
{
    if (!urdf_attr(n, name))
        return urdf_error(u, n, NULL, "<%s> needs attribute '%s'", (const char *)n->name, name);
    return urdf_numbers(u, n, name, v, 1);
}

/* URDF rpy: fixed-axis roll (x), pitch (y), yaw (z): R = Rz(yaw) Ry(pitch) Rx(roll). */
static void urdf_rpy(double R[9], const double rpy[3])
{
    double cr, sr, cp, sp, cy, sy;
    dm_sincos(rpy[0], &sr, &cr), dm_sincos(rpy[1], &sp, &cp), dm_sincos(rpy[2], &sy, &cy);
    R[0] = cy * cp; R[1] = cy * sp * sr - sy * cr; R[2] = cy * sp * cr + sy * sr;
    R[3] = sy * cp; R[4] = sy * sp * sr + cy * cr; R[5] = sy * sp * cr - cy * sr;
    R[6] = -sp;     R[7] = cp * sr;                R[8] = cp * cr;
}

/* <origin xyz rpy> (absent: identity). */
static int urdf_origin(Urdf *u, xmlNode *parent, double xyz[3], double R[9])
{
    double rpy[3] = {0, 0, 0};
    v3_set(xyz, 0, 0, 0);
    xmlNode *o = urdf_child(parent, "origin");
    if (o && (urdf_numbers(u, o, "xyz", xyz, 3) < 0 || urdf_numbers(u, o, "rpy", rpy, 3) < 0)) return MODEL_EINVAL;
    urdf_rpy(R, rpy);
    return 0;
}

static int urdf_find_link(const Urdf *u, const char *name)
{
    for (int i = 0; i < u->nlinks; i++)
        if (strcmp(u->link[i].name, name) == 0) return i;
    return -1;
}

/* <link name> with optional <inertial>: inertia turned from the inertial frame into the link frame. */
static int urdf_link(Urdf *u, xmlNode *n)
{
    if (u->nlinks >= URDF_MAX) return urdf_error(u, n, NULL, "more than %d links", URDF_MAX);
    UrdfLink *l = &u->link[u->nlinks];
    memset(l, 0, sizeof *l);
    l->node = n;
    l->name = urdf_attr(n, "name");
    l->parent_joint = -1;
    if (!l->name) return urdf_error(u, l->node, NULL, "<link> without a name");
    if (urdf_find_link(u, l->name) >= 0) return urdf_error(u, l->node, NULL, "link '%s' defined twice", l->name);
    xmlNode *in = urdf_child(n, "inertial");
    if (in) {
        double R[9], Ip[9], RI[9], Rt[9];
        xmlNode *m = urdf_child(in, "mass"), *it = urdf_child(in, "inertia");
        if (!m) return urdf_error(u, in, NULL, "link '%s': <inertial> without <mass>", l->name);
        if (!it) return urdf_error(u, in, NULL, "link '%s': <inertial> without <inertia>", l->name);
        if (urdf_origin(u, in, l->com, R) < 0 || urdf_required(u, m, "value", &l->mass) < 0) return MODEL_EINVAL;
        if (l->mass < 0) return urdf_error(u, m, "value", "link '%s': negative mass %g kg", l->name, l->mass);
        l->inertial = in, l->mass_at = m, l->inertia_at = it;
        double ixx, ixy, ixz, iyy, iyz, izz;
        if (urdf_required(u, it, "ixx", &ixx) < 0 || urdf_required(u, it, "ixy", &ixy) < 0 ||
            urdf_required(u, it, "ixz", &ixz) < 0 || urdf_required(u, it, "iyy", &iyy) < 0 ||
            urdf_required(u, it, "iyz", &iyz) < 0 || urdf_required(u, it, "izz", &izz) < 0)
            return MODEL_EINVAL;
        double I[9] = {ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz};
        memcpy(Ip, I, sizeof I);
        m3_mul(RI, R, Ip);
        m3_transpose(Rt, R);
        m3_mul(l->I, RI, Rt);
        l->has_inertial = 1;
    }
    u->nlinks++;
    return 0;
}

/* <joint name type> with parent, child, origin, axis, limit, dynamics (damping, friction: symmetric). */
static int urdf_joint(Urdf *u, xmlNode *n)
{
    static const char *kinds[] = {"fixed", "revolute", "continuous", "prismatic"};
    if (u->njoints >= URDF_MAX) return urdf_error(u, n, NULL, "more than %d joints", URDF_MAX);
    UrdfJoint *j = &u->joint[u->njoints];
    memset(j, 0, sizeof *j);
    j->node = n;
    j->name = urdf_attr(n, "name");
    const char *type = urdf_attr(n, "type");
    if (!j->name) return urdf_error(u, j->node, NULL, "<joint> without a name");
    if (!type) return urdf_error(u, j->node, NULL, "joint '%s' without a type", j->name);
    j->kind = -1;
    for (int k = 0; k < 4; k++)
        if (strcmp(type, kinds[k]) == 0) j->kind = k;
    if (j->kind < 0)
        return urdf_error(u, j->node, "type",
                          "joint '%s': type '%s' is not supported (revolute, continuous, prismatic, fixed)", j->name,
                          type);
    xmlNode *mi = urdf_child(n, "mimic");
    if (mi) { /* q = multiplier q_leader + offset (URDF defaults 1 and 0) */
        j->mimic = urdf_attr(mi, "joint");
        j->mimic_at = mi;
        j->mult = 1;
        if (!j->mimic) return urdf_error(u, j->mimic_at, NULL, "joint '%s': <mimic> needs joint=\"...\"", j->name);
        if (urdf_numbers(u, mi, "multiplier", &j->mult, 1) < 0 || urdf_numbers(u, mi, "offset", &j->offset, 1) < 0)
            return MODEL_EINVAL;
    }
    xmlNode *p = urdf_child(n, "parent"), *c = urdf_child(n, "child");
    const char *pn = p ? urdf_attr(p, "link") : NULL, *cn = c ? urdf_attr(c, "link") : NULL;
    if (!pn) return urdf_error(u, j->node, NULL, "joint '%s' needs <parent link=\"...\"/>", j->name);
    if (!cn) return urdf_error(u, j->node, NULL, "joint '%s' needs <child link=\"...\"/>", j->name);
    if ((j->parent = urdf_find_link(u, pn)) < 0)
        return urdf_error(u, p, "link", "joint '%s': unknown parent link '%s'", j->name, pn);
    if ((j->child = urdf_find_link(u, cn)) < 0)
        return urdf_error(u, c, "link", "joint '%s': unknown child link '%s'", j->name, cn);
    UrdfLink *cl = &u->link[j->child];
    if (cl->parent_joint >= 0)
        return urdf_error(u, j->node, NULL, "link '%s' is the child of two joints ('%s' and '%s')", cl->name,
                          u->joint[cl->parent_joint].name, j->name);
    cl->parent_joint = u->njoints;
    if (urdf_origin(u, n, j->xyz, j->R) < 0) return MODEL_EINVAL;
    v3_set(j->axis, 1, 0, 0);   /* the URDF default */
    xmlNode *ax = urdf_child(n, "axis");
    if (ax && urdf_numbers(u, ax, "xyz", j->axis, 3) < 0) return MODEL_EINVAL;
    if (j->kind != 0 && !(v3_norm(j->axis) > 1e-12))
        return urdf_error(u, ax ? ax : j->node, "xyz", "joint '%s': zero axis", j->name);
    j->lower = -INFINITY;
    j->upper = j->velocity = j->effort = INFINITY;
    xmlNode *lim = urdf_child(n, "limit");
    j->limit = j->node;
    if (lim) {
        j->has_limit = 1;
        j->limit = lim;
        if (urdf_numbers(u, lim, "velocity", &j->velocity, 1) < 0 || urdf_numbers(u, lim, "effort", &j->effort, 1) < 0)
            return MODEL_EINVAL;
        if (j->velocity < 0 || j->effort < 0)
            return urdf_error(u, lim, j->velocity < 0 ? "velocity" : "effort",
                              "joint '%s': negative %s %g %s (0 or leaving it out means not given)", j->name,
                              j->velocity < 0 ? "velocity" : "effort", j->velocity < 0 ? j->velocity : j->effort,
                              j->velocity < 0 ? (j->kind == 3 ? "m/s" : "rad/s") : (j->kind == 3 ? "N" : "Nm"));
        /* ROS-Industrial's convention: 0 is "not given", not a limit of zero */
        if (j->velocity == 0) j->velocity = INFINITY;
        if (j->effort == 0) j->effort = INFINITY;
        if (j->kind != 2 &&
            (urdf_numbers(u, lim, "lower", &j->lower, 1) < 0 || urdf_numbers(u, lim, "upper", &j->upper, 1) < 0))
            return MODEL_EINVAL;
        if (j->lower > j->upper)
            return urdf_error(u, lim, "lower", "joint '%s': lower limit %g %s above upper limit %g %s", j->name,
                              j->lower, j->kind == 3 ? "m" : "rad", j->upper, j->kind == 3 ? "m" : "rad");
    } else if (j->kind == 1 || j->kind == 3) {
        return urdf_error(u, j->node, NULL, "joint '%s': a %s joint needs <limit> (URDF)", j->name, type);
    }
    xmlNode *dyn = urdf_child(n, "dynamics");
    if (dyn) {
        if (urdf_numbers(u, dyn, "damping", &j->damping, 1) < 0 || urdf_numbers(u, dyn, "friction", &j->friction, 1) < 0)
            return MODEL_EINVAL;
        if (!(j->damping >= 0) || !(j->friction >= 0) || !isfinite(j->damping) || !isfinite(j->friction))
            return urdf_error(u, dyn, j->damping >= 0 && isfinite(j->damping) ? "friction" : "damping",
                              "joint '%s': <dynamics> damping and friction must be finite and >= 0", j->name);
    }
    u->njoints++;
    return 0;
}

/* Copy a name into a fixed-size field; an error when it does not fit. */
static int urdf_name(Urdf *u, const xmlNode *at, char *dst, const char *src)
{
    if (strlen(src) >= MODEL_NAME_LEN)
        return urdf_error(u, at, "name", "name '%s' longer than %d characters", src, MODEL_NAME_LEN - 1);
    strcpy(dst, src);
    return 0;
}

/* Depth-first from link li: movable joints become ModelDesc joints (parents first), fixed joints weld frames. */
static int urdf_walk(Urdf *u, int li, ModelDesc *d)
{
    UrdfLink *l = &u->link[li];
    l->visited = 1;
    for (int k = 0; k < u->njoints; k++) {
        const UrdfJoint *j = &u->joint[k];
        if (j->parent != li) continue;
        UrdfLink *c = &u->link[j->child];
        if (c->visited) return urdf_error(u, j->node, NULL, "joint '%s' closes a loop at link '%s'", j->name, c->name);
        double p[3], R[9], t[3];     /* joint frame in the body frame of the parent link */
        m3_mulv(t, l->T_R, j->xyz);
        v3_add(p, l->T_p, t);
        m3_mul(R, l->T_R, j->R);
        if (j->kind == 0) {
            c->body = l->body;
            v3_copy(c->T_p, p);
            memcpy(c->T_R, R, sizeof R);
        } else {
            if (d->njoints >= MODEL_MAX_DOF)
                return urdf_error(u, j->node, NULL, "more than %d movable joints", MODEL_MAX_DOF);
            ModelJoint *mj = &d->joint[d->njoints];
            model_joint_init(mj);
            if (urdf_name(u, j->node, mj->name, j->name) < 0 || urdf_name(u, c->node, mj->link, c->name) < 0)
                return MODEL_EINVAL;
            mj->parent = l->body;
            mj->type = j->kind == 3 ? MODEL_PRISMATIC : MODEL_REVOLUTE;
            v3_copy(mj->origin_xyz, p);
            memcpy(mj->origin_R, R, sizeof R);
            v3_scale(mj->axis, j->axis, 1.0 / v3_norm(j->axis));
            mj->limits.min = j->lower;
            mj->limits.max = j->upper;
            mj->limits.vmax = j->velocity;
            mj->limits.effort = j->effort;
            mj->friction.viscous = j->damping;
            mj->friction.coulomb_pos = mj->friction.coulomb_neg = j->friction;
            c->body = d->njoints++;
            v3_set(c->T_p, 0, 0, 0);
            m3_identity(c->T_R);
        }
        if (urdf_walk(u, j->child, d) < 0) return MODEL_EINVAL;
    }
    return 0;
}

/* Lump every link's inertial data into the ModelDesc joint (body) that carries it. A body with one contributor
 * takes its numbers unchanged; several are combined about their joint COM (parallel-axis theorem). */
static void urdf_lump(Urdf *u, ModelDesc *d)
{
    double *m = u->lm, (*h)[3] = u->lh, (*Io)[9] = u->lIo;
    int *count = u->lcount;
    for (int i = 0; i < u->nlinks; i++) {
        const UrdfLink *l = &u->link[i];
        if (!l->has_inertial || l->body < 0) continue;   /* welded to the ground: no dynamics */
        ModelJoint *mj = &d->joint[l->body];
        double c[3], t[3], I[9], RI[9], Rt[9];
        m3_mulv(t, l->T_R, l->com);
        v3_add(c, l->T_p, t);
        m3_mul(RI, l->T_R, l->I);
        m3_transpose(Rt, l->T_R);
        m3_mul(I, RI, Rt);
        if (count[l->body]++ == 0) {
            mj->mass = l->mass;
            v3_copy(mj->com, c);
            memcpy(mj->inertia, I, sizeof I);
        }
        double cc = v3_dot(c, c);
        m[l->body] += l->mass;
        v3_axpy(h[l->body], l->mass, c);
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++)
                Io[l->body][3 * r + k] += I[3 * r + k] + l->mass * ((r == k ? cc : 0.0) - c[r] * c[k]);
    }
    for (int b = 0; b < d->njoints; b++) {
        if (count[b] < 2) continue;
        ModelJoint *mj = &d->joint[b];
        mj->mass = m[b];
        if (m[b] > 0) v3_scale(mj->com, h[b], 1.0 / m[b]);
        else v3_set(mj->com, 0, 0, 0);
        double cc = v3_dot(mj->com, mj->com);
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++)
                mj->inertia[3 * r + k] = Io[b][3 * r + k] - m[b] * ((r == k ? cc : 0.0) - mj->com[r] * mj->com[k]);
    }
}

/* Mimic joints: each follows its leader's ModelDesc joint (a leader that is a mimic joint itself passes its own
 * leader on, multipliers and offsets composed). */
static int urdf_mimic(Urdf *u, ModelDesc *d)
{
    for (int k = 0; k < u->njoints; k++) {
        const UrdfJoint *j = &u->joint[k];
        if (!j->mimic) continue;
        if (j->kind == 0) return urdf_error(u, j->mimic_at, NULL, "joint '%s': a fixed joint cannot mimic", j->name);
        double mult = j->mult, off = j->offset;
        const UrdfJoint *l = j;
        for (int hops = 0; l->mimic; hops++) {
            int li = -1;
            for (int i = 0; i < u->njoints; i++)
                if (strcmp(u->joint[i].name, l->mimic) == 0) li = i;
            if (li < 0 || u->joint[li].kind == 0)
                return urdf_error(u, l->mimic_at, "joint", "joint '%s' mimics '%s', which is not a movable joint",
                                  l->name, l->mimic);
            if (hops > u->njoints) return urdf_error(u, j->mimic_at, NULL, "joint '%s': the mimic joints form a loop",
                                                     j->name);
            l = &u->joint[li];
            if (l->mimic) { /* q = mult (m' q'' + o') + off */
                off += mult * l->offset;
                mult *= l->mult;
            }
        }
        ModelJoint *mj = &d->joint[u->link[j->child].body];
        mj->mimic_of = u->link[l->child].body + 1;
        mj->mimic_mult = mult;
        mj->mimic_offset = off;
    }
    return 0;
}

/* Each link's mass and inertia and each movable joint's limits (model_body_check, model_limits_check) at their
 * lines; a moving body none of whose links has <inertial> is named in d->inertia_missing and in one warning. */
static int urdf_check(Urdf *u, ModelDesc *d)
{
    char why[384];
    int has[MODEL_MAX_DOF] = {0}, first = 0;
    ModelDesc *one = calloc(1, sizeof *one); /* a one-body description for the shared check */
    if (!one) return urdf_error(u, NULL, NULL, "out of memory");
    strcpy(one->backend, "chain");
    one->njoints = 1;
    for (int i = 0; i < u->nlinks; i++) {
        const UrdfLink *l = &u->link[i];
        if (!l->has_inertial) continue;
        if (l->body >= 0) has[l->body] = 1;
        ModelJoint *b = &one->joint[0];
        model_joint_init(b);
        b->mass = l->mass;
        memcpy(b->inertia, l->I, sizeof b->inertia);
        if (l->body >= 0) { /* a rotor's axis, in the link frame */
            double Rt[9];
            m3_transpose(Rt, l->T_R);
            m3_mulv(b->axis, Rt, d->joint[l->body].axis);
        }
        if (model_body_check(one, 0, why, sizeof why) < 0) {
            free(one);
            int mass = strncmp(why, "mass", 4) == 0; /* else the inertia is at fault */
            return urdf_error(u, mass ? l->mass_at : l->inertia_at, mass ? "value" : NULL, "link '%s': %s", l->name,
                              why);
        }
    }
    free(one);
    for (int k = 0; k < u->njoints; k++) {
        const UrdfJoint *j = &u->joint[k];
        int b = u->link[j->child].body;
        int which = -1;
        if (j->kind == 0 || model_limits_check(d, b, &which, why, sizeof why) >= 0) continue;
        const char *attr[] = {"lower", "velocity", NULL, NULL, "effort"};
        return urdf_error(u, j->limit, which >= 0 && which <= 4 ? attr[which] : NULL, "joint '%s': %s", j->name, why);
    }
    size_t len = 0;
    for (int b = 0; b < d->njoints; b++) {
        if (has[b]) continue;
        int n = snprintf(d->inertia_missing + len, sizeof d->inertia_missing - len, "%s%s", len ? ", " : "",
                         d->joint[b].link);
        len = n < 0 || len + (size_t)n >= sizeof d->inertia_missing ? sizeof d->inertia_missing - 1 : len + (size_t)n;
        if (!first) first = line_of(u->link[urdf_find_link(u, d->joint[b].link)].node);
    }
    if (len)
        fprintf(u->warn, "%s:%d: warning: no <inertial> for link%s %s: counted as massless, the torque check is "
                "incomplete\n", u->path, first, strchr(d->inertia_missing, ',') ? "s" : "", d->inertia_missing);
    return 0;
}

/* Links, joints, the root, the walk, the lumping and the tool: the whole description. */
static int urdf_build(Urdf *u, xmlNode *robot, ModelDesc *d)
{
    for (xmlNode *n = robot->children; n && !u->failed; n = n->next)
        if (urdf_is(n, "link")) urdf_link(u, n);
    for (xmlNode *n = robot->children; n && !u->failed; n = n->next)
        if (urdf_is(n, "joint")) urdf_joint(u, n);
    if (u->failed) return MODEL_EINVAL;
    if (u->nlinks == 0) return urdf_error(u, robot, NULL, "robot without links");
    int root = -1;
    for (int i = 0; i < u->nlinks; i++) {
        if (u->link[i].parent_joint >= 0) continue;
        if (root >= 0)
            return urdf_error(u, u->link[i].node, NULL,
                              "second root link '%s' (the first is '%s'): links must form one tree", u->link[i].name,
                              u->link[root].name);
        root = i;
    }
    if (root < 0) return urdf_error(u, robot, NULL, "no root link: the joints form a loop");
    UrdfLink *r = &u->link[root];
    r->body = -1;
    m3_identity(r->T_R);
    if (urdf_walk(u, root, d) < 0) return MODEL_EINVAL;
    for (int i = 0; i < u->nlinks; i++)
        if (!u->link[i].visited)
            return urdf_error(u, u->link[i].node, NULL, "link '%s' is not connected to the root '%s'", u->link[i].name,
                              r->name);
    if (d->njoints == 0) return urdf_error(u, robot, NULL, "robot without movable joints");
    if (urdf_check(u, d) < 0 || urdf_mimic(u, d) < 0) return MODEL_EINVAL;
    urdf_lump(u, d);
    int tool = urdf_find_link(u, "tool0");
    if (tool < 0) tool = urdf_find_link(u, "tool");
    if (tool >= 0 && u->link[tool].body >= 0) {
        d->tool_link = u->link[tool].body;
        v3_copy(d->tool_xyz, u->link[tool].T_p);
        memcpy(d->tool_R, u->link[tool].T_R, sizeof d->tool_R);
    }
    return 0;
}

int urdf_read(const char *path, ModelDesc *d, char *err, size_t errlen)
{
    return urdf_read_to(path, d, err, errlen, stderr);
}

int urdf_read_to(const char *path, ModelDesc *d, char *err, size_t errlen, FILE *warn)
{
    model_desc_init(d);
    char why[256];
    const XmlApi *xml = xml_api(why, sizeof why);
    if (!xml) {
        snprintf(err, errlen, "%s: error: %s", path, why);
        return MODEL_EINVAL;
    }
    xmlDoc *doc = xml->read_file(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xml->get_last_error();
        snprintf(err, errlen, "%s:%d: error: %s", path, e ? e->line : 0,
                 e && e->message ? e->message : "cannot read the file\n");
        size_t n = strlen(err);
        if (n && err[n - 1] == '\n') err[n - 1] = '\0';
        return MODEL_EINVAL;
    }
    Urdf *u = calloc(1, sizeof *u);
    if (!u) {
        xml->free_doc(doc);
        snprintf(err, errlen, "%s: out of memory", path);
        return MODEL_ENOMEM;
    }
    u->path = path;
    Arena arena; /* the file's text, for the columns of its errors (none when it cannot be read again) */
    arena_init(&arena);
    u->text = syntax_read_file(&arena, path, &u->len);
    u->warn = warn;
    u->err = err;
    u->errlen = errlen;
    xmlNode *robot = xml->doc_get_root_element(doc);
    int rc;
    if (!robot || !urdf_is(robot, "robot")) {
        rc = urdf_error(u, robot, NULL, "the root element must be <robot>");
    } else {
        const char *name = urdf_attr(robot, "name");
        rc = urdf_name(u, robot, d->name, name ? name : "robot");
        if (rc == 0) rc = urdf_build(u, robot, d);
    }
    strcpy(d->backend, "chain");
    snprintf(d->source, sizeof d->source, "%s", path);
    arena_free(&arena);
    free(u);
    xml->free_doc(doc);
    return rc < 0 ? MODEL_EINVAL : 0;
}
