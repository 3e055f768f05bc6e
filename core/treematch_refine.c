/* SPDX-License-Identifier: BSD-3-Clause */
/* Improvements to TreeMatch (ours, not in the paper), used by `treematch`
 * and the node-internal placement; `treematch-paper` runs without them:
 *
 *  - the level refinement, on the way down: TreeMatch's bottom-up grouping
 *    is the coarsening of a multilevel scheme without the refinement that
 *    multilevel partitioners (METIS, Scotch) do while uncoarsening. Once
 *    MapGroups has put the entities of level l (groups of that level) on
 *    the vertices of level l, entities are exchanged between vertices of
 *    the same shape while an exchange lowers sum w_xy dist(vertex(x),
 *    vertex(y)) over the aggregated graph of level l, dist being the SumCom
 *    cost between the two vertices' leaves (hops x hop_cost between nodes,
 *    the node's level cost inside one); two entities on one vertex cost the
 *    cost of that vertex's two first children (what they will at most pay).
 *    A whole subtree moves with its entity, so the levels above stay
 *    consistent. Candidates: the vertices under the parent of each of x's
 *    neighbours' vertices, another than x's own parent (x joins its
 *    neighbour's group; the neighbourhoods of Schulz & Traeff 2017, as in
 *    refine.c; exchanges inside a group are the next level's business);
 *    first improvement, entity by entity, in order: deterministic.
 *
 * The group refinement on the way up is tm_group_refine() in
 * treematch_group.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "treematch.h"

struct lvl {
    const struct topomap_problem *pb;
    const topomap_graph_t *g;
    int *rep;       /* a leaf slot of every vertex */
    double *same;   /* the cost of two entities on one vertex */
    int *vat;       /* vertex of each entity */
};

static double dist(const struct lvl *L, int u, int v)
{
    if (u == v)
        return L->same[u];
    const struct topomap_problem *pb = L->pb;
    int a = L->rep[u], b = L->rep[v];
    return topomap_topology_cost(pb->topo, pb->slot_node[a], pb->slot_core[a], pb->slot_node[b],
                                 pb->slot_core[b]);
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

int tm_level_refine(const struct tm_tree *T, int l, const topomap_graph_t *g, int *at,
                    const struct topomap_problem *pb, int max_passes)
{
    int nv = T->nv[l];
    struct lvl L = {pb, g, malloc(sizeof(int) * (size_t)nv), malloc(sizeof(double) * (size_t)nv),
                    malloc(sizeof(int) * (size_t)nv)};
    int *cand = malloc(sizeof(int) * (size_t)nv), *glo = malloc(sizeof(int) * (size_t)nv);
    int *ghi = malloc(sizeof(int) * (size_t)nv);
    char *mark = calloc((size_t)nv, 1);
    if (!L.rep || !L.same || !L.vat || !cand || !mark || !glo || !ghi) {
        free(L.rep), free(L.same), free(L.vat), free(cand), free(mark), free(glo), free(ghi);
        errno = ENOMEM;
        return -1;
    }
    /* The group of every vertex: the vertices of level l under its nearest
     * ancestor with two children or more (a contiguous range: the tree is
     * ordered). Level by level from the top: a vertex's range is its own
     * descendants' when it has two children, else its parent's. */
    {
        int *lo = malloc(sizeof(int)), *hi = malloc(sizeof(int));
        if (!lo || !hi) {
            free(lo), free(hi);
            free(L.rep), free(L.same), free(L.vat), free(cand), free(mark), free(glo), free(ghi);
            errno = ENOMEM;
            return -1;
        }
        /* lo/hi hold, for the vertices of level d, the range at level l. */
        int d = 0;
        lo[0] = 0;
        hi[0] = nv;
        int *own_lo = NULL, *own_hi = NULL;
        for (; d < l; d++) {
            int nd = T->nv[d], nn = T->nv[d + 1];
            int *nlo = malloc(sizeof(int) * (size_t)nn), *nhi = malloc(sizeof(int) * (size_t)nn);
            if (!nlo || !nhi) {
                free(nlo), free(nhi), free(lo), free(hi);
                free(L.rep), free(L.same), free(L.vat), free(cand), free(mark), free(glo), free(ghi);
                errno = ENOMEM;
                return -1;
            }
            for (int p = 0; p < nd; p++) {
                /* p's own descendants at level l: from its first child's down. */
                int a = T->cx[d][p], b = T->cx[d][p + 1];
                for (int q = d + 1; q < l; q++) {
                    a = T->cx[q][a];
                    b = T->cx[q][b];
                }
                int two = T->cx[d][p + 1] - T->cx[d][p] >= 2;
                for (int c = T->cx[d][p]; c < T->cx[d][p + 1]; c++) {
                    nlo[c] = two ? a : lo[p];
                    nhi[c] = two ? b : hi[p];
                }
            }
            free(lo), free(hi);
            lo = nlo;
            hi = nhi;
        }
        (void)own_lo, (void)own_hi;
        for (int v = 0; v < nv; v++) {
            glo[v] = lo[v];
            ghi[v] = hi[v];
        }
        free(lo), free(hi);
    }
    for (int v = 0; v < nv; v++) {
        L.rep[v] = T->leaf_slot[first_leaf(T, l, v)];
        L.vat[at[v]] = v;
        /* Two entities on v: its first vertex below with two children. */
        int d = l, u = v;
        while (d < T->depth && T->cx[d][u + 1] - T->cx[d][u] < 2)
            u = T->cx[d++][u];
        if (d < T->depth) {
            int a = T->leaf_slot[first_leaf(T, d + 1, T->cx[d][u])];
            int b = T->leaf_slot[first_leaf(T, d + 1, T->cx[d][u] + 1)];
            L.same[v] = topomap_topology_cost(pb->topo, pb->slot_node[a], pb->slot_core[a],
                                              pb->slot_node[b], pb->slot_core[b]);
        } else {
            L.same[v] = 0;
        }
    }
    const int *shape = T->shape[l];
    double total = 0;
    for (int x = 0; x < g->n; x++)
        total += cost_at(&L, x, L.vat[x]);
    for (int pass = 0; pass < max_passes; pass++) {
        double pass_gain = 0;
        for (int x = 0; x < g->n; x++) {
            int u = L.vat[x], nc = 0;
            if (g->xadj[x + 1] == g->xadj[x])
                continue;
            /* Candidates: the vertices beside each neighbour's (its
             * siblings: x joins the neighbour's group). */
            for (int64_t e = g->xadj[x]; e < g->xadj[x + 1]; e++) {
                int w = L.vat[g->adj[e]];
                if (glo[w] == glo[u])
                    continue;
                for (int v = glo[w]; v < ghi[w]; v++)
                    if (!mark[v] && shape[v] == shape[u]) {
                        mark[v] = 1;
                        cand[nc++] = v;
                    }
            }
            double cxu = cost_at(&L, x, u), best = 0;
            int bv = -1;
            for (int c = 0; c < nc; c++) {
                int v = cand[c], y = at[v];
                double wxy = 0;
                for (int64_t e = g->xadj[y]; e < g->xadj[y + 1]; e++)
                    if (g->adj[e] == x)
                        wxy = g->w[e];
                double cxv = cost_at(&L, x, v), cyv = cost_at(&L, y, v), cyu = cost_at(&L, y, u);
                double gain = cxu - cxv + cyv - cyu - 2 * wxy * dist(&L, u, v) +
                              wxy * (dist(&L, u, u) + dist(&L, v, v));
                if (gain > best + 1e-12 * (fabs(cxu) + fabs(cxv) + fabs(cyv) + fabs(cyu))) {
                    best = gain;
                    bv = v;
                }
            }
            for (int c = 0; c < nc; c++)
                mark[cand[c]] = 0;
            if (bv < 0)
                continue;
            int y = at[bv];
            at[u] = y;
            at[bv] = x;
            L.vat[x] = bv;
            L.vat[y] = u;
            pass_gain += best;
        }
        if (pass_gain <= 1e-5 * total)
            break;
        total -= 2 * pass_gain;
    }
    free(L.rep), free(L.same), free(L.vat), free(cand), free(mark), free(glo), free(ghi);
    return 0;
}
