/* Everything one `memfbench probe` measured, as the file and the summary present it. */
#ifndef MFB_PROBE_RESULT_H
#define MFB_PROBE_RESULT_H

#include "base/warn.h"
#include "measure/cache.h"
#include "probe/bandwidth.h"
#include "probe/clock.h"
#include "probe/latency.h"
#include "probe/levels.h"

/* At most one curve per chase pattern and page kind. */
enum { MFB_PROBE_MAX_LAT_CURVES = MFB_CHASE_COUNT * 2 };

struct mfb_probe_result {
    struct mfb_caches caches;      /* as the system reports them (sysfs) */
    struct mfb_core_clock clock;
    enum mfb_pages huge;           /* the huge pages the latency curves got (4k: none) */
    char huge_why[512];            /* why not, when --huge asked for more */
    size_t huge_page_size;
    int nlat;
    struct mfb_lat_curve lat[MFB_PROBE_MAX_LAT_CURVES];
    int levels_curve;              /* index into lat of the curve levels were found in; -1 none */
    struct mfb_levels levels;
    int bw_levels_curve;           /* index into bw of the read curve; -1 none */
    struct mfb_levels bw_levels;   /* found in ns per byte (1 / GB/s) of the read curve */
    bool found;                    /* caches_found below is set: three levels were found */
    struct mfb_caches caches_found;
    const char *llc_from;          /* "latency" or "read bandwidth": see mfb_probe_find_levels */
    enum mfb_vector vector;
    enum mfb_pages bw_pages;
    int nbw;
    struct mfb_bw_curve bw[MFB_STREAM_KERNEL_COUNT];
    bool interrupted;
    struct mfb_warnings warn;
};

void mfb_probe_result_free(struct mfb_probe_result *r);

/* Finds the levels in the measured curves: in the random chain's latency (on huge pages when
 * they backed at least 90 % of every buffer past one huge page, else on 4 KiB pages, where TLB
 * misses would read as a level of their own), and in the read bandwidth. Then the caches found:
 * L1d and L2 from latency, whose edges are sharp; the LLC from whichever curve puts it higher
 * (from read bandwidth alone when the levels' curve is on 4 KiB pages, whose last rise may be
 * the TLB's reach). On a VM whose host maps its memory with 4 KiB pages the random chain's last
 * rise can be the host's TLB reach, not the LLC (docs/probe.md): the streaming reads, whose page
 * walks are few, still see the cache beyond it, and memfbench's large calls must be placed
 * beyond the real LLC. Nothing is found when interrupted or with fewer than three rises. */
void mfb_probe_find_levels(struct mfb_probe_result *r);

#endif
