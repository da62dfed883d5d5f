#include "measure/kernels.h"

#define DECLARE_PLACEMENT(k) void mfb_run_batch_p##k(const struct mfb_batch *b, struct mfb_batch_result *out);
MFB_EACH_PLACEMENT(DECLARE_PLACEMENT)

#define PLACEMENT_LOOP(k) mfb_run_batch_p##k,
mfb_batch_fn *const mfb_kernel_placements[MFB_CODE_PLACEMENTS] = {MFB_EACH_PLACEMENT(PLACEMENT_LOOP)};
