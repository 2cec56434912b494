/* cycle_pipe.c — the two-stage cycle pipeline (cycle_pipe.h): a worker thread and the waits around the SPSC ring. */
#include "exec/cycle_pipe.h"

#include <stdlib.h>

/* Spins before sleeping: a stage's cycle takes about a microsecond, so the other side is usually ready within
 * a few; this bounds the spin to some tens of microseconds when it is not (descheduled). */
#define PIPE_SPINS 1000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Most records a sleeping side waits for before it is woken (cycle_pipe_init). */
#define PIPE_WAKE_BATCH 256

/* Records published at a time (and handed back at a time): fewer index stores, fences and cache-line transfers. */
#define PIPE_PUBLISH 8

/* Records to consume (spinning: any; asleep: a batch), or the end. Both sides evaluate these, so they read only
 * the published indices (each side publishes its own before it waits). */
static int items_ready(CyclePipe *p, size_t want)
{
    return spsc_count(&p->ring) >= want || atomic_load(&p->closing);
}

/* Free slots to fill. */
static int space_ready(CyclePipe *p, size_t want)
{
    return p->ring.cap - spsc_count(&p->ring) >= want;
}

/* Wait until ready(p, 1), spinning; then asleep until ready(p, batch). The sleeper announces itself (waiting = 1)
 * and then checks again, and the other side publishes and then looks for the announcement (and checks the same
 * condition), each with a full fence in between: one of them sees the other, so a wake-up is never lost; the
 * futex word's value read before the announcement makes a wake that comes between the check and the sleep return
 * the sleep at once. */
static void wait_for(CyclePipe *p, _Atomic uint32_t *ev, _Atomic int *waiting, int (*ready)(CyclePipe *, size_t),
                     _Atomic int *my_cpu, _Atomic int *other_cpu)
{
    /* spin only while the other side runs on another CPU: sharing ours, it cannot make progress while we spin */
    int cpu = osal_cpu();
    atomic_store_explicit(my_cpu, cpu, memory_order_relaxed);
    for (int i = 0; i < PIPE_SPINS && atomic_load_explicit(other_cpu, memory_order_relaxed) != cpu; i++) {
        if (ready(p, 1)) return;
        cpu_relax();
    }
    for (;;) {
        uint32_t key = atomic_load(ev);
        atomic_store(waiting, 1);
        atomic_thread_fence(memory_order_seq_cst);
        if (ready(p, p->batch)) break;
        osal_futex_wait(ev, key);
    }
    atomic_store(waiting, 0);
}

/* After publishing: wake the other side if it announced a sleep and what it waits for is there (one wake per
 * announcement). */
static void wake_other(CyclePipe *p, _Atomic uint32_t *ev, _Atomic int *waiting, int (*ready)(CyclePipe *, size_t))
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(waiting, memory_order_relaxed) && ready(p, p->batch) && atomic_exchange(waiting, 0)) {
        atomic_fetch_add(ev, 1);
        osal_futex_wake(ev);
    }
}

/* The producer: publish the records filled so far. */
static void publish(CyclePipe *p)
{
    if (!spsc_publish(&p->ring)) return;
    atomic_store_explicit(&p->cpu_producer, osal_cpu(), memory_order_relaxed);
    wake_other(p, &p->ev_items, &p->wait_items, items_ready);
}

/* The consumer: hand back the slots consumed so far. */
static void release(CyclePipe *p)
{
    if (!spsc_release(&p->ring)) return;
    atomic_store_explicit(&p->cpu_consumer, osal_cpu(), memory_order_relaxed);
    wake_other(p, &p->ev_space, &p->wait_space, space_ready);
}

static void *worker(void *arg)
{
    CyclePipe *p = arg;
    for (;;) {
        void *rec = spsc_front(&p->ring);
        if (!rec) {
            release(p); /* caught up: the producer may be waiting for these slots */
            if (atomic_load(&p->closing) && !spsc_front(&p->ring)) break;
            wait_for(p, &p->ev_items, &p->wait_items, items_ready, &p->cpu_consumer, &p->cpu_producer);
            continue;
        }
        int e = p->consume(p->ctx, rec);
        int none = 0;
        if (e) atomic_compare_exchange_strong(&p->err, &none, e);
        if (spsc_consume(&p->ring) >= PIPE_PUBLISH) release(p);
    }
    return NULL;
}

int cycle_pipe_init(CyclePipe *p, size_t cap, size_t size)
{
    *p = (CyclePipe){0};
    atomic_init(&p->cpu_producer, -1);
    atomic_init(&p->cpu_consumer, -2);
    if (spsc_init(&p->ring, cap, size) < 0) return -1;
    /* a side that went to sleep is woken only once a batch waits for it, a quarter of the ring but at most
     * PIPE_WAKE_BATCH: under load, when the two threads share a core, every wake-up costs a context switch and a
     * scheduler latency; and the records a sleeping consumer has not been woken for are the run's serial tail */
    p->batch = cap / 4 > PIPE_WAKE_BATCH ? PIPE_WAKE_BATCH : cap / 4 > 1 ? cap / 4 : 1;
    return 0;
}

int cycle_pipe_start(CyclePipe *p, CyclePipeFn consume, void *ctx)
{
    char why[160];
    p->consume = consume;
    p->ctx = ctx;
    if (osal_thread_start(&p->thread, worker, p, 0, 0, why, sizeof why) < 0) return -1;
    p->started = 1;
    return 0;
}

void *cycle_pipe_claim(CyclePipe *p)
{
    void *slot;
    while (!(slot = spsc_claim(&p->ring))) {
        publish(p); /* full: the consumer must see everything before it can free a slot */
        wait_for(p, &p->ev_space, &p->wait_space, space_ready, &p->cpu_producer, &p->cpu_consumer);
    }
    return slot;
}

void cycle_pipe_commit(CyclePipe *p)
{
    if (spsc_commit(&p->ring) >= PIPE_PUBLISH) publish(p);
}

int cycle_pipe_error(CyclePipe *p)
{
    return atomic_load_explicit(&p->err, memory_order_acquire);
}

void cycle_pipe_finish(CyclePipe *p)
{
    if (!p->started) return;
    publish(p);
    atomic_store(&p->closing, 1);
    wake_other(p, &p->ev_items, &p->wait_items, items_ready); /* closing: ready whatever the count */
    osal_thread_join(p->thread);
    p->started = 0;
}

void cycle_pipe_free(CyclePipe *p)
{
    spsc_free(&p->ring);
}
