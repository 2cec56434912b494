/* friction.c — joint friction (model.h, ModelFriction): the smoothed viscous + asymmetric Coulomb law the model_*
 * wrappers apply for every back-end, and the check of a description's friction values. */
#include "model.h"

#include <math.h>
#include <stdio.h>

#include "dmath.h"

/* tau_f = B qd + c_avg t + c_dif t^2, t = tanh(qd / vband): Tc+ for qd > 0, -Tc- for qd < 0 once |t| rounds to 1.
 * Dissipative everywhere: for qd > 0, t > 0 and c_avg + c_dif t >= min(Tc+, Tc-) >= 0 (likewise for qd < 0). */
double model_friction_joint(const ModelFriction *f, double qd)
{
    double tf = f->viscous * qd;
    if (f->coulomb_pos != 0 || f->coulomb_neg != 0) {
        double t = dm_tanh(qd / MODEL_FRICTION_VBAND);
        tf += 0.5 * (f->coulomb_pos + f->coulomb_neg) * t + 0.5 * (f->coulomb_pos - f->coulomb_neg) * t * t;
    }
    return tf;
}

/* tau_f of every joint of m. */
void model_friction(const Model *m, const double *qd, double *tau_f)
{
    for (int i = 0; i < m->dof; i++)
        tau_f[i] = m->has_friction ? model_friction_joint(&m->desc.joint[i].friction, qd[i]) : 0.0;
}

/* Every coefficient finite and >= 0: negative friction would feed energy into the machine. */
int model_friction_check(const ModelDesc *d, char *err, size_t errlen)
{
    static const char *const names[3] = {"viscous", "Coulomb (qd > 0)", "Coulomb (qd < 0)"};
    for (int i = 0; i < d->njoints && i < MODEL_MAX_DOF; i++) {
        const ModelFriction *f = &d->joint[i].friction;
        const double v[3] = {f->viscous, f->coulomb_pos, f->coulomb_neg};
        for (int k = 0; k < 3; k++)
            if (!(v[k] >= 0) || !isfinite(v[k])) {
                if (err && errlen)
                    snprintf(err, errlen, "%s: joint %s: %s friction %g must be finite and >= 0",
                             d->source[0] ? d->source : d->name, d->joint[i].name, names[k], v[k]);
                return MODEL_EINVAL;
            }
    }
    return MODEL_OK;
}
