/* Before the rounds: one batch shape for every variant, the linearity check of that shape, and
 * (after the rounds) the harness's own cost with it. */
#ifndef MFB_CALIBRATE_H
#define MFB_CALIBRATE_H

#include "base/error.h"
#include "base/rng.h"
#include "measure/run.h"

/* Fills r->cal and each variant's pilot time. */
void mfb_calibrate_batch(struct mfb_run *r, struct mfb_rng *rng);
/* Fills each variant's linearity; warns outside the tolerance. */
int mfb_calibrate_linearity(struct mfb_run *r, struct mfb_rng *rng, struct mfb_err *err);
/* Fills r->harness. */
int mfb_calibrate_overhead(struct mfb_run *r, struct mfb_rng *rng, struct mfb_err *err);

#endif
