/* cycle_pipe.h — the dry-run's two-stage cycle pipeline: the VM thread samples the setpoints of the next cycles
 * (planner, inverse kinematics) while a worker thread finishes the earlier ones (dynamics, singularity measure,
 * checks, trace). Records pass in place through the SPSC ring (spsc.h): the producer fills a claimed slot and
 * commits it, the worker's consume function gets every committed record once, in order, in its own thread. Each
 * side publishes its index every few records (a cycle is about a microsecond: an index store, and its fence, per
 * record would be a tenth of it). This file adds the worker thread and the waiting on an empty or full ring.
 *
 * An empty or full ring is waited on by spinning briefly, then sleeping on a futex until a batch of records (or of
 * free slots) is there: when both stages have work they run on both cores; when one is descheduled the other does
 * not burn a core waiting, and under load the hand-overs come in batches, not one context switch per cycle. A side
 * whose partner last ran on its own CPU (the scheduler put both on one core) does not spin at all. Nothing in the results
 * depends on the timing: the consumer sees the same records in the same order whatever the interleaving.
 *
 *   CyclePipe p;  cycle_pipe_init(&p, 32, sizeof(Rec))          allocates the ring (the only allocation)
 *                 cycle_pipe_start(&p, consume, ctx)                 starts the worker
 *   every cycle:  Rec *r = cycle_pipe_claim(&p);  fill r;  cycle_pipe_commit(&p);
 *                 cycle_pipe_error(&p): the first nonzero value consume returned (0: none)
 *   at the end:   cycle_pipe_finish(&p)   waits until every record is consumed and joins the worker
 *                 cycle_pipe_free(&p) */
#ifndef IRL_CYCLE_PIPE_H
#define IRL_CYCLE_PIPE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/spsc.h"
#include "osal.h"

/* Consume one record in the worker thread: 0, or an error code (kept; later records are still consumed). */
typedef int (*CyclePipeFn)(void *ctx, void *rec);

typedef struct {
    Spsc ring;                           /* the records */
    size_t batch;                        /* a sleeping side wakes for batch records (or free slots) */
    CyclePipeFn consume;
    void *ctx;
    OsalThread thread;
    int started;
    _Atomic uint32_t ev_items, ev_space; /* futex words, bumped to wake a sleeping consumer / producer */
    _Atomic int wait_items, wait_space;  /* 1: the consumer / producer is asleep or about to be */
    _Atomic int cpu_producer, cpu_consumer; /* the CPU each side last ran on (a side spins only if they differ) */
    _Atomic int closing;                 /* the producer has published its last record */
    _Atomic int err;                     /* the first error consume returned */
} CyclePipe;

/* Allocate a ring of cap records of size bytes (zeroed). 0, or -1 when out of memory. */
int cycle_pipe_init(CyclePipe *p, size_t cap, size_t size);
/* Start the worker thread. 0, or -1 when no thread could be made (the caller then runs both stages itself). */
int cycle_pipe_start(CyclePipe *p, CyclePipeFn consume, void *ctx);
/* The producer's next slot, waiting while the ring is full. The slot holds whatever the last record in it held. */
void *cycle_pipe_claim(CyclePipe *p);
/* Publish the claimed slot to the worker. */
void cycle_pipe_commit(CyclePipe *p);
/* The first error the worker's consume returned, 0 if none yet (its message is the caller's business: written
 * by consume before it returns, readable once this is nonzero). */
int cycle_pipe_error(CyclePipe *p);
/* Wait until the worker has consumed every committed record, and join it. */
void cycle_pipe_finish(CyclePipe *p);
/* Free the ring (after cycle_pipe_finish, or when the worker never started); cycle_pipe_error stays readable. */
void cycle_pipe_free(CyclePipe *p);

#endif
