/* How big and how long memfbench probe measures: its defaults, the largest size from the caches
 * and the memory available (or as given), and the check that the machine can hold it. */
#ifndef MFB_PROBE_PLAN_H
#define MFB_PROBE_PLAN_H

#include <stdbool.h>

#include "base/error.h"
#include "base/warn.h"
#include "machine/cache.h"
#include "probe/probe.h"

/* Defaults of memfbench probe, each with its reason. */
enum {
    MFB_PROBE_MIN_SIZE = 4 << 10,      /* one page: below it a chain has too few lines to matter */
    MFB_PROBE_STEPS = 4,               /* sizes per octave: a level's edge lands within 19 % */
    MFB_PROBE_REPEATS = 5,
};

/* Which of the sizing options the command line gave (they win over the defaults). */
struct mfb_probe_given {
    bool max, steps, repeats;
};

/* The loads and seconds per measurement, and the largest size: given, or the default rounded up to
 * a point of the size grid, at most a quarter of MemAvailable (with a warning). */
void mfb_probe_plan_sizes(struct mfb_probe_config *c, struct mfb_probe_given given, const struct mfb_caches *caches,
                          struct mfb_warnings *w);
/* A --max-size the memory available now cannot hold: -1 with err, before anything runs. */
int mfb_probe_check_memory(const struct mfb_probe_config *c, struct mfb_err *err);

#endif
