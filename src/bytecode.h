/* bytecode.h — the .irlc file: write a Chunk to it, read one back and verify it before anything runs.
 * The format (magic, version, checksum, sections) is documented in docs/BYTECODE.md; the checks the loader
 * makes are in src/verify.h. Status convention: 0 success, < 0 error with a one-line message in err. */
#ifndef IRL_BYTECODE_H
#define IRL_BYTECODE_H

#include <stddef.h>

typedef struct Chunk Chunk; /* src/chunk.h */

enum {
    BC_OK = 0,
    BC_EIO = -1,      /* file missing or unreadable, or cannot be written: the CLI exits 66 (73 would be
                         EX_CANTCREAT, but the CLI's contract maps every I/O failure to 66) */
    BC_EINVALID = -2, /* not a valid .irlc: bad magic, version, checksum, truncated, fails verification: exit 65 */
};

/* Writes c to path, deterministically (the same chunk gives a byte-identical file). */
int bytecode_write(const Chunk *c, const char *path, char *err, size_t errlen);

/* Reads path into *out (which the caller then frees with chunk_free) and verifies it (verify_chunk); on error
 * *out is left empty (nothing to free) and err holds "path: message". */
int bytecode_load(const char *path, Chunk *out, char *err, size_t errlen);

/* The same from memory (the fuzzer's door); messages carry no path. */
int bytecode_read_mem(const unsigned char *buf, size_t len, Chunk *out, char *err, size_t errlen);

/* Serialises c into a fresh malloc'd buffer (*buf, *len; the caller frees it). 0 or BC_EIO (out of memory). */
int bytecode_write_mem(const Chunk *c, unsigned char **buf, size_t *len);

/* Recomputes and stores the checksum of a serialised file in place (tests mutate a file, then re-stamp it so
 * the verifier, not the checksum, has to catch the damage). Returns 0, or BC_EINVALID if len is too short. */
int bytecode_restamp(unsigned char *buf, size_t len);

#endif
