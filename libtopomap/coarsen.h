/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: the multilevel mapping of large jobs (coarsen.c). */
#ifndef TOPOMAP_COARSEN_H
#define TOPOMAP_COARSEN_H

#include "internal.h"
#include "tuning.h"


/* 1 when topomap_map_coarse applies: every node holds as many slots. */
int topomap_coarse_applies(const struct topomap_problem *pb);

/* The ranks cut into node-sized groups: group[r] in 0..ngroups-1, each group
 * of size[g] ranks, sizes within one of each other and at most `cap`
 * (ngroups = ceil(n / cap)). METIS k-way partition of pb->g, then made exact
 * by moving the least attached ranks of over-full groups. Deterministic
 * (METIS seeded by pb->opts->seed, serial). 0, or -1 + errno. */
int topomap_coarsen_groups(const struct topomap_problem *pb, int cap, int *group,
                           int *ngroups, char *err, size_t errlen);

/* multilevel mapping: node-sized groups (topomap_coarsen_groups), their
 * quotient graph mapped onto the nodes by drb and refined there, the ranks
 * of each group on its node's slots, then the rank refinement within the
 * deadline. ECANCELED when the nodes hold unequal numbers of slots. */
int topomap_map_coarse(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);

#endif
