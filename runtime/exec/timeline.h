/* timeline.h — the program's motion timeline for the report: every motion statement as it ran (device, statement,
 * start time, duration) and the program's cycle time (the whole run, and each pass of its outermost loop).
 *
 * Fed from the sampled stream like the checks (timeline_sample every cycle, after the sample is complete): a
 * statement's motion is the run of cycles in which it is the statement moving the device (SampleDevice.src of a
 * planner segment, or a GMOVE), its exact stop included; it starts one cycle before its first such cycle (the
 * device moved within that cycle) and lasts as many cycles as it moved the device. A statement blending into the
 * next ends where the next takes over. Consecutive GMOVE cycles of one statement are one motion.
 *
 * Passes of the outermost loop: the loop of the main routine whose backward jump spans the most code (set by
 * timeline_loop from the bytecode: the loop's source lines in the main file). Its first motion statement in time
 * (a MOVE or GMOVE written in the loop's lines; motion only inside called procedures gives no passes) marks the
 * passes: pass k runs from the k-th start of that statement to the (k+1)-th, the last pass to the end of the last
 * motion in the loop's lines. Nothing allocates per cycle; the lists hold TIMELINE_MAX entries, later ones are
 * counted. */
#ifndef IRL_TIMELINE_H
#define IRL_TIMELINE_H

#include "chunk.h"
#include "exec/sample.h"

#define TIMELINE_MAX 4096 /* motions listed, and passes */

typedef struct {
    int dev;
    SampleSrc src;
    double t_start, duration; /* s */
} TimelineMove;

typedef struct {
    double dt;                     /* cycle, s */
    int ndev;
    TimelineMove *mv;              /* motions in order of start */
    int n;
    long dropped;
    double *pass;                  /* start time of each pass of the outermost loop */
    int npass;
    long pass_dropped;
    double loop_end;               /* the end of the last motion in the loop's lines, s */
    /* the outermost loop: lines [loop_lo, loop_hi] of file loop_file (NULL: the program has no loop) */
    const char *loop_file;
    int loop_lo, loop_hi;
    SampleSrc marker;              /* the statement that starts a pass (line 0: not yet seen) */
    /* per device: the motion in progress */
    int open[SAMPLE_MAX_DEVICES];  /* 1: a motion is running */
    int seg[SAMPLE_MAX_DEVICES];
    SampleSrc src[SAMPLE_MAX_DEVICES];
    int idx[SAMPLE_MAX_DEVICES];   /* its entry in mv, -1 when the list was full */
    double t0[SAMPLE_MAX_DEVICES];
    long ncyc[SAMPLE_MAX_DEVICES];
} Timeline;

/* Set up for ndev devices and a cycle of dt seconds. 0, or < 0 when out of memory. */
int timeline_init(Timeline *tl, int ndev, double dt);
void timeline_free(Timeline *tl);
/* Find the outermost loop of the chunk's main routine (its source lines). */
void timeline_loop(Timeline *tl, const Chunk *c);
/* One cycle of the stream. Never allocates. */
void timeline_sample(Timeline *tl, const Sample *s);
/* Close the motions still running (after the last cycle). */
void timeline_finish(Timeline *tl);

#endif
