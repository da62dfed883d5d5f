/* The known-answer program of memfbench ab (docs/program-ab.md): its memcpy calls are known by
 * construction. Sizes come from a shipped size table (the rows up to 2 KiB, the small calls
 * memfbench keeps in L1), drawn with a fixed seed; each call copies between random offsets of two
 * 8 KiB windows. With the call records (7 KiB) that is 23 KiB, in L1 as the replay's small-call
 * windows and parameters are, on every L1d from 32 KiB up (not on a 16 KiB small core, where the
 * replay's windows shrink). Then fixed other work (a dependent chain of multiply-adds) that no memory
 * function touches.
 *
 *     ab_known SIZE_TABLE.csv [batched|shuffled|interleaved] [CALLS]
 *
 * batched (the default): the calls are drawn first into an array of RECORDS compact records (size and
 * offsets, 6 KiB: in L1 beside the windows, as memfbench's own parameter array of 512 calls is),
 * which CALLS calls then walk pass after pass in the same order, nothing between two calls but the
 * loop. A first version kept 8,192 records of 24 bytes (192 KiB, in L2): the calls' arguments then
 * came from L2, libc's size branches resolved later, and the program's rep movsb gain came out a
 * quarter larger than the replay's, whose arguments are in L1. shuffled: the
 * same, each pass in an order of its own, as memfbench's timed loop visits its call array (a
 * branch predictor cannot learn the sequence of sizes). interleaved: each call is drawn just
 * before it is made (a binary search in the table: loads and unpredictable branches between every
 * two calls), as a program's own work comes between its copies. The copies are the same kind in
 * all three.
 *
 * Exit 0; 2 with one line when the table cannot be read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 8192, LARGEST = 2048, ROWS = 4096, RECORDS = 512 };

/* One call: its size and offsets in the windows (all below 2^16). */
struct call {
    uint16_t size, from, to;
};

/* The multiply-adds after the copies: a fixed amount of work beside them. */
#define OTHER_WORK 20000000u

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 11;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ab_known SIZE_TABLE.csv [batched|shuffled|interleaved] [CALLS]\n");
        return 2;
    }
    int interleaved = argc > 2 && !strcmp(argv[2], "interleaved");
    int shuffled = argc > 2 && !strcmp(argv[2], "shuffled");
    long calls = argc > 3 ? strtol(argv[3], NULL, 10) : 2000000;
    FILE *f = fopen(argv[1], "r");
    if (!f || calls <= 0) {
        fprintf(stderr, "ab_known: %s: cannot read (or CALLS not positive)\n", argv[1]);
        return 2;
    }
    static unsigned size[ROWS];
    static double cum[ROWS];
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
    if (n == 0) {
        fprintf(stderr, "ab_known: %s: no size,weight row up to %d bytes\n", argv[1], LARGEST);
        return 2;
    }
    static unsigned char src[WINDOW], dst[WINDOW];
    for (int i = 0; i < WINDOW; i++)
        src[i] = (unsigned char)i;
    uint64_t seed = 20261125;
    static struct call rec[RECORDS];
    static uint16_t order[RECORDS];
    unsigned long sum = 0;
    for (long c = 0; c < (interleaved ? calls : RECORDS); c++) {
        double u = (double)next(&seed) / 9007199254740992.0 * total;
        int lo = 0, hi = n - 1;
        while (lo < hi) { /* the first row whose cumulative weight passes u */
            int mid = (lo + hi) / 2;
            if (cum[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        unsigned s = size[lo];
        size_t from = (size_t)(next(&seed) % (WINDOW - s + 1)), to = (size_t)(next(&seed) % (WINDOW - s + 1));
        if (interleaved) {
            memcpy(dst + to, src + from, s);
            sum += dst[to];
        } else {
            rec[c] = (struct call){(uint16_t)s, (uint16_t)from, (uint16_t)to};
        }
    }
    for (unsigned i = 0; i < RECORDS; i++)
        order[i] = (uint16_t)i;
    for (long c = 0; !interleaved && c < calls; c++) {
        if (shuffled && c % RECORDS == 0) /* a new order for each pass (Fisher-Yates), drawn outside the copies */
            for (unsigned i = RECORDS - 1; i > 0; i--) {
                unsigned j = (unsigned)(next(&seed) % (i + 1));
                uint16_t t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        const struct call *r = &rec[order[c % RECORDS]];
        memcpy(dst + r->to, src + r->from, r->size);
    }
    sum += dst[0];
    uint64_t x = sum | 1;
    for (unsigned i = 0; i < OTHER_WORK; i++)
        x = x * 2862933555777941757u + 3037000493u;
    printf("%lu\n", (unsigned long)(x >> 60)); /* the work is used: no compiler drops it */
    return 0;
}
