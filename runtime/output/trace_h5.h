/* trace_h5.h — the trace as an HDF5 file (trace.h5): written cycle by cycle through trace.h's Trace (TraceOptions
 * .format = TRACE_H5) in constant memory, and read back as the CSV the CSV writer would have written.
 *
 * Layout (docs/RUNNING.md "The HDF5 trace"):
 *   /trace          float64 [rows x columns], the columns of trace_columns() in order (t first, line last);
 *                   chunks of TRACE_H5_CHUNK rows x 1 column (one channel's stretch of time per chunk), shuffle +
 *                   deflate. Attributes: columns, units, joints (string arrays, one entry per column),
 *                   mantissa_bits (the explicit mantissa bits the value columns keep: trace.h's precision).
 *   /               attributes: format ("irl-trace 1"), irl_version, program, cycle_time (s), digits and every (the
 *                   CSV's), rows, complete (1, or 0 with `incomplete` saying why the run ended early).
 *   /devices/NAME   one group per device: attributes backend, machine_file, axes, joints (string array).
 *   /source         string [lines]: the program's source lines (absent when it was run from bytecode); `line`
 *                   of /trace is 1-based into it; attribute file. */
#ifndef IRL_TRACE_H5_H
#define IRL_TRACE_H5_H

#include <stdio.h>

#include "output/trace.h"

#define TRACE_H5_CHUNK 8192 /* rows per chunk */

typedef struct TraceH5 TraceH5;

/* Create `path`: the dataset, its attributes and the program's. NULL with a message in err. */
TraceH5 *trace_h5_open(const char *path, const SampleLayout *lay, const TraceColumn *cols, int ncols,
                       const TraceOptions *opt, char *err, size_t errlen);
/* Append one row of ncols values (written a chunk's worth of rows at a time). 0, or < 0 after a write error,
 * the library's failure to load and the file's to be created included: the writer thread does both beside the
 * first cycles, so they are reported here or by trace_h5_close rather than by trace_h5_open. */
int trace_h5_row(TraceH5 *h, const double *vals);
/* After trace_h5_row failed: why. */
const char *trace_h5_error(TraceH5 *h);
/* Mark the trace incomplete (complete = 0, incomplete = why). */
void trace_h5_incomplete(TraceH5 *h, const char *why);
/* Write what is buffered and the closing attributes, close, free h. 0, or < 0 with a message in err. */
int trace_h5_close(TraceH5 *h, char *err, size_t errlen);

/* What trace_h5_export prints. */
typedef struct {
    const char *channels; /* comma-separated column names (t is always first); NULL = every column */
    double from, to;      /* rows with from <= t <= to (-INFINITY, INFINITY = all) */
} TraceExport;

/* ELIB: libhdf5 cannot be loaded (output/h5_loader.h) */
enum { TRACE_H5_OK = 0, TRACE_H5_EIO = -1, TRACE_H5_EFORMAT = -2, TRACE_H5_ECHANNEL = -3, TRACE_H5_ELIB = -4 };

/* Print the trace at path as CSV on out, byte for byte what the CSV writer wrote for the same run when every
 * column and row is asked for. TRACE_H5_OK, or one of the codes above with a message in err. */
int trace_h5_export(const char *path, const TraceExport *x, FILE *out, char *err, size_t errlen);

#endif
