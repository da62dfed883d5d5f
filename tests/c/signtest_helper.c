/* Reads a confidence level and then numbers from stdin, one per line; prints the C sign-test
 * rank and interval "rank lo median hi" (%.17g), or "none" when n is too small. The pytest
 * tests/py/test_signtest_agreement.py feeds the same data to the analysis package. */
#include <stdio.h>
#include <stdlib.h>

#include "base/signtest.h"

int main(void)
{
    double level;
    if (scanf("%lf", &level) != 1) {
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
