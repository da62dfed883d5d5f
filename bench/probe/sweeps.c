#include "probe/sweeps.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "probe/bandwidth.h"
#include "probe/latency.h"

/* The smallest bandwidth size: below it a kernel's call and loop set-up are a visible part. */
#define PROBE_BW_MIN_SIZE ((size_t)16 << 10)

double mfb_probe_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void mfb_probe_stage(struct mfb_probe_progress *p, const char *fmt, ...)
{
    if (!p->stage_lines)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "probe: [%7.1f s] %d/%d ", mfb_probe_now_s() - p->t0, ++p->stage, p->nstages);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    va_end(ap);
}

static void show(struct mfb_probe_progress *p, const char *curve, size_t size)
{
    if (!p->point_lines)
        return;
    p->done++;
    fprintf(stderr, "\rprobe: %s %-16s %12zu bytes  (%zu/%zu)   ", p->what, curve, size, p->done, p->total);
    fflush(stderr);
}

static void curve_stage(struct mfb_probe_progress *p, const char *curve, const struct mfb_probe_point *pts, size_t n)
{
    char a[32], b[32];
    mfb_probe_stage(p, "%s %s: %zu sizes, %s to %s", p->what, curve, n, mfb_probe_human((double)pts[0].size, a, sizeof a),
          mfb_probe_human((double)pts[n - 1].size, b, sizeof b));
}

static void lat_progress(const struct mfb_lat_curve *c, size_t i, void *ctx)
{
    char name[48];
    snprintf(name, sizeof name, "%s/%s", mfb_chase_name(c->chase), mfb_pages_name(c->pages));
    if (i == 0)
        curve_stage(ctx, name, c->points, c->npoints);
    show(ctx, name, c->points[i].size);
}

static void bw_progress(const struct mfb_bw_curve *c, size_t i, void *ctx)
{
    if (i == 0)
        curve_stage(ctx, mfb_stream_kernel_name(c->kernel), c->points, c->npoints);
    show(ctx, mfb_stream_kernel_name(c->kernel), c->points[i].size);
}

/* The size grid from lo to hi (steps per octave, multiples of align) as a curve's points, into
 * *n; NULL when out of memory. Each curve gets its own: the sweeps fill them in. */
static struct mfb_probe_point *grid_points(size_t lo, size_t hi, unsigned steps, size_t align, size_t *n)
{
    *n = lo <= hi ? mfb_probe_sizes(lo, hi, steps, align, NULL, 0) : 0;
    size_t *sizes = calloc(*n ? *n : 1, sizeof *sizes);
    struct mfb_probe_point *p = sizes ? calloc(*n ? *n : 1, sizeof *p) : NULL;
    if (p) {
        mfb_probe_sizes(lo, hi, steps, align, sizes, *n);
        for (size_t i = 0; i < *n; i++)
            p[i].size = sizes[i];
    }
    free(sizes);
    return p;
}

/* A sweep of `curves` curves of n points each begins (its progress counts from 0) or ends (a
 * terminal's progress line is cleared). */
static void sweep_begin(struct mfb_probe_progress *pg, const char *what, size_t n, int curves)
{
    pg->what = what;
    pg->total = n * (size_t)curves;
    pg->done = 0;
}

static void sweep_end(const struct mfb_probe_progress *pg)
{
    if (pg->point_lines)
        fprintf(stderr, "\r%100s\r", "");
}

int mfb_probe_latency_curves(const struct mfb_probe_run *run, struct mfb_probe_result *r, struct mfb_probe_progress *pg,
                             struct mfb_err *err)
{
    const struct mfb_probe_config *c = run->cfg;
    size_t n = 0;
    /* random on 4 KiB pages, random on huge pages (when had), then the strided chains */
    struct { enum mfb_chase chase; enum mfb_pages pages; } plan[] = {
        {MFB_CHASE_RANDOM, MFB_PAGES_4K}, {MFB_CHASE_RANDOM, r->huge},
        {MFB_CHASE_STRIDE1, MFB_PAGES_4K}, {MFB_CHASE_STRIDE2, MFB_PAGES_4K}};
    for (size_t k = 0; k < sizeof plan / sizeof *plan; k++) {
        if (k == 1 && r->huge == MFB_PAGES_4K)
            continue;
        struct mfb_lat_curve *cv = &r->lat[r->nlat];
        *cv = (struct mfb_lat_curve){.chase = plan[k].chase, .pages = plan[k].pages,
                                     .points = grid_points(c->min_size, c->max_size, c->steps, run->line, &n)};
        if (!cv->points)
            return mfb_fail(err, "out of memory");
        cv->npoints = n;
        r->nlat++;
    }
    sweep_begin(pg, "latency", n, r->nlat);
    for (int i = 0; i < r->nlat; i++)
        if (mfb_latency_curve(run, &r->lat[i], lat_progress, pg, err) < 0)
            return -1;
    sweep_end(pg);
    return 0;
}

int mfb_probe_bandwidth_curves(const struct mfb_probe_run *run, struct mfb_probe_result *r,
                               struct mfb_probe_progress *pg, struct mfb_err *err)
{
    const struct mfb_probe_config *c = run->cfg;
    size_t lo = c->min_size > PROBE_BW_MIN_SIZE ? c->min_size : PROBE_BW_MIN_SIZE, n = 0;
    unsigned steps = (c->steps + 1) / 2;
    size_t align = (size_t)2 * MFB_STREAM_GRAIN * (size_t)c->threads;
    for (int k = 0; k < MFB_STREAM_KERNEL_COUNT; k++) {
        if (!mfb_stream_kernel((enum mfb_stream_kernel)k, r->vector))
            continue;
        struct mfb_bw_curve *cv = &r->bw[r->nbw];
        *cv = (struct mfb_bw_curve){.kernel = (enum mfb_stream_kernel)k, .vector = r->vector, .pages = r->bw_pages,
                                    .points = grid_points(lo, c->max_size, steps, align, &n)};
        if (!cv->points)
            return mfb_fail(err, "out of memory");
        cv->npoints = n;
        r->nbw++;
    }
    sweep_begin(pg, "bandwidth", n, r->nbw);
    for (int i = 0; i < r->nbw; i++)
        if (mfb_bandwidth_curve(run, &r->bw[i], bw_progress, pg, err) < 0)
            return -1;
    sweep_end(pg);
    return 0;
}
