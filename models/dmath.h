/* dmath.h — the elementary functions of the numerics (sin, cos, atan2, pow, ...) with the same bits on any x86-64.
 * glibc's libm picks FMA/AVX2 forms of these by CPU, and they differ from its baseline forms in the last bits; these
 * are SLEEF's deterministic scalar forms (Debian libsleef-dev: `Sleef_cinz_*d1_*purec`, plain C without FMA, one code
 * path whatever the CPU), within 1 ulp (hypot 0.5 ulp). sqrt, floor, round, remainder and friends stay libm's: IEEE
 * defines their results exactly. Header-only. */
#ifndef IRL_DMATH_H
#define IRL_DMATH_H

#include <sleef.h>

static inline double dm_sin(double x) { return Sleef_cinz_sind1_u10purec(x); }
static inline double dm_cos(double x) { return Sleef_cinz_cosd1_u10purec(x); }
/* *s = sin x, *c = cos x: one argument reduction for both, half the cost of the two calls */
static inline void dm_sincos(double x, double *s, double *c)
{
    Sleef_double_2 r = Sleef_cinz_sincosd1_u10purec(x);
    *s = r.x, *c = r.y;
}
static inline double dm_tan(double x) { return Sleef_cinz_tand1_u10purec(x); }
static inline double dm_asin(double x) { return Sleef_cinz_asind1_u10purec(x); }
static inline double dm_acos(double x) { return Sleef_cinz_acosd1_u10purec(x); }
static inline double dm_atan(double x) { return Sleef_cinz_atand1_u10purec(x); }
static inline double dm_atan2(double y, double x) { return Sleef_cinz_atan2d1_u10purec(y, x); }
static inline double dm_exp(double x) { return Sleef_cinz_expd1_u10purec(x); }
static inline double dm_log(double x) { return Sleef_cinz_logd1_u10purec(x); }
static inline double dm_pow(double x, double y) { return Sleef_cinz_powd1_u10purec(x, y); }
static inline double dm_cbrt(double x) { return Sleef_cinz_cbrtd1_u10purec(x); }
static inline double dm_tanh(double x) { return Sleef_cinz_tanhd1_u10purec(x); }
static inline double dm_hypot(double x, double y) { return Sleef_cinz_hypotd1_u05purec(x, y); }

#endif
