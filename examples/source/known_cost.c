/* memfbench's known ~1 % cost (docs/validation.md, section 5) as user code, for the source path:
 * three wrappers of libc's memcpy with the same common path, counting calls; `slow1pct_memcpy`
 * copies a second time on every 25th call, `twice_memcpy` on every call, `wrapped_memcpy` never.
 * slow1pct/wrapped - 1 is then (twice/wrapped - 1) / 25, measured in the same study.
 *
 *   memfbench run -v examples/source/known_cost.c:wrapped_memcpy=wrapped \
 *                 -v examples/source/known_cost.c:slow1pct_memcpy=slow1pct \
 *                 -v examples/source/known_cost.c:twice_memcpy=twice -o known.json
 *
 * memfbench builds the file once at each of its 8 code placements (docs/user-guide.md); the three
 * variants then run from placements balanced over the study, as its own built-ins do. */
#include <string.h>

/* The every-25th-call step out of line and opaque to interprocedural optimisation (noipa), so
 * that the wrappers' common path compiles to the same instructions: inlined, it made gcc keep
 * two more registers alive on every call of the slow wrapper only, a cost on every call. */
__attribute__((noipa)) static void every_period(void *dst, const void *src, size_t n, int extra)
{
    __asm__ volatile("" ::"r"(dst) : "memory");
    if (extra)
        memcpy(dst, src, n);
}

/* A plain static counter: memfbench calls a variant from one thread at a time (a thread-local
 * one would cost a __tls_get_addr call in a shared object). */
#define COUNTING_MEMCPY(name, period, extra)                                                       \
    void *name(void *restrict dst, const void *restrict src, size_t n)                             \
    {                                                                                              \
        static unsigned calls;                                                                     \
        void *r = memcpy(dst, src, n);                                                             \
        if (++calls == (period)) {                                                                 \
            calls = 0;                                                                             \
            every_period(dst, src, n, extra);                                                      \
        }                                                                                          \
        return r;                                                                                  \
    }

COUNTING_MEMCPY(slow1pct_memcpy, 25, 1)
COUNTING_MEMCPY(twice_memcpy, 1, 1)
COUNTING_MEMCPY(wrapped_memcpy, 25, 0)
