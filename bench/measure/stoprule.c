#include "measure/stoprule.h"

#include <math.h>
#include <stdlib.h>

#include "base/quantile.h"
#include "base/signtest.h"
#include "base/tdist.h"

/* Log ratio of variant v's batch time to the baseline's (variant 0), one per measured round of
 * the n samples at s. A round is blocks of nv consecutive samples: the whole distribution's, then
 * with --by-class one per size class; only the whole's count here, and warm-up rounds are
 * skipped. */
static size_t log_ratios(const struct mfb_sample *s, size_t n, size_t nv, int v, double *out)
{
    size_t m = 0;
    for (size_t i = 0; i + nv <= n; i += nv) {
        if (s[i].warmup || s[i].size_class != 0 || !mfb_sample_main(&s[i]) || !mfb_sample_main(&s[i + nv - 1]))
            continue;
        double t0 = 0, tv = 0;
        for (size_t j = 0; j < nv; j++) {
            const struct mfb_sample *x = &s[i + j];
            if (x->variant == 0)
                t0 = (double)x->ticks;
            else if (x->variant == v)
                tv = (double)x->ticks;
        }
        if (t0 > 0 && tv > 0)
            out[m++] = log(tv / t0);
    }
    return m;
}

static int reserve(struct mfb_stoprule *s, size_t rounds, struct mfb_err *err)
{
    if (s->cap >= rounds)
        return 0;
    free(s->scratch);
    s->cap = 2 * rounds;
    if (!(s->scratch = malloc(s->cap * sizeof *s->scratch))) {
        s->cap = 0;
        return mfb_fail(err, "out of memory checking --target-ci over %zu rounds", rounds);
    }
    return 0;
}

int mfb_stoprule_check(struct mfb_stoprule *s, struct mfb_run *r, struct mfb_err *err)
{
    if (reserve(s, r->res.rounds, err) < 0)
        return -1;
    bool all = true;
    for (int v = 1; v < r->nvars; v++) {
        if (r->vars[v].v->origin == MFB_ORIGIN_HARNESS)
            continue;
        size_t m = log_ratios(r->res.samples.s, r->res.samples.n, (size_t)r->nvars, v, s->scratch);
        double lo, med, hi;
        if (mfb_sign_test_interval(s->scratch, m, 0.95, &lo, &med, &hi) < 0) {
            r->stop.target_widths[v] = INFINITY;
            all = false;
            continue;
        }
        double w = fmax(exp(hi - med) - 1, 1 - exp(lo - med));
        r->stop.target_widths[v] = w;
        if (w * 100 > r->study->target_ci)
            all = false;
    }
    r->stop.target_reached = all;
    return 0;
}

int mfb_stoprule_processes(struct mfb_stoprule *s, const struct mfb_samples *all, int nvars, const bool *compared,
                           double target_pct, double *half_widths, bool *reached, struct mfb_err *err)
{
    uint16_t nproc = 0;
    for (size_t i = 0; i < all->n; i++)
        if (all->s[i].process >= nproc)
            nproc = (uint16_t)(all->s[i].process + 1);
    if (reserve(s, all->n + nproc, err) < 0)
        return -1;
    int family = 0;
    for (int v = 1; v < nvars; v++)
        family += compared[v];
    /* Two-sided 95 %, Bonferroni over the family, as the analysis's simultaneous intervals. */
    double q = nproc >= 2 && family ? mfb_t_quantile(1 - 0.025 / family, nproc - 1) : INFINITY;
    *reached = family > 0;
    for (int v = 1; v < nvars; v++) {
        half_widths[v] = INFINITY;
        if (!compared[v])
            continue;
        /* One estimate per process, the median of its rounds' log ratios, in the scratch space
         * past the rounds. Processes' samples are contiguous, in process order (cli/processes.c). */
        double *est = s->scratch + all->n, sum = 0, sq = 0;
        size_t begin = 0;
        for (uint16_t p = 0; p < nproc; p++) {
            size_t end = begin;
            while (end < all->n && all->s[end].process == p)
                end++;
            size_t m = log_ratios(all->s + begin, end - begin, (size_t)nvars, v, s->scratch);
            est[p] = m ? mfb_quantile_median(s->scratch, m) : NAN;
            begin = end;
        }
        for (uint16_t p = 0; p < nproc; p++)
            sum += est[p];
        double mean = sum / nproc;
        for (uint16_t p = 0; p < nproc; p++)
            sq += (est[p] - mean) * (est[p] - mean);
        double h = nproc >= 2 ? q * sqrt(sq / (nproc - 1) / nproc) : INFINITY;
        if (isfinite(h))
            half_widths[v] = exp(h) - 1;
        if (!(half_widths[v] * 100 <= target_pct))
            *reached = false;
    }
    return 0;
}

void mfb_stoprule_free(struct mfb_stoprule *s)
{
    free(s->scratch);
    s->scratch = NULL;
    s->cap = 0;
}
