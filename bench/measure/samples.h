/* Raw per-batch samples, stored column by column as they are written to the output. */
#ifndef MFB_SAMPLES_H
#define MFB_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine/counters.h"

struct mfb_sample {
    uint16_t variant;  /* index into the run's variant list */
    uint16_t position; /* place of this batch within its round */
    uint32_t round;
    uint32_t calls;
    uint8_t warmup;
    int16_t cpu;       /* CPU the batch ended on, -1 unknown */
    uint64_t bytes;
    uint64_t ticks;
    double ns;           /* ticks on the clock of the process that measured it */
    uint16_t process;    /* --processes: index of the process */
    uint64_t t_start_ns; /* since the first round began */
    uint16_t size_class; /* --by-class: 0 the whole distribution, k >= 1 its k-th size class */
    int64_t counters[MFB_COUNTER_COUNT]; /* --counters: each counter's count over the batch; -1 not counted */
    int16_t thread;      /* --threads N > 1: the timing thread (index into its CPUs); -1 in a one-thread run */
    int8_t alone;        /* --threads N > 1: 1 when thread 0 timed it while the others waited; -1 in a one-thread run */
};

/* Whether a batch is one every statistic of the run is about: any batch of a one-thread run, and
 * thread 0's batches timed beside the other threads in a run of several (measure/team.h). */
static inline bool mfb_sample_main(const struct mfb_sample *s)
{
    return s->thread <= 0 && s->alone <= 0;
}

struct mfb_samples {
    struct mfb_sample *s;
    size_t n, cap;
};

int mfb_samples_push(struct mfb_samples *v, const struct mfb_sample *s);

/* The paired estimate of variant v against the baseline (variant 0) that every summary, stop rule
 * and the analysis (analysis/stats/placement_model.py, process_estimate) share: over the measured rounds of size
 * class cls (0: the whole distribution) of process `process` (< 0: every process), each round's
 * ln(batch time of v / batch time of the baseline); their median, or, with code placements
 * rotating per round, the median over full blocks of MFB_CODE_PLACEMENTS rounds (machine/layout.h)
 * of each block's mean (over every process at once, process < 0, blocks are told apart where the
 * round number falls back). A round's batches of one class are nvars consecutive samples, so the pairing
 * cancels the round-to-round change of the drawn calls and the machine's drift. scratch holds
 * at least all->n values. NaN without a paired round. */
/* Those rounds' log ratios into out (room for all->n), and, when rounds is not NULL, each one's
 * round; returns how many. */
size_t mfb_samples_log_ratios(const struct mfb_samples *all, int nvars, int process, unsigned cls, int v,
                              double *out, uint32_t *rounds);
double mfb_samples_log_estimate(const struct mfb_samples *all, int nvars, int process, unsigned cls, int v,
                                bool rotating, double *scratch);
void mfb_samples_free(struct mfb_samples *v);

#endif
