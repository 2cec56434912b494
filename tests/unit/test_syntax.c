/* test_syntax.c — the scanner and parser (grammar/, through syntax_parse): operator precedence, number
 * literals with units, keywords and contextual words, statement and declaration shapes, error counts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syntax.h"
#include "utest.h"

/* Append an S-expression for an expression tree. */
static void sexp(char *out, size_t cap, const Node *n)
{
    char buf[128];
    size_t len = strlen(out);
    if (!n) {
        snprintf(out + len, cap - len, "null");
        return;
    }
    switch (n->kind) {
    case E_INT: snprintf(buf, sizeof buf, "%lld", (long long)n->lit.i); break;
    case E_REAL:
        if (n->flags & NF_HAS_UNIT)
            snprintf(buf, sizeof buf, "%.17g[%s]", n->lit.r, n->name);
        else
            snprintf(buf, sizeof buf, "%.17g", n->lit.r);
        break;
    case E_BOOL: snprintf(buf, sizeof buf, "%s", n->lit.b ? "TRUE" : "FALSE"); break;
    case E_STRING: snprintf(buf, sizeof buf, "\"%s\"", n->lit.s); break;
    case E_NAME: snprintf(buf, sizeof buf, "%s", n->name); break;
    case E_SYSVAR: snprintf(buf, sizeof buf, "$%s", n->name); break;
    case E_FIELD:
    case E_INDEX:
    case E_UNARY:
    case E_BINARY:
    case E_CALL: {
        static const char *const ops[] = {"<>", "<=", ">=", "AND", "OR", "NOT", "DIV", "MOD"};
        if (n->kind == E_FIELD)
            snprintf(buf, sizeof buf, "(. ");
        else if (n->kind == E_INDEX)
            snprintf(buf, sizeof buf, "([] ");
        else if (n->kind == E_CALL)
            snprintf(buf, sizeof buf, "(%s", n->name);
        else if (n->op < 256)
            snprintf(buf, sizeof buf, "(%c ", n->op);
        else
            snprintf(buf, sizeof buf, "(%s ", ops[n->op - OP_NE]);
        snprintf(out + len, cap - len, "%s", buf);
        if (n->kind == E_CALL) {
            for (int i = 0; i < n->list.count; i++) {
                strncat(out, " ", cap - strlen(out) - 1);
                sexp(out, cap, n->list.items[i]);
            }
        } else {
            sexp(out, cap, n->a);
            if (n->kind == E_FIELD) {
                strncat(out, " ", cap - strlen(out) - 1);
                strncat(out, n->name, cap - strlen(out) - 1);
            } else if (n->b) {
                strncat(out, " ", cap - strlen(out) - 1);
                sexp(out, cap, n->b);
            }
        }
        strncat(out, ")", cap - strlen(out) - 1);
        return;
    }
    default: snprintf(buf, sizeof buf, "<%s>", ast_kind_name(n->kind)); break;
    }
    snprintf(out + len, cap - len, "%s", buf);
}

/* Parse a whole text; errors go to a memory stream (returned in *msgs when msgs is not NULL). */
static Node *parse(Arena *a, const char *text, int *nerr, char **msgs)
{
    char *buf = NULL;
    size_t len;
    FILE *out = open_memstream(&buf, &len);
    Diag diag;
    diag_init(&diag, out);
    diag_add_source(&diag, "t.irl", text, strlen(text));
    Node *root = syntax_parse(a, &diag, "t.irl", text, strlen(text), nerr);
    diag_free(&diag);
    fclose(out);
    if (msgs)
        *msgs = buf;
    else
        free(buf);
    return root;
}

/* The S-expression of the right-hand side of `x := <expr>;` in a minimal program. */
static const char *expr_of(const char *expr)
{
    static char out[1024];
    char text[512];
    snprintf(text, sizeof text, "PROGRAM t; BEGIN x := %s; ENDPROGRAM", expr);
    Arena a;
    arena_init(&a);
    int nerr;
    Node *root = parse(&a, text, &nerr, NULL);
    out[0] = '\0';
    if (!root || nerr || root->body.count != 1 || root->body.items[0]->kind != S_ASSIGN)
        snprintf(out, sizeof out, "<error>");
    else
        sexp(out, sizeof out, root->body.items[0]->b);
    arena_free(&a);
    return out;
}

#define CHECK_EXPR(src, want)                                                                       \
    do {                                                                                            \
        const char *got_ = expr_of(src);                                                            \
        if (strcmp(got_, want) != 0) {                                                              \
            CHECK(!"expression shape");                                                             \
            printf("#   %s\n#     want %s\n#     got  %s\n", src, want, got_);                      \
        }                                                                                           \
    } while (0)

UTEST(precedence)
{
    CHECK_EXPR("1 + 2 * 3", "(+ 1 (* 2 3))");
    CHECK_EXPR("1 - 2 - 3", "(- (- 1 2) 3)");
    CHECK_EXPR("a OR b AND c", "(OR a (AND b c))");
    CHECK_EXPR("NOT a = b", "(= (NOT a) b)");
    CHECK_EXPR("-a * b", "(* (- a) b)");
    CHECK_EXPR("a @ b @ c", "(@ (@ a b) c)");
    CHECK_EXPR("p + a @ q", "(+ p (@ a q))");
    CHECK_EXPR("a @ b * 2", "(* (@ a b) 2)");
    CHECK_EXPR("i DIV 2 MOD 3", "(MOD (DIV i 2) 3)");
    CHECK_EXPR("(a < b) AND (c >= d)", "(AND (< a b) (>= c d))");
    CHECK_EXPR("a <> b", "(<> a b)");
    CHECK_EXPR("+a", "a");
    CHECK_EXPR("POS(1, 2, 3).Z", "(. (POS 1 2 3) Z)");
    CHECK_EXPR("poses[i + 1].ORI.Q1", "(. (. ([] poses (+ i 1)) ORI) Q1)");
    CHECK_EXPR("f()", "(f)");
    CHECK_EXPR("$SPEED * 2", "(* $SPEED 2)");
}

UTEST(units_on_literals)
{
    CHECK_EXPR("10 mm", "0.01[mm]");
    CHECK_EXPR("10mm", "0.01[mm]");
    CHECK_EXPR("90 deg", "1.5707963267948966[deg]");
    CHECK_EXPR("d / 2 s", "(/ d 2[s])");
    CHECK_EXPR("2 m/s^2", "2[m/s^2]");
    CHECK_EXPR("6 G/s", "58.859999999999999[G/s]"); /* 6 * 9.81 in doubles */
    CHECK_EXPR("50 %", "0.5[%]");
    CHECK_EXPR("30 rpm", "3.1415926535897931[rpm]");
    CHECK_EXPR("1.5e3 ms", "1.5[ms]");
    CHECK_EXPR("7 MOD 3", "(MOD 7 3)");      /* not "7 m" followed by "OD" */
    CHECK_EXPR("7 mod 3", "(MOD 7 3)");
    CHECK_EXPR("2 * m", "(* 2 m)");
    CHECK_EXPR("1e5", "100000");
    CHECK_EXPR("3", "3");
    CHECK_EXPR("2.5", "2.5");
    CHECK_EXPR("1 deg/s", "0.017453292519943295[deg/s]");
}

UTEST(units_not_taken)
{
    /* "2 s x": a unit followed by a blank and a name is a unit; "2 sx" is no unit (then a syntax error). */
    CHECK(strcmp(expr_of("2 sx"), "<error>") == 0);
    CHECK_EXPR("2 m/sx", "(/ 2[m] sx)"); /* "m/s" is followed by a name character: the unit is "m" */
    CHECK_EXPR("2 m/ sx", "(/ 2[m] sx)");
    CHECK_EXPR("2 m /sx", "(/ 2[m] sx)");
}

UTEST(keywords_and_names)
{
    Arena a;
    arena_init(&a);
    int nerr;
    Node *root = parse(&a, "program P; var By, timeout : int; begin for by := 1 to 3 by 2 do wait for timeout "
                           "timeout 2 s; endfor; Print BY; endprogram", &nerr, NULL);
    CHECK(root && nerr == 0);
    if (root) {
        CHECK(root->list.count == 1 && root->list.items[0]->list.count == 2);
        Node *f = root->body.items[0];
        CHECK(f->kind == S_FOR && f->d && f->d->kind == E_INT && f->d->lit.i == 2);
        Node *w = f->list.items[0];
        CHECK(w->kind == S_WAIT_FOR && w->a->kind == E_NAME && w->b && w->b->kind == E_REAL);
    }
    arena_free(&a);
}

UTEST(statement_shapes)
{
    Arena a;
    arena_init(&a);
    int nerr;
    Node *root = parse(&a,
                       "PROGRAM t;\n"
                       "  DEVICE hc : CENTRIFUGE \"lola.irm\";  IO grip : dout 3;\n"
                       "BEGIN\n"
                       "  MOVE PTP home;  MOVE arm LIN p WITH SPEED := 0.2 m/s, APPROX := 5 mm;\n"
                       "  MOVE_INC arm CIRC v, p;\n"
                       "  GMOVE hc TO 9 G WITH ONSET := 6 G/s, HOLD := 15 s;  GMOVE HOLD 10 s;\n"
                       "  GMOVE PROFILE tbl WITH INTERP := CSPLINE;  PULSE grip FOR 0.5 s;  WAIT 1 s;\n"
                       "  CASE k OF 1, -2: p; (n): SKIP; \"s\": EXIT; ELSE RETURN; ENDCASE;\n"
                       "  IF a THEN ELSIF b THEN HALT; ELSIF c THEN ELSE RETRY; ENDIF;\n"
                       "  REPEAT SKIP; UNTIL TRUE;  LOOP RAISE; RAISE 3; ENDLOOP;  p();  $TOOL.X := 1;\n"
                       "ON ERROR PRINT; ENDERROR;\n"
                       "ENDPROGRAM;",
                       &nerr, NULL);
    CHECK(root && nerr == 0);
    if (!root) {
        arena_free(&a);
        return;
    }
    Node *dev = root->list.items[0], *io = root->list.items[1];
    CHECK(dev->kind == D_DEVICE && strcmp(dev->lit.s, "CENTRIFUGE") == 0 && strcmp(dev->a->lit.s, "lola.irm") == 0);
    CHECK(io->kind == D_IO && io->flags == IO_DOUT && io->a->lit.i == 3);
    NodeList *b = &root->body;
    CHECK(b->count == 14);
    CHECK(b->items[0]->kind == S_MOVE && b->items[0]->flags == MOVE_PTP && !b->items[0]->a);
    CHECK(b->items[1]->kind == S_MOVE && b->items[1]->flags == MOVE_LIN && strcmp(b->items[1]->a->name, "arm") == 0 &&
          b->items[1]->list.count == 2 && strcmp(b->items[1]->list.items[1]->name, "APPROX") == 0);
    CHECK(b->items[2]->flags == (MOVE_CIRC | NF_INC) && strcmp(b->items[2]->c->name, "v") == 0 &&
          strcmp(b->items[2]->b->name, "p") == 0);
    CHECK(b->items[3]->kind == S_GMOVE && b->items[3]->flags == GMOVE_TO && b->items[3]->list.count == 2 &&
          strcmp(b->items[3]->list.items[1]->name, "HOLD") == 0);
    CHECK(b->items[4]->flags == GMOVE_HOLD && !b->items[4]->a);
    CHECK(b->items[5]->flags == GMOVE_PROFILE && b->items[5]->list.items[0]->a->kind == E_NAME);
    CHECK(b->items[6]->kind == S_PULSE && b->items[7]->kind == S_WAIT);
    Node *cs = b->items[8];
    CHECK(cs->kind == S_CASE && cs->list.count == 3 && cs->list.items[0]->list.count == 2 && cs->list2.count == 1);
    Node *iff = b->items[9];
    CHECK(iff->kind == S_IF && iff->list.count == 3 && iff->list2.count == 1 && iff->list.items[1]->list.count == 1);
    CHECK(b->items[10]->kind == S_REPEAT && b->items[11]->kind == S_LOOP && b->items[11]->list.count == 2);
    CHECK(b->items[12]->kind == S_CALL && b->items[13]->kind == S_ASSIGN && b->items[13]->a->kind == E_FIELD);
    CHECK((root->flags & NF_HANDLER) && root->handler.count == 1);
    arena_free(&a);
}

UTEST(declaration_shapes)
{
    Arena a;
    arena_init(&a);
    int nerr;
    Node *root = parse(&a,
                       "LIBRARY l;\n"
                       "  CONST n = 5; m = n * 2;\n"
                       "  TYPE R = RECORD a, b : INT; c : REAL [m/s^2]; ENDRECORD; A = ARRAY [n] OF R;\n"
                       "  VAR x := 1; y, z : REAL [kg*m^2] := 0; w : REAL [%];\n"
                       "  FUNCTION f(a, b : REAL; VAR c : INT) : REAL; VAR t : INT; BEGIN RETURN a; ENDFUNCTION;\n"
                       "  PROCEDURE p; BEGIN ON ERROR SKIP; ENDERROR ENDPROCEDURE;\n"
                       "ENDLIBRARY",
                       &nerr, NULL);
    CHECK(root && nerr == 0 && (root->flags & SYN_LIBRARY));
    if (!root) {
        arena_free(&a);
        return;
    }
    NodeList *d = &root->list;
    CHECK(d->count == 9);
    CHECK(d->items[0]->kind == D_CONST && d->items[1]->kind == D_CONST);
    Node *rec = d->items[2]->a;
    CHECK(rec->kind == N_TYPEREF && rec->flags == TY_RECORD && rec->list.count == 2);
    Node *unit = rec->list.items[1]->a->list.items[0];
    CHECK(unit->kind == E_REAL && (unit->flags & NF_HAS_UNIT) && unit->dim.e[DIM_LENGTH] == 1 &&
          unit->dim.e[DIM_TIME] == -2 && strcmp(unit->name, "m/s^2") == 0);
    CHECK(d->items[3]->a->flags == TY_ARRAY && d->items[3]->a->b->kind == N_TYPEREF);
    CHECK(d->items[4]->kind == D_VAR && !d->items[4]->a && d->items[4]->b);
    Node *inertia = d->items[5]->a->list.items[0];
    CHECK(inertia->dim.e[DIM_LENGTH] == 2 && inertia->dim.e[DIM_MASS] == 1 && strcmp(inertia->name, "kg*m^2") == 0);
    CHECK(d->items[5]->list.count == 2 && d->items[5]->b);
    CHECK_NEAR(d->items[6]->a->list.items[0]->lit.r, 0.01, 1e-15);
    Node *f = d->items[7];
    CHECK(f->kind == N_ROUTINE && (f->flags & NF_FUNCTION) && f->list.count == 3 && f->list2.count == 1 && f->b);
    CHECK((f->list.items[2]->flags & NF_VARPARAM) && !(f->list.items[0]->flags & NF_VARPARAM));
    Node *p = d->items[8];
    CHECK(p->kind == N_ROUTINE && !(p->flags & NF_FUNCTION) && (p->flags & NF_HANDLER) && p->handler.count == 1);
    arena_free(&a);
}

/* Each text gives exactly `count` errors. */
static void expect_errors(const char *text, int count)
{
    Arena a;
    arena_init(&a);
    int nerr;
    char *msgs = NULL;
    Node *root = parse(&a, text, &nerr, &msgs);
    if (nerr != count || (count > 0) != (root == NULL)) {
        CHECK(!"error count");
        printf("#   %s\n#   want %d errors, got %d:\n%s", text, count, nerr, msgs ? msgs : "");
    }
    free(msgs);
    arena_free(&a);
}

UTEST(error_counts)
{
    expect_errors("PROGRAM t; BEGIN ENDPROGRAM", 0);
    expect_errors("PROGRAM t; BEGIN x := ; y := ; z := 1 2; ENDPROGRAM", 3);
    expect_errors("PROGRAM t; VAR a : ; b : INT; c INT; BEGIN ENDPROGRAM", 2);
    expect_errors("PROGRAM t; BEGIN x := 1 ### 2 ### 3; ENDPROGRAM", 2);
    expect_errors("PROGRAM t; BEGIN x := \"abc; ENDPROGRAM", 1);
    expect_errors("PROGRAM t; BEGIN { x := 1; ENDPROGRAM", 1);
    expect_errors("", 1);
    expect_errors("\xff\xfe\x00garbage", 1);
    expect_errors("MACHINE m : chain; a = 1; JOINT j : REVOLUTE; b = 2; ENDJOINT; ENDMACHINE", 0);
}

int main(void)
{
    RUN(precedence);
    RUN(units_on_literals);
    RUN(units_not_taken);
    RUN(keywords_and_names);
    RUN(statement_shapes);
    RUN(declaration_shapes);
    RUN(error_counts);
    return utest_done();
}
