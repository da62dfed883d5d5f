/* The mean of per-process estimates as a study's design allows, for the --target-ci rule over
 * processes (measure/stoprule.c); the analysis's analysis/stats/placement_model.py design_estimate is the same
 * model, and tests/py/test_signtest_agreement.py checks the two agree. With code placements
 * balanced over the study, each process's estimate is its code placements' effects (additive:
 * one per placement of the timed loop, of the variant and of the baseline) plus what they leave;
 * the effects cancel in the mean, so its error is the model's residual spread over the processes,
 * not their spread as they came. */
#ifndef MFB_PLACEMENT_MODEL_H
#define MFB_PLACEMENT_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* The codes whose placement a comparison depends on: the timed loop, the variant, the baseline. */
#define MFB_MODEL_FACTORS 3
/* Processes the model takes (a study runs at most MFB_MAX_PROCESSES). */
#define MFB_MODEL_MAX_PROCESSES 64

struct mfb_design_mean {
    double mean;
    double se;   /* INFINITY: no error to be had (one value, no degree of freedom left) */
    long df;     /* degrees of freedom of se */
    int rank;    /* parameters of the model fitted (1: the plain mean) */
};

/* x[i] is process i's estimate and levels[i] its placements (0..7, or -1 for code that has none);
 * levels NULL, or n over MFB_MODEL_MAX_PROCESSES: the plain mean. The placements are taken to be
 * balanced (each placement of each code in as many processes), as whole blocks of a study's
 * processes are: the mean is then the model's intercept. A model that leaves no degree of freedom
 * falls back to the plain mean. */
void mfb_design_mean(const double *x, const int8_t (*levels)[MFB_MODEL_FACTORS], size_t n,
                     struct mfb_design_mean *out);

#endif
