/* progress.h — a one-line progress bar on stderr for long runs, drawn only when stderr is a terminal.
 *
 *   Progress p; progress_begin(&p, stderr, "dry-run", "s", total);   total <= 0: unknown (just the count)
 *   progress_update(&p, done);   cheap when nothing visible changes (<= 10 redraws/s): call it every cycle
 *   progress_end(&p);            clears the line
 * Nothing is printed when the stream is not a terminal (tests, pipes, CI logs stay clean). */
#ifndef IRL_PROGRESS_H
#define IRL_PROGRESS_H

#include <stdio.h>

typedef struct {
    FILE *f;
    int on;             /* drawing at all (the stream is a terminal) */
    const char *label;  /* borrowed */
    const char *unit;   /* shown after the count: "s", "figures" (borrowed) */
    double total;
    long shown;         /* last drawn step (permille, or tenths of the count when total unknown) */
    int width;          /* bar width in characters */
    double last_draw;   /* monotonic seconds of the last redraw */
} Progress;

/* Start a bar for `total` units of work (<= 0: unknown). Draws nothing if f is not a terminal. */
void progress_begin(Progress *p, FILE *f, const char *label, const char *unit, double total);
/* Force drawing on or off (tests; --progress / --no-progress). */
void progress_force(Progress *p, int on);
/* Report `done` units; redraws only when the shown value changes. */
void progress_update(Progress *p, double done);
/* Erase the bar. */
void progress_end(Progress *p);

#endif
