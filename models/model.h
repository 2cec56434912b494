/* model.h — the contract every kinematic/dynamic back-end implements, the plain machine description the
 * machine-file readers (.irm, URDF) hand to a back-end, and the registry of back-ends by name.
 *
 * A back-end is a const ModelType (name + operations) plus opaque state created once from a ModelDesc
 * (GSL's gsl_rng_type / gsl_rng pattern). All allocation happens in create(); every other operation works in
 * the state's preallocated workspace, so the real-time cycle may call them. An operation a back-end does not
 * offer is a NULL pointer; the model_* wrappers turn that into MODEL_ENOTSUP.
 *
 * Conventions: SI units; q is the vector of the machine's joint coordinates as the planner sees them (for a
 * parallel mechanism the back-end chooses: the stewart back-end's are the platform pose, its legs are outputs);
 * tau is the generalized force conjugate to q (joint torque, prismatic force). Matrices are row-major doubles.
 * Rotations are 3x3 row-major; quaternions are (w, x, y, z). Status: >= 0 success, < 0 one of MODEL_E*.
 *
 * Back-ends never include the parser: the readers live in src/ and only fill a ModelDesc. */
#ifndef IRL_MODEL_H
#define IRL_MODEL_H

#include <stddef.h>

#define MODEL_MAX_DOF 64      /* joints in one machine (the 30-link benchmark chain fits) */
#define MODEL_MAX_PARAMS 64   /* back-end specific named parameters */
#define MODEL_MAX_PARAM_LEN 64 /* numbers in one parameter (e.g. 6 Stewart anchor points = 18) */
#define MODEL_MAX_OUTPUTS 32  /* named extra outputs and output limits (G-load; a Stewart platform's 6 leg lengths,
                               * 6 leg speeds and 6 leg forces are 18) */
#define MODEL_NAME_LEN 64

enum {
    MODEL_OK = 0,
    MODEL_ENOTSUP = -1,   /* the back-end does not offer this operation */
    MODEL_EINVAL = -2,    /* bad argument or description */
    MODEL_EUNREACH = -3,  /* IK: target out of reach or did not converge */
    MODEL_ESINGULAR = -4, /* singular configuration (Jacobian, mass matrix) */
    MODEL_ENOMEM = -5,
    MODEL_ENUMERIC = -6,  /* a GSL routine failed */
};

typedef enum { MODEL_REVOLUTE, MODEL_PRISMATIC } ModelJointType;

/* Per-axis limits; an absent limit is INFINITY (min: -INFINITY). */
typedef struct {
    double min, max;   /* position, rad or m */
    double vmax;       /* speed */
    double amax;       /* acceleration */
    double jmax;       /* jerk */
    double effort;     /* torque (Nm) or force (N), symmetric */
} ModelAxisLimits;

/* Joint friction (docs/MODELS.md §5.4), in the joint's own torque (force), opposing motion:
 *   tau_f(qd) = viscous qd + c_avg tanh(qd / MODEL_FRICTION_VBAND) + c_dif tanh^2(qd / MODEL_FRICTION_VBAND),
 *   c_avg = (coulomb_pos + coulomb_neg) / 2, c_dif = (coulomb_pos - coulomb_neg) / 2:
 * Coulomb friction coulomb_pos when qd > 0 and -coulomb_neg when qd < 0 (Corke's asymmetric Tc+ / Tc-), smoothed
 * through 0 (a C-infinity curve, 0 at qd = 0) so that GSL's ODE steppers see no discontinuity. For |qd| >= 19.1
 * MODEL_FRICTION_VBAND tanh rounds to exactly +-1 and the law is exactly viscous qd + Tc+- sign(qd). All zero (the
 * default): frictionless. All three >= 0 and finite. The model_* wrappers apply it for every back-end (below). */
typedef struct {
    double viscous;     /* Nm s/rad (N s/m) */
    double coulomb_pos; /* Nm (N), magnitude when qd > 0 */
    double coulomb_neg; /* Nm (N), magnitude when qd < 0 */
} ModelFriction;

#define MODEL_FRICTION_VBAND 1e-3 /* rad/s (m/s): the Coulomb term's smoothing speed */

/* DC motor with gearbox (seed 002): present == 0 when the machine file gives none. */
typedef struct {
    int present;
    double resistance;    /* ohm */
    double inductance;    /* H */
    double kt;            /* torque constant, Nm/A */
    double ke;            /* back-EMF constant, V s/rad */
    double gear;          /* gear ratio N: joint speed = motor speed / N */
    double rotor_inertia; /* kg m^2, at the motor shaft */
    double vmax;          /* voltage limit, V */
} ModelMotor;

/* One joint and the link it moves (URDF's joint + child link). The joint frame sits at origin_xyz/origin_R
 * in the parent link's frame at q = 0; the link frame is the joint frame moved by q about/along `axis`
 * (a unit vector in the joint frame). The link's inertial data are in the link frame. */
typedef struct {
    char name[MODEL_NAME_LEN];
    char link[MODEL_NAME_LEN];  /* name of the link this joint moves */
    int parent;                 /* index of the parent joint, -1 for the base */
    ModelJointType type;
    double origin_xyz[3];
    double origin_R[9];
    double axis[3];
    double mass;
    double com[3];              /* centre of mass in the link frame */
    double inertia[9];          /* inertia tensor about the centre of mass, link frame axes */
    int powered;                /* 0: passive, unpowered joint (seed 002 semi-inverse problem) */
    double home;                /* start position */
    ModelAxisLimits limits;
    ModelMotor motor;
    ModelFriction friction;     /* zero = frictionless */
    double ferror;              /* limit on the closed-loop following error |setpoint - actual|, rad or m (LinuxCNC's
                                 * FERROR), checked by `irl run --closed-loop` only; INFINITY (default) or 0: none */
    int mimic_of;               /* 1 + the index of the joint this one follows (URDF <mimic>): q = mimic_mult q_leader
                                 * + mimic_offset; not an axis of the planner. 0 (default): an axis of its own */
    double mimic_mult, mimic_offset;
} ModelJoint;

/* A named back-end parameter: a number or a short list (e.g. "arm_length", "base_anchors"). A back-end that refuses
 * one says so as "bad parameter NAME: why" in its message (MODEL_PARAM_BAD); the machine-file reader puts that at
 * the PARAM's file:line:col with its value and unit (or at the MACHINE line when the PARAM is missing). */
typedef struct {
    char name[MODEL_NAME_LEN];
    int n;
    double v[MODEL_MAX_PARAM_LEN];
    char unit[24];  /* the SI unit the numbers were written in ("m", "kg*m^2", "rad"); "": bare numbers or a word */
} ModelParam;

#define MODEL_PARAM_BAD "bad parameter " /* the prefix of a refused PARAM's reason, followed by "NAME: why" */

/* Limits on a named extra output (e.g. "G" max 9, "Gdot" max 6 G/s), in the output's own units. */
typedef struct {
    char name[MODEL_NAME_LEN];
    double min, max;
} ModelOutputLimit;

/* The plain description of one machine. Filled by a reader or by hand (tests); copied by create(). */
typedef struct {
    char name[MODEL_NAME_LEN];
    char backend[MODEL_NAME_LEN];  /* registry name: "chain", "centrifuge", ... */
    char source[256];              /* file it came from, for messages */
    double gravity[3];             /* default (0, 0, -9.81) */
    int njoints;
    ModelJoint joint[MODEL_MAX_DOF];
    int tool_link;                 /* joint index whose link carries the tool; -1 = the last joint */
    double tool_xyz[3];
    double tool_R[9];
    int nparams;
    ModelParam param[MODEL_MAX_PARAMS];
    int noutput_limits;
    ModelOutputLimit output_limit[MODEL_MAX_OUTPUTS];
    char inertia_missing[256];     /* moving links the file gives no inertial data for, comma-separated; "": none.
                                    * Their bodies count as massless, so the torque check is incomplete */
} ModelDesc;

/* Result of inverse kinematics. */
typedef struct {
    int iterations;
    double residual;  /* pose error at the answer: |dp| (m) + |dtheta| (rad) */
} ModelIkInfo;

/* One solution of ik_all. The configuration (docs/MODELS.md §IK configurations), after ABB's cfx and KUKA's
 * Status/Turn, is defined for 6R arms with a spherical wrist: MODEL_CFG_BACK the wrist centre behind axis 1,
 * MODEL_CFG_ELBOW_DOWN the elbow bent to the lower branch, MODEL_CFG_FLIP the wrist flipped (axis 5 on its negative
 * branch); turn: bit i set when joint i's value is negative (KUKA's Turn), for every arm. */
enum { MODEL_CFG_BACK = 1, MODEL_CFG_ELBOW_DOWN = 2, MODEL_CFG_FLIP = 4 };
#define MODEL_IK_MAX_SOLUTIONS 64
typedef struct {
    double q[MODEL_MAX_DOF];
    int config;       /* MODEL_CFG_* bits; -1: the arm has no such configuration */
    int turn;         /* bit i: q[i] < 0 (joints 0..30) */
    int singular;     /* a joint was left free by the pose (shoulder or wrist singularity): set from the reference */
    int limit_joint;  /* -1: within every limit; else the joint farthest beyond its limit */
    double limit_excess; /* how far beyond it (rad or m) */
    double dist;      /* Euclidean joint distance from the reference */
} ModelIkSolution;

/* Why ik_all found what it found: method 1 closed form (6R, spherical wrist), 2 multi-start search; reach_excess
 * (m) how far the target lies beyond the arm's reach (0: within); singular: the target is a singular pose. */
typedef struct {
    int method;
    double reach_excess;
    int singular;
} ModelIkWhy;

/* One panel of a figure a back-end declares (ModelType.plots): curves of the dry-run's trace, with their limits
 * and violations drawn as in the standard figures, or a curve derived from trace columns. The y axis shows the
 * unit (revolute quantities in degrees unless `--display si`), the legend the outputs' names. */
typedef enum {
    MODEL_PLOT_Q, MODEL_PLOT_QD, MODEL_PLOT_QDD, MODEL_PLOT_TAU, /* axis `axis`'s position, speed, ... */
    MODEL_PLOT_OUTPUT,                                           /* the output named `output` */
    MODEL_PLOT_EXPR,                                             /* `expr`, no limits */
} ModelPlotSource;

typedef struct {
    const char *label;     /* the panel's title, without its unit (the panel shows the unit) */
    ModelPlotSource src;
    int axis;
    const char *output;    /* as the trace names it: the model's output, or G and Gdot of a G-profile machine; several
                            * of one unit separated by spaces ("L1 L2 L3"): one curve each */
    const char *expr;      /* arithmetic (gnuplot's: ** is the power) over the trace columns {q:i} {qd:i} {qdd:i}
                            * {tau:i} and {pose:i} (x y z qw qx qy qz), i from 0 */
    const char *unit;      /* MODEL_PLOT_EXPR: the SI unit of expr ("m/s^2"); the other panels' come from the trace */
} ModelPlotPanel;

#define MODEL_PLOT_MAX_PANELS 12

/* A figure of several panels, drawn for every device of the back-end whose trace has the columns it names. One
 * whose file is "outputs" takes the place of the standard figure of the model's outputs (one panel per unit). */
typedef struct {
    const char *file;      /* file name: <device>_<file>.png / .svg */
    const char *title;     /* after "<device> — " */
    int npanels;           /* laid out in two columns from 4 panels on */
    ModelPlotPanel panel[MODEL_PLOT_MAX_PANELS];
} ModelPlotGroup;

/* The operations of one back-end. `s` is the state made by create(). */
typedef struct ModelType {
    const char *name;
    /* Build the state from a description (the only place that allocates). err receives a message. */
    int (*create)(const ModelDesc *d, void **s, char *err, size_t errlen);
    void (*destroy)(void *s);

    /* Forward kinematics of link `link` (-1: the tool point): position and rotation in the base frame. */
    int (*fk)(void *s, const double *q, int link, double pos[3], double R[9]);
    /* Inverse kinematics of the tool point to pos/quat (w,x,y,z), starting from q_seed. */
    int (*ik)(void *s, const double pos[3], const double quat[4], const double *q_seed, double *q,
              ModelIkInfo *info);
    /* Optional: every IK solution of the tool point at pos/quat (NULL: position only), at most max into sol, nearest
     * to q_ref first, including those beyond a joint limit (flagged); returns their count (0: none, why says why)
     * or < 0. */
    int (*ik_all)(void *s, const double pos[3], const double quat[4], const double *q_ref, ModelIkSolution *sol,
                  int max, ModelIkWhy *why);
    /* Geometric Jacobian at the tool point, 6 x dof row-major, rows vx vy vz wx wy wz, base frame. */
    int (*jacobian)(void *s, const double *q, double *J);
    /* Singularity measure: >= 0, 0 at a singularity, about 1 well away (documented per back-end); returns 0. band
     * (may be NULL; ignore it if you like): the caller needs the measure only when it lies outside [band[0],
     * band[1]]; a back-end that proves it lies inside may return 1 with measure = a lower bound of it inside the
     * band instead. The proof must cover the rounding of the measure itself: a caller that skips on 1 must end in
     * the same state as one that computed every value. */
    int (*singularity)(void *s, const double *q, const double band[2], double *measure);
    /* 1: the measure is the mechanism's own (a parallel machine's actuators lose control of the platform), checked
     * on every motion; 0: a serial arm's loss of Cartesian mobility, checked where Cartesian motion or IK needs it. */
    int singular_in_joint_space;

    /* tau = M(q) qdd + h(q, qd) */
    int (*inverse_dynamics)(void *s, const double *q, const double *qd, const double *qdd, double *tau);
    int (*mass_matrix)(void *s, const double *q, double *M);              /* dof x dof */
    int (*bias)(void *s, const double *q, const double *qd, double *h);    /* Coriolis, centrifugal, gravity */
    int (*forward_dynamics)(void *s, const double *q, const double *qd, const double *tau, double *qdd);
    /* Semi-inverse problem (seed 002 eqs. 2.5-2.6, corrected): for powered joints qdd[i] is given and tau[i]
     * is computed; for unpowered joints tau[i] is given (normally 0) and qdd[i] is computed. */
    int (*semi_inverse)(void *s, const double *q, const double *qd, double *qdd, double *tau);

    /* Named extra outputs (G-load, leg forces, ...): names and count are fixed per state. */
    int (*output_count)(void *s);
    const char *(*output_name)(void *s, int i);
    int (*outputs)(void *s, const double *q, const double *qd, const double *qdd, double *out);
    /* Optional: output i's unit as messages and reports print it ("m", "G/s", "N"; "" dimensionless); NULL: none. */
    const char *(*output_unit)(void *s, int i);

    /* Optional, G-profiles (GMOVE): a machine of three axes (planetary arm, gondola pitch, roll) whose commanded G
     * the runtime maps onto its axes (docs/MODELS.md §9): the arm length (m) and the gravity magnitude (m/s^2, the
     * G unit). Such a machine's trace gets the commanded G and its onset rate first (G, Gdot); its own output
     * "G", the felt magnitude, becomes Gfelt. */
    int (*gprofile)(void *s, double *arm, double *g);
    /* Figures the dry-run draws for this back-end's machines besides the standard ones (positions, speeds, ...;
     * output/plot.c draws the first 4). */
    int nplots;
    const ModelPlotGroup *plots;
} ModelType;

/* One live model: its type, its state and the description it was made from. */
typedef struct Model {
    const ModelType *type;
    void *state;
    ModelDesc desc;
    int dof;
    int has_friction;  /* some joint of desc has friction: the wrappers apply it */
    /* Mimic joints: the back-end's state holds all nfull joints of the file, desc and dof only the
     * independent ones (the planner's axes). Full joint k = mult[k] q[src[k]] + off[k]; full[i] is the full index
     * of axis i. nfull == 0: no mimic joint, the wrappers pass q through. */
    int nfull;
    int src[MODEL_MAX_DOF], full[MODEL_MAX_DOF];
    double mult[MODEL_MAX_DOF], off[MODEL_MAX_DOF];
} Model;

/* Registry: built-in back-ends, plus any loaded from plugins. */
const ModelType *model_find(const char *name);
/* The layout of ModelType, ModelDesc and Model a plugin is built against: raised whenever one of them changes, so
 * that a plugin built against an older model.h is refused rather than read past its ModelType's end. A plugin
 * exports it as `const int irl_model_abi = MODEL_PLUGIN_ABI;`. */
#define MODEL_PLUGIN_ABI 5

/* Load a plugin shared object exporting `const ModelType *irl_model_plugin(void)` and `irl_model_abi` (equal to
 * MODEL_PLUGIN_ABI). Returns 0 or < 0. */
int model_load_plugin(const char *path, char *err, size_t errlen);

/* Fill a description with defaults: identity rotations, gravity (0,0,-9.81), no limits, tool_link -1. */
void model_desc_init(ModelDesc *d);
/* Defaults for one joint (identity origin, z axis, powered, no limits, no motor). */
void model_joint_init(ModelJoint *j);
/* Look up a back-end parameter by name; NULL when absent. */
const ModelParam *model_desc_param(const ModelDesc *d, const char *name);
/* The numeric parameter `name` of exactly n finite numbers written in SI `unit` (bare numbers fit any unit) into v:
 * 1 found, 0 absent (v untouched), MODEL_EINVAL with model_param_bad's message in err (a word, another count, a
 * number not finite, another unit). */
int model_param_get(const ModelDesc *d, const char *name, int n, const char *unit, double *v, char *err,
                    size_t errlen);
/* "BACKEND: bad parameter NAME: why" into err (BACKEND: d->backend); returns MODEL_EINVAL. */
int model_param_bad(const ModelDesc *d, char *err, size_t errlen, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Create/destroy a model from a description (finds the back-end by d->backend). Mimic joints (ModelJoint.mimic_of)
 * are no axes: the wrappers below take and give the independent joints' q, qd, qdd, tau, J (columns summed with the
 * multipliers), M = C' M C and follow the mimic joints themselves; semi_inverse is not offered with them. */
int model_open(Model *m, const ModelDesc *d, char *err, size_t errlen);
void model_close(Model *m);

/* Wrappers: MODEL_ENOTSUP when the back-end lacks the operation. Joint friction (ModelFriction) is applied here,
 * for every back-end: inverse_dynamics and bias add tau_f(qd); forward_dynamics subtracts it from tau (the joints
 * receive tau - tau_f); semi_inverse adds it to the computed tau of powered joints and subtracts it from the given
 * tau of unpowered ones (which it leaves as given). mass_matrix and the rest are unchanged. model_open refuses
 * friction where a coordinate is not a joint (the stewart back-end's platform pose, the freeflyer's base angle). */
/* model_fk's link: an axis 0..dof-1, -1 the tool point; with mimic joints, dof + j the j-th follower's link (in the
 * file's order), which is no axis but has a place. */
int model_fk(Model *m, const double *q, int link, double pos[3], double R[9]);
int model_ik(Model *m, const double pos[3], const double quat[4], const double *q_seed, double *q,
             ModelIkInfo *info);
/* The ik_all operation; a back-end without one answers with its ik from q_ref (one solution, config -1). */
int model_ik_all(Model *m, const double pos[3], const double quat[4], const double *q_ref, ModelIkSolution *sol,
                 int max, ModelIkWhy *why);
int model_jacobian(Model *m, const double *q, double *J);
int model_singularity(Model *m, const double *q, double *measure);
/* The singularity operation with the band [lo, hi]: 1 when the back-end proved the measure inside (measure a lower
 * bound of it there), 0 with the measure, < 0 an error. */
int model_singularity_within(Model *m, const double *q, double lo, double hi, double *measure);
int model_inverse_dynamics(Model *m, const double *q, const double *qd, const double *qdd, double *tau);
int model_mass_matrix(Model *m, const double *q, double *M);
int model_bias(Model *m, const double *q, const double *qd, double *h);
int model_forward_dynamics(Model *m, const double *q, const double *qd, const double *tau, double *qdd);
int model_semi_inverse(Model *m, const double *q, const double *qd, double *qdd, double *tau);
int model_output_count(Model *m);
const char *model_output_name(Model *m, int i);
/* Output i's unit, "" when the back-end does not say. */
const char *model_output_unit(Model *m, int i);
int model_outputs(Model *m, const double *q, const double *qd, const double *qdd, double *out);
/* The gprofile operation: MODEL_OK with the arm length and gravity, MODEL_ENOTSUP when the machine has no
 * G-profiles. */
int model_gprofile(Model *m, double *arm, double *g);
/* The friction law above for one joint at speed qd; and tau_f for every joint of m (zeros when frictionless). */
double model_friction_joint(const ModelFriction *f, double qd);
void model_friction(const Model *m, const double *qd, double *tau_f);
/* Check a description's friction values (>= 0, finite): 0, or MODEL_EINVAL with a message naming the joint.
 * Called by model_open (which also refuses friction on the coordinates that are not joints). */
int model_friction_check(const ModelDesc *d, char *err, size_t errlen);

/* Physical plausibility of joint i of d (docs/MODELS.md, "Validation"): its body (mass >= 0; inertia finite,
 * symmetric, positive semi-definite, principal moments obeying the triangle inequality A + B >= C within
 * MODEL_TRIANGLE_TOL of C; a body with inertia has a mass > 0, a massless one none; the freeflyer
 * back-end, planar, reads izz alone) and its limits (speed, acceleration, jerk, effort > 0 and not below
 * MODEL_LIMIT_FLOOR in SI: INFINITY is "none"). 0, or MODEL_EINVAL with the reason, its values and units in why (no
 * file or joint name: the caller adds them). */
int model_body_check(const ModelDesc *d, int i, char *why, size_t n);
int model_limits_check(const ModelDesc *d, int i, int *which, char *why, size_t n); /* which (may be NULL): the
                                                  * failing limit, 0 min/max, 1 speed, 2 acc, 3 jerk, 4 effort */
/* Both checks on every joint: 0, or MODEL_EINVAL with "source: joint NAME: why" in err. The readers (.irm, URDF)
 * check as they read, at file:line; model_open does not (tests build bodies no rigid body has, for the maths). */
int model_desc_check(const ModelDesc *d, char *err, size_t errlen);
#define MODEL_LIMIT_FLOOR 1e-6 /* a speed, acceleration, jerk or effort limit below this (SI) is a slip, refused */
#define MODEL_TRIANGLE_TOL 0.1 /* measured inertias break A + B >= C by up to 9 % (Armstrong's PUMA link 3) */

/* A message for a status code. */
const char *model_strerror(int status);

#endif
