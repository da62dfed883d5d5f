/* Reads a confidence level and then numbers from stdin, one per line; prints the C sign-test
 * rank and interval "rank lo median hi" (%.17g), or "none" when n is too small. Given "t" first
 * instead, reads pairs "p df" and prints the t quantile of each (%.17g); given "d", reads lines
 * "value loop variant baseline" (a process's estimate and its three code placements, -1 for none)
 * and prints the design mean of base/placement_model.h, "mean se df rank" (%.17g). The pytest
 * tests/py/test_signtest_agreement.py feeds the same data to the analysis package and scipy. */
#include <stdio.h>
#include <stdlib.h>

#include "base/signtest.h"
#include "base/placement_model.h"
#include "base/tdist.h"

static int t_quantiles(void)
{
    double p, df;
    while (scanf("%lf %lf", &p, &df) == 2)
        printf("%.17g\n", mfb_t_quantile(p, df));
    return 0;
}

static int design_mean(void)
{
    double v, x[MFB_MODEL_MAX_PROCESSES];
    int8_t levels[MFB_MODEL_MAX_PROCESSES][MFB_MODEL_FACTORS];
    int a, b, c;
    size_t n = 0;
    while (n < MFB_MODEL_MAX_PROCESSES && scanf("%lf %d %d %d", &v, &a, &b, &c) == 4) {
        x[n] = v;
        levels[n][0] = (int8_t)a;
        levels[n][1] = (int8_t)b;
        levels[n][2] = (int8_t)c;
        n++;
    }
    struct mfb_design_mean d;
    mfb_design_mean(x, (const int8_t(*)[MFB_MODEL_FACTORS])levels, n, &d);
    printf("%.17g %.17g %ld %d\n", d.mean, d.se, d.df, d.rank);
    return 0;
}

int main(void)
{
    double level;
    char first[16];
    if (scanf("%15s", first) == 1 && first[0] == 't')
        return t_quantiles();
    if (first[0] == 'd')
        return design_mean();
    if (sscanf(first, "%lf", &level) != 1) {
        fprintf(stderr, "signtest_helper: first line must be the level\n");
        return 2;
    }
    size_t n = 0, cap = 1024;
    double *x = malloc(cap * sizeof *x), v;
    while (x && scanf("%lf", &v) == 1) {
        if (n == cap) {
            double *y = realloc(x, 2 * cap * sizeof *x);
            if (!y)
                break;
            x = y;
            cap *= 2;
        }
        x[n++] = v;
    }
    if (!x) {
        fprintf(stderr, "signtest_helper: out of memory\n");
        return 1;
    }
    double lo, med, hi;
    size_t k = mfb_sign_test_rank(n, level);
    if (mfb_sign_test_interval(x, n, level, &lo, &med, &hi) < 0)
        printf("none\n");
    else
        printf("%zu %.17g %.17g %.17g\n", k, lo, med, hi);
    free(x);
    return 0;
}
