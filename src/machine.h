/* machine.h — the reader of machine files (.irm): a machine described in the language's own syntax and units,
 * parsed by the irl scanner and parser (the MACHINE start form), checked for units, turned into the plain
 * ModelDesc of models/model.h that a back-end is created from. The format is in docs/LANGUAGE.md. */
#ifndef IRL_MACHINE_H
#define IRL_MACHINE_H

#include "diag.h"
#include "model.h"

enum {
    MACHINE_OK = 0,
    MACHINE_EIO = -1,      /* the file is missing or unreadable (message through the Diag) */
    MACHINE_EINVALID = -2, /* syntax, unit or consistency errors, all reported with file:line:col */
};

/* Read `path` into *out (initialised with model_desc_init first). Returns MACHINE_OK or a MACHINE_E* code. */
int machine_load(const char *path, ModelDesc *out, Diag *diag);

/* machine_load for a text already in memory (`len` bytes, need not be NUL-terminated); `file` names it in
 * messages and in out->source. Never MACHINE_EIO. */
int machine_load_text(const char *file, const char *text, size_t len, ModelDesc *out, Diag *diag);

#endif
