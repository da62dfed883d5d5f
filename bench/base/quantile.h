/* Sorting and order statistics of small arrays, shared by the timer, the runner, the stop rule
 * and the summary. */
#ifndef MFB_QUANTILE_H
#define MFB_QUANTILE_H

#include <stddef.h>
#include <stdint.h>

void mfb_quantile_sort(double *x, size_t n);
void mfb_quantile_sort_u64(uint64_t *x, size_t n);
/* Linear-interpolated quantile of sorted data (q in [0, 1]); NaN when n is 0. */
double mfb_quantile_of_sorted(const double *sorted, size_t n, double q);
/* Median of x, which it sorts in place. */
double mfb_quantile_median(double *x, size_t n);

#endif
