/* Per-process layout randomization. ASLR moves code, stack and heap by whole pages, so the low
 * 12 bits of every address, and with them cache-set and 4 KiB-aliasing effects, are the same in
 * every process; a layout frozen like that is one arbitrary sample (Mytkowicz et al., ASPLOS 2009;
 * Curtsinger and Berger, ASPLOS 2013). Each process therefore draws, from its seed, a stack offset
 * below one page, and the --processes parent gives each child an environment pad of random
 * length (which also moves the initial stack). The code memfbench compiles itself (the timed
 * loop, the built-ins) is moved too: each process draws one of its code placements
 * (base/code_placement.h) for the loop and one for each variant whose code is a built-in. Data needs
 * no such draw: every call's offset within its window is already drawn per call (uniform, subject
 * to its alignment row), so its position within a page differs from call to call and process to
 * process. Everything drawn is recorded in the result file. */
#ifndef MFB_LAYOUT_H
#define MFB_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/code_placement.h"
#include "study/study.h"

/* Longest environment pad the parent adds (MEMFBENCH_PAD=xxx...): one page. */
#define MFB_ENV_PAD_MAX 4096
/* Stack offsets are multiples of this (the ABI's stack alignment) below one page. */
#define MFB_STACK_STEP 16

struct mfb_layout {
    uint32_t stack_offset; /* bytes allocated on the stack before the study runs */
    uint32_t env_pad;      /* length of MEMFBENCH_PAD in this process's environment */
    enum mfb_code_rotation rotation;
    uint8_t kernel_placement;              /* the timed loop's code placement (rotating: at round 0) */
    uint8_t kernel_perm[MFB_CODE_PLACEMENTS]; /* the loop's permutation of the placements */
    /* Rotating: each block of MFB_CODE_PLACEMENTS rounds, the loop and every variant start their
     * permutation at a point drawn afresh from block_seed (mfb_layout_block_shift), so within a
     * block each runs from every placement once, and which placements meet in a round changes
     * from block to block: a process averages hundreds of such meetings, not the eight a fixed
     * start gives (on the Zen 5 VM, processes whose compared pair met at the same placement
     * every round agreed to 0.13 %, the others spread 1.1-2 %). */
    uint64_t block_seed;
    int8_t partner[MFB_MAX_VARIANTS];      /* an A/A copy's original's slot, else -1: the copy's
                                            * start is always another than its original's */
    /* Variant slot j runs at perm[(turn + shift[j]) % MFB_CODE_PLACEMENTS], if its code is a
     * built-in: every slot walks the same permutation from its own starting point, so over
     * MFB_CODE_PLACEMENTS processes each slot uses every placement once, and two slots either
     * always or never share one (an A/A copy that would moves one step further). */
    uint8_t perm[MFB_CODE_PLACEMENTS];
    uint8_t shift[MFB_MAX_VARIANTS];
    uint8_t turn;                          /* process index mod MFB_CODE_PLACEMENTS; 0 alone */
    uint32_t block;                        /* process index / MFB_CODE_PLACEMENTS: whose permutations */
    bool balanced;                         /* drawn from the study's placement seed */
};

/* The placement of variant slot j, moved `extra` steps further along the permutation. */
static inline unsigned mfb_layout_placement(const struct mfb_layout *l, int j, unsigned extra)
{
    return l->perm[(l->turn + l->shift[j] + extra) % MFB_CODE_PLACEMENTS];
}

/* Rotating: where slot j (-1: the timed loop) starts its permutation in block `block`. */
unsigned mfb_layout_block_shift(const struct mfb_layout *l, int j, uint32_t block);
/* The placement of variant slot j in round `round`: rotating, its block's start plus the round's
 * step within the block; else the process's own (moved `extra` steps: mfb_layout_placement). */
unsigned mfb_layout_placement_at(const struct mfb_layout *l, int j, unsigned extra, uint32_t round);
/* The timed loop's placement in round `round`. */
unsigned mfb_layout_kernel_at(const struct mfb_layout *l, uint32_t round);


/* Draws this process's stack offset from its seed and reads the environment pad. Code placements:
 * with a study's placement seed (the --processes parent passes one to every child), balanced over
 * each block of MFB_CODE_PLACEMENTS processes: the loop's placement and the variants' permutation
 * and starting points are the block's (drawn from the study's seed and the block's index), and
 * process i takes turn i mod MFB_CODE_PLACEMENTS of block i / MFB_CODE_PLACEMENTS, so every
 * placement is used once per block and the study's mean does not hinge on which placements
 * chance picked; without one (a single process), all drawn from the process's own seed. */
/* Rotating per round, the permutations are the study's (or the process's), and the starting
 * points of the loop and of every variant are drawn from the process's own seed: every process
 * times every placement of each, and which of them meet in a round differs between processes, so
 * the spread between processes still carries what the pairing does. */
void mfb_layout_draw(struct mfb_layout *l, uint64_t seed, const uint64_t *code_placement_seed, long process_index,
                     enum mfb_code_rotation rotation);

#endif
