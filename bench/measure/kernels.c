#include "measure/kernels.h"

/* Keeps results observable: the compiler must assume the asm reads v. */
static inline void escape(uint64_t v)
{
    __asm__ volatile("" ::"r"(v) : "memory");
}

/* Latency mode (--latency): zero, but a zero the CPU knows only once v is known. The next call's
 * addresses add it, so each call starts when the previous one has returned and its last byte
 * can be read back: the calls form one dependent chain instead of overlapping in the core.
 * `and` with 0 is not a zero idiom (the core does not break its dependency, unlike xor r,r);
 * the compiler cannot fold it because it is inside asm. */
static inline uint64_t chain_zero(uint64_t v)
{
#if defined(__x86_64__)
    __asm__("andq $0, %0" : "+r"(v));
#elif defined(__aarch64__)
    __asm__("and %0, %0, xzr" : "+r"(v));
#else
    __asm__ volatile("" : "+r"(v));
    v = 0; /* no dependent zero here: --latency is refused on such targets (study/study.h) */
#endif
    return v;
}

/* The loops take `chain` and `pressed` as constants: each is compiled four times from one source,
 * the throughput loop exactly as it was, the latency loop with the dependency, and each again
 * with the --icache-pressure block called after every call (inside the timed region: its cost,
 * the same for every variant, is what the noop variant measures with the loop). */
static inline __attribute__((always_inline)) void copy_loop(const struct mfb_batch *b, struct mfb_batch_result *out,
                                                            const int chain, const int pressed)
{
    mfb_copy_fn fn = b->variant->fn.copy;
    unsigned char *base = b->base;
    const struct mfb_call *calls = b->calls;
    uint32_t n = 1u << b->calls_log2, mask = n - 1, pages = b->pages_mask;
    size_t reps = b->reps;
    uint64_t sink = 0, z = 0;
    uint64_t t0 = mfb_timer_begin(b->timer);
    for (size_t r = 0; r < reps; r++) {
        const struct mfb_pass *p = &b->passes[r];
        uint32_t stride = p->stride, idx = p->offset & mask;
        /* (i * stride + offset) & mask, stepped: one add instead of a multiply per call */
        for (uint32_t left = n; left; left--, idx = (idx + stride) & mask) {
            const struct mfb_call *c = &calls[idx];
            uint64_t o = mfb_pass_shift(c->size, idx, p, pages) + z;
            size_t len = c->size & MFB_SIZE_MASK;
            unsigned char *ret = fn(base + c->dst + o, base + c->src + o, len);
            if (chain)
                z = chain_zero(ret[len ? len - 1 : 0]); /* the last byte written (or the pointer) */
            else
                sink ^= (uintptr_t)ret;
            if (pressed)
                b->pressure();
        }
    }
    out->ticks = mfb_timer_end(b->timer, &out->cpu) - t0;
    out->begin = t0;
    escape(sink ^ z);
}

static inline __attribute__((always_inline)) void set_loop(const struct mfb_batch *b, struct mfb_batch_result *out,
                                                           const int chain, const int pressed)
{
    mfb_set_fn fn = b->variant->fn.set;
    unsigned char *base = b->base;
    const struct mfb_call *calls = b->calls;
    uint32_t n = 1u << b->calls_log2, mask = n - 1, pages = b->pages_mask;
    size_t reps = b->reps;
    uint64_t sink = 0, z = 0;
    uint64_t t0 = mfb_timer_begin(b->timer);
    for (size_t r = 0; r < reps; r++) {
        const struct mfb_pass *p = &b->passes[r];
        uint32_t stride = p->stride, idx = p->offset & mask;
        for (uint32_t left = n; left; left--, idx = (idx + stride) & mask) {
            const struct mfb_call *c = &calls[idx];
            uint64_t o = mfb_pass_shift(c->size, idx, p, pages) + z;
            size_t len = c->size & MFB_SIZE_MASK;
            unsigned char *ret = fn(base + c->dst + o, (int)c->aux, len);
            if (chain)
                z = chain_zero(ret[len ? len - 1 : 0]);
            else
                sink ^= (uintptr_t)ret;
            if (pressed)
                b->pressure();
        }
    }
    out->ticks = mfb_timer_end(b->timer, &out->cpu) - t0;
    out->begin = t0;
    escape(sink ^ z);
}

static void batch_copy(const struct mfb_batch *b, struct mfb_batch_result *out)
{
    if (b->pressure) {
        if (b->latency)
            copy_loop(b, out, 1, 1);
        else
            copy_loop(b, out, 0, 1);
    } else if (b->latency) {
        copy_loop(b, out, 1, 0);
    } else {
        copy_loop(b, out, 0, 0);
    }
}

static void batch_set(const struct mfb_batch *b, struct mfb_batch_result *out)
{
    if (b->pressure) {
        if (b->latency)
            set_loop(b, out, 1, 1);
        else
            set_loop(b, out, 0, 1);
    } else if (b->latency) {
        set_loop(b, out, 1, 0);
    } else {
        set_loop(b, out, 0, 0);
    }
}

/* The byte a compare call flips in its right-hand buffer, and the flip (0 when it compares
 * equal), for the k-th call of the batch counting over all passes. */
static inline unsigned char *flip_at(const struct mfb_batch *b, size_t k, unsigned char *flip)
{
    uint32_t mask = (1u << b->calls_log2) - 1;
    const struct mfb_pass *p = &b->passes[k >> b->calls_log2];
    uint32_t idx = ((uint32_t)k * p->stride + p->offset) & mask;
    const struct mfb_call *c = &b->calls[idx];
    *flip = mfb_mis_flip(c->aux);
    return b->base + c->dst + mfb_pass_shift(c->size, idx, p, b->pages_mask) + mfb_mis_pos(c->aux);
}

/* Compare calls see the right-hand side with one byte flipped (XOR with 0 when the call compares
 * equal), as fleetbench does: the buffers stay equal everywhere else, so any two offsets compare
 * equal up to the injected difference. A function whose first load of that buffer is wider than
 * the flip's 1-byte store cannot take its data from the store buffer and waits until the store
 * reaches L1 (failed store forwarding); a byte loop does not wait. Flipping right before the call
 * made two harness-only probes differ by 4.6 ns per call (load32 against load1, docs/validation.md),
 * so the flip is stored flip_lead calls ahead (the first ones before the timer starts) and undone
 * right after the call. The price: a call whose bytes include one of the next flip_lead calls'
 * flipped bytes sees an extra difference, about flip_lead x size / window of the calls. */
static inline __attribute__((always_inline)) void cmp_loop(const struct mfb_batch *b, struct mfb_batch_result *out,
                                                           const int chain, const int pressed)
{
    mfb_cmp_fn fn = b->variant->fn.cmp;
    unsigned char *base = b->base;
    const struct mfb_call *calls = b->calls;
    uint32_t n = 1u << b->calls_log2, mask = n - 1, pages = b->pages_mask;
    size_t reps = b->reps, total = reps << b->calls_log2;
    uint64_t sink = 0, z = 0;
    unsigned char flip;
    size_t lead = b->flip_lead;
    for (size_t k = 0; k < lead && k < total; k++) {
        unsigned char *at = flip_at(b, k, &flip);
        *at ^= flip;
    }
    uint64_t t0 = mfb_timer_begin(b->timer);
    for (size_t r = 0; r < reps; r++) {
        const struct mfb_pass *p = &b->passes[r];
        uint32_t stride = p->stride, offset = p->offset;
        for (uint32_t i = 0; i < n; i++) {
            size_t ahead = (r << b->calls_log2) + i + lead;
            if (ahead < total) {
                unsigned char *at = flip_at(b, ahead, &flip);
                *at ^= flip;
            }
            uint32_t idx = (i * stride + offset) & mask;
            const struct mfb_call *c = &calls[idx];
            uint64_t o = mfb_pass_shift(c->size, idx, p, pages) + z;
            unsigned char *rhs = base + c->dst + o;
            int res = fn(base + c->src + o, rhs, c->size & MFB_SIZE_MASK);
            if (chain)
                z = chain_zero((uint64_t)(unsigned)res); /* the next call waits for this result */
            else
                sink += (uint64_t)res;
            rhs[mfb_mis_pos(c->aux)] ^= mfb_mis_flip(c->aux);
            if (pressed)
                b->pressure();
        }
    }
    out->ticks = mfb_timer_end(b->timer, &out->cpu) - t0;
    out->begin = t0;
    escape(sink ^ z);
}

static void batch_cmp(const struct mfb_batch *b, struct mfb_batch_result *out)
{
    if (b->pressure) {
        if (b->latency)
            cmp_loop(b, out, 1, 1);
        else
            cmp_loop(b, out, 0, 1);
    } else if (b->latency) {
        cmp_loop(b, out, 1, 0);
    } else {
        cmp_loop(b, out, 0, 0);
    }
}

void mfb_run_batch(const struct mfb_batch *b, struct mfb_batch_result *out)
{
    switch (mfb_func_traits(b->variant->func)->family) {
    case MFB_FAMILY_COPY:
        batch_copy(b, out);
        break;
    case MFB_FAMILY_SET:
        batch_set(b, out);
        break;
    case MFB_FAMILY_COMPARE:
        batch_cmp(b, out);
        break;
    }
}
