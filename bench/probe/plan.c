#include "probe/plan.h"

#include <math.h>
#include <stdio.h>

#include "base/meminfo.h"

/* --quick's, each with its reason (the defaults are in plan.h). */
enum {
    PROBE_QUICK_STEPS = 2,
    PROBE_QUICK_REPEATS = 5,           /* the levels are found in each point's best repeat: of 3, two
                                        * disturbed ones were not rare on a busy VM */
};
/* The default largest size: 1 GiB, or 4x the LLC if larger, so the last points are in memory
 * even on a CPU with a very large LLC; never more than a quarter of the memory available now
 * (MemAvailable), so the probe does not push the machine into reclaim. */
#define PROBE_DEFAULT_MAX ((size_t)1 << 30)
#define PROBE_LLC_MULTIPLE 4
#define PROBE_MEMORY_FRACTION 0.25
/* --quick stops at 4x the L2 (at most 32 MiB): the first two levels and the start of the third. */
#define PROBE_QUICK_L2_MULTIPLE 4
#define PROBE_QUICK_MAX ((size_t)32 << 20)
/* Timed loads per latency measurement: at least 2^20 (a millisecond or more at L1 speed, far
 * above the clock's resolution), at most 2^22 (half a second at 120 ns: the largest buffers
 * are walked in part). --quick: 2^16 and 2^18. */
#define PROBE_MIN_LOADS (UINT64_C(1) << 20)
#define PROBE_MAX_LOADS (UINT64_C(1) << 22)
#define PROBE_QUICK_MIN_LOADS (UINT64_C(1) << 16)
#define PROBE_QUICK_MAX_LOADS (UINT64_C(1) << 18)
/* At most this long per latency measurement (never fewer than the least loads): the loads past
 * the LLC cost 100-1000 ns each (bench/probe/latency.c). */
#define PROBE_LAT_SECONDS 0.25
/* Seconds per bandwidth measurement: 50 ms spans many scheduler ticks and page walks. */
#define PROBE_BW_SECONDS 0.05
#define PROBE_QUICK_BW_SECONDS 0.002

/* The largest size: given, or the default rounded up to a point of the size grid. */
void mfb_probe_plan_sizes(struct mfb_probe_config *c, struct mfb_probe_given given, const struct mfb_caches *caches,
                          struct mfb_warnings *w)
{
    if (c->quick) {
        c->steps = given.steps ? c->steps : PROBE_QUICK_STEPS;
        c->repeats = given.repeats ? c->repeats : PROBE_QUICK_REPEATS;
        c->min_loads = PROBE_QUICK_MIN_LOADS;
        c->max_loads = PROBE_QUICK_MAX_LOADS;
        c->bw_seconds = PROBE_QUICK_BW_SECONDS;
        c->lat_seconds = PROBE_LAT_SECONDS;
    } else {
        c->lat_seconds = PROBE_LAT_SECONDS;
        c->min_loads = PROBE_MIN_LOADS;
        c->max_loads = PROBE_MAX_LOADS;
        c->bw_seconds = PROBE_BW_SECONDS;
    }
    if (given.max) {
        c->max_size_source = "--max-size";
        return;
    }
    size_t want;
    if (c->quick) {
        want = caches->l2 * PROBE_QUICK_L2_MULTIPLE;
        want = want > PROBE_QUICK_MAX ? PROBE_QUICK_MAX : want;
        c->max_size_source = "--quick: 4x L2, at most 32 MiB";
    } else {
        want = caches->llc * PROBE_LLC_MULTIPLE;
        want = want < PROBE_DEFAULT_MAX ? PROBE_DEFAULT_MAX : want;
        c->max_size_source = "default: max(1 GiB, 4x LLC), rounded up to a size step";
    }
    /* round up to the grid min * 2^(k/steps) */
    double k = ceil(log2((double)want / (double)c->min_size) * c->steps - 1e-9);
    want = (size_t)ceil((double)c->min_size * exp2(k / c->steps) / 4096.0) * 4096;
    long long avail = mfb_mem_available();
    if (avail > 0 && (double)want > (double)avail * PROBE_MEMORY_FRACTION) {
        size_t cap = (size_t)((double)avail * PROBE_MEMORY_FRACTION) / 4096 * 4096;
        mfb_warn(w, MFB_W_MEMORY, "the largest size is %zu bytes, not %zu: a quarter of the memory available now "
                                  "(MemAvailable)", cap, want);
        want = cap;
        c->max_size_source = "a quarter of MemAvailable (the default was larger)";
    }
    c->max_size = want < c->min_size ? c->min_size : want;
}

/* A --max-size the memory available now cannot hold is refused before anything runs: the
 * largest chain needs its buffer and 4 bytes per line of scratch. */
int mfb_probe_check_memory(const struct mfb_probe_config *c, struct mfb_err *err)
{
    long long avail = mfb_mem_available();
    double need = (double)c->max_size * (1 + 4.0 / 64);
    if (avail > 0 && need > (double)avail)
        return mfb_fail(err, "--max-size %zu: the largest buffer needs about %.0f bytes, more than the %lld "
                             "available now (MemAvailable)", c->max_size, need, avail);
    return 0;
}
