/* A variant with a known extra cost, for checking that the statistics detect a small difference:
 * libc's memcpy, which on every 100th call copies a second time. */
#include <string.h>

#include "impl.h"

void *mfb_memcpy_slow1pct(void *restrict dst, const void *restrict src, size_t n)
{
    /* Per-thread call counter: the only state a stateless signature allows for "every 100th call".
     * A run is single-threaded, so the pattern is exact. */
    static _Thread_local unsigned calls;
    void *r = memcpy(dst, src, n);
    if (++calls == 100) {
        calls = 0;
        __asm__ volatile("" ::"r"(dst) : "memory"); /* keep the second copy from being merged */
        memcpy(dst, src, n);
    }
    return r;
}
