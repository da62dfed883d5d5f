#include "machine/layout.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/code_placement.h"
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

void mfb_layout_draw(struct mfb_layout *l, uint64_t seed, const uint64_t *code_placement_seed, long process_index,
                     enum mfb_code_rotation rotation)
{
    struct mfb_rng r;
    mfb_rng_seed(&r, mfb_stream_seed(seed, MFB_STREAM_STACK));
    l->stack_offset = (uint32_t)(MFB_STACK_STEP * mfb_rng_below(&r, 4096 / MFB_STACK_STEP));
    l->balanced = code_placement_seed && process_index >= 0;
    /* Balanced: each block of MFB_CODE_PLACEMENTS processes draws its own permutations from the
     * study's seed, so a study of 4 blocks meets 4 independent sets of the pairings of the loop's
     * and the variants' placements. One set, repeated, leaves its pairings' share in every process
     * and so outside any interval made from the study; drawn per block, it is part of what the
     * placement model leaves (analysis/stats/placement_model.py design_estimate), and the model can tell each
     * code's placements apart (docs/methodology.md, record estimator). */
    l->block = l->balanced ? (uint32_t)(process_index / MFB_CODE_PLACEMENTS) : 0;
    mfb_rng_seed(&r, l->balanced ? mfb_seed_derive(*code_placement_seed, l->block)
                                 : mfb_stream_seed(seed, MFB_STREAM_CODE));
    l->turn = l->balanced ? (uint8_t)(process_index % MFB_CODE_PLACEMENTS) : 0;
    l->rotation = rotation;
    permutation(&r, l->kernel_perm);
    permutation(&r, l->perm);
    for (int i = 0; i < MFB_MAX_VARIANTS; i++)
        l->shift[i] = (uint8_t)mfb_rng_below(&r, MFB_CODE_PLACEMENTS);
    for (int i = 0; i < MFB_MAX_VARIANTS; i++)
        l->partner[i] = -1;
    /* rotating, the starting points are drawn per block from the process's own seed */
    l->block_seed = mfb_stream_seed(seed, MFB_STREAM_CODE);
    if (rotation == MFB_ROTATE_ROUND)
        l->turn = 0;
    l->kernel_placement = (uint8_t)mfb_layout_kernel_at(l, 0);
    const char *pad = getenv("MEMFBENCH_PAD");
    l->env_pad = pad ? (uint32_t)strlen(pad) : 0;
}

unsigned mfb_layout_block_shift(const struct mfb_layout *l, int j, uint32_t block)
{
    uint64_t x = mfb_seed_derive(l->block_seed, (uint64_t)block * (MFB_MAX_VARIANTS + 1) + (uint64_t)(j + 1));
    return (unsigned)(x % MFB_CODE_PLACEMENTS);
}

/* An A/A copy starts 1 to MFB_CODE_PLACEMENTS - 1 steps past its original, drawn per block, so the
 * two never run from one placement in the same round and still meet at every distance. */
static unsigned start(const struct mfb_layout *l, int j, uint32_t block)
{
    int o = j >= 0 && j < MFB_MAX_VARIANTS ? l->partner[j] : -1;
    if (o < 0)
        return mfb_layout_block_shift(l, j, block);
    return mfb_layout_block_shift(l, o, block) + 1 + mfb_layout_block_shift(l, j, block) % (MFB_CODE_PLACEMENTS - 1);
}

unsigned mfb_layout_placement_at(const struct mfb_layout *l, int j, unsigned extra, uint32_t round)
{
    if (l->rotation != MFB_ROTATE_ROUND)
        return mfb_layout_placement(l, j, extra);
    uint32_t block = round / MFB_CODE_PLACEMENTS, step = round % MFB_CODE_PLACEMENTS;
    return l->perm[(start(l, j, block) + step) % MFB_CODE_PLACEMENTS];
}

unsigned mfb_layout_kernel_at(const struct mfb_layout *l, uint32_t round)
{
    if (l->rotation != MFB_ROTATE_ROUND)
        return l->kernel_perm[l->turn];
    uint32_t block = round / MFB_CODE_PLACEMENTS, step = round % MFB_CODE_PLACEMENTS;
    return l->kernel_perm[(mfb_layout_block_shift(l, -1, block) + step) % MFB_CODE_PLACEMENTS];
}
