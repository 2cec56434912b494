/* checks.h — limit checks and peak tracking on the sampled setpoint stream (the dry-run's verdict).
 *
 * Every cycle checks_sample() looks at one Sample (sample.h) and, per device and axis, at position, speed,
 * acceleration, jerk (differentiated from the stream's accelerations), torque/force, mechanical power τ·q̇,
 * motor voltage (where the machine file gives a DC motor), and per device total power, the singularity measure,
 * IK failures and the model's extra outputs (G-load, ...) with their onset rates. Each of these is a *channel*
 * with an allowed interval [lo, hi] (infinite when the machine gives no limit). A channel keeps its extremes with
 * time and source statement; each run of consecutive out-of-limit cycles becomes one violation record.
 *
 * Limits come from the ModelDesc of each device:
 *   position  joint[i].limits.min/max        speed, acceleration, jerk  ±vmax, ±amax, ±jmax
 *   torque    ±joint[i].limits.effort       voltage  ±motor.vmax, V = R·i + ke·N·q̇ with
 *             i = (τ/N + Jr·N·q̈)/kt (steady state: the inductance term L·di/dt is neglected)
 *   power     named limits "power" (total Σ τ·q̇, W) and "power1".."powerN" (axis i) in output_limit[]
 *   outputs   output_limit[] entries whose name equals an output name (case-insensitive)
 *   rates     an output_limit "Xdot" where the model has no output "Xdot" but has "X": the checks
 *             differentiate X across cycles (the G onset rate "Gdot" from "G")
 *   singularity  measure below ChecksConfig.sing_threshold;   IK  any cycle with ik_status < 0
 *   following error  joint[i].ferror on |e|, the closed loop's tracking error e = setpoint − actual (the
 *             layout's "e" group of cl[]); channels exist only under --closed-loop on a device with a ferror limit
 * NaN in any checked value is itself a violation (a broken stream must not pass).
 *
 * Torque time scale: when torques exceed their limits, stretching the whole program's time by k ≥ 1 scales
 * τ to (τ − g)/k² + g (g = gravity part at the same q). On each cycle with a torque violation the checks find
 * the smallest such k in closed form (per axis k² = (τ − g)/(±L − g)); the run's k is the maximum over cycles.
 *
 * Memory: checks_init allocates everything (channels and the fixed-capacity violation and limited-request
 * lists and the note list); checks_sample, checks_note_limited and checks_note_text never allocate. A full list counts what it drops. */
#ifndef IRL_CHECKS_H
#define IRL_CHECKS_H

#include <stddef.h>

#include "exec/sample.h"

/* What a channel measures. ORDER: checks_qty_name in checks.c. */
typedef enum {
    /* per axis */
    CHK_POSITION, CHK_SPEED, CHK_ACCEL, CHK_JERK, CHK_TORQUE, CHK_POWER, CHK_VOLTAGE,
    /* per device */
    CHK_POWER_TOTAL, CHK_SINGULARITY, CHK_IK,
    /* per extra output (index = output number) */
    CHK_OUTPUT, CHK_OUTPUT_RATE,
    /* per axis, last in a device's block and only under --closed-loop with a joint ferror limit: |setpoint − actual|
     * (the closed loop's "e" channels; limit ModelJoint.ferror, lower limit -INFINITY) */
    CHK_FERROR,
    CHK_NQTY
} ChecksQty;

#define CHK_NAXISQTY (CHK_VOLTAGE + 1)

/* Relative tolerance of the differentiated channels (jerk, output rates): a value within 1e-6 of its limit's
 * magnitude beyond it is accepted. A difference quotient of two sampled values carries their rounding divided by
 * the cycle (~1e-12 of the limit for a PUMA), so a profile planned exactly at its jerk limit would otherwise show
 * as "60 exceeds its limit 60". Directly sampled quantities are compared exactly. */
#define CHECKS_DIFF_RTOL 1e-6

/* Gravity part of inverse dynamics, g(q) = τ(q, 0, 0), for device `dev`: 0 or < 0 on failure. */
typedef int (*ChecksGravityFn)(void *ud, int dev, const double *q, double *g);

typedef struct {
    double cycle;           /* s; used for the differentiated channels (jerk, rates) */
    double sing_threshold;  /* singularity measure below this is a violation; <= 0: default 0.01 */
    int max_violations;     /* capacity of the violation list; <= 0: default 1000 */
    int max_limited;        /* capacity of the lowered-request list; <= 0: default 1000 */
    ChecksGravityFn gravity; /* used when a sample has no grav; may be NULL */
    void *gravity_ud;
    int no_window;          /* 1: every value takes the full update (the reference the window is tested against) */
} ChecksConfig;

/* An extreme value of a channel: the value, when, and under which statement. */
typedef struct {
    double v, t;
    SampleSrc src;
} ChecksPoint;

/* One checked quantity of one device (and axis or output). */
typedef struct {
    /* quiet window [wlo, whi] = [max(lo_ok, min.v), min(hi_ok, max.v)], empty while a run is open or before the
     * first value: a value inside changes nothing but nsamples (the one test most values need, chan_update) */
    double wlo, whi;
    int dev, qty, index;       /* index: axis (0-based), output number, or -1 */
    double lo, hi;             /* allowed interval; ±INFINITY when absent */
    double lo_ok, hi_ok;       /* accepted interval: [lo, hi], widened by CHECKS_DIFF_RTOL on differentiated channels */
    ChecksPoint min, max;      /* extremes over the run (v = ±INFINITY before the first sample) */
    long nsamples;             /* cycles that gave a value */
    long nbad;                 /* cycles outside [lo, hi] (or NaN) */
    int open;                  /* in violation on the previous cycle */
    int rec;                   /* index of the open violation record, -1 = dropped (list full) */
    int src_output;            /* CHK_OUTPUT_RATE: the output differentiated */
} ChecksChannel;

/* One violation: a run of consecutive cycles with one channel out of its limits. */
typedef struct {
    int channel;               /* index into Checks.chan */
    int dev, qty, index;
    double t_start, t_end;     /* first and last offending cycle */
    long cycles;               /* number of offending cycles */
    double peak;               /* worst value in the run (furthest beyond the limit; NaN if any NaN) */
    double t_peak;
    double limit;              /* the limit crossed (hi or lo) */
    SampleSrc src;             /* statement at the first offending cycle: the cause */
    SampleSrc src_peak;        /* statement at the worst cycle */
    double k;                  /* CHK_TORQUE: time scale fixing this run (INFINITY: none does), else 0 */
} ChecksViolation;

/* A request the planner lowered to a limit (e.g. WITH SPEED = 2 m/s run at 1.3 m/s). */
typedef struct {
    int dev, axis;             /* axis -1: the path (Cartesian) or the whole device */
    const char *what;          /* static string: "SPEED", "ACC", "SPEED_PTP", ... */
    double requested, applied; /* SI */
    double t;                  /* program time of the request */
    SampleSrc src;
    long count;                /* repeated identical notes (same statement and what) merged */
} ChecksLimited;

/* A free-text note tied to a statement (e.g. what governed a GMOVE spin-up). Fixed-size text, no allocation. */
#define CHECKS_NOTE_TEXT 512
#define CHECKS_MAX_NOTES 256   /* capacity of the note list */
typedef struct {
    int dev;                   /* -1: not tied to a device */
    char text[CHECKS_NOTE_TEXT]; /* the note after "note: ", device name included by the caller */
    double t;                  /* program time of the first occurrence */
    SampleSrc src;
    long count;                /* the same text from the same statement again only counts */
} ChecksNote;

typedef struct {
    ChecksConfig cfg;
    const SampleLayout *lay;   /* borrowed */
    int nchan;
    ChecksChannel *chan;
    int dev_base[SAMPLE_MAX_DEVICES + 1]; /* first channel of each device */
    int nviol, viol_cap;
    ChecksViolation *viol;
    long viol_dropped;         /* violation runs not recorded because the list was full */
    int nlimited, limited_cap;
    ChecksLimited *limited;
    long limited_dropped;
    int nnotes, notes_cap;     /* free-text notes (checks_note_text) */
    ChecksNote *notes;
    long notes_dropped;
    /* torque time scale */
    double k;                  /* smallest uniform k >= 1 (1 when no torque violation; INFINITY: none) */
    double k_t;                /* where the largest k was needed */
    SampleSrc k_src;
    int k_dev;
    double dev_k[SAMPLE_MAX_DEVICES];
    long k_unknown;            /* torque-violating cycles where g was unavailable */
    /* run */
    long ncycles;
    double t_first, t_last;
    /* previous cycle, for differentiated channels */
    int have_prev;
    double prev_qdd[SAMPLE_MAX_DEVICES][SAMPLE_MAX_AXES];
    double prev_out[SAMPLE_MAX_DEVICES][SAMPLE_MAX_OUTPUTS];
    double gscratch[SAMPLE_MAX_AXES];
    double cur_t;              /* the cycle and statement checks_sample is at (chan_full's, off the hot path) */
    SampleSrc cur_src;
    /* following error (CHK_FERROR): channels per device (0 or naxes) and the closed-loop group holding e */
    int ferror_n[SAMPLE_MAX_DEVICES], ferror_group[SAMPLE_MAX_DEVICES];
    /* the motor of each axis whose voltage is checked (present, kt != 0), else NULL; how many per device */
    const ModelMotor *motor[SAMPLE_MAX_DEVICES][SAMPLE_MAX_AXES];
    int nmotor[SAMPLE_MAX_DEVICES];
    int sing_chan[SAMPLE_MAX_DEVICES]; /* the singularity channel of each device (checks_sing_band) */
    int unattributed;          /* a cycle without a statement (before the first) may have opened a violation */
} Checks;

/* A ChecksGravityFn for live models: ud is a `Model **` indexed by device; g = inverse dynamics at (q, 0, 0). */
int checks_model_gravity(void *ud, int dev, const double *q, double *g);

/* Set up the channels from the layout's limits. 0, or < 0 with a message in err. */
int checks_init(Checks *ck, const SampleLayout *lay, const ChecksConfig *cfg, char *err, size_t errlen);
void checks_free(Checks *ck);
/* Check one cycle. Never allocates. */
void checks_sample(Checks *ck, const Sample *s);
/* At the end of a run no cycle of which had a statement (its first statement failed before moving): charge what the
 * start state opened to src, the statement that ended the run, so that no violation is reported at line 0. */
void checks_charge_start(Checks *ck, SampleSrc src);
/* Record a request the planner lowered to a limit. Never allocates. */
void checks_note_limited(Checks *ck, int dev, int axis, const char *what, double requested, double applied,
                         double t, SampleSrc src);
/* Record a free-text note (printf format) about statement src; repeated identical notes from the same statement
 * are merged (count). Never allocates; a full list counts what it drops. */
void checks_note_text(Checks *ck, int dev, double t, SampleSrc src, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The closed interval [lo, hi] of singularity measures that would leave device dev's singularity channel as it is
 * (apart from counting the cycle and ending a violation run): at or above both the threshold and the lowest
 * measure so far, at or below the highest. Empty (lo > hi) before the first cycle. An executor may then skip
 * computing a measure that the model proves to lie inside (model_singularity_within, sample.h). */
void checks_sing_band(const Checks *ck, int dev, double *lo, double *hi);
/* 1 when nothing was violated (IK failures and NaNs count; lowered requests do not). */
int checks_passed(const Checks *ck);
/* Total number of violation runs (recorded + dropped). */
long checks_violation_count(const Checks *ck);

/* The channel of a device's quantity (axis or output index; -1 for per-device ones), or NULL. */
const ChecksChannel *checks_channel(const Checks *ck, int dev, ChecksQty q, int index);
/* Names for reports: "position", "speed", ...; the unit of a channel ("rad/s", "N", "" for outputs). */
const char *checks_qty_name(ChecksQty q);
const char *checks_unit(const Checks *ck, const ChecksChannel *c);
/* The display label of a channel's quantity: "torque" or "force" by joint type, output names as given. */
const char *checks_label(const Checks *ck, const ChecksChannel *c);
/* Margin to the nearer limit (limit − |peak| for symmetric limits; INFINITY when unlimited), and the same as
 * a percentage of the limit (of the range hi − lo for asymmetric ones). Negative when violated. */
double checks_margin(const ChecksChannel *c);
double checks_margin_pct(const ChecksChannel *c);
/* The extreme that matters for display: the larger |v| (the minimum for the singularity measure). */
const ChecksPoint *checks_peak(const ChecksChannel *c);

#endif
