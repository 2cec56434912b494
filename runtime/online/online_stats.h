/* online_stats.h — the online run's timing statistics: fixed histograms (no allocation, no sorting, one add per
 * sample) of the real-time cycle's period (wake-up to wake-up), its wake-up latency (how late the thread woke
 * after its absolute deadline: the jitter) and its work (wake-up to the driver write returned), and of the
 * planner thread's compute time per program cycle (exec_online.c: planner, IK, dynamics, checks, trace of one
 * cycle) as its CPU time and as wall time, plus counters; percentiles and the JSON and text summaries are computed
 * after the run, in the normal thread.
 *
 * The histogram's bins are log-linear: 1 ns wide below 128 ns, then 128 bins per power of two, so a bin is at most
 * 1/128 of its value wide (a percentile, the centre of its bin, is within 0.4 % of the true one) from nanoseconds to
 * any int64 (7,424 bins, 29 KB); min and max are exact. */
#ifndef IRL_ONLINE_STATS_H
#define IRL_ONLINE_STATS_H

#include <stdint.h>
#include <stdio.h>

#define ONLINE_HIST_SUB_BITS 7                               /* 2^7 = 128 bins per power of two */
#define ONLINE_HIST_SUB (1 << ONLINE_HIST_SUB_BITS)
#define ONLINE_HIST_BINS ((64 - ONLINE_HIST_SUB_BITS + 1) * ONLINE_HIST_SUB)

typedef struct {
    uint32_t bin[ONLINE_HIST_BINS];
    uint64_t n;
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
void online_hist_init(OnlineHist *h);
void online_hist_add(OnlineHist *h, int64_t ns);
/* The p-quantile (0..1) in ns: the centre of its bin, clamped to [min, max] (the largest sample: max exactly); 0
 * when empty. */
int64_t online_hist_quantile(const OnlineHist *h, double p);
/* The statistics as the members of a JSON object (no braces), indented by two; compute and compute_wall are the
 * planner thread's histograms of CPU and wall time per program cycle ("compute_us", "compute_wall_us"). */
void online_stats_json(FILE *f, const OnlineStats *s, const OnlineHist *compute, const OnlineHist *compute_wall,
                       double dt);
/* Three lines for stderr: period and wake-up latency percentiles, compute time, overruns and counters. */
void online_stats_text(FILE *f, const OnlineStats *s, const OnlineHist *compute, const OnlineHist *compute_wall,
                       double dt);

#endif
