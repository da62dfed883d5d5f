/* Where the harness's cost per call goes: memfbench's copy loop (measure/kernels.c) rebuilt here
 * with one piece at a time taken out, each timed over the same calls with the noop variant's
 * function. A benchmark that reports (docs/cost.md), not a test, and not the product's loop: the
 * differences between its rows are what each piece costs, and the full row should match the
 * noop's ns/call of a run on the same machine.
 *
 *     build/tools/harness_cost [CPU]
 *
 * Rows: the full loop (index permutation, page shift, indirect call, result kept); without the
 * page shift; without the permutation (the calls in array order); with a direct call to the same
 * function instead of the call through a pointer; and the loop without any call. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/rng.h"
#include "impl/impl.h"
#include "impl/variants.h"
#include "measure/kernels.h"
#include "measure/passes.h"
#include "machine/timer.h"
#include "workload/call.h"

/* 512 records (a 48 KiB L1d's array), a pass each, and enough passes that a timed loop lasts
 * about a millisecond; the least of REPEATS loops counts (an interrupt only adds). */
#define CALLS_LOG2 9
#define PASSES 256
#define REPEATS 200

enum piece { FULL, NO_SHIFT, NO_PERMUTATION, DIRECT_CALL, NO_CALL, PIECES };

static const char *const piece_names[PIECES] = {
    [FULL] = "full loop (permutation, page shift, call through a pointer, result kept)",
    [NO_SHIFT] = "without the page shift",
    [NO_PERMUTATION] = "without the permutation (array order)",
    [DIRECT_CALL] = "direct call instead of through a pointer",
    [NO_CALL] = "no call (the loop's own work only)",
};

/* One timed loop of the chosen shape; `piece` is a constant in each inlined copy. */
static inline __attribute__((always_inline)) uint64_t loop(const struct mfb_call *calls, unsigned char *base,
                                                           const struct mfb_pass *passes, mfb_copy_fn fn,
                                                           uint32_t pages, const struct mfb_timer *t,
                                                           const enum piece piece)
{
    uint32_t n = 1u << CALLS_LOG2, mask = n - 1;
    uint64_t sink = 0;
    int cpu;
    uint64_t t0 = mfb_timer_begin(t);
    for (size_t r = 0; r < PASSES; r++) {
        const struct mfb_pass *p = &passes[r];
        uint32_t stride = piece == NO_PERMUTATION ? 1 : p->stride, idx = piece == NO_PERMUTATION ? 0 : p->offset & mask;
        for (uint32_t left = n; left; left--, idx = (idx + stride) & mask) {
            const struct mfb_call *c = &calls[idx];
            uint64_t o = piece == NO_SHIFT ? 0 : mfb_pass_shift(c->size, idx, p, pages);
            size_t len = c->size & MFB_SIZE_MASK;
            unsigned char *d = base + c->dst + o, *s = base + c->src + o;
            if (piece == NO_CALL)
                sink ^= (uintptr_t)d ^ (uintptr_t)s ^ len;
            else if (piece == DIRECT_CALL)
                sink ^= (uintptr_t)mfb_copy_noop(d, s, len);
            else
                sink ^= (uintptr_t)fn(d, s, len);
        }
    }
    uint64_t ticks = mfb_timer_end(t, &cpu) - t0;
    __asm__ volatile("" ::"r"(sink) : "memory");
    return ticks;
}

static uint64_t timed(enum piece piece, const struct mfb_call *calls, unsigned char *base,
                      const struct mfb_pass *passes, mfb_copy_fn fn, uint32_t pages, const struct mfb_timer *t)
{
    switch (piece) {
    case FULL:
        return loop(calls, base, passes, fn, pages, t, FULL);
    case NO_SHIFT:
        return loop(calls, base, passes, fn, pages, t, NO_SHIFT);
    case NO_PERMUTATION:
        return loop(calls, base, passes, fn, pages, t, NO_PERMUTATION);
    case DIRECT_CALL:
        return loop(calls, base, passes, fn, pages, t, DIRECT_CALL);
    default:
        return loop(calls, base, passes, fn, pages, t, NO_CALL);
    }
}

int main(int argc, char **argv)
{
    int cpu = argc > 1 ? atoi(argv[1]) : 1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    struct mfb_timer t;
    struct mfb_err err = {{0}};
    if (sched_setaffinity(0, sizeof set, &set) != 0 || mfb_timer_init(&t, MFB_CLOCK_AUTO, 0, &err) < 0) {
        fprintf(stderr, "harness_cost: cannot pin to CPU %d or start the clock%s%s\n", cpu, err.msg[0] ? ": " : "",
                err.msg);
        return 1;
    }
    /* fleet-like: 1 call in 64 large (its shift applies), the rest small; every address in a
     * 64 KiB buffer, since the noop touches nothing */
    static struct mfb_call calls[1u << CALLS_LOG2];
    static struct mfb_pass passes[PASSES];
    struct mfb_rng rng;
    mfb_rng_seed(&rng, 1);
    for (uint32_t i = 0; i < (1u << CALLS_LOG2); i++)
        calls[i] = (struct mfb_call){.size = (uint32_t)mfb_rng_below(&rng, 256) | (i % 64 == 0 ? MFB_CALL_LARGE : 0u),
                                     .src = (uint32_t)mfb_rng_below(&rng, 4096),
                                     .dst = 8192u + (uint32_t)mfb_rng_below(&rng, 4096)};
    mfb_passes_draw(&rng, passes, PASSES, 1); /* shifts in whole 4 KiB pages (page_units 1): the noop touches no page */
    unsigned char *base = malloc(1u << 16);
    if (!base)
        return 1;
    mfb_copy_fn fn = mfb_variant_find(MFB_MEMCPY, "noop")->fn.copy;
    uint64_t best[PIECES];
    for (int k = 0; k < PIECES; k++)
        best[k] = UINT64_MAX;
    for (int rep = 0; rep < REPEATS; rep++) /* interleaved: drift hits every row alike */
        for (int k = 0; k < PIECES; k++) {
            uint64_t x = timed((enum piece)k, calls, base, passes, fn, 15, &t);
            best[k] = x < best[k] ? x : best[k];
        }
    double calls_timed = (double)PASSES * (1u << CALLS_LOG2);
    printf("CPU %d, clock %s; ns per call, the least of %d loops of %.0f calls:\n", cpu, t.name, REPEATS, calls_timed);
    for (int k = 0; k < PIECES; k++)
        printf("  %-74s %6.3f\n", piece_names[k], (double)best[k] * t.ns_per_tick / calls_timed);
    free(base);
    return 0;
}
