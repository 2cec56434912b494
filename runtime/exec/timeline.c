/* timeline.c — the motion statements' timeline and the program's cycle time (timeline.h). */
#include "exec/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "opcodes.h"

int timeline_init(Timeline *tl, int ndev, double dt)
{
    memset(tl, 0, sizeof *tl);
    tl->dt = dt;
    tl->ndev = ndev;
    tl->mv = calloc(TIMELINE_MAX, sizeof *tl->mv);
    tl->pass = calloc(TIMELINE_MAX, sizeof *tl->pass);
    if (!tl->mv || !tl->pass) return timeline_free(tl), -1;
    return 0;
}

void timeline_free(Timeline *tl)
{
    free(tl->mv), free(tl->pass);
    tl->mv = NULL, tl->pass = NULL;
}

void timeline_loop(Timeline *tl, const Chunk *c)
{
    if (c->nroutines < 1) return;
    const ChunkRoutine *r = &c->routines[0];
    int best_lo = -1, best_hi = -1;
    for (int pc = r->entry; pc < r->end && pc < c->ncode; pc++) {
        Instr in = c->code[pc];
        int off = INSTR_OP(in) == OP_JMP ? INSTR_SBX(in) : INSTR_OP(in) == OP_FORLOOP ? INSTR_SC(in) : 0;
        if (off >= 0) continue;
        int target = pc + 1 + off; /* a backward jump closes a loop [target, pc] */
        if (target >= r->entry && pc - target > best_hi - best_lo) best_lo = target, best_hi = pc;
    }
    if (best_lo < 0) return;
    int lo = 0, hi = 0;
    for (int pc = best_lo; pc <= best_hi; pc++) {
        const ChunkLine *l = &c->lines[pc];
        if (l->file != 0 || l->line <= 0) continue;
        if (!lo || l->line < lo) lo = l->line;
        if (l->line > hi) hi = l->line;
    }
    if (!lo || c->nfiles < 1 || c->files[0] < 0 || c->files[0] >= c->nkstr) return;
    tl->loop_file = c->kstr[c->files[0]].text;
    tl->loop_lo = lo, tl->loop_hi = hi;
}

static int in_loop(const Timeline *tl, SampleSrc s)
{
    return tl->loop_file && s.file && strcmp(s.file, tl->loop_file) == 0 && s.line >= tl->loop_lo &&
           s.line <= tl->loop_hi;
}

/* End device d's motion in progress. */
static void close_move(Timeline *tl, int d)
{
    if (!tl->open[d]) return;
    tl->open[d] = 0;
    double dur = (double)tl->ncyc[d] * tl->dt;
    if (tl->idx[d] >= 0) tl->mv[tl->idx[d]].duration = dur;
    if (in_loop(tl, tl->src[d]) && tl->t0[d] + dur > tl->loop_end) tl->loop_end = tl->t0[d] + dur;
}

/* Start a motion of device d under src at t0; a start of the loop's marker statement opens a pass. */
static void open_move(Timeline *tl, int d, int seg, SampleSrc src, double t0)
{
    tl->open[d] = 1, tl->seg[d] = seg, tl->src[d] = src, tl->t0[d] = t0, tl->ncyc[d] = 0;
    tl->idx[d] = -1;
    if (tl->n < TIMELINE_MAX) {
        tl->idx[d] = tl->n;
        tl->mv[tl->n++] = (TimelineMove){d, src, t0, 0};
    } else {
        tl->dropped++;
    }
    if (!in_loop(tl, src)) return;
    if (tl->marker.line == 0) tl->marker = src;
    if (!sample_src_same(tl->marker, src)) return;
    if (tl->npass < TIMELINE_MAX) tl->pass[tl->npass++] = t0;
    else tl->pass_dropped++;
}

void timeline_sample(Timeline *tl, const Sample *s)
{
    for (int d = 0; d < tl->ndev; d++) {
        const SampleDevice *sd = &s->dev[d];
        int moving = sd->src.line > 0;
        if (tl->open[d] && (!moving || sd->seg != tl->seg[d] || !sample_src_same(sd->src, tl->src[d]))) close_move(tl, d);
        if (moving && !tl->open[d]) open_move(tl, d, sd->seg, sd->src, s->t - tl->dt);
        if (moving) tl->ncyc[d]++;
    }
}

void timeline_finish(Timeline *tl)
{
    for (int d = 0; d < tl->ndev; d++) close_move(tl, d);
}
