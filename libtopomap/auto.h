/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: how auto (map_auto.c) scores and keeps its
 * candidates (auto_guard.c): the score (hop-bytes or SumCom), the
 * busiest-link guard, the keys of the congestion objective, of dragonflies
 * and of uneven bandwidths (see the top of map_auto.c). */
#ifndef TOPOMAP_AUTO_H
#define TOPOMAP_AUTO_H

#include "internal.h"

/* The busiest-link guard and the congestion objective (map_auto.c, top). */
struct auto_guard {
    int on;       /* 0: guard off (time), nothing checked */
    int mixed;    /* 1: objective congestion, candidates keyed by auto_mixed() */
    int dfly;     /* 1: a network with global links, candidates keyed by auto_dfly_key() */
    int uneven;   /* 1: channels of several bandwidths (not dfly), keyed by auto_mixed() */
    double cb, hb; /* block's busiest link and hop-bytes (score) */
    double gb;    /* block's busiest global link (dfly) */
};

/* The score of r2s: hop-bytes, or with sumcom SumCom. */
double auto_score(const struct topomap_problem *pb, const int *r2s, int sumcom);
/* 1 on networks with a global link class (dragonflies). */
int auto_has_global_links(const topomap_topology_t *t);
/* The guard from block's mapping r2s and its score hb. 0, or -1 + errno. */
int auto_guard_init(struct auto_guard *gd, const struct topomap_problem *pb,
                    const struct topomap_problem *sub, const int *r2s, double hb);
/* The key of block's own mapping. */
double auto_block_key(const struct auto_guard *gd);
/* The key of a mapping of score hb in *key; 1 when it may be kept (below
 * best, best < 0: none yet, and within the guard), 0 when not, -1 + errno. */
int auto_judge(const struct auto_guard *gd, const struct topomap_problem *pb, const int *r2s,
               double hb, double best, double *key);
/* auto_judge() for a mapping after the candidates: on 1, *best = *key. */
int auto_keep_if(const struct auto_guard *gd, const struct topomap_problem *pb, const int *r2s,
                 double hb, double *best, double *key);
/* `from` refined in tmp for the congestion objective over the channels of
 * class cls (-1: all), copied to r2s when kept: 1, else 0; -1 + errno. */
int auto_refine_kept(const struct auto_guard *gd, const struct topomap_problem *sub,
                     const int *from, int *r2s, int *tmp, int sumcom, int cls, double *best,
                     char *err, size_t errlen);

#endif
