/* The counted replay loop (measure/counted.h). It is the timed loop's work without the timer, the
 * page shifts and the visiting orders: the calls are independent draws, so their array order is
 * already random, and a large call keeps the offsets the sampler drew (there is one pass to count).
 * Everything here but the call itself is the same for every variant, which `noop` counts. */
#include "measure/counted.h"

#include "base/functions.h"

static inline __attribute__((always_inline)) uint64_t pass(const struct mfb_counted *c)
{
    const struct mfb_variant *v = c->variant;
    unsigned char *base = c->base;
    uint64_t sink = 0;
    switch (mfb_func_traits(v->func)->family) {
    case MFB_FAMILY_COPY:
        for (size_t i = 0; i < c->n; i++) {
            const struct mfb_call *k = &c->calls[i];
            sink ^= (uintptr_t)v->fn.copy(base + k->dst, base + k->src, k->size & MFB_SIZE_MASK);
        }
        break;
    case MFB_FAMILY_SET:
        for (size_t i = 0; i < c->n; i++) {
            const struct mfb_call *k = &c->calls[i];
            sink ^= (uintptr_t)v->fn.set(base + k->dst, (int)k->aux, k->size & MFB_SIZE_MASK);
        }
        break;
    case MFB_FAMILY_COMPARE:
        /* The right-hand buffer gets the call's difference just before the call and loses it just
         * after, as in the timed loop; the flip's lead there is about store forwarding, a timing
         * matter that no count here sees, so the flip is made right before the call. */
        for (size_t i = 0; i < c->n; i++) {
            const struct mfb_call *k = &c->calls[i];
            unsigned char *rhs = base + k->dst;
            rhs[mfb_mis_pos(k->aux)] ^= mfb_mis_flip(k->aux);
            sink += (uint64_t)v->fn.cmp(base + k->src, rhs, k->size & MFB_SIZE_MASK);
            rhs[mfb_mis_pos(k->aux)] ^= mfb_mis_flip(k->aux);
        }
        break;
    }
    return sink;
}

/* noipa on both: no clone with another name (callgrind matches the name) and no inlining of one
 * into a caller that would then be counted whole. */
__attribute__((noipa)) uint64_t mfb_counted_warm(const struct mfb_counted *c)
{
    return pass(c);
}

__attribute__((noipa)) uint64_t mfb_counted_loop(const struct mfb_counted *c)
{
    return pass(c);
}
