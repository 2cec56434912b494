/* ptp_ik.h — the joint target of a PTP to a pose: every inverse-kinematics solution considered, the one nearest the
 * current joints within the limits taken (or the one of the configuration and turns the statement names), and a
 * failure that says why, with the pose. */
#ifndef IRL_PTP_IK_H
#define IRL_PTP_IK_H

#include <stddef.h>

#include "model.h"

/* What the statement asks of the solution: config (MODEL_CFG_* bits) and turn (bit i: joint i negative), each -1
 * when not named. */
typedef struct {
    int config;
    long turn;
} PtpIkWant;

/* The target pose in the model frame pos/quat (w, x, y, z); shown (the program frame, as written) in messages as
 * pos_prog/quat_prog. q_now: the joints the PTP starts from. On success q holds the joints and the result is 0;
 * otherwise an IRL_ERR_* code with msg, prefixed with `what` (a revolute joint's values in degrees when `degrees`,
 * else in rad). */
int ptp_ik_solve(Model *m, const double pos[3], const double quat[4], const double pos_prog[3],
                 const double quat_prog[4], const double *q_now, PtpIkWant want, double *q, int degrees,
                 const char *what, char *msg, size_t msglen);

/* The configuration as text ("front, elbow up, no flip"; "none" for -1) into buf. */
const char *ptp_ik_config_text(int config, char *buf, size_t len);

#endif
