/* exec_offline.c — the virtual-clock executor of the dry-run (exec_offline.h). The cycle reads as its list of
 * steps: inputs, then per device setpoint, pose, dynamics, outputs, singularity; then checks, trace, progress. */
#include "exec/exec_offline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errcodes.h"
#include "geom.h"
#include "output/plot.h"
#include "output/report.h"
#include "output/report_html.h"
#include "osal.h"
#include "version.h"

enum { EX_OK = 0, EX_RUNTIME = 1, EX_USAGE = 64, EX_DATA = 65, EX_NOINPUT = 66 };

/* A pipelined cycle's record: what the first stage fills in a sample (sample_setpoints), packed, each device
 * with its own axes only (a Sample is sized for the largest machine: 40 kB). Device d's part starts at byte
 * ExecOffline.rec_off[d] of data: a PipeDev, then q, qd, qdd, jerk, pose, the commanded G and Gdot, the TCP speed;
 * the digital I/O values follow the devices (rec_io_off). The record is as
 * short as that (the two cores pass it through their caches, line by line). */
typedef struct {
    double t;
    long cycle;
    SampleSrc src;
    double data[];
} PipeRec;

typedef struct {
    SampleSrc src;
    int seg, ik_status, sing_due;
    double sing;
} PipeDev;

/* ---- Output folder. -------------------------------------------------------------------------------------- */

/* The output folder (outdir.h): --out DIR, a fresh temporary one (--out-temp), or out/<program name>. */
static int out_dir(ExecOffline *ex, char *err, size_t errlen)
{
    char dir[4096];
    if (ex->opt->out_dir) {
        snprintf(dir, sizeof dir, "%s", ex->opt->out_dir);
    } else {
        const char *base = strrchr(ex->program, '/');
        base = base ? base + 1 : ex->program;
        const char *dot = strrchr(base, '.');
        int n = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
        snprintf(dir, sizeof dir, "out/%.*s", n, base);
    }
    if (outdir_open(&ex->od, ex->opt->out_temp ? NULL : dir, err, errlen) < 0) return -1;
    ex->have_od = 1;
    snprintf(ex->out_dir, sizeof ex->out_dir, "%s", ex->od.dir);
    return 0;
}

/* The trace's file name in the output folder. */
static const char *trace_name(const ExecOffline *ex)
{
    return ex->opt->trace_h5 ? "trace.h5" : "trace.csv";
}

/* ---- Layout. --------------------------------------------------------------------------------------------- */

/* The device's trace columns; a G-profile machine's outputs are the commanded G and onset first, then the model's
 * (its felt magnitude renamed Gfelt, checked against the G limit through the derived "Gfelt" limit). */
static void layout(ExecOffline *ex)
{
    ex->lay.ndev = ex->devs.ndev;
    ex->lay.nio = 0;
    for (int k = 0; k < ex->devs.nio && ex->lay.nio < SAMPLE_MAX_IO; k++)
        if (ex->devs.io[k].kind == 0 || ex->devs.io[k].kind == 1) { /* DIN, DOUT */
            ex->io_of[ex->lay.nio] = k;
            snprintf(ex->lay.io_name[ex->lay.nio++], SAMPLE_NAME_LEN, "%s", ex->devs.io[k].name);
        }
    for (int d = 0; d < ex->devs.ndev; d++) {
        Device *dv = &ex->devs.dev[d];
        SampleDeviceInfo *info = &ex->lay.dev[d];
        sample_device_info_from_model(info, dv->name, &dv->model, dv->has_pose);
        info->desc = &dv->check_desc;
        ex->models[d] = ex->models_b[d] = &dv->model;
        if (dv->gprofile && info->nout + 2 <= SAMPLE_MAX_OUTPUTS) {
            ex->gmove_outs[d] = 1;
            for (int i = info->nout - 1; i >= 0; i--) {
                memcpy(info->out_name[i + 2], info->out_name[i], sizeof info->out_name[i]);
                sample_output_unit(info, i + 2, info->out_unit[i]);
                if (strcmp(info->out_name[i + 2], "G") == 0) snprintf(info->out_name[i + 2], MODEL_NAME_LEN, "Gfelt");
            }
            snprintf(info->out_name[0], MODEL_NAME_LEN, "G");
            snprintf(info->out_name[1], MODEL_NAME_LEN, "Gdot");
            sample_output_unit(info, 0, "G");
            sample_output_unit(info, 1, "G/s");
            info->nout += 2;
        }
        ex->tcp_out[d] = -1;
        if (dv->has_pose && info->nout < SAMPLE_MAX_OUTPUTS) { /* the TCP's linear speed, last */
            ex->tcp_out[d] = info->nout++;
            snprintf(info->out_name[ex->tcp_out[d]], MODEL_NAME_LEN, "tcp_speed");
            sample_output_unit(info, ex->tcp_out[d], "m/s");
        }
    }
}

/* ---- The cycle. ------------------------------------------------------------------------------------------ */

/* Copy n axis values. A 6-axis arm's is a constant-size copy the compiler inlines (otherwise a libc call per
 * vector, ten a cycle). */
static inline void copy_axes(double *dst, const double *src, int n)
{
    if (n == 6) memcpy(dst, src, 6 * sizeof(double));
    else memcpy(dst, src, (size_t)n * sizeof(double));
}

/* Device d's setpoint q, qd, qdd: written to the sample and kept as where a BRAKE would start. */
static void put_axes(ExecOffline *ex, SampleDevice *sd, int d, const double *q, const double *qd, const double *qdd)
{
    MotionBrake *b = &ex->motion.dev[d].brake;
    int n = ex->lay.dev[d].naxes;
    copy_axes(sd->q, q, n), copy_axes(sd->qd, qd, n), copy_axes(sd->qdd, qdd, n);
    for (int i = 0; i < n; i++) sd->jerk[i] = NAN;
    copy_axes(b->q, q, n), copy_axes(b->qd, qd, n), copy_axes(b->qdd, qdd, n);
}

/* A setpoint that does not come from the planner (a FOLLOW's sample, a BRAKE's ramp): put_axes, charged to
 * statement src, outside any planned segment. */
static void put_setpoint(ExecOffline *ex, SampleDevice *sd, int d, const double *q, const double *qd,
                         const double *qdd, SampleSrc src)
{
    put_axes(ex, sd, d, q, qd, qdd);
    sd->src = src;
    sd->seg = 0;
    ex->last_seg[d] = 0, ex->last_src[d] = src;
    sd->sing_due = 1;
}

/* The device's setpoint from a MOVE FOLLOW's samples, when one is running: 1, or 0 (the planner has it). The
 * FOLLOW's first cycle tells the closed loop the speed its setpoint starts with (its sample 0, at t - dt). */
static int step_follow(ExecOffline *ex, SampleDevice *sd, int d, double t)
{
    FollowStream *f = &ex->motion.dev[d].follow;
    FollowSample s, s0;
    int got = follow_take(f, t, ex->motion.dt, &s, &s0);
    if (!got) return 0;
    if (got == 2 && ex->cl[d]) closed_loop_set_reference(ex->cl[d], s0.q, s0.qd, s0.qdd);
    put_setpoint(ex, sd, d, s.q, s.qd, s.qdd, (SampleSrc){f->src.file, f->src.line, f->src.col});
    return 1;
}

/* BRAKE (motion.c planned the stop and dropped the queue): the device follows its stop ramp instead of the
 * planner until it is at rest. */
static void step_brake(ExecOffline *ex, Sample *s, int d)
{
    MotionBrake *b = &ex->motion.dev[d].brake;
    int n = ex->lay.dev[d].naxes;
    double dt = ex->motion.dt, q[PLANNER_MAX_AXES], qd[PLANNER_MAX_AXES], qdd[PLANNER_MAX_AXES];
    if (!safety_ramp_next(&b->ramp, q, qd)) b->state = 0;
    for (int i = 0; i < n; i++) qdd[i] = (qd[i] - b->qd[i]) / dt;
    put_setpoint(ex, &s->dev[d], d, q, qd, qdd, b->src);
}

/* Step: the device's setpoint (q, qd, qdd, jerk) from its GMOVE timeline, a BRAKE's ramp, a FOLLOW or its planner. */
static int step_setpoint(ExecOffline *ex, Sample *s, int d, double t, PlannerSetpoint *sp, char *msg, size_t msglen)
{
    SampleDevice *sd = &s->dev[d];
    MotionDevice *md = &ex->motion.dev[d];
    int n = ex->lay.dev[d].naxes;
    sp->has_pose = 0;
    sp->sing_due = 0;
    sd->ik_status = 0;
    sd->sing_due = 0;
    GmoveSample gs;
    SampleSrc src = {NULL, 0, 0};
    int g = motion_gmove_sample(&md->gm, t, &gs, &src);
    if (g < 0) return snprintf(msg, msglen, "GMOVE sampling failed"), IRL_ERR_MATH;
    if (g == 1) {
        for (int i = 0; i < n; i++) {
            sd->q[i] = gs.q[i], sd->qd[i] = gs.qd[i], sd->qdd[i] = gs.qdd[i], sd->jerk[i] = gs.qddd[i];
        }
        sd->src = src;
        sd->seg = 0, ex->last_seg[d] = 0;
        sd->sing_due = 1; /* a G-profile's gondola angles are solved from the commanded G, an IK */
        if (ex->gmove_outs[d]) sd->out[0] = gs.G, sd->out[1] = gs.Gdot;
        return 0;
    }
    if (md->brake.state) {
        step_brake(ex, s, d);
        return 0;
    }
    if (step_follow(ex, sd, d, t)) return 0;
    int rc = planner_sample(&md->planner, t, sp);
    put_axes(ex, sd, d, sp->q, sp->qd, sp->qdd);
    sd->src = (SampleSrc){sp->src.file, sp->seg_id ? sp->src.line : 0, sp->seg_id ? sp->src.col : 0};
    sd->seg = sp->seg_id;
    /* the cycle that arrives at rest is the exact stop of the statement that moved the device: its values (the
     * last jerk, the step of the acceleration to 0) belong to that statement, not to the one the program is at */
    if (!sp->seg_id && ex->last_seg[d]) sd->src = ex->last_src[d], sd->seg = ex->last_seg[d];
    ex->last_seg[d] = sp->seg_id, ex->last_src[d] = sd->src;
    sd->sing_due = ex->models[d]->type->singular_in_joint_space ? 1 : sp->sing_due;
    if (sp->sing_due == 2) sd->sing = sp->sing;
    if (ex->gmove_outs[d]) sd->out[0] = NAN, sd->out[1] = 0; /* filled from the felt G below */
    if (rc == PLANNER_EIK) {
        /* controlled stop: the planner holds the last good setpoint; drop what is queued */
        sd->ik_status = MODEL_EUNREACH;
        planner_reset(&md->planner, sp->q);
        ex->motion.fail_src = (SampleSrc){sp->src.file, sp->src.line, sp->src.col};
        ex->motion.fail_dev = d;
        snprintf(msg, msglen, "inverse kinematics failed at t = %.6g s on this statement's path (%s:%d:%d); motion "
                 "stopped", t, sp->src.file ? sp->src.file : ex->program, sp->src.line, sp->src.col);
        return IRL_ERR_IK;
    }
    return 0;
}

/* Step (open loop, a device with unpowered joints): their q, qd, qdd integrated along the powered joints'
 * setpoint (passive.h), replacing the planner's placeholders before anything is computed from the setpoint. */
static int step_passive(ExecOffline *ex, Sample *s, int d, double t, char *msg, size_t msglen)
{
    SampleDevice *sd = &s->dev[d];
    int st = passive_step(ex->pj[d], sd->q, sd->qd, sd->qdd);
    if (st < 0)
        return snprintf(msg, msglen, "the motion of the passive joints of device %s could not be computed at t = "
                        "%.6g s: %s", ex->lay.dev[d].name, t, model_strerror(st)), IRL_ERR_DEVICE;
    return 0;
}

/* The TCP's mean linear speed over the cycle that ends now: the displacement of the point `tool` (the present
 * $TOOL's offset, flange frame) between the model's tool-point poses prev and mp (model base frame; $BASE, a fixed
 * frame, changes no speed), over a cycle. A difference quotient like the jerk's: exact for what it says, and a
 * tenth of the Jacobian's cost in a cycle. */
static double tcp_speed(const double prev[7], const double mp[7], const double tool[3], double dt)
{
    double R[9], Rp[9], a[3] = {0, 0, 0}, b[3] = {0, 0, 0}, v = 0;
    if (tool[0] || tool[1] || tool[2]) { /* a TCP off the tool point turns with it */
        quat_to_m3(R, mp + 3), quat_to_m3(Rp, prev + 3);
        m3_mulv(a, R, tool), m3_mulv(b, Rp, tool);
    }
    for (int i = 0; i < 3; i++) v += (mp[i] + a[i] - prev[i] - b[i]) * (mp[i] + a[i] - prev[i] - b[i]);
    return sqrt(v) / dt;
}

/* Step: the TCP pose, from the model's tool point (the planner's on Cartesian segments, else forward kinematics)
 * with the $BASE and $TOOL of the moving segment (motion_tcp_pose), and the TCP's speed. */
static void step_pose(ExecOffline *ex, Sample *s, int d, const PlannerSetpoint *sp)
{
    if (!ex->lay.dev[d].has_pose) return;
    SampleDevice *sd = &s->dev[d];
    double mp[7], R[9], tool[3];
    if (sp->has_pose) {
        memcpy(mp, sp->pos, 3 * sizeof(double));
        memcpy(mp + 3, sp->quat, 4 * sizeof(double));
    } else if (model_fk(ex->models[d], sd->q, -1, mp, R) >= 0) {
        m3_to_quat(mp + 3, R);
    } else {
        for (int i = 0; i < 7; i++) sd->pose[i] = ex->prev_mp[d][i] = NAN;
        sd->tcp_speed = NAN;
        return;
    }
    motion_tcp_pose(&ex->motion, d, sd->seg, mp, sd->pose, tool);
    sd->tcp_speed = s->cycle > 0 ? tcp_speed(ex->prev_mp[d], mp, tool, ex->opt->cycle) : 0;
    memcpy(ex->prev_mp[d], mp, sizeof mp);
}

/* Step (--closed-loop): the engine follows this cycle's setpoint; its channels go to the sample. */
static int step_closed_loop(ExecOffline *ex, Sample *s, int d, double t, char *msg, size_t msglen)
{
    ClosedLoop *cl = ex->cl[d];
    SampleDevice *sd = &s->dev[d];
    int nev = cl->stats.nev;
    int st = closed_loop_step(cl, sd->q, sd->qd, sd->qdd);
    for (int k = nev; k < cl->stats.nev; k++) ex->cl_ev_src[d][k] = sd->src;
    closed_loop_channel_values(cl, sd->cl);
    if (st < 0)
        return snprintf(msg, msglen, "the closed-loop simulation of device %s failed at t = %.6g s: %s",
                        ex->lay.dev[d].name, t, closed_loop_strerror(st)), IRL_ERR_DEVICE;
    return 0;
}

/* Step: inverse dynamics at the sampled state; under --closed-loop the controller's torque demand instead. */
static void step_dynamics(ExecOffline *ex, Sample *s, int d)
{
    SampleDevice *sd = &s->dev[d];
    if (ex->cl[d]) {
        memcpy(sd->tau, ex->cl[d]->out.tau, (size_t)ex->lay.dev[d].naxes * sizeof(double));
        sd->tau_ok = 1;
        return;
    }
    sd->tau_ok = ex->devs.dev[d].has_id &&
                 model_inverse_dynamics(ex->models_b[d], sd->q, sd->qd, sd->qdd, sd->tau) >= 0;
    if (!sd->tau_ok)
        for (int i = 0; i < ex->lay.dev[d].naxes; i++) sd->tau[i] = NAN;
}

/* Step: the model's own outputs (G-load, ...); a centrifuge's commanded G falls back on the felt one. */
static void step_outputs(ExecOffline *ex, Sample *s, int d)
{
    SampleDevice *sd = &s->dev[d];
    int off = ex->gmove_outs[d] ? 2 : 0, n = ex->lay.dev[d].nout - off - (ex->tcp_out[d] >= 0);
    if (ex->tcp_out[d] >= 0) sd->out[ex->tcp_out[d]] = sd->tcp_speed;
    if (n <= 0) return;
    if (model_outputs(ex->models_b[d], sd->q, sd->qd, sd->qdd, sd->out + off) < 0)
        for (int i = 0; i < n; i++) sd->out[off + i] = NAN;
    if (off && isnan(sd->out[0])) sd->out[0] = sd->out[2];
}

/* Step: the singularity measure (NAN when the back-end has none), or only the model's proof that it lies in the
 * band where it changes nothing in the checks (sample.h: sing_bound). */
static void step_singularity(ExecOffline *ex, Sample *s, int d)
{
    SampleDevice *sd = &s->dev[d];
    if (sd->sing_due != 1) { /* not due (NAN), or given by the motion side (sample.h) */
        if (sd->sing_due == 0) sd->sing = NAN;
        sd->sing_bound = 0;
        return;
    }
    double lo, hi;
    checks_sing_band(&ex->ck, d, &lo, &hi);
    int st = model_singularity_within(ex->models_b[d], sd->q, lo, hi, &sd->sing);
    sd->sing_bound = st > 0;
    if (st < 0) sd->sing = NAN;
}

/* The first stage of a cycle, in the VM's thread: every device's setpoint (and closed-loop step) and pose at time
 * t into s. Returns the first device error (after finishing the stage). */
static int sample_setpoints(ExecOffline *ex, Sample *s, double t, char *msg, size_t msglen)
{
    s->t = t;
    s->cycle = ex->cycle;
    s->src = ex->motion.cur;
    int err = triggers_cycle(&ex->motion, t, msg, msglen);   /* before the I/O columns: they show the switch */
    for (int k = 0; k < ex->lay.nio; k++) s->io[k] = ex->devs.io[ex->io_of[k]].value;
    for (int d = 0; d < ex->lay.ndev; d++) {
        PlannerSetpoint sp;
        int e = step_setpoint(ex, s, d, t, &sp, msg, msglen);
        if (e && !err) err = e;
        if (ex->pj[d] && (e = step_passive(ex, s, d, t, msg, msglen)) != 0 && !err) err = e;
        if (ex->cl[d] && (e = step_closed_loop(ex, s, d, t, msg, msglen)) != 0 && !err) err = e;
        step_pose(ex, s, d, &sp);
    }
    return err;
}

/* The second stage, in the worker's thread when pipelined: dynamics, outputs and singularity measure from the
 * stage's own models, then checks, trace row, progress. 0, or an error code with a message. */
static int finish_cycle(ExecOffline *ex, Sample *s, char *msg, size_t msglen)
{
    for (int d = 0; d < ex->lay.ndev; d++) {
        step_dynamics(ex, s, d);
        step_outputs(ex, s, d);
        step_singularity(ex, s, d);
    }
    checks_sample(&ex->ck, s);
    timeline_sample(&ex->tl, s);
    if (ex->html) report_html_sample(ex->html, s);
    int err = 0;
    if (ex->tracing && trace_row(&ex->tr, s) < 0)
        err = IRL_ERR_DEVICE, snprintf(msg, msglen, "cannot write %.200s: %s", ex->trace_path, trace_error(&ex->tr));
    progress_update(&ex->pg, s->t);
    return err;
}

/* Pack what sample_setpoints filled in s into the record r. */
static void pipe_pack(ExecOffline *ex, const Sample *s, PipeRec *r)
{
    r->t = s->t, r->cycle = s->cycle, r->src = s->src;
    if (ex->lay.nio) memcpy(r->data + ex->rec_io_off, s->io, (size_t)ex->lay.nio * sizeof(double));
    for (int d = 0; d < ex->lay.ndev; d++) {
        const SampleDevice *sd = &s->dev[d];
        int n = ex->lay.dev[d].naxes;
        PipeDev *h = (PipeDev *)(r->data + ex->rec_off[d]);
        double *v = (double *)(h + 1);
        copy_axes(v, sd->q, n), copy_axes(v + n, sd->qd, n), copy_axes(v + 2 * n, sd->qdd, n);
        copy_axes(v + 3 * n, sd->jerk, n), memcpy(v + 4 * n, sd->pose, sizeof sd->pose);
        v[4 * n + 7] = sd->out[0], v[4 * n + 8] = sd->out[1];
        v[4 * n + 9] = sd->tcp_speed;
        h->seg = sd->seg, h->src = sd->src, h->ik_status = sd->ik_status, h->sing_due = sd->sing_due, h->sing = sd->sing;
    }
}

/* The inverse of pipe_pack into the second stage's sample s. The fields the
 * first stage does not fill (the commanded G and Gdot of a device without them, ...) are left as they are. */
static void pipe_unpack(ExecOffline *ex, const PipeRec *r, Sample *s)
{
    s->t = r->t, s->cycle = r->cycle, s->src = r->src;
    if (ex->lay.nio) memcpy(s->io, r->data + ex->rec_io_off, (size_t)ex->lay.nio * sizeof(double));
    for (int d = 0; d < ex->lay.ndev; d++) {
        SampleDevice *sd = &s->dev[d];
        int n = ex->lay.dev[d].naxes;
        const PipeDev *h = (const PipeDev *)(r->data + ex->rec_off[d]);
        const double *v = (const double *)(h + 1);
        copy_axes(sd->q, v, n), copy_axes(sd->qd, v + n, n), copy_axes(sd->qdd, v + 2 * n, n);
        copy_axes(sd->jerk, v + 3 * n, n), memcpy(sd->pose, v + 4 * n, sizeof sd->pose);
        if (ex->gmove_outs[d]) sd->out[0] = v[4 * n + 7], sd->out[1] = v[4 * n + 8];
        sd->tcp_speed = v[4 * n + 9];
        sd->seg = h->seg, sd->src = h->src, sd->ik_status = h->ik_status, sd->sing_due = h->sing_due, sd->sing = h->sing;
    }
}

/* The worker's consume function: the second stage of one pipelined cycle. Until the pipe holds an error, a message
 * goes to pipe_msg, which the VM's thread reads only once cycle_pipe_error is nonzero (the pipe publishes the error
 * after this returns); later ones go nowhere. */
static int finish_piped(void *ctx, void *rec)
{
    ExecOffline *ex = ctx;
    pipe_unpack(ex, rec, ex->sb);
    char later[sizeof ex->pipe_msg];
    return finish_cycle(ex, ex->sb, cycle_pipe_error(&ex->pipe) ? later : ex->pipe_msg, sizeof later);
}

/* Sample every device at time t, check, trace: both stages here, or the first here and the second handed to the
 * worker. Returns the first error (after finishing the cycle). */
static int sample_cycle(ExecOffline *ex, double t, char *msg, size_t msglen)
{
    if (ex->pipe.started) { /* the second stage runs in the pipe's worker */
        int e = cycle_pipe_error(&ex->pipe);
        if (e) return snprintf(msg, msglen, "%s", ex->pipe_msg), e;
        e = sample_setpoints(ex, &ex->s, t, msg, msglen);
        pipe_pack(ex, &ex->s, cycle_pipe_claim(&ex->pipe));
        cycle_pipe_commit(&ex->pipe);
        return e;
    }
    int err = sample_setpoints(ex, &ex->s, t, msg, msglen);
    char m2[sizeof ex->pipe_msg];
    int e = finish_cycle(ex, &ex->s, m2, sizeof m2);
    if (e && !err) err = e, snprintf(msg, msglen, "%s", m2);
    return err;
}

/* The end of the run before cycle n: an interrupt, or the --max-time bound. 0, or the negative code that ends
 * the run past any handler (motion.h). */
static int run_bound(ExecOffline *ex, double t, char *msg, size_t msglen)
{
    int sig = ex->opt->online ? 0 : osal_interrupted();
    if (sig) {
        ex->interrupted = sig;
        snprintf(msg, msglen, "interrupted by %s at t = %.6g s", sig == SIGINT ? "SIGINT" : "SIGTERM", ex->motion.t);
        return -IRL_ERR_USER;
    }
    if (t > ex->opt->max_time * (1 + 1e-12) && !ex->opt->online)
        return snprintf(msg, msglen, "the run reached its bound on simulated time, --max-time %.6g s, while this "
                        "statement was executing (give a larger --max-time if the program is meant to run that "
                        "long)", ex->opt->max_time), -IRL_ERR_TIMEOUT;
    return 0;
}

int exec_offline_cycle(void *ctx, char *msg, size_t msglen)
{
    ExecOffline *ex = ctx;
    if (ex->stopped) return snprintf(msg, msglen, "%s", ex->stop_msg), ex->stopped;
    double t = ex->rate > 0 ? (double)(ex->cycle + 1) / ex->rate : (double)(ex->cycle + 1) * ex->opt->cycle;
    int b = run_bound(ex, t, msg, msglen);
    if (b) return ex->stopped = b, ex->clock_err = 1, snprintf(ex->stop_msg, sizeof ex->stop_msg, "%s", msg), b;
    ex->cycle++;
    ex->motion.t = t;
    ex->vm->sys[ex->time_slot].r = t;
    devices_io_tick(&ex->devs, t);
    if (!ex->active) return 0;
    int e = sample_cycle(ex, t, msg, msglen);
    ex->clock_err = e != 0;
    return e;
}

/* ---- Closed loop. ---------------------------------------------------------------------------------------- */

/* Gains from the machine file's PARAM `name` (one value, or one per axis) into v. 0 (absent or read), -1 (bad,
 * message in err). */
static int machine_gain(const Device *dv, const char *name, double *v, int n, char *err, size_t errlen)
{
    const ModelParam *p = model_desc_param(&dv->model.desc, name);
    if (!p) return 0;
    if (p->n != 1 && p->n != n)
        return snprintf(err, errlen, "%.300s: PARAM %s has %d values; device %s has %d axes (give one value or %d)",
                        dv->path, name, p->n, dv->name, n, n), -1;
    for (int j = 0; j < n; j++) {
        double x = p->v[p->n == 1 ? 0 : j];
        if (!(isfinite(x) && x >= 0)) return snprintf(err, errlen, "%.300s: PARAM %s: gains must be finite and >= 0",
                                                      dv->path, name), -1;
        v[j] = x;
    }
    return 0;
}

/* The gains of device d: defaults from the bandwidth, then the machine file, then the command line. 0, or an
 * exit status after a message in err. */
static int closed_loop_gains(ExecOffline *ex, int d, ClosedLoopGains *g, char *err, size_t errlen)
{
    const RunOptions *o = ex->opt;
    Device *dv = &ex->devs.dev[d];
    int n = dv->model.dof, pid = o->controller == RUN_CONTROLLER_PID;
    int st = controller_gains_default(g, &dv->model, pid ? CONTROLLER_PID : CONTROLLER_CT, o->bandwidth, o->cycle);
    if (st < 0)
        return snprintf(err, errlen, "--closed-loop: device %s: no default gains (%s)", dv->name,
                        model_strerror(st)), EX_RUNTIME;
    const char *pre = pid ? "pid_" : "ct_";
    static const char *const which[3] = {"kp", "kd", "ki"};
    double *dst[3] = {g->kp, g->kd, g->ki};
    const char *arg[3] = {o->kp, o->kd, o->ki};
    for (int k = 0; k < 3; k++) {
        char name[16];
        snprintf(name, sizeof name, "%s%s", pre, which[k]);
        if (!pid && k == 2) { /* computed torque has no integral term */
            if (model_desc_param(&dv->model.desc, name))
                return snprintf(err, errlen, "%.300s: PARAM %s: the computed-torque controller has no integral gain",
                                dv->path, name), EX_DATA;
            if (arg[k])
                return snprintf(err, errlen, "--ki applies to --controller pid only (computed torque has no "
                                "integral term)"), EX_USAGE;
            continue;
        }
        if (machine_gain(dv, name, dst[k], n, err, errlen) < 0) return EX_DATA;
        if (arg[k] && controller_parse_list(arg[k], dst[k], n) < 0)
            return snprintf(err, errlen, "--%s %s: give one value or %d (device %s has %d axes)", which[k], arg[k],
                            n, dv->name, n), EX_USAGE;
    }
    return 0;
}

/* Where device d's simulated machine starts: --actual-start's q (and q̇), else on its setpoint at rest. 0, or an
 * exit status (message in err). */
static int actual_start(ExecOffline *ex, int d, const double **q0, const double **qd0, char *err, size_t errlen)
{
    const RunOptions *o = ex->opt;
    const Device *dv = &ex->devs.dev[d];
    for (int i = 0; i < o->nactual; i++) {
        const RunActualStart *a = &o->actual[i];
        if (strcasecmp(a->dev, dv->name) != 0) continue;
        if (a->n != dv->model.dof)
            return snprintf(err, errlen, "--actual-start %s gives %d values for %d axes", dv->name, a->n,
                            dv->model.dof), EX_USAGE;
        *q0 = a->q;
        *qd0 = a->nd ? a->qd : NULL;
    }
    return 0;
}

/* Set up one engine per device, and the layout's closed-loop channels. 0, or an exit status (message in err). */
static int closed_loop_setup(ExecOffline *ex, char *err, size_t errlen)
{
    for (int i = 0; i < ex->opt->nactual; i++) {
        int found = 0;
        for (int d = 0; d < ex->devs.ndev; d++) found |= strcasecmp(ex->opt->actual[i].dev, ex->devs.dev[d].name) == 0;
        if (!found)
            return snprintf(err, errlen, "--actual-start %s: the program has no device of that name",
                            ex->opt->actual[i].dev), EX_USAGE;
    }
    for (int d = 0; d < ex->devs.ndev; d++) {
        Device *dv = &ex->devs.dev[d];
        ClosedLoopGains g;
        int st = closed_loop_gains(ex, d, &g, err, errlen);
        if (st) return st;
        ex->cl[d] = calloc(1, sizeof *ex->cl[d]);
        ex->cl_ev_src[d] = calloc(CLOSED_LOOP_MAX_EVENTS, sizeof *ex->cl_ev_src[d]);
        if (!ex->cl[d] || !ex->cl_ev_src[d]) return snprintf(err, errlen, "out of memory"), EX_RUNTIME;
        ClosedLoopConfig cfg = {.cycle = ex->opt->cycle, .continuous = ex->opt->controller_continuous};
        const double *q0 = dv->start, *qd0 = NULL;
        if ((st = actual_start(ex, d, &q0, &qd0, err, errlen))) return st;
        char e[400];
        if (closed_loop_init(ex->cl[d], &dv->model, &g, &cfg, q0, qd0, e, sizeof e) < 0) {
            free(ex->cl[d]), ex->cl[d] = NULL;
            return snprintf(err, errlen, "--closed-loop: device %s: %s", dv->name, e), EX_RUNTIME;
        }
        double zero[MODEL_MAX_DOF] = {0};
        closed_loop_set_reference(ex->cl[d], dv->start, zero, zero); /* the setpoint stands at the start */
        SampleDeviceInfo *info = &ex->lay.dev[d];
        static const char *const grp[SAMPLE_MAX_CL_GROUPS] = {"qa", "e", "u", "i"};
        info->ncl_groups = info->naxes ? closed_loop_channel_count(ex->cl[d]) / info->naxes : 0;
        for (int k = 0; k < info->ncl_groups; k++) snprintf(info->cl_group[k], sizeof info->cl_group[k], "%s", grp[k]);
    }
    return 0;
}

/* Free the engines. */
static void closed_loop_teardown(ExecOffline *ex)
{
    for (int d = 0; d < SAMPLE_MAX_DEVICES; d++) {
        if (ex->cl[d]) closed_loop_free(ex->cl[d]);
        free(ex->cl[d]), ex->cl[d] = NULL;
        free(ex->cl_ev_src[d]), ex->cl_ev_src[d] = NULL;
    }
}

/* ---- Passive joints (open loop). ------------------------------------------------------------------------- */

/* An integrator for each device with unpowered joints. A back-end without semi-inverse dynamics keeps the
 * planner's placeholders, with a warning. 0, or an exit status (message in err). */
static int passive_setup(ExecOffline *ex, char *err, size_t errlen)
{
    for (int d = 0; d < ex->devs.ndev; d++) {
        Device *dv = &ex->devs.dev[d];
        if (passive_count(&dv->model) == 0) continue;
        if (!dv->model.type->semi_inverse) {
            fprintf(stderr, "irl: warning: device %s: the %s back-end has no semi-inverse dynamics: its passive "
                    "joints keep the planner's placeholder setpoint\n", dv->name, dv->model.type->name);
            continue;
        }
        char e[400];
        if (!(ex->pj[d] = passive_new(&dv->model, dv->start, ex->opt->cycle, e, sizeof e)))
            return snprintf(err, errlen, "device %s: %s", dv->name, e), EX_RUNTIME;
    }
    return 0;
}

/* Free the integrators. */
static void passive_teardown(ExecOffline *ex)
{
    for (int d = 0; d < SAMPLE_MAX_DEVICES; d++) passive_free(ex->pj[d]), ex->pj[d] = NULL;
}

/* ---- The pipeline. -------------------------------------------------------------------------------------- */

/* Cycles in flight: each stage can run a scheduler time slice ahead of the other, and the first can run through
 * a stretch where the second is the slower (a program's first seconds, where the singularity measure meets new
 * extremes it must compute exactly: on the benchmark ~7 ms of the second stage's work more than the first's in
 * the first 6 s) without waiting for it. As many as fit in EXEC_PIPE_BYTES (8192 records of a 6-axis arm's 512
 * bytes), but at least EXEC_PIPE_MIN_SLOTS. */
#define EXEC_PIPE_BYTES (4u << 20)
#define EXEC_PIPE_MIN_SLOTS 1024
#define EXEC_PIPE_MAX_SLOTS 8192

/* Close the twins and the ring; the second stage is back on the devices' own models. */
static void pipe_teardown(ExecOffline *ex)
{
    cycle_pipe_finish(&ex->pipe);
    cycle_pipe_free(&ex->pipe);
    free(ex->sb), ex->sb = NULL;
    for (int d = 0; d < SAMPLE_MAX_DEVICES; d++) {
        if (ex->twin[d]) model_close(ex->twin[d]);
        free(ex->twin[d]), ex->twin[d] = NULL;
        ex->models_b[d] = ex->models[d];
    }
}

/* Twin models for the second stage and the ring of samples, for an open-loop offline run with --threads 2.
 * 1 set up, 0 not wanted or not possible (the run then stays in one thread, as it would with --threads 1). */
static int pipe_setup(ExecOffline *ex)
{
    const RunOptions *o = ex->opt;
    if (o->threads < 2 || o->closed_loop || o->online) return 0;
    for (int d = 0; d < ex->lay.ndev; d++) {
        char e[256];
        ex->twin[d] = calloc(1, sizeof *ex->twin[d]);
        if (!ex->twin[d] || model_open(ex->twin[d], &ex->models[d]->desc, e, sizeof e) < 0) {
            free(ex->twin[d]), ex->twin[d] = NULL;
            return pipe_teardown(ex), 0;
        }
    }
    size_t ndata = 0; /* doubles */
    for (int d = 0; d < ex->lay.ndev; d++) {
        ex->rec_off[d] = ndata;
        ndata += (sizeof(PipeDev) + 7) / 8 + 4 * (size_t)ex->lay.dev[d].naxes + 10;
    }
    ex->rec_io_off = ndata;
    ndata += (size_t)ex->lay.nio;
    size_t size = (sizeof(PipeRec) + ndata * sizeof(double) + 63) / 64 * 64; /* records share no cache line */
    ex->sb = malloc(sizeof *ex->sb);
    size_t slots = EXEC_PIPE_BYTES / size;
    if (slots < EXEC_PIPE_MIN_SLOTS) slots = EXEC_PIPE_MIN_SLOTS;
    if (slots > EXEC_PIPE_MAX_SLOTS) slots = EXEC_PIPE_MAX_SLOTS;
    if (!ex->sb || cycle_pipe_init(&ex->pipe, slots, size) < 0) return pipe_teardown(ex), 0;
    sample_init(ex->sb, &ex->lay);
    for (int d = 0; d < ex->lay.ndev; d++) ex->models_b[d] = ex->twin[d];
    return 1;
}

/* Start the worker (after everything the second stage uses is set up); without one the run stays in one thread. */
static void pipe_start(ExecOffline *ex)
{
    if (cycle_pipe_start(&ex->pipe, finish_piped, ex) != 0) pipe_teardown(ex);
}

/* ---- Begin and end. -------------------------------------------------------------------------------------- */

int exec_offline_begin(ExecOffline *ex, Vm *vm, const Chunk *c, const char *program, const RunOptions *o)
{
    memset(ex, 0, sizeof *ex);
    ex->opt = o;
    ex->chunk = c;
    ex->program = program;
    ex->vm = vm;
    for (int i = 0; i < SV_TIME; i++) ex->time_slot += irl_sysvarinfo[i].nslots; /* $TIME's slot */
    /* program time without accumulation: where a whole number of cycles makes a second, t = cycle / rate, so 1902
     * cycles of 1 ms are 1.902 s exactly; else cycle * period */
    double rate = round(1.0 / o->cycle);
    ex->rate = fabs(rate * o->cycle - 1.0) < 1e-12 ? rate : 0;
    char err[600];
    int rc = devices_bind(&ex->devs, c, o->machines, o, err, sizeof err);
    if (rc != DEVICES_OK) {
        if (err[0]) fprintf(stderr, "irl: %s\n", err);
        devices_free(&ex->devs);
        return rc == DEVICES_EIO ? EX_NOINPUT : EX_DATA;
    }
    if (motion_init(&ex->motion, c, &ex->devs, vm->sys, o->cycle, o->time_scale, err, sizeof err) != 0) {
        fprintf(stderr, "irl: %s\n", err);
        motion_free(&ex->motion);
        devices_free(&ex->devs);
        return EX_DATA;
    }
    ex->motion.cycle = exec_offline_cycle;
    ex->motion.cycle_ctx = ex;
    motion_display(&ex->motion, !o->display_si);
    ex->motion.max_time = o->online ? 0 : o->max_time;
    ex->motion.vars = vm->stack;
    ex->motion.nvars = c->nglobals;
    vm->motion = &ex->motion;
    ex->active = ex->devs.ndev > 0;
    if (!ex->active) return EX_OK;

    layout(ex);
    if (o->closed_loop && (rc = closed_loop_setup(ex, err, sizeof err)) != 0) {
        fprintf(stderr, "irl: %s\n", err);
        closed_loop_teardown(ex);
        vm->motion = NULL;
        motion_free(&ex->motion);
        devices_free(&ex->devs);
        return rc;
    }
    if (!o->closed_loop && passive_setup(ex, err, sizeof err) != 0) goto fail;
    sample_init(&ex->s, &ex->lay);
    int pipelined = pipe_setup(ex);
    ChecksConfig cc = {.cycle = o->cycle, .gravity = checks_model_gravity, .gravity_ud = ex->models_b};
    if (checks_init(&ex->ck, &ex->lay, &cc, err, sizeof err) < 0) goto fail;
    ex->have_checks = 1;
    ex->motion.checks = &ex->ck;
    if (timeline_init(&ex->tl, ex->lay.ndev, o->cycle) < 0) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    timeline_loop(&ex->tl, c);
    if (out_dir(ex, err, sizeof err) < 0) goto fail;
    if (!o->no_trace) {
        char part[4300];
        snprintf(ex->trace_path, sizeof ex->trace_path, "%s/%s", ex->out_dir, trace_name(ex));
        if (outdir_file(&ex->od, trace_name(ex), 1, part, sizeof part, err, sizeof err) < 0) goto fail;
        ex->trace_meta = (TraceMeta){.program = ex->program, .version = IRL_VERSION, .cycle = o->cycle};
        TraceOptions to = {.digits = o->digits, .every = 1, .format = o->trace_h5 ? TRACE_H5 : TRACE_CSV,
                           .meta = &ex->trace_meta};
        if (!o->no_plots && !o->out_temp) { /* the figures read a thinned copy, written as the trace is */
            if (outdir_file(&ex->od, "plots.csv", 0, ex->plot_data, sizeof ex->plot_data, err, sizeof err) < 0)
                goto fail;
            to.thin_path = ex->plot_data, to.thin_rows = PLOT_MAX_POINTS;
        }
        if (trace_open(&ex->tr, part, &ex->lay, &to, err, sizeof err) < 0) goto fail;
        ex->tracing = 1;
    }
    if (!o->online) osal_interrupt_catch();
    ex->motion.settle_errors = !o->online;
    progress_begin(&ex->pg, stderr, "dry-run", "s", 0);
    if (o->progress >= 0) progress_force(&ex->pg, o->progress);
    if (pipelined) pipe_start(ex);
    if (!o->no_html) ex->html = report_html_create(&ex->lay);
    char msg[256];
    if (sample_cycle(ex, 0.0, msg, sizeof msg) != 0) {
        snprintf(err, sizeof err, "%s", msg);
        goto fail;
    }
    return EX_OK;
fail:
    fprintf(stderr, "irl: %s\n", err);
    pipe_teardown(ex);
    if (ex->tracing) trace_close(&ex->tr, err, sizeof err);
    report_html_free(&ex->html);
    osal_interrupt_release();
    if (ex->have_od) outdir_close(&ex->od);
    if (ex->have_checks) checks_free(&ex->ck);
    timeline_free(&ex->tl);
    closed_loop_teardown(ex);
    passive_teardown(ex);
    vm->motion = NULL;
    motion_free(&ex->motion);
    devices_free(&ex->devs);
    return EX_RUNTIME;
}

/* The VM's unhandled error as "file:line:col: runtime error: message (ERR_NAME)". */
static void vm_error_text(ExecOffline *ex)
{
    const Vm *vm = ex->vm;
    const Chunk *c = ex->chunk;
    const char *file = ex->program;
    int line = 0, col = 0;
    if (vm->err_pc >= 0 && vm->err_pc < c->ncode) {
        ChunkLine l = c->lines[vm->err_pc];
        if (l.file >= 0 && l.file < c->nfiles) file = c->kstr[c->files[l.file]].text;
        line = l.line, col = l.col;
    }
    const char *name = vm_errname(vm->err_code);
    snprintf(ex->error, sizeof ex->error, "%s:%d:%d: runtime error: %s (%s)", file, line, col, vm->err_msg,
             name ? name : "?");
}

/* The statement the run ended at: the VM's error, else the motion's failure or its last statement. */
static SampleSrc end_src(const ExecOffline *ex)
{
    const Chunk *c = ex->chunk;
    if (ex->error[0] && ex->vm->err_pc >= 0 && ex->vm->err_pc < c->ncode) {
        ChunkLine l = c->lines[ex->vm->err_pc];
        const char *file = l.file >= 0 && l.file < c->nfiles ? c->kstr[c->files[l.file]].text : ex->program;
        if (l.line > 0) return (SampleSrc){file, l.line, l.col};
    }
    return ex->motion.fail_src.line > 0 ? ex->motion.fail_src : ex->motion.cur;
}

/* Print the report's error lines (violations with file:line:col) on stderr. */
static void print_summary(ExecOffline *ex, const ReportInfo *info)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    report_text(f, &ex->ck, info);
    fclose(f);
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        if (strstr(line, ": error: ") || strstr(line, ": warning: ") || strstr(line, ": note: every torque") ||
            strstr(line, ": note: no time"))
            fprintf(stderr, "%s\n", line);
        line = nl ? nl + 1 : NULL;
    }
    free(buf);
}

/* The error that ended the run while the queues drained, as the VM would have reported it: at the statement whose
 * motion failed, else at the last statement. */
static void drain_error(ExecOffline *ex, int e, const char *msg)
{
    const SampleSrc *s = ex->motion.fail_src.line > 0 ? &ex->motion.fail_src : &ex->motion.cur;
    const char *name = vm_errname(e < 0 ? -e : e);
    snprintf(ex->error, sizeof ex->error, "%s:%d:%d: runtime error: %s (%s)", s->file ? s->file : ex->program,
             s->line, s->col, msg, name ? name : "?");
    fprintf(stderr, "%s\n", ex->error);
}

/* Write report.json and report.txt under .part names, then rename them. 0 or -1 (message in err). */
static int write_reports(ExecOffline *ex, const ReportInfo *info, char *err, size_t errlen)
{
    char jp[4300], tp[4300];
    if (outdir_file(&ex->od, "report.json", 1, jp, sizeof jp, err, errlen) < 0 ||
        outdir_file(&ex->od, "report.txt", 1, tp, sizeof tp, err, errlen) < 0 ||
        report_write(&ex->ck, info, jp, tp, err, errlen) < 0 ||
        (!ex->opt->no_html && report_html_save(&ex->html, &ex->od, &ex->ck, info, ex->models, err, errlen) < 0))
        return -1;
    return outdir_commit(&ex->od, "report.json", err, errlen) < 0 ? -1 : outdir_commit(&ex->od, "report.txt", err,
                                                                                      errlen);
}

int exec_offline_end(ExecOffline *ex, int vm_status)
{
    int status = vm_status == VM_OK ? EX_OK : EX_RUNTIME;
    if (vm_status != VM_OK && !ex->interrupted) vm_error_text(ex);
    if (vm_status == VM_STOPPED && !ex->interrupted) fprintf(stderr, "%s\n", ex->error);
    /* the end of the program drains the queues; so does (dry-run) an error of a statement: the motion programmed
       before it runs to its end, as on a controller that meets the error when it reaches the statement */
    if (!ex->stopped && (vm_status == VM_OK || (!ex->opt->online && !ex->clock_err))) {
        char msg[VM_MSG_LEN];
        int e = motion_drain(&ex->motion, msg, sizeof msg);
        if (!e && vm_status == VM_OK) e = triggers_unbound(&ex->motion, msg, sizeof msg);
        if (e && !ex->interrupted && vm_status == VM_OK) drain_error(ex, e, msg);
        if (e) status = EX_RUNTIME;
    }
    if (ex->interrupted) fprintf(stderr, "irl: %s: the outputs end there (verdict INCOMPLETE)\n", ex->stop_msg);
    if (ex->active) {
        cycle_pipe_finish(&ex->pipe); /* the second stage of every cycle is done; its models still open */
        pipe_teardown(ex);
        if (cycle_pipe_error(&ex->pipe) && status == EX_OK) {
            fprintf(stderr, "irl: %s\n", ex->pipe_msg);
            if (!ex->error[0]) snprintf(ex->error, sizeof ex->error, "%s", ex->pipe_msg);
            status = EX_RUNTIME;
        }
        progress_end(&ex->pg);
        checks_charge_start(&ex->ck, end_src(ex));
        char err[600];
        if (ex->tracing && (ex->interrupted || ex->error[0]))
            trace_incomplete(&ex->tr, ex->interrupted ? ex->stop_msg : ex->error);
        if (ex->tracing && (trace_close(&ex->tr, err, sizeof err) < 0 ||
                            outdir_commit(&ex->od, trace_name(ex), err, sizeof err) < 0)) {
            fprintf(stderr, "irl: %s\n", err);
            status = EX_RUNTIME;
        }
        ReportInfo info = {.program = ex->program, .cycle = ex->opt->cycle, .error = ex->error[0] ? ex->error : NULL,
                           .trace = ex->tracing ? ex->trace_path : NULL,
                           .incomplete = ex->interrupted ? ex->stop_msg : NULL, .timeline = &ex->tl,
                           .degrees = !ex->opt->display_si};
        timeline_finish(&ex->tl);
        int nsat = 0;
        if (ex->opt->closed_loop) {
            info.closed_loop = (const ClosedLoop *const *)ex->cl;
            info.cl_ev_src = (const SampleSrc *const *)ex->cl_ev_src;
            for (int d = 0; d < ex->lay.ndev; d++) nsat += ex->cl[d] ? ex->cl[d]->stats.nev : 0;
        }
        if (write_reports(ex, &info, err, sizeof err) < 0) {
            fprintf(stderr, "irl: %s\n", err);
            status = EX_RUNTIME;
        }
        report_html_free(&ex->html); /* when write_reports stopped before the page */
        if (!checks_passed(&ex->ck)) status = EX_RUNTIME;
        if (!checks_passed(&ex->ck) || nsat) print_summary(ex, &info);
        if (ex->tracing && ex->plot_data[0]) {
            PlotOptions po = {.dir = ex->out_dir, .trace = ex->plot_data,
                              .progress = ex->opt->progress != 0, .timeout = ex->opt->plot_timeout, .out = &ex->od,
                              .degrees = !ex->opt->display_si};
            int pr = plot_all(&ex->ck, &po, err, sizeof err);
            if (pr != PLOT_OK) fprintf(stderr, "irl: %s%s\n", pr != PLOT_FAILED ? "warning: " : "", err);
        }
        checks_free(&ex->ck);
        timeline_free(&ex->tl);
        if (ex->opt->online) outdir_file(&ex->od, "online.json", 0, err, sizeof err, err, sizeof err);
    }
    if (!ex->interrupted && ex->active && !ex->opt->online) ex->interrupted = osal_interrupted(); /* while plotting */
    osal_interrupt_release();
    if (ex->interrupted) status = 128 + ex->interrupted;
    if (ex->have_od) outdir_close(&ex->od), ex->have_od = 0;
    closed_loop_teardown(ex);
    passive_teardown(ex);
    ex->vm->motion = NULL;
    motion_free(&ex->motion);
    devices_free(&ex->devs);
    return status;
}
