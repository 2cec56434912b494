/* check_trigger.c — the checks of path-triggered I/O and of trajectories given as data: TRIGGER (its distance,
 * DELAY and assignment, and that a MOVE of its device can follow it) and the points of MOVE SPLINE. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "check_internal.h"
#include "units.h"

/* ---- TRIGGER [dev] AT d (FROM START | BEFORE END) [DELAY t] DO target := value ----------------------- */

/* The symbol a designator (name, field, index) is rooted at, or NULL. */
static Symbol *root_of(Node *n)
{
    while (n && (n->kind == E_FIELD || n->kind == E_INDEX)) n = n->a;
    return n && n->kind == E_NAME ? n->sym : NULL;
}

/* The assignment a trigger makes later, in a cycle of the motion: to an output, or to a BOOL, INT or REAL
 * variable that lives as long as the program (a program-level VAR or a part of one). */
static void trigger_assign(Checker *c, Node *as)
{
    Type *t = ck_expr(c, as->a);
    Type *v = ck_expr(c, as->b);
    if (is_err(t) || is_err(v)) return;
    Symbol *s = root_of(as->a);
    bool io = as->a->kind == E_NAME && s && s->kind == SYM_IO;
    if (io) {
        int k = s->decl ? (s->decl->flags & 0xff) : IO_DIN;
        if (k != IO_DOUT && k != IO_AOUT) {
            ck_error(c, as->a->loc, "a TRIGGER sets an output or a variable; '%s' is an input", as->a->name);
            return;
        }
    } else if (!s || s->kind != SYM_GLOBAL) {
        ck_error(c, ck_start_loc(as->a), "a TRIGGER assigns to an output or a program-level VAR (it runs after "
                 "the routine may have returned), not to this");
        return;
    } else if (t->kind != TY_BOOL && t->kind != TY_INT && t->kind != TY_REAL) {
        ck_error(c, ck_start_loc(as->a), "a TRIGGER assigns a BOOL, INT or REAL, not %s", TN(t));
        return;
    }
    ck_coerce(c, &as->b, t, "the TRIGGER's assignment");
}

void ck_trigger(Checker *c, Node *n)
{
    if (n->a) {
        Symbol *s = n->a->kind == E_NAME ? ck_lookup(c, n->a->name) : NULL;
        if (!s) {
            ck_echo_error(c, CHECK_HOLE_DECL, n->a->loc, "unknown device '%s'", n->a->name ? n->a->name : "?");
            n->a->type = T(TY_ERROR);
        } else {
            n->a->sym = s;
            n->a->type = s->type;
            if (s->kind != SYM_DEVICE) ck_error(c, n->a->loc, "'%s' is not a DEVICE", n->a->name);
        }
    } else if (c->ndevices != 1) {
        ck_error(c, n->loc, "TRIGGER must name its DEVICE: the program declares %d", c->ndevices);
    }
    /* d: a path length (LIN, CIRC, SPLINE) or a percentage of the motion (PTP); a bare 0 is both */
    Type *t = ck_expr(c, n->b);
    if (!is_err(t)) {
        ConstValue v;
        bool zero = ck_fold(c, n->b, &v) && ((v.kind == TY_INT && v.u.i == 0) || (v.kind == TY_REAL && v.u.r == 0));
        if (!is_num(t)) {
            ck_error(c, ck_start_loc(n->b), "the TRIGGER's distance: expected a length or a percentage, got %s", TN(t));
        } else if (t->kind == TY_REAL && dim_eq(t->dim, dim_length()) && !t->dim.any) {
            ck_coerce(c, &n->b, ck_real_type(c, dim_length()), "the TRIGGER's distance");
        } else if (zero || (t->kind == TY_REAL && dim_is_none(t->dim) && !t->dim.any)) {
            ck_coerce(c, &n->b, ck_real_type(c, dim_none()), "the TRIGGER's distance");
        } else {
            ck_error(c, ck_start_loc(n->b), "the TRIGGER's distance: expected a length (mm, m) for LIN, CIRC and "
                     "SPLINE or a percentage (%%) for PTP, got %s", TN(t));
        }
    }
    if (n->c) ck_want_real(c, &n->c, dim_time(), "the TRIGGER's DELAY");
    trigger_assign(c, n->d);
}

/* ---- A MOVE of the trigger's device after it ----------------------------------------------------------- */

/* The device index a TRIGGER or MOVE names (-1: none named, the program's only one). */
static int dev_of(const Node *n)
{
    return n->a && n->a->sym && n->a->sym->kind == SYM_DEVICE ? n->a->sym->index : -1;
}

#define ALL_DEVICES (~(uint64_t)0)

/* The devices running n might move, one bit each (a MOVE naming none, a device beyond 63, or a call of a user
 * routine, which may move any: all bits). */
static uint64_t moves_of(const Node *n)
{
    if (!n || n->kind == S_TRIGGER) return 0;   /* a TRIGGER's own assignment runs in the cycle */
    uint64_t m = 0;
    if (n->kind == S_MOVE) {
        int d = dev_of(n);
        m |= d >= 0 && d < 64 ? (uint64_t)1 << d : ALL_DEVICES;
    }
    if (n->kind == E_CALL && n->sym) return ALL_DEVICES;
    const Node *kids[4] = {n->a, n->b, n->c, n->d};
    for (int i = 0; i < 4; i++) m |= moves_of(kids[i]);
    for (int i = 0; i < n->list.count; i++) m |= moves_of(n->list.items[i]);
    for (int i = 0; i < n->list2.count; i++) m |= moves_of(n->list2.items[i]);
    return m;
}

static void follow_list(Checker *c, const NodeList *l, uint64_t after);

/* The statement lists inside a compound statement n, each checked with `after` (the devices a MOVE after them
 * may move). */
static void follow_inside(Checker *c, const Node *n, uint64_t after)
{
    switch (n->kind) {
    case S_IF:
        for (int i = 0; i < n->list.count; i++) follow_list(c, &n->list.items[i]->list, after);
        follow_list(c, &n->list2, after);
        return;
    case S_CASE:
        for (int i = 0; i < n->list.count; i++) follow_list(c, &n->list.items[i]->list2, after);
        follow_list(c, &n->list2, after);
        return;
    case S_WHILE: case S_REPEAT: case S_LOOP: case S_FOR: follow_list(c, &n->list, after); return;
    default: return;
    }
}

/* Every TRIGGER in l must have a MOVE of its device that can run after it: later in l, after l (`after`), or
 * anywhere in a loop around it (its next pass). What it reports is proven: nothing after the TRIGGER can move
 * that device. */
static void follow_list(Checker *c, const NodeList *l, uint64_t after)
{
    for (int i = 0; i < l->count; i++) {
        const Node *n = l->items[i];
        if (!n) continue;
        bool loop = n->kind == S_WHILE || n->kind == S_REPEAT || n->kind == S_LOOP || n->kind == S_FOR;
        if (n->kind != S_TRIGGER && !loop && n->kind != S_IF && n->kind != S_CASE) continue;
        uint64_t later = after;
        for (int j = i + 1; j < l->count; j++) later |= moves_of(l->items[j]);
        if (n->kind == S_TRIGGER) {
            int d = dev_of(n);
            uint64_t need = d >= 0 && d < 64 ? (uint64_t)1 << d : ALL_DEVICES;
            if (!(later & need))
                ck_error(c, n->loc, "TRIGGER with no MOVE%s%s after it: it binds to the next MOVE of its device",
                         n->a ? " of " : "", n->a ? n->a->name : "");
            continue;
        }
        follow_inside(c, n, later | (loop ? moves_of(n) : 0));
    }
}

void ck_triggers_follow(Checker *c, const NodeList *body)
{
    if (!(c->holes & CHECK_HOLE_STMT)) follow_list(c, body, 0);   /* a dropped statement may have been the MOVE */
}

/* ---- MOVE [dev] SPLINE p1, p2, ... ---------------------------------------------------------------------- */

bool ck_spline_points(Checker *c, Node *n)
{
    TypeKind first = TY_ERROR;
    if (n->list2.count > CHECK_SPLINE_MAX)
        ck_error(c, n->loc, "MOVE SPLINE through %d points: at most %d", n->list2.count, CHECK_SPLINE_MAX);
    if (n->flags & NF_INC) ck_error(c, n->loc, "MOVE_INC SPLINE: a SPLINE's points are absolute (use MOVE SPLINE)");
    for (int i = 0; i < n->list2.count; i++) {
        Node *p = n->list2.items[i];
        Type *t = ck_expr(c, p);
        if (is_err(t)) continue;
        if (t->kind != TY_JOINT && t->kind != TY_POSE && t->kind != TY_POSITION) {
            ck_error(c, ck_start_loc(p), "MOVE SPLINE needs POSITION, POSE or JOINT points, got %s", TN(t));
            continue;
        }
        if (first == TY_ERROR) first = t->kind;
        else if (t->kind != first)
            ck_error(c, ck_start_loc(p), "MOVE SPLINE: every point has the type of the first (%s), got %s",
                     first == TY_JOINT ? "JOINT" : first == TY_POSE ? "POSE" : "POSITION", TN(t));
    }
    if (n->list2.count == 0) ck_error(c, n->loc, "MOVE SPLINE needs at least one point");
    for (int i = 0; i < n->list.count; i++) {
        const char *w = n->list.items[i]->name;
        if (w && (!strcasecmp(w, "APPROX") || !strcasecmp(w, "APPROX_PTP") || !strcasecmp(w, "CONFIG") ||
                  !strcasecmp(w, "TURN")))
            ck_error(c, n->list.items[i]->loc, "%s does not apply to MOVE SPLINE (it starts and ends at rest)",
                     w);
    }
    return first == TY_JOINT;
}
