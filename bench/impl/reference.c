/* Reference implementations: one obvious loop each. memmove's also serves memcpy (it is
 * correct for every non-overlapping call). The recorder and the ab shim compile this file in as
 * their fallbacks (record/meson.build), with -fno-builtin: these loops must stay loops, never
 * calls to the functions those libraries interpose. */
#include "impl/impl.h"

void *mfb_ref_memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s)
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    else
        for (size_t i = n; i > 0; i--)
            d[i - 1] = s[i - 1];
    return dst;
}

void *mfb_ref_memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    for (size_t i = 0; i < n; i++)
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
