/* dynlib.h — a shared library loaded on first use rather than linked: opening it and binding its symbols into a
 * table, each failure said in one line (the loaders of libhdf5, runtime/output/h5_loader.c, and of libxml2,
 * src/xml_loader.c). In models/, the lowest layer, so that the runtime and the CLI both reach it. */
#ifndef IRL_DYNLIB_H
#define IRL_DYNLIB_H

#include <stddef.h>

/* dlopen soname (RTLD_NOW, RTLD_LOCAL). The handle, or NULL with "cannot load SONAME (NEEDED_FOR): why" in why. */
void *dynlib_open(const char *soname, const char *needed_for, char *why, size_t whylen);
/* Bind symbol `name` of lib into *slot (a function pointer of the right type, stored through its bytes as POSIX
 * allows, or a variable's address). 0, or -1 with "SONAME has no NAME" in why. */
int dynlib_bind(void *lib, const char *soname, const char *name, void *slot, char *why, size_t whylen);

#endif
