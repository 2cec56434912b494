/* stream.c — the "stream" driver: one line per cycle with the joint positions separated by spaces, the text
 * LinuxCNC's halstreamer reads from its standard input (`loadrt streamer depth=1024 cfg=fff...`, one f per
 * axis; `halstreamer < FIFO`), written to standard output, a file or a FIFO. It has no feedback: the following-
 * error monitor does not run, and the digital inputs stay with the offline --input stimulus.
 *
 * Options (--driver stream:key=value,...):
 *   out=PATH       standard output ("-", the default), a file (created or truncated), or a FIFO (its reader must
 *                  open it within `wait`; the writes do not block: a reader that falls 64 KiB behind is a fault)
 *   digits=N       significant digits, 1..17 (default 17: the numbers read back are the setpoints exactly)
 *   units=si|linuxcnc   si: rad and m (default); linuxcnc: degrees and millimetres
 *   wait=T         how long to wait for a FIFO's reader (default 5 s) */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "online/drivers/driver.h"
#include "osal.h"
#include "output/trace.h"

#define STREAM_LINE (DRIVER_MAX_AXES * 34 + 2)

typedef struct {
    int n, fd, own_fd, digits;
    double scale[DRIVER_MAX_AXES];
    char path[1024];
    char line[STREAM_LINE];
    char fault_text[DRIVER_FAULT_LEN];
} Stream;

static const char *const stream_keys[] = {"out", "digits", "units", "wait", NULL};

/* The options into s and *wait. 0, or -1 with a message. */
static int stream_options(Stream *s, const char *opts, double *wait, char *err, size_t errlen)
{
    if (driver_opts_known("stream", opts, stream_keys, err, errlen) < 0) return -1;
    double digits = 17;
    *wait = 5;
    if (driver_opt_num("stream", opts, "digits", 0, &digits, err, errlen) < 0 ||
        driver_opt_num("stream", opts, "wait", 1, wait, err, errlen) < 0)
        return -1;
    if (digits != floor(digits) || digits < 1 || digits > 17)
        return snprintf(err, errlen, "--driver stream: digits must be 1..17"), -1;
    if (!(*wait >= 0)) return snprintf(err, errlen, "--driver stream: wait must be >= 0"), -1;
    s->digits = (int)digits;
    char units[32] = "si";
    driver_opt(opts, "units", units, sizeof units);
    if (strcmp(units, "si") != 0 && strcmp(units, "linuxcnc") != 0)
        return snprintf(err, errlen, "--driver stream: units=%s: give si or linuxcnc", units), -1;
    s->scale[0] = strcmp(units, "linuxcnc") == 0 ? -1 : 1; /* resolved per axis at open */
    if (!driver_opt(opts, "out", s->path, sizeof s->path)) snprintf(s->path, sizeof s->path, "-");
    return 0;
}

static int stream_check(const char *opts, char *err, size_t errlen)
{
    Stream s;
    double wait;
    return stream_options(&s, opts, &wait, err, errlen);
}

/* Open a FIFO for writing without blocking, waiting up to `wait` seconds for its reader. */
static int open_fifo(const char *path, double wait)
{
    int64_t t0 = osal_now();
    for (;;) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 || errno != ENXIO) return fd;
        if (1e-9 * (double)(osal_now() - t0) >= wait) {
            errno = ENXIO;
            return -1;
        }
        osal_sleep(10000000);
    }
}

static int stream_open(const DriverConfig *cfg, void **state, DriverCaps *caps, char *err, size_t errlen)
{
    Stream *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    double wait;
    if (stream_options(s, cfg->opts, &wait, err, errlen) < 0) return free(s), -1;
    s->n = cfg->naxes;
    int linuxcnc = s->scale[0] < 0;
    for (int i = 0; i < s->n; i++) s->scale[i] = !linuxcnc ? 1 : cfg->linear[i] ? 1000.0 : 180.0 / M_PI;
    *caps = (DriverCaps){0};
    if (strcmp(s->path, "-") == 0) {
        s->fd = STDOUT_FILENO;
        caps->uses_stdout = 1;
    } else {
        struct stat st;
        if (stat(s->path, &st) == 0 && S_ISFIFO(st.st_mode)) {
            s->fd = open_fifo(s->path, wait);
            if (s->fd < 0)
                return snprintf(err, errlen, "--driver stream: %s: %s", s->path,
                                errno == ENXIO ? "no reader opened the FIFO" : strerror(errno)), free(s), -1;
        } else {
            s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            if (s->fd < 0)
                return snprintf(err, errlen, "--driver stream: cannot create %s: %s", s->path, strerror(errno)),
                       free(s), -1;
        }
        s->own_fd = 1;
    }
    *state = s;
    return 0;
}

static int stream_enable(void *state, char *err, size_t errlen)
{
    (void)state, (void)err, (void)errlen;
    return 0;
}

static int stream_read(void *state, DriverFeedback *fb)
{
    Stream *s = state;
    fb->din = 0;
    fb->fault = s->fault_text[0] != '\0';
    return fb->fault ? -1 : 0;
}

static int stream_write(void *state, const double *q, const double *qd, uint64_t dout)
{
    (void)qd, (void)dout;
    Stream *s = state;
    if (s->fault_text[0]) return -1;
    char *p = s->line;
    for (int i = 0; i < s->n; i++) {
        if (i) *p++ = ' ';
        p += trace_format_double(p, q[i] * s->scale[i], s->digits);
    }
    *p++ = '\n';
    size_t len = (size_t)(p - s->line), off = 0;
    while (off < len) {
        ssize_t w = write(s->fd, s->line + off, len - off);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        snprintf(s->fault_text, sizeof s->fault_text, "stream: %.60s: %s", strcmp(s->path, "-") ? s->path : "stdout",
                 w < 0 && errno == EAGAIN ? "the reader is not keeping up (pipe full)"
                 : w < 0 && errno == EPIPE ? "the reader has gone" : "write failed");
        return -1;
    }
    return 0;
}

static void stream_disable(void *state) { (void)state; }

static const char *stream_fault(void *state) { return ((Stream *)state)->fault_text; }

static void stream_close(void *state)
{
    Stream *s = state;
    if (s->own_fd) close(s->fd);
    free(s);
}

const DriverType driver_stream = {
    .name = "stream", .keys = stream_keys, .check = stream_check, .open = stream_open, .enable = stream_enable,
    .read = stream_read, .write = stream_write, .disable = stream_disable, .fault = stream_fault,
    .close = stream_close,
};
