/* spsc.h — the one lock-free ring of fixed-size records between exactly one producer thread and one consumer
 * thread: the online mode's setpoint queue (planner thread → real-time thread) and log ring (real-time thread → log writer),
 * and the dry-run's two-stage cycle pipeline (cycle_pipe.h). No call blocks, allocates or enters the kernel: C11
 * atomics only (acquire on the other side's index, release on one's own), so the real-time thread may use it every
 * cycle. Waiting on an empty or full ring is the caller's business.
 *
 *   Spsc q;  spsc_init(&q, 32, sizeof(Rec))   (allocates; the only allocation)       spsc_free(&q)
 *   by copy:   producer spsc_push(&q, &rec) -> 1 pushed, 0 full;  consumer spsc_pop(&q, &rec) -> 1 popped, 0 empty
 *   in place:  producer  r = spsc_claim(&q) (NULL: full); fill *r; spsc_commit(&q); ... spsc_publish(&q)
 *              consumer  r = spsc_front(&q) (NULL: empty); read *r; spsc_consume(&q); ... spsc_release(&q)
 * In place, a side makes its records (or freed slots) visible to the other only when it publishes (releases), so it
 * may do that every few records: one index store, and its cache-line transfer, per batch instead of per record.
 * Each side keeps its own counters and the other's index as last read on its own cache line, and reads the other's
 * index again only when it seems to have run out. The indices count records ever pushed / popped (2^64: no wrap). */
#ifndef IRL_SPSC_H
#define IRL_SPSC_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct {
    /* the producer's side: records filled, the consumer's index as last read, records published */
    size_t p_head, p_tail_seen, p_published;
    char pad0[64 - 3 * sizeof(size_t)];
    /* the consumer's side: records consumed, the producer's index as last read, slots handed back */
    size_t c_tail, c_head_seen, c_released;
    char pad1[64 - 3 * sizeof(size_t)];
    _Atomic size_t head;      /* records published (written by the producer only) */
    char pad2[64 - sizeof(size_t)];
    _Atomic size_t tail;      /* slots handed back (written by the consumer only) */
    char pad3[64 - sizeof(size_t)];
    size_t cap;               /* capacity in records */
    size_t size;              /* bytes per record */
    unsigned char *buf;       /* cap * size bytes (zeroed), owned */
} Spsc;

/* Allocate a ring of cap records of size bytes each. 0, or -1 when out of memory or cap/size is 0. */
int spsc_init(Spsc *q, size_t cap, size_t size);
void spsc_free(Spsc *q);

/* Producer: copy rec in and publish it. 1 pushed, 0 the ring is full (nothing changed). */
int spsc_push(Spsc *q, const void *rec);
/* Consumer: copy the oldest record out and hand its slot back. 1 popped, 0 the ring is empty. */
int spsc_pop(Spsc *q, void *rec);

/* Producer: the next slot to fill (it holds whatever the last record in it held), or NULL when the ring is full. */
void *spsc_claim(Spsc *q);
/* Producer: the claimed slot is filled; it reaches the consumer at the next spsc_publish. Returns the records
 * committed but not yet published. */
size_t spsc_commit(Spsc *q);
/* Producer: make every committed record visible to the consumer. 1 when there were new ones, else 0. */
int spsc_publish(Spsc *q);
/* Consumer: the oldest published record not yet consumed, in place, or NULL when there is none. */
void *spsc_front(Spsc *q);
/* Consumer: done with the front record; its slot goes back at the next spsc_release. Returns the records consumed
 * but not yet released. */
size_t spsc_consume(Spsc *q);
/* Consumer: hand every consumed slot back to the producer. 1 when there were new ones, else 0. */
int spsc_release(Spsc *q);

/* Records published and not yet released (either side; a snapshot that may be stale by the time it is read). */
size_t spsc_count(Spsc *q);

#endif
