/* spsc.c — the single-producer single-consumer ring (spsc.h). */
#include "exec/spsc.h"

#include <stdlib.h>
#include <string.h>

int spsc_init(Spsc *q, size_t cap, size_t size)
{
    memset(q, 0, sizeof *q);
    if (cap == 0 || size == 0) return -1;
    q->buf = calloc(cap, size);
    if (!q->buf) return -1;
    q->cap = cap;
    q->size = size;
    atomic_init(&q->head, 0);
    atomic_init(&q->tail, 0);
    return 0;
}

void spsc_free(Spsc *q)
{
    free(q->buf);
    q->buf = NULL;
    q->cap = 0;
}

int spsc_push(Spsc *q, const void *rec)
{
    size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
    size_t t = atomic_load_explicit(&q->tail, memory_order_acquire); /* the consumer is done with that slot */
    if (h - t >= q->cap) return 0;
    memcpy(q->buf + (h % q->cap) * q->size, rec, q->size);
    atomic_store_explicit(&q->head, h + 1, memory_order_release);   /* the record is visible before the index */
    return 1;
}

int spsc_pop(Spsc *q, void *rec)
{
    size_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
    size_t h = atomic_load_explicit(&q->head, memory_order_acquire);
    if (h == t) return 0;
    memcpy(rec, q->buf + (t % q->cap) * q->size, q->size);
    atomic_store_explicit(&q->tail, t + 1, memory_order_release);   /* the slot may be overwritten now */
    return 1;
}

size_t spsc_count(Spsc *q)
{
    size_t t = atomic_load_explicit(&q->tail, memory_order_acquire);
    size_t h = atomic_load_explicit(&q->head, memory_order_acquire);
    return h - t;
}
