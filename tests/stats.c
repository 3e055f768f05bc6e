/* SPDX-License-Identifier: BSD-3-Clause */
/* Matrix statistics (Bordage & Jeannot 2017, section 4.4): tiny matrices
 * worked out by hand, then random matrices against a dense, literal reading
 * of the formulas (with the edge choices documented in libtopomap/stats.c). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"

static topomap_profile_t *make(int n, size_t m, const int *src, const int *dst,
                               const double *bytes)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_profile_create(n, m, src, dst, bytes, NULL, err, sizeof err);
    if (!p)
        printf("# create: %s\n", err);
    return p;
}

/* The 5-rank profile of tests/data/profiles/small.txt. */
static void test_small(void)
{
    int src[] = {0, 1, 1, 2, 2, 3, 4}, dst[] = {1, 0, 2, 2, 3, 0, 3};
    double b[] = {100, 50, 30, 5, 20, 10, 40};
    topomap_profile_t *p = make(5, 7, src, dst, b);
    int ks[] = {1, 2, 3, 5, 8};
    topomap_stats_t s;
    ok(p && topomap_stats(p, ks, 5, &s) == 0, "stats of the 5-rank profile");
    /* C = A + A^T, diagonal (2->2, 5 bytes) dropped:
     *        0    1    2    3    4      T(i)
     *   0 [  0  150    0   10    0 ]   160
     *   1 [150    0   30    0    0 ]   180
     *   2 [  0   30    0   20    0 ]    50
     *   3 [ 10    0   20    0   40 ]    70
     *   4 [  0    0    0   40    0 ]    40     sum 500, max C = 150
     *
     * CH: M = C / 150, in 75ths: row 0 = [0 75 0 5 0], mean 16/75:
     *   3*16^2 + (16-75)^2 + (16-5)^2 = 768 + 3481 + 121 = 4370 (/75^2);
     *   row 1 = [75 0 15 0 0], mean 18: 3*324 + 57^2 + 3^2 = 4230;
     *   row 2 = [0 15 0 10 0], mean 5: 3*25 + 10^2 + 5^2 = 200;
     *   row 3 = [5 0 10 0 20], mean 7: 2*49 + 2^2 + 3^2 + 13^2 = 280;
     *   row 4 = [0 0 0 20 0], mean 4: 4*16 + 16^2 = 320;
     *   CH = 9400 / 75^2 / 5^2 = 9400 / 140625. */
    is_double(s.ch, 9400.0 / 140625, 1e-15, "CH = 9400/140625");
    /* CB = 1 - (500/5) / 180 = 4/9. */
    is_double(s.cb, 4.0 / 9, 1e-15, "CB = 1 - 100/180");
    /* CC: in every row half of T(i) lies within distance 1, so r = 1 and
     * R = [0..1]/5, [0..2]/5, [1..3]/5, [2..4]/5, [3..4]/5 (cut at 4):
     * (1 + 2 + 2 + 2 + 1) / 5 / 5 = 8/25. */
    is_double(s.cc, 8.0 / 25, 1e-15, "CC = 8/25");
    /* NBC^2 = 1 - (150+150+30+30+20+20+40+40) / 500 = 1 - 480/500 = 0.04. */
    is_double(s.nbc, 0.2, 1e-15, "NBC = sqrt(0.04) = 0.2");
    is_int(s.nk, 5, "5 SP values");
    is_int(s.k[1], 2, "k[1] = 2 recorded");
    /* SP(1): no pair shares a block (the diagonal is dropped). */
    is_double(s.sp[0], 1, 1e-15, "SP(1) = 1");
    /* SP(2): blocks {0,1} {2,3} {4}: 150*2 + 20*2 = 340 inside. */
    is_double(s.sp[1], 1 - 340.0 / 500, 1e-15, "SP(2) = 1 - 340/500 (last block of one rank)");
    /* SP(3): blocks {0,1,2} {3,4}: (150 + 30 + 40) * 2 = 440 inside. */
    is_double(s.sp[2], 1 - 440.0 / 500, 1e-15, "SP(3) = 1 - 440/500 (k does not divide n)");
    is_double(s.sp[3], 0, 1e-15, "SP(5) = 0: one block holds everything");
    is_double(s.sp[4], 0, 1e-15, "SP(8) = 0: k > n");
    topomap_profile_free(p);
}

static void test_two(void)
{
    /* C = [0 1; 1 0]: rows have mean 1/2 and deviations 1/2 twice:
     * CH = (1/2 + 1/2) / 4 = 1/4; balanced, so CB = 0; all traffic between
     * neighbours, so NBC = 0; CC: r = 1, window [0, 1], R = 1/2 each. */
    int src[] = {0}, dst[] = {1};
    double b[] = {7};
    int k[] = {2};
    topomap_stats_t s;
    topomap_profile_t *p = make(2, 1, src, dst, b);
    ok(p && topomap_stats(p, k, 1, &s) == 0, "stats of one pair");
    is_double(s.ch, 0.25, 1e-15, "pair: CH = 1/4");
    is_double(s.cb, 0, 1e-15, "pair: CB = 0");
    is_double(s.nbc, 0, 1e-15, "pair: NBC = 0");
    is_double(s.cc, 0.5, 1e-15, "pair: CC = 1/2");
    is_double(s.sp[0], 0, 1e-15, "pair: SP(2) = 0");
    topomap_profile_free(p);
}

static void test_cc_window(void)
{
    /* 6 ranks, C(0,5) = 10, C(0,1) = 2.
     * Row 0: T = 12; radius 1 holds 2 < 6, radius 5 holds 12: r = 5,
     *   window [0, 5], R = 5/6.
     * Row 1: T = 2 at distance 1: window [0, 2], R = 2/6.
     * Row 5: T = 10 at distance 5: window [0, 10] cut to [0, 5], R = 5/6
     *   (uncut it would be 10/6).
     * CC = (5 + 2 + 5) / 6 / 6 = 1/3. */
    int src[] = {0, 1}, dst[] = {5, 0};
    double b[] = {10, 2};
    topomap_stats_t s;
    topomap_profile_t *p = make(6, 2, src, dst, b);
    ok(p && topomap_stats(p, NULL, 0, &s) == 0, "stats with no SP values");
    is_double(s.cc, 1.0 / 3, 1e-15, "CC window cut at the matrix edges: 1/3");
    is_int(s.nk, 0, "nk = 0");
    /* NBC^2 = 1 - (2 + 2) / 24 = 5/6. */
    is_double(s.nbc, sqrt(5.0 / 6), 1e-15, "NBC = sqrt(5/6)");
    topomap_profile_free(p);
}

/* A dense, literal reading of the formulas. */
static void brute(int n, const double *a, int nk, const int *ks, topomap_stats_t *s)
{
    double *c = calloc((size_t)n * n, sizeof *c), total = 0, maxc = 0, maxt = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j) {
                c[i * n + j] = a[i * n + j] + a[j * n + i];
                total += c[i * n + j];
                if (c[i * n + j] > maxc)
                    maxc = c[i * n + j];
            }
    memset(s, 0, sizeof *s);
    s->nk = nk;
    if (total == 0) {
        free(c);
        return;
    }
    double ch = 0, cc = 0, nb = 0;
    for (int i = 0; i < n; i++) {
        double mean = 0, t = 0;
        for (int k = 0; k < n; k++) {
            mean += c[i * n + k] / maxc / n;
            t += c[i * n + k];
        }
        for (int j = 0; j < n; j++)
            ch += (mean - c[i * n + j] / maxc) * (mean - c[i * n + j] / maxc);
        if (t > maxt)
            maxt = t;
        for (int r = 0; t > 0 && r < n; r++) {
            int j1 = i - r < 0 ? 0 : i - r, j2 = i + r > n - 1 ? n - 1 : i + r;
            double w = 0;
            for (int j = j1; j <= j2; j++)
                w += c[i * n + j];
            if (w >= t / 2) {
                cc += (double)(j2 - j1) / n;
                break;
            }
        }
        if (i > 0)
            nb += c[i * n + i - 1];
        if (i < n - 1)
            nb += c[i * n + i + 1];
    }
    s->ch = ch / n / n;
    s->cb = 1 - total / n / maxt;
    s->cc = cc / n;
    s->nbc = sqrt(1 - nb / total > 0 ? 1 - nb / total : 0);
    for (int t = 0; t < nk; t++) {
        double in = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i / ks[t] == j / ks[t])
                    in += c[i * n + j];
        s->k[t] = ks[t];
        s->sp[t] = 1 - in / total;
    }
    free(c);
}

static void test_random(void)
{
    uint64_t x = 12345;
    int sizes[] = {1, 2, 3, 7, 13, 32};
    int ks[] = {1, 2, 3, 4, 8, 24};
    for (int t = 0; t < 6; t++) {
        int n = sizes[t];
        double *a = calloc((size_t)n * n, sizeof *a), *bytes = malloc((size_t)n * n * sizeof *bytes);
        int *src = malloc((size_t)n * n * sizeof *src), *dst = malloc((size_t)n * n * sizeof *dst);
        size_t m = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                unsigned r = (unsigned)(x >> 33);
                /* About 30% nonzero, small integers (exact sums), some self
                 * traffic that must be ignored. */
                if (r % 10 < 3) {
                    a[i * n + j] = 1 + r / 10 % 50;
                    src[m] = i;
                    dst[m] = j;
                    bytes[m++] = a[i * n + j];
                }
            }
        topomap_profile_t *p = make(n, m, src, dst, bytes);
        topomap_stats_t got, want;
        brute(n, a, 6, ks, &want);
        ok(p && topomap_stats(p, ks, 6, &got) == 0, "random %dx%d: stats computed", n, n);
        is_double(got.ch, want.ch, 1e-12, "random %dx%d: CH matches the dense formula", n, n);
        is_double(got.cb, want.cb, 1e-12, "random %dx%d: CB", n, n);
        is_double(got.cc, want.cc, 1e-12, "random %dx%d: CC", n, n);
        is_double(got.nbc, want.nbc, 1e-12, "random %dx%d: NBC", n, n);
        int spok = 1;
        for (int k = 0; k < 6; k++)
            spok &= fabs(got.sp[k] - want.sp[k]) <= 1e-12 && got.k[k] == ks[k];
        ok(spok, "random %dx%d: SP(1, 2, 3, 4, 8, 24)", n, n);
        topomap_profile_free(p);
        free(a);
        free(bytes);
        free(src);
        free(dst);
    }
}

static void test_edges(void)
{
    topomap_stats_t s;
    int k[TOPOMAP_STATS_MAXK + 1] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

    /* Only self traffic: C is zero, every statistic 0. */
    int src[] = {0, 1}, dst[] = {0, 1};
    double b[] = {5, 5};
    topomap_profile_t *p = make(3, 2, src, dst, b);
    memset(&s, 0xff, sizeof s);
    ok(p && topomap_stats(p, k, 2, &s) == 0, "self traffic only: computed");
    ok(s.ch == 0 && s.cb == 0 && s.cc == 0 && s.nbc == 0 && s.sp[0] == 0 && s.sp[1] == 0,
       "self traffic only: all statistics 0");

    errno = 0;
    ok(topomap_stats(p, k, TOPOMAP_STATS_MAXK + 1, &s) < 0 && errno == EINVAL,
       "more than TOPOMAP_STATS_MAXK values: EINVAL");
    int zero[] = {4, 0};
    errno = 0;
    ok(topomap_stats(p, zero, 2, &s) < 0 && errno == EINVAL, "k = 0: EINVAL");
    errno = 0;
    ok(topomap_stats(p, NULL, 1, &s) < 0 && errno == EINVAL, "nk = 1 without ks: EINVAL");
    errno = 0;
    ok(topomap_stats(NULL, k, 1, &s) < 0 && errno == EINVAL, "NULL profile: EINVAL");
    errno = 0;
    ok(topomap_stats(p, k, 1, NULL) < 0 && errno == EINVAL, "NULL result: EINVAL");
    ok(topomap_stats(p, k, TOPOMAP_STATS_MAXK, &s) == 0 && s.nk == TOPOMAP_STATS_MAXK,
       "TOPOMAP_STATS_MAXK values accepted");
    topomap_profile_free(p);

    /* Two blocks of 4 that talk only inside: SP(4) = 0, SP(2) > 0. */
    int bs[] = {0, 1, 2, 4, 5, 6}, bd[] = {1, 2, 3, 5, 6, 7};
    double bb[] = {1, 1, 1, 1, 1, 1};
    int kk[] = {4, 2};
    p = make(8, 6, bs, bd, bb);
    ok(p && topomap_stats(p, kk, 2, &s) == 0, "two chains of 4");
    is_double(s.sp[0], 0, 0, "chains of 4: SP(4) = 0 exactly");
    /* SP(2): inside blocks are 0-1, 2-3, 4-5, 6-7: 4 of the 6 pairs. */
    is_double(s.sp[1], 1 - 4.0 / 6, 1e-15, "chains of 4: SP(2) = 1/3");
    is_double(s.nbc, 0, 0, "chains: all traffic between neighbours, NBC = 0");
    topomap_profile_free(p);
}

int main(void)
{
    test_small();
    test_two();
    test_cc_window();
    test_random();
    test_edges();
    return done_testing();
}
