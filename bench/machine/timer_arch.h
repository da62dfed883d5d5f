/* Architecture-specific cycle-counter reads. Each architecture provides
 * mfb_arch_counter_{begin,end} and MFB_ARCH_COUNTER (its name); others get none, and the
 * portable clock_gettime path in timer.h is used. */
#ifndef MFB_TIMER_ARCH_H
#define MFB_TIMER_ARCH_H

#include <stdint.h>

#if defined(__x86_64__)
#define MFB_ARCH_COUNTER "tsc"
/* lfence before rdtsc waits for earlier instructions to finish; lfence after keeps the timed
 * code from starting before the read (Intel SDM, RDTSC). At the end, rdtscp waits for the timed
 * code, and the trailing lfence keeps later code out. rdtscp also returns TSC_AUX, which Linux
 * sets to the CPU number, so every batch knows where it ran at no extra cost. */
static inline uint64_t mfb_arch_counter_begin(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

static inline uint64_t mfb_arch_counter_end(int *cpu)
{
    uint32_t lo, hi, aux;
    __asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
    *cpu = (int)(aux & 0xfff);
    return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
#define MFB_ARCH_COUNTER "cntvct"
/* isb orders the counter read against the instructions around it. */
static inline uint64_t mfb_arch_counter_begin(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
    return v;
}

static inline uint64_t mfb_arch_counter_end(int *cpu)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
    *cpu = -1;
    return v;
}
#endif

#endif
