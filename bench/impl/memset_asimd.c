/* AArch64 Advanced SIMD memset: the byte broadcast into a q register (dup), stored from both ends
 * up to 128 bytes, then in 64-byte blocks of stp q pairs aligned to 16 bytes (asimd.h). */
#if defined(__aarch64__)
#include "impl/asimd.h"
#include "impl/impl.h"

void *mfb_memset_asimd(void *dst, int c, size_t n)
{
    mfb_asimd_set(dst, vdupq_n_u8((uint8_t)c), n);
    return dst;
}
#endif
