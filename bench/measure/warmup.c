#include "measure/warmup.h"

#include <math.h>

#include "base/quantile.h"

enum { WARMUP_WINDOW = 5 };
#define WARMUP_SETTLE 0.01

bool mfb_warmup_begin(struct mfb_warmup_rule *w, struct mfb_warmup *out, const struct mfb_study *s)
{
    out->mode = s->warmup_rounds < 0 ? MFB_WARMUP_DETECTED : MFB_WARMUP_FIXED;
    out->rounds = 0;
    w->fixed_rounds = s->warmup_rounds;
    /* At most half of the process's own time: a process of a default study has 0.16 s of rounds,
     * and a warm-up allowed 0.5 s ran past its whole share and left it 2 measured rounds, starved,
     * so its slot ran again (issue 53: 0.3 s more, in 1 of 10 studies of the validation's coverage
     * section on the Intel VM). What did not settle in half the time is warned of, as at the cap. */
    w->cap_s = s->time_s > 0 ? fmin(fmax(0.5, s->time_s / 10), s->time_s / 2) : 2.0;
    return out->mode == MFB_WARMUP_DETECTED || s->warmup_rounds > 0;
}

/* Relative change between the medians of the last two windows of n totals; NAN before two
 * windows are there. */
static double window_change(const double *totals, uint32_t n)
{
    if (n < 2 * WARMUP_WINDOW)
        return NAN;
    double last[WARMUP_WINDOW], prev[WARMUP_WINDOW];
    for (int i = 0; i < WARMUP_WINDOW; i++) {
        last[i] = totals[n - WARMUP_WINDOW + i];
        prev[i] = totals[n - 2 * WARMUP_WINDOW + i];
    }
    return mfb_quantile_median(last, WARMUP_WINDOW) / mfb_quantile_median(prev, WARMUP_WINDOW) - 1;
}

bool mfb_warmup_round(struct mfb_warmup_rule *w, struct mfb_warmup *out, uint32_t round, double total,
                      double elapsed_s, struct mfb_warnings *warn)
{
    bool done;
    if (out->mode == MFB_WARMUP_FIXED) {
        done = round + 1 >= (uint64_t)w->fixed_rounds;
    } else {
        /* round < MFB_WARMUP_MAX_ROUNDS: the cap below ends the warm-up at the last slot. */
        w->totals[round] = total;
        double change = window_change(w->totals, round + 1);
        if (!isnan(change))
            out->change = change;
        out->settled = !isnan(change) && fabs(change) <= WARMUP_SETTLE;
        done = out->settled || round + 1 >= MFB_WARMUP_MAX_ROUNDS || elapsed_s >= w->cap_s;
        if (done && !out->settled)
            mfb_warn(warn, MFB_W_WARMUP, "round times had not settled after %u warm-up rounds (%.1f s; last "
                     "change %+.2f %%)", round + 1, elapsed_s, 100 * out->change);
    }
    if (done) {
        out->rounds = round + 1;
        out->seconds = elapsed_s;
    }
    return done;
}
