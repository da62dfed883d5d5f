/* AArch64 Advanced SIMD memcmp: 32 bytes a step (two ldp q pairs, the XORs ORed, one umaxv to ask
 * whether any byte differs), then the last 16 bytes, overlapping what was already found equal.
 * The first differing byte comes from the cmeq mask's lowest clear byte (little-endian lanes).
 * Under 16 bytes: the ends as big-endian words, whose unsigned order is the bytes' order. */
#if defined(__aarch64__)
#include "impl/asimd.h"
#include "impl/impl.h"

/* The difference of the first differing bytes of two 16-byte blocks known to differ. */
static inline int mfb_asimd_first_diff(const unsigned char *a, const unsigned char *b, uint8x16_t va, uint8x16_t vb)
{
    uint64x2_t eq = vreinterpretq_u64_u8(vceqq_u8(va, vb));
    uint64_t lo = ~vgetq_lane_u64(eq, 0), hi = ~vgetq_lane_u64(eq, 1);
    unsigned k = lo ? (unsigned)__builtin_ctzll(lo) / 8 : 8 + (unsigned)__builtin_ctzll(hi) / 8;
    return (int)a[k] - (int)b[k];
}

static inline int mfb_asimd_cmp_word(uint64_t x, uint64_t y)
{
    x = __builtin_bswap64(x);
    y = __builtin_bswap64(y);
    return x == y ? 0 : x > y ? 1 : -1;
}

static inline int mfb_asimd_cmp_under16(const unsigned char *a, const unsigned char *b, size_t n)
{
    uint64_t x = 0, y = 0;
    if (n >= 8) {
        __builtin_memcpy(&x, a, 8);
        __builtin_memcpy(&y, b, 8);
        if (x != y)
            return mfb_asimd_cmp_word(x, y);
        __builtin_memcpy(&x, a + n - 8, 8);
        __builtin_memcpy(&y, b + n - 8, 8);
        return mfb_asimd_cmp_word(x, y);
    }
    if (n >= 4) {
        uint32_t u, w;
        __builtin_memcpy(&u, a, 4);
        __builtin_memcpy(&w, b, 4);
        if (u == w) {
            __builtin_memcpy(&u, a + n - 4, 4);
            __builtin_memcpy(&w, b + n - 4, 4);
        }
        u = __builtin_bswap32(u);
        w = __builtin_bswap32(w);
        return u == w ? 0 : u > w ? 1 : -1;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (int)a[i] - (int)b[i];
    return 0;
}

int mfb_memcmp_asimd(const void *pa, const void *pb, size_t n)
{
    const unsigned char *a = pa, *b = pb;
    if (n < 16)
        return mfb_asimd_cmp_under16(a, b, n);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        uint8x16_t a0, a1, b0, b1;
        mfb_asimd_ldp(a + i, &a0, &a1);
        mfb_asimd_ldp(b + i, &b0, &b1);
        if (vmaxvq_u8(vorrq_u8(veorq_u8(a0, b0), veorq_u8(a1, b1))))
            return vmaxvq_u8(veorq_u8(a0, b0)) ? mfb_asimd_first_diff(a + i, b + i, a0, b0)
                                               : mfb_asimd_first_diff(a + i + 16, b + i + 16, a1, b1);
    }
    if (n - i > 16) {
        uint8x16_t x = vld1q_u8(a + i), y = vld1q_u8(b + i);
        if (vmaxvq_u8(veorq_u8(x, y)))
            return mfb_asimd_first_diff(a + i, b + i, x, y);
        i += 16;
    }
    if (i < n) {
        uint8x16_t x = vld1q_u8(a + n - 16), y = vld1q_u8(b + n - 16);
        if (vmaxvq_u8(veorq_u8(x, y)))
            return mfb_asimd_first_diff(a + n - 16, b + n - 16, x, y);
    }
    return 0;
}
#endif
