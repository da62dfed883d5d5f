#include "base/tdist.h"

#include <math.h>

/* The continued fraction of the regularized incomplete beta function I_x(a, b), evaluated by the
 * modified Lentz method; converges fast for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        /* the even step */
        double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + num * d;
        c = 1 + num / c;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        /* the odd step */
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + num * d;
        c = 1 + num / c;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = fabs(c) < tiny ? tiny : c;
        double step = d * c;
        h *= step;
        if (fabs(step - 1) < 1e-15)
            break;
    }
    return h;
}

/* I_x(a, b), given x and y = 1 - x each computed without cancellation (for the t distribution
 * near 0, x is 1 to double precision while y still carries t). */
static double incomplete_beta(double a, double b, double x, double y)
{
    if (x <= 0)
        return 0;
    if (y <= 0)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, y) / b;
}

double mfb_t_cdf(double t, double df)
{
    double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t), t * t / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

/* Bisection on the CDF: monotone, and 200 halvings of a bracket of width 2e6 reach the double
 * resolution. Called a few times per process, so speed does not matter. */
double mfb_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df >= 1))
        return NAN;
    double lo = -1e6, hi = 1e6;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
        double mid = 0.5 * (lo + hi);
        if (mfb_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}
