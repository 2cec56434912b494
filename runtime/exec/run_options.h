/* run_options.h — the options of `irl run` that concern the motion side (the offline executor, devices, I/O):
 * parsed one at a time so the command's own loop (src/main.c) hands over whatever it does not know. */
#ifndef IRL_RUN_OPTIONS_H
#define IRL_RUN_OPTIONS_H

#include <stddef.h>

#define RUN_MAX_BIND 8
#define RUN_NAME_LEN 64

enum { RUN_CONTROLLER_CT = 0, RUN_CONTROLLER_PID = 1 };

/* --device NAME=FILE */
typedef struct {
    char dev[RUN_NAME_LEN];
    const char *path; /* borrowed from argv */
} RunDeviceBind;

/* --start NAME=q1,q2,... (SI: rad or m) */
typedef struct {
    char dev[RUN_NAME_LEN];
    int n;
    double q[64];
} RunStart;

/* --actual-start NAME=q1,...[;qd1,...] (SI): where the closed loop's simulated machine starts */
typedef struct {
    char dev[RUN_NAME_LEN];
    int n, nd;               /* values given for q and for qd (0: at rest) */
    double q[64], qd[64];
} RunActualStart;

/* --input NAME=VALUE@T: the input takes VALUE from program time T on */
typedef struct {
    char name[RUN_NAME_LEN];
    double value, t;
} RunInput;

struct DeviceMachine;

typedef struct RunOptions {
    const char *out_dir;    /* --out DIR; NULL: out/<program>/ */
    int out_temp;           /* --out-temp: a fresh temporary directory, removed at exit (tests) */
    double cycle;           /* --cycle SECONDS (a unit suffix ms/s/us allowed); default 0.001 */
    int no_plots;           /* --no-plots */
    int no_html;            /* --no-html: no report.html (nor the per-cycle reduction it needs) */
    int display_si;         /* --display si: figures and report.txt in SI (radians); --display deg (default): revolute
                             * quantities in degrees there. The trace and report.json are SI either way */
    int no_trace;           /* --no-trace or --trace none: no trace (benchmarks); plots need the trace, so none either */
    int trace_h5;           /* --trace h5 (default): trace.h5 (output/trace_h5.h); 0 = --trace csv: trace.csv */
    int digits;             /* --digits N: the trace's significant digits, 1..17 (its values rounded to them,
                             * output/trace.h); 0 = the trace's default */
    int closed_loop;        /* --closed-loop: simulate the machine following the setpoints (closed_loop.h) */
    int controller;         /* --controller ct|pid: RUN_CONTROLLER_CT (default) or RUN_CONTROLLER_PID */
    double bandwidth;       /* --bandwidth W (rad/s) for the default gains; 0 = CONTROLLER_OMEGA */
    const char *kp, *kd, *ki; /* --kp/--kd/--ki "v" or "v1,...,vn" (borrowed from argv; checked against each
                               * device's axis count when the devices are bound); NULL = not given */
    double max_time;        /* --max-time T: the bound on simulated time, s; default RUN_MAX_TIME */
    double plot_timeout;    /* --plot-timeout T: how long gnuplot may take, s (wall clock); default RUN_PLOT_TIMEOUT */
    double time_scale;      /* --time-scale K: every motion K times slower (K >= 1 fixes torques) */
    int progress;           /* --progress / --no-progress: 1 / 0; -1 = when stderr is a terminal */
    int threads;            /* --threads 1|2: 2 pipelines the dry-run's cycle over two threads (exec_offline.h);
                             * default 2 when two CPUs are online, else 1 */
    int nbind;
    RunDeviceBind bind[RUN_MAX_BIND];
    int nstart;
    RunStart start[RUN_MAX_BIND];
    int nactual;            /* --actual-start (closed loop only) */
    RunActualStart actual[RUN_MAX_BIND];
    int controller_continuous; /* --controller-rate continuous: the controller acts inside the ODE (closed_loop.h);
                                * 0: sampled once per cycle, held (the default, --controller-rate cycle) */
    const char *closed_loop_only; /* the first option given that only --closed-loop uses (--actual-start, the
                                   * controller's); NULL = none. Without --closed-loop it is a usage error (main.c) */
    int ninput, capinput;
    RunInput *input;        /* owned */
    int ncsv;
    const char *csv[RUN_MAX_BIND]; /* --input FILE.csv: rows `t,name,value` (borrowed) */
    const struct DeviceMachine *machines; /* one per DEVICE of the program, in declaration order, as the CLI read
                                           * them (src/bind.c; borrowed); NULL when it declares none */
    /* Online (exec_online.h, docs/RUNNING.md "Online"). */
    int online;             /* --online: run in real time against a driver */
    int force;              /* --force: online without the pre-flight dry-run (main.c) */
    int approach;           /* --approach: axes standing away from the start are moved there first (exec_online.h) */
    const char *driver;     /* --driver NAME[:key=value,...] (borrowed); required with --online */
    const struct RegMap *regmap; /* the modbus driver's register map, as the CLI read it (src/regmap_read.c;
                                  * borrowed); NULL for the other drivers */
    const char *following_error; /* --following-error E or E1,...,En (SI; borrowed, checked against the axes);
                                  * NULL = each axis's speed limit times RUN_FERR_TIME */
    double watchdog;        /* --watchdog T: longest time at rest without a setpoint; default 1 s */
    int queue;              /* --queue N: setpoints the planner thread runs ahead of the cycle; default 50 */
    int rt_priority;        /* --rt-priority P: SCHED_FIFO priority of the cycle thread (0 = normal policy);
                             * default 80 */
    int max_missed;         /* --max-missed N: missed deadlines tolerated online, refilled at 2 % of the cycles
                             * (rt_loop.h); default 50 */
} RunOptions;

#define RUN_MAX_TIME 3600.0   /* s of simulated time: an hour, longer than any cell cycle or G profile (RUNNING.md) */
#define RUN_PLOT_TIMEOUT 120.0 /* s of wall clock for gnuplot to draw every figure */
#define RUN_FERR_TIME 0.05  /* s: the default following-error limit is the distance covered at full speed in it */

void run_options_init(RunOptions *o);
void run_options_free(RunOptions *o);
/* Parse the option at argv[0] (with its argument). Returns the number of argv entries used (1 or 2), 0 when
 * argv[0] is not one of these options, or -1 with a message in err when it is malformed. */
int run_options_parse(RunOptions *o, int argc, char **argv, char *err, size_t errlen);

#endif
