/* rt_os.h — the operating-system calls of the online mode behind one small interface (the only file of the online
 * mode with POSIX calls): the monotonic clock, absolute sleeps, memory locking, a thread with SCHED_FIFO when the
 * system permits it, and the blocked-signal watcher that turns SIGINT/SIGTERM into an E-stop request. */
#ifndef IRL_RT_OS_H
#define IRL_RT_OS_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t rt_os_now(void);
/* Sleep until the absolute CLOCK_MONOTONIC time t (ns) with clock_nanosleep(TIMER_ABSTIME); EINTR resumes. */
void rt_os_sleep_until(int64_t t);
/* Sleep for ns nanoseconds (relative; for the normal threads' polling). */
void rt_os_sleep(int64_t ns);

/* mlockall(MCL_CURRENT | MCL_FUTURE). 1 locked; 0 not locked, with the reason in why (not permitted, or skipped
 * in a sanitizer build, whose shadow memory cannot be locked). Never fatal. */
int rt_os_lock_memory(char *why, size_t whylen);
void rt_os_unlock_memory(void);

/* Start fn(arg) in a new thread. prio > 0 asks for SCHED_FIFO at that priority; when the system refuses (no
 * permission, no real-time budget) the thread runs under the normal policy instead and why says so. Returns 1
 * started with SCHED_FIFO, 0 started with the normal policy, -1 not started (why set). */
int rt_os_thread_start(pthread_t *th, void *(*fn)(void *), void *arg, int prio, char *why, size_t whylen);
/* Raise the calling thread's CFS weight: nice value nice_value (e.g. -10), the old one into *old. 0, or -1 when
 * not permitted (then nothing changed). The planner thread uses it to keep ahead of the cycle on a busy machine. */
int rt_os_boost(int nice_value, int *old);
void rt_os_unboost(int old);
/* Touch size bytes of the calling thread's stack so its pages are mapped before the first cycle. */
void rt_os_prefault_stack(size_t size);

/* What rt_os_signals_block changed, to restore. */
typedef struct {
    sigset_t mask;
    struct sigaction intr, term;
} RtOsSignals;

/* Block SIGINT and SIGTERM in the calling thread (and so in every thread it starts afterwards), after giving
 * them a handler so a disposition inherited as "ignore" does not discard them (online, SIGINT is the E-stop). */
void rt_os_signals_block(RtOsSignals *old);
/* Wait up to timeout_ns for SIGINT or SIGTERM (blocked): the signal number, or 0 on timeout. */
int rt_os_signals_wait(int64_t timeout_ns);
/* Restore the mask and the dispositions saved by rt_os_signals_block (a signal still pending is taken by the
 * no-op handler first, so it cannot end the process on the way out). */
void rt_os_signals_restore(const RtOsSignals *old);
/* Write a message to stderr and end the process at once with status (async-signal-safe: the second signal). */
void rt_os_exit_now(const char *msg, int status);


/* The dry-run's interruption: SIGINT and SIGTERM only set a flag that the virtual clock polls each cycle, so the
 * run ends on a whole cycle and still writes its outputs. The handler is installed with SA_RESETHAND: a second
 * signal takes the default action and ends the process at once. */
void rt_os_interrupt_catch(void);
/* The signal number caught since rt_os_interrupt_catch, or 0. */
int rt_os_interrupted(void);
/* Restore the dispositions rt_os_interrupt_catch replaced. */
void rt_os_interrupt_release(void);

#endif
