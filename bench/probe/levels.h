/* The cache levels a latency curve shows: flat stretches (a level's latency) and the steep
 * rises between them (a level's capacity), found in the curve itself, so they hold on machines
 * whose sysfs reports a host's caches rather than the guest's share (VMs often do). */
#ifndef MFB_LEVELS_H
#define MFB_LEVELS_H

#include <stddef.h>

enum { MFB_LEVELS_MAX = 8 };

/* A step between two sizes is part of a rise when latency grows faster than this per octave
 * of size. Inside a level a random chain's latency creeps up slowly as the level fills
 * (replacement is not LRU, page-table entries compete): on this machine's L2, 5.3 to 7.2 ns
 * over two octaves, about 1.16x per octave; out of a level it jumps 2x to 4x within an octave. */
#define MFB_LEVELS_STEEP 1.5
/* ... measured over at least this many octaves (a quarter: one step at the default 4 sizes per
 * octave, four at 16), so that a few percent of noise between close sizes is not a rise. */
#define MFB_LEVELS_SPAN 0.25
/* Two stretches are different levels only if the later one's latency is this much higher:
 * one noisy point or a short bump inside a level is not a level. */
#define MFB_LEVELS_DISTINCT 1.3
/* A level spans at least this many points (at 2 sizes per octave, 1.5 octaves; every cache
 * level of common CPUs spans more): fewer between two rises are a pause in one rise. */
#define MFB_LEVELS_MIN_POINTS 3
/* The curve's last stretch counts with two points: the next level's start as far as measured. */
#define MFB_LEVELS_MIN_END_POINTS 2
/* The capacity estimate: where latency has covered this fraction of the way from one level's
 * latency a to the next one's b. A random chain over S bytes with a level of capacity C in front
 * of it hits that level C/S of the time, so latency(S) = a + (1 - C/S)(b - a): it covers a
 * fraction f at S = C / (1 - f), 1.11 C for f = 0.1 — close to C while far above the noise. */
#define MFB_LEVELS_EDGE_FRACTION 0.1

struct mfb_plateau {
    size_t from, to;  /* the first and last size on it */
    double ns;        /* median latency of its points */
};

struct mfb_boundary {
    size_t below, above; /* the sizes either side of the estimate */
    double estimate;     /* capacity in bytes (MFB_LEVELS_EDGE_FRACTION), within [below, above] */
};

struct mfb_levels {
    int nplateaus, nboundaries; /* nboundaries = nplateaus - 1 */
    struct mfb_plateau plateaus[MFB_LEVELS_MAX + 1];
    struct mfb_boundary boundaries[MFB_LEVELS_MAX];
};

/* Finds the levels in n points (sizes ascending, ns per load), smoothed by a running median of
 * three first (the two end points as measured). */
void mfb_levels_find(const size_t *size, const double *ns, size_t n, struct mfb_levels *out);

#endif
