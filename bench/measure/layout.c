#include "measure/layout.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/placement.h"
#include "base/seeds.h"

/* A random permutation of the placements (Fisher-Yates), drawn from r. */
static void permutation(struct mfb_rng *r, uint8_t *p)
{
    for (int k = 0; k < MFB_CODE_PLACEMENTS; k++)
        p[k] = (uint8_t)k;
    for (int k = MFB_CODE_PLACEMENTS - 1; k > 0; k--) {
        int j = (int)mfb_rng_below(r, (uint64_t)k + 1);
        uint8_t t = p[k];
        p[k] = p[j];
        p[j] = t;
    }
}

void mfb_layout_draw(struct mfb_layout *l, uint64_t seed, const uint64_t *placement_seed, long process_index)
{
    struct mfb_rng r;
    mfb_rng_seed(&r, mfb_stream_seed(seed, MFB_STREAM_STACK));
    l->stack_offset = (uint32_t)(MFB_STACK_STEP * mfb_rng_below(&r, 4096 / MFB_STACK_STEP));
    l->balanced = placement_seed && process_index >= 0;
    mfb_rng_seed(&r, l->balanced ? *placement_seed : mfb_stream_seed(seed, MFB_STREAM_CODE));
    l->turn = l->balanced ? (uint8_t)(process_index % MFB_CODE_PLACEMENTS) : 0;
    uint8_t kernel[MFB_CODE_PLACEMENTS];
    permutation(&r, kernel);
    l->kernel_placement = kernel[l->turn];
    permutation(&r, l->perm);
    for (int i = 0; i < MFB_MAX_VARIANTS; i++)
        l->shift[i] = (uint8_t)mfb_rng_below(&r, MFB_CODE_PLACEMENTS);
    const char *pad = getenv("MEMFBENCH_PAD");
    l->env_pad = pad ? (uint32_t)strlen(pad) : 0;
}
