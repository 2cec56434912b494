/* print.c — PRINT's value formats (see print.h and docs/LANGUAGE.md, "PRINT and run-time behaviour"). */
#include "print.h"

#include <inttypes.h>
#include <stdlib.h>

/* The shortest %.Ng (N = 1..17) that reads back to the same double; 17 digits always do. */
const char *print_real_str(double x, char *buf, size_t n)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) return buf;
    }
    return buf; /* NaN: "nan" (never equal to itself) */
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
