/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: the quadratic assignment of ranks to nodes, one
 * rank per node, solved exactly (map_exact.c) or bounded from below
 * (bound_glb.c): the linear assignment (lap.c) and the Gilmore-Lawler bound. */
#ifndef TOPOMAP_QAP_H
#define TOPOMAP_QAP_H

#include <stdint.h>

struct topomap_problem;

/* lap.c: the least-cost assignment of rows 0 .. nr-1 to distinct columns
 * 0 .. nc-1 (nr <= nc) of the row-major nr x nc matrix c. Fills col[r] (the
 * column of row r) and, when not NULL, the optimal dual u[nr], v[nc]
 * (u[r] + v[k] <= c[r][k], v <= 0, v = 0 on unassigned columns): forcing
 * row r onto column k costs at least the optimum + c[r][k] - u[r] - v[k].
 * Returns the optimum, or -1 with errno ENOMEM (costs must be >= 0). */
double topomap_lap(int nr, int nc, const double *c, int *col, double *u, double *v);

/* The small dense problem: n ranks on m >= n nodes, f the n x n symmetric
 * weights (bytes both ways, zero diagonal), d the m x m hops; the cost of a
 * placement is the sum over pairs i < j of f[i][j] d[node i][node j]: the
 * hop-bytes. */
struct qap {
    int n, m;
    const double *f, *d;
    /* Built by topomap_qap_prepare(): each rank's partners by weight,
     * heaviest first, and each node's other nodes by hops, nearest first
     * (ties by index: deterministic). */
    int *wrank, *dnode;
};
/* The state of a partial placement: node[i] of rank i (-1: not placed),
 * rank[k] on node k (-1: free), fixed = the cost of the placed pairs,
 * part[i * m + k] = the cost of unplaced rank i on free node k against the
 * placed ranks. */
struct qap_state {
    int *node, *rank;
    double fixed;
    double *part;
    int placed;
};
/* The problem of pb (ranks onto its slots, the hops between slots) as a
 * struct qap: f and d allocated, the caller frees them. 0, or -1 (ENOMEM).
 * map_exact.c. */
int topomap_qap_build(const struct topomap_problem *pb, struct qap *q);
/* The hop-bytes of placement node[] (rank -> node of q). */
double topomap_qap_cost(const struct qap *q, const int *node);
/* auto's steps on it: the problem of pb in *q and a copy of r2s in *node
 * (allocated); returns the copy's cost, or -1 (ENOMEM, nothing allocated).
 * _keep copies node into r2s and cost into *hop_bytes when cost < start,
 * frees what _from allocated, and returns 1 when it copied, else 0. */
double topomap_qap_from(const struct topomap_problem *pb, const int *r2s, struct qap *q,
                        int **node);
int topomap_qap_keep(const struct topomap_problem *pb, struct qap *q, int *node, double start,
                     double cost, int *r2s, double *hop_bytes);
/* 0, or -1 with errno ENOMEM; _release frees what _prepare allocated. */
int topomap_qap_prepare(struct qap *q);
void topomap_qap_release(struct qap *q);
/* Place rank i on node k in s (both free), updating fixed and part. */
void topomap_qap_place(const struct qap *q, struct qap_state *s, int i, int k);
/* The Gilmore-Lawler bound of every completion of s: fixed + the least
 * assignment of the unplaced ranks to the free nodes, rank i on node k
 * costing part[i][k] + half the rearrangement minimum of i's weights to
 * the other unplaced ranks against k's hops to the other free nodes. Fills
 * rows[] / cols[] (the unplaced ranks, the free nodes, in order), the
 * reduced cost red[a * ncols + b] of forcing rows[a] onto cols[b] and the
 * counts; work holds 3 m x m + 2 m doubles, iwork 2 m ints. Returns the
 * bound, or -1 (ENOMEM). */
double topomap_qap_glb(const struct qap *q, const struct qap_state *s, int *rows, int *nrows,
                       int *cols, int *ncols, double *red, double *work, int *iwork);

/* map_exact.c: the least-cost placement of q (m <= TOPOMAP_QAP_MAX) by
 * branch-and-bound, from the placement node[] of cost *cost (or *cost < 0:
 * none) until proven, past deadline (a topomap_now() value; 0: none) or
 * after max_visits search nodes (0: no limit).
 * node[] and *cost get the best found; *bound (may be NULL) the root's
 * Gilmore-Lawler bound; *visited (may be NULL) the search nodes bounded.
 * Returns 1 when the answer is proven optimal (to a relative 1e-9), 0 when
 * a limit came first, -1 with errno (ENOMEM; EINVAL: m out of range). */
#define TOPOMAP_QAP_MAX 24
int topomap_qap_solve(const struct qap *q, double deadline, long max_visits, int *node,
                      double *cost, double *bound, long *visited);
/* auto's last step on small jobs (topomap_exact_improve()): jobs of at most
 * this many nodes, this many search nodes (0.03 to 0.15 s at 16 ranks on
 * the 2-core benchmark machine). */
#define AUTO_EXACT_NODES 16
#define AUTO_EXACT_VISITS 40000L
/* A start for it: the best of pair-exchange descents from block's order
 * and from seeded random ones, into node[]; its cost, or -1 (ENOMEM). */
double topomap_qap_start(const struct qap *q, uint64_t seed, int *node);

/* refine_tabu.c: Taillard's robust tabu search from placement node[] of
 * cost *cost, for iters iterations but at most work units of work (0: no
 * cap; an iteration costs n m - n (n + 1) / 2 + 6 m x the mean partner count), or
 * until deadline (a topomap_now() value; 0: none), the seed's generator
 * drawing the tabu tenure; group[k]
 * is the network node of location k (exchanges inside one node are not
 * looked at). node[] and *cost get the best found. Returns the iterations
 * made, or -1 with errno ENOMEM. */
long topomap_qap_tabu(const struct qap *q, const int *group, int *node, double *cost, long iters,
                      double work, uint64_t seed, double deadline);
/* auto's step on small jobs (topomap_tabu_improve()): jobs of at most this
 * many slots, AUTO_TABU_ITERS_PER_SLOT iterations per slot but at most
 * AUTO_TABU_WORK units of work (about 0.2 s on the benchmark machine;
 * measured in doc/benchmarks.md). */
#define AUTO_TABU_SLOTS 1024
#define AUTO_TABU_ITERS_PER_SLOT 50
#define AUTO_TABU_WORK 1.5e8

#endif
