/* trace.h — the dry-run's trace: one row per cycle, streamed to disk (memory does not grow with the program's
 * length), as trace.csv (this file's writer) or trace.h5 (trace_h5.c, TraceOptions.format). Both take their
 * columns from trace_columns() and their values from trace_values(), so a column added there appears in both.
 *
 * Columns: `t`, then per device (layout order) `dev.q1..n`, `dev.qd1..n`, `dev.qdd1..n`, `dev.tau1..n` (each axis
 * column named with its joint too: `arm.q1.shoulder`), the
 * pose `dev.x dev.y dev.z dev.qw dev.qx dev.qy dev.qz` when the device has one, its extra outputs `dev.<name>`,
 * under --closed-loop its closed-loop channels (`dev.qa1..n`, `dev.e1..n`, then `dev.u1..n dev.i1..n` when it
 * has motors: SampleDeviceInfo.ncl_groups), then the digital I/O points `io.<name>` (0/1), and last `line` (the source line of the statement being executed: the motion statement moving the first moving
 * device, else the statement the program is at; 0 = none). SI units. Numbers are printed
 * by a hand-written formatter with TraceOptions.digits significant digits, t with at least 12 (exactly as
 * printf's %.<digits>g: shortest form, no trailing zeros; "nan", "inf", "-inf" for non-finite values): the same
 * samples always give the same bytes. Torques of a device without inverse dynamics are written as "nan".
 *
 * Precision: trace_row rounds each value column's double to the precision the trace states (trace_mantissa_bits:
 * its digits and a guard digit, whole low mantissa bytes zeroed) before either writer sees it, so trace.csv and
 * trace.h5 record the same values; t and line stay exact. The zeroed bytes cost trace.h5 almost nothing. */
#ifndef IRL_TRACE_H
#define IRL_TRACE_H

#include <stdio.h>

#include "exec/sample.h"

typedef enum { TRACE_CSV = 0, TRACE_H5 = 1 } TraceFormat;

#define TRACE_DEFAULT_DIGITS 9

/* What the HDF5 trace carries besides its channels (trace_h5.c); the CSV ignores it. Borrowed. */
typedef struct {
    const char *program;  /* the program's file name as given */
    const char *version;  /* irl's version */
    double cycle;         /* cycle time, s */
} TraceMeta;

typedef struct {
    int digits;    /* significant digits, 1..17; <= 0: 9 (TRACE_DEFAULT_DIGITS) */
    long every;    /* write every n-th cycle (row 0 always); <= 0: 1 */
    TraceFormat format;
    const TraceMeta *meta; /* TRACE_H5: the file's attributes; NULL = none */
    const char *thin_path; /* NULL, or a thinned CSV copy written at close (the figures' data, plot.h): the
                            * header, every s-th row (s the smallest power of two that keeps at most thin_rows - 1
                            * of them) and the last row, each byte for byte the CSV trace's */
    long thin_rows;        /* at most this many rows in thin_path (>= 2) */
} TraceOptions;

/* How a column's values are printed in the CSV: t with at least 12 digits, line as an integer, the rest with
 * TraceOptions.digits. */
typedef enum { TRACE_KIND_TIME, TRACE_KIND_VALUE, TRACE_KIND_LINE } TraceKind;

#define TRACE_NAME_LEN (3 * SAMPLE_NAME_LEN + 16)

/* One column: its name (the CSV header's), its SI unit ("" = dimensionless or a count), its joint name ("" when
 * it is not an axis's or the machine names none). */
typedef struct {
    char name[TRACE_NAME_LEN];
    char unit[24];
    char joint[MODEL_NAME_LEN];
    TraceKind kind;
} TraceColumn;

struct TraceH5;

typedef struct {
    FILE *f;
    const SampleLayout *lay; /* borrowed */
    TraceOptions opt;
    struct TraceH5 *h5;      /* TRACE_H5: the HDF5 writer (trace_h5.h); f is NULL then */
    int ncols;
    TraceColumn *cols;       /* ncols, owned */
    double *vals;            /* one row's values, ncols, owned */
    char *buf;               /* rows are formatted here, then written in large blocks */
    size_t cap, len, row_max;
    long rows, seen;
    int mbits;               /* explicit mantissa bits the value columns keep (trace_mantissa_bits) */
    int err;                 /* errno of the first write error, 0 = none */
    double *thin;            /* opt.thin_path: the kept rows (row j is trace row j * thin_stride), owned */
    long thin_cap, thin_n, thin_stride;
} Trace;

/* Create `path` and write the header. 0, or < 0 with a message in err. */
int trace_open(Trace *tr, const char *path, const SampleLayout *lay, const TraceOptions *opt, char *err,
               size_t errlen);
/* Append one cycle (subject to opt.every). 0, or < 0 after a write error. Never allocates. */
int trace_row(Trace *tr, const Sample *s);
/* After trace_row failed: why. */
const char *trace_error(Trace *tr);
/* Record that the run ended early (interrupted, a run-time error): the HDF5 trace says so in its attributes
 * (`complete` = 0, `incomplete` = why); the CSV has no place for it (report.json says it). */
void trace_incomplete(Trace *tr, const char *why);
/* Flush and close (and write opt.thin_path). 0, or < 0 when any write failed (message in err). */
int trace_close(Trace *tr, char *err, size_t errlen);

/* The columns of a layout in trace order (trace_column_count of them); the CSV header is their names joined by
 * commas. Returns the count. */
int trace_columns(const SampleLayout *lay, TraceColumn *cols);
/* One cycle's values in column order: line as a number, torques NAN when the device has no inverse dynamics. */
void trace_values(const SampleLayout *lay, const Sample *s, double *v);
/* The explicit mantissa bits (of 52) a trace of `digits` significant digits keeps in its value columns: the
 * fewest whole bytes' worth that hold ceil((digits + 1) log2 10) bits, i.e. the digits and a guard digit
 * (digits 9: 36, a relative error of at most 2^-37; 12: 44; 13 and more: 52, every bit). */
int trace_mantissa_bits(int digits);
/* x rounded to the nearest double whose explicit mantissa has only its `bits` high bits (ties to even; a carry
 * moves into the exponent); unchanged when bits >= 52 and for |x| >= 2^1023, infinities and NaNs (so nothing
 * finite becomes infinite, and a NaN stays the same NaN). */
double trace_round(double x, int bits);
/* Print value x of a column of kind k as the CSV does, at p; returns the end (no terminator; at most 32 bytes). */
char *trace_put_value(char *p, double x, TraceKind k, int digits);

/* Column groups of a device, in trace order. */
typedef enum { TRACE_Q, TRACE_QD, TRACE_QDD, TRACE_TAU, TRACE_POSE, TRACE_OUT, TRACE_CL } TraceGroup;

/* 1-based column number of item i of group g of device dev (t is column 1), or 0 when absent. TRACE_CL counts
 * i over all closed-loop channels, group-major (i = g * naxes + axis). */
int trace_column(const SampleLayout *lay, int dev, TraceGroup g, int i);
/* Number of columns (t and line included). */
int trace_column_count(const SampleLayout *lay);

/* Format x with `digits` significant digits into out (at least 32 bytes); returns the length. */
int trace_format_double(char *out, double x, int digits);

#endif
