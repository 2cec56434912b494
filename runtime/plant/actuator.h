/* actuator.h — the DC motor with gearbox of seed 002 (eq. 2.2 with ERRATA V1: a 3rd-order state q, q̇, i per
 * powered joint), its electrical equation, the torque it delivers to the joint, and the inverse model that
 * turns a joint-torque demand into a voltage command with saturation |u| ≤ vmax.
 *
 *   L di/dt = u − R i − ke N q̇          (armature; ke N q̇ is the back-EMF at the motor shaft speed N q̇)
 *   τ_joint = N kt i − N² Jr q̈          (motor torque through the gear; the rotor's reflected inertia)
 *
 * N is the gear ratio (joint speed = motor speed / N; 0 in a description means 1; a negative N reverses the
 * motor). Joint friction is not the motor's: closed_loop.c adds it. L = 0 is allowed: the current is then
 * algebraic, i = (u − ke N q̇)/R, and not a state. A voltage limit vmax ≤ 0 or not finite means "no limit".
 * Everything here is a pure function of its arguments: no allocation, no state. */
#ifndef IRL_ACTUATOR_H
#define IRL_ACTUATOR_H

#include "model.h"

typedef struct {
    double R, L, kt, ke, N, Jr; /* ohm, H, Nm/A, V s/rad, gear ratio, kg m² (motor shaft) */
    double vmax;                /* V; INFINITY = no limit */
} Actuator;

/* Copy a machine file's motor into an actuator (gear 0 -> 1, vmax <= 0 -> INFINITY). < 0 when the motor
 * cannot work (R <= 0, kt == 0, L < 0). */
int actuator_from_model(Actuator *a, const ModelMotor *m);

/* di/dt for voltage u, current i, joint speed qd (L > 0). */
double actuator_didt(const Actuator *a, double u, double i, double qd);
/* The current when L = 0: (u − ke N q̇)/R. */
double actuator_current_static(const Actuator *a, double u, double qd);
/* Torque delivered to the joint by current i, before the rotor inertia term: N kt i. */
double actuator_torque(const Actuator *a, double i);
/* The rotor's inertia seen at the joint: N² Jr. */
double actuator_reflected_inertia(const Actuator *a);

/* Inverse model: the voltage to hold for h seconds so that the current goes from i0 to i_target by the end
 * of the hold, the joint speed qd taken as constant over it (exact solution of the electrical equation with a
 * held voltage: deadbeat in one cycle). For L = 0 this is R i_target + ke N q̇. Not saturated. */
double actuator_voltage_for_current(const Actuator *a, double i_target, double i0, double qd, double h);
/* Clip u to ±vmax; *sat = +1 / −1 when clipped at the upper / lower limit, 0 otherwise. */
double actuator_saturate(const Actuator *a, double u, int *sat);

#endif
