/* diag.c — gcc-style diagnostics: "file:line:col: severity: message", the quoted source line and a caret. */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

struct DiagSource {
    DiagSource *next;
    const char *file;
    const char *text;
    size_t len;
    size_t *lines; /* offsets of line starts, built at the first quote (many messages stay linear) */
    int nlines;
};

/* Start with no sources and no errors, writing to `out` (stderr when NULL). */
void diag_init(Diag *d, FILE *out)
{
    d->out = out ? out : stderr;
    d->errors = d->warnings = 0;
    d->max_errors = 0;
    d->sources = NULL;
}

/* Forget the registered sources (their texts belong to the caller). */
void diag_free(Diag *d)
{
    DiagSource *s = d->sources;
    while (s) {
        DiagSource *next = s->next;
        free(s->lines);
        free(s);
        s = next;
    }
    d->sources = NULL;
}

/* Remember a file's text for quoting; a later registration of the same name wins. */
void diag_add_source(Diag *d, const char *file, const char *text, size_t len)
{
    DiagSource *s = malloc(sizeof *s);
    if (!s)
        return; /* quoting is a nicety; the message itself still prints */
    s->file = file;
    s->text = text;
    s->len = len;
    s->lines = NULL;
    s->nlines = 0;
    s->next = d->sources;
    d->sources = s;
}

/* Unregister every text registered under `file`. */
void diag_drop_source(Diag *d, const char *file)
{
    DiagSource **link = &d->sources;
    while (*link) {
        DiagSource *s = *link;
        if (s->file == file || strcmp(s->file, file) == 0) {
            *link = s->next;
            free(s->lines);
            free(s);
        } else {
            link = &s->next;
        }
    }
}

/* The registered text of `file`, or NULL. */
static DiagSource *diag_find(const Diag *d, const char *file)
{
    for (DiagSource *s = d->sources; s; s = s->next)
        if (s->file == file || strcmp(s->file, file) == 0)
            return s;
    return NULL;
}

/* Print line `line` of the source and a caret under column `col`, keeping tabs so the caret lines up. */
static void diag_quote(Diag *d, SrcLoc loc)
{
    DiagSource *s = diag_find(d, loc.file);
    if (!s || loc.line < 1)
        return;
    if (!s->lines) {
        int n = 1;
        for (size_t i = 0; i < s->len; i++)
            n += s->text[i] == '\n';
        s->lines = malloc((size_t)n * sizeof *s->lines);
        if (!s->lines)
            return;
        s->nlines = 0;
        s->lines[s->nlines++] = 0;
        for (size_t i = 0; i < s->len; i++)
            if (s->text[i] == '\n')
                s->lines[s->nlines++] = i + 1;
    }
    if (loc.line > s->nlines)
        return;
    const char *p = s->text + s->lines[loc.line - 1], *end = s->text + s->len;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        eol = end;
    size_t n = (size_t)(eol - p);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    /* Columns count bytes. The caret is placed by characters: tabs are copied (so it lines up whatever the tab
     * width), UTF-8 continuation bytes take no place, NUL and other control bytes are shown as spaces. A line
     * longer than DIAG_QUOTE_MAX bytes is quoted as a window around the column, with "..." at the cut ends. */
    enum { DIAG_QUOTE_MAX = 160 };
    size_t col = loc.col < 1 ? 0 : (size_t)loc.col - 1;
    size_t ws = 0, we = n;
    if (n > DIAG_QUOTE_MAX) {
        ws = col > DIAG_QUOTE_MAX / 2 ? col - DIAG_QUOTE_MAX / 2 : 0;
        if (ws > n)
            ws = n;
        while (ws > 0 && ws < n && ((unsigned char)p[ws] & 0xC0) == 0x80)
            ws--; /* start on a character */
        we = ws + DIAG_QUOTE_MAX < n ? ws + DIAG_QUOTE_MAX : n;
        while (we < n && ((unsigned char)p[we] & 0xC0) == 0x80)
            we++;
    }
    if (ws > 0)
        fputs("...", d->out);
    for (size_t i = ws; i < we; i++) {
        unsigned char ch = (unsigned char)p[i];
        fputc(ch < 0x20 && ch != '\t' ? ' ' : ch, d->out);
    }
    fputs(we < n ? "...\n" : "\n", d->out);
    if (ws > 0)
        fputs("   ", d->out);
    for (size_t i = ws; i < col; i++) {
        unsigned char ch = i < n ? (unsigned char)p[i] : ' ';
        if ((ch & 0xC0) == 0x80)
            continue;
        fputc(ch == '\t' ? '\t' : ' ', d->out);
    }
    fputs("^\n", d->out);
}

/* One message with an explicit severity word; errors and warnings are counted. */
void diag_vreport(Diag *d, const char *severity, SrcLoc loc, const char *fmt, va_list ap)
{
    bool is_error = strstr(severity, "error") != NULL;
    bool is_warning = strcmp(severity, "warning") == 0;
    if (is_error)
        d->errors++;
    if (is_warning)
        d->warnings++;
    if (is_error && d->max_errors > 0 && d->errors > d->max_errors) {
        if (d->errors == d->max_errors + 1)
            fprintf(d->out, "irl: too many errors, stopping here\n");
        return;
    }
    if (!loc.file) {
        /* No place in a file: "irl: message" like a command-line error. */
        if (is_error)
            fputs("irl: ", d->out);
        else
            fprintf(d->out, "irl: %s: ", severity);
        vfprintf(d->out, fmt, ap);
        fputc('\n', d->out);
        return;
    }
    if (loc.line > 0)
        fprintf(d->out, "%s:%d:%d: %s: ", loc.file, loc.line, loc.col, severity);
    else
        fprintf(d->out, "%s: %s: ", loc.file, severity);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    diag_quote(d, loc);
}

/* An error at loc. */
void diag_error(Diag *d, SrcLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(d, "error", loc, fmt, ap);
    va_end(ap);
}

/* A warning at loc. */
void diag_warning(Diag *d, SrcLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(d, "warning", loc, fmt, ap);
    va_end(ap);
}

/* A note attached to the previous message. */
void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(d, "note", loc, fmt, ap);
    va_end(ap);
}
