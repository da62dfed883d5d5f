/* The probe's data model: what was asked (the configuration, resolved), and what was measured
 * (latency curves, bandwidth curves, the core clock, the cache levels found in the curves). */
#ifndef MFB_PROBE_H
#define MFB_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "machine/timer.h"
#include "probe/chain.h"
#include "probe/pages.h"

/* Every point is measured this many times at most: the repeats live in a fixed array. */
enum { MFB_PROBE_MAX_REPEATS = 32, MFB_PROBE_MAX_THREADS = 256 };

/* --huge: which huge pages the latency curves are measured on besides 4 KiB pages. */
enum mfb_huge_request {
    MFB_HUGE_AUTO,    /* reserved huge pages if there are enough, else THP if enabled, else none */
    MFB_HUGE_OFF,     /* 4 KiB pages only */
    MFB_HUGE_THP,
    MFB_HUGE_HUGETLB,
    MFB_HUGE_COUNT
};
const char *mfb_huge_request_name(enum mfb_huge_request h);

struct mfb_probe_config {
    bool latency, bandwidth, quick, quiet;
    size_t min_size, max_size;      /* resolved: max from the LLC and free memory unless given */
    const char *max_size_source;    /* "--max-size", or how the default was reached */
    unsigned steps;                 /* sizes per octave */
    unsigned repeats;               /* measurements per point, at most MFB_PROBE_MAX_REPEATS */
    uint64_t min_loads, max_loads;  /* timed loads per latency measurement */
    double lat_seconds;             /* ... and no more than this long, but at least min_loads */
    double bw_seconds;              /* timed time per bandwidth measurement */
    enum mfb_huge_request huge;
    int cpu;                        /* latency and one-thread bandwidth */
    int threads;                    /* bandwidth threads, pinned to cpus[0..threads) */
    int cpus[MFB_PROBE_MAX_THREADS];
    uint64_t seed;
    const char *output;
    enum mfb_clock_request clock;  /* --clock */
    int argc;
    char **argv;
};

/* One measured point: `work` loads (latency) or bytes (bandwidth) per repeat. */
struct mfb_probe_point {
    size_t size;
    uint64_t work;
    double huge_fraction;
    unsigned nrep;
    double rep[MFB_PROBE_MAX_REPEATS]; /* ns per load, or GB/s */
};

/* The median, smallest and largest of the point's repeats. */
void mfb_probe_point_stats(const struct mfb_probe_point *p, double *median, double *min, double *max);

struct mfb_lat_curve {
    enum mfb_chase chase;
    enum mfb_pages pages;
    size_t npoints;
    struct mfb_probe_point *points;
};

/* "48 KiB", "1.41 MiB", "2.38 GiB": sizes as a reader compares them with a data sheet. */
const char *mfb_probe_human(double bytes, char *buf, size_t n);

/* The log-spaced sizes from min to max, steps per octave, each a multiple of `align`; returns
 * how many (at most cap) were written to out, or the count needed when out is NULL. */
size_t mfb_probe_sizes(size_t min, size_t max, unsigned steps, size_t align, size_t *out, size_t cap);

/* What the run measures in one place; stop points at the SIGINT flag. */
struct mfb_probe_run {
    const struct mfb_probe_config *cfg;
    const struct mfb_timer *timer;
    volatile sig_atomic_t *stop;
    size_t line;
};

/* The huge page mode --huge resolves to for the latency curves (MFB_PAGES_4K when none), with
 * why in `why` when the request could not be met. */
enum mfb_pages mfb_probe_huge_mode(enum mfb_huge_request h, size_t size, char *why, size_t n);

#endif
