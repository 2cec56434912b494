/* controller.h — the closed-loop dry-run's joint controllers, run once per cycle on the simulated state:
 *
 *   computed-torque PD   a = q̈_r + Kd ė + Kp e,   τ = M(q) a + h(q, q̇)   (= the model's inverse dynamics at a)
 *   independent-joint PID  τ = Kp e + Kd ė + z,  z += Ki e Δt   (no model; anti-windup by conditional integration)
 *
 * with e = q_r − q, ė = q̇_r − q̇ per axis (r: the planner's setpoint). The gains are per axis; their units
 * differ by controller: computed-torque Kp in 1/s², Kd in 1/s (they act on an acceleration, the model supplies
 * the inertia); PID Kp in Nm/rad (N/m), Kd in Nm s/rad, Ki in Nm/(rad s).
 *
 * Default gains (controller_gains_default), from one bandwidth ω (CONTROLLER_OMEGA unless given, and never above
 * 0.1/cycle so the sampled loop stays close to the continuous one):
 *   computed torque  Kp = ω², Kd = 2ω, Ki = 0: each axis's error obeys ë + 2ω ė + ω² e = 0, critically damped,
 *                    e(t) = (e0 + (ė0 + ω e0) t) e^{−ωt};
 *   PID              Kp = 3Jω², Kd = 3Jω, Ki = Jω³: the closed loop of J q̈ = τ has a triple pole at −ω; J is the
 *                    axis's own inertia at the home position, M_jj(q_home) + N² Jr (rotor reflected through the
 *                    gear where the machine gives a motor).
 * Nothing here allocates after controller_init. */
#ifndef IRL_CONTROLLER_H
#define IRL_CONTROLLER_H

#include "model.h"

#define CONTROLLER_OMEGA 20.0 /* default closed-loop bandwidth, rad/s */

typedef enum { CONTROLLER_CT, CONTROLLER_PID } ControllerKind;

/* Gains for the closed-loop engine, one entry per axis; the executor fills it from --kp/--kd/--ki or from
 * controller_gains_default. */
typedef struct {
    ControllerKind kind;
    int n;                   /* axes */
    double omega;            /* the bandwidth the defaults were derived from, rad/s (information) */
    double kp[MODEL_MAX_DOF];
    double kd[MODEL_MAX_DOF];
    double ki[MODEL_MAX_DOF]; /* PID only */
} ClosedLoopGains;

typedef struct {
    ClosedLoopGains g;
    Model *m;                  /* borrowed */
    int n;
    double cycle;              /* s: the integrator's Δt */
    double effort[MODEL_MAX_DOF]; /* PID integrator clamp (the axis's effort limit, INFINITY when none) */
    double e[MODEL_MAX_DOF], ed[MODEL_MAX_DOF]; /* this cycle's errors */
    double a[MODEL_MAX_DOF];   /* computed torque: the commanded acceleration */
    double z[MODEL_MAX_DOF];   /* PID integral term, a torque */
    double dz[MODEL_MAX_DOF];  /* this cycle's integrator increment (undone by anti-windup) */
} Controller;

/* Default gains for `kind` on model m at bandwidth omega (<= 0: CONTROLLER_OMEGA), capped at 0.1/cycle.
 * 0, or < 0 (MODEL_E*) when the model's inverse dynamics fails. */
int controller_gains_default(ClosedLoopGains *g, Model *m, ControllerKind kind, double omega, double cycle);
/* Parse "v" (every axis) or "v1,v2,...,vn" (exactly n values) into v[0..n-1]. 0, or -1 (v unchanged). */
int controller_parse_list(const char *s, double *v, int n);

/* Set up a controller (copies the gains). 0, or MODEL_EINVAL (gain count differs from the model's axes,
 * negative or non-finite gains, cycle <= 0). */
int controller_init(Controller *c, Model *m, const ClosedLoopGains *g, double cycle);
/* PID: start the integrator at tau_hold (bumpless start of a machine that was holding its pose). */
void controller_preload(Controller *c, const double *tau_hold);
/* One cycle: errors and the torque demand tau[0..n-1] from the state (q, qd) and the setpoint (qr, qdr, qddr).
 * 0, or MODEL_E* from the model (computed torque). */
int controller_update(Controller *c, const double *q, const double *qd, const double *qr, const double *qdr,
                      const double *qddr, double *tau);
/* Anti-windup: axis j's actuator clipped this cycle's demand, in torque direction sat (+1 up, −1 down). When
 * the error pushes further into the limit, this cycle's integration is undone. */
void controller_saturated(Controller *c, int j, int sat);

#endif
