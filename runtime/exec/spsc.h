/* spsc.h — a lock-free ring of fixed-size records between exactly one producer thread and one consumer thread
 * (the online mode's setpoint queue, planner thread → real-time thread, and its log ring, real-time thread →
 * log writer). Push and pop never block, never allocate and make no system call: C11 atomics only (acquire on
 * the other side's index, release on one's own), so the real-time thread may call them every cycle.
 *
 *   Spsc q;  spsc_init(&q, 32, sizeof(Rec))   (allocates; the only allocation)
 *   producer: spsc_push(&q, &rec) -> 1 pushed, 0 full        consumer: spsc_pop(&q, &rec) -> 1 popped, 0 empty
 *   spsc_free(&q)
 * The two indices count records ever pushed / popped (never wrap in practice: 2^64); they sit on separate
 * cache lines so the two threads do not share one. */
#ifndef IRL_SPSC_H
#define IRL_SPSC_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct {
    _Atomic size_t head;      /* records pushed (written by the producer only) */
    char pad1[64 - sizeof(size_t)];
    _Atomic size_t tail;      /* records popped (written by the consumer only) */
    char pad2[64 - sizeof(size_t)];
    size_t cap;               /* capacity in records */
    size_t size;              /* bytes per record */
    unsigned char *buf;       /* cap * size bytes, owned */
} Spsc;

/* Allocate a ring of cap records of size bytes each. 0, or -1 when out of memory or cap/size is 0. */
int spsc_init(Spsc *q, size_t cap, size_t size);
void spsc_free(Spsc *q);
/* Producer: copy rec in. 1 pushed, 0 the ring is full (nothing changed). */
int spsc_push(Spsc *q, const void *rec);
/* Consumer: copy the oldest record out. 1 popped, 0 the ring is empty. */
int spsc_pop(Spsc *q, void *rec);
/* Records waiting (either side; a snapshot that may be stale by the time it is read). */
size_t spsc_count(Spsc *q);

#endif
