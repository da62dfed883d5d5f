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
#include "measure/cache.h"
#include "workload/space.h"

enum mfb_placement { MFB_PL_AUTO, MFB_PL_L1, MFB_PL_L2, MFB_PL_LLC, MFB_PL_DRAM };

/* The largest "small" call of auto placement: a fixed, documented choice rather than a fraction
 * of the machine's L1d, so that the same call is hot on every machine (with a quarter of L1d, a
 * 3 KiB call was hot on a 48 KiB L1d and cold on a 32 KiB one). 2 KiB is the largest power of
 * two whose window still fits a 32 KiB L1d with room for 4 KiB alignments (10 KiB per buffer). */
#define MFB_DEFAULT_SMALL_MAX 2048u

/* Where the small-call limit came from. */
enum mfb_small_max_source {
    MFB_SMALL_MAX_DEFAULT, /* MFB_DEFAULT_SMALL_MAX */
    MFB_SMALL_MAX_USER,    /* --small-max */
    MFB_SMALL_MAX_REDUCED, /* the default did not fit this L1d's window: lowered, with a warning */
    MFB_SMALL_MAX_NONE     /* placement other than auto: every call goes to one window */
};

const char *mfb_small_max_source_name(enum mfb_small_max_source s);

const char *mfb_placement_name(enum mfb_placement p);
int mfb_placement_parse(const char *s, enum mfb_placement *out);

struct mfb_workset {
    enum mfb_placement placement;
    struct mfb_space space; /* what the sampler draws calls into */
    uint64_t params_off;    /* arena offset of the parameter array */
    uint8_t params_log2;    /* the array holds 1 << params_log2 records: a power of two by
                             * construction, so every pass can visit it in its own permuted
                             * order (measure/kernels.h) */
    uint64_t l1_budget;     /* bytes of L1d the small window plus parameters may use */
    enum mfb_small_max_source small_max_source; /* space.threshold's origin */
    uint64_t arena_size;
    uint8_t *arena;
    double prefault_ms;
    const char *fill;       /* what the buffers hold */
};

/* Records in the parameter array. */
static inline uint32_t mfb_workset_params(const struct mfb_workset *w)
{
    return 1u << w->params_log2;
}

/* Decides the layout for a function, placement, caches and the largest size to replay. */
/* small_max: the largest small call of auto placement; 0 for MFB_DEFAULT_SMALL_MAX. */
int mfb_workset_plan(struct mfb_workset *w, enum mfb_func f, enum mfb_placement pl,
                     const struct mfb_caches *c, uint64_t max_size, uint64_t small_max, struct mfb_err *err);
/* Maps the arena, pre-faults every page and fills the buffers; seed picks the byte pattern. */
int mfb_workset_alloc(struct mfb_workset *w, uint64_t seed, struct mfb_err *err);
void mfb_workset_free(struct mfb_workset *w);

#endif
