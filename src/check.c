/* check.c — scopes, types, dimensions and storage slots: annotates the parsed, import-merged program in place
 * for the code generator (what it fills is listed in check.h), reporting one message per real mistake. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errcodes.h"
#include "units.h"

/* Storage limit of one value and of the global area / a frame, in slots (8 bytes each: 512 MiB). */
#define CHECK_MAX_SLOTS (1 << 26)

/* ---- Built-in types. -------------------------------------------------------------------------------- */

static Type builtin_types[] = {
    [TY_ERROR] = {TY_ERROR, 1, {{0}, false}, "<error>", NULL, 0, NULL, 0},
    [TY_VOID] = {TY_VOID, 0, {{0}, false}, "no value", NULL, 0, NULL, 0},
    [TY_BOOL] = {TY_BOOL, 1, {{0}, false}, "BOOL", NULL, 0, NULL, 0},
    [TY_INT] = {TY_INT, 1, {{0}, false}, "INT", NULL, 0, NULL, 0},
    [TY_REAL] = {TY_REAL, 1, {{0}, false}, "REAL", NULL, 0, NULL, 0},
    [TY_STRING] = {TY_STRING, 1, {{0}, false}, "STRING", NULL, 0, NULL, 0},
    [TY_JOINT] = {TY_JOINT, 1 + IRL_JOINT_MAX, {{0}, false}, "JOINT", NULL, 0, NULL, 0},
    [TY_POSITION] = {TY_POSITION, 3, {{0}, false}, "POSITION", NULL, 0, NULL, 0},
    [TY_ORIENTATION] = {TY_ORIENTATION, 4, {{0}, false}, "ORIENTATION", NULL, 0, NULL, 0},
    [TY_POSE] = {TY_POSE, 7, {{0}, false}, "POSE", NULL, 0, NULL, 0},
    [TY_DEVICE] = {TY_DEVICE, 0, {{0}, false}, "DEVICE", NULL, 0, NULL, 0},
    [TY_IO] = {TY_IO, 0, {{0}, false}, "IO", NULL, 0, NULL, 0},
};

Type *check_builtin_type(TypeKind kind) {
    if (kind == TY_RECORD || kind == TY_ARRAY || (unsigned)kind > TY_IO) return NULL;
    return &builtin_types[kind];
}

int check_type_slots(const Type *t) { return t ? t->nslots : 0; }

bool check_type_same(const Type *a, const Type *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return false;
    if (a->kind == TY_RECORD) return false; /* records are equal by declaration */
    if (a->kind == TY_ARRAY) return a->length == b->length && check_type_same(a->elem, b->elem);
    return true;
}

int check_component(const Type *t, const char *name, Type **ctype) {
    static const struct {
        TypeKind on;
        const char *name;
        int offset;
        TypeKind type;
    } comps[] = {
        {TY_POSITION, "X", 0, TY_REAL}, {TY_POSITION, "Y", 1, TY_REAL}, {TY_POSITION, "Z", 2, TY_REAL},
        {TY_POSE, "X", 0, TY_REAL}, {TY_POSE, "Y", 1, TY_REAL}, {TY_POSE, "Z", 2, TY_REAL},
        {TY_POSE, "POS", 0, TY_POSITION}, {TY_POSE, "ORI", 3, TY_ORIENTATION},
        {TY_ORIENTATION, "Q1", 0, TY_REAL}, {TY_ORIENTATION, "Q2", 1, TY_REAL},
        {TY_ORIENTATION, "Q3", 2, TY_REAL}, {TY_ORIENTATION, "Q4", 3, TY_REAL},
    };
    for (size_t i = 0; t && i < sizeof comps / sizeof comps[0]; i++)
        if (comps[i].on == t->kind && strcasecmp(comps[i].name, name) == 0) {
            if (ctype) *ctype = check_builtin_type(comps[i].type);
            return comps[i].offset;
        }
    return -1;
}

/* ---- Scopes: case-insensitive hash tables chained outwards. ----------------------------------------- */

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
} Checker;

static unsigned name_hash(const char *s) {
    unsigned h = 2166136261u;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 'a' && c <= 'z') c = (unsigned char)(c - 32);
        h = (h ^ c) * 16777619u;
    }
    return h;
}

static Scope *scope_new(Checker *c, Scope *outer) {
    Scope *s = arena_alloc(c->arena, sizeof *s);
    s->outer = outer;
    return s;
}

/* The symbol named `name` in this scope only, or NULL. */
static Symbol *scope_find_here(Scope *s, const char *name) {
    if (!s->cap) return NULL;
    for (unsigned i = name_hash(name) & (unsigned)(s->cap - 1);; i = (i + 1) & (unsigned)(s->cap - 1)) {
        if (!s->slots[i]) return NULL;
        if (strcasecmp(s->slots[i]->name, name) == 0) return s->slots[i];
    }
}

static void scope_put(Checker *c, Scope *s, Symbol *sym) {
    if (2 * (s->count + 1) > s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        Symbol **slots = arena_alloc(c->arena, (size_t)cap * sizeof *slots);
        for (int i = 0; i < s->cap; i++) {
            if (!s->slots[i]) continue;
            unsigned j = name_hash(s->slots[i]->name) & (unsigned)(cap - 1);
            while (slots[j]) j = (j + 1) & (unsigned)(cap - 1);
            slots[j] = s->slots[i];
        }
        s->slots = slots;
        s->cap = cap;
    }
    unsigned j = name_hash(sym->name) & (unsigned)(s->cap - 1);
    while (s->slots[j]) j = (j + 1) & (unsigned)(s->cap - 1);
    s->slots[j] = sym;
    s->count++;
}

/* Look a name up from the innermost scope outwards. */
static Symbol *lookup(Checker *c, const char *name) {
    for (Scope *s = c->scope; s; s = s->outer) {
        Symbol *sym = scope_find_here(s, name);
        if (sym) return sym;
    }
    return NULL;
}

/* ---- Messages. -------------------------------------------------------------------------------------- */

static void error(Checker *c, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void error(Checker *c, SrcLoc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(c->diag, "error", loc, fmt, ap); /* counts it */
    va_end(ap);
}

/* An error that may echo a syntax error ("unknown X", EXIT outside a loop, RETRY outside ON ERROR): when the
 * file had syntax errors the declaration or the enclosing LOOP / ON ERROR may be what the parser dropped, so in lenient mode it is not reported (the compile fails anyway; one mistake, one message). */
static void echo_error(Checker *c, unsigned hole, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void echo_error(Checker *c, unsigned hole, SrcLoc loc, const char *fmt, ...) {
    if (c->holes & hole)
        return;
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(c->diag, "error", loc, fmt, ap);
    va_end(ap);
}

/* A type's name for messages, with the unit of a dimensioned REAL ("REAL [m/s]"). Returns buf. */
static const char *tname(const Type *t, char *buf, size_t n) {
    if (t->kind == TY_REAL && !dim_is_none(t->dim) && !t->dim.any) {
        char u[48];
        snprintf(buf, n, "REAL [%s]", dim_str(t->dim, u, sizeof u));
    } else if (t->kind == TY_ARRAY && (!t->name || strcmp(t->name, "ARRAY") == 0)) {
        char e[64];
        snprintf(buf, n, "ARRAY [%d] OF %s", t->length, tname(t->elem, e, sizeof e));
    } else {
        snprintf(buf, n, "%s", t->name ? t->name : "?");
    }
    return buf;
}

#define TN(t) tname((t), (char[96]){0}, 96)
#define DS(d) dim_str((d), (char[48]){0}, 48)
#define DD(d) dim_describe((d), (char[80]){0}, 80)
/* A unit for "cannot add m and s" messages; a dimensionless value is named in words. */
#define DU(d) (dim_is_none(d) ? "a dimensionless number" : DS(d))

/* Where an expression starts (its leftmost token): values are reported there, operators at the operator. */
static SrcLoc start_loc(const Node *n) {
    while (n->a && (n->kind == E_BINARY || n->kind == E_FIELD || n->kind == E_INDEX || n->kind == E_WIDEN))
        n = n->a;
    return n->loc;
}

static bool is_err(const Type *t) { return !t || t->kind == TY_ERROR; }
static bool is_num(const Type *t) { return t->kind == TY_INT || t->kind == TY_REAL; }

/* ---- Types. ----------------------------------------------------------------------------------------- */

static Type *T(TypeKind k) { return &builtin_types[k]; }

/* The REAL type with dimension d (interned; the dimensionless, non-literal one is the singleton). */
static Type *real_type(Checker *c, Dim d) {
    if (!d.any && dim_is_none(d)) return T(TY_REAL);
    for (RealType *r = c->reals; r; r = r->next)
        if (r->type->dim.any == d.any && dim_eq(r->type->dim, d)) return r->type;
    RealType *r = arena_alloc(c->arena, sizeof *r);
    r->type = arena_alloc(c->arena, sizeof *r->type);
    *r->type = builtin_types[TY_REAL];
    r->type->dim = d;
    r->next = c->reals;
    c->reals = r;
    return r->type;
}

/* Same type for VAR parameters and assignments of structured values: layout and REAL dimensions equal. */
static bool type_exact(const Type *a, const Type *b) {
    if (a == b) return true;
    if (!check_type_same(a, b)) return false;
    if (a->kind == TY_REAL) return dim_eq(a->dim, b->dim);
    if (a->kind == TY_ARRAY) return type_exact(a->elem, b->elem);
    return true;
}

/* Forward declarations (expressions and types refer to each other). */
static Type *expr(Checker *c, Node *n);
static bool fold(Checker *c, Node *n, ConstValue *out);
static Type *resolve_type(Checker *c, Node *ref, const char *name);

/* A new node around e converting its INT value to REAL. An INT known at compile time (`5`, `2 * 3`, a CONST) is a
 * bare number and takes the dimension its place expects; an INT variable is a dimensionless count. */
static Node *widen(Checker *c, Node *e) {
    Node *w = ast_node(c->arena, E_WIDEN, e->loc);
    ConstValue v;
    w->a = e;
    w->type = real_type(c, fold(c, e, &v) ? dim_any() : dim_none());
    return w;
}

/* Make *slot (already checked) a REAL operand: wrap INTs in E_WIDEN. */
static void to_real(Checker *c, Node **slot) {
    if ((*slot)->type && (*slot)->type->kind == TY_INT) *slot = widen(c, *slot);
}

/* ---- Constant folding (after checking: types and names are known). --------------------------------- */

static bool fold(Checker *c, Node *n, ConstValue *out) {
    ConstValue a, b;
    if (!n || is_err(n->type)) return false;
    switch (n->kind) {
    case E_INT: out->kind = TY_INT, out->u.i = n->lit.i; return true;
    case E_REAL: out->kind = TY_REAL, out->u.r = n->lit.r; return true;
    case E_BOOL: out->kind = TY_BOOL, out->u.b = n->lit.b; return true;
    case E_STRING: out->kind = TY_STRING, out->u.s = n->lit.s; return true;
    case E_NAME:
        if (!n->sym || n->sym->kind != SYM_CONST) return false;
        *out = n->sym->cval;
        return true;
    case E_WIDEN:
        if (!fold(c, n->a, &a) || a.kind != TY_INT) return false;
        out->kind = TY_REAL, out->u.r = (double)a.u.i;
        return true;
    case E_UNARY:
        if (!fold(c, n->a, &a)) return false;
        if (n->op == OP_NOT && a.kind == TY_BOOL) { out->kind = TY_BOOL, out->u.b = !a.u.b; return true; }
        if (n->op == '+' && (a.kind == TY_INT || a.kind == TY_REAL)) { *out = a; return true; }
        if (n->op == '-' && a.kind == TY_REAL) { out->kind = TY_REAL, out->u.r = -a.u.r; return true; }
        if (n->op == '-' && a.kind == TY_INT && a.u.i != INT64_MIN) {
            out->kind = TY_INT, out->u.i = -a.u.i;
            return true;
        }
        return false;
    case E_BINARY:
        if (!fold(c, n->a, &a) || !fold(c, n->b, &b)) return false;
        if (a.kind == TY_INT && b.kind == TY_INT) {
            int64_t r;
            out->kind = TY_INT;
            switch (n->op) {
            case '+': if (__builtin_add_overflow(a.u.i, b.u.i, &r)) return false; out->u.i = r; return true;
            case '-': if (__builtin_sub_overflow(a.u.i, b.u.i, &r)) return false; out->u.i = r; return true;
            case '*': if (__builtin_mul_overflow(a.u.i, b.u.i, &r)) return false; out->u.i = r; return true;
            case OP_DIV:
            case OP_MOD:
                if (b.u.i == 0 || (a.u.i == INT64_MIN && b.u.i == -1)) return false;
                out->u.i = n->op == OP_DIV ? a.u.i / b.u.i : a.u.i % b.u.i;
                return true;
            default: break;
            }
        }
        if (a.kind == TY_INT) a.kind = TY_REAL, a.u.r = (double)a.u.i;
        if (b.kind == TY_INT) b.kind = TY_REAL, b.u.r = (double)b.u.i;
        if (a.kind == TY_REAL && b.kind == TY_REAL) {
            out->kind = TY_REAL;
            switch (n->op) {
            case '+': out->u.r = a.u.r + b.u.r; return true;
            case '-': out->u.r = a.u.r - b.u.r; return true;
            case '*': out->u.r = a.u.r * b.u.r; return true;
            case '/': if (b.u.r == 0) return false; out->u.r = a.u.r / b.u.r; return true;
            default: return false;
            }
        }
        if (a.kind == TY_BOOL && b.kind == TY_BOOL && (n->op == OP_AND || n->op == OP_OR)) {
            out->kind = TY_BOOL;
            out->u.b = n->op == OP_AND ? (a.u.b && b.u.b) : (a.u.b || b.u.b);
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* ---- Declarations of symbols. ----------------------------------------------------------------------- */

/* Declare a symbol in the current scope; a second declaration of a name in one scope is an error. */
static Symbol *declare(Checker *c, SymbolKind kind, const char *name, SrcLoc loc, Type *type, Node *decl) {
    Symbol *old = scope_find_here(c->scope, name);
    if (old) {
        error(c, loc, "'%s' is already declared in this scope", name);
        if (old->loc.file) diag_note(c->diag, old->loc, "'%s' was first declared here", old->name);
        return NULL;
    }
    Symbol *s = arena_alloc(c->arena, sizeof *s);
    s->kind = kind;
    s->name = name;
    s->loc = loc;
    s->type = type;
    s->decl = decl;
    s->slot = -1;
    scope_put(c, c->scope, s);
    return s;
}

/* ---- Types as written. ------------------------------------------------------------------------------ */

/* The dimension written after REAL: the product of the unit literals' dimensions. */
static Dim unit_list_dim(Checker *c, Node *ref) {
    Dim d = dim_none();
    for (int i = 0; i < ref->list.count; i++) {
        Node *u = ref->list.items[i];
        Dim ud = u->dim;
        if (!(u->flags & NF_HAS_UNIT) && u->name && !units_lookup(u->name, NULL, &ud)) {
            error(c, u->loc, "unknown unit '%s'", u->name);
            continue;
        }
        d = dim_mul(d, ud);
    }
    d.any = false;
    return d;
}

/* N_TYPEREF -> Type. `name` names a record being declared by TYPE (for messages). */
static Type *resolve_type(Checker *c, Node *ref, const char *name) {
    if (!ref) return T(TY_ERROR);
    if (ref->flags == TY_RECORD) {
        Type *t = arena_alloc(c->arena, sizeof *t);
        t->kind = TY_RECORD;
        t->name = name ? name : "RECORD";
        int nf = 0;
        for (int i = 0; i < ref->list.count; i++) nf += ref->list.items[i]->list.count;
        t->fields = arena_alloc(c->arena, (size_t)(nf ? nf : 1) * sizeof *t->fields);
        for (int i = 0; i < ref->list.count; i++) {
            Node *fd = ref->list.items[i];
            Type *ft = resolve_type(c, fd->a, NULL);
            for (int j = 0; j < fd->list.count; j++) {
                Node *fn = fd->list.items[j];
                bool dup = false;
                for (int k = 0; k < t->nfields; k++)
                    if (strcasecmp(t->fields[k].name, fn->name) == 0) {
                        error(c, fn->loc, "field '%s' is already declared in this record", fn->name);
                        diag_note(c->diag, t->fields[k].loc, "'%s' was first declared here", t->fields[k].name);
                        dup = true;
                    }
                if (dup) continue;
                Field *f = &t->fields[t->nfields++];
                f->name = fn->name;
                f->type = ft;
                f->offset = t->nslots;
                f->loc = fn->loc;
                fn->type = ft;
                t->nslots += ft->nslots;
            }
            if (fd->b) error(c, start_loc(fd->b), "a record field cannot have an initial value");
        }
        return t;
    }
    if (ref->flags == TY_ARRAY) {
        Type *elem = resolve_type(c, ref->b, NULL);
        Type *lt = expr(c, ref->a);
        ConstValue v;
        if (is_err(lt) || is_err(elem)) return T(TY_ERROR);
        if (lt->kind != TY_INT || !fold(c, ref->a, &v)) {
            error(c, start_loc(ref->a), "an array length must be a constant INT, got %s",
                  lt->kind == TY_INT ? "a value known only at run time" : TN(lt));
            return T(TY_ERROR);
        }
        if (v.u.i <= 0 || v.u.i > 100000000) {
            error(c, start_loc(ref->a), "an array length must be between 1 and 100000000, got %lld", (long long)v.u.i);
            return T(TY_ERROR);
        }
        if ((int64_t)v.u.i * elem->nslots > CHECK_MAX_SLOTS) {
            error(c, start_loc(ref->a), "this array needs %lld slots, more than the %d a value may have",
                  (long long)(v.u.i * elem->nslots), CHECK_MAX_SLOTS);
            return T(TY_ERROR);
        }
        Type *t = arena_alloc(c->arena, sizeof *t);
        t->kind = TY_ARRAY;
        t->name = name ? name : "ARRAY";
        t->elem = elem;
        t->length = (int)v.u.i;
        t->nslots = t->length * elem->nslots;
        return t;
    }
    Symbol *s = lookup(c, ref->name);
    if (!s) {
        echo_error(c, CHECK_HOLE_DECL, ref->loc, "unknown type '%s'", ref->name);
        return T(TY_ERROR);
    }
    if (s->kind != SYM_TYPE) {
        error(c, ref->loc, "'%s' is not a type", ref->name);
        return T(TY_ERROR);
    }
    ref->sym = s;
    if (ref->list.count) {
        if (s->type->kind != TY_REAL) {
            error(c, ref->loc, "only REAL can carry a unit, not %s", TN(s->type));
            return T(TY_ERROR);
        }
        return real_type(c, unit_list_dim(c, ref));
    }
    return s->type;
}

/* ---- Expressions. ----------------------------------------------------------------------------------- */

static Type *set(Node *n, Type *t) {
    n->type = t;
    return t;
}

typedef struct Sysvar {
    const char *name;
    TypeKind type;
    int8_t e[DIM_COUNT]; /* length mass time angle */
    bool assignable;
} Sysvar;

static const Sysvar sysvars[] = {
    {"SPEED", TY_REAL, {1, 0, -1, 0}, true},  {"SPEED_ORI", TY_REAL, {0, 0, -1, 1}, true},
    {"SPEED_PTP", TY_REAL, {0, 0, 0, 0}, true}, {"ACC", TY_REAL, {1, 0, -2, 0}, true},
    {"ACC_PTP", TY_REAL, {0, 0, 0, 0}, true},   {"APPROX", TY_REAL, {1, 0, 0, 0}, true},
    {"APPROX_PTP", TY_REAL, {0, 0, 0, 0}, true}, {"TOOL", TY_POSE, {0}, true},
    {"BASE", TY_POSE, {0}, true},               {"TIME", TY_REAL, {0, 0, 1, 0}, false},
    {"ERRNO", TY_INT, {0}, false},
};

static const Sysvar *find_sysvar(const char *name) {
    if (name && name[0] == '$') name++;
    for (size_t i = 0; i < sizeof sysvars / sizeof sysvars[0]; i++)
        if (strcasecmp(sysvars[i].name, name) == 0) return &sysvars[i];
    return NULL;
}

static Type *sysvar_type(Checker *c, const Sysvar *v) {
    if (v->type != TY_REAL) return T(v->type);
    Dim d = dim_none();
    memcpy(d.e, v->e, sizeof d.e);
    return real_type(c, d);
}

/* The value type of reading an IO point: BOOL for digital, dimensionless REAL for analog. */
static Type *io_type(Symbol *s) {
    int k = s->decl ? (s->decl->flags & 0xff) : IO_DIN;
    return k == IO_AIN || k == IO_AOUT ? T(TY_REAL) : T(TY_BOOL);
}

static Type *check_call(Checker *c, Node *n, bool as_statement);

static Type *expr_name(Checker *c, Node *n) {
    Symbol *s = lookup(c, n->name);
    if (!s && strcasecmp(n->name, "ERRNO") == 0) { /* the code being handled: read like a system variable */
        n->kind = E_SYSVAR;
        n->name = "ERRNO";
        return set(n, T(TY_INT));
    }
    if (!s) {
        echo_error(c, CHECK_HOLE_DECL, n->loc, "unknown name '%s'", n->name);
        return set(n, T(TY_ERROR));
    }
    n->sym = s;
    switch (s->kind) {
    case SYM_CONST:
    case SYM_GLOBAL:
    case SYM_LOCAL:
    case SYM_PARAM:
    case SYM_VARPARAM:
        return set(n, s->type);
    case SYM_IO:
        return set(n, io_type(s));
    case SYM_ROUTINE:
    case SYM_BUILTIN:
        /* A parameterless FUNCTION may be called without parentheses: make it a call. */
        n->kind = E_CALL;
        n->sym = NULL;
        return check_call(c, n, false);
    case SYM_TYPE:
        error(c, n->loc, "'%s' is a type, not a value", n->name);
        break;
    case SYM_DEVICE:
        error(c, n->loc, "'%s' is a DEVICE, not a value", n->name);
        break;
    }
    return set(n, T(TY_ERROR));
}

static Type *expr_field(Checker *c, Node *n) {
    Type *t = expr(c, n->a);
    if (is_err(t)) return set(n, T(TY_ERROR));
    if (t->kind == TY_RECORD) {
        for (int i = 0; i < t->nfields; i++)
            if (strcasecmp(t->fields[i].name, n->name) == 0) {
                n->field = &t->fields[i];
                return set(n, t->fields[i].type);
            }
        error(c, n->loc, "record %s has no field '%s'", TN(t), n->name);
        return set(n, T(TY_ERROR));
    }
    Type *ct;
    int off = check_component(t, n->name, &ct);
    if (off < 0) {
        if (t->kind == TY_POSITION || t->kind == TY_POSE || t->kind == TY_ORIENTATION)
            error(c, n->loc, "%s has no component '%s' (it has %s)", TN(t), n->name,
                  t->kind == TY_POSITION ? "X, Y, Z" : t->kind == TY_POSE ? "X, Y, Z, POS, ORI" : "Q1, Q2, Q3, Q4");
        else if (t->kind == TY_JOINT)
            error(c, n->loc, "a JOINT has no components; index its axes: j[1]");
        else
            error(c, n->loc, "%s has no fields or components", TN(t));
        return set(n, T(TY_ERROR));
    }
    n->component = off;
    if (ct->kind == TY_REAL) ct = real_type(c, t->kind == TY_ORIENTATION ? dim_none() : dim_length());
    return set(n, ct);
}

static Type *expr_index(Checker *c, Node *n) {
    Type *t = expr(c, n->a);
    Type *it = expr(c, n->b);
    if (is_err(t) || is_err(it)) return set(n, T(TY_ERROR));
    if (t->kind != TY_ARRAY && t->kind != TY_JOINT) {
        error(c, start_loc(n->a), "only arrays and JOINTs can be indexed, not %s", TN(t));
        return set(n, T(TY_ERROR));
    }
    if (it->kind != TY_INT) {
        error(c, start_loc(n->b), "an index must be INT, got %s", TN(it));
        return set(n, T(TY_ERROR));
    }
    ConstValue v;
    int len = t->kind == TY_ARRAY ? t->length : IRL_JOINT_MAX;
    if (fold(c, n->b, &v) && (v.u.i < 1 || v.u.i > len)) {
        error(c, start_loc(n->b), "index %lld is out of range 1..%d", (long long)v.u.i, len);
        return set(n, T(TY_ERROR));
    }
    /* A JOINT axis is an angle or a length depending on the device: it adopts what its place expects. */
    return set(n, t->kind == TY_ARRAY ? t->elem : real_type(c, dim_any()));
}

/* The result dimension of + - between compatible a and b: the one that is not a bare literal. */
static Dim dim_join(Dim a, Dim b) { return a.any ? b : a; }

static const char *op_verb(int op) {
    switch (op) {
    case '+': return "add";
    case '-': return "subtract";
    default: return "compare";
    }
}

static const char *op_text(int op) {
    switch (op) {
    case OP_NE: return "<>";
    case OP_LE: return "<=";
    case OP_GE: return ">=";
    case OP_AND: return "AND";
    case OP_OR: return "OR";
    case OP_NOT: return "NOT";
    case OP_DIV: return "DIV";
    case OP_MOD: return "MOD";
    default: {
        static const char *single[] = {"+", "-", "*", "/", "=", "<", ">", "@"};
        const char *chars = "+-*/=<>@";
        const char *p = strchr(chars, op);
        return p && op ? single[p - chars] : "?";
    }
    }
}

static Type *expr_binary(Checker *c, Node *n) {
    Type *a = expr(c, n->a), *b = expr(c, n->b);
    if (is_err(a) || is_err(b)) return set(n, T(TY_ERROR));
    int op = n->op;
    switch (op) {
    case OP_AND:
    case OP_OR:
        if (a->kind != TY_BOOL || b->kind != TY_BOOL) {
            error(c, n->loc, "%s needs BOOL operands, got %s and %s", op_text(op), TN(a), TN(b));
            return set(n, T(TY_ERROR));
        }
        return set(n, T(TY_BOOL));
    case OP_DIV:
    case OP_MOD:
        if (a->kind != TY_INT || b->kind != TY_INT) {
            error(c, n->loc, "%s needs INT operands, got %s and %s%s", op_text(op), TN(a), TN(b),
                  op == OP_DIV ? " (use / for REAL division)" : "");
            return set(n, T(TY_ERROR));
        }
        return set(n, T(TY_INT));
    case '@': {
        TypeKind ka = a->kind, kb = b->kind, r = TY_ERROR;
        if (ka == TY_POSE && kb == TY_POSE) r = TY_POSE;
        else if (ka == TY_ORIENTATION && kb == TY_ORIENTATION) r = TY_ORIENTATION;
        else if ((ka == TY_POSE || ka == TY_ORIENTATION) && kb == TY_POSITION) r = TY_POSITION;
        if (r == TY_ERROR) {
            error(c, n->loc, "@ cannot combine %s and %s (POSE@POSE, ORIENTATION@ORIENTATION, "
                  "POSE@POSITION or ORIENTATION@POSITION)", TN(a), TN(b));
            return set(n, T(TY_ERROR));
        }
        return set(n, T(r));
    }
    case '=':
    case OP_NE:
        if (a->kind == TY_BOOL && b->kind == TY_BOOL) return set(n, T(TY_BOOL));
        if (a->kind == TY_STRING && b->kind == TY_STRING) return set(n, T(TY_BOOL));
        if (!is_num(a) || !is_num(b)) {
            bool structured = !is_num(a) && a->kind != TY_BOOL && a->kind != TY_STRING;
            if (a->kind == b->kind && structured)
                error(c, n->loc, "%s cannot compare %s values; compare their components", op_text(op), TN(a));
            else
                error(c, n->loc, "%s cannot compare %s with %s", op_text(op), TN(a), TN(b));
            return set(n, T(TY_ERROR));
        }
        break;
    case '<':
    case OP_LE:
    case '>':
    case OP_GE:
    case '+':
    case '-':
    case '*':
    case '/':
        if (!is_num(a) || !is_num(b)) {
            const char *what = op == '+' || op == '-' || op == '*' || op == '/' ? "arithmetic" : "ordering";
            error(c, n->loc, "%s needs numbers, got %s and %s%s", op_text(op), TN(a), TN(b),
                  strcmp(what, "ordering") == 0 && a->kind == b->kind ? " (only INT and REAL are ordered)" : "");
            return set(n, T(TY_ERROR));
        }
        break;
    default:
        error(c, n->loc, "unknown operator");
        return set(n, T(TY_ERROR));
    }
    /* Numbers from here on. */
    bool cmp = op == '=' || op == OP_NE || op == '<' || op == OP_LE || op == '>' || op == OP_GE;
    if (a->kind == TY_INT && b->kind == TY_INT && op != '/') return set(n, cmp ? T(TY_BOOL) : T(TY_INT));
    to_real(c, &n->a);
    to_real(c, &n->b);
    Dim da = n->a->type->dim, db = n->b->type->dim;
    if (op == '*') return set(n, real_type(c, dim_mul(da, db)));
    if (op == '/') return set(n, real_type(c, dim_div(da, db)));
    if (!dim_compatible(da, db)) {
        error(c, n->loc, "cannot %s %s and %s", op_verb(op), DU(da), DU(db));
        return set(n, T(TY_ERROR));
    }
    return set(n, cmp ? T(TY_BOOL) : real_type(c, dim_join(da, db)));
}

static Type *expr_unary(Checker *c, Node *n) {
    Type *a = expr(c, n->a);
    if (is_err(a)) return set(n, T(TY_ERROR));
    if (n->op == OP_NOT) {
        if (a->kind != TY_BOOL) {
            error(c, n->loc, "NOT needs a BOOL operand, got %s", TN(a));
            return set(n, T(TY_ERROR));
        }
        return set(n, a);
    }
    if (!is_num(a)) {
        error(c, n->loc, "unary %s needs a number, got %s", op_text(n->op), TN(a));
        return set(n, T(TY_ERROR));
    }
    return set(n, a);
}

/* Is the tree under n deeper than `budget` levels? (The recursion itself stops at budget.) */
static bool too_deep(const Node *n, int budget) {
    if (!n) return false;
    if (budget <= 0) return true;
    if (too_deep(n->a, budget - 1) || too_deep(n->b, budget - 1)) return true;
    for (int i = 0; i < n->list.count; i++)
        if (too_deep(n->list.items[i], budget - 1)) return true;
    return false;
}

static Type *expr_node(Checker *c, Node *n);

/* Check an expression. A whole expression deeper than CHECK_MAX_DEPTH (a 30,000-term sum is a left spine that
 * deep) is refused once, at its start, before anything recurses down it: the checker, the constant folder and
 * the code generator all walk expressions recursively, and the C stack is the limit. */
enum { CHECK_MAX_DEPTH = 1000 };
static Type *expr(Checker *c, Node *n) {
    if (!n) return T(TY_ERROR);
    if (c->depth == 0 && too_deep(n, CHECK_MAX_DEPTH)) {
        error(c, start_loc(n), "expression nested too deeply (more than %d levels)", CHECK_MAX_DEPTH);
        return set(n, T(TY_ERROR));
    }
    c->depth++;
    Type *t = expr_node(c, n);
    c->depth--;
    return t;
}

/* Check one expression node by kind. */
static Type *expr_node(Checker *c, Node *n) {
    switch (n->kind) {
    case E_INT:
        if (n->flags & NF_HAS_UNIT) { /* `5 s`: a REAL with a dimension */
            n->kind = E_REAL;
            n->lit.r = (double)n->lit.i;
            return set(n, real_type(c, (Dim){{n->dim.e[0], n->dim.e[1], n->dim.e[2], n->dim.e[3]}, false}));
        }
        return set(n, T(TY_INT));
    case E_REAL:
        if (n->flags & NF_HAS_UNIT) {
            Dim d = n->dim;
            d.any = false;
            return set(n, real_type(c, d));
        }
        return set(n, real_type(c, dim_any()));
    case E_BOOL: return set(n, T(TY_BOOL));
    case E_STRING: return set(n, T(TY_STRING));
    case E_NAME: return expr_name(c, n);
    case E_SYSVAR: {
        const Sysvar *v = find_sysvar(n->name);
        if (!v) {
            error(c, n->loc, "unknown system variable '$%s'", n->name[0] == '$' ? n->name + 1 : n->name);
            return set(n, T(TY_ERROR));
        }
        return set(n, sysvar_type(c, v));
    }
    case E_FIELD: return expr_field(c, n);
    case E_INDEX: return expr_index(c, n);
    case E_UNARY: return expr_unary(c, n);
    case E_BINARY: return expr_binary(c, n);
    case E_CALL: return check_call(c, n, false);
    case E_WIDEN: return n->type ? n->type : set(n, real_type(c, dim_none()));
    default:
        error(c, n->loc, "expected an expression");
        return set(n, T(TY_ERROR));
    }
}

/* ---- Coercions: a checked value into a place of known type and dimension. -------------------------- */

/* Does the value in *slot fit a place of type `want` (assignment, value argument, initialiser)? Widens INT to
 * REAL, checks dimensions, reports "what: expected X, got Y" on a mismatch. */
static bool coerce(Checker *c, Node **slot, Type *want, const char *what) {
    Type *got = (*slot)->type;
    if (is_err(got) || is_err(want)) return false;
    SrcLoc loc = start_loc(*slot);
    if (want->kind == TY_REAL && got->kind == TY_INT) {
        to_real(c, slot);
        got = (*slot)->type;
    }
    if (want->kind == TY_INT && got->kind == TY_REAL) {
        error(c, loc, "%s: cannot use a REAL as an INT; convert with ROUND or TRUNC", what);
        return false;
    }
    if (want->kind == TY_REAL && got->kind == TY_REAL) {
        if (!dim_compatible(want->dim, got->dim)) {
            error(c, loc, "%s: expected %s, got %s", what, DD(want->dim), DD(got->dim));
            return false;
        }
        return true;
    }
    if (!type_exact(want, got)) {
        if (check_type_same(want, got))
            error(c, loc, "%s: expected %s, got %s (the units of their REALs differ)", what, TN(want), TN(got));
        else
            error(c, loc, "%s: expected %s, got %s", what, TN(want), TN(got));
        return false;
    }
    return true;
}

/* A REAL (or INT) argument of dimension `want`, widened; false (reported) otherwise. */
static bool want_real(Checker *c, Node **slot, Dim want, const char *what) {
    Type *t = expr(c, *slot);
    if (is_err(t)) return false;
    if (!is_num(t)) {
        error(c, start_loc(*slot), "%s: expected %s, got %s", what, DD(want), TN(t));
        return false;
    }
    return coerce(c, slot, real_type(c, want), what);
}

/* ---- Calls. ----------------------------------------------------------------------------------------- */

typedef struct BuiltinInfo {
    const char *name;
    BuiltinId id;
} BuiltinInfo;

static const BuiltinInfo builtins[] = {
    {"SIN", BI_SIN},       {"COS", BI_COS},       {"TAN", BI_TAN},         {"ASIN", BI_ASIN},
    {"ACOS", BI_ACOS},     {"ATAN", BI_ATAN},     {"ATAN2", BI_ATAN2},     {"SQRT", BI_SQRT},
    {"ABS", BI_ABS},       {"MIN", BI_MIN},       {"MAX", BI_MAX},         {"EXP", BI_EXP},
    {"LN", BI_LN},         {"POW", BI_POW},       {"ROUND", BI_ROUND},     {"TRUNC", BI_TRUNC},
    {"POS", BI_POS},       {"ORIZYX", BI_ORIZYX}, {"ORIXYZ", BI_ORIXYZ},   {"ORIQUAT", BI_ORIQUAT},
    {"ORIVANG", BI_ORIVANG}, {"POSE", BI_POSE},   {"JOINT", BI_JOINT},     {"INV", BI_INV},
    {"DIST", BI_DIST},
};

static bool argc_is(Checker *c, Node *n, int lo, int hi) {
    int k = n->list.count;
    if (k >= lo && k <= hi) return true;
    if (lo == hi)
        error(c, n->loc, "%s takes %d argument%s, got %d", n->name, lo, lo == 1 ? "" : "s", k);
    else if (hi > 100)
        error(c, n->loc, "%s takes at least %d arguments, got %d", n->name, lo, k);
    else
        error(c, n->loc, "%s takes %d to %d arguments, got %d", n->name, lo, hi, k);
    return false;
}

/* Check argument i as a value of one of the built-in structured kinds. */
static bool want_kind(Checker *c, Node *n, int i, TypeKind k1, TypeKind k2, const char *what) {
    Type *t = expr(c, n->list.items[i]);
    if (is_err(t)) return false;
    if (t->kind == k1 || t->kind == k2) return true;
    if (k2 != k1)
        error(c, start_loc(n->list.items[i]), "%s: expected %s or %s, got %s", what, T(k1)->name, T(k2)->name,
              TN(t));
    else
        error(c, start_loc(n->list.items[i]), "%s: expected %s, got %s", what, T(k1)->name, TN(t));
    return false;
}

/* The single numeric argument of a built-in (SQRT, ROUND, TRUNC), widened to REAL; false after an error. */
static bool one_real_arg(Checker *c, Node *n) {
    if (!argc_is(c, n, 1, 1)) return false;
    Node **args = n->list.items;
    Type *t = expr(c, args[0]);
    if (is_err(t)) return false;
    if (!is_num(t)) {
        error(c, start_loc(args[0]), "argument 1 of %s: expected a number, got %s", n->name, TN(t));
        return false;
    }
    to_real(c, &args[0]);
    return true;
}

static Type *check_builtin(Checker *c, Node *n) {
    Node **args = n->list.items;
    int k = n->list.count;
    char what[64];
    bool ok = true;
    Dim angle = dim_angle(), none = dim_none(), length = dim_length();
#define ARG(i) (snprintf(what, sizeof what, "argument %d of %s", (i) + 1, n->name), what)
    switch (n->builtin) {
    case BI_SIN:
    case BI_COS:
    case BI_TAN:
        if (!argc_is(c, n, 1, 1) || !want_real(c, &args[0], angle, ARG(0))) return set(n, T(TY_ERROR));
        return set(n, T(TY_REAL));
    case BI_ASIN:
    case BI_ACOS:
    case BI_ATAN:
        if (!argc_is(c, n, 1, 1) || !want_real(c, &args[0], none, ARG(0))) return set(n, T(TY_ERROR));
        return set(n, real_type(c, angle));
    case BI_EXP:
    case BI_LN:
        if (!argc_is(c, n, 1, 1) || !want_real(c, &args[0], none, ARG(0))) return set(n, T(TY_ERROR));
        return set(n, T(TY_REAL));
    case BI_ATAN2: {
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        Type *y = expr(c, args[0]), *x = expr(c, args[1]);
        if (is_err(y) || is_err(x)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 2; i++)
            if (!is_num(args[i]->type)) {
                error(c, start_loc(args[i]), "%s: expected a number, got %s", ARG(i), TN(args[i]->type));
                return set(n, T(TY_ERROR));
            }
        to_real(c, &args[0]);
        to_real(c, &args[1]);
        if (!dim_compatible(args[0]->type->dim, args[1]->type->dim)) {
            error(c, start_loc(args[1]), "ATAN2 needs arguments of one dimension, got %s and %s",
                  DU(args[0]->type->dim), DU(args[1]->type->dim));
            return set(n, T(TY_ERROR));
        }
        return set(n, real_type(c, angle));
    }
    case BI_SQRT: {
        if (!one_real_arg(c, n)) return set(n, T(TY_ERROR));
        Dim d;
        if (!dim_sqrt(args[0]->type->dim, &d)) {
            error(c, start_loc(args[0]), "SQRT of %s has no unit (odd power)", DS(args[0]->type->dim));
            return set(n, T(TY_ERROR));
        }
        return set(n, real_type(c, d));
    }
    case BI_ABS:
    case BI_MIN:
    case BI_MAX: {
        if (!(n->builtin == BI_ABS ? argc_is(c, n, 1, 1) : argc_is(c, n, 2, 1000))) return set(n, T(TY_ERROR));
        bool all_int = true;
        for (int i = 0; i < k; i++) {
            Type *t = expr(c, args[i]);
            if (is_err(t)) ok = false;
            else if (!is_num(t)) {
                error(c, start_loc(args[i]), "%s: expected a number, got %s", ARG(i), TN(t));
                ok = false;
            } else if (t->kind != TY_INT) all_int = false;
        }
        if (!ok) return set(n, T(TY_ERROR));
        if (all_int) return set(n, T(TY_INT));
        Dim d = dim_any();
        for (int i = 0; i < k; i++) {
            to_real(c, &args[i]);
            Dim di = args[i]->type->dim;
            if (!dim_compatible(d, di)) {
                error(c, start_loc(args[i]), "%s needs arguments of one dimension, got %s and %s", n->name, DU(d), DU(di));
                return set(n, T(TY_ERROR));
            }
            d = dim_join(d, di);
        }
        return set(n, real_type(c, d));
    }
    case BI_POW: {
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        Type *x = expr(c, args[0]), *e = expr(c, args[1]);
        if (is_err(x) || is_err(e)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 2; i++)
            if (!is_num(args[i]->type)) {
                error(c, start_loc(args[i]), "%s: expected a number, got %s", ARG(i), TN(args[i]->type));
                return set(n, T(TY_ERROR));
            }
        ConstValue v;
        bool int_lit = e->kind == TY_INT && fold(c, args[1], &v) && v.u.i >= -60 && v.u.i <= 60;
        to_real(c, &args[0]);
        if (int_lit) {
            to_real(c, &args[1]);
            return set(n, real_type(c, dim_pow(args[0]->type->dim, (int)v.u.i)));
        }
        if (!coerce(c, &args[1], T(TY_REAL), ARG(1))) return set(n, T(TY_ERROR));
        if (!dim_is_none(args[0]->type->dim) && !args[0]->type->dim.any) {
            error(c, start_loc(args[0]), "POW of %s needs a constant INT exponent (the unit of the result must be known)",
                  DD(args[0]->type->dim));
            return set(n, T(TY_ERROR));
        }
        return set(n, T(TY_REAL));
    }
    case BI_ROUND:
    case BI_TRUNC: {
        if (!one_real_arg(c, n)) return set(n, T(TY_ERROR));
        Dim d = args[0]->type->dim;
        if (!d.any && !dim_is_none(d)) {
            error(c, start_loc(args[0]), "%s needs a dimensionless number, got %s; divide by a unit first, e.g. "
                  "%s(x / 1 %s)", n->name, DD(d), n->name, DS(d));
            return set(n, T(TY_ERROR));
        }
        return set(n, T(TY_INT));
    }
    case BI_POS:
        if (!argc_is(c, n, 3, 3)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 3; i++) ok &= want_real(c, &args[i], length, ARG(i));
        return set(n, ok ? T(TY_POSITION) : T(TY_ERROR));
    case BI_ORIZYX:
    case BI_ORIXYZ:
        if (!argc_is(c, n, 3, 3)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 3; i++) ok &= want_real(c, &args[i], angle, ARG(i));
        return set(n, ok ? T(TY_ORIENTATION) : T(TY_ERROR));
    case BI_ORIQUAT:
        if (!argc_is(c, n, 4, 4)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 4; i++) ok &= want_real(c, &args[i], none, ARG(i));
        return set(n, ok ? T(TY_ORIENTATION) : T(TY_ERROR));
    case BI_ORIVANG:
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        ok &= want_kind(c, n, 0, TY_POSITION, TY_POSITION, ARG(0));
        ok &= want_real(c, &args[1], angle, ARG(1));
        return set(n, ok ? T(TY_ORIENTATION) : T(TY_ERROR));
    case BI_POSE:
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        ok &= want_kind(c, n, 0, TY_POSITION, TY_POSITION, ARG(0));
        ok &= want_kind(c, n, 1, TY_ORIENTATION, TY_ORIENTATION, ARG(1));
        return set(n, ok ? T(TY_POSE) : T(TY_ERROR));
    case BI_JOINT:
        if (!argc_is(c, n, 1, IRL_JOINT_MAX)) return set(n, T(TY_ERROR));
        for (int i = 0; i < k; i++) {
            Type *t = expr(c, args[i]);
            if (is_err(t)) { ok = false; continue; }
            if (!is_num(t)) {
                error(c, start_loc(args[i]), "%s: expected an angle or a length, got %s", ARG(i), TN(t));
                ok = false;
                continue;
            }
            to_real(c, &args[i]);
            Dim d = args[i]->type->dim;
            if (!d.any && !dim_eq(d, angle) && !dim_eq(d, length)) {
                error(c, start_loc(args[i]), "%s: a JOINT axis is an angle (rad) or a length (m), got %s", ARG(i), DD(d));
                ok = false;
            }
        }
        return set(n, ok ? T(TY_JOINT) : T(TY_ERROR));
    case BI_INV:
        if (!argc_is(c, n, 1, 1) || !want_kind(c, n, 0, TY_POSE, TY_ORIENTATION, ARG(0)))
            return set(n, T(TY_ERROR));
        return set(n, args[0]->type);
    case BI_DIST: {
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        ok &= want_kind(c, n, 0, TY_POSITION, TY_POSE, ARG(0));
        ok &= want_kind(c, n, 1, TY_POSITION, TY_POSE, ARG(1));
        if (!ok) return set(n, T(TY_ERROR));
        if (args[0]->type->kind != args[1]->type->kind) {
            error(c, n->loc, "DIST needs two POSITIONs or two POSEs, got %s and %s", TN(args[0]->type),
                  TN(args[1]->type));
            return set(n, T(TY_ERROR));
        }
        return set(n, real_type(c, length));
    }
    default:
        error(c, n->loc, "unknown built-in");
        return set(n, T(TY_ERROR));
    }
#undef ARG
}

/* Is n a variable place (not a constant, sysvar or computed value)? */
static bool is_variable(Node *n) {
    switch (n->kind) {
    case E_NAME:
        return n->sym && (n->sym->kind == SYM_GLOBAL || n->sym->kind == SYM_LOCAL || n->sym->kind == SYM_PARAM ||
                          n->sym->kind == SYM_VARPARAM);
    case E_FIELD:
    case E_INDEX:
        return is_variable(n->a);
    default:
        return false;
    }
}

static Type *check_user_call(Checker *c, Node *n, Symbol *s, bool as_statement) {
    Node *r = s->decl;
    bool fn = (r->flags & NF_FUNCTION) != 0;
    n->sym = s;
    if (fn && as_statement) {
        error(c, n->loc, "the value of FUNCTION %s is not used; assign it or use it in an expression", s->name);
        for (int i = 0; i < n->list.count; i++) expr(c, n->list.items[i]);
        return set(n, T(TY_ERROR));
    }
    if (!fn && !as_statement) {
        error(c, n->loc, "PROCEDURE %s has no value; it can only be called as a statement", s->name);
        return set(n, T(TY_ERROR));
    }
    bool ok = true;
    if (n->list.count != r->list.count) {
        error(c, n->loc, "%s takes %d argument%s, got %d", s->name, r->list.count, r->list.count == 1 ? "" : "s",
              n->list.count);
        for (int i = 0; i < n->list.count; i++) expr(c, n->list.items[i]);
        return set(n, T(TY_ERROR));
    }
    for (int i = 0; i < n->list.count; i++) {
        Node *p = r->list.items[i];
        Type *pt = p->sym ? p->sym->type : T(TY_ERROR);
        Type *at = expr(c, n->list.items[i]);
        char what[96];
        snprintf(what, sizeof what, "argument %d (%s) of %s", i + 1, p->name, s->name);
        if (is_err(at) || is_err(pt)) { ok = false; continue; }
        if (p->flags & NF_VARPARAM) {
            if (!is_variable(n->list.items[i])) {
                error(c, start_loc(n->list.items[i]), "%s is a VAR parameter: pass a variable, not a value", what);
                ok = false;
            } else if (!type_exact(pt, at)) {
                if (pt->kind == TY_REAL && at->kind == TY_REAL)
                    error(c, start_loc(n->list.items[i]), "%s is a VAR parameter of %s: got %s", what, DD(pt->dim),
                          DD(at->dim));
                else
                    error(c, start_loc(n->list.items[i]), "%s is a VAR parameter of type %s: got %s", what, TN(pt),
                          TN(at));
                ok = false;
            }
        } else {
            ok &= coerce(c, &n->list.items[i], pt, what);
        }
    }
    if (!ok) return set(n, T(TY_ERROR));
    return set(n, fn ? s->type : T(TY_VOID));
}

/* E_CALL (or a bare name turned into one): a built-in or a user routine. */
static Type *check_call(Checker *c, Node *n, bool as_statement) {
    Symbol *s = lookup(c, n->name);
    if (!s) {
        echo_error(c, CHECK_HOLE_DECL, n->loc, "unknown %s '%s'", as_statement ? "procedure" : "function", n->name);
        for (int i = 0; i < n->list.count; i++) expr(c, n->list.items[i]);
        return set(n, T(TY_ERROR));
    }
    if (s->kind == SYM_BUILTIN || (s->kind == SYM_TYPE && s->index != BI_NONE)) {
        n->builtin = (BuiltinId)s->index;
        if (as_statement) {
            error(c, n->loc, "the value of %s is not used; assign it or use it in an expression", s->name);
            return set(n, T(TY_ERROR));
        }
        return check_builtin(c, n);
    }
    if (s->kind == SYM_ROUTINE) return check_user_call(c, n, s, as_statement);
    error(c, n->loc, "'%s' is not a %s", n->name, as_statement ? "procedure" : "function");
    return set(n, T(TY_ERROR));
}

/* ---- Statements. ------------------------------------------------------------------------------------ */

static void stmts(Checker *c, NodeList *l);

static void cond(Checker *c, Node *n, const char *what) {
    Type *t = expr(c, n);
    if (!is_err(t) && t->kind != TY_BOOL) error(c, start_loc(n), "%s must be BOOL, got %s", what, TN(t));
}

/* Is this an assignable place? Reports why not. */
static bool lvalue(Checker *c, Node *n) {
    switch (n->kind) {
    case E_NAME:
        if (!n->sym) return false;
        switch (n->sym->kind) {
        case SYM_GLOBAL: case SYM_LOCAL: case SYM_PARAM: case SYM_VARPARAM: return true;
        case SYM_IO: {
            int k = n->sym->decl ? (n->sym->decl->flags & 0xff) : IO_DIN;
            if (k == IO_DOUT || k == IO_AOUT) return true;
            error(c, n->loc, "cannot assign to '%s': it is an input", n->name);
            return false;
        }
        case SYM_CONST: error(c, n->loc, "cannot assign to constant '%s'", n->name); return false;
        default: error(c, n->loc, "cannot assign to '%s'", n->name); return false;
        }
    case E_SYSVAR: {
        const Sysvar *v = find_sysvar(n->name);
        if (v && v->assignable) return true;
        if (v && strcmp(v->name, "ERRNO") == 0) error(c, n->loc, "ERRNO is read-only");
        else error(c, n->loc, "$%s is read-only", v ? v->name : n->name);
        return false;
    }
    case E_FIELD:
    case E_INDEX:
        if (n->a->kind == E_NAME || n->a->kind == E_FIELD || n->a->kind == E_INDEX || n->a->kind == E_SYSVAR)
            return lvalue(c, n->a);
        /* fall through */
    default:
        error(c, n->loc, "cannot assign to this expression");
        return false;
    }
}

static void stmt_for(Checker *c, Node *n) {
    Type *vt = expr(c, n->a);
    if (!is_err(vt)) {
        if (n->a->kind != E_NAME || !is_variable(n->a))
            error(c, start_loc(n->a), "a FOR control variable must be a variable");
        else if (vt->kind != TY_INT)
            error(c, start_loc(n->a), "a FOR control variable must be INT, got %s", TN(vt));
        n->sym = n->a->sym;
    }
    Node *parts[3] = {n->b, n->c, n->d};
    const char *names[3] = {"the FOR start", "the FOR limit", "the FOR step"};
    for (int i = 0; i < 3; i++) {
        if (!parts[i]) continue;
        Type *t = expr(c, parts[i]);
        if (!is_err(t) && t->kind != TY_INT) error(c, start_loc(parts[i]), "%s must be INT, got %s", names[i], TN(t));
    }
    ConstValue v;
    if (n->d && n->d->type && n->d->type->kind == TY_INT && fold(c, n->d, &v) && v.u.i == 0)
        error(c, n->d->loc, "the FOR step must not be 0");
    c->loops++;
    stmts(c, &n->list);
    c->loops--;
}

static void stmt_case(Checker *c, Node *n) {
    Type *t = expr(c, n->a);
    bool sel_ok = !is_err(t);
    if (sel_ok && t->kind != TY_INT) {
        error(c, start_loc(n->a), "a CASE selector must be INT, got %s", TN(t));
        sel_ok = false;
    }
    int nlabels = 0;
    for (int i = 0; i < n->list.count; i++) nlabels += n->list.items[i]->list.count;
    Node **seen = arena_alloc(c->arena, (size_t)(nlabels + 1) * sizeof *seen);
    int nseen = 0;
    for (int i = 0; i < n->list.count; i++) {
        Node *arm = n->list.items[i];
        for (int j = 0; j < arm->list.count; j++) {
            Node *l = arm->list.items[j];
            Type *lt = expr(c, l);
            ConstValue v;
            if (is_err(lt)) continue;
            if (lt->kind != TY_INT || !fold(c, l, &v)) {
                if (lt->kind != TY_INT) error(c, l->loc, "a CASE label must be a constant INT, got %s", TN(lt));
                else error(c, l->loc, "a CASE label must be a constant INT, known at compile time");
                continue;
            }
            Node *lit = ast_node(c->arena, E_INT, l->loc);
            lit->lit.i = v.u.i;
            lit->type = T(TY_INT);
            arm->list.items[j] = lit;
            for (int k = 0; k < nseen; k++)
                if (seen[k]->lit.i == v.u.i) {
                    error(c, l->loc, "duplicate CASE label %lld", (long long)v.u.i);
                    diag_note(c->diag, seen[k]->loc, "%lld first appears here", (long long)v.u.i);
                    goto next;
                }
            seen[nseen++] = lit;
        next:;
        }
        stmts(c, &arm->list2);
    }
    stmts(c, &n->list2);
}

static void stmt_return(Checker *c, Node *n) {
    Node *r = c->routine;
    bool fn = r && (r->flags & NF_FUNCTION);
    if (fn && !n->a) {
        error(c, n->loc, "RETURN in FUNCTION %s needs a value", r->name);
        return;
    }
    if (!fn && n->a) {
        expr(c, n->a);
        if (r) error(c, start_loc(n->a), "PROCEDURE %s cannot return a value", r->name);
        else error(c, start_loc(n->a), "the program body cannot return a value");
        return;
    }
    if (fn) {
        Type *t = expr(c, n->a);
        if (!is_err(t) && r->sym) coerce(c, &n->a, r->sym->type, "the RETURN value");
    }
}

/* Is `name` a WITH parameter allowed here, and which dimension does it take? */
typedef struct WithParam {
    const char *name;
    int8_t e[DIM_COUNT];
    unsigned kinds; /* bit 0 PTP, 1 LIN, 2 CIRC, 3 GMOVE TO, 4 GMOVE HOLD, 5 GMOVE PROFILE */
} WithParam;

enum { W_PTP = 1, W_LIN = 2, W_CIRC = 4, W_GTO = 8, W_GHOLD = 16, W_GPROF = 32 };

static const WithParam with_params[] = {
    {"SPEED", {1, 0, -1, 0}, W_LIN | W_CIRC},
    {"SPEED_ORI", {0, 0, -1, 1}, W_LIN | W_CIRC},
    {"SPEED_PTP", {0, 0, 0, 0}, W_PTP},
    {"ACC", {1, 0, -2, 0}, W_LIN | W_CIRC},
    {"ACC_PTP", {0, 0, 0, 0}, W_PTP},
    {"TIME", {0, 0, 1, 0}, W_PTP | W_LIN | W_CIRC},
    {"APPROX", {1, 0, 0, 0}, W_LIN | W_CIRC},
    {"APPROX_PTP", {0, 0, 0, 0}, W_PTP},
    {"ONSET", {1, 0, -3, 0}, W_GTO | W_GPROF},
    {"HOLD", {0, 0, 1, 0}, W_GTO},
    {"JERK", {1, 0, -4, 0}, W_GTO | W_GPROF},
    {"INTERP", {0, 0, 0, 0}, W_GPROF}, /* LINEAR | CSPLINE, compiled as the REAL 0 | 1 (opcodes.h MP_INTERP) */
    {"CONFIG", {0, 0, 0, 0}, W_PTP},   /* the arm configuration bits (docs/MODELS.md), an INT 0..7 */
    {"TURN", {0, 0, 0, 0}, W_PTP},     /* bit i: joint i + 1 negative */
};

/* INTERP := LINEAR | CSPLINE: a keyword-like name, not an expression; rewrite it into the literal 0 or 1. */
static bool with_interp(Checker *c, Node *w) {
    if (!w->a || w->a->kind != E_NAME || !w->a->name ||
        (strcasecmp(w->a->name, "LINEAR") != 0 && strcasecmp(w->a->name, "CSPLINE") != 0)) {
        error(c, w->a ? start_loc(w->a) : w->loc, "WITH INTERP: expected LINEAR or CSPLINE");
        return false;
    }
    w->a->lit.r = strcasecmp(w->a->name, "CSPLINE") == 0 ? 1.0 : 0.0;
    w->a->kind = E_REAL;
    w->a->flags &= ~NF_HAS_UNIT;
    w->a->type = real_type(c, dim_none());
    return true;
}

static void with_list(Checker *c, Node *n, unsigned kind, const char *stmt) {
    for (int i = 0; i < n->list.count; i++) {
        Node *w = n->list.items[i];
        const WithParam *p = NULL;
        for (size_t j = 0; j < sizeof with_params / sizeof with_params[0]; j++)
            if (strcasecmp(with_params[j].name, w->name) == 0) p = &with_params[j];
        if (p && strcasecmp(p->name, "INTERP") == 0) {
            if ((p->kinds & kind) && !with_interp(c, w)) continue;
        } else if (w->a) {
            expr(c, w->a);
        }
        if (!p) {
            error(c, w->loc, "unknown WITH parameter '%s'", w->name);
            continue;
        }
        if (!(p->kinds & kind)) {
            error(c, w->loc, "%s does not apply to %s", p->name, stmt);
            continue;
        }
        for (int j = 0; j < i; j++)
            if (strcasecmp(n->list.items[j]->name, w->name) == 0) {
                error(c, w->loc, "WITH parameter %s is given twice", p->name);
                diag_note(c->diag, n->list.items[j]->loc, "first given here");
                goto next;
            }
        if (w->a && !is_err(w->a->type)) {
            Dim d = dim_none();
            memcpy(d.e, p->e, sizeof d.e);
            char what[64];
            snprintf(what, sizeof what, "WITH %s", p->name);
            if (!is_num(w->a->type))
                error(c, start_loc(w->a), "%s: expected %s, got %s", what, DD(d), TN(w->a->type));
            else
                coerce(c, &w->a, real_type(c, d), what);
        }
    next:;
    }
}

/* The device named by a motion statement (or the only one declared). */
static void device_of(Checker *c, Node *n, const char *stmt) {
    if (!n->a) {
        if (c->ndevices > 1) error(c, n->loc, "%s must name its DEVICE: the program declares %d", stmt, c->ndevices);
        return;
    }
    Symbol *s = n->a->kind == E_NAME ? lookup(c, n->a->name) : NULL;
    if (!s) {
        echo_error(c, CHECK_HOLE_DECL, n->a->loc, "unknown device '%s'", n->a->name ? n->a->name : "?");
        n->a->type = T(TY_ERROR);
        return;
    }
    n->a->sym = s;
    n->a->type = s->type;
    if (s->kind != SYM_DEVICE) error(c, n->a->loc, "'%s' is not a DEVICE", n->a->name);
}

static void stmt_move(Checker *c, Node *n) {
    int mk = n->flags & 0xff;
    const char *stmt = mk == MOVE_PTP ? "MOVE PTP" : mk == MOVE_LIN ? "MOVE LIN" : "MOVE CIRC";
    device_of(c, n, stmt);
    Node *targets[2] = {n->c, n->b};
    for (int i = 0; i < 2; i++) {
        Node *t = targets[i];
        if (!t) continue;
        Type *tt = expr(c, t);
        if (is_err(tt)) continue;
        if (mk == MOVE_PTP && tt->kind != TY_JOINT && tt->kind != TY_POSE)
            error(c, start_loc(t), "%s needs a JOINT or POSE target, got %s", stmt, TN(tt));
        else if (mk != MOVE_PTP && tt->kind != TY_POSE && tt->kind != TY_POSITION)
            error(c, start_loc(t), "%s needs a POSE or POSITION %s, got %s", stmt, t == n->c ? "via point" : "target",
                  TN(tt));
    }
    with_list(c, n, mk == MOVE_PTP ? W_PTP : mk == MOVE_LIN ? W_LIN : W_CIRC, stmt);
}

/* GMOVE PROFILE table: ARRAY [n] OF RECORD t : REAL [s]; g : REAL [G] ENDRECORD (time, acceleration). */
static void profile_table(Checker *c, Node *e) {
    Type *t = expr(c, e);
    if (is_err(t)) return;
    Type *r = t->kind == TY_ARRAY ? t->elem : NULL;
    bool ok = r && r->kind == TY_RECORD && r->nfields == 2 && r->fields[0].type->kind == TY_REAL &&
              r->fields[1].type->kind == TY_REAL && dim_eq(r->fields[0].type->dim, dim_time()) &&
              dim_eq(r->fields[1].type->dim, dim_accel());
    if (!ok)
        error(c, start_loc(e), "GMOVE PROFILE needs an ARRAY of a RECORD with a time and an acceleration "
              "(t : REAL [s]; g : REAL [G]), got %s", TN(t));
}

static void stmt_gmove(Checker *c, Node *n) {
    int gk = n->flags & 0xff;
    const char *stmt = gk == GMOVE_TO ? "GMOVE TO" : gk == GMOVE_HOLD ? "GMOVE HOLD" : "GMOVE PROFILE";
    device_of(c, n, stmt);
    if (gk == GMOVE_PROFILE) profile_table(c, n->b);
    else want_real(c, &n->b, gk == GMOVE_TO ? dim_accel() : dim_time(), stmt);
    with_list(c, n, gk == GMOVE_TO ? W_GTO : gk == GMOVE_HOLD ? W_GHOLD : W_GPROF, stmt);
}

static void stmt_pulse(Checker *c, Node *n) {
    Symbol *s = n->a && n->a->kind == E_NAME ? lookup(c, n->a->name) : NULL;
    if (!s) {
        echo_error(c, CHECK_HOLE_DECL, n->a->loc, "unknown I/O point '%s'", n->a->name ? n->a->name : "?");
    } else {
        n->a->sym = s;
        n->a->type = s->type;
        if (s->kind != SYM_IO || (s->decl->flags & 0xff) != IO_DOUT)
            error(c, n->a->loc, "PULSE needs a digital output (IO %s : DOUT n), not '%s'", n->a->name, n->a->name);
    }
    want_real(c, &n->b, dim_time(), "the PULSE duration");
}

static void stmt(Checker *c, Node *n) {
    switch (n->kind) {
    case S_ASSIGN: {
        Type *t = expr(c, n->a);
        Type *v = expr(c, n->b);
        if (is_err(t) || is_err(v) || !lvalue(c, n->a)) return;
        coerce(c, &n->b, t, "assignment");
        return;
    }
    case S_CALL:
        if (n->a->kind == E_NAME) n->a->kind = E_CALL;
        check_call(c, n->a, true);
        return;
    case S_IF:
        for (int i = 0; i < n->list.count; i++) {
            cond(c, n->list.items[i]->a, "an IF condition");
            stmts(c, &n->list.items[i]->list);
        }
        stmts(c, &n->list2);
        return;
    case S_WHILE:
    case S_REPEAT:
        if (n->kind == S_WHILE) cond(c, n->a, "a WHILE condition");
        c->loops++;
        stmts(c, &n->list);
        c->loops--;
        if (n->kind == S_REPEAT) cond(c, n->a, "an UNTIL condition");
        return;
    case S_LOOP:
        c->loops++;
        stmts(c, &n->list);
        c->loops--;
        return;
    case S_FOR: stmt_for(c, n); return;
    case S_CASE: stmt_case(c, n); return;
    case S_EXIT:
        if (!c->loops) echo_error(c, CHECK_HOLE_STMT, n->loc, "EXIT outside a loop");
        return;
    case S_RETURN: stmt_return(c, n); return;
    case S_HALT: return;
    case S_PRINT:
        for (int i = 0; i < n->list.count; i++) {
            Type *t = expr(c, n->list.items[i]);
            if (t->kind == TY_VOID || t->kind == TY_DEVICE || t->kind == TY_IO)
                error(c, start_loc(n->list.items[i]), "cannot PRINT %s", TN(t));
        }
        return;
    case S_RAISE:
        if (!n->a) {
            if (!c->in_handler) echo_error(c, CHECK_HOLE_STMT, n->loc, "RAISE without a code re-raises ERRNO: only inside ON ERROR");
            return;
        } else {
            Type *t = expr(c, n->a);
            if (!is_err(t) && t->kind != TY_INT) error(c, start_loc(n->a), "a RAISE code must be INT, got %s", TN(t));
        }
        return;
    case S_RETRY:
    case S_SKIP:
        if (!c->in_handler) echo_error(c, CHECK_HOLE_STMT, n->loc, "%s only inside ON ERROR", n->kind == S_RETRY ? "RETRY" : "SKIP");
        return;
    case S_MOVE: stmt_move(c, n); return;
    case S_GMOVE: stmt_gmove(c, n); return;
    case S_WAIT: want_real(c, &n->a, dim_time(), "the WAIT duration"); return;
    case S_WAIT_FOR:
        cond(c, n->a, "a WAIT FOR condition");
        if (n->b) want_real(c, &n->b, dim_time(), "the WAIT FOR timeout");
        return;
    case S_PULSE: stmt_pulse(c, n); return;
    default:
        error(c, n->loc, "unexpected %s in a statement list", ast_kind_name(n->kind));
        return;
    }
}

static void stmts(Checker *c, NodeList *l) {
    for (int i = 0; i < l->count; i++) stmt(c, l->items[i]);
}

/* ---- Flow: can a statement list end without RETURN? ------------------------------------------------- */

static bool has_exit(NodeList *l);

/* Does n contain an EXIT that leaves the loop around it (not one of a nested loop)? */
static bool node_has_exit(Node *n) {
    switch (n->kind) {
    case S_EXIT: return true;
    case S_IF:
        for (int i = 0; i < n->list.count; i++)
            if (has_exit(&n->list.items[i]->list)) return true;
        return has_exit(&n->list2);
    case S_CASE:
        for (int i = 0; i < n->list.count; i++)
            if (has_exit(&n->list.items[i]->list2)) return true;
        return has_exit(&n->list2);
    default: return false; /* loops: their EXITs are their own */
    }
}

static bool has_exit(NodeList *l) {
    for (int i = 0; i < l->count; i++)
        if (node_has_exit(l->items[i])) return true;
    return false;
}

static bool ends(NodeList *l);

/* Control never goes past n (RETURN, RAISE, HALT, RETRY, SKIP, or compounds all of whose ways do). */
static bool node_ends(Node *n) {
    switch (n->kind) {
    case S_RETURN: case S_RAISE: case S_HALT: case S_RETRY: case S_SKIP: return true;
    case S_IF:
        if (!n->list2.count) return false;
        for (int i = 0; i < n->list.count; i++)
            if (!ends(&n->list.items[i]->list)) return false;
        return ends(&n->list2);
    case S_CASE:
        if (!n->list2.count) return false;
        for (int i = 0; i < n->list.count; i++)
            if (!ends(&n->list.items[i]->list2)) return false;
        return ends(&n->list2);
    case S_LOOP: return !has_exit(&n->list);
    default: return false;
    }
}

static bool ends(NodeList *l) {
    for (int i = 0; i < l->count; i++)
        if (node_ends(l->items[i])) return true;
    return false;
}

/* ---- Declarations and program units. ---------------------------------------------------------------- */

/* Where the next variable of `t` goes: a global slot or the current frame. */
static Symbol *declare_var(Checker *c, Node *name, Type *t, Node *decl, bool param, bool varparam) {
    SymbolKind k = param ? (varparam ? SYM_VARPARAM : SYM_PARAM) : c->routine ? SYM_LOCAL : SYM_GLOBAL;
    Symbol *s = declare(c, k, name->name, name->loc, t, decl);
    if (!s) return NULL;
    int size = varparam ? 1 : t->nslots;
    int used = k == SYM_GLOBAL ? c->global_slots : c->frame_slots;
    if (used > CHECK_MAX_SLOTS - size) {
        error(c, name->loc, "'%s' does not fit: %s would need more than %d slots", name->name,
              k == SYM_GLOBAL ? "the global variables" : "this routine's frame", CHECK_MAX_SLOTS);
        return s;
    }
    if (k == SYM_GLOBAL) {
        s->slot = c->global_slots;
        c->global_slots += size;
    } else {
        s->slot = c->frame_slots;
        c->frame_slots += size;
    }
    name->sym = s;
    name->type = t;
    return s;
}

static void decl_var(Checker *c, Node *d) {
    Type *t = d->a ? resolve_type(c, d->a, NULL) : NULL;
    if (d->b) {
        Type *it = expr(c, d->b);
        if (!t) { /* VAR x := e; the type (and unit) of the initialiser */
            t = it;
            if (t->kind == TY_REAL && t->dim.any) t = real_type(c, dim_none());
            if (t->kind == TY_VOID) {
                error(c, start_loc(d->b), "the initial value has no value");
                t = T(TY_ERROR);
            }
        } else if (!is_err(t) && !is_err(it)) {
            /* A plain REAL takes its dimension from the initialiser (`d : REAL := 10 mm`). */
            bool plain_real = t->kind == TY_REAL && d->a->list.count == 0 && dim_is_none(t->dim) &&
                              d->a->flags != TY_ARRAY && d->a->flags != TY_RECORD;
            if (plain_real && is_num(it)) {
                if (it->kind == TY_INT) to_real(c, &d->b);
                Dim dd = d->b->type->dim;
                dd.any = false;
                t = real_type(c, dd);
            }
            coerce(c, &d->b, t, "the initial value");
        }
    }
    if (!t) t = T(TY_ERROR);
    if (t->kind == TY_DEVICE || t->kind == TY_IO || t->kind == TY_VOID) {
        error(c, d->loc, "a variable cannot hold %s", TN(t));
        t = T(TY_ERROR);
    }
    for (int i = 0; i < d->list.count; i++) {
        Symbol *s = declare_var(c, d->list.items[i], t, d, false, false);
        if (i == 0) d->sym = s;
    }
}

static void decl_const(Checker *c, Node *d) {
    Type *t = expr(c, d->a);
    ConstValue v = {0};
    if (is_err(t)) {
        t = T(TY_ERROR);
    } else if (t->kind != TY_BOOL && t->kind != TY_INT && t->kind != TY_REAL && t->kind != TY_STRING) {
        error(c, start_loc(d->a), "a CONST must be BOOL, INT, REAL or STRING, not %s", TN(t));
        t = T(TY_ERROR);
    } else if (!fold(c, d->a, &v)) {
        error(c, start_loc(d->a), "the value of CONST %s must be known at compile time", d->name);
        t = T(TY_ERROR);
    }
    Symbol *s = declare(c, SYM_CONST, d->name, d->loc, t, d);
    if (s) s->cval = v;
    d->sym = s;
}

/* A routine's signature: its symbol (in the program scope) and its parameters' types. */
static void decl_routine_sig(Checker *c, Node *r) {
    Type *rt = T(TY_VOID);
    if (r->flags & NF_FUNCTION) {
        rt = resolve_type(c, r->b, NULL);
        if (rt->kind == TY_REAL && rt->dim.any) rt = real_type(c, dim_none());
    }
    Symbol *s = declare(c, SYM_ROUTINE, r->name, r->loc, rt, r);
    r->sym = s;
    for (int i = 0; i < r->list.count; i++) {
        Node *p = r->list.items[i];
        p->type = resolve_type(c, p->a, NULL);
    }
}

/* A routine's body: parameters and locals in a new scope, then the statements and the handler. */
static void check_routine(Checker *c, Node *r) {
    Scope *saved = c->scope;
    c->scope = scope_new(c, c->global);
    c->routine = r;
    c->frame_slots = 0;
    for (int i = 0; i < r->list.count; i++) {
        Node *p = r->list.items[i];
        Symbol *s = declare_var(c, p, p->type ? p->type : T(TY_ERROR), p, true, (p->flags & NF_VARPARAM) != 0);
        p->sym = s;
    }
    for (int i = 0; i < r->list2.count; i++) {
        Node *d = r->list2.items[i];
        switch (d->kind) {
        case D_VAR: decl_var(c, d); break;
        case D_CONST: decl_const(c, d); break;
        default: error(c, d->loc, "only VAR and CONST can be declared inside a routine"); break;
        }
    }
    stmts(c, &r->body);
    bool fn = (r->flags & NF_FUNCTION) != 0;
    if (fn && !(c->holes & CHECK_HOLE_STMT) && !ends(&r->body)) /* lenient: a dropped statement may have been the RETURN */
        error(c, r->loc, "FUNCTION %s can reach its end without RETURN", r->name);
    if (r->flags & NF_HANDLER) {
        c->in_handler = true;
        stmts(c, &r->handler);
        c->in_handler = false;
        if (fn && !(c->holes & CHECK_HOLE_STMT) && !ends(&r->handler))
            error(c, r->loc, "the ON ERROR part of FUNCTION %s can reach ENDERROR without RETURN", r->name);
    }
    r->nslots = c->frame_slots;
    c->routine = NULL;
    c->scope = saved;
}

/* The names every program sees: built-in types and functions, ERR_* codes, TRUE and FALSE. */
static void predeclare(Checker *c) {
    static const TypeKind types[] = {TY_BOOL, TY_INT, TY_REAL, TY_STRING, TY_JOINT, TY_POSITION, TY_ORIENTATION,
                                     TY_POSE};
    SrcLoc none = {NULL, 0, 0};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        declare(c, SYM_TYPE, T(types[i])->name, none, T(types[i]), NULL);
    declare(c, SYM_TYPE, "FRAME", none, T(TY_POSE), NULL);
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        /* POSE and JOINT name a type and its constructor: the type symbol carries the constructor. */
        Symbol *s = scope_find_here(c->scope, builtins[i].name);
        if (!s) s = declare(c, SYM_BUILTIN, builtins[i].name, none, T(TY_VOID), NULL);
        s->index = builtins[i].id;
    }
#define X(name, value, msg)                                          \
    do {                                                             \
        Symbol *s = declare(c, SYM_CONST, #name, none, T(TY_INT), NULL); \
        s->cval.kind = TY_INT;                                       \
        s->cval.u.i = value;                                         \
    } while (0);
    IRL_ERRCODES(X)
#undef X
    for (int b = 0; b < 2; b++) {
        Symbol *s = declare(c, SYM_CONST, b ? "TRUE" : "FALSE", none, T(TY_BOOL), NULL);
        s->cval.kind = TY_BOOL;
        s->cval.u.b = b;
    }
}

int check_program(Arena *arena, Diag *diag, Node *program) {
    return check_program_ex(arena, diag, program, 0);
}

int check_program_ex(Arena *arena, Diag *diag, Node *program, unsigned holes) {
    Checker ck = {0}, *c = &ck;
    c->holes = holes;
    c->arena = arena;
    c->diag = diag;
    c->errors0 = diag->errors;
    c->program = program;
    c->predef = c->scope = scope_new(c, NULL);
    predeclare(c);
    c->global = c->scope = scope_new(c, c->predef);
    /* Declarations in order; routine signatures too, so bodies (checked after) can call any routine. */
    for (int i = 0; i < program->list.count; i++) {
        Node *d = program->list.items[i];
        switch (d->kind) {
        case D_CONST: decl_const(c, d); break;
        case D_VAR: decl_var(c, d); break;
        case D_TYPE: {
            Type *t = resolve_type(c, d->a, d->name); /* aliases of built-ins keep the built-in's name */
            d->sym = declare(c, SYM_TYPE, d->name, d->loc, t, d);
            break;
        }
        case D_IMPORT: break;
        case D_DEVICE:
            d->sym = declare(c, SYM_DEVICE, d->name, d->loc, T(TY_DEVICE), d);
            if (d->sym) d->sym->index = c->ndevices++;
            if (d->a) expr(c, d->a);
            break;
        case D_IO: {
            Type *t = expr(c, d->a);
            ConstValue v;
            if (!is_err(t) && (t->kind != TY_INT || !fold(c, d->a, &v) || v.u.i < 0))
                error(c, start_loc(d->a), "an I/O channel must be a constant INT >= 0");
            d->sym = declare(c, SYM_IO, d->name, d->loc, T(TY_IO), d);
            if (d->sym) d->sym->index = c->nios++;
            break;
        }
        case N_ROUTINE: decl_routine_sig(c, d); break;
        default: error(c, d->loc, "unexpected %s among declarations", ast_kind_name(d->kind)); break;
        }
    }
    program->nslots = c->global_slots;
    for (int i = 0; i < program->list.count; i++)
        if (program->list.items[i]->kind == N_ROUTINE) check_routine(c, program->list.items[i]);
    stmts(c, &program->body);
    if (program->flags & NF_HANDLER) {
        c->in_handler = true;
        stmts(c, &program->handler);
        c->in_handler = false;
    }
    return diag->errors - c->errors0;
}
