/* plot.c — figures of a dry-run with gnuplot: write plots.gp, run gnuplot on it, check how it ended. */
#include "output/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "osal.h"
#include "output/display.h"
#include "output/progress.h"
#include "output/trace.h"

extern char **environ;

#define MAX_PANELS 12       /* more axes than this: one panel per unit with every curve of it */
#define MAX_CURVES SAMPLE_MAX_AXES /* curves in one panel: a unit group of outputs, every axis of a long chain */
#define MAX_SHADES 200      /* violation intervals drawn per panel */
#define PLOT_MAX_DECLARED 4   /* figures a back-end may declare (ModelType.plots): more are not drawn */
#define PLOT_FIGURES_PER_DEVICE (8 + PLOT_MAX_DECLARED) /* the standard ones, at most 8, and the declared ones */

static const char *const palette[] = {"#1f77b4", "#d95f02", "#1b9e77", "#7570b3",
                                      "#e7298a", "#66a61e", "#a6761d", "#444444"};
#define NPALETTE (int)(sizeof palette / sizeof palette[0])

/* One figure: a quantity group of a device. */
typedef struct {
    int dev;
    ChecksQty qty;     /* CHK_OUTPUT for the outputs figure */
    TraceGroup group;
    const char *file;  /* file name part: "positions" */
    const char *title; /* "positions" */
    int n;             /* panels */
    const ModelPlotGroup *decl; /* a figure the device's back-end declares (declared_panel), else NULL */
    int clg;           /* group TRACE_CL: which closed-loop group (1 tracking error, 2 voltage, 3 current) */
    int grouped;       /* an axis figure of more than MAX_PANELS axes: one panel per unit */
} Figure;

/* {====================================================================== script pieces */

/* A gnuplot single-quoted string: ' doubles. */
static void gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        if (*s != '\n') fputc(*s, f);
    }
    fputc('\'', f);
}

/* Units for people: rad/s^2 -> rad/s². */
static const char *pretty_unit(const char *u)
{
    if (strcmp(u, "rad/s^2") == 0) return "rad/s²";
    if (strcmp(u, "m/s^2") == 0) return "m/s²";
    if (strcmp(u, "rad/s^3") == 0) return "rad/s³";
    if (strcmp(u, "deg/s^2") == 0) return "deg/s²";
    if (strcmp(u, "deg/s^3") == 0) return "deg/s³";
    if (strcmp(u, "m/s^3") == 0) return "m/s³";
    return u;
}

/* A short number: %.4g. */
static const char *fmt(char *b, double x)
{
    snprintf(b, 32, "%.4g", x);
    return b;
}

/* The device name made safe for a file name. */
static void safe_name(char *out, size_t n, const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < n; i++) {
        char c = name[i];
        out[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-') ? c : '_';
    }
    out[i] = 0;
}

/* Append printf-formatted text to buf (size cap, current length *len), never past its end. */
static void cat(char *buf, size_t cap, size_t *len, const char *fmtstr, ...) __attribute__((format(printf, 4, 5)));
static void cat(char *buf, size_t cap, size_t *len, const char *fmtstr, ...)
{
    if (*len >= cap - 1) return;
    va_list ap;
    va_start(ap, fmtstr);
    int n = vsnprintf(buf + *len, cap - *len, fmtstr, ap);
    va_end(ap);
    if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* A declared panel's expression with each {group:i} replaced by column(N) of device dev's trace. 0, or -1 when it
 * names a column the trace does not have (or does not fit in out). */
static int expand_expr(const SampleLayout *lay, int dev, const char *expr, char *out, size_t n)
{
    static const struct { const char *name; TraceGroup group; } ref[] = {
        {"q", TRACE_Q}, {"qd", TRACE_QD}, {"qdd", TRACE_QDD}, {"tau", TRACE_TAU}, {"pose", TRACE_POSE},
    };
    size_t len = 0;
    for (const char *p = expr; *p; p++) {
        int col = 0, used = 0;
        char name[8];
        if (*p == '{' && sscanf(p, "{%7[a-z]:%d}%n", name, &col, &used) == 2 && used > 0) {
            int i = col;
            col = 0;
            for (size_t k = 0; k < sizeof ref / sizeof ref[0]; k++)
                if (strcmp(ref[k].name, name) == 0) col = trace_column(lay, dev, ref[k].group, i);
            if (col <= 0) return -1;
            int w = snprintf(out + len, n - len, "column(%d)", col);
            if (w < 0 || (size_t)w >= n - len) return -1;
            len += (size_t)w;
            p += used - 1;
        } else {
            if (len + 1 >= n) return -1;
            out[len++] = *p;
        }
    }
    out[len] = 0;
    return 0;
}

/* }====================================================================== */

/* {====================================================================== panels */

/* One curve of a panel: a checked channel's values, or (c NULL) a column or expression no check watches. */
typedef struct {
    const ChecksChannel *c;
    int col;                   /* its trace column; a rate curve: the column of the output it differentiates */
    int rate;                  /* 1: the backward difference of column col, as the checks computed it */
    const char *expr;          /* a derived curve: a declared panel's expression ({q:i} ...), else NULL */
    const char *si;            /* its SI unit ("" dimensionless) */
    char name[MODEL_NAME_LEN]; /* legend and title: the joint's name ("axis 3" without one), the output's */
} Curve;

/* One panel: curves of one unit on one y axis. */
typedef struct {
    int dev;
    char title[160];           /* what it shows; "": its one curve's name */
    const char *quantity;      /* the y label before the unit ("speed"); NULL: the unit alone */
    double lim;                /* a limit ±lim no channel carries (a motor's voltage), drawn dashed; 0: none */
    int n;
    Curve cv[MAX_CURVES];
} Panel;

/* The curve of a checked channel of device dev: its column and name ("axis i" when the joint has none). */
static Curve chan_curve(const Checks *ck, const ChecksChannel *c)
{
    static const int axis_group[] = {[CHK_POSITION] = TRACE_Q, [CHK_SPEED] = TRACE_QD, [CHK_ACCEL] = TRACE_QDD,
                                     [CHK_JERK] = -1, [CHK_TORQUE] = TRACE_TAU}; /* jerk: not traced */
    const SampleDeviceInfo *di = &ck->lay->dev[c->dev];
    Curve cv = {.c = c, .si = checks_unit(ck, c)};
    if (c->qty == CHK_OUTPUT || c->qty == CHK_OUTPUT_RATE) {
        cv.rate = c->qty == CHK_OUTPUT_RATE;
        cv.col = trace_column(ck->lay, c->dev, TRACE_OUT, cv.rate ? c->src_output : c->index);
        snprintf(cv.name, sizeof cv.name, "%s", checks_label(ck, c));
    } else {
        int g = c->qty <= CHK_TORQUE ? axis_group[c->qty] : -1;
        cv.col = g >= 0 ? trace_column(ck->lay, c->dev, (TraceGroup)g, c->index) : 0;
        if (di->axis_name[c->index][0]) snprintf(cv.name, sizeof cv.name, "%s", di->axis_name[c->index]);
        else snprintf(cv.name, sizeof cv.name, "axis %d", c->index + 1);
    }
    return cv;
}

/* The curves of a device's outputs and then of their checked rates ("Gdot"), into cv; their count. */
static int output_curves(const Checks *ck, int dev, Curve *cv)
{
    int n = 0;
    for (int i = 0; i < ck->lay->dev[dev].nout && n < MAX_CURVES; i++) {
        const ChecksChannel *c = checks_channel(ck, dev, CHK_OUTPUT, i);
        if (c) cv[n++] = chan_curve(ck, c);
    }
    for (int j = ck->dev_base[dev]; j < ck->dev_base[dev + 1] && n < MAX_CURVES; j++)
        if (ck->chan[j].qty == CHK_OUTPUT_RATE) cv[n++] = chan_curve(ck, &ck->chan[j]);
    return n;
}

/* The curves of one quantity of every axis of a device, into cv; their count. */
static int axis_curves(const Checks *ck, int dev, ChecksQty qty, Curve *cv)
{
    int n = 0;
    for (int i = 0; i < ck->lay->dev[dev].naxes && n < MAX_CURVES; i++) {
        const ChecksChannel *c = checks_channel(ck, dev, qty, i);
        if (c) cv[n++] = chan_curve(ck, c);
    }
    return n;
}

/* How many units the curves have; with p, panel k gets those of the k-th (in order of first appearance). */
static int unit_groups(const Curve *cv, int n, int k, Panel *p)
{
    int ng = 0;
    for (int i = 0; i < n; i++) {
        int first = 1;
        for (int j = 0; j < i && first; j++) first = strcmp(cv[j].si, cv[i].si) != 0;
        if (!first) continue;
        if (p && ng == k)
            for (int j = i; j < n; j++)
                if (strcmp(cv[j].si, cv[i].si) == 0) p->cv[p->n++] = cv[j];
        ng++;
    }
    return ng;
}

/* A unit group's title from its names: "G, Gfelt, Gx" when that fits in 48 characters, else "L1 … L6 (6)". */
static void names_title(Panel *p)
{
    size_t len = 0;
    for (int i = 0; i < p->n; i++) len += strlen(p->cv[i].name) + 2;
    if (len > 50) {
        len = 0;
        cat(p->title, sizeof p->title, &len, "%s … %s (%d)", p->cv[0].name, p->cv[p->n - 1].name, p->n);
        return;
    }
    len = 0;
    for (int i = 0; i < p->n; i++) cat(p->title, sizeof p->title, &len, "%s%s", i ? ", " : "", p->cv[i].name);
}

/* The curve whose peak the title quotes: the one nearest to (or furthest beyond) its limit, else the largest. */
static const Curve *lead_curve(const Panel *p)
{
    const Curve *best = NULL;
    double bm = INFINITY, bv = -1;
    for (int i = 0; i < p->n; i++) {
        const ChecksChannel *c = p->cv[i].c;
        if (!c || !c->nsamples) continue;
        double m = checks_margin_pct(c), v = fabs(checks_peak(c)->v);
        if (isfinite(m) ? m < bm : !isfinite(bm) && v > bv) best = &p->cv[i];
        if (isfinite(m) && m < bm) bm = m;
        if (!isfinite(bm) && v > bv) bv = v;
    }
    return best;
}

/* Panel title: "shoulder  ·  peak 70.5 deg/s at 0.52 s (line 14)  ·  limit ±115, margin 38 %"; red when a curve
 * left its limits. */
static void panel_title(FILE *f, const Panel *p, const Curve *lead, DisplayUnit du)
{
    char t[512], a[32], b[32];
    size_t n = 0, cap = sizeof t;
    int bad = 0;
    t[0] = 0;
    cat(t, cap, &n, "%s", p->title[0] ? p->title : p->n ? p->cv[0].name : "?");
    for (int i = 0; i < p->n; i++) bad |= p->cv[i].c && p->cv[i].c->nbad;
    if (lead) {
        const ChecksChannel *c = lead->c;
        const ChecksPoint *pk = checks_peak(c);
        const char *u = pretty_unit(du.unit);
        cat(t, cap, &n, "  ·  peak%s%s %s%s%s at %s s", p->n > 1 ? " " : "", p->n > 1 ? lead->name : "",
            fmt(a, du.k * pk->v), *u ? " " : "", u, fmt(b, pk->t));
        if (pk->src.line > 0) cat(t, cap, &n, " (line %d)", pk->src.line);
        int flo = isfinite(c->lo), fhi = isfinite(c->hi);
        if (flo && fhi && c->lo == -c->hi) cat(t, cap, &n, "  ·  limit ±%s", fmt(a, du.k * c->hi));
        else if (flo && fhi) cat(t, cap, &n, "  ·  limits %s, %s", fmt(a, du.k * c->lo), fmt(b, du.k * c->hi));
        else if (flo || fhi)
            cat(t, cap, &n, "  ·  limit %s %s", fhi ? "≤" : "≥", fmt(a, du.k * (fhi ? c->hi : c->lo)));
        double pct = checks_margin_pct(c);
        if ((flo || fhi) && isfinite(pct)) cat(t, cap, &n, ", margin %.3g %%", pct);
    } else if (p->lim > 0) {
        cat(t, cap, &n, "  ·  limit ±%s", fmt(a, p->lim));
    }
    fputs("set title ", f);
    gp_str(f, t);
    fputs(bad ? " tc rgb '#b00000'\n" : " tc rgb '#202020'\n", f);
}

/* y label: "speed (deg/s)", or the unit alone. */
static void panel_ylabel(FILE *f, const Panel *p, DisplayUnit du)
{
    char y[128];
    const char *u = pretty_unit(du.unit);
    if (p->quantity && *u) snprintf(y, sizeof y, "%s (%s)", p->quantity, u);
    else snprintf(y, sizeof y, "%s", p->quantity ? p->quantity : u);
    fputs("set ylabel ", f);
    gp_str(f, y);
    fputc('\n', f);
}

/* Shaded violation intervals of every curve, the lead's peak marker and those of the curves out of limits. */
static void panel_marks(FILE *f, const Checks *ck, const Panel *p, const Curve *lead, double k)
{
    fputs("unset object\nunset label\n", f);
    double span = ck->t_last - ck->t_first;
    double pad = fmax(0.5 * ck->cfg.cycle, 0.002 * span);
    int nshade = 0, nlabel = 0;
    for (int v = 0; v < ck->nviol && nshade < MAX_SHADES; v++) {
        const ChecksViolation *w = &ck->viol[v];
        for (int i = 0; i < p->n; i++) {
            if (p->cv[i].c != &ck->chan[w->channel]) continue;
            fprintf(f, "set object %d rect from %.9g, graph 0 to %.9g, graph 1 behind fc rgb '#f6d0d0' "
                       "fs solid 1.0 noborder\n", ++nshade, w->t_start - pad, w->t_end + pad);
            break;
        }
    }
    for (int i = 0; i < p->n; i++) {
        const ChecksChannel *c = p->cv[i].c;
        if (!c || !c->nsamples || (&p->cv[i] != lead && !c->nbad)) continue;
        const ChecksPoint *pk = checks_peak(c);
        if (isfinite(pk->v))
            fprintf(f, "set label %d '' at %.9g, %.9g point pt 7 ps 0.7 lc rgb '%s' front\n", ++nlabel, pk->t,
                    k * pk->v, c->nbad ? "#c00000" : "#202020");
    }
}

/* The using-expression of curve i: its column (times k when the display unit is not SI), the backward difference of
 * it, or a declared expression. */
static void curve_using(FILE *f, const Checks *ck, const Panel *p, int i, double k)
{
    const Curve *cv = &p->cv[i];
    char e[1024];
    if (cv->expr) {
        expand_expr(ck->lay, p->dev, cv->expr, e, sizeof e);
        if (k != 1) fprintf(f, "using 1:(%.17g * (%s))", k, e);
        else fprintf(f, "using 1:(%s)", e);
    } else if (cv->rate) {
        fprintf(f, "using 1:(r_ = (column(%d) - p%d_) / (column(1) - t%d_), p%d_ = column(%d), t%d_ = column(1), ",
                cv->col, i, i, i, cv->col, i);
        if (k != 1) fprintf(f, "%.17g * r_)", k);
        else fputs("r_)", f);
    } else if (k != 1) {
        fprintf(f, "using 1:($%d * %.17g)", cv->col, k);
    } else {
        fprintf(f, "using 1:%d", cv->col);
    }
}

/* A dashed limit line at y (drawn once per value). */
static void limit_line(FILE *f, double y, const char *colour, double *drawn, int *ndrawn)
{
    for (int j = 0; j < *ndrawn; j++)
        if (drawn[j] == y) return;
    if (*ndrawn < 2 * MAX_CURVES + 2) drawn[(*ndrawn)++] = y;
    fprintf(f, ", %.9g with lines lc rgb '%s' dt (10,6) lw 1.3 notitle", y, colour);
}

/* The plot command of a panel: its curves (a legend of their names when there are several) and the limits that are
 * near, grey when every curve has the same, else in their curve's colour. */
static void panel_plot(FILE *f, const Checks *ck, const PlotOptions *o, const Panel *p, double k)
{
    int shared = 1;
    const ChecksChannel *first = NULL;
    for (int i = 0; i < p->n; i++) {
        const ChecksChannel *c = p->cv[i].c;
        if (!c || (isinf(c->lo) && isinf(c->hi))) continue;
        if (first && (first->lo != c->lo || first->hi != c->hi)) shared = 0;
        if (!first) first = c;
    }
    if (p->n > 1) { /* the legend right of the plot, in a margin as wide as the longest name */
        size_t w = 0;
        for (int i = 0; i < p->n; i++) w = strlen(p->cv[i].name) > w ? strlen(p->cv[i].name) : w;
        fprintf(f, "set rmargin %d\nset key outside right top vertical font ',9' samplen 1.5 spacing 0.9\n",
                (int)(w < 24 ? w : 24) + 6);
    }
    for (int i = 0; i < p->n; i++)
        if (p->cv[i].rate) fprintf(f, "p%d_ = NaN; t%d_ = NaN\n", i, i);
    fputs("plot ", f);
    for (int i = 0; i < p->n; i++) {
        if (i) fputs(", \\\n     ", f);
        gp_str(f, o->trace);
        fputs(" every ::1 ", f);
        curve_using(f, ck, p, i, k);
        fprintf(f, " with lines lc rgb '%s' lw %s%s ", palette[i % NPALETTE], p->n > 1 ? "1.2" : "1.4",
                i >= NPALETTE ? " dt (6,3)" : "");
        if (p->n > 1) fputs("title ", f), gp_str(f, p->cv[i].name);
        else fputs("notitle", f);
    }
    /* a limit is drawn when it lies within the span of the panel's values beyond them (the curves then keep at least
       half the panel's height; a limit further away is only quoted in the title), or when a curve crossed it */
    double lo = INFINITY, hi = -INFINITY, drawn[2 * MAX_CURVES + 2];
    int ndrawn = 0;
    for (int i = 0; i < p->n; i++) {
        const ChecksChannel *c = p->cv[i].c;
        if (c && c->nsamples && isfinite(c->min.v) && isfinite(c->max.v))
            lo = fmin(lo, k * c->min.v), hi = fmax(hi, k * c->max.v);
    }
    double span = hi - lo;
    for (int i = 0; i < p->n; i++) {
        const ChecksChannel *c = p->cv[i].c;
        if (!c || !c->nsamples) continue;
        const char *colour = shared ? "#707070" : palette[i % NPALETTE];
        double lim[2] = {k * c->hi, k * c->lo};
        for (int j = 0; j < 2; j++)
            if (isfinite(lim[j]) && (c->nbad || (span >= 0 && lim[j] >= lo - span && lim[j] <= hi + span)))
                limit_line(f, lim[j], colour, drawn, &ndrawn);
    }
    if (p->lim > 0) {
        limit_line(f, p->lim, "#707070", drawn, &ndrawn);
        limit_line(f, -p->lim, "#707070", drawn, &ndrawn);
    }
    fputc('\n', f);
    if (p->n > 1) fputs("unset key\nset rmargin 3\n", f);
}

/* One panel: title, y label, marks, curves. bottom: the panel is in the figure's last row (it gets the x label). */
static void draw_panel(FILE *f, const Checks *ck, const PlotOptions *o, const Panel *p, int bottom)
{
    DisplayUnit du = display_unit(p->n ? p->cv[0].si : "", o->degrees);
    const Curve *lead = lead_curve(p);
    panel_title(f, p, lead, du);
    panel_ylabel(f, p, du);
    fputs(bottom ? "set xlabel 'time (s)'\n" : "set xlabel ''\n", f);
    panel_marks(f, ck, p, lead, du.k);
    panel_plot(f, ck, o, p, du.k);
}

/* }====================================================================== */

/* {====================================================================== figures */

/* Index of the output named `name` of a device, or -1. */
static int output_index(const Checks *ck, int dev, const char *name)
{
    const SampleDeviceInfo *di = &ck->lay->dev[dev];
    for (int i = 0; i < di->nout; i++)
        if (strcmp(di->out_name[i], name) == 0) return i;
    return -1;
}

/* A declared panel's trace quantity (MODEL_PLOT_Q ... MODEL_PLOT_OUTPUT). */
static const ChecksQty panel_qty[] = {
    [MODEL_PLOT_Q] = CHK_POSITION, [MODEL_PLOT_QD] = CHK_SPEED, [MODEL_PLOT_QDD] = CHK_ACCEL,
    [MODEL_PLOT_TAU] = CHK_TORQUE, [MODEL_PLOT_OUTPUT] = CHK_OUTPUT,
};

/* The k-th name of a declared panel's space-separated output list into name; 0 when there is none. */
static int output_word(const char *list, int k, char *name, size_t n)
{
    const char *p = list;
    for (;;) {
        while (*p == ' ') p++;
        if (!*p) return 0;
        size_t len = strcspn(p, " ");
        if (k-- == 0) {
            snprintf(name, n, "%.*s", (int)len, p);
            return 1;
        }
        p += len;
    }
}

/* The curves of declared panel pp of device dev into p (its title the panel's label); 0, or -1 when the trace lacks
 * a column it names. */
static int declared_panel(const Checks *ck, int dev, const ModelPlotPanel *pp, Panel *p)
{
    char buf[1024], name[MODEL_NAME_LEN];
    memset(p, 0, sizeof *p);
    p->dev = dev;
    snprintf(p->title, sizeof p->title, "%s", pp->label ? pp->label : "");
    if (pp->src == MODEL_PLOT_EXPR) {
        if (!pp->expr || expand_expr(ck->lay, dev, pp->expr, buf, sizeof buf) < 0) return -1;
        p->cv[0] = (Curve){.expr = pp->expr, .si = pp->unit ? pp->unit : ""};
        snprintf(p->cv[0].name, sizeof p->cv[0].name, "%.63s", p->title);
        p->n = 1;
        return 0;
    }
    if (pp->src == MODEL_PLOT_OUTPUT) {
        for (int k = 0; pp->output && output_word(pp->output, k, name, sizeof name) && p->n < MAX_CURVES; k++) {
            const ChecksChannel *c = checks_channel(ck, dev, CHK_OUTPUT, output_index(ck, dev, name));
            if (!c) return -1;
            p->cv[p->n++] = chan_curve(ck, c);
        }
        return p->n ? 0 : -1;
    }
    const ChecksChannel *c = pp->src >= 0 && pp->src < MODEL_PLOT_OUTPUT ? checks_channel(ck, dev, panel_qty[pp->src],
                                                                                          pp->axis) : NULL;
    if (!c) return -1;
    p->cv[p->n++] = chan_curve(ck, c);
    return 0;
}

/* Whether device dev's trace has every column a declared figure names. */
static int declared_fits(const Checks *ck, int dev, const ModelPlotGroup *g)
{
    Panel p;
    if (g->npanels <= 0 || g->npanels > MODEL_PLOT_MAX_PANELS) return 0;
    for (int k = 0; k < g->npanels; k++)
        if (declared_panel(ck, dev, &g->panel[k], &p) < 0) return 0;
    return 1;
}

/* Panel k of a standard figure: one axis (one curve), a unit group of a long chain's axes or of the outputs, or one
 * axis's closed-loop channel (fg->clg: 1 tracking error, 2 motor voltage with its limit, 3 motor current). */
static void figure_panel(const Checks *ck, const Figure *fg, int k, Panel *p)
{
    static const char *const cl_qty[] = {"", "tracking error", "voltage", "current"};
    Curve all[MAX_CURVES];
    const SampleDeviceInfo *di = &ck->lay->dev[fg->dev];
    memset(p, 0, sizeof *p);
    p->dev = fg->dev;
    if (fg->decl) {
        declared_panel(ck, fg->dev, &fg->decl->panel[k], p);
    } else if (fg->group == TRACE_CL) {
        const ModelJoint *jt = di->desc && k < di->desc->njoints ? &di->desc->joint[k] : NULL;
        static const char *const cl_unit[] = {"", "rad", "V", "A"};
        const char *si = fg->clg == 1 && jt && jt->type == MODEL_PRISMATIC ? "m" : cl_unit[fg->clg];
        p->cv[0] = (Curve){.col = trace_column(ck->lay, fg->dev, TRACE_CL, fg->clg * di->naxes + k), .si = si};
        if (di->axis_name[k][0]) snprintf(p->cv[0].name, sizeof p->cv[0].name, "%s", di->axis_name[k]);
        else snprintf(p->cv[0].name, sizeof p->cv[0].name, "axis %d", k + 1);
        p->n = 1;
        p->quantity = cl_qty[fg->clg];
        p->lim = fg->clg == 2 && jt && jt->motor.present ? jt->motor.vmax : 0;
    } else if (fg->qty == CHK_OUTPUT) {
        unit_groups(all, output_curves(ck, fg->dev, all), k, p);
        names_title(p);
    } else if (fg->grouped) {
        unit_groups(all, axis_curves(ck, fg->dev, fg->qty, all), k, p);
        p->quantity = p->n ? checks_label(ck, p->cv[0].c) : NULL;
        names_title(p);
    } else {
        const ChecksChannel *c = checks_channel(ck, fg->dev, fg->qty, k);
        if (c) p->cv[p->n++] = chan_curve(ck, c), p->quantity = checks_label(ck, c);
    }
}

/* The commands of one figure (without terminal and output): a multiplot of its panels. */
static void figure_body(FILE *f, const Checks *ck, const PlotOptions *o, const Figure *fg, int rows, int cols)
{
    char t[256];
    snprintf(t, sizeof t, "%s — %s%s", ck->lay->dev[fg->dev].name, fg->title,
             fg->group == TRACE_CL && !fg->decl ? " (closed loop)" : "");
    fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
    gp_str(f, t);
    fputs(" font ',12'\n", f);
    if (fg->group == TRACE_CL) fputs("set lmargin 13\n", f); /* room for 5-digit error ticks */
    if (ck->t_last > ck->t_first) fprintf(f, "set xrange [%.9g:%.9g]\n", ck->t_first, ck->t_last);
    else fputs("set autoscale x\n", f);
    Panel p;
    for (int k = 0; k < fg->n; k++) {
        figure_panel(ck, fg, k, &p);
        draw_panel(f, ck, o, &p, k >= fg->n - cols);
    }
    fputs(fg->group == TRACE_CL ? "unset multiplot\nset lmargin 11\nset output\nprint 'figure'\n"
                                : "unset multiplot\nset output\nprint 'figure'\n", f);
}

/* }====================================================================== */

/* Collect the figures of every device. A figure the back-end declares with the file name "outputs" takes the place
 * of the standard outputs figure (the back-end names the panels its outputs group into). */
static int list_figures(const Checks *ck, Figure *out, int max)
{
    int n = 0;
    Curve all[MAX_CURVES];
    for (int d = 0; d < ck->lay->ndev && n + PLOT_FIGURES_PER_DEVICE <= max; d++) {
        const SampleDeviceInfo *di = &ck->lay->dev[d];
        if (di->naxes <= 0) continue;
        static const struct { ChecksQty qty; TraceGroup group; const char *file; } std[] = {
            {CHK_POSITION, TRACE_Q, "positions"}, {CHK_SPEED, TRACE_QD, "speeds"},
            {CHK_ACCEL, TRACE_QDD, "accelerations"}, {CHK_TORQUE, TRACE_TAU, "torques"},
        };
        for (int s = 0; s < 4; s++) {
            const ChecksChannel *c0 = checks_channel(ck, d, std[s].qty, 0);
            if (std[s].qty == CHK_TORQUE && !(c0 && c0->nsamples)) continue;
            const char *title = std[s].file;
            if (std[s].qty == CHK_TORQUE) {
                int nrev = 0;
                const ModelDesc *m = di->desc;
                for (int i = 0; i < di->naxes; i++)
                    nrev += !(m && i < m->njoints && m->joint[i].type == MODEL_PRISMATIC);
                title = nrev == di->naxes ? "torques" : nrev == 0 ? "forces" : "torques and forces";
            }
            int grouped = di->naxes > MAX_PANELS;
            int np = grouped ? unit_groups(all, axis_curves(ck, d, std[s].qty, all), 0, NULL) : di->naxes;
            out[n++] = (Figure){d, std[s].qty, std[s].group, std[s].file, title, np, NULL, 0, grouped};
        }
        int outputs_declared = 0;
        for (int k = 0; k < di->nplots && k < PLOT_MAX_DECLARED; k++)
            outputs_declared |= strcmp(di->plots[k].file, "outputs") == 0 && declared_fits(ck, d, &di->plots[k]);
        int nunits = unit_groups(all, output_curves(ck, d, all), 0, NULL);
        if (nunits > 0 && !outputs_declared)
            out[n++] = (Figure){d, CHK_OUTPUT, TRACE_OUT, "outputs", "model outputs", nunits, NULL, 0, 0};
        for (int k = 0; k < di->nplots && k < PLOT_MAX_DECLARED; k++) {
            const ModelPlotGroup *g = &di->plots[k];
            if (declared_fits(ck, d, g))
                out[n++] = (Figure){d, CHK_OUTPUT, TRACE_OUT, g->file, g->title, g->npanels, g, 0, 0};
        }
        if (di->ncl_groups >= 2)
            out[n++] = (Figure){d, CHK_POSITION, TRACE_CL, "tracking", "tracking errors", di->naxes, NULL, 1, 0};
        if (di->ncl_groups >= 4) {
            out[n++] = (Figure){d, CHK_VOLTAGE, TRACE_CL, "motor_voltages", "motor voltages", di->naxes, NULL, 2, 0};
            out[n++] = (Figure){d, CHK_VOLTAGE, TRACE_CL, "motor_currents", "motor currents", di->naxes, NULL, 3, 0};
        }
    }
    return n;
}

/* The common settings at the top of the script. */
static void script_head(FILE *f)
{
    fputs("# plots.gp — written by irl; gnuplot plots.gp (from the directory irl ran in) redraws the figures.\n"
          "set datafile separator ','\nset print '-'\n"
          "PNGTERM = (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) ? 'pngcairo' : 'png'\n"
          "set grid xtics ytics lc rgb '#dddddd' lw 0.6 dt solid\n"
          "set border 3 lc rgb '#404040' lw 0.8\n"
          "set tics nomirror out scale 0.5 tc rgb '#303030'\n"
          "set xtics autofreq\nset ytics autofreq\n"
          "set offsets 0, 0, graph 0.06, graph 0.06\n"
          "set lmargin 11\nset rmargin 3\n"
          "unset key\n",
          f);
}

/* Write the whole script; returns the number of figure files. */
static int write_script(FILE *f, const Checks *ck, const PlotOptions *o, const Figure *fig, int nfig)
{
    int want_png = o->png || !o->svg, want_svg = o->svg || !o->png, nfiles = 0;
    script_head(f);
    for (int k = 0; k < nfig; k++) {
        const Figure *fg = &fig[k];
        int cols = fg->n <= 3 ? 1 : 2, rows_p = (fg->n + cols - 1) / cols;
        int w = cols == 1 ? 1000 : 1300, h = 70 + rows_p * (fg->grouped && fg->n == 1 ? 530 : 240);
        char dev[SAMPLE_NAME_LEN];
        safe_name(dev, sizeof dev, ck->lay->dev[fg->dev].name);
        for (int fmt_i = 0; fmt_i < 2; fmt_i++) {
            if (fmt_i == 0 && !want_png) continue;
            if (fmt_i == 1 && !want_svg) continue;
            char path[4096], name[256], e[64];
            snprintf(name, sizeof name, "%s_%s.%s", dev, fg->file, fmt_i == 0 ? "png" : "svg");
            snprintf(path, sizeof path, "%s/%s", o->dir, name);
            if (o->out) outdir_file(o->out, name, 0, e, sizeof e, e, sizeof e);
            if (fmt_i == 0)
                fprintf(f, "set terminal @PNGTERM noenhanced size %d,%d font 'sans,10' background rgb 'white'\n",
                        w, h);
            else
                fprintf(f, "set terminal svg noenhanced size %d,%d dynamic font 'sans,10' background rgb 'white'\n",
                        w, h);
            fputs("set output ", f);
            gp_str(f, path);
            fputc('\n', f);
            figure_body(f, ck, o, fg, rows_p, cols);
            nfiles++;
        }
    }
    return nfiles;
}

/* {====================================================================== running gnuplot */

/* The last line of a log file, for error messages. */
static void last_line(const char *path, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (line[0] != '\n') snprintf(out, n, "%.*s", (int)(n - 1), line);
    fclose(f);
    size_t l = strlen(out);
    if (l && out[l - 1] == '\n') out[l - 1] = 0;
}

/* Read gnuplot's stdout (one line per figure, for the progress bar) until it closes, the deadline passes or the
 * run is interrupted. The figures counted into *done; 0 closed, 1 timed out, 2 interrupted. */
static int read_figures(int fd, int64_t deadline, Progress *pr, int *done)
{
    char buf[4096];
    size_t len = 0;
    for (;;) {
        if (osal_interrupted()) return 2;
        int64_t left = deadline - osal_now();
        if (deadline > 0 && left <= 0) return 1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ms = deadline > 0 && left < 100000000 ? (int)(left / 1000000) + 1 : 100;
        int r = poll(&p, 1, ms);
        if (r < 0 && errno != EINTR) return 0;
        if (r <= 0) continue;
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        len += (size_t)n;
        buf[len] = '\0';
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n'))) {
            if (strncmp(line, "figure", 6) == 0) progress_update(pr, ++*done);
            line = nl + 1;
        }
        len = strlen(line);
        memmove(buf, line, len + 1);
        if (len == sizeof buf - 1) len = 0; /* a line longer than the buffer: not a figure line */
    }
}

/* Run gnuplot on the script; its stdout (one line per figure) drives the progress bar. */
static int run_gnuplot(const char *script, const char *log, int nfiles, int progress, double timeout, char *err,
                       size_t errlen)
{
    const char *gp = getenv("IRL_GNUPLOT");
    if (!gp || !*gp) gp = "gnuplot";
    int pfd[2];
    if (pipe(pfd) < 0) {
        snprintf(err, errlen, "plots: pipe: %s", strerror(errno));
        return PLOT_FAILED;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, pfd[0]);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addclose(&fa, pfd[1]);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char *argv[] = {(char *)gp, (char *)script, NULL};
    posix_spawnattr_t at; /* its own process group: a timeout kills whatever it started too */
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, gp, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        if (rc == ENOENT || rc == EACCES) {
            snprintf(err, errlen, "%s not found: plots skipped (install gnuplot, e.g. gnuplot-nox, "
                                  "or pass --no-plots)", gp);
            return PLOT_SKIPPED;
        }
        snprintf(err, errlen, "plots: cannot run %s: %s", gp, strerror(rc));
        return PLOT_FAILED;
    }
    Progress pr;
    progress_begin(&pr, stderr, "plots", "figures", nfiles);
    if (!progress) progress_force(&pr, 0);
    int done = 0;
    int64_t deadline = timeout > 0 ? osal_now() + (int64_t)(timeout * 1e9) : 0;
    int cut = read_figures(pfd[0], deadline, &pr, &done);
    close(pfd[0]);
    progress_end(&pr);
    if (cut) kill(-pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(err, errlen, "plots: waitpid: %s", strerror(errno));
            return PLOT_FAILED;
        }
    if (cut == 1)
        return snprintf(err, errlen, "%s did not finish within --plot-timeout %g s: killed, %d of %d figures "
                        "written", gp, timeout, done, nfiles), PLOT_TIMEOUT;
    if (cut == 2)
        return snprintf(err, errlen, "%s stopped by the interrupt: %d of %d figures written", gp, done, nfiles),
               PLOT_TIMEOUT;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || done != nfiles) {
        char why[400];
        last_line(log, why, sizeof why);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
            snprintf(err, errlen, "%s could not be started: plots skipped", gp);
            return PLOT_SKIPPED;
        }
        snprintf(err, errlen, "plots: %s %s (%d of %d figures written; see %s)%s%s", gp,
                 WIFEXITED(status) ? "failed" : "was killed", done, nfiles, log, why[0] ? ": " : "", why);
        return PLOT_FAILED;
    }
    return PLOT_OK;
}

/* }====================================================================== */

/* Copy the header and every n-th row (and the last) of a CSV: gnuplot then parses a small file per panel
 * instead of the whole trace. 0 or < 0. */
static int thin_copy(const char *src, const char *dst, long every, char *err, size_t errlen)
{
    FILE *in = fopen(src, "r"), *out = in ? fopen(dst, "w") : NULL;
    if (!in || !out) {
        snprintf(err, errlen, "%s: %s", in ? dst : src, strerror(errno));
        if (in) fclose(in);
        return -1;
    }
    char *line = NULL, *last = NULL;
    size_t cap = 0, lastcap = 0;
    ssize_t len;
    long row = -1; /* -1: the header */
    int last_written = 1;
    while ((len = getline(&line, &cap, in)) > 0) {
        if (row < 0 || row % every == 0) {
            fwrite(line, 1, (size_t)len, out);
            last_written = 1;
        } else {
            if (lastcap < cap) free(last), last = malloc(cap), lastcap = last ? cap : 0;
            if (last) memcpy(last, line, (size_t)len + 1);
            last_written = 0;
        }
        row++;
    }
    if (!last_written && last) fputs(last, out);
    free(line);
    free(last);
    fclose(in);
    if (fclose(out) != 0) {
        snprintf(err, errlen, "%s: write failed", dst);
        return -1;
    }
    return 0;
}

int plot_all(const Checks *ck, const PlotOptions *opt, char *err, size_t errlen)
{
    Figure fig[SAMPLE_MAX_DEVICES * PLOT_FIGURES_PER_DEVICE];
    int nfig = list_figures(ck, fig, SAMPLE_MAX_DEVICES * PLOT_FIGURES_PER_DEVICE);
    if (nfig == 0 || ck->ncycles == 0) return PLOT_OK;
    PlotOptions o = *opt;
    char thin[4096];
    long rows = ck->ncycles / (o.trace_every > 0 ? o.trace_every : 1) + 1;
    if (rows > PLOT_MAX_POINTS) {
        snprintf(thin, sizeof thin, "%s/plots.csv", opt->dir);
        if (opt->out) outdir_file(opt->out, "plots.csv", 0, thin, sizeof thin, err, errlen);
        if (thin_copy(opt->trace, thin, (rows + PLOT_MAX_POINTS - 1) / PLOT_MAX_POINTS, err, errlen) < 0)
            return PLOT_FAILED;
        o.trace = thin;
    }
    opt = &o;
    char script[4096], log[4096];
    snprintf(script, sizeof script, "%s/plots.gp", opt->dir);
    snprintf(log, sizeof log, "%s/plots.log", opt->dir);
    if (opt->out) {
        char e[64];
        outdir_file(opt->out, "plots.gp", 0, e, sizeof e, e, sizeof e);
        outdir_file(opt->out, "plots.log", 0, e, sizeof e, e, sizeof e);
    }
    FILE *f = fopen(script, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", script, strerror(errno));
        return PLOT_FAILED;
    }
    int nfiles = write_script(f, ck, opt, fig, nfig);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: write failed", script);
        return PLOT_FAILED;
    }
    return run_gnuplot(script, log, nfiles, opt->progress, opt->timeout, err, errlen);
}
