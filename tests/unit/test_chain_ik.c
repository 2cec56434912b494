/* test_chain_ik.c — the chain IK (Newton tracking path, damped least squares when it gives up) against the truth:
 * along seeded random smooth PUMA 560 trajectories sampled at 1 ms (seeded as the planner seeds), the answers meet
 * the tolerance by an independent FK call and are close to the joint values the targets were made from;
 * near-singular, joint-limit, far-seed and big-step cases fall back to the damped least squares, whose answers meet
 * the tolerance too, or stop on the joint limit with MODEL_EUNREACH. */
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

/* The PUMA with ik_tol `tol` (0: the default). */
static void open_puma(Model *m, double tol)
{
    ModelDesc *d = malloc(sizeof *d);
    char err[256];
    puma560_desc(d);
    if (tol > 0) add_param(d, "ik_tol", tol);
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

/* Tracking along random trajectories (1 ms, 1.5 s each): the model answers nearly every call on its Newton path;
 * its answers meet the tolerance and are within 1e-10 of the true q at ik_tol 1e-13 (the planner's), 1e-8 at the
 * default 1e-10 (cond(J) x tol); position-only IK (a manifold of answers) meets the tolerance. */
static void tracking(double tol, int position_only)
{
    Model mf;
    open_puma(&mf, tol);
    double eff_tol = tol > 0 ? tol : 1e-10;
    int ntraj = 8, nsamp = 1500, bad = 0;
    double worst_err = 0, worst_true = 0;
    chain_ik_stats(mf.state, NULL, 1);
    for (int k = 0; k < ntraj; k++) {
        Traj tr;
        traj_init(&tr);
        double qprev[6], qprev2[6], qt[6];
        traj_at(&tr, 0, qprev);
        memcpy(qprev2, qprev, sizeof qprev);
        for (int s = 1; s <= nsamp; s++) {
            double pos[3], R[9], quat[4], seed[6], qf[6];
            traj_at(&tr, s * 1e-3, qt);
            model_fk(&mf, qt, -1, pos, R);
            m3_to_quat(quat, R);
            for (int i = 0; i < 6; i++) seed[i] = 2 * qprev[i] - qprev2[i];
            ModelIkInfo inf;
            if (model_ik(&mf, pos, position_only ? NULL : quat, seed, qf, &inf) != MODEL_OK) { bad++; continue; }
            if (!position_only)
                for (int i = 0; i < 6; i++) worst_true = fmax(worst_true, fabs(qf[i] - qt[i]));
            double e = pose_err(&mf, qf, pos, position_only ? NULL : R);
            worst_err = fmax(worst_err, e);
            memcpy(qprev2, qprev, sizeof qprev);
            memcpy(qprev, position_only ? qt : qf, sizeof qprev);
        }
    }
    ChainIkStats st;
    chain_ik_stats(mf.state, &st, 0);
    printf("#   tol %.0e%s: %ld calls, %ld on the Newton path (far %ld, singular %ld, step %ld, limit %ld, "
           "contract %ld); |q - q_true| <= %.2e, pose error <= %.2e\n",
           eff_tol, position_only ? " position only" : "", st.calls, st.fast, st.fallback_far, st.fallback_singular,
           st.fallback_step, st.fallback_limit, st.fallback_contract, worst_true, worst_err);
    CHECK(bad == 0);
    CHECK(st.calls == (long)ntraj * nsamp);
    CHECK(st.fast >= 0.99 * st.calls);
    CHECK(worst_err <= eff_tol);
    if (!position_only) CHECK(worst_true <= (eff_tol <= 1e-12 ? 1e-10 : 1e-8));
    model_close(&mf);
}

/* A square Jacobian other than 6 x 6 (the steps' general J^-1 product): the PUMA's first three joints with the tool
 * at the wrist centre, position-only IK along the trajectories' first three joints, ik_tol 1e-13: every call on the
 * Newton path, each answer within the tolerance and within 1e-10 of the true joint values. */
UTEST(tracking_square_3_joints)
{
    Model m[1];
    ModelDesc *d = malloc(sizeof *d);
    char err[256];
    puma560_desc(d);
    v3_copy(d->tool_xyz, d->joint[3].origin_xyz);
    m3_identity(d->tool_R);
    d->njoints = 3;
    d->tool_link = 2;
    add_param(d, "ik_tol", 1e-13);
    CHECK(model_open(&m[0], d, err, sizeof err) == MODEL_OK);
    free(d);
    chain_ik_stats(m[0].state, NULL, 1);
    int bad = 0, calls = 0;
    double worst_true = 0, worst_err = 0;
    for (int k = 0; k < 4; k++) {
        Traj tr;
        traj_init(&tr);
        double q6[6], qprev[3], qprev2[3];
        traj_at(&tr, 0, q6);
        memcpy(qprev, q6, sizeof qprev);
        memcpy(qprev2, q6, sizeof qprev2);
        for (int s = 1; s <= 1000; s++, calls++) {
            double pos[3], qt[3], seed[3], qf[3];
            traj_at(&tr, s * 1e-3, q6);
            memcpy(qt, q6, sizeof qt);
            model_fk(&m[0], qt, -1, pos, NULL);
            for (int i = 0; i < 3; i++) seed[i] = 2 * qprev[i] - qprev2[i];
            ModelIkInfo inf;
            if (model_ik(&m[0], pos, NULL, seed, qf, &inf) != MODEL_OK) {
                bad++;
                continue;
            }
            for (int i = 0; i < 3; i++) worst_true = fmax(worst_true, fabs(qf[i] - qt[i]));
            worst_err = fmax(worst_err, pose_err(&m[0], qf, pos, NULL));
            memcpy(qprev2, qprev, sizeof qprev);
            memcpy(qprev, qf, sizeof qprev);
        }
    }
    ChainIkStats st;
    chain_ik_stats(m[0].state, &st, 0);
    printf("#   3 joints, position only: %d calls, %ld on the Newton path, %ld Jacobians; |q - q_true| <= %.2e, "
           "pose error <= %.2e\n", calls, st.fast, st.factored, worst_true, worst_err);
    CHECK(bad == 0);
    CHECK(st.fast == calls);
    CHECK(worst_err <= 1e-13);
    CHECK(worst_true <= 1e-10);
    model_close(&m[0]);
}

UTEST(tracking_tol_1e13) { tracking(1e-13, 0); }
UTEST(tracking_default_tol) { tracking(0, 0); }
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
 * pose error of 1e-13 (checked by an independent FK) and is within 2e-12 of the true q. */
UTEST(chord_tracking_accuracy)
{
    Model mf;
    open_puma(&mf, 0);
    chain_ik_stats(mf.state, NULL, 1);
    int ntraj = 4, nsamp = 1500, bad = 0;
    long chord_calls = 0;
    double worst_chord_err = 0, worst_true = 0, worst_err = 0;
    for (int k = 0; k < ntraj; k++) {
        Traj tr;
        traj_init(&tr);
        double hist[4][6], q0[6];
        int nh = 0;
        traj_at(&tr, 0, q0);
        for (int s = 1; s <= nsamp; s++) {
            double qt[6], pos[3], R[9], quat[4], seed[6], qf[6];
            traj_at(&tr, s * 1e-3, qt);
            model_fk(&mf, qt, -1, pos, R);
            m3_to_quat(quat, R);
            planner_seed(hist, nh, q0, seed);
            ChainIkStats a, b;
            chain_ik_stats(mf.state, &a, 0);
            int sf = model_ik(&mf, pos, quat, seed, qf, NULL);
            chain_ik_stats(mf.state, &b, 0);
            if (sf != MODEL_OK) { bad++; continue; }
            if (b.chord == a.chord + 1) {
                chord_calls++;
                worst_chord_err = fmax(worst_chord_err, pose_err(&mf, qf, pos, R));
                for (int i = 0; i < 6; i++) worst_true = fmax(worst_true, fabs(qf[i] - qt[i]));
            }
            worst_err = fmax(worst_err, pose_err(&mf, qf, pos, R));
            push_hist(hist, &nh, qf);
        }
    }
    ChainIkStats st;
    chain_ik_stats(mf.state, &st, 0);
    printf("#   %ld calls: %ld fast, %ld by chord steps alone, %ld Jacobians factored; pose error <= %.2e, of the "
           "chord answers <= %.2e; those within %.2e of the true q\n", st.calls,
           st.fast, st.chord, st.factored, worst_err, worst_chord_err, worst_true);
    CHECK(bad == 0);
    CHECK(st.fast == st.calls);
    CHECK(chord_calls == st.chord);
    CHECK(st.chord >= 0.9 * st.calls);
    CHECK(worst_err <= 1e-10);
    CHECK(worst_chord_err <= 1.01e-13);   /* CHORD_TOL, measured by another rounding of the same error */
    CHECK(worst_true <= 2e-12);
    model_close(&mf);
}

/* The kept factorisation serves only seeds near the point it was made at, with a small error: after tracking, a call
 * 0.2 rad away (seed within 1e-9 of its answer) factors a fresh Jacobian at its seed; so does one near that new
 * point whose seed's pose error exceeds 1e-6; one near it with a good seed is a chord answer again (no Jacobian).
 * All meet the tolerance. */
UTEST(kept_factorisation_refactor)
{
    Model mf;
    open_puma(&mf, 0);
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
    open_puma(&ma, 0);
    open_puma(&mb, 0);
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

/* Solve the problem; the Newton path must have given up on it (its counter at counter_offset moved) and the damped
 * least squares answered. Returns the status. */
static int falls_back(Model *mf, const double pos[3], const double quat[4], const double *seed,
                      size_t counter_offset, double *qf)
{
    ChainIkStats a, b;
    ModelIkInfo inf;
    chain_ik_stats(mf->state, &a, 0);
    int sf = model_ik(mf, pos, quat, seed, qf, &inf);
    chain_ik_stats(mf->state, &b, 0);
    long before = *(const long *)((const char *)&a + counter_offset);
    long after = *(const long *)((const char *)&b + counter_offset);
    CHECK(after == before + 1);
    CHECK(b.fast == a.fast);
    return sf;
}

/* Near the wrist singularity (q5 -> 0) the Jacobian's pivots spread: the Newton path hands over to the DLS, whose
 * answers meet the tolerance. */
UTEST(near_singular_falls_back)
{
    Model mf;
    open_puma(&mf, 0);
    double q5s[3] = {0.0, 1e-7, 1e-6};
    for (int k = 0; k < 3; k++) {
        double q[6] = {0.2, 0.4, -0.8, 0.3, q5s[k], -0.2}, seed[6], pos[3], R[9], quat[4], qf[6];
        model_fk(&mf, q, -1, pos, R);
        m3_to_quat(quat, R);
        for (int i = 0; i < 6; i++) seed[i] = q[i] + 1e-5 * (i + 1);
        int st = falls_back(&mf, pos, quat, seed, offsetof(ChainIkStats, fallback_singular), qf);
        if (st == MODEL_OK) CHECK(pose_err(&mf, qf, pos, R) <= 1e-10);
    }
    model_close(&mf);
}

/* A target reachable only with joint 2 beyond its upper limit: the Newton step would cross it, so the fast path
 * falls back; the DLS keeps the joint on its limit and reports EUNREACH. A target
 * just inside the limit is still answered by the fast path. */
UTEST(limit_falls_back)
{
    Model mf;
    open_puma(&mf, 0);
    double qmax = 3.9269908169872414; /* joint 2 upper limit (225 deg) */
    double q[6] = {0.2, qmax + 1e-6, -0.8, 0.3, 0.7, -0.2}, seed[6], pos[3], R[9], quat[4], qf[6];
    model_fk(&mf, q, -1, pos, R);
    m3_to_quat(quat, R);
    memcpy(seed, q, sizeof seed);
    seed[1] = qmax - 1e-6;
    seed[3] += 1e-6;
    int st = falls_back(&mf, pos, quat, seed, offsetof(ChainIkStats, fallback_limit), qf);
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
}

/* The seed's correction (the last answer minus its seed) cannot carry the seed over a joint limit: a call that
 * learned a +5e-7 correction near joint 1's upper limit, then asked for a pose 4e-7 beyond the limit, gets the
 * DLS's status (EUNREACH, joint on its limit), not the unclamped corrected seed as an answer. */
UTEST(corrected_seed_stays_within_limits)
{
    Model mf;
    open_puma(&mf, 0);
    double qmax = mf.desc.joint[0].limits.max;
    double q[6] = {qmax - 5e-7, 0.3, -0.8, 0.2, 0.9, 0.1}, seed[6], pos[3], R[9], quat[4], qf[6];
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
    int sf = model_ik(&mf, pos, quat, seed, qf, NULL);
    printf("#   status %d, q1 - qmax %.3g\n", sf, qf[0] - qmax);
    CHECK(qf[0] <= qmax);
    CHECK(sf == MODEL_EUNREACH);
    model_close(&mf);
}

/* A seed whose pose error exceeds 1e-2 goes straight to the DLS; one within it but needing a joint step above
 * 0.05 rad falls back on the step bound. The DLS answers both. A target 5 m away: EUNREACH. */
UTEST(far_seed_and_big_step_fall_back)
{
    Model mf;
    open_puma(&mf, 0);
    double q[6] = {0.2, 0.4, -0.8, 0.3, 0.7, -0.2}, seed[6], pos[3], R[9], quat[4], qf[6];
    model_fk(&mf, q, -1, pos, R);
    m3_to_quat(quat, R);
    for (int i = 0; i < 6; i++) seed[i] = q[i] + 0.2 * (i % 2 ? 1 : -1);
    CHECK(falls_back(&mf, pos, quat, seed, offsetof(ChainIkStats, fallback_far), qf) == MODEL_OK);
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
    CHECK(falls_back(&mf, pos, quat, seed, offsetof(ChainIkStats, fallback_step), qf) == MODEL_OK);
    CHECK(pose_err(&mf, qf, pos, R) <= 1e-10);

    ModelIkInfo ii;
    double far[3] = {5, 0, 0};
    CHECK(model_ik(&mf, far, quat, q, qf, &ii) == MODEL_EUNREACH);
    CHECK(ii.residual > 3.5);
    model_close(&mf);
}

int main(void)
{
    RUN(tracking_square_3_joints);
    RUN(tracking_tol_1e13);
    RUN(tracking_default_tol);
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
