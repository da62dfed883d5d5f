/* One code placement of the timed loops (base/code_placement.h): kernels.c with mfb_run_batch renamed
 * mfb_run_batch_pK and the text opened at this placement's offset in a page. The build compiles
 * this file once per placement, with -DMFB_PLACEMENT=K. */
#include "base/code_placement.h"

MFB_PLACEMENT_PAD(MFB_PLACEMENT);

#define mfb_run_batch MFB_CAT(mfb_run_batch_p, MFB_PLACEMENT)
#include "kernels.c"
