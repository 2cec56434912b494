/* follow_csv.c — the CSV reader of MOVE FOLLOW (follow_csv.h). */
#include "exec/follow_csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dir(program)/name, or name when it is absolute or the program has no directory. */
static void resolve(char *out, size_t len, const char *program, const char *name)
{
    const char *slash = program ? strrchr(program, '/') : NULL;
    if (name[0] == '/' || !slash) snprintf(out, len, "%s", name);
    else snprintf(out, len, "%.*s/%s", (int)(slash - program), program, name);
}

/* Grow the row arrays to hold row r. 0, or -1. */
static int grow(FollowCsv *c, int *cap, int r)
{
    if (r < *cap) return 0;
    int nc = *cap ? 2 * *cap : 256;
    double *t = realloc(c->t, (size_t)nc * sizeof *t);
    if (t) c->t = t;
    double *q = realloc(c->q, (size_t)nc * (size_t)c->n * sizeof *q);
    if (q) c->q = q;
    int *l = realloc(c->line, (size_t)nc * sizeof *l);
    if (l) c->line = l;
    if (!t || !q || !l) return -1;
    *cap = nc;
    return 0;
}

/* One data line into row r: 0, 1 (not a number in the first field: a header, when allowed), or -1 (message). */
static int parse_row(FollowCsv *c, char *s, int lineno, int r, int header_ok, char *err, size_t errlen)
{
    int want = 1 + c->n, k = 0;
    char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        int col = (int)(p - s) + 1;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        char *q = end;
        while (*q == ' ' || *q == '\t' || *q == '\r') q++;
        if (end == p || errno || !isfinite(v) || (*q && *q != ',')) {
            if (k == 0 && header_ok && (end == p || (*q && *q != ','))) return 1; /* words: the header */
            size_t w = strcspn(p, ",\r");
            if (w == 0)
                return snprintf(err, errlen, "%s:%d:%d: an empty field where a number belongs (columns are t [s], "
                                "then one value per axis in rad or m)", c->path, lineno, col), -1;
            return snprintf(err, errlen, "%s:%d:%d: '%.*s' is not a finite number (columns are t [s], then one value "
                            "per axis in rad or m)", c->path, lineno, col, (int)(w > 40 ? 40 : w), p), -1;
        }
        if (k >= want)
            return snprintf(err, errlen, "%s:%d:%d: more than %d columns: a row is t and the %d axes of the device",
                            c->path, lineno, col, want, c->n), -1;
        if (r == 0) c->col0[k] = col;
        if (k == 0) c->t[r] = v;
        else c->q[(size_t)r * (size_t)c->n + (size_t)(k - 1)] = v;
        k++;
        if (!*q) {
            if (k < want)
                return snprintf(err, errlen, "%s:%d:%d: %d columns, expected %d: a row is t and the %d axes of the "
                                "device", c->path, lineno, (int)(q - s) + 1, k, want, c->n), -1;
            return 0;
        }
        p = q + 1;
    }
}

int follow_csv_read(FollowCsv *c, const char *program, const char *name, int n, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    resolve(c->path, sizeof c->path, program, name);
    FILE *f = fopen(c->path, "r");
    if (!f) return snprintf(err, errlen, "cannot open '%s': %s", c->path, strerror(errno)), -1;
    char buf[8192];
    int lineno = 0, cap = 0, seen = 0, st = 0;
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
            st = -1, snprintf(err, errlen, "%s:%d:1: line longer than %zu bytes", c->path, lineno, sizeof buf - 2);
            break;
        }
        buf[strcspn(buf, "\r\n")] = '\0';
        if (lineno == 1 && strncmp(buf, "\xEF\xBB\xBF", 3) == 0) memmove(buf, buf + 3, strlen(buf + 3) + 1); /* BOM */
        if (buf[strspn(buf, " \t")] == '\0') continue; /* blank */
        if (grow(c, &cap, c->rows) < 0) {
            st = -1, snprintf(err, errlen, "%s: out of memory", c->path);
            break;
        }
        int rc = parse_row(c, buf, lineno, c->rows, !seen, err, errlen);
        seen = 1;
        if (rc < 0) {
            st = -1;
            break;
        }
        if (rc == 1) continue; /* the header */
        c->line[c->rows] = lineno;
        if (c->rows > 0 && !(c->t[c->rows] > c->t[c->rows - 1])) {
            st = -1, snprintf(err, errlen, "%s:%d:%d: t = %.9g s is not after the previous sample's %.9g s (line %d): "
                              "the times must increase", c->path, lineno, (int)strspn(buf, " \t") + 1, c->t[c->rows],
                              c->t[c->rows - 1], c->line[c->rows - 1]);
            break;
        }
        c->rows++;
    }
    if (!st && ferror(f)) st = -1, snprintf(err, errlen, "%s: read error", c->path);
    fclose(f);
    if (!st && c->rows < 3)
        st = -1, snprintf(err, errlen, "%s:%d:1: %d samples: a FOLLOW table needs at least 3", c->path, lineno + 1,
                          c->rows);
    if (st) follow_csv_free(c);
    return st;
}

void follow_csv_free(FollowCsv *c)
{
    free(c->t);
    free(c->q);
    free(c->line);
    c->t = c->q = NULL;
    c->line = NULL;
}
