/* The planted families of memfbench tune's validation (docs/validation.md, "Racing a family";
 * tools/tune_validation.py runs them):
 *
 *   --param ID=0,1,...,7 --variant-cflags "-O2 -DBEST=5"      one candidate about 2 % faster
 *   --param ID=0,1,...,7 --variant-cflags "-O2 -DSLOW_EVERY=0" eight identical candidates
 *
 * Every candidate is the C library's memcpy with a call counter; each but the one numbered BEST
 * also copies a second time on every SLOW_EVERY-th call, the mechanism of the known 1 % cost
 * (known_cost.c: every 25th call is about 1 % on fleetbench's Memcpy_Fleet, so every 12th is about
 * 2 %). With SLOW_EVERY 0 no candidate copies twice and all are the same code. */
#include <string.h>

#ifndef ID
#define ID 0
#endif
#ifndef BEST
#define BEST (-1)
#endif
#ifndef SLOW_EVERY
#define SLOW_EVERY 12
#endif

/* Out of line and opaque to interprocedural optimisation (noipa), so that the common path is the
 * same instructions in the spared candidate and the others (known_cost.c says why). */
__attribute__((noipa)) static void every_period(void *dst, const void *src, size_t n, int extra)
{
    __asm__ volatile("" ::"r"(dst) : "memory");
    if (extra)
        memcpy(dst, src, n);
}

void *planted_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    static unsigned calls; /* memfbench calls a variant from one thread at a time */
    void *r = memcpy(dst, src, n);
    if (SLOW_EVERY > 0 && ++calls >= (unsigned)(SLOW_EVERY > 0 ? SLOW_EVERY : 1)) {
        calls = 0;
        every_period(dst, src, n, ID != BEST);
    }
    return r;
}
