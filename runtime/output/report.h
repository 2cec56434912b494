/* report.h — the dry-run's check report: report.json (for tools) and report.txt (for the engineer), written
 * from the checks' results after the run (checks.h).
 *
 * report.txt puts the verdict and the violations first, each as `file:line:col: error: ...` (gcc style, so
 * editors jump to the statement), then notes (the torque time scale k, requests lowered to a limit), then per
 * device a table of peaks with time, source line, limit and margin. report.json holds the same facts with
 * numbers at 17 significant digits; infinities (absent limits) and NaNs are null. The layout of report.json is
 * documented in docs/RUNNING.md. Under --closed-loop both also carry the closed loop's results (peak tracking
 * error, voltages, currents, saturation events as warnings with file:line:col). */
#ifndef IRL_REPORT_H
#define IRL_REPORT_H

#include <stdio.h>

#include "exec/checks.h"
#include "exec/timeline.h"

struct ClosedLoop;

typedef struct {
    const char *program;  /* the .irl file (also the file of statements without one) */
    double cycle;         /* s */
    const char *error;    /* the run-time error that stopped the program (full message), NULL = none */
    const char *trace;    /* trace file written, NULL = none (for the text's pointer to it) */
    const char *incomplete; /* the run was cut short ("interrupted by SIGINT at t = 1.2 s"), NULL = it ran to its
                             * end or to its error */
    /* --closed-loop: per device (layout order) its engine (closed_loop.h), and per device the statement under
     * which each of the engine's saturation events began (cl_ev_src[d][k] for event k). NULL: open loop; then
     * both files are exactly those of an open-loop run. */
    const struct ClosedLoop *const *closed_loop;
    const SampleSrc *const *cl_ev_src;
    const Timeline *timeline; /* the motion statements and the cycle time (timeline.h); NULL: not listed */
    int degrees;          /* 1: report.txt shows revolute quantities in degrees (output/display.h); report.json is
                           * SI whatever this says */
} ReportInfo;

/* Verdict: "pass", "fail" (a check failed), "error" (the program stopped with a run-time error) or "incomplete"
 * (the run was interrupted before the program's end: nothing is known of the rest). */
const char *report_verdict(const Checks *ck, const ReportInfo *info);
/* Write both files. 0, or < 0 with a message in err. */
int report_write(const Checks *ck, const ReportInfo *info, const char *json_path, const char *txt_path, char *err,
                 size_t errlen);
/* The two formats to any stream. */
void report_json(FILE *f, const Checks *ck, const ReportInfo *info);
void report_text(FILE *f, const Checks *ck, const ReportInfo *info);
/* Write s as a JSON string literal (quotes included; control characters escaped, bytes that are not valid
 * UTF-8 written as \ufffd); NULL as null. */
void report_json_string(FILE *f, const char *s);

#endif
