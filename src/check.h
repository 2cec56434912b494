/* check.h — the checker: scopes, types, units (dimensions) and storage slots of a parsed, import-merged program.
 * It annotates the tree in place (see ast.h): every expression gets `type` (REAL types carry their dimension in
 * type->dim), names and calls their `sym`, built-in calls their `builtin`, E_FIELD its `field` or `component`,
 * INT operands of REAL operations are wrapped in E_WIDEN nodes, symbols get their `slot`, N_PROGRAM.nslots the
 * global slot count, N_ROUTINE.nslots the frame size (params first, in order, then locals), CONST symbols their
 * folded `cval`, CASE labels are folded to E_INT literals. Errors go to the Diag, one per real mistake. */
#ifndef IRL_CHECK_H
#define IRL_CHECK_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* Check `program` (an N_PROGRAM); returns the number of errors reported (0: the tree is fully annotated). */
int check_program(Arena *arena, Diag *diag, Node *program);

/* check_program for a tree the parser rebuilt after syntax errors: the parts that parsed are checked, but what
 * may only echo what error recovery dropped is not reported. holes: CHECK_HOLE_DECL (a declaration or an import
 * was dropped: unknown names, types, routines, devices and I/O points are no news), CHECK_HOLE_STMT (a statement
 * was dropped: EXIT/RETRY/SKIP/RAISE; out of place and a FUNCTION's missing RETURN are no news). The caller has
 * counted the syntax errors, so the compile fails either way. */
enum { CHECK_HOLE_DECL = 1, CHECK_HOLE_STMT = 2 };
int check_program_ex(Arena *arena, Diag *diag, Node *program, unsigned holes);

/* The built-in types: shared, immutable singletons (never modify them). TY_REAL here is dimensionless; REAL
 * expressions with a dimension get their own Type (same kind and size, another dim). TY_RECORD and TY_ARRAY
 * have no singleton (NULL). */
Type *check_builtin_type(TypeKind kind);

/* Storage size of a value of type t, in 8-byte slots (ast.h's storage model). */
int check_type_slots(const Type *t);

/* Do values of these types have the same layout and meaning (dimensions ignored)? Records and arrays by
 * identity of declaration / element type and length. */
bool check_type_same(const Type *a, const Type *b);

/* Slot offset of a component of a built-in type (X Y Z Q1..Q4 POS ORI), or -1; *ctype gets its type. */
int check_component(const Type *t, const char *name, Type **ctype);

#endif
