#include "measure/stoprule.h"

#include <math.h>
#include <stdlib.h>

#include "base/signtest.h"

/* Log ratio of variant v's batch time to the baseline's (variant 0), one per measured round.
 * Each round is nvars consecutive samples. */
static size_t log_ratios(const struct mfb_run *r, int v, double *out)
{
    size_t nv = (size_t)r->nvars, m = 0;
    for (size_t i = (size_t)r->warmup.rounds * nv; i + nv <= r->res.samples.n; i += nv) {
        double t0 = 0, tv = 0;
        for (size_t j = 0; j < nv; j++) {
            const struct mfb_sample *x = &r->res.samples.s[i + j];
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

int mfb_stoprule_check(struct mfb_stoprule *s, struct mfb_run *r, struct mfb_err *err)
{
    size_t rounds = r->res.rounds - r->warmup.rounds;
    if (s->cap < rounds) {
        free(s->scratch);
        s->cap = 2 * rounds;
        if (!(s->scratch = malloc(s->cap * sizeof *s->scratch))) {
            s->cap = 0;
            return mfb_fail(err, "out of memory checking --target-ci over %zu rounds", rounds);
        }
    }
    bool all = true;
    for (int v = 1; v < r->nvars; v++) {
        if (r->vars[v].v->noop)
            continue;
        size_t m = log_ratios(r, v, s->scratch);
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

void mfb_stoprule_free(struct mfb_stoprule *s)
{
    free(s->scratch);
    s->scratch = NULL;
    s->cap = 0;
}
