/* SPDX-License-Identifier: BSD-3-Clause */
/* spectral-fit (ours, not in Wang et al. 2015): the cut of one switch level
 * of map_spectral.c into parts of the children's slots. Where the paper
 * clusters by k-means and places the clusters by Plain / First-Fit /
 * Most-Reservation (which split clusters over nodes and fill nodes with
 * clusters that do not talk to each other), the ranks are cut by recursive
 * bisection of CP-NSC's similarity graph, each cut multilevel spectral with
 * Fiduccia-Mattheyses refinement (spectral_bisect.c), as Chaco (Hendrickson
 * & Leland) does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spectral.h"

/* The first cut of a level is tried from up to FIT_VARIANTS near-best ones
 * (ours) on groups of up to FIT_VARIANT_MAX ranks. */
#define FIT_VARIANTS 4
#define FIT_VARIANT_MAX 512

/* The subgraph of pb->g on ranks[sub[0..nr)] as a bisection graph: traffic
 * on the edges, one rank per vertex, and CP-NSC's self similarity (step 2:
 * SELF_SIMILARITY = MAX_SIMILARITY, the largest traffic of the subgraph). */
static int sub_graph(const struct topomap_problem *pb, const int *ranks, const int *sub, int nr,
                     int *loc, struct topomap_bgraph *B)
{
    const topomap_graph_t *g = &pb->g;
    int64_t ne = 0;
    memset(B, 0, sizeof *B);
    for (int i = 0; i < nr; i++) {
        loc[ranks[sub[i]]] = i;
        ne += g->xadj[ranks[sub[i]] + 1] - g->xadj[ranks[sub[i]]];
    }
    B->n = nr;
    B->xadj = malloc(sizeof(int64_t) * ((size_t)nr + 1));
    B->adj = malloc(sizeof(int) * (size_t)(ne ? ne : 1));
    B->w = malloc(sizeof(double) * (size_t)(ne ? ne : 1));
    B->self = malloc(sizeof(double) * (size_t)(nr ? nr : 1));
    B->vw = malloc(sizeof(int) * (size_t)(nr ? nr : 1));
    int ok = B->xadj && B->adj && B->w && B->self && B->vw;
    double maxw = 0;
    ne = 0;
    for (int i = 0; i < nr && ok; i++) {
        int r = ranks[sub[i]];
        B->xadj[i] = ne;
        for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++) {
            int j = loc[g->adj[e]];
            if (j >= 0 && j != i && g->w[e] > 0) {
                B->adj[ne] = j;
                B->w[ne++] = g->w[e];
                maxw = g->w[e] > maxw ? g->w[e] : maxw;
            }
        }
        B->vw[i] = 1;
    }
    for (int i = 0; i < nr; i++) {
        loc[ranks[sub[i]]] = -1;
        if (ok)
            B->self[i] = maxw > 0 ? maxw : 1;
    }
    if (ok)
        B->xadj[nr] = ne;
    return ok ? 0 : -1;
}

/* The traffic between ranks of ranks[sub[0..nr)] in different parts. */
static double level_cut(const struct topomap_problem *pb, const int *ranks, const int *sub, int nr,
                        int *loc, const int *label)
{
    const topomap_graph_t *g = &pb->g;
    double c = 0;
    for (int i = 0; i < nr; i++)
        loc[ranks[sub[i]]] = sub[i];
    for (int i = 0; i < nr; i++)
        for (int64_t e = g->xadj[ranks[sub[i]]]; e < g->xadj[ranks[sub[i]] + 1]; e++) {
            int j = loc[g->adj[e]];
            if (j >= 0 && label[j] != label[sub[i]])
                c += g->w[e];
        }
    for (int i = 0; i < nr; i++)
        loc[ranks[sub[i]]] = -1;
    return c / 2;
}

/* sub[0..nr) reordered: the left side (side[i] == 0) first, each side in
 * its order; returns the size of the left side. tmp: nr ints. */
static int split(int *sub, int nr, const char *side, int *tmp)
{
    int nl = 0, nrt = 0;
    for (int i = 0; i < nr; i++) {
        if (side[i])
            tmp[nrt++] = sub[i];
        else
            sub[nl++] = sub[i]; /* nl <= i: over entries already read */
    }
    memcpy(sub + nl, tmp, sizeof(int) * (size_t)nrt);
    return nl;
}

/* Parts c0..c1-1 for the nr ranks sub[0..nr) (indices into ranks, in
 * ascending order): the parts split in two runs of about half the slots,
 * the ranks by topomap_fit_bisect with as many on the left as the slots
 * allow, in proportion to the slots where they can; then each side.
 * label[sub[i]] = part. side: nr chars of scratch. With nalt > 1 (ours),
 * each of up to nalt near-best first cuts is followed down to the parts and
 * the parts with the least traffic between them win (a periodic grid has
 * many cuts of about the same traffic, and which one leaves halves that cut
 * well further down shows only there). 0, or -1 + errno. */
static int fit_rec(const struct topomap_problem *pb, const int *ranks, int *sub, int nr, int c0,
                   int c1, const int *cap, int *loc, int *label, int *tmp, char *side, int nalt,
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
    long lo = nr - (total - left) > 0 ? nr - (total - left) : 0, hi = nr < left ? nr : left;
    long target = (long)((double)nr * (double)left / (double)total + 0.5);
    target = target < lo ? lo : target > hi ? hi : target;
    struct topomap_bgraph B;
    char *alts = NULL;
    int *sub0 = NULL, *best = NULL;
    if (sub_graph(pb, ranks, sub, nr, loc, &B) < 0 ||
        (nalt > 1 && !(alts = malloc((size_t)nalt * (size_t)nr)))) {
        topomap_bgraph_free(&B);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    uint64_t seed = pb->opts->seed ^ topomap_mix64(((uint64_t)(unsigned)c0 << 32) | (unsigned)nr);
    int na = topomap_fit_bisect(pb, &B, lo, hi, target, seed, nalt, nalt > 1 ? alts : side, NULL,
                                err, errlen);
    topomap_bgraph_free(&B);
    if (na < 0)
        goto fail;
    if (nalt == 1) {
        int nl = split(sub, nr, side, tmp);
        if (fit_rec(pb, ranks, sub, nl, c0, cm, cap, loc, label, tmp, side, 1, err, errlen) < 0)
            return -1;
        return fit_rec(pb, ranks, sub + nl, nr - nl, cm, c1, cap, loc, label, tmp, side, 1, err,
                       errlen);
    }
    sub0 = malloc(sizeof(int) * (size_t)nr);
    best = malloc(sizeof(int) * (size_t)nr);
    if (!sub0 || !best) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    memcpy(sub0, sub, sizeof(int) * (size_t)nr);
    double bestc = 0;
    for (int a = 0; a < na; a++) {
        memcpy(sub, sub0, sizeof(int) * (size_t)nr);
        int nl = split(sub, nr, alts + (size_t)a * (size_t)nr, tmp);
        if (fit_rec(pb, ranks, sub, nl, c0, cm, cap, loc, label, tmp, side, 1, err, errlen) < 0 ||
            fit_rec(pb, ranks, sub + nl, nr - nl, cm, c1, cap, loc, label, tmp, side, 1, err,
                    errlen) < 0)
            goto fail;
        double c = level_cut(pb, ranks, sub0, nr, loc, label);
        if (a == 0 || c < bestc) {
            bestc = c;
            for (int i = 0; i < nr; i++)
                best[i] = label[sub0[i]];
        }
    }
    for (int i = 0; i < nr; i++)
        label[sub0[i]] = best[i];
    free(alts);
    free(sub0);
    free(best);
    return 0;
fail:
    free(alts);
    free(sub0);
    free(best);
    return -1;
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
    char *side = malloc((size_t)(nr > 0 ? nr : 1));
    int rc = -1;
    if (!sub || !tmp || !side) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
    } else {
        for (int i = 0; i < nr; i++)
            sub[i] = i;
        rc = fit_rec(pb, ranks, sub, nr, 0, k, cap, loc, label, tmp, side,
                     nr <= FIT_VARIANT_MAX ? FIT_VARIANTS : 1, err, errlen);
    }
    free(sub);
    free(tmp);
    free(side);
    return rc;
}
