/* Every call shape a distribution can produce, for the correctness check: a variant that is
 * wrong at one size, alignment, overlap or mismatch of the run must fail before it is timed, not
 * only when that shape happens to be among the first calls drawn.
 *
 * The shapes: every size of the support (a range row narrower than MFB_SHAPES_RANGE_ALL sizes
 * gives all its sizes; a wider one every size up to MFB_SHAPES_SMALL, then its two ends, every
 * power of two with its neighbours, every k-th size so that about MFB_SHAPES_RANGE_ALL are evenly
 * spread over the rest, and MFB_SHAPES_RANGE_DRAWS sizes drawn at random: a wrong size among the
 * small ones, where implementations switch strategies most, is always found), and every
 * combination of a source-alignment,
 * destination-alignment, overlap and mismatch row; each size appears at least once and each
 * combination at least once, cycled against each other.
 *
 * Cost bound: checking a call moves its size in bytes several times through a byte-exact
 * reference, so the sizes checked may add up to MFB_SHAPES_MAX_BYTES per variant (fleet memcpy's
 * 1,941 sizes add up to 44 MB). Beyond that, every size up to MFB_SHAPES_SMALL stays and the
 * larger ones are thinned evenly (the largest always kept); `complete` then says so. */
#ifndef MFB_SHAPES_H
#define MFB_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "workload/sampler.h"

#define MFB_SHAPES_RANGE_ALL 4096
#define MFB_SHAPES_RANGE_DRAWS 8
#define MFB_SHAPES_MAX_BYTES (256ull << 20)
#define MFB_SHAPES_SMALL 4096

struct mfb_shapes {
    uint64_t *sizes;   /* distinct, ascending */
    size_t nsizes;
    size_t support;    /* distinct sizes listed before the cost bound; nsizes < support: thinned */
    uint64_t in_support; /* distinct sizes the distribution can draw; nsizes < in_support: not all checked */
    size_t combos;     /* alignment x alignment x overlap x mismatch rows */
    size_t n;          /* calls: max(nsizes, combos) */
};

int mfb_shapes_init(struct mfb_shapes *sh, const struct mfb_dist *d, uint64_t seed, struct mfb_err *err);
/* Call i of the n, placed by the sampler s (its random offsets within each shape). */
void mfb_shapes_call(const struct mfb_shapes *sh, struct mfb_sampler *s, size_t i, struct mfb_call *out);
void mfb_shapes_free(struct mfb_shapes *sh);

#endif
