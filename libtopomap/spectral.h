/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the spectral mappings (map_spectral.c and spectral_*.c; Wang et
 * al. 2015, and spectral-fit, ours): CP-NSC, spectral-fit's bisection, the
 * cluster schemes and APE. */
#ifndef TOPOMAP_SPECTRAL_H
#define TOPOMAP_SPECTRAL_H

#include "internal.h"

/* spectral_cluster.c: CP-NSC (Wang et al. 2015, Algorithm 1) on the
 * subgraph of pb->g induced by the distinct ranks ranks[0..nr): at most k
 * clusters, label[i] = cluster of ranks[i], clusters numbered in order of
 * their first member. loc: n ints, all -1, used as scratch and left all -1.
 * Seeded by pb->opts->seed; stops with ETIMEDOUT at pb's deadline.
 * Returns the number of clusters (<= k; fewer only when k-means finds fewer
 * distinct points), or -1 + errno. */
int topomap_cpnsc(const struct topomap_problem *pb, const int *ranks, int nr, int k, int *loc,
                  int *label, char *err, size_t errlen);
/* spectral_cluster.c, for spectral-fit: the k leading eigenvectors of the
 * walk matrix D^-1 S of the graph of n vertices whose similarities are w
 * (CSR xadj/adj, symmetric, no diagonal) and self[i] on the diagonal (d_ii =
 * self[i] + sum_j w_ij), with CP-NSC's solvers (dense up to
 * cpnsc_dense_max vertices (tuning.h), ARPACK beyond). X: n x k column major,
 * columns by decreasing eigenvalue (lambda[0..k)), each D^-1/2 v for a unit
 * v. k < n. Returns the number of columns found (<= k), or -1 + errno. */
int topomap_walk_vectors(const struct topomap_problem *pb, int n, const int64_t *xadj,
                         const int *adj, const double *w, const double *self, int k, double *X,
                         double *lambda, char *err, size_t errlen);
/* spectral_fit.c, ours (spectral-fit): ranks[0..nr) cut into the k
 * parts of cap[0..k) slots by recursive bisection: the parts split in two
 * runs of about half the slots, the ranks by topomap_fit_bisect. label[i] =
 * part of ranks[i]. 0, or -1 + errno (ENOSPC: fewer slots than ranks, ENOMEM,
 * ETIMEDOUT). */
int topomap_cpnsc_fit(const struct topomap_problem *pb, const int *ranks, int nr, int k,
                      const int *cap, int *loc, int *label, char *err, size_t errlen);
/* A weighted graph for spectral-fit's bisection: traffic w on the edges
 * (CSR, symmetric, no diagonal), vw ranks per vertex, self the similarity
 * inside each vertex (the diagonal of CP-NSC's S, summed when vertices are
 * merged). */
struct topomap_bgraph {
    int n;
    int64_t *xadj;
    int *adj;
    double *w;
    double *self;
    int *vw;
};
/* spectral_bisect.c: frees G's arrays and zeroes it. */
void topomap_bgraph_free(struct topomap_bgraph *G);
/* spectral_bisect.c, ours: side[i] = 0 (left) or 1 (right) for the vertices
 * of G, the vertex weight on the left in [lo, hi] (lo <= hi, reachable),
 * closest to target among the cuts of least traffic found; multilevel
 * spectral bisection with Fiduccia-Mattheyses refinement (see the file).
 * With nalt > 1, up to nalt different cuts (side: nalt * G->n chars), the
 * best first, the others from the coarse cuts within 1% of the best one;
 * cuts[j] (may be NULL): the traffic across cut j. Deterministic for a given
 * seed. Returns the number of cuts (>= 1), or -1 + errno. */
int topomap_fit_bisect(const struct topomap_problem *pb, const struct topomap_bgraph *G, long lo,
                       long hi, long target, uint64_t seed, int nalt, char *side, double *cuts,
                       char *err, size_t errlen);

/* spectral_place.c: the cluster mapping schemes of section 4.4.2. */
enum { TOPOMAP_CLUSTER_PLAIN = 1, TOPOMAP_CLUSTER_FF = 2, TOPOMAP_CLUSTER_MR = 3 };
/* The scheme the stdev/threshold rule picks for nclus clusters of sizes
 * cx[c + 1] - cx[c]. */
int topomap_cluster_scheme(int nclus, const int *cx);
/* "plain", "first-fit", "most-reservation". */
const char *topomap_cluster_scheme_name(int scheme);
/* Place nclus clusters (cluster c: members cmem[cx[c]..cx[c+1]), in
 * increasing order, numbered in order of their first member) onto nbins
 * nodes of cap[b] slots, in order, with scheme TOPOMAP_CLUSTER_*: fills
 * bin_of[member] for every member. 0, or -1 + errno (ENOSPC: more members
 * than slots, ENOMEM). */
int topomap_cluster_map(int scheme, int nclus, const int *cx, const int *cmem, int nbins,
                        const int *cap, int *bin_of);

/* spectral_ape.c: APE (Wang et al. 2015, Algorithm 4) on the mapping r2s,
 * updated in place: piece[r] in [0, np) is the cluster of rank r (every
 * cluster on one node; empty clusters allowed). 0, or -1 + errno (ENOMEM).
 * Stops at the deadline or after opts->loop exchanges tried (when >= 0). */
int topomap_ape(const struct topomap_problem *pb, int *r2s, const int *piece, int np, char *err,
                size_t errlen);

#endif
