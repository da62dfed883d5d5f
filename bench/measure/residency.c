#include "measure/residency.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/quantile.h"
#include "base/rng.h"
#include "measure/evict.h"
#include "measure/passes.h"
#include "workload/call.h"

/* The walk steps by 64 bytes: the line of every x86 and most Arm cores; on a 128-byte-line core
 * it loads each line twice, which only makes the small walk look more like L1. */
#define LINE 64u
/* The walks pick lines by 4 KiB pieces of a window: every piece lies inside one page on 4, 16 and
 * 64 KiB kernels alike, and a window's start is a multiple of its page (measure/workset.c). */
#define PAGE 4096u
/* The L1 reference block: 32 lines, resident in any L1d there is. */
#define REF_LINES 32u
/* Walk sequences are at least this long, made of independent permutations of their lines: a short
 * sequence repeated is learnt by the core (on the Zen 5 VM, 16 lines walked in one repeated order
 * load in 0.78 ns, the same lines in a 1,024-long order in 1.95 ns, as any L1-resident walk). */
#define SEQ_MIN 1024u
/* Loads per timed small walk (repeats of the line list), and repeats of which the least counts:
 * an interrupt makes a walk slower, never faster. */
#define WALK_LOADS 32768u
#define WALK_REPEATS 5
/* Large windows: groups of sampled lines, one line per page. A group's pages fit the second-level
 * TLB of every core we know (1,280 entries on Neoverse N1, 1,536 on Skylake, 2,048+ on Zen), and
 * every page is touched before the timed walks, so both walks pay the same translation and differ
 * only in where the data comes from. */
#define GROUP_LINES 512u
/* The median over groups: a walk of 512 loads takes ~70 us, and one the host preempts for a few
 * milliseconds (seen on the Zen 5 VM) would move a mean by a microsecond per load. */
#define GROUPS 15u

static const char *const reside_names[] = {[MFB_RESIDE_L1] = "l1", [MFB_RESIDE_CACHED] = "cached",
                                           [MFB_RESIDE_MEMORY] = "beyond_llc"};
static const char *const verdict_names[] = {[MFB_CHECK_PASS] = "pass", [MFB_CHECK_FAIL] = "fail",
                                            [MFB_CHECK_NOT_MEASURED] = "not_measured"};

const char *mfb_reside_name(enum mfb_reside r)
{
    return reside_names[r];
}

const char *mfb_check_verdict_name(enum mfb_check_verdict v)
{
    return verdict_names[v];
}

/* Dependent loads at base + off[i]: each address adds the previous value masked by zero, which the
 * compiler cannot know is zero, so no load starts before the one before it has its data. Nothing
 * is written: the windows keep the bytes the calls were verified on. */
static uint64_t walk(const uint8_t *base, const uint32_t *off, size_t n, uint64_t zero)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = *(const volatile uint64_t *)(const void *)(base + off[i] + (v & zero));
    return v;
}

static double timed_walk(const struct mfb_timer *t, const uint8_t *base, const uint32_t *off, size_t n,
                         size_t reps, uint64_t zero, uint64_t *sink)
{
    int cpu;
    uint64_t t0 = mfb_timer_begin(t);
    for (size_t r = 0; r < reps; r++)
        *sink += walk(base, off, n, zero);
    uint64_t t1 = mfb_timer_end(t, &cpu);
    return (double)(t1 - t0) * t->ns_per_tick / (double)(n * reps);
}

/* The least ns per load over WALK_REPEATS walks of about WALK_LOADS loads each. */
static double best_walk(const struct mfb_timer *t, const uint8_t *base, const uint32_t *off, size_t n,
                        uint64_t zero, uint64_t *sink)
{
    size_t reps = n >= WALK_LOADS ? 1 : WALK_LOADS / n;
    double best = INFINITY;
    for (int k = 0; k < WALK_REPEATS; k++) {
        double ns = timed_walk(t, base, off, n, reps, zero, sink);
        if (ns < best)
            best = ns;
    }
    return best;
}

static void shuffle(uint32_t *a, size_t n, struct mfb_rng *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)mfb_rng_below(rng, i);
        uint32_t x = a[i - 1];
        a[i - 1] = a[j];
        a[j] = x;
    }
}

/* Permutations a sequence over n lines concatenates to be at least SEQ_MIN long. */
static size_t seq_perms(size_t n)
{
    return n >= SEQ_MIN ? 1 : (SEQ_MIN + n - 1) / n;
}

/* off[0..n) holds the lines: copies them into perms - 1 further independent permutations. */
static void extend_seq(uint32_t *off, size_t n, size_t perms, struct mfb_rng *rng)
{
    shuffle(off, n, rng);
    for (size_t p = 1; p < perms; p++) {
        memcpy(off + p * n, off, n * sizeof *off);
        shuffle(off + p * n, n, rng);
    }
}

static void judge(struct mfb_window_check *c)
{
    if (isfinite(c->cached_ns) && c->reference_ns < MFB_CHECK_FLUSH_GAIN * c->cached_ns) {
        c->ratio = c->ns_per_load / c->reference_ns;
        c->verdict = MFB_CHECK_FAIL;
        c->why = "a flush does not take lines out of the caches here";
        return;
    }
    if (!(c->reference_ns > 0) || !isfinite(c->ns_per_load)) {
        c->verdict = MFB_CHECK_NOT_MEASURED;
        c->why = c->why ? c->why : "no usable reference latency";
        return;
    }
    c->ratio = c->ns_per_load / c->reference_ns;
    bool ok = c->expect == MFB_RESIDE_MEMORY ? c->ratio >= c->limit : c->ratio <= c->limit;
    c->verdict = ok ? MFB_CHECK_PASS : MFB_CHECK_FAIL;
}

/* Every line of the parameter array and of each role's small window, walked in a random order. */
static void check_small(struct mfb_window_check *c, const struct mfb_workset *w, const struct mfb_timer *t,
                        struct mfb_rng *rng, uint64_t zero, uint64_t *sink)
{
    const struct mfb_space *sp = &w->space;
    uint64_t params = (uint64_t)mfb_workset_params(w) * sizeof(struct mfb_call);
    size_t n = (size_t)((params + LINE - 1) / LINE + (uint64_t)sp->roles * (sp->small.size / LINE));
    size_t perms = seq_perms(n), ref_perms = seq_perms(REF_LINES);
    uint32_t *off = malloc(n * perms * sizeof *off);
    uint8_t *ref = aligned_alloc(LINE, REF_LINES * LINE);
    uint32_t *ref_off = malloc(REF_LINES * ref_perms * sizeof *ref_off);
    c->used = true;
    c->expect = MFB_RESIDE_L1;
    c->limit = MFB_CHECK_L1_LIMIT;
    c->after_rounds_ns = NAN;
    if (!off || !ref || !ref_off) {
        c->why = "out of memory for the walk";
        c->verdict = MFB_CHECK_NOT_MEASURED;
        free(off);
        free(ref);
        free(ref_off);
        return;
    }
    size_t k = 0;
    for (uint64_t b = 0; b < params; b += LINE)
        off[k++] = (uint32_t)(w->params_off + b);
    for (int r = 0; r < sp->roles; r++)
        for (uint64_t b = 0; b + LINE <= sp->small.size; b += LINE)
            off[k++] = (uint32_t)(sp->small.off[r] + b);
    extend_seq(off, k, perms, rng);
    c->lines = (uint32_t)k;
    /* first: each line once, as the last batch left them (calls of every size in between) */
    c->after_rounds_ns = timed_walk(t, w->arena, off, k, 1, zero, sink);
    c->ns_per_load = best_walk(t, w->arena, off, k * perms, zero, sink);
    memset(ref, 0, REF_LINES * LINE);
    for (uint32_t i = 0; i < REF_LINES; i++)
        ref_off[i] = i * LINE;
    extend_seq(ref_off, REF_LINES, ref_perms, rng);
    c->reference_ns = best_walk(t, ref, ref_off, REF_LINES * ref_perms, zero, sink);
    judge(c);
    free(off);
    free(ref);
    free(ref_off);
}

/* The arena offset of a page drawn over every role's large window. */
static uint64_t window_page(const struct mfb_workset *w, struct mfb_rng *rng)
{
    const struct mfb_space *sp = &w->space;
    int role = sp->roles > 1 ? (int)mfb_rng_below(rng, (uint64_t)sp->roles) : 0;
    return sp->large.off[role] + mfb_rng_below(rng, sp->large.size / PAGE) * PAGE;
}

/* Lines sampled over every role's large window, one per page, GROUP_LINES pages a group: each
 * group walked as the rounds left it, then flushed and walked again. */
static void check_large(struct mfb_window_check *c, const struct mfb_workset *w, const struct mfb_timer *t,
                        struct mfb_rng *rng, uint64_t zero, uint64_t *sink)
{
    c->used = true;
    c->expect = w->placement == MFB_PL_L2 || w->placement == MFB_PL_LLC ? MFB_RESIDE_CACHED : MFB_RESIDE_MEMORY;
    c->limit = c->expect == MFB_RESIDE_CACHED ? MFB_CHECK_CACHED_LIMIT : MFB_CHECK_MEMORY_LIMIT;
    c->after_rounds_ns = NAN;
    uint32_t line[GROUP_LINES], touch[GROUP_LINES];
    double as_left[GROUPS], flushed[GROUPS];
    bool can_flush = true;
    for (uint32_t g = 0; g < GROUPS && can_flush; g++) {
        for (uint32_t i = 0; i < GROUP_LINES; i++) {
            uint64_t page = window_page(w, rng);
            uint64_t in_page = mfb_rng_below(rng, PAGE / LINE);
            line[i] = (uint32_t)(page + in_page * LINE);
            /* half a page away: the same translation, a line no prefetcher pairs with ours */
            touch[i] = (uint32_t)(page + ((in_page + PAGE / LINE / 2) % (PAGE / LINE)) * LINE);
        }
        *sink += walk(w->arena, touch, GROUP_LINES, zero);
        as_left[g] = timed_walk(t, w->arena, line, GROUP_LINES, 1, zero, sink);
        can_flush = mfb_evict_lines(w->arena, line, GROUP_LINES);
        flushed[g] = timed_walk(t, w->arena, line, GROUP_LINES, 1, zero, sink);
    }
    if (!can_flush) {
        c->verdict = MFB_CHECK_NOT_MEASURED;
        c->why = "this architecture has no user-mode cache flush for the reference";
        return;
    }
    c->lines = GROUP_LINES * GROUPS;
    c->ns_per_load = mfb_quantile_median(as_left, GROUPS);
    c->reference_ns = mfb_quantile_median(flushed, GROUPS);
    judge(c);
}

/* Passes drawn per group at most while looking for its lines: a pass over a table with few large
 * calls (fleet bcmp: 0.01 % of calls above 2 KiB) may have none. */
#define EVICT_PASSES_MAX 256u

/* Lines gathered from the spans of a group's passes, one per page a span covers. */
struct gather {
    const uint8_t *arena;
    uint32_t *line;
    uint32_t n;
    struct mfb_rng *rng;
};

static void gather_span(const struct mfb_span *s, void *ctx)
{
    struct gather *g = ctx;
    uintptr_t at = (uintptr_t)s->at, end = at + s->len;
    while (at < end && g->n < GROUP_LINES) {
        uintptr_t page_end = (at | (PAGE - 1)) + 1, stop = page_end < end ? page_end : end;
        uintptr_t lines = (stop - (at & ~(uintptr_t)(LINE - 1)) + LINE - 1) / LINE;
        uintptr_t pick = (at & ~(uintptr_t)(LINE - 1)) + (uintptr_t)mfb_rng_below(g->rng, lines) * LINE;
        g->line[g->n++] = (uint32_t)(pick - (uintptr_t)g->arena);
        at = stop;
    }
}

/* The evicted window: lines from the spans the large calls of drawn passes touch, loaded, then
 * the run's eviction step for those passes, then walked: the state a timed batch's calls meet. */
static void check_evicted(struct mfb_window_check *c, const struct mfb_workset *w, const struct mfb_timer *t,
                          uint8_t calls_log2, struct mfb_rng *rng, uint64_t zero, uint64_t *sink)
{
    uint32_t line[GROUP_LINES];
    struct mfb_pass passes[EVICT_PASSES_MAX];
    double evicted[GROUPS], flushed[GROUPS], cached[GROUPS];
    struct mfb_batch b = {.base = w->arena, .calls = (const struct mfb_call *)(w->arena + w->params_off),
                          .calls_log2 = calls_log2, .pages_mask = w->space.large.pages_mask, .passes = passes};
    uint32_t total = 0;
    for (uint32_t g = 0; g < GROUPS; g++) {
        struct gather gl = {.arena = w->arena, .line = line, .rng = rng};
        for (b.reps = 0; b.reps < EVICT_PASSES_MAX && gl.n < GROUP_LINES;) {
            mfb_passes_draw(rng, &passes[b.reps], 1, w->space.page_units);
            struct mfb_batch one = b;
            one.passes = &passes[b.reps++];
            one.reps = 1;
            mfb_evict_spans(&one, w->space.roles, gather_span, &gl);
        }
        /* A parameter array with (almost) no large call, which a table with few of them draws
         * now and then (fleet memcpy: 3.3 large calls in 512, none in about 4 % of arrays): lines
         * sampled over the window instead, flushed by the same primitive, so the check still
         * shows that a flush takes lines out here (the spans themselves: tests/c/test_evict.c). */
        bool from_window = gl.n < GROUP_LINES / 8;
        if (from_window) {
            for (gl.n = 0; gl.n < GROUP_LINES; gl.n++) {
                uint64_t page = window_page(w, rng);
                line[gl.n] = (uint32_t)(page + mfb_rng_below(rng, PAGE / LINE) * LINE);
            }
            c->from_window = true;
        }
        shuffle(line, gl.n, rng);
        *sink += walk(w->arena, line, gl.n, zero);
        cached[g] = timed_walk(t, w->arena, line, gl.n, 1, zero, sink);
        if (from_window)
            mfb_evict_lines(w->arena, line, gl.n);
        else
            mfb_evict_batch(&b, w->space.roles);
        evicted[g] = timed_walk(t, w->arena, line, gl.n, 1, zero, sink);
        mfb_evict_lines(w->arena, line, gl.n);
        flushed[g] = timed_walk(t, w->arena, line, gl.n, 1, zero, sink);
        total += gl.n;
    }
    c->lines = total;
    c->ns_per_load = mfb_quantile_median(evicted, GROUPS);
    c->reference_ns = mfb_quantile_median(flushed, GROUPS);
    c->cached_ns = mfb_quantile_median(cached, GROUPS);
    judge(c);
    if (c->verdict == MFB_CHECK_FAIL && !c->why)
        c->why = "after the eviction step the lines load faster than after a flush: some stayed cached";
}

void mfb_residency_check(struct mfb_residency *r, const struct mfb_workset *w, const struct mfb_timer *t,
                         uint8_t calls_log2, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    struct mfb_rng rng;
    mfb_rng_seed(&rng, seed);
    volatile uint64_t zero_source = 0;
    uint64_t zero = zero_source;
    volatile uint64_t sink_out;
    uint64_t sink = 0;
    r->small.cached_ns = r->large.cached_ns = NAN; /* only the evicted check measures it */
    /* small first: the large walks would evict it */
    if (w->space.small.used)
        check_small(&r->small, w, t, &rng, zero, &sink);
    if (w->space.large.used && w->large_scheme == MFB_LARGE_EVICTED) {
        r->large.used = true;
        r->large.expect = MFB_RESIDE_MEMORY;
        r->large.limit = MFB_CHECK_MEMORY_LIMIT;
        r->large.after_rounds_ns = NAN;
        check_evicted(&r->large, w, t, calls_log2, &rng, zero, &sink);
    } else if (w->space.large.used) {
        check_large(&r->large, w, t, &rng, zero, &sink);
    }
    sink_out = sink;
    (void)sink_out;
    r->done = true;
    r->passed = r->small.verdict != MFB_CHECK_FAIL && r->large.verdict != MFB_CHECK_FAIL;
}

void mfb_residency_warn(const struct mfb_residency *r, struct mfb_warnings *warn, size_t l1d_bytes,
                        const char *source)
{
    const struct mfb_window_check *s = &r->small, *l = &r->large;
    if (s->used && s->verdict == MFB_CHECK_FAIL)
        mfb_warn(warn, MFB_W_PLACEMENT_CHECK,
                 "placement check: the small-call windows (%u lines) load at %.2f ns per line, %.1fx this core's "
                 "L1 latency (%.2f ns): they do not stay in the L1d of %zu bytes planned for (%s), so small calls "
                 "are timed from L2 or beyond",
                 s->lines, s->ns_per_load, s->ratio, s->reference_ns, l1d_bytes, source);
    if (l->used && l->verdict == MFB_CHECK_FAIL && l->expect == MFB_RESIDE_MEMORY && isfinite(l->cached_ns))
        mfb_warn(warn, MFB_W_PLACEMENT_CHECK,
                 "placement check: lines of large calls load at %.1f ns after the eviction step, %.1f ns after a "
                 "flush and %.1f ns cached (%s), so large calls may be timed partly from a cache",
                 l->ns_per_load, l->reference_ns, l->cached_ns, l->why);
    else if (l->used && l->verdict == MFB_CHECK_FAIL && l->expect == MFB_RESIDE_MEMORY)
        mfb_warn(warn, MFB_W_PLACEMENT_CHECK,
                 "placement check: lines sampled over the large window load at %.1f ns, %.2fx the latency of "
                 "the same lines flushed from every cache (%.1f ns): many are still cached, so large calls are "
                 "timed partly from the LLC",
                 l->ns_per_load, l->ratio, l->reference_ns);
    if (l->used && l->verdict == MFB_CHECK_FAIL && l->expect == MFB_RESIDE_CACHED)
        mfb_warn(warn, MFB_W_PLACEMENT_CHECK,
                 "placement check: lines sampled over the window load at %.1f ns, %.2fx the latency of the same "
                 "lines flushed from every cache (%.1f ns): the window does not stay in the cache the placement "
                 "names, so calls are timed from further out",
                 l->ns_per_load, l->ratio, l->reference_ns);
}
