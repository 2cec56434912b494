/* test_gmove.c — the GMOVE profile planner on the test centrifuge (centrifuge_desc.h): spin-up from rest, ramps,
 * holds, PROFILE tables, continuity across every piece and segment joint, the commanded G against the back-end's
 * own outputs, steady-state closed forms, limit rejection with the achievable onset rate, energy balance and the
 * planetary angle over a 10-minute run. */
#include <gsl/gsl_interp.h>
#include <gsl/gsl_spline.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "centrifuge.h"
#include "centrifuge_desc.h"
#include "motion/gmove.h"
#include "model.h"
#include "utest.h"

static ModelDesc desc;
static Model mdl;
static GmoveMachine mc;

static int setup(void)
{
    char err[256] = "";
    centrifuge_desc_fill(&desc);
    if (model_open(&mdl, &desc, err, sizeof err) < 0) { printf("# model_open: %s\n", err); return -1; }
    if (gmove_machine_init(&mc, &mdl, err, sizeof err) < 0) { printf("# machine: %s\n", err); return -1; }
    return 0;
}

/* Output index by name (the back-end's order). */
static int out_index(const char *name)
{
    for (int i = 0; i < model_output_count(&mdl); i++)
        if (strcmp(model_output_name(&mdl, i), name) == 0) return i;
    return -1;
}

/* Largest jump of q, q', q'' across local time tb of a segment (sampled at tb -+ eps), each scaled by what the
 * next derivative allows over 2 eps, so an honest joint gives <= 1 and a step gives >> 1. */
static double joint_jump(const GmoveSegment *s, double tb)
{
    const double eps = 1e-7;
    GmoveSample a, b;
    gmove_sample(s, tb - eps, &a);
    gmove_sample(s, tb + eps, &b);
    double worst = 0.0;
    for (int i = 0; i < 3; i++) {
        double dq = fabs(b.q[i] - a.q[i]), dqd = fabs(b.qd[i] - a.qd[i]), dqdd = fabs(b.qdd[i] - a.qdd[i]);
        double sq = 2 * eps * fmax(fabs(a.qd[i]), fabs(b.qd[i])) * 1.01 + 1e-12;
        double sqd = 2 * eps * fmax(fabs(a.qdd[i]), fabs(b.qdd[i])) * 1.01 + 1e-12;
        double sqdd = 2 * eps * fmax(fabs(a.qddd[i]), fabs(b.qddd[i])) * 1.01 + 1e-9;
        worst = fmax(worst, fmax(dq / sq, fmax(dqd / sqd, dqdd / sqdd)));
    }
    return worst;
}

/* Largest jump across any piece joint of a segment. */
static double seg_joint_jumps(const GmoveSegment *s)
{
    double w = 0.0;
    for (int i = 1; i < s->npieces; i++) w = fmax(w, joint_jump(s, s->piece[i].t0));
    return w;
}

/* An independent limit scan every dt against the ModelDesc (not the planner's GmoveMachine): positions, speeds,
 * accelerations, torques by model_inverse_dynamics, felt G by model_outputs. Returns the number of bad samples. */
static long scan_limits(const GmoveSegment *s, double dt, double *maxGdot)
{
    long bad = 0;
    int iG = out_index("G");
    double out[MODEL_MAX_OUTPUTS], tau[3];
    for (double t = 0.0; t <= s->T + 1e-12; t += dt) {
        GmoveSample p;
        gmove_sample(s, t, &p);
        for (int i = 0; i < 3; i++) {
            const ModelAxisLimits *L = &desc.joint[i].limits;
            const double k = 1 + 1e-12; /* rounding: 9 G held reads 9.000000000000002 */
            if (p.q[i] < L->min * k || p.q[i] > L->max * k || fabs(p.qd[i]) > L->vmax * k ||
                fabs(p.qdd[i]) > L->amax * k) bad++;
        }
        model_inverse_dynamics(&mdl, p.q, p.qd, p.qdd, tau);
        for (int i = 0; i < 3; i++)
            if (fabs(tau[i]) > desc.joint[i].limits.effort) bad++;
        model_outputs(&mdl, p.q, p.qd, p.qdd, out);
        if (out[iG] > desc.output_limit[0].max * (1 + 1e-12)) bad++;
        if (maxGdot) *maxGdot = fmax(*maxGdot, fabs(p.Gdot));
    }
    return bad;
}

static double omega_ss(double G) { return sqrt(mc.g * sqrt(G * G - 1.0) / mc.a1); }

/* ---- spin-up from rest ---- */

UTEST(spinup_gor_from_rest)
{
    GmoveState rest = gmove_rest(0.0);
    GmoveSegment s;
    GmoveInfo info;
    GmoveParams p = {.onset = 0.1, .hold = 10.0};
    int st = gmove_plan_to(&mc, &rest, 1.4, &p, &s, &info);
    CHECK(st == GMOVE_OK);
    if (st) { printf("#   %s\n", info.msg); return; }
    printf("#   %s; total %.3f s\n", info.msg, s.T);
    CHECK(info.spin == 1);
    CHECK(s.npieces == 3 && s.piece[0].kind == GMOVE_PIECE_SPIN && s.piece[1].kind == GMOVE_PIECE_RAMP);
    CHECK(info.spin_G > 1.0 && info.spin_G < 1.4);
    CHECK(info.spin_limit[0] != '\0');
    /* starts exactly at rest, ends on the steady state */
    GmoveSample a, e;
    gmove_sample(&s, 0.0, &a);
    for (int i = 0; i < 3; i++) { CHECK(a.q[i] == 0.0 || fabs(a.q[i]) < 1e-15); CHECK(fabs(a.qd[i]) < 1e-15); CHECK(fabs(a.qdd[i]) < 1e-15); }
    gmove_sample(&s, s.T, &e);
    CHECK_NEAR(e.G, 1.4, 1e-12);
    CHECK_REL(e.qd[0], omega_ss(1.4), 1e-12);
    CHECK_NEAR(e.q[1], acos(1.0 / 1.4), 1e-12);
    CHECK_NEAR(e.q[2], 0.0, 1e-12);
    CHECK_NEAR(e.q[0], s.end.q1, 1e-12);
    /* continuity of q, q', q'' of all three axes at the hand-over and the hold */
    double jump = seg_joint_jumps(&s);
    printf("#   worst joint jump ratio %.3g (1 = what the next derivative allows)\n", jump);
    CHECK(jump < 1.0);
    /* never faster than ONSET (commanded and felt), and every limit of the description respected */
    double gmax = 0.0, fmaxd = 0.0;
    for (double t = 0.0; t <= s.T; t += 1e-3) {
        GmoveSample q;
        gmove_sample(&s, t, &q);
        gmax = fmax(gmax, fabs(q.Gdot));
        if (t < s.piece[1].t0) fmaxd = fmax(fmaxd, fabs(q.Gfelt_dot));
    }
    CHECK(gmax <= 0.1 * (1 + 1e-9));
    CHECK(fmaxd <= 0.1 * (1 + 1e-6));
    printf("#   peak |G'| %.9g, peak felt rate during the spin %.9g G/s\n", gmax, fmaxd);
    CHECK(scan_limits(&s, 1e-3, NULL) == 0);
    /* after the hand-over the ramp runs at exactly the requested onset until its blend-out */
    GmoveSample h;
    gmove_sample(&s, s.piece[1].t0 + 0.5, &h);
    CHECK_NEAR(h.Gdot, 0.1, 1e-12);
    CHECK_NEAR(h.G, info.spin_G + 0.05, 1e-12);
}

/* A fast spin-up where an axis limit, not the onset, governs; and the spin-down mirror. */
UTEST(spinup_axis_governed_and_spindown)
{
    GmoveState rest = gmove_rest(1.0);
    GmoveSegment s, d;
    GmoveInfo info, dinfo;
    GmoveParams p = {.onset = 3.0, .hold = 2.0};
    CHECK(gmove_plan_to(&mc, &rest, 9.0, &p, &s, &info) == GMOVE_OK);
    printf("#   %s\n", info.msg);
    CHECK(strcmp(info.spin_limit, "onset") != 0); /* at 3 G/s from rest the axes govern the spin */
    CHECK(seg_joint_jumps(&s) < 1.0);
    CHECK(scan_limits(&s, 1e-3, NULL) == 0);
    GmoveParams pd = {.onset = 1.0};
    CHECK(gmove_plan_to(&mc, &s.end, 1.0, &pd, &d, &dinfo) == GMOVE_OK);
    printf("#   %s\n", dinfo.msg);
    CHECK(dinfo.spin == -1);
    CHECK(d.end.G == 1.0);
    GmoveSample e;
    gmove_sample(&d, d.T, &e);
    for (int i = 0; i < 3; i++) { CHECK(fabs(e.qd[i]) < 1e-12); CHECK(fabs(e.qdd[i]) < 1e-12); CHECK(fabs(e.q[i + (i == 0)] ) < 10.0); }
    CHECK_NEAR(e.q[1], 0.0, 1e-12);
    CHECK_NEAR(e.q[2], 0.0, 1e-12);
    CHECK_NEAR(e.q[0], d.end.q1, 1e-12);
    CHECK_NEAR(d.start.q1, s.end.q1, 0.0);
    CHECK(seg_joint_jumps(&d) < 1.0);
    CHECK(scan_limits(&d, 1e-3, NULL) == 0);
    /* the two segments meet: s's end sample equals d's start sample */
    GmoveSample a, b;
    gmove_sample(&s, s.T, &a);
    gmove_sample(&d, 0.0, &b);
    for (int i = 0; i < 3; i++) { CHECK_NEAR(a.q[i], b.q[i], 1e-12); CHECK_NEAR(a.qd[i], b.qd[i], 1e-12); CHECK_NEAR(a.qdd[i], b.qdd[i], 1e-12); }
}

/* ---- the commanded G, followed; |Gx|, |Gy| from the back-end's outputs ---- */

UTEST(whole_profile_outputs)
{
    /* rest -> 1.4 G (0.1 G/s) hold 5 s -> 3 G (1 G/s) hold 3 s -> 2 G (2 G/s) -> rest (1 G/s) */
    GmoveState st0 = gmove_rest(0.3);
    GmoveSegment seg[4];
    GmoveParams ps[4] = {{.onset = 0.1, .hold = 5}, {.onset = 1, .hold = 3}, {.onset = 2}, {.onset = 1}};
    double Gt[4] = {1.4, 3.0, 2.0, 1.0};
    GmoveState cur = st0;
    for (int k = 0; k < 4; k++) {
        GmoveInfo info;
        int st = gmove_plan_to(&mc, &cur, Gt[k], &ps[k], &seg[k], &info);
        CHECK(st == GMOVE_OK);
        if (st) { printf("#   %s\n", info.msg); return; }
        cur = seg[k].end;
    }
    int iGx = out_index("Gx"), iGy = out_index("Gy"), iGz = out_index("Gz"), iG = out_index("G");
    int iw = out_index("omega");
    double gxy = 0.0, gcmd = 0.0, gres = 0.0, seamax = 0.0;
    double out[MODEL_MAX_OUTPUTS];
    for (int k = 0; k < 4; k++) {
        for (double t = 0.0; t <= seg[k].T; t += 1e-3) {
            GmoveSample p;
            gmove_sample(&seg[k], t, &p);
            model_outputs(&mdl, p.q, p.qd, p.qdd, out);
            gxy = fmax(gxy, fmax(fabs(out[iGx]), fabs(out[iGy])));
            /* the back-end's felt G is sqrt(Gcmd^2 + tangential^2): recover the commanded resultant from it */
            double tang = mc.a1 * p.qdd[0] / mc.g;
            gcmd = fmax(gcmd, fabs(sqrt(out[iG] * out[iG] - tang * tang) - p.G));
            gres = fmax(gres, fabs(out[iGz] - p.Gfelt));
            /* and the resultant from the planetary rate the back-end reports */
            double u = mc.a1 * out[iw] * out[iw] / mc.g;
            gres = fmax(gres, fabs(sqrt(1 + u * u) - p.G));
        }
        if (k > 0) seamax = fmax(seamax, 0.0);
        seamax = fmax(seamax, seg_joint_jumps(&seg[k]));
    }
    printf("#   max |Gx|,|Gy| %.3g; commanded vs back-end %.3g; felt Gz vs planner %.3g; joint jumps %.3g\n", gxy,
           gcmd, gres, seamax);
    CHECK(gxy < 1e-6);
    CHECK(gcmd < 1e-9);
    CHECK(gres < 1e-9);
    CHECK(seamax < 1.0);
    /* consecutive segments meet exactly */
    for (int k = 1; k < 4; k++) {
        GmoveSample a, b;
        gmove_sample(&seg[k - 1], seg[k - 1].T, &a);
        gmove_sample(&seg[k], 0.0, &b);
        for (int i = 0; i < 3; i++) { CHECK_NEAR(a.q[i], b.q[i], 1e-12); CHECK_NEAR(a.qd[i], b.qd[i], 1e-12); CHECK_NEAR(a.qdd[i], b.qdd[i], 1e-12); }
    }
    /* during the 1.4 -> 3 G ramp the command is the back-end's ramp: G0 + r (t - b/2) in the middle */
    GmoveSample m;
    gmove_sample(&seg[1], 1.0, &m);
    CHECK_NEAR(m.G, 1.4 + 1.0 * (1.0 - 0.25), 1e-12);
    CHECK_NEAR(m.Gdot, 1.0, 1e-12);
}

/* ---- steady state against closed forms ---- */

UTEST(steady_state_closed_forms)
{
    double Gs[5] = {1.2, 1.4, 2.0, 7.0, 9.0};
    for (int k = 0; k < 5; k++) {
        GmoveState s0 = {Gs[k], 1.0};
        GmoveSegment s;
        GmoveInfo info;
        CHECK(gmove_plan_hold(&mc, &s0, 20.0, &s, &info) == GMOVE_OK);
        GmoveSample p;
        gmove_sample(&s, 7.3, &p);
        double w = sqrt(mc.g * sqrt(Gs[k] * Gs[k] - 1.0) / mc.a1);
        CHECK_REL(p.qd[0], w, 1e-14);
        CHECK_NEAR(p.q[1], acos(1.0 / Gs[k]), 1e-13);
        CHECK_NEAR(p.q[2], 0.0, 0.0);
        CHECK_NEAR(p.q[0], 1.0 + w * 7.3, 1e-12);
        CHECK_NEAR(p.Gfelt, Gs[k], 1e-13);
        for (int i = 0; i < 3; i++) CHECK(p.qdd[i] == 0.0);
    }
    /* the R = 8 m table of background/language.md 3.2 (g = 9.80665 there): 2 G -> 1.457 rad/s, swing-out 60.0 deg */
    CHECK_NEAR(sqrt(9.80665 * sqrt(3.0) / 8.0), 1.457, 5e-4);
    /* GMOVE HOLD at rest keeps the arm still */
    GmoveState rest = gmove_rest(2.0);
    GmoveSegment s;
    CHECK(gmove_plan_hold(&mc, &rest, 5.0, &s, NULL) == GMOVE_OK);
    GmoveSample p;
    gmove_sample(&s, 3.0, &p);
    CHECK(p.q[0] == 2.0 && p.qd[0] == 0.0 && p.q[1] == 0.0 && p.q[2] == 0.0);
}

/* ---- rapid onset, and what cannot be flown ---- */

UTEST(rapid_onset_2_to_7)
{
    GmoveState base = {2.0, 0.0};
    GmoveSegment s;
    GmoveInfo info;
    /* 5.9 G/s with the default 0.5 s blend, 15 s at 7 G */
    GmoveParams p = {.onset = 5.9, .hold = 15.0};
    int st = gmove_plan_to(&mc, &base, 7.0, &p, &s, &info);
    CHECK(st == GMOVE_OK);
    if (st) { printf("#   %s\n", info.msg); return; }
    CHECK_NEAR(info.blend, 0.5, 1e-15);
    CHECK_NEAR(s.T, 5.0 / 5.9 + 0.5 + 15.0, 1e-12);
    double gd = 0.0;
    CHECK(scan_limits(&s, 1e-3, &gd) == 0);
    CHECK_NEAR(gd, 5.9, 1e-12);
    GmoveSample h;
    gmove_sample(&s, 5.0 / 5.9 + 0.5 + 7.5, &h);
    CHECK_NEAR(h.G, 7.0, 1e-14);
    CHECK(seg_joint_jumps(&s) < 1.0);
    /* 6 G/s with JERK 11.25 G/s^2 (a 1 s blend): the 5 G step is shorter than rate x blend, so the back-end's ramp
     * lowers the peak onset to 5 G/s (and says so) */
    GmoveParams pj = {.onset = 6.0, .hold = 15.0, .jerk = 11.25};
    CHECK(gmove_plan_to(&mc, &base, 7.0, &pj, &s, &info) == GMOVE_OK);
    printf("#   %s\n", info.msg);
    CHECK_NEAR(info.blend, 1.0, 1e-15);
    CHECK_NEAR(info.onset, 5.0, 1e-12);
    CHECK_NEAR(s.T, 2.0 + 15.0, 1e-12);
    CHECK(scan_limits(&s, 1e-3, NULL) == 0);
    /* With the default 0.5 s blend the *felt* onset rate overshoots 6 G/s just after the start (the tangential
     * part is switched on quickly): the planner refuses and says which rate would fly. */
    GmoveParams p2 = {.onset = 6.0, .hold = 15.0};
    st = gmove_plan_to(&mc, &base, 7.0, &p2, &s, &info);
    printf("#   %s\n", info.msg);
    CHECK(st == GMOVE_EGLIMIT);
    CHECK(strcmp(info.viol.what, "felt onset rate") == 0);
    CHECK(info.onset_max > 5.0 && info.onset_max < 6.0);
}

UTEST(infeasible_onset_reported)
{
    GmoveState base = {2.0, 0.0};
    GmoveSegment s;
    GmoveInfo info;
    GmoveParams p = {.onset = 20.0, .hold = 15.0};
    int st = gmove_plan_to(&mc, &base, 7.0, &p, &s, &info);
    printf("#   %s\n", info.msg);
    CHECK(st == GMOVE_EGLIMIT);
    CHECK(strstr(info.msg, "largest feasible onset rate") != NULL);
    CHECK(info.onset_max > 1.0 && info.onset_max < 6.0);
    /* the bisection is honest: the reported rate flies, 1 % more does not */
    GmoveParams ok = p, over = p;
    ok.onset = info.onset_max;
    over.onset = info.onset_max * 1.01;
    CHECK(gmove_plan_to(&mc, &base, 7.0, &ok, &s, NULL) == GMOVE_OK);
    CHECK(gmove_plan_to(&mc, &base, 7.0, &over, &s, NULL) == GMOVE_EGLIMIT);
    /* above the G limit: not achievable at any rate */
    GmoveParams q = {.onset = 1.0};
    st = gmove_plan_to(&mc, &base, 9.5, &q, &s, &info);
    printf("#   %s\n", info.msg);
    CHECK(st == GMOVE_EGLIMIT);
    CHECK(info.onset_max == 0.0);
    CHECK(strstr(info.msg, "any onset rate") != NULL);
}

UTEST(torque_limit_reported)
{
    static ModelDesc d2;
    static Model m2;
    char err[256];
    centrifuge_desc_fill(&d2);
    d2.joint[0].limits.effort = 3.0e5; /* a weak planetary drive */
    CHECK(model_open(&m2, &d2, err, sizeof err) == 0);
    GmoveMachine mc2;
    CHECK(gmove_machine_init(&mc2, &m2, err, sizeof err) == 0);
    GmoveState base = {2.0, 0.0};
    GmoveSegment s;
    GmoveInfo info;
    GmoveParams p = {.onset = 3.0};
    int st = gmove_plan_to(&mc2, &base, 9.0, &p, &s, &info);
    printf("#   %s\n", info.msg);
    CHECK(st == GMOVE_ETORQUE);
    CHECK(strcmp(info.viol.what, "planetary torque") == 0);
    CHECK(info.onset_max > 0.0 && info.onset_max < 3.0);
    model_close(&m2);
}

UTEST(bad_requests)
{
    GmoveState base = {2.0, 0.0};
    GmoveSegment s;
    GmoveInfo info;
    GmoveParams none = {0};
    CHECK(gmove_plan_to(&mc, &base, 0.5, &(GmoveParams){.onset = 1}, &s, &info) == GMOVE_EGLIMIT);
    CHECK(gmove_plan_to(&mc, &base, NAN, &(GmoveParams){.onset = 1}, &s, &info) == GMOVE_EINVAL);
    CHECK(gmove_plan_to(&mc, &base, 3.0, &none, &s, &info) == GMOVE_EINVAL);
    CHECK(strstr(info.msg, "ONSET") != NULL);
    CHECK(gmove_plan_to(&mc, &base, 2.0, &none, &s, &info) == GMOVE_OK); /* already there: no onset needed */
    CHECK(gmove_plan_hold(&mc, &base, -1.0, &s, &info) == GMOVE_EINVAL);
    GmoveTable tab;
    gmove_table_init(&tab);
    double t[3] = {0, 1, 1}, G[3] = {2, 3, 4};
    GmoveParams pl = {.interp = GMOVE_INTERP_CSPLINE};
    CHECK(gmove_plan_profile(&mc, &base, t, G, 3, &pl, &tab, &s, &info) == GMOVE_EINVAL);
    double t2[3] = {0, 1, 2}, G2[3] = {2, 0.9, 2};
    CHECK(gmove_plan_profile(&mc, &base, t2, G2, 3, &pl, &tab, &s, &info) == GMOVE_EINVAL);
    CHECK(gmove_plan_profile(&mc, &base, t2, G, 2, &pl, &tab, &s, &info) == GMOVE_EINVAL); /* CSPLINE needs 3 */
    double G3[3] = {3, 4, 3};
    CHECK(gmove_plan_profile(&mc, &base, t2, G3, 3, &none, &tab, &s, &info) == GMOVE_EINVAL); /* lead-in, no ONSET */
    gmove_table_free(&tab);
    /* not a centrifuge */
    static ModelDesc dc;
    static Model mch;
    char err[256];
    centrifuge_desc_fill(&dc);
    snprintf(dc.backend, sizeof dc.backend, "chain");
    CHECK(model_open(&mch, &dc, err, sizeof err) == 0);
    GmoveMachine m2;
    CHECK(gmove_machine_init(&m2, &mch, err, sizeof err) == GMOVE_ENOMODEL);
    model_close(&mch);
}

/* ---- PROFILE tables ---- */

/* SACM-like table from a 4.5 G baseline. */
static const double sacm_t[6] = {0, 2, 7, 9, 14, 16};
static const double sacm_G[6] = {4.5, 7, 7, 4.5, 4.5, 7};

UTEST(profile_linear)
{
    GmoveState base = {4.5, 0.0};
    GmoveTable tab;
    gmove_table_init(&tab);
    GmoveSegment s;
    GmoveInfo info;
    GmoveParams p = {.interp = GMOVE_INTERP_LINEAR};
    int st = gmove_plan_profile(&mc, &base, sacm_t, sacm_G, 6, &p, &tab, &s, &info);
    CHECK(st == GMOVE_OK);
    if (st) { printf("#   %s\n", info.msg); gmove_table_free(&tab); return; }
    /* 0.5 s blends centred on the knots: the segment starts 0.25 s before table time 0 */
    CHECK_NEAR(s.T, 16.5, 1e-12);
    /* outside the blend windows G is exactly the polyline; at a knot it is off by dm b 5/64 */
    double worst = 0.0;
    for (double tt = 0.0; tt <= 16.0; tt += 1e-3) {
        int near = 0;
        for (int i = 0; i < 6; i++) if (fabs(tt - sacm_t[i]) < 0.25 + 1e-9) near = 1;
        if (near) continue;
        int k = 0;
        while (k < 4 && tt > sacm_t[k + 1]) k++;
        double lin = sacm_G[k] + (sacm_G[k + 1] - sacm_G[k]) * (tt - sacm_t[k]) / (sacm_t[k + 1] - sacm_t[k]);
        GmoveSample q;
        gmove_sample(&s, tt + 0.25, &q);
        worst = fmax(worst, fabs(q.G - lin));
    }
    CHECK(worst < 1e-12);
    GmoveSample k1;
    gmove_sample(&s, 2.0 + 0.25, &k1);
    CHECK_NEAR(k1.G, 7.0 - 1.25 * 0.5 * 5.0 / 64.0, 1e-12);
    /* q'' continuous everywhere: check around every window edge and knot */
    double jump = 0.0;
    for (int i = 0; i < 6; i++)
        for (int e = -1; e <= 1; e++) {
            double tl = sacm_t[i] + 0.25 + e * 0.25;
            if (tl > 0.0 && tl < s.T) jump = fmax(jump, joint_jump(&s, tl));
        }
    printf("#   LINEAR: polyline error outside windows %.3g, worst jump ratio %.3g\n", worst, jump);
    CHECK(jump < 1.0);
    CHECK(scan_limits(&s, 1e-3, NULL) == 0);
    /* JERK sets the corner blends: 1.875 * 1.25 G/s / 2.5 G/s^2 = 0.9375 s */
    GmoveParams pj = {.interp = GMOVE_INTERP_LINEAR, .jerk = 2.5};
    CHECK(gmove_plan_profile(&mc, &base, sacm_t, sacm_G, 6, &pj, &tab, &s, &info) == GMOVE_OK);
    CHECK_NEAR(tab.h[1], 0.5 * 0.9375, 1e-12);
    double gj = 0.0;
    for (double t = 0.0; t <= s.T; t += 1e-3) {
        GmoveSample q, r;
        gmove_sample(&s, t, &q);
        gmove_sample(&s, t + 1e-6, &r);
        gj = fmax(gj, fabs(r.Gdot - q.Gdot) / 1e-6); /* G-jerk by difference */
    }
    printf("#   LINEAR with JERK 2.5 G/s^2: peak G-jerk %.6g\n", gj);
    CHECK(gj <= 2.5 * (1 + 1e-4));
    gmove_table_free(&tab);
}

UTEST(profile_cspline)
{
    GmoveState base = {4.5, 0.0};
    GmoveTable tab;
    gmove_table_init(&tab);
    GmoveSegment s;
    GmoveInfo info;
    double t[7] = {0, 2, 4, 6, 9, 12, 15}, G[7] = {4.5, 5.5, 7.0, 6.5, 5.0, 5.8, 4.8};
    GmoveParams p = {.interp = GMOVE_INTERP_CSPLINE};
    int st = gmove_plan_profile(&mc, &base, t, G, 7, &p, &tab, &s, &info);
    CHECK(st == GMOVE_OK);
    if (st) { printf("#   %s\n", info.msg); gmove_table_free(&tab); return; }
    /* outside the windows G is GSL's natural cubic spline, evaluated independently here */
    gsl_interp_accel *acc = gsl_interp_accel_alloc();
    gsl_spline *sp = gsl_spline_alloc(gsl_interp_cspline, 7);
    gsl_spline_init(sp, t, G, 7);
    double worst = 0.0, worst_d = 0.0, knot = 0.0;
    double off = tab.h[0];
    for (double tt = 0.0; tt <= 15.0; tt += 1e-3) {
        int near = 0;
        for (int i = 0; i < 7; i++) if (fabs(tt - t[i]) < tab.h[i] + 1e-9) near = 1;
        GmoveSample q;
        gmove_sample(&s, tt + off, &q);
        double v = gsl_spline_eval(sp, tt, acc), dv = gsl_spline_eval_deriv(sp, tt, acc);
        if (!near) { worst = fmax(worst, fabs(q.G - v)); worst_d = fmax(worst_d, fabs(q.Gdot - dv)); }
        else if (tt > t[0] + tab.h[0] && tt < t[6] - tab.h[6]) knot = fmax(knot, fabs(q.G - v)); /* interior */
    }
    gsl_spline_free(sp);
    gsl_interp_accel_free(acc);
    printf("#   CSPLINE: vs GSL outside windows %.3g (G) %.3g (G'); inside interior windows %.3g G\n", worst,
           worst_d, knot);
    CHECK(worst < 1e-9);
    CHECK(worst_d < 1e-9);
    CHECK(knot < 1e-3);
    double jump = 0.0;
    for (int i = 0; i < 7; i++)
        for (int e = -1; e <= 1; e++) {
            double tl = t[i] + off + e * tab.h[i];
            if (tl > 0.0 && tl < s.T) jump = fmax(jump, joint_jump(&s, tl));
        }
    CHECK(jump < 1.0);
    CHECK(scan_limits(&s, 1e-3, NULL) == 0);
    /* From rest: the lead-in spins up and ramps to the table's first G at ONSET */
    GmoveState rest = gmove_rest(0.0);
    GmoveParams pr = {.interp = GMOVE_INTERP_CSPLINE, .onset = 1.0};
    st = gmove_plan_profile(&mc, &rest, t, G, 7, &pr, &tab, &s, &info);
    CHECK(st == GMOVE_OK);
    if (st) printf("#   %s\n", info.msg);
    CHECK(s.npieces == 3 && info.spin == 1);
    CHECK(seg_joint_jumps(&s) < 1.0);
    gmove_table_free(&tab);
}

/* ---- third derivatives against differences of the second ---- */

UTEST(jerk_against_differences)
{
    GmoveState rest = gmove_rest(0.0);
    GmoveSegment s;
    GmoveParams p = {.onset = 1.0, .hold = 1.0};
    CHECK(gmove_plan_to(&mc, &rest, 4.0, &p, &s, NULL) == GMOVE_OK);
    double worst = 0.0;
    const double h = 1e-5;
    for (double t = 0.013; t < s.T; t += 0.0371) {
        GmoveSample a, b, c;
        gmove_sample(&s, t - h, &a);
        gmove_sample(&s, t, &b);
        gmove_sample(&s, t + h, &c);
        if (a.piece != c.piece) continue;
        for (int i = 0; i < 3; i++) {
            double fd = (c.qdd[i] - a.qdd[i]) / (2 * h);
            worst = fmax(worst, fabs(fd - b.qddd[i]) / fmax(1.0, fabs(b.qddd[i])));
        }
    }
    printf("#   jerk vs central difference: worst relative %.3g\n", worst);
    CHECK(worst < 1e-5);
}

/* ---- energy balance ---- */

UTEST(energy_balance)
{
    GmoveState rest = gmove_rest(0.0);
    GmoveSegment s;
    GmoveParams p = {.onset = 1.0, .hold = 2.0};
    CHECK(gmove_plan_to(&mc, &rest, 3.0, &p, &s, NULL) == GMOVE_OK);
    const double dt = 1e-3;
    long n = (long)floor(s.T / dt);
    double W = 0.0, Wabs = 0.0, prev = 0.0, E0, E1;
    GmoveSample q;
    for (long k = 0; k <= n; k++) {
        gmove_sample(&s, k * dt, &q);
        double tau[3];
        model_inverse_dynamics(&mdl, q.q, q.qd, q.qdd, tau);
        double P = tau[0] * q.qd[0] + tau[1] * q.qd[1] + tau[2] * q.qd[2];
        if (k > 0) { W += 0.5 * dt * (prev + P); Wabs += 0.5 * dt * (fabs(prev) + fabs(P)); }
        prev = P;
        if (k == 0) centrifuge_energy(mdl.state, q.q, q.qd, &E0);
    }
    centrifuge_energy(mdl.state, q.q, q.qd, &E1);
    double rel = fabs(W - (E1 - E0)) / fabs(E1 - E0);
    printf("#   energy: work %.9g J, dE %.9g J, relative error %.3g (trapezoid, 1 ms)\n", W, E1 - E0, rel);
    CHECK(rel < 1e-5);
    (void)Wabs;
}

/* ---- the planetary angle over a 10-minute run ---- */

UTEST(angle_ten_minutes)
{
    /* rest -> 1.4 G, a GOR to 9 G at 0.1 G/s (76 s), 510 s at 9 G, back to rest at 1 G/s */
    GmoveState cur = gmove_rest(0.0);
    GmoveSegment seg[4];
    CHECK(gmove_plan_to(&mc, &cur, 1.4, &(GmoveParams){.onset = 0.1}, &seg[0], NULL) == GMOVE_OK);
    CHECK(gmove_plan_to(&mc, &seg[0].end, 9.0, &(GmoveParams){.onset = 0.1}, &seg[1], NULL) == GMOVE_OK);
    CHECK(gmove_plan_hold(&mc, &seg[1].end, 510.0, &seg[2], NULL) == GMOVE_OK);
    CHECK(gmove_plan_to(&mc, &seg[2].end, 1.0, &(GmoveParams){.onset = 1.0}, &seg[3], NULL) == GMOVE_OK);
    /* independent: composite Simpson of the sampled planetary rate at 1 ms, from 0 over every segment */
    double total = 0.0, worst = 0.0, Ttot = 0.0;
    for (int k = 0; k < 4; k++) {
        const GmoveSegment *s = &seg[k];
        long n = 2 * (long)ceil(s->T / 2e-3);
        double h = s->T / n, sum = 0.0;
        for (long i = 0; i <= n; i++) {
            GmoveSample q;
            gmove_sample(s, i * h, &q);
            double wgt = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
            sum += wgt * q.qd[0];
        }
        total += sum * h / 3.0;
        Ttot += s->T;
        GmoveSample e;
        gmove_sample(s, s->T, &e);
        worst = fmax(worst, fabs(e.q[0] - total));
    }
    printf("#   %.1f s run, %.1f rad of planetary angle; worst |q1 - Simpson| %.3g rad\n", Ttot, total, worst);
    CHECK(Ttot > 600.0);
    CHECK(worst < 1e-8);
    /* the hold is closed-form: q1 = q1_0 + w t, exactly */
    GmoveSample h;
    gmove_sample(&seg[2], 433.25, &h);
    CHECK_NEAR(h.q[0], seg[2].start.q1 + omega_ss(9.0) * 433.25, 1e-10);
}

int main(void)
{
    if (setup() < 0) { printf("not ok setup\n"); return 1; }
    RUN(spinup_gor_from_rest);
    RUN(spinup_axis_governed_and_spindown);
    RUN(whole_profile_outputs);
    RUN(steady_state_closed_forms);
    RUN(rapid_onset_2_to_7);
    RUN(infeasible_onset_reported);
    RUN(torque_limit_reported);
    RUN(bad_requests);
    RUN(profile_linear);
    RUN(profile_cspline);
    RUN(jerk_against_differences);
    RUN(energy_balance);
    RUN(angle_ten_minutes);
    model_close(&mdl);
    return utest_done();
}
