/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench: the scaling tables. Mapping time of each algorithm against
 * the number of ranks on a fixed machine (the 16x16x16 torus with 1, 2, 4, 8
 * and 16 slots per node: 4096 to 65,536 ranks), and against the number of
 * nodes with one slot per node (tori from 4x4x4 = 64 to 16x16x16 = 4096
 * nodes), on shuffled 3D stencils of the job's size; with the growth exponent
 * log(t2/t1) / log(n2/n1) between successive sizes. An algorithm that times
 * out is not run on the larger sizes of its sweep. A size that the case table
 * already holds (same profile, topology and allocation) is taken from it, not
 * run again; the others are run here, printed as case lines, and kept out of
 * the summary. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

#define MAXSIZE 8

struct size {
    char profile[48], topo[40], shape[16];
    int ranks, nodes, per_node;
};

struct sweep {
    const char *title;
    int nsize;
    struct size size[MAXSIZE];
};

static struct sweep sweeps[4];
static int nsweeps;

/* The 3D torus dims[0] x dims[1] x dims[2]: the shipped file NAME.yaml of
 * tdir when there is one and its nodes have at least cores cores (one slot
 * per node is then used of each), else built with cores cores per node. */
static topomap_topology_t *torus(const char *tdir, const char *name, const int *dims, int cores)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.yaml", tdir, name);
    topomap_topology_t *t = topomap_topology_load(path, bench_err, sizeof bench_err);
    if (t && cores == 1)
        return t;
    topomap_topology_free(t);
    int wrap[3] = {1, 1, 1};
    t = topomap_topology_torus(3, dims, wrap, cores, NULL, bench_err, sizeof bench_err);
    if (!t)
        fprintf(stderr, "topomap-bench: torus %s: %s\n", name, bench_err);
    return t;
}

/* Run (or find in the case table) one size of sweep S: the shuffled stencil
 * sdims, or with rgg a random geometric graph of as many ranks. */
static void run_size(struct sweep *S, const char *tdir, const int *dims, int per_node,
                     const int *sdims, int rgg, struct bench_plan *plan)
{
    char tname[40], yname[40];
    snprintf(yname, sizeof yname, "torus-%dx%dx%d", dims[0], dims[1], dims[2]);
    if (per_node == 1)
        snprintf(tname, sizeof tname, "%s", yname);
    else
        snprintf(tname, sizeof tname, "torus-%d^3x%dc", dims[0], per_node);
    struct size *Z = &S->size[S->nsize++];
    memset(Z, 0, sizeof *Z);
    if (rgg)
        snprintf(Z->profile, sizeof Z->profile, "rgg-%d", sdims[0] * sdims[1] * sdims[2]);
    else
        snprintf(Z->profile, sizeof Z->profile, "perm-stencil-%dx%dx%d", sdims[0], sdims[1],
                 sdims[2]);
    snprintf(Z->topo, sizeof Z->topo, "%s", tname);
    snprintf(Z->shape, sizeof Z->shape, per_node == 1 ? "compact:1" : "compact");
    Z->nodes = dims[0] * dims[1] * dims[2];
    Z->per_node = per_node;
    Z->ranks = Z->nodes * per_node;
    int found = 0;
    for (int k = 0; k < plan->nalgo; k++) {
        const struct bench_result *R = bench_find(Z->profile, Z->topo, Z->shape, plan->algos[k]);
        if (!R)
            continue;
        found = 1;
        if (R->timeout)
            bench_plan_timeout(plan, Z->profile, k, R->n);
    }
    if (found) {
        bench_emit("# scaling: %s on %s %s: from the case table above\n", Z->profile, Z->topo,
                   Z->shape);
        return;
    }
    topomap_topology_t *t = torus(tdir, yname, dims, per_node);
    topomap_profile_t *p =
        !t    ? NULL
        : rgg ? bench_rgg(sdims[0] * sdims[1] * sdims[2], 6, BENCH_PERM_SEED)
              : bench_stencil(sdims[0], sdims[1], sdims[2], 1e4, BENCH_PERM_SEED);
    topomap_alloc_t *a = p ? bench_make_alloc(t, Z->ranks, 0, per_node == 1) : NULL;
    if (a)
        bench_run_case(Z->profile, p, Z->topo, Z->shape, a, plan);
    else
        bench_emit("# scaling: %s on %s %s: skipped (%s)\n", Z->profile, Z->topo, Z->shape,
                   bench_err);
    topomap_alloc_free(a);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

void bench_scaling_run(const char *tdir, const char **algos, int nalgo, int quick)
{
    static struct bench_plan plan;
    /* Marks the lines below as scaling runs (topomap plot bench leaves
     * them out of its bars, as the summary does). */
    bench_emit("# scaling runs: time against ranks and against nodes, not in the summary\n");

    /* Against ranks: 16x16x16 nodes, 1 to 16 slots each. */
    static const int rdims[5][3] = {{16, 16, 16}, {32, 16, 16}, {32, 32, 16}, {32, 32, 32},
                                    {64, 32, 32}};
    static const int node16[3] = {16, 16, 16};
    struct sweep *S = &sweeps[nsweeps++];
    S->title = "ranks";
    memset(&plan, 0, sizeof plan);
    plan.algos = algos;
    plan.nalgo = nalgo;
    plan.skip_larger = plan.scaling = 1;
    for (int i = 0; i < (quick ? 2 : 5); i++)
        run_size(S, tdir, node16, 1 << i, rdims[i], 0, &plan);

    /* Against nodes: one slot per node, 64 to 4096 nodes. */
    static const int ndims[7][3] = {{4, 4, 4},   {4, 4, 8},    {4, 8, 8},   {8, 8, 8},
                                    {8, 8, 16},  {8, 16, 16},  {16, 16, 16}};
    S = &sweeps[nsweeps++];
    S->title = "nodes";
    plan.ntimeouts = 0;
    for (int i = 0; i < (quick ? 5 : 7); i++)
        run_size(S, tdir, ndims[i], 1, ndims[i], 0, &plan);
}

void bench_scaling_large_run(const char *tdir, const char **algos, int nalgo)
{
    static struct bench_plan plan;
    bench_emit("# scaling runs (large): 65,536 to 1,048,576 ranks, not in the summary\n");
    /* The 32x32x32 torus with 2, 8 and 32 slots per node: the stencil's
     * natural embedding puts 2x1x1, 2x2x2 and 4x4x2 ranks on a node. */
    static const int sdims[3][3] = {{64, 32, 32}, {64, 64, 64}, {128, 128, 64}};
    static const int node32[3] = {32, 32, 32};
    static const int per[3] = {2, 8, 32};
    for (int rgg = 0; rgg < 2; rgg++) {
        struct sweep *S = &sweeps[nsweeps++];
        S->title = rgg ? "large rgg" : "large stencil";
        memset(&plan, 0, sizeof plan);
        plan.algos = algos;
        plan.nalgo = nalgo;
        plan.skip_larger = plan.scaling = 1;
        for (int i = 0; i < 3; i++)
            run_size(S, tdir, node32, per[i], sdims[i], rgg, &plan);
    }
}

void bench_scaling_table(const char **algos, int nalgo)
{
    for (int w = 0; w < nsweeps; w++) {
        const struct sweep *S = &sweeps[w];
        if (!S->nsize)
            continue;
        if (!strcmp(S->title, "ranks"))
            bench_emit("\n## Scaling with ranks: shuffled 3D stencils on the 16x16x16 torus "
                       "(4096 nodes), 1 to 16 slots per node\n");
        else if (!strcmp(S->title, "nodes"))
            bench_emit("\n## Scaling with nodes: shuffled 3D stencils on 3D tori, one slot per "
                       "node\n");
        else
            bench_emit("\n## Scaling past 65,536 ranks: %s on the 32x32x32 torus, 2 to 32 "
                       "slots per node\n",
                       strcmp(S->title, "large rgg") ? "shuffled 3D stencils"
                                                     : "random geometric graphs (degree 6)");
        bench_emit("## seconds, then ^ the growth exponent log(t2/t1)/log(n2/n1) from the "
                   "previous size (noisy under 1 ms);\n"
                   "## timeout: over the limit of %g s (not run on larger sizes: -)\n\n",
                   bench_time_limit);
        bench_emit("%-13s", "ranks");
        for (int z = 0; z < S->nsize; z++)
            bench_emit(" %16d", S->size[z].ranks);
        bench_emit("\n%-13s", "nodes x slots");
        for (int z = 0; z < S->nsize; z++) {
            char cell[32];
            snprintf(cell, sizeof cell, "%dx%d", S->size[z].nodes, S->size[z].per_node);
            bench_emit(" %16s", cell);
        }
        bench_emit("\n");
        for (int k = 0; k < nalgo; k++) {
            bench_emit("%-13s", algos[k]);
            double prev = NAN;
            int prevn = 0;
            for (int z = 0; z < S->nsize; z++) {
                const struct size *Z = &S->size[z];
                const struct bench_result *R = bench_find(Z->profile, Z->topo, Z->shape, algos[k]);
                char cell[32] = "?";
                if (!R || R->skipped)
                    snprintf(cell, sizeof cell, "-");
                else if (R->timeout)
                    snprintf(cell, sizeof cell, "timeout");
                else if (!(R->secs >= 0))
                    snprintf(cell, sizeof cell, "failed");
                else if (prev > 0 && R->secs > 0)
                    snprintf(cell, sizeof cell, "%.3g ^%.2f", R->secs,
                             log(R->secs / prev) / log((double)R->n / prevn));
                else
                    snprintf(cell, sizeof cell, "%.3g", R->secs);
                prev = R && R->secs >= 0 ? R->secs : NAN;
                prevn = R ? R->n : 0;
                bench_emit(" %16s", cell);
            }
            bench_emit("\n");
        }
    }
}
