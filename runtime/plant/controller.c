/* controller.c — computed-torque PD and independent-joint PID with anti-windup, per cycle. */
#include "plant/controller.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plant/actuator.h"

/* The inertia axis j feels on its own at q: M_jj from inverse dynamics (unit acceleration minus none), plus the
 * rotor reflected through the gear. */
static int axis_inertia(Model *m, const double *q, int j, double *J)
{
    double zero[MODEL_MAX_DOF] = {0}, acc[MODEL_MAX_DOF] = {0}, t0[MODEL_MAX_DOF], t1[MODEL_MAX_DOF];
    int st;
    acc[j] = 1;
    if ((st = model_inverse_dynamics(m, q, zero, zero, t0)) < 0) return st;
    if ((st = model_inverse_dynamics(m, q, zero, acc, t1)) < 0) return st;
    *J = t1[j] - t0[j];
    const ModelMotor *mo = &m->desc.joint[j].motor;
    Actuator a;
    if (mo->present && actuator_from_model(&a, mo) == 0) *J += actuator_reflected_inertia(&a);
    return MODEL_OK;
}

/* Default gains (see the header for the formulas). */
int controller_gains_default(ClosedLoopGains *g, Model *m, ControllerKind kind, double omega, double cycle)
{
    double w = omega > 0 ? omega : CONTROLLER_OMEGA, q[MODEL_MAX_DOF];
    if (cycle > 0 && w > 0.1 / cycle) w = 0.1 / cycle;
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->n = m->dof;
    g->omega = w;
    for (int j = 0; j < m->dof; j++) q[j] = m->desc.joint[j].home;
    for (int j = 0; j < m->dof; j++) {
        if (kind == CONTROLLER_CT) {
            g->kp[j] = w * w, g->kd[j] = 2 * w, g->ki[j] = 0;
            continue;
        }
        double J;
        int st = axis_inertia(m, q, j, &J);
        if (st < 0) return st;
        if (!(J > 0)) J = 1e-6; /* a massless axis: keep the gains positive */
        g->kp[j] = 3 * J * w * w, g->kd[j] = 3 * J * w, g->ki[j] = J * w * w * w;
    }
    return 0;
}

/* "v" or "v1,...,vn" */
int controller_parse_list(const char *s, double *v, int n)
{
    double tmp[MODEL_MAX_DOF];
    int k = 0;
    const char *p = s;
    if (n <= 0 || n > MODEL_MAX_DOF) return -1;
    for (;;) {
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || errno || !isfinite(x) || k == n) return -1;
        tmp[k++] = x;
        if (*end == '\0') break;
        if (*end != ',') return -1;
        p = end + 1;
    }
    if (k == 1)
        for (int j = 0; j < n; j++) v[j] = tmp[0];
    else if (k == n)
        memcpy(v, tmp, (size_t)n * sizeof *v);
    else
        return -1;
    return 0;
}

/* Copy and check the gains. */
int controller_init(Controller *c, Model *m, const ClosedLoopGains *g, double cycle)
{
    memset(c, 0, sizeof *c);
    if (g->n != m->dof || !(cycle > 0)) return MODEL_EINVAL;
    for (int j = 0; j < g->n; j++)
        if (!(g->kp[j] >= 0 && g->kd[j] >= 0 && g->ki[j] >= 0) || !isfinite(g->kp[j] + g->kd[j] + g->ki[j]))
            return MODEL_EINVAL;
    c->g = *g;
    c->m = m;
    c->n = m->dof;
    c->cycle = cycle;
    for (int j = 0; j < c->n; j++) c->effort[j] = m->desc.joint[j].limits.effort;
    return MODEL_OK;
}

/* PID integrator starts holding tau_hold (only on axes with integral action). */
void controller_preload(Controller *c, const double *tau_hold)
{
    for (int j = 0; j < c->n; j++) c->z[j] = c->g.ki[j] > 0 ? tau_hold[j] : 0;
}

/* Errors, then the torque demand of the chosen law. */
int controller_update(Controller *c, const double *q, const double *qd, const double *qr, const double *qdr,
                      const double *qddr, double *tau)
{
    const ClosedLoopGains *g = &c->g;
    for (int j = 0; j < c->n; j++) c->e[j] = qr[j] - q[j], c->ed[j] = qdr[j] - qd[j];
    if (g->kind == CONTROLLER_CT) {
        for (int j = 0; j < c->n; j++) c->a[j] = qddr[j] + g->kd[j] * c->ed[j] + g->kp[j] * c->e[j];
        return model_inverse_dynamics(c->m, q, qd, c->a, tau);
    }
    for (int j = 0; j < c->n; j++) {
        double z = c->z[j] + g->ki[j] * c->e[j] * c->cycle;
        if (z > c->effort[j]) z = c->effort[j];
        if (z < -c->effort[j]) z = -c->effort[j];
        c->dz[j] = z - c->z[j];
        c->z[j] = z;
        c->a[j] = qddr[j];
        tau[j] = g->kp[j] * c->e[j] + g->kd[j] * c->ed[j] + z;
    }
    return MODEL_OK;
}

/* Conditional integration: keep integrating only when that moves the output away from the limit. */
void controller_saturated(Controller *c, int j, int sat)
{
    if (c->g.kind != CONTROLLER_PID || sat == 0) return;
    if (c->dz[j] * sat > 0) c->z[j] -= c->dz[j], c->dz[j] = 0;
}
