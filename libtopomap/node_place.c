/* SPDX-License-Identifier: BSD-3-Clause */
/* Node-internal placement: once an algorithm has chosen the node of every
 * rank, place the ranks of each node on its slots by the node's hierarchy
 * (sockets, NUMA domains, cores), so that ranks that talk a lot share a NUMA
 * domain or a socket. Hop-bytes only see nodes, so every algorithm but the
 * baselines gets this pass after it (topomap_map(), opts.node_place).
 *
 * Per node, independently (the inter-node SumCom does not depend on the
 * cores): TreeMatch on the node's subtree restricted to its slots
 * (map_treematch.c), then the SumCom refinement (mode auto: also from the
 * algorithm's own order, keeping the better of the two): a local
 * search over exchanges of two ranks of the node and moves to its free
 * slots, with the gain of each from a table CT[i][x] = sum over i's
 * neighbours l on the node of w_il cost(x, slot of l) (O(1) per candidate,
 * O(degree x slots) per exchange). The result is kept only when it lowers
 * the node's SumCom, so the pass never makes SumCom worse, and it never
 * moves a rank to another node, so hop-bytes, dilation and congestion stay
 * what the algorithm gave. Nodes are independent: they run in parallel and
 * the result does not depend on the thread count. Past the problem's
 * deadline the nodes not started yet are left as they are (a time limit
 * makes the answer depend on the machine's speed, as everywhere). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "treematch.h"

/* Refinement passes per node, and the largest node (slots) refined with a
 * cost table (slots^2 doubles). */
#define NP_PASSES 32
#define NP_TABLE_MAX 1024
/* Relative size below which a gain is rounding noise. */
#define NP_EPS 1e-12

/* One node's problem, in local numbers: ranks 0 .. nr-1 (global rk[]),
 * slots 0 .. ns-1 (global sl[]), the induced graph (CSR), the cost table. */
struct npnode {
    int nr, ns;
    const int *rk, *sl;
    int64_t *xadj;
    int *adj;
    double *w;
    double *cost; /* ns x ns */
};

/* SumCom inside the node of the placement pos (local rank -> local slot). */
static double node_cost(const struct npnode *N, const int *pos)
{
    double s = 0;
    for (int i = 0; i < N->nr; i++)
        for (int64_t e = N->xadj[i]; e < N->xadj[i + 1]; e++)
            s += N->w[e] * N->cost[(size_t)pos[i] * (size_t)N->ns + (size_t)pos[N->adj[e]]];
    return s / 2;
}

static double weight(const struct npnode *N, int i, int j)
{
    int64_t e = topomap_adj_find(N->xadj, N->adj, i, j);
    return e >= 0 ? N->w[e] : 0.0;
}

/* The SumCom refinement of pos (see the top of the file). 0, or -1 on ENOMEM. */
static int refine_node(const struct npnode *N, int *pos)
{
    int nr = N->nr, ns = N->ns;
    const double *C = N->cost;
    double *CT = calloc((size_t)nr * (size_t)ns, sizeof(double));
    int *occ = malloc(sizeof(int) * (size_t)ns);
    if (!CT || !occ) {
        free(CT), free(occ);
        return -1;
    }
    for (int x = 0; x < ns; x++)
        occ[x] = -1;
    for (int i = 0; i < nr; i++)
        occ[pos[i]] = i;
    for (int i = 0; i < nr; i++)
        for (int64_t e = N->xadj[i]; e < N->xadj[i + 1]; e++) {
            const double *row = C + (size_t)pos[N->adj[e]] * (size_t)ns;
            double w = N->w[e];
            for (int x = 0; x < ns; x++)
                CT[(size_t)i * (size_t)ns + (size_t)x] += w * row[x];
        }
    for (int pass = 0; pass < NP_PASSES; pass++) {
        int moved = 0;
        for (int i = 0; i < nr; i++) {
            const double *ci = CT + (size_t)i * (size_t)ns;
            int a = pos[i], best = -1;
            double bestgain = 0;
            for (int x = 0; x < ns; x++) {
                if (x == a)
                    continue;
                int j = occ[x];
                double change, scale = fabs(ci[x]) + fabs(ci[a]);
                if (j < 0) {
                    change = ci[x] - ci[a];
                } else {
                    const double *cj = CT + (size_t)j * (size_t)ns;
                    double wij = weight(N, i, j);
                    change = ci[x] - ci[a] + cj[a] - cj[x] +
                             wij * (2 * C[(size_t)a * ns + x] - C[(size_t)a * ns + a] -
                                    C[(size_t)x * ns + x]);
                    scale += fabs(cj[a]) + fabs(cj[x]);
                }
                if (-change > NP_EPS * scale && -change > bestgain) {
                    bestgain = -change;
                    best = x;
                }
            }
            if (best < 0)
                continue;
            int j = occ[best];
            /* Move i from a to best (and j from best to a): the neighbours'
             * tables follow. */
            for (int64_t e = N->xadj[i]; e < N->xadj[i + 1]; e++) {
                double *cl = CT + (size_t)N->adj[e] * (size_t)ns, w = N->w[e];
                const double *rb = C + (size_t)best * ns, *ra = C + (size_t)a * ns;
                for (int y = 0; y < ns; y++)
                    cl[y] += w * (rb[y] - ra[y]);
            }
            if (j >= 0)
                for (int64_t e = N->xadj[j]; e < N->xadj[j + 1]; e++) {
                    double *cl = CT + (size_t)N->adj[e] * (size_t)ns, w = N->w[e];
                    const double *rb = C + (size_t)best * ns, *ra = C + (size_t)a * ns;
                    for (int y = 0; y < ns; y++)
                        cl[y] += w * (ra[y] - rb[y]);
                }
            pos[i] = best;
            occ[best] = i;
            occ[a] = j;
            if (j >= 0)
                pos[j] = a;
            moved++;
        }
        if (!moved)
            break;
    }
    free(CT), free(occ);
    return 0;
}

/* The local number of slot s among a node's ascending slots sl[0 .. ns). */
static int local_slot(const int *sl, int ns, int s)
{
    int lo = 0, hi = ns - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (sl[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Scratch of one thread. */
struct npws {
    int *loc;  /* pb->n, -1 outside the node being placed */
    int *pos, *cand, *alt, *leaf_of;
    int64_t *xadj;
    int *adj;
    double *w;
    int64_t cap;
};

/* Place the ranks rk[0 .. nr) of node v (slots sl[0 .. ns)) in r2s.
 * *gain: SumCom removed. 0, or -1 + errno. */
static int place_node(const struct topomap_problem *pb, int mode, int v, const int *rk, int nr,
                      const int *sl, int ns, int *r2s, struct npws *W, double *gain)
{
    const topomap_graph_t *g = &pb->g;
    struct npnode N = {nr, ns, rk, sl, NULL, NULL, NULL, NULL};
    *gain = 0;
    for (int i = 0; i < nr; i++)
        W->loc[rk[i]] = i;
    /* The graph induced on the node. */
    int64_t m = 0;
    for (int i = 0; i < nr; i++)
        for (int64_t e = g->xadj[rk[i]]; e < g->xadj[rk[i] + 1]; e++)
            m += W->loc[g->adj[e]] >= 0;
    if (m > W->cap) {
        int64_t cap = m > 2 * W->cap ? m : 2 * W->cap;
        int *na = realloc(W->adj, sizeof(int) * (size_t)cap);
        if (na)
            W->adj = na;
        double *nw = realloc(W->w, sizeof(double) * (size_t)cap);
        if (nw)
            W->w = nw;
        if (!na || !nw)
            goto nomem;
        W->cap = cap;
    }
    m = 0;
    W->xadj[0] = 0;
    for (int i = 0; i < nr; i++) {
        for (int64_t e = g->xadj[rk[i]]; e < g->xadj[rk[i] + 1]; e++) {
            int l = W->loc[g->adj[e]];
            if (l >= 0) {
                W->adj[m] = l;
                W->w[m++] = g->w[e];
            }
        }
        W->xadj[i + 1] = m;
    }
    for (int i = 0; i < nr; i++)
        W->loc[rk[i]] = -1;
    if (m == 0)
        return 0; /* nothing to gain: no traffic inside the node */
    N.xadj = W->xadj;
    N.adj = W->adj;
    N.w = W->w;
    /* Rows sorted by local rank: rk[] is ascending and loc follows it. */
    if (ns > NP_TABLE_MAX)
        return 0;
    N.cost = malloc(sizeof(double) * (size_t)ns * (size_t)ns);
    if (!N.cost)
        goto nomem;
    const topomap_topology_t *t = pb->topo;
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < ns; b++)
            N.cost[(size_t)a * ns + b] =
                topomap_topology_cost(t, v, pb->slot_core[sl[a]], v, pb->slot_core[sl[b]]);
    /* The local slot of each rank now. */
    for (int i = 0; i < nr; i++)
        W->pos[i] = local_slot(sl, ns, r2s[rk[i]]);
    double before = node_cost(&N, W->pos);
    memcpy(W->cand, W->pos, sizeof(int) * (size_t)nr);
    if (mode != TOPOMAP_NODE_PLACE_REFINE) {
        struct tm_tree T;
        topomap_graph_t lg = {nr, N.xadj, N.adj, N.w};
        if (tm_tree_build(&T, pb, sl, ns, 0) < 0)
            goto nomem_cost;
        int rc = tm_match(&T, &lg, nr, 1, pb, 1, W->leaf_of, NULL, 0);
        if (rc == 0) {
            /* Leaf x of the node's tree is slot T.leaf_slot[x] (the tree's
             * leaves are sorted by core: look the slot up). */
            for (int i = 0; i < nr; i++)
                W->cand[i] = local_slot(sl, ns, T.leaf_slot[W->leaf_of[i]]);
        }
        tm_tree_free(&T);
        if (rc < 0)
            goto nomem_cost;
    }
    if (mode != TOPOMAP_NODE_PLACE_TREEMATCH && refine_node(&N, W->cand) < 0)
        goto nomem_cost;
    double after = node_cost(&N, W->cand);
    /* auto: the refinement from the algorithm's own order too (regular
     * patterns often come in an order that is already good); the better
     * of the two. */
    if (mode == TOPOMAP_NODE_PLACE_AUTO) {
        memcpy(W->alt, W->pos, sizeof(int) * (size_t)nr);
        if (refine_node(&N, W->alt) < 0)
            goto nomem_cost;
        double alt = node_cost(&N, W->alt);
        if (alt < after) {
            after = alt;
            memcpy(W->cand, W->alt, sizeof(int) * (size_t)nr);
        }
    }
    /* GPU pairs are not a tree: small GPU nodes get the exact answer. */
    if (ns <= TOPOMAP_EXACT_MAX && topomap_topology_node_gpus(t, v) > 0 &&
        topomap_place_exact(nr, ns, N.xadj, N.adj, N.w, N.cost, W->cand, &after) < 0)
        goto nomem_cost;
    if (after < before) {
        *gain = before - after;
        for (int i = 0; i < nr; i++)
            r2s[rk[i]] = sl[W->cand[i]];
    }
    free(N.cost);
    return 0;
nomem_cost:
    free(N.cost);
nomem:
    errno = ENOMEM;
    return -1;
}

/* 1 when the cores a node's ranks sit on can change its SumCom: its levels
 * give different costs, or two of its slots share a core. */
static int places_matter(const struct topomap_problem *pb)
{
    if (topomap_topology_node_nlevels(pb->topo) > 1 || topomap_topology_gpu_links(pb->topo))
        return 1;
    for (int s = 1; s < pb->nslots; s++)
        if (pb->slot_node[s] == pb->slot_node[s - 1] && pb->slot_core[s] <= pb->slot_core[s - 1])
            return 1; /* more slots than cores on this node */
    return 0;
}

int topomap_node_place(const struct topomap_problem *pb, int *r2s, int mode, double *gain,
                       char *err, size_t errlen)
{
    if (gain)
        *gain = 0;
    if (mode == TOPOMAP_NODE_PLACE_OFF || pb->n < 2 || !places_matter(pb))
        return 0;
    const topomap_alloc_t *a = pb->alloc;
    int nn = topomap_alloc_nnodes(a), n = pb->n, ns = pb->nslots;
    /* Slots are numbered node by node in allocation order: node i owns
     * [sx[i], sx[i+1]). Ranks by node: rx / rk (ascending ranks). */
    int *sx = calloc((size_t)nn + 1, sizeof(int)), *rx = calloc((size_t)nn + 1, sizeof(int));
    int *rk = malloc(sizeof(int) * (size_t)n), *slotidx = malloc(sizeof(int) * (size_t)ns);
    int *sl = malloc(sizeof(int) * (size_t)ns), *fill = malloc(sizeof(int) * (size_t)nn);
    double *gains = calloc((size_t)nn, sizeof(double));
    int rc = -1, nomem = 0;
    if (!sx || !rx || !rk || !slotidx || !sl || !fill || !gains) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    for (int s = 0, i = -1; s < ns; s++) {
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1])
            i++;
        slotidx[s] = i;
        sx[i + 1]++;
        sl[s] = s;
    }
    for (int i = 0; i < nn; i++)
        sx[i + 1] += sx[i];
    for (int r = 0; r < n; r++)
        rx[slotidx[r2s[r]] + 1]++;
    for (int i = 0; i < nn; i++)
        rx[i + 1] += rx[i];
    memcpy(fill, rx, sizeof(int) * (size_t)nn);
    for (int r = 0; r < n; r++)
        rk[fill[slotidx[r2s[r]]]++] = r;
    int maxs = 0, maxr = 0;
    for (int i = 0; i < nn; i++) {
        if (sx[i + 1] - sx[i] > maxs)
            maxs = sx[i + 1] - sx[i];
        if (rx[i + 1] - rx[i] > maxr)
            maxr = rx[i + 1] - rx[i];
    }
#pragma omp parallel if (nn > 16)
    {
        struct npws W = {0};
        W.loc = malloc(sizeof(int) * (size_t)n);
        W.pos = malloc(sizeof(int) * (size_t)(maxr + 1));
        W.cand = malloc(sizeof(int) * (size_t)(maxr + 1));
        W.alt = malloc(sizeof(int) * (size_t)(maxr + 1));
        W.leaf_of = malloc(sizeof(int) * (size_t)(maxr + 1));
        W.xadj = malloc(sizeof(int64_t) * (size_t)(maxr + 1));
        int ok = W.loc && W.pos && W.cand && W.alt && W.leaf_of && W.xadj;
        if (ok)
            for (int r = 0; r < n; r++)
                W.loc[r] = -1;
#pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < nn; i++) {
            int nr = rx[i + 1] - rx[i];
            /* Past the deadline the remaining nodes keep their order: the
             * mapping stays valid, only less refined. */
            if (ok && pb->deadline > 0 && topomap_expired(pb))
                continue;
            if (!ok || (nr >= 2 && place_node(pb, mode, topomap_alloc_node(a, i), rk + rx[i], nr,
                                              sl + sx[i], sx[i + 1] - sx[i], r2s, &W, &gains[i]) < 0)) {
#pragma omp atomic write
                nomem = 1;
            }
        }
        free(W.loc), free(W.pos), free(W.cand), free(W.alt), free(W.leaf_of), free(W.xadj),
            free(W.adj),
            free(W.w);
    }
    if (nomem)
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
    else
        rc = 0;
    for (int i = 0; gain && i < nn; i++)
        *gain += gains[i]; /* in node order: the same sum for any thread count */
out:
    free(sx), free(rx), free(rk), free(slotidx), free(sl), free(fill), free(gains);
    return rc;
}
