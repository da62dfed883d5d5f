/* A size-class memcpy in plain C, for --pgo (docs/methodology.md, "PGO friendliness"): its classes
 * are tested from the largest down, the order a programmer writes when thinking of bandwidth, so
 * that the small calls that dominate a production distribution walk the whole chain of tests. A
 * profile tells the compiler which tests mostly fail, and it can lay the hot classes out on the
 * fall-through path and the rare ones out of line; without one it guesses.
 *
 *   memfbench run --pgo -v examples/source/memcpy_sizeclass.c:sizeclass_memcpy=sizeclass -o pgo.json
 *   memfbench analyze pgo pgo.json
 *
 * Each class copies with two overlapping fixed-size moves (head and tail), which the compiler turns
 * into loads and stores; copies of 256 bytes and more go to the C library's memcpy. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Fixed-size moves: a constant length lets the compiler use plain loads and stores. */
#define MOVE(d, s, k) __builtin_memcpy((d), (s), (k))

void *sizeclass_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= 256)
        return memcpy(dst, src, n);
    if (n >= 128) { /* [128, 256) */
        uint64_t w[16], t[16];
        MOVE(w, s, 128);
        MOVE(t, s + n - 128, 128);
        MOVE(d, w, 128);
        MOVE(d + n - 128, t, 128);
        return dst;
    }
    if (n >= 64) { /* [64, 128) */
        uint64_t w[8], t[8];
        MOVE(w, s, 64);
        MOVE(t, s + n - 64, 64);
        MOVE(d, w, 64);
        MOVE(d + n - 64, t, 64);
        return dst;
    }
    if (n >= 32) { /* [32, 64) */
        uint64_t w[4], t[4];
        MOVE(w, s, 32);
        MOVE(t, s + n - 32, 32);
        MOVE(d, w, 32);
        MOVE(d + n - 32, t, 32);
        return dst;
    }
    if (n >= 16) { /* [16, 32) */
        uint64_t w[2], t[2];
        MOVE(w, s, 16);
        MOVE(t, s + n - 16, 16);
        MOVE(d, w, 16);
        MOVE(d + n - 16, t, 16);
        return dst;
    }
    if (n >= 8) { /* [8, 16) */
        uint64_t a, b;
        MOVE(&a, s, 8);
        MOVE(&b, s + n - 8, 8);
        MOVE(d, &a, 8);
        MOVE(d + n - 8, &b, 8);
        return dst;
    }
    if (n >= 4) { /* [4, 8) */
        uint32_t a, b;
        MOVE(&a, s, 4);
        MOVE(&b, s + n - 4, 4);
        MOVE(d, &a, 4);
        MOVE(d + n - 4, &b, 4);
        return dst;
    }
    if (n >= 2) { /* [2, 4) */
        uint16_t a, b;
        MOVE(&a, s, 2);
        MOVE(&b, s + n - 2, 2);
        MOVE(d, &a, 2);
        MOVE(d + n - 2, &b, 2);
        return dst;
    }
    if (n == 1)
        *d = *s;
    return dst;
}
