/* SPDX-License-Identifier: BSD-3-Clause */
/* analytic: the analytical topology mapping of Wu, Xiong, Berrocal, Wang and
 * Lan, "Topology mapping of irregular parallel applications on
 * torus-connected supercomputers", J. Supercomput. 2016, for tori and meshes
 * of any number of dimensions, then topomap's refinement engine.
 *
 *   1. Groups (section 3.6): with several slots per node, METIS cuts the
 *      ranks into one group per node to use, and a greedy pass balances the
 *      groups, moving the rank whose move cuts least; one slot per node: one
 *      rank per group.
 *   2. Fixed groups (section 3.6): the nodes and the groups are ordered by
 *      reverse Cuthill-McKee (RCM) or by breadth-first traversal
 *      (`analytic-bft`, the paper's alternative, Table 4); the group at the
 *      place of a corner node in that order is fixed at that corner.
 *   3. Global mapping (analytic_global.c), legalization (analytic_legal.c).
 *   4. The ranks of each group on the slots of its node; then the
 *      refinement engine (refine.c): exchanges and moves that lower
 *      hop-bytes, which also uses the torus's wraparound links that the
 *      continuous model (a box) cannot see.
 *
 * Departures and choices (the paper maps one process per node of a whole
 * partition of the machine, 3D):
 * - any number of dimensions (2^d corners) and allocations that are not the
 *   whole machine: the box of bins is the allocation's bounding box
 *   (analytic.h), its bins without an allocated node are kept empty;
 * - fewer groups than nodes (fewer ranks than slots): K = ceil(n / c)
 *   groups of as equal sizes as possible, c the largest slot count of a node,
 *   and the RCM position of a corner node scaled to the group order;
 * - nodes with fewer slots than their group has ranks (allocations of mixed
 *   nodes): the ranks left over go to the nearest nodes with free slots, in
 *   rank order, before the refinement;
 * - a corner of the box without an allocated node is represented by the
 *   allocated node nearest to it (L1 in the box).
 * The paper's gamma = 4 and its ten-iteration stall rule are kept; global
 * mapping stops after 200 iterations (our cap) or at the time limit, and the
 * whole algorithm returns its best so far at the time limit. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metis_call.h"
#include "analytic.h"
#include "refine.h"

#define AN_GAMMA 4
#define AN_MAX_ITER 200
#define AN_MAX_BINS (1 << 22)

/* ---- the box ---------------------------------------------------------------- */

void topomap_an_box_free(struct an_box *B)
{
    free(B->bin_node);
    free(B->node_bin);
    free(B->node_of);
    B->bin_node = B->node_bin = B->node_of = NULL;
}

/* Shrink the box lo..hi (inclusive, box coordinates; bc: m x AN_MAXD node
 * coordinates in the box) while it keeps at least need nodes: the longest
 * dimension first, by the end slice holding fewer nodes (the far end on
 * ties). */
/* 1 if the coordinates c[0..nd) lie in lo..hi (inclusive). */
static int in_box(const int *c, int nd, const int *lo, const int *hi)
{
    for (int k = 0; k < nd; k++)
        if (c[k] < lo[k] || c[k] > hi[k])
            return 0;
    return 1;
}

static void shrink_box(const int *bc, int m, int nd, int need, int *lo, int *hi)
{
    for (;;) {
        int inside = 0, done = 1;
        for (int i = 0; i < m; i++)
            inside += in_box(bc + (size_t)i * AN_MAXD, nd, lo, hi);
        /* Dimensions by decreasing extent, lowest index first on ties. */
        char tried[AN_MAXD] = {0};
        for (int round = 0; round < nd && done; round++) {
            int k = -1;
            for (int j = 0; j < nd; j++)
                if (!tried[j] && hi[j] > lo[j] && (k < 0 || hi[j] - lo[j] > hi[k] - lo[k]))
                    k = j;
            if (k < 0)
                break;
            tried[k] = 1;
            int at_lo = 0, at_hi = 0;
            for (int i = 0; i < m; i++) {
                if (!in_box(bc + (size_t)i * AN_MAXD, nd, lo, hi))
                    continue;
                at_lo += bc[(size_t)i * AN_MAXD + (size_t)k] == lo[k];
                at_hi += bc[(size_t)i * AN_MAXD + (size_t)k] == hi[k];
            }
            if (at_hi <= at_lo && inside - at_hi >= need) {
                hi[k]--;
                done = 0;
            } else if (inside - at_lo >= need) {
                lo[k]++;
                done = 0;
            }
        }
        if (done)
            return;
    }
}

int topomap_an_box_init(struct an_box *B, const struct topomap_problem *pb, int need, char *err,
                        size_t errlen)
{
    memset(B, 0, sizeof *B);
    const topomap_topology_t *t = pb->topo;
    int dims[AN_MAXD], wrap[AN_MAXD];
    int gd = topomap_topology_grid(t, dims, wrap, AN_MAXD);
    if (gd <= 0)
        return topomap_fail(err, errlen, ENOTSUP,
                            "analytic: needs a torus or mesh network (this topology is '%s')",
                            topomap_topology_kind(t));
    if (gd > AN_MAXD)
        return topomap_fail(err, errlen, EINVAL, "analytic: %d dimensions (at most %d)", gd,
                            AN_MAXD);
    /* Allocated nodes: slots come node by node. */
    int ns = pb->nslots, m = 0;
    size_t mz = (size_t)(ns > 0 ? ns : 1);
    int *vals = malloc(sizeof(int) * mz);
    int *bc = malloc(sizeof(int) * mz * AN_MAXD);
    B->node_of = malloc(sizeof(int) * mz);
    B->node_bin = malloc(sizeof(int) * mz);
    if (!vals || !bc || !B->node_of || !B->node_bin) {
        free(vals);
        free(bc);
        topomap_an_box_free(B);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int s = 0; s < ns; s++)
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1]) {
            int c[AN_MAXD] = {0};
            topomap_topology_coords(t, pb->slot_node[s], c, AN_MAXD);
            memcpy(bc + (size_t)m * AN_MAXD, c, sizeof c);
            m++;
        }
    B->nd = gd;
    int lo[AN_MAXD], hi[AN_MAXD];
    for (int k = 0; k < gd; k++) {
        for (int i = 0; i < m; i++)
            vals[i] = bc[(size_t)i * AN_MAXD + (size_t)k];
        qsort(vals, (size_t)m, sizeof(int), topomap_cmp_int);
        int u = 0;
        for (int i = 0; i < m; i++)
            if (i == 0 || vals[i] != vals[u - 1])
                vals[u++] = vals[i];
        B->ring[k] = wrap[k] ? dims[k] : 0;
        if (!wrap[k]) {
            B->start[k] = vals[0];
            B->len[k] = vals[u - 1] - vals[0] + 1;
        } else {
            /* After the largest gap of the ring. */
            int gap = vals[0] + dims[k] - vals[u - 1], gstart = vals[0];
            for (int i = 1; i < u; i++)
                if (vals[i] - vals[i - 1] > gap) {
                    gap = vals[i] - vals[i - 1];
                    gstart = vals[i];
                }
            B->start[k] = gstart;
            B->len[k] = dims[k] - gap + 1;
        }
        /* Network coordinates -> box coordinates. */
        for (int i = 0; i < m; i++) {
            int *x = bc + (size_t)i * AN_MAXD + (size_t)k;
            *x -= B->start[k];
            if (B->ring[k])
                *x = (*x % B->ring[k] + B->ring[k]) % B->ring[k];
        }
        lo[k] = 0;
        hi[k] = B->len[k] - 1;
    }
    free(vals);
    if (need > 0 && need < m)
        shrink_box(bc, m, gd, need, lo, hi);
    int64_t nbins = 1;
    for (int k = 0; k < gd; k++) {
        B->start[k] += lo[k];
        if (B->ring[k])
            B->start[k] %= B->ring[k];
        B->len[k] = hi[k] - lo[k] + 1;
        B->wrap[k] = B->ring[k] && B->len[k] == B->ring[k];
        B->stride[k] = (int)nbins;
        nbins *= B->len[k];
        if (nbins > AN_MAX_BINS)
            break;
    }
    if (nbins > AN_MAX_BINS) {
        free(bc);
        topomap_an_box_free(B);
        return topomap_fail(err, errlen, E2BIG,
                            "analytic: the allocation spans more than %d network nodes",
                            AN_MAX_BINS);
    }
    B->nbins = (int)nbins;
    B->bin_node = malloc(sizeof(int) * (size_t)nbins);
    if (!B->bin_node) {
        free(bc);
        topomap_an_box_free(B);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int b = 0; b < B->nbins; b++)
        B->bin_node[b] = -1;
    for (int i = 0; i < m; i++) {
        const int *c = bc + (size_t)i * AN_MAXD;
        if (!in_box(c, gd, lo, hi))
            continue;
        int b = 0;
        for (int k = 0; k < gd; k++)
            b += (c[k] - lo[k]) * B->stride[k];
        B->bin_node[b] = B->m;
        B->node_bin[B->m] = b;
        B->node_of[B->m++] = i;
    }
    free(bc);
    return 0;
}

/* ---- groups ----------------------------------------------------------------- */

struct an {
    const struct topomap_problem *pb;
    struct an_box B;
    int m, K, c;   /* nodes, groups, largest slot count */
    int *first;    /* m: first slot of each node */
    int *cap;      /* m: slots of each node */
    int *grp;      /* n: group of each rank */
    int *size;     /* K */
    /* The quotient graph of the groups (owned arrays behind q). */
    topomap_graph_t q;
    int64_t *qx;
    int *qa;
    double *qw;
};

static void an_free(struct an *A)
{
    topomap_an_box_free(&A->B);
    free(A->first);
    free(A->cap);
    free(A->grp);
    free(A->size);
    free(A->qx);
    free(A->qa);
    free(A->qw);
}

/* Bring every group to its target size (section 3.6's greedy balancing):
 * move, from a group over target, the rank whose move to a group under
 * target adds least to the cut; to any group under target if none of its
 * neighbours' is. */
static int balance_groups(struct an *A, const int *target)
{
    const topomap_graph_t *g = &A->pb->g;
    int n = A->pb->n, K = A->K;
    double *conn = calloc((size_t)K, sizeof(double));
    int *touched = malloc(sizeof(int) * (size_t)K);
    int *xm = calloc((size_t)K + 1, sizeof(int)), *mem = malloc(sizeof(int) * (size_t)n);
    if (!conn || !touched || !xm || !mem) {
        free(conn);
        free(touched);
        free(xm);
        free(mem);
        return -1;
    }
    /* Members of each group: a group over target only loses members. */
    for (int v = 0; v < n; v++)
        xm[A->grp[v] + 1]++;
    for (int p = 0; p < K; p++)
        xm[p + 1] += xm[p];
    for (int v = 0; v < n; v++)
        mem[xm[A->grp[v]]++] = v;
    for (int p = K; p > 0; p--)
        xm[p] = xm[p - 1];
    xm[0] = 0;
    int under = 0; /* lowest group under target (scan pointer) */
    for (int p = 0; p < K; p++) {
        while (A->size[p] > target[p]) {
            int bv = -1, bq = -1;
            double bs = 0;
            while (under < K && A->size[under] >= target[under])
                under++;
            for (int i = xm[p]; i < xm[p + 1]; i++) {
                int v = mem[i];
                if (A->grp[v] != p)
                    continue;
                int nt = 0;
                double own = 0;
                for (int64_t e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
                    int gq = A->grp[g->adj[e]];
                    if (gq == p) {
                        own += g->w[e];
                    } else {
                        if (conn[gq] == 0)
                            touched[nt++] = gq;
                        conn[gq] += g->w[e];
                    }
                }
                /* Gain of each candidate destination: its links minus own. */
                int lq = under;
                double ls = -own;
                for (int tt = 0; tt < nt; tt++) {
                    int gq = touched[tt];
                    if (A->size[gq] < target[gq] && (conn[gq] - own > ls ||
                                                     (conn[gq] - own == ls && gq < lq))) {
                        ls = conn[gq] - own;
                        lq = gq;
                    }
                    conn[gq] = 0;
                }
                if (lq < K && (bv < 0 || ls > bs)) {
                    bv = v;
                    bq = lq;
                    bs = ls;
                }
            }
            if (bv < 0)
                break; /* cannot happen: sizes sum to n */
            A->grp[bv] = bq;
            A->size[p]--;
            A->size[bq]++;
        }
    }
    free(conn);
    free(touched);
    free(xm);
    free(mem);
    return 0;
}

static int make_groups(struct an *A, char *err, size_t errlen)
{
    const struct topomap_problem *pb = A->pb;
    int n = pb->n, K = A->K;
    A->grp = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    A->size = calloc((size_t)(K > 0 ? K : 1), sizeof(int));
    int *target = malloc(sizeof(int) * (size_t)(K > 0 ? K : 1));
    if (!A->grp || !A->size || !target) {
        free(target);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int p = 0; p < K; p++)
        target[p] = n / K + (p < n % K);
    int rc = 0;
    if (K == n) {
        for (int r = 0; r < n; r++)
            A->grp[r] = r;
    } else if (K == 1) {
        memset(A->grp, 0, sizeof(int) * (size_t)n);
    } else {
        const topomap_graph_t *g = &pb->g;
        int64_t ne = g->xadj[n];
        idx_t *xadj = malloc(sizeof(idx_t) * ((size_t)n + 1));
        idx_t *adj = malloc(sizeof(idx_t) * ((size_t)ne + 1));
        idx_t *wgt = malloc(sizeof(idx_t) * ((size_t)ne + 1));
        idx_t *part = malloc(sizeof(idx_t) * (size_t)n);
        real_t *tpw = malloc(sizeof(real_t) * (size_t)K);
        if (!xadj || !adj || !wgt || !part || !tpw) {
            rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        } else {
            double maxw = 0, sumw = 0;
            for (int64_t e = 0; e < ne; e++) {
                maxw = g->w[e] > maxw ? g->w[e] : maxw;
                sumw += g->w[e] > 0 ? g->w[e] : 0;
            }
            /* Integer weights as in map_drb.c: order kept, sums below 2^30. */
            double scale = maxw > 0 ? fmin((double)(1 << 20) / maxw, (double)(1 << 30) / sumw) : 0;
            int64_t k = 0;
            xadj[0] = 0;
            for (int r = 0; r < n; r++) {
                for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++)
                    if (g->w[e] > 0 && g->adj[e] != r) {
                        double w = ceil(g->w[e] * scale);
                        adj[k] = g->adj[e];
                        wgt[k++] = (idx_t)(w < 1 ? 1 : w);
                    }
                xadj[r + 1] = (idx_t)k;
            }
            for (int p = 0; p < K; p++)
                tpw[p] = (real_t)target[p] / (real_t)n;
            idx_t nv = n, ncon = 1, np = K, objval = 0, options[METIS_NOPTIONS];
            METIS_SetDefaultOptions(options);
            options[METIS_OPTION_SEED] = (idx_t)(pb->opts->seed & 0x7fffffff);
            int st = k > 0 ? topomap_metis_kway(&nv, &ncon, xadj, adj, NULL, NULL, wgt, &np, tpw,
                                                 NULL, options, &objval, part)
                           : METIS_OK;
            if (st != METIS_OK) {
                rc = topomap_fail(err, errlen, st == METIS_ERROR_MEMORY ? ENOMEM : EINVAL,
                                  "analytic: METIS_PartGraphKway failed (status %d)", st);
            } else {
                for (int r = 0; r < n; r++) {
                    /* No edges at all: ranks in order. */
                    A->grp[r] = k > 0 ? (int)part[r] : (int)((int64_t)r * K / n);
                    A->size[A->grp[r]]++;
                }
                if (balance_groups(A, target) < 0)
                    rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
            }
        }
        free(xadj);
        free(adj);
        free(wgt);
        free(part);
        free(tpw);
    }
    if (rc == 0 && (K == n || K == 1))
        for (int p = 0; p < K; p++)
            A->size[p] = target[p];
    free(target);
    return rc;
}

/* The groups' graph: weight between two groups = sum over their ranks. */
static int quotient(struct an *A)
{
    const topomap_graph_t *g = &A->pb->g;
    int n = A->pb->n, K = A->K;
    if (K == n) {
        A->q = *g;
        return 0;
    }
    /* Ranks by group, then each group's row accumulated in a dense scratch. */
    int *xr = calloc((size_t)K + 1, sizeof(int)), *rk = malloc(sizeof(int) * (size_t)n);
    double *acc = calloc((size_t)K, sizeof(double));
    int *touched = malloc(sizeof(int) * (size_t)K);
    int64_t cap = g->xadj[n] + 1;
    A->qx = malloc(sizeof(int64_t) * ((size_t)K + 1));
    A->qa = malloc(sizeof(int) * (size_t)cap);
    A->qw = malloc(sizeof(double) * (size_t)cap);
    int rc = -1;
    if (!xr || !rk || !acc || !touched || !A->qx || !A->qa || !A->qw)
        goto out;
    for (int r = 0; r < n; r++)
        xr[A->grp[r] + 1]++;
    for (int p = 0; p < K; p++)
        xr[p + 1] += xr[p];
    for (int r = 0; r < n; r++)
        rk[xr[A->grp[r]]++] = r;
    for (int p = K; p > 0; p--)
        xr[p] = xr[p - 1];
    xr[0] = 0;
    int64_t k = 0;
    for (int p = 0; p < K; p++) {
        A->qx[p] = k;
        int nt = 0;
        for (int i = xr[p]; i < xr[p + 1]; i++) {
            int r = rk[i];
            for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++) {
                int gq = A->grp[g->adj[e]];
                if (gq == p || !(g->w[e] > 0))
                    continue;
                if (acc[gq] == 0)
                    touched[nt++] = gq;
                acc[gq] += g->w[e];
            }
        }
        qsort(touched, (size_t)nt, sizeof(int), topomap_cmp_int);
        for (int i = 0; i < nt; i++) {
            A->qa[k] = touched[i];
            A->qw[k++] = acc[touched[i]];
            acc[touched[i]] = 0;
        }
    }
    A->qx[K] = k;
    A->q = (topomap_graph_t){K, A->qx, A->qa, A->qw};
    rc = 0;
out:
    free(xr);
    free(rk);
    free(acc);
    free(touched);
    return rc;
}

/* ---- fixed groups (section 3.6) ------------------------------------------------ */

/* Breadth-first order from vertex 0 (then every unvisited vertex in turn),
 * neighbours in index order: the paper's "breadth first traversal". */
static int bft_order(const topomap_graph_t *g, int *order)
{
    char *seen = calloc((size_t)g->n + 1, 1);
    if (!seen)
        return -1;
    int len = 0;
    for (int s = 0; s < g->n; s++) {
        if (seen[s])
            continue;
        int head = len;
        order[len++] = s;
        seen[s] = 1;
        while (head < len) {
            int v = order[head++];
            for (int64_t e = g->xadj[v]; e < g->xadj[v + 1]; e++)
                if (!seen[g->adj[e]]) {
                    seen[g->adj[e]] = 1;
                    order[len++] = g->adj[e];
                }
        }
    }
    free(seen);
    return 0;
}

/* fixed_bin[v] for the groups fixed at the corners, -1 for the others. */
static int fix_corners(struct an *A, int bft, int *fixed_bin, int *nfixed)
{
    const struct an_box *B = &A->B;
    int m = B->m, K = A->K, rc = -1, tmp[2 * AN_MAXD];
    /* The nodes' graph: allocated nodes joined when neighbours in the box. */
    int64_t *nx = malloc(sizeof(int64_t) * ((size_t)m + 1));
    int *na = malloc(sizeof(int) * (size_t)m * 2 * AN_MAXD + 1);
    double *nw = malloc(sizeof(double) * (size_t)m * 2 * AN_MAXD + 1);
    int *norder = malloc(sizeof(int) * (size_t)m), *npos = malloc(sizeof(int) * (size_t)m);
    int *gorder = malloc(sizeof(int) * (size_t)K);
    char *used = calloc((size_t)m, 1);
    if (!nx || !na || !nw || !norder || !npos || !gorder || !used)
        goto out;
    int64_t k = 0;
    for (int i = 0; i < m; i++) {
        nx[i] = k;
        /* The continuous domain's links, without the wraparound ones: with
         * them every torus node looks alike to RCM (doc/algorithms.md#analytic). */
        int d = topomap_an_neighbours(B, B->node_bin[i], 0, tmp);
        qsort(tmp, (size_t)d, sizeof(int), topomap_cmp_int);
        for (int t = 0; t < d; t++)
            if (B->bin_node[tmp[t]] >= 0) {
                na[k] = B->bin_node[tmp[t]];
                nw[k++] = 1;
            }
    }
    nx[m] = k;
    topomap_graph_t ng = {m, nx, na, nw};
    if (bft ? bft_order(&ng, norder) < 0 || bft_order(&A->q, gorder) < 0
            : topomap_rcm_order(&ng, norder) < 0 || topomap_rcm_order(&A->q, gorder) < 0)
        goto out;
    for (int i = 0; i < m; i++)
        npos[norder[i]] = i;
    for (int v = 0; v < K; v++)
        fixed_bin[v] = -1;
    *nfixed = 0;
    for (int corner = 0; corner < (1 << B->nd); corner++) {
        /* The allocated node nearest to this corner of the box. */
        int best = -1;
        long bd = LONG_MAX;
        for (int i = 0; i < m; i++) {
            long d = 0;
            for (int kk = 0; kk < B->nd; kk++) {
                int want = (corner >> kk & 1) ? B->len[kk] - 1 : 0;
                int x = an_coord(B, B->node_bin[i], kk) - want;
                d += x < 0 ? -x : x;
            }
            if (d < bd) {
                bd = d;
                best = i;
            }
        }
        if (best < 0 || used[best])
            continue;
        used[best] = 1;
        int idx = m > 1 ? (int)(((int64_t)npos[best] * (K - 1) + (m - 1) / 2) / (m - 1)) : 0;
        int v = gorder[idx];
        if (fixed_bin[v] >= 0)
            continue;
        fixed_bin[v] = B->node_bin[best];
        (*nfixed)++;
    }
    rc = 0;
out:
    free(nx);
    free(na);
    free(nw);
    free(norder);
    free(npos);
    free(gorder);
    free(used);
    return rc;
}

/* ---- ranks on slots ----------------------------------------------------------- */

/* Group v's ranks on the slots of allocation node vnode[v]; ranks beyond a
 * node's slots on the nearest node with a free slot. 0, or -1 on out of
 * memory. */
static int assign_slots(struct an *A, const int *vnode, int *r2s)
{
    const struct topomap_problem *pb = A->pb;
    int n = pb->n, m = A->m;
    int *used = calloc((size_t)m, sizeof(int));
    if (!used)
        return -1;
    for (int r = 0; r < n; r++) {
        int i = vnode[A->grp[r]];
        r2s[r] = used[i] < A->cap[i] ? A->first[i] + used[i]++ : -1;
    }
    for (int r = 0; r < n; r++) {
        if (r2s[r] >= 0)
            continue;
        int from = pb->slot_node[A->first[vnode[A->grp[r]]]], best = -1, bh = INT_MAX;
        for (int i = 0; i < m; i++)
            if (used[i] < A->cap[i]) {
                int h = topomap_topology_hops(pb->topo, from, pb->slot_node[A->first[i]]);
                if (h < bh) {
                    bh = h;
                    best = i;
                }
            }
        r2s[r] = A->first[best] + used[best]++;
    }
    free(used);
    return 0;
}

static int analytic(const struct topomap_problem *pb, int bft, int anchored, int *r2s, char *err,
                    size_t errlen)
{
    struct an A;
    memset(&A, 0, sizeof A);
    A.pb = pb;
    int n = pb->n, rc = -1, nfixed = 0;
    int *fixed_bin = NULL, *vbin = NULL, *vnode = NULL;
    double *pos = NULL, t0 = topomap_now();
    int m = 0;
    for (int s = 0; s < pb->nslots; s++)
        m += s == 0 || pb->slot_node[s] != pb->slot_node[s - 1];
    A.m = m;
    A.first = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    A.cap = calloc((size_t)(m > 0 ? m : 1), sizeof(int));
    if (!A.first || !A.cap) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    for (int s = 0, i = -1; s < pb->nslots; s++) {
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1])
            A.first[++i] = s;
        A.cap[i]++;
        A.c = A.cap[i] > A.c ? A.cap[i] : A.c;
    }
    if (n == 0) {
        rc = 0;
        goto out;
    }
    A.K = (n + A.c - 1) / A.c;
    if (topomap_an_box_init(&A.B, pb, A.K, err, errlen) < 0)
        goto out;
    if (make_groups(&A, err, errlen) < 0)
        goto out;
    if (quotient(&A) < 0) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    fixed_bin = malloc(sizeof(int) * (size_t)A.K);
    vbin = malloc(sizeof(int) * (size_t)A.K);
    vnode = malloc(sizeof(int) * (size_t)A.K);
    pos = malloc(sizeof(double) * (size_t)A.K * (size_t)A.B.nd);
    if (!fixed_bin || !vbin || !vnode || !pos || fix_corners(&A, bft, fixed_bin, &nfixed) < 0) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    topomap_log(pb, "analytic: %d groups of up to %d ranks on %d nodes (box of %d bins), %d fixed",
                A.K, A.c, A.B.m, A.B.nbins, nfixed);
    struct an_global_stats gs;
    if (topomap_an_global(pb, &A.q, &A.B, fixed_bin, anchored ? 1 : AN_GAMMA, AN_MAX_ITER,
                          anchored, pos, &gs, err, errlen) < 0)
        goto out;
    double t1 = topomap_now();
    for (int v = 0; v < A.K; v++)
        vbin[v] = an_pos_bin(&A.B, pos + (size_t)v * (size_t)A.B.nd);
    struct an_legal_stats ls;
    if (topomap_an_legalize(pb, &A.q, &A.B, vbin, &ls, err, errlen) < 0)
        goto out;
    double t2 = topomap_now();
    topomap_log(pb,
                "analytic: global mapping %d iterations (largest bin load %d%s) %.2f s; "
                "legalization %d rounds, %ld moves%s %.2f s, group hop-bytes %.6g",
                gs.iterations, gs.max_load, gs.legal ? ", almost legal" : "", t1 - t0, ls.rounds,
                ls.moves, ls.fallback ? " (safety net used)" : "", t2 - t1, ls.hop_bytes);
    for (int v = 0; v < A.K; v++)
        vnode[v] = A.B.node_of[A.B.bin_node[vbin[v]]];
    if (assign_slots(&A, vnode, r2s) < 0) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    struct topomap_refine_params rp = {0, pb->deadline, REFINE_MIN_GAIN, TOPOMAP_REFINE_AUTO};
    rc = topomap_refine(pb, r2s, &rp, NULL, err, errlen);
out:
    free(fixed_bin);
    free(vbin);
    free(vnode);
    free(pos);
    an_free(&A);
    return rc;
}

int topomap_map_analytic(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return analytic(pb, 0, 0, r2s, err, errlen);
}

int topomap_map_analytic_bft(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return analytic(pb, 1, 0, r2s, err, errlen);
}

int topomap_map_analytic_anchor(const struct topomap_problem *pb, int *r2s, char *err,
                                size_t errlen)
{
    return analytic(pb, 0, 1, r2s, err, errlen);
}
