/* The address space a study's calls are drawn into: per role (source, destination) a small window
 * and a large one, and the rule that sends a call to one of them. The working set
 * (measure/workset.h) plans it from the machine's caches and maps it; the sampler only reads it,
 * so drawing calls does not depend on how or where the memory is obtained. */
#ifndef MFB_SPACE_H
#define MFB_SPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/functions.h"

/* Large calls move by whole pages (measure/kernels.h), so their offsets keep the alignment the
 * sampler drew. A shift counts units of 4 KiB, the smallest page of any kernel memfbench runs on,
 * so the timed loop shifts by a constant; on a 16 or 64 KiB kernel every shift is still a whole
 * page because the pass's page map only yields multiples of page_units (measure/passes.h). */
#define MFB_SHIFT_LOG2 12

struct mfb_window {
    bool used;
    uint64_t off[2]; /* arena offset of each role's window (a multiple of the space's page) */
    uint64_t size;   /* bytes per role */
    uint64_t slice;  /* large windows: bytes a call addresses before its page shift */
    uint32_t pages_mask; /* large windows, in units of 1 << MFB_SHIFT_LOG2: a call's shift is
                          * below pages_mask + 1, a power of two of whole pages no larger than
                          * the places the slice fits in the window */
};

struct mfb_space {
    enum mfb_func func;
    int roles;          /* buffers a call touches: 2, or 1 for memset */
    bool by_size;       /* sizes <= threshold go to the small window, larger ones to the large one;
                         * false: every call goes to the one window in use (forced placement) */
    uint64_t threshold;
    uint32_t page;       /* bytes of the page the windows and shifts are laid out by */
    uint32_t page_units; /* page >> MFB_SHIFT_LOG2: a shift is a multiple of this many units */
    struct mfb_window small, large;
};

/* Whether a call of this size is a large call (its offsets move with every pass). */
static inline bool mfb_space_is_large(const struct mfb_space *s, uint64_t size)
{
    return s->by_size ? size > s->threshold : s->large.used;
}

#endif
