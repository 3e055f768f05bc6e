/* SPDX-License-Identifier: BSD-3-Clause */
/* auto with threads (auto_batch.c): without a time limit, the same answer
 * for 1, 2, 4 and 8 threads, and the same choice said in the progress
 * lines, on cases that take the batch's every path:
 *  - 2048 ranks on 16 nodes of 2 x 64 cores (fast start, drb + refine and
 *    treematch side by side, treematch + refine chained to treematch,
 *    block + refine and greedy + refine alone);
 *  - 512 ranks on a fat-tree of 16-core nodes (treematch's four more seeds);
 *  - 256 ranks talking at random, one per node of an 8x8x4 torus (drb's
 *    three seeds, spectral-fit, analytic-anchor alone with its own
 *    allowance, ohtma, the work budget dropping outcomes that ran);
 *  - the same torus case with a work budget of a tenth (more outcomes run
 *    and then dropped).
 * Then the parallel paths inside the algorithms (treematch_kpart.c's
 * levels, splits and pairs of children, treematch_refine.c's sweeps,
 * tm_aggregate()),
 * which run from the tuning's par_min entities on: with par_min lowered so
 * that they run on these small cases, treematch and auto give the
 * mapping of 1 thread at 2, 3 and 8 threads, and each path is seen to run
 * (par_trace).
 * Thread counts above the machine's cores are fine: the answer must not
 * depend on them, only the time does. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"
#include "problem.h"
#include "synth.h"
#include "tap.h"

/* auto's "chose" line, without its time. */
struct chose {
    char line[256];
};

static void log_chose(const char *line, void *arg)
{
    struct chose *c = arg;
    if (!strncmp(line, "auto: chose ", 12)) {
        snprintf(c->line, sizeof c->line, "%s", line);
        char *t = strrchr(c->line, ',');
        if (t)
            *t = 0; /* ", 1.234 s)" */
    }
}

static void same_answer(const char *what, const topomap_profile_t *p, const topomap_alloc_t *a)
{
    static const int counts[] = {1, 2, 4, 8};
    int n = topomap_profile_nranks(p);
    int *first = malloc(sizeof(int) * (size_t)n), *r2s = malloc(sizeof(int) * (size_t)n);
    struct chose c1 = {""};
    for (int q = 0; q < 4; q++) {
        topomap_opts_t o;
        topomap_opts_init(&o);
        o.nthreads = counts[q];
        struct chose c = {""};
        o.log = log_chose;
        o.log_arg = &c;
        int rc = topomap_map("auto", p, a, &o, q ? r2s : first, err, sizeof err);
        if (q == 0) {
            ok(rc == 0 && valid(first, n, topomap_alloc_nslots(a)),
               "%s, 1 thread: a valid mapping (%s)", what, rc ? err : c.line);
            c1 = c;
            continue;
        }
        ok(rc == 0 && !memcmp(first, r2s, sizeof(int) * (size_t)n),
           "%s, %d threads: the mapping of 1 thread (%s)", what, counts[q], rc ? err : c.line);
        ok(!strcmp(c.line, c1.line), "... and the same choice ('%s' / '%s')", c.line, c1.line);
    }
    free(first), free(r2s);
}

/* The parallel paths seen (par_trace), by name. */
static const char *paths[] = {"kpart level", "kpart split", "kpart pairs", "sumcom sweep"};
#define NPATHS (sizeof paths / sizeof *paths)
static int seen[NPATHS];
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;

static void par_trace(const char *where)
{
    pthread_mutex_lock(&seen_mu);
    for (size_t i = 0; i < NPATHS; i++)
        if (!strcmp(where, paths[i]))
            seen[i]++;
    pthread_mutex_unlock(&seen_mu);
}

/* algo at 1, 2, 3 and 8 threads: the same mapping. */
static void same_algo(const char *what, const char *algo, const topomap_profile_t *p,
                      const topomap_alloc_t *a)
{
    static const int counts[] = {1, 2, 3, 8};
    int n = topomap_profile_nranks(p);
    int *first = malloc(sizeof(int) * (size_t)n), *r2s = malloc(sizeof(int) * (size_t)n);
    for (int q = 0; q < 4; q++) {
        topomap_opts_t o;
        topomap_opts_init(&o);
        o.nthreads = counts[q];
        int rc = topomap_map(algo, p, a, &o, q ? r2s : first, err, sizeof err);
        if (q == 0)
            ok(rc == 0 && valid(first, n, topomap_alloc_nslots(a)), "%s, %s, 1 thread: valid (%s)",
               what, algo, rc ? err : "ok");
        else
            ok(rc == 0 && !memcmp(first, r2s, sizeof(int) * (size_t)n),
               "%s, %s, %d threads: the mapping of 1 thread (%s)", what, algo, counts[q],
               rc ? err : "ok");
    }
    free(first), free(r2s);
}

/* The SumCom refinement (treematch_sumcom.c) from a random mapping, where
 * it makes many exchanges (treematch's own mapping needs few): the same
 * mapping at 1, 2, 3 and 8 threads, and not the one it started from. */
static void same_sumcom(const topomap_profile_t *p, const topomap_alloc_t *a)
{
    static const int counts[] = {1, 2, 3, 8};
    struct prob P;
    prob_init(&P, p, a);
    int n = P.pb.n;
    size_t sz = sizeof(int) * (size_t)n;
    int *start = malloc(sz), *first = malloc(sz), *r2s = malloc(sz);
    int rc = topomap_map("random", p, a, NULL, start, err, sizeof err);
    for (int q = 0; rc == 0 && q < 4; q++) {
#ifdef _OPENMP
        omp_set_num_threads(counts[q]);
#endif
        memcpy(q ? r2s : first, start, sz);
        int r = topomap_refine_sumcom(&P.pb, q ? r2s : first, err, sizeof err);
        if (q == 0)
            ok(r == 0 && valid(first, n, P.pb.nslots) && memcmp(first, start, sz),
               "SumCom refinement of a random mapping, 1 thread: valid, exchanges made (%s)",
               r ? err : "ok");
        else
            ok(r == 0 && !memcmp(first, r2s, sz),
               "SumCom refinement, %d threads: the mapping of 1 thread (%s)", counts[q],
               r ? err : "ok");
    }
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    free(start), free(first), free(r2s);
    prob_free(&P);
}

/* The parallel paths with par_min lowered to 32 on 2048 ranks. */
static void parallel_paths(const topomap_profile_t *p, const topomap_alloc_t *a)
{
    int par_min = topomap_tuning()->par_min;
    topomap_tuning()->par_min = 32;
    topomap_tuning()->par_trace = par_trace;
    memset(seen, 0, sizeof seen);
    same_algo("2048 ranks, par_min 32", "treematch", p, a);
    ok(seen[0] > 0 && seen[1] > 0 && seen[2] > 0 && seen[3] > 0,
       "... kpart's levels (%d), splits (%d) and pairs (%d) and the SumCom sweeps (%d) ran in "
       "parallel",
       seen[0], seen[1], seen[2], seen[3]);
    memset(seen, 0, sizeof seen);
    same_sumcom(p, a);
    ok(seen[3] > 0, "... its sweeps ran in parallel (%d)", seen[3]);
    same_answer("2048 ranks, 128-core nodes, par_min 32", p, a);
    topomap_tuning()->par_trace = NULL;
    topomap_tuning()->par_min = par_min;
}

int main(void)
{
    /* 2 x 64-core nodes, two leaf switches of 32. */
    topomap_topology_t *t = topology_text(
        "nodes: \"n[000-063]\"\nnetwork:\n  kind: fat-tree\n"
        "  levels:\n    - {arity: 2, hops: 4}\n    - {arity: 32, hops: 2}\n"
        "node:\n  levels:\n    - {name: socket, arity: 2, cost: 0.5}\n"
        "    - {name: core, arity: 64, cost: 0.125}\n");
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "n[000-015]", NULL, err, sizeof err) : NULL;
    topomap_profile_t *p = stencil(16, 16, 8, 0, 1);
    ok(a && p, "2048 ranks on 16 nodes of 2 x 64 cores (%s)", a && p ? "ok" : err);
    if (a && p) {
        same_answer("2048 ranks, 128-core nodes", p, a);
        parallel_paths(p, a);
    }
    topomap_alloc_free(a), topomap_profile_free(p), topomap_topology_free(t);

    /* 16-core nodes (2 x 8) on a fat-tree: treematch's seeds. */
    t = topology_text("nodes: \"n[00-63]\"\nnetwork:\n  kind: fat-tree\n"
                      "  levels:\n    - {arity: 4, hops: 4}\n    - {arity: 16, hops: 2}\n"
                      "node:\n  levels:\n    - {name: socket, arity: 2, cost: 0.5}\n"
                      "    - {name: core, arity: 8, cost: 0.125}\n");
    a = t ? topomap_alloc_create(t, "n[00-31]", NULL, err, sizeof err) : NULL;
    p = random_profile(512, 6);
    ok(a && p, "512 ranks on 32 nodes of 2 x 8 cores (%s)", a && p ? "ok" : err);
    if (a && p)
        same_answer("512 ranks, 16-core nodes", p, a);
    topomap_alloc_free(a), topomap_profile_free(p), topomap_topology_free(t);

    /* One rank per node of a torus. */
    int dims[3] = {8, 8, 4}, wrap[3] = {1, 1, 1};
    t = topomap_topology_torus(3, dims, wrap, 1, NULL, err, sizeof err);
    a = t ? topomap_alloc_create(t, "node[000-255]", NULL, err, sizeof err) : NULL;
    p = random_profile(256, 6);
    ok(a && p, "256 ranks, one per node of an 8x8x4 torus (%s)", a && p ? "ok" : err);
    if (a && p) {
        same_answer("256 ranks on a torus", p, a);
        double budget = topomap_tuning()->auto_work_budget;
        topomap_tuning()->auto_work_budget = budget / 10;
        same_answer("256 ranks on a torus, a tenth of the work budget", p, a);
        topomap_tuning()->auto_work_budget = budget;
    }
    topomap_alloc_free(a), topomap_profile_free(p), topomap_topology_free(t);
    return done_testing();
}
