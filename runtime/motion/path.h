/* path.h — one planned segment (PlannerSegment: PTP, LIN or CIRC, immutable once published) and the pose of a
 * LIN/CIRC segment at its path parameter s (a line or a circle, the orientation by slerp): the pose of the TCP the
 * segment was planned with, converted to the model's tool point right before IK (planner_tcp_to_flange). Shared by the planner
 * (planner.c), its blend checks (planner_blend.c) and the interpolator (interpolator.c); the pose functions are
 * inline because the interpolator's IK point calls them every cycle. */
#ifndef IRL_PATH_H
#define IRL_PATH_H

#include <math.h>
#include <string.h>

#include "dmath.h"
#include "geom.h"
#include "model.h"
#include "motion/profile.h"

#define PLANNER_MAX_AXES 12       /* the language's JOINT holds at most 12 axes */
#define PLANNER_PATH_SAMPLES 32   /* intervals of the joint-space pre-sampling of a Cartesian path */
#define PLANNER_TRIG 128          /* intervals of a CIRC's table of cos, sin of its angle (the per-cycle path pose) */
#define PLANNER_SPLINE_MAX 33     /* knots of a SPLINE: where it starts and up to 32 points */
#define PLANNER_SPLINE_DIM PLANNER_MAX_AXES /* components: x y z qw qx qy qz (SPLINE) or the axes (JOINT SPLINE) */
#define PLANNER_SPLINE_ARC 256    /* intervals of a SPLINE's table of path length */

typedef enum { PLANNER_PTP, PLANNER_LIN, PLANNER_CIRC,
               PLANNER_SPLINE, PLANNER_JSPLINE /* trajectories as data: Cartesian and joint-space SPLINE */
} PlannerKind;

/* Is a segment of this kind a Cartesian path sampled by IK (LIN, CIRC, SPLINE)? */
static inline int planner_kind_cartesian(PlannerKind k)
{
    return k == PLANNER_LIN || k == PLANNER_CIRC || k == PLANNER_SPLINE;
}

/* Where a segment came from: the MOVE statement's file, line and column (file is borrowed, not copied). */
typedef struct {
    const char *file;
    int line, col;
} PlannerSrc;

/* One segment, immutable once published. */
typedef struct {
    PlannerKind kind;    /* the segment's kind */
    int id;
    PlannerSrc src;
    int n;                           /* axes */
    double T;                        /* duration, s */
    double zone_t;                   /* local time from which a successor may blend in (T: exact stop) */
    double overlap;                  /* s of overlap with the predecessor when blended (0: none) */
    double acc_req;                  /* the acceleration planned: ACC (m/s^2) or the ACC_PTP fraction */
    double approx_req;               /* APPROX (m) or APPROX_PTP (fraction) requested */
    double length;                   /* LIN/CIRC: path length, m */
    int ik_target;                   /* PTP: its target was a pose solved by IK (PlannerParams.ik_target) */
    double sing_target;              /* ... and the singularity measure there */
    double q0[PLANNER_MAX_AXES];     /* joint start (the previous segment's programmed end) */
    double q1[PLANNER_MAX_AXES];     /* joint end */
    Profile ax[PLANNER_MAX_AXES];    /* PTP: one synchronised profile per axis */
    Profile path;                    /* LIN/CIRC: the path parameter s from 0 to 1 */
    double p0[3], p1[3];             /* LIN/CIRC: start and target position */
    double quat0[4], quat1[4];       /* start and target orientation (quat1 on quat0's side of the sphere) */
    double omega;                    /* half the rotation angle between them (slerp angle) */
    double centre[3], e1[3], e2[3];  /* CIRC: p(s) = centre + r (cos(phi s) e1 + sin(phi s) e2) */
    double radius, phi;
    int ntrig;                       /* CIRC: PLANNER_TRIG when trig holds cos, sin of phi k / PLANNER_TRIG for k = 0 ..
                                        PLANNER_TRIG (the path pose then steps from the nearest), 0: libm only */
    double trig[PLANNER_TRIG + 1][2];
    double qs[PLANNER_PATH_SAMPLES + 1][PLANNER_MAX_AXES]; /* LIN/CIRC: q at s = k / PLANNER_PATH_SAMPLES */
    int has_tool;                    /* the pose of the TCP in the model's tool frame (planner_set_tool) is not the */
    double tool[7];                  /* identity: x y z qw qx qy qz; a LIN/CIRC's path is then this TCP's */
    /* SPLINE, JOINT SPLINE: natural cubic splines of every component through nk knots at path parameters knot[]
     * (chord length, scaled to [0, 1]); on interval k, component c is cf[k][c][0] + h (cf[k][c][1] + h (cf[k][c][2]
     * + h cf[k][c][3])) with h = s - knot[k] */
    int nk, ncomp;
    double knot[PLANNER_SPLINE_MAX];
    double cf[PLANNER_SPLINE_MAX - 1][PLANNER_SPLINE_DIM][4];
    double arc[PLANNER_SPLINE_ARC + 1]; /* SPLINE: path length from the start at s = k / PLANNER_SPLINE_ARC, m */
} PlannerSegment;

/* Components of a SPLINE segment at path parameter s (the end intervals continued beyond [0, 1]) into v, and their
 * first and second derivatives in s into d1, d2 (either may be NULL). */
static inline void planner_spline_at(const PlannerSegment *g, double s, double *v, double *d1, double *d2)
{
    int lo = 0, hi = g->nk - 2;          /* the interval: the last knot at or before s */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (g->knot[mid] <= s) lo = mid;
        else hi = mid - 1;
    }
    double h = s - g->knot[lo];
    for (int c = 0; c < g->ncomp; c++) {
        const double *k = g->cf[lo][c];
        v[c] = k[0] + h * (k[1] + h * (k[2] + h * k[3]));
        if (d1) d1[c] = k[1] + h * (2 * k[2] + h * 3 * k[3]);
        if (d2) d2[c] = 2 * k[2] + 6 * h * k[3];
    }
}

/* The path parameter at which a LIN, CIRC or SPLINE has covered the path length len (clamped to [0, 1]). */
static inline double planner_s_at_length(const PlannerSegment *g, double len)
{
    if (!(g->length > 0) || len <= 0) return 0;
    if (len >= g->length) return 1;
    if (g->kind != PLANNER_SPLINE) return len / g->length;
    int lo = 0, hi = PLANNER_SPLINE_ARC;  /* arc[lo] <= len < arc[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (g->arc[mid] <= len) lo = mid;
        else hi = mid;
    }
    double f = (len - g->arc[lo]) / (g->arc[hi] - g->arc[lo]);
    return (lo + f) / PLANNER_SPLINE_ARC;
}

/* Spherical linear interpolation from a to b (b already on a's side), half-angle omega. */
static inline __attribute__((always_inline)) void planner_slerp(double r[4], const double a[4], const double b[4],
                                                                double omega, double s)
{
    double ka, kb;
    if (omega < 1e-6) {         /* nearly equal: normalised linear interpolation (error O(omega^3)) */
        ka = 1 - s;
        kb = s;
    } else {
        double so = dm_sin(omega);
        ka = dm_sin((1 - s) * omega) / so;
        kb = dm_sin(s * omega) / so;
    }
    double x[4];   /* r may alias a or b: every component computed first */
    for (int i = 0; i < 4; i++) x[i] = ka * a[i] + kb * b[i];
    double n = 1.0 / sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
    for (int i = 0; i < 4; i++) r[i] = x[i] * n;
}


/* The same path continued beyond [0, 1] (line, circle and slerp extended; no clamping, no exact endpoints). */
static inline __attribute__((always_inline)) void planner_path_pose_ext(const PlannerSegment *g, double s,
                                                                        double pos[3], double quat[4])
{
    double x, y, z;
    if (g->kind == PLANNER_SPLINE) {   /* position and quaternion components, the quaternion normalised */
        double v[PLANNER_SPLINE_DIM];
        planner_spline_at(g, s, v, NULL, NULL);
        double n = 1.0 / sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
        pos[0] = v[0], pos[1] = v[1], pos[2] = v[2];
        for (int i = 0; i < 4; i++) quat[i] = v[3 + i] * n;
        return;
    }
    if (g->kind == PLANNER_CIRC) {
        double a = g->phi * s, c, d;
        if (g->ntrig == PLANNER_TRIG && s >= 0 && s <= 1) {
            /* cos and sin of a from the nearest node of the table (|u| <= pi / PLANNER_TRIG: the series' next terms,
             * u^8 / 8! and u^9 / 9!, are below 4e-18) instead of libm's sincos (a third of its cost) */
            int k = (int)(s * PLANNER_TRIG + 0.5);
            double u = a - g->phi * k / PLANNER_TRIG, u2 = u * u;
            double cu = 1 - u2 * (1.0 / 2 - u2 * (1.0 / 24 - u2 * (1.0 / 720)));
            double su = u * (1 - u2 * (1.0 / 6 - u2 * (1.0 / 120 - u2 * (1.0 / 5040))));
            const double *t = g->trig[k];
            c = g->radius * (t[0] * cu - t[1] * su);
            d = g->radius * (t[1] * cu + t[0] * su);
        } else {
            dm_sincos(a, &d, &c);
            c *= g->radius, d *= g->radius;
        }
        x = g->centre[0] + c * g->e1[0] + d * g->e2[0];
        y = g->centre[1] + c * g->e1[1] + d * g->e2[1];
        z = g->centre[2] + c * g->e1[2] + d * g->e2[2];
    } else {
        x = g->p0[0] + s * (g->p1[0] - g->p0[0]);
        y = g->p0[1] + s * (g->p1[1] - g->p0[1]);
        z = g->p0[2] + s * (g->p1[2] - g->p0[2]);
    }
    pos[0] = x, pos[1] = y, pos[2] = z;
    planner_slerp(quat, g->quat0, g->quat1, g->omega, s);
}


/* Pose of a LIN/CIRC segment at path parameter s in [0, 1] (exact endpoints at 0 and 1). */
static inline __attribute__((always_inline)) void planner_path_pose(const PlannerSegment *g, double s, double pos[3],
                                                                    double quat[4])
{
    if (s <= 0) {
        v3_copy(pos, g->p0);
        memcpy(quat, g->quat0, 4 * sizeof *quat);
    } else if (s >= 1) {
        v3_copy(pos, g->p1);
        memcpy(quat, g->quat1, 4 * sizeof *quat);
    } else {
        planner_path_pose_ext(g, s, pos, quat);
    }
}


/* The model's tool point (what IK and FK solve for) whose TCP is at pos, quat: the pose times INV(tool). Nothing is
 * computed when the segment has no tool, so a tool-less run's arithmetic is the same to the bit. */
static inline __attribute__((always_inline)) void planner_tcp_to_flange(const PlannerSegment *g, double pos[3],
                                                                        double quat[4])
{
    if (!g->has_tool) return;
    const double *t = g->tool;
    double ct[4] = {t[3], -t[4], -t[5], -t[6]}, q[4], R[9], d[3];
    quat_mul(q, quat, ct);
    double n = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) quat[i] = q[i] * n;
    quat_to_m3(R, quat);
    m3_mulv(d, R, t);
    v3_sub(pos, pos, d);
}

/* The inverse: the TCP of the model's tool point at pos, quat (the pose times tool). */
static inline void planner_flange_to_tcp(const PlannerSegment *g, double pos[3], double quat[4])
{
    if (!g->has_tool) return;
    const double *t = g->tool;
    double R[9], d[3], q[4];
    quat_to_m3(R, quat);
    m3_mulv(d, R, t);
    v3_add(pos, pos, d);
    quat_mul(q, quat, t + 3);
    double n = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) quat[i] = q[i] * n;
}

/* The model's tool point on a LIN/CIRC segment at s in [0, 1]: the path pose (the TCP's) converted for IK. */
static inline __attribute__((always_inline)) void planner_path_flange(const PlannerSegment *g, double s, double pos[3],
                                                                      double quat[4])
{
    planner_path_pose(g, s, pos, quat);
    planner_tcp_to_flange(g, pos, quat);
}


/* Pose of the tool at q by forward kinematics (quaternion w >= 0). */
static inline int planner_fk_pose(Model *m, const double *q, double pos[3], double quat[4])
{
    double R[9];
    int st = model_fk(m, q, -1, pos, R);
    if (st < 0) return st;
    m3_to_quat(quat, R);
    return 0;
}

#endif
