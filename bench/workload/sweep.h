/* Size sweeps (memfbench sweep): the classic curve of time against size, on the same data path
 * as a replay. Each point is a sub-distribution of its own (one size, or sizes around it drawn at
 * random per call), timed as a size class of the run (workload/classes.h): every variant is
 * interleaved per point, in every round. */
#ifndef MFB_SWEEP_H
#define MFB_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/functions.h"
#include "workload/classes.h"
#include "workload/distribution.h"

/* At most this many points: a sweep longer than that takes hours at one round per second. */
#define MFB_MAX_SWEEP_POINTS 4096

/* How each point draws its calls' sizes. */
enum mfb_sweep_mode {
    MFB_SWEEP_PREDICTABLE,  /* the point's size, every call (what fixed-size tools measure) */
    MFB_SWEEP_SPREAD,       /* uniform within +-spread % of the point's size */
    MFB_SWEEP_CLASS         /* uniform within the point's power-of-two class (2^(k-1), 2^k] */
};

const char *mfb_sweep_mode_name(enum mfb_sweep_mode m);

struct mfb_sweep {
    uint64_t sizes[MFB_MAX_SWEEP_POINTS];
    size_t n;
    enum mfb_sweep_mode mode;
    double spread_pct;              /* MFB_SWEEP_SPREAD */
    uint64_t align_src, align_dst;  /* exact alignments of every call; 0: any offset */
};

/* Points from "ITEM[,ITEM...]": N (one size), LO-HI:STEP (every STEP bytes), pow2:LO-HI (each
 * power of two); sizes in bytes or with K/M/G units; in any order (kept sorted), each size once: one
 * given twice, by two items or by ranges that overlap, is refused. */
int mfb_sweep_parse_sizes(struct mfb_sweep *s, const char *text, struct mfb_err *err);
/* "P" (a percentage in (0, 100)) or "class": how each point draws sizes. */
int mfb_sweep_parse_mode(struct mfb_sweep *s, const char *text, struct mfb_err *err);
/* The points as classes (one per point, each with p = 1/n) and the whole: the union of the
 * points' sizes, which the run verifies every variant on and calibrates its pilot with. */
int mfb_sweep_build(const struct mfb_sweep *s, enum mfb_func f, const char *dist_dir, struct mfb_dist *whole,
                    struct mfb_classes *points, struct mfb_err *err);

#endif
