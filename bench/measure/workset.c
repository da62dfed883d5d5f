#include "measure/workset.h"

#include <assert.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/parse.h"
#include "base/rng.h"
#include "machine/flush.h"
#include "measure/evict.h"
#include "machine/timer.h"
#include "workload/call.h"
#include "workload/table.h"

/* The page when the caller names none (a plan made outside a run: the C tests). */
#define DEFAULT_PAGE 4096u

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

static uint64_t round_down(uint64_t v, uint64_t a)
{
    return v / a * a;
}

const char *mfb_large_scheme_name(enum mfb_large_scheme s)
{
    static const char *const names[] = {[MFB_LARGE_EVICTED] = "evicted", [MFB_LARGE_SIZED] = "sized",
                                        [MFB_LARGE_CACHED] = "cached"};
    return names[s];
}

const char *mfb_small_max_source_name(enum mfb_small_max_source s)
{
    static const char *const names[] = {[MFB_SMALL_MAX_DEFAULT] = "default", [MFB_SMALL_MAX_USER] = "user",
                                        [MFB_SMALL_MAX_REDUCED] = "reduced", [MFB_SMALL_MAX_NONE] = "none"};
    return names[s];
}

/* The sampler draws a small call's offset as residue + k * modulus within the room its window
 * leaves beside the call, the modulus at most the tables' largest alignment key: one period of
 * that key is all the room a call needs for every offset its class allows (the planner once kept
 * two periods of the largest key any table could have, 2 x 4 KiB, and on a 32 KiB L1d nothing was
 * left). An overlapping call also keeps its distance to the other buffer, up to size - 1, in the
 * same window. */
static uint64_t align_room(const struct mfb_workset_need *need)
{
    return need->align_period > MFB_MIN_ALIGN_ROOM ? need->align_period : MFB_MIN_ALIGN_ROOM;
}

uint64_t mfb_workset_small_fits(uint64_t window, const struct mfb_workset_need *need)
{
    uint64_t room = align_room(need);
    if (window <= room)
        return 0;
    return need->overlap ? (window - room) / 2 : window - room;
}

bool mfb_workset_large_beyond_llc(const struct mfb_workset *w)
{
    if (!w->space.large.used || !w->llc || w->large_scheme != MFB_LARGE_SIZED)
        return true;
    return (double)w->space.large.size >= MFB_LARGE_LLC_MULTIPLE * (double)w->llc;
}

/* The L1 windows in use: small_size bytes per role, holding calls up to fits bytes. */
static void use_small_windows(struct mfb_workset *w, uint64_t small_size, uint64_t fits)
{
    w->space.small.used = true;
    w->space.small.size = small_size;
    w->small_fits = fits;
}

/* placement auto: small calls up to the threshold (--small-max, else the default, reduced to what
 * the L1 window holds) in the L1 windows, larger ones in a window beyond the LLC. */
static int plan_auto(struct mfb_workset *w, const struct mfb_caches *c, const struct mfb_workset_need *need,
                     uint64_t small_size, uint64_t fits, uint64_t *large_size, struct mfb_err *err)
{
    struct mfb_space *sp = &w->space;
    if (need->small_max) {
        if (need->small_max > fits)
            return mfb_fail(err, "--small-max %llu does not fit this CPU's L1 window of %llu bytes per "
                                 "buffer (at most %llu with %llu bytes of alignment room%s)",
                            (unsigned long long)need->small_max, (unsigned long long)small_size,
                            (unsigned long long)fits, (unsigned long long)w->align_room,
                            need->overlap ? " and overlapping calls" : "");
        sp->threshold = need->small_max;
        w->small_max_source = MFB_SMALL_MAX_USER;
    } else if (MFB_DEFAULT_SMALL_MAX > fits) {
        sp->threshold = round_down(fits, 64);
        w->small_max_source = MFB_SMALL_MAX_REDUCED;
        if (sp->threshold < MFB_SMALL_MAX_FLOOR)
            return mfb_fail(err, "placement auto: an L1d of %zu bytes leaves room for small calls up to "
                                 "%llu bytes only (window %llu bytes per buffer, %llu of alignment room%s), "
                                 "below %u: nearly every call would be timed cold. Fix: --cache with the "
                                 "right sizes if these are wrong, or --placement l2|llc|dram to time every "
                                 "call in one named window",
                            c->l1d, (unsigned long long)sp->threshold, (unsigned long long)small_size,
                            (unsigned long long)w->align_room, need->overlap ? " and overlapping calls" : "",
                            MFB_SMALL_MAX_FLOOR);
    } else {
        sp->threshold = MFB_DEFAULT_SMALL_MAX;
        w->small_max_source = MFB_SMALL_MAX_DEFAULT;
    }
    use_small_windows(w, small_size, fits);
    if (need->max_size > sp->threshold) {
        sp->large.used = true;
        /* Sized: four times the LLC per role, so a random page shift lands on lines still
         * cached with probability at most about LLC / window. */
        *large_size = w->large_scheme == MFB_LARGE_EVICTED ? MFB_EVICT_WINDOW : 4 * (uint64_t)c->llc;
    }
    return 0;
}

/* placement l1: every call in the L1 windows, refused when the largest does not fit. */
static int plan_l1(struct mfb_workset *w, const struct mfb_workset_need *need, uint64_t small_size, uint64_t fits,
                   struct mfb_err *err)
{
    struct mfb_space *sp = &w->space;
    use_small_windows(w, small_size, fits);
    sp->threshold = fits;
    if (need->max_size > sp->threshold)
        return mfb_fail(err, "placement l1: the distribution's largest size %llu does not fit "
                             "the L1 window (%llu bytes per buffer, sizes up to %llu); use auto",
                        (unsigned long long)need->max_size, (unsigned long long)small_size,
                        (unsigned long long)sp->threshold);
    return 0;
}

/* placement l2, llc or dram: every call in one window sized for that level (half of L2 or of the
 * LLC over the roles; dram: the evicted window per role, or eight LLCs over the roles where lines
 * cannot be flushed), refused when it cannot hold two slices of the largest call. */
static int plan_named(struct mfb_workset *w, enum mfb_placement pl, const struct mfb_caches *c, uint64_t max_size,
                      uint64_t slice, uint64_t *large_size, struct mfb_err *err)
{
    struct mfb_space *sp = &w->space;
    uint64_t total = pl == MFB_PL_L2    ? c->l2 / 2
                     : pl == MFB_PL_LLC ? c->llc / 2
                     : w->large_scheme == MFB_LARGE_EVICTED ? MFB_EVICT_WINDOW * (uint64_t)sp->roles
                                                            : 8 * (uint64_t)c->llc;
    *large_size = round_down(total / (uint64_t)sp->roles, sp->page);
    sp->large.used = true;
    sp->threshold = 0;
    if (*large_size < 2 * slice)
        return mfb_fail(err, "placement %s: the distribution's largest size %llu needs %llu bytes "
                             "per buffer, more than the %s window of %llu",
                        mfb_choice_name(MFB_SET_PLACEMENT, pl), (unsigned long long)max_size, (unsigned long long)(2 * slice),
                        mfb_choice_name(MFB_SET_PLACEMENT, pl), (unsigned long long)*large_size);
    return 0;
}

/* The arena: the parameter array, then each role's L1 window, then each role's large window
 * (at least two slices, at most 1 GiB each), every one starting on a page of the space's size, so
 * a 64 KiB kernel's window starts a page as a 4 KiB kernel's does; offsets are stored in 32 bits. */
static int lay_out(struct mfb_workset *w, uint64_t params_bytes, uint64_t large_size, uint64_t slice,
                   struct mfb_err *err)
{
    struct mfb_space *sp = &w->space;
    uint64_t at = 0;
    w->params_off = at;
    at += params_bytes;
    if (sp->small.used)
        for (int r = 0; r < sp->roles; r++) {
            sp->small.off[r] = at;
            at += round_up(sp->small.size, sp->page);
        }
    if (sp->large.used) {
        if (large_size < 2 * slice)
            large_size = 2 * slice;
        if (large_size > (1ull << 30))
            large_size = 1ull << 30;
        sp->large.size = round_down(large_size, sp->page);
        sp->large.slice = slice;
        uint64_t places = (sp->large.size - slice) / sp->page + 1;
        uint64_t pages = 1;
        while (2 * pages <= places)
            pages *= 2;
        /* in the loop's 4 KiB units: whole pages times the page's units (measure/kernels.h) */
        sp->large.pages_mask = (uint32_t)(pages * sp->page_units - 1);
        for (int r = 0; r < sp->roles; r++) {
            sp->large.off[r] = at;
            at += sp->large.size;
        }
    }
    if (at >= (1ull << 32))
        return mfb_fail(err, "working set of %llu bytes exceeds the 4 GiB arena limit",
                        (unsigned long long)at);
    w->arena_size = at;
    return 0;
}

int mfb_workset_plan(struct mfb_workset *w, enum mfb_func f, enum mfb_placement pl,
                     const struct mfb_caches *c, const struct mfb_workset_need *need, struct mfb_err *err)
{
    memset(w, 0, sizeof *w);
    struct mfb_space *sp = &w->space;
    sp->func = f;
    sp->roles = mfb_func_roles(f);
    sp->by_size = pl == MFB_PL_AUTO;
    w->placement = pl;
    w->small_max_source = MFB_SMALL_MAX_NONE;
    w->page = need->page;
    if (!w->page.bytes)
        w->page = (struct mfb_page_size){.bytes = DEFAULT_PAGE, .real = DEFAULT_PAGE};
    sp->page = w->page.bytes;
    if (sp->page < (1u << MFB_SHIFT_LOG2) || (sp->page & (sp->page - 1)))
        return mfb_fail(err, "page size %u: not a power of two of at least %u bytes", sp->page, 1u << MFB_SHIFT_LOG2);
    sp->page_units = sp->page >> MFB_SHIFT_LOG2;
    if (need->small_max && pl != MFB_PL_AUTO)
        return mfb_fail(err, "--small-max applies to --placement auto only (placement %s puts every call "
                             "in one window)", mfb_choice_name(MFB_SET_PLACEMENT, pl));
    /* fleetbench's L1 budget: three quarters of L1d, the rest for stack and code paths.
     * A quarter of L1d holds the parameter array, the remainder the buffers. */
    w->l1_budget = c->l1d * 3 / 4;
    /* Between 64 and 4096 records, as many as fit a quarter of L1d. */
    w->params_log2 = 6;
    while (((uint64_t)2 << w->params_log2) * sizeof(struct mfb_call) <= c->l1d / 4 && w->params_log2 < 12)
        w->params_log2++;
    uint64_t params_raw = (uint64_t)mfb_workset_params(w) * sizeof(struct mfb_call);
    uint64_t small_size = w->l1_budget > params_raw ? round_down((w->l1_budget - params_raw) / (uint64_t)sp->roles, 64)
                                                    : 0;
    w->align_room = align_room(need);
    w->llc = c->llc;
    w->large_scheme = pl == MFB_PL_L2 || pl == MFB_PL_LLC ? MFB_LARGE_CACHED
                      : mfb_flush_caps()->allowed && !need->sized ? MFB_LARGE_EVICTED
                                                          : MFB_LARGE_SIZED;
    uint64_t fits = mfb_workset_small_fits(small_size, need);
    /* A large call needs room for itself twice over in its slice so its offset stays random. */
    uint64_t slice = round_up(2 * need->max_size + 2 * MFB_MAX_ALIGN, sp->page);
    if (slice < (64u << 10))
        slice = 64u << 10;
    uint64_t large_size = 0;
    int rc = 0;
    switch (pl) {
    case MFB_PL_AUTO:
        rc = plan_auto(w, c, need, small_size, fits, &large_size, err);
        break;
    case MFB_PL_L1:
        rc = plan_l1(w, need, small_size, fits, err);
        break;
    case MFB_PL_L2:
    case MFB_PL_LLC:
    case MFB_PL_DRAM:
        rc = plan_named(w, pl, c, need->max_size, slice, &large_size, err);
        break;
    }
    return rc < 0 ? -1 : lay_out(w, round_up(params_raw, sp->page), large_size, slice, err);
}

/* The content of copy buffers: seeded random bytes, every page different. One random 64 KiB block
 * repeated over the arena was ten times cheaper to write than a generator's output, but it changed
 * a measured ratio on a virtual machine (libc-slow1pct/libc-wrapped 1.021 against 1.0165 with
 * unique pages; docs/methodology.md): identical pages can be merged and copied on write below the
 * guest. So the block is repeated XORed with a word drawn per block: pages stay pairwise different
 * (two would need 512 words of the block to differ by one and the same word), and only the block
 * and one word per block are generated. On the Zen 5 VM a 2 GiB arena's set-up took 1.62-1.64 s
 * this way against 2.24-2.27 s generating every word (interleaved runs); most of the rest is the
 * first write to fresh pages, whatever is written. */
#define FILL_BLOCK_WORDS 8192u

/* 64 MiB: about 0.1 s of page faults in the kernel, so a signal is handled within that. */
#define POPULATE_SLICE ((size_t)64 << 20)

/* One block of the fill, XORed with its key, at dst (16-byte aligned). On x86-64 with
 * non-temporal stores: the arena is far larger than any cache, so ordinary stores would first read
 * every line they write (the store's read for ownership) and then push the cache's other lines
 * out; streamed, a 128 MiB fill took 8 ms against 21 ms on the Intel VM (family 6 model 167). The
 * fence in fill_random makes them visible before anything reads the arena. */
static void fill_block(uint8_t *dst, const uint64_t *block, uint64_t key, size_t len)
{
#if defined(__x86_64__)
    __m128i k = _mm_set1_epi64x((long long)key);
    for (size_t i = 0; i < len / 16; i++)
        _mm_stream_si128((__m128i *)(void *)(dst + 16 * i),
                         _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(block + 2 * i)), k));
#else
    uint64_t words[FILL_BLOCK_WORDS];
    for (unsigned i = 0; i < FILL_BLOCK_WORDS; i++)
        words[i] = block[i] ^ key;
    memcpy(dst, words, len);
#endif
}

#if defined(__x86_64__)
/* The same bytes in 32-byte streamed stores where the CPU has AVX2 (a 256-bit XOR needs it): a
 * 128 MiB fill took 7.0 ms against 8.0 ms in 16-byte stores on the Intel VM (family 6 model 167,
 * timed apart). dst is 32-byte aligned: the arena starts on a page, each block 64 KiB on. */
__attribute__((target("avx2"))) static void fill_block_avx2(uint8_t *dst, const uint64_t *block, uint64_t key,
                                                            size_t len)
{
    __m256i k = _mm256_set1_epi64x((long long)key);
    for (size_t i = 0; i < len / 32; i++)
        _mm256_stream_si256((__m256i *)(void *)(dst + 32 * i),
                            _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(block + 4 * i)), k));
}
#endif

static void fill_random(uint8_t *p, uint64_t n, uint64_t seed)
{
    static_assert(FILL_BLOCK_WORDS * 8 % 4096 == 0, "a fill block holds whole pages");
    uint64_t block[FILL_BLOCK_WORDS];
    struct mfb_rng r;
    mfb_rng_seed(&r, seed);
    for (unsigned i = 0; i < FILL_BLOCK_WORDS; i++)
        block[i] = mfb_rng_next(&r);
#if defined(__x86_64__)
    bool avx2 = __builtin_cpu_supports("avx2");
#endif
    for (uint64_t at = 0; at < n; at += sizeof block) {
        uint64_t key = mfb_rng_next(&r);
        size_t len = n - at < sizeof block ? (size_t)(n - at) : sizeof block;
#if defined(__x86_64__)
        if (avx2 && len % 32 == 0) {
            fill_block_avx2(p + at, block, key, len);
            continue;
        }
#endif
        fill_block(p + at, block, key, len);
    }
#if defined(__x86_64__)
    _mm_sfence();
#endif
}

/* len bytes starting on a multiple of align (0: the kernel's page, what mmap gives): a simulated
 * page larger than the kernel's is honoured by mapping align more and unmapping both ends. */
static void *map_aligned(uint64_t len, uint64_t align)
{
    uint8_t *p = mmap(NULL, len + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || !align)
        return p;
    uint8_t *at = (uint8_t *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    if (at > p)
        munmap(p, (size_t)(at - p));
    if (p + align > at)
        munmap(at + len, (size_t)(p + align - at));
    return at;
}

int mfb_workset_alloc(struct mfb_workset *w, uint64_t seed, struct mfb_err *err)
{
    uint64_t t0 = mfb_mono_ns();
    /* Every page is faulted in by the kernel (MAP_POPULATE), so no timed loop meets a first-touch
     * fault or the shared zero page; 4 KiB faults taken one by one by the fill cost 4x as long on
     * the Zen 5 VM (10.5 s against 2.4 s for 2 GiB, the other vCPU busy). In slices of POPULATE_SLICE, one system call
     * each, because a signal waits for the end of the call it arrives in, and a stop request must
     * end the set-up within a second (orchestrate/guard.c). */
    void *p = map_aligned(w->arena_size, w->page.bytes > w->page.real ? w->page.bytes : 0);
    if (p == MAP_FAILED)
        return mfb_fail(err, "cannot map %llu bytes for buffers: %s",
                        (unsigned long long)w->arena_size, strerror(errno));
    for (uint64_t at = 0; at < w->arena_size; at += POPULATE_SLICE) {
        size_t len = w->arena_size - at < POPULATE_SLICE ? (size_t)(w->arena_size - at) : POPULATE_SLICE;
        if (mmap((uint8_t *)p + at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE,
                 -1, 0) == MAP_FAILED) {
            int e = errno;
            munmap(p, w->arena_size);
            return mfb_fail(err, "cannot map %llu bytes for buffers: %s", (unsigned long long)w->arena_size,
                            strerror(e));
        }
    }
    w->arena = p;
    uint64_t t1 = mfb_mono_ns();
    w->map_ms = (double)(t1 - t0) / 1e6;
    /* Compare functions need equal bytes everywhere so that any two offsets compare equal until
     * the injected mismatch. */
    if (mfb_func_compares(w->space.func)) {
        memset(p, MFB_COMPARE_FILL, w->arena_size);
        w->fill = "constant 0x5A (compare functions: equal until the injected mismatch)";
    } else {
        fill_random(p, w->arena_size, seed);
        w->fill = "pseudo-random bytes from the arena seed";
    }
    w->fill_ms = (double)(mfb_mono_ns() - t1) / 1e6;
    w->prefault_ms = w->map_ms + w->fill_ms;
    return 0;
}

void mfb_workset_free(struct mfb_workset *w)
{
    if (w->arena)
        munmap(w->arena, w->arena_size);
    w->arena = NULL;
}
