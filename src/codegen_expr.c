/* codegen_expr.c — the code generator's expressions: constant folding, places (registers, globals, addresses,
 * system variables, I/O points) with their loads and stores, operators with typed and constant-operand
 * instructions, built-in and routine calls, and conditions as fused test-and-jump chains. */
#include "codegen_internal.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* ---- Constants of expressions. ------------------------------------------------------------------------- */

bool cg_fold_int(Node *e, int64_t *v)
{
    if (!e) return false;
    switch (e->kind) {
    case E_INT: *v = e->lit.i; return true;
    case E_NAME:
        if (e->sym && e->sym->kind == SYM_CONST && e->sym->cval.kind == TY_INT) {
            *v = e->sym->cval.u.i;
            return true;
        }
        return false;
    case E_UNARY:
        if (e->op == '-' && cg_fold_int(e->a, v) && *v != INT64_MIN) {
            *v = -*v;
            return true;
        }
        return false;
    default: return false;
    }
}

static bool fold_real(Node *e, double *v)
{
    int64_t i;
    if (!e) return false;
    switch (e->kind) {
    case E_REAL: *v = e->lit.r; return true;
    case E_WIDEN:
        if (cg_fold_int(e->a, &i)) {
            *v = (double)i;
            return true;
        }
        return fold_real(e->a, v);
    case E_NAME:
        if (e->sym && e->sym->kind == SYM_CONST && e->sym->cval.kind == TY_REAL) {
            *v = e->sym->cval.u.r;
            return true;
        }
        return false;
    case E_UNARY:
        if (e->op == '-' && e->type && e->type->kind == TY_REAL && fold_real(e->a, v)) {
            *v = -*v;
            return true;
        }
        return false;
    default: return false;
    }
}

/* Does evaluating e call a user routine (which could change variables through VAR parameters)? */
bool cg_has_call(Node *e)
{
    if (!e) return false;
    if (e->kind == E_CALL && e->builtin == BI_NONE) return true;
    if (e->kind == E_NAME && e->sym && e->sym->kind == SYM_IO) return true;
    if (cg_has_call(e->a) || cg_has_call(e->b)) return true;
    if (e->kind == E_CALL)
        for (int i = 0; i < e->list.count; i++)
            if (cg_has_call(e->list.items[i])) return true;
    return false;
}

static bool is_errno(Node *e)
{
    const char *n = e->name;
    if (!n) return false;
    if (n[0] == '$') n++;
    return strcasecmp(n, "ERRNO") == 0;
}

/* ---- Places. ----------------------------------------------------------------------------------------- */

static int sysvar_id(const char *name)
{
    if (name && name[0] == '$') name++;
    for (int i = 0; i < SV_COUNT; i++)
        if (name && strcasecmp(irl_sysvarinfo[i].name, name) == 0) return i;
    return -1;
}

/* Puts the absolute address of place p (plus its offset) into register dst. */
void cg_place_addr_to(Gen *g, Place *p, int dst)
{
    switch (p->kind) {
    case PL_REG: emit_abc(g, OP_LADDR, dst, p->reg + p->off, 0); break;
    case PL_GLOBAL: emit_abx(g, OP_GADDR, dst, (uint32_t)(p->index + p->off)); break;
    case PL_ADDR:
        if (p->off) emit_abc(g, OP_OFFS, dst, p->reg, p->off);
        else if (dst != p->reg) emit_abc(g, OP_MOV, dst, p->reg, 0);
        break;
    default: break; /* system variables and I/O points have no address (the checker forbids it) */
    }
}

/* Turns p into a PL_ADDR place with offset 0 held in an owned register. */
static void to_addr(Gen *g, Place *p)
{
    if (p->kind == PL_ADDR && p->owned && p->off == 0) return;
    int r = p->kind == PL_ADDR && p->owned ? p->reg : cg_alloc_regs(g, 1);
    cg_place_addr_to(g, p, r);
    *p = (Place){.kind = PL_ADDR, .reg = r, .owned = true};
}

/* Loads n slots of place p into dst (dst < 0: anywhere); returns the register holding them. */
int cg_place_load(Gen *g, Place *p, int n, int dst)
{
    switch (p->kind) {
    case PL_REG:
        if (dst < 0) return p->reg + p->off;
        if (dst != p->reg + p->off) {
            if (n == 1) emit_abc(g, OP_MOV, dst, p->reg + p->off, 0);
            else emit_abc(g, OP_MOVN, dst, p->reg + p->off, n);
        }
        return dst;
    case PL_GLOBAL:
        if (dst < 0) dst = cg_alloc_regs(g, n);
        if (n == 1) {
            emit_abx(g, OP_GETG, dst, (uint32_t)(p->index + p->off));
        } else {
            int t = cg_alloc_regs(g, 1);
            emit_abx(g, OP_GADDR, t, (uint32_t)(p->index + p->off));
            emit_abc(g, OP_LOADR, dst, t, n);
        }
        return dst;
    case PL_ADDR: {
        if (dst < 0) dst = cg_alloc_regs(g, n);
        int a = p->reg;
        if (p->off) {
            a = cg_alloc_regs(g, 1);
            emit_abc(g, OP_OFFS, a, p->reg, p->off);
        }
        emit_abc(g, OP_LOADR, dst, a, n);
        return dst;
    }
    case PL_SYS:
        if (p->index == SV_TIME) cg_motion_sync(g);
        if (dst < 0) dst = cg_alloc_regs(g, n);
        emit_abc(g, OP_GETSYS, dst, irl_sysvarinfo[p->index].offset + p->off, n);
        return dst;
    case PL_IO: {
        if (dst < 0) dst = cg_alloc_regs(g, 1);
        emit_abx(g, OP_LOADI, dst, (uint32_t)p->index);
        emit_abc(g, OP_MOTION, dst, MK_IO_READ, 1);
        return dst;
    }
    }
    return dst;
}

/* Stores n slots from register src into place p. */
void cg_place_store(Gen *g, Place *p, int src, int n)
{
    switch (p->kind) {
    case PL_REG:
        if (src != p->reg + p->off) {
            if (n == 1) emit_abc(g, OP_MOV, p->reg + p->off, src, 0);
            else emit_abc(g, OP_MOVN, p->reg + p->off, src, n);
        }
        return;
    case PL_GLOBAL:
        if (n == 1) {
            emit_abx(g, OP_SETG, src, (uint32_t)(p->index + p->off));
        } else {
            int t = cg_alloc_regs(g, 1);
            emit_abx(g, OP_GADDR, t, (uint32_t)(p->index + p->off));
            emit_abc(g, OP_STORER, t, src, n);
        }
        return;
    case PL_ADDR: {
        int a = p->reg;
        if (p->off) {
            a = cg_alloc_regs(g, 1);
            emit_abc(g, OP_OFFS, a, p->reg, p->off);
        }
        emit_abc(g, OP_STORER, a, src, n);
        return;
    }
    case PL_SYS: emit_abc(g, OP_SETSYS, src, irl_sysvarinfo[p->index].offset + p->off, n); return;
    case PL_IO: {
        int t = cg_alloc_regs(g, 2);
        emit_abx(g, OP_LOADI, t, (uint32_t)p->index);
        emit_abc(g, OP_MOV, t + 1, src, 0);
        emit_abc(g, OP_MOTION, t, MK_IO_WRITE, 2);
        return;
    }
    }
}

/* Is e a variable-rooted designator (name, field, index) whose place can be computed? */
static bool is_designator(Node *e)
{
    switch (e->kind) {
    case E_NAME:
        return e->sym && (e->sym->kind == SYM_GLOBAL || e->sym->kind == SYM_LOCAL || e->sym->kind == SYM_PARAM ||
                          e->sym->kind == SYM_VARPARAM || e->sym->kind == SYM_IO);
    case E_SYSVAR: return sysvar_id(e->name) >= 0;
    case E_FIELD:
    case E_INDEX: return is_designator(e->a);
    default: return false;
    }
}

/* The place of e; a computed value (a call, a constructor) becomes a temporary register run. */
void cg_gen_place(Gen *g, Node *e, Place *p)
{
    at(g, e->loc);
    if (e->kind != E_FIELD && e->kind != E_INDEX && !is_designator(e)) { /* a computed value: a temporary */
        int r = cg_alloc_regs(g, nslots_of(e->type));
        cg_expr_to(g, e, r);
        *p = (Place){.kind = PL_REG, .reg = r};
        return;
    }
    switch (e->kind) {
    case E_NAME: {
        Symbol *s = e->sym;
        switch (s->kind) {
        case SYM_GLOBAL: *p = g->in_main ? (Place){.kind = PL_REG, .reg = s->slot} : (Place){.kind = PL_GLOBAL, .index = s->slot}; return;
        case SYM_VARPARAM: *p = (Place){.kind = PL_ADDR, .reg = s->slot}; return;
        case SYM_IO: *p = (Place){.kind = PL_IO, .index = s->index}; return;
        default: *p = (Place){.kind = PL_REG, .reg = s->slot}; return;
        }
    }
    case E_SYSVAR: *p = (Place){.kind = PL_SYS, .index = sysvar_id(e->name)}; return;
    case E_FIELD:
        cg_gen_place(g, e->a, p);
        p->off += e->field ? e->field->offset : (e->component > 0 ? e->component : 0);
        return;
    case E_INDEX: {
        cg_gen_place(g, e->a, p);
        Type *t = e->a->type;
        int64_t k;
        if (t->kind == TY_ARRAY && cg_fold_int(e->b, &k) && k >= 1 && k <= t->length) {
            p->off += (int)(k - 1) * t->elem->nslots; /* a constant index in range needs no check */
            return;
        }
        int ri = cg_expr_any(g, e->b);
        at(g, e->loc);
        to_addr(g, p);
        if (t->kind == TY_ARRAY) {
            emit_abx(g, OP_CHKIDX, ri, (uint32_t)t->length);
            emit_abc(g, OP_INDEX, p->reg, ri, t->elem->nslots);
        } else {
            emit_abc(g, OP_JINDEX, p->reg, ri, 0);
        }
        return;
    }
    default: return;
    }
}

/* ---- Expressions. ------------------------------------------------------------------------------------ */

/* Loads an INT constant into dst. */
void cg_load_int(Gen *g, int dst, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX) emit_abx(g, OP_LOADI, dst, (uint32_t)(int32_t)v);
    else emit_abx(g, OP_LOADKI, dst, (uint32_t)cg_const_int(g, v));
}

static void load_const(Gen *g, const ConstValue *v, int dst)
{
    switch (v->kind) {
    case TY_BOOL: cg_load_int(g, dst, v->u.b); break;
    case TY_INT: cg_load_int(g, dst, v->u.i); break;
    case TY_REAL: emit_abx(g, OP_LOADKR, dst, (uint32_t)cg_const_real(g, v->u.r)); break;
    case TY_STRING: emit_abx(g, OP_LOADKS, dst, (uint32_t)cg_const_string(g, v->u.s ? v->u.s : "")); break;
    default: emit_abc(g, OP_ZERO, dst, 1, 0); break;
    }
}

/* Evaluates an operand; if `protect` (a later operand calls a routine), a variable's register is copied. */
int cg_operand(Gen *g, Node *e, bool protect)
{
    int mark = g->ntop;
    int r = cg_expr_any(g, e);
    if (protect && r < mark) {
        int t = cg_alloc_regs(g, 1);
        emit_abc(g, OP_MOV, t, r, 0);
        return t;
    }
    return r;
}

/* Constant REAL operand usable as a KR index in the C field? */
static bool kreal_operand(Gen *g, Node *e, int *k)
{
    double v;
    if (!fold_real(e, &v)) return false;
    int idx = cg_const_real(g, v);
    if (idx > MAX_REG) return false;
    *k = idx;
    return true;
}

static void arith_real(Gen *g, Node *e, int dst)
{
    Node *a = e->a, *b = e->b;
    int k;
    OpCode kop = e->op == '+' ? OP_ADDRK : e->op == '-' ? OP_SUBRK : e->op == '*' ? OP_MULRK : OP_DIVRK;
    double bv;
    bool bzero = fold_real(b, &bv) && bv == 0.0;
    if (!bzero && kreal_operand(g, b, &k)) {
        if (e->op == '*' && a->kind == E_WIDEN) { /* i * 0.5: one instruction */
            int ra = cg_expr_any(g, a->a);
            at(g, e->loc);
            emit_abc(g, OP_MULIRK, dst, ra, k);
            return;
        }
        int ra = cg_expr_any(g, a);
        at(g, e->loc);
        emit_abc(g, kop, dst, ra, k);
        return;
    }
    if (kreal_operand(g, a, &k)) {
        int rb = cg_expr_any(g, b);
        at(g, e->loc);
        switch (e->op) {
        case '+': emit_abc(g, OP_ADDRK, dst, rb, k); return;
        case '*': emit_abc(g, OP_MULRK, dst, rb, k); return;
        case '-': emit_abc(g, OP_SUBKR, dst, rb, k); return;
        default: emit_abc(g, OP_DIVKR, dst, rb, k); return;
        }
    }
    int ra = cg_operand(g, a, cg_has_call(b));
    int rb = cg_expr_any(g, b);
    at(g, e->loc);
    OpCode op = e->op == '+' ? OP_ADDR : e->op == '-' ? OP_SUBR : e->op == '*' ? OP_MULR : OP_DIVR;
    emit_abc(g, op, dst, ra, rb);
}

static void arith_int(Gen *g, Node *e, int dst)
{
    int64_t k;
    if ((e->op == '+' || e->op == '-') && cg_fold_int(e->b, &k) && k >= -32767 && k <= 32767) {
        int ra = cg_expr_any(g, e->a);
        at(g, e->loc);
        emit_abc(g, OP_ADDII, dst, ra, (unsigned)(uint16_t)(int16_t)(e->op == '+' ? k : -k));
        return;
    }
    if (e->op == '+' && cg_fold_int(e->a, &k) && k >= -32767 && k <= 32767) { /* 1 + i */
        int rb = cg_expr_any(g, e->b);
        at(g, e->loc);
        emit_abc(g, OP_ADDII, dst, rb, (unsigned)(uint16_t)(int16_t)k);
        return;
    }
    int ra = cg_operand(g, e->a, cg_has_call(e->b));
    int rb = cg_expr_any(g, e->b);
    at(g, e->loc);
    OpCode op = e->op == '+' ? OP_ADDI : e->op == '-' ? OP_SUBI : e->op == '*' ? OP_MULI : e->op == OP_DIV ? OP_DIVI : OP_MODI;
    emit_abc(g, op, dst, ra, rb);
}

/* A comparison as a BOOL value in dst. */
static void compare_value(Gen *g, Node *e, int dst)
{
    TypeKind k = e->a->type->kind;
    int op = e->op;
    Node *a = e->a, *b = e->b;
    if (op == '>' || op == OP_GE) { /* a > b  ==  b < a */
        Node *t = a; a = b; b = t;
        op = op == '>' ? '<' : OP_LE;
    }
    int ra = cg_operand(g, a, cg_has_call(b));
    int rb = cg_expr_any(g, b);
    at(g, e->loc);
    OpCode o;
    if (k == TY_STRING) o = op == '=' ? OP_EQS : OP_NES;
    else if (k == TY_REAL) o = op == '=' ? OP_EQR : op == OP_NE ? OP_NER : op == '<' ? OP_LTR : OP_LER;
    else o = op == '=' ? OP_EQI : op == OP_NE ? OP_NEI : op == '<' ? OP_LTI : OP_LEI;
    emit_abc(g, o, dst, ra, rb);
}

/* Built-in calls: arguments in a run at A, BUILTIN, the result at A. */
int cg_builtin_call(Gen *g, Node *e)
{
    Node **args = e->list.items;
    int n = e->list.count;
    VmBuiltin id;
    TypeKind k0 = n > 0 ? args[0]->type->kind : TY_VOID;
    switch (e->builtin) {
    case BI_SIN: id = VB_SIN; break;
    case BI_COS: id = VB_COS; break;
    case BI_TAN: id = VB_TAN; break;
    case BI_ASIN: id = VB_ASIN; break;
    case BI_ACOS: id = VB_ACOS; break;
    case BI_ATAN: id = VB_ATAN; break;
    case BI_ATAN2: id = VB_ATAN2; break;
    case BI_SQRT: id = VB_SQRT; break;
    case BI_ABS: id = k0 == TY_INT ? VB_ABSI : VB_ABSR; break;
    case BI_EXP: id = VB_EXP; break;
    case BI_LN: id = VB_LN; break;
    case BI_POW: id = VB_POW; break;
    case BI_ROUND: id = VB_ROUND; break;
    case BI_TRUNC: id = VB_TRUNC; break;
    case BI_POS: id = VB_POS; break;
    case BI_ORIZYX: id = VB_ORIZYX; break;
    case BI_ORIXYZ: id = VB_ORIXYZ; break;
    case BI_ORIQUAT: id = VB_ORIQUAT; break;
    case BI_ORIVANG: id = VB_ORIVANG; break;
    case BI_POSE: id = VB_POSE; break;
    case BI_JOINT: id = VB_JOINT; break;
    case BI_INV: id = k0 == TY_POSE ? VB_INVP : VB_INVO; break;
    case BI_DIST: id = k0 == TY_POSE ? VB_DISTP : VB_DISTV; break;
    case BI_MIN:
    case BI_MAX: {
        bool isint = e->type->kind == TY_INT;
        id = e->builtin == BI_MIN ? (isint ? VB_MINI : VB_MINR) : (isint ? VB_MAXI : VB_MAXR);
        int r = cg_alloc_regs(g, 2);
        cg_expr_to(g, args[0], r);
        for (int i = 1; i < n; i++) {
            cg_expr_to(g, args[i], r + 1);
            at(g, e->loc);
            emit_abc(g, OP_BUILTIN, r, id, 2);
        }
        return r;
    }
    default: return cg_alloc_regs(g, nslots_of(e->type));
    }
    int argslots = 0;
    for (int i = 0; i < n; i++) argslots += nslots_of(args[i]->type);
    int res = irl_builtininfo[id].nresult;
    int r = cg_alloc_regs(g, argslots > res ? argslots : res);
    int off = 0;
    for (int i = 0; i < n; i++) {
        cg_expr_to(g, args[i], r + off);
        off += nslots_of(args[i]->type);
    }
    at(g, e->loc);
    emit_abc(g, OP_BUILTIN, r, id, argslots);
    return r;
}

/* A call of a user routine: arguments in a run at A, CALL, the result at A. */
int cg_user_call(Gen *g, Node *e)
{
    Node *r = e->sym->decl;
    int pslots = 0;
    for (int i = 0; i < r->list.count; i++)
        pslots += (r->list.items[i]->flags & NF_VARPARAM) ? 1 : nslots_of(r->list.items[i]->sym ? r->list.items[i]->sym->type : NULL);
    int res = (r->flags & NF_FUNCTION) ? nslots_of(e->type) : 0;
    int base = cg_alloc_regs(g, pslots > res ? pslots : res);
    int off = 0;
    for (int i = 0; i < e->list.count && i < r->list.count; i++) {
        Node *p = r->list.items[i], *arg = e->list.items[i];
        int mark = g->ntop;
        if (p->flags & NF_VARPARAM) {
            Place pl;
            cg_gen_place(g, arg, &pl);
            cg_place_addr_to(g, &pl, base + off);
            off += 1;
        } else {
            cg_expr_to(g, arg, base + off);
            off += nslots_of(p->sym ? p->sym->type : arg->type);
        }
        g->ntop = mark;
    }
    at(g, e->loc);
    emit_abc(g, OP_CALL, base, e->sym->index, 0);
    return base;
}

/* The `@` operator: both operands in one run, a composition built-in. */
static int compose(Gen *g, Node *e)
{
    TypeKind ka = e->a->type->kind, kb = e->b->type->kind;
    VmBuiltin id = ka == TY_POSE ? (kb == TY_POSE ? VB_COMPPP : VB_COMPPV) : (kb == TY_ORIENTATION ? VB_COMPOO : VB_COMPOV);
    int na = nslots_of(e->a->type), nb = nslots_of(e->b->type);
    int r = cg_alloc_regs(g, na + nb);
    cg_expr_to(g, e->a, r);
    cg_expr_to(g, e->b, r + na);
    at(g, e->loc);
    emit_abc(g, OP_BUILTIN, r, id, na + nb);
    return r;
}

/* Evaluates e into the run of registers at dst. */
void cg_expr_to(Gen *g, Node *e, int dst)
{
    int n = nslots_of(e->type);
    int mark = g->ntop;
    at(g, e->loc);
    switch (e->kind) {
    case E_INT: cg_load_int(g, dst, e->lit.i); break;
    case E_REAL: emit_abx(g, OP_LOADKR, dst, (uint32_t)cg_const_real(g, e->lit.r)); break;
    case E_BOOL: cg_load_int(g, dst, e->lit.b); break;
    case E_STRING: emit_abx(g, OP_LOADKS, dst, (uint32_t)cg_const_string(g, e->lit.s ? e->lit.s : "")); break;
    case E_NAME:
        if (e->sym && e->sym->kind == SYM_CONST) {
            load_const(g, &e->sym->cval, dst);
            break;
        }
        if (!e->sym && is_errno(e)) {
            emit_abc(g, OP_ERRNO, dst, 0, 0);
            break;
        }
        /* fall through */
    case E_FIELD:
    case E_INDEX:
    case E_SYSVAR: {
        if (e->kind == E_SYSVAR && is_errno(e)) {
            emit_abc(g, OP_ERRNO, dst, 0, 0);
            break;
        }
        Place p;
        cg_gen_place(g, e, &p);
        at(g, e->loc);
        cg_place_load(g, &p, n, dst);
        break;
    }
    case E_WIDEN: {
        double v;
        if (fold_real(e, &v)) {
            emit_abx(g, OP_LOADKR, dst, (uint32_t)cg_const_real(g, v));
            break;
        }
        int r = cg_expr_any(g, e->a);
        emit_abc(g, OP_ITOR, dst, r, 0);
        break;
    }
    case E_UNARY: {
        if (e->op == OP_NOT) {
            int r = cg_expr_any(g, e->a);
            at(g, e->loc);
            emit_abc(g, OP_NOTB, dst, r, 0);
            break;
        }
        double v;
        int64_t iv;
        if (e->type->kind == TY_INT && cg_fold_int(e, &iv)) {
            cg_load_int(g, dst, iv);
            break;
        }
        if (e->type->kind == TY_REAL && fold_real(e, &v)) {
            emit_abx(g, OP_LOADKR, dst, (uint32_t)cg_const_real(g, v));
            break;
        }
        int r = cg_expr_any(g, e->a);
        at(g, e->loc);
        emit_abc(g, e->type->kind == TY_INT ? OP_NEGI : OP_NEGR, dst, r, 0);
        break;
    }
    case E_BINARY:
        switch (e->op) {
        case OP_AND:
        case OP_OR: {
            cg_expr_to(g, e->a, dst);
            int j = cg_emit_test(g, OP_TEST, dst, 0, e->op == OP_OR);
            cg_expr_to(g, e->b, dst);
            cg_patch_here(g, j);
            break;
        }
        case '=': case OP_NE: case '<': case OP_LE: case '>': case OP_GE: compare_value(g, e, dst); break;
        case '@': {
            int r = compose(g, e);
            cg_place_store(g, &(Place){.kind = PL_REG, .reg = dst}, r, n);
            break;
        }
        default:
            if (e->type->kind == TY_INT) arith_int(g, e, dst);
            else arith_real(g, e, dst);
            break;
        }
        break;
    case E_CALL: {
        int r = e->builtin != BI_NONE ? cg_builtin_call(g, e) : cg_user_call(g, e);
        cg_place_store(g, &(Place){.kind = PL_REG, .reg = dst}, r, n);
        break;
    }
    default: emit_abc(g, OP_ZERO, dst, n, 0); break;
    }
    g->ntop = mark;
}

/* Evaluates e anywhere: a variable's own registers when it lives in the frame, else fresh temporaries. */
int cg_expr_any(Gen *g, Node *e)
{
    if (e->kind == E_FIELD || e->kind == E_INDEX ||
        (e->kind == E_NAME && is_designator(e) && e->sym->kind != SYM_IO)) {
        Place p;
        int mark = g->ntop;
        cg_gen_place(g, e, &p);
        if (p.kind == PL_REG) {
            g->ntop = mark;
            return p.reg + p.off;
        }
        int r = cg_place_load(g, &p, nslots_of(e->type), -1);
        return r;
    }
    if (e->kind == E_CALL) {
        at(g, e->loc);
        return e->builtin != BI_NONE ? cg_builtin_call(g, e) : cg_user_call(g, e);
    }
    if (e->kind == E_BINARY && e->op == '@') {
        at(g, e->loc);
        return compose(g, e);
    }
    int r = cg_alloc_regs(g, nslots_of(e->type));
    cg_expr_to(g, e, r);
    return r;
}

/* ---- Conditions: jump when e == when, fall through otherwise. ----------------------------------------- */

int cg_cond_jump(Gen *g, Node *e, bool when)
{
    int mark = g->ntop;
    at(g, e->loc);
    int chain = NO_JUMP;
    if (e->kind == E_UNARY && e->op == OP_NOT) return cg_cond_jump(g, e->a, !when);
    if (e->kind == E_BINARY && (e->op == OP_AND || e->op == OP_OR)) {
        bool and = e->op == OP_AND;
        if (and != when) { /* AND jumping on false, OR jumping on true: either operand decides */
            chain = cg_cond_jump(g, e->a, when);
            cg_concat(g, &chain, cg_cond_jump(g, e->b, when));
        } else {
            int skip = cg_cond_jump(g, e->a, !when);
            chain = cg_cond_jump(g, e->b, when);
            cg_patch_here(g, skip);
        }
        g->ntop = mark;
        return chain;
    }
    if (e->kind == E_BINARY && e->a->type && (e->a->type->kind == TY_INT || e->a->type->kind == TY_REAL ||
                                              e->a->type->kind == TY_BOOL) &&
        (e->op == '=' || e->op == OP_NE || e->op == '<' || e->op == OP_LE || e->op == '>' || e->op == OP_GE)) {
        bool real = e->a->type->kind == TY_REAL;
        int op = e->op;
        bool w = when;
        if (op == OP_NE) {
            op = '=';
            w = !w;
        }
        int64_t k;
        if (!real && cg_fold_int(e->b, &k) && k >= -32768 && k <= 32767) {
            int ra = cg_expr_any(g, e->a);
            at(g, e->loc);
            OpCode o = op == '=' ? OP_TEQII : op == '<' ? OP_TLTII : op == OP_LE ? OP_TLEII : op == '>' ? OP_TGTII : OP_TGEII;
            chain = cg_emit_test(g, o, ra, (unsigned)(uint16_t)(int16_t)k, w);
        } else {
            Node *a = e->a, *b = e->b;
            if (op == '>' || op == OP_GE) {
                Node *t = a; a = b; b = t;
                op = op == '>' ? '<' : OP_LE;
            }
            int ra = cg_operand(g, a, cg_has_call(b));
            int rb = cg_expr_any(g, b);
            at(g, e->loc);
            OpCode o = real ? (op == '=' ? OP_TEQR : op == '<' ? OP_TLTR : OP_TLER)
                            : (op == '=' ? OP_TEQI : op == '<' ? OP_TLTI : OP_TLEI);
            chain = cg_emit_test(g, o, ra, rb, w);
        }
        g->ntop = mark;
        return chain;
    }
    int r = cg_expr_any(g, e);
    at(g, e->loc);
    chain = cg_emit_test(g, OP_TEST, r, 0, when);
    g->ntop = mark;
    return chain;
}
