/* What the architecture this build targets can do, decided at compile time: the request (the
 * options' checks) and the mechanisms that need it ask the same question here, so an option is
 * refused where its mechanism would fail. */
#ifndef MFB_TARGET_H
#define MFB_TARGET_H

#include <stdbool.h>

/* --large-window evicted: a line can be flushed from user mode (x86-64 clflush, AArch64 dc civac). */
static inline bool mfb_target_user_flush(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    return true;
#else
    return false;
#endif
}

/* --latency: the latency loops' dependent zero (measure/kernels.c) exists for x86-64 and AArch64. */
static inline bool mfb_target_dependent_zero(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    return true;
#else
    return false;
#endif
}

/* --icache-pressure: the generated jump block (machine/pressure.c) is written in x86-64 code. */
static inline bool mfb_target_code_generation(void)
{
#if defined(__x86_64__)
    return true;
#else
    return false;
#endif
}

#endif
