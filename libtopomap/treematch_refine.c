/* SPDX-License-Identifier: BSD-3-Clause */
/* The level refinement, an improvement to TreeMatch (ours, not in the
 * paper), used by `treematch` and the node-internal placement;
 * `treematch-paper` runs without it.
 *
 * TreeMatch's bottom-up grouping is the coarsening half of a multilevel
 * scheme without the refinement multilevel partitioners (METIS, Scotch) do
 * while uncoarsening. Here, on the way down: once MapGroups has put the
 * entities of level l (the groups formed for that level) on the vertices of
 * level l, entities are exchanged between vertices of one shape while an
 * exchange lowers sum w_xy dist(vertex(x), vertex(y)) over the aggregated
 * graph of level l. dist is the SumCom cost between the vertices' first
 * leaves (hops x hop_cost between nodes, the node's level cost inside one);
 * two entities on one vertex cost what its first two children cost (what
 * they will at most pay). A whole subtree moves with its entity, so the
 * levels above stay consistent.
 *
 * Candidates: x joins the group of one of its neighbours (the vertices of
 * level l under the neighbour's nearest ancestor with two children, other
 * than x's own; exchanges inside a group are the next level's business;
 * the neighbourhoods of Schulz & Traeff 2017, as in refine.c). x's cost on
 * a vertex of group B is its neighbours' outside B, measured from any one
 * vertex of B (exact on regular trees, where every vertex of B is as far
 * from what is outside B; an estimate on unbalanced topology.conf trees),
 * plus its neighbours inside B. x only looks at groups it sends more to
 * than to its own (an exchange that pays through the partner alone is found
 * from the partner's side, as in tm_group_refine()), and per-entity costs
 * kept up to date bound the partner's share of a gain, which skips most
 * candidates. First improvement, entity by entity in order: deterministic. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "treematch.h"

/* Largest core count whose core-to-core cost table is kept. */
#define TM_CTAB_MAX 256

struct lvl {
    const topomap_topology_t *t;
    const topomap_graph_t *g;
    int *node, *core; /* of every vertex's first leaf */
    double *same;     /* the cost of two entities on one vertex */
    int *vat;         /* vertex of each entity */
    double *ctab;     /* cores x cores costs inside a node, or NULL */
    int cores;
    double hop_cost;
    const int *glo, *ghi, *shape; /* groups() of every vertex; the shapes */
    int nv;
};

/* One thread's scratch for best_exchange(): candidates, a neighbour list,
 * a mark per vertex (all 0 between calls). */
struct scratch {
    int *cand, *inz;
    double *inw;
    char *mark;
};

static double dist(const struct lvl *L, int u, int v)
{
    if (u == v)
        return L->same[u];
    if (L->node[u] != L->node[v])
        return L->hop_cost * topomap_topology_hops(L->t, L->node[u], L->node[v]);
    if (L->ctab)
        return L->ctab[(size_t)L->core[u] * (size_t)L->cores + (size_t)L->core[v]];
    return topomap_topology_cost(L->t, L->node[u], L->core[u], L->node[v], L->core[v]);
}

/* sum over x's neighbours z of w_xz dist(t, vertex(z)). */
static double cost_at(const struct lvl *L, int x, int t)
{
    const topomap_graph_t *g = L->g;
    double s = 0;
    for (int64_t e = g->xadj[x]; e < g->xadj[x + 1]; e++)
        s += g->w[e] * dist(L, t, L->vat[g->adj[e]]);
    return s;
}

/* The first leaf under vertex v of level l. */
static int first_leaf(const struct tm_tree *T, int l, int v)
{
    for (; l < T->depth; l++)
        v = T->cx[l][v];
    return v;
}

/* glo[v], ghi[v]: the vertices of level l under v's nearest ancestor with
 * two children or more (a contiguous range: the tree is ordered). Level by
 * level from the top. 0, or -1 on ENOMEM. */
static int groups(const struct tm_tree *T, int l, int *glo, int *ghi)
{
    int *lo = malloc(sizeof(int)), *hi = malloc(sizeof(int));
    if (!lo || !hi) {
        free(lo), free(hi);
        return -1;
    }
    lo[0] = 0;
    hi[0] = T->nv[l];
    for (int d = 0; d < l; d++) {
        int nd = T->nv[d], nn = T->nv[d + 1];
        int *nlo = malloc(sizeof(int) * (size_t)nn), *nhi = malloc(sizeof(int) * (size_t)nn);
        if (!nlo || !nhi) {
            free(nlo), free(nhi), free(lo), free(hi);
            return -1;
        }
        for (int p = 0; p < nd; p++) {
            /* p's own descendants at level l, when it has two children;
             * else the range it inherited. */
            int a = T->cx[d][p], b = T->cx[d][p + 1], two = b - a >= 2;
            for (int q = d + 1; q < l; q++) {
                a = T->cx[q][a];
                b = T->cx[q][b];
            }
            for (int c = T->cx[d][p]; c < T->cx[d][p + 1]; c++) {
                nlo[c] = two ? a : lo[p];
                nhi[c] = two ? b : hi[p];
            }
        }
        free(lo), free(hi);
        lo = nlo;
        hi = nhi;
    }
    for (int v = 0; v < T->nv[l]; v++) {
        glo[v] = lo[v];
        ghi[v] = hi[v];
    }
    free(lo), free(hi);
    return 0;
}

/* Exchange x (on u) and y (on v); keep the costs (cur) up to date. */
static void exchange(struct lvl *L, int *at, double *cur, int x, int y)
{
    const topomap_graph_t *g = L->g;
    int u = L->vat[x], v = L->vat[y];
    at[u] = y;
    at[v] = x;
    L->vat[x] = v;
    L->vat[y] = u;
    for (int64_t e = g->xadj[x]; e < g->xadj[x + 1]; e++) {
        int z = g->adj[e];
        if (z != y)
            cur[z] += g->w[e] * (dist(L, L->vat[z], v) - dist(L, L->vat[z], u));
    }
    for (int64_t e = g->xadj[y]; e < g->xadj[y + 1]; e++) {
        int z = g->adj[e];
        if (z != x)
            cur[z] += g->w[e] * (dist(L, L->vat[z], u) - dist(L, L->vat[z], v));
    }
    cur[x] = cost_at(L, x, v);
    cur[y] = cost_at(L, y, u);
}

/* x's best exchange with an entity of another group (first improvement
 * order: the largest gain, ties to the first found): its partner, the gain
 * in *bestp, or -1. Reads L, at and cur only, so that several x can be
 * weighed at once (sweep()). */
static int best_exchange(const struct lvl *L, const int *at, const double *cur, int x,
                         struct scratch *W, double *bestp)
{
    const topomap_graph_t *g = L->g;
    const int *glo = L->glo, *ghi = L->ghi, *shape = L->shape;
    int *cand = W->cand, *inz = W->inz;
    double *inw = W->inw;
    char *mark = W->mark;
    int u = L->vat[x], nc = 0;
    /* Candidate groups: those of x's neighbours, other than x's. */
    for (int64_t e = g->xadj[x]; e < g->xadj[x + 1]; e++) {
        int w = L->vat[g->adj[e]];
        if (glo[w] != glo[u] && !mark[glo[w]]) {
            mark[glo[w]] = 1;
            cand[nc++] = w;
        }
    }
    double cxu = cur[x], best = 0;
    int by = -1;
    for (int c = 0; c < nc; c++) {
        int b0 = glo[cand[c]], b1 = ghi[cand[c]], nin = 0;
        mark[b0] = 0;
        /* x's neighbours outside B, seen from B's first vertex, and those
         * inside B. */
        double out = 0;
        for (int64_t e = g->xadj[x]; e < g->xadj[x + 1]; e++) {
            int vz = L->vat[g->adj[e]];
            if (vz >= b0 && vz < b1) {
                inz[nin] = vz;
                inw[nin++] = g->w[e];
            } else {
                out += g->w[e] * dist(L, b0, vz);
            }
        }
        for (int v = b0; v < b1; v++) {
            if (shape[v] != shape[u])
                continue;
            double cxv = out;
            for (int q = 0; q < nin; q++)
                cxv += inw[q] * dist(L, v, inz[q]);
            int y = at[v];
            /* x must gain (an exchange that pays through its partner alone
             * is found from the partner's side), and the partner's share is
             * at most cur[y] (its cost on u is >= 0, and the x-y term is
             * <= 0 on a tree). */
            double gx = cxu - cxv;
            if (gx <= 0 || gx + cur[y] <= best)
                continue;
            double wxy = 0;
            for (int64_t e = g->xadj[y]; e < g->xadj[y + 1]; e++)
                if (g->adj[e] == x)
                    wxy = g->w[e];
            double cyu = cost_at(L, y, u);
            double gain = gx + cur[y] - cyu - 2 * wxy * dist(L, u, v) +
                          wxy * (dist(L, u, u) + dist(L, v, v));
            if (gain > best + 1e-12 * (fabs(cxu) + fabs(cxv) + fabs(cur[y]) + fabs(cyu))) {
                best = gain;
                by = y;
            }
        }
    }
    *bestp = best;
    return by;
}

/* Blocks of entities weighed at once by sweep(): the first size, and the
 * range it adapts in (halved after an exchange, doubled after none). */
#define SWEEP_BLOCK 256
#define SWEEP_BLOCK_MIN 32
#define SWEEP_BLOCK_MAX 8192

static int scratch_alloc(struct scratch *W, int nv)
{
    W->cand = malloc(sizeof(int) * (size_t)nv);
    W->inz = malloc(sizeof(int) * (size_t)nv);
    W->inw = malloc(sizeof(double) * (size_t)nv);
    W->mark = calloc((size_t)nv, 1);
    return W->cand && W->inz && W->inw && W->mark ? 0 : -1;
}

static void scratch_free(struct scratch *W)
{
    free(W->cand), free(W->inz), free(W->inw), free(W->mark);
}

/* One pass: every entity x in order makes its best exchange, if any
 * (first improvement), the gains summed in *gain. With threads, a block of
 * entities from x on is weighed at once against the state before the
 * block (best_exchange() only reads it); the first one with an exchange
 * makes it and the block ends there, the next one starting after it. Each
 * entity is thus weighed against the state it would meet in turn: the
 * exchanges, their order and the sum are those of one thread, for any
 * thread count. 0, or -1 on ENOMEM. */
static int sweep(struct lvl *L, struct scratch *W0, int *at, double *cur, double *gain)
{
    int n = L->g->n, nt = topomap_par_threads(n);
    double best;
    if (nt < 2) {
        for (int x = 0; x < n; x++) {
            int y = best_exchange(L, at, cur, x, W0, &best);
            if (y >= 0) {
                exchange(L, at, cur, x, y);
                *gain += best;
            }
        }
        return 0;
    }
    topomap_par_trace("sumcom sweep");
    int *by = malloc(sizeof(int) * (size_t)n);
    double *bg = malloc(sizeof(double) * (size_t)n);
    struct scratch *W = calloc((size_t)nt, sizeof *W);
    int rc = by && bg && W ? 0 : -1;
    if (W)
        W[0] = *W0;
    for (int t = 1; rc == 0 && t < nt; t++)
        rc = scratch_alloc(&W[t], L->nv);
    for (int x = 0, blk = SWEEP_BLOCK; rc == 0 && x < n;) {
        int end = n - x > blk ? x + blk : n;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 16)
        for (int i = x; i < end; i++)
            by[i] = best_exchange(L, at, cur, i, &W[topomap_thread_num()], &bg[i]);
        int i = x;
        while (i < end && by[i] < 0)
            i++;
        if (i < end) {
            exchange(L, at, cur, i, by[i]);
            *gain += bg[i];
            x = i + 1;
            blk = blk / 2 > SWEEP_BLOCK_MIN ? blk / 2 : SWEEP_BLOCK_MIN;
        } else {
            x = end;
            blk = 2 * blk < SWEEP_BLOCK_MAX ? 2 * blk : SWEEP_BLOCK_MAX;
        }
    }
    for (int t = 1; W && t < nt; t++)
        scratch_free(&W[t]);
    free(by), free(bg), free(W);
    return rc;
}

int tm_level_refine(const struct tm_tree *T, int l, const topomap_graph_t *g, int *at,
                    const struct topomap_problem *pb, int max_passes)
{
    int nv = T->nv[l], cores = topomap_topology_cores(pb->topo);
    /* One table for every node: only when all nodes are of one type. */
    int tab = cores <= TM_CTAB_MAX && topomap_topology_ntypes(pb->topo) == 1;
    struct lvl L = {pb->topo, g, NULL, NULL, NULL, NULL, NULL, cores,
                    topomap_topology_hop_cost(pb->topo), NULL, NULL, T->shape[l], nv};
    L.node = malloc(sizeof(int) * (size_t)nv);
    L.core = malloc(sizeof(int) * (size_t)nv);
    L.same = malloc(sizeof(double) * (size_t)nv);
    L.vat = malloc(sizeof(int) * (size_t)nv);
    if (tab)
        L.ctab = malloc(sizeof(double) * (size_t)cores * (size_t)cores);
    int *glo = malloc(sizeof(int) * (size_t)nv), *ghi = malloc(sizeof(int) * (size_t)nv);
    double *cur = malloc(sizeof(double) * (size_t)nv);
    struct scratch Sc = {NULL, NULL, NULL, NULL};
    int rc = -1;
    if (!L.node || !L.core || !L.same || !L.vat || (tab && !L.ctab) || !glo || !ghi || !cur ||
        scratch_alloc(&Sc, nv) < 0 || groups(T, l, glo, ghi) < 0) {
        errno = ENOMEM;
        goto out;
    }
    L.glo = glo;
    L.ghi = ghi;
    const topomap_topology_t *t = pb->topo;
    if (L.ctab) {
        int v0 = pb->slot_node[0];
        for (int a = 0; a < cores; a++)
            for (int b = 0; b < cores; b++)
                L.ctab[(size_t)a * cores + b] = topomap_topology_cost(t, v0, a, v0, b);
    }
    for (int v = 0; v < nv; v++) {
        int s = T->leaf_slot[first_leaf(T, l, v)];
        L.node[v] = pb->slot_node[s];
        L.core[v] = pb->slot_core[s];
        L.vat[at[v]] = v;
        /* Two entities on v: the first vertex below with two children. */
        int d = l, u = v;
        while (d < T->depth && T->cx[d][u + 1] - T->cx[d][u] < 2)
            u = T->cx[d++][u];
        L.same[v] = 0;
        if (d < T->depth) {
            int a = T->leaf_slot[first_leaf(T, d + 1, T->cx[d][u])];
            int b = T->leaf_slot[first_leaf(T, d + 1, T->cx[d][u] + 1)];
            L.same[v] = topomap_topology_cost(t, pb->slot_node[a], pb->slot_core[a],
                                              pb->slot_node[b], pb->slot_core[b]);
        }
    }
    double total = 0;
#pragma omp parallel for num_threads(topomap_par_threads(g->n)) schedule(static)
    for (int x = 0; x < g->n; x++)
        cur[x] = cost_at(&L, x, L.vat[x]);
    for (int x = 0; x < g->n; x++)
        total += cur[x]; /* in order: the same sum for any thread count */
    for (int pass = 0; pass < max_passes; pass++) {
        double pass_gain = 0;
        if (sweep(&L, &Sc, at, cur, &pass_gain) < 0) {
            errno = ENOMEM;
            goto out;
        }
        if (pass_gain <= 1e-5 * total)
            break;
        total -= 2 * pass_gain;
    }
    rc = 0;
out:
    free(L.node), free(L.core), free(L.same), free(L.vat), free(L.ctab), free(glo), free(ghi);
    free(cur);
    scratch_free(&Sc);
    return rc;
}
