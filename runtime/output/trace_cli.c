/* trace_cli.c — `irl trace`: the command line of the HDF5 trace's export (output/trace_h5.h does the work).
 * Exit status: 0, 64 usage, 65 not an irl trace or no such channel, 66 unreadable. */
#include "output/trace_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/trace_h5.h"

enum { EX_OK = 0, EX_RUNTIME = 1, EX_USAGE = 64, EX_DATA = 65, EX_NOINPUT = 66 };

static int usage(const char *why)
{
    if (why) fprintf(stderr, "irl trace: %s\n", why);
    fputs("usage: irl trace FILE.h5 --csv [--channels a,b,...] [--from T] [--to T]   (T in s)\n", stderr);
    return EX_USAGE;
}

/* A time in s: a number, with an optional "s" or "ms". 0 or -1. */
static int parse_time(const char *v, double *t)
{
    char *end;
    *t = strtod(v, &end);
    if (end == v || !isfinite(*t)) return -1;
    if (strcmp(end, "ms") == 0) *t *= 1e-3;
    else if (*end && strcmp(end, "s") != 0) return -1;
    return 0;
}

int trace_cli_main(int argc, char **argv)
{
    const char *path = NULL;
    int csv = 0;
    TraceExport x = {.channels = NULL, .from = -INFINITY, .to = INFINITY};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--csv") == 0) csv = 1;
        else if (strcmp(a, "--channels") == 0 || strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) {
            if (i + 1 >= argc) return usage("an option needs a value");
            const char *v = argv[++i];
            if (a[2] == 'c') x.channels = v;
            else if (parse_time(v, a[2] == 'f' ? &x.from : &x.to) < 0) {
                fprintf(stderr, "irl trace: bad value for %s: '%s' (a time in s)\n", a, v);
                return EX_USAGE;
            }
        } else if (a[0] == '-' || path) return usage(NULL);
        else path = a;
    }
    if (!path) return usage("no trace file given");
    if (!csv) return usage("say which export: --csv");
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    char err[600];
    int rc = trace_h5_export(path, &x, stdout, err, sizeof err);
    if (fflush(stdout) != 0 && rc == TRACE_H5_OK) return fprintf(stderr, "irl trace: cannot write the CSV\n"), EX_RUNTIME;
    if (rc == TRACE_H5_OK) return EX_OK;
    fprintf(stderr, "irl trace: %s\n", err);
    return rc == TRACE_H5_ELIB ? EX_RUNTIME : rc == TRACE_H5_EIO ? EX_NOINPUT : EX_DATA;
}
