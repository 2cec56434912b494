/* print.h — how PRINT writes values: INT in decimal, REAL in the shortest form that reads back to the same
 * double, BOOL as TRUE/FALSE, and the built-in structured types as their constructor calls. */
#ifndef IRL_PRINT_H
#define IRL_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chunk.h"

/* Writes the shortest %.{1..17}g form of x that strtod reads back exactly into buf (size >= 32); returns buf. */
const char *print_real_str(double x, char *buf, size_t n);
void print_int(FILE *out, int64_t v);
void print_real(FILE *out, double x);
void print_bool(FILE *out, int64_t v);
/* POS(x, y, z) / ORIQUAT(w, x, y, z) / POSE(POS(...), ORIQUAT(...)) / JOINT(a, b, ...) from their slots. */
void print_position(FILE *out, const Value *v);
void print_orientation(FILE *out, const Value *v);
void print_pose(FILE *out, const Value *v);
void print_joint(FILE *out, const Value *v);

#endif
