/* Size classes (--by-class): the distribution cut at size edges into sub-distributions, each
 * replayed as its own batches in the same rounds as the whole, so that a difference between two
 * implementations can be attributed to the sizes it comes from. A class keeps the alignment,
 * overlap and mismatch tables of the whole: the tables we replay (fleetbench, SPEC) give them
 * independently of size, so the class's calls are the whole's calls of those sizes. */
#ifndef MFB_CLASSES_H
#define MFB_CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "workload/distribution.h"

/* At most this many edges: 64 classes, more than the 23 powers of two up to MFB_MAX_SIZE. */
#define MFB_MAX_CLASS_EDGES 64

struct mfb_size_class {
    uint64_t lo, hi;        /* sizes lo..hi inclusive */
    double p;               /* the whole distribution's probability of a call in the class */
    double mean_size;       /* the class's own mean size */
    struct mfb_dist dist;   /* the class's sub-distribution (size rows clipped to lo..hi) */
};

struct mfb_classes {
    uint64_t edges[MFB_MAX_CLASS_EDGES];
    int nedges;
    struct mfb_size_class *c; /* the classes with calls, in size order */
    int n;
};

/* The default edges: 0, 2, 4, 8, ... up to small_max (the auto placement's largest small call),
 * so classes are 0, 1-2, 3-4, 5-8, ..., and one class of large calls above small_max. */
void mfb_classes_default_edges(struct mfb_classes *cl, uint64_t small_max);
/* Edges from "E1,E2,...": increasing whole numbers (units as in distributions: 4K), each the
 * largest size of its class; the message names the option and the offending edge. */
int mfb_classes_parse_edges(struct mfb_classes *cl, const char *text, struct mfb_err *err);
/* Cuts d at the edges: class i holds sizes (edge[i-1], edge[i]] (the first from 0, the last
 * above the last edge). A size row spanning an edge is split, its weight shared in proportion
 * to the sizes on each side (rows draw their sizes uniformly). Classes without calls are left
 * out. */
int mfb_classes_split(struct mfb_classes *cl, const struct mfb_dist *d, struct mfb_err *err);
void mfb_classes_free(struct mfb_classes *cl);

#endif
