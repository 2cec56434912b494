/* cycle_pipe.c — the two-stage cycle pipeline (cycle_pipe.h). */
#include "cycle_pipe.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Spins before sleeping: a stage's cycle takes about a microsecond, so the other side is usually ready within
 * a few; this bounds the spin to some tens of microseconds when it is not (descheduled). */
#define PIPE_SPINS 1000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Records to consume (spinning: any; asleep: a batch), or the end. */
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
                     size_t batch)
{
    for (int i = 0; i < PIPE_SPINS; i++) {
        if (ready(p, 1)) return;
        cpu_relax();
    }
    for (;;) {
        uint32_t key = atomic_load(ev);
        atomic_store(waiting, 1);
        atomic_thread_fence(memory_order_seq_cst);
        if (ready(p, batch)) break;
        futex_wait(ev, key);
    }
    atomic_store(waiting, 0);
}

/* After publishing: wake the other side if it announced a sleep and what it waits for is there (one wake per
 * announcement). */
static void wake_other(CyclePipe *p, _Atomic uint32_t *ev, _Atomic int *waiting, int (*ready)(CyclePipe *, size_t),
                       size_t batch)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(waiting, memory_order_relaxed) && ready(p, batch) && atomic_exchange(waiting, 0)) {
        atomic_fetch_add(ev, 1);
        futex_wake(ev);
    }
}

static void *worker(void *arg)
{
    CyclePipe *p = arg;
    for (;;) {
        void *rec = spsc_peek(&p->ring);
        if (!rec) {
            if (atomic_load(&p->closing) && spsc_count(&p->ring) == 0) break;
            wait_for(p, &p->ev_items, &p->wait_items, items_ready, p->batch);
            continue;
        }
        int e = p->consume(p->ctx, rec);
        int none = 0;
        if (e) atomic_compare_exchange_strong(&p->err, &none, e);
        spsc_release(&p->ring);
        wake_other(p, &p->ev_space, &p->wait_space, space_ready, p->batch);
    }
    return NULL;
}

int cycle_pipe_init(CyclePipe *p, size_t cap, size_t size)
{
    *p = (CyclePipe){0};
    /* a side that went to sleep is woken only once a quarter of the ring waits for it: under load, when the two
     * threads share a core, every wake-up costs a context switch and a scheduler latency */
    p->batch = cap / 4 > 1 ? cap / 4 : 1;
    return spsc_init(&p->ring, cap, size);
}

void *cycle_pipe_slot(CyclePipe *p, size_t i)
{
    return i < p->ring.cap ? p->ring.buf + i * p->ring.size : NULL;
}

int cycle_pipe_start(CyclePipe *p, CyclePipeFn consume, void *ctx)
{
    p->consume = consume;
    p->ctx = ctx;
    if (pthread_create(&p->thread, NULL, worker, p) != 0) return -1;
    p->started = 1;
    return 0;
}

void *cycle_pipe_claim(CyclePipe *p)
{
    void *slot = spsc_claim(&p->ring);
    if (slot) return slot;
    wait_for(p, &p->ev_space, &p->wait_space, space_ready, p->batch);
    return spsc_claim(&p->ring);
}

void cycle_pipe_commit(CyclePipe *p)
{
    spsc_commit(&p->ring);
    wake_other(p, &p->ev_items, &p->wait_items, items_ready, p->batch);
}

int cycle_pipe_error(CyclePipe *p)
{
    return atomic_load(&p->err);
}

void cycle_pipe_finish(CyclePipe *p)
{
    if (!p->started) return;
    atomic_store(&p->closing, 1);
    wake_other(p, &p->ev_items, &p->wait_items, items_ready, p->batch); /* closing: ready whatever the count */
    pthread_join(p->thread, NULL);
    p->started = 0;
}

void cycle_pipe_free(CyclePipe *p)
{
    spsc_free(&p->ring);
}
