#include "base/strata.h"

#include <math.h>

static void plain(const double *x, size_t n, struct mfb_design_mean *out)
{
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    out->mean = n ? sum / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        sq += (x[i] - out->mean) * (x[i] - out->mean);
    out->se = n >= 2 ? sqrt(sq / (double)(n - 1) / (double)n) : INFINITY;
    out->df = n >= 2 ? (long)n - 1 : 0;
    out->strata = 0;
}

void mfb_design_mean(const double *x, size_t n, int nstrata, struct mfb_design_mean *out)
{
    if (nstrata <= 1 || n <= (size_t)nstrata) {
        plain(x, n, out);
        return;
    }
    /* stratum s holds processes s, s + nstrata, ...: a mean and a sum of squares each, in two
     * passes over x so that no array sized by the strata is needed */
    double mean_of_means = 0, inverse_counts = 0, ss = 0;
    for (int s = 0; s < nstrata; s++) {
        double sum = 0;
        size_t k = 0;
        for (size_t i = (size_t)s; i < n; i += (size_t)nstrata, k++)
            sum += x[i];
        double m = sum / (double)k;
        for (size_t i = (size_t)s; i < n; i += (size_t)nstrata)
            ss += (x[i] - m) * (x[i] - m);
        mean_of_means += m;
        inverse_counts += 1.0 / (double)k;
    }
    out->df = (long)n - nstrata;
    out->mean = mean_of_means / nstrata;
    out->se = sqrt(ss / (double)out->df * inverse_counts) / nstrata;
    out->strata = nstrata;
}
