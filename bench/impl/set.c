/* Portable memset built-ins. sizeclass: head/tail stores of a broadcast value, then 32-byte
 * blocks with an overlapping tail, as in copy.c. */
#include <stdint.h>

#include "impl/impl.h"

void *mfb_memset_bytes(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)c;
    return dst;
}

#define STORE(T, p, v) __builtin_memcpy((p), &(T){(T)(v)}, sizeof(T))

void *mfb_memset_sizeclass(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    uint64_t v = 0x0101010101010101ull * (unsigned char)c;
    if (n < 4) {
        if (n >= 2) {
            STORE(uint16_t, d, v);
            STORE(uint16_t, d + n - 2, v);
        } else if (n == 1) {
            *d = (unsigned char)c;
        }
        return dst;
    }
    if (n < 8) {
        STORE(uint32_t, d, v);
        STORE(uint32_t, d + n - 4, v);
        return dst;
    }
    if (n <= 16) {
        STORE(uint64_t, d, v);
        STORE(uint64_t, d + n - 8, v);
        return dst;
    }
    if (n <= 32) {
        STORE(uint64_t, d, v);
        STORE(uint64_t, d + 8, v);
        STORE(uint64_t, d + n - 16, v);
        STORE(uint64_t, d + n - 8, v);
        return dst;
    }
    for (size_t i = 0; i + 32 < n; i += 32) {
        STORE(uint64_t, d + i, v);
        STORE(uint64_t, d + i + 8, v);
        STORE(uint64_t, d + i + 16, v);
        STORE(uint64_t, d + i + 24, v);
    }
    STORE(uint64_t, d + n - 32, v);
    STORE(uint64_t, d + n - 24, v);
    STORE(uint64_t, d + n - 16, v);
    STORE(uint64_t, d + n - 8, v);
    return dst;
}
