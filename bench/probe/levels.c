#include "probe/levels.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/quantile.h"

/* The index of the first point at least MFB_LEVELS_SPAN octaves past point i (or the last). */
static size_t span_end(const size_t *size, size_t n, size_t i)
{
    size_t j = i + 1;
    /* sizes are rounded to whole lines: a step of "a quarter octave" may be a hair short */
    while (j + 1 < n && log2((double)size[j] / (double)size[i]) < MFB_LEVELS_SPAN * 0.9)
        j++;
    return j;
}

/* Whether the curve rises faster than MFB_LEVELS_STEEP per octave from point i over the next
 * MFB_LEVELS_SPAN octaves: at many sizes per octave one step is too short to tell a rise from
 * a few percent of noise. */
static bool steep(const size_t *size, const double *ns, size_t n, size_t i)
{
    size_t j = span_end(size, n, i);
    double octaves = log2((double)size[j] / (double)size[i]);
    return octaves > 0 && log(ns[j] / ns[i]) / octaves > log(MFB_LEVELS_STEEP);
}

static double median_of(const double *ns, size_t from, size_t to, double *scratch)
{
    size_t n = to - from + 1;
    memcpy(scratch, ns + from, n * sizeof *scratch);
    return mfb_quantile_median(scratch, n);
}

/* Stretches of points joined by gentle steps: [first[k], last[k]]. The point a rise ends on
 * starts the next stretch; a curve that ends rising ends on a stretch of one point. Returns
 * how many (at most n). */
static size_t stretches(const size_t *size, const double *ns, size_t n, size_t *first, size_t *last)
{
    size_t k = 0, i = 0;
    while (i < n) {
        first[k] = i;
        while (i + 1 < n && !steep(size, ns, n, i))
            i++;
        last[k++] = i;
        if (i + 1 >= n)
            break;
        while (i + 1 < n && steep(size, ns, n, i))
            i++;
    }
    return k;
}

static double median3(double a, double b, double c)
{
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

void mfb_levels_find(const size_t *size, const double *raw, size_t n, struct mfb_levels *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    double *ns = malloc(n * sizeof *ns), *scratch = malloc(n * sizeof *scratch);
    size_t *first = malloc(n * sizeof *first), *last = malloc(n * sizeof *last);
    size_t *f = malloc(n * sizeof *f), *l = malloc(n * sizeof *l);
    if (!ns || !scratch || !first || !last || !f || !l)
        goto done;
    /* A running median of three: one point disturbed (an interrupt, a neighbour's burst) can
     * neither start a rise nor split a level; two in a row can. The end points have one
     * neighbour and are kept. */
    for (size_t i = 0; i < n; i++)
        ns[i] = i == 0 || i == n - 1 ? raw[i] : median3(raw[i - 1], raw[i], raw[i + 1]);
    size_t k = stretches(size, ns, n, first, last);
    /* A short stretch inside the curve is a pause in a rise, not a level: its points stay in
     * the rise. A stretch that is not MFB_LEVELS_DISTINCT slower than the level before is more
     * of that level. The last stretch needs two points (one could be a disturbed end point,
     * which the running median cannot correct). */
    size_t m = 0;
    for (size_t j = 0; j < k; j++) {
        size_t len = last[j] - first[j] + 1;
        bool at_end = last[j] == n - 1;
        if (m > 0 && len < (at_end ? MFB_LEVELS_MIN_END_POINTS : MFB_LEVELS_MIN_POINTS))
            continue;
        if (m > 0 && median_of(ns, first[j], last[j], scratch) <
                         median_of(ns, f[m - 1], l[m - 1], scratch) * MFB_LEVELS_DISTINCT) {
            l[m - 1] = last[j];
            continue;
        }
        f[m] = first[j];
        l[m] = last[j];
        m++;
    }
    if (m > MFB_LEVELS_MAX + 1)
        m = MFB_LEVELS_MAX + 1; /* levels past the eighth are dropped; no CPU has them */
    for (size_t j = 0; j < m; j++) {
        struct mfb_plateau *p = &out->plateaus[j];
        p->from = size[f[j]];
        p->to = size[l[j]];
        p->ns = median_of(ns, f[j], l[j], scratch);
    }
    out->nplateaus = (int)m;
    for (size_t j = 0; j + 1 < m; j++) {
        double a = out->plateaus[j].ns, b = out->plateaus[j + 1].ns;
        double target = a + MFB_LEVELS_EDGE_FRACTION * (b - a);
        /* the last point before the next level's stretch that is below the target: a noisy
         * point inside the level cannot end it early (f[j + 1] > f[j], so i >= f[j]) */
        size_t i = f[j + 1] - 1;
        while (i > f[j] && ns[i] >= target)
            i--;
        struct mfb_boundary *bd = &out->boundaries[j];
        bd->below = size[i];
        bd->above = size[i + 1];
        /* interpolate the crossing in log size, then C = S (1 - f) */
        double t = ns[i + 1] > ns[i] ? (target - ns[i]) / (ns[i + 1] - ns[i]) : 1;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double s = exp2(log2((double)size[i]) + t * log2((double)size[i + 1] / (double)size[i]));
        /* never outside the two sizes that bracket the crossing: on a coarse grid the
         * model's correction could otherwise put it below a point measured still in the level */
        double e = s * (1 - MFB_LEVELS_EDGE_FRACTION);
        bd->estimate = e < (double)bd->below ? (double)bd->below : e > (double)bd->above ? (double)bd->above : e;
    }
    out->nboundaries = m > 0 ? (int)m - 1 : 0;
done:
    free(ns);
    free(scratch);
    free(first);
    free(last);
    free(f);
    free(l);
}
