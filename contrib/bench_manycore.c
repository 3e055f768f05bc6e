/* SPDX-License-Identifier: BSD-3-Clause */
/* The manycore set (issue 37): today's CPU nodes of 2 sockets x 64 cores
 * (costs 0.5 and 0.125), an irregular pattern, and the plugin's time limits.
 *  - Profiles: each rank sends 1e5..1e6 bytes to its 8 nearest neighbours
 *    among points uniform in the unit cube (bench_knn), ranks numbered at
 *    random or along a space-filling curve (as a domain decomposition
 *    numbers them); seeds BENCH_RGG_SEED and the next one.
 *  - Machines: a two-level fat-tree of 16 leaf switches x 32 nodes (hops 2
 *    and 4), the first n / 128 nodes (4,096 ranks on 32 nodes, 16,384 on 128,
 *    65,536 on 512); and the 8x8x8 torus with the same nodes (4,096 and
 *    16,384 ranks), and the fat-tree with 2 x 32-core nodes (4,096 ranks);
 *    the shipped dragonfly (dragonfly-slingshot-2048: 16 groups x 32
 *    switches x 4 nodes) with 2 x 64-core nodes (4,096 and 16,384 ranks:
 *    part of a group, a whole group) and 2 x 32-core ones (4,096), and the
 *    8x8x8 torus with 2 x 32-core nodes (4,096 and 16,384).
 *  - Runs: auto, one thread, at time limits of 0.25, 0.5, 1, 2 and 5 s (the
 *    quality it reaches by then: its hop-bytes over block's), and Scotch's
 *    static mapping onto the network (no time limit), each with its wall
 *    time and, for auto, its processor time (on a shared machine the wall
 *    time stretches with the load while the processor time does not).
 * The time of topomap_map() alone: the profile is built in memory. The
 * whole process of `topomap map --time-limit 2` (loading included) is in
 * doc/benchmarks.md, measured from files. Quick (-q): 4,096 ranks only;
 * 65,536 ranks only in the full set (minutes: Scotch alone takes 15 s). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static const double limits[] = {0.25, 0.5, 1, 2, 5};
#define NLIMITS ((int)(sizeof limits / sizeof limits[0]))

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Nodes of 2 sockets x c cores on t. */
static topomap_topology_t *with_nodes(topomap_topology_t *t, int c)
{
    int ar[2] = {2, c};
    double cost[3] = {0.5, 0.125, 0};
    if (!t || topomap_topology_set_node_levels(t, 2, ar, cost, bench_err, sizeof bench_err) < 0) {
        bench_emit("# manycore: skipping a machine: %s\n", bench_err);
        topomap_topology_free(t);
        return NULL;
    }
    return t;
}

topomap_topology_t *bench_manycore_fat_tree(int c)
{
    int arity[2] = {16, 32}, hops[2] = {4, 2};
    return with_nodes(
        topomap_topology_tree(2, arity, hops, 2 * c, NULL, bench_err, sizeof bench_err), c);
}

/* The fat-tree in the machines' table (which passes the topologies directory). */
static topomap_topology_t *fat_tree(const char *tdir, int c)
{
    (void)tdir;
    return bench_manycore_fat_tree(c);
}

static topomap_topology_t *torus(const char *tdir, int c)
{
    (void)tdir;
    int dims[3] = {8, 8, 8}, wrap[3] = {1, 1, 1};
    return with_nodes(
        topomap_topology_torus(3, dims, wrap, 2 * c, NULL, bench_err, sizeof bench_err), c);
}

/* The shipped dragonfly (tdir/dragonfly-slingshot-2048.yaml). */
static topomap_topology_t *dragonfly(const char *tdir, int c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/dragonfly-slingshot-2048.yaml", tdir);
    return with_nodes(topomap_topology_load(path, bench_err, sizeof bench_err), c);
}

/* Hop-bytes of r2s, or NAN. */
double bench_manycore_hb(const topomap_profile_t *p, const topomap_alloc_t *a, const int *r2s)
{
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    return topomap_eval_slots(p, a, r2s, &m) == 0 ? m.hop_bytes : NAN;
}

/* One case: block, auto at every limit, Scotch; one line. */
static void one_case(const char *pname, const topomap_profile_t *p, const char *tname,
                     const topomap_topology_t *t)
{
    int n = topomap_profile_nranks(p);
    topomap_alloc_t *a = bench_make_alloc(t, n, 0, 0);
    if (!a)
        return;
    int *r2s = bench_xmalloc(sizeof(int) * (size_t)n);
    char line[1024];
    int len = snprintf(line, sizeof line, "%-22s %-16s %5d", pname, tname,
                       topomap_alloc_nnodes(a));
    double hb_block = NAN;
    if (topomap_map("block", p, a, NULL, r2s, bench_err, sizeof bench_err) == 0)
        hb_block = bench_manycore_hb(p, a, r2s);
    for (int k = 0; k < NLIMITS; k++) {
        topomap_opts_t o;
        topomap_opts_init(&o);
        o.time_limit = limits[k];
        o.nthreads = 1;
        double t0 = bench_now(), c0 = cpu_now(), rel = NAN;
        if (topomap_map("auto", p, a, &o, r2s, bench_err, sizeof bench_err) == 0)
            rel = bench_manycore_hb(p, a, r2s) / hb_block;
        double wall = bench_now() - t0, cpu = cpu_now() - c0;
        len += snprintf(line + len, sizeof line - (size_t)len, " %6.4f %4.2f/%4.2f", rel, wall,
                        cpu);
    }
#ifdef HAVE_SCOTCH
    double secs = NAN;
    char note[80] = "";
    double srel = bench_scotch_map(p, a, r2s, &secs, note, sizeof note) == 0
                      ? bench_manycore_hb(p, a, r2s) / hb_block
                      : NAN;
    len += snprintf(line + len, sizeof line - (size_t)len, " %6.4f %5.2f", srel, secs);
#else
    len += snprintf(line + len, sizeof line - (size_t)len, " (no Scotch in this build)");
#endif
    bench_emit("%s\n", line);
    free(r2s);
    topomap_alloc_free(a);
}

void bench_manycore_run(const char *tdir, int quick)
{
    bench_emit("\n# manycore set: auto's hop-bytes / block's at each time limit (one thread), "
               "wall/processor seconds of topomap_map(); Scotch's / block's and its seconds\n");
    bench_emit("# %-20s %-16s %5s", "profile", "machine", "nodes");
    for (int k = 0; k < NLIMITS; k++)
        bench_emit(" %6s%-9g", "auto@", limits[k]);
    bench_emit(" %6s %5s\n", "scotch", "s");
    bench_scotch_hier = 0;
    struct {
        const char *name;
        topomap_topology_t *(*make)(const char *, int);
        int cores, maxn;
    } machines[] = {{"fat-tree 2x64", fat_tree, 64, quick ? 4096 : 65536},
                    {"torus-8^3 2x64", torus, 64, quick ? 4096 : 16384},
                    {"fat-tree 2x32", fat_tree, 32, 4096},
                    {"dragonfly 2x64", dragonfly, 64, quick ? 4096 : 16384},
                    {"dragonfly 2x32", dragonfly, 32, 4096},
                    {"torus-8^3 2x32", torus, 32, quick ? 4096 : 16384}};
    for (size_t m = 0; m < sizeof machines / sizeof machines[0]; m++) {
        topomap_topology_t *t = machines[m].make(tdir, machines[m].cores);
        if (!t)
            continue;
        for (int n = 4096; n <= machines[m].maxn; n *= 4)
            for (int curve = 0; curve <= 1; curve++) {
                char pname[48];
                snprintf(pname, sizeof pname, "knn8-%d-%s", n, curve ? "curve" : "random");
                topomap_profile_t *p = bench_knn(n, 8, curve, BENCH_RGG_SEED + (uint64_t)curve);
                if (!p) {
                    bench_emit("# manycore: %s: %s\n", pname, bench_err);
                    continue;
                }
                one_case(pname, p, machines[m].name, t);
                topomap_profile_free(p);
            }
        topomap_topology_free(t);
    }
}
