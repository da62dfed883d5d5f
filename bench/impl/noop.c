/* Harness-overhead probes: the signature of each function, no work. Timed through the same loop
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
