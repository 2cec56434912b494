/* outdir.h — the dry-run's output folder: one run at a time, nothing of an earlier run left beside a new one.
 *
 * Rules (docs/RUNNING.md "The output folder"):
 * - A run holds an exclusive flock(2) on DIR/.irl-lock from the start to the end; a second run on the same folder
 *   is refused at once. The kernel drops the lock when its holder dies, so a killed run never blocks the next.
 * - The run lists in DIR/.irl-files every name it writes, before writing it. A new run first deletes the files
 *   the previous run listed there (and those names with .part; regular files only), then starts its own list: a
 *   report of an earlier run never survives beside a new trace, and files the user put in the folder are never
 *   touched.
 * - The trace and the reports are written as NAME.part and renamed to NAME when complete (outdir_commit), so a
 *   file under its final name is always whole.
 * - --out-temp: a fresh folder under $TMPDIR, removed with everything in it by outdir_close. */
#ifndef IRL_OUTDIR_H
#define IRL_OUTDIR_H

#include <stddef.h>

typedef struct {
    char dir[4096];
    int lock_fd;      /* -1: not locked */
    int temp;         /* 1: remove the folder at close */
} OutDir;

/* Open DIR (created with its parents), or with dir NULL a fresh temporary folder; take the lock, delete the
 * previous run's files. 0, or -1 with a message in err (the folder is then left as it was). */
int outdir_open(OutDir *o, const char *dir, char *err, size_t errlen);
/* Record name (a plain file name in the folder) as this run's, and put into path the file to write: DIR/name.part
 * when part, else DIR/name. 0, or -1 with a message in err. */
int outdir_file(OutDir *o, const char *name, int part, char *path, size_t pathlen, char *err, size_t errlen);
/* Rename DIR/name.part to DIR/name. 0, or -1 with a message in err. */
int outdir_commit(OutDir *o, const char *name, char *err, size_t errlen);
/* Release the lock; a temporary folder is removed with its contents. Safe to call twice. */
void outdir_close(OutDir *o);

#endif
