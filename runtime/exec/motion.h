/* motion.h — the one door from the VM to the motion side (planner, GMOVE, devices, I/O). OP_MOTION calls
 * motion_execute with the statement's kind (opcodes.h IRL_MOTION_KINDS) and its operand run (laid out as
 * opcodes.h describes: a header with the statement's pc, device, operand shapes and WITH mask, then the values).
 *
 * This is the producer side: MOVE plans a planner segment, GMOVE a GmoveSegment (one per-device queue of each,
 * one timeline per device: a centrifuge is either under GMOVE or under the planner), and both return at once
 * while their queue has room. When a queue is full, and for the statements that stop look-ahead (WAIT, WAIT FOR,
 * PULSE, writing an output, reading an input, reading $TIME), the door advances the clock through the
 * executor's cycle callback (offline: the virtual clock of exec_offline.c). A NULL Motion (no executor wired)
 * refuses every statement with ERR_NOT_SUPPORTED, naming it. */
#ifndef IRL_MOTION_H
#define IRL_MOTION_H

#include <stddef.h>

#include "exec/checks.h"
#include "chunk.h"
#include "exec/devices.h"
#include "motion/follow.h"
#include "exec/triggers.h"
#include "motion/gmove.h"
#include "motion/planner.h"
#include "online/online_safety.h"

#define MOTION_QUEUE 16       /* planner segments per device */
#define MOTION_GMOVE_QUEUE 4  /* GMOVE segments per device */

/* One queued GMOVE statement. */
typedef struct {
    GmoveSegment seg;
    GmoveTable tab;      /* PROFILE: the table the segment reads (reused with the slot) */
    SampleSrc src;
    double start;        /* absolute start time, s */
} MotionGmoveSlot;

/* The GMOVE timeline of one G-profile machine (a centrifuge). Single thread (offline): plain indices. */
typedef struct {
    int on;              /* the device offers G-profiles (model.h: gprofile) */
    GmoveMachine mc;
    MotionGmoveSlot *ring;
    long head, tail;     /* pushed / retired */
    int have_end;        /* a GMOVE has run: the device follows this timeline (not the planner) */
    GmoveState end;      /* the steady state after the last pushed segment */
    double end_t;        /* when it is reached */
    GmoveSample end_s;   /* the sample there (q2, q3, omega held while idle) */
} MotionGmove;

/* The $BASE and $TOOL a planner segment was planned with (x y z qw qx qy qz each), so that its TCP can be traced
 * in the frames the program set for it while the program runs ahead. */
#define MOTION_FRAMES (2 * MOTION_QUEUE + 2) /* more than the segments queued, executing and blending */
typedef struct {
    int id;              /* planner segment id (0: empty) */
    double base[7], tool[7];
    int identity;        /* both are the identity (motion_tcp_pose then copies) */
} MotionFrames;

/* BRAKE: the device's controlled stop, the online mode's stop ramp (online_safety.h: jerk-limited within the axes'
 * limits, all axes at rest together), which replaces the planner's setpoints until it is at rest. */
typedef struct {
    int state;           /* 0 none, 1 asked for by BRAKE (the next cycle starts it), 2 stopping */
    SampleSrc src;       /* the BRAKE statement */
    SafetyAxis ax[PLANNER_MAX_AXES];
    SafetyRamp ramp;
    double q[PLANNER_MAX_AXES], qd[PLANNER_MAX_AXES], qdd[PLANNER_MAX_AXES]; /* the last setpoint of the cycle */
} MotionBrake;

typedef struct {
    Planner planner;
    int planner_ok;
    MotionGmove gm;
    MotionFrames frames[MOTION_FRAMES]; /* by segment id modulo MOTION_FRAMES */
    FollowStream follow;             /* MOVE FOLLOW's samples, ahead of the cycle */
    long follow_k;                   /* MOVE FOLLOW f FOR T: the sample the function is evaluated for next */
    MotionBrake brake;
} MotionDevice;

/* Advance the clock by one cycle. Returns 0, or an error code (errcodes.h) with a message. */
typedef int (*MotionCycleFn)(void *ctx, char *msg, size_t msglen);

typedef struct Motion {
    const Chunk *chunk;
    Devices *devs;       /* borrowed */
    MotionDevice dev[SAMPLE_MAX_DEVICES];
    Value *sys;          /* the VM's system variables (IRL_SYSVARS order), read for modal defaults */
    double t;            /* program time of the last cycle, s (the executor keeps it) */
    double dt;           /* cycle time, s */
    double time_scale;   /* --time-scale k: every motion k times slower */
    MotionCycleFn cycle;
    void *cycle_ctx;
    SampleSrc cur;       /* the statement executing (the trace's `line`) */
    SampleSrc fail_src;  /* set by the cycle: the statement whose motion a cycle's error belongs to (line 0: none) */
    int err_pc;          /* the pc of that statement, for the error's location (-1: none; motion_error_pc) */
    Checks *checks;      /* lowered requests are noted here (NULL: not recorded) */
    int settle_errors;   /* 1 (dry-run): a statement's error takes effect when the motion before it has run */
    int degrees;         /* messages show revolute quantities in degrees (--display deg, output/display.h); set by
                          * motion_display */
    double max_time;     /* the dry-run's bound on simulated time (--max-time), s; 0: none (online) */
    long nsync;          /* reads of $TIME so far (MK_SYNC): a WAIT FOR condition that reads none cannot change
                          * with time alone */
    long wait_nsync;     /* nsync at the WAIT FOR condition's previous evaluation */
    int wait_io;         /* the input the WAIT FOR condition read last (-1: none), for the hint */
    /* tasks (runtime/vm/tasks.h) */
    int task;            /* the task executing (-1: no scheduler; a drain then waits for every device) */
    int others;          /* other running tasks and enabled interrupts: a wait on an EVENT can still end */
    int owner[SAMPLE_MAX_DEVICES];           /* the task whose motion a device has queued (-1: none) */
    SampleSrc owner_src[SAMPLE_MAX_DEVICES]; /* that task's last motion statement on the device */
    int fail_dev;        /* set by the cycle with fail_src: the device whose motion failed (-1: unknown) */
    int in_cond;         /* an INTERRUPT's condition is being evaluated at a cycle boundary: inputs and $TIME are
                          * read as they are, without stopping look-ahead; nothing else may run */
    /* path-triggered I/O (exec/triggers.h) */
    Trigger trig[MOTION_TRIGGERS];
    int trig_hi;         /* slots from trig_hi on are free: the cycle scans none when no TRIGGER was armed */
    Value *vars;         /* the program-level VARs a TRIGGER may assign (the VM's first nvars slots) */
    int nvars;
} Motion;

/* motion_execute's result when an interrupt's handler ran while the statement waited: the task continues after
 * the statement (the VM skips to its end). */
#define MOTION_SKIPPED (-1000000)

/* Set up the planners and GMOVE queues of every device. 0, or < 0 with a message in err. */
int motion_init(Motion *m, const Chunk *c, Devices *devs, Value *sys, double dt, double time_scale, char *err,
                size_t errlen);
/* The units of the messages: revolute quantities in degrees when `degrees` (--display deg), else in rad. */
void motion_display(Motion *m, int degrees);
void motion_free(Motion *m);

/* Executes one motion statement. Returns 0, or an error code (errcodes.h) with a message in msg; a negative
 * code (-IRL_ERR_*) comes from the clock and ends the run past any ON ERROR handler (a time bound, an
 * interrupt: exec_offline.h). */
int motion_execute(Motion *m, MotionKind kind, Value *args, int nargs, char *msg, size_t msglen);
/* Where the error motion_execute just returned belongs, when not at the executing statement: the pc of the
 * statement whose motion failed in a cycle (a LIN's IK failing while the program runs ahead), else -1. Read once. */
int motion_error_pc(Motion *m);

/* Segments queued and not finished, over all devices (0: everything at its programmed point). */
size_t motion_pending(const Motion *m);
/* Stop look-ahead and run cycles until every queue is empty and every bound TRIGGER has fired. 0 or an error
 * code with msg. */
int motion_drain(Motion *m, char *msg, size_t msglen);

/* The TCP of device d in the program's frame, INV($BASE) @ model pose @ $TOOL, from the model's tool-point pose
 * mp (x y z qw qx qy qz, model base frame), with the frames segment seg_id was planned with (the program's
 * current ones when seg_id is 0 or no longer known). tool: that $TOOL's offset (flange frame, for the TCP's
 * speed). The first stage of the cycle calls it (the producer's thread). */
void motion_tcp_pose(const Motion *m, int d, int seg_id, const double mp[7], double tcp[7], double tool[3]);

/* Consumer side of a device's GMOVE timeline at absolute time t: 1 when the device follows it (out and *src
 * filled), 0 when the device follows the planner, < 0 (GMOVE_E*) when sampling failed. */
int motion_gmove_sample(MotionGmove *gm, double t, GmoveSample *out, SampleSrc *src);

#endif
