/* dynlib.c — a shared library loaded on first use (see dynlib.h). */
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>

void *dynlib_open(const char *soname, const char *needed_for, char *why, size_t whylen)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, whylen, "cannot load %s (%s): %s", soname, needed_for, e ? e : "unknown error");
    }
    return lib;
}

int dynlib_bind(void *lib, const char *soname, const char *name, void *slot, char *why, size_t whylen)
{
    void *f = dlsym(lib, name);
    if (!f) {
        snprintf(why, whylen, "%s has no %s", soname, name);
        return -1;
    }
    *(void **)slot = f;
    return 0;
}
