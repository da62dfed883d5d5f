/* AArch64 Advanced SIMD memcpy and memmove. Up to 128 bytes: no loop, every load before the first
 * store (asimd.h), so memmove needs no direction test there. Above: the far end's 64 bytes and the
 * first 16 are loaded first and stored last, and 64-byte blocks of ldp/stp q pairs run between,
 * their stores aligned to 16 bytes (a store that crosses a 64-byte line costs two on Neoverse
 * cores; misaligned loads cost little). memmove copies backwards, mirrored, when the destination
 * starts inside the source. */
#if defined(__aarch64__)
#include "impl/asimd.h"
#include "impl/impl.h"

/* n > 128: forward. Each block is loaded before it is stored, and a store never reaches a source
 * byte not yet loaded when dst < src, so this is also memmove's forward path. */
static inline void mfb_asimd_forward(unsigned char *d, const unsigned char *s, size_t n)
{
    uint8x16_t h = vld1q_u8(s), y0, y1, z0, z1;
    mfb_asimd_ldp(s + n - 64, &y0, &y1);
    mfb_asimd_ldp(s + n - 32, &z0, &z1);
    size_t skew = 16 - ((uintptr_t)d & 15); /* 1..16: the first aligned destination byte */
    unsigned char *p = d + skew, *last = d + n - 64;
    const unsigned char *q = s + skew;
    for (; p < last; p += 64, q += 64) {
        uint8x16_t a0, a1, b0, b1;
        mfb_asimd_ldp(q, &a0, &a1);
        mfb_asimd_ldp(q + 32, &b0, &b1);
        mfb_asimd_stp(p, a0, a1);
        mfb_asimd_stp(p + 32, b0, b1);
    }
    vst1q_u8(d, h);
    mfb_asimd_stp(d + n - 64, y0, y1);
    mfb_asimd_stp(d + n - 32, z0, z1);
}

/* n > 128, destination inside the source: the mirror image, from the end down. */
static inline void mfb_asimd_backward(unsigned char *d, const unsigned char *s, size_t n)
{
    uint8x16_t t = vld1q_u8(s + n - 16), a0, a1, b0, b1;
    mfb_asimd_ldp(s, &a0, &a1);
    mfb_asimd_ldp(s + 32, &b0, &b1);
    size_t skew = ((uintptr_t)(d + n) & 15) ? ((uintptr_t)(d + n) & 15) : 16;
    unsigned char *p = d + n - skew;
    const unsigned char *q = s + n - skew;
    while (p > d + 64) {
        p -= 64;
        q -= 64;
        uint8x16_t x0, x1, y0, y1;
        mfb_asimd_ldp(q, &x0, &x1);
        mfb_asimd_ldp(q + 32, &y0, &y1);
        mfb_asimd_stp(p, x0, x1);
        mfb_asimd_stp(p + 32, y0, y1);
    }
    vst1q_u8(d + n - 16, t);
    mfb_asimd_stp(d, a0, a1);
    mfb_asimd_stp(d + 32, b0, b1);
}

void *mfb_memcpy_asimd(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 16)
        mfb_copy_under16(d, s, n);
    else if (n <= 128)
        mfb_asimd_copy_16_128(d, s, n);
    else
        mfb_asimd_forward(d, s, n);
    return dst;
}

void *mfb_memmove_asimd(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 16)
        mfb_copy_under16(d, s, n);
    else if (n <= 128)
        mfb_asimd_copy_16_128(d, s, n);
    else if ((uintptr_t)d - (uintptr_t)s >= n) /* d before s, or past its end: forward is safe */
        mfb_asimd_forward(d, s, n);
    else
        mfb_asimd_backward(d, s, n);
    return dst;
}
#endif
