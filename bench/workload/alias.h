/* Walker/Vose alias tables: O(1) draws of a row index from a normalized table. */
#ifndef MFB_ALIAS_H
#define MFB_ALIAS_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "workload/table.h"

struct mfb_alias {
    size_t n;
    double *prob;    /* probability of keeping column i */
    uint32_t *alias; /* row used otherwise */
};

int mfb_alias_build(struct mfb_alias *a, const struct mfb_table *t);
void mfb_alias_free(struct mfb_alias *a);

static inline size_t mfb_alias_draw(const struct mfb_alias *a, struct mfb_rng *r)
{
    size_t i = (size_t)mfb_rng_below(r, a->n);
    return mfb_rng_unit(r) < a->prob[i] ? i : a->alias[i];
}

#endif
