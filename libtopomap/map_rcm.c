/* SPDX-License-Identifier: BSD-3-Clause */
/* rcm: the graph-similarity mapping of Hoefler and Snir, "Generic topology
 * mapping strategies for large-scale parallel architectures", ICS 2011,
 * section 4.3, the other baseline of the OHTMA paper (Li et al. 2020, 5.2):
 * order the processes by reverse Cuthill-McKee of the communication graph,
 * the slots by reverse Cuthill-McKee of the machine, and map in order (k-th
 * process to k-th slot), so that bandwidth-reduced neighbours land on
 * bandwidth-reduced neighbours.
 *
 * Cuthill-McKee (Cuthill and McKee 1969; starting vertex by George and Liu's
 * pseudo-peripheral search, 1979): breadth-first from a vertex of low degree
 * far from the rest, visiting the neighbours of each vertex by increasing
 * degree (lowest index on ties); every connected component in turn, starting
 * from its vertex of lowest degree; the whole order reversed at the end.
 *
 * The machine graph: topomap knows hop counts between nodes, not links, so
 * the nodes of the allocation are joined when they are at most delta hops
 * apart, delta being the smallest value that connects them (the largest edge
 * of a minimum spanning tree under hops). On a torus or mesh allocation
 * without holes delta = 1, which gives the network's links; on Tianhe-3 it
 * joins chips of one row or column. The slots of a node follow one another.
 * Degrees count neighbours, not weights, as in the original. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "refine.h"

/* ---- the communication graph ----------------------------------------------- */

struct bysort {
    int deg, i;
};

static int by_deg(const void *pa, const void *pb)
{
    const struct bysort *a = pa, *b = pb;
    if (a->deg != b->deg)
        return a->deg < b->deg ? -1 : 1;
    return a->i - b->i;
}

/* Breadth-first levels from r inside its component, using lvl (n, -1 =
 * unseen, restored on exit) and queue (n). Returns the number of vertices
 * reached; *ecc the last level, *far the vertex of lowest degree in it. */
static int bfs_levels(const topomap_graph_t *g, int r, int *lvl, int *queue, int *ecc, int *far)
{
    int head = 0, tail = 0;
    queue[tail++] = r;
    lvl[r] = 0;
    while (head < tail) {
        int v = queue[head++];
        for (int64_t e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
            int u = g->adj[e];
            if (lvl[u] < 0) {
                lvl[u] = lvl[v] + 1;
                queue[tail++] = u;
            }
        }
    }
    *ecc = lvl[queue[tail - 1]];
    *far = -1;
    int bd = 0;
    for (int k = tail - 1; k >= 0 && lvl[queue[k]] == *ecc; k--) {
        int v = queue[k];
        int d = (int)(g->xadj[v + 1] - g->xadj[v]);
        if (*far < 0 || d < bd || (d == bd && v < *far)) {
            *far = v;
            bd = d;
        }
    }
    for (int k = 0; k < tail; k++)
        lvl[queue[k]] = -1;
    return tail;
}

/* Reverse Cuthill-McKee order of the vertices of g into order[0..n-1]
 * (also used by map_analytic.c). */
int topomap_rcm_order(const topomap_graph_t *g, int *order)
{
    int n = g->n;
    struct bysort *bs = malloc(sizeof *bs * ((size_t)n + 1));
    int *lvl = malloc(sizeof(int) * ((size_t)n + 1));
    int *queue = malloc(sizeof(int) * ((size_t)n + 1));
    char *seen = calloc((size_t)n + 1, 1);
    struct bysort *nb = NULL;
    int maxdeg = 0, rc = -1;
    if (!bs || !lvl || !queue || !seen)
        goto out;
    for (int i = 0; i < n; i++) {
        bs[i].deg = (int)(g->xadj[i + 1] - g->xadj[i]);
        bs[i].i = i;
        lvl[i] = -1;
        if (bs[i].deg > maxdeg)
            maxdeg = bs[i].deg;
    }
    nb = malloc(sizeof *nb * ((size_t)maxdeg + 1));
    if (!nb)
        goto out;
    qsort(bs, (size_t)n, sizeof *bs, by_deg);
    int len = 0;
    for (int k = 0; k < n; k++) {
        int start = bs[k].i;
        if (seen[start])
            continue;
        /* George-Liu: move to the far end while the eccentricity grows. */
        int r = start, ecc, far;
        bfs_levels(g, r, lvl, queue, &ecc, &far);
        for (;;) {
            int ecc2, far2;
            bfs_levels(g, far, lvl, queue, &ecc2, &far2);
            if (ecc2 <= ecc)
                break;
            r = far;
            ecc = ecc2;
            far = far2;
        }
        int head = len;
        order[len++] = r;
        seen[r] = 1;
        while (head < len) {
            int v = order[head++], m = 0;
            for (int64_t e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
                int u = g->adj[e];
                if (!seen[u]) {
                    seen[u] = 1;
                    nb[m].deg = (int)(g->xadj[u + 1] - g->xadj[u]);
                    nb[m++].i = u;
                }
            }
            qsort(nb, (size_t)m, sizeof *nb, by_deg);
            for (int t = 0; t < m; t++)
                order[len++] = nb[t].i;
        }
    }
    for (int a = 0, b = n - 1; a < b; a++, b--) {
        int t = order[a];
        order[a] = order[b];
        order[b] = t;
    }
    rc = 0;
out:
    free(bs);
    free(lvl);
    free(queue);
    free(seen);
    free(nb);
    return rc;
}

/* ---- the machine ------------------------------------------------------------- */

/* Breadth-first over groups joined at <= delta hops: levels from r into lvl
 * (restored to -1), eccentricity and the far vertex of lowest degree. */
static void bfs_groups(const struct topomap_xchg *x, int delta, const int *deg, int r, int *lvl,
                       int *queue, int *ecc, int *far)
{
    int ng = x->ngrp, head = 0, tail = 0;
    queue[tail++] = r;
    lvl[r] = 0;
    while (head < tail) {
        int v = queue[head++];
        for (int u = 0; u < ng; u++)
            if (lvl[u] < 0 && u != v && topomap_xchg_hops(x, v, u) <= delta) {
                lvl[u] = lvl[v] + 1;
                queue[tail++] = u;
            }
    }
    *ecc = lvl[queue[tail - 1]];
    *far = -1;
    for (int k = tail - 1; k >= 0 && lvl[queue[k]] == *ecc; k--) {
        int v = queue[k];
        if (*far < 0 || deg[v] < deg[*far] || (deg[v] == deg[*far] && v < *far))
            *far = v;
    }
    for (int k = 0; k < tail; k++)
        lvl[queue[k]] = -1;
}

/* Reverse Cuthill-McKee order of the slots into sorder[0..nslots-1]. */
static int rcm_machine(const struct topomap_xchg *x, int *sorder)
{
    int ng = x->ngrp, rc = -1;
    int *key = malloc(sizeof(int) * (size_t)ng);
    int *deg = calloc((size_t)ng, sizeof(int));
    int *lvl = malloc(sizeof(int) * (size_t)ng);
    int *queue = malloc(sizeof(int) * (size_t)ng);
    int *gorder = malloc(sizeof(int) * (size_t)ng);
    char *in = calloc((size_t)ng, 1);
    struct bysort *nb = malloc(sizeof *nb * (size_t)ng);
    if (!key || !deg || !lvl || !queue || !gorder || !in || !nb)
        goto out;
    /* Prim under hops: delta = the largest edge of a minimum spanning tree. */
    int delta = 0;
    for (int u = 0; u < ng; u++)
        key[u] = -1;
    key[0] = 0;
    for (int it = 0; it < ng; it++) {
        int v = -1;
        for (int u = 0; u < ng; u++)
            if (!in[u] && key[u] >= 0 && (v < 0 || key[u] < key[v]))
                v = u;
        in[v] = 1;
        if (key[v] > delta)
            delta = key[v];
        for (int u = 0; u < ng; u++)
            if (!in[u]) {
                int h = topomap_xchg_hops(x, v, u);
                if (key[u] < 0 || h < key[u])
                    key[u] = h;
            }
    }
    int start = 0;
    for (int v = 0; v < ng; v++) {
        lvl[v] = -1;
        for (int u = 0; u < ng; u++)
            if (u != v && topomap_xchg_hops(x, v, u) <= delta)
                deg[v]++;
        if (deg[v] < deg[start])
            start = v;
    }
    int r = start, ecc, far;
    bfs_groups(x, delta, deg, r, lvl, queue, &ecc, &far);
    for (;;) {
        int ecc2, far2;
        bfs_groups(x, delta, deg, far, lvl, queue, &ecc2, &far2);
        if (ecc2 <= ecc)
            break;
        r = far;
        ecc = ecc2;
        far = far2;
    }
    memset(in, 0, (size_t)ng);
    int len = 0, head = 0;
    gorder[len++] = r;
    in[r] = 1;
    while (head < len) {
        int v = gorder[head++], m = 0;
        for (int u = 0; u < ng; u++)
            if (!in[u] && topomap_xchg_hops(x, v, u) <= delta) {
                in[u] = 1;
                nb[m].deg = deg[u];
                nb[m++].i = u;
            }
        qsort(nb, (size_t)m, sizeof *nb, by_deg);
        for (int t = 0; t < m; t++)
            gorder[len++] = nb[t].i;
    }
    /* Reversed, slots of one node together in ascending order. */
    int k = 0;
    for (int t = ng - 1; t >= 0; t--) {
        int u = gorder[t];
        for (int s = x->grp_xslot[u]; s < x->grp_xslot[u + 1]; s++)
            sorder[k++] = x->grp_slot[s];
    }
    rc = 0;
out:
    free(key);
    free(deg);
    free(lvl);
    free(queue);
    free(gorder);
    free(in);
    free(nb);
    return rc;
}

int topomap_map_rcm(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    struct topomap_xchg x;
    if (topomap_xchg_init(&x, pb, err, errlen) < 0)
        return -1;
    int *porder = malloc(sizeof(int) * ((size_t)pb->n + 1));
    int *sorder = malloc(sizeof(int) * (size_t)pb->nslots);
    int rc = 0;
    if (!porder || !sorder || topomap_rcm_order(&pb->g, porder) < 0 || rcm_machine(&x, sorder) < 0)
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
    else
        for (int k = 0; k < pb->n; k++)
            r2s[porder[k]] = sorder[k];
    free(porder);
    free(sorder);
    topomap_xchg_free(&x);
    return rc;
}
