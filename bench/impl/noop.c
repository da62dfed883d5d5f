/* Harness probes. The noops: the signature of each function, no work. Timed through the same loop
 * as every variant, they measure what the loop itself costs per call. Not duplicated in copies.c:
 * an A/A copy of "nothing" measures nothing. */
#include "impl/impl.h"

void *mfb_copy_noop(void *dst, const void *src, size_t n)
{
    (void)src;
    (void)n;
    return dst;
}

void *mfb_set_noop(void *dst, int c, size_t n)
{
    (void)c;
    (void)n;
    return dst;
}

int mfb_cmp_noop(const void *a, const void *b, size_t n)
{
    (void)a;
    (void)b;
    (void)n;
    return 0;
}

/* Store-forwarding probes for the compare harness: each does one load at the start of the
 * right-hand buffer, the byte the harness flips when a call's first difference is at position 0,
 * and otherwise the same instructions (a vector mask of the loaded bytes). A load that reads a
 * byte still in the store buffer is forwarded from the store only if the store covers it: a
 * 1-byte load of a 1-byte store forwards, a 32-byte load over it waits until the store reaches L1
 * (about a dozen cycles on recent x86 cores). Timed against each other on a distribution whose
 * calls all differ at byte 0 (distributions/probe/), the two cost the same unless the harness
 * stores to the compared buffer too close before the call. Calls shorter than 32 bytes load
 * nothing: the wide load would read past the buffer. */
#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2"))) int mfb_cmp_load1(const void *a, const void *b, size_t n)
{
    (void)a;
    if (n < 32)
        return 0;
    return _mm256_movemask_epi8(_mm256_set1_epi8(*(const char *)b));
}

__attribute__((target("avx2"))) int mfb_cmp_load32(const void *a, const void *b, size_t n)
{
    (void)a;
    if (n < 32)
        return 0;
    return _mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)b));
}
#endif
