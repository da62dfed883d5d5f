/* Everything one `memfbench probe` measured, as the file and the summary present it. */
#ifndef MFB_PROBE_RESULT_H
#define MFB_PROBE_RESULT_H

#include "base/warn.h"
#include "machine/cache.h"
#include "probe/bandwidth.h"
#include "probe/clock.h"
#include "probe/crosscheck.h"
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
    int levels_also;               /* the 4 KiB random curve whose repeats count too; -1 none */
    struct mfb_levels levels;
    int bw_levels_curve;           /* index into bw of the read curve; -1 none */
    struct mfb_levels bw_levels;   /* found in ns per byte (1 / GB/s) of the read curve */
    struct mfb_crosscheck xc;      /* the levels against the reported sizes; done = false: none */
    bool found;                    /* caches_found below is set: the sizes xc kept */
    struct mfb_caches caches_found;
    enum mfb_vector vector;
    enum mfb_pages bw_pages;
    int nbw;
    struct mfb_bw_curve bw[MFB_STREAM_KERNEL_COUNT];
    bool interrupted;
    struct mfb_warnings warn;
};

void mfb_probe_result_free(struct mfb_probe_result *r);

/* Finds the levels in the measured curves: in the random chain's latency (on huge pages when
 * they backed at least 90 % of every buffer past one huge page, with the 4 KiB curve's repeats
 * too; else on 4 KiB pages), each point's best repeat, and in the read bandwidth. Then holds each level against the reported sizes (probe/crosscheck.h: a step
 * within 15 % is kept; a level no curve shows there keeps the reported size, naming the curves
 * that contradict it; an LLC larger than where read bandwidth reaches its memory rate is more
 * than one core can use, and read bandwidth's last step is kept). The sizes kept are
 * caches_found. Nothing is found when interrupted, without a latency curve, or when a level is
 * beyond every curve. */
void mfb_probe_find_levels(struct mfb_probe_result *r);

#endif
