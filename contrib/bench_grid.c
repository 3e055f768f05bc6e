/* SPDX-License-Identifier: BSD-3-Clause */
/* The grid case set (Bhatele et al. 2010):
 *  1. the aspect-ratio study of the paper's Fig. 6: 2D object grids onto 2D
 *     meshes of as many processors, the average hops per byte of each 2D
 *     heuristic of grid_embed.c (called directly, through internal.h: the
 *     one place the benchmark looks past topomap.h), their best, and the
 *     algorithms grid (best + refinement) and auto, with Scotch; the lower
 *     bound is 1.0 (every byte one hop);
 *  2. 2D, 3D and 4D grids (plain and shuffled) on the shipped tori, one slot
 *     per node and several, in the case table with Scotch and auto;
 *  3. the time of each heuristic on 65,536 cells.
 * Profiles are bench_stencil()'s open stencils (z = 1: a 2D grid). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "grid.h"

static const char *grid_algos[] = {"block", "drb+refine", "grid", "auto", "scotch"};
#define NGRID_ALGOS ((int)(sizeof grid_algos / sizeof grid_algos[0]))

/* Hops per byte of an embedding of the ox x oy grid (equal edges) on a mesh. */
static double hops_per_byte(const int *map, int ox, int oy, int px)
{
    double hops = 0, edges = 0;
    for (int y = 0; y < oy; y++)
        for (int x = 0; x < ox; x++) {
            int a = map[x + ox * y];
            for (int d = 0; d < 2; d++) {
                int X = x + (d == 0), Y = y + (d == 1);
                if (X >= ox || Y >= oy)
                    continue;
                int b = map[X + ox * Y];
                hops += abs(a % px - b % px) + abs(a / px - b / px);
                edges++;
            }
        }
    return edges ? hops / edges : NAN;
}

/* hop-bytes / total bytes of an algorithm's run on the last case, NAN if none. */
static double hpb(const char *prof, const char *topo, const char *algo, double total)
{
    const struct bench_result *r = bench_find(prof, topo, "compact:1", algo);
    return r && r->hb == r->hb ? r->hb / total : NAN;
}

static void study(struct bench_plan *plan, int quick)
{
    static const int pairs[][4] = {
        {6, 5, 10, 3},     {9, 8, 6, 12},    {100, 40, 125, 32}, {64, 64, 256, 16},
        {256, 16, 64, 64}, {32, 32, 128, 8}, {128, 8, 32, 32},   {48, 12, 24, 24},
        {60, 20, 30, 40},  {200, 20, 80, 50},
    };
    int np = quick ? 3 : (int)(sizeof pairs / sizeof pairs[0]);
    double rows[16][TOPOMAP_GRID_NH2D + 4];
    for (int c = 0; c < np; c++) {
        int ox = pairs[c][0], oy = pairs[c][1], px = pairs[c][2], py = pairs[c][3];
        int *map = bench_xmalloc(sizeof(int) * (size_t)ox * (size_t)oy);
        double best = INFINITY;
        for (int h = 0; h < TOPOMAP_GRID_NH2D; h++) {
            rows[c][h] = topomap_grid_embed2d(h, ox, oy, px, py, map) == 0
                             ? hops_per_byte(map, ox, oy, px)
                             : NAN;
            best = rows[c][h] < best ? rows[c][h] : best;
        }
        rows[c][TOPOMAP_GRID_NH2D] = best;
        free(map);
        char pname[48], tname[40];
        snprintf(pname, sizeof pname, "grid2d-%dx%d", ox, oy);
        snprintf(tname, sizeof tname, "mesh-%dx%d", px, py);
        topomap_profile_t *p = bench_stencil(ox, oy, 1, 1e4, 0);
        int dims[2] = {px, py}, wrap[2] = {0, 0};
        topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 1, NULL, bench_err,
                                                       sizeof bench_err);
        topomap_alloc_t *a = t && p ? bench_make_alloc(t, ox * oy, 0, 1) : NULL;
        if (a)
            bench_run_case(pname, p, tname, "compact:1", a, plan);
        double total = p ? topomap_profile_total_bytes(p) : 0;
        rows[c][TOPOMAP_GRID_NH2D + 1] = hpb(pname, tname, "grid", total);
        rows[c][TOPOMAP_GRID_NH2D + 2] = hpb(pname, tname, "auto", total);
        rows[c][TOPOMAP_GRID_NH2D + 3] = hpb(pname, tname, "scotch", total);
        topomap_alloc_free(a);
        topomap_topology_free(t);
        topomap_profile_free(p);
    }
    bench_emit("\n# Aspect-ratio study (Bhatele et al. 2010, Fig. 6): average hops per byte of a\n"
               "# 2D grid (equal edges) on a 2D mesh of as many nodes, one rank per node; lower\n"
               "# bound 1.0. best: the best 2D heuristic alone; grid: the algorithm (every\n"
               "# heuristic, best by hop-bytes, then the refinement engine).\n");
    bench_emit("%-9s %-9s", "object", "mesh");
    for (int h = 0; h < TOPOMAP_GRID_NH2D; h++)
        bench_emit(" %8s", topomap_grid_heuristic_names[h]);
    bench_emit(" %8s %8s %8s %8s\n", "best", "grid", "auto", "scotch");
    for (int c = 0; c < np; c++) {
        char o[16], m[16];
        snprintf(o, sizeof o, "%dx%d", pairs[c][0], pairs[c][1]);
        snprintf(m, sizeof m, "%dx%d", pairs[c][2], pairs[c][3]);
        bench_emit("%-9s %-9s", o, m);
        for (int k = 0; k < TOPOMAP_GRID_NH2D + 4; k++)
            bench_emit(" %8.3f", rows[c][k]);
        bench_emit("\n");
    }
}

/* Seconds of each heuristic on 65,536 cells (256 x 256 onto 1024 x 64). */
static void timings(void)
{
    int ox = 256, oy = 256, px = 1024, py = 64;
    int *map = bench_xmalloc(sizeof(int) * (size_t)ox * (size_t)oy);
    bench_emit("\n# Time of each 2D heuristic, 256x256 grid onto a 1024x64 mesh (65,536 cells)\n");
    for (int h = 0; h < TOPOMAP_GRID_NH2D; h++) {
        double t0 = bench_now();
        int rc = topomap_grid_embed2d(h, ox, oy, px, py, map);
        double dt = bench_now() - t0;
        bench_emit("%-8s %9.4f s  %.3f hops per byte\n", topomap_grid_heuristic_names[h], dt,
                   rc == 0 ? hops_per_byte(map, ox, oy, px) : NAN);
    }
    free(map);
}

/* 2D/3D/4D grids on the shipped tori (open stencils; "perm-" shuffled). */
static void on_tori(const char *tdir, struct bench_plan *plan, int quick)
{
    static const struct {
        const char *topo;
        int one; /* one slot per node */
        int x, y, z;
        int shuffled;
    } cases[] = {
        {"torus-8x8x8", 1, 32, 16, 1, 0},    {"torus-8x8x8", 1, 32, 16, 1, 1},
        {"torus-8x8x8", 1, 16, 8, 4, 1},     {"torus-8x8x8", 0, 64, 32, 1, 1},
        {"torus-8x8x8", 0, 16, 16, 8, 1},    {"torus-16x16x16", 1, 64, 64, 1, 1},
        {"torus-16x16x16", 1, 32, 16, 8, 1}, {"torus-16x16x16", 0, 128, 128, 1, 1},
    };
    int nc = quick ? 2 : (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < nc; c++) {
        char path[4096], pname[48];
        snprintf(path, sizeof path, "%s/%s.yaml", tdir, cases[c].topo);
        topomap_topology_t *t = topomap_topology_load(path, bench_err, sizeof bench_err);
        if (!t) {
            bench_emit("# skipping %s: %s\n", cases[c].topo, bench_err);
            continue;
        }
        topomap_profile_t *p = bench_stencil(cases[c].x, cases[c].y, cases[c].z, 1e4,
                                             cases[c].shuffled ? BENCH_PERM_SEED : 0);
        if (cases[c].z > 1)
            snprintf(pname, sizeof pname, "%sgrid3d-%dx%dx%d", cases[c].shuffled ? "perm-" : "",
                     cases[c].x, cases[c].y, cases[c].z);
        else
            snprintf(pname, sizeof pname, "%sgrid2d-%dx%d", cases[c].shuffled ? "perm-" : "",
                     cases[c].x, cases[c].y);
        int n = cases[c].x * cases[c].y * cases[c].z;
        topomap_alloc_t *a = p ? bench_make_alloc(t, n, 0, cases[c].one) : NULL;
        if (a)
            bench_run_case(pname, p, cases[c].topo, cases[c].one ? "compact:1" : "compact", a,
                           plan);
        topomap_alloc_free(a);
        topomap_profile_free(p);
        topomap_topology_free(t);
    }
}

void bench_grid_run(const char *tdir, int quick)
{
    static struct bench_plan plan;
    plan.algos = grid_algos;
    plan.nalgo = NGRID_ALGOS;
    on_tori(tdir, &plan, quick);
    study(&plan, quick);
    timings();
}
