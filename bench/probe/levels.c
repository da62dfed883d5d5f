#include "probe/levels.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/quantile.h"

/* Whether the step from point i to i + 1 rises faster than MFB_LEVELS_STEEP per octave. */
static bool steep(const size_t *size, const double *ns, size_t i)
{
    double octaves = log2((double)size[i + 1] / (double)size[i]);
    return octaves > 0 && log(ns[i + 1] / ns[i]) / octaves > log(MFB_LEVELS_STEEP);
}

static double median_of(const double *ns, size_t from, size_t to)
{
    double v[256];
    size_t n = 0;
    for (size_t i = from; i <= to && n < sizeof v / sizeof *v; i++)
        v[n++] = ns[i];
    return mfb_quantile_median(v, n);
}

/* Stretches of points joined by gentle steps: [first[k], last[k]]. The point a rise ends on
 * starts the next stretch; a curve that ends rising ends on a stretch of one point, where the
 * next level begins as far as measured. Returns how many. */
static int stretches(const size_t *size, const double *ns, size_t n, size_t *first, size_t *last, int cap)
{
    int k = 0;
    size_t i = 0;
    while (i < n && k < cap) {
        first[k] = i;
        while (i + 1 < n && !steep(size, ns, i))
            i++;
        last[k++] = i;
        if (i + 1 >= n)
            break;
        while (i + 1 < n && steep(size, ns, i))
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
    /* A running median of three: one point disturbed (an interrupt, a neighbour's burst) can
     * neither start a rise nor split a level; two in a row can. */
    double *ns = malloc(n * sizeof *ns);
    if (!ns)
        return;
    for (size_t i = 0; i < n; i++)
        ns[i] = i == 0 || i == n - 1 ? raw[i] : median3(raw[i - 1], raw[i], raw[i + 1]);
    enum { CAP = 4 * MFB_LEVELS_MAX };
    size_t first[CAP], last[CAP];
    int k = stretches(size, ns, n, first, last, CAP);
    /* A short stretch inside the curve is a pause in a rise, not a level: its points stay in
     * the rise. A stretch that is not MFB_LEVELS_DISTINCT slower than the level before is more
     * of that level. The curve's last stretch is kept however short: the next level begins
     * there, as far as measured. */
    size_t f[CAP], l[CAP];
    int m = 0;
    for (int j = 0; j < k; j++) {
        double v = median_of(ns, first[j], last[j]);
        if (m > 0 && last[j] - first[j] + 1 < MFB_LEVELS_MIN_POINTS && last[j] != n - 1)
            continue;
        if (m > 0 && v < median_of(ns, f[m - 1], l[m - 1]) * MFB_LEVELS_DISTINCT) {
            l[m - 1] = last[j];
            continue;
        }
        f[m] = first[j];
        l[m] = last[j];
        m++;
    }
    if (m > MFB_LEVELS_MAX + 1)
        m = MFB_LEVELS_MAX + 1;
    for (int j = 0; j < m; j++) {
        struct mfb_plateau *p = &out->plateaus[j];
        p->from = size[f[j]];
        p->to = size[l[j]];
        p->ns = median_of(ns, f[j], l[j]);
    }
    out->nplateaus = m;
    for (int j = 0; j + 1 < m; j++) {
        double a = out->plateaus[j].ns, b = out->plateaus[j + 1].ns;
        double target = a + MFB_LEVELS_EDGE_FRACTION * (b - a);
        /* the last point before the next level's stretch that is below the target: a noisy
         * point inside the level cannot end it early */
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
    out->nboundaries = m > 0 ? m - 1 : 0;
    free(ns);
}
