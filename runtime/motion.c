/* motion.c — the VM's door to the motion side; for now every statement is refused by name, never ignored. */
#include "motion.h"

#include <stdio.h>

#include "errcodes.h"

/* Refuses the statement with ERR_NOT_SUPPORTED: the planner does not exist yet. */
int motion_execute(Motion *m, MotionKind kind, const Value *args, int nargs, char *msg, size_t msglen)
{
    (void)m, (void)args, (void)nargs;
    if (kind == MK_SYNC) return 0; /* no motion is running: $TIME needs no catching up */
    const char *what = (unsigned)kind < MK_COUNT ? irl_motion_names[kind] : "motion statement";
    snprintf(msg, msglen, "%s is not supported yet: motion arrives with the planner", what);
    return IRL_ERR_NOT_SUPPORTED;
}
