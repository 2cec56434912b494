/* online_approach.h — the approach to the start (`irl run --online --approach`): when the drive reports its axes
 * standing away from the program's start, they are first moved there by one PTP per device from where they stand
 * to the start, planned by the program's own planner (motion/planner.h: joint-synchronised, jerk-limited) at
 * ONLINE_APPROACH_OVERRIDE of every axis's speed, acceleration and jerk limit (SPEED_PTP and ACC_PTP), all devices
 * stretched to the slowest one's duration so they arrive together. Its setpoints are sampled on the cycle's
 * grid by the planner thread and queued before the program's first one, marked as approach setpoints
 * (rt_loop.h RtSetpoint.approach): online.csv logs them with state `approach` and cycle -1, outside the trace.
 *
 * Everything is allocated by online_approach_plan (normal thread, before the real-time thread starts);
 * online_approach_next only samples. */
#ifndef IRL_ONLINE_APPROACH_H
#define IRL_ONLINE_APPROACH_H

#include <stdio.h>

#include "exec/sample.h"
#include "model.h"
#include "motion/planner.h"
#include "online/drivers/driver.h"

#define ONLINE_APPROACH_OVERRIDE 0.10 /* of the speed, acceleration and jerk limits */
#define ONLINE_APPROACH_MIN 1e-9      /* rad or m: an axis nearer its start than this does not need to move */

typedef struct {
    int ndev, naxes;
    int dof[SAMPLE_MAX_DEVICES];      /* axes of each device, in order */
    Planner pl[SAMPLE_MAX_DEVICES];   /* one per device */
    int planned[SAMPLE_MAX_DEVICES];  /* 1: pl[d] is initialised (its device moves) */
    double from[DRIVER_MAX_AXES], to[DRIVER_MAX_AXES];
    double dt, duration;              /* s */
    long steps, next;                 /* setpoints of the approach (the last at the start, at rest); the next one */
} OnlineApproach;

/* Plan the approach from `from` to `to` (flat over the devices' axes, models[d] with dof[d] axes each) at cycle dt.
 * 0, or -1 with a message in err. */
int online_approach_plan(OnlineApproach *a, Model *const *models, const int *dof, int ndev, const double *from,
                         const double *to, double dt, char *err, size_t errlen);
/* The next setpoint (positions, speeds, flat over the axes): 1 given, 0 the approach is over. */
int online_approach_next(OnlineApproach *a, double *q, double *qd);
void online_approach_free(OnlineApproach *a);
/* online.json's "approach" member's value: override, duration, setpoints written, and per axis from, to, distance
 * with its unit. */
void online_approach_json(FILE *f, const OnlineApproach *a, const char (*axis_name)[DRIVER_NAME_LEN],
                          const int *linear, long written, int completed);

#endif
