/* bind.c — reading the machine file of each DEVICE of a program (bind.h). */
#include "bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diag.h"
#include "machine.h"
#include "urdf.h"

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static const char *kstr(const Chunk *c, int32_t i) { return i >= 0 && i < c->nkstr ? c->kstr[i].text : ""; }

/* A relative machine-file path is taken from the program's folder. */
static void resolve_path(char *out, size_t n, const char *program, const char *file)
{
    const char *slash = strrchr(program, '/');
    if (file[0] == '/' || !slash || (slash == program + 1 && program[0] == '.')) snprintf(out, n, "%s", file);
    else snprintf(out, n, "%.*s/%s", (int)(slash - program), program, file);
}

/* Read a machine file into d (.urdf: the URDF reader, for CHAIN; anything else: the .irm reader). */
static int read_machine(const char *path, ModelDesc *d, char *err, size_t errlen)
{
    if (ends_with_ci(path, ".urdf")) {
        int rc = urdf_read(path, d, err, errlen);
        if (rc == 0) return BIND_OK;
        FILE *f = fopen(path, "r");
        if (!f) return BIND_EIO;
        fclose(f);
        return BIND_EINVALID;
    }
    Diag diag;
    diag_init(&diag, stderr);
    model_desc_init(d);
    int rc = machine_load(path, d, &diag);
    diag_free(&diag);
    if (rc == MACHINE_OK) return BIND_OK;
    if (rc == MACHINE_EIO) { /* the reader has said "cannot open" */
        err[0] = '\0';
        return BIND_EIO;
    }
    snprintf(err, errlen, "cannot load machine file '%s'", path);
    return BIND_EINVALID;
}

/* Resolve, read and check the machine of device declaration cd. */
static int bind_one(DeviceMachine *m, const Chunk *c, const ChunkDevice *cd, const char *program, const RunOptions *o,
                    char *err, size_t errlen)
{
    const char *name = kstr(c, cd->name), *backend = kstr(c, cd->backend), *file = kstr(c, cd->file);
    const char *given = NULL;
    for (int i = 0; i < o->nbind; i++)
        if (strcasecmp(o->bind[i].dev, name) == 0) given = o->bind[i].path;
    /* a .irlc resolves from the folder of the source it was compiled from (its file table), like the .irl */
    const char *from = program;
    if (ends_with_ci(program, ".irlc") && c->nfiles > 0 && c->files[0] >= 0 && c->files[0] < c->nkstr)
        from = kstr(c, c->files[0]);
    if (given) snprintf(m->path, sizeof m->path, "%s", given);
    else resolve_path(m->path, sizeof m->path, from, file);
    if (!*file && !given) {
        snprintf(err, errlen, "device %s has no machine file (give one with --device %s=FILE)", name, name);
        return BIND_EINVALID;
    }
    int rc = read_machine(m->path, &m->desc, err, errlen);
    if (rc == BIND_OK && *backend && strcasecmp(m->desc.backend, backend) != 0 && !ends_with_ci(m->path, ".urdf")) {
        snprintf(err, errlen, "device %s is declared %s but '%s' describes a %s machine", name, backend, m->path,
                 m->desc.backend);
        rc = BIND_EINVALID;
    }
    if (rc == BIND_OK && ends_with_ci(m->path, ".urdf") && strcasecmp(backend, "chain") != 0) {
        snprintf(err, errlen, "device %s: a URDF file describes a CHAIN, not a %s", name, backend);
        rc = BIND_EINVALID;
    }
    return rc;
}

int bind_machines(const Chunk *c, const char *program, const RunOptions *o, DeviceMachine **out, char *err,
                  size_t errlen)
{
    *out = NULL;
    err[0] = '\0';
    if (c->ndevices > SAMPLE_MAX_DEVICES) {
        snprintf(err, errlen, "the program declares %d devices; at most %d are supported", c->ndevices,
                 SAMPLE_MAX_DEVICES);
        return BIND_EINVALID;
    }
    for (int i = 0; i < o->nbind; i++) {
        int found = 0;
        for (int k = 0; k < c->ndevices; k++) found |= strcasecmp(kstr(c, c->devices[k].name), o->bind[i].dev) == 0;
        if (!found) {
            snprintf(err, errlen, "--device %s: the program declares no such device", o->bind[i].dev);
            return BIND_EINVALID;
        }
    }
    if (c->ndevices == 0) return BIND_OK;
    DeviceMachine *m = calloc((size_t)c->ndevices, sizeof *m);
    if (!m) return snprintf(err, errlen, "out of memory"), BIND_EINVALID;
    for (int i = 0; i < c->ndevices; i++) {
        int rc = bind_one(&m[i], c, &c->devices[i], program, o, err, errlen);
        if (rc != BIND_OK) return free(m), rc;
    }
    *out = m;
    return BIND_OK;
}

void bind_free(DeviceMachine *m) { free(m); }
