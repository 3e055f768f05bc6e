/* SPDX-License-Identifier: BSD-3-Clause */
/* Matrix statistics of Bordage & Jeannot, "Process affinity, metrics and
 * impact on performance: an empirical study" (2017), section 4.4: CH and CB
 * (taken there from Diener et al.), CC, NBC and SP(k).
 *
 * All of them are computed on C = A + A^T in bytes, the symmetric graph of
 * topomap_profile_graph(), whose diagonal is dropped: self traffic is not
 * something a placement can change, and the study's matrices have none (nor
 * do the recorded workloads). Everything is a sum over the nonzeros of C in
 * CSR order (O(nnz), plus a binary search per row for CC), sequential so the
 * result does not depend on the thread count; no dense matrix is formed.
 *
 * Where the formulas leave edges open, this file decides:
 *  - CH sums over all n columns, zeros included. The zeros of row i each add
 *    mean_i^2, so row i contributes sum over its nonzeros of
 *    (mean_i - M(i,j))^2 plus (n - deg_i) * mean_i^2, with
 *    mean_i = sum_k M(i,k) / n and M = C / max(C).
 *  - CB: T(i) = sum_j C(i,j); 0 when no rank communicates.
 *  - CC: for row i, r is the smallest radius such that the columns
 *    i-r .. i+r hold at least half of T(i). The window is cut to 0 .. n-1,
 *    j1 = max(0, i-r), j2 = min(n-1, i+r) (the paper asks j1 >= 0, j2 <= n
 *    and i - j1 = j2 - i, which cannot all hold near the edges; we keep the
 *    bounds and give up the symmetry there), R_i = (j2 - j1) / n. Rows
 *    without traffic have R_i = 0.
 *  - NBC: neighbours are i-1 and i+1 when they exist (the paper's footnote
 *    2); reported as NBC = sqrt(NBC^2), the quantity the paper names, with
 *    NBC^2 clamped at 0 against rounding.
 *  - SP(k): blocks are the ranks with the same i / k, so when k does not
 *    divide n the last, smaller block counts as a block (the ranks a block
 *    mapping puts on the last node); the paper's sum stops at block
 *    n/k - 1 and its l, m run to k inclusive, read here as k - 1.
 *  - With no traffic at all, every statistic is 0.
 */
#include <errno.h>
#include <math.h>

#include "config.h"

#include "internal.h"

/* Walk row i's entries outward from the diagonal, both sides at once, and
 * return the smallest radius at which the running sum reaches target (the
 * largest radius when it never does). *sum gets the sum in that same order,
 * so a second walk with target = half of it always stops. */
static int cc_radius(const topomap_graph_t *g, int i, double target, double *sum)
{
    int64_t lo = g->xadj[i], hi = g->xadj[i + 1];
    /* First entry right of the diagonal (there is no diagonal entry). */
    int64_t a = lo, b = hi;
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        if (g->adj[mid] < i)
            a = mid + 1;
        else
            b = mid;
    }
    int64_t left = a - 1, right = a;
    double cum = 0;
    int r = 0;
    while (left >= lo || right < hi) {
        int dl = left >= lo ? i - g->adj[left] : INT32_MAX;
        int dr = right < hi ? g->adj[right] - i : INT32_MAX;
        r = dl < dr ? dl : dr;
        if (dl == r)
            cum += g->w[left--];
        if (dr == r)
            cum += g->w[right++];
        if (cum >= target)
            break;
    }
    *sum = cum;
    return r;
}

int topomap_stats(const topomap_profile_t *p, const int *ks, int nk, topomap_stats_t *s)
{
    topomap_graph_t g;
    if (!p || !s || nk < 0 || nk > TOPOMAP_STATS_MAXK || (nk && !ks)) {
        errno = EINVAL;
        return -1;
    }
    for (int t = 0; t < nk; t++)
        if (ks[t] < 1) {
            errno = EINVAL;
            return -1;
        }
    if (topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) < 0)
        return -1;

    int n = g.n;
    double total = 0, maxc = 0, maxt = 0;
    for (int i = 0; i < n; i++) {
        double t = 0;
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++) {
            t += g.w[e];
            if (g.w[e] > maxc)
                maxc = g.w[e];
        }
        total += t;
        if (t > maxt)
            maxt = t;
    }

    s->ch = s->cb = s->cc = s->nbc = 0;
    s->nk = nk;
    for (int t = 0; t < nk; t++) {
        s->k[t] = ks[t];
        s->sp[t] = 0;
    }
    if (total <= 0)
        return 0;

    /* CH, CC and the neighbour and in-block sums, row by row. */
    double ch = 0, cc = 0, nb = 0, inblock[TOPOMAP_STATS_MAXK] = {0};
    for (int i = 0; i < n; i++) {
        int64_t lo = g.xadj[i], hi = g.xadj[i + 1];
        double s1 = 0;
        for (int64_t e = lo; e < hi; e++)
            s1 += g.w[e] / maxc;
        double mean = s1 / n, dev = (double)(n - (hi - lo)) * mean * mean;
        for (int64_t e = lo; e < hi; e++) {
            double d = mean - g.w[e] / maxc;
            dev += d * d;
            int j = g.adj[e];
            if (j == i - 1 || j == i + 1)
                nb += g.w[e];
            for (int t = 0; t < nk; t++)
                if (i / ks[t] == j / ks[t])
                    inblock[t] += g.w[e];
        }
        ch += dev;

        if (hi > lo) {
            double rowsum, dummy;
            cc_radius(&g, i, INFINITY, &rowsum);
            if (rowsum > 0) {
                int r = cc_radius(&g, i, rowsum / 2, &dummy);
                int64_t j1 = (int64_t)i - r < 0 ? 0 : (int64_t)i - r;
                int64_t j2 = (int64_t)i + r > n - 1 ? n - 1 : (int64_t)i + r;
                cc += (double)(j2 - j1) / n;
            }
        }
    }
    s->ch = ch / ((double)n * n);
    s->cb = maxt > 0 ? 1 - (total / n) / maxt : 0;
    s->cc = cc / n;
    double nbc2 = 1 - nb / total;
    s->nbc = nbc2 > 0 ? sqrt(nbc2) : 0;
    for (int t = 0; t < nk; t++) {
        double sp = 1 - inblock[t] / total;
        s->sp[t] = sp > 0 ? sp : 0;
    }
    return 0;
}
