/* The probe's pure parts: every chain visits every line of its buffer exactly once before it
 * returns (a property over sizes, patterns and seeds), the size grid, the levels found in
 * synthetic curves drawn from the random-chain model with known capacities, and the cross-check
 * of the levels against the reported sizes: on model curves shaped like the machines of
 * docs/probe.md, and on curves a full probe measured (tests/data/probe-curves-*.json, given as
 * arguments; nothing here depends on this machine's caches or on timing). */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/chain.h"
#include "probe/levels.h"
#include "probe/probe.h"
#include "probe/result.h"
#include "probe/summary.h"
#include "tap.h"

static void chains(struct tap *t)
{
    const size_t counts[] = {1, 2, 3, 5, 16, 17, 64, 100, 1000, 4097, 65536};
    const size_t lines_sizes[] = {64, 128};
    for (size_t li = 0; li < sizeof lines_sizes / sizeof *lines_sizes; li++) {
        size_t line = lines_sizes[li];
        for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
            size_t n = counts[ci];
            char *buf = aligned_alloc(64, n * line);
            uint32_t *perm = malloc(n * sizeof *perm);
            bool all = true, walked = true, differs = n < 4;
            for (int c = 0; c < MFB_CHASE_COUNT; c++) {
                for (uint64_t seed = 1; seed <= 5; seed++) {
                    struct mfb_rng rng;
                    mfb_rng_seed(&rng, seed);
                    memset(buf, 0xa5, n * line);
                    void *start = mfb_chain_build(buf, n, line, (enum mfb_chase)c, &rng, perm);
                    all &= mfb_chain_cycle_length(buf, n, line, start) == n;
                    /* 16 cycles of n loads come back to the start (the walk rounds to 16) */
                    walked &= mfb_chain_walk(start, 16 * (uint64_t)n) == start;
                    if (c == MFB_CHASE_RANDOM && n >= 4) {
                        /* a random chain is not the sequential one: some line's next is not +1 */
                        void *next;
                        for (size_t k = 0; k < n && !differs; k++) {
                            memcpy(&next, buf + k * line, sizeof next);
                            differs = next != (void *)(buf + ((k + 1) % n) * line);
                        }
                    }
                    if (c != MFB_CHASE_RANDOM)
                        break; /* the strided orders do not depend on the seed */
                }
            }
            TAP_CHECK(t, all, "%zu lines of %zu bytes: every pattern's chain visits each line once, then returns", n,
                      line);
            TAP_CHECK(t, walked, "%zu lines: a walk of 16 cycles ends where it began", n);
            TAP_CHECK(t, differs, "%zu lines: the random chain is not the sequential order", n);
            free(perm);
            free(buf);
        }
    }
    /* the oracle itself refuses a broken chain: two lines pointing to the same next */
    char *buf = aligned_alloc(64, 4 * 64);
    void *p[4] = {buf + 64, buf + 128, buf + 64, buf};
    for (int i = 0; i < 4; i++)
        memcpy(buf + i * 64, &p[i], sizeof(void *));
    TAP_CHECK(t, mfb_chain_cycle_length(buf, 4, 64, buf) == 0, "a chain that revisits a line is caught");
    void *out = buf + 4096;
    memcpy(buf, &out, sizeof out);
    TAP_CHECK(t, mfb_chain_cycle_length(buf, 4, 64, buf) == 0, "a chain that leaves the buffer is caught");
    free(buf);
}

static void sizes(struct tap *t)
{
    size_t n = mfb_probe_sizes(4096, (size_t)1 << 30, 4, 64, NULL, 0);
    size_t *s = calloc(n, sizeof *s);
    mfb_probe_sizes(4096, (size_t)1 << 30, 4, 64, s, n);
    bool ok = s[0] == 4096 && s[n - 1] == (size_t)1 << 30 && n == 73;
    for (size_t i = 1; i < n; i++)
        ok &= s[i] > s[i - 1] && s[i] % 64 == 0 && s[i] <= (size_t)1 << 30;
    TAP_CHECK(t, ok, "4 KiB to 1 GiB at 4 per octave: 73 ascending sizes, multiples of the line, ends included");
    free(s);
    size_t one;
    TAP_CHECK(t, mfb_probe_sizes(8192, 8192, 4, 4096, &one, 1) == 1 && one == 8192, "min = max: one size");
}

/* latency(S) of the random-chain model for levels of capacities cap[] and latencies lat[]. */
static double model(double s, const double *cap, const double *lat, int k)
{
    /* the share of loads served at level i or before is min(1, cap_i / S) */
    double v = 0, served = 0;
    for (int i = 0; i < k; i++) {
        double upto = i < k - 1 ? fmin(1, cap[i] / s) : 1;
        v += (upto - served) * lat[i];
        served = upto;
    }
    return v;
}

static void levels(struct tap *t)
{
    const double cap[] = {48 << 10, 2 << 20, 32 << 20, 0};
    const double lat[] = {1.6, 5.3, 35, 120};
    size_t n = mfb_probe_sizes(4096, (size_t)1 << 30, 4, 64, NULL, 0);
    size_t *s = calloc(n, sizeof *s);
    double *ns = calloc(n, sizeof *ns);
    mfb_probe_sizes(4096, (size_t)1 << 30, 4, 64, s, n);
    for (size_t i = 0; i < n; i++)
        ns[i] = model((double)s[i], cap, lat, 4);
    struct mfb_levels lv;
    mfb_levels_find(s, ns, n, &lv);
    TAP_CHECK(t, lv.nplateaus == 4 && lv.nboundaries == 3, "model curve: 4 plateaus, 3 boundaries (got %d, %d)",
              lv.nplateaus, lv.nboundaries);
    bool close = lv.nboundaries == 3;
    for (int i = 0; i < lv.nboundaries && i < 3; i++) {
        const struct mfb_boundary *b = &lv.boundaries[i];
        close &= b->estimate >= cap[i] / 1.2 && b->estimate <= cap[i] * 1.2 && b->below <= b->estimate &&
                 b->estimate <= b->above;
        printf("# boundary %d: %.0f (capacity %.0f), between %zu and %zu\n", i + 1, b->estimate, cap[i], b->below,
               b->above);
    }
    TAP_CHECK(t, close, "each capacity found within 20 %% and between its two bracketing sizes");
    bool plateaus = lv.nplateaus == 4;
    for (int i = 0; i < lv.nplateaus && i < 4; i++)
        plateaus &= fabs(lv.plateaus[i].ns / lat[i] - 1) < 0.2;
    TAP_CHECK(t, plateaus, "each plateau's latency within 20 %% of its level's");
    /* one noisy point inside a level is not a level */
    ns[20] *= 2.5;
    mfb_levels_find(s, ns, n, &lv);
    TAP_CHECK(t, lv.nboundaries == 3, "a spike of 2.5x at one point adds no level (got %d boundaries)", lv.nboundaries);
    /* a flat curve has one plateau and no boundary; a curve that ends rising ends on a level */
    for (size_t i = 0; i < n; i++)
        ns[i] = 1.7;
    mfb_levels_find(s, ns, n, &lv);
    TAP_CHECK(t, lv.nplateaus == 1 && lv.nboundaries == 0, "a flat curve: one level");
    mfb_levels_find(s, ns, 0, &lv);
    TAP_CHECK(t, lv.nplateaus == 0, "no points: no level");
    free(s);
    free(ns);
}

/* A probe result holding curves given point by point (one repeat each: the value is the median). */
static struct mfb_probe_point *points_from(const size_t *size, const double *v, const double *huge, size_t n)
{
    struct mfb_probe_point *p = calloc(n, sizeof *p);
    for (size_t i = 0; i < n; i++) {
        p[i].size = size[i];
        p[i].nrep = 1;
        p[i].rep[0] = v[i];
        p[i].huge_fraction = huge ? huge[i] : 0;
    }
    return p;
}

static void add_latency(struct mfb_probe_result *r, enum mfb_pages pages, const size_t *size, const double *ns,
                        const double *huge, size_t n)
{
    r->lat[r->nlat++] = (struct mfb_lat_curve){.chase = MFB_CHASE_RANDOM, .pages = pages, .npoints = n,
                                               .points = points_from(size, ns, huge, n)};
}

static void add_read(struct mfb_probe_result *r, const size_t *size, const double *gbps, size_t n)
{
    r->bw[r->nbw++] = (struct mfb_bw_curve){.kernel = MFB_STREAM_READ, .npoints = n,
                                            .points = points_from(size, gbps, NULL, n)};
}

static const struct mfb_xc_level *lvl(const struct mfb_probe_result *r, enum mfb_xc_level_id id)
{
    return &r->xc.level[id];
}

/* Model curves of a machine: latency (the random-chain model) and read bandwidth (the same hit
 * model in ns per byte), with their own capacities, on a grid of 4 (latency) and 2 (bandwidth)
 * sizes per octave up to `top`. */
static void model_machine(struct mfb_probe_result *r, const double *lat_cap, const double *lat_ns,
                          const double *bw_cap, const double *bw_gbps, size_t top)
{
    size_t n = mfb_probe_sizes(4096, top, 4, 64, NULL, 0), nb = mfb_probe_sizes(16384, top, 2, 1024, NULL, 0);
    size_t *s = calloc(n, sizeof *s), *sb = calloc(nb, sizeof *sb);
    double *v = calloc(n, sizeof *v), *huge = calloc(n, sizeof *huge), *vb = calloc(nb, sizeof *vb);
    double inv[4];
    for (int i = 0; i < 4; i++)
        inv[i] = 1 / bw_gbps[i];
    mfb_probe_sizes(4096, top, 4, 64, s, n);
    mfb_probe_sizes(16384, top, 2, 1024, sb, nb);
    for (size_t i = 0; i < n; i++) {
        v[i] = model((double)s[i], lat_cap, lat_ns, 4);
        huge[i] = 1;
    }
    for (size_t i = 0; i < nb; i++)
        vb[i] = 1 / model((double)sb[i], bw_cap, inv, 4);
    r->huge_page_size = 2 << 20;
    add_latency(r, MFB_PAGES_THP, s, v, huge, n);
    add_read(r, sb, vb, nb);
    free(s);
    free(sb);
    free(v);
    free(huge);
    free(vb);
}

/* Curves shaped like the Intel Xeon VM of docs/probe.md (2026-11-22; the figures of its tables,
 * not its points, which were not kept): the random chain rises at 45 KiB, 1.41 MiB and 12 MiB
 * (the last one address translation), read bandwidth falls at 45 KiB, 1.41 MiB and 92 MiB;
 * sysfs says 48 KiB, 2 MiB and 260 MiB. */
static void crosscheck_intel_like(struct tap *t)
{
    const double lat_cap[] = {45.2 * 1024, 1.41 * 1048576, 12.0 * 1048576, 0}, lat_ns[] = {1.69, 5.39, 34.9, 133.4};
    const double bw_cap[] = {45.0 * 1024, 1.41 * 1048576, 92.1 * 1048576, 0}, bw[] = {265.8, 137.9, 29.7, 16.0};
    struct mfb_probe_result r = {.levels_curve = -1, .bw_levels_curve = -1};
    r.caches = (struct mfb_caches){.l1d = 48 << 10, .l2 = 2 << 20, .llc = (size_t)260 << 20, .line = 64,
                                   .source = MFB_CACHE_SYSFS};
    model_machine(&r, lat_cap, lat_ns, bw_cap, bw, (size_t)1 << 30);
    mfb_probe_find_levels(&r);
    TAP_CHECK(t, r.xc.done && lvl(&r, MFB_XC_L1D)->verdict == MFB_XC_AGREES &&
                     lvl(&r, MFB_XC_L1D)->kept_curve == MFB_XC_LATENCY,
              "Intel-like: the L1d agrees with sysfs (latency's step kept)");
    const struct mfb_xc_level *l2 = lvl(&r, MFB_XC_L2);
    TAP_CHECK(t, l2->verdict == MFB_XC_REFERENCE_KEPT && l2->kept == 2 << 20 && l2->view[MFB_XC_LATENCY].contradicts &&
                     l2->view[MFB_XC_BANDWIDTH].contradicts,
              "Intel-like: no curve shows the L2 within 15 %% of 2 MiB: both contradict, sysfs's 2 MiB kept (kept %zu)",
              l2->kept);
    const struct mfb_xc_level *llc = lvl(&r, MFB_XC_LLC);
    TAP_CHECK(t, llc->verdict == MFB_XC_BEYOND_ONE_CORE && llc->kept_curve == MFB_XC_BANDWIDTH &&
                     fabs(llc->kept / (92.1 * 1048576) - 1) < 0.2,
              "Intel-like: read bandwidth is at memory rate below 260 MiB: the LLC is read bandwidth's step (kept %zu)",
              llc->kept);
    TAP_CHECK(t, r.found && r.caches_found.l1d == lvl(&r, MFB_XC_L1D)->kept && r.caches_found.l2 == 2 << 20 &&
                     r.caches_found.llc == llc->kept && r.caches_found.source == MFB_CACHE_PROBE,
              "Intel-like: caches_found holds the sizes kept");
    mfb_probe_result_free(&r);
}

/* Curves shaped like the AMD Zen 3 VM's first report: the random chain (on huge pages) rises at
 * 367 KiB and again at 152 MiB, read bandwidth falls at 16 MiB; sysfs says 32 KiB, 512 KiB and
 * a 32 MiB L3 per CCX. The LLC is never the 152 MiB no stream saw. */
static void crosscheck_zen3_like(struct tap *t)
{
    const double lat_cap[] = {32.0 * 1024, 367.0 * 1024, 152.0 * 1048576, 0}, lat_ns[] = {1.0, 3.5, 40, 110};
    const double bw_cap[] = {32.0 * 1024, 420.0 * 1024, 16.0 * 1048576, 0}, bw[] = {200, 90, 40, 20};
    struct mfb_probe_result r = {.levels_curve = -1, .bw_levels_curve = -1};
    r.caches = (struct mfb_caches){.l1d = 32 << 10, .l2 = 512 << 10, .llc = 32 << 20, .line = 64,
                                   .source = MFB_CACHE_SYSFS};
    model_machine(&r, lat_cap, lat_ns, bw_cap, bw, (size_t)1 << 30);
    mfb_probe_find_levels(&r);
    const struct mfb_xc_level *l2 = lvl(&r, MFB_XC_L2), *llc = lvl(&r, MFB_XC_LLC);
    TAP_CHECK(t, lvl(&r, MFB_XC_L1D)->verdict == MFB_XC_AGREES, "Zen 3-like: the L1d agrees");
    TAP_CHECK(t, l2->verdict == MFB_XC_REFERENCE_KEPT && l2->kept == 512 << 10 && l2->view[MFB_XC_LATENCY].contradicts,
              "Zen 3-like: latency's L2 step at 367 KiB contradicts sysfs, which is kept (kept %zu)", l2->kept);
    TAP_CHECK(t, llc->kept <= (size_t)(32 << 20) && llc->view[MFB_XC_LATENCY].step < 0 &&
                     llc->view[MFB_XC_LATENCY].contradicts,
              "Zen 3-like: latency's rise at 152 MiB, past where read bandwidth fell, is no LLC (kept %zu, %s)",
              llc->kept, mfb_xc_verdict_name(llc->verdict));
    TAP_CHECK(t, r.found && r.caches_found.llc == llc->kept, "Zen 3-like: caches_found.llc is the size kept");
    mfb_probe_result_free(&r);
}

/* An assumed reference (no sysfs, no sysconf) is no reference: the curves' steps are kept. A
 * curve that stops before the LLC checks nothing there: no caches_found. */
static void crosscheck_edges(struct tap *t)
{
    const double lat_cap[] = {48.0 * 1024, 1.0 * 1048576, 32.0 * 1048576, 0}, lat_ns[] = {1.0, 3.5, 40, 110};
    const double bw[] = {200, 90, 40, 20};
    struct mfb_probe_result r = {.levels_curve = -1, .bw_levels_curve = -1};
    r.caches = (struct mfb_caches){.l1d = 32 << 10, .l2 = 1 << 20, .llc = 32 << 20, .line = 64,
                                   .source = MFB_CACHE_DEFAULT};
    model_machine(&r, lat_cap, lat_ns, lat_cap, bw, (size_t)1 << 30);
    mfb_probe_find_levels(&r);
    bool all = r.found;
    for (int i = 0; i < MFB_XC_NLEVELS; i++)
        all &= lvl(&r, (enum mfb_xc_level_id)i)->verdict == MFB_XC_NO_REFERENCE &&
               fabs(lvl(&r, (enum mfb_xc_level_id)i)->kept / lat_cap[i] - 1) < 0.2;
    TAP_CHECK(t, all, "an assumed reference: every level is the curves' step, within 20 %% of the model's");
    mfb_probe_result_free(&r);
    r = (struct mfb_probe_result){.levels_curve = -1, .bw_levels_curve = -1};
    r.caches = (struct mfb_caches){.l1d = 48 << 10, .l2 = 1 << 20, .llc = 32 << 20, .line = 64,
                                   .source = MFB_CACHE_SYSCONF};
    model_machine(&r, lat_cap, lat_ns, lat_cap, bw, 4 << 20);
    mfb_probe_find_levels(&r);
    TAP_CHECK(t, !r.found && lvl(&r, MFB_XC_L1D)->verdict == MFB_XC_AGREES &&
                     lvl(&r, MFB_XC_L2)->verdict == MFB_XC_AGREES && lvl(&r, MFB_XC_LLC)->verdict == MFB_XC_NOT_REACHED,
              "curves up to 4 MiB: L1d and L2 agree, the LLC is not reached, nothing for --cache-from");
    mfb_probe_result_free(&r);
}

/* The curves of a saved probe (tests/data/probe-curves-*.json): the reference sizes, the random
 * chains' medians (on each page kind, with huge_fraction) and the read curve's medians. */
static bool load_saved(const char *path, struct mfb_probe_result *r, char *machine, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    cJSON *d = cJSON_Parse(text);
    if (!d)
        return false;
    const cJSON *ref = cJSON_GetObjectItem(d, "reference"), *m = cJSON_GetObjectItem(d, "machine");
    snprintf(machine, n, "%s", cJSON_IsString(m) ? m->valuestring : path);
    const char *src = cJSON_GetStringValue(cJSON_GetObjectItem(ref, "source"));
    r->caches = (struct mfb_caches){
        .l1d = (size_t)cJSON_GetNumberValue(cJSON_GetObjectItem(ref, "l1d")),
        .l2 = (size_t)cJSON_GetNumberValue(cJSON_GetObjectItem(ref, "l2")),
        .llc = (size_t)cJSON_GetNumberValue(cJSON_GetObjectItem(ref, "llc")), .line = 64,
        .source = src && strcmp(src, "sysfs") == 0 ? MFB_CACHE_SYSFS : src && strcmp(src, "sysconf") == 0
                                                                           ? MFB_CACHE_SYSCONF : MFB_CACHE_DEFAULT};
    r->huge_page_size = (size_t)cJSON_GetNumberValue(cJSON_GetObjectItem(d, "huge_page_size"));
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(d, "latency"))
    {
        const cJSON *s = cJSON_GetObjectItem(c, "size"), *v = cJSON_GetObjectItem(c, "ns_best"),
                    *h = cJSON_GetObjectItem(c, "huge_fraction");
        size_t k = (size_t)cJSON_GetArraySize(s);
        size_t *sz = calloc(k, sizeof *sz);
        double *ns = calloc(k, sizeof *ns), *hf = calloc(k, sizeof *hf);
        for (size_t i = 0; i < k; i++) {
            sz[i] = (size_t)cJSON_GetNumberValue(cJSON_GetArrayItem(s, (int)i));
            ns[i] = cJSON_GetNumberValue(cJSON_GetArrayItem(v, (int)i));
            hf[i] = cJSON_GetNumberValue(cJSON_GetArrayItem(h, (int)i));
        }
        const char *pages = cJSON_GetStringValue(cJSON_GetObjectItem(c, "pages"));
        add_latency(r, pages && strcmp(pages, "thp") == 0 ? MFB_PAGES_THP
                       : pages && strcmp(pages, "hugetlb") == 0 ? MFB_PAGES_HUGETLB : MFB_PAGES_4K,
                    sz, ns, hf, k);
        free(sz);
        free(ns);
        free(hf);
    }
    const cJSON *b = cJSON_GetObjectItem(d, "read_bandwidth");
    const cJSON *s = cJSON_GetObjectItem(b, "size"), *v = cJSON_GetObjectItem(b, "gbps_best");
    size_t k = (size_t)cJSON_GetArraySize(s);
    size_t *sz = calloc(k ? k : 1, sizeof *sz);
    double *g = calloc(k ? k : 1, sizeof *g);
    for (size_t i = 0; i < k; i++) {
        sz[i] = (size_t)cJSON_GetNumberValue(cJSON_GetArrayItem(s, (int)i));
        g[i] = cJSON_GetNumberValue(cJSON_GetArrayItem(v, (int)i));
    }
    if (k)
        add_read(r, sz, g, k);
    free(sz);
    free(g);
    cJSON_Delete(d);
    return r->nlat > 0;
}

static enum mfb_xc_verdict verdict_named(const char *name)
{
    for (int v = 0; v < MFB_XC_NVERDICTS; v++)
        if (name && strcmp(name, mfb_xc_verdict_name((enum mfb_xc_verdict)v)) == 0)
            return (enum mfb_xc_verdict)v;
    return MFB_XC_NVERDICTS;
}

/* The level finder and the cross-check on a saved probe's curves, against what the file's
 * "expect" block says (the outcome read off the curves when they were saved, docs/probe.md):
 * how many levels each curve shows, and per level the verdict, where the size kept comes from,
 * and the range it lies in. */
static void saved_curves(struct tap *t, const char *path)
{
    struct mfb_probe_result r = {.levels_curve = -1, .bw_levels_curve = -1};
    char machine[256];
    bool ok = load_saved(path, &r, machine, sizeof machine);
    TAP_CHECK(t, ok, "%s: curves loaded", path);
    if (!ok)
        return;
    mfb_probe_find_levels(&r);
    FILE *f = fopen(path, "rb");
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    cJSON *d = cJSON_Parse(text);
    const cJSON *ex = cJSON_GetObjectItem(d, "expect");
    int lat_n = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(ex, "latency_boundaries"));
    int bw_n = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(ex, "bandwidth_boundaries"));
    const char *pages = cJSON_GetStringValue(cJSON_GetObjectItem(ex, "latency_pages"));
    TAP_CHECK(t, r.levels_curve >= 0 && pages && strcmp(mfb_pages_name(r.lat[r.levels_curve].pages), pages) == 0,
              "%s: levels found in the random chain on %s pages", machine, pages ? pages : "?");
    TAP_CHECK(t, r.levels.nboundaries == lat_n && r.bw_levels.nboundaries == bw_n,
              "%s: %d latency and %d read-bandwidth steps (found %d and %d)", machine, lat_n, bw_n,
              r.levels.nboundaries, r.bw_levels.nboundaries);
    for (int i = 0; i < r.levels.nboundaries; i++)
        printf("# latency step %d: %.0f (between %zu and %zu)\n", i + 1, r.levels.boundaries[i].estimate,
               r.levels.boundaries[i].below, r.levels.boundaries[i].above);
    for (int i = 0; i < r.bw_levels.nboundaries; i++)
        printf("# read-bandwidth step %d: %.0f\n", i + 1, r.bw_levels.boundaries[i].estimate);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(ex, "levels"))
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "level"));
        const struct mfb_xc_level *l = NULL;
        for (int i = 0; i < MFB_XC_NLEVELS; i++)
            if (name && strcmp(name, mfb_xc_level_name((enum mfb_xc_level_id)i)) == 0)
                l = lvl(&r, (enum mfb_xc_level_id)i);
        const char *from = cJSON_GetStringValue(cJSON_GetObjectItem(e, "kept_from"));
        double lo = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "kept_min"));
        double hi = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "kept_max"));
        enum mfb_xc_verdict want = verdict_named(cJSON_GetStringValue(cJSON_GetObjectItem(e, "verdict")));
        char why[768] = "";
        if (l)
            mfb_xc_explain(&r.xc, l, why, sizeof why);
        TAP_CHECK(t, l && l->verdict == want && from && strcmp(mfb_xc_kept_from(&r.xc, l), from) == 0 &&
                         (double)l->kept >= lo && (double)l->kept <= hi,
                  "%s: %s %s, kept %zu from %s (%s)", machine, name ? name : "?",
                  l ? mfb_xc_verdict_name(l->verdict) : "?", l ? l->kept : 0, l ? mfb_xc_kept_from(&r.xc, l) : "?",
                  why);
    }
    bool found = cJSON_IsTrue(cJSON_GetObjectItem(ex, "found"));
    TAP_CHECK(t, r.found == found && (!found || (r.caches_found.l1d == lvl(&r, MFB_XC_L1D)->kept &&
                                                 r.caches_found.l2 == lvl(&r, MFB_XC_L2)->kept &&
                                                 r.caches_found.llc == lvl(&r, MFB_XC_LLC)->kept)),
              "%s: caches_found %s the sizes kept", machine, found ? "holds" : "is not set from");
    cJSON_Delete(d);
    mfb_probe_result_free(&r);
}

/* The bandwidth table flags a level nearer the core measured slower than one further out (issue 54:
 * `probe --quick` showed L1d below the LLC without a word), and says nothing of an ordered one. */
static void bandwidth_order(struct tap *t)
{
    const size_t sizes[] = {16384, 524288, 4u << 20, 64u << 20};
    const double ordered[] = {200, 110, 97, 20}, inverted[] = {90, 110, 97, 20};
    const double *which[] = {ordered, inverted};
    for (int k = 0; k < 2; k++) {
        struct mfb_probe_result r = {.levels_curve = -1, .bw_levels_curve = -1,
                                     .caches = {.l1d = 32768, .l2 = 1u << 20, .llc = 8u << 20}};
        add_read(&r, sizes, which[k], 4);
        struct mfb_probe_config cfg = {.bandwidth = true, .quick = true, .threads = 1};
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        mfb_probe_summary_print(out, &cfg, &r);
        fclose(out);
        bool noted = text && strstr(text, "note: read at L1d/2") && strstr(text, "(--quick)");
        TAP_CHECK(t, k ? noted : !strstr(text ? text : "", "note:"), "bandwidth %s: %s", k ? "out of order" : "in order",
                  k ? "the note says which level and --quick" : "no note");
        free(text);
        mfb_probe_result_free(&r);
    }
}

int main(int argc, char **argv)
{
    struct tap t = {0};
    chains(&t);
    sizes(&t);
    levels(&t);
    crosscheck_intel_like(&t);
    crosscheck_zen3_like(&t);
    crosscheck_edges(&t);
    bandwidth_order(&t);
    for (int i = 1; i < argc; i++)
        saved_curves(&t, argv[i]);
    return tap_done(&t);
}
