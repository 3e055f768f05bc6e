/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-reorder: what the MPI interposition (reorder_mpi.c) and the
 * MPI-free graph construction and mapping decision (reorder_plan.c) share.
 * Private to reorder; reorder_plan.c is also linked into the unit
 * test tests/reorder_graph.t. See README.md. */
#ifndef TOPOMAP_REORDER_H
#define TOPOMAP_REORDER_H

#include <stddef.h>
#include "topomap.h"

/* The communication graph of a topology constructor: n vertices (vertex r
 * is rank r of the communicator the application asked for), directed edges
 * src[k] -> dst[k] of weight w[k]. Built by tr_graph_cart() and
 * tr_graph_lists(); duplicates are merged (weights summed) and edges sorted
 * by (src, dst); self loops are kept (they cost nothing). Free with
 * tr_graph_free(). */
typedef struct tr_graph {
    int n;
    size_t nedges;
    int *src, *dst;
    double *w;
} tr_graph_t;

/* The stencil of a Cartesian grid of @p ndims dimensions @p dims (row-major
 * ranks, the last dimension fastest, as MPI numbers them): each vertex sends
 * weight 1 to its neighbours -1 and +1 in each dimension, wrapping around
 * where periods[d] is nonzero and omitted at the border otherwise. Where both
 * directions reach the same vertex (a periodic dimension of 2) the edge has
 * weight 2; a periodic dimension of 1 gives a self loop. ndims 0: one vertex,
 * no edges. @return 0, or -1 with errno EINVAL (ndims < 0, a dimension < 1,
 * more than @p maxn vertices) or ENOMEM. */
int tr_graph_cart(int ndims, const int *dims, const int *periods, int maxn, tr_graph_t *g);

/* The graph of declared out-edges: vertex v sends to dst[off[v] .. off[v+1]-1]
 * with weights w[...] (NULL or unweighted[v] nonzero: weight 1, MPI_UNWEIGHTED).
 * @p unweighted may be NULL. @return 0, or -1 with errno EINVAL (a
 * destination out of [0, n), a negative or non-finite weight) or ENOMEM. */
int tr_graph_lists(int n, const int *off, const int *dst, const int *w, const int *unweighted,
                   tr_graph_t *g);

/* The graph of @p m edges src[k] -> dst[k] of weight w[k] (w NULL: 1 each),
 * as MPI_Dist_graph_create's arguments gathered from every rank.
 * @return 0, or -1 with errno EINVAL (a vertex out of [0, n), a negative
 * weight) or ENOMEM. */
int tr_graph_edges(int n, size_t m, const int *src, const int *dst, const int *w, tr_graph_t *g);

void tr_graph_free(tr_graph_t *g);

/* The mapping decision. n processes (old ranks 0..n-1) run on host[i] with
 * first bound CPU cpu[i] (-1: unknown). The allocation is the hosts in order
 * of first appearance, each with as many slots as processes on it; the
 * processes of a host hold its slots in order of (cpu, old rank). Graph @p g
 * (g->n <= n vertices) is mapped onto these slots with topomap_map("auto")
 * (seed 1, @p time_limit seconds, 0: none). Then newrank[i] is the vertex
 * given the slot of process i; processes whose slot got no vertex take the
 * ranks g->n .. n-1 in old rank order. When the mapping's hop-bytes are not
 * lower than those of the current placement (vertex r on the slot of old
 * rank r) the answer is the identity, with reason "no gain".
 * hb[0], hb[1]: hop-bytes of the current placement and of the answer.
 * @return 1 reordered, 0 identity kept (no gain; @p err says so), -1 failure
 * with errno and a one-line reason in @p err (unknown host, mapping error). */
int tr_decide(const tr_graph_t *g, int n, const char *const *host, const int *cpu,
              const topomap_topology_t *t, double time_limit, int *newrank, double hb[2],
              char *err, size_t errlen);

/* The topology named by @p name: a path (contains '/' or exists), else
 * NAME or NAME.yaml in the directories of $TOPOMAP_TOPOLOGY_PATH (':'
 * separated), then in @p shipped (the installed topologies; may be NULL),
 * as `topomap --topology NAME` finds them. @return a new topology, or NULL
 * with a reason in @p err. */
topomap_topology_t *tr_topology_find(const char *name, const char *shipped, char *err,
                                     size_t errlen);

#endif
