#include "measure/stoprule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/code_placement.h"
#include "base/quantile.h"
#include "base/signtest.h"
#include "base/placement_model.h"
#include "base/tdist.h"

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
    for (int v = 1; v < r->config.nvars; v++) {
        if (r->config.vars[v].v->origin == MFB_ORIGIN_HARNESS)
            continue;
        size_t m = mfb_samples_log_ratios(&r->res.samples, r->config.nvars, -1, 0, v, s->scratch, NULL);
        double lo, med, hi;
        if (mfb_sign_test_interval(s->scratch, m, 0.95, &lo, &med, &hi) < 0) {
            r->procedure.stop.target_widths[v] = INFINITY;
            all = false;
            continue;
        }
        double w = fmax(exp(hi - med) - 1, 1 - exp(lo - med));
        r->procedure.stop.target_widths[v] = w;
        if (w * 100 > r->config.study->target_ci)
            all = false;
    }
    r->procedure.stop.target_reached = all;
    return 0;
}

int mfb_stoprule_processes(struct mfb_stoprule *s, const struct mfb_samples *all, int nvars, const bool *compared,
                           bool rotating, const struct mfb_process_placements *placements, double target_pct,
                           double *half_widths, bool *reached, struct mfb_err *err)
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
    /* placements balanced over whole blocks: the model over the blocks run so far, reached only at
     * a block's end (base/placement_model.h) */
    bool model = placements && !rotating && nproc >= 2 * MFB_CODE_PLACEMENTS && nproc <= MFB_MODEL_MAX_PROCESSES;
    size_t n = model ? nproc / MFB_CODE_PLACEMENTS * MFB_CODE_PLACEMENTS : nproc;
    *reached = family > 0 && (!model || n == nproc);
    for (int v = 1; v < nvars; v++) {
        half_widths[v] = INFINITY;
        if (!compared[v])
            continue;
        /* One estimate per process (mfb_samples_log_estimate), in the scratch space past the rounds. */
        double *est = s->scratch + all->n;
        int8_t levels[MFB_MODEL_MAX_PROCESSES][MFB_MODEL_FACTORS];
        for (uint16_t p = 0; p < nproc; p++) {
            est[p] = mfb_samples_log_estimate(all, nvars, p, 0, v, rotating, s->scratch);
            if (model && p < n)
                memcpy(levels[p], (int8_t[MFB_MODEL_FACTORS]){mfb_line_offset_of(placements[p].kernel),
                                                              mfb_line_offset_of(placements[p].variant[v]),
                                                              mfb_line_offset_of(placements[p].variant[0])},
                       MFB_MODEL_FACTORS);
        }
        struct mfb_design_mean dm;
        mfb_design_mean(est, model ? (const int8_t(*)[MFB_MODEL_FACTORS])levels : NULL, n, &dm);
        /* Two-sided 95 %, Bonferroni over the family, as the analysis's simultaneous intervals. */
        double h = dm.df >= 1 && isfinite(dm.se) ? mfb_t_quantile(1 - 0.025 / family, (double)dm.df) * dm.se : INFINITY;
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
