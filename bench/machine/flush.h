/* Whether user code may flush a line from every cache, and by what stride: what eviction
 * (measure/evict.c) and the window planner (measure/workset.c) ask before choosing to flush. The
 * build decides which instruction (base/target.h); the running CPU and kernel decide the rest. */
#ifndef MFB_FLUSH_H
#define MFB_FLUSH_H

#include <stdbool.h>
#include <stdint.h>

struct mfb_flush {
    bool allowed;            /* the flush instruction runs in user mode here */
    uint32_t line;           /* bytes from one flush to the next: the smallest data-cache line */
    const char *line_source; /* where line came from */
    const char *why_not;     /* when not allowed: why, for the warning; NULL otherwise */
};

/* Read once per process, on the first call (before any timing thread starts). */
const struct mfb_flush *mfb_flush_caps(void);

#endif
