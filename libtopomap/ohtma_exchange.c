/* SPDX-License-Identifier: BSD-3-Clause */
/* OHTMA's exchange loop (Li et al. 2020, Algorithm 1, lines 20-35; the
 * choices and the speed-ups are described in map_ohtma.c): every step
 * exchanges the eligible pair of largest saving, from each process's cached
 * best partner, and the backtrack keeps the best prefix. Full mode (ohtma)
 * compares every pair, with the n x nodes cost cache; fast mode (ohtma-fast)
 * takes its candidates and its tournament tree from ohtma_fast.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"
#include "ohtma.h"
#include "refine.h"

/* ---- phase 2: pair exchange ------------------------------------------------ */

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
 * neighbours in the cost cache (the correction xchg.c applies to cost[]).
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

/* ---- the exchange loop ------------------------------------------------------ */

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

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
        topomap_ohtma_fws_free(&X->tw[t]);
    free(X->tw);
    for (int t = 0; t < X->nrb; t++) {
        free(X->rb[t].list);
        free(X->rb[t].gain);
    }
    free(X->rb);
}

/* The state of the loop: the per-process arrays of both modes, then full
 * mode's scratch and cost cache, or fast mode's tree, candidate lists and
 * per-thread workspaces. 0, or -1 when out of memory (X freed by the
 * caller). */
static int xp_alloc(struct xp *X)
{
    const struct topomap_xchg *x = X->x;
    int n = x->n, ng = x->ngrp;
    X->elig = malloc((size_t)n);
    X->ub = malloc(sizeof(double) * (size_t)n);
    X->part = malloc(sizeof(int) * (size_t)n);
    X->exact = calloc((size_t)n, 1);
    X->head = malloc(sizeof(int) * (size_t)n);
    X->nxt = malloc(sizeof(int) * (size_t)n);
    X->prv = malloc(sizeof(int) * (size_t)n);
    X->mark = calloc((size_t)n, 1);
    if (!X->elig || !X->ub || !X->part || !X->exact || !X->head || !X->nxt || !X->prv || !X->mark)
        return -1;
    for (int i = 0; i < n; i++) {
        X->elig[i] = 1;
        X->part[i] = X->head[i] = X->nxt[i] = X->prv[i] = -1;
        X->ub[i] = -INFINITY;
    }
    if (!X->fast) {
        X->wsc = calloc((size_t)n, sizeof(double));
        X->drow = malloc(sizeof(double) * (size_t)ng);
        X->drows = malloc(sizeof(double) * 64 * (size_t)ng);
        X->adjmask = calloc((size_t)n, sizeof(uint64_t));
        X->np = malloc(sizeof(int) * (size_t)n);
        X->elist = malloc(sizeof(int) * (size_t)n);
        if (!X->wsc || !X->drow || !X->drows || !X->adjmask || !X->np || !X->elist)
            return -1;
        for (int i = 0; i < n; i++)
            X->np[i] = -1;
        if ((long)n * ng <= topomap_tuning()->ohtma_dcache_max) {
            X->dc = malloc(sizeof(double) * (size_t)n * (size_t)ng);
            if (X->dc) {
                double *dc = X->dc;
#pragma omp parallel for schedule(dynamic, 4) if ((long)n * ng > PAR_WORK)
                for (int u = 0; u < ng; u++)
                    for (int i = 0; i < n; i++)
                        dc[(size_t)u * (size_t)n + (size_t)i] = topomap_xchg_cost_at(x, i, u);
            }
        }
        return 0;
    }
    for (X->tsize = 1; X->tsize < n; X->tsize *= 2)
        ;
    X->tree = malloc(sizeof(int) * 2 * (size_t)X->tsize);
    X->elist = malloc(sizeof(int) * (size_t)n);
#ifdef _OPENMP
    int nth = omp_get_max_threads();
#else
    int nth = 1;
#endif
    X->tw = calloc((size_t)nth, sizeof(struct fws));
    double rpn = (double)n / (ng > 0 ? ng : 1);
    X->sample = n > topomap_tuning()->ohtma_sample_min && rpn > FAST_SLOTS ? (int)ceil(rpn / FAST_SLOTS) : 1;
    if (!X->tree || !X->elist || !X->tw || topomap_ohtma_near_build(X) < 0 ||
        (X->sample > 1 && topomap_ohtma_sample_build(X) < 0))
        return -1;
    for (; X->ntw < nth; X->ntw++)
        if (topomap_ohtma_fws_init(&X->tw[X->ntw], n, ng) < 0) {
            X->ntw++;
            return -1;
        }
    return 0;
}

/* Initial best partners: independent per process, in parallel. Every
 * thread enters the loop (a worksharing construct must be met by all),
 * one without scratch memory just flags the failure. The full scan is
 * O(n) per process, O(n^2) in all: it checks the time limit every 64
 * processes and, once past it, skips the rest. 0, -1 when out of memory,
 * -2 past the time limit. */
static int initial_partners(struct xp *X)
{
    int n = X->x->n, ng = X->x->ngrp, fast = X->fast;
    int nomem = 0, late = 0;
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
            ok = topomap_ohtma_fws_init(&w, n, ng) == 0;
        }
        if (!ok) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (int i = 0; i < n; i++) {
            int bj = -1, is_late;
#pragma omp atomic read
            is_late = late;
            if (!ok || is_late)
                continue;
            if ((i & 63) == 0 && topomap_expired(X->x->pb)) {
#pragma omp atomic write
                late = 1;
                continue;
            }
            if (!fast) {
                X->ub[i] = scan_full(X, i, drow, wsc, &bj);
            } else if (topomap_ohtma_rescan_fast(X, i, &w, &bj) < 0) {
#pragma omp atomic write
                nomem = 1;
            }
            X->prv[i] = bj; /* linked below: set_part is not thread safe */
        }
        if (!fast) {
            free(drow);
            free(wsc);
        } else {
            topomap_ohtma_fws_free(&w);
        }
    }
    if (nomem)
        return -1;
    if (late)
        return -2;
    for (int i = 0; i < n; i++) {
        int bj = X->prv[i];
        X->prv[i] = -1;
        X->exact[i] = 1;
        set_part(X, i, bj);
    }
    if (fast)
        topomap_ohtma_tree_build(X);
    return 0;
}

/* Line 28: the eligible process of the best pair (-1: none left); stale
 * tops are rescanned until exact. -2 when out of memory. */
static int best_pair(struct xp *X)
{
    int n = X->x->n, m;
    for (;;) {
        m = -1;
        if (X->fast) {
            m = X->tree[1];
            if (m >= 0 && !X->elig[m])
                m = -1;
        } else {
            double bv = -INFINITY;
            for (int i = 0; i < n; i++)
                if (X->elig[i] && (m < 0 || X->ub[i] > bv)) {
                    bv = X->ub[i];
                    m = i;
                }
        }
        if (m < 0 || X->exact[m])
            return m;
        int bj;
        if (X->fast) {
            if (topomap_ohtma_rescan_fast(X, m, &X->tw[0], &bj) < 0)
                return -2;
            set_part(X, m, bj);
            topomap_ohtma_tree_update(X, m);
        } else {
            X->ub[m] = scan_full(X, m, X->drow, X->wsc, &bj);
            X->exact[m] = 1;
            set_part(X, m, bj);
        }
    }
}

/* The processes whose pairs change when m and q are exchanged: m, q (marked)
 * and their neighbours (marked, listed in S); whoever had one of them as
 * best partner turns stale. Returns how many are in S. */
static int touched(struct xp *X, int m, int q, int *S)
{
    const topomap_graph_t *g = &X->x->pb->g;
    int ns = 0;
    X->mark[m] = X->mark[q] = 1;
    int pair[2] = {m, q};
    for (int t = 0; t < 2; t++)
        for (int64_t e = g->xadj[pair[t]]; e < g->xadj[pair[t] + 1]; e++) {
            int l = g->adj[e];
            if (!X->mark[l]) {
                X->mark[l] = 1;
                S[ns++] = l;
            }
        }
    for (int t = -2; t < ns; t++) {
        int k = t < 0 ? pair[t + 2] : S[t];
        while (X->head[k] >= 0) {
            int j = X->head[k];
            X->exact[j] = 0;
            set_part(X, j, -1);
        }
    }
    return ns;
}

/* Fast mode, after an exchange: the eligible processes of X->elist[0..ne-1]
 * rescanned, independently and in parallel; their raises are applied
 * after, in order (a maximum: the order does not matter). 0, or -1 when
 * out of memory. */
static int update_fast(struct xp *X, int ne)
{
    int n = X->x->n;
    if (ne > X->nrb) {
        struct rbuf *nb = realloc(X->rb, sizeof *nb * (size_t)ne);
        if (!nb)
            return -1;
        memset(nb + X->nrb, 0, sizeof *nb * (size_t)(ne - X->nrb));
        X->rb = nb;
        X->nrb = ne;
    }
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) if (ne > 1 && (long)ne * n > PAR_WORK)
    for (int t = 0; t < ne; t++) {
        struct fws *w = &X->tw[thread_id()];
        struct rbuf *r = &X->rb[t];
        int len = topomap_ohtma_rescan_fast(X, X->elist[t], w, &r->bj);
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
        return -1;
    for (int t = 0; t < ne; t++) {
        int i = X->elist[t];
        const struct rbuf *r = &X->rb[t];
        for (int c = 0; c < r->len; c++) {
            int j = r->list[c];
            double v = r->gain[c];
            if (X->mark[j])
                continue;
            if (X->exact[j]) {
                if (v > X->ub[j] || (v == X->ub[j] && (X->part[j] < 0 || i < X->part[j]))) {
                    X->ub[j] = v;
                    set_part(X, j, i);
                    topomap_ohtma_tree_update(X, j);
                }
            } else if (v > X->ub[j]) {
                X->ub[j] = v;
                topomap_ohtma_tree_update(X, j);
            }
        }
        set_part(X, i, r->bj);
        topomap_ohtma_tree_update(X, i);
    }
    return 0;
}

/* Line 31 and Status: exchange m and q, take them out of the game, then
 * rescan the touched eligible processes S[0..ns-1], raising everyone
 * else. 0, or -1 when out of memory. */
static int exchange(struct xp *X, int m, int q, const int *S, int ns)
{
    struct topomap_xchg *x = X->x;
    int a = x->rgrp[m], b = x->rgrp[q];
    topomap_xchg_swap(x, x->r2s[m], x->r2s[q]);
    if (X->sample > 1 && a != b) {
        topomap_ohtma_sample_moved(X, m, a, b);
        topomap_ohtma_sample_moved(X, q, b, a);
    }
    if (X->dc && a != b)
        dc_swapped(X, m, q, a, b);
    X->elig[m] = X->elig[q] = 0;
    set_part(X, m, -1);
    set_part(X, q, -1);
    if (X->fast) {
        topomap_ohtma_tree_update(X, m);
        topomap_ohtma_tree_update(X, q);
    }
    int ne = 0;
    for (int t = 0; t < ns; t++)
        if (X->elig[S[t]])
            X->elist[ne++] = S[t];
    if (!X->fast)
        update_full(X, X->elist, ne);
    else if (update_fast(X, ne) < 0)
        return -1;
    X->mark[m] = X->mark[q] = 0;
    for (int t = 0; t < ns; t++)
        X->mark[S[t]] = 0;
    return 0;
}

/* Lines 20-35 on a placed x. */
int topomap_ohtma_exchange(struct topomap_xchg *x, int fast, long loop, char *err,
                           size_t errlen)
{
    const struct topomap_problem *pb = x->pb;
    int n = x->n;
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
    int *S = malloc(sizeof(int) * (size_t)n);
    if (!ps1 || !ps2 || !res || !S || xp_alloc(&X) < 0)
        goto nomem;
    int ip = initial_partners(&X);
    if (ip == -2) {
        rc = topomap_fail(err, errlen, ETIMEDOUT,
                          "%s: time limit reached while finding the first partners",
                          fast ? "ohtma-fast" : "ohtma");
        goto out;
    }
    if (ip < 0)
        goto nomem;

    long steps = 0;
    for (; steps < loop; steps++) {
        if (topomap_expired(pb)) {
            rc = topomap_fail(err, errlen, ETIMEDOUT,
                              "%s: time limit reached after %ld of %ld exchange steps",
                              fast ? "ohtma-fast" : "ohtma", steps, loop);
            goto out;
        }
        int m = best_pair(&X);
        if (m == -2)
            goto nomem;
        int q = m >= 0 ? X.part[m] : -1;
        if (m < 0 || q < 0)
            break; /* fewer than two processes left */
        ps1[steps] = x->r2s[m];
        ps2[steps] = x->r2s[q];
        res[steps] = X.ub[m];
        int ns = touched(&X, m, q, S);
        if (exchange(&X, m, q, S, ns) < 0)
            goto nomem;
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
    free(S);
    return rc;
}
