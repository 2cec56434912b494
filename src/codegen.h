/* codegen.h — the code generator: a checked program tree (frontend.h) to an in-memory Chunk (chunk.h). */
#ifndef IRL_CODEGEN_H
#define IRL_CODEGEN_H

#include "ast.h"
#include "chunk.h"
#include "diag.h"

/* Compiles the checked N_PROGRAM into c (initialised by the caller with chunk_init). Limits the bytecode
 * cannot express (a frame over 65535 slots, ...) are reported through diag; returns the number of errors. */
int codegen_program(Node *program, Chunk *c, Diag *diag);

#endif
