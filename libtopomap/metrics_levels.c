/* SPDX-License-Identifier: BSD-3-Clause */
/* The traffic of a placement split by level (topomap_traffic_split()): the
 * bytes two ranks exchange inside one core, NUMA domain, socket, node, leaf
 * switch, or beyond. Bordage & Jeannot (2017, section 4.4) found the traffic
 * by level of the hierarchy the statistic best correlated with the gains of
 * a placement on fat-trees. The leaf switch of a node is the first element
 * of its routes (topomap_topology_route()) when that is a switch: the leaf
 * switch of a tree, the chip half of Tianhe-3; on tori and meshes the nodes
 * route themselves and there is no such category.
 *
 * Node types with different levels: the categories inside a node are
 * counted from the core up. Category c (0 < c < the most levels of a type)
 * holds the pairs whose deepest common object is c levels above the core,
 * named after that level in every type that has it ("numa", or
 * "socket/numa" when types name it differently); a pair on a node of fewer
 * levels that shares only the node is in "node". With one type this is the
 * node's own list of levels, as before. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The name of category c (1 .. nl - 1: c levels above the core; 0: the
 * core) over all node types: their names joined by '/', each once. */
static void category_name(const topomap_topology_t *t, int c, char *name, size_t size)
{
    name[0] = 0;
    for (int ty = 0; ty < topomap_topology_ntypes(t); ty++) {
        int tnl = topomap_topology_type_nlevels(t, ty);
        if (c >= tnl)
            continue;
        const char *nm = topomap_topology_type_level_name(t, ty, tnl - 1 - c);
        size_t len = strlen(nm), at = 0, used = strlen(name);
        int seen = 0;
        while (at < used && !seen) { /* nm already listed? */
            size_t end = at + strcspn(name + at, "/");
            seen = end - at == len && !strncmp(name + at, nm, len);
            at = end + 1;
        }
        if (!seen)
            snprintf(name + used, size - used, "%s%s", used ? "/" : "", nm);
    }
}

/* The first switch on node v's routes, or -1 (no switch, or a lone node). */
static int leaf_switch(const topomap_topology_t *t, int v, int *elems, int max)
{
    int nn = topomap_topology_nnodes(t);
    if (nn < 2)
        return -1;
    int h = topomap_topology_route(t, v, v == 0 ? 1 : 0, elems, max);
    return h >= 1 && elems[1] >= nn ? elems[1] : -1;
}

int topomap_traffic_split(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                          const int *core, topomap_traffic_split_t *s)
{
    if (!p || !t || !node || !core || !s) {
        errno = EINVAL;
        return -1;
    }
    topomap_graph_t g;
    if (topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) < 0)
        return -1;
    int n = g.n, nn = topomap_topology_nnodes(t);
    int nl = topomap_topology_node_nlevels(t); /* the most of any type */
    for (int r = 0; r < n; r++)
        if (node[r] < 0 || node[r] >= nn || core[r] < 0 ||
            core[r] >= topomap_topology_node_cores(t, node[r])) {
            errno = EINVAL;
            return -1;
        }
    int switches = topomap_topology_leaf_switches(t);
    memset(s, 0, sizeof *s);
    /* Categories: 0 the core, 1 .. nl-1 the node levels nl-2 .. 0, nl the
     * node, then the leaf switch (networks with switches) and beyond. */
    s->n = nl + 2 + switches;
    if (s->n > TOPOMAP_SPLIT_MAX) {
        errno = EINVAL;
        return -1;
    }
    for (int c = 0; c < nl; c++)
        category_name(t, c, s->name[c], sizeof s->name[c]);
    snprintf(s->name[nl], sizeof s->name[0], "node");
    if (switches)
        snprintf(s->name[nl + 1], sizeof s->name[0], "leaf_switch");
    snprintf(s->name[s->n - 1], sizeof s->name[0], "beyond");

    int *leaf = NULL, *elems = NULL;
    if (switches) {
        int max = topomap_topology_route_max(t) + 1;
        leaf = malloc(sizeof(int) * (size_t)nn);
        elems = malloc(sizeof(int) * (size_t)max);
        if (!leaf || !elems) {
            free(leaf), free(elems);
            errno = ENOMEM;
            return -1;
        }
        for (int v = 0; v < nn; v++)
            leaf[v] = -2; /* not looked up yet */
        for (int r = 0; r < n; r++)
            if (leaf[node[r]] == -2)
                leaf[node[r]] = leaf_switch(t, node[r], elems, max);
    }
    for (int i = 0; i < n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++) {
            int j = g.adj[e], c;
            if (node[i] != node[j]) {
                c = switches && leaf[node[i]] >= 0 && leaf[node[i]] == leaf[node[j]] ? nl + 1
                                                                                      : s->n - 1;
            } else {
                /* The first node level whose objects differ: k = 0 the node,
                 * k >= 1 the object of level k - 1; none: the core. Counted
                 * from the core: tnl - k levels above it. */
                int ty = topomap_topology_node_type(t, node[i]);
                int tnl = topomap_topology_type_nlevels(t, ty), k = 0;
                while (k < tnl && topomap_topology_type_object(t, ty, k, core[i]) ==
                                      topomap_topology_type_object(t, ty, k, core[j]))
                    k++;
                c = k == 0 ? nl : tnl - k;
            }
            s->bytes[c] += g.w[e];
        }
    free(leaf), free(elems);
    return 0;
}
