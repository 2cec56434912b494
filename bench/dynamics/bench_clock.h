/* bench_clock.h — the timer and the median sort the bench/dynamics programs share (header-only, static). */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

/* Wall clock; with IRL_BENCH_CPU set, this thread's CPU time instead (on a loaded machine the wall clock also
 * measures the time the scheduler gave to others). */
static double now_ns(void)
{
    static int cpu = -1;
    if (cpu < 0) cpu = getenv("IRL_BENCH_CPU") != NULL;
    struct timespec t;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* qsort comparator for doubles (ascending): the figures are medians of sorted rounds. */
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
