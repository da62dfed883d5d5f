#include "base/progress.h"

#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void mfb_progress_start(struct mfb_progress *p, FILE *out, const char *who, const char *what, int total, bool quiet)
{
    *p = (struct mfb_progress){.who = who, .what = what, .total = total, .t0 = now_ns(),
                               .on = !quiet && isatty(fileno(out))};
}

/* Seconds as a reader takes them in: "9 s", "1 min 40 s", "2 h 5 min". */
static void span(double s, char *buf, size_t n)
{
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(buf, n, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, n, "%ld min %ld s", t / 60, t % 60);
    else
        snprintf(buf, n, "%ld h %ld min", t / 3600, t % 3600 / 60);
}

void mfb_progress_step(struct mfb_progress *p, FILE *out, int done, const char *detail)
{
    if (!p->on)
        return;
    char left[48] = "";
    if (p->total > 0 && done > 0) {
        double each = (double)(now_ns() - p->t0) / 1e9 / done;
        char s[32];
        span(each * (p->total - done), s, sizeof s);
        snprintf(left, sizeof left, ", about %s left", s);
    }
    if (p->total > 0)
        fprintf(out, "\r\033[K%s: %s %d of %d%s%s%s", p->who, p->what, done + 1, p->total, left, detail ? ": " : "",
                detail ? detail : "");
    else
        fprintf(out, "\r\033[K%s: %s %d%s%s", p->who, p->what, done + 1, detail ? ": " : "", detail ? detail : "");
    fflush(out);
    p->shown = true;
}

void mfb_progress_end(struct mfb_progress *p, FILE *out)
{
    if (p->shown)
        fputc('\n', out);
    p->shown = false;
}
