/* Advanced SIMD building blocks the AArch64 built-ins share (memcpy_asimd.c, memset_asimd.c,
 * memset_zva.c, memcmp_asimd.c). Included once into each file that compiles them (the include
 * guard keeps one copy where placed.c and copies.c include several of those files together).
 *
 * The pair loads and stores are written as ldp/stp of q registers on purpose: one instruction
 * moves 32 bytes through the load/store pipes (Neoverse cores issue a q-register pair as one op
 * where it is 16-byte aligned or does not cross a 64-byte line), and a compiler is free to split
 * two vld1q_u8 into two ldr q. The scalar head/tail moves below 16 bytes are one 8-, 4- or 2-byte
 * access at each end, overlapping in the middle: no loop, two branches at most. */
#ifndef MFB_IMPL_ASIMD_H
#define MFB_IMPL_ASIMD_H
#if defined(__aarch64__)

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#include "impl/copy_small.h"

static inline void mfb_asimd_ldp(const unsigned char *p, uint8x16_t *a, uint8x16_t *b)
{
    __asm__("ldp %q0, %q1, [%2]" : "=w"(*a), "=w"(*b) : "r"(p), "m"(*(const unsigned char(*)[32])p));
}

static inline void mfb_asimd_stp(unsigned char *p, uint8x16_t a, uint8x16_t b)
{
    __asm__("stp %q1, %q2, [%3]" : "=m"(*(unsigned char(*)[32])p) : "w"(a), "w"(b), "r"(p));
}

/* 16 to 128 bytes, no loop: 16-byte head and tail, or 32-byte pairs from both ends, every load
 * before the first store (overlap-safe). */
static inline void mfb_asimd_copy_16_128(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n <= 32) {
        uint8x16_t a = vld1q_u8(s), z = vld1q_u8(s + n - 16);
        vst1q_u8(d, a);
        vst1q_u8(d + n - 16, z);
    } else if (n <= 64) {
        uint8x16_t a0, a1, z0, z1;
        mfb_asimd_ldp(s, &a0, &a1);
        mfb_asimd_ldp(s + n - 32, &z0, &z1);
        mfb_asimd_stp(d, a0, a1);
        mfb_asimd_stp(d + n - 32, z0, z1);
    } else {
        uint8x16_t a0, a1, b0, b1, y0, y1, z0, z1;
        mfb_asimd_ldp(s, &a0, &a1);
        mfb_asimd_ldp(s + 32, &b0, &b1);
        mfb_asimd_ldp(s + n - 64, &y0, &y1);
        mfb_asimd_ldp(s + n - 32, &z0, &z1);
        mfb_asimd_stp(d, a0, a1);
        mfb_asimd_stp(d + 32, b0, b1);
        mfb_asimd_stp(d + n - 64, y0, y1);
        mfb_asimd_stp(d + n - 32, z0, z1);
    }
}

/* memset below 16 bytes: the byte broadcast into a word, stored at both ends. */
static inline void mfb_asimd_set_under16(unsigned char *d, unsigned char c, size_t n)
{
    uint64_t w = 0x0101010101010101ull * c;
    if (n >= 8) {
        __builtin_memcpy(d, &w, 8);
        __builtin_memcpy(d + n - 8, &w, 8);
    } else if (n >= 4) {
        uint32_t h = (uint32_t)w;
        __builtin_memcpy(d, &h, 4);
        __builtin_memcpy(d + n - 4, &h, 4);
    } else if (n) {
        d[0] = c;
        d[n / 2] = c;
        d[n - 1] = c;
    }
}

/* memset of any size with v = the byte broadcast: up to 128 bytes stores from both ends; above,
 * 32 bytes at the start, then 64-byte blocks from the next 16-byte boundary (aligned stores
 * never split a line), then the last 64 bytes, overlapping the last block. */
static inline void mfb_asimd_set(unsigned char *d, uint8x16_t v, size_t n)
{
    if (n < 16) {
        mfb_asimd_set_under16(d, vgetq_lane_u8(v, 0), n);
    } else if (n <= 32) {
        vst1q_u8(d, v);
        vst1q_u8(d + n - 16, v);
    } else if (n <= 64) {
        mfb_asimd_stp(d, v, v);
        mfb_asimd_stp(d + n - 32, v, v);
    } else if (n <= 128) {
        mfb_asimd_stp(d, v, v);
        mfb_asimd_stp(d + 32, v, v);
        mfb_asimd_stp(d + n - 64, v, v);
        mfb_asimd_stp(d + n - 32, v, v);
    } else {
        unsigned char *end = d + n;
        mfb_asimd_stp(d, v, v);
        unsigned char *p = (unsigned char *)(((uintptr_t)d + 32) & ~(uintptr_t)15);
        for (; p + 64 < end; p += 64) {
            mfb_asimd_stp(p, v, v);
            mfb_asimd_stp(p + 32, v, v);
        }
        mfb_asimd_stp(end - 64, v, v);
        mfb_asimd_stp(end - 32, v, v);
    }
}

#endif
#endif
