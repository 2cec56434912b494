/* tasks.c — the scheduler of the program's tasks and interrupts (the rule is in tasks.h): one coroutine per task
 * (osal.h), the motion door's clock taken over so that a task needing a cycle yields instead, the cycle run once
 * every running task has yielded, errors of a cycle handed to the task whose motion failed, and the interrupts'
 * edge detection and handlers at each task's resumption. */
#include "vm/tasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errcodes.h"
#include "exec/motion.h"
#include "osal.h"
#include "vm/vm.h"

#define TASKS_CSTACK (1u << 20) /* each task's C stack: the VM loop, the motion door and the planner below it */

enum { T_IDLE, T_RUNNING, T_DONE };

typedef struct {
    Vm own;              /* the context of a TASK (the main body uses the caller's Vm) */
    Vm *vm;
    int routine;
    int64_t base;        /* its first frame's slot: the stack is split in regions, one per task */
    int state;
    int status;          /* vm_exec's result once done */
    int32_t start_pc;    /* the START that started it (-1: the main body) */
    long turn;           /* the last cycle it ran in */
    OsalCoro co;
    int failed;          /* an interrupt's condition or handler failed (reported): the task ends with VM_ERROR */
    int prio;            /* the PRIORITY of the handler it is running (-1: none); only a higher one interrupts it */
    int err;             /* a cycle's error handed to it (0: none) */
    char msg[VM_MSG_LEN];
    SampleSrc fail_src;
} Task;

typedef struct {
    int cond, handler, prio; /* routines; PRIORITY */
    int task;            /* the task that enabled it (-1: disabled) */
    int last;            /* the condition's value at the last evaluation */
} Intr;

struct Tasks {
    Motion *m;
    MotionCycleFn cycle; /* the executor's clock */
    void *cycle_ctx;
    Task *task;          /* [0] the main body, then each routine a START names, in declaration order */
    int ntask, cur;
    long ncycle;
    Intr *intr;          /* one per interrupt condition routine an ENABLE names */
    int nintr;
};

/* ---- Set-up. ------------------------------------------------------------------------------------------ */

/* The routine operand B of the instructions op in c, each once, in routine order, into out (may be NULL);
 * -1 when out of memory. */
static int collect(const Chunk *c, OpCode op, int *out)
{
    unsigned char *seen = calloc((size_t)c->nroutines + 1, 1);
    if (!seen) return -1;
    for (int pc = 0; pc < c->ncode; pc++)
        if (INSTR_OP(c->code[pc]) == op && (int)INSTR_B(c->code[pc]) < c->nroutines) seen[INSTR_B(c->code[pc])] = 1;
    int n = 0;
    for (int r = 0; r < c->nroutines; r++)
        if (seen[r]) {
            if (out) out[n] = r;
            n++;
        }
    free(seen);
    return n;
}

int tasks_needed(const Chunk *c)
{
    for (int pc = 0; pc < c->ncode; pc++)
        if (INSTR_OP(c->code[pc]) == OP_START || INSTR_OP(c->code[pc]) == OP_ENABLE) return 1;
    return 0;
}

static Task *task_of_routine(Tasks *ts, int routine)
{
    for (int k = 1; k < ts->ntask; k++)
        if (ts->task[k].routine == routine) return &ts->task[k];
    return NULL;
}

static const char *routine_name(const Chunk *c, int r)
{
    int s = c->routines[r].name;
    return s >= 0 && s < c->nkstr ? c->kstr[s].text : "?";
}

/* file:line:col of pc into buf. */
static const char *where(const Chunk *c, int pc, char *buf, size_t n)
{
    const char *file = "?";
    int line = 0, col = 0;
    if (pc >= 0 && pc < c->ncode) {
        ChunkLine l = c->lines[pc];
        if (l.file >= 0 && l.file < c->nfiles && c->files[l.file] >= 0 && c->files[l.file] < c->nkstr)
            file = c->kstr[c->files[l.file]].text;
        line = l.line, col = l.col;
    }
    snprintf(buf, n, "%s:%d:%d", file, line, col);
    return buf;
}

/* ---- Interrupts. -------------------------------------------------------------------------------------- */

/* The slot above the top frame of vm: where a condition or handler called at a cycle boundary gets its frame. */
static int64_t above_top(const Vm *vm)
{
    const VmFrame *f = &vm->frames[vm->nframes - 1];
    return f->base + vm->chunk->routines[f->routine].frame_size;
}

/* The condition's value now: VM_OK, or vm_exec's status for its error (reported unless the Vm is quiet). */
static int eval_cond(Task *t, const Intr *in, int *value)
{
    Value v = {0};
    Motion *m = t->vm->motion;
    if (m) m->in_cond++;
    int st = vm_exec(t->vm, in->cond, above_top(t->vm), &v);
    if (m) m->in_cond--;
    *value = v.i != 0;
    return st;
}

/* An interrupt's condition or handler failed with an unhandled error (reported by the VM; st VM_ENOMEM: no room
 * for its frame, reported here): the task ends with it, and the run with the task. */
static int failed(Task *t, int st, const char *what, char *msg, size_t msglen)
{
    if (st == VM_ENOMEM) {
        fflush(t->vm->out);
        fprintf(t->vm->err, "irl: runtime error: no room on the stack for %s (ERR_STACK)\n", what);
    }
    t->failed = 1;
    t->vm->halted = 1;
    snprintf(msg, msglen, "an interrupt failed");
    return -IRL_ERR_USER;
}

/* Runs the handlers of the interrupts task k enabled whose condition has risen since the last cycle, higher
 * PRIORITY first (then declaration order). While a handler runs, only an interrupt of a higher PRIORITY
 * interrupts it (an edge of another one is passed over), so handlers nest at most once per priority.
 * 0: none ran; MOTION_SKIPPED: one or more ran, the statement the task was executing is abandoned;
 * -IRL_ERR_USER: the run ends (an unhandled error in a handler, reported, or HALT). */
static int interrupts(Tasks *ts, int k, char *msg, size_t msglen)
{
    Task *t = &ts->task[k];
    int fired[64], nf = 0;
    for (int i = 0; i < ts->nintr; i++) {
        Intr *in = &ts->intr[i];
        if (in->task != k) continue;
        int v = 0;
        int st = eval_cond(t, in, &v);
        if (st != VM_OK) return failed(t, st, "an interrupt's condition", msg, msglen);
        if (v && !in->last && in->prio > t->prio && nf < 64) fired[nf++] = i;
        in->last = v;
    }
    if (!nf) return 0;
    for (int a = 1; a < nf; a++) /* stable: higher priority first */
        for (int b = a; b > 0 && ts->intr[fired[b]].prio > ts->intr[fired[b - 1]].prio; b--) {
            int x = fired[b];
            fired[b] = fired[b - 1], fired[b - 1] = x;
        }
    const Chunk *c = t->vm->chunk;
    for (int i = 0; i < nf; i++) {
        const Intr *in = &ts->intr[fired[i]];
        const ChunkRoutine *h = &c->routines[in->handler];
        SampleSrc src = {NULL, h->line, 0}; /* the handler's first statement */
        if (h->entry >= 0 && h->entry < c->ncode) {
            ChunkLine l = c->lines[h->entry];
            src.line = l.line, src.col = l.col;
            if (l.file >= 0 && l.file < c->nfiles) src.file = c->kstr[c->files[l.file]].text;
        }
        if (ts->m->checks)
            checks_note_text(ts->m->checks, -1, ts->m->t, src, "interrupt %s fired at t = %.6g s: its handler %s "
                             "(line %d) ran in %s%s", routine_name(c, in->cond), ts->m->t,
                             routine_name(c, in->handler), h->line, k ? "task " : "the main body",
                             k ? routine_name(c, t->routine) : "");
        int outer = t->prio;
        t->prio = in->prio;
        int st = vm_exec(t->vm, in->handler, above_top(t->vm), NULL);
        t->prio = outer;
        if (st != VM_OK) return failed(t, st, "an interrupt's handler", msg, msglen);
        if (t->vm->halted) return snprintf(msg, msglen, "HALT"), -IRL_ERR_USER;
    }
    return MOTION_SKIPPED;
}

/* ---- The clock as the tasks see it. ------------------------------------------------------------------- */

/* The motion door's cycle inside a task: yield until the scheduler has run the cycle, then take the error it
 * handed to this task, or run its interrupts. */
static int task_cycle(void *ctx, char *msg, size_t msglen)
{
    Tasks *ts = ctx;
    int k = ts->cur;
    Task *t = &ts->task[k];
    osal_coro_yield(&t->co);
    if (t->err) {
        int e = t->err;
        t->err = 0;
        snprintf(msg, msglen, "%s", t->msg);
        ts->m->fail_src = t->fail_src;
        return e;
    }
    return interrupts(ts, k, msg, msglen);
}

/* Hands a cycle's error to the task whose motion failed (the device's owner), else to the main body or the first
 * running task; an error that ends the run (e < 0) to every running task. */
static void hand_error(Tasks *ts, int e, const char *msg)
{
    int to = -1;
    if (e > 0) {
        int d = ts->m->fail_dev;
        if (d >= 0 && d < SAMPLE_MAX_DEVICES && ts->m->owner[d] >= 0 && ts->task[ts->m->owner[d]].state == T_RUNNING)
            to = ts->m->owner[d];
        for (int k = 0; to < 0 && k < ts->ntask; k++)
            if (ts->task[k].state == T_RUNNING) to = k;
    }
    for (int k = 0; k < ts->ntask; k++) {
        Task *t = &ts->task[k];
        if (t->state != T_RUNNING || (e > 0 && k != to)) continue;
        t->err = e;
        snprintf(t->msg, sizeof t->msg, "%s", msg);
        t->fail_src = ts->m->fail_src;
    }
}

static void task_main(void *arg)
{
    Task *t = arg;
    t->status = vm_exec(t->vm, t->routine, t->base, NULL);
    if (t->failed) t->status = VM_ERROR;
}

/* ---- START, ENABLE, DISABLE. -------------------------------------------------------------------------- */

static int running(const Tasks *ts);
static int enabled(const Tasks *ts);

/* Tell the motion door whether anything besides the executing task can still change a count or a condition. */
static void note_others(Tasks *ts)
{
    if (ts->m) ts->m->others = running(ts) - 1 + enabled(ts);
}

static int start(Tasks *ts, int routine, int pc, char *msg, size_t msglen)
{
    const Chunk *c = ts->task[0].vm->chunk;
    Task *t = task_of_routine(ts, routine);
    char a[256], b[256];
    if (!t) return snprintf(msg, msglen, "START: routine %d is not a task", routine), IRL_ERR_TASK;
    if (t->state == T_RUNNING)
        return snprintf(msg, msglen, "START %s at %s: task %s is running already (started at %s)",
                        routine_name(c, routine), where(c, pc, a, sizeof a), routine_name(c, routine),
                        where(c, t->start_pc, b, sizeof b)), IRL_ERR_TASK;
    osal_coro_free(&t->co);
    if (osal_coro_init(&t->co, TASKS_CSTACK, task_main, t) != 0)
        return snprintf(msg, msglen, "START %s: out of memory", routine_name(c, routine)), IRL_ERR_STACK;
    t->state = T_RUNNING;
    t->start_pc = pc;
    t->turn = 0; /* runs in this cycle still */
    t->vm->halted = 0;
    t->failed = 0;
    note_others(ts);
    return 0;
}

int tasks_op(Vm *vm, Instr ins, int pc, char *msg, size_t msglen)
{
    Tasks *ts = vm->tasks;
    if (!ts) return snprintf(msg, msglen, "%s needs the task scheduler", irl_opinfo[INSTR_OP(ins)].name),
                    IRL_ERR_NOT_SUPPORTED;
    if (INSTR_OP(ins) == OP_START) return start(ts, (int)INSTR_B(ins), pc, msg, msglen);
    for (int i = 0; i < ts->nintr; i++) {
        Intr *in = &ts->intr[i];
        if (in->cond != (int)INSTR_B(ins)) continue;
        if (INSTR_OP(ins) == OP_DISABLE) {
            in->task = -1;
            note_others(ts);
            return 0;
        }
        in->task = ts->cur;
        in->handler = (int)INSTR_C(ins);
        in->prio = (int)INSTR_A(ins);
        /* an edge from here: a condition already true fires only once it has been false */
        note_others(ts);
        /* an error in the condition is the ENABLE's own: raised there, where ON ERROR may take it */
        vm->quiet = 1;
        int st = eval_cond(&ts->task[ts->cur], in, &in->last);
        vm->quiet = 0;
        if (st == VM_OK) return 0;
        in->task = -1;
        note_others(ts);
        if (st == VM_ENOMEM) return snprintf(msg, msglen, "no room on the stack for the condition"), IRL_ERR_STACK;
        snprintf(msg, msglen, "%s", vm->err_msg);
        return vm->err_code > 0 ? vm->err_code : IRL_ERR_USER;
    }
    return snprintf(msg, msglen, "no such interrupt"), IRL_ERR_USER;
}

/* ---- The scheduler. ----------------------------------------------------------------------------------- */

static int running(const Tasks *ts)
{
    int n = 0;
    for (int k = 0; k < ts->ntask; k++) n += ts->task[k].state == T_RUNNING;
    return n;
}

static int enabled(const Tasks *ts)
{
    int n = 0;
    for (int i = 0; i < ts->nintr; i++) n += ts->intr[i].task >= 0;
    return n;
}

/* Resumes task k until it yields or ends. */
static void resume(Tasks *ts, int k)
{
    Task *t = &ts->task[k];
    ts->cur = k;
    t->turn = ts->ncycle;
    if (ts->m) ts->m->task = k;
    note_others(ts);
    osal_coro_resume(&t->co);
    if (t->co.done) {
        t->state = T_DONE;
        for (int i = 0; i < ts->nintr; i++) /* its interrupts end with it */
            if (ts->intr[i].task == k) ts->intr[i].task = -1;
    }
}

/* Runs every running task once in this cycle, in order, including those started meanwhile. The index of a task
 * whose end ends the run (an error, HALT), or -1. */
static int round_of(Tasks *ts)
{
    for (;;) {
        int k = 0;
        while (k < ts->ntask && !(ts->task[k].state == T_RUNNING && ts->task[k].turn < ts->ncycle)) k++;
        if (k == ts->ntask) return -1;
        resume(ts, k);
        Task *t = &ts->task[k];
        if (t->state == T_DONE && (t->status != VM_OK || t->vm->halted)) return k;
    }
}

static int tasks_loop(Tasks *ts, Vm *vm)
{
    char msg[VM_MSG_LEN];
    for (;;) {
        ts->ncycle++;
        int end = round_of(ts);
        if (end >= 0) {
            Task *t = &ts->task[end];
            if (t->vm != vm) { /* the run's outcome is read from the main Vm */
                vm->err_code = t->vm->err_code, vm->err_pc = t->vm->err_pc;
                memcpy(vm->err_msg, t->vm->err_msg, sizeof vm->err_msg);
                vm->halted = t->vm->halted;
            }
            return t->status;
        }
        if (!running(ts)) return VM_OK;
        if (!ts->m) return VM_OK; /* nothing can block without the motion side */
        ts->m->fail_src = (SampleSrc){NULL, 0, 0};
        ts->m->fail_dev = -1;
        int e = ts->cycle(ts->cycle_ctx, msg, sizeof msg);
        if (e) hand_error(ts, e, msg);
    }
}

int tasks_run(Vm *vm)
{
    const Chunk *c = vm->chunk;
    Tasks ts = {0};
    int nt = collect(c, OP_START, NULL), ni = collect(c, OP_ENABLE, NULL), status = VM_ENOMEM;
    if (nt < 0 || ni < 0) return VM_ENOMEM;
    int *routines = calloc((size_t)nt + (size_t)ni + 1, sizeof *routines), *conds = routines + nt;
    ts.ntask = 1 + nt;
    ts.task = calloc((size_t)ts.ntask, sizeof *ts.task);
    ts.intr = calloc((size_t)(ni ? ni : 1), sizeof *ts.intr);
    if (!routines || !ts.task || !ts.intr) goto out;
    collect(c, OP_START, routines);
    collect(c, OP_ENABLE, conds);
    ts.nintr = ni;
    for (int i = 0; i < ni; i++) ts.intr[i] = (Intr){.cond = conds[i], .handler = -1, .task = -1};
    vm->tasks = &ts;
    /* the main body's region holds at least its frame (the globals); the tasks share the rest equally */
    int64_t main_end = VM_STACK_SLOTS / ts.ntask, need = c->routines[0].frame_size;
    if (main_end < need) main_end = need;
    int64_t region = ts.ntask > 1 ? (VM_STACK_SLOTS - main_end) / (ts.ntask - 1) : 0;
    vm->stack_end = main_end;
    ts.task[0] = (Task){.vm = vm, .routine = 0, .base = 0, .state = T_RUNNING, .start_pc = -1, .prio = -1};
    for (int k = 1; k < ts.ntask; k++) {
        Task *t = &ts.task[k];
        t->routine = routines[k - 1];
        t->base = main_end + region * (k - 1);
        t->start_pc = -1;
        t->prio = -1;
        if (vm_init_task(&t->own, vm) != VM_OK) goto out;
        t->vm = &t->own;
        t->vm->stack_end = t->base + region;
    }
    if (osal_coro_init(&ts.task[0].co, TASKS_CSTACK, task_main, &ts.task[0]) != 0) goto out;
    ts.m = vm->motion;
    if (ts.m && ts.m->cycle) { /* the door's clock becomes "yield until the cycle has run" */
        ts.cycle = ts.m->cycle, ts.cycle_ctx = ts.m->cycle_ctx;
        ts.m->cycle = task_cycle, ts.m->cycle_ctx = &ts;
    } else {
        ts.m = NULL;
    }
    status = tasks_loop(&ts, vm);
    if (ts.m) {
        ts.m->cycle = ts.cycle, ts.m->cycle_ctx = ts.cycle_ctx;
        ts.m->task = -1;
        ts.m->others = 0;
    }
out:
    for (int k = 0; ts.task && k < ts.ntask; k++) {
        osal_coro_free(&ts.task[k].co);
        if (k && ts.task[k].vm) vm_free(ts.task[k].vm);
    }
    free(ts.task);
    free(ts.intr);
    free(routines);
    vm->tasks = NULL;
    vm->stack_end = VM_STACK_SLOTS;
    fflush(vm->out);
    return status;
}
