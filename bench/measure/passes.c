#include "measure/passes.h"

#include <stdlib.h>

/* The shift moves the large calls' slice to one of the page-aligned places it fits in the large
 * window, so a pass finds its lines in cache with probability about LLC / window. */
void mfb_passes_draw(const struct mfb_workset *ws, struct mfb_rng *rng, struct mfb_pass *p, size_t n)
{
    const struct mfb_window *large = &ws->space.large;
    uint64_t slots = large->used ? (large->size - large->slice) / 4096 + 1 : 1;
    for (size_t i = 0; i < n; i++) {
        p[i].shift = large->used ? 4096 * mfb_rng_below(rng, slots) : 0;
        uint64_t x = mfb_rng_next(rng);
        p[i].stride = (uint32_t)x | 1u;
        p[i].offset = (uint32_t)(x >> 32);
    }
}

struct mfb_pass *mfb_passes_new(const struct mfb_workset *ws, struct mfb_rng *rng, size_t n)
{
    struct mfb_pass *p = malloc(n * sizeof *p);
    if (p)
        mfb_passes_draw(ws, rng, p, n);
    return p;
}
