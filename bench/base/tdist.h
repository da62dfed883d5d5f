/* Student's t distribution: the quantile the process-level interval needs (--target-ci over
 * processes). The analysis package uses scipy's; tests/py/test_signtest_agreement.py checks the
 * two agree. */
#ifndef MFB_TDIST_H
#define MFB_TDIST_H

/* P(T <= t) for T with df degrees of freedom (df >= 1). */
double mfb_t_cdf(double t, double df);
/* The t with P(T <= t) = p, for p in (0, 1) and df >= 1; NAN outside. */
double mfb_t_quantile(double p, double df);

#endif
