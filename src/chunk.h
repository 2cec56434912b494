/* chunk.h — the in-memory program the code generator builds, the .irlc reader fills and the VM runs: code, constant
 * pools, routines, the line/column of every instruction, statement extents (for RETRY/SKIP), source file names,
 * the global slot count and the device/IO tables. Plain arrays of plain integers: nothing in a Chunk is a pointer
 * the program's data could turn into an address (strings and references are indices, checked where used).
 *
 * Invariants the verifier (src/verify.c) establishes for a loaded chunk, and the code generator respects:
 *  - kstr[0] is "" (the zero value of STRING); every string is NUL-terminated at text[len].
 *  - routines[0] is the main program: entry 0, frame base 0, its frame starts with the nglobals globals
 *    (frame_size >= nglobals), nparams 0, result_slots 0.
 *  - each routine owns the code range [entry, end); routines are sorted by entry and their ranges tile the code
 *    array; every instruction's operands are valid for the routine that contains it (see opcodes.h).
 *  - lines has ncode entries; a line's file < nfiles; files[] are indices into kstr.
 *  - stmts: extents [start, end) of the statements (start < end, both inside one routine); the innermost extent
 *    containing a failing pc is the statement RETRY restarts and SKIP steps over.
 *  - handler is -1 or a pc inside [entry, end) of the routine. */
#ifndef IRL_CHUNK_H
#define IRL_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "opcodes.h"

/* One 8-byte storage slot. */
typedef union Value {
    int64_t i;
    double r;
} Value;

typedef struct ChunkString {
    char *text; /* owned, NUL-terminated */
    int32_t len;
} ChunkString;

typedef struct ChunkLine {
    int32_t line, col; /* 1-based source position of the construct the instruction implements */
    int32_t file;      /* index into files */
} ChunkLine;

typedef struct ChunkStmt {
    int32_t start, end; /* code extent of one statement */
} ChunkStmt;

enum { PARAM_VALUE = 0, PARAM_VAR = 1 };

typedef struct ChunkRoutine {
    int32_t name;         /* kstr index */
    int32_t entry, end;   /* code range */
    int32_t nparams;      /* parameters, in order ... */
    int32_t kinds;        /* ... their PARAM_* kinds are param_kinds[kinds .. kinds+nparams) */
    int32_t param_slots;  /* slots the arguments take (a VAR parameter: 1) */
    int32_t frame_size;   /* registers the routine uses (params, locals, temporaries); >= param_slots */
    int32_t result_slots; /* FUNCTION: slots of the result; PROCEDURE: 0 */
    int32_t handler;      /* pc of the ON ERROR part, or -1 */
    int32_t line, file;   /* where it is declared */
} ChunkRoutine;

typedef struct ChunkDevice {
    int32_t name, backend, file; /* kstr indices */
} ChunkDevice;

typedef struct ChunkIo {
    int32_t name;    /* kstr index */
    int32_t kind;    /* IoKind of ast.h: DIN DOUT AIN AOUT */
    int64_t channel;
} ChunkIo;

typedef struct Chunk {
    Instr *code;
    ChunkLine *lines; /* one per instruction */
    int32_t ncode, capcode;

    int64_t *kint;
    int32_t nkint, capkint;
    double *kreal;
    int32_t nkreal, capkreal;
    ChunkString *kstr;
    int32_t nkstr, capkstr;

    ChunkRoutine *routines;
    int32_t nroutines, caproutines;
    uint8_t *param_kinds;
    int32_t nparam_kinds, capparam_kinds;

    ChunkStmt *stmts;
    int32_t nstmts, capstmts;

    int32_t *files; /* kstr indices of source file names; files[0] is the main file */
    int32_t nfiles, capfiles;

    ChunkDevice *devices;
    int32_t ndevices, capdevices;
    ChunkIo *ios;
    int32_t nios, capios;

    int32_t nglobals; /* slots of program-level VARs (= the first slots of the main frame) */
} Chunk;

/* An empty chunk whose string pool already holds "" at index 0. */
void chunk_init(Chunk *c);
void chunk_free(Chunk *c);

/* Appenders: each returns the index of what it added (aborts on out-of-memory, like the arena). */
int chunk_emit(Chunk *c, Instr ins, ChunkLine where);
int chunk_add_int(Chunk *c, int64_t v);
int chunk_add_real(Chunk *c, double v);
int chunk_add_string(Chunk *c, const char *text, size_t len);
int chunk_add_routine(Chunk *c, ChunkRoutine r);
int chunk_add_param_kind(Chunk *c, uint8_t kind);
int chunk_add_stmt(Chunk *c, int32_t start, int32_t end);
int chunk_add_file(Chunk *c, int32_t kstr_index);
int chunk_add_device(Chunk *c, ChunkDevice d);
int chunk_add_io(Chunk *c, ChunkIo io);

/* The routine whose code range contains pc, or -1. */
int chunk_routine_at(const Chunk *c, int pc);

#endif
