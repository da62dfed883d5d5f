#include "probe/clock.h"

#include <stdint.h>

#include "base/quantile.h"

enum {
    CLOCK_ADDS_PER_LOOP = 64,    /* adds per iteration: the loop branch runs in their shadow */
    CLOCK_LOOPS = 1 << 18,       /* 16.8 M adds: several milliseconds at any clock */
    CLOCK_REPEATS = 7,
    CLOCK_WARM_LOOPS = 1 << 20,  /* 67 M adds */
};

/* Runs CLOCK_LOOPS iterations of 64 dependent adds; false where there is no such loop. */
static bool add_chain(uint64_t loops)
{
#if defined(__x86_64__)
    /* A register operand, not an immediate: Golden Cove and later cores fold chains of
     * add-immediate at rename, which would count several adds per cycle. */
    uint64_t x = 0, one = 1;
    __asm__ volatile("1:\n"
                     ".rept 64\n\tadd %2, %0\n.endr\n"
                     "\tdec %1\n\tjnz 1b\n"
                     : "+r"(x), "+r"(loops)
                     : "r"(one)
                     : "cc");
    return true;
#elif defined(__aarch64__)
    uint64_t x = 0, one = 1;
    __asm__ volatile("1:\n"
                     ".rept 64\n\tadd %0, %0, %2\n.endr\n"
                     "\tsubs %1, %1, #1\n\tb.ne 1b\n"
                     : "+r"(x), "+r"(loops)
                     : "r"(one)
                     : "cc");
    return true;
#else
    (void)loops;
    return false;
#endif
}

void mfb_core_clock_measure(struct mfb_core_clock *c, const struct mfb_timer *t)
{
    double ghz[CLOCK_REPEATS];
    /* about 20 ms of adds first: a core coming out of idle can take milliseconds to reach the
     * clock it will run the curves at */
    c->known = add_chain(CLOCK_WARM_LOOPS);
    c->repeats = 0;
    if (!c->known)
        return;
    for (int k = 0; k < CLOCK_REPEATS; k++) {
        int cpu;
        uint64_t t0 = mfb_timer_begin(t);
        add_chain(CLOCK_LOOPS);
        uint64_t t1 = mfb_timer_end(t, &cpu);
        ghz[k] = (double)CLOCK_LOOPS * CLOCK_ADDS_PER_LOOP / ((double)(t1 - t0) * t->ns_per_tick);
    }
    mfb_quantile_sort(ghz, CLOCK_REPEATS);
    c->ghz = mfb_quantile_of_sorted(ghz, CLOCK_REPEATS, 0.5);
    c->ghz_min = ghz[0];
    c->ghz_max = ghz[CLOCK_REPEATS - 1];
    c->repeats = CLOCK_REPEATS;
}
