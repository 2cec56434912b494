/* codegen_stmt.c — the code generator's statements: assignment, control flow (IF, WHILE, REPEAT, LOOP, FOR, CASE,
 * EXIT), PRINT, RETURN, errors, and the dispatch of each statement kind (motion ones go to codegen_motion.c). */
#include "codegen_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- PRINT. ------------------------------------------------------------------------------------------ */

static void print_text(Gen *g, const char *s) { emit_abx(g, OP_PRINTK, 0, (uint32_t)cg_const_string(g, s)); }

/* Prints the value of type t held in registers r.. */
static void print_value(Gen *g, const Type *t, int r)
{
    switch (t->kind) {
    case TY_INT: emit_abc(g, OP_PRINTI, r, 0, 0); break;
    case TY_REAL: emit_abc(g, OP_PRINTR, r, 0, 0); break;
    case TY_BOOL: emit_abc(g, OP_PRINTB, r, 0, 0); break;
    case TY_STRING: emit_abc(g, OP_PRINTS, r, 0, 0); break;
    case TY_POSITION: emit_abc(g, OP_PRINTPOS, r, 0, 0); break;
    case TY_ORIENTATION: emit_abc(g, OP_PRINTORI, r, 0, 0); break;
    case TY_POSE: emit_abc(g, OP_PRINTPOSE, r, 0, 0); break;
    case TY_JOINT: emit_abc(g, OP_PRINTJ, r, 0, 0); break;
    case TY_RECORD:
        for (int i = 0; i < t->nfields; i++) {
            char buf[300];
            snprintf(buf, sizeof buf, "%s%s: ", i ? ", " : "(", t->fields[i].name);
            print_text(g, buf);
            print_value(g, t->fields[i].type, r + t->fields[i].offset);
        }
        print_text(g, t->nfields ? ")" : "()");
        break;
    case TY_ARRAY:
        for (int i = 0; i < t->length; i++) {
            print_text(g, i ? ", " : "[");
            print_value(g, t->elem, r + i * t->elem->nslots);
        }
        print_text(g, t->length ? "]" : "[]");
        break;
    default: break;
    }
}

/* PRINT evaluates every value first (a FUNCTION that prints does so before the line), then writes them. */
static void stmt_print(Gen *g, Node *s)
{
    int n = s->list.count;
    int *regs = calloc((size_t)n + 1, sizeof *regs);
    if (!regs) abort();
    for (int i = 0; i < n; i++) {
        Node *e = s->list.items[i];
        bool later_call = false;
        for (int j = i + 1; j < n; j++) later_call = later_call || cg_has_call(s->list.items[j]);
        regs[i] = e->kind == E_STRING ? -1 : cg_operand(g, e, later_call);
    }
    for (int i = 0; i < n; i++) {
        Node *e = s->list.items[i];
        at(g, e->loc);
        if (i) emit_abx(g, OP_PRINTK, 0, (uint32_t)g->space);
        if (regs[i] < 0) print_text(g, e->lit.s ? e->lit.s : "");
        else print_value(g, e->type, regs[i]);
    }
    at(g, s->loc);
    emit_abc(g, OP_PRINTNL, 0, 0, 0);
    free(regs);
}

/* ---- Statements. ------------------------------------------------------------------------------------- */

static void stmt_assign(Gen *g, Node *s)
{
    Node *target = s->a, *value = s->b;
    int n = nslots_of(target->type);
    Place p;
    cg_gen_place(g, target, &p);
    /* Scalars computed straight into a frame variable when the value reads it only before the final write. */
    bool direct = p.kind == PL_REG && n == 1 &&
                  (value->kind == E_WIDEN || value->kind == E_UNARY || value->kind == E_INT ||
                   value->kind == E_REAL || value->kind == E_NAME ||
                   (value->kind == E_BINARY && value->op != OP_AND && value->op != OP_OR && value->op != '@'));
    if (direct) {
        cg_expr_to(g, value, p.reg + p.off);
        return;
    }
    int r = cg_expr_any(g, value);
    at(g, s->loc);
    cg_place_store(g, &p, r, n);
}

static void loop_body(Gen *g, NodeList *body, int *exits)
{
    int saved = g->exit_chain;
    bool saved_in = g->in_loop;
    g->exit_chain = NO_JUMP;
    g->in_loop = true;
    cg_stmts(g, body);
    *exits = g->exit_chain;
    g->exit_chain = saved;
    g->in_loop = saved_in;
}

static void stmt_if(Gen *g, Node *s)
{
    int end = NO_JUMP;
    for (int i = 0; i < s->list.count; i++) {
        Node *arm = s->list.items[i];
        int next = cg_cond_jump(g, arm->a, false);
        cg_stmts(g, &arm->list);
        if (i + 1 < s->list.count || s->list2.count) cg_concat(g, &end, cg_emit_jump(g));
        cg_patch_here(g, next);
    }
    cg_stmts(g, &s->list2);
    cg_patch_here(g, end);
}

static void stmt_while(Gen *g, Node *s)
{
    int top = here(g);
    int out = cg_cond_jump(g, s->a, false);
    int exits;
    loop_body(g, &s->list, &exits);
    at(g, s->loc);
    cg_patch_to(g, cg_emit_jump(g), top);
    cg_patch_here(g, out);
    cg_patch_here(g, exits);
}

static void stmt_repeat(Gen *g, Node *s)
{
    int top = here(g), exits;
    loop_body(g, &s->list, &exits);
    cg_patch_to(g, cg_cond_jump(g, s->a, false), top);
    cg_patch_here(g, exits);
}

static void stmt_loop(Gen *g, Node *s)
{
    int top = here(g), exits;
    loop_body(g, &s->list, &exits);
    at(g, s->loc);
    cg_patch_to(g, cg_emit_jump(g), top);
    cg_patch_here(g, exits);
}

/* FOR v := a TO b [BY s]: the counter is v's own register when v lives in the frame; otherwise a temporary
 * copied to v before and back from v after each pass, so assignments to v in the body steer the loop alike. */
static void stmt_for(Gen *g, Node *s)
{
    Place p;
    cg_gen_place(g, s->a, &p);
    bool direct = p.kind == PL_REG;
    int c = direct ? p.reg + p.off : cg_alloc_regs(g, 1);
    int lim = cg_alloc_regs(g, 2);
    int from = cg_alloc_regs(g, 1);
    cg_expr_to(g, s->b, from); /* the limit may read v: it still holds its old value */
    cg_expr_to(g, s->c, lim);
    if (s->d) cg_expr_to(g, s->d, lim + 1);
    else cg_load_int(g, lim + 1, 1);
    at(g, s->loc);
    emit_abc(g, OP_MOV, c, from, 0);
    emit_abc(g, OP_FORPREP, c, lim, 0);
    int out = cg_emit_jump(g);
    int top = here(g), exits;
    if (!direct) cg_place_store(g, &p, c, 1);
    loop_body(g, &s->list, &exits);
    at(g, s->loc);
    if (!direct) cg_place_load(g, &p, 1, c);
    int back = top - (here(g) + 1);
    if (back >= INT16_MIN) {
        emit_abc(g, OP_FORLOOP, c, lim, (unsigned)back);
    } else { /* beyond sC's reach: FORLOOP steps over its exit JMP onto a JMP back */
        emit_abc(g, OP_FORLOOP, c, lim, 1);
        int exit = cg_emit_jump(g);
        cg_patch_to(g, cg_emit_jump(g), top);
        cg_patch_here(g, exit);
    }
    cg_patch_here(g, out);
    cg_patch_here(g, exits);
}

static void stmt_case(Gen *g, Node *s)
{
    int sel = cg_expr_any(g, s->a);
    int narms = s->list.count;
    int *arm_jumps = calloc((size_t)narms + 1, sizeof *arm_jumps);
    if (!arm_jumps) abort();
    for (int i = 0; i < narms; i++) {
        Node *arm = s->list.items[i];
        arm_jumps[i] = NO_JUMP;
        for (int j = 0; j < arm->list.count; j++) {
            Node *l = arm->list.items[j];
            int64_t k = 0;
            cg_fold_int(l, &k);
            at(g, l->loc);
            if (k >= -32768 && k <= 32767) {
                cg_concat(g, &arm_jumps[i], cg_emit_test(g, OP_TEQII, sel, (unsigned)(uint16_t)(int16_t)k, 1));
            } else {
                int t = cg_alloc_regs(g, 1);
                cg_load_int(g, t, k);
                cg_concat(g, &arm_jumps[i], cg_emit_test(g, OP_TEQI, sel, t, 1));
                g->ntop--;
            }
        }
    }
    int to_else = cg_emit_jump(g), end = NO_JUMP;
    for (int i = 0; i < narms; i++) {
        cg_patch_here(g, arm_jumps[i]);
        cg_stmts(g, &s->list.items[i]->list2);
        cg_concat(g, &end, cg_emit_jump(g));
    }
    cg_patch_here(g, to_else);
    cg_stmts(g, &s->list2);
    cg_patch_here(g, end);
    free(arm_jumps);
}

static void stmt(Gen *g, Node *s)
{
    int mark = g->ntop, start = here(g);
    at(g, s->loc);
    switch (s->kind) {
    case S_ASSIGN: stmt_assign(g, s); break;
    case S_CALL: {
        Node *call = s->a;
        if (call->builtin != BI_NONE) cg_builtin_call(g, call);
        else if (call->sym) cg_user_call(g, call);
        break;
    }
    case S_IF: stmt_if(g, s); break;
    case S_WHILE: stmt_while(g, s); break;
    case S_REPEAT: stmt_repeat(g, s); break;
    case S_LOOP: stmt_loop(g, s); break;
    case S_FOR: stmt_for(g, s); break;
    case S_CASE: stmt_case(g, s); break;
    case S_EXIT: cg_concat(g, &g->exit_chain, cg_emit_jump(g)); break;
    case S_RETURN:
        if (s->a) {
            int n = nslots_of(s->a->type);
            int r = cg_expr_any(g, s->a);
            at(g, s->loc);
            emit_abc(g, OP_RET, r, n, 0);
        } else {
            emit_abc(g, OP_RET, 0, 0, 0);
        }
        break;
    case S_HALT: emit_abc(g, OP_HALT, 0, 0, 0); break;
    case S_PRINT: stmt_print(g, s); break;
    case S_RAISE:
        if (s->a) {
            int r = cg_expr_any(g, s->a);
            at(g, s->loc);
            emit_abc(g, OP_RAISE, r, 0, 0);
        } else {
            emit_abc(g, OP_RERAISE, 0, 0, 0);
        }
        break;
    case S_RETRY: emit_abc(g, OP_RETRY, 0, 0, 0); break;
    case S_SKIP: emit_abc(g, OP_SKIP, 0, 0, 0); break;
    case S_WAIT:
        if (s->flags & NF_EVENT) cg_stmt_wait_event(g, s);
        else cg_stmt_motion(g, s);
        break;
    case S_MOVE: case S_GMOVE: case S_WAIT_FOR: case S_PULSE: cg_stmt_motion(g, s); break;
    /* tasks, events, interrupts */
    case S_SIGNAL: cg_stmt_signal(g, s); break;
    case S_START: emit_abc(g, OP_START, 0, (unsigned)s->a->sym->decl->sym->index, 0); break;
    case S_ENABLE: case S_DISABLE: cg_stmt_interrupt(g, s); break;
    case S_BRAKE: cg_stmt_brake(g, s); break;
    /* path-triggered I/O */
    case S_TRIGGER: cg_stmt_trigger(g, s); break;
    default: break;
    }
    g->ntop = mark;
    if (here(g) > start) chunk_add_stmt(g->c, start, here(g));
}

void cg_stmts(Gen *g, NodeList *l)
{
    for (int i = 0; i < l->count; i++) stmt(g, l->items[i]);
}
