/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine seen as one tree of levels, for treematch (map_treematch.c),
 * the node-internal placement (node_place.c) and the traffic split by level
 * (metrics_levels.c): the switch levels of a tree network from the top down,
 * then the node, then the node's own levels (socket, NUMA, core).
 *
 * A Slurm topology.conf tree may be unbalanced (nodes at several depths).
 * Every node is then given the depth of the deepest one by unary "pad"
 * levels between its switch and itself: they change no distance (a pad has
 * one child) and let every level of the tree hold one kind of object. */
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

int topomap_topology_net_depth(const topomap_topology_t *t)
{
    if (strcmp(t->kind, "fat-tree") != 0)
        return -1;
    if (t->ops == &topo_itree_ops)
        return t->u.itree.maxdepth;
    return t->u.tree.nlevels;
}

void topomap_topology_net_path(const topomap_topology_t *t, int node, int *keys)
{
    if (t->ops == &topo_itree_ops) {
        const struct topo_itree *T = &t->u.itree;
        int s = T->leaf[node], d = T->depth[s];
        /* Pads below the node's switch: one per node, numbered after the
         * switches so that they never meet a switch key under one parent. */
        for (int k = d + 1; k < T->maxdepth; k++)
            keys[k] = T->nsw + node;
        for (; s >= 0; s = T->parent[s])
            keys[T->depth[s]] = s;
        return;
    }
    const struct topo_tree *T = &t->u.tree;
    /* Level 0 is the top switch; level k's switch numbered within its level. */
    for (int k = 0; k < T->nlevels; k++)
        keys[k] = node / (T->below[k] * T->arity[k]);
}

int topomap_topology_node_nlevels(const topomap_topology_t *t)
{
    int nl = 0;
    for (int i = 0; i < t->ntypes; i++)
        if (t->types[i].nlevels > nl)
            nl = t->types[i].nlevels;
    return nl;
}

int topomap_topology_node_object(const topomap_topology_t *t, int k, int core)
{
    return core / t->types[0].inner[k];
}

const char *topomap_topology_level_name(const topomap_topology_t *t, int k)
{
    return k >= 0 && k < t->types[0].nlevels ? t->types[0].level_name[k] : NULL;
}

int topomap_topology_type_nlevels(const topomap_topology_t *t, int type)
{
    return t->types[type].nlevels;
}

int topomap_topology_type_object(const topomap_topology_t *t, int type, int k, int core)
{
    return core / t->types[type].inner[k];
}

const char *topomap_topology_type_level_name(const topomap_topology_t *t, int type, int k)
{
    const struct topo_ntype *ty = &t->types[type];
    return k >= 0 && k < ty->nlevels ? ty->level_name[k] : NULL;
}
