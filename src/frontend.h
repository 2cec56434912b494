/* frontend.h — the compiler's front door: read a file, parse it (grammar/), merge its IMPORTs, check types,
 * units and scopes (check.c), and hand back the checked program tree for the code generator. */
#ifndef IRL_FRONTEND_H
#define IRL_FRONTEND_H

#include "arena.h"
#include "ast.h"
#include "diag.h"

enum {
    FE_OK = 0,
    FE_EIO = -1,      /* the file named on the command line is missing or unreadable (exit 66) */
    FE_ECOMPILE = -2, /* syntax, import or check errors, all reported through the Diag (exit 65) */
};

typedef struct FrontendImpl FrontendImpl;
typedef struct Frontend {
    Arena arena; /* owns the tree, its types, symbols, strings and the source texts */
    Diag *diag;
    FrontendImpl *impl;
} Frontend;

void frontend_init(Frontend *fe, Diag *diag);
/* Compile `path` up to a checked tree; *out is the N_PROGRAM node on FE_OK. */
int frontend_compile_file(Frontend *fe, const char *path, Node **out);
void frontend_free(Frontend *fe);

#endif
