/* outdir.c — the output folder: its lock, the list of a run's files, .part names renamed when whole, the
 * temporary folder of --out-temp (outdir.h). */
#include "output/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUTDIR_LOCK ".irl-lock"
#define OUTDIR_LIST ".irl-files"

/* The files of an irl run from before the list existed (removed when the folder has no list). */
static const char *const outdir_known[] = {"trace.csv", "report.json", "report.txt", "plots.gp", "plots.log",
                                           "plots.csv", "online.json"};

/* mkdir -p. 0 or -1 (errno set). */
static int make_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

/* A name the list may hold: a plain file name, not hidden (so neither the lock nor the list itself). */
static int plain_name(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && n < 256 && name[0] != '.' && !strchr(name, '/');
}

/* Delete path when it is a regular file (a link or a folder someone put there is theirs). */
static void remove_file(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
}

/* Delete DIR/name and DIR/name.part (absent is fine). */
static void remove_output(const OutDir *o, const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    remove_file(path);
    snprintf(path, sizeof path, "%s/%s.part", o->dir, name);
    remove_file(path);
}

/* Delete what the previous run listed (or, without a list, the names irl writes), then start an empty list. */
static int clear_previous(OutDir *o, char *err, size_t errlen)
{
    char path[4400], line[300];
    snprintf(path, sizeof path, "%s/%s", o->dir, OUTDIR_LIST);
    FILE *f = fopen(path, "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            if (plain_name(line)) remove_output(o, line);
        }
        fclose(f);
    } else {
        for (size_t i = 0; i < sizeof outdir_known / sizeof *outdir_known; i++) remove_output(o, outdir_known[i]);
    }
    if (!(f = fopen(path, "w")) || fclose(f) != 0)
        return snprintf(err, errlen, "cannot write '%.400s': %s", path, strerror(errno)), -1;
    return 0;
}

/* Take the folder's lock, or say who holds it. */
static int take_lock(OutDir *o, char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", o->dir, OUTDIR_LOCK);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return snprintf(err, errlen, "cannot open '%.400s': %s", path, strerror(errno)), -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK;
        char pid[32] = "";
        ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(fd);
        if (!busy) return snprintf(err, errlen, "cannot lock '%.400s': %s", path, strerror(errno)), -1;
        return snprintf(err, errlen, "the output folder '%.400s' is in use by another irl run%s%s%s: wait for it to "
                        "end, or give this run another --out", o->dir, pid[0] ? " (pid " : "", pid,
                        pid[0] ? ")" : ""), -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) { /* only for the message above */ }
    o->lock_fd = fd;
    return 0;
}

int outdir_open(OutDir *o, const char *dir, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->lock_fd = -1;
    if (!dir) {
        const char *tmp = getenv("TMPDIR");
        snprintf(o->dir, sizeof o->dir, "%s/irl-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(o->dir)) return snprintf(err, errlen, "cannot create a temporary folder: %s", strerror(errno)), -1;
        o->temp = 1;
    } else {
        if (strlen(dir) >= sizeof o->dir - 300)
            return snprintf(err, errlen, "the output folder's name is too long (%zu characters)", strlen(dir)), -1;
        snprintf(o->dir, sizeof o->dir, "%s", dir);
        if (make_dirs(o->dir) != 0)
            return snprintf(err, errlen, "cannot create the output folder '%.400s': %s", o->dir, strerror(errno)), -1;
    }
    if (take_lock(o, err, errlen) < 0 || clear_previous(o, err, errlen) < 0) {
        if (o->temp) nftw(o->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        if (o->lock_fd >= 0) close(o->lock_fd);
        o->lock_fd = -1, o->temp = 0;
        return -1;
    }
    return 0;
}

int outdir_file(OutDir *o, const char *name, int part, char *path, size_t pathlen, char *err, size_t errlen)
{
    char list[4400];
    snprintf(list, sizeof list, "%s/%s", o->dir, OUTDIR_LIST);
    FILE *f = fopen(list, "a");
    if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f) != 0)
        return snprintf(err, errlen, "cannot write '%.400s': %s", list, strerror(errno)), -1;
    snprintf(path, pathlen, "%s/%s%s", o->dir, name, part ? ".part" : "");
    return 0;
}

int outdir_commit(OutDir *o, const char *name, char *err, size_t errlen)
{
    char from[4400], to[4400];
    snprintf(from, sizeof from, "%s/%s.part", o->dir, name);
    snprintf(to, sizeof to, "%s/%s", o->dir, name);
    if (rename(from, to) != 0) return snprintf(err, errlen, "cannot rename '%.400s': %s", from, strerror(errno)), -1;
    return 0;
}

void outdir_close(OutDir *o)
{
    if (o->temp) nftw(o->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (o->lock_fd >= 0) close(o->lock_fd);
    o->lock_fd = -1, o->temp = 0;
}
