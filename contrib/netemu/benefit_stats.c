/* SPDX-License-Identifier: BSD-3-Clause */
#include "benefit_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bs_median(const double *v, int n)
{
    if (n < 1)
        return NAN;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

double bs_min(const double *v, int n)
{
    double m = n > 0 ? v[0] : NAN;
    for (int i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

double bs_max(const double *v, int n)
{
    double m = n > 0 ? v[0] : NAN;
    for (int i = 1; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

int bs_pearson(const double *x, const double *y, int n, double *r)
{
    *r = NAN;
    if (n < 3)
        return -1;
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    /* Relative test: metrics are ~1e8 bytes, times ~1 s. */
    if (sxx <= 1e-24 * (mx * mx + 1) * n || syy <= 1e-24 * (my * my + 1) * n)
        return -1;
    *r = sxy / sqrt(sxx * syy);
    return 0;
}

/* Ranks 1..n of v, ties sharing their mean rank. */
static int ranks(const double *v, int n, double *rk)
{
    int *ix = malloc((size_t)n * sizeof *ix);
    if (!ix)
        return -1;
    for (int i = 0; i < n; i++)
        ix[i] = i;
    /* Insertion sort: n is the number of placements (about 10). */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[ix[j - 1]] > v[ix[j]]; j--) {
            int t = ix[j];
            ix[j] = ix[j - 1];
            ix[j - 1] = t;
        }
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && v[ix[j + 1]] == v[ix[i]])
            j++;
        for (int k = i; k <= j; k++)
            rk[ix[k]] = (i + j) / 2.0 + 1;
        i = j + 1;
    }
    free(ix);
    return 0;
}

int bs_spearman(const double *x, const double *y, int n, double *rho)
{
    *rho = NAN;
    if (n < 3)
        return -1;
    double *rx = malloc((size_t)n * sizeof *rx), *ry = malloc((size_t)n * sizeof *ry);
    int rc = -1;
    if (rx && ry && ranks(x, n, rx) == 0 && ranks(y, n, ry) == 0)
        rc = bs_pearson(rx, ry, n, rho);
    free(rx);
    free(ry);
    return rc;
}

int bs_paired_ratios(const double *t, const double *base, int n, double *out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (t[i] > 0 && base[i] > 0) /* false for NAN too */
            out[k++] = t[i] / base[i];
    return k;
}

double bs_noise(const double *aa, int n)
{
    if (n < 1)
        return NAN;
    double m = 0;
    for (int i = 0; i < n; i++)
        if (fabs(aa[i] - 1) > m)
            m = fabs(aa[i] - 1);
    return m;
}

enum bs_verdict bs_verdict(const double *ratios, int n, double noise)
{
    if (n < 2 || !(noise >= 0))
        return BS_UNKNOWN;
    if (bs_max(ratios, n) < 1 - noise)
        return BS_FASTER;
    if (bs_median(ratios, n) > 1 + noise)
        return BS_SLOWER;
    return BS_SAME;
}

const char *bs_verdict_text(enum bs_verdict v)
{
    switch (v) {
    case BS_FASTER:
        return "faster than block beyond noise in every round";
    case BS_SAME:
        return "within the A/A noise of block";
    case BS_SLOWER:
        return "SLOWER than block beyond noise";
    default:
        return "no verdict (fewer than 2 paired rounds or no A/A control)";
    }
}
