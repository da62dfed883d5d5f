/* The working-set plan on real cache geometries, without timing: for every geometry and every
 * function's shipped fleet distribution, the plan fits its L1 budget, the small-call limit is the
 * documented one (2 KiB from a 32 KiB L1d up; the largest that fits below, never under the floor),
 * every small call the sampler draws lies inside its window, and the large window is beyond the
 * LLC within a bounded arena (or says it is not). Then the refusals. */
#include <stdlib.h>
#include <string.h>

#include "measure/evict.h"
#include "measure/workset.h"
#include "tap.h"
#include "workload/call.h"
#include "workload/distribution.h"
#include "workload/sampler.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* Per-core sizes as one core sees them (an AMD L3 per CCX/CCD), from the vendors' published
 * specifications; the last two are what CPUID reports on our two kinds of development VM. */
static const struct geometry {
    const char *name;
    size_t l1d, l2, llc;
} geometries[] = {
    {"AMD Zen 2 (EPYC 7002, L3 per CCX)", 32 * KIB, 512 * KIB, 16 * MIB},
    {"AMD Zen 3 (EPYC 7003, L3 per CCD)", 32 * KIB, 512 * KIB, 32 * MIB},
    {"AMD Zen 4 (EPYC 9004, L3 per CCD)", 32 * KIB, 1 * MIB, 32 * MIB},
    {"AMD Zen 5 (EPYC 9005, L3 per CCD)", 48 * KIB, 1 * MIB, 32 * MIB},
    {"AMD Genoa-X (EPYC 9684X, whole socket's L3)", 32 * KIB, 1 * MIB, 1152 * MIB},
    {"Intel Skylake-SP (Xeon Platinum 8180)", 32 * KIB, 1 * MIB, 38 * MIB + 512 * KIB},
    {"Intel Cascade Lake (Xeon Platinum 8280)", 32 * KIB, 1 * MIB, 38 * MIB + 512 * KIB},
    {"Intel Ice Lake-SP (Xeon Platinum 8380)", 48 * KIB, 1 * MIB + 256 * KIB, 60 * MIB},
    {"Intel Sapphire Rapids (Xeon Platinum 8480+)", 48 * KIB, 2 * MIB, 105 * MIB},
    {"AWS Graviton 2 (Neoverse N1)", 64 * KIB, 1 * MIB, 32 * MIB},
    {"AWS Graviton 3 (Neoverse V1)", 64 * KIB, 1 * MIB, 32 * MIB},
    {"NVIDIA Grace (Neoverse V2)", 64 * KIB, 1 * MIB, 114 * MIB},
    {"Apple M1 P-core (Firestorm, L2 last level)", 128 * KIB, 12 * MIB, 12 * MIB},
    {"Arm Cortex-A55 with a 16 KiB L1d", 16 * KIB, 128 * KIB, 2 * MIB},
    {"Intel Atom Silvermont (24 KiB L1d)", 24 * KIB, 1 * MIB, 1 * MIB},
    {"Intel Xeon dev VM (CPUID)", 48 * KIB, 2 * MIB, 260 * MIB},
    {"AMD Zen 5 dev VM (CPUID: whole socket)", 48 * KIB, 1 * MIB, 508 * MIB},
    /* the capped window exactly the LLC's size, per buffer: warned (it once passed as 2x, both buffers counted) */
    {"a 1 GiB LLC (--cache 32K:1M:1024M)", 32 * KIB, 1 * MIB, 1024 * MIB},
};

static const enum mfb_func funcs[] = {MFB_MEMCPY, MFB_MEMMOVE, MFB_MEMSET, MFB_MEMCMP, MFB_BCMP};

static struct mfb_workset_need need_of(const struct mfb_dist *d)
{
    struct mfb_workset_need n = {.max_size = mfb_table_max(&d->size),
                                 .align_period = mfb_dist_align_period(d),
                                 .overlap = mfb_dist_overlaps(d)};
    return n;
}

/* Whether [at, at + size) lies in role r's small window. */
static bool inside(const struct mfb_space *sp, int r, uint64_t at, uint64_t size)
{
    return at >= sp->small.off[r] && at + size <= sp->small.off[r] + sp->small.size;
}

/* Draws calls and checks every small one stays in its windows. */
static bool small_calls_inside(const struct mfb_workset *ws, const struct mfb_dist *d, size_t *small_seen)
{
    enum { N = 8192 };
    struct mfb_call *calls = malloc(N * sizeof *calls);
    struct mfb_sampler s;
    struct mfb_err err;
    if (!calls || mfb_sampler_init(&s, d, &ws->space, MFB_ALIGN_EXACT, 7, &err) < 0) {
        free(calls);
        return false;
    }
    mfb_sampler_fill(&s, calls, N);
    mfb_sampler_free(&s);
    bool ok = true;
    *small_seen = 0;
    for (size_t i = 0; i < N; i++) {
        if (calls[i].size & MFB_CALL_LARGE)
            continue;
        uint64_t size = calls[i].size & MFB_SIZE_MASK;
        ++*small_seen;
        const struct mfb_space *sp = &ws->space;
        if (sp->roles == 1)
            ok &= inside(sp, 0, calls[i].dst, size);
        else if (inside(sp, 0, calls[i].dst, size)) /* an overlapping call: both in role 0's window */
            ok &= inside(sp, 0, calls[i].src, size);
        else
            ok &= inside(sp, 0, calls[i].src, size) && inside(sp, 1, calls[i].dst, size);
    }
    free(calls);
    return ok;
}

static void check_geometry(struct tap *t, const struct geometry *g, enum mfb_func f, const struct mfb_dist *d)
{
    const struct mfb_caches c = {.l1d = g->l1d, .l2 = g->l2, .llc = g->llc, .line = 64, .source = MFB_CACHE_USER};
    const struct mfb_workset_need need = need_of(d);
    struct mfb_workset ws;
    struct mfb_err err = {{0}};
    const char *fn = mfb_func_name(f);
    if (mfb_workset_plan(&ws, f, MFB_PL_AUTO, &c, &need, &err) < 0) {
        TAP_CHECK(t, false, "%s, %s: plans (%s)", g->name, fn, err.msg);
        return;
    }
    const struct mfb_space *sp = &ws.space;
    uint64_t params = (uint64_t)mfb_workset_params(&ws) * sizeof(struct mfb_call);
    uint64_t used = params + (uint64_t)sp->roles * sp->small.size;
    TAP_CHECK(t, used <= ws.l1_budget && ws.l1_budget <= g->l1d,
              "%s, %s: parameters (%llu B) and %d small windows of %llu B fit the L1 budget %llu of %zu",
              g->name, fn, (unsigned long long)params, sp->roles, (unsigned long long)sp->small.size,
              (unsigned long long)ws.l1_budget, g->l1d);
    uint64_t room = need.overlap ? 2 * sp->threshold + ws.align_room : sp->threshold + ws.align_room;
    TAP_CHECK(t, sp->small.size >= room,
              "%s, %s: the window (%llu B) holds the largest small call %llu with %llu B of alignment room%s",
              g->name, fn, (unsigned long long)sp->small.size, (unsigned long long)sp->threshold,
              (unsigned long long)ws.align_room, need.overlap ? " and its overlap distance" : "");
    if (g->l1d >= 32 * KIB)
        TAP_CHECK(t, sp->threshold == MFB_DEFAULT_SMALL_MAX && ws.small_max_source == MFB_SMALL_MAX_DEFAULT,
                  "%s, %s: small limit %llu is the default %u", g->name, fn, (unsigned long long)sp->threshold,
                  MFB_DEFAULT_SMALL_MAX);
    else
        TAP_CHECK(t, sp->threshold >= MFB_SMALL_MAX_FLOOR &&
                         (sp->threshold == MFB_DEFAULT_SMALL_MAX
                              ? ws.small_max_source == MFB_SMALL_MAX_DEFAULT
                              : ws.small_max_source == MFB_SMALL_MAX_REDUCED && sp->threshold + 64 > ws.small_fits),
                  "%s, %s: small limit %llu (%s) is the largest that fits (%llu), at least %u", g->name, fn,
                  (unsigned long long)sp->threshold, mfb_small_max_source_name(ws.small_max_source),
                  (unsigned long long)ws.small_fits, MFB_SMALL_MAX_FLOOR);
    size_t small_seen = 0;
    TAP_CHECK(t, small_calls_inside(&ws, d, &small_seen) && small_seen > 0,
              "%s, %s: %zu drawn small calls lie inside their windows", g->name, fn, small_seen);
    /* The large window, evicted (where this build can flush): the same fixed window on every
     * geometry, beyond the LLC by construction. */
    bool evicted = ws.large_scheme == MFB_LARGE_EVICTED;
    TAP_CHECK(t, sp->large.used && evicted == mfb_target_user_flush() && mfb_workset_large_beyond_llc(&ws) &&
                     (!evicted || sp->large.size == MFB_EVICT_WINDOW),
              "%s, %s: large window %s, %llu MiB per buffer, arena %llu MiB", g->name, fn,
              mfb_large_scheme_name(ws.large_scheme), (unsigned long long)(sp->large.size >> 20),
              (unsigned long long)(ws.arena_size >> 20));
    /* Sized (--large-window sized): 4 x LLC per buffer, capped at 1 GiB (the arena's offsets are
     * 32-bit), warned where the cap leaves it under twice the LLC. */
    struct mfb_workset_need sized_need = need;
    sized_need.sized = true;
    struct mfb_workset sized;
    TAP_CHECK(t, mfb_workset_plan(&sized, f, MFB_PL_AUTO, &c, &sized_need, &err) == 0 &&
                     sized.large_scheme == MFB_LARGE_SIZED,
              "%s, %s: --large-window sized plans the sized scheme", g->name, fn);
    double multiple = (double)sized.space.large.size / (double)g->llc;
    bool beyond = mfb_workset_large_beyond_llc(&sized);
    TAP_CHECK(t, sized.space.large.used && sized.arena_size < ((uint64_t)4 << 30) &&
                     sized.space.large.size <= ((uint64_t)1 << 30) && beyond == (multiple >= MFB_LARGE_LLC_MULTIPLE) &&
                     (g->llc > 512 * MIB) == !beyond,
              "%s, %s: sized large window %llu MiB per buffer, %.2fx the LLC per buffer (%s), arena %llu MiB", g->name,
              fn, (unsigned long long)(sized.space.large.size >> 20), multiple,
              beyond ? "beyond it" : "NOT beyond it: warned", (unsigned long long)(sized.arena_size >> 20));
}

int main(void)
{
    struct tap t = {0};
    for (size_t k = 0; k < sizeof funcs / sizeof funcs[0]; k++) {
        struct mfb_dist d;
        struct mfb_err err = {{0}};
        memset(&d, 0, sizeof d);
        if (mfb_dist_resolve(&d, mfb_func_default_distribution(funcs[k]), funcs[k], MFB_TEST_DIST_DIR, &err) < 0) {
            TAP_CHECK(&t, false, "%s: %s", mfb_func_name(funcs[k]), err.msg);
            continue;
        }
        for (size_t i = 0; i < sizeof geometries / sizeof geometries[0]; i++)
            check_geometry(&t, &geometries[i], funcs[k], &d);
        mfb_dist_free(&d);
    }
    /* Refusals: an auto plan whose small limit would fall below the floor. */
    struct mfb_workset ws;
    struct mfb_err err = {{0}};
    const struct mfb_caches tiny = {.l1d = 2 * KIB, .l2 = 128 * KIB, .llc = 1 * MIB, .line = 64, .source = MFB_CACHE_USER};
    const struct mfb_workset_need fleet = {.max_size = 1 << 16, .align_period = 64};
    TAP_CHECK(&t, mfb_workset_plan(&ws, MFB_MEMCPY, MFB_PL_AUTO, &tiny, &fleet, &err) < 0 &&
                      strstr(err.msg, "below 256") && strstr(err.msg, "--cache"),
              "a 2 KiB L1d is refused: %s", err.msg);
    const struct mfb_caches small = {.l1d = 16 * KIB, .l2 = 128 * KIB, .llc = 2 * MIB, .line = 64, .source = MFB_CACHE_USER};
    const struct mfb_workset_need paged = {.max_size = 1 << 16, .align_period = 4096};
    TAP_CHECK(&t, mfb_workset_plan(&ws, MFB_MEMCPY, MFB_PL_AUTO, &small, &paged, &err) < 0 && strstr(err.msg, "4096 of alignment room"),
              "4 KiB alignments on a 16 KiB L1d are refused: %s", err.msg);
    const struct mfb_caches zen3 = {.l1d = 32 * KIB, .l2 = 512 * KIB, .llc = 32 * MIB, .line = 64, .source = MFB_CACHE_USER};
    TAP_CHECK(&t, mfb_workset_plan(&ws, MFB_MEMCPY, MFB_PL_AUTO, &zen3, &paged, &err) == 0 &&
                      ws.space.threshold == MFB_DEFAULT_SMALL_MAX,
              "4 KiB alignments on a 32 KiB L1d keep the 2 KiB limit");
    const struct mfb_workset_need asked = {.max_size = 1 << 16, .align_period = 64, .small_max = 128};
    TAP_CHECK(&t, mfb_workset_plan(&ws, MFB_MEMCPY, MFB_PL_AUTO, &zen3, &asked, &err) == 0 &&
                      ws.space.threshold == 128 && ws.small_max_source == MFB_SMALL_MAX_USER,
              "--small-max below the floor is the user's choice, not refused");
    return tap_done(&t);
}
