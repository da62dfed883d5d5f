/* The clock a run times batches with: a serialized cycle counter when it is trustworthy
 * (invariant TSC on x86-64, the virtual counter on aarch64), else CLOCK_MONOTONIC_RAW. */
#ifndef MFB_TIMER_H
#define MFB_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/error.h"
#include "machine/timer_arch.h"
#include "study/choices.h"

enum mfb_clock { MFB_CLOCK_COUNTER, MFB_CLOCK_MONOTONIC };


struct mfb_timer {
    enum mfb_clock kind;
    const char *name;          /* "tsc", "cntvct", "clock_gettime(CLOCK_MONOTONIC_RAW)" */
    const char *why;           /* why this clock was chosen */
    double hz;                 /* ticks per second as measured (or architected for cntvct) */
    double ns_per_tick;
    double hz_spread_ppm;      /* spread of the calibration repeats (0 where it did not calibrate) */
    double hz_check_ppm;       /* a later process's one measurement against the first process's rate, in
                                * ppm of it (NaN: no rate was given to check) */
    double hz_check_ms;        /* the span that measurement covered (0: none) */
    bool hz_pending;           /* a given rate taken until mfb_timer_settle checks it */
    uint64_t pending_tick;     /* where the check's span began: a counter read and its */
    double pending_ns;         /* CLOCK_MONOTONIC_RAW time */
    double min_step_ticks;     /* min_step_ns in ticks, which a settled rate converts again */
    const char *hz_source;     /* "calibrated against CLOCK_MONOTONIC_RAW", "cntfrq_el0", "1 tick = 1 ns" */
    bool invariant;            /* the counter rate does not follow CPU frequency */
    double overhead_ticks;     /* median of back-to-back begin/end */
    double overhead_min_ticks;
    double tick_ns;            /* nominal resolution: one tick (clock_getres for the fallback) */
    bool end_cpu_trusted;      /* the end read's CPU matches sched_getcpu(): on the Zen 5 VM
                                * rdtscp's TSC_AUX held other numbers (234, 189), not the CPU */
    double min_step_ns;        /* smallest non-zero difference seen between two consecutive
                                * serialized reads: includes the read's own cost, so it bounds
                                * what a single interval can resolve */
};

/* Selects and calibrates. want: auto, tsc, cntvct or monotonic. given_hz > 0: the study's first
 * process's rate of the TSC, taken for now and checked by mfb_timer_settle; 0: calibrate. */
int mfb_timer_init(struct mfb_timer *t, enum mfb_clock_request want, double given_hz, struct mfb_err *err);

/* Checks a given rate over the span since mfb_timer_init (the set-up's work in between: the arena,
 * the self-check, the verification), at least CALIBRATE_SPAN_NS long, and keeps it when it agrees,
 * else calibrates again in full. Call it before anything timed is kept: the batch calibration, the
 * rounds. Nothing to do when no rate was given. */
void mfb_timer_settle(struct mfb_timer *t);

static inline uint64_t mfb_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mfb_timer_begin(const struct mfb_timer *t)
{
#ifdef MFB_ARCH_COUNTER
    if (t->kind == MFB_CLOCK_COUNTER)
        return mfb_arch_counter_begin();
#endif
    (void)t;
    return mfb_mono_ns();
}

/* Returns the end reading and the CPU it was taken on (-1 when the clock cannot tell). */
static inline uint64_t mfb_timer_end(const struct mfb_timer *t, int *cpu)
{
#ifdef MFB_ARCH_COUNTER
    if (t->kind == MFB_CLOCK_COUNTER)
        return mfb_arch_counter_end(cpu);
#endif
    (void)t;
    *cpu = -1;
    return mfb_mono_ns();
}

#endif
