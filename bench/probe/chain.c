#include "probe/chain.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *mfb_chase_name(enum mfb_chase c)
{
    static const char *const names[] = {
        [MFB_CHASE_RANDOM] = "random", [MFB_CHASE_STRIDE1] = "stride1", [MFB_CHASE_STRIDE2] = "stride2"};
    return names[c];
}

/* The order of the lines: perm[k] is the k-th line visited. */
static void visiting_order(uint32_t *perm, size_t lines, enum mfb_chase c, struct mfb_rng *rng)
{
    size_t k = 0;
    switch (c) {
    case MFB_CHASE_RANDOM:
        for (size_t i = 0; i < lines; i++)
            perm[i] = (uint32_t)i;
        /* Fisher-Yates over lines 1..n-1 with line 0 first: any such order is one cycle once
         * the last line links back to the first, and each of the (n-1)! cycles through all
         * lines is drawn with the same probability (the law of Sattolo's algorithm). */
        for (size_t i = lines - 1; i > 1; i--) {
            size_t j = 1 + (size_t)mfb_rng_below(rng, i);
            uint32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        return;
    case MFB_CHASE_STRIDE1:
        for (size_t i = 0; i < lines; i++)
            perm[i] = (uint32_t)i;
        return;
    case MFB_CHASE_STRIDE2:
        for (size_t i = 0; i < lines; i += 2)
            perm[k++] = (uint32_t)i;
        for (size_t i = 1; i < lines; i += 2)
            perm[k++] = (uint32_t)i;
        return;
    case MFB_CHASE_COUNT:
        break;
    }
}

void *mfb_chain_build(void *buf, size_t lines, size_t line, enum mfb_chase c, struct mfb_rng *rng, uint32_t *perm)
{
    char *b = buf;
    visiting_order(perm, lines, c, rng);
    for (size_t k = 0; k < lines; k++) {
        void *next = b + (size_t)perm[(k + 1) % lines] * line;
        memcpy(b + (size_t)perm[k] * line, &next, sizeof next);
    }
    return b + (size_t)perm[0] * line;
}

void *mfb_chain_walk(void *start, uint64_t loads)
{
    void *const *p = start;
    /* Sixteen loads per iteration: the loop's own branch and counter cost one add and one
     * predicted jump per sixteen loads, off the dependency chain. */
    for (uint64_t n = (loads + 15) / 16; n > 0; n--) {
        p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p;
        p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p;
    }
    return (void *)p;
}

size_t mfb_chain_cycle_length(const void *buf, size_t lines, size_t line, const void *start)
{
    const char *b = buf;
    bool *seen = calloc(lines ? lines : 1, sizeof *seen);
    if (!seen)
        return 0;
    size_t n = 0;
    const void *p = start;
    do {
        size_t off = (size_t)((const char *)p - b);
        if ((const char *)p < b || off % line != 0 || off / line >= lines || seen[off / line]) {
            n = 0;
            break;
        }
        seen[off / line] = true;
        n++;
        memcpy(&p, b + off, sizeof p);
    } while (p != start);
    free(seen);
    return n;
}
