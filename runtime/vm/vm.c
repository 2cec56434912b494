/* vm.c — the interpreter loop: flat dispatch (computed goto with a switch fallback), one short case per opcode,
 * errors, calls and handlers out of line. Registers are checked by the verifier (or trusted from the code
 * generator); data-dependent accesses (addresses, string ids, indices) are checked here. */
#include "vm/vm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmath.h"
#include "vm/builtins.h"
#include "errcodes.h"
#include "exec/motion.h"
#include "vm/print.h"
#include "vm/tasks.h"

#if defined(__GNUC__) && !defined(IRL_VM_SWITCH)
#define VM_COMPUTED_GOTO 1
#endif
/* GCC's cross-jumping merges the handlers' identical tails (the store, the dispatch) into one shared indirect
 * jump: every instruction then takes two more jumps and one jump site predicts all opcodes. */
#if defined(__GNUC__) && !defined(__clang__)
#define VM_LOOP_ATTR __attribute__((optimize("no-crossjumping")))
#else
#define VM_LOOP_ATTR
#endif
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static const struct {
    int code;
    const char *name, *msg;
} errtab[] = {
#define X(name, value, msg) {value, #name, msg},
    IRL_ERRCODES(X)
#undef X
};

/* The ERR_* name of a code, or NULL. */
const char *vm_errname(int code)
{
    for (size_t i = 0; i < sizeof errtab / sizeof *errtab; i++)
        if (errtab[i].code == code) return errtab[i].name;
    return NULL;
}

/* The default message of a code. */
const char *vm_errmessage(int code)
{
    for (size_t i = 0; i < sizeof errtab / sizeof *errtab; i++)
        if (errtab[i].code == code) return errtab[i].msg;
    return "error raised by the program";
}

/* Default values: speeds and accelerations in SI, percentages as fractions, identity tool and base. */
static void sys_defaults(Value *s)
{
    s[SVO_SPEED].r = 0.25;
    s[SVO_SPEED_ORI].r = 1.0;
    s[SVO_SPEED_PTP].r = 1.0;
    s[SVO_ACC].r = 1.0;
    s[SVO_ACC_PTP].r = 1.0;
    s[SVO_TOOL + 3].r = 1.0;
    s[SVO_BASE + 3].r = 1.0;
}

int vm_init(Vm *vm, const Chunk *c, FILE *out, FILE *err)
{
    memset(vm, 0, sizeof *vm);
    vm->chunk = c;
    vm->out = out;
    vm->err = err;
    vm->stack = calloc(VM_STACK_SLOTS, sizeof *vm->stack);
    vm->frames = calloc(VM_MAX_FRAMES, sizeof *vm->frames);
    vm->sys = calloc(SV_SLOTS, sizeof *vm->sys);
    if (!vm->stack || !vm->frames || !vm->sys) {
        vm_free(vm);
        return VM_ENOMEM;
    }
    sys_defaults(vm->sys);
    vm->stack_end = VM_STACK_SLOTS;
    vm->owns = 1;
    return VM_OK;
}

int vm_init_task(Vm *vm, const Vm *parent)
{
    memset(vm, 0, sizeof *vm);
    vm->chunk = parent->chunk;
    vm->out = parent->out;
    vm->err = parent->err;
    vm->stack = parent->stack;
    vm->sys = parent->sys;
    vm->trace = parent->trace;
    vm->trace_ctx = parent->trace_ctx;
    vm->motion = parent->motion;
    vm->tasks = parent->tasks;
    vm->stack_end = VM_STACK_SLOTS;
    vm->frames = calloc(VM_MAX_FRAMES, sizeof *vm->frames);
    return vm->frames ? VM_OK : VM_ENOMEM;
}

void vm_free(Vm *vm)
{
    if (!vm->owns) {
        free(vm->frames);
        vm->frames = NULL;
        return;
    }
    free(vm->stack);
    free(vm->frames);
    free(vm->sys);
    vm->stack = NULL;
    vm->frames = NULL;
    vm->sys = NULL;
}

/* Prints the unhandled error at vm->err_pc: "file:line:col: runtime error: message (ERR_NAME)". */
static void report(Vm *vm)
{
    const Chunk *c = vm->chunk;
    const char *file = "?";
    int line = 0, col = 0;
    if (vm->err_pc >= 0 && vm->err_pc < c->ncode) {
        ChunkLine l = c->lines[vm->err_pc];
        if (l.file >= 0 && l.file < c->nfiles && c->files[l.file] >= 0 && c->files[l.file] < c->nkstr)
            file = c->kstr[c->files[l.file]].text;
        line = l.line;
        col = l.col;
    }
    const char *name = vm_errname(vm->err_code);
    fflush(vm->out);
    if (name)
        fprintf(vm->err, "%s:%d:%d: runtime error: %s (%s)\n", file, line, col, vm->err_msg, name);
    else
        fprintf(vm->err, "%s:%d:%d: runtime error: %s (%d)\n", file, line, col, vm->err_msg, vm->err_code);
}

/* Remembers a new error (code, message, where) before it is unwound. */
static void set_error(Vm *vm, int code, int pc, const char *msg)
{
    vm->err_code = code;
    vm->err_pc = pc;
    if (msg && *msg) snprintf(vm->err_msg, sizeof vm->err_msg, "%s", msg);
    else if (vm_errname(code)) snprintf(vm->err_msg, sizeof vm->err_msg, "%s", vm_errmessage(code));
    else snprintf(vm->err_msg, sizeof vm->err_msg, "error %d raised by the program", code);
}

/* The innermost statement extent of routine code containing pc; *start, *end get it (or pc, pc + 1). */
static void stmt_at(const Chunk *c, int pc, int32_t *start, int32_t *end)
{
    int32_t best = -1, bs = pc, be = pc + 1;
    for (int32_t i = 0; i < c->nstmts; i++) {
        const ChunkStmt *s = &c->stmts[i];
        if (s->start <= pc && pc < s->end && (best < 0 || s->end - s->start <= be - bs)) {
            best = i;
            bs = s->start;
            be = s->end;
        }
    }
    *start = bs;
    *end = be;
}

/* Unwinds from the error at pc in the top frame to the nearest routine whose handler can take it.
 * Returns the handler's pc (the top frame is then that routine's), or -1: unhandled, reported. */
static int unwind(Vm *vm, int pc)
{
    const Chunk *c = vm->chunk;
    for (;;) {
        VmFrame *f = &vm->frames[vm->nframes - 1];
        const ChunkRoutine *r = &c->routines[f->routine];
        if (r->handler >= 0 && !f->in_handler) {
            f->in_handler = 1;
            stmt_at(c, pc, &f->retry_pc, &f->skip_pc);
            f->err_code = vm->err_code;
            f->err_pc = vm->err_pc;
            vm->errno_ = vm->err_code;
            return r->handler;
        }
        if (vm->nframes == vm->floor + 1) {
            if (!vm->quiet) report(vm);
            return -1;
        }
        vm->nframes--;
        pc = vm->frames[vm->nframes - 1].ret_pc - 1; /* the caller's CALL failed */
    }
}

/* Raises code at pc (a new error: its location `where` is remembered, pc itself unless the motion door named the
 * statement whose motion failed) and unwinds from pc; the handler's pc or -1. */
static int raise_at(Vm *vm, int code, int pc, int where, const char *msg)
{
    set_error(vm, code, where, msg);
    return unwind(vm, pc);
}

/* ERRNO: the error of the innermost routine in its handler (a routine called from a handler sees it too),
 * else the last error handled. */
static int64_t current_errno(const Vm *vm)
{
    for (int32_t i = vm->nframes - 1; i >= 0; i--)
        if (vm->frames[i].in_handler) return vm->frames[i].err_code;
    return vm->errno_;
}

/* Is [addr, addr + n) inside the slot stack? */
static inline int addr_ok(int64_t addr, int64_t n) { return addr >= 0 && n >= 0 && addr <= VM_STACK_SLOTS - n; }

static int run_loop(Vm *vm, int routine, int64_t base0);

/* Runs the main program (routine 0): alone, or with its tasks and interrupts under the scheduler. */
int vm_run(Vm *vm)
{
    vm->nframes = 0;
    vm->floor = 0;
    if (tasks_needed(vm->chunk)) return tasks_run(vm);
    return vm_exec(vm, 0, 0, NULL);
}

int vm_exec(Vm *vm, int routine, int64_t base, Value *result)
{
    int32_t floor = vm->floor, n0 = vm->nframes;
    if (n0 >= VM_MAX_FRAMES) return VM_ENOMEM;
    vm->floor = n0;
    int st = run_loop(vm, routine, base);
    if (st == VM_OK && result) *result = vm->stack[base];
    vm->floor = floor;
    vm->nframes = n0;
    return st;
}

/* Runs routine in a frame at base (index vm->floor) until that frame returns. */
VM_LOOP_ATTR static int run_loop(Vm *vm, int routine, int64_t base0)
{
    const Chunk *c = vm->chunk;
    const Instr *code = c->code;
    const int64_t *ki = c->kint;
    const double *kr = c->kreal;
    Value *stack = vm->stack;
    if (routine < 0 || routine >= c->nroutines || base0 < 0 || base0 + c->routines[routine].frame_size > vm->stack_end)
        return VM_ENOMEM;
    int32_t floor = vm->floor;
    vm->nframes = floor + 1;
    vm->frames[floor] = (VmFrame){.routine = routine, .base = (int32_t)base0, .ret_pc = -1};
    Value *base = stack + base0;
    const Instr *pc = code + c->routines[routine].entry;
    Instr ins;
    char msg[VM_MSG_LEN];
    int ecode = 0, blame = -1; /* blame: the pc an error from the motion door belongs to (-1: the executing one) */

#define RA (base[INSTR_A(ins)])
#define RB (base[INSTR_B(ins)])
#define RC (base[INSTR_C(ins)])
#define PCIDX ((int)(pc - code) - 1) /* index of the executing instruction */
#define RAISE_ERR(code_, ...)                              \
    do {                                                   \
        ecode = (code_);                                   \
        snprintf(msg, sizeof msg, __VA_ARGS__);            \
        goto on_error;                                     \
    } while (0)
#define TAKE_JUMP_IF(cond)                                 \
    do {                                                   \
        if (cond) pc += 1 + INSTR_SBX(*pc);                \
        else pc++;                                         \
    } while (0)

#ifdef VM_COMPUTED_GOTO
    static const void *const labels[OP_COUNT] = {
#define X(name, ka, kb, kc, flags, doc) &&L_##name,
        IRL_OPCODES(X)
#undef X
    };
    static const void *const trace_labels[OP_COUNT] = {
#define X(name, ka, kb, kc, flags, doc) &&L_trace,
        IRL_OPCODES(X)
#undef X
    };
    const void *const *disp = vm->trace ? trace_labels : labels;
#define DISPATCH() do { ins = *pc++; goto *disp[INSTR_OP(ins)]; } while (0)
#define CASE(name) L_##name:
#define NEXT DISPATCH()
    DISPATCH();
L_trace:
    vm->trace(vm->trace_ctx, c, PCIDX, base);
    goto *labels[INSTR_OP(ins)];
#else
#define CASE(name) case OP_##name:
#define NEXT goto dispatch
dispatch:
    ins = *pc++;
    if (UNLIKELY(vm->trace != NULL)) vm->trace(vm->trace_ctx, c, PCIDX, base);
    switch ((OpCode)INSTR_OP(ins)) {
#endif

    CASE(NOP) NEXT;
    CASE(MOV) RA = RB; NEXT;
    CASE(MOVN) memmove(&RA, &RB, INSTR_C(ins) * sizeof(Value)); NEXT;
    CASE(LOADI) RA.i = INSTR_SBX(ins); NEXT;
    CASE(LOADKI) RA.i = ki[INSTR_BX(ins)]; NEXT;
    CASE(LOADKR) RA.r = kr[INSTR_BX(ins)]; NEXT;
    CASE(LOADKS) RA.i = INSTR_BX(ins); NEXT;
    CASE(ZERO) memset(&RA, 0, INSTR_B(ins) * sizeof(Value)); NEXT;
    CASE(IDQ) {
        Value *q = &RA;
        q[0].r = 1.0, q[1].r = 0.0, q[2].r = 0.0, q[3].r = 0.0;
        NEXT;
    }
    CASE(GETG) RA = stack[INSTR_BX(ins)]; NEXT;
    CASE(SETG) stack[INSTR_BX(ins)] = RA; NEXT;
    CASE(GADDR) RA.i = INSTR_BX(ins); NEXT;
    CASE(LADDR) RA.i = (base - stack) + INSTR_B(ins); NEXT;
    /* address arithmetic wraps (no UB on a forged value); every use of the address is bounds-checked */
    CASE(OFFS) RA.i = (int64_t)((uint64_t)RB.i + INSTR_C(ins)); NEXT;
    CASE(CHKIDX) {
        int64_t i = RA.i;
        if (UNLIKELY(i < 1 || i > (int64_t)INSTR_BX(ins)))
            RAISE_ERR(IRL_ERR_INDEX, "index %lld out of range 1..%u", (long long)i, (unsigned)INSTR_BX(ins));
        NEXT;
    }
    CASE(INDEX) RA.i = (int64_t)((uint64_t)RA.i + ((uint64_t)RB.i - 1) * INSTR_C(ins)); NEXT;
    CASE(JINDEX) {
        int64_t a = RA.i, i = RB.i;
        if (UNLIKELY(!addr_ok(a, 1 + 12))) RAISE_ERR(IRL_ERR_INDEX, "invalid JOINT reference");
        int64_t n = stack[a].i;
        if (UNLIKELY(i < 1 || i > n || i > 12))
            RAISE_ERR(IRL_ERR_INDEX, "axis %lld out of range 1..%lld of the JOINT", (long long)i, (long long)n);
        RA.i = a + i;
        NEXT;
    }
    CASE(LOADR) {
        int64_t a = RB.i;
        unsigned n = INSTR_C(ins);
        if (UNLIKELY(!addr_ok(a, n))) RAISE_ERR(IRL_ERR_INDEX, "invalid reference");
        memmove(&RA, &stack[a], n * sizeof(Value));
        NEXT;
    }
    CASE(STORER) {
        int64_t a = RA.i;
        unsigned n = INSTR_C(ins);
        if (UNLIKELY(!addr_ok(a, n))) RAISE_ERR(IRL_ERR_INDEX, "invalid reference");
        memmove(&stack[a], &RB, n * sizeof(Value));
        NEXT;
    }
    CASE(ADDI) if (UNLIKELY(__builtin_add_overflow(RB.i, RC.i, &RA.i))) goto int_overflow; NEXT;
    CASE(SUBI) if (UNLIKELY(__builtin_sub_overflow(RB.i, RC.i, &RA.i))) goto int_overflow; NEXT;
    CASE(MULI) if (UNLIKELY(__builtin_mul_overflow(RB.i, RC.i, &RA.i))) goto int_overflow; NEXT;
    CASE(DIVI) {
        int64_t b = RB.i, d = RC.i;
        if (UNLIKELY(d == 0)) goto div_zero;
        if (UNLIKELY(d == -1 && b == INT64_MIN)) goto int_overflow;
        RA.i = b / d;
        NEXT;
    }
    CASE(MODI) {
        int64_t b = RB.i, d = RC.i;
        if (UNLIKELY(d == 0)) goto div_zero;
        RA.i = d == -1 ? 0 : b % d;
        NEXT;
    }
    CASE(ADDII) if (UNLIKELY(__builtin_add_overflow(RB.i, (int64_t)INSTR_SC(ins), &RA.i))) goto int_overflow; NEXT;
    CASE(NEGI) if (UNLIKELY(__builtin_sub_overflow((int64_t)0, RB.i, &RA.i))) goto int_overflow; NEXT;
    CASE(ADDR) RA.r = RB.r + RC.r; NEXT;
    CASE(SUBR) RA.r = RB.r - RC.r; NEXT;
    CASE(MULR) RA.r = RB.r * RC.r; NEXT;
    CASE(DIVR) {
        double d = RC.r;
        if (UNLIKELY(d == 0.0)) goto div_zero;
        RA.r = RB.r / d;
        NEXT;
    }
    CASE(ADDRK) RA.r = RB.r + kr[INSTR_C(ins)]; NEXT;
    CASE(SUBRK) RA.r = RB.r - kr[INSTR_C(ins)]; NEXT;
    CASE(MULRK) RA.r = RB.r * kr[INSTR_C(ins)]; NEXT;
    CASE(DIVRK) {
        double d = kr[INSTR_C(ins)];
        if (UNLIKELY(d == 0.0)) goto div_zero;
        RA.r = RB.r / d;
        NEXT;
    }
    CASE(SUBKR) RA.r = kr[INSTR_C(ins)] - RB.r; NEXT;
    CASE(DIVKR) {
        double d = RB.r;
        if (UNLIKELY(d == 0.0)) goto div_zero;
        RA.r = kr[INSTR_C(ins)] / d;
        NEXT;
    }
    CASE(NEGR) RA.r = -RB.r; NEXT;
    CASE(ITOR) RA.r = (double)RB.i; NEXT;
    CASE(MULIRK) RA.r = (double)RB.i * kr[INSTR_C(ins)]; NEXT;
    CASE(NOTB) RA.i = RB.i == 0; NEXT;
    CASE(EQI) RA.i = RB.i == RC.i; NEXT;
    CASE(NEI) RA.i = RB.i != RC.i; NEXT;
    CASE(LTI) RA.i = RB.i < RC.i; NEXT;
    CASE(LEI) RA.i = RB.i <= RC.i; NEXT;
    CASE(EQR) RA.i = RB.r == RC.r; NEXT;
    CASE(NER) RA.i = RB.r != RC.r; NEXT;
    CASE(LTR) RA.i = RB.r < RC.r; NEXT;
    CASE(LER) RA.i = RB.r <= RC.r; NEXT;
    CASE(EQS) CASE(NES) {
        int64_t a = RB.i, b = RC.i;
        if (UNLIKELY(a < 0 || a >= c->nkstr || b < 0 || b >= c->nkstr)) goto bad_string;
        int eq = a == b || (c->kstr[a].len == c->kstr[b].len &&
                            memcmp(c->kstr[a].text, c->kstr[b].text, (size_t)c->kstr[a].len) == 0);
        RA.i = INSTR_OP(ins) == OP_EQS ? eq : !eq;
        NEXT;
    }
    CASE(TEST) TAKE_JUMP_IF((RA.i != 0) == (int)INSTR_C(ins)); NEXT;
    CASE(TEQI) TAKE_JUMP_IF((RA.i == RB.i) == (int)INSTR_C(ins)); NEXT;
    CASE(TLTI) TAKE_JUMP_IF((RA.i < RB.i) == (int)INSTR_C(ins)); NEXT;
    CASE(TLEI) TAKE_JUMP_IF((RA.i <= RB.i) == (int)INSTR_C(ins)); NEXT;
    CASE(TEQII) TAKE_JUMP_IF((RA.i == INSTR_SB(ins)) == (int)INSTR_C(ins)); NEXT;
    CASE(TLTII) TAKE_JUMP_IF((RA.i < INSTR_SB(ins)) == (int)INSTR_C(ins)); NEXT;
    CASE(TLEII) TAKE_JUMP_IF((RA.i <= INSTR_SB(ins)) == (int)INSTR_C(ins)); NEXT;
    CASE(TGTII) TAKE_JUMP_IF((RA.i > INSTR_SB(ins)) == (int)INSTR_C(ins)); NEXT;
    CASE(TGEII) TAKE_JUMP_IF((RA.i >= INSTR_SB(ins)) == (int)INSTR_C(ins)); NEXT;
    CASE(TEQR) TAKE_JUMP_IF((RA.r == RB.r) == (int)INSTR_C(ins)); NEXT;
    CASE(TLTR) TAKE_JUMP_IF((RA.r < RB.r) == (int)INSTR_C(ins)); NEXT;
    CASE(TLER) TAKE_JUMP_IF((RA.r <= RB.r) == (int)INSTR_C(ins)); NEXT;
    CASE(JMP) pc += INSTR_SBX(ins); NEXT;
    CASE(FORPREP) {
        const Value *lim = &RB;
        int64_t i = RA.i, limit = lim[0].i, step = lim[1].i;
        if (UNLIKELY(step == 0)) RAISE_ERR(IRL_ERR_MATH, "FOR step (BY) is zero");
        TAKE_JUMP_IF(step > 0 ? i > limit : i < limit); /* jump out: runs zero times */
        NEXT;
    }
    CASE(FORLOOP) {
        const Value *lim = &RB;
        int64_t n, limit = lim[0].i, step = lim[1].i;
        if (LIKELY(!__builtin_add_overflow(RA.i, step, &n)) && (step > 0 ? n <= limit : n >= limit)) {
            RA.i = n;
            pc += INSTR_SC(ins);
        }
        NEXT;
    }
    CASE(CALL) {
        const ChunkRoutine *r = &c->routines[INSTR_B(ins)];
        int64_t nb = (base - stack) + INSTR_A(ins);
        if (UNLIKELY(vm->nframes >= VM_MAX_FRAMES || nb + r->frame_size > vm->stack_end)) {
            ecode = IRL_ERR_STACK;
            snprintf(msg, sizeof msg, "call depth limit reached (runaway recursion) calling %s", c->kstr[r->name].text);
            goto on_error;
        }
        vm->frames[vm->nframes - 1].ret_pc = (int32_t)(pc - code);
        VmFrame *f = &vm->frames[vm->nframes++];
        f->routine = (int32_t)INSTR_B(ins);
        f->base = (int32_t)nb;
        f->in_handler = 0;
        base = stack + nb;
        pc = code + r->entry;
        NEXT;
    }
    CASE(RET) {
        unsigned n = INSTR_B(ins);
        if (LIKELY(n == 1)) base[0] = RA;
        else if (n) memmove(base, &RA, n * sizeof(Value));
        if (vm->nframes == floor + 1) goto done; /* the frame this run started */
        vm->nframes--;
        VmFrame *f = &vm->frames[vm->nframes - 1];
        base = stack + f->base;
        pc = code + f->ret_pc;
        NEXT;
    }
    CASE(BUILTIN) {
        if (LIKELY(INSTR_B(ins) == VB_SIN || INSTR_B(ins) == VB_COS)) { /* hot: no call through the table */
            double a = RA.r, r = INSTR_B(ins) == VB_SIN ? dm_sin(a) : dm_cos(a);
            if (LIKELY(isfinite(r) || !isfinite(a))) {
                RA.r = r;
                NEXT;
            }
        }
        int e = builtin_call(INSTR_B(ins), &RA, INSTR_C(ins), msg, sizeof msg);
        if (UNLIKELY(e)) {
            ecode = e;
            goto on_error;
        }
        NEXT;
    }
    CASE(HALT) vm->halted = 1; goto done;
    CASE(PRINTI) print_int(vm->out, RA.i); NEXT;
    CASE(PRINTR) print_real(vm->out, RA.r); NEXT;
    CASE(PRINTB) print_bool(vm->out, RA.i); NEXT;
    CASE(PRINTS) {
        int64_t s = RA.i;
        if (UNLIKELY(s < 0 || s >= c->nkstr)) goto bad_string;
        fwrite(c->kstr[s].text, 1, (size_t)c->kstr[s].len, vm->out);
        NEXT;
    }
    CASE(PRINTK) fwrite(c->kstr[INSTR_BX(ins)].text, 1, (size_t)c->kstr[INSTR_BX(ins)].len, vm->out); NEXT;
    CASE(PRINTPOS) print_position(vm->out, &RA); NEXT;
    CASE(PRINTORI) print_orientation(vm->out, &RA); NEXT;
    CASE(PRINTPOSE) print_pose(vm->out, &RA); NEXT;
    CASE(PRINTJ) print_joint(vm->out, &RA); NEXT;
    CASE(PRINTNL) putc('\n', vm->out); NEXT;
    CASE(RAISE) {
        int64_t code_ = RA.i;
        ecode = code_ > 0 && code_ <= 1000000 ? (int)code_ : IRL_ERR_USER;
        msg[0] = '\0';
        goto on_error;
    }
    CASE(RERAISE) {
        VmFrame *f = &vm->frames[vm->nframes - 1];
        if (!f->in_handler) { /* outside a handler (a hand-made .irlc): raise ERRNO afresh */
            ecode = vm->errno_ > 0 ? (int)vm->errno_ : IRL_ERR_USER;
            msg[0] = '\0';
            goto on_error;
        }
        /* the error this handler took, reported where it was first raised; its message survives unless
           another error was raised (and handled) meanwhile */
        if (vm->err_code != f->err_code || vm->err_pc != f->err_pc) set_error(vm, f->err_code, f->err_pc, NULL);
        int at = unwind(vm, PCIDX);
        if (at < 0) return VM_ERROR;
        base = stack + vm->frames[vm->nframes - 1].base;
        pc = code + at;
        NEXT;
    }
    CASE(RETRY) CASE(SKIP) {
        VmFrame *f = &vm->frames[vm->nframes - 1];
        f->in_handler = 0;
        pc = code + (INSTR_OP(ins) == OP_RETRY ? f->retry_pc : f->skip_pc);
        NEXT;
    }
    CASE(ERRNO) RA.i = current_errno(vm); NEXT;
    /* the verifier keeps SYS[B..B+C) inside one variable and SETSYS off read-only ones */
    CASE(GETSYS) memcpy(&RA, &vm->sys[INSTR_B(ins)], INSTR_C(ins) * sizeof(Value)); NEXT;
    CASE(SETSYS) memcpy(&vm->sys[INSTR_B(ins)], &RA, INSTR_C(ins) * sizeof(Value)); NEXT;
    CASE(MOTION) {
        int e = motion_execute(vm->motion, (MotionKind)INSTR_B(ins), &RA, (int)INSTR_C(ins), msg, sizeof msg);
        if (UNLIKELY(vm->halted)) goto done; /* an interrupt's handler ran HALT while the statement waited */
        if (UNLIKELY(e == MOTION_SKIPPED)) { /* an interrupt's handler ran: continue after the statement */
            int32_t s0, s1;
            stmt_at(c, PCIDX, &s0, &s1);
            pc = code + s1;
            NEXT;
        }
        if (UNLIKELY(e < 0)) { /* the run ends here (a time bound, an interrupt): no handler takes it */
            set_error(vm, -e, PCIDX, msg);
            fflush(vm->out);
            return VM_STOPPED;
        }
        if (UNLIKELY(e)) {
            ecode = e;
            blame = motion_error_pc(vm->motion);
            goto on_error;
        }
        NEXT;
    }
    /* tasks and interrupts */
    CASE(START) CASE(ENABLE) CASE(DISABLE) {
        int e = tasks_op(vm, ins, PCIDX, msg, sizeof msg);
        if (UNLIKELY(e)) {
            ecode = e;
            goto on_error;
        }
        NEXT;
    }
#ifndef VM_COMPUTED_GOTO
    default:
        RAISE_ERR(IRL_ERR_USER, "invalid instruction");
    }
#endif

int_overflow:
    ecode = IRL_ERR_MATH;
    snprintf(msg, sizeof msg, "INT result out of range (64 bits)");
    goto on_error;
div_zero:
    ecode = IRL_ERR_DIV_ZERO;
    msg[0] = '\0';
    goto on_error;
bad_string:
    ecode = IRL_ERR_INDEX;
    snprintf(msg, sizeof msg, "invalid STRING value");
    goto on_error;
on_error: {
    int at = raise_at(vm, ecode, PCIDX, blame >= 0 ? blame : PCIDX, msg);
    blame = -1;
    if (at < 0) return VM_ERROR;
    base = stack + vm->frames[vm->nframes - 1].base;
    pc = code + at;
    NEXT;
}
done:
    fflush(vm->out);
    return VM_OK;
}
