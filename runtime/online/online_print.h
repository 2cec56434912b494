/* online_print.h — PRINT in time with the motion, online. The VM runs ahead of the motion (a MOVE returns once
 * queued) and the planner thread up to --queue cycles ahead of the axes, so what the program prints is held: the
 * VM writes to an unbuffered stream of ours, and each piece is tagged as it is written with a mark, the count of
 * motions pushed before it. A piece reaches its point of the program at the first cycle by which the motions
 * retired cover its mark; it is written to the real output once the real-time thread has written that cycle's
 * setpoint, every line stamped with that cycle's program time ("[1.250 s] done"). A run that stops never writes
 * what the axes did not reach. Only the planner thread calls these. */
#ifndef IRL_ONLINE_PRINT_H
#define IRL_ONLINE_PRINT_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    long mark;          /* motions pushed before it was printed */
    long cycle;         /* the cycle at which they had all run (-1: not yet) */
    double t;           /* that cycle's program time, s */
    size_t end;         /* the piece ends here in the held text (it starts where the one before ended) */
} OnlinePrintPiece;

typedef struct {
    FILE *held;         /* the VM's output while online */
    long (*mark)(void *ctx); /* motions pushed so far */
    void *ctx;
    char *buf;          /* the held text */
    size_t len, bufcap;
    FILE *out;          /* where the pieces go when reached */
    OnlinePrintPiece *piece;
    size_t npiece, cap; /* pieces */
    size_t reached;     /* pieces before this one have their cycle */
    size_t next;        /* the next one to write */
    int line_start;     /* the next byte written starts a line (stamp it) */
} OnlinePrint;

/* Hold the output meant for out; mark(ctx) counts the motions pushed so far. 0, or -1 (out of memory). */
int online_print_open(OnlinePrint *p, FILE *out, long (*mark)(void *ctx), void *ctx);
/* The stream to give the VM. */
FILE *online_print_stream(OnlinePrint *p);
/* The motions retired so far at cycle (program time t): the pieces they cover reach it. */
void online_print_reach(OnlinePrint *p, long retired, long cycle, double t);
/* Write the pieces whose cycle is at most written (the last cycle the axes received). */
void online_print_release(OnlinePrint *p, long written);
/* Drop what is left (never reached) and close the stream. */
void online_print_close(OnlinePrint *p);

#endif
