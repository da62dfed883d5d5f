/* memfbench tune's generated memcpy family (issue 55; docs/user-guide.md, "Racing a family"):
 * one source, four choices in the spirit of automemcpy (Chatelet et al., ISMM 2021), each candidate
 * a setting of the macros below built like any source variant (-DSMALL_MAX=64 -DBLOCK=32 ...):
 *
 *   SMALL_MAX  16..256  sizes up to here are served by a branch per power-of-two size class, each a
 *                       pair of overlapping moves (head and tail) with no loop
 *   BLOCK      16,32,64 the loop's step for larger sizes: one, two or four 16-byte vectors' worth,
 *                       as fixed-size moves the compiler turns into loads and stores
 *   ALIGN      0,1      1: the loop's stores start at a BLOCK-aligned destination (the head moved
 *                       unaligned first), so no store splits a cache line when BLOCK is 64
 *   REP_FROM   0,N      from N bytes on (0: never) the copy is `rep movsb` on x86-64, whose
 *                       microcode copies whole lines on ERMS/FSRM parts; on other targets the C
 *                       library's memcpy takes over there (its own large-copy paths)
 *
 * The file is written so that a candidate is the whole implementation: memfbench tune writes the
 * winner as this file with its four #defines first, to build into a library as it is. */
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

#define MOVE(d, s, k) __builtin_memcpy((d), (s), (k))

/* n in [k, 2k]: two overlapping moves of k bytes, both loaded before either is stored. */
#define HEAD_TAIL(d, s, n, k)                                                                            \
    do {                                                                                                 \
        unsigned char h_[k], t_[k];                                                                      \
        MOVE(h_, (s), (k));                                                                              \
        MOVE(t_, (s) + (n) - (k), (k));                                                                  \
        MOVE((d), h_, (k));                                                                              \
        MOVE((d) + (n) - (k), t_, (k));                                                                  \
    } while (0)

/* The size classes: n <= 2 * 128, the largest class a SMALL_MAX of 256 asks for. */
static inline void small_copy(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n <= 16) {
        if (n >= 8)
            HEAD_TAIL(d, s, n, 8);
        else if (n >= 4)
            HEAD_TAIL(d, s, n, 4);
        else if (n >= 2)
            HEAD_TAIL(d, s, n, 2);
        else if (n == 1)
            *d = *s;
    } else if (n <= 32) {
        HEAD_TAIL(d, s, n, 16);
    } else if (n <= 64) {
        HEAD_TAIL(d, s, n, 32);
    } else if (n <= 128) {
        HEAD_TAIL(d, s, n, 64);
    } else {
        HEAD_TAIL(d, s, n, 128);
    }
}

/* n >= BLOCK: BLOCK bytes a step, the last block moved from the end (it may overlap the one before). */
static inline void loop_copy(unsigned char *d, const unsigned char *s, size_t n)
{
    unsigned char last[BLOCK];
    MOVE(last, s + n - BLOCK, BLOCK);
    size_t at = 0;
#if ALIGN
    if (n >= 2 * BLOCK) { /* the head unaligned, then every store from a BLOCK boundary of d */
        MOVE(d, s, BLOCK);
        at = BLOCK - ((uintptr_t)d & (BLOCK - 1));
    }
#endif
    for (; at + BLOCK < n; at += BLOCK)
        MOVE(d + at, s + at, BLOCK);
    MOVE(d + n - BLOCK, last, BLOCK);
}

void *family_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    /* a size class of its own up to SMALL_MAX, and below the loop's first whole block */
    if (n <= SMALL_MAX || n < BLOCK) {
        small_copy(d, s, n);
        return dst;
    }
#if REP_FROM > 0
    if (n >= REP_FROM) {
#if defined(__x86_64__)
        __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
        return dst;
#else
        return memcpy(dst, src, n);
#endif
    }
#endif
    loop_copy(d, s, n);
    return dst;
}
