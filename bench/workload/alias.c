#include "workload/alias.h"

#include <stdlib.h>

int mfb_alias_build(struct mfb_alias *a, const struct mfb_table *t)
{
    size_t n = t->n;
    a->n = n;
    a->prob = malloc(n * sizeof *a->prob);
    a->alias = malloc(n * sizeof *a->alias);
    double *scaled = malloc(n * sizeof *scaled);
    size_t *small = malloc(n * sizeof *small), *large = malloc(n * sizeof *large);
    if (!a->prob || !a->alias || !scaled || !small || !large) {
        free(scaled);
        free(small);
        free(large);
        mfb_alias_free(a);
        return -1;
    }
    size_t ns = 0, nl = 0;
    for (size_t i = 0; i < n; i++) {
        scaled[i] = t->rows[i].p * (double)n;
        a->alias[i] = (uint32_t)i;
        if (scaled[i] < 1.0)
            small[ns++] = i;
        else
            large[nl++] = i;
    }
    while (ns && nl) {
        size_t s = small[--ns], l = large[nl - 1];
        a->prob[s] = scaled[s];
        a->alias[s] = (uint32_t)l;
        scaled[l] -= 1.0 - scaled[s];
        if (scaled[l] < 1.0) {
            nl--;
            small[ns++] = l;
        }
    }
    /* Leftovers are 1 up to rounding error. */
    while (nl)
        a->prob[large[--nl]] = 1.0;
    while (ns)
        a->prob[small[--ns]] = 1.0;
    free(scaled);
    free(small);
    free(large);
    return 0;
}

void mfb_alias_free(struct mfb_alias *a)
{
    free(a->prob);
    free(a->alias);
    a->prob = NULL;
    a->alias = NULL;
    a->n = 0;
}
