/* ode_control.c — the closed loop's step-size control (ode_control.h): the rule of GSL's manual for its standard
 * control. With D_i = epsabs + epsrel |y_i| and E the largest |yerr_i| / D_i of a step of a method of order q: E above
 * 1.1 shrinks the step to h S E^(-1/q), E below 0.5 grows it to h S E^(-1/(q+1)), S = 0.9, by a factor within
 * [1/5, 5] that never shrinks a step that was good enough. */
#include "plant/ode_control.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "dmath.h"

typedef struct {
    double epsabs, epsrel;
} OdeControl;

static void *control_alloc(void) { return calloc(1, sizeof(OdeControl)); }

static void control_free(void *st) { free(st); }

/* a_y and a_dydt are the rule's weights of |y| and |h y'|: this control has 1 and 0. */
static int control_init(void *st, double epsabs, double epsrel, double a_y, double a_dydt)
{
    if (!(epsabs >= 0) || !(epsrel >= 0) || a_y != 1 || a_dydt != 0) return GSL_EINVAL;
    OdeControl *c = st;
    c->epsabs = epsabs, c->epsrel = epsrel;
    return GSL_SUCCESS;
}

static int control_hadjust(void *st, size_t dim, unsigned int ord, const double y[], const double yerr[],
                           const double yp[], double *h)
{
    (void)yp;
    const OdeControl *c = st;
    const double safety = 0.9;
    double e = DBL_MIN;
    for (size_t i = 0; i < dim; i++) e = fmax(e, fabs(yerr[i]) / fabs(c->epsrel * fabs(y[i]) + c->epsabs));
    if (e > 1.1) {
        *h *= fmax(safety / dm_pow(e, 1.0 / ord), 0.2);
        return GSL_ODEIV_HADJ_DEC;
    }
    if (e < 0.5) {
        *h *= fmin(fmax(safety / dm_pow(e, 1.0 / (ord + 1.0)), 1.0), 5.0);
        return GSL_ODEIV_HADJ_INC;
    }
    return GSL_ODEIV_HADJ_NIL;
}

/* The error level D_i of one component (GSL's implicit steppers ask for it). */
static int control_errlevel(void *st, const double y, const double dydt, const double h, const size_t ind,
                            double *errlev)
{
    (void)dydt, (void)h, (void)ind;
    const OdeControl *c = st;
    *errlev = c->epsrel * fabs(y) + c->epsabs;
    return *errlev > 0 ? GSL_SUCCESS : GSL_ESANITY;
}

static int control_set_driver(void *st, const gsl_odeiv2_driver *d)
{
    (void)st, (void)d;
    return GSL_SUCCESS;
}

static const gsl_odeiv2_control_type ode_control_type = {
    "irl-standard-y", control_alloc, control_init, control_hadjust, control_errlevel, control_set_driver, control_free,
};

int ode_control_install(gsl_odeiv2_driver *d, double epsabs, double epsrel)
{
    gsl_odeiv2_control *c = gsl_odeiv2_control_alloc(&ode_control_type);
    if (!c) return GSL_ENOMEM;
    int st = gsl_odeiv2_control_init(c, epsabs, epsrel, 1.0, 0.0);
    if (st == GSL_SUCCESS) st = gsl_odeiv2_control_set_driver(c, d);
    if (st != GSL_SUCCESS) {
        gsl_odeiv2_control_free(c);
        return st;
    }
    gsl_odeiv2_control_free(d->c);
    d->c = c;
    return GSL_SUCCESS;
}
