/* ode_control.h — the step-size control of the closed loop's ODE driver: GSL's standard rule with a_y = 1,
 * a_dydt = 0 (gsl_odeiv2_control_y_new), its pow taken from models/dmath.h. GSL's own control calls libm's pow,
 * whose FMA form gives other last bits than its baseline form on some inputs: a step size, and from it the whole
 * integrated trajectory, would then depend on the CPU. */
#ifndef IRL_ODE_CONTROL_H
#define IRL_ODE_CONTROL_H

#include <gsl/gsl_odeiv2.h>

/* Replace the driver's control by this one, with local error bounds epsabs + epsrel |y_i|. GSL status. */
int ode_control_install(gsl_odeiv2_driver *d, double epsabs, double epsrel);

#endif
