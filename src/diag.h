/* diag.h — user-facing diagnostics: "file:line:col: error: message", the source line and a caret, like gcc.
 * The compiler reports every error it can; the counts decide the exit code. Sources are registered so a
 * message can quote its line. */
#ifndef IRL_DIAG_H
#define IRL_DIAG_H

#include <stdarg.h>
#include <stdio.h>

#include "ast.h"

typedef struct DiagSource DiagSource;
typedef struct Diag {
    FILE *out;        /* stderr normally; tests may redirect */
    int errors, warnings;
    int max_errors;   /* stop reporting after this many (0: no limit) */
    DiagSource *sources;
} Diag;

void diag_init(Diag *d, FILE *out);
void diag_free(Diag *d);
/* Remember the text of a file so messages can quote its lines (the text is not copied; keep it alive). */
void diag_add_source(Diag *d, const char *file, const char *text, size_t len);
/* Forget a registered text (before freeing it); later messages in that file print without the quote. */
void diag_drop_source(Diag *d, const char *file);
void diag_error(Diag *d, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(Diag *d, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note attached to the previous message ("note: declared here"). */
void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Same, with an explicit severity word ("error", "runtime error", "warning", "note"). */
void diag_vreport(Diag *d, const char *severity, SrcLoc loc, const char *fmt, va_list ap);

#endif
