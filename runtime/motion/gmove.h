/* gmove.h — the GMOVE profile planner: turns `GMOVE TO`, `GMOVE HOLD` and `GMOVE PROFILE` into time-parameterised
 * joint setpoints (q, q', q'', q''') of the centrifuge's three axes, with the commanded G, its onset rate and the
 * felt G, sampled exactly at any time. See docs/LANGUAGE.md (GMOVE) and docs/MODELS.md §9 (the map).
 *
 * Producer side (the VM's motion door): gmove_machine_init once per device, then one gmove_plan_* per statement.
 * A plan builds one GmoveSegment (a plain struct: up to GMOVE_MAX_PIECES pieces, all numbers inside), checks it
 * against the machine's limits and returns a distinct status when it cannot be flown. PROFILE tables keep their
 * spline coefficients and an angle cache in a GmoveTable the caller owns (the segment points to it); planning is
 * the only place that allocates. Consumer side (the cycle): gmove_sample(seg, t_local, out), which never
 * allocates, prints or blocks.
 *
 * Every segment starts and ends at a steady state (GmoveState: a constant commanded G, G = 1 meaning the arm at
 * rest) and the three axes' q, q', q'' are continuous inside it and across consecutive segments.
 *
 * Units: G in units of the machine's |gravity| (the back-end's G unit), onset in G/s, JERK in G/s^2, times in s,
 * angles in rad. The language keeps accelerations in SI (1 G = 9.81 m/s^2): the executor divides by 9.81.
 *
 * Which machines: any model that offers G-profiles through the contract (model.h: gprofile, its arm length and G
 * unit); the map from G to the three axes is the planetary-arm-and-gondola map of models/centrifuge.h, pure maths
 * of those two numbers.
 *
 * What G is commanded: the steady-state resultant of centripetal acceleration and gravity, a1 w^2 = g sqrt(G^2 - 1)
 * (ERRATA); the felt magnitude sqrt(G^2 + (a1 w'/g)^2) exceeds it while w changes. */
#ifndef IRL_GMOVE_H
#define IRL_GMOVE_H

#include <stddef.h>

#include "centrifuge.h"
#include "model.h"

#define GMOVE_MAX_PIECES 4
#define GMOVE_ANGLE_KNOTS 64   /* planetary-angle cache points per G-ramp piece */

enum {
    GMOVE_OK = 0,
    GMOVE_EINVAL = -1,   /* bad argument: NaN, G < 1, no ONSET where one is needed, bad table */
    GMOVE_EGLIMIT = -2,  /* cannot be flown within the G, onset-rate or axis motion limits (-> ERR_GLIMIT) */
    GMOVE_ETORQUE = -3,  /* cannot be flown within the motor torques (-> ERR_TORQUE) */
    GMOVE_ENUMERIC = -4, /* a GSL routine failed, or the map failed while sampling */
    GMOVE_ENOMODEL = -5, /* the device's model offers no G-profiles (not a centrifuge) */
    GMOVE_ENOMEM = -6,
};

typedef enum { GMOVE_INTERP_LINEAR = 0, GMOVE_INTERP_CSPLINE = 1 } GmoveInterp;

/* A centrifuge as the planner sees it (filled from the device's Model). */
typedef struct {
    Model *model;                /* the producer's model: inverse dynamics for the torque check */
    double a1, g;                /* arm length (m), gravity magnitude (m/s^2, the G unit) */
    ModelAxisLimits lim[3];      /* planetary, pitch, roll */
    double Gmin, Gmax;           /* output_limit "G" (felt magnitude; default [0, inf)) */
    double Gdot_min, Gdot_max;   /* output_limit "Gdot" (onset rate, G/s; default +-inf) */
    double check_dt;             /* s between samples of the feasibility check (default 0.005) */
    int degrees;                 /* messages show the axes' quantities in degrees (output/display.h); default 0: SI */
} GmoveMachine;

/* The steady state between segments. */
typedef struct {
    double G;    /* commanded G, >= 1; exactly 1 = at rest */
    double q1;   /* planetary angle, rad (multi-turn) */
} GmoveState;

/* WITH parameters of one statement; a value <= 0 or NaN means "not given". */
typedef struct {
    double onset;       /* ONSET, G/s */
    double hold;        /* HOLD, s (GMOVE TO) */
    double jerk;        /* JERK, G/s^2: blend time = 1.875 rate / jerk; default blend CENTRIFUGE_BLEND_DEFAULT */
    GmoveInterp interp; /* PROFILE */
} GmoveParams;

/* A PROFILE table prepared for sampling; owned by the caller (gmove_table_init / gmove_table_free), filled by
 * gmove_plan_profile, and read by gmove_sample through the segment. It must outlive the segment. */
typedef struct {
    int n, cap;          /* knots */
    GmoveInterp interp;
    double *t;           /* knot times (table time) */
    double *c;           /* 4 coefficients per interval k: G = c0 + c1 u + c2 u^2 + c3 u^3, u = t - t[k] */
    double *h;           /* blend half-width at each knot */
    double tstart;       /* table time of the segment's local time 0: t[0] - h[0] */
    int nb, bcap;        /* planetary-angle cache: local times tb[] and the angle advance qb[] there */
    double *tb, *qb;
} GmoveTable;

typedef enum { GMOVE_PIECE_RAMP, GMOVE_PIECE_SPIN, GMOVE_PIECE_TABLE } GmovePieceKind;

/* One piece of a segment (local time tau in [0, T], starting at segment time t0). */
typedef struct {
    GmovePieceKind kind;
    double t0, T;
    double q1_0;                       /* planetary angle at the piece start */
    /* RAMP (also a hold: ramp.rate == 0): G(tau) = the back-end's ramp at toff + tau */
    CentrifugeGRamp ramp;
    double toff;
    double w_hold;                     /* hold: the constant planetary rate */
    double qk[GMOVE_ANGLE_KNOTS + 1];  /* ramp: angle advance at tau = k T / GMOVE_ANGLE_KNOTS */
    /* SPIN: w(tau) = sum_k b[k] x^(k+4), x = tau / T (reverse: x = 1 - tau / T), from or to rest */
    double b[4];
    int reverse;
    /* TABLE */
    const GmoveTable *tab;
} GmovePiece;

typedef enum { GMOVE_SEG_TO, GMOVE_SEG_HOLD, GMOVE_SEG_PROFILE } GmoveSegKind;

/* One GMOVE statement, ready to sample. Immutable once planned. */
typedef struct {
    GmoveSegKind kind;
    double a1, g;
    double T;                          /* duration, s */
    int npieces;
    GmovePiece piece[GMOVE_MAX_PIECES];
    GmoveState start, end;
} GmoveSegment;

/* The setpoint at one instant. */
typedef struct {
    double q[3], qd[3], qdd[3], qddd[3]; /* planetary, pitch, roll */
    double G, Gdot;                      /* commanded resultant and its onset rate */
    double Gfelt, Gfelt_dot;             /* felt magnitude sqrt(G^2 + (a1 w'/g)^2) and its rate */
    double omega, omegadot;              /* q'1, q''1 */
    int piece;                           /* index of the piece sampled */
} GmoveSample;

/* A limit the segment breaks (the worst one found by the check). */
typedef struct {
    int status;          /* GMOVE_EGLIMIT or GMOVE_ETORQUE; 0: none */
    char what[48];       /* e.g. "roll speed", "planetary torque", "G", "onset rate" */
    char unit[12];       /* of value, lo and hi: "rad/s", "Nm", "G", "G/s" */
    double t, value, lo, hi;
} GmoveViolation;

/* What the planner did, for the check report and the error message. */
typedef struct {
    char msg[400];        /* on failure: what broke and what was achievable; on success: notes (may be "") */
    double onset;         /* the onset rate planned, G/s (0: none) */
    double onset_max;     /* on a failed TO: the largest feasible onset rate from this baseline (0: none) */
    double blend;         /* onset blend time used, s */
    int spin;             /* +1 spun up from rest, -1 spun down to rest, 0 neither */
    double spin_T;        /* duration of the spin-up/down piece, s */
    double spin_G;        /* G at which the G ramp takes over (or hands over), 1 if none */
    char spin_limit[48];  /* what governed the spin: "onset" or an axis limit such as "roll speed" */
    int narrowed;         /* PROFILE: knots whose blend was narrowed below the JERK setting */
    GmoveViolation viol;  /* the worst violation (failures) */
} GmoveInfo;

/* Fill mc from a three-axis model that offers G-profiles (model.h: gprofile gives the geometry; limits, output
 * limits "G" and "Gdot"). GMOVE_ENOMODEL otherwise. */
int gmove_machine_init(GmoveMachine *mc, Model *m, char *err, size_t errlen);

/* The rest state at planetary angle q1. */
GmoveState gmove_rest(double q1);

/* GMOVE TO G1 WITH ONSET := p->onset [, HOLD := p->hold] [, JERK := p->jerk]. From rest (G = 1) it spins up
 * first; G1 = 1 spins down to rest. ONSET is required unless G1 equals the current G. */
int gmove_plan_to(const GmoveMachine *mc, const GmoveState *from, double G1, const GmoveParams *p,
                  GmoveSegment *seg, GmoveInfo *info);
/* GMOVE HOLD seconds: the current G (or rest) for that long. */
int gmove_plan_hold(const GmoveMachine *mc, const GmoveState *from, double seconds, GmoveSegment *seg,
                    GmoveInfo *info);
/* GMOVE PROFILE (t[i], G[i]), i < n, t strictly increasing, G > 1. Table time t[0] is reached half a blend after
 * the segment starts. When the current G differs from G[0] a lead-in ramp at p->onset (required then; from rest
 * with a spin-up) comes first. tab is the caller's workspace (gmove_table_init'ed); it must outlive seg. */
int gmove_plan_profile(const GmoveMachine *mc, const GmoveState *from, const double *t, const double *G, int n,
                       const GmoveParams *p, GmoveTable *tab, GmoveSegment *seg, GmoveInfo *info);

/* Sample a segment at local time t (clamped to [0, seg->T]). 0, or GMOVE_ENUMERIC if the map failed. */
int gmove_sample(const GmoveSegment *seg, double t, GmoveSample *out);

/* Check a planned segment against the machine's limits by sampling every mc->check_dt (and at piece joints).
 * 0 when it can be flown, else the violation's status with *v filled. */
int gmove_check(const GmoveMachine *mc, const GmoveSegment *seg, GmoveViolation *v);

void gmove_table_init(GmoveTable *tab);
void gmove_table_free(GmoveTable *tab);

#endif
