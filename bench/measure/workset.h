/* Where calls read and write. One arena holds the parameter array and, per role (source,
 * destination), a small window that stays in L1d and a large window far beyond the LLC.
 * Small calls use offsets inside the small window; large calls use offsets inside a slice
 * that each pass of a batch moves, call by call, to a random page-aligned place in the large
 * window, so neither replays nor other variants find their lines in cache, while sizes and
 * alignments stay identical across variants (the pairing). */
#ifndef MFB_WORKSET_H
#define MFB_WORKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/functions.h"
#include "machine/cache.h"
#include "machine/pagesize.h"
#include "study/choices.h"
#include "workload/space.h"

/* How a window meant to be beyond the LLC (auto's large calls, dram) keeps its lines out of it. */
enum mfb_large_scheme {
    MFB_LARGE_EVICTED, /* a fixed window; every line a timed batch's large calls touch is flushed
                        * from every cache before the batch, outside the timer (measure/evict.h) */
    MFB_LARGE_SIZED,   /* no user-mode flush on this architecture: a window of 4 x LLC per buffer,
                        * so a shift lands on cached lines with probability about LLC / window */
    MFB_LARGE_CACHED   /* placement l2 or llc: the window is meant to stay in that cache */
};

const char *mfb_large_scheme_name(enum mfb_large_scheme s);

/* The large window per buffer when its lines are evicted before each batch. Its size no longer
 * keeps lines out of the LLC (the flush does), so it follows what large calls meet in a program
 * instead: pages the second-level TLB does not hold (64 MiB is four times the reach of the
 * largest STLB we know, Zen 5's 4,096 entries of 4 KiB), and room for a pass's large calls to
 * land on different lines (fleet memcpy's pass of 512 calls moves about 90 KiB in large calls per
 * buffer, 0.14 % of the window). On the VMs whose CPUID reports a 260-508 MiB L3 it replaces a
 * 2 GiB arena, whose first touch cost 1.3-1.5 s per process (docs/cost.md). */
#define MFB_EVICT_WINDOW ((uint64_t)64 << 20)

/* The largest "small" call of auto placement: a fixed, documented choice rather than a fraction
 * of the machine's L1d, so that the same call is hot on every machine (with a quarter of L1d, a
 * 3 KiB call was hot on a 48 KiB L1d and cold on a 32 KiB one). On every L1d from 32 KiB up the
 * window holds it with room for any alignment the tables can ask for (docs/methodology.md,
 * "Where calls live"; tests/c/test_geometry.c checks twelve real geometries). */
#define MFB_DEFAULT_SMALL_MAX 2048u

/* Below this small-call limit an auto study would time nearly every call of a production
 * distribution cold (fleet memcpy: 91 % of calls are at most 256 bytes), which is not what auto
 * promises: the run refuses instead of measuring something else. */
#define MFB_SMALL_MAX_FLOOR 256u

/* The least room a small call gets beside itself in its window, even with no alignment table:
 * one cache line, so that its offsets still move within a line from call to call. */
#define MFB_MIN_ALIGN_ROOM 64u

/* Sized scheme only (MFB_LARGE_SIZED): each buffer's large window should be at least this many
 * times the LLC: a page shift lands on
 * lines still cached with probability about LLC / window, so at 2x up to half of them may be
 * (and a window no larger than the LLC could be held whole). Per buffer, not the buffers
 * together: a copy's source window alone must not fit either. The window is 4 x LLC per buffer,
 * capped at 1 GiB (the arena's offsets are 32-bit), so above a 512 MiB LLC (a whole socket's L3
 * as CPUID reports it on large AMD parts, a 1 GiB Genoa-X) the cap wins: the run then warns,
 * and the placement check measures what actually happened. */
#define MFB_LARGE_LLC_MULTIPLE 2.0

/* What the calls to replay need from the layout, read off the distribution. */
struct mfb_workset_need {
    uint64_t max_size;     /* the largest size replayed */
    uint64_t align_period; /* the alignment tables' largest key: a small call's offsets take one
                            * period of this beside it (0 or 1: no table, any offset) */
    bool overlap;          /* some calls overlap: source and destination share role 0's window,
                            * which then also holds the distance between them */
    uint64_t small_max;    /* --small-max, or 0 for MFB_DEFAULT_SMALL_MAX */
    bool sized;            /* --large-window sized: the sized scheme even where lines can be flushed */
    struct mfb_page_size page; /* the page the windows and shifts are laid out by
                                * (machine/pagesize.h); bytes 0: 4096, the kernel's */
};

/* Where the small-call limit came from. */
enum mfb_small_max_source {
    MFB_SMALL_MAX_DEFAULT, /* MFB_DEFAULT_SMALL_MAX */
    MFB_SMALL_MAX_USER,    /* --small-max */
    MFB_SMALL_MAX_REDUCED, /* the default did not fit this L1d's window: lowered, with a warning */
    MFB_SMALL_MAX_NONE     /* placement other than auto: every call goes to one window */
};

const char *mfb_small_max_source_name(enum mfb_small_max_source s);


struct mfb_workset {
    enum mfb_placement placement;
    struct mfb_space space; /* what the sampler draws calls into */
    uint64_t params_off;    /* arena offset of the parameter array */
    uint8_t params_log2;    /* the array holds 1 << params_log2 records: a power of two by
                             * construction, so every pass can visit it in its own permuted
                             * order (measure/kernels.h) */
    uint64_t l1_budget;     /* bytes of L1d the small window plus parameters may use */
    uint64_t align_room;    /* bytes a small call keeps beside itself for its alignment offsets */
    uint64_t small_fits;    /* the largest call the small window holds (auto and l1) */
    uint64_t llc;           /* the LLC size the plan used (the sized scheme's windows follow it) */
    enum mfb_large_scheme large_scheme; /* how the large window stays beyond the LLC */
    enum mfb_small_max_source small_max_source; /* space.threshold's origin */
    struct mfb_page_size page;  /* the page laid out by (space.page is its bytes), real or simulated */
    uint64_t arena_size;
    uint8_t *arena;
    double prefault_ms;         /* map_ms + fill_ms */
    double map_ms, fill_ms;     /* pages faulted in by the kernel; the content written */
    const char *fill;       /* what the buffers hold */
};

/* Records in the parameter array. */
static inline uint32_t mfb_workset_params(const struct mfb_workset *w)
{
    return 1u << w->params_log2;
}

/* Decides the layout for a function, placement, caches and what the calls need. */
int mfb_workset_plan(struct mfb_workset *w, enum mfb_func f, enum mfb_placement pl,
                     const struct mfb_caches *c, const struct mfb_workset_need *need, struct mfb_err *err);
/* Whether the large window's lines are out of the LLC by construction: evicted, or each buffer's
 * window at least MFB_LARGE_LLC_MULTIPLE times the planned LLC (true when there is no large window). */
bool mfb_workset_large_beyond_llc(const struct mfb_workset *w);
/* The largest call a small window of `window` bytes per role holds for these needs. */
uint64_t mfb_workset_small_fits(uint64_t window, const struct mfb_workset_need *need);
/* Maps the arena, starting on a page of the plan's size (a simulated page larger than the kernel's
 * too), pre-faults every page and fills the buffers; seed picks the byte pattern. */
int mfb_workset_alloc(struct mfb_workset *w, uint64_t seed, struct mfb_err *err);
void mfb_workset_free(struct mfb_workset *w);

#endif
