/* machine.c — machine files (.irm): parse with the irl grammar's MACHINE form, evaluate the constant
 * expressions with their units, check every value's dimension, and fill a ModelDesc. */
#include "machine.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dmath.h"
#include "geom.h"
#include "syntax.h"
#include "units.h"
#include "urdf.h"

typedef struct MCtx {
    Diag *diag;
    ModelDesc *d;
    int errors;
    const char *urdf;           /* the URDF this file adds to (`urdf = "file.urdf";`), NULL: a whole machine */
    char urdf_path[512];        /* its path, relative to the working folder */
    bool mass_given[MODEL_MAX_DOF]; /* a JOINT block gave the body's mass (URDF: its inertial data are complete) */
    SrcLoc param_at[MODEL_MAX_PARAMS]; /* where each PARAM's value is written */
} MCtx;

/* An error at loc, counted. */
static void merr(MCtx *m, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void merr(MCtx *m, SrcLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(m->diag, "error", loc, fmt, ap);
    va_end(ap);
    m->errors++;
}

/* Dimensions by exponents of length, mass, time, angle. */
static Dim mdim(int l, int kg, int t, int a)
{
    return (Dim){.e = {(int8_t)l, (int8_t)kg, (int8_t)t, (int8_t)a}};
}

/* Evaluate a constant scalar: numbers (bare ones have Dim.any), unary minus, + - * /, PI, INF. */
static bool mscalar(MCtx *m, Node *n, double *v, Dim *dim)
{
    double a, b;
    Dim da, db;
    char s1[64], s2[64];
    switch (n->kind) {
    case E_INT:
        *v = (double)n->lit.i;
        *dim = dim_any();
        return true;
    case E_REAL:
        *v = n->lit.r;
        *dim = (n->flags & NF_HAS_UNIT) ? n->dim : dim_any();
        dim->any = !(n->flags & NF_HAS_UNIT);
        return true;
    case E_UNARY:
        if (n->op != '-' || !mscalar(m, n->a, v, dim)) {
            if (n->op != '-')
                merr(m, n->loc, "expected a number");
            return false;
        }
        *v = -*v;
        return true;
    case E_BINARY:
        if (!mscalar(m, n->a, &a, &da) || !mscalar(m, n->b, &b, &db))
            return false;
        switch (n->op) {
        case '+':
        case '-':
            if (!dim_compatible(da, db)) {
                merr(m, n->loc, "cannot %s %s and %s", n->op == '+' ? "add" : "subtract",
                     dim_describe(da, s1, sizeof s1), dim_describe(db, s2, sizeof s2));
                return false;
            }
            *v = n->op == '+' ? a + b : a - b;
            *dim = da.any ? db : da;
            return true;
        case '*':
            *v = a * b;
            *dim = dim_mul(da, db);
            return true;
        case '/':
            if (b == 0) {
                merr(m, n->loc, "division by zero");
                return false;
            }
            *v = a / b;
            *dim = dim_div(da, db);
            return true;
        default:
            merr(m, n->loc, "only + - * / are allowed in a machine file");
            return false;
        }
    case E_NAME:
        if (strcasecmp(n->name, "PI") == 0) {
            *v = M_PI;
            *dim = dim_any();
            return true;
        }
        if (strcasecmp(n->name, "INF") == 0 || strcasecmp(n->name, "INFINITY") == 0) {
            *v = INFINITY;
            *dim = dim_any();
            return true;
        }
        merr(m, n->loc, "expected a number, found name '%s'", n->name);
        return false;
    default:
        merr(m, n->loc, "expected a number");
        return false;
    }
}

/* A scalar of dimension `want` (a bare number takes it). */
static bool mnum(MCtx *m, Node *n, Dim want, const char *what, double *out)
{
    Dim d;
    char s1[64], s2[64];
    if (!mscalar(m, n, out, &d))
        return false;
    if (!d.any && !dim_eq(d, want)) {
        merr(m, n->loc, "%s: expected %s, got %s", what, dim_describe(want, s1, sizeof s1),
             dim_describe(d, s2, sizeof s2));
        return false;
    }
    return true;
}

/* n is a call of `name` with `nargs` arguments (error otherwise). */
static bool mcall(MCtx *m, Node *n, const char *name, int nargs, const char *what)
{
    if (n->kind != E_CALL || strcasecmp(n->name, name) != 0) {
        merr(m, n->loc, "%s: expected %s(…)", what, name);
        return false;
    }
    if (n->list.count != nargs) {
        merr(m, n->loc, "%s takes %d arguments, got %d", name, nargs, n->list.count);
        return false;
    }
    return true;
}

/* POS(x, y, z) with components of dimension `want`. */
static bool mvec3(MCtx *m, Node *n, Dim want, const char *what, double out[3])
{
    if (!mcall(m, n, "POS", 3, what))
        return false;
    bool ok = true;
    for (int i = 0; i < 3; i++)
        ok &= mnum(m, n->list.items[i], want, what, &out[i]);
    return ok;
}

/* Elementary rotations, row-major. */
static void mrot_axis(double R[9], int axis, double a)
{
    double c, s;
    dm_sincos(a, &s, &c);
    m3_identity(R);
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    R[3 * i + i] = c;
    R[3 * i + j] = -s;
    R[3 * j + i] = s;
    R[3 * j + j] = c;
}

/* An orientation: ORIZYX(a, b, c) = Rz Ry Rx, ORIXYZ(a, b, c) = Rx Ry Rz, ORIQUAT(w, x, y, z), ORIVANG(axis, angle). */
static bool mrot(MCtx *m, Node *n, const char *what, double R[9])
{
    double v[4], A[9], B[9], C[9], T[9];
    if (n->kind == E_CALL && (strcasecmp(n->name, "ORIZYX") == 0 || strcasecmp(n->name, "ORIXYZ") == 0)) {
        if (!mcall(m, n, n->name, 3, what))
            return false;
        bool ok = true;
        for (int i = 0; i < 3; i++)
            ok &= mnum(m, n->list.items[i], mdim(0, 0, 0, 1), what, &v[i]);
        if (!ok)
            return false;
        bool zyx = strcasecmp(n->name, "ORIZYX") == 0;
        mrot_axis(A, zyx ? 2 : 0, v[0]);
        mrot_axis(B, 1, v[1]);
        mrot_axis(C, zyx ? 0 : 2, v[2]);
        m3_mul(T, A, B);
        m3_mul(R, T, C);
        return true;
    }
    if (n->kind == E_CALL && strcasecmp(n->name, "ORIQUAT") == 0) {
        if (!mcall(m, n, "ORIQUAT", 4, what))
            return false;
        bool ok = true;
        for (int i = 0; i < 4; i++)
            ok &= mnum(m, n->list.items[i], mdim(0, 0, 0, 0), what, &v[i]);
        double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
        if (ok && !(norm > 0)) {
            merr(m, n->loc, "ORIQUAT of a zero quaternion");
            return false;
        }
        for (int i = 0; ok && i < 4; i++)
            v[i] /= norm;
        if (ok)
            quat_to_m3(R, v);
        return ok;
    }
    if (n->kind == E_CALL && strcasecmp(n->name, "ORIVANG") == 0) {
        if (!mcall(m, n, "ORIVANG", 2, what) || !mvec3(m, n->list.items[0], mdim(0, 0, 0, 0), what, v) ||
            !mnum(m, n->list.items[1], mdim(0, 0, 0, 1), what, &v[3]))
            return false;
        double norm = v3_norm(v);
        if (!(norm > 0)) {
            merr(m, n->list.items[0]->loc, "ORIVANG about a zero axis");
            return false;
        }
        v3_scale(v, v, 1 / norm);
        m3_axis_angle(R, v, v[3]);
        return true;
    }
    merr(m, n->loc, "%s: expected an orientation (ORIZYX, ORIXYZ, ORIQUAT or ORIVANG)", what);
    return false;
}

/* POSE(POS(x, y, z), orientation), positions in metres. */
static bool mpose(MCtx *m, Node *n, const char *what, double xyz[3], double R[9])
{
    return mcall(m, n, "POSE", 2, what) && mvec3(m, n->list.items[0], mdim(1, 0, 0, 0), what, xyz) &&
           mrot(m, n->list.items[1], what, R);
}

/* A name value (parent = j1, tool_link = j6). */
static bool mname(MCtx *m, Node *n, const char *what, const char **out)
{
    if (n->kind != E_NAME) {
        merr(m, n->loc, "%s: expected a name", what);
        return false;
    }
    *out = n->name;
    return true;
}

/* Copy a name into a fixed ModelDesc field. */
static bool mcopy(MCtx *m, SrcLoc loc, char *dst, const char *src)
{
    if (strlen(src) >= MODEL_NAME_LEN) {
        merr(m, loc, "name '%s' is longer than %d characters", src, MODEL_NAME_LEN - 1);
        return false;
    }
    strcpy(dst, src);
    return true;
}

/* The joint called `name` among the first `count`, or -1. */
static int mjoint_index(const ModelDesc *d, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcasecmp(d->joint[i].name, name) == 0)
            return i;
    return -1;
}

/* Has this property name been seen in this block already? Reports the repeat. */
static bool mrepeat(MCtx *m, NodeList *items, int upto, Node *it)
{
    for (int i = 0; i < upto; i++) {
        Node *o = items->items[i];
        if (o->kind == it->kind && !o->lit.s == !it->lit.s && strcasecmp(o->name, it->name) == 0 &&
            (!o->lit.s || strcasecmp(o->lit.s, it->lit.s) == 0)) {
            merr(m, it->loc, "'%s' is given twice (first at line %d)", it->name, o->loc.line);
            return true;
        }
    }
    return false;
}

/* A joint's `friction_viscous` (torque per speed), `friction_coulomb` (a torque; both directions unless
 * friction_coulomb_neg gives the magnitude for negative speeds): finite, >= 0 (docs/MODELS.md §5.4). */
static void mfriction(MCtx *m, Node *it, ModelJoint *j, Dim effort, Dim viscous, bool *neg_given)
{
    static const char *const names[] = {"viscous", "coulomb", "coulomb_neg"};
    double *fields[] = {&j->friction.viscous, &j->friction.coulomb_pos, &j->friction.coulomb_neg};
    const char *p = it->name;
    int k = 0;
    while (k < 3 && strcasecmp(p + 9, names[k]) != 0)
        k++;
    if (k == 3) {
        merr(m, it->loc, "unknown friction property '%s' (friction_viscous, friction_coulomb, friction_coulomb_neg)",
             p);
        return;
    }
    double x;
    if (!mnum(m, it->a, k == 0 ? viscous : effort, p, &x))
        return;
    if (!(x >= 0) || !isfinite(x)) {
        merr(m, it->a->loc, "%s: friction must be finite and >= 0", p);
        return;
    }
    *fields[k] = x;
    if (k == 2)
        *neg_given = true;
}

static void mjoint_urdf(MCtx *m, Node *blk);
static void mjoint_items(MCtx *m, Node *blk, int idx);

/* One `JOINT name : REVOLUTE|PRISMATIC; properties ENDJOINT;` block. */
static void mjoint(MCtx *m, Node *blk)
{
    ModelDesc *d = m->d;
    if (d->njoints >= MODEL_MAX_DOF) {
        merr(m, blk->loc, "more than %d joints", MODEL_MAX_DOF);
        return;
    }
    if (m->urdf) {
        mjoint_urdf(m, blk);
        return;
    }
    int idx = d->njoints++;
    ModelJoint *j = &d->joint[idx];
    mcopy(m, blk->loc, j->name, blk->name);
    mcopy(m, blk->loc, j->link, blk->name);
    if (mjoint_index(d, idx, blk->name) >= 0)
        merr(m, blk->loc, "joint '%s' is declared twice", blk->name);
    j->parent = idx - 1;
    mjoint_items(m, blk, idx);
}

/* A JOINT block of a file that adds to a URDF: it names a joint of the URDF (its type, if given, must agree) and
 * adds limits, motor, friction or the body's inertial data; the geometry is the URDF's. */
static void mjoint_urdf(MCtx *m, Node *blk)
{
    ModelDesc *d = m->d;
    int idx = mjoint_index(d, d->njoints, blk->name);
    if (idx < 0) {
        char names[512] = "";
        size_t len = 0;
        for (int i = 0; i < d->njoints && len < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", d->joint[i].name);
        merr(m, blk->loc, "'%s' is not a movable joint of %s (its joints: %s)", blk->name, m->urdf, names);
        return;
    }
    ModelJoint *j = &d->joint[idx];
    if (blk->b && strcasecmp(blk->b->name, j->type == MODEL_REVOLUTE ? "REVOLUTE" : "PRISMATIC") != 0)
        merr(m, blk->b->loc, "joint '%s' is %s in %s", blk->name, j->type == MODEL_REVOLUTE ? "revolute" : "prismatic",
             m->urdf);
    for (int i = 0; i < blk->list.count; i++) {
        Node *it = blk->list.items[i];
        static const char *const geometry[] = {"link", "parent", "origin", "axis"};
        for (int k = 0; k < 4; k++)
            if (it->kind == D_CONST && !it->lit.s && strcasecmp(it->name, geometry[k]) == 0)
                merr(m, it->loc, "joint '%s': %s comes from %s and cannot be changed here", blk->name, it->name,
                     m->urdf);
    }
    mjoint_items(m, blk, idx);
}

/* The properties of JOINT block blk, for joint idx (its type known), and the checks of what they describe. */
static void mjoint_items(MCtx *m, Node *blk, int idx)
{
    ModelDesc *d = m->d;
    ModelJoint *j = &d->joint[idx];
    if (m->urdf)
        ;
    else if (!blk->b)
        merr(m, blk->loc, "joint '%s' needs a type: JOINT %s : REVOLUTE; or : PRISMATIC;", blk->name, blk->name);
    else if (strcasecmp(blk->b->name, "REVOLUTE") == 0)
        j->type = MODEL_REVOLUTE;
    else if (strcasecmp(blk->b->name, "PRISMATIC") == 0)
        j->type = MODEL_PRISMATIC;
    else
        merr(m, blk->b->loc, "expected REVOLUTE or PRISMATIC, found '%s'", blk->b->name);
    int q = j->type == MODEL_REVOLUTE ? 3 : 0; /* the exponent slot of the joint's coordinate: angle or length */
    Dim pos = q == 3 ? mdim(0, 0, 0, 1) : mdim(1, 0, 0, 0);
    Dim effort = q == 3 ? mdim(2, 1, -2, 0) : mdim(1, 1, -2, 0);
    Dim inertia = mdim(2, 1, 0, 0);
    bool coulomb_neg_given = false;
    Node *mass_at = NULL, *inertia_at = NULL, *lim_at[5] = {NULL}; /* where each was given, for the checks */
    for (int i = 0; i < blk->list.count; i++) {
        Node *it = blk->list.items[i];
        if (it->kind != D_CONST || it->lit.s) {
            merr(m, it->loc, "unexpected %s '%s' inside JOINT %s (joint properties are `name = value;`)",
                 it->kind == D_TYPE ? "block" : "item", it->name, blk->name);
            continue;
        }
        if (mrepeat(m, &blk->list, i, it))
            continue;
        const char *p = it->name, *nm;
        Node *v = it->a;
        double x;
        static const char *const lim_names[] = {"min", "max", "speed", "acc", "jerk", "effort"};
        for (int k = 0; k < 6; k++)
            if (strcasecmp(p, lim_names[k]) == 0) lim_at[k < 2 ? 0 : k - 1] = it;
        if (strcasecmp(p, "mass") == 0) {
            mass_at = it;
            m->mass_given[idx] = true;
        }
        if (strcasecmp(p, "inertia") == 0) inertia_at = it;
        if (strcasecmp(p, "link") == 0) {
            if (mname(m, v, "link", &nm))
                mcopy(m, v->loc, j->link, nm);
        } else if (strcasecmp(p, "parent") == 0) {
            if (!mname(m, v, "parent", &nm))
                continue;
            if (strcasecmp(nm, "base") == 0)
                j->parent = -1;
            else if ((j->parent = mjoint_index(d, idx, nm)) < 0)
                merr(m, v->loc, "parent '%s' is not a joint declared before '%s' (or base)", nm, blk->name);
        } else if (strcasecmp(p, "origin") == 0) {
            mpose(m, v, "origin", j->origin_xyz, j->origin_R);
        } else if (strcasecmp(p, "axis") == 0) {
            double a[3];
            if (!mvec3(m, v, mdim(0, 0, 0, 0), "axis", a))
                continue;
            double norm = v3_norm(a);
            if (!(norm > 0))
                merr(m, v->loc, "axis: the zero vector has no direction");
            else
                v3_scale(j->axis, a, 1 / norm);
        } else if (strcasecmp(p, "mass") == 0) {
            if (mnum(m, v, mdim(0, 1, 0, 0), "mass", &x))
                j->mass = x;
        } else if (strcasecmp(p, "com") == 0) {
            mvec3(m, v, mdim(1, 0, 0, 0), "com", j->com);
        } else if (strcasecmp(p, "inertia") == 0) {
            double I[6];
            bool ok = mcall(m, v, "INERTIA", 6, "inertia");
            for (int k = 0; ok && k < 6; k++)
                ok &= mnum(m, v->list.items[k], inertia, "inertia", &I[k]);
            if (!ok)
                continue;
            double T[9] = {I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2]};
            memcpy(j->inertia, T, sizeof T);
        } else if (strcasecmp(p, "powered") == 0) {
            if (v->kind != E_BOOL)
                merr(m, v->loc, "powered: expected TRUE or FALSE");
            else
                j->powered = v->lit.b;
        } else if (strcasecmp(p, "home") == 0) {
            mnum(m, v, pos, "home", &j->home);
        } else if (strcasecmp(p, "min") == 0) {
            mnum(m, v, pos, "min", &j->limits.min);
        } else if (strcasecmp(p, "max") == 0) {
            mnum(m, v, pos, "max", &j->limits.max);
        } else if (strcasecmp(p, "speed") == 0) {
            mnum(m, v, dim_div(pos, mdim(0, 0, 1, 0)), "speed", &j->limits.vmax);
        } else if (strcasecmp(p, "acc") == 0) {
            mnum(m, v, dim_div(pos, mdim(0, 0, 2, 0)), "acc", &j->limits.amax);
        } else if (strcasecmp(p, "jerk") == 0) {
            mnum(m, v, dim_div(pos, mdim(0, 0, 3, 0)), "jerk", &j->limits.jmax);
        } else if (strcasecmp(p, "effort") == 0) {
            mnum(m, v, effort, q == 3 ? "effort (a torque)" : "effort (a force)", &j->limits.effort);
        } else if (strcasecmp(p, "ferror") == 0) {
            if (!mnum(m, v, pos, "ferror", &x))
                continue;
            if (!(x > 0))
                merr(m, v->loc, "ferror: the following-error limit must be > 0");
            else
                j->ferror = x;
        } else if (strncasecmp(p, "friction_", 9) == 0) {
            mfriction(m, it, j, effort, dim_div(effort, dim_div(pos, mdim(0, 0, 1, 0))), &coulomb_neg_given);
        } else if (strncasecmp(p, "motor_", 6) == 0) {
            /* Electrical quantities have no dimension here (no current); they are bare SI numbers. */
            static const char *const names[] = {"resistance", "inductance", "kt", "ke", "gear", "rotor_inertia",
                                                "voltage"};
            double *fields[] = {&j->motor.resistance, &j->motor.inductance, &j->motor.kt, &j->motor.ke,
                                &j->motor.gear, &j->motor.rotor_inertia, &j->motor.vmax};
            int k = 0;
            while (k < 7 && strcasecmp(p + 6, names[k]) != 0)
                k++;
            if (k == 7) {
                merr(m, it->loc, "unknown motor property '%s' (motor_resistance, motor_inductance, motor_kt, "
                     "motor_ke, motor_gear, motor_rotor_inertia, motor_voltage)", p);
                continue;
            }
            Dim want = k == 5 ? inertia : mdim(0, 0, 0, 0);
            if (mnum(m, v, want, p, fields[k]))
                j->motor.present = 1;
        } else {
            merr(m, it->loc, "unknown joint property '%s' (link parent origin axis mass com inertia powered home "
                 "min max speed acc jerk effort ferror motor_* friction_*)", p);
        }
    }
    char why[384];
    int which, st = model_body_check(d, idx, why, sizeof why);
    Node *body_at = (strncmp(why, "mass", 4) == 0 && mass_at) || !inertia_at ? mass_at : inertia_at;
    SrcLoc at = body_at ? body_at->a->loc : blk->loc;
    if (st < 0) merr(m, at, "joint '%s': %s", blk->name, why);
    if (model_limits_check(d, idx, &which, why, sizeof why) < 0)
        merr(m, lim_at[which] ? lim_at[which]->a->loc : blk->loc, "joint '%s': %s", blk->name, why);
    if (!coulomb_neg_given)
        j->friction.coulomb_neg = j->friction.coulomb_pos;
}

/* `PARAM name = number | LIST(numbers) | word;` — numbers stored in SI; `OUTPUT name = LIMITS(min, max);` — the
 * output's units. */
static void mqualified(MCtx *m, Node *it)
{
    ModelDesc *d = m->d;
    Node *v = it->a;
    Dim dim;
    if (strcasecmp(it->lit.s, "PARAM") == 0) {
        if (d->nparams >= MODEL_MAX_PARAMS) {
            merr(m, it->loc, "more than %d parameters", MODEL_MAX_PARAMS);
            return;
        }
        for (int i = 0; i < d->nparams; i++)
            if (strcasecmp(d->param[i].name, it->name) == 0) {
                merr(m, it->loc, "parameter '%s' is given twice", it->name);
                return;
            }
        ModelParam *p = &d->param[d->nparams];
        if (!mcopy(m, it->loc, p->name, it->name))
            return;
        if (v->kind == E_CALL && strcasecmp(v->name, "LIST") == 0) {
            if (v->list.count < 1 || v->list.count > MODEL_MAX_PARAM_LEN) {
                merr(m, v->loc, "LIST takes 1 to %d numbers", MODEL_MAX_PARAM_LEN);
                return;
            }
            Dim all = dim_any();
            for (int i = 0; i < v->list.count; i++) {
                if (!mscalar(m, v->list.items[i], &p->v[i], &dim))
                    return;
                if (!dim_compatible(all, dim)) {
                    char s1[64], s2[64];
                    merr(m, v->list.items[i]->loc, "parameter '%s': LIST mixes %s and %s", it->name,
                         dim_describe(all, s1, sizeof s1), dim_describe(dim, s2, sizeof s2));
                    return;
                }
                if (!dim.any) all = dim;
            }
            dim = all;
            p->n = v->list.count;
        } else if (v->kind == E_NAME && strcasecmp(v->name, "PI") != 0 && strcasecmp(v->name, "INF") != 0 &&
                   strcasecmp(v->name, "INFINITY") != 0) {
            /* A word (`PARAM formulation = DEM;`): n = 0 and the word, upper-cased, one character per number,
             * 0-terminated (a numeric PARAM always has n >= 1). */
            size_t len = strlen(v->name);
            if (len >= MODEL_MAX_PARAM_LEN) {
                merr(m, v->loc, "a word parameter has at most %d characters", MODEL_MAX_PARAM_LEN - 1);
                return;
            }
            for (size_t i = 0; i <= len; i++) p->v[i] = (double)toupper((unsigned char)v->name[i]);
            p->n = 0;
        } else {
            if (!mscalar(m, v, &p->v[0], &dim))
                return;
            p->n = 1;
        }
        if (p->n > 0 && !dim.any && !dim_is_none(dim)) dim_str(dim, p->unit, sizeof p->unit);
        m->param_at[d->nparams++] = v->loc;
    } else if (strcasecmp(it->lit.s, "OUTPUT") == 0) {
        if (d->noutput_limits >= MODEL_MAX_OUTPUTS) {
            merr(m, it->loc, "more than %d output limits", MODEL_MAX_OUTPUTS);
            return;
        }
        ModelOutputLimit *o = &d->output_limit[d->noutput_limits];
        double lim[2];
        if (!mcopy(m, it->loc, o->name, it->name) || !mcall(m, v, "LIMITS", 2, "OUTPUT"))
            return;
        for (int i = 0; i < 2; i++) {
            /* Outputs in G are written with G or G/s, or bare: a G unit is turned back into a count of G. */
            if (!mscalar(m, v->list.items[i], &lim[i], &dim))
                return;
            if (!dim.any && (dim_eq(dim, mdim(1, 0, -2, 0)) || dim_eq(dim, mdim(1, 0, -3, 0))))
                lim[i] /= 9.81;
        }
        o->min = lim[0];
        o->max = lim[1];
        d->noutput_limits++;
    } else {
        merr(m, it->loc, "unknown declaration '%s %s' (PARAM name = value; or OUTPUT name = LIMITS(min, max);)",
             it->lit.s, it->name);
    }
}

/* `urdf = "file.urdf";`: read the URDF (a path relative to this file's folder) into the description, which the
 * rest of this file then adds to; the machine keeps this file's name and source. */
static void murdf(MCtx *m, Node *it, const char *path)
{
    ModelDesc *d = m->d;
    if (it->a->kind != E_STRING) {
        merr(m, it->a->loc, "urdf: expected a file name in quotes");
        return;
    }
    if (strcasecmp(d->backend, "chain") != 0) {
        merr(m, it->a->loc, "urdf: a URDF describes a CHAIN machine, not a %s one", d->backend);
        return;
    }
    char *file = m->urdf_path;
    size_t cap = sizeof m->urdf_path;
    const char *slash = strrchr(path, '/'), *u = it->a->lit.s;
    if (u[0] == '/' || !slash) snprintf(file, cap, "%s", u);
    else snprintf(file, cap, "%.*s/%s", (int)(slash - path), path, u);
    char name[MODEL_NAME_LEN], err[1024];
    snprintf(name, sizeof name, "%s", d->name);
    if (urdf_read(file, d, err, sizeof err) < 0) {
        merr(m, it->a->loc, "urdf: %s", err);
        return;
    }
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->source, sizeof d->source, "%.120s (adding to %.120s)", path, file);
    m->urdf = file;
}

/* Drop from d->inertia_missing the links whose JOINT block gave a mass. */
static void murdf_missing(MCtx *m)
{
    ModelDesc *d = m->d;
    char list[sizeof d->inertia_missing];
    size_t len = 0;
    for (int b = 0; b < d->njoints; b++) {
        const char *l = d->joint[b].link, *hit = strstr(d->inertia_missing, l);
        size_t n = strlen(l);
        if (m->mass_given[b] || !hit || (hit[n] != '\0' && hit[n] != ',') ||
            (hit != d->inertia_missing && hit[-1] != ' '))
            continue;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", l);
        if (len >= sizeof list) len = sizeof list - 1;
    }
    list[len] = '\0';
    memcpy(d->inertia_missing, list, sizeof list);
}

/* The index of the numeric PARAM named prefix + suffix with n numbers, or -1. */
static int mparam_find(const ModelDesc *d, const char *prefix, size_t plen, const char *suffix, int n)
{
    for (int i = 0; i < d->nparams; i++) {
        const char *nm = d->param[i].name;
        if (d->param[i].n == n && strncasecmp(nm, prefix, plen) == 0 && strcasecmp(nm + plen, suffix) == 0)
            return i;
    }
    return -1;
}

/* A back-end's rigid body given by PARAMs (the Stewart platform's): `X_inertia = LIST(Ixx, Iyy, Izz, Ixy, Ixz,
 * Iyz)` and `X_mass` pass the joints' body check (model_body_check), at the value that breaks it. */
static void mparam_bodies(MCtx *m)
{
    const ModelDesc *d = m->d;
    ModelDesc *b = calloc(1, sizeof *b);
    if (!b) return;
    for (int i = 0; i < d->nparams; i++) {
        const ModelParam *p = &d->param[i];
        size_t len = strlen(p->name), plen;
        int im = -1, ii = -1;
        if (p->n == 6 && len > 8 && strcasecmp(p->name + (plen = len - 8), "_inertia") == 0)
            ii = i, im = mparam_find(d, p->name, plen, "_mass", 1);
        else if (p->n == 1 && len > 5 && strcasecmp(p->name + (plen = len - 5), "_mass") == 0 &&
                 mparam_find(d, p->name, plen, "_inertia", 6) < 0)
            im = i;
        else
            continue;
        ModelJoint *j = &b->joint[0];
        memset(j, 0, sizeof *j);
        j->mass = im >= 0 ? d->param[im].v[0] : 1.0; /* none given: only the inertia's own rules apply */
        if (ii >= 0) {
            const double *v = d->param[ii].v;
            double I[9] = {v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2]};
            memcpy(j->inertia, I, sizeof I);
        }
        char why[384];
        if (model_body_check(b, 0, why, sizeof why) < 0) {
            int at = strncmp(why, "mass", 4) == 0 && im >= 0 ? im : ii >= 0 ? ii : im;
            merr(m, m->param_at[at], "parameter '%s': %s", d->param[at].name, why);
        }
    }
    free(b);
}

/* A PARAM's value as written: "-8 m", "LIST(0.1, 0.2, ...) m", "DEM". */
static const char *mparam_value(const ModelParam *p, char *buf, size_t n)
{
    size_t len = 0;
    if (p->n == 0) {
        for (; len + 1 < n && len < MODEL_MAX_PARAM_LEN && p->v[len] > 0; len++) buf[len] = (char)p->v[len];
        buf[len] = '\0';
        return buf;
    }
    if (p->n == 1) {
        snprintf(buf, n, "%.6g%s%s", p->v[0], p->unit[0] ? " " : "", p->unit);
        return buf;
    }
    len = (size_t)snprintf(buf, n, "LIST(");
    for (int i = 0; i < p->n && i < 6 && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%.6g", i ? ", " : "", p->v[i]);
    if (len < n) snprintf(buf + len, n - len, "%s)%s%s", p->n > 6 ? ", ..." : "", p->unit[0] ? " " : "", p->unit);
    return buf;
}

/* Open the back-end on the description once, so that a PARAM it refuses ("bad parameter NAME: why") is reported
 * here, at the PARAM with its value and unit, or at the MACHINE line when the PARAM is missing. Other refusals are
 * left to the caller that opens the model (a back-end a plugin brings is not known yet). */
static void mparam_open(MCtx *m, SrcLoc machine_at)
{
    Model *md = calloc(1, sizeof *md);
    char err[512], val[160];
    if (!md || !model_find(m->d->backend) || m->errors) {
        free(md);
        return;
    }
    if (model_open(md, m->d, err, sizeof err) >= 0) {
        model_close(md);
    } else {
        const char *bad = strstr(err, MODEL_PARAM_BAD), *name = bad ? bad + strlen(MODEL_PARAM_BAD) : NULL;
        const char *colon = name ? strchr(name, ':') : NULL;
        if (colon) {
            int pre = (int)(bad - err), len = (int)(colon - name), at = -1;
            for (int i = 0; i < m->d->nparams; i++)
                if ((int)strlen(m->d->param[i].name) == len && strncasecmp(m->d->param[i].name, name, len) == 0)
                    at = i;
            if (at >= 0)
                merr(m, m->param_at[at], "%.*sparameter '%.*s' = %s:%s", pre, err, len, name,
                     mparam_value(&m->d->param[at], val, sizeof val), colon + 1);
            else
                merr(m, machine_at, "%.*sparameter '%.*s' is missing:%s", pre, err, len, name, colon + 1);
        }
    }
    free(md);
}

/* Fill the description from the parsed MACHINE unit. */
static void mfill(MCtx *m, Node *root, const char *path)
{
    ModelDesc *d = m->d;
    mcopy(m, root->loc, d->name, root->name);
    if (mcopy(m, root->loc, d->backend, root->lit.s))
        for (char *c = d->backend; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    snprintf(d->source, sizeof d->source, "%s", path);
    Node *tool_link = NULL;
    for (int i = 0; i < root->list.count; i++) {
        Node *it = root->list.items[i];
        if (it->kind == D_CONST && !it->lit.s && strcasecmp(it->name, "urdf") == 0 && !mrepeat(m, &root->list, i, it))
            murdf(m, it, path);
    }
    for (int i = 0; i < root->list.count; i++)
        if (root->list.items[i]->kind == D_TYPE) {
            Node *blk = root->list.items[i];
            if (strcasecmp(blk->lit.s, "JOINT") == 0)
                mjoint(m, blk);
            else
                merr(m, blk->loc, "unknown block '%s' (a machine file has JOINT blocks)", blk->lit.s);
        }
    for (int i = 0; i < root->list.count; i++) {
        Node *it = root->list.items[i];
        if (it->kind != D_CONST)
            continue;
        if (it->lit.s) {
            mqualified(m, it);
            continue;
        }
        if (mrepeat(m, &root->list, i, it))
            continue;
        if (strcasecmp(it->name, "gravity") == 0)
            mvec3(m, it->a, mdim(1, 0, -2, 0), "gravity", d->gravity);
        else if (strcasecmp(it->name, "tool") == 0)
            mpose(m, it->a, "tool", d->tool_xyz, d->tool_R);
        else if (strcasecmp(it->name, "tool_link") == 0)
            tool_link = it->a;
        else if (strcasecmp(it->name, "urdf") == 0)
            ;
        else
            merr(m, it->loc, "unknown machine property '%s' (urdf, gravity, tool, tool_link, PARAM, OUTPUT, JOINT)",
                 it->name);
    }
    mparam_bodies(m);
    if (m->urdf) /* the links a JOINT block gave a mass are complete now */
        murdf_missing(m);
    const char *nm;
    if (tool_link && mname(m, tool_link, "tool_link", &nm) &&
        (d->tool_link = mjoint_index(d, d->njoints, nm)) < 0)
        merr(m, tool_link->loc, "tool_link '%s' is not a joint of this machine", nm);
    mparam_open(m, root->loc);
}

/* Parse and evaluate the text of a machine file (`file` names it in messages) into *out. */
int machine_load_text(const char *file, const char *text, size_t len, ModelDesc *out, Diag *diag)
{
    model_desc_init(out);
    Arena arena;
    arena_init(&arena);
    file = arena_strdup(&arena, file);
    diag_add_source(diag, file, text, len);
    MCtx m = {.diag = diag, .d = out};
    int nerr;
    Node *root = syntax_parse(&arena, diag, file, text, len, &nerr);
    m.errors += nerr;
    if (root && !(root->flags & SYN_MACHINE)) {
        merr(&m, (SrcLoc){file, 1, 1}, "'%s' is not a machine file: it should start with MACHINE name : backend;",
             file);
        root = NULL;
    }
    if (root)
        mfill(&m, root, file);
    diag_drop_source(diag, file);
    arena_free(&arena);
    return m.errors ? MACHINE_EINVALID : MACHINE_OK;
}

/* Read, parse and evaluate a machine file into *out. */
int machine_load(const char *path, ModelDesc *out, Diag *diag)
{
    model_desc_init(out);
    Arena arena;
    arena_init(&arena);
    size_t len;
    char *text = syntax_read_file(&arena, path, &len);
    if (!text) {
        diag_error(diag, (SrcLoc){0}, "cannot open '%s': %s", path, strerror(errno));
        arena_free(&arena);
        return MACHINE_EIO;
    }
    int rc = machine_load_text(path, text, len, out, diag);
    arena_free(&arena);
    return rc;
}
