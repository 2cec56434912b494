/* regmap_read.c — the reader of register map files (regmap_read.h): a line-based table, one directive or one
 * object per line, '#' to the end of a line a comment. Every error is reported with file:line:col (the column of
 * the word at fault) and the reader goes on to the next line, so one pass reports them all. */
#include "regmap_read.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "syntax.h"

#define WORD_MAX 24 /* words on one line */

/* What an object is (regmap.h's list): its name, whether it is per axis, which way it goes (R read, W written),
 * what it carries (P a position, V a speed: both need a scale; B digital I/O; N a plain word or number). */
enum { DIR_R = 1, DIR_W = 2 };
enum { KIND_N, KIND_P, KIND_V, KIND_B };
static const struct {
    const char *name;
    int per_axis, dir, kind;
} objects[REGMAP_NOBJECTS] = {
#define ROW_(id, n, axis, way, kind) [REGMAP_##id] = {n, axis, DIR_##way, KIND_##kind},
    REGMAP_OBJECTS(ROW_)
#undef ROW_
};

static const char *const type_names[] = {"int16", "uint16", "int32", "uint32", "float32", "uint64"};

/* Scale units: SI per unit, and whether the unit is an angle (revolute axes) or a length (prismatic ones). */
static const struct {
    const char *name;
    double si;
    int angle;
} units[] = {{"rad", 1, 1}, {"deg", 0.017453292519943295, 1}, {"m", 1, 0}, {"mm", 1e-3, 0}, {"um", 1e-6, 0}};

typedef struct {
    const char *s;
    int len, col;
} Word;

typedef struct {
    Diag *diag;
    const char *file;
    int line, errors;
    RegMap *m;
    int default_low_first, default_stride, profile_line;
} Reader;

static void err(Reader *r, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(Reader *r, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(r->diag, "error", (SrcLoc){r->file, r->line, col}, fmt, ap);
    va_end(ap);
    r->errors++;
}

static int word_is(const Word *w, const char *s) { return (int)strlen(s) == w->len && strncmp(w->s, s, (size_t)w->len) == 0; }

/* w as a whole number in [lo, hi] (decimal or 0x hex). 0, or -1 after an error naming what. */
static int whole(Reader *r, const Word *w, long lo, long hi, const char *what, long *v)
{
    char buf[32], *end;
    if (w->len >= (int)sizeof buf) return err(r, w->col, "%s: '%.*s' is not a number", what, w->len, w->s), -1;
    snprintf(buf, sizeof buf, "%.*s", w->len, w->s);
    errno = 0;
    long x = strtol(buf, &end, 0);
    if (end == buf || *end || errno) return err(r, w->col, "%s: '%s' is not a whole number", what, buf), -1;
    if (x < lo || x > hi) return err(r, w->col, "%s: %ld is out of range (%ld..%ld)", what, x, lo, hi), -1;
    *v = x;
    return 0;
}

/* "key=value" words after an object's type: the key's index in keys, the value into *val; -1 after an error. */
static int key_of(Reader *r, const Word *w, const char *const *keys, Word *val)
{
    const char *eq = memchr(w->s, '=', (size_t)w->len);
    int kn = eq ? (int)(eq - w->s) : w->len;
    for (int i = 0; keys[i]; i++)
        if ((int)strlen(keys[i]) == kn && strncmp(w->s, keys[i], (size_t)kn) == 0) {
            if (!eq || eq + 1 == w->s + w->len)
                return err(r, w->col, "'%s' needs a value (%s=...)", keys[i], keys[i]), -1;
            *val = (Word){eq + 1, w->len - kn - 1, w->col + kn + 1};
            return i;
        }
    return err(r, w->col, "unknown setting '%.*s' (read=, write=, scale=, stride=, order=, expect=)", kn, w->s), -1;
}

/* "scale=NUMBERunit" (unit/s for a speed) into the object's angular or linear scale. 0, or -1 after an error. */
static int scale_of(Reader *r, const Word *v, int kind, RegMapObject *o)
{
    char buf[48], *end;
    if (v->len >= (int)sizeof buf) return err(r, v->col, "scale: '%.*s' is too long", v->len, v->s), -1;
    snprintf(buf, sizeof buf, "%.*s", v->len, v->s);
    errno = 0;
    double x = strtod(buf, &end);
    if (end == buf || errno || !isfinite(x) || !(x > 0))
        return err(r, v->col, "scale: '%s' must be a number > 0 with its unit (e.g. 1e-6rad, 0.001mm/s)", buf), -1;
    size_t ul = strlen(end);
    int per_s = ul > 2 && strcmp(end + ul - 2, "/s") == 0;
    if (per_s) end[ul - 2] = '\0';
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        if (strcmp(end, units[i].name) != 0) continue;
        if (per_s != (kind == KIND_V))
            return err(r, v->col + (int)(end - buf), "scale: a %s's unit is %s%s, not '%s%s'",
                       kind == KIND_V ? "speed" : "position", units[i].name, kind == KIND_V ? "/s" : "",
                       end, per_s ? "/s" : ""), -1;
        double *s = units[i].angle ? &o->scale_rad : &o->scale_m;
        if (*s != 0) return err(r, v->col, "scale: a second %s scale", units[i].angle ? "angular" : "linear"), -1;
        *s = x * units[i].si;
        return 0;
    }
    return err(r, v->col + (int)(end - buf), "scale: unknown unit '%s%s' (rad, deg, m, mm, um%s)", end,
               per_s ? "/s" : "", kind == KIND_V ? ", each with /s" : ""), -1;
}

/* An object line: NAME REGISTER TYPE key=value... */
static void object_line(Reader *r, int id, const Word *w, int nw)
{
    RegMapObject *o = &r->m->obj[id], fresh = {0};
    int kind = objects[id].kind, dir = objects[id].dir;
    if (o->present) return err(r, w[0].col, "%s is given twice (first on line %d)", objects[id].name, o->line);
    if (nw < 3)
        return err(r, w[0].col + w[0].len, "%s: expected its register and type (e.g. '%s 0x1000 int32 ...')",
                   objects[id].name, objects[id].name);
    long reg;
    if (whole(r, &w[1], 0, 65535, "register", &reg) < 0) return;
    fresh.present = 1, fresh.line = r->line, fresh.reg = (uint16_t)reg;
    fresh.stride = objects[id].per_axis ? r->default_stride : 0;
    fresh.low_first = r->default_low_first;
    int t = -1;
    for (int i = 0; i < (int)(sizeof type_names / sizeof *type_names); i++)
        if (word_is(&w[2], type_names[i])) t = i;
    if (t < 0) return err(r, w[2].col, "unknown type '%.*s' (int16, uint16, int32, uint32, float32, uint64)", w[2].len, w[2].s);
    if ((t == REGMAP_UINT64) != (kind == KIND_B))
        return err(r, w[2].col, "%s cannot be %s (%s)", objects[id].name, type_names[t],
                   kind == KIND_B ? "digital I/O is uint64, 4 registers" : "uint64 is for digital I/O only");
    if (t == REGMAP_FLOAT32 && kind == KIND_N)
        return err(r, w[2].col, "%s cannot be float32: it is a word of bits or a whole number", objects[id].name);
    fresh.type = (RegMapType)t;
    static const char *const keys[] = {"read", "write", "scale", "stride", "order", "expect", NULL};
    for (int i = 3; i < nw; i++) {
        Word v;
        long x;
        switch (key_of(r, &w[i], keys, &v)) {
        case 0:
            if (!(dir & DIR_R)) return err(r, w[i].col, "%s is written, not read", objects[id].name);
            if (whole(r, &v, 0, 255, "read", &x) < 0) return;
            if (x != 3 && x != 23)
                return err(r, v.col, "read: function %ld; a holding register is read with 3 or 23", x);
            fresh.read_fc = (int)x;
            break;
        case 1:
            if (!(dir & DIR_W)) return err(r, w[i].col, "%s is read, not written", objects[id].name);
            if (whole(r, &v, 0, 255, "write", &x) < 0) return;
            if (x != 6 && x != 16 && x != 23)
                return err(r, v.col, "write: function %ld; a holding register is written with 6, 16 or 23", x);
            if (x == 6 && t != REGMAP_INT16 && t != REGMAP_UINT16)
                return err(r, v.col, "write: function 6 writes one register; %s takes %d", type_names[t],
                           t == REGMAP_UINT64 ? 4 : 2);
            fresh.write_fc = (int)x;
            break;
        case 2:
            if (kind != KIND_P && kind != KIND_V)
                return err(r, w[i].col, "%s takes no scale: it is not a position or a speed", objects[id].name);
            if (scale_of(r, &v, kind, &fresh) < 0) return;
            break;
        case 3:
            if (!objects[id].per_axis) return err(r, w[i].col, "%s is one for the drive: it has no stride", objects[id].name);
            if (whole(r, &v, 0, 4096, "stride", &x) < 0) return;
            fresh.stride = (int)x;
            break;
        case 4:
            if (word_is(&v, "high_first")) fresh.low_first = 0;
            else if (word_is(&v, "low_first")) fresh.low_first = 1;
            else return err(r, v.col, "order: '%.*s' (high_first or low_first)", v.len, v.s);
            break;
        case 5:
            if (id != REGMAP_MAGIC) return err(r, w[i].col, "expect= belongs to magic only");
            if (whole(r, &v, 0, 65535, "expect", &x) < 0) return;
            fresh.has_expect = 1, fresh.expect = (uint32_t)x;
            break;
        default: return;
        }
    }
    int col_end = w[nw - 1].col + w[nw - 1].len;
    if ((dir & DIR_R) && !fresh.read_fc) return err(r, col_end, "%s: say how it is read (read=3 or read=23)", objects[id].name);
    if ((dir & DIR_W) && !fresh.write_fc)
        return err(r, col_end, "%s: say how it is written (write=6, 16 or 23)", objects[id].name);
    if ((kind == KIND_P || kind == KIND_V) && !fresh.scale_rad && !fresh.scale_m)
        return err(r, col_end, "%s: give its scale with a unit (e.g. scale=1e-6rad%s; one angular and one linear "
                   "for both kinds of axis)", objects[id].name, kind == KIND_V ? "/s" : "");
    if (id == REGMAP_MAGIC && !fresh.has_expect) return err(r, col_end, "magic: give the value it must hold (expect=N)");
    *o = fresh;
}

/* A directive line: profile, mode, word_order, stride, state_timeout. 1 it was one, 0 not a directive. */
static int directive(Reader *r, const Word *w, int nw)
{
    RegMap *m = r->m;
    int n1 = nw == 2;
    if (word_is(&w[0], "profile")) {
        if (!n1) return err(r, w[0].col, "profile takes one word: irl or cia402"), 1;
        if (word_is(&w[1], "irl")) m->profile = REGMAP_PROFILE_IRL;
        else if (word_is(&w[1], "cia402")) m->profile = REGMAP_PROFILE_CIA402;
        else return err(r, w[1].col, "profile: '%.*s' (irl or cia402)", w[1].len, w[1].s), 1;
        r->profile_line = r->line;
    } else if (word_is(&w[0], "mode")) {
        if (!n1) return err(r, w[0].col, "mode takes one word: csp or csv"), 1;
        if (word_is(&w[1], "csp")) m->mode = REGMAP_MODE_CSP;
        else if (word_is(&w[1], "csv")) m->mode = REGMAP_MODE_CSV;
        else return err(r, w[1].col, "mode: '%.*s' (csp: cyclic synchronous position, csv: velocity)", w[1].len, w[1].s), 1;
    } else if (word_is(&w[0], "word_order")) {
        if (!n1) return err(r, w[0].col, "word_order takes one word: high_first or low_first"), 1;
        if (word_is(&w[1], "high_first")) r->default_low_first = 0;
        else if (word_is(&w[1], "low_first")) r->default_low_first = 1;
        else return err(r, w[1].col, "word_order: '%.*s' (high_first or low_first)", w[1].len, w[1].s), 1;
    } else if (word_is(&w[0], "stride")) {
        long x;
        if (!n1) return err(r, w[0].col, "stride takes one number: registers from one axis to the next"), 1;
        if (whole(r, &w[1], 0, 4096, "stride", &x) == 0) r->default_stride = (int)x;
    } else if (word_is(&w[0], "state_timeout")) {
        char buf[32], *end;
        if (nw != 3 || w[1].len >= (int)sizeof buf)
            return err(r, w[0].col, "state_timeout takes a time with its unit (e.g. state_timeout 0.5 s)"), 1;
        snprintf(buf, sizeof buf, "%.*s", w[1].len, w[1].s);
        double x = strtod(buf, &end), u = word_is(&w[2], "s") ? 1 : word_is(&w[2], "ms") ? 1e-3 : 0;
        if (end == buf || *end || !(x > 0)) return err(r, w[1].col, "state_timeout: '%s' must be a number > 0", buf), 1;
        if (!u) return err(r, w[2].col, "state_timeout: unit '%.*s' (s or ms)", w[2].len, w[2].s), 1;
        if (!(x * u <= 10)) return err(r, w[1].col, "state_timeout: %g %.*s is over 10 s", x, w[2].len, w[2].s), 1;
        m->state_timeout = x * u;
    } else return 0;
    return 1;
}

/* The words of a line (up to '#'); their count, or -1 when there are too many. */
static int split(const char *s, size_t n, Word *w)
{
    int nw = 0;
    for (size_t i = 0; i < n && s[i] != '#';) {
        if (isspace((unsigned char)s[i])) { i++; continue; }
        size_t j = i;
        while (j < n && s[j] != '#' && !isspace((unsigned char)s[j])) j++;
        if (nw == WORD_MAX) return -1;
        w[nw++] = (Word){s + i, (int)(j - i), (int)i + 1};
        i = j;
    }
    return nw;
}

/* What the profile needs, once the whole file is read. */
static void complete(Reader *r)
{
    RegMap *m = r->m;
    static const int both[] = {REGMAP_CONTROLWORD, REGMAP_STATUSWORD, REGMAP_TARGET_POSITION, REGMAP_POSITION_ACTUAL};
    int line = r->line;
    r->line = r->profile_line ? r->profile_line : 1;
    const char *prof = m->profile == REGMAP_PROFILE_CIA402 ? "cia402" : "irl";
    for (size_t i = 0; i < sizeof both / sizeof *both; i++)
        if (!m->obj[both[i]].present) err(r, 1, "profile %s needs %s: no line gives it", prof, objects[both[i]].name);
    if (m->profile == REGMAP_PROFILE_CIA402 && !m->obj[REGMAP_MODES].present)
        err(r, 1, "profile cia402 needs modes_of_operation: no line gives it");
    if (m->mode == REGMAP_MODE_CSV && !m->obj[REGMAP_TARGET_VELOCITY].present)
        err(r, 1, "mode csv needs target_velocity: no line gives it");
    if (m->profile == REGMAP_PROFILE_IRL && m->mode == REGMAP_MODE_CSV)
        err(r, 1, "mode csv is a CiA 402 mode: profile irl has position setpoints only");
    r->line = line;
}

int regmap_load_text(const char *file, const char *text, size_t len, RegMap *out, Diag *diag)
{
    memset(out, 0, sizeof *out);
    snprintf(out->file, sizeof out->file, "%s", file);
    out->profile = REGMAP_PROFILE_CIA402, out->mode = REGMAP_MODE_CSP, out->state_timeout = 0.5;
    diag_add_source(diag, file, text, len);
    Reader r = {.diag = diag, .file = file, .m = out};
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        Word w[WORD_MAX];
        r.line++;
        int nw = split(text + at, n, w);
        at += n + 1;
        if (nw < 0) { err(&r, 1, "more than %d words on one line", WORD_MAX); continue; }
        if (nw == 0 || directive(&r, w, nw)) continue;
        int id = -1;
        for (int i = 0; i < REGMAP_NOBJECTS; i++)
            if (word_is(&w[0], objects[i].name)) id = i;
        if (id < 0) {
            err(&r, w[0].col, "unknown object or directive '%.*s' (docs/ONLINE-DRIVERS.md, \"Register map files\")",
                w[0].len, w[0].s);
            continue;
        }
        object_line(&r, id, w, nw);
    }
    if (!r.errors) complete(&r);
    diag_drop_source(diag, file);
    return r.errors ? REGMAP_EINVALID : REGMAP_OK;
}

int regmap_load(const char *path, RegMap *out, Diag *diag)
{
    Arena arena;
    arena_init(&arena);
    size_t len;
    char *text = syntax_read_file(&arena, path, &len);
    int rc = text ? regmap_load_text(path, text, len, out, diag)
                  : (diag_error(diag, (SrcLoc){0}, "cannot open the register map '%s': %s", path, strerror(errno)),
                     REGMAP_EIO);
    arena_free(&arena);
    return rc;
}
