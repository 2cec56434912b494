/* check_expr.c — the checker's expressions: names, fields, indexing, operators with their dimensions, system
 * variables, built-in functions and calls; each node gets its type. */
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

/* ---- Expressions. ----------------------------------------------------------------------------------- */

static Type *set(Node *n, Type *t) {
    n->type = t;
    return t;
}


static const Sysvar sysvars[] = {
    {"SPEED", TY_REAL, {1, 0, -1, 0}, true},  {"SPEED_ORI", TY_REAL, {0, 0, -1, 1}, true},
    {"SPEED_PTP", TY_REAL, {0, 0, 0, 0}, true}, {"ACC", TY_REAL, {1, 0, -2, 0}, true},
    {"ACC_PTP", TY_REAL, {0, 0, 0, 0}, true},   {"APPROX", TY_REAL, {1, 0, 0, 0}, true},
    {"APPROX_PTP", TY_REAL, {0, 0, 0, 0}, true}, {"TOOL", TY_POSE, {0}, true},
    {"BASE", TY_POSE, {0}, true},               {"TIME", TY_REAL, {0, 0, 1, 0}, false},
    {"ERRNO", TY_INT, {0}, false},
};

const Sysvar *ck_find_sysvar(const char *name) {
    if (name && name[0] == '$') name++;
    for (size_t i = 0; i < sizeof sysvars / sizeof sysvars[0]; i++)
        if (strcasecmp(sysvars[i].name, name) == 0) return &sysvars[i];
    return NULL;
}

static Type *sysvar_type(Checker *c, const Sysvar *v) {
    if (v->type != TY_REAL) return T(v->type);
    Dim d = dim_none();
    memcpy(d.e, v->e, sizeof d.e);
    return ck_real_type(c, d);
}

/* The value type of reading an IO point: BOOL for digital, dimensionless REAL for analog. */
static Type *io_type(Symbol *s) {
    int k = s->decl ? (s->decl->flags & 0xff) : IO_DIN;
    return k == IO_AIN || k == IO_AOUT ? T(TY_REAL) : T(TY_BOOL);
}


static Type *expr_name(Checker *c, Node *n) {
    Symbol *s = ck_lookup(c, n->name);
    if (!s && strcasecmp(n->name, "ERRNO") == 0) { /* the code being handled: read like a system variable */
        n->kind = E_SYSVAR;
        n->name = "ERRNO";
        return set(n, T(TY_INT));
    }
    if (!s) {
        ck_echo_error(c, CHECK_HOLE_DECL, n->loc, "unknown name '%s'", n->name);
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
        return ck_call(c, n, false);
    case SYM_TYPE:
        ck_error(c, n->loc, "'%s' is a type, not a value", n->name);
        break;
    case SYM_DEVICE:
        ck_error(c, n->loc, "'%s' is a DEVICE, not a value", n->name);
        break;
    case SYM_INTERRUPT:
        ck_error(c, n->loc, "'%s' is an INTERRUPT, not a value", n->name);
        break;
    }
    return set(n, T(TY_ERROR));
}

static Type *expr_field(Checker *c, Node *n) {
    Type *t = ck_expr(c, n->a);
    if (is_err(t)) return set(n, T(TY_ERROR));
    if (t->kind == TY_RECORD) {
        for (int i = 0; i < t->nfields; i++)
            if (strcasecmp(t->fields[i].name, n->name) == 0) {
                n->field = &t->fields[i];
                return set(n, t->fields[i].type);
            }
        ck_error(c, n->loc, "record %s has no field '%s'", TN(t), n->name);
        return set(n, T(TY_ERROR));
    }
    Type *ct;
    int off = check_component(t, n->name, &ct);
    if (off < 0) {
        if (t->kind == TY_POSITION || t->kind == TY_POSE || t->kind == TY_ORIENTATION)
            ck_error(c, n->loc, "%s has no component '%s' (it has %s)", TN(t), n->name,
                  t->kind == TY_POSITION ? "X, Y, Z" : t->kind == TY_POSE ? "X, Y, Z, POS, ORI" : "Q1, Q2, Q3, Q4");
        else if (t->kind == TY_JOINT)
            ck_error(c, n->loc, "a JOINT has no components; index its axes: j[1]");
        else
            ck_error(c, n->loc, "%s has no fields or components", TN(t));
        return set(n, T(TY_ERROR));
    }
    n->component = off;
    if (ct->kind == TY_REAL) ct = ck_real_type(c, t->kind == TY_ORIENTATION ? dim_none() : dim_length());
    return set(n, ct);
}

static Type *expr_index(Checker *c, Node *n) {
    Type *t = ck_expr(c, n->a);
    Type *it = ck_expr(c, n->b);
    if (is_err(t) || is_err(it)) return set(n, T(TY_ERROR));
    if (t->kind != TY_ARRAY && t->kind != TY_JOINT) {
        ck_error(c, ck_start_loc(n->a), "only arrays and JOINTs can be indexed, not %s", TN(t));
        return set(n, T(TY_ERROR));
    }
    if (it->kind != TY_INT) {
        ck_error(c, ck_start_loc(n->b), "an index must be INT, got %s", TN(it));
        return set(n, T(TY_ERROR));
    }
    ConstValue v;
    int len = t->kind == TY_ARRAY ? t->length : IRL_JOINT_MAX;
    if (ck_fold(c, n->b, &v) && (v.u.i < 1 || v.u.i > len)) {
        ck_error(c, ck_start_loc(n->b), "index %lld is out of range 1..%d", (long long)v.u.i, len);
        return set(n, T(TY_ERROR));
    }
    /* A JOINT axis is an angle or a length depending on the device: it adopts what its place expects. */
    return set(n, t->kind == TY_ARRAY ? t->elem : ck_real_type(c, dim_any()));
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
    Type *a = ck_expr(c, n->a), *b = ck_expr(c, n->b);
    if (is_err(a) || is_err(b)) return set(n, T(TY_ERROR));
    int op = n->op;
    switch (op) {
    case OP_AND:
    case OP_OR:
        if (a->kind != TY_BOOL || b->kind != TY_BOOL) {
            ck_error(c, n->loc, "%s needs BOOL operands, got %s and %s", op_text(op), TN(a), TN(b));
            return set(n, T(TY_ERROR));
        }
        return set(n, T(TY_BOOL));
    case OP_DIV:
    case OP_MOD:
        if (a->kind != TY_INT || b->kind != TY_INT) {
            ck_error(c, n->loc, "%s needs INT operands, got %s and %s%s", op_text(op), TN(a), TN(b),
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
            ck_error(c, n->loc, "@ cannot combine %s and %s (POSE@POSE, ORIENTATION@ORIENTATION, "
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
                ck_error(c, n->loc, "%s cannot compare %s values; compare their components", op_text(op), TN(a));
            else
                ck_error(c, n->loc, "%s cannot compare %s with %s", op_text(op), TN(a), TN(b));
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
            ck_error(c, n->loc, "%s needs numbers, got %s and %s%s", op_text(op), TN(a), TN(b),
                  strcmp(what, "ordering") == 0 && a->kind == b->kind ? " (only INT and REAL are ordered)" : "");
            return set(n, T(TY_ERROR));
        }
        break;
    default:
        ck_error(c, n->loc, "unknown operator");
        return set(n, T(TY_ERROR));
    }
    /* Numbers from here on. */
    bool cmp = op == '=' || op == OP_NE || op == '<' || op == OP_LE || op == '>' || op == OP_GE;
    if (a->kind == TY_INT && b->kind == TY_INT && op != '/') return set(n, cmp ? T(TY_BOOL) : T(TY_INT));
    ck_to_real(c, &n->a);
    ck_to_real(c, &n->b);
    Dim da = n->a->type->dim, db = n->b->type->dim;
    if (op == '*') return set(n, ck_real_type(c, dim_mul(da, db)));
    if (op == '/') return set(n, ck_real_type(c, dim_div(da, db)));
    if (!dim_compatible(da, db)) {
        ck_error(c, n->loc, "cannot %s %s and %s", op_verb(op), DU(da), DU(db));
        return set(n, T(TY_ERROR));
    }
    return set(n, cmp ? T(TY_BOOL) : ck_real_type(c, dim_join(da, db)));
}

static Type *expr_unary(Checker *c, Node *n) {
    Type *a = ck_expr(c, n->a);
    if (is_err(a)) return set(n, T(TY_ERROR));
    if (n->op == OP_NOT) {
        if (a->kind != TY_BOOL) {
            ck_error(c, n->loc, "NOT needs a BOOL operand, got %s", TN(a));
            return set(n, T(TY_ERROR));
        }
        return set(n, a);
    }
    if (!is_num(a)) {
        ck_error(c, n->loc, "unary %s needs a number, got %s", op_text(n->op), TN(a));
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
Type *ck_expr(Checker *c, Node *n) {
    if (!n) return T(TY_ERROR);
    if (c->depth == 0 && too_deep(n, CHECK_MAX_DEPTH)) {
        ck_error(c, ck_start_loc(n), "expression nested too deeply (more than %d levels)", CHECK_MAX_DEPTH);
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
            return set(n, ck_real_type(c, (Dim){{n->dim.e[0], n->dim.e[1], n->dim.e[2], n->dim.e[3]}, false}));
        }
        return set(n, T(TY_INT));
    case E_REAL:
        if (n->flags & NF_HAS_UNIT) {
            Dim d = n->dim;
            d.any = false;
            return set(n, ck_real_type(c, d));
        }
        return set(n, ck_real_type(c, dim_any()));
    case E_BOOL: return set(n, T(TY_BOOL));
    case E_STRING: return set(n, T(TY_STRING));
    case E_NAME: return expr_name(c, n);
    case E_SYSVAR: {
        const Sysvar *v = ck_find_sysvar(n->name);
        if (!v) {
            ck_error(c, n->loc, "unknown system variable '$%s'", n->name[0] == '$' ? n->name + 1 : n->name);
            return set(n, T(TY_ERROR));
        }
        return set(n, sysvar_type(c, v));
    }
    case E_FIELD: return expr_field(c, n);
    case E_INDEX: return expr_index(c, n);
    case E_UNARY: return expr_unary(c, n);
    case E_BINARY: return expr_binary(c, n);
    case E_CALL: return ck_call(c, n, false);
    case E_WIDEN: return n->type ? n->type : set(n, ck_real_type(c, dim_none()));
    default:
        ck_error(c, n->loc, "expected an expression");
        return set(n, T(TY_ERROR));
    }
}

/* ---- Coercions: a checked value into a place of known type and dimension. -------------------------- */

/* Does the value in *slot fit a place of type `want` (assignment, value argument, initialiser)? Widens INT to
 * REAL, checks dimensions, reports "what: expected X, got Y" on a mismatch. */
bool ck_coerce(Checker *c, Node **slot, Type *want, const char *what) {
    Type *got = (*slot)->type;
    if (is_err(got) || is_err(want)) return false;
    SrcLoc loc = ck_start_loc(*slot);
    if (want->kind == TY_REAL && got->kind == TY_INT) {
        ck_to_real(c, slot);
        got = (*slot)->type;
    }
    if (want->kind == TY_INT && got->kind == TY_REAL) {
        ck_error(c, loc, "%s: cannot use a REAL as an INT; convert with ROUND or TRUNC", what);
        return false;
    }
    if (want->kind == TY_REAL && got->kind == TY_REAL) {
        if (!dim_compatible(want->dim, got->dim)) {
            ck_error(c, loc, "%s: expected %s, got %s", what, DD(want->dim), DD(got->dim));
            return false;
        }
        return true;
    }
    if (!ck_type_exact(want, got)) {
        if (check_type_same(want, got))
            ck_error(c, loc, "%s: expected %s, got %s (the units of their REALs differ)", what, TN(want), TN(got));
        else
            ck_error(c, loc, "%s: expected %s, got %s", what, TN(want), TN(got));
        return false;
    }
    return true;
}

/* A REAL (or INT) argument of dimension `want`, widened; false (reported) otherwise. */
bool ck_want_real(Checker *c, Node **slot, Dim want, const char *what) {
    Type *t = ck_expr(c, *slot);
    if (is_err(t)) return false;
    if (!is_num(t)) {
        ck_error(c, ck_start_loc(*slot), "%s: expected %s, got %s", what, DD(want), TN(t));
        return false;
    }
    return ck_coerce(c, slot, ck_real_type(c, want), what);
}

/* ---- Calls. ----------------------------------------------------------------------------------------- */

const BuiltinInfo ck_builtins[] = {
    {"SIN", BI_SIN},       {"COS", BI_COS},       {"TAN", BI_TAN},         {"ASIN", BI_ASIN},
    {"ACOS", BI_ACOS},     {"ATAN", BI_ATAN},     {"ATAN2", BI_ATAN2},     {"SQRT", BI_SQRT},
    {"ABS", BI_ABS},       {"MIN", BI_MIN},       {"MAX", BI_MAX},         {"EXP", BI_EXP},
    {"LN", BI_LN},         {"POW", BI_POW},       {"ROUND", BI_ROUND},     {"TRUNC", BI_TRUNC},
    {"POS", BI_POS},       {"ORIZYX", BI_ORIZYX}, {"ORIXYZ", BI_ORIXYZ},   {"ORIQUAT", BI_ORIQUAT},
    {"ORIVANG", BI_ORIVANG}, {"POSE", BI_POSE},   {"JOINT", BI_JOINT},     {"INV", BI_INV},
    {"DIST", BI_DIST},
};
const size_t ck_nbuiltins = sizeof ck_builtins / sizeof ck_builtins[0];

static bool argc_is(Checker *c, Node *n, int lo, int hi) {
    int k = n->list.count;
    if (k >= lo && k <= hi) return true;
    if (lo == hi)
        ck_error(c, n->loc, "%s takes %d argument%s, got %d", n->name, lo, lo == 1 ? "" : "s", k);
    else if (hi > 100)
        ck_error(c, n->loc, "%s takes at least %d arguments, got %d", n->name, lo, k);
    else
        ck_error(c, n->loc, "%s takes %d to %d arguments, got %d", n->name, lo, hi, k);
    return false;
}

/* Check argument i as a value of one of the built-in structured kinds. */
static bool want_kind(Checker *c, Node *n, int i, TypeKind k1, TypeKind k2, const char *what) {
    Type *t = ck_expr(c, n->list.items[i]);
    if (is_err(t)) return false;
    if (t->kind == k1 || t->kind == k2) return true;
    if (k2 != k1)
        ck_error(c, ck_start_loc(n->list.items[i]), "%s: expected %s or %s, got %s", what, T(k1)->name, T(k2)->name,
              TN(t));
    else
        ck_error(c, ck_start_loc(n->list.items[i]), "%s: expected %s, got %s", what, T(k1)->name, TN(t));
    return false;
}

/* The single numeric argument of a built-in (SQRT, ROUND, TRUNC), widened to REAL; false after an error. */
static bool one_real_arg(Checker *c, Node *n) {
    if (!argc_is(c, n, 1, 1)) return false;
    Node **args = n->list.items;
    Type *t = ck_expr(c, args[0]);
    if (is_err(t)) return false;
    if (!is_num(t)) {
        ck_error(c, ck_start_loc(args[0]), "argument 1 of %s: expected a number, got %s", n->name, TN(t));
        return false;
    }
    ck_to_real(c, &args[0]);
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
        if (!argc_is(c, n, 1, 1) || !ck_want_real(c, &args[0], angle, ARG(0))) return set(n, T(TY_ERROR));
        return set(n, T(TY_REAL));
    case BI_ASIN:
    case BI_ACOS:
    case BI_ATAN:
        if (!argc_is(c, n, 1, 1) || !ck_want_real(c, &args[0], none, ARG(0))) return set(n, T(TY_ERROR));
        return set(n, ck_real_type(c, angle));
    case BI_EXP:
    case BI_LN:
        if (!argc_is(c, n, 1, 1) || !ck_want_real(c, &args[0], none, ARG(0))) return set(n, T(TY_ERROR));
        return set(n, T(TY_REAL));
    case BI_ATAN2: {
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        Type *y = ck_expr(c, args[0]), *x = ck_expr(c, args[1]);
        if (is_err(y) || is_err(x)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 2; i++)
            if (!is_num(args[i]->type)) {
                ck_error(c, ck_start_loc(args[i]), "%s: expected a number, got %s", ARG(i), TN(args[i]->type));
                return set(n, T(TY_ERROR));
            }
        ck_to_real(c, &args[0]);
        ck_to_real(c, &args[1]);
        if (!dim_compatible(args[0]->type->dim, args[1]->type->dim)) {
            ck_error(c, ck_start_loc(args[1]), "ATAN2 needs arguments of one dimension, got %s and %s",
                  DU(args[0]->type->dim), DU(args[1]->type->dim));
            return set(n, T(TY_ERROR));
        }
        return set(n, ck_real_type(c, angle));
    }
    case BI_SQRT: {
        if (!one_real_arg(c, n)) return set(n, T(TY_ERROR));
        Dim d;
        if (!dim_sqrt(args[0]->type->dim, &d)) {
            ck_error(c, ck_start_loc(args[0]), "SQRT of %s has no unit (odd power)", DS(args[0]->type->dim));
            return set(n, T(TY_ERROR));
        }
        return set(n, ck_real_type(c, d));
    }
    case BI_ABS:
    case BI_MIN:
    case BI_MAX: {
        if (!(n->builtin == BI_ABS ? argc_is(c, n, 1, 1) : argc_is(c, n, 2, 1000))) return set(n, T(TY_ERROR));
        bool all_int = true;
        for (int i = 0; i < k; i++) {
            Type *t = ck_expr(c, args[i]);
            if (is_err(t)) ok = false;
            else if (!is_num(t)) {
                ck_error(c, ck_start_loc(args[i]), "%s: expected a number, got %s", ARG(i), TN(t));
                ok = false;
            } else if (t->kind != TY_INT) all_int = false;
        }
        if (!ok) return set(n, T(TY_ERROR));
        if (all_int) return set(n, T(TY_INT));
        Dim d = dim_any();
        for (int i = 0; i < k; i++) {
            ck_to_real(c, &args[i]);
            Dim di = args[i]->type->dim;
            if (!dim_compatible(d, di)) {
                ck_error(c, ck_start_loc(args[i]), "%s needs arguments of one dimension, got %s and %s", n->name, DU(d), DU(di));
                return set(n, T(TY_ERROR));
            }
            d = dim_join(d, di);
        }
        return set(n, ck_real_type(c, d));
    }
    case BI_POW: {
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        Type *x = ck_expr(c, args[0]), *e = ck_expr(c, args[1]);
        if (is_err(x) || is_err(e)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 2; i++)
            if (!is_num(args[i]->type)) {
                ck_error(c, ck_start_loc(args[i]), "%s: expected a number, got %s", ARG(i), TN(args[i]->type));
                return set(n, T(TY_ERROR));
            }
        ConstValue v;
        bool int_lit = e->kind == TY_INT && ck_fold(c, args[1], &v) && v.u.i >= -60 && v.u.i <= 60;
        ck_to_real(c, &args[0]);
        if (int_lit) {
            ck_to_real(c, &args[1]);
            return set(n, ck_real_type(c, dim_pow(args[0]->type->dim, (int)v.u.i)));
        }
        if (!ck_coerce(c, &args[1], T(TY_REAL), ARG(1))) return set(n, T(TY_ERROR));
        if (!dim_is_none(args[0]->type->dim) && !args[0]->type->dim.any) {
            ck_error(c, ck_start_loc(args[0]), "POW of %s needs a constant INT exponent (the unit of the result must be known)",
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
            ck_error(c, ck_start_loc(args[0]), "%s needs a dimensionless number, got %s; divide by a unit first, e.g. "
                  "%s(x / 1 %s)", n->name, DD(d), n->name, DS(d));
            return set(n, T(TY_ERROR));
        }
        return set(n, T(TY_INT));
    }
    case BI_POS:
        if (!argc_is(c, n, 3, 3)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 3; i++) ok &= ck_want_real(c, &args[i], length, ARG(i));
        return set(n, ok ? T(TY_POSITION) : T(TY_ERROR));
    case BI_ORIZYX:
    case BI_ORIXYZ:
        if (!argc_is(c, n, 3, 3)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 3; i++) {
            lits_angle(c->diag, args[i], ARG(i));
            ok &= ck_want_real(c, &args[i], angle, ARG(i));
        }
        return set(n, ok ? T(TY_ORIENTATION) : T(TY_ERROR));
    case BI_ORIQUAT:
        if (!argc_is(c, n, 4, 4)) return set(n, T(TY_ERROR));
        for (int i = 0; i < 4; i++) ok &= ck_want_real(c, &args[i], none, ARG(i));
        return set(n, ok ? T(TY_ORIENTATION) : T(TY_ERROR));
    case BI_ORIVANG:
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        ok &= want_kind(c, n, 0, TY_POSITION, TY_POSITION, ARG(0));
        lits_angle(c->diag, args[1], ARG(1));
        ok &= ck_want_real(c, &args[1], angle, ARG(1));
        return set(n, ok ? T(TY_ORIENTATION) : T(TY_ERROR));
    case BI_POSE:
        if (!argc_is(c, n, 2, 2)) return set(n, T(TY_ERROR));
        ok &= want_kind(c, n, 0, TY_POSITION, TY_POSITION, ARG(0));
        ok &= want_kind(c, n, 1, TY_ORIENTATION, TY_ORIENTATION, ARG(1));
        return set(n, ok ? T(TY_POSE) : T(TY_ERROR));
    case BI_JOINT:
        if (!argc_is(c, n, 1, IRL_JOINT_MAX)) return set(n, T(TY_ERROR));
        for (int i = 0; i < k; i++) {
            Type *t = ck_expr(c, args[i]);
            if (is_err(t)) { ok = false; continue; }
            if (!is_num(t)) {
                ck_error(c, ck_start_loc(args[i]), "%s: expected an angle or a length, got %s", ARG(i), TN(t));
                ok = false;
                continue;
            }
            ck_to_real(c, &args[i]);
            Dim d = args[i]->type->dim;
            if (!d.any && !dim_eq(d, angle) && !dim_eq(d, length)) {
                ck_error(c, ck_start_loc(args[i]), "%s: a JOINT axis is an angle (rad) or a length (m), got %s", ARG(i), DD(d));
                ok = false;
            }
        }
        {   /* against the axes of the MOVE's device, or of the program's only device */
            int dv = c->move_dev >= 0 ? c->move_dev : c->ndevices == 1 ? 0 : -1;
            if (ok && dv >= 0 && dv < CHECK_MAX_DESC && c->dev_desc[dv])
                lits_joint(c->diag, args, k, c->dev_desc[dv], c->dev_name[dv]);
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
            ck_error(c, n->loc, "DIST needs two POSITIONs or two POSEs, got %s and %s", TN(args[0]->type),
                  TN(args[1]->type));
            return set(n, T(TY_ERROR));
        }
        return set(n, ck_real_type(c, length));
    }
    default:
        ck_error(c, n->loc, "unknown built-in");
        return set(n, T(TY_ERROR));
    }
#undef ARG
}

/* Is n a variable place (not a constant, sysvar or computed value)? */
bool ck_is_variable(Node *n) {
    switch (n->kind) {
    case E_NAME:
        return n->sym && (n->sym->kind == SYM_GLOBAL || n->sym->kind == SYM_LOCAL || n->sym->kind == SYM_PARAM ||
                          n->sym->kind == SYM_VARPARAM);
    case E_FIELD:
    case E_INDEX:
        return ck_is_variable(n->a);
    default:
        return false;
    }
}

static Type *check_user_call(Checker *c, Node *n, Symbol *s, bool as_statement) {
    Node *r = s->decl;
    bool fn = (r->flags & NF_FUNCTION) != 0;
    n->sym = s;
    if (fn && as_statement) {
        ck_error(c, n->loc, "the value of FUNCTION %s is not used; assign it or use it in an expression", s->name);
        for (int i = 0; i < n->list.count; i++) ck_expr(c, n->list.items[i]);
        return set(n, T(TY_ERROR));
    }
    if (!fn && !as_statement) {
        ck_error(c, n->loc, "PROCEDURE %s has no value; it can only be called as a statement", s->name);
        return set(n, T(TY_ERROR));
    }
    bool ok = true;
    if (n->list.count != r->list.count) {
        ck_error(c, n->loc, "%s takes %d argument%s, got %d", s->name, r->list.count, r->list.count == 1 ? "" : "s",
              n->list.count);
        for (int i = 0; i < n->list.count; i++) ck_expr(c, n->list.items[i]);
        return set(n, T(TY_ERROR));
    }
    for (int i = 0; i < n->list.count; i++) {
        Node *p = r->list.items[i];
        Type *pt = p->sym ? p->sym->type : T(TY_ERROR);
        Type *at = ck_expr(c, n->list.items[i]);
        char what[96];
        snprintf(what, sizeof what, "argument %d (%s) of %s", i + 1, p->name, s->name);
        if (is_err(at) || is_err(pt)) { ok = false; continue; }
        if (p->flags & NF_VARPARAM) {
            if (!ck_is_variable(n->list.items[i])) {
                ck_error(c, ck_start_loc(n->list.items[i]), "%s is a VAR parameter: pass a variable, not a value", what);
                ok = false;
            } else if (!ck_type_exact(pt, at)) {
                if (pt->kind == TY_REAL && at->kind == TY_REAL)
                    ck_error(c, ck_start_loc(n->list.items[i]), "%s is a VAR parameter of %s: got %s", what, DD(pt->dim),
                          DD(at->dim));
                else
                    ck_error(c, ck_start_loc(n->list.items[i]), "%s is a VAR parameter of type %s: got %s", what, TN(pt),
                          TN(at));
                ok = false;
            }
        } else {
            ok &= ck_coerce(c, &n->list.items[i], pt, what);
        }
    }
    if (!ok) return set(n, T(TY_ERROR));
    return set(n, fn ? s->type : T(TY_VOID));
}

/* E_CALL (or a bare name turned into one): a built-in or a user routine. */
Type *ck_call(Checker *c, Node *n, bool as_statement) {
    Symbol *s = ck_lookup(c, n->name);
    if (!s) {
        ck_echo_error(c, CHECK_HOLE_DECL, n->loc, "unknown %s '%s'", as_statement ? "procedure" : "function", n->name);
        for (int i = 0; i < n->list.count; i++) ck_expr(c, n->list.items[i]);
        return set(n, T(TY_ERROR));
    }
    if (s->kind == SYM_BUILTIN || (s->kind == SYM_TYPE && s->index != BI_NONE)) {
        n->builtin = (BuiltinId)s->index;
        if (as_statement) {
            ck_error(c, n->loc, "the value of %s is not used; assign it or use it in an expression", s->name);
            return set(n, T(TY_ERROR));
        }
        return check_builtin(c, n);
    }
    if (s->kind == SYM_ROUTINE && (s->decl->flags & NF_TASK)) {
        ck_error(c, n->loc, "%s is a TASK: it runs beside the program, started with START %s, and is not called",
                 s->name, s->name);
        return set(n, T(TY_ERROR));
    }
    if (s->kind == SYM_ROUTINE) return check_user_call(c, n, s, as_statement);
    ck_error(c, n->loc, "'%s' is not a %s", n->name, as_statement ? "procedure" : "function");
    return set(n, T(TY_ERROR));
}

