/* sample.h — one cycle of the sampled setpoint stream: what the executor hands to the checks, the trace and
 * (later) the online monitors every cycle.
 *
 * Two parts. SampleLayout is fixed for a run (device names, axis counts, output names, the machine description
 * with its limits) and is set up once before the first cycle. Sample is the per-cycle record: the executor owns
 * one, overwrites it in place every cycle (nothing is allocated per cycle) and passes it by pointer to
 * checks_sample() and trace_row(). Units are SI throughout (rad or m, rad/s or m/s, ..., Nm or N, s).
 *
 * Filling rules for the executor (fields a back-end cannot give are marked, never left stale):
 *   - q, qd, qdd for every axis, every cycle; jerk is the planner's analytic jerk when it has one, NAN otherwise
 *     (the checks differentiate qdd across cycles themselves: they check the stream, not the plan).
 *   - tau from the model's inverse dynamics at (q, qd, qdd); tau_ok = 0 when the back-end has none (then the
 *     torque checks are skipped for that device and the report says so).
 *   - grav: the gravity part g(q) of tau (inverse dynamics at q with qd = qdd = 0) when has_grav = 1; used only
 *     for the torque time scale k. The executor may leave has_grav = 0 and give the checks a callback instead
 *     (checks.h), which is then called only on the rare cycles where a torque exceeds its limit.
 *   - pose (x y z qw qx qy qz of the TCP in $BASE, with $TOOL) when the layout says the device has one; its
 *     mean linear speed over the cycle (tcp_speed) is then the output `tcp_speed` (m/s), checked against
 *     `OUTPUT tcp_speed = LIMITS(...)`.
 *   - out[] in the layout's output order (model_outputs), nout = layout's count.
 *   - sing: the back-end's singularity measure (>= 0, 0 at a singularity), NAN when it offers none. The executor
 *     may ask only for what the checks need (model_singularity_within over checks_sing_band): sing_bound = 1 then
 *     says the measure was proved to lie in that band and sing holds a lower bound of it inside the band, which
 *     leaves the checks exactly as the measure itself would.
 *   - ik_status: 0, or a MODEL_E* code (< 0) when IK failed this cycle (the setpoint then holds the last good q).
 *   - cl[]: under --closed-loop, the layout's ncl_groups groups of naxes values (closed_loop_channel_values);
 *     tau is then the controller's torque demand at the simulated state, not the setpoint's inverse dynamics.
 *   - src: the motion statement whose segment produced this device's setpoint (violations are blamed on it);
 *     line = 0 when the device is not moving under any statement (at rest before its first MOVE).
 *   - Sample.src: the statement the program is executing (the trace's `line` when no device moves).
 * Source file names are borrowed pointers (to the loaded program's file table): they must stay valid until the
 * report has been written.
 *
 * The offline executor's use of the consumers (each call is independent; none allocates per cycle):
 *   SampleLayout lay;  sample_device_info_from_model(&lay.dev[d], name, model, has_pose) for each device
 *   Sample s;          sample_init(&s, &lay)
 *   checks_init(&ck, &lay, &(ChecksConfig){.cycle = dt, .gravity = checks_model_gravity, .gravity_ud = models})
 *   trace_open(&tr, "DIR/trace.csv", &lay, NULL, ...)          unless the trace is off
 *   progress_begin(&pb, stderr, "dry-run", "s", 0)
 *   every cycle:   fill s;  checks_sample(&ck, &s);  trace_row(&tr, &s);  progress_update(&pb, s.t)
 *   planner push lowered a request:  checks_note_limited(&ck, dev, -1, "SPEED", req, allowed, t, src)
 *   at the end:    progress_end;  trace_close;  report_write(&ck, &info, "DIR/report.json", "DIR/report.txt")
 *                  plot_all(&ck, &(PlotOptions){.dir, .trace, .progress = 1})   unless --no-plots
 *                  (PLOT_SKIPPED / PLOT_FAILED: print err as a warning, keep the exit status)
 *                  exit status: checks_passed(&ck) && no run-time error ? 0 : 1;  checks_free */
#ifndef IRL_SAMPLE_H
#define IRL_SAMPLE_H

#include <string.h>

#include "model.h"

#define SAMPLE_MAX_DEVICES 8          /* devices in one program */
#define SAMPLE_MAX_AXES MODEL_MAX_DOF /* axes of one device (a JOINT value holds at most IRL_JOINT_MAX) */
#define SAMPLE_MAX_OUTPUTS MODEL_MAX_OUTPUTS
#define SAMPLE_NAME_LEN 64
#define SAMPLE_MAX_CL_GROUPS 4        /* closed-loop channel groups per device: qa, e, u, i */
#define SAMPLE_MAX_IO 64              /* digital I/O points traced (the program's first 64 DIN/DOUT) */

/* A place in the program: file:line:col (1-based; line 0 = no statement). */
typedef struct {
    const char *file; /* borrowed, see above; NULL = unknown */
    int line, col;
} SampleSrc;

/* Fixed facts about one device for the whole run. */
typedef struct {
    char name[SAMPLE_NAME_LEN];                         /* as declared in the program: "arm" */
    int naxes;                                          /* = model dof */
    int has_pose;                                       /* 1: the trace gets x y z qw qx qy qz */
    char axis_name[SAMPLE_MAX_AXES][MODEL_NAME_LEN];    /* the joints' names in the machine file or URDF */
    int nout;                                           /* named extra outputs (G-load, ...) */
    char out_name[SAMPLE_MAX_OUTPUTS][MODEL_NAME_LEN];  /* model_output_name(m, i) */
    char out_unit[SAMPLE_MAX_OUTPUTS][16];              /* model_output_unit(m, i) ("" dimensionless or unknown) */
    char out_rate_unit[SAMPLE_MAX_OUTPUTS][20];         /* the unit of its rate of change ("m/s", "1/s") */
    const ModelDesc *desc; /* borrowed: limits (joint[i].limits, motor, output_limit); NULL = no limits */
    int nplots;            /* the figures the back-end declares (ModelType.plots) */
    const ModelPlotGroup *plots;
    /* Closed loop (`irl run --closed-loop`): ncl_groups groups of naxes channels each, after the device's usual
     * columns, named "<name>.<cl_group[g]><axis>" (qa actual position, e tracking error, u motor voltage, i motor
     * current; closed_loop.h). 0 = open loop, no such channels. */
    int ncl_groups;
    char cl_group[SAMPLE_MAX_CL_GROUPS][8];
} SampleDeviceInfo;

/* The devices of a run, in declaration order (trace columns and report follow this order), and the program's
 * digital I/O points (trace columns `io.<name>`, 0/1, after the devices). */
typedef struct {
    int ndev;
    SampleDeviceInfo dev[SAMPLE_MAX_DEVICES];
    int nio;
    char io_name[SAMPLE_MAX_IO][SAMPLE_NAME_LEN];
} SampleLayout;

/* One device's state in one cycle. Arrays are indexed by axis 0..naxes-1 (the report prints axis i+1). */
typedef struct {
    double q[SAMPLE_MAX_AXES];    /* position setpoint */
    double qd[SAMPLE_MAX_AXES];   /* speed */
    double qdd[SAMPLE_MAX_AXES];  /* acceleration */
    double jerk[SAMPLE_MAX_AXES]; /* planner's analytic jerk, or NAN */
    double tau[SAMPLE_MAX_AXES];  /* inverse dynamics: torque (Nm) or force (N) */
    double grav[SAMPLE_MAX_AXES]; /* gravity part of tau at q, valid when has_grav */
    double pose[7];               /* the TCP: x y z qw qx qy qz in the program's $BASE with its $TOOL (those the
                                   * moving segment was planned with), valid when the layout's has_pose */
    double tcp_speed;             /* the TCP's mean linear speed over the cycle ending at t, m/s */
    int seg;                      /* the planner segment producing the motion (0: at rest or under GMOVE) */
    double out[SAMPLE_MAX_OUTPUTS];
    double sing;                  /* singularity measure, NAN = none */
    int sing_bound;               /* 1: sing is a certified lower bound inside checks_sing_band, not the measure */
    int sing_due;                 /* 1: the singularity measure is checked this cycle (a LIN/CIRC moves the device);
                                   * 2: sing is the measure at a PTP's IK-solved target, given by the motion side;
                                   * 0: sing is NAN (a joint-interpolated PTP may pass a singular pose) */
    int tau_ok;                   /* 1: tau is valid */
    int has_grav;                 /* 1: grav is valid */
    int ik_status;                /* 0 or MODEL_E* (< 0) when IK failed this cycle */
    SampleSrc src;                /* statement producing this device's motion */
    double cl[SAMPLE_MAX_CL_GROUPS * SAMPLE_MAX_AXES]; /* closed-loop channels, group-major (layout ncl_groups) */
} SampleDevice;

/* One cycle. */
typedef struct {
    double t;       /* program time, s (cycle index * cycle time, computed without accumulation) */
    long cycle;     /* cycle index from 0 */
    SampleSrc src;  /* statement being executed (trace `line`) */
    int ndev;       /* = layout ndev */
    double io[SAMPLE_MAX_IO]; /* the digital I/O points' values in this cycle (layout nio; 0 or 1) */
    SampleDevice dev[SAMPLE_MAX_DEVICES];
} Sample;

/* The same statement (files compared by name). */
static inline int sample_src_same(SampleSrc a, SampleSrc b)
{
    return a.line == b.line && a.col == b.col &&
           (a.file == b.file || (a.file && b.file && strcmp(a.file, b.file) == 0));
}

/* The statement a cycle belongs to: the one moving the first moving device (the VM runs ahead of the motion, so
 * s->src may already be statements further on), else the one the program is at (a WAIT, say). The trace's
 * `line` and report.html's timeline follow it; the checks blame by the same rule, per device. */
static inline SampleSrc sample_statement(const Sample *s)
{
    for (int d = 0; d < s->ndev; d++)
        if (s->dev[d].src.line > 0) return s->dev[d].src;
    return s->src;
}

/* Fill a layout's device entry from a live model (name, dof, outputs, desc); has_pose as given. */
void sample_device_info_from_model(SampleDeviceInfo *info, const char *name, Model *m, int has_pose);
/* Set output i's unit (and so its rate's). */
void sample_output_unit(SampleDeviceInfo *info, int i, const char *unit);

/* Reset a sample for a layout: zeros, jerk and sing NAN, tau_ok 0, ndev set. Called once at init. */
void sample_init(Sample *s, const SampleLayout *lay);

#endif
