/* h5_loader.c — libhdf5 through dlopen on first use (see h5_loader.h). */
#include "output/h5_loader.h"

#include <dlfcn.h>
#include <stdio.h>

#include "dynlib.h"
#include "osal.h"

#ifndef HDF5_SONAME
#define HDF5_SONAME "libhdf5_serial.so.103"
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

/* Loaded once per process: the table and, when loading failed, why. */
static struct {
    OsalOnce once;
    int ok;
    H5Api api;
    char why[512];
} h5_lib = {OSAL_ONCE_INIT, 0, {0}, ""};

/* Bind symbol `name` into *slot (dynlib_bind, the reason in h5_lib.why). */
static int h5_bind(void *h, const char *name, void *slot)
{
    return dynlib_bind(h, HDF5_SONAME, name, slot, h5_lib.why, sizeof h5_lib.why);
}

/* Open the library (H5open, which sets its global ids), check that it is the major.minor release the headers
 * describe, and read the ids. */
static int h5_start(void *h)
{
    __typeof__(H5open) *h5open;
    __typeof__(H5get_libversion) *libversion;
    unsigned maj, min, rel;
    if (h5_bind(h, "H5open", &h5open) < 0 || h5_bind(h, "H5get_libversion", &libversion) < 0) return -1;
    if (h5open() < 0 || libversion(&maj, &min, &rel) < 0) {
        snprintf(h5_lib.why, sizeof h5_lib.why, "%s: H5open failed", HDF5_SONAME);
        return -1;
    }
    if (maj != H5_VERS_MAJOR || min != H5_VERS_MINOR) {
        snprintf(h5_lib.why, sizeof h5_lib.why, "%s is HDF5 %u.%u.%u; irl was built with the headers of %d.%d.%d",
                 HDF5_SONAME, maj, min, rel, H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
        return -1;
    }
    H5Api *a = &h5_lib.api;
    /* A program linked with libhdf5 that names an id itself holds the variable the library uses (a copy
     * relocation: tests/unit/test_trace.c): the global scope has it first, the library's own copy stays unset. */
    const hid_t *var;
#define H5_API_READ(name, sym)                                                                                 \
    if (!(var = dlsym(RTLD_DEFAULT, #sym)) && h5_bind(h, #sym, &var) < 0) return -1;                           \
    a->name = *var;
    H5_API_IDS(H5_API_READ)
#undef H5_API_READ
    return 0;
}

/* osal_once's routine: open the library and bind the table; h5_lib.ok only when every symbol is there. */
static void load(void)
{
    void *h = dynlib_open(HDF5_SONAME, "the HDF5 trace needs libhdf5", h5_lib.why, sizeof h5_lib.why);
    if (!h) return;
    H5Api *a = &h5_lib.api;
#define H5_API_BIND(name)                                                                                      \
    if (h5_bind(h, "H5" #name, &a->name) < 0) goto fail;
    H5_API_FUNCTIONS(H5_API_BIND)
#undef H5_API_BIND
    if (h5_bind(h, STR(H5_API_RECLAIM), &a->reclaim) < 0) goto fail;
    if (h5_start(h) == 0) h5_lib.ok = 1;
    return; /* the handle stays open for the process (once H5open has run, its exit handler is the library's) */
fail:
    dlclose(h);
}

const H5Api *h5_api(char *err, size_t errlen)
{
    osal_once(&h5_lib.once, load);
    if (h5_lib.ok) return &h5_lib.api;
    if (err && errlen) snprintf(err, errlen, "%s", h5_lib.why);
    return NULL;
}
