/* online_stats.c — cycle histograms, percentiles and their summaries (online_stats.h). */
#include "online/online_stats.h"

#include <string.h>

void online_hist_init(OnlineHist *h)
{
    memset(h, 0, sizeof *h);
    h->min = INT64_MAX;
}

void online_stats_init(OnlineStats *s)
{
    memset(s, 0, sizeof *s);
    s->queue_min = -1;
    online_hist_init(&s->period);
    online_hist_init(&s->latency);
    online_hist_init(&s->work);
}

/* The bin of ns >= 0: itself below ONLINE_HIST_SUB; else, with e = (its highest bit) - SUB_BITS, the bin of its top
 * SUB_BITS + 1 bits in the e-th group of ONLINE_HIST_SUB bins. */
static int hist_bin(uint64_t ns)
{
    if (ns < ONLINE_HIST_SUB) return (int)ns;
    int e = 63 - __builtin_clzll(ns) - ONLINE_HIST_SUB_BITS;
    return (e + 1) * ONLINE_HIST_SUB + (int)((ns >> e) - ONLINE_HIST_SUB);
}

/* The centre of bin b, ns. */
static int64_t bin_centre(int b)
{
    if (b < ONLINE_HIST_SUB) return b;
    int e = b / ONLINE_HIST_SUB - 1;
    uint64_t lo = (uint64_t)(ONLINE_HIST_SUB + b % ONLINE_HIST_SUB) << e;
    return (int64_t)(lo + (((uint64_t)1 << e) >> 1));
}

void online_hist_add(OnlineHist *h, int64_t ns)
{
    if (ns < 0) ns = 0;
    if (ns < h->min) h->min = ns;
    if (ns > h->max) h->max = ns;
    h->n++;
    h->sum += (double)ns;
    h->bin[hist_bin((uint64_t)ns)]++;
}

int64_t online_hist_quantile(const OnlineHist *h, double p)
{
    if (h->n == 0) return 0;
    uint64_t rank = (uint64_t)(p * (double)h->n + 0.5);
    if (rank < 1) rank = 1;
    if (rank >= h->n) return h->max; /* the largest sample: exact */
    uint64_t c = 0;
    for (int i = 0; i < ONLINE_HIST_BINS; i++) {
        c += h->bin[i];
        if (c >= rank) {
            int64_t x = bin_centre(i);
            return x < h->min ? h->min : x > h->max ? h->max : x;
        }
    }
    return h->max;
}

/* "name": {"samples": .., "min": .., "mean": .., "p50": .., ...} in microseconds. */
static void hist_json(FILE *f, const char *name, const OnlineHist *h, int last)
{
    static const double ps[] = {0.5, 0.9, 0.99, 0.999};
    static const char *const pn[] = {"p50", "p90", "p99", "p999"};
    fprintf(f, "  \"%s\": {\"samples\": %llu", name, (unsigned long long)h->n);
    if (h->n) {
        fprintf(f, ", \"min\": %.6g, \"mean\": %.6g", (double)h->min * 1e-3, h->sum / (double)h->n * 1e-3);
        for (int i = 0; i < 4; i++) fprintf(f, ", \"%s\": %.6g", pn[i], (double)online_hist_quantile(h, ps[i]) * 1e-3);
        fprintf(f, ", \"max\": %.6g", (double)h->max * 1e-3);
    }
    fprintf(f, "}%s\n", last ? "" : ",");
}

void online_stats_json(FILE *f, const OnlineStats *s, const OnlineHist *compute, const OnlineHist *compute_wall,
                       double dt)
{
    fprintf(f, "  \"cycle_s\": %.9g,\n", dt);
    fprintf(f, "  \"cycles\": %ld,\n  \"written\": %ld,\n  \"from_queue\": %ld,\n  \"approach_setpoints\": %ld,\n"
            "  \"prime\": %ld,\n", s->cycles, s->written, s->from_queue, s->approach, s->prime);
    fprintf(f, "  \"holds\": %ld,\n  \"stop_ramp\": %ld,\n  \"settle\": %ld,\n", s->holds, s->ramp, s->settle);
    fprintf(f, "  \"overruns\": %ld,\n  \"missed_deadlines\": %ld,\n  \"log_dropped\": %ld,\n  \"queue_min\": %ld,\n",
            s->overruns, s->missed, s->log_dropped, s->queue_min);
    hist_json(f, "period_us", &s->period, 0);
    hist_json(f, "wakeup_latency_us", &s->latency, 0);
    hist_json(f, "work_us", &s->work, 0);
    hist_json(f, "compute_us", compute, 0);
    hist_json(f, "compute_wall_us", compute_wall, 1);
}

void online_stats_text(FILE *f, const OnlineStats *s, const OnlineHist *compute, const OnlineHist *compute_wall,
                       double dt)
{
    const OnlineHist *p = &s->period, *l = &s->latency, *c = compute, *w = compute_wall;
    fprintf(f, "irl: online: %ld cycles of %.6g ms; period median %.3f ms, p99 %.3f ms, max %.3f ms; "
            "wake-up latency p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us\n",
            s->cycles, dt * 1e3, (double)online_hist_quantile(p, 0.5) * 1e-6, (double)online_hist_quantile(p, 0.99) * 1e-6,
            (double)p->max * 1e-6 * (p->n > 0), (double)online_hist_quantile(l, 0.5) * 1e-3,
            (double)online_hist_quantile(l, 0.99) * 1e-3, (double)online_hist_quantile(l, 0.999) * 1e-3,
            (double)l->max * 1e-3 * (l->n > 0));
    fprintf(f, "irl: online: compute per program cycle (planner thread's CPU time) p50 %.1f us, p99 %.1f us, "
            "p99.9 %.1f us, max %.1f us over %llu cycles; wall time p99 %.1f us, max %.1f us\n",
            (double)online_hist_quantile(c, 0.5) * 1e-3, (double)online_hist_quantile(c, 0.99) * 1e-3,
            (double)online_hist_quantile(c, 0.999) * 1e-3, (double)c->max * 1e-3 * (c->n > 0),
            (unsigned long long)c->n, (double)online_hist_quantile(w, 0.99) * 1e-3, (double)w->max * 1e-3 * (w->n > 0));
    fprintf(f, "irl: online: %ld overruns, %ld missed deadlines, %ld holds (planner late), %ld stop-ramp cycles, "
            "queue low-water mark %ld\n", s->overruns, s->missed, s->holds, s->ramp, s->queue_min);
}
