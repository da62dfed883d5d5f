/* A memcpy with two tunable choices, for --param (docs/user-guide.md, "A family of builds"):
 *
 *   memfbench run -v libc -v examples/source/memcpy_blocks.c:blocks_memcpy=blocks \
 *       --param BLOCK=16,32,64 --param LIBC_FROM=256,4096 -o family.json
 *
 * times six builds, blocks[BLOCK=16,LIBC_FROM=256] to blocks[BLOCK=64,LIBC_FROM=4096], each verified
 * and placed like any source variant. BLOCK is the bytes the main loop moves per step (one, two or
 * four 16-byte vectors' worth, as fixed-size moves the compiler turns into loads and stores);
 * LIBC_FROM is where the C library's memcpy takes over (its large-copy paths: rep movsb, non-temporal
 * stores). Below BLOCK bytes, the head-and-tail moves of the size class cover a copy whole. */
#include <stddef.h>
#include <string.h>

#ifndef BLOCK
#define BLOCK 32
#endif
#ifndef LIBC_FROM
#define LIBC_FROM 1024
#endif
_Static_assert(BLOCK == 16 || BLOCK == 32 || BLOCK == 64, "BLOCK is 16, 32 or 64 bytes");

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

void *blocks_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= LIBC_FROM)
        return memcpy(dst, src, n);
    if (n <= 16) {
        if (n >= 8)
            HEAD_TAIL(d, s, n, 8);
        else if (n >= 4)
            HEAD_TAIL(d, s, n, 4);
        else if (n >= 2)
            HEAD_TAIL(d, s, n, 2);
        else if (n == 1)
            *d = *s;
        return dst;
    }
    if (n <= 2 * BLOCK) { /* (16, 2 BLOCK]: head and tail of the largest class that fits */
        if (n <= 32)
            HEAD_TAIL(d, s, n, 16);
        else if (n <= 64)
            HEAD_TAIL(d, s, n, 32);
        else /* BLOCK 64 alone reaches here: n in (64, 128] */
            HEAD_TAIL(d, s, n, 64);
        return dst;
    }
    /* the loop: BLOCK bytes a step, the last block moved from the end (it may overlap the one before) */
    unsigned char last[BLOCK];
    MOVE(last, s + n - BLOCK, BLOCK);
    for (size_t at = 0; at + BLOCK < n; at += BLOCK)
        MOVE(d + at, s + at, BLOCK);
    MOVE(d + n - BLOCK, last, BLOCK);
    return dst;
}
