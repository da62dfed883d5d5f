/* The passes of a batch: for each, a random page shift for large calls and a random visiting
 * order (odd stride, offset) of the call array, drawn outside the timed loop. */
#ifndef MFB_PASSES_H
#define MFB_PASSES_H

#include <stddef.h>

#include "base/rng.h"
#include "measure/kernels.h"
#include "measure/workset.h"

void mfb_passes_draw(const struct mfb_workset *ws, struct mfb_rng *rng, struct mfb_pass *p, size_t n);
/* A new array of n drawn passes; NULL when out of memory. */
struct mfb_pass *mfb_passes_new(const struct mfb_workset *ws, struct mfb_rng *rng, size_t n);

#endif
