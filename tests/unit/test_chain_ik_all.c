/* test_chain_ik_all.c — every IK solution of a chain (ik_all): for the PUMA 560 and each real arm with a spherical
 * wrist in tests/robots, at seeded random reachable poses, every closed-form answer checked by an independent FK
 * call (1e-9 m, 1e-9 rad), the set compared with a multi-start numerical search's (same count, up to 8, same joint
 * values), the configurations all different and the one the pose was made from among them; the nearest-within-
 * limits order; the UR5 (no spherical wrist) and a 7R arm by the search; an unreachable pose's excess in m. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "geom.h"
#include "model.h"
#include "puma560_desc.h"
#include "test_rand.h"
#include "urdf.h"
#include "utest.h"

/* The arm's description: the PUMA 560's, or a URDF of tests/robots (0, with a message, when it cannot be read). */
static int load(Model *m, const char *urdf)
{
    ModelDesc *d = malloc(sizeof *d);
    char err[512];
    int st;
    if (!urdf) {
        puma560_desc(d);
    } else {
        char path[512];
        snprintf(path, sizeof path, "tests/robots/%s", urdf);
        FILE *f = fopen(path, "r");
        if (!f) {
            printf("#   %s: not found\n", path);
            free(d);
            return 0;
        }
        fclose(f);
        st = urdf_read(path, d, err, sizeof err);
        if (st < 0) printf("#   %s: %s\n", urdf, err);
        CHECK(st >= 0);
    }
    st = model_open(m, d, err, sizeof err);
    if (st < 0) printf("#   model_open: %s\n", err);
    CHECK(st == MODEL_OK);
    free(d);
    return st == MODEL_OK;
}

/* Position and orientation errors of q against the target, by FK. */
static void pose_err(Model *m, const double *q, const double pos[3], const double *Rt, double *ep, double *er)
{
    double p[3], R[9], d[3], e[3];
    model_fk(m, q, -1, p, R);
    v3_sub(d, p, pos);
    m3_rotation_error(e, R, Rt);
    *ep = v3_norm(d), *er = v3_norm(e);
}

/* A random q within the limits (revolute joints within +-pi), away from the limits' ends. */
static void random_q(const Model *m, double *q)
{
    for (int i = 0; i < m->dof; i++) {
        const ModelAxisLimits *l = &m->desc.joint[i].limits;
        double lo = isfinite(l->min) ? fmax(l->min, -M_PI) : -M_PI, hi = isfinite(l->max) ? fmin(l->max, M_PI) : M_PI;
        q[i] = lo + (0.05 + 0.9 * urand()) * (hi - lo);
    }
}

static double wrapd(double a) { return remainder(a, 2 * M_PI); }

/* Is q (wrapped) among the solutions, and at which index? */
static int find(const Model *m, const ModelIkSolution *s, int n, const double *q)
{
    for (int k = 0; k < n; k++) {
        double worst = 0;
        for (int i = 0; i < m->dof; i++) worst = fmax(worst, fabs(wrapd(s[k].q[i] - q[i])));
        if (worst < 1e-6) return k;
    }
    return -1;
}

/* Drop the turn variants: one solution per wrapped joint vector. */
static int unique_wrapped(const Model *m, ModelIkSolution *s, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (find(m, s, k, s[i].q) < 0) s[k++] = s[i];
    return k;
}

static ModelIkSolution sa[MODEL_IK_MAX_SOLUTIONS], sb[MODEL_IK_MAX_SOLUTIONS];

static void closed_form_arm(const char *urdf, int poses)
{
    Model m;
    int loaded = load(&m, urdf);
    CHECK(loaded);
    if (!loaded) return;
    int n = m.dof, total = 0, max_count = 0, set_ok = 0, fk_ok = 0, origin_ok = 0, cfg_ok = 0;
    double worst_p = 0, worst_r = 0;
    for (int t = 0; t < poses; t++) {
        double q0[MODEL_MAX_DOF], ref[MODEL_MAX_DOF] = {0}, pos[3], R[9], quat[4];
        random_q(&m, q0);
        model_fk(&m, q0, -1, pos, R);
        m3_to_quat(quat, R);
        ModelIkWhy why;
        int k = chain_ik_all_method(m.state, pos, quat, ref, 1, 0, sa, MODEL_IK_MAX_SOLUTIONS, &why);
        CHECK(k > 0 && why.method == 1);
        if (k <= 0) break;
        int ok = 1;
        for (int i = 0; i < k; i++) {
            double ep, er;
            pose_err(&m, sa[i].q, pos, R, &ep, &er);
            worst_p = fmax(worst_p, ep), worst_r = fmax(worst_r, er);
            ok &= ep <= 1e-9 && er <= 1e-9 && sa[i].config >= 0;
            if (i) ok &= sa[i].dist >= sa[i - 1].dist;
        }
        fk_ok += ok;
        int u = unique_wrapped(&m, sa, k);
        /* the configurations of the distinct solutions differ, and there are at most 8 */
        int cfgs = 1;
        for (int i = 0; i < u; i++)
            for (int j = 0; j < i; j++) cfgs &= sa[i].config != sa[j].config;
        cfg_ok += cfgs && u <= 8;
        if (!cfgs)
            for (int i = 0; i < u; i++)
                printf("#   pose %d: config %d: %.4f %.4f %.4f %.4f %.4f %.4f\n", t, sa[i].config, sa[i].q[0], sa[i].q[1],
                       sa[i].q[2], sa[i].q[3], sa[i].q[4], sa[i].q[5]);
        origin_ok += find(&m, sa, u, q0) >= 0;
        max_count = u > max_count ? u : max_count;
        total += u;
        /* the numerical search finds the same set */
        int kb = chain_ik_all_method(m.state, pos, quat, ref, 2, 400, sb, MODEL_IK_MAX_SOLUTIONS, &why);
        int ub = unique_wrapped(&m, sb, kb), same = ub == u;
        for (int i = 0; i < ub && same; i++) same = find(&m, sa, u, sb[i].q) >= 0;
        if (!same) printf("#   %s pose %d: closed form %d solutions, search %d\n", urdf ? urdf : "puma", t, u, ub);
        set_ok += same;
    }
    printf("#   %s (%d joints): %d poses, %d solutions (at most %d per pose), worst FK error %.2g m, %.2g rad\n",
           urdf ? urdf : "PUMA 560", n, poses, total, max_count, worst_p, worst_r);
    CHECK(fk_ok == poses);
    CHECK(origin_ok == poses);
    CHECK(cfg_ok == poses);
    CHECK(set_ok == poses);
    CHECK(max_count >= 4 && max_count <= 8);
    model_close(&m);
}

UTEST(puma_closed_form) { closed_form_arm(NULL, 40); }
UTEST(irb120_closed_form) { closed_form_arm("abbIrb120.urdf", 20); }
UTEST(irb2400_closed_form) { closed_form_arm("irb2400.urdf", 20); }
UTEST(kr120_closed_form) { closed_form_arm("kr120r2500pro.urdf", 20); }
UTEST(mh5_closed_form) { closed_form_arm("yaskawaMotomanMH5.urdf", 20); }

/* ik_all: the nearest solution first, the ones beyond a limit flagged with the joint; each configuration named. */
UTEST(nearest_within_limits_and_config)
{
    Model m;
    int loaded = load(&m, NULL);
    CHECK(loaded);
    if (!loaded) return;
    double q0[6] = {0.3, 0.4, -0.9, 0.5, 0.7, -0.4}, pos[3], R[9], quat[4];
    model_fk(&m, q0, -1, pos, R);
    m3_to_quat(quat, R);
    /* from a reference near q0 the first solution is q0 */
    double ref[6] = {0.35, 0.45, -0.95, 0.45, 0.75, -0.35};
    ModelIkWhy why;
    int k = model_ik_all(&m, pos, quat, ref, sa, MODEL_IK_MAX_SOLUTIONS, &why);
    CHECK(k >= 8);
    CHECK(find(&m, sa, 1, q0) == 0);
    /* from the other side (wrist flipped, shoulder back) the first is another solution, the nearest */
    double ref2[6] = {0.3 + M_PI, 0.4, -0.9, 0.5 + M_PI, -0.7, -0.4 + M_PI};
    int k2 = model_ik_all(&m, pos, quat, ref2, sb, MODEL_IK_MAX_SOLUTIONS, &why);
    CHECK(k2 == k);
    CHECK(find(&m, sb, 1, q0) < 0);
    double best = INFINITY;
    for (int i = 0; i < k2; i++) {
        double d2 = 0;
        for (int j = 0; j < 6; j++) d2 += (sb[i].q[j] - ref2[j]) * (sb[i].q[j] - ref2[j]);
        best = fmin(best, sqrt(d2));
    }
    CHECK_NEAR(sb[0].dist, best, 1e-12);
    /* every one of the 8 configurations occurs, and a limit-violating solution names its joint */
    int seen = 0, flagged = 0;
    for (int i = 0; i < k; i++) {
        if (sa[i].config >= 0 && sa[i].config < 8) seen |= 1 << sa[i].config;
        if (sa[i].limit_joint >= 0) {
            const ModelAxisLimits *l = &m.desc.joint[sa[i].limit_joint].limits;
            double x = sa[i].q[sa[i].limit_joint];
            flagged += (x < l->min || x > l->max) && fabs(fmax(l->min - x, x - l->max) - sa[i].limit_excess) < 1e-12;
        } else {
            for (int j = 0; j < 6; j++)
                CHECK(sa[i].q[j] >= m.desc.joint[j].limits.min && sa[i].q[j] <= m.desc.joint[j].limits.max);
        }
    }
    printf("#   PUMA: %d solutions, configurations seen 0x%x, %d beyond a limit\n", k, seen, flagged);
    CHECK(seen == 0xff);
    /* q0's configuration: front, elbow up (PUMA q3 = -0.9 bends up), no flip (q5 > 0); turns: q3, q6 negative */
    int i0 = find(&m, sa, k, q0);
    CHECK(i0 >= 0);
    if (i0 >= 0) {
        printf("#   q0 config %d turn 0x%x\n", sa[i0].config, sa[i0].turn);
        CHECK(!(sa[i0].config & MODEL_CFG_FLIP));
        CHECK(sa[i0].turn == ((1 << 2) | (1 << 5)));
    }
    model_close(&m);
}

/* A pose out of reach: no solution, the excess in m. */
UTEST(out_of_reach_excess)
{
    Model m;
    int loaded = load(&m, NULL);
    CHECK(loaded);
    if (!loaded) return;
    double q0[6] = {0.3, 0.4, -0.9, 0.5, 0.7, -0.4}, pos[3], R[9], quat[4], ref[6] = {0};
    model_fk(&m, q0, -1, pos, R);
    m3_to_quat(quat, R);
    double far[3] = {pos[0] * 10, pos[1] * 10, pos[2]};
    ModelIkWhy why;
    int k = model_ik_all(&m, far, quat, ref, sa, MODEL_IK_MAX_SOLUTIONS, &why);
    CHECK(k == 0);
    printf("#   target at %.3g m: out of reach by %.4g m\n", v3_norm(far), why.reach_excess);
    CHECK(why.reach_excess > 0.5 * (v3_norm(far) - 1.0) && why.reach_excess < v3_norm(far));
    model_close(&m);
}

/* The UR5 (no spherical wrist): the search, every answer within 1e-9 by FK, q0 among them. */
UTEST(ur5_search)
{
    Model m;
    int loaded = load(&m, "universalUR5.urdf");
    CHECK(loaded);
    if (!loaded) return;
    int origin = 0, poses = 10, most = 0;
    for (int t = 0; t < poses; t++) {
        double q0[6], ref[6] = {0}, pos[3], R[9], quat[4];
        random_q(&m, q0);
        model_fk(&m, q0, -1, pos, R);
        m3_to_quat(quat, R);
        ModelIkWhy why;
        CHECK(chain_ik_all_method(m.state, pos, quat, ref, 1, 0, sa, 8, &why) == MODEL_ENOTSUP);
        int k = model_ik_all(&m, pos, quat, ref, sa, MODEL_IK_MAX_SOLUTIONS, &why);
        CHECK(k > 0 && why.method == 2);
        for (int i = 0; i < k; i++) {
            double ep, er;
            pose_err(&m, sa[i].q, pos, R, &ep, &er);
            CHECK(ep <= 1e-9 && er <= 1e-9);
            CHECK(sa[i].config == -1);
        }
        int u = unique_wrapped(&m, sa, k);
        most = u > most ? u : most;
        origin += find(&m, sa, u, q0) >= 0;
    }
    printf("#   UR5: q0 found at %d of %d poses, at most %d solutions\n", origin, poses, most);
    CHECK(origin == poses);
    model_close(&m);
}

/* A 7R arm (KUKA iiwa-like DH): the search finds solutions within the limits, the reference's own pose gives the
 * reference back first. */
UTEST(seven_axis_search)
{
    ModelDesc *d = malloc(sizeof *d);
    model_desc_init(d);
    snprintf(d->backend, sizeof d->backend, "chain");
    d->njoints = 7;
    static const double dz[7] = {0.34, 0, 0.4, 0, 0.4, 0, 0.126};
    static const double al[7] = {-M_PI / 2, M_PI / 2, M_PI / 2, -M_PI / 2, -M_PI / 2, M_PI / 2, 0};
    static const double lim[7] = {2.96, 2.09, 2.96, 2.09, 2.96, 2.09, 3.05};
    for (int i = 0; i < 7; i++) {
        ModelJoint *j = &d->joint[i];
        model_joint_init(j);
        snprintf(j->name, sizeof j->name, "A%d", i + 1);
        j->parent = i - 1;
        j->type = MODEL_REVOLUTE;
        double prev_al = i ? al[i - 1] : 0;
        j->origin_xyz[2] = i ? dz[i - 1] : 0;
        m3_axis_angle(j->origin_R, (double[3]){1, 0, 0}, prev_al);
        j->limits.min = -lim[i], j->limits.max = lim[i];
        j->mass = 1;
        for (int k = 0; k < 9; k += 4) j->inertia[k] = 0.01;
    }
    d->tool_xyz[2] = dz[6];
    Model m;
    char err[256];
    int st = model_open(&m, d, err, sizeof err);
    free(d);
    if (st < 0) printf("#   %s\n", err);
    CHECK(st == MODEL_OK);
    double q0[7] = {0.2, 0.5, -0.3, -1.2, 0.4, 0.8, 0.1}, pos[3], R[9], quat[4];
    model_fk(&m, q0, -1, pos, R);
    m3_to_quat(quat, R);
    ModelIkWhy why;
    int k = model_ik_all(&m, pos, quat, q0, sa, MODEL_IK_MAX_SOLUTIONS, &why);
    CHECK(k > 1 && why.method == 2);
    CHECK(sa[0].dist < 1e-6);
    int in = 0;
    for (int i = 0; i < k; i++) {
        double ep, er;
        pose_err(&m, sa[i].q, pos, R, &ep, &er);
        CHECK(ep <= 1e-9 && er <= 1e-9);
        in += sa[i].limit_joint < 0;
    }
    printf("#   7R: %d solutions, %d within the limits\n", k, in);
    CHECK(in > 1);
    model_close(&m);
}

int main(void)
{
    RUN(puma_closed_form);
    RUN(irb120_closed_form);
    RUN(irb2400_closed_form);
    RUN(kr120_closed_form);
    RUN(mh5_closed_form);
    RUN(nearest_within_limits_and_config);
    RUN(out_of_reach_excess);
    RUN(ur5_search);
    RUN(seven_axis_search);
    return utest_done();
}
