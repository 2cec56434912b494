/* motion.h — the one door from the VM to the motion side (planner, devices, I/O). OP_MOTION calls
 * motion_execute with the statement's kind (opcodes.h IRL_MOTION_KINDS) and its evaluated operands.
 * Until the motion issue lands every statement answers ERR_NOT_SUPPORTED with a message naming it. */
#ifndef IRL_MOTION_H
#define IRL_MOTION_H

#include <stddef.h>

#include "chunk.h"

typedef struct Motion Motion; /* the motion side's state; NULL for now */

/* Executes one motion statement. Returns 0, or an error code (errcodes.h) with a message in msg. */
int motion_execute(Motion *m, MotionKind kind, const Value *args, int nargs, char *msg, size_t msglen);

#endif
