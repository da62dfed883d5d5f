/* The levels the curves show, held against the sizes a run would use without a probe (sysfs,
 * else sysconf/CPUID: machine/cache.c), level by level, and the size kept for each.
 *
 * Why both: the curves are what one core measured, but a level's edge can be blurred in them
 * (in a VM, address translation adds its own rises to a random chain; a cache whose replacement
 * is not LRU misses before it is full), while the reported sizes can be wrong for this core (a
 * hypervisor passes the whole socket's L3, of several CCX/CCD, through CPUID). So: a level a
 * curve shows within the tolerance of the reference is the curve's; a level no curve shows
 * there keeps the reference, naming the curves that contradict it; and a size is never kept
 * that the curves themselves refute (an LLC larger than where read bandwidth has already fallen
 * to its memory rate). */
#ifndef MFB_CROSSCHECK_H
#define MFB_CROSSCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "machine/cache.h"
#include "probe/levels.h"

/* A curve's step agrees with the reference when it is within this fraction of it. */
#define MFB_XC_TOLERANCE 0.15

enum mfb_xc_curve { MFB_XC_LATENCY, MFB_XC_BANDWIDTH, MFB_XC_NCURVES };
enum mfb_xc_level_id { MFB_XC_L1D, MFB_XC_L2, MFB_XC_LLC, MFB_XC_NLEVELS };

enum mfb_xc_verdict {
    MFB_XC_AGREES,         /* a curve shows a step within the tolerance: that step is kept */
    MFB_XC_REFERENCE_KEPT, /* the curves reach the reference but show no step there: reference kept */
    MFB_XC_BEYOND_ONE_CORE, /* LLC: read bandwidth is at its memory rate below the reference, so the
                             * reference is more than this core can use: the curve's last step kept */
    MFB_XC_NO_REFERENCE,   /* the reference is assumed (no sysfs, no sysconf): the curve's step kept */
    MFB_XC_NOT_REACHED,    /* no curve reaches the level: reference kept, nothing checked it */
    MFB_XC_NVERDICTS
};

/* One curve's found levels, and the sizes it covered. levels NULL: the curve was not measured. */
struct mfb_xc_input {
    const struct mfb_levels *levels;
    size_t first, last;
};

/* What one curve says about one level. */
struct mfb_xc_view {
    bool measured;  /* the curve exists */
    bool reaches;   /* it was measured past reference x (1 + tolerance): it could show the step */
    int step;       /* index of the boundary taken for this level, -1 none */
    double at;      /* that boundary's estimate, bytes */
    bool within;    /* the step is within the tolerance of the reference */
    bool contradicts; /* it reaches the level and shows no step within the tolerance */
};

struct mfb_xc_level {
    enum mfb_xc_level_id id;
    size_t reference;
    struct mfb_xc_view view[MFB_XC_NCURVES];
    enum mfb_xc_verdict verdict;
    size_t kept;
    int kept_curve;   /* the curve whose step is kept, -1 when the reference is */
};

struct mfb_crosscheck {
    bool done;                       /* false: no curve to check with */
    enum mfb_cache_source source;    /* of the reference sizes */
    double tolerance;
    double memory_from;              /* where read bandwidth's last plateau starts; 0: no such curve */
    struct mfb_xc_level level[MFB_XC_NLEVELS];
    bool usable;                     /* every level was checked by a curve and the kept sizes are
                                      * ordered (l1d < l2 <= llc): they are caches_found */
};

/* Holds the levels of the latency curve and of the read-bandwidth curve (either may be absent)
 * against the reference sizes `ref`. */
void mfb_crosscheck_levels(const struct mfb_caches *ref, const struct mfb_xc_input *latency,
                           const struct mfb_xc_input *bandwidth, struct mfb_crosscheck *out);

const char *mfb_xc_level_name(enum mfb_xc_level_id id);      /* "L1d", "L2", "LLC" */
const char *mfb_xc_curve_name(enum mfb_xc_curve c);          /* "latency", "read bandwidth" */
const char *mfb_xc_verdict_name(enum mfb_xc_verdict v);      /* "agrees", "reference kept", ... */
/* Where the kept size came from: the curve's name, or the reference's source. */
const char *mfb_xc_kept_from(const struct mfb_crosscheck *x, const struct mfb_xc_level *l);

/* One sentence on the level: where each curve puts it against the reference, and what is kept
 * and why. The file and the terminal summary print the same sentence. */
void mfb_xc_explain(const struct mfb_crosscheck *x, const struct mfb_xc_level *l, char *buf, size_t n);

#endif
