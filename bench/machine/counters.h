/* Hardware counters per batch (--counters): cycles, instructions, branch misses and L1d misses,
 * as one perf_event group read before and after each timed batch. Many VMs have no PMU (this
 * development VM has none): then the run says so once and carries on without. A fake source,
 * derived from the clock, exercises the same path where no PMU exists (the tests). */
#ifndef MFB_COUNTERS_H
#define MFB_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "study/choices.h"

enum mfb_counter {
    MFB_COUNTER_CYCLES,
    MFB_COUNTER_INSTRUCTIONS,
    MFB_COUNTER_BRANCH_MISSES,
    MFB_COUNTER_L1D_MISSES, /* L1d read misses */
    MFB_COUNTER_COUNT
};

/* The counter's name, also its sample column ("cycles", "instructions", "branch_misses",
 * "l1d_misses"). */
const char *mfb_counter_name(enum mfb_counter k);


/* What a fake source counts per ns of the clock: a core at 3 GHz retiring 2 instructions per
 * cycle, one branch miss per 100 ns and one L1d miss per 10 ns. The tests check the analysis
 * gives back IPC 2. */
#define MFB_FAKE_CYCLES_PER_NS 3.0
#define MFB_FAKE_IPC 2.0

struct mfb_counters {
    enum mfb_counters_mode mode;
    bool active;                        /* counting, by perf_event or the fake */
    bool have[MFB_COUNTER_COUNT];       /* events this PMU gave (a group may lack one) */
    int fd[MFB_COUNTER_COUNT];          /* perf_event descriptors, -1 when not open */
    int nopen;                          /* members of the group, in the order of the read */
    enum mfb_counter order[MFB_COUNTER_COUNT];
    const char *source;                 /* "perf_event_open", "fake" or "none" */
    char why[256];                      /* why not active ("" when active or off) */
};

/* One reading of the group: each counter's total and the group's time enabled and running (ns). */
struct mfb_counts {
    uint64_t v[MFB_COUNTER_COUNT];
    uint64_t enabled, running;
};

/* Opens the counters of this thread (user space only); never fails: when they cannot be had
 * the result is inactive and `why` says why. */
void mfb_counters_open(struct mfb_counters *c, enum mfb_counters_mode mode);
/* Reads the totals; false when inactive or the read failed. */
bool mfb_counters_read(const struct mfb_counters *c, struct mfb_counts *out);
/* Each counter's count between readings a and b (ok0, ok1: their results), or -1 for a counter
 * not had, a failed reading, or a batch the group did not run through whole (multiplexed). */
void mfb_counters_delta(const struct mfb_counters *c, bool ok0, const struct mfb_counts *a, bool ok1,
                        const struct mfb_counts *b, int64_t d[MFB_COUNTER_COUNT]);
/* Closes what open opened; safe on a zeroed struct. */
void mfb_counters_close(struct mfb_counters *c);

#endif
