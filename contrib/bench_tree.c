/* SPDX-License-Identifier: BSD-3-Clause */
/* The tree case set: treematch and SumCom on hierarchical
 * machines, with Scotch's static mapping onto the whole hierarchy (its tleaf
 * over the switch levels and the node's levels with SumCom costs, or a deco
 * architecture of the slots' costs on an unbalanced tree; bench_scotch.c):
 *  1. fattree-plafrim2 (4 leaf switches x 22 nodes of 2 x 2 x 6 cores),
 *     compact and scattered;
 *  2. the same network with nodes of 2 x 4 x 8 cores, and of 2 x 2 x 4
 *     (16 cores: issue 37's goal, treematch <= 0.96 x Scotch's SumCom);
 *  3. trees read from a Slurm topology.conf (written here): a balanced one
 *     (2 pods x 4 leaf switches x 8 nodes) and an unbalanced one (a pod of 4
 *     leaf switches of 8 nodes, a pod of 2 of 6, a leaf switch of 4 nodes
 *     under the top), nodes of 2 x 2 x 6 cores;
 *  4. time at 4096 ranks on 128 nodes of 2 x 2 x 8 cores and at 65,536 on
 *     2048 (64 leaf switches x 32 nodes).
 * Profiles: the shared workloads, a shuffled 8x8x8 stencil and a random
 * geometric graph of 1024 ranks. The table gives SumCom and hop-bytes, each
 * with its ratio to Scotch's; NAME:off is NAME without the node-internal
 * placement (its SumCom gain is the ratio of the two). The summary gives
 * the geometric means over the tree cases and the targets. Node
 * costs everywhere: 0.5 (sockets), 0.25 (NUMA), 0.125 (cores), hop_cost 1. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const char *tree_algos[] = {"block",           "drb+refine:off", "drb+refine",
                                   "treematch-paper", "treematch:off",  "treematch",
                                   "treematch+refine", "auto",          "scotch"};
#define NTREE_ALGOS ((int)(sizeof tree_algos / sizeof tree_algos[0]))
static const char *scale_algos[] = {"block", "drb+refine", "treematch-paper", "treematch", "auto",
                                    "scotch"};
#define NSCALE_ALGOS ((int)(sizeof scale_algos / sizeof scale_algos[0]))
/* The 16-core nodes of issue 37's raised goal for treematch's SumCom. */
#define TREE16 "t-ft4x22-2x2x4"

/* Node levels of the set, outermost first, and their SumCom costs. */
static int node_levels(topomap_topology_t *t, int s, int n, int c)
{
    int ar[3] = {s, n, c};
    double cost[4] = {0.5, 0.25, 0.125, 0};
    if (topomap_topology_set_node_levels(t, 3, ar, cost, bench_err, sizeof bench_err) < 0) {
        bench_emit("# skipping: %s\n", bench_err);
        return -1;
    }
    return 0;
}

/* A fat-tree of leaves x per nodes with s x n x c cores per node. */
static topomap_topology_t *fat_tree(int leaves, int per, int s, int n, int c)
{
    int arity[2] = {leaves, per}, hops[2] = {4, 2};
    topomap_topology_t *t =
        topomap_topology_tree(2, arity, hops, 1, NULL, bench_err, sizeof bench_err);
    if (!t) {
        bench_emit("# skipping: %s\n", bench_err);
        return NULL;
    }
    if (node_levels(t, s, n, c) < 0) {
        topomap_topology_free(t);
        return NULL;
    }
    return t;
}

/* Write text to DIR/name and load it as a topology with 2 x 2 x 6 nodes. */
static topomap_topology_t *conf_tree(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        bench_emit("# skipping %s: cannot write it: %s\n", path, strerror(errno));
        return NULL;
    }
    topomap_topology_t *t = topomap_topology_load(path, bench_err, sizeof bench_err);
    unlink(path);
    if (!t) {
        bench_emit("# skipping %s: %s\n", name, bench_err);
        return NULL;
    }
    if (node_levels(t, 2, 2, 6) < 0) {
        topomap_topology_free(t);
        return NULL;
    }
    return t;
}

/* Every profile on t, compact and scattered. */
static void run_profiles(topomap_profile_t *const *P, char names[][48], int np,
                         const topomap_topology_t *t, const char *tname, struct bench_plan *plan)
{
    for (int i = 0; i < np; i++)
        for (int sh = 0; sh < 2; sh++) {
            topomap_alloc_t *a = bench_make_alloc(t, topomap_profile_nranks(P[i]), sh, 0);
            if (!a)
                continue;
            bench_run_case(names[i], P[i], tname, sh ? "scattered" : "compact", a, plan);
            topomap_alloc_free(a);
        }
}

/* Geometric mean of field off over the tree cases of algo (topo: those of
 * that topology only, NULL: all), its largest value and how many cases
 * exceed 1. */
static double geo_in(size_t off, const char *algo, const char *topo, double *max, int *over,
                     int *count)
{
    double s = 0;
    int c = 0;
    *max = 0;
    *over = 0;
    for (size_t i = 0; i < bench_nres; i++) {
        const struct bench_result *R = &bench_res[i];
        double v = *(const double *)((const char *)R + off);
        /* This set's tree cases: topology names "t-..." */
        if (strcmp(R->algo, algo) || strncmp(R->topo, "t-", 2) || !(v > 0) ||
            (topo && strcmp(R->topo, topo)))
            continue;
        s += log(v);
        c++;
        if (v > *max)
            *max = v;
        *over += v > 1 + 1e-9;
    }
    *count = c;
    return c ? exp(s / c) : NAN;
}

static double geo(size_t off, const char *algo, double *max, int *over, int *count)
{
    return geo_in(off, algo, NULL, max, over, count);
}

static void summary(void)
{
    bench_emit("\n## Tree set: SumCom and hop-bytes relative to Scotch (whole-hierarchy tleaf "
               "or deco), geometric mean over the tree cases (max; cases above Scotch)\n\n");
    bench_emit("%-18s %8s %8s %6s %10s %8s %6s %6s\n", "algorithm", "SumCom", "max", "above",
               "hop-bytes", "max", "above", "cases");
    for (int k = 0; k < NTREE_ALGOS; k++) {
        double mx, hmx;
        int over, hover, c, hc;
        double g = geo(offsetof(struct bench_result, sumrel), tree_algos[k], &mx, &over, &c);
        double h = geo(offsetof(struct bench_result, srel), tree_algos[k], &hmx, &hover, &hc);
        bench_emit("%-18s %8.3f %8.3f %6d %10.3f %8.3f %6d %6d\n", tree_algos[k], g, mx, over, h,
                   hmx, hover, c);
    }
    /* The node-internal placement's gain: SumCom with it / without it. */
    bench_emit("\n## Node-internal placement: SumCom with / without it, geometric mean "
               "(min) over the tree cases; hop-bytes identical: %s\n\n", "checked below");
    static const char *pairs[][2] = {{"drb+refine", "drb+refine:off"}, {"treematch", "treematch:off"}};
    for (int q = 0; q < 2; q++) {
        double s = 0, mn = INFINITY;
        int c = 0, same = 1;
        for (size_t i = 0; i < bench_nres; i++) {
            const struct bench_result *R = &bench_res[i];
            if (strncmp(R->topo, "t-", 2) || strcmp(R->algo, pairs[q][0]) || !(R->sumcom > 0))
                continue;
            const struct bench_result *O = bench_find(R->profile, R->topo, R->shape, pairs[q][1]);
            if (!O || !(O->sumcom > 0))
                continue;
            double r = R->sumcom / O->sumcom;
            s += log(r);
            c++;
            if (r < mn)
                mn = r;
            same &= R->hb == O->hb;
        }
        bench_emit("%-18s %8.4f (min %.4f) over %d cases; hop-bytes %s\n", pairs[q][0],
                   c ? exp(s / c) : NAN, mn, c, same ? "identical in every case" : "DIFFER");
    }
    /* Issue 37's raised goal: 16-core nodes. */
    double mx;
    int over, c;
    double g = geo_in(offsetof(struct bench_result, sumrel), "treematch", TREE16, &mx, &over, &c);
    bench_emit("\n## 16-core nodes (%s, %d cases): treematch's SumCom / Scotch's %.3f on the "
               "geometric mean (target <= 0.96: %s), max %.4f, above 1 on %d (target: none: %s)\n",
               TREE16, c, g, g <= 0.96 ? "met" : "MISSED", mx, over, over ? "MISSED" : "met");
    bench_emit("\n## Targets: auto's SumCom >= 2%% below Scotch's (geometric mean) and above it "
               "on no case; treematch no worse than Scotch (geometric mean); see the scaling "
               "lines for the times at 4096 (<= 0.5 s) and 65,536 ranks (<= 10 s)\n");
}

void bench_tree_run(const char *tdir, const char *wdir, int quick)
{
    static struct bench_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.algos = tree_algos;
    plan.nalgo = NTREE_ALGOS;
    plan.scaling = 1; /* own table and summary */
    plan.sumcom = 1;
    bench_scotch_hier = 1;
    bench_emit("\n## Tree set: SumCom over the whole hierarchy, treematch, the "
               "node-internal placement (NAME:off: without it), Scotch on the whole hierarchy\n\n");
    bench_table_head_sumcom();

    /* Profiles: the shared workloads found, two synthetic ones. */
    topomap_profile_t *P[16];
    char names[16][48];
    int np = 0;
    static const char *shared[] = {"lammps-lj32k-16",   "lammps-lj32k-64",  "lammps-lj32k-128",
                                   "petsc-ex45-mg65-16", "petsc-ex45-mg65-64",
                                   "petsc-ex45-mg65-128", "metis-4elt-k256", "metis-add32-k256",
                                   "metis-4elt-k1024",  "metis-add32-k1024"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0] && np < 12; i++) {
        if (quick && i % 3)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.txt", wdir, shared[i]);
        if (access(path, R_OK) != 0)
            continue;
        if (!(P[np] = topomap_profile_load(path, TOPOMAP_FMT_AUTO, bench_err, sizeof bench_err)))
            continue;
        snprintf(names[np++], 48, "%s", shared[i]);
    }
    if (np == 0)
        bench_emit("# tree set: no shared workloads in %s: synthetic profiles only\n", wdir);
    if ((P[np] = bench_stencil(8, 8, 8, 1e4, BENCH_PERM_SEED)))
        snprintf(names[np++], 48, "perm-stencil-8x8x8");
    if (!quick && (P[np] = bench_rgg(1024, 8, BENCH_RGG_SEED)))
        snprintf(names[np++], 48, "rgg-1024");

    char path[4096];
    snprintf(path, sizeof path, "%s/fattree-plafrim2.yaml", tdir);
    topomap_topology_t *t = topomap_topology_load(path, bench_err, sizeof bench_err);
    if (t) {
        run_profiles(P, names, np, t, "t-plafrim2-2x2x6", &plan);
        topomap_topology_free(t);
    } else {
        bench_emit("# skipping fattree-plafrim2: %s\n", bench_err);
    }
    if ((t = fat_tree(4, 22, 2, 4, 8))) {
        run_profiles(P, names, np, t, "t-ft4x22-2x4x8", &plan);
        topomap_topology_free(t);
    }
    if ((t = fat_tree(4, 22, 2, 2, 4))) {
        run_profiles(P, names, np, t, TREE16, &plan);
        topomap_topology_free(t);
    }
    char dir[] = "/tmp/topomap-bench-XXXXXX";
    if (mkdtemp(dir)) {
        static const char balanced[] =
            "SwitchName=top Switches=pod[0-1]\n"
            "SwitchName=pod0 Switches=l[00-03]\n"
            "SwitchName=pod1 Switches=l[04-07]\n"
            "SwitchName=l00 Nodes=c[000-007]\nSwitchName=l01 Nodes=c[008-015]\n"
            "SwitchName=l02 Nodes=c[016-023]\nSwitchName=l03 Nodes=c[024-031]\n"
            "SwitchName=l04 Nodes=c[032-039]\nSwitchName=l05 Nodes=c[040-047]\n"
            "SwitchName=l06 Nodes=c[048-055]\nSwitchName=l07 Nodes=c[056-063]\n";
        static const char unbalanced[] =
            "SwitchName=top Switches=pod[0-1],l09\n"
            "SwitchName=pod0 Switches=l[00-03]\n"
            "SwitchName=pod1 Switches=l[04-05]\n"
            "SwitchName=l00 Nodes=u[000-007]\nSwitchName=l01 Nodes=u[008-015]\n"
            "SwitchName=l02 Nodes=u[016-023]\nSwitchName=l03 Nodes=u[024-031]\n"
            "SwitchName=l04 Nodes=u[032-037]\nSwitchName=l05 Nodes=u[038-043]\n"
            "SwitchName=l09 Nodes=u[044-047]\n";
        if ((t = conf_tree(dir, "balanced.conf", balanced))) {
            run_profiles(P, names, np, t, "t-conf-balanced", &plan);
            topomap_topology_free(t);
        }
        if ((t = conf_tree(dir, "unbalanced.conf", unbalanced))) {
            run_profiles(P, names, np, t, "t-conf-unbalanced", &plan);
            topomap_topology_free(t);
        }
        rmdir(dir);
    }
    for (int i = 0; i < np; i++)
        topomap_profile_free(P[i]);

    /* Time: 4096 ranks on 128 nodes of 32 cores, 65,536 on 2048. */
    bench_emit("\n## Tree set, scaling: 64 leaf switches x 32 nodes of 2 x 2 x 8 cores\n\n");
    plan.algos = scale_algos;
    plan.nalgo = NSCALE_ALGOS;
    plan.skip_larger = 1;
    if ((t = fat_tree(64, 32, 2, 2, 8))) {
        static const int sizes[][3] = {{16, 16, 16}, {64, 32, 32}};
        for (int z = 0; z < (quick ? 1 : 2); z++) {
            topomap_profile_t *q[2];
            char qn[2][48];
            int nq = 0;
            const int *d = sizes[z];
            if ((q[nq] = bench_stencil(d[0], d[1], d[2], 1e4, BENCH_PERM_SEED)))
                snprintf(qn[nq++], 48, "perm-stencil-%dx%dx%d", d[0], d[1], d[2]);
            if ((q[nq] = bench_rgg(d[0] * d[1] * d[2], 8, BENCH_RGG_SEED)))
                snprintf(qn[nq++], 48, "rgg-%d", d[0] * d[1] * d[2]);
            for (int i = 0; i < nq; i++) {
                topomap_alloc_t *a = bench_make_alloc(t, topomap_profile_nranks(q[i]), 0, 0);
                if (a)
                    bench_run_case(qn[i], q[i], "scale-ft64x32-2x2x8", "compact", a, &plan);
                topomap_alloc_free(a);
                topomap_profile_free(q[i]);
            }
        }
        topomap_topology_free(t);
    }
    bench_scotch_hier = 0;
    summary();
}
