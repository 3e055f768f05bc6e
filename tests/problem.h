/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests only: a mapping problem built as topomap_map() builds it, for the
 * tests that call the library's internals (the exchange engine) directly. */
#ifndef TOPOMAP_TESTS_PROBLEM_H
#define TOPOMAP_TESTS_PROBLEM_H

#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A problem as topomap_map() builds it, for direct calls to internals. */
struct prob {
    struct topomap_problem pb;
    topomap_opts_t o;
    int *sn, *sc;
};

static inline void prob_init(struct prob *P, const topomap_profile_t *p, const topomap_alloc_t *a)
{
    memset(P, 0, sizeof *P);
    topomap_opts_init(&P->o);
    P->pb.profile = p;
    P->pb.alloc = a;
    P->pb.topo = topomap_alloc_topology(a);
    P->pb.opts = &P->o;
    P->pb.n = topomap_profile_nranks(p);
    P->pb.nslots = topomap_alloc_nslots(a);
    topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &P->pb.g);
    P->sn = malloc(sizeof(int) * (size_t)P->pb.nslots);
    P->sc = malloc(sizeof(int) * (size_t)P->pb.nslots);
    for (int s = 0; s < P->pb.nslots; s++) {
        P->sn[s] = topomap_alloc_slot_node(a, s);
        P->sc[s] = topomap_alloc_slot_core(a, s);
    }
    P->pb.slot_node = P->sn;
    P->pb.slot_core = P->sc;
}

/* An allocation of every node of t, in index order (slots as
 * topomap_alloc_create() reads them); caller frees. */
static inline topomap_alloc_t *prob_all_nodes(const topomap_topology_t *t, const char *slots,
                                              char *err, size_t errlen)
{
    int nn = topomap_topology_nnodes(t);
    const char **names = malloc(sizeof(char *) * (size_t)nn);
    for (int i = 0; i < nn; i++)
        names[i] = topomap_topology_node_name(t, i);
    char *hl = topomap_hostlist_compress(names, (size_t)nn);
    topomap_alloc_t *a = topomap_alloc_create(t, hl, slots, err, errlen);
    free(hl);
    free(names);
    return a;
}

/* OHTMA's backtrack (Algorithm 1, lines 33-35): the length of the prefix of
 * the steps' savings res[0..steps-1] with the largest sum, the shortest on
 * ties (0 when no prefix saves anything). */
static inline long best_prefix(const double *res, long steps)
{
    long keep = 0;
    double cum = 0, top = 0; /* savings of the first k steps; the largest */
    for (long k = 1; k <= steps; k++)
        if ((cum += res[k - 1]) > top)
            top = cum, keep = k;
    return keep;
}

static inline void prob_free(struct prob *P)
{
    free(P->sn);
    free(P->sc);
}

#endif
