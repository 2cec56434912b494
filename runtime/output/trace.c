/* trace.c — streaming CSV writer for the per-cycle sample stream, with a fast deterministic number formatter. */
#include "output/trace.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DIGITS 9
#define NUM_MAX 32 /* longest formatted number: "-1.2345678901234567e-308" and a comma */
#define BLOCK (1u << 20)

/* {====================================================================== numbers */

static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";

/* x · 10^s with at most two roundings; |s| <= 44. */
static double scale10(double x, int s)
{
    if (s >= 0) return s <= 22 ? x * p10[s] : x * 1e22 * p10[s - 22];
    s = -s;
    return s <= 22 ? x / p10[s] : x / 1e22 / p10[s - 22];
}

/* Copy a C string; returns its length. */
static int put_str(char *out, const char *s)
{
    int n = (int)strlen(s);
    memcpy(out, s, (size_t)n + 1);
    return n;
}

/* Write the decimal exponent the way printf's %g does: e+05, e-123. */
static int put_exp(char *p, int e)
{
    int n = 0;
    p[n++] = 'e';
    p[n++] = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e >= 100) p[n++] = (char)('0' + e / 100);
    p[n++] = (char)('0' + e / 10 % 10);
    p[n++] = (char)('0' + e % 10);
    return n;
}

/* %.<digits>g without printf: the digits come from one scaling by a power of ten (exact up to 1e22) and one
 * rounding; when the scaled value lies so near a rounding boundary that the scaling error could matter, and
 * for scales beyond 1e±44 or more than 15 digits, snprintf does it. So the output equals printf's %.*g. */
int trace_format_double(char *out, double x, int digits)
{
    if (digits <= 0) digits = DEFAULT_DIGITS;
    if (isnan(x)) return put_str(out, "nan");
    if (isinf(x)) return put_str(out, x > 0 ? "inf" : "-inf");
    if (x == 0) return put_str(out, signbit(x) ? "-0" : "0");
    if (digits > 15) return snprintf(out, NUM_MAX, "%.*g", digits, x);
    char *p = out;
    if (x < 0) *p++ = '-', x = -x;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int b = (int)((bits >> 52) & 0x7ff) - 1022; /* x = f * 2^b, f in [0.5, 1) (frexp without the call) */
    if (b == -1022) return (int)(p - out) + snprintf(p, NUM_MAX, "%.*g", digits, x); /* subnormal */
    int e = (int)floor((b - 1) * 0.30102999566398120); /* <= floor(log10 x), at most one too small */
    double y = 0;
    for (int tries = 0; tries < 3; tries++) {
        int s = digits - 1 - e;
        if (s > 44 || s < -44) return (int)(p - out) + snprintf(p, NUM_MAX, "%.*g", digits, x);
        y = scale10(x, s);
        if (y < p10[digits]) break;
        e++;
    }
    /* the scaling may have moved y across a rounding boundary: near one, let printf decide exactly */
    uint64_t m = (uint64_t)y; /* floor: y > 0 */
    double frac = y - (double)m;
    if (fabs(frac - 0.5) <= y * 1e-15) return (int)(p - out) + snprintf(p, NUM_MAX, "%.*g", digits, x);
    m += frac >= 0.5;
    if (m >= (uint64_t)p10[digits]) m = (uint64_t)p10[digits - 1], e++;
    char d[24];
    int i = digits;
    for (; i >= 2; i -= 2) memcpy(d + i - 2, pairs + 2 * (m % 100), 2), m /= 100;
    if (i == 1) d[0] = (char)('0' + m);
    int nd = digits;
    while (nd > 1 && d[nd - 1] == '0') nd--;
    if (e < -4 || e >= digits) { /* d.ddde±XX */
        *p++ = d[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)nd - 1), p += nd - 1;
        }
        p += put_exp(p, e);
    } else if (e >= 0) { /* ddd.ddd */
        memcpy(p, d, (size_t)e + 1), p += e + 1;
        if (nd > e + 1) {
            *p++ = '.';
            memcpy(p, d + e + 1, (size_t)(nd - e - 1)), p += nd - e - 1;
        }
    } else { /* 0.000ddd */
        *p++ = '0', *p++ = '.';
        for (int i = 0; i < -e - 1; i++) *p++ = '0';
        memcpy(p, d, (size_t)nd), p += nd;
    }
    *p = 0;
    return (int)(p - out);
}

/* }====================================================================== */

/* {====================================================================== writer */

/* Columns of one device. */
static int device_columns(const SampleDeviceInfo *di)
{
    return 4 * di->naxes + (di->has_pose ? 7 : 0) + di->nout + di->ncl_groups * di->naxes;
}

int trace_column_count(const SampleLayout *lay)
{
    int n = 2 + lay->nio;
    for (int d = 0; d < lay->ndev; d++) n += device_columns(&lay->dev[d]);
    return n;
}

int trace_column(const SampleLayout *lay, int dev, TraceGroup g, int i)
{
    if (dev < 0 || dev >= lay->ndev || i < 0) return 0;
    int col = 2; /* after t */
    for (int d = 0; d < dev; d++) col += device_columns(&lay->dev[d]);
    const SampleDeviceInfo *di = &lay->dev[dev];
    int n = di->naxes;
    switch (g) {
    case TRACE_Q: case TRACE_QD: case TRACE_QDD: case TRACE_TAU:
        return i < n ? col + (int)g * n + i : 0;
    case TRACE_POSE: return di->has_pose && i < 7 ? col + 4 * n + i : 0;
    case TRACE_OUT: return i < di->nout ? col + 4 * n + (di->has_pose ? 7 : 0) + i : 0;
    case TRACE_CL: return i < di->ncl_groups * n ? col + 4 * n + (di->has_pose ? 7 : 0) + di->nout + i : 0;
    }
    return 0;
}

/* Append one header name "dev.<what>" or, for axis i of a device (1-based), "dev.<what><i>.<joint name>" (the
 * index keeps the columns in axis order, the name says which joint); commas and quotes in names become '_'. */
static void header_col(FILE *f, const SampleDeviceInfo *di, const char *dev, const char *what, int i)
{
    char name[3 * SAMPLE_NAME_LEN + 16];
    if (i > 0 && di->axis_name[i - 1][0]) snprintf(name, sizeof name, "%s.%s%d.%s", dev, what, i, di->axis_name[i - 1]);
    else if (i > 0) snprintf(name, sizeof name, "%s.%s%d", dev, what, i);
    else snprintf(name, sizeof name, "%s.%s", dev, what);
    for (char *c = name; *c; c++)
        if (*c == ',' || *c == '"' || *c == '\n') *c = '_';
    fprintf(f, ",%s", name);
}

/* The header line. */
static void write_header(Trace *tr)
{
    static const char *const axis_cols[4] = {"q", "qd", "qdd", "tau"};
    static const char *const pose_cols[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    fputs("t", tr->f);
    for (int d = 0; d < tr->lay->ndev; d++) {
        const SampleDeviceInfo *di = &tr->lay->dev[d];
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < di->naxes; i++) header_col(tr->f, di, di->name, axis_cols[k], i + 1);
        for (int k = 0; di->has_pose && k < 7; k++) header_col(tr->f, di, di->name, pose_cols[k], 0);
        for (int o = 0; o < di->nout; o++) header_col(tr->f, di, di->name, di->out_name[o], 0);
        for (int g = 0; g < di->ncl_groups; g++)
            for (int i = 0; i < di->naxes; i++) header_col(tr->f, di, di->name, di->cl_group[g], i + 1);
    }
    for (int k = 0; k < tr->lay->nio; k++) header_col(tr->f, NULL, "io", tr->lay->io_name[k], 0);
    fputs(",line\n", tr->f);
}

int trace_open(Trace *tr, const char *path, const SampleLayout *lay, const TraceOptions *opt, char *err,
               size_t errlen)
{
    memset(tr, 0, sizeof *tr);
    tr->lay = lay;
    if (opt) tr->opt = *opt;
    if (tr->opt.digits <= 0) tr->opt.digits = DEFAULT_DIGITS;
    if (tr->opt.digits > 17) tr->opt.digits = 17;
    if (tr->opt.every <= 0) tr->opt.every = 1;
    tr->row_max = (size_t)trace_column_count(lay) * NUM_MAX + 32;
    tr->cap = tr->row_max * 4 > BLOCK ? tr->row_max * 4 : BLOCK;
    tr->buf = malloc(tr->cap);
    if (!tr->buf) {
        snprintf(err, errlen, "trace: out of memory");
        return -1;
    }
    tr->f = fopen(path, "w");
    if (!tr->f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(tr->buf), tr->buf = NULL;
        return -1;
    }
    write_header(tr);
    return 0;
}

/* Write the buffered rows. */
static void flush_buf(Trace *tr)
{
    if (tr->len && fwrite(tr->buf, 1, tr->len, tr->f) != tr->len && !tr->err) tr->err = errno ? errno : EIO;
    tr->len = 0;
}

/* Append ",<x>" to the row buffer at p. */
static char *put_num(char *p, double x, int digits)
{
    *p++ = ',';
    return p + trace_format_double(p, x, digits);
}

/* Append n values. */
static char *put_vec(char *p, const double *v, int n, int digits)
{
    for (int i = 0; i < n; i++) p = put_num(p, v[i], digits);
    return p;
}

/* Append ",<line>\n". */
static char *put_line(char *p, int line)
{
    char d[12];
    int n = 0;
    do d[n++] = (char)('0' + line % 10), line /= 10;
    while (line > 0);
    *p++ = ',';
    while (n > 0) *p++ = d[--n];
    *p++ = '\n';
    return p;
}

int trace_row(Trace *tr, const Sample *s)
{
    if (tr->seen++ % tr->opt.every != 0) return tr->err ? -1 : 0;
    if (tr->len + tr->row_max > tr->cap) flush_buf(tr);
    int dg = tr->opt.digits;
    char *p = tr->buf + tr->len;
    p += trace_format_double(p, s->t, dg > 12 ? dg : 12); /* t: 12 digits keep 1 us resolution to 10^6 s */
    for (int d = 0; d < tr->lay->ndev; d++) {
        const SampleDeviceInfo *di = &tr->lay->dev[d];
        const SampleDevice *sd = &s->dev[d];
        int n = di->naxes;
        p = put_vec(p, sd->q, n, dg);
        p = put_vec(p, sd->qd, n, dg);
        p = put_vec(p, sd->qdd, n, dg);
        if (sd->tau_ok) p = put_vec(p, sd->tau, n, dg);
        else for (int i = 0; i < n; i++) memcpy(p, ",nan", 4), p += 4;
        if (di->has_pose) p = put_vec(p, sd->pose, 7, dg);
        p = put_vec(p, sd->out, di->nout, dg);
        p = put_vec(p, sd->cl, di->ncl_groups * n, dg);
    }
    for (int k = 0; k < tr->lay->nio; k++) *p++ = ',', *p++ = s->io[k] != 0 ? '1' : '0';
    /* line: the statement moving the first moving device (the VM runs ahead of motion, so s->src may already be
     * statements further on); when nothing moves, the statement the program is at (a WAIT, say). The checks
     * blame by the same rule. */
    int line = s->src.line > 0 ? s->src.line : 0;
    for (int d = 0; d < tr->lay->ndev; d++)
        if (s->dev[d].src.line > 0) {
            line = s->dev[d].src.line;
            break;
        }
    p = put_line(p, line);
    tr->len = (size_t)(p - tr->buf);
    tr->rows++;
    return tr->err ? -1 : 0;
}

int trace_close(Trace *tr, char *err, size_t errlen)
{
    if (!tr->f) return 0;
    flush_buf(tr);
    if (fflush(tr->f) != 0 && !tr->err) tr->err = errno ? errno : EIO;
    if (fclose(tr->f) != 0 && !tr->err) tr->err = errno ? errno : EIO;
    tr->f = NULL;
    free(tr->buf), tr->buf = NULL;
    if (tr->err) {
        snprintf(err, errlen, "trace: write failed: %s", strerror(tr->err));
        return -1;
    }
    return 0;
}

/* }====================================================================== */
