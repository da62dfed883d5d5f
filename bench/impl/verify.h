/* Correctness check: a variant must produce what the reference produces, on the same call,
 * with the same address alignments (modulo a page) and the same overlap, without writing
 * outside its destination. */
#ifndef MFB_VERIFY_H
#define MFB_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "base/activity.h"
#include "base/error.h"
#include "base/rng.h"
#include "impl/variants.h"
#include "workload/sampler.h"

/* One call, independent of any arena: buffers are page aligned, so *_mod are alignments. */
struct mfb_vcall {
    uint64_t n;
    uint32_t src_mod, dst_mod; /* address modulo 4096 */
    int64_t delta;             /* dst - src when both lie in one buffer (overlap); 0: separate */
    uint32_t aux;              /* memset value or compare mismatch, as in struct mfb_call */
};

struct mfb_verify {
    unsigned char *a, *b, *ra, *rb; /* under test and reference copies */
    unsigned char *pool;            /* cap random bytes, drawn once: what the buffers are filled from */
    size_t cap;
    struct mfb_rng rng;
    uint64_t checked;
    struct mfb_activity *activity; /* the call under way, for the guard's report */
};

/* activity: where each call is recorded before it is made (must outlive v). */
int mfb_verify_init(struct mfb_verify *v, uint64_t max_size, uint64_t seed, struct mfb_activity *activity,
                    struct mfb_err *err);
void mfb_verify_free(struct mfb_verify *v);
int mfb_verify_call(struct mfb_verify *v, const struct mfb_variant *var, const struct mfb_vcall *c,
                    struct mfb_err *err);
/* Checks one call as the sampler placed it (its offsets modulo a page, its overlap). */
int mfb_verify_placed(struct mfb_verify *v, const struct mfb_variant *var, const struct mfb_call *call,
                      struct mfb_err *err);
/* Checks every call of a parameter array (calls over 1 MiB: the first 16 only, for time; a trace's
 * replay passes in fewer, bounded by their bytes: measure/prepare.c). */
int mfb_verify_calls(struct mfb_verify *v, const struct mfb_variant *var, const struct mfb_call *calls,
                     size_t n, struct mfb_err *err);

#endif
