/* The timed loops: one batch = `reps` passes over `n` precomputed calls, bracketed by the
 * timer. Nothing else happens between the two timer reads. */
#ifndef MFB_KERNELS_H
#define MFB_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "timer.h"
#include "variants.h"

/* One pass over the call array. Replaying an array in the same order lets the branch predictor
 * learn the whole sequence (measured: 4.3 ns/call in order against 13 ns/call with a fresh order
 * per pass, fleet memcpy, docs/validation.md), so every pass visits the calls in its own order,
 * index (j * stride + offset) & mask with an odd stride, a permutation when the array length is a
 * power of two. */
struct mfb_pass {
    uint64_t shift;   /* page-aligned move of large calls' offsets */
    uint32_t stride;  /* odd */
    uint32_t offset;
};

struct mfb_batch {
    const struct mfb_variant *variant;
    unsigned char *base;          /* arena */
    const struct mfb_call *calls;
    size_t n;                     /* calls per pass */
    uint32_t mask;                /* n - 1 when n is a power of two (permuted passes), else ~0 */
    const struct mfb_pass *passes;
    size_t reps;
    const struct mfb_timer *timer;
};

struct mfb_batch_result {
    uint64_t begin, ticks;
    int cpu;
};

void mfb_run_batch(const struct mfb_batch *b, struct mfb_batch_result *out);

#endif
