/* chunk.c — the in-memory program: growable arrays, the opcode/built-in/system-variable tables of opcodes.h. */
#include "chunk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const OpInfo irl_opinfo[OP_COUNT] = {
#define X(name, ka, kb, kc, flags, doc) {#name, ka, kb, kc, flags, doc},
    IRL_OPCODES(X)
#undef X
};

const VmBuiltinInfo irl_builtininfo[VB_COUNT] = {
#define X(name, nargs, nres, doc) {#name, nargs, nres},
    IRL_VM_BUILTINS(X)
#undef X
};

const VmSysvarInfo irl_sysvarinfo[SV_COUNT] = {
#define X(name, nslots, ro) {#name, nslots, ro, SVO_##name},
    IRL_SYSVARS(X)
#undef X
};

const char *const irl_motion_names[MK_COUNT] = {
#define X(name, text) text,
    IRL_MOTION_KINDS(X)
#undef X
};

/* Grow *p (n used, *cap allocated, elements of size sz) to hold one more; aborts when memory runs out. */
static void grow(void **p, int32_t n, int32_t *cap, size_t sz)
{
    if (n < *cap) return;
    int32_t ncap = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, (size_t)ncap * sz);
    if (!q) {
        fprintf(stderr, "irl: out of memory\n");
        abort();
    }
    *p = q;
    *cap = ncap;
}
#define GROW(c, arr, n, cap) grow((void **)&(c)->arr, (c)->n, &(c)->cap, sizeof *(c)->arr)

/* An empty chunk whose string pool holds "" at index 0. */
void chunk_init(Chunk *c)
{
    memset(c, 0, sizeof *c);
    chunk_add_string(c, "", 0);
}

/* Frees every array and string the chunk owns; leaves it empty (chunk_init again to reuse). */
void chunk_free(Chunk *c)
{
    for (int32_t i = 0; i < c->nkstr; i++) free(c->kstr[i].text);
    free(c->code);
    free(c->lines);
    free(c->kint);
    free(c->kreal);
    free(c->kstr);
    free(c->routines);
    free(c->param_kinds);
    free(c->stmts);
    free(c->files);
    free(c->devices);
    free(c->ios);
    memset(c, 0, sizeof *c);
}

/* Appends one instruction and its source position; returns its pc. */
int chunk_emit(Chunk *c, Instr ins, ChunkLine where)
{
    if (c->ncode >= c->capcode) {
        int32_t cap = c->capcode;
        grow((void **)&c->code, c->ncode, &cap, sizeof *c->code);
        grow((void **)&c->lines, c->ncode, &c->capcode, sizeof *c->lines);
    }
    c->code[c->ncode] = ins;
    c->lines[c->ncode] = where;
    return c->ncode++;
}

/* Appends an INT constant (no deduplication here: the code generator does it). */
int chunk_add_int(Chunk *c, int64_t v)
{
    GROW(c, kint, nkint, capkint);
    c->kint[c->nkint] = v;
    return c->nkint++;
}

/* Appends a REAL constant. */
int chunk_add_real(Chunk *c, double v)
{
    GROW(c, kreal, nkreal, capkreal);
    c->kreal[c->nkreal] = v;
    return c->nkreal++;
}

/* Appends a copy of text[0..len) as a STRING constant. */
int chunk_add_string(Chunk *c, const char *text, size_t len)
{
    GROW(c, kstr, nkstr, capkstr);
    char *s = malloc(len + 1);
    if (!s) {
        fprintf(stderr, "irl: out of memory\n");
        abort();
    }
    if (len) memcpy(s, text, len);
    s[len] = '\0';
    c->kstr[c->nkstr] = (ChunkString){s, (int32_t)len};
    return c->nkstr++;
}

int chunk_add_routine(Chunk *c, ChunkRoutine r)
{
    GROW(c, routines, nroutines, caproutines);
    c->routines[c->nroutines] = r;
    return c->nroutines++;
}

int chunk_add_param_kind(Chunk *c, uint8_t kind)
{
    GROW(c, param_kinds, nparam_kinds, capparam_kinds);
    c->param_kinds[c->nparam_kinds] = kind;
    return c->nparam_kinds++;
}

int chunk_add_stmt(Chunk *c, int32_t start, int32_t end)
{
    GROW(c, stmts, nstmts, capstmts);
    c->stmts[c->nstmts] = (ChunkStmt){start, end};
    return c->nstmts++;
}

int chunk_add_file(Chunk *c, int32_t kstr_index)
{
    GROW(c, files, nfiles, capfiles);
    c->files[c->nfiles] = kstr_index;
    return c->nfiles++;
}

int chunk_add_device(Chunk *c, ChunkDevice d)
{
    GROW(c, devices, ndevices, capdevices);
    c->devices[c->ndevices] = d;
    return c->ndevices++;
}

int chunk_add_io(Chunk *c, ChunkIo io)
{
    GROW(c, ios, nios, capios);
    c->ios[c->nios] = io;
    return c->nios++;
}

/* The routine whose code range contains pc (binary search: routines are sorted by entry), or -1. */
int chunk_routine_at(const Chunk *c, int pc)
{
    int lo = 0, hi = c->nroutines - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const ChunkRoutine *r = &c->routines[mid];
        if (pc < r->entry) hi = mid - 1;
        else if (pc >= r->end) lo = mid + 1;
        else return mid;
    }
    return -1;
}
