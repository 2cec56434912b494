/* gmove.c — the GMOVE profile planner: G ramps, holds, PROFILE tables and spin-up/down from rest, mapped to the
 * centrifuge's three axes through the back-end's GMOVE map, checked against the machine's limits. See gmove.h. */
#include "motion/gmove.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dmath.h"
#include "output/display.h"

/* ================================================================================================
 * Truncated Taylor series ("jets") of order 4: a[k] = f^(k) / k!. They give the third derivatives (joint jerks)
 * the back-end's map does not: q'''2 needs w''', q'''3 needs w'''' and hence G''''.
 * ================================================================================================ */

#define JN 5

static const double fact[JN] = {1, 1, 2, 6, 24};

/* c = a b */
static void jet_mul(const double *a, const double *b, double *c)
{
    for (int k = 0; k < JN; k++) {
        double s = 0.0;
        for (int i = 0; i <= k; i++) s += a[i] * b[k - i];
        c[k] = s;
    }
}

/* c = a / b, orders 0..n-1 */
static void jet_div(const double *a, const double *b, double *c, int n)
{
    for (int k = 0; k < n; k++) {
        double s = a[k];
        for (int i = 1; i <= k; i++) s -= b[i] * c[k - i];
        c[k] = s / b[0];
    }
}

/* c = sqrt(a), a[0] > 0 */
static void jet_sqrt(const double *a, double *c)
{
    c[0] = sqrt(a[0]);
    for (int k = 1; k < JN; k++) {
        double s = a[k];
        for (int i = 1; i < k; i++) s -= c[i] * c[k - i];
        c[k] = s / (2.0 * c[0]);
    }
}

/* c = atan(a), orders 0..n-1: c' = a' / (1 + a^2). */
static void jet_atan(const double *a, double *c, int n)
{
    double da[JN] = {0}, den[JN], p[JN];
    for (int j = 0; j + 1 < n; j++) da[j] = (j + 1) * a[j + 1];
    jet_mul(a, a, den);
    den[0] += 1.0;
    jet_div(da, den, p, n - 1);
    c[0] = dm_atan(a[0]);
    for (int j = 0; j + 1 < n; j++) c[j + 1] = p[j] / (j + 1);
}

/* w'''' on the map from Gd = (G, G', G'', G''', G''''); 0 at rest (G = 1). */
static double omega4(double a1, double g, const double Gd[5])
{
    double Gj[JN], x[JN], S[JN], w[JN];
    for (int k = 0; k < JN; k++) Gj[k] = Gd[k] / fact[k];
    jet_mul(Gj, Gj, x);
    x[0] -= 1.0;
    if (!(x[0] > 0.0)) return 0.0;
    jet_sqrt(x, S);
    for (int k = 0; k < JN; k++) S[k] *= g / a1;
    jet_sqrt(S, w);
    return w[4] * fact[4];
}

/* Third derivatives of the gondola angles from wd = (w, w', w'', w''', w''''). */
static void gondola_jerk(double a1, double g, const double wd[5], double *q2ddd, double *q3ddd)
{
    double wj[JN], u[JN], q2[JN], one[JN], D[JN], N[JN] = {0}, v[JN], q3[JN];
    for (int k = 0; k < JN; k++) wj[k] = wd[k] / fact[k];
    jet_mul(wj, wj, u);
    for (int k = 0; k < JN; k++) u[k] *= a1 / g;
    jet_atan(u, q2, 4);
    jet_mul(u, u, one);
    one[0] += 1.0;
    jet_sqrt(one, D);
    for (int k = 0; k < JN; k++) D[k] *= g;
    for (int k = 0; k < 4; k++) N[k] = -a1 * (k + 1) * wj[k + 1]; /* -a1 w', orders 0..3 */
    jet_div(N, D, v, 4);
    jet_atan(v, q3, 4);
    *q2ddd = q2[3] * 6.0;
    *q3ddd = q3[3] * 6.0;
}

/* ================================================================================================
 * One instant from the planetary rate or from the commanded G
 * ================================================================================================ */

/* Fill the axes, felt G and onset from wd = (w .. w''''); G, Gdot are set by the caller. */
static void fill_from_w(double a1, double g, const double wd[5], GmoveSample *o)
{
    double q2d[3], q3d[3];
    centrifuge_gmove_gondola(a1, g, wd, q2d, q3d);
    o->q[1] = q2d[0]; o->q[2] = q3d[0];
    o->qd[0] = wd[0]; o->qd[1] = q2d[1]; o->qd[2] = q3d[1];
    o->qdd[0] = wd[1]; o->qdd[1] = q2d[2]; o->qdd[2] = q3d[2];
    o->qddd[0] = wd[2];
    gondola_jerk(a1, g, wd, &o->qddd[1], &o->qddd[2]);
    o->omega = wd[0];
    o->omegadot = wd[1];
}

static void fill_felt(double a1, double g, GmoveSample *o)
{
    double k = a1 / g;
    o->Gfelt = centrifuge_gmove_felt(a1, g, o->G, o->omegadot);
    o->Gfelt_dot = (o->G * o->Gdot + k * k * o->omegadot * o->qddd[0]) / o->Gfelt;
}

/* From Gd = (G .. G''''): the back-end's map for w .. w''', the jet for w''''. */
static int fill_from_G(double a1, double g, const double Gd[5], GmoveSample *o)
{
    double wd[5];
    int st = centrifuge_gmove_omega(a1, g, Gd, wd);
    if (st < 0) return GMOVE_ENUMERIC;
    wd[4] = omega4(a1, g, Gd);
    fill_from_w(a1, g, wd, o);
    o->G = Gd[0];
    o->Gdot = Gd[1];
    fill_felt(a1, g, o);
    return GMOVE_OK;
}

/* From wd during a spin: the commanded resultant is G = sqrt(1 + u^2), u = a1 w^2 / g. */
static void fill_spin(double a1, double g, const double wd[5], GmoveSample *o)
{
    fill_from_w(a1, g, wd, o);
    double u = a1 * wd[0] * wd[0] / g, ud = 2.0 * a1 * wd[0] * wd[1] / g;
    o->G = sqrt(1.0 + u * u);
    o->Gdot = u * ud / o->G;
    fill_felt(a1, g, o);
}

/* ================================================================================================
 * G ramp pieces (the back-end's CentrifugeGRamp) and their G''''
 * ================================================================================================ */

/* G'''' of the ramp at its time t (the derivative of the back-end's G''' piece by piece). */
static double ramp_G4(const CentrifugeGRamp *r, double t)
{
    double b = r->blend, k = r->rate;
    if (k == 0.0 || t <= 0.0 || t >= r->T) return 0.0;
    if (t < b) {
        double x = t / b;
        return k * 60.0 * (1.0 - 6.0 * x + 6.0 * x * x) / (b * b * b);
    }
    if (t <= r->T - b) return 0.0;
    double x = (r->T - t) / b;
    return -k * 60.0 * (1.0 - 6.0 * x + 6.0 * x * x) / (b * b * b);
}

static void ramp_Gd(const GmovePiece *p, double tau, double Gd[5])
{
    centrifuge_gramp_eval(&p->ramp, p->toff + tau, Gd);
    Gd[4] = ramp_G4(&p->ramp, p->toff + tau);
}

/* Angle advance of a ramp piece over [0, tau]: cached knot + the back-end's Gauss-Legendre integral. */
static double ramp_angle(const GmovePiece *p, double a1, double g, double tau)
{
    if (p->ramp.rate == 0.0) return p->w_hold * tau;
    double dk = p->T / GMOVE_ANGLE_KNOTS;
    int k = dk > 0.0 ? (int)floor(tau / dk) : 0;
    if (k < 0) k = 0;
    if (k > GMOVE_ANGLE_KNOTS) k = GMOVE_ANGLE_KNOTS;
    double tk = k * dk;
    return p->qk[k] + centrifuge_gramp_angle(&p->ramp, a1, g, p->toff + tk, p->toff + tau);
}

/* Set up a ramp piece evaluating `r` from its time toff for T seconds (rate 0: a hold). */
static void ramp_piece(GmovePiece *p, const CentrifugeGRamp *r, double toff, double T, double a1, double g)
{
    memset(p, 0, sizeof *p);
    p->kind = GMOVE_PIECE_RAMP;
    p->ramp = *r;
    p->toff = toff;
    p->T = T;
    if (r->rate == 0.0) {
        double G = r->G0;
        p->w_hold = G > 1.0 ? sqrt(g * sqrt(G * G - 1.0) / a1) : 0.0;
        return;
    }
    double dk = T / GMOVE_ANGLE_KNOTS;
    p->qk[0] = 0.0;
    for (int k = 1; k <= GMOVE_ANGLE_KNOTS; k++)
        p->qk[k] = p->qk[k - 1] + centrifuge_gramp_angle(r, a1, g, toff + (k - 1) * dk, toff + k * dk);
}

/* ================================================================================================
 * Spin pieces: w(x) = sum b[k] x^(k+4), a septic with w = w' = w'' = w''' = 0 at rest (x = 0)
 * ================================================================================================ */

/* b from the end values W = (w, w' T, w'' T^2, w''' T^3) at x = 1 (4x4 Gaussian elimination, partial pivoting). */
static void septic_solve(const double W[4], double b[4])
{
    double A[4][5];
    for (int j = 0; j < 4; j++) {
        for (int k = 0; k < 4; k++) {
            int e = k + 4;
            double f = 1.0;
            for (int i = 0; i < j; i++) f *= e - i;
            A[j][k] = f;
        }
        A[j][4] = W[j];
    }
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(A[r][c]) > fabs(A[piv][c])) piv = r;
        for (int k = 0; k < 5; k++) { double tmp = A[c][k]; A[c][k] = A[piv][k]; A[piv][k] = tmp; }
        for (int r = c + 1; r < 4; r++) {
            double f = A[r][c] / A[c][c];
            for (int k = c; k < 5; k++) A[r][k] -= f * A[c][k];
        }
    }
    for (int c = 3; c >= 0; c--) {
        double s = A[c][4];
        for (int k = c + 1; k < 4; k++) s -= A[c][k] * b[k];
        b[c] = s / A[c][c];
    }
}

/* wd = (w .. w'''') of a spin piece at tau. */
static void spin_wd(const GmovePiece *p, double tau, double wd[5])
{
    double T = p->T, x = tau / T, sgn = 1.0;
    if (p->reverse) { x = 1.0 - x; sgn = -1.0; }
    if (x < 0.0) x = 0.0;
    if (x > 1.0) x = 1.0;
    double Tj = 1.0, sj = 1.0, xp[8] = {1.0}; /* xp[i] = x^i: products, a fraction of pow's cost */
    for (int i = 1; i < 8; i++) xp[i] = xp[i - 1] * x;
    for (int j = 0; j < 5; j++) {
        double s = 0.0;
        for (int k = 3; k >= 0; k--) {
            int e = k + 4;
            double f = 1.0;
            for (int i = 0; i < j; i++) f *= e - i;
            s += p->b[k] * f * xp[e - j];
        }
        wd[j] = sj * s / Tj;
        Tj *= T;
        sj *= sgn;
    }
}

/* Angle advance of a spin piece over [0, tau], exactly (the polynomial's integral). */
static double spin_angle(const GmovePiece *p, double tau)
{
    double x = tau / p->T;
    if (x < 0.0) x = 0.0;
    if (x > 1.0) x = 1.0;
    double Q1 = 0.0, Qx = 0.0, xr = p->reverse ? 1.0 - x : x, xe = xr * xr * xr * xr; /* xr^(k + 5) below */
    for (int k = 0; k < 4; k++) {
        xe *= xr;
        Q1 += p->b[k] / (k + 5);
        Qx += p->b[k] * xe / (k + 5);
    }
    return p->T * (p->reverse ? Q1 - Qx : Qx);
}

/* ================================================================================================
 * PROFILE tables: piecewise cubics (LINEAR: lines) with every knot's G' change blended by the quintic
 * smoothstep over [t_i - h_i, t_i + h_i]: G' = P'_L + s(x) D, D = P'_R - P'_L. D is even about the knot (a
 * constant for LINEAR; the natural cubic spline's (dG'''/2) u^2 with G'' continuous and zero at the ends), so
 * the blend adds nothing net and G equals the interpolant outside the windows.
 * ================================================================================================ */

/* Derivatives 0..4 of interval k's cubic at table time tt (k = -1: constant G[0]; k = n-1: constant G[n-1]). */
static void tab_poly(const GmoveTable *tb, int k, double tt, double P[5])
{
    P[4] = 0.0;
    if (k < 0 || k >= tb->n - 1) {
        const double *c = k < 0 ? &tb->c[0] : &tb->c[4 * (tb->n - 2)];
        double G = c[0];
        if (k >= 0) { double u = tb->t[tb->n - 1] - tb->t[tb->n - 2]; G = c[0] + u * (c[1] + u * (c[2] + u * c[3])); }
        P[0] = G; P[1] = P[2] = P[3] = 0.0;
        return;
    }
    const double *c = &tb->c[4 * k];
    double u = tt - tb->t[k];
    P[0] = c[0] + u * (c[1] + u * (c[2] + u * c[3]));
    P[1] = c[1] + u * (2.0 * c[2] + 3.0 * u * c[3]);
    P[2] = 2.0 * c[2] + 6.0 * u * c[3];
    P[3] = 6.0 * c[3];
}

/* s, s', s'', s''' of the quintic smoothstep at x. */
static void smooth(double x, double s[4])
{
    s[0] = x * x * x * (10.0 - 15.0 * x + 6.0 * x * x);
    s[1] = 30.0 * x * x * (1.0 - x) * (1.0 - x);
    s[2] = 60.0 * x * (1.0 - x) * (1.0 - 2.0 * x);
    s[3] = 60.0 * (1.0 - 6.0 * x + 6.0 * x * x);
}

/* Gd = (G .. G'''') of the table at table time tt. */
static void tab_Gd(const GmoveTable *tb, double tt, double Gd[5])
{
    int n = tb->n;
    /* knot interval: largest k with t[k] <= tt (-1 before the first) */
    int lo = 0, hi = n - 1, k;
    if (tt < tb->t[0]) k = -1;
    else {
        while (lo < hi) { int m = (lo + hi + 1) / 2; if (tb->t[m] <= tt) lo = m; else hi = m - 1; }
        k = lo;
    }
    int win = -1;
    if (k >= 0 && tt < tb->t[k] + tb->h[k]) win = k;
    else if (k + 1 < n && tt > tb->t[k + 1] - tb->h[k + 1]) win = k + 1;
    if (win < 0) { tab_poly(tb, k >= n - 1 ? n - 1 : k, tt, Gd); return; }
    int i = win;
    double h = tb->h[i], bw = 2.0 * h, a = tb->t[i] - h;
    double PL[5], PR[5], D[3], s[4];
    tab_poly(tb, i - 1, tt, PL);
    tab_poly(tb, i, tt, PR);
    for (int j = 0; j < 3; j++) D[j] = PR[j + 1] - PL[j + 1];
    smooth((tt - a) / bw, s);
    /* G = P_L + integral from a to tt of s D: 4-point Gauss-Legendre, exact for this degree-7 polynomial */
    static const double gx[2] = {0.3399810435848563, 0.8611363115940526};
    static const double gw[2] = {0.6521451548625461, 0.3478548451374538};
    double c = 0.5 * (a + tt), hw = 0.5 * (tt - a), I = 0.0;
    for (int q = 0; q < 4; q++) {
        double xq = c + (q < 2 ? -1.0 : 1.0) * hw * gx[q % 2], PLq[5], PRq[5], sq[4];
        tab_poly(tb, i - 1, xq, PLq);
        tab_poly(tb, i, xq, PRq);
        smooth((xq - a) / bw, sq);
        I += gw[q % 2] * sq[0] * (PRq[1] - PLq[1]);
    }
    I *= hw;
    Gd[0] = PL[0] + I;
    Gd[1] = PL[1] + s[0] * D[0];
    Gd[2] = PL[2] + s[1] * D[0] / bw + s[0] * D[1];
    Gd[3] = PL[3] + s[2] * D[0] / (bw * bw) + 2.0 * s[1] * D[1] / bw + s[0] * D[2];
    Gd[4] = s[3] * D[0] / (bw * bw * bw) + 3.0 * s[2] * D[1] / (bw * bw) + 3.0 * s[1] * D[2] / bw;
}

/* Planetary rate on a table at local time tau. */
static double tab_omega(const GmoveTable *tb, double a1, double g, double tau)
{
    double Gd[5];
    tab_Gd(tb, tb->tstart + tau, Gd);
    return Gd[0] > 1.0 ? sqrt(g * sqrt(Gd[0] * Gd[0] - 1.0) / a1) : 0.0;
}

/* 8-point Gauss-Legendre of the table's w over [lo, hi] (local times). */
static double tab_gl8(const GmoveTable *tb, double a1, double g, double lo, double hi)
{
    static const double x[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
    static const double wt[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
    double c = 0.5 * (lo + hi), h = 0.5 * (hi - lo), s = 0.0;
    for (int i = 0; i < 4; i++)
        s += wt[i] * (tab_omega(tb, a1, g, c - h * x[i]) + tab_omega(tb, a1, g, c + h * x[i]));
    return h * s;
}

/* Angle advance of a table piece over [0, tau]: cached breakpoint + one Gauss-Legendre panel. */
static double tab_angle(const GmoveTable *tb, double a1, double g, double tau)
{
    int lo = 0, hi = tb->nb - 1;
    if (tau <= 0.0) return 0.0;
    while (lo < hi) { int m = (lo + hi + 1) / 2; if (tb->tb[m] <= tau) lo = m; else hi = m - 1; }
    return tb->qb[lo] + (tau > tb->tb[lo] ? tab_gl8(tb, a1, g, tb->tb[lo], tau) : 0.0);
}

/* ================================================================================================
 * Sampling
 * ================================================================================================ */

/* State of piece p at its local time tau (q[0] = the angle advance within the piece). */
static int piece_sample(const GmovePiece *p, double a1, double g, double tau, GmoveSample *o)
{
    double Gd[5], wd[5];
    int st = GMOVE_OK;
    if (tau < 0.0) tau = 0.0;
    if (tau > p->T) tau = p->T;
    switch (p->kind) {
    case GMOVE_PIECE_RAMP:
        ramp_Gd(p, tau, Gd);
        st = fill_from_G(a1, g, Gd, o);
        o->q[0] = ramp_angle(p, a1, g, tau);
        break;
    case GMOVE_PIECE_SPIN:
        spin_wd(p, tau, wd);
        fill_spin(a1, g, wd, o);
        o->q[0] = spin_angle(p, tau);
        break;
    case GMOVE_PIECE_TABLE:
        tab_Gd(p->tab, p->tab->tstart + tau, Gd);
        st = fill_from_G(a1, g, Gd, o);
        o->q[0] = tab_angle(p->tab, a1, g, tau);
        break;
    }
    return st;
}

int gmove_sample(const GmoveSegment *seg, double t, GmoveSample *out)
{
    if (t > seg->T) t = seg->T;
    if (t < 0.0) t = 0.0;
    int i = seg->npieces - 1;
    while (i > 0 && t < seg->piece[i].t0) i--;
    const GmovePiece *p = &seg->piece[i];
    int st = piece_sample(p, seg->a1, seg->g, t - p->t0, out);
    out->q[0] += p->q1_0;
    out->piece = i;
    return st;
}

/* ================================================================================================
 * Limits
 * ================================================================================================ */

static const char *axis_name[3] = {"planetary", "pitch", "roll"};

/* How far v lies outside [lo, hi], as a fraction of the limit's size (<= 0 inside). */
static double excess(double v, double lo, double hi)
{
    if (isnan(v)) return INFINITY;
    if (isinf(lo) && isinf(hi)) return -INFINITY;
    double s;
    if (isfinite(lo) && isfinite(hi)) s = lo == -hi ? hi : 0.5 * (hi - lo);
    else s = isfinite(hi) ? fabs(hi) : fabs(lo);
    if (!(s > 1e-12)) s = 1e-12;
    return fmax(v - hi, lo - v) / s;
}

typedef struct {
    double e;          /* worst excess */
    const char *what;  /* its name */
    const char *unit;  /* its unit */
    char buf[48];
    double v, lo, hi;
    int torque;
} Worst;

/* The unit of a limited quantity (the three axes are revolute; G-loads in G). */
static const char *qty_unit(const char *qty)
{
    static const char *const map[][2] = {{"position", "rad"}, {"speed", "rad/s"}, {"acceleration", "rad/s^2"},
                                         {"jerk", "rad/s^3"}, {"torque", "Nm"}, {"onset rate", "G/s"},
                                         {"felt onset rate", "G/s"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(qty, map[i][0]) == 0) return map[i][1];
    return "G";
}

static void worst_note(Worst *w, double e, const char *axis, const char *qty, double v, double lo, double hi,
                       int torque)
{
    if (!(e > w->e)) return;
    w->e = e;
    w->unit = qty_unit(qty);
    if (axis) snprintf(w->buf, sizeof w->buf, "%s %s", axis, qty);
    else snprintf(w->buf, sizeof w->buf, "%s", qty);
    w->what = w->buf;
    w->v = v; w->lo = lo; w->hi = hi;
    w->torque = torque;
}

/* Every limit at one sample; st < 0 (the map failed) counts as a G violation. */
static int state_limits(const GmoveMachine *mc, const GmoveSample *s, int st, Worst *w)
{
    if (st < 0) { worst_note(w, INFINITY, NULL, "G below 1 (no planetary rate)", s->G, 1.0, INFINITY, 0); return 0; }
    for (int i = 0; i < 3; i++) {
        const ModelAxisLimits *L = &mc->lim[i];
        if (i > 0) worst_note(w, excess(s->q[i], L->min, L->max), axis_name[i], "position", s->q[i], L->min, L->max, 0);
        worst_note(w, excess(s->qd[i], -L->vmax, L->vmax), axis_name[i], "speed", s->qd[i], -L->vmax, L->vmax, 0);
        worst_note(w, excess(s->qdd[i], -L->amax, L->amax), axis_name[i], "acceleration", s->qdd[i], -L->amax,
                   L->amax, 0);
        worst_note(w, excess(s->qddd[i], -L->jmax, L->jmax), axis_name[i], "jerk", s->qddd[i], -L->jmax, L->jmax, 0);
    }
    worst_note(w, excess(s->Gfelt, mc->Gmin, mc->Gmax), NULL, "G", s->Gfelt, mc->Gmin, mc->Gmax, 0);
    worst_note(w, excess(s->Gdot, mc->Gdot_min, mc->Gdot_max), NULL, "onset rate", s->Gdot, mc->Gdot_min,
               mc->Gdot_max, 0);
    worst_note(w, excess(s->Gfelt_dot, mc->Gdot_min, mc->Gdot_max), NULL, "felt onset rate", s->Gfelt_dot,
               mc->Gdot_min, mc->Gdot_max, 0);
    if (mc->model) {
        double tau[3];
        if (model_inverse_dynamics(mc->model, s->q, s->qd, s->qdd, tau) < 0) return GMOVE_ENUMERIC;
        for (int i = 0; i < 3; i++)
            worst_note(w, excess(tau[i], -mc->lim[i].effort, mc->lim[i].effort), axis_name[i], "torque", tau[i],
                       -mc->lim[i].effort, mc->lim[i].effort, 1);
    }
    return 0;
}

/* Sample one piece over [u0, u1] with n steps into the running worst. */
static int check_range(const GmoveMachine *mc, const GmoveSegment *seg, const GmovePiece *p, double u0, double u1,
                       long n, Worst *w, double *wt)
{
    if (n < 1) n = 1;
    for (long k = 0; k <= n; k++) {
        double tau = u0 + (u1 - u0) * (double)k / (double)n;
        GmoveSample s;
        int st = piece_sample(p, seg->a1, seg->g, tau, &s);
        s.q[0] += p->q1_0;
        double before = w->e;
        if (state_limits(mc, &s, st, w) < 0) return GMOVE_ENUMERIC;
        if (w->e > before) *wt = p->t0 + tau;
    }
    return 0;
}

int gmove_check(const GmoveMachine *mc, const GmoveSegment *seg, GmoveViolation *v)
{
    Worst w = {.e = -INFINITY};
    double wt = 0.0;
    double dt = mc->check_dt > 0.0 ? mc->check_dt : 0.005;
    memset(v, 0, sizeof *v);
    for (int i = 0; i < seg->npieces; i++) {
        const GmovePiece *p = &seg->piece[i];
        int st = 0;
        if (p->kind == GMOVE_PIECE_RAMP && p->ramp.rate == 0.0) {
            st = check_range(mc, seg, p, 0.0, 0.0, 1, &w, &wt); /* a hold is one steady state */
        } else if (p->kind == GMOVE_PIECE_RAMP) {
            /* every dt in the blends; the constant-rate middle (smooth, slowly varying) at most 2000 steps */
            double cut[4] = {0.0, p->ramp.blend - p->toff, p->ramp.T - p->ramp.blend - p->toff, p->T};
            for (int k = 0; k < 3 && st == 0; k++) {
                double u0 = fmax(0.0, fmin(p->T, cut[k])), u1 = fmax(0.0, fmin(p->T, cut[k + 1]));
                if (u1 <= u0) continue;
                double step = k == 1 ? fmax(dt, (u1 - u0) / 2000.0) : dt;
                st = check_range(mc, seg, p, u0, u1, (long)ceil((u1 - u0) / step), &w, &wt);
            }
        } else {
            st = check_range(mc, seg, p, 0.0, p->T, (long)ceil(p->T / dt), &w, &wt);
        }
        if (st < 0) return st;
    }
    if (!(w.e > 1e-9)) return GMOVE_OK;
    v->status = w.torque ? GMOVE_ETORQUE : GMOVE_EGLIMIT;
    snprintf(v->what, sizeof v->what, "%s", w.what);
    snprintf(v->unit, sizeof v->unit, "%s", w.unit);
    v->t = wt; v->value = w.v; v->lo = w.lo; v->hi = w.hi;
    return v->status;
}

/* ================================================================================================
 * Spin-up from rest (and its mirror, spin-down to rest)
 * ================================================================================================ */

#define SPIN_SAMPLES 64
#define SPIN_MARGIN 2e-3   /* the spin search keeps this fraction inside every limit; the final check has none */

/* Worst excess of a candidate spin piece against the limits (with margin), the onset cap |G'| <= r, and
 * monotony (w never turns back). */
static double spin_score(const GmoveMachine *mc, const GmovePiece *p, double a1, double g, double r,
                         const char **what, char *buf, size_t buflen)
{
    Worst w = {.e = -INFINITY};
    double eo = -INFINITY, em = -INFINITY;
    for (int k = 1; k <= SPIN_SAMPLES; k++) {
        double tau = p->T * (p->reverse ? (double)(k - 1) : (double)k) / SPIN_SAMPLES;
        GmoveSample s;
        piece_sample(p, a1, g, tau, &s);
        if (state_limits(mc, &s, 0, &w) < 0) return INFINITY;
        /* never faster than ONSET: neither the commanded resultant nor the felt magnitude */
        eo = fmax(eo, fmax(fabs(s.Gdot), fabs(s.Gfelt_dot)) / r - 1.0 - 1e-9);
        double dir = p->reverse ? -1.0 : 1.0;
        if (dir * s.omegadot < -1e-9) em = 1.0;
        if (w.e + SPIN_MARGIN > 0.0 || eo > 0.0 || em > 0.0) break; /* infeasible: the first reason will do */
    }
    double e = w.e + SPIN_MARGIN;
    const char *name = w.what;
    if (eo > e) { e = eo; name = "onset"; }
    if (em > e) { e = em; name = "monotone"; }
    if (what) { snprintf(buf, buflen, "%s", name ? name : "?"); *what = buf; }
    return e;
}

/* Shortest spin piece (w from rest to the end jet wend = (w, w', w'', w''') at T, or its mirror) inside the
 * limits: scan T geometrically, then bisect the first feasible step. Returns T or NAN; *gov names the constraint
 * that would be broken by a shorter spin (what governs it). */
static double spin_plan(const GmoveMachine *mc, const double wend[4], double r, int reverse, GmovePiece *out,
                        char *gov, size_t govlen)
{
    double a1 = mc->a1, g = mc->g;
    GmovePiece p;
    memset(&p, 0, sizeof p);
    p.kind = GMOVE_PIECE_SPIN;
    p.reverse = reverse;
    char buf[48];
    const char *what = NULL;
    double Tbad = 0.0, Tok = NAN;
    for (double T = 0.05; T < 2000.0; T *= 1.3) {
        double W[4] = {wend[0], wend[1] * T, wend[2] * T * T, wend[3] * T * T * T};
        p.T = T;
        septic_solve(W, p.b);
        if (spin_score(mc, &p, a1, g, r, &what, buf, sizeof buf) <= 0.0) { Tok = T; break; }
        Tbad = T;
        snprintf(gov, govlen, "%s", what);
    }
    if (isnan(Tok)) return NAN;
    for (int it = 0; it < 16 && Tbad > 0.0; it++) {
        double T = 0.5 * (Tbad + Tok);
        double W[4] = {wend[0], wend[1] * T, wend[2] * T * T, wend[3] * T * T * T};
        p.T = T;
        septic_solve(W, p.b);
        if (spin_score(mc, &p, a1, g, r, &what, buf, sizeof buf) <= 0.0) Tok = T;
        else { Tbad = T; snprintf(gov, govlen, "%s", what); }
    }
    if (Tbad == 0.0) snprintf(gov, govlen, "none");
    double W[4] = {wend[0], wend[1] * Tok, wend[2] * Tok * Tok, wend[3] * Tok * Tok * Tok};
    p.T = Tok;
    septic_solve(W, p.b);
    *out = p;
    return Tok;
}

/* The map's w .. w''' at a constant onset: G, G' = +-r, G'' = G''' = 0. */
static int handover_jet(const GmoveMachine *mc, double G, double r, double w[4])
{
    double Gd[4] = {G, r, 0.0, 0.0};
    return centrifuge_gmove_omega(mc->a1, mc->g, Gd, w);
}

/* The spin search samples coarsely: verify the chosen spin densely against the onset cap and the limits (no
 * margin), stretching it 1 % at a time (same end jet) until it passes. */
static int spin_verify(const GmoveMachine *mc, double r, GmovePiece *p)
{
    for (int tries = 0; tries < 60; tries++) {
        Worst w = {.e = -INFINITY};
        double eo = -INFINITY;
        for (int k = 0; k <= 4000; k++) {
            GmoveSample s;
            piece_sample(p, mc->a1, mc->g, p->T * k / 4000.0, &s);
            if (state_limits(mc, &s, 0, &w) < 0) return GMOVE_ENUMERIC;
            eo = fmax(eo, fmax(fabs(s.Gdot), fabs(s.Gfelt_dot)) / r - 1.0);
        }
        if (w.e <= 0.0 && eo <= 1e-9) return GMOVE_OK;
        /* the end jet in time units, then the same spin over 1 % more time */
        double wd[5];
        spin_wd(p, p->reverse ? 0.0 : p->T, wd);
        double T = p->T * 1.01, W[4] = {wd[0], wd[1] * T, wd[2] * T * T, wd[3] * T * T * T};
        if (p->reverse) { W[1] = -W[1]; W[3] = -W[3]; }
        p->T = T;
        septic_solve(W, p->b);
    }
    return GMOVE_EGLIMIT;
}

/* Spin between rest and Gtop at onset r with blend b. Returns the spin piece and, when the G ramp takes over (or
 * hands over) at constant onset, the hand-over G in *Gh (else 0: the spin reaches Gtop itself). */
typedef struct {
    GmovePiece spin;
    double Gh;          /* hand-over G, 0: direct spin to a steady Gtop */
    double total;       /* spin + ramp time */
    char gov[48];
} SpinPlan;

static int spin_search(const GmoveMachine *mc, double Gtop, double r, double b, int reverse, SpinPlan *best)
{
    double Ghmax = Gtop - 0.5 * r * b;
    best->total = INFINITY;
    SpinPlan c;
    /* candidates near 1 G first: G - 1 ~ w^4, so the useful hand-overs crowd there */
    double lo = 1.0, hi = Ghmax;
    for (int pass = 0; pass < 2 && hi > 1.0; pass++) {
        int K = pass == 0 ? 16 : 8;
        double bestGh = NAN;
        for (int k = 1; k <= K; k++) {
            double f = (double)k / K;
            double Gh = pass == 0 ? 1.0 + (hi - 1.0) * f * f : lo + (hi - lo) * f;
            if (!(Gh > 1.0) || Gh > Ghmax) continue;
            double w[4];
            if (handover_jet(mc, Gh, r, w) < 0) continue;
            double T = spin_plan(mc, w, r, reverse, &c.spin, c.gov, sizeof c.gov);
            if (isnan(T)) continue;
            c.Gh = Gh;
            c.total = T + (Gtop - Gh) / r + 0.5 * b;
            if (c.total < best->total) { *best = c; bestGh = Gh; }
        }
        if (isnan(bestGh)) break;
        /* refine between the neighbours of the best grid point */
        double f = sqrt((bestGh - 1.0) / (hi - 1.0));
        double f0 = fmax(0.0, f - 1.0 / 16), f1 = fmin(1.0, f + 1.0 / 16);
        lo = 1.0 + (hi - 1.0) * f0 * f0;
        hi = 1.0 + (hi - 1.0) * f1 * f1;
    }
    if (isfinite(best->total)) return spin_verify(mc, r, &best->spin);
    /* no hand-over at this onset: spin straight to the steady Gtop */
    double wtop = sqrt(mc->g * sqrt(Gtop * Gtop - 1.0) / mc->a1), w[4] = {wtop, 0.0, 0.0, 0.0};
    double T = spin_plan(mc, w, r, reverse, &c.spin, c.gov, sizeof c.gov);
    if (isnan(T)) return GMOVE_EGLIMIT;
    c.Gh = 0.0;
    c.total = T;
    *best = c;
    return spin_verify(mc, r, &best->spin);
}

/* ================================================================================================
 * Planning
 * ================================================================================================ */

static double blend_of(double rate, const GmoveParams *p)
{
    if (p && p->jerk > 0.0 && isfinite(p->jerk) && rate > 0.0) return 1.875 * rate / p->jerk;
    return CENTRIFUGE_BLEND_DEFAULT;
}

/* Append a piece: its start time and angle follow the previous piece's end. */
static void seg_append(GmoveSegment *seg, const GmovePiece *p)
{
    GmovePiece *d = &seg->piece[seg->npieces];
    *d = *p;
    d->t0 = seg->T;
    d->q1_0 = seg->end.q1;
    GmoveSample s;
    piece_sample(p, seg->a1, seg->g, p->T, &s);
    seg->end.q1 = d->q1_0 + s.q[0];
    seg->T += p->T;
    seg->npieces++;
}

static void seg_begin(GmoveSegment *seg, const GmoveMachine *mc, GmoveSegKind kind, const GmoveState *from)
{
    memset(seg, 0, sizeof *seg);
    seg->kind = kind;
    seg->a1 = mc->a1;
    seg->g = mc->g;
    seg->start = *from;
    seg->end = *from;
}

static void hold_piece(GmoveSegment *seg, double G, double seconds)
{
    CentrifugeGRamp r;
    centrifuge_gramp_hold(&r, G, seconds);
    GmovePiece p;
    ramp_piece(&p, &r, 0.0, seconds, seg->a1, seg->g);
    seg_append(seg, &p);
}

/* The pieces of a TO from seg->end.G to G1 at onset r with blend b (no check). */
static int build_to(const GmoveMachine *mc, GmoveSegment *seg, double G1, double r, double b, GmoveInfo *info)
{
    double G0 = seg->end.G, a1 = mc->a1, g = mc->g;
    GmovePiece p;
    CentrifugeGRamp ramp;
    if (G0 == G1) return GMOVE_OK;
    if (G0 > 1.0 && G1 > 1.0) {
        if (centrifuge_gramp_init(&ramp, G0, G1, r, b) < 0) return GMOVE_EINVAL;
        ramp_piece(&p, &ramp, 0.0, ramp.T, a1, g);
        seg_append(seg, &p);
        seg->end.G = G1;
        if (info) info->onset = fabs(ramp.rate); /* lower than r for a step shorter than r * blend */
        return GMOVE_OK;
    }
    int up = G0 == 1.0;
    double Gtop = up ? G1 : G0;
    SpinPlan sp;
    if (spin_search(mc, Gtop, r, b, !up, &sp) < 0) return GMOVE_EGLIMIT;
    if (info) {
        info->spin = up ? 1 : -1;
        info->spin_T = sp.spin.T;
        info->spin_G = sp.Gh > 0.0 ? sp.Gh : Gtop;
        snprintf(info->spin_limit, sizeof info->spin_limit, "%s", sp.gov);
    }
    if (up) {
        seg_append(seg, &sp.spin);
        if (sp.Gh > 0.0) {
            /* the back-end's ramp from a virtual start, entered at its constant-rate part (time b) */
            if (centrifuge_gramp_init(&ramp, sp.Gh - 0.5 * r * b, G1, r, b) < 0) return GMOVE_EINVAL;
            ramp_piece(&p, &ramp, b, ramp.T - b, a1, g);
            seg_append(seg, &p);
        }
    } else {
        if (sp.Gh > 0.0) {
            if (centrifuge_gramp_init(&ramp, G0, sp.Gh - 0.5 * r * b, r, b) < 0) return GMOVE_EINVAL;
            ramp_piece(&p, &ramp, 0.0, ramp.T - b, a1, g);
            seg_append(seg, &p);
        }
        seg_append(seg, &sp.spin);
    }
    seg->end.G = G1;
    return GMOVE_OK;
}

static int plan_to_rate(const GmoveMachine *mc, const GmoveState *from, double G1, double r, const GmoveParams *p,
                        GmoveSegment *seg, GmoveInfo *info, GmoveViolation *v)
{
    seg_begin(seg, mc, GMOVE_SEG_TO, from);
    double b = blend_of(r, p);
    if (info) { info->onset = r; info->blend = b; info->spin = 0; info->spin_T = 0.0; info->spin_G = 1.0; }
    int st = build_to(mc, seg, G1, r, b, info);
    if (st < 0) {
        if (v) { memset(v, 0, sizeof *v); v->status = st; snprintf(v->what, sizeof v->what, "spin-up limits"); }
        return st;
    }
    double hold = p && p->hold > 0.0 && isfinite(p->hold) ? p->hold : 0.0;
    if (hold > 0.0 || seg->npieces == 0) hold_piece(seg, G1, hold);
    GmoveViolation vv;
    st = gmove_check(mc, seg, v ? v : &vv);
    return st;
}

static const char *fmt_g(double G, char *buf, size_t n) { snprintf(buf, n, "%.4g G", G); return buf; }

static void describe_violation(char *msg, size_t n, const char *stmt, const GmoveViolation *v, int degrees)
{
    int unbounded_lo = isinf(v->lo), unbounded_hi = isinf(v->hi);
    DisplayUnit du = display_unit(v->unit, degrees);
    if (!unbounded_lo && !unbounded_hi)
        snprintf(msg, n, "%s cannot be flown: %s %.4g %s outside [%.4g, %.4g] %s at t = %.3f s", stmt, v->what,
                 du.k * v->value, du.unit, du.k * v->lo, du.k * v->hi, du.unit, v->t);
    else
        snprintf(msg, n, "%s cannot be flown: %s %.4g %s beyond its limit %.4g %s at t = %.3f s", stmt, v->what,
                 du.k * v->value, du.unit, du.k * (unbounded_hi ? v->lo : v->hi), du.unit, v->t);
}

int gmove_plan_to(const GmoveMachine *mc, const GmoveState *from, double G1, const GmoveParams *p,
                  GmoveSegment *seg, GmoveInfo *info)
{
    GmoveInfo dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    info->spin_G = 1.0;
    char stmt[96], b0[32], b1[32];
    snprintf(stmt, sizeof stmt, "GMOVE TO %s from %s", fmt_g(G1, b0, sizeof b0),
             from->G == 1.0 ? "rest" : fmt_g(from->G, b1, sizeof b1));
    if (!isfinite(G1) || !isfinite(from->G) || from->G < 1.0 || !isfinite(from->q1)) {
        snprintf(info->msg, sizeof info->msg, "GMOVE TO: bad target or start state (G %g)", G1);
        return GMOVE_EINVAL;
    }
    if (G1 < 1.0) { /* a centrifuge cannot command less than gravity: a G limit, not a syntax matter */
        snprintf(info->msg, sizeof info->msg, "GMOVE TO %.4g G cannot be flown: a centrifuge cannot go below 1 G",
                 G1);
        info->viol.status = GMOVE_EGLIMIT;
        return GMOVE_EGLIMIT;
    }
    double r = p ? p->onset : NAN;
    if (G1 != from->G && !(r > 0.0 && isfinite(r))) {
        snprintf(info->msg, sizeof info->msg, "%s needs WITH ONSET := rate (G/s)", stmt);
        return GMOVE_EINVAL;
    }
    if (G1 == from->G) r = 1.0; /* no ramp: the rate is unused */
    GmoveViolation v;
    int st = plan_to_rate(mc, from, G1, r, p, seg, info, &v);
    if (st == GMOVE_OK) {
        if (info->onset < r * (1.0 - 1e-12) && G1 != from->G)
            snprintf(info->msg, sizeof info->msg, "%s: the step is shorter than ONSET x blend (%.4g G/s x %.3g s): "
                     "peak onset lowered to %.4g G/s", stmt, r, info->blend, info->onset);
        else if (info->spin)
            snprintf(info->msg, sizeof info->msg, "%s: spin %s %.3g s (hand-over at %.4g G), governed by %s", stmt,
                     info->spin > 0 ? "up" : "down", info->spin_T, info->spin_G, info->spin_limit);
        return GMOVE_OK;
    }
    if (st != GMOVE_EGLIMIT && st != GMOVE_ETORQUE) return st;
    /* the largest feasible onset from this baseline, by bisection */
    GmoveSegment tmp;
    GmoveInfo ti;
    GmoveViolation tv;
    double lo = 0.0, hi = r;
    for (int it = 0; it < 14 && G1 != from->G; it++) {
        double mid = it == 0 ? r * 1e-3 : 0.5 * (lo + hi);
        if (plan_to_rate(mc, from, G1, mid, p, &tmp, &ti, &tv) == GMOVE_OK) lo = mid;
        else {
            hi = mid;
            if (it == 0) break; /* not even at a thousandth of the rate */
        }
    }
    info->viol = v;
    info->onset_max = lo;
    describe_violation(info->msg, sizeof info->msg, stmt, &v, mc->degrees);
    size_t len = strlen(info->msg);
    if (lo > 0.0)
        snprintf(info->msg + len, sizeof info->msg - len, " at ONSET %.4g G/s; the largest feasible onset rate "
                 "from this baseline is %.4g G/s", r, lo);
    else if (G1 != from->G)
        snprintf(info->msg + len, sizeof info->msg - len, "; not achievable at any onset rate");
    /* leave seg as planned at the requested rate (for plots of the refused profile) */
    plan_to_rate(mc, from, G1, r, p, seg, NULL, NULL);
    return v.status ? v.status : st;
}

int gmove_plan_hold(const GmoveMachine *mc, const GmoveState *from, double seconds, GmoveSegment *seg,
                    GmoveInfo *info)
{
    GmoveInfo dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    info->spin_G = 1.0;
    if (!(seconds >= 0.0) || !isfinite(seconds) || !(from->G >= 1.0) || !isfinite(from->G)) {
        snprintf(info->msg, sizeof info->msg, "GMOVE HOLD needs a duration >= 0 (got %g s)", seconds);
        return GMOVE_EINVAL;
    }
    seg_begin(seg, mc, GMOVE_SEG_HOLD, from);
    hold_piece(seg, from->G, seconds);
    int st = gmove_check(mc, seg, &info->viol);
    if (st < 0) describe_violation(info->msg, sizeof info->msg, "GMOVE HOLD", &info->viol, mc->degrees);
    return st;
}

/* ---- PROFILE tables ---- */

void gmove_table_init(GmoveTable *tab) { memset(tab, 0, sizeof *tab); }

void gmove_table_free(GmoveTable *tab)
{
    free(tab->t); free(tab->c); free(tab->h); free(tab->tb); free(tab->qb);
    memset(tab, 0, sizeof *tab);
}

static int table_reserve(GmoveTable *tb, int n)
{
    if (n <= tb->cap) return 0;
    double *t = realloc(tb->t, sizeof(double) * n);
    if (t) tb->t = t;
    double *c = realloc(tb->c, sizeof(double) * 4 * n);
    if (c) tb->c = c;
    double *h = realloc(tb->h, sizeof(double) * n);
    if (h) tb->h = h;
    if (!t || !c || !h) return GMOVE_ENOMEM;
    tb->cap = n;
    return 0;
}

/* Cubic coefficients of the natural spline through (t, G) by GSL (every status checked). */
static int table_cspline(GmoveTable *tb, const double *G, char *err, size_t errlen)
{
    int n = tb->n, st = GSL_SUCCESS;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_interp *ip = gsl_interp_alloc(gsl_interp_cspline, (size_t)n);
    if (!ip) { gsl_set_error_handler(old); return GMOVE_ENOMEM; }
    st = gsl_interp_init(ip, tb->t, G, (size_t)n);
    double d2prev = 0.0;
    for (int k = 0; k < n - 1 && st == GSL_SUCCESS; k++) {
        double d1, d2a, d2b;
        st = gsl_interp_eval_deriv_e(ip, tb->t, G, tb->t[k], NULL, &d1);
        if (st == GSL_SUCCESS) st = gsl_interp_eval_deriv2_e(ip, tb->t, G, tb->t[k], NULL, &d2a);
        if (st == GSL_SUCCESS) st = gsl_interp_eval_deriv2_e(ip, tb->t, G, tb->t[k + 1], NULL, &d2b);
        if (st != GSL_SUCCESS) break;
        if (k == 0) d2a = 0.0;          /* natural end: G'' = 0 (exactly, so the end blend adds nothing net) */
        else d2a = d2prev;              /* G'' continuous: the same value both sides of the knot */
        if (k == n - 2) d2b = 0.0;
        double hk = tb->t[k + 1] - tb->t[k];
        double *c = &tb->c[4 * k];
        c[0] = G[k];
        c[2] = 0.5 * d2a;
        c[3] = (d2b - d2a) / (6.0 * hk);
        /* slope from the interval's end values, so the cubic ends exactly at G[k+1] */
        c[1] = (G[k + 1] - G[k]) / hk - hk * (2.0 * d2a + d2b) / 6.0;
        (void)d1;
        d2prev = d2b;
    }
    gsl_interp_free(ip);
    gsl_set_error_handler(old);
    if (st != GSL_SUCCESS) {
        snprintf(err, errlen, "GMOVE PROFILE: GSL cubic spline failed: %s", gsl_strerror(st));
        return GMOVE_ENUMERIC;
    }
    return GMOVE_OK;
}

/* Blend half-widths: a knot's G' change D0 over b = 1.875 |D0| / JERK (default CENTRIFUGE_BLEND_DEFAULT), never
 * wider than the neighbouring intervals. Returns the number of knots narrowed below the JERK setting. */
static int table_blends(GmoveTable *tb, double jerk)
{
    int n = tb->n, narrowed = 0;
    for (int i = 0; i < n; i++) {
        double PL[5], PR[5];
        tab_poly(tb, i - 1, tb->t[i], PL);
        tab_poly(tb, i, tb->t[i], PR);
        double dm = fabs(PR[1] - PL[1]);
        double b = (jerk > 0.0 && isfinite(jerk) && dm > 0.0) ? 1.875 * dm / jerk : CENTRIFUGE_BLEND_DEFAULT;
        double want = b;
        if (i > 0) b = fmin(b, tb->t[i] - tb->t[i - 1]);
        if (i < n - 1) b = fmin(b, tb->t[i + 1] - tb->t[i]);
        if (jerk > 0.0 && b < want * (1.0 - 1e-12) && dm > 0.0) narrowed++;
        tb->h[i] = 0.5 * b;
    }
    return narrowed;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The planetary-angle cache: breakpoints at every window edge and every 0.1 s, angles by Gauss-Legendre. */
static int table_angles(GmoveTable *tb, double T, double a1, double g)
{
    int ngrid = (int)ceil(T / 0.1);
    int cap = 2 * tb->n + ngrid + 2;
    if (cap > tb->bcap) {
        double *x = realloc(tb->tb, sizeof(double) * cap);
        if (x) tb->tb = x;
        double *y = realloc(tb->qb, sizeof(double) * cap);
        if (y) tb->qb = y;
        if (!x || !y) return GMOVE_ENOMEM;
        tb->bcap = cap;
    }
    int m = 0;
    for (int k = 0; k <= ngrid; k++) tb->tb[m++] = fmin(T, 0.1 * k);
    for (int i = 0; i < tb->n; i++) {
        double e0 = tb->t[i] - tb->h[i] - tb->tstart, e1 = tb->t[i] + tb->h[i] - tb->tstart;
        if (e0 > 0.0 && e0 < T) tb->tb[m++] = e0;
        if (e1 > 0.0 && e1 < T) tb->tb[m++] = e1;
    }
    qsort(tb->tb, (size_t)m, sizeof(double), dbl_cmp);
    int u = 0;
    for (int k = 0; k < m; k++)
        if (u == 0 || tb->tb[k] > tb->tb[u - 1]) tb->tb[u++] = tb->tb[k];
    tb->nb = u;
    tb->qb[0] = 0.0;
    for (int k = 1; k < u; k++) tb->qb[k] = tb->qb[k - 1] + tab_gl8(tb, a1, g, tb->tb[k - 1], tb->tb[k]);
    return GMOVE_OK;
}

int gmove_plan_profile(const GmoveMachine *mc, const GmoveState *from, const double *t, const double *G, int n,
                       const GmoveParams *p, GmoveTable *tab, GmoveSegment *seg, GmoveInfo *info)
{
    GmoveInfo dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    info->spin_G = 1.0;
    GmoveInterp ip = p ? p->interp : GMOVE_INTERP_LINEAR;
    const char *stmt = ip == GMOVE_INTERP_CSPLINE ? "GMOVE PROFILE (CSPLINE)" : "GMOVE PROFILE (LINEAR)";
    int nmin = ip == GMOVE_INTERP_CSPLINE ? 3 : 2;
    if (n < nmin) {
        snprintf(info->msg, sizeof info->msg, "%s needs at least %d points (got %d)", stmt, nmin, n);
        return GMOVE_EINVAL;
    }
    for (int i = 0; i < n; i++) {
        if (!isfinite(t[i]) || !isfinite(G[i]) || (i > 0 && !(t[i] > t[i - 1]))) {
            snprintf(info->msg, sizeof info->msg, "%s: point %d: times must be finite and strictly increasing",
                     stmt, i + 1);
            return GMOVE_EINVAL;
        }
        if (!(G[i] > 1.0)) {
            snprintf(info->msg, sizeof info->msg, "%s: point %d: G = %g; a table must stay above 1 G (spin up "
                     "first with GMOVE TO)", stmt, i + 1, G[i]);
            return GMOVE_EINVAL;
        }
    }
    int st = table_reserve(tab, n);
    if (st < 0) return st;
    tab->n = n;
    tab->interp = ip;
    memcpy(tab->t, t, sizeof(double) * n);
    if (ip == GMOVE_INTERP_CSPLINE) {
        st = table_cspline(tab, G, info->msg, sizeof info->msg);
        if (st < 0) return st;
    } else {
        for (int k = 0; k < n - 1; k++) {
            double *c = &tab->c[4 * k];
            c[0] = G[k];
            c[1] = (G[k + 1] - G[k]) / (t[k + 1] - t[k]);
            c[2] = c[3] = 0.0;
        }
    }
    double jerk = p ? p->jerk : 0.0;
    info->narrowed = table_blends(tab, jerk);
    tab->tstart = t[0] - tab->h[0];
    double T = t[n - 1] + tab->h[n - 1] - tab->tstart;
    if ((st = table_angles(tab, T, mc->a1, mc->g)) < 0) return st;

    /* the lead-in to the table's first G (spinning up when at rest) */
    GmoveState s0 = *from;
    seg_begin(seg, mc, GMOVE_SEG_PROFILE, from);
    if (from->G != G[0]) {
        double r = p ? p->onset : NAN;
        if (!(r > 0.0 && isfinite(r))) {
            snprintf(info->msg, sizeof info->msg, "%s starts at %.4g G but the device is at %.4g G: give WITH "
                     "ONSET := rate for the lead-in", stmt, G[0], from->G);
            return GMOVE_EINVAL;
        }
        info->onset = r;
        info->blend = blend_of(r, p);
        if ((st = build_to(mc, seg, G[0], r, info->blend, info)) < 0) {
            snprintf(info->msg, sizeof info->msg, "%s: the lead-in to %.4g G cannot be flown", stmt, G[0]);
            return st;
        }
    }
    (void)s0;
    GmovePiece pc;
    memset(&pc, 0, sizeof pc);
    pc.kind = GMOVE_PIECE_TABLE;
    pc.T = T;
    pc.tab = tab;
    seg_append(seg, &pc);
    seg->end.G = G[n - 1];
    st = gmove_check(mc, seg, &info->viol);
    if (st < 0) {
        describe_violation(info->msg, sizeof info->msg, stmt, &info->viol, mc->degrees);
        return st;
    }
    if (info->narrowed)
        snprintf(info->msg, sizeof info->msg, "%s: %d knot blend(s) narrowed to fit the table: the G-jerk exceeds "
                 "JERK there", stmt, info->narrowed);
    return GMOVE_OK;
}

/* ---- machine ---- */

GmoveState gmove_rest(double q1) { return (GmoveState){1.0, q1}; }

int gmove_machine_init(GmoveMachine *mc, Model *m, char *err, size_t errlen)
{
    memset(mc, 0, sizeof *mc);
    if (!m || m->dof != 3 || model_gprofile(m, &mc->a1, &mc->g) != MODEL_OK) {
        if (err) snprintf(err, errlen, "GMOVE needs a centrifuge device");
        return GMOVE_ENOMODEL;
    }
    mc->model = m;
    for (int i = 0; i < 3; i++) mc->lim[i] = m->desc.joint[i].limits;
    mc->Gmin = 0.0; mc->Gmax = INFINITY;
    mc->Gdot_min = -INFINITY; mc->Gdot_max = INFINITY;
    for (int i = 0; i < m->desc.noutput_limits && i < MODEL_MAX_OUTPUTS; i++) {
        const ModelOutputLimit *L = &m->desc.output_limit[i];
        if (strcasecmp(L->name, "G") == 0) { mc->Gmin = L->min; mc->Gmax = L->max; }
        if (strcasecmp(L->name, "Gdot") == 0) { mc->Gdot_min = L->min; mc->Gdot_max = L->max; }
    }
    mc->check_dt = 0.005;
    return GMOVE_OK;
}
