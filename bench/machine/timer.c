#include "machine/timer.h"

#include <math.h>

#include <sched.h>

#include "base/quantile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#if defined(__x86_64__)
static bool cpuinfo_has_flag(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return false;
    char line[8192];
    bool has = false;
    size_t n = strlen(flag);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        for (char *p = strstr(line, flag); p; p = strstr(p + 1, flag))
            if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n'))
                has = true;
        break;
    }
    fclose(f);
    return has;
}

/* Invariant TSC: CPUID 0x80000007 EDX bit 8. Hypervisors often hide the bit but tell the
 * kernel, which then reports constant_tsc and nonstop_tsc; either source is accepted. */
static bool tsc_invariant(const char **why)
{
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8))) {
        *why = "invariant TSC (CPUID 0x80000007 EDX[8])";
        return true;
    }
    if (cpuinfo_has_flag("constant_tsc") && cpuinfo_has_flag("nonstop_tsc")) {
        *why = "invariant TSC (kernel flags constant_tsc and nonstop_tsc)";
        return true;
    }
    *why = "TSC is not invariant: falling back to CLOCK_MONOTONIC_RAW";
    return false;
}

/* Ticks per second against CLOCK_MONOTONIC_RAW over `ms`, bracketing each counter read
 * between two clock reads and keeping the tightest bracket of several tries. */
static void counter_point(uint64_t *tick, double *ns)
{
    uint64_t best_w = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        uint64_t a = mfb_mono_ns();
        uint64_t k = mfb_arch_counter_begin();
        uint64_t b = mfb_mono_ns();
        if (b - a < best_w) {
            best_w = b - a;
            *tick = k;
            *ns = (double)a + (double)(b - a) / 2;
        }
    }
}

/* Each of the 5 rate measurements spans this long. A counter read is bracketed to within tens of
 * ns, so 4 ms gives a rate to about 10 ppm (the five agreed within 0.03 ppm over 20 ms on the Zen 5
 * VM): far below anything a ratio or an ns/call figure shows, and 80 ms less per process. */
#define CALIBRATE_SPAN_NS 4000000u

/* One rate measurement over CALIBRATE_SPAN_NS. */
static double measure_hz(void)
{
    uint64_t k0 = 0, k1 = 0;
    double n0 = 0, n1 = 0;
    counter_point(&k0, &n0);
    uint64_t until = mfb_mono_ns() + CALIBRATE_SPAN_NS;
    while (mfb_mono_ns() < until)
        ;
    counter_point(&k1, &n1);
    return (double)(k1 - k0) / ((n1 - n0) * 1e-9);
}

/* A later process of a study takes the first process's rate when one measurement of its own agrees
 * within this: the bracket of each read is tens of ns, so one 4 ms span lands within about 20 ppm
 * of the rate on an invariant counter, and a counter off by more (another host after a migration,
 * a rate that is not invariant after all) is calibrated again in full. At 100 ppm an ns/call figure
 * moves by 0.01 %; a ratio of two variants read on one clock not at all. The measurement's span is
 * the set-up itself (mfb_timer_settle: about 50 ms in a later process of a default study), so it
 * costs no waiting of its own where the set-up lasts 4 ms or more; it cost 4 ms of each later
 * process when it waited out its own span. */
#define HZ_CHECK_PPM 100.0

static double calibrate_hz(double *spread_ppm)
{
    double hz[5];
    for (int i = 0; i < 5; i++)
        hz[i] = measure_hz();
    mfb_quantile_sort(hz, 5);
    *spread_ppm = (hz[4] - hz[0]) / hz[2] * 1e6;
    return hz[2];
}
#elif defined(__aarch64__)
static double cntfrq(void)
{
    uint64_t f;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
    return (double)f;
}
#endif

static void measure_overhead(struct mfb_timer *t)
{
    enum { N = 4001 };
    uint64_t d[N];
    for (int i = 0; i < N; i++) {
        int cpu;
        uint64_t a = mfb_timer_begin(t);
        uint64_t b = mfb_timer_end(t, &cpu);
        d[i] = b - a;
    }
    mfb_quantile_sort_u64(d, N);
    t->overhead_ticks = (double)d[N / 2];
    t->overhead_min_ticks = (double)d[0];
    /* Resolution: the smallest non-zero step between consecutive reads. */
    uint64_t step = UINT64_MAX;
    for (int i = 0; i < 2000; i++) {
        uint64_t a = mfb_timer_begin(t), b;
        do
            b = mfb_timer_begin(t);
        while (b == a);
        if (b - a < step)
            step = b - a;
    }
    t->min_step_ticks = (double)step;
}

/* The rate, and every figure given in ns through it: a later process's rate that fails its check
 * is replaced after these were first made (mfb_timer_settle). */
static void set_rate(struct mfb_timer *t, double hz)
{
    t->hz = hz;
    t->ns_per_tick = 1e9 / hz;
    t->min_step_ns = t->min_step_ticks * t->ns_per_tick;
    t->tick_ns = t->ns_per_tick;
    if (t->kind == MFB_CLOCK_MONOTONIC) {
        struct timespec res;
        clock_getres(CLOCK_MONOTONIC_RAW, &res);
        t->tick_ns = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;
    }
}

/* Whether the end read's CPU is this thread's CPU, twice (a migration between the two calls
 * cannot make both agree by chance). */
static bool end_cpu_matches(const struct mfb_timer *t)
{
    for (int k = 0; k < 2; k++) {
        int cpu;
        mfb_timer_end(t, &cpu);
        if (cpu < 0 || cpu != sched_getcpu())
            return false;
    }
    return true;
}

int mfb_timer_init(struct mfb_timer *t, enum mfb_clock_request want, double given_hz, struct mfb_err *err)
{
    memset(t, 0, sizeof *t);
    t->hz_check_ppm = NAN;
    bool auto_pick = want == MFB_CLOCK_AUTO;
    bool want_counter = want != MFB_CLOCK_MONOTONIC_RAW;
    t->kind = MFB_CLOCK_MONOTONIC;
    t->why = auto_pick ? "no cycle counter on this architecture" : "requested with --clock";
#if defined(__x86_64__)
    if (want_counter) {
        if (want == MFB_CLOCK_CNTVCT)
            return mfb_fail(err, "--clock: 'cntvct' is not available on x86-64 (use tsc or monotonic)");
        const char *why;
        bool inv = tsc_invariant(&why);
        t->why = why;
        if (inv || !auto_pick) {
            t->kind = MFB_CLOCK_COUNTER;
            t->name = "tsc";
            t->invariant = inv;
            if (given_hz > 0) {
                t->hz = given_hz;
                t->hz_pending = true;
                t->hz_source = "the study's first process's rate, not yet checked here";
                counter_point(&t->pending_tick, &t->pending_ns);
            } else {
                t->hz = calibrate_hz(&t->hz_spread_ppm);
                t->hz_source = "calibrated against CLOCK_MONOTONIC_RAW (median of 5 x 4 ms)";
            }
            if (!auto_pick)
                t->why = inv ? "requested with --clock; invariant TSC" : "requested with --clock; TSC NOT invariant";
        }
    }
#elif defined(__aarch64__)
    if (want_counter) {
        if (want == MFB_CLOCK_TSC)
            return mfb_fail(err, "--clock: 'tsc' is not available on aarch64 (use cntvct or monotonic)");
        t->kind = MFB_CLOCK_COUNTER;
        t->name = "cntvct";
        t->invariant = true;
        t->hz = cntfrq();
        t->hz_source = "cntfrq_el0";
        t->why = auto_pick ? "architected virtual counter (fixed frequency)" : "requested with --clock";
    }
#else
    if (want_counter && !auto_pick)
        return mfb_fail(err, "--clock: no cycle counter on this architecture (use monotonic)");
#endif
    if (t->kind == MFB_CLOCK_MONOTONIC) {
        t->name = "clock_gettime(CLOCK_MONOTONIC_RAW)";
        t->hz = 1e9;
        t->hz_source = "1 tick = 1 ns";
        t->invariant = true;
    }
    /* the overhead is counted in ticks, at whatever rate */
    measure_overhead(t);
    set_rate(t, t->hz);
    t->end_cpu_trusted = end_cpu_matches(t);
    return 0;
}

void mfb_timer_settle(struct mfb_timer *t)
{
#if defined(__x86_64__)
    if (!t->hz_pending)
        return;
    t->hz_pending = false;
    while (mfb_mono_ns() < t->pending_ns + CALIBRATE_SPAN_NS)
        ;
    uint64_t k1 = 0;
    double n1 = 0;
    counter_point(&k1, &n1);
    double given = t->hz, check = (double)(k1 - t->pending_tick) / ((n1 - t->pending_ns) * 1e-9);
    t->hz_check_ppm = (check / given - 1) * 1e6;
    t->hz_check_ms = (n1 - t->pending_ns) / 1e6;
    if (fabs(t->hz_check_ppm) <= HZ_CHECK_PPM) {
        t->hz_source = "the study's first process's rate, checked here against CLOCK_MONOTONIC_RAW over the "
                       "set-up (hz_check_ms; hz_check_ppm: within 100 ppm)";
        return;
    }
    set_rate(t, calibrate_hz(&t->hz_spread_ppm));
    t->hz_source = "calibrated against CLOCK_MONOTONIC_RAW (median of 5 x 4 ms): the first process's rate was off "
                   "by more than 100 ppm here (hz_check_ppm)";
#else
    (void)t;
#endif
}
