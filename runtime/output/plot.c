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
#include "output/progress.h"
#include "output/trace.h"

extern char **environ;

#define MAX_PANELS 12       /* more axes than this: one panel with every curve */
#define MAX_SHADES 200      /* violation intervals drawn per panel */
#define NEAR_PCT 50.0       /* limit lines drawn when the margin is below this % of the limit */
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
    int n;             /* panels (axes or outputs) */
    const ModelPlotGroup *decl; /* a figure the device's back-end declares (figure_declared), else NULL */
    int clg;           /* group TRACE_CL: which closed-loop group (1 tracking error, 2 voltage, 3 current) */
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

/* Number of outputs of a device plus its differentiated rate channels ("Gdot"). */
static int output_panels(const Checks *ck, int dev)
{
    int n = ck->lay->dev[dev].nout;
    for (int i = ck->dev_base[dev]; i < ck->dev_base[dev + 1]; i++) n += ck->chan[i].qty == CHK_OUTPUT_RATE;
    return n;
}

/* The channel a panel shows: axis i, output i, or (after the outputs) the rate channels in order. */
static const ChecksChannel *panel_channel(const Checks *ck, const Figure *fg, int i)
{
    if (fg->qty != CHK_OUTPUT || i < ck->lay->dev[fg->dev].nout) return checks_channel(ck, fg->dev, fg->qty, i);
    int k = i - ck->lay->dev[fg->dev].nout;
    for (int j = ck->dev_base[fg->dev]; j < ck->dev_base[fg->dev + 1]; j++)
        if (ck->chan[j].qty == CHK_OUTPUT_RATE && k-- == 0) return &ck->chan[j];
    return NULL;
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

/* Panel title: "axis 2 (shoulder) · peak 1.23 rad/s at 0.52 s (line 14) · limit ±2, margin 38 %". */
static void panel_title(FILE *f, const Checks *ck, const Figure *fg, const ChecksChannel *c, int i)
{
    char t[512], a[32], b[32];
    size_t n = 0, cap = sizeof t;
    t[0] = 0;
    if (fg->qty == CHK_OUTPUT) cat(t, cap, &n, "%s", c ? checks_label(ck, c) : "?");
    else cat(t, cap, &n, "axis %d", i + 1);
    const char *jn = fg->qty != CHK_OUTPUT && i < SAMPLE_MAX_AXES ? ck->lay->dev[fg->dev].axis_name[i] : "";
    if (*jn) cat(t, cap, &n, " (%s)", jn);
    if (c && c->nsamples) {
        const ChecksPoint *p = checks_peak(c);
        const char *u = pretty_unit(checks_unit(ck, c));
        cat(t, cap, &n, "  ·  peak %s%s%s at %s s", fmt(a, p->v), *u ? " " : "", u, fmt(b, p->t));
        if (p->src.line > 0) cat(t, cap, &n, " (line %d)", p->src.line);
        int flo = isfinite(c->lo), fhi = isfinite(c->hi);
        if (flo && fhi && c->lo == -c->hi) cat(t, cap, &n, "  ·  limit ±%s", fmt(a, c->hi));
        else if (flo && fhi) cat(t, cap, &n, "  ·  limits %s, %s", fmt(a, c->lo), fmt(b, c->hi));
        else if (flo || fhi) cat(t, cap, &n, "  ·  limit %s %s", fhi ? "≤" : "≥", fmt(a, fhi ? c->hi : c->lo));
        double pct = checks_margin_pct(c);
        if ((flo || fhi) && isfinite(pct)) cat(t, cap, &n, ", margin %.3g %%", pct);
    }
    fputs("set title ", f);
    gp_str(f, t);
    fputs(c && c->nbad ? " tc rgb '#b00000'\n" : " tc rgb '#202020'\n", f);
}

/* Shaded violation intervals and the peak marker of one panel. */
static void panel_marks(FILE *f, const Checks *ck, const ChecksChannel *c)
{
    fputs("unset object\nunset label\n", f);
    if (!c || !c->nsamples) return;
    double span = ck->t_last - ck->t_first;
    double pad = fmax(0.5 * ck->cfg.cycle, 0.002 * span);
    int nshade = 0;
    for (int k = 0; k < ck->nviol && nshade < MAX_SHADES; k++) {
        const ChecksViolation *w = &ck->viol[k];
        if (&ck->chan[w->channel] != c) continue;
        nshade++;
        fprintf(f, "set object %d rect from %.9g, graph 0 to %.9g, graph 1 behind fc rgb '#f6d0d0' "
                   "fs solid 1.0 noborder\n", nshade, w->t_start - pad, w->t_end + pad);
    }
    const ChecksPoint *p = checks_peak(c);
    if (isfinite(p->v))
        fprintf(f, "set label 1 '' at %.9g, %.9g point pt 7 ps 0.7 lc rgb '%s' front\n", p->t, p->v,
                c->nbad ? "#c00000" : "#202020");
}

/* The plot command of one panel: the curve, and its limits when they are near. */
static void panel_plot(FILE *f, const Checks *ck, const PlotOptions *o, const Figure *fg, const ChecksChannel *c,
                       int i)
{
    fprintf(f, "plot ");
    gp_str(f, o->trace);
    if (c && c->qty == CHK_OUTPUT_RATE) { /* differentiate the output as the checks did: backward difference */
        int col = trace_column(ck->lay, fg->dev, TRACE_OUT, c->src_output);
        fprintf(f, " every ::1 using 1:(r_ = (column(%d) - p_) / (column(1) - t_), p_ = column(%d), t_ = column(1), "
                   "r_) with lines lc rgb '%s' lw 1.4 notitle",
                col, col, palette[i % NPALETTE]);
    } else {
        int col = trace_column(ck->lay, fg->dev, fg->group, i);
        fprintf(f, " every ::1 using 1:%d with lines lc rgb '%s' lw 1.4 notitle", col, palette[i % NPALETTE]);
    }
    double pct = c ? checks_margin_pct(c) : NAN;
    int near = c && c->nsamples && (c->nbad || (isfinite(pct) && pct < NEAR_PCT));
    if (near && isfinite(c->hi)) fprintf(f, ", %.9g with lines lc rgb '#707070' dt (10,6) lw 1.3 notitle", c->hi);
    if (near && isfinite(c->lo)) fprintf(f, ", %.9g with lines lc rgb '#707070' dt (10,6) lw 1.3 notitle", c->lo);
    fputc('\n', f);
}

/* y label: "speed (rad/s)" */
static void panel_ylabel(FILE *f, const Checks *ck, const ChecksChannel *c, const Figure *fg)
{
    char y[128];
    if (fg->qty == CHK_OUTPUT) snprintf(y, sizeof y, "%s%s", c ? checks_label(ck, c) : "?",
                                        c && c->qty == CHK_OUTPUT_RATE ? " (per s)" : "");
    else if (c) snprintf(y, sizeof y, "%s (%s)", checks_label(ck, c), pretty_unit(checks_unit(ck, c)));
    else snprintf(y, sizeof y, "%s", checks_qty_name(fg->qty));
    fputs("set ylabel ", f);
    gp_str(f, y);
    fputc('\n', f);
}

/* Many axes: one panel with every curve and a key, no limits. */
static void body_overlay(FILE *f, const Checks *ck, const PlotOptions *o, const Figure *fg)
{
    fputs("set key outside right top font ',8'\nunset object\nunset label\nset title ''\nset xlabel 'time (s)'\n",
          f);
    panel_ylabel(f, ck, panel_channel(ck, fg, 0), fg);
    fputs("plot ", f);
    for (int i = 0; i < fg->n; i++) {
        int col = trace_column(ck->lay, fg->dev, fg->group, i);
        if (i) fputs(", \\\n     ", f);
        gp_str(f, o->trace);
        fprintf(f, " every ::1 using 1:%d with lines lc rgb '%s' lw 1.2 title '%d'", col, palette[i % NPALETTE],
                i + 1);
    }
    fputs("\nunset key\n", f);
}

/* The plotting commands of one figure (without terminal and output). */
static void figure_body(FILE *f, const Checks *ck, const PlotOptions *o, const Figure *fg, int rows, int cols)
{
    char t[256];
    snprintf(t, sizeof t, "%s — %s", ck->lay->dev[fg->dev].name, fg->title);
    fprintf(f, "set multiplot layout %d,%d title ", fg->n > MAX_PANELS ? 1 : rows, fg->n > MAX_PANELS ? 1 : cols);
    gp_str(f, t);
    fputs(" font ',12'\n", f);
    if (ck->t_last > ck->t_first) fprintf(f, "set xrange [%.9g:%.9g]\n", ck->t_first, ck->t_last);
    else fputs("set autoscale x\n", f);
    if (fg->n > MAX_PANELS) {
        body_overlay(f, ck, o, fg);
    } else {
        for (int i = 0; i < fg->n; i++) {
            const ChecksChannel *c = panel_channel(ck, fg, i);
            panel_title(f, ck, fg, c, i);
            panel_ylabel(f, ck, c, fg);
            fputs(i >= fg->n - cols ? "set xlabel 'time (s)'\n" : "set xlabel ''\n", f);
            panel_marks(f, ck, c);
            if (c && c->qty == CHK_OUTPUT_RATE) fputs("p_ = NaN; t_ = NaN\n", f);
            panel_plot(f, ck, o, fg, c, i);
        }
    }
    fputs("unset multiplot\nset output\nprint 'figure'\n", f);
}

/* Index of the output named `name` of a device, or -1. */
static int output_index(const Checks *ck, int dev, const char *name)
{
    const SampleDeviceInfo *di = &ck->lay->dev[dev];
    for (int i = 0; i < di->nout; i++)
        if (strcmp(di->out_name[i], name) == 0) return i;
    return -1;
}

/* A declared panel's trace quantity (MODEL_PLOT_Q ... MODEL_PLOT_OUTPUT). */
static const struct { ChecksQty qty; TraceGroup group; } panel_source[] = {
    [MODEL_PLOT_Q] = {CHK_POSITION, TRACE_Q},   [MODEL_PLOT_QD] = {CHK_SPEED, TRACE_QD},
    [MODEL_PLOT_QDD] = {CHK_ACCEL, TRACE_QDD},  [MODEL_PLOT_TAU] = {CHK_TORQUE, TRACE_TAU},
    [MODEL_PLOT_OUTPUT] = {CHK_OUTPUT, TRACE_OUT},
};

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

/* The trace index a declared panel shows (its axis, or its output's index), or -1 when the trace lacks it. */
static int panel_index(const Checks *ck, int dev, const ModelPlotPanel *pp)
{
    if (pp->src == MODEL_PLOT_OUTPUT) return pp->output ? output_index(ck, dev, pp->output) : -1;
    return pp->axis >= 0 && pp->axis < ck->lay->dev[dev].naxes ? pp->axis : -1;
}

/* Whether device dev's trace has every column a declared figure names. */
static int declared_fits(const Checks *ck, int dev, const ModelPlotGroup *g)
{
    char buf[1024];
    if (g->npanels <= 0 || g->npanels > MODEL_PLOT_MAX_PANELS) return 0;
    for (int k = 0; k < g->npanels; k++) {
        const ModelPlotPanel *pp = &g->panel[k];
        if (pp->src == MODEL_PLOT_EXPR ? !pp->expr || expand_expr(ck->lay, dev, pp->expr, buf, sizeof buf) < 0
                                       : panel_index(ck, dev, pp) < 0)
            return 0;
    }
    return 1;
}

/* A figure the device's back-end declares (ModelPlotGroup): each panel a trace quantity with its peak, limits and
 * violations as in the standard figures, or a derived curve without them. */
static void figure_declared(FILE *f, const Checks *ck, const PlotOptions *o, const Figure *fg, int rows, int cols)
{
    const ModelPlotGroup *g = fg->decl;
    int d = fg->dev;
    char t[256];
    snprintf(t, sizeof t, "%s — %s", ck->lay->dev[d].name, g->title);
    fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
    gp_str(f, t);
    fputs(" font ',12'\n", f);
    if (ck->t_last > ck->t_first) fprintf(f, "set xrange [%.9g:%.9g]\n", ck->t_first, ck->t_last);
    for (int k = 0; k < g->npanels; k++) {
        const ModelPlotPanel *pp = &g->panel[k];
        fputs("set title ", f);
        gp_str(f, pp->label);
        fputs(" tc rgb '#202020'\nset ylabel ''\n", f);
        fputs(k >= g->npanels - cols ? "set xlabel 'time (s)'\n" : "set xlabel ''\n", f);
        if (pp->src == MODEL_PLOT_EXPR) { /* derived: no channel, no limit */
            char e[1024];
            expand_expr(ck->lay, d, pp->expr, e, sizeof e);
            fputs("unset object\nunset label\nplot ", f);
            gp_str(f, o->trace);
            fprintf(f, " every ::1 using 1:(%s) with lines lc rgb '%s' lw 1.4 notitle\n", e, palette[k % NPALETTE]);
            continue;
        }
        int i = panel_index(ck, d, pp);
        Figure pf = *fg;
        pf.qty = panel_source[pp->src].qty, pf.group = panel_source[pp->src].group;
        const ChecksChannel *c = checks_channel(ck, d, pf.qty, i);
        panel_marks(f, ck, c);
        panel_plot(f, ck, o, &pf, c, i);
    }
    fputs("unset multiplot\nset output\nprint 'figure'\n", f);
}

/* A closed-loop figure (--closed-loop): one panel per axis of the trace's group fg->clg (tracking error e,
 * motor voltage u, motor current i). These are not checked channels, so there is no peak marker; the voltage
 * panels draw the motor's limit ±vmax (the saturation the engine applies). */
static void figure_closed_loop(FILE *f, const Checks *ck, const PlotOptions *o, const Figure *fg, int rows, int cols)
{
    const SampleDeviceInfo *di = &ck->lay->dev[fg->dev];
    const ModelDesc *m = di->desc;
    char t[256];
    snprintf(t, sizeof t, "%s — %s (closed loop)", di->name, fg->title);
    fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
    gp_str(f, t);
    fputs(" font ',12'\nunset object\nunset label\nset lmargin 13\n", f); /* room for 5-digit error ticks */
    if (ck->t_last > ck->t_first) fprintf(f, "set xrange [%.9g:%.9g]\n", ck->t_first, ck->t_last);
    else fputs("set autoscale x\n", f);
    for (int i = 0; i < fg->n; i++) {
        const ModelJoint *jt = m && i < m->njoints ? &m->joint[i] : NULL;
        double vmax = fg->clg == 2 && jt && jt->motor.present ? jt->motor.vmax : 0;
        const char *unit = fg->clg == 2 ? "V" : fg->clg == 3 ? "A" : jt && jt->type == MODEL_PRISMATIC ? "m" : "rad";
        char a[32], t[160];
        const char *jn = di->axis_name[i];
        snprintf(t, sizeof t, "axis %d%s%s%s%s%s", i + 1, *jn ? " (" : "", jn, *jn ? ")" : "",
                 vmax > 0 ? "  ·  limit ±" : "", vmax > 0 ? fmt(a, vmax) : "");
        fputs("set title ", f);
        gp_str(f, t);
        fputs(" tc rgb '#202020'\n", f);
        fprintf(f, "set ylabel '%s (%s)'\n", fg->clg == 1 ? "tracking error" : fg->clg == 2 ? "voltage" : "current",
                unit);
        fputs(i >= fg->n - cols ? "set xlabel 'time (s)'\n" : "set xlabel ''\n", f);
        fputs("plot ", f);
        gp_str(f, o->trace);
        fprintf(f, " every ::1 using 1:%d with lines lc rgb '%s' lw 1.4 notitle",
                trace_column(ck->lay, fg->dev, TRACE_CL, fg->clg * di->naxes + i), palette[i % NPALETTE]);
        if (fg->clg == 2 && vmax > 0)
            fprintf(f, ", %.9g with lines lc rgb '#707070' dt (10,6) lw 1.3 notitle, %.9g with lines lc rgb "
                       "'#707070' dt (10,6) lw 1.3 notitle", vmax, -vmax);
        fputc('\n', f);
    }
    fputs("unset multiplot\nset lmargin 11\nset output\nprint 'figure'\n", f);
}

/* }====================================================================== */

/* Collect the figures of every device. */
static int list_figures(const Checks *ck, Figure *out, int max)
{
    int n = 0;
    for (int d = 0; d < ck->lay->ndev && n + PLOT_FIGURES_PER_DEVICE <= max; d++) {
        const SampleDeviceInfo *di = &ck->lay->dev[d];
        if (di->naxes <= 0) continue;
        out[n++] = (Figure){d, CHK_POSITION, TRACE_Q, "positions", "positions", di->naxes, NULL, 0};
        out[n++] = (Figure){d, CHK_SPEED, TRACE_QD, "speeds", "speeds", di->naxes, NULL, 0};
        out[n++] = (Figure){d, CHK_ACCEL, TRACE_QDD, "accelerations", "accelerations", di->naxes, NULL, 0};
        const ChecksChannel *tc = checks_channel(ck, d, CHK_TORQUE, 0);
        if (tc && tc->nsamples) {
            int nrev = 0;
            const ModelDesc *m = di->desc;
            for (int i = 0; i < di->naxes; i++) nrev += !(m && i < m->njoints && m->joint[i].type == MODEL_PRISMATIC);
            const char *title = nrev == di->naxes ? "torques" : nrev == 0 ? "forces" : "torques and forces";
            out[n++] = (Figure){d, CHK_TORQUE, TRACE_TAU, "torques", title, di->naxes, NULL, 0};
        }
        if (di->nout > 0)
            out[n++] = (Figure){d, CHK_OUTPUT, TRACE_OUT, "outputs", "model outputs", output_panels(ck, d), NULL, 0};
        for (int k = 0; k < di->nplots && k < PLOT_MAX_DECLARED; k++) {
            const ModelPlotGroup *g = &di->plots[k];
            if (declared_fits(ck, d, g))
                out[n++] = (Figure){d, CHK_OUTPUT, TRACE_OUT, g->file, g->title, g->npanels, g, 0};
        }
        if (di->ncl_groups >= 2)
            out[n++] = (Figure){d, CHK_POSITION, TRACE_CL, "tracking", "tracking errors", di->naxes, NULL, 1};
        if (di->ncl_groups >= 4) {
            out[n++] = (Figure){d, CHK_VOLTAGE, TRACE_CL, "motor_voltages", "motor voltages", di->naxes, NULL, 2};
            out[n++] = (Figure){d, CHK_VOLTAGE, TRACE_CL, "motor_currents", "motor currents", di->naxes, NULL, 3};
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
        if (fg->n > MAX_PANELS) cols = 1, rows_p = 1;
        int w = cols == 1 ? 1000 : 1300, h = fg->n > MAX_PANELS ? 600 : 70 + rows_p * 240;
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
            if (fg->decl) figure_declared(f, ck, o, fg, rows_p, cols);
            else if (fg->group == TRACE_CL) figure_closed_loop(f, ck, o, fg, rows_p, cols);
            else figure_body(f, ck, o, fg, rows_p, cols);
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

int plot_all(const Checks *ck, const PlotOptions *opt, char *err, size_t errlen)
{
    Figure fig[SAMPLE_MAX_DEVICES * PLOT_FIGURES_PER_DEVICE];
    int nfig = list_figures(ck, fig, SAMPLE_MAX_DEVICES * PLOT_FIGURES_PER_DEVICE);
    if (nfig == 0 || ck->ncycles == 0) return PLOT_OK;
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
