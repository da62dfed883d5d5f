#include "measure/passes.h"

#include <stdlib.h>

/* Each pass draws its visiting order (odd stride, offset) and the affine map (odd multiplier,
 * addend) that gives every large call its own page shift in this pass; both map terms are scaled
 * by the page's units, a power of two, so the shift (measure/kernels.h) stays whole pages on a
 * 16 or 64 KiB kernel with the timed loop's constant 4 KiB unit. */
void mfb_passes_draw(struct mfb_rng *rng, struct mfb_pass *p, size_t n, uint32_t page_units)
{
    uint32_t g = page_units ? page_units : 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = mfb_rng_next(rng), y = mfb_rng_next(rng);
        p[i].stride = (uint32_t)x | 1u;
        p[i].offset = (uint32_t)(x >> 32);
        p[i].page_mul = ((uint32_t)y | 1u) * g;
        p[i].page_add = (uint32_t)(y >> 32) * g;
    }
}

struct mfb_pass *mfb_passes_new(struct mfb_rng *rng, size_t n, uint32_t page_units)
{
    struct mfb_pass *p = malloc(n * sizeof *p);
    if (p)
        mfb_passes_draw(rng, p, n, page_units);
    return p;
}
