#include "measure/kernels.h"

/* The class bit of a call selects whether the pass shift applies, without a branch:
 * all-ones for large calls, zero for small ones. The loop cost this adds is the same for every
 * variant and is part of what the noop variant measures. */
static inline uint64_t shift_of(uint32_t size, uint64_t shift)
{
    return shift & (0 - (uint64_t)(size >> 31));
}

/* Keeps results observable: the compiler must assume the asm reads v. */
static inline void escape(uint64_t v)
{
    __asm__ volatile("" ::"r"(v) : "memory");
}

static void batch_copy(const struct mfb_batch *b, struct mfb_batch_result *out)
{
    mfb_copy_fn fn = b->variant->fn.copy;
    unsigned char *base = b->base;
    const struct mfb_call *calls = b->calls;
    uint32_t n = 1u << b->calls_log2, mask = n - 1;
    size_t reps = b->reps;
    uint64_t sink = 0;
    uint64_t t0 = mfb_timer_begin(b->timer);
    for (size_t r = 0; r < reps; r++) {
        uint64_t shift = b->passes[r].shift;
        uint32_t stride = b->passes[r].stride, offset = b->passes[r].offset;
        for (uint32_t i = 0; i < n; i++) {
            const struct mfb_call *c = &calls[(i * stride + offset) & mask];
            uint64_t o = shift_of(c->size, shift);
            sink ^= (uintptr_t)fn(base + c->dst + o, base + c->src + o, c->size & MFB_SIZE_MASK);
        }
    }
    out->ticks = mfb_timer_end(b->timer, &out->cpu) - t0;
    out->begin = t0;
    escape(sink);
}

static void batch_set(const struct mfb_batch *b, struct mfb_batch_result *out)
{
    mfb_set_fn fn = b->variant->fn.set;
    unsigned char *base = b->base;
    const struct mfb_call *calls = b->calls;
    uint32_t n = 1u << b->calls_log2, mask = n - 1;
    size_t reps = b->reps;
    uint64_t sink = 0;
    uint64_t t0 = mfb_timer_begin(b->timer);
    for (size_t r = 0; r < reps; r++) {
        uint64_t shift = b->passes[r].shift;
        uint32_t stride = b->passes[r].stride, offset = b->passes[r].offset;
        for (uint32_t i = 0; i < n; i++) {
            const struct mfb_call *c = &calls[(i * stride + offset) & mask];
            uint64_t o = shift_of(c->size, shift);
            sink ^= (uintptr_t)fn(base + c->dst + o, (int)c->aux, c->size & MFB_SIZE_MASK);
        }
    }
    out->ticks = mfb_timer_end(b->timer, &out->cpu) - t0;
    out->begin = t0;
    escape(sink);
}

/* Compare calls flip one byte of the right-hand side before the call and restore it after
 * (XOR with 0 when the call compares equal), as fleetbench does: the buffers stay equal
 * everywhere else, so any two offsets compare equal up to the injected difference. */
static void batch_cmp(const struct mfb_batch *b, struct mfb_batch_result *out)
{
    mfb_cmp_fn fn = b->variant->fn.cmp;
    unsigned char *base = b->base;
    const struct mfb_call *calls = b->calls;
    uint32_t n = 1u << b->calls_log2, mask = n - 1;
    size_t reps = b->reps;
    uint64_t sink = 0;
    uint64_t t0 = mfb_timer_begin(b->timer);
    for (size_t r = 0; r < reps; r++) {
        uint64_t shift = b->passes[r].shift;
        uint32_t stride = b->passes[r].stride, offset = b->passes[r].offset;
        for (uint32_t i = 0; i < n; i++) {
            const struct mfb_call *c = &calls[(i * stride + offset) & mask];
            uint64_t o = shift_of(c->size, shift);
            unsigned char *rhs = base + c->dst + o;
            unsigned char flip = mfb_mis_flip(c->aux);
            unsigned char *at = rhs + mfb_mis_pos(c->aux);
            *at ^= flip;
            sink += (uint64_t)fn(base + c->src + o, rhs, c->size & MFB_SIZE_MASK);
            *at ^= flip;
        }
    }
    out->ticks = mfb_timer_end(b->timer, &out->cpu) - t0;
    out->begin = t0;
    escape(sink);
}

void mfb_run_batch(const struct mfb_batch *b, struct mfb_batch_result *out)
{
    switch (b->variant->func) {
    case MFB_MEMCPY:
    case MFB_MEMMOVE:
        batch_copy(b, out);
        break;
    case MFB_MEMSET:
        batch_set(b, out);
        break;
    default:
        batch_cmp(b, out);
        break;
    }
}
