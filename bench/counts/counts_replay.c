/* memfbench counts' internal mode, the process callgrind watches: the calls drawn as a run draws
 * them, the variant verified on them, then the counted loop (measure/counted.h). Only that loop's
 * cost is collected, so none of this set-up shows in the counts. */
#include <stdio.h>
#include <stdlib.h>

#include "base/seeds.h"
#include "impl/plugin.h"
#include "impl/verify.h"
#include "machine/cache.h"
#include "machine/pagesize.h"
#include "measure/counted.h"
#include "measure/workset.h"
#include "counts/counts.h"
#include "programs/reply.h"
#include "workload/distribution.h"
#include "workload/sampler.h"

/* The buffers as a run with default options lays them out (auto placement: small calls in a window
 * that stays in L1d, large ones in a window far larger than the LLC), from this machine's caches
 * or --cache's:
 * the addresses, and so the simulated cache lines each call touches, are those a run replays. */
static int workset(struct mfb_workset *ws, const struct mfb_counts_config *cfg, const struct mfb_dist *d,
                   struct mfb_err *err)
{
    struct mfb_caches caches;
    mfb_cache_detect(&caches, -1);
    if (cfg->cache) { /* --cache: a plan that means the same on every machine */
        caches.l1d = cfg->caches[0];
        caches.l2 = cfg->caches[1];
        caches.llc = cfg->caches[2];
        caches.source = MFB_CACHE_USER;
    }
    struct mfb_workset_need need = {.max_size = mfb_table_max(&d->size), .align_period = mfb_dist_align_period(d),
                                    .overlap = mfb_dist_overlaps(d)};
    if (mfb_page_size_get(&need.page, err) < 0 || mfb_workset_plan(ws, cfg->func, MFB_PL_AUTO, &caches, &need, err) < 0)
        return -1;
    return mfb_workset_alloc(ws, mfb_stream_seed(cfg->seed, MFB_STREAM_ARENA), err);
}

/* The calls: the run's parameter stream of the same seed, so `counts --seed S` and `run --seed S`
 * draw their first calls alike. */
static int draw(struct mfb_call *calls, const struct mfb_counts_config *cfg, const struct mfb_dist *d,
                const struct mfb_workset *ws, struct mfb_err *err)
{
    struct mfb_sampler s;
    if (mfb_sampler_init(&s, d, &ws->space, MFB_ALIGN_EXACT, mfb_stream_seed(cfg->seed, MFB_STREAM_PARAMS), err) < 0)
        return -1;
    mfb_sampler_fill(&s, calls, cfg->calls);
    mfb_sampler_free(&s);
    return 0;
}

static int verify(const struct mfb_variant *v, const struct mfb_call *calls, const struct mfb_counts_config *cfg,
                  const struct mfb_dist *d, uint64_t *checked, struct mfb_err *err)
{
    static struct mfb_activity activity; /* no guard watches this process; verify records into it */
    struct mfb_verify ver;
    if (mfb_verify_init(&ver, mfb_table_max(&d->size), mfb_stream_seed(cfg->seed, MFB_STREAM_VERIFY), &activity,
                        err) < 0)
        return -1;
    int rc = mfb_verify_calls(&ver, v, calls, cfg->calls, err);
    *checked = ver.checked;
    mfb_verify_free(&ver);
    return rc;
}

/* The loops' results are used, so no call can be left out. */
static volatile uint64_t counts_kept;

int mfb_counts_replay(const struct mfb_counts_config *cfg)
{
    /* an internal mode: it answers the memfbench that started it (programs/reply.h), and nobody else */
    mfb_reply_open();
    if (!mfb_reply_wanted()) {
        fprintf(stderr, "memfbench counts: --replay is internal (memfbench counts and run --pgo start it under "
                        "callgrind or for a training); run memfbench counts -v V -o FILE\n");
        return MFB_EXIT_USAGE;
    }
    struct mfb_err err = {{0}};
    struct mfb_dist dist = {0};
    struct mfb_workset ws = {0};
    struct mfb_variant v;
    struct mfb_call *calls = NULL;
    const char *why = NULL;
    uint64_t checked = 0;
    int rc = -1;
    void *plugin = NULL;
    const struct mfb_variant *found = mfb_variant_find(cfg->func, cfg->variants[0]);
    if (mfb_plugin_spec(cfg->variants[0])) {
        /* a shared object's function: --pgo's training replay of an instrumented build */
        if (mfb_plugin_load(cfg->variants[0], cfg->func, &v, &plugin, &err) == 0 &&
            mfb_dist_resolve(&dist, cfg->dist, cfg->func, cfg->dist_dir, &err) == 0 && workset(&ws, cfg, &dist, &err) == 0)
            rc = 0;
    } else if (!found) {
        mfb_fail(&err, "memfbench counts: '%s' is not a variant of %s", cfg->variants[0], mfb_func_name(cfg->func));
    } else if (mfb_variant_instantiate(found, &v, &why) < 0) {
        mfb_fail(&err, "memfbench counts: variant '%s' is not available here: %s", found->name, why);
    } else if (mfb_dist_resolve(&dist, cfg->dist, cfg->func, cfg->dist_dir, &err) == 0 &&
               workset(&ws, cfg, &dist, &err) == 0) {
        rc = 0;
    }
    if (rc == 0) {
        rc = -1;
        if (!(calls = malloc((size_t)cfg->calls * sizeof *calls)))
            mfb_fail(&err, "memfbench counts: out of memory for %u calls", cfg->calls);
        else if (draw(calls, cfg, &dist, &ws, &err) == 0 && verify(&v, calls, cfg, &dist, &checked, &err) == 0)
            rc = 0;
    }
    if (rc == 0) {
        struct mfb_counted c = {.variant = &v, .base = ws.arena, .calls = calls, .n = cfg->calls};
        uint64_t sink = mfb_counted_warm(&c);
        sink ^= mfb_counted_loop(&c);
        struct mfb_codeinfo code;
        mfb_variant_codeinfo(&v, &code);
        counts_kept = sink;
        /* for the parent: what was verified and where the code came from */
        mfb_reply_field_u64("verified", (unsigned long long)checked);
        mfb_reply_field("symbol", code.symbol ? code.symbol : "");
        mfb_reply_field("object", code.object ? code.object : "");
        mfb_reply_field("name", v.name);
        mfb_reply_field("origin", mfb_origin_name(v.origin));
    }
    free(calls);
    mfb_plugin_unload(&v, plugin); /* an instrumented library writes its profile as it closes */
    if (ws.arena)
        mfb_workset_free(&ws);
    mfb_dist_free(&dist);
    /* the reply last: the profile is written by now */
    mfb_reply_close(rc == 0 ? MFB_REPLY_OK : MFB_REPLY_FAILED, rc == 0 ? "" : err.msg);
    return rc == 0 ? MFB_EXIT_OK : MFB_EXIT_FAIL;
}
