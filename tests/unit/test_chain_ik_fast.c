/* test_chain_ik_fast.c — the chain IK's Newton tracking path against its damped-least-squares path: along seeded
 * random smooth PUMA 560 trajectories sampled at 1 ms (seeded as the planner seeds), the answers agree and meet
 * the tolerance; near-singular, joint-limit, far-seed and big-step cases fall back and then give exactly the
 * damped-least-squares answer (same status, same bits). The DLS reference is a second model opened with
 * ik_fast = 0. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "chain_models.h"
#include "geom.h"
#include "model.h"
#include "puma560_desc.h"
#include "test_rand.h"
#include "utest.h"

static void add_param(ModelDesc *d, const char *name, double v)
{
    ModelParam *p = &d->param[d->nparams++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->n = 1;
    p->v[0] = v;
}

/* The PUMA with ik_tol `tol` (0: the default) and the fast path on or off. */
static void open_puma(Model *m, double tol, int fast)
{
    ModelDesc *d = malloc(sizeof *d);
    char err[256];
    puma560_desc(d);
    if (tol > 0) add_param(d, "ik_tol", tol);
    add_param(d, "ik_fast", fast);
    int st = model_open(m, d, err, sizeof err);
    if (st < 0) printf("#   model_open: %s\n", err);
    CHECK(st == MODEL_OK);
    free(d);
}

/* Pose error |dp| + |dtheta| of q against a target, by an independent FK call. */
static double pose_err(Model *m, const double *q, const double pos[3], const double *Rt)
{
    double p[3], R[9], d[3], e[3];
    model_fk(m, q, -1, p, R);
    v3_sub(d, p, pos);
    if (!Rt) return v3_norm(d);
    m3_rotation_error(e, R, Rt);
    return v3_norm(d) + v3_norm(e);
}

/* A smooth random trajectory: q(t) = c + sum of 3 sines per joint, amplitude <= 0.35 rad, speeds <= ~1.5 rad/s,
 * kept in the PUMA's comfortable region (wrist q5 in [0.5, 1.3], elbow bent) so no singularity is near. */
typedef struct {
    double c[6], a[6][3], w[6][3], ph[6][3];
} Traj;

static void traj_init(Traj *tr)
{
    static const double lo[6] = {-1.0, -0.2, -1.2, -1.0, 0.8, -1.5}, hi[6] = {1.0, 0.8, -0.4, 1.0, 1.0, 1.5};
    for (int i = 0; i < 6; i++) {
        tr->c[i] = lo[i] + (hi[i] - lo[i]) * urand();
        for (int k = 0; k < 3; k++) {
            tr->a[i][k] = 0.1 * urand();
            tr->w[i][k] = 0.5 + 4.0 * urand();
            tr->ph[i][k] = 6.283185307179586 * urand();
        }
    }
}

static void traj_at(const Traj *tr, double t, double *q)
{
    for (int i = 0; i < 6; i++) {
        q[i] = tr->c[i];
        for (int k = 0; k < 3; k++) q[i] += tr->a[i][k] * sin(tr->w[i][k] * t + tr->ph[i][k]);
    }
}

/* Tracking along random trajectories (1 ms, 1.5 s each): the fast model answers nearly every call on its Newton
 * path; its answers meet the tolerance and equal the DLS model's (same seed) to 1e-10 at ik_tol 1e-13 (the
 * planner's), to 1e-8 at the default 1e-10 (see the CHECK); position-only IK too. */
static void tracking(double tol, int position_only)
{
    Model mf, md;
    open_puma(&mf, tol, 1);
    open_puma(&md, tol, 0);
    double eff_tol = tol > 0 ? tol : 1e-10;
    int ntraj = 8, nsamp = 1500, bad = 0;
    double worst_diff = 0, worst_err = 0, worst_true = 0;
    chain_ik_stats(mf.state, NULL, 1);
    for (int k = 0; k < ntraj; k++) {
        Traj tr;
        traj_init(&tr);
        double qprev[6], qprev2[6], qt[6];
        traj_at(&tr, 0, qprev);
        memcpy(qprev2, qprev, sizeof qprev);
        for (int s = 1; s <= nsamp; s++) {
            double pos[3], R[9], quat[4], seed[6], qf[6], qd[6];
            traj_at(&tr, s * 1e-3, qt);
            model_fk(&mf, qt, -1, pos, R);
            m3_to_quat(quat, R);
            for (int i = 0; i < 6; i++) seed[i] = 2 * qprev[i] - qprev2[i];
            ModelIkInfo inf, ind;
            int sf = model_ik(&mf, pos, position_only ? NULL : quat, seed, qf, &inf);
            int sd = model_ik(&md, pos, position_only ? NULL : quat, seed, qd, &ind);
            if (sf != MODEL_OK || sd != MODEL_OK) { bad++; continue; }
            for (int i = 0; i < 6; i++) {
                worst_diff = fmax(worst_diff, fabs(qf[i] - qd[i]));
                if (!position_only) worst_true = fmax(worst_true, fabs(qf[i] - qt[i]));
            }
            double e = pose_err(&mf, qf, pos, position_only ? NULL : R);
            worst_err = fmax(worst_err, e);
            memcpy(qprev2, qprev, sizeof qprev);
            memcpy(qprev, position_only ? qt : qf, sizeof qprev);
        }
    }
    ChainIkStats st;
    chain_ik_stats(mf.state, &st, 0);
    printf("#   tol %.0e%s: %ld calls, %ld on the Newton path (far %ld, singular %ld, step %ld, limit %ld, "
           "contract %ld); |q_fast - q_dls| <= %.2e, |q_fast - q_true| <= %.2e, pose error <= %.2e\n",
           eff_tol, position_only ? " position only" : "", st.calls, st.fast, st.fallback_far, st.fallback_singular,
           st.fallback_step, st.fallback_limit, st.fallback_contract, worst_diff, worst_true, worst_err);
    CHECK(bad == 0);
    CHECK(st.calls == (long)ntraj * nsamp);
    CHECK(st.fast >= 0.99 * st.calls);
    CHECK(worst_err <= eff_tol);
    /* Two answers that each meet the tolerance differ by up to cond(J) x tol: with the planner's tolerance (1e-13)
     * that is far below 1e-10, with the default 1e-10 it is not (both are then 1e-8-close to the true q). A
     * redundant problem (position only) has a manifold of answers: both land on it, close together. */
    CHECK(worst_diff <= (position_only ? 1e-6 : eff_tol <= 1e-12 ? 1e-10 : 1e-8));
    if (!position_only) CHECK(worst_true <= (eff_tol <= 1e-12 ? 1e-10 : 1e-8));
    model_close(&mf);
    model_close(&md);
}

/* A square Jacobian other than 6 x 6 (the steps' general J^-1 product): the PUMA's first three joints with the tool
 * at the wrist centre, position-only IK along the trajectories' first three joints, ik_tol 1e-13: every call on the
 * Newton path, each answer within the tolerance and within 1e-10 of the damped path's. */
UTEST(tracking_square_3_joints)
{
    Model m[2];
    for (int f = 0; f < 2; f++) {
        ModelDesc *d = malloc(sizeof *d);
        char err[256];
        puma560_desc(d);
        v3_copy(d->tool_xyz, d->joint[3].origin_xyz);
        m3_identity(d->tool_R);
        d->njoints = 3;
        d->tool_link = 2;
        add_param(d, "ik_tol", 1e-13);
        add_param(d, "ik_fast", f == 0);
        CHECK(model_open(&m[f], d, err, sizeof err) == MODEL_OK);
        free(d);
    }
    chain_ik_stats(m[0].state, NULL, 1);
    int bad = 0, calls = 0;
    double worst_diff = 0, worst_err = 0;
    for (int k = 0; k < 4; k++) {
        Traj tr;
        traj_init(&tr);
        double q6[6], qprev[3], qprev2[3];
        traj_at(&tr, 0, q6);
        memcpy(qprev, q6, sizeof qprev);
        memcpy(qprev2, q6, sizeof qprev2);
        for (int s = 1; s <= 1000; s++, calls++) {
            double pos[3], qt[3], seed[3], qf[3], qd[3];
            traj_at(&tr, s * 1e-3, q6);
            memcpy(qt, q6, sizeof qt);
            model_fk(&m[0], qt, -1, pos, NULL);
            for (int i = 0; i < 3; i++) seed[i] = 2 * qprev[i] - qprev2[i];
            ModelIkInfo inf, ind;
            if (model_ik(&m[0], pos, NULL, seed, qf, &inf) != MODEL_OK ||
                model_ik(&m[1], pos, NULL, seed, qd, &ind) != MODEL_OK) {
                bad++;
                continue;
            }
            for (int i = 0; i < 3; i++) worst_diff = fmax(worst_diff, fabs(qf[i] - qd[i]));
            worst_err = fmax(worst_err, pose_err(&m[0], qf, pos, NULL));
            memcpy(qprev2, qprev, sizeof qprev);
            memcpy(qprev, qf, sizeof qprev);
        }
    }
    ChainIkStats st;
    chain_ik_stats(m[0].state, &st, 0);
    printf("#   3 joints, position only: %d calls, %ld on the Newton path, %ld Jacobians; |q_fast - q_dls| <= %.2e, "
           "pose error <= %.2e\n", calls, st.fast, st.factored, worst_diff, worst_err);
    CHECK(bad == 0);
    CHECK(st.fast == calls);
    CHECK(worst_err <= 1e-13);
    CHECK(worst_diff <= 1e-10);
    model_close(&m[0]);
    model_close(&m[1]);
}

UTEST(tracking_equals_dls_tol_1e13) { tracking(1e-13, 0); }
UTEST(tracking_equals_dls_default_tol) { tracking(0, 0); }
UTEST(tracking_position_only) { tracking(1e-13, 1); }

/* The seed the dry-run's planner gives: the last answers (hist[0] the newest, nh of them, 1 ms apart) extrapolated
 * by the polynomial through them, as slot_q does (cubic through four). */
static void planner_seed(double hist[4][6], int nh, const double *first, double *seed)
{
    static const double w[5][4] = {{0}, {1, 0, 0, 0}, {2, -1, 0, 0}, {3, -3, 1, 0}, {4, -6, 4, -1}};
    for (int i = 0; i < 6; i++) {
        seed[i] = nh == 0 ? first[i] : 0;
        for (int k = 0; k < nh; k++) seed[i] += w[nh][k] * hist[k][i];
    }
}

static void push_hist(double hist[4][6], int *nh, const double *q)
{
    memmove(hist[1], hist[0], 3 * sizeof hist[0]);
    memcpy(hist[0], q, sizeof hist[0]);
    if (*nh < 4) (*nh)++;
}

/* Tracking as the dry-run does it (planner seeds, default ik_tol 1e-10): nearly every call is answered by chord
 * steps with the factorisation kept from an earlier call, without a Jacobian. Every answer meets ik_tol; the chord
 * answers must be far more accurate, since the dry-run's qdd are second differences of them over 1 ms: each meets a
 * pose error of 1e-13 (checked by an independent FK) and is within 2e-12 of the true q and of the damped path's
 * answer from the same seed at ik_tol 1e-13. */
UTEST(chord_tracking_accuracy)
{
    Model mf, md;
    open_puma(&mf, 0, 1);
    open_puma(&md, 1e-13, 0);
    chain_ik_stats(mf.state, NULL, 1);
    int ntraj = 4, nsamp = 1500, bad = 0;
    long chord_calls = 0;
    double worst_chord_err = 0, worst_true = 0, worst_dls = 0, worst_err = 0;
    for (int k = 0; k < ntraj; k++) {
        Traj tr;
        traj_init(&tr);
        double hist[4][6], q0[6];
        int nh = 0;
        traj_at(&tr, 0, q0);
        for (int s = 1; s <= nsamp; s++) {
            double qt[6], pos[3], R[9], quat[4], seed[6], qf[6], qd[6];
            traj_at(&tr, s * 1e-3, qt);
            model_fk(&mf, qt, -1, pos, R);
            m3_to_quat(quat, R);
            planner_seed(hist, nh, q0, seed);
            ChainIkStats a, b;
            chain_ik_stats(mf.state, &a, 0);
            int sf = model_ik(&mf, pos, quat, seed, qf, NULL);
            chain_ik_stats(mf.state, &b, 0);
            int sd = model_ik(&md, pos, quat, seed, qd, NULL);
            if (sf != MODEL_OK || sd != MODEL_OK) { bad++; continue; }
            if (b.chord == a.chord + 1) {
                chord_calls++;
                worst_chord_err = fmax(worst_chord_err, pose_err(&mf, qf, pos, R));
                for (int i = 0; i < 6; i++) {
                    worst_true = fmax(worst_true, fabs(qf[i] - qt[i]));
                    worst_dls = fmax(worst_dls, fabs(qf[i] - qd[i]));
                }
            }
            worst_err = fmax(worst_err, pose_err(&mf, qf, pos, R));
            push_hist(hist, &nh, qf);
        }
    }
    ChainIkStats st;
    chain_ik_stats(mf.state, &st, 0);
    printf("#   %ld calls: %ld fast, %ld by chord steps alone, %ld Jacobians factored; pose error <= %.2e, of the "
           "chord answers <= %.2e; those within %.2e of the true q, %.2e of the damped path's at 1e-13\n", st.calls,
           st.fast, st.chord, st.factored, worst_err, worst_chord_err, worst_true, worst_dls);
    CHECK(bad == 0);
    CHECK(st.fast == st.calls);
    CHECK(chord_calls == st.chord);
    CHECK(st.chord >= 0.9 * st.calls);
    CHECK(worst_err <= 1e-10);
    CHECK(worst_chord_err <= 1.01e-13);   /* CHORD_TOL, measured by another rounding of the same error */
    CHECK(worst_true <= 2e-12);
    CHECK(worst_dls <= 2e-12);
    model_close(&mf);
    model_close(&md);
}

/* The kept factorisation serves only seeds near the point it was made at, with a small error: after tracking, a call
 * 0.2 rad away (seed within 1e-9 of its answer) factors a fresh Jacobian at its seed; so does one near that new
 * point whose seed's pose error exceeds 1e-6; one near it with a good seed is a chord answer again (no Jacobian).
 * All meet the tolerance. */
UTEST(kept_factorisation_refactor)
{
    Model mf;
    open_puma(&mf, 0, 1);
    Traj tr;
    traj_init(&tr);
    double hist[4][6], q0[6], q[6], pos[3], R[9], quat[4], seed[6], qf[6];
    int nh = 0;
    traj_at(&tr, 0, q0);
    for (int s = 1; s <= 50; s++) {
        traj_at(&tr, s * 1e-3, q);
        model_fk(&mf, q, -1, pos, R);
        m3_to_quat(quat, R);
        planner_seed(hist, nh, q0, seed);
        CHECK(model_ik(&mf, pos, quat, seed, qf, NULL) == MODEL_OK);
        push_hist(hist, &nh, qf);
    }
    /* dq: 0.2 rad away (beyond the 0.05 the kept factorisation serves); then 1e-3 on, with seed errors 1e-5 and
     * 1e-10 */
    static const double dq[3] = {0.2, 1e-3, 1e-3}, dseed[3] = {1e-9, 1e-5, 1e-10};
    static const int refactor[3] = {1, 1, 0};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 6; i++) q[i] = qf[i] + (i == 0 ? dq[k] : 0);
        model_fk(&mf, q, -1, pos, R);
        m3_to_quat(quat, R);
        for (int i = 0; i < 6; i++) seed[i] = q[i] + dseed[k];
        ChainIkStats a, b;
        chain_ik_stats(mf.state, &a, 0);
        CHECK(model_ik(&mf, pos, quat, seed, qf, NULL) == MODEL_OK);
        chain_ik_stats(mf.state, &b, 0);
        CHECK(b.fast == a.fast + 1);
        CHECK(b.factored == a.factored + refactor[k]);
        CHECK(b.chord == a.chord + !refactor[k]);
        CHECK(pose_err(&mf, qf, pos, R) <= 1e-10);
    }
    model_close(&mf);
}

/* An answer depends on the IK calls before it and on nothing else: two models making the same IK calls give the same
 * bits when one of them also makes FK, Jacobian, mass-matrix, dynamics and singularity calls in between (which fill
 * its cache and workspace; the pipelined dry-run makes them on a twin model). */
UTEST(answers_depend_on_ik_history_only)
{
    Model ma, mb;
    open_puma(&ma, 0, 1);
    open_puma(&mb, 0, 1);
    Traj tr;
    traj_init(&tr);
    double hist[4][6], q0[6];
    int nh = 0, differ = 0;
    traj_at(&tr, 0, q0);
    for (int s = 1; s <= 300; s++) {
        double qt[6], pos[3], R[9], quat[4], seed[6], qa[6], qb[6];
        traj_at(&tr, s * 1e-3, qt);
        model_fk(&ma, qt, -1, pos, R);
        m3_to_quat(quat, R);
        planner_seed(hist, nh, q0, seed);
        CHECK(model_ik(&ma, pos, quat, seed, qa, NULL) == MODEL_OK);
        if (nh > 0) { /* b: the dry-run's calls at the last answer, and some elsewhere */
            double qd[6] = {0.1, -0.2, 0.3, 0.1, 0.2, -0.1}, qdd[6] = {1, 2, 3, 4, 5, 6}, tau[6], J[36], M[36], m;
            double qo[6], p[3], Ro[9];
            for (int i = 0; i < 6; i++) qo[i] = hist[0][i] + 0.01 * (i + 1) * (s % 3);
            model_inverse_dynamics(&mb, hist[0], qd, qdd, tau);
            model_singularity_within(&mb, hist[0], 1e-3, 1e3, &m);
            model_fk(&mb, qo, -1, p, Ro);
            model_jacobian(&mb, qo, J);
            model_mass_matrix(&mb, qo, M);
            model_singularity(&mb, qo, &m);
        }
        CHECK(model_ik(&mb, pos, quat, seed, qb, NULL) == MODEL_OK);
        differ += memcmp(qa, qb, sizeof qa) != 0;
        push_hist(hist, &nh, qa);
    }
    CHECK(differ == 0);
    model_close(&ma);
    model_close(&mb);
}

/* Solve the same problem with the fast and the DLS model; when the fast model fell back (its counter `which`
 * moved), its status and answer must be the DLS's, bit for bit. Returns the fast status. */
static int same_as_dls(Model *mf, Model *md, const double pos[3], const double quat[4], const double *seed,
                       size_t counter_offset, double *qf)
{
    ChainIkStats a, b;
    double qd[6];
    ModelIkInfo inf, ind;
    chain_ik_stats(mf->state, &a, 0);
    int sf = model_ik(mf, pos, quat, seed, qf, &inf);
    int sd = model_ik(md, pos, quat, seed, qd, &ind);
    chain_ik_stats(mf->state, &b, 0);
    long before = *(const long *)((const char *)&a + counter_offset);
    long after = *(const long *)((const char *)&b + counter_offset);
    CHECK(after == before + 1);
    CHECK(b.fast == a.fast);
    CHECK(sf == sd);
    CHECK(memcmp(qf, qd, sizeof qd) == 0);
    CHECK(inf.iterations == ind.iterations);
    return sf;
}

/* Near the wrist singularity (q5 -> 0) the Jacobian's pivots spread: the fast path hands over to the DLS. */
UTEST(near_singular_falls_back)
{
    Model mf, md;
    open_puma(&mf, 0, 1);
    open_puma(&md, 0, 0);
    double q5s[3] = {0.0, 1e-7, 1e-6};
    for (int k = 0; k < 3; k++) {
        double q[6] = {0.2, 0.4, -0.8, 0.3, q5s[k], -0.2}, seed[6], pos[3], R[9], quat[4], qf[6];
        model_fk(&mf, q, -1, pos, R);
        m3_to_quat(quat, R);
        for (int i = 0; i < 6; i++) seed[i] = q[i] + 1e-5 * (i + 1);
        int st = same_as_dls(&mf, &md, pos, quat, seed, offsetof(ChainIkStats, fallback_singular), qf);
        if (st == MODEL_OK) CHECK(pose_err(&mf, qf, pos, R) <= 1e-10);
    }
    model_close(&mf);
    model_close(&md);
}

/* A target reachable only with joint 2 beyond its upper limit: the Newton step would cross it, so the fast path
 * falls back; the DLS keeps the joint on its limit and reports EUNREACH, and so does the fast model. A target
 * just inside the limit is still answered by the fast path. */
UTEST(limit_falls_back)
{
    Model mf, md;
    open_puma(&mf, 0, 1);
    open_puma(&md, 0, 0);
    double qmax = 3.9269908169872414; /* joint 2 upper limit (225 deg) */
    double q[6] = {0.2, qmax + 1e-6, -0.8, 0.3, 0.7, -0.2}, seed[6], pos[3], R[9], quat[4], qf[6];
    model_fk(&mf, q, -1, pos, R);
    m3_to_quat(quat, R);
    memcpy(seed, q, sizeof seed);
    seed[1] = qmax - 1e-6;
    seed[3] += 1e-6;
    int st = same_as_dls(&mf, &md, pos, quat, seed, offsetof(ChainIkStats, fallback_limit), qf);
    CHECK(st == MODEL_EUNREACH);
    CHECK(qf[1] <= qmax);

    q[1] = qmax - 1e-5;
    model_fk(&mf, q, -1, pos, R);
    m3_to_quat(quat, R);
    seed[1] = qmax - 2e-5;
    ChainIkStats a, b;
    chain_ik_stats(mf.state, &a, 0);
    CHECK(model_ik(&mf, pos, quat, seed, qf, NULL) == MODEL_OK);
    chain_ik_stats(mf.state, &b, 0);
    CHECK(b.fast == a.fast + 1);
    CHECK(pose_err(&mf, qf, pos, R) <= 1e-10);
    model_close(&mf);
    model_close(&md);
}

/* The seed's correction (the last answer minus its seed) cannot carry the seed over a joint limit: a call that
 * learned a +5e-7 correction near joint 1's upper limit, then asked for a pose 4e-7 beyond the limit, gets the
 * DLS's status (EUNREACH, joint on its limit), not the unclamped corrected seed as an answer. */
UTEST(corrected_seed_stays_within_limits)
{
    Model mf, md;
    open_puma(&mf, 0, 1);
    open_puma(&md, 0, 0);
    double qmax = mf.desc.joint[0].limits.max;
    double q[6] = {qmax - 5e-7, 0.3, -0.8, 0.2, 0.9, 0.1}, seed[6], pos[3], R[9], quat[4], qf[6], qd[6];
    model_fk(&mf, q, -1, pos, R);
    m3_to_quat(quat, R);
    memcpy(seed, q, sizeof seed);
    seed[0] -= 5e-7;   /* the answer is 5e-7 above the seed: that correction is kept for the next call */
    CHECK(model_ik(&mf, pos, quat, seed, qf, NULL) == MODEL_OK);
    q[0] = qmax + 4e-7;
    model_fk(&mf, q, -1, pos, R);
    m3_to_quat(quat, R);
    memcpy(seed, q, sizeof seed);
    seed[0] -= 5e-7;   /* the same offset: seed plus correction would be the out-of-limit pose exactly */
    int sf = model_ik(&mf, pos, quat, seed, qf, NULL), sd = model_ik(&md, pos, quat, seed, qd, NULL);
    printf("#   fast: status %d, q1 - qmax %.3g; damped: status %d, q1 - qmax %.3g\n", sf, qf[0] - qmax, sd,
           qd[0] - qmax);
    CHECK(qf[0] <= qmax);
    CHECK(sf == sd && sd == MODEL_EUNREACH);
    model_close(&mf);
    model_close(&md);
}

/* A seed whose pose error exceeds 1e-2 goes straight to the DLS; one within it but needing a joint step above
 * 0.05 rad falls back on the step bound. Both then give the DLS answer exactly. A target 5 m away: EUNREACH. */
UTEST(far_seed_and_big_step_fall_back)
{
    Model mf, md;
    open_puma(&mf, 0, 1);
    open_puma(&md, 0, 0);
    double q[6] = {0.2, 0.4, -0.8, 0.3, 0.7, -0.2}, seed[6], pos[3], R[9], quat[4], qf[6];
    model_fk(&mf, q, -1, pos, R);
    m3_to_quat(quat, R);
    for (int i = 0; i < 6; i++) seed[i] = q[i] + 0.2 * (i % 2 ? 1 : -1);
    CHECK(same_as_dls(&mf, &md, pos, quat, seed, offsetof(ChainIkStats, fallback_far), qf) == MODEL_OK);
    CHECK(pose_err(&mf, qf, pos, R) <= 1e-10);

    /* near the wrist singularity (q5 = 0.05) joints 4 and 6 turned against each other barely move the tool: the
     * seed is close in pose (within 1e-2), but the Newton step back is 0.06 rad per joint */
    double qw[6] = {0.2, 0.4, -0.8, 0.3, 0.05, -0.2};
    model_fk(&mf, qw, -1, pos, R);
    m3_to_quat(quat, R);
    memcpy(seed, qw, sizeof seed);
    seed[3] += 0.06;
    seed[5] -= 0.06;
    double ps[3], Rs[9], e[3], d[3];
    model_fk(&mf, seed, -1, ps, Rs);
    v3_sub(d, ps, pos);
    m3_rotation_error(e, Rs, R);
    printf("#   big-step seed: pose error %.3g\n", v3_norm(d) + v3_norm(e));
    CHECK(v3_norm(d) + v3_norm(e) <= 1e-2);
    CHECK(same_as_dls(&mf, &md, pos, quat, seed, offsetof(ChainIkStats, fallback_step), qf) == MODEL_OK);
    CHECK(pose_err(&mf, qf, pos, R) <= 1e-10);

    ModelIkInfo ii;
    double far[3] = {5, 0, 0};
    CHECK(model_ik(&mf, far, quat, q, qf, &ii) == MODEL_EUNREACH);
    CHECK(ii.residual > 3.5);
    model_close(&mf);
    model_close(&md);
}

/* The tracking path's own tool-pose FK and error (chain_ik_pose_error: column vectors along the base-to-tool path,
 * SSE2 and AVX builds) give the bits of the reference FK (the scalar rows chain_fk_world_trig had before its DH-like
 * joints took column vectors) and the general error (chain_tool_error_at), and the FK of every link
 * (chain_fk_world_trig, both builds) the reference's, on the
 * PUMA (DH-like joints, signed permutations, a tool offset and rotation), the PUMA with its tool at the flange
 * (tool offset 0, rotation I), the PUMA with its joint origins turned by other signed permutations (Rz(90 deg),
 * Ry(-90 deg), a reflection-free swap of axes), the PUMA made a tree (joint 5 on link 3: a DH-like joint whose
 * parent is not the joint before), a random 8-joint tree (the tool's path skips joints) and a random
 * 7-joint chain with prismatic joints (general joints, random tool): random q, targets from tiny to large errors (the rotation error's
 * series, its full form) and near a half turn (its trace test), with and without orientation. */
UTEST(pose_error_paths_same_bits)
{
    long cases = 0, differ = 0, avx = 0, fk_differ = 0;
    for (int which = 0; which < 6; which++) {
        ModelDesc *d = malloc(sizeof *d);
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, 77 + which);
        if (which <= 1 || which >= 4) puma560_desc(d);
        if (which == 5) d->joint[4].parent = 2; /* a DH tree: link 3 a side branch, the tool's path 0 1 2 4 5 */
        if (which == 1) {
            v3_set(d->tool_xyz, 0, 0, 0);
            m3_identity(d->tool_R);
        }
        if (which == 4) { /* origins premultiplied by exact signed permutations: still DH-like joints */
            static const double turn[3][9] = {{0, -1, 0, 1, 0, 0, 0, 0, 1},   /* Rz(90 deg) */
                                              {0, 0, -1, 0, 1, 0, 1, 0, 0},   /* Ry(-90 deg) */
                                              {0, 1, 0, 0, 0, 1, 1, 0, 0}};   /* x <- y <- z <- x */
            for (int i = 0; i < d->njoints; i++) {
                double R[9];
                m3_mul(R, turn[i % 3], d->joint[i].origin_R);
                memcpy(d->joint[i].origin_R, R, sizeof R);
            }
        }
        if (which == 2) cm_random_desc(d, r, 8, 1, 0);
        if (which == 3) cm_random_desc(d, r, 7, 0, 3);
        Model m;
        char err[256];
        CHECK(model_open(&m, d, err, sizeof err) == MODEL_OK);
        int n = d->njoints;
        for (int t = 0; t < 3000; t++) {
            double q[MODEL_MAX_DOF], q2[MODEL_MAX_DOF], pos[3], R[9], quat[4];
            double scale = t % 5 == 0 || t % 5 == 4 ? 1e-9 : t % 5 == 1 ? 1e-5 : t % 5 == 2 ? 1e-2 : 1.0;
            for (int i = 0; i < n; i++) {
                double span = d->joint[i].type == MODEL_REVOLUTE ? M_PI : 0.5;
                q[i] = cm_uniform(r, -span, span);
                q2[i] = q[i] + scale * cm_uniform(r, -1, 1);
            }
            model_fk(&m, q2, -1, pos, R);
            if (t % 5 == 4) { /* the tool turned by nearly a half turn about a random axis */
                double a[3], H[9], Rt[9];
                cm_unit(r, a);
                m3_axis_angle(H, a, M_PI - cm_uniform(r, 1e-6, 5e-4));
                m3_mul(Rt, H, R);
                memcpy(R, Rt, sizeof R);
            }
            m3_to_quat(quat, R);
            const double *qt = t % 7 == 3 ? NULL : quat;
            /* every link's pose by the FK against its scalar reference */
            double P[3][MODEL_MAX_DOF * 3], RR[3][MODEL_MAX_DOF * 9];
            for (int path = 0; path < 3; path++)
                if (chain_fk_world_test(m.state, path, q, P[path], RR[path]) == MODEL_OK && path > 0 &&
                    (memcmp(P[0], P[path], (size_t)n * 3 * sizeof(double)) != 0 ||
                     memcmp(RR[0], RR[path], (size_t)n * 9 * sizeof(double)) != 0) && fk_differ++ < 3)
                    printf("#   machine %d case %d: FK path %d differs from the reference\n", which, t, path);
            double e0[6], e1[6], e2[6], r0, r1, r2;
            CHECK(chain_ik_pose_error_test(m.state, 0, q, pos, qt, e0, &r0) == MODEL_OK);
            CHECK(chain_ik_pose_error_test(m.state, 1, q, pos, qt, e1, &r1) == MODEL_OK);
            int bad = memcmp(e0, e1, sizeof e0) != 0 || memcmp(&r0, &r1, sizeof r0) != 0;
            if (chain_ik_pose_error_test(m.state, 2, q, pos, qt, e2, &r2) == MODEL_OK) {
                avx++;
                bad |= memcmp(e0, e2, sizeof e0) != 0 || memcmp(&r0, &r2, sizeof r0) != 0;
            }
            if (bad && differ++ < 3)
                printf("#   machine %d case %d: residual %.17g vs %.17g, e0 %.17g vs %.17g\n", which, t, r0, r1, e0[0],
                       e1[0]);
            cases++;
        }
        model_close(&m);
        gsl_rng_free(r);
        free(d);
    }
    printf("#   %ld cases (%ld also by the AVX build): %ld pose errors and %ld FKs of every link differing in any bit\n",
           cases, avx, differ, fk_differ);
    CHECK(differ == 0);
    CHECK(fk_differ == 0);
}

/* The tracking path's AVX form (one body with each point's libmvec cos/sin and pose error inlined, the Newton step
 * by AVX column sums) gives the bits of its SSE2 form (chain_trig and chain_ik_pose_error calls, SSE2 halves), call
 * for call (answer, status, steps, residual), on the PUMA (6 joints: libmvec's two blocks, the 6 x 6 inverse's
 * columns), random chains of 3 joints (one padded block; position only: a 3 x 3 inverse by columns), 7 joints (two
 * overlapping blocks, the minimum-norm step) and 9 joints (the blocks' loop), along smooth random joint paths with
 * planner-like seeds. The target orientation is held, bit for bit, for two calls in four, and in the third its
 * quaternion's vector part is turned (w the same bits): the IK keeps the last orientation's rotation, and every
 * answer reported OK meets the tolerance against the pose it was given (an independent FK). */
UTEST(tracking_forms_same_bits)
{
    long calls = 0, fast = 0, differ = 0, bad_pose = 0, ok = 0;
    for (int which = 0; which < 4; which++) {
        ModelDesc *d = malloc(sizeof *d);
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, 505 + which);
        static const int nj[4] = {6, 3, 7, 9};
        if (which == 0) puma560_desc(d);
        else cm_random_desc(d, r, nj[which], 0, 0);
        int n = d->njoints, position_only = which == 1;
        Model m[2];
        char err[256];
        for (int f = 0; f < 2; f++) {
            CHECK(model_open(&m[f], d, err, sizeof err) == MODEL_OK);
            chain_ik_track_form(m[f].state, f);
            chain_ik_stats(m[f].state, NULL, 1);
        }
        double c0[MODEL_MAX_DOF], a[MODEL_MAX_DOF], w[MODEL_MAX_DOF], ph[MODEL_MAX_DOF];
        for (int i = 0; i < n; i++) {
            c0[i] = which == 0 ? (i == 4 ? 0.9 : i == 2 ? -0.6 : 0.3) : cm_uniform(r, -1, 1);
            a[i] = cm_uniform(r, 0.05, 0.3), w[i] = cm_uniform(r, 0.5, 3), ph[i] = cm_uniform(r, 0, 6.28);
        }
        double prev[2][MODEL_MAX_DOF], quat[4] = {1, 0, 0, 0}, Rq[9];
        for (int s = 0; s < 2000; s++) {
            double qt[MODEL_MAX_DOF], pos[3], R[9], seed[MODEL_MAX_DOF], q[2][MODEL_MAX_DOF];
            for (int i = 0; i < n; i++) qt[i] = c0[i] + a[i] * sin(w[i] * s * 1e-3 + ph[i]);
            model_fk(&m[0], qt, -1, pos, R);
            if (s % 4 == 0) m3_to_quat(quat, R); /* else the quaternion of the call before, the same bits, */
            if (s % 4 == 2) {                    /* or its axis turned by 1e-4 rad about z (w the same bits) */
                double x = quat[1], y = quat[2];
                quat[1] = x * cos(1e-4) - y * sin(1e-4), quat[2] = x * sin(1e-4) + y * cos(1e-4);
            }
            quat_to_m3(Rq, quat);
            for (int i = 0; i < n; i++) seed[i] = s < 2 ? qt[i] : 2 * prev[0][i] - prev[1][i];
            ModelIkInfo info[2];
            int st[2];
            for (int f = 0; f < 2; f++)
                st[f] = model_ik(&m[f], pos, position_only ? NULL : quat, seed, q[f], &info[f]);
            calls++;
            if (st[0] != st[1] || memcmp(q[0], q[1], (size_t)n * sizeof(double)) != 0 ||
                info[0].iterations != info[1].iterations || memcmp(&info[0].residual, &info[1].residual, 8) != 0) {
                if (differ++ < 3) printf("#   machine %d call %d: the forms differ (status %d vs %d)\n", which, s, st[0], st[1]);
            }
            if (st[0] == MODEL_OK) {
                ok++;
                double e = pose_err(&m[0], q[0], pos, position_only ? NULL : Rq);
                if (!(e <= 1e-10) && bad_pose++ < 3) printf("#   machine %d call %d: pose error %.3e\n", which, s, e);
            }
            memcpy(prev[1], s == 0 ? qt : prev[0], (size_t)n * sizeof(double));
            memcpy(prev[0], st[0] == MODEL_OK ? q[0] : qt, (size_t)n * sizeof(double));
        }
        ChainIkStats st[2];
        for (int f = 0; f < 2; f++) chain_ik_stats(m[f].state, &st[f], 0);
        CHECK(st[0].fast == st[1].fast && st[0].factored == st[1].factored);
        fast += st[0].fast;
        printf("#   machine %d (%d joints): %ld of %ld calls on the Newton path, %ld Jacobians\n", which, n, st[0].fast,
               st[0].calls, st[0].factored);
        CHECK(st[0].fast >= 0.9 * st[0].calls);
        for (int f = 0; f < 2; f++) model_close(&m[f]);
        gsl_rng_free(r);
        free(d);
    }
    printf("#   %ld calls (%ld OK, %ld on the Newton path): %ld differing between the forms, %ld OK answers off their "
           "pose\n", calls, ok, fast, differ, bad_pose);
    CHECK(differ == 0);
    CHECK(bad_pose == 0);
    CHECK(ok >= 0.95 * calls);
}

int main(void)
{
    RUN(tracking_forms_same_bits);
    RUN(pose_error_paths_same_bits);
    RUN(tracking_square_3_joints);
    RUN(tracking_equals_dls_tol_1e13);
    RUN(tracking_equals_dls_default_tol);
    RUN(tracking_position_only);
    RUN(chord_tracking_accuracy);
    RUN(kept_factorisation_refactor);
    RUN(answers_depend_on_ik_history_only);
    RUN(near_singular_falls_back);
    RUN(limit_falls_back);
    RUN(corrected_seed_stays_within_limits);
    RUN(far_seed_and_big_step_fall_back);
    return utest_done();
}
