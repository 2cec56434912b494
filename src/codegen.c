/* codegen.c — checked tree to register bytecode. Each routine gets a frame: parameters, locals, then temporaries
 * allocated like a stack per statement (Lua's lcode). Values are runs of slots (ast.h); a value's "place" is a
 * register run, a global, an address held in a register (VAR parameters, computed indices), a system variable or
 * an I/O point. Typed instructions are chosen here, with constant operands and fused test-and-jump pairs. This file
 * owns the constant pools, registers and jump chains, and the driver: variables' initial values, each routine's
 * body and handler, INTERRUPT conditions and the routine table; codegen_expr.c, codegen_stmt.c and
 * codegen_motion.c generate the code inside. */
#include "codegen_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- Constant pools, the file index, registers. ------------------------------------------------------- */

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

int cg_const_int(Gen *g, int64_t v)
{
    uint32_t j = kmap_find(&g->kint, (uint64_t)v, NULL, g);
    if (g->kint.vals[j] < 0) {
        g->kint.keys[j] = (uint64_t)v;
        g->kint.vals[j] = chunk_add_int(g->c, v);
        g->kint.n++;
    }
    return g->kint.vals[j];
}

int cg_const_real(Gen *g, double v)
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

int cg_const_string(Gen *g, const char *s)
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
int cg_file_index(Gen *g, const char *file)
{
    if (!file) return 0;
    for (int i = 0; i < g->nfiles; i++)
        if (g->files[i] == file || strcmp(g->files[i], file) == 0) return i;
    g->files = realloc(g->files, (size_t)(g->nfiles + 1) * sizeof *g->files);
    if (!g->files) abort();
    g->files[g->nfiles] = file;
    chunk_add_file(g->c, cg_const_string(g, file));
    return g->nfiles++;
}

static void gen_error(Gen *g, SrcLoc loc, const char *msg)
{
    diag_error(g->diag, loc, "%s", msg);
    g->errors++;
}

/* Registers: a stack above the frame's variables, reset after each statement. */
int cg_alloc_regs(Gen *g, int n)
{
    int r = g->ntop;
    g->ntop += n;
    if (g->ntop > g->maxreg) g->maxreg = g->ntop;
    return r;
}

/* ---- Jumps: a chain of unpatched JMPs threaded through their Bx fields (Lua's lcode). -------------------- */

int cg_emit_jump(Gen *g) { return emit_abx(g, OP_JMP, 0, (uint32_t)NO_JUMP); }

void cg_patch_to(Gen *g, int chain, int target)
{
    while (chain != NO_JUMP) {
        Instr *ins = &g->c->code[chain];
        int next = INSTR_SBX(*ins);
        *ins = instr_abx(OP_JMP, 0, (uint32_t)(target - (chain + 1)));
        chain = next;
    }
}

void cg_patch_here(Gen *g, int chain) { cg_patch_to(g, chain, here(g)); }

/* Appends chain b to chain *a. */
void cg_concat(Gen *g, int *a, int b)
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
int cg_emit_test(Gen *g, OpCode op, int a, int b, int c)
{
    emit_abc(g, op, a, b, c);
    return cg_emit_jump(g);
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
                int r = cg_expr_any(g, d->b);
                at(g, name->loc);
                cg_place_store(g, &(Place){.kind = PL_REG, .reg = name->sym->slot}, r, name->sym->type->nslots);
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
    cg_alloc_regs(g, n);
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
    cg_stmts(g, &unit->body);
    end_unit(g, unit, nvars);
    r = &g->c->routines[ridx];
    if (unit->flags & NF_HANDLER) {
        r->handler = here(g);
        cg_stmts(g, &unit->handler);
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
    int x = cg_expr_any(g, d->a);
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
    cg_const_string(g, ""); /* index 0 */
    cg_file_index(g, program->loc.file);
    g->space = cg_const_string(g, " ");
    c->nglobals = program->nslots;
    if (program->nslots > MAX_REG) gen_error(g, program->loc, "program-level variables need more than 65535 slots");

    /* Routine table first (indices for CALL), then code: main, then each routine in order. */
    ChunkRoutine main = {.name = cg_const_string(g, program->name ? program->name : "main"), .handler = -1,
                         .line = program->loc.line};
    chunk_add_routine(c, main);
    for (int i = 0; i < program->list.count; i++) {
        Node *d = program->list.items[i];
        if (d->kind == D_DEVICE) {
            ChunkDevice dev = {cg_const_string(g, d->name), cg_const_string(g, d->lit.s ? d->lit.s : ""),
                               cg_const_string(g, d->a && d->a->lit.s ? d->a->lit.s : "")};
            chunk_add_device(c, dev);
        } else if (d->kind == D_IO) {
            int64_t ch = 0;
            cg_fold_int(d->a, &ch);
            chunk_add_io(c, (ChunkIo){cg_const_string(g, d->name), d->flags & 0xff, ch});
        }
        if (d->kind == D_INTERRUPT && d->sym) { /* its condition: a FUNCTION without parameters giving BOOL */
            ChunkRoutine r = {.name = cg_const_string(g, d->name), .handler = -1, .line = d->loc.line,
                              .file = cg_file_index(g, d->loc.file), .kinds = c->nparam_kinds, .result_slots = 1};
            d->sym->slot = chunk_add_routine(c, r);
        }
        if (d->kind != N_ROUTINE || !d->sym) continue;
        ChunkRoutine r = {.name = cg_const_string(g, d->name), .handler = -1, .line = d->loc.line,
                          .file = cg_file_index(g, d->loc.file), .nparams = d->list.count, .kinds = c->nparam_kinds};
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
