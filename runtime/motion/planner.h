/* planner.h — the motion planner: a fixed-capacity queue of time-parameterised segments
 * (PTP, LIN, CIRC) filled by the program side and sampled every cycle by an executor (offline: a virtual
 * clock; online: a real-time thread). See docs/MOTION.md.
 *
 * Two sides, one queue. The producer (the VM's motion door) calls planner_push_* / planner_flush; the consumer
 * (the executor's cycle) calls planner_sample. The queue is a single-producer/single-consumer ring of segments
 * with two atomic indices: a segment is planned completely (profiles, geometry, limits, blend overlap) in its
 * slot before the producer publishes it, and is never written again; the consumer only reads published
 * segments and keeps its own per-cycle state (start times, IK seeds) outside the ring. So the producer and the
 * consumer may run in two threads, provided each side has its own Model (IK and FK use the model's
 * workspace): PlannerConfig.model is the cycle's, PlannerConfig.plan_model the producer's.
 *
 * The producer side is planner.c (with the blend checks of planner_blend.c), the consumer side interpolator.c;
 * the segment and its path pose are path.h's. Nothing in planner_sample allocates, prints or blocks; everything
 * is allocated by planner_init. */
#ifndef IRL_PLANNER_H
#define IRL_PLANNER_H

#include <stdatomic.h>
#include <stddef.h>

#include "model.h"
#include "motion/interpolator.h"
#include "motion/path.h"
#include "motion/planner_blend.h"

enum {
    PLANNER_OK = 0,
    PLANNER_IDLE = 1,        /* planner_sample: nothing is moving (the setpoint holds the last position) */
    PLANNER_EFULL = -1,      /* push: the queue is full; run the cycle and push again */
    PLANNER_EINVAL = -2,     /* bad argument (NaN target, wrong axis count, ...) */
    PLANNER_EIK = -3,        /* inverse kinematics failed (push: while pre-sampling the path; sample: in a cycle) */
    PLANNER_ENOMODEL = -4,   /* a Cartesian move without a model that offers IK and FK */
    PLANNER_EGEOM = -5,      /* CIRC: start, via and target collinear or coincident */
};

/* The WITH parameters of one MOVE, already resolved against the modal defaults by the caller. A value <= 0 (or
 * NaN) means "not given": speeds and accelerations then take the configuration's defaults (PTP: 100 %), TIME
 * none, approximation none (exact stop). */
typedef struct {
    double speed;       /* LIN/CIRC path speed, m/s ($SPEED, SPEED) */
    double speed_ori;   /* LIN/CIRC rotation speed, rad/s (SPEED_ORI) */
    double acc;         /* LIN/CIRC path acceleration, m/s^2 ($ACC, ACC) */
    double speed_ptp;   /* PTP: fraction of every axis' speed limit, (0, 1] (SPEED_PTP := 50 % gives 0.5) */
    double acc_ptp;     /* PTP: fraction of every axis' acceleration and jerk limits (ACC_PTP) */
    double time;        /* requested duration, s (TIME); the move is stretched to it, never shortened below
                           its minimum */
    double approx;      /* LIN/CIRC: blend when the remaining path is shorter than this, m (APPROX) */
    double approx_ptp;  /* PTP: blend over this fraction of the half move, [0, 1] (APPROX_PTP) */
    int ik_target;      /* PTP: 1 when the target is a pose solved by IK; its singularity proximity is checked */
    double sing_target; /* ... the singularity measure at that solution */
} PlannerParams;

/* What the planner did with a request, for the check report. */
enum {
    PLANNER_LOWERED_SPEED = 1,  /* Cartesian speed/acceleration lowered to respect the joint limits */
    PLANNER_LOWERED_TIME = 2,   /* TIME below the minimum: the move takes its minimum time */
    PLANNER_LOWERED_APPROX = 4, /* the blend with the previous segment was shortened to respect the limits */
    PLANNER_LOWERED_ACC = 8,    /* acceleration and jerk (ACC, ACC_PTP) lowered so the blend keeps the limits */
};

/* On a device with IK, a PTP with an approximation zone, and a PTP blending into one, plan their jerk at
 * 1 - PLANNER_JERK_RESERVE of every limit: the predecessor's last jerk ramp and the successor's first (of the same sign where an axis keeps its
 * direction) may coincide in the overlap, and a LIN/CIRC successor needs room too (docs/MOTION.md §2). */
#define PLANNER_JERK_RESERVE 0.5

/* Why a blend was shortened: the first limit the longest overlap o would break, at overlap time tau. */
typedef struct {
    int axis;            /* 0-based; -1: not known (a blend with a Cartesian segment) */
    int qty;             /* 0: speed, 1: acceleration, 2: jerk */
    double value, limit; /* the blended sum and the axis limit, in the axis's units (rad or m, per s^k) */
    double o, tau;       /* s */
} PlannerBlendWhy;

typedef struct {
    int id;              /* segment number, from 1 */
    PlannerKind kind;    /* the segment's kind */
    double duration;     /* s */
    double overlap;      /* s of blending with the previous segment (if the cycle reaches it in time) */
    int lowered;         /* PLANNER_LOWERED_* bits */
    double speed_req;    /* LIN/CIRC: requested path speed, m/s (after defaults) */
    double speed_max;    /* LIN/CIRC: the path speed allowed by the joint limits along the path, m/s */
    double time_req;     /* requested TIME, s (0: none) */
    double acc_req, acc_applied; /* PLANNER_LOWERED_ACC: ACC (m/s^2) or ACC_PTP (fraction) before and after */
    /* PLANNER_LOWERED_APPROX: the predecessor's approximation (APPROX in m, or APPROX_PTP as a fraction when
     * approx_ptp), requested and applied, and the predecessor's statement (whose request it is) */
    double approx_req, approx_applied;
    int approx_ptp;
    PlannerSrc approx_src;
    PlannerBlendWhy approx_why;
} PlannerPushInfo;

/* The speed and acceleration an axis is planned with when its machine file gives none (rad/s, rad/s^2 or m/s,
 * m/s^2); the report says so (output/report.c). They shape each segment but limit no blend (docs/MOTION.md §3). */
#define PLANNER_DEFAULT_AXIS_VMAX 1.0
#define PLANNER_DEFAULT_AXIS_AMAX 5.0

typedef struct {
    int dof;                                   /* axes, 1..PLANNER_MAX_AXES */
    ModelAxisLimits limits[PLANNER_MAX_AXES];  /* per axis; INFINITY speed/acc limits take the defaults below */
    Model *model;        /* the cycle's model (IK/FK every cycle); NULL: PTP only */
    Model *plan_model;   /* the producer's model; NULL: the same as model (one thread only) */
    int capacity;        /* segments in the queue, >= 2 */
    double dt;           /* cycle time, s: the finite-difference step for Cartesian joint speeds */
    double q_start[PLANNER_MAX_AXES];          /* initial position */
    /* defaults (all > 0) */
    double axis_vmax, axis_amax;   /* for axes whose limit is INFINITY (jerk INFINITY is allowed: trapezoid) */
    double speed, speed_ori, acc;  /* LIN/CIRC when the request gives none */
    double acc_ori;                /* rad/s^2 */
    double jerk, jerk_ori;         /* LIN/CIRC path jerk, m/s^3 and rad/s^3 */
    int pose_every_cycle;          /* also give the pose (by FK) during PTP moves and blends */
} PlannerConfig;

typedef struct Planner {
    PlannerConfig cfg;
    PlannerSegment *ring;          /* capacity segments */
    atomic_size_t head;            /* next slot the producer publishes (written by the producer only) */
    atomic_size_t tail;            /* the segment being executed (written by the consumer only) */
    /* producer side */
    double q_end[PLANNER_MAX_AXES], pos_end[3], quat_end[4];
    int have_pose_end;
    int no_blend;                  /* set by planner_flush: the next segment starts from rest */
    int has_tool;                  /* planner_set_tool: the tool the next pushes carry (0: the identity) */
    double tool[7];
    int next_id;
    char err[256];                 /* message of the last failed push */
    PlannerBlendWork *blend;       /* scratch of the blend check with Cartesian segments (NULL: PTP only) */
    /* consumer side */
    PlannerSlot main, next;        /* the current segment and the one blending in */
    int zone_decided;              /* the blend decision for main has been taken */
    double q_hold[PLANNER_MAX_AXES];
    double t_last;
    PlannerSrc fault_src;
    int fault;                     /* < 0: a cycle IK failure holds the planner */
    long resets;                   /* planner_reset calls so far: what was queued before one never runs */
} Planner;

/* Fill a configuration with defaults (limits INFINITY, capacity 64, dt 1 ms, speeds 0.2 m/s, 1 rad/s, ...). */
void planner_config_init(PlannerConfig *c, int dof);
/* Copy limits and start position from a model description (axes limits and home). */
void planner_config_from_model(PlannerConfig *c, Model *m);
/* Allocate the queue. Returns PLANNER_OK or < 0 (message in p->err). */
int planner_init(Planner *p, const PlannerConfig *cfg);
void planner_free(Planner *p);

/* --- producer side --- */
int planner_push_ptp(Planner *p, const double *q_target, const PlannerParams *par, PlannerSrc src,
                     PlannerPushInfo *info);
int planner_push_lin(Planner *p, const double pos[3], const double quat[4], const PlannerParams *par,
                     PlannerSrc src, PlannerPushInfo *info);
int planner_push_circ(Planner *p, const double via[3], const double pos[3], const double quat[4],
                      const PlannerParams *par, PlannerSrc src, PlannerPushInfo *info);
/* SPLINE (docs/MOTION.md §7): a path through npts Cartesian points (x y z qw qx qy qz: the TCP in the model's
 * base, as planner_push_lin's target), or through npts joint positions (JOINT SPLINE), from where the last segment
 * ends; it starts and ends at rest (no blend either side). */
int planner_push_spline(Planner *p, int npts, const double (*pts)[7], const PlannerParams *par, PlannerSrc src,
                        PlannerPushInfo *info);
int planner_push_jspline(Planner *p, int npts, const double (*q)[PLANNER_MAX_AXES], const PlannerParams *par,
                         PlannerSrc src, PlannerPushInfo *info);
/* Stop look-ahead: the last pushed segment ends at rest (WAIT, reading an input or the actual position). */
void planner_flush(Planner *p);
/* The TCP of the next pushed segments: its pose x y z qw qx qy qz in the model's tool frame ($TOOL). A LIN or
 * CIRC moves this TCP on its line or circle at its path speed; a segment keeps the tool it was pushed with.
 * The identity (the default) leaves every computation as without a tool. */
void planner_set_tool(Planner *p, const double tool[7]);
/* Segments published and not yet finished by the cycle (0: the machine is at rest at the last target). */
size_t planner_pending(const Planner *p);
/* The programmed end of the last pushed segment (for MOVE_INC and the next segment's start). pos/quat may be
 * NULL; returns 1 when a pose is known. */
int planner_last_target(const Planner *p, double *q, double *pos, double *quat);
/* The segment the last successful push published (producer side; NULL before the first). It stays valid until
 * the next push. */
const PlannerSegment *planner_last_pushed(const Planner *p);
/* Message of the last failed push. */
const char *planner_error(const Planner *p);

/* Drop every queued segment and hold at q (after an error or a stop; both sides must be quiet). */
void planner_reset(Planner *p, const double *q);

#endif
