/* test_bytecode.c — the .irlc writer, reader and verifier: a hand-built valid chunk round-trips byte for byte; each
 * verifier rule rejects a chunk broken in just that way, with its message; damaged files are rejected, never read
 * out of bounds. Also two helper modes for tests/sh/bytecode_corrupt.sh:
 *   test_bytecode mutate FILE SEED COUNT OUTDIR   mutate FILE COUNT times in memory, re-stamp the checksum, load;
 *                                                 accepted mutants (at most 25) are written to OUTDIR for `irl run`
 *   test_bytecode flips FILE SEED COUNT OUTDIR    write COUNT copies with bytes flipped or cut (checksum as is)
 *   test_bytecode regions FILE SEED PER OUTDIR    write PER copies flipped inside each region of the file (header,
 *                                                 checksum, constants, code, line table) and PER cut short */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ast.h"
#include "bytecode.h"
#include "chunk.h"
#include "disasm.h"
#include "utest.h"
#include "verify.h"

static const ChunkLine L1 = {1, 1, 0};

/* A small valid program: main sets G0 := 42, prints "<" if it is below 5, calls f(0.5) and prints the result;
 * f(x) returns x * 0.5. */
static void make_valid(Chunk *c)
{
    chunk_init(c);
    int s_main = chunk_add_string(c, "main", 4), s_f = chunk_add_string(c, "f", 1);
    int s_file = chunk_add_string(c, "t.irl", 5), s_lt = chunk_add_string(c, "<", 1);
    chunk_add_file(c, s_file);
    chunk_add_int(c, 42);
    chunk_add_real(c, 0.5);
    chunk_add_param_kind(c, PARAM_VALUE);
    c->nglobals = 1;
    chunk_emit(c, instr_abx(OP_LOADKI, 1, 0), L1);            /* 0 */
    chunk_emit(c, instr_abx(OP_SETG, 1, 0), L1);              /* 1 */
    chunk_emit(c, instr_abx(OP_LOADKR, 2, 0), L1);            /* 2 */
    chunk_emit(c, instr_abc(OP_TLTII, 1, 5, 0), L1);          /* 3: if !(R1 < 5) jump over the PRINTK */
    chunk_emit(c, instr_abx(OP_JMP, 0, 1), L1);               /* 4: -> 6 */
    chunk_emit(c, instr_abx(OP_PRINTK, 0, (uint32_t)s_lt), L1); /* 5 */
    chunk_emit(c, instr_abc(OP_CALL, 2, 1, 0), L1);           /* 6 */
    chunk_emit(c, instr_abc(OP_PRINTR, 2, 0, 0), L1);         /* 7 */
    chunk_emit(c, instr_abc(OP_PRINTNL, 0, 0, 0), L1);        /* 8 */
    chunk_emit(c, instr_abc(OP_RET, 0, 0, 0), L1);            /* 9 */
    chunk_emit(c, instr_abc(OP_MULRK, 1, 0, 0), L1);          /* 10 */
    chunk_emit(c, instr_abc(OP_RET, 1, 1, 0), L1);            /* 11 */
    chunk_add_routine(c, (ChunkRoutine){.name = s_main, .entry = 0, .end = 10, .frame_size = 4, .handler = -1,
                                        .line = 1});
    chunk_add_routine(c, (ChunkRoutine){.name = s_f, .entry = 10, .end = 12, .nparams = 1, .kinds = 0,
                                        .param_slots = 1, .frame_size = 2, .result_slots = 1, .handler = -1,
                                        .line = 2});
    chunk_add_stmt(c, 0, 2);
    chunk_add_stmt(c, 6, 9);
    chunk_add_device(c, (ChunkDevice){s_main, s_f, s_file});
    chunk_add_io(c, (ChunkIo){s_lt, IO_DOUT, 3});
}

static char msg[512];

/* Does c fail verification with a message containing want? (Prints the message when not.) */
static int rejects(const Chunk *c, const char *want)
{
    msg[0] = '\0';
    int rc = verify_chunk(c, msg, sizeof msg);
    int ok = rc < 0 && strstr(msg, want) && !strchr(msg, '\n');
    if (!ok) printf("#   verify: rc %d, message \"%s\", wanted \"%s\"\n", rc, msg, want);
    return ok;
}

UTEST(valid_chunk_verifies)
{
    Chunk c;
    make_valid(&c);
    int rc = verify_chunk(&c, msg, sizeof msg);
    if (rc) printf("#   %s\n", msg);
    CHECK(rc == 0);
    chunk_free(&c);
}

/* The forms the code generator emits beside the valid chunk's: a FORLOOP jumping back by sC, a part of a
 * system variable, a whole one. */
UTEST(verifier_accepts_forloop_and_sysvar_parts)
{
    const Instr forms[] = {instr_abc(OP_FORLOOP, 1, 2, (uint16_t)-2), instr_abc(OP_GETSYS, 0, SVO_TOOL + 3, 4),
                           instr_abc(OP_SETSYS, 1, SVO_BASE + 6, 1), instr_abc(OP_GETSYS, 3, SVO_TIME, 1)};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        Chunk c;
        make_valid(&c);
        c.code[7] = forms[i];
        int rc = verify_chunk(&c, msg, sizeof msg);
        if (rc) printf("#   form %zu: %s\n", i, msg);
        CHECK(rc == 0);
        chunk_free(&c);
    }
}

/* One verifier rule: build the valid chunk, break it with `stmt`, expect a message containing `want`. */
#define REJECT(want, ...)                                                                                      \
    do {                                                                                                       \
        Chunk c;                                                                                               \
        make_valid(&c);                                                                                        \
        __VA_ARGS__;                                                                                           \
        CHECK(rejects(&c, want));                                                                              \
        chunk_free(&c);                                                                                        \
    } while (0)

UTEST(verifier_operands)
{
    REJECT("unknown opcode", c.code[0] = instr_abc(OP_COUNT, 0, 0, 0));
    REJECT("unknown opcode", c.code[7] = instr_abc(0xffff, 0, 0, 0));
    REJECT("R2 is outside the frame (2 slots)", c.code[10] = instr_abc(OP_MULRK, 2, 0, 0));
    REJECT("register B = R9 is outside", c.code[10] = instr_abc(OP_MULRK, 1, 9, 0));
    REJECT("R0..R6 are outside the frame", c.code[7] = instr_abc(OP_PRINTPOSE, 0, 0, 0));
    REJECT("R1..R4 are outside", c.code[1] = instr_abc(OP_ZERO, 1, 4, 0));
    REJECT("R3..R4 are outside", c.code[1] = instr_abc(OP_MOVN, 0, 3, 2));
    REJECT("INT constant 1 (the pool has 1)", c.code[0] = instr_abx(OP_LOADKI, 1, 1));
    REJECT("REAL constant 1", c.code[10] = instr_abc(OP_MULRK, 1, 0, 1));
    REJECT("REAL constant 7", c.code[2] = instr_abx(OP_LOADKR, 2, 7));
    REJECT("STRING constant 99", c.code[5] = instr_abx(OP_PRINTK, 0, 99));
    REJECT("STRING constant 5", c.code[2] = instr_abx(OP_LOADKS, 2, 5));
    REJECT("global slot 1 (there are 1)", c.code[1] = instr_abx(OP_SETG, 1, 1));
    REJECT("global slot 70000", c.code[1] = instr_abx(OP_GETG, 1, 70000));
    REJECT("unused operand A is 1", c.code[8] = instr_abc(OP_PRINTNL, 1, 0, 0));
    REJECT("unused operand B is 3", c.code[7] = instr_abc(OP_PRINTR, 2, 3, 0));
    REJECT("operand C is 2, must be 0 or 1", c.code[3] = instr_abc(OP_TLTII, 1, 5, 2));
    REJECT("calls routine 5", c.code[6] = instr_abc(OP_CALL, 2, 5, 0));
    REJECT("main program cannot be called", c.code[6] = instr_abc(OP_CALL, 2, 0, 0));
    REJECT("R3..R4 are outside", c.code[6] = instr_abc(OP_CALL, 3, 1, 0) + 0 * (c.routines[1].param_slots = 2));
    REJECT("built-in 99", c.code[7] = instr_abc(OP_BUILTIN, 0, 99, 1));
    REJECT("built-in SIN takes 1 argument slots, not 2", c.code[7] = instr_abc(OP_BUILTIN, 0, VB_SIN, 2));
    REJECT("R1..R4 are outside", c.code[7] = instr_abc(OP_BUILTIN, 1, VB_ORIZYX, 3));
    REJECT("R0..R12 are outside", c.code[7] = instr_abc(OP_BUILTIN, 0, VB_JOINT, 2));
    REJECT("system-variable slot 40 (there are 22)", c.code[7] = instr_abc(OP_GETSYS, 0, 40, 1));
    REJECT("slots 0..1 of $SPEED, which has 1", c.code[7] = instr_abc(OP_GETSYS, 0, SVO_SPEED, 2));
    REJECT("slots 4..7 of $TOOL, which has 7", c.code[7] = instr_abc(OP_GETSYS, 0, SVO_TOOL + 4, 4));
    REJECT("moves no slot of $BASE", c.code[7] = instr_abc(OP_SETSYS, 0, SVO_BASE + 2, 0));
    REJECT("R0..R6 are outside", c.code[7] = instr_abc(OP_GETSYS, 0, SVO_TOOL, 7));
    REJECT("$TIME is read-only", c.code[7] = instr_abc(OP_SETSYS, 0, SVO_TIME, 1));
    REJECT("motion statement kind 200", c.code[7] = instr_abc(OP_MOTION, 0, 200, 0));
    REJECT("R2..R5 are outside", c.code[7] = instr_abc(OP_MOTION, 2, MK_WAIT, 4));
    REJECT("TRIGGER takes 8 operand slots, not 2", c.code[7] = instr_abc(OP_MOTION, 0, MK_TRIGGER, 2));
    REJECT("MOVE SPLINE takes at least 7 operand slots, not 1", c.code[7] = instr_abc(OP_MOTION, 0, MK_MOVE_SPLINE, 1));
    REJECT("R3..R4 are outside the frame", c.code[7] = instr_abc(OP_FORLOOP, 0, 3, 0));
    REJECT("returns 1 slots, the routine's result has 0", c.code[9] = instr_abc(OP_RET, 0, 1, 0));
    REJECT("returns 0 slots, the routine's result has 1", c.code[11] = instr_abc(OP_RET, 1, 0, 0));
}

/* Tasks and interrupts: START names a routine without parameters and result (a task), ENABLE/DISABLE a condition
 * (no parameters, a BOOL result) and ENABLE's C a handler (no parameters, no result). Routine 1 of the valid chunk
 * is f(x): one parameter, one result slot. */
UTEST(verifier_task_and_interrupt_operands)
{
    REJECT("START names routine 1, which is not a task", c.code[7] = instr_abc(OP_START, 0, 1, 0));
    REJECT("DISABLE names routine 1, which is not a condition", c.code[7] = instr_abc(OP_DISABLE, 0, 1, 0));
    REJECT("main program cannot be called", c.code[7] = instr_abc(OP_START, 0, 0, 0));
    REJECT("calls routine 9", c.code[7] = instr_abc(OP_ENABLE, 1, 9, 1));
    REJECT("unused operand A is 2", c.code[7] = instr_abc(OP_START, 2, 1, 0));
    REJECT("ENABLE names handler routine 1", c.code[7] = instr_abc(OP_ENABLE, 3, 1, 1) +
                                                 0 * (c.routines[1].nparams = 0) + 0 * (c.routines[1].param_slots = 0));
    REJECT("START names routine 1", c.code[7] = instr_abc(OP_START, 0, 1, 0) + 0 * (c.routines[1].nparams = 0));
    /* accepted: f made a task (no parameters, no result: its RET returns nothing), or a condition */
    Chunk c;
    make_valid(&c);
    c.routines[1].nparams = 0, c.routines[1].param_slots = 0, c.routines[1].result_slots = 0;
    c.code[11] = instr_abc(OP_RET, 0, 0, 0);
    c.code[7] = instr_abc(OP_START, 0, 1, 0);
    int rc = verify_chunk(&c, msg, sizeof msg);
    if (rc) printf("#   START: %s\n", msg);
    CHECK(rc == 0);
    chunk_free(&c);
    make_valid(&c);
    c.routines[1].nparams = 0, c.routines[1].param_slots = 0;
    c.code[7] = instr_abc(OP_DISABLE, 0, 1, 0);
    rc = verify_chunk(&c, msg, sizeof msg);
    if (rc) printf("#   DISABLE: %s\n", msg);
    CHECK(rc == 0);
    chunk_free(&c);
}

UTEST(verifier_control_flow)
{
    REJECT("jumps to 12, outside its routine", c.code[4] = instr_abx(OP_JMP, 0, 7));
    REJECT("jumps to -1, outside", c.code[4] = instr_abx(OP_JMP, 0, (uint32_t)-6));
    REJECT("jumps to 2147483652, outside", c.code[4] = instr_abx(OP_JMP, 0, 0x7fffffffu));
    REJECT("into the middle of a test-and-jump pair", c.code[4] = instr_abx(OP_JMP, 0, (uint32_t)-1));
    REJECT("must be followed by a JMP", c.code[4] = instr_abc(OP_NOP, 0, 0, 0));
    REJECT("must be followed by a JMP", c.code[8] = instr_abc(OP_TEST, 0, 0, 1));
    REJECT("last instruction must end it", c.code[11] = instr_abc(OP_NOP, 0, 0, 0));
    REJECT("last instruction must end it", c.code[9] = instr_abc(OP_PRINTNL, 0, 0, 0));
    REJECT("only valid inside an ON ERROR handler", c.code[5] = instr_abc(OP_RETRY, 0, 0, 0));
    REJECT("only valid inside an ON ERROR handler", c.code[5] = instr_abc(OP_SKIP, 0, 0, 0));
    REJECT("only valid inside an ON ERROR handler", c.code[5] = instr_abc(OP_RERAISE, 0, 0, 0));
    REJECT("the body runs into the ON ERROR handler", c.routines[0].handler = 8);
    REJECT("when the test skips its jump", c.routines[0].handler = 5);
    REJECT("into the ON ERROR handler", (c.code[8] = instr_abc(OP_HALT, 0, 0, 0), c.routines[0].handler = 6));
    /* FORLOOP at 7 over R1 with limit and step in R2..R3, jumping back by its own sC */
    REJECT("jumps to 18, outside its routine", c.code[7] = instr_abc(OP_FORLOOP, 1, 2, 10));
    REJECT("jumps to -1, outside", c.code[7] = instr_abc(OP_FORLOOP, 1, 2, (uint16_t)-9));
    REJECT("jumps to 4, into the middle of a test-and-jump pair", c.code[7] = instr_abc(OP_FORLOOP, 1, 2, (uint16_t)-4));
    REJECT("jumps to 9, into the ON ERROR handler",
           (c.code[7] = instr_abc(OP_FORLOOP, 1, 2, 1), c.code[8] = instr_abc(OP_HALT, 0, 0, 0),
            c.routines[0].handler = 9));
    /* A proper handler: the body ends, the handler may RETRY, SKIP, RERAISE and jump back into the body. */
    Chunk c;
    make_valid(&c);
    c.code[8] = instr_abc(OP_HALT, 0, 0, 0);
    c.code[9] = instr_abc(OP_RETRY, 0, 0, 0);
    c.routines[0].handler = 9;
    int rc = verify_chunk(&c, msg, sizeof msg);
    if (rc) printf("#   %s\n", msg);
    CHECK(rc == 0);
    chunk_free(&c);
}

UTEST(verifier_tables)
{
    REJECT("no routine: the main program is missing", c.nroutines = 0);
    REJECT("must tile the code", c.routines[1].entry = 11);
    REJECT("outside the 12 instructions", c.routines[1].end = 20);
    REJECT("empty or outside", c.routines[0].end = 0);
    REJECT("instructions 11..11 belong to no routine", c.routines[1].end = 11);
    REJECT("its name is STRING 77", c.routines[1].name = 77);
    REJECT("outside the 1 parameter kinds", c.routines[1].nparams = 2);
    REJECT("outside the 1 parameter kinds", c.routines[1].kinds = -1);
    REJECT("3 parameter slots for 1 parameters in a frame of 2", c.routines[1].param_slots = 3);
    REJECT("frame of 4194305 slots", c.routines[1].frame_size = VERIFY_MAX_SLOTS + 1);
    REJECT("frame of -1 slots", c.routines[1].frame_size = -1);
    REJECT("3 result slots in a frame of 2", c.routines[1].result_slots = 3);
    REJECT("handler at 50", c.routines[1].handler = 50);
    REJECT("handler at 10", c.routines[1].handler = 10);
    REJECT("declared at line 2 of file 3", c.routines[1].file = 3);
    REJECT("cannot have parameters or a result", (c.routines[0].result_slots = 1, c.code[9] = instr_abc(OP_RET, 0, 1, 0)));
    REJECT("smaller than its 10 globals", c.nglobals = 10);
    REJECT("-1 global slots", c.nglobals = -1);
    REJECT("STRING constant 0 must be the empty string", c.kstr[0].len = 1);
    REJECT("STRING constant 4 contains a NUL byte", c.kstr[4].text[0] = '\0');
    REJECT("no source file name", c.nfiles = 0);
    REJECT("source file 0 names STRING 99", c.files[0] = 99);
    REJECT("parameter kind 0 is 2", c.param_kinds[0] = 2);
    REJECT("device 0 names a STRING", c.devices[0].backend = -4);
    REJECT("I/O point 0 has kind 9", c.ios[0].kind = 9);
    REJECT("I/O point 0 names a STRING", c.ios[0].name = 1000);
    REJECT("line table entry 3", c.lines[3].file = 5);
    REJECT("line table entry 4", c.lines[4].line = -2);
    REJECT("statement 0 spans [9, 11)", c.stmts[0] = (ChunkStmt){9, 11});
    REJECT("statement 1 spans [8, 10)", c.stmts[1] = (ChunkStmt){8, 10});
    REJECT("statement 1 spans [6, 6)", c.stmts[1] = (ChunkStmt){6, 6});
    REJECT("statement 0 spans [-3, 2)", c.stmts[0] = (ChunkStmt){-3, 2});
    REJECT("statement 0 spans [12, 13)", c.stmts[0] = (ChunkStmt){12, 13});
}

/* Serialises a fresh valid chunk. */
static unsigned char *valid_file(size_t *len)
{
    Chunk c;
    make_valid(&c);
    unsigned char *buf = NULL;
    CHECK(bytecode_write_mem(&c, &buf, len) == BC_OK);
    chunk_free(&c);
    return buf;
}

UTEST(roundtrip_is_exact_and_deterministic)
{
    size_t len, len2, len3;
    unsigned char *a = valid_file(&len), *b = valid_file(&len2), *d = NULL;
    CHECK(len == len2 && memcmp(a, b, len) == 0);
    Chunk c;
    int rc = bytecode_read_mem(a, len, &c, msg, sizeof msg);
    if (rc) printf("#   %s\n", msg);
    CHECK(rc == BC_OK);
    if (rc == BC_OK) {
        CHECK(bytecode_write_mem(&c, &d, &len3) == BC_OK);
        CHECK(len3 == len && memcmp(a, d, len) == 0);
        Chunk v;
        make_valid(&v);
        CHECK(c.ncode == v.ncode && memcmp(c.code, v.code, sizeof *c.code * (size_t)c.ncode) == 0);
        CHECK(c.nroutines == 2 && memcmp(c.routines, v.routines, sizeof *c.routines * 2) == 0);
        CHECK(c.nkstr == v.nkstr && strcmp(c.kstr[4].text, "<") == 0 && c.kstr[0].len == 0);
        CHECK(c.nkreal == 1 && c.kreal[0] == 0.5 && c.nkint == 1 && c.kint[0] == 42 && c.nglobals == 1);
        CHECK(c.nstmts == 2 && c.stmts[1].end == 9 && c.lines[11].line == 1);
        CHECK(c.ndevices == 1 && c.devices[0].file == 3 && c.nios == 1 && c.ios[0].channel == 3);
        chunk_free(&v);
        chunk_free(&c);
    }
    free(a), free(b), free(d);
}

UTEST(write_and_load_files)
{
    Chunk c, d;
    make_valid(&c);
    char path[] = "/tmp/test_bytecode_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(bytecode_write(&c, path, msg, sizeof msg) == BC_OK);
    CHECK(bytecode_load(path, &d, msg, sizeof msg) == BC_OK);
    CHECK(d.ncode == c.ncode);
    chunk_free(&d);
    CHECK(bytecode_load("/nonexistent/x.irlc", &d, msg, sizeof msg) == BC_EIO);
    CHECK(strstr(msg, "/nonexistent/x.irlc: cannot open") != NULL);
    CHECK(bytecode_load("/tmp", &d, msg, sizeof msg) == BC_EIO);
    FILE *f = fopen(path, "wb");
    fputs("PROGRAM p; BEGIN ENDPROGRAM\n", f);
    fclose(f);
    CHECK(bytecode_load(path, &d, msg, sizeof msg) == BC_EINVALID);
    CHECK(strstr(msg, ": invalid bytecode: not an irl bytecode file") != NULL);
    CHECK(bytecode_write(&c, "/nonexistent/dir/x.irlc", msg, sizeof msg) == BC_EIO);
    remove(path);
    close(fd);
    chunk_free(&c);
}

static uint32_t rd32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(unsigned char *p, uint32_t v) { p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24; }

/* Offset of the header of section `tag` in a serialised file (0 when absent). */
static size_t find_section(const unsigned char *buf, size_t len, const char *tag)
{
    for (size_t at = 24; at + 12 <= len; at += 12 + rd32(buf + at + 8))
        if (memcmp(buf + at, tag, 4) == 0) return at;
    return 0;
}

/* Reads a damaged copy of the valid file (len n, after `stmt` ran on `b`), expects BC_EINVALID and `want`. */
#define DAMAGED(want, restamp, ...)                                                                            \
    do {                                                                                                       \
        size_t n;                                                                                              \
        unsigned char *b = valid_file(&n);                                                                     \
        b = realloc(b, n + 64);                                                                                \
        __VA_ARGS__;                                                                                           \
        if (restamp) wr32(b + 16, (uint32_t)n), bytecode_restamp(b, n);                                        \
        Chunk c_;                                                                                              \
        msg[0] = '\0';                                                                                         \
        int rc_ = bytecode_read_mem(b, n, &c_, msg, sizeof msg);                                               \
        if (rc_ != BC_EINVALID || !strstr(msg, want))                                                          \
            printf("#   read: rc %d, message \"%s\", wanted \"%s\"\n", rc_, msg, want);                        \
        CHECK(rc_ == BC_EINVALID && strstr(msg, want));                                                        \
        if (rc_ == BC_OK) chunk_free(&c_);                                                                     \
        free(b);                                                                                               \
    } while (0)

UTEST(reader_rejects_damage)
{
    DAMAGED("bad magic", 0, b[1] = 'X');
    DAMAGED("bad magic", 0, n = 5);
    DAMAGED("bytecode format version 1, this irl reads version 2 (recompile the program)", 0, wr32(b + 8, 1));
    DAMAGED("unknown flags 0x4", 0, wr32(b + 12, 4));
    DAMAGED("truncated: 20 bytes", 0, n = 20);
    DAMAGED("truncated: 100 bytes of the", 0, n = 100);
    DAMAGED("where the header announces", 0, (memset(b + n, 0, 8), n += 8));
    DAMAGED("checksum mismatch", 0, b[n - 1] ^= 1);
    DAMAGED("checksum mismatch", 0, b[21] ^= 0x80);
    DAMAGED("expected the INT constants section (KINT)", 1, b[24] = 'X');
    DAMAGED("expected the routines section (ROUT)", 1, b[find_section(b, n, "ROUT")] = 'r');
    DAMAGED("the code section's size 96 does not match its count 13", 1,
            wr32(b + find_section(b, n, "CODE") + 4, 13));
    DAMAGED("count 4294967295 is too large", 1, wr32(b + find_section(b, n, "KINT") + 4, 0xffffffffu));
    DAMAGED("the INT constants section claims 4294967288 bytes", 1,
            (wr32(b + 28, 0x1fffffffu), wr32(b + 32, 0xfffffff8u)));
    DAMAGED("STRING constant 2 (4000 bytes) runs past", 1, {
        size_t at = find_section(b, n, "KSTR") + 12;
        at += 4 + rd32(b + at);
        at += 4 + rd32(b + at);
        wr32(b + at, 4000);
    });
    DAMAGED("STRING constants section has 5 stray bytes", 1, wr32(b + find_section(b, n, "KSTR") + 4, 4));
    DAMAGED("the line table has 11 entries for 12 instructions", 1, {
        size_t at = find_section(b, n, "LINE");
        wr32(b + at + 4, 11), wr32(b + at + 8, 11 * 12);
        memmove(b + at + 12 + 11 * 12, b + at + 12 + 12 * 12, n - (at + 12 + 12 * 12));
        n -= 12;
    });
    DAMAGED("the globals section must hold one count, not 0", 1, {
        size_t at = find_section(b, n, "GLOB");
        wr32(b + at + 4, 0), wr32(b + at + 8, 0);
        memmove(b + at + 12, b + at + 16, n - (at + 16));
        n -= 4;
    });
    DAMAGED("4 stray bytes after the last section", 1, (memset(b + n, 0, 4), n += 4));
    DAMAGED("truncated: the I/O points section header is missing", 1, n = find_section(b, n, "IOPT") + 4);
    DAMAGED("jumps to 12, outside its routine", 1, wr32(b + find_section(b, n, "CODE") + 12 + 4 * 8 + 4, 7));
    DAMAGED("main program is missing", 1, {
        size_t at = find_section(b, n, "ROUT");
        wr32(b + at + 4, 0), wr32(b + at + 8, 0);
        memmove(b + at + 12, b + at + 12 + 88, n - (at + 12 + 88));
        n -= 88;
    });
}

/* The checksum is the standard CRC-32: its check value over "123456789" is 0xCBF43926. */
UTEST(crc32_check_value)
{
    unsigned char b[24 + 9] = {0};
    memcpy(b + 24, "123456789", 9);
    CHECK(bytecode_restamp(b, sizeof b) == BC_OK);
    CHECK(rd32(b + 20) == 0xcbf43926u);
    CHECK(bytecode_restamp(b, 23) == BC_EINVALID);
}

/* Every prefix of a valid file, as is and with its length and checksum re-stamped, is rejected cleanly. */
UTEST(every_truncation_rejected)
{
    size_t n;
    unsigned char *full = valid_file(&n);
    int bad = 0;
    for (size_t len = 0; len < n; len++) {
        for (int restamp = 0; restamp < 2; restamp++) {
            unsigned char *b = malloc(len ? len : 1);
            memcpy(b, full, len);
            if (restamp && len >= 24) wr32(b + 16, (uint32_t)len), bytecode_restamp(b, len);
            Chunk c;
            int rc = bytecode_read_mem(b, len, &c, msg, sizeof msg);
            if (rc != BC_EINVALID || !msg[0]) bad++, printf("#   prefix %zu (restamp %d): rc %d\n", len, restamp, rc);
            if (rc == BC_OK) chunk_free(&c);
            free(b);
        }
    }
    CHECK(bad == 0);
    free(full);
}

/* ---- The mutation helper. ----------------------------------------------------------------------------------- */
static uint64_t rng_state;
static uint32_t rnd(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dULL) >> 32);
}

/* One random change to buf (length *n, capacity cap): byte and bit flips anywhere, operand fields of instructions
 * set to small or boundary values, routine and table fields nudged, cuts and extensions. */
static void mutate_once(unsigned char *buf, size_t *n, size_t cap)
{
    size_t len = *n, code = find_section(buf, len, "CODE"), rout = find_section(buf, len, "ROUT");
    uint32_t ncode = code ? rd32(buf + code + 4) : 0, nrout = rout ? rd32(buf + rout + 4) : 0;
    /* earlier mutations may have broken the counts: keep every write inside the buffer */
    if (code && (uint64_t)code + 12 + 8 * (uint64_t)ncode > len) ncode = (uint32_t)((len - code - 12) / 8);
    if (rout && (uint64_t)rout + 12 + 44 * (uint64_t)nrout > len) nrout = (uint32_t)((len - rout - 12) / 44);
    switch (rnd() % 10) {
    case 0: case 1: /* any byte: flip some bits */
        buf[rnd() % len] ^= (unsigned char)(1 + rnd() % 255);
        break;
    case 2: case 3: case 4: /* an instruction's field (op, A, B or C: 16 bits each) to a small or random value */
        if (ncode) {
            size_t at = code + 12 + 8 * (rnd() % ncode) + 2 * (rnd() % 4);
            uint32_t v = rnd() % 3 == 0 ? rnd() & 0xffff : rnd() % 3 == 0 ? 0xffff - rnd() % 4 : rnd() % 24;
            buf[at] = (unsigned char)v, buf[at + 1] = (unsigned char)(v >> 8);
        }
        break;
    case 5: /* an instruction's opcode to another valid one */
        if (ncode) {
            size_t at = code + 12 + 8 * (rnd() % ncode);
            buf[at] = (unsigned char)(rnd() % OP_COUNT), buf[at + 1] = 0;
        }
        break;
    case 6: /* swap two instructions */
        if (ncode > 1) {
            size_t x = code + 12 + 8 * (rnd() % ncode), y = code + 12 + 8 * (rnd() % ncode);
            unsigned char t[8];
            memcpy(t, buf + x, 8), memcpy(buf + x, buf + y, 8), memcpy(buf + y, t, 8);
        }
        break;
    case 7: /* a routine field (entry, end, frame size, handler, ...) nudged */
        if (nrout) {
            size_t at = rout + 12 + 44 * (rnd() % nrout) + 4 * (rnd() % 11);
            wr32(buf + at, rd32(buf + at) + (uint32_t)(int32_t)(rnd() % 7 - 3));
        }
        break;
    case 8: { /* any 32-bit field anywhere after the header to a small value */
        if (len > 28) wr32(buf + 24 + 4 * (rnd() % ((len - 24) / 4)), rnd() % 16);
        break;
    }
    default: /* cut, or grow with junk */
        if (rnd() % 2) *n = 24 + rnd() % (len - 23);
        else {
            size_t add = rnd() % 16;
            if (len + add <= cap) {
                for (size_t i = 0; i < add; i++) buf[len + i] = (unsigned char)rnd();
                *n = len + add;
            }
        }
        break;
    }
}

/* test_bytecode mutate FILE SEED COUNT OUTDIR: prints "N mutants: R rejected, A accepted (W written)". */
static int mutate_main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: test_bytecode mutate FILE SEED COUNT OUTDIR\n");
        return 64;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) return perror(argv[2]), 66;
    static unsigned char orig[1 << 22];
    size_t olen = fread(orig, 1, sizeof orig, f);
    fclose(f);
    rng_state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)strtoull(argv[3], NULL, 10) * 0x100000001b3ULL;
    long count = strtol(argv[4], NULL, 10), rejected = 0, accepted = 0, written = 0, badmsg = 0;
    size_t cap = olen + 64;
    unsigned char *buf = malloc(cap);
    Chunk c;
    if (bytecode_read_mem(orig, olen, &c, msg, sizeof msg) != BC_OK) {
        fprintf(stderr, "%s: the original does not load: %s\n", argv[2], msg);
        return 1;
    }
    chunk_free(&c);
    for (long i = 0; i < count; i++) {
        size_t n = olen;
        memcpy(buf, orig, olen);
        int k = 1 + (int)(rnd() % 3);
        for (int j = 0; j < k; j++) mutate_once(buf, &n, cap);
        wr32(buf + 16, (uint32_t)n);
        bytecode_restamp(buf, n);
        msg[0] = '\0';
        int rc = bytecode_read_mem(buf, n, &c, msg, sizeof msg);
        if (rc == BC_OK) {
            accepted++;
            /* the disassembler must cope with anything the verifier accepts */
            FILE *null = fopen("/dev/null", "w");
            disasm_chunk(&c, null);
            fclose(null);
            chunk_free(&c);
            if (n == olen && memcmp(buf, orig, n) == 0) continue; /* a no-op mutation */
            if (written < 25) {
                char path[4096];
                snprintf(path, sizeof path, "%s/m%s_%ld.irlc", argv[5], argv[3], i);
                FILE *o = fopen(path, "wb");
                if (o) fwrite(buf, 1, n, o), fclose(o), written++;
            }
        } else {
            rejected++;
            if (rc != BC_EINVALID || !msg[0] || strchr(msg, '\n')) {
                badmsg++;
                printf("mutant %ld: rc %d, message \"%s\"\n", i, rc, msg);
            }
        }
    }
    free(buf);
    printf("%ld mutants: %ld rejected, %ld accepted (%ld written)\n", count, rejected, accepted, written);
    return badmsg ? 1 : 0;
}

/* A damaged copy of orig in buf: cut at a random length, or 1-3 bytes flipped inside [from, from + span). Its
 * length. */
static size_t damage(unsigned char *buf, const unsigned char *orig, size_t olen, size_t from, size_t span, int cut)
{
    memcpy(buf, orig, olen);
    if (cut) return rnd() % olen;
    for (int j = 1 + (int)(rnd() % 3); j > 0; j--) buf[from + rnd() % span] ^= (unsigned char)(1 + rnd() % 255);
    return olen;
}

/* Write n bytes of buf to path; 0, or 1 with the reason on stderr. */
static int write_copy(const char *path, const unsigned char *buf, size_t n)
{
    FILE *o = fopen(path, "wb");
    if (!o || fwrite(buf, 1, n, o) != n) return perror(path), 1;
    fclose(o);
    return 0;
}

/* test_bytecode flips FILE SEED COUNT OUTDIR: writes COUNT damaged copies (1-3 bytes flipped, or cut at a random
 * length; checksum NOT re-stamped) as OUTDIR/fSEED_I.irlc, for `irl run` to reject. */
static int flips_main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: test_bytecode flips FILE SEED COUNT OUTDIR\n");
        return 64;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) return perror(argv[2]), 66;
    static unsigned char orig[1 << 22], buf[1 << 22];
    size_t olen = fread(orig, 1, sizeof orig, f);
    fclose(f);
    if (olen == 0) return 1;
    rng_state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)strtoull(argv[3], NULL, 10) * 0x100000001b3ULL;
    long count = strtol(argv[4], NULL, 10);
    for (long i = 0; i < count; i++) {
        size_t n = damage(buf, orig, olen, 0, olen, rnd() % 4 == 0);
        char path[4096];
        snprintf(path, sizeof path, "%s/f%s_%ld.irlc", argv[5], argv[3], i);
        if (write_copy(path, buf, n)) return 1;
    }
    return 0;
}

/* test_bytecode regions FILE SEED PER OUTDIR: PER damaged copies per region, 1-3 bytes flipped inside it (the
 * checksum as is), and PER cut at a random length, as OUTDIR/REGION_SEED_I.irlc; prints the regions' byte ranges. */
static int regions_main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: test_bytecode regions FILE SEED PER OUTDIR\n");
        return 64;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) return perror(argv[2]), 66;
    static unsigned char orig[1 << 22], buf[1 << 22];
    size_t olen = fread(orig, 1, sizeof orig, f);
    fclose(f);
    size_t kint = find_section(orig, olen, "KINT"), file = find_section(orig, olen, "FILE");
    size_t code = find_section(orig, olen, "CODE"), line = find_section(orig, olen, "LINE");
    size_t stmt = find_section(orig, olen, "STMT");
    if (!kint || !file || !code || !line || !stmt) {
        fprintf(stderr, "%s: sections not found\n", argv[2]);
        return 1;
    }
    /* [from, to) of each region; the constants are KINT, KREA and KSTR with their heads */
    const struct { const char *name; size_t from, to; } region[] = {
        {"header", 0, 20}, {"checksum", 20, 24}, {"constants", kint, file}, {"code", code, line}, {"lines", line, stmt},
        {"cut", 0, olen},
    };
    rng_state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)strtoull(argv[3], NULL, 10) * 0x100000001b3ULL;
    long per = strtol(argv[4], NULL, 10);
    for (size_t r = 0; r < sizeof region / sizeof region[0]; r++) {
        size_t from = region[r].from, span = region[r].to - region[r].from;
        printf("%s [%zu, %zu)\n", region[r].name, from, region[r].to);
        for (long i = 0; i < per; i++) {
            size_t n = damage(buf, orig, olen, from, span, strcmp(region[r].name, "cut") == 0);
            char path[4096];
            snprintf(path, sizeof path, "%s/%s_%s_%ld.irlc", argv[5], region[r].name, argv[3], i);
            if (write_copy(path, buf, n)) return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "regions") == 0) return regions_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "mutate") == 0) return mutate_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "flips") == 0) return flips_main(argc, argv);
    RUN(valid_chunk_verifies);
    RUN(verifier_accepts_forloop_and_sysvar_parts);
    RUN(verifier_operands);
    RUN(verifier_control_flow);
    RUN(verifier_tables);
    RUN(roundtrip_is_exact_and_deterministic);
    RUN(write_and_load_files);
    RUN(reader_rejects_damage);
    RUN(crc32_check_value);
    RUN(every_truncation_rejected);
    RUN(verifier_task_and_interrupt_operands);
    return utest_done();
}
