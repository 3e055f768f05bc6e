/* SPDX-License-Identifier: BSD-3-Clause */
/* exact: the least hop-bytes of a small job with one rank per node, found
 * and proven by branch-and-bound on the quadratic assignment of ranks to
 * nodes (Lawler 1963, section 4: place one rank at a time, bound every
 * partial placement with the Gilmore-Lawler bound, bound_glb.c, and drop it
 * when the bound reaches the best placement known).
 *
 * - Start (topomap_qap_start): the best of a pair-exchange descent from
 *   block's order and from 32 seeded random orders (tiny jobs:
 *   milliseconds), so that the bound prunes from the first node.
 * - Depth first, one rank per level in a fixed order (the heaviest rank,
 *   then each time the rank with the most bytes to those already ordered:
 *   the placed part of the bound grows fastest). The children are the free
 *   nodes in increasing reduced cost of the parent's assignment; a child
 *   whose parent bound plus that reduced cost reaches the best is dropped
 *   without being bounded (the assignment's dual, lap.c).
 * - Symmetry (ours, cheap): at the first SYM_DEPTH levels only one free node
 *   of each orbit of the network's automorphisms that fix the placed nodes
 *   is tried (the first rank on a ring: one node instead of 16; the second:
 *   one of each mirror pair). An automorphism is searched for by
 *   backtracking on the hops with a step budget; none found in it: the two
 *   nodes are treated as different, which is safe.
 * - Deterministic: no tie depends on time or threads; at the deadline, or
 *   after a given number of search nodes (auto's last step on small jobs,
 *   topomap_exact_improve()), it returns the best found so far and says it
 *   is not proven.
 * Cost: a node of the search costs O(n^3) (the bound's assignment); 16
 * ranks on a ring or an 8 x 2 patch of a torus are proven in seconds, 24
 * random ranks can take far longer than any limit: give --time-limit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "qap.h"

#ifndef SYM_DEPTH /* scratch builds check the search without it: -DSYM_DEPTH=0 */
#define SYM_DEPTH 2
#endif
#define SYM_BUDGET 20000
#define STARTS 32
#define REL_TOL 1e-9

struct bb {
    struct qap q;
    double deadline;
    long max_visits; /* 0: none */
    double best;
    int *best_node;
    long visited;
    int stopped;
    int *order;              /* n: the rank placed at each depth */
    struct qap_state *level; /* n + 1 states, one per depth */
    double *red, *work;      /* per depth: m x m, 3 m x m + 2 m */
    int *rows, *cols, *iwork, *cand; /* per depth: m each (iwork 2 m) */
};

/* Bounds at or above this cannot beat the best known (a relative
 * tolerance, so that rounding never keeps a tie alive). */
static double prune_at(const struct bb *B)
{
    return B->best - REL_TOL * (B->best > 1 ? B->best : 1);
}

double topomap_qap_cost(const struct qap *q, const int *node)
{
    double c = 0;
    for (int i = 0; i < q->n; i++)
        for (int j = i + 1; j < q->n; j++)
            c += q->f[(size_t)i * (size_t)q->n + (size_t)j] *
                 q->d[(size_t)node[i] * (size_t)q->m + (size_t)node[j]];
    return c;
}

/* Best-improvement descent over exchanges of two ranks' nodes and moves of
 * a rank to a free node, to a local minimum. rank[] is node -> rank. */
static void descend(const struct qap *q, int *node, int *rank)
{
    int n = q->n, m = q->m;
    for (;;) {
        double best = -1e-9;
        int bi = -1, bk = -1;
        for (int i = 0; i < n; i++) {
            const double *fi = q->f + (size_t)i * (size_t)n;
            for (int k = 0; k < m; k++) {
                int j = rank[k], a = node[i];
                if (k == a || (j >= 0 && j < i))
                    continue;
                const double *fj = j >= 0 ? q->f + (size_t)j * (size_t)n : NULL;
                const double *da = q->d + (size_t)a * (size_t)m, *dk = q->d + (size_t)k * (size_t)m;
                double delta = 0;
                for (int l = 0; l < n; l++) {
                    if (l == i || l == j)
                        continue;
                    double wl = fi[l] - (fj ? fj[l] : 0);
                    delta += wl * (dk[node[l]] - da[node[l]]);
                }
                if (delta < best)
                    best = delta, bi = i, bk = k;
            }
        }
        if (bi < 0)
            return;
        int a = node[bi], j = rank[bk];
        node[bi] = bk, rank[bk] = bi, rank[a] = j;
        if (j >= 0)
            node[j] = a;
    }
}

double topomap_qap_start(const struct qap *q, uint64_t seed, int *best_node)
{
    double best = -1;
    int *node = malloc(sizeof(int) * (size_t)(q->n + 1));
    int *rank = malloc(sizeof(int) * (size_t)(q->m + 1));
    if (!node || !rank) {
        free(node), free(rank);
        errno = ENOMEM;
        return -1;
    }
    for (int s = 0; s <= STARTS; s++) {
        for (int k = 0; k < q->m; k++)
            rank[k] = k < q->n ? k : -1;
        for (int k = q->m - 1; s > 0 && k > 0; k--) {
            int o = (int)topomap_rng_below(&seed, (uint64_t)k + 1), t = rank[k];
            rank[k] = rank[o], rank[o] = t;
        }
        for (int k = 0; k < q->m; k++)
            if (rank[k] >= 0)
                node[rank[k]] = k;
        descend(q, node, rank);
        double c = topomap_qap_cost(q, node);
        if (best < 0 || c < best) {
            best = c;
            memcpy(best_node, node, sizeof(int) * (size_t)q->n);
        }
    }
    free(node), free(rank);
    return best;
}

/* The branching order: heaviest rank first, then the most bytes to the
 * ranks already ordered (ties: total bytes, then index). */
static void branch_order(const struct qap *q, int *order)
{
    int n = q->n;
    double *tot = calloc((size_t)n, sizeof *tot), *to = calloc((size_t)n, sizeof *to);
    char *done = calloc((size_t)n, 1);
    for (int i = 0; tot && i < n; i++)
        for (int j = 0; j < n; j++)
            tot[i] += q->f[(size_t)i * (size_t)n + (size_t)j];
    for (int d = 0; d < n; d++) {
        int b = -1;
        for (int i = 0; i < n; i++) {
            if (done && done[i])
                continue;
            if (b < 0 || (to && (to[i] > to[b] || (to[i] == to[b] && tot[i] > tot[b]))))
                b = i;
        }
        order[d] = b;
        if (!done || !to || !tot) { /* out of memory: index order, still exact */
            order[d] = d;
            continue;
        }
        done[b] = 1;
        for (int j = 0; j < n; j++)
            to[j] += q->f[(size_t)b * (size_t)n + (size_t)j];
    }
    free(tot), free(to), free(done);
}

/* Backtracking for an automorphism sigma of the hops (d[x][y] =
 * d[sigma x][sigma y]) that maps seq[t] to pre[seq[t]] where that is set
 * (the placed nodes to themselves, b to c), in at most *budget steps.
 * 1: found. */
static int extend(const struct qap *q, const int *seq, int len, int at, const int *pre, int *sig,
                  char *used, long *budget)
{
    if (at == len)
        return 1;
    if (--*budget < 0)
        return 0;
    int m = q->m, x = seq[at];
    const double *dx = q->d + (size_t)x * (size_t)m;
    for (int y = pre[x] >= 0 ? pre[x] : 0; y < m; y++) {
        if (!used[y]) {
            const double *dy = q->d + (size_t)y * (size_t)m;
            int ok = dx[x] == dy[y];
            for (int t = 0; ok && t < at; t++)
                ok = dx[seq[t]] == dy[sig[seq[t]]];
            if (ok) {
                sig[x] = y, used[y] = 1;
                if (extend(q, seq, len, at + 1, pre, sig, used, budget))
                    return 1;
                used[y] = 0;
                if (*budget < 0)
                    return 0;
            }
        }
        if (pre[x] >= 0)
            break;
    }
    return 0;
}

static int automorphic(const struct qap *q, const struct qap_state *s, int b, int c)
{
    int m = q->m, len = 0;
    int seq[TOPOMAP_QAP_MAX], pre[TOPOMAP_QAP_MAX], sig[TOPOMAP_QAP_MAX];
    char used[TOPOMAP_QAP_MAX] = {0};
    for (int k = 0; k < m; k++)
        pre[k] = -1;
    for (int k = 0; k < m; k++)
        if (s->rank[k] >= 0)
            seq[len++] = k, pre[k] = k;
    seq[len++] = b, pre[b] = c;
    for (int k = 0; k < m; k++)
        if (s->rank[k] < 0 && k != b)
            seq[len++] = k;
    long budget = SYM_BUDGET;
    return extend(q, seq, len, 0, pre, sig, used, &budget);
}

/* Children of state s at depth: the free nodes worth trying for rank i
 * (row a of the parent's assignment), by increasing reduced cost. */
static int children(struct bb *B, int depth, const struct qap_state *s, double lb, int a,
                    int ncols, const int *cols, const double *red, int *cand)
{
    int nc = 0;
    double cut = prune_at(B);
    for (int b = 0; b < ncols; b++) {
        if (lb + red[(size_t)a * (size_t)ncols + (size_t)b] >= cut)
            continue;
        int rep = 1;
        for (int e = 0; depth < SYM_DEPTH && rep && e < b; e++)
            rep = !automorphic(&B->q, s, cols[e], cols[b]);
        if (rep)
            cand[nc++] = b;
    }
    /* Insertion sort: at most 24, ties by node index (stable). */
    for (int x = 1; x < nc; x++) {
        int v = cand[x], y = x;
        double rv = red[(size_t)a * (size_t)ncols + (size_t)v];
        while (y > 0 && red[(size_t)a * (size_t)ncols + (size_t)cand[y - 1]] > rv)
            cand[y] = cand[y - 1], y--;
        cand[y] = v;
    }
    return nc;
}

static void copy_state(const struct qap *q, struct qap_state *to, const struct qap_state *from)
{
    memcpy(to->node, from->node, sizeof(int) * (size_t)q->n);
    memcpy(to->rank, from->rank, sizeof(int) * (size_t)q->m);
    memcpy(to->part, from->part, sizeof(double) * (size_t)q->n * (size_t)q->m);
    to->fixed = from->fixed;
    to->placed = from->placed;
}

static int dfs(struct bb *B, int depth)
{
    const struct qap *q = &B->q;
    struct qap_state *s = &B->level[depth];
    if (B->stopped)
        return 0;
    if ((B->max_visits > 0 && B->visited >= B->max_visits) ||
        ((++B->visited & 255) == 0 && B->deadline > 0 && topomap_now() >= B->deadline)) {
        B->stopped = 1;
        return 0;
    }
    if (s->placed == q->n) {
        if (s->fixed < B->best) {
            B->best = s->fixed;
            memcpy(B->best_node, s->node, sizeof(int) * (size_t)q->n);
        }
        return 0;
    }
    size_t m = (size_t)q->m;
    int *rows = B->rows + (size_t)depth * m, *cols = B->cols + (size_t)depth * m;
    int *cand = B->cand + (size_t)depth * m, nrows, ncols;
    double *red = B->red + (size_t)depth * m * m;
    double lb = topomap_qap_glb(q, s, rows, &nrows, cols, &ncols, red,
                                B->work + (size_t)depth * (3 * m * m + 2 * m),
                                B->iwork + (size_t)depth * 2 * m);
    if (lb < 0)
        return -1;
    if (lb >= prune_at(B))
        return 0;
    int i = B->order[depth], a = 0;
    while (rows[a] != i)
        a++;
    int nc = children(B, depth, s, lb, a, ncols, cols, red, cand);
    for (int x = 0; x < nc; x++) {
        if (lb + red[(size_t)a * (size_t)ncols + (size_t)cand[x]] >= prune_at(B))
            continue;
        copy_state(q, &B->level[depth + 1], s);
        topomap_qap_place(q, &B->level[depth + 1], i, cols[cand[x]]);
        if (dfs(B, depth + 1) < 0)
            return -1;
    }
    return 0;
}

static void bb_free(struct bb *B)
{
    if (B->level)
        for (int d = 0; d <= B->q.n; d++)
            free(B->level[d].node), free(B->level[d].rank), free(B->level[d].part);
    free(B->level), free(B->order), free(B->red), free(B->work);
    free(B->rows), free(B->cols), free(B->iwork), free(B->cand);
    topomap_qap_release(&B->q);
}

static int bb_alloc(struct bb *B)
{
    size_t n = (size_t)B->q.n, m = (size_t)B->q.m, L = n + 1;
    B->level = calloc(L, sizeof *B->level);
    B->order = malloc(sizeof(int) * n);
    B->red = malloc(sizeof(double) * L * m * m);
    B->work = malloc(sizeof(double) * L * (3 * m * m + 2 * m));
    B->rows = malloc(sizeof(int) * L * m);
    B->cols = malloc(sizeof(int) * L * m);
    B->iwork = malloc(sizeof(int) * L * 2 * m);
    B->cand = malloc(sizeof(int) * L * m);
    if (!B->level || !B->order || !B->red || !B->work || !B->rows || !B->cols || !B->iwork ||
        !B->cand)
        return -1;
    for (size_t d = 0; d < L; d++) {
        B->level[d].node = malloc(sizeof(int) * n);
        B->level[d].rank = malloc(sizeof(int) * m);
        B->level[d].part = calloc(n * m, sizeof(double));
        if (!B->level[d].node || !B->level[d].rank || !B->level[d].part)
            return -1;
    }
    return topomap_qap_prepare(&B->q);
}

int topomap_qap_solve(const struct qap *q, double deadline, long max_visits, int *node,
                      double *cost, double *bound, long *visited)
{
    if (q->n < 0 || q->m < q->n || q->m > TOPOMAP_QAP_MAX) {
        errno = EINVAL;
        return -1;
    }
    struct bb B = {.q = {q->n, q->m, q->f, q->d, NULL, NULL}, .deadline = deadline,
                   .max_visits = max_visits, .best = 1e300};
    B.best_node = malloc(sizeof(int) * (size_t)(q->n + 1));
    int rc = -1;
    if (!B.best_node || bb_alloc(&B) < 0) {
        errno = ENOMEM;
        goto out;
    }
    if (*cost >= 0) {
        B.best = topomap_qap_cost(q, node);
        memcpy(B.best_node, node, sizeof(int) * (size_t)q->n);
    }
    branch_order(q, B.order);
    struct qap_state *s0 = &B.level[0];
    for (int i = 0; i < q->n; i++)
        s0->node[i] = -1;
    for (int k = 0; k < q->m; k++)
        s0->rank[k] = -1;
    s0->fixed = 0, s0->placed = 0;
    if (bound) {
        int nr, nc;
        double b = q->n ? topomap_qap_glb(&B.q, s0, B.rows, &nr, B.cols, &nc, B.red, B.work,
                                          B.iwork)
                        : 0;
        if (b < 0)
            goto out;
        *bound = b;
    }
    if (q->n > 0 && dfs(&B, 0) < 0)
        goto out;
    memcpy(node, B.best_node, sizeof(int) * (size_t)q->n);
    *cost = q->n ? B.best : 0;
    rc = !B.stopped;
out:
    if (visited)
        *visited = B.visited;
    bb_free(&B);
    free(B.best_node);
    return rc;
}

int topomap_qap_build(const struct topomap_problem *pb, struct qap *q)
{
    int n = pb->n, m = pb->nslots;
    double *f = calloc((size_t)n * (size_t)n + 1, sizeof *f);
    double *d = malloc(sizeof(double) * ((size_t)m * (size_t)m + 1));
    if (!f || !d) {
        free(f), free(d);
        errno = ENOMEM;
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int64_t e = pb->g.xadj[i]; e < pb->g.xadj[i + 1]; e++)
            f[(size_t)i * (size_t)n + (size_t)pb->g.adj[e]] = pb->g.w[e];
    /* The symmetric view holds each pair's bytes both ways: its sum over
     * the pairs i < j times hops is the hop-bytes. */
    for (int s = 0; s < m; s++)
        for (int t = 0; t < m; t++)
            d[(size_t)s * (size_t)m + (size_t)t] = topomap_slot_hops(pb, s, t);
    *q = (struct qap){n, m, f, d, NULL, NULL};
    return 0;
}

/* A node holding more than one slot of pb, or -1 when every slot is on a
 * node of its own. */
static int shared_node(const struct topomap_problem *pb)
{
    for (int s = 0; s < pb->nslots; s++)
        for (int t = s + 1; t < pb->nslots; t++)
            if (pb->slot_node[s] == pb->slot_node[t])
                return pb->slot_node[s];
    return -1;
}

/* Search from the best of node[] (cost *cost; < 0: none) and the exchange
 * descents, for at most max_visits search nodes (0: none) or until the
 * deadline; node[], *cost: the best found. 1 proven, 0 not, -1 (ENOMEM). */
static int search(const struct topomap_problem *pb, const struct qap *q, long max_visits,
                  int *node, double *cost)
{
    double bound = 0, t0 = topomap_now();
    long visited = 0;
    int *alt = malloc(sizeof(int) * ((size_t)q->n + 1));
    if (!alt) {
        errno = ENOMEM;
        return -1;
    }
    double c = topomap_qap_start(q, pb->opts->seed, alt);
    if (c < 0 && q->n > 0) {
        free(alt);
        return -1;
    }
    if (*cost < 0 || c < *cost) {
        *cost = c;
        memcpy(node, alt, sizeof(int) * (size_t)q->n);
    }
    free(alt);
    int rc = topomap_qap_solve(q, pb->deadline, max_visits, node, cost, &bound, &visited);
    if (rc >= 0)
        topomap_log(pb, "exact: hop-bytes %.10g, %s; root bound %.10g, %ld nodes, %.3f s", *cost,
                    rc ? "proven optimal" : "not proven (limit reached)", bound, visited,
                    topomap_now() - t0);
    return rc;
}

/* The algorithm: refuses (one line, ENOTSUP: `compare` lists it among those
 * that do not apply) what it cannot prove in reasonable time or what is no
 * one-rank-per-node job. */
int topomap_map_exact(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    if (pb->nslots > TOPOMAP_QAP_MAX)
        return topomap_fail(err, errlen, ENOTSUP,
                            "exact: %d slots; it solves jobs of at most %d nodes with one rank "
                            "per node (use auto)", pb->nslots, TOPOMAP_QAP_MAX);
    int shared = shared_node(pb);
    if (shared >= 0)
        return topomap_fail(err, errlen, ENOTSUP,
                            "exact: node %s has more than one slot; it places one rank per "
                            "node (use auto)",
                            topomap_topology_node_name(pb->topo, shared));
    struct qap q;
    if (topomap_qap_build(pb, &q) < 0)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    double cost = -1;
    int rc = search(pb, &q, 0, r2s, &cost);
    free((void *)q.f), free((void *)q.d);
    return rc < 0 ? topomap_fail(err, errlen, errno, "exact: out of memory") : 0;
}

double topomap_qap_from(const struct topomap_problem *pb, const int *r2s, struct qap *q,
                        int **node)
{
    if (topomap_qap_build(pb, q) < 0)
        return -1;
    if (!(*node = malloc(sizeof(int) * ((size_t)pb->n + 1)))) {
        free((void *)q->f), free((void *)q->d);
        errno = ENOMEM;
        return -1;
    }
    memcpy(*node, r2s, sizeof(int) * (size_t)pb->n);
    return topomap_qap_cost(q, *node);
}

int topomap_qap_keep(const struct topomap_problem *pb, struct qap *q, int *node, double start,
                     double cost, int *r2s, double *hop_bytes)
{
    int better = cost < start;
    if (better) {
        memcpy(r2s, node, sizeof(int) * (size_t)pb->n);
        *hop_bytes = cost;
    }
    free(node), free((void *)q->f), free((void *)q->d);
    return better;
}

int topomap_exact_improve(const struct topomap_problem *pb, int *r2s, long max_visits,
                          double *hop_bytes)
{
    if (pb->nslots > TOPOMAP_QAP_MAX || shared_node(pb) >= 0)
        return 0;
    struct qap q;
    int *node;
    double start = topomap_qap_from(pb, r2s, &q, &node), cost = start;
    if (start < 0)
        return -1;
    int rc = search(pb, &q, max_visits, node, &cost);
    if (rc < 0)
        cost = start;
    int better = topomap_qap_keep(pb, &q, node, start, cost, r2s, hop_bytes);
    return rc < 0 ? -1 : better;
}
