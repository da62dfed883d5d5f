/* Pointer-chasing chains: each cache line of a buffer holds the address of the next line to
 * load, so every load depends on the one before and the time per load is the latency of the
 * level the buffer lives in. */
#ifndef MFB_CHAIN_H
#define MFB_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"

/* The order in which a chain visits the buffer's lines. */
enum mfb_chase {
    MFB_CHASE_RANDOM,  /* one random cycle through every line: no prefetcher can follow it */
    MFB_CHASE_STRIDE1, /* line after line, wrapping: the prefetcher's best case */
    MFB_CHASE_STRIDE2, /* every other line, then the lines between: a strided stream */
    MFB_CHASE_COUNT
};

/* The pattern's name in the probe file ("random", "stride1", "stride2"). */
const char *mfb_chase_name(enum mfb_chase c);

/* Links the first `lines` lines of buf (each `line` bytes, line >= sizeof(void *)) into one
 * cycle through all of them in pattern c; rng is used by MFB_CHASE_RANDOM only. perm is scratch
 * of `lines` entries. Returns the first line's address. */
void *mfb_chain_build(void *buf, size_t lines, size_t line, enum mfb_chase c, struct mfb_rng *rng, uint32_t *perm);

/* Follows the chain from start for `loads` dependent loads (a multiple of 16 is exact; the rest
 * is rounded up) and returns where it stopped, which the caller must use so the loads stay. */
void *mfb_chain_walk(void *start, uint64_t loads);

/* Follows the chain from start until it comes back, for at most `lines` + 1 steps; returns the
 * number of distinct lines visited when every step lands on a line start of the buffer and no
 * line is visited twice before the return to start, else 0. The property tests' oracle. */
size_t mfb_chain_cycle_length(const void *buf, size_t lines, size_t line, const void *start);

#endif
