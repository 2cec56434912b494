/* test_check.c — what the checker (src/check.c) writes into the tree for the code generator: slots, frame sizes,
 * widening nodes, folded constants and CASE labels, components, dimensions, built-in ids; and how many errors it
 * reports for a cascade (one per real mistake). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "syntax.h"
#include "units.h"
#include "utest.h"

typedef struct Fixture {
    Arena arena;
    Diag diag;
    Node *prog;
    int errors; /* check_program's result, or -1 when the source did not parse */
} Fixture;

/* Parse and check `src`; messages go to /dev/null (the .irl tests look at their text). */
static void load(Fixture *f, const char *src) {
    arena_init(&f->arena);
    diag_init(&f->diag, fopen(getenv("TEST_CHECK_VERBOSE") ? "/dev/stderr" : "/dev/null", "w"));
    diag_add_source(&f->diag, "t.irl", src, strlen(src));
    int nerr = 0;
    f->prog = syntax_parse(&f->arena, &f->diag, "t.irl", src, strlen(src), &nerr);
    f->errors = f->prog && nerr == 0 ? check_program(&f->arena, &f->diag, f->prog) : -1;
}

static void unload(Fixture *f) {
    fclose(f->diag.out);
    diag_free(&f->diag);
    arena_free(&f->arena);
}

/* The routine or global declaration named `name` at program level. */
static Node *decl(Fixture *f, const char *name) {
    for (int i = 0; i < f->prog->list.count; i++) {
        Node *d = f->prog->list.items[i];
        if (d->name && strcmp(d->name, name) == 0) return d;
        for (int j = 0; d->kind == D_VAR && j < d->list.count; j++)
            if (strcmp(d->list.items[j]->name, name) == 0) return d->list.items[j];
    }
    return NULL;
}

UTEST(slots) {
    Fixture f;
    load(&f, "PROGRAM t;\n"
             "  TYPE Pair = RECORD a : INT; p : POSE; ENDRECORD;\n"
             "  VAR i : INT; f : POSE; j : JOINT; pr : Pair; arr : ARRAY [3] OF POSITION; last : BOOL;\n"
             "  PROCEDURE q(a : POSE; VAR b : Pair; c : INT);\n"
             "    VAR l1 : POSITION; l2 : INT;\n"
             "  BEGIN\n"
             "  ENDPROCEDURE;\n"
             "BEGIN\n"
             "ENDPROGRAM\n");
    CHECK(f.errors == 0);
    if (f.errors == 0) {
        CHECK(decl(&f, "i")->sym->slot == 0 && decl(&f, "i")->sym->kind == SYM_GLOBAL);
        CHECK(decl(&f, "f")->sym->slot == 1);
        CHECK(decl(&f, "j")->sym->slot == 8);
        CHECK(decl(&f, "pr")->sym->slot == 8 + 1 + IRL_JOINT_MAX);
        CHECK(decl(&f, "arr")->sym->slot == 8 + 1 + IRL_JOINT_MAX + 8);
        CHECK(decl(&f, "last")->sym->slot == 8 + 1 + IRL_JOINT_MAX + 8 + 9);
        CHECK(f.prog->nslots == 8 + 1 + IRL_JOINT_MAX + 8 + 9 + 1);
        Node *q = decl(&f, "q");
        CHECK(q->kind == N_ROUTINE);
        CHECK(q->list.items[0]->sym->kind == SYM_PARAM && q->list.items[0]->sym->slot == 0);
        CHECK(q->list.items[1]->sym->kind == SYM_VARPARAM && q->list.items[1]->sym->slot == 7);
        CHECK(q->list.items[2]->sym->slot == 8);
        CHECK(q->list2.items[0]->list.items[0]->sym->kind == SYM_LOCAL);
        CHECK(q->list2.items[0]->list.items[0]->sym->slot == 9);
        CHECK(q->list2.items[1]->list.items[0]->sym->slot == 12);
        CHECK(q->nslots == 13);
        Type *pair = decl(&f, "pr")->sym->type;
        CHECK(pair->kind == TY_RECORD && pair->nslots == 8 && pair->fields[1].offset == 1);
        CHECK(check_type_slots(decl(&f, "arr")->sym->type) == 9);
    }
    unload(&f);
}

UTEST(annotations) {
    Fixture f;
    load(&f, "PROGRAM t;\n"
             "  CONST n = 2 * 3 + 1; half = n / 2; far = 1 m + 2 mm;\n"
             "  VAR i : INT; x : REAL; p : POSE; v : REAL [m/s]; l : REAL [m];\n"
             "BEGIN\n"
             "  x := i;\n"                        /* 0: widened */
             "  l := p.Y;\n"                      /* 1: no widening, component 1, a length */
             "  CASE i OF (2 * 3): x := 1; ENDCASE;\n" /* 2: folded label */
             "  v := far / 2 s;\n"                /* 3 */
             "  x := SQRT(x);\n"                  /* 4 */
             "  i := MAX(1, 2);\n"                /* 5: INT stays INT */
             "ENDPROGRAM\n");
    CHECK(f.errors == 0);
    if (f.errors == 0) {
        NodeList *b = &f.prog->body;
        Symbol *n = decl(&f, "n")->sym, *half = decl(&f, "half")->sym, *far = decl(&f, "far")->sym;
        CHECK(n->kind == SYM_CONST && n->cval.kind == TY_INT && n->cval.u.i == 7);
        CHECK(half->cval.kind == TY_REAL && half->cval.u.r == 3.5);
        CHECK(far->cval.kind == TY_REAL && fabs(far->cval.u.r - 1.002) < 1e-15);
        CHECK(far->type->kind == TY_REAL && dim_eq(far->type->dim, dim_length()));
        Node *a0 = b->items[0];
        CHECK(a0->b->kind == E_WIDEN && a0->b->type->kind == TY_REAL && a0->b->a->kind == E_NAME);
        CHECK(a0->a->sym == decl(&f, "x")->sym);
        Node *a1 = b->items[1];
        CHECK(a1->b->kind == E_FIELD && a1->b->component == 1 && dim_eq(a1->b->type->dim, dim_length()));
        Node *label = b->items[2]->list.items[0]->list.items[0];
        CHECK(label->kind == E_INT && label->lit.i == 6 && label->type->kind == TY_INT);
        Node *a3 = b->items[3];
        CHECK(a3->b->type->kind == TY_REAL && dim_eq(a3->b->type->dim, dim_speed()));
        CHECK(a3->b->a->kind == E_NAME && a3->b->a->sym == far);
        Node *a4 = b->items[4];
        CHECK(a4->b->kind == E_CALL && a4->b->builtin == BI_SQRT);
        Node *a5 = b->items[5];
        CHECK(a5->b->builtin == BI_MAX && a5->b->type->kind == TY_INT);
        CHECK(a5->b->list.items[0]->kind == E_INT);
    }
    unload(&f);
}

UTEST(calls) {
    Fixture f;
    load(&f, "PROGRAM t;\n"
             "  VAR k : INT; x : REAL;\n"
             "  FUNCTION sq(a : REAL) : REAL; BEGIN RETURN a * a; ENDFUNCTION;\n"
             "  PROCEDURE bump(VAR c : INT; by : INT); BEGIN c := c + by; ENDPROCEDURE;\n"
             "BEGIN\n"
             "  x := sq(3);\n"
             "  bump(k, 7);\n"
             "ENDPROGRAM\n");
    CHECK(f.errors == 0);
    if (f.errors == 0) {
        Node *call = f.prog->body.items[0]->b;
        CHECK(call->kind == E_CALL && call->builtin == BI_NONE && call->sym == decl(&f, "sq")->sym);
        CHECK(call->sym->kind == SYM_ROUTINE && call->sym->decl == decl(&f, "sq"));
        CHECK(call->list.items[0]->kind == E_WIDEN);
        Node *pc = f.prog->body.items[1];
        CHECK(pc->kind == S_CALL && pc->a->sym == decl(&f, "bump")->sym && pc->a->type->kind == TY_VOID);
        CHECK(pc->a->list.items[0]->kind == E_NAME); /* VAR argument: the variable itself */
    }
    unload(&f);
}

/* Error counts: each real mistake once, nothing for what depends on it. */
static int errors_of(const char *body) {
    char src[2048];
    snprintf(src, sizeof src,
             "PROGRAM t;\n  VAR x : REAL; d : REAL [m]; i : INT; p : POSE;\nBEGIN\n%s\nENDPROGRAM\n", body);
    Fixture f;
    load(&f, src);
    int e = f.errors;
    unload(&f);
    return e;
}

UTEST(one_message_per_mistake) {
    CHECK(errors_of("  x := 1;") == 0);
    CHECK(errors_of("  x := SQRT(SIN((1 m + 2 s) * 3) + d) / 2;") == 1);
    CHECK(errors_of("  d := nothing.X + (d * 2 s) - p.Z;") == 1);
    CHECK(errors_of("  IF undefined THEN x := undefined + 1; ENDIF;") == 2);
    CHECK(errors_of("  p := POS(1 s, 0, 0) @ p;") == 1);
    CHECK(errors_of("  i := ROUND(d) + 1.5;") == 1);
    CHECK(errors_of("  bogus(1 m + 1 s);") == 2);
    CHECK(errors_of("  x := d; x := d;") == 2);
}

int main(void) {
    RUN(slots);
    RUN(annotations);
    RUN(calls);
    RUN(one_message_per_mistake);
    return utest_done();
}
