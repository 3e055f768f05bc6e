/* SPDX-License-Identifier: BSD-3-Clause */
/* The tree treematch works on: the machine restricted to the slots of an
 * allocation (map_treematch.c, node_place.c). Every slot gets its path of
 * keys from the root (switches of the tree network, pads of an unbalanced
 * topology.conf, the node, the node's levels, the slot; topo_levels.c); the
 * slots sorted by path give the vertices level by level in tree order, and
 * a vertex has no empty subtree by construction. Nodes of several types
 * with different numbers of levels: a node's levels are the deepest ones
 * (its cores at the core level of every other node), with unary pads above
 * them up to the node; they change no distance, as the pads of an
 * unbalanced topology.conf (topo_levels.c). Shapes are interned bottom
 * up: a vertex's shape is its sorted list of children shapes. Cost O(S x
 * depth x log S) for S slots, memory O(S x depth). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "treematch.h"

void tm_tree_free(struct tm_tree *T)
{
    if (!T)
        return;
    for (int d = 0; d <= T->depth; d++) {
        if (T->cx && d < T->depth)
            free(T->cx[d]);
        if (T->shape)
            free(T->shape[d]);
    }
    free(T->cx);
    free(T->shape);
    free(T->nv);
    free(T->leaf_slot);
    free(T->name);
    memset(T, 0, sizeof *T);
}

/* A slot's path, for sorting (qsort without global state). */
struct path {
    const int *key;
    int len;
};

static int cmp_path(const void *a, const void *b)
{
    const struct path *x = a, *y = b;
    for (int k = 0; k < x->len; k++)
        if (x->key[k] != y->key[k])
            return x->key[k] < y->key[k] ? -1 : 1;
    return 0;
}

/* A vertex's signature (its children's shapes, sorted), for interning. */
struct sig {
    const int *s;
    int len, v;
};

static int cmp_sig(const void *a, const void *b)
{
    const struct sig *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    for (int k = 0; k < x->len; k++)
        if (x->s[k] != y->s[k])
            return x->s[k] < y->s[k] ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* shape[d][v] from the shapes of level d + 1. 0, or -1 on ENOMEM. */
static int intern_shapes(struct tm_tree *T, int d)
{
    int nv = T->nv[d], nc = T->nv[d + 1];
    int *sorted = malloc(sizeof(int) * (size_t)(nc > 0 ? nc : 1));
    struct sig *sg = malloc(sizeof *sg * (size_t)(nv > 0 ? nv : 1));
    if (!sorted || !sg) {
        free(sorted);
        free(sg);
        return -1;
    }
    memcpy(sorted, T->shape[d + 1], sizeof(int) * (size_t)nc);
    for (int v = 0; v < nv; v++) {
        int lo = T->cx[d][v], hi = T->cx[d][v + 1];
        qsort(sorted + lo, (size_t)(hi - lo), sizeof(int), topomap_cmp_int);
        sg[v] = (struct sig){sorted + lo, hi - lo, v};
    }
    qsort(sg, (size_t)nv, sizeof *sg, cmp_sig);
    int id = -1;
    for (int i = 0; i < nv; i++) {
        if (i == 0 || sg[i].len != sg[i - 1].len ||
            memcmp(sg[i].s, sg[i - 1].s, sizeof(int) * (size_t)sg[i].len) != 0)
            id++;
        T->shape[d][sg[i].v] = id;
    }
    free(sorted);
    free(sg);
    return 0;
}

int tm_tree_build(struct tm_tree *T, const struct topomap_problem *pb, const int *slots, int ns,
                  int whole)
{
    const topomap_topology_t *t = pb->topo;
    memset(T, 0, sizeof *T);
    int netd = whole ? topomap_topology_net_depth(t) : 0;
    int nl = topomap_topology_node_nlevels(t); /* the most of any type */
    if (netd < 0 || ns < 1 || netd + nl + 2 > TM_MAX_DEPTH) {
        errno = EINVAL;
        return -1;
    }
    /* Levels: [switches 0 .. netd-1,] node, node levels 0 .. nl-1, slot. */
    int depth = netd + nl + 1, len = depth + 1;
    int *keys = malloc(sizeof(int) * (size_t)ns * (size_t)len);
    struct path *P = malloc(sizeof *P * (size_t)ns);
    T->depth = depth;
    T->nv = calloc((size_t)len, sizeof(int));
    T->cx = calloc((size_t)depth, sizeof(int *));
    T->shape = calloc((size_t)len, sizeof(int *));
    T->leaf_slot = malloc(sizeof(int) * (size_t)ns);
    T->name = malloc(sizeof(char *) * (size_t)len);
    if (!keys || !P || !T->nv || !T->cx || !T->shape || !T->leaf_slot || !T->name)
        goto nomem;
    int one = topomap_topology_ntypes(t) == 1;
    for (int d = 0; d < len; d++) {
        T->name[d] = d < netd ? "switch" : d == netd ? "node" : d == depth ? "slot"
                     : one ? topomap_topology_level_name(t, d - netd - 1) : "level";
    }
    for (int i = 0; i < ns; i++) {
        int s = slots[i], node = pb->slot_node[s], core = pb->slot_core[s];
        int ty = one ? 0 : topomap_topology_node_type(t, node);
        int tnl = topomap_topology_type_nlevels(t, ty), pad = nl - tnl;
        int *k = keys + (size_t)i * (size_t)len;
        if (whole)
            topomap_topology_net_path(t, node, k);
        k[netd] = node;
        for (int l = 0; l < pad; l++)
            k[netd + 1 + l] = 0; /* one pad per node: the node key above tells them apart */
        for (int l = 0; l < tnl; l++)
            k[netd + 1 + pad + l] = topomap_topology_type_object(t, ty, l, core);
        k[depth] = s;
        P[i] = (struct path){k, len};
    }
    qsort(P, (size_t)ns, sizeof *P, cmp_path);
    /* first[i]: the shallowest level where slot i starts a new vertex (its
     * path leaves the previous slot's there); it starts one at every deeper
     * level too. */
    int *first = malloc(sizeof(int) * (size_t)ns);
    if (!first)
        goto nomem;
    for (int i = 0; i < ns; i++) {
        int f = 0;
        if (i > 0)
            while (f < len && P[i].key[f] == P[i - 1].key[f])
                f++;
        first[i] = f; /* < len: slots differ */
        for (int d = f; d < len; d++)
            T->nv[d]++;
    }
    if (T->nv[0] != 1) { /* one root: the top switch (or the virtual root), or the node */
        free(first);
        free(keys);
        free(P);
        tm_tree_free(T);
        errno = EINVAL;
        return -1;
    }
    for (int d = 0; d < len; d++) {
        if (!(T->shape[d] = calloc((size_t)T->nv[d], sizeof(int))) ||
            (d < depth && !(T->cx[d] = malloc(sizeof(int) * ((size_t)T->nv[d] + 1))))) {
            free(first);
            goto nomem;
        }
    }
    /* Children ranges: a vertex of level d started by slot i has as first
     * child the vertex of level d + 1 that slot i starts too. */
    int cur[TM_MAX_DEPTH];
    for (int d = 0; d < len; d++)
        cur[d] = -1;
    for (int i = 0; i < ns; i++)
        for (int d = first[i]; d < len; d++) {
            cur[d]++;
            if (d < depth)
                T->cx[d][cur[d]] = cur[d + 1] + 1;
        }
    for (int d = 0; d < depth; d++)
        T->cx[d][T->nv[d]] = T->nv[d + 1];
    free(first);
    for (int i = 0; i < ns; i++)
        T->leaf_slot[i] = P[i].key[depth];
    for (int d = depth - 1; d >= 0; d--)
        if (intern_shapes(T, d) < 0)
            goto nomem;
    free(keys);
    free(P);
    return 0;
nomem:
    free(keys);
    free(P);
    tm_tree_free(T);
    errno = ENOMEM;
    return -1;
}
