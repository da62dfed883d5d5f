#include "base/signtest.h"

#include <math.h>

#include "base/quantile.h"

size_t mfb_sign_test_rank(size_t n, double level)
{
    double half_alpha = (1 - level) / 2;
    if (n == 0)
        return 0;
    /* Largest k with P(B <= k-1) <= alpha/2, summing the binomial pmf in log space: exact for every
     * n (the same rule as analysis.stats.intervals.sign_test_ci), O(k) terms. */
    double log_half_n = (double)n * log(0.5), cdf = 0;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        cdf += exp(lgamma((double)n + 1) - lgamma((double)j + 1) - lgamma((double)(n - j) + 1) + log_half_n);
        if (cdf > half_alpha)
            break;
        k = j + 1;
    }
    return k;
}

int mfb_sign_test_interval(double *x, size_t n, double level, double *lo, double *median, double *hi)
{
    size_t k = mfb_sign_test_rank(n, level);
    if (k == 0)
        return -1;
    *median = mfb_quantile_median(x, n);
    *lo = x[k - 1];
    *hi = x[n - k];
    return 0;
}
