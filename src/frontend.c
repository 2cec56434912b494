/* frontend.c — the compiler's front door: read a file, parse it, splice in its IMPORTed libraries (each once,
 * cycles reported), then run the checker; every problem is reported through the Diag with file:line:col. */
#include "frontend.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "syntax.h"
#include "parser.h"
#include "lexer.h"

#define FE_MAX_FILE (256u * 1024 * 1024) /* larger sources are refused rather than half-read */

/* One file seen by this compilation, keyed by its canonical path. */
typedef struct FeFile {
    struct FeFile *next;
    const char *canon;
    int state; /* FE_LOADING while its own imports are being expanded, then FE_DONE */
} FeFile;
enum { FE_LOADING = 1, FE_DONE };

/* The chain of files being imported, innermost last: names the cycle when one closes. */
typedef struct FeStack {
    const struct FeStack *up;
    const char *display;
    const char *canon;
} FeStack;

struct FrontendImpl {
    FeFile *files;
};

/* Read a whole regular file into the arena, NUL-terminated; NULL with errno set when it cannot. */
char *syntax_read_file(Arena *arena, const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode) || (size_t)st.st_size > FE_MAX_FILE) {
        close(fd);
        errno = S_ISDIR(st.st_mode) ? EISDIR : !S_ISREG(st.st_mode) ? EINVAL : EFBIG;
        return NULL;
    }
    size_t cap = (size_t)st.st_size;
    char *buf = arena_alloc(arena, cap + 1);
    size_t got = 0;
    while (got < cap) {
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return NULL;
        }
        if (r == 0)
            break; /* the file shrank while we read it: take what is there */
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    *len = got;
    return buf;
}

/* Parse one text: the scanner and the parser share a SyntaxCtx. Returns the root, even after syntax errors when
 * the parser recovered up to the end of the unit (the tree then lacks the statements and declarations it
 * dropped); NULL when nothing could be built. */
Node *syntax_parse_partial(Arena *arena, Diag *diag, const char *file, const char *text, size_t len, int *nerrors,
                           unsigned *holes)
{
    SyntaxCtx pc = {.arena = arena, .diag = diag, .file = file, .line = 1, .col = 1};
    yyscan_t scanner;
    if (len > (size_t)INT_MAX) {
        diag_error(diag, (SrcLoc){file, 0, 0}, "file too large to compile");
        *nerrors = 1;
        return NULL;
    }
    if (yylex_init_extra(&pc, &scanner) != 0) {
        diag_error(diag, (SrcLoc){file, 0, 0}, "cannot start the scanner: %s", strerror(errno));
        *nerrors = 1;
        return NULL;
    }
    YY_BUFFER_STATE buf = yy_scan_bytes(text, (int)len, scanner);
    int rc = yyparse(scanner, &pc);
    yy_delete_buffer(buf, scanner);
    yylex_destroy(scanner);
    if (rc != 0 && pc.errors == 0) {
        diag_error(diag, (SrcLoc){file, pc.tok_line, pc.tok_col}, "cannot parse this file");
        pc.errors++;
    }
    *nerrors = pc.errors;
    if (holes)
        *holes = pc.holes;
    return rc == 0 && !pc.lex_fatal ? pc.root : NULL;
}

/* Parse one text: the scanner and the parser share a SyntaxCtx; returns the root, NULL after any error. */
Node *syntax_parse(Arena *arena, Diag *diag, const char *file, const char *text, size_t len, int *nerrors)
{
    Node *root = syntax_parse_partial(arena, diag, file, text, len, nerrors, NULL);
    return *nerrors ? NULL : root;
}

/* Start with an empty arena and no files seen. */
void frontend_init(Frontend *fe, Diag *diag)
{
    arena_init(&fe->arena);
    fe->diag = diag;
    fe->impl = arena_alloc(&fe->arena, sizeof *fe->impl);
}

/* Free the tree, its strings and the source texts (the Diag's registrations die with them). */
void frontend_free(Frontend *fe)
{
    arena_free(&fe->arena);
    fe->impl = NULL;
}

/* The entry for a canonical path, or NULL. */
static FeFile *fe_file(Frontend *fe, const char *canon)
{
    for (FeFile *f = fe->impl->files; f; f = f->next)
        if (strcmp(f->canon, canon) == 0)
            return f;
    return NULL;
}

/* Remember a canonical path in a given state. */
static FeFile *fe_add_file(Frontend *fe, const char *canon, int state)
{
    FeFile *f = arena_alloc(&fe->arena, sizeof *f);
    f->canon = canon;
    f->state = state;
    f->next = fe->impl->files;
    fe->impl->files = f;
    return f;
}

/* Lexically tidy a relative path for messages: drop "./" segments and fold "dir/.." pairs. */
static void fe_tidy(char *s)
{
    char *seg[256];
    int n = 0;
    bool abs = s[0] == '/';
    char *save = NULL;
    char *copy = strdup(s);
    if (!copy)
        return;
    for (char *t = strtok_r(copy, "/", &save); t && n < 256; t = strtok_r(NULL, "/", &save)) {
        if (strcmp(t, ".") == 0)
            continue;
        if (strcmp(t, "..") == 0 && n > 0 && strcmp(seg[n - 1], "..") != 0) {
            n--;
            continue;
        }
        seg[n++] = t;
    }
    char *o = s;
    if (abs)
        *o++ = '/';
    for (int i = 0; i < n; i++) {
        size_t l = strlen(seg[i]);
        memcpy(o, seg[i], l);
        o += l;
        if (i + 1 < n)
            *o++ = '/';
    }
    if (o == s)
        *o++ = '.';
    *o = '\0';
    free(copy);
}

/* `path` of an IMPORT, taken relative to the directory of the importing file (unless absolute). */
static const char *fe_resolve(Frontend *fe, const char *importer, const char *path)
{
    const char *slash = strrchr(importer, '/');
    size_t dir = path[0] == '/' || !slash ? 0 : (size_t)(slash - importer) + 1;
    size_t n = strlen(path);
    char *s = arena_alloc(&fe->arena, dir + n + 1);
    memcpy(s, importer, dir);
    memcpy(s + dir, path, n + 1);
    fe_tidy(s);
    return s;
}

/* The canonical form of an existing path (arena copy), or NULL with errno set. */
static const char *fe_canon(Frontend *fe, const char *path)
{
    char *real = realpath(path, NULL);
    if (!real)
        return NULL;
    const char *c = arena_strdup(&fe->arena, real);
    free(real);
    return c;
}

/* "a.irl -> lib/b.irl -> a.irl": the import chain from the file that closes the cycle back to itself. */
static const char *fe_cycle_text(Frontend *fe, const FeStack *top, const char *canon, const char *display)
{
    size_t len = strlen(display) + 1;
    const FeStack *from = top;
    for (const FeStack *s = top; s; s = s->up) {
        len += strlen(s->display) + 4;
        from = s;
        if (strcmp(s->canon, canon) == 0)
            break;
    }
    char *out = arena_alloc(&fe->arena, len + 1);
    /* Walk from the cycle's start down to the top: collect the chain in order. */
    int depth = 0;
    for (const FeStack *s = top; s; s = s->up) {
        depth++;
        if (s == from)
            break;
    }
    const FeStack **chain = arena_alloc(&fe->arena, (size_t)depth * sizeof *chain);
    int i = depth;
    for (const FeStack *s = top; s && i > 0; s = s->up)
        chain[--i] = s;
    out[0] = '\0';
    for (i = 0; i < depth; i++) {
        strcat(out, chain[i]->display);
        strcat(out, " -> ");
    }
    strcat(out, display);
    return out;
}

static void fe_expand(Frontend *fe, NodeList *decls, const FeStack *top);

/* Load the library named by an IMPORT and return its expanded declarations (empty when already imported or
 * after an error, which is reported at the IMPORT). */
static NodeList fe_import(Frontend *fe, Node *imp, const FeStack *top)
{
    NodeList none = {0};
    const char *path = fe_resolve(fe, top->display, imp->name);
    const char *canon = fe_canon(fe, path);
    if (!canon) {
        diag_error(fe->diag, imp->loc, "cannot open '%s': %s", path, strerror(errno));
        return none;
    }
    FeFile *f = fe_file(fe, canon);
    if (f && f->state == FE_LOADING) {
        diag_error(fe->diag, imp->loc, "import cycle: %s", fe_cycle_text(fe, top, canon, path));
        return none;
    }
    if (f)
        return none; /* imported before: its declarations are already in the program */
    f = fe_add_file(fe, canon, FE_LOADING);
    size_t len;
    char *text = syntax_read_file(&fe->arena, path, &len);
    if (!text) {
        diag_error(fe->diag, imp->loc, "cannot open '%s': %s", path, strerror(errno));
        f->state = FE_DONE;
        return none;
    }
    diag_add_source(fe->diag, path, text, len);
    int nerr;
    Node *lib = syntax_parse(&fe->arena, fe->diag, path, text, len, &nerr);
    if (!lib) {
        f->state = FE_DONE;
        return none;
    }
    if (!(lib->flags & SYN_LIBRARY)) {
        diag_error(fe->diag, imp->loc, "'%s' is a %s, not a LIBRARY: an imported file has the form "
                   "'LIBRARY name; declarations ENDLIBRARY'", path,
                   lib->flags & SYN_MACHINE ? "MACHINE description" : "PROGRAM");
        f->state = FE_DONE;
        return none;
    }
    FeStack here = {top, path, canon};
    fe_expand(fe, &lib->list, &here);
    f->state = FE_DONE;
    return lib->list;
}

/* Replace every IMPORT of a declaration list by the imported library's declarations, in place and in order. */
static void fe_expand(Frontend *fe, NodeList *decls, const FeStack *top)
{
    bool any = false;
    for (int i = 0; i < decls->count && !any; i++)
        any = decls->items[i]->kind == D_IMPORT;
    if (!any)
        return;
    NodeList out = {0};
    for (int i = 0; i < decls->count; i++) {
        Node *d = decls->items[i];
        if (d->kind != D_IMPORT) {
            ast_list_push(&fe->arena, &out, d);
            continue;
        }
        NodeList more = fe_import(fe, d, top);
        for (int k = 0; k < more.count; k++)
            ast_list_push(&fe->arena, &out, more.items[k]);
    }
    *decls = out;
}

/* Read, parse, merge imports and check `path`; *out gets the checked N_PROGRAM. */
int frontend_compile_file(Frontend *fe, const char *path, Node **out)
{
    *out = NULL;
    size_t len;
    char *text = syntax_read_file(&fe->arena, path, &len);
    if (!text) {
        diag_error(fe->diag, (SrcLoc){0}, "cannot open '%s': %s", path, strerror(errno));
        return FE_EIO;
    }
    const char *file = arena_strdup(&fe->arena, path);
    diag_add_source(fe->diag, file, text, len);
    int errors_before = fe->diag->errors;
    int nerr;
    unsigned holes = 0;
    Node *root = syntax_parse_partial(&fe->arena, fe->diag, file, text, len, &nerr, &holes);
    if (!root)
        return FE_ECOMPILE;
    if (root->flags & (SYN_LIBRARY | SYN_MACHINE)) {
        diag_error(fe->diag, (SrcLoc){file, 1, 1}, "'%s' is a %s; irl compiles a PROGRAM (a library is compiled "
                   "through the programs that IMPORT it)", file,
                   root->flags & SYN_LIBRARY ? "LIBRARY" : "MACHINE description");
        return FE_ECOMPILE;
    }
    const char *canon = fe_canon(fe, file);
    if (canon)
        fe_add_file(fe, canon, FE_LOADING);
    FeStack top = {NULL, file, canon ? canon : file};
    int errors_parsed = fe->diag->errors;
    fe_expand(fe, &root->list, &top);
    /* After syntax or import errors the parts that parsed are still checked, leniently: where the parser dropped
     * a statement or a declaration (or an import brought nothing), what may only echo that hole is not reported. */
    if (fe->diag->errors > errors_parsed)
        holes |= SYN_HOLE_DECL; /* a library that failed to parse or open declared nothing */
    if (check_program_ex(&fe->arena, fe->diag, root, holes) > 0 || fe->diag->errors > errors_before)
        return FE_ECOMPILE;
    *out = root;
    return FE_OK;
}
