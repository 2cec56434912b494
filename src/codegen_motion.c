/* codegen_motion.c — the code generator's statements through the motion door (opcodes.h, MOTION_HDR): MOVE in all
 * its forms (SPLINE, FOLLOW), GMOVE, WAIT, WAIT FOR, PULSE, TRIGGER, the $TIME sync; and tasks' SIGNAL / WAIT on
 * events, BRAKE, ENABLE / DISABLE of interrupts. */
#include "codegen_internal.h"

#include <stdbool.h>
#include <strings.h>

#include "units.h"

/* The chunk's index of the device a motion statement names (-1: none named, the program's only device). */
static int device_index(Gen *g, Node *dev)
{
    if (!dev || !dev->name) return -1;
    for (int i = 0; i < g->c->ndevices; i++)
        if (strcasecmp(g->c->kstr[g->c->devices[i].name].text, dev->name) == 0) return i;
    return -1;
}

/* The IO point index of a name (-1 if unknown; the checker has rejected that already). */
static int io_index(Gen *g, Node *io)
{
    if (!io || !io->name) return -1;
    for (int i = 0; i < g->c->nios; i++)
        if (strcasecmp(g->c->kstr[g->c->ios[i].name].text, io->name) == 0) return i;
    return -1;
}

static int opnd_shape(Node *e)
{
    if (!e || !e->type) return MOTION_OPND_NONE;
    return e->type->kind == TY_JOINT ? MOTION_OPND_JOINT
           : e->type->kind == TY_POSE ? MOTION_OPND_POSE
           : e->type->kind == TY_POSITION ? MOTION_OPND_POSITION : MOTION_OPND_NONE;
}

/* MOVE FOLLOW f FOR T: a loop around the door (opcodes.h): the door names the time, the code calls f there. */
static void stmt_follow_fn(Gen *g, Node *s)
{
    int total = MOTION_HDR + 3 + nslots_of(s->b->type), r = cg_alloc_regs(g, total), op = r + MOTION_HDR;
    cg_expr_to(g, s->c, op);
    at(g, s->loc);
    emit_abx(g, OP_LOADI, op + 2, (uint32_t)-1); /* state: not started */
    emit_abx(g, OP_LOADI, r + 1, (uint32_t)device_index(g, s->a));
    emit_abx(g, OP_LOADI, r + 2, (uint32_t)(nslots_of(s->b->type) / 3)); /* axes */
    emit_abx(g, OP_LOADI, r + 3, 0);
    int top = here(g);
    emit_abx(g, OP_LOADI, r, (uint32_t)(here(g) + 1)); /* the pc of the MOTION below */
    emit_abc(g, OP_MOTION, r, MK_MOVE_FOLLOW_FN, total);
    int done = cg_emit_test(g, OP_TEST, op + 2, 0, 0);
    emit_abc(g, OP_MOV, op + 3, op + 1, 0); /* the argument t, where the result lands */
    emit_abc(g, OP_CALL, op + 3, s->b->sym->index, 0);
    cg_patch_to(g, cg_emit_jump(g), top);
    cg_patch_here(g, done);
}

/* Motion statements: a header (opcodes.h, MOTION_HDR), the WITH values and the operands in one run, then the
 * door (runtime/exec/motion.h). WAIT FOR loops on the door until it says the wait is over. */
void cg_stmt_motion(Gen *g, Node *s)
{
    static const char *const pnames[MP_COUNT] = {
#define X(name) #name,
        IRL_MOTION_PARAMS(X)
#undef X
    };
    MotionKind k;
    Node *ops[2] = {NULL, NULL};
    int64_t who = -1, shape = 0;
    const NodeList *points = NULL; /* MOVE SPLINE */
    switch (s->kind) {
    case S_MOVE: {
        int mk = s->flags & 0xff;
        if (mk == MOVE_SPLINE) {
            k = MK_MOVE_SPLINE;
            points = &s->list2;
            who = device_index(g, s->a);
            shape = (points->count ? opnd_shape(points->items[0]) : 0) | (int64_t)points->count << 8;
            break;
        }
        bool inc = (s->flags & NF_INC) != 0;
        if (mk == MOVE_FOLLOW) { /* a table (shape: rows) or a CSV file's name; FOR: a function of time */
            if (s->c) {
                stmt_follow_fn(g, s);
                return;
            }
            bool csv = s->b && s->b->type && s->b->type->kind == TY_STRING;
            k = csv ? MK_MOVE_FOLLOW_CSV : MK_MOVE_FOLLOW;
            ops[0] = s->b;
            who = device_index(g, s->a);
            shape = csv || !s->b || !s->b->type ? 0 : s->b->type->length;
            break;
        }
        k = mk == MOVE_PTP ? (inc ? MK_MOVE_INC_PTP : MK_MOVE_PTP)
            : mk == MOVE_LIN ? (inc ? MK_MOVE_INC_LIN : MK_MOVE_LIN) : (inc ? MK_MOVE_INC_CIRC : MK_MOVE_CIRC);
        ops[0] = s->b;
        ops[1] = s->c;
        who = device_index(g, s->a);
        shape = opnd_shape(s->b) | opnd_shape(s->c) << 4;
        break;
    }
    case S_GMOVE: {
        int gk = s->flags & 0xff;
        k = gk == GMOVE_TO ? MK_GMOVE_TO : gk == GMOVE_HOLD ? MK_GMOVE_HOLD : MK_GMOVE_PROFILE;
        ops[0] = s->b;
        who = device_index(g, s->a);
        if (gk == GMOVE_PROFILE) shape = s->b && s->b->type ? nslots_of(s->b->type) / 2 : 0;
        break;
    }
    case S_WAIT: k = MK_WAIT; ops[0] = s->a; break;
    case S_WAIT_FOR: k = MK_WAIT_FOR; ops[0] = s->a; ops[1] = s->b; shape = s->b != NULL; break;
    default: k = MK_PULSE; ops[0] = s->b; who = io_index(g, s->a); break;
    }
    Node *with[MP_COUNT] = {NULL};
    int64_t mask = 0;
    int nwith = 0;
    for (int i = 0; i < s->list.count; i++) {
        Node *w = s->list.items[i];
        for (int j = 0; j < MP_COUNT; j++)
            if (w->name && w->a && strcasecmp(w->name, pnames[j]) == 0 && !with[j]) {
                with[j] = w->a;
                mask |= (int64_t)1 << j;
                nwith++;
            }
    }
    int total = MOTION_HDR + nwith;
    for (int i = 0; i < 2; i++)
        if (ops[i]) total += nslots_of(ops[i]->type);
    for (int i = 0; points && i < points->count; i++) total += nslots_of(points->items[i]->type);
    int r = cg_alloc_regs(g, total), off = MOTION_HDR;
    at(g, s->loc);
    if (k == MK_WAIT_FOR) emit_abx(g, OP_LOADI, r + 1, (uint32_t)-1); /* state: not started */
    int top = here(g);
    for (int j = 0; j < MP_COUNT; j++)
        if (with[j]) cg_expr_to(g, with[j], r + off++);
    for (int i = 0; i < 2; i++)
        if (ops[i]) {
            cg_expr_to(g, ops[i], r + off);
            off += nslots_of(ops[i]->type);
        }
    for (int i = 0; points && i < points->count; i++) {
        cg_expr_to(g, points->items[i], r + off);
        off += nslots_of(points->items[i]->type);
    }
    at(g, s->loc);
    if (k != MK_WAIT_FOR) emit_abx(g, OP_LOADI, r + 1, (uint32_t)who);
    emit_abx(g, OP_LOADI, r + 2, (uint32_t)shape);
    emit_abx(g, OP_LOADI, r + 3, (uint32_t)mask);
    emit_abx(g, OP_LOADI, r, (uint32_t)(here(g) + 1)); /* the pc of the MOTION below */
    emit_abc(g, OP_MOTION, r, k, total);
    if (k == MK_WAIT_FOR) cg_patch_to(g, cg_emit_test(g, OP_TEST, r + MOTION_HDR + nwith, 0, 0), top);
}

/* TRIGGER: the header, d, DELAY, the target's IO index or absolute slot, and the value, evaluated now (opcodes.h);
 * the door binds it to the device's next MOVE, which makes the assignment in a cycle of its motion. */
void cg_stmt_trigger(Gen *g, Node *s)
{
    Node *as = s->d;
    int r = cg_alloc_regs(g, MOTION_HDR + 4);
    int64_t shape = (s->flags & TRIGGER_END ? MOTION_TRIGGER_END : 0) |
                    (s->b->type && dim_is_none(s->b->type->dim) ? MOTION_TRIGGER_FRACTION : 0);
    cg_expr_to(g, s->b, r + MOTION_HDR);
    if (s->c) cg_expr_to(g, s->c, r + MOTION_HDR + 1);
    else emit_abc(g, OP_ZERO, r + MOTION_HDR + 1, 1, 0);
    Place p;
    cg_gen_place(g, as->a, &p);
    if (p.kind == PL_IO) {
        shape |= MOTION_TRIGGER_IO;
        emit_abx(g, OP_LOADI, r + MOTION_HDR + 2, (uint32_t)p.index);
    } else {
        cg_place_addr_to(g, &p, r + MOTION_HDR + 2);
    }
    cg_expr_to(g, as->b, r + MOTION_HDR + 3);
    at(g, s->loc);
    emit_abx(g, OP_LOADI, r + 1, (uint32_t)device_index(g, s->a));
    emit_abx(g, OP_LOADI, r + 2, (uint32_t)shape);
    emit_abx(g, OP_LOADI, r + 3, 0);
    emit_abx(g, OP_LOADI, r, (uint32_t)(here(g) + 1)); /* the pc of the MOTION below */
    emit_abc(g, OP_MOTION, r, MK_TRIGGER, MOTION_HDR + 4);
}

/* Reading $TIME stops look-ahead: the door runs the motion to the programmed point first. */
void cg_motion_sync(Gen *g)
{
    int r = cg_alloc_regs(g, 1);
    emit_abx(g, OP_LOADI, r, (uint32_t)(here(g) + 1));
    emit_abc(g, OP_MOTION, r, MK_SYNC, 1);
}

/* ---- Tasks, events, interrupts. ---- */

/* The motion door's header for a statement without WITH values (pc, who, shape, mask) at registers r..r+3. */
static void door_header(Gen *g, int r, int64_t who, int64_t shape, bool set_who)
{
    if (set_who) emit_abx(g, OP_LOADI, r + 1, (uint32_t)who);
    emit_abx(g, OP_LOADI, r + 2, (uint32_t)shape);
    emit_abx(g, OP_LOADI, r + 3, 0);
    emit_abx(g, OP_LOADI, r, (uint32_t)(here(g) + 1)); /* the pc of the MOTION after it */
}

/* Adds k (+1 or -1) to the EVENT's global slot. */
static void event_add(Gen *g, int slot, int k)
{
    int t = cg_alloc_regs(g, 1);
    emit_abx(g, OP_GETG, t, (uint32_t)slot);
    emit_abc(g, OP_ADDII, t, t, (unsigned)(k & 0xffff));
    emit_abx(g, OP_SETG, t, (uint32_t)slot);
}

/* SIGNAL ev: the door stops look-ahead (the task's motion reaches its point), then ev := ev + 1. */
void cg_stmt_signal(Gen *g, Node *s)
{
    int r = cg_alloc_regs(g, MOTION_HDR);
    door_header(g, r, -1, 0, true);
    emit_abc(g, OP_MOTION, r, MK_SIGNAL, MOTION_HDR);
    event_add(g, s->a->sym->slot, 1);
}

/* WAIT ev [TIMEOUT t]: a loop on the door (like WAIT FOR) until the count is > 0, then ev := ev - 1. */
void cg_stmt_wait_event(Gen *g, Node *s)
{
    int total = MOTION_HDR + 2 + (s->b ? 1 : 0);
    int r = cg_alloc_regs(g, total), slot = s->a->sym->slot;
    emit_abx(g, OP_LOADI, r + 1, (uint32_t)-1); /* state: not started */
    if (s->b) cg_expr_to(g, s->b, r + MOTION_HDR + 2);
    at(g, s->loc);
    int top = here(g);
    emit_abx(g, OP_GETG, r + MOTION_HDR, (uint32_t)slot);
    emit_abx(g, OP_LOADKS, r + MOTION_HDR + 1, (uint32_t)cg_const_string(g, s->a->name));
    door_header(g, r, 0, s->b != NULL, false);
    emit_abc(g, OP_MOTION, r, MK_WAIT_EVENT, total);
    cg_patch_to(g, cg_emit_test(g, OP_TEST, r + MOTION_HDR, 0, 0), top);
    event_add(g, slot, -1);
}

/* BRAKE dev: the door stops the device under control and drops its queued motion. */
void cg_stmt_brake(Gen *g, Node *s)
{
    int r = cg_alloc_regs(g, MOTION_HDR);
    door_header(g, r, device_index(g, s->a), 0, true);
    emit_abc(g, OP_MOTION, r, MK_BRAKE, MOTION_HDR);
}

/* ENABLE / DISABLE name: the interrupt is named by its condition's routine (D_INTERRUPT sym->slot). */
void cg_stmt_interrupt(Gen *g, Node *s)
{
    Node *d = s->a->sym->decl;
    int64_t prio = 0;
    if (d->b) cg_fold_int(d->b, &prio);
    if (s->kind == S_ENABLE)
        emit_abc(g, OP_ENABLE, (unsigned)prio, (unsigned)d->sym->slot, (unsigned)d->c->sym->index);
    else
        emit_abc(g, OP_DISABLE, 0, (unsigned)d->sym->slot, 0);
}
