/* Cache sizes of the CPU the run is pinned to: sysfs first, then sysconf, then user overrides. */
#ifndef MFB_CACHE_H
#define MFB_CACHE_H

#include <stddef.h>

/* Where the sizes came from; "default" means assumed, and the run warns; "probe" means the
 * level boundaries a `memfbench probe` file found (run --cache-from). */
enum mfb_cache_source { MFB_CACHE_SYSFS, MFB_CACHE_SYSCONF, MFB_CACHE_DEFAULT, MFB_CACHE_USER, MFB_CACHE_PROBE };

struct mfb_caches {
    size_t l1d, l2, llc, line;
    enum mfb_cache_source source;
};

/* The source's name in the result file. */
const char *mfb_cache_source_name(enum mfb_cache_source s);
void mfb_cache_detect(struct mfb_caches *c, int cpu);

#endif
