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

/* ---- The candidates and the state of one run (map_auto.c) ---- */

/* A candidate's estimated work against the budget: 0, always run (block,
 * grid, the first drb, treematch); > 0, that many times the work of the
 * first drb + refine (measured at 512 to 4096 ranks: the other seeds, block +
 * refine and greedy + refine about 1x, spectral-fit and ohtma, whose own
 * phases are not counted, up to 2x); COST_SELF, the candidate estimates
 * itself and declines over its allowance (analytic-anchor). */
#define COST_ALWAYS 0.0
#define COST_SELF -1.0

struct cand {
    const char *name;
    topomap_map_fn fn;
    int refine;
    uint64_t seed_offset;
    int optional; /* 1: a failure (the algorithm declines) skips it */
    double cost;
    int unit;      /* 1: drb or the multilevel scheme: the first to succeed sets W */
    int ends_grid; /* 1: grid: chosen on a job over AUTO_GRID_ALONE ranks, the search ends */
    double time_ratio; /* its time in units of the fast start's (auto_time_ratio()); 0: 1 */
    int fast;          /* 1: the fast start, whose time is that unit */
};

/* The state of one run of auto, shared by its steps. */
struct auto_run {
    const struct topomap_problem *pb;
    struct topomap_problem sub; /* pb with auto's grid, options and deadline */
    topomap_opts_t so;
    topomap_grid_t g;
    struct cand c[24];
    int nc;
    int *gc, *tmp;
    /* raw: the mapping of candidate `rawk` before refinement, reused by a
     * next candidate of the same algorithm and seed (treematch, then
     * treematch+refine). */
    int *raw, rawk;
    /* low: with the congestion objective or on dragonflies, the candidate of
     * lowest score (low_hb), kept or not. */
    int *low, low_k;
    double low_hb;
    /* best: the key of the kept mapping (auto_judge()), best_hb its score. */
    double best, best_hb;
    int chosen, tried;
    int spread; /* 1: the kept mapping is the spread step's, from candidate chosen */
    struct auto_guard gd;
    /* Work spent so far and that of the first drb + refine (-1: not yet). */
    double spent, w_drb;
    /* Hierarchical nodes: every candidate gets the node-internal placement
     * and candidates are compared by SumCom, which sees the node levels;
     * otherwise by hop-bytes. */
    int sumcom;
    double floor_hb;
    int fast_k;      /* the fast start's candidate, -1: none */
    double t_fast;   /* its time (s), 0: not run */
    topomap_node_place_t place; /* the candidates' node placement */
    double t0, end; /* start, and the caller's deadline for auto (0: none) */
    double start_by;  /* no candidate starts after this (0: none) */
    /* Threads (auto_batch.c): nc results of candidates run side by side,
     * NULL with one thread; late: the search ended on the time limit. */
    struct auto_res *res;
    int late;
};

/* auto_batch.c, which runs the candidates (alone or side by side): */
/* With a time limit: candidate c's time in units of the fast start's. */
double auto_time_ratio(const struct cand *c);
/* Whether candidate k reuses the unrefined mapping of candidate k - 1
 * (same algorithm and seed: treematch, then treematch+refine). */
int auto_reuses_raw(const struct auto_run *ar, int k);
/* Candidate k into out: its algorithm (or, raw_in not NULL, the unrefined
 * mapping of the candidate before it, same algorithm and seed), its
 * refinement and node placement, on sub with its options so (the caller's
 * copies of ar->sub and ar->so: only their seed and work change). The
 * unrefined mapping goes to raw_out (NULL: nowhere), *raw_ok = 1 then; the
 * work counted in *cw. Reads ar only. 0, or -1 + errno and err. */
int auto_cand_run(const struct auto_run *ar, int k, struct topomap_problem *sub,
                  topomap_opts_t *so, const int *raw_in, int *out, int *raw_out, int *raw_ok,
                  double *cw, char *err, size_t errlen);

/* ---- Candidates side by side (auto_batch.c) ---- */

/* A candidate's outcome when it ran in a batch: what candidate() would have
 * seen had it run it there and then. */
struct auto_res {
    int ready;       /* 1: ran in a batch, the fields below are its outcome */
    int rc, errnum;  /* auto_cand_run()'s return and errno */
    int raw_ok;      /* raw holds the unrefined mapping */
    int *map, *raw;  /* n each */
    double work, secs;
    char err[TOPOMAP_ERRLEN];
    char *log;       /* its progress lines, each ended by '\n'; NULL: none */
    size_t loglen, logcap;
};

/* Runs candidates k, k+1, ... side by side on the caller's threads, when
 * it has more than one (see doc/algorithms.md#threads): their outcomes in
 * ar->res[] (ready), judged later in candidate order by candidate() exactly
 * as if each had run then. Returns how many candidates from k the batch
 * covers (1 and nothing ran: candidate k runs alone, as with one thread),
 * or -1 + errno (ENOMEM). */
int auto_batch(struct auto_run *ar, int k);
/* The progress lines of res replayed through pb's log, and freed. */
void auto_res_replay(const struct topomap_problem *pb, struct auto_res *res);
/* Frees ar->res. */
void auto_res_free(struct auto_run *ar);

#endif
