/* Portable memcmp/bcmp built-ins. memcmp "words" compares 8 bytes at a time and, at the first
 * differing word, byte-swaps both so an integer comparison orders them as memcmp does.
 * bcmp "sizeclass" only needs equal/unequal: OR of XORs of head and tail words, no ordering. */
#include <stdint.h>

#include "impl/impl.h"

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    return v;
}

static inline uint64_t be64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

int mfb_memcmp_bytes(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return (int)x[i] - (int)y[i];
    return 0;
}

int mfb_memcmp_words(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t u = load64(x + i), v = load64(y + i);
        if (u != v)
            return be64(u) < be64(v) ? -1 : 1;
    }
    for (; i < n; i++)
        if (x[i] != y[i])
            return (int)x[i] - (int)y[i];
    return 0;
}

int mfb_bcmp_bytes(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return 1;
    return 0;
}

int mfb_bcmp_sizeclass(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    if (n < 8) {
        if (n >= 4) {
            uint32_t p, q, r, s;
            __builtin_memcpy(&p, x, 4);
            __builtin_memcpy(&q, y, 4);
            __builtin_memcpy(&r, x + n - 4, 4);
            __builtin_memcpy(&s, y + n - 4, 4);
            return ((p ^ q) | (r ^ s)) != 0;
        }
        unsigned diff = 0;
        for (size_t i = 0; i < n; i++)
            diff |= x[i] ^ y[i];
        return diff != 0;
    }
    if (n <= 16)
        return ((load64(x) ^ load64(y)) | (load64(x + n - 8) ^ load64(y + n - 8))) != 0;
    uint64_t diff = 0;
    for (size_t i = 0; i + 16 < n; i += 16) {
        diff |= (load64(x + i) ^ load64(y + i)) | (load64(x + i + 8) ^ load64(y + i + 8));
        if (diff)
            return 1;
    }
    diff |= (load64(x + n - 16) ^ load64(y + n - 16)) | (load64(x + n - 8) ^ load64(y + n - 8));
    return diff != 0;
}
