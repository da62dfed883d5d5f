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

static struct mfb_probe_point *points_of(const size_t *sizes, size_t n)
{
    struct mfb_probe_point *p = calloc(n ? n : 1, sizeof *p);
    for (size_t i = 0; p && i < n; i++)
        p[i].size = sizes[i];
    return p;
}

int mfb_probe_latency_curves(const struct mfb_probe_run *run, struct mfb_probe_result *r, struct mfb_probe_progress *pg,
                             struct mfb_err *err)
{
    const struct mfb_probe_config *c = run->cfg;
    size_t n = mfb_probe_sizes(c->min_size, c->max_size, c->steps, run->line, NULL, 0);
    size_t *sizes = calloc(n, sizeof *sizes);
    if (!sizes)
        return mfb_fail(err, "out of memory");
    mfb_probe_sizes(c->min_size, c->max_size, c->steps, run->line, sizes, n);
    /* random on 4 KiB pages, random on huge pages (when had), then the strided chains */
    struct { enum mfb_chase chase; enum mfb_pages pages; } plan[] = {
        {MFB_CHASE_RANDOM, MFB_PAGES_4K}, {MFB_CHASE_RANDOM, r->huge},
        {MFB_CHASE_STRIDE1, MFB_PAGES_4K}, {MFB_CHASE_STRIDE2, MFB_PAGES_4K}};
    for (size_t k = 0; k < sizeof plan / sizeof *plan; k++) {
        if (k == 1 && r->huge == MFB_PAGES_4K)
            continue;
        struct mfb_lat_curve *cv = &r->lat[r->nlat];
        *cv = (struct mfb_lat_curve){.chase = plan[k].chase, .pages = plan[k].pages, .npoints = n,
                                     .points = points_of(sizes, n)};
        if (!cv->points) {
            free(sizes);
            return mfb_fail(err, "out of memory");
        }
        r->nlat++;
    }
    free(sizes);
    pg->what = "latency";
    pg->total = n * (size_t)r->nlat;
    pg->done = 0;
    for (int i = 0; i < r->nlat; i++)
        if (mfb_latency_curve(run, &r->lat[i], lat_progress, pg, err) < 0)
            return -1;
    if (pg->point_lines)
        fprintf(stderr, "\r%100s\r", "");
    return 0;
}

int mfb_probe_bandwidth_curves(const struct mfb_probe_run *run, struct mfb_probe_result *r,
                               struct mfb_probe_progress *pg, struct mfb_err *err)
{
    const struct mfb_probe_config *c = run->cfg;
    size_t lo = c->min_size > PROBE_BW_MIN_SIZE ? c->min_size : PROBE_BW_MIN_SIZE;
    unsigned steps = (c->steps + 1) / 2;
    size_t align = (size_t)2 * MFB_STREAM_GRAIN * (size_t)c->threads;
    size_t n = lo <= c->max_size ? mfb_probe_sizes(lo, c->max_size, steps, align, NULL, 0) : 0;
    size_t *sizes = calloc(n ? n : 1, sizeof *sizes);
    if (!sizes)
        return mfb_fail(err, "out of memory");
    mfb_probe_sizes(lo, c->max_size, steps, align, sizes, n);
    for (int k = 0; k < MFB_STREAM_KERNEL_COUNT; k++) {
        if (!mfb_stream_kernel((enum mfb_stream_kernel)k, r->vector))
            continue;
        struct mfb_bw_curve *cv = &r->bw[r->nbw];
        *cv = (struct mfb_bw_curve){.kernel = (enum mfb_stream_kernel)k, .vector = r->vector, .pages = r->bw_pages,
                                    .npoints = n, .points = points_of(sizes, n)};
        if (!cv->points) {
            free(sizes);
            return mfb_fail(err, "out of memory");
        }
        r->nbw++;
    }
    free(sizes);
    pg->what = "bandwidth";
    pg->total = n * (size_t)r->nbw;
    pg->done = 0;
    for (int i = 0; i < r->nbw; i++)
        if (mfb_bandwidth_curve(run, &r->bw[i], bw_progress, pg, err) < 0)
            return -1;
    if (pg->point_lines)
        fprintf(stderr, "\r%100s\r", "");
    return 0;
}

