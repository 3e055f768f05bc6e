/* SPDX-License-Identifier: BSD-3-Clause */
/* greedy: the greedy heuristic of Hoefler and Snir, "Generic topology mapping
 * strategies for large-scale parallel architectures", ICS 2011, section 4.1,
 * one of the two baselines OHTMA is measured against (Li et al. 2020, 5.2).
 *
 * The heaviest process (largest total traffic, both directions) starts on the
 * lowest free slot. Then, repeatedly, the heaviest edge between a placed
 * process v and an unplaced one u is taken (a max-heap over edges), and u goes
 * on the free slot closest to v's: v's own node if it has room, else the node
 * with the fewest hops, lowest slot on ties. When the heap runs dry the rest
 * of the graph is not connected to what is placed, and the heaviest unplaced
 * process starts again on the lowest free slot.
 *
 * Departures: Hoefler and Snir search the physical network with Dijkstra and
 * weights that track the congestion of every link; topomap only knows hop
 * counts between nodes, so "closest" is fewest hops. Ties (equal weights)
 * go to the lowest process index, then the lowest index of the placed end.
 * O((nnz) log nnz + n x nodes). */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "refine.h"

struct hedge {
    double w;
    int u, v; /* u unplaced when pushed, v placed */
};

static int hbetter(const struct hedge *a, const struct hedge *b)
{
    if (a->w != b->w)
        return a->w > b->w;
    if (a->u != b->u)
        return a->u < b->u;
    return a->v < b->v;
}

static void hpush(struct hedge *h, size_t *len, struct hedge e)
{
    size_t k = (*len)++;
    while (k > 0) {
        size_t p = (k - 1) / 2;
        if (!hbetter(&e, &h[p]))
            break;
        h[k] = h[p];
        k = p;
    }
    h[k] = e;
}

static struct hedge hpop(struct hedge *h, size_t *len)
{
    struct hedge top = h[0], e = h[--*len];
    size_t k = 0, n = *len;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n)
            break;
        if (c + 1 < n && hbetter(&h[c + 1], &h[c]))
            c++;
        if (!hbetter(&h[c], &e))
            break;
        h[k] = h[c];
        k = c;
    }
    if (n > 0)
        h[k] = e;
    return top;
}

int topomap_map_greedy(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    struct topomap_xchg x;
    if (topomap_xchg_init(&x, pb, err, errlen) < 0)
        return -1;
    const topomap_graph_t *g = &pb->g;
    int n = pb->n, ng = x.ngrp, rc = 0;
    size_t cap = (size_t)g->xadj[n] + 1, len = 0;
    struct hedge *heap = malloc(sizeof *heap * cap);
    int *used = calloc((size_t)ng, sizeof(int));
    int *byw = malloc(sizeof(int) * ((size_t)n + 1));
    char *placed = calloc((size_t)n + 1, 1);
    if (!heap || !used || !byw || !placed) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    /* Processes by decreasing total traffic, for (re)starts. */
    for (int i = 0; i < n; i++)
        byw[i] = i;
    {
        /* Bottom-up merge sort of byw by (wdeg desc, index asc). */
        int *tmp = malloc(sizeof(int) * ((size_t)n + 1));
        if (!tmp) {
            rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
            goto out;
        }
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = lo + width < n ? lo + width : n;
                int hi = lo + 2 * width < n ? lo + 2 * width : n;
                int a = lo, b = mid, k = lo;
                while (a < mid && b < hi) {
                    int ia = byw[a], ib = byw[b];
                    if (x.wdeg[ib] > x.wdeg[ia])
                        tmp[k++] = byw[b++];
                    else
                        tmp[k++] = byw[a++]; /* stable: equal keep index order */
                }
                while (a < mid)
                    tmp[k++] = byw[a++];
                while (b < hi)
                    tmp[k++] = byw[b++];
            }
            for (int k = 0; k < n; k++)
                byw[k] = tmp[k];
        }
        free(tmp);
    }
    int next = 0, nplaced = 0;
    while (nplaced < n) {
        if ((nplaced & 255) == 0 && topomap_expired(pb)) {
            rc = topomap_fail(err, errlen, ETIMEDOUT, "greedy: time limit reached");
            goto out;
        }
        int u, gv = -1;
        if (len > 0) {
            struct hedge e = hpop(heap, &len);
            if (placed[e.u])
                continue;
            u = e.u;
            gv = x.slot_grp[r2s[e.v]];
        } else {
            while (placed[byw[next]])
                next++;
            u = byw[next];
        }
        /* The free slot closest to group gv (or the lowest free slot). */
        int bu = -1, bslot = 0, bh = 0;
        if (gv >= 0 && used[gv] < x.grp_xslot[gv + 1] - x.grp_xslot[gv]) {
            bu = gv;
            bslot = x.grp_slot[x.grp_xslot[gv] + used[gv]];
        } else {
            for (int v = 0; v < ng; v++) {
                if (used[v] == x.grp_xslot[v + 1] - x.grp_xslot[v])
                    continue;
                int h = gv >= 0 ? topomap_xchg_hops(&x, gv, v) : 0;
                int s = x.grp_slot[x.grp_xslot[v] + used[v]];
                if (bu < 0 || h < bh || (h == bh && s < bslot)) {
                    bu = v;
                    bh = h;
                    bslot = s;
                }
            }
        }
        used[bu]++;
        r2s[u] = bslot;
        placed[u] = 1;
        nplaced++;
        for (int64_t e = g->xadj[u]; e < g->xadj[u + 1]; e++) {
            int q = g->adj[e];
            if (!placed[q])
                hpush(heap, &len, (struct hedge){g->w[e], q, u});
        }
    }
out:
    free(heap);
    free(used);
    free(byw);
    free(placed);
    topomap_xchg_free(&x);
    return rc;
}
