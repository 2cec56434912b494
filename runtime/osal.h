/* osal.h — the operating-system layer (as SOEM's osal): the only file of the runtime that makes thread, clock, sleep,
 * futex, signal, scheduling and memory-locking calls. The monotonic clock, absolute sleeps, memory locking, threads
 * (SCHED_FIFO when the system permits it), the futex the dry-run's cycle pipeline sleeps on, and the blocked-signal
 * watcher that turns SIGINT/SIGTERM into an E-stop request. File and process I/O (trace, gnuplot, drivers' sockets)
 * stays with its owners. */
#ifndef IRL_OSAL_H
#define IRL_OSAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

typedef pthread_t OsalThread;

#define OSAL_RT_STACK (512 * 1024) /* the online threads' stacks: small, since locked memory is faulted in whole */

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t osal_now(void);
/* The calling thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID): it does not advance while the thread is
 * preempted or asleep. A system call (about a microsecond in a virtual machine), unlike osal_now. */
int64_t osal_thread_cpu(void);
/* Sleep until the absolute CLOCK_MONOTONIC time t (ns) with clock_nanosleep(TIMER_ABSTIME); EINTR resumes. */
void osal_sleep_until(int64_t t);
/* Sleep for ns nanoseconds (relative; for the normal threads' polling). */
void osal_sleep(int64_t ns);

/* mlockall(MCL_CURRENT | MCL_FUTURE). 1 locked; 0 not locked, with the reason in why (not permitted, or skipped
 * in a sanitizer build, whose shadow memory cannot be locked). Never fatal. */
int osal_lock_memory(char *why, size_t whylen);
void osal_unlock_memory(void);

/* Start fn(arg) in a new thread with a stack of `stack` bytes (0: the system's default). prio > 0 asks for
 * SCHED_FIFO at that priority; when the system refuses (no permission, no real-time budget) the thread runs under
 * the normal policy instead and why says so. The thread starts with SIGINT and SIGTERM blocked, so they reach the
 * thread that catches them (osal_interrupt_catch) or waits for them (osal_signals_wait), never a worker. Returns 1
 * started with SCHED_FIFO, 0 started with the normal policy, -1 not started (why set). */
int osal_thread_start(OsalThread *th, void *(*fn)(void *), void *arg, size_t stack, int prio, char *why,
                      size_t whylen);
/* Wait for a thread started by osal_thread_start to end. */
void osal_thread_join(OsalThread th);
/* Run fn the first time any thread calls this with `once` (OSAL_ONCE_INIT); every caller returns after it ran. */
typedef pthread_once_t OsalOnce;
#define OSAL_ONCE_INIT PTHREAD_ONCE_INIT
void osal_once(OsalOnce *once, void (*fn)(void));
/* Raise the calling thread's CFS weight: nice value nice_value (e.g. -10), the old one into *old. 0, or -1 when
 * not permitted (then nothing changed). The planner thread uses it to keep ahead of the cycle on a busy machine. */
int osal_boost(int nice_value, int *old);
void osal_unboost(int old);
/* The calling thread's nice value. */
int osal_nice(void);
/* Does the calling thread run under SCHED_FIFO? */
int osal_is_fifo(void);
/* Touch size bytes of the calling thread's stack so its pages are mapped before the first cycle. */
void osal_prefault_stack(size_t size);
/* The CPU the calling thread runs on now (-1 when unknown). */
int osal_cpu(void);

/* Sleep while *word still holds expected (a futex of this process; may return early, the caller checks again). */
void osal_futex_wait(_Atomic uint32_t *word, uint32_t expected);
/* Wake one thread sleeping on word. */
void osal_futex_wake(_Atomic uint32_t *word);

/* What osal_signals_block changed, to restore. */
typedef struct {
    sigset_t mask;
    struct sigaction intr, term, pipe;
} OsalSignals;

/* Block SIGINT and SIGTERM in the calling thread (and so in every thread it starts afterwards), after giving
 * them a handler so a disposition inherited as "ignore" does not discard them (online, SIGINT is the E-stop);
 * ignore SIGPIPE, so a pipe or FIFO whose reader has gone fails the write (EPIPE) instead of ending the process. */
void osal_signals_block(OsalSignals *old);
/* Wait up to timeout_ns for SIGINT or SIGTERM (blocked): the signal number, or 0 on timeout. */
int osal_signals_wait(int64_t timeout_ns);
/* Restore the mask and the dispositions saved by osal_signals_block (a signal still pending is taken by the
 * no-op handler first, so it cannot end the process on the way out). */
void osal_signals_restore(const OsalSignals *old);
/* Write a message to stderr and end the process at once with status (async-signal-safe: the second signal). */
void osal_exit_now(const char *msg, int status);


/* The dry-run's interruption: SIGINT and SIGTERM only set a flag that the virtual clock polls each cycle, so the
 * run ends on a whole cycle and still writes its outputs. The handler is installed with SA_RESETHAND: a second
 * signal takes the default action and ends the process at once. */
void osal_interrupt_catch(void);
/* The signal number caught since osal_interrupt_catch, or 0. */
int osal_interrupted(void);
/* Restore the dispositions osal_interrupt_catch replaced. */
void osal_interrupt_release(void);

/* Coroutines (the program's tasks, runtime/vm/tasks.c): each runs fn(arg) on its own stack and gives control back
 * with osal_coro_yield; osal_coro_resume continues it where it yielded. One thread only. */
typedef struct OsalCoro {
    ucontext_t ctx, caller;
    void *stack;
    size_t size;
    void (*fn)(void *);
    void *arg;
    int done;                  /* fn has returned */
    const void *caller_bottom; /* the resumer's stack (the sanitizer's fiber annotations) */
    size_t caller_size;
} OsalCoro;

/* Prepare co to run fn(arg) on a stack of `stack` bytes: 0, or -1 when out of memory. */
int osal_coro_init(OsalCoro *co, size_t stack, void (*fn)(void *), void *arg);
/* Run co until it yields or its function returns. */
void osal_coro_resume(OsalCoro *co);
/* From inside co: back to the osal_coro_resume that ran it. */
void osal_coro_yield(OsalCoro *co);
void osal_coro_free(OsalCoro *co);

#endif
