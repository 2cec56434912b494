/* online_stats.h — the real-time cycle's statistics: fixed histograms (no allocation, one add per cycle) of the
 * period (wake-up to wake-up), the wake-up latency (how late the thread woke after its absolute deadline: the
 * jitter) and the work time (wake-up to the driver write returned), plus counters; percentiles and the JSON and
 * text summaries are computed after the run, in the normal thread. */
#ifndef IRL_ONLINE_STATS_H
#define IRL_ONLINE_STATS_H

#include <stdint.h>
#include <stdio.h>

#define ONLINE_HIST_RES 250      /* ns per bin */
#define ONLINE_HIST_BINS 40000   /* 0 .. 10 ms; beyond goes to `over` (max still exact) */

typedef struct {
    uint32_t bin[ONLINE_HIST_BINS];
    uint64_t n, over;
    int64_t min, max;            /* exact, ns */
    double sum;                  /* ns */
} OnlineHist;

typedef struct {
    OnlineHist period, latency, work;
    long cycles;         /* cycles run */
    long written;        /* setpoints written to the driver (every cycle writes one) */
    long from_queue;     /* of those, the program's setpoints taken from the planner thread's queue */
    long approach;       /* of those, the approach's to the start (from the queue too) */
    long prime;          /* cycles that held the start position while the queue filled */
    long holds;          /* cycles that held at rest because the queue was empty (the planner thread was late) */
    long ramp;           /* cycles of a stop ramp */
    long settle;         /* cycles after the end, waiting for the axes to reach their setpoint */
    long overruns;       /* cycles whose work ended after the next deadline */
    long missed;         /* deadlines skipped to get back onto the cycle grid after overruns */
    long log_dropped;    /* log rows lost because the log writer fell behind */
    long queue_min;      /* the fewest setpoints waiting at a cycle while the planner thread still produced (-1: none) */
} OnlineStats;

void online_stats_init(OnlineStats *s);
void online_hist_add(OnlineHist *h, int64_t ns);
/* The p-quantile (0..1) in ns: the centre of its bin, clamped to [min, max]; 0 when empty. */
int64_t online_hist_quantile(const OnlineHist *h, double p);
/* The statistics as the members of a JSON object (no braces), indented by two. */
void online_stats_json(FILE *f, const OnlineStats *s, double dt);
/* Two lines for stderr: period and jitter percentiles, overruns and counters. */
void online_stats_text(FILE *f, const OnlineStats *s, double dt);

#endif
