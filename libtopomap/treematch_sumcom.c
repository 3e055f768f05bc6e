/* SPDX-License-Identifier: BSD-3-Clause */
/* The SumCom refinement of any mapping on a tree network (ours): the level
 * refinement of TreeMatch (treematch_refine.c) applied, level by level from
 * the top, to a mapping made by any algorithm. At level l, the processes
 * under each vertex are one entity (the traffic between vertices summed,
 * tm_aggregate()), entities are exchanged between vertices of one shape
 * while SumCom falls (tm_level_refine()), and every exchanged subtree's
 * processes move to the matching leaves of the other (children paired by
 * shape, in order). It sees what the hop-bytes engine of refine.c cannot:
 * the node's levels, and moves of whole groups (a socket's ranks between
 * two nodes). `auto` runs it on the mapping it keeps when the network is a
 * tree and the nodes have levels. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "treematch.h"

/* The children of vertex v (level l) sorted by (shape, index) into out. */
static void sorted_children(const struct tm_tree *T, int l, int v, int64_t *key, int *out)
{
    int a = T->cx[l][v], n = T->cx[l][v + 1] - a;
    int64_t big = T->nv[l + 1];
    for (int i = 0; i < n; i++)
        key[i] = (int64_t)T->shape[l + 1][a + i] * big + a + i;
    qsort(key, (size_t)n, sizeof *key, topomap_cmp_i64);
    for (int i = 0; i < n; i++)
        out[i] = (int)(key[i] % big);
}

/* The subtree of src[i] moves onto that of dst[i] (level l, np pairs, the
 * same shapes): leaf contents lv[] are carried down the pairs. */
static int carry(const struct tm_tree *T, int l, int np, int *src, int *dst, int *lv)
{
    int maxv = 0;
    for (int d = l; d <= T->depth; d++)
        if (T->nv[d] > maxv)
            maxv = T->nv[d];
    int *ns = malloc(sizeof(int) * (size_t)maxv), *nd = malloc(sizeof(int) * (size_t)maxv);
    int *cs = malloc(sizeof(int) * (size_t)maxv), *cd = malloc(sizeof(int) * (size_t)maxv);
    int64_t *key = malloc(sizeof(int64_t) * (size_t)maxv);
    int *old = malloc(sizeof(int) * (size_t)T->nv[T->depth]);
    if (!ns || !nd || !cs || !cd || !key || !old) {
        free(ns), free(nd), free(cs), free(cd), free(key), free(old);
        errno = ENOMEM;
        return -1;
    }
    for (; l < T->depth; l++) {
        int m = 0;
        for (int i = 0; i < np; i++) {
            if (src[i] == dst[i])
                continue; /* stays: its subtree too */
            int n = T->cx[l][src[i] + 1] - T->cx[l][src[i]];
            sorted_children(T, l, src[i], key, cs);
            sorted_children(T, l, dst[i], key, cd);
            for (int c = 0; c < n; c++) {
                ns[m] = cs[c];
                nd[m++] = cd[c];
            }
        }
        memcpy(src, ns, sizeof(int) * (size_t)m);
        memcpy(dst, nd, sizeof(int) * (size_t)m);
        np = m;
    }
    memcpy(old, lv, sizeof(int) * (size_t)T->nv[T->depth]);
    for (int i = 0; i < np; i++)
        lv[dst[i]] = old[src[i]];
    free(ns), free(nd), free(cs), free(cd), free(key), free(old);
    return 0;
}

int topomap_refine_sumcom(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    if (topomap_topology_net_depth(pb->topo) < 0 || pb->n < 2)
        return 0;
    int ns = pb->nslots, n = pb->n, rc = -1;
    int *slots = malloc(sizeof(int) * (size_t)ns), *leaf_of_slot = malloc(sizeof(int) * (size_t)ns);
    struct tm_tree T;
    memset(&T, 0, sizeof T);
    int *lv = NULL, *grp = NULL, *at = NULL, *src = NULL, *dst = NULL;
    int64_t *xadj = NULL;
    if (!slots || !leaf_of_slot)
        goto nomem;
    for (int s = 0; s < ns; s++)
        slots[s] = s;
    if (tm_tree_build(&T, pb, slots, ns, 1) < 0)
        goto nomem;
    int L = T.depth;
    lv = malloc(sizeof(int) * (size_t)ns);      /* leaf -> process, or dummy n + k */
    grp = malloc(sizeof(int) * (size_t)ns);     /* process (and dummy) -> vertex of level l */
    at = malloc(sizeof(int) * (size_t)ns);
    src = malloc(sizeof(int) * (size_t)ns);
    dst = malloc(sizeof(int) * (size_t)ns);
    xadj = malloc(sizeof(int64_t) * ((size_t)ns + 1));
    if (!lv || !grp || !at || !src || !dst || !xadj)
        goto nomem;
    for (int x = 0; x < ns; x++) {
        leaf_of_slot[T.leaf_slot[x]] = x;
        lv[x] = -1;
    }
    for (int r = 0; r < n; r++)
        lv[leaf_of_slot[r2s[r]]] = r;
    for (int x = 0, k = n; x < ns; x++)
        if (lv[x] < 0)
            lv[x] = k++; /* free slots hold dummies */
    /* The processes' graph with the dummies (no edges). */
    for (int e = 0; e <= ns; e++)
        xadj[e] = pb->g.xadj[e < n ? e : n];
    topomap_graph_t g = {ns, xadj, pb->g.adj, pb->g.w};
    for (int l = 1; l <= L; l++) {
        if (topomap_expired(pb))
            break;
        if (T.nv[l] == T.nv[l - 1])
            continue; /* one child each above: the level above again */
        /* Entities: the processes under each vertex of level l. */
        int nv = T.nv[l];
#pragma omp parallel for num_threads(topomap_par_threads(ns)) schedule(static)
        for (int x = 0; x < ns; x++) {
            int v = x;
            for (int d = L; d > l; d--) {
                /* parent of v at level d - 1: binary search in cx[d - 1] */
                const int *cx = T.cx[d - 1];
                int lo = 0, hi = T.nv[d - 1] - 1;
                while (lo < hi) {
                    int mid = (lo + hi + 1) / 2;
                    if (cx[mid] <= v)
                        lo = mid;
                    else
                        hi = mid - 1;
                }
                v = lo;
            }
            grp[lv[x]] = v;
        }
        topomap_graph_t agg;
        if (tm_aggregate(&g, grp, nv, &agg) < 0)
            goto nomem;
        for (int v = 0; v < nv; v++)
            at[v] = v;
        int r = tm_level_refine(&T, l, &agg, at, pb, TM_REFINE_PASSES);
        tm_graph_free(&agg);
        if (r < 0)
            goto nomem;
        /* Entity e (the subtree of vertex e) now sits on the vertex v with
         * at[v] = e. */
        int np = 0;
        for (int v = 0; v < nv; v++) {
            src[np] = at[v];
            dst[np++] = v;
        }
        if (carry(&T, l, np, src, dst, lv) < 0)
            goto nomem;
    }
    for (int x = 0; x < ns; x++)
        if (lv[x] < n)
            r2s[lv[x]] = T.leaf_slot[x];
    rc = 0;
    goto out;
nomem:
    rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
out:
    tm_tree_free(&T);
    free(slots), free(leaf_of_slot), free(lv), free(grp), free(at), free(src), free(dst), free(xadj);
    return rc;
}
