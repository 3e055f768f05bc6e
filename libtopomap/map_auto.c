/* SPDX-License-Identifier: BSD-3-Clause */
/* auto: no single heuristic wins everywhere, so run a list of candidates,
 * each followed by the refinement engine, and keep the one with the lowest
 * hop-bytes. block comes first and is only replaced by something strictly
 * better, so auto is never worse than Slurm's default layout.
 *
 * The rules, with the benchmark figures behind them, are in
 * doc/algorithms.md#auto: the candidates and their order, the work budget
 * (struct cand's cost), the floor, the busiest-link guard, the congestion
 * objective, dragonflies, uneven bandwidths, the time limit and the anytime rules on
 * many-core nodes (the fast start, predicted candidates, the final
 * placement). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auto.h"
#include "coarsen.h"
#include "congestion.h"
#include "internal.h"
#include "qap.h"
#include "refine.h"

/* ohtma (the faithful one) is tried up to this many ranks x nodes. */
#define AUTO_OHTMA_WORK (1L << 21)
/* treematch is tried with AUTO_TM_SEEDS more seeds up to this many ranks. */
#define AUTO_TM_SEEDS 4
#define AUTO_TM_SEEDS_MAX 1024
/* analytic-anchor is tried up to this many ranks (its analysis alone costs
 * seconds beyond, and it lost to drb there). */
#define AUTO_ANALYTIC_MAX 16384
/* spectral is tried up to this many ranks. */
#define AUTO_SPECTRAL_MAX 1024
/* Kicks of the iterated local search on small jobs (refine_ils.c): 100
 * gave 2-4% lower hop-bytes than none on the scattered and one-slot groups
 * of the benchmark, 300 about 0.5% more for 3 x the time. */
#define AUTO_ILS_TRIES 100
/* Its work estimate in units of the first drb + refine's (its steps are not
 * counted): measured 1-3 x that time at 128 to 1024 ranks. */
#define AUTO_ILS_COST 3.0
/* Above this many ranks, a grid embedding ends the search: drb + refine
 * then costs minutes (a 262,144-rank stencil: over 45 s, not finished; at
 * 1,048,576 ranks 143 s for 3.5 x grid's hop-bytes; doc/scaling.md). */
#define AUTO_GRID_ALONE 65536
/* Many-core nodes (the fast start): on jobs of at least AUTO_FAST_MIN ranks
 * on nodes of at least AUTO_FAST_SLOTS slots each, all alike, the
 * multilevel scheme (coarsen.c: METIS k-way parts of a node's size, the
 * parts onto the network, the ranks onto cores) runs right after block: it
 * takes a tenth to a fifth of drb + refine's time there (4,096 to 65,536
 * ranks on 2 x 64-core nodes), so a good mapping exists early and the other
 * candidates improve on it while time remains (issue 37). */
#define AUTO_FAST_MIN 2048
#define AUTO_FAST_SLOTS 64
/* Node placement of the candidates: on many-core nodes (AUTO_FAST_SLOTS),
 * on jobs of more than this many ranks x slots per node, the candidates get
 * the SumCom refinement of each node alone (TOPOMAP_NODE_PLACE_REFINE, about
 * a third of the cost of TreeMatch then the refinement twice) and the
 * answer alone the placement asked for, at the end. At 4,096 ranks on
 * 128-core nodes that placement cost 0.4 s per candidate. */
#define AUTO_PLACE_FULL_MAX (1L << 18)
/* Fraction of the time limit auto plans to use: candidates check the
 * deadline every few hundred steps, so leave room for the last check. */
#define AUTO_BUDGET_SHARE 0.9
/* On dragonflies, the share of that time kept for the spread step (ours,
 * see spread_step): the candidates' hop-bytes gains come in their first
 * half-second at 2048 ranks, the busiest global link's in the steps of the
 * congestion refinement. */
#define AUTO_DF_SPREAD_SHARE 0.35

/* Work budget of auto (work units, about a nanosecond each on the benchmark
 * machine: see TOPOMAP_WORK_* in internal.h), in tuning.c for the tests. */
#define AUTO_WORK_BUDGET (topomap_tuning()->auto_work_budget)

/* A floor under the hop-bytes of any mapping, or 0 when none is known: with
 * one slot per node on a torus or mesh, ranks sit on distinct nodes and
 * every byte goes at least one hop. A candidate that reaches it is optimal,
 * and the search ends there (a 3D stencil on a matching torus: the grid or
 * drb candidate), without changing the answer: later candidates and the
 * iterated local search keep only strictly better mappings. */
static double hop_bytes_floor(const struct topomap_problem *pb)
{
    int dims[8], wrap[8];
    if (topomap_topology_grid(pb->topo, dims, wrap, 8) <= 0 ||
        pb->nslots != topomap_alloc_nnodes(pb->alloc))
        return 0;
    double sum = 0;
    for (int64_t e = 0; e < pb->g.xadj[pb->n]; e++)
        sum += pb->g.w[e];
    return sum / 2;
}


/* Jobs small enough for the candidates whose cost grows with ranks x nodes
 * and for the iterated local search. */
static int small_job(const struct topomap_problem *pb)
{
    return (long)pb->n * topomap_alloc_nnodes(pb->alloc) <= AUTO_OHTMA_WORK;
}

/* Slots per node of the allocation, on average. */
static int slots_per_node(const struct topomap_problem *pb)
{
    int nn = topomap_alloc_nnodes(pb->alloc);
    return nn > 0 ? pb->nslots / nn : 0;
}

/* Many-core nodes: the multilevel scheme first, as the fast start. */
static int fast_start(const struct topomap_problem *pb)
{
    return pb->n >= AUTO_FAST_MIN && slots_per_node(pb) >= AUTO_FAST_SLOTS &&
           topomap_coarse_applies(pb);
}

/* The candidate list for this problem (see the top of the file). Each
 * .time_ratio is the candidate's time in units of the fast start's, as
 * measured at 4,096 to 65,536 ranks on 2 x 64-core nodes (drb + refine 1 to
 * 1.5 x, treematch 1 to 2 x, block + refine 5 x): greedy + refine counts
 * 3 x; treematch + refine 0.5 x (it reuses treematch's answer), the other
 * treematch runs 2 x; analytic-anchor 4 x (CHOLMOD's factorisations cannot
 * stop midway, so it counts long: a 16,384-rank case on the 8^3 torus once
 * ended at 12.8 s for a limit of 5 s in the benchmark; the phase was not
 * logged, this is the likeliest one); the others (ohtma, spectral-fit:
 * small jobs) 1 x. */
static int candidates(const struct topomap_problem *pb, int has_grid, struct cand *c)
{
    int k = 0;
    int small = small_job(pb);
    c[k++] = (struct cand){.name = "block", .fn = topomap_map_block, .cost = COST_ALWAYS};
    if (has_grid)
        c[k++] = (struct cand){.name = "grid", .fn = topomap_map_grid, .optional = 1,
                               .cost = COST_ALWAYS, .ends_grid = 1};
    /* Large jobs: the multilevel scheme (coarsen.c) in drb + refine's place,
     * and no other drb seeds (doc/scaling.md); on many-core nodes it comes
     * first anyway, as the fast start. */
    int multilevel = pb->n > topomap_tuning()->coarse_min && topomap_coarse_applies(pb);
    if (!multilevel && fast_start(pb))
        c[k++] = (struct cand){.name = "multilevel", .fn = topomap_map_coarse,
                               .cost = COST_ALWAYS, .fast = 1};
    if (multilevel)
        c[k++] = (struct cand){.name = "multilevel", .fn = topomap_map_coarse,
                               .cost = COST_ALWAYS, .unit = 1};
    else
        c[k++] = (struct cand){.name = "drb+refine", .fn = topomap_map_drb, .refine = 1,
                               .cost = COST_ALWAYS, .unit = 1, .time_ratio = 1.5};
    /* Tree networks: TreeMatch over switches and node levels (issue 10). */
    if (topomap_topology_net_depth(pb->topo) >= 0) {
        c[k++] = (struct cand){.name = "treematch", .fn = topomap_map_treematch_one,
                               .optional = 1, .cost = COST_ALWAYS, .time_ratio = 2.0};
        c[k++] = (struct cand){.name = "treematch+refine", .fn = topomap_map_treematch_one,
                               .refine = 1, .optional = 1, .cost = COST_ALWAYS,
                               .time_ratio = 0.5};
        /* Up to AUTO_TM_SEEDS_MAX ranks: treematch from more seeds
         * (METIS's bisections differ); 0.5% off auto's SumCom on the tree
         * set, 40 of 96 cases. */
        static const char *tm_seed[AUTO_TM_SEEDS] = {"treematch (seed+1)", "treematch (seed+2)",
                                                     "treematch (seed+3)", "treematch (seed+4)"};
        for (int q = 0; pb->n <= AUTO_TM_SEEDS_MAX && q < AUTO_TM_SEEDS; q++)
            c[k++] = (struct cand){.name = tm_seed[q], .fn = topomap_map_treematch_one,
                                   .seed_offset = (uint64_t)q + 1, .optional = 1,
                                   .cost = COST_ALWAYS, .time_ratio = 2.0};
    }
    int dims[8], wrap[8];
    if (pb->n <= AUTO_ANALYTIC_MAX && topomap_topology_grid(pb->topo, dims, wrap, 8) > 0)
        c[k++] = (struct cand){.name = "analytic-anchor", .fn = topomap_map_analytic_anchor,
                               .cost = COST_SELF, .time_ratio = 4.0};
    /* block+refine, greedy and ohtma never won on large jobs in the
     * benchmark and cost seconds there (refining a shuffled 65,536-rank
     * stencil from block's order: over a minute, far more than the first
     * drb + refine that estimates them): small jobs only. */
    if (small)
        c[k++] = (struct cand){.name = "block+refine", .fn = topomap_map_block, .refine = 1,
                               .cost = 1.0, .time_ratio = 6.0};
    if (small)
        c[k++] = (struct cand){.name = "greedy+refine", .fn = topomap_map_greedy, .refine = 1,
                               .cost = 1.0, .time_ratio = 3.0};
    /* spectral-fit before the other drb seeds: when the budget cannot take
     * them all, it is the one that won more often (see the top). */
    if (pb->n <= AUTO_SPECTRAL_MAX)
        c[k++] = (struct cand){.name = "spectral-fit+refine", .fn = topomap_map_spectral_fit,
                               .refine = 1, .cost = 2.0};
    if (!multilevel)
        c[k++] = (struct cand){.name = "drb+refine (seed+1)", .fn = topomap_map_drb,
                               .refine = 1, .seed_offset = 1, .cost = 1.0, .unit = 1,
                               .time_ratio = 1.5};
    if (!multilevel)
        c[k++] = (struct cand){.name = "drb+refine (seed+2)", .fn = topomap_map_drb,
                               .refine = 1, .seed_offset = 2, .cost = 1.0, .unit = 1,
                               .time_ratio = 1.5};
    if (small)
        c[k++] = (struct cand){.name = "ohtma+refine", .fn = topomap_map_ohtma, .refine = 1,
                               .cost = 2.0};
    return k;
}

static void run_free(struct auto_run *ar)
{
    auto_res_free(ar);
    free(ar->tmp), free(ar->raw), free(ar->gc), free(ar->low);
}

/* Everything but the candidates' runs. 0, or -1 + errno (ENOMEM). */
static int run_init(struct auto_run *ar, const struct topomap_problem *pb)
{
    memset(ar, 0, sizeof *ar);
    ar->pb = pb;
    ar->t0 = topomap_now();
    size_t n = (size_t)(pb->n ? pb->n : 1);
    /* The process grid, found once for the candidate list and for grid. */
    ar->gc = malloc(sizeof(int) * n * TOPOMAP_GRID_MAXDIMS);
    int has_grid =
        ar->gc && topomap_grid_detect(pb->profile, pb->opts->grid_weak, &ar->g, ar->gc) > 0;
    ar->nc = candidates(pb, has_grid, ar->c);
    ar->fast_k = -1;
    for (int k = 0; k < ar->nc; k++)
        if (ar->c[k].fast)
            ar->fast_k = k;
    ar->tmp = malloc(sizeof(int) * n);
    ar->raw = malloc(sizeof(int) * n);
    ar->low = malloc(sizeof(int) * n);
    if (!ar->tmp || !ar->raw || !ar->gc || !ar->low) {
        run_free(ar);
        errno = ENOMEM;
        return -1;
    }
    ar->sub = *pb;
    if (has_grid) {
        ar->sub.grid = &ar->g;
        ar->sub.grid_coords = ar->gc;
    }
    ar->so = *pb->opts;
    ar->sub.opts = &ar->so;
    ar->rawk = -1;
    ar->best = ar->best_hb = ar->low_hb = -1;
    ar->chosen = -1;
    ar->w_drb = -1;
    ar->sumcom = topomap_topology_node_nlevels(pb->topo) > 1 &&
                 pb->opts->node_place != TOPOMAP_NODE_PLACE_OFF;
    ar->floor_hb = ar->sumcom ? 0 : hop_bytes_floor(pb);
    /* Large many-core jobs: the candidates' node placement is the
     * refinement alone, the answer's the one asked for (see
     * AUTO_PLACE_FULL_MAX). */
    ar->place = pb->opts->node_place;
    if (ar->sumcom && ar->place == TOPOMAP_NODE_PLACE_AUTO &&
        slots_per_node(pb) >= AUTO_FAST_SLOTS &&
        (long)pb->n * slots_per_node(pb) > AUTO_PLACE_FULL_MAX) {
        ar->place = TOPOMAP_NODE_PLACE_REFINE;
        ar->sub.quick_place = 1;
    }
    if (pb->deadline > 0) {
        /* On dragonflies the spread step (spread_step), on networks of
         * uneven bandwidths the final congestion refinement, keep
         * AUTO_DF_SPREAD_SHARE of the time: no candidate (nor the iterated
         * local search) starts after start_by, but one that runs may go on
         * to the deadline (on a loaded machine the first drb + refine of
         * 4096 ranks needs it; a candidate beats no candidate). */
        double share = AUTO_BUDGET_SHARE;
        if (auto_has_global_links(pb->topo) || topomap_channels_uneven(pb->topo))
            share *= 1 - AUTO_DF_SPREAD_SHARE;
        ar->end = ar->t0 + (pb->deadline - ar->t0) * AUTO_BUDGET_SHARE;
        ar->start_by = ar->t0 + (pb->deadline - ar->t0) * share;
        ar->sub.deadline = ar->end;
    }
    return 0;
}

/* Whether candidate k fits in the work budget (see the top of the file);
 * sets sub.work_limit for those that estimate themselves. */
static int fits_budget(struct auto_run *ar, int k, double *est)
{
    const struct cand *c = &ar->c[k];
    double left = AUTO_WORK_BUDGET - ar->spent;
    *est = c->cost * ar->w_drb;
    ar->sub.work_limit = 0;
    if (c->cost > 0 && ar->w_drb >= 0 && *est > left) {
        topomap_log(ar->pb, "auto: %s skipped: about %.3g work units, %.3g left of the budget",
                    c->name, *est, left);
        return 0;
    }
    if (c->cost == COST_SELF) {
        /* What it may spend besides its preparation (grouping the ranks by
         * METIS bisections) and its refinement, each about what drb +
         * refine cost; below an eighth of the budget it is not worth
         * starting (the preparation is spent before it can estimate). */
        ar->sub.work_limit = left - 2 * (ar->w_drb > 0 ? ar->w_drb : 0);
        if (ar->sub.work_limit < AUTO_WORK_BUDGET / 8) {
            topomap_log(ar->pb, "auto: %s skipped: %.3g work units left of the budget", c->name,
                        left);
            return 0;
        }
    }
    return 1;
}

/* Run candidate k into ar->tmp, or take its outcome from a batch (res);
 * then the accounting. 0, or -1 + errno and the message in err. */
static int run_one(struct auto_run *ar, int k, double est, double *work, char *err,
                   size_t errlen)
{
    const struct cand *c = &ar->c[k];
    struct auto_res *res = ar->res && ar->res[k].ready ? &ar->res[k] : NULL;
    double cw = 0;
    int rc, raw_ok;
    size_t sz = sizeof(int) * (size_t)ar->pb->n;
    if (res) {
        /* The seed the steps after the candidates see (polish_step...) is
         * the last candidate's, as when it runs here. */
        ar->so.seed = ar->pb->opts->seed + c->seed_offset;
        auto_res_replay(ar->pb, res);
        rc = res->rc;
        cw = res->work;
        raw_ok = res->raw_ok;
        memcpy(ar->tmp, res->map, sz);
        if (raw_ok)
            memcpy(ar->raw, res->raw, sz);
        snprintf(err, errlen, "%s", res->err);
        errno = res->errnum;
    } else {
        int reuse = ar->rawk == k - 1 && auto_reuses_raw(ar, k);
        rc = auto_cand_run(ar, k, &ar->sub, &ar->so, reuse ? ar->raw : NULL, ar->tmp,
                           reuse ? NULL : ar->raw, &raw_ok, &cw, err, errlen);
    }
    int e = errno;
    if (raw_ok)
        ar->rawk = k;
    /* Work that a candidate does not count is assumed to be at least its
     * estimate. */
    ar->spent += c->cost > 0 && ar->w_drb >= 0 && est > cw ? est : cw;
    if (rc == 0 && ar->w_drb < 0 && k != ar->fast_k && c->unit)
        ar->w_drb = cw;
    *work = cw;
    errno = e;
    return rc;
}

/* Candidate k: run, judge, keep. 0 to go on, 1 to end the search, -1 +
 * errno. */
static int candidate(struct auto_run *ar, int k, int *r2s, char *err, size_t errlen)
{
    const struct topomap_problem *pb = ar->pb;
    const struct cand *c = &ar->c[k];
    /* A batch's outcome (auto_batch.c) has run already: only the work
     * budget, which does not depend on time, still decides. */
    const struct auto_res *res = ar->res && ar->res[k].ready ? &ar->res[k] : NULL;
    /* Out of time: keep what we have (block has always been tried). */
    if (!res && ar->best >= 0 && ar->start_by > 0 && topomap_now() > ar->start_by) {
        topomap_log(pb, "auto: time limit reached before %s", c->name);
        ar->late = 1;
        return 1;
    }
    double est, tc = topomap_now(), cw = 0;
    if (!res && ar->t_fast > 0 && ar->end > 0 &&
        tc + auto_time_ratio(c) * ar->t_fast > ar->end) {
        topomap_log(pb, "auto: %s skipped: about %.3f s, %.3f s left", c->name,
                    auto_time_ratio(c) * ar->t_fast, ar->end - tc);
        return 0;
    }
    if (!fits_budget(ar, k, &est))
        return 0;
    int rc = run_one(ar, k, est, &cw, err, errlen);
    double secs = res ? res->secs : topomap_now() - tc;
    if (rc == 0 && k == ar->fast_k)
        ar->t_fast = secs;
    if (rc < 0 && errno == ECANCELED) {
        topomap_log(pb, "auto: %s skipped: %s", c->name, err);
        return 0;
    }
    if (rc < 0) {
        if (errno == ETIMEDOUT && ar->best >= 0) {
            topomap_log(pb, "auto: %s stopped at the time limit after %.3f s", c->name, secs);
            ar->late = 1;
            return 1;
        }
        if (c->optional && errno != ENOMEM) {
            topomap_log(pb, "auto: %s skipped: %s", c->name, err);
            return 0;
        }
        return -1;
    }
    ar->tried++;
    double hb = auto_score(pb, ar->tmp, ar->sumcom);
    topomap_log(pb, "auto: %-20s %s %.6g in %.3f s (%.3g work units)", c->name,
                ar->sumcom ? "SumCom" : "hop-bytes", hb, secs, cw);
    double key = hb;
    int keep;
    if (k == 0) { /* block: the guard's reference, always kept */
        keep = auto_guard_init(&ar->gd, pb, &ar->sub, ar->tmp, hb) < 0 ? -1 : 1;
        key = auto_block_key(&ar->gd);
    } else {
        keep = auto_judge(&ar->gd, pb, ar->tmp, hb, ar->best, &key);
    }
    if (keep < 0)
        return topomap_fail(err, errlen, errno, "out of memory");
    if ((ar->gd.mixed || ar->gd.dfly) && (ar->low_hb < 0 || hb < ar->low_hb)) {
        ar->low_hb = hb;
        ar->low_k = k;
        memcpy(ar->low, ar->tmp, sizeof(int) * (size_t)pb->n);
    }
    if (keep) {
        ar->best = key;
        ar->best_hb = hb;
        ar->chosen = k;
        memcpy(r2s, ar->tmp, sizeof(int) * (size_t)pb->n);
    }
    /* A grid the guard refused does not end the search. */
    if (c->ends_grid && ar->chosen == k && pb->n > AUTO_GRID_ALONE) {
        topomap_log(pb, "auto: grid embedded the process grid of %d ranks: the search ends",
                    pb->n);
        return 1;
    }
    if (!ar->gd.mixed && !ar->gd.dfly && ar->floor_hb > 0 && ar->best_hb <= ar->floor_hb) {
        topomap_log(pb, "auto: %s reaches the floor (every byte one hop): optimal, the search ends",
                    c->name);
        return 1;
    }
    return 0;
}

/* The steps after the candidates: the mapping in ar->tmp, of score hb
 * (hop-bytes, or SumCom), becomes the answer r2s when auto_keep_if() keeps
 * it (the guard, auto's key). 1 when kept, else 0. */
static int keep_tmp(struct auto_run *ar, int *r2s, double hb)
{
    double key;
    if (auto_keep_if(&ar->gd, ar->pb, ar->tmp, hb, &ar->best, &key) != 1)
        return 0;
    ar->best_hb = hb;
    memcpy(r2s, ar->tmp, sizeof(int) * (size_t)ar->pb->n);
    return 1;
}

/* Small jobs: iterated local search from the best candidate (refine_ils.c),
 * kept when it lowers the hop-bytes, when what is left of the work budget
 * holds its estimate (AUTO_ILS_COST x the first drb + refine). 0, or -1 +
 * errno. */
static int ils_step(struct auto_run *ar, int *r2s, char *err, size_t errlen)
{
    const struct topomap_problem *pb = ar->pb;
    if (ar->sumcom || !small_job(pb) || ar->w_drb < 0 ||
        (ar->floor_hb > 0 && ar->best_hb <= ar->floor_hb) ||
        AUTO_WORK_BUDGET - ar->spent < AUTO_ILS_COST * ar->w_drb ||
        (ar->start_by > 0 && topomap_now() > ar->start_by))
        return 0;
    double removed = 0, ti = topomap_now();
    memcpy(ar->tmp, r2s, sizeof(int) * (size_t)pb->n);
    if (topomap_refine_ils(&ar->sub, ar->tmp, AUTO_ILS_TRIES, ar->start_by, &removed, err,
                           errlen) < 0)
        return -1;
    topomap_log(pb, "auto: iterated local search (%d kicks) %.6g -> %.6g in %.3f s",
                AUTO_ILS_TRIES, ar->best_hb, ar->best_hb - removed, topomap_now() - ti);
    if (removed > 0)
        keep_tmp(ar, r2s, ar->best_hb - removed);
    return 0;
}

/* Jobs of at most AUTO_TABU_SLOTS slots (ours): Taillard's robust tabu
 * search (refine_tabu.c) from the kept mapping, for a number of iterations
 * fixed by the job's size and the work budget left (the same answer on any
 * machine unless the time limit comes first); kept when it lowers the
 * hop-bytes and the guard allows. After the iterated local search: it walks
 * on from the local minimum where that stopped. 0, or -1 + errno. */
static int tabu_step(struct auto_run *ar, int *r2s, char *err, size_t errlen)
{
    const struct topomap_problem *pb = ar->pb;
    int m = pb->nslots;
    if (ar->sumcom || ar->gd.mixed || m > AUTO_TABU_SLOTS || m < 3 ||
        (ar->floor_hb > 0 && ar->best_hb <= ar->floor_hb) ||
        (ar->start_by > 0 && topomap_now() > ar->start_by))
        return 0;
    /* Within what is left of the work budget (its units are of the
     * refinement's size: an exchange looked at, a value updated). */
    double work = AUTO_WORK_BUDGET - ar->spent, hb = 0;
    if (work > AUTO_TABU_WORK)
        work = AUTO_TABU_WORK;
    if (work <= 0)
        return 0;
    memcpy(ar->tmp, r2s, sizeof(int) * (size_t)pb->n);
    int rc = topomap_tabu_improve(&ar->sub, ar->tmp, (long)AUTO_TABU_ITERS_PER_SLOT * m, work,
                                  &hb);
    if (rc < 0)
        return topomap_fail(err, errlen, errno, "out of memory");
    double before = ar->best_hb;
    if (rc == 1 && hb < before && keep_tmp(ar, r2s, hb))
        topomap_log(pb, "auto: tabu search %.6g -> %.6g kept", before, hb);
    return 0;
}

/* Jobs of at most AUTO_EXACT_NODES nodes with one rank each (ours): exact's
 * branch-and-bound (map_exact.c) from the kept mapping and from its own
 * exchange descents, for AUTO_EXACT_VISITS search nodes (a fixed amount of
 * work: the same answer on any machine unless the time limit comes first);
 * kept when it lowers the hop-bytes and the guard allows. After the
 * iterated local search, so that it can only improve on it. 0, or -1 +
 * errno. */
static int exact_step(struct auto_run *ar, int *r2s, char *err, size_t errlen)
{
    const struct topomap_problem *pb = ar->pb;
    if (ar->sumcom || ar->gd.mixed || pb->nslots > AUTO_EXACT_NODES ||
        (ar->start_by > 0 && topomap_now() > ar->start_by))
        return 0;
    double hb = 0, ti = topomap_now();
    memcpy(ar->tmp, r2s, sizeof(int) * (size_t)pb->n);
    int rc = topomap_exact_improve(&ar->sub, ar->tmp, AUTO_EXACT_VISITS, &hb);
    if (rc < 0)
        return topomap_fail(err, errlen, errno, "out of memory");
    if (rc == 0)
        return 0;
    topomap_log(pb, "auto: exact (%ld search nodes at most) %.6g -> %.6g in %.3f s",
                AUTO_EXACT_VISITS, ar->best_hb, hb, topomap_now() - ti);
    if (hb < ar->best_hb)
        keep_tmp(ar, r2s, hb);
    return 0;
}

/* Many-core nodes (a fast start ran): when the kept mapping is one no
 * refinement engine ran on (the fast start's single pass, treematch), the
 * engine refines it within the time left (the anytime's last step: on a
 * 16,384-rank job it is often all the time allows after the fast start),
 * with the candidates' node placement; kept when better. 0, or -1 + errno. */
static int polish_step(struct auto_run *ar, int *r2s, char *err, size_t errlen)
{
    const struct topomap_problem *pb = ar->pb;
    if (ar->fast_k < 0 || ar->chosen <= 0 || ar->c[ar->chosen].refine ||
        (ar->end > 0 && topomap_now() > ar->end))
        return 0;
    double tr = topomap_now();
    memcpy(ar->tmp, r2s, sizeof(int) * (size_t)pb->n);
    ar->sub.deadline = ar->end;
    struct topomap_refine_params rp = {0, ar->end, REFINE_MIN_GAIN, TOPOMAP_REFINE_AUTO};
    if (topomap_refine(&ar->sub, ar->tmp, &rp, NULL, err, errlen) < 0 ||
        (ar->sumcom && topomap_node_place(&ar->sub, ar->tmp, ar->place, NULL, err, errlen) < 0))
        return errno == ENOMEM ? -1 : 0;
    double hb = auto_score(pb, ar->tmp, ar->sumcom);
    topomap_log(pb, "auto: refinement of %s %.6g -> %.6g in %.3f s", ar->c[ar->chosen].name,
                ar->best_hb, hb, topomap_now() - tr);
    if (hb < ar->best_hb)
        keep_tmp(ar, r2s, hb);
    return 0;
}

/* Trees with hierarchical nodes: the SumCom refinement of the kept mapping
 * (treematch_sumcom.c), kept when it lowers SumCom. 0, or -1 + errno. */
static int sumcom_step(struct auto_run *ar, int *r2s, char *err, size_t errlen)
{
    const struct topomap_problem *pb = ar->pb;
    if (!ar->sumcom || topomap_topology_net_depth(pb->topo) < 0 || topomap_expired(&ar->sub))
        return 0;
    double tr = topomap_now();
    memcpy(ar->tmp, r2s, sizeof(int) * (size_t)pb->n);
    if (topomap_refine_sumcom(&ar->sub, ar->tmp, err, errlen) == 0 &&
        topomap_node_place(&ar->sub, ar->tmp, ar->place, NULL, err, errlen) == 0) {
        double sc = auto_score(pb, ar->tmp, 1);
        topomap_log(pb, "auto: SumCom refinement %.6g -> %.6g in %.3f s", ar->best_hb, sc,
                    topomap_now() - tr);
        keep_tmp(ar, r2s, sc);
    } else if (errno == ENOMEM) {
        return -1;
    }
    return 0;
}

/* The congestion refinement over the channels of class cls (-1: all) until
 * the end of auto's time: from the kept mapping r2s (*first, unless NULL: 1
 * when its refinement was kept), then from the candidate of lowest hop-bytes
 * when it differs. 1 when that second refinement was kept (r2s is then it),
 * 0 when not, -1 + errno. */
static int refine_twice(struct auto_run *ar, int cls, int *r2s, int *first, char *err,
                        size_t errlen)
{
    ar->sub.deadline = ar->end;
    int rc = auto_refine_kept(&ar->gd, &ar->sub, r2s, r2s, ar->tmp, ar->sumcom, cls, &ar->best,
                              err, errlen);
    if (rc < 0)
        return -1;
    if (first)
        *first = rc == 1;
    if (ar->low_hb < 0 || !memcmp(ar->low, r2s, sizeof(int) * (size_t)ar->pb->n))
        return 0;
    return auto_refine_kept(&ar->gd, &ar->sub, ar->low, r2s, ar->tmp, ar->sumcom, cls, &ar->best,
                            err, errlen);
}

/* Dragonflies (ours): the spread step. The hop-bytes candidates put the
 * ranks that talk to another group on the switches whose global links land
 * there (fewer hops), so a pair of groups sends its bytes over one of its
 * links while the others idle: the hot spots of Bhatele et al. (SC 2011).
 * The congestion refinement over the global links alone
 * (refine_congestion.c, C and Q of that class) moves ranks and whole nodes
 * off the busiest global link, hop-bytes weighed in; it starts from the kept
 * mapping and from the candidate of lowest hop-bytes, and a result is kept
 * by dfly_key (and the guard: hop-bytes and busiest link not above
 * block's). It runs in the time the candidates left (AUTO_DF_SPREAD_SHARE
 * of a time limit). 0, or -1 + errno. */
static int spread_step(struct auto_run *ar, int *r2s, char *err, size_t errlen)
{
    if (!ar->gd.dfly)
        return 0;
    double ts = topomap_now(), before = ar->best;
    int first, rc = refine_twice(ar, TOPOMAP_LINK_GLOBAL, r2s, &first, err, errlen);
    if (rc < 0)
        return -1;
    ar->spread = first || rc == 1;
    if (rc == 1)
        ar->chosen = ar->low_k;
    if (ar->spread)
        ar->best_hb = auto_score(ar->pb, r2s, ar->sumcom);
    topomap_log(ar->pb, "auto: spread over global links: key %.6g -> %.6g in %.3f s", before,
                ar->best, topomap_now() - ts);
    return 0;
}

/* The answer's node placement, the one asked for (topomap_map() leaves it
 * to auto), until the caller's deadline: nodes not reached by then keep the
 * candidates' placement. It never moves a rank to another node, so the
 * hop-bytes and the busiest link stay. 0, or -1 + errno. */
static int final_place(struct auto_run *ar, int *r2s, char *err, size_t errlen)
{
    const struct topomap_problem *pb = ar->pb;
    double tp = topomap_now(), gain = 0;
    ar->sub.deadline = pb->deadline;
    ar->so.seed = pb->opts->seed; /* as topomap_map() placed it, not a candidate's */
    if (topomap_node_place(&ar->sub, r2s, pb->opts->node_place, &gain, err, errlen) < 0)
        return -1;
    if (ar->place != pb->opts->node_place)
        topomap_log(pb, "auto: node placement of the answer: SumCom -%.6g in %.3f s", gain,
                    topomap_now() - tp);
    return 0;
}

int topomap_map_auto(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    struct auto_run ar;
    if (run_init(&ar, pb) < 0)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    int rc = 0;
    for (int k = 0, next; k < ar.nc && rc == 0; k = next) {
        int nb = auto_batch(&ar, k);
        if (nb < 0) {
            rc = topomap_fail(err, errlen, errno, "out of memory");
            break;
        }
        /* In candidate order, as with one thread; past the time limit
         * the batch's other outcomes are still judged (they ran). */
        for (next = k; next < k + nb; next++) {
            if (rc == 0)
                rc = candidate(&ar, next, r2s, err, errlen);
            else if (rc == 1 && ar.late && ar.res && ar.res[next].ready &&
                     candidate(&ar, next, r2s, err, errlen) < 0)
                rc = -1;
        }
    }
    if (rc >= 0)
        rc = ils_step(&ar, r2s, err, errlen);
    if (rc >= 0)
        rc = tabu_step(&ar, r2s, err, errlen);
    if (rc >= 0)
        rc = exact_step(&ar, r2s, err, errlen);
    if (rc >= 0)
        rc = polish_step(&ar, r2s, err, errlen);
    if (rc >= 0)
        rc = sumcom_step(&ar, r2s, err, errlen);
    if (rc >= 0)
        rc = spread_step(&ar, r2s, err, errlen);
    /* Objective congestion: the winner and the lowest score refined for it
     * (see the top); on dragonflies the spread step did it for the global
     * links. */
    if (rc >= 0 && ar.gd.mixed && !ar.gd.dfly)
        rc = refine_twice(&ar, -1, r2s, NULL, err, errlen);
    if (rc >= 0)
        rc = final_place(&ar, r2s, err, errlen);
    if (rc < 0) {
        int e = errno;
        run_free(&ar);
        errno = e;
        return -1;
    }
    /* "NAME+spread": the spread step's result from candidate NAME (one word:
     * map's summary takes the first). */
    char name[64];
    size_t len = strcspn(ar.c[ar.chosen].name, " ");
    snprintf(name, sizeof name, "%.*s%s", (int)len, ar.c[ar.chosen].name,
             ar.spread ? "+spread" : ar.c[ar.chosen].name + len);
    topomap_log(pb, "auto: chose %s (%d of %d candidates tried, %.3f s)", name, ar.tried, ar.nc,
                topomap_now() - ar.t0);
    run_free(&ar);
    return 0;
}
