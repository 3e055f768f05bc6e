/* SPDX-License-Identifier: BSD-3-Clause */
/* OHTMA, the optimized heuristic topology-aware mapping algorithm of Li, Chen,
 * Liu et al., "OHTMA: an optimized heuristic topology-aware mapping algorithm
 * on the Tianhe-3 exascale supercomputer prototype", Front. Inform. Technol.
 * Electron. Eng. 21(6), 2020: section 4.3, Algorithm 1.
 *
 * Phase 1 (lines 1-19), greedy. At step k (k processes placed):
 *   comm_p = sum_{i in Psel} A_pi + sum_{j in Punsel} A_pj / (1 + |Psel|)
 *   hops_n = sum_{i in Nsel} B_ni + sum_{j in Nunsel} B_nj / (1 + |Nsel|)
 * the unplaced process of largest comm_p goes to the free processor of
 * smallest hops_n. The two orders are independent of each other: processes
 * by how much they talk (first to the placed ones), processors by how central
 * they are to the processors used so far.
 * Phase 2 (lines 20-32), pair exchange: `loop` times, among processes not
 * yet exchanged (Status), exchange the pair with the largest hop-byte saving,
 * record it and mark both. Phase 3 (lines 33-35): keep the prefix of
 * exchanges with the largest cumulative saving, undo the rest.
 *
 * Choices where the paper is ambiguous, and where this code departs from it:
 *  - Processors are the slots of the allocation. B between two slots of the
 *    same node is 0 hops, as in the hop-byte metric (Table 1 starts at 1 for
 *    two nodes on one chip).
 *  - A is used symmetrised, g = A + A^T without its diagonal: A_pi in line 7
 *    is read as the traffic between p and i both ways, and the saving of an
 *    exchange counts both directions. Self traffic never depends on the
 *    mapping and is ignored.
 *  - Comparisons are made on (1 + k) comm_p = k C_p + W_p (C_p: traffic with
 *    the placed processes, W_p: all traffic of p) and (1 + k) hops_n =
 *    k S_n + T_n (integers), the same order as the paper's quotients without
 *    their rounding, so that ties are exact (byte counts are integers, exact in
 *    doubles up to 2^53).
 *  - Ties go to the lowest index: lowest process in line 13, lowest slot in
 *    line 14, and in line 28 the lexicographically smallest pair (m, n), m < n.
 *    In line 34 the shortest best prefix (an exchange that saves nothing is
 *    undone).
 *  - Line 26 as printed omits the edge between i and j (after the exchange
 *    their distance is unchanged, not zero) and reads only row i of A; we use
 *    the exact hop-byte change (the stated intent, line 25), so that the
 *    cumulative sums of line 33 are true hop-byte savings and the backtrack
 *    returns the best mapping seen.
 *  - Line 30 "Status[|P|] <- 1, k <- 1" is read as Status[m] = Status[n] = 1,
 *    k <- k + 1. The pair may save nothing or even cost: the loop goes on for
 *    `loop` steps (default n/2, as in section 5.2) and the backtrack drops
 *    the tail. It stops early when fewer than two processes are left.
 *  - Only placed processes are exchanged, as in the paper, also when the
 *    allocation has more slots than ranks (the refinement engine, --refine,
 *    also moves ranks to free slots).
 *
 * Speed, without changing the result (the paper needs 98 s for 512 ranks):
 *  - Phase 1 works per node (slots of a node are equivalent: same hops_n;
 *    taking the node's lowest free slot and breaking ties between nodes by
 *    that slot gives exactly the per-slot choice). S_n is updated by one hop
 *    row per step. C_p is updated over the neighbours of the placed process;
 *    the maximum of k C_p + W_p is searched only among the processes that talk
 *    to a placed one (the others have C_p = 0 and are taken by decreasing W_p
 *    from a sorted list). O(n (frontier + nodes)).
 *  - Phase 2 keeps for every process its best partner and saving; after an
 *    exchange only pairs touching the two processes or their neighbours change
 *    (see refine.c), so only those processes are rescanned, the others are
 *    raised by the rescans or, when their best partner was involved, marked
 *    stale (their old value is an upper bound) and rescanned only if they come
 *    out on top. Costs at other nodes are cached (n x nodes) when that fits
 *    in topomap_ohtma_dcache_max entries, else recomputed (the same values
 *    for integer byte counts).
 *  - Scans run in parallel over candidates with reductions under a total
 *    order (value, then index): the same answer for any thread count.
 *
 * ohtma-fast (the scalable variant) runs the same greedy phase (exact, it is
 * already fast) and the same exchange loop, Status and backtrack, but a
 * process is only compared with the processes that sit on a node hosting one
 * of its communication partners, that have a partner on its own node, that
 * sit on the nodes next to those (the K nearest allocated nodes, K <= 8, with
 * K x slots per node <= 64) or that talk to processes on the nodes next to
 * its own. The relation is symmetric and changes only around an exchange, so
 * the bookkeeping stays exact for it.
 * It gives up exchanges that move a process far from all of its partners,
 * and exchanges with a process it shares no neighbourhood with; the step
 * picked is the best among candidates, so the sequence, not only the result,
 * can differ from ohtma. Cost: O(degree x slots per node) per candidate list
 * instead of O(n), no n x nodes cache. When candidate lists would cover a
 * good part of the job anyway (dense profiles, small jobs) it runs the full
 * search. On jobs of more than 4096 ranks with several ranks per node the
 * lists are sampled by class (see sampled_candidates), so that they stay as
 * long as with one rank per node and the time grows about like n log n with
 * the ranks at a fixed node count. The benchmark (contrib/bench.c) reports
 * its hop-bytes against ohtma's: within 1% on all 96 cases of the reference
 * run (mean ratio 0.9998, worst 1.0095), where no case is sampled. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

/* Largest n x nodes cost cache of phase 2 (doubles): 32 MiB. */
long topomap_ohtma_dcache_max = 1L << 22;
/* ohtma-fast: how many processes (nodes next to a node x slots per node)
 * the topological neighbourhood of one node may add to candidate lists. */
#define NEAR_BUDGET 64
/* ohtma-fast on jobs of more than topomap_ohtma_sample_min ranks: candidates
 * are sampled by class when there are more than FAST_SLOTS ranks per node, so
 * that candidate lists hold about as many processes as with FAST_SLOTS ranks
 * per node (see sampled_candidates). A variable for the tests. */
int topomap_ohtma_sample_min = 4096;
#define FAST_SLOTS 1
/* ohtma-fast on tori and meshes: the most nodes for a hop table (4 MiB).
 * A variable for the tests. */
int topomap_ohtma_table_max = 2048;
/* Work (candidate evaluations) below which a loop run once per step is not
 * worth a parallel region: a region costs microseconds, much more when the
 * machine is shared. */
long topomap_ohtma_par_work = 32768;
#define PAR_WORK topomap_ohtma_par_work

/* ---- phase 1: the greedy ------------------------------------------------- */

struct wkey {
    double w;
    int i;
};

static int by_weight_desc(const void *pa, const void *pb)
{
    const struct wkey *a = pa, *b = pb;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    return a->i - b->i;
}

/* Line 14 on tori and meshes: hops are a sum over dimensions of a distance
 * in each, so S_n and T_n are too: S_n = sum_d F_d[n_d], where F_d[c] holds
 * the hops along dimension d from coordinate c to the placed slots, and T_n
 * likewise from the slot count of every coordinate. Placing on node v adds
 * one distance row per dimension (O(sum of the dimensions)) instead of a
 * hop row over every node (O(nodes)): the same integers, so the same
 * choices, without the nodes x nodes hop table or its lookups. */
struct sep {
    int nd, dims[TOPOMAP_XCHG_DIMS], wrap[TOPOMAP_XCHG_DIMS], off[TOPOMAP_XCHG_DIMS + 1];
    int *crd;   /* ngrp x nd: off[d] + coordinate d of each group's node */
    int64_t *F; /* sum of dims, per dimension and coordinate: hops to the placed slots */
    int64_t *G; /* the same to every slot */
    int64_t *H; /* k F + G at step k */
    int *fl, *fpos, nfl; /* the groups with a free slot, and where each sits in fl */
};

static int sep_dist(const struct sep *P, int k, int a, int b)
{
    int d = a > b ? a - b : b - a;
    return P->wrap[k] && 2 * d > P->dims[k] ? P->dims[k] - d : d;
}

/* 1 (set up), 0 (not a grid) or -1 (ENOMEM). */
static int sep_init(struct sep *P, const struct topomap_xchg *x)
{
    memset(P, 0, sizeof *P);
    const topomap_topology_t *t = x->pb->topo;
    int nd = topomap_topology_grid(t, P->dims, P->wrap, TOPOMAP_XCHG_DIMS);
    if (nd <= 0 || nd > TOPOMAP_XCHG_DIMS)
        return 0;
    P->nd = nd;
    for (int k = 0; k < nd; k++)
        P->off[k + 1] = P->off[k] + P->dims[k];
    int ng = x->ngrp, tot = P->off[nd];
    P->crd = malloc(sizeof(int) * (size_t)ng * (size_t)nd);
    P->F = calloc((size_t)tot, sizeof(int64_t));
    P->G = calloc((size_t)tot, sizeof(int64_t));
    P->H = malloc(sizeof(int64_t) * (size_t)tot);
    P->fl = malloc(sizeof(int) * (size_t)(ng > 0 ? ng : 1));
    P->fpos = malloc(sizeof(int) * (size_t)(ng > 0 ? ng : 1));
    int64_t *cnt = calloc((size_t)tot, sizeof(int64_t));
    if (!P->crd || !P->F || !P->G || !P->H || !P->fl || !P->fpos || !cnt) {
        free(cnt);
        return -1;
    }
    for (int u = 0; u < ng; u++) {
        int *c = P->crd + (size_t)u * (size_t)nd;
        topomap_topology_coords(t, x->grp_node[u], c, nd);
        for (int k = 0; k < nd; k++) {
            c[k] += P->off[k];
            cnt[c[k]] += x->grp_xslot[u + 1] - x->grp_xslot[u];
        }
        P->fl[u] = P->fpos[u] = u;
    }
    P->nfl = ng;
    for (int k = 0; k < nd; k++)
        for (int a = 0; a < P->dims[k]; a++)
            for (int b = 0; b < P->dims[k]; b++)
                P->G[P->off[k] + a] += cnt[P->off[k] + b] * sep_dist(P, k, a, b);
    free(cnt);
    return 1;
}

static void sep_free(struct sep *P)
{
    free(P->crd);
    free(P->F);
    free(P->G);
    free(P->H);
    free(P->fl);
    free(P->fpos);
}

/* Line 14 at step k: the group of smallest k S_n + T_n with a free slot,
 * lowest slot on ties (the free list is in no order: slots decide ties). */
static int sep_best(struct sep *P, const struct topomap_xchg *x, const int *used, int64_t k)
{
    int tot = P->off[P->nd], nd = P->nd;
    for (int a = 0; a < tot; a++)
        P->H[a] = k * P->F[a] + P->G[a];
    const int64_t *H = P->H;
    int bu = -1, bslot = 0;
    int64_t bh = 0;
    for (int f = 0; f < P->nfl; f++) {
        int u = P->fl[f];
        const int *c = P->crd + (size_t)u * (size_t)nd;
        int64_t h = H[c[0]];
        for (int d = 1; d < nd; d++)
            h += H[c[d]];
        if (bu >= 0 && h > bh)
            continue;
        int s = x->grp_slot[x->grp_xslot[u] + used[u]];
        if (bu < 0 || h < bh || s < bslot) {
            bu = u;
            bh = h;
            bslot = s;
        }
    }
    return bu;
}

/* A slot of group v was taken (used: v's slots taken, now included). */
static void sep_place(struct sep *P, const struct topomap_xchg *x, const int *used, int v)
{
    const int *c = P->crd + (size_t)v * (size_t)P->nd;
    for (int k = 0; k < P->nd; k++)
        for (int a = 0; a < P->dims[k]; a++)
            P->F[P->off[k] + a] += sep_dist(P, k, a, c[k] - P->off[k]);
    if (used[v] == x->grp_xslot[v + 1] - x->grp_xslot[v]) { /* full: out of the list */
        int f = P->fpos[v], last = P->fl[--P->nfl];
        P->fl[f] = last;
        P->fpos[last] = f;
    }
}

/* Lines 1-19 on x (groups and hops set up, nothing placed). */
static int greedy_phase(struct topomap_xchg *x, int *r2s, int *order, char *err, size_t errlen)
{
    const struct topomap_problem *pb = x->pb;
    const topomap_graph_t *g = &pb->g;
    int n = x->n, ng = x->ngrp;
    double *C = calloc((size_t)n + 1, sizeof(double));
    char *state = calloc((size_t)n + 1, 1); /* 0 untouched, 1 frontier, 2 placed */
    int *front = malloc(sizeof(int) * ((size_t)n + 1));
    int *fpos = malloc(sizeof(int) * ((size_t)n + 1));
    struct wkey *untouched = malloc(sizeof(struct wkey) * ((size_t)n + 1));
    int64_t *S = calloc((size_t)ng, sizeof(int64_t));
    int64_t *T = calloc((size_t)ng, sizeof(int64_t));
    int *used = calloc((size_t)ng, sizeof(int));
    struct sep P;
    int sep = 0, rc = 0;
    memset(&P, 0, sizeof P);
    if (!C || !state || !front || !fpos || !untouched || !S || !T || !used) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    const double *W = x->wdeg;
    for (int p = 0; p < n; p++) {
        untouched[p].w = W[p];
        untouched[p].i = p;
    }
    qsort(untouched, (size_t)n, sizeof *untouched, by_weight_desc);
    /* T_u = sum over all slots of hops from u: (1 + k) hops_n = k S_n + T_n. */
    sep = sep_init(&P, x);
    if (sep < 0) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if (!sep) {
#pragma omp parallel for schedule(static) if (ng > 256)
        for (int u = 0; u < ng; u++) {
            int64_t t = 0;
            for (int v = 0; v < ng; v++)
                t += (int64_t)(x->grp_xslot[v + 1] - x->grp_xslot[v]) * topomap_xchg_hops(x, u, v);
            T[u] = t;
        }
    }
    int nfront = 0, up = 0;
    for (int k = 0; k < n; k++) {
        if ((k & 255) == 0 && topomap_expired(pb)) {
            rc = topomap_fail(err, errlen, ETIMEDOUT,
                              "ohtma: time limit reached in the greedy phase (%d of %d placed)",
                              k, n);
            goto out;
        }
        /* Line 13: the process of largest comm_p, lowest index on ties. */
        int bp = -1;
        double bkey = -INFINITY;
        while (up < n && state[untouched[up].i] != 0)
            up++;
        if (up < n) {
            bp = untouched[up].i;
            bkey = untouched[up].w;
        }
        double dk = (double)k;
#pragma omp parallel if (nfront > PAR_WORK)
        {
            int tp = -1;
            double tkey = -INFINITY;
#pragma omp for schedule(static) nowait
            for (int f = 0; f < nfront; f++) {
                int p = front[f];
                double key = dk * C[p] + W[p];
                if (key > tkey || (key == tkey && p < tp)) {
                    tkey = key;
                    tp = p;
                }
            }
#pragma omp critical(ohtma_greedy_p)
            if (tp >= 0 && (tkey > bkey || (tkey == bkey && tp < bp))) {
                bkey = tkey;
                bp = tp;
            }
        }
        /* Line 14: the free slot of smallest hops_n, lowest slot on ties. */
        int bu = -1, bslot = 0;
        int64_t bh = 0;
        if (sep) {
            bu = sep_best(&P, x, used, k);
            bslot = x->grp_slot[x->grp_xslot[bu] + used[bu]];
        } else {
            for (int u = 0; u < ng; u++) {
                int cnt = x->grp_xslot[u + 1] - x->grp_xslot[u];
                if (used[u] == cnt)
                    continue;
                int64_t h = (int64_t)k * S[u] + T[u];
                int s = x->grp_slot[x->grp_xslot[u] + used[u]];
                if (bu < 0 || h < bh || (h == bh && s < bslot)) {
                    bu = u;
                    bh = h;
                    bslot = s;
                }
            }
        }
        /* Lines 15-17. */
        r2s[bp] = bslot;
        if (order)
            order[k] = bp;
        if (state[bp] == 1) {
            int last = front[--nfront];
            front[fpos[bp]] = last;
            fpos[last] = fpos[bp];
        }
        state[bp] = 2;
        for (int64_t e = g->xadj[bp]; e < g->xadj[bp + 1]; e++) {
            int q = g->adj[e];
            if (state[q] == 2)
                continue;
            C[q] += g->w[e];
            if (state[q] == 0) {
                state[q] = 1;
                fpos[q] = nfront;
                front[nfront++] = q;
            }
        }
        used[bu]++;
        if (sep) {
            sep_place(&P, x, used, bu);
        } else if (x->hop) {
            const unsigned char *h = x->hop + (size_t)bu * (size_t)ng;
            for (int v = 0; v < ng; v++)
                S[v] += h[v];
        } else {
            for (int v = 0; v < ng; v++)
                S[v] += topomap_xchg_hops(x, v, bu);
        }
    }
out:
    sep_free(&P);
    free(C);
    free(state);
    free(front);
    free(fpos);
    free(untouched);
    free(S);
    free(T);
    free(used);
    return rc;
}

int topomap_ohtma_greedy(const struct topomap_problem *pb, int *r2s, int *order, char *err,
                         size_t errlen)
{
    struct topomap_xchg x;
    if (topomap_xchg_init(&x, pb, err, errlen) < 0)
        return -1;
    int rc = greedy_phase(&x, r2s, order, err, errlen);
    topomap_xchg_free(&x);
    return rc;
}

/* ---- phase 2: pair exchange ------------------------------------------------ */

struct xp {
    struct topomap_xchg *x;
    int fast;
    char *elig;   /* Status[i] == 0 */
    double *ub;   /* best saving of i (exact, or an upper bound when stale) */
    int *part;    /* partner of the exact best, -1 = none */
    char *exact;
    /* Reverse index of part: the processes whose best partner is k. */
    int *head, *nxt, *prv;
    double *dc;   /* n x ngrp: D(i, u), or NULL */
    /* Shared scratch of the parallel rescans (full mode). */
    double *wsc;  /* n: weights of the row being rescanned */
    double *drow; /* ngrp: D(i, .) of the process being rescanned */
    double *drows;     /* 64 x ngrp: D(i, .) for a chunk of update_full */
    uint64_t *adjmask; /* n: which members of the chunk each process talks to */
    int *np;           /* n: new partner found by update_full, -1 = none */
    int *elist;        /* n: the eligible touched processes */
    char *mark;   /* n: processes touched by the last exchange */
    int *tree;    /* fast mode: tournament tree of winners over (ub, index) */
    int tsize;
    int *near_x, *near; /* fast mode: nodes next to each node (CSR), or NULL */
    /* Fast mode with many ranks per node (sample > 1 classes, see
     * sampled_candidates): the class of each process; the processes of each
     * class on each node (lists qhead[grp * sample + class], qnext, qprev);
     * the edges (p, j) of the graph by node of p and class of j (lists
     * ehead[grp * sample + class], enext, eprev over edge indices). */
    int sample;
    int *cls;
    int64_t *qhead, *qnext, *qprev;
    int64_t *ehead, *enext, *eprev;
    /* Fast mode: one workspace per thread, one result buffer per rescan. */
    struct fws *tw;
    int ntw;
    struct rbuf *rb;
    int nrb;
};

static inline double dcost(const struct xp *X, int j, int grp)
{
    return X->dc ? X->dc[(size_t)grp * (size_t)X->x->n + (size_t)j]
                 : topomap_xchg_cost_at(X->x, j, grp);
}

/* The saving of exchanging processes i and j (same expression everywhere, so
 * that it is the same bits whichever side computes it). */
static inline double xgain(const struct xp *X, int i, int j, double dib, double wij)
{
    const struct topomap_xchg *x = X->x;
    int a = x->rgrp[i], b = x->rgrp[j];
    if (a == b)
        return 0;
    double xi = x->cost[i] - dib, xj = x->cost[j] - dcost(X, j, a);
    return (xi + xj) - 2.0 * (wij * (double)topomap_xchg_hops(x, a, b));
}

static inline int better(double v1, int i1, double v2, int i2)
{
    return v1 > v2 || (v1 == v2 && i1 >= 0 && (i2 < 0 || i1 < i2));
}

static void set_part(struct xp *X, int j, int k)
{
    int old = X->part[j];
    if (old == k)
        return;
    if (old >= 0) {
        if (X->prv[j] >= 0)
            X->nxt[X->prv[j]] = X->nxt[j];
        else
            X->head[old] = X->nxt[j];
        if (X->nxt[j] >= 0)
            X->prv[X->nxt[j]] = X->prv[j];
    }
    X->part[j] = k;
    if (k >= 0) {
        X->prv[j] = -1;
        X->nxt[j] = X->head[k];
        if (X->head[k] >= 0)
            X->prv[X->head[k]] = j;
        X->head[k] = j;
    }
}

/* Processes m (group a -> b) and q (b -> a) were exchanged: update their
 * neighbours in the cost cache (the correction refine.c applies to cost[]).
 * The cache is stored by group, dc[u * n + j] = D(j, u), so that the scans
 * over j read it in order; here each group's row is visited once and only
 * where hops(u, b) != hops(u, a). */
static void dc_swapped(struct xp *X, int m, int q, int a, int b)
{
    const struct topomap_xchg *x = X->x;
    const topomap_graph_t *g = &x->pb->g;
    int ng = x->ngrp, n = x->n;
    for (int u = 0; u < ng; u++) {
        int h = topomap_xchg_hops(x, u, b) - topomap_xchg_hops(x, u, a);
        if (h == 0)
            continue;
        double *row = X->dc + (size_t)u * (size_t)n;
        for (int64_t e = g->xadj[m]; e < g->xadj[m + 1]; e++)
            row[g->adj[e]] += g->w[e] * (double)h;
        for (int64_t e = g->xadj[q]; e < g->xadj[q + 1]; e++)
            row[g->adj[e]] -= g->w[e] * (double)h;
    }
}

/* Full mode: the exact best partner of i (lowest index on ties), no side
 * effect, so that many run in parallel. drow: ngrp scratch; wsc: n zeros,
 * left zeroed. */
static double scan_full(const struct xp *X, int i, double *drow, double *wsc, int *bj)
{
    const struct topomap_xchg *x = X->x;
    const topomap_graph_t *g = &x->pb->g;
    int n = x->n, ng = x->ngrp;
    for (int u = 0; u < ng; u++)
        drow[u] = dcost(X, i, u);
    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
        wsc[g->adj[e]] = g->w[e];
    double bv = -INFINITY;
    *bj = -1;
    for (int j = 0; j < n; j++) {
        if (j == i || !X->elig[j])
            continue;
        double v = xgain(X, i, j, drow[x->rgrp[j]], wsc[j]);
        if (v > bv) {
            bv = v;
            *bj = j;
        }
    }
    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
        wsc[g->adj[e]] = 0;
    return bv;
}

/* Full mode, after an exchange: rescan the eligible processes S[0..ns-1]
 * whose pairs changed (exact best over all partners) and raise every other
 * eligible, unmarked process j to max(best_j, saving(i, j)) over i in S.
 * One parallel region over j (the transposed loop), chunks of 64 members of
 * S so that adjacency fits a bit mask. */
static void update_full(struct xp *X, const int *S, int ns)
{
    const struct topomap_xchg *x = X->x;
    const topomap_graph_t *g = &x->pb->g;
    int n = x->n, ng = x->ngrp;
    for (int c0 = 0; c0 < ns; c0 += 64) {
        int nc = ns - c0 < 64 ? ns - c0 : 64;
        const int *C = S + c0;
        double bv[64];
        int bj[64];
        for (int t = 0; t < nc; t++) {
            int i = C[t];
            double *dr = X->drows + (size_t)t * (size_t)ng;
            for (int u = 0; u < ng; u++)
                dr[u] = dcost(X, i, u);
            for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
                X->adjmask[g->adj[e]] |= (uint64_t)1 << t;
            bv[t] = -INFINITY;
            bj[t] = -1;
        }
#pragma omp parallel if ((long)nc * n > PAR_WORK)
        {
            double tv[64];
            int tj[64];
            for (int t = 0; t < nc; t++) {
                tv[t] = -INFINITY;
                tj[t] = -1;
            }
#pragma omp for schedule(static) nowait
            for (int j = 0; j < n; j++) {
                if (!X->elig[j])
                    continue;
                uint64_t mask = X->adjmask[j];
                double rv = -INFINITY;
                int ri = -1;
                for (int t = 0; t < nc; t++) {
                    int i = C[t];
                    if (i == j)
                        continue;
                    double wij = (mask >> t) & 1 ? topomap_xchg_weight(x, i, j) : 0.0;
                    double v = xgain(X, i, j, X->drows[(size_t)t * (size_t)ng + (size_t)x->rgrp[j]],
                                     wij);
                    if (v > tv[t] || (v == tv[t] && j < tj[t])) {
                        tv[t] = v;
                        tj[t] = j;
                    }
                    if (better(v, i, rv, ri)) {
                        rv = v;
                        ri = i;
                    }
                }
                if (X->mark[j] || ri < 0)
                    continue;
                if (X->exact[j]) {
                    int cur = X->np[j] >= 0 ? X->np[j] : X->part[j];
                    if (better(rv, ri, X->ub[j], cur)) {
                        X->ub[j] = rv;
                        X->np[j] = ri; /* relinked after: the index is not thread safe */
                    }
                } else if (rv > X->ub[j]) {
                    X->ub[j] = rv;
                }
            }
#pragma omp critical(ohtma_update)
            for (int t = 0; t < nc; t++)
                if (better(tv[t], tj[t], bv[t], bj[t])) {
                    bv[t] = tv[t];
                    bj[t] = tj[t];
                }
        }
        for (int t = 0; t < nc; t++) {
            int i = C[t];
            for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
                X->adjmask[g->adj[e]] = 0;
            X->ub[i] = bv[t];
            X->exact[i] = 1;
            set_part(X, i, bj[t]);
        }
    }
    for (int j = 0; j < n; j++)
        if (X->np[j] >= 0) {
            set_part(X, j, X->np[j]);
            X->np[j] = -1;
        }
}

/* ---- fast mode: restricted candidates ------------------------------------- */

struct fws {
    int *stamp; /* n */
    int cur;
    int *list;  /* candidates */
    double *gain;
    int cap;
    double *dnode; /* ngrp: D(i, u) memo for the groups met, NAN = unknown */
    int *touched;  /* groups memoised */
    int ntouched;
};

static int fws_init(struct fws *w, int n, int ng)
{
    memset(w, 0, sizeof *w);
    w->stamp = calloc((size_t)n, sizeof(int));
    w->dnode = malloc(sizeof(double) * (size_t)ng);
    w->touched = malloc(sizeof(int) * (size_t)ng);
    w->cap = 256;
    w->list = malloc(sizeof(int) * (size_t)w->cap);
    w->gain = malloc(sizeof(double) * (size_t)w->cap);
    if (!w->stamp || !w->dnode || !w->touched || !w->list || !w->gain)
        return -1;
    for (int u = 0; u < ng; u++)
        w->dnode[u] = NAN;
    return 0;
}

static void fws_free(struct fws *w)
{
    free(w->stamp);
    free(w->dnode);
    free(w->touched);
    free(w->list);
    free(w->gain);
}

/* The candidates and savings found by one rescan of a step. */
struct rbuf {
    int *list;
    double *gain;
    int len, cap, bj;
};

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int fws_push(struct fws *w, int len, int j)
{
    if (len == w->cap) {
        int cap = w->cap * 2;
        int *l = realloc(w->list, sizeof(int) * (size_t)cap);
        if (!l)
            return -1;
        w->list = l;
        double *gn = realloc(w->gain, sizeof(double) * (size_t)cap);
        if (!gn)
            return -1;
        w->gain = gn;
        w->cap = cap;
    }
    w->list[len] = j;
    return 0;
}

/* Add j to the candidates once (stamp) if it is eligible. 0, -1 on ENOMEM. */
static int cand_add(const struct xp *X, struct fws *w, int *len, int j)
{
    if (w->stamp[j] == w->cur)
        return 0;
    w->stamp[j] = w->cur;
    return X->elig[j] && fws_push(w, (*len)++, j) < 0 ? -1 : 0;
}

/* The processes on group (node) v. */
static int cand_group(const struct xp *X, struct fws *w, int *len, int v)
{
    const struct topomap_xchg *x = X->x;
    for (int k = x->grp_xslot[v]; k < x->grp_xslot[v + 1]; k++) {
        int j = x->s2r[x->grp_slot[k]];
        if (j >= 0 && cand_add(X, w, len, j) < 0)
            return -1;
    }
    return 0;
}

/* The partners of the processes on group (node) v. */
static int cand_group_partners(const struct xp *X, struct fws *w, int *len, int v)
{
    const struct topomap_xchg *x = X->x;
    const topomap_graph_t *g = &x->pb->g;
    for (int k = x->grp_xslot[v]; k < x->grp_xslot[v + 1]; k++) {
        int l = x->s2r[x->grp_slot[k]];
        if (l < 0)
            continue;
        for (int64_t e = g->xadj[l]; e < g->xadj[l + 1]; e++)
            if (cand_add(X, w, len, g->adj[e]) < 0)
                return -1;
    }
    return 0;
}

static int sampled_candidates(const struct xp *X, int i, struct fws *w);

/* Candidates of i (eligible, != i): processes on a node hosting a partner of
 * i, and partners of the processes on i's node. Symmetric: j is a candidate
 * of i iff i is one of j. Returns the count, -1 on ENOMEM. */
static int candidates(const struct xp *X, int i, struct fws *w)
{
    const struct topomap_xchg *x = X->x;
    const topomap_graph_t *g = &x->pb->g;
    if (++w->cur == 0) { /* wrapped: restart stamps */
        memset(w->stamp, 0, sizeof(int) * (size_t)x->n);
        w->cur = 1;
    }
    int len = 0;
    w->stamp[i] = w->cur;
    if (X->sample > 1)
        return sampled_candidates(X, i, w);
    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
        if (cand_group(X, w, &len, x->rgrp[g->adj[e]]) < 0)
            return -1;
    int a = x->rgrp[i];
    if (cand_group_partners(X, w, &len, a) < 0)
        return -1;
    if (!X->near_x)
        return len;
    /* Topological neighbourhoods: processes on nodes next to a node hosting
     * a partner of i, and partners of processes on nodes next to i's. */
    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
        int b = x->rgrp[g->adj[e]];
        for (int t = X->near_x[b]; t < X->near_x[b + 1]; t++)
            if (cand_group(X, w, &len, X->near[t]) < 0)
                return -1;
    }
    for (int t = X->near_x[a]; t < X->near_x[a + 1]; t++)
        if (cand_group_partners(X, w, &len, X->near[t]) < 0)
            return -1;
    return len;
}

/* ---- fast mode with many ranks per node: sampled candidates ------------- */

/* With r ranks per node the lists above hold about degree x r x (2 + 2K)
 * processes, and building them dominates: ohtma-fast's time grew with the
 * square of the ranks per node. Above FAST_SLOTS ranks per node every
 * process gets a class in [0, sample) (a hash of its index, sample = r /
 * FAST_SLOTS rounded up), and the lists keep, besides i's own partners, only
 * processes of i's class:
 *   C1: of i's class on a node hosting a partner of i, or next to one;
 *   C2: of i's class among the partners of the processes on i's node, or on a
 *       node next to it.
 * j is in C1 of i iff i is in C2 of j (a partner l of i on j's node, classes
 * equal), partners are mutual and the classes never change, so the relation
 * stays symmetric and changes only around an exchange, as the bookkeeping
 * needs. Lists are then as long as with FAST_SLOTS ranks per node, and built
 * in that time: the processes of a class on a node are kept in lists, each
 * process's partners sorted by class. A departure from the unsampled lists:
 * an exchange between two processes of different classes that are not
 * partners is never considered. */

/* The processes of class c on group v. */
static int cand_class(const struct xp *X, struct fws *w, int *len, int v, int c)
{
    for (int64_t j = X->qhead[(size_t)v * (size_t)X->sample + (size_t)c]; j >= 0;
         j = X->qnext[j])
        if (cand_add(X, w, len, (int)j) < 0)
            return -1;
    return 0;
}

/* The partners of class c of the processes on group v. */
static int cand_class_partners(const struct xp *X, struct fws *w, int *len, int v, int c)
{
    const int *adj = X->x->pb->g.adj;
    for (int64_t e = X->ehead[(size_t)v * (size_t)X->sample + (size_t)c]; e >= 0; e = X->enext[e])
        if (cand_add(X, w, len, adj[e]) < 0)
            return -1;
    return 0;
}

/* candidates() when X->sample > 1 (stamps already advanced, i stamped). */
static int sampled_candidates(const struct xp *X, int i, struct fws *w)
{
    const struct topomap_xchg *x = X->x;
    const topomap_graph_t *g = &x->pb->g;
    int len = 0, c = X->cls[i], a = x->rgrp[i];
    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
        if (cand_add(X, w, &len, g->adj[e]) < 0)
            return -1;
    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
        int b = x->rgrp[g->adj[e]];
        if (cand_class(X, w, &len, b, c) < 0)
            return -1;
        for (int t = X->near_x ? X->near_x[b] : 0; X->near_x && t < X->near_x[b + 1]; t++)
            if (cand_class(X, w, &len, X->near[t], c) < 0)
                return -1;
    }
    if (cand_class_partners(X, w, &len, a, c) < 0)
        return -1;
    for (int t = X->near_x ? X->near_x[a] : 0; X->near_x && t < X->near_x[a + 1]; t++)
        if (cand_class_partners(X, w, &len, X->near[t], c) < 0)
            return -1;
    return len;
}

/* Doubly linked lists in arrays: item v in list h. */
static void dl_link(int64_t *head, int64_t *next, int64_t *prev, size_t h, int64_t v)
{
    prev[v] = -1;
    next[v] = head[h];
    if (head[h] >= 0)
        prev[head[h]] = v;
    head[h] = v;
}

static void dl_unlink(int64_t *head, int64_t *next, int64_t *prev, size_t h, int64_t v)
{
    if (prev[v] >= 0)
        next[prev[v]] = next[v];
    else
        head[h] = next[v];
    if (next[v] >= 0)
        prev[next[v]] = prev[v];
}

/* The lists of process p and of its edges (p, j) on group v. */
static size_t q_list(const struct xp *X, int p, int v)
{
    return (size_t)v * (size_t)X->sample + (size_t)X->cls[p];
}

static size_t e_list(const struct xp *X, int64_t e, int v)
{
    return (size_t)v * (size_t)X->sample + (size_t)X->cls[X->x->pb->g.adj[e]];
}

/* Process p moved from group a to group b: move it and its edges. */
static void sample_moved(struct xp *X, int p, int a, int b)
{
    dl_unlink(X->qhead, X->qnext, X->qprev, q_list(X, p, a), p);
    dl_link(X->qhead, X->qnext, X->qprev, q_list(X, p, b), p);
    const int64_t *xadj = X->x->pb->g.xadj;
    for (int64_t e = xadj[p]; e < xadj[p + 1]; e++) {
        dl_unlink(X->ehead, X->enext, X->eprev, e_list(X, e, a), e);
        dl_link(X->ehead, X->enext, X->eprev, e_list(X, e, b), e);
    }
}

/* Set up the classes and the per-node lists for the placement in X->x. 0,
 * or -1 on ENOMEM. */
static int sample_build(struct xp *X)
{
    const struct topomap_xchg *x = X->x;
    const topomap_graph_t *g = &x->pb->g;
    int n = x->n, R = X->sample;
    size_t nh = (size_t)x->ngrp * (size_t)R, ne = (size_t)g->xadj[n];
    X->cls = malloc(sizeof(int) * (size_t)n);
    X->qhead = malloc(sizeof(int64_t) * nh);
    X->qnext = malloc(sizeof(int64_t) * (size_t)n);
    X->qprev = malloc(sizeof(int64_t) * (size_t)n);
    X->ehead = malloc(sizeof(int64_t) * nh);
    X->enext = malloc(sizeof(int64_t) * (ne + 1));
    X->eprev = malloc(sizeof(int64_t) * (ne + 1));
    if (!X->cls || !X->qhead || !X->qnext || !X->qprev || !X->ehead || !X->enext || !X->eprev)
        return -1;
    /* Classes by position on the node at the start: every node holds about
     * r / sample processes of each class, and only processes that never
     * moved are candidates (an exchange ends both processes' turns). */
    for (int u = 0; u < x->ngrp; u++) {
        int k = 0;
        for (int t = x->grp_xslot[u]; t < x->grp_xslot[u + 1]; t++) {
            int p = x->s2r[x->grp_slot[t]];
            if (p >= 0)
                X->cls[p] = k++ % R;
        }
    }
    for (size_t h = 0; h < nh; h++)
        X->qhead[h] = X->ehead[h] = -1;
    /* Linked in decreasing order: each list then reads ascending. */
    for (int p = n - 1; p >= 0; p--) {
        dl_link(X->qhead, X->qnext, X->qprev, q_list(X, p, x->rgrp[p]), p);
        for (int64_t e = g->xadj[p + 1] - 1; e >= g->xadj[p]; e--)
            dl_link(X->ehead, X->enext, X->eprev, e_list(X, e, x->rgrp[p]), e);
    }
    return 0;
}

/* The K nearest allocated nodes of every group (fewest hops, lowest group
 * index on ties) on a torus or mesh without a hop table: a breadth-first
 * search over the grid from each node, layer by layer (a layer = one more
 * hop), until K allocated nodes are found and their layer is complete. The
 * same lists as the table's, for the cost of the balls searched (about K
 * nodes of the topology per allocated node on a full allocation) instead of
 * nodes^2. knn: ngrp x K. 1 done, 0 not a grid, -1 ENOMEM. */
static int knn_grid(const struct topomap_xchg *x, int K, int *knn)
{
    const topomap_topology_t *t = x->pb->topo;
    int dims[TOPOMAP_XCHG_DIMS], wrap[TOPOMAP_XCHG_DIMS];
    int nd = topomap_topology_grid(t, dims, wrap, TOPOMAP_XCHG_DIMS);
    if (nd <= 0 || nd > TOPOMAP_XCHG_DIMS)
        return 0;
    int nn = topomap_topology_nnodes(t), ng = x->ngrp;
    size_t cells = 1;
    for (int k = 0; k < nd; k++)
        cells *= (size_t)dims[k];
    int *cell = malloc(sizeof(int) * cells);      /* linear coordinates -> node */
    int *crd = malloc(sizeof(int) * (size_t)nn * (size_t)nd);
    int *node_grp = malloc(sizeof(int) * (size_t)nn);
    int *stamp = calloc((size_t)nn, sizeof(int));
    int *queue = malloc(sizeof(int) * (size_t)nn);
    int *found = malloc(sizeof(int) * (size_t)nn);
    int rc = -1;
    if (!cell || !crd || !node_grp || !stamp || !queue || !found)
        goto out;
    for (size_t c = 0; c < cells; c++)
        cell[c] = -1;
    for (int v = 0; v < nn; v++) {
        int *c = crd + (size_t)v * (size_t)nd;
        topomap_topology_coords(t, v, c, nd);
        size_t lin = 0;
        for (int k = nd - 1; k >= 0; k--)
            lin = lin * (size_t)dims[k] + (size_t)c[k];
        cell[lin] = v;
        node_grp[v] = -1;
    }
    for (int u = 0; u < ng; u++)
        node_grp[x->grp_node[u]] = u;
    for (int u = 0; u < ng; u++) {
        int *best = knn + (size_t)u * (size_t)K, nb = 0;
        int qh = 0, qt = 0, s = x->grp_node[u];
        stamp[s] = u + 1;
        queue[qt++] = s;
        while (nb < K && qh < qt) {
            int layer_end = qt, nf = 0;
            for (; qh < layer_end; qh++) {
                const int *c = crd + (size_t)queue[qh] * (size_t)nd;
                for (int k = 0; k < nd; k++)
                    for (int dir = -1; dir <= 1; dir += 2) {
                        int cc[TOPOMAP_XCHG_DIMS];
                        memcpy(cc, c, sizeof(int) * (size_t)nd);
                        cc[k] += dir;
                        if (cc[k] < 0 || cc[k] >= dims[k]) {
                            if (!wrap[k])
                                continue;
                            cc[k] = (cc[k] + dims[k]) % dims[k];
                        }
                        size_t lin = 0;
                        for (int j = nd - 1; j >= 0; j--)
                            lin = lin * (size_t)dims[j] + (size_t)cc[j];
                        int v = cell[lin];
                        if (v < 0 || stamp[v] == u + 1)
                            continue;
                        stamp[v] = u + 1;
                        queue[qt++] = v;
                        if (node_grp[v] >= 0)
                            found[nf++] = node_grp[v];
                    }
            }
            qsort(found, (size_t)nf, sizeof(int), topomap_cmp_int);
            for (int f = 0; f < nf && nb < K; f++)
                best[nb++] = found[f];
        }
        for (; nb < K; nb++) /* fewer than K other nodes reachable: cannot happen, K < ng */
            best[nb] = u;
    }
    rc = 1;
out:
    free(cell);
    free(crd);
    free(node_grp);
    free(stamp);
    free(queue);
    free(found);
    return rc;
}

/* The nodes next to each node: its K nearest allocated nodes (fewest hops,
 * lowest index on ties), made symmetric (v next to u or u next to v). On a
 * torus allocation without holes these are the network links; on a
 * scattered allocation, the closest nodes that the job has. K keeps the
 * extra candidates per neighbour (K x slots per node) within NEAR_BUDGET;
 * below K = 2 there are none. 0, or -1 on ENOMEM. */
static int near_build(struct xp *X)
{
    const struct topomap_xchg *x = X->x;
    int ng = x->ngrp;
    double per_node = (double)x->nslots / (ng > 0 ? ng : 1) / (X->sample > 1 ? X->sample : 1);
    int K = (int)(NEAR_BUDGET / per_node);
    if (K > 8)
        K = 8;
    if (K > ng - 1)
        K = ng - 1;
    if (K < 2)
        return 0;
    int *knn = malloc(sizeof(int) * (size_t)ng * (size_t)K);
    int *deg = calloc((size_t)ng + 1, sizeof(int));
    int grid = knn && deg && !x->hop ? knn_grid(x, K, knn) : 0;
    if (!knn || !deg || grid < 0 || (!grid && !x->hop)) {
        free(knn);
        free(deg);
        return grid < 0 || !knn || !deg ? -1 : 0;
    }
    if (!grid)
        for (int u = 0; u < ng; u++) {
            /* Insertion into a sorted list of K (hops, index): O(ng K). */
            int *best = knn + (size_t)u * (size_t)K, nb = 0;
            const unsigned char *h = x->hop + (size_t)u * (size_t)ng;
            for (int v = 0; v < ng; v++) {
                if (v == u)
                    continue;
                if (nb == K && h[v] >= h[best[K - 1]])
                    continue;
                int p = nb < K ? nb++ : K - 1;
                while (p > 0 && h[best[p - 1]] > h[v]) {
                    best[p] = best[p - 1];
                    p--;
                }
                best[p] = v;
            }
        }
    /* Symmetric closure: count, fill, then drop duplicates. */
    for (int u = 0; u < ng; u++)
        for (int t = 0; t < K; t++) {
            deg[u]++;
            deg[knn[(size_t)u * K + t]]++;
        }
    X->near_x = malloc(sizeof(int) * ((size_t)ng + 1));
    int *fill = malloc(sizeof(int) * (size_t)ng);
    X->near = malloc(sizeof(int) * (size_t)ng * (size_t)K * 2);
    if (!X->near_x || !fill || !X->near) {
        free(knn);
        free(deg);
        free(fill);
        return -1;
    }
    X->near_x[0] = 0;
    for (int u = 0; u < ng; u++)
        X->near_x[u + 1] = X->near_x[u] + deg[u];
    for (int u = 0; u < ng; u++)
        fill[u] = X->near_x[u];
    for (int u = 0; u < ng; u++)
        for (int t = 0; t < K; t++) {
            int v = knn[(size_t)u * K + t];
            X->near[fill[u]++] = v;
            X->near[fill[v]++] = u;
        }
    int k = 0;
    for (int u = 0; u < ng; u++) {
        int lo = X->near_x[u], hi = X->near_x[u + 1];
        X->near_x[u] = k;
        for (int t = lo; t < hi; t++) {
            int v = X->near[t], dup = 0;
            for (int q = X->near_x[u]; q < k && !dup; q++)
                dup = X->near[q] == v;
            if (!dup)
                X->near[k++] = v;
        }
    }
    X->near_x[ng] = k;
    free(knn);
    free(deg);
    free(fill);
    return 0;
}

/* Fast mode: exact best of i over its candidates (ub[i], partner in *bjp);
 * the candidates and their gains are left in w. Count, or -1 (ENOMEM). Sets
 * no partner link, so that many run in parallel. */
static int rescan_fast(struct xp *X, int i, struct fws *w, int *bjp)
{
    const struct topomap_xchg *x = X->x;
    int len = candidates(X, i, w);
    if (len < 0)
        return -1;
    double bv = -INFINITY;
    int bj = -1;
    w->ntouched = 0;
    for (int c = 0; c < len; c++) {
        int j = w->list[c], b = x->rgrp[j];
        if (isnan(w->dnode[b])) {
            w->dnode[b] = topomap_xchg_cost_at(x, i, b);
            w->touched[w->ntouched++] = b;
        }
        double v = xgain(X, i, j, w->dnode[b], topomap_xchg_weight(x, i, j));
        w->gain[c] = v;
        if (v > bv || (v == bv && j < bj)) {
            bv = v;
            bj = j;
        }
    }
    for (int t = 0; t < w->ntouched; t++)
        w->dnode[w->touched[t]] = NAN;
    X->ub[i] = bv;
    X->exact[i] = 1;
    *bjp = bj;
    return len;
}

static inline int tree_better(const struct xp *X, int i1, int i2)
{
    if (i1 < 0)
        return 0;
    if (i2 < 0)
        return 1;
    double v1 = X->elig[i1] ? X->ub[i1] : -INFINITY, v2 = X->elig[i2] ? X->ub[i2] : -INFINITY;
    return v1 > v2 || (v1 == v2 && i1 < i2);
}

static void tree_update(struct xp *X, int i)
{
    int k = X->tsize + i;
    for (k /= 2; k >= 1; k /= 2) {
        int l = X->tree[2 * k], r = X->tree[2 * k + 1];
        X->tree[k] = tree_better(X, l, r) ? l : r;
    }
}

static void tree_build(struct xp *X)
{
    for (int k = 0; k < X->tsize; k++)
        X->tree[X->tsize + k] = k < X->x->n ? k : -1;
    for (int k = X->tsize - 1; k >= 1; k--) {
        int l = X->tree[2 * k], r = X->tree[2 * k + 1];
        X->tree[k] = tree_better(X, l, r) ? l : r;
    }
}

/* ---- the exchange loop ------------------------------------------------------ */

static void xp_free(struct xp *X)
{
    free(X->elig);
    free(X->ub);
    free(X->part);
    free(X->exact);
    free(X->head);
    free(X->nxt);
    free(X->prv);
    free(X->dc);
    free(X->wsc);
    free(X->drow);
    free(X->drows);
    free(X->adjmask);
    free(X->np);
    free(X->elist);
    free(X->mark);
    free(X->tree);
    free(X->near_x);
    free(X->near);
    free(X->cls);
    free(X->qhead);
    free(X->qnext);
    free(X->qprev);
    free(X->ehead);
    free(X->enext);
    free(X->eprev);
    for (int t = 0; t < X->ntw; t++)
        fws_free(&X->tw[t]);
    free(X->tw);
    for (int t = 0; t < X->nrb; t++) {
        free(X->rb[t].list);
        free(X->rb[t].gain);
    }
    free(X->rb);
}

/* Lines 20-35 on a placed x. */
static int exchange_phase(struct topomap_xchg *x, int fast, long loop, char *err, size_t errlen)
{
    const struct topomap_problem *pb = x->pb;
    const topomap_graph_t *g = &pb->g;
    int n = x->n, ng = x->ngrp;
    if (loop < 0)
        loop = n / 2;
    if (loop > n / 2)
        loop = n / 2; /* each step uses up two processes */
    if (loop == 0 || n < 2)
        return 0;
    struct xp X;
    memset(&X, 0, sizeof X);
    X.x = x;
    X.fast = fast;
    int rc = 0;
    int *ps1 = malloc(sizeof(int) * (size_t)loop), *ps2 = malloc(sizeof(int) * (size_t)loop);
    double *res = malloc(sizeof(double) * (size_t)loop);
    int *touched = malloc(sizeof(int) * (size_t)n);
    X.elig = malloc((size_t)n);
    X.ub = malloc(sizeof(double) * (size_t)n);
    X.part = malloc(sizeof(int) * (size_t)n);
    X.exact = calloc((size_t)n, 1);
    X.head = malloc(sizeof(int) * (size_t)n);
    X.nxt = malloc(sizeof(int) * (size_t)n);
    X.prv = malloc(sizeof(int) * (size_t)n);
    X.mark = calloc((size_t)n, 1);
    if (!ps1 || !ps2 || !res || !touched || !X.elig || !X.ub || !X.part || !X.exact || !X.head ||
        !X.nxt || !X.prv || !X.mark)
        goto nomem;
    for (int i = 0; i < n; i++) {
        X.elig[i] = 1;
        X.part[i] = X.head[i] = X.nxt[i] = X.prv[i] = -1;
        X.ub[i] = -INFINITY;
    }
    if (!fast) {
        X.wsc = calloc((size_t)n, sizeof(double));
        X.drow = malloc(sizeof(double) * (size_t)ng);
        X.drows = malloc(sizeof(double) * 64 * (size_t)ng);
        X.adjmask = calloc((size_t)n, sizeof(uint64_t));
        X.np = malloc(sizeof(int) * (size_t)n);
        X.elist = malloc(sizeof(int) * (size_t)n);
        if (!X.wsc || !X.drow || !X.drows || !X.adjmask || !X.np || !X.elist)
            goto nomem;
        for (int i = 0; i < n; i++)
            X.np[i] = -1;
        if ((long)n * ng <= topomap_ohtma_dcache_max) {
            X.dc = malloc(sizeof(double) * (size_t)n * (size_t)ng);
            if (X.dc) {
                double *dc = X.dc;
#pragma omp parallel for schedule(dynamic, 4) if ((long)n * ng > PAR_WORK)
                for (int u = 0; u < ng; u++)
                    for (int i = 0; i < n; i++)
                        dc[(size_t)u * (size_t)n + (size_t)i] = topomap_xchg_cost_at(x, i, u);
            }
        }
    } else {
        for (X.tsize = 1; X.tsize < n; X.tsize *= 2)
            ;
        X.tree = malloc(sizeof(int) * 2 * (size_t)X.tsize);
        X.elist = malloc(sizeof(int) * (size_t)n);
#ifdef _OPENMP
        int nth = omp_get_max_threads();
#else
        int nth = 1;
#endif
        X.tw = calloc((size_t)nth, sizeof(struct fws));
        double rpn = (double)n / (ng > 0 ? ng : 1);
        X.sample = n > topomap_ohtma_sample_min && rpn > FAST_SLOTS ? (int)ceil(rpn / FAST_SLOTS)
                                                                    : 1;
        if (!X.tree || !X.elist || !X.tw || near_build(&X) < 0 ||
            (X.sample > 1 && sample_build(&X) < 0))
            goto nomem;
        for (; X.ntw < nth; X.ntw++)
            if (fws_init(&X.tw[X.ntw], n, ng) < 0) {
                X.ntw++;
                goto nomem;
            }
    }

    /* Initial best partners: independent per process, in parallel. Every
     * thread enters the loop (a worksharing construct must be met by all),
     * one without scratch memory just flags the failure. */
    int nomem = 0;
#pragma omp parallel
    {
        double *drow = NULL, *wsc = NULL;
        struct fws w;
        int ok;
        if (!fast) {
            drow = malloc(sizeof(double) * (size_t)ng);
            wsc = calloc((size_t)n, sizeof(double));
            ok = drow && wsc;
        } else {
            ok = fws_init(&w, n, ng) == 0;
        }
        if (!ok) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (int i = 0; i < n; i++) {
            int bj = -1;
            if (!ok)
                continue;
            if (!fast) {
                X.ub[i] = scan_full(&X, i, drow, wsc, &bj);
            } else if (rescan_fast(&X, i, &w, &bj) < 0) {
#pragma omp atomic write
                nomem = 1;
            }
            X.prv[i] = bj; /* linked below: set_part is not thread safe */
        }
        if (!fast) {
            free(drow);
            free(wsc);
        } else {
            fws_free(&w);
        }
    }
    if (nomem)
        goto nomem;
    for (int i = 0; i < n; i++) {
        int bj = X.prv[i];
        X.prv[i] = -1;
        X.exact[i] = 1;
        set_part(&X, i, bj);
    }
    if (fast)
        tree_build(&X);

    long steps = 0;
    int *S = touched;
    for (; steps < loop; steps++) {
        if (topomap_expired(pb)) {
            rc = topomap_fail(err, errlen, ETIMEDOUT,
                              "%s: time limit reached after %ld of %ld exchange steps",
                              fast ? "ohtma-fast" : "ohtma", steps, loop);
            goto out;
        }
        /* Line 28: the best pair; stale tops are rescanned until exact. */
        int m;
        for (;;) {
            m = -1;
            if (fast) {
                m = X.tree[1];
                if (m >= 0 && !X.elig[m])
                    m = -1;
            } else {
                double bv = -INFINITY;
                for (int i = 0; i < n; i++)
                    if (X.elig[i] && (m < 0 || X.ub[i] > bv)) {
                        bv = X.ub[i];
                        m = i;
                    }
            }
            if (m < 0 || X.exact[m])
                break;
            if (fast) {
                int bj;
                if (rescan_fast(&X, m, &X.tw[0], &bj) < 0)
                    goto nomem;
                set_part(&X, m, bj);
                tree_update(&X, m);
            } else {
                int bj;
                X.ub[m] = scan_full(&X, m, X.drow, X.wsc, &bj);
                X.exact[m] = 1;
                set_part(&X, m, bj);
            }
        }
        int q = m >= 0 ? X.part[m] : -1;
        if (m < 0 || q < 0)
            break; /* fewer than two processes left */
        ps1[steps] = x->r2s[m];
        ps2[steps] = x->r2s[q];
        res[steps] = X.ub[m];

        /* The processes whose pairs change: m, q and their neighbours. */
        int ns = 0;
        X.mark[m] = X.mark[q] = 1;
        int pair[2] = {m, q};
        for (int t = 0; t < 2; t++)
            for (int64_t e = g->xadj[pair[t]]; e < g->xadj[pair[t] + 1]; e++) {
                int l = g->adj[e];
                if (!X.mark[l]) {
                    X.mark[l] = 1;
                    S[ns++] = l;
                }
            }
        /* Stale: whoever had a changed process as best partner. */
        for (int t = -2; t < ns; t++) {
            int k = t < 0 ? pair[t + 2] : S[t];
            while (X.head[k] >= 0) {
                int j = X.head[k];
                X.exact[j] = 0;
                set_part(&X, j, -1);
            }
        }
        /* Line 31 and Status. */
        int a = x->rgrp[m], b = x->rgrp[q];
        topomap_xchg_swap(x, ps1[steps], ps2[steps]);
        if (X.sample > 1 && a != b) {
            sample_moved(&X, m, a, b);
            sample_moved(&X, q, b, a);
        }
        if (X.dc && a != b)
            dc_swapped(&X, m, q, a, b);
        X.elig[m] = X.elig[q] = 0;
        set_part(&X, m, -1);
        set_part(&X, q, -1);
        if (fast) {
            tree_update(&X, m);
            tree_update(&X, q);
        }
        /* Rescan the touched eligible processes, raising everyone else. */
        if (!fast) {
            int ne = 0;
            for (int t = 0; t < ns; t++)
                if (X.elig[S[t]])
                    X.elist[ne++] = S[t];
            update_full(&X, X.elist, ne);
        }
        if (fast) {
            /* Independent rescans, in parallel; their raises are applied
             * after, in order (a maximum: the order does not matter). */
            int ne = 0;
            for (int t = 0; t < ns; t++)
                if (X.elig[S[t]])
                    X.elist[ne++] = S[t];
            if (ne > X.nrb) {
                struct rbuf *nb = realloc(X.rb, sizeof *nb * (size_t)ne);
                if (!nb)
                    goto nomem;
                memset(nb + X.nrb, 0, sizeof *nb * (size_t)(ne - X.nrb));
                X.rb = nb;
                X.nrb = ne;
            }
            int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) if (ne > 1 && (long)ne * n > PAR_WORK)
            for (int t = 0; t < ne; t++) {
                struct fws *w = &X.tw[thread_id()];
                struct rbuf *r = &X.rb[t];
                int len = rescan_fast(&X, X.elist[t], w, &r->bj);
                if (len > r->cap) {
                    int *l = realloc(r->list, sizeof(int) * (size_t)len);
                    double *gn = l ? realloc(r->gain, sizeof(double) * (size_t)len) : NULL;
                    if (l)
                        r->list = l;
                    if (gn) {
                        r->gain = gn;
                        r->cap = len;
                    }
                }
                if (len < 0 || len > r->cap) {
#pragma omp atomic write
                    failed = 1;
                    continue;
                }
                if (len > 0) {
                    memcpy(r->list, w->list, sizeof(int) * (size_t)len);
                    memcpy(r->gain, w->gain, sizeof(double) * (size_t)len);
                }
                r->len = len;
            }
            if (failed)
                goto nomem;
            for (int t = 0; t < ne; t++) {
                int i = X.elist[t];
                const struct rbuf *r = &X.rb[t];
                for (int c = 0; c < r->len; c++) {
                    int j = r->list[c];
                    double v = r->gain[c];
                    if (X.mark[j])
                        continue;
                    if (X.exact[j]) {
                        if (v > X.ub[j] || (v == X.ub[j] && (X.part[j] < 0 || i < X.part[j]))) {
                            X.ub[j] = v;
                            set_part(&X, j, i);
                            tree_update(&X, j);
                        }
                    } else if (v > X.ub[j]) {
                        X.ub[j] = v;
                        tree_update(&X, j);
                    }
                }
                set_part(&X, i, r->bj);
                tree_update(&X, i);
            }
        }
        X.mark[m] = X.mark[q] = 0;
        for (int t = 0; t < ns; t++)
            X.mark[S[t]] = 0;
    }

    /* Lines 33-35: the best prefix (shortest on ties), undo the rest. */
    {
        double sum = 0, best = 0;
        long t = 0;
        for (long k = 0; k < steps; k++) {
            sum += res[k];
            if (sum > best) {
                best = sum;
                t = k + 1;
            }
        }
        for (long k = steps - 1; k >= t; k--)
            topomap_xchg_swap(x, ps1[k], ps2[k]);
    }
    goto out;
nomem:
    rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
out:
    xp_free(&X);
    free(ps1);
    free(ps2);
    free(res);
    free(touched);
    return rc;
}

static int run(const struct topomap_problem *pb, int *r2s, int fast, char *err, size_t errlen)
{
    long loop = pb->opts ? pb->opts->loop : -1;
    if (loop < -1)
        return topomap_fail(err, errlen, EINVAL,
                            "%s: loop must be -1 (default: half the ranks) or >= 0, not %ld",
                            fast ? "ohtma-fast" : "ohtma", loop);
    if (fast && pb->n > 0) {
        /* Candidate lists hold about degree x slots per node processes: when
         * that is a good part of the job (dense profiles, small jobs) the
         * restriction saves nothing, and the full search runs instead. */
        double deg = (double)pb->g.xadj[pb->n] / pb->n;
        double per_node = (double)pb->nslots / topomap_alloc_nnodes(pb->alloc);
        if (deg * per_node >= pb->n / 8.0)
            fast = 0;
    }
    /* ohtma-fast on a torus or mesh of more than topomap_ohtma_table_max nodes
     * needs no nodes x nodes hop table: the greedy phase, the near lists and the
     * hops come from the coordinates (same values, same answer), so that its
     * cost does not grow with the square of the node count. On fewer nodes
     * the table is cheap to build and its lookups are faster. */
    int dims[TOPOMAP_XCHG_DIMS], wrap[TOPOMAP_XCHG_DIMS];
    int grid = topomap_topology_grid(pb->topo, dims, wrap, TOPOMAP_XCHG_DIMS) > 0;
    int table = !fast || !grid || topomap_alloc_nnodes(pb->alloc) <= topomap_ohtma_table_max;
    struct topomap_xchg x;
    if (topomap_xchg_init_table(&x, pb, table, err, errlen) < 0)
        return -1;
    int rc = greedy_phase(&x, r2s, NULL, err, errlen);
    if (rc == 0) {
        topomap_xchg_place(&x, r2s);
        rc = exchange_phase(&x, fast, loop, err, errlen);
        if (rc == 0)
            memcpy(r2s, x.r2s, sizeof(int) * (size_t)pb->n);
    }
    topomap_xchg_free(&x);
    return rc;
}

int topomap_map_ohtma(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return run(pb, r2s, 0, err, errlen);
}

int topomap_map_ohtma_fast(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return run(pb, r2s, 1, err, errlen);
}
