/* run_options.c — parsing of the motion-side options of `irl run` (run_options.h). */
#include "exec/run_options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void run_options_init(RunOptions *o)
{
    memset(o, 0, sizeof *o);
    o->cycle = 0.001;
    o->time_scale = 1.0;
    o->max_time = RUN_MAX_TIME;
    o->plot_timeout = RUN_PLOT_TIMEOUT;
    o->progress = -1;
    o->watchdog = 1.0;
    o->queue = 50;
    o->rt_priority = 80;
    o->max_missed = 50;
    o->threads = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
    o->trace_h5 = 1;
}

void run_options_free(RunOptions *o)
{
    free(o->input);
    o->input = NULL;
    o->ninput = o->capinput = 0;
}

/* A number with an optional time unit (s, ms, us, min, h); *v in seconds. 0 on success. */
static int parse_seconds(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno) return -1;
    if (strcmp(end, "") == 0 || strcmp(end, "s") == 0) *v = x;
    else if (strcmp(end, "ms") == 0) *v = x * 1e-3;
    else if (strcmp(end, "us") == 0) *v = x * 1e-6;
    else if (strcmp(end, "min") == 0) *v = x * 60.0;
    else if (strcmp(end, "h") == 0) *v = x * 3600.0;
    else return -1;
    return isfinite(*v) ? 0 : -1;
}

/* Splits "NAME=REST" into name (bounded) and a pointer to REST; 0 on success. */
static int split_name(const char *arg, char *name, const char **rest)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= RUN_NAME_LEN) return -1;
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = '\0';
    *rest = eq + 1;
    return 0;
}

static int parse_start(RunOptions *o, const char *arg)
{
    if (o->nstart >= RUN_MAX_BIND) return -1;
    RunStart *s = &o->start[o->nstart];
    const char *p;
    if (split_name(arg, s->dev, &p)) return -1;
    s->n = 0;
    while (*p) {
        char *end;
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || s->n >= 64) return -1;
        s->q[s->n++] = x;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    if (s->n == 0) return -1;
    o->nstart++;
    return 0;
}

/* "v1,v2,..." into v (at most 64), stopping at stop or the end; the count, or -1. */
static int parse_values(const char **pp, char stop, double *v)
{
    const char *p = *pp;
    int n = 0;
    while (*p && *p != stop) {
        char *end;
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || n >= 64) return -1;
        v[n++] = x;
        p = end;
        if (*p == ',') p++;
        else if (*p && *p != stop) return -1;
    }
    *pp = p;
    return n;
}

/* NAME=q1,...[;qd1,...] */
static int parse_actual(RunOptions *o, const char *arg)
{
    if (o->nactual >= RUN_MAX_BIND) return -1;
    RunActualStart *s = &o->actual[o->nactual];
    const char *p;
    if (split_name(arg, s->dev, &p)) return -1;
    if ((s->n = parse_values(&p, ';', s->q)) <= 0) return -1;
    s->nd = 0;
    if (*p == ';') {
        p++;
        if ((s->nd = parse_values(&p, '\0', s->qd)) != s->n) return -1;
    }
    o->nactual++;
    return 0;
}

static int parse_input(RunOptions *o, const char *arg)
{
    if (!strchr(arg, '=')) { /* a stimulus file */
        if (o->ncsv >= RUN_MAX_BIND) return -1;
        o->csv[o->ncsv++] = arg;
        return 0;
    }
    RunInput in;
    const char *p;
    if (split_name(arg, in.name, &p)) return -1;
    char *end;
    in.value = strtod(p, &end);
    if (end == p || !isfinite(in.value)) {
        if (strncasecmp(p, "true", 4) == 0) in.value = 1, end = (char *)p + 4;
        else if (strncasecmp(p, "false", 5) == 0) in.value = 0, end = (char *)p + 5;
        else return -1;
    }
    in.t = 0;
    if (*end == '@') {
        if (parse_seconds(end + 1, &in.t) || in.t < 0) return -1;
    } else if (*end) {
        return -1;
    }
    if (o->ninput == o->capinput) {
        int cap = o->capinput ? 2 * o->capinput : 16;
        RunInput *q = realloc(o->input, (size_t)cap * sizeof *q);
        if (!q) return -1;
        o->input = q;
        o->capinput = cap;
    }
    o->input[o->ninput++] = in;
    return 0;
}

/* A gain list "v" or "v1,v2,...": finite numbers >= 0 separated by commas (the count is checked later). */
static int gain_list_ok(const char *s)
{
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || errno || !isfinite(x) || x < 0) return 0;
        p = end;
        if (*p == '\0') return 1;
        if (*p++ != ',') return 0;
    }
}

int run_options_parse(RunOptions *o, int argc, char **argv, char *err, size_t errlen)
{
    const char *a = argv[0];
    static const char *const with_arg[] = {"--out", "--cycle", "--device", "--start", "--input", "--time-scale",
                                         "--display",
                                         "--controller", "--bandwidth", "--kp", "--kd", "--ki", "--driver",
                                         "--following-error", "--watchdog", "--queue", "--rt-priority", "--max-missed",
                                         "--threads", "--max-time", "--plot-timeout", "--trace", "--digits",
                                         "--actual-start", "--controller-rate"};
    int takes = 0;
    for (size_t i = 0; i < sizeof with_arg / sizeof *with_arg; i++)
        if (strcmp(a, with_arg[i]) == 0) takes = 1;
    if (!takes) {
        if (strcmp(a, "--no-plots") == 0) o->no_plots = 1;
        else if (strcmp(a, "--no-html") == 0) o->no_html = 1;
        else if (strcmp(a, "--no-trace") == 0) o->no_trace = 1;
        else if (strcmp(a, "--closed-loop") == 0) o->closed_loop = 1;
        else if (strcmp(a, "--out-temp") == 0) o->out_temp = 1;
        else if (strcmp(a, "--progress") == 0) o->progress = 1;
        else if (strcmp(a, "--no-progress") == 0) o->progress = 0;
        else if (strcmp(a, "--online") == 0) o->online = 1;
        else if (strcmp(a, "--force") == 0) o->force = 1;
        else if (strcmp(a, "--approach") == 0) o->approach = 1;
        else return 0;
        return 1;
    }
    if (argc < 2) {
        snprintf(err, errlen, "%s needs a value", a);
        return -1;
    }
    const char *v = argv[1];
    int bad = 0;
    if (strcmp(a, "--out") == 0) {
        o->out_dir = v;
    } else if (strcmp(a, "--display") == 0) {
        bad = strcmp(v, "deg") != 0 && strcmp(v, "si") != 0;
        o->display_si = strcmp(v, "si") == 0;
    } else if (strcmp(a, "--trace") == 0) {
        bad = strcmp(v, "csv") != 0 && strcmp(v, "h5") != 0 && strcmp(v, "none") != 0;
        o->no_trace = strcmp(v, "none") == 0;
        o->trace_h5 = strcmp(v, "h5") == 0;
    } else if (strcmp(a, "--digits") == 0) {
        char *end;
        long n = strtol(v, &end, 10);
        bad = end == v || *end || n < 1 || n > 17;
        if (!bad) o->digits = (int)n;
    } else if (strcmp(a, "--cycle") == 0) {
        bad = parse_seconds(v, &o->cycle) || !(o->cycle >= 1e-6 && o->cycle <= 1.0);
    } else if (strcmp(a, "--max-time") == 0) {
        bad = parse_seconds(v, &o->max_time) || !(o->max_time > 0);
    } else if (strcmp(a, "--plot-timeout") == 0) {
        bad = parse_seconds(v, &o->plot_timeout) || !(o->plot_timeout > 0);
    } else if (strcmp(a, "--time-scale") == 0) {
        char *end;
        o->time_scale = strtod(v, &end);
        bad = end == v || *end || !(o->time_scale >= 1e-3 && o->time_scale <= 1e3);
    } else if (strcmp(a, "--controller") == 0) {
        if (strcasecmp(v, "ct") == 0) o->controller = RUN_CONTROLLER_CT;
        else if (strcasecmp(v, "pid") == 0) o->controller = RUN_CONTROLLER_PID;
        else bad = 1;
    } else if (strcmp(a, "--bandwidth") == 0) {
        char *end;
        o->bandwidth = strtod(v, &end);
        bad = end == v || *end || !(o->bandwidth > 0 && o->bandwidth <= 1e6);
    } else if (strcmp(a, "--kp") == 0 || strcmp(a, "--kd") == 0 || strcmp(a, "--ki") == 0) {
        bad = !gain_list_ok(v);
        if (!bad) *(a[3] == 'p' ? &o->kp : a[3] == 'd' ? &o->kd : &o->ki) = v;
    } else if (strcmp(a, "--device") == 0) {
        if (o->nbind >= RUN_MAX_BIND) bad = 1;
        else if (!(bad = split_name(v, o->bind[o->nbind].dev, &o->bind[o->nbind].path) || !*o->bind[o->nbind].path))
            o->nbind++;
    } else if (strcmp(a, "--driver") == 0) {
        o->driver = v;
        bad = !*v || *v == ':';
    } else if (strcmp(a, "--following-error") == 0) {
        bad = !gain_list_ok(v) || strtod(v, NULL) <= 0;
        if (!bad) o->following_error = v;
    } else if (strcmp(a, "--watchdog") == 0) {
        bad = parse_seconds(v, &o->watchdog) || !(o->watchdog > 0 && o->watchdog <= 3600);
    } else if (strcmp(a, "--queue") == 0 || strcmp(a, "--rt-priority") == 0) {
        char *end;
        long n = strtol(v, &end, 10);
        int q = a[2] == 'q';
        bad = end == v || *end || (q ? n < 2 || n > 4096 : n < 0 || n > 99);
        if (!bad) *(q ? &o->queue : &o->rt_priority) = (int)n;
    } else if (strcmp(a, "--max-missed") == 0) {
        char *end;
        long n = strtol(v, &end, 10);
        bad = end == v || *end || n < 0 || n > 100000000;
        if (!bad) o->max_missed = (int)n;
    } else if (strcmp(a, "--threads") == 0) {
        bad = strcmp(v, "1") != 0 && strcmp(v, "2") != 0;
        if (!bad) o->threads = v[0] - '0';
    } else if (strcmp(a, "--start") == 0) {
        bad = parse_start(o, v);
    } else if (strcmp(a, "--actual-start") == 0) {
        bad = parse_actual(o, v);
    } else if (strcmp(a, "--controller-rate") == 0) {
        bad = strcmp(v, "cycle") != 0 && strcmp(v, "continuous") != 0;
        o->controller_continuous = strcmp(v, "continuous") == 0;
    } else {
        bad = parse_input(o, v);
    }
    if (bad) {
        snprintf(err, errlen, "bad value for %s: '%s'", a, v);
        return -1;
    }
    static const char *const closed_only[] = {"--controller", "--bandwidth", "--kp", "--kd", "--ki",
                                              "--actual-start", "--controller-rate"};
    for (size_t i = 0; i < sizeof closed_only / sizeof *closed_only; i++)
        if (strcmp(a, closed_only[i]) == 0 && !o->closed_loop_only) o->closed_loop_only = closed_only[i];
    return 2;
}
