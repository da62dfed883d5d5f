/* AArch64 memcpy as FEAT_MOPS instructions (Armv8.8): the prologue, main and epilogue copy
 * instructions cpyfp/cpyfm/cpyfe, which the CPU carries out in whatever chunks its memory system
 * likes (the architecture's answer to x86's rep movsb). Assembled where the assembler knows MOPS
 * (MFB_HAVE_MOPS) and offered only where the kernel reports the CPU has it (HWCAP2_MOPS,
 * impl/cpu.c): elsewhere the instructions are undefined. */
#if defined(__aarch64__) && MFB_HAVE_MOPS
#include "impl/impl.h"

void *mfb_memcpy_mops(void *restrict dst, const void *restrict src, size_t n)
{
    void *d = dst;
    __asm__ volatile(".arch_extension mops\n\t"
                     "cpyfp [%0]!, [%1]!, %2!\n\t"
                     "cpyfm [%0]!, [%1]!, %2!\n\t"
                     "cpyfe [%0]!, [%1]!, %2!"
                     : "+r"(d), "+r"(src), "+r"(n)::"memory", "cc");
    return dst;
}
#endif
