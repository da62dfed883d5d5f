#include "workload/shapes.h"

#include <stdlib.h>
#include <string.h>

#include "base/quantile.h"
#include "base/rng.h"

/* Growable array of sizes. */
struct sizes {
    uint64_t *v;
    size_t n, cap;
};

static int push(struct sizes *a, uint64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 256;
        uint64_t *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* The sizes of one wide range row: all of them up to MFB_SHAPES_SMALL, then the ends, powers of
 * two and their neighbours, an even spread and random draws. */
static int wide_range(struct sizes *a, uint64_t lo, uint64_t hi, struct mfb_rng *rng)
{
    int rc = push(a, lo) | push(a, hi);
    for (uint64_t x = lo; x <= hi && x <= MFB_SHAPES_SMALL && rc == 0; x++)
        rc = push(a, x);
    uint64_t from = lo > MFB_SHAPES_SMALL ? lo : MFB_SHAPES_SMALL + 1;
    if (from <= hi) {
        uint64_t step = (hi - from) / MFB_SHAPES_RANGE_ALL + 1;
        for (uint64_t x = from; x <= hi && rc == 0; x += step)
            rc = push(a, x);
    }
    for (int k = 0; k < 63; k++) {
        uint64_t p = (uint64_t)1 << k;
        for (uint64_t x = p - 1; x <= p + 1; x++)
            if (x >= lo && x <= hi)
                rc |= push(a, x);
    }
    for (int i = 0; i < MFB_SHAPES_RANGE_DRAWS; i++)
        rc |= push(a, lo + mfb_rng_below(rng, hi - lo + 1));
    return rc;
}

/* How many distinct sizes the live rows of t cover (rows may overlap). */
static uint64_t support_count(const struct mfb_table *t)
{
    uint64_t n = 0, next = 0; /* sizes below next are counted */
    bool any = false;
    /* Rows are kept in ascending order of lo (workload/table.c sorts them), so one pass merges. */
    for (size_t i = 0; i < t->n; i++) {
        const struct mfb_row *r = &t->rows[i];
        if (!(r->p > 0))
            continue;
        uint64_t lo = any && r->lo < next ? next : r->lo;
        if (!any || r->hi >= lo) {
            n += r->hi - lo + 1;
            next = r->hi + 1;
        }
        any = true;
    }
    return n;
}

/* Applies the cost bound to sorted distinct sizes in place; returns how many are kept. */
static size_t thin(uint64_t *v, size_t n)
{
    double small = 0, large = 0;
    size_t nlarge = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] <= MFB_SHAPES_SMALL)
            small += (double)v[i];
        else {
            large += (double)v[i];
            nlarge++;
        }
    }
    double room = (double)MFB_SHAPES_MAX_BYTES - small;
    if (small + large <= (double)MFB_SHAPES_MAX_BYTES || nlarge == 0)
        return n;
    /* Keep every step-th large size: their sum shrinks by about the same factor. */
    size_t step = room > 0 ? (size_t)(large / room) + 1 : nlarge;
    size_t k = 0, seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] <= MFB_SHAPES_SMALL || i == n - 1 || seen++ % step == 0)
            v[k++] = v[i];
    }
    return k;
}

/* Rows of a table that can be drawn (probability above zero); 1 when there is no table. */
static size_t live_rows(const struct mfb_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->rows[i].p > 0;
    return t->n ? n : 1;
}

int mfb_shapes_init(struct mfb_shapes *sh, const struct mfb_dist *d, uint64_t seed, struct mfb_err *err)
{
    memset(sh, 0, sizeof *sh);
    struct sizes a = {0};
    struct mfb_rng rng;
    mfb_rng_seed(&rng, seed);
    int rc = 0;
    for (size_t i = 0; i < d->size.n && rc == 0; i++) {
        const struct mfb_row *r = &d->size.rows[i];
        if (!(r->p > 0))
            continue;
        if (r->hi - r->lo < MFB_SHAPES_RANGE_ALL)
            for (uint64_t x = r->lo; x <= r->hi && rc == 0; x++)
                rc = push(&a, x);
        else
            rc = wide_range(&a, r->lo, r->hi, &rng);
    }
    if (rc != 0) {
        free(a.v);
        return mfb_fail(err, "out of memory listing the call shapes to verify");
    }
    mfb_quantile_sort_u64(a.v, a.n);
    size_t k = 0;
    for (size_t i = 0; i < a.n; i++)
        if (k == 0 || a.v[i] != a.v[k - 1])
            a.v[k++] = a.v[i];
    sh->sizes = a.v;
    sh->nsizes = thin(a.v, k);
    sh->support = k;
    sh->in_support = support_count(&d->size);
    sh->combos = live_rows(&d->src_align) * live_rows(&d->dst_align) * live_rows(&d->overlap) *
                 live_rows(&d->mismatch);
    sh->n = sh->nsizes > sh->combos ? sh->nsizes : sh->combos;
    return 0;
}

/* The index of the j-th live row of t, or MFB_SHAPE_DRAW when t has no rows. */
static long live_row(const struct mfb_table *t, size_t j)
{
    if (!t->n)
        return MFB_SHAPE_DRAW;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].p > 0 && j-- == 0)
            return (long)i;
    return MFB_SHAPE_DRAW;
}

void mfb_shapes_call(const struct mfb_shapes *sh, struct mfb_sampler *s, size_t i, struct mfb_call *out)
{
    const struct mfb_dist *d = s->dist;
    /* Combination i mod combos, in mixed radix over the four tables' live rows. */
    size_t c = i % sh->combos;
    const struct mfb_table *tabs[4] = {&d->src_align, &d->dst_align, &d->overlap, &d->mismatch};
    long rows[4];
    for (int t = 0; t < 4; t++) {
        size_t n = live_rows(tabs[t]);
        rows[t] = live_row(tabs[t], c % n);
        c /= n;
    }
    struct mfb_shape shape = {.src_align = rows[0], .dst_align = rows[1], .overlap = rows[2], .mismatch = rows[3]};
    mfb_sampler_place(s, sh->sizes[i % sh->nsizes], &shape, out);
}

void mfb_shapes_free(struct mfb_shapes *sh)
{
    free(sh->sizes);
    memset(sh, 0, sizeof *sh);
}
