/* trig.h — cos and sin of two doubles at once in plain C (fdlibm's argument reduction and kernels), for the chain
 * back-end's joint angles. libm's sincos takes another code path on a CPU with FMA, so its last bits depend on the
 * machine; these are the same on any x86-64, and two lanes per operation cost about a quarter of libm's calls.
 * Header-only. */
#ifndef IRL_TRIG_H
#define IRL_TRIG_H

#include <math.h>

#include "dmath.h"

typedef double TrigV2 __attribute__((vector_size(16)));
typedef long long TrigI2 __attribute__((vector_size(16)));

#define TRIG_MAX 1e6 /* |x| at or beyond this (or NaN): libm's cos and sin for that lane */

/* c = cos x, s = sin x, lane by lane, within 1 ulp for |x| < TRIG_MAX: x - n pi/2 with n the nearest integer, pi/2
 * in three parts (the first two with 33 bits, so n times them is exact: the reduced argument y0 + y1 is exact to
 * ~1e-32 absolute), then the minimax kernels of fdlibm's __kernel_sin and __kernel_cos on [-pi/4, pi/4], chosen and
 * signed by n mod 4. */
static inline __attribute__((always_inline)) void trig_sincos2(TrigV2 x, TrigV2 *c, TrigV2 *s)
{
#define TRIG_K(v) {v, v}
    static const TrigV2 invpio2 = TRIG_K(6.36619772367581382433e-01), toint = TRIG_K(6755399441055744.0), /* 1.5 * 2^52 */
        pio2_1 = TRIG_K(1.57079632673412561417e+00), pio2_2 = TRIG_K(6.07710050630396597660e-11),
        pio2_2t = TRIG_K(2.02226624879595063154e-21), half = TRIG_K(0.5), one = TRIG_K(1.0),
        S1 = TRIG_K(-1.66666666666666324348e-01), S2 = TRIG_K(8.33333333332248946124e-03),
        S3 = TRIG_K(-1.98412698298579493134e-04), S4 = TRIG_K(2.75573137070700676789e-06),
        S5 = TRIG_K(-2.50507602534068634195e-08), S6 = TRIG_K(1.58969099521155010221e-10),
        C1 = TRIG_K(4.16666666666666019037e-02), C2 = TRIG_K(-1.38888888888741095749e-03),
        C3 = TRIG_K(2.48015872894767294178e-05), C4 = TRIG_K(-2.75573143513906633035e-07),
        C5 = TRIG_K(2.08757232129817482790e-09), C6 = TRIG_K(-1.13596475577881948265e-11);
#undef TRIG_K
    TrigV2 fn = (x * invpio2 + toint) - toint; /* round to nearest: exact integers for |x| < 2^51 */
    TrigV2 r = x - fn * pio2_1, w = fn * pio2_2, t = r;
    r = t - w;
    w = fn * pio2_2t - ((t - r) - w);
    TrigV2 y0 = r - w, y1 = (r - y0) - w;
    /* __kernel_sin(y0, y1, 1) and __kernel_cos(y0, y1) */
    TrigV2 z = y0 * y0, zz = z * z, v = z * y0;
    TrigV2 rs = S2 + z * (S3 + z * S4) + z * zz * (S5 + z * S6);
    TrigV2 sn = y0 - ((z * (half * y1 - v * rs) - y1) - v * S1);
    TrigV2 rc = z * (C1 + z * (C2 + z * C3)) + zz * zz * (C4 + z * (C5 + z * C6));
    TrigV2 hz = half * z, w1 = one - hz;
    TrigV2 cs = w1 + (((one - w1) - hz) + (z * rc - y0 * y1));
    /* n odd: the kernels swap; the sign bit of cos is bit 1 of n + 1, that of sin bit 1 of n */
    TrigI2 n = __builtin_convertvector(fn, TrigI2), odd = -(n & 1), ic = (TrigI2)cs, is = (TrigI2)sn;
    *c = (TrigV2)(((odd & is) | (~odd & ic)) ^ (((n + 1) & 2) << 62));
    *s = (TrigV2)(((odd & ic) | (~odd & is)) ^ ((n & 2) << 62));
    if (!(fabs(x[0]) < TRIG_MAX && fabs(x[1]) < TRIG_MAX))
        for (int k = 0; k < 2; k++)
            if (!(fabs(x[k]) < TRIG_MAX)) (*c)[k] = dm_cos(x[k]), (*s)[k] = dm_sin(x[k]);
}

#define TRIG_SHIFT_MAX 0x1p-9 /* |d| up to which trig_shift2 holds: the terms it leaves out stay below 1e-19 */

/* c = cos(x0 + d), s = sin(x0 + d) from c0 = cos x0, s0 = sin x0, lane by lane, for |d| <= TRIG_SHIFT_MAX: the
 * angle-addition identity with cos d - 1 = -d^2/2 + d^4/24 and sin d = d - d^3/6 + d^5/120 (the next terms are
 * below 8e-20 and 3e-23), the small corrections summed before they meet c0 and s0 so that one rounding of the
 * result adds to the errors of c0 and s0 (about 2e-19 absolute besides). A few multiplications instead of
 * trig_sincos2's reduction and two kernels. */
static inline void trig_shift2(TrigV2 c0, TrigV2 s0, TrigV2 d, TrigV2 *c, TrigV2 *s)
{
    const TrigV2 h = {-0.5, -0.5}, c4 = {1.0 / 24, 1.0 / 24}, s3 = {-1.0 / 6, -1.0 / 6},
                 s5 = {1.0 / 120, 1.0 / 120};
    TrigV2 z = d * d;
    TrigV2 cm1 = z * (h + z * c4);      /* cos d - 1 */
    TrigV2 sd = d + d * z * (s3 + z * s5); /* sin d */
    *c = c0 + (c0 * cm1 - s0 * sd);
    *s = s0 + (s0 * cm1 + c0 * sd);
}

#endif
