/* verify.c — the bytecode verifier: table-driven from opcodes.h's operand kinds. The rules, and why together they
 * make a verified chunk safe for runtime/vm/vm.c (which trusts them and checks only what depends on run-time values:
 * addresses, STRING ids, the call depth), are in docs/BYTECODE.md. */
#include "verify.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "chunk.h"

typedef struct Verifier {
    const Chunk *c;
    char *err;
    size_t errlen;
    int routine; /* the routine being checked, or -1 */
    int pc;      /* the instruction being checked, or -1 */
} Verifier;

/* Formats the first failure, prefixed with the routine and instruction it concerns; returns -1. */
static int fail(Verifier *v, const char *fmt, ...)
{
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const Chunk *c = v->c;
    if (v->routine >= 0 && v->pc >= 0) {
        const ChunkRoutine *r = &c->routines[v->routine];
        char name[48] = "?"; /* the name as a printable one-liner: a hostile file may put anything in it */
        if (r->name >= 0 && r->name < c->nkstr) {
            const ChunkString *s = &c->kstr[r->name];
            int k = 0;
            for (int32_t i = 0; i < s->len && k < 40; i++) {
                unsigned char ch = (unsigned char)s->text[i];
                name[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
            }
            name[k] = '\0';
        }
        unsigned op = INSTR_OP(c->code[v->pc]);
        snprintf(v->err, v->errlen, "routine %d '%s', pc %d (%s): %s", v->routine, name, v->pc,
                 op < OP_COUNT ? irl_opinfo[op].name : "?", what);
    } else if (v->routine >= 0) {
        snprintf(v->err, v->errlen, "routine %d: %s", v->routine, what);
    } else {
        snprintf(v->err, v->errlen, "%s", what);
    }
    return -1;
}

/* ---- Tables. ------------------------------------------------------------------------------------------------ */

/* The string pool: "" first, every string NUL-free (texts are printed and compared as C strings too). */
static int check_strings(Verifier *v)
{
    const Chunk *c = v->c;
    if (c->nkstr < 1 || c->kstr[0].len != 0) return fail(v, "STRING constant 0 must be the empty string");
    for (int32_t i = 0; i < c->nkstr; i++) {
        if (c->kstr[i].len < 0 || !c->kstr[i].text) return fail(v, "STRING constant %d is malformed", i);
        if (memchr(c->kstr[i].text, '\0', (size_t)c->kstr[i].len))
            return fail(v, "STRING constant %d contains a NUL byte", i);
    }
    return 0;
}

static bool kstr_ok(const Chunk *c, int32_t i) { return i >= 0 && i < c->nkstr; }

/* Source files, globals, parameter kinds, devices and I/O points. */
static int check_tables(Verifier *v)
{
    const Chunk *c = v->c;
    if (c->nfiles < 1) return fail(v, "no source file name");
    for (int32_t i = 0; i < c->nfiles; i++)
        if (!kstr_ok(c, c->files[i])) return fail(v, "source file %d names STRING %d, not in the pool", i, c->files[i]);
    if (c->nglobals < 0 || c->nglobals > VERIFY_MAX_SLOTS)
        return fail(v, "%d global slots (at most %d)", c->nglobals, VERIFY_MAX_SLOTS);
    for (int32_t i = 0; i < c->nparam_kinds; i++)
        if (c->param_kinds[i] != PARAM_VALUE && c->param_kinds[i] != PARAM_VAR)
            return fail(v, "parameter kind %d is %u (0 value, 1 VAR)", i, c->param_kinds[i]);
    for (int32_t i = 0; i < c->ndevices; i++) {
        const ChunkDevice *d = &c->devices[i];
        if (!kstr_ok(c, d->name) || !kstr_ok(c, d->backend) || !kstr_ok(c, d->file))
            return fail(v, "device %d names a STRING not in the pool", i);
    }
    for (int32_t i = 0; i < c->nios; i++) {
        const ChunkIo *io = &c->ios[i];
        if (!kstr_ok(c, io->name)) return fail(v, "I/O point %d names a STRING not in the pool", i);
        if (io->kind < IO_DIN || io->kind > IO_AOUT) return fail(v, "I/O point %d has kind %d", i, io->kind);
    }
    for (int32_t i = 0; i < c->ncode; i++) {
        const ChunkLine *l = &c->lines[i];
        if (l->file < 0 || l->file >= c->nfiles || l->line < 0 || l->col < 0)
            return fail(v, "line table entry %d (%d:%d in file %d) is invalid", i, l->line, l->col, l->file);
    }
    return 0;
}

/* Routines: main first, code ranges tiling the code array in order, consistent sizes and parameter tables. */
static int check_routines(Verifier *v)
{
    const Chunk *c = v->c;
    if (c->nroutines < 1) return fail(v, "no routine: the main program is missing");
    if (c->ncode < 1) return fail(v, "no code");
    for (int32_t i = 0; i < c->nroutines; i++) {
        const ChunkRoutine *r = &c->routines[i];
        v->routine = i;
        if (!kstr_ok(c, r->name)) return fail(v, "its name is STRING %d, not in the pool", r->name);
        if (r->entry != (i == 0 ? 0 : c->routines[i - 1].end))
            return fail(v, "code starts at %d: routines must tile the code in order", r->entry);
        if (r->end <= r->entry || r->end > c->ncode)
            return fail(v, "code range [%d, %d) is empty or outside the %d instructions", r->entry, r->end, c->ncode);
        if (r->frame_size < 0 || r->frame_size > VERIFY_MAX_SLOTS)
            return fail(v, "frame of %d slots (at most %d)", r->frame_size, VERIFY_MAX_SLOTS);
        if (r->nparams < 0 || r->kinds < 0 || (int64_t)r->kinds + r->nparams > c->nparam_kinds)
            return fail(v, "%d parameters at kind %d: outside the %d parameter kinds", r->nparams, r->kinds,
                        c->nparam_kinds);
        if (r->param_slots < r->nparams || r->param_slots > r->frame_size)
            return fail(v, "%d parameter slots for %d parameters in a frame of %d", r->param_slots, r->nparams,
                        r->frame_size);
        if (r->result_slots < 0 || r->result_slots > r->frame_size)
            return fail(v, "%d result slots in a frame of %d", r->result_slots, r->frame_size);
        if (r->handler != -1 && (r->handler <= r->entry || r->handler >= r->end))
            return fail(v, "ON ERROR handler at %d, outside its code (%d, %d)", r->handler, r->entry, r->end);
        if (r->file < 0 || r->file >= c->nfiles || r->line < 0)
            return fail(v, "declared at line %d of file %d, which does not exist", r->line, r->file);
    }
    v->routine = -1;
    if (c->routines[c->nroutines - 1].end != c->ncode)
        return fail(v, "instructions %d..%d belong to no routine", c->routines[c->nroutines - 1].end, c->ncode - 1);
    const ChunkRoutine *m = &c->routines[0];
    if (m->nparams != 0 || m->param_slots != 0 || m->result_slots != 0)
        return fail(v, "the main program (routine 0) cannot have parameters or a result");
    if (m->frame_size < c->nglobals)
        return fail(v, "the main program's frame (%d slots) is smaller than its %d globals", m->frame_size,
                    c->nglobals);
    return 0;
}

/* ---- Instructions. ------------------------------------------------------------------------------------------ */

/* The value of field f (0 A, 1 B, 2 C) of ins, or Bx when f is B and C is its high half. */
static uint32_t field(Instr ins, int f, bool wide)
{
    if (f == 1 && wide) return INSTR_BX(ins);
    return f == 0 ? INSTR_A(ins) : f == 1 ? INSTR_B(ins) : INSTR_C(ins);
}

/* The system variable whose slots include slot x (< SV_SLOTS). */
static const VmSysvarInfo *sysvar_at(unsigned x)
{
    int i = SV_COUNT - 1;
    while (irl_sysvarinfo[i].offset > (int)x) i--;
    return &irl_sysvarinfo[i];
}

/* Number of slots the register run starting in field f of ins covers; -1 after reporting an inconsistency. */
static int64_t run_length(Verifier *v, Instr ins, int f)
{
    const Chunk *c = v->c;
    unsigned op = INSTR_OP(ins);
    switch (op) {
    case OP_IDQ: case OP_PRINTORI: return 4;
    case OP_PRINTPOS: return 3;
    case OP_PRINTPOSE: return 7;
    case OP_PRINTJ: return 1 + IRL_JOINT_MAX;
    case OP_FORPREP: case OP_FORLOOP: return 2; /* limit, step */
    case OP_ZERO: case OP_RET: return INSTR_B(ins);
    case OP_MOVN: case OP_LOADR: case OP_STORER: case OP_MOTION: return INSTR_C(ins);
    case OP_CALL: {
        const ChunkRoutine *r = &c->routines[INSTR_B(ins)]; /* B checked before the runs */
        return r->param_slots > r->result_slots ? r->param_slots : r->result_slots;
    }
    case OP_BUILTIN: {
        const VmBuiltinInfo *b = &irl_builtininfo[INSTR_B(ins)];
        if (b->nargs >= 0 && (int)INSTR_C(ins) != b->nargs)
            return fail(v, "built-in %s takes %d argument slots, not %u", b->name, b->nargs, INSTR_C(ins));
        return (int64_t)INSTR_C(ins) > b->nresult ? INSTR_C(ins) : (unsigned)b->nresult;
    }
    case OP_GETSYS: case OP_SETSYS: {
        const VmSysvarInfo *s = sysvar_at(INSTR_B(ins)); /* B checked before the runs */
        unsigned first = INSTR_B(ins) - (unsigned)s->offset, n = INSTR_C(ins);
        if (n < 1) return fail(v, "moves no slot of $%s", s->name);
        if (first + n > (unsigned)s->nslots)
            return fail(v, "slots %u..%u of $%s, which has %d", first, first + n - 1, s->name, s->nslots);
        if (op == OP_SETSYS && s->readonly) return fail(v, "$%s is read-only", s->name);
        return n;
    }
    default:
        (void)f;
        return fail(v, "no run length is defined for this instruction");
    }
}

/* Checks each operand of the instruction at pc against its kind, for routine r. Jump targets are checked later. */
static int check_operands(Verifier *v, const ChunkRoutine *r, int pc)
{
    const Chunk *c = v->c;
    Instr ins = c->code[pc];
    unsigned op = INSTR_OP(ins);
    if (op >= OP_COUNT) return fail(v, "unknown opcode %u", op);
    const OpInfo *info = &irl_opinfo[op];
    const unsigned char kinds[3] = {info->ka, info->kb, info->kc};
    bool wide = info->kc == OPK_WIDE;
    static const char fname[3] = {'A', 'B', 'C'};
    /* Table operands first: run lengths below depend on them. */
    for (int f = 0; f < 3; f++) {
        uint32_t x = field(ins, f, wide);
        switch ((OpndKind)kinds[f]) {
        case OPK_NONE:
            if (x != 0) return fail(v, "unused operand %c is %u, must be 0", fname[f], x);
            break;
        case OPK_KINT:
            if (x >= (uint32_t)c->nkint) return fail(v, "INT constant %u (the pool has %d)", x, c->nkint);
            break;
        case OPK_KREAL:
            if (x >= (uint32_t)c->nkreal) return fail(v, "REAL constant %u (the pool has %d)", x, c->nkreal);
            break;
        case OPK_KSTR:
            if (x >= (uint32_t)c->nkstr) return fail(v, "STRING constant %u (the pool has %d)", x, c->nkstr);
            break;
        case OPK_GLOBAL:
            if (x >= (uint32_t)c->nglobals) return fail(v, "global slot %u (there are %d)", x, c->nglobals);
            break;
        case OPK_BOOL:
            if (x > 1) return fail(v, "operand %c is %u, must be 0 or 1", fname[f], x);
            break;
        case OPK_ROUTINE:
            if (x == 0 || x >= (uint32_t)c->nroutines)
                return fail(v, "calls routine %u (1..%d; the main program cannot be called)", x, c->nroutines - 1);
            break;
        case OPK_BUILTIN:
            if (x >= VB_COUNT) return fail(v, "built-in %u (there are %d)", x, VB_COUNT);
            break;
        case OPK_SYSSLOT:
            if (x >= SV_SLOTS) return fail(v, "system-variable slot %u (there are %d)", x, SV_SLOTS);
            break;
        case OPK_MOTION:
            if (x >= MK_COUNT) return fail(v, "motion statement kind %u (there are %d)", x, MK_COUNT);
            /* path-triggered I/O and trajectories as data: their operand runs' fixed parts (opcodes.h) */
            if (x == MK_TRIGGER && INSTR_C(ins) != MOTION_HDR + 4)
                return fail(v, "TRIGGER takes %d operand slots, not %u", MOTION_HDR + 4, INSTR_C(ins));
            if (x == MK_MOVE_SPLINE && INSTR_C(ins) < MOTION_HDR + 3)
                return fail(v, "MOVE SPLINE takes at least %d operand slots, not %u", MOTION_HDR + 3, INSTR_C(ins));
            break;
        case OPK_JUMP:
            if (f != (wide ? 1 : 2)) return fail(v, "a jump offset must be sBx or sC");
            break;
        default: /* registers below; SIMM, UIMM, COUNT, WIDE: any value */
            break;
        }
    }
    /* Registers and register runs must lie inside the frame. */
    int64_t frame = r->frame_size;
    for (int f = 0; f < 3; f++) {
        if (f == 1 && wide) break;
        int64_t x = field(ins, f, false);
        if (kinds[f] == OPK_REG && x >= frame)
            return fail(v, "register %c = R%lld is outside the frame (%lld slots)", fname[f], (long long)x,
                        (long long)frame);
        if (kinds[f] == OPK_RUN) {
            int64_t n = run_length(v, ins, f);
            if (n < 0) return -1;
            if (x + n > frame)
                return fail(v, "registers %c = R%lld..R%lld are outside the frame (%lld slots)", fname[f],
                            (long long)x, (long long)(x + n - 1), (long long)frame);
        }
    }
    if (op == OP_RET && (int)INSTR_B(ins) != r->result_slots)
        return fail(v, "returns %u slots, the routine's result has %d", INSTR_B(ins), r->result_slots);
    /* tasks and interrupts: a task and a handler take no parameters and give no result, a condition gives a BOOL */
    if (op == OP_START || op == OP_ENABLE || op == OP_DISABLE) {
        const ChunkRoutine *b = &c->routines[INSTR_B(ins)];
        int want = op == OP_START ? 0 : 1;
        if (b->nparams != 0 || b->result_slots != want)
            return fail(v, "%s names routine %u, which is not a %s (no parameters, %s)", info->name, INSTR_B(ins),
                        op == OP_START ? "task" : "condition", op == OP_START ? "no result" : "a BOOL result");
        if (op == OP_ENABLE && (c->routines[INSTR_C(ins)].nparams != 0 || c->routines[INSTR_C(ins)].result_slots))
            return fail(v, "ENABLE names handler routine %u, which takes parameters or gives a result", INSTR_C(ins));
    }
    return 0;
}

/* The target of the jump at pc (JMP: pc + 1 + sBx, FORLOOP: pc + 1 + sC), in 64 bits so no offset overflows. */
static int64_t jump_target(const Chunk *c, int pc)
{
    Instr ins = c->code[pc];
    return (int64_t)pc + 1 + (irl_opinfo[INSTR_OP(ins)].kc == OPK_WIDE ? INSTR_SBX(ins) : INSTR_SC(ins));
}

/* Does the instruction jump (JMP, FORLOOP)? */
static bool is_jump(Instr ins)
{
    const OpInfo *info = &irl_opinfo[INSTR_OP(ins)];
    return info->kb == OPK_JUMP || info->kc == OPK_JUMP;
}

/* One routine: operands, test pairs, jump targets, no falling off the end, the handler entered only by an error,
 * RETRY/SKIP/RERAISE only inside the handler. pair[] marks the JMPs that belong to a test. */
static int check_routine_code(Verifier *v, int ri, unsigned char *pair)
{
    const Chunk *c = v->c;
    const ChunkRoutine *r = &c->routines[ri];
    v->routine = ri;
    for (int pc = r->entry; pc < r->end; pc++) {
        v->pc = pc;
        if (check_operands(v, r, pc) < 0) return -1;
        unsigned op = INSTR_OP(c->code[pc]);
        if (irl_opinfo[op].flags & OPF_TEST) {
            if (pc + 2 >= r->end || INSTR_OP(c->code[pc + 1]) != OP_JMP)
                return fail(v, "a test must be followed by a JMP and one more instruction of its routine");
            pair[pc + 1] = 1;
        }
        if ((op == OP_RETRY || op == OP_SKIP || op == OP_RERAISE) && (r->handler < 0 || pc < r->handler))
            return fail(v, "only valid inside an ON ERROR handler");
    }
    int body_end = r->handler >= 0 ? r->handler : r->end; /* the body may not run into the handler */
    for (int pc = r->entry; pc < r->end; pc++) {
        v->pc = pc;
        unsigned op = INSTR_OP(c->code[pc]);
        if (is_jump(c->code[pc])) {
            int64_t t = jump_target(c, pc);
            int lo = pc < body_end ? r->entry : body_end, hi = pc < body_end ? body_end : r->end;
            if (t < r->entry || t >= r->end) return fail(v, "jumps to %lld, outside its routine", (long long)t);
            if (pair[t]) return fail(v, "jumps to %lld, into the middle of a test-and-jump pair", (long long)t);
            if (pc < body_end && t >= body_end)
                return fail(v, "jumps to %lld, into the ON ERROR handler (%d..%d)", (long long)t, lo, hi - 1);
        }
        int last_of_body = pc == body_end - 1 || pc == r->end - 1;
        if (last_of_body && !(irl_opinfo[op].flags & OPF_END))
            return fail(v, pc == r->end - 1 ? "the routine's last instruction must end it (RET, HALT, JMP, ...)"
                                            : "the body runs into the ON ERROR handler");
        if ((irl_opinfo[op].flags & OPF_TEST) && pc < body_end && pc + 2 >= body_end)
            return fail(v, "the body runs into the ON ERROR handler when the test skips its jump");
    }
    v->pc = -1;
    return 0;
}

/* Statement extents: inside one routine, and both ends instructions of it (RETRY and SKIP resume there). */
static int check_stmts(Verifier *v)
{
    const Chunk *c = v->c;
    v->routine = v->pc = -1;
    for (int32_t i = 0; i < c->nstmts; i++) {
        const ChunkStmt *s = &c->stmts[i];
        int ri = s->start >= 0 && s->start < c->ncode ? chunk_routine_at(c, s->start) : -1;
        if (ri < 0 || s->end <= s->start || s->end >= c->routines[ri].end)
            return fail(v, "statement %d spans [%d, %d): it must lie inside one routine, before its last "
                           "instruction", i, s->start, s->end);
    }
    return 0;
}

/* Runs every rule; the first failure is the message. */
int verify_chunk(const Chunk *c, char *err, size_t errlen)
{
    Verifier v = {c, err, errlen, -1, -1};
    if (check_strings(&v) < 0 || check_tables(&v) < 0 || check_routines(&v) < 0) return -1;
    unsigned char *pair = calloc((size_t)c->ncode, 1);
    if (!pair) return fail(&v, "out of memory");
    int rc = 0;
    for (int32_t i = 0; i < c->nroutines && rc == 0; i++) rc = check_routine_code(&v, i, pair);
    free(pair);
    if (rc < 0) return -1;
    return check_stmts(&v);
}
