#include <math.h>
#include <stdlib.h>

#include "probe/result.h"

/* Below this share of huge pages a curve is a mix of page kinds, not a huge-page curve. */
#define FOUND_MIN_HUGE_FRACTION 0.9

/* The levels of n points whose value grows at each level's edge. */
static void find(const struct mfb_probe_point *pts, size_t n, bool inverse, struct mfb_levels *out)
{
    size_t *s = calloc(n ? n : 1, sizeof *s);
    double *v = calloc(n ? n : 1, sizeof *v);
    if (s && v) {
        for (size_t i = 0; i < n; i++) {
            double lo, hi;
            s[i] = pts[i].size;
            mfb_probe_point_stats(&pts[i], &v[i], &lo, &hi);
            if (inverse)
                v[i] = 1 / v[i];
        }
        mfb_levels_find(s, v, n, out);
    }
    free(s);
    free(v);
}

static int pick_latency_curve(struct mfb_probe_result *r)
{
    int pick = -1;
    for (int i = 0; i < r->nlat; i++) {
        const struct mfb_lat_curve *c = &r->lat[i];
        if (c->chase != MFB_CHASE_RANDOM || c->npoints < 2)
            continue;
        if (c->pages == MFB_PAGES_4K) {
            pick = pick < 0 ? i : pick;
            continue;
        }
        /* a huge-page curve cut short (Ctrl-C) is not preferred to a longer 4 KiB one */
        if (pick >= 0 && c->npoints < r->lat[pick].npoints)
            continue;
        double least = 1;
        for (size_t k = 0; k < c->npoints; k++)
            if (c->points[k].size >= r->huge_page_size && c->points[k].huge_fraction < least)
                least = c->points[k].huge_fraction;
        if (least >= FOUND_MIN_HUGE_FRACTION)
            pick = i;
        else
            mfb_warn(&r->warn, "huge_pages", "%s backed only %.0f%% of some buffers: levels are found in the "
                     "4 KiB-page curve, and the %s curve is part huge pages (see huge_fraction per point)",
                     mfb_pages_name(c->pages), least * 100, mfb_pages_name(c->pages));
    }
    return pick;
}

void mfb_probe_find_levels(struct mfb_probe_result *r)
{
    r->levels_curve = pick_latency_curve(r);
    if (r->levels_curve >= 0)
        find(r->lat[r->levels_curve].points, r->lat[r->levels_curve].npoints, false, &r->levels);
    r->bw_levels_curve = -1;
    for (int i = 0; i < r->nbw; i++)
        if (r->bw[i].kernel == MFB_STREAM_READ && r->bw[i].npoints > 1)
            r->bw_levels_curve = i;
    if (r->bw_levels_curve >= 0)
        find(r->bw[r->bw_levels_curve].points, r->bw[r->bw_levels_curve].npoints, true, &r->bw_levels);
    /* L1d and L2 from latency; with no latency curve, nothing is found (bandwidth alone blurs the
     * first edges: a streaming kernel's footprint is two buffers for a copy, one for a read).
     * Three rises are needed: a curve that stopped before the LLC's edge has found only two
     * levels. An interrupted probe finds nothing: its curves may stop anywhere. */
    const struct mfb_levels *lat = &r->levels, *bw = &r->bw_levels;
    r->found = !r->interrupted && r->levels_curve >= 0 && lat->nboundaries >= 3;
    if (!r->found)
        return;
    r->caches_found = r->caches;
    r->caches_found.l1d = (size_t)lat->boundaries[0].estimate;
    r->caches_found.l2 = (size_t)lat->boundaries[1].estimate;
    double lat_llc = lat->boundaries[lat->nboundaries - 1].estimate;
    bool have_bw = r->bw_levels_curve >= 0 && bw->nboundaries >= 3;
    double bw_llc = have_bw ? bw->boundaries[bw->nboundaries - 1].estimate : 0;
    if (!have_bw) {
        r->caches_found.llc = (size_t)lat_llc;
        r->llc_from = "latency";
    } else if (r->lat[r->levels_curve].pages == MFB_PAGES_4K) {
        /* on 4 KiB pages the random chain's last rise may be the TLB's reach, past or before
         * the LLC; the streams, one page walk per 64 lines, are not fooled */
        r->caches_found.llc = (size_t)bw_llc;
        r->llc_from = "read bandwidth";
    } else {
        r->caches_found.llc = (size_t)fmax(lat_llc, bw_llc);
        r->llc_from = bw_llc > lat_llc ? "read bandwidth" : "latency";
    }
    if (r->caches_found.llc < r->caches_found.l2)
        r->found = false; /* the curves disagree beyond use: nothing for --cache-from */
    r->caches_found.source = MFB_CACHE_PROBE;
}
