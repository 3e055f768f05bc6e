/* SPDX-License-Identifier: BSD-3-Clause */
/* The statistics of `make benefit` (benefit_report.c): medians, paired
 * ratios, correlations and the verdict. Pure functions, no I/O, so that
 * tests/benefit_report.c checks them without MPI or root. */
#ifndef BENEFIT_STATS_H
#define BENEFIT_STATS_H

/** Median of v[0..n-1] (mean of the two middle values for even n); v is
 *  not modified. @return NAN when n < 1. */
double bs_median(const double *v, int n);
/** Smallest and largest of v[0..n-1]; NAN when n < 1. */
double bs_min(const double *v, int n);
double bs_max(const double *v, int n);

/** Pearson's correlation of x and y. @return 0, or -1 when it is undefined
 *  (n < 3, or x or y constant); *r is then NAN. */
int bs_pearson(const double *x, const double *y, int n, double *r);
/** Spearman's rank correlation (Pearson's on the ranks, ties get their mean
 *  rank). Same return as bs_pearson. */
int bs_spearman(const double *x, const double *y, int n, double *rho);

/** Paired ratios t[i] / base[i] over the n rounds where both are > 0 (a
 *  failed run is <= 0 or NAN and drops its round). @return the number of
 *  ratios written to out (caller-allocated, n entries). */
int bs_paired_ratios(const double *t, const double *base, int n, double *out);

/** Noise of an A/A control: the largest |ratio - 1| over its paired
 *  ratios; NAN when n < 1. */
double bs_noise(const double *aa_ratios, int n);

enum bs_verdict {
    BS_UNKNOWN, /* too few paired rounds (fewer than 2) or no A/A control */
    BS_FASTER,  /* every round faster than block by more than the noise */
    BS_SAME,    /* neither: within the A/A noise of block */
    BS_SLOWER   /* median ratio above 1 + noise */
};
/** Verdict on a placement from its paired ratios to block and the A/A
 *  noise (bs_noise). */
enum bs_verdict bs_verdict(const double *ratios, int n, double noise);
/** "faster than block beyond noise", ... (static string). */
const char *bs_verdict_text(enum bs_verdict v);

#endif
