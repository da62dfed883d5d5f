/* The mean of per-process estimates as a study's design allows (the analysis's
 * analysis/stats.py design_estimate, which tests/py/test_signtest_agreement.py checks this
 * against): with processes in strata of the same code placements, balanced over the study, the
 * mean of the strata's means with an error from the spread within strata; else the plain mean
 * with the error of the processes' spread. */
#ifndef MFB_STRATA_H
#define MFB_STRATA_H

#include <stddef.h>

struct mfb_design_mean {
    double mean;
    double se;   /* INFINITY: no error to be had (one value, no stratum of two) */
    long df;     /* degrees of freedom of se */
    int strata;  /* 0: the plain mean */
};

/* x[i] is process i's estimate; with nstrata > 1 process i is in stratum i mod nstrata (the
 * code placements' turn, measure/layout.h), which is used once every stratum has a process and
 * one has two (n > nstrata); otherwise, and with nstrata <= 1, the plain mean. */
void mfb_design_mean(const double *x, size_t n, int nstrata, struct mfb_design_mean *out);

#endif
