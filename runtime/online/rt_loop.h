/* rt_loop.h — the online mode's real-time side: one thread that wakes at absolute deadlines (one per cycle), takes
 * the next setpoint from the planner thread's queue (spsc.h), re-checks it against the limits, writes it to the
 * driver, reads the feedback, runs the monitors, logs the cycle and counts its timing; and a watcher thread that
 * turns SIGINT/SIGTERM into an E-stop request.
 *
 * The cycle is a list of steps (rt_loop.c): pace (a driver whose reader sets the rhythm), wait for the deadline, read the driver, monitors (signal, driver
 * fault, following error), next setpoint (queue, hold, stop ramp or settle), limit re-check, write, log, timing.
 * Nothing in it allocates, prints or takes a lock.
 *
 * States: PRIME (holding the start position until the queue is full, the planner thread is done, or
 * RT_PRIME_MAX has passed), RUN (one queued setpoint per cycle), STOPPING (the ramp of online_safety.h, after
 * a stop cause or when the stream ended while the axes moved), SETTLE (after the last setpoint: holding until
 * the axes are within a tenth of their following-error limit, at most RT_SETTLE_MAX), DONE (the thread disables
 * the driver and ends). An empty queue while at rest is a hold (counted); while moving it is a watchdog stop at
 * once; at rest for longer than the watchdog time, a watchdog stop too.
 *
 * Timing: a cycle whose work ends after the next deadline is an overrun; the deadlines it passed are missed (the
 * axes got no new setpoint for them). Missed deadlines draw on a budget (--max-missed, default 50) that refills
 * by RT_MISS_REFILL per cycle run (2 %); overdrawing it (more at once, or beyond 2 % for long) is a timing stop. The stop ramp takes one step per cycle
 * run (each step within the limits from the last written one); a driver bounds its blocking per cycle once it has
 * timed out (drivers/modbus.c), so a slow peer does not stretch the stop.
 *
 * Signals (the watcher): the first SIGINT/SIGTERM asks for the controlled stop; a second one during the stop is
 * only acknowledged (the ramp runs to its end); a third disables the axes at once. One that comes after the axes
 * were disabled asks the program to end (it may still be running its error handler): exec_online ends it at its
 * next motion request and writes every output; if it asks for none within 2 s, the process ends at once. */
#ifndef IRL_RT_LOOP_H
#define IRL_RT_LOOP_H

#include <stdatomic.h>
#include <stdint.h>

#include "online/drivers/driver.h"
#include "online/online_safety.h"
#include "online/online_stats.h"
#include "exec/spsc.h"
#include "osal.h"

#define RT_PRIME_MAX 0.1         /* s: the longest the start position is held while the queue fills */
#define RT_SETTLE_MAX 0.5        /* s: the longest the end waits for the axes to reach their last setpoint */
#define RT_STOP_HOLD 10          /* cycles held at rest after a stop ramp, before the axes are disabled */
#define RT_MISS_REFILL 0.02      /* the missed-deadline budget's refill per cycle run (RtConfig.miss_budget) */
#define RT_NORMAL_NICE -10       /* the cycle thread's nice value when it runs under the normal policy (permitted) */

typedef enum { RT_PRIME, RT_RUN, RT_STOPPING, RT_SETTLE, RT_DONE } RtState;

typedef enum {
    RT_STOP_NONE = 0,
    RT_STOP_SIGNAL,      /* SIGINT or SIGTERM */
    RT_STOP_FAULT,       /* the driver reported a fault, or a read/write failed */
    RT_STOP_FOLLOWING,   /* an axis is further from its setpoint than its following-error limit */
    RT_STOP_LIMIT,       /* a setpoint failed the limit re-check (it was not written) */
    RT_STOP_WATCHDOG,    /* the planner thread delivered no setpoint in time */
    RT_STOP_TIMING,      /* the cycle missed more deadlines than its budget allows */
} RtStopCause;

/* One cycle's setpoint, produced by the planner thread. */
typedef struct {
    long cycle;                    /* the dry-run's cycle index (trace row); -1 for an approach setpoint */
    double t;                      /* its program time, s (0 during the approach) */
    int approach;                  /* 1: a setpoint of the approach to the start (not the program's) */
    uint64_t dout;                 /* digital outputs, bit c = channel c */
    double q[DRIVER_MAX_AXES], qd[DRIVER_MAX_AXES];
} RtSetpoint;

typedef enum { RT_LOG_RUN, RT_LOG_PRIME, RT_LOG_HOLD, RT_LOG_STOP, RT_LOG_SETTLE, RT_LOG_APPROACH } RtLogState;

/* One cycle as written and read, for the log (online.csv). */
typedef struct {
    double wall;                   /* s since the first deadline */
    long cycle;                    /* the setpoint's cycle; -1 when it did not come from the queue */
    double t;                      /* program time of the last queued setpoint written */
    int state;                     /* RtLogState */
    int confirmed;                 /* 1 the drive acknowledged the setpoint, 0 not, -1 the driver cannot tell, -2 not
                                    * yet known (DRIVER_CONFIRMS_TAKEN: the log writer asks taken() for it) */
    long seq;                      /* the count of setpoints write() accepted before this one */
    double q[DRIVER_MAX_AXES], qd[DRIVER_MAX_AXES], qa[DRIVER_MAX_AXES]; /* written; actual (NAN: none) */
} RtLogRow;

/* Why and where the real-time side stopped (valid once rt_loop_cause returns non-zero). */
typedef struct {
    RtStopCause cause;
    int signo;                     /* RT_STOP_SIGNAL */
    SafetyViolation v;             /* RT_STOP_FOLLOWING, RT_STOP_LIMIT */
    int moving;                    /* the axes were moving when it happened */
    long approach;                 /* > 0: it happened during the approach to the start, after that many of its
                                    * setpoints (before the program's motion) */
    double t;                      /* program time of the last queued setpoint written */
    long cycle;                    /* its cycle (-1: none yet) */
    double starve;                 /* RT_STOP_WATCHDOG at rest: seconds without a setpoint */
    char fault[DRIVER_FAULT_LEN];  /* RT_STOP_FAULT: the driver's text */
} RtStop;

typedef struct {
    double dt;                     /* s */
    int naxes;
    const SafetyAxis *axes;        /* borrowed: limits per axis */
    double watchdog;               /* s at rest without a setpoint before a watchdog stop */
    const DriverType *drv;
    void *drv_state;
    DriverCaps caps;
    const double *q0;              /* where the axes were enabled (held while priming) */
    Spsc *queue;                   /* RtSetpoint records, planner thread -> here */
    Spsc *log;                     /* RtLogRow records, here -> log writer */
    int prio;                      /* SCHED_FIFO priority; 0 = normal policy */
    double miss_budget;            /* missed deadlines tolerated (refilled at RT_MISS_REFILL per cycle) */
} RtConfig;

typedef struct RtLoop {
    RtConfig cfg;
    /* shared with the other threads */
    _Atomic int state;             /* RtState */
    _Atomic int cause;             /* RtStopCause, published after stop is filled */
    _Atomic int stop_request;      /* a signal number from the watcher */
    _Atomic int producer_done;     /* the planner thread pushed its last setpoint */
    _Atomic int quit_watch;
    _Atomic int abort_request;     /* a third signal: disable the axes at once, no ramp */
    _Atomic int end_request;       /* a signal after the axes were disabled: end the program (exec_online.c) */
    _Atomic uint64_t din;          /* the driver's inputs, latest */
    _Atomic long written_cycle;    /* the last queued setpoint's cycle written to the driver (-1: none) */
    RtStop stop;
    OnlineStats stats;             /* read after rt_loop_join */
    int ended_moving;              /* the stream ended while the axes moved (a ramp followed) */
    int aborted;                   /* a third signal cut the stop ramp short */
    int disable_confirmed;         /* after the end: 1 the drive confirmed the disable, 0 not, -1 cannot tell */
    uint32_t disable_unconfirmed;  /* when 0: the axes that did not confirm it (bit k: axis k; 0 cannot tell) */
    int fifo;                      /* 1: the cycle thread runs under SCHED_FIFO */
    char sched_note[240];          /* why not, when not */
    int nice;                      /* under the normal policy: the cycle thread's nice value (read after join) */
    /* private to the cycle thread */
    int64_t t0, deadline, wake, last_wake, dt_ns;
    RtSetpoint sp;
    double q[DRIVER_MAX_AXES], qd[DRIVER_MAX_AXES];     /* last written */
    double qdd[DRIVER_MAX_AXES];                        /* last written speed's change over the cycle / dt */
    double cq[DRIVER_MAX_AXES], cqd[DRIVER_MAX_AXES];   /* this cycle's candidate */
    uint64_t dout;
    double last_t;
    long last_cycle, starve, post, settle_from;
    double miss_left;                                   /* of cfg.miss_budget, drawn on by missed deadlines */
    int have_written, from_queue, log_state, confirmed;
    int approaching;                                    /* the last queued setpoint written was the approach's */
    long accepted;                                      /* setpoints write() accepted (RtLogRow.seq) */
    DriverFeedback fb;
    SafetyRamp ramp;
    OsalThread th, watch;
    int started, watching;
} RtLoop;

/* Start the cycle thread (SCHED_FIFO at cfg->prio when permitted; why not in sched_note) and the signal watcher.
 * SIGINT/SIGTERM must already be blocked (osal_signals_block). The driver must be enabled. 0, or -1 with err. */
int rt_loop_start(RtLoop *rt, const RtConfig *cfg, char *err, size_t errlen);
/* The planner thread has pushed its last setpoint. */
void rt_loop_producer_done(RtLoop *rt);
RtState rt_loop_state(RtLoop *rt);
/* The stop cause (RT_STOP_NONE while none); when non-zero rt->stop may be read. */
RtStopCause rt_loop_cause(RtLoop *rt);
/* The cycle of the last setpoint from the queue written to the driver (-1: none yet). */
long rt_loop_written_cycle(RtLoop *rt);
/* The driver's latest digital inputs. */
uint64_t rt_loop_inputs(RtLoop *rt);
/* A signal came after the axes were disabled: the program should end (past its error handlers). */
int rt_loop_end_requested(RtLoop *rt);
/* Wait for both threads to end (the cycle thread ends by itself once DONE). */
void rt_loop_join(RtLoop *rt);

#endif
