/* Reference implementations: one obvious loop each. memmove's also serves memcpy (it is
 * correct for every non-overlapping call). The recorder and the ab shim compile this file in as
 * their fallbacks (record/meson.build), with -fno-builtin: these loops must stay loops, never
 * calls to the functions those libraries interpose.
 *
 * memmove and memset go a word at a time, then byte by byte for what is left: byte by byte, the
 * reference copy of every checked call was a fifth of the first process of a default study
 * (perf, Intel VM family 6 model 167), where every variant's every call shape is checked against
 * it. A word is read whole before it is written, and words run in the direction that reads each
 * source byte before any write reaches it, so overlapping calls are copied as the byte loops
 * copy them (tests/c/test_variants.c checks both against a byte loop at every short distance). */
#include <stdint.h>

#include "impl/impl.h"

/* A word at any address that may alias anything: plain loads and stores, never a library call,
 * with or without -fno-builtin. */
typedef uint64_t __attribute__((may_alias, aligned(1))) ref_word;
#define WORD sizeof(ref_word)

void *mfb_ref_memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t i = 0;
    if (d < s) {
        for (; n - i >= WORD; i += WORD) {
            ref_word w = *(const ref_word *)(const void *)(s + i);
            *(ref_word *)(void *)(d + i) = w;
        }
        for (; i < n; i++)
            d[i] = s[i];
    } else {
        for (i = n; i >= WORD; i -= WORD) {
            ref_word w = *(const ref_word *)(const void *)(s + i - WORD);
            *(ref_word *)(void *)(d + i - WORD) = w;
        }
        for (; i > 0; i--)
            d[i - 1] = s[i - 1];
    }
    return dst;
}

void *mfb_ref_memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    ref_word w = 0x0101010101010101ull * (unsigned char)c;
    size_t i = 0;
    for (; n - i >= WORD; i += WORD)
        *(ref_word *)(void *)(d + i) = w;
    for (; i < n; i++)
        d[i] = (unsigned char)c;
    return dst;
}

int mfb_ref_memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}
