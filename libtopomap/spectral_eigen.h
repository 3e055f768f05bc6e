/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the spectral files: CP-NSC's similarity graph and its
 * eigensolvers (spectral_eigen.c), shared with the clustering
 * (spectral_cluster.c). */
#ifndef TOPOMAP_SPECTRAL_EIGEN_H
#define TOPOMAP_SPECTRAL_EIGEN_H

#include <stddef.h>
#include <stdint.h>

struct topomap_problem;

#define SELF_SIMILARITY 1.0

/* The induced similarity graph, local numbering, with D^-1/2. */
struct simgraph {
    int n;
    int64_t *xadj;
    int *adj;
    double *s;    /* off-diagonal similarities */
    double *dinv; /* 1 / sqrt(d_ii) */
    double *self; /* diagonal similarities, or NULL: all SELF_SIMILARITY (CP-NSC) */
};

void topomap_sim_free(struct simgraph *G);
/* y = M x, M = D^-1/2 S D^-1/2. */
void topomap_sim_matvec(const struct simgraph *G, const double *x, double *y);
/* Step 4 on G, whichever solver fits: the dense one up to
 * cpnsc_dense_max (tuning.h) vertices; ARPACK beyond, component by component on
 * a disconnected graph (ARPACK misses repeated eigenvalues). V: n x k column
 * major (caller allocated), rounded and signed canonically. Returns the
 * number of columns found, or -1 + errno. */
int topomap_spectral_solve(const struct simgraph *G, int k, const struct topomap_problem *pb,
                           double *V, char *err, size_t errlen);

#endif
