/* memfbench tune's generated memset family (issue 55; docs/user-guide.md, "Racing a family"): the
 * memcpy family's four choices (families/memcpy.c) for a store-only function, each candidate a
 * setting of the macros below built like any source variant:
 *
 *   SMALL_MAX  16..256  sizes up to here are served by a branch per power-of-two size class, each a
 *                       pair of overlapping stores (head and tail) with no loop
 *   BLOCK      16,32,64 the loop's step for larger sizes, as fixed-size stores of a block filled
 *                       once, which the compiler turns into vector stores
 *   ALIGN      0,1      1: the loop's stores start at a BLOCK-aligned destination (the head stored
 *                       unaligned first)
 *   REP_FROM   0,N      from N bytes on (0: never) the fill is `rep stosb` on x86-64; on other
 *                       targets the C library's memset takes over there
 *
 * memfbench tune writes the winner as this file with its four #defines first. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef SMALL_MAX
#define SMALL_MAX 64
#endif
#ifndef BLOCK
#define BLOCK 32
#endif
#ifndef ALIGN
#define ALIGN 0
#endif
#ifndef REP_FROM
#define REP_FROM 0
#endif
_Static_assert(BLOCK == 16 || BLOCK == 32 || BLOCK == 64, "BLOCK is 16, 32 or 64 bytes");
_Static_assert(SMALL_MAX >= 16 && SMALL_MAX <= 256, "SMALL_MAX is 16 to 256 bytes");
_Static_assert(ALIGN == 0 || ALIGN == 1, "ALIGN is 0 or 1");
_Static_assert(REP_FROM >= 0, "REP_FROM is 0 (never) or a size in bytes");

/* 16 bytes of the value: a vector the compiler keeps in one register (SSE on x86-64, NEON on
 * AArch64); aligned(1) so that a store through it may be anywhere. */
typedef unsigned char v16 __attribute__((vector_size(16), aligned(1)));

/* k bytes of the value at d: one scalar store below 16 bytes, k / 16 vector stores from 16 on (k
 * a constant at every use, so the loop is unrolled). */
static inline void put(unsigned char *d, v16 x, uint64_t v, size_t k)
{
    if (k < 16) {
        __builtin_memcpy(d, &v, k);
        return;
    }
    for (size_t i = 0; i < k; i += 16)
        __builtin_memcpy(d + i, &x, 16);
}

/* n in [k, 2k]: two overlapping stores of k bytes. */
#define HEAD_TAIL(d, x, v, n, k)                                                                         \
    do {                                                                                                 \
        put((d), (x), (v), (k));                                                                         \
        put((d) + (n) - (k), (x), (v), (k));                                                             \
    } while (0)

/* The size classes: n <= 2 * 128, the largest class a SMALL_MAX of 256 asks for. */
static inline void small_set(unsigned char *d, v16 x, uint64_t v, size_t n)
{
    if (n <= 16) {
        if (n >= 8)
            HEAD_TAIL(d, x, v, n, 8);
        else if (n >= 4)
            HEAD_TAIL(d, x, v, n, 4);
        else if (n >= 2)
            HEAD_TAIL(d, x, v, n, 2);
        else if (n == 1)
            *d = (unsigned char)v;
    } else if (n <= 32) {
        HEAD_TAIL(d, x, v, n, 16);
    } else if (n <= 64) {
        HEAD_TAIL(d, x, v, n, 32);
    } else if (n <= 128) {
        HEAD_TAIL(d, x, v, n, 64);
    } else {
        HEAD_TAIL(d, x, v, n, 128);
    }
}

/* n >= BLOCK: BLOCK bytes a step, the last block stored at the end (it may overlap the one before).
 * The empty asm keeps the compiler from turning the loop back into a call of memset (GCC's loop
 * distribution recognises a loop of stores of one value), which would time the C library's. */
static inline void loop_set(unsigned char *d, v16 x, uint64_t v, size_t n)
{
    size_t at = 0;
#if ALIGN
    if (n >= 2 * BLOCK) { /* the head unaligned, then every store from a BLOCK boundary of d */
        put(d, x, v, BLOCK);
        at = BLOCK - ((uintptr_t)d & (BLOCK - 1));
    }
#endif
    for (; at + BLOCK < n; at += BLOCK) {
        put(d + at, x, v, BLOCK);
        __asm__ volatile("" : : "r"(d + at) : "memory");
    }
    put(d + n - BLOCK, x, v, BLOCK);
}

void *family_memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
#if REP_FROM > 0
    if (n >= REP_FROM) {
#if defined(__x86_64__)
        __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
        return dst;
#else
        return memset(dst, c, n);
#endif
    }
#endif
    uint64_t v = 0x0101010101010101ull * (unsigned char)c;
    v16 x = (v16){0} + (unsigned char)c; /* the byte in every lane */
    if (n <= SMALL_MAX || n < BLOCK)
        small_set(d, x, v, n);
    else
        loop_set(d, x, v, n);
    return dst;
}
