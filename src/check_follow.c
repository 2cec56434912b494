/* check_follow.c — the checker's rules for MOVE FOLLOW (docs/LANGUAGE.md, "MOVE FOLLOW"): a time-stamped joint
 * table (an ARRAY of RECORD t : REAL [s]; q : JOINT), a CSV file named by a STRING, or a FUNCTION of time with
 * FOR and a duration, returning a RECORD of three arrays (position, speed, acceleration, one value per axis). */
#include <stdio.h>
#include <string.h>

#include "check_internal.h"
#include "units.h"

/* The table's element: RECORD of a REAL [s] and a JOINT, in that order (any names). */
static bool is_follow_table(const Type *t)
{
    const Type *r = t->kind == TY_ARRAY ? t->elem : NULL;
    return r && r->kind == TY_RECORD && r->nfields == 2 && r->fields[0].type->kind == TY_REAL &&
           dim_eq(r->fields[0].type->dim, dim_time()) && r->fields[1].type->kind == TY_JOINT;
}

/* Field k of the function form's result: an ARRAY of REAL in the unit of the position (rad or m) over s^k, with
 * the length of field 0. */
static bool state_field(const Type *r, int k)
{
    const Type *a = r->fields[k].type, *e = a->kind == TY_ARRAY ? a->elem : NULL;
    if (!e || e->kind != TY_REAL || a->length != r->fields[0].type->length) return false;
    Dim s = dim_pow(dim_time(), k);
    return dim_eq(e->dim, dim_div(dim_angle(), s)) || dim_eq(e->dim, dim_div(dim_length(), s));
}

/* The function form's result: RECORD q : ARRAY [n] OF REAL [rad]; qd : ... [rad/s]; qdd : ... [rad/s^2]
 * ENDRECORD (any names; m, m/s, m/s^2 for a machine of lengths). */
static bool is_follow_state(const Type *t)
{
    return t->kind == TY_RECORD && t->nfields == 3 && state_field(t, 0) && state_field(t, 1) && state_field(t, 2);
}

/* The FUNCTION named by e, or NULL. */
static Symbol *function_named(Checker *c, Node *e)
{
    Symbol *s = e && e->kind == E_NAME && e->name ? ck_lookup(c, e->name) : NULL;
    return s && s->kind == SYM_ROUTINE && s->decl && (s->decl->flags & NF_FUNCTION) ? s : NULL;
}

/* MOVE FOLLOW f FOR T: f(t : REAL [s]) : RECORD q, qd, qdd : JOINT ENDRECORD. */
static void follow_function(Checker *c, Node *n, Symbol *s)
{
    Node *r = s->decl, *p = r->list.count == 1 ? r->list.items[0] : NULL;
    if (!p || (p->flags & NF_VARPARAM) || !p->type || p->type->kind != TY_REAL || !dim_eq(p->type->dim, dim_time()))
        ck_error(c, n->b->loc, "MOVE FOLLOW %s FOR ...: the FUNCTION must take one value parameter, the time "
                 "(t : REAL [s])", s->name);
    else if (!is_err(s->type) && !is_follow_state(s->type))
        ck_error(c, n->b->loc, "MOVE FOLLOW %s FOR ...: the FUNCTION must return a RECORD of position, speed and "
                 "acceleration, three ARRAYs of one length OF REAL [rad], [rad/s], [rad/s^2] (or m, m/s, m/s^2), got "
                 "%s", s->name, TN(s->type));
    else if (!is_err(s->type)) { /* against the axes of the device, when its machine file was read */
        int dv = n->a && n->a->sym && n->a->sym->kind == SYM_DEVICE ? n->a->sym->index : c->ndevices == 1 ? 0 : -1;
        int len = s->type->fields[0].type->length;
        if (dv >= 0 && dv < CHECK_MAX_DESC && c->dev_desc[dv] && c->dev_desc[dv]->njoints != len)
            ck_error(c, n->b->loc, "MOVE FOLLOW %s FOR ...: the FUNCTION gives %d axes, device %s has %d", s->name, len,
                     c->dev_name[dv], c->dev_desc[dv]->njoints);
    }
    n->b->sym = s;
    n->b->type = s->type;
    ck_want_real(c, &n->c, dim_time(), "the duration of MOVE FOLLOW");
}

void ck_stmt_follow(Checker *c, Node *n)
{
    if (n->flags & NF_INC) ck_error(c, n->loc, "MOVE_INC FOLLOW: a FOLLOW is not relative; write MOVE FOLLOW");
    if (n->list.count > 0)
        ck_error(c, n->list.items[0]->loc, "MOVE FOLLOW takes no WITH parameters: the table's times are its timing");
    Symbol *fn = function_named(c, n->b);
    if (n->c) {
        if (fn) {
            follow_function(c, n, fn);
            return;
        }
        Type *t = ck_expr(c, n->b);
        if (!is_err(t))
            ck_error(c, ck_start_loc(n->b), "MOVE FOLLOW ... FOR: FOR gives the duration of a FUNCTION of time; %s "
                     "is not a FUNCTION", TN(t));
        ck_want_real(c, &n->c, dim_time(), "the duration of MOVE FOLLOW");
        return;
    }
    if (fn && fn->decl->list.count > 0) {
        ck_error(c, n->b->loc, "MOVE FOLLOW %s: a FUNCTION of time needs FOR and the duration to follow it "
                 "(MOVE FOLLOW %s FOR 10 s)", fn->name, fn->name);
        return;
    }
    Type *t = ck_expr(c, n->b);
    if (!is_err(t) && is_follow_table(t) && t->length < 3)
        ck_error(c, ck_start_loc(n->b), "MOVE FOLLOW: a table needs at least 3 samples for its cubic spline, the "
                 "ARRAY has %d", t->length);
    if (is_err(t) || t->kind == TY_STRING || is_follow_table(t)) return;
    ck_error(c, ck_start_loc(n->b), "MOVE FOLLOW needs a table (an ARRAY of RECORD t : REAL [s]; q : JOINT "
             "ENDRECORD), a CSV file name (a STRING) or a FUNCTION of time with FOR, got %s", TN(t));
}
