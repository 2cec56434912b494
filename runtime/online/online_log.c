/* online_log.c — online.csv from the real-time thread's log ring (online_log.h). */
#include "online/online_log.h"

#include <errno.h>
#include <string.h>

#include "online/rt_loop.h"
#include "output/trace.h"

static const char *const state_name[] = {"run", "prime", "hold", "stop", "settle", "approach"};

int online_log_open(OnlineLog *lg, const char *path, int naxes, const char (*axis_name)[DRIVER_NAME_LEN], char *err,
                    size_t errlen)
{
    memset(lg, 0, sizeof *lg);
    lg->f = fopen(path, "w");
    if (!lg->f) return snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno)), -1;
    lg->naxes = naxes;
    static const char *const grp[3] = {"q", "qd", "qa"};
    fputs("wall,cycle,t,state", lg->f);
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < naxes; i++) {
            const char *dot = strrchr(axis_name[i], '.');
            int dn = dot ? (int)(dot - axis_name[i]) : 0;
            fprintf(lg->f, ",%.*s%s%s%s", dn, axis_name[i], dn ? "." : "", grp[g], dot ? dot + 1 : axis_name[i]);
        }
    fputs(",confirmed\n", lg->f);
    return 0;
}

/* One row: numbers by the trace's formatter (printf's %.17g). */
static void write_row(OnlineLog *lg, const RtLogRow *r)
{
    char num[40];
    trace_format_double(num, r->wall, 9);
    fprintf(lg->f, "%s,%ld,", num, r->cycle);
    trace_format_double(num, r->t, 12);
    fprintf(lg->f, "%s,%s", num, state_name[r->state]);
    const double *g[3] = {r->q, r->qd, r->qa};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < lg->naxes; i++) {
            trace_format_double(num, g[k][i], 17);
            fputc(',', lg->f);
            fputs(num, lg->f);
        }
    fprintf(lg->f, ",%d\n", r->confirmed);
    lg->rows++;
}

void online_log_confirm_later(OnlineLog *lg, long (*taken)(void *state), void *state)
{
    lg->taken = taken;
    lg->taken_state = state;
}

void online_log_drain(OnlineLog *lg, Spsc *ring, int final)
{
    RtLogRow *r;
    long taken = -1; /* asked once per drain, again only when a row is still open */
    while ((r = spsc_front(ring)) != NULL) {
        if (r->confirmed == -2) {
            if (lg->taken && taken <= r->seq) taken = lg->taken(lg->taken_state);
            if (lg->taken && taken > r->seq) r->confirmed = 1;
            else if (final || spsc_count(ring) > ring->cap / 2) r->confirmed = 0;
            else break;
        }
        if (lg->f) write_row(lg, r);
        spsc_consume(ring);
        spsc_release(ring);
    }
}

int online_log_close(OnlineLog *lg, char *err, size_t errlen)
{
    if (!lg->f) return 0;
    int bad = ferror(lg->f);
    if (fclose(lg->f) != 0) bad = 1;
    lg->f = NULL;
    if (bad) return snprintf(err, errlen, "online.csv: write failed"), -1;
    return 0;
}
