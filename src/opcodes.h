/* opcodes.h — the irl virtual machine's instruction set: one X-macro list feeding the enum, the name and
 * operand-kind tables, the VM's dispatch (runtime/vm/vm.c), the verifier (src/verify.c) and the disassembler.
 *
 * A register machine. Every instruction is 64 bits:
 *
 *   63          48 47          32 31          16 15           0
 *   +-------------+--------------+--------------+--------------+
 *   |      C      |      B       |      A       |      op      |   iABC   A, B, C unsigned 16-bit
 *   +-------------+--------------+--------------+--------------+
 *   |             Bx             |      A       |      op      |   iABx   Bx unsigned 32-bit (sBx signed)
 *   +----------------------------+--------------+--------------+
 *
 * Storage: one array of 8-byte slots (Value: int64 or double). R[n] is slot n of the current frame (frame base
 * + n); the main program's frame starts at slot 0 and its first `nglobals` slots are the program-level VARs, so
 * G[n] (a global, absolute slot n) is R[n] in the main program. S[a] is the slot at absolute address a: VAR
 * parameters and computed addresses (indexing) hold absolute slot numbers as INT values, never pointers, and
 * every access through one is bounds-checked by the VM. A STRING slot holds an index into the STRING constant
 * pool (index 0 is always ""), checked where it is used. BOOL is an INT 0 or 1.
 *
 * Notation: R[A] register, .i/.r INT/REAL view, KI[x] KR[x] KS[x] the INT/REAL/STRING constant pools,
 * sB/sC signed 16-bit, sBx signed 32-bit, R[A..A+n) a run of n registers. "pc" is already advanced past the
 * instruction when a jump offset is added (jump target = pc of the instruction + 1 + sBx).
 *
 * Test instructions (flag OPF_TEST) are always followed by a JMP: when their condition holds the VM takes that
 * jump, otherwise it skips it (Lua's "test, then jump" pair, executed in one dispatch). FORLOOP, which closes
 * every pass of a loop, carries its own backward offset in sC instead (a body longer than sC reaches gets a
 * forward sC onto a JMP back, see codegen.c's stmt_for).
 *
 * Operand kinds (OPK_*) say what each field means so the verifier can check it against the chunk and the
 * routine it belongs to: registers < frame size, register runs A..A+count within the frame, constant indices
 * < pool size, jump targets (JMP, FORLOOP) inside the same routine and onto an instruction that is not the JMP of
 * a test pair,
 * routine / built-in / motion ids < their table sizes, system-variable slots inside one variable, globals <
 * nglobals. */
#ifndef IRL_OPCODES_H
#define IRL_OPCODES_H

#include <stdint.h>

typedef uint64_t Instr;

/* What an operand field holds. OPK_WIDE marks C when B and C together form Bx (the kind is then B's). */
typedef enum {
    OPK_NONE,    /* unused: must be 0 */
    OPK_REG,     /* one frame register */
    OPK_RUN,     /* first register of a run; its length is the op's count operand (OPK_COUNT) or table */
    OPK_COUNT,   /* a number of slots (of the OPK_RUN operand(s) of the same instruction) */
    OPK_GLOBAL,  /* absolute slot of a global, < nglobals (run length: the op's OPK_COUNT, else 1) */
    OPK_KINT,    /* index into the INT constant pool */
    OPK_KREAL,   /* index into the REAL constant pool */
    OPK_KSTR,    /* index into the STRING constant pool */
    OPK_JUMP,    /* signed jump offset: sBx (JMP, wide) or sC (FORLOOP) */
    OPK_SIMM,    /* signed immediate (sB, sC, or sBx when wide) */
    OPK_UIMM,    /* unsigned immediate (a length, an offset, a bound) */
    OPK_BOOL,    /* 0 or 1 */
    OPK_ROUTINE, /* index into the routine table */
    OPK_BUILTIN, /* VmBuiltin id (IRL_VM_BUILTINS below) */
    OPK_SYSSLOT, /* slot offset in the system-variable block (SVO_* below); the run (OPK_COUNT) stays inside
                    one variable */
    OPK_MOTION,  /* MotionKind (IRL_MOTION_KINDS below) */
    OPK_WIDE,    /* this field is the high half of Bx */
} OpndKind;

/* Flags. */
enum {
    OPF_TEST = 1,  /* followed by a JMP that it takes or skips */
    OPF_END = 2,   /* control never falls through to the next instruction (JMP, RET, HALT, RERAISE, ...) */
    OPF_CHECK = 4, /* may raise a run-time error (the line table locates it) */
};

/* X(NAME, kind of A, kind of B, kind of C, flags, "semantics") */
#define IRL_OPCODES(X)                                                                                         \
    X(NOP, OPK_NONE, OPK_NONE, OPK_NONE, 0, "nothing")                                                         \
    /* moves and constants */                                                                                  \
    X(MOV, OPK_REG, OPK_REG, OPK_NONE, 0, "R[A] := R[B]")                                                      \
    X(MOVN, OPK_RUN, OPK_RUN, OPK_COUNT, 0, "R[A..A+C) := R[B..B+C) (memmove)")                                \
    X(LOADI, OPK_REG, OPK_SIMM, OPK_WIDE, 0, "R[A].i := sBx")                                                  \
    X(LOADKI, OPK_REG, OPK_KINT, OPK_WIDE, 0, "R[A].i := KI[Bx]")                                              \
    X(LOADKR, OPK_REG, OPK_KREAL, OPK_WIDE, 0, "R[A].r := KR[Bx]")                                             \
    X(LOADKS, OPK_REG, OPK_KSTR, OPK_WIDE, 0, "R[A].i := Bx (the STRING KS[Bx])")                              \
    X(ZERO, OPK_RUN, OPK_COUNT, OPK_NONE, 0, "R[A..A+B) := 0")                                                 \
    X(IDQ, OPK_RUN, OPK_NONE, OPK_NONE, 0, "R[A..A+4) := 1, 0, 0, 0 (identity quaternion; run of 4)")         \
    X(GETG, OPK_REG, OPK_GLOBAL, OPK_WIDE, 0, "R[A] := G[Bx]")                                                 \
    X(SETG, OPK_REG, OPK_GLOBAL, OPK_WIDE, 0, "G[Bx] := R[A]")                                                 \
    /* addresses (absolute slot numbers held as INT) and access through them */                               \
    X(GADDR, OPK_REG, OPK_GLOBAL, OPK_WIDE, 0, "R[A].i := Bx (address of global Bx)")                          \
    X(LADDR, OPK_REG, OPK_REG, OPK_NONE, 0, "R[A].i := base + B (address of register B)")                      \
    X(OFFS, OPK_REG, OPK_REG, OPK_UIMM, 0, "R[A].i := R[B].i + C")                                             \
    X(CHKIDX, OPK_REG, OPK_UIMM, OPK_WIDE, OPF_CHECK, "if R[A].i < 1 or R[A].i > Bx: raise ERR_INDEX")         \
    X(INDEX, OPK_REG, OPK_REG, OPK_UIMM, 0, "R[A].i := R[A].i + (R[B].i - 1) * C (after CHKIDX)")              \
    X(JINDEX, OPK_REG, OPK_REG, OPK_NONE, OPF_CHECK,                                                           \
      "n := S[R[A].i].i (JOINT count); if R[B].i < 1 or > n: raise ERR_INDEX; R[A].i := R[A].i + R[B].i")      \
    X(LOADR, OPK_RUN, OPK_REG, OPK_COUNT, OPF_CHECK, "R[A..A+C) := S[R[B].i .. R[B].i+C) (checked)")           \
    X(STORER, OPK_REG, OPK_RUN, OPK_COUNT, OPF_CHECK, "S[R[A].i .. R[A].i+C) := R[B..B+C) (checked)")          \
    /* INT arithmetic (overflow raises ERR_MATH) */                                                            \
    X(ADDI, OPK_REG, OPK_REG, OPK_REG, OPF_CHECK, "R[A].i := R[B].i + R[C].i")                                 \
    X(SUBI, OPK_REG, OPK_REG, OPK_REG, OPF_CHECK, "R[A].i := R[B].i - R[C].i")                                 \
    X(MULI, OPK_REG, OPK_REG, OPK_REG, OPF_CHECK, "R[A].i := R[B].i * R[C].i")                                 \
    X(DIVI, OPK_REG, OPK_REG, OPK_REG, OPF_CHECK, "R[A].i := R[B].i DIV R[C].i (truncates; 0: ERR_DIV_ZERO)")  \
    X(MODI, OPK_REG, OPK_REG, OPK_REG, OPF_CHECK, "R[A].i := R[B].i MOD R[C].i (sign of B; 0: ERR_DIV_ZERO)")  \
    X(ADDII, OPK_REG, OPK_REG, OPK_SIMM, OPF_CHECK, "R[A].i := R[B].i + sC")                                   \
    X(NEGI, OPK_REG, OPK_REG, OPK_NONE, OPF_CHECK, "R[A].i := -R[B].i")                                        \
    /* REAL arithmetic */                                                                                      \
    X(ADDR, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].r := R[B].r + R[C].r")                                         \
    X(SUBR, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].r := R[B].r - R[C].r")                                         \
    X(MULR, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].r := R[B].r * R[C].r")                                         \
    X(DIVR, OPK_REG, OPK_REG, OPK_REG, OPF_CHECK, "R[A].r := R[B].r / R[C].r (0: ERR_DIV_ZERO)")               \
    X(ADDRK, OPK_REG, OPK_REG, OPK_KREAL, 0, "R[A].r := R[B].r + KR[C]")                                       \
    X(SUBRK, OPK_REG, OPK_REG, OPK_KREAL, 0, "R[A].r := R[B].r - KR[C]")                                       \
    X(MULRK, OPK_REG, OPK_REG, OPK_KREAL, 0, "R[A].r := R[B].r * KR[C]")                                       \
    X(DIVRK, OPK_REG, OPK_REG, OPK_KREAL, OPF_CHECK, "R[A].r := R[B].r / KR[C] (0: ERR_DIV_ZERO)")             \
    X(SUBKR, OPK_REG, OPK_REG, OPK_KREAL, 0, "R[A].r := KR[C] - R[B].r")                                       \
    X(DIVKR, OPK_REG, OPK_REG, OPK_KREAL, OPF_CHECK, "R[A].r := KR[C] / R[B].r (0: ERR_DIV_ZERO)")             \
    X(NEGR, OPK_REG, OPK_REG, OPK_NONE, 0, "R[A].r := -R[B].r")                                                \
    X(ITOR, OPK_REG, OPK_REG, OPK_NONE, 0, "R[A].r := (REAL) R[B].i")                                          \
    X(MULIRK, OPK_REG, OPK_REG, OPK_KREAL, 0, "R[A].r := (REAL) R[B].i * KR[C]")                               \
    X(NOTB, OPK_REG, OPK_REG, OPK_NONE, 0, "R[A].i := R[B].i == 0 (BOOL NOT)")                                           \
    /* comparisons giving BOOL (> and >= swap the operands) */                                                 \
    X(EQI, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].i := R[B].i == R[C].i (INT, BOOL)")                             \
    X(NEI, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].i := R[B].i != R[C].i")                                         \
    X(LTI, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].i := R[B].i < R[C].i")                                          \
    X(LEI, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].i := R[B].i <= R[C].i")                                         \
    X(EQR, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].i := R[B].r == R[C].r")                                         \
    X(NER, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].i := R[B].r != R[C].r")                                         \
    X(LTR, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].i := R[B].r < R[C].r")                                          \
    X(LER, OPK_REG, OPK_REG, OPK_REG, 0, "R[A].i := R[B].r <= R[C].r")                                         \
    X(EQS, OPK_REG, OPK_REG, OPK_REG, OPF_CHECK, "R[A].i := KS[R[B].i] == KS[R[C].i] (checked ids)")           \
    X(NES, OPK_REG, OPK_REG, OPK_REG, OPF_CHECK, "R[A].i := KS[R[B].i] != KS[R[C].i] (checked ids)")           \
    /* test-and-jump pairs: if (cond) == C take the next JMP, else skip it */                                  \
    X(TEST, OPK_REG, OPK_NONE, OPK_BOOL, OPF_TEST, "if (R[A].i != 0) == C: jump")                              \
    X(TEQI, OPK_REG, OPK_REG, OPK_BOOL, OPF_TEST, "if (R[A].i == R[B].i) == C: jump")                          \
    X(TLTI, OPK_REG, OPK_REG, OPK_BOOL, OPF_TEST, "if (R[A].i < R[B].i) == C: jump")                           \
    X(TLEI, OPK_REG, OPK_REG, OPK_BOOL, OPF_TEST, "if (R[A].i <= R[B].i) == C: jump")                          \
    X(TEQII, OPK_REG, OPK_SIMM, OPK_BOOL, OPF_TEST, "if (R[A].i == sB) == C: jump")                            \
    X(TLTII, OPK_REG, OPK_SIMM, OPK_BOOL, OPF_TEST, "if (R[A].i < sB) == C: jump")                             \
    X(TLEII, OPK_REG, OPK_SIMM, OPK_BOOL, OPF_TEST, "if (R[A].i <= sB) == C: jump")                            \
    X(TGTII, OPK_REG, OPK_SIMM, OPK_BOOL, OPF_TEST, "if (R[A].i > sB) == C: jump")                             \
    X(TGEII, OPK_REG, OPK_SIMM, OPK_BOOL, OPF_TEST, "if (R[A].i >= sB) == C: jump")                            \
    X(TEQR, OPK_REG, OPK_REG, OPK_BOOL, OPF_TEST, "if (R[A].r == R[B].r) == C: jump")                          \
    X(TLTR, OPK_REG, OPK_REG, OPK_BOOL, OPF_TEST, "if (R[A].r < R[B].r) == C: jump")                           \
    X(TLER, OPK_REG, OPK_REG, OPK_BOOL, OPF_TEST, "if (R[A].r <= R[B].r) == C: jump")                          \
    /* control */                                                                                              \
    X(JMP, OPK_NONE, OPK_JUMP, OPK_WIDE, OPF_END, "pc += sBx")                                                 \
    X(FORPREP, OPK_REG, OPK_RUN, OPK_NONE, OPF_TEST | OPF_CHECK,                                               \
      "FOR counter R[A], limit R[B], step R[B+1]: step 0 raises ERR_MATH; jump (out) if the loop runs 0 times") \
    X(FORLOOP, OPK_REG, OPK_RUN, OPK_JUMP, 0,                                                                  \
      "n := R[A].i + R[B+1].i; if n within the limit R[B].i (no overflow): R[A].i := n, pc += sC")             \
    X(CALL, OPK_RUN, OPK_ROUTINE, OPK_NONE, OPF_CHECK,                                                         \
      "call routine B with a new frame at R[A] (arguments already there); the result comes back in R[A..)")    \
    X(RET, OPK_RUN, OPK_COUNT, OPK_NONE, OPF_END, "return R[A..A+B) to the caller (into the frame's first B slots)") \
    X(BUILTIN, OPK_RUN, OPK_BUILTIN, OPK_COUNT, OPF_CHECK,                                                     \
      "R[A..A+result) := builtin B of the C argument slots R[A..A+C)")                                         \
    X(HALT, OPK_NONE, OPK_NONE, OPK_NONE, OPF_END, "stop the program (exit status 0)")                         \
    /* PRINT pieces (the codegen writes separators and the final newline) */                                   \
    X(PRINTI, OPK_REG, OPK_NONE, OPK_NONE, 0, "print R[A].i in decimal")                                       \
    X(PRINTR, OPK_REG, OPK_NONE, OPK_NONE, 0, "print R[A].r, shortest round-trip form")                        \
    X(PRINTB, OPK_REG, OPK_NONE, OPK_NONE, 0, "print TRUE or FALSE")                                           \
    X(PRINTS, OPK_REG, OPK_NONE, OPK_NONE, OPF_CHECK, "print the STRING KS[R[A].i] (checked id)")              \
    X(PRINTK, OPK_NONE, OPK_KSTR, OPK_WIDE, 0, "print KS[Bx] (separators, record field names)")                \
    X(PRINTPOS, OPK_RUN, OPK_NONE, OPK_NONE, 0, "print POS(x, y, z) from R[A..A+3)")                           \
    X(PRINTORI, OPK_RUN, OPK_NONE, OPK_NONE, 0, "print ORIQUAT(w, x, y, z) from R[A..A+4)")                    \
    X(PRINTPOSE, OPK_RUN, OPK_NONE, OPK_NONE, 0, "print POSE(POS(...), ORIQUAT(...)) from R[A..A+7)")          \
    X(PRINTJ, OPK_RUN, OPK_NONE, OPK_NONE, 0, "print JOINT(a, b, ...) from R[A..A+13) (count clamped to 12)")  \
    X(PRINTNL, OPK_NONE, OPK_NONE, OPK_NONE, 0, "print a newline")                                             \
    /* errors */                                                                                               \
    X(RAISE, OPK_REG, OPK_NONE, OPK_NONE, OPF_END | OPF_CHECK, "raise the error code R[A].i")                  \
    X(RERAISE, OPK_NONE, OPK_NONE, OPK_NONE, OPF_END | OPF_CHECK,                                              \
      "in a handler: raise the error being handled again, in the caller")                                      \
    X(RETRY, OPK_NONE, OPK_NONE, OPK_NONE, OPF_END, "in a handler: resume at the start of the failed statement") \
    X(SKIP, OPK_NONE, OPK_NONE, OPK_NONE, OPF_END, "in a handler: resume after the failed statement")          \
    X(ERRNO, OPK_REG, OPK_NONE, OPK_NONE, 0, "R[A].i := the code of the error last handled (0: none)")         \
    /* system variables and the motion door */                                                                 \
    X(GETSYS, OPK_RUN, OPK_SYSSLOT, OPK_COUNT, 0, "R[A..A+C) := SYS[B..B+C) (a system variable or part of it)") \
    X(SETSYS, OPK_RUN, OPK_SYSSLOT, OPK_COUNT, 0, "SYS[B..B+C) := R[A..A+C) (not of a read-only variable)")     \
    X(MOTION, OPK_RUN, OPK_MOTION, OPK_COUNT, OPF_CHECK,                                                       \
      "motion statement of kind B with operands R[A..A+C) (runtime/exec/motion.h)")                            \
    /* tasks and interrupts (runtime/vm/tasks.h) */                                                           \
    X(START, OPK_NONE, OPK_ROUTINE, OPK_NONE, OPF_CHECK,                                                       \
      "start routine B (a TASK: no parameters, no result) beside the others (running already: ERR_TASK)")      \
    X(ENABLE, OPK_UIMM, OPK_ROUTINE, OPK_ROUTINE, OPF_CHECK,                                                   \
      "enable the interrupt whose condition is FUNCTION B, handler PROCEDURE C, priority A")                   \
    X(DISABLE, OPK_NONE, OPK_ROUTINE, OPK_NONE, 0, "disable the interrupt whose condition is FUNCTION B")

typedef enum {
#define X(name, ka, kb, kc, flags, doc) OP_##name,
    IRL_OPCODES(X)
#undef X
    OP_COUNT
} OpCode;

/* Field access. */
#define INSTR_OP(i) ((unsigned)((i) & 0xffffu))
#define INSTR_A(i) ((unsigned)(((i) >> 16) & 0xffffu))
#define INSTR_B(i) ((unsigned)(((i) >> 32) & 0xffffu))
#define INSTR_C(i) ((unsigned)(((i) >> 48) & 0xffffu))
#define INSTR_SB(i) ((int)(int16_t)INSTR_B(i))
#define INSTR_SC(i) ((int)(int16_t)INSTR_C(i))
#define INSTR_BX(i) ((uint32_t)((i) >> 32))
#define INSTR_SBX(i) ((int32_t)INSTR_BX(i))

static inline Instr instr_abc(unsigned op, unsigned a, unsigned b, unsigned c)
{
    return (Instr)(op & 0xffffu) | (Instr)(a & 0xffffu) << 16 | (Instr)(b & 0xffffu) << 32 |
           (Instr)(c & 0xffffu) << 48;
}
static inline Instr instr_abx(unsigned op, unsigned a, uint32_t bx)
{
    return (Instr)(op & 0xffffu) | (Instr)(a & 0xffffu) << 16 | (Instr)bx << 32;
}

/* Per-opcode tables (defined in src/chunk.c). */
typedef struct OpInfo {
    const char *name;    /* "ADDR" */
    unsigned char ka, kb, kc; /* OpndKind of A, B, C */
    unsigned char flags; /* OPF_* */
    const char *doc;     /* the semantics above */
} OpInfo;
extern const OpInfo irl_opinfo[OP_COUNT];

/* ---- Built-ins called by OP_BUILTIN. Arguments are slot runs; a result overwrites R[A..A+result).
 * X(NAME, argument slots (-1: variable, 0..12 for JOINT), result slots, "meaning")
 * For BUILTIN the verifier checks A + max(C, result slots) <= frame size and C == argument slots when fixed. */
#define IRL_VM_BUILTINS(X)                                                                        \
    X(SIN, 1, 1, "sin(a)")                                                                        \
    X(COS, 1, 1, "cos(a)")                                                                        \
    X(TAN, 1, 1, "tan(a)")                                                                        \
    X(ASIN, 1, 1, "asin(a) (|a| > 1: ERR_MATH)")                                                  \
    X(ACOS, 1, 1, "acos(a) (|a| > 1: ERR_MATH)")                                                  \
    X(ATAN, 1, 1, "atan(a)")                                                                      \
    X(ATAN2, 2, 1, "atan2(y, x)")                                                                 \
    X(SQRT, 1, 1, "sqrt(a) (a < 0: ERR_MATH)")                                                    \
    X(ABSI, 1, 1, "|a| INT (overflow: ERR_MATH)")                                                 \
    X(ABSR, 1, 1, "|a| REAL")                                                                     \
    X(MINI, 2, 1, "min INT")                                                                      \
    X(MINR, 2, 1, "min REAL")                                                                     \
    X(MAXI, 2, 1, "max INT")                                                                      \
    X(MAXR, 2, 1, "max REAL")                                                                     \
    X(EXP, 1, 1, "e^a (overflow: ERR_MATH)")                                                      \
    X(LN, 1, 1, "ln a (a <= 0: ERR_MATH)")                                                        \
    X(POW, 2, 1, "a^b (undefined or overflow: ERR_MATH)")                                         \
    X(ROUND, 1, 1, "REAL -> nearest INT, halves away from zero (out of range: ERR_CONVERT)")      \
    X(TRUNC, 1, 1, "REAL -> INT toward zero (out of range: ERR_CONVERT)")                         \
    X(POS, 3, 3, "POSITION(x, y, z)")                                                             \
    X(ORIZYX, 3, 4, "ORIENTATION Rz(a) Ry(b) Rx(c)")                                              \
    X(ORIXYZ, 3, 4, "ORIENTATION Rx(a) Ry(b) Rz(c)")                                              \
    X(ORIQUAT, 4, 4, "normalised quaternion (zero norm: ERR_MATH)")                               \
    X(ORIVANG, 4, 4, "rotation about axis (POSITION, zero: ERR_MATH) by angle")                   \
    X(POSE, 7, 7, "POSE(position, orientation)")                                                  \
    X(JOINT, -1, 13, "JOINT(q1..qn): count n, then the values, the rest 0")                       \
    X(INVO, 4, 4, "inverse ORIENTATION")                                                          \
    X(INVP, 7, 7, "inverse POSE")                                                                 \
    X(COMPOO, 8, 4, "ORIENTATION @ ORIENTATION")                                                  \
    X(COMPPP, 14, 7, "POSE @ POSE")                                                               \
    X(COMPOV, 7, 3, "ORIENTATION @ POSITION: rotate")                                             \
    X(COMPPV, 10, 3, "POSE @ POSITION: transform a point")                                        \
    X(DISTV, 6, 1, "distance between two POSITIONs")                                              \
    X(DISTP, 14, 1, "distance between the positions of two POSEs")

typedef enum {
#define X(name, nargs, nres, doc) VB_##name,
    IRL_VM_BUILTINS(X)
#undef X
    VB_COUNT
} VmBuiltin;

typedef struct VmBuiltinInfo {
    const char *name;
    int nargs, nresult;
} VmBuiltinInfo;
extern const VmBuiltinInfo irl_builtininfo[VB_COUNT];

/* ---- System variables: X(NAME, slots, read-only) — NAME as written after '$' (upper case). */
#define IRL_SYSVARS(X)        \
    X(SPEED, 1, 0)            \
    X(SPEED_ORI, 1, 0)        \
    X(SPEED_PTP, 1, 0)        \
    X(ACC, 1, 0)              \
    X(ACC_PTP, 1, 0)          \
    X(APPROX, 1, 0)           \
    X(APPROX_PTP, 1, 0)       \
    X(TOOL, 7, 0)             \
    X(BASE, 7, 0)             \
    X(TIME, 1, 1)

typedef enum {
#define X(name, nslots, ro) SV_##name,
    IRL_SYSVARS(X)
#undef X
    SV_COUNT
} VmSysvar;

/* Where each system variable lives in the VM's block SYS of SV_SLOTS slots, in IRL_SYSVARS order: SVO_SPEED,
 * SVO_TOOL, ... (the *_LAST names only make the next offset follow). The code generator puts these offsets into
 * GETSYS/SETSYS, so the VM does one load or store. */
enum {
#define X(name, nslots, ro) SVO_##name, SVO_##name##_LAST = SVO_##name + (nslots) - 1,
    IRL_SYSVARS(X)
#undef X
    SV_SLOTS
};

typedef struct VmSysvarInfo {
    const char *name;
    int nslots, readonly;
    int offset; /* SVO_NAME */
} VmSysvarInfo;
extern const VmSysvarInfo irl_sysvarinfo[SV_COUNT];

/* ---- Motion statement kinds for OP_MOTION: X(NAME, "statement as the user wrote it"). */
#define IRL_MOTION_KINDS(X)             \
    X(MOVE_PTP, "MOVE PTP")             \
    X(MOVE_LIN, "MOVE LIN")             \
    X(MOVE_CIRC, "MOVE CIRC")           \
    X(MOVE_INC_PTP, "MOVE_INC PTP")     \
    X(MOVE_INC_LIN, "MOVE_INC LIN")     \
    X(MOVE_INC_CIRC, "MOVE_INC CIRC")   \
    X(GMOVE_TO, "GMOVE TO")             \
    X(GMOVE_HOLD, "GMOVE HOLD")         \
    X(GMOVE_PROFILE, "GMOVE PROFILE")   \
    X(WAIT, "WAIT")                     \
    X(WAIT_FOR, "WAIT FOR")             \
    X(PULSE, "PULSE")                   \
    X(IO_READ, "reading an IO point")   \
    X(IO_WRITE, "setting an IO point")  \
    X(SYNC, "reading $TIME")                  \
    /* trajectories as data: MOVE FOLLOW */   \
    X(MOVE_FOLLOW, "MOVE FOLLOW table")       \
    X(MOVE_FOLLOW_CSV, "MOVE FOLLOW file")    \
    X(MOVE_FOLLOW_FN, "MOVE FOLLOW function") \
    /* tasks, events, interrupts */         \
    X(SIGNAL, "SIGNAL")                     \
    X(WAIT_EVENT, "WAIT on an EVENT")       \
    X(BRAKE, "BRAKE") \
    /* path-triggered I/O and trajectories as data */ \
    X(TRIGGER, "TRIGGER")               \
    X(MOVE_SPLINE, "MOVE SPLINE")

typedef enum {
#define X(name, text) MK_##name,
    IRL_MOTION_KINDS(X)
#undef X
    MK_COUNT
} MotionKind;
extern const char *const irl_motion_names[MK_COUNT];

/* ---- Operand run of OP_MOTION (runtime/exec/motion.h decodes it).
 * IO_READ: R[A] = the IO point's index (ChunkIo); the door writes the value read into R[A].
 * IO_WRITE: R[A] = IO index, R[A+1] = the value.   SYNC: R[A] = the MOTION instruction's pc (stops look-ahead).
 * Every other kind (the statements: MOVE, MOVE_INC, GMOVE, WAIT, WAIT FOR, PULSE) starts with a header:
 *   R[A]   INT pc of this MOTION instruction (its file:line:col, from the chunk's line table)
 *   R[A+1] INT device index (ChunkDevice; -1: the program's only device); PULSE: the IO index;
 *          WAIT FOR: state (-1 on entry; the door keeps the start time there as a REAL)
 *   R[A+2] INT shape: MOVE: MOTION_OPND_* of the target | that of the via << 4; GMOVE PROFILE: table rows;
 *          WAIT FOR: 1 when a TIMEOUT is given
 *   R[A+3] INT mask of the WITH parameters given (bit = IRL_MOTION_PARAMS id)
 *   then one REAL slot per given WITH parameter in id order, then the operands: MOVE target [via];
 *   GMOVE TO g / HOLD t / PROFILE the table's rows (t, G); WAIT t; WAIT FOR cond [timeout]; PULSE t.
 * WAIT FOR is compiled as a loop: the door writes 1 into the cond slot when the wait is over, 0 after one cycle
 * (the code then re-evaluates the condition and calls again).
 * MOVE FOLLOW table: shape = rows, operands the rows (t, JOINT: 14 slots each). MOVE FOLLOW file: the STRING.
 * MOVE FOLLOW f FOR T: shape = n axes, operands T, t, state, then f's result (q, q̇, q̈: 3n slots); compiled as a
 * loop like WAIT FOR: state -1 on entry; the door writes t and state 1 (the code calls f(t) into the result and
 * calls the door again) or state 0 (done).
 * SIGNAL: the header only (the code then adds one to the EVENT's slot).   BRAKE: the header (device in R[A+1]).
 * WAIT_EVENT: header (R[A+1] state as for WAIT FOR, R[A+2] 1 when a TIMEOUT is given), then the EVENT's count
 * (reloaded before each call; the door writes 1 there when the wait is over, 0 after one cycle), the EVENT's
 * name (STRING), the timeout [s]; the code then takes one from the EVENT's slot.
 * MOVE SPLINE: shape = MOTION_OPND_* of its points | their count << 8; the operands are the points in order.
 * TRIGGER: shape = MOTION_TRIGGER_* bits; no WITH; operands: REAL d (m, or a fraction), REAL DELAY (s), INT the
 *   target (an IO index, or the absolute slot of a program-level variable), then the value (one slot). */
#define MOTION_HDR 4
enum { MOTION_OPND_NONE = 0, MOTION_OPND_JOINT = 1, MOTION_OPND_POSE = 2, MOTION_OPND_POSITION = 3 };
enum { MOTION_TRIGGER_END = 1, MOTION_TRIGGER_FRACTION = 2, MOTION_TRIGGER_IO = 4 };
#define IRL_MOTION_PARAMS(X) \
    X(SPEED) X(SPEED_ORI) X(SPEED_PTP) X(ACC) X(ACC_PTP) X(TIME) X(APPROX) X(APPROX_PTP) X(ONSET) X(HOLD) X(JERK) X(INTERP) \
    X(CONFIG) X(TURN)
typedef enum {
#define X(name) MP_##name,
    IRL_MOTION_PARAMS(X)
#undef X
    MP_COUNT
} MotionParam;

#endif
