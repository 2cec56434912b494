/* test_report.c — report.json is well-formed JSON (parsed back by a tiny checker), strings are escaped, and
 * report.txt leads with gcc-style violation lines.
 * With arguments `--write DIR` it only writes DIR/report.json and DIR/report.txt of the sample run (for
 * tests/sh/report_json.sh, which validates them with python3 when present). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/report.h"
#include "utest.h"

/* {====================================================================== a tiny JSON checker (RFC 8259) */

static const char *jp;
static int jvalue(int depth);

static void jws(void)
{
    while (*jp == ' ' || *jp == '\t' || *jp == '\n' || *jp == '\r') jp++;
}

static int jstring(void)
{
    if (*jp++ != '"') return 0;
    for (;;) {
        unsigned char c = (unsigned char)*jp++;
        if (c == '"') return 1;
        if (c < 0x20) return 0; /* raw control characters are not allowed */
        if (c == '\\') {
            c = (unsigned char)*jp++;
            if (c == 'u') {
                for (int i = 0; i < 4; i++)
                    if (!isxdigit((unsigned char)*jp++)) return 0;
            } else if (!strchr("\"\\/bfnrt", c) || !c) {
                return 0;
            }
        }
    }
}

static int jnumber(void)
{
    const char *s = jp;
    if (*jp == '-') jp++;
    if (*jp == '0') jp++;
    else if (isdigit((unsigned char)*jp)) while (isdigit((unsigned char)*jp)) jp++;
    else return 0;
    if (*jp == '.') {
        jp++;
        if (!isdigit((unsigned char)*jp)) return 0;
        while (isdigit((unsigned char)*jp)) jp++;
    }
    if (*jp == 'e' || *jp == 'E') {
        jp++;
        if (*jp == '+' || *jp == '-') jp++;
        if (!isdigit((unsigned char)*jp)) return 0;
        while (isdigit((unsigned char)*jp)) jp++;
    }
    return jp > s;
}

static int jlist(int depth, char close, int object)
{
    jws();
    if (*jp == close) return jp++, 1;
    for (;;) {
        jws();
        if (object) {
            if (!jstring()) return 0;
            jws();
            if (*jp++ != ':') return 0;
        }
        if (!jvalue(depth + 1)) return 0;
        jws();
        if (*jp == ',') { jp++; continue; }
        return *jp++ == close;
    }
}

static int jvalue(int depth)
{
    if (depth > 64) return 0;
    jws();
    switch (*jp) {
    case '{': jp++; return jlist(depth, '}', 1);
    case '[': jp++; return jlist(depth, ']', 0);
    case '"': return jstring();
    case 't': return strncmp(jp, "true", 4) == 0 ? (jp += 4, 1) : 0;
    case 'f': return strncmp(jp, "false", 5) == 0 ? (jp += 5, 1) : 0;
    case 'n': return strncmp(jp, "null", 4) == 0 ? (jp += 4, 1) : 0;
    default: return jnumber();
    }
}

/* 1 when s is exactly one JSON value (and whitespace). */
static int json_valid(const char *s)
{
    jp = s;
    if (!jvalue(0)) return 0;
    jws();
    return *jp == 0;
}

/* }====================================================================== */

static ModelDesc desc;
static SampleLayout lay;
static Sample smp;
static Checks ck;
static const char *weird_prog = "dir\\we\"ird\tname\x01.irl";

/* A 2-axis arm with a torque violation on lines 20..21, a speed note, a G output and a lowered request. */
static void run_sample(void)
{
    model_desc_init(&desc);
    strcpy(desc.name, "two \"link\" arm");
    strcpy(desc.backend, "chain");
    strcpy(desc.source, "machines/arm.irm");
    desc.njoints = 2;
    for (int i = 0; i < 2; i++) {
        model_joint_init(&desc.joint[i]);
        desc.joint[i].limits.min = -3, desc.joint[i].limits.max = 3;
        desc.joint[i].limits.vmax = 2, desc.joint[i].limits.effort = 50;
    }
    desc.joint[1].type = MODEL_PRISMATIC;
    strcpy(desc.output_limit[0].name, "G"), desc.output_limit[0].min = -INFINITY, desc.output_limit[0].max = 9;
    desc.noutput_limits = 1;
    memset(&lay, 0, sizeof lay);
    lay.ndev = 1;
    strcpy(lay.dev[0].name, "arm");
    lay.dev[0].naxes = 2, lay.dev[0].nout = 1, lay.dev[0].desc = &desc;
    strcpy(lay.dev[0].out_name[0], "G");
    strcpy(lay.dev[0].axis_name[0], "shoulder"); /* axis 2 has no name: "joint": null */
    sample_init(&smp, &lay);
    ChecksConfig cfg = {.cycle = 1e-3};
    char err[200];
    CHECK(checks_init(&ck, &lay, &cfg, err, sizeof err) == 0);
    for (long i = 0; i <= 1000; i++) {
        double t = i * 1e-3;
        smp.t = t, smp.cycle = i;
        smp.src = (SampleSrc){"prog.irl", 20 + (int)(i / 500), 5};
        smp.dev[0].src = smp.src;
        SampleDevice *d = &smp.dev[0];
        d->tau_ok = 1, d->has_grav = 1;
        d->q[0] = sin(2 * M_PI * t), d->qd[0] = 2 * M_PI * cos(2 * M_PI * t) / 4;
        d->q[1] = 0.1 * t, d->qd[1] = 0.1;
        d->tau[0] = 10 + 60 * sin(2 * M_PI * t), d->grav[0] = 10;
        d->tau[1] = 5, d->grav[1] = 5;
        d->out[0] = 1 + t;
    }
}

static void sample_checks(void)
{
    run_sample();
    for (long i = 0; i <= 1000; i++) {
        double t = i * 1e-3;
        SampleDevice *d = &smp.dev[0];
        smp.t = t, smp.cycle = i;
        smp.src = (SampleSrc){"prog.irl", 20 + (int)(i / 500), 5};
        d->src = smp.src;
        d->q[0] = sin(2 * M_PI * t), d->qd[0] = 2 * M_PI * cos(2 * M_PI * t) / 4;
        d->q[1] = 0.1 * t;
        d->tau[0] = 10 + 60 * sin(2 * M_PI * t);
        d->out[0] = 1 + t;
        checks_sample(&ck, &smp);
    }
    checks_note_limited(&ck, 0, -1, "SPEED", 2.0, 1.25, 0.0, (SampleSrc){"prog.irl", 18, 3});
}

static char *to_string(void (*fn)(FILE *, const Checks *, const ReportInfo *), const ReportInfo *info)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, &ck, info);
    fclose(f);
    return buf;
}

/* The JSON parses, with the expected verdict, torque violation and time scale. */
UTEST(json_well_formed)
{
    sample_checks();
    ReportInfo info = {.program = "prog.irl", .cycle = 1e-3};
    char *j = to_string(report_json, &info);
    CHECK(json_valid(j));
    CHECK(strstr(j, "\"verdict\": \"fail\"") != NULL);
    CHECK(strstr(j, "\"quantity\": \"torque\", \"name\": \"torque\", \"axis\": 1, \"joint\": \"shoulder\", "
                    "\"unit\": \"Nm\"") != NULL);
    CHECK(strstr(j, "\"name\": \"force\", \"axis\": 2, \"joint\": null, \"unit\": \"N\"") != NULL); /* prismatic */
    CHECK(strstr(j, "\"limit_min\": null") != NULL);                             /* G has no lower limit */
    CHECK(strstr(j, "\"machine\": \"two \\\"link\\\" arm\"") != NULL);
    CHECK(strstr(j, "\"what\": \"SPEED\", \"requested\": 2, \"applied\": 1.25") != NULL);
    /* k = sqrt((70 - 10) / (50 - 10)) at the sine's peak, rounded up by 1e-12 */
    const char *k = strstr(j, "\"torque_time_scale\": {\"k\": ");
    CHECK(k != NULL);
    if (k) CHECK_REL(strtod(k + strlen("\"torque_time_scale\": {\"k\": "), NULL), sqrt(60.0 / 40), 1e-9);
    /* the JSON's 17 digits read back exactly */
    const char *d = strstr(j, "\"cycle\": ");
    CHECK(d && strtod(d + 9, NULL) == 1e-3);
    free(j);
    /* a torn document is rejected by the checker (the checker can fail) */
    CHECK(!json_valid("{\"a\": [1, 2,]}"));
    CHECK(!json_valid("{\"a\": \"x\ty\"}"));
    CHECK(!json_valid("{\"a\": nan}"));
    checks_free(&ck);
}

/* Quotes, backslashes, tabs and control characters in strings are escaped. */
UTEST(json_escapes)
{
    sample_checks();
    ReportInfo info = {.program = weird_prog, .cycle = 1e-3, .error = "line1\nline2 \"q\" \\ end"};
    char *j = to_string(report_json, &info);
    CHECK(json_valid(j));
    CHECK(strstr(j, "\"program\": \"dir\\\\we\\\"ird\\tname\\u0001.irl\"") != NULL);
    CHECK(strstr(j, "\"error\": \"line1\\nline2 \\\"q\\\" \\\\ end\"") != NULL);
    CHECK(strstr(j, "\"verdict\": \"error\"") != NULL);
    free(j);
    /* UTF-8 passes, invalid bytes (Latin-1 é, an overlong, a lone continuation) become U+FFFD */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_json_string(f, "K\xc3\xa9\xe2\x82\xac|\xe9|\xc0\xaf|\x80|\xf0\x9f\x98\x80");
    fclose(f);
    CHECK(strcmp(buf, "\"K\xc3\xa9\xe2\x82\xac|\\ufffd|\\ufffd\\ufffd|\\ufffd|\xf0\x9f\x98\x80\"") == 0);
    free(buf);
    checks_free(&ck);
}

/* An interrupted run: verdict INCOMPLETE with what cut it short, in both files; an error still wins. */
UTEST(incomplete)
{
    sample_checks();
    ReportInfo info = {.program = "prog.irl", .cycle = 1e-3, .incomplete = "interrupted by SIGINT at t = 1.5 s"};
    char *j = to_string(report_json, &info), *t = to_string(report_text, &info);
    CHECK(json_valid(j));
    CHECK(strstr(j, "\"verdict\": \"incomplete\"") != NULL);
    CHECK(strstr(j, "\"incomplete\": \"interrupted by SIGINT at t = 1.5 s\"") != NULL);
    CHECK(strstr(t, "verdict: INCOMPLETE") != NULL);
    CHECK(strstr(t, "\nthe run was interrupted by SIGINT at t = 1.5 s: the trace, the peaks and the checks end "
                    "there") != NULL);
    free(j), free(t);
    info.error = "prog.irl:3:3: runtime error: x (ERR_USER)";
    t = to_string(report_text, &info);
    CHECK(strcmp(report_verdict(&ck, &info), "error") == 0 && strstr(t, "verdict: ERROR") != NULL);
    free(t);
    info.error = info.incomplete = NULL;
    j = to_string(report_json, &info);
    CHECK(strstr(j, "\"incomplete\": null") != NULL);
    free(j);
    checks_free(&ck);
}

/* The text leads with the verdict and gcc-style violation lines, then notes, then peaks. */
UTEST(text_report)
{
    sample_checks();
    ReportInfo info = {.program = "prog.irl", .cycle = 1e-3, .trace = "out/prog/trace.csv"};
    char *t = to_string(report_text, &info);
    CHECK(strncmp(t, "irl dry-run report: prog.irl\nverdict: FAIL (", 44) == 0);
    const char *e = strstr(t, "\nprog.irl:20:5: error: arm axis 1 (shoulder) torque 70 Nm exceeds its limit 50 Nm at t = 0.25 s");
    CHECK(e != NULL);
    const char *n = strstr(t, "prog.irl:20:5: note: every torque fits if the whole program runs 1.22474 times slower "
                              "(time scale k = 1.224745, set by arm at t = 0.25 s)");
    const char *l = strstr(t, "prog.irl:18:3: note: arm SPEED 2 m/s lowered to 1.25 m/s (limit)");
    const char *p = strstr(t, "\npeaks");
    CHECK(n && l && p && e < n && n < l && l < p);
    CHECK(strstr(t, "! torque") != NULL);
    CHECK(strstr(t, "  force") != NULL);
    free(t);
    checks_free(&ck);
}

/* IK failures, NaN, singularity and a full violation list read right in the text; the JSON stays valid. */
UTEST(text_special_cases)
{
    model_desc_init(&desc);
    desc.njoints = 1;
    model_joint_init(&desc.joint[0]);
    desc.joint[0].limits.vmax = 1;
    memset(&lay, 0, sizeof lay);
    lay.ndev = 1;
    strcpy(lay.dev[0].name, "arm");
    lay.dev[0].naxes = 1, lay.dev[0].desc = &desc;
    sample_init(&smp, &lay);
    ChecksConfig cfg = {.cycle = 1e-3, .max_violations = 3};
    char err[200];
    CHECK(checks_init(&ck, &lay, &cfg, err, sizeof err) == 0);
    for (long i = 0; i < 100; i++) {
        smp.t = i * 1e-3;
        smp.src = (SampleSrc){"p.irl", 3, 1};
        smp.dev[0].src = (SampleSrc){NULL, 0, 0}; /* at rest: blamed on the statement executing */
        smp.dev[0].ik_status = (i >= 10 && i < 13) ? MODEL_EUNREACH : 0;
        smp.dev[0].sing = (i >= 20 && i < 22) ? 0.001 : 0.5;
        smp.dev[0].q[0] = i == 30 ? NAN : 0;
        smp.dev[0].qd[0] = (i >= 40 && i % 10 == 0) ? 2 : 0; /* 6 one-cycle runs: 2 listed, 4 dropped */
        checks_sample(&ck, &smp);
    }
    ReportInfo info = {.program = "p.irl", .cycle = 1e-3};
    char *x = to_string(report_text, &info);
    if (getenv("SHOW_REPORT")) fputs(x, stderr);
    CHECK(strstr(x, "p.irl:3:1: error: arm: no inverse-kinematics solution at t = 0.01 s (during 0.01 .. 0.012 s, 3 cycles)\n"));
    CHECK(strstr(x, "p.irl:3:1: error: arm singularity: measure 0.001 below the threshold 0.01 (near a singularity) at t = 0.02 s"));
    /* the checks list IK, singularity and the NaN position first: the list is full after that */
    CHECK(strstr(x, "p.irl:3:1: error: arm axis 1 position is not a number at t = 0.03 s\n"));
    CHECK(strstr(x, "note: 6 more violations not listed (the list holds 3; see the peaks below)\n"));
    CHECK(strstr(x, "verdict: FAIL (9 violations)"));
    CHECK(strstr(x, "! IK failed on 3 cycles"));
    free(x);
    x = to_string(report_json, &info);
    CHECK(json_valid(x));
    CHECK(strstr(x, "\"violation_count\": 9, \"violations_not_listed\": 6"));
    CHECK(strstr(x, "\"value\": null")); /* the NaN position */
    free(x);
    checks_free(&ck);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        sample_checks();
        ReportInfo info = {.program = weird_prog, .cycle = 1e-3, .error = "stopped \"here\"\n"};
        char j[4096], x[4096], err[256];
        snprintf(j, sizeof j, "%s/report.json", argv[2]);
        snprintf(x, sizeof x, "%s/report.txt", argv[2]);
        int rc = report_write(&ck, &info, j, x, err, sizeof err);
        if (rc < 0) fprintf(stderr, "%s\n", err);
        checks_free(&ck);
        return rc < 0;
    }
    RUN(json_well_formed);
    RUN(json_escapes);
    RUN(text_report);
    RUN(text_special_cases);
    RUN(incomplete);
    return utest_done();
}
