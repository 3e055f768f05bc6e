/* SPDX-License-Identifier: BSD-3-Clause */
/* The process topology analyzer (libtopomap/grid_detect.c) and profiles at other
 * rank counts (libtopomap/grid_rescale.c): synthetic 2D/3D/4D grids, periodic or
 * not, with noise, a reduction to rank 0 and shuffled rank orders; irregular
 * graphs; the recorded LAMMPS and PETSc profiles. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gridgen.h"
#include "tap.h"
#include "topomap.h"

#define DATA SRCDIR "/data/profiles/"
/* The example profiles shipped in examples/, then the larger shared ones. */
#define EXAMPLES SRCDIR "/../examples/"
#define SHARED SRCDIR "/../../shared/workloads/"

static struct gridgen gen(int nd, const int *dims, const int *per)
{
    return gg_grid(nd, dims, per, 1000, 1000);
}

static const char *describe(const topomap_grid_t *gr)
{
    static char buf[256];
    topomap_grid_describe(gr, buf, sizeof buf);
    return buf;
}

/* The detected coordinates are a grid embedding of the generated grid:
 * every pair of generated neighbours are detected neighbours (differ by one,
 * or across a detected wraparound, along one axis), and the detected extents
 * are the generated ones in some order. */
static int coords_consistent(const struct gridgen *g, const topomap_grid_t *gr, const int *c)
{
    int n = gg_nranks(g);
    int a[4], b[4];
    memcpy(a, g->dims, sizeof a);
    memcpy(b, gr->dims, sizeof b);
    for (int i = 0; i < g->nd; i++)
        for (int j = i + 1; j < g->nd; j++) {
            if (a[j] < a[i]) { int t = a[i]; a[i] = a[j]; a[j] = t; }
            if (b[j] < b[i]) { int t = b[i]; b[i] = b[j]; b[j] = t; }
        }
    if (gr->ndims != g->nd || memcmp(a, b, sizeof(int) * (size_t)g->nd))
        return 0;
    for (int r = 0; r < n; r++) {
        int x[4], rest = r;
        for (int k = 0; k < g->nd; k++) {
            x[k] = rest % g->dims[k];
            rest /= g->dims[k];
        }
        int st = 1;
        for (int k = 0; k < g->nd; k++) {
            if (x[k] + 1 < g->dims[k] || g->per[k]) {
                int q = r + ((x[k] + 1) % g->dims[k] - x[k]) * st;
                int ri = g->perm ? g->perm[r] : r, qi = g->perm ? g->perm[q] : q;
                int diff = 0, sum = 0;
                for (int j = 0; j < gr->ndims; j++) {
                    int d = abs(c[ri * 4 + j] - c[qi * 4 + j]);
                    if (d) {
                        diff++;
                        sum = (d == 1 || (gr->periodic[j] && d == gr->dims[j] - 1)) ? 1 : 99;
                    }
                }
                if (diff != 1 || sum != 1)
                    return 0;
            }
            st *= g->dims[k];
        }
    }
    return 1;
}

static void test_rank_order(void)
{
    topomap_grid_t gr;
    int c[64 * 4];
    {
        struct gridgen g = gen(2, (int[]){6, 5}, (int[]){0, 0});
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, c), 2, "6 x 5 open grid: 2D");
        is_str(describe(&gr), "2D grid 6 x 5, open, x fastest", "... described");
        ok(gr.rank_order && c[13 * 4] == 1 && c[13 * 4 + 1] == 2, "... rank 13 at (1, 2)");
        is_double(gr.dim_bytes[0], 1000, 1e-9, "... x entries carry 1000 bytes");
        is_double(gr.dim_bytes[1], 2000, 1e-9, "... y entries carry 2000 bytes");
        topomap_profile_free(p);
    }
    {
        struct gridgen g = gen(3, (int[]){8, 4, 4}, (int[]){1, 1, 1});
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 3, "8 x 4 x 4 torus: 3D");
        is_str(describe(&gr), "3D grid 8 x 4 x 4, periodic, x fastest", "... described");
        topomap_profile_free(p);
    }
    {
        struct gridgen g = gen(3, (int[]){3, 4, 5}, (int[]){1, 0, 1});
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 3, "3 x 4 x 5, x and z periodic: 3D");
        is_str(describe(&gr), "3D grid 3 x 4 x 5, periodic in x z, x fastest", "... described");
        topomap_profile_free(p);
    }
    {
        struct gridgen g = gen(4, (int[]){3, 4, 2, 5}, (int[]){0, 1, 0, 1});
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 4, "3 x 4 x 2 x 5 grid: 4D");
        is_str(describe(&gr), "4D grid 3 x 4 x 2 x 5, periodic in y w, x fastest",
               "... described (extent 2 open: z is not periodic)");
        topomap_profile_free(p);
    }
    {
        struct gridgen g = gen(4, (int[]){4, 4, 4, 4}, (int[]){1, 1, 1, 1});
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 4, "4^4 torus: 4D");
        is_str(describe(&gr), "4D grid 4 x 4 x 4 x 4, periodic, x fastest", "... described");
        topomap_profile_free(p);
    }
}

static void test_noise_and_rank0(void)
{
    topomap_grid_t gr;
    {
        struct gridgen g = gen(3, (int[]){6, 4, 5}, (int[]){0, 0, 0});
        g.noise = 200;
        g.noise_bytes = 50; /* 5% of the lightest face */
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 3, "weak noise edges: still a 3D grid");
        ok(gr.weak_edges > 100, "... %ld weak edges ignored", gr.weak_edges);
        topomap_profile_free(p);
        g.noise_bytes = 1000; /* as heavy as a face */
        p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 0, "heavy noise edges: not a grid");
        like(describe(&gr), "not a grid: ", "... says so: %s", describe(&gr));
        topomap_profile_free(p);
    }
    {
        /* Noise at 30% of a grid edge: kept at the default 20%,
         * ignored at 50%. */
        struct gridgen g = gen(2, (int[]){8, 8}, (int[]){1, 1});
        g.face[1] = 1000;
        g.noise = 20;
        g.noise_bytes = 600; /* 30% of a grid edge (1000 bytes each way) */
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 0, "noise at 30%%: not a grid at 0.2");
        is_int(topomap_grid_detect(p, 0.5, &gr, NULL), 2, "... a grid at threshold 0.5");
        topomap_profile_free(p);
    }
    {
        struct gridgen g = gen(3, (int[]){4, 4, 4}, (int[]){1, 1, 1});
        g.reduce0 = 800; /* above the threshold: not weak */
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 3, "reduction to rank 0: still 3D");
        is_str(describe(&gr),
               "3D grid 4 x 4 x 4, periodic, x fastest, rank 0's collective traffic ignored",
               "... rank 0's collective traffic ignored");
        topomap_profile_free(p);
    }
    {
        /* Open grid: rank 0 is a corner with 2 neighbours. */
        struct gridgen g = gen(2, (int[]){7, 6}, (int[]){0, 0});
        g.reduce0 = 1500;
        topomap_profile_t *p = gg_profile(&g);
        is_int(topomap_grid_detect(p, 0, &gr, NULL), 2, "open grid, reduction to its corner 0");
        ok(gr.rank0_ignored && gr.dims[0] == 7 && gr.dims[1] == 6, "... 7 x 6, rank 0 ignored");
        topomap_profile_free(p);
    }
}

static void test_permuted(void)
{
    static const struct {
        int nd, dims[4], per[4];
        double reduce0;
    } cases[] = {
        {2, {8, 6}, {0, 0}, 0},       {2, {9, 7}, {1, 1}, 0},       {3, {6, 5, 7}, {1, 1, 1}, 0},
        {3, {4, 3, 5}, {0, 0, 0}, 0}, {3, {5, 6, 5}, {1, 1, 1}, 700}, {4, {3, 4, 2, 3}, {0, 0, 0, 0}, 0},
        {3, {6, 2, 5}, {1, 0, 0}, 0},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        struct gridgen g = gen(cases[t].nd, cases[t].dims, cases[t].per);
        int n = gg_nranks(&g);
        int *perm = gg_shuffle(n, 100 + t);
        g.perm = perm;
        g.reduce0 = cases[t].reduce0;
        topomap_profile_t *p = gg_profile(&g);
        topomap_grid_t gr;
        int *c = malloc(sizeof(int) * 4 * (size_t)n);
        int nd = topomap_grid_detect(p, 0, &gr, c);
        is_int(nd, cases[t].nd, "shuffled grid %d: %s", (int)t, describe(&gr));
        ok(nd > 0 && !gr.rank_order && coords_consistent(&g, &gr, c),
           "... not in rank order; the coordinates it gives each rank are the grid's");
        free(c);
        free(perm);
        topomap_profile_free(p);
    }
}

static void test_not_grids(void)
{
    topomap_grid_t gr;
    /* 9-point stencil on an open 6 x 6 grid. */
    int src[400], dst[400], m = 0;
    double b[400];
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    if ((dx || dy) && x + dx >= 0 && x + dx < 6 && y + dy >= 0 && y + dy < 6) {
                        src[m] = y * 6 + x;
                        dst[m] = (y + dy) * 6 + x + dx;
                        b[m++] = 100;
                    }
    topomap_profile_t *p = topomap_profile_create(36, (size_t)m, src, dst, b, NULL, NULL, 0);
    is_int(topomap_grid_detect(p, 0, &gr, NULL), 0, "9-point stencil: not a (4-neighbour) grid");
    topomap_profile_free(p);
    /* A random graph of degree <= 6. */
    uint64_t s = 7;
    m = 0;
    for (int i = 0; i < 60; i++)
        for (int k = 0; k < 3; k++) {
            src[m] = i;
            dst[m] = (int)(gg_rand(&s) % 60);
            b[m++] = 100;
        }
    p = topomap_profile_create(60, (size_t)m, src, dst, b, NULL, NULL, 0);
    is_int(topomap_grid_detect(p, 0, &gr, NULL), 0, "random sparse graph: not a grid (%s)",
           gr.why);
    topomap_profile_free(p);
    /* A ring (1D) is not reported. */
    struct gridgen g = gen(1, (int[]){12}, (int[]){1});
    p = gg_profile(&g);
    is_int(topomap_grid_detect(p, 0, &gr, NULL), 0, "a ring: not a 2D-4D grid (%s)", gr.why);
    topomap_profile_free(p);
    errno = 0;
    ok(topomap_grid_detect(NULL, 0, &gr, NULL) < 0 && errno == EINVAL, "NULL profile: EINVAL");
}

/* The recorded profiles: LAMMPS's and PETSc's own logs give their grids
 * (LAMMPS prints "4 by 2 by 2 MPI processor grid"; PETSc's DMDA at 16 ranks
 * on 65^3 is 2 x 2 x 4); METIS partitions are no grids. */
static void test_workloads(void)
{
    static const struct {
        const char *file, *want;
    } embedded[] = {
        {DATA "lammps-lj32k-16.txt", "3D grid 4 x 2 x 2, periodic, x fastest"},
        {DATA "petsc-ex45-mg65-16.txt", "3D grid 2 x 2 x 4, open, x fastest"},
    };
    topomap_grid_t gr;
    for (size_t i = 0; i < 2; i++) {
        topomap_profile_t *p = topomap_profile_load(embedded[i].file, TOPOMAP_FMT_AUTO, NULL, 0);
        ok(p && topomap_grid_detect(p, 0, &gr, NULL) == 3, "%s: a 3D grid", embedded[i].file);
        is_str(describe(&gr), embedded[i].want, "... %s", embedded[i].want);
        topomap_profile_free(p);
    }
    static const struct {
        const char *file, *want;
    } shared[] = {
        {"lammps-lj32k-64.txt", "3D grid 4 x 4 x 4, periodic, x fastest"},
        {"lammps-lj32k-128.txt", "3D grid 8 x 4 x 4, periodic, x fastest"},
        {"petsc-ex45-mg65-64.txt", "3D grid 4 x 4 x 4, open, x fastest"},
        {"petsc-ex45-mg65-128.txt", "3D grid 4 x 4 x 8, open, x fastest"},
        {"metis-4elt-k256.txt", NULL},
        {"metis-4elt-k1024.txt", NULL},
        {"metis-add32-k256.txt", NULL},
        {"metis-add32-k1024.txt", NULL},
    };
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", EXAMPLES, shared[i].file);
        if (access(path, R_OK) != 0)
            snprintf(path, sizeof path, "%s%s", SHARED, shared[i].file);
        if (access(path, R_OK) != 0) {
            ok(1, "# SKIP %s not available (not shipped in examples/, and the shared workloads "
                  "are not checked out)",
               shared[i].file);
            continue;
        }
        topomap_profile_t *p = topomap_profile_load(path, TOPOMAP_FMT_AUTO, NULL, 0);
        int nd = p ? topomap_grid_detect(p, 0, &gr, NULL) : -1;
        if (shared[i].want)
            is_str(nd > 0 ? describe(&gr) : "(none)", shared[i].want, "%s: %s", shared[i].file,
                   shared[i].want);
        else
            ok(nd == 0, "%s: not a grid (%s)", shared[i].file, gr.why);
        topomap_profile_free(p);
    }
}

/* Same directed entries, bytes and messages (relative tolerance). */
static int same_profile(const topomap_profile_t *a, const topomap_profile_t *b)
{
    topomap_graph_t ga, gb, ma, mb;
    if (topomap_profile_nranks(a) != topomap_profile_nranks(b) ||
        topomap_profile_nedges(a) != topomap_profile_nedges(b))
        return 0;
    topomap_profile_graph(a, TOPOMAP_AFFINITY_BYTES, 0, &ga);
    topomap_profile_graph(b, TOPOMAP_AFFINITY_BYTES, 0, &gb);
    topomap_profile_graph(a, TOPOMAP_AFFINITY_MSGS, 0, &ma);
    topomap_profile_graph(b, TOPOMAP_AFFINITY_MSGS, 0, &mb);
    for (int i = 0; i <= ga.n; i++)
        if (ga.xadj[i] != gb.xadj[i])
            return 0;
    for (int64_t e = 0; e < ga.xadj[ga.n]; e++)
        if (ga.adj[e] != gb.adj[e] || fabs(ga.w[e] - gb.w[e]) > 1e-9 * gb.w[e] ||
            ma.w[e] != mb.w[e])
            return 0;
    return 1;
}

/* A strong-scaling stencil: the global domain G cut into d boxes per
 * dimension; a face along k carries 8 bytes per cell of its area. */
static struct gridgen domain(int nd, const int *d, const int *per, const int *G)
{
    struct gridgen g = gen(nd, d, per);
    for (int k = 0; k < nd; k++) {
        double area = 8;
        for (int j = 0; j < nd; j++)
            if (j != k)
                area *= (double)G[j] / d[j];
        g.face[k] = area;
    }
    return g;
}

static void test_rescale(void)
{
    const int G[3] = {240, 240, 240}, per[3] = {1, 1, 1};
    struct gridgen g64 = domain(3, (int[]){4, 4, 4}, per, G);
    topomap_profile_t *p64 = gg_profile(&g64);
    /* MPI_Dims_create(128, 3) = 8 x 4 x 4, (256, 3) = 8 x 8 x 4; all of the
     * recorded extents tie, so the largest go to the slowest dimensions. */
    static const struct {
        int n, d[3];
    } to[] = {{128, {4, 4, 8}}, {256, {4, 8, 8}}, {64, {4, 4, 4}}};
    for (int t = 0; t < 3; t++) {
        topomap_grid_t ng;
        char err[256] = "";
        topomap_profile_t *r = topomap_grid_rescale(p64, to[t].n, 0, &ng, err, sizeof err);
        struct gridgen gd = domain(3, to[t].d, per, G);
        topomap_profile_t *direct = gg_profile(&gd);
        ok(r && same_profile(r, direct),
           "recorded at 64 ranks, synthesised for %d = generated directly at %d x %d x %d (%s)",
           to[t].n, to[t].d[0], to[t].d[1], to[t].d[2], err);
        ok(r && ng.dims[0] == to[t].d[0] && ng.dims[1] == to[t].d[1] && ng.dims[2] == to[t].d[2],
           "... its grid is %d x %d x %d", to[t].d[0], to[t].d[1], to[t].d[2]);
        const char *from = r ? topomap_profile_meta(r, "rescaled_from") : NULL;
        is_str(from, "64", "... metadata rescaled_from=64");
        topomap_profile_free(r);
        topomap_profile_free(direct);
    }
    /* An open, anisotropic 2D grid: 8 x 4 at 32 ranks -> 16 x 8 at 128. */
    const int G2[2] = {480, 960}, open2[2] = {0, 0};
    struct gridgen g32 = domain(2, (int[]){8, 4}, open2, G2);
    topomap_profile_t *p32 = gg_profile(&g32);
    topomap_profile_t *r = topomap_grid_rescale(p32, 128, 0, NULL, NULL, 0);
    struct gridgen gd = domain(2, (int[]){16, 8}, open2, G2);
    topomap_profile_t *direct = gg_profile(&gd);
    ok(r && same_profile(r, direct), "open 8 x 4 at 32 ranks -> 16 x 8 at 128 = generated directly");
    topomap_profile_free(r);
    topomap_profile_free(direct);
    /* Refusals. */
    char err[256] = "";
    errno = 0;
    ok(!topomap_grid_rescale(p32, 127, 0, NULL, err, sizeof err) && errno == ERANGE,
       "127 ranks make no 2D grid: ERANGE (%s)", err);
    int *perm = gg_shuffle(32, 3);
    g32.perm = perm;
    topomap_profile_t *shuffled = gg_profile(&g32);
    errno = 0;
    ok(!topomap_grid_rescale(shuffled, 128, 0, NULL, err, sizeof err) && errno == EINVAL,
       "a permuted grid is not rescaled: EINVAL (%s)", err);
    int src[3] = {0, 1, 2}, dst[3] = {1, 2, 0};
    double b[3] = {1, 1, 1};
    topomap_profile_t *tri = topomap_profile_create(3, 3, src, dst, b, NULL, NULL, 0);
    errno = 0;
    ok(!topomap_grid_rescale(tri, 6, 0, NULL, err, sizeof err) && errno == EINVAL,
       "not a grid: EINVAL (%s)", err);
    free(perm);
    topomap_profile_free(tri);
    topomap_profile_free(shuffled);
    topomap_profile_free(p32);
    topomap_profile_free(p64);
}

/* The one rule for another rank count (topomap_profile_adapt), which the
 * store and the plugin's profile files share: the same count or none asked
 * is the profile itself, a grid is rescaled, the rest refused with one
 * message; the profile is consumed either way (valgrind/ASan builds see a
 * leak or a double free otherwise). */
static void test_adapt(void)
{
    const int G[2] = {480, 960}, open2[2] = {0, 0};
    struct gridgen g32 = domain(2, (int[]){8, 4}, open2, G);
    topomap_profile_t *p = gg_profile(&g32);
    char err[256] = "";
    ok(topomap_profile_adapt(p, 32, "app", err, sizeof err) == p, "same count: the profile itself");
    ok(topomap_profile_adapt(p, 0, "app", err, sizeof err) == p, "no count asked: the profile itself");
    topomap_profile_t *r = topomap_profile_adapt(p, 128, "app", err, sizeof err);
    struct gridgen gd = domain(2, (int[]){16, 8}, open2, G);
    topomap_profile_t *direct = gg_profile(&gd);
    ok(r && same_profile(r, direct), "a grid at another count: rescaled (%s)", err);
    is_str(r ? topomap_profile_meta(r, "rescaled_from") : NULL, "32", "... rescaled_from=32");
    topomap_profile_free(direct);
    errno = 0;
    ok(!topomap_profile_adapt(r, 127, "app", err, sizeof err) && errno == ERANGE,
       "no grid of that count: refused, ERANGE");
    is_str(err, "profile 'app' was recorded with 128 ranks, this job has 127: not used",
           "... the message names the profile and both counts");
    int src[3] = {0, 1, 2}, dst[3] = {1, 2, 0};
    double b[3] = {1, 1, 1};
    topomap_profile_t *tri = topomap_profile_create(3, 3, src, dst, b, NULL, NULL, 0);
    errno = 0;
    ok(!topomap_profile_adapt(tri, 6, "ring", err, sizeof err) && errno == ERANGE,
       "not a grid: refused, ERANGE (%s)", err);
    errno = 0;
    ok(!topomap_profile_adapt(NULL, 6, "x", err, sizeof err) && errno == EINVAL, "NULL: EINVAL");
}

int main(void)
{
    test_rank_order();
    test_noise_and_rank0();
    test_permuted();
    test_not_grids();
    test_workloads();
    test_rescale();
    test_adapt();
    return done_testing();
}
