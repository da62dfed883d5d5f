/* The eviction step flushes exactly what the timed loop touches: for each function family, the
 * spans mfb_evict_spans lists for a batch's large calls are the spans the kernel hands the
 * function (same addresses, same lengths, same order), small calls are never listed, and a flush
 * of them covers every line. Recording variants stand in for the functions; nothing is timed. */
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "machine/flush.h"
#include "measure/evict.h"
#include "measure/kernels.h"
#include "measure/passes.h"
#include "machine/timer.h"
#include "tap.h"
#include "workload/call.h"

#define CALLS_LOG2 6
#define PASSES 3
#define WINDOW_PAGES 64u
#define ARENA ((WINDOW_PAGES + 4) * 2 * 4096u + 65536u)
#define MAX_SEEN (PASSES << CALLS_LOG2) * 2

/* What the recording variants saw, in call order: test state, not the product's. */
static struct mfb_span seen[MAX_SEEN];
static size_t nseen;
static uint8_t *arena;

static void note(void *p, size_t len)
{
    if (nseen < MAX_SEEN)
        seen[nseen++] = (struct mfb_span){.at = p, .len = len};
}

/* Large calls are those at arena offset >= 65536 (the "large window" of this test). */
static bool is_large(const void *p)
{
    return (const uint8_t *)p >= arena + 65536;
}

static void *rec_copy(void *d, const void *s, size_t n)
{
    if (is_large(d)) {
        note(d, n);
        note((void *)(uintptr_t)s, n);
    }
    return d;
}

static void *rec_set(void *d, int c, size_t n)
{
    (void)c;
    if (is_large(d))
        note(d, n);
    return d;
}

static int rec_cmp(const void *a, const void *b, size_t n)
{
    /* the kernel passes (source, destination): list them as the eviction does, destination first */
    if (is_large(b)) {
        note((void *)(uintptr_t)b, n);
        note((void *)(uintptr_t)a, n);
    }
    return 0;
}

static struct mfb_span listed[MAX_SEEN];
static size_t nlisted;

static void list_span(const struct mfb_span *s, void *ctx)
{
    (void)ctx;
    if (nlisted < MAX_SEEN)
        listed[nlisted++] = *s;
}

static bool same_spans(void)
{
    if (nseen != nlisted || nseen == 0)
        return false;
    for (size_t i = 0; i < nseen; i++)
        if (seen[i].at != listed[i].at || seen[i].len != listed[i].len)
            return false;
    return true;
}

static void check_family(struct tap *t, const char *name, enum mfb_func f, union mfb_fn fn, int roles,
                         const struct mfb_timer *timer)
{
    struct mfb_call calls[1u << CALLS_LOG2];
    struct mfb_rng rng;
    mfb_rng_seed(&rng, 42);
    size_t large = 0;
    for (uint32_t i = 0; i < (1u << CALLS_LOG2); i++) {
        bool big = mfb_rng_below(&rng, 3) == 0;
        uint32_t size = big ? 2049 + (uint32_t)mfb_rng_below(&rng, 6000) : (uint32_t)mfb_rng_below(&rng, 64);
        large += big;
        calls[i] = (struct mfb_call){
            .size = size | (big ? MFB_CALL_LARGE : 0u),
            .aux = mfb_func_compares(f) ? MFB_MIS_EQUAL_FLAG : 0u,
            .src = big ? 65536u + (uint32_t)mfb_rng_below(&rng, 64) : (uint32_t)mfb_rng_below(&rng, 1024),
            .dst = big ? 65536u + (WINDOW_PAGES + 4) * 4096u + (uint32_t)mfb_rng_below(&rng, 64)
                       : 2048u + (uint32_t)mfb_rng_below(&rng, 1024)};
    }
    struct mfb_pass passes[PASSES];
    mfb_passes_draw(&rng, passes, PASSES, 1);
    struct mfb_variant v = {.name = name, .func = f, .fn = fn};
    struct mfb_batch b = {.variant = &v, .base = arena, .calls = calls, .calls_log2 = CALLS_LOG2,
                          .pages_mask = WINDOW_PAGES / 2 - 1, .passes = passes, .reps = PASSES, .timer = timer};
    nseen = nlisted = 0;
    struct mfb_batch_result res;
    mfb_run_batch(&b, &res);
    mfb_evict_spans(&b, roles, list_span, NULL);
    TAP_CHECK(t, large > 0 && same_spans(), "%s: the eviction lists the %zu spans the kernel touched (%zu large calls "
              "per pass), in its order", name, nseen, large);
    const struct mfb_flush *caps = mfb_flush_caps();
    uint64_t lines = mfb_evict_batch(&b, roles), want = 0, line = caps->line;
    for (size_t i = 0; i < nlisted; i++) {
        uintptr_t first = (uintptr_t)listed[i].at & ~(uintptr_t)(line - 1), last = (uintptr_t)listed[i].at + listed[i].len - 1;
        want += listed[i].len ? (last - first) / line + 1 : 0;
    }
    TAP_CHECK(t, lines == (caps->allowed ? want : 0), "%s: the flush covers every %llu-byte line of those spans "
              "(%llu lines, the line from %s)", name, (unsigned long long)line, (unsigned long long)lines,
              caps->line_source);
}

int main(void)
{
    struct tap t = {0};
    struct mfb_timer timer;
    struct mfb_err err = {{0}};
    arena = aligned_alloc(4096, ARENA);
    if (!arena || mfb_timer_init(&timer, MFB_CLOCK_AUTO, 0, &err) < 0) {
        TAP_CHECK(&t, false, "set-up: %s", arena ? err.msg : "out of memory");
        return tap_done(&t);
    }
    memset(arena, 0x5A, ARENA);
    check_family(&t, "copy", MFB_MEMCPY, (union mfb_fn){.copy = rec_copy}, 2, &timer);
    check_family(&t, "set", MFB_MEMSET, (union mfb_fn){.set = rec_set}, 1, &timer);
    check_family(&t, "compare", MFB_MEMCMP, (union mfb_fn){.cmp = rec_cmp}, 2, &timer);
    free(arena);
    return tap_done(&t);
}
