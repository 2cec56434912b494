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
    BC_VERSION = 2,
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

/* ---- CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320: the zlib/PNG CRC), one table lookup per byte. The
 * table is crc_table[n] = the CRC register after shifting n through 8 rounds of the bitwise algorithm. --------- */
static const uint32_t crc_table[256] = {
    0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu, 0xe963a535u, 0x9e6495a3u,
    0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u, 0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u,
    0x1db71064u, 0x6ab020f2u, 0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
    0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u, 0xfa0f3d63u, 0x8d080df5u,
    0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u, 0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu,
    0x35b5a8fau, 0x42b2986cu, 0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
    0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u, 0xcfba9599u, 0xb8bda50fu,
    0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u, 0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du,
    0x76dc4190u, 0x01db7106u, 0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
    0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du, 0x91646c97u, 0xe6635c01u,
    0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu, 0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u,
    0x65b0d9c6u, 0x12b7e950u, 0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
    0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u, 0xa4d1c46du, 0xd3d6f4fbu,
    0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u, 0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u,
    0x5005713cu, 0x270241aau, 0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
    0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u, 0xb7bd5c3bu, 0xc0ba6cadu,
    0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au, 0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u,
    0xe3630b12u, 0x94643b84u, 0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
    0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu, 0x196c3671u, 0x6e6b06e7u,
    0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu, 0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u,
    0xd6d6a3e8u, 0xa1d1937eu, 0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
    0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u, 0x316e8eefu, 0x4669be79u,
    0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u, 0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu,
    0xc5ba3bbeu, 0xb2bd0b28u, 0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
    0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu, 0x72076785u, 0x05005713u,
    0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u, 0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u,
    0x86d3d2d4u, 0xf1d4e242u, 0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
    0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u, 0x616bffd3u, 0x166ccf45u,
    0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u, 0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu,
    0xaed16a4au, 0xd9d65adcu, 0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
    0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u, 0x54de5729u, 0x23d967bfu,
    0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u, 0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

static uint32_t crc32_bytes(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
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
