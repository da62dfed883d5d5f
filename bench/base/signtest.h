/* Distribution-free confidence interval of a median from binomial order statistics (the sign
 * test), used by the --target-ci stop rule. The analysis package computes the same interval. */
#ifndef MFB_SIGNTEST_H
#define MFB_SIGNTEST_H

#include <stddef.h>

/* The 1-based rank k such that [x_(k), x_(n-k+1)] covers the median with probability >= level;
 * 0 when n is too small for that level. Exact for every n. */
size_t mfb_sign_test_rank(size_t n, double level);
/* Sorts x in place and returns the interval's ends and the median; -1 when n is too small. */
int mfb_sign_test_interval(double *x, size_t n, double level, double *lo, double *median, double *hi);

#endif
