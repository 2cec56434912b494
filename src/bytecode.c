/* bytecode.c — the .irlc file format (docs/BYTECODE.md): a deterministic writer and a bounds-checked reader that
 * hands the chunk to the verifier before anyone can run it. Every count read from the file is checked against the
 * bytes that remain, so no hostile count can cause an overflow or an allocation larger than the file itself. */
#include "bytecode.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "verify.h"

/* ---- Layout constants (docs/BYTECODE.md). ------------------------------------------------------------------ */
static const unsigned char bc_magic[8] = {'I', 'R', 'L', 'C', '\r', '\n', 0x1a, '\n'};
enum {
    BC_VERSION = 1,
    BC_HEADER = 24,        /* magic 8, version 4, flags 4, length 4, crc 4 */
    BC_CRC_AT = 20,        /* offset of the checksum field; the CRC covers [BC_HEADER, length) */
    BC_SECTION_HEAD = 12,  /* tag 4, count 4, size 4 */
    BC_MAX_FILE = 1 << 30, /* 1 GiB: far beyond any real program, keeps every size in 32 bits */
};

/* The sections, in the one order a file must have them: tag and fixed record size (0: variable). */
enum { S_KINT, S_KREAL, S_KSTR, S_FILES, S_ROUTINES, S_PKINDS, S_CODE, S_LINES, S_STMTS, S_GLOBALS, S_DEVICES,
       S_IOS, S_COUNT };
static const struct {
    char tag[5];
    unsigned recsize;
    const char *what;
} bc_sections[S_COUNT] = {
    [S_KINT] = {"KINT", 8, "INT constants"},      [S_KREAL] = {"KREA", 8, "REAL constants"},
    [S_KSTR] = {"KSTR", 0, "STRING constants"},   [S_FILES] = {"FILE", 4, "source files"},
    [S_ROUTINES] = {"ROUT", 44, "routines"},      [S_PKINDS] = {"PKND", 1, "parameter kinds"},
    [S_CODE] = {"CODE", 8, "code"},               [S_LINES] = {"LINE", 12, "line table"},
    [S_STMTS] = {"STMT", 8, "statement table"},   [S_GLOBALS] = {"GLOB", 4, "globals"},
    [S_DEVICES] = {"DEVS", 12, "devices"},        [S_IOS] = {"IOPT", 16, "I/O points"},
};

/* ---- CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bitwise: files are small, clarity wins. ---------- */
static uint32_t crc32_bytes(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/* ---- Writer: a growable little-endian byte buffer. ----------------------------------------------------------- */
typedef struct Buf {
    unsigned char *p;
    size_t len, cap;
    int oom;
} Buf;

/* Makes room for n more bytes; on failure sets oom and returns 0. */
static int buf_room(Buf *b, size_t n)
{
    if (b->oom) return 0;
    if (b->len + n <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    unsigned char *q = realloc(b->p, cap);
    if (!q) {
        b->oom = 1;
        return 0;
    }
    b->p = q;
    b->cap = cap;
    return 1;
}

static void put_bytes(Buf *b, const void *src, size_t n)
{
    if (n && buf_room(b, n)) {
        memcpy(b->p + b->len, src, n);
        b->len += n;
    }
}

static void put_u8(Buf *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    put_bytes(b, &c, 1);
}

static void put_u32(Buf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put_bytes(b, c, 4);
}

static void put_u64(Buf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

static void put_i32(Buf *b, int32_t v) { put_u32(b, (uint32_t)v); }

static void put_f64(Buf *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u); /* the exact bits: NaN payloads and -0.0 survive */
    put_u64(b, u);
}

/* Writes a section header with a placeholder size; returns where the size goes (patched by section_end). */
static size_t section_begin(Buf *b, int s, int32_t count)
{
    put_bytes(b, bc_sections[s].tag, 4);
    put_u32(b, (uint32_t)count);
    size_t at = b->len;
    put_u32(b, 0);
    return at;
}

static void patch_u32(Buf *b, size_t at, uint32_t v)
{
    if (b->oom) return;
    b->p[at] = (unsigned char)v, b->p[at + 1] = (unsigned char)(v >> 8);
    b->p[at + 2] = (unsigned char)(v >> 16), b->p[at + 3] = (unsigned char)(v >> 24);
}

static void section_end(Buf *b, size_t at) { patch_u32(b, at, (uint32_t)(b->len - at - 4)); }

/* Serialises c into a fresh buffer: header, the sections in their fixed order, then length and CRC patched in. */
int bytecode_write_mem(const Chunk *c, unsigned char **out, size_t *outlen)
{
    Buf b = {0};
    size_t at;
    put_bytes(&b, bc_magic, 8);
    put_u32(&b, BC_VERSION);
    put_u32(&b, 0); /* flags */
    put_u32(&b, 0); /* length, patched */
    put_u32(&b, 0); /* crc, patched */

    at = section_begin(&b, S_KINT, c->nkint);
    for (int32_t i = 0; i < c->nkint; i++) put_u64(&b, (uint64_t)c->kint[i]);
    section_end(&b, at);
    at = section_begin(&b, S_KREAL, c->nkreal);
    for (int32_t i = 0; i < c->nkreal; i++) put_f64(&b, c->kreal[i]);
    section_end(&b, at);
    at = section_begin(&b, S_KSTR, c->nkstr);
    for (int32_t i = 0; i < c->nkstr; i++) {
        put_u32(&b, (uint32_t)c->kstr[i].len);
        put_bytes(&b, c->kstr[i].text, (size_t)c->kstr[i].len);
    }
    section_end(&b, at);
    at = section_begin(&b, S_FILES, c->nfiles);
    for (int32_t i = 0; i < c->nfiles; i++) put_i32(&b, c->files[i]);
    section_end(&b, at);
    at = section_begin(&b, S_ROUTINES, c->nroutines);
    for (int32_t i = 0; i < c->nroutines; i++) {
        const ChunkRoutine *r = &c->routines[i];
        int32_t f[11] = {r->name, r->entry, r->end, r->nparams, r->kinds, r->param_slots,
                         r->frame_size, r->result_slots, r->handler, r->line, r->file};
        for (int k = 0; k < 11; k++) put_i32(&b, f[k]);
    }
    section_end(&b, at);
    at = section_begin(&b, S_PKINDS, c->nparam_kinds);
    for (int32_t i = 0; i < c->nparam_kinds; i++) put_u8(&b, c->param_kinds[i]);
    section_end(&b, at);
    at = section_begin(&b, S_CODE, c->ncode);
    for (int32_t i = 0; i < c->ncode; i++) put_u64(&b, c->code[i]);
    section_end(&b, at);
    at = section_begin(&b, S_LINES, c->ncode);
    for (int32_t i = 0; i < c->ncode; i++) {
        put_i32(&b, c->lines[i].line);
        put_i32(&b, c->lines[i].col);
        put_i32(&b, c->lines[i].file);
    }
    section_end(&b, at);
    at = section_begin(&b, S_STMTS, c->nstmts);
    for (int32_t i = 0; i < c->nstmts; i++) {
        put_i32(&b, c->stmts[i].start);
        put_i32(&b, c->stmts[i].end);
    }
    section_end(&b, at);
    at = section_begin(&b, S_GLOBALS, 1);
    put_i32(&b, c->nglobals);
    section_end(&b, at);
    at = section_begin(&b, S_DEVICES, c->ndevices);
    for (int32_t i = 0; i < c->ndevices; i++) {
        put_i32(&b, c->devices[i].name);
        put_i32(&b, c->devices[i].backend);
        put_i32(&b, c->devices[i].file);
    }
    section_end(&b, at);
    at = section_begin(&b, S_IOS, c->nios);
    for (int32_t i = 0; i < c->nios; i++) {
        put_i32(&b, c->ios[i].name);
        put_i32(&b, c->ios[i].kind);
        put_u64(&b, (uint64_t)c->ios[i].channel);
    }
    section_end(&b, at);

    if (b.oom || b.len > BC_MAX_FILE) {
        free(b.p);
        return BC_EIO;
    }
    patch_u32(&b, 16, (uint32_t)b.len);
    bytecode_restamp(b.p, b.len);
    *out = b.p;
    *outlen = b.len;
    return BC_OK;
}

/* Stores the CRC-32 of buf[BC_HEADER, len) in the header. */
int bytecode_restamp(unsigned char *buf, size_t len)
{
    if (len < BC_HEADER) return BC_EINVALID;
    uint32_t crc = crc32_bytes(buf + BC_HEADER, len - BC_HEADER);
    buf[BC_CRC_AT] = (unsigned char)crc, buf[BC_CRC_AT + 1] = (unsigned char)(crc >> 8);
    buf[BC_CRC_AT + 2] = (unsigned char)(crc >> 16), buf[BC_CRC_AT + 3] = (unsigned char)(crc >> 24);
    return BC_OK;
}

/* Writes c to path (through a temporary beside it, renamed into place, so a failed write leaves no half file). */
int bytecode_write(const Chunk *c, const char *path, char *err, size_t errlen)
{
    unsigned char *buf;
    size_t len;
    if (bytecode_write_mem(c, &buf, &len) != BC_OK) {
        snprintf(err, errlen, "%s: cannot serialise the program (out of memory or over 1 GiB)", path);
        return BC_EIO;
    }
    size_t tlen = strlen(path) + 8;
    char *tmp = malloc(tlen);
    FILE *f = tmp ? (snprintf(tmp, tlen, "%s.tmp~", path), fopen(tmp, "wb")) : NULL;
    int ok = f && fwrite(buf, 1, len, f) == len;
    int e = errno;
    if (f && fclose(f) != 0 && ok) ok = 0, e = errno;
    if (ok && rename(tmp, path) != 0) ok = 0, e = errno;
    if (!ok) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(e));
        if (tmp) remove(tmp);
    }
    free(tmp);
    free(buf);
    return ok ? BC_OK : BC_EIO;
}

/* ---- Reader: a cursor over the file that refuses to step past its end. -------------------------------------- */
typedef struct Reader {
    const unsigned char *p;
    size_t len, pos;
    char *err;
    size_t errlen;
} Reader;

/* Records the first error (the rest would only be its consequences) and returns BC_EINVALID. */
static int bad(Reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    return BC_EINVALID;
}

static uint32_t get_u32_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get_u64_at(const unsigned char *p) { return get_u32_at(p) | (uint64_t)get_u32_at(p + 4) << 32; }

/* Callers have checked that the bytes are there (section sizes are checked against the remaining length). */
static uint32_t get_u32(Reader *r) { uint32_t v = get_u32_at(r->p + r->pos); r->pos += 4; return v; }
static int32_t get_i32(Reader *r) { return (int32_t)get_u32(r); }
static uint64_t get_u64(Reader *r) { uint64_t v = get_u64_at(r->p + r->pos); r->pos += 8; return v; }

/* Allocates n elements of size sz, zeroed (n is bounded by the file size, so this is never huge). */
static void *alloc_n(size_t n, size_t sz) { return calloc(n ? n : 1, sz); }

/* Reads one section header: tag must be section s; its count and size must fit what remains and agree with the
 * fixed record size. *count gets the count (<= INT32_MAX), the cursor is left at the payload. */
static int section_head(Reader *r, int s, int32_t *count, size_t *size)
{
    if (r->len - r->pos < BC_SECTION_HEAD)
        return bad(r, "truncated: the %s section header is missing", bc_sections[s].what);
    if (memcmp(r->p + r->pos, bc_sections[s].tag, 4) != 0)
        return bad(r, "expected the %s section (%s) at byte %zu", bc_sections[s].what, bc_sections[s].tag, r->pos);
    r->pos += 4;
    uint32_t n = get_u32(r), sz = get_u32(r);
    if (sz > r->len - r->pos)
        return bad(r, "truncated: the %s section claims %u bytes, %zu remain", bc_sections[s].what, sz,
                   r->len - r->pos);
    if (n > (uint32_t)INT32_MAX) return bad(r, "the %s section's count %u is too large", bc_sections[s].what, n);
    unsigned rec = bc_sections[s].recsize;
    if (rec ? (uint64_t)n * rec != sz : (uint64_t)n * 4 > sz)
        return bad(r, "the %s section's size %u does not match its count %u", bc_sections[s].what, sz, n);
    *count = (int32_t)n;
    *size = sz;
    return BC_OK;
}

#define SECTION(s, n)                                                                                  \
    do {                                                                                               \
        size_t sz_;                                                                                    \
        if ((rc = section_head(&r, (s), &(n), &sz_)) != BC_OK) goto fail;                              \
    } while (0)
#define ALLOC(arr, n)                                                                                  \
    do {                                                                                               \
        if (!((arr) = alloc_n((size_t)(n), sizeof *(arr)))) {                                          \
            rc = bad(&r, "out of memory");                                                             \
            goto fail;                                                                                 \
        }                                                                                              \
    } while (0)

/* Decodes the sections into out (every array owned by out; chunk_free releases a partial one). */
static int read_sections(Reader *rd, Chunk *c)
{
    Reader r = *rd;
    int rc = BC_OK;
    int32_t n;

    SECTION(S_KINT, n);
    ALLOC(c->kint, n);
    c->nkint = c->capkint = n;
    for (int32_t i = 0; i < n; i++) c->kint[i] = (int64_t)get_u64(&r);

    SECTION(S_KREAL, n);
    ALLOC(c->kreal, n);
    c->nkreal = c->capkreal = n;
    for (int32_t i = 0; i < n; i++) {
        uint64_t u = get_u64(&r);
        memcpy(&c->kreal[i], &u, sizeof u);
    }

    size_t size;
    if ((rc = section_head(&r, S_KSTR, &n, &size)) != BC_OK) goto fail;
    size_t end = r.pos + size;
    ALLOC(c->kstr, n);
    c->capkstr = n;
    for (int32_t i = 0; i < n; i++) {
        if (end - r.pos < 4) {
            rc = bad(&r, "STRING constant %d runs past its section", i);
            goto fail;
        }
        uint32_t len = get_u32(&r);
        if (len > end - r.pos) {
            rc = bad(&r, "STRING constant %d (%u bytes) runs past its section", i, len);
            goto fail;
        }
        char *s = malloc((size_t)len + 1);
        if (!s) {
            rc = bad(&r, "out of memory");
            goto fail;
        }
        memcpy(s, r.p + r.pos, len);
        s[len] = '\0';
        r.pos += len;
        c->kstr[i] = (ChunkString){s, (int32_t)len};
        c->nkstr = i + 1;
    }
    if (r.pos != end) {
        rc = bad(&r, "the STRING constants section has %zu stray bytes", end - r.pos);
        goto fail;
    }

    SECTION(S_FILES, n);
    ALLOC(c->files, n);
    c->nfiles = c->capfiles = n;
    for (int32_t i = 0; i < n; i++) c->files[i] = get_i32(&r);

    SECTION(S_ROUTINES, n);
    ALLOC(c->routines, n);
    c->nroutines = c->caproutines = n;
    for (int32_t i = 0; i < n; i++) {
        ChunkRoutine *rt = &c->routines[i];
        rt->name = get_i32(&r), rt->entry = get_i32(&r), rt->end = get_i32(&r), rt->nparams = get_i32(&r);
        rt->kinds = get_i32(&r), rt->param_slots = get_i32(&r), rt->frame_size = get_i32(&r);
        rt->result_slots = get_i32(&r), rt->handler = get_i32(&r), rt->line = get_i32(&r), rt->file = get_i32(&r);
    }

    SECTION(S_PKINDS, n);
    ALLOC(c->param_kinds, n);
    c->nparam_kinds = c->capparam_kinds = n;
    for (int32_t i = 0; i < n; i++) c->param_kinds[i] = r.p[r.pos++];

    SECTION(S_CODE, n);
    ALLOC(c->code, n);
    c->ncode = c->capcode = n;
    for (int32_t i = 0; i < n; i++) c->code[i] = get_u64(&r);

    SECTION(S_LINES, n);
    if (n != c->ncode) {
        rc = bad(&r, "the line table has %d entries for %d instructions", n, c->ncode);
        goto fail;
    }
    ALLOC(c->lines, n);
    for (int32_t i = 0; i < n; i++) {
        c->lines[i].line = get_i32(&r);
        c->lines[i].col = get_i32(&r);
        c->lines[i].file = get_i32(&r);
    }

    SECTION(S_STMTS, n);
    ALLOC(c->stmts, n);
    c->nstmts = c->capstmts = n;
    for (int32_t i = 0; i < n; i++) c->stmts[i].start = get_i32(&r), c->stmts[i].end = get_i32(&r);

    SECTION(S_GLOBALS, n);
    if (n != 1) {
        rc = bad(&r, "the globals section must hold one count, not %d", n);
        goto fail;
    }
    c->nglobals = get_i32(&r);

    SECTION(S_DEVICES, n);
    ALLOC(c->devices, n);
    c->ndevices = c->capdevices = n;
    for (int32_t i = 0; i < n; i++)
        c->devices[i].name = get_i32(&r), c->devices[i].backend = get_i32(&r), c->devices[i].file = get_i32(&r);

    SECTION(S_IOS, n);
    ALLOC(c->ios, n);
    c->nios = c->capios = n;
    for (int32_t i = 0; i < n; i++) {
        c->ios[i].name = get_i32(&r);
        c->ios[i].kind = get_i32(&r);
        c->ios[i].channel = (int64_t)get_u64(&r);
    }

    if (r.pos != r.len) rc = bad(&r, "%zu stray bytes after the last section", r.len - r.pos);
fail:
    *rd = r;
    return rc;
}

/* Checks the header (magic, version, flags, length, CRC), decodes the sections and verifies the chunk. */
int bytecode_read_mem(const unsigned char *buf, size_t len, Chunk *out, char *err, size_t errlen)
{
    Reader r = {buf, len, 0, err, errlen};
    memset(out, 0, sizeof *out);
    if (len < 8 || memcmp(buf, bc_magic, 8) != 0) return bad(&r, "not an irl bytecode file (bad magic number)");
    if (len < BC_HEADER) return bad(&r, "truncated: %zu bytes, the header alone takes %d", len, BC_HEADER);
    uint32_t version = get_u32_at(buf + 8), flags = get_u32_at(buf + 12), flen = get_u32_at(buf + 16);
    if (version != BC_VERSION)
        return bad(&r, "bytecode format version %u, this irl reads version %d (recompile the program)", version,
                   BC_VERSION);
    if (flags != 0) return bad(&r, "unknown flags 0x%x in the header", flags);
    if (flen != len)
        return bad(&r, flen > len ? "truncated: %zu bytes of the %u the header announces"
                                  : "%zu bytes where the header announces %u", len, flen);
    if (len > BC_MAX_FILE) return bad(&r, "file larger than 1 GiB");
    uint32_t crc = crc32_bytes(buf + BC_HEADER, len - BC_HEADER);
    if (crc != get_u32_at(buf + BC_CRC_AT))
        return bad(&r, "checksum mismatch (the file is corrupted): CRC-32 %08x, header says %08x", crc,
                   get_u32_at(buf + BC_CRC_AT));
    r.pos = BC_HEADER;
    int rc = read_sections(&r, out);
    if (rc == BC_OK) rc = verify_chunk(out, err, errlen) == 0 ? BC_OK : BC_EINVALID;
    if (rc != BC_OK) chunk_free(out);
    return rc;
}

/* Reads the whole file, then bytecode_read_mem; messages are prefixed with the path. */
int bytecode_load(const char *path, Chunk *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return BC_EIO;
    }
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = BC_OK;
    for (;;) {
        if (len == cap) {
            if (cap > BC_MAX_FILE) break; /* one byte over the limit: read_mem rejects it */
            size_t ncap = cap ? cap * 2 : 1 << 16;
            if (ncap > (size_t)BC_MAX_FILE + 1) ncap = (size_t)BC_MAX_FILE + 1;
            unsigned char *q = realloc(buf, ncap);
            if (!q) {
                snprintf(err, errlen, "%s: out of memory reading the file", path);
                rc = BC_EIO;
                break;
            }
            buf = q, cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
                rc = BC_EIO;
            }
            break;
        }
    }
    fclose(f);
    if (rc == BC_OK) {
        char msg[512];
        rc = bytecode_read_mem(buf, len, out, msg, sizeof msg);
        if (rc != BC_OK) snprintf(err, errlen, "%s: invalid bytecode: %s", path, msg);
    }
    free(buf);
    return rc;
}
