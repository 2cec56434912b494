/* trace.h — the dry-run's trace.csv: one row per cycle, streamed to disk (memory does not grow with the
 * program's length).
 *
 * Columns: `t`, then per device (layout order) `dev.q1..n`, `dev.qd1..n`, `dev.qdd1..n`, `dev.tau1..n` (each axis
 * column named with its joint too: `arm.q1.shoulder`), the
 * pose `dev.x dev.y dev.z dev.qw dev.qx dev.qy dev.qz` when the device has one, its extra outputs `dev.<name>`,
 * under --closed-loop its closed-loop channels (`dev.qa1..n`, `dev.e1..n`, then `dev.u1..n dev.i1..n` when it
 * has motors: SampleDeviceInfo.ncl_groups), then the digital I/O points `io.<name>` (0/1), and last `line` (the source line of the statement being executed: the motion statement moving the first moving
 * device, else the statement the program is at; 0 = none). SI units. Numbers are printed
 * by a hand-written formatter with TraceOptions.digits significant digits, t with at least 12 (exactly as
 * printf's %.<digits>g: shortest form, no trailing zeros; "nan", "inf", "-inf" for non-finite values): the same
 * samples always give the same bytes. Torques of a device without inverse dynamics are written as "nan". */
#ifndef IRL_TRACE_H
#define IRL_TRACE_H

#include <stdio.h>

#include "exec/sample.h"

typedef struct {
    int digits;    /* significant digits, 1..17; <= 0: 9 */
    long every;    /* write every n-th cycle (row 0 always); <= 0: 1 */
} TraceOptions;

typedef struct {
    FILE *f;
    const SampleLayout *lay; /* borrowed */
    TraceOptions opt;
    char *buf;               /* rows are formatted here, then written in large blocks */
    size_t cap, len, row_max;
    long rows, seen;
    int err;                 /* errno of the first write error, 0 = none */
} Trace;

/* Create `path` and write the header. 0, or < 0 with a message in err. */
int trace_open(Trace *tr, const char *path, const SampleLayout *lay, const TraceOptions *opt, char *err,
               size_t errlen);
/* Append one cycle (subject to opt.every). 0, or < 0 after a write error. Never allocates. */
int trace_row(Trace *tr, const Sample *s);
/* Flush and close. 0, or < 0 when any write failed (message in err). */
int trace_close(Trace *tr, char *err, size_t errlen);

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
