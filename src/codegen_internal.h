/* codegen_internal.h — what the code generator's files share (codegen.c: constant pools, registers, jump chains
 * and the driver over variables, routines and the program; codegen_expr.c: places, expressions, conditions;
 * codegen_stmt.c: statements; codegen_motion.c: the motion door's statements and tasks' events): the generator's
 * state and the helpers each side calls. Not for use outside the code generator. */
#ifndef IRL_CODEGEN_INTERNAL_H
#define IRL_CODEGEN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen.h"

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

/* A value's place (codegen_expr.c). */
typedef enum { PL_REG, PL_GLOBAL, PL_ADDR, PL_SYS, PL_IO } PlaceKind;
typedef struct Place {
    PlaceKind kind;
    int reg;    /* PL_REG: first register; PL_ADDR: register holding the address */
    bool owned; /* PL_ADDR: reg is a temporary this place may modify */
    int index;  /* PL_GLOBAL: absolute slot; PL_SYS: sysvar id; PL_IO: I/O point */
    int off;    /* static slot offset added to the above */
} Place;

/* The chunk's file index of an interned file name (codegen.c). */
int cg_file_index(Gen *g, const char *file);

/* Instructions emitted from here on carry loc. */
static inline void at(Gen *g, SrcLoc loc)
{
    if (!loc.file) return;
    g->loc = (ChunkLine){loc.line, loc.col, cg_file_index(g, loc.file)};
}

static inline int emit(Gen *g, Instr i) { return chunk_emit(g->c, i, g->loc); }
static inline int emit_abc(Gen *g, OpCode op, int a, int b, int c) { return emit(g, instr_abc(op, (unsigned)a, (unsigned)b, (unsigned)c)); }
static inline int emit_abx(Gen *g, OpCode op, int a, uint32_t bx) { return emit(g, instr_abx(op, (unsigned)a, bx)); }
static inline int here(Gen *g) { return g->c->ncode; }

/* Slots of a value of type t (1 for an unknown type). */
static inline int nslots_of(const Type *t) { return t ? t->nslots : 1; }

/* codegen.c: constant pools, registers, jump chains */
int cg_const_int(Gen *g, int64_t v);
int cg_const_real(Gen *g, double v);
int cg_const_string(Gen *g, const char *s);
int cg_alloc_regs(Gen *g, int n);
int cg_emit_jump(Gen *g);
void cg_patch_to(Gen *g, int chain, int target);
void cg_patch_here(Gen *g, int chain);
void cg_concat(Gen *g, int *a, int b);
int cg_emit_test(Gen *g, OpCode op, int a, int b, int c);

/* codegen_expr.c: constants, places, expressions, conditions */
bool cg_fold_int(Node *e, int64_t *v);
bool cg_has_call(Node *e);
void cg_place_addr_to(Gen *g, Place *p, int dst);
int cg_place_load(Gen *g, Place *p, int n, int dst);
void cg_place_store(Gen *g, Place *p, int src, int n);
void cg_gen_place(Gen *g, Node *e, Place *p);
void cg_load_int(Gen *g, int dst, int64_t v);
int cg_operand(Gen *g, Node *e, bool protect);
int cg_builtin_call(Gen *g, Node *e);
int cg_user_call(Gen *g, Node *e);
void cg_expr_to(Gen *g, Node *e, int dst);
int cg_expr_any(Gen *g, Node *e);
int cg_cond_jump(Gen *g, Node *e, bool when);

/* codegen_stmt.c: statements */
void cg_stmts(Gen *g, NodeList *l);

/* codegen_motion.c: the motion door (MOVE, GMOVE, WAIT, WAIT FOR, PULSE, TRIGGER, $TIME), tasks' events, BRAKE,
 * interrupts */
void cg_stmt_motion(Gen *g, Node *s);
void cg_stmt_trigger(Gen *g, Node *s);
void cg_motion_sync(Gen *g);
void cg_stmt_signal(Gen *g, Node *s);
void cg_stmt_wait_event(Gen *g, Node *s);
void cg_stmt_brake(Gen *g, Node *s);
void cg_stmt_interrupt(Gen *g, Node *s);

#endif
