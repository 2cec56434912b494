/* ast.h — the syntax tree of an .irl program, the types and dimensions the checker gives it, and the symbols it
 * resolves names to. The parser (grammar/parser.y) builds nodes with the ast_* constructors; the checker
 * (src/check.c) fills `type`, `dim`, `sym`, `builtin` and slot numbers in place; the code generator reads them.
 * All nodes, types and symbols live in one Arena freed in one call.
 *
 * Storage model shared with the code generator and the VM: every value is a run of 8-byte slots. BOOL, INT,
 * REAL, STRING take 1; POSITION 3 (x y z); ORIENTATION 4 (quaternion w x y z); POSE 7 (position, then
 * orientation); JOINT 1 + IRL_JOINT_MAX (count, then values); records the sum of their fields; ARRAY [n] OF T
 * n times T. A VAR parameter takes 1 slot (a reference). */
#ifndef IRL_AST_H
#define IRL_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"

#define IRL_JOINT_MAX 12

typedef struct SrcLoc {
    const char *file; /* path as given (interned); NULL for built-ins */
    int line, col;    /* 1-based */
} SrcLoc;

/* ---- Dimensions: exponents of the base quantities; a REAL's compile-time unit. ------------------------ */
enum { DIM_LENGTH, DIM_MASS, DIM_TIME, DIM_ANGLE, DIM_COUNT };
typedef struct Dim {
    int8_t e[DIM_COUNT];
    bool any; /* a bare number literal: takes the dimension its place expects */
} Dim;

/* ---- Types. ------------------------------------------------------------------------------------------ */
typedef enum {
    TY_ERROR, /* after a reported error: silences follow-on messages */
    TY_VOID,
    TY_BOOL, TY_INT, TY_REAL, TY_STRING,
    TY_JOINT, TY_POSITION, TY_ORIENTATION, TY_POSE,
    TY_RECORD, TY_ARRAY,
    TY_DEVICE, TY_IO,
    /* tasks and events */
    TY_EVENT, /* a counting EVENT: one INT slot, changed only by SIGNAL and WAIT */
} TypeKind;

typedef struct Type Type;
typedef struct Field {
    const char *name;
    Type *type;
    int offset; /* in slots from the start of the record */
    SrcLoc loc;
} Field;

struct Type {
    TypeKind kind;
    int nslots;       /* storage size in slots */
    Dim dim;          /* TY_REAL (and array/record elements carry their own) */
    const char *name; /* for messages: "REAL", "Pair", ... */
    Type *elem;       /* TY_ARRAY */
    int length;       /* TY_ARRAY */
    Field *fields;    /* TY_RECORD */
    int nfields;
};

/* ---- Symbols. ---------------------------------------------------------------------------------------- */
typedef enum {
    SYM_CONST,     /* value in `cval` */
    SYM_GLOBAL,    /* program-level VAR: slot = absolute index in the global area */
    SYM_LOCAL,     /* routine VAR: slot = offset in the frame */
    SYM_PARAM,     /* value parameter: slot = offset in the frame */
    SYM_VARPARAM,  /* VAR parameter: slot holds a reference */
    SYM_ROUTINE,   /* PROCEDURE or FUNCTION: `decl` is its N_ROUTINE */
    SYM_TYPE,
    SYM_DEVICE,    /* `index` = device number */
    SYM_IO,        /* `index` = I/O point number */
    SYM_BUILTIN,   /* built-in function or constructor: `index` = BuiltinId */
    /* tasks, events, interrupts */
    SYM_INTERRUPT, /* `decl` is its D_INTERRUPT, `index` its number in declaration order */
} SymbolKind;

typedef struct Node Node;

/* A compile-time constant (CONST, folded literals). */
typedef struct ConstValue {
    TypeKind kind; /* TY_BOOL, TY_INT, TY_REAL, TY_STRING */
    union {
        bool b;
        int64_t i;
        double r;
        const char *s;
    } u;
} ConstValue;

typedef struct Symbol {
    SymbolKind kind;
    const char *name; /* as declared (the lookup is case-insensitive) */
    SrcLoc loc;
    Type *type;
    int slot;
    int index;
    ConstValue cval;
    Node *decl;
} Symbol;

/* Built-ins the checker resolves calls to (E_CALL with builtin != BI_NONE). */
typedef enum {
    BI_NONE,
    BI_SIN, BI_COS, BI_TAN, BI_ASIN, BI_ACOS, BI_ATAN, BI_ATAN2, BI_SQRT, BI_ABS, BI_MIN, BI_MAX, BI_EXP,
    BI_LN, BI_POW, BI_ROUND, BI_TRUNC,
    BI_POS, BI_ORIZYX, BI_ORIXYZ, BI_ORIQUAT, BI_ORIVANG, BI_POSE, BI_JOINT,
    BI_INV, BI_DIST,
    BI_COUNT
} BuiltinId;

/* ---- Nodes. ------------------------------------------------------------------------------------------ */
typedef enum {
    /* expressions */
    E_INT, E_REAL, E_BOOL, E_STRING,
    E_NAME,    /* identifier; checker sets sym */
    E_SYSVAR,  /* $SPEED, $TIME, ... : name without '$' */
    E_FIELD,   /* a.name: record field (field set), or component X Y Z of POSITION/POSE etc. (component set) */
    E_INDEX,   /* a[i]: ARRAY element or JOINT axis (1-based) */
    E_UNARY,   /* op: '-', OP_NOT */
    E_BINARY,  /* op: '+' '-' '*' '/' OP_DIV OP_MOD '=' OP_NE '<' OP_LE '>' OP_GE OP_AND OP_OR '@' */
    E_CALL,    /* name(args): user FUNCTION (sym) or built-in (builtin) */
    E_WIDEN,   /* inserted by the checker: INT operand used as REAL */
    /* statements */
    S_ASSIGN, S_CALL, S_IF, S_WHILE, S_REPEAT, S_FOR, S_CASE, S_LOOP, S_EXIT, S_RETURN, S_HALT, S_PRINT,
    S_RAISE, S_RETRY, S_SKIP,
    S_MOVE, S_GMOVE, S_WAIT, S_WAIT_FOR, S_PULSE,
    S_TRIGGER, /* path-triggered I/O */
    /* declarations and units */
    D_CONST, D_VAR, D_TYPE, D_IMPORT, D_DEVICE, D_IO,
    N_ROUTINE,  /* PROCEDURE / FUNCTION */
    N_PARAM,
    N_TYPEREF,  /* a type as written: name (+ optional unit dims), RECORD, ARRAY */
    N_CASE_ARM,
    N_ELSIF,    /* one condition/body pair of an IF */
    N_WITH,     /* one `name := expr` motion parameter */
    N_PROGRAM,
    /* tasks, events, interrupts */
    S_SIGNAL,     /* a=E_NAME of the EVENT */
    S_START,      /* a=E_NAME of the TASK */
    S_ENABLE,     /* a=E_NAME of the INTERRUPT (S_DISABLE likewise) */
    S_DISABLE,
    S_BRAKE,      /* a=E_NAME of the DEVICE */
    D_EVENT,      /* list=E_NAME names */
    D_INTERRUPT,  /* name a=condition b=priority or NULL c=E_NAME of the handler PROCEDURE */
} NodeKind;

/* Operator codes beyond single characters. */
enum { OP_NE = 256, OP_LE, OP_GE, OP_AND, OP_OR, OP_NOT, OP_DIV, OP_MOD };

typedef struct NodeList {
    Node **items;
    int count, cap;
} NodeList;

typedef enum { MOVE_PTP, MOVE_LIN, MOVE_CIRC, MOVE_FOLLOW,
               MOVE_SPLINE /* trajectories as data: SPLINE */ } MoveKind;
typedef enum { GMOVE_TO, GMOVE_HOLD, GMOVE_PROFILE } GmoveKind;
typedef enum { IO_DIN, IO_DOUT, IO_AIN, IO_AOUT } IoKind;

struct Node {
    NodeKind kind;
    SrcLoc loc;
    Type *type;        /* expressions: set by the checker */
    Symbol *sym;       /* E_NAME, E_CALL to a user routine, S_FOR's variable, declarations */
    const char *name;  /* identifiers, field names, sysvars, routine/param/program names, import path */
    int op;            /* E_UNARY, E_BINARY */
    int component;     /* E_FIELD on a built-in type: slot offset of the component; -1 otherwise */
    Field *field;      /* E_FIELD on a record */
    BuiltinId builtin; /* E_CALL */
    union {
        int64_t i;
        double r;
        bool b;
        const char *s;
    } lit;             /* literals, already in SI units */
    Node *a, *b, *c, *d; /* children, by kind (see the ast_* constructors) */
    NodeList list;       /* arguments, statements, arms, fields, ... */
    NodeList list2;      /* second list where a kind needs one */
    NodeList body;       /* N_ROUTINE, N_PROGRAM: statements */
    NodeList handler;    /* N_ROUTINE, N_PROGRAM: ON ERROR statements (when flags has NF_HANDLER) */
    int nslots;          /* set by the checker: N_PROGRAM global slots, N_ROUTINE frame slots (params + locals) */
    int flags;           /* kind-specific: MoveKind/GmoveKind/IoKind, MOVE_INC, VAR param, FUNCTION, ... */
    Dim dim;             /* E_INT/E_REAL literal with NF_HAS_UNIT: the unit's dimension (set by the parser) */
};

/* Node flag bits. */
enum {
    NF_INC = 1 << 8,       /* S_MOVE: MOVE_INC */
    NF_VARPARAM = 1 << 9,  /* N_PARAM: VAR parameter */
    NF_FUNCTION = 1 << 10, /* N_ROUTINE: a FUNCTION (has a return type in `b`) */
    NF_HAS_UNIT = 1 << 11, /* E_REAL/E_INT literal written with a unit */
    NF_HANDLER = 1 << 12,  /* N_ROUTINE/N_PROGRAM: has an ON ERROR part */
    NF_TASK = 1 << 13,     /* N_ROUTINE: a TASK (no parameters, started with START) */
    NF_EVENT = 1 << 14,    /* S_WAIT: the operand is an EVENT (set by the checker) */
    TRIGGER_END = 1 << 15, /* S_TRIGGER: BEFORE END (else FROM START) */
};

/* Layout by kind (children a b c d, lists):
 *  E_FIELD a=object      E_INDEX a=object b=index      E_UNARY a      E_BINARY a b      E_WIDEN a
 *  E_CALL  name, list=args
 *  S_ASSIGN a=target b=value        S_CALL a=E_CALL
 *  S_IF list=N_ELSIF arms (the IF itself is the first), list2=else statements
 *  N_ELSIF a=condition list=statements
 *  S_WHILE a=cond list=body         S_REPEAT a=cond list=body        S_LOOP list=body
 *  S_FOR   a=E_NAME variable b=from c=to d=by (may be NULL) list=body
 *  S_CASE  a=selector list=N_CASE_ARM arms, list2=else statements
 *  N_CASE_ARM list=labels (constant expressions) list2=statements
 *  S_RETURN a=value or NULL         S_RAISE a=code or NULL           S_PRINT list=values
 *  S_MOVE  flags=MoveKind|NF_INC a=device E_NAME or NULL b=target c=via (CIRC: via first) list=N_WITH
 *  S_GMOVE flags=GmoveKind a=device or NULL b=G or hold time or table list=N_WITH
 *  S_WAIT  a=duration or EVENT, b=timeout or NULL (flags NF_EVENT: an EVENT)   S_WAIT_FOR a=cond b=timeout or NULL      S_PULSE a=io b=duration
 *  S_MOVE  (MOVE_SPLINE) list2=the points
 *  S_TRIGGER flags=TRIGGER_END? a=device or NULL b=distance (m, or % for PTP) c=DELAY or NULL d=S_ASSIGN
 *  N_WITH  name a=value
 *  D_CONST name a=value             D_VAR list=E_NAME names a=N_TYPEREF or NULL b=init or NULL
 *  D_TYPE  name a=N_TYPEREF         D_IMPORT name=path (resolved relative to the importing file)
 *  D_DEVICE name lit.s=backend keyword a=file (E_STRING)     D_IO name flags=IoKind a=channel
 *  N_TYPEREF name (INT, REAL, user type...) list=dim unit (E_REAL literals of the unit, if written) or
 *            flags=TY_RECORD list=D_VAR fields, or flags=TY_ARRAY a=length b=element N_TYPEREF
 *  N_PARAM name flags=NF_VARPARAM? a=N_TYPEREF
 *  N_ROUTINE name flags=NF_FUNCTION|NF_HANDLER list=N_PARAM b=return N_TYPEREF list2=declarations
 *            body handler
 *  N_PROGRAM name list=declarations (imported units' declarations merged in, in import order) body handler */

/* Constructors (arena-allocated, zeroed, `component` = -1). */
Node *ast_node(Arena *arena, NodeKind kind, SrcLoc loc);
void ast_list_push(Arena *arena, NodeList *list, Node *n);

/* Types: the built-in ones are singletons per arena context; see check.h. */
const char *ast_kind_name(NodeKind kind);

#endif
