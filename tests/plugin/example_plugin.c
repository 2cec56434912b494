/* example_plugin.c — the smallest model back-end as a plugin: a 1-DoF pendulum "pendulum" with closed-form
 * kinematics and dynamics, built as a shared object (make: BUILD/plugin/example_plugin.so) and loaded with
 * `irl model --plugin example_plugin.so MACHINE …` or model_load_plugin(). docs/MODELS.md walks through it.
 *
 * The machine: one revolute joint about the base y axis at the origin; q = 0 hangs the bob straight down (-z).
 * The bob's centre of mass is at distance l = PARAM length below the pivot (link frame (0, 0, -l)), mass = the
 * joint's mass, plus the joint's own inertia Iyy about the centre of mass. With g = |gravity| (taken along -z):
 *     tau = (m l^2 + Iyy) qdd + m g l sin q.
 * Extra output "height": the bob's height above its lowest point, l (1 - cos q).
 *
 * A plugin sees libirl only through the ModelType/ModelDesc layout of model.h: the irl executable does not
 * export its symbols, so the plugin must not call model_desc_param() and friends (dlopen would fail on the
 * unresolved symbol). Build variants for the error-path tests:
 *   -DEXAMPLE_PLUGIN_NO_ENTRY    no irl_model_plugin symbol at all
 *   -DEXAMPLE_PLUGIN_INCOMPLETE  the entry returns a type without create/destroy
 *   -DEXAMPLE_PLUGIN_OLD_ABI     built against another model layout (irl_model_abi one less) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* The state: the three numbers of the closed form. */
typedef struct {
    double m, l, I, g;
} Pendulum;

/* Find a parameter without libirl (see the header comment). */
static const ModelParam *pend_param(const ModelDesc *d, const char *name)
{
    for (int i = 0; i < d->nparams; i++)
        if (strcmp(d->param[i].name, name) == 0) return &d->param[i];
    return NULL;
}

/* Copy a message into err, truncated to errlen. */
static void pend_err(char *err, size_t errlen, const char *msg)
{
    if (!err || !errlen) return;
    size_t n = strlen(msg);
    if (n >= errlen) n = errlen - 1;
    memcpy(err, msg, n);
    err[n] = '\0';
}

/* Check the description and keep m, l, Iyy, g. */
static int pend_create(const ModelDesc *d, void **s, char *err, size_t errlen)
{
    if (d->njoints != 1 || d->joint[0].type != MODEL_REVOLUTE) {
        pend_err(err, errlen, "pendulum: needs exactly one REVOLUTE joint");
        return MODEL_EINVAL;
    }
    const ModelParam *p = pend_param(d, "length");
    /* "bad parameter NAME: why" (MODEL_PARAM_BAD): the machine-file reader places it at the PARAM, with its value */
    if (!p) {
        pend_err(err, errlen, "pendulum: " MODEL_PARAM_BAD "length: required (a length > 0 m)");
        return MODEL_EINVAL;
    }
    if (p->n != 1 || (p->unit[0] && strcmp(p->unit, "m") != 0) || !(p->v[0] > 0) || !isfinite(p->v[0])) {
        pend_err(err, errlen, "pendulum: " MODEL_PARAM_BAD "length: must be one length > 0 m");
        return MODEL_EINVAL;
    }
    if (!(d->joint[0].mass > 0)) {
        pend_err(err, errlen, "pendulum: the joint needs a mass > 0");
        return MODEL_EINVAL;
    }
    Pendulum *P = malloc(sizeof *P);
    if (!P) return MODEL_ENOMEM;
    P->m = d->joint[0].mass;
    P->l = p->v[0];
    P->I = d->joint[0].inertia[4];
    P->g = sqrt(d->gravity[0] * d->gravity[0] + d->gravity[1] * d->gravity[1] + d->gravity[2] * d->gravity[2]);
    *s = P;
    return MODEL_OK;
}

static void pend_destroy(void *s) { free(s); }

/* The bob (link 0 and the tool alike): (-l sin q, 0, -l cos q), rotation Ry(q). */
static int pend_fk(void *s, const double *q, int link, double pos[3], double R[9])
{
    const Pendulum *P = s;
    if (link < -1 || link > 0) return MODEL_EINVAL;
    double c = cos(q[0]), sn = sin(q[0]);
    pos[0] = -P->l * sn;
    pos[1] = 0;
    pos[2] = -P->l * c;
    const double Ry[9] = {c, 0, sn, 0, 1, 0, -sn, 0, c};
    memcpy(R, Ry, sizeof Ry);
    return MODEL_OK;
}

/* d pos / dq and the angular velocity axis y. */
static int pend_jacobian(void *s, const double *q, double *J)
{
    const Pendulum *P = s;
    const double Jv[6] = {-P->l * cos(q[0]), 0, P->l * sin(q[0]), 0, 1, 0};
    memcpy(J, Jv, sizeof Jv);
    return MODEL_OK;
}

static int pend_id(void *s, const double *q, const double *qd, const double *qdd, double *tau)
{
    const Pendulum *P = s;
    (void)qd;
    tau[0] = (P->m * P->l * P->l + P->I) * qdd[0] + P->m * P->g * P->l * sin(q[0]);
    return MODEL_OK;
}

static int pend_mass(void *s, const double *q, double *M)
{
    const Pendulum *P = s;
    (void)q;
    M[0] = P->m * P->l * P->l + P->I;
    return MODEL_OK;
}

static int pend_bias(void *s, const double *q, const double *qd, double *h)
{
    const Pendulum *P = s;
    (void)qd;
    h[0] = P->m * P->g * P->l * sin(q[0]);
    return MODEL_OK;
}

static int pend_fd(void *s, const double *q, const double *qd, const double *tau, double *qdd)
{
    const Pendulum *P = s;
    (void)qd;
    qdd[0] = (tau[0] - P->m * P->g * P->l * sin(q[0])) / (P->m * P->l * P->l + P->I);
    return MODEL_OK;
}

static int pend_output_count(void *s)
{
    (void)s;
    return 1;
}

static const char *pend_output_name(void *s, int i)
{
    (void)s;
    return i == 0 ? "height" : NULL;
}

static const char *pend_output_unit(void *s, int i)
{
    (void)s;
    return i == 0 ? "m" : NULL;
}

static int pend_outputs(void *s, const double *q, const double *qd, const double *qdd, double *out)
{
    const Pendulum *P = s;
    (void)qd;
    (void)qdd;
    out[0] = P->l * (1 - cos(q[0]));
    return MODEL_OK;
}

#ifndef EXAMPLE_PLUGIN_INCOMPLETE
/* Operations left NULL (ik, singularity, semi_inverse) are MODEL_ENOTSUP through the model_* wrappers. */
static const ModelType pendulum_type = {
    .name = "pendulum",
    .create = pend_create,
    .destroy = pend_destroy,
    .fk = pend_fk,
    .jacobian = pend_jacobian,
    .inverse_dynamics = pend_id,
    .mass_matrix = pend_mass,
    .bias = pend_bias,
    .forward_dynamics = pend_fd,
    .output_count = pend_output_count,
    .output_name = pend_output_name,
    .output_unit = pend_output_unit,
    .outputs = pend_outputs,
};
#else
static const ModelType pendulum_type = {.name = "pendulum_incomplete", .fk = pend_fk};
/* Keep the unused functions referenced so -Werror stays quiet in this variant. */
void *example_plugin_unused[] = {(void *)pend_create, (void *)pend_destroy, (void *)pend_jacobian,
                                 (void *)pend_id, (void *)pend_mass, (void *)pend_bias, (void *)pend_fd,
                                 (void *)pend_output_count, (void *)pend_output_name, (void *)pend_output_unit,
                                 (void *)pend_outputs};
#endif

/* The model layout this plugin was built against (model_load_plugin refuses another). */
#ifdef EXAMPLE_PLUGIN_OLD_ABI
const int irl_model_abi = MODEL_PLUGIN_ABI - 1;
#else
const int irl_model_abi = MODEL_PLUGIN_ABI;
#endif

#ifndef EXAMPLE_PLUGIN_NO_ENTRY
/* The entry point the host looks for. */
const ModelType *irl_model_plugin(void);
const ModelType *irl_model_plugin(void) { return &pendulum_type; }
#else
/* A symbol under another name, so the object is a valid library without the entry point. */
const ModelType *not_the_entry(void);
const ModelType *not_the_entry(void) { return &pendulum_type; }
#endif
