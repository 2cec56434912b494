/* report_html.h — report.html: the dry-run's interactive report, one self-contained page that opens offline.
 *
 * The page carries the verdict, the violations, the program text with the violated lines marked, zoomable linked
 * plots of every channel group with limits and violation marks, a 3-D view of each device's tool path, and the
 * per-statement timeline. Its JavaScript libraries (uPlot from npm, three.js from Debian's libjs-three) are
 * embedded into irl at build time (Makefile, build/gen/report_html_assets.c) and inlined into the page; the
 * page's own glue is runtime/output/html/.
 *
 * The series are reduced while the run goes, in fixed memory: every channel keeps at most REPORT_HTML_BUCKETS
 * time buckets, each with its minimum and its maximum in the order they occurred (so a spike of one cycle still
 * shows), and when the buckets are full neighbours are merged in pairs and the bucket doubles in length. A channel
 * thus has at most 2 x REPORT_HTML_BUCKETS points whatever the program's length; on the page a value is given as
 * its level in the channel's range (REPORT_HTML_LEVELS), far finer than a pixel and five digits at most. The tool path keeps the pose at
 * the start of each bucket, and so does every device's q, from which the links are drawn by the model's own FK when
 * the page is written. The timeline keeps each change of the trace's `line` (the statement moving the first
 * moving device, else the statement being executed), up to REPORT_HTML_SEGMENTS changes. */
#ifndef IRL_REPORT_HTML_H
#define IRL_REPORT_HTML_H

#include <stddef.h>

#include "exec/checks.h"
#include "exec/sample.h"
#include "output/outdir.h"
#include "output/report.h"

#define REPORT_HTML_BUCKETS 2000  /* per channel: at most 4,000 points, ~40 kB of text */
#define REPORT_HTML_SEGMENTS 4096 /* statements on the timeline; later ones are counted, not listed */
#define REPORT_HTML_LEVELS 100000  /* a plotted value is rounded to 1/100,000 of its channel's range */
#define REPORT_HTML_POSES 500      /* the links' poses kept for the 3-D view (one every n-th bucket) */

typedef struct ReportHtml ReportHtml;

/* The reduction's state for a layout (kept, not copied: it must outlive the state), allocated once before the
 * first cycle; NULL when memory runs out (the run then writes no page). */
ReportHtml *report_html_create(const SampleLayout *lay);
/* Reduce one cycle into h. Called from the cycle's second stage; allocates nothing. */
void report_html_sample(ReportHtml *h, const Sample *s);
/* Write DIR/report.html (through DIR/report.html.part and outdir_commit) from *h, the checks and the report's
 * facts, then free *h and set it to NULL. models (per device, layout order; NULL or a NULL entry: none) give the
 * links' positions by forward kinematics. 0, or -1 with a message in err. */
int report_html_save(ReportHtml **h, OutDir *od, const Checks *ck, const ReportInfo *info, Model *const *models,
                     char *err, size_t errlen);

/* Free *h (when the page is not written) and set it to NULL; NULL does nothing. */
void report_html_free(ReportHtml **h);

#endif
