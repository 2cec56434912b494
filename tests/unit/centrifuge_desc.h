/* centrifuge_desc.h — a realistic human-centrifuge machine as a ModelDesc for backend "centrifuge" (what
 * models/centrifuge.irm will say once the machine-file parser exists), for the unit tests.
 *
 * Sources. Seed 000 gives no machine data (its section 4 shows only plots). The arm length follows the R = 8 m test
 * vectors of background/language.md 3.2 and NASTAR's 7.6 m arm; the G limits follow NATO figures there (> 9 G
 * sustained, onset up to 6 G/s). Every mass, centre of mass, inertia and actuator limit below is an ASSUMPTION of
 * plausible magnitude (a ~12 t arm with counterweight, a ~0.9 t pitch ring, a ~1.8 t cabin with occupant). The
 * limits are sized so that the ERRATA test profile (1.4 -> 9 G at 3 G/s, 0.5 s blend) and a 2 -> 9 G rapid-onset
 * run at 6 G/s stay inside them, while 1.4 -> 9 G at 6 G/s does not (roll and pitch rates: high onset rates need a
 * pre-spun baseline, background/language.md 3.2). The peaks measured on those runs are in
 * docs/MODELS.md §9. Products of inertia are non-zero on purpose, so the
 * tests exercise full tensors.
 *
 * The joint origins and axes are filled as a "chain" description of the very same machine (the centrifuge back-end
 * ignores them and uses the paper's geometry from arm_length): joint 1 about z0 at the base origin, joint 2 about
 * -y1 at (a1, 0, 0) of link 1, joint 3 about x2 at the origin of link 2. */
#ifndef IRL_TEST_CENTRIFUGE_DESC_H
#define IRL_TEST_CENTRIFUGE_DESC_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

#define CENTRIFUGE_DESC_ARM 8.0   /* m, a1 */
#define CENTRIFUGE_DESC_HEAD 0.85 /* m, head above the seat point along +z3 (seated occupant, assumption) */

static inline void centrifuge_desc_joint(ModelJoint *j, const char *name, const char *link, int parent)
{
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memset(j, 0, sizeof *j);
    snprintf(j->name, sizeof j->name, "%s", name);
    snprintf(j->link, sizeof j->link, "%s", link);
    j->parent = parent;
    j->type = MODEL_REVOLUTE;
    memcpy(j->origin_R, I3, sizeof I3);
    j->powered = 1;
    j->limits = (ModelAxisLimits){-INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
}

static inline void centrifuge_desc_param(ModelDesc *d, const char *name, double v)
{
    ModelParam *p = &d->param[d->nparams++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->n = 1;
    p->v[0] = v;
}

/* Fill d with the test machine "lola_hc" (all fields set; needs no model.c helpers). */
static inline void centrifuge_desc_fill(ModelDesc *d)
{
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "lola_hc");
    snprintf(d->backend, sizeof d->backend, "centrifuge");
    snprintf(d->source, sizeof d->source, "tests/unit/centrifuge_desc.h");
    d->gravity[2] = -9.81;
    d->tool_link = -1;
    memcpy(d->tool_R, I3, sizeof I3);
    d->njoints = 3;

    /* Planetary axis: arm + counterweight + drive-side hub. COM 2 m out along the arm, 0.2 m below the arm line;
     * inertia of a ~11 m truss beam about its COM (assumed). Drive: 1.2 MN m peak torque, 3.6 rad/s (34 rpm). */
    ModelJoint *j = &d->joint[0];
    centrifuge_desc_joint(j, "planetary", "arm", -1);
    j->axis[2] = 1.0;
    j->mass = 12000.0;
    j->com[0] = 2.0; j->com[2] = -0.2;
    double Iarm[9] = {4000, 0, -800, 0, 95000, 0, -800, 0, 98000};
    memcpy(j->inertia, Iarm, sizeof Iarm);
    j->limits = (ModelAxisLimits){-INFINITY, INFINITY, 3.6, 3.0, 15.0, 1.2e6};

    /* Gondola pitch ring (outer gimbal), about -y1 through the seat: 0.9 t, COM near the axis (assumed). */
    j = &d->joint[1];
    centrifuge_desc_joint(j, "pitch", "ring", 0);
    j->origin_xyz[0] = CENTRIFUGE_DESC_ARM;
    j->axis[1] = -1.0;
    j->mass = 900.0;
    j->com[1] = 0.02; j->com[2] = -0.05;
    double Iring[9] = {1200, 10, 0, 10, 700, -20, 0, -20, 1100};
    memcpy(j->inertia, Iring, sizeof Iring);
    j->limits = (ModelAxisLimits){-0.35, 1.536, 1.5, 8.0, 60.0, 8.0e4}; /* -20 deg .. 88 deg, clear of 90 deg */

    /* Cabin with occupant (inner gimbal), about x2 through the seat: 1.8 t, COM 0.25 m below the seat point. */
    j = &d->joint[2];
    centrifuge_desc_joint(j, "roll", "cabin", 1);
    j->axis[0] = 1.0;
    j->mass = 1800.0;
    j->com[0] = 0.05; j->com[2] = -0.25;
    double Icab[9] = {1500, 20, -60, 20, 1700, 15, -60, 15, 900};
    memcpy(j->inertia, Icab, sizeof Icab);
    /* Roll is the axis a G onset stresses most (q3 follows w', which the 0.5 s blend switches on quickly): the rate,
     * acceleration and jerk limits are sized for the ERRATA profile and a 2 -> 9 G run at 6 G/s with that blend. */
    j->limits = (ModelAxisLimits){-1.4, 1.4, 3.5, 35.0, 800.0, 8.0e4};

    centrifuge_desc_param(d, "arm_length", CENTRIFUGE_DESC_ARM);
    centrifuge_desc_param(d, "head_height", CENTRIFUGE_DESC_HEAD);

    d->noutput_limits = 2;
    d->output_limit[0] = (ModelOutputLimit){"G", -INFINITY, 9.0}; /* upper limit only */
    d->output_limit[1] = (ModelOutputLimit){"Gdot", -6.0, 6.0};
}

#endif
