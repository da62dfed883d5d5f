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

static int measure_point(const struct mfb_probe_run *run, const struct mfb_lat_curve *c, struct mfb_probe_point *p,
                         uint64_t seed, struct mfb_err *err)
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
    /* Enough loads that the clock's resolution and the timer's cost vanish in the total, and
     * at most max_loads, so the largest buffers are walked in part: a part of one random cycle
     * still visits each line once. */
    uint64_t loads = lines < cfg->min_loads ? cfg->min_loads : lines > cfg->max_loads ? cfg->max_loads : lines;
    loads = (loads + 15) / 16 * 16;
    /* Warm: one pass brings the buffer into the caches it fits and its pages into the TLB. */
    at = mfb_chain_walk(at, lines < cfg->max_loads ? lines : cfg->max_loads);
    p->work = loads;
    p->huge_fraction = r.huge_fraction;
    p->nrep = 0;
    for (unsigned k = 0; k < cfg->repeats && !*run->stop; k++)
        p->rep[p->nrep++] = timed_walk(run->timer, &at, loads);
    __asm__ volatile("" : : "r"(at)); /* the walk's result is used: its loads stay */
    mfb_region_unmap(&r);
    return 0;
}

int mfb_latency_curve(const struct mfb_probe_run *run, struct mfb_lat_curve *c, void (*progress)(const struct mfb_lat_curve *, size_t, void *),
                      void *ctx, struct mfb_err *err)
{
    size_t done = 0;
    for (size_t i = 0; i < c->npoints && !*run->stop; i++) {
        if (progress)
            progress(c, i, ctx);
        /* Each point's chain has its own stream: a curve measured again with the same seed
         * walks the same cycles, whatever other curves were measured. */
        uint64_t seed = mfb_seed_derive(run->cfg->seed, ((uint64_t)c->chase << 48) ^ ((uint64_t)c->pages << 40) ^ c->points[i].size);
        if (measure_point(run, c, &c->points[i], seed, err) < 0)
            return -1;
        if (c->points[i].nrep > 0)
            done = i + 1;
    }
    c->npoints = done;
    return 0;
}
