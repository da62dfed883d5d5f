/* Cache sizes of the CPU the run is pinned to: sysfs first, then sysconf, then user overrides. */
#ifndef MFB_CACHE_H
#define MFB_CACHE_H

#include <stddef.h>

struct mfb_caches {
    size_t l1d, l2, llc, line;
    const char *source; /* "sysfs", "sysconf", "default", "user" */
};

void mfb_cache_detect(struct mfb_caches *c, int cpu);
/* Parses "48K", "1M", "32768" (bytes) as sysfs and the command line write them. */
int mfb_parse_bytes(const char *s, size_t *out);

#endif
