/* report.c — report.json and report.txt from the checks' results (see report.h). */
#include "output/report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "motion/planner.h"
#include "output/display.h"
#include "plant/closed_loop.h"

/* {====================================================================== shared helpers */

/* The unit a lowered request of the planner is printed in (its name as the statement wrote it). */
static const char *lowered_unit(const char *what)
{
    static const struct { const char *what, *unit; } units[] = {
        {"SPEED", "m/s"}, {"ACC", "m/s^2"}, {"APPROX", "m"}, {"TIME", "s"}, {"ONSET", "G/s"},
        {"SPEED_PTP", "%"}, {"ACC_PTP", "%"}, {"APPROX_PTP", "%"},
    };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(what, units[i].what) == 0) return units[i].unit;
    return "";
}

const char *report_verdict(const Checks *ck, const ReportInfo *info)
{
    if (info->error) return "error";
    if (info->incomplete) return "incomplete";
    return checks_passed(ck) ? "pass" : "fail";
}

/* The file of a statement, or the program when unknown. */
static const char *src_file(SampleSrc s, const ReportInfo *info)
{
    return s.file ? s.file : (info->program ? info->program : "?");
}

/* Is the channel worth reporting (it saw at least one value)? */
static int reported(const ChecksChannel *c)
{
    return c->nsamples > 0;
}

/* 1-based axis for display, 0 for per-device channels and outputs. */
static int axis_of(const ChecksChannel *c)
{
    return c->qty < CHK_NAXISQTY || c->qty == CHK_FERROR ? c->index + 1 : 0;
}

/* The first device whose machine file lacks inertial data for some moving link (its torque check is incomplete),
 * or -1. */
static int inertia_missing(const Checks *ck)
{
    for (int d = 0; d < ck->lay->ndev; d++)
        if (ck->lay->dev[d].desc && ck->lay->dev[d].desc->inertia_missing[0]) return d;
    return -1;
}

/* }====================================================================== */

/* {====================================================================== JSON */

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates), 0 when invalid. */
static int utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    int n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

void report_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                fprintf(f, "\\u%04x", *p);
            } else if (*p < 0x80) {
                fputc(*p, f);
            } else { /* UTF-8 passes through; a byte that is not valid UTF-8 becomes U+FFFD */
                int n = utf8_len(p);
                if (n) fwrite(p, 1, (size_t)n, f), p += n - 1;
                else fputs("\\ufffd", f);
            }
        }
    }
    fputc('"', f);
}

/* A number at 17 significant digits; null for NaN and infinities (JSON has neither). */
static void jnum(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.17g", x);
    else fputs("null", f);
}

/* "key": number */
static void jkv_num(FILE *f, const char *key, double x)
{
    fprintf(f, "\"%s\": ", key);
    jnum(f, x);
}

/* "t_start": t, "t_end": t, "cycles": n, (a run of cycles; violations and saturation events alike) */
static void jrun(FILE *f, double t_start, double t_end, long cycles)
{
    jkv_num(f, "t_start", t_start);
    fputs(", ", f);
    jkv_num(f, "t_end", t_end);
    fprintf(f, ", \"cycles\": %ld, ", cycles);
}

/* "file": ..., "line": n, "col": n */
static void jsrc(FILE *f, SampleSrc s, const ReportInfo *info)
{
    fputs("\"file\": ", f);
    report_json_string(f, src_file(s, info));
    fprintf(f, ", \"line\": %d, \"col\": %d", s.line, s.col);
}

/* {"value": v, "t": t, "file": ..., "line": .., "col": ..} */
static void jpoint(FILE *f, const ChecksPoint *p, const ReportInfo *info)
{
    fputc('{', f);
    jkv_num(f, "value", p->v);
    fputs(", ", f);
    jkv_num(f, "t", p->t);
    fputs(", ", f);
    jsrc(f, p->src, info);
    fputc('}', f);
}

/* The "name", "axis" and "unit" members that identify a channel (shared by peaks and violations). */
static void json_channel_id(FILE *f, const Checks *ck, const ChecksChannel *c)
{
    fputs(", \"name\": ", f);
    report_json_string(f, checks_label(ck, c));
    if (axis_of(c)) fprintf(f, ", \"axis\": %d", axis_of(c));
    else fputs(", \"axis\": null", f);
    fputs(", \"joint\": ", f);
    if (axis_of(c) && ck->lay->dev[c->dev].axis_name[axis_of(c) - 1][0])
        report_json_string(f, ck->lay->dev[c->dev].axis_name[axis_of(c) - 1]);
    else fputs("null", f);
    fputs(", \"unit\": ", f);
    report_json_string(f, checks_unit(ck, c));
}

/* One channel's peaks and margin. */
static void json_channel(FILE *f, const Checks *ck, const ChecksChannel *c, const ReportInfo *info)
{
    fputs("        {\"quantity\": ", f);
    report_json_string(f, checks_qty_name((ChecksQty)c->qty));
    json_channel_id(f, ck, c);
    fputs(",\n         \"peak\": ", f);
    jpoint(f, checks_peak(c), info);
    fputs(",\n         \"min\": ", f);
    jpoint(f, &c->min, info);
    fputs(",\n         \"max\": ", f);
    jpoint(f, &c->max, info);
    fputs(",\n         ", f);
    jkv_num(f, "limit_min", c->lo);
    fputs(", ", f);
    jkv_num(f, "limit_max", c->hi);
    fputs(", ", f);
    jkv_num(f, "margin", checks_margin(c));
    fputs(", ", f);
    jkv_num(f, "margin_pct", checks_margin_pct(c));
    fprintf(f, ", \"samples\": %ld, \"violated_cycles\": %ld}", c->nsamples, c->nbad);
}

/* One device: machine, time scale, channels. */
/* The limits device d's machine file does not give, per quantity: the axes (1-based) into ax, their count. */
enum { NG_POSITION, NG_SPEED, NG_ACC, NG_JERK, NG_EFFORT, NG_COUNT };
static int not_given(const SampleDeviceInfo *di, int q, int *ax)
{
    int n = 0;
    for (int i = 0; di->desc && i < di->naxes && i < di->desc->njoints; i++) {
        const ModelAxisLimits *l = &di->desc->joint[i].limits;
        double v[NG_COUNT] = {isinf(l->min) && isinf(l->max) ? INFINITY : 0, l->vmax, l->amax, l->jmax, l->effort};
        if (isinf(v[q])) ax[n++] = i + 1;
    }
    return n;
}

/* What irl does about a limit not given (report.txt in degrees when `degrees`, report.json in SI). A default
 * shapes each segment but does not limit a blend, whose sum of two segments may reach twice it (docs/MOTION.md). */
static const char *not_given_what(int q, char *buf, size_t n, int prismatic, int degrees)
{
    DisplayUnit du;
    switch (q) {
    case NG_SPEED:
        du = display_axis(prismatic, 1, degrees);
        snprintf(buf, n, "planned with irl's default %g %s (a blend up to twice it), not checked",
                 du.k * PLANNER_DEFAULT_AXIS_VMAX, du.unit);
        break;
    case NG_ACC:
        du = display_axis(prismatic, 2, degrees);
        snprintf(buf, n, "planned with irl's default %g %s (a blend up to twice it), not checked",
                 du.k * PLANNER_DEFAULT_AXIS_AMAX, du.unit);
        break;
    case NG_JERK: snprintf(buf, n, "not limited: trapezoidal profiles, not checked"); break;
    default: snprintf(buf, n, "not checked"); break;
    }
    return buf;
}

static const char *const not_given_name[NG_COUNT] = {"position", "speed", "acceleration", "jerk", "torque"};

/* "  limits arm's machine file does not give: acceleration (axes 1..6: planned with ...); ..." */
static void text_not_given(FILE *f, const SampleDeviceInfo *di, int degrees)
{
    int ax[MODEL_MAX_DOF], first = 1;
    char what[128];
    for (int q = 0; q < NG_COUNT; q++) {
        int n = not_given(di, q, ax);
        if (!n) continue;
        fprintf(f, first ? "  limits %s's machine file does not give: " : "; ", di->name);
        first = 0;
        fprintf(f, "%s (ax%s", not_given_name[q], n == 1 ? "is" : "es");
        for (int k = 0; k < n; k++) fprintf(f, "%s%d", k ? ", " : " ", ax[k]);
        int pri = di->desc->joint[ax[0] - 1].type == MODEL_PRISMATIC;
        fprintf(f, ": %s)", not_given_what(q, what, sizeof what, pri, degrees));
    }
    if (!first) fputc('\n', f);
}

static void json_device(FILE *f, const Checks *ck, int d, const ReportInfo *info)
{
    const SampleDeviceInfo *di = &ck->lay->dev[d];
    fputs("    {\"name\": ", f);
    report_json_string(f, di->name);
    fputs(", \"machine\": ", f);
    report_json_string(f, di->desc ? di->desc->name : NULL);
    fputs(", \"backend\": ", f);
    report_json_string(f, di->desc ? di->desc->backend : NULL);
    fputs(", \"machine_file\": ", f);
    report_json_string(f, di->desc && di->desc->source[0] ? di->desc->source : NULL);
    fprintf(f, ", \"axes\": %d,\n     ", di->naxes);
    jkv_num(f, "time_scale_k", ck->dev_k[d]);
    fputs(",\n     \"limits_not_given\": {", f);
    int ax[MODEL_MAX_DOF], nq = 0;
    char what[128];
    for (int q = 0; q < NG_COUNT; q++) {
        int n = not_given(di, q, ax);
        if (!n) continue;
        fprintf(f, "%s\"%s\": {\"axes\": [", nq++ ? ", " : "", not_given_name[q]);
        for (int k = 0; k < n; k++) fprintf(f, "%s%d", k ? ", " : "", ax[k]);
        fputs("], \"what\": ", f);
        report_json_string(f, not_given_what(q, what, sizeof what, di->desc->joint[ax[0] - 1].type == MODEL_PRISMATIC,
                                             0));
        fputc('}', f);
    }
    fputc('}', f);
    fputs(",\n     \"channels\": [\n", f);
    int first = 1;
    for (int i = ck->dev_base[d]; i < ck->dev_base[d + 1]; i++) {
        if (!reported(&ck->chan[i])) continue;
        if (!first) fputs(",\n", f);
        first = 0;
        json_channel(f, ck, &ck->chan[i], info);
    }
    fputs("\n     ]}", f);
}

/* One violation record. */
static void json_violation(FILE *f, const Checks *ck, const ChecksViolation *w, const ReportInfo *info)
{
    const ChecksChannel *c = &ck->chan[w->channel];
    fputs("    {\"device\": ", f);
    report_json_string(f, ck->lay->dev[w->dev].name);
    fputs(", \"quantity\": ", f);
    report_json_string(f, checks_qty_name((ChecksQty)w->qty));
    json_channel_id(f, ck, c);
    fputs(",\n     ", f);
    jrun(f, w->t_start, w->t_end, w->cycles);
    jkv_num(f, "value", w->peak);
    fputs(", ", f);
    jkv_num(f, "t_peak", w->t_peak);
    fputs(", ", f);
    jkv_num(f, "limit", w->limit);
    fputs(",\n     ", f);
    jsrc(f, w->src, info);
    fprintf(f, ", \"peak_line\": %d", w->src_peak.line);
    if (w->qty == CHK_TORQUE) {
        fputs(", ", f);
        jkv_num(f, "time_scale_k", w->k);
    }
    fputc('}', f);
}

/* One lowered request. */
static void json_limited(FILE *f, const Checks *ck, const ChecksLimited *l, const ReportInfo *info)
{
    fputs("    {\"device\": ", f);
    report_json_string(f, l->dev >= 0 && l->dev < ck->lay->ndev ? ck->lay->dev[l->dev].name : NULL);
    if (l->axis >= 0) fprintf(f, ", \"axis\": %d", l->axis + 1);
    else fputs(", \"axis\": null", f);
    fputs(", \"what\": ", f);
    report_json_string(f, l->what);
    fputs(", ", f);
    jkv_num(f, "requested", l->requested);
    fputs(", ", f);
    jkv_num(f, "applied", l->applied);
    fputs(", ", f);
    jkv_num(f, "t", l->t);
    fprintf(f, ", \"count\": %ld, ", l->count);
    jsrc(f, l->src, info);
    fputc('}', f);
}

/* "key": [v1, v2, ...] over n axes */
static void jvec(FILE *f, const char *key, const double *v, int n)
{
    fprintf(f, "\"%s\": [", key);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        jnum(f, v[i]);
    }
    fputc(']', f);
}

/* The statement under which saturation event k of device d began. */
static SampleSrc cl_event_src(const ReportInfo *info, int d, int k)
{
    SampleSrc none = {NULL, 0, 0};
    return info->cl_ev_src && info->cl_ev_src[d] ? info->cl_ev_src[d][k] : none;
}

/* One device's closed-loop results. */
static void json_closed_loop_device(FILE *f, const Checks *ck, int d, const ReportInfo *info)
{
    const ClosedLoop *cl = info->closed_loop[d];
    const ClosedLoopStats *st = &cl->stats;
    const ClosedLoopGains *g = &cl->ctl.g;
    int n = cl->n;
    fputs("    {\"device\": ", f);
    report_json_string(f, ck->lay->dev[d].name);
    fputs(", \"controller\": ", f);
    report_json_string(f, g->kind == CONTROLLER_CT ? "ct" : "pid");
    fputs(", ", f);
    jkv_num(f, "bandwidth", g->omega);
    fputs(",\n     ", f);
    jvec(f, "kp", g->kp, n);
    fputs(", ", f);
    jvec(f, "kd", g->kd, n);
    fputs(", ", f);
    jvec(f, "ki", g->ki, n);
    fputs(",\n     \"axes\": [\n", f);
    for (int j = 0; j < n; j++) {
        int motor = cl->kind[j] == CL_AXIS_MOTOR;
        fprintf(f, "       {\"axis\": %d, \"drive\": \"%s\", ", j + 1,
                motor ? "motor" : cl->kind[j] == CL_AXIS_TORQUE ? "torque" : "passive");
        jkv_num(f, "peak_error", st->emax[j]);
        fputs(", ", f);
        jkv_num(f, "peak_error_t", st->emax_t[j]);
        fputs(", ", f);
        jkv_num(f, "peak_voltage", motor ? st->umax[j] : NAN);
        fputs(", ", f);
        jkv_num(f, "peak_current", motor ? st->imax[j] : NAN);
        fprintf(f, ", \"saturated_cycles\": %ld}%s\n", st->sat_cycles[j], j + 1 < n ? "," : "");
    }
    fprintf(f, "     ],\n     \"saturation_events_not_listed\": %ld, \"saturation_events\": [\n", st->ev_dropped);
    for (int k = 0; k < st->nev; k++) {
        const ClosedLoopSatEvent *e = &st->ev[k];
        fprintf(f, "       {\"axis\": %d, \"kind\": \"%s\", ", e->axis + 1, e->voltage ? "voltage" : "torque");
        jkv_num(f, "limit", e->limit);
        fputs(", ", f);
        jrun(f, e->t_start, e->t_end, e->cycles);
        jkv_num(f, "demand", e->worst);
        fputs(", ", f);
        jkv_num(f, "demand_t", e->worst_t);
        fputs(", ", f);
        jsrc(f, cl_event_src(info, d, k), info);
        fprintf(f, "}%s\n", k + 1 < st->nev ? "," : "");
    }
    fprintf(f, "     ],\n     \"integrator\": {\"steps\": %ld, \"rejected\": %ld, \"evaluations\": %ld}}", st->steps,
            st->failed_steps, st->rhs_evals);
}

/* The closed loop's section (only under --closed-loop). */
static void json_closed_loop(FILE *f, const Checks *ck, const ReportInfo *info)
{
    fputs(",\n  \"closed_loop\": {\"torques\": \"controller demand\", \"devices\": [\n", f);
    int first = 1;
    for (int d = 0; d < ck->lay->ndev; d++) {
        if (!info->closed_loop[d]) continue;
        if (!first) fputs(",\n", f);
        first = 0;
        json_closed_loop_device(f, ck, d, info);
    }
    fputs("\n  ]}", f);
}

/* Pass k of the outermost loop, s: to the next pass's start, the last one to the end of the loop's last motion. */
static double pass_time(const Timeline *tl, int k)
{
    double end = k + 1 < tl->npass ? tl->pass[k + 1] : tl->loop_end;
    return end > tl->pass[k] ? end - tl->pass[k] : 0;
}

/* "cycle_time" (the run, the outermost loop's passes) and "motions" (timeline.h). */
static void json_timeline(FILE *f, const Checks *ck, const ReportInfo *info)
{
    const Timeline *tl = info->timeline;
    fputs(",\n  \"cycle_time\": {", f);
    jkv_num(f, "run", ck->ncycles ? ck->t_last - ck->t_first : 0);
    fputs(", \"loop\": ", f);
    if (tl->loop_file) {
        fputs("{\"file\": ", f);
        report_json_string(f, tl->loop_file);
        fprintf(f, ", \"first_line\": %d, \"last_line\": %d, \"passes_not_listed\": %ld, \"passes\": [", tl->loop_lo,
                tl->loop_hi, tl->pass_dropped);
        for (int k = 0; k < tl->npass; k++) {
            fputs(k ? ", {" : "{", f);
            jkv_num(f, "t_start", tl->pass[k]);
            fputs(", ", f);
            jkv_num(f, "duration", pass_time(tl, k));
            fputc('}', f);
        }
        fputs("]}", f);
    } else {
        fputs("null", f);
    }
    fprintf(f, "},\n  \"motions_not_listed\": %ld,\n  \"motions\": [\n", tl->dropped);
    for (int i = 0; i < tl->n; i++) {
        const TimelineMove *m = &tl->mv[i];
        fputs("    {\"device\": ", f);
        report_json_string(f, ck->lay->dev[m->dev].name);
        fputs(", ", f);
        jkv_num(f, "t_start", m->t_start);
        fputs(", ", f);
        jkv_num(f, "duration", m->duration);
        fputs(", ", f);
        jsrc(f, m->src, info);
        fputs(i + 1 < tl->n ? "},\n" : "}\n", f);
    }
    fputs("  ]", f);
}

void report_json(FILE *f, const Checks *ck, const ReportInfo *info)
{
    fputs("{\n  \"format\": \"irl-report-1\",\n  \"program\": ", f);
    report_json_string(f, info->program);
    fputs(",\n  \"verdict\": ", f);
    report_json_string(f, report_verdict(ck, info));
    fputs(",\n  \"error\": ", f);
    report_json_string(f, info->error);
    fputs(",\n  \"incomplete\": ", f);
    report_json_string(f, info->incomplete);
    if (inertia_missing(ck) >= 0) fputs(",\n  \"torque_check\": \"incomplete\"", f);
    fputs(",\n  ", f);
    jkv_num(f, "duration", ck->ncycles ? ck->t_last - ck->t_first : 0);
    fputs(", ", f);
    jkv_num(f, "cycle", info->cycle);
    fprintf(f, ", \"cycles\": %ld,\n  \"devices\": [\n", ck->ncycles);
    for (int d = 0; d < ck->lay->ndev; d++) {
        json_device(f, ck, d, info);
        fputs(d + 1 < ck->lay->ndev ? ",\n" : "\n", f);
    }
    fprintf(f, "  ],\n  \"violation_count\": %ld, \"violations_not_listed\": %ld,\n  \"violations\": [\n",
            checks_violation_count(ck), ck->viol_dropped);
    for (int i = 0; i < ck->nviol; i++) {
        json_violation(f, ck, &ck->viol[i], info);
        fputs(i + 1 < ck->nviol ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"torque_time_scale\": ", f);
    if (ck->k_dev >= 0 || ck->k_unknown) {
        fputs("{", f);
        jkv_num(f, "k", ck->k_dev >= 0 ? ck->k : NAN);
        fprintf(f, ", \"feasible\": %s, \"device\": ",
                ck->k_dev < 0 ? "null" : isfinite(ck->k) ? "true" : "false");
        report_json_string(f, ck->k_dev >= 0 ? ck->lay->dev[ck->k_dev].name : NULL);
        fputs(", ", f);
        jkv_num(f, "t", ck->k_t);
        fputs(", ", f);
        jsrc(f, ck->k_src, info);
        fprintf(f, ", \"cycles_without_gravity\": %ld}", ck->k_unknown);
    } else {
        fputs("null", f);
    }
    fprintf(f, ",\n  \"lowered_requests_not_listed\": %ld,\n  \"lowered_requests\": [\n", ck->limited_dropped);
    for (int i = 0; i < ck->nlimited; i++) {
        json_limited(f, ck, &ck->limited[i], info);
        fputs(i + 1 < ck->nlimited ? ",\n" : "\n", f);
    }
    fputs("  ]", f);
    fprintf(f, ",\n  \"notes_not_listed\": %ld,\n  \"notes\": [\n", ck->notes_dropped);
    for (int i = 0; i < ck->nnotes; i++) {
        const ChecksNote *n = &ck->notes[i];
        fputs("    {\"device\": ", f);
        report_json_string(f, n->dev >= 0 && n->dev < ck->lay->ndev ? ck->lay->dev[n->dev].name : NULL);
        fputs(", \"text\": ", f);
        report_json_string(f, n->text);
        fputs(", ", f);
        jkv_num(f, "t", n->t);
        fprintf(f, ", \"count\": %ld, ", n->count);
        jsrc(f, n->src, info);
        fputs(i + 1 < ck->nnotes ? "},\n" : "}\n", f);
    }
    fputs("  ]", f);
    if (info->timeline) json_timeline(f, ck, info);
    if (info->closed_loop) json_closed_loop(f, ck, info);
    fputs("\n}\n", f);
}

/* }====================================================================== */

/* {====================================================================== text */

/* A short number for people: %.6g, "-" for none. */
static const char *num(char *buf, double x)
{
    if (isnan(x)) snprintf(buf, 32, "-");
    else if (isinf(x)) snprintf(buf, 32, x > 0 ? "inf" : "-inf");
    else snprintf(buf, 32, "%.6g", x);
    return buf;
}

/* The limit of a channel as people write it, its values times k (the display unit's): 97.6 (symmetric), [lo, hi],
 * >= lo, <= hi, or "-". */
static const char *limit_str(char *buf, const ChecksChannel *c, double k)
{
    char a[32], b[32];
    int flo = isfinite(c->lo), fhi = isfinite(c->hi);
    if (flo && fhi && c->lo == -c->hi) snprintf(buf, 64, "%s", num(a, k * c->hi));
    else if (flo && fhi) snprintf(buf, 64, "[%s, %s]", num(a, k * c->lo), num(b, k * c->hi));
    else if (flo) snprintf(buf, 64, ">= %s", num(a, k * c->lo));
    else if (fhi) snprintf(buf, 64, "<= %s", num(a, k * c->hi));
    else snprintf(buf, 64, "-");
    return buf;
}

/* "arm axis 2 torque" / "cf G" / "arm singularity" */
static const char *what_str(char *buf, size_t n, const Checks *ck, const ChecksChannel *c)
{
    const char *dev = ck->lay->dev[c->dev].name;
    const char *jn = axis_of(c) ? ck->lay->dev[c->dev].axis_name[axis_of(c) - 1] : "";
    if (axis_of(c) && *jn) snprintf(buf, n, "%s axis %d (%s) %s", dev, axis_of(c), jn, checks_label(ck, c));
    else if (axis_of(c)) snprintf(buf, n, "%s axis %d %s", dev, axis_of(c), checks_label(ck, c));
    else snprintf(buf, n, "%s %s", dev, checks_label(ck, c));
    return buf;
}

/* file:line:col: error: arm axis 2 torque 187 Nm exceeds its limit 97.6 Nm for 0.2 s (t = 1.2 .. 1.4 s) */
static void text_violation(FILE *f, const Checks *ck, const ChecksViolation *w, const ReportInfo *info)
{
    const ChecksChannel *c = &ck->chan[w->channel];
    char what[160], a[32], b[32], t0[32], t1[32], tp[32];
    DisplayUnit du = display_unit(checks_unit(ck, c), info->degrees);
    const char *unit = du.unit;
    fprintf(f, "%s:%d:%d: error: ", src_file(w->src, info), w->src.line, w->src.col);
    what_str(what, sizeof what, ck, c);
    if (w->qty == CHK_IK)
        fprintf(f, "%s: no inverse-kinematics solution", ck->lay->dev[w->dev].name);
    else if (isnan(w->peak))
        fprintf(f, "%s is not a number", what);
    else if (w->qty == CHK_SINGULARITY)
        fprintf(f, "%s: measure %s below the threshold %s (near a singularity)", what, num(a, w->peak),
                num(b, w->limit));
    else
        fprintf(f, "%s %s%s%s %s its limit %s%s%s", what, num(a, du.k * w->peak), *unit ? " " : "", unit,
                w->peak > w->limit ? "exceeds" : "is below", num(b, du.k * w->limit), *unit ? " " : "", unit);
    fprintf(f, " at t = %s s", num(tp, w->t_peak));
    if (w->cycles > 1) fprintf(f, " (during %s .. %s s, %ld cycles)", num(t0, w->t_start), num(t1, w->t_end),
                               w->cycles);
    if (w->src_peak.line != w->src.line) fprintf(f, "; worst under line %d", w->src_peak.line);
    fputc('\n', f);
}

/* The time-scale note and the lowered requests. */
static void text_notes(FILE *f, const Checks *ck, const ReportInfo *info)
{
    char a[32], b[32];
    if (ck->k_dev >= 0) {
        SampleSrc s = ck->k_src;
        if (isfinite(ck->k))
            fprintf(f, "%s:%d:%d: note: every torque fits if the whole program runs %s times slower "
                       "(time scale k = %.6f, set by %s at t = %s s)\n",
                    src_file(s, info), s.line, s.col, num(a, ck->k), ck->k, ck->lay->dev[ck->k_dev].name,
                    num(b, ck->k_t));
        else
            fprintf(f, "%s:%d:%d: note: no time scale brings the torques within their limits (at t = %s s gravity "
                       "alone exceeds a limit, or a torque is not a number)\n",
                    src_file(s, info), s.line, s.col, num(a, ck->k_t));
    }
    if (ck->k_unknown)
        fprintf(f, "note: time scale unknown for %ld cycles (no gravity torque available)\n", ck->k_unknown);
    for (int i = 0; i < ck->nlimited; i++) {
        const ChecksLimited *l = &ck->limited[i];
        char r[32], p[32];
        fprintf(f, "%s:%d:%d: note: %s", src_file(l->src, info), l->src.line, l->src.col,
                l->dev >= 0 && l->dev < ck->lay->ndev ? ck->lay->dev[l->dev].name : "?");
        if (l->axis >= 0) fprintf(f, " axis %d", l->axis + 1);
        const char *u = lowered_unit(l->what);
        double k = strcmp(u, "%") == 0 ? 100 : 1; /* the _PTP requests are fractions of the axes' limits */
        fprintf(f, " %s %s %s lowered to %s %s (limit)", l->what, num(r, k * l->requested), u, num(p, k * l->applied), u);
        if (l->count > 1) fprintf(f, ", %ld times", l->count);
        fputc('\n', f);
    }
    if (ck->limited_dropped) fprintf(f, "note: %ld more lowered requests not listed\n", ck->limited_dropped);
    for (int i = 0; i < ck->nnotes; i++) {
        const ChecksNote *n = &ck->notes[i];
        fprintf(f, "%s:%d:%d: note: %s", src_file(n->src, info), n->src.line, n->src.col, n->text);
        if (n->count > 1) fprintf(f, " (%ld times)", n->count);
        fputc('\n', f);
    }
    if (ck->notes_dropped) fprintf(f, "note: %ld more notes not listed\n", ck->notes_dropped);
}

/* file:line:col: warning: arm axis 2 motor voltage saturated at its limit 5 V ... (one per saturation event) */
static void text_saturation(FILE *f, const Checks *ck, const ReportInfo *info)
{
    char a[32], b[32], c[32], w[32], wt[32];
    for (int d = 0; d < ck->lay->ndev; d++) {
        const ClosedLoop *cl = info->closed_loop[d];
        if (!cl) continue;
        for (int k = 0; k < cl->stats.nev; k++) {
            const ClosedLoopSatEvent *e = &cl->stats.ev[k];
            SampleSrc s = cl_event_src(info, d, k);
            const char *u = e->voltage ? "V" : "Nm";
            fprintf(f, "%s:%d:%d: warning: %s axis %d %s saturated at its limit %s %s from t = %s to %s s (%ld "
                       "cycle%s); demand up to %s %s at t = %s s (closed loop)\n",
                    src_file(s, info), s.line, s.col, ck->lay->dev[d].name, e->axis + 1,
                    e->voltage ? "motor voltage" : "torque", num(a, e->limit), u, num(b, e->t_start),
                    num(c, e->t_end), e->cycles, e->cycles == 1 ? "" : "s", num(w, e->worst), u, num(wt, e->worst_t));
        }
        if (cl->stats.ev_dropped)
            fprintf(f, "note: %s: %ld more saturation events not listed\n", ck->lay->dev[d].name, cl->stats.ev_dropped);
    }
}

/* The closed loop's own summary per device (closed_loop_report): peak tracking error, |u|, |i|, events. */
static void text_closed_loop(FILE *f, const Checks *ck, const ReportInfo *info)
{
    fputs("\nclosed loop (torques in the trace and the checks are the controller's torque demands at the simulated "
          "state;\nthe other checks are on the setpoint stream):\n", f);
    for (int d = 0; d < ck->lay->ndev; d++) {
        const ClosedLoop *cl = info->closed_loop[d];
        if (!cl) continue;
        const ClosedLoopGains *g = &cl->ctl.g;
        /* the gains' units (SI, per radian: a gain is no angle to show in degrees); PID's differ on prismatic axes */
        static const char *const ct_unit[2] = {"1/s^2", "1/s"};
        static const char *const pid_unit[2][3] = {{"Nm/rad", "Nm s/rad", "Nm/(rad s)"}, {"N/m", "N s/m", "N/(m s)"}};
        const ModelDesc *md = ck->lay->dev[d].desc;
        fprintf(f, "%s: gains", ck->lay->dev[d].name);
        for (int k = 0; k < 3; k++) {
            const double *v = k == 0 ? g->kp : k == 1 ? g->kd : g->ki;
            if (k == 2 && g->kind == CONTROLLER_CT) break;
            fprintf(f, " %s", k == 0 ? "kp" : k == 1 ? "kd" : "ki");
            int pid = g->kind != CONTROLLER_CT, npri = 0;
            for (int j = 0; j < cl->n; j++) {
                int pri = md && j < md->njoints && md->joint[j].type == MODEL_PRISMATIC;
                npri += pri;
                fprintf(f, "%c%.6g", j ? ',' : ' ', v[j]);
            }
            fprintf(f, " %s", pid ? pid_unit[0][k] : ct_unit[k]);
            if (pid && npri) fprintf(f, " (%s on prismatic axes)", pid_unit[1][k]);
        }
        fprintf(f, " (bandwidth %.6g rad/s)\n", g->omega);
        closed_loop_report(cl, ck->lay->dev[d].name, info->degrees, f);
    }
}

/* The peaks table of one device. */
static void text_device(FILE *f, const Checks *ck, int d, const ReportInfo *info)
{
    const SampleDeviceInfo *di = &ck->lay->dev[d];
    const ModelDesc *m = di->desc;
    fprintf(f, "\n%s: %s", di->name, m && m->name[0] ? m->name : "(no machine)");
    if (m && m->backend[0]) fprintf(f, " [%s", m->backend);
    if (m && m->source[0]) fprintf(f, ", %s", m->source);
    if (m && m->backend[0]) fputc(']', f);
    fprintf(f, ", %d ax%s\n", di->naxes, di->naxes == 1 ? "is" : "es");
    int jw = 12; /* the joint column: as wide as the longest name, up to 32 */
    for (int i = 0; i < di->naxes; i++) {
        int l = (int)strlen(di->axis_name[i]);
        jw = l > jw ? (l < 32 ? l : 32) : jw;
    }
    fprintf(f, "  %-13s %4s %-*s %13s %-7s %10s %6s %16s %12s %8s\n", "quantity", "axis", jw, "joint", "peak", "unit",
            "at t (s)", "line", "limit", "margin", "margin%");
    for (int i = ck->dev_base[d]; i < ck->dev_base[d + 1]; i++) {
        const ChecksChannel *c = &ck->chan[i];
        if (!reported(c) || c->qty == CHK_IK) continue;
        const ChecksPoint *p = checks_peak(c);
        char ax[16] = "", v[32], t[32], lim[64], mg[32], mp[32];
        if (axis_of(c)) snprintf(ax, sizeof ax, "%d", axis_of(c));
        DisplayUnit du = display_unit(checks_unit(ck, c), info->degrees);
        double margin = checks_margin(c), pct = checks_margin_pct(c);
        const char *jn = axis_of(c) && di->axis_name[axis_of(c) - 1][0] ? di->axis_name[axis_of(c) - 1] : "-";
        fprintf(f, "%c %-13.13s %4s %-*.*s %13s %-7s %10s %6d %16s %12s %8s\n", c->nbad ? '!' : ' ',
                checks_label(ck, c), ax, jw, jw, jn, num(v, du.k * p->v), du.unit, num(t, p->t), p->src.line,
                limit_str(lim, c, du.k), isinf(margin) ? "-" : num(mg, du.k * margin),
                isinf(pct) || isnan(pct) ? "-" : num(mp, pct));
    }
    const ChecksChannel *ik = checks_channel(ck, d, CHK_IK, -1);
    if (ik && ik->nbad) fprintf(f, "! IK failed on %ld cycles\n", ik->nbad);
    text_not_given(f, di, info->degrees);
}

#define REPORT_PASSES_LISTED 10

/* "cycle time: loop lines 19..35, 2 passes: 6.6 s, 7.26 s" after the duration line. */
static void text_cycle_time(FILE *f, const Timeline *tl)
{
    char a[32];
    if (!tl->loop_file) return;
    fprintf(f, "cycle time of the outermost loop (lines %d..%d): ", tl->loop_lo, tl->loop_hi);
    if (!tl->npass) {
        fputs("no motion statement in its lines ran\n", f);
        return;
    }
    /* a line to read: the first REPORT_PASSES_LISTED passes, then the extremes (report.json lists them all) */
    int shown = tl->npass < REPORT_PASSES_LISTED ? tl->npass : REPORT_PASSES_LISTED;
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < tl->npass; k++) lo = fmin(lo, pass_time(tl, k)), hi = fmax(hi, pass_time(tl, k));
    fprintf(f, "%d pass%s:", tl->npass, tl->npass == 1 ? "" : "es");
    for (int k = 0; k < shown; k++) fprintf(f, "%s %s s", k ? "," : "", num(a, pass_time(tl, k)));
    if (shown < tl->npass) {
        char b[32];
        fprintf(f, ", ... (%d more; shortest %s s, longest %s s)", tl->npass - shown, num(a, lo), num(b, hi));
    }
    if (tl->pass_dropped) fprintf(f, " (%ld more passes not listed)", tl->pass_dropped);
    fputc('\n', f);
}

/* "prog.irl:14:5: arm moves from t = 1.2 s for 0.8 s", one line per motion statement as it ran. */
static void text_motions(FILE *f, const Checks *ck, const ReportInfo *info)
{
    const Timeline *tl = info->timeline;
    char a[32], b[32];
    fputs("\nmotions (each motion statement as it ran: start, duration):\n", f);
    for (int i = 0; i < tl->n; i++) {
        const TimelineMove *m = &tl->mv[i];
        fprintf(f, "%s:%d:%d: %s moves from t = %s s for %s s\n", src_file(m->src, info), m->src.line, m->src.col,
                ck->lay->dev[m->dev].name, num(a, m->t_start), num(b, m->duration));
    }
    if (tl->dropped) fprintf(f, "note: %ld more motions not listed (the list holds %d)\n", tl->dropped, TIMELINE_MAX);
}

void report_text(FILE *f, const Checks *ck, const ReportInfo *info)
{
    const char *verdict = report_verdict(ck, info);
    long nv = checks_violation_count(ck);
    char a[32], b[32];
    fprintf(f, "irl dry-run report: %s\n", info->program ? info->program : "?");
    fprintf(f, "verdict: %s", strcmp(verdict, "pass") == 0 ? "PASS" : strcmp(verdict, "fail") == 0 ? "FAIL"
                              : strcmp(verdict, "incomplete") == 0 ? "INCOMPLETE" : "ERROR");
    if (nv) fprintf(f, " (%ld violation%s)", nv, nv == 1 ? "" : "s");
    int im = inertia_missing(ck);
    if (im >= 0)
        fprintf(f, "; torque check incomplete: %s gives no inertial data for %s (counted as massless)",
                ck->lay->dev[im].desc->source, ck->lay->dev[im].desc->inertia_missing);
    fprintf(f, "\nduration %s s, %ld cycles of %s ms\n", num(a, ck->ncycles ? ck->t_last - ck->t_first : 0),
            ck->ncycles, num(b, info->cycle * 1e3));
    if (info->timeline) text_cycle_time(f, info->timeline);
    if (info->error) {
        size_t n = strlen(info->error);
        fprintf(f, "\nthe program stopped: %s%s", info->error, n && info->error[n - 1] == '\n' ? "" : "\n");
    }
    if (info->incomplete)
        fprintf(f, "\nthe run was %s: the trace, the peaks and the checks end there; the rest of the program was "
                "not run\n", info->incomplete);
    int nsat = 0;
    for (int d = 0; info->closed_loop && d < ck->lay->ndev; d++)
        if (info->closed_loop[d]) nsat += info->closed_loop[d]->stats.nev;
    if (nv || ck->k_dev >= 0 || ck->nlimited || ck->nnotes || nsat) fputc('\n', f);
    for (int i = 0; i < ck->nviol; i++) text_violation(f, ck, &ck->viol[i], info);
    if (info->closed_loop) text_saturation(f, ck, info);
    if (ck->viol_dropped)
        fprintf(f, "note: %ld more violations not listed (the list holds %d; see the peaks below)\n",
                ck->viol_dropped, ck->viol_cap);
    text_notes(f, ck, info);
    fputs("\npeaks (! = out of limits; margin = limit - |peak|, % of the limit or of the range):\n", f);
    for (int d = 0; d < ck->lay->ndev; d++) text_device(f, ck, d, info);
    if (info->closed_loop) text_closed_loop(f, ck, info);
    if (info->timeline) text_motions(f, ck, info);
    if (info->trace) fprintf(f, "\ntrace: %s\n", info->trace);
}

/* }====================================================================== */

/* Write one file with one of the writers. */
static int write_file(const char *path, void (*fn)(FILE *, const Checks *, const ReportInfo *), const Checks *ck,
                      const ReportInfo *info, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fn(f, ck, info);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int report_write(const Checks *ck, const ReportInfo *info, const char *json_path, const char *txt_path, char *err,
                 size_t errlen)
{
    if (json_path && write_file(json_path, report_json, ck, info, err, errlen) < 0) return -1;
    if (txt_path && write_file(txt_path, report_text, ck, info, err, errlen) < 0) return -1;
    return 0;
}
