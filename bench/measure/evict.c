#include "measure/evict.h"

#include "machine/flush.h"

/* Lines are flushed one stride apart, the stride the smallest data-cache line of the machine
 * (machine/flush.h: CTR_EL0.DminLine on AArch64, CPUID's CLFLUSH size on x86-64): a flush by
 * address acts on the whole line holding it, so a stride of the smallest line reaches every line
 * of every level, where a fixed 64 would skip every other line of a 32-byte-line cache. */

/* One line. clflushopt where the CPU has it: unlike clflush it is not ordered with the other
 * flushes, so a span's lines are written back side by side instead of one after the other, and the
 * fence below still waits for all of them (machine/flush.h has the figures). */
static inline void flush_one(const uint8_t *p, bool opt)
{
#if defined(__x86_64__)
    if (opt)
        __asm__ volatile("clflushopt %0" ::"m"(*(const volatile uint8_t *)p));
    else
        __asm__ volatile("clflush %0" ::"m"(*(const volatile uint8_t *)p));
#elif defined(__aarch64__)
    /* Linux lets user code clean and invalidate by address (SCTLR_EL1.UCI, or the kernel's
     * emulation where an erratum clears it); machine/flush.c checks before anything calls this. */
    (void)opt;
    __asm__ volatile("dc civac, %0" ::"r"(p) : "memory");
#else
    (void)p;
    (void)opt;
#endif
}

/* The flushes are complete (dirty lines written back) before anything after the fence runs, so a
 * timed batch that follows does not share the memory bus with them. */
static inline void flush_fence(void)
{
#if defined(__x86_64__)
    __asm__ volatile("mfence" ::: "memory");
#elif defined(__aarch64__)
    __asm__ volatile("dsb ish" ::: "memory");
#endif
}

bool mfb_evict_lines(uint8_t *base, const uint32_t *off, uint64_t n)
{
    const struct mfb_flush *caps = mfb_flush_caps();
    if (!caps->allowed)
        return false;
    bool opt = caps->insn == MFB_FLUSH_CLFLUSHOPT;
    for (uint64_t i = 0; i < n; i++)
        flush_one(base + off[i], opt);
    flush_fence();
    return true;
}

void mfb_evict_spans(const struct mfb_batch *b, int roles, void (*fn)(const struct mfb_span *s, void *ctx),
                     void *ctx)
{
    uint32_t n = 1u << b->calls_log2, mask = n - 1;
    for (size_t r = 0; r < b->reps; r++) {
        const struct mfb_pass *p = &b->passes[r];
        for (uint32_t i = 0; i < n; i++) {
            uint32_t idx = (i * p->stride + p->offset) & mask;
            const struct mfb_call *c = &b->calls[idx];
            if (!(c->size & MFB_CALL_LARGE))
                continue;
            uint64_t o = mfb_pass_shift(c->size, idx, p, b->pages_mask);
            struct mfb_span s = {.at = b->base + c->dst + o, .len = c->size & MFB_SIZE_MASK};
            fn(&s, ctx);
            if (roles > 1) {
                s.at = b->base + c->src + o;
                fn(&s, ctx);
            }
        }
    }
}

struct flushing {
    uintptr_t line; /* the stride, a power of two */
    bool opt;       /* clflushopt */
    uint64_t lines;
};

static void flush_span(const struct mfb_span *s, void *ctx)
{
    struct flushing *f = ctx;
    if (!s->len)
        return;
    uintptr_t first = (uintptr_t)s->at & ~(f->line - 1), last = (uintptr_t)(s->at + s->len - 1);
    for (uintptr_t a = first; a <= last; a += f->line)
        flush_one((const uint8_t *)a, f->opt);
    f->lines += (last - first) / f->line + 1;
}

uint64_t mfb_evict_batch(const struct mfb_batch *b, int roles)
{
    const struct mfb_flush *caps = mfb_flush_caps();
    if (!caps->allowed)
        return 0;
    struct flushing f = {.line = caps->line, .opt = caps->insn == MFB_FLUSH_CLFLUSHOPT};
    mfb_evict_spans(b, roles, flush_span, &f);
    flush_fence();
    return f.lines;
}
