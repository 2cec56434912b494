/* exec_offline.h — the offline executor (`irl run`, the dry-run): a virtual clock that advances in cycles of
 * --cycle seconds whenever the motion door (motion.h) needs time to pass. Each cycle samples every device's
 * timeline (planner or GMOVE), computes inverse dynamics, the model's outputs and the singularity measure,
 * fills the Sample (sample.h), runs the checks, writes a trace row and moves the progress bar. Nothing in it
 * reads a wall clock: the same program gives byte-identical traces and report.json.
 *
 * Wiring (src/main.c): exec_offline_begin after vm_init (it installs vm->motion), vm_run, then
 * exec_offline_end, which drains the queues, writes report.json/report.txt/plots into the output folder (outdir.h:
 * locked, the previous run's files removed, files renamed when whole) and returns the exit status. A program
 * without DEVICEs writes nothing and exits as the VM says.
 *
 * Every dry-run ends: before a cycle past --max-time, or after SIGINT/SIGTERM (osal_interrupt_catch), the cycle
 * returns a negative code, which the VM takes as the end of the run past any handler (VM_STOPPED). After a
 * statement's own error (not the clock's) the queued motion still runs to its end, so the trace, the checks and the
 * report keep everything before the error; an interrupted run's report says INCOMPLETE and the status is 128 + the
 * signal.
 *
 * Under --closed-loop (RunOptions.closed_loop) every device also gets a closed-loop engine (closed_loop.h): each
 * cycle, after its setpoint is sampled, the engine steps with it; the trace gains the engine's channels (actual
 * position, tracking error, motor voltage and current), the torques become the controller's demands at the
 * simulated state, and the report gains the peak tracking errors and the saturation events. Gains: --kp/--kd/--ki,
 * else the machine file's PARAMs ct_kp ct_kd (computed torque) or pid_kp pid_kd pid_ki (PID), else the defaults
 * from --bandwidth (controller_gains_default).
 *
 * In the open loop, a device with unpowered joints (powered = FALSE) gets their motion from passive.h: each cycle,
 * after the planner's setpoint, the passive entries of q, qd, qdd are overwritten with the semi-inverse problem
 * integrated along the powered joints' setpoint (the planner's own values there are placeholders).
 *
 * With --threads 2 (the default on a machine with two CPUs online), an open-loop offline run is pipelined
 * (cycle_pipe.h): the VM's thread samples the setpoints (planner, IK, pose) and a worker thread finishes each
 * cycle (inverse dynamics, outputs, singularity measure, checks, trace, progress) on twin models. The outputs are
 * byte-identical to a run in one thread: the second stage sees the same samples in the same order, and no model
 * result depends on which instance computes it. --closed-loop and --online run in one thread. */
#ifndef IRL_EXEC_OFFLINE_H
#define IRL_EXEC_OFFLINE_H

#include "exec/checks.h"
#include "plant/closed_loop.h"
#include "exec/cycle_pipe.h"
#include "exec/devices.h"
#include "exec/motion.h"
#include "plant/passive.h"
#include "output/outdir.h"
#include "output/progress.h"
#include "exec/run_options.h"
#include "exec/sample.h"
#include "exec/timeline.h"
#include "output/trace.h"
#include "vm/vm.h"

typedef struct ExecOffline {
    const RunOptions *opt;
    const Chunk *chunk;
    const char *program;
    Vm *vm;
    Devices devs;
    Motion motion;
    SampleLayout lay;
    Sample s;
    Checks ck;
    int have_checks;
    Timeline tl;                        /* the motion statements as they ran, the loop's passes (the report's) */
    Trace tr;
    TraceMeta trace_meta; /* what the HDF5 trace records about the run */
    struct ReportHtml *html;            /* report.html's reduced series (report_html.h), NULL before cycle 0 */
    int tracing;
    Progress pg;
    Model *models[SAMPLE_MAX_DEVICES];  /* the devices' models (the first stage: planner, IK, pose) */
    Model *models_b[SAMPLE_MAX_DEVICES]; /* the second stage's (dynamics, outputs, singularity, the checks' gravity
                                          * callback): the same, or when pipelined their twins */
    Model *twin[SAMPLE_MAX_DEVICES];    /* pipelined: a second model per device, so the stages share no workspace */
    CyclePipe pipe;                     /* pipelined: the ring of samples between the two stages */
    Sample *sb;                         /* pipelined: the second stage's sample (owned) */
    size_t rec_off[SAMPLE_MAX_DEVICES]; /* pipelined: where each device's part of a ring record starts (doubles,
                                         * exec_offline.c PipeRec) */
    char pipe_msg[256];                 /* pipelined: the first second-stage error's message (cycle_pipe_error) */
    int gmove_outs[SAMPLE_MAX_DEVICES]; /* 1: outputs start with the commanded G and Gdot */
    int tcp_out[SAMPLE_MAX_DEVICES];    /* the output index of the TCP speed, -1: none (no pose) */
    double prev_mp[SAMPLE_MAX_DEVICES][7]; /* the first stage's model tool-point pose of the last cycle */
    int io_of[SAMPLE_MAX_IO];           /* the trace's I/O column k is devs.io[io_of[k]] */
    size_t rec_io_off;                  /* pipelined: where the I/O values start in a ring record (doubles) */
    ClosedLoop *cl[SAMPLE_MAX_DEVICES]; /* --closed-loop: one engine per device (owned); NULL = open loop */
    SampleSrc *cl_ev_src[SAMPLE_MAX_DEVICES]; /* the statement under which each saturation event began (owned) */
    PassiveJoints *pj[SAMPLE_MAX_DEVICES]; /* open loop: the unpowered joints' integrator (owned); NULL = none */
    long cycle;                         /* index of the last sampled cycle */
    int last_seg[SAMPLE_MAX_DEVICES];   /* the planner segment the last cycle sampled (0: at rest) */
    SampleSrc last_src[SAMPLE_MAX_DEVICES]; /* ... and its statement */
    int time_slot;                      /* the VM's system slot of $TIME */
    double rate;                        /* cycles per second when a whole number, else 0 (exec_offline_cycle) */
    int active;                         /* the program has devices: outputs are written */
    OutDir od;                          /* the output folder: its lock, the run's list of files (outdir.h) */
    int have_od;
    int stopped;                        /* the negative code that ended the run past any handler, 0 = none */
    int clock_err;                      /* the last cycle failed: the error came from the clock, not a statement */
    int interrupted;                    /* the signal that ended the run (SIGINT, SIGTERM), 0 = none */
    char stop_msg[VM_MSG_LEN];
    char out_dir[4096];
    char trace_path[4200];
    char plot_data[4200];               /* plots.csv, the trace thinned for the figures; "" = no figures */
    char error[VM_MSG_LEN + 4300];      /* the run-time error that stopped the program, "" = none */
} ExecOffline;

/* Bind devices, set up motion, checks and trace, sample cycle 0, install the motion door in vm.
 * Returns 0, or an exit status (64 usage, 65 invalid machine file, 66 file missing, 1 other) after a message. */
int exec_offline_begin(ExecOffline *ex, Vm *vm, const Chunk *c, const char *program, const RunOptions *o);
/* One cycle of the virtual clock. 0, or an error code (errcodes.h) with a message (the motion door's callback). */
int exec_offline_cycle(void *ex, char *msg, size_t msglen);
/* Finish after vm_run returned vm_status: drain, write the outputs, free everything. Returns the exit status
 * (0 every check passed; 1 a check failed or a run-time error). */
int exec_offline_end(ExecOffline *ex, int vm_status);

#endif
