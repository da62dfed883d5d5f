#include "workload/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/quantile.h"

const char *mfb_sweep_mode_name(enum mfb_sweep_mode m)
{
    static const char *const names[] = {[MFB_SWEEP_PREDICTABLE] = "predictable", [MFB_SWEEP_SPREAD] = "spread",
                                        [MFB_SWEEP_CLASS] = "class"};
    return names[m];
}

/* A size given twice is refused, not dropped: each size is one point, so "64,128,128" is a typo for
 * three points that would silently time two (and two ranges that overlap, one that says its
 * points twice). The order is free: the points are timed interleaved in every round, whatever
 * order they are given in, and kept sorted. At most MFB_MAX_SWEEP_POINTS earlier points are
 * searched, so the whole parse is bounded (16 M comparisons). */
static int add_point(struct mfb_sweep *s, uint64_t v, const char *item, struct mfb_err *err)
{
    if (v > MFB_MAX_SIZE)
        return mfb_fail(err, "memfbench sweep: size %llu is above the largest call, %u bytes", (unsigned long long)v,
                        MFB_MAX_SIZE);
    for (size_t i = 0; i < s->n; i++)
        if (s->sizes[i] == v)
            return mfb_fail(err, "memfbench sweep: --sizes: '%s' gives size %llu again: each size is one point, "
                                 "give it once", item, (unsigned long long)v);
    if (s->n == MFB_MAX_SWEEP_POINTS)
        return mfb_fail(err, "memfbench sweep: more than %d sizes", MFB_MAX_SWEEP_POINTS);
    s->sizes[s->n++] = v;
    return 0;
}

static int parse_size(const char *text, uint64_t *out, const char *item, struct mfb_err *err)
{
    size_t v;
    if (mfb_parse_bytes(text, &v) < 0)
        return mfb_fail(err, "memfbench sweep: --sizes: '%s' in '%s' is not a size", text, item);
    *out = v;
    return 0;
}

static int parse_item(struct mfb_sweep *s, const char *item, struct mfb_err *err)
{
    char buf[96];
    if (snprintf(buf, sizeof buf, "%s", item) >= (int)sizeof buf)
        return mfb_fail(err, "memfbench sweep: --sizes: item '%.40s...' is too long", item);
    uint64_t lo = 0, hi = 0, step = 0;
    bool pow2 = !strncmp(buf, "pow2:", 5);
    char *range = pow2 ? buf + 5 : buf;
    char *colon = pow2 ? NULL : strchr(range, ':');
    if (colon) {
        *colon = '\0';
        if (parse_size(colon + 1, &step, item, err) < 0)
            return -1;
        if (step == 0)
            return mfb_fail(err, "memfbench sweep: --sizes: '%s': the step must be at least 1", item);
    }
    char *dash = strchr(range, '-');
    if (!dash) {
        if (pow2 || colon)
            return mfb_fail(err, "memfbench sweep: --sizes: '%s': expected LO-HI", item);
        return parse_size(range, &lo, item, err) < 0 ? -1 : add_point(s, lo, item, err);
    }
    *dash = '\0';
    if (parse_size(range, &lo, item, err) < 0 || parse_size(dash + 1, &hi, item, err) < 0)
        return -1;
    if (hi < lo)
        return mfb_fail(err, "memfbench sweep: --sizes: '%s': HI is below LO", item);
    if (pow2) {
        size_t before = s->n;
        for (uint64_t p = 1; p <= hi; p <<= 1)
            if (p >= lo && add_point(s, p, item, err) < 0)
                return -1;
        /* found by tests/fuzz/fuzz_recorded: "pow2:0-0" made an empty sweep */
        if (s->n == before)
            return mfb_fail(err, "memfbench sweep: --sizes: '%s': no power of two between LO and HI", item);
        return 0;
    }
    if (!colon)
        step = 1;
    for (uint64_t v = lo; v <= hi; v += step)
        if (add_point(s, v, item, err) < 0)
            return -1;
    return 0;
}

int mfb_sweep_parse_sizes(struct mfb_sweep *s, const char *text, struct mfb_err *err)
{
    s->n = 0;
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        char item[128];
        if (len == 0 || len >= sizeof item)
            return mfb_fail(err, "memfbench sweep: --sizes: item %zu '%.*s' is not a size or range", s->n + 1,
                            (int)(len > 40 ? 40 : len), p);
        memcpy(item, p, len);
        item[len] = '\0';
        if (parse_item(s, item, err) < 0)
            return -1;
        if (!p[len])
            break;
        p += len + 1;
    }
    mfb_quantile_sort_u64(s->sizes, s->n);
    return 0;
}

int mfb_sweep_parse_mode(struct mfb_sweep *s, const char *text, struct mfb_err *err)
{
    if (!strcmp(text, "class")) {
        s->mode = MFB_SWEEP_CLASS;
        return 0;
    }
    char *end;
    double p = strtod(text, &end);
    if (end == text || (*end && strcmp(end, "%")) || !(p > 0 && p < 100))
        return mfb_fail(err, "memfbench sweep: --unpredictable: '%s' is not a percentage in (0, 100) or 'class'",
                        text);
    s->mode = MFB_SWEEP_SPREAD;
    s->spread_pct = p;
    return 0;
}

/* The sizes point k draws from. */
static void point_range(const struct mfb_sweep *s, uint64_t n, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = n;
    if (s->mode == MFB_SWEEP_SPREAD) {
        double d = (double)n * s->spread_pct / 100;
        *lo = (uint64_t)fmax(0, floor((double)n - d));
        *hi = (uint64_t)fmin(MFB_MAX_SIZE, ceil((double)n + d));
    } else if (s->mode == MFB_SWEEP_CLASS && n > 1) {
        uint64_t top = 1;
        while (top < n)
            top <<= 1;
        *lo = top / 2 + 1;
        *hi = top;
    }
}

static int one_row(struct mfb_table *t, enum mfb_table_kind kind, uint64_t lo, uint64_t hi, const char *where,
                   struct mfb_err *err)
{
    mfb_table_free(t);
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->origin = MFB_TABLE_FROM_SYNTHETIC;
    if (mfb_table_add(t, lo, hi, 1.0, 0) < 0)
        return mfb_fail(err, "%s: out of memory", where);
    return mfb_table_finish(t, where, err);
}

/* A synthetic distribution of sizes lo..hi for f, with the sweep's alignments. */
static int point_dist(const struct mfb_sweep *s, enum mfb_func f, const char *dist_dir, uint64_t lo, uint64_t hi,
                      struct mfb_dist *d, struct mfb_err *err)
{
    char spec[64];
    snprintf(spec, sizeof spec, "uniform:%llu-%llu", (unsigned long long)lo, (unsigned long long)hi);
    if (mfb_dist_resolve(d, spec, f, dist_dir, err) < 0)
        return -1;
    if (s->align_src && mfb_func_roles(f) == 2 && one_row(&d->src_align, MFB_T_ALIGN, s->align_src, s->align_src,
                                                  "--align-src", err) < 0)
        return -1;
    if (s->align_dst && one_row(&d->dst_align, MFB_T_ALIGN, s->align_dst, s->align_dst, "--align-dst", err) < 0)
        return -1;
    return 0;
}

int mfb_sweep_build(const struct mfb_sweep *s, enum mfb_func f, const char *dist_dir, struct mfb_dist *whole,
                    struct mfb_classes *points, struct mfb_err *err)
{
    memset(points, 0, sizeof *points);
    if (!(points->c = calloc(s->n, sizeof *points->c)))
        return mfb_fail(err, "out of memory for %zu sweep points", s->n);
    for (size_t k = 0; k < s->n; k++) {
        struct mfb_size_class *c = &points->c[k];
        point_range(s, s->sizes[k], &c->lo, &c->hi);
        points->n++;
        if (point_dist(s, f, dist_dir, c->lo, c->hi, &c->dist, err) < 0)
            return -1;
        c->p = 1.0 / (double)s->n;
        c->mean_size = mfb_table_mean(&c->dist.size);
    }
    /* The whole: every point's sizes, overlapping ranges merged, each point weighing the same. */
    if (point_dist(s, f, dist_dir, points->c[0].lo, points->c[0].hi, whole, err) < 0)
        return -1;
    struct mfb_table t = {.kind = MFB_T_SIZE, .origin = MFB_TABLE_FROM_SYNTHETIC};
    uint64_t lo = points->c[0].lo, hi = points->c[0].hi;
    double w = 1;
    for (size_t k = 1; k <= s->n; k++) {
        if (k < s->n && points->c[k].lo <= hi + 1) {
            hi = points->c[k].hi > hi ? points->c[k].hi : hi;
            w += 1;
            continue;
        }
        if (mfb_table_add(&t, lo, hi, w, 0) < 0) {
            mfb_table_free(&t);
            return mfb_fail(err, "out of memory for the sweep's sizes");
        }
        if (k < s->n) {
            lo = points->c[k].lo;
            hi = points->c[k].hi;
            w = 1;
        }
    }
    if (mfb_table_finish(&t, "sweep sizes", err) < 0) {
        mfb_table_free(&t);
        return -1;
    }
    mfb_table_free(&whole->size);
    whole->size = t;
    free(whole->name);
    char name[96];
    snprintf(name, sizeof name, "sweep of %zu sizes (%llu-%llu, %s)", s->n, (unsigned long long)s->sizes[0],
             (unsigned long long)s->sizes[s->n - 1], mfb_sweep_mode_name(s->mode));
    if (!(whole->name = strdup(name)))
        return mfb_fail(err, "out of memory for the sweep's name");
    return 0;
}
