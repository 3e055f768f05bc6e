/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of mapping algorithms and the entry point topomap_map(). Adding an
 * algorithm = one file libtopomap/map_NAME.c + one line here (as Scotch's arch.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "congestion.h"
#include "internal.h"
#include "refine.h"

static const struct topomap_algo algos[] = {
    {.name = "block",
     .summary = "in order: consecutive ranks fill a node, nodes in allocation order (Slurm's default)",
     .map = topomap_map_block,
     .baseline = 1},
    {.name = "cyclic",
     .summary = "round-robin: rank r on the (r mod nodes)-th node",
     .map = topomap_map_cyclic,
     .baseline = 1},
    {.name = "random",
     .summary = "uniformly random permutation of the slots (seeded)",
     .map = topomap_map_random,
     .baseline = 1},
    {.name = "ohtma",
     .summary = "OHTMA (Li et al. 2020, Algorithm 1): greedy, then best pair exchanges with backtrack",
     .map = topomap_map_ohtma},
    {.name = "ohtma-fast",
     .summary = "OHTMA, exchanges only within communication/topology neighbourhoods (large jobs)",
     .map = topomap_map_ohtma_fast},
    {.name = "greedy",
     .summary = "Hoefler-Snir greedy: heaviest process first, heaviest neighbours on the closest free slots",
     .map = topomap_map_greedy},
    {.name = "rcm",
     .summary = "reverse Cuthill-McKee orders of the communication graph and the machine, mapped in order",
     .map = topomap_map_rcm},
    {.name = "metis",
     .summary = "METIS parts of the communication graph, one per node, on the nodes in allocation order",
     .map = topomap_map_metis},
    {.name = "drb",
     .summary = "dual recursive bisection (Scotch's scheme): halve the nodes in the network and the graph with METIS",
     .map = topomap_map_drb},
    {.name = "analytic",
     .summary = "analytical placement on tori/meshes (Wu et al. 2016): quadratic positions, spreading, legalization, refined",
     .map = topomap_map_analytic,
     .budgeted = 1},
    {.name = "analytic-bft",
     .summary = "analytic with fixed processes by breadth-first traversal instead of RCM (the paper's Table 4)",
     .map = topomap_map_analytic_bft,
     .budgeted = 1},
    {.name = "analytic-anchor",
     .summary = "analytic with growing anchors at the spread positions (SimPL-style, ours) down to one group per node",
     .map = topomap_map_analytic_anchor,
     .budgeted = 1},
    {.name = "grid",
     .summary = "Bhatele et al.: a process-grid profile embedded into a torus/mesh box (MXOVLP, AFFN, folding...), refined",
     .map = topomap_map_grid},
    {.name = "spectral",
     .summary = "Wang et al. 2015: spectral clusters (CP-NSC) mapped switch level by level, Plain/FF/MR by rule, APE",
     .map = topomap_map_spectral},
    {.name = "spectral-plain",
     .summary = "spectral with the Plain cluster scheme at every level",
     .map = topomap_map_spectral_plain},
    {.name = "spectral-ff",
     .summary = "spectral with the First-Fit cluster scheme at every level",
     .map = topomap_map_spectral_ff},
    {.name = "spectral-mr",
     .summary = "spectral with the Most-Reservation cluster scheme at every level",
     .map = topomap_map_spectral_mr},
    {.name = "spectral-fit",
     .summary = "ours: multilevel spectral bisection (CP-NSC similarities) + FM into parts of each switch level's slots, parts ordered by traffic x hops",
     .map = topomap_map_spectral_fit},
    {.name = "treematch",
     .summary = "TreeMatch (Jeannot et al. 2014) on switches and node levels, ours: top-down METIS/FM split of the tree, TreeMatch's grouping inside nodes, SumCom refinement",
     .map = topomap_map_treematch},
    {.name = "treematch-paper",
     .summary = "TreeMatch as published: groups of each tree level's arity bottom-up, then mapped top-down",
     .map = topomap_map_treematch_paper},
    {.name = "exact",
     .summary = "branch-and-bound with the Gilmore-Lawler bound (Lawler 1963): the least hop-bytes, proven, of jobs of <= 24 nodes with one rank per node",
     .map = topomap_map_exact,
     .budgeted = 1},
    {.name = "auto",
     .summary = "block, then grid (grid profiles), drb, treematch (trees), analytic-anchor (tori/meshes), block, greedy, spectral-fit (<= 1024 ranks), drb (2 more seeds), ohtma (small jobs: all), each refined, then (small jobs) an iterated local search, a tabu search (<= 1024 slots) and exact's search (<= 16 nodes, one rank each); best hop-bytes (SumCom on hierarchical nodes) within the time limit and a work budget",
     .map = topomap_map_auto,
     .budgeted = 1,
     .congestion_done = 1},
};
#define NALGOS ((int)(sizeof algos / sizeof algos[0]))

const char *topomap_algo_name(int i)
{
    return i >= 0 && i < NALGOS ? algos[i].name : NULL;
}

const char *topomap_algo_summary(int i)
{
    return i >= 0 && i < NALGOS ? algos[i].summary : NULL;
}

/* Where a topomap_opts_t of this or an older header may end: each field's
 * end, in order. A field appended to topomap_opts_t is appended here. */
#define OPTS_END(F) TOPOMAP_FIELD_END(topomap_opts_t, F)
static const size_t opts_ends[] = {
    OPTS_END(seed),      OPTS_END(affinity), OPTS_END(nthreads),  OPTS_END(time_limit),
    OPTS_END(refine),    OPTS_END(loop),     OPTS_END(log),       OPTS_END(log_arg),
    OPTS_END(grid_weak), OPTS_END(node_place), OPTS_END(objective),
};

static const struct topomap_sized opts_sized = TOPOMAP_SIZED(topomap_opts_t, opts_ends);

int topomap_opts_init_size(topomap_opts_t *o, size_t size)
{
    topomap_opts_t d = {.seed = 1, .affinity = TOPOMAP_AFFINITY_BYTES, .loop = -1};
    return topomap_sized_put(&opts_sized, o, size, &d);
}

/* The caller's options @o (NULL: the defaults) as this header's struct in
 * *@full: the fields its size holds, the defaults for the others. */
static int opts_read(const topomap_opts_t *o, topomap_opts_t *full, char *err, size_t errlen)
{
    topomap_opts_init(full);
    if (!o)
        return 0;
    if (!topomap_size_known(&opts_sized, o->size))
        return topomap_fail(err, errlen, EINVAL,
                            "topomap_opts_t of %zu bytes: not a size this library knows (%zu "
                            "bytes or an older header's; initialise it with topomap_opts_init())",
                            o->size, sizeof *full);
    memcpy(full, o, o->size);
    full->size = sizeof *full;
    return 0;
}

int topomap_objective_parse(const char *name)
{
    if (name && (!strcasecmp(name, "hop-bytes") || !strcasecmp(name, "hop_bytes")))
        return TOPOMAP_OBJECTIVE_HOP_BYTES;
    if (name && !strcasecmp(name, "congestion"))
        return TOPOMAP_OBJECTIVE_CONGESTION;
    errno = EINVAL;
    return -1;
}

#define REFINE_SUFFIX "+refine"

/* The algorithm called @name, or "@name+refine" (then *refine = 1). Names
 * are case-insensitive ("OHTMA+Refine"), as users type them in srun options. */
static const struct topomap_algo *find_algo(const char *name, int *refine)
{
    size_t len = strlen(name), slen = strlen(REFINE_SUFFIX);
    *refine = len > slen && !strcasecmp(name + len - slen, REFINE_SUFFIX);
    if (*refine)
        len -= slen;
    for (int i = 0; i < NALGOS; i++)
        if (strlen(algos[i].name) == len && !strncasecmp(algos[i].name, name, len))
            return &algos[i];
    return NULL;
}

int topomap_algo_valid(const char *name)
{
    int refine;
    return name && find_algo(name, &refine) != NULL;
}

static int unknown_algo(const char *name, char *err, size_t errlen)
{
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; i < NALGOS; i++)
        len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s",
                                i ? ", " : "", algos[i].name);
    return topomap_fail(err, errlen, EINVAL, "unknown algorithm '%s' (known: %s)", name, list);
}

/* Check that an algorithm returned an injective rank -> slot map. */
static int check_result(const struct topomap_problem *pb, const char *name, const int *r2s,
                        char *err, size_t errlen)
{
    char *used = calloc((size_t)pb->nslots, 1);
    if (!used)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    int rc = 0;
    for (int r = 0; r < pb->n && rc == 0; r++) {
        if (r2s[r] < 0 || r2s[r] >= pb->nslots || used[r2s[r]])
            rc = topomap_fail(err, errlen, EPROTO,
                              "internal error: algorithm '%s' gave rank %d an invalid slot %d",
                              name, r, r2s[r]);
        else
            used[r2s[r]] = 1;
    }
    free(used);
    return rc;
}

int topomap_map(const char *algo, const topomap_profile_t *p, const topomap_alloc_t *a,
                const topomap_opts_t *o, int *rank_to_slot, char *err, size_t errlen)
{
    if (!algo || !p || !a || !rank_to_slot)
        return topomap_fail(err, errlen, EINVAL, "topomap_map: NULL argument");
    topomap_opts_t full;
    if (opts_read(o, &full, err, errlen) < 0)
        return -1;
    o = &full;
    /* The OpenMP runtime aborts the process when it cannot start the threads
     * asked for: refuse absurd counts here, with a message. */
    if (o->nthreads < 0 || o->nthreads > TOPOMAP_MAX_THREADS)
        return topomap_fail(err, errlen, EINVAL, "%d threads: not in 0..%d", o->nthreads,
                            TOPOMAP_MAX_THREADS);
    if (o->objective != TOPOMAP_OBJECTIVE_HOP_BYTES && o->objective != TOPOMAP_OBJECTIVE_CONGESTION)
        return topomap_fail(err, errlen, EINVAL, "objective %d: not hop-bytes (%d) or congestion (%d)",
                            o->objective, TOPOMAP_OBJECTIVE_HOP_BYTES,
                            TOPOMAP_OBJECTIVE_CONGESTION);
    int suffix_refine;
    const struct topomap_algo *al = find_algo(algo, &suffix_refine);
    if (!al)
        return unknown_algo(algo, err, errlen);
    topomap_opts_t with_refine;
    if (suffix_refine && !o->refine) {
        with_refine = *o;
        with_refine.refine = 1;
        o = &with_refine;
    }

    struct topomap_problem pb = {0};
    pb.profile = p;
    pb.alloc = a;
    pb.topo = topomap_alloc_topology(a);
    pb.opts = o;
    pb.n = topomap_profile_nranks(p);
    pb.nslots = topomap_alloc_nslots(a);
    if (pb.n > pb.nslots)
        return topomap_fail(err, errlen, E2BIG,
                            "%d ranks do not fit in %d slots of the allocation", pb.n, pb.nslots);
    if (topomap_profile_graph(p, o->affinity, 1, &pb.g) < 0)
        return topomap_fail(err, errlen, errno,
                            "the profile has no message counts: use byte affinity");

    int *sn = malloc(sizeof(int) * (size_t)pb.nslots);
    int *sc = malloc(sizeof(int) * (size_t)pb.nslots);
    if (!sn || !sc) {
        free(sn);
        free(sc);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int s = 0; s < pb.nslots; s++) {
        sn[s] = topomap_alloc_slot_node(a, s);
        sc[s] = topomap_alloc_slot_core(a, s);
    }
    pb.slot_node = sn;
    pb.slot_core = sc;
    double start = topomap_now();
    if (o->time_limit > 0)
        pb.deadline = start + o->time_limit;

#ifdef _OPENMP
    /* nthreads 0: one thread unless OMP_NUM_THREADS asks for more. The
     * runtime's own default (every CPU) makes idle threads spin while they
     * wait (OMP_WAIT_POLICY unset), which on a shared login node or one
     * running other jobs costs far more than it gains: a 16k-rank ohtma-fast
     * took 19-42 s on 2 busy cores against 5-9 s with one thread. */
    int saved_threads = omp_get_max_threads();
    omp_set_num_threads(o->nthreads > 0 ? o->nthreads : topomap_default_threads());
#endif
    int rc = al->map(&pb, rank_to_slot, err, errlen);
    int e = errno;
    if (rc == 0)
        rc = check_result(&pb, al->name, rank_to_slot, err, errlen);
    else
        errno = e;
    if (rc == 0 && o->time_limit > 0 && !al->budgeted && topomap_expired(&pb))
        rc = topomap_fail(err, errlen, ETIMEDOUT,
                          "algorithm '%s' took %.3f s, over the time limit of %.3f s",
                          al->name, topomap_now() - start, o->time_limit);
    /* opts->refine: the swap-refinement engine (refine.c) improves whatever
     * the algorithm gave. It stops at the time limit and keeps what it has:
     * only the algorithm itself must fit in the limit. */
    if (rc == 0 && o->refine) {
        struct topomap_refine_params rp = {0, pb.deadline, REFINE_MIN_GAIN, TOPOMAP_REFINE_AUTO};
        rc = topomap_refine(&pb, rank_to_slot, &rp, NULL, err, errlen);
        /* objective congestion: then the busiest link (refine_congestion.c);
         * auto has done it on its winner. */
        if (rc == 0 && o->objective == TOPOMAP_OBJECTIVE_CONGESTION && !al->congestion_done)
            rc = topomap_refine_congestion(&pb, rank_to_slot, 0, NULL, err, errlen);
        if (rc == 0)
            rc = check_result(&pb, "refine", rank_to_slot, err, errlen);
    }
    /* The ranks of each node on its cores by the node's hierarchy
     * (node_place.c); the baselines keep their layout, and auto places its
     * answer itself, within its time limit (map_auto.c), unless refined. */
    if (rc == 0 && !al->baseline && (al->map != topomap_map_auto || o->refine))
        rc = topomap_node_place(&pb, rank_to_slot, o->node_place, NULL, err, errlen);
    if (rc == 0 && !al->baseline) {
        /* Then, on a rail-optimised fabric, the rails (node_rails.c), auto's
         * answer too. */
        if (o->node_place != TOPOMAP_NODE_PLACE_OFF)
            rc = topomap_node_rails(&pb, rank_to_slot, err, errlen);
        /* auto on NVLink domains: no busier NIC than the layout's (fabric_guard.c). */
        if (rc == 0 && al->map == topomap_map_auto)
            rc = topomap_fabric_guard(&pb, rank_to_slot, err, errlen);
        if (rc == 0)
            rc = check_result(&pb, "node placement", rank_to_slot, err, errlen);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved_threads);
#endif
    free(sn);
    free(sc);
    return rc;
}
