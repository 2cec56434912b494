/* test_plot.c — the plots of a synthetic dry-run: gnuplot missing is a warning, not a failure; with gnuplot
 * every figure is written as PNG and SVG; a device of more than 12 axes gets one panel per unit, its joints named.
 * `test_plot --smoke DIR [CYCLES]` writes DIR/trace.csv, DIR/report.txt and the figures of the synthetic run, exits
 * 0 (plots written), 2 (gnuplot missing: skipped) or 1 (failure); tests/sh/plot_smoke.sh checks the files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/plot.h"
#include "output/progress.h"
#include "output/report.h"
#include "output/trace.h"
#include "utest.h"

#define DT 1e-3

static ModelDesc arm, cf;
static SampleLayout lay;
static Sample smp;
static Checks ck;

/* Smooth rest-to-rest step 0 -> 1 over [0, T] (cycloidal): s, s', s'', s'''. */
static void cyclo(double t, double T, double *s)
{
    double u = fmin(fmax(t / T, 0), 1), w = 2 * M_PI / T;
    int in = t > 0 && t < T;
    s[0] = u - sin(2 * M_PI * u) / (2 * M_PI);
    s[1] = in ? (1 - cos(w * t)) / T : 0;
    s[2] = in ? w * sin(w * t) / T : 0;
    s[3] = in ? w * w * cos(w * t) / T : 0;
}

/* A 6-axis arm making two PTP moves (lines 12 and 14; the second too fast for axis 2's torque), and a
 * 3-axis centrifuge-like device with a G output ramping past its limit. */
static void setup(void)
{
    model_desc_init(&arm);
    strcpy(arm.name, "synthetic arm"), strcpy(arm.backend, "chain");
    arm.njoints = 6;
    static const double vmax[6] = {2.5, 2.5, 2.5, 3, 4, 4}, eff[6] = {80, 180, 90, 20, 20, 15};
    for (int i = 0; i < 6; i++) {
        model_joint_init(&arm.joint[i]);
        arm.joint[i].limits.min = -2.8, arm.joint[i].limits.max = 2.8;
        arm.joint[i].limits.vmax = vmax[i], arm.joint[i].limits.amax = 12, arm.joint[i].limits.jmax = 200;
        arm.joint[i].limits.effort = eff[i];
    }
    model_desc_init(&cf);
    strcpy(cf.name, "centrifuge"), strcpy(cf.backend, "centrifuge");
    cf.njoints = 3;
    for (int i = 0; i < 3; i++) model_joint_init(&cf.joint[i]);
    strcpy(cf.output_limit[0].name, "G"), cf.output_limit[0].min = -INFINITY, cf.output_limit[0].max = 6;
    strcpy(cf.output_limit[1].name, "Gdot"), cf.output_limit[1].min = -3, cf.output_limit[1].max = 3;
    cf.noutput_limits = 2;
    memset(&lay, 0, sizeof lay);
    lay.ndev = 2;
    strcpy(lay.dev[0].name, "arm"), lay.dev[0].naxes = 6, lay.dev[0].has_pose = 1, lay.dev[0].desc = &arm;
    strcpy(lay.dev[1].name, "cf"), lay.dev[1].naxes = 3, lay.dev[1].nout = 1, lay.dev[1].desc = &cf;
    strcpy(lay.dev[1].out_name[0], "G");
    sample_init(&smp, &lay);
}

/* Fill cycle i. */
static void fill(long i)
{
    static const double A1[6] = {1.0, -0.6, 0.8, 1.5, -1.0, 2.0}, A2[6] = {-1.5, 1.2, -0.5, -2.0, 1.5, -1.0};
    double t = i * DT, s1[4], s2[4];
    smp.t = t, smp.cycle = i;
    int line = t < 2.0 ? 12 : t < 2.5 ? 13 : 14;
    smp.src = (SampleSrc){"synthetic.irl", line, 5};
    cyclo(t, 2.0, s1);
    cyclo(t - 2.5, 1.2, s2);
    SampleDevice *d = &smp.dev[0];
    d->src = smp.src;
    d->tau_ok = 1, d->has_grav = 1;
    for (int j = 0; j < 6; j++) {
        d->q[j] = A1[j] * s1[0] + A2[j] * s2[0];
        d->qd[j] = A1[j] * s1[1] + A2[j] * s2[1];
        d->qdd[j] = A1[j] * s1[2] + A2[j] * s2[2];
        d->jerk[j] = A1[j] * s1[3] + A2[j] * s2[3];
        double m = j < 3 ? 14.0 / (j + 1) : 1.2;
        d->grav[j] = j == 1 ? 60 * cos(d->q[1]) : j == 2 ? 25 * cos(d->q[1] + d->q[2]) : 0;
        d->tau[j] = m * d->qdd[j] + 0.8 * d->qd[j] + d->grav[j];
    }
    for (int k = 0; k < 7; k++) d->pose[k] = k == 3 ? 1 : 0.3 * sin(t + k);
    SampleDevice *c = &smp.dev[1];
    c->src = smp.src;
    for (int j = 0; j < 3; j++) c->q[j] = 0.2 * t * t * (j + 1), c->qd[j] = 0.4 * t * (j + 1), c->qdd[j] = 0.4 * (j + 1);
    c->out[0] = 1 + 4 * s1[0] + 2.5 * s2[0];
}

/* Run the synthetic program: trace (optional), checks. */
static int run_n(const char *trace_path, long ncycles, char *err, size_t errlen)
{
    setup();
    ChecksConfig cfg = {.cycle = DT};
    if (checks_init(&ck, &lay, &cfg, err, errlen) < 0) return -1;
    Trace tr;
    if (trace_path && trace_open(&tr, trace_path, &lay, NULL, err, errlen) < 0) return -1;
    for (long i = 0; i < ncycles; i++) {
        fill(i);
        checks_sample(&ck, &smp);
        if (trace_path) trace_row(&tr, &smp);
    }
    if (trace_path && trace_close(&tr, err, errlen) < 0) return -1;
    return 0;
}

static int run(const char *trace_path, char *err, size_t errlen)
{
    return run_n(trace_path, 4001, err, errlen);
}

static char tmpdir[256];

/* gnuplot missing: a warning and PLOT_SKIPPED, never a failure. */
UTEST(gnuplot_missing)
{
    char err[512], trace[300];
    snprintf(tmpdir, sizeof tmpdir, "/tmp/irl_test_plot_XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
    snprintf(trace, sizeof trace, "%s/trace.csv", tmpdir);
    CHECK(run(trace, err, sizeof err) == 0);
    setenv("IRL_GNUPLOT", "/nonexistent/gnuplot", 1);
    PlotOptions o = {.dir = tmpdir, .trace = trace};
    int rc = plot_all(&ck, &o, err, sizeof err);
    unsetenv("IRL_GNUPLOT");
    CHECK(rc == PLOT_SKIPPED);
    CHECK(strstr(err, "/nonexistent/gnuplot not found: plots skipped") == err);
    /* a gnuplot that fails is a failure with gnuplot's last message */
    setenv("IRL_GNUPLOT", "false", 1);
    rc = plot_all(&ck, &o, err, sizeof err);
    unsetenv("IRL_GNUPLOT");
    CHECK(rc == PLOT_FAILED);
    checks_free(&ck);
}

/* With gnuplot: 9 figures (arm: positions, speeds, accelerations, torques; cf: positions, speeds,
 * accelerations, outputs — cf has no torques) in both formats, non-empty. */
UTEST(figures_written)
{
    if (access("/usr/bin/gnuplot", X_OK) != 0 && system("command -v gnuplot >/dev/null 2>&1") != 0) {
        printf("#   gnuplot absent: figures not checked here (plot_smoke.sh says so too)\n");
        return;
    }
    char err[512], trace[300];
    snprintf(trace, sizeof trace, "%s/trace.csv", tmpdir);
    CHECK(run(trace, err, sizeof err) == 0);
    PlotOptions o = {.dir = tmpdir, .trace = trace};
    int rc = plot_all(&ck, &o, err, sizeof err);
    if (rc != PLOT_OK) printf("#   %s\n", err);
    CHECK(rc == PLOT_OK);
    static const char *const names[] = {"arm_positions", "arm_speeds", "arm_accelerations", "arm_torques",
                                        "cf_positions", "cf_speeds", "cf_accelerations", "cf_outputs"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (int k = 0; k < 2; k++) {
            char p[400];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s.%s", tmpdir, names[i], k ? "svg" : "png");
            CHECK(stat(p, &st) == 0 && st.st_size > 1000);
        }
    char p[400];
    struct stat st;
    snprintf(p, sizeof p, "%s/cf_torques.png", tmpdir);
    CHECK(stat(p, &st) != 0);
    checks_free(&ck);
}

/* A trace longer than PLOT_MAX_POINTS rows is thinned into plots.csv: header, every n-th row, the last row;
 * the script reads it. (gnuplot itself is replaced by `false` here: only the preparation is tested.) */
UTEST(thinning)
{
    char err[512], trace[300], thin[300], gp[300];
    snprintf(trace, sizeof trace, "%s/trace.csv", tmpdir);
    snprintf(thin, sizeof thin, "%s/plots.csv", tmpdir);
    snprintf(gp, sizeof gp, "%s/plots.gp", tmpdir);
    long n = 2 * PLOT_MAX_POINTS + 7; /* every 3rd row */
    CHECK(run_n(trace, n, err, sizeof err) == 0);
    setenv("IRL_GNUPLOT", "false", 1);
    PlotOptions o = {.dir = tmpdir, .trace = trace};
    CHECK(plot_all(&ck, &o, err, sizeof err) == PLOT_FAILED);
    unsetenv("IRL_GNUPLOT");
    FILE *f = fopen(thin, "r");
    CHECK(f != NULL);
    if (f) {
        char line[2048], first[64] = "", second[64] = "", last[64] = "";
        long rows = -1;
        while (fgets(line, sizeof line, f)) {
            if (rows == 0) snprintf(first, sizeof first, "%.20s", line);
            if (rows == 1) snprintf(second, sizeof second, "%.20s", line);
            snprintf(last, sizeof last, "%.20s", line);
            rows++;
        }
        fclose(f);
        CHECK(rows == (n - 1) / 3 + 1 + 1); /* rows 0, 3, ..., and the last one */
        CHECK(strncmp(first, "0,", 2) == 0 && strncmp(second, "0.003,", 6) == 0);
        char want[32];
        snprintf(want, sizeof want, "%.9g,", (n - 1) * DT); /* the last row, kept although not a 3rd */
        CHECK(strncmp(last, want, strlen(want)) == 0);
    }
    char *s = NULL;
    long len = 0;
    f = fopen(gp, "r");
    if (f) {
        fseek(f, 0, SEEK_END), len = ftell(f), fseek(f, 0, SEEK_SET);
        s = calloc(1, (size_t)len + 1);
        if (fread(s, 1, (size_t)len, f) != (size_t)len) len = 0;
        fclose(f);
    }
    CHECK(s && strstr(s, "plots.csv' every ::1 using 1:2 ") != NULL && strstr(s, "trace.csv") == NULL);
    free(s);
    checks_free(&ck);
}

/* The progress bar draws only when forced or on a terminal, with the percentage, and clears its line. */
UTEST(progress_bar)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    Progress p;
    progress_begin(&p, f, "dry-run", "s", 10);
    CHECK(p.on == 0); /* a memory stream is no terminal */
    progress_update(&p, 5);
    fflush(f);
    CHECK(len == 0);
    progress_force(&p, 1);
    progress_update(&p, 5);
    progress_update(&p, 5); /* nothing new: no redraw */
    progress_update(&p, 10);
    progress_end(&p);
    fclose(f);
    CHECK(strstr(buf, "\rdry-run [###############...............]  50%  5.0/10.0 s") != NULL);
    CHECK(strstr(buf, "100%  10.0/10.0 s") != NULL);
    CHECK(len >= 4 && strcmp(buf + len - 4, "\r\033[K") == 0);
    const char *second = strstr(buf, " 50%");
    CHECK(second && strstr(second + 1, " 50%") == NULL);
    free(buf);
}

/* The whole text of a file (NULL when unreadable); free it. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc(1, (size_t)len + 1);
    if (s && fread(s, 1, (size_t)len, f) != (size_t)len) s[0] = 0;
    fclose(f);
    return s;
}

/* A device of more than MAX_PANELS (12) axes: each figure draws one panel per unit, every axis a curve named by its
 * joint (13 revolute axes in degrees, one prismatic in metres), not one panel per axis. */
UTEST(long_chain_grouped)
{
    static ModelDesc d;
    static SampleLayout ly;
    static Sample sm;
    Checks c;
    char err[512], trace[300], gp[300];
    model_desc_init(&d);
    strcpy(d.name, "long"), strcpy(d.backend, "chain");
    d.njoints = 14;
    memset(&ly, 0, sizeof ly);
    ly.ndev = 1;
    strcpy(ly.dev[0].name, "long"), ly.dev[0].naxes = 14, ly.dev[0].desc = &d;
    for (int i = 0; i < 14; i++) {
        model_joint_init(&d.joint[i]);
        d.joint[i].type = i == 13 ? MODEL_PRISMATIC : MODEL_REVOLUTE;
        snprintf(ly.dev[0].axis_name[i], sizeof ly.dev[0].axis_name[i], "seg%d", i + 1);
    }
    sample_init(&sm, &ly);
    ChecksConfig cfg = {.cycle = DT};
    CHECK(checks_init(&c, &ly, &cfg, err, sizeof err) == 0);
    snprintf(trace, sizeof trace, "%s/long.csv", tmpdir);
    snprintf(gp, sizeof gp, "%s/plots.gp", tmpdir);
    Trace tr;
    CHECK(trace_open(&tr, trace, &ly, NULL, err, sizeof err) == 0);
    for (long k = 0; k < 200; k++) {
        sm.t = k * DT, sm.cycle = k;
        for (int i = 0; i < 14; i++) sm.dev[0].q[i] = 0.01 * (i + 1) * sm.t;
        checks_sample(&c, &sm);
        trace_row(&tr, &sm);
    }
    CHECK(trace_close(&tr, err, sizeof err) == 0);
    setenv("IRL_GNUPLOT", "false", 1);
    PlotOptions o = {.dir = tmpdir, .trace = trace, .degrees = 1};
    CHECK(plot_all(&c, &o, err, sizeof err) == PLOT_FAILED); /* `false` draws nothing: the script is what counts */
    unsetenv("IRL_GNUPLOT");
    char *s = slurp(gp);
    CHECK(s != NULL);
    const char *pos = s ? strstr(s, "long_positions.png") : NULL, *end = pos ? strstr(pos, "unset multiplot") : NULL;
    CHECK(pos && end);
    if (pos && end) {
        int plots = 0;
        for (const char *q = pos; (q = strstr(q, "\nplot ")) && q < end; q++) plots++;
        CHECK(plots == 2);
        const char *deg = strstr(pos, "set ylabel 'position (deg)'"), *m = strstr(pos, "set ylabel 'position (m)'");
        CHECK(deg && deg < end && m && m < end && deg < m);
        CHECK(strstr(pos, "set title 'seg1 … seg13 (13)") != NULL);
        for (int i = 1; i <= 13 && deg && m; i++) { /* seg1..seg13 in the degree panel, in degrees */
            char want[64];
            snprintf(want, sizeof want, "using 1:($%d * 57.29577951308232", 2 + (i - 1));
            CHECK(strstr(deg, want) && strstr(deg, want) < m);
            snprintf(want, sizeof want, "title 'seg%d'", i);
            CHECK(strstr(deg, want) && strstr(deg, want) < m);
        }
        CHECK(m && strstr(m, "using 1:15 with lines") && strstr(m, "using 1:15 with lines") < end);
        const char *t14 = strstr(pos, "set title 'seg14  ·  peak ");
        CHECK(t14 && m && t14 < m && t14 > deg); /* the metre panel: one curve, titled by its joint */
    }
    CHECK(s && strstr(s, "'axis ") == NULL);
    free(s);
    checks_free(&c);
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "--smoke") == 0) { /* optional 4th: cycles (timing) */
        char err[512], trace[4096], txt[4096];
        snprintf(trace, sizeof trace, "%s/trace.csv", argv[2]);
        snprintf(txt, sizeof txt, "%s/report.txt", argv[2]);
        if (run_n(trace, argc == 4 ? atol(argv[3]) : 4001, err, sizeof err) < 0) return fprintf(stderr, "%s\n", err), 1;
        ReportInfo info = {.program = "synthetic.irl", .cycle = DT, .trace = trace};
        if (report_write(&ck, &info, NULL, txt, err, sizeof err) < 0) return fprintf(stderr, "%s\n", err), 1;
        PlotOptions o = {.dir = argv[2], .trace = trace, .progress = 1};
        int rc = plot_all(&ck, &o, err, sizeof err);
        if (rc != PLOT_OK) fprintf(stderr, "%s%s\n", rc == PLOT_SKIPPED ? "warning: " : "", err);
        checks_free(&ck);
        return rc == PLOT_OK ? 0 : rc == PLOT_SKIPPED ? 2 : 1;
    }
    RUN(gnuplot_missing);
    RUN(figures_written);
    RUN(thinning);
    RUN(progress_bar);
    RUN(long_chain_grouped);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (tmpdir[0] && system(cmd) != 0) printf("#   could not remove %s\n", tmpdir);
    return utest_done();
}
