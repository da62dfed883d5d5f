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

static const char *const rotation_names[] = {[MFB_ROTATE_ROUND] = "round", [MFB_ROTATE_PROCESS] = "process"};

const char *mfb_code_rotation_name(enum mfb_code_rotation r)
{
    return rotation_names[r];
}

int mfb_code_rotation_parse(const char *s, enum mfb_code_rotation *out)
{
    for (int i = 0; i < (int)(sizeof rotation_names / sizeof rotation_names[0]); i++)
        if (!strcmp(s, rotation_names[i])) {
            *out = (enum mfb_code_rotation)i;
            return 0;
        }
    return -1;
}

void mfb_layout_draw(struct mfb_layout *l, uint64_t seed, const uint64_t *placement_seed, long process_index,
                     enum mfb_code_rotation rotation)
{
    struct mfb_rng r;
    mfb_rng_seed(&r, mfb_stream_seed(seed, MFB_STREAM_STACK));
    l->stack_offset = (uint32_t)(MFB_STACK_STEP * mfb_rng_below(&r, 4096 / MFB_STACK_STEP));
    l->balanced = placement_seed && process_index >= 0;
    mfb_rng_seed(&r, l->balanced ? *placement_seed : mfb_stream_seed(seed, MFB_STREAM_CODE));
    l->turn = l->balanced ? (uint8_t)(process_index % MFB_CODE_PLACEMENTS) : 0;
    l->rotation = rotation;
    permutation(&r, l->kernel_perm);
    permutation(&r, l->perm);
    for (int i = 0; i < MFB_MAX_VARIANTS; i++)
        l->shift[i] = (uint8_t)mfb_rng_below(&r, MFB_CODE_PLACEMENTS);
    if (rotation == MFB_ROTATE_ROUND) {
        /* the starting points are the process's own: the pairing differs between processes */
        mfb_rng_seed(&r, mfb_stream_seed(seed, MFB_STREAM_CODE));
        l->turn = 0;
        l->kernel_shift = (uint8_t)mfb_rng_below(&r, MFB_CODE_PLACEMENTS);
        for (int i = 0; i < MFB_MAX_VARIANTS; i++)
            l->shift[i] = (uint8_t)mfb_rng_below(&r, MFB_CODE_PLACEMENTS);
    }
    l->kernel_placement = rotation == MFB_ROTATE_ROUND ? l->kernel_perm[l->kernel_shift] : l->kernel_perm[l->turn];
    const char *pad = getenv("MEMFBENCH_PAD");
    l->env_pad = pad ? (uint32_t)strlen(pad) : 0;
}
