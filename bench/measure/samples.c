#include "measure/samples.h"

#include <math.h>
#include <stdlib.h>

#include "base/code_placement.h"
#include "base/quantile.h"

int mfb_samples_push(struct mfb_samples *v, const struct mfb_sample *s)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4096;
        struct mfb_sample *p = realloc(v->s, cap * sizeof *p);
        if (!p)
            return -1;
        v->s = p;
        v->cap = cap;
    }
    v->s[v->n++] = *s;
    return 0;
}

void mfb_samples_free(struct mfb_samples *v)
{
    free(v->s);
    v->s = NULL;
    v->n = v->cap = 0;
}

size_t mfb_samples_log_ratios(const struct mfb_samples *all, int nvars, int process, unsigned cls, int vi,
                              double *out, uint32_t *rounds)
{
    size_t k = 0, nv = (size_t)nvars;
    for (size_t i = 0; i + nv <= all->n; i++) {
        const struct mfb_sample *row = &all->s[i], *last = &row[nv - 1];
        if (row->warmup || row->size_class != cls || last->size_class != cls || last->round != row->round ||
            last->process != row->process || (process >= 0 && row->process != (unsigned)process) ||
            !mfb_sample_main(row) || !mfb_sample_main(last))
            continue;
        double t0 = 0, tv = 0;
        for (size_t j = 0; j < nv; j++) {
            if (row[j].variant == 0)
                t0 = row[j].ns / row[j].calls;
            if ((int)row[j].variant == vi)
                tv = row[j].ns / row[j].calls;
        }
        if (t0 > 0 && tv > 0) {
            if (rounds)
                rounds[k] = row->round;
            out[k++] = log(tv / t0);
        }
        i += nv - 1;
    }
    return k;
}

double mfb_samples_log_estimate(const struct mfb_samples *all, int nvars, int process, unsigned cls, int v,
                                bool rotating, double *scratch)
{
    if (!rotating) {
        size_t k = mfb_samples_log_ratios(all, nvars, process, cls, v, scratch, NULL);
        return k ? mfb_quantile_median(scratch, k) : NAN;
    }
    uint32_t *rounds = malloc((all->n + 1) * sizeof *rounds);
    if (!rounds)
        return NAN;
    size_t k = mfb_samples_log_ratios(all, nvars, process, cls, v, scratch, rounds);
    /* Block means over full blocks, written over the ratios already read (a block's mean goes to
     * an index below its first round's). Rounds come in order within one process. */
    size_t nb = 0;
    for (size_t i = 0; i < k;) {
        uint32_t block = rounds[i] / MFB_CODE_PLACEMENTS;
        size_t j = i;
        double sum = 0;
        while (j < k && rounds[j] / MFB_CODE_PLACEMENTS == block && (process >= 0 || j == i || rounds[j] > rounds[j - 1]))
            sum += scratch[j++];
        if (j - i == MFB_CODE_PLACEMENTS)
            scratch[nb++] = sum / MFB_CODE_PLACEMENTS;
        i = j;
    }
    free(rounds);
    if (nb)
        return mfb_quantile_median(scratch, nb);
    k = mfb_samples_log_ratios(all, nvars, process, cls, v, scratch, NULL);
    return k ? mfb_quantile_median(scratch, k) : NAN;
}
