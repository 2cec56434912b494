/* tasks.h — the program's tasks and interrupts: the scheduler that runs the main body and every started TASK, each
 * in a VM context of its own (frames, ON ERROR) on a coroutine, and the interrupts they enable.
 *
 * The rule (docs/LANGUAGE.md, "Tasks"): every interpolation cycle, each running task in declaration order (the
 * main body first) runs until it blocks (its statement needs the clock: WAIT, WAIT FOR, WAIT on an EVENT, a full
 * motion queue, a statement that stops look-ahead) or ends; then the clock advances one cycle. Nothing else
 * decides the interleaving, so a dry-run is the same from run to run and the online run executes the same one.
 * When a task resumes after a cycle, the conditions of the interrupts it enabled are evaluated; on a rising edge
 * their handlers run (higher PRIORITY first) in that task's context, and the task then continues after the
 * statement it was executing. */
#ifndef IRL_TASKS_H
#define IRL_TASKS_H

#include <stddef.h>

#include "chunk.h"

struct Vm;
typedef struct Tasks Tasks;

/* Does the program start a task or enable an interrupt (then vm_run runs it under the scheduler)? */
int tasks_needed(const Chunk *c);
/* Runs the main body and its tasks to the end: vm_run's result. */
int tasks_run(struct Vm *vm);
/* START, ENABLE, DISABLE executing at pc in vm: 0, or an error code (errcodes.h) with a message. */
int tasks_op(struct Vm *vm, Instr ins, int pc, char *msg, size_t msglen);

#endif
