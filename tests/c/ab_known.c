/* The known-answer program of memfbench ab (docs/program-ab.md): its memcpy calls are known by
 * construction. Sizes come from a shipped size table (the rows up to 2 KiB, the small calls
 * memfbench keeps in L1), drawn with a fixed seed; each call copies between random offsets of two
 * 8 KiB windows. With the call records and their order (4 KiB) that is 20 KiB, in L1 as the
 * replay's small-call windows and parameters are, on every L1d from 32 KiB up (not on a 16 KiB
 * small core, where the replay's windows shrink). Then fixed other work (a dependent chain of
 * multiply-adds) that no memory function touches.
 *
 *     ab_known SIZE_TABLE.csv [replay|shuffled|batched|interleaved] [CALLS]
 *
 * The calls are drawn first into RECORDS compact records (size and offsets), which CALLS calls walk
 * pass after pass. The shapes differ only in what happens around the copies:
 *   replay (the default): memfbench's own timed loop (bench/measure/kernels.c) rebuilt: each pass
 *     visits the records in the order of an odd stride from an offset, drawn per pass; each call's
 *     addresses take the large-call page shift (0 for these small calls, but computed), and its
 *     return value is kept. The known answer: the replay's per-call difference should hold here.
 *   shuffled: a new order each pass (Fisher-Yates, outside the copies), and nothing around a call
 *     but the loop: no shift computed, no return value kept.
 *   batched: the same order every pass, nothing around a call but the loop (a branch predictor can
 *     learn the sequence of sizes).
 *   interleaved: each call drawn just before it is made (a binary search in the table: loads and
 *     unpredictable branches between every two calls), as a program's own work comes between its
 *     copies.
 * A first version kept 8,192 records of 24 bytes (192 KiB, in L2): the calls' arguments then came
 * from L2, and the program's rep movsb gain came out a quarter larger than the replay's, whose
 * arguments are in L1.
 *
 * Exit 0; 2 with one line when the arguments or the table cannot be used. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RECORDS: a power of two, as memfbench's parameter array of 512 calls is (the stride order needs
 * one). */
enum { WINDOW = 8192, LARGEST = 2048, ROWS = 4096, RECORDS = 512 };

/* The multiply-adds after the copies: a fixed amount of work beside them. */
#define OTHER_WORK 20000000u

enum shape { REPLAY, SHUFFLED, BATCHED, INTERLEAVED, SHAPES };
static const char *const shape_names[SHAPES] = {"replay", "shuffled", "batched", "interleaved"};

/* One call: its size and offsets in the windows (all below 2^16). */
struct call {
    uint16_t size, from, to;
};

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 11;
}

/* The table's rows up to LARGEST bytes: sizes and cumulative weights; the row count, 0 for none. */
static int read_table(const char *path, unsigned *size, double *cum)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0;
    double total = 0;
    char line[256];
    while (n < ROWS && fgets(line, sizeof line, f)) {
        unsigned s;
        double w;
        if (sscanf(line, "%u,%lf", &s, &w) == 2 && s <= LARGEST && w > 0) {
            total += w;
            size[n] = s;
            cum[n++] = total;
        }
    }
    fclose(f);
    return n;
}

/* One call drawn from the table (the first row whose cumulative weight passes a uniform draw). */
static struct call draw(uint64_t *seed, const unsigned *size, const double *cum, int n)
{
    double u = (double)next(seed) / 9007199254740992.0 * cum[n - 1];
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cum[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    unsigned s = size[lo];
    unsigned from = (unsigned)(next(seed) % (WINDOW - s + 1)), to = (unsigned)(next(seed) % (WINDOW - s + 1));
    return (struct call){(uint16_t)s, (uint16_t)from, (uint16_t)to};
}

int main(int argc, char **argv)
{
    int shape = REPLAY;
    if (argc > 2)
        for (shape = 0; shape < SHAPES && strcmp(argv[2], shape_names[shape]) != 0; shape++)
            ;
    long calls = argc > 3 ? strtol(argv[3], NULL, 10) : 2000000;
    if (argc < 2 || shape == SHAPES || calls <= 0) {
        fprintf(stderr, "usage: ab_known SIZE_TABLE.csv [replay|shuffled|batched|interleaved] [CALLS > 0]\n");
        return 2;
    }
    static unsigned size[ROWS];
    static double cum[ROWS];
    int n = read_table(argv[1], size, cum);
    if (n <= 0) {
        fprintf(stderr, "ab_known: %s: %s\n", argv[1], n < 0 ? "cannot read" : "no size,weight row up to 2048 bytes");
        return 2;
    }
    static unsigned char src[WINDOW], dst[WINDOW];
    for (int i = 0; i < WINDOW; i++)
        src[i] = (unsigned char)i;
    uint64_t seed = 20261125, sink = 0;
    if (shape == INTERLEAVED) {
        for (long c = 0; c < calls; c++) {
            struct call k = draw(&seed, size, cum, n);
            memcpy(dst + k.to, src + k.from, k.size);
            sink += dst[k.to];
        }
    } else {
        static struct call rec[RECORDS];
        static uint16_t order[RECORDS];
        for (unsigned i = 0; i < RECORDS; i++) {
            rec[i] = draw(&seed, size, cum, n);
            order[i] = (uint16_t)i;
        }
        /* the replay's pass: an odd stride and an offset; its page shift: a multiplier and an addend */
        uint32_t stride = 1, offset = 0, mul = 1, add = 0;
        for (long c = 0; c < calls; c++) {
            uint32_t i = (uint32_t)(c % RECORDS);
            if (i == 0 && shape == REPLAY) {
                uint64_t x = next(&seed), y = next(&seed);
                stride = (uint32_t)x | 1u, offset = (uint32_t)(x >> 21), mul = (uint32_t)y | 1u, add = (uint32_t)(y >> 21);
            }
            if (i == 0 && shape == SHUFFLED) /* a new order for each pass (Fisher-Yates), drawn outside the copies */
                for (unsigned j = RECORDS - 1; j > 0; j--) {
                    unsigned k = (unsigned)(next(&seed) % (j + 1));
                    uint16_t t = order[j];
                    order[j] = order[k];
                    order[k] = t;
                }
            if (shape == REPLAY) {
                uint32_t idx = (i * stride + offset) & (RECORDS - 1);
                const struct call *r = &rec[idx];
                /* the shift a large call would take (the top size bit), 0 here as in the replay's L1 calls */
                uint64_t o = ((uint64_t)((idx * mul + add) & 1023u) << 12) & (0 - (uint64_t)(r->size >> 15));
                sink ^= (uintptr_t)memcpy(dst + r->to + o, src + r->from + o, r->size);
            } else {
                const struct call *r = &rec[order[i]];
                memcpy(dst + r->to, src + r->from, r->size);
            }
        }
    }
    sink += dst[0];
    uint64_t x = sink | 1;
    for (unsigned i = 0; i < OTHER_WORK; i++)
        x = x * 2862933555777941757u + 3037000493u;
    printf("%lu\n", (unsigned long)(x >> 60)); /* the work is used: no compiler drops it */
    return 0;
}
