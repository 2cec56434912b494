/* driver.c — the driver registry and the option-string helpers (driver.h). */
#include "online/drivers/driver.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const DriverType driver_sim, driver_stream, driver_modbus, driver_hal;

static const DriverType *const builtin[] = {&driver_sim, &driver_stream, &driver_modbus, &driver_hal};

const DriverType *driver_find(const char *name)
{
    for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
        if (strcmp(builtin[i]->name, name) == 0) return builtin[i];
    return NULL;
}

const char *driver_names(void) { return "sim, stream, modbus, hal"; }

/* The next "key=value" item of opts from *p: key and value bounds; 0 at the end. */
static int next_item(const char **p, const char **k, size_t *kn, const char **v, size_t *vn)
{
    const char *s = *p;
    while (*s == ',') s++;
    if (!*s) return 0;
    const char *end = strchr(s, ',');
    if (!end) end = s + strlen(s);
    const char *eq = memchr(s, '=', (size_t)(end - s));
    *k = s;
    *kn = eq ? (size_t)(eq - s) : (size_t)(end - s);
    *v = eq ? eq + 1 : NULL;
    *vn = eq ? (size_t)(end - eq - 1) : 0;
    *p = end;
    return 1;
}

int driver_opt(const char *opts, const char *key, char *val, size_t vallen)
{
    const char *p = opts ? opts : "", *k, *v;
    size_t kn, vn;
    int found = 0;
    while (next_item(&p, &k, &kn, &v, &vn))
        if (kn == strlen(key) && strncmp(k, key, kn) == 0 && v) {
            snprintf(val, vallen, "%.*s", (int)vn, v);
            found = 1; /* the last one given wins */
        }
    return found;
}

int driver_opts_known(const char *driver, const char *opts, const char *const *keys, char *err, size_t errlen)
{
    const char *p = opts ? opts : "", *k, *v;
    size_t kn, vn;
    while (next_item(&p, &k, &kn, &v, &vn)) {
        int ok = 0;
        for (int i = 0; keys && keys[i]; i++) ok |= kn == strlen(keys[i]) && strncmp(k, keys[i], kn) == 0;
        if (!ok) {
            char list[300] = "";
            for (int i = 0; keys && keys[i]; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", keys[i]);
            return snprintf(err, errlen, "--driver %s: unknown option '%.*s' (options: %s)", driver, (int)kn, k,
                            list[0] ? list : "none"), -1;
        }
        if (!v || vn == 0)
            return snprintf(err, errlen, "--driver %s: option '%.*s' needs a value (%.*s=...)", driver, (int)kn, k,
                            (int)kn, k), -1;
    }
    return 0;
}

int driver_opt_num(const char *driver, const char *opts, const char *key, int time, double *v, char *err,
                   size_t errlen)
{
    char buf[64];
    if (!driver_opt(opts, key, buf, sizeof buf)) return 0;
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    double scale = 1;
    if (time && strcmp(end, "ms") == 0) scale = 1e-3, end += 2;
    else if (time && strcmp(end, "us") == 0) scale = 1e-6, end += 2;
    else if (time && strcmp(end, "s") == 0) end += 1;
    if (end == buf || *end || errno || !isfinite(x))
        return snprintf(err, errlen, "--driver %s: bad value for %s: '%s'", driver, key, buf), -1;
    *v = x * scale;
    return 0;
}
