/* --target-ci. With one process, the rounds stop once every comparison's 95 % sign-test interval
 * of the paired ratio to the baseline is within +-P %. With several, processes are added until
 * every comparison's process-level interval is: the mean of each process's estimate
 * (measure/samples.h, mfb_samples_log_estimate) with its error from the model of the code
 * placements' effects (base/placement_model.h); Student's t, Bonferroni over the comparisons. The
 * analysis package computes the same intervals (tests/py/test_signtest_agreement.py,
 * tests/py/test_processes.py). */
#ifndef MFB_STOPRULE_H
#define MFB_STOPRULE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/code_placement.h"
#include "base/error.h"
#include "measure/run.h"

struct mfb_stoprule {
    double *scratch; /* one log ratio per measured round */
    size_t cap;
};

/* Recomputes r->stop.target_widths and r->stop.target_reached from the measured rounds. */
int mfb_stoprule_check(struct mfb_stoprule *s, struct mfb_run *r, struct mfb_err *err);
/* The process-level half-widths (relative, e.g. 0.01 for +-1 %) of the merged samples of every
 * process so far: half_widths[v] for each v with compared[v] (v >= 1; variant 0 is the baseline),
 * INFINITY below two processes. placements[p] is process p's (NULL, or rotating: none): the
 * intervals then come from the placement model over the whole blocks of MFB_CODE_PLACEMENTS
 * processes run so far (at least two), and are reached only at the end of a block, where the
 * placements are balanced. *reached: all within target_pct percent. */
int mfb_stoprule_processes(struct mfb_stoprule *s, const struct mfb_samples *all, int nvars, const bool *compared,
                           bool rotating, const struct mfb_process_placements *placements, double target_pct,
                           double *half_widths, bool *reached, struct mfb_err *err);
void mfb_stoprule_free(struct mfb_stoprule *s);

#endif
