/* SPDX-License-Identifier: BSD-3-Clause */
/* The pair-exchange engine (struct topomap_xchg, see internal.h): the state
 * that every algorithm improving a mapping by exchanges needs: OHTMA's second
 * phase (Li et al. 2020, section 4.3, Algorithm 1 lines 20-35, in
 * ohtma_exchange.c), the refinement of refine.c run after any algorithm by
 * `topomap map --refine`, the whole-node exchanges of refine_groups.c and the
 * iterated local search of refine_ils.c.
 *
 * Hop-bytes (eq. 1 of the OHTMA paper) only depend on the node each rank
 * sits on, so slots are grouped by node and everything is computed per group.
 * With the symmetric graph g = A + A^T (no diagonal: self traffic costs
 * nothing wherever the rank is), cost[i] = sum_l g_il hops(grp(i), grp(l))
 * and hop-bytes = sum_i cost[i] / 2. Exchanging the contents of slots s1 (on
 * group a, rank i or nothing) and s2 (group b, rank j or nothing) saves
 *
 *   gain = (x_i + x_j) - 2 g_ij hops(a, b),  x_i = cost[i] - D(i, b),
 *                                            x_j = cost[j] - D(j, a),
 *
 * where D(i, b) = sum_l g_il hops(b, grp(l)) is what rank i would cost on b
 * with everyone else in place (x = 0 for an empty slot). The last term
 * corrects for the edge between i and j, whose length does not change.
 * Exchanging touches only i, j and their neighbours: O(degree).
 *
 * The near lists (x->near, the groups closest to each group) are built here
 * too: the searches of refine.c, refine_groups.c, refine_ils.c and the
 * spectral mapping's APE all read them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "xchg.h"

/* Largest node count for which a hop table (ngrp^2 bytes) is kept: 4096
 * nodes = 16 MiB. Beyond it the topology is asked each time (same hops). */
#define HOP_TABLE_MAX_GROUPS 4096

void topomap_xchg_free(struct topomap_xchg *x)
{
    if (!x)
        return;
    free(x->slot_grp);
    free(x->grp_node);
    free(x->grp_xslot);
    free(x->grp_slot);
    free(x->hop);
    free(x->r2s);
    free(x->s2r);
    free(x->rgrp);
    free(x->cost);
    free(x->wdeg);
    free(x->near_x);
    free(x->near);
    free(x->gcrd);
    memset(x, 0, sizeof *x);
}

/* Decide whether hops are known to obey the triangle inequality, which lets
 * the refinement skip groups that cannot attract a rank. Tori, meshes and the
 * Tianhe-3 table do (hop counts of shortest routes); for anything else we
 * accept the sufficient condition that every positive hop count lies within
 * a factor two of the smallest one, which trees with arbitrary per-level hop
 * counts may not meet (then no pruning: slower, same result). */
static int detect_metric(const struct topomap_xchg *x)
{
    if (topomap_topology_shortest_hops(x->pb->topo))
        return 1;
    if (!x->hop)
        return 0;
    int hmin = 256, hmax = 0;
    size_t nn = (size_t)x->ngrp * (size_t)x->ngrp;
    for (size_t k = 0; k < nn; k++) {
        int h = x->hop[k];
        if (h > 0 && h < hmin)
            hmin = h;
        if (h > hmax)
            hmax = h;
    }
    return hmax <= 2 * hmin;
}

int topomap_xchg_init(struct topomap_xchg *x, const struct topomap_problem *pb, char *err,
                      size_t errlen)
{
    return topomap_xchg_init_table(x, pb, 1, err, errlen);
}

int topomap_xchg_init_table(struct topomap_xchg *x, const struct topomap_problem *pb,
                            int hop_table, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    x->pb = pb;
    x->n = pb->n;
    x->nslots = pb->nslots;
    int n = pb->n, ns = pb->nslots;
    int nn = topomap_topology_nnodes(pb->topo);
    int *node_grp = malloc(sizeof(int) * (size_t)(nn > 0 ? nn : 1));
    x->slot_grp = malloc(sizeof(int) * (size_t)ns);
    x->grp_node = malloc(sizeof(int) * (size_t)ns);
    x->grp_xslot = calloc((size_t)ns + 1, sizeof(int));
    x->grp_slot = malloc(sizeof(int) * (size_t)ns);
    x->r2s = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    x->s2r = malloc(sizeof(int) * (size_t)ns);
    x->rgrp = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    x->cost = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    x->wdeg = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    if (!node_grp || !x->slot_grp || !x->grp_node || !x->grp_xslot || !x->grp_slot || !x->r2s ||
        !x->s2r || !x->rgrp || !x->cost || !x->wdeg) {
        free(node_grp);
        topomap_xchg_free(x);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int v = 0; v < nn; v++)
        node_grp[v] = -1;
    /* Groups in order of their first slot; slots of a group ascending. */
    for (int s = 0; s < ns; s++) {
        int v = pb->slot_node[s];
        if (node_grp[v] < 0) {
            node_grp[v] = x->ngrp;
            x->grp_node[x->ngrp++] = v;
        }
        x->slot_grp[s] = node_grp[v];
        x->grp_xslot[node_grp[v] + 1]++;
    }
    free(node_grp);
    for (int u = 0; u < x->ngrp; u++)
        x->grp_xslot[u + 1] += x->grp_xslot[u];
    int *fill = malloc(sizeof(int) * (size_t)x->ngrp);
    if (!fill) {
        topomap_xchg_free(x);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    memcpy(fill, x->grp_xslot, sizeof(int) * (size_t)x->ngrp);
    for (int s = 0; s < ns; s++)
        x->grp_slot[fill[x->slot_grp[s]]++] = s;
    free(fill);

    int ng = x->ngrp;
    if (hop_table && ng <= HOP_TABLE_MAX_GROUPS && topomap_topology_diameter(pb->topo) <= 255) {
        x->hop = malloc((size_t)ng * (size_t)ng);
        /* Tori and meshes: from the coordinates (the same values, without
         * the topology's call and checks: 8x faster at 4096 nodes). */
        int dims[TOPOMAP_XCHG_DIMS], wrap[TOPOMAP_XCHG_DIMS];
        int gd = x->hop ? topomap_topology_grid(pb->topo, dims, wrap, TOPOMAP_XCHG_DIMS) : 0;
        int *crd = gd > 0 && gd <= TOPOMAP_XCHG_DIMS ? malloc(sizeof(int) * (size_t)ng * (size_t)gd)
                                                     : NULL;
        if (crd)
            for (int u = 0; u < ng; u++)
                topomap_topology_coords(pb->topo, x->grp_node[u], crd + (size_t)u * (size_t)gd, gd);
        if (x->hop) {
            const topomap_topology_t *t = pb->topo;
            const int *gn = x->grp_node;
            unsigned char *hop = x->hop;
#pragma omp parallel for schedule(static) if (ng > 256)
            for (int a = 0; a < ng; a++)
                for (int b = 0; b < ng; b++)
                    hop[(size_t)a * (size_t)ng + (size_t)b] =
                        crd ? (unsigned char)topomap_coord_hops(crd + (size_t)a * (size_t)gd,
                                                                crd + (size_t)b * (size_t)gd,
                                                                dims, wrap, gd)
                            : (unsigned char)topomap_topology_hops(t, gn[a], gn[b]);
        }
        free(crd);
        /* Without memory for the table we fall back to asking the topology. */
    }
    int nd = x->hop ? 0 : topomap_topology_grid(pb->topo, x->gdims, x->gwrap, TOPOMAP_XCHG_DIMS);
    if (nd > 0 && nd <= TOPOMAP_XCHG_DIMS) {
        x->gcrd = malloc(sizeof(int) * (size_t)ng * (size_t)nd);
        if (!x->gcrd) {
            topomap_xchg_free(x);
            return topomap_fail(err, errlen, ENOMEM, "out of memory");
        }
        for (int u = 0; u < ng; u++)
            topomap_topology_coords(pb->topo, x->grp_node[u], x->gcrd + (size_t)u * (size_t)nd,
                                    nd);
        x->gnd = nd;
    }
    x->metric = detect_metric(x);
    const topomap_graph_t *g = &pb->g;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += g->w[e];
        x->wdeg[i] = s;
        x->r2s[i] = -1;
        x->rgrp[i] = -1;
    }
    for (int s = 0; s < ns; s++)
        x->s2r[s] = -1;
    return 0;
}

double topomap_xchg_cost_at(const struct topomap_xchg *x, int i, int grp)
{
    const topomap_graph_t *g = &x->pb->g;
    const int *rgrp = x->rgrp;
    double s = 0;
    if (x->hop) {
        const unsigned char *h = x->hop + (size_t)grp * (size_t)x->ngrp;
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += g->w[e] * (double)h[rgrp[g->adj[e]]];
    } else if (x->gnd == 3) {
        /* topomap_coord_hops unrolled for three dimensions, this rank's
         * coordinates and the limits read once (the hot loop of ohtma-fast
         * and the refinement on large tori; same values). Calling
         * topomap_coord_hops with nd = 3 here was 10-15% slower over the
         * whole of ohtma-fast at 4096 nodes, measured. */
        const int *ca = x->gcrd + (size_t)grp * 3;
        int a0 = ca[0], a1 = ca[1], a2 = ca[2];
        int n0 = x->gdims[0], n1 = x->gdims[1], n2 = x->gdims[2];
        int h0 = x->gwrap[0] ? n0 : 1 << 30, h1 = x->gwrap[1] ? n1 : 1 << 30,
            h2 = x->gwrap[2] ? n2 : 1 << 30;
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
            const int *cb = x->gcrd + (size_t)rgrp[g->adj[e]] * 3;
            int d0 = abs(a0 - cb[0]), d1 = abs(a1 - cb[1]), d2 = abs(a2 - cb[2]);
            d0 = 2 * d0 > h0 ? n0 - d0 : d0;
            d1 = 2 * d1 > h1 ? n1 - d1 : d1;
            d2 = 2 * d2 > h2 ? n2 - d2 : d2;
            s += g->w[e] * (double)(d0 + d1 + d2);
        }
    } else {
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += g->w[e] * (double)topomap_xchg_hops(x, grp, rgrp[g->adj[e]]);
    }
    return s;
}

void topomap_xchg_place(struct topomap_xchg *x, const int *r2s)
{
    for (int s = 0; s < x->nslots; s++)
        x->s2r[s] = -1;
    for (int i = 0; i < x->n; i++) {
        x->r2s[i] = r2s[i];
        x->s2r[r2s[i]] = i;
        x->rgrp[i] = x->slot_grp[r2s[i]];
    }
    int n = x->n;
#pragma omp parallel for schedule(static) if (n > 4096)
    for (int i = 0; i < n; i++)
        x->cost[i] = topomap_xchg_cost_at(x, i, x->rgrp[i]);
}

double topomap_xchg_weight(const struct topomap_xchg *x, int i, int j)
{
    const topomap_graph_t *g = &x->pb->g;
    int64_t e = topomap_adj_find(g->xadj, g->adj, i, j);
    return e >= 0 ? g->w[e] : 0.0;
}

/* The gain of exchanging slots s1 and s2, and in *scale the size of the
 * terms it was computed from (for the rounding threshold). */
double topomap_xchg_slot_gain(const struct topomap_xchg *x, int s1, int s2, double *scale)
{
    int a = x->slot_grp[s1], b = x->slot_grp[s2];
    int r1 = x->s2r[s1], r2 = x->s2r[s2];
    *scale = 0;
    if (a == b)
        return 0;
    double x1 = 0, x2 = 0, gh = 0;
    if (r1 >= 0) {
        double d = topomap_xchg_cost_at(x, r1, b);
        x1 = x->cost[r1] - d;
        *scale += x->cost[r1] + d;
    }
    if (r2 >= 0) {
        double d = topomap_xchg_cost_at(x, r2, a);
        x2 = x->cost[r2] - d;
        *scale += x->cost[r2] + d;
    }
    if (r1 >= 0 && r2 >= 0)
        gh = topomap_xchg_weight(x, r1, r2) * (double)topomap_xchg_hops(x, a, b);
    return (x1 + x2) - 2.0 * gh;
}

double topomap_xchg_gain(const struct topomap_xchg *x, int s1, int s2)
{
    double scale;
    return topomap_xchg_slot_gain(x, s1, s2, &scale);
}

/* Rank r moved from group from to group to: adjust its neighbours' costs
 * (except other, which moved too and is recomputed). */
static void moved(struct topomap_xchg *x, int r, int from, int to, int other)
{
    const topomap_graph_t *g = &x->pb->g;
    for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++) {
        int l = g->adj[e];
        if (l == other)
            continue;
        int gl = x->rgrp[l];
        x->cost[l] += g->w[e] * (double)(topomap_xchg_hops(x, gl, to) -
                                         topomap_xchg_hops(x, gl, from));
    }
}

void topomap_xchg_swap(struct topomap_xchg *x, int s1, int s2)
{
    int a = x->slot_grp[s1], b = x->slot_grp[s2];
    int r1 = x->s2r[s1], r2 = x->s2r[s2];
    x->s2r[s1] = r2;
    x->s2r[s2] = r1;
    if (r1 >= 0) {
        x->r2s[r1] = s2;
        x->rgrp[r1] = b;
    }
    if (r2 >= 0) {
        x->r2s[r2] = s1;
        x->rgrp[r2] = a;
    }
    if (a == b)
        return;
    if (r1 >= 0)
        moved(x, r1, a, b, r2);
    if (r2 >= 0)
        moved(x, r2, b, a, r1);
    if (r1 >= 0)
        x->cost[r1] = topomap_xchg_cost_at(x, r1, b);
    if (r2 >= 0)
        x->cost[r2] = topomap_xchg_cost_at(x, r2, a);
}

double topomap_xchg_hop_bytes(const struct topomap_xchg *x)
{
    double s = 0;
    for (int i = 0; i < x->n; i++)
        s += topomap_xchg_cost_at(x, i, x->rgrp[i]);
    return s / 2;
}

/* ---- near lists ------------------------------------------------------------ */

/* x->near: for every group, up to TOPOMAP_XCHG_NEAR_MAX groups closest to it in the
 * network. Tori and meshes: the nodes one hop away along each dimension that
 * are allocated. Other networks with a hop table: the closest groups, ties to
 * the nearest in allocation order (Slurm allocates neighbouring nodes
 * consecutively). Without a table (huge non-grid allocations): none, the
 * search then covers the neighbours' groups only. */
#define NEAR_DIMS 16 /* torus/mesh dimensions read for the coordinate lists */

/* 1 when near lists come from coordinates (tori and meshes whose 2 x dims
 * neighbours fit in a list), 0 when they need the hop table. */
int topomap_xchg_near_coords(const topomap_topology_t *t)
{
    int dims[NEAR_DIMS], wrap[NEAR_DIMS];
    int nd = topomap_topology_grid(t, dims, wrap, NEAR_DIMS);
    return nd > 0 && 2 * nd <= TOPOMAP_XCHG_NEAR_MAX;
}

static int build_near(struct topomap_xchg *x)
{
    int ng = x->ngrp;
    x->near_x = calloc((size_t)ng + 1, sizeof(int));
    x->near = malloc(sizeof(int) * (size_t)ng * TOPOMAP_XCHG_NEAR_MAX + 1);
    if (!x->near_x || !x->near)
        return -1;
    const topomap_topology_t *t = x->pb->topo;
    int dims[NEAR_DIMS], wrap[NEAR_DIMS];
    int nd = topomap_xchg_near_coords(t) ? topomap_topology_grid(t, dims, wrap, NEAR_DIMS) : 0;
    if (nd > 0) {
        int nn = topomap_topology_nnodes(t);
        int *node_grp = malloc(sizeof(int) * (size_t)nn);
        if (!node_grp)
            return -1;
        for (int v = 0; v < nn; v++)
            node_grp[v] = -1;
        for (int u = 0; u < ng; u++)
            node_grp[x->grp_node[u]] = u;
        int cnt = 0;
        for (int u = 0; u < ng; u++) {
            int c[NEAR_DIMS];
            topomap_topology_coords(t, x->grp_node[u], c, NEAR_DIMS);
            for (int k = 0; k < nd; k++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    int v = c[k] + dir;
                    if (v < 0 || v >= dims[k]) {
                        if (!wrap[k])
                            continue;
                        v = (v + dims[k]) % dims[k];
                    }
                    if (v == c[k])
                        continue;
                    /* Node index = x0 + d0 * (x1 + d1 * (...)). */
                    int node = 0;
                    for (int q = nd - 1; q >= 0; q--)
                        node = node * dims[q] + (q == k ? v : c[q]);
                    int gu = node_grp[node];
                    int dup = 0;
                    for (int z = x->near_x[u]; z < cnt && !dup; z++)
                        dup = x->near[z] == gu;
                    if (gu >= 0 && gu != u && !dup)
                        x->near[cnt++] = gu;
                }
            x->near_x[u + 1] = cnt;
        }
        free(node_grp);
        return 0;
    }
    if (!x->hop)
        return 0; /* near_x all zero */
#pragma omp parallel for schedule(dynamic, 16) if (ng > 256)
    for (int u = 0; u < ng; u++) {
        int *lst = x->near + (size_t)u * TOPOMAP_XCHG_NEAR_MAX, cnt = 0;
        const unsigned char *h = x->hop + (size_t)u * (size_t)ng;
        /* Insertion into a bounded list ordered by (hops, |b - u|, b). */
        for (int b = 0; b < ng; b++) {
            if (b == u)
                continue;
            int pos = cnt;
            while (pos > 0) {
                int o = lst[pos - 1];
                int ob = o > u ? o - u : u - o, nb = b > u ? b - u : u - b;
                if (h[o] < h[b] || (h[o] == h[b] && (ob < nb || (ob == nb && o < b))))
                    break;
                pos--;
            }
            if (pos >= TOPOMAP_XCHG_NEAR_MAX)
                continue;
            if (cnt < TOPOMAP_XCHG_NEAR_MAX)
                cnt++;
            memmove(lst + pos + 1, lst + pos, sizeof(int) * (size_t)(cnt - 1 - pos));
            lst[pos] = b;
        }
        x->near_x[u + 1] = cnt; /* a count for now */
    }
    /* Counts to offsets, compacting the fixed-size blocks in place. */
    int off = 0;
    for (int u = 0; u < ng; u++) {
        int cnt = x->near_x[u + 1];
        memmove(x->near + off, x->near + (size_t)u * TOPOMAP_XCHG_NEAR_MAX, sizeof(int) * (size_t)cnt);
        x->near_x[u] = off;
        off += cnt;
    }
    x->near_x[ng] = off;
    return 0;
}

int topomap_xchg_near(struct topomap_xchg *x)
{
    return x->near_x ? 0 : build_near(x);
}
