/* verify.h — the bytecode verifier: proves a Chunk safe to run before a single instruction executes (every
 * opcode known, every operand within its kind's range for the routine that holds it, control never leaves a
 * routine except by CALL/RET, tables consistent). docs/BYTECODE.md lists the rules and what they guarantee. */
#ifndef IRL_VERIFY_H
#define IRL_VERIFY_H

#include <stddef.h>

typedef struct Chunk Chunk; /* src/chunk.h */

/* Largest frame (and global area) the verifier accepts, in slots: the VM's whole slot stack (runtime/vm/vm.h). */
enum { VERIFY_MAX_SLOTS = 1 << 22 };

/* 0 when c passes every rule; otherwise -1 with one line in err naming the rule, the routine and the pc. */
int verify_chunk(const Chunk *c, char *err, size_t errlen);

#endif
