/* Warm-up: the first rounds are flagged as warm-up, either a fixed number of them or until the
 * round times settle (detected). Warm-up rounds replay the first parameter array, so their total
 * time is comparable from round to round. */
#ifndef MFB_WARMUP_H
#define MFB_WARMUP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/warn.h"
#include "measure/run.h"

/* Detected warm-up ends when the median of the last WARMUP_WINDOW round totals is within
 * WARMUP_SETTLE of the median of the window before (no trend left), or at the caps: this many
 * rounds, or a tenth of the time budget (at least 0.5 s; 2 s without a budget). */
#define MFB_WARMUP_MAX_ROUNDS 2000

struct mfb_warmup_rule {
    double totals[MFB_WARMUP_MAX_ROUNDS]; /* detected mode: each warm-up round's total ticks */
    double cap_s;
    long fixed_rounds;                    /* fixed mode: the rounds asked for */
};

/* Starts the warm-up of a study; returns whether there is one at all. */
bool mfb_warmup_begin(struct mfb_warmup_rule *w, struct mfb_warmup *out, const struct mfb_study *s);
/* Records the total of warm-up round `round` (0-based); returns true when the warm-up is over,
 * with out filled in. */
bool mfb_warmup_round(struct mfb_warmup_rule *w, struct mfb_warmup *out, uint32_t round, double total,
                      double elapsed_s, struct mfb_warnings *warn);

#endif
