/* SPDX-License-Identifier: BSD-3-Clause */
/* Legalization, the second stage of the analytical mapping (Wu et al. 2016,
 * section 3.4, Fig. 4): from the bins the global mapping left the processes
 * in to one process per node, by a diffusion-like migration between
 * neighbouring nodes. Each round solves L lambda = b (eq. 11: L the Laplacian
 * of the network, b_i the processes node i must give away), sorts the nodes
 * by lambda, and lets every node with processes to give move
 * min(b_i, floor(lambda_i - lambda_j)) of them to each neighbour j with
 * lambda_j < lambda_i, then one more to each such neighbour by decreasing
 * fractional part of lambda_i - lambda_j until it has given enough; the
 * process moved is always the one whose move raises hop-bytes least.
 *
 * Beyond the paper (which maps one process per node of a whole partition):
 * - the network is the allocation's box (analytic.h): its bins without an
 *   allocated node hold no process, so b_i is their whole load, and
 *   processes cross them on their way to free nodes;
 * - with fewer processes than nodes b does not sum to zero; the linear
 *   solve then uses b_i = load_i - K/m for allocated nodes (K processes, m
 *   nodes) so that the system has a solution, while a node only gives away
 *   processes beyond its capacity of one;
 * - L is singular (constants are in its kernel); the solve uses L + 1e-9 I,
 *   which changes lambda by a constant only since b sums to zero;
 * - a safety net: if migration has not finished after 4 (largest load +
 *   box diameter) + 16 rounds, the processes left over go to the nearest free
 *   nodes (breadth-first over the box). Counted in the stats; the tests
 *   check that it is not needed on their cases. */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"

int topomap_an_neighbours(const struct an_box *B, int b, int wrap, int *nb)
{
    int c = 0;
    for (int k = 0; k < B->nd; k++) {
        int len = B->len[k], st = B->stride[k], x = an_coord(B, b, k);
        int ring = wrap && B->wrap[k] && len > 2;
        if (x > 0)
            nb[c++] = b - st;
        else if (ring)
            nb[c++] = b + (len - 1) * st;
        if (x < len - 1)
            nb[c++] = b + st;
        else if (ring)
            nb[c++] = b - (len - 1) * st;
    }
    return c;
}

struct legal {
    const topomap_graph_t *q;
    const struct an_box *B;
    int *vbin;
    int *head, *next, *prev; /* bins' vertex lists (doubly linked) */
    int *load;
    double *lambda, *b;
    int *order;
    double hop_bytes;
};

static void list_remove(struct legal *L, int v)
{
    int b = L->vbin[v];
    if (L->prev[v] >= 0)
        L->next[L->prev[v]] = L->next[v];
    else
        L->head[b] = L->next[v];
    if (L->next[v] >= 0)
        L->prev[L->next[v]] = L->prev[v];
    L->load[b]--;
}

static void list_add(struct legal *L, int v, int b)
{
    L->vbin[v] = b;
    L->prev[v] = -1;
    L->next[v] = L->head[b];
    if (L->head[b] >= 0)
        L->prev[L->head[b]] = v;
    L->head[b] = v;
    L->load[b]++;
}

static int capacity(const struct an_box *B, int b)
{
    return B->bin_node[b] >= 0;
}

/* Hop-bytes added by moving v from its bin to bin to. */
static double move_cost(const struct legal *L, int v, int to)
{
    const topomap_graph_t *q = L->q;
    int from = L->vbin[v];
    double c = 0;
    for (int64_t e = q->xadj[v]; e < q->xadj[v + 1]; e++) {
        int u = q->adj[e];
        if (u == v || !(q->w[e] > 0))
            continue;
        int bu = L->vbin[u];
        c += q->w[e] * (an_hops(L->B, to, bu) - an_hops(L->B, from, bu));
    }
    return c;
}

/* Move v to bin to; cost = move_cost(L, v, to). */
static void move_vertex(struct legal *L, int v, int to, double cost)
{
    list_remove(L, v);
    list_add(L, v, to);
    L->hop_bytes += cost;
}

/* Move the vertex of bin from whose move to bin to costs least. */
static void migrate_one(struct legal *L, int from, int to, long *moves)
{
    int best = -1;
    double bc = 0;
    for (int v = L->head[from]; v >= 0; v = L->next[v]) {
        double c = move_cost(L, v, to);
        if (best < 0 || c < bc || (c == bc && v < best)) {
            best = v;
            bc = c;
        }
    }
    if (best < 0)
        return;
    if (topomap_tuning()->an_move_trace)
        topomap_tuning()->an_move_trace(best, from, to);
    move_vertex(L, best, to, bc);
    (*moves)++;
}

static int by_lambda(const void *pa, const void *pb, void *ctx)
{
    const double *lam = ctx;
    int a = *(const int *)pa, b = *(const int *)pb;
    if (lam[a] != lam[b])
        return lam[a] > lam[b] ? -1 : 1;
    return a - b;
}

struct cand {
    int j;
    double diff;
};

static int by_diff(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    if (a->diff != b->diff)
        return a->diff > b->diff ? -1 : 1;
    return a->j - b->j;
}

static int by_frac(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    double fa = a->diff - floor(a->diff), fb = b->diff - floor(b->diff);
    if (fa != fb)
        return fa > fb ? -1 : 1;
    return a->j - b->j;
}

/* The network's Laplacian on the box, for eq. (11). */
static struct topomap_chol *laplacian(const struct an_box *B, double **diag)
{
    int nb = B->nbins, tmp[2 * AN_MAXD];
    int64_t *xadj = malloc(sizeof(int64_t) * ((size_t)nb + 1));
    int *adj = malloc(sizeof(int) * (size_t)nb * 2 * (size_t)B->nd + 1);
    double *w = malloc(sizeof(double) * (size_t)nb * 2 * (size_t)B->nd + 1);
    *diag = malloc(sizeof(double) * (size_t)nb);
    struct topomap_chol *c = NULL;
    if (xadj && adj && w && *diag) {
        int64_t k = 0;
        for (int b = 0; b < nb; b++) {
            xadj[b] = k;
            int d = topomap_an_neighbours(B, b, 1, tmp);
            for (int i = 0; i < d; i++) {
                adj[k] = tmp[i];
                w[k++] = 1;
            }
            (*diag)[b] = d + 1e-9;
        }
        xadj[nb] = k;
        c = topomap_chol_new(nb, xadj, adj, w);
        if (c && topomap_chol_factor(c, *diag) < 0) {
            topomap_chol_free(c);
            c = NULL;
        }
    }
    free(xadj);
    free(adj);
    free(w);
    return c;
}

/* The safety net: every bin over capacity sends its extra vertices to the
 * nearest bins with room (breadth-first over the box). */
static int fallback(struct legal *L, long *placed)
{
    const struct an_box *B = L->B;
    int nb = B->nbins, tmp[2 * AN_MAXD];
    int *queue = malloc(sizeof(int) * (size_t)nb), *seen = malloc(sizeof(int) * (size_t)nb);
    if (!queue || !seen) {
        free(queue);
        free(seen);
        return -1;
    }
    for (int b = 0; b < nb; b++)
        seen[b] = -1;
    for (int s = 0; s < nb; s++) {
        while (L->load[s] > capacity(B, s)) {
            int h = 0, t = 0, to = -1;
            queue[t++] = s;
            seen[s] = s;
            while (h < t && to < 0) {
                int b = queue[h++];
                if (L->load[b] < capacity(B, b)) {
                    to = b;
                    break;
                }
                int d = topomap_an_neighbours(B, b, 1, tmp);
                for (int i = 0; i < d; i++)
                    if (seen[tmp[i]] != s) {
                        seen[tmp[i]] = s;
                        queue[t++] = tmp[i];
                    }
            }
            for (int i = 0; i < t; i++)
                seen[queue[i]] = -1;
            if (to < 0)
                break; /* no room anywhere: the caller checked K <= m */
            int v = L->head[s];
            move_vertex(L, v, to, move_cost(L, v, to));
            (*placed)++;
        }
    }
    free(queue);
    free(seen);
    return 0;
}

int topomap_an_legalize(const struct topomap_problem *pb, const topomap_graph_t *q,
                        const struct an_box *B, int *vbin, struct an_legal_stats *st, char *err,
                        size_t errlen)
{
    memset(st, 0, sizeof *st);
    int n = q->n, nb = B->nbins, rc = -1;
    if (n > B->m)
        return topomap_fail(err, errlen, EINVAL,
                            "analytic: %d groups do not fit in %d nodes (internal error)", n, B->m);
    struct legal L = {.q = q, .B = B, .vbin = vbin};
    double *diag = NULL;
    struct cand *cands = malloc(sizeof *cands * 2 * AN_MAXD);
    L.head = malloc(sizeof(int) * (size_t)nb);
    L.load = calloc((size_t)nb, sizeof(int));
    L.next = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    L.prev = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    L.lambda = malloc(sizeof(double) * (size_t)nb);
    L.b = malloc(sizeof(double) * (size_t)nb);
    L.order = malloc(sizeof(int) * (size_t)nb);
    struct topomap_chol *chol = NULL;
    if (!cands || !L.head || !L.load || !L.next || !L.prev || !L.lambda || !L.b || !L.order) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    for (int b = 0; b < nb; b++)
        L.head[b] = -1;
    /* Vertices in descending order, so that each list is ascending. */
    for (int v = n - 1; v >= 0; v--)
        list_add(&L, v, vbin[v]);
    for (int v = 0; v < n; v++)
        for (int64_t e = q->xadj[v]; e < q->xadj[v + 1]; e++)
            if (q->adj[e] > v && q->w[e] > 0)
                L.hop_bytes += q->w[e] * an_hops(B, vbin[v], vbin[q->adj[e]]);
    int maxload = 0, diam = 0;
    for (int b = 0; b < nb; b++)
        maxload = L.load[b] > maxload ? L.load[b] : maxload;
    for (int k = 0; k < B->nd; k++)
        diam += B->len[k];
    int max_rounds = 4 * (maxload + diam) + 16, tmp[2 * AN_MAXD];
    double share = B->m ? (double)n / B->m : 0;
    for (;;) {
        int over = 0;
        for (int b = 0; b < nb && !over; b++)
            over = L.load[b] > capacity(B, b);
        if (!over)
            break;
        if (st->rounds >= max_rounds) {
            if (fallback(&L, &st->fallback) < 0) {
                rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
                goto out;
            }
            break;
        }
        if (!chol && !(chol = laplacian(B, &diag))) {
            rc = topomap_fail(err, errlen, ENOMEM,
                              "analytic: CHOLMOD could not factor the network's Laplacian");
            goto out;
        }
        /* Work of auto's accounting: the factorisation once, a solve and
         * the sort of the bins every round. */
        double cfl, clnz;
        topomap_chol_cost(chol, &cfl, &clnz);
        topomap_work_add(pb, ((st->rounds == 0 ? cfl : 0) + 4 * clnz + 20.0 * nb) *
                                 TOPOMAP_WORK_FLOP);
        for (int b = 0; b < nb; b++)
            L.b[b] = L.load[b] - capacity(B, b) * share;
        if (topomap_chol_solve(chol, L.b, L.lambda, 1) < 0) {
            rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
            goto out;
        }
        st->rounds++;
        for (int b = 0; b < nb; b++)
            L.order[b] = b;
        qsort_r(L.order, (size_t)nb, sizeof(int), by_lambda, L.lambda);
        for (int k = 0; k < nb; k++) {
            int i = L.order[k];
            int give = L.load[i] - capacity(B, i);
            if (give <= 0)
                continue;
            int d = topomap_an_neighbours(B, i, 1, tmp), nc = 0;
            for (int t = 0; t < d; t++)
                if (L.lambda[tmp[t]] < L.lambda[i])
                    cands[nc++] = (struct cand){tmp[t], L.lambda[i] - L.lambda[tmp[t]]};
            qsort(cands, (size_t)nc, sizeof *cands, by_diff);
            for (int t = 0; t < nc && give > 0; t++) {
                double fl = floor(cands[t].diff);
                int mv = fl < give ? (int)fl : give;
                for (int r = 0; r < mv; r++)
                    migrate_one(&L, i, cands[t].j, &st->moves);
                give -= mv;
            }
            qsort(cands, (size_t)nc, sizeof *cands, by_frac);
            for (int t = 0; t < nc && give > 0; t++, give--)
                migrate_one(&L, i, cands[t].j, &st->moves);
        }
        if (topomap_expired(pb))
            max_rounds = st->rounds; /* finish with the safety net */
    }
    st->hop_bytes = L.hop_bytes;
    rc = 0;
out:
    topomap_chol_free(chol);
    free(diag);
    free(cands);
    free(L.head);
    free(L.load);
    free(L.next);
    free(L.prev);
    free(L.lambda);
    free(L.b);
    free(L.order);
    return rc;
}
