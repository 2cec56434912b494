/* check.c — scopes, types, dimensions and storage slots: annotates the parsed, import-merged program in place
 * for the code generator (what it fills is listed in check.h), reporting one message per real mistake. */
#include "check_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check_lits.h"
#include "errcodes.h"
#include "units.h"

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
    [TY_EVENT] = {TY_EVENT, 1, {{0}, false}, "EVENT", NULL, 0, NULL, 0},
};

Type *check_builtin_type(TypeKind kind) {
    if (kind == TY_RECORD || kind == TY_ARRAY || (unsigned)kind > TY_EVENT) return NULL;
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
Symbol *ck_lookup(Checker *c, const char *name) {
    for (Scope *s = c->scope; s; s = s->outer) {
        Symbol *sym = scope_find_here(s, name);
        if (sym) return sym;
    }
    return NULL;
}

/* ---- Messages. -------------------------------------------------------------------------------------- */

void ck_error(Checker *c, SrcLoc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(c->diag, "error", loc, fmt, ap); /* counts it */
    va_end(ap);
}

/* An error that may echo a syntax error ("unknown X", EXIT outside a loop, RETRY outside ON ERROR): when the
 * file had syntax errors the declaration or the enclosing LOOP / ON ERROR may be what the parser dropped, so in lenient mode it is not reported (the compile fails anyway; one mistake, one message). */
void ck_echo_error(Checker *c, unsigned hole, SrcLoc loc, const char *fmt, ...) {
    if (c->holes & hole)
        return;
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(c->diag, "error", loc, fmt, ap);
    va_end(ap);
}

/* A type's name for messages, with the unit of a dimensioned REAL ("REAL [m/s]"). Returns buf. */
const char *ck_tname(const Type *t, char *buf, size_t n) {
    if (t->kind == TY_REAL && !dim_is_none(t->dim) && !t->dim.any) {
        char u[48];
        snprintf(buf, n, "REAL [%s]", dim_str(t->dim, u, sizeof u));
    } else if (t->kind == TY_ARRAY && (!t->name || strcmp(t->name, "ARRAY") == 0)) {
        char e[64];
        snprintf(buf, n, "ARRAY [%d] OF %s", t->length, ck_tname(t->elem, e, sizeof e));
    } else {
        snprintf(buf, n, "%s", t->name ? t->name : "?");
    }
    return buf;
}


/* Where an expression starts (its leftmost token): values are reported there, operators at the operator. */
SrcLoc ck_start_loc(const Node *n) {
    while (n->a && (n->kind == E_BINARY || n->kind == E_FIELD || n->kind == E_INDEX || n->kind == E_WIDEN))
        n = n->a;
    return n->loc;
}


/* ---- Types. ----------------------------------------------------------------------------------------- */


/* The REAL type with dimension d (interned; the dimensionless, non-literal one is the singleton). */
Type *ck_real_type(Checker *c, Dim d) {
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
bool ck_type_exact(const Type *a, const Type *b) {
    if (a == b) return true;
    if (!check_type_same(a, b)) return false;
    if (a->kind == TY_REAL) return dim_eq(a->dim, b->dim);
    if (a->kind == TY_ARRAY) return ck_type_exact(a->elem, b->elem);
    return true;
}

/* Forward declarations (expressions and types refer to each other). */
static Type *resolve_type(Checker *c, Node *ref, const char *name);

/* A new node around e converting its INT value to REAL. An INT known at compile time (`5`, `2 * 3`, a CONST) is a
 * bare number and takes the dimension its place expects; an INT variable is a dimensionless count. */
static Node *widen(Checker *c, Node *e) {
    Node *w = ast_node(c->arena, E_WIDEN, e->loc);
    ConstValue v;
    w->a = e;
    w->type = ck_real_type(c, ck_fold(c, e, &v) ? dim_any() : dim_none());
    return w;
}

/* Make *slot (already checked) a REAL operand: wrap INTs in E_WIDEN. */
void ck_to_real(Checker *c, Node **slot) {
    if ((*slot)->type && (*slot)->type->kind == TY_INT) *slot = widen(c, *slot);
}

/* ---- Constant folding (after checking: types and names are known). --------------------------------- */

bool ck_fold(Checker *c, Node *n, ConstValue *out) {
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
        if (!ck_fold(c, n->a, &a) || a.kind != TY_INT) return false;
        out->kind = TY_REAL, out->u.r = (double)a.u.i;
        return true;
    case E_UNARY:
        if (!ck_fold(c, n->a, &a)) return false;
        if (n->op == OP_NOT && a.kind == TY_BOOL) { out->kind = TY_BOOL, out->u.b = !a.u.b; return true; }
        if (n->op == '+' && (a.kind == TY_INT || a.kind == TY_REAL)) { *out = a; return true; }
        if (n->op == '-' && a.kind == TY_REAL) { out->kind = TY_REAL, out->u.r = -a.u.r; return true; }
        if (n->op == '-' && a.kind == TY_INT && a.u.i != INT64_MIN) {
            out->kind = TY_INT, out->u.i = -a.u.i;
            return true;
        }
        return false;
    case E_BINARY:
        if (!ck_fold(c, n->a, &a) || !ck_fold(c, n->b, &b)) return false;
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
        ck_error(c, loc, "'%s' is already declared in this scope", name);
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
            ck_error(c, u->loc, "unknown unit '%s'", u->name);
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
                        ck_error(c, fn->loc, "field '%s' is already declared in this record", fn->name);
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
            if (fd->b) ck_error(c, ck_start_loc(fd->b), "a record field cannot have an initial value");
        }
        return t;
    }
    if (ref->flags == TY_ARRAY) {
        Type *elem = resolve_type(c, ref->b, NULL);
        Type *lt = ck_expr(c, ref->a);
        ConstValue v;
        if (is_err(lt) || is_err(elem)) return T(TY_ERROR);
        if (lt->kind != TY_INT || !ck_fold(c, ref->a, &v)) {
            ck_error(c, ck_start_loc(ref->a), "an array length must be a constant INT, got %s",
                  lt->kind == TY_INT ? "a value known only at run time" : TN(lt));
            return T(TY_ERROR);
        }
        if (v.u.i <= 0 || v.u.i > 100000000) {
            ck_error(c, ck_start_loc(ref->a), "an array length must be between 1 and 100000000, got %lld", (long long)v.u.i);
            return T(TY_ERROR);
        }
        if ((int64_t)v.u.i * elem->nslots > CHECK_MAX_SLOTS) {
            ck_error(c, ck_start_loc(ref->a), "this array needs %lld slots, more than the %d a value may have",
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
    Symbol *s = ck_lookup(c, ref->name);
    if (!s) {
        ck_echo_error(c, CHECK_HOLE_DECL, ref->loc, "unknown type '%s'", ref->name);
        return T(TY_ERROR);
    }
    if (s->kind != SYM_TYPE) {
        ck_error(c, ref->loc, "'%s' is not a type", ref->name);
        return T(TY_ERROR);
    }
    ref->sym = s;
    if (ref->list.count) {
        if (s->type->kind != TY_REAL) {
            ck_error(c, ref->loc, "only REAL can carry a unit, not %s", TN(s->type));
            return T(TY_ERROR);
        }
        return ck_real_type(c, unit_list_dim(c, ref));
    }
    return s->type;
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
        ck_error(c, name->loc, "'%s' does not fit: %s would need more than %d slots", name->name,
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
        Type *it = ck_expr(c, d->b);
        if (!t) { /* VAR x := e; the type (and unit) of the initialiser */
            t = it;
            if (t->kind == TY_REAL && t->dim.any) t = ck_real_type(c, dim_none());
            if (t->kind == TY_VOID) {
                ck_error(c, ck_start_loc(d->b), "the initial value has no value");
                t = T(TY_ERROR);
            }
        } else if (!is_err(t) && !is_err(it)) {
            /* A plain REAL takes its dimension from the initialiser (`d : REAL := 10 mm`). */
            bool plain_real = t->kind == TY_REAL && d->a->list.count == 0 && dim_is_none(t->dim) &&
                              d->a->flags != TY_ARRAY && d->a->flags != TY_RECORD;
            if (plain_real && is_num(it)) {
                if (it->kind == TY_INT) ck_to_real(c, &d->b);
                Dim dd = d->b->type->dim;
                dd.any = false;
                t = ck_real_type(c, dd);
            }
            ck_coerce(c, &d->b, t, "the initial value");
        }
    }
    if (!t) t = T(TY_ERROR);
    if (t->kind == TY_DEVICE || t->kind == TY_IO || t->kind == TY_VOID) {
        ck_error(c, d->loc, "a variable cannot hold %s", TN(t));
        t = T(TY_ERROR);
    }
    for (int i = 0; i < d->list.count; i++) {
        Symbol *s = declare_var(c, d->list.items[i], t, d, false, false);
        if (i == 0) d->sym = s;
    }
}

static void decl_const(Checker *c, Node *d) {
    Type *t = ck_expr(c, d->a);
    ConstValue v = {0};
    if (is_err(t)) {
        t = T(TY_ERROR);
    } else if (t->kind != TY_BOOL && t->kind != TY_INT && t->kind != TY_REAL && t->kind != TY_STRING) {
        ck_error(c, ck_start_loc(d->a), "a CONST must be BOOL, INT, REAL or STRING, not %s", TN(t));
        t = T(TY_ERROR);
    } else if (!ck_fold(c, d->a, &v)) {
        ck_error(c, ck_start_loc(d->a), "the value of CONST %s must be known at compile time", d->name);
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
        if (rt->kind == TY_REAL && rt->dim.any) rt = ck_real_type(c, dim_none());
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
        default: ck_error(c, d->loc, "only VAR and CONST can be declared inside a routine"); break;
        }
    }
    ck_stmts(c, &r->body);
    ck_triggers_follow(c, &r->body);
    bool fn = (r->flags & NF_FUNCTION) != 0;
    if (fn && !(c->holes & CHECK_HOLE_STMT) && !ck_ends(&r->body)) /* lenient: a dropped statement may have been the RETURN */
        ck_error(c, r->loc, "FUNCTION %s can reach its end without RETURN", r->name);
    if (r->flags & NF_HANDLER) {
        c->in_handler = true;
        ck_stmts(c, &r->handler);
        c->in_handler = false;
        if (fn && !(c->holes & CHECK_HOLE_STMT) && !ck_ends(&r->handler))
            ck_error(c, r->loc, "the ON ERROR part of FUNCTION %s can reach ENDERROR without RETURN", r->name);
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
    for (size_t i = 0; i < ck_nbuiltins; i++) {
        /* POSE and JOINT name a type and its constructor: the type symbol carries the constructor. */
        Symbol *s = scope_find_here(c->scope, ck_builtins[i].name);
        if (!s) s = declare(c, SYM_BUILTIN, ck_builtins[i].name, none, T(TY_VOID), NULL);
        s->index = ck_builtins[i].id;
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
    c->move_dev = -1;
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
            if (d->a) ck_expr(c, d->a);
            if (d->sym && d->sym->index < CHECK_MAX_DESC && d->a && d->a->kind == E_STRING) {
                ModelDesc *md = arena_alloc(c->arena, sizeof *md);
                if (lits_device_desc(d->loc.file, d->a->lit.s, md)) c->dev_desc[d->sym->index] = md;
                c->dev_name[d->sym->index] = d->name;
            }
            break;
        case D_IO: {
            Type *t = ck_expr(c, d->a);
            ConstValue v;
            if (!is_err(t) && (t->kind != TY_INT || !ck_fold(c, d->a, &v) || v.u.i < 0))
                ck_error(c, ck_start_loc(d->a), "an I/O channel must be a constant INT >= 0");
            d->sym = declare(c, SYM_IO, d->name, d->loc, T(TY_IO), d);
            if (d->sym) d->sym->index = c->nios++;
            break;
        }
        case N_ROUTINE: decl_routine_sig(c, d); break;
        /* tasks, events, interrupts */
        case D_EVENT:
            for (int j = 0; j < d->list.count; j++) declare_var(c, d->list.items[j], T(TY_EVENT), d, false, false);
            break;
        case D_INTERRUPT:
            d->sym = declare(c, SYM_INTERRUPT, d->name, d->loc, T(TY_VOID), d);
            if (d->sym) d->sym->index = c->ninterrupts++;
            break;
        default: ck_error(c, d->loc, "unexpected %s among declarations", ast_kind_name(d->kind)); break;
        }
    }
    program->nslots = c->global_slots;
    for (int i = 0; i < program->list.count; i++)
        if (program->list.items[i]->kind == N_ROUTINE) check_routine(c, program->list.items[i]);
    for (int i = 0; i < program->list.count; i++)
        if (program->list.items[i]->kind == D_INTERRUPT) ck_interrupt(c, program->list.items[i]);
    ck_stmts(c, &program->body);
    ck_triggers_follow(c, &program->body);
    if (program->flags & NF_HANDLER) {
        c->in_handler = true;
        ck_stmts(c, &program->handler);
        c->in_handler = false;
    }
    return diag->errors - c->errors0;
}
