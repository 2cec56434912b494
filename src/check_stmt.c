/* check_stmt.c — the checker's statements: assignments, control flow, motion (MOVE, GMOVE and their WITH
 * parameters), I/O, and whether a routine ends with RETURN. */
#include "check_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check_lits.h"
#include "errcodes.h"
#include "units.h"

/* ---- Statements. ------------------------------------------------------------------------------------ */


static void cond(Checker *c, Node *n, const char *what) {
    Type *t = ck_expr(c, n);
    if (!is_err(t) && t->kind != TY_BOOL) ck_error(c, ck_start_loc(n), "%s must be BOOL, got %s", what, TN(t));
}

/* Is this an assignable place? Reports why not. */
static bool lvalue(Checker *c, Node *n) {
    switch (n->kind) {
    case E_NAME:
        if (!n->sym) return false;
        switch (n->sym->kind) {
        case SYM_GLOBAL:
            if (n->sym->type && n->sym->type->kind == TY_EVENT) {
                ck_error(c, n->loc, "%s is an EVENT: it changes only by SIGNAL %s and WAIT %s", n->name, n->name,
                         n->name);
                return false;
            }
            return true;
        case SYM_LOCAL: case SYM_PARAM: case SYM_VARPARAM: return true;
        case SYM_IO: {
            int k = n->sym->decl ? (n->sym->decl->flags & 0xff) : IO_DIN;
            if (k == IO_DOUT || k == IO_AOUT) return true;
            ck_error(c, n->loc, "cannot assign to '%s': it is an input", n->name);
            return false;
        }
        case SYM_CONST: ck_error(c, n->loc, "cannot assign to constant '%s'", n->name); return false;
        default: ck_error(c, n->loc, "cannot assign to '%s'", n->name); return false;
        }
    case E_SYSVAR: {
        const Sysvar *v = ck_find_sysvar(n->name);
        if (v && v->assignable) return true;
        if (v && strcmp(v->name, "ERRNO") == 0) ck_error(c, n->loc, "ERRNO is read-only");
        else ck_error(c, n->loc, "$%s is read-only", v ? v->name : n->name);
        return false;
    }
    case E_FIELD:
    case E_INDEX:
        if (n->a->kind == E_NAME || n->a->kind == E_FIELD || n->a->kind == E_INDEX || n->a->kind == E_SYSVAR)
            return lvalue(c, n->a);
        /* fall through */
    default:
        ck_error(c, n->loc, "cannot assign to this expression");
        return false;
    }
}

static void stmt_for(Checker *c, Node *n) {
    Type *vt = ck_expr(c, n->a);
    if (!is_err(vt)) {
        if (n->a->kind != E_NAME || !ck_is_variable(n->a))
            ck_error(c, ck_start_loc(n->a), "a FOR control variable must be a variable");
        else if (vt->kind != TY_INT)
            ck_error(c, ck_start_loc(n->a), "a FOR control variable must be INT, got %s", TN(vt));
        n->sym = n->a->sym;
    }
    Node *parts[3] = {n->b, n->c, n->d};
    const char *names[3] = {"the FOR start", "the FOR limit", "the FOR step"};
    for (int i = 0; i < 3; i++) {
        if (!parts[i]) continue;
        Type *t = ck_expr(c, parts[i]);
        if (!is_err(t) && t->kind != TY_INT) ck_error(c, ck_start_loc(parts[i]), "%s must be INT, got %s", names[i], TN(t));
    }
    ConstValue v;
    if (n->d && n->d->type && n->d->type->kind == TY_INT && ck_fold(c, n->d, &v) && v.u.i == 0)
        ck_error(c, n->d->loc, "the FOR step must not be 0");
    c->loops++;
    ck_stmts(c, &n->list);
    c->loops--;
}

static void stmt_case(Checker *c, Node *n) {
    Type *t = ck_expr(c, n->a);
    bool sel_ok = !is_err(t);
    if (sel_ok && t->kind != TY_INT) {
        ck_error(c, ck_start_loc(n->a), "a CASE selector must be INT, got %s", TN(t));
        sel_ok = false;
    }
    int nlabels = 0;
    for (int i = 0; i < n->list.count; i++) nlabels += n->list.items[i]->list.count;
    Node **seen = arena_alloc(c->arena, (size_t)(nlabels + 1) * sizeof *seen);
    int nseen = 0;
    for (int i = 0; i < n->list.count; i++) {
        Node *arm = n->list.items[i];
        for (int j = 0; j < arm->list.count; j++) {
            Node *l = arm->list.items[j];
            Type *lt = ck_expr(c, l);
            ConstValue v;
            if (is_err(lt)) continue;
            if (lt->kind != TY_INT || !ck_fold(c, l, &v)) {
                if (lt->kind != TY_INT) ck_error(c, l->loc, "a CASE label must be a constant INT, got %s", TN(lt));
                else ck_error(c, l->loc, "a CASE label must be a constant INT, known at compile time");
                continue;
            }
            Node *lit = ast_node(c->arena, E_INT, l->loc);
            lit->lit.i = v.u.i;
            lit->type = T(TY_INT);
            arm->list.items[j] = lit;
            for (int k = 0; k < nseen; k++)
                if (seen[k]->lit.i == v.u.i) {
                    ck_error(c, l->loc, "duplicate CASE label %lld", (long long)v.u.i);
                    diag_note(c->diag, seen[k]->loc, "%lld first appears here", (long long)v.u.i);
                    goto next;
                }
            seen[nseen++] = lit;
        next:;
        }
        ck_stmts(c, &arm->list2);
    }
    ck_stmts(c, &n->list2);
}

static void stmt_return(Checker *c, Node *n) {
    Node *r = c->routine;
    bool fn = r && (r->flags & NF_FUNCTION);
    if (fn && !n->a) {
        ck_error(c, n->loc, "RETURN in FUNCTION %s needs a value", r->name);
        return;
    }
    if (!fn && n->a) {
        ck_expr(c, n->a);
        if (r) ck_error(c, ck_start_loc(n->a), "PROCEDURE %s cannot return a value", r->name);
        else ck_error(c, ck_start_loc(n->a), "the program body cannot return a value");
        return;
    }
    if (fn) {
        Type *t = ck_expr(c, n->a);
        if (!is_err(t) && r->sym) ck_coerce(c, &n->a, r->sym->type, "the RETURN value");
    }
}

/* Is `name` a WITH parameter allowed here, and which dimension does it take? */
typedef struct WithParam {
    const char *name;
    int8_t e[DIM_COUNT];
    unsigned kinds; /* bit 0 PTP, 1 LIN, 2 CIRC, 3 GMOVE TO, 4 GMOVE HOLD, 5 GMOVE PROFILE */
} WithParam;

enum { W_PTP = 1, W_LIN = 2, W_CIRC = 4, W_GTO = 8, W_GHOLD = 16, W_GPROF = 32 };

static const WithParam with_params[] = {
    {"SPEED", {1, 0, -1, 0}, W_LIN | W_CIRC},
    {"SPEED_ORI", {0, 0, -1, 1}, W_LIN | W_CIRC},
    {"SPEED_PTP", {0, 0, 0, 0}, W_PTP},
    {"ACC", {1, 0, -2, 0}, W_LIN | W_CIRC},
    {"ACC_PTP", {0, 0, 0, 0}, W_PTP},
    {"TIME", {0, 0, 1, 0}, W_PTP | W_LIN | W_CIRC},
    {"APPROX", {1, 0, 0, 0}, W_LIN | W_CIRC},
    {"APPROX_PTP", {0, 0, 0, 0}, W_PTP},
    {"ONSET", {1, 0, -3, 0}, W_GTO | W_GPROF},
    {"HOLD", {0, 0, 1, 0}, W_GTO},
    {"JERK", {1, 0, -4, 0}, W_GTO | W_GPROF},
    {"INTERP", {0, 0, 0, 0}, W_GPROF}, /* LINEAR | CSPLINE, compiled as the REAL 0 | 1 (opcodes.h MP_INTERP) */
    {"CONFIG", {0, 0, 0, 0}, W_PTP},   /* the arm configuration bits (docs/MODELS.md), an INT 0..7 */
    {"TURN", {0, 0, 0, 0}, W_PTP},     /* bit i: joint i + 1 negative */
};

/* INTERP := LINEAR | CSPLINE: a keyword-like name, not an expression; rewrite it into the literal 0 or 1. */
static bool with_interp(Checker *c, Node *w) {
    if (!w->a || w->a->kind != E_NAME || !w->a->name ||
        (strcasecmp(w->a->name, "LINEAR") != 0 && strcasecmp(w->a->name, "CSPLINE") != 0)) {
        ck_error(c, w->a ? ck_start_loc(w->a) : w->loc, "WITH INTERP: expected LINEAR or CSPLINE");
        return false;
    }
    w->a->lit.r = strcasecmp(w->a->name, "CSPLINE") == 0 ? 1.0 : 0.0;
    w->a->kind = E_REAL;
    w->a->flags &= ~NF_HAS_UNIT;
    w->a->type = ck_real_type(c, dim_none());
    return true;
}

static void with_list(Checker *c, Node *n, unsigned kind, const char *stmt) {
    for (int i = 0; i < n->list.count; i++) {
        Node *w = n->list.items[i];
        const WithParam *p = NULL;
        for (size_t j = 0; j < sizeof with_params / sizeof with_params[0]; j++)
            if (strcasecmp(with_params[j].name, w->name) == 0) p = &with_params[j];
        if (p && strcasecmp(p->name, "INTERP") == 0) {
            if ((p->kinds & kind) && !with_interp(c, w)) continue;
        } else if (w->a) {
            ck_expr(c, w->a);
        }
        if (!p) {
            ck_error(c, w->loc, "unknown WITH parameter '%s'", w->name);
            continue;
        }
        if (!(p->kinds & kind)) {
            ck_error(c, w->loc, "%s does not apply to %s", p->name, stmt);
            continue;
        }
        for (int j = 0; j < i; j++)
            if (strcasecmp(n->list.items[j]->name, w->name) == 0) {
                ck_error(c, w->loc, "WITH parameter %s is given twice", p->name);
                diag_note(c->diag, n->list.items[j]->loc, "first given here");
                goto next;
            }
        if (w->a && strstr(p->name, "_PTP")) { /* SPEED_PTP, ACC_PTP, APPROX_PTP */
            char what[32];
            snprintf(what, sizeof what, "WITH %s", p->name);
            lits_percent(c->diag, w->a, what);
        }
        if (w->a && !is_err(w->a->type)) {
            Dim d = dim_none();
            memcpy(d.e, p->e, sizeof d.e);
            char what[64];
            snprintf(what, sizeof what, "WITH %s", p->name);
            if (!is_num(w->a->type))
                ck_error(c, ck_start_loc(w->a), "%s: expected %s, got %s", what, DD(d), TN(w->a->type));
            else
                ck_coerce(c, &w->a, ck_real_type(c, d), what);
        }
    next:;
    }
}

/* The device named by a motion statement (or the only one declared). */
static void device_of(Checker *c, Node *n, const char *stmt) {
    if (!n->a) {
        if (c->ndevices > 1) ck_error(c, n->loc, "%s must name its DEVICE: the program declares %d", stmt, c->ndevices);
        return;
    }
    Symbol *s = n->a->kind == E_NAME ? ck_lookup(c, n->a->name) : NULL;
    if (!s) {
        ck_echo_error(c, CHECK_HOLE_DECL, n->a->loc, "unknown device '%s'", n->a->name ? n->a->name : "?");
        n->a->type = T(TY_ERROR);
        return;
    }
    n->a->sym = s;
    n->a->type = s->type;
    if (s->kind != SYM_DEVICE) ck_error(c, n->a->loc, "'%s' is not a DEVICE", n->a->name);
}

static void stmt_move(Checker *c, Node *n) {
    int mk = n->flags & 0xff;
    if (mk == MOVE_SPLINE) {   /* trajectories as data: WITH as a PTP (JOINT points) or a LIN */
        device_of(c, n, "MOVE SPLINE");
        c->move_dev = n->a && n->a->sym && n->a->sym->kind == SYM_DEVICE ? n->a->sym->index : -1;
        bool joint = ck_spline_points(c, n);
        c->move_dev = -1;
        with_list(c, n, joint ? W_PTP : W_LIN, "MOVE SPLINE");
        return;
    }
    if (mk == MOVE_FOLLOW) {
        device_of(c, n, "MOVE FOLLOW");
        ck_stmt_follow(c, n);
        return;
    }
    const char *stmt = mk == MOVE_PTP ? "MOVE PTP" : mk == MOVE_LIN ? "MOVE LIN" : "MOVE CIRC";
    device_of(c, n, stmt);
    c->move_dev = n->a && n->a->sym && n->a->sym->kind == SYM_DEVICE ? n->a->sym->index : -1;
    Node *targets[2] = {n->c, n->b};
    for (int i = 0; i < 2; i++) {
        Node *t = targets[i];
        if (!t) continue;
        Type *tt = ck_expr(c, t);
        if (is_err(tt)) continue;
        if (mk == MOVE_PTP && tt->kind != TY_JOINT && tt->kind != TY_POSE)
            ck_error(c, ck_start_loc(t), "%s needs a JOINT or POSE target, got %s", stmt, TN(tt));
        else if (mk != MOVE_PTP && tt->kind != TY_POSE && tt->kind != TY_POSITION)
            ck_error(c, ck_start_loc(t), "%s needs a POSE or POSITION %s, got %s", stmt, t == n->c ? "via point" : "target",
                  TN(tt));
    }
    c->move_dev = -1;
    with_list(c, n, mk == MOVE_PTP ? W_PTP : mk == MOVE_LIN ? W_LIN : W_CIRC, stmt);
}

/* GMOVE PROFILE table: ARRAY [n] OF RECORD t : REAL [s]; g : REAL [G] ENDRECORD (time, acceleration). */
static void profile_table(Checker *c, Node *e) {
    Type *t = ck_expr(c, e);
    if (is_err(t)) return;
    Type *r = t->kind == TY_ARRAY ? t->elem : NULL;
    bool ok = r && r->kind == TY_RECORD && r->nfields == 2 && r->fields[0].type->kind == TY_REAL &&
              r->fields[1].type->kind == TY_REAL && dim_eq(r->fields[0].type->dim, dim_time()) &&
              dim_eq(r->fields[1].type->dim, dim_accel());
    if (!ok)
        ck_error(c, ck_start_loc(e), "GMOVE PROFILE needs an ARRAY of a RECORD with a time and an acceleration "
              "(t : REAL [s]; g : REAL [G]), got %s", TN(t));
}

static void stmt_gmove(Checker *c, Node *n) {
    int gk = n->flags & 0xff;
    const char *stmt = gk == GMOVE_TO ? "GMOVE TO" : gk == GMOVE_HOLD ? "GMOVE HOLD" : "GMOVE PROFILE";
    device_of(c, n, stmt);
    if (gk == GMOVE_PROFILE) profile_table(c, n->b);
    else ck_want_real(c, &n->b, gk == GMOVE_TO ? dim_accel() : dim_time(), stmt);
    with_list(c, n, gk == GMOVE_TO ? W_GTO : gk == GMOVE_HOLD ? W_GHOLD : W_GPROF, stmt);
}

static void stmt_pulse(Checker *c, Node *n) {
    Symbol *s = n->a && n->a->kind == E_NAME ? ck_lookup(c, n->a->name) : NULL;
    if (!s) {
        ck_echo_error(c, CHECK_HOLE_DECL, n->a->loc, "unknown I/O point '%s'", n->a->name ? n->a->name : "?");
    } else {
        n->a->sym = s;
        n->a->type = s->type;
        if (s->kind != SYM_IO || (s->decl->flags & 0xff) != IO_DOUT)
            ck_error(c, n->a->loc, "PULSE needs a digital output (IO %s : DOUT n), not '%s'", n->a->name, n->a->name);
    }
    ck_want_real(c, &n->b, dim_time(), "the PULSE duration");
}

/* ---- Tasks, events, interrupts. ---- */

/* The name operand of SIGNAL (want TY_EVENT), START (TY_VOID: a TASK), ENABLE/DISABLE (TY_ERROR: an INTERRUPT),
 * BRAKE (TY_DEVICE): resolved, or an error saying what the statement needs. */
static void named(Checker *c, Node *n, TypeKind want, const char *needs) {
    Node *e = n->a;
    Symbol *s = ck_lookup(c, e->name);
    if (!s) {
        ck_echo_error(c, CHECK_HOLE_DECL, e->loc, "unknown name '%s': %s", e->name, needs);
        e->type = T(TY_ERROR);
        return;
    }
    e->sym = s;
    e->type = s->type;
    bool ok = want == TY_VOID    ? s->kind == SYM_ROUTINE && (s->decl->flags & NF_TASK)
              : want == TY_ERROR ? s->kind == SYM_INTERRUPT
              : want == TY_DEVICE ? s->kind == SYM_DEVICE
                                 : s->kind == SYM_GLOBAL && s->type && s->type->kind == TY_EVENT;
    if (!ok) ck_error(c, e->loc, "%s, '%s' is not one", needs, e->name);
}

/* WAIT ev [TIMEOUT t] when the operand is an EVENT (flags NF_EVENT); false when it is not one (a time). */
static bool wait_event(Checker *c, Node *n) {
    Node *e = n->a;
    Symbol *s = e->kind == E_NAME ? ck_lookup(c, e->name) : NULL;
    if (!s || s->kind != SYM_GLOBAL || !s->type || s->type->kind != TY_EVENT) return false;
    e->sym = s;
    e->type = s->type;
    n->flags |= NF_EVENT;
    if (n->b) {
        Type *t = ck_expr(c, n->b);
        if (t->kind == TY_EVENT)
            ck_error(c, ck_start_loc(n->b), "an EVENT waited on with an EVENT as its TIMEOUT: the TIMEOUT is a time "
                     "[s]");
        else ck_want_real(c, &n->b, dim_time(), "the WAIT timeout");
    }
    return true;
}

void ck_interrupt(Checker *c, Node *d) {
    cond(c, d->a, "an INTERRUPT condition");
    if (d->b) {
        ConstValue v;
        Type *t = ck_expr(c, d->b);
        if (!is_err(t) && (t->kind != TY_INT || !ck_fold(c, d->b, &v) || v.u.i < 0 || v.u.i > 65535))
            ck_error(c, ck_start_loc(d->b), "an INTERRUPT PRIORITY is a constant INT from 0 to 65535");
    }
    Node *h = d->c;
    Symbol *s = ck_lookup(c, h->name);
    h->sym = s;
    if (!s) ck_echo_error(c, CHECK_HOLE_DECL, h->loc, "unknown procedure '%s' (the INTERRUPT's handler)", h->name);
    else if (s->kind != SYM_ROUTINE || (s->decl->flags & (NF_FUNCTION | NF_TASK)) || s->decl->list.count)
        ck_error(c, h->loc, "an INTERRUPT's handler is a PROCEDURE without parameters, '%s' is not one", h->name);
}

static void stmt(Checker *c, Node *n) {
    switch (n->kind) {
    case S_ASSIGN: {
        Type *t = ck_expr(c, n->a);
        Type *v = ck_expr(c, n->b);
        if (is_err(t) || is_err(v) || !lvalue(c, n->a)) return;
        if (n->a->kind == E_SYSVAR && strstr(n->a->name, "_PTP")) {
            char what[32];
            snprintf(what, sizeof what, "$%s", n->a->name);
            lits_percent(c->diag, n->b, what);
        }
        ck_coerce(c, &n->b, t, "assignment");
        return;
    }
    case S_CALL:
        if (n->a->kind == E_NAME) n->a->kind = E_CALL;
        ck_call(c, n->a, true);
        return;
    case S_IF:
        for (int i = 0; i < n->list.count; i++) {
            cond(c, n->list.items[i]->a, "an IF condition");
            ck_stmts(c, &n->list.items[i]->list);
        }
        ck_stmts(c, &n->list2);
        return;
    case S_WHILE:
    case S_REPEAT:
        if (n->kind == S_WHILE) cond(c, n->a, "a WHILE condition");
        c->loops++;
        ck_stmts(c, &n->list);
        c->loops--;
        if (n->kind == S_REPEAT) cond(c, n->a, "an UNTIL condition");
        return;
    case S_LOOP:
        c->loops++;
        ck_stmts(c, &n->list);
        c->loops--;
        return;
    case S_FOR: stmt_for(c, n); return;
    case S_CASE: stmt_case(c, n); return;
    case S_EXIT:
        if (!c->loops) ck_echo_error(c, CHECK_HOLE_STMT, n->loc, "EXIT outside a loop");
        return;
    case S_RETURN: stmt_return(c, n); return;
    case S_HALT: return;
    case S_PRINT:
        for (int i = 0; i < n->list.count; i++) {
            Type *t = ck_expr(c, n->list.items[i]);
            if (t->kind == TY_VOID || t->kind == TY_DEVICE || t->kind == TY_IO || t->kind == TY_EVENT)
                ck_error(c, ck_start_loc(n->list.items[i]), "cannot PRINT %s", TN(t));
        }
        return;
    case S_RAISE:
        if (!n->a) {
            if (!c->in_handler) ck_echo_error(c, CHECK_HOLE_STMT, n->loc, "RAISE without a code re-raises ERRNO: only inside ON ERROR");
            return;
        } else {
            Type *t = ck_expr(c, n->a);
            if (!is_err(t) && t->kind != TY_INT) ck_error(c, ck_start_loc(n->a), "a RAISE code must be INT, got %s", TN(t));
        }
        return;
    case S_RETRY:
    case S_SKIP:
        if (!c->in_handler) ck_echo_error(c, CHECK_HOLE_STMT, n->loc, "%s only inside ON ERROR", n->kind == S_RETRY ? "RETRY" : "SKIP");
        return;
    case S_MOVE: stmt_move(c, n); return;
    case S_GMOVE: stmt_gmove(c, n); return;
    case S_WAIT: {
        if (wait_event(c, n)) return;
        ConstValue v;
        if (ck_want_real(c, &n->a, dim_time(), "the WAIT duration") && ck_fold(c, n->a, &v) && v.kind == TY_REAL &&
            !(v.u.r >= 0 && isfinite(v.u.r)))
            ck_error(c, ck_start_loc(n->a), "WAIT for %g s: a wait is finite and >= 0", v.u.r);
        if (n->b)
            ck_error(c, ck_start_loc(n->b), "a WAIT for a time has no TIMEOUT (TIMEOUT belongs to WAIT on an EVENT "
                     "and to WAIT FOR a condition)");
        return;
    }
    case S_WAIT_FOR: {
        Type *t = ck_expr(c, n->a);
        if (t->kind == TY_EVENT)
            ck_error(c, ck_start_loc(n->a), "%s is an EVENT: wait on it with WAIT %s, not WAIT FOR (which waits for a "
                     "BOOL condition)", n->a->name ? n->a->name : "the operand", n->a->name ? n->a->name : "ev");
        else if (!is_err(t) && t->kind != TY_BOOL)
            ck_error(c, ck_start_loc(n->a), "a WAIT FOR condition must be BOOL, got %s", TN(t));
        if (n->b) ck_want_real(c, &n->b, dim_time(), "the WAIT FOR timeout");
        return;
    }
    case S_PULSE: stmt_pulse(c, n); return;
    /* tasks, events, interrupts */
    case S_SIGNAL: named(c, n, TY_EVENT, "SIGNAL needs an EVENT"); return;
    case S_START: named(c, n, TY_VOID, "START needs a TASK"); return;
    case S_ENABLE: named(c, n, TY_ERROR, "ENABLE needs an INTERRUPT"); return;
    case S_DISABLE: named(c, n, TY_ERROR, "DISABLE needs an INTERRUPT"); return;
    case S_BRAKE: named(c, n, TY_DEVICE, "BRAKE needs a DEVICE"); return;
    case S_TRIGGER: ck_trigger(c, n); return;
    default:
        ck_error(c, n->loc, "unexpected %s in a statement list", ast_kind_name(n->kind));
        return;
    }
}

void ck_stmts(Checker *c, NodeList *l) {
    for (int i = 0; i < l->count; i++) stmt(c, l->items[i]);
}

/* ---- Flow: can a statement list end without RETURN? ------------------------------------------------- */

static bool has_exit(NodeList *l);

/* Does n contain an EXIT that leaves the loop around it (not one of a nested loop)? */
static bool node_has_exit(Node *n) {
    switch (n->kind) {
    case S_EXIT: return true;
    case S_IF:
        for (int i = 0; i < n->list.count; i++)
            if (has_exit(&n->list.items[i]->list)) return true;
        return has_exit(&n->list2);
    case S_CASE:
        for (int i = 0; i < n->list.count; i++)
            if (has_exit(&n->list.items[i]->list2)) return true;
        return has_exit(&n->list2);
    default: return false; /* loops: their EXITs are their own */
    }
}

static bool has_exit(NodeList *l) {
    for (int i = 0; i < l->count; i++)
        if (node_has_exit(l->items[i])) return true;
    return false;
}


/* Control never goes past n (RETURN, RAISE, HALT, RETRY, SKIP, or compounds all of whose ways do). */
static bool node_ends(Node *n) {
    switch (n->kind) {
    case S_RETURN: case S_RAISE: case S_HALT: case S_RETRY: case S_SKIP: return true;
    case S_IF:
        if (!n->list2.count) return false;
        for (int i = 0; i < n->list.count; i++)
            if (!ck_ends(&n->list.items[i]->list)) return false;
        return ck_ends(&n->list2);
    case S_CASE:
        if (!n->list2.count) return false;
        for (int i = 0; i < n->list.count; i++)
            if (!ck_ends(&n->list.items[i]->list2)) return false;
        return ck_ends(&n->list2);
    case S_LOOP: return !has_exit(&n->list);
    default: return false;
    }
}

bool ck_ends(NodeList *l) {
    for (int i = 0; i < l->count; i++)
        if (node_ends(l->items[i])) return true;
    return false;
}

