/* codegen.c — checked tree to register bytecode. Each routine gets a frame: parameters, locals, then temporaries
 * allocated like a stack per statement (Lua's lcode). Values are runs of slots (ast.h); a value's "place" is a
 * register run, a global, an address held in a register (VAR parameters, computed indices), a system variable or
 * an I/O point. Typed instructions are chosen here, with constant operands and fused test-and-jump pairs. */
#include "codegen.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errcodes.h"
#include "units.h"

#define NO_JUMP (-1)
#define MAX_REG 65535

/* Open-addressing map from a 64-bit key to a constant index (constants are deduplicated per pool). */
typedef struct KMap {
    uint64_t *keys;
    int32_t *vals; /* -1: empty */
    uint32_t cap, n;
} KMap;

typedef struct Gen {
    Chunk *c;
    Diag *diag;
    int errors;
    bool in_main;     /* globals are registers of the main frame */
    int ntop, maxreg; /* next free register, high-water mark */
    int exit_chain;   /* EXIT jumps of the innermost loop */
    bool in_loop;
    ChunkLine loc;
    const char **files; /* interned file names, index = chunk file index */
    int nfiles;
    KMap kint, kreal, kstr;
    const char *probe; /* the string being looked up in kstr */
    size_t probe_len;
    int space; /* the string constant " " */
} Gen;

/* ---- Small helpers. ------------------------------------------------------------------------------------ */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Finds key in m; *slot gets its bucket. The value there is -1 when absent. */
static uint32_t kmap_find(KMap *m, uint64_t key, bool (*same)(Gen *, int32_t, uint64_t), Gen *g)
{
    if (m->n * 2 >= m->cap) {
        uint32_t ocap = m->cap, ncap = ocap ? ocap * 2 : 64;
        uint64_t *ok = m->keys;
        int32_t *ov = m->vals;
        m->keys = calloc(ncap, sizeof *m->keys);
        m->vals = malloc(ncap * sizeof *m->vals);
        if (!m->keys || !m->vals) abort();
        memset(m->vals, 0xff, ncap * sizeof *m->vals);
        m->cap = ncap;
        for (uint32_t i = 0; i < ocap; i++)
            if (ov[i] >= 0) {
                uint32_t j = (uint32_t)(ok[i] * 0x9E3779B97F4A7C15ull >> 40) & (ncap - 1);
                while (m->vals[j] >= 0) j = (j + 1) & (ncap - 1);
                m->keys[j] = ok[i];
                m->vals[j] = ov[i];
            }
        free(ok);
        free(ov);
    }
    uint32_t j = (uint32_t)(key * 0x9E3779B97F4A7C15ull >> 40) & (m->cap - 1);
    while (m->vals[j] >= 0 && !(m->keys[j] == key && (!same || same(g, m->vals[j], key)))) j = (j + 1) & (m->cap - 1);
    return j;
}

static int const_int(Gen *g, int64_t v)
{
    uint32_t j = kmap_find(&g->kint, (uint64_t)v, NULL, g);
    if (g->kint.vals[j] < 0) {
        g->kint.keys[j] = (uint64_t)v;
        g->kint.vals[j] = chunk_add_int(g->c, v);
        g->kint.n++;
    }
    return g->kint.vals[j];
}

static int const_real(Gen *g, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t j = kmap_find(&g->kreal, bits, NULL, g);
    if (g->kreal.vals[j] < 0) {
        g->kreal.keys[j] = bits;
        g->kreal.vals[j] = chunk_add_real(g->c, v);
        g->kreal.n++;
    }
    return g->kreal.vals[j];
}

static bool str_same(Gen *g, int32_t idx, uint64_t key)
{
    (void)key;
    const ChunkString *s = &g->c->kstr[idx];
    return (size_t)s->len == g->probe_len && memcmp(s->text, g->probe, g->probe_len) == 0;
}

static int const_string(Gen *g, const char *s)
{
    size_t n = strlen(s);
    g->probe = s;
    g->probe_len = n;
    uint64_t h = hash_bytes(s, n);
    uint32_t j = kmap_find(&g->kstr, h, str_same, g);
    if (g->kstr.vals[j] < 0) {
        g->kstr.keys[j] = h;
        g->kstr.vals[j] = n == 0 ? 0 : chunk_add_string(g->c, s, n);
        g->kstr.n++;
    }
    return g->kstr.vals[j];
}

/* The chunk's file index of an interned file name. */
static int file_index(Gen *g, const char *file)
{
    if (!file) return 0;
    for (int i = 0; i < g->nfiles; i++)
        if (g->files[i] == file || strcmp(g->files[i], file) == 0) return i;
    g->files = realloc(g->files, (size_t)(g->nfiles + 1) * sizeof *g->files);
    if (!g->files) abort();
    g->files[g->nfiles] = file;
    chunk_add_file(g->c, const_string(g, file));
    return g->nfiles++;
}

static void at(Gen *g, SrcLoc loc)
{
    if (!loc.file) return;
    g->loc = (ChunkLine){loc.line, loc.col, file_index(g, loc.file)};
}

static void gen_error(Gen *g, SrcLoc loc, const char *msg)
{
    diag_error(g->diag, loc, "%s", msg);
    g->errors++;
}

static int emit(Gen *g, Instr i) { return chunk_emit(g->c, i, g->loc); }
static int emit_abc(Gen *g, OpCode op, int a, int b, int c) { return emit(g, instr_abc(op, (unsigned)a, (unsigned)b, (unsigned)c)); }
static int emit_abx(Gen *g, OpCode op, int a, uint32_t bx) { return emit(g, instr_abx(op, (unsigned)a, bx)); }
static int here(Gen *g) { return g->c->ncode; }

/* Registers: a stack above the frame's variables, reset after each statement. */
static int alloc_regs(Gen *g, int n)
{
    int r = g->ntop;
    g->ntop += n;
    if (g->ntop > g->maxreg) g->maxreg = g->ntop;
    return r;
}

/* ---- Jumps: a chain of unpatched JMPs threaded through their Bx fields (Lua's lcode). -------------------- */

static int emit_jump(Gen *g) { return emit_abx(g, OP_JMP, 0, (uint32_t)NO_JUMP); }

static void patch_to(Gen *g, int chain, int target)
{
    while (chain != NO_JUMP) {
        Instr *ins = &g->c->code[chain];
        int next = INSTR_SBX(*ins);
        *ins = instr_abx(OP_JMP, 0, (uint32_t)(target - (chain + 1)));
        chain = next;
    }
}

static void patch_here(Gen *g, int chain) { patch_to(g, chain, here(g)); }

/* Appends chain b to chain *a. */
static void concat(Gen *g, int *a, int b)
{
    if (b == NO_JUMP) return;
    if (*a == NO_JUMP) {
        *a = b;
        return;
    }
    int l = *a;
    for (;;) {
        int next = INSTR_SBX(g->c->code[l]);
        if (next == NO_JUMP) break;
        l = next;
    }
    g->c->code[l] = instr_abx(OP_JMP, 0, (uint32_t)b);
}

/* A test instruction followed by its JMP; returns the JMP (a chain of one). */
static int emit_test(Gen *g, OpCode op, int a, int b, int c)
{
    emit_abc(g, op, a, b, c);
    return emit_jump(g);
}

/* ---- Constants of expressions. ------------------------------------------------------------------------- */

static bool fold_int(Node *e, int64_t *v)
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
        if (e->op == '-' && fold_int(e->a, v) && *v != INT64_MIN) {
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
        if (fold_int(e->a, &i)) {
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

static int nslots_of(const Type *t) { return t ? t->nslots : 1; }

/* Does evaluating e call a user routine (which could change variables through VAR parameters)? */
static bool has_call(Node *e)
{
    if (!e) return false;
    if (e->kind == E_CALL && e->builtin == BI_NONE) return true;
    if (e->kind == E_NAME && e->sym && e->sym->kind == SYM_IO) return true;
    if (has_call(e->a) || has_call(e->b)) return true;
    if (e->kind == E_CALL)
        for (int i = 0; i < e->list.count; i++)
            if (has_call(e->list.items[i])) return true;
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

typedef enum { PL_REG, PL_GLOBAL, PL_ADDR, PL_SYS, PL_IO } PlaceKind;
typedef struct Place {
    PlaceKind kind;
    int reg;    /* PL_REG: first register; PL_ADDR: register holding the address */
    bool owned; /* PL_ADDR: reg is a temporary this place may modify */
    int index;  /* PL_GLOBAL: absolute slot; PL_SYS: sysvar id; PL_IO: I/O point */
    int off;    /* static slot offset added to the above */
} Place;

static void expr_to(Gen *g, Node *e, int dst);
static void motion_sync(Gen *g);
static int expr_any(Gen *g, Node *e);
static void gen_place(Gen *g, Node *e, Place *p);

static int sysvar_id(const char *name)
{
    if (name && name[0] == '$') name++;
    for (int i = 0; i < SV_COUNT; i++)
        if (name && strcasecmp(irl_sysvarinfo[i].name, name) == 0) return i;
    return -1;
}

/* Puts the absolute address of place p (plus its offset) into register dst. */
static void place_addr_to(Gen *g, Place *p, int dst)
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
    int r = p->kind == PL_ADDR && p->owned ? p->reg : alloc_regs(g, 1);
    place_addr_to(g, p, r);
    *p = (Place){.kind = PL_ADDR, .reg = r, .owned = true};
}

/* Loads n slots of place p into dst (dst < 0: anywhere); returns the register holding them. */
static int place_load(Gen *g, Place *p, int n, int dst)
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
        if (dst < 0) dst = alloc_regs(g, n);
        if (n == 1) {
            emit_abx(g, OP_GETG, dst, (uint32_t)(p->index + p->off));
        } else {
            int t = alloc_regs(g, 1);
            emit_abx(g, OP_GADDR, t, (uint32_t)(p->index + p->off));
            emit_abc(g, OP_LOADR, dst, t, n);
        }
        return dst;
    case PL_ADDR: {
        if (dst < 0) dst = alloc_regs(g, n);
        int a = p->reg;
        if (p->off) {
            a = alloc_regs(g, 1);
            emit_abc(g, OP_OFFS, a, p->reg, p->off);
        }
        emit_abc(g, OP_LOADR, dst, a, n);
        return dst;
    }
    case PL_SYS:
        if (p->index == SV_TIME) motion_sync(g);
        if (dst < 0) dst = alloc_regs(g, n);
        emit_abc(g, OP_GETSYS, dst, irl_sysvarinfo[p->index].offset + p->off, n);
        return dst;
    case PL_IO: {
        if (dst < 0) dst = alloc_regs(g, 1);
        emit_abx(g, OP_LOADI, dst, (uint32_t)p->index);
        emit_abc(g, OP_MOTION, dst, MK_IO_READ, 1);
        return dst;
    }
    }
    return dst;
}

/* Stores n slots from register src into place p. */
static void place_store(Gen *g, Place *p, int src, int n)
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
            int t = alloc_regs(g, 1);
            emit_abx(g, OP_GADDR, t, (uint32_t)(p->index + p->off));
            emit_abc(g, OP_STORER, t, src, n);
        }
        return;
    case PL_ADDR: {
        int a = p->reg;
        if (p->off) {
            a = alloc_regs(g, 1);
            emit_abc(g, OP_OFFS, a, p->reg, p->off);
        }
        emit_abc(g, OP_STORER, a, src, n);
        return;
    }
    case PL_SYS: emit_abc(g, OP_SETSYS, src, irl_sysvarinfo[p->index].offset + p->off, n); return;
    case PL_IO: {
        int t = alloc_regs(g, 2);
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
static void gen_place(Gen *g, Node *e, Place *p)
{
    at(g, e->loc);
    if (e->kind != E_FIELD && e->kind != E_INDEX && !is_designator(e)) { /* a computed value: a temporary */
        int r = alloc_regs(g, nslots_of(e->type));
        expr_to(g, e, r);
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
        gen_place(g, e->a, p);
        p->off += e->field ? e->field->offset : (e->component > 0 ? e->component : 0);
        return;
    case E_INDEX: {
        gen_place(g, e->a, p);
        Type *t = e->a->type;
        int64_t k;
        if (t->kind == TY_ARRAY && fold_int(e->b, &k) && k >= 1 && k <= t->length) {
            p->off += (int)(k - 1) * t->elem->nslots; /* a constant index in range needs no check */
            return;
        }
        int ri = expr_any(g, e->b);
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
static void load_int(Gen *g, int dst, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX) emit_abx(g, OP_LOADI, dst, (uint32_t)(int32_t)v);
    else emit_abx(g, OP_LOADKI, dst, (uint32_t)const_int(g, v));
}

static void load_const(Gen *g, const ConstValue *v, int dst)
{
    switch (v->kind) {
    case TY_BOOL: load_int(g, dst, v->u.b); break;
    case TY_INT: load_int(g, dst, v->u.i); break;
    case TY_REAL: emit_abx(g, OP_LOADKR, dst, (uint32_t)const_real(g, v->u.r)); break;
    case TY_STRING: emit_abx(g, OP_LOADKS, dst, (uint32_t)const_string(g, v->u.s ? v->u.s : "")); break;
    default: emit_abc(g, OP_ZERO, dst, 1, 0); break;
    }
}

/* Evaluates an operand; if `protect` (a later operand calls a routine), a variable's register is copied. */
static int operand(Gen *g, Node *e, bool protect)
{
    int mark = g->ntop;
    int r = expr_any(g, e);
    if (protect && r < mark) {
        int t = alloc_regs(g, 1);
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
    int idx = const_real(g, v);
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
            int ra = expr_any(g, a->a);
            at(g, e->loc);
            emit_abc(g, OP_MULIRK, dst, ra, k);
            return;
        }
        int ra = expr_any(g, a);
        at(g, e->loc);
        emit_abc(g, kop, dst, ra, k);
        return;
    }
    if (kreal_operand(g, a, &k)) {
        int rb = expr_any(g, b);
        at(g, e->loc);
        switch (e->op) {
        case '+': emit_abc(g, OP_ADDRK, dst, rb, k); return;
        case '*': emit_abc(g, OP_MULRK, dst, rb, k); return;
        case '-': emit_abc(g, OP_SUBKR, dst, rb, k); return;
        default: emit_abc(g, OP_DIVKR, dst, rb, k); return;
        }
    }
    int ra = operand(g, a, has_call(b));
    int rb = expr_any(g, b);
    at(g, e->loc);
    OpCode op = e->op == '+' ? OP_ADDR : e->op == '-' ? OP_SUBR : e->op == '*' ? OP_MULR : OP_DIVR;
    emit_abc(g, op, dst, ra, rb);
}

static void arith_int(Gen *g, Node *e, int dst)
{
    int64_t k;
    if ((e->op == '+' || e->op == '-') && fold_int(e->b, &k) && k >= -32767 && k <= 32767) {
        int ra = expr_any(g, e->a);
        at(g, e->loc);
        emit_abc(g, OP_ADDII, dst, ra, (unsigned)(uint16_t)(int16_t)(e->op == '+' ? k : -k));
        return;
    }
    if (e->op == '+' && fold_int(e->a, &k) && k >= -32767 && k <= 32767) { /* 1 + i */
        int rb = expr_any(g, e->b);
        at(g, e->loc);
        emit_abc(g, OP_ADDII, dst, rb, (unsigned)(uint16_t)(int16_t)k);
        return;
    }
    int ra = operand(g, e->a, has_call(e->b));
    int rb = expr_any(g, e->b);
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
    int ra = operand(g, a, has_call(b));
    int rb = expr_any(g, b);
    at(g, e->loc);
    OpCode o;
    if (k == TY_STRING) o = op == '=' ? OP_EQS : OP_NES;
    else if (k == TY_REAL) o = op == '=' ? OP_EQR : op == OP_NE ? OP_NER : op == '<' ? OP_LTR : OP_LER;
    else o = op == '=' ? OP_EQI : op == OP_NE ? OP_NEI : op == '<' ? OP_LTI : OP_LEI;
    emit_abc(g, o, dst, ra, rb);
}

static int cond_jump(Gen *g, Node *e, bool when);

/* Built-in calls: arguments in a run at A, BUILTIN, the result at A. */
static int builtin_call(Gen *g, Node *e)
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
        int r = alloc_regs(g, 2);
        expr_to(g, args[0], r);
        for (int i = 1; i < n; i++) {
            expr_to(g, args[i], r + 1);
            at(g, e->loc);
            emit_abc(g, OP_BUILTIN, r, id, 2);
        }
        return r;
    }
    default: return alloc_regs(g, nslots_of(e->type));
    }
    int argslots = 0;
    for (int i = 0; i < n; i++) argslots += nslots_of(args[i]->type);
    int res = irl_builtininfo[id].nresult;
    int r = alloc_regs(g, argslots > res ? argslots : res);
    int off = 0;
    for (int i = 0; i < n; i++) {
        expr_to(g, args[i], r + off);
        off += nslots_of(args[i]->type);
    }
    at(g, e->loc);
    emit_abc(g, OP_BUILTIN, r, id, argslots);
    return r;
}

/* A call of a user routine: arguments in a run at A, CALL, the result at A. */
static int user_call(Gen *g, Node *e)
{
    Node *r = e->sym->decl;
    int pslots = 0;
    for (int i = 0; i < r->list.count; i++)
        pslots += (r->list.items[i]->flags & NF_VARPARAM) ? 1 : nslots_of(r->list.items[i]->sym ? r->list.items[i]->sym->type : NULL);
    int res = (r->flags & NF_FUNCTION) ? nslots_of(e->type) : 0;
    int base = alloc_regs(g, pslots > res ? pslots : res);
    int off = 0;
    for (int i = 0; i < e->list.count && i < r->list.count; i++) {
        Node *p = r->list.items[i], *arg = e->list.items[i];
        int mark = g->ntop;
        if (p->flags & NF_VARPARAM) {
            Place pl;
            gen_place(g, arg, &pl);
            place_addr_to(g, &pl, base + off);
            off += 1;
        } else {
            expr_to(g, arg, base + off);
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
    int r = alloc_regs(g, na + nb);
    expr_to(g, e->a, r);
    expr_to(g, e->b, r + na);
    at(g, e->loc);
    emit_abc(g, OP_BUILTIN, r, id, na + nb);
    return r;
}

/* Evaluates e into the run of registers at dst. */
static void expr_to(Gen *g, Node *e, int dst)
{
    int n = nslots_of(e->type);
    int mark = g->ntop;
    at(g, e->loc);
    switch (e->kind) {
    case E_INT: load_int(g, dst, e->lit.i); break;
    case E_REAL: emit_abx(g, OP_LOADKR, dst, (uint32_t)const_real(g, e->lit.r)); break;
    case E_BOOL: load_int(g, dst, e->lit.b); break;
    case E_STRING: emit_abx(g, OP_LOADKS, dst, (uint32_t)const_string(g, e->lit.s ? e->lit.s : "")); break;
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
        gen_place(g, e, &p);
        at(g, e->loc);
        place_load(g, &p, n, dst);
        break;
    }
    case E_WIDEN: {
        double v;
        if (fold_real(e, &v)) {
            emit_abx(g, OP_LOADKR, dst, (uint32_t)const_real(g, v));
            break;
        }
        int r = expr_any(g, e->a);
        emit_abc(g, OP_ITOR, dst, r, 0);
        break;
    }
    case E_UNARY: {
        if (e->op == OP_NOT) {
            int r = expr_any(g, e->a);
            at(g, e->loc);
            emit_abc(g, OP_NOTB, dst, r, 0);
            break;
        }
        double v;
        int64_t iv;
        if (e->type->kind == TY_INT && fold_int(e, &iv)) {
            load_int(g, dst, iv);
            break;
        }
        if (e->type->kind == TY_REAL && fold_real(e, &v)) {
            emit_abx(g, OP_LOADKR, dst, (uint32_t)const_real(g, v));
            break;
        }
        int r = expr_any(g, e->a);
        at(g, e->loc);
        emit_abc(g, e->type->kind == TY_INT ? OP_NEGI : OP_NEGR, dst, r, 0);
        break;
    }
    case E_BINARY:
        switch (e->op) {
        case OP_AND:
        case OP_OR: {
            expr_to(g, e->a, dst);
            int j = emit_test(g, OP_TEST, dst, 0, e->op == OP_OR);
            expr_to(g, e->b, dst);
            patch_here(g, j);
            break;
        }
        case '=': case OP_NE: case '<': case OP_LE: case '>': case OP_GE: compare_value(g, e, dst); break;
        case '@': {
            int r = compose(g, e);
            place_store(g, &(Place){.kind = PL_REG, .reg = dst}, r, n);
            break;
        }
        default:
            if (e->type->kind == TY_INT) arith_int(g, e, dst);
            else arith_real(g, e, dst);
            break;
        }
        break;
    case E_CALL: {
        int r = e->builtin != BI_NONE ? builtin_call(g, e) : user_call(g, e);
        place_store(g, &(Place){.kind = PL_REG, .reg = dst}, r, n);
        break;
    }
    default: emit_abc(g, OP_ZERO, dst, n, 0); break;
    }
    g->ntop = mark;
}

/* Evaluates e anywhere: a variable's own registers when it lives in the frame, else fresh temporaries. */
static int expr_any(Gen *g, Node *e)
{
    if (e->kind == E_FIELD || e->kind == E_INDEX ||
        (e->kind == E_NAME && is_designator(e) && e->sym->kind != SYM_IO)) {
        Place p;
        int mark = g->ntop;
        gen_place(g, e, &p);
        if (p.kind == PL_REG) {
            g->ntop = mark;
            return p.reg + p.off;
        }
        int r = place_load(g, &p, nslots_of(e->type), -1);
        return r;
    }
    if (e->kind == E_CALL) {
        at(g, e->loc);
        return e->builtin != BI_NONE ? builtin_call(g, e) : user_call(g, e);
    }
    if (e->kind == E_BINARY && e->op == '@') {
        at(g, e->loc);
        return compose(g, e);
    }
    int r = alloc_regs(g, nslots_of(e->type));
    expr_to(g, e, r);
    return r;
}

/* ---- Conditions: jump when e == when, fall through otherwise. ----------------------------------------- */

static int cond_jump(Gen *g, Node *e, bool when)
{
    int mark = g->ntop;
    at(g, e->loc);
    int chain = NO_JUMP;
    if (e->kind == E_UNARY && e->op == OP_NOT) return cond_jump(g, e->a, !when);
    if (e->kind == E_BINARY && (e->op == OP_AND || e->op == OP_OR)) {
        bool and = e->op == OP_AND;
        if (and != when) { /* AND jumping on false, OR jumping on true: either operand decides */
            chain = cond_jump(g, e->a, when);
            concat(g, &chain, cond_jump(g, e->b, when));
        } else {
            int skip = cond_jump(g, e->a, !when);
            chain = cond_jump(g, e->b, when);
            patch_here(g, skip);
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
        if (!real && fold_int(e->b, &k) && k >= -32768 && k <= 32767) {
            int ra = expr_any(g, e->a);
            at(g, e->loc);
            OpCode o = op == '=' ? OP_TEQII : op == '<' ? OP_TLTII : op == OP_LE ? OP_TLEII : op == '>' ? OP_TGTII : OP_TGEII;
            chain = emit_test(g, o, ra, (unsigned)(uint16_t)(int16_t)k, w);
        } else {
            Node *a = e->a, *b = e->b;
            if (op == '>' || op == OP_GE) {
                Node *t = a; a = b; b = t;
                op = op == '>' ? '<' : OP_LE;
            }
            int ra = operand(g, a, has_call(b));
            int rb = expr_any(g, b);
            at(g, e->loc);
            OpCode o = real ? (op == '=' ? OP_TEQR : op == '<' ? OP_TLTR : OP_TLER)
                            : (op == '=' ? OP_TEQI : op == '<' ? OP_TLTI : OP_TLEI);
            chain = emit_test(g, o, ra, rb, w);
        }
        g->ntop = mark;
        return chain;
    }
    int r = expr_any(g, e);
    at(g, e->loc);
    chain = emit_test(g, OP_TEST, r, 0, when);
    g->ntop = mark;
    return chain;
}

/* ---- PRINT. ------------------------------------------------------------------------------------------ */

static void print_text(Gen *g, const char *s) { emit_abx(g, OP_PRINTK, 0, (uint32_t)const_string(g, s)); }

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
        for (int j = i + 1; j < n; j++) later_call = later_call || has_call(s->list.items[j]);
        regs[i] = e->kind == E_STRING ? -1 : operand(g, e, later_call);
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

static void stmts(Gen *g, NodeList *l);

static void stmt_assign(Gen *g, Node *s)
{
    Node *target = s->a, *value = s->b;
    int n = nslots_of(target->type);
    Place p;
    gen_place(g, target, &p);
    /* Scalars computed straight into a frame variable when the value reads it only before the final write. */
    bool direct = p.kind == PL_REG && n == 1 &&
                  (value->kind == E_WIDEN || value->kind == E_UNARY || value->kind == E_INT ||
                   value->kind == E_REAL || value->kind == E_NAME ||
                   (value->kind == E_BINARY && value->op != OP_AND && value->op != OP_OR && value->op != '@'));
    if (direct) {
        expr_to(g, value, p.reg + p.off);
        return;
    }
    int r = expr_any(g, value);
    at(g, s->loc);
    place_store(g, &p, r, n);
}

static void loop_body(Gen *g, NodeList *body, int *exits)
{
    int saved = g->exit_chain;
    bool saved_in = g->in_loop;
    g->exit_chain = NO_JUMP;
    g->in_loop = true;
    stmts(g, body);
    *exits = g->exit_chain;
    g->exit_chain = saved;
    g->in_loop = saved_in;
}

static void stmt_if(Gen *g, Node *s)
{
    int end = NO_JUMP;
    for (int i = 0; i < s->list.count; i++) {
        Node *arm = s->list.items[i];
        int next = cond_jump(g, arm->a, false);
        stmts(g, &arm->list);
        if (i + 1 < s->list.count || s->list2.count) concat(g, &end, emit_jump(g));
        patch_here(g, next);
    }
    stmts(g, &s->list2);
    patch_here(g, end);
}

static void stmt_while(Gen *g, Node *s)
{
    int top = here(g);
    int out = cond_jump(g, s->a, false);
    int exits;
    loop_body(g, &s->list, &exits);
    at(g, s->loc);
    patch_to(g, emit_jump(g), top);
    patch_here(g, out);
    patch_here(g, exits);
}

static void stmt_repeat(Gen *g, Node *s)
{
    int top = here(g), exits;
    loop_body(g, &s->list, &exits);
    patch_to(g, cond_jump(g, s->a, false), top);
    patch_here(g, exits);
}

static void stmt_loop(Gen *g, Node *s)
{
    int top = here(g), exits;
    loop_body(g, &s->list, &exits);
    at(g, s->loc);
    patch_to(g, emit_jump(g), top);
    patch_here(g, exits);
}

/* FOR v := a TO b [BY s]: the counter is v's own register when v lives in the frame; otherwise a temporary
 * copied to v before and back from v after each pass, so assignments to v in the body steer the loop alike. */
static void stmt_for(Gen *g, Node *s)
{
    Place p;
    gen_place(g, s->a, &p);
    bool direct = p.kind == PL_REG;
    int c = direct ? p.reg + p.off : alloc_regs(g, 1);
    int lim = alloc_regs(g, 2);
    int from = alloc_regs(g, 1);
    expr_to(g, s->b, from); /* the limit may read v: it still holds its old value */
    expr_to(g, s->c, lim);
    if (s->d) expr_to(g, s->d, lim + 1);
    else load_int(g, lim + 1, 1);
    at(g, s->loc);
    emit_abc(g, OP_MOV, c, from, 0);
    emit_abc(g, OP_FORPREP, c, lim, 0);
    int out = emit_jump(g);
    int top = here(g), exits;
    if (!direct) place_store(g, &p, c, 1);
    loop_body(g, &s->list, &exits);
    at(g, s->loc);
    if (!direct) place_load(g, &p, 1, c);
    int back = top - (here(g) + 1);
    if (back >= INT16_MIN) {
        emit_abc(g, OP_FORLOOP, c, lim, (unsigned)back);
    } else { /* beyond sC's reach: FORLOOP steps over its exit JMP onto a JMP back */
        emit_abc(g, OP_FORLOOP, c, lim, 1);
        int exit = emit_jump(g);
        patch_to(g, emit_jump(g), top);
        patch_here(g, exit);
    }
    patch_here(g, out);
    patch_here(g, exits);
}

static void stmt_case(Gen *g, Node *s)
{
    int sel = expr_any(g, s->a);
    int narms = s->list.count;
    int *arm_jumps = calloc((size_t)narms + 1, sizeof *arm_jumps);
    if (!arm_jumps) abort();
    for (int i = 0; i < narms; i++) {
        Node *arm = s->list.items[i];
        arm_jumps[i] = NO_JUMP;
        for (int j = 0; j < arm->list.count; j++) {
            Node *l = arm->list.items[j];
            int64_t k = 0;
            fold_int(l, &k);
            at(g, l->loc);
            if (k >= -32768 && k <= 32767) {
                concat(g, &arm_jumps[i], emit_test(g, OP_TEQII, sel, (unsigned)(uint16_t)(int16_t)k, 1));
            } else {
                int t = alloc_regs(g, 1);
                load_int(g, t, k);
                concat(g, &arm_jumps[i], emit_test(g, OP_TEQI, sel, t, 1));
                g->ntop--;
            }
        }
    }
    int to_else = emit_jump(g), end = NO_JUMP;
    for (int i = 0; i < narms; i++) {
        patch_here(g, arm_jumps[i]);
        stmts(g, &s->list.items[i]->list2);
        concat(g, &end, emit_jump(g));
    }
    patch_here(g, to_else);
    stmts(g, &s->list2);
    patch_here(g, end);
    free(arm_jumps);
}

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
    int total = MOTION_HDR + 3 + nslots_of(s->b->type), r = alloc_regs(g, total), op = r + MOTION_HDR;
    expr_to(g, s->c, op);
    at(g, s->loc);
    emit_abx(g, OP_LOADI, op + 2, (uint32_t)-1); /* state: not started */
    emit_abx(g, OP_LOADI, r + 1, (uint32_t)device_index(g, s->a));
    emit_abx(g, OP_LOADI, r + 2, (uint32_t)(nslots_of(s->b->type) / 3)); /* axes */
    emit_abx(g, OP_LOADI, r + 3, 0);
    int top = here(g);
    emit_abx(g, OP_LOADI, r, (uint32_t)(here(g) + 1)); /* the pc of the MOTION below */
    emit_abc(g, OP_MOTION, r, MK_MOVE_FOLLOW_FN, total);
    int done = emit_test(g, OP_TEST, op + 2, 0, 0);
    emit_abc(g, OP_MOV, op + 3, op + 1, 0); /* the argument t, where the result lands */
    emit_abc(g, OP_CALL, op + 3, s->b->sym->index, 0);
    patch_to(g, emit_jump(g), top);
    patch_here(g, done);
}

/* Motion statements: a header (opcodes.h, MOTION_HDR), the WITH values and the operands in one run, then the
 * door (runtime/exec/motion.h). WAIT FOR loops on the door until it says the wait is over. */
static void stmt_motion(Gen *g, Node *s)
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
    int r = alloc_regs(g, total), off = MOTION_HDR;
    at(g, s->loc);
    if (k == MK_WAIT_FOR) emit_abx(g, OP_LOADI, r + 1, (uint32_t)-1); /* state: not started */
    int top = here(g);
    for (int j = 0; j < MP_COUNT; j++)
        if (with[j]) expr_to(g, with[j], r + off++);
    for (int i = 0; i < 2; i++)
        if (ops[i]) {
            expr_to(g, ops[i], r + off);
            off += nslots_of(ops[i]->type);
        }
    for (int i = 0; points && i < points->count; i++) {
        expr_to(g, points->items[i], r + off);
        off += nslots_of(points->items[i]->type);
    }
    at(g, s->loc);
    if (k != MK_WAIT_FOR) emit_abx(g, OP_LOADI, r + 1, (uint32_t)who);
    emit_abx(g, OP_LOADI, r + 2, (uint32_t)shape);
    emit_abx(g, OP_LOADI, r + 3, (uint32_t)mask);
    emit_abx(g, OP_LOADI, r, (uint32_t)(here(g) + 1)); /* the pc of the MOTION below */
    emit_abc(g, OP_MOTION, r, k, total);
    if (k == MK_WAIT_FOR) patch_to(g, emit_test(g, OP_TEST, r + MOTION_HDR + nwith, 0, 0), top);
}

/* TRIGGER: the header, d, DELAY, the target's IO index or absolute slot, and the value, evaluated now (opcodes.h);
 * the door binds it to the device's next MOVE, which makes the assignment in a cycle of its motion. */
static void stmt_trigger(Gen *g, Node *s)
{
    Node *as = s->d;
    int r = alloc_regs(g, MOTION_HDR + 4);
    int64_t shape = (s->flags & TRIGGER_END ? MOTION_TRIGGER_END : 0) |
                    (s->b->type && dim_is_none(s->b->type->dim) ? MOTION_TRIGGER_FRACTION : 0);
    expr_to(g, s->b, r + MOTION_HDR);
    if (s->c) expr_to(g, s->c, r + MOTION_HDR + 1);
    else emit_abc(g, OP_ZERO, r + MOTION_HDR + 1, 1, 0);
    Place p;
    gen_place(g, as->a, &p);
    if (p.kind == PL_IO) {
        shape |= MOTION_TRIGGER_IO;
        emit_abx(g, OP_LOADI, r + MOTION_HDR + 2, (uint32_t)p.index);
    } else {
        place_addr_to(g, &p, r + MOTION_HDR + 2);
    }
    expr_to(g, as->b, r + MOTION_HDR + 3);
    at(g, s->loc);
    emit_abx(g, OP_LOADI, r + 1, (uint32_t)device_index(g, s->a));
    emit_abx(g, OP_LOADI, r + 2, (uint32_t)shape);
    emit_abx(g, OP_LOADI, r + 3, 0);
    emit_abx(g, OP_LOADI, r, (uint32_t)(here(g) + 1)); /* the pc of the MOTION below */
    emit_abc(g, OP_MOTION, r, MK_TRIGGER, MOTION_HDR + 4);
}

/* Reading $TIME stops look-ahead: the door runs the motion to the programmed point first. */
static void motion_sync(Gen *g)
{
    int r = alloc_regs(g, 1);
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
    int t = alloc_regs(g, 1);
    emit_abx(g, OP_GETG, t, (uint32_t)slot);
    emit_abc(g, OP_ADDII, t, t, (unsigned)(k & 0xffff));
    emit_abx(g, OP_SETG, t, (uint32_t)slot);
}

/* SIGNAL ev: the door stops look-ahead (the task's motion reaches its point), then ev := ev + 1. */
static void stmt_signal(Gen *g, Node *s)
{
    int r = alloc_regs(g, MOTION_HDR);
    door_header(g, r, -1, 0, true);
    emit_abc(g, OP_MOTION, r, MK_SIGNAL, MOTION_HDR);
    event_add(g, s->a->sym->slot, 1);
}

/* WAIT ev [TIMEOUT t]: a loop on the door (like WAIT FOR) until the count is > 0, then ev := ev - 1. */
static void stmt_wait_event(Gen *g, Node *s)
{
    int total = MOTION_HDR + 2 + (s->b ? 1 : 0);
    int r = alloc_regs(g, total), slot = s->a->sym->slot;
    emit_abx(g, OP_LOADI, r + 1, (uint32_t)-1); /* state: not started */
    if (s->b) expr_to(g, s->b, r + MOTION_HDR + 2);
    at(g, s->loc);
    int top = here(g);
    emit_abx(g, OP_GETG, r + MOTION_HDR, (uint32_t)slot);
    emit_abx(g, OP_LOADKS, r + MOTION_HDR + 1, (uint32_t)const_string(g, s->a->name));
    door_header(g, r, 0, s->b != NULL, false);
    emit_abc(g, OP_MOTION, r, MK_WAIT_EVENT, total);
    patch_to(g, emit_test(g, OP_TEST, r + MOTION_HDR, 0, 0), top);
    event_add(g, slot, -1);
}

/* BRAKE dev: the door stops the device under control and drops its queued motion. */
static void stmt_brake(Gen *g, Node *s)
{
    int r = alloc_regs(g, MOTION_HDR);
    door_header(g, r, device_index(g, s->a), 0, true);
    emit_abc(g, OP_MOTION, r, MK_BRAKE, MOTION_HDR);
}

/* ENABLE / DISABLE name: the interrupt is named by its condition's routine (D_INTERRUPT sym->slot). */
static void stmt_interrupt(Gen *g, Node *s)
{
    Node *d = s->a->sym->decl;
    int64_t prio = 0;
    if (d->b) fold_int(d->b, &prio);
    if (s->kind == S_ENABLE)
        emit_abc(g, OP_ENABLE, (unsigned)prio, (unsigned)d->sym->slot, (unsigned)d->c->sym->index);
    else
        emit_abc(g, OP_DISABLE, 0, (unsigned)d->sym->slot, 0);
}

static void stmt(Gen *g, Node *s)
{
    int mark = g->ntop, start = here(g);
    at(g, s->loc);
    switch (s->kind) {
    case S_ASSIGN: stmt_assign(g, s); break;
    case S_CALL: {
        Node *call = s->a;
        if (call->builtin != BI_NONE) builtin_call(g, call);
        else if (call->sym) user_call(g, call);
        break;
    }
    case S_IF: stmt_if(g, s); break;
    case S_WHILE: stmt_while(g, s); break;
    case S_REPEAT: stmt_repeat(g, s); break;
    case S_LOOP: stmt_loop(g, s); break;
    case S_FOR: stmt_for(g, s); break;
    case S_CASE: stmt_case(g, s); break;
    case S_EXIT: concat(g, &g->exit_chain, emit_jump(g)); break;
    case S_RETURN:
        if (s->a) {
            int n = nslots_of(s->a->type);
            int r = expr_any(g, s->a);
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
            int r = expr_any(g, s->a);
            at(g, s->loc);
            emit_abc(g, OP_RAISE, r, 0, 0);
        } else {
            emit_abc(g, OP_RERAISE, 0, 0, 0);
        }
        break;
    case S_RETRY: emit_abc(g, OP_RETRY, 0, 0, 0); break;
    case S_SKIP: emit_abc(g, OP_SKIP, 0, 0, 0); break;
    case S_WAIT:
        if (s->flags & NF_EVENT) stmt_wait_event(g, s);
        else stmt_motion(g, s);
        break;
    case S_MOVE: case S_GMOVE: case S_WAIT_FOR: case S_PULSE: stmt_motion(g, s); break;
    /* tasks, events, interrupts */
    case S_SIGNAL: stmt_signal(g, s); break;
    case S_START: emit_abc(g, OP_START, 0, (unsigned)s->a->sym->decl->sym->index, 0); break;
    case S_ENABLE: case S_DISABLE: stmt_interrupt(g, s); break;
    case S_BRAKE: stmt_brake(g, s); break;
    /* path-triggered I/O */
    case S_TRIGGER: stmt_trigger(g, s); break;
    default: break;
    }
    g->ntop = mark;
    if (here(g) > start) chunk_add_stmt(g->c, start, here(g));
}

static void stmts(Gen *g, NodeList *l)
{
    for (int i = 0; i < l->count; i++) stmt(g, l->items[i]);
}

/* ---- Variables, routines, the program. -------------------------------------------------------------- */

/* Writes identity quaternions into the ORIENTATION parts of a zeroed value of type t at register r. */
static void init_identity(Gen *g, const Type *t, int r)
{
    switch (t->kind) {
    case TY_ORIENTATION: emit_abc(g, OP_IDQ, r, 0, 0); break;
    case TY_POSE: emit_abc(g, OP_IDQ, r + 3, 0, 0); break;
    case TY_RECORD:
        for (int i = 0; i < t->nfields; i++) init_identity(g, t->fields[i].type, r + t->fields[i].offset);
        break;
    case TY_ARRAY:
        for (int i = 0; i < t->length; i++) init_identity(g, t->elem, r + i * t->elem->nslots);
        break;
    default: break;
    }
}

static bool has_orientation(const Type *t)
{
    if (!t) return false;
    if (t->kind == TY_ORIENTATION || t->kind == TY_POSE) return true;
    if (t->kind == TY_ARRAY) return has_orientation(t->elem);
    if (t->kind == TY_RECORD)
        for (int i = 0; i < t->nfields; i++)
            if (has_orientation(t->fields[i].type)) return true;
    return false;
}

/* Zeroes registers [from, to) and gives each VAR of decls its initial value. */
static void init_vars(Gen *g, NodeList *decls, int from, int to)
{
    for (int r = from; r < to; r += MAX_REG) emit_abc(g, OP_ZERO, r, to - r > MAX_REG ? MAX_REG : to - r, 0);
    for (int i = 0; i < decls->count; i++) {
        Node *d = decls->items[i];
        if (d->kind != D_VAR) continue;
        for (int j = 0; j < d->list.count; j++) {
            Node *name = d->list.items[j];
            if (!name->sym || !name->sym->type) continue;
            int start = here(g), mark = g->ntop;
            at(g, name->loc);
            if (d->b) {
                int r = expr_any(g, d->b);
                at(g, name->loc);
                place_store(g, &(Place){.kind = PL_REG, .reg = name->sym->slot}, r, name->sym->type->nslots);
            } else if (has_orientation(name->sym->type)) {
                init_identity(g, name->sym->type, name->sym->slot);
            }
            g->ntop = mark;
            if (here(g) > start) chunk_add_stmt(g->c, start, here(g));
        }
    }
}

/* Falling off the end of a body or handler: return (a FUNCTION's zero value; the checker makes it unreachable). */
static void end_unit(Gen *g, Node *unit, int nvars)
{
    int n = (unit->flags & NF_FUNCTION) ? nslots_of(unit->sym->type) : 0;
    g->ntop = nvars;
    alloc_regs(g, n);
    at(g, unit->loc);
    if (n) emit_abc(g, OP_ZERO, nvars, n, 0);
    emit_abc(g, OP_RET, nvars, n, 0);
    g->ntop = nvars;
}

/* The body and handler of the main program or a routine, starting at the current pc. */
static void gen_body(Gen *g, Node *unit, int ridx, int nvars, NodeList *decls)
{
    ChunkRoutine *r = &g->c->routines[ridx];
    r->entry = here(g);
    g->ntop = g->maxreg = nvars;
    g->exit_chain = NO_JUMP;
    at(g, unit->loc);
    init_vars(g, decls, ridx == 0 ? 0 : r->param_slots, nvars);
    stmts(g, &unit->body);
    end_unit(g, unit, nvars);
    r = &g->c->routines[ridx];
    if (unit->flags & NF_HANDLER) {
        r->handler = here(g);
        stmts(g, &unit->handler);
        end_unit(g, unit, nvars);
    }
    r = &g->c->routines[ridx];
    r->end = here(g);
    r->frame_size = g->maxreg;
    if (g->maxreg > MAX_REG && !(ridx == 0 && nvars > MAX_REG)) /* (too many globals: reported already) */
        gen_error(g, unit->loc, ridx == 0 ? "the program body needs more than 65535 slots of storage"
                                          : "this routine needs more than 65535 slots of storage");
}

/* An INTERRUPT's condition as a FUNCTION of no parameters: RET of the BOOL. */
static void gen_condition(Gen *g, Node *d)
{
    ChunkRoutine *r = &g->c->routines[d->sym->slot];
    r->entry = here(g);
    g->ntop = g->maxreg = 0;
    g->exit_chain = NO_JUMP;
    at(g, d->a->loc);
    int x = expr_any(g, d->a);
    at(g, d->loc);
    emit_abc(g, OP_RET, x, 1, 0);
    r = &g->c->routines[d->sym->slot];
    r->end = here(g);
    r->frame_size = g->maxreg > 1 ? g->maxreg : 1;
}

int codegen_program(Node *program, Chunk *c, Diag *diag)
{
    Gen gen = {0}, *g = &gen;
    g->c = c;
    g->diag = diag;
    g->kstr.cap = 0;
    const_string(g, ""); /* index 0 */
    file_index(g, program->loc.file);
    g->space = const_string(g, " ");
    c->nglobals = program->nslots;
    if (program->nslots > MAX_REG) gen_error(g, program->loc, "program-level variables need more than 65535 slots");

    /* Routine table first (indices for CALL), then code: main, then each routine in order. */
    ChunkRoutine main = {.name = const_string(g, program->name ? program->name : "main"), .handler = -1,
                         .line = program->loc.line};
    chunk_add_routine(c, main);
    for (int i = 0; i < program->list.count; i++) {
        Node *d = program->list.items[i];
        if (d->kind == D_DEVICE) {
            ChunkDevice dev = {const_string(g, d->name), const_string(g, d->lit.s ? d->lit.s : ""),
                               const_string(g, d->a && d->a->lit.s ? d->a->lit.s : "")};
            chunk_add_device(c, dev);
        } else if (d->kind == D_IO) {
            int64_t ch = 0;
            fold_int(d->a, &ch);
            chunk_add_io(c, (ChunkIo){const_string(g, d->name), d->flags & 0xff, ch});
        }
        if (d->kind == D_INTERRUPT && d->sym) { /* its condition: a FUNCTION without parameters giving BOOL */
            ChunkRoutine r = {.name = const_string(g, d->name), .handler = -1, .line = d->loc.line,
                              .file = file_index(g, d->loc.file), .kinds = c->nparam_kinds, .result_slots = 1};
            d->sym->slot = chunk_add_routine(c, r);
        }
        if (d->kind != N_ROUTINE || !d->sym) continue;
        ChunkRoutine r = {.name = const_string(g, d->name), .handler = -1, .line = d->loc.line,
                          .file = file_index(g, d->loc.file), .nparams = d->list.count, .kinds = c->nparam_kinds};
        for (int j = 0; j < d->list.count; j++) {
            Node *p = d->list.items[j];
            bool var = (p->flags & NF_VARPARAM) != 0;
            chunk_add_param_kind(c, var ? PARAM_VAR : PARAM_VALUE);
            r.param_slots += var ? 1 : nslots_of(p->sym ? p->sym->type : NULL);
        }
        r.result_slots = (d->flags & NF_FUNCTION) ? nslots_of(d->sym->type) : 0;
        d->sym->index = chunk_add_routine(c, r);
    }

    g->in_main = true;
    gen_body(g, program, 0, program->nslots, &program->list);
    g->in_main = false;
    for (int i = 0; i < program->list.count; i++) {
        Node *d = program->list.items[i];
        if (d->kind == N_ROUTINE && d->sym) gen_body(g, d, d->sym->index, d->nslots, &d->list2);
        if (d->kind == D_INTERRUPT && d->sym) gen_condition(g, d);
    }

    free(g->files);
    free(g->kint.keys), free(g->kint.vals);
    free(g->kreal.keys), free(g->kreal.vals);
    free(g->kstr.keys), free(g->kstr.vals);
    return g->errors;
}
