/* units.c — unit spellings to SI factors and dimensions, and the arithmetic and spelling of dimensions. */
#include "units.h"

#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define STD_G 9.81 /* 1 G, m/s^2 (the project's decision, common.md) */

typedef struct UnitAtom {
    const char *name;
    double factor;
    int8_t e[DIM_COUNT]; /* length, mass, time, angle */
} UnitAtom;

/* The atoms compound spellings are built from: exactly the language's unit names (common.md), no extras, so
 * the lexer has no surprising identifiers-that-are-units. */
static const UnitAtom atoms[] = {
    {"mm", 1e-3, {1, 0, 0, 0}},
    {"m", 1.0, {1, 0, 0, 0}},
    {"kg", 1.0, {0, 1, 0, 0}},
    {"s", 1.0, {0, 0, 1, 0}},
    {"ms", 1e-3, {0, 0, 1, 0}},
    {"rad", 1.0, {0, 0, 0, 1}},
    {"deg", PI / 180.0, {0, 0, 0, 1}},
    {"G", STD_G, {1, 0, -2, 0}},
    {"N", 1.0, {1, 1, -2, 0}},
    {"Nm", 1.0, {2, 1, -2, 0}},
    {"%", 0.01, {0, 0, 0, 0}},
    {"rpm", 2.0 * PI / 60.0, {0, 0, -1, 1}},
};

/* Find the atom spelled by s[0..len). */
static const UnitAtom *find_atom(const char *s, size_t len) {
    for (size_t i = 0; i < sizeof atoms / sizeof atoms[0]; i++)
        if (strlen(atoms[i].name) == len && memcmp(atoms[i].name, s, len) == 0) return &atoms[i];
    return NULL;
}

static bool is_atom_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '%';
}

/* unit := term (('*' | '/') term)* ; term := atom ['^' ['-'] digits] | '1' (only first, as in "1/s") */
bool units_lookupn(const char *name, size_t len, double *factor, Dim *dim) {
    double f = 1.0;
    Dim d = dim_none();
    size_t i = 0;
    int sign = 1;
    bool first = true;
    if (len == 0) return false;
    for (;;) {
        double tf;
        int8_t te[DIM_COUNT] = {0};
        if (first && name[i] == '1' && i + 1 < len && name[i + 1] == '/') {
            tf = 1.0;
            i++;
        } else {
            size_t start = i;
            while (i < len && is_atom_char(name[i])) i++;
            const UnitAtom *a = find_atom(name + start, i - start);
            if (!a) return false;
            tf = a->factor;
            memcpy(te, a->e, sizeof te);
        }
        int power = 1;
        if (i < len && name[i] == '^') {
            int neg = 0, p = 0, nd = 0;
            i++;
            if (i < len && name[i] == '-') neg = 1, i++;
            while (i < len && name[i] >= '0' && name[i] <= '9' && nd < 2) p = p * 10 + (name[i++] - '0'), nd++;
            if (nd == 0 || p == 0) return false;
            power = neg ? -p : p;
        }
        power *= sign;
        for (int k = 0; k < (power < 0 ? -power : power); k++) f = power < 0 ? f / tf : f * tf;
        for (int k = 0; k < DIM_COUNT; k++) {
            int e = d.e[k] + te[k] * power;
            if (e > 60 || e < -60) return false;
            d.e[k] = (int8_t)e;
        }
        first = false;
        if (i == len) break;
        if (name[i] == '*') sign = 1;
        else if (name[i] == '/') sign = -1;
        else return false;
        i++;
        if (i == len) return false;
    }
    if (factor) *factor = f;
    if (dim) *dim = d;
    return true;
}

bool units_lookup(const char *name, double *factor, Dim *dim) {
    return name && units_lookupn(name, strlen(name), factor, dim);
}

Dim dim_none(void) { return (Dim){{0}, false}; }
Dim dim_any(void) { return (Dim){{0}, true}; }

Dim dim_base(int which, int power) {
    Dim d = dim_none();
    d.e[which] = (int8_t)power;
    return d;
}

Dim dim_mul(Dim a, Dim b) {
    Dim d = dim_none();
    for (int k = 0; k < DIM_COUNT; k++) d.e[k] = (int8_t)(a.e[k] + b.e[k]);
    d.any = a.any && b.any;
    return d;
}

Dim dim_div(Dim a, Dim b) {
    Dim d = dim_none();
    for (int k = 0; k < DIM_COUNT; k++) d.e[k] = (int8_t)(a.e[k] - b.e[k]);
    d.any = a.any && b.any;
    return d;
}

Dim dim_pow(Dim a, int n) {
    Dim d = a;
    for (int k = 0; k < DIM_COUNT; k++) d.e[k] = (int8_t)(a.e[k] * n);
    return d;
}

bool dim_sqrt(Dim a, Dim *out) {
    Dim d = a;
    for (int k = 0; k < DIM_COUNT; k++) {
        if (a.e[k] % 2 != 0) return false;
        d.e[k] = (int8_t)(a.e[k] / 2);
    }
    *out = d;
    return true;
}

bool dim_eq(Dim a, Dim b) { return memcmp(a.e, b.e, sizeof a.e) == 0; }

bool dim_is_none(Dim a) { return dim_eq(a, dim_none()); }

bool dim_compatible(Dim a, Dim b) { return a.any || b.any || dim_eq(a, b); }

Dim dim_length(void) { return dim_base(DIM_LENGTH, 1); }
Dim dim_time(void) { return dim_base(DIM_TIME, 1); }
Dim dim_angle(void) { return dim_base(DIM_ANGLE, 1); }
Dim dim_speed(void) { return dim_div(dim_length(), dim_time()); }
Dim dim_accel(void) { return dim_div(dim_speed(), dim_time()); }

/* Append "sym" or "sym^p" to buf (with '*' between factors). */
static void put_factor(char *buf, size_t n, size_t *len, bool *any, const char *sym, int p) {
    if (*len >= n) return;
    int w = p == 1 ? snprintf(buf + *len, n - *len, "%s%s", *any ? "*" : "", sym)
                   : snprintf(buf + *len, n - *len, "%s%s^%d", *any ? "*" : "", sym, p);
    if (w > 0) *len += (size_t)w;
    if (*len >= n) *len = n - 1;
    *any = true;
}

const char *dim_str(Dim d, char *buf, size_t n) {
    /* numerator and denominator orders: kg m rad / s m kg rad, the way people write N, m/s^2, rad/s */
    static const int order[DIM_COUNT] = {DIM_MASS, DIM_LENGTH, DIM_ANGLE, DIM_TIME};
    static const char *sym[DIM_COUNT] = {"m", "kg", "s", "rad"};
    size_t len = 0;
    bool num = false, den = false;
    if (n == 0) return buf;
    buf[0] = 0;
    for (int i = 0; i < DIM_COUNT; i++)
        if (d.e[order[i]] > 0) put_factor(buf, n, &len, &num, sym[order[i]], d.e[order[i]]);
    int nden = 0;
    for (int k = 0; k < DIM_COUNT; k++) nden += d.e[k] < 0;
    if (nden == 0) {
        if (!num) snprintf(buf, n, "1");
        return buf;
    }
    if (!num) put_factor(buf, n, &len, &num, "1", 1);
    if (len + 1 < n) buf[len++] = '/', buf[len] = 0;
    if (nden > 1 && len + 1 < n) buf[len++] = '(', buf[len] = 0;
    static const int dorder[DIM_COUNT] = {DIM_TIME, DIM_LENGTH, DIM_MASS, DIM_ANGLE};
    for (int i = 0; i < DIM_COUNT; i++)
        if (d.e[dorder[i]] < 0) put_factor(buf, n, &len, &den, sym[dorder[i]], -d.e[dorder[i]]);
    if (nden > 1 && len + 1 < n) buf[len++] = ')', buf[len] = 0;
    return buf;
}

const char *dim_describe(Dim d, char *buf, size_t n) {
    static const struct {
        int8_t e[DIM_COUNT];
        const char *what;
    } named[] = {
        {{1, 0, 0, 0}, "a length"},
        {{0, 1, 0, 0}, "a mass"},
        {{0, 0, 1, 0}, "a time"},
        {{0, 0, 0, 1}, "an angle"},
        {{1, 0, -1, 0}, "a speed"},
        {{1, 0, -2, 0}, "an acceleration"},
        {{1, 0, -3, 0}, "an onset rate"},
        {{1, 0, -4, 0}, "a jerk"},
        {{0, 0, -1, 1}, "an angular speed"},
        {{0, 0, -2, 1}, "an angular acceleration"},
        {{1, 1, -2, 0}, "a force"},
        {{2, 1, -2, 0}, "a torque"},
        {{0, 0, -1, 0}, "a frequency"},
    };
    char u[64];
    if (dim_is_none(d)) {
        snprintf(buf, n, "a dimensionless number");
        return buf;
    }
    dim_str(d, u, sizeof u);
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (memcmp(named[i].e, d.e, sizeof d.e) == 0) {
            snprintf(buf, n, "%s (%s)", named[i].what, u);
            return buf;
        }
    snprintf(buf, n, "a value in %s", u);
    return buf;
}
