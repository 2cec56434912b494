/* test_cycle_pipe.c — the dry-run's two-stage pipeline (cycle_pipe.h): every committed record reaches the worker
 * once and in order, intact, through a ring of 32 slots with both sides fast and through one of two slots with
 * either side slow (so both the producer's and the worker's sleep and wake-up paths run), and the worker's first
 * error is kept. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "exec/cycle_pipe.h"
#include "utest.h"

typedef struct {
    long next;         /* the sequence number the worker expects */
    long bad;          /* records out of order or corrupted */
    long sum;
    long slow_every;   /* the worker sleeps on every slow_every-th record (0: never) */
    long fail_at;      /* the worker returns an error from this record on (0: never) */
} Worker;

typedef struct {
    long seq;
    long payload[64];  /* large enough that a torn record would show */
} Rec;

static void nap(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

static int consume(void *ctx, void *rec)
{
    Worker *w = ctx;
    const Rec *r = rec;
    if (r->seq != w->next) w->bad++;
    for (int i = 0; i < 64; i++)
        if (r->payload[i] != r->seq * 64 + i) w->bad++;
    w->next = r->seq + 1;
    w->sum += r->seq;
    if (w->slow_every && r->seq % w->slow_every == 0) nap(200000);
    return w->fail_at && r->seq >= w->fail_at ? 5 + (int)(r->seq - w->fail_at) : 0;
}

/* Produce n records through a ring of cap slots; the producer naps every slow_every-th record. */
static void run(Worker *w, long n, size_t cap, long producer_slow_every, int *err)
{
    CyclePipe p;
    CHECK(cycle_pipe_init(&p, cap, sizeof(Rec)) == 0);
    CHECK(cycle_pipe_start(&p, consume, w) == 0);
    for (long k = 0; k < n; k++) {
        Rec *r = cycle_pipe_claim(&p);
        r->seq = k;
        for (int i = 0; i < 64; i++) r->payload[i] = k * 64 + i;
        cycle_pipe_commit(&p);
        if (producer_slow_every && k % producer_slow_every == 0) nap(200000);
    }
    cycle_pipe_finish(&p);
    *err = cycle_pipe_error(&p);
    cycle_pipe_free(&p);
}

UTEST(cycle_pipe_order_fast_both_sides)
{
    Worker w = {0};
    int err;
    run(&w, 200000, 32, 0, &err);
    CHECK(w.bad == 0 && w.next == 200000 && err == 0);
    CHECK(w.sum == 200000L * 199999 / 2);
}

UTEST(cycle_pipe_slow_worker_fills_the_ring)
{
    Worker w = {.slow_every = 50};
    int err;
    run(&w, 2000, 2, 0, &err);   /* the producer waits for space over and over */
    CHECK(w.bad == 0 && w.next == 2000 && err == 0);
}

UTEST(cycle_pipe_slow_producer_empties_the_ring)
{
    Worker w = {0};
    int err;
    run(&w, 2000, 2, 50, &err);  /* the worker sleeps on an empty ring and must be woken every time */
    CHECK(w.bad == 0 && w.next == 2000 && err == 0);
}

UTEST(cycle_pipe_keeps_the_first_error_and_consumes_the_rest)
{
    Worker w = {.fail_at = 1000};
    int err;
    run(&w, 3000, 8, 0, &err);
    CHECK(err == 5);             /* the first error, not a later one */
    CHECK(w.bad == 0 && w.next == 3000);
}

UTEST(cycle_pipe_finish_without_records)
{
    Worker w = {0};
    int err;
    run(&w, 0, 4, 0, &err);
    CHECK(w.next == 0 && err == 0);
}

int main(void)
{
    RUN(cycle_pipe_order_fast_both_sides);
    RUN(cycle_pipe_slow_worker_fills_the_ring);
    RUN(cycle_pipe_slow_producer_empties_the_ring);
    RUN(cycle_pipe_keeps_the_first_error_and_consumes_the_rest);
    RUN(cycle_pipe_finish_without_records);
    return utest_done();
}
