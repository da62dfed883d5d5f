/* Copies below 16 bytes, as the vector built-ins of every architecture do them (x86.c's SSE2 and
 * AVX2, asimd.h's Advanced SIMD): two overlapping scalar moves of the largest power of two that
 * fits, head and tail. Both loads come before both stores, so the same code serves memmove. */
#ifndef MFB_COPY_SMALL_H
#define MFB_COPY_SMALL_H

#include <stddef.h>
#include <stdint.h>

static inline void mfb_copy_under16(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n >= 8) {
        uint64_t a, b;
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + n - 8, 8);
        __builtin_memcpy(d, &a, 8);
        __builtin_memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        __builtin_memcpy(&a, s, 4);
        __builtin_memcpy(&b, s + n - 4, 4);
        __builtin_memcpy(d, &a, 4);
        __builtin_memcpy(d + n - 4, &b, 4);
    } else if (n >= 2) {
        uint16_t a, b;
        __builtin_memcpy(&a, s, 2);
        __builtin_memcpy(&b, s + n - 2, 2);
        __builtin_memcpy(d, &a, 2);
        __builtin_memcpy(d + n - 2, &b, 2);
    } else if (n == 1) {
        *d = *s;
    }
}

#endif
