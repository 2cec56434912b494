/* syntax.h — private glue between the scanner (grammar/lexer.l), the parser (grammar/parser.y) and their users
 * (frontend.c, machine.c): one parse of one source text into an N_PROGRAM-kind root. */
#ifndef IRL_SYNTAX_H
#define IRL_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* N_PROGRAM flag bits for the other two start forms (bits above the shared NF_* ones). */
enum {
    SYN_LIBRARY = 1 << 20, /* LIBRARY name; declarations ENDLIBRARY: an importable file */
    SYN_MACHINE = 1 << 21, /* MACHINE name; ... ENDMACHINE: a machine description (.irm) */
};

/* Everything one parse needs; the scanner and the parser share it. */
typedef struct SyntaxCtx {
    Arena *arena;
    Diag *diag;
    const char *file;     /* interned path used in SrcLocs */
    Node *root;           /* the parsed unit, or NULL when nothing could be built */
    int errors;           /* syntax/lexical errors of this parse */
    /* Scanner state. */
    int line, col;        /* position of the next character */
    int prev_line, prev_end_col; /* end of the last token returned (for "expected ';'" messages) */
    int tok_line, tok_col;       /* start of the last token returned */
    int tok_end_line, tok_end_col; /* its end */
    const char *tok_text;        /* text of the last token returned (arena copy, for messages) */
    SrcLoc comment_start;
    int lex_error_line;   /* line of the last lexical error: a syntax error there is its echo, not news */
    bool lex_fatal;       /* an unterminated comment ate the rest of the file */
    unsigned holes;       /* SYN_HOLE_* bits: what error recovery dropped from the tree */
    /* The last SYN_BLOCK_LOG block keywords read (IF WHILE FOR CASE LOOP REPEAT open, their END words and UNTIL
     * close), so that a statement dropped by error recovery can tell how many blocks it opened and did not
     * close: their closing words will come as stray tokens, echoes of that one mistake (stray_closers). */
    struct { int line, col, delta; } blk[64];
    unsigned nblk;
    int stray_closers;
} SyntaxCtx;
enum { SYN_BLOCK_LOG = 64 };

/* What a parse with errors dropped (SyntaxCtx.holes): a declaration (so later uses of its name are no news), a
 * statement (so an EXIT, RETRY or RETURN may have lost its LOOP, ON ERROR or place). */
enum { SYN_HOLE_DECL = 1, SYN_HOLE_STMT = 2 };

/* Parse `len` bytes of `text` (need not be NUL-terminated) as one unit of file `file`. Reports errors through
 * diag; returns the root (N_PROGRAM, flags may carry SYN_LIBRARY / SYN_MACHINE) or NULL. */
Node *syntax_parse(Arena *arena, Diag *diag, const char *file, const char *text, size_t len, int *nerrors);

/* syntax_parse that keeps the tree after syntax errors when the parser recovered to the end of the unit (it then
 * lacks what recovery dropped; *holes gets the SYN_HOLE_* bits, holes may be NULL). NULL when nothing was built. */
Node *syntax_parse_partial(Arena *arena, Diag *diag, const char *file, const char *text, size_t len, int *nerrors,
                           unsigned *holes);

/* Read a whole file into the arena (NUL-terminated). Returns NULL with errno set when it cannot. */
char *syntax_read_file(Arena *arena, const char *path, size_t *len);

#endif
