/* closed_loop.h — the closed-loop dry-run engine (`irl run --closed-loop`): the machine simulated following
 * the planner's setpoints, one cycle at a time.
 *
 * Plant. State y = (q, q̇, i): every joint's position and speed, plus the armature current of each joint with a
 * DC motor of nonzero inductance (actuator.h, seed 002 eq. 2.2). The rigid body is the model's
 *   (M(q) + D) q̈ + h(q, q̇) = τ,   D = diag(N² Jr) on motored axes,
 * where the model's h (model_bias, model_forward_dynamics) includes the machine file's joint friction τ_f(q̇)
 * (model.h, ModelFriction); the config's viscous/coulomb below are an extra plant friction on top (tests),
 *   τ_j = N kt i_j (motored) | the held torque (no motor, clipped at ±effort) | 0 (powered = 0)
 *         − viscous_j q̇_j − coulomb_j tanh(q̇_j / CLOSED_LOOP_COULOMB_V) + an external disturbance (tests),
 * integrated by GSL's odeiv2 driver (rk8pd by default, or rkf45) with adaptive steps inside each cycle, steps
 * never longer than the cycle, to the local error tolerance |err_k| ≤ epsabs + epsrel |y_k| per step
 * (defaults CLOSED_LOOP_EPSABS, CLOSED_LOOP_EPSREL). Without reflected rotor inertia the model's own
 * forward_dynamics is used; with it, M and h and a Cholesky solve here.
 *
 * Controller (controller.h) at the cycle rate, zero-order hold over the cycle: at t_k it reads the state and the
 * setpoint of cycle k and computes a joint-torque demand τ*. Axes without a motor hold τ* (clipped at the
 * effort limit). Motored axes turn τ* into a current demand i* = (τ* + [CT: N² Jr a + friction(q̇)]) / (N kt),
 * then into the voltage that reaches i* at the end of the cycle (actuator_voltage_for_current), clipped at
 * ±vmax and held. Every clipped cycle is a saturation: counted per axis and collected into events (runs of
 * consecutive clipped cycles) for the report.
 *
 * Continuous controller (ClosedLoopConfig.continuous, `--controller-rate continuous`): the controller is
 * evaluated inside the ODE's right-hand side at every stage of every step, on the setpoint interpolated between
 * two cycles by the quintic that matches position, speed and acceleration at both ends (exact for a polynomial of
 * degree 5; for a smooth reference its error is O(Δt⁶)). Step k (k ≥ 1) then integrates [t_k−1, t_k] from the
 * previous setpoint (closed_loop_set_reference, else the last step's) to this one; its outputs refer to t_k, the
 * end of the interval, and step 0's to the start. Computed-torque control of torque-driven axes only (a PID's integrator and a motor's voltage
 * are sampled by nature).
 *
 * Start: at (q0, q̇0), in equilibrium: currents, and the PID integrator, hold the torque ID(q0, q̇0, 0) (+ the
 * friction at q̇0), as a machine that was holding its pose before the program started.
 *
 * Outputs of a step (ClosedLoopOut, valid after closed_loop_step until the next one) all refer to the cycle's
 * start time t_k, the same instant as the setpoint that was passed: actual q, q̇; error e = q_r − q; the
 * torque demand; the voltage held over [t_k, t_k+1) and the current at t_k (NAN on axes without a motor).
 *
 * Memory: closed_loop_init allocates the GSL driver; steps allocate nothing. No printing in the step. */
#ifndef IRL_CLOSED_LOOP_H
#define IRL_CLOSED_LOOP_H

#include <stddef.h>
#include <stdio.h>

#include <gsl/gsl_odeiv2.h>

#include "plant/actuator.h"
#include "plant/controller.h"
#include "model.h"

#define CLOSED_LOOP_EPSABS 1e-9    /* default absolute local error per step (rad, rad/s, A) */
#define CLOSED_LOOP_EPSREL 1e-9    /* default relative local error per step */
#define CLOSED_LOOP_COULOMB_V 1e-3 /* rad/s (m/s): Coulomb friction smoothed as tanh(q̇ / this) */
#define CLOSED_LOOP_MAX_EVENTS 256 /* saturation events kept; more are counted */

enum { CLOSED_LOOP_EODE = -20 }; /* the ODE solver failed (a MODEL_E* code < 0 is the model's) */

/* Options; a zeroed struct (or NULL) gives the defaults. */
typedef struct {
    double cycle;                    /* s; required (> 0) */
    const char *stepper;             /* "rk8pd" (NULL) or "rkf45" */
    double epsabs, epsrel;           /* <= 0: the defaults above */
    int no_motors;                   /* 1: ignore the machine's motors, every powered axis is torque-driven */
    double viscous[MODEL_MAX_DOF];   /* joint viscous friction, Nm s/rad (N s/m); 0 = none */
    double coulomb[MODEL_MAX_DOF];   /* joint Coulomb friction, Nm (N); 0 = none */
    int continuous;                  /* 1: the controller acts inside the ODE (see the header comment) */
} ClosedLoopConfig;

/* How an axis is driven. */
typedef enum { CL_AXIS_TORQUE, CL_AXIS_MOTOR, CL_AXIS_PASSIVE } ClosedLoopAxisKind;

/* The per-cycle results (see the header comment). */
typedef struct {
    double t;                     /* t_k */
    double q[MODEL_MAX_DOF], qd[MODEL_MAX_DOF];  /* actual */
    double e[MODEL_MAX_DOF], ed[MODEL_MAX_DOF];  /* q_r − q, q̇_r − q̇ */
    double tau[MODEL_MAX_DOF];    /* controller's torque demand τ* */
    double u[MODEL_MAX_DOF];      /* held voltage, V (NAN: no motor) */
    double i[MODEL_MAX_DOF];      /* current at t_k, A (NAN: no motor) */
    int sat[MODEL_MAX_DOF];       /* +1 / −1: clipped at the upper / lower limit this cycle, 0: not */
    int nsat;                     /* axes clipped this cycle */
} ClosedLoopOut;

/* A run of consecutive cycles in which one axis's command was clipped. */
typedef struct {
    int axis;          /* 0-based */
    int voltage;       /* 1: motor voltage at ±vmax; 0: torque at ±effort */
    double t_start, t_end; /* first and last clipped cycle */
    long cycles;
    double worst;      /* the largest |demand| before clipping (V or Nm) */
    double worst_t;
    double limit;
} ClosedLoopSatEvent;

/* Run statistics. */
typedef struct {
    long cycles;
    double emax[MODEL_MAX_DOF], emax_t[MODEL_MAX_DOF]; /* peak |e| and when */
    double umax[MODEL_MAX_DOF], imax[MODEL_MAX_DOF];   /* peak |u|, |i| (motored axes) */
    long sat_cycles[MODEL_MAX_DOF];
    ClosedLoopSatEvent ev[CLOSED_LOOP_MAX_EVENTS];
    int nev;
    long ev_dropped;
    int open[MODEL_MAX_DOF];    /* index of the axis's open event, -1 none */
    long rhs_evals;             /* ODE right-hand sides evaluated */
    long steps, failed_steps;   /* accepted and rejected adaptive steps */
} ClosedLoopStats;

typedef struct ClosedLoop {
    Model *m;                     /* borrowed, must outlive the engine */
    int n, ny;                    /* axes; state size 2n + currents */
    double cycle;
    long k;                       /* cycles done */
    Controller ctl;
    ClosedLoopConfig cfg;
    ClosedLoopAxisKind kind[MODEL_MAX_DOF];
    Actuator act[MODEL_MAX_DOF];
    int icur[MODEL_MAX_DOF];      /* index of the axis's current in y, -1: none (no motor, or L = 0) */
    double D[MODEL_MAX_DOF];      /* reflected rotor inertia per axis */
    int own_solve;                /* 1: (M + D) q̈ = τ − h solved here */
    double y[3 * MODEL_MAX_DOF];
    double u_hold[MODEL_MAX_DOF], tau_hold[MODEL_MAX_DOF], dist[MODEL_MAX_DOF];
    double M[MODEL_MAX_DOF * MODEL_MAX_DOF], h[MODEL_MAX_DOF], tj[MODEL_MAX_DOF], qdd[MODEL_MAX_DOF];
    double tau_cmd[MODEL_MAX_DOF];
    double ref[3][MODEL_MAX_DOF];     /* continuous: the setpoint (q, q̇, q̈) at the start of the next interval */
    double rc[6][MODEL_MAX_DOF];      /* continuous: the interval's quintic, coefficients of (t − t0)^0..5 */
    double rt0;                       /* continuous: the interval's start time */
    int started;                      /* continuous: the first step (at the start, nothing to integrate) is done */
    int rhs_status;               /* MODEL_E* from the last failed right-hand side */
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver *drv;
    ClosedLoopOut out;
    ClosedLoopStats stats;
} ClosedLoop;

/* Set up the engine for model m with gains g (g->n == m->dof) from the state (q0, qd0) at t = 0 (qd0 NULL:
 * at rest). cfg NULL or zeroed fields: defaults, but cfg->cycle is required. 0, or < 0 with a message in err
 * (then nothing is left allocated). */
int closed_loop_init(ClosedLoop *cl, Model *m, const ClosedLoopGains *g, const ClosedLoopConfig *cfg,
                     const double *q0, const double *qd0, char *err, size_t errlen);
/* One cycle: the controller reads the state at t_k = k·cycle and the setpoint (qr, qdr, qddr) of that instant,
 * the plant is integrated to t_k+1. Fills cl->out. 0, or < 0 (MODEL_E*, CLOSED_LOOP_EODE). */
int closed_loop_step(ClosedLoop *cl, const double *qr, const double *qdr, const double *qddr);
/* Continuous controller: the setpoint (qr, qdr, qddr) at the plant's present time, the start of the next
 * interval (the engine starts with its q0 at rest; a reference that starts moving there says so here). */
void closed_loop_set_reference(ClosedLoop *cl, const double *qr, const double *qdr, const double *qddr);
/* One cycle open loop (tests, and the motor alone): hold input[j] — a voltage on motored axes, a torque on the
 * others (clipped at effort) — over the cycle. Fills cl->out with e = 0. */
int closed_loop_step_open(ClosedLoop *cl, const double *input);
/* An external joint torque added to the plant from now on (NULL: none). For tests of disturbance rejection. */
void closed_loop_set_disturbance(ClosedLoop *cl, const double *tau_ext);
void closed_loop_free(ClosedLoop *cl);

/* Trace channels: "qa" (actual position) and "e" (tracking error) for every axis, then "u" (voltage) and "i"
 * (current) for every axis when the machine has at least one motor (NAN on the axes without). Channel k's
 * column name is "<dev>.<group><axis>" (e.g. "arm.qa1", "arm.e1", "arm.u1", "arm.i1"). */
int closed_loop_channel_count(const ClosedLoop *cl);
void closed_loop_channel_name(const ClosedLoop *cl, const char *dev, int k, char *buf, size_t len);
/* This cycle's values of every channel, in channel order (call after a step). */
void closed_loop_channel_values(const ClosedLoop *cl, double *v);

/* A summary for people: peak tracking error per axis (revolute axes in degrees when `degrees`, output/display.h),
 * saturation events, integrator work. */
void closed_loop_report(const ClosedLoop *cl, const char *dev, int degrees, FILE *f);
const char *closed_loop_strerror(int status);

#endif
