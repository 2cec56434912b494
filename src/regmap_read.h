/* regmap_read.h — the reader of register map files (drives/NAME.map, format in docs/ONLINE-DRIVERS.md): one
 * directive or one object per line, checked for names, types, function codes and units, turned into the plain
 * RegMap of regmap.h. Every error is reported with file:line:col through the Diag. */
#ifndef IRL_REGMAP_READ_H
#define IRL_REGMAP_READ_H

#include <stddef.h>

#include "diag.h"
#include "regmap.h"

/* The text of the emulator's map (drives/emulator.map, built in): the map when none is named. */
extern const char regmap_emulator_text[];
extern const char regmap_emulator_file[];

enum {
    REGMAP_OK = 0,
    REGMAP_EIO = -1,      /* the file is missing or unreadable (message through the Diag) */
    REGMAP_EINVALID = -2, /* errors in the text, each reported with file:line:col */
};

/* Read the map file `path` into *out. REGMAP_OK or a REGMAP_E* code. */
int regmap_load(const char *path, RegMap *out, Diag *diag);

/* The same for a text in memory (`len` bytes, need not be NUL-terminated); `file` names it in messages. Never
 * REGMAP_EIO. */
int regmap_load_text(const char *file, const char *text, size_t len, RegMap *out, Diag *diag);

#endif
