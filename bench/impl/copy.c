/* Portable memcpy/memmove built-ins.
 * sizeclass: the overlapping head/tail design (llvm-libc, automemcpy): a size in [k, 2k)
 * is covered by one k-byte access at the start and one at the end, which may overlap, so
 * every size below 64 costs two loads and two stores and at most a few well-predicted branches.
 * Fixed-size __builtin_memcpy compiles to single unaligned loads/stores. */
#include <stdint.h>
#include <string.h>

#include "impl/impl.h"

void *mfb_memcpy_bytes(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
    return dst;
}

#define BLOCK 32
typedef struct {
    unsigned char b[BLOCK];
} block_t;

/* Copies n in [k, 2k) as head + tail; loads both before storing, so it is overlap-safe. */
#define HEAD_TAIL(T, d, s, n)                                                                      \
    do {                                                                                           \
        T h_, t_;                                                                                  \
        __builtin_memcpy(&h_, (s), sizeof(T));                                                     \
        __builtin_memcpy(&t_, (const unsigned char *)(s) + (n) - sizeof(T), sizeof(T));            \
        __builtin_memcpy((d), &h_, sizeof(T));                                                     \
        __builtin_memcpy((unsigned char *)(d) + (n) - sizeof(T), &t_, sizeof(T));                  \
    } while (0)

typedef struct {
    uint64_t a, b;
} u128_t;

/* Sizes 0..64, overlap-safe. Returns 1 when it handled n. */
static inline int copy_small(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n <= 16) {
        if (n >= 8)
            HEAD_TAIL(uint64_t, d, s, n);
        else if (n >= 4)
            HEAD_TAIL(uint32_t, d, s, n);
        else if (n >= 2)
            HEAD_TAIL(uint16_t, d, s, n);
        else if (n == 1)
            *d = *s;
        return 1;
    }
    if (n <= 32) {
        HEAD_TAIL(u128_t, d, s, n);
        return 1;
    }
    if (n <= 64) {
        HEAD_TAIL(block_t, d, s, n);
        return 1;
    }
    return 0;
}

void *mfb_memcpy_sizeclass(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (copy_small(d, s, n))
        return dst;
    /* Blocks of 32, then one overlapping 32-byte tail. */
    block_t tail;
    __builtin_memcpy(&tail, s + n - BLOCK, BLOCK);
    for (size_t i = 0; i + BLOCK < n; i += BLOCK) {
        block_t b;
        __builtin_memcpy(&b, s + i, BLOCK);
        __builtin_memcpy(d + i, &b, BLOCK);
    }
    __builtin_memcpy(d + n - BLOCK, &tail, BLOCK);
    return dst;
}

void *mfb_memmove_bytes(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if ((uintptr_t)d - (uintptr_t)s >= n) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        for (size_t i = n; i > 0; i--)
            d[i - 1] = s[i - 1];
    }
    return dst;
}

void *mfb_memmove_sizeclass(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (copy_small(d, s, n))
        return dst;
    block_t b;
    if ((uintptr_t)d - (uintptr_t)s >= n) {
        /* Destination not ahead of the source within n (or before it): copy forward. Each block
         * is loaded before it is stored and stores stay below the next block's source, and the
         * tail was loaded first. */
        block_t tail;
        __builtin_memcpy(&tail, s + n - BLOCK, BLOCK);
        for (size_t i = 0; i + BLOCK < n; i += BLOCK) {
            __builtin_memcpy(&b, s + i, BLOCK);
            __builtin_memcpy(d + i, &b, BLOCK);
        }
        __builtin_memcpy(d + n - BLOCK, &tail, BLOCK);
    } else {
        /* Destination inside the source, ahead of it: the mirror image, from the end. */
        block_t head;
        __builtin_memcpy(&head, s, BLOCK);
        for (size_t i = n; i > BLOCK; i -= BLOCK) {
            __builtin_memcpy(&b, s + i - BLOCK, BLOCK);
            __builtin_memcpy(d + i - BLOCK, &b, BLOCK);
        }
        __builtin_memcpy(d, &head, BLOCK);
    }
    return dst;
}
