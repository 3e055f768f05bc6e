/* SPDX-License-Identifier: BSD-3-Clause */
/* Tree networks (fat-trees seen as trees of switches).
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
    return 0;
}

static const struct topo_ops tree_ops = {
    tree_hops, tree_diameter, tree_coords, tree_describe, NULL,
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

static int itree_describe(const topomap_topology_t *t, FILE *f)
{
    const struct topo_itree *T = &t->u.itree;
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

const struct topo_ops topo_itree_ops = {
    itree_hops, itree_diameter, itree_coords, itree_describe, itree_destroy,
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
