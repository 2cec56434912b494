/* geom.h — small fixed-size 3-vectors, 3x3 rotations and unit quaternions in plain C (the hot path, where GSL
 * would only add overhead). Matrices are row-major double[9]; quaternions are (w, x, y, z). Header-only. */
#ifndef IRL_GEOM_H
#define IRL_GEOM_H

#include <math.h>
#include <string.h>

#include "dmath.h"

static inline void v3_set(double r[3], double x, double y, double z) { r[0] = x; r[1] = y; r[2] = z; }
static inline void v3_copy(double r[3], const double a[3]) { memcpy(r, a, 3 * sizeof *r); }
static inline void v3_add(double r[3], const double a[3], const double b[3])
{
    r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
}
static inline void v3_sub(double r[3], const double a[3], const double b[3])
{
    r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void v3_scale(double r[3], const double a[3], double k) { r[0] = k * a[0]; r[1] = k * a[1]; r[2] = k * a[2]; }
/* r += k a */
static inline void v3_axpy(double r[3], double k, const double a[3]) { r[0] += k * a[0]; r[1] += k * a[1]; r[2] += k * a[2]; }
static inline double v3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double v3_norm(const double a[3]) { return sqrt(v3_dot(a, a)); }
/* r = a x b (r may alias neither a nor b) */
static inline void v3_cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static inline void m3_identity(double R[9])
{
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(R, I, sizeof I);
}
/* r = A b (r may not alias b) */
static inline void m3_mulv(double r[3], const double A[9], const double b[3])
{
    r[0] = A[0] * b[0] + A[1] * b[1] + A[2] * b[2];
    r[1] = A[3] * b[0] + A[4] * b[1] + A[5] * b[2];
    r[2] = A[6] * b[0] + A[7] * b[1] + A[8] * b[2];
}
/* r = A^T b (r may not alias b) */
static inline void m3_tmulv(double r[3], const double A[9], const double b[3])
{
    r[0] = A[0] * b[0] + A[3] * b[1] + A[6] * b[2];
    r[1] = A[1] * b[0] + A[4] * b[1] + A[7] * b[2];
    r[2] = A[2] * b[0] + A[5] * b[1] + A[8] * b[2];
}
/* C = A B (C may alias neither) */
static inline void m3_mul(double C[9], const double A[9], const double B[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}
/* The cross-product matrix [a]x: [a]x b = a x b. */
static inline void m3_skew(double S[9], const double a[3])
{
    S[0] = 0, S[1] = -a[2], S[2] = a[1];
    S[3] = a[2], S[4] = 0, S[5] = -a[0];
    S[6] = -a[1], S[7] = a[0], S[8] = 0;
}

static inline void m3_transpose(double T[9], const double A[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) T[3 * j + i] = A[3 * i + j];
}

/* Rodrigues: rotation by angle about the unit axis e. */
static inline void m3_axis_angle(double R[9], const double e[3], double angle)
{
    double c, s;
    dm_sincos(angle, &s, &c);
    double v = 1.0 - c;
    double x = e[0], y = e[1], z = e[2];
    R[0] = c + x * x * v;     R[1] = x * y * v - z * s; R[2] = x * z * v + y * s;
    R[3] = y * x * v + z * s; R[4] = c + y * y * v;     R[5] = y * z * v - x * s;
    R[6] = z * x * v - y * s; R[7] = z * y * v + x * s; R[8] = c + z * z * v;
}

/* Rotation matrix of a unit quaternion (w, x, y, z). */
static inline void quat_to_m3(double R[9], const double q[4])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}

/* Unit quaternion (w >= 0) of a rotation matrix (Shepperd's method: the largest diagonal term first). */
static inline void m3_to_quat(double q[4], const double R[9])
{
    double t = R[0] + R[4] + R[8];
    if (t > R[0] && t > R[4] && t > R[8]) {
        double s = 2.0 * sqrt(1.0 + t);
        q[0] = 0.25 * s; q[1] = (R[7] - R[5]) / s; q[2] = (R[2] - R[6]) / s; q[3] = (R[3] - R[1]) / s;
    } else if (R[0] >= R[4] && R[0] >= R[8]) {
        double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s; q[1] = 0.25 * s; q[2] = (R[1] + R[3]) / s; q[3] = (R[2] + R[6]) / s;
    } else if (R[4] >= R[8]) {
        double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s; q[1] = (R[1] + R[3]) / s; q[2] = 0.25 * s; q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s; q[1] = (R[2] + R[6]) / s; q[2] = (R[5] + R[7]) / s; q[3] = 0.25 * s;
    }
    if (q[0] < 0) { q[0] = -q[0]; q[1] = -q[1]; q[2] = -q[2]; q[3] = -q[3]; }
}

/* r = a b (Hamilton product; r may alias neither) */
static inline void quat_mul(double r[4], const double a[4], const double b[4])
{
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* Orientation error from Ra to Rb as a rotation vector (axis * angle) in the base frame: err = log(Rb Ra^T),
 * the rotation that turns Ra into Rb. Used by IK and Cartesian checks. */
static inline void m3_rotation_error(double err[3], const double Ra[9], const double Rb[9])
{
    double RaT[9], E[9], q[4];
    m3_transpose(RaT, Ra);
    m3_mul(E, Rb, RaT);
    m3_to_quat(q, E);
    double s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double angle = 2.0 * dm_atan2(s, q[0]);
    double k = s > 1e-300 ? angle / s : 2.0;
    v3_set(err, k * q[1], k * q[2], k * q[3]);
}

#endif
