/* The sampler: draws calls from a distribution (alias tables) into call records placed in an
 * address space (workload/space.h), before any timed loop. */
#ifndef MFB_SAMPLER_H
#define MFB_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/rng.h"
#include "workload/alias.h"
#include "workload/call.h"
#include "workload/distribution.h"
#include "workload/space.h"


enum mfb_align_mode { MFB_ALIGN_EXACT, MFB_ALIGN_AT_LEAST };

/* The alignment an offset realizes under "exact" semantics with cap: the largest power of two
 * dividing it, capped. Shared by the sampler's self-check and the tests. */
uint64_t mfb_offset_alignment(uint64_t off, uint64_t cap);

struct mfb_sampler {
    const struct mfb_dist *dist;
    const struct mfb_space *space;
    enum mfb_align_mode mode;
    struct mfb_alias size, src_align, dst_align, overlap, mismatch;
    uint64_t src_cap, dst_cap; /* largest alignment key of each table */
    struct mfb_rng rng;
};

int mfb_sampler_init(struct mfb_sampler *s, const struct mfb_dist *d, const struct mfb_space *space,
                     enum mfb_align_mode mode, uint64_t seed, struct mfb_err *err);
/* Which row of each table a call takes (an index into the table's rows), or MFB_SHAPE_DRAW to
 * draw it as the distribution does. */
#define MFB_SHAPE_DRAW (-1L)
struct mfb_shape {
    long src_align, dst_align, overlap, mismatch;
};

/* Draws n calls into out; returns the total bytes they process. */
uint64_t mfb_sampler_fill(struct mfb_sampler *s, struct mfb_call *out, size_t n);
/* One call of the given size and shape, placed as mfb_sampler_fill places calls (for the
 * correctness check of every call shape, workload/shapes.h). */
void mfb_sampler_place(struct mfb_sampler *s, uint64_t size, const struct mfb_shape *shape, struct mfb_call *out);
void mfb_sampler_free(struct mfb_sampler *s);

#endif
