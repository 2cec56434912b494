/* builtins.h — the math and geometry built-ins OP_BUILTIN calls (opcodes.h IRL_VM_BUILTINS). */
#ifndef IRL_BUILTINS_H
#define IRL_BUILTINS_H

#include <stddef.h>

#include "chunk.h"

/* Applies built-in id to the nargs argument slots at v and writes its result over v[0..nresult).
 * Returns 0, or an error code (errcodes.h) with a message in msg. The caller checked id < VB_COUNT and that
 * v has room for max(nargs, nresult) slots. */
int builtin_call(int id, Value *v, int nargs, char *msg, size_t msglen);

#endif
