/* Per-process layout randomization. ASLR moves code, stack and heap by whole pages, so the low
 * 12 bits of every address, and with them cache-set and 4 KiB-aliasing effects, are the same in
 * every process; a layout frozen like that is one arbitrary sample (Mytkowicz et al., ASPLOS 2009;
 * Curtsinger and Berger, ASPLOS 2013). Each process therefore draws, from its seed, a stack offset
 * below one page, and the --processes parent gives each child an environment pad of random
 * length (which also moves the initial stack). The code memfbench compiles itself (the timed
 * loop, the built-ins) is moved too: each process draws one of its code placements
 * (base/placement.h) for the loop and one for each variant whose code is a built-in. Data needs
 * no such draw: every call's offset within its window is already drawn per call (uniform, subject
 * to its alignment row), so its position within a page differs from call to call and process to
 * process. Everything drawn is recorded in the result file. */
#ifndef MFB_LAYOUT_H
#define MFB_LAYOUT_H

#include <stdint.h>

#include "measure/study.h"

/* Longest environment pad the parent adds (MEMFBENCH_PAD=xxx...): one page. */
#define MFB_ENV_PAD_MAX 4096
/* Stack offsets are multiples of this (the ABI's stack alignment) below one page. */
#define MFB_STACK_STEP 16

struct mfb_layout {
    uint32_t stack_offset; /* bytes allocated on the stack before the study runs */
    uint32_t env_pad;      /* length of MEMFBENCH_PAD in this process's environment */
    uint8_t kernel_placement;                     /* the timed loop's code placement */
    uint8_t variant_placement[MFB_MAX_VARIANTS]; /* the i-th variant's, if its code is a built-in */
};

/* Draws this process's stack offset and code placements from the master seed and reads the
 * environment pad. */
void mfb_layout_draw(struct mfb_layout *l, uint64_t master_seed);

#endif
