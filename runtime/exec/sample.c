/* sample.c — helpers to set up the per-cycle sample record and its layout (sample.h). */
#include "exec/sample.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Copy a device's fixed facts from a live model. */
void sample_device_info_from_model(SampleDeviceInfo *info, const char *name, Model *m, int has_pose)
{
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", name);
    info->naxes = m->dof;
    info->has_pose = has_pose;
    for (int i = 0; i < m->dof && i < SAMPLE_MAX_AXES; i++)
        snprintf(info->axis_name[i], sizeof info->axis_name[i], "%s", m->desc.joint[i].name);
    int n = model_output_count(m);
    if (n < 0) n = 0;
    if (n > SAMPLE_MAX_OUTPUTS) n = SAMPLE_MAX_OUTPUTS;
    info->nout = n;
    for (int i = 0; i < n; i++) {
        const char *on = model_output_name(m, i);
        snprintf(info->out_name[i], sizeof info->out_name[i], "%s", on ? on : "out");
        sample_output_unit(info, i, model_output_unit(m, i));
    }
    info->desc = &m->desc;
    info->nplots = m->type ? m->type->nplots : 0;
    info->plots = m->type ? m->type->plots : NULL;
}

void sample_output_unit(SampleDeviceInfo *info, int i, const char *unit)
{
    snprintf(info->out_unit[i], sizeof info->out_unit[i], "%s", unit);
    snprintf(info->out_rate_unit[i], sizeof info->out_rate_unit[i], "%s/s", *unit ? unit : "1");
}

/* Clear a sample: everything zero, the "not available" fields marked. */
void sample_init(Sample *s, const SampleLayout *lay)
{
    memset(s, 0, sizeof *s);
    s->ndev = lay->ndev;
    for (int d = 0; d < SAMPLE_MAX_DEVICES; d++) {
        for (int i = 0; i < SAMPLE_MAX_AXES; i++) s->dev[d].jerk[i] = NAN;
        s->dev[d].sing = NAN;
        s->dev[d].pose[3] = 1.0;
    }
}
