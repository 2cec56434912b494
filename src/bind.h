/* bind.h — binding each DEVICE of a program to its machine: the file (the declaration's, taken from the program's
 * folder when relative, or the one `--device x=FILE` gives) read by the machine-file reader (.irm) or the URDF
 * reader (.urdf, for CHAIN), and checked against the declared back-end. The runtime receives the plain descriptions
 * (exec/devices.h: DeviceMachine) and never reaches a reader or the parser. */
#ifndef IRL_BIND_H
#define IRL_BIND_H

#include <stddef.h>

#include "chunk.h"
#include "exec/devices.h"
#include "exec/run_options.h"

enum { BIND_OK = 0, BIND_EIO = -1, BIND_EINVALID = -2 };

/* Read the machine of every device of chunk c (the program at path `program`), in declaration order, into *out
 * (NULL when there is none; free with bind_free). BIND_OK, or BIND_EIO (a machine file missing: the reader may
 * have said so itself, then err is "") / BIND_EINVALID with a message in err. */
int bind_machines(const Chunk *c, const char *program, const RunOptions *o, DeviceMachine **out, char *err,
                  size_t errlen);
void bind_free(DeviceMachine *m);

#endif
