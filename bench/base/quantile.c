#include "base/quantile.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void mfb_quantile_sort(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
}

void mfb_quantile_sort_u64(uint64_t *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_u64);
}

double mfb_quantile_of_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    double f = pos - (double)i;
    return i + 1 < n ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i];
}

double mfb_quantile_median(double *x, size_t n)
{
    mfb_quantile_sort(x, n);
    return mfb_quantile_of_sorted(x, n, 0.5);
}
