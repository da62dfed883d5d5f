#include <stdlib.h>

#include "probe/result.h"

/* Below this share of huge pages a curve is a mix of page kinds, not a huge-page curve. */
#define FOUND_MIN_HUGE_FRACTION 0.9

/* A point's best repeat: least ns per load, or (inverse) least ns per byte, the most GB/s. */
static double best(const struct mfb_probe_point *p, bool inverse)
{
    double med, lo, hi;
    mfb_probe_point_stats(p, &med, &lo, &hi);
    return inverse ? 1 / hi : lo;
}

/* The levels of n points whose value grows at each level's edge, found in each point's best
 * repeat: whatever disturbs a measurement (an interrupt, a VM exit, another program on the CPU,
 * a neighbour on the core's other hardware thread evicting lines) only adds time, so the best
 * repeat is the one closest to what the level itself costs. With the median, two disturbed
 * repeats of three moved a --quick probe's L1d edge from 45 to 32 KiB on the Zen 5 VM; the file
 * keeps every repeat and the median too. With `also` (the random chain on the other page kind,
 * the same sizes), the best over both curves' repeats: a disturbance lasting as long as every
 * repeat of one point in one curve (all five at 45 KiB in one full probe's huge-page curve, the
 * 4 KiB one clean) rarely lasts into the other curve's, minutes apart. */
static void find(const struct mfb_probe_point *pts, size_t n, const struct mfb_probe_point *also, size_t nalso,
                 bool inverse, struct mfb_levels *out)
{
    size_t *s = calloc(n ? n : 1, sizeof *s);
    double *v = calloc(n ? n : 1, sizeof *v);
    if (s && v) {
        for (size_t i = 0, j = 0; i < n; i++) {
            s[i] = pts[i].size;
            v[i] = best(&pts[i], inverse);
            while (j < nalso && also[j].size < pts[i].size)
                j++;
            if (j < nalso && also[j].size == pts[i].size && also[j].nrep > 0) {
                double o = best(&also[j], inverse);
                v[i] = o < v[i] ? o : v[i];
            }
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
            mfb_warn(&r->warn, MFB_W_HUGE_PAGES, "%s backed only %.0f%% of some buffers: levels are found in the "
                     "4 KiB-page curve, and the %s curve is part huge pages (see huge_fraction per point)",
                     mfb_pages_name(c->pages), least * 100, mfb_pages_name(c->pages));
    }
    return pick;
}

void mfb_probe_find_levels(struct mfb_probe_result *r)
{
    r->levels_curve = pick_latency_curve(r);
    /* on huge pages: with the 4 KiB random chain's repeats too (see find) */
    r->levels_also = -1;
    for (int i = 0; r->levels_curve >= 0 && i < r->nlat; i++)
        if (i != r->levels_curve && r->lat[i].chase == MFB_CHASE_RANDOM && r->lat[i].pages == MFB_PAGES_4K &&
            r->lat[r->levels_curve].pages != MFB_PAGES_4K)
            r->levels_also = i;
    if (r->levels_curve >= 0)
        find(r->lat[r->levels_curve].points, r->lat[r->levels_curve].npoints,
             r->levels_also >= 0 ? r->lat[r->levels_also].points : NULL,
             r->levels_also >= 0 ? r->lat[r->levels_also].npoints : 0, false, &r->levels);
    r->bw_levels_curve = -1;
    for (int i = 0; i < r->nbw; i++)
        if (r->bw[i].kernel == MFB_STREAM_READ && r->bw[i].npoints > 1)
            r->bw_levels_curve = i;
    if (r->bw_levels_curve >= 0)
        find(r->bw[r->bw_levels_curve].points, r->bw[r->bw_levels_curve].npoints, NULL, 0, true, &r->bw_levels);
    /* Each level held against the reference sizes (probe/crosscheck.c): the sizes kept are
     * caches_found, what run --cache-from uses. With no latency curve nothing is found
     * (bandwidth alone blurs the first edges: a streaming kernel's footprint is two buffers
     * for a copy, one for a read); nor when a level was beyond every curve (a --quick probe
     * stops before the LLC), nor when interrupted: its curves may stop anywhere. */
    r->found = false;
    if (r->interrupted)
        return;
    struct mfb_xc_input lat = {0}, bw = {0};
    if (r->levels_curve >= 0) {
        const struct mfb_lat_curve *c = &r->lat[r->levels_curve];
        lat = (struct mfb_xc_input){&r->levels, c->points[0].size, c->points[c->npoints - 1].size};
    }
    if (r->bw_levels_curve >= 0) {
        const struct mfb_bw_curve *c = &r->bw[r->bw_levels_curve];
        bw = (struct mfb_xc_input){&r->bw_levels, c->points[0].size, c->points[c->npoints - 1].size};
    }
    mfb_crosscheck_levels(&r->caches, r->levels_curve >= 0 ? &lat : NULL, r->bw_levels_curve >= 0 ? &bw : NULL,
                          &r->xc);
    r->found = r->levels_curve >= 0 && r->xc.usable;
    if (!r->found)
        return;
    r->caches_found = r->caches;
    r->caches_found.l1d = r->xc.level[MFB_XC_L1D].kept;
    r->caches_found.l2 = r->xc.level[MFB_XC_L2].kept;
    r->caches_found.llc = r->xc.level[MFB_XC_LLC].kept;
    r->caches_found.source = MFB_CACHE_PROBE;
}
