/* actuator.c — DC motor with gearbox (seed 002 eq. 2.2, ERRATA V1): electrical equation, joint torque,
 * inverse model with voltage saturation. */
#include "plant/actuator.h"

#include <math.h>

#include "dmath.h"

/* Copy a machine file's motor into an actuator, with the defaults the header describes. */
int actuator_from_model(Actuator *a, const ModelMotor *m)
{
    a->R = m->resistance;
    a->L = m->inductance;
    a->kt = m->kt;
    a->ke = m->ke;
    a->N = m->gear != 0 ? m->gear : 1.0;
    a->Jr = m->rotor_inertia;
    a->vmax = (m->vmax > 0 && isfinite(m->vmax)) ? m->vmax : INFINITY;
    if (!(a->R > 0) || !(a->kt != 0) || !(a->L >= 0) || !isfinite(a->ke) || !(a->Jr >= 0)) return MODEL_EINVAL;
    return MODEL_OK;
}

/* L di/dt = u − R i − ke N q̇ */
double actuator_didt(const Actuator *a, double u, double i, double qd)
{
    return (u - a->R * i - a->ke * a->N * qd) / a->L;
}

/* i = (u − ke N q̇)/R when L = 0 */
double actuator_current_static(const Actuator *a, double u, double qd)
{
    return (u - a->ke * a->N * qd) / a->R;
}

/* N kt i */
double actuator_torque(const Actuator *a, double i) { return a->N * a->kt * i; }

/* N² Jr */
double actuator_reflected_inertia(const Actuator *a) { return a->N * a->N * a->Jr; }

/* With u held, i(h) = i_ss + (i0 − i_ss) e^{−h R/L}, i_ss = (u − ke N q̇)/R. Solve i(h) = i_target for i_ss,
 * then u = R i_ss + ke N q̇. A deadbeat current loop: the current error after one cycle is zero (given the
 * speed), and the map from i0 to i(h) has slope 0, so it cannot ring. (Aiming at the cycle's *mean* current
 * instead gives a slope near −1 when L/R is several cycles long: ringing.) */
double actuator_voltage_for_current(const Actuator *a, double i_target, double i0, double qd, double h)
{
    double iss = i_target;
    if (a->L > 0) {
        double decay = dm_exp(-h * a->R / a->L);
        iss = (i_target - i0 * decay) / (1.0 - decay);
    }
    return a->R * iss + a->ke * a->N * qd;
}

/* Clip to ±vmax. */
double actuator_saturate(const Actuator *a, double u, int *sat)
{
    *sat = 0;
    if (u > a->vmax) *sat = 1, u = a->vmax;
    else if (u < -a->vmax) *sat = -1, u = -a->vmax;
    return u;
}
