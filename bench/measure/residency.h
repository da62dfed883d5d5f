/* The placement check: whether the windows a run's calls use are where the plan says they are,
 * measured on this machine after the rounds, outside every timed batch. The plan trusts the cache
 * sizes it was given (sysfs, sysconf, --cache, --cache-from); this check trusts none of them:
 *   small window (auto, l1): a dependent walk over every line of the parameter array and the small
 *     windows, repeated, must load at this core's L1 latency, measured by the same walk over a
 *     block that fits any L1d;
 *   large window, evicted (auto, dram where lines can be flushed): lines sampled from the spans the
 *     large calls of drawn passes touch are loaded (cached), then the run's own eviction step for
 *     those passes runs (measure/evict.h), and a dependent walk over them must load at about the
 *     latency of the same lines after the check's own flush, which must itself be well above the
 *     cached latency (the flush takes lines out on this machine);
 *   large window, sized (no user flush) or cached (l2, llc): a dependent walk over lines sampled
 *     across the window, as the rounds left them, must load at about the latency of the same
 *     lines after a flush from every cache (beyond the LLC), or well below it (cached).
 * Both walks are the same code, so the loop's own cost is in the reference too. */
#ifndef MFB_RESIDENCY_H
#define MFB_RESIDENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/warn.h"
#include "machine/timer.h"
#include "measure/workset.h"

/* Where a window's lines should load from. */
enum mfb_reside { MFB_RESIDE_L1, MFB_RESIDE_CACHED, MFB_RESIDE_MEMORY };

enum mfb_check_verdict { MFB_CHECK_PASS, MFB_CHECK_FAIL, MFB_CHECK_NOT_MEASURED };

const char *mfb_reside_name(enum mfb_reside r);
const char *mfb_check_verdict_name(enum mfb_check_verdict v);

/* A small window's walk may be this much slower than the L1 reference and still be L1: an L2
 * hit costs 2.5-4 times an L1 hit on every core we know (4-5 against 12-17 cycles; on the Zen 5
 * VM 1.88 against 4.65 ns), so 1.25 lets at most about a sixth of the lines come from L2. Windows
 * that fit measure 1.00-1.01 there. */
#define MFB_CHECK_L1_LIMIT 1.25
/* A large window whose lines come from beyond the LLC loads at about the flushed latency; with a
 * fraction h of them still in the LLC (latency L), at 1 - h (1 - L / DRAM): 0.75 allows h up to
 * about a third where the LLC is three times faster than memory. */
#define MFB_CHECK_MEMORY_LIMIT 0.75
/* A window meant to stay in a cache (l2, llc) loads well below the flushed latency. */
#define MFB_CHECK_CACHED_LIMIT 0.6
/* Evicted window: the flushed lines must load at least this many times slower than the same lines
 * cached, or the flush did not take them out and the comparison means nothing. Memory is 5-40x
 * an L1 or L2 hit on every core we know (Zen 5 VM: about 130 against 2-5 ns). */
#define MFB_CHECK_FLUSH_GAIN 3.0

struct mfb_window_check {
    bool used;
    enum mfb_reside expect;
    uint32_t lines;            /* lines walked (small: all; large: sampled) */
    double after_rounds_ns;    /* small: the first walk, straight after the rounds (NaN: none) */
    double ns_per_load;        /* small: warm walk, the least of the repeats; large: as left */
    double reference_ns;       /* small: the L1 reference; large: the same lines flushed */
    double cached_ns;          /* evicted large window: the same lines just loaded (NaN: not measured) */
    bool from_window;          /* evicted: some groups sampled over the window, the array having
                                * too few large calls (else every line from the calls' spans) */
    double ratio;              /* ns_per_load / reference_ns */
    double limit;              /* pass: ratio <= limit (L1, cached), ratio >= limit (memory) */
    enum mfb_check_verdict verdict;
    const char *why;           /* not measured: why */
};

struct mfb_residency {
    bool done;
    struct mfb_window_check small, large;
    bool passed;               /* no window failed */
};

/* Measures w's windows on the calling thread (pinned where the rounds ran). seed picks the
 * sampled lines and walk orders; calls_log2 is the rounds' calls per pass (the evicted check
 * draws passes over them). Allocates only scratch it frees; a failed allocation makes a window
 * "not measured". */
void mfb_residency_check(struct mfb_residency *r, const struct mfb_workset *w, const struct mfb_timer *t,
                         uint8_t calls_log2, uint64_t seed);

/* One warning per failed window: what was measured, what it means for the numbers, the fix.
 * l1d_bytes and source: the sizes the plan used, named in the message. */
void mfb_residency_warn(const struct mfb_residency *r, struct mfb_warnings *warn, size_t l1d_bytes,
                        const char *source);

#endif
