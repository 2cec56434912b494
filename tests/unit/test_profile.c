/* test_profile.c — the jerk-limited profile: hand-computed cases, degenerate moves, and seeded randomised
 * properties (limits, continuity, derivative consistency, exact end, minimum time against a brute-force search). */
#include <string.h>

#include "motion/profile.h"
#include "test_rand.h"
#include "utest.h"

/* log-uniform in [lo, hi] */
static double lrand(double lo, double hi) { return lo * pow(hi / lo, urand()); }

UTEST(hand_computed_full_profile)
{
    /* h = 10, v = a = j = 1: Tj = 1, Ta = 2, Tv = 8, T = 12 */
    Profile pr;
    CHECK(profile_plan(&pr, 0, 10, 1, 1, 1) == PROFILE_OK);
    CHECK_NEAR(pr.Tj, 1, 1e-15);
    CHECK_NEAR(pr.Ta, 2, 1e-15);
    CHECK_NEAR(pr.Tv, 8, 1e-15);
    CHECK_NEAR(pr.T, 12, 1e-15);
    ProfileState s;
    profile_at(&pr, 1, &s);          /* end of the first ramp: p = 1/6, v = 1/2, a = 1 */
    CHECK_NEAR(s.p, 1.0 / 6, 1e-15);
    CHECK_NEAR(s.v, 0.5, 1e-15);
    CHECK_NEAR(s.a, 1, 1e-15);
    profile_at(&pr, 0.5, &s);        /* inside the first ramp: p = t^3/6, jerk +1 */
    CHECK_NEAR(s.p, 0.125 / 6, 1e-15);
    CHECK_NEAR(s.j, 1, 0);
    profile_at(&pr, 2, &s);          /* end of acceleration: p = vpk Ta / 2 = 1 */
    CHECK_NEAR(s.p, 1, 1e-15);
    CHECK_NEAR(s.v, 1, 1e-15);
    CHECK_NEAR(s.a, 0, 1e-15);
    profile_at(&pr, 6, &s);          /* midpoint */
    CHECK_NEAR(s.p, 5, 1e-14);
    profile_at(&pr, 11.5, &s);       /* mirror of t = 0.5: p = 10 - 0.125/6, a = -0.5, jerk +1 */
    CHECK_NEAR(s.p, 10 - 0.125 / 6, 1e-14);
    CHECK_NEAR(s.a, -0.5, 1e-15);
    CHECK_NEAR(s.j, 1, 0);
    profile_at(&pr, 12, &s);
    CHECK(s.p == 10 && s.v == 0 && s.a == 0);
}

UTEST(hand_computed_degenerate)
{
    Profile pr;
    ProfileState s;
    /* trapezoid (infinite jerk), vmax just reached: h = 4, v = 2, a = 1 -> Ta = 2, Tv = 0, T = 4 */
    CHECK(profile_plan(&pr, 1, -3, 2, 1, INFINITY) == PROFILE_OK);
    CHECK_NEAR(pr.T, 4, 1e-15);
    profile_at(&pr, 1, &s);
    CHECK_NEAR(s.p, 0.5, 1e-15);     /* 1 - a t^2 / 2 */
    CHECK_NEAR(s.v, -1, 1e-15);
    CHECK_NEAR(s.a, -1, 1e-15);
    CHECK(s.j == 0);
    /* neither vmax nor amax reached: h = 2 j Tj^3 with j = 1, Tj = 1 -> T = 4, peak a = 1 < 2, peak v = 1 < 10 */
    CHECK(profile_plan(&pr, 0, 2, 10, 2, 1) == PROFILE_OK);
    CHECK_NEAR(pr.T, 4, 1e-15);
    CHECK_NEAR(pr.apk, 1, 1e-15);
    CHECK_NEAR(pr.vpk, 1, 1e-15);
    /* amax reached, vmax not: a = 1, j = 1, h = 6: Ta = (1 + sqrt(1 + 24)) / 2 = 3, vpk = 2, T = 6 */
    CHECK(profile_plan(&pr, 0, 6, 5, 1, 1) == PROFILE_OK);
    CHECK_NEAR(pr.Ta, 3, 1e-15);
    CHECK_NEAR(pr.vpk, 2, 1e-15);
    CHECK_NEAR(pr.T, 6, 1e-15);
    /* zero length: no time, stays put */
    CHECK(profile_plan(&pr, 0.25, 0.25, 1, 1, 1) == PROFILE_OK);
    CHECK(pr.T == 0);
    profile_at(&pr, 0.5, &s);
    CHECK(s.p == 0.25 && s.v == 0);
    /* zero length stretched: stands still for the duration */
    CHECK(profile_plan_duration(&pr, 0.25, 0.25, 1, 1, 1, 2) == PROFILE_OK);
    CHECK(pr.T == 2);
    profile_at(&pr, 1, &s);
    CHECK(s.p == 0.25 && s.v == 0 && s.a == 0);
    /* infinite vmax and amax: pure jerk-limited S, h = 2 j Tj^3 */
    CHECK(profile_plan(&pr, 0, 16, INFINITY, INFINITY, 2) == PROFILE_OK);
    CHECK_NEAR(pr.Tj, cbrt(4.0), 1e-15);    /* Tj = cbrt(h / 2j) = cbrt(4), T = 4 Tj */
    CHECK_NEAR(pr.T, 4 * cbrt(4.0), 1e-14);
    /* errors */
    CHECK(profile_plan(&pr, 0, 1, 0, 1, 1) == PROFILE_EINVAL);
    CHECK(profile_plan(&pr, 0, 1, 1, INFINITY, INFINITY) == PROFILE_EINVAL);
    CHECK(profile_plan(&pr, 0, NAN, 1, 1, 1) == PROFILE_EINVAL);
    CHECK(profile_plan(&pr, 0, 1, 1, NAN, 1) == PROFILE_EINVAL);
    /* stretch below the minimum: minimum-time profile and a note */
    CHECK(profile_plan_duration(&pr, 0, 10, 1, 1, 1, 5) == PROFILE_STRETCH_LIMITED);
    CHECK_NEAR(pr.T, 12, 1e-15);
}

/* Brute force: the longest rest-to-rest distance coverable in time T is max over the cruise speed v of
 * v (T - Ta(v)), subject to 2 Ta(v) <= T and v <= vmax; it is concave in v, so a ternary search finds it. */
static double ta_of(double v, double a, double j)
{
    if (isinf(j)) return v / a;
    if (isinf(a)) return 2 * sqrt(v / j);
    return v * j >= a * a ? a / j + v / a : 2 * sqrt(v / j);
}
static double max_dist(double T, double vmax, double a, double j)
{
    double lo = 0, hi = isinf(vmax) ? 1.0 : vmax;
    if (isinf(vmax)) while (2 * ta_of(hi, a, j) < T) hi *= 2;
    if (2 * ta_of(hi, a, j) > T) {     /* largest v with 2 Ta(v) <= T */
        double l = 0, h = hi;
        for (int i = 0; i < 200; i++) {
            double m = 0.5 * (l + h);
            if (2 * ta_of(m, a, j) <= T) l = m; else h = m;
        }
        hi = l;
    }
    for (int i = 0; i < 200; i++) {
        double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (m1 * (T - ta_of(m1, a, j)) < m2 * (T - ta_of(m2, a, j))) lo = m1; else hi = m2;
    }
    double v = 0.5 * (lo + hi);
    return v * (T - ta_of(v, a, j));
}
static double brute_min_time(double h, double vmax, double a, double j)
{
    double lo = 0, hi = 1e-9;
    while (max_dist(hi, vmax, a, j) < h) hi *= 2;
    for (int i = 0; i < 200; i++) {
        double m = 0.5 * (lo + hi);
        if (m <= lo || m >= hi) break;
        if (max_dist(m, vmax, a, j) >= h) hi = m; else lo = m;
    }
    return hi;
}

/* random limits: about 10% infinite jerk, 5% infinite acceleration, 5% infinite speed */
static void random_limits(double *v, double *a, double *j)
{
    *v = lrand(1e-2, 1e2);
    *a = lrand(1e-2, 1e3);
    *j = lrand(1e-1, 1e4);
    double u = urand();
    if (u < 0.10) *j = INFINITY;
    else if (u < 0.15) *a = INFINITY;
    else if (u < 0.20) *v = INFINITY;
}

/* The invariants of one profile: limits, end states, derivative consistency, continuity at phase boundaries. */
static int profile_properties(const Profile *pr, double vmax, double amax, double jmax)
{
    int bad = 0;
    ProfileState s, l, r;
    double T = pr->T, h = pr->h, scale = fabs(pr->p0) + h;
    profile_at(pr, 0, &s);
    bad += !(s.p == pr->p0 && s.v == 0 && s.a == 0);
    profile_at(pr, T, &s);
    bad += !(s.p == pr->p1 && s.v == 0 && s.a == 0);
    if (T == 0) return bad;
    for (int k = 0; k <= 400; k++) {
        double t = T * k / 400.0;
        profile_at(pr, t, &s);
        bad += !(fabs(s.v) <= vmax * (1 + 1e-9));
        bad += !(fabs(s.a) <= amax * (1 + 1e-9));
        bad += !(fabs(s.j) <= jmax * (1 + 1e-9));
        bad += !(pr->dir * (s.p - pr->p0) >= -1e-12 * scale && pr->dir * (pr->p1 - s.p) >= -1e-12 * scale);
        /* derivative consistency away from the boundaries: v = dp/dt, a = dv/dt (central differences) */
        double e = 1e-5 * T, b[7] = {pr->Tj, pr->Ta - pr->Tj, pr->Ta, pr->Ta + pr->Tv, T - pr->Ta + pr->Tj,
                                     T - pr->Tj, 0.5 * T};
        int near = t < e || t > T - e;
        for (int i = 0; i < 7; i++) near |= fabs(t - b[i]) < 2 * e;
        if (!near) {
            profile_at(pr, t - e, &l);
            profile_at(pr, t + e, &r);
            double fv = (r.p - l.p) / (2 * e), fa = (r.v - l.v) / (2 * e);
            /* truncation e^2 |p'''| / 6 (jerk, zero where jmax is infinite), rounding 2 ulp of p / 2e */
            double jt = isinf(jmax) ? 0 : e * e * jmax / 6;
            bad += !(fabs(fv - s.v) <= 1e-9 * pr->vpk + 1.01 * jt + 1e-15 * scale / e);
            bad += !(fabs(fa - s.a) <= 1e-9 * pr->apk + 1e-15 * pr->vpk / e);
        }
    }
    /* continuity across every phase boundary: jumps no bigger than the limits allow over 2 eps */
    double b[7] = {pr->Tj, pr->Ta - pr->Tj, pr->Ta, pr->Ta + pr->Tv, T - pr->Ta + pr->Tj, T - pr->Tj, 0.5 * T};
    for (int i = 0; i < 7; i++) {
        double e = 1e-9 * T;
        if (b[i] - e < 0 || b[i] + e > T) continue;
        profile_at(pr, b[i] - e, &l);
        profile_at(pr, b[i] + e, &r);
        bad += !(fabs(r.p - l.p) <= 2 * e * pr->vpk * (1 + 1e-6) + 4e-16 * scale);
        bad += !(fabs(r.v - l.v) <= 2 * e * pr->apk * (1 + 1e-6) + 4e-16 * pr->vpk);
        if (!isinf(jmax)) bad += !(fabs(r.a - l.a) <= 2 * e * jmax * (1 + 1e-6) + 4e-16 * pr->apk);
    }
    return bad;
}

UTEST(random_time_optimal)
{
    int bad = 0, worst_case = -1;
    double worst_gap = 0;
    for (int n = 0; n < 20000; n++) {
        double v, a, j;
        random_limits(&v, &a, &j);
        double p0 = (urand() - 0.5) * 10, h = lrand(1e-6, 1e3) * (urand() < 0.5 ? -1 : 1);
        Profile pr;
        if (profile_plan(&pr, p0, p0 + h, v, a, j) != PROFILE_OK) { bad++; continue; }
        int b = profile_properties(&pr, v, a, j);
        if (b) {
            if (bad < 5) printf("#   case %d: h %g v %g a %g j %g: %d violations\n", n, h, v, a, j, b);
            bad++;
        }
        if (n % 10 == 0) {           /* minimality against the brute force (slower) */
            double tb = brute_min_time(fabs(h), v, a, j), gap = fabs(pr.T - tb) / tb;
            if (gap > worst_gap) { worst_gap = gap; worst_case = n; }
        }
    }
    if (worst_gap > 1e-7) printf("#   worst duration gap %g at case %d\n", worst_gap, worst_case);
    CHECK(bad == 0);
    CHECK(worst_gap <= 1e-7);
}

UTEST(random_stretched)
{
    int bad = 0;
    for (int n = 0; n < 10000; n++) {
        double v, a, j;
        random_limits(&v, &a, &j);
        double p0 = (urand() - 0.5) * 10, h = lrand(1e-6, 1e3) * (urand() < 0.5 ? -1 : 1);
        double Tmin = profile_min_time(h, v, a, j), Treq = Tmin * (1 + lrand(1e-6, 20));
        Profile pr;
        if (profile_plan_duration(&pr, p0, p0 + h, v, a, j, Treq) != PROFILE_OK) { bad++; continue; }
        int b = profile_properties(&pr, v, a, j) + !(fabs(pr.T - Treq) <= 1e-12 * Treq);
        if (b) {
            if (bad < 5) printf("#   case %d: h %g T %g/%g: %d violations\n", n, h, pr.T, Treq, b);
            bad++;
        }
    }
    CHECK(bad == 0);
}

UTEST(time_at_fraction)
{
    Profile pr;
    ProfileState s;
    profile_plan(&pr, 2, -8, 1, 1, 1);          /* T = 12, symmetric: half the distance at t = 6 */
    CHECK_NEAR(profile_time_at_fraction(&pr, 0.5), 6, 1e-12);
    double t = profile_time_at_fraction(&pr, 0.9);
    profile_at(&pr, t, &s);
    CHECK_NEAR(s.p, 2 - 9, 1e-12);
    CHECK(profile_time_at_fraction(&pr, 0) == 0);
    CHECK(profile_time_at_fraction(&pr, 1) == pr.T);
}

/* profile_pos (the planner's per-cycle path parameter) is profile_at's position to the bit: random profiles,
 * trapezoids among them, at random times in every phase and both halves, and at the edges (0, T, beyond, NaN). */
UTEST(position_alone_same_bits)
{
    int bad = 0, cases = 0;
    for (int n = 0; n < 2000; n++) {
        double v, a, j;
        random_limits(&v, &a, &j);
        if (n % 4 == 0 && isfinite(a)) j = INFINITY;   /* a trapezoid (not with amax infinite too) */
        double p0 = (urand() - 0.5) * 10, h = lrand(1e-6, 1e3) * (urand() < 0.5 ? -1 : 1);
        Profile pr;
        if (profile_plan(&pr, p0, p0 + h, v, a, j) != PROFILE_OK) { bad++; continue; }
        for (int k = -2; k <= 102; k++) {
            double t = k == -2 ? NAN : k == 101 ? 0.5 * pr.T : k == 102 ? pr.T : pr.T * (k + urand()) / 100;
            ProfileState st;
            profile_at(&pr, t, &st);
            double q = profile_pos(&pr, t);
            cases++;
            if (memcmp(&q, &st.p, sizeof q)) {
                if (bad++ < 5) printf("#   case %d t %.17g: %.17g vs %.17g\n", n, t, q, st.p);
            }
        }
    }
    printf("#   %d times compared\n", cases);
    CHECK(bad == 0);
}

int main(void)
{
    RUN(hand_computed_full_profile);
    RUN(hand_computed_degenerate);
    RUN(random_time_optimal);
    RUN(random_stretched);
    RUN(time_at_fraction);
    RUN(position_alone_same_bits);
    return utest_done();
}
