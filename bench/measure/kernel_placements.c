#include "measure/kernels.h"

#define DECLARE_PLACEMENT(k) void mfb_run_batch_p##k(const struct mfb_batch *b, struct mfb_batch_result *out);
DECLARE_PLACEMENT(0)
DECLARE_PLACEMENT(1)
DECLARE_PLACEMENT(2)
DECLARE_PLACEMENT(3)
DECLARE_PLACEMENT(4)
DECLARE_PLACEMENT(5)
DECLARE_PLACEMENT(6)
DECLARE_PLACEMENT(7)

_Static_assert(MFB_CODE_PLACEMENTS == 8, "one loop per placement below");
mfb_batch_fn *const mfb_kernel_placements[MFB_CODE_PLACEMENTS] = {
    mfb_run_batch_p0, mfb_run_batch_p1, mfb_run_batch_p2, mfb_run_batch_p3,
    mfb_run_batch_p4, mfb_run_batch_p5, mfb_run_batch_p6, mfb_run_batch_p7,
};
