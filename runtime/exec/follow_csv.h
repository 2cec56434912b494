/* follow_csv.h — reads the CSV table of `MOVE FOLLOW "file.csv"`: one row per sample, columns t,q1,…,qn in SI
 * (s, then rad or m), separated by commas, an optional header line first; blank lines are skipped. Every error
 * names the file, line and column. The path is taken relative to the directory of the program file that holds
 * the statement. */
#ifndef IRL_FOLLOW_CSV_H
#define IRL_FOLLOW_CSV_H

#include <stddef.h>

#include "motion/path.h"

typedef struct {
    char path[1024];                 /* as opened (for messages) */
    int rows, n;
    double *t, *q;                   /* t[rows], q[row * n + axis] (owned) */
    int *line;                       /* line of each row (owned) */
    int col0[1 + PLANNER_MAX_AXES];  /* column of each field of the first row */
} FollowCsv;

/* Read name (relative to the directory of program) with n axes per row. 0, or -1 with "file:line:col: what" in
 * err (nothing left allocated). */
int follow_csv_read(FollowCsv *csv, const char *program, const char *name, int n, char *err, size_t errlen);
void follow_csv_free(FollowCsv *csv);

#endif
