/* osal.c — the operating-system layer: clock, sleeps, memory locking, threads, futex and signals (osal.h). */
#include "osal.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OSAL_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OSAL_SANITIZER 1
#endif
#endif

int64_t osal_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t osal_thread_cpu(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void osal_sleep_until(int64_t t)
{
    struct timespec ts = {.tv_sec = (time_t)(t / 1000000000), .tv_nsec = (long)(t % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

void osal_sleep(int64_t ns)
{
    osal_sleep_until(osal_now() + ns);
}

int osal_lock_memory(char *why, size_t whylen)
{
#ifdef OSAL_SANITIZER
    snprintf(why, whylen, "skipped in a sanitizer build");
    return 0;
#else
    if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) return 1;
    snprintf(why, whylen, "mlockall: %s", strerror(errno));
    return 0;
#endif
}

void osal_unlock_memory(void)
{
#ifndef OSAL_SANITIZER
    munlockall();
#endif
}

int osal_thread_start(OsalThread *th, void *(*fn)(void *), void *arg, size_t stack, int prio, char *why,
                      size_t whylen)
{
    int rc;
    sigset_t set, mask;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &mask); /* the new thread inherits the caller's mask */
    pthread_attr_t at;
    pthread_attr_init(&at);
    if (stack) pthread_attr_setstacksize(&at, stack);
    if (prio > 0) {
        struct sched_param sp = {.sched_priority = prio};
        int lo = sched_get_priority_min(SCHED_FIFO), hi = sched_get_priority_max(SCHED_FIFO);
        if (sp.sched_priority < lo) sp.sched_priority = lo;
        if (sp.sched_priority > hi) sp.sched_priority = hi;
        pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&at, SCHED_FIFO);
        pthread_attr_setschedparam(&at, &sp);
        rc = pthread_create(th, &at, fn, arg);
        if (rc == 0) return pthread_attr_destroy(&at), pthread_sigmask(SIG_SETMASK, &mask, NULL), 1;
        snprintf(why, whylen, "SCHED_FIFO %d not permitted (%s); the cycle thread runs under the normal policy",
                 sp.sched_priority, strerror(rc));
        pthread_attr_setinheritsched(&at, PTHREAD_INHERIT_SCHED); /* the same attributes, the caller's policy */
    }
    rc = pthread_create(th, &at, fn, arg);
    pthread_attr_destroy(&at);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (rc == 0) return 0;
    snprintf(why, whylen, "cannot start a thread: %s", strerror(rc));
    return -1;
}

void osal_thread_join(OsalThread th)
{
    pthread_join(th, NULL);
}

void osal_once(OsalOnce *once, void (*fn)(void))
{
    pthread_once(once, fn);
}

int osal_boost(int nice_value, int *old)
{
    pid_t tid = (pid_t)syscall(SYS_gettid);
    errno = 0;
    *old = getpriority(PRIO_PROCESS, (id_t)tid);
    if (errno) *old = 0;
    return setpriority(PRIO_PROCESS, (id_t)tid, nice_value) == 0 ? 0 : -1;
}

int osal_nice(void)
{
    errno = 0;
    int n = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    return errno ? 0 : n;
}

int osal_is_fifo(void)
{
    return sched_getscheduler(0) == SCHED_FIFO;
}

void osal_unboost(int old)
{
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), old);
}

void osal_prefault_stack(size_t size)
{
    volatile unsigned char buf[64 * 1024];
    size_t n = size < sizeof buf ? size : sizeof buf;
    for (size_t i = 0; i < n; i += 4096) buf[i] = 0;
}

int osal_cpu(void)
{
    return sched_getcpu();
}

void osal_futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void osal_futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The handler only exists so that the signals are not ignored; they stay blocked and are taken by sigtimedwait. */
static void osal_no_op(int sig) { (void)sig; }

void osal_signals_block(OsalSignals *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = osal_no_op;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old->intr);
    sigaction(SIGTERM, &sa, &old->term);
    sa.sa_handler = SIG_IGN; /* a reader that has gone is a write error (EPIPE): a driver fault, not a death */
    sigaction(SIGPIPE, &sa, &old->pipe);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old->mask);
}

int osal_signals_wait(int64_t timeout_ns)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000), .tv_nsec = (long)(timeout_ns % 1000000000)};
    int s = sigtimedwait(&set, NULL, &ts);
    return s > 0 ? s : 0;
}

void osal_signals_restore(const OsalSignals *old)
{
    pthread_sigmask(SIG_SETMASK, &old->mask, NULL);
    sigaction(SIGINT, &old->intr, NULL);
    sigaction(SIGTERM, &old->term, NULL);
    sigaction(SIGPIPE, &old->pipe, NULL);
}

void osal_exit_now(const char *msg, int status)
{
    ssize_t r = write(STDERR_FILENO, msg, strlen(msg));
    (void)r;
    _exit(status);
}

static volatile sig_atomic_t osal_caught;
static struct sigaction osal_old_int, osal_old_term;
static int osal_catching;

static void osal_catch(int sig) { osal_caught = sig; }

void osal_interrupt_catch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = osal_catch;
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    osal_caught = 0;
    sigaction(SIGINT, &sa, &osal_old_int);
    sigaction(SIGTERM, &sa, &osal_old_term);
    osal_catching = 1;
}

int osal_interrupted(void) { return osal_caught; }

void osal_interrupt_release(void)
{
    if (!osal_catching) return;
    sigaction(SIGINT, &osal_old_int, NULL);
    sigaction(SIGTERM, &osal_old_term, NULL);
    osal_catching = 0;
}

/* ---- Coroutines. ---- */

/* A switch by getcontext/setcontext (swapcontext's sanitizer interceptor warns on every run); under ASan the fiber
 * annotations tell it which stack is current. */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#define FIBER_START(fake, bottom, size) __sanitizer_start_switch_fiber(fake, bottom, size)
#define FIBER_FINISH(fake, bottom, size) __sanitizer_finish_switch_fiber(fake, bottom, size)
#else
#define FIBER_START(fake, bottom, size) ((void)(fake), (void)(bottom), (void)(size))
#define FIBER_FINISH(fake, bottom, size) ((void)(fake), (void)(bottom), (void)(size))
#endif

/* Saves the running context into save and continues to; returns when save is set again. */
static void coro_switch(ucontext_t *save, ucontext_t *to)
{
    volatile int back = 0;
    getcontext(save);
    if (!back) {
        back = 1;
        setcontext(to);
    }
}

/* makecontext passes ints: the coroutine's address in two halves. */
static void coro_entry(unsigned hi, unsigned lo)
{
    OsalCoro *co = (OsalCoro *)(uintptr_t)((uint64_t)hi << 32 | lo);
    FIBER_FINISH(NULL, &co->caller_bottom, &co->caller_size);
    co->fn(co->arg);
    co->done = 1;
    FIBER_START(NULL, co->caller_bottom, co->caller_size); /* this fiber ends */
    setcontext(&co->caller);
}

int osal_coro_init(OsalCoro *co, size_t stack, void (*fn)(void *), void *arg)
{
    memset(co, 0, sizeof *co);
    co->stack = malloc(stack);
    if (!co->stack || getcontext(&co->ctx) != 0) {
        free(co->stack);
        co->stack = NULL;
        return -1;
    }
    co->size = stack;
    co->fn = fn;
    co->arg = arg;
    co->ctx.uc_stack.ss_sp = co->stack;
    co->ctx.uc_stack.ss_size = stack;
    co->ctx.uc_link = NULL;
    uint64_t p = (uint64_t)(uintptr_t)co;
    makecontext(&co->ctx, (void (*)(void))coro_entry, 2, (unsigned)(p >> 32), (unsigned)(p & 0xffffffffu));
    return 0;
}

void osal_coro_resume(OsalCoro *co)
{
    if (co->done) return;
    void *fake = NULL;
    FIBER_START(&fake, co->stack, co->size);
    coro_switch(&co->caller, &co->ctx);
    FIBER_FINISH(fake, NULL, NULL);
}

void osal_coro_yield(OsalCoro *co)
{
    void *fake = NULL;
    FIBER_START(&fake, co->caller_bottom, co->caller_size);
    coro_switch(&co->ctx, &co->caller);
    FIBER_FINISH(fake, &co->caller_bottom, &co->caller_size);
}

void osal_coro_free(OsalCoro *co)
{
    free(co->stack);
    co->stack = NULL;
}
