#include "signtest.h"

#include <math.h>

#include "order.h"

/* z with P(Z > z) = p for a standard normal Z, by Newton's method on erfc (C has no inverse). */
static double upper_normal_quantile(double p)
{
    double z = 1.5;
    for (int i = 0; i < 50; i++) {
        double f = 0.5 * erfc(z / sqrt(2.0)) - p;
        double df = -exp(-z * z / 2) / sqrt(2 * M_PI);
        double step = f / df;
        z -= step;
        if (fabs(step) < 1e-12)
            break;
    }
    return z;
}

size_t mfb_sign_test_rank(size_t n, double level)
{
    double half_alpha = (1 - level) / 2;
    if (n == 0)
        return 0;
    if (n > 2000) {
        /* Normal approximation of Binomial(n, 1/2): k - 1 <= n/2 - z sqrt(n)/2. */
        double z = upper_normal_quantile(half_alpha);
        double k = floor((double)n / 2 - z * sqrt((double)n) / 2);
        return k < 1 ? 0 : (size_t)k;
    }
    /* Largest k with P(B <= k-1) <= alpha/2, summing the binomial pmf in log space. */
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
    *median = mfb_median(x, n);
    *lo = x[k - 1];
    *hi = x[n - k];
    return 0;
}
