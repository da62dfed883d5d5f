#include "workset.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "params.h"
#include "rng.h"
#include "table.h"

#define PAGE 4096u

static const char *const pl_names[] = {"auto", "l1", "l2", "llc", "dram"};

const char *mfb_placement_name(enum mfb_placement p)
{
    return pl_names[p];
}

int mfb_placement_parse(const char *s, enum mfb_placement *out)
{
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, pl_names[i])) {
            *out = (enum mfb_placement)i;
            return 0;
        }
    return -1;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

static uint64_t round_down(uint64_t v, uint64_t a)
{
    return v / a * a;
}

int mfb_workset_plan(struct mfb_workset *w, enum mfb_func f, enum mfb_placement pl,
                     const struct mfb_caches *c, uint64_t max_size, struct mfb_err *err)
{
    memset(w, 0, sizeof *w);
    w->func = f;
    w->placement = pl;
    w->roles = mfb_func_roles(f);
    /* fleetbench's L1 budget: three quarters of L1d, the rest for stack and code paths.
     * A quarter of L1d holds the parameter array, the remainder the buffers. */
    w->l1_budget = c->l1d * 3 / 4;
    /* A power of two, so every pass can visit the array in its own permuted order (kernels.h). */
    uint64_t cap = 64;
    while (cap * 2 * sizeof(struct mfb_call) <= c->l1d / 4 && cap < 4096)
        cap *= 2;
    w->params_cap = (uint32_t)cap;
    uint64_t params_bytes = round_up((uint64_t)w->params_cap * sizeof(struct mfb_call), PAGE);
    uint64_t small_size = round_down((w->l1_budget - (uint64_t)w->params_cap * sizeof(struct mfb_call)) /
                                         (uint64_t)w->roles, 64);
    /* A large call needs room for itself twice over in its slice so its offset stays random. */
    uint64_t slice = round_up(2 * max_size + 2 * MFB_MAX_ALIGN, PAGE);
    if (slice < (64u << 10))
        slice = 64u << 10;
    uint64_t large_size = 0;
    switch (pl) {
    case MFB_PL_AUTO:
        w->threshold = round_down(small_size / 4, 64);
        w->small.used = true;
        w->small.size = small_size;
        if (max_size > w->threshold) {
            w->large.used = true;
            /* Four times the LLC per role: a random page shift lands on lines still cached
             * with probability at most about LLC / window. */
            large_size = 4 * (uint64_t)c->llc;
        }
        break;
    case MFB_PL_L1:
        w->small.used = true;
        w->small.size = small_size;
        w->threshold = small_size / 2;
        if (max_size > w->threshold)
            return mfb_fail(err, "placement l1: the distribution's largest size %llu does not fit "
                                 "the L1 window (%llu bytes per buffer, sizes up to %llu); use auto",
                            (unsigned long long)max_size, (unsigned long long)small_size,
                            (unsigned long long)w->threshold);
        break;
    case MFB_PL_L2:
    case MFB_PL_LLC:
    case MFB_PL_DRAM: {
        uint64_t total = pl == MFB_PL_L2 ? c->l2 / 2 : pl == MFB_PL_LLC ? c->llc / 2 : 8 * (uint64_t)c->llc;
        large_size = round_down(total / (uint64_t)w->roles, PAGE);
        w->large.used = true;
        w->threshold = 0;
        if (large_size < 2 * slice)
            return mfb_fail(err, "placement %s: the distribution's largest size %llu needs %llu bytes "
                                 "per buffer, more than the %s window of %llu",
                            pl_names[pl], (unsigned long long)max_size, (unsigned long long)(2 * slice),
                            pl_names[pl], (unsigned long long)large_size);
        break;
    }
    }
    uint64_t at = 0;
    w->params_off = at;
    at += params_bytes;
    if (w->small.used)
        for (int r = 0; r < w->roles; r++) {
            w->small.off[r] = at;
            at += round_up(w->small.size, PAGE);
        }
    if (w->large.used) {
        if (large_size < 2 * slice)
            large_size = 2 * slice;
        if (large_size > (1ull << 30))
            large_size = 1ull << 30;
        w->large.size = round_down(large_size, PAGE);
        w->large.slice = slice;
        for (int r = 0; r < w->roles; r++) {
            w->large.off[r] = at;
            at += w->large.size;
        }
    }
    /* Parameters store arena offsets in 32 bits. */
    if (at >= (1ull << 32))
        return mfb_fail(err, "working set of %llu bytes exceeds the 4 GiB arena limit",
                        (unsigned long long)at);
    w->arena_size = at;
    return 0;
}

int mfb_workset_alloc(struct mfb_workset *w, uint64_t seed, struct mfb_err *err)
{
    void *p = mmap(NULL, w->arena_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return mfb_fail(err, "cannot map %llu bytes for buffers: %s",
                        (unsigned long long)w->arena_size, strerror(errno));
    w->arena = p;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* Writing every byte both pre-faults the pages (no zero page, no first-touch faults in
     * timed loops) and sets the content. Compare functions need equal bytes everywhere so that
     * any two offsets compare equal until the injected mismatch. */
    if (mfb_func_compares(w->func)) {
        memset(p, MFB_COMPARE_FILL, w->arena_size);
        w->fill = "constant 0x5A (compare functions: equal until the injected mismatch)";
    } else {
        struct mfb_rng r;
        mfb_rng_seed(&r, seed);
        uint64_t *q = p;
        for (uint64_t i = 0; i < w->arena_size / 8; i++)
            q[i] = mfb_rng_next(&r);
        w->fill = "pseudo-random bytes";
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    w->prefault_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    return 0;
}

void mfb_workset_free(struct mfb_workset *w)
{
    if (w->arena)
        munmap(w->arena, w->arena_size);
    w->arena = NULL;
}
