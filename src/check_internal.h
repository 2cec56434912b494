/* check_internal.h — what the checker's files share (check.c: scopes, types, declarations, program units;
 * check_expr.c: expressions and built-ins; check_stmt.c: statements): the checker's state, its messages and the
 * helpers each side calls. Not for use outside the checker. */
#ifndef IRL_CHECK_INTERNAL_H
#define IRL_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "model.h"

#define CHECK_MAX_DESC 8 /* devices whose machine file the checker reads for JOINT literals */

/* Storage limit of one value and of the global area / a frame, in slots (8 bytes each: 512 MiB). */
#define CHECK_MAX_SLOTS (1 << 26)

typedef struct Scope Scope;
struct Scope {
    Scope *outer;
    Symbol **slots; /* open addressing, power-of-two capacity */
    int count, cap;
};

typedef struct RealType {
    Type *type;
    struct RealType *next;
} RealType;

typedef struct Checker {
    Arena *arena;
    Diag *diag;
    int errors0;       /* diag->errors on entry */
    Scope *predef, *global, *scope;
    Node *routine;     /* the routine being checked, or NULL in the program body */
    Node *program;
    int loops;         /* loop nesting depth */
    bool in_handler;   /* inside ON ERROR ... ENDERROR */
    int depth;         /* expr() nesting: 0 at the top of an expression */
    unsigned holes;    /* CHECK_HOLE_* bits: what syntax-error recovery dropped from the tree */
    int global_slots;  /* next global slot */
    int frame_slots;   /* next frame slot of the routine being declared */
    int ndevices, nios;
    RealType *reals;   /* interned REAL types per dimension */
    ModelDesc *dev_desc[CHECK_MAX_DESC]; /* each DEVICE's machine file when it could be read (check_lits.h) */
    const char *dev_name[CHECK_MAX_DESC];
    int move_dev;      /* the device of the MOVE whose targets are being checked, -1 outside */
    int ninterrupts;   /* INTERRUPT declarations so far */
} Checker;

typedef struct Sysvar {
    const char *name;
    TypeKind type;
    int8_t e[DIM_COUNT]; /* length mass time angle */
    bool assignable;
} Sysvar;

/* The built-in functions by name (check_expr.c). */
typedef struct BuiltinInfo {
    const char *name;
    BuiltinId id;
} BuiltinInfo;

extern const BuiltinInfo ck_builtins[];
extern const size_t ck_nbuiltins;

#define TN(t) ck_tname((t), (char[96]){0}, 96)
#define DS(d) dim_str((d), (char[48]){0}, 48)
#define DD(d) dim_describe((d), (char[80]){0}, 80)
/* A unit for "cannot add m and s" messages; a dimensionless value is named in words. */
#define DU(d) (dim_is_none(d) ? "a dimensionless number" : DS(d))

#define T(k) check_builtin_type(k)

static inline bool is_err(const Type *t) { return !t || t->kind == TY_ERROR; }
static inline bool is_num(const Type *t) { return t->kind == TY_INT || t->kind == TY_REAL; }

Type *ck_call(Checker *c, Node *n, bool as_statement);
bool ck_coerce(Checker *c, Node **slot, Type *want, const char *what);
void ck_echo_error(Checker *c, unsigned hole, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool ck_ends(NodeList *l);
void ck_error(Checker *c, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Type *ck_expr(Checker *c, Node *n);
const Sysvar *ck_find_sysvar(const char *name);
bool ck_fold(Checker *c, Node *n, ConstValue *out);
bool ck_is_variable(Node *n);
Symbol *ck_lookup(Checker *c, const char *name);
/* An INTERRUPT declaration: its condition (BOOL), priority (constant INT >= 0) and handler (check_stmt.c). */
void ck_interrupt(Checker *c, Node *d);
Type *ck_real_type(Checker *c, Dim d);
SrcLoc ck_start_loc(const Node *n);
void ck_stmts(Checker *c, NodeList *l);
/* MOVE FOLLOW (check_follow.c) */
void ck_stmt_follow(Checker *c, Node *n);
const char *ck_tname(const Type *t, char *buf, size_t n);
void ck_to_real(Checker *c, Node **slot);
bool ck_type_exact(const Type *a, const Type *b);
bool ck_want_real(Checker *c, Node **slot, Dim want, const char *what);
/* TRIGGER and MOVE SPLINE (check_trigger.c) */
#define CHECK_SPLINE_MAX 32 /* points of a MOVE SPLINE (runtime/motion/path.h: PLANNER_SPLINE_MAX) */
void ck_trigger(Checker *c, Node *n);
void ck_triggers_follow(Checker *c, const NodeList *body);
/* The points of a MOVE SPLINE (all POSITION, all POSE or all JOINT) and the WITH it refuses; true when JOINT. */
bool ck_spline_points(Checker *c, Node *n);

#endif
