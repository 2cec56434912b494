/* builtins.c — math functions (domain and overflow errors become ERR_MATH / ERR_CONVERT) and the geometry of
 * positions, unit quaternions (w, x, y, z), poses and joints. */
#include "vm/builtins.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dmath.h"
#include "errcodes.h"
#include "geom.h"

typedef int (*BuiltinFn)(Value *v, int nargs, char *msg, size_t msglen);

/* A REAL result: ERR_MATH when finite arguments gave NaN or an infinity (domain error or overflow). */
static int real_result(Value *v, int nargs, double r, const char *fn, char *msg, size_t msglen)
{
    if (!isfinite(r)) {
        bool finite_args = true;
        for (int i = 0; i < nargs; i++) finite_args = finite_args && isfinite(v[i].r);
        if (finite_args) {
            snprintf(msg, msglen, "%s: argument out of the function's domain", fn);
            return IRL_ERR_MATH;
        }
    }
    v[0].r = r;
    return 0;
}

#define MATH1(NAME, expr)                                                    \
    static int bi_##NAME(Value *v, int n, char *msg, size_t ml)              \
    {                                                                        \
        double a = v[0].r;                                                   \
        return real_result(v, n, (expr), #NAME, msg, ml);                    \
    }
MATH1(SIN, dm_sin(a))
MATH1(COS, dm_cos(a))
MATH1(TAN, dm_tan(a))
MATH1(ASIN, dm_asin(a))
MATH1(ACOS, dm_acos(a))
MATH1(ATAN, dm_atan(a))
MATH1(SQRT, sqrt(a))
MATH1(ABSR, fabs(a))
MATH1(EXP, dm_exp(a))
MATH1(LN, a == 0 ? NAN : dm_log(a))

#define MATH2(NAME, expr)                                                    \
    static int bi_##NAME(Value *v, int n, char *msg, size_t ml)              \
    {                                                                        \
        double a = v[0].r, b = v[1].r;                                       \
        return real_result(v, n, (expr), #NAME, msg, ml);                    \
    }
MATH2(ATAN2, dm_atan2(a, b))
MATH2(MINR, a < b ? a : b)
MATH2(MAXR, a > b ? a : b)
MATH2(POW, dm_pow(a, b))

static int bi_ABSI(Value *v, int n, char *msg, size_t ml)
{
    (void)n;
    if (v[0].i == INT64_MIN) {
        snprintf(msg, ml, "ABS: INT result out of range (64 bits)");
        return IRL_ERR_MATH;
    }
    v[0].i = v[0].i < 0 ? -v[0].i : v[0].i;
    return 0;
}
static int bi_MINI(Value *v, int n, char *msg, size_t ml)
{
    (void)n, (void)msg, (void)ml;
    v[0].i = v[0].i < v[1].i ? v[0].i : v[1].i;
    return 0;
}
static int bi_MAXI(Value *v, int n, char *msg, size_t ml)
{
    (void)n, (void)msg, (void)ml;
    v[0].i = v[0].i > v[1].i ? v[0].i : v[1].i;
    return 0;
}

/* REAL -> INT when r (already rounded) fits in 64 bits. */
static int to_int(Value *v, double r, const char *fn, char *msg, size_t ml)
{
    if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0)) {
        snprintf(msg, ml, "%s: value out of range for INT", fn);
        return IRL_ERR_CONVERT;
    }
    v[0].i = (int64_t)r;
    return 0;
}
static int bi_ROUND(Value *v, int n, char *msg, size_t ml) { (void)n; return to_int(v, round(v[0].r), "ROUND", msg, ml); }
static int bi_TRUNC(Value *v, int n, char *msg, size_t ml) { (void)n; return to_int(v, trunc(v[0].r), "TRUNC", msg, ml); }

static int bi_POS(Value *v, int n, char *msg, size_t ml) { (void)v, (void)n, (void)msg, (void)ml; return 0; }

/* Quaternion of a rotation by angle about the x (0), y (1) or z (2) axis. */
static void quat_axis(double q[4], int axis, double angle)
{
    q[0] = dm_cos(angle / 2);
    q[1] = q[2] = q[3] = 0;
    q[1 + axis] = dm_sin(angle / 2);
}
static void put(Value *v, const double *x, int n)
{
    for (int i = 0; i < n; i++) v[i].r = x[i];
}
static void get(double *x, const Value *v, int n)
{
    for (int i = 0; i < n; i++) x[i] = v[i].r;
}

/* Product of three elementary rotations about axes i, j, k (applied as Ri Rj Rk). */
static void euler3(Value *v, int i, int j, int k)
{
    double qa[4], qb[4], qc[4], t[4], r[4];
    quat_axis(qa, i, v[0].r);
    quat_axis(qb, j, v[1].r);
    quat_axis(qc, k, v[2].r);
    quat_mul(t, qa, qb);
    quat_mul(r, t, qc);
    put(v, r, 4);
}
static int bi_ORIZYX(Value *v, int n, char *msg, size_t ml) { (void)n, (void)msg, (void)ml; euler3(v, 2, 1, 0); return 0; }
static int bi_ORIXYZ(Value *v, int n, char *msg, size_t ml) { (void)n, (void)msg, (void)ml; euler3(v, 0, 1, 2); return 0; }

static int bi_ORIQUAT(Value *v, int n, char *msg, size_t ml)
{
    (void)n;
    double q[4];
    get(q, v, 4);
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(norm > 0) || !isfinite(norm)) {
        snprintf(msg, ml, "ORIQUAT: the quaternion has zero norm");
        return IRL_ERR_MATH;
    }
    for (int i = 0; i < 4; i++) v[i].r = q[i] / norm;
    return 0;
}

static int bi_ORIVANG(Value *v, int n, char *msg, size_t ml)
{
    (void)n;
    double e[3], angle = v[3].r;
    get(e, v, 3);
    double norm = v3_norm(e);
    if (!(norm > 0) || !isfinite(norm)) {
        snprintf(msg, ml, "ORIVANG: the axis has zero length");
        return IRL_ERR_MATH;
    }
    double s = dm_sin(angle / 2) / norm;
    double q[4] = {dm_cos(angle / 2), e[0] * s, e[1] * s, e[2] * s};
    put(v, q, 4);
    return 0;
}

static int bi_POSE(Value *v, int n, char *msg, size_t ml) { (void)v, (void)n, (void)msg, (void)ml; return 0; }

static int bi_JOINT(Value *v, int n, char *msg, size_t ml)
{
    if (n < 0 || n > 12) {
        snprintf(msg, ml, "JOINT: %d axes (at most 12)", n);
        return IRL_ERR_JOINT_COUNT;
    }
    Value r[13] = {{0}};
    r[0].i = n;
    memcpy(r + 1, v, (size_t)n * sizeof *v);
    memcpy(v, r, sizeof r);
    return 0;
}

/* 0 - x rather than -x: the conjugate of a component 0 is 0, not -0 (PRINT would show "-0") */
static void quat_conj(double r[4], const double q[4]) { r[0] = q[0]; r[1] = 0 - q[1]; r[2] = 0 - q[2]; r[3] = 0 - q[3]; }
/* r = q p q* (rotate p by the unit quaternion q) */
static void quat_rotate(double r[3], const double q[4], const double p[3])
{
    double R[9];
    quat_to_m3(R, q);
    m3_mulv(r, R, p);
}

static int bi_INVO(Value *v, int n, char *msg, size_t ml)
{
    (void)n, (void)msg, (void)ml;
    double q[4], r[4];
    get(q, v, 4);
    quat_conj(r, q);
    put(v, r, 4);
    return 0;
}

static int bi_INVP(Value *v, int n, char *msg, size_t ml)
{
    (void)n, (void)msg, (void)ml;
    double p[3], q[4], qi[4], pr[3];
    get(p, v, 3);
    get(q, v + 3, 4);
    quat_conj(qi, q);
    quat_rotate(pr, qi, p);
    double out[7] = {0 - pr[0], 0 - pr[1], 0 - pr[2], qi[0], qi[1], qi[2], qi[3]};
    put(v, out, 7);
    return 0;
}

static int bi_COMPOO(Value *v, int n, char *msg, size_t ml)
{
    (void)n, (void)msg, (void)ml;
    double a[4], b[4], r[4];
    get(a, v, 4);
    get(b, v + 4, 4);
    quat_mul(r, a, b);
    put(v, r, 4);
    return 0;
}

static int bi_COMPPP(Value *v, int n, char *msg, size_t ml)
{
    (void)n, (void)msg, (void)ml;
    double pa[3], qa[4], pb[3], qb[4], r[7];
    get(pa, v, 3);
    get(qa, v + 3, 4);
    get(pb, v + 7, 3);
    get(qb, v + 10, 4);
    quat_rotate(r, qa, pb);
    v3_add(r, r, pa);
    quat_mul(r + 3, qa, qb);
    put(v, r, 7);
    return 0;
}

static int bi_COMPOV(Value *v, int n, char *msg, size_t ml)
{
    (void)n, (void)msg, (void)ml;
    double q[4], p[3], r[3];
    get(q, v, 4);
    get(p, v + 4, 3);
    quat_rotate(r, q, p);
    put(v, r, 3);
    return 0;
}

static int bi_COMPPV(Value *v, int n, char *msg, size_t ml)
{
    (void)n, (void)msg, (void)ml;
    double pa[3], q[4], p[3], r[3];
    get(pa, v, 3);
    get(q, v + 3, 4);
    get(p, v + 7, 3);
    quat_rotate(r, q, p);
    v3_add(r, r, pa);
    put(v, r, 3);
    return 0;
}

static double dist3(const Value *a, const Value *b)
{
    double dx = a[0].r - b[0].r, dy = a[1].r - b[1].r, dz = a[2].r - b[2].r;
    return sqrt(dx * dx + dy * dy + dz * dz);
}
static int bi_DISTV(Value *v, int n, char *msg, size_t ml) { (void)n, (void)msg, (void)ml; v[0].r = dist3(v, v + 3); return 0; }
static int bi_DISTP(Value *v, int n, char *msg, size_t ml) { (void)n, (void)msg, (void)ml; v[0].r = dist3(v, v + 7); return 0; }

static const BuiltinFn builtin_fns[VB_COUNT] = {
#define X(name, nargs, nres, doc) bi_##name,
    IRL_VM_BUILTINS(X)
#undef X
};

/* Applies built-in id in place (see builtins.h). */
int builtin_call(int id, Value *v, int nargs, char *msg, size_t msglen)
{
    return builtin_fns[id](v, nargs, msg, msglen);
}
