/* The timed loops: one batch = `reps` passes over 2^k precomputed calls, bracketed by the
 * timer. Nothing else happens between the two timer reads. */
#ifndef MFB_KERNELS_H
#define MFB_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/code_placement.h"
#include "impl/variants.h"
#include "machine/timer.h"
#include "workload/call.h"
#include "workload/space.h"

/* One pass over the call array. Replaying an array in the same order lets the branch predictor
 * learn the whole sequence (measured: 4.3 ns/call in order against 13 ns/call with a fresh order
 * per pass, fleet memcpy, docs/validation.md), so every pass visits the calls in its own order,
 * index (j * stride + offset) mod 2^k with an odd stride: a permutation, because the array length
 * is a power of two by construction (struct mfb_batch holds its logarithm, not a length).
 * A large call at index i moves by ((i * page_mul + page_add) & pages_mask) units of 4 KiB in
 * this pass, multiplier and addend being multiples of the page's units g (an odd number times g):
 * g times a permutation of the window's pages, so every shift is a whole page, no two large
 * calls of a pass share one, and
 * a call finds lines another large call of the same pass touched only when their slices happen
 * to overlap (about slice / (window / pages) per pair), not whenever the table holds two of them. */
struct mfb_pass {
    uint32_t stride; /* odd */
    uint32_t offset;
    uint32_t page_mul; /* an odd number times the page's units (workload/space.h) */
    uint32_t page_add; /* a multiple of the page's units */
};

/* A large call's page shift in pass p, zero for a small call, without a branch: the class bit of
 * the size selects it. The loop cost this adds is the same for every variant and is part of what
 * the noop variant measures. */
static inline uint64_t mfb_pass_shift(uint32_t size, uint32_t idx, const struct mfb_pass *p, uint32_t pages_mask)
{
    uint64_t page = (idx * p->page_mul + p->page_add) & pages_mask;
    return (page << MFB_SHIFT_LOG2) & (0 - (uint64_t)(size >> 31));
}

struct mfb_batch {
    const struct mfb_variant *variant;
    unsigned char *base;          /* arena */
    const struct mfb_call *calls;
    uint8_t calls_log2;           /* calls per pass: 1 << calls_log2 (at most 31) */
    uint32_t pages_mask;          /* large window's page shifts (workload/space.h); 0: no large calls */
    uint32_t flip_lead;           /* compare functions: calls ahead a difference is stored */
    const struct mfb_pass *passes;
    size_t reps;
    const struct mfb_timer *timer;
    bool latency;                 /* --latency: each call's addresses depend on the previous call */
    void (*pressure)(void);       /* --icache-pressure: run after every call (machine/pressure.h); NULL none */
};

struct mfb_batch_result {
    uint64_t begin, ticks;
    int cpu;
};

void mfb_run_batch(const struct mfb_batch *b, struct mfb_batch_result *out);

/* The same loops compiled at every code placement (base/code_placement.h, kernels_placed.c); a run
 * times with the one its layout drew. */
typedef void mfb_batch_fn(const struct mfb_batch *b, struct mfb_batch_result *out);
extern mfb_batch_fn *const mfb_kernel_placements[MFB_CODE_PLACEMENTS];

#endif
