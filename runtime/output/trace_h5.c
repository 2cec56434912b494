/* trace_h5.c — the HDF5 trace (trace_h5.h): its writer, fed one row of values per cycle by trace.c, and its
 * reader that prints it back as the CSV trace. Only this file calls libhdf5.
 *
 * Compressing is most of the writer's cost, so a writer thread does it: rows fill one of two blocks while the
 * thread writes the other. The library (a serial build) is called by one thread at a time: the writer thread
 * between open and close, the caller's thread outside. The chunks are packed here (pack_chunk: the shuffle, then
 * ISA-L's deflate) and written as they are (H5Dwrite_chunk), in the format of the dataset's own shuffle + deflate
 * filters, which every reader undoes: libhdf5's filters through zlib cost 5 times the time (docs/RUNNING.md).
 * The library is called through output/h5_loader.h's table, loaded by the first trace_h5_open or _export. */
#include "output/trace_h5.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <isa-l/igzip_lib.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "osal.h"
#include "output/h5_loader.h"

#define FORMAT_NAME "irl-trace 1"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pack_chunk stores a double's bytes in memory order as the file's little-endian ones"
#endif

enum { WR_IDLE, WR_BUSY, WR_QUIT };
#define DEFLATE_LEVEL 1     /* ISA-L's level 1 (docs/RUNNING.md: level 3 takes twice the time for 1 % less) */
#define CHUNK_BYTES (8 * TRACE_H5_CHUNK)

struct TraceH5 {
    const H5Api *h5;      /* the library; NULL until open_file has loaded it */
    hid_t file, ds;       /* -1 until open_file has created them */
    int ncols;
    char *path;           /* what open_file makes the file and its header of */
    const SampleLayout *lay;
    const TraceColumn *cols;
    const TraceOptions *opt;
    double *buf[2];       /* blocks of TRACE_H5_CHUNK rows as they came (row r at buf[k][r * ncols]): the writer
                           * thread regroups them by column, the cycle only copies a row */
    int cur;              /* the block being filled */
    long nbuf, written;   /* rows in the current block, rows in the file */
    long pend_rows;       /* rows of the other block, handed to the writer thread */
    _Atomic uint32_t state; /* WR_IDLE, WR_BUSY (the other block is being written), WR_QUIT */
    OsalThread thread;
    int threaded;         /* the writer thread runs (else blocks are written in the caller's thread) */
    _Atomic int failed;   /* a call into the library failed */
    char why[512];        /* trace_h5_incomplete's reason; "" = complete */
    char err[768];        /* the first failure */
    uint8_t *level_buf;   /* ISA-L's work area for DEFLATE_LEVEL, ISAL_DEF_LVL1_DEFAULT bytes */
    uint8_t *plane;       /* a block regrouped into byte planes, column c's at plane[c * CHUNK_BYTES] */
    uint8_t *packed;      /* one column's chunk as stored, PACKED_CAP bytes */
};

#define PACKED_CAP (2 * CHUNK_BYTES) /* above deflate's worst case (stored blocks, 5 bytes in 65535, and the frame) */

/* {====================================================================== writer */

static void *writer(void *arg);

static void free_writer(TraceH5 *h)
{
    free(h->buf[0]), free(h->level_buf), free(h->plane), free(h->packed), free(h->path), free(h);
}

/* Record the first failure. */
static void fail(TraceH5 *h, const char *what)
{
    if (!h->failed) snprintf(h->err, sizeof h->err, "trace.h5: %s failed", what);
    h->failed = 1;
}

/* A variable-length UTF-8 string type (the caller closes it). */
static hid_t str_type(const H5Api *h5)
{
    hid_t t = h5->Tcopy(h5->T_C_S1);
    h5->Tset_size(t, H5T_VARIABLE);
    h5->Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* Attribute `name` of obj: n strings (n = 0: one scalar string). */
static void attr_strings(TraceH5 *h, hid_t obj, const char *name, const char *const *v, int n)
{
    const H5Api *h5 = h->h5;
    hsize_t dim = (hsize_t)n;
    hid_t t = str_type(h5), sp = n ? h5->Screate_simple(1, &dim, NULL) : h5->Screate(H5S_SCALAR);
    hid_t a = h5->Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || h5->Awrite(a, t, v) < 0) fail(h, name);
    if (a >= 0) h5->Aclose(a);
    h5->Sclose(sp), h5->Tclose(t);
}

static void attr_string(TraceH5 *h, hid_t obj, const char *name, const char *v)
{
    attr_strings(h, obj, name, &v, 0);
}

/* Scalar numeric attribute of memory type mt (stored as ft). */
static void attr_num(TraceH5 *h, hid_t obj, const char *name, hid_t ft, hid_t mt, const void *v)
{
    const H5Api *h5 = h->h5;
    hid_t sp = h5->Screate(H5S_SCALAR);
    hid_t a = h5->Acreate2(obj, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || h5->Awrite(a, mt, v) < 0) fail(h, name);
    if (a >= 0) h5->Aclose(a);
    h5->Sclose(sp);
}

static void attr_double(TraceH5 *h, hid_t obj, const char *name, double v)
{
    const H5Api *h5 = h->h5;
    attr_num(h, obj, name, h5->T_IEEE_F64LE, h5->T_NATIVE_DOUBLE, &v);
}

static void attr_long(TraceH5 *h, hid_t obj, const char *name, long v)
{
    const H5Api *h5 = h->h5;
    attr_num(h, obj, name, h5->T_STD_I64LE, h5->T_NATIVE_LONG, &v);
}

/* The per-column string attribute `name` from field off of each column. */
static void attr_columns(TraceH5 *h, const TraceColumn *cols, int n, const char *name, size_t off)
{
    const char **v = malloc((size_t)n * sizeof *v);
    if (!v) return fail(h, "malloc");
    for (int c = 0; c < n; c++) v[c] = (const char *)&cols[c] + off;
    attr_strings(h, h->ds, name, v, n);
    free(v);
}

/* /devices/NAME: back-end, machine file, axes and joint names of every device. */
static void write_devices(TraceH5 *h, const SampleLayout *lay)
{
    const H5Api *h5 = h->h5;
    hid_t gcpl = h5->Pcreate(h5->P_GROUP_CREATE);
    h5->Pset_obj_track_times(gcpl, 0);
    hid_t g = h5->Gcreate2(h->file, "devices", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (g < 0) return h5->Pclose(gcpl), fail(h, "devices");
    for (int d = 0; d < lay->ndev; d++) {
        const SampleDeviceInfo *di = &lay->dev[d];
        const ModelDesc *m = di->desc;
        hid_t dg = h5->Gcreate2(g, di->name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
        if (dg < 0) {
            fail(h, di->name);
            continue;
        }
        attr_string(h, dg, "backend", m ? m->backend : "");
        attr_string(h, dg, "machine_file", m ? m->source : "");
        attr_long(h, dg, "axes", di->naxes);
        const char *names[SAMPLE_MAX_AXES];
        for (int i = 0; i < di->naxes; i++) names[i] = m && i < m->njoints ? m->joint[i].name : "";
        if (di->naxes) attr_strings(h, dg, "joints", names, di->naxes);
        h5->Gclose(dg);
    }
    h5->Gclose(g), h5->Pclose(gcpl);
}

/* /source: the program's lines, when its source text can be read (not for bytecode). */
static void write_source(TraceH5 *h, const char *program)
{
    const H5Api *h5 = h->h5;
    size_t plen = strlen(program);
    if (plen >= 5 && strcmp(program + plen - 5, ".irlc") == 0) return;
    FILE *f = fopen(program, "rb");
    if (!f) return;
    char *text = NULL;
    size_t cap = 0, len = 0, n;
    char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            char *t = realloc(text, cap = 2 * (len + n + 1));
            if (!t) break;
            text = t;
        }
        memcpy(text + len, chunk, n), len += n;
    }
    fclose(f);
    if (!text) return;
    text[len] = '\0';
    size_t nl = 1;
    for (size_t i = 0; i < len; i++) nl += text[i] == '\n';
    if (len && text[len - 1] == '\n') nl--;
    const char **lines = malloc(nl * sizeof *lines);
    if (lines) {
        size_t k = 0;
        for (char *p = text; k < nl;) {
            char *e = strchr(p, '\n');
            if (e) *e = '\0';
            lines[k++] = p;
            p = e ? e + 1 : p + strlen(p);
        }
        hsize_t dim = nl;
        hid_t t = str_type(h5), sp = h5->Screate_simple(1, &dim, NULL), dcpl = h5->Pcreate(h5->P_DATASET_CREATE);
        h5->Pset_obj_track_times(dcpl, 0);
        hid_t ds = h5->Dcreate2(h->file, "source", t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        h5->Pclose(dcpl);
        if (ds < 0 || h5->Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, lines) < 0) fail(h, "source");
        if (ds >= 0) attr_string(h, ds, "file", program), h5->Dclose(ds);
        h5->Sclose(sp), h5->Tclose(t);
    }
    free(lines), free(text);
}

/* The /trace dataset, empty and extendible, chunked by column, shuffle + deflate. */
static hid_t create_dataset(TraceH5 *h)
{
    const H5Api *h5 = h->h5;
    hsize_t dim[2] = {0, (hsize_t)h->ncols}, maxdim[2] = {H5S_UNLIMITED, (hsize_t)h->ncols};
    hsize_t chunk[2] = {TRACE_H5_CHUNK, 1};
    hid_t sp = h5->Screate_simple(2, dim, maxdim), dcpl = h5->Pcreate(h5->P_DATASET_CREATE);
    h5->Pset_chunk(dcpl, 2, chunk);
    h5->Pset_shuffle(dcpl);
    h5->Pset_deflate(dcpl, DEFLATE_LEVEL);
    h5->Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    h5->Pset_obj_track_times(dcpl, 0); /* no clock in the file: the same run gives the same bytes */
    hid_t ds = h5->Dcreate2(h->file, "trace", h5->T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    h5->Pclose(dcpl), h5->Sclose(sp);
    return ds;
}

/* Load the library (its first use), create the file and write its header. 0, or -1 with h->err: called by the
 * writer thread before its first block, so the milliseconds libhdf5 and its ~35 libraries take to load pass beside
 * the first block's cycles rather than before them. */
static int open_file(TraceH5 *h)
{
    char lib[400];
    const H5Api *h5 = h5_api(lib, sizeof lib);
    if (!h5) {
        snprintf(h->err, sizeof h->err, "cannot write the HDF5 trace: %s (--trace csv writes the trace without it)",
                 lib);
        h->failed = 1;
        return -1;
    }
    h5->Eset_auto2(H5E_DEFAULT, NULL, NULL); /* failures are reported here, not as the library's error stack */
    h->h5 = h5;
    h->file = h5->Fcreate(h->path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (h->file < 0) {
        snprintf(h->err, sizeof h->err, "%s: cannot create the HDF5 file: %s", h->path, strerror(errno ? errno : EIO));
        h->failed = 1;
        return -1;
    }
    h->ds = create_dataset(h);
    if (h->ds < 0) fail(h, "creating /trace");
    else {
        attr_columns(h, h->cols, h->ncols, "columns", offsetof(TraceColumn, name));
        attr_columns(h, h->cols, h->ncols, "units", offsetof(TraceColumn, unit));
        attr_columns(h, h->cols, h->ncols, "joints", offsetof(TraceColumn, joint));
        attr_long(h, h->ds, "mantissa_bits", trace_mantissa_bits(h->opt->digits));
    }
    const TraceMeta *m = h->opt->meta;
    attr_string(h, h->file, "format", FORMAT_NAME);
    attr_string(h, h->file, "irl_version", m && m->version ? m->version : "");
    attr_string(h, h->file, "program", m && m->program ? m->program : "");
    attr_double(h, h->file, "cycle_time", m ? m->cycle : NAN);
    attr_long(h, h->file, "digits", h->opt->digits);
    attr_long(h, h->file, "every", h->opt->every);
    write_devices(h, h->lay);
    if (m && m->program) write_source(h, m->program);
    return h->failed ? -1 : 0;
}

/* Close what open_file opened. */
static void close_file(TraceH5 *h)
{
    if (h->ds >= 0 && h->h5->Dclose(h->ds) < 0) fail(h, "closing /trace");
    if (h->file >= 0 && h->h5->Fclose(h->file) < 0) fail(h, "closing the file");
}

TraceH5 *trace_h5_open(const char *path, const SampleLayout *lay, const TraceColumn *cols, int ncols,
                       const TraceOptions *opt, char *err, size_t errlen)
{
    TraceH5 *h = calloc(1, sizeof *h);
    if (h) {
        h->buf[0] = malloc(2 * (size_t)ncols * TRACE_H5_CHUNK * sizeof *h->buf[0]);
        h->level_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
        h->plane = malloc((size_t)ncols * CHUNK_BYTES);
        h->packed = malloc(PACKED_CAP);
        h->path = strdup(path);
    }
    if (!h || !h->buf[0] || !h->level_buf || !h->plane || !h->packed || !h->path) {
        if (h) free_writer(h);
        snprintf(err, errlen, "trace: out of memory");
        return NULL;
    }
    h->buf[1] = h->buf[0] + (size_t)ncols * TRACE_H5_CHUNK;
    h->file = h->ds = -1;
    h->lay = lay, h->cols = cols, h->ncols = ncols, h->opt = opt;
    char why[160];
    atomic_init(&h->state, WR_BUSY); /* the writer thread opens the file first */
    h->threaded = osal_thread_start(&h->thread, writer, h, 0, 0, why, sizeof why) == 0;
    if (h->threaded) return h;
    atomic_init(&h->state, WR_IDLE);
    if (open_file(h) < 0) {
        snprintf(err, errlen, "%s", h->err);
        if (h->h5) close_file(h);
        free_writer(h);
        return NULL;
    }
    return h;
}

/* Sixteen bytes operated on together, and the same as two 8-byte words (SSE2 on x86-64: the byte shuffles below
 * are its unpack instructions). */
typedef uint8_t Bytes16 __attribute__((vector_size(16)));
typedef uint64_t Words2 __attribute__((vector_size(16)));

/* Byte orders for __builtin_shufflevector(a, b, ...) (a's bytes 0-15, b's 16-31): the low halves of a and b
 * interleaved byte by byte; the low or high halves interleaved two bytes at a time; four at a time. */
#define BY1 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define BY2_LO 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23
#define BY2_HI 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31
#define BY4_LO 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23
#define BY4_HI 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31

/* The 8 bytes at p in the low half of a vector. */
static inline Bytes16 load8(const double *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    return (Bytes16)(Words2){x, 0};
}

/* Store the halves of v at lo and hi. */
static inline void store_halves(uint8_t *lo, uint8_t *hi, Bytes16 v)
{
    uint64_t a = ((Words2)v)[0], b = ((Words2)v)[1];
    memcpy(lo, &a, sizeof a), memcpy(hi, &b, sizeof b);
}

/* Regroup block b (rows as they came, the rows past the data zeros) into h->plane as the shuffle filter orders
 * each column's chunk: byte k of every value together, k = 0 the least significant (the order for the file's
 * little-endian doubles). A tile of SHUFFLE_TILE rows (in L2) at a time, column by column within it, so only a
 * column's 8 plane stretches are being written at once: the planes lie 8 KB apart, in the same L1 set, and all
 * ncols columns' at once thrash it (3 times the time). A column's 8 x 8 bytes are transposed by interleaving the
 * rows' bytes in pairs, then pairs of those, then fours. */
#define SHUFFLE_TILE 256

static void shuffle_block(TraceH5 *h, const double *b)
{
    const size_t n = (size_t)h->ncols;
    enum { K = TRACE_H5_CHUNK };
    for (long t = 0; t < K; t += SHUFFLE_TILE)
        for (size_t c = 0; c < n; c++)
            for (long i = t; i < t + SHUFFLE_TILE; i += 8) {
                const double *v = b + (size_t)i * n + c;
                Bytes16 p0 = __builtin_shufflevector(load8(v), load8(v + n), BY1); /* rows 0 and 1, byte by byte */
                Bytes16 p1 = __builtin_shufflevector(load8(v + 2 * n), load8(v + 3 * n), BY1);
                Bytes16 p2 = __builtin_shufflevector(load8(v + 4 * n), load8(v + 5 * n), BY1);
                Bytes16 p3 = __builtin_shufflevector(load8(v + 6 * n), load8(v + 7 * n), BY1);
                Bytes16 q0 = __builtin_shufflevector(p0, p1, BY2_LO); /* rows 0-3, bytes 0-3 */
                Bytes16 q1 = __builtin_shufflevector(p0, p1, BY2_HI); /* rows 0-3, bytes 4-7 */
                Bytes16 q2 = __builtin_shufflevector(p2, p3, BY2_LO); /* rows 4-7 */
                Bytes16 q3 = __builtin_shufflevector(p2, p3, BY2_HI);
                uint8_t *pl = h->plane + c * CHUNK_BYTES + i;
                store_halves(pl, pl + K, __builtin_shufflevector(q0, q2, BY4_LO)); /* bytes 0, 1 of the 8 rows */
                store_halves(pl + 2 * K, pl + 3 * K, __builtin_shufflevector(q0, q2, BY4_HI));
                store_halves(pl + 4 * K, pl + 5 * K, __builtin_shufflevector(q1, q3, BY4_LO));
                store_halves(pl + 6 * K, pl + 7 * K, __builtin_shufflevector(q1, q3, BY4_HI));
            }
}

/* Deflate column c's planes into h->packed, a zlib stream (RFC 1950) by ISA-L: the chunk as the deflate filter
 * stores it. Returns the size, 0 after a failure. */
static size_t pack_chunk(TraceH5 *h, int c)
{
    struct isal_zstream z;
    isal_deflate_stateless_init(&z);
    z.level = DEFLATE_LEVEL, z.level_buf = h->level_buf, z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    z.gzip_flag = IGZIP_ZLIB, z.end_of_stream = 1, z.flush = NO_FLUSH;
    z.next_in = h->plane + (size_t)c * CHUNK_BYTES, z.avail_in = CHUNK_BYTES;
    z.next_out = h->packed, z.avail_out = PACKED_CAP;
    if (isal_deflate_stateless(&z) != COMP_OK) return fail(h, "compressing /trace"), 0;
    return z.total_out;
}

/* Append nrows rows of block b to /trace: one chunk per column (the rows past nrows zeroed), packed here and
 * written as it is. */
static void write_block(TraceH5 *h, double *b, long nrows)
{
    const H5Api *h5 = h->h5;
    if (!nrows || atomic_load(&h->failed)) return;
    hsize_t dim[2] = {(hsize_t)(h->written + nrows), (hsize_t)h->ncols};
    if (h5->Dset_extent(h->ds, dim) < 0) return fail(h, "extending /trace");
    memset(b + (size_t)nrows * h->ncols, 0, (size_t)(TRACE_H5_CHUNK - nrows) * h->ncols * sizeof *b);
    shuffle_block(h, b);
    for (int c = 0; c < h->ncols && !atomic_load(&h->failed); c++) {
        hsize_t offset[2] = {(hsize_t)h->written, (hsize_t)c};
        size_t size = pack_chunk(h, c);
        if (size && h5->Dwrite_chunk(h->ds, H5P_DEFAULT, 0, offset, size, h->packed) < 0) fail(h, "writing /trace");
    }
    h->written += nrows;
}

/* Wait until the writer thread has written the block it was given. */
static void wait_idle(TraceH5 *h)
{
    uint32_t s;
    while ((s = atomic_load(&h->state)) == WR_BUSY) osal_futex_wait(&h->state, s);
}

/* The writer thread: write each block handed over, until told to quit. */
static void *writer(void *arg)
{
    TraceH5 *h = arg;
    open_file(h);
    atomic_store(&h->state, WR_IDLE);
    osal_futex_wake(&h->state);
    for (;;) {
        uint32_t s;
        while ((s = atomic_load(&h->state)) == WR_IDLE) osal_futex_wait(&h->state, s);
        if (s == WR_QUIT) return NULL;
        write_block(h, h->buf[!h->cur], h->pend_rows);
        atomic_store(&h->state, WR_IDLE);
        osal_futex_wake(&h->state);
    }
}

/* The current block is full: hand it to the writer thread (or write it) and fill the other. */
static void hand_off(TraceH5 *h)
{
    if (!h->threaded) {
        write_block(h, h->buf[h->cur], h->nbuf);
        h->nbuf = 0;
        return;
    }
    wait_idle(h);
    h->pend_rows = h->nbuf;
    h->cur = !h->cur;
    h->nbuf = 0;
    atomic_store(&h->state, WR_BUSY);
    osal_futex_wake(&h->state);
}

int trace_h5_row(TraceH5 *h, const double *vals)
{
    memcpy(h->buf[h->cur] + (size_t)h->nbuf * h->ncols, vals, (size_t)h->ncols * sizeof *vals);
    if (++h->nbuf == TRACE_H5_CHUNK) hand_off(h);
    return atomic_load_explicit(&h->failed, memory_order_relaxed) ? -1 : 0;
}

const char *trace_h5_error(TraceH5 *h)
{
    return atomic_load(&h->failed) ? h->err : "";
}

void trace_h5_incomplete(TraceH5 *h, const char *why)
{
    snprintf(h->why, sizeof h->why, "%s", why && why[0] ? why : "the run ended early");
}

int trace_h5_close(TraceH5 *h, char *err, size_t errlen)
{
    if (h->threaded) {
        wait_idle(h);
        atomic_store(&h->state, WR_QUIT);
        osal_futex_wake(&h->state);
        osal_thread_join(h->thread);
    }
    const H5Api *h5 = h->h5;
    if (h5) { /* else the library did not load: nothing was opened */
        write_block(h, h->buf[h->cur], h->nbuf);
        if (h->file >= 0) {
            attr_long(h, h->file, "rows", h->written);
            attr_long(h, h->file, "complete", h->why[0] ? 0 : 1);
            if (h->why[0]) attr_string(h, h->file, "incomplete", h->why);
        }
        close_file(h);
    }
    int rc = h->failed ? -1 : 0;
    if (rc) snprintf(err, errlen, "%s", h->err);
    free_writer(h);
    return rc;
}

/* }====================================================================== */

/* {====================================================================== reader */

/* Read string attribute `name` of obj (n entries; a scalar when n = 1 and it is one) into v. 0 or -1. */
static int read_strings(const H5Api *h5, hid_t obj, const char *name, char **v, hsize_t n)
{
    hid_t a = h5->Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t sp = h5->Aget_space(a), t = str_type(h5);
    hssize_t have = h5->Sget_simple_extent_npoints(sp);
    int rc = have == (hssize_t)n && h5->Aread(a, t, v) >= 0 ? 0 : -1;
    h5->Tclose(t), h5->Sclose(sp), h5->Aclose(a);
    return rc;
}

/* Free what H5Aread put into v (variable-length strings). */
static void free_strings(const H5Api *h5, char **v, hsize_t n)
{
    hid_t t = str_type(h5), sp = h5->Screate_simple(1, &n, NULL);
    h5->reclaim(t, sp, H5P_DEFAULT, v);
    h5->Sclose(sp), h5->Tclose(t);
}

/* The columns to print: 0 (t), then the named ones (or every one). Returns the count, or -1 with a message. */
static int select_columns(char **names, int ncols, const char *channels, int *sel, char *err, size_t errlen)
{
    int n = 0;
    if (!channels) {
        for (int c = 0; c < ncols; c++) sel[n++] = c;
        return n;
    }
    sel[n++] = 0;
    for (const char *p = channels; *p;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int c = 0; c < ncols && found < 0; c++) /* the name, or an axis column's without its joint: arm.q2 */
            if (strncmp(names[c], p, len) == 0 && (names[c][len] == '\0' || (names[c][len] == '.' &&
                                                   !strchr(names[c] + len + 1, '.') && strchr(p, '.') < p + len)))
                found = c;
        if (found < 0) {
            snprintf(err, errlen, "no channel '%.*s' in the trace (its columns: %s, %s, ..., %s)", (int)len, p,
                     names[0], ncols > 1 ? names[1] : "", names[ncols - 1]);
            return -1;
        }
        if (found != 0 && n < ncols + 1) sel[n++] = found;
        p += len;
        if (*p == ',') p++;
    }
    return n;
}

/* Print rows [r0, r0 + nr) of the selected columns (read into col, TRACE_H5_CHUNK per column) that lie in
 * [from, to]; 1 when a row past `to` was met (t only grows), 0 otherwise, -1 on a read error. */
static int print_block(const H5Api *h5, hid_t ds, hid_t fs, const int *sel, int nsel, const TraceKind *kind,
                       int digits, hsize_t r0, hsize_t nr, double *col, char *line, const TraceExport *x, FILE *out)
{
    hsize_t mdim[2] = {nr, 1};
    hid_t ms = h5->Screate_simple(2, mdim, NULL);
    int rc = 0;
    for (int k = 0; k < nsel && rc == 0; k++) {
        hsize_t start[2] = {r0, (hsize_t)sel[k]}, count[2] = {nr, 1};
        if (h5->Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            h5->Dread(ds, h5->T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, col + (size_t)k * TRACE_H5_CHUNK) < 0)
            rc = -1;
    }
    h5->Sclose(ms);
    for (hsize_t r = 0; r < nr && rc == 0; r++) {
        double t = col[r];
        if (t > x->to) rc = 1;
        if (t < x->from || t > x->to) continue;
        char *p = line;
        for (int k = 0; k < nsel; k++) {
            if (k) *p++ = ',';
            p = trace_put_value(p, col[(size_t)k * TRACE_H5_CHUNK + r], kind[sel[k]], digits);
        }
        *p++ = '\n';
        fwrite(line, 1, (size_t)(p - line), out);
    }
    return rc;
}

int trace_h5_export(const char *path, const TraceExport *x, FILE *out, char *err, size_t errlen)
{
    const H5Api *h5 = h5_api(err, errlen);
    if (!h5) return TRACE_H5_ELIB;
    h5->Eset_auto2(H5E_DEFAULT, NULL, NULL);
    FILE *probe = fopen(path, "rb");
    if (!probe) return snprintf(err, errlen, "%s: %s", path, strerror(errno)), TRACE_H5_EIO;
    fclose(probe);
    hid_t file = h5->Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return snprintf(err, errlen, "%s: not an HDF5 file", path), TRACE_H5_EFORMAT;
    int rc = TRACE_H5_EFORMAT;
    char *fmt = NULL;
    hid_t ds = -1, fs = -1;
    char **names = NULL;
    int *sel = NULL;
    TraceKind *kind = NULL;
    double *col = NULL;
    char *line = NULL;
    long digits = 0;
    hsize_t dim[2] = {0, 0};
    hid_t da = h5->Aopen(file, "digits", H5P_DEFAULT);
    int ok = read_strings(h5, file, "format", &fmt, 1) == 0 && fmt && strcmp(fmt, FORMAT_NAME) == 0 && da >= 0 &&
             h5->Aread(da, h5->T_NATIVE_LONG, &digits) >= 0;
    if (da >= 0) h5->Aclose(da);
    if (fmt) free_strings(h5, &fmt, 1);
    if (ok) ds = h5->Dopen2(file, "trace", H5P_DEFAULT);
    if (ds >= 0) fs = h5->Dget_space(ds);
    ok = ok && fs >= 0 && h5->Sget_simple_extent_ndims(fs) == 2 && h5->Sget_simple_extent_dims(fs, dim, NULL) == 2 &&
         dim[1] >= 1;
    int ncols = (int)dim[1];
    if (ok) names = calloc(dim[1], sizeof *names);
    if (!ok || !names || read_strings(h5, ds, "columns", names, dim[1]) < 0) {
        snprintf(err, errlen, "%s: not an irl trace (no %s /trace with its columns)", path, FORMAT_NAME);
        goto done;
    }
    sel = malloc((size_t)(ncols + 1) * sizeof *sel);
    kind = malloc((size_t)ncols * sizeof *kind);
    col = malloc((size_t)(ncols + 1) * TRACE_H5_CHUNK * sizeof *col);
    line = malloc((size_t)(ncols + 1) * 34 + 2);
    if (!sel || !kind || !col || !line) {
        rc = TRACE_H5_EIO, snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (int c = 0; c < ncols; c++)
        kind[c] = c == 0 ? TRACE_KIND_TIME : c == ncols - 1 && strcmp(names[c], "line") == 0 ? TRACE_KIND_LINE
                                                                                            : TRACE_KIND_VALUE;
    int nsel = select_columns(names, ncols, x->channels, sel, err, errlen);
    if (nsel < 0) {
        rc = TRACE_H5_ECHANNEL;
        goto done;
    }
    for (int k = 0; k < nsel; k++) fprintf(out, "%s%s", k ? "," : "", names[sel[k]]);
    fputc('\n', out);
    rc = TRACE_H5_OK;
    for (hsize_t r0 = 0; r0 < dim[0]; r0 += TRACE_H5_CHUNK) {
        hsize_t nr = dim[0] - r0 < TRACE_H5_CHUNK ? dim[0] - r0 : TRACE_H5_CHUNK;
        int b = print_block(h5, ds, fs, sel, nsel, kind, (int)digits, r0, nr, col, line, x, out);
        if (b < 0) rc = TRACE_H5_EIO, snprintf(err, errlen, "%s: cannot read /trace", path);
        if (b != 0) break;
    }
done:
    if (names) {
        if (names[0]) free_strings(h5, names, dim[1]);
        free(names);
    }
    free(sel), free(kind), free(col), free(line);
    if (fs >= 0) h5->Sclose(fs);
    if (ds >= 0) h5->Dclose(ds);
    h5->Fclose(file);
    return rc;
}

/* }====================================================================== */
