/* SPDX-License-Identifier: BSD-3-Clause */
/* drb: dual recursive bisection, the scheme of Scotch's static mapper
 * (Pellegrini & Roman, "Scotch: a software package for static mapping by dual
 * recursive bipartitioning of process and architecture graphs", HPCN 1996),
 * built here on METIS bisections.
 *
 * A job is a pair (a set of allocated nodes, a set of ranks). Each job splits
 * its nodes into two halves that are compact in the network and, at the same
 * time, bisects the communication graph induced by its ranks with METIS into
 * two parts whose sizes fit the slots of the two halves; each (half, part)
 * becomes a job, until a job holds one node, whose ranks take its slots in
 * rank order. Jobs are processed breadth first, level by level, as Scotch
 * does, so that when a job is cut every rank outside it already sits in a
 * domain of about the same size.
 *
 * Splitting the nodes, by kind of network (through coordinates, never an
 * n x n table):
 *  - torus/mesh: across the dimension of longest extent of the job's nodes,
 *    wraparound respected (on a ring the extent is the ring minus its largest
 *    empty arc, and the order starts after that arc);
 *  - Tianhe-3 (row, col, side, slot): chip rows or columns (whichever has
 *    more distinct values among the job's chips), then the two sides of a
 *    chip, then the nodes of a side;
 *  - fat-trees and Slurm trees: at the highest switch level where the job's
 *    nodes differ, keeping the subtrees of that level whole.
 * The cut is placed at the coordinate boundary that best halves the slots.
 *
 * Ranks per half: when the job's ranks fill its slots the parts must match
 * the halves exactly. With fewer ranks than slots the ranks are kept compact:
 * all go to one half when they fit (the smaller such half), else the first
 * half is filled and the second takes the rest. METIS only balances
 * approximately; a part over its half's capacity gives up the ranks that are
 * least attached to it.
 *
 * Departures from Scotch, and why:
 *  - Scotch bisects with external gains (the pull of neighbours already
 *    mapped elsewhere enters its Fiduccia-Mattheyses refinement). METIS has
 *    no such input; two zero-weight anchor vertices stand for the halves
 *    instead (see bisect()), the external traffic decides the orientation
 *    when METIS puts both anchors on one side, and the finer corrections are
 *    left to the refinement engine (refine.c) that `drb+refine` and `auto`
 *    run afterwards.
 *  - Distances between domains: on a torus/mesh between their centres in
 *    half hops (as Scotch does), elsewhere between representative nodes (the
 *    node closest to the per-coordinate median).
 *  - Jobs of at most DRB_SMALL ranks get DRB_SMALL_NCUTS METIS tries (METIS
 *    keeps the best cut); larger ones one.
 *
 * Quick mode (ours; topomap_map_drb_quick, for the 32,768 node-sized groups
 * of the multilevel scheme, coarsen.c): there 23,000 of the 32,767 splits
 * are jobs of at most 8 groups, where METIS's set-up per call (about 20 us)
 * is most of drb's time. Such jobs are bisected exactly (every subset of the
 * wanted size tried, the anchors held on their sides: the least weight cut,
 * external pull included); larger ones get one METIS try, since the group
 * refinement that follows does more than a second. drb's time on the groups
 * of a 262,144-rank job went from 1.3 s to 0.63 s, and the hop-bytes after
 * the refinements changed by -0.3 % (262,144 ranks) and -0.1 % (1,048,576)
 * (doc/scaling.md). topomap_map_drb keeps the paper's METIS bisections. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metis_call.h"
#include "internal.h"

#define DRB_MAXD 20 /* coordinates of a node: 16 torus dims, tree depth + port */
#ifndef DRB_SMALL
#define DRB_SMALL 256
#endif
#ifndef DRB_SMALL_NCUTS
#define DRB_SMALL_NCUTS 2
#endif
/* Quick mode: jobs of at most this many ranks are bisected exactly (2^8
 * subsets looked at, 70 of them evaluated). */
#define DRB_EXACT_MAX 8

/* A domain: the nodes of a job, as seen from outside. On a torus/mesh its
 * centre in half-hop units per dimension (Scotch measures distances between
 * domains the same way); elsewhere a representative node. */
struct drb_dom {
    int rep;
    int c2[DRB_MAXD];
};

struct drb_job {
    int nlo, nhi; /* nodes[nlo..nhi) */
    int rlo, rhi; /* ranks[rlo..rhi) */
};

struct drb {
    const struct topomap_problem *pb;
    int m;                 /* allocated nodes holding slots */
    int *first, *cap, *tn; /* per node: first slot, slots, topology node */
    int nd;                /* coordinates per node */
    int *coord;            /* m * nd, -1 = none (shallower tree nodes) */
    int cyc[DRB_MAXD];     /* ring size of a wrapped dimension, else 0 */
    int cls[DRB_MAXD];     /* split priority class (lower first) */
    int geom[DRB_MAXD];    /* 1: distances grow with the difference (torus/mesh) */
    int *nodes;            /* permutation of 0..m-1, in job segments */
    int *ranks;            /* permutation of 0..n-1, in job segments */
    int *rep;              /* n: the domain (index into dom) of each rank */
    struct drb_dom *dom;   /* domains made so far */
    int ndom;
    int grid;              /* 1: torus/mesh, domains measured by their centres */
    int *loc;              /* n: index inside the current job, -1 outside */
    /* Per-job scratch, sized for the whole problem. */
    int64_t *key;          /* m */
    int *vals;             /* m */
    idx_t *xadj, *adj, *wgt, *vwgt, *part;
    double *pref;          /* n: external pull of each rank towards half A */
    double *score;         /* n: balance fix-up order */
    int *tmp;              /* n */
    struct drb_job *q;     /* job queue */
    int *ta, *tb;          /* trace scratch (m) */
    int quick;             /* quick mode (see the top) */
};

static void drb_free(struct drb *d)
{
    free(d->first);
    free(d->cap);
    free(d->tn);
    free(d->coord);
    free(d->nodes);
    free(d->ranks);
    free(d->rep);
    free(d->dom);
    free(d->loc);
    free(d->key);
    free(d->vals);
    free(d->xadj);
    free(d->adj);
    free(d->wgt);
    free(d->vwgt);
    free(d->part);
    free(d->pref);
    free(d->score);
    free(d->tmp);
    free(d->q);
    free(d->ta);
    free(d->tb);
}

/* Nodes, slots and coordinates of the allocation. */
static int drb_init(struct drb *d, const struct topomap_problem *pb)
{
    memset(d, 0, sizeof *d);
    d->pb = pb;
    int n = pb->n, ns = pb->nslots, nn = topomap_alloc_nnodes(pb->alloc);
    int64_t ne = pb->g.xadj[n];
    size_t nz = (size_t)(n > 0 ? n : 1), mz = (size_t)(nn > 0 ? nn : 1);
    d->first = malloc(sizeof(int) * mz);
    d->cap = malloc(sizeof(int) * mz);
    d->tn = malloc(sizeof(int) * mz);
    d->nodes = malloc(sizeof(int) * mz);
    d->key = malloc(sizeof(int64_t) * mz);
    d->vals = malloc(sizeof(int) * mz);
    d->ta = malloc(sizeof(int) * mz);
    d->tb = malloc(sizeof(int) * mz);
    d->ranks = malloc(sizeof(int) * nz);
    d->rep = malloc(sizeof(int) * nz);
    d->loc = malloc(sizeof(int) * nz);
    d->tmp = malloc(sizeof(int) * nz);
    d->pref = malloc(sizeof(double) * nz);
    d->score = malloc(sizeof(double) * nz);
    /* The job's graph plus two anchor vertices and their edges. */
    d->xadj = malloc(sizeof(idx_t) * (nz + 3));
    d->adj = malloc(sizeof(idx_t) * ((size_t)ne + 2 * nz));
    d->wgt = malloc(sizeof(idx_t) * ((size_t)ne + 2 * nz));
    d->vwgt = malloc(sizeof(idx_t) * (nz + 2));
    d->part = malloc(sizeof(idx_t) * (nz + 2));
    /* A job per node at most lives in the queue at once, twice over. */
    d->q = malloc(sizeof(struct drb_job) * 2 * mz);
    d->dom = malloc(sizeof(struct drb_dom) * 2 * mz);
    if (!d->first || !d->cap || !d->tn || !d->nodes || !d->key || !d->vals || !d->ta || !d->tb ||
        !d->ranks || !d->rep || !d->loc || !d->tmp || !d->pref || !d->score || !d->xadj ||
        !d->adj || !d->wgt || !d->vwgt || !d->part || !d->q || !d->dom)
        return -1;
    /* Slots are numbered node by node (alloc.c): one run of slots per node. */
    for (int s = 0; s < ns; s++) {
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1]) {
            d->first[d->m] = s;
            d->tn[d->m] = pb->slot_node[s];
            d->cap[d->m++] = 0;
        }
        d->cap[d->m - 1]++;
    }

    /* Coordinates and how to split along them. */
    const topomap_topology_t *t = pb->topo;
    int dims[DRB_MAXD], wrap[DRB_MAXD];
    int gd = topomap_topology_grid(t, dims, wrap, DRB_MAXD);
    int shape = topomap_topology_shape(t);
    int tmpc[DRB_MAXD];
    d->nd = 0;
    for (int i = 0; i < d->m; i++) {
        int k = topomap_topology_coords(t, d->tn[i], tmpc, DRB_MAXD);
        if (k > d->nd)
            d->nd = k > DRB_MAXD ? DRB_MAXD : k;
    }
    if (d->nd < 1)
        d->nd = 1;
    d->coord = malloc(sizeof(int) * (size_t)d->m * (size_t)d->nd + 1);
    if (!d->coord)
        return -1;
    for (int i = 0; i < d->m; i++) {
        int *c = d->coord + (size_t)i * (size_t)d->nd;
        for (int k = 0; k < d->nd; k++)
            c[k] = -1;
        int k = topomap_topology_coords(t, d->tn[i], tmpc, DRB_MAXD);
        for (int j = 0; j < k && j < d->nd; j++)
            c[j] = tmpc[j];
    }
    for (int k = 0; k < d->nd; k++) {
        d->cyc[k] = 0;
        d->geom[k] = 0;
        d->cls[k] = k; /* trees: level by level, then the port */
    }
    if (gd > 0) {
        d->grid = 1;
        for (int k = 0; k < d->nd; k++) {
            d->cls[k] = 0; /* all dimensions compete: longest extent wins */
            d->geom[k] = 1;
            d->cyc[k] = k < gd && wrap[k] ? dims[k] : 0;
        }
    } else if (shape == TOPOMAP_SHAPE_CHIPS && d->nd >= 4) {
        d->cls[0] = d->cls[1] = 0; /* chip rows and columns */
        d->cls[2] = 1;             /* sides */
        d->cls[3] = 2;             /* nodes of a side */
    }
    return 0;
}

/* Sort context for qsort_r: order nodes by key, then by index. */
static int cmp_key(const void *a, const void *b, void *ctx)
{
    const int64_t *key = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    if (key[x] != key[y])
        return key[x] < key[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Extent of dimension k over nodes[lo..hi): for a ring, its size minus the
 * largest empty arc; for a line, max - min + 1; for a category (tree level,
 * chip row), the number of distinct values. *start: the value the order
 * starts from (after the largest empty arc on a ring). */
static int dim_extent(struct drb *d, int lo, int hi, int k, int *start)
{
    int c = 0;
    for (int i = lo; i < hi; i++)
        d->vals[c++] = d->coord[(size_t)d->nodes[i] * (size_t)d->nd + (size_t)k];
    qsort(d->vals, (size_t)c, sizeof(int), topomap_cmp_int);
    int u = 0;
    for (int i = 0; i < c; i++)
        if (i == 0 || d->vals[i] != d->vals[u - 1])
            d->vals[u++] = d->vals[i];
    *start = d->vals[0];
    if (u <= 1)
        return u;
    if (!d->geom[k])
        return u;
    int S = d->cyc[k];
    if (!S)
        return d->vals[u - 1] - d->vals[0] + 1;
    int gap = d->vals[0] + S - d->vals[u - 1], gstart = d->vals[0];
    for (int i = 1; i < u; i++)
        if (d->vals[i] - d->vals[i - 1] > gap) {
            gap = d->vals[i] - d->vals[i - 1];
            gstart = d->vals[i];
        }
    *start = gstart;
    return S - gap + 1;
}

/* Position of a coordinate along dimension k, the order starting at start. */
static int64_t dim_pos(const struct drb *d, int k, int v, int start)
{
    if (d->cyc[k])
        return ((v - start) % d->cyc[k] + d->cyc[k]) % d->cyc[k];
    return (int64_t)v - start;
}

/* A new domain for nodes[lo..hi): its centre (half-hop units) along every
 * dimension, and the node closest to it as representative. Returns its index. */
static int make_domain(struct drb *d, int lo, int hi)
{
    struct drb_dom *D = &d->dom[d->ndom];
    int st[DRB_MAXD], mid2[DRB_MAXD];
    for (int k = 0; k < d->nd; k++) {
        int ext = dim_extent(d, lo, hi, k, &st[k]);
        if (d->geom[k]) {
            /* The middle of the occupied arc or segment. */
            mid2[k] = ext - 1;
            D->c2[k] = 2 * st[k] + ext - 1;
            if (d->cyc[k])
                D->c2[k] %= 2 * d->cyc[k];
        } else {
            mid2[k] = 0;
            D->c2[k] = 0;
        }
    }
    int best = d->nodes[lo];
    int64_t bestdist = INT64_MAX;
    for (int i = lo; i < hi; i++) {
        const int *c = d->coord + (size_t)d->nodes[i] * (size_t)d->nd;
        int64_t dist = 0;
        for (int k = 0; k < d->nd; k++) {
            if (!d->geom[k])
                continue;
            int64_t x = 2 * dim_pos(d, k, c[k], st[k]) - mid2[k];
            dist += x < 0 ? -x : x;
        }
        if (dist < bestdist) {
            bestdist = dist;
            best = d->nodes[i];
        }
    }
    D->rep = d->tn[best];
    return d->ndom++;
}

/* Distance between two domains in hops (half hops on a torus/mesh). */
static double dom_dist(const struct drb *d, int a, int b)
{
    if (a == b)
        return 0;
    const struct drb_dom *A = &d->dom[a], *B = &d->dom[b];
    if (!d->grid)
        return topomap_topology_hops(d->pb->topo, A->rep, B->rep);
    int h2 = 0;
    for (int k = 0; k < d->nd; k++) {
        int x = A->c2[k] > B->c2[k] ? A->c2[k] - B->c2[k] : B->c2[k] - A->c2[k];
        if (d->cyc[k] && x > d->cyc[k])
            x = 2 * d->cyc[k] - x;
        h2 += x;
    }
    return h2 / 2.0;
}

/* Sort nodes[lo..hi) along the chosen dimension and return the split point
 * (lo < mid < hi) at a coordinate boundary that best halves the slots. */
static int split_nodes(struct drb *d, int lo, int hi)
{
    int bestk = -1, bestext = 1, beststart = 0, bestcls = INT32_MAX;
    for (int k = 0; k < d->nd; k++) {
        if (d->cls[k] > bestcls)
            continue;
        int start, ext = dim_extent(d, lo, hi, k, &start);
        if (ext <= 1)
            continue;
        if (d->cls[k] < bestcls || ext > bestext) {
            bestcls = d->cls[k];
            bestk = k;
            bestext = ext;
            beststart = start;
        }
    }
    if (bestk < 0) {
        /* Identical coordinates (cannot happen for distinct nodes of the
         * supported kinds): split the list in two. */
        return lo + (hi - lo) / 2;
    }
    /* Key: position along the dimension; ties in node order (cmp_key), so
     * that the order is fully determined. */
    for (int i = lo; i < hi; i++) {
        int v = d->nodes[i];
        const int *c = d->coord + (size_t)v * (size_t)d->nd;
        d->key[v] = dim_pos(d, bestk, c[bestk], beststart);
    }
    qsort_r(d->nodes + lo, (size_t)(hi - lo), sizeof(int), cmp_key, d->key);
    int64_t total = 0, acc = 0;
    for (int i = lo; i < hi; i++)
        total += d->cap[d->nodes[i]];
    int mid = -1;
    int64_t bestdiff = INT64_MAX;
    for (int i = lo; i < hi - 1; i++) {
        acc += d->cap[d->nodes[i]];
        if (d->key[d->nodes[i]] == d->key[d->nodes[i + 1]])
            continue;
        int64_t diff = 2 * acc - total;
        if (diff < 0)
            diff = -diff;
        if (diff < bestdiff) {
            bestdiff = diff;
            mid = i + 1;
        }
    }
    return mid > lo ? mid : lo + 1;
}

/* Side of vertex l of a job of nr ranks under mask (bit k: rank k on side
 * 0); the anchors nr and nr + 1 stay on sides 0 and 1. */
static int side_of(unsigned mask, int nr, idx_t l)
{
    return l < nr ? !((mask >> l) & 1) : (int)(l - nr);
}

/* Quick mode's exact bisection of a job of nr <= DRB_EXACT_MAX ranks, its
 * graph and anchors in d->xadj/adj/wgt as METIS would get them: of the
 * subsets of want0 ranks on side 0 (anchor A's), the one that cuts the least
 * weight, the first in binary order on a tie. Its work for auto's accounting:
 * every entry summed once per subset. */
static void exact_bisect(struct drb *d, int nr, int want0)
{
    unsigned best = 0;
    double bestcost = -1, subsets = 0;
    for (unsigned mask = 0; mask < 1u << nr; mask++) {
        if (__builtin_popcount(mask) != want0)
            continue;
        subsets++;
        double cost = 0;
        for (int v = 0; v < nr + 2; v++) {
            int sv = side_of(mask, nr, v);
            for (idx_t e = d->xadj[v]; e < d->xadj[v + 1]; e++)
                if (side_of(mask, nr, d->adj[e]) != sv)
                    cost += (double)d->wgt[e];
        }
        if (bestcost < 0 || cost < bestcost) {
            bestcost = cost;
            best = mask;
        }
    }
    for (int v = 0; v < nr + 2; v++)
        d->part[v] = side_of(best, nr, v);
    topomap_work_add(d->pb, subsets * (double)d->xadj[nr + 2] * TOPOMAP_WORK_EDGE);
}

/* Higher score first, then lower index. */
static int cmp_score(const void *a, const void *b, void *ctx)
{
    const double *score = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    if (score[x] != score[y])
        return score[x] > score[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Cut the ranks of a job in two: part[k] for k < nr (local index), part 0
 * for half A (represented by topology node repA), with count0 in
 * [lo0, hi0]. METIS bisects the job's graph aiming at want0 ranks in part 0.
 *
 * External gains: a rank with neighbours outside the job is pulled towards
 * the half closer to where they are (their domain's representative node):
 * pref = sum_ext w (hops(repB, rep_j) - hops(repA, rep_j)), positive towards
 * A (dom_dist(): distances between domains). METIS has no input for that, so two anchor vertices of weight zero stand
 * for the halves, and each rank with a preference gets an edge of weight
 * |pref| to the anchor it prefers; cutting it costs what the rank would pay
 * on the wrong side. When METIS puts both anchors on one side, the external
 * cost of the two orientations decides which part goes to A. */
static int bisect(struct drb *d, int rlo, int rhi, int repA, int repB, int want0, int lo0,
                  int hi0, int *count0, char *err, size_t errlen)
{
    const topomap_graph_t *g = &d->pb->g;
    int nr = rhi - rlo;
    double *pref = d->pref, maxw = 0, sumw = 0;
    int nanch[2] = {0, 0};
    for (int k = 0; k < nr; k++) {
        int r = d->ranks[rlo + k];
        double p = 0;
        for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++) {
            if (!(g->w[e] > 0))
                continue;
            int j = g->adj[e];
            if (d->loc[j] >= 0) {
                maxw = g->w[e] > maxw ? g->w[e] : maxw;
                sumw += g->w[e];
            } else {
                p += g->w[e] * (dom_dist(d, repB, d->rep[j]) - dom_dist(d, repA, d->rep[j]));
            }
        }
        pref[k] = p;
        if (p != 0) {
            nanch[p < 0]++;
            maxw = fabs(p) > maxw ? fabs(p) : maxw;
            sumw += 2 * fabs(p);
        }
    }
    /* Integer weights: relative order kept to about one part in a million,
     * total below 2^30 so that METIS's 32-bit sums cannot overflow. */
    double scale = maxw > 0 ? fmin((double)(1 << 20) / maxw, (double)(1 << 30) / sumw) : 0;
    int64_t ne = 0;
    d->xadj[0] = 0;
    for (int k = 0; k < nr; k++) {
        int r = d->ranks[rlo + k];
        for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++) {
            int l = d->loc[g->adj[e]];
            if (l >= 0 && g->w[e] > 0) {
                double w = ceil(g->w[e] * scale);
                d->adj[ne] = l;
                d->wgt[ne++] = (idx_t)(w < 1 ? 1 : w);
            }
        }
        if (pref[k] != 0) {
            double w = ceil(fabs(pref[k]) * scale);
            d->adj[ne] = pref[k] > 0 ? nr : nr + 1;
            d->wgt[ne++] = (idx_t)(w < 1 ? 1 : w);
        }
        d->xadj[k + 1] = (idx_t)ne;
    }
    int internal = ne > (int64_t)nanch[0] + nanch[1];
    for (int side = 0; side < 2; side++) {
        for (int k = 0; k < nr; k++)
            if (pref[k] != 0 && (pref[k] < 0) == side) {
                double w = ceil(fabs(pref[k]) * scale);
                d->adj[ne] = k;
                d->wgt[ne++] = (idx_t)(w < 1 ? 1 : w);
            }
        d->xadj[nr + side + 1] = (idx_t)ne;
    }
    if (!internal) {
        /* No edge inside the job: the ranks most pulled towards A go there
         * (ties in rank order). */
        for (int k = 0; k < nr; k++)
            d->tmp[k] = k;
        qsort_r(d->tmp, (size_t)nr, sizeof(int), cmp_score, pref);
        for (int k = 0; k < nr; k++)
            d->part[d->tmp[k]] = k < want0 ? 0 : 1;
    } else {
        idx_t nv = nr + 2, ncon = 1, np = 2, objval = 0;
        idx_t options[METIS_NOPTIONS];
        real_t tpw[2] = {(real_t)want0 / (real_t)nr, (real_t)(nr - want0) / (real_t)nr};
        real_t ub = 1.001f;
        for (int k = 0; k < nr; k++)
            d->vwgt[k] = 1;
        d->vwgt[nr] = d->vwgt[nr + 1] = 0;
        METIS_SetDefaultOptions(options);
        options[METIS_OPTION_SEED] = (idx_t)(d->pb->opts->seed & 0x7fffffff);
        options[METIS_OPTION_NUMBERING] = 0;
        /* Small jobs (the deep levels, where most of the mapping's cost is
         * decided on a torus) get several tries; METIS keeps the best cut. */
        options[METIS_OPTION_NCUTS] = nr <= DRB_SMALL && !d->quick ? DRB_SMALL_NCUTS : 1;
        int st = METIS_OK;
        if (d->quick && nr <= DRB_EXACT_MAX) {
            exact_bisect(d, nr, want0);
        } else {
            /* Work of auto's accounting: METIS's multilevel bisection costs
             * about its input's size per try. */
            topomap_work_add(d->pb, ((double)(nv + d->xadj[nv]) * TOPOMAP_WORK_METIS +
                                     TOPOMAP_WORK_METIS_CALL) *
                                        (double)options[METIS_OPTION_NCUTS]);
            st = topomap_metis_recursive(&nv, &ncon, d->xadj, d->adj, d->vwgt, NULL, d->wgt, &np,
                                          tpw, &ub, options, &objval, d->part);
        }
        if (st != METIS_OK)
            return topomap_fail(err, errlen, st == METIS_ERROR_MEMORY ? ENOMEM : EINVAL,
                                "drb: METIS_PartGraphRecursive failed (status %d)", st);
        int flip;
        if (d->part[nr] != d->part[nr + 1]) {
            flip = d->part[nr] == 1; /* anchor A's side goes to A */
        } else {
            double keep = 0;
            for (int k = 0; k < nr; k++)
                keep += d->part[k] == 0 ? -pref[k] : pref[k];
            flip = keep > 0; /* the flipped orientation costs less */
        }
        int c0 = 0;
        for (int k = 0; k < nr; k++)
            c0 += d->part[k] == 0;
        /* Both orientations must fit the halves. */
        if (flip && (nr - c0 < lo0 || nr - c0 > hi0) && c0 >= lo0 && c0 <= hi0)
            flip = 0;
        if (flip)
            for (int k = 0; k < nr; k++)
                d->part[k] = 1 - d->part[k];
    }
    int c0 = 0;
    for (int k = 0; k < nr; k++)
        c0 += d->part[k] == 0;
    /* Over a half's capacity: move the ranks least attached to their part
     * (internal weight to the other part minus to their own, plus the
     * external pull) until the counts fit. */
    if (c0 > hi0 || c0 < lo0) {
        int from = c0 > hi0 ? 0 : 1, excess = c0 > hi0 ? c0 - hi0 : lo0 - c0;
        double *score = d->score;
        int cand = 0;
        for (int k = 0; k < nr; k++) {
            if (d->part[k] != from)
                continue;
            double own = 0, other = 0;
            for (idx_t e = d->xadj[k]; e < d->xadj[k + 1]; e++) {
                if (d->adj[e] >= nr)
                    continue; /* anchor: counted through pref below */
                if (d->part[d->adj[e]] == from)
                    own += (double)d->wgt[e];
                else
                    other += (double)d->wgt[e];
            }
            score[k] = (other - own) / (scale > 0 ? scale : 1) + (from == 0 ? -pref[k] : pref[k]);
            d->tmp[cand++] = k;
        }
        /* Highest score first; ties by index (deterministic). */
        qsort_r(d->tmp, (size_t)cand, sizeof(int), cmp_score, score);
        for (int a = 0; a < excess; a++)
            d->part[d->tmp[a]] = 1 - from;
        c0 += from == 0 ? -excess : excess;
    }
    *count0 = c0;
    return 0;
}

static int drb_run(struct drb *d, int *r2s, char *err, size_t errlen)
{
    const struct topomap_problem *pb = d->pb;
    int n = pb->n;
    for (int i = 0; i < d->m; i++)
        d->nodes[i] = i;
    for (int r = 0; r < n; r++) {
        d->ranks[r] = r;
        d->loc[r] = -1;
    }
    int head = 0, tail = 0;
    d->q[tail++] = (struct drb_job){0, d->m, 0, n};
    d->ndom = 0;
    int rep0 = d->m ? make_domain(d, 0, d->m) : 0;
    for (int r = 0; r < n; r++)
        d->rep[r] = rep0;
    size_t qcap = 2 * (size_t)(d->m > 0 ? d->m : 1);
    while (head < tail) {
        struct drb_job J = d->q[head++ % qcap];
        int nr = J.rhi - J.rlo;
        if (nr == 0)
            continue;
        if (J.nhi - J.nlo == 1) {
            /* One node: its ranks (in rank order) on its slots in order. */
            int v = d->nodes[J.nlo];
            qsort(d->ranks + J.rlo, (size_t)nr, sizeof(int), topomap_cmp_int);
            for (int k = 0; k < nr; k++)
                r2s[d->ranks[J.rlo + k]] = d->first[v] + k;
            continue;
        }
        if ((head & 63) == 0 && topomap_expired(pb))
            return topomap_fail(err, errlen, ETIMEDOUT, "drb: time limit reached");
        int mid = split_nodes(d, J.nlo, J.nhi);
        int capA = 0, capB = 0;
        for (int i = J.nlo; i < mid; i++)
            capA += d->cap[d->nodes[i]];
        for (int i = mid; i < J.nhi; i++)
            capB += d->cap[d->nodes[i]];
        /* Domains are only made for jobs that split: at most 2 per split. */
        int repA = make_domain(d, J.nlo, mid), repB = make_domain(d, mid, J.nhi);
        /* How many ranks each half may take (see the top of the file). */
        int want0, lo0, hi0;
        if (nr == capA + capB) {
            want0 = lo0 = hi0 = capA;
        } else if (nr <= capA && nr <= capB) {
            want0 = lo0 = hi0 = capA <= capB ? nr : 0;
        } else if (nr <= capA || nr <= capB) {
            want0 = lo0 = hi0 = nr <= capA ? nr : 0;
        } else {
            want0 = capA;
            lo0 = nr - capB;
            hi0 = capA;
        }
        int c0 = 0;
        for (int k = 0; k < nr; k++)
            d->loc[d->ranks[J.rlo + k]] = k;
        if (want0 == 0 || want0 == nr) {
            for (int k = 0; k < nr; k++)
                d->part[k] = want0 == 0;
            c0 = want0;
        } else {
            if (bisect(d, J.rlo, J.rhi, repA, repB, want0, lo0, hi0, &c0, err, errlen) < 0) {
                for (int k = 0; k < nr; k++)
                    d->loc[d->ranks[J.rlo + k]] = -1;
                return -1;
            }
        }
        for (int k = 0; k < nr; k++)
            d->loc[d->ranks[J.rlo + k]] = -1;
        /* Stable partition of the job's ranks: part 0 first. */
        int a = 0, b = c0;
        for (int k = 0; k < nr; k++) {
            int r = d->ranks[J.rlo + k];
            if (d->part[k] == 0) {
                d->tmp[a++] = r;
                d->rep[r] = repA;
            } else {
                d->tmp[b++] = r;
                d->rep[r] = repB;
            }
        }
        memcpy(d->ranks + J.rlo, d->tmp, sizeof(int) * (size_t)nr);
        void (*trace)(const int *, int, const int *, int, int, int, int, int) =
            topomap_tuning()->drb_trace;
        if (trace) {
            for (int i = J.nlo; i < mid; i++)
                d->ta[i - J.nlo] = d->tn[d->nodes[i]];
            for (int i = mid; i < J.nhi; i++)
                d->tb[i - mid] = d->tn[d->nodes[i]];
            trace(d->ta, mid - J.nlo, d->tb, J.nhi - mid, capA, capB, c0, nr - c0);
        }
        d->q[tail++ % qcap] = (struct drb_job){J.nlo, mid, J.rlo, J.rlo + c0};
        d->q[tail++ % qcap] = (struct drb_job){mid, J.nhi, J.rlo + c0, J.rhi};
    }
    return 0;
}

static int map_drb(const struct topomap_problem *pb, int quick, int *r2s, char *err,
                   size_t errlen)
{
    if (pb->g.xadj[pb->n] > INT32_MAX)
        return topomap_fail(err, errlen, E2BIG,
                            "drb: %lld graph entries exceed METIS's 32-bit indices",
                            (long long)pb->g.xadj[pb->n]);
    struct drb d;
    if (drb_init(&d, pb) < 0) {
        drb_free(&d);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    d.quick = quick;
    int rc = drb_run(&d, r2s, err, errlen);
    drb_free(&d);
    return rc;
}

int topomap_map_drb(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return map_drb(pb, 0, r2s, err, errlen);
}

int topomap_map_drb_quick(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return map_drb(pb, 1, r2s, err, errlen);
}
