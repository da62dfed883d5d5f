/* The timed loops: one batch = `reps` passes over `n` precomputed calls, bracketed by the
 * timer. Nothing else happens between the two timer reads. */
#ifndef MFB_KERNELS_H
#define MFB_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "timer.h"
#include "variants.h"

struct mfb_batch {
    const struct mfb_variant *variant;
    unsigned char *base;          /* arena */
    const struct mfb_call *calls;
    size_t n;
    const uint64_t *shifts;       /* per pass: page-aligned move of large calls' offsets */
    size_t reps;
    const struct mfb_timer *timer;
};

struct mfb_batch_result {
    uint64_t begin, ticks;
    int cpu;
};

void mfb_run_batch(const struct mfb_batch *b, struct mfb_batch_result *out);

#endif
