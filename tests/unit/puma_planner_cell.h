/* puma_planner_cell.h — the PUMA 560 planner case shared by test_planner.c and bench/dynamics/bench_planner.c:
 * the model with ik_tol 1e-13, home (0.1, 0.3, -0.2, 0.2, 0.7, -0.3) and per-axis limits, and its planner
 * configuration. */
#ifndef PUMA_PLANNER_CELL_H
#define PUMA_PLANNER_CELL_H

#include <string.h>

#include "model.h"
#include "motion/planner.h"
#include "puma560_desc.h"

/* Fill `d` with the PUMA 560, ik_tol 1e-13, the case's home and speed/acceleration/jerk limits. */
static inline void puma_planner_desc(ModelDesc *d)
{
    puma560_desc(d);
    ModelParam *tol = &d->param[d->nparams++];
    strcpy(tol->name, "ik_tol");
    tol->n = 1;
    tol->v[0] = 1e-13;
    static const double home[6] = {0.1, 0.3, -0.2, 0.2, 0.7, -0.3};
    for (int i = 0; i < 6; i++) {
        d->joint[i].home = home[i];
        d->joint[i].limits.vmax = i < 3 ? 2.0 : 4.0;
        d->joint[i].limits.amax = i < 3 ? 10.0 : 20.0;
        d->joint[i].limits.jmax = i < 3 ? 200.0 : 400.0;
    }
}

/* The planner of the case on the opened model `m`, sampled every `dt`. */
static inline void puma_planner_init(Planner *p, PlannerConfig *c, Model *m, double dt)
{
    planner_config_init(c, 6);
    planner_config_from_model(c, m);
    c->dt = dt;
    c->speed = 0.5;
    c->acc = 2.0;
    c->jerk = 20.0;
    planner_init(p, c);
}

#endif
