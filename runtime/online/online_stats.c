/* online_stats.c — cycle histograms, percentiles and their summaries (online_stats.h). */
#include "online/online_stats.h"

#include <string.h>

void online_stats_init(OnlineStats *s)
{
    memset(s, 0, sizeof *s);
    s->queue_min = -1;
    s->period.min = s->latency.min = s->work.min = INT64_MAX;
}

void online_hist_add(OnlineHist *h, int64_t ns)
{
    if (ns < 0) ns = 0;
    if (ns < h->min) h->min = ns;
    if (ns > h->max) h->max = ns;
    h->n++;
    h->sum += (double)ns;
    int64_t b = ns / ONLINE_HIST_RES;
    if (b < ONLINE_HIST_BINS) h->bin[b]++;
    else h->over++;
}

int64_t online_hist_quantile(const OnlineHist *h, double p)
{
    if (h->n == 0) return 0;
    uint64_t rank = (uint64_t)(p * (double)h->n + 0.5);
    if (rank < 1) rank = 1;
    if (rank > h->n) rank = h->n;
    uint64_t c = 0;
    for (int i = 0; i < ONLINE_HIST_BINS; i++) {
        c += h->bin[i];
        if (c >= rank) {
            int64_t x = (int64_t)i * ONLINE_HIST_RES + ONLINE_HIST_RES / 2;
            return x < h->min ? h->min : x > h->max ? h->max : x;
        }
    }
    return h->max;
}

/* "name": {"min": .., "p50": .., ...} in seconds. */
static void hist_json(FILE *f, const char *name, const OnlineHist *h, int last)
{
    static const double ps[] = {0.5, 0.9, 0.99, 0.999};
    static const char *const pn[] = {"p50", "p90", "p99", "p999"};
    fprintf(f, "  \"%s\": {\"samples\": %llu", name, (unsigned long long)h->n);
    if (h->n) {
        fprintf(f, ", \"min\": %.9g, \"mean\": %.9g", (double)h->min * 1e-9, h->sum / (double)h->n * 1e-9);
        for (int i = 0; i < 4; i++) fprintf(f, ", \"%s\": %.9g", pn[i], (double)online_hist_quantile(h, ps[i]) * 1e-9);
        fprintf(f, ", \"max\": %.9g", (double)h->max * 1e-9);
    }
    fprintf(f, "}%s\n", last ? "" : ",");
}

void online_stats_json(FILE *f, const OnlineStats *s, double dt)
{
    fprintf(f, "  \"cycle_s\": %.9g,\n", dt);
    fprintf(f, "  \"cycles\": %ld,\n  \"written\": %ld,\n  \"from_queue\": %ld,\n  \"approach_setpoints\": %ld,\n"
            "  \"prime\": %ld,\n", s->cycles, s->written, s->from_queue, s->approach, s->prime);
    fprintf(f, "  \"holds\": %ld,\n  \"stop_ramp\": %ld,\n  \"settle\": %ld,\n", s->holds, s->ramp, s->settle);
    fprintf(f, "  \"overruns\": %ld,\n  \"missed_deadlines\": %ld,\n  \"log_dropped\": %ld,\n  \"queue_min\": %ld,\n",
            s->overruns, s->missed, s->log_dropped, s->queue_min);
    hist_json(f, "period_s", &s->period, 0);
    hist_json(f, "latency_s", &s->latency, 0);
    hist_json(f, "work_s", &s->work, 1);
}

void online_stats_text(FILE *f, const OnlineStats *s, double dt)
{
    const OnlineHist *p = &s->period, *l = &s->latency;
    fprintf(f, "irl: online: %ld cycles of %.6g ms; period median %.3f ms, p99 %.3f ms, max %.3f ms; "
            "wake-up latency p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us\n",
            s->cycles, dt * 1e3, (double)online_hist_quantile(p, 0.5) * 1e-6, (double)online_hist_quantile(p, 0.99) * 1e-6,
            (double)p->max * 1e-6 * (p->n > 0), (double)online_hist_quantile(l, 0.5) * 1e-3,
            (double)online_hist_quantile(l, 0.99) * 1e-3, (double)online_hist_quantile(l, 0.999) * 1e-3,
            (double)l->max * 1e-3 * (l->n > 0));
    fprintf(f, "irl: online: %ld overruns, %ld missed deadlines, %ld holds (planner late), %ld stop-ramp cycles, "
            "queue low-water mark %ld\n", s->overruns, s->missed, s->holds, s->ramp, s->queue_min);
}
