/* vm.h — the virtual machine: runs a Chunk (opcodes.h) on a fixed-capacity slot stack and call stack. No globals:
 * everything lives in the Vm the caller owns. Run-time errors not taken by an ON ERROR handler are reported as
 * "file:line:col: runtime error: message (ERR_NAME)" on the error stream. */
#ifndef IRL_VM_H
#define IRL_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "chunk.h"

enum {
    VM_STACK_SLOTS = 1 << 22,  /* 32 MiB of slots */
    VM_MAX_FRAMES = 1 << 16,   /* call depth: runaway recursion stops here with ERR_STACK */
};

/* A statement's exit status: the run ended normally (end of program, HALT) or with an unhandled error. */
enum { VM_OK = 0, VM_ERROR = 1, VM_STOPPED = 2, VM_ENOMEM = -1 };
#define VM_MSG_LEN 512 /* a run-time error's message: room for the longest the motion side writes */

typedef struct VmFrame {
    int32_t routine;   /* index into chunk->routines */
    int32_t base;      /* absolute slot of R[0] */
    int32_t ret_pc;    /* caller's pc to resume at (the instruction after its CALL) */
    int32_t in_handler;
    int32_t retry_pc, skip_pc; /* where RETRY / SKIP resume */
    int32_t err_code, err_pc;  /* the error its handler is handling (ERRNO, RAISE;) */
} VmFrame;

/* Optional per-instruction hook (irl run --trace-exec): called before each instruction executes. */
typedef void (*VmTraceFn)(void *ctx, const struct Chunk *c, int pc, const Value *base);

typedef struct Vm {
    const Chunk *chunk;
    Value *stack;
    VmFrame *frames;
    int32_t nframes;
    int64_t errno_;          /* the code of the error last taken by a handler (ERRNO outside handlers) */
    Value *sys;              /* system variables: SV_SLOTS slots at their SVO_* offsets (opcodes.h) */
    FILE *out, *err;         /* PRINT output, error reports */
    VmTraceFn trace;
    void *trace_ctx;
    void *motion;            /* runtime/exec/motion.h state (NULL until the planner exists) */
    /* the error being raised / reported */
    int err_code;
    int32_t err_pc;
    char err_msg[VM_MSG_LEN];
    /* tasks (runtime/vm/tasks.h): each task runs in a Vm of its own that shares stack, sys, chunk and motion */
    int32_t floor;           /* the frame the innermost vm_exec started (an error unwinds no further) */
    int64_t stack_end;       /* this context's frames stay below this slot */
    int halted;              /* HALT ran: the whole program ends */
    int owns;                /* vm_init allocated stack and sys (a task's Vm borrows them) */
    int quiet;               /* an error unwound to the floor is not reported: vm_exec's caller raises it again */
    struct Tasks *tasks;     /* the scheduler, NULL when the program has no TASK and no INTERRUPT */
} Vm;

/* Allocates the stacks (VM_ENOMEM on failure) and prepares to run c (which must outlive the Vm). */
int vm_init(Vm *vm, const Chunk *c, FILE *out, FILE *err);
void vm_free(Vm *vm);
/* Runs the main program: VM_OK, or VM_ERROR after reporting an unhandled run-time error, or VM_STOPPED when the
 * motion door ended the run (it returned a negative code: err_code, err_pc and err_msg say why and where; nothing
 * is printed and no handler ran: the executor reports it). */
int vm_run(Vm *vm);
/* Runs routine (no parameters) in a new frame at absolute slot base, above the frames already there, until it
 * returns: VM_OK (*result gets its first slot when result is not NULL), VM_ERROR, VM_STOPPED, as vm_run. */
int vm_exec(Vm *vm, int routine, int64_t base, Value *result);
/* A task's context: borrows parent's chunk, stack, sys, streams and motion; its own frames. VM_ENOMEM or VM_OK. */
int vm_init_task(Vm *vm, const Vm *parent);

/* The ERR_* name of a code ("ERR_DIV_ZERO"), or NULL when the code is not in src/errcodes.h. */
const char *vm_errname(int code);
/* The default message of a code. */
const char *vm_errmessage(int code);

#endif
