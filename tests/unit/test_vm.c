/* test_vm.c — the VM and PRINT formatting on hand-built chunks: the shortest REAL form round-trips, data-dependent
 * accesses (addresses, string ids) are checked rather than trusted, errors unwind to handlers, recursion is
 * bounded. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "errcodes.h"
#include "vm/print.h"
#include "utest.h"
#include "vm/vm.h"

/* xorshift64*: deterministic doubles from random bit patterns */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

/* Every finite double prints in a form strtod reads back exactly, and no %g with fewer digits would. */
UTEST(real_shortest_roundtrip)
{
    char buf[64], shorter[64];
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = rng();
        double x;
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x)) continue;
        print_real_str(x, buf, sizeof buf);
        if (strtod(buf, NULL) != x) {
            CHECK(strtod(buf, NULL) == x);
            printf("#   %s\n", buf);
            return;
        }
        /* count significant digits printed */
        int digits = 0, leading = 1;
        for (const char *p = buf; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9') {
                if (*p != '0') leading = 0;
                if (!leading) digits++;
            }
        if (digits > 1) {
            snprintf(shorter, sizeof shorter, "%.*e", digits - 2, x);
            CHECK(strtod(shorter, NULL) != x || strchr(buf, 'e') == NULL);
        }
    }
}

UTEST(real_forms)
{
    char b[64];
    CHECK(strcmp(print_real_str(0.1, b, sizeof b), "0.1") == 0);
    CHECK(strcmp(print_real_str(1e-7, b, sizeof b), "1e-07") == 0);
    CHECK(strcmp(print_real_str(3.141592653589793, b, sizeof b), "3.141592653589793") == 0);
    CHECK(strcmp(print_real_str(2.0, b, sizeof b), "2") == 0);
    CHECK(strcmp(print_real_str(10.0, b, sizeof b), "10") == 0);
    CHECK(strcmp(print_real_str(1e21, b, sizeof b), "1e+21") == 0);
    CHECK(strcmp(print_real_str(123456789012.0, b, sizeof b), "123456789012") == 0);
    CHECK(strcmp(print_real_str(-0.0, b, sizeof b), "-0") == 0);
}

/* A one-routine chunk: code, frame size, optional handler pc. */
static void make_main(Chunk *c, const Instr *code, int n, int frame, int handler)
{
    chunk_init(c);
    int file = chunk_add_string(c, "t.irl", 5);
    chunk_add_file(c, file);
    for (int i = 0; i < n; i++) chunk_emit(c, code[i], (ChunkLine){i + 1, 1, 0});
    chunk_add_routine(c, (ChunkRoutine){.name = chunk_add_string(c, "t", 1), .entry = 0, .end = n,
                                        .frame_size = frame, .handler = handler});
}

/* Runs c with output to memory; returns the VM status; out and err get the streams' text (caller frees). */
static int run(const Chunk *c, char **out, char **err)
{
    size_t no, ne;
    FILE *fo = open_memstream(out, &no), *fe = open_memstream(err, &ne);
    Vm vm;
    int rc = vm_init(&vm, c, fo, fe);
    if (rc == VM_OK) rc = vm_run(&vm);
    vm_free(&vm);
    fclose(fo);
    fclose(fe);
    return rc;
}

#define I(op, a, b, c) instr_abc(OP_##op, a, b, c)
#define IX(op, a, bx) instr_abx(OP_##op, a, (uint32_t)(bx))

/* A forged address (an INT used as a reference) is refused with ERR_INDEX, not dereferenced. */
UTEST(forged_address_is_checked)
{
    Instr code[] = {IX(LOADKI, 0, 0), I(LOADR, 1, 0, 1), I(RET, 0, 0, 0)};
    Chunk c;
    make_main(&c, code, 3, 2, -1);
    chunk_add_int(&c, INT64_C(1) << 40);
    char *out, *err;
    CHECK(run(&c, &out, &err) == VM_ERROR);
    CHECK(strstr(err, "t.irl:2:1: runtime error: invalid reference (ERR_INDEX)") != NULL);
    free(out), free(err);
    chunk_free(&c);
}

/* A forged STRING id is refused too. */
UTEST(forged_string_is_checked)
{
    Instr code[] = {IX(LOADI, 0, 12345), I(PRINTS, 0, 0, 0), I(RET, 0, 0, 0)};
    Chunk c;
    make_main(&c, code, 3, 1, -1);
    char *out, *err;
    CHECK(run(&c, &out, &err) == VM_ERROR);
    CHECK(strstr(err, "invalid STRING value (ERR_INDEX)") != NULL);
    free(out), free(err);
    chunk_free(&c);
}

/* INT overflow raises ERR_MATH; the handler takes it, ERRNO reads it, SKIP resumes after the statement. */
UTEST(overflow_handled_and_skipped)
{
    Instr code[] = {
        IX(LOADKI, 0, 0),     /* 0: R0 := INT64_MAX              (statement 0..2) */
        I(ADDII, 0, 0, 1),    /* 1: overflow */
        I(PRINTI, 0, 0, 0),   /* 2 */
        I(PRINTNL, 0, 0, 0),  /* 3: statement 3..4 */
        I(RET, 0, 0, 0),      /* 4 */
        I(ERRNO, 1, 0, 0),    /* 5: handler */
        I(PRINTI, 1, 0, 0),   /* 6 */
        I(SKIP, 0, 0, 0),     /* 7 */
    };
    Chunk c;
    make_main(&c, code, 8, 2, 5);
    chunk_add_int(&c, INT64_MAX);
    chunk_add_stmt(&c, 0, 3);
    chunk_add_stmt(&c, 3, 4);
    char *out, *err;
    CHECK(run(&c, &out, &err) == VM_OK);
    CHECK(strcmp(out, "5\n") == 0); /* ERR_MATH, then the newline of the statement after */
    CHECK(strcmp(err, "") == 0);
    free(out), free(err);
    chunk_free(&c);
}

/* Unbounded recursion ends with ERR_STACK. */
UTEST(recursion_is_bounded)
{
    Instr code[] = {I(CALL, 1, 1, 0), I(RET, 0, 0, 0), I(CALL, 1, 1, 0), I(RET, 0, 0, 0)};
    Chunk c;
    make_main(&c, code, 2, 2, -1);
    c.routines[0].end = 2;
    c.code[0] = I(CALL, 1, 1, 0);
    chunk_emit(&c, I(CALL, 1, 1, 0), (ChunkLine){7, 3, 0});
    chunk_emit(&c, I(RET, 0, 0, 0), (ChunkLine){8, 3, 0});
    chunk_add_routine(&c, (ChunkRoutine){.name = chunk_add_string(&c, "f", 1), .entry = 2, .end = 4,
                                         .frame_size = 2, .handler = -1});
    char *out, *err;
    CHECK(run(&c, &out, &err) == VM_ERROR);
    CHECK(strstr(err, "t.irl:7:3: runtime error: call depth limit reached (runaway recursion) calling f (ERR_STACK)") != NULL);
    free(out), free(err);
    chunk_free(&c);
}

int main(void)
{
    RUN(real_shortest_roundtrip);
    RUN(real_forms);
    RUN(forged_address_is_checked);
    RUN(forged_string_is_checked);
    RUN(overflow_handled_and_skipped);
    RUN(recursion_is_bounded);
    return utest_done();
}
