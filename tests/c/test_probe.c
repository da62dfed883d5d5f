/* The probe's pure parts: every chain visits every line of its buffer exactly once before it
 * returns (a property over sizes, patterns and seeds), the size grid, and the levels found in
 * synthetic curves drawn from the random-chain model with known capacities. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/chain.h"
#include "probe/levels.h"
#include "probe/probe.h"
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

int main(void)
{
    struct tap t = {0};
    chains(&t);
    sizes(&t);
    levels(&t);
    return tap_done(&t);
}
