/* units.h — the unit table and dimension arithmetic, shared by the lexer (unit suffixes on number literals) and
 * the checker (dimensions of REAL expressions, `REAL [unit]` declarations, readable messages).
 *
 * Contract with the lexer/parser: a number literal written with a unit (`10 mm`, `6 G/s`) becomes an E_REAL
 * (or E_INT) node whose value is already in SI (lit.r = 10 * 0.001), with flags |= NF_HAS_UNIT and `name` = the
 * unit's spelling ("mm"); the checker recovers the dimension with units_lookup(name). A declared dimension
 * (`REAL [m/s]`) is an N_TYPEREF whose list holds such literals (value 1 with the unit). Without a unit a literal
 * has Dim.any = true and takes the dimension its place expects. */
#ifndef IRL_UNITS_H
#define IRL_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include "ast.h"

/* A unit spelling -> its SI factor and dimension. Accepts the atoms mm m deg rad s ms G N Nm kg % rpm and
 * products/quotients of them with integer powers, so the whole table (G/s m/s m/s^2 rad/s rad/s^2 deg/s) and
 * more ("m/s^3", "G/s^2" for JERK, "kg*m^2", "1/s") work. Case-sensitive (G is not g). False if unknown. */
bool units_lookup(const char *name, double *factor, Dim *dim);
/* Same for a spelling that is not NUL-terminated (the lexer's yytext/yyleng). */
bool units_lookupn(const char *name, size_t len, double *factor, Dim *dim);

/* Dimension arithmetic. `any` of a result is false unless stated. */
Dim dim_none(void);                 /* dimensionless, any = false */
Dim dim_any(void);                  /* a bare literal: dimensionless value that adopts its place's dimension */
Dim dim_base(int which, int power); /* e.g. dim_base(DIM_LENGTH, 1) */
Dim dim_mul(Dim a, Dim b);          /* exponents add; any if both any */
Dim dim_div(Dim a, Dim b);          /* exponents subtract; any if both any */
Dim dim_pow(Dim a, int n);          /* exponents times n; keeps any */
bool dim_sqrt(Dim a, Dim *out);     /* halves exponents; false if one is odd */
bool dim_eq(Dim a, Dim b);          /* same exponents (any ignored) */
bool dim_is_none(Dim a);            /* all exponents zero (any ignored) */
/* Do a and b fit together in + - comparison or assignment (equal, or either is any)? */
bool dim_compatible(Dim a, Dim b);

/* Common dimensions. */
Dim dim_length(void);  /* m */
Dim dim_time(void);    /* s */
Dim dim_angle(void);   /* rad */
Dim dim_speed(void);   /* m/s */
Dim dim_accel(void);   /* m/s^2 */

/* Readable SI spelling of a dimension: "m", "m/s^2", "kg*m/s^2", "rad/s", "1/s", "1" (dimensionless).
 * Writes into buf (size n) and returns it. */
const char *dim_str(Dim d, char *buf, size_t n);
/* For messages: "a length (m)", "a time (s)", "an angle (rad)", "a speed (m/s)", "a dimensionless number",
 * or "a value in kg*m/s^2". Writes into buf and returns it. */
const char *dim_describe(Dim d, char *buf, size_t n);

#endif
