/* progress.c — the terminal progress bar (see progress.h). */
#include "output/progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "osal.h"

void progress_begin(Progress *p, FILE *f, const char *label, const char *unit, double total)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->on = f && isatty(fileno(f));
    p->label = label ? label : "";
    p->unit = unit ? unit : "";
    p->total = total;
    p->shown = -1;
    p->width = 30;
}

void progress_force(Progress *p, int on)
{
    p->on = on && p->f;
}

/* Draw "label [#####.....]  42%  12.3/29.3 s" (or "label 12.3 s" when the total is unknown). */
static void draw(Progress *p, double done)
{
    if (p->total > 0) {
        double frac = fmin(fmax(done / p->total, 0), 1);
        int fill = (int)(frac * p->width);
        char bar[128];
        memset(bar, '#', (size_t)fill);
        memset(bar + fill, '.', (size_t)(p->width - fill));
        bar[p->width] = 0;
        fprintf(p->f, "\r%s [%s] %3d%%  %.1f/%.1f %s\033[K", p->label, bar, (int)(frac * 100), done, p->total,
                p->unit);
    } else {
        fprintf(p->f, "\r%s %.1f %s\033[K", p->label, done, p->unit);
    }
    fflush(p->f);
}

void progress_update(Progress *p, double done)
{
    if (!p->on) return;
    long step = p->total > 0 ? (long)(fmin(fmax(done / p->total, 0), 1) * 1000) : (long)(done * 10);
    if (step == p->shown) return;
    /* at most ten redraws a second: a fast dry-run must not spend its time on the terminal */
    double now = 1e-9 * (double)osal_now();
    if (p->shown >= 0 && now - p->last_draw < 0.1 && step < 1000) return;
    p->shown = step;
    p->last_draw = now;
    draw(p, done);
}

void progress_end(Progress *p)
{
    if (!p->on) return;
    fputs("\r\033[K", p->f);
    fflush(p->f);
    p->on = 0;
}
