/* AArch64 SVE memcpy: one predicated loop for every size. whilelo makes a predicate of the lanes
 * still inside n, so the same ld1b/st1b pair copies a whole vector (16 to 256 bytes, whatever the
 * implementation's length) or the last part of one, with no separate tail code and no access past
 * the end. Compiled for SVE with a target attribute and offered only where the CPU reports it
 * (HWCAP_SVE, impl/cpu.c), and only where the compiler has the SVE ACLE (MFB_HAVE_SVE). */
#if defined(__aarch64__) && MFB_HAVE_SVE
#include <arm_sve.h>

#include "impl/impl.h"

__attribute__((target("+sve"))) void *mfb_memcpy_sve(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    for (uint64_t i = 0; i < n; i += svcntb()) {
        svbool_t live = svwhilelt_b8_u64(i, n);
        svst1_u8(live, d + i, svld1_u8(live, s + i));
    }
    return dst;
}
#endif
