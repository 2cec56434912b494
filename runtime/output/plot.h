/* plot.h — the dry-run's figures: gnuplot, run as a child process on a generated script, reading trace.csv.
 *
 * One figure per quantity group per device — positions, speeds, accelerations, torques (forces), and the
 * model's own outputs (G, ...) — each as PNG (pngcairo, else png) and SVG, named DIR/<device>_<group>.png/.svg.
 * Each axis gets its own panel, titled by its joint's name, the outputs one panel per unit with a legend of their
 * names (or as the back-end's declared "outputs" figure groups them); time in s on the x axis, the unit on the y
 * axis (revolute quantities in degrees when PlotOptions.degrees, output/display.h); limits are
 * dashed lines (drawn when within the span of the panel's values beyond them or crossed, otherwise quoted in the
 * panel title so a far-away limit does not flatten the curves), violation intervals shaded red, the peak marked.
 * The script is kept as DIR/plots.gp (restyle and re-run it with `gnuplot DIR/plots.gp` from the directory irl ran in: paths in it are
 * absolute or as given) and gnuplot's messages go to DIR/plots.log. A trace longer than PLOT_MAX_POINTS rows is
 * first thinned into DIR/plots.csv (header, every n-th row and the last), which the figures then read; the
 * shaded violations and peak markers still come from the checks, which saw every cycle.
 *
 * The gnuplot program is `gnuplot` on PATH, or $IRL_GNUPLOT. When it is missing plot_all does not fail the
 * run: it returns PLOT_SKIPPED with the reason in err (the caller prints it as "warning: ..."). Nor does a gnuplot
 * that hangs: after PlotOptions.timeout it is killed with its process group and plot_all returns PLOT_TIMEOUT (a
 * warning too); an interrupt (SIGINT, SIGTERM: osal_interrupted) kills it at once the same way. */
#ifndef IRL_PLOT_H
#define IRL_PLOT_H

#include <stddef.h>

#include "exec/checks.h"
#include "output/outdir.h"

#define PLOT_MAX_POINTS 5000 /* a panel is ~600 px wide: more points only cost time and SVG size */

enum { PLOT_OK = 0, PLOT_SKIPPED = 1, PLOT_TIMEOUT = 2, PLOT_FAILED = -1 };

typedef struct {
    const char *dir;    /* where the figures, plots.gp and plots.log go */
    const char *trace;  /* trace.csv to read */
    long trace_every;   /* the trace's TraceOptions.every (1 = every cycle) */
    int png, svg;       /* formats wanted (both 0: both) */
    int progress;       /* 1: progress bar on stderr if it is a terminal */
    double timeout;     /* s of wall clock gnuplot may take; then it is killed (PLOT_TIMEOUT); <= 0: no bound */
    OutDir *out;        /* the output folder's list of the run's files (outdir.h), NULL: none kept */
    int degrees;        /* 1: revolute quantities and their limits drawn in degrees (output/display.h); 0: SI */
} PlotOptions;

/* Write every figure of the run. PLOT_OK; PLOT_SKIPPED (gnuplot missing: err says so, print it as a warning);
 * PLOT_FAILED (err holds the reason). */
int plot_all(const Checks *ck, const PlotOptions *opt, char *err, size_t errlen);

#endif
