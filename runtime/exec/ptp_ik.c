/* ptp_ik.c — the joint target of a PTP to a pose (ptp_ik.h): the solution nearest the current joints (Euclidean
 * distance in joint space) among those within the limits and of the configuration and turns asked for; a failure
 * names the pose (position in m, orientation as ORIZYX in deg) and why: out of reach by how much, beyond which
 * joint's limit, no solution of the configuration asked for, or singular. */
#include "exec/ptp_ik.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dmath.h"
#include "errcodes.h"
#include "geom.h"
#include "output/display.h"

const char *ptp_ik_config_text(int config, char *buf, size_t len)
{
    if (config < 0) snprintf(buf, len, "none");
    else
        snprintf(buf, len, "%s, elbow %s, %s", config & MODEL_CFG_BACK ? "back" : "front",
                 config & MODEL_CFG_ELBOW_DOWN ? "down" : "up", config & MODEL_CFG_FLIP ? "flip" : "no flip");
    return buf;
}

/* The pose as the program wrote it: POS(x m, y m, z m) ORIZYX(a deg, b deg, c deg) (R = Rz(a) Ry(b) Rx(c)). */
static void pose_text(char *buf, size_t len, const double p[3], const double quat[4])
{
    double R[9], qn = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    double u[4] = {quat[0] / qn, quat[1] / qn, quat[2] / qn, quat[3] / qn};
    quat_to_m3(R, u);
    double b = dm_asin(fmax(-1, fmin(1, -R[6]))), a = dm_atan2(R[3], R[0]), c = dm_atan2(R[7], R[8]);
    /* + 0.0 turns -0 into 0 */
    snprintf(buf, len, "POS(%.6g m, %.6g m, %.6g m) ORIZYX(%.6g deg, %.6g deg, %.6g deg)", p[0] + 0.0, p[1] + 0.0,
             p[2] + 0.0, a * DISPLAY_DEG_PER_RAD + 0.0, b * DISPLAY_DEG_PER_RAD + 0.0, c * DISPLAY_DEG_PER_RAD + 0.0);
}

static int wanted(const ModelIkSolution *s, PtpIkWant w, int dof)
{
    if (w.config >= 0 && s->config != w.config) return 0;
    if (w.turn >= 0) {
        long mask = dof >= 31 ? 0x7fffffffL : (1L << dof) - 1;
        if ((s->turn & mask) != (w.turn & mask)) return 0;
    }
    return 1;
}

int ptp_ik_solve(Model *m, const double pos[3], const double quat[4], const double pos_prog[3],
                 const double quat_prog[4], const double *q_now, PtpIkWant want, double *q, int degrees,
                 const char *what, char *msg, size_t msglen)
{
    ModelIkSolution sol[MODEL_IK_MAX_SOLUTIONS];
    ModelIkWhy why;
    char pose[160], cfg[64];
    pose_text(pose, sizeof pose, pos_prog, quat_prog);
    int k = model_ik_all(m, pos, quat, q_now, sol, MODEL_IK_MAX_SOLUTIONS, &why);
    if (k < 0) {
        snprintf(msg, msglen, "%s: inverse kinematics failed for the target %s: %s", what, pose, model_strerror(k));
        return IRL_ERR_IK;
    }
    if (k == 0) {
        if (why.singular)
            snprintf(msg, msglen, "%s: the target %s is singular and out of reach by %.3g m", what, pose,
                     why.reach_excess);
        else if (why.reach_excess > 0 && isfinite(why.reach_excess))
            snprintf(msg, msglen, "%s: the target %s is out of reach by %.3g m%s", what, pose, why.reach_excess,
                     why.method == 2 ? " (the nearest the numerical search came)" : "");
        else snprintf(msg, msglen, "%s: no inverse-kinematics solution for the target %s", what, pose);
        return IRL_ERR_IK;
    }
    if (want.config >= 0 && sol[0].config < 0) {
        snprintf(msg, msglen, "%s: WITH CONFIG names a configuration, which this device does not have (6-axis arms "
                 "with a spherical wrist have one); the target %s", what, pose);
        return IRL_ERR_IK;
    }
    /* the nearest (the list is sorted) within the limits and as asked; else the nearest as asked, for the message */
    int best = -1, any = -1;
    for (int i = 0; i < k; i++) {
        if (!wanted(&sol[i], want, m->dof)) continue;
        if (any < 0 || sol[i].limit_excess < sol[any].limit_excess) any = i;
        if (sol[i].limit_joint < 0) { best = i; break; }
    }
    if (best >= 0) {
        memcpy(q, sol[best].q, (size_t)m->dof * sizeof *q);
        return 0;
    }
    if (any < 0) {
        char got[256] = "";
        size_t o = 0;
        int seen = 0;
        for (int i = 0; i < k && o < sizeof got - 40; i++)
            if (sol[i].config >= 0 && !(seen & 1 << sol[i].config)) {
                seen |= 1 << sol[i].config;
                o += (size_t)snprintf(got + o, sizeof got - o, "%s%d", o ? ", " : "", sol[i].config);
            }
        if (want.config >= 0)
            snprintf(msg, msglen, "%s: no solution of CONFIG %d (%s)%s for the target %s; its solutions have CONFIG %s",
                     what, want.config, ptp_ik_config_text(want.config, cfg, sizeof cfg),
                     want.turn >= 0 ? " and the TURN asked for" : "", pose, got[0] ? got : "none");
        else
            snprintf(msg, msglen, "%s: no solution with TURN %ld for the target %s", what, want.turn, pose);
        return IRL_ERR_IK;
    }
    const ModelJoint *j = &m->desc.joint[sol[any].limit_joint];
    double x = sol[any].q[sol[any].limit_joint];
    DisplayUnit du = display_axis(j->type == MODEL_PRISMATIC, 0, degrees);
    double lim = x < j->limits.min ? j->limits.min : j->limits.max;
    snprintf(msg, msglen,
             "%s: every solution for the target %s is beyond a joint limit; the nearest (configuration %s) needs "
             "joint %s at %.6g %s, beyond its limit %.6g %s by %.3g %s",
             what, pose, ptp_ik_config_text(sol[any].config, cfg, sizeof cfg), j->name, x * du.k, du.unit,
             lim * du.k, du.unit, sol[any].limit_excess * du.k, du.unit);
    return IRL_ERR_JOINT_LIMIT;
}
