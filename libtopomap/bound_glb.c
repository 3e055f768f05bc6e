/* SPDX-License-Identifier: BSD-3-Clause */
/* Lower bounds on hop-bytes: the Gilmore-Lawler bound of the quadratic
 * assignment problem (P. C. Gilmore, "Optimal and suboptimal algorithms for
 * the quadratic assignment problem", J. SIAM 10(2), 1962; E. L. Lawler,
 * "The quadratic assignment problem", Management Science 9(4), 1963).
 * Placing rank i on node k costs, against its partners, at least what the
 * rearrangement inequality allows: i's weights in decreasing order times k's
 * hops to the other places in increasing order (the heaviest partner on the
 * nearest place, and so on). Those per-(rank, place) minima do not depend
 * on each other, so the least linear assignment of ranks to places over them
 * (lap.c) is a lower bound of every placement. Hop-bytes count each pair
 * once and the per-rank sums see it twice: hence the halves.
 *
 * Two users: the branch-and-bound of map_exact.c, on a partial placement of
 * a small job (the placed ranks' part exact, Lawler's form), and
 * topomap_hop_bytes_bound(), the whole job's bound that `topomap eval
 * --bound` prints. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "qap.h"

/* out[] = 0 .. len-1 in increasing (desc 0) or decreasing (desc 1) order
 * of row[]; tmp holds len entries. */
static void order_row(const double *row, int len, int desc, struct topomap_keyed *tmp, int *out)
{
    for (int j = 0; j < len; j++)
        tmp[j].key = desc ? -row[j] : row[j], tmp[j].idx = j;
    qsort(tmp, (size_t)len, sizeof *tmp, topomap_keyed_cmp);
    for (int j = 0; j < len; j++)
        out[j] = (int)tmp[j].idx;
}

int topomap_qap_prepare(struct qap *q)
{
    size_t n = (size_t)q->n, m = (size_t)q->m;
    q->wrank = malloc(sizeof(int) * n * n);
    q->dnode = malloc(sizeof(int) * m * m);
    struct topomap_keyed *tmp = malloc(sizeof *tmp * (n > m ? n : m));
    if (!q->wrank || !q->dnode || !tmp) {
        free(tmp);
        topomap_qap_release(q);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order_row(q->f + i * n, (int)n, 1, tmp, q->wrank + i * n);
    for (size_t k = 0; k < m; k++)
        order_row(q->d + k * m, (int)m, 0, tmp, q->dnode + k * m);
    free(tmp);
    return 0;
}

void topomap_qap_release(struct qap *q)
{
    free(q->wrank);
    free(q->dnode);
    q->wrank = q->dnode = NULL;
}

void topomap_qap_place(const struct qap *q, struct qap_state *s, int i, int k)
{
    int n = q->n, m = q->m;
    s->fixed += s->part[(size_t)i * (size_t)m + (size_t)k];
    s->node[i] = k;
    s->rank[k] = i;
    s->placed++;
    const double *fi = q->f + (size_t)i * (size_t)n, *dk = q->d + (size_t)k * (size_t)m;
    for (int j = 0; j < n; j++) {
        if (s->node[j] >= 0 || fi[j] == 0)
            continue;
        double *pj = s->part + (size_t)j * (size_t)m;
        for (int l = 0; l < m; l++)
            pj[l] += fi[j] * dk[l];
    }
}

double topomap_qap_glb(const struct qap *q, const struct qap_state *s, int *rows, int *nrows,
                       int *cols, int *ncols, double *red, double *work, int *iwork)
{
    int n = q->n, m = q->m, nr = 0, nc = 0;
    for (int i = 0; i < n; i++)
        if (s->node[i] < 0)
            rows[nr++] = i;
    for (int k = 0; k < m; k++)
        if (s->rank[k] < 0)
            cols[nc++] = k;
    *nrows = nr, *ncols = nc;
    size_t mm = (size_t)m * (size_t)m;
    double *c = work, *wl = work + mm, *dl = work + 2 * mm, *u = work + 3 * mm, *v = u + m;
    int *wlen = iwork, *col = iwork + m;
    /* Each unplaced rank's weights to the other unplaced ones, heaviest
     * first, up to the last nonzero; each free node's hops to the other
     * free nodes, nearest first. */
    for (int a = 0; a < nr; a++) {
        int i = rows[a], len = 0;
        const int *ord = q->wrank + (size_t)i * (size_t)n;
        const double *fi = q->f + (size_t)i * (size_t)n;
        for (int t = 0; t < n && fi[ord[t]] > 0; t++)
            if (ord[t] != i && s->node[ord[t]] < 0)
                wl[(size_t)a * (size_t)m + (size_t)len++] = fi[ord[t]];
        wlen[a] = len;
    }
    for (int b = 0; b < nc; b++) {
        int k = cols[b], len = 0;
        const int *ord = q->dnode + (size_t)k * (size_t)m;
        const double *dk = q->d + (size_t)k * (size_t)m;
        for (int t = 0; t < m; t++)
            if (ord[t] != k && s->rank[ord[t]] < 0)
                dl[(size_t)b * (size_t)m + (size_t)len++] = dk[ord[t]];
    }
    for (int a = 0; a < nr; a++) {
        const double *w = wl + (size_t)a * (size_t)m;
        const double *part = s->part + (size_t)rows[a] * (size_t)m;
        for (int b = 0; b < nc; b++) {
            const double *d = dl + (size_t)b * (size_t)m;
            double sum = 0;
            for (int t = 0; t < wlen[a]; t++)
                sum += w[t] * d[t];
            c[(size_t)a * (size_t)nc + (size_t)b] = part[cols[b]] + 0.5 * sum;
        }
    }
    double lap = topomap_lap(nr, nc, c, col, u, v);
    if (lap < 0)
        return -1;
    for (int a = 0; a < nr; a++)
        for (int b = 0; b < nc; b++) {
            size_t e = (size_t)a * (size_t)nc + (size_t)b;
            red[e] = c[e] - u[a] - v[b];
        }
    return s->fixed + lap;
}

/* topomap_hop_bytes_bound(): the job's own nodes, each with as many places
 * as the mapping puts ranks there; the places of a node are alike, so the
 * rearrangement minimum is computed per node and copied to its places. */
struct job_nodes {
    int nn;         /* distinct nodes */
    int *tnode;     /* nn: their topology index, increasing */
    int *cap;       /* nn: ranks on each */
};

static int job_nodes(const topomap_topology_t *t, int n, const int *node, struct job_nodes *J)
{
    int tn = topomap_topology_nnodes(t);
    int *idx = malloc(sizeof(int) * (size_t)(tn > 0 ? tn : 1));
    J->tnode = malloc(sizeof(int) * (size_t)n);
    J->cap = calloc((size_t)n, sizeof(int));
    if (!idx || !J->tnode || !J->cap) {
        free(idx);
        errno = ENOMEM;
        return -1;
    }
    for (int k = 0; k < tn; k++)
        idx[k] = -1;
    for (int r = 0; r < n; r++)
        idx[node[r]] = 0;
    J->nn = 0;
    for (int k = 0; k < tn; k++)
        if (idx[k] == 0)
            idx[k] = J->nn, J->tnode[J->nn++] = k;
    for (int r = 0; r < n; r++)
        J->cap[idx[node[r]]]++;
    free(idx);
    return 0;
}

/* dl[k * dmax ..]: the hops from a place on node k to the nearest dmax
 * other places (its node's other places at 0 hops first). */
static int nearest_places(const topomap_topology_t *t, const struct job_nodes *J, int dmax,
                          double *dl)
{
    struct topomap_keyed *h = malloc(sizeof *h * (size_t)J->nn);
    if (!h) {
        errno = ENOMEM;
        return -1;
    }
    for (int k = 0; k < J->nn; k++) {
        int len = 0;
        for (int l = 0; l < J->nn; l++)
            h[l].key = l == k ? 0 : topomap_topology_hops(t, J->tnode[k], J->tnode[l]),
            h[l].idx = l;
        qsort(h, (size_t)J->nn, sizeof *h, topomap_keyed_cmp);
        for (int e = 0; e < J->nn && len < dmax; e++)
            for (int c = J->cap[h[e].idx] - (h[e].idx == k); c > 0 && len < dmax; c--)
                dl[(size_t)k * (size_t)dmax + (size_t)len++] = h[e].key;
        while (len < dmax)
            dl[(size_t)k * (size_t)dmax + (size_t)len++] = 0;
    }
    free(h);
    return 0;
}

static int desc_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x > y ? -1 : x < y;
}

int topomap_hop_bytes_bound(const topomap_profile_t *p, const topomap_topology_t *t,
                            const int *node, double *bound)
{
    topomap_graph_t g;
    if (!p || !t || !node || !bound ||
        topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) < 0) {
        errno = EINVAL;
        return -1;
    }
    int n = g.n, tn = topomap_topology_nnodes(t);
    for (int r = 0; r < n; r++)
        if (node[r] < 0 || node[r] >= tn) {
            errno = EINVAL;
            return -1;
        }
    if (n > TOPOMAP_HOP_BYTES_BOUND_MAX) {
        errno = E2BIG;
        return -1;
    }
    *bound = 0;
    if (n < 2)
        return 0;
    int dmax = topomap_graph_maxdeg(&g, n);
    if (dmax < 1)
        dmax = 1;
    struct job_nodes J = {0};
    double *dl = NULL, *wl = malloc(sizeof(double) * (size_t)dmax);
    double *c = malloc(sizeof(double) * (size_t)n * (size_t)n);
    int *col = malloc(sizeof(int) * (size_t)n);
    int rc = -1;
    if (!wl || !c || !col || job_nodes(t, n, node, &J) < 0)
        goto out;
    dl = malloc(sizeof(double) * (size_t)J.nn * (size_t)dmax);
    if (!dl || nearest_places(t, &J, dmax, dl) < 0)
        goto out;
    for (int i = 0; i < n; i++) {
        int len = 0;
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            if (g.w[e] > 0)
                wl[len++] = g.w[e];
        qsort(wl, (size_t)len, sizeof *wl, desc_double);
        double *row = c + (size_t)i * (size_t)n;
        for (int k = 0, s = 0; k < J.nn; k++) {
            const double *d = dl + (size_t)k * (size_t)dmax;
            double sum = 0;
            for (int e = 0; e < len; e++)
                sum += wl[e] * d[e];
            for (int copy = 0; copy < J.cap[k]; copy++)
                row[s++] = 0.5 * sum;
        }
    }
    double lap = topomap_lap(n, n, c, col, NULL, NULL);
    if (lap >= 0) {
        *bound = lap;
        rc = 0;
    }
out:
    if (rc < 0)
        errno = ENOMEM;
    free(J.tnode), free(J.cap);
    free(dl), free(wl), free(c), free(col);
    return rc;
}
