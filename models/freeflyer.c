/* freeflyer.c — the `freeflyer` model back-end: the free-floating planar space manipulator of seed 004, its dynamics
 * by the Virtual Manipulator (freeflyer_vm.c) or by the Dynamically Equivalent Manipulator (freeflyer_dem.c) as the
 * machine file's `PARAM formulation = VM | DEM` says, kinematics and outputs of the physical bodies
 * (freeflyer_kin.c). docs/MODELS.md §11.
 *
 * Description mapping. Joints are in chain order, revolute about +z, with identity origin rotations and zero z
 * components (the machine is planar); joint 0 is the base's rotation and must be passive (powered = FALSE), the
 * arm's joints powered. Only izz of each inertia tensor is used. Gravity must be zero.
 *   VM:  the physical bodies. Link 0 is the base (mass m_0, centre of mass c0 in the base frame, izz I_0); joint k's
 *        origin in link k-1's frame is the joint's place on that body; link k's com is L_k; the tool point (on the
 *        last link) ends the arm. Joint 0's origin must be zero: the base floats, the inertial origin is the
 *        system's centre of mass.
 *   DEM: the equivalent fixed-base chain. Joint 0 at the origin; link 0's com must be zero (its mass is ignored:
 *        m'_0 is undefined, ERRATA F7); joint k's origin is W_{k-1}; link k's mass, com and izz are m'_k, l'_k, I'_k;
 *        the tool point on the last link is W_{n-1}. PARAM total_mass (kg, required) recovers the physical bodies.
 *
 * The passive base is not driven and not planned: inverse_dynamics takes the arm's motion (q_k, qd_k, qdd_k for
 * k >= 1) and gives the base the rate that keeps the angular momentum at zero and the acceleration that keeps its
 * torque at zero (qd[0] and qdd[0] are not read; q[0] does not matter, the dynamics do not depend on it); tau[0] =
 * 0. mass_matrix, bias, forward_dynamics and semi_inverse are those of the full state as given. */
#include "freeflyer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmath.h"
#include "geom.h"
#include "spd_solve.h"

#define MAXB FREEFLYER_MAX_BODIES

typedef struct {
    FreeflyerFormulation form;
    int n;
    FreeflyerPhys phys;
    FreeflyerDem dem;
    FreeflyerVm vm;
    double tool_R[9];
} Freeflyer;

static const char *const output_names[] = {"L",      "px",     "py",        "E",        "cm_x",    "cm_y",
                                           "base_x", "base_y", "base_rate", "base_acc", "dyn_sing"};
enum { OUT_L, OUT_PX, OUT_PY, OUT_E, OUT_CMX, OUT_CMY, OUT_BX, OUT_BY, OUT_BRATE, OUT_BACC, OUT_SING, NOUT };

/* ---- creation ---- */

/* A message "freeflyer: ..." in err; MODEL_EINVAL. */
static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(err, errlen, "freeflyer: %s", msg);
    }
    return MODEL_EINVAL;
}

/* A word-valued parameter (`PARAM formulation = DEM;`: n == 0, the word's characters in v[], machine.c):
 * 1 with the word in buf, 0 when absent, -1 when it is a number. */
static int param_word(const ModelDesc *d, const char *name, char *buf, size_t len)
{
    const ModelParam *p = model_desc_param(d, name);
    if (!p) return 0;
    if (p->n != 0) return -1;
    size_t i = 0;
    for (; i + 1 < len && i < MODEL_MAX_PARAM_LEN && p->v[i] > 0; i++) buf[i] = (char)p->v[i];
    buf[i] = '\0';
    return 1;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-12; }

/* The planar, serial, passive-base structure both formulations share. */
static int check_structure(const ModelDesc *d, char *err, size_t errlen)
{
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (d->njoints < 2 || d->njoints > MAXB)
        return fail(err, errlen, "needs the base joint and 1 to %d arm joints", MAXB - 1);
    if (d->gravity[0] != 0 || d->gravity[1] != 0 || d->gravity[2] != 0)
        return fail(err, errlen, "gravity must be zero (a free-floating system)");
    if (d->tool_link != -1 && d->tool_link != d->njoints - 1)
        return fail(err, errlen, "tool_link: the tool point must be on the last link");
    if (d->tool_xyz[2] != 0) return fail(err, errlen, "tool: the machine is planar (z = 0)");
    for (int k = 0; k < d->njoints; k++) {
        const ModelJoint *j = &d->joint[k];
        if (j->type != MODEL_REVOLUTE) return fail(err, errlen, "joint %s: must be revolute", j->name);
        if (j->parent != k - 1) return fail(err, errlen, "joint %s: the joints form one chain, in order", j->name);
        if (!near(j->axis[0], 0) || !near(j->axis[1], 0) || !near(j->axis[2], 1))
            return fail(err, errlen, "joint %s: the axis must be +z (planar)", j->name);
        for (int c = 0; c < 9; c++)
            if (!near(j->origin_R[c], I3[c]))
                return fail(err, errlen, "joint %s: the origin must not be rotated", j->name);
        if (j->origin_xyz[2] != 0 || j->com[2] != 0)
            return fail(err, errlen, "joint %s: the machine is planar (origin and com with z = 0)", j->name);
        if (k == 0 && (j->origin_xyz[0] != 0 || j->origin_xyz[1] != 0))
            return fail(err, errlen, "joint %s: the base joint sits at the origin (the system's centre of mass)",
                        j->name);
        if (k == 0 && j->powered)
            return fail(err, errlen, "joint %s: the base joint is passive (powered = FALSE)", j->name);
        if (k > 0 && !j->powered) return fail(err, errlen, "joint %s: arm joints must be powered", j->name);
        if (!isfinite(j->mass) || !(j->mass >= 0) || !isfinite(j->inertia[8]) || !(j->inertia[8] >= 0) ||
            !isfinite(j->com[0] + j->com[1] + j->origin_xyz[0] + j->origin_xyz[1]))
            return fail(err, errlen, "joint %s: mass, izz, com and origin must be finite (mass, izz >= 0)", j->name);
    }
    if (!isfinite(d->tool_xyz[0] + d->tool_xyz[1])) return fail(err, errlen, "tool: not finite");
    return MODEL_OK;
}

/* VM: the joints describe the physical bodies. */
static int read_vm(const ModelDesc *d, FreeflyerPhys *p, char *err, size_t errlen)
{
    int n = d->njoints;
    memset(p, 0, sizeof *p);
    p->n = n;
    for (int k = 0; k < n; k++) {
        const ModelJoint *j = &d->joint[k];
        if (!(j->mass > 0)) return fail(err, errlen, "joint %s: every body needs a mass > 0", j->name);
        p->m[k] = j->mass;
        p->I[k] = j->inertia[8];
        const double *next = k + 1 < n ? d->joint[k + 1].origin_xyz : d->tool_xyz;
        for (int c = 0; c < 2; c++) {
            if (k == 0) p->c0[c] = j->com[c];
            else p->L[k][c] = j->com[c];
            p->R[k][c] = next[c] - j->com[c];
        }
    }
    double tm, M = 0;
    int st = model_param_get(d, "total_mass", 1, "kg", &tm, err, errlen);
    for (int k = 0; k < n; k++) M += p->m[k];
    if (st < 0) return st;
    if (st > 0 && fabs(tm - M) > 1e-9 * M)
        return model_param_bad(d, err, errlen, "total_mass", "differs from the sum of the bodies' masses, %.6g kg "
                                                             "(VM)", M);
    return MODEL_OK;
}

/* DEM: the joints describe the equivalent chain; total_mass maps it back to the bodies. */
static int read_dem(const ModelDesc *d, FreeflyerDem *q, FreeflyerPhys *p, char *err, size_t errlen)
{
    int n = d->njoints;
    memset(q, 0, sizeof *q);
    q->n = n;
    if (d->joint[0].com[0] != 0 || d->joint[0].com[1] != 0)
        return fail(err, errlen, "joint %s: the DEM's first link has its centre of mass on the joint (com = 0)",
                    d->joint[0].name);
    for (int k = 0; k < n; k++) {
        const ModelJoint *j = &d->joint[k];
        if (k > 0 && !(j->mass > 0)) return fail(err, errlen, "joint %s: a DEM link needs a mass > 0", j->name);
        q->m[k] = k > 0 ? j->mass : 0.0;
        q->I[k] = j->inertia[8];
        const double *next = k + 1 < n ? d->joint[k + 1].origin_xyz : d->tool_xyz;
        for (int c = 0; c < 2; c++) q->W[k][c] = next[c], q->l[k][c] = k > 0 ? j->com[c] : 0.0;
    }
    double tm;
    int st = model_param_get(d, "total_mass", 1, "kg", &tm, err, errlen);
    if (st < 0) return st;
    if (st == 0)
        return model_param_bad(d, err, errlen, "total_mass", "required with the DEM formulation (a mass > 0 kg)");
    if (!(tm > 0)) return model_param_bad(d, err, errlen, "total_mass", "must be > 0 kg");
    if (freeflyer_phys_from_dem(q, tm, p) < 0)
        return model_param_bad(d, err, errlen, "total_mass", "with the DEM's link masses gives no physical bodies");
    return MODEL_OK;
}

static int freeflyer_create(const ModelDesc *d, void **out, char *err, size_t errlen)
{
    char word[16];
    int w = param_word(d, "formulation", word, sizeof word), st;
    FreeflyerFormulation form;
    if (w == 1 && strcmp(word, "VM") == 0) form = FREEFLYER_VM;
    else if (w == 1 && strcmp(word, "DEM") == 0) form = FREEFLYER_DEM;
    else return model_param_bad(d, err, errlen, "formulation", "%s VM or DEM", w == 0 ? "required:" : "must be");
    if ((st = check_structure(d, err, errlen)) < 0) return st;
    Freeflyer *s = calloc(1, sizeof *s);
    if (!s) return MODEL_ENOMEM;
    s->form = form;
    s->n = d->njoints;
    if (form == FREEFLYER_VM) {
        st = read_vm(d, &s->phys, err, errlen);
        if (st == 0) freeflyer_dem_from_phys(&s->phys, &s->dem);
    } else {
        st = read_dem(d, &s->dem, &s->phys, err, errlen);
    }
    if (st < 0) {
        free(s);
        return st;
    }
    freeflyer_vm_init(&s->vm, &s->phys);
    memcpy(s->tool_R, d->tool_R, sizeof s->tool_R);
    *out = s;
    return MODEL_OK;
}

static void freeflyer_destroy(void *s) { free(s); }

/* ---- dynamics, in the machine's formulation ---- */

/* The machine at configuration q: what M(q) and h(q, qd) share, computed once (the VM's turned vectors). */
typedef struct {
    const Freeflyer *s;
    const double *q;
    FreeflyerVmTurned t;
} At;

static void at(const Freeflyer *s, const double *q, At *a)
{
    a->s = s, a->q = q;
    if (s->form == FREEFLYER_VM) freeflyer_vm_turn(&s->vm, q, &a->t);
}

static void mass(const At *a, double *M)
{
    if (a->s->form == FREEFLYER_VM) freeflyer_vm_mass(&a->s->vm, &a->t, M);
    else freeflyer_dem_mass(&a->s->dem, a->q, M);
}

static void bias(const At *a, const double *qd, double *h)
{
    double zero[MAXB] = {0};
    if (a->s->form == FREEFLYER_VM) freeflyer_vm_bias(&a->s->vm, &a->t, qd, h);
    else freeflyer_dem_rne(&a->s->dem, a->q, qd, zero, h);
}

/* M(q) alone. */
static void mass_at(const Freeflyer *s, const double *q, double *M)
{
    At a;
    at(s, q, &a);
    mass(&a, M);
}

/* L = (M qd)_0 = 0 gives qd_0; (M qdd + h)_0 = 0 gives qdd_0. M is returned for the caller. */
static void base_motion(const Freeflyer *s, const double *q, const double *qd, const double *qdd, double *M,
                        double *qd2, double *qdd2, double *h)
{
    int n = s->n;
    At a;
    at(s, q, &a);
    mass(&a, M);
    double r = 0.0;
    for (int j = 1; j < n; j++) r -= M[j] * qd[j];
    memcpy(qd2, qd, (size_t)n * sizeof *qd2);
    qd2[0] = r / M[0];
    bias(&a, qd2, h);
    if (!qdd) return;
    double acc = -h[0];
    for (int j = 1; j < n; j++) acc -= M[j] * qdd[j];
    memcpy(qdd2, qdd, (size_t)n * sizeof *qdd2);
    qdd2[0] = acc / M[0];
}

FreeflyerFormulation freeflyer_formulation(void *st) { return ((Freeflyer *)st)->form; }

void freeflyer_params(void *st, FreeflyerPhys *p, FreeflyerDem *d)
{
    const Freeflyer *s = st;
    if (p) *p = s->phys;
    if (d) *d = s->dem;
}

int freeflyer_base_motion(void *st, const double *q, const double *qd, const double *qdd, double *rate, double *acc)
{
    double M[MAXB * MAXB], qd2[MAXB], qdd2[MAXB], h[MAXB];
    base_motion(st, q, qd, qdd, M, qd2, qdd2, h);
    *rate = qd2[0];
    if (qdd) *acc = qdd2[0];
    return MODEL_OK;
}

/* tau_k = (M qdd + h)_k with the base's qd_0, qdd_0 from zero momentum and zero base torque; tau_0 = 0. */
static int freeflyer_inverse_dynamics(void *st, const double *q, const double *qd, const double *qdd, double *tau)
{
    const Freeflyer *s = st;
    int n = s->n;
    double M[MAXB * MAXB], qd2[MAXB], qdd2[MAXB], h[MAXB];
    base_motion(s, q, qd, qdd, M, qd2, qdd2, h);
    tau[0] = 0.0;
    for (int i = 1; i < n; i++) {
        double t = h[i];
        for (int j = 0; j < n; j++) t += M[i * n + j] * qdd2[j];
        tau[i] = t;
    }
    return MODEL_OK;
}

static int freeflyer_mass_matrix(void *st, const double *q, double *M)
{
    mass_at(st, q, M);
    return MODEL_OK;
}

static int freeflyer_bias(void *st, const double *q, const double *qd, double *h)
{
    At a;
    at(st, q, &a);
    bias(&a, qd, h);
    return MODEL_OK;
}

/* qdd = M^-1 (tau - h); tau[0] is an external torque on the base (0 for a free floater). */
static int freeflyer_forward_dynamics(void *st, const double *q, const double *qd, const double *tau, double *qdd)
{
    const Freeflyer *s = st;
    double M[MAXB * MAXB], h[MAXB];
    At a;
    at(s, q, &a);
    mass(&a, M);
    bias(&a, qd, h);
    for (int i = 0; i < s->n; i++) qdd[i] = tau[i] - h[i];
    return spd_solve(M, qdd, s->n, s->n, 1e-12);
}

/* Seed 002's semi-inverse with the base the one unpowered joint: qdd_0 = (tau_0 - h_0 - sum_j M_0j qdd_j) / M_00,
 * then tau_k = (M qdd + h)_k for the arm. The state's qd is used as given. */
static int freeflyer_semi_inverse(void *st, const double *q, const double *qd, double *qdd, double *tau)
{
    const Freeflyer *s = st;
    int n = s->n;
    double M[MAXB * MAXB], h[MAXB];
    At x;
    at(s, q, &x);
    mass(&x, M);
    bias(&x, qd, h);
    double a = tau[0] - h[0];
    for (int j = 1; j < n; j++) a -= M[j] * qdd[j];
    qdd[0] = a / M[0];
    for (int i = 1; i < n; i++) {
        double t = h[i];
        for (int j = 0; j < n; j++) t += M[i * n + j] * qdd[j];
        tau[i] = t;
    }
    return MODEL_OK;
}

/* ---- kinematics ---- */

/* Rz(phi) R0 */
static void rot_z(double R[9], double phi, const double *R0)
{
    double c, sn;
    dm_sincos(phi, &sn, &c);
    double Rz[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
    if (!R0) {
        memcpy(R, Rz, sizeof Rz);
        return;
    }
    m3_mul(R, Rz, R0);
}

/* Body frames of the physical bodies (link 0: the base) and the tool point, inertial frame. */
static int freeflyer_fk(void *st, const double *q, int link, double pos[3], double R[9])
{
    const Freeflyer *s = st;
    if (link < -1 || link >= s->n) return MODEL_EINVAL;
    double phi = 0.0, p[2];
    int last = link < 0 ? s->n - 1 : link;
    for (int k = 0; k <= last; k++) phi += q[k];
    if (link < 0) freeflyer_kin_tip(&s->vm, q, NULL, p, NULL);
    else freeflyer_kin_frame(&s->vm, q, link, p);
    pos[0] = p[0], pos[1] = p[1], pos[2] = 0.0;
    rot_z(R, phi, link < 0 ? s->tool_R : NULL);
    return MODEL_OK;
}

/* J* = J_tip[:, 1..] - J_tip[:, 0] M_0j / M_00 (the base's rate eliminated by zero angular momentum), M = M(q). */
static void generalized_jacobian(const Freeflyer *s, const double *q, const double *M, double *J)
{
    int n = s->n, m = n - 1;
    double Jt[2 * MAXB];
    freeflyer_kin_tip_jacobian(&s->vm, q, Jt);
    for (int j = 1; j < n; j++) {
        double k = M[j] / M[0];
        J[j - 1] = Jt[j] - Jt[0] * k;
        J[m + j - 1] = Jt[n + j] - Jt[n] * k;
    }
}

int freeflyer_generalized_jacobian(void *st, const double *q, double *J)
{
    double M[MAXB * MAXB];
    mass_at(st, q, M);
    generalized_jacobian(st, q, M, J);
    return MODEL_OK;
}

/* 6 x n, rows vx vy vz wx wy wz: column 0 (the passive base) is zero, columns 1.. the generalized Jacobian, and
 * wz = sum of all rates = 1 - M_0j / M_00 per arm joint. v = J qd holds for every motion at zero momentum. */
static int freeflyer_jacobian(void *st, const double *q, double *J)
{
    const Freeflyer *s = st;
    int n = s->n, m = n - 1;
    double Jg[2 * MAXB], M[MAXB * MAXB];
    mass_at(s, q, M);
    generalized_jacobian(s, q, M, Jg);
    memset(J, 0, (size_t)6 * n * sizeof *J);
    for (int j = 1; j < n; j++) {
        J[j] = Jg[j - 1];
        J[n + j] = Jg[m + j - 1];
        J[5 * n + j] = 1.0 - M[j] / M[0];
    }
    return MODEL_OK;
}

/* The dynamic singularity measure: sigma_min / sigma_max of the generalized Jacobian's 2 x (n-1) position block
 * (one arm joint: its column's length over the reach sum |W_k|). An output, not the contract's singularity():
 * the machine moves in joint space only (no IK), where the generalized Jacobian's singularity does no harm. */
static double dyn_singularity(const Freeflyer *s, const double *q, const double *M)
{
    int m = s->n - 1;
    double J[2 * MAXB], a = 0, b = 0, c = 0;
    generalized_jacobian(s, q, M, J);
    for (int j = 0; j < m; j++) a += J[j] * J[j], b += J[j] * J[m + j], c += J[m + j] * J[m + j];
    if (m == 1) {
        double reach = 0;
        for (int k = 0; k < s->n; k++) reach += dm_hypot(s->vm.W[k][0], s->vm.W[k][1]);
        return reach > 0 ? sqrt(a + c) / reach : 0.0;
    }
    /* eigenvalues of [[a, b], [b, c]] */
    double tr = 0.5 * (a + c), d = sqrt(fmax(0.0, 0.25 * (a - c) * (a - c) + b * b));
    double lmax = tr + d, lmin = fmax(0.0, tr - d);
    return lmax > 0 ? sqrt(lmin / lmax) : 0.0;
}

/* ---- outputs ---- */

static int freeflyer_output_count(void *st) { (void)st; return NOUT; }

static const char *freeflyer_output_name(void *st, int i)
{
    (void)st;
    return i >= 0 && i < NOUT ? output_names[i] : NULL;
}

static const char *freeflyer_output_unit(void *st, int i)
{
    static const char *const unit[] = {"Nms", "kg m/s", "kg m/s", "J", "m", "m", "m", "m", "rad/s", "rad/s^2", ""};
    (void)st;
    return i >= 0 && i < NOUT ? unit[i] : NULL;
}

/* Sums over the bodies at the state as given (momenta, energy, centre of mass), the base's centre of mass, the
 * base motion that zero momentum and zero base torque imply for the arm's motion, the dynamic singularity. */
static int freeflyer_outputs(void *st, const double *q, const double *qd, const double *qdd, double *out)
{
    const Freeflyer *s = st;
    double p[2], cm[2], b[2], M[MAXB * MAXB], qd2[MAXB], qdd2[MAXB], h[MAXB];
    freeflyer_kin_sums(&s->vm, q, qd, p, &out[OUT_L], cm, &out[OUT_E]);
    freeflyer_kin_body(&s->vm, q, NULL, 0, b, NULL);
    out[OUT_PX] = p[0], out[OUT_PY] = p[1];
    out[OUT_CMX] = cm[0], out[OUT_CMY] = cm[1];
    out[OUT_BX] = b[0], out[OUT_BY] = b[1];
    base_motion(s, q, qd, qdd, M, qd2, qdd2, h); /* its M(q) serves the singularity measure too */
    out[OUT_SING] = dyn_singularity(s, q, M);
    out[OUT_BRATE] = qd2[0];
    if (qdd) out[OUT_BACC] = qdd2[0];
    return MODEL_OK;
}

const ModelType model_freeflyer = {
    .name = "freeflyer",
    .create = freeflyer_create,
    .destroy = freeflyer_destroy,
    .fk = freeflyer_fk,
    .ik = NULL, /* the pose reached depends on the path (the base turns): docs/MODELS.md §11 */
    .jacobian = freeflyer_jacobian,
    .singularity = NULL, /* the output dyn_sing instead: see dyn_singularity */
    .inverse_dynamics = freeflyer_inverse_dynamics,
    .mass_matrix = freeflyer_mass_matrix,
    .bias = freeflyer_bias,
    .forward_dynamics = freeflyer_forward_dynamics,
    .semi_inverse = freeflyer_semi_inverse,
    .output_count = freeflyer_output_count,
    .output_name = freeflyer_output_name,
    .output_unit = freeflyer_output_unit,
    .outputs = freeflyer_outputs,
};
