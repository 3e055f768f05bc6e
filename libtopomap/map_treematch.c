/* SPDX-License-Identifier: BSD-3-Clause */
/* treematch: TreeMatch (Jeannot, Mercier & Tessier, "Process placement in
 * multicore clusters: algorithmic issues and practical techniques", IEEE
 * TPDS 25(4), 2014; first in Jeannot & Mercier, Euro-Par 2010), on the whole
 * machine: the switch levels of a tree network (fat-tree YAML or Slurm
 * topology.conf), the nodes, the nodes' levels (package, NUMA, core) and the
 * slots, restricted to the allocation (treematch_tree.c).
 *
 * The paper's Algorithm 1, bottom-up: at each level, from the leaves up, the
 * entities (processes first) are grouped into groups of the arity of the
 * level above so that as much traffic as possible stays inside the groups
 * (GroupProcesses, treematch_group.c), and the communication matrix is
 * aggregated to the groups (AggregateComMatrix); the groups are the
 * entities of the next level. Then MapGroups, top-down: the root's group on
 * the root, each group's members on the children of the vertex it sits on.
 *
 * Departures from the paper, on purpose:
 *  - the paper's tree is balanced (every vertex of a level has the same
 *    arity) and a process count that does not fill it is completed by
 *    dummy processes level by level (ExtendComMatrix). The allocation's
 *    tree is not balanced in general (a scattered allocation, a last node
 *    partly used, an unbalanced topology.conf), so the groups of a level are
 *    formed one per vertex of that level, each of that vertex's arity and of
 *    the shapes of its children (a group formed for a subtree can only go
 *    to an isomorphic one); dummy processes, which send nothing, fill every
 *    slot the job does not use, at the leaves. Where every vertex of a level
 *    is alike the grouping is the paper's; elsewhere it is the greedy growth
 *    with the children's shapes as constraints (treematch_group.c);
 *  - the affinity is the symmetric A + A^T of the profile (as every
 *    algorithm here), the matrix is sparse (CSR) at every level: memory is
 *    O(edges + slots x levels), no n x n matrix (the paper's dense matrix of
 *    the processes would take 32 GiB at 65,536 ranks).
 * The tree is ordered (switches, nodes, cores ascending), ties go to the
 * lowest entity, so the result depends only on the inputs.
 *
 * That is `treematch-paper`. `treematch` (ours) replaces the bottom-up
 * grouping, which meets the costly network levels last, by a top-down
 * split of the tree down to the cores (treematch_kpart.c), then places each
 * node's processes with the better of TreeMatch's grouping (tm_match() on
 * the node's subtree, with our refinements: treematch_group.c,
 * treematch_refine.c) and that split (node_place.c), then runs the SumCom
 * refinement of every level (treematch_sumcom.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "treematch.h"

/* The kind of level d: 1 every vertex has one child; 2 every vertex has the
 * same shape whose children are all alike (the paper's case: arity *k);
 * 0 otherwise. need: the sorted children shapes of every vertex. */
static int level_kind(const struct tm_tree *T, int d, const int *need, int *k)
{
    int nv = T->nv[d];
    const int *cx = T->cx[d];
    int unary = 1, classic = 1;
    *k = cx[1] - cx[0];
    for (int v = 0; v < nv; v++) {
        int a = cx[v + 1] - cx[v];
        unary &= a == 1;
        classic &= a == *k && T->shape[d][v] == T->shape[d][0] && need[cx[v]] == need[cx[v + 1] - 1];
    }
    return unary ? 1 : classic ? 2 : 0;
}

int tm_match(const struct tm_tree *T, const topomap_graph_t *g, int n, int improve,
             const struct topomap_problem *pb, int quiet, int *leaf_of, char *err, size_t errlen)
{
    int L = T->depth, m = T->nv[L];
    if (n > m)
        return topomap_fail(err, errlen, EINVAL, "treematch: %d processes for %d leaves", n, m);
    int **grp = calloc((size_t)L, sizeof(int *));
    /* improve: the graph of every level's entities, for the level
     * refinement on the way down (treematch_refine.c). */
    topomap_graph_t *keep = improve ? calloc((size_t)L + 1, sizeof *keep) : NULL;
    int64_t *xadj = malloc(sizeof(int64_t) * ((size_t)m + 1));
    int *need = NULL, *at = NULL, *nat = NULL, *tmp = NULL;
    int64_t *key = NULL;
    topomap_graph_t cur = {0}, next;
    int rc = -1, owned = 0;
    if (!grp || !xadj || (improve && !keep))
        goto nomem;
    /* The leaves' entities: the processes, then the dummies (no edges). */
    for (int e = 0; e <= m; e++)
        xadj[e] = g->xadj[e < n ? e : n];
    cur = (topomap_graph_t){m, xadj, g->adj, g->w};
    const int *eshape = T->shape[L];
    int maxv = 0;
    for (int d = 0; d <= L; d++)
        if (T->nv[d] > maxv)
            maxv = T->nv[d];
    need = malloc(sizeof(int) * (size_t)maxv);
    tmp = malloc(sizeof(int) * (size_t)maxv);
    key = malloc(sizeof(int64_t) * (size_t)maxv);
    if (!need || !tmp || !key)
        goto nomem;

    /* Bottom-up: group the entities of level d + 1 into one group per
     * vertex of level d, then aggregate. */
    for (int d = L - 1; d >= 0; d--) {
        if (!quiet && topomap_expired(pb)) {
            rc = topomap_fail(err, errlen, ETIMEDOUT, "treematch: time limit reached");
            goto out;
        }
        int nv = T->nv[d], ne = T->nv[d + 1], k, method = TM_UNARY;
        const int *cx = T->cx[d];
        if (!(grp[d] = malloc(sizeof(int) * (size_t)ne)))
            goto nomem;
        for (int c = 0; c < ne; c++)
            need[c] = T->shape[d + 1][c];
        for (int v = 0; v < nv; v++)
            for (int a = cx[v] + 1; a < cx[v + 1]; a++) /* short ranges: insertion sort */
                for (int b = a; b > cx[v] && need[b - 1] > need[b]; b--) {
                    int t = need[b];
                    need[b] = need[b - 1];
                    need[b - 1] = t;
                }
        int kind = level_kind(T, d, need, &k);
        if (kind == 1) {
            /* Unary vertices: vertices sorted by their child's shape take
             * the entities sorted by shape, in order. */
            int64_t *vk = malloc(sizeof(int64_t) * (size_t)nv);
            if (!vk)
                goto nomem;
            for (int v = 0; v < nv; v++)
                vk[v] = (int64_t)need[cx[v]] * nv + v;
            for (int e = 0; e < ne; e++)
                key[e] = (int64_t)eshape[e] * ne + e;
            qsort(vk, (size_t)nv, sizeof *vk, topomap_cmp_i64);
            qsort(key, (size_t)ne, sizeof *key, topomap_cmp_i64);
            for (int q = 0; q < nv; q++)
                grp[d][key[q] % ne] = (int)(vk[q] % nv);
            free(vk);
        } else if (kind == 2) {
            /* The paper's case: every group k alike entities; the groups
             * go to the (alike) vertices in order. */
            if (tm_group_classic(&cur, k, grp[d], &method) < 0)
                goto nomem;
        } else {
            method = TM_GREEDY;
            if (tm_group_shaped(&cur, eshape, nv, cx, need, grp[d]) < 0)
                goto nomem;
        }
        if (improve && method != TM_EXACT && method != TM_UNARY &&
            tm_group_refine(&cur, eshape, nv, grp[d], TM_REFINE_PASSES) < 0)
            goto nomem;
        if (!quiet) {
            int amax = 0;
            for (int v = 0; v < nv; v++)
                if (cx[v + 1] - cx[v] > amax)
                    amax = cx[v + 1] - cx[v];
            topomap_log(pb, "treematch: level %d (%s): %d entities in %d groups of %s%d, %s", d,
                        T->name[d], ne, nv, kind ? "" : "up to ", amax, tm_method_name(method));
        }
        if (d > 0) {
            if (tm_aggregate(&cur, grp[d], nv, &next) < 0)
                goto nomem;
        } else {
            next = (topomap_graph_t){0};
        }
        if (keep)
            keep[d + 1] = cur; /* freed at the end (the leaves' xadj too) */
        else if (owned)
            tm_graph_free(&cur);
        else
            free(xadj);
        xadj = NULL;
        cur = next;
        owned = 1;
        eshape = T->shape[d];
    }

    /* MapGroups, top-down: at[x] = the group (entity) on vertex x of level
     * d; its members go to x's children, shape by shape in order. */
    at = malloc(sizeof(int) * (size_t)maxv);
    nat = malloc(sizeof(int) * (size_t)maxv);
    int *mx = malloc(sizeof(int) * ((size_t)maxv + 1));
    int64_t *mk = malloc(sizeof(int64_t) * (size_t)maxv);
    if (!at || !nat || !mx || !mk) {
        free(mx), free(mk);
        goto nomem;
    }
    at[0] = 0;
    for (int d = 0; d < L; d++) {
        int nv = T->nv[d], ne = T->nv[d + 1];
        const int *cs = T->shape[d + 1], *es = cs; /* an entity has its template's shape */
        /* Members of each group sorted by (shape, entity): mx / mk. */
        memset(mx, 0, sizeof(int) * ((size_t)nv + 1));
        for (int e = 0; e < ne; e++)
            mx[grp[d][e] + 1]++;
        for (int v = 0; v < nv; v++)
            mx[v + 1] += mx[v];
        for (int v = 0; v < nv; v++)
            tmp[v] = mx[v];
        for (int e = 0; e < ne; e++)
            mk[tmp[grp[d][e]]++] = (int64_t)es[e] * ne + e;
        for (int v = 0; v < nv; v++)
            qsort(mk + mx[v], (size_t)(mx[v + 1] - mx[v]), sizeof *mk, topomap_cmp_i64);
        for (int x = 0; x < nv; x++) {
            int t = at[x], lo = T->cx[d][x], hi = T->cx[d][x + 1];
            for (int c = lo; c < hi; c++)
                key[c - lo] = (int64_t)cs[c] * ne + c;
            qsort(key, (size_t)(hi - lo), sizeof *key, topomap_cmp_i64);
            for (int q = 0; q < hi - lo; q++)
                nat[key[q] % ne] = (int)(mk[mx[t] + q] % ne);
        }
        /* Below a level of one child each, level d + 1 is level d again;
         * past the deadline the rest goes unrefined (a valid mapping). */
        int copy = (d > 0 && T->nv[d] == T->nv[d + 1]) || (!quiet && topomap_expired(pb));
        double t0 = topomap_now();
        if (keep && !copy && tm_level_refine(T, d + 1, &keep[d + 1], nat, pb, TM_REFINE_PASSES) < 0) {
            free(mx), free(mk);
            goto nomem;
        }
        if (keep && !copy && !quiet)
            topomap_log(pb, "treematch: level %d (%s) refined in %.3f s", d + 1, T->name[d + 1],
                        topomap_now() - t0);
        int *sw = at;
        at = nat;
        nat = sw;
    }
    free(mx), free(mk);
    for (int x = 0; x < m; x++)
        if (at[x] < n)
            leaf_of[at[x]] = x;
    rc = 0;
    goto out;
nomem:
    rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
out:
    if (owned)
        tm_graph_free(&cur);
    else
        free(xadj);
    for (int d = 1; keep && d <= L; d++) {
        if (d == L) /* the leaves' adj and w are the caller's */
            free((void *)keep[d].xadj);
        else
            tm_graph_free(&keep[d]);
    }
    free(keep);
    for (int d = 0; grp && d < L; d++)
        free(grp[d]);
    free(grp), free(need), free(tmp), free(key), free(at), free(nat);
    return rc;
}

/* treematch (improve = 1) and treematch-paper (0) on the whole machine. */
static int map_tm(const struct topomap_problem *pb, int improve, int *r2s, char *err,
                  size_t errlen)
{
    const topomap_topology_t *t = pb->topo;
    if (topomap_topology_net_depth(t) < 0)
        return topomap_fail(err, errlen, ENOTSUP,
                            "treematch needs a tree network (a fat-tree or a Slurm topology.conf), "
                            "not a %s", topomap_topology_kind(t));
    int ns = pb->nslots;
    int *slots = malloc(sizeof(int) * (size_t)ns), *leaf_of = malloc(sizeof(int) * (size_t)(pb->n + 1));
    struct tm_tree T;
    if (!slots || !leaf_of) {
        free(slots), free(leaf_of);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int s = 0; s < ns; s++)
        slots[s] = s;
    int rc = -1;
    if (tm_tree_build(&T, pb, slots, ns, 1) < 0) {
        rc = topomap_fail(err, errlen, errno, "treematch: %s",
                          errno == ENOMEM ? "out of memory" : "the tree is too deep");
    } else {
        /* treematch-paper: the paper's Algorithm 1. treematch (ours, see
         * treematch_kpart.c): the top-down split down to the cores, then
         * per node the better of TreeMatch's grouping and that split
         * (node_place.c, each refined), then the SumCom refinement of
         * every level (treematch_sumcom.c). */
        if (improve)
            rc = tm_kpart(&T, T.depth - 1, &pb->g, pb->n, pb, leaf_of, err, errlen);
        else
            rc = tm_match(&T, &pb->g, pb->n, 0, pb, 0, leaf_of, err, errlen);
        for (int r = 0; rc == 0 && r < pb->n; r++)
            r2s[r] = T.leaf_slot[leaf_of[r]];
        tm_tree_free(&T);
        if (rc == 0 && improve)
            rc = topomap_node_place(pb, r2s, TOPOMAP_NODE_PLACE_AUTO, NULL, err, errlen);
        if (rc == 0 && improve)
            rc = topomap_refine_sumcom(pb, r2s, err, errlen);
    }
    free(slots), free(leaf_of);
    return rc;
}

int topomap_map_treematch(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return map_tm(pb, 1, r2s, err, errlen);
}

int topomap_map_treematch_paper(const struct topomap_problem *pb, int *r2s, char *err,
                                size_t errlen)
{
    return map_tm(pb, 0, r2s, err, errlen);
}
