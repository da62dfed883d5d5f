/* Call parameters: drawn from a distribution into compact records before any timed loop.
 * A record holds everything one call needs, as arena offsets, so the timed loop only reads it. */
#ifndef MFB_PARAMS_H
#define MFB_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "alias.h"
#include "distribution.h"
#include "error.h"
#include "rng.h"
#include "workset.h"

/* size: bits 0..30 the byte count, bit 31 set for a large call (its offsets move per pass). */
#define MFB_SIZE_MASK 0x7fffffffu
#define MFB_CALL_LARGE 0x80000000u
/* Compare functions: aux bit 31 = compare equal, bit 30 = sign of the injected difference,
 * bits 0..29 = position of the first difference. memset: aux = the byte value. */
#define MFB_MIS_EQUAL_FLAG 0x80000000u
#define MFB_MIS_SIGN_FLAG 0x40000000u
#define MFB_MIS_POS_MASK 0x3fffffffu
#define MFB_COMPARE_FILL 0x5A

struct mfb_call {
    uint32_t size;
    uint32_t aux;
    uint32_t src; /* arena offsets; memset uses dst only */
    uint32_t dst;
};

enum mfb_align_mode { MFB_ALIGN_EXACT, MFB_ALIGN_AT_LEAST };

const char *mfb_align_mode_name(enum mfb_align_mode m);
int mfb_align_mode_parse(const char *s, enum mfb_align_mode *out);
/* The alignment an offset realizes under "exact" semantics with cap: the largest power of two
 * dividing it, capped. Shared by the sampler's self-check and the tests. */
uint64_t mfb_offset_alignment(uint64_t off, uint64_t cap);

struct mfb_sampler {
    const struct mfb_dist *dist;
    const struct mfb_workset *ws;
    enum mfb_align_mode mode;
    struct mfb_alias size, src_align, dst_align, overlap, mismatch;
    uint64_t src_cap, dst_cap; /* largest alignment key of each table */
    struct mfb_rng rng;
};

int mfb_sampler_init(struct mfb_sampler *s, const struct mfb_dist *d, const struct mfb_workset *ws,
                     enum mfb_align_mode mode, uint64_t seed, struct mfb_err *err);
/* Draws n calls into out; returns the total bytes they process. */
uint64_t mfb_sampler_fill(struct mfb_sampler *s, struct mfb_call *out, size_t n);
void mfb_sampler_free(struct mfb_sampler *s);



/* Decoding of compare aux, shared by the timed loop and the correctness check:
 * the byte XORed into the right-hand buffer at the mismatch position (0 = compare equal). */
static inline uint32_t mfb_mis_pos(uint32_t aux)
{
    return aux & MFB_MIS_POS_MASK;
}

static inline unsigned char mfb_mis_flip(uint32_t aux)
{
    return (unsigned char)(((~aux >> 31) & 1u) << (6 + ((aux >> 30) & 1u)));
}

#endif
