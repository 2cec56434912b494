/* model.c — the model registry (built-in back-ends and dlopen plugins), description defaults and the
 * operation wrappers that turn a missing operation into MODEL_ENOTSUP. */
#include "model.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dmath.h"
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

/* "BACKEND: bad parameter NAME: why". */
int model_param_bad(const ModelDesc *d, char *err, size_t errlen, const char *name, const char *fmt, ...)
{
    if (!err || !errlen) return MODEL_EINVAL;
    int k = snprintf(err, errlen, "%s%s" MODEL_PARAM_BAD "%s: ", d->backend, d->backend[0] ? ": " : "", name);
    if (k >= 0 && (size_t)k < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return MODEL_EINVAL;
}

/* A numeric parameter of n finite numbers in `unit`: 1 found, 0 absent, MODEL_EINVAL. */
int model_param_get(const ModelDesc *d, const char *name, int n, const char *unit, double *v, char *err,
                    size_t errlen)
{
    const ModelParam *p = model_desc_param(d, name);
    if (!p) return 0;
    if (p->n == 0)
        return model_param_bad(d, err, errlen, name, "expected %s, not a word", n == 1 ? "a number" : "a LIST");
    if (p->n != n)
        return model_param_bad(d, err, errlen, name, "takes %d number%s, not %d", n, n == 1 ? "" : "s", p->n);
    if (p->unit[0] && strcmp(p->unit, unit) != 0)
        return model_param_bad(d, err, errlen, name, "expected a value in %s, not in %s", unit[0] ? unit : "no unit",
                               p->unit);
    for (int i = 0; i < n; i++)
        if (!isfinite(p->v[i])) return model_param_bad(d, err, errlen, name, "must be finite");
    memcpy(v, p->v, (size_t)n * sizeof *v);
    return 1;
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

/* Mimic joints: the maps of Model (nfull, src, full, mult, off) and the planner's description in m->desc (the
 * independent joints, each parent the nearest independent ancestor). 0 or MODEL_EINVAL. */
static int mimic_setup(Model *m, const ModelDesc *d, char *err, size_t errlen)
{
    int n = d->njoints, axis[MODEL_MAX_DOF], dof = 0;
    for (int k = 0; k < n; k++) axis[k] = d->joint[k].mimic_of ? -1 : dof++;
    if (dof == n) return MODEL_OK;
    for (int k = 0; k < n; k++) {
        const ModelJoint *j = &d->joint[k];
        int lead = j->mimic_of - 1;
        if (j->mimic_of && (lead < 0 || lead >= n || axis[lead] < 0 || !isfinite(j->mimic_mult) ||
                            !isfinite(j->mimic_offset))) {
            snprintf(err, errlen, "%s: joint %s: a mimic joint follows an independent joint of the machine, with "
                     "finite multiplier and offset", d->source[0] ? d->source : d->name, j->name);
            return MODEL_EINVAL;
        }
        m->src[k] = j->mimic_of ? axis[lead] : axis[k];
        m->mult[k] = j->mimic_of ? j->mimic_mult : 1;
        m->off[k] = j->mimic_of ? j->mimic_offset : 0;
        if (!j->mimic_of) m->full[axis[k]] = k;
    }
    m->nfull = n;
    m->dof = dof;
    for (int i = 0; i < dof; i++) {
        ModelJoint *j = &m->desc.joint[i];
        *j = d->joint[m->full[i]];
        int p = j->parent;
        while (p >= 0 && axis[p] < 0) p = d->joint[p].parent;
        j->parent = p < 0 ? -1 : axis[p];
    }
    int t = d->tool_link;
    while (t >= 0 && axis[t] < 0) t = d->joint[t].parent;
    m->desc.tool_link = d->tool_link < 0 ? -1 : t < 0 ? -1 : axis[t];
    for (int i = dof; i < n; i++) model_joint_init(&m->desc.joint[i]);
    m->desc.njoints = dof;
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
    if (mimic_setup(m, d, err, errlen) < 0) {
        model_close(m);
        return MODEL_EINVAL;
    }
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

/* The back-end's joint vector of a model with mimic joints, buf[k] = mult[k] x[src[k]] (+ off[k] for positions);
 * x itself without them. */
static const double *full_of(const Model *m, const double *x, double *buf, int pos)
{
    if (!m || !m->nfull || !x) return x;
    for (int k = 0; k < m->nfull; k++) buf[k] = m->mult[k] * x[m->src[k]] + (pos ? m->off[k] : 0);
    return buf;
}
/* The buffers full_of writes into, one per argument (uninitialised: a model without mimic joints never reads them). */
#define FULL_BUFS double fb0_[MODEL_MAX_DOF], fb1_[MODEL_MAX_DOF] __attribute__((unused)), \
                        fb2_[MODEL_MAX_DOF] __attribute__((unused))
#define FULLQ(x) full_of(m, x, fb0_, 1)
#define FULLD1(x) full_of(m, x, fb1_, 0)
#define FULLD2(x) full_of(m, x, fb2_, 0)

/* Generalized forces of the back-end's joints summed onto the axes (C' f), after a successful call. */
static int to_axes(const Model *m, int st, const double *f, double *out)
{
    if (st < 0) return st;
    for (int i = 0; i < m->dof; i++) out[i] = 0;
    for (int k = 0; k < m->nfull; k++) out[m->src[k]] += m->mult[k] * f[k];
    return st;
}

/* The back-end's index of a follower (a joint whose full index is not its source axis's): the j-th in file order,
 * else nfull (no such joint: the back-end refuses it). */
static int follower_full(const Model *m, int j)
{
    for (int k = 0; k < m->nfull; k++)
        if (m->full[m->src[k]] != k && j-- == 0) return k;
    return m->nfull;
}

int model_fk(Model *m, const double *q, int link, double pos[3], double R[9])
{
    FULL_BUFS;
    if (m && m->nfull && link >= 0) link = link < m->dof ? m->full[link] : follower_full(m, link - m->dof);
    return MODEL_CALL(fk, FULLQ(q), link, pos, R);
}
/* With mimic joints the back-end solves for all its joints from the seed's full vector; an answer whose mimic
 * joints do not follow their leaders (they move the tool) is refused as unreached. */
int model_ik(Model *m, const double pos[3], const double quat[4], const double *q_seed, double *q,
             ModelIkInfo *info)
{
    FULL_BUFS;
    if (!m || !m->nfull) return MODEL_CALL(ik, pos, quat, q_seed, q, info);
    double qf[MODEL_MAX_DOF];
    int st = MODEL_CALL(ik, pos, quat, FULLQ(q_seed), qf, info);
    if (st < 0) return st;
    for (int i = 0; i < m->dof; i++) q[i] = qf[m->full[i]];
    for (int k = 0; k < m->nfull; k++)
        if (fabs(qf[k] - (m->mult[k] * q[m->src[k]] + m->off[k])) > 1e-9) return MODEL_EUNREACH;
    return st;
}
int model_jacobian(Model *m, const double *q, double *J)
{
    FULL_BUFS;
    if (!m || !m->nfull) return MODEL_CALL(jacobian, q, J);
    double Jf[6 * MODEL_MAX_DOF];
    int st = MODEL_CALL(jacobian, FULLQ(q), Jf);
    if (st < 0) return st;
    for (int r = 0; r < 6; r++) to_axes(m, st, Jf + r * m->nfull, J + r * m->dof);
    return st;
}
int model_ik_all(Model *m, const double pos[3], const double quat[4], const double *q_ref, ModelIkSolution *sol,
                 int max, ModelIkWhy *why)
{
    if (why) *why = (ModelIkWhy){0, 0, 0};
    /* with mimic joints the back-end works on the full joint vector: one solution, by model_ik */
    if (m->type->ik_all && !m->nfull) return m->type->ik_all(m->state, pos, quat, q_ref, sol, max, why);
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
int model_singularity(Model *m, const double *q, double *measure)
{
    FULL_BUFS;
    int st = MODEL_CALL(singularity, FULLQ(q), NULL, measure);
    return st < 0 ? st : 0;
}
int model_singularity_within(Model *m, const double *q, double lo, double hi, double *measure)
{
    FULL_BUFS;
    double band[2] = {lo, hi};
    int st = MODEL_CALL(singularity, FULLQ(q), band, measure);
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
    FULL_BUFS;
    if (!m || !m->nfull) return add_friction(m, MODEL_CALL(inverse_dynamics, q, qd, qdd, tau), qd, tau);
    double tf[MODEL_MAX_DOF];
    int st = to_axes(m, MODEL_CALL(inverse_dynamics, FULLQ(q), FULLD1(qd), FULLD2(qdd), tf), tf, tau);
    return add_friction(m, st, qd, tau);
}
int model_mass_matrix(Model *m, const double *q, double *M)
{
    FULL_BUFS;
    if (!m || !m->nfull) return MODEL_CALL(mass_matrix, q, M);
    double Mf[MODEL_MAX_DOF * MODEL_MAX_DOF];
    int st = MODEL_CALL(mass_matrix, FULLQ(q), Mf), n = m->nfull, d = m->dof;
    if (st < 0) return st;
    for (int i = 0; i < d * d; i++) M[i] = 0;
    for (int k = 0; k < n; k++) /* C' Mf C */
        for (int l = 0; l < n; l++) M[m->src[k] * d + m->src[l]] += m->mult[k] * m->mult[l] * Mf[k * n + l];
    return st;
}
int model_bias(Model *m, const double *q, const double *qd, double *h)
{
    FULL_BUFS;
    if (!m || !m->nfull) return add_friction(m, MODEL_CALL(bias, q, qd, h), qd, h);
    double hf[MODEL_MAX_DOF];
    return add_friction(m, to_axes(m, MODEL_CALL(bias, FULLQ(q), FULLD1(qd), hf), hf, h), qd, h);
}
/* With mimic joints: solve (C' M C) qdd = tau - C' h by Cholesky (the back-end's own forward dynamics would treat
 * the mimic joints as free). */
static int mimic_forward_dynamics(Model *m, const double *q, const double *qd, const double *tau, double *qdd)
{
    double M[MODEL_MAX_DOF * MODEL_MAX_DOF];
    double h[MODEL_MAX_DOF];
    int d = m->dof, st = model_mass_matrix(m, q, M);
    if (st >= 0) st = model_bias(m, q, qd, h);
    if (st < 0) return st;
    for (int j = 0; j < d; j++) { /* M = L L', L in the lower triangle */
        for (int k = 0; k < j; k++) M[j * d + j] -= M[j * d + k] * M[j * d + k];
        if (!(M[j * d + j] > 0)) return MODEL_ESINGULAR;
        M[j * d + j] = sqrt(M[j * d + j]);
        for (int i = j + 1; i < d; i++) {
            for (int k = 0; k < j; k++) M[i * d + j] -= M[i * d + k] * M[j * d + k];
            M[i * d + j] /= M[j * d + j];
        }
    }
    for (int i = 0; i < d; i++) { /* L y = tau - h */
        qdd[i] = tau[i] - h[i];
        for (int k = 0; k < i; k++) qdd[i] -= M[i * d + k] * qdd[k];
        qdd[i] /= M[i * d + i];
    }
    for (int i = d - 1; i >= 0; i--) { /* L' qdd = y */
        for (int k = i + 1; k < d; k++) qdd[i] -= M[k * d + i] * qdd[k];
        qdd[i] /= M[i * d + i];
    }
    return MODEL_OK;
}
/* The joints receive tau - tau_f(qd) (a copy on the stack: tau is the caller's). */
int model_forward_dynamics(Model *m, const double *q, const double *qd, const double *tau, double *qdd)
{
    if (m && m->nfull) return mimic_forward_dynamics(m, q, qd, tau, qdd);
    if (!m || !m->has_friction) return MODEL_CALL(forward_dynamics, q, qd, tau, qdd);
    double t[MODEL_MAX_DOF];
    for (int i = 0; i < m->dof; i++) t[i] = tau[i] - model_friction_joint(&m->desc.joint[i].friction, qd[i]);
    return MODEL_CALL(forward_dynamics, q, qd, t, qdd);
}
/* Unpowered joints: their given tau less friction goes in, and tau is restored as given; powered joints: the
 * computed tau gets the friction their motion needs. */
int model_semi_inverse(Model *m, const double *q, const double *qd, double *qdd, double *tau)
{
    if (m && m->nfull) return MODEL_ENOTSUP;
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
    FULL_BUFS;
    return MODEL_CALL(outputs, FULLQ(q), FULLD1(qd), FULLD2(qdd), out);
}
int model_gprofile(Model *m, double *arm, double *g)
{
    return MODEL_CALL(gprofile, arm, g);
}

/* {====================================================================== validation */

/* The eigenvalues of a symmetric 3x3 matrix, ascending (the trigonometric closed form). */
static void sym3_eigenvalues(const double A[9], double e[3])
{
    double p1 = A[1] * A[1] + A[2] * A[2] + A[5] * A[5], q = (A[0] + A[4] + A[8]) / 3;
    double p2 = (A[0] - q) * (A[0] - q) + (A[4] - q) * (A[4] - q) + (A[8] - q) * (A[8] - q) + 2 * p1;
    if (!(p2 > 0)) {
        e[0] = e[1] = e[2] = q;
        return;
    }
    if (p1 == 0) { /* diagonal: exact */
        double a = fmin(A[0], fmin(A[4], A[8])), c = fmax(A[0], fmax(A[4], A[8]));
        e[0] = a;
        e[2] = c;
        e[1] = A[0] + A[4] + A[8] - a - c;
        return;
    }
    double p = sqrt(p2 / 6), B[9];
    for (int k = 0; k < 9; k++) B[k] = (A[k] - (k % 4 == 0 ? q : 0)) / p;
    double r = (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                B[2] * (B[3] * B[7] - B[4] * B[6])) / 2;
    double phi = dm_acos(fmin(1, fmax(-1, r))) / 3;
    e[2] = q + 2 * p * dm_cos(phi);
    e[0] = q + 2 * p * dm_cos(phi + 2 * M_PI / 3);
    e[1] = 3 * q - e[0] - e[2];
}

/* Planar back-ends read izz alone (the freeflyer: bodies turning about parallel z axes). */
static int planar_backend(const ModelDesc *d) { return strcmp(d->backend, "freeflyer") == 0; }

/* How a link that seems to need no mass is written: its mass is there even where no torque feels it. */
#define MODEL_MASSLESS_HINT                                                                                           \
    "on a link turning about a fixed axis through its centre of mass any mass > 0 gives the same torques"

/* Why a body of zero mass with inertia I (not all zero, principal moments e) is refused. A rotor's inertia J a a'
 * about the unit joint axis a is no rigid body's either (its two other moments are zero, below the triangle
 * inequality): the message then gives a disc's about that axis, J/2 (E + a a'), which turns about a the same. */
static int massless_inertia(const ModelJoint *j, const double e[3], double tol, char *why, size_t n)
{
    const double *I = j->inertia;
    double a[3] = {j->axis[0], j->axis[1], j->axis[2]}, na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), J = 0;
    int rotor = na > 0;
    for (int k = 0; k < 3 && rotor; k++) a[k] /= na;
    for (int r = 0; r < 3 && rotor; r++)
        for (int c = 0; c < 3; c++) J += a[r] * I[3 * r + c] * a[c];
    for (int r = 0; r < 3 && rotor; r++)
        for (int c = 0; c < 3; c++)
            if (fabs(I[3 * r + c] - J * a[r] * a[c]) > tol) rotor = 0;
    if (!rotor)
        return snprintf(why, n, "mass 0 kg with an inertia (principal moments %g, %g, %g kg m^2): a body with inertia "
                        "has a mass > 0 (" MODEL_MASSLESS_HINT ")", e[0], e[1], e[2]), MODEL_EINVAL;
    double D[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) D[3 * r + c] = J / 2 * ((r == c) + a[r] * a[c]);
    return snprintf(why, n, "mass 0 kg with %g kg m^2 about the joint axis alone, which no rigid body has: give the "
                    "link its mass (" MODEL_MASSLESS_HINT ") and a body's inertia, e.g. a disc's: ixx %g, iyy %g, izz "
                    "%g, ixy %g, ixz %g, iyz %g kg m^2 (link frame)", J, D[0], D[4], D[8], D[1], D[2], D[5]),
           MODEL_EINVAL;
}

int model_body_check(const ModelDesc *d, int i, char *why, size_t n)
{
    const ModelJoint *j = &d->joint[i];
    const double *I = j->inertia;
    if (!isfinite(j->mass) || j->mass < 0)
        return snprintf(why, n, "mass %g kg: must be finite and >= 0", j->mass), MODEL_EINVAL;
    if (planar_backend(d)) {
        if (!isfinite(I[8]) || I[8] < 0)
            return snprintf(why, n, "inertia izz %g kg m^2: must be finite and >= 0", I[8]), MODEL_EINVAL;
        if (j->mass == 0 && I[8] > 0)
            return snprintf(why, n, "mass 0 kg with an inertia izz %g kg m^2: a body with inertia has a mass > 0 ("
                            MODEL_MASSLESS_HINT ")", I[8]), MODEL_EINVAL;
        return MODEL_OK;
    }
    double big = 0;
    for (int k = 0; k < 9; k++) {
        if (!isfinite(I[k])) return snprintf(why, n, "inertia: not finite"), MODEL_EINVAL;
        big = fmax(big, fabs(I[k]));
    }
    double tol = 1e-6 * big; /* values printed to six digits, a thin rod's or disc's equality */
    for (int r = 0; r < 3; r++)
        for (int c = r + 1; c < 3; c++)
            if (fabs(I[3 * r + c] - I[3 * c + r]) > tol)
                return snprintf(why, n, "inertia: not symmetric (%g and %g kg m^2)", I[3 * r + c], I[3 * c + r]),
                       MODEL_EINVAL;
    if (big == 0) return MODEL_OK;
    double e[3];
    sym3_eigenvalues(I, e);
    if (e[0] < -tol)
        return snprintf(why, n, "inertia (ixx %g, iyy %g, izz %g, ixy %g, ixz %g, iyz %g kg m^2) is not positive "
                        "semi-definite: principal moments %g, %g, %g kg m^2", I[0], I[4], I[8], I[1], I[2], I[5],
                        e[0], e[1], e[2]), MODEL_EINVAL;
    if (j->mass == 0) return massless_inertia(j, e, tol, why, n);
    /* measured data break it a little (Armstrong's PUMA link 3: 0.066 + 0.0125 < 0.086 kg m^2, by 9 %) */
    if (e[0] + e[1] < e[2] - MODEL_TRIANGLE_TOL * e[2])
        return snprintf(why, n, "inertia violates the triangle inequality: principal moments %g + %g < %g kg m^2 (by "
                        "more than %g %%: no rigid body has them)", e[0], e[1], e[2], 100 * MODEL_TRIANGLE_TOL),
               MODEL_EINVAL;
    return MODEL_OK;
}

int model_limits_check(const ModelDesc *d, int i, int *which, char *why, size_t n)
{
    int spare;
    if (!which) which = &spare;
    const ModelJoint *j = &d->joint[i];
    const ModelAxisLimits *l = &j->limits;
    int rev = j->type == MODEL_REVOLUTE;
    const char *names[4] = {"speed", "acc", "jerk", "effort"};
    const char *units[4] = {rev ? "rad/s" : "m/s", rev ? "rad/s^2" : "m/s^2", rev ? "rad/s^3" : "m/s^3",
                            rev ? "Nm" : "N"};
    double v[4] = {l->vmax, l->amax, l->jmax, l->effort};
    *which = 0;
    if (isnan(l->min) || isnan(l->max) || l->min > l->max)
        return snprintf(why, n, "min %g %s is above max %g %s", l->min, rev ? "rad" : "m", l->max, rev ? "rad" : "m"),
               MODEL_EINVAL;
    for (int k = 0; k < 4; k++) {
        *which = k + 1;
        if (isnan(v[k]) || v[k] <= 0)
            return snprintf(why, n, "%s %g %s: a limit must be > 0 (INF, or leaving it out, means none)", names[k],
                            v[k], units[k]), MODEL_EINVAL;
        if (v[k] < MODEL_LIMIT_FLOOR)
            return snprintf(why, n, "%s %g %s: absurdly small (below %g %s): a slip of units?", names[k], v[k],
                            units[k], MODEL_LIMIT_FLOOR, units[k]), MODEL_EINVAL;
    }
    return MODEL_OK;
}

int model_desc_check(const ModelDesc *d, char *err, size_t errlen)
{
    char why[384];
    for (int i = 0; i < d->njoints && i < MODEL_MAX_DOF; i++)
        if (model_body_check(d, i, why, sizeof why) < 0 || model_limits_check(d, i, NULL, why, sizeof why) < 0) {
            if (err && errlen)
                snprintf(err, errlen, "%s: joint %s: %s", d->source[0] ? d->source : d->name, d->joint[i].name, why);
            return MODEL_EINVAL;
        }
    return MODEL_OK;
}

/* }====================================================================== */

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
