/* Variants with a known extra cost, for checking that the statistics detect a small difference.
 * Both wrap libc's memcpy identically and count calls; `slow1pct` copies a second time on every
 * 100th call, `wrapped` never does. Comparing the two isolates the extra copies (about 1 % of the
 * copy work); comparing either with plain `libc` would mostly measure the extra call layer. */
#include <string.h>

#include "impl/impl.h"

/* Per-thread call counters: the only state a stateless signature allows for "every 100th call".
 * A run is single-threaded, so the pattern is exact. */
#define COUNTING_MEMCPY(name, extra)                                                               \
    void *name(void *restrict dst, const void *restrict src, size_t n)                             \
    {                                                                                              \
        static _Thread_local unsigned calls;                                                       \
        void *r = memcpy(dst, src, n);                                                             \
        if (++calls == 100) {                                                                      \
            calls = 0;                                                                             \
            __asm__ volatile("" ::"r"(dst) : "memory");                                            \
            if (extra)                                                                             \
                memcpy(dst, src, n);                                                               \
        }                                                                                          \
        return r;                                                                                  \
    }

COUNTING_MEMCPY(mfb_memcpy_slow1pct, 1)
COUNTING_MEMCPY(mfb_memcpy_wrapped, 0)
