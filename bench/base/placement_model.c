#include "base/placement_model.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/code_placement.h"

/* Columns of the model: the intercept and, per factor, one effect-coded column per placement but
 * the first it takes. */
#define MAX_COLUMNS (1 + MFB_MODEL_FACTORS * (MFB_CODE_PLACEMENTS - 1))

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
    out->rank = 1;
}

/* v less its projection on the orthonormal basis q[0..rank) (modified Gram-Schmidt), in place;
 * returns the squared length of what is left. */
static double project_out(double q[][MFB_MODEL_MAX_PROCESSES], int rank, double *v, size_t n)
{
    for (int k = 0; k < rank; k++) {
        double dot = 0;
        for (size_t i = 0; i < n; i++)
            dot += q[k][i] * v[i];
        for (size_t i = 0; i < n; i++)
            v[i] -= dot * q[k][i];
    }
    double left = 0;
    for (size_t i = 0; i < n; i++)
        left += v[i] * v[i];
    return left;
}

/* Adds column c (n values) to the orthonormal basis q[0..*rank) if it is not in its span (a column
 * whose remainder is under a billionth of its length is aliased). */
static void add_column(double q[][MFB_MODEL_MAX_PROCESSES], int *rank, double *c, size_t n)
{
    double norm0 = 0;
    for (size_t i = 0; i < n; i++)
        norm0 += c[i] * c[i];
    double norm = project_out(q, *rank, c, n);
    if (norm0 == 0 || norm <= 1e-18 * norm0)
        return;
    for (size_t i = 0; i < n; i++)
        q[*rank][i] = c[i] / sqrt(norm);
    (*rank)++;
}

void mfb_design_mean(const double *x, const int8_t (*levels)[MFB_MODEL_FACTORS], size_t n,
                     struct mfb_design_mean *out)
{
    plain(x, n, out);
    if (!levels || n < 3 || n > MFB_MODEL_MAX_PROCESSES)
        return;
    double q[MAX_COLUMNS][MFB_MODEL_MAX_PROCESSES], c[MFB_MODEL_MAX_PROCESSES];
    int rank = 0;
    for (size_t i = 0; i < n; i++)
        c[i] = 1;
    add_column(q, &rank, c, n);
    for (int f = 0; f < MFB_MODEL_FACTORS; f++) {
        /* the placements this factor takes; one missing (-1) anywhere leaves the factor out */
        bool seen[MFB_CODE_PLACEMENTS] = {false}, absent = false;
        for (size_t i = 0; i < n; i++) {
            int8_t l = levels[i][f];
            if (l < 0 || l >= MFB_CODE_PLACEMENTS)
                absent = true;
            else
                seen[l] = true;
        }
        int first = -1;
        for (int l = 0; l < MFB_CODE_PLACEMENTS && !absent; l++) {
            if (!seen[l])
                continue;
            if (first < 0) {
                first = l;
                continue;
            }
            for (size_t i = 0; i < n; i++)
                c[i] = (levels[i][f] == l) - (levels[i][f] == first);
            add_column(q, &rank, c, n);
        }
    }
    long df = (long)n - rank;
    if (rank == 1 || df < 1)
        return;
    /* the residual sum of squares: x less its projection on the model's columns */
    double resid[MFB_MODEL_MAX_PROCESSES];
    memcpy(resid, x, n * sizeof *x);
    double rss = project_out(q, rank, resid, n);
    /* balanced: every effect-coded column sums to zero, so the intercept is the plain mean and its
     * variance the residual variance over n */
    out->se = sqrt(rss / (double)df / (double)n);
    out->df = df;
    out->rank = rank;
}
