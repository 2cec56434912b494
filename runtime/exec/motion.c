/* motion.c — the VM's door to the motion side: decodes a motion statement's operands (opcodes.h), resolves its
 * parameters against the modal system variables, plans it (planner or GMOVE queue of its device) and, for the
 * statements that stop look-ahead, runs the clock through the executor's cycle until the statement is done. */
#include "exec/motion.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errcodes.h"
#include "exec/follow_csv.h"
#include "exec/ptp_ik.h"
#include "geom.h"
#include "output/display.h"

#define G_SI 9.81 /* the language's G unit, m/s^2 (1 G = 9.81 m/s^2) */

/* ---- Set-up. ------------------------------------------------------------------------------------------- */

int motion_init(Motion *m, const Chunk *c, Devices *devs, Value *sys, double dt, double time_scale, char *err,
                size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->chunk = c;
    m->devs = devs;
    m->sys = sys;
    m->dt = dt;
    m->time_scale = time_scale > 0 ? time_scale : 1.0;
    m->err_pc = -1;
    m->task = -1;
    m->fail_dev = -1;
    for (int i = 0; i < SAMPLE_MAX_DEVICES; i++) m->owner[i] = -1;
    double k = m->time_scale;
    for (int i = 0; i < devs->ndev; i++) {
        Device *dv = &devs->dev[i];
        MotionDevice *md = &m->dev[i];
        if (dv->model.dof > PLANNER_MAX_AXES) {
            snprintf(err, errlen, "device %s has %d axes; motion supports at most %d", dv->name, dv->model.dof,
                     PLANNER_MAX_AXES);
            return -1;
        }
        PlannerConfig cfg;
        planner_config_init(&cfg, dv->model.dof);
        planner_config_from_model(&cfg, &dv->model);
        if (!dv->has_pose) cfg.model = NULL; /* PTP only */
        cfg.capacity = MOTION_QUEUE;
        cfg.dt = dt;
        cfg.pose_every_cycle = 0;
        memcpy(cfg.q_start, dv->start, (size_t)dv->model.dof * sizeof *cfg.q_start);
        /* --time-scale k: q(t / k) exactly, by scaling every rate limit (speed / k, acc / k^2, jerk / k^3) */
        for (int a = 0; a < cfg.dof; a++) {
            cfg.limits[a].vmax /= k;
            cfg.limits[a].amax /= k * k;
            cfg.limits[a].jmax /= k * k * k;
        }
        cfg.axis_vmax /= k, cfg.axis_amax /= k * k;
        cfg.speed /= k, cfg.speed_ori /= k, cfg.acc /= k * k, cfg.acc_ori /= k * k;
        cfg.jerk /= k * k * k, cfg.jerk_ori /= k * k * k;
        if (planner_init(&md->planner, &cfg) != PLANNER_OK) {
            snprintf(err, errlen, "device %s: %s", dv->name, planner_error(&md->planner));
            return -1;
        }
        md->planner_ok = 1;
        if (follow_init(&md->follow, dv->model.dof) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (dv->gprofile) {
            MotionGmove *gm = &md->gm;
            if (gmove_machine_init(&gm->mc, &dv->model, err, errlen) != GMOVE_OK) return -1;
            gm->ring = calloc(MOTION_GMOVE_QUEUE, sizeof *gm->ring);
            if (!gm->ring) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            for (int s = 0; s < MOTION_GMOVE_QUEUE; s++) gmove_table_init(&gm->ring[s].tab);
            gm->on = 1;
        }
    }
    return 0;
}

void motion_free(Motion *m)
{
    for (int i = 0; i < SAMPLE_MAX_DEVICES; i++) {
        MotionDevice *md = &m->dev[i];
        if (md->planner_ok) planner_free(&md->planner);
        follow_free(&md->follow);
        if (md->gm.ring) {
            for (int s = 0; s < MOTION_GMOVE_QUEUE; s++) gmove_table_free(&md->gm.ring[s].tab);
            free(md->gm.ring);
        }
        memset(md, 0, sizeof *md);
    }
}

/* ---- The clock. ---------------------------------------------------------------------------------------- */

size_t motion_pending(const Motion *m)
{
    size_t n = 0;
    for (int i = 0; m->devs && i < m->devs->ndev; i++) {
        n += planner_pending(&m->dev[i].planner);
        n += (size_t)(m->dev[i].gm.head - m->dev[i].gm.tail);
        n += (size_t)follow_pending(&m->dev[i].follow);
        n += m->dev[i].brake.state != 0;
    }
    return n;
}

/* The first instruction at src (the statement's own location), or -1. */
static int pc_of(const Motion *m, const SampleSrc *src)
{
    const Chunk *c = m->chunk;
    for (int pc = 0; pc < c->ncode; pc++) {
        ChunkLine l = c->lines[pc];
        if (l.line != src->line || l.col != src->col) continue;
        const char *f = l.file >= 0 && l.file < c->nfiles && c->files[l.file] >= 0 && c->files[l.file] < c->nkstr
                            ? c->kstr[c->files[l.file]].text : NULL;
        if (!src->file || !f || strcmp(f, src->file) == 0) return pc;
    }
    return -1;
}

/* One cycle; an error it charges to a statement's motion (fail_src) is located there (motion_error_pc). */
static int run_cycle(Motion *m, char *msg, size_t msglen)
{
    m->fail_src = (SampleSrc){NULL, 0, 0};
    int e = m->cycle(m->cycle_ctx, msg, msglen);
    if (e > 0 && m->fail_src.line > 0) m->err_pc = pc_of(m, &m->fail_src);
    return e;
}

int motion_error_pc(Motion *m)
{
    int pc = m->err_pc;
    m->err_pc = -1;
    return pc;
}

/* Is device d part of the executing task's drain? Every device without a scheduler; with one, those the task moved
 * last (another task's motion goes on while this one waits). */
static int drains(const Motion *m, int d) { return m->task < 0 || m->owner[d] == m->task; }

/* Segments queued and not finished on the devices the executing task waits for. */
static size_t pending_mine(const Motion *m)
{
    size_t n = 0;
    for (int i = 0; m->devs && i < m->devs->ndev; i++)
        if (drains(m, i))
            n += planner_pending(&m->dev[i].planner) + (size_t)(m->dev[i].gm.head - m->dev[i].gm.tail) +
                 (size_t)follow_pending(&m->dev[i].follow) + (m->dev[i].brake.state != 0) +
                 (size_t)triggers_waiting_on(m, i);   /* a bound TRIGGER still to switch */
    return n;
}

int motion_drain(Motion *m, char *msg, size_t msglen)
{
    for (int i = 0; m->devs && i < m->devs->ndev; i++)
        if (drains(m, i)) planner_flush(&m->dev[i].planner);
    while (pending_mine(m) > 0) {
        int e = run_cycle(m, msg, msglen);
        if (e) return e;
    }
    return 0;
}

/* ---- GMOVE timeline (consumer side). --------------------------------------------------------------------- */

int motion_gmove_sample(MotionGmove *gm, double t, GmoveSample *out, SampleSrc *src)
{
    if (!gm->on || (!gm->have_end && gm->head == gm->tail)) return 0;
    while (gm->head > gm->tail) {
        MotionGmoveSlot *sl = &gm->ring[gm->tail % MOTION_GMOVE_QUEUE];
        double tl = t - sl->start;
        if (tl <= sl->seg.T || gm->head - gm->tail > 1) {
            if (tl > sl->seg.T) { /* the next one has started */
                gm->tail++;
                continue;
            }
            *src = sl->src;
            int rc = gmove_sample(&sl->seg, tl < 0 ? 0 : tl, out);
            return rc < 0 ? rc : 1;
        }
        gm->tail++; /* finished, nothing follows: hold its steady state */
    }
    /* idle at the steady state after the last segment: the planetary arm keeps turning at omega */
    *out = gm->end_s;
    out->q[0] = gm->end_s.q[0] + gm->end_s.qd[0] * (t - gm->end_t);
    out->Gdot = out->Gfelt_dot = 0;
    src->line = 0;
    return 1;
}

/* ---- Operands. ----------------------------------------------------------------------------------------- */

static int sys_offset(int id)
{
    int off = 0;
    for (int i = 0; i < id; i++) off += irl_sysvarinfo[i].nslots;
    return off;
}

static double sys_real(const Motion *m, int id) { return m->sys[sys_offset(id)].r; }

/* The source location of the instruction at pc (unknown when pc is not valid). */
static SampleSrc src_at(const Motion *m, int64_t pc)
{
    SampleSrc s = {NULL, 0, 0};
    const Chunk *c = m->chunk;
    if (pc < 0 || pc >= c->ncode) return s;
    ChunkLine l = c->lines[pc];
    if (l.file >= 0 && l.file < c->nfiles && c->files[l.file] >= 0 && c->files[l.file] < c->nkstr)
        s.file = c->kstr[c->files[l.file]].text;
    s.line = l.line;
    s.col = l.col;
    return s;
}

/* A decoded statement. */
typedef struct {
    SampleSrc src;
    int64_t who, shape;
    double with[MP_COUNT];
    int has[MP_COUNT];
    const Value *ops; /* the operands after the WITH values */
    int nops;
} Stmt;

static int decode(const Value *args, int nargs, Stmt *st, const Motion *m)
{
    memset(st, 0, sizeof *st);
    if (nargs < MOTION_HDR) return -1;
    st->src = src_at(m, args[0].i);
    st->who = args[1].i;
    st->shape = args[2].i;
    int64_t mask = args[3].i;
    int k = MOTION_HDR;
    for (int j = 0; j < MP_COUNT; j++)
        if (mask & ((int64_t)1 << j)) {
            if (k >= nargs) return -1;
            st->has[j] = 1;
            st->with[j] = args[k++].r;
        }
    st->ops = args + k;
    st->nops = nargs - k;
    return 0;
}

static double param(const Stmt *st, MotionParam p, double modal) { return st->has[p] ? st->with[p] : modal; }

/* ---- Poses: (position, quaternion w x y z). ---------------------------------------------------------------- */

typedef struct {
    double p[3], q[4];
} Pose;

static void quat_rotate(double r[3], const double q[4], const double v[3])
{
    double R[9];
    quat_to_m3(R, q);
    m3_mulv(r, R, v);
}

static Pose pose_mul(const Pose *a, const Pose *b)
{
    Pose r;
    quat_rotate(r.p, a->q, b->p);
    v3_add(r.p, r.p, a->p);
    quat_mul(r.q, a->q, b->q);
    double n = sqrt(r.q[0] * r.q[0] + r.q[1] * r.q[1] + r.q[2] * r.q[2] + r.q[3] * r.q[3]);
    for (int i = 0; i < 4; i++) r.q[i] /= n;
    return r;
}

static Pose pose_inv(const Pose *a)
{
    Pose r;
    double qc[4] = {a->q[0], -a->q[1], -a->q[2], -a->q[3]}, t[3];
    quat_rotate(t, qc, a->p);
    v3_scale(r.p, t, -1.0);
    memcpy(r.q, qc, sizeof qc);
    return r;
}

static Pose pose_from(const Value *v)
{
    Pose r;
    for (int i = 0; i < 3; i++) r.p[i] = v[i].r;
    for (int i = 0; i < 4; i++) r.q[i] = v[3 + i].r;
    return r;
}

static Pose sys_pose(const Motion *m, int id) { return pose_from(&m->sys[sys_offset(id)]); }

/* Program frame (the TCP in $BASE) -> model frame (the model's tool point in its base): BASE @ T @ INV(TOOL). */
static Pose to_model(const Motion *m, const Pose *t)
{
    Pose base = sys_pose(m, SV_BASE), tool = sys_pose(m, SV_TOOL), itool = pose_inv(&tool);
    Pose bt = pose_mul(&base, t);
    return pose_mul(&bt, &itool);
}

/* $TOOL as x y z qw qx qy qz (planner_set_tool), and whether it is the identity. */
static int tool_of(const Motion *m, double v[7])
{
    Pose t = sys_pose(m, SV_TOOL);
    memcpy(v, t.p, sizeof t.p), memcpy(v + 3, t.q, sizeof t.q);
    return !v[0] && !v[1] && !v[2] && v[3] == 1 && !v[4] && !v[5] && !v[6];
}

/* Program frame -> the TCP in the model's base: BASE @ T, the path a LIN or CIRC runs (the planner converts each
 * sampled pose by INV(TOOL) before IK). With the identity tool, to_model's arithmetic, to the bit. */
static Pose to_model_tcp(const Motion *m, const Pose *t)
{
    double tool[7];
    if (tool_of(m, tool)) return to_model(m, t);
    Pose base = sys_pose(m, SV_BASE);
    return pose_mul(&base, t);
}

static Pose to_program(const Motion *m, const Pose *mp)
{
    Pose base = sys_pose(m, SV_BASE), tool = sys_pose(m, SV_TOOL), ibase = pose_inv(&base);
    Pose bt = pose_mul(&ibase, mp);
    return pose_mul(&bt, &tool);
}

/* 1 when the pose x y z qw qx qy qz is the identity (the frames' default). */
static int is_identity(const double *v) { return !v[0] && !v[1] && !v[2] && v[3] == 1 && !v[4] && !v[5] && !v[6]; }

/* Remember the frames segment id is planned with (motion_tcp_pose). */
static void keep_frames(Motion *m, int d, int id)
{
    MotionFrames *f = &m->dev[d].frames[id % MOTION_FRAMES];
    f->id = id;
    Pose b = sys_pose(m, SV_BASE), t = sys_pose(m, SV_TOOL);
    memcpy(f->base, b.p, sizeof b.p), memcpy(f->base + 3, b.q, sizeof b.q);
    memcpy(f->tool, t.p, sizeof t.p), memcpy(f->tool + 3, t.q, sizeof t.q);
    f->identity = is_identity(f->base) && is_identity(f->tool);
}

void motion_tcp_pose(const Motion *m, int d, int seg_id, const double mp[7], double tcp[7], double tool[3])
{
    const double *fb, *ft;
    double b[7], t[7];
    int identity;
    const MotionFrames *f = &m->dev[d].frames[(seg_id > 0 ? seg_id : 0) % MOTION_FRAMES];
    if (seg_id > 0 && f->id == seg_id) {
        fb = f->base, ft = f->tool, identity = f->identity;
    } else { /* the program's current frames, from their Value slots */
        for (int i = 0; i < 7; i++)
            b[i] = m->sys[sys_offset(SV_BASE) + i].r, t[i] = m->sys[sys_offset(SV_TOOL) + i].r;
        fb = b, ft = t, identity = is_identity(b) && is_identity(t);
    }
    memcpy(tool, ft, 3 * sizeof(double));
    if (identity) { /* the usual case costs a copy */
        memcpy(tcp, mp, 7 * sizeof(double));
        return;
    }
    Pose base = {{fb[0], fb[1], fb[2]}, {fb[3], fb[4], fb[5], fb[6]}};
    Pose to = {{ft[0], ft[1], ft[2]}, {ft[3], ft[4], ft[5], ft[6]}};
    Pose mo = {{mp[0], mp[1], mp[2]}, {mp[3], mp[4], mp[5], mp[6]}}, ib = pose_inv(&base), bm = pose_mul(&ib, &mo);
    Pose tp = pose_mul(&bm, &to);
    memcpy(tcp, tp.p, sizeof tp.p), memcpy(tcp + 3, tp.q, sizeof tp.q);
}

/* ---- Statements. --------------------------------------------------------------------------------------- */

#define FAIL(code, ...) (snprintf(msg, msglen, __VA_ARGS__), (code))

static int device_of(Motion *m, const Stmt *st, const char *what, char *msg, size_t msglen)
{
    int n = m->devs ? m->devs->ndev : 0;
    if (st->who < 0 && n == 1) return 0;
    if (st->who >= 0 && st->who < n) return (int)st->who;
    if (n == 0) return -FAIL(IRL_ERR_DEVICE, "%s needs a DEVICE: the program declares none", what);
    return -FAIL(IRL_ERR_DEVICE, "%s: invalid device", what);
}

/* Leave a device's FOLLOW for the planner: play out its samples; the planner holds the last one. */
static int leave_follow(Motion *m, int d, char *msg, size_t msglen)
{
    FollowStream *f = &m->dev[d].follow;
    int e;
    while (follow_pending(f) > 0)
        if ((e = run_cycle(m, msg, msglen))) return e;
    if (f->open) planner_reset(&m->dev[d].planner, f->last.q), follow_end(f);
    return 0;
}

/* Leave a device's GMOVE timeline for the planner (only at rest). */
static int leave_gmove(Motion *m, int d, const char *what, char *msg, size_t msglen)
{
    int e0 = leave_follow(m, d, msg, msglen);
    if (e0) return e0;
    MotionGmove *gm = &m->dev[d].gm;
    if (!gm->on || (!gm->have_end && gm->head == gm->tail)) return 0;
    while (gm->head > gm->tail) {
        int e = run_cycle(m, msg, msglen);
        if (e) return e;
    }
    if (gm->end.G != 1.0)
        return FAIL(IRL_ERR_NOT_SUPPORTED, "%s on %s while it spins at %.3g G: bring it to rest first (GMOVE TO 1 G)",
                    what, m->devs->dev[d].name, gm->end.G);
    double q[3];
    GmoveSample s;
    SampleSrc src;
    motion_gmove_sample(gm, m->t, &s, &src);
    memcpy(q, s.q, sizeof q);
    planner_reset(&m->dev[d].planner, q);
    gm->have_end = 0;
    return 0;
}

/* Note a GMOVE spin-up from rest (or spin-down to rest) and what governed its length: the onset rate or an axis
 * limit (issue 5: the report says where the axis limits rather than the onset governed). */
static void spin_note(Motion *m, int d, const GmoveInfo *info, double t, SampleSrc src)
{
    const char *g = info->spin_limit;
    char why[96];
    if (strcmp(g, "onset") == 0) snprintf(why, sizeof why, "the onset rate");
    else if (strcmp(g, "none") == 0 || g[0] == '\0') snprintf(why, sizeof why, "no limit (the shortest spin tried)");
    else if (strcmp(g, "monotone") == 0) snprintf(why, sizeof why, "keeping the arm speed monotone");
    else snprintf(why, sizeof why, "the %s limit", g);
    if (info->spin > 0)
        checks_note_text(m->checks, d, t, src, "%s spin-up from rest: %.3g s to %.4g G, governed by %s",
                         m->devs->dev[d].name, info->spin_T, info->spin_G, why);
    else
        checks_note_text(m->checks, d, t, src, "%s spin-down to rest: %.3g s from %.4g G, governed by %s",
                         m->devs->dev[d].name, info->spin_T, info->spin_G, why);
}

void motion_display(Motion *m, int degrees)
{
    m->degrees = degrees;
    for (int d = 0; d < m->devs->ndev; d++) m->dev[d].gm.mc.degrees = degrees;
}

/* How axis a of device d shows derivative `order` (0 position .. 3 jerk) in messages: its SI unit, or degrees. */
static DisplayUnit axis_du(const Motion *m, int d, int a, int order)
{
    return display_axis(m->devs->dev[d].model.desc.joint[a].type == MODEL_PRISMATIC, order, m->degrees);
}

/* Note a request the planner lowered (for the report). */
static void note(Motion *m, int d, const char *what, double req, double applied, SampleSrc src)
{
    if (m->checks) checks_note_limited(m->checks, d, -1, what, req, applied, m->t, src);
}

/* Note an APPROX_PTP the planner shortened, naming the axis and the limit the requested blend would break. */
static void approx_note(Motion *m, int d, const PlannerPushInfo *info, SampleSrc src)
{
    static const char *const qty[3] = {"speed", "acceleration", "jerk"};
    const PlannerBlendWhy *w = &info->approx_why;
    DisplayUnit du = axis_du(m, d, w->axis, 1 + w->qty);
    if (m->checks)
        checks_note_text(m->checks, d, m->t, src,
                         "%s APPROX_PTP %.4g %% lowered to %.4g %%: the blend asked for would take axis %d's %s to "
                         "%.4g %s, beyond its limit %.4g %s", m->devs->dev[d].name, 100 * info->approx_req,
                         100 * info->approx_applied, w->axis + 1, qty[w->qty], du.k * fabs(w->value), du.unit,
                         du.k * w->limit, du.unit);
}

static int push_result(Motion *m, int d, int rc, const PlannerPushInfo *info, const Stmt *st, const char *what,
                       char *msg, size_t msglen)
{
    Planner *p = &m->dev[d].planner;
    if (rc == PLANNER_EIK) return FAIL(IRL_ERR_IK, "%s: %s", what, planner_error(p));
    if (rc == PLANNER_EGEOM) return FAIL(IRL_ERR_MATH, "%s: %s", what, planner_error(p));
    if (rc == PLANNER_ENOMODEL)
        return FAIL(IRL_ERR_NOT_SUPPORTED, "%s: device %s has no kinematics for Cartesian motion", what,
                    m->devs->dev[d].name);
    if (rc < 0) return FAIL(IRL_ERR_MATH, "%s: %s", what, planner_error(p));
    if (info->lowered & PLANNER_LOWERED_SPEED) note(m, d, "SPEED", info->speed_req, info->speed_max, st->src);
    if (info->lowered & PLANNER_LOWERED_TIME) note(m, d, "TIME", info->time_req, info->duration, st->src);
    if (info->lowered & PLANNER_LOWERED_ACC)
        note(m, d, info->kind == PLANNER_PTP ? "ACC_PTP" : "ACC", info->acc_req, info->acc_applied, st->src);
    if (info->lowered & PLANNER_LOWERED_APPROX) {  /* the predecessor's request, at its statement */
        SampleSrc a = {info->approx_src.file, info->approx_src.line, info->approx_src.col};
        if ((info->kind == PLANNER_SPLINE || info->kind == PLANNER_JSPLINE) && m->checks)
            checks_note_text(m->checks, d, m->t, a, "%s %s %.4g %s dropped: the MOVE SPLINE at line %d starts from "
                             "rest", m->devs->dev[d].name, info->approx_ptp ? "APPROX_PTP" : "APPROX",
                             info->approx_ptp ? 100 * info->approx_req : 1e3 * info->approx_req,
                             info->approx_ptp ? "%" : "mm", st->src.line);
        else if (info->approx_why.axis >= 0 && info->approx_ptp) approx_note(m, d, info, a);
        else note(m, d, info->approx_ptp ? "APPROX_PTP" : "APPROX", info->approx_req, info->approx_applied, a);
    }
    return 0;
}

static int check_joint_limits(Motion *m, int d, const double *q, const char *what, char *msg, size_t msglen)
{
    const Model *mo = &m->devs->dev[d].model;
    for (int i = 0; i < mo->dof; i++) {
        const ModelAxisLimits *l = &mo->desc.joint[i].limits;
        DisplayUnit du = axis_du(m, d, i, 0);
        if (!(q[i] >= l->min - 1e-12 && q[i] <= l->max + 1e-12))
            return FAIL(IRL_ERR_JOINT_LIMIT, "%s: axis %d target %.6g %s is outside its limits [%.6g, %.6g] %s", what,
                        i + 1, du.k * q[i], du.unit, du.k * l->min, du.k * l->max, du.unit);
    }
    return 0;
}

/* After a MOVE's push (planner status rc, push_result's e): the armed TRIGGERs of device d bind to its segment. */
static int bound(Motion *m, int d, int rc, int e, const Stmt *st, char *msg, size_t msglen)
{
    if (e || rc < 0) return e;
    return triggers_bind(m, d, planner_last_pushed(&m->dev[d].planner), st->src, msg, msglen);
}

/* TRIGGER: armed for its device's next MOVE (triggers.h); nothing waits. */
static int exec_trigger(Motion *m, const Stmt *st, char *msg, size_t msglen)
{
    int d = device_of(m, st, "TRIGGER", msg, msglen);
    if (d < 0) return -d;
    while (triggers_full(m) && triggers_waiting(m) > 0) {   /* as a full queue: the motion frees bound ones */
        int e = run_cycle(m, msg, msglen);
        if (e) return e;
    }
    return triggers_arm(m, d, pc_of(m, &st->src), st->src, (int)st->shape, st->ops, st->nops, msg, msglen);
}

static PlannerParams params_of(const Motion *m, const Stmt *st)
{
    double k = m->time_scale;
    PlannerParams p;
    p.speed = param(st, MP_SPEED, sys_real(m, SV_SPEED)) / k;
    p.speed_ori = param(st, MP_SPEED_ORI, sys_real(m, SV_SPEED_ORI)) / k;
    p.acc = param(st, MP_ACC, sys_real(m, SV_ACC)) / (k * k);
    p.speed_ptp = param(st, MP_SPEED_PTP, sys_real(m, SV_SPEED_PTP));
    p.acc_ptp = param(st, MP_ACC_PTP, sys_real(m, SV_ACC_PTP));
    p.time = st->has[MP_TIME] ? st->with[MP_TIME] * k : 0;
    p.approx = param(st, MP_APPROX, sys_real(m, SV_APPROX));
    p.approx_ptp = param(st, MP_APPROX_PTP, sys_real(m, SV_APPROX_PTP));
    p.ik_target = 0;
    p.sing_target = NAN;
    return p;
}

/* A Cartesian operand (POSE or POSITION) as a program-frame pose; a POSITION keeps the orientation of `last`. */
static Pose cart_operand(const Value *v, int shape, const Pose *last)
{
    Pose t;
    if (shape == MOTION_OPND_POSE) return pose_from(v);
    for (int i = 0; i < 3; i++) t.p[i] = v[i].r;
    memcpy(t.q, last->q, sizeof t.q);
    return t;
}

static int operand_slots(int shape) { return shape == MOTION_OPND_JOINT ? 1 + 12 : shape == MOTION_OPND_POSE ? 7 : 3; }

/* The executing task takes device d for a motion statement at src: ERR_TASK while another task's motion on it is
 * queued or running, naming both statements. */
static int take_device(Motion *m, int d, SampleSrc src, const char *what, char *msg, size_t msglen)
{
    if (m->task < 0) return 0;
    int o = m->owner[d];
    size_t busy = planner_pending(&m->dev[d].planner) + (size_t)(m->dev[d].gm.head - m->dev[d].gm.tail) +
                  (size_t)follow_pending(&m->dev[d].follow) + (m->dev[d].brake.state != 0);
    if (o >= 0 && o != m->task && busy > 0) {
        const SampleSrc *w = &m->owner_src[d];
        return FAIL(IRL_ERR_TASK, "%s: device %s is moved by two tasks at once: this statement and %s:%d:%d, whose "
                    "motion is still running", what, m->devs->dev[d].name, w->file ? w->file : "?", w->line, w->col);
    }
    m->owner[d] = m->task;
    m->owner_src[d] = src;
    return 0;
}

static int exec_move(Motion *m, MotionKind kind, const Stmt *st, char *msg, size_t msglen)
{
    const char *what = irl_motion_names[kind];
    int d = device_of(m, st, what, msg, msglen);
    if (d < 0) return -d;
    int e = take_device(m, d, st->src, what, msg, msglen);
    if (e) return e;
    e = leave_gmove(m, d, what, msg, msglen);
    if (e) return e;
    Planner *p = &m->dev[d].planner;
    Model *mo = &m->devs->dev[d].model;
    int n = mo->dof, inc = kind == MK_MOVE_INC_PTP || kind == MK_MOVE_INC_LIN || kind == MK_MOVE_INC_CIRC;
    int ts = (int)(st->shape & 15), vs = (int)(st->shape >> 4 & 15);
    int need = operand_slots(ts) + (vs ? operand_slots(vs) : 0);
    if (ts == MOTION_OPND_NONE || st->nops < need) return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
    /* the run holds the target, then (CIRC) the via point */
    const Value *tgt = st->ops, *via = vs ? st->ops + operand_slots(ts) : NULL;
    double qlast[PLANNER_MAX_AXES], plast[3], qtlast[4];
    int have_pose = planner_last_target(p, qlast, plast, qtlast);
    Pose mlast = {{plast[0], plast[1], plast[2]}, {qtlast[0], qtlast[1], qtlast[2], qtlast[3]}};
    Pose last = have_pose ? to_program(m, &mlast) : (Pose){{0, 0, 0}, {1, 0, 0, 0}};
    PlannerParams par = params_of(m, st);
    PlannerSrc src = {st->src.file, st->src.line, st->src.col};
    PlannerPushInfo info;
    int rc;
    double q[PLANNER_MAX_AXES], tool[7];
    tool_of(m, tool);
    planner_set_tool(p, tool);   /* the segment carries $TOOL: a change takes effect at the segment boundary */
    if (kind == MK_MOVE_PTP || kind == MK_MOVE_INC_PTP) {
        if (ts == MOTION_OPND_JOINT) {
            if (tgt[0].i != n)
                return FAIL(IRL_ERR_JOINT_COUNT, "%s: the JOINT has %lld axes, device %s has %d", what,
                            (long long)tgt[0].i, m->devs->dev[d].name, n);
            for (int i = 0; i < n; i++) q[i] = tgt[1 + i].r + (inc ? qlast[i] : 0.0);
        } else {
            if (!have_pose) return FAIL(IRL_ERR_NOT_SUPPORTED, "%s: device %s has no kinematics", what,
                                        m->devs->dev[d].name);
            Pose t = cart_operand(tgt, ts, &last);
            if (inc) {
                Pose r = last;
                v3_add(r.p, last.p, t.p);
                if (ts == MOTION_OPND_POSE) quat_mul(r.q, t.q, last.q);
                t = r;
            }
            Pose mt = to_model(m, &t);
            double cw = st->has[MP_CONFIG] ? st->with[MP_CONFIG] : -1, tw = st->has[MP_TURN] ? st->with[MP_TURN] : -1;
            if (st->has[MP_CONFIG] && !(cw >= 0 && cw <= 7 && cw == floor(cw)))
                return FAIL(IRL_ERR_USER, "%s: WITH CONFIG %g is not one of 0 to 7 (1 back, 2 elbow down, 4 flip)", what,
                            cw);
            if (st->has[MP_TURN] && !(tw >= 0 && tw < 2147483648.0 && tw == floor(tw)))
                return FAIL(IRL_ERR_USER, "%s: WITH TURN %g is not a set of joint bits (an integer >= 0)", what, tw);
            PtpIkWant want = {(int)cw, (long)tw};
            if ((e = ptp_ik_solve(mo, mt.p, mt.q, t.p, t.q, qlast, want, q, m->degrees, what, msg, msglen))) return e;
            /* the IK's solution at a singular pose is one of many: its proximity is checked when the PTP arrives */
            par.ik_target = model_singularity(mo, q, &par.sing_target) >= 0;
        }
        if ((e = check_joint_limits(m, d, q, what, msg, msglen))) return e;
        while ((rc = planner_push_ptp(p, q, &par, src, &info)) == PLANNER_EFULL)
            if ((e = run_cycle(m, msg, msglen))) return e;
        if (rc >= 0) keep_frames(m, d, info.id);
        return bound(m, d, rc, push_result(m, d, rc, &info, st, what, msg, msglen), st, msg, msglen);
    }
    if (!have_pose)
        return FAIL(IRL_ERR_NOT_SUPPORTED, "%s: device %s has no kinematics for Cartesian motion", what,
                    m->devs->dev[d].name);
    Pose t = cart_operand(tgt, ts, &last), v = {{0}, {1, 0, 0, 0}};
    if (via) v = cart_operand(via, vs, &t);
    if (inc) {
        v3_add(t.p, t.p, last.p);
        v3_add(v.p, v.p, last.p);
        if (ts == MOTION_OPND_POSE) {
            double r[4];
            quat_mul(r, t.q, last.q);
            memcpy(t.q, r, sizeof r);
        } else {
            memcpy(t.q, last.q, sizeof t.q);
        }
    }
    Pose mt = to_model_tcp(m, &t), mv = to_model_tcp(m, &v);
    if (kind == MK_MOVE_LIN || kind == MK_MOVE_INC_LIN) {
        while ((rc = planner_push_lin(p, mt.p, mt.q, &par, src, &info)) == PLANNER_EFULL)
            if ((e = run_cycle(m, msg, msglen))) return e;
    } else {
        if (!via) return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
        while ((rc = planner_push_circ(p, mv.p, mt.p, mt.q, &par, src, &info)) == PLANNER_EFULL)
            if ((e = run_cycle(m, msg, msglen))) return e;
    }
    if (rc >= 0) keep_frames(m, d, info.id);
    return bound(m, d, rc, push_result(m, d, rc, &info, st, what, msg, msglen), st, msg, msglen);
}

/* MOVE SPLINE p1, p2, ...: Cartesian points (POSITION keeps the orientation of the point before it) through the
 * frames as a LIN's target, or JOINT points. */
static int exec_spline(Motion *m, const Stmt *st, char *msg, size_t msglen)
{
    const char *what = irl_motion_names[MK_MOVE_SPLINE];
    int d = device_of(m, st, what, msg, msglen);
    if (d < 0) return -d;
    int e = leave_gmove(m, d, what, msg, msglen);
    if (e) return e;
    Planner *p = &m->dev[d].planner;
    Model *mo = &m->devs->dev[d].model;
    int shape = (int)(st->shape & 15), np = (int)(st->shape >> 8), per = operand_slots(shape);
    if (shape == MOTION_OPND_NONE || np < 1 || np > PLANNER_SPLINE_MAX - 1 || st->nops < np * per)
        return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
    PlannerParams par = params_of(m, st);
    PlannerSrc src = {st->src.file, st->src.line, st->src.col};
    PlannerPushInfo info;
    int rc;
    double tool[7];
    tool_of(m, tool);
    planner_set_tool(p, tool);
    if (shape == MOTION_OPND_JOINT) {
        double q[PLANNER_SPLINE_MAX - 1][PLANNER_MAX_AXES];
        for (int k = 0; k < np; k++) {
            const Value *v = st->ops + k * per;
            if (v[0].i != mo->dof)
                return FAIL(IRL_ERR_JOINT_COUNT, "%s: point %d has %lld axes, device %s has %d", what, k + 1,
                            (long long)v[0].i, m->devs->dev[d].name, mo->dof);
            for (int i = 0; i < mo->dof; i++) q[k][i] = v[1 + i].r;
            if ((e = check_joint_limits(m, d, q[k], what, msg, msglen))) return e;
        }
        while ((rc = planner_push_jspline(p, np, (const double(*)[PLANNER_MAX_AXES])q, &par, src, &info)) ==
               PLANNER_EFULL)
            if ((e = run_cycle(m, msg, msglen))) return e;
    } else {
        double qlast[PLANNER_MAX_AXES], plast[3], qtlast[4], pts[PLANNER_SPLINE_MAX - 1][7];
        if (!planner_last_target(p, qlast, plast, qtlast))
            return FAIL(IRL_ERR_NOT_SUPPORTED, "%s: device %s has no kinematics for Cartesian motion", what,
                        m->devs->dev[d].name);
        Pose mlast = {{plast[0], plast[1], plast[2]}, {qtlast[0], qtlast[1], qtlast[2], qtlast[3]}};
        Pose last = to_program(m, &mlast);
        for (int k = 0; k < np; k++) {
            Pose t = cart_operand(st->ops + k * per, shape, &last), mt = to_model_tcp(m, &t);
            memcpy(pts[k], mt.p, sizeof mt.p), memcpy(pts[k] + 3, mt.q, sizeof mt.q);
            last = t;
        }
        while ((rc = planner_push_spline(p, np, (const double(*)[7])pts, &par, src, &info)) == PLANNER_EFULL)
            if ((e = run_cycle(m, msg, msglen))) return e;
    }
    if (rc >= 0) keep_frames(m, d, info.id);
    return bound(m, d, rc, push_result(m, d, rc, &info, st, what, msg, msglen), st, msg, msglen);
}

/* The state a new GMOVE starts from, and when: after the last queued one, or now from the current state. */
static void gmove_from(Motion *m, int d, GmoveState *from, double *start)
{
    MotionGmove *gm = &m->dev[d].gm;
    if (gm->head > gm->tail) {
        *from = gm->end;
        *start = gm->end_t;
    } else if (gm->have_end) {
        *from = gm->end;
        from->q1 = gm->end_s.q[0] + gm->end_s.qd[0] * (m->t - gm->end_t);
        *start = m->t;
    } else {
        double q[PLANNER_MAX_AXES];
        planner_last_target(&m->dev[d].planner, q, NULL, NULL);
        *from = gmove_rest(q[0]);
        *start = m->t;
    }
}

static int gmove_status(int rc, const GmoveInfo *info, const char *what, char *msg, size_t msglen)
{
    const char *why = info->msg[0] ? info->msg : "cannot be flown";
    switch (rc) {
    case GMOVE_ETORQUE: return FAIL(IRL_ERR_TORQUE, "%s: %s", what, why);
    case GMOVE_EGLIMIT:
    case GMOVE_EINVAL: return FAIL(IRL_ERR_GLIMIT, "%s: %s", what, why);
    case GMOVE_ENOMODEL: return FAIL(IRL_ERR_DEVICE, "%s needs a centrifuge device", what);
    default: return FAIL(IRL_ERR_MATH, "%s: %s", what, why);
    }
}

static int exec_gmove(Motion *m, MotionKind kind, const Stmt *st, char *msg, size_t msglen)
{
    const char *what = irl_motion_names[kind];
    int d = device_of(m, st, what, msg, msglen);
    if (d < 0) return -d;
    MotionGmove *gm = &m->dev[d].gm;
    if (!gm->on) return FAIL(IRL_ERR_DEVICE, "%s needs a centrifuge device; %s is not one", what,
                             m->devs->dev[d].name);
    if (m->time_scale != 1.0) return FAIL(IRL_ERR_NOT_SUPPORTED, "%s cannot be run with --time-scale", what);
    int e = take_device(m, d, st->src, what, msg, msglen);
    if (e) return e;
    Planner *p = &m->dev[d].planner;
    planner_flush(p);
    while (planner_pending(p) > 0)
        if ((e = run_cycle(m, msg, msglen))) return e;
    while (gm->head - gm->tail >= MOTION_GMOVE_QUEUE)
        if ((e = run_cycle(m, msg, msglen))) return e;
    GmoveState from;
    double start;
    gmove_from(m, d, &from, &start);
    MotionGmoveSlot *sl = &gm->ring[gm->head % MOTION_GMOVE_QUEUE];
    GmoveParams gp = {0};
    gp.onset = st->has[MP_ONSET] ? st->with[MP_ONSET] / G_SI : 0;
    gp.hold = st->has[MP_HOLD] ? st->with[MP_HOLD] : 0;
    gp.jerk = st->has[MP_JERK] ? st->with[MP_JERK] / G_SI : 0;
    gp.interp = st->has[MP_INTERP] && st->with[MP_INTERP] == 1 ? GMOVE_INTERP_CSPLINE : GMOVE_INTERP_LINEAR;
    GmoveInfo info;
    memset(&info, 0, sizeof info);
    int rc;
    if (kind == MK_GMOVE_TO) {
        if (st->nops < 1) return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
        rc = gmove_plan_to(&gm->mc, &from, st->ops[0].r / G_SI, &gp, &sl->seg, &info);
    } else if (kind == MK_GMOVE_HOLD) {
        if (st->nops < 1) return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
        rc = gmove_plan_hold(&gm->mc, &from, st->ops[0].r, &sl->seg, &info);
    } else {
        int rows = (int)st->shape;
        if (rows < 1 || st->nops < 2 * rows) return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
        double *t = malloc((size_t)rows * 2 * sizeof *t);
        if (!t) return FAIL(IRL_ERR_MATH, "%s: out of memory", what);
        double *G = t + rows;
        for (int i = 0; i < rows; i++) {
            t[i] = st->ops[2 * i].r;
            G[i] = st->ops[2 * i + 1].r / G_SI;
        }
        rc = gmove_plan_profile(&gm->mc, &from, t, G, rows, &gp, &sl->tab, &sl->seg, &info);
        free(t);
    }
    if (rc != GMOVE_OK) {
        /* the report keeps what was achievable even when ON ERROR handles the error (SI: m/s^3) */
        if (m->checks && kind == MK_GMOVE_TO && info.onset_max > 0 && gp.onset > 0)
            checks_note_text(m->checks, d, start, st->src,
                             "%s GMOVE TO %.4g G refused: onset %.4g G/s cannot be flown from %.4g G; the largest "
                             "feasible onset rate is %.3g G/s", m->devs->dev[d].name, st->ops[0].r / G_SI, gp.onset,
                             from.G, info.onset_max);
        return gmove_status(rc, &info, what, msg, msglen);
    }
    if (m->checks && info.spin) spin_note(m, d, &info, start, st->src);
    if (gp.onset > 0 && info.onset > 0 && info.onset < gp.onset * (1 - 1e-9))
        note(m, d, "ONSET", gp.onset, info.onset, st->src);
    sl->src = st->src;
    sl->start = start;
    GmoveSample end;
    if (gmove_sample(&sl->seg, sl->seg.T, &end) < 0) return FAIL(IRL_ERR_MATH, "%s: sampling failed", what);
    gm->end = sl->seg.end;
    gm->end_t = start + sl->seg.T;
    gm->end_s = end;
    gm->have_end = 1;
    gm->head++;
    return 0;
}

/* WAIT t: the motion first reaches its programmed point, then the clock runs for t. */
static int exec_wait(Motion *m, const Stmt *st, char *msg, size_t msglen)
{
    int e = motion_drain(m, msg, msglen);
    if (e) return e;
    double t = st->nops >= 1 ? st->ops[0].r : 0;
    if (!(t >= 0) || !isfinite(t)) return FAIL(IRL_ERR_MATH, "WAIT needs a finite duration >= 0, got %g s", t);
    if (m->max_time > 0 && m->t + t > m->max_time * (1 + 1e-12)) /* at once, and like the bound: no handler */
        return snprintf(msg, msglen, "the run reached its bound on simulated time, --max-time %g s: this WAIT of %g s "
                        "would end at t = %g s", m->max_time, t, m->t + t), -IRL_ERR_TIMEOUT;
    /* online (no bound): a wait beyond LONG_MAX cycles is capped, never wrapped to a zero wait */
    long n = t / m->dt < 0x1p62 ? lround(t / m->dt) : (long)0x1p62;
    for (long i = 0; i < n; i++)
        if ((e = run_cycle(m, msg, msglen))) return e;
    return 0;
}

/* Nothing will change an I/O point any more: no input has a stimulus event still due, no PULSE is running. */
static int io_settled(const Motion *m)
{
    for (int i = 0; m->devs && i < m->devs->nio; i++) {
        const DevicesIo *io = &m->devs->io[i];
        if (io->next < io->nstim || !isnan(io->pulse_end)) return 0;
    }
    return 1;
}

/* WAIT FOR cond [TIMEOUT t]: called once per evaluation of cond by the compiled loop (opcodes.h). Without a
 * TIMEOUT, a condition still false when neither time ($TIME) nor an I/O point can change it fails at once. */
static int exec_wait_for(Motion *m, Value *args, const Stmt *st, char *msg, size_t msglen)
{
    Value *cond = (Value *)st->ops, *state = &args[1];
    if (st->nops < 1) return FAIL(IRL_ERR_USER, "WAIT FOR: malformed operands");
    if (state->i == -1) { /* first evaluation: reach the programmed point, then start timing */
        int e = motion_drain(m, msg, msglen);
        if (e) return e;
        state->r = m->t;
        m->wait_nsync = m->nsync;
        m->wait_io = -1;
        cond->i = 0; /* evaluate again, now */
        return 0;
    }
    if (cond->i) return 0; /* the wait is over */
    if ((st->shape & 1) && st->nops >= 2 && m->t - state->r >= st->ops[1].r - 1e-12)
        return FAIL(IRL_ERR_TIMEOUT, "WAIT FOR timed out after %g s", st->ops[1].r);
    int timeless = m->nsync == m->wait_nsync;
    m->wait_nsync = m->nsync;
    if (!(st->shape & 1) && timeless && io_settled(m) && m->others == 0) {
        const char *in = m->wait_io >= 0 ? m->devs->io[m->wait_io].name : "NAME";
        return FAIL(IRL_ERR_TIMEOUT, "WAIT FOR can never end: its condition is false at t = %.6g s and nothing can "
                    "change it any more (no input stimulus is due, no PULSE is running, the condition does not read "
                    "$TIME); give the input a value with --input %s=VALUE@T (or a file --input FILE.csv), or add "
                    "a TIMEOUT", m->t, in);
    }
    int e = run_cycle(m, msg, msglen);
    cond->i = 0;
    return e;
}

/* WAIT ev [TIMEOUT t]: called once per look at the EVENT's count by the compiled loop (opcodes.h), like WAIT FOR.
 * Without a TIMEOUT, a count of 0 that no other task and no interrupt can raise fails at once. */
static int exec_wait_event(Motion *m, Value *args, const Stmt *st, char *msg, size_t msglen)
{
    if (st->nops < 2) return FAIL(IRL_ERR_USER, "WAIT on an EVENT: malformed operands");
    Value *count = (Value *)st->ops, *state = &args[1];
    int64_t id = st->ops[1].i;
    const char *name = id >= 0 && id < m->chunk->nkstr ? m->chunk->kstr[id].text : "?";
    if (state->i == -1) { /* first look: reach the programmed point, then start timing */
        int e = motion_drain(m, msg, msglen);
        if (e) return e;
        state->r = m->t;
        count->i = 0;
        return 0;
    }
    if (count->i > 0) {
        count->i = 1; /* the wait is over: the code takes one */
        return 0;
    }
    if ((st->shape & 1) && st->nops >= 3 && m->t - state->r >= st->ops[2].r - 1e-12)
        return FAIL(IRL_ERR_TIMEOUT, "WAIT %s timed out after %g s", name, st->ops[2].r);
    if (!(st->shape & 1) && m->others == 0)
        return FAIL(IRL_ERR_TIMEOUT, "WAIT %s can never end: its count is 0 at t = %.6g s and no other task runs and "
                    "no interrupt is enabled that could SIGNAL it", name, m->t);
    int e = run_cycle(m, msg, msglen);
    count->i = 0;
    return e;
}

static int exec_pulse(Motion *m, const Stmt *st, char *msg, size_t msglen)
{
    int e = motion_drain(m, msg, msglen);
    if (e) return e;
    int io = (int)st->who;
    if (!m->devs || io < 0 || io >= m->devs->nio) return FAIL(IRL_ERR_DEVICE, "PULSE: invalid output");
    double t = st->nops >= 1 ? st->ops[0].r : 0;
    if (!(t >= 0)) return FAIL(IRL_ERR_MATH, "PULSE for a negative or undefined time (%g s)", t);
    devices_io_write(m->devs, io, 1);
    m->devs->io[io].pulse_end = m->t + t;
    return 0;
}

static int is_analog(const DevicesIo *io) { return io->kind == 2 || io->kind == 3; }

static int exec_io(Motion *m, MotionKind kind, Value *args, int nargs, char *msg, size_t msglen)
{
    int io = nargs >= 1 ? (int)args[0].i : -1;
    if (!m->devs || io < 0 || io >= m->devs->nio) return FAIL(IRL_ERR_DEVICE, "invalid IO point");
    DevicesIo *p = &m->devs->io[io];
    int input = p->kind == 0 || p->kind == 2;
    if (kind == MK_IO_READ) {
        if (input && !m->in_cond) {
            m->wait_io = io;
            int e = motion_drain(m, msg, msglen);
            if (e) return e;
        }
        if (is_analog(p)) args[0].r = p->value;
        else args[0].i = p->value != 0;
        return 0;
    }
    if (nargs < 2) return FAIL(IRL_ERR_USER, "setting an IO point: malformed operands");
    if (input) return FAIL(IRL_ERR_DEVICE, "%s is an input", p->name);
    int e = motion_drain(m, msg, msglen);
    if (e) return e;
    devices_io_write(m->devs, io, is_analog(p) ? args[1].r : (double)(args[1].i != 0));
    return 0;
}

/* ---- MOVE FOLLOW: a time-stamped joint table or a function of time, sample by sample (motion/follow.h). ---- */

#define FOLLOW_MATCH 1e-6 /* rad or m: how close a FOLLOW's first sample must be to where the device stands */

/* The device of a FOLLOW into *dp, brought to rest at its programmed point (a BRAKE's stop ended); its position into
 * q0. 0, or the error (MOTION_SKIPPED: an interrupt's handler ran while it waited for the earlier motion, so the
 * FOLLOW is abandoned before it starts, like a WAIT). */
static int follow_device(Motion *m, const Stmt *st, const char *what, int *dp, double *q0, char *msg, size_t msglen)
{
    int d = device_of(m, st, what, msg, msglen), e;
    if (d < 0) return -d;
    if ((e = take_device(m, d, st->src, what, msg, msglen))) return e;
    if ((e = leave_gmove(m, d, what, msg, msglen))) return e;
    if (m->time_scale != 1.0)
        return FAIL(IRL_ERR_NOT_SUPPORTED, "%s keeps its table's own timing: it cannot be run with --time-scale", what);
    Planner *p = &m->dev[d].planner;
    planner_flush(p);
    while (planner_pending(p) > 0 || follow_pending(&m->dev[d].follow) > 0 || m->dev[d].brake.state)
        if ((e = run_cycle(m, msg, msglen))) return e;
    planner_last_target(p, q0, NULL, NULL);
    *dp = d;
    return 0;
}

/* A cycle while a started FOLLOW of device d feeds its samples. An interrupt's handler that ran in it
 * (MOTION_SKIPPED) does not cut the FOLLOW short: its samples are the statement's motion, which goes on like a
 * queued MOVE's, unless the handler braked the device (exec_brake ended the stream): then the FOLLOW is over and
 * the task continues after it (MOTION_SKIPPED). */
static int follow_cycle(Motion *m, int d, char *msg, size_t msglen)
{
    int e = run_cycle(m, msg, msglen);
    if (e == MOTION_SKIPPED) e = 0;
    return e ? e : m->dev[d].follow.open ? 0 : MOTION_SKIPPED;
}

/* Sample 0 must be where the device stands: 0, or the error. A CSV's sample is located by its file and line and
 * each axis's column (csv NULL: a table or a function). */
static int follow_match(Motion *m, int d, const FollowSample *s0, const double *q0, const char *what,
                        const FollowCsv *csv, char *msg, size_t msglen)
{
    for (int a = 0; a < m->devs->dev[d].model.dof; a++)
        if (!(fabs(s0->q[a] - q0[a]) <= FOLLOW_MATCH)) {
            DisplayUnit du = axis_du(m, d, a, 0);
            const char *u = du.unit;
            char where[1100] = "";
            if (csv) snprintf(where, sizeof where, "%s:%d:%d: ", csv->path, csv->line[0], csv->col0[1 + a]);
            return FAIL(IRL_ERR_JOINT_LIMIT, "%s: %sthe first sample is %.6g %s away from where device %s stands on "
                        "axis %d (sample %.9g %s, device %.9g %s): a FOLLOW starts where the device stands (move "
                        "it there first)", what, where, du.k * fabs(s0->q[a] - q0[a]), u, m->devs->dev[d].name, a + 1,
                        du.k * s0->q[a], u, du.k * q0[a], u);
        }
    return 0;
}

/* Queue sample s (the cycle runs while the queue is full). */
static int follow_put(Motion *m, int d, const FollowSample *s, char *msg, size_t msglen)
{
    int e;
    while (follow_full(&m->dev[d].follow))
        if ((e = follow_cycle(m, d, msg, msglen))) return e;
    follow_push(&m->dev[d].follow, s);
    return 0;
}

/* A FOLLOW that starts (ends) moving steps the setpoint's speed from (to) rest within one cycle: the report notes
 * the first powered axis whose step exceeds what its acceleration limit allows in a cycle (the online monitor
 * refuses such a step, docs/MOTION.md §11). */
static void follow_step_note(Motion *m, int d, const FollowSample *s, double t, const char *how)
{
    const Model *mo = &m->devs->dev[d].model;
    for (int a = 0; a < mo->dof && m->checks; a++) {
        double amax = mo->desc.joint[a].limits.amax;
        if (fabs(s->qd[a]) / m->dt > amax && mo->desc.joint[a].powered) {
            const PlannerSrc *p = &m->dev[d].follow.src;
            DisplayUnit v = axis_du(m, d, a, 1), acc = axis_du(m, d, a, 2);
            checks_note_text(m->checks, d, t, (SampleSrc){p->file, p->line, p->col},
                             "%s MOVE FOLLOW %s: axis %d at %.4g %s, a speed step within one cycle (%.4g %s "
                             "against the limit %.4g %s)", m->devs->dev[d].name, how, a + 1, v.k * s->qd[a], v.unit,
                             acc.k * fabs(s->qd[a]) / m->dt, acc.unit, acc.k * amax, acc.unit);
            return;
        }
    }
}

/* The FOLLOW's last sample s is queued: play the queue out; the planner then holds the device there. */
static int follow_finish(Motion *m, int d, const FollowSample *s, char *msg, size_t msglen)
{
    int e;
    while (follow_pending(&m->dev[d].follow) > 0)
        if ((e = follow_cycle(m, d, msg, msglen))) return e;
    follow_step_note(m, d, s, m->t, "ends moving (the setpoint then holds its last position)");
    planner_reset(&m->dev[d].planner, s->q);
    follow_end(&m->dev[d].follow);
    return 0;
}

/* The cycles of a FOLLOW lasting T: sample k at k dt, k = 1 .. K, the last one at T exactly. */
static long follow_cycles(const Motion *m, double T) { return (long)ceil(T / m->dt - 1e-9); }

/* Run a table from where the device stands (q0): its rows' times relative to the first, each cycle the spline. */
static int follow_run_table(Motion *m, int d, const Stmt *st, const double *t, const double *q, int rows,
                            const double *q0, const FollowCsv *csv, const char *what, char *msg, size_t msglen)
{
    FollowTable tb;
    char err[256];
    int n = m->devs->dev[d].model.dof, e;
    if (follow_table_init(&tb, t, q, rows, n, err, sizeof err) < 0) return FAIL(IRL_ERR_MATH, "%s: %s", what, err);
    FollowSample s;
    double T = t[rows - 1] - t[0], t0 = m->t;
    e = follow_table_eval(&tb, t[0], &s) < 0 ? FAIL(IRL_ERR_MATH, "%s: the spline cannot be evaluated", what) : 0;
    if (!e) e = follow_match(m, d, &s, q0, what, csv, msg, msglen);
    if (!e) {
        s.t = t0;
        follow_begin(&m->dev[d].follow, (PlannerSrc){st->src.file, st->src.line, st->src.col}, &s);
        follow_step_note(m, d, &s, t0, "starts moving from rest");
    }
    long K = follow_cycles(m, T);
    for (long k = 1; k <= K && !e; k++) {
        double tau = k == K ? T : (double)k * m->dt;
        if (follow_table_eval(&tb, t[0] + tau, &s) < 0) e = FAIL(IRL_ERR_MATH, "%s: the spline cannot be evaluated", what);
        s.t = t0 + (double)k * m->dt;
        if (!e) e = follow_put(m, d, &s, msg, msglen);
    }
    follow_table_free(&tb);
    return e ? e : follow_finish(m, d, &s, msg, msglen);
}

/* MOVE FOLLOW table: operands rows x (t, JOINT) (shape: rows). */
static int exec_follow_table(Motion *m, const Stmt *st, char *msg, size_t msglen)
{
    const char *what = irl_motion_names[MK_MOVE_FOLLOW];
    double q0[PLANNER_MAX_AXES];
    int d, e0 = follow_device(m, st, what, &d, q0, msg, msglen);
    if (e0) return e0;
    int rows = (int)st->shape, n = m->devs->dev[d].model.dof, w = 1 + 1 + 12;
    if (rows < 1 || st->nops < rows * w) return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
    if (rows < FOLLOW_MIN_ROWS) return FAIL(IRL_ERR_MATH, "%s: a table needs at least %d samples, got %d", what,
                                            FOLLOW_MIN_ROWS, rows);
    double *t = malloc((size_t)rows * (size_t)(1 + n) * sizeof *t);
    if (!t) return FAIL(IRL_ERR_MATH, "%s: out of memory", what);
    double *q = t + rows;
    int e = 0;
    for (int i = 0; i < rows && !e; i++) {
        const Value *r = st->ops + (size_t)i * (size_t)w;
        t[i] = r[0].r;
        if (r[1].i != n)
            e = FAIL(IRL_ERR_JOINT_COUNT, "%s: sample %d's JOINT has %lld axes, device %s has %d", what, i + 1,
                     (long long)r[1].i, m->devs->dev[d].name, n);
        for (int a = 0; a < n && !e; a++) q[(size_t)i * (size_t)n + (size_t)a] = r[2 + a].r;
    }
    int bad = e ? -1 : follow_table_bad_row(t, rows);
    if (bad >= 0)
        e = bad == 0 || !isfinite(t[bad])
                ? FAIL(IRL_ERR_MATH, "%s: sample %d: its time is not a finite number", what, bad + 1)
                : FAIL(IRL_ERR_MATH, "%s: sample %d: t = %.9g s is not after sample %d's %.9g s: the times must "
                       "increase", what, bad + 1, t[bad], bad, t[bad - 1]);
    if (!e) e = follow_run_table(m, d, st, t, q, rows, q0, NULL, what, msg, msglen);
    free(t);
    return e;
}

/* MOVE FOLLOW "file.csv": the operand is the STRING's index. */
static int exec_follow_csv(Motion *m, const Stmt *st, char *msg, size_t msglen)
{
    const char *what = irl_motion_names[MK_MOVE_FOLLOW_CSV];
    double q0[PLANNER_MAX_AXES];
    int d, e0 = follow_device(m, st, what, &d, q0, msg, msglen);
    if (e0) return e0;
    int64_t k = st->nops >= 1 ? st->ops[0].i : -1;
    if (k < 0 || k >= m->chunk->nkstr) return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
    FollowCsv csv;
    char err[1400];
    if (follow_csv_read(&csv, st->src.file, m->chunk->kstr[k].text, m->devs->dev[d].model.dof, err, sizeof err) < 0)
        return FAIL(IRL_ERR_DEVICE, "%s: %s", what, err);
    int e = follow_run_table(m, d, st, csv.t, csv.q, csv.rows, q0, &csv, what, msg, msglen);
    follow_csv_free(&csv);
    return e;
}

/* MOVE FOLLOW f FOR T, called by the compiled loop (opcodes.h): operands T, t, state, then f's result (q, q̇, q̈:
 * shape values each). State -1: start; the door answers 1 (evaluate f at t into the result and call again) or 0
 * (done). */
static int exec_follow_fn(Motion *m, Value *args, int nargs, const Stmt *st, char *msg, size_t msglen)
{
    const char *what = irl_motion_names[MK_MOVE_FOLLOW_FN];
    int na = (int)st->shape;
    if (na < 1 || na > PLANNER_MAX_AXES || st->nops != 3 + 3 * na)
        return FAIL(IRL_ERR_USER, "%s: malformed operands", what);
    Value *op = args + (nargs - st->nops), *state = &op[2];
    const Value *res = op + 3;
    double T = op[0].r;
    int d, e;
    FollowStream *fs;
    if (state->i == -1) {
        double q0[PLANNER_MAX_AXES];
        if ((e = follow_device(m, st, what, &d, q0, msg, msglen))) return e;
        if (!(T > 0) || !isfinite(T))
            return FAIL(IRL_ERR_MATH, "%s: the duration after FOR must be finite and > 0, got %g s", what, T);
        fs = &m->dev[d].follow;
        memcpy(fs->start.q, q0, sizeof q0); /* where it stands, for the match of sample 0 */
        fs->start.t = m->t;
        m->dev[d].follow_k = 0;
        op[1].r = 0;
        state->i = 1;
        return 0;
    }
    if ((d = device_of(m, st, what, msg, msglen)) < 0) return -d;
    fs = &m->dev[d].follow;
    int n = m->devs->dev[d].model.dof;
    if (na != n)
        return FAIL(IRL_ERR_JOINT_COUNT, "%s: the function gives %d axes, device %s has %d", what, na,
                    m->devs->dev[d].name, n);
    FollowSample s;
    for (int a = 0; a < n; a++) s.q[a] = res[a].r, s.qd[a] = res[n + a].r, s.qdd[a] = res[2 * n + a].r;
    long k = m->dev[d].follow_k, K = follow_cycles(m, T);
    s.t = fs->start.t + (double)k * m->dt;
    if (k == 0) {
        if ((e = follow_match(m, d, &s, fs->start.q, what, NULL, msg, msglen))) return e;
        follow_begin(fs, (PlannerSrc){st->src.file, st->src.line, st->src.col}, &s);
        follow_step_note(m, d, &s, s.t, "starts moving from rest");
    } else if ((e = follow_put(m, d, &s, msg, msglen))) {
        return e;
    }
    if (k >= K) {
        state->i = 0;
        return follow_finish(m, d, &s, msg, msglen);
    }
    m->dev[d].follow_k = ++k;
    op[1].r = k == K ? T : (double)k * m->dt;
    return 0;
}

/* A motion statement's own error e (found while planning ahead) takes effect when the run reaches the statement:
 * the motion queued before it runs to its end first (dry-run, settle_errors). An error of that motion, or of the
 * clock, replaces e. */
static int settle(Motion *m, int e, char *msg, size_t msglen)
{
    if (e <= 0 || !m->settle_errors || motion_pending(m) == 0) return e;
    char later[512];
    SampleSrc cur = m->cur;
    int d = motion_drain(m, later, sizeof later);
    m->cur = cur;
    if (d) snprintf(msg, msglen, "%s", later);
    return d ? d : e;
}

/* BRAKE dev: the device's controlled stop from its last setpoint starts with the next cycle (exec_offline.c's
 * setpoint step samples it); its queued motion is dropped now, and a later MOVE starts where the stop ends. The
 * statement does not wait for the stop (a drain of the device does). */
static int exec_brake(Motion *m, const Stmt *st, char *msg, size_t msglen)
{
    int d = device_of(m, st, "BRAKE", msg, msglen);
    if (d < 0) return -d;
    MotionGmove *gm = &m->dev[d].gm;
    if (gm->on && (gm->have_end || gm->head > gm->tail))
        return FAIL(IRL_ERR_NOT_SUPPORTED, "BRAKE of %s under GMOVE: bring it to rest with GMOVE TO 1 G",
                    m->devs->dev[d].name);
    FollowStream *fs = &m->dev[d].follow; /* a FOLLOW's samples not yet commanded are dropped; it ends */
    fs->tail = fs->head;
    follow_end(fs);
    MotionBrake *b = &m->dev[d].brake;
    const ModelDesc *desc = &m->devs->dev[d].model.desc;
    int n = m->devs->dev[d].model.dof;
    double q[PLANNER_MAX_AXES], qd[PLANNER_MAX_AXES];
    for (int i = 0; i < n; i++) {
        const ModelAxisLimits *l = &desc->joint[i].limits;
        b->ax[i] = (SafetyAxis){l->min, l->max, l->vmax, l->amax, l->jmax, INFINITY};
    }
    safety_ramp_begin(&b->ramp, b->ax, n, m->dt, b->q, b->qd, b->qdd);
    SafetyRamp end = b->ramp;
    while (safety_ramp_next(&end, q, qd)) {}
    planner_reset(&m->dev[d].planner, q);
    b->state = 1;
    b->src = st->src;
    if (m->checks)
        checks_note_text(m->checks, d, m->t, st->src, "BRAKE %s: controlled stop from t = %.6g s, at rest %.6g s "
                         "later", m->devs->dev[d].name, m->t, (double)b->ramp.steps * m->dt);
    return 0;
}

/* Refuses the statement by name: no motion side is wired (a tool running the VM alone). */
static int refuse(MotionKind kind, char *msg, size_t msglen)
{
    const char *what = (unsigned)kind < MK_COUNT ? irl_motion_names[kind] : "motion statement";
    snprintf(msg, msglen, "%s is not supported yet: motion arrives with the planner", what);
    return IRL_ERR_NOT_SUPPORTED;
}

int motion_execute(Motion *m, MotionKind kind, Value *args, int nargs, char *msg, size_t msglen)
{
    if (!m || !m->cycle) return refuse(kind, msg, msglen);
    if (m->in_cond && kind != MK_IO_READ && kind != MK_SYNC)
        return FAIL(IRL_ERR_NOT_SUPPORTED, "%s in an INTERRUPT's condition: a condition only reads values",
                    (unsigned)kind < MK_COUNT ? irl_motion_names[kind] : "a motion statement");
    if (m->in_cond) { /* read as they are now: the cycle boundary is the point of the program */
        if (kind == MK_SYNC) m->nsync++;
        if (kind == MK_SYNC) return 0;
    }
    if (kind == MK_IO_READ || kind == MK_IO_WRITE) return exec_io(m, kind, args, nargs, msg, msglen);
    if (kind == MK_SYNC) {
        m->nsync++;
        if (nargs >= 1) m->cur = src_at(m, args[0].i);
        return motion_drain(m, msg, msglen);
    }
    Stmt st;
    if (decode(args, nargs, &st, m) != 0) return FAIL(IRL_ERR_USER, "malformed motion statement");
    m->cur = st.src;
    switch (kind) {
    case MK_MOVE_PTP: case MK_MOVE_LIN: case MK_MOVE_CIRC:
    case MK_MOVE_INC_PTP: case MK_MOVE_INC_LIN: case MK_MOVE_INC_CIRC:
        return settle(m, exec_move(m, kind, &st, msg, msglen), msg, msglen);
    case MK_GMOVE_TO: case MK_GMOVE_HOLD: case MK_GMOVE_PROFILE:
        return settle(m, exec_gmove(m, kind, &st, msg, msglen), msg, msglen);
    case MK_WAIT: return exec_wait(m, &st, msg, msglen);
    case MK_WAIT_FOR: return exec_wait_for(m, args, &st, msg, msglen);
    case MK_PULSE: return exec_pulse(m, &st, msg, msglen);
    case MK_MOVE_FOLLOW: return settle(m, exec_follow_table(m, &st, msg, msglen), msg, msglen);
    case MK_MOVE_FOLLOW_CSV: return settle(m, exec_follow_csv(m, &st, msg, msglen), msg, msglen);
    case MK_MOVE_FOLLOW_FN: return settle(m, exec_follow_fn(m, args, nargs, &st, msg, msglen), msg, msglen);
    /* tasks, events, interrupts */
    case MK_SIGNAL: return motion_drain(m, msg, msglen);
    case MK_WAIT_EVENT: return exec_wait_event(m, args, &st, msg, msglen);
    case MK_BRAKE: return exec_brake(m, &st, msg, msglen);
    case MK_TRIGGER: return exec_trigger(m, &st, msg, msglen);
    case MK_MOVE_SPLINE: return settle(m, exec_spline(m, &st, msg, msglen), msg, msglen);
    default: return refuse(kind, msg, msglen);
    }
}
