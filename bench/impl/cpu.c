/* What the CPU can run, asked once per variant before it is offered (the registry's
 * `available` hook). Kept apart from the implementations so copies.c duplicates only measured code. */
#include "impl/impl.h"

#if defined(__x86_64__)
int mfb_cpu_has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#endif
