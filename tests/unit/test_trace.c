/* test_trace.c — trace.csv: number formatting against printf, header, determinism, the thinned copy the figures
 * read, the rounding of values to the trace's precision, trace.h5's values bit for bit, and the cost of a row. */
#include <float.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output/trace.h"
#include "output/trace_h5.h"
#include "utest.h"

/* A deterministic pseudo-random stream (xorshift64*). */
static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* The formatter agrees with printf's %.9g exactly (halfway-looking decimals included). */
UTEST(format_vs_printf)
{
    char a[64], b[64];
    long n = 0, differ = 0, bad = 0;
    for (int i = 0; i < 200000; i++) {
        double mag = pow(10, (int)(urand() * 40) - 20);
        double x = (urand() - 0.5) * 2 * mag;
        if (i % 7 == 0) x = round(x * 1000) / 1000; /* short decimals: 0.001, 1.5, ... */
        trace_format_double(a, x, 9);
        snprintf(b, sizeof b, "%.9g", x);
        n++;
        if (strcmp(a, b) != 0) {
            differ++;
            double ra = strtod(a, NULL);
            if (!(fabs(ra - x) <= 1.0000001 * 0.5e-8 * fabs(x) * 10)) bad++;
            if (differ <= 3) printf("#   %.17g: %s vs printf %s\n", x, a, b);
        }
    }
    printf("#   %ld of %ld differ from printf\n", differ, n);
    CHECK(bad == 0);
    CHECK(differ == 0);
    const double exact[] = {0, 1, -1, 0.001, 1e-5, 123456789, 1234567890, 0.1, 2.5e-7, 1e22, 1e-30, 3.14159265358979};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        trace_format_double(a, exact[i], 9);
        snprintf(b, sizeof b, "%.9g", exact[i]);
        CHECK(strcmp(a, b) == 0);
        if (strcmp(a, b)) printf("#   %s vs %s\n", a, b);
    }
    trace_format_double(a, NAN, 9); CHECK(strcmp(a, "nan") == 0);
    trace_format_double(a, -INFINITY, 9); CHECK(strcmp(a, "-inf") == 0);
    trace_format_double(a, 0.1, 17); CHECK(strcmp(a, "0.10000000000000001") == 0);
}

/* 16 and 17 digits (the stream driver's and online.csv's) come from exact integer arithmetic: equal to printf's
 * on any bit pattern, on values near powers of ten, and on exact ties (an even last digit wins); timed against
 * printf. */
UTEST(format_17_digits_vs_printf)
{
    char a[64], b[64];
    long n = 0, differ = 0;
    for (int digits = 16; digits <= 17; digits++) {
        for (int i = 0; i < 400000; i++) {
            uint64_t bits = (uint64_t)(urand() * 18446744073709551616.0) ^ (uint64_t)(urand() * 4294967296.0);
            double x;
            switch (i % 4) {
            case 0: memcpy(&x, &bits, sizeof x); break;                            /* any double */
            case 1: x = ldexp(urand(), (int)(urand() * 120) - 90); break;         /* 1e-27 .. 1e9 */
            case 2: x = round((urand() - 0.5) * 2e9) / pow(10, (int)(urand() * 18)); break; /* short decimals */
            default: x = ldexp(1 + floor(urand() * 16) / 16, (int)(urand() * 160) - 80); break; /* few bits */
            }
            if (!isfinite(x)) continue;
            trace_format_double(a, x, digits);
            snprintf(b, sizeof b, "%.*g", digits, x);
            n++;
            if (strcmp(a, b) != 0 && ++differ <= 3) printf("#   %a: %s vs printf %s\n", x, a, b);
        }
        for (int e = -12; e <= 17; e++) /* next to the powers of ten, where the exponent changes */
            for (double x = nextafter(pow(10, e), 0), k = 0; k < 3; k++, x = nextafter(x, INFINITY)) {
                trace_format_double(a, x, digits), snprintf(b, sizeof b, "%.*g", digits, x);
                n++, differ += strcmp(a, b) != 0;
            }
    }
    /* exact ties: 16-digit integers + 0.5 at 16 digits, + 0.25 at 17 (all exact below 2^51) */
    for (int i = 0; i < 100000; i++) {
        double x = 1e15 + floor(urand() * 1.2e15);
        trace_format_double(a, x + 0.5, 16), snprintf(b, sizeof b, "%.16g", x + 0.5);
        n++, differ += strcmp(a, b) != 0;
        trace_format_double(a, x + 0.25, 17), snprintf(b, sizeof b, "%.17g", x + 0.25);
        n++, differ += strcmp(a, b) != 0;
    }
    printf("#   %ld of %ld differ from printf\n", differ, n);
    CHECK(differ == 0);
    trace_format_double(a, 1e15 + 0.5, 16);
    CHECK(strcmp(a, "1000000000000000") == 0); /* the tie goes to the even digit */
    trace_format_double(a, 1e15 + 1.5, 16);
    CHECK(strcmp(a, "1000000000000002") == 0);
    trace_format_double(a, -1.5707963267948966, 17);
    CHECK(strcmp(a, "-1.5707963267948966") == 0);
    volatile int sink = 0;
    clock_t t0 = clock();
    for (int i = 0; i < 200000; i++) sink += trace_format_double(a, 1.2345678901234567 + i * 1e-9, 17);
    clock_t t1 = clock();
    for (int i = 0; i < 200000; i++) sink += snprintf(a, sizeof a, "%.17g", 1.2345678901234567 + i * 1e-9);
    clock_t t2 = clock();
    printf("#   17 digits: %.0f ns a number, printf %.0f ns\n", (double)(t1 - t0) / CLOCKS_PER_SEC / 2e5 * 1e9,
           (double)(t2 - t1) / CLOCKS_PER_SEC / 2e5 * 1e9);
    (void)sink;
}

/* x rounded to bits explicit mantissa bits by arithmetic (frexp, nearbyint: ties to even), for normal x. */
static double round_ref(double x, int bits)
{
    int e;
    double f = frexp(x, &e); /* |f| in [0.5, 1): 53 significant bits, keep bits + 1 */
    return ldexp(nearbyint(ldexp(f, bits + 1)), e - bits - 1);
}

/* The low bits a value keeps zero at `bits` explicit mantissa bits. */
static uint64_t low_bits(double x, int bits)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u & (((uint64_t)1 << (52 - bits)) - 1);
}

/* The trace's precision: the bits kept for each digits count, and trace_round against rounding by arithmetic
 * (nearest, ties to even, carries into the exponent), its non-finite values, zeros, subnormals and the largest
 * double. */
UTEST(rounding)
{
    const int want_bits[18] = {36, 12, 12, 20, 20, 20, 28, 28, 36, 36, 44, 44, 44, 52, 52, 52, 52, 52};
    for (int d = 0; d <= 17; d++) {
        int b = trace_mantissa_bits(d), dd = d ? d : 9;
        CHECK(b == want_bits[d]);
        /* the digits and a guard digit fit: 2^(b + 1) >= 10^(digits + 1), or every bit is kept */
        CHECK(b == 52 || (b + 1) * log10(2.0) >= dd + 1 - 1e-9);
        CHECK(b == 12 || b - 8 < ceil((dd + 1) * log2(10.0))); /* and not a byte more than needed */
    }
    long bad = 0, n = 0;
    const int bits[] = {36, 44, 12, 28};
    for (int i = 0; i < 400000; i++) {
        int b = bits[i % 4];
        double x = (urand() - 0.5) * pow(2, (int)(urand() * 200) - 100);
        if (i % 3 == 0) { /* a tie: the dropped bits exactly half the kept unit */
            uint64_t u;
            memcpy(&u, &x, sizeof u);
            u = (u & ~(((uint64_t)1 << (52 - b)) - 1)) | (uint64_t)1 << (51 - b);
            memcpy(&x, &u, sizeof x);
        }
        double r = trace_round(x, b), ref = round_ref(x, b);
        n++;
        bad += memcmp(&r, &ref, sizeof r) != 0 || low_bits(r, b) != 0 ||
               !(fabs(r - x) <= ldexp(fabs(x), -b - 1));
    }
    printf("#   %ld of %ld roundings differ from nearest-even arithmetic\n", bad, n);
    CHECK(bad == 0);
    CHECK(trace_round(1 + ldexp(1, -37), 36) == 1);                      /* tie, kept part even: down */
    CHECK(trace_round(1 + 3 * ldexp(1, -37), 36) == 1 + ldexp(1, -35));   /* tie, kept part odd: up to even */
    CHECK(trace_round(nextafter(2, 0), 36) == 2);                         /* the carry moves into the exponent */
    CHECK(trace_round(-nextafter(2, 0), 36) == -2);
    CHECK(trace_round(DBL_MAX, 36) == DBL_MAX && trace_round(-0x1.8p1023, 36) == -0x1.8p1023); /* >= 2^1023: kept */
    CHECK(trace_round(0x1.fffffffffffffp1022, 36) == 0x1p1023);           /* just below: rounded */
    CHECK(trace_round(INFINITY, 36) == INFINITY && trace_round(-INFINITY, 36) == -INFINITY);
    uint64_t nans[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0x7fffffffffffffffull};
    for (int k = 0; k < 4; k++) { /* a NaN stays the same NaN, whatever its payload */
        double x, r;
        memcpy(&x, &nans[k], sizeof x);
        r = trace_round(x, 36);
        CHECK(memcmp(&r, &x, sizeof x) == 0);
    }
    CHECK(trace_round(0.0, 36) == 0 && !signbit(trace_round(0.0, 36)) && signbit(trace_round(-0.0, 36)));
    double sub = 3 * DBL_TRUE_MIN + 1e-310, rs = trace_round(sub, 36); /* subnormal: the same grid of bits */
    CHECK(low_bits(rs, 36) == 0 && fabs(rs - sub) <= ldexp(1, -1022 - 37));
    for (long k = 0; k < 100000; k += 7) CHECK(trace_round((double)k, 36) == (double)k); /* integers, I/O 0 and 1 */
    double x = 0.123456789012345678;
    CHECK(trace_round(x, 52) == x && trace_round(x, 60) == x);
}

/* A file name of this process's own under /tmp (suites of several builds run at once): "/tmp/irl_test_<pid>_name". */
static const char *tmp_file(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/irl_test_%ld_%s", (long)getpid(), name);
    return buf;
}

static ModelDesc desc;
static SampleLayout lay;
static Sample smp;

/* Device "arm": 6 axes with a pose; device "cf": 3 axes with outputs G and Gdot. */
static void setup(void)
{
    model_desc_init(&desc);
    memset(&lay, 0, sizeof lay);
    lay.ndev = 2;
    strcpy(lay.dev[0].name, "arm");
    lay.dev[0].naxes = 6, lay.dev[0].has_pose = 1, lay.dev[0].desc = &desc;
    strcpy(lay.dev[1].name, "cf");
    lay.dev[1].naxes = 3, lay.dev[1].nout = 2, lay.dev[1].desc = &desc;
    strcpy(lay.dev[1].out_name[0], "G"), strcpy(lay.dev[1].out_name[1], "Gdot");
    sample_init(&smp, &lay);
}

/* Fill cycle i with smooth, deterministic values. */
static void fill(long i)
{
    smp.cycle = i, smp.t = i * 1e-3;
    smp.src.line = 10 + (int)(i / 1000);
    for (int d = 0; d < 2; d++) {
        smp.dev[d].tau_ok = d == 0;
        for (int j = 0; j < 6; j++) {
            double t = smp.t;
            smp.dev[d].q[j] = sin(t + j), smp.dev[d].qd[j] = cos(t + j), smp.dev[d].qdd[j] = -sin(t + j);
            smp.dev[d].tau[j] = 40 * cos(0.3 * t + j) + 1e-17 * j;
        }
    }
    for (int k = 0; k < 7; k++) smp.dev[0].pose[k] = 0.1 * k + 1e-3 * smp.t;
    smp.dev[1].out[0] = 1 + smp.t, smp.dev[1].out[1] = 1;
}

static long write_trace_thin(const char *path, long rows, long every, TraceFormat fmt, const char *thin, long thin_rows)
{
    Trace tr;
    char err[256];
    TraceOptions o = {.every = every, .format = fmt, .thin_path = thin, .thin_rows = thin_rows};
    int opened = trace_open(&tr, path, &lay, &o, err, sizeof err);
    CHECK(opened == 0);
    if (opened != 0) return -1;
    for (long i = 0; i < rows; i++) {
        fill(i);
        CHECK(trace_row(&tr, &smp) == 0);
    }
    long n = tr.rows;
    CHECK(trace_close(&tr, err, sizeof err) == 0);
    return n;
}

static long write_trace(const char *path, long rows, long every)
{
    return write_trace_thin(path, rows, every, TRACE_CSV, NULL, 0);
}

static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)*len + 1);
    if (fread(b, 1, (size_t)*len, f) != (size_t)*len) *len = -1;
    b[*len > 0 ? *len : 0] = 0;
    fclose(f);
    return b;
}

/* The header names every column in order; rows have as many fields; two runs give identical bytes. */
UTEST(header_rows_determinism)
{
    setup();
    char b1[64], b2[64];
    const char *p1 = tmp_file(b1, sizeof b1, "trace1.csv"), *p2 = tmp_file(b2, sizeof b2, "trace2.csv");
    CHECK(write_trace(p1, 3000, 1) == 3000);
    CHECK(write_trace(p2, 3000, 1) == 3000);
    long n1, n2;
    char *a = slurp(p1, &n1), *b = slurp(p2, &n2);
    CHECK(a && b && n1 == n2 && memcmp(a, b, (size_t)n1) == 0);
    const char *want = "t,arm.q1,arm.q2,arm.q3,arm.q4,arm.q5,arm.q6,arm.qd1,arm.qd2,arm.qd3,arm.qd4,arm.qd5,arm.qd6,"
                       "arm.qdd1,arm.qdd2,arm.qdd3,arm.qdd4,arm.qdd5,arm.qdd6,arm.tau1,arm.tau2,arm.tau3,arm.tau4,"
                       "arm.tau5,arm.tau6,arm.x,arm.y,arm.z,arm.qw,arm.qx,arm.qy,arm.qz,cf.q1,cf.q2,cf.q3,cf.qd1,"
                       "cf.qd2,cf.qd3,cf.qdd1,cf.qdd2,cf.qdd3,cf.tau1,cf.tau2,cf.tau3,cf.G,cf.Gdot,line\n";
    CHECK(strncmp(a, want, strlen(want)) == 0);
    /* second line: cycle 0 */
    const char *row0 = a + strlen(want);
    CHECK(strncmp(row0, "0,0,0.841470985,0.909297427,", 28) == 0);
    /* every row has 47 fields; cf's torques are nan (no inverse dynamics); line column right */
    long lines = 0, bad = 0;
    for (char *l = a; *l;) {
        char *e = strchr(l, '\n');
        int commas = 0;
        for (char *c = l; c < e; c++) commas += *c == ',';
        bad += commas != 46;
        lines++;
        l = e + 1;
    }
    CHECK(bad == 0 && lines == 3001);
    CHECK(strstr(a, ",nan,nan,nan,1,1,10\n") != NULL);             /* cycle 0: G = 1, Gdot 1, line 10 */
    CHECK(strstr(a, "\n2.999,") != NULL && strstr(a, ",12\n") != NULL);
    free(a), free(b);
    CHECK(trace_column_count(&lay) == 47);
    CHECK(trace_column(&lay, 0, TRACE_Q, 0) == 2 && trace_column(&lay, 0, TRACE_TAU, 5) == 25);
    CHECK(trace_column(&lay, 0, TRACE_POSE, 0) == 26 && trace_column(&lay, 0, TRACE_OUT, 0) == 0);
    CHECK(trace_column(&lay, 1, TRACE_Q, 0) == 33 && trace_column(&lay, 1, TRACE_OUT, 1) == 46);
    CHECK(trace_column(&lay, 1, TRACE_POSE, 0) == 0 && trace_column(&lay, 1, TRACE_Q, 3) == 0);
    /* every 10th cycle */
    CHECK(write_trace(p1, 3000, 10) == 300);
    remove(p1), remove(p2);
}

/* Line k (0 = the header) of a text, copied into out; 0 when the text has fewer lines. */
static int nth_line(const char *text, long k, char *out, size_t outlen)
{
    for (; k > 0 && text; k--) text = strchr(text, '\n'), text = text ? text + 1 : NULL;
    if (!text || !*text) return 0;
    size_t n = strcspn(text, "\n");
    snprintf(out, outlen, "%.*s", (int)(n < outlen ? n : outlen - 1), text);
    return 1;
}

/* The thinned copy (TraceOptions.thin_path): the header, trace rows 0, s, 2s, ... (s the smallest power of two
 * that keeps at most thin_rows - 1 of them) and the last row, each byte for byte the CSV trace's; the same file
 * whether the full-rate trace is the CSV or the HDF5 one; a short trace is copied whole. */
UTEST(thinned_copy)
{
    setup();
    char b1[64], b2[64], b3[64], b4[64];
    const char *csv = tmp_file(b1, sizeof b1, "thin.csv"), *h5 = tmp_file(b2, sizeof b2, "thin.h5");
    const char *thin1 = tmp_file(b3, sizeof b3, "thin1.csv"), *thin2 = tmp_file(b4, sizeof b4, "thin2.csv");
    struct { long rows, every, max, stride; } c[] = {
        {2507, 1, 100, 32}, /* stride 32 keeps 79 of 2507 rows (16 would keep 157 > 99), and the last */
        {2496, 1, 100, 32}, {3000, 10, 40, 8}, {50, 1, 100, 1}, {1, 1, 100, 1}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        long n = write_trace_thin(csv, c[k].rows, c[k].every, TRACE_CSV, thin1, c[k].max);
        CHECK(write_trace_thin(h5, c[k].rows, c[k].every, TRACE_H5, thin2, c[k].max) == n);
        long la, lb, lc;
        char *full = slurp(csv, &la), *a = slurp(thin1, &lb), *b = slurp(thin2, &lc);
        CHECK(full && a && b && lb == lc && memcmp(a, b, (size_t)lb) == 0);
        long kept = (n - 1) / c[k].stride + 1, lines = kept + ((n - 1) % c[k].stride != 0);
        CHECK(lines <= c[k].max && (c[k].stride == 1 || (n - 1) / (c[k].stride / 2) + 1 > c[k].max - 1));
        char want[4096], got[4096];
        long bad = 0;
        for (long j = 0; j < kept; j++) /* row j * stride of the trace is line j + 1 of both */
            bad += !nth_line(full, 1 + j * c[k].stride, want, sizeof want) || !nth_line(a, 1 + j, got, sizeof got) ||
                   strcmp(want, got) != 0;
        CHECK(bad == 0);
        CHECK(nth_line(full, 0, want, sizeof want) && nth_line(a, 0, got, sizeof got) && strcmp(want, got) == 0);
        CHECK(nth_line(full, n, want, sizeof want) && nth_line(a, lines, got, sizeof got) && strcmp(want, got) == 0);
        CHECK(!nth_line(a, lines + 1, got, sizeof got));
        free(full), free(a), free(b);
    }
    remove(csv), remove(h5), remove(thin1), remove(thin2);
}

/* Fill cycle i as fill() does, with noise in every bit of some values, exact zeros, -0, NaN and infinities. */
static void fill_rough(long i)
{
    fill(i);
    uint64_t st = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    for (int j = 0; j < 6; j++) {
        st ^= st >> 12, st ^= st << 25, st ^= st >> 27;
        double r = (double)(st >> 11) / 9007199254740992.0;
        uint64_t bits = (st * 2685821657736338717ull & 0x800FFFFFFFFFFFFFull) | (uint64_t)(1 + st % 2046) << 52;
        double any; /* every bit random but a finite value's: a chunk deflate cannot shrink */
        memcpy(&any, &bits, sizeof any);
        smp.dev[0].tau[j] = j == 0 ? r : j == 1 ? (i % 7 ? 0.0 : -0.0) : j == 2 ? (i % 5 ? NAN : -INFINITY)
                          : j == 3 ? any : j == 4 ? 1e-300 * r : (double)(i / 3000);
    }
}

/* trace.h5's /trace holds every value bit for bit as trace_values gives it rounded to the trace's precision (t
 * and line exact; at 17 digits every bit), read back through libhdf5's own shuffle and deflate filters, over
 * several blocks and a last partial one, with the writer thread and rows skipped by `every`; its mantissa_bits
 * attribute says the precision. */
static void h5_bits_at(int digits)
{
    setup();
    char buf[64];
    const char *path = tmp_file(buf, sizeof buf, "trace_bits.h5");
    const long cycles = 3 * (2 * TRACE_H5_CHUNK + 1234), every = 3, rows = cycles / every;
    const int mbits = trace_mantissa_bits(digits);
    Trace tr;
    char err[256];
    TraceOptions o = {.digits = digits, .every = every, .format = TRACE_H5};
    REQUIRE(trace_open(&tr, path, &lay, &o, err, sizeof err) == 0);
    for (long i = 0; i < cycles; i++) {
        fill_rough(i);
        CHECK(trace_row(&tr, &smp) == 0);
    }
    CHECK(trace_close(&tr, err, sizeof err) == 0);
    int nc = trace_column_count(&lay);
    double *got = malloc((size_t)rows * (size_t)nc * sizeof *got), *want = malloc((size_t)nc * sizeof *want);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), ds = f >= 0 ? H5Dopen2(f, "trace", H5P_DEFAULT) : -1;
    hid_t sp = ds >= 0 ? H5Dget_space(ds) : -1;
    hsize_t dim[2] = {0, 0};
    CHECK(sp >= 0 && H5Sget_simple_extent_dims(sp, dim, NULL) == 2 && dim[0] == (hsize_t)rows &&
          dim[1] == (hsize_t)nc);
    CHECK(got && want && ds >= 0 && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
    long bad = 0, exact = 0;
    for (long i = 0; i < rows && got && want; i++) {
        fill_rough(i * every);
        trace_values(&lay, &smp, want);
        for (int c = 0; c < nc; c++) {
            double w = c == 0 || c == nc - 1 ? want[c] : trace_round(want[c], mbits);
            bad += memcmp(got + i * nc + c, &w, sizeof w) != 0;
            exact += memcmp(got + i * nc + c, want + c, sizeof w) == 0;
        }
    }
    CHECK(bad == 0);
    CHECK(mbits == 52 ? exact == rows * nc : exact < rows * nc); /* the rounding did happen */
    long attr = -1;
    hid_t a = ds >= 0 ? H5Aopen(ds, "mantissa_bits", H5P_DEFAULT) : -1;
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_LONG, &attr) >= 0 && attr == mbits);
    if (a >= 0) H5Aclose(a);
    if (sp >= 0) H5Sclose(sp);
    if (ds >= 0) H5Dclose(ds);
    if (f >= 0) H5Fclose(f);
    free(got), free(want);
    remove(path);
}

UTEST(h5_bits)
{
    h5_bits_at(0);  /* the default, 9 digits: 36 bits */
    h5_bits_at(12); /* 44 bits */
    h5_bits_at(17); /* every bit */
}

/* Cost of one row of a 6-axis device with a pose (the dry-run target: well under 5 us). */
UTEST(row_cost)
{
    setup();
    lay.ndev = 1;
    Trace tr;
    char err[256];
    char buf[64];
    const char *p = tmp_file(buf, sizeof buf, "trace_bench.csv");
    REQUIRE(trace_open(&tr, p, &lay, NULL, err, sizeof err) == 0);
    const long N = 200000;
    struct timespec t0, t1;
    fill(12345);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (long i = 0; i < N; i++) {
        smp.t = i * 1e-3;
        smp.dev[0].q[0] = smp.t * 0.37; /* vary something so nothing is cached */
        trace_row(&tr, &smp);
    }
    CHECK(trace_close(&tr, err, sizeof err) == 0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / N;
    long len;
    char *b = slurp(p, &len);
    printf("#   trace row (6 axes + pose, 32 numbers): %.3f us CPU per row, %.0f bytes per row\n", us,
           (double)len / (N + 1));
    free(b);
    remove(p);
}

int main(void)
{
    RUN(format_vs_printf);
    RUN(format_17_digits_vs_printf);
    RUN(rounding);
    RUN(header_rows_determinism);
    RUN(thinned_copy);
    RUN(h5_bits);
    RUN(row_cost);
    return utest_done();
}
