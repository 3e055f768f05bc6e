/* SPDX-License-Identifier: BSD-3-Clause */
/* auto as an anytime algorithm (issue 37), on many-core nodes: a two-level
 * fat-tree of nodes of 2 sockets x 64 cores.
 *  - Deadlines: a deliberately tiny limit on a large job ends about at the
 *    limit, for auto and for each class of phase it runs (the fast start's
 *    METIS k-way parts, drb's bisections and refinement, TreeMatch, the
 *    node placement, the refinement engine), and auto's answer is a valid
 *    mapping no worse than block. The check is on the processor time the
 *    call used (CLOCK_PROCESS_CPUTIME_ID), with an absolute slack: the
 *    machine running the tests is shared, and its load stretches wall
 *    times without any phase overrunning; the strict whole-process targets
 *    live in the benchmark (topomap-bench -s manycore).
 *  - Anytime: with the same seed, the answer at a longer limit is never
 *    worse than at a shorter one (auto's key: SumCom on these nodes). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coarsen.h"
#include "internal.h"
#include "problem.h"
#include "refine.h"
#include "synth.h"
#include "tap.h"

/* Processor seconds a phase may use past its limit: a check every few
 * hundred steps, plus what a loaded machine's scheduling adds. */
#define SLACK 0.5

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* nl leaf switches of 32 nodes, 2 sockets x 64 cores each. */
static topomap_topology_t *manycore(int nl)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "nodes: \"n[000-%03d]\"\nnetwork:\n  kind: fat-tree\n"
             "  levels:\n    - {arity: %d, hops: 4}\n    - {arity: 32, hops: 2}\n"
             "node:\n  levels:\n    - {name: socket, arity: 2, cost: 0.5}\n"
             "    - {name: core, arity: 64, cost: 0.125}\n",
             32 * nl - 1, nl);
    return topology_text(yaml);
}

/* The first nn nodes of t, every core. */
static topomap_alloc_t *first_nodes(const topomap_topology_t *t, int nn)
{
    char hl[64];
    snprintf(hl, sizeof hl, "n[000-%03d]", nn - 1);
    return topomap_alloc_create(t, hl, NULL, err, sizeof err);
}

static double sumcom(const topomap_profile_t *p, const topomap_alloc_t *a, const int *r2s)
{
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    return topomap_eval_slots(p, a, r2s, &m) == 0 ? m.sumcom : -1;
}

/* auto with a tiny limit: about the limit in processor time, valid, no worse
 * than block. */
static void auto_tiny(const topomap_profile_t *p, const topomap_alloc_t *a, double limit)
{
    int n = topomap_profile_nranks(p), *r2s = malloc(sizeof(int) * (size_t)n);
    int *blk = malloc(sizeof(int) * (size_t)n);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.time_limit = limit;
    double c0 = cpu_now(), t0 = topomap_now();
    int rc = topomap_map("auto", p, a, &o, r2s, err, sizeof err);
    double cpu = cpu_now() - c0, wall = topomap_now() - t0;
    ok(rc == 0 && valid(r2s, n, topomap_alloc_nslots(a)),
       "auto, %d ranks, time limit %g s: a valid mapping (%s)", n, limit, rc ? err : "ok");
    ok(cpu <= 1.1 * limit + SLACK, "... in %.3f s of processor time (%.3f s wall), limit %g s",
       cpu, wall, limit);
    topomap_map("block", p, a, NULL, blk, err, sizeof err);
    double hb = hop_bytes(p, a, r2s), hbb = hop_bytes(p, a, blk);
    ok(rc == 0 && hb <= hbb, "... hop-bytes %.6g <= block's %.6g", hb, hbb);
    free(r2s), free(blk);
}

/* One phase through the public API with a tiny limit: it stops (ETIMEDOUT)
 * or answers, about at the limit. */
static void algo_tiny(const topomap_profile_t *p, const topomap_alloc_t *a, const char *algo,
                      double limit)
{
    int n = topomap_profile_nranks(p), *r2s = malloc(sizeof(int) * (size_t)n);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.time_limit = limit;
    double c0 = cpu_now();
    int rc = topomap_map(algo, p, a, &o, r2s, err, sizeof err);
    double cpu = cpu_now() - c0;
    ok((rc == 0 && valid(r2s, n, topomap_alloc_nslots(a))) || (rc < 0 && errno == ETIMEDOUT),
       "%s, %d ranks, limit %g s: stops or answers (%s) in %.3f s of processor time", algo, n,
       limit, rc ? err : "answered", cpu);
    ok(cpu <= 1.1 * limit + SLACK, "... within the limit + 10%% + %g s", SLACK);
    free(r2s);
}

/* The internal phases that take the problem's deadline: the fast start
 * (METIS k-way parts, drb on the quotient graph, the rank refinement), the
 * node placement and the refinement engine, each from block's mapping. */
static void phases_tiny(const topomap_profile_t *p, const topomap_alloc_t *a, double limit)
{
    struct prob P;
    prob_init(&P, p, a);
    int n = P.pb.n, *r2s = malloc(sizeof(int) * (size_t)n);
    static const char *names[] = {"multilevel (coarsen.c)", "node placement", "refinement"};
    for (int k = 0; k < 3; k++) {
        topomap_map("block", p, a, NULL, r2s, err, sizeof err);
        P.pb.deadline = topomap_now() + limit;
        double c0 = cpu_now();
        int rc;
        if (k == 0) {
            rc = topomap_map_coarse(&P.pb, r2s, err, sizeof err);
        } else if (k == 1) {
            rc = topomap_node_place(&P.pb, r2s, TOPOMAP_NODE_PLACE_AUTO, NULL, err, sizeof err);
        } else {
            struct topomap_refine_params rp = {0, P.pb.deadline, REFINE_MIN_GAIN,
                                               TOPOMAP_REFINE_AUTO};
            rc = topomap_refine(&P.pb, r2s, &rp, NULL, err, sizeof err);
        }
        double cpu = cpu_now() - c0;
        ok((rc == 0 && valid(r2s, n, P.pb.nslots)) || (rc < 0 && errno == ETIMEDOUT),
           "%s, %d ranks, limit %g s: stops or answers (%s) in %.3f s of processor time",
           names[k], n, limit, rc ? err : "valid", cpu);
        ok(cpu <= 1.1 * limit + SLACK, "... within the limit + 10%% + %g s", SLACK);
    }
    free(r2s);
    prob_free(&P);
}

/* The same seed at growing limits: SumCom never rises. */
static void anytime(const topomap_profile_t *p, const topomap_alloc_t *a)
{
    static const double limits[] = {0.05, 0.2, 0.8, 3.2};
    int n = topomap_profile_nranks(p), *r2s = malloc(sizeof(int) * (size_t)n);
    double prev = -1;
    int worse = 0;
    char line[256] = "";
    for (int k = 0; k < 4; k++) {
        topomap_opts_t o;
        topomap_opts_init(&o);
        o.time_limit = limits[k];
        double s = topomap_map("auto", p, a, &o, r2s, err, sizeof err) == 0 ? sumcom(p, a, r2s)
                                                                           : -1;
        if (s < 0 || (prev >= 0 && s > prev * (1 + 1e-12)))
            worse = 1;
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, "%s%g s: %.6g", k ? ", " : "", limits[k], s);
        prev = s;
    }
    ok(!worse, "auto, %d ranks, same seed: SumCom never rises with the limit (%s)", n, line);
    free(r2s);
}

int main(void)
{
    topomap_topology_t *t = manycore(4);
    ok(t != NULL, "fat-tree of 128 nodes of 2 x 64 cores (%s)", t ? "ok" : err);
    if (!t)
        return done_testing();
    /* 16,384 ranks (a shuffled 32 x 32 x 16 stencil) on 128 nodes. */
    topomap_profile_t *big = stencil(32, 32, 16, 0, 1);
    topomap_alloc_t *a = first_nodes(t, 128);
    auto_tiny(big, a, 0.01);
    auto_tiny(big, a, 0.2);
    algo_tiny(big, a, "treematch", 0.01);
    algo_tiny(big, a, "drb+refine", 0.01);
    /* ohtma: the greedy phase, then the first partners' O(n^2) scan. */
    algo_tiny(big, a, "ohtma", 0.01);
    algo_tiny(big, a, "ohtma", 0.3);
    phases_tiny(big, a, 0.01);
    topomap_alloc_free(a);
    topomap_profile_free(big);
    /* 2048 ranks (16 x 16 x 8) on 16 nodes: every candidate's placement is
     * the full one, auto's key SumCom. */
    topomap_profile_t *mid = stencil(16, 16, 8, 0, 1);
    a = first_nodes(t, 16);
    anytime(mid, a);
    topomap_alloc_free(a);
    topomap_profile_free(mid);
    topomap_topology_free(t);
    return done_testing();
}
