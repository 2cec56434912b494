/* passive.c — the passive joints' motion in the open-loop dry-run (passive.h): the semi-inverse problem
 * integrated along the planned motion of the powered joints, with fixed steps of GSL's rk8pd. */
#include "plant/passive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

struct PassiveJoints {
    Model *m;
    int n, np, na;               /* joints, passive joints, powered joints */
    int ip[MODEL_MAX_DOF];       /* indices of the passive joints */
    int ia[MODEL_MAX_DOF];       /* indices of the powered joints */
    double dt;                   /* cycle */
    int nsub;                    /* integrator steps per cycle */
    long calls;                  /* passive_step calls so far */
    int status;                  /* 0, or the sticky MODEL_E* of a failed step */
    int rhs_status;              /* the semi_inverse status inside the last failed evaluation */
    double q0[MODEL_MAX_DOF];    /* start of the passive joints */
    double y[2 * MODEL_MAX_DOF]; /* passive state: q of the passive joints, then their q̇ */
    double yerr[2 * MODEL_MAX_DOF];
    double dydt[2 * MODEL_MAX_DOF];   /* the derivative at the last setpoint: the next cycle's first stage */
    double pq[MODEL_MAX_DOF], pqd[MODEL_MAX_DOF], pqdd[MODEL_MAX_DOF]; /* the previous setpoint */
    double c3[MODEL_MAX_DOF], c4[MODEL_MAX_DOF], c5[MODEL_MAX_DOF];    /* this cycle's quintics (powered) */
    double q[MODEL_MAX_DOF], qd[MODEL_MAX_DOF], qdd[MODEL_MAX_DOF], tau[MODEL_MAX_DOF]; /* scratch */
    gsl_odeiv2_system sys;
    gsl_odeiv2_step *step;
};

int passive_count(const Model *m)
{
    int k = 0;
    for (int j = 0; j < m->dof; j++) k += !m->desc.joint[j].powered;
    return k;
}

/* The full state with the passive joints at ps = (q, q̇) and the powered ones as already in p->q, p->qd, p->qdd:
 * semi_inverse gives the passive q̈ into dydt (q̇, q̈ of the passive joints). 0 or MODEL_E*. */
static int passive_deriv(PassiveJoints *p, const double *ps, double *dydt)
{
    int np = p->np;
    for (int k = 0; k < np; k++) {
        int j = p->ip[k];
        p->q[j] = ps[k], p->qd[j] = ps[np + k], p->qdd[j] = 0.0, p->tau[j] = 0.0;
    }
    int st = model_semi_inverse(p->m, p->q, p->qd, p->qdd, p->tau);
    if (st < 0) return st;
    for (int k = 0; k < np; k++) {
        double a = p->qdd[p->ip[k]];
        if (!isfinite(a)) return MODEL_ENUMERIC;
        dydt[k] = ps[np + k], dydt[np + k] = a;
    }
    return 0;
}

/* GSL right-hand side at time t into the cycle: the powered joints on their quintics, then passive_deriv. */
static int rhs(double t, const double y[], double dydt[], void *params)
{
    PassiveJoints *p = params;
    for (int k = 0; k < p->na; k++) {
        int j = p->ia[k];
        double a0 = p->pqdd[j], c3 = p->c3[j], c4 = p->c4[j], c5 = p->c5[j];
        p->q[j] = p->pq[j] + t * (p->pqd[j] + t * (0.5 * a0 + t * (c3 + t * (c4 + t * c5))));
        p->qd[j] = p->pqd[j] + t * (a0 + t * (3.0 * c3 + t * (4.0 * c4 + t * 5.0 * c5)));
        p->qdd[j] = a0 + t * (6.0 * c3 + t * (12.0 * c4 + t * 20.0 * c5));
    }
    int st = passive_deriv(p, y, dydt);
    if (st < 0) {
        p->rhs_status = st;
        return GSL_EBADFUNC;
    }
    return GSL_SUCCESS;
}

/* The quintic of each powered joint from the previous setpoint (p->pq...) to this one over one cycle: position,
 * speed and acceleration match at both ends. Only c3..c5 are stored; the lower terms are the previous setpoint. */
static void quintics(PassiveJoints *p, const double *q, const double *qd, const double *qdd)
{
    double h = p->dt, h2 = h * h, h3 = h2 * h;
    for (int k = 0; k < p->na; k++) {
        int j = p->ia[k];
        double d = q[j] - p->pq[j] - h * p->pqd[j] - 0.5 * h2 * p->pqdd[j];
        double e = h * (qd[j] - p->pqd[j] - h * p->pqdd[j]);
        double f = h2 * (qdd[j] - p->pqdd[j]);
        p->c3[j] = (10.0 * d - 4.0 * e + 0.5 * f) / h3;
        p->c4[j] = (-15.0 * d + 7.0 * e - f) / (h3 * h);
        p->c5[j] = (6.0 * d - 3.0 * e + 0.5 * f) / (h3 * h2);
    }
}

PassiveJoints *passive_new(Model *m, const double *q0, double dt, char *err, size_t errlen)
{
    if (!(dt > 0) || !isfinite(dt)) return snprintf(err, errlen, "passive joints: the cycle must be > 0"), NULL;
    if (passive_count(m) == 0) return snprintf(err, errlen, "passive joints: the machine has none"), NULL;
    if (!m->type->semi_inverse)
        return snprintf(err, errlen, "passive joints: the %s back-end has no semi-inverse dynamics, so the motion "
                        "of its unpowered joints cannot be computed", m->type->name), NULL;
    PassiveJoints *p = calloc(1, sizeof *p);
    if (!p) return snprintf(err, errlen, "out of memory"), NULL;
    p->m = m;
    p->n = m->dof;
    p->dt = dt;
    for (int j = 0; j < p->n; j++) {
        if (!isfinite(q0[j])) {
            free(p);
            return snprintf(err, errlen, "passive joints: the start position of joint %d is not finite", j + 1), NULL;
        }
        if (m->desc.joint[j].powered) p->ia[p->na++] = j;
        else p->q0[p->np] = q0[j], p->ip[p->np++] = j;
    }
    p->nsub = (int)ceil(dt / PASSIVE_MAX_STEP - 1e-9);
    if (p->nsub < 1) p->nsub = 1;
    p->sys = (gsl_odeiv2_system){rhs, NULL, (size_t)(2 * p->np), p};
    p->step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, (size_t)(2 * p->np));
    if (!p->step) {
        free(p);
        return snprintf(err, errlen, "out of memory"), NULL;
    }
    return p;
}

/* Mark the passive entries NAN after a failure. */
static int passive_fail(PassiveJoints *p, int st, double *q, double *qd, double *qdd)
{
    p->status = st;
    for (int k = 0; k < p->np; k++) {
        int j = p->ip[k];
        q[j] = qd[j] = qdd[j] = NAN;
    }
    return st;
}

int passive_step(PassiveJoints *p, double *q, double *qd, double *qdd)
{
    int np = p->np, st;
    if (p->status < 0) return passive_fail(p, p->status, q, qd, qdd);
    if (p->calls == 0) {
        for (int k = 0; k < np; k++) p->y[k] = p->q0[k], p->y[np + k] = 0.0;
    } else {
        quintics(p, q, qd, qdd);
        for (int i = 0; i < p->nsub; i++) {
            double t = p->dt * i / p->nsub, t1 = p->dt * (i + 1) / p->nsub;
            p->rhs_status = 0;
            /* the first stage of the cycle is the derivative at the previous setpoint, computed there */
            st = gsl_odeiv2_step_apply(p->step, t, t1 - t, p->y, p->yerr, i == 0 ? p->dydt : NULL, NULL, &p->sys);
            if (st != GSL_SUCCESS) return passive_fail(p, p->rhs_status < 0 ? p->rhs_status : MODEL_ENUMERIC, q, qd, qdd);
        }
        for (int k = 0; k < 2 * np; k++)
            if (!isfinite(p->y[k])) return passive_fail(p, MODEL_ENUMERIC, q, qd, qdd);
    }
    /* q̈ of the passive joints at this setpoint exactly (not on the quintic) */
    memcpy(p->q, q, (size_t)p->n * sizeof *q);
    memcpy(p->qd, qd, (size_t)p->n * sizeof *qd);
    memcpy(p->qdd, qdd, (size_t)p->n * sizeof *qdd);
    if ((st = passive_deriv(p, p->y, p->dydt)) < 0) return passive_fail(p, st, q, qd, qdd);
    for (int k = 0; k < np; k++) {
        int j = p->ip[k];
        q[j] = p->y[k], qd[j] = p->y[np + k], qdd[j] = p->dydt[np + k];
    }
    memcpy(p->pq, q, (size_t)p->n * sizeof *q);
    memcpy(p->pqd, qd, (size_t)p->n * sizeof *qd);
    memcpy(p->pqdd, qdd, (size_t)p->n * sizeof *qdd);
    p->calls++;
    return 0;
}

void passive_free(PassiveJoints *p)
{
    if (!p) return;
    if (p->step) gsl_odeiv2_step_free(p->step);
    free(p);
}
