/* SPDX-License-Identifier: BSD-3-Clause */
/* TreeMatch's Algorithm 1 on a tree of levels (Jeannot, Mercier & Tessier,
 * IEEE TPDS 25(4), 2014): GroupProcesses and AggregateComMatrix bottom-up,
 * then MapGroups top-down. The departures from the paper are described in
 * map_treematch.c. It sits below both its users, the treematch algorithms
 * (map_treematch.c) and the node-internal placement (node_place.c), so that
 * neither calls the other back. */
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

/* need[c]: the shape of child c of level d's vertices, sorted within each
 * vertex, so that two vertices with the same children compare equal. */
static void sorted_needs(const struct tm_tree *T, int d, int *need)
{
    int nv = T->nv[d], ne = T->nv[d + 1];
    const int *cx = T->cx[d];
    for (int c = 0; c < ne; c++)
        need[c] = T->shape[d + 1][c];
    for (int v = 0; v < nv; v++)
        for (int a = cx[v] + 1; a < cx[v + 1]; a++) /* short ranges: insertion sort */
            for (int b = a; b > cx[v] && need[b - 1] > need[b]; b--) {
                int t = need[b];
                need[b] = need[b - 1];
                need[b - 1] = t;
            }
}

/* GroupProcesses at level d: the entities of cur (of shapes eshape) into
 * grp, one group per vertex of level d. key: scratch of the widest level.
 * Sets *kind (level_kind) and *method. 0, or -1 when out of memory. */
static int group_level(const struct tm_tree *T, int d, const topomap_graph_t *cur,
                       const int *eshape, const int *need, int64_t *key, int improve, int *grp,
                       int *kind, int *method)
{
    int nv = T->nv[d], ne = T->nv[d + 1], k;
    const int *cx = T->cx[d];
    *method = TM_UNARY;
    *kind = level_kind(T, d, need, &k);
    if (*kind == 1) {
        /* Unary vertices: vertices sorted by their child's shape take
         * the entities sorted by shape, in order. */
        int64_t *vk = malloc(sizeof(int64_t) * (size_t)nv);
        if (!vk)
            return -1;
        for (int v = 0; v < nv; v++)
            vk[v] = (int64_t)need[cx[v]] * nv + v;
        for (int e = 0; e < ne; e++)
            key[e] = (int64_t)eshape[e] * ne + e;
        qsort(vk, (size_t)nv, sizeof *vk, topomap_cmp_i64);
        qsort(key, (size_t)ne, sizeof *key, topomap_cmp_i64);
        for (int q = 0; q < nv; q++)
            grp[key[q] % ne] = (int)(vk[q] % nv);
        free(vk);
    } else if (*kind == 2) {
        /* The paper's case: every group k alike entities; the groups
         * go to the (alike) vertices in order. */
        if (tm_group_classic(cur, k, grp, method) < 0)
            return -1;
    } else {
        *method = TM_GREEDY;
        if (tm_group_shaped(cur, eshape, nv, cx, need, grp) < 0)
            return -1;
    }
    if (improve && *method != TM_EXACT && *method != TM_UNARY &&
        tm_group_refine(cur, eshape, nv, grp, TM_REFINE_PASSES) < 0)
        return -1;
    return 0;
}

static void log_level(const struct tm_tree *T, int d, int kind, int method,
                      const struct topomap_problem *pb)
{
    int nv = T->nv[d], amax = 0;
    const int *cx = T->cx[d];
    for (int v = 0; v < nv; v++)
        if (cx[v + 1] - cx[v] > amax)
            amax = cx[v + 1] - cx[v];
    topomap_log(pb, "treematch: level %d (%s): %d entities in %d groups of %s%d, %s", d,
                T->name[d], T->nv[d + 1], nv, kind ? "" : "up to ", amax, tm_method_name(method));
}

/* MapGroups, top-down: at[x] = the group (entity) on vertex x of level d;
 * its members go to x's children, shape by shape in order. keep (or NULL):
 * every level's graph, refined on the way down. tmp, key: scratch of maxv.
 * Fills leaf_of of the n processes. 0, or -1 when out of memory. */
static int map_groups(const struct tm_tree *T, int *const *grp, topomap_graph_t *keep, int maxv,
                      int *tmp, int64_t *key, const struct topomap_problem *pb, int quiet, int n,
                      int *leaf_of)
{
    int L = T->depth, m = T->nv[L], rc = -1;
    int *at = malloc(sizeof(int) * (size_t)maxv);
    int *nat = malloc(sizeof(int) * (size_t)maxv);
    int *mx = malloc(sizeof(int) * ((size_t)maxv + 1));
    int64_t *mk = malloc(sizeof(int64_t) * (size_t)maxv);
    if (!at || !nat || !mx || !mk)
        goto out;
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
        if (keep && !copy && tm_level_refine(T, d + 1, &keep[d + 1], nat, pb, TM_REFINE_PASSES) < 0)
            goto out;
        if (keep && !copy && !quiet)
            topomap_log(pb, "treematch: level %d (%s) refined in %.3f s", d + 1, T->name[d + 1],
                        topomap_now() - t0);
        int *sw = at;
        at = nat;
        nat = sw;
    }
    for (int x = 0; x < m; x++)
        if (at[x] < n)
            leaf_of[at[x]] = x;
    rc = 0;
out:
    free(at), free(nat), free(mx), free(mk);
    return rc;
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
    int *need = NULL, *tmp = NULL;
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
        int kind, method;
        if (!(grp[d] = malloc(sizeof(int) * (size_t)T->nv[d + 1])))
            goto nomem;
        sorted_needs(T, d, need);
        if (group_level(T, d, &cur, eshape, need, key, improve, grp[d], &kind, &method) < 0)
            goto nomem;
        if (!quiet)
            log_level(T, d, kind, method, pb);
        if (d > 0) {
            if (tm_aggregate(&cur, grp[d], T->nv[d], &next) < 0)
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

    if (map_groups(T, grp, keep, maxv, tmp, key, pb, quiet, n, leaf_of) < 0)
        goto nomem;
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
    free(grp), free(need), free(tmp), free(key);
    return rc;
}
