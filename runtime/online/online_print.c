/* online_print.c — PRINT output held until the motion reaches it, stamped with its program time (online_print.h). */
#include "online/online_print.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The VM's write: append to the held text, as a new piece when the mark moved on. */
static ssize_t held_write(void *cookie, const char *data, size_t n)
{
    OnlinePrint *p = cookie;
    long mark = p->mark(p->ctx);
    if (p->len + n > p->bufcap) {
        size_t cap = p->bufcap ? p->bufcap : 1024;
        while (cap < p->len + n) cap *= 2;
        char *nb = realloc(p->buf, cap);
        if (!nb) return -1;
        p->buf = nb, p->bufcap = cap;
    }
    if (p->npiece == 0 || p->piece[p->npiece - 1].mark != mark || p->reached == p->npiece) {
        if (p->npiece == p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 64;
            OnlinePrintPiece *np = realloc(p->piece, cap * sizeof *np);
            if (!np) return -1;
            p->piece = np, p->cap = cap;
        }
        p->piece[p->npiece++] = (OnlinePrintPiece){.mark = mark, .cycle = -1};
    }
    memcpy(p->buf + p->len, data, n);
    p->len += n;
    p->piece[p->npiece - 1].end = p->len;
    return (ssize_t)n;
}

int online_print_open(OnlinePrint *p, FILE *out, long (*mark)(void *ctx), void *ctx)
{
    memset(p, 0, sizeof *p);
    p->out = out, p->mark = mark, p->ctx = ctx;
    p->line_start = 1;
    p->held = fopencookie(p, "w", (cookie_io_functions_t){.write = held_write});
    if (p->held) setvbuf(p->held, NULL, _IONBF, 0); /* each piece tagged as the VM writes it */
    return p->held ? 0 : -1;
}

FILE *online_print_stream(OnlinePrint *p) { return p->held; }

void online_print_reach(OnlinePrint *p, long retired, long cycle, double t)
{
    for (; p->reached < p->npiece && p->piece[p->reached].mark <= retired; p->reached++)
        p->piece[p->reached].cycle = cycle, p->piece[p->reached].t = t;
}

/* One piece to the output, each line it starts stamped with its program time. */
static void write_piece(OnlinePrint *p, const OnlinePrintPiece *pc, size_t from)
{
    for (size_t i = from; i < pc->end; i++) {
        if (p->line_start) fprintf(p->out, "[%.3f s] ", pc->t);
        fputc(p->buf[i], p->out);
        p->line_start = p->buf[i] == '\n';
    }
}

void online_print_release(OnlinePrint *p, long written)
{
    if (p->next == p->reached || p->piece[p->next].cycle > written) return;
    for (; p->next < p->reached && p->piece[p->next].cycle <= written; p->next++)
        write_piece(p, &p->piece[p->next], p->next ? p->piece[p->next - 1].end : 0);
    fflush(p->out);
}

void online_print_close(OnlinePrint *p)
{
    if (p->held) fclose(p->held);
    free(p->buf);
    free(p->piece);
    memset(p, 0, sizeof *p);
}
