/* SPDX-License-Identifier: BSD-3-Clause */
/* The statistics of make benefit (contrib/netemu/benefit_stats.c): values
 * worked out by hand. */
#include "benefit_stats.h"
#include "tap.h"

#include <math.h>

int main(void)
{
    /* Medians, odd and even counts, input untouched; empty input. */
    double v5[] = {3, 1, 4, 1, 5};
    is_double(bs_median(v5, 5), 3, 0, "median of 3 1 4 1 5 is 3");
    ok(v5[0] == 3 && v5[4] == 5, "median leaves its input in order");
    double v4[] = {2.5, 1, 4, 3};
    is_double(bs_median(v4, 4), 2.75, 1e-15, "median of an even count: mean of the middle two");
    ok(isnan(bs_median(v4, 0)), "median of nothing is NAN");
    is_double(bs_min(v5, 5), 1, 0, "min");
    is_double(bs_max(v5, 5), 5, 0, "max");
    ok(isnan(bs_min(v5, 0)) && isnan(bs_max(v5, 0)), "min/max of nothing are NAN");

    /* Pearson: exact lines, a hand-computed case, undefined cases. */
    double x[] = {1, 2, 3, 4}, up[] = {10, 20, 30, 40}, down[] = {8, 6, 4, 2}, r;
    ok(bs_pearson(x, up, 4, &r) == 0, "pearson of a rising line is defined");
    is_double(r, 1, 1e-12, "pearson of a rising line is 1");
    bs_pearson(x, down, 4, &r);
    is_double(r, -1, 1e-12, "pearson of a falling line is -1");
    /* x = 1 2 3, y = 1 3 2: sxy = 1, sxx = syy = 2, r = 0.5 */
    double y3[] = {1, 3, 2};
    bs_pearson(x, y3, 3, &r);
    is_double(r, 0.5, 1e-12, "pearson of (1,1) (2,3) (3,2) is 0.5");
    /* Metrics of ~1e8 bytes against times of ~1 s: scale does not matter. */
    double big[] = {1e8, 2e8, 3e8}, t[] = {1.0, 3.0, 2.0};
    bs_pearson(big, t, 3, &r);
    is_double(r, 0.5, 1e-12, "pearson does not depend on the scale of the metric");
    double flat[] = {7, 7, 7, 7};
    ok(bs_pearson(x, flat, 4, &r) < 0 && isnan(r), "pearson with a constant series: -1, NAN");
    ok(bs_pearson(x, up, 2, &r) < 0 && isnan(r), "pearson of 2 points: -1, NAN");

    /* Spearman: monotone but not linear is 1; ties share their mean rank. */
    double sq[] = {1, 4, 9, 100}, rho;
    ok(bs_spearman(x, sq, 4, &rho) == 0, "spearman defined");
    is_double(rho, 1, 1e-12, "spearman of a monotone curve is 1");
    /* y = 1 1 2: ranks 1.5 1.5 3 against 1 2 3: r = 1.5 / sqrt(2 * 1.5) = 0.866 */
    double tie[] = {1, 1, 2};
    bs_spearman(x, tie, 3, &rho);
    is_double(rho, sqrt(3) / 2, 1e-12, "spearman with a tie uses mean ranks (sqrt(3)/2)");
    ok(bs_spearman(x, flat, 4, &rho) < 0 && isnan(rho), "spearman with a constant series: -1, NAN");

    /* Paired ratios drop failed rounds of either series. */
    double tp[] = {1.5, NAN, 1.6, 1.4}, tb[] = {3.0, 3.0, -1, 2.8}, out[4];
    int n = bs_paired_ratios(tp, tb, 4, out);
    is_int(n, 2, "paired ratios: two rounds with both runs");
    ok(n == 2 && out[0] == 0.5 && out[1] == 0.5, "paired ratios are 0.5 0.5");

    /* Noise and verdicts. */
    double aa[] = {1.01, 0.985, 1.0};
    is_double(bs_noise(aa, 3), 0.015, 1e-12, "A/A noise is the largest deviation from 1");
    ok(isnan(bs_noise(aa, 0)), "noise of no rounds is NAN");
    double fast[] = {0.5, 0.52, 0.49}, edge[] = {0.5, 0.99, 0.5}, slow[] = {1.05, 1.04, 0.9},
           same[] = {1.01, 0.99, 1.0};
    is_int(bs_verdict(fast, 3, 0.015), BS_FASTER, "every round below 1 - noise: faster");
    is_int(bs_verdict(edge, 3, 0.015), BS_SAME, "one round within the noise: not called faster");
    is_int(bs_verdict(slow, 3, 0.015), BS_SLOWER, "median above 1 + noise: slower");
    is_int(bs_verdict(same, 3, 0.015), BS_SAME, "within the noise: same");
    is_int(bs_verdict(fast, 1, 0.015), BS_UNKNOWN, "one round: no verdict");
    is_int(bs_verdict(fast, 3, NAN), BS_UNKNOWN, "no A/A control: no verdict");
    like(bs_verdict_text(BS_FASTER), "faster", "verdict text");
    like(bs_verdict_text(BS_SLOWER), "SLOWER", "verdict text, slower");
    return done_testing();
}
