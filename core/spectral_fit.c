/* SPDX-License-Identifier: BSD-3-Clause */
/* spectral-fit (ours, not in Wang et al. 2015): the cut of one switch level
 * of map_spectral.c into parts of the children's slots. Where the paper
 * clusters by k-means and places the clusters by Plain / First-Fit /
 * Most-Reservation (which split clusters over nodes and fill nodes with
 * clusters that do not talk to each other), the ranks are cut by recursive
 * spectral bisection on CP-NSC's similarity graph (spectral_cluster.c,
 * topomap_cpnsc_embed with the walk-normalised vectors), each cut followed by
 * Kernighan-Lin swaps, as Chaco (Hendrickson & Leland) does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct fkey {
    double v;
    int i;
};

static int cmp_fkey(const void *a, const void *b)
{
    const struct fkey *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->i - y->i;
}

/* Weight of the edge between ranks r and q (0 when none). */
static double edge_w(const topomap_graph_t *g, int r, int q)
{
    int64_t e = topomap_adj_find(g->xadj, g->adj, r, q);
    return e >= 0 ? g->w[e] : 0;
}

/* Kernighan-Lin swaps on the split sub[0..nl) | sub[nl..nr) (Hendrickson and
 * Leland's Chaco follows spectral bisection with KL the same way): passes
 * over both sides in order of their gain (external - internal traffic),
 * swapping the two best unlocked vertices while that lowers the traffic
 * between the sides, until a pass swaps nothing (at most KL_PASSES). The
 * sizes of the sides are kept. 0, or -1 + errno. */
#define KL_PASSES 8
static int kl_swaps(const struct topomap_problem *pb, const int *ranks, int *sub, int nr, int nl,
                    int *loc, struct fkey *key, char *err, size_t errlen)
{
    if (nl == 0 || nl == nr)
        return 0;
    const topomap_graph_t *g = &pb->g;
    double *D = malloc(sizeof(double) * (size_t)nr);
    char *side = malloc((size_t)nr), *lock = malloc((size_t)nr);
    struct fkey *kr = malloc(sizeof *kr * (size_t)nr);
    if (!D || !side || !lock || !kr) {
        free(D);
        free(side);
        free(lock);
        free(kr);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int i = 0; i < nr; i++) {
        loc[ranks[sub[i]]] = i;
        side[i] = i >= nl;
    }
    for (int pass = 0; pass < KL_PASSES; pass++) {
        for (int i = 0; i < nr; i++) {
            int r = ranks[sub[i]];
            double d = 0;
            for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++) {
                int j = loc[g->adj[e]];
                if (j >= 0 && j != i)
                    d += side[j] != side[i] ? g->w[e] : -g->w[e];
            }
            D[i] = d;
            lock[i] = 0;
        }
        int na = 0, nb = 0;
        for (int i = 0; i < nr; i++) {
            if (!side[i])
                key[na++] = (struct fkey){-D[i], i};
            else
                kr[nb++] = (struct fkey){-D[i], i};
        }
        qsort(key, (size_t)na, sizeof *key, cmp_fkey);
        qsort(kr, (size_t)nb, sizeof *kr, cmp_fkey);
        int swaps = 0;
        for (int ta = 0, tb = 0; ta < na && tb < nb;) {
            int a = key[ta].i, b = kr[tb].i;
            int ra = ranks[sub[a]], rb = ranks[sub[b]];
            double gain = D[a] + D[b] - 2 * edge_w(g, ra, rb);
            if (!(gain > 0))
                break;
            side[a] = 1;
            side[b] = 0;
            lock[a] = lock[b] = 1;
            swaps++;
            /* Gains of the neighbours (a and b are locked: theirs stay). */
            for (int t = 0; t < 2; t++) {
                int v = t ? b : a, rv = t ? rb : ra;
                for (int64_t e = g->xadj[rv]; e < g->xadj[rv + 1]; e++) {
                    int j = loc[g->adj[e]];
                    if (j < 0 || lock[j])
                        continue;
                    /* v left j's side (now other) or joined it. */
                    D[j] += side[v] != side[j] ? 2 * g->w[e] : -2 * g->w[e];
                }
            }
            ta++;
            tb++;
            while (ta < na && lock[key[ta].i])
                ta++;
            while (tb < nb && lock[kr[tb].i])
                tb++;
        }
        if (!swaps)
            break;
    }
    /* Left side first, each side in its old order. */
    int k = 0;
    for (int i = 0; i < nr; i++)
        if (!side[i])
            key[k++].i = sub[i];
    for (int i = 0; i < nr; i++)
        if (side[i])
            key[k++].i = sub[i];
    for (int i = 0; i < nr; i++) {
        loc[ranks[sub[i]]] = -1;
        sub[i] = key[i].i;
    }
    free(D);
    free(side);
    free(lock);
    free(kr);
    return 0;
}

/* Parts c0..c1-1 for the nr ranks sub[0..nr) (indices into ranks): split
 * the parts in two runs of about half the slots, the ranks by their value in
 * the Fiedler vector (the second eigenvector of the walk matrix of the
 * subgraph: the smoothest non-constant one) in proportion to the slots, and
 * recurse. label[sub[i]] = part. 0, or -1 + errno. */
static int fit_rec(const struct topomap_problem *pb, const int *ranks, int *sub, int nr, int c0,
                   int c1, const int *cap, int *loc, int *label, int *tmp, struct fkey *key,
                   char *err, size_t errlen)
{
    if (nr == 0)
        return 0;
    if (c1 - c0 == 1) {
        for (int i = 0; i < nr; i++)
            label[sub[i]] = c0;
        return 0;
    }
    if (topomap_expired(pb))
        return topomap_fail(err, errlen, ETIMEDOUT, "spectral-fit: time limit reached");
    long total = 0, left = 0;
    for (int c = c0; c < c1; c++)
        total += cap[c];
    int cm = c0 + 1;
    left = cap[c0];
    while (cm < c1 - 1 && llabs(2 * (left + cap[cm]) - total) < llabs(2 * left - total))
        left += cap[cm++];
    /* Ranks on the left: in proportion to its slots, within both sides' room. */
    long nl = (long)((double)nr * (double)left / (double)total + 0.5);
    if (nl > left)
        nl = left;
    if (nr - nl > total - left)
        nl = nr - (total - left);
    for (int i = 0; i < nr; i++)
        tmp[i] = ranks[sub[i]];
    double *U = NULL;
    int dim = 0;
    if (nr > 2 && topomap_cpnsc_embed(pb, tmp, nr, 2, loc, 1, &U, &dim, err, errlen) < 0)
        return -1;
    /* The Fiedler vector: of the two columns, the one that varies most (the
     * other is the constant of the walk matrix, or on a disconnected
     * subgraph another component's indicator: either separates). */
    int col = 0;
    double var[2] = {0, 0};
    for (int c = 0; c < dim && U; c++) {
        double m = 0, m2 = 0;
        for (int i = 0; i < nr; i++) {
            double v = U[(size_t)i * (size_t)dim + (size_t)c];
            m += v;
            m2 += v * v;
        }
        var[c] = m2 / nr - (m / nr) * (m / nr);
    }
    if (dim > 1 && var[1] > var[0])
        col = 1;
    for (int i = 0; i < nr; i++) {
        key[i].v = U ? U[(size_t)i * (size_t)dim + (size_t)col] : (double)i;
        key[i].i = i;
    }
    free(U);
    qsort(key, (size_t)nr, sizeof *key, cmp_fkey);
    for (int i = 0; i < nr; i++)
        tmp[i] = sub[key[i].i];
    memcpy(sub, tmp, sizeof(int) * (size_t)nr);
    if (kl_swaps(pb, ranks, sub, nr, (int)nl, loc, key, err, errlen) < 0)
        return -1;
    /* Sub-arrays in ascending index order (deterministic subgraphs). */
    qsort(sub, (size_t)nl, sizeof(int), topomap_cmp_int);
    qsort(sub + nl, (size_t)(nr - nl), sizeof(int), topomap_cmp_int);
    if (fit_rec(pb, ranks, sub, (int)nl, c0, cm, cap, loc, label, tmp, key, err, errlen) < 0)
        return -1;
    return fit_rec(pb, ranks, sub + nl, nr - (int)nl, cm, c1, cap, loc, label, tmp, key, err,
                   errlen);
}

int topomap_cpnsc_fit(const struct topomap_problem *pb, const int *ranks, int nr, int k,
                      const int *cap, int *loc, int *label, char *err, size_t errlen)
{
    long room = 0;
    for (int c = 0; c < k; c++)
        room += cap[c];
    if (room < nr)
        return topomap_fail(err, errlen, ENOSPC, "spectral-fit: %d ranks do not fit in %ld slots",
                            nr, room);
    int *sub = malloc(sizeof(int) * (size_t)(nr > 0 ? nr : 1));
    int *tmp = malloc(sizeof(int) * (size_t)(nr > 0 ? nr : 1));
    struct fkey *key = malloc(sizeof *key * (size_t)(nr > 0 ? nr : 1));
    int rc = -1;
    if (!sub || !tmp || !key) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
    } else {
        for (int i = 0; i < nr; i++)
            sub[i] = i;
        rc = fit_rec(pb, ranks, sub, nr, 0, k, cap, loc, label, tmp, key, err, errlen);
    }
    free(sub);
    free(tmp);
    free(key);
    return rc;
}
