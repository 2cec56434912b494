/* print.c — PRINT's value formats (see print.h and docs/LANGUAGE.md, "PRINT and run-time behaviour"). */
#include "vm/print.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The shortest round-trip form: the fewest significant digits P (1..17) that read back exactly, printed by %g
 * with enough precision that numbers below 1e17 stay in plain notation ("10", not "1e+01"). */
const char *print_real_str(double x, char *buf, size_t n)
{
    if (isnan(x)) { /* the sign of a NaN means nothing: always "nan" (printf would say "-nan" for some) */
        snprintf(buf, n, "nan");
        return buf;
    }
    if (isinf(x)) {
        snprintf(buf, n, "%s", x < 0 ? "-inf" : "inf");
        return buf;
    }
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(buf, n, "%.*e", prec - 1, x);
        if (strtod(buf, NULL) == x) break;
    }
    snprintf(buf, n, "%.*e", prec - 1, x);
    const char *e = strchr(buf, 'e');
    int exp10 = e ? atoi(e + 1) : 0;
    if (exp10 >= prec && exp10 < 17) prec = exp10 + 1;
    snprintf(buf, n, "%.*g", prec, x);
    return buf;
}

void print_int(FILE *out, int64_t v) { fprintf(out, "%" PRId64, v); }

void print_real(FILE *out, double x)
{
    char buf[40];
    fputs(print_real_str(x, buf, sizeof buf), out);
}

void print_bool(FILE *out, int64_t v) { fputs(v ? "TRUE" : "FALSE", out); }

/* n REALs separated by ", ". */
static void print_reals(FILE *out, const Value *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", out);
        print_real(out, v[i].r);
    }
}

void print_position(FILE *out, const Value *v)
{
    fputs("POS(", out);
    print_reals(out, v, 3);
    fputc(')', out);
}

void print_orientation(FILE *out, const Value *v)
{
    fputs("ORIQUAT(", out);
    print_reals(out, v, 4);
    fputc(')', out);
}

void print_pose(FILE *out, const Value *v)
{
    fputs("POSE(", out);
    print_position(out, v);
    fputs(", ", out);
    print_orientation(out, v + 3);
    fputc(')', out);
}

/* The count slot is clamped to 0..12 so a forged value cannot read past the JOINT's slots. */
void print_joint(FILE *out, const Value *v)
{
    int64_t n = v[0].i;
    if (n < 0) n = 0;
    if (n > 12) n = 12;
    fputs("JOINT(", out);
    print_reals(out, v + 1, (int)n);
    fputc(')', out);
}
