/* SPDX-License-Identifier: BSD-3-Clause */
/* The top-down split of treematch (treematch_kpart.c) and the bisection of
 * a set of processes it is made of (treematch_bisect.c): what the threads
 * share, one thread's workspace, and the bisection's steps. Private to
 * these two files. */
#ifndef TOPOMAP_TREEMATCH_SPLIT_H
#define TOPOMAP_TREEMATCH_SPLIT_H

#include <metis.h>

#include "treematch.h"

/* A process that may leave its part: how much more it sends elsewhere. */
struct mover {
    double pull;
    int i;
};

/* An entry of the FM gain heaps (lazy: stale when ver differs). */
struct hent {
    int64_t gain;
    int v, ver;
};

/* What the threads share: the inputs, the child of each process (each
 * written by the one task that splits its vertex), one workspace per
 * thread, and the first failure (an errno value, 0 while none). */
struct kpshared {
    const topomap_graph_t *g;
    const struct topomap_problem *pb;
    int n;
    int net;    /* 1: splitting a switch (not inside a node); set per level */
    int *child; /* n: the child each process goes to (by process) */
    struct kp *ws;
    int nws;
    int fail;
};

/* One thread's workspace. loc is indexed by process (all -1 between uses:
 * a thread's own, since a neighbour may be in another thread's set); the
 * rest by local index, grown to the largest set the thread meets. */
struct kp {
    struct kpshared *S;
    const topomap_graph_t *g;
    const struct topomap_problem *pb;
    int *child;
    int *loc;         /* n: index inside the current bisection, -1 outside */
    int *part, *bpart; /* side (0, 1) of each local process; the best so far */
    int *tmp;
    struct mover *mv;
    idx_t *xadj, *adj, *wgt, *ipart;
    /* FM: gains, versions, locks, the moves of a pass, two heaps. */
    int64_t *gain, *keys; /* keys: pairs of children (refine_pairs) */
    int *ver, *moved;
    char *lock;
    struct hent *heap[2];
    int hn[2];
    size_t capn, capm; /* room for this many local processes, local edges */
};

/* The calling thread's workspace (one per thread of the region). */
struct kp *tm_kp_self(struct kpshared *S);
/* K's local arrays freed (not loc), its room back to none. */
void tm_kp_free(struct kp *K);
/* Room in K for the processes pr[0 .. p) and their edges. 0, or -1 +
 * ENOMEM. */
int tm_kp_room(struct kp *K, const int *pr, int p);
/* The graph induced on pr[0 .. p) in K (local numbers, K->loc set; the
 * caller resets it): 0 when no traffic stays inside, else 1. */
int tm_kp_local_graph(struct kp *K, const int *pr, int p);
/* Fiduccia-Mattheyses passes on the bisection K->part of the p local
 * vertices, sizes kept; returns the cut's total decrease. */
int64_t tm_kp_fm(struct kp *K, int p);
/* K->part[i] = 0 for want0 of pr[0 .. p) (0 < want0 < p), 1 for the
 * others, the cut small. 0, or -1 + errno. */
int tm_kp_bisect(struct kp *K, const int *pr, int p, int want0);

#endif
