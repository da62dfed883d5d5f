/* Where calls read and write. One arena holds the parameter array and, per role (source,
 * destination), a small window that stays in L1d and a large window far beyond the LLC.
 * Small calls use offsets inside the small window; large calls use offsets inside a slice
 * that each pass of a batch moves to a random page-aligned place in the large window, so
 * neither replays nor other variants find their lines in cache, while sizes and alignments
 * stay identical across variants (the pairing). */
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
int mfb_workset_plan(struct mfb_workset *w, enum mfb_func f, enum mfb_placement pl,
                     const struct mfb_caches *c, uint64_t max_size, struct mfb_err *err);
/* Maps the arena, pre-faults every page and fills the buffers; seed picks the byte pattern. */
int mfb_workset_alloc(struct mfb_workset *w, uint64_t seed, struct mfb_err *err);
void mfb_workset_free(struct mfb_workset *w);

#endif
