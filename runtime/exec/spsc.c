/* spsc.c — the single-producer single-consumer ring (spsc.h). */
#include "exec/spsc.h"

#include <stdlib.h>
#include <string.h>

int spsc_init(Spsc *q, size_t cap, size_t size)
{
    memset(q, 0, sizeof *q);
    atomic_init(&q->head, 0);
    atomic_init(&q->tail, 0);
    if (cap == 0 || size == 0) return -1;
    q->buf = calloc(cap, size);
    if (!q->buf) return -1;
    q->cap = cap;
    q->size = size;
    return 0;
}

void spsc_free(Spsc *q)
{
    free(q->buf);
    q->buf = NULL;
    q->cap = 0;
}

void *spsc_claim(Spsc *q)
{
    if (q->p_head - q->p_tail_seen >= q->cap) {
        q->p_tail_seen = atomic_load_explicit(&q->tail, memory_order_acquire); /* the consumer is done with it */
        if (q->p_head - q->p_tail_seen >= q->cap) return NULL;
    }
    return q->buf + (q->p_head % q->cap) * q->size;
}

size_t spsc_commit(Spsc *q)
{
    return ++q->p_head - q->p_published;
}

int spsc_publish(Spsc *q)
{
    if (q->p_published == q->p_head) return 0;
    atomic_store_explicit(&q->head, q->p_head, memory_order_release); /* the records are visible before the index */
    q->p_published = q->p_head;
    return 1;
}

void *spsc_front(Spsc *q)
{
    if (q->c_tail == q->c_head_seen) {
        q->c_head_seen = atomic_load_explicit(&q->head, memory_order_acquire);
        if (q->c_tail == q->c_head_seen) return NULL;
    }
    return q->buf + (q->c_tail % q->cap) * q->size;
}

size_t spsc_consume(Spsc *q)
{
    return ++q->c_tail - q->c_released;
}

int spsc_release(Spsc *q)
{
    if (q->c_released == q->c_tail) return 0;
    atomic_store_explicit(&q->tail, q->c_tail, memory_order_release); /* done with the slots before they are reused */
    q->c_released = q->c_tail;
    return 1;
}

int spsc_push(Spsc *q, const void *rec)
{
    void *slot = spsc_claim(q);
    if (!slot) return 0;
    memcpy(slot, rec, q->size);
    spsc_commit(q);
    spsc_publish(q);
    return 1;
}

int spsc_pop(Spsc *q, void *rec)
{
    const void *slot = spsc_front(q);
    if (!slot) return 0;
    memcpy(rec, slot, q->size);
    spsc_consume(q);
    spsc_release(q);
    return 1;
}

size_t spsc_count(Spsc *q)
{
    size_t t = atomic_load_explicit(&q->tail, memory_order_acquire);
    size_t h = atomic_load_explicit(&q->head, memory_order_acquire);
    return h - t;
}
