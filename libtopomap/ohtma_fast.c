/* SPDX-License-Identifier: BSD-3-Clause */
/* ohtma-fast's candidates (the scalable variant of OHTMA, described in
 * map_ohtma.c): the processes a process is compared with in the exchange
 * loop (ohtma_exchange.c), restricted to its communication and topology
 * neighbourhoods (the nodes next to each node from the hop table or, on
 * large tori and meshes, from a search over the grid) and, with many ranks
 * per node, sampled by class; and the tournament tree that finds the best
 * pair of a step among the processes' cached best savings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ohtma.h"
#include "refine.h"

/* ---- fast mode: restricted candidates ------------------------------------- */

int topomap_ohtma_fws_init(struct fws *w, int n, int ng)
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

void topomap_ohtma_fws_free(struct fws *w)
{
    free(w->stamp);
    free(w->dnode);
    free(w->touched);
    free(w->list);
    free(w->gain);
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
void topomap_ohtma_sample_moved(struct xp *X, int p, int a, int b)
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
int topomap_ohtma_sample_build(struct xp *X)
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
int topomap_ohtma_near_build(struct xp *X)
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
int topomap_ohtma_rescan_fast(struct xp *X, int i, struct fws *w, int *bjp)
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

void topomap_ohtma_tree_update(struct xp *X, int i)
{
    int k = X->tsize + i;
    for (k /= 2; k >= 1; k /= 2) {
        int l = X->tree[2 * k], r = X->tree[2 * k + 1];
        X->tree[k] = tree_better(X, l, r) ? l : r;
    }
}

void topomap_ohtma_tree_build(struct xp *X)
{
    for (int k = 0; k < X->tsize; k++)
        X->tree[X->tsize + k] = k < X->x->n ? k : -1;
    for (int k = X->tsize - 1; k >= 1; k--) {
        int l = X->tree[2 * k], r = X->tree[2 * k + 1];
        X->tree[k] = tree_better(X, l, r) ? l : r;
    }
}
