/* report_html.c — report.html: the run's series reduced in fixed memory while it goes (min/max buckets, tool
 * path, q for the links, statement timeline), then written as one page with the libraries, the page's glue,
 * report.json's facts, the program text, the series and the links' FK inlined (report_html.h). */
#include "output/report_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* build/gen/report_html_assets.c (Makefile): the page template, its glue and the libraries, as bytes. */
#define ASSET(n) extern const unsigned char irl_asset_##n[]; extern const size_t irl_asset_##n##_len;
ASSET(report_html) ASSET(report_css) ASSET(report_js) ASSET(uPlot_min_css) ASSET(uPlot_iife_min_js)
ASSET(three_min_js) ASSET(OrbitControls_js)
#undef ASSET

typedef struct {
    int dev, axis;        /* axis 1-based; 0 for a channel that is not an axis */
    const char *quantity; /* as report.json names it: "position", "speed", ..., "output" (the name says which) */
    char name[MODEL_NAME_LEN + 8];
    const char *unit;
} Chan;

typedef struct {
    double t;
    int line;
    const char *file;
} Segment;

/* A set of REPORT_HTML_BUCKETS buckets (the fields of ReportHtml below). */
typedef struct {
    long *t0, *t1;
    double *mn, *mx;
    unsigned char *mfirst;
    double *path, *qs;
} Buckets;

#define HALVE_STEP 2 /* pairs halved per cycle: a full set is halved in B/4 cycles, the next fills in B at least */

struct ReportHtml {
    const SampleLayout *lay;
    int nch;
    Chan *ch;
    long width;           /* cycles per bucket */
    int nb;               /* complete buckets */
    long cnt;             /* cycles in the bucket being filled (index nb) */
    long *t0, *t1;        /* first and last cycle of each bucket */
    double *mn, *mx;      /* [bucket * nch + channel]; +inf / -inf while the bucket saw no number */
    unsigned char *mfirst; /* 1: the minimum came before the maximum */
    double *path;         /* [bucket][dev][3]: the pose's position at the bucket's start */
    double *vals;         /* this cycle's values, [nch] */
    double *qs;           /* [bucket][nq]: every device's q at the bucket's start (for the links' FK) */
    Buckets full;         /* the set that filled up, halved into the one above HALVE_STEP pairs a cycle */
    int halved;           /* its pairs halved so far (REPORT_HTML_BUCKETS / 2: none pending) */
    int nq, qoff[SAMPLE_MAX_DEVICES];
    Segment seg[REPORT_HTML_SEGMENTS];
    int nseg;
    long seg_dropped;
    int last_line;
    const char *last_file;
    long cycles;
};

static const char *axis_unit(const SampleDeviceInfo *di, int i, const char *rev, const char *pri)
{
    return di->desc && i < di->desc->njoints && di->desc->joint[i].type == MODEL_PRISMATIC ? pri : rev;
}

/* The channels of a layout in a fixed order (the order collect() reads them). Returns the count; ch may be NULL. */
static int channels(const SampleLayout *lay, Chan *ch)
{
    static const char *qty[4] = {"position", "speed", "acceleration", "torque"};
    static const char *sym[4] = {"q", "qd", "qdd", "tau"};
    static const char *rev[4] = {"rad", "rad/s", "rad/s^2", "Nm"}, *pri[4] = {"m", "m/s", "m/s^2", "N"};
    static const char *pose[3] = {"x", "y", "z"};
    int k = 0;
    for (int d = 0; d < lay->ndev; d++) {
        const SampleDeviceInfo *di = &lay->dev[d];
        for (int g = 0; g < 4; g++)
            for (int i = 0; i < di->naxes; i++, k++)
                if (ch) {
                    ch[k] = (Chan){.dev = d, .axis = i + 1, .quantity = qty[g], .unit = axis_unit(di, i, rev[g], pri[g])};
                    if (di->axis_name[i][0]) snprintf(ch[k].name, sizeof ch[k].name, "%s", di->axis_name[i]);
                    else snprintf(ch[k].name, sizeof ch[k].name, "%s%d", sym[g], i + 1);
                }
        for (int i = 0; di->has_pose && i < 3; i++, k++)
            if (ch) ch[k] = (Chan){.dev = d, .quantity = "tool position", .unit = "m"},
                    snprintf(ch[k].name, sizeof ch[k].name, "%s", pose[i]);
        for (int i = 0; i < di->nout; i++, k++)
            if (ch) ch[k] = (Chan){.dev = d, .quantity = "output", .unit = di->out_unit[i]},
                    snprintf(ch[k].name, sizeof ch[k].name, "%s", di->out_name[i]);
        for (int g = 0; g < di->ncl_groups; g++)
            for (int i = 0; i < di->naxes; i++, k++)
                if (ch) {
                    const char *u = !strcmp(di->cl_group[g], "u") ? "V" : !strcmp(di->cl_group[g], "i") ? "A"
                                                                                                        : axis_unit(di, i, "rad", "m");
                    ch[k] = (Chan){.dev = d, .axis = i + 1, .quantity = di->cl_group[g], .unit = u};
                    if (di->axis_name[i][0]) snprintf(ch[k].name, sizeof ch[k].name, "%s", di->axis_name[i]);
                    else snprintf(ch[k].name, sizeof ch[k].name, "%s%d", di->cl_group[g], i + 1);
                }
    }
    return k;
}

/* This cycle's values in channel order. */
static void collect(const ReportHtml *h, const Sample *s, double *v)
{
    int k = 0;
    for (int d = 0; d < h->lay->ndev; d++) {
        const SampleDeviceInfo *di = &h->lay->dev[d];
        const SampleDevice *sd = &s->dev[d];
        int n = di->naxes;
        for (int i = 0; i < n; i++) v[k++] = sd->q[i];
        for (int i = 0; i < n; i++) v[k++] = sd->qd[i];
        for (int i = 0; i < n; i++) v[k++] = sd->qdd[i];
        for (int i = 0; i < n; i++) v[k++] = sd->tau_ok ? sd->tau[i] : NAN;
        for (int i = 0; di->has_pose && i < 3; i++) v[k++] = sd->pose[i];
        for (int i = 0; i < di->nout; i++) v[k++] = sd->out[i];
        for (int i = 0; i < di->ncl_groups * n; i++) v[k++] = sd->cl[i];
    }
}

/* Allocate a set of buckets for nc channels, np path and nq q values a bucket. 0, or -1 (then b may be half set). */
static int buckets_alloc(Buckets *b, size_t nc, size_t np, size_t nq)
{
    size_t nb = REPORT_HTML_BUCKETS;
    b->t0 = malloc(nb * sizeof(long)), b->t1 = malloc(nb * sizeof(long));
    b->mn = malloc(nb * nc * sizeof(double)), b->mx = malloc(nb * nc * sizeof(double));
    b->mfirst = malloc(nb * nc);
    b->path = malloc(nb * np * sizeof(double) + 1);
    b->qs = malloc(nb * nq * sizeof(double) + 1);
    return b->t0 && b->t1 && b->mn && b->mx && b->mfirst && b->path && b->qs ? 0 : -1;
}

static void buckets_free(Buckets *b)
{
    free(b->t0), free(b->t1), free(b->mn), free(b->mx), free(b->mfirst), free(b->path), free(b->qs);
}

/* The set in the fields of h (the one being filled) as a Buckets, and back. */
static Buckets current(const ReportHtml *h)
{
    return (Buckets){h->t0, h->t1, h->mn, h->mx, h->mfirst, h->path, h->qs};
}

static void set_current(ReportHtml *h, Buckets b)
{
    h->t0 = b.t0, h->t1 = b.t1, h->mn = b.mn, h->mx = b.mx, h->mfirst = b.mfirst, h->path = b.path, h->qs = b.qs;
}

ReportHtml *report_html_create(const SampleLayout *lay)
{
    ReportHtml *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->lay = lay;
    h->nch = channels(lay, NULL);
    size_t nc = (size_t)(h->nch ? h->nch : 1);
    h->ch = calloc(nc, sizeof *h->ch);
    h->vals = malloc(nc * sizeof(double));
    for (int d = 0; d < lay->ndev; d++) h->qoff[d] = h->nq, h->nq += lay->dev[d].naxes;
    Buckets b = {0};
    int bad = buckets_alloc(&b, nc, (size_t)lay->ndev * 3, (size_t)h->nq) < 0;
    set_current(h, b);
    bad |= buckets_alloc(&h->full, nc, (size_t)lay->ndev * 3, (size_t)h->nq) < 0;
    if (bad || !h->ch || !h->vals) {
        buckets_free(&b), buckets_free(&h->full);
        free(h->ch), free(h->vals), free(h);
        return NULL;
    }
    channels(lay, h->ch);
    h->width = 1;
    h->halved = REPORT_HTML_BUCKETS / 2;
    h->last_line = -1;
    return h;
}

static void destroy(ReportHtml *h)
{
    if (!h) return;
    Buckets b = current(h);
    buckets_free(&b), buckets_free(&h->full);
    free(h->ch), free(h->vals), free(h);
}

/* Bucket i of the set being filled: the full set's buckets 2i (earlier) and 2i + 1 merged, channel by channel
 * (the path and q keep the earlier start). */
static void halve_pair(ReportHtml *h, int i)
{
    const Buckets *f = &h->full;
    size_t nc = (size_t)h->nch, np = (size_t)h->lay->ndev * 3, nq = (size_t)h->nq, a = 2 * (size_t)i, b = a + 1;
    h->t0[i] = f->t0[a], h->t1[i] = f->t1[b];
    for (size_t c = 0; c < nc; c++) {
        size_t ia = a * nc + c, ib = b * nc + c, io = (size_t)i * nc + c;
        int min_b = f->mn[ib] < f->mn[ia], max_b = f->mx[ib] > f->mx[ia];
        h->mfirst[io] = min_b == max_b ? f->mfirst[min_b ? ib : ia] : (unsigned char)!min_b;
        h->mn[io] = f->mn[min_b ? ib : ia];
        h->mx[io] = f->mx[max_b ? ib : ia];
    }
    memcpy(h->path + (size_t)i * np, f->path + a * np, np * sizeof(double));
    memcpy(h->qs + (size_t)i * nq, f->qs + a * nq, nq * sizeof(double));
}

/* Halve up to n more pairs of the full set. */
static void halve_some(ReportHtml *h, int n)
{
    for (; n > 0 && h->halved < REPORT_HTML_BUCKETS / 2; n--) halve_pair(h, h->halved++);
}

/* The buckets are full: they become the full set, halved pair by pair into the other set's first half over the
 * next cycles (all at once would cost a cycle ~150 us), while new buckets of twice the width fill its second
 * half. */
static void halve_begin(ReportHtml *h)
{
    halve_some(h, REPORT_HTML_BUCKETS); /* the one before is done by now (HALVE_STEP) */
    Buckets b = current(h);
    set_current(h, h->full);
    h->full = b;
    h->halved = 0;
    h->nb = REPORT_HTML_BUCKETS / 2;
    h->width *= 2;
}

static void timeline(ReportHtml *h, const Sample *s)
{
    SampleSrc src = sample_statement(s);
    if (src.line == h->last_line && src.file == h->last_file) return;
    h->last_line = src.line, h->last_file = src.file;
    if (h->nseg == REPORT_HTML_SEGMENTS) {
        h->seg_dropped++;
        return;
    }
    h->seg[h->nseg++] = (Segment){.t = s->t, .line = src.line, .file = src.file};
}

void report_html_sample(ReportHtml *h, const Sample *s)
{
    halve_some(h, HALVE_STEP);
    size_t nc = (size_t)h->nch, b = (size_t)h->nb;
    double *v = h->vals, *mn = h->mn + b * nc, *mx = h->mx + b * nc;
    unsigned char *mf = h->mfirst + b * nc;
    const SampleLayout *lay = h->lay;
    collect(h, s, v);
    if (h->cnt == 0) {
        h->t0[b] = s->cycle;
        for (size_t c = 0; c < nc; c++) mn[c] = INFINITY, mx[c] = -INFINITY, mf[c] = 1;
        for (int d = 0; d < lay->ndev; d++) {
            memcpy(h->path + (b * (size_t)lay->ndev + (size_t)d) * 3, s->dev[d].pose, 3 * sizeof(double));
            memcpy(h->qs + b * (size_t)h->nq + (size_t)h->qoff[d], s->dev[d].q, (size_t)lay->dev[d].naxes * sizeof(double));
        }
    }
    for (size_t c = 0; c < nc; c++) { /* a NaN compares false: skipped */
        if (v[c] < mn[c]) mn[c] = v[c], mf[c] = 0;
        if (v[c] > mx[c]) mx[c] = v[c], mf[c] = 1;
    }
    h->t1[b] = s->cycle;
    h->cycles++;
    timeline(h, s);
    if (++h->cnt < h->width) return;
    h->cnt = 0;
    if (++h->nb == REPORT_HTML_BUCKETS) halve_begin(h);
}

/* Writing the page. */

static void num(FILE *f, double x, int digits)
{
    if (isfinite(x)) fprintf(f, "%.*g", digits, x);
    else fputs("null", f);
}

/* The series are ~10^5 numbers: written as integers through a buffer, without printf. */
typedef struct {
    FILE *f;
    size_t n;
    char b[1 << 14];
} Buf;

static void buf_flush(Buf *o)
{
    fwrite(o->b, 1, o->n, o->f);
    o->n = 0;
}

/* ',' before every item but the first (first: 1 for the first). */
static void buf_sep(Buf *o, int first)
{
    if (o->n > sizeof o->b - 32) buf_flush(o);
    if (!first) o->b[o->n++] = ',';
}

static void buf_uint(Buf *o, unsigned long u)
{
    char d[24];
    int n = 24;
    do d[--n] = (char)('0' + u % 10); while ((u /= 10) != 0);
    memcpy(o->b + o->n, d + n, (size_t)(24 - n));
    o->n += (size_t)(24 - n);
}

/* A value as its level k in its channel's range (the page computes lo + k * step), or null. inv = 1 / step. */
static void buf_level(Buf *o, int first, double x, double lo, double inv)
{
    buf_sep(o, first);
    if (!isfinite(x)) memcpy(o->b + o->n, "null", 4), o->n += 4;
    else buf_uint(o, (unsigned long)((x - lo) * inv + 0.5));
}

/* Everything in the page's data is JSON inside <script>: a '<' (only ever in strings) is written as \u003c so no
 * "</script>" or "<!--" can end or bend the element. */
static void put_json_safe(FILE *f, const char *s, size_t n)
{
    for (const char *end = s + n, *lt; s < end; s = lt + 1) {
        lt = memchr(s, '<', (size_t)(end - s));
        fwrite(s, 1, (size_t)((lt ? lt : end) - s), f);
        if (!lt) break;
        fputs("\\u003c", f);
    }
}

static void json_string(FILE *f, const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return;
    report_json_string(m, s);
    fclose(m);
    put_json_safe(f, buf, len);
    free(buf);
}

/* The program's text, at most 4 MB; NULL when it cannot be read. */
static char *read_text(const char *path)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) return NULL;
    size_t cap = 4u << 20;
    char *buf = malloc(cap + 1);
    size_t n = buf ? fread(buf, 1, cap, f) : 0;
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

static int buckets_total(const ReportHtml *h)
{
    return h ? h->nb + (h->cnt > 0) : 0;
}

/* The range of channel c over the buckets (lo > hi: no number). */
static void range(const ReportHtml *h, int c, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (int b = 0; b < buckets_total(h); b++) {
        size_t i = (size_t)b * (size_t)h->nch + (size_t)c;
        *lo = fmin(*lo, h->mn[i]), *hi = fmax(*hi, h->mx[i]);
    }
}

static void links(FILE *f, const ReportHtml *h, Model *const *models, Buf *o);

/* "series": times as cycle numbers (t = k * cycle); each channel's values as levels of its own range. */
static void series(FILE *f, const ReportHtml *h, double cycle, Model *const *models)
{
    int nb = buckets_total(h), two = h && h->width > 1;
    Buf *o = malloc(sizeof *o);
    if (!o) nb = 0;
    else o->f = f, o->n = 0;
    fprintf(f, "{\"bucket_cycles\": %ld, \"cycles\": %ld, \"cycle\": %.17g, \"levels\": %d, \"k\": [",
            h ? h->width : 1, h ? h->cycles : 0, cycle, REPORT_HTML_LEVELS);
    for (int b = 0; b < nb; b++) {
        buf_sep(o, b == 0), buf_uint(o, (unsigned long)h->t0[b]);
        if (two) buf_sep(o, 0), buf_uint(o, (unsigned long)h->t1[b]);
    }
    if (o) buf_flush(o);
    fputs("],\n\"channels\": [", f);
    for (int c = 0; h && c < h->nch; c++) {
        const Chan *ch = &h->ch[c];
        fprintf(f, "%s\n{\"device\": ", c ? "," : "");
        json_string(f, h->lay->dev[ch->dev].name);
        fputs(", \"quantity\": ", f), json_string(f, ch->quantity);
        fprintf(f, ", \"axis\": %d, \"name\": ", ch->axis), json_string(f, ch->name);
        fputs(", \"unit\": ", f), json_string(f, ch->unit);
        double lo, hi;
        range(h, c, &lo, &hi);
        double step = hi > lo ? (hi - lo) / REPORT_HTML_LEVELS : 0;
        fputs(", \"lo\": ", f), num(f, lo, 17), fputs(", \"step\": ", f), num(f, hi >= lo ? step : 0, 17);
        fputs(", \"v\": [", f);
        double inv = step > 0 ? 1 / step : 0;
        for (int b = 0; b < nb; b++) {
            size_t i = (size_t)b * (size_t)h->nch + (size_t)c;
            double first = h->mfirst[i] ? h->mn[i] : h->mx[i], second = h->mfirst[i] ? h->mx[i] : h->mn[i];
            buf_level(o, b == 0, first, lo, inv);
            if (two) buf_level(o, 0, second, lo, inv);
        }
        if (o) buf_flush(o);
        fputs("]}", f);
    }
    fputs("],\n\"paths\": [", f);
    int np = 0;
    for (int d = 0; h && d < h->lay->ndev; d++) {
        if (!h->lay->dev[d].has_pose) continue;
        fprintf(f, "%s\n{\"device\": ", np++ ? "," : ""), json_string(f, h->lay->dev[d].name);
        double lo[3] = {INFINITY, INFINITY, INFINITY}, span = 0;
        for (int k = 0; k < 3; k++) {
            double hi = -INFINITY;
            for (int b = 0; b < nb; b++) {
                double x = h->path[((size_t)b * (size_t)h->lay->ndev + (size_t)d) * 3 + (size_t)k];
                lo[k] = fmin(lo[k], x), hi = fmax(hi, x);
            }
            span = fmax(span, hi - lo[k]);
        }
        double step = span > 0 ? span / REPORT_HTML_LEVELS : 0;
        fputs(", \"lo\": [", f), num(f, lo[0], 17), fputc(',', f), num(f, lo[1], 17), fputc(',', f), num(f, lo[2], 17);
        fputs("], \"step\": ", f), num(f, step, 17), fputs(", \"xyz\": [", f);
        for (int b = 0; b < nb; b++)
            for (int k = 0; k < 3; k++)
                buf_level(o, b == 0 && k == 0, h->path[((size_t)b * (size_t)h->lay->ndev + (size_t)d) * 3 + (size_t)k],
                          lo[k], step > 0 ? 1 / step : 0);
        if (o) buf_flush(o);
        fputs("]}", f);
    }
    fputs("],\n\"timeline\": {\"segments\": [", f);
    for (int i = 0; h && i < h->nseg; i++) {
        fprintf(f, "%s[", i ? "," : ""), num(f, h->seg[i].t, 10);
        fprintf(f, ",%d,", h->seg[i].line), json_string(f, h->seg[i].file), fputc(']', f);
    }
    fprintf(f, "], \"not_listed\": %ld},\n\"links\": [", h ? h->seg_dropped : 0);
    links(f, h, models, o);
    fputs("]}", f);
    free(o);
}

/* "links": per device with a model, at most REPORT_HTML_POSES poses (every stride-th bucket's start): the base
 * origin, every link's frame origin and the tool point from the model's own FK, joined in that order. A device
 * whose model has no FK for a link is left out. */
static void links(FILE *f, const ReportHtml *h, Model *const *models, Buf *o)
{
    int nb = buckets_total(h), stride = (nb + REPORT_HTML_POSES - 1) / REPORT_HTML_POSES, np = 0;
    if (stride < 1) stride = 1;
    for (int d = 0; h && models && o && d < h->lay->ndev; d++) {
        int n = h->lay->dev[d].naxes, nf = n + 2, npose = (nb + stride - 1) / stride;
        double *xyz = models[d] ? malloc((size_t)npose * (size_t)nf * 3 * sizeof(double) + 1) : NULL, R[9];
        int ok = xyz != NULL;
        for (int p = 0; ok && p < npose; p++) {
            const double *q = h->qs + (size_t)p * (size_t)stride * (size_t)h->nq + (size_t)h->qoff[d];
            double *x = xyz + (size_t)p * (size_t)nf * 3;
            x[0] = x[1] = x[2] = 0;
            for (int l = 0; ok && l <= n; l++)
                ok = model_fk(models[d], q, l < n ? l : -1, x + 3 * (l + 1), R) == MODEL_OK;
        }
        if (ok) {
            double lo[3], span = 0;
            for (int k = 0; k < 3; k++) {
                double hi = -INFINITY;
                lo[k] = INFINITY;
                for (size_t i = (size_t)k; i < (size_t)npose * (size_t)nf * 3; i += 3)
                    lo[k] = fmin(lo[k], xyz[i]), hi = fmax(hi, xyz[i]);
                span = fmax(span, hi - lo[k]);
            }
            double step = span > 0 ? span / REPORT_HTML_LEVELS : 0;
            fprintf(f, "%s\n{\"device\": ", np++ ? "," : ""), json_string(f, h->lay->dev[d].name);
            fprintf(f, ", \"frames\": %d, \"k\": [", nf);
            for (int p = 0; p < npose; p++) buf_sep(o, p == 0), buf_uint(o, (unsigned long)h->t0[p * stride]);
            buf_flush(o);
            fputs("], \"lo\": [", f), num(f, lo[0], 17), fputc(',', f), num(f, lo[1], 17), fputc(',', f);
            num(f, lo[2], 17), fputs("], \"step\": ", f), num(f, step, 17), fputs(", \"xyz\": [", f);
            for (size_t i = 0; i < (size_t)npose * (size_t)nf * 3; i++)
                buf_level(o, i == 0, xyz[i], lo[i % 3], step > 0 ? 1 / step : 0);
            buf_flush(o);
            fputs("]}", f);
        }
        free(xyz);
    }
}

/* The page's data: {"report": report.json, "source": {...}, "display": "deg"|"si", "series": {...}}. */
static void data(FILE *f, const ReportHtml *h, const Checks *ck, const ReportInfo *info, Model *const *models)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m) report_json(m, ck, info), fclose(m);
    fputs("{\"report\": ", f);
    if (buf && len) put_json_safe(f, buf, len);
    else fputs("null", f);
    free(buf);
    char *text = read_text(info->program);
    fputs(",\n\"source\": {\"file\": ", f), json_string(f, info->program);
    fputs(", \"text\": ", f), json_string(f, text);
    free(text);
    fprintf(f, "},\n\"display\": \"%s\",\n\"series\": ", info->degrees ? "deg" : "si");
    series(f, h, info->cycle, models);
    fputs("}\n", f);
}

static void put(FILE *f, const unsigned char *p, size_t n)
{
    fwrite(p, 1, n, f);
}

/* The template with its three markers filled: <!--IRL:CSS-->, <!--IRL:JS-->, <!--IRL:DATA-->. */
static void page(FILE *f, const ReportHtml *h, const Checks *ck, const ReportInfo *info, Model *const *models)
{
    const char *tpl = (const char *)irl_asset_report_html, *end = tpl + irl_asset_report_html_len, *p = tpl;
    while (p < end) {
        const char *mk = memmem(p, (size_t)(end - p), "<!--IRL:", 8);
        if (!mk) mk = end;
        fwrite(p, 1, (size_t)(mk - p), f);
        if (mk == end) break;
        if (!strncmp(mk, "<!--IRL:CSS-->", 14)) {
            fputs("<style>\n", f), put(f, irl_asset_uPlot_min_css, irl_asset_uPlot_min_css_len);
            put(f, irl_asset_report_css, irl_asset_report_css_len), fputs("</style>", f);
        } else if (!strncmp(mk, "<!--IRL:JS-->", 13)) {
            fputs("<script>\n", f), put(f, irl_asset_uPlot_iife_min_js, irl_asset_uPlot_iife_min_js_len);
            fputs("\n</script>\n<script>\n", f), put(f, irl_asset_three_min_js, irl_asset_three_min_js_len);
            fputs("\n</script>\n<script>\n", f), put(f, irl_asset_OrbitControls_js, irl_asset_OrbitControls_js_len);
            fputs("\n</script>\n<script>\n", f), put(f, irl_asset_report_js, irl_asset_report_js_len);
            fputs("\n</script>", f);
        } else if (!strncmp(mk, "<!--IRL:DATA-->", 15)) {
            fputs("<script type=\"application/json\" id=\"irl-data\">\n", f), data(f, h, ck, info, models);
            fputs("</script>", f);
        }
        const char *close = strstr(mk, "-->");
        p = close ? close + 3 : end;
    }
}

int report_html_save(ReportHtml **hp, OutDir *od, const Checks *ck, const ReportInfo *info, Model *const *models,
                     char *err, size_t errlen)
{
    char path[4300];
    int rc = -1;
    if (outdir_file(od, "report.html", 1, path, sizeof path, err, errlen) == 0) {
        FILE *f = fopen(path, "w");
        if (!f) {
            snprintf(err, errlen, "cannot write %s", path);
        } else {
            halve_some(*hp, REPORT_HTML_BUCKETS);
            page(f, *hp, ck, info, models);
            if (fclose(f) != 0) snprintf(err, errlen, "cannot write %s", path);
            else rc = outdir_commit(od, "report.html", err, errlen);
        }
    }
    destroy(*hp);
    *hp = NULL;
    return rc;
}

void report_html_free(ReportHtml **hp)
{
    destroy(*hp);
    *hp = NULL;
}
