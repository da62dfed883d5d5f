#include "probe/latency.h"

#include <stdlib.h>

#include "base/seeds.h"

static double timed_walk(const struct mfb_timer *t, void **at, uint64_t loads)
{
    int cpu;
    uint64_t t0 = mfb_timer_begin(t);
    *at = mfb_chain_walk(*at, loads);
    uint64_t t1 = mfb_timer_end(t, &cpu);
    return (double)(t1 - t0) * t->ns_per_tick / (double)loads;
}

/* Maps the point's buffer, builds and warms a chain through it, and adds `repeats` timed walks
 * to its repeats. */
static int measure_point(const struct mfb_probe_run *run, const struct mfb_lat_curve *c, struct mfb_probe_point *p,
                         uint64_t seed, unsigned repeats, struct mfb_err *err)
{
    const struct mfb_probe_config *cfg = run->cfg;
    struct mfb_region r;
    size_t lines = p->size / run->line;
    if (mfb_region_map(&r, p->size, c->pages, err) < 0)
        return -1;
    uint32_t *perm = malloc(lines * sizeof *perm);
    if (!perm) {
        mfb_region_unmap(&r);
        return mfb_fail(err, "out of memory for a chain of %zu lines", lines);
    }
    struct mfb_rng rng;
    mfb_rng_seed(&rng, seed);
    void *at = mfb_chain_build(r.buf, lines, run->line, c->chase, &rng, perm);
    free(perm);
    /* Warm: one pass brings the buffer into the caches it fits and its pages into the TLB; its
     * first min_loads loads are timed, to know what a load costs here. */
    uint64_t warm = lines < cfg->max_loads ? lines : cfg->max_loads;
    uint64_t first = warm < cfg->min_loads ? warm : cfg->min_loads;
    first = first < 16 ? 16 : first / 16 * 16;
    double ns_first = timed_walk(run->timer, &at, first);
    /* Loads per repeat: enough that the clock's resolution and the timer's cost vanish in the
     * total (min_loads), at most max_loads, so the largest buffers are walked in part (a part of
     * one random cycle still visits each line once), and no more than lat_seconds' worth: past
     * the LLC a random load costs 100-1000 ns, and 2^22 of them took 2-4 s per repeat, a third
     * of a full probe's time, to average what 2^20 already average (every one a miss). The
     * rest of the warm pass is cut the same way: no cache holds those buffers. */
    uint64_t budget = ns_first > 0 ? (uint64_t)(cfg->lat_seconds * 1e9 / ns_first) : cfg->max_loads;
    uint64_t loads = lines < cfg->min_loads ? cfg->min_loads : lines > cfg->max_loads ? cfg->max_loads : lines;
    if (loads > budget)
        loads = budget < cfg->min_loads ? cfg->min_loads : budget;
    loads = (loads + 15) / 16 * 16;
    if (warm > first)
        at = mfb_chain_walk(at, warm - first < budget ? warm - first : budget);
    p->work = loads;
    /* over several buffers, the least backed: the levels' curve must be huge pages throughout */
    p->huge_fraction = p->nrep == 0 || r.huge_fraction < p->huge_fraction ? r.huge_fraction : p->huge_fraction;
    for (unsigned k = 0; k < repeats && p->nrep < MFB_PROBE_MAX_REPEATS && !*run->stop; k++)
        p->rep[p->nrep++] = timed_walk(run->timer, &at, loads);
    __asm__ volatile("" : : "r"(at)); /* the walk's result is used: its loads stay */
    mfb_region_unmap(&r);
    return 0;
}

int mfb_latency_curve(const struct mfb_probe_run *run, struct mfb_lat_curve *c, void (*progress)(const struct mfb_lat_curve *, size_t, void *),
                      void *ctx, struct mfb_err *err)
{
    /* --quick spreads each point's repeats over the curve: one pass over every size per repeat,
     * each on a fresh buffer and chain. Its measurements are short (2^16 loads: under 0.1 ms in
     * L1), shorter than what disturbs them (another program on the CPU, or on the core's other
     * hardware thread, evicting lines for milliseconds), so repeats back to back were disturbed
     * together: every repeat of the 45 KiB point missed the L1 in some runs on the Zen 5 VM.
     * Passes a curve apart (0.1 s) are disturbed apart. The full probe's repeats, 16 times
     * longer and on buffers up to 2 GiB that take seconds to build, stay back to back. */
    const struct mfb_probe_config *cfg = run->cfg;
    unsigned passes = cfg->quick ? cfg->repeats : 1, per_pass = cfg->quick ? 1 : cfg->repeats;
    for (size_t i = 0; i < c->npoints; i++)
        c->points[i].nrep = 0;
    for (unsigned pass = 0; pass < passes && !*run->stop; pass++) {
        for (size_t i = 0; i < c->npoints && !*run->stop; i++) {
            if (progress && pass == 0)
                progress(c, i, ctx);
            /* Each point's chain has its own stream: a curve measured again with the same seed
             * walks the same cycles, whatever other curves were measured; each pass its own. */
            uint64_t seed = mfb_seed_derive(run->cfg->seed, ((uint64_t)pass << 56) ^ ((uint64_t)c->chase << 48) ^
                                                                ((uint64_t)c->pages << 40) ^ c->points[i].size);
            if (measure_point(run, c, &c->points[i], seed, per_pass, err) < 0)
                return -1;
        }
    }
    size_t done = 0;
    while (done < c->npoints && c->points[done].nrep > 0)
        done++;
    c->npoints = done;
    return 0;
}
