#include "measure/layout.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/placement.h"
#include "base/seeds.h"

void mfb_layout_draw(struct mfb_layout *l, uint64_t master_seed)
{
    struct mfb_rng r;
    mfb_rng_seed(&r, mfb_stream_seed(master_seed, MFB_STREAM_STACK));
    l->stack_offset = (uint32_t)(MFB_STACK_STEP * mfb_rng_below(&r, 4096 / MFB_STACK_STEP));
    mfb_rng_seed(&r, mfb_stream_seed(master_seed, MFB_STREAM_CODE));
    l->kernel_placement = (uint8_t)mfb_rng_below(&r, MFB_CODE_PLACEMENTS);
    for (int i = 0; i < MFB_MAX_VARIANTS; i++)
        l->variant_placement[i] = (uint8_t)mfb_rng_below(&r, MFB_CODE_PLACEMENTS);
    const char *pad = getenv("MEMFBENCH_PAD");
    l->env_pad = pad ? (uint32_t)strlen(pad) : 0;
}
