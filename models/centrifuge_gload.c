/* centrifuge_gload.c — the GMOVE map (commanded G -> planetary rate and gondola angles with their derivatives) and
 * the C2-blended G ramp a GMOVE TO ... WITH ONSET segment follows. Pure functions; derivation in
 * docs/MODELS.md §9. */
#include "centrifuge.h"

#include <math.h>

#include "dmath.h"

/* Derivatives of r = sqrt(x) from those of x: r r' = x'/2, r r'' = x''/2 - r'^2, r r''' = x'''/2 - 3 r' r''.
 * x = (x, x', x'', x'''), x > 0. */
static void sqrt_chain(const double x[4], double r[4])
{
    r[0] = sqrt(x[0]);
    r[1] = 0.5 * x[1] / r[0];
    r[2] = (0.5 * x[2] - r[1] * r[1]) / r[0];
    r[3] = (0.5 * x[3] - 3.0 * r[1] * r[2]) / r[0];
}

/* S = sqrt(G^2 - 1), then w^2 = (g / a1) S, each with three derivatives by sqrt_chain. */
int centrifuge_gmove_omega(double a1, double g, const double Gd[4], double w[4])
{
    for (int i = 0; i < 4; i++)
        if (!isfinite(Gd[i])) return MODEL_EINVAL;
    if (!(a1 > 0.0) || !(g > 0.0) || Gd[0] < 1.0) return MODEL_EINVAL;
    double x[4] = {Gd[0] * Gd[0] - 1.0, 2.0 * Gd[0] * Gd[1], 2.0 * (Gd[1] * Gd[1] + Gd[0] * Gd[2]),
                   2.0 * (3.0 * Gd[1] * Gd[2] + Gd[0] * Gd[3])}; /* G^2 - 1 and its derivatives */
    if (x[0] <= 0.0) {
        /* At G = 1 the arm is at rest; any motion away from it has an infinite initial w'. */
        if (Gd[1] != 0.0 || Gd[2] != 0.0 || Gd[3] != 0.0) return MODEL_ESINGULAR;
        w[0] = w[1] = w[2] = w[3] = 0.0;
        return MODEL_OK;
    }
    double S[4], W[4];
    sqrt_chain(x, S);
    for (int i = 0; i < 4; i++) W[i] = g / a1 * S[i];
    sqrt_chain(W, w);
    return MODEL_OK;
}

/* Derivatives of atan(v): (atan v)' = v' / (1 + v^2), (atan v)'' = v'' / (1 + v^2) - 2 v v'^2 / (1 + v^2)^2. */
static void atan_chain(const double v[3], double out[3])
{
    double d = 1.0 + v[0] * v[0];
    out[0] = dm_atan(v[0]);
    out[1] = v[1] / d;
    out[2] = v[2] / d - 2.0 * v[0] * v[1] * v[1] / (d * d);
}

/* q2 = atan(u), u = a1 w^2 / g;  q3 = atan(N / D), N = -a1 w', D = sqrt(a1^2 w^4 + g^2) = g sqrt(1 + u^2).
 * (atan2 with a positive second argument equals atan of the ratio.) */
void centrifuge_gmove_gondola(double a1, double g, const double w[4], double q2d[3], double q3d[3])
{
    double u[3] = {a1 * w[0] * w[0] / g, 2.0 * a1 * w[0] * w[1] / g,
                   2.0 * a1 * (w[1] * w[1] + w[0] * w[2]) / g};
    atan_chain(u, q2d);
    /* D^2 = g^2 (1 + u^2): D D' = g^2 u u', D D'' = g^2 (u'^2 + u u'') - D'^2. */
    double D = g * sqrt(1.0 + u[0] * u[0]);
    double Dd = g * g * u[0] * u[1] / D;
    double Ddd = (g * g * (u[1] * u[1] + u[0] * u[2]) - Dd * Dd) / D;
    double N = -a1 * w[1], Nd = -a1 * w[2], Ndd = -a1 * w[3];
    double v[3] = {N / D, Nd / D - N * Dd / (D * D),
                   Ndd / D - 2.0 * Nd * Dd / (D * D) - N * Ddd / (D * D) + 2.0 * N * Dd * Dd / (D * D * D)};
    atan_chain(v, q3d);
}

int centrifuge_gmove_map(double a1, double g, const double Gd[4], double q[3], double qd[3], double qdd[3])
{
    double w[4], q2d[3], q3d[3];
    int st = centrifuge_gmove_omega(a1, g, Gd, w);
    if (st < 0) return st;
    centrifuge_gmove_gondola(a1, g, w, q2d, q3d);
    q[1] = q2d[0]; q[2] = q3d[0];
    qd[0] = w[0]; qd[1] = q2d[1]; qd[2] = q3d[1];
    qdd[0] = w[1]; qdd[1] = q2d[2]; qdd[2] = q3d[2];
    return MODEL_OK;
}

double centrifuge_gmove_felt(double a1, double g, double G, double wdot)
{
    return dm_hypot(G, a1 * wdot / g);
}

/* ---- the C2 G ramp ---- */

/* Quintic smoothstep s(x) = 10x^3 - 15x^4 + 6x^5 with s(0) = 0, s(1) = 1 and s', s'' zero at both ends:
 * out = (integral of s from 0 to x, s, s', s''). */
static void smoothstep(double x, double out[4])
{
    double x2 = x * x, x3 = x2 * x;
    out[0] = x3 * x * (2.5 - 3.0 * x + x2);
    out[1] = x3 * (10.0 - 15.0 * x + 6.0 * x2);
    out[2] = 30.0 * x2 * (1.0 - x) * (1.0 - x);
    out[3] = 60.0 * x * (1.0 - x) * (1.0 - 2.0 * x);
}

int centrifuge_gramp_init(CentrifugeGRamp *r, double G0, double G1, double rate, double blend)
{
    if (!isfinite(G0) || !isfinite(G1) || !(rate > 0.0) || !isfinite(rate) || !isfinite(blend))
        return MODEL_EINVAL;
    if (blend <= 0.0) blend = CENTRIFUGE_BLEND_DEFAULT;
    double dG = fabs(G1 - G0);
    r->G0 = G0;
    r->G1 = G1;
    r->blend = blend;
    if (dG < rate * blend) rate = dG / blend; /* short step: two blends back to back at a lower peak rate */
    r->rate = G1 >= G0 ? rate : -rate;
    r->T = rate > 0.0 ? dG / rate + blend : 0.0;
    return MODEL_OK;
}

int centrifuge_gramp_hold(CentrifugeGRamp *r, double G0, double duration)
{
    if (!isfinite(G0) || !(duration >= 0.0) || !isfinite(duration)) return MODEL_EINVAL;
    r->G0 = r->G1 = G0;
    r->rate = 0.0;
    r->blend = CENTRIFUGE_BLEND_DEFAULT;
    r->T = duration;
    return MODEL_OK;
}

/* Three pieces: blend in (G' = rate s(t/b)), constant rate, blend out (G' = rate s((T - t)/b)). */
void centrifuge_gramp_eval(const CentrifugeGRamp *r, double t, double Gd[4])
{
    double b = r->blend, k = r->rate, sm[4];
    if (k == 0.0 || t <= 0.0 || t >= r->T) { /* a hold, or before/after the ramp */
        Gd[0] = t <= 0.0 ? r->G0 : r->G1;
        Gd[1] = Gd[2] = Gd[3] = 0.0;
        return;
    }
    if (t < b) {
        smoothstep(t / b, sm);
        Gd[0] = r->G0 + k * b * sm[0];
        Gd[1] = k * sm[1];
        Gd[2] = k * sm[2] / b;
        Gd[3] = k * sm[3] / (b * b);
    } else if (t <= r->T - b) {
        Gd[0] = r->G0 + k * (0.5 * b + (t - b));
        Gd[1] = k;
        Gd[2] = Gd[3] = 0.0;
    } else {
        smoothstep((r->T - t) / b, sm);
        Gd[0] = r->G1 - k * b * sm[0];
        Gd[1] = k * sm[1];
        Gd[2] = -k * sm[2] / b;
        Gd[3] = k * sm[3] / (b * b);
    }
}

/* Planetary rate on the map at local time t; NAN below 1 G. */
static double ramp_omega(const CentrifugeGRamp *r, double a1, double g, double t)
{
    double Gd[4];
    centrifuge_gramp_eval(r, t, Gd);
    if (Gd[0] < 1.0) return NAN;
    return sqrt(g * sqrt(Gd[0] * Gd[0] - 1.0) / a1);
}

/* 8-point Gauss-Legendre on [lo, hi]. */
static double gl8(const CentrifugeGRamp *r, double a1, double g, double lo, double hi)
{
    static const double x[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
    static const double wt[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
    double c = 0.5 * (lo + hi), h = 0.5 * (hi - lo), sum = 0.0;
    for (int i = 0; i < 4; i++)
        sum += wt[i] * (ramp_omega(r, a1, g, c - h * x[i]) + ramp_omega(r, a1, g, c + h * x[i]));
    return h * sum;
}

double centrifuge_gramp_angle(const CentrifugeGRamp *r, double a1, double g, double t0, double t1)
{
    if (t1 < t0) return -centrifuge_gramp_angle(r, a1, g, t1, t0);
    /* Piece boundaries where G is only C3: the integrand's polynomial pieces must not be straddled. */
    double cut[4] = {0.0, r->blend, r->T - r->blend, r->T};
    int ncut = r->rate != 0.0 ? 4 : 0;
    double sum = 0.0, t = t0;
    while (t < t1) {
        double end = t1;
        for (int i = 0; i < ncut; i++)
            if (cut[i] > t && cut[i] < end) end = cut[i];
        if (end - t > 0.1) end = t + 0.1;
        sum += gl8(r, a1, g, t, end);
        t = end;
    }
    return sum;
}
