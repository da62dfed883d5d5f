/* What the CPU can run, asked once per variant before it is offered (the registry's
 * `available` hook): AVX2 on x86-64; SVE, MOPS and DC ZVA on AArch64. Kept apart from the implementations so copies.c duplicates only measured code. */
#include "impl/impl.h"

#if defined(__x86_64__)
int mfb_cpu_has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#endif

#if defined(__aarch64__)
#include <stdint.h>
#include <sys/auxv.h>

/* The kernel's hardware capability bits (asm/hwcap.h), spelled here so that an older C library's
 * headers do not hide a newer bit. */
#define HWCAP_SVE_BIT (1ul << 22)
#define HWCAP2_MOPS_BIT (1ul << 43)

int mfb_cpu_has_sve(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_SVE_BIT) != 0;
}

int mfb_cpu_has_mops(void)
{
    return (getauxval(AT_HWCAP2) & HWCAP2_MOPS_BIT) != 0;
}

/* DCZID_EL0 is readable from user mode on every AArch64 CPU; DZP set means DC ZVA would trap. */
int mfb_cpu_zva_permitted(void)
{
    uint64_t id;
    __asm__("mrs %0, dczid_el0" : "=r"(id));
    return (id & MFB_DCZID_DZP) == 0;
}
#endif
