/* AArch64 memset with DC ZVA for large zero fills: DC ZVA zeroes one whole block (its size in
 * DCZID_EL0.BS, 4 << BS bytes: 64 on Neoverse and Cortex cores, 128 or more elsewhere) without
 * reading the line first, so a large memset of 0 writes memory without the read-for-ownership a
 * store miss costs. Nonzero bytes, calls under ZVA_MIN bytes and a CPU whose DCZID_EL0.DZP
 * prohibits the instruction (the registry then offers no `zva` variant: impl/cpu.c) take the
 * Advanced SIMD path. DCZID_EL0 is read on every large zero call: one mrs against hundreds of
 * bytes of stores, and a cached copy would be one more static per code placement to warm. */
#if defined(__aarch64__)
#include "impl/asimd.h"
#include "impl/impl.h"

/* Below this, the head and tail stores around the blocks cost more than DC ZVA saves. */
#define ZVA_MIN 256u

void *mfb_memset_zva(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    uint8x16_t v = vdupq_n_u8((uint8_t)c);
    if ((uint8_t)c != 0 || n < ZVA_MIN) {
        mfb_asimd_set(d, v, n);
        return dst;
    }
    uint64_t id;
    __asm__("mrs %0, dczid_el0" : "=r"(id));
    uintptr_t block = (uintptr_t)4 << (id & 15);
    unsigned char *first = (unsigned char *)(((uintptr_t)d + block - 1) & ~(block - 1));
    unsigned char *last = (unsigned char *)(((uintptr_t)d + n) & ~(block - 1));
    if ((id & MFB_DCZID_DZP) || first >= last) {
        mfb_asimd_set(d, v, n);
        return dst;
    }
    mfb_asimd_set(d, v, (size_t)(first - d));
    for (unsigned char *p = first; p < last; p += block)
        __asm__ volatile("dc zva, %0" ::"r"(p) : "memory");
    mfb_asimd_set(last, v, (size_t)(d + n - last));
    return dst;
}
#endif
