/* SPDX-License-Identifier: BSD-3-Clause */
/* The grid algorithm: each 2D heuristic of Bhatele et al. on the paper's
 * worked example (a 6 x 5 grid onto a 10 x 3 mesh, Fig. 5), plans for 3D
 * boxes, and `grid` end to end: shuffled grids, several slots per node,
 * partial boxes, and the cases it declines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gridgen.h"
#include "grid.h"
#include "tap.h"

static char err[512];

static topomap_alloc_t *alloc_on(const topomap_topology_t *t, int from, int count,
                                 const char *slots)
{
    const char **names = malloc(sizeof(char *) * (size_t)count);
    for (int i = 0; i < count; i++)
        names[i] = topomap_topology_node_name(t, from + i);
    char *hl = topomap_hostlist_compress(names, (size_t)count);
    topomap_alloc_t *a = topomap_alloc_create(t, hl, slots, err, sizeof err);
    free(hl);
    free(names);
    return a;
}

static int bijective(const int *map, int n)
{
    char *seen = calloc((size_t)n, 1);
    int good = 1;
    for (int i = 0; i < n && good; i++) {
        good = map[i] >= 0 && map[i] < n && !seen[map[i]];
        if (good)
            seen[map[i]] = 1;
    }
    free(seen);
    return good;
}

/* Fig. 5: a 6 x 5 object grid (every edge 1 byte each way) on a 10 x 3
 * mesh, one processor per node. Hop-bytes computed here from processor
 * coordinates must equal topomap_eval's on the same placement. */
static void test_paper_example(void)
{
    int dims[2] = {10, 3}, wrap[2] = {0, 0};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 1, NULL, err, sizeof err);
    struct gridgen g = gg_grid(2, (int[]){6, 5}, (int[]){0, 0}, 1, 0);
    topomap_profile_t *p = gg_profile(&g);
    for (int h = 0; h < TOPOMAP_GRID_NH2D; h++) {
        const char *name = topomap_grid_heuristic_names[h];
        int map[30], core[30] = {0};
        ok(topomap_grid_embed2d(h, 6, 5, 10, 3, map) == 0 && bijective(map, 30),
           "%s: 6 x 5 onto 10 x 3 is a bijection", name);
        double hb = 0;
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 6; x++) {
                int a = map[x + 6 * y];
                if (x + 1 < 6) {
                    int b = map[x + 1 + 6 * y];
                    hb += 2 * (abs(a % 10 - b % 10) + abs(a / 10 - b / 10));
                }
                if (y + 1 < 5) {
                    int b = map[x + 6 * (y + 1)];
                    hb += 2 * (abs(a % 10 - b % 10) + abs(a / 10 - b / 10));
                }
            }
        topomap_metrics_t m = TOPOMAP_METRICS_INIT;
        int rc = topomap_eval(p, t, map, core, &m);
        ok(rc == 0 && m.hop_bytes == hb,
           "%s: hop-bytes %.0f = eval's %.0f (%.3f hops per byte)", name, hb, m.hop_bytes,
           m.avg_hops_per_byte);
        ok(m.avg_hops_per_byte >= 1, "%s: not below the lower bound 1.0", name);
    }
    /* Properties the paper's descriptions fix. */
    int map[30];
    topomap_grid_embed2d(TOPOMAP_GRID_MXOVLP, 6, 5, 10, 3, map);
    int good = 1;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 6; x++)
            good &= map[x + 6 * y] == x + 10 * y;
    ok(good, "MXOVLP: the 6 x 3 overlap is mapped one to one");
    topomap_grid_embed2d(TOPOMAP_GRID_MXOVLP, 6, 5, 10, 3, map);
    int rest = 1;
    for (int y = 3; y < 5; y++)
        for (int x = 0; x < 4; x++)
            rest &= map[x + 6 * y] == 6 + x + 10 * (y - 3);
    ok(rest, "MXOVLP: the recursive call maps 4 x 2 of the rest onto the free 4 x 3 columns");
    topomap_grid_embed2d(TOPOMAP_GRID_COCE, 6, 5, 10, 3, map);
    ok(map[0] == 0 && map[5] == 9 && map[24] == 20 && map[29] == 29,
       "COCE: the object's corners on the mesh's corners");
    topomap_grid_embed2d(TOPOMAP_GRID_EXCO, 6, 5, 10, 3, map);
    ok(map[0] == 0 && map[1] == 1 && map[6] == 10, "EXCO: from corner (0, 0) outwards");
    topomap_grid_embed2d(TOPOMAP_GRID_AFFN, 6, 5, 10, 3, map);
    ok(map[0] == 0 && map[1] == 1 && map[2] == 3 && map[6] == 0 + 10 * 0 + 10,
       "AFFN: (x, y) -> (floor(10 x / 6), floor(3 y / 5)), taken -> nearest free");
    topomap_grid_embed2d(TOPOMAP_GRID_STEP, 6, 5, 10, 3, map);
    ok(map[0] == 0 && map[5] == 5 && map[11] == 6 && map[6] == 18,
       "STEP: the rows laid one after another, each turning at the mesh's side");
    errno = 0;
    ok(topomap_grid_embed2d(TOPOMAP_GRID_AFFN, 6, 5, 10, 4, map) < 0 && errno == EINVAL,
       "sizes that differ: EINVAL");
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* Every plan gives a bijection, on 2D -> 3D, 3D -> 3D and 4D -> 3D. */
static void test_plans(void)
{
    static const struct topomap_grid_shape cases[][2] = {
        {{2, {16, 32}}, {3, {8, 8, 8}}},   /* the paper's stacking example */
        {{2, {32, 32}}, {3, {8, 8, 16}}},  /* WRF at 1024 nodes (Table II) */
        {{3, {8, 4, 4}}, {3, {4, 4, 8}}},
        {{3, {6, 10, 4}}, {3, {5, 4, 12}}},
        {{4, {4, 3, 2, 5}}, {3, {6, 5, 4}}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct topomap_grid_plan plans[96];
        int np = topomap_grid_plans(&cases[c][0], &cases[c][1], plans, 96);
        long n = 1;
        for (int k = 0; k < cases[c][0].nd; k++)
            n *= cases[c][0].d[k];
        int *map = malloc(sizeof(int) * (size_t)n), good = np > 0;
        for (int q = 0; q < np && good; q++)
            good = topomap_grid_plan_run(&plans[q], &cases[c][0], &cases[c][1], map) == 0 &&
                   bijective(map, (int)n);
        ok(good, "%dD %d x %d... onto %d x %d x %d: %d plans, each a bijection", cases[c][0].nd,
           cases[c][0].d[0], cases[c][0].d[1], cases[c][1].d[0], cases[c][1].d[1],
           cases[c][1].d[2], np);
        free(map);
    }
}

static double run_algo(const char *algo, const topomap_profile_t *p, const topomap_alloc_t *a,
                       topomap_metrics_t *m)
{
    int n = topomap_profile_nranks(p);
    int *r2s = malloc(sizeof(int) * (size_t)n);
    double hb = -1;
    if (topomap_map(algo, p, a, NULL, r2s, err, sizeof err) == 0 &&
        topomap_eval_slots(p, a, r2s, m) == 0)
        hb = m->hop_bytes;
    free(r2s);
    return hb;
}

/* A grid profile, ranks shuffled when seed != 0. */
static topomap_profile_t *shuffled(int nd, const int *dims, const int *per, uint64_t seed)
{
    struct gridgen g = gg_grid(nd, dims, per, 100, 0);
    int *perm = seed ? gg_shuffle(gg_nranks(&g), seed) : NULL;
    g.perm = perm;
    topomap_profile_t *p = gg_profile(&g);
    free(perm);
    return p;
}

static void test_grid_algo(void)
{
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    /* A periodic 4 x 8 x 4 grid on the 8 x 4 x 4 torus (block: 1.5 hops per
     * byte): its axes permuted, every edge one hop. (Shuffled periodic
     * grids need extents of 5 or more to be detected, see grid_detect.c.) */
    int d3[3] = {8, 4, 4}, w3[3] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, d3, w3, 4, NULL, err, sizeof err);
    topomap_alloc_t *a = alloc_on(t, 0, 128, "1");
    topomap_profile_t *p = shuffled(3, (int[]){4, 8, 4}, w3, 0);
    run_algo("block", p, a, &m);
    ok(m.avg_hops_per_byte > 1.2, "periodic 4 x 8 x 4 grid on the 8 x 4 x 4 torus: block %.3f "
       "hops per byte", m.avg_hops_per_byte);
    run_algo("grid", p, a, &m);
    is_double(m.avg_hops_per_byte, 1.0, 1e-12, "... grid: 1 hop per byte");
    topomap_profile_free(p);
    topomap_alloc_free(a);
    /* An open 16 x 8 grid on 4 x 4 x 8: folded, every edge one hop. */
    int d4[3] = {4, 4, 8}, w0[3] = {0, 0, 0};
    topomap_topology_t *t2 = topomap_topology_torus(3, d4, w0, 1, NULL, err, sizeof err);
    a = alloc_on(t2, 0, 128, NULL);
    p = shuffled(2, (int[]){16, 8}, w0, 12);
    run_algo("grid", p, a, &m);
    is_double(m.avg_hops_per_byte, 1.0, 1e-12, "shuffled 16 x 8 grid folded onto a 4 x 4 x 8 mesh");
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t2);
    /* Four slots per node: blocks of 4 ranks; as good as drb+refine, better
     * than block on a shuffled grid. */
    a = alloc_on(t, 0, 32, "4"); /* nodes 0-31: an 8 x 4 x 1 box */
    p = shuffled(3, (int[]){8, 4, 4}, w0, 13);
    double g = run_algo("grid", p, a, &m), d = run_algo("drb+refine", p, a, &m),
           b = run_algo("block", p, a, &m);
    ok(g > 0 && g <= d && g < b, "4 slots per node on an 8 x 4 box: grid %.0f <= drb+refine %.0f, "
       "< block %.0f", g, d, b);
    topomap_alloc_free(a);
    /* Declined, with a clear error. */
    a = alloc_on(t, 0, 32, "4");
    int r2s[128];
    topomap_profile_t *ring;
    {
        int src[3] = {0, 1, 2}, dst[3] = {1, 2, 0};
        double by[3] = {1, 1, 1};
        ring = topomap_profile_create(3, 3, src, dst, by, NULL, NULL, 0);
    }
    errno = 0;
    ok(topomap_map("grid", ring, a, NULL, r2s, err, sizeof err) < 0 && errno == ENOTSUP,
       "not a grid: ENOTSUP, grid does not apply (%s)", err);
    like(err, "not a process grid", "... says so");
    topomap_alloc_free(a);
    const char *scattered = "node[000,002,005,009]";
    a = topomap_alloc_create(t, scattered, "32", err, sizeof err);
    errno = 0;
    ok(a && topomap_map("grid", p, a, NULL, r2s, err, sizeof err) < 0 && errno == ENOTSUP,
       "scattered nodes: ENOTSUP (%s)", err);
    like(err, "not a box", "... says the nodes are not a box");
    topomap_alloc_free(a);
    int arity[2] = {4, 8}, hops[2] = {2, 1};
    topomap_topology_t *tree = topomap_topology_tree(2, arity, hops, 4, NULL, err, sizeof err);
    a = tree ? alloc_on(tree, 0, 32, "4") : NULL;
    errno = 0;
    ok(a && topomap_map("grid", p, a, NULL, r2s, err, sizeof err) < 0 && errno == ENOTSUP,
       "a fat-tree: ENOTSUP (%s)", err);
    topomap_alloc_free(a);
    topomap_topology_free(tree);
    topomap_profile_free(ring);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* auto tries grid when the analyzer finds a grid, and goes on without it
 * when grid declines. */
static char logbuf[8192];
static void logline(const char *line, void *arg)
{
    (void)arg;
    size_t l = strlen(logbuf);
    snprintf(logbuf + l, sizeof logbuf - l, "%s\n", line);
}

static void test_auto(void)
{
    int d3[3] = {8, 4, 4}, w3[3] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, d3, w3, 4, NULL, err, sizeof err);
    topomap_alloc_t *a = alloc_on(t, 0, 128, "1");
    topomap_profile_t *p = shuffled(3, (int[]){4, 8, 4}, w3, 0);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.log = logline;
    int r2s[128];
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    logbuf[0] = 0;
    ok(topomap_map("auto", p, a, &o, r2s, err, sizeof err) == 0 &&
           topomap_eval_slots(p, a, r2s, &m) == 0 && m.avg_hops_per_byte == 1.0,
       "auto on the 4 x 8 x 4 grid: 1 hop per byte");
    like(logbuf, "auto: grid ", "... grid was one of its candidates");
    topomap_alloc_free(a);
    /* Scattered nodes: grid declines, auto goes on. */
    a = topomap_alloc_create(t, "node[000-030,040]", "4", err, sizeof err);
    logbuf[0] = 0;
    ok(a && topomap_map("auto", p, a, &o, r2s, err, sizeof err) == 0,
       "auto on scattered nodes: succeeds");
    like(logbuf, "auto: grid skipped: grid: the 32 allocated nodes are not a box",
         "... without grid, saying why");
    topomap_alloc_free(a);
    /* Not a grid (a ring of 6; one of 4 is a 2 x 2 grid): not tried. */
    int src[6] = {0, 1, 2, 3, 4, 5}, dst[6] = {1, 2, 3, 4, 5, 0};
    double by[6] = {5, 5, 5, 5, 5, 5};
    topomap_profile_t *ring = topomap_profile_create(6, 6, src, dst, by, NULL, NULL, 0);
    a = alloc_on(t, 0, 6, "1");
    logbuf[0] = 0;
    ok(topomap_map("auto", ring, a, &o, r2s, err, sizeof err) == 0 && !strstr(logbuf, "grid"),
       "auto on a ring: grid not tried");
    topomap_alloc_free(a);
    topomap_profile_free(ring);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* Past 65,536 ranks a grid embedding ends auto's search (drb + refine would
 * cost minutes there), and among block shapes that cut the same bytes grid
 * tries first the one whose grid of blocks is the box: 131,072 ranks of a
 * shuffled periodic 64 x 64 x 32 grid on the 16^3 torus with 32 slots per
 * node, where 2x4x4, 4x2x4 and 4x4x2 blocks tie and only 4x4x2 (16^3
 * blocks) puts every pair at most one hop apart. */
static void test_auto_large(void)
{
    int d3[3] = {16, 16, 16}, w3[3] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, d3, w3, 32, NULL, err, sizeof err);
    topomap_alloc_t *a = alloc_on(t, 0, 4096, "32");
    topomap_profile_t *p = shuffled(3, (int[]){64, 64, 32}, w3, 7);
    int n = topomap_profile_nranks(p);
    int *r2s = malloc(sizeof(int) * (size_t)n);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.log = logline;
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    logbuf[0] = 0;
    ok(n == 131072 && topomap_map("auto", p, a, &o, r2s, err, sizeof err) == 0 &&
           topomap_eval_slots(p, a, r2s, &m) == 0,
       "auto on 131,072 ranks");
    like(logbuf, "auto: grid embedded the process grid of 131072 ranks: the search ends",
         "... grid's embedding ends the search");
    ok(!strstr(logbuf, "drb+refine"), "... drb + refine not run");
    /* The analyzer may name the axes in another order (64x32x64 ...). */
    int gd[3] = {0}, bd[3] = {0};
    const char *gl = strstr(logbuf, "3D grid "), *bl = strstr(logbuf, "blocks ");
    ok(gl && bl && sscanf(gl, "3D grid %dx%dx%d", &gd[0], &gd[1], &gd[2]) == 3 &&
           sscanf(bl, "blocks %dx%dx%d", &bd[0], &bd[1], &bd[2]) == 3 && bd[0] &&
           bd[1] && bd[2] && gd[0] / bd[0] == 16 && gd[1] / bd[1] == 16 && gd[2] / bd[2] == 16,
       "... blocks of 32 ranks forming the box's 16^3 grid of blocks");
    is_int(m.max_dilation, 1, "... every pair at most one hop apart");
    free(r2s);
    topomap_alloc_free(a);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

int main(void)
{
    test_paper_example();
    test_plans();
    test_grid_algo();
    test_auto();
    test_auto_large();
    return done_testing();
}
