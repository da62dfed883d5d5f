/* The passes of a batch: for each, a random visiting order of the call array and a random map
 * from a large call to its page shift, drawn outside the timed loop. */
#ifndef MFB_PASSES_H
#define MFB_PASSES_H

#include <stddef.h>

#include "base/rng.h"
#include "measure/kernels.h"

/* n passes whose page shifts are whole pages of page_units units (struct mfb_space's); the draws
 * do not depend on page_units, so the same seed gives the same orders on every page size. */
void mfb_passes_draw(struct mfb_rng *rng, struct mfb_pass *p, size_t n, uint32_t page_units);
/* A new array of n drawn passes; NULL when out of memory. */
struct mfb_pass *mfb_passes_new(struct mfb_rng *rng, size_t n, uint32_t page_units);

#endif
