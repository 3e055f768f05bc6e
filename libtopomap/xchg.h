/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: the pair-exchange engine (xchg.c) and its near
 * lists, the bottom of the refinements (refine.h: the driver refine.c, the
 * iterated local search refine_ils.c) and of OHTMA's exchange phase; with
 * the whole-node exchanges on it (refine_groups.c). */
#ifndef TOPOMAP_XCHG_H
#define TOPOMAP_XCHG_H

#include "internal.h"

/* xchg.c: the pair-exchange engine. A placement of the n ranks of a problem
 * on its slots. Hop-bytes only depend on the node of each rank, so slots are
 * grouped by node ("groups", numbered in order of first slot); cost[i] is
 * sum_l g_il hops(grp(i), grp(l)) over the symmetric graph, so the hop-bytes
 * of eq. (1) of the OHTMA paper are sum_i cost[i] / 2. Exchanging the
 * contents of two slots touches only the two ranks and their neighbours. */
#define TOPOMAP_XCHG_DIMS 8
struct topomap_xchg {
    const struct topomap_problem *pb;
    int n, nslots, ngrp;
    int *slot_grp;      /* nslots: group of each slot */
    int *grp_node;      /* ngrp: topology node of each group */
    int *grp_xslot;     /* ngrp + 1: offsets into grp_slot */
    int *grp_slot;      /* nslots: the slots of each group, ascending */
    unsigned char *hop; /* ngrp * ngrp hop table, or NULL (then the topology is asked) */
    int metric;         /* 1: hops obey the triangle inequality (search may prune) */
    int *r2s;           /* n: slot of each rank, -1 = not placed */
    int *s2r;           /* nslots: rank in each slot, -1 = free */
    int *rgrp;          /* n: group of each placed rank */
    double *cost;       /* n: see above (0 until placed) */
    double *wdeg;       /* n: sum of the weights of each rank */
    int *near_x, *near; /* ngrp + 1 offsets, lists: groups near each group
                           (built by the refinement driver when needed) */
    /* Tori and meshes without a hop table: the coordinates of each group's
     * node (ngrp x gnd), so that hops are computed inline (same values as
     * the topology's, without its call and checks); gnd = 0 otherwise. */
    int gnd;
    int gdims[TOPOMAP_XCHG_DIMS], gwrap[TOPOMAP_XCHG_DIMS];
    int *gcrd;
};

/* Set up groups and hops with every slot free. 0, or -1 + errno (ENOMEM). */
int topomap_xchg_init(struct topomap_xchg *x, const struct topomap_problem *pb, char *err,
                      size_t errlen);
/* Same; hop_table 0: no ngrp^2 hop table (hops asked from the topology). */
int topomap_xchg_init_table(struct topomap_xchg *x, const struct topomap_problem *pb,
                            int hop_table, char *err, size_t errlen);
/* Build x->near (once; see near_x above): for every group, up to
 * TOPOMAP_XCHG_NEAR_MAX groups closest to it in the network. 0, or -1
 * (ENOMEM). */
#define TOPOMAP_XCHG_NEAR_MAX 12
int topomap_xchg_near(struct topomap_xchg *x);
/* 1 when t's near lists come from coordinates (tori and meshes whose
 * 2 x dims neighbours fit in a list), 0 when they need the hop table. */
int topomap_xchg_near_coords(const topomap_topology_t *t);
/* Place rank i on slot r2s[i] for every rank (distinct valid slots), compute costs. */
void topomap_xchg_place(struct topomap_xchg *x, const int *r2s);
void topomap_xchg_free(struct topomap_xchg *x);
/* Hops between groups ga and gb: from the hop table when there is one,
 * else from the coordinates (tori, meshes), else from the topology. */
static inline int topomap_xchg_hops(const struct topomap_xchg *x, int ga, int gb)
{
    if (x->hop)
        return x->hop[(size_t)ga * (size_t)x->ngrp + (size_t)gb];
    if (x->gnd)
        return topomap_coord_hops(x->gcrd + (size_t)ga * (size_t)x->gnd,
                                 x->gcrd + (size_t)gb * (size_t)x->gnd, x->gdims, x->gwrap,
                                 x->gnd);
    return topomap_topology_hops(x->pb->topo, x->grp_node[ga], x->grp_node[gb]);
}
/* sum_l g_il hops(grp, grp(l)): the cost rank i would have on group grp. */
double topomap_xchg_cost_at(const struct topomap_xchg *x, int i, int grp);
/* g_ij (0 when i and j do not communicate); O(log degree). */
double topomap_xchg_weight(const struct topomap_xchg *x, int i, int j);
/* Hop-bytes saved by exchanging the contents (rank or nothing) of slots s1
 * and s2: positive = better. Exact, not the approximation of line 26 of
 * Algorithm 1 (see map_ohtma.c). */
double topomap_xchg_gain(const struct topomap_xchg *x, int s1, int s2);
/* The same, and in *scale the size of the terms it was computed from (for
 * a rounding threshold). */
double topomap_xchg_slot_gain(const struct topomap_xchg *x, int s1, int s2, double *scale);
/* Exchange the contents of slots s1 and s2 and update the costs. */
void topomap_xchg_swap(struct topomap_xchg *x, int s1, int s2);
/* Hop-bytes of the placement, recomputed from scratch. */
double topomap_xchg_hop_bytes(const struct topomap_xchg *x);

/* refine_groups.c: exchanges of the whole contents of two nodes (ours; see
 * the file), on the placement held in x, until a pass finds none or the
 * deadline; *removed = the hop-bytes removed. Nothing to do with one slot
 * per node. 0, or -1 + errno (ENOMEM). topomap_refine (refine.h) alternates
 * it with the rank refinement up to REFINE_GROUP_ROUNDS times. */
int topomap_refine_groups(struct topomap_xchg *x, double deadline, double *removed, char *err,
                          size_t errlen);

#endif
