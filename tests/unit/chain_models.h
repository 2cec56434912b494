/* chain_models.h — seeded random machine descriptions for chain tests: serial chains and trees with random axes,
 * origins, masses and physically valid inertias, optionally with prismatic joints. */
#ifndef CHAIN_MODELS_H
#define CHAIN_MODELS_H

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "geom.h"
#include "model.h"

/* uniform in [a, b) */
static inline double cm_uniform(gsl_rng *r, double a, double b) { return a + (b - a) * gsl_rng_uniform(r); }

/* A random rotation (uniform unit quaternion by normalising 4 Gaussians-ish uniforms). */
static inline void cm_rotation(gsl_rng *r, double R[9])
{
    double q[4], n;
    do {
        for (int k = 0; k < 4; k++) q[k] = cm_uniform(r, -1, 1);
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 0.1 || n > 1);
    for (int k = 0; k < 4; k++) q[k] /= n;
    quat_to_m3(R, q);
}

/* A random unit vector. */
static inline void cm_unit(gsl_rng *r, double v[3])
{
    double n;
    do {
        for (int k = 0; k < 3; k++) v[k] = cm_uniform(r, -1, 1);
        n = v3_norm(v);
    } while (n < 0.1 || n > 1);
    v3_scale(v, v, 1.0 / n);
}

/* Random physical link: mass in [0.5, 5], COM within 0.3 m, inertia R diag(b+c, a+c, a+b) R^T (triangle
 * inequality holds by construction). */
static inline void cm_inertial(gsl_rng *r, ModelJoint *j)
{
    double a = cm_uniform(r, 0.001, 0.1), b = cm_uniform(r, 0.001, 0.1), c = cm_uniform(r, 0.001, 0.1), R[9];
    double D[3] = {b + c, a + c, a + b};
    j->mass = cm_uniform(r, 0.5, 5);
    for (int k = 0; k < 3; k++) j->com[k] = cm_uniform(r, -0.3, 0.3);
    cm_rotation(r, R);
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += R[3 * p + k] * D[k] * R[3 * q + k];
            j->inertia[3 * p + q] = s;
        }
    j->inertia[3] = j->inertia[1]; j->inertia[6] = j->inertia[2]; j->inertia[7] = j->inertia[5];
}

/* A random machine of n joints. tree: parent uniformly among earlier joints (else a serial chain).
 * prismatic_every: every k-th joint prismatic (0: none). */
static inline void cm_random_desc(ModelDesc *d, gsl_rng *r, int n, int tree, int prismatic_every)
{
    model_desc_init(d);
    snprintf(d->name, sizeof d->name, "random%d", n);
    strcpy(d->backend, "chain");
    d->njoints = n;
    v3_set(d->gravity, cm_uniform(r, -1, 1), cm_uniform(r, -1, 1), -9.81);
    for (int i = 0; i < n; i++) {
        ModelJoint *j = &d->joint[i];
        snprintf(j->name, sizeof j->name, "j%d", i);
        j->parent = i == 0 ? -1 : tree ? (int)gsl_rng_uniform_int(r, (unsigned long)i) : i - 1;
        j->type = (prismatic_every && i % prismatic_every == prismatic_every - 1) ? MODEL_PRISMATIC : MODEL_REVOLUTE;
        for (int k = 0; k < 3; k++) j->origin_xyz[k] = cm_uniform(r, -0.5, 0.5);
        cm_rotation(r, j->origin_R);
        cm_unit(r, j->axis);
        v3_scale(j->axis, j->axis, cm_uniform(r, 0.5, 2)); /* not unit: the back-end must normalise */
        cm_inertial(r, j);
    }
    d->tool_link = n - 1;
    for (int k = 0; k < 3; k++) d->tool_xyz[k] = cm_uniform(r, -0.2, 0.2);
    cm_rotation(r, d->tool_R);
}

#endif
