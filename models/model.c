/* model.c — the model registry (built-in back-ends and dlopen plugins), description defaults and the
 * operation wrappers that turn a missing operation into MODEL_ENOTSUP. */
#include "model.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "geom.h"

/* Built-in back-ends. While models/centrifuge.c does not exist yet the centrifuge reference is weak (NULL, skipped)
 * so the library links. It must be a strong reference once the file exists: a weak undefined symbol does not pull
 * an object out of libirl.a, so a weak reference would silently leave the centrifuge unregistered. */
extern const ModelType model_chain;
#if defined(__has_include) && __has_include("centrifuge.c")
extern const ModelType model_centrifuge;
#else
__attribute__((weak)) extern const ModelType model_centrifuge;
#endif
#if defined(__has_include) && __has_include("freeflyer.c")
extern const ModelType model_freeflyer;
#else
__attribute__((weak)) extern const ModelType model_freeflyer;
#endif
#if defined(__has_include) && __has_include("stewart.c")
extern const ModelType model_stewart;
#else
__attribute__((weak)) extern const ModelType model_stewart;
#endif

#define MODEL_MAX_PLUGINS 16

/* Plugins loaded in this process. The registry is process state by nature (like dlopen's own); it is only
 * written by model_load_plugin, which the CLI calls before any real-time thread starts. */
static const ModelType *model_plugins[MODEL_MAX_PLUGINS];
static int model_nplugins;

/* The built-in table; entries whose symbol is absent (weak, NULL) are skipped. */
static const ModelType *model_builtin(int i)
{
    switch (i) {
    case 0: return &model_chain;
    case 1: return &model_centrifuge;
    case 2: return &model_freeflyer;
    case 3: return &model_stewart;
    default: return NULL;
    }
}
#define MODEL_NBUILTIN 4

/* Find a back-end by name: plugins first (so a user may override a built-in), then the built-ins. */
const ModelType *model_find(const char *name)
{
    if (!name) return NULL;
    for (int i = model_nplugins - 1; i >= 0; i--)
        if (model_plugins[i]->name && strcmp(model_plugins[i]->name, name) == 0) return model_plugins[i];
    for (int i = 0; i < MODEL_NBUILTIN; i++) {
        const ModelType *t = model_builtin(i);
        if (t && t->name && strcmp(t->name, name) == 0) return t;
    }
    return NULL;
}

/* dlopen a plugin and register the ModelType its irl_model_plugin() returns. The handle stays open for the
 * life of the process (the type's function pointers live in it). */
int model_load_plugin(const char *path, char *err, size_t errlen)
{
    if (model_nplugins >= MODEL_MAX_PLUGINS) {
        snprintf(err, errlen, "%s: too many model plugins (at most %d)", path, MODEL_MAX_PLUGINS);
        return MODEL_ENOMEM;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "%s: cannot load plugin: %s", path, dlerror());
        return MODEL_EINVAL;
    }
    const int *abi = dlsym(h, "irl_model_abi");
    if (!abi || *abi != MODEL_PLUGIN_ABI) {
        if (abi)
            snprintf(err, errlen, "%s: plugin built against model ABI %d, this irl has %d: rebuild it against this "
                     "model.h", path, *abi, MODEL_PLUGIN_ABI);
        else
            snprintf(err, errlen, "%s: plugin does not export irl_model_abi (built against an older model.h?): "
                     "rebuild it against this model.h", path);
        dlclose(h);
        return MODEL_EINVAL;
    }
    const ModelType *(*entry)(void);
    *(void **)&entry = dlsym(h, "irl_model_plugin");
    if (!entry) {
        snprintf(err, errlen, "%s: plugin does not export irl_model_plugin()", path);
        dlclose(h);
        return MODEL_EINVAL;
    }
    const ModelType *t = entry();
    if (!t || !t->name || !t->create || !t->destroy) {
        snprintf(err, errlen, "%s: plugin returned an incomplete ModelType (needs name, create, destroy)", path);
        dlclose(h);
        return MODEL_EINVAL;
    }
    /* Two plugins under one name would make the registry's answer depend on load order: refuse the second.
     * (Overriding a built-in stays allowed, see model_find.) Loading the same file twice lands here too. */
    for (int i = 0; i < model_nplugins; i++)
        if (strcmp(model_plugins[i]->name, t->name) == 0) {
            snprintf(err, errlen, "%s: a model plugin named '%s' is loaded already", path, t->name);
            dlclose(h);
            return MODEL_EINVAL;
        }
    model_plugins[model_nplugins++] = t;
    return MODEL_OK;
}

/* Defaults for one axis: no limits at all. */
static void model_limits_init(ModelAxisLimits *l)
{
    l->min = -INFINITY;
    l->max = INFINITY;
    l->vmax = l->amax = l->jmax = l->effort = INFINITY;
}

/* Defaults for one joint: identity origin, z axis, revolute, powered, massless, no limits, no motor, no friction. */
void model_joint_init(ModelJoint *j)
{
    memset(j, 0, sizeof *j);
    j->parent = -1;
    j->type = MODEL_REVOLUTE;
    m3_identity(j->origin_R);
    v3_set(j->axis, 0, 0, 1);
    j->powered = 1;
    model_limits_init(&j->limits);
    j->ferror = INFINITY;
}

/* Defaults for a description: no joints, gravity -9.81 z, tool at the last link's origin. */
void model_desc_init(ModelDesc *d)
{
    memset(d, 0, sizeof *d);
    v3_set(d->gravity, 0, 0, -9.81);
    d->tool_link = -1;
    m3_identity(d->tool_R);
    for (int i = 0; i < MODEL_MAX_DOF; i++) model_joint_init(&d->joint[i]);
}

/* A named parameter, or NULL. */
const ModelParam *model_desc_param(const ModelDesc *d, const char *name)
{
    for (int i = 0; i < d->nparams; i++)
        if (strcmp(d->param[i].name, name) == 0) return &d->param[i];
    return NULL;
}

/* 1 when joint i has any friction. */
static int joint_has_friction(const ModelDesc *d, int i)
{
    const ModelFriction *f = &d->joint[i].friction;
    return f->viscous != 0 || f->coulomb_pos != 0 || f->coulomb_neg != 0;
}

/* Friction only where a coordinate is a joint: not on the stewart back-end's platform pose (its actuators are the
 * legs, outputs of the model), not on the freeflyer's coordinate 0 (the free base's rotation in inertial space:
 * a torque there would be an external one). Sets *any when some joint has friction. 0 or MODEL_EINVAL. */
static int friction_allowed(const ModelType *t, const ModelDesc *d, int *any, char *err, size_t errlen)
{
    int st = model_friction_check(d, err, errlen);
    if (st < 0) return st;
    *any = 0;
    for (int i = 0; i < d->njoints && i < MODEL_MAX_DOF; i++) {
        if (!joint_has_friction(d, i)) continue;
        *any = 1;
        const char *why = NULL;
        if (t == &model_stewart)
            why = "the stewart back-end's coordinates are the platform pose, not joints (its legs are not modelled "
                  "with friction)";
        else if (t == &model_freeflyer && i == 0)
            why = "the freeflyer back-end's coordinate 0 is the free base's rotation, not a joint";
        if (why) {
            if (err && errlen)
                snprintf(err, errlen, "%s: joint %s: friction is not supported here: %s",
                         d->source[0] ? d->source : d->name, d->joint[i].name, why);
            return MODEL_EINVAL;
        }
    }
    return MODEL_OK;
}

/* Find the back-end named in the description and create its state; m->desc keeps a copy. */
int model_open(Model *m, const ModelDesc *d, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    const ModelType *t = model_find(d->backend);
    if (!t) {
        snprintf(err, errlen, "%s: unknown model back-end '%s'", d->source[0] ? d->source : d->name, d->backend);
        return MODEL_EINVAL;
    }
    int friction, fst = friction_allowed(t, d, &friction, err, errlen);
    if (fst < 0) return fst;
    if (err && errlen) err[0] = '\0';
    int rc = t->create(d, &m->state, err, errlen);
    if (rc < 0) {
        if (err && errlen && !err[0]) snprintf(err, errlen, "%s: %s", d->backend, model_strerror(rc));
        m->state = NULL;
        return rc;
    }
    m->type = t;
    m->desc = *d;
    m->dof = d->njoints;
    m->has_friction = friction;
    return MODEL_OK;
}

/* Destroy the state; safe on a model that failed to open or was closed already. */
void model_close(Model *m)
{
    if (m->type && m->state) m->type->destroy(m->state);
    m->state = NULL;
    m->type = NULL;
}

/* The wrappers: one line each, MODEL_ENOTSUP when the operation is absent. */
#define MODEL_CALL(op, ...) \
    ((m && m->type && m->type->op) ? m->type->op(m->state, __VA_ARGS__) : MODEL_ENOTSUP)

int model_fk(Model *m, const double *q, int link, double pos[3], double R[9])
{
    return MODEL_CALL(fk, q, link, pos, R);
}
int model_ik(Model *m, const double pos[3], const double quat[4], const double *q_seed, double *q,
             ModelIkInfo *info)
{
    return MODEL_CALL(ik, pos, quat, q_seed, q, info);
}
int model_ik_all(Model *m, const double pos[3], const double quat[4], const double *q_ref, ModelIkSolution *sol,
                 int max, ModelIkWhy *why)
{
    if (why) *why = (ModelIkWhy){0, 0, 0};
    if (m->type->ik_all) return m->type->ik_all(m->state, pos, quat, q_ref, sol, max, why);
    if (max < 1) return MODEL_EINVAL;
    ModelIkInfo info;
    int st = model_ik(m, pos, quat, q_ref, sol[0].q, &info);
    if (st == MODEL_EUNREACH) return 0;
    if (st < 0) return st;
    sol[0].config = -1, sol[0].turn = 0, sol[0].singular = 0, sol[0].limit_joint = -1, sol[0].limit_excess = 0;
    double d2 = 0;
    for (int i = 0; i < m->dof; i++) {
        double d = sol[0].q[i] - q_ref[i];
        d2 += d * d;
        if (i < 31 && sol[0].q[i] < 0) sol[0].turn |= 1 << i;
    }
    sol[0].dist = sqrt(d2);
    return 1;
}
int model_jacobian(Model *m, const double *q, double *J) { return MODEL_CALL(jacobian, q, J); }
int model_singularity(Model *m, const double *q, double *measure)
{
    int st = MODEL_CALL(singularity, q, NULL, measure);
    return st < 0 ? st : 0;
}
int model_singularity_within(Model *m, const double *q, double lo, double hi, double *measure)
{
    double band[2] = {lo, hi};
    int st = MODEL_CALL(singularity, q, band, measure);
    return st < 0 ? st : st > 0;
}

/* out += tau_f(qd), after a successful call (st >= 0). A frictionless model costs one test. */
static int add_friction(const Model *m, int st, const double *qd, double *out)
{
    if (st < 0 || !m->has_friction) return st;
    for (int i = 0; i < m->dof; i++) out[i] += model_friction_joint(&m->desc.joint[i].friction, qd[i]);
    return st;
}
int model_inverse_dynamics(Model *m, const double *q, const double *qd, const double *qdd, double *tau)
{
    return add_friction(m, MODEL_CALL(inverse_dynamics, q, qd, qdd, tau), qd, tau);
}
int model_mass_matrix(Model *m, const double *q, double *M) { return MODEL_CALL(mass_matrix, q, M); }
int model_bias(Model *m, const double *q, const double *qd, double *h)
{
    return add_friction(m, MODEL_CALL(bias, q, qd, h), qd, h);
}
/* The joints receive tau - tau_f(qd) (a copy on the stack: tau is the caller's). */
int model_forward_dynamics(Model *m, const double *q, const double *qd, const double *tau, double *qdd)
{
    if (!m || !m->has_friction) return MODEL_CALL(forward_dynamics, q, qd, tau, qdd);
    double t[MODEL_MAX_DOF];
    for (int i = 0; i < m->dof; i++) t[i] = tau[i] - model_friction_joint(&m->desc.joint[i].friction, qd[i]);
    return MODEL_CALL(forward_dynamics, q, qd, t, qdd);
}
/* Unpowered joints: their given tau less friction goes in, and tau is restored as given; powered joints: the
 * computed tau gets the friction their motion needs. */
int model_semi_inverse(Model *m, const double *q, const double *qd, double *qdd, double *tau)
{
    if (!m || !m->has_friction) return MODEL_CALL(semi_inverse, q, qd, qdd, tau);
    double given[MODEL_MAX_DOF], f[MODEL_MAX_DOF];
    for (int i = 0; i < m->dof; i++) {
        f[i] = model_friction_joint(&m->desc.joint[i].friction, qd[i]);
        given[i] = tau[i];
        if (!m->desc.joint[i].powered) tau[i] -= f[i];
    }
    int st = MODEL_CALL(semi_inverse, q, qd, qdd, tau);
    for (int i = 0; i < m->dof; i++) {
        if (!m->desc.joint[i].powered) tau[i] = given[i];
        else if (st >= 0) tau[i] += f[i];
    }
    return st;
}
/* Extra outputs: a back-end without them has none (count 0), which is not an error. */
int model_output_count(Model *m)
{
    return (m && m->type && m->type->output_count) ? m->type->output_count(m->state) : 0;
}
const char *model_output_name(Model *m, int i)
{
    return (m && m->type && m->type->output_name) ? m->type->output_name(m->state, i) : NULL;
}
const char *model_output_unit(Model *m, int i)
{
    const char *u = (m && m->type && m->type->output_unit) ? m->type->output_unit(m->state, i) : NULL;
    return u ? u : "";
}
int model_outputs(Model *m, const double *q, const double *qd, const double *qdd, double *out)
{
    return MODEL_CALL(outputs, q, qd, qdd, out);
}
int model_gprofile(Model *m, double *arm, double *g)
{
    return MODEL_CALL(gprofile, arm, g);
}

const char *model_strerror(int status)
{
    switch (status) {
    case MODEL_OK: return "success";
    case MODEL_ENOTSUP: return "operation not supported by this model back-end";
    case MODEL_EINVAL: return "invalid argument or machine description";
    case MODEL_EUNREACH: return "target out of reach (inverse kinematics did not converge)";
    case MODEL_ESINGULAR: return "singular configuration";
    case MODEL_ENOMEM: return "out of memory";
    case MODEL_ENUMERIC: return "numerical routine failed";
    default: return status >= 0 ? "success" : "unknown model error";
    }
}
