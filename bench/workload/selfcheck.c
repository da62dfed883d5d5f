#include "workload/selfcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int log2u(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

/* Sizes below this find their row in a table made from the rows' bounds, not by a binary search
 * of ~2,000 rows per draw (fleet memcpy): the search was 40 % of the first process's self-check
 * of 2^20 draws (perf, Intel VM family 6 model 167). 4096 entries (16 KiB) hold fleet memcpy's
 * sizes up to 4 KiB, nearly all of its calls; larger sizes are searched as before. */
#define ROW_LUT_MAX 4096u

/* row_of[v] for v < n: the row whose [lo, hi] holds v, -1 where none does (rows sorted, disjoint). */
static int32_t *row_lut(const struct mfb_table *t, uint64_t n)
{
    int32_t *lut = malloc(n * sizeof *lut);
    if (!lut)
        return NULL;
    for (uint64_t v = 0; v < n; v++)
        lut[v] = -1;
    for (size_t r = 0; r < t->n && t->rows[r].lo < n; r++)
        for (uint64_t v = t->rows[r].lo; v <= t->rows[r].hi && v < n; v++)
            lut[v] = (int32_t)r;
    return lut;
}

static void acc_free(struct mfb_selfcheck_acc *a)
{
    free(a->size_counts);
    free(a->size_sums);
    free(a->row_of);
    a->size_counts = a->size_sums = NULL;
    a->row_of = NULL;
}

int mfb_selfcheck_begin(struct mfb_selfcheck_acc *a, const struct mfb_dist *d, enum mfb_align_mode mode,
                        int roles)
{
    memset(a, 0, sizeof *a);
    a->dist = d;
    a->mode = mode;
    a->roles = roles;
    a->src_cap = mfb_table_largest_key(&d->src_align);
    a->dst_cap = mfb_table_largest_key(&d->dst_align);
    a->size_counts = calloc(d->size.n, sizeof *a->size_counts);
    a->size_sums = calloc(d->size.n, sizeof *a->size_sums);
    /* the last row's hi is the largest (rows sorted and disjoint) */
    uint64_t top = d->size.n ? d->size.rows[d->size.n - 1].hi : 0;
    a->lut_n = top < ROW_LUT_MAX ? top + 1 : ROW_LUT_MAX;
    a->row_of = row_lut(&d->size, a->lut_n);
    if (a->size_counts && a->size_sums && a->row_of)
        return 0;
    acc_free(a);
    return -1;
}

void mfb_selfcheck_add(struct mfb_selfcheck_acc *a, const struct mfb_call *calls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct mfb_call *c = &calls[i];
        uint64_t size = c->size & MFB_SIZE_MASK;
        a->n++;
        a->sum_size += size;
        long row = size < a->lut_n ? a->row_of[size] : mfb_table_find(&a->dist->size, size);
        if (row < 0)
            a->unmatched++;
        else {
            a->size_counts[row]++;
            a->size_sums[row] += size;
        }
        int64_t delta = (int64_t)c->dst - (int64_t)c->src;
        bool overlapping = a->roles == 2 && size > 0 && delta > -(int64_t)size && delta < (int64_t)size;
        if (a->dist->overlap.n && size >= 2) {
            a->ovl_eligible++;
            a->ovl_counts[!overlapping ? MFB_OVL_NONE : delta > 0 ? MFB_OVL_FORWARD : MFB_OVL_BACKWARD]++;
        }
        if (a->roles == 2 && a->dist->src_align.n && !(overlapping && delta < 0))
            a->src_counts[log2u(mfb_offset_alignment(c->src, a->src_cap))]++;
        if (a->dist->dst_align.n && !overlapping)
            a->dst_counts[log2u(mfb_offset_alignment(c->dst, a->dst_cap))]++;
    }
}

/* x ln(x / m), 0 at x = 0. */
static double xlogx(double x, double m)
{
    return x > 0 ? x * log(x / m) : 0;
}

/* How far an observed count is from its binomial expectation, in standard errors, as the signed
 * root of the likelihood-ratio statistic: it has the normal tail even for small expectations,
 * where (observed - np) / sd does not. A row expected 11 times and drawn 33 times is 6.6 sd off
 * but only as unlikely as 5.3 normal sd (Poisson tail 7e-8); with the plain z, honest draws of
 * fleet memcpy failed the check in the test suite once studies ran ten processes each. */
static double zscore(double observed, double n, double p)
{
    double e = n * p;
    if (p <= 0 || p >= 1)
        return observed == e ? 0 : INFINITY;
    double g2 = 2 * (xlogx(observed, e) + xlogx(n - observed, n - e));
    return sqrt(g2 > 0 ? g2 : 0);
}

/* Expected share of each realized alignment class (log2) for a table under a mode. Under
 * "at-least A", a uniform multiple of A has largest power-of-two divisor b (A <= b < cap) with
 * probability A/(2b), and reaches the cap with probability A/cap. */
static void expected_alignment(const struct mfb_table *t, uint64_t cap, enum mfb_align_mode mode, double e[13])
{
    memset(e, 0, 13 * sizeof e[0]);
    for (size_t i = 0; i < t->n; i++) {
        uint64_t a = t->rows[i].lo;
        double p = t->rows[i].p;
        if (mode == MFB_ALIGN_EXACT) {
            e[log2u(a)] += p;
            continue;
        }
        for (uint64_t b = a; b < cap; b <<= 1)
            e[log2u(b)] += p * (double)a / (2.0 * (double)b);
        e[log2u(cap)] += p * (double)a / (double)cap;
    }
}

static double align_max_z(const uint64_t counts[13], const struct mfb_table *t, uint64_t cap,
                          enum mfb_align_mode mode)
{
    if (!t->n)
        return 0;
    double e[13], total = 0, worst = 0;
    expected_alignment(t, cap, mode, e);
    for (int i = 0; i < 13; i++)
        total += (double)counts[i];
    for (int i = 0; i < 13; i++) {
        double z = zscore((double)counts[i], total, e[i]);
        if (z > worst)
            worst = z;
    }
    return worst;
}

/* How far the realized mean size is from the table's, in standard errors of the mean from the
 * table's own variance (a uniform range adds its within-row variance), over the rows expected at
 * least MFB_SELFCHECK_MIN_EXPECTED times. A rarer row breaks the normal approximation: each draw of
 * a row of weight 1e-7 and size 777 beside size 8 moves the mean of 2^20 draws by 3 standard errors,
 * and three such draws failed an honest run; how often rare rows were drawn is the pooled count
 * test's. */
static double frequent_mean_z(const struct mfb_selfcheck_acc *a, const struct mfb_table *st, double n)
{
    double p_sum = 0, mean = 0, ex2 = 0, count = 0, sum = 0;
    for (size_t i = 0; i < st->n; i++) {
        double p = st->rows[i].p;
        if (n * p < MFB_SELFCHECK_MIN_EXPECTED)
            continue;
        double lo = (double)st->rows[i].lo, hi = (double)st->rows[i].hi;
        double m = (lo + hi) / 2, w = hi - lo + 1;
        p_sum += p;
        mean += p * m;
        ex2 += p * (m * m + (w * w - 1) / 12);
        count += (double)a->size_counts[i];
        sum += (double)a->size_sums[i];
    }
    if (p_sum <= 0 || count <= 0)
        return 0;
    mean /= p_sum;
    double var = ex2 / p_sum - mean * mean, realized = sum / count;
    return var > 0 ? fabs(realized - mean) / sqrt(var / count) : (realized == mean ? 0 : INFINITY);
}

static int judge(struct mfb_selfcheck_acc *a, struct mfb_selfcheck *out, struct mfb_err *err);

int mfb_selfcheck_finish(struct mfb_selfcheck_acc *a, struct mfb_selfcheck *out, struct mfb_err *err)
{
    int rc = judge(a, out, err);
    acc_free(a);
    return rc;
}

static int judge(struct mfb_selfcheck_acc *a, struct mfb_selfcheck *out, struct mfb_err *err)
{
    const struct mfb_table *st = &a->dist->size;
    memset(out, 0, sizeof *out);
    double n = (double)a->n;
    out->draws = a->n;
    out->mean_expected = mfb_table_mean(st);
    out->mean_realized = n > 0 ? (double)a->sum_size / n : 0;
    out->mean_z = frequent_mean_z(a, st, n);
    double rare_obs = 0, rare_p = 0;
    out->size_worst_row = -2;
    for (size_t i = 0; i < st->n; i++) {
        double p = st->rows[i].p;
        if (n * p < MFB_SELFCHECK_MIN_EXPECTED) {
            rare_obs += (double)a->size_counts[i];
            rare_p += p;
            continue;
        }
        double z = zscore((double)a->size_counts[i], n, p);
        if (z > out->size_max_z) {
            out->size_max_z = z;
            out->size_worst_row = (long)i;
        }
    }
    /* When every row is rare, their pooled probability is 1, but the sum of 100,000 rounded shares
     * can land a few ulps above it, which would make any count "infinitely" unlikely. */
    if (rare_p > 1)
        rare_p = 1;
    if (rare_p > 0) {
        double z = zscore(rare_obs, n, rare_p);
        if (z > out->size_max_z && (rare_obs > MFB_SELFCHECK_MIN_EXPECTED || n * rare_p > MFB_SELFCHECK_MIN_EXPECTED)) {
            out->size_max_z = z;
            out->size_worst_row = -1;
        }
    }
    out->size_unmatched = a->unmatched;
    out->src_align_max_z = align_max_z(a->src_counts, &a->dist->src_align, a->src_cap, a->mode);
    out->dst_align_max_z = align_max_z(a->dst_counts, &a->dist->dst_align, a->dst_cap, a->mode);
    if (a->dist->overlap.n && a->ovl_eligible) {
        double e[3] = {0};
        for (size_t i = 0; i < a->dist->overlap.n; i++)
            e[a->dist->overlap.rows[i].lo] += a->dist->overlap.rows[i].p;
        for (int k = 0; k < 3; k++) {
            double z = zscore((double)a->ovl_counts[k], (double)a->ovl_eligible, e[k]);
            if (z > out->overlap_max_z)
                out->overlap_max_z = z;
        }
    }
    const double lim = MFB_SELFCHECK_Z;
    out->passed = false;
    if (out->size_unmatched)
        return mfb_fail(err, "distribution self-check failed: %llu realized sizes match no row of %s",
                        (unsigned long long)out->size_unmatched, a->dist->name);
    if (out->mean_z > lim)
        return mfb_fail(err, "distribution self-check failed: realized mean size %.2f B, table mean %.2f B "
                             "(%.1f standard errors apart)",
                        out->mean_realized, out->mean_expected, out->mean_z);
    if (out->size_max_z > lim) {
        if (out->size_worst_row >= 0)
            return mfb_fail(err, "distribution self-check failed: size row %llu-%llu (line %d) drawn %llu "
                                 "times, expected %.0f (%.1f standard errors)",
                            (unsigned long long)st->rows[out->size_worst_row].lo,
                            (unsigned long long)st->rows[out->size_worst_row].hi, st->rows[out->size_worst_row].line,
                            (unsigned long long)a->size_counts[out->size_worst_row], n * st->rows[out->size_worst_row].p, out->size_max_z);
        return mfb_fail(err, "distribution self-check failed: rare size rows %.1f standard errors off", out->size_max_z);
    }
    if (out->src_align_max_z > lim || out->dst_align_max_z > lim)
        return mfb_fail(err, "distribution self-check failed: realized %s alignments %.1f standard errors "
                             "from the table",
                        out->src_align_max_z > lim ? "source" : "destination",
                        out->src_align_max_z > lim ? out->src_align_max_z : out->dst_align_max_z);
    if (out->overlap_max_z > lim)
        return mfb_fail(err, "distribution self-check failed: realized overlap %.1f standard errors from the table",
                        out->overlap_max_z);
    out->passed = true;
    return 0;
}
