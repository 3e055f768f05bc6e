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
 *    (see xchg.c), so only those processes are rescanned, the others are
 *    raised by the rescans or, when their best partner was involved, marked
 *    stale (their old value is an upper bound) and rescanned only if they come
 *    out on top. Costs at other nodes are cached (n x nodes) when that fits
 *    in ohtma_dcache_max (tuning.h) entries, else recomputed (the same values
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
 * lists are sampled by class (see sampled_candidates in ohtma_fast.c), so
 * that they stay as long as with one rank per node and the time grows about
 * like n log n with the ranks at a fixed node count. The benchmark
 * (contrib/bench.c) reports its hop-bytes against ohtma's: within 1% on all
 * 96 cases of the reference run (mean ratio 0.9998, worst 1.0095), where no
 * case is sampled.
 *
 * Files: this one holds phase 1, the tunables and the entry points;
 * ohtma_exchange.c the exchange loop (lines 20-35) and the full search;
 * ohtma_fast.c ohtma-fast's candidate lists and its tournament tree; ohtma.h
 * what the last two share (struct xp, the saving of an exchange). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ohtma.h"
#include "refine.h"

/* Tunables. The compile-time ones of ohtma-fast (NEAR_BUDGET, FAST_SLOTS)
 * are in ohtma.h, beside the code that reads them; the sizes the tests
 * change (the cost cache, sampling, hop table, parallel regions) in
 * tuning.c. */

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
    /* ohtma-fast on a torus or mesh of more than ohtma_table_max nodes
     * works without the nodes x nodes hop table: the near lists and the hops
     * come from the coordinates (the same values as a table's). Before, no
     * table there meant no near lists: the candidate relation documented at
     * the top lost its topological part above 4096 nodes. The greedy phase
     * never needs the table on tori (struct sep). */
    int dims[TOPOMAP_XCHG_DIMS], wrap[TOPOMAP_XCHG_DIMS];
    int grid = topomap_topology_grid(pb->topo, dims, wrap, TOPOMAP_XCHG_DIMS) > 0;
    int table = !fast || !grid || topomap_alloc_nnodes(pb->alloc) <= topomap_tuning()->ohtma_table_max;
    struct topomap_xchg x;
    if (topomap_xchg_init_table(&x, pb, table, err, errlen) < 0)
        return -1;
    int rc = greedy_phase(&x, r2s, NULL, err, errlen);
    if (rc == 0) {
        topomap_xchg_place(&x, r2s);
        rc = topomap_ohtma_exchange(&x, fast, loop, err, errlen);
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
