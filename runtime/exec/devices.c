/* devices.c — the devices of a running program opened on the machines the CLI read (src/bind.c), their start
 * positions, and the I/O points with their offline stimulus and PULSE timers (devices.h). */
#include "exec/devices.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *kstr(const Chunk *c, int32_t i) { return i >= 0 && i < c->nkstr ? c->kstr[i].text : ""; }

/* Add an output limit `name` copying the limits of `from`, when `from` exists and `name` does not. */
static void derive_limit(ModelDesc *d, const char *from, const char *name)
{
    const ModelOutputLimit *src = NULL;
    for (int i = 0; i < d->noutput_limits; i++) {
        if (strcasecmp(d->output_limit[i].name, name) == 0) return;
        if (strcasecmp(d->output_limit[i].name, from) == 0) src = &d->output_limit[i];
    }
    if (!src || d->noutput_limits >= MODEL_MAX_OUTPUTS) return;
    ModelOutputLimit *l = &d->output_limit[d->noutput_limits++];
    *l = *src;
    snprintf(l->name, sizeof l->name, "%s", name);
}

/* Open one device's model on its machine and set its start position. */
static int bind_device(Device *dv, const Chunk *c, const ChunkDevice *cd, const DeviceMachine *mach,
                       const RunOptions *o, char *err, size_t errlen)
{
    snprintf(dv->name, sizeof dv->name, "%s", kstr(c, cd->name));
    snprintf(dv->path, sizeof dv->path, "%s", mach->path);
    char merr[256];
    if (model_open(&dv->model, &mach->desc, merr, sizeof merr) < 0) {
        snprintf(err, errlen, "device %s: %s", dv->name, merr);
        return DEVICES_EINVALID;
    }
    dv->open = 1;
    Model *m = &dv->model;
    for (int i = 0; i < m->dof; i++) dv->start[i] = m->desc.joint[i].home;
    for (int i = 0; i < o->nstart; i++) {
        if (strcasecmp(o->start[i].dev, dv->name) != 0) continue;
        if (o->start[i].n != m->dof) {
            snprintf(err, errlen, "--start %s gives %d values for %d axes", dv->name, o->start[i].n, m->dof);
            return DEVICES_EINVALID;
        }
        memcpy(dv->start, o->start[i].q, (size_t)m->dof * sizeof *dv->start);
    }
    double pos[3], R[9], tau[MODEL_MAX_DOF], zero[MODEL_MAX_DOF] = {0};
    dv->has_pose = model_fk(m, dv->start, -1, pos, R) >= 0;
    dv->has_id = model_inverse_dynamics(m, dv->start, zero, zero, tau) >= 0;
    dv->gprofile = m->type->gprofile != NULL;
    dv->check_desc = m->desc;
    if (dv->gprofile) { /* the felt G of a G-profile machine is checked against the limits of the commanded one */
        derive_limit(&dv->check_desc, "G", "Gfelt");
        derive_limit(&dv->check_desc, "Gdot", "Gfeltdot");
    }
    return DEVICES_OK;
}

/* Append one stimulus event to an input. */
static int add_event(DevicesIo *io, double t, double v)
{
    double *nt = realloc(io->st_t, (size_t)(io->nstim + 1) * sizeof *nt);
    if (!nt) return -1;
    io->st_t = nt;
    double *nv = realloc(io->st_v, (size_t)(io->nstim + 1) * sizeof *nv);
    if (!nv) return -1;
    io->st_v = nv;
    io->st_t[io->nstim] = t;
    io->st_v[io->nstim] = v;
    io->nstim++;
    return 0;
}

static int find_io(const Devices *ds, const char *name)
{
    for (int i = 0; i < ds->nio; i++)
        if (strcasecmp(ds->io[i].name, name) == 0) return i;
    return -1;
}

/* A stimulus event for a named input; an unknown or output name is an error. */
static int stimulus(Devices *ds, const char *name, double t, double v, const char *where, char *err, size_t errlen)
{
    int k = find_io(ds, name);
    if (k < 0 || (ds->io[k].kind != 0 && ds->io[k].kind != 2)) {
        snprintf(err, errlen, "%s: '%s' is not an input (DIN or AIN) of the program", where, name);
        return DEVICES_EINVALID;
    }
    if (add_event(&ds->io[k], t, v)) {
        snprintf(err, errlen, "out of memory");
        return DEVICES_EINVALID;
    }
    return DEVICES_OK;
}

/* Read a CSV stimulus file: `t,name,value` per line; a first line that does not start with a number is a header. */
static int read_csv(Devices *ds, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open input file '%s': %s", path, strerror(errno));
        return DEVICES_EIO;
    }
    char line[512];
    int n = 0, rc = DEVICES_OK;
    while (rc == DEVICES_OK && fgets(line, sizeof line, f)) {
        n++;
        char *p = line, *end;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\n' || *p == '\r' || *p == '\0' || *p == '#') continue;
        double t = strtod(p, &end);
        if (end == p) {
            if (n == 1) continue; /* header */
            snprintf(err, errlen, "%s:%d: expected t,name,value", path, n);
            rc = DEVICES_EINVALID;
            break;
        }
        char name[SAMPLE_NAME_LEN];
        double v;
        if (sscanf(end, " , %63[^, \t] , %lf", name, &v) != 2 || !(t >= 0)) {
            snprintf(err, errlen, "%s:%d: expected t,name,value", path, n);
            rc = DEVICES_EINVALID;
            break;
        }
        char where[300];
        snprintf(where, sizeof where, "%s:%d", path, n);
        rc = stimulus(ds, name, t, v, where, err, errlen);
    }
    fclose(f);
    return rc;
}

/* Sort one input's events by time, keeping the given order for equal times (insertion sort: short lists). */
static void sort_events(DevicesIo *io)
{
    for (int i = 1; i < io->nstim; i++)
        for (int j = i; j > 0 && io->st_t[j - 1] > io->st_t[j]; j--) {
            double t = io->st_t[j], v = io->st_v[j];
            io->st_t[j] = io->st_t[j - 1], io->st_v[j] = io->st_v[j - 1];
            io->st_t[j - 1] = t, io->st_v[j - 1] = v;
        }
}

int devices_bind(Devices *ds, const Chunk *c, const DeviceMachine *machines, const RunOptions *o, char *err,
                 size_t errlen)
{
    memset(ds, 0, sizeof *ds);
    err[0] = '\0';
    if (c->ndevices > SAMPLE_MAX_DEVICES) {
        snprintf(err, errlen, "the program declares %d devices; at most %d are supported", c->ndevices,
                 SAMPLE_MAX_DEVICES);
        return DEVICES_EINVALID;
    }
    if (c->ndevices && !machines) {
        snprintf(err, errlen, "the program declares %d devices and no machine was bound to them", c->ndevices);
        return DEVICES_EINVALID;
    }
    if (c->ndevices) {
        ds->dev = calloc((size_t)c->ndevices, sizeof *ds->dev);
        if (!ds->dev) return snprintf(err, errlen, "out of memory"), DEVICES_EINVALID;
    }
    for (int i = 0; i < c->ndevices; i++) {
        int rc = bind_device(&ds->dev[i], c, &c->devices[i], &machines[i], o, err, errlen);
        if (rc != DEVICES_OK) return rc;
        ds->ndev++;
    }
    if (c->nios) {
        ds->io = calloc((size_t)c->nios, sizeof *ds->io);
        if (!ds->io) return snprintf(err, errlen, "out of memory"), DEVICES_EINVALID;
    }
    for (int i = 0; i < c->nios; i++) {
        DevicesIo *io = &ds->io[i];
        snprintf(io->name, sizeof io->name, "%s", kstr(c, c->ios[i].name));
        io->kind = c->ios[i].kind;
        io->channel = c->ios[i].channel;
        io->pulse_end = NAN;
        ds->nio++;
    }
    for (int i = 0; i < o->ninput; i++) {
        int rc = stimulus(ds, o->input[i].name, o->input[i].t, o->input[i].value, "--input", err, errlen);
        if (rc != DEVICES_OK) return rc;
    }
    for (int i = 0; i < o->ncsv; i++) {
        int rc = read_csv(ds, o->csv[i], err, errlen);
        if (rc != DEVICES_OK) return rc;
    }
    for (int i = 0; i < ds->nio; i++) sort_events(&ds->io[i]);
    devices_io_tick(ds, 0.0);
    return DEVICES_OK;
}

void devices_free(Devices *ds)
{
    for (int i = 0; i < ds->ndev; i++)
        if (ds->dev[i].open) model_close(&ds->dev[i].model);
    for (int i = 0; i < ds->nio; i++) {
        free(ds->io[i].st_t);
        free(ds->io[i].st_v);
    }
    free(ds->dev);
    free(ds->io);
    memset(ds, 0, sizeof *ds);
}

void devices_io_tick(Devices *ds, double t)
{
    for (int i = 0; i < ds->nio; i++) {
        DevicesIo *io = &ds->io[i];
        while (io->next < io->nstim && io->st_t[io->next] <= t + 1e-12) io->value = io->st_v[io->next++];
        if (!isnan(io->pulse_end) && t >= io->pulse_end - 1e-12) {
            io->value = 0;
            io->pulse_end = NAN;
        }
    }
}

int devices_io_read(const Devices *ds, int io, double *v)
{
    if (io < 0 || io >= ds->nio) return -1;
    *v = ds->io[io].value;
    return 0;
}

int devices_io_write(Devices *ds, int io, double v)
{
    if (io < 0 || io >= ds->nio) return -1;
    ds->io[io].value = v;
    ds->io[io].pulse_end = NAN;
    return 0;
}

void devices_io_set_inputs(Devices *ds, uint64_t bits)
{
    for (int i = 0; i < ds->nio; i++) {
        DevicesIo *io = &ds->io[i];
        if (io->kind == 0 && io->channel >= 0 && io->channel < 64) io->value = (double)((bits >> io->channel) & 1);
    }
}

uint64_t devices_io_outputs(const Devices *ds)
{
    uint64_t bits = 0;
    for (int i = 0; i < ds->nio; i++) {
        const DevicesIo *io = &ds->io[i];
        if (io->kind == 1 && io->channel >= 0 && io->channel < 64 && io->value != 0) bits |= (uint64_t)1 << io->channel;
    }
    return bits;
}
