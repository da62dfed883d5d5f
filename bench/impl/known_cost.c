/* Variants with a known extra cost, for checking that the statistics detect a small difference.
 * All three wrap libc's memcpy identically and count calls; `slow1pct` copies a second time on
 * every 25th call, `twice` on every call, `wrapped` never. Comparing slow1pct with wrapped
 * isolates the extra copies; comparing either with plain `libc` would mostly measure the extra
 * call layer. The size of the small cost is established by the large one: a second copy costs
 * the same whichever call it follows, so slow1pct/wrapped - 1 should be (twice/wrapped - 1) / 25,
 * and twice's effect is 25 times larger, so its own uncertainty is 25 times smaller on that
 * scale. On the fleet memcpy distribution a second copy of data still in cache costs about a
 * quarter of a first one (twice/wrapped about 1.25), so slow1pct adds about 1 %. */
#include <string.h>

#include "impl/impl.h"

/* The every-period-th-call step, out of line and opaque to interprocedural optimisation (noipa), so
 * that the two wrappers' common path compiles to the same instructions. With the extra copy
 * inline, gcc kept src and n in two more callee-saved registers on every call of slow1pct only
 * (two more pushes and pops per call): an extra cost on all calls, which the ratio showed
 * (1.0206 against the 1.009-1.013 the extra copies predict). */
__attribute__((noipa)) static void every_period(void *dst, const void *src, size_t n, int extra)
{
    __asm__ volatile("" ::"r"(dst) : "memory");
    if (extra)
        memcpy(dst, src, n);
}

/* Per-thread call counters: the only state a stateless signature allows for "every Nth call".
 * A run is single-threaded, so the pattern is exact. */
#define COUNTING_MEMCPY(name, period, extra)                                                       \
    void *name(void *restrict dst, const void *restrict src, size_t n)                             \
    {                                                                                              \
        static _Thread_local unsigned calls;                                                       \
        void *r = memcpy(dst, src, n);                                                             \
        if (++calls == (period)) {                                                                 \
            calls = 0;                                                                             \
            every_period(dst, src, n, extra);                                                      \
        }                                                                                          \
        return r;                                                                                  \
    }

COUNTING_MEMCPY(mfb_memcpy_slow1pct, 25, 1)
COUNTING_MEMCPY(mfb_memcpy_twice, 1, 1)
COUNTING_MEMCPY(mfb_memcpy_wrapped, 25, 0)
