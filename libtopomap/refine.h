/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: the refinements built on the pair-exchange engine
 * (xchg.h): the driver (refine.c) and the iterated local search
 * (refine_ils.c), which NAME+refine, auto, the multilevel scheme and OHTMA's
 * exchange phase run. */
#ifndef TOPOMAP_REFINE_H
#define TOPOMAP_REFINE_H

#include "internal.h"
#include "xchg.h"

/* The swap-refinement driver: passes of best-improving moves (exchange two
 * ranks, or move a rank to a free slot) evaluated in parallel on a frozen
 * state and committed in rank order after re-checking their gain, until a
 * pass commits nothing (no improving exchange or move is left in the searched
 * neighbourhoods), a pass removes less than min_gain x the hop-bytes,
 * max_passes passes (0 = no limit) or the deadline (topomap_now() value,
 * 0 = none). Scope: which groups (nodes) a rank looks at: all of them
 * (O(ranks x nodes) a pass), or those of its neighbours and the groups near
 * them in the network (O(edges x near)); AUTO searches all of them when
 * ranks x nodes is small. Results do not depend on the number of threads. */
/* The stopping gain of the refinement run by NAME+refine and auto. */
#define REFINE_MIN_GAIN 1e-4
enum { TOPOMAP_REFINE_AUTO = 0, TOPOMAP_REFINE_NEAR = 1, TOPOMAP_REFINE_ALL = 2 };
struct topomap_refine_params {
    long max_passes;
    double deadline;
    double min_gain; /* relative gain of a pass below which to stop, 0 = none */
    int scope;       /* TOPOMAP_REFINE_* */
};
struct topomap_refine_stats {
    long passes, swaps, moves; /* moves: to a free slot */
    double gain;               /* hop-bytes removed */
    int converged;             /* 1: the last pass found nothing to do */
    int all;                   /* 1: every group was searched */
    long work, looks;          /* steps counted (see topomap_problem.work) */
};
int topomap_xchg_refine(struct topomap_xchg *x, const struct topomap_refine_params *rp,
                        struct topomap_refine_stats *st, char *err, size_t errlen);
/* Local descent from the ranks in active[] (the iterated local search of
 * refine_ils.c): ranks are taken from a queue, each commits its best
 * improving exchange in the refinement's neighbourhood (all groups on small
 * jobs), and a rank that moved queues itself, its partner and their
 * neighbours again; until the queue is empty or the deadline (topomap_now()
 * value, 0: none) passes. When the queue empties, no rank it looked at is
 * left with an improving move to a free slot in its neighbourhood; an
 * exchange whose other rank changed since may be left (cheap, not a full
 * pass). *gain = hop-bytes removed.
 * 0, or -1 + errno (ENOMEM). */
int topomap_xchg_descend(struct topomap_xchg *x, const int *active, int nactive,
                         double deadline, double *gain, char *err, size_t errlen);
/* Same from a rank -> slot array, updated in place; rp and st may be NULL. */
int topomap_refine(const struct topomap_problem *pb, int *r2s,
                   const struct topomap_refine_params *rp, struct topomap_refine_stats *st,
                   char *err, size_t errlen);

/* The rounds of rank refinement and whole-node exchanges (refine_groups.c,
 * xchg.h) topomap_refine runs at most. */
#define REFINE_GROUP_ROUNDS 4
/* refine_ils.c: iterated local search (ours; see the file) from r2s, with
 * `tries` kicks (fewer when the deadline passes), updated in place when it
 * found better; *removed = hop-bytes removed. 0, or -1 + errno (ENOMEM). */
int topomap_refine_ils(const struct topomap_problem *pb, int *r2s, int tries, double deadline,
                       double *removed, char *err, size_t errlen);
/* refine.c: the rank refinement (topomap_xchg_refine), then whole-node exchanges and
 * the rank refinement again while they find something (at most
 * REFINE_GROUP_ROUNDS rounds); st sums all of it. What topomap_refine runs. */
int topomap_xchg_refine_full(struct topomap_xchg *x, const struct topomap_refine_params *rp,
                             struct topomap_refine_stats *st, char *err, size_t errlen);

#endif
