/* online_approach.c — the approach to the start (online_approach.h): one PTP per device on the program's planner,
 * sampled on the cycle's grid. */
#include "online/online_approach.h"

#include <math.h>
#include <string.h>

#include "output/report.h"

/* Plan device d's PTP (offset off in the flat axes) lasting at least `time` s (0: its own minimum); its duration
 * into *dur. 0, or -1 with a message. */
static int plan_device(OnlineApproach *a, int d, Model *m, int off, double time, double *dur, char *err,
                       size_t errlen)
{
    Planner *p = &a->pl[d];
    if (a->planned[d]) planner_free(p), a->planned[d] = 0;
    PlannerConfig cfg;
    planner_config_init(&cfg, a->dof[d]);
    planner_config_from_model(&cfg, m);
    cfg.model = NULL; /* joint space only: no kinematics in this thread's way */
    cfg.capacity = 2;
    cfg.dt = a->dt;
    memcpy(cfg.q_start, a->from + off, (size_t)a->dof[d] * sizeof *cfg.q_start);
    if (planner_init(p, &cfg) != PLANNER_OK)
        return snprintf(err, errlen, "approach: %s", planner_error(p)), -1;
    a->planned[d] = 1;
    PlannerParams par = {.speed_ptp = ONLINE_APPROACH_OVERRIDE, .acc_ptp = ONLINE_APPROACH_OVERRIDE, .time = time};
    PlannerPushInfo info;
    if (planner_push_ptp(p, a->to + off, &par, (PlannerSrc){0}, &info) != PLANNER_OK)
        return snprintf(err, errlen, "approach: %s", planner_error(p)), -1;
    planner_flush(p);
    *dur = info.duration;
    return 0;
}

/* Does any axis of device d (offset off) need to move? */
static int device_moves(const OnlineApproach *a, int d, int off)
{
    for (int i = 0; i < a->dof[d]; i++)
        if (fabs(a->to[off + i] - a->from[off + i]) > ONLINE_APPROACH_MIN) return 1;
    return 0;
}

int online_approach_plan(OnlineApproach *a, Model *const *models, const int *dof, int ndev, const double *from,
                         const double *to, double dt, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (ndev > SAMPLE_MAX_DEVICES) return snprintf(err, errlen, "approach: too many devices"), -1;
    a->ndev = ndev;
    a->dt = dt;
    for (int d = 0; d < ndev; d++) a->dof[d] = dof[d], a->naxes += dof[d];
    if (a->naxes > DRIVER_MAX_AXES) return snprintf(err, errlen, "approach: too many axes"), -1;
    memcpy(a->from, from, (size_t)a->naxes * sizeof *from);
    memcpy(a->to, to, (size_t)a->naxes * sizeof *to);
    /* each device at its own minimum time, then all stretched to the slowest (TIME): they arrive together */
    double dur[SAMPLE_MAX_DEVICES] = {0};
    for (int d = 0, off = 0; d < ndev; off += dof[d], d++) {
        if (!device_moves(a, d, off)) continue;
        if (plan_device(a, d, models[d], off, 0, &dur[d], err, errlen) < 0) return online_approach_free(a), -1;
        if (dur[d] > a->duration) a->duration = dur[d];
    }
    for (int d = 0, off = 0; d < ndev; off += dof[d], d++)
        if (a->planned[d] && dur[d] < a->duration &&
            plan_device(a, d, models[d], off, a->duration, &dur[d], err, errlen) < 0)
            return online_approach_free(a), -1;
    a->steps = a->duration > 0 ? (long)ceil(a->duration / dt - 1e-9) : 0;
    if (a->steps > 0) {
        PlannerSetpoint sp; /* time 0 starts every segment where the axes stand */
        for (int d = 0; d < ndev; d++)
            if (a->planned[d]) planner_sample(&a->pl[d], 0, &sp);
    }
    return 0;
}

int online_approach_next(OnlineApproach *a, double *q, double *qd)
{
    if (a->next >= a->steps) return 0;
    long k = ++a->next;
    PlannerSetpoint sp;
    for (int d = 0, off = 0; d < a->ndev; off += a->dof[d], d++) {
        int n = a->dof[d];
        if (a->planned[d] && k < a->steps) {
            planner_sample(&a->pl[d], (double)k * a->dt, &sp);
            memcpy(q + off, sp.q, (size_t)n * sizeof *q);
            memcpy(qd + off, sp.qd, (size_t)n * sizeof *qd);
        } else { /* at the start, at rest: the last setpoint is the program's first position exactly */
            memcpy(q + off, a->to + off, (size_t)n * sizeof *q);
            memset(qd + off, 0, (size_t)n * sizeof *qd);
        }
    }
    return 1;
}

void online_approach_free(OnlineApproach *a)
{
    for (int d = 0; d < a->ndev; d++)
        if (a->planned[d]) planner_free(&a->pl[d]), a->planned[d] = 0;
}

void online_approach_json(FILE *f, const OnlineApproach *a, const char (*axis_name)[DRIVER_NAME_LEN],
                          const int *linear, long written, int completed)
{
    fprintf(f, "{\"override\": %.9g, \"duration_s\": %.9g, \"setpoints\": %ld, \"written\": %ld, \"complete\": %s, "
            "\"axes\": [", ONLINE_APPROACH_OVERRIDE, (double)a->steps * a->dt, a->steps, written,
            completed ? "true" : "false");
    for (int k = 0; k < a->naxes; k++) {
        fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
        report_json_string(f, axis_name[k]);
        fprintf(f, ", \"from\": %.17g, \"to\": %.17g, \"distance\": %.17g, \"unit\": \"%s\"}", a->from[k], a->to[k],
                a->to[k] - a->from[k], linear[k] ? "m" : "rad");
    }
    fputs("\n  ]}", f);
}
