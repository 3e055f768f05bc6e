/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to OHTMA (map_ohtma.c, ohtma_exchange.c, ohtma_fast.c; Li et al.
 * 2020, Algorithm 1, see map_ohtma.c): the state of the exchange loop, shared
 * by the loop and ohtma-fast's candidate lists, and the saving of an
 * exchange, inline because it is the inner loop of both. */
#ifndef TOPOMAP_OHTMA_H
#define TOPOMAP_OHTMA_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "refine.h"

/* ohtma-fast: how many processes (nodes next to a node x slots per node)
 * the topological neighbourhood of one node may add to candidate lists. */
#define NEAR_BUDGET 64
/* ohtma-fast samples candidates above FAST_SLOTS ranks per node (see
 * ohtma_sample_min in tuning.h). */
#define FAST_SLOTS 1
/* See ohtma_par_work in tuning.h. */
#define PAR_WORK (topomap_tuning()->ohtma_par_work)

/* The exchange loop's state (ohtma_exchange.c); fast mode only uses some. */
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

/* ohtma-fast: the scratch of one thread's rescans (ohtma_fast.c). */
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

/* The candidates and savings found by one rescan of a step. */
struct rbuf {
    int *list;
    double *gain;
    int len, cap, bj;
};

/* D(j, grp), the cost j would have on group grp: cached or computed. */
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

/* ---- ohtma_exchange.c ---- */

/* Lines 20-35 of Algorithm 1 on a placed x, updated in place (x->r2s holds
 * the result); fast: ohtma-fast's candidate lists instead of every process.
 * loop < 0: n/2. 0, or -1 with err (ENOMEM, ETIMEDOUT). */
int topomap_ohtma_exchange(struct topomap_xchg *x, int fast, long loop, char *err, size_t errlen);

/* ---- ohtma_fast.c ---- */

/* A workspace for n processes and ng groups; free it with
 * topomap_ohtma_fws_free (also after a failure). 0, or -1 (ENOMEM). */
int topomap_ohtma_fws_init(struct fws *w, int n, int ng);
void topomap_ohtma_fws_free(struct fws *w);
/* X->near_x, X->near: the nodes next to each node (NULL when there are
 * none), freed with X. 0, or -1 (ENOMEM). */
int topomap_ohtma_near_build(struct xp *X);
/* The classes and per-node lists of sampled candidates (X->sample > 1),
 * freed with X. 0, or -1 (ENOMEM). */
int topomap_ohtma_sample_build(struct xp *X);
/* Process p moved from group a to group b: update the sampled lists. */
void topomap_ohtma_sample_moved(struct xp *X, int p, int a, int b);
/* The exact best of i over its candidates: sets ub[i] and exact[i], the
 * partner in *bjp, and leaves the candidates and their savings in w (valid
 * until w's next use). Count, or -1 (ENOMEM). */
int topomap_ohtma_rescan_fast(struct xp *X, int i, struct fws *w, int *bjp);
/* The tournament tree over (ub, index) of the eligible processes: built
 * from scratch, or updated after ub[i] or elig[i] changed. */
void topomap_ohtma_tree_build(struct xp *X);
void topomap_ohtma_tree_update(struct xp *X, int i);

#endif
