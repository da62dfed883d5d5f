/* Cache sizes of the CPU the run is pinned to: sysfs first, then sysconf, then a common server
 * core's sizes for what neither reports; --cache and --cache-from (a `memfbench probe` file)
 * replace them (orchestrate/assemble.c). A run never probes by itself: the probe takes minutes. */
#ifndef MFB_CACHE_H
#define MFB_CACHE_H

#include <stddef.h>

/* Where the sizes came from; "default" means assumed, and the run warns; "probe" means the
 * level boundaries a `memfbench probe` file found (run --cache-from). */
enum mfb_cache_source { MFB_CACHE_SYSFS, MFB_CACHE_SYSCONF, MFB_CACHE_DEFAULT, MFB_CACHE_USER, MFB_CACHE_PROBE };

/* The levels mfb_cache_detect assumed because the system reports none (bits of `assumed`). */
enum { MFB_CACHE_ASSUMED_L1D = 1, MFB_CACHE_ASSUMED_L2 = 2, MFB_CACHE_ASSUMED_LLC = 4 };

struct mfb_caches {
    size_t l1d, l2, llc, line;
    enum mfb_cache_source source;
    unsigned assumed; /* MFB_CACHE_ASSUMED_* of the levels given a common server core's size */
};

/* The source's name in the result file. */
const char *mfb_cache_source_name(enum mfb_cache_source s);
void mfb_cache_detect(struct mfb_caches *c, int cpu);

#endif
