/* SPDX-License-Identifier: BSD-3-Clause */
/* Tree networks (fat-trees seen as trees of switches: every switch and node
 * has one parent, so a fat-tree whose switches have several parents is
 * described by one of its spanning trees).
 *  - Regular trees: nlevels switch levels, arity[k] children per switch of
 *    level k (level 0 = the top switch), a hop count per level of the lowest
 *    common switch. Node index = mixed radix, last level fastest, so nodes
 *    under one leaf switch are consecutive. O(levels) per distance.
 *  - Irregular trees (imported from a Slurm topology.conf, topo_slurmconf.c):
 *    switches with parent links; the distance is the number of links from one
 *    node up to the lowest common switch and down to the other, i.e. 2 x the
 *    levels climbed in a balanced tree. O(depth) per distance. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

/* Routes (for congestion, libtopomap/congestion.c) are up-down: from the source
 * node up to the lowest common switch, then down to the destination. With
 * one parent per element the route is unique. Elements are the nodes, then
 * the switches; every element but the top one has a cable to its parent,
 * whose two directions are channels 2 e (up, e -> parent) and 2 e + 1 (down,
 * parent -> e). The route has 2 x (levels climbed) channels, which is the
 * hop count unless a YAML `hops` value says otherwise. */

/* ---- regular trees ------------------------------------------------------ */

static int tree_hops(const topomap_topology_t *t, int a, int b)
{
    const struct topo_tree *T = &t->u.tree;
    /* The first level where a and b go to different children. */
    for (int k = 0; k < T->nlevels - 1; k++)
        if (a / T->below[k] != b / T->below[k])
            return T->hops[k];
    return T->hops[T->nlevels - 1];
}

static int tree_diameter(const topomap_topology_t *t)
{
    const struct topo_tree *T = &t->u.tree;
    int d = 0;
    for (int k = 0; k < T->nlevels; k++)
        if (T->arity[k] > 1 && T->hops[k] > d)
            d = T->hops[k];
    return d;
}

static int tree_coords(const topomap_topology_t *t, int node, int *coords, int maxdims)
{
    const struct topo_tree *T = &t->u.tree;
    /* The switch at each level (numbered within its level), then the port. */
    for (int k = 0; k < T->nlevels && k < maxdims; k++)
        coords[k] = node / (T->below[k] * T->arity[k]);
    if (T->nlevels < maxdims)
        coords[T->nlevels] = node % T->arity[T->nlevels - 1];
    return T->nlevels + 1;
}

static int tree_describe(const topomap_topology_t *t, FILE *f)
{
    const struct topo_tree *T = &t->u.tree;
    fprintf(f, "switch levels: %d, from the top: arity", T->nlevels);
    for (int k = 0; k < T->nlevels; k++)
        fprintf(f, " %d", T->arity[k]);
    fprintf(f, "; hops by level of the lowest common switch:");
    for (int k = 0; k < T->nlevels; k++)
        fprintf(f, " %d", T->hops[k]);
    fprintf(f, "\n");
    int tapered = 0;
    for (int k = 0; k < T->nlevels; k++)
        tapered |= T->bandwidth[k] > 0;
    if (tapered) {
        fprintf(f, "bandwidth by level, bytes/s (0: link_bandwidth):");
        for (int k = 0; k < T->nlevels; k++)
            fprintf(f, " %g", T->bandwidth[k]);
        fprintf(f, "\n");
    }
    return 0;
}

/* Element number of the level-k switch above node x (switches are numbered
 * level by level from the top, in node order inside a level). */
static int tree_switch(const struct topo_tree *T, int k, int x)
{
    return T->first[k] + x / (T->below[k] * T->arity[k]);
}

static void tree_channels(const topomap_topology_t *t, int *nswitches, int *route_max)
{
    const struct topo_tree *T = &t->u.tree;
    *nswitches = T->first[T->nlevels - 1] - t->nnodes + t->nnodes / T->arity[T->nlevels - 1];
    *route_max = 2 * T->nlevels;
}

static int tree_route(const topomap_topology_t *t, int a, int b, int64_t *chan)
{
    const struct topo_tree *T = &t->u.tree;
    int L = T->nlevels, k = L - 1;
    /* k: the level of the lowest common switch (as in tree_hops). */
    for (int l = 0; l < L - 1; l++)
        if (a / T->below[l] != b / T->below[l]) {
            k = l;
            break;
        }
    /* Up the cables of a and of its switches of levels L-1 .. k+1, then
     * down those of b's switches of levels k+1 .. L-1 and of b. */
    int h = 0;
    chan[h++] = 2 * (int64_t)a;
    for (int l = L - 1; l > k; l--)
        chan[h++] = 2 * (int64_t)tree_switch(T, l, a);
    for (int l = k + 1; l < L; l++)
        chan[h++] = 2 * (int64_t)tree_switch(T, l, b) + 1;
    chan[h++] = 2 * (int64_t)b + 1;
    return h;
}

/* The level of the switch above element e (a node or a switch). */
static int tree_parent_level(const topomap_topology_t *t, int e)
{
    const struct topo_tree *T = &t->u.tree;
    if (e < t->nnodes)
        return T->nlevels - 1;
    int k = T->nlevels - 1;
    while (e < T->first[k])
        k--;
    return k - 1;
}

static void tree_channel_ends(const topomap_topology_t *t, int64_t c, int *from, int *to)
{
    const struct topo_tree *T = &t->u.tree;
    int e = (int)(c / 2), parent, k = tree_parent_level(t, e);
    if (e < t->nnodes)
        parent = tree_switch(T, T->nlevels - 1, e);
    else /* switch j of level k + 1 sits under switch j / arity[k] of level k */
        parent = T->first[k] + (e - T->first[k + 1]) / T->arity[k];
    *from = c % 2 ? parent : e;
    *to = c % 2 ? e : parent;
}

/* A cable's bandwidth is the one of the level of its upper switch
 * (tapering: fewer bytes per second higher up). */
static double tree_bandwidth(const topomap_topology_t *t, int64_t c)
{
    double bw = t->u.tree.bandwidth[tree_parent_level(t, (int)(c / 2))];
    return bw > 0 ? bw : t->link_bandwidth;
}

static int tree_group_levels(const topomap_topology_t *t)
{
    return t->u.tree.nlevels;
}

static const struct topo_ops tree_ops = {
    .shape = TOPOMAP_SHAPE_TREE,
    .hops = tree_hops,
    .diameter = tree_diameter,
    .coords = tree_coords,
    .describe = tree_describe,
    .channels = tree_channels,
    .route = tree_route,
    .channel_ends = tree_channel_ends,
    .channel_bandwidth = tree_bandwidth,
    .group_levels = tree_group_levels,
};

int topo_tree_count(int nlevels, const int *arity, const int *hops, char *err, size_t errlen)
{
    if (nlevels < 1 || nlevels > TOPO_MAX_LEVELS || !arity || !hops)
        return topomap_fail(err, errlen, EINVAL, "a tree needs 1..%d switch levels, not %d",
                            TOPO_MAX_LEVELS, nlevels);
    long n = 1;
    for (int k = 0; k < nlevels; k++) {
        if (arity[k] < 1)
            return topomap_fail(err, errlen, EINVAL, "tree level %d: arity must be >= 1, not %d",
                                k, arity[k]);
        if (hops[k] < 1)
            return topomap_fail(err, errlen, EINVAL, "tree level %d: hops must be >= 1, not %d",
                                k, hops[k]);
        n *= arity[k];
        if (n > TOPO_MAX_NODES)
            return topomap_fail(err, errlen, EINVAL, "more than %d nodes", TOPO_MAX_NODES);
    }
    return (int)n;
}

topomap_topology_t *topo_tree_build(int nlevels, const int *arity, const int *hops, int cores,
                                    topomap_hostlist_t *names, char *err, size_t errlen)
{
    int n = topo_tree_count(nlevels, arity, hops, err, errlen);
    if (n < 0) {
        topomap_hostlist_free(names);
        return NULL;
    }
    topomap_topology_t *t = topo_new(&tree_ops, "fat-tree", n, names, err, errlen);
    if (!t)
        return NULL;
    struct topo_tree *T = &t->u.tree;
    T->nlevels = nlevels;
    int below = 1;
    for (int k = nlevels - 1; k >= 0; k--) {
        T->arity[k] = arity[k];
        T->hops[k] = hops[k];
        T->below[k] = below;
        below *= arity[k];
    }
    /* Level k has arity[0] x ... x arity[k-1] switches (one at the top). */
    int count = 1;
    T->first[0] = n;
    for (int k = 1; k < nlevels; k++) {
        T->first[k] = T->first[k - 1] + count;
        count *= arity[k - 1];
    }
    return topo_finish(t, cores, err, errlen);
}

topomap_topology_t *topomap_topology_tree(int nlevels, const int *arity, const int *hops,
                                          int cores, const char *hostlist, char *err,
                                          size_t errlen)
{
    topomap_hostlist_t *names = NULL;
    if (hostlist && !(names = topomap_hostlist_parse(hostlist, err, errlen)))
        return NULL;
    return topo_tree_build(nlevels, arity, hops, cores, names, err, errlen);
}

/* ---- irregular trees ---------------------------------------------------- */

static int itree_hops(const topomap_topology_t *t, int a, int b)
{
    const struct topo_itree *T = &t->u.itree;
    const int *parent = T->parent, *depth = T->depth;
    int sa = T->leaf[a], sb = T->leaf[b], h = 2; /* node -> switch, switch -> node */
    while (depth[sa] > depth[sb]) {
        sa = parent[sa];
        h++;
    }
    while (depth[sb] > depth[sa]) {
        sb = parent[sb];
        h++;
    }
    while (sa != sb) {
        sa = parent[sa];
        sb = parent[sb];
        h += 2;
    }
    return h;
}

static int itree_diameter(const topomap_topology_t *t)
{
    return t->u.itree.diameter;
}

static int itree_coords(const topomap_topology_t *t, int node, int *coords, int maxdims)
{
    const struct topo_itree *T = &t->u.itree;
    /* The switches from the top down (numbered in definition order), then
     * the port: the length varies with the depth of the node. */
    int s = T->leaf[node], d = T->depth[s];
    if (d + 1 < maxdims)
        coords[d + 1] = T->port[node];
    for (; s >= 0; s = T->parent[s])
        if (T->depth[s] < maxdims)
            coords[T->depth[s]] = s;
    return d + 2;
}

/* Blocks: the levels with their hop counts (topo_slurmblock.c). */
static void block_describe(const struct topo_itree *T, FILE *f)
{
    long b0 = T->bsize[0];
    fprintf(f, "blocks: %d (Slurm topology/block), base block size %ld%s; hops: 2 in a block",
            T->nblocks, b0, T->sizes_given ? "" : " (the smallest block: no BlockSizes)");
    for (int k = 1; k < T->nbsizes; k++)
        fprintf(f, ", %d in %s of %ld nodes (%ld blocks)", 2 * (k + 1),
                k == 1 ? "an aggregated block" : "one", T->bsize[k], T->bsize[k] / b0);
    if (T->bsize[T->nbsizes - 1] / b0 < T->nblocks) /* a root above the last level */
        fprintf(f, ", %d between %s", 2 * (T->nbsizes + 1),
                T->nbsizes == 1 ? "blocks" : "those");
    fprintf(f, "\n");
}

static int itree_describe(const topomap_topology_t *t, FILE *f)
{
    const struct topo_itree *T = &t->u.itree;
    if (T->from == TOPO_FROM_BLOCK) {
        block_describe(T, f);
        return 0;
    }
    if (T->from == TOPO_FROM_FLAT) {
        fprintf(f, "flat (Slurm topology/flat): one switch over all nodes, 2 hops between any "
                   "two\n");
        return 0;
    }
    fprintf(f, "switches: %d%s, nodes at depth up to %d; hops = links up to the lowest common "
               "switch and down (2 under one switch)\n",
            T->nsw, T->virtual_root ? " (top switches joined by a virtual root)" : "",
            T->maxdepth);
    return 0;
}

static void itree_destroy(topomap_topology_t *t)
{
    struct topo_itree *T = &t->u.itree;
    for (int s = 0; T->swname && s < T->nsw; s++)
        free(T->swname[s]);
    free(T->swname);
    free(T->parent);
    free(T->depth);
    free(T->leaf);
    free(T->port);
}

static void itree_channels(const topomap_topology_t *t, int *nswitches, int *route_max)
{
    *nswitches = t->u.itree.nsw;
    *route_max = 2 * t->u.itree.maxdepth;
}

/* Switch s is element nnodes + s; the parent of a node is its leaf switch. */
static int itree_route(const topomap_topology_t *t, int a, int b, int64_t *chan)
{
    const struct topo_itree *T = &t->u.itree;
    const int *parent = T->parent, *depth = T->depth;
    int n = t->nnodes, sa = T->leaf[a], sb = T->leaf[b], la = 1, lb = 1;
    /* The lowest common switch and the cables climbed on each side (as in
     * itree_hops): la up cables from a, lb from b, counting the nodes'. */
    while (depth[sa] > depth[sb]) {
        sa = parent[sa];
        la++;
    }
    while (depth[sb] > depth[sa]) {
        sb = parent[sb];
        lb++;
    }
    while (sa != sb) {
        sa = parent[sa];
        sb = parent[sb];
        la++;
        lb++;
    }
    /* Up from a: its cable, then its switches' below the common one. Down
     * to b: the same elements of b's side, written from the end backwards. */
    int e = a;
    for (int i = 0; i < la; i++) {
        chan[i] = 2 * (int64_t)e;
        e = n + (e < n ? T->leaf[e] : parent[e - n]);
    }
    e = b;
    for (int i = 0; i < lb; i++) {
        chan[la + lb - 1 - i] = 2 * (int64_t)e + 1;
        e = n + (e < n ? T->leaf[e] : parent[e - n]);
    }
    return la + lb;
}

static void itree_channel_ends(const topomap_topology_t *t, int64_t c, int *from, int *to)
{
    const struct topo_itree *T = &t->u.itree;
    int e = (int)(c / 2), n = t->nnodes;
    int parent = n + (e < n ? T->leaf[e] : T->parent[e - n]);
    *from = c % 2 ? parent : e;
    *to = c % 2 ? e : parent;
}

const struct topo_ops topo_itree_ops = {
    .shape = TOPOMAP_SHAPE_TREE,
    .hops = itree_hops,
    .diameter = itree_diameter,
    .coords = itree_coords,
    .describe = itree_describe,
    .destroy = itree_destroy,
    .channels = itree_channels,
    .route = itree_route,
    .channel_ends = itree_channel_ends,
};

int topo_itree_prepare(topomap_topology_t *t, char *err, size_t errlen)
{
    struct topo_itree *T = &t->u.itree;
    int nsw = T->nsw;
    /* best[s]: deepest node under s; second[s]: deepest in another branch. */
    int *best = malloc(sizeof(int) * (size_t)nsw), *second = malloc(sizeof(int) * (size_t)nsw);
    int *order = malloc(sizeof(int) * (size_t)nsw);
    if (!best || !second || !order) {
        free(best);
        free(second);
        free(order);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int s = 0; s < nsw; s++)
        best[s] = second[s] = -1;
    /* Every node is one candidate branch of its switch. */
    T->maxdepth = 0;
    for (int i = 0; i < t->nnodes; i++) {
        int s = T->leaf[i], d = T->depth[s] + 1;
        if (d > T->maxdepth)
            T->maxdepth = d;
        if (d > best[s]) {
            second[s] = best[s];
            best[s] = d;
        } else if (d > second[s]) {
            second[s] = d;
        }
    }
    /* Children before parents: sort switches by decreasing depth (counting). */
    int maxd = 0;
    for (int s = 0; s < nsw; s++)
        if (T->depth[s] > maxd)
            maxd = T->depth[s];
    int k = 0;
    for (int d = maxd; d >= 0; d--)
        for (int s = 0; s < nsw; s++)
            if (T->depth[s] == d)
                order[k++] = s;
    int diam = 0;
    for (int i = 0; i < nsw; i++) {
        int s = order[i];
        if (second[s] >= 0 && best[s] + second[s] - 2 * T->depth[s] > diam)
            diam = best[s] + second[s] - 2 * T->depth[s];
        int p = T->parent[s];
        if (p >= 0 && best[s] >= 0) {
            if (best[s] > best[p]) {
                second[p] = best[p];
                best[p] = best[s];
            } else if (best[s] > second[p]) {
                second[p] = best[s];
            }
        }
    }
    T->diameter = diam;
    free(best);
    free(second);
    free(order);
    return 0;
}
