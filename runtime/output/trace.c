/* trace.c — the trace's columns and values (shared by the CSV and HDF5 writers), the streaming CSV writer, its
 * fast deterministic number formatter, and the thinned CSV copy the figures read (TraceOptions.thin_path). */
#include "output/trace.h"

#include "output/trace_h5.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NUM_MAX 32 /* longest formatted number: "-1.2345678901234567e-308" and a comma */
#define BLOCK (1u << 20)

/* {====================================================================== numbers */

static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const uint64_t pow5[28] = {
    1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u, 9765625u, 48828125u, 244140625u,
    1220703125u, 6103515625ull, 30517578125ull, 152587890625ull, 762939453125ull, 3814697265625ull,
    19073486328125ull, 95367431640625ull, 476837158203125ull, 2384185791015625ull,
    11920928955078125ull, 59604644775390625ull, 298023223876953125ull, 1490116119384765625ull,
    7450580596923828125ull};

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

/* The leading `digits` decimal digits of x > 0 (normal), rounded to nearest, ties to even, as printf rounds: the
 * integer *m in [10^(digits-1), 10^digits) and the decimal exponent *e of its first digit. The double scaling
 * (one multiplication by a power of ten, exact up to 1e22, and one rounding) for up to 15 digits, when x * 10^s
 * is not so near a rounding boundary that the scaling error could matter; 16 and 17 digits, more than a double
 * holds, exactly in integers (x = M 2^k, so x 10^s = M 5^s 2^(k+s), in 128 bits while 0 <= s <= 27, i.e. from
 * 1e-11 to 1e16 at 17 digits). 1, or 0 when neither applies (snprintf then decides). */
static int leading_digits(double x, int digits, uint64_t *m, int *e)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int b = (int)((bits >> 52) & 0x7ff) - 1022; /* x = f * 2^b, f in [0.5, 1) (frexp without the call) */
    *e = (int)floor((b - 1) * 0.30102999566398120); /* <= floor(log10 x), at most one too small */
    if (digits > 15) {
        unsigned __int128 M = (bits & ((1ull << 52) - 1)) | 1ull << 52, q = 0, rest = 0, half = 0;
        for (int tries = 0; tries < 3; tries++) {
            int s = digits - 1 - *e, k = b - 53 + s; /* x 10^s = M 5^s 2^k */
            if (s < 0 || s > 27 || k <= -127) return 0;
            unsigned __int128 P = M * (uint64_t)pow5[s];
            q = k >= 0 ? P << k : P >> -k;
            rest = k >= 0 ? 0 : P & (((unsigned __int128)1 << -k) - 1);
            half = k >= 0 ? 1 : (unsigned __int128)1 << (-k - 1);
            if (q < (uint64_t)p10[digits]) break;
            (*e)++;
        }
        q += rest > half || (rest == half && (q & 1)); /* rest < half = 1 when k >= 0: exact */
        *m = (uint64_t)q;
    } else {
        double y = 0;
        for (int tries = 0; tries < 3; tries++) {
            int s = digits - 1 - *e;
            if (s > 44 || s < -44) return 0;
            y = scale10(x, s);
            if (y < p10[digits]) break;
            (*e)++;
        }
        *m = (uint64_t)y; /* floor: y > 0 */
        double frac = y - (double)*m;
        if (fabs(frac - 0.5) <= y * 1e-15) return 0; /* near a rounding boundary */
        *m += frac >= 0.5;
    }
    if (*m >= (uint64_t)p10[digits]) *m = (uint64_t)p10[digits - 1], (*e)++;
    return 1;
}

/* %.<digits>g without printf (leading_digits), so the output equals printf's %.*g; snprintf does what
 * leading_digits leaves. */
int trace_format_double(char *out, double x, int digits)
{
    if (digits <= 0) digits = TRACE_DEFAULT_DIGITS;
    if (digits > 17) return snprintf(out, NUM_MAX, "%.*g", digits, x);
    if (isnan(x)) return put_str(out, "nan");
    if (isinf(x)) return put_str(out, x > 0 ? "inf" : "-inf");
    if (x == 0) return put_str(out, signbit(x) ? "-0" : "0");
    char *p = out;
    if (x < 0) *p++ = '-', x = -x;
    uint64_t m;
    int e;
    if (!isnormal(x) || !leading_digits(x, digits, &m, &e)) return (int)(p - out) + snprintf(p, NUM_MAX, "%.*g", digits, x);
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

int trace_mantissa_bits(int digits)
{
    if (digits <= 0) digits = TRACE_DEFAULT_DIGITS;
    int need = (int)ceil((digits + 1) * 3.3219280948873623); /* log2(10): never an integer product */
    return need >= 52 ? 52 : 52 - 8 * ((52 - need) / 8);
}

/* Two doubles' bits, operated on together (SSE2 on x86-64). */
typedef uint64_t TraceU2 __attribute__((vector_size(16)));

/* Round two doubles' bits u to `drop` fewer mantissa bits: add half the dropped unit less one, plus one when the
 * kept part is odd (ties to even; a carry moves into the exponent), and clear the dropped bits. A value whose
 * exponent field is 0x7fe or 0x7ff (|x| >= 2^1023, infinities, NaNs) stays as it is, so nothing finite becomes
 * infinite and a NaN keeps its payload: m is all ones for it, and then nothing is added and nothing cleared. */
static TraceU2 round2(TraceU2 u, uint64_t drop, TraceU2 half, TraceU2 keep)
{
    const TraceU2 one = {1, 1}, expo = {(uint64_t)0x7ff << 52, (uint64_t)0x7ff << 52};
    TraceU2 m = -(((u & expo) + (one << 53)) >> 63);
    return (u + ((half + ((u >> drop) & one)) & ~m)) & (keep | m);
}

/* Round the n doubles at v to `bits` explicit mantissa bits (0 <= bits < 52) in place, two at a time and without
 * a branch: a row costs a few instructions a value. */
static void round_values(double *v, int n, int bits)
{
    const uint64_t drop = (uint64_t)(52 - bits), low = ((uint64_t)1 << drop) - 1;
    const TraceU2 half = {low >> 1, low >> 1}, keep = {~low, ~low};
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        TraceU2 u;
        memcpy(&u, v + i, sizeof u);
        u = round2(u, drop, half, keep);
        memcpy(v + i, &u, sizeof u);
    }
    if (i < n) {
        TraceU2 u = {0, 0};
        memcpy(&u, v + i, sizeof *v);
        u = round2(u, drop, half, keep);
        memcpy(v + i, &u, sizeof *v);
    }
}

double trace_round(double x, int bits)
{
    if (bits < 52) round_values(&x, 1, bits > 0 ? bits : 0);
    return x;
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

/* Set column c's name "dev.<what>" or, for axis i of a device (1-based), "dev.<what><i>.<joint name>" (the index
 * keeps the columns in axis order, the name says which joint; commas and quotes in names become '_'), unit, kind. */
static void set_col(TraceColumn *c, const SampleDeviceInfo *di, const char *dev, const char *what, int i,
                    const char *unit, TraceKind kind)
{
    if (dev && i > 0 && di && di->axis_name[i - 1][0])
        snprintf(c->name, sizeof c->name, "%s.%s%d.%s", dev, what, i, di->axis_name[i - 1]);
    else if (dev && i > 0) snprintf(c->name, sizeof c->name, "%s.%s%d", dev, what, i);
    else if (dev) snprintf(c->name, sizeof c->name, "%s.%s", dev, what);
    else snprintf(c->name, sizeof c->name, "%s", what);
    for (char *p = c->name; *p; p++)
        if (*p == ',' || *p == '"' || *p == '\n') *p = '_';
    snprintf(c->unit, sizeof c->unit, "%s", unit);
    c->joint[0] = '\0';
    c->kind = kind;
}

/* The SI unit of axis quantity k (0 position, 1 speed, 2 acceleration, 3 torque) of axis i of a device. */
static const char *axis_unit(const SampleDeviceInfo *di, int k, int i)
{
    static const char *const units[4][2] = {{"rad", "m"}, {"rad/s", "m/s"}, {"rad/s^2", "m/s^2"}, {"Nm", "N"}};
    const ModelDesc *m = di->desc;
    int prismatic = m && i < m->njoints && m->joint[i].type == MODEL_PRISMATIC;
    return units[k][prismatic];
}

/* The unit of closed-loop group g ("qa" actual position, "e" error, "u" voltage, "i" current; closed_loop.h). */
static const char *cl_unit(const SampleDeviceInfo *di, int g, int i)
{
    const char *name = di->cl_group[g];
    if (strcmp(name, "u") == 0) return "V";
    if (strcmp(name, "i") == 0) return "A";
    return axis_unit(di, 0, i);
}

int trace_columns(const SampleLayout *lay, TraceColumn *cols)
{
    static const char *const axis_cols[4] = {"q", "qd", "qdd", "tau"};
    static const char *const pose_cols[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    int n = 0;
    set_col(&cols[n++], NULL, NULL, "t", 0, "s", TRACE_KIND_TIME);
    for (int d = 0; d < lay->ndev; d++) {
        const SampleDeviceInfo *di = &lay->dev[d];
        const ModelDesc *m = di->desc;
        int first = n;
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < di->naxes; i++)
                set_col(&cols[n++], di, di->name, axis_cols[k], i + 1, axis_unit(di, k, i), TRACE_KIND_VALUE);
        for (int k = 0; di->has_pose && k < 7; k++)
            set_col(&cols[n++], di, di->name, pose_cols[k], 0, k < 3 ? "m" : "", TRACE_KIND_VALUE);
        for (int o = 0; o < di->nout; o++)
            set_col(&cols[n++], di, di->name, di->out_name[o], 0, di->out_unit[o], TRACE_KIND_VALUE);
        for (int g = 0; g < di->ncl_groups; g++)
            for (int i = 0; i < di->naxes; i++)
                set_col(&cols[n++], di, di->name, di->cl_group[g], i + 1, cl_unit(di, g, i), TRACE_KIND_VALUE);
        for (int i = 0; m && i < di->naxes && i < m->njoints; i++) { /* axis i's columns name joint i */
            for (int k = 0; k < 4; k++) snprintf(cols[first + k * di->naxes + i].joint, MODEL_NAME_LEN, "%s", m->joint[i].name);
            for (int g = 0; g < di->ncl_groups; g++)
                snprintf(cols[trace_column(lay, d, TRACE_CL, g * di->naxes + i) - 1].joint, MODEL_NAME_LEN, "%s",
                         m->joint[i].name);
        }
    }
    for (int k = 0; k < lay->nio; k++) set_col(&cols[n++], NULL, "io", lay->io_name[k], 0, "", TRACE_KIND_VALUE);
    set_col(&cols[n++], NULL, NULL, "line", 0, "", TRACE_KIND_LINE);
    return n;
}

/* Copy n values. */
static double *put_vals(double *v, const double *x, int n)
{
    memcpy(v, x, (size_t)n * sizeof *v);
    return v + n;
}

void trace_values(const SampleLayout *lay, const Sample *s, double *v)
{
    *v++ = s->t;
    for (int d = 0; d < lay->ndev; d++) {
        const SampleDeviceInfo *di = &lay->dev[d];
        const SampleDevice *sd = &s->dev[d];
        int n = di->naxes;
        v = put_vals(v, sd->q, n);
        v = put_vals(v, sd->qd, n);
        v = put_vals(v, sd->qdd, n);
        if (sd->tau_ok) v = put_vals(v, sd->tau, n);
        else for (int i = 0; i < n; i++) *v++ = NAN;
        if (di->has_pose) v = put_vals(v, sd->pose, 7);
        v = put_vals(v, sd->out, di->nout);
        v = put_vals(v, sd->cl, di->ncl_groups * n);
    }
    for (int k = 0; k < lay->nio; k++) *v++ = s->io[k] != 0; /* digital I/O: 0 or 1 */
    int line = sample_statement(s).line;
    *v = line > 0 ? line : 0;
}

/* Print a non-negative integer. */
static char *put_int(char *p, long x)
{
    char d[24];
    int n = 0;
    do d[n++] = (char)('0' + x % 10), x /= 10;
    while (x > 0);
    while (n > 0) *p++ = d[--n];
    return p;
}

char *trace_put_value(char *p, double x, TraceKind k, int digits)
{
    if (k == TRACE_KIND_LINE && x >= 0 && x < 1e15) return put_int(p, (long)x);
    return p + trace_format_double(p, x, k == TRACE_KIND_TIME && digits < 12 ? 12 : digits);
}

int trace_open(Trace *tr, const char *path, const SampleLayout *lay, const TraceOptions *opt, char *err,
               size_t errlen)
{
    memset(tr, 0, sizeof *tr);
    tr->lay = lay;
    if (opt) tr->opt = *opt;
    if (tr->opt.digits <= 0) tr->opt.digits = TRACE_DEFAULT_DIGITS;
    if (tr->opt.digits > 17) tr->opt.digits = 17;
    if (tr->opt.every <= 0) tr->opt.every = 1;
    tr->mbits = trace_mantissa_bits(tr->opt.digits);
    tr->ncols = trace_column_count(lay);
    tr->cols = calloc((size_t)tr->ncols, sizeof *tr->cols);
    tr->vals = calloc((size_t)tr->ncols, sizeof *tr->vals);
    if (!tr->cols || !tr->vals) {
        snprintf(err, errlen, "trace: out of memory");
        goto fail;
    }
    trace_columns(lay, tr->cols);
    tr->row_max = (size_t)tr->ncols * NUM_MAX + 32;
    if (tr->opt.thin_path) {
        tr->thin_cap = (tr->opt.thin_rows > 2 ? tr->opt.thin_rows : 2) - 1; /* the last row may come on top */
        tr->thin_stride = 1;
        tr->thin = malloc((size_t)tr->thin_cap * (size_t)tr->ncols * sizeof *tr->thin);
        if (!tr->thin) {
            snprintf(err, errlen, "trace: out of memory");
            goto fail;
        }
    }
    if (tr->opt.format == TRACE_H5) {
        tr->h5 = trace_h5_open(path, lay, tr->cols, tr->ncols, &tr->opt, err, errlen);
        if (!tr->h5) goto fail;
        return 0;
    }
    tr->cap = tr->row_max * 4 > BLOCK ? tr->row_max * 4 : BLOCK;
    tr->buf = malloc(tr->cap);
    if (!tr->buf) {
        snprintf(err, errlen, "trace: out of memory");
        goto fail;
    }
    tr->f = fopen(path, "w");
    if (!tr->f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto fail;
    }
    for (int c = 0; c < tr->ncols; c++) fprintf(tr->f, "%s%s", c ? "," : "", tr->cols[c].name);
    fputc('\n', tr->f);
    return 0;
fail:
    free(tr->buf), free(tr->cols), free(tr->vals), free(tr->thin);
    tr->buf = NULL, tr->cols = NULL, tr->vals = NULL, tr->thin = NULL;
    return -1;
}

/* Write the buffered rows. */
static void flush_buf(Trace *tr)
{
    if (tr->len && fwrite(tr->buf, 1, tr->len, tr->f) != tr->len && !tr->err) tr->err = errno ? errno : EIO;
    tr->len = 0;
}

/* One CSV row of values v at p (at most row_max bytes); returns its end. */
static char *put_row(const Trace *tr, const double *v, char *p)
{
    int dg = tr->opt.digits, last = tr->ncols - 1; /* t first, line last (trace_columns) */
    p = trace_put_value(p, v[0], TRACE_KIND_TIME, dg);
    for (int c = 1; c < last; c++) {
        *p++ = ',';
        p += trace_format_double(p, v[c], dg);
    }
    *p++ = ',';
    p = trace_put_value(p, v[last], TRACE_KIND_LINE, dg);
    *p++ = '\n';
    return p;
}

/* Keep row r (tr->vals) for the thinned copy when r is a multiple of the stride; when the rows kept fill it,
 * every other one goes and the stride doubles, so memory stays thin_cap rows whatever the run's length. */
static void thin_row(Trace *tr, long r)
{
    size_t n = (size_t)tr->ncols;
    if (r % tr->thin_stride) return;
    if (tr->thin_n == tr->thin_cap) {
        for (long j = 1; 2 * j < tr->thin_n; j++) memcpy(tr->thin + j * n, tr->thin + 2 * j * n, n * sizeof *tr->thin);
        tr->thin_n = (tr->thin_n + 1) / 2;
        tr->thin_stride *= 2;
        if (r % tr->thin_stride) return;
    }
    memcpy(tr->thin + tr->thin_n++ * n, tr->vals, n * sizeof *tr->thin);
}

/* Round the value columns of tr->vals to the trace's precision; t (printed with at least 12 digits) and line
 * (an integer) stay exact, and so do the I/O columns' 0 and 1. */
static void round_row(Trace *tr)
{
    if (tr->mbits < 52) round_values(tr->vals + 1, tr->ncols - 2, tr->mbits);
}

int trace_row(Trace *tr, const Sample *s)
{
    if (tr->seen++ % tr->opt.every != 0) return tr->err ? -1 : 0;
    trace_values(tr->lay, s, tr->vals);
    round_row(tr);
    if (tr->thin) thin_row(tr, tr->rows);
    tr->rows++;
    if (tr->h5) {
        if (trace_h5_row(tr->h5, tr->vals) < 0 && !tr->err) tr->err = EIO;
        return tr->err ? -1 : 0;
    }
    if (tr->len + tr->row_max > tr->cap) flush_buf(tr);
    tr->len = (size_t)(put_row(tr, tr->vals, tr->buf + tr->len) - tr->buf);
    return tr->err ? -1 : 0;
}

/* Write the thinned copy: the header, the kept rows, and the last row when it is not one of them. 0 or -1. */
static int write_thin(Trace *tr, char *err, size_t errlen)
{
    FILE *f = fopen(tr->opt.thin_path, "w");
    char *line = malloc(tr->row_max);
    if (!f || !line) {
        snprintf(err, errlen, "%s: %s", tr->opt.thin_path, f ? "out of memory" : strerror(errno));
        if (f) fclose(f);
        free(line);
        return -1;
    }
    for (int c = 0; c < tr->ncols; c++) fprintf(f, "%s%s", c ? "," : "", tr->cols[c].name);
    fputc('\n', f);
    for (long j = 0; j < tr->thin_n; j++)
        fwrite(line, 1, (size_t)(put_row(tr, tr->thin + j * tr->ncols, line) - line), f);
    if (tr->rows > 0 && (tr->rows - 1) % tr->thin_stride != 0)
        fwrite(line, 1, (size_t)(put_row(tr, tr->vals, line) - line), f);
    free(line);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "%s: write failed", tr->opt.thin_path);
        return -1;
    }
    return 0;
}

const char *trace_error(Trace *tr)
{
    return tr->h5 ? trace_h5_error(tr->h5) : strerror(tr->err);
}

void trace_incomplete(Trace *tr, const char *why)
{
    if (tr->h5) trace_h5_incomplete(tr->h5, why);
}

int trace_close(Trace *tr, char *err, size_t errlen)
{
    if (!tr->f && !tr->h5) return 0;
    int thin_rc = tr->thin ? write_thin(tr, err, errlen) : 0;
    free(tr->thin), tr->thin = NULL;
    if (tr->h5) {
        int rc = trace_h5_close(tr->h5, err, errlen);
        tr->h5 = NULL;
        free(tr->cols), free(tr->vals);
        tr->cols = NULL, tr->vals = NULL;
        return rc < 0 ? rc : thin_rc;
    } else {
        flush_buf(tr);
        if (fflush(tr->f) != 0 && !tr->err) tr->err = errno ? errno : EIO;
        if (fclose(tr->f) != 0 && !tr->err) tr->err = errno ? errno : EIO;
        tr->f = NULL;
    }
    free(tr->buf), free(tr->cols), free(tr->vals);
    tr->buf = NULL, tr->cols = NULL, tr->vals = NULL;
    if (tr->err) {
        snprintf(err, errlen, "trace: write failed: %s", strerror(tr->err));
        return -1;
    }
    return thin_rc;
}

/* }====================================================================== */
