/* Sampler self-check: the realized calls must follow the tables. Reads only what was stored in
 * the call records (sizes, offsets), so a truncating field or a wrong offset rule is caught,
 * as the uint8_t size bug of two public benchmarks would have been. */
#ifndef MFB_SELFCHECK_H
#define MFB_SELFCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "workload/distribution.h"
#include "workload/sampler.h"

/* Deviations beyond this many standard errors fail the check: with a few hundred tests per run,
 * a false alarm at 6 sigma happens about once in a million runs. */
#define MFB_SELFCHECK_Z 6.0
/* Rows expected fewer times than this in a check's draws are rare: the normal approximation behind
 * a z score does not hold for them, so they are tested pooled, as one count. */
#define MFB_SELFCHECK_MIN_EXPECTED 10

struct mfb_selfcheck {
    uint64_t draws;
    double mean_expected, mean_realized; /* over all draws */
    double mean_z;            /* realized against table mean over the rows that are not rare */
    double size_max_z;        /* worst table row (rows with < 10 expected calls pooled) */
    long size_worst_row;      /* index into the size table, -1 for the pooled rare rows */
    uint64_t size_unmatched;  /* realized sizes that no row contains */
    double src_align_max_z, dst_align_max_z;
    double overlap_max_z;
    bool passed;
};

/* Accumulates realized statistics over n calls; call repeatedly, then finish. */
struct mfb_selfcheck_acc {
    const struct mfb_dist *dist;
    enum mfb_align_mode mode;
    uint64_t src_cap, dst_cap;
    int roles;
    uint64_t n, sum_size;
    uint64_t *size_counts;
    uint64_t *size_sums; /* per size row: the sum of its realized sizes (the mean test's frequent rows) */
    int32_t *row_of;     /* size -> its row (-1: none) for sizes below lut_n, made from the rows */
    uint64_t lut_n;
    uint64_t src_counts[13], dst_counts[13]; /* by log2 of realized alignment */
    uint64_t ovl_counts[3], ovl_eligible;
    uint64_t unmatched;
};

int mfb_selfcheck_begin(struct mfb_selfcheck_acc *a, const struct mfb_dist *d, enum mfb_align_mode mode,
                        int roles);
void mfb_selfcheck_add(struct mfb_selfcheck_acc *a, const struct mfb_call *calls, size_t n);
/* Computes the result; returns -1 with a message naming the worst deviation if it failed. */
int mfb_selfcheck_finish(struct mfb_selfcheck_acc *a, struct mfb_selfcheck *out, struct mfb_err *err);

#endif
