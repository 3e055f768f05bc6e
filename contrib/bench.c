/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench: hop-bytes, congestion (bytes on the busiest channel,
 * topomap_metrics_t.congestion_max) and mapping time of the mapping
 * algorithms, with Scotch's static mapping side by side (bench_scotch.c), on
 * the shared workloads and synthetic profiles (bench_gen.c) x machine
 * topologies. Prints the case table (also saved as PREFIX.txt), a summary
 * (bench_summary.c) and the scaling tables (bench_scale.c), and draws
 * PREFIX.svg (drawn from PREFIX.txt by libtopomap-plot: topomap plot bench). Not part of `make check`: run it with `make bench`.
 *
 * Case sets (-s, -L, -S; -h lists the flags):
 *  base     every shared workload, plus a 3D stencil of 8x8x8 and of 16x16x16
 *           ranks and a random sparse graph of 1024, on every shipped topology,
 *           compact and scattered;
 *  one      one slot per node, the hard case where every network hop counts:
 *           on torus-8x8x8 (512 nodes), torus-16x16x16 (4096) and
 *           tianhe3-prototype (1536), the shared workloads that fit, and
 *           synthetic profiles as large as the machine (3D stencils, plain and
 *           shuffled, a random geometric graph, a METIS partition of 4elt);
 *  large    4096 ranks on torus-16x16x16 with one slot per node, 32,768 and
 *           65,536 ranks on the 16x16x16 torus with 8 and 16 cores per node:
 *           shuffled 3D stencils, random geometric graphs, METIS partitions
 *           of the copter2 and mdual meshes (and the plain 64x32x32 stencil);
 *  scaling  time against ranks and against nodes (bench_scale.c);
 *  grid     process grids (bench_grid.c): the aspect-ratio study of Bhatele
 *           et al.'s Fig. 6 (hops per byte of each 2D heuristic), 2D/3D
 *           grids on the shipped tori, the heuristics' times at 65,536.
 * Quick mode (-q) runs a reduced version of each set in a few minutes.
 *
 * Allocations: "compact" and "scattered" give the job ceil(n / cores) nodes,
 * all cores of each but the last ("c(xK),r" in Slurm's syntax), so that slots
 * = ranks; "compact:1" and "scattered:1" give it n nodes with one slot each.
 * Compact takes the first nodes in index order (an empty machine); scattered
 * takes nodes drawn at random over the machine (seeded), listed in index
 * order (a busy machine). Hop-bytes are computed by topomap_eval_slots() for
 * everyone, Scotch included; "/block" and "/scotch" divide by block's and
 * Scotch's values on the same case, "t/scotch" by Scotch's time. Times are
 * wall-clock seconds of topomap_map() (median of up to 5 runs when a run is
 * short), Scotch's from building its graph and architecture to the slot
 * assignment, measured the same way.
 *
 * Time limit (-T): every run gets opts.time_limit, and runs in a child
 * process killed at the limit (Scotch, which has no limit of its own) or a
 * little after it (the library, whose setup phases do not all check it); a
 * run over it is reported as "timeout" and the benchmark goes on. In the large set and the scaling sweeps, an
 * algorithm that timed out on a profile is not run on the larger profiles of
 * its family (perm-stencil, rgg, metis-mdual...), noted "skipped". */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "topomap_plot.h"

#ifndef BENCH_WORKLOADS
#define BENCH_WORKLOADS "../shared/workloads"
#endif
#ifndef BENCH_TOPOLOGIES
#define BENCH_TOPOLOGIES "topologies"
#endif
#ifndef BENCH_GRAPHS
#define BENCH_GRAPHS "/usr/share/doc/libmetis-dev/examples/graphs"
#endif

/* analytic* and grid fail on networks that are not tori/meshes (grid also
 * on profiles that are no grid): "-" in those rows. */
static const char *default_algos[] = {"block",       "greedy",         "rcm",
                                      "metis",       "ohtma",          "ohtma-fast",
                                      "ohtma+refine", "drb",           "drb+refine",
                                      "analytic",    "analytic-bft",   "analytic-anchor",
                                      "grid",        "spectral",       "spectral-plain",
                                      "spectral-ff", "spectral-mr",    "spectral-fit", "treematch",
                                      "auto",        "scotch"};

enum {
    SET_BASE = 1,
    SET_ONE = 2,
    SET_LARGE = 4,
    SET_SCALING = 8,
    SET_GRID = 16,
    SET_TREE = 32,
    SET_DRAGONFLY = 64,
    SET_HUGE = 128,
    SET_CONG = 256,
    SET_MANYCORE = 512,
    SET_THREADS = 1024
};

static const char *gdir = BENCH_GRAPHS;

/* ---- profiles ------------------------------------------------------------------------ */

/* A profile and its name in the table. */
struct prof {
    char name[48];
    topomap_profile_t *p;
};

/* The METIS graphs read so far (NULL: missing, said once). */
static struct {
    char name[16];
    struct bench_graph *g;
} graphs[8];
static int ngraphs;

static const struct bench_graph *graph(const char *name)
{
    for (int i = 0; i < ngraphs; i++)
        if (!strcmp(graphs[i].name, name))
            return graphs[i].g;
    if (ngraphs == 8)
        return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.graph", gdir, name);
    snprintf(graphs[ngraphs].name, sizeof graphs[0].name, "%s", name);
    struct bench_graph *g = graphs[ngraphs++].g = bench_graph_load(path);
    if (!g)
        bench_emit("# %s: skipping the metis-%s cases (Debian's libmetis-doc has it; -g DIR)\n",
                   bench_err, name);
    return g;
}

/* A synthetic profile of kind "stencil" or "perm-stencil" (x*y*z ranks, the
 * second shuffled), "rgg" (x ranks) or "metis-GRAPH" (GRAPH.graph cut into x
 * parts). 0, or -1 after one line saying why it is skipped. */
static int synth(struct prof *P, const char *kind, int x, int y, int z)
{
    P->p = NULL;
    if (!strcmp(kind, "stencil") || !strcmp(kind, "perm-stencil")) {
        snprintf(P->name, sizeof P->name, "%s-%dx%dx%d", kind, x, y, z);
        P->p = bench_stencil(x, y, z, 1e4, kind[0] == 'p' ? BENCH_PERM_SEED : 0);
    } else if (!strcmp(kind, "rgg")) {
        snprintf(P->name, sizeof P->name, "rgg-%d", x);
        P->p = bench_rgg(x, 8, BENCH_RGG_SEED);
    } else if (!strncmp(kind, "metis-", 6)) {
        snprintf(P->name, sizeof P->name, "%s-k%d", kind, x);
        const struct bench_graph *g = graph(kind + 6);
        if (!g)
            return -1; /* said once by graph() */
        if (g->n < 2 * x) {
            bench_emit("# skipping %s: %d vertices are too few for %d parts\n", P->name, g->n, x);
            return -1;
        }
        P->p = bench_graph_parts(g, x);
    }
    if (!P->p) {
        bench_emit("# skipping %s: %s\n", P->name, bench_err);
        return -1;
    }
    return 0;
}

/* ---- case sets ------------------------------------------------------------------------- */

/* Profile x allocation cases on t: shapes "compact"/"scattered" or, with
 * one_per_node, "compact:1"/"scattered:1". Outside the base set (as it always
 * was), scattered is left out when the job takes every node: it would be the
 * compact case again. */
static void run_cases(const struct prof *P, int np, const topomap_topology_t *t, const char *tname,
                      int one_per_node, int base, struct bench_plan *plan)
{
    for (int pi = 0; pi < np; pi++)
        for (int sh = 0; sh < 2; sh++) {
            int n = topomap_profile_nranks(P[pi].p), c = topomap_topology_cores(t);
            int nodes = one_per_node ? n : (n + c - 1) / c;
            if (sh && !base && nodes == topomap_topology_nnodes(t))
                continue;
            topomap_alloc_t *a = bench_make_alloc(t, n, sh, one_per_node);
            if (!a)
                continue; /* does not fit */
            char shape[16];
            snprintf(shape, sizeof shape, "%s%s", sh ? "scattered" : "compact",
                     one_per_node ? ":1" : "");
            bench_run_case(P[pi].name, P[pi].p, tname, shape, a, plan);
            topomap_alloc_free(a);
        }
}

static topomap_topology_t *load_topology(const char *tdir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.yaml", tdir, name);
    topomap_topology_t *t = topomap_topology_load(path, bench_err, sizeof bench_err);
    if (!t)
        bench_emit("# skipping the %s cases: %s\n", name, bench_err);
    return t;
}

static void free_profs(struct prof *P, int np)
{
    for (int i = 0; i < np; i++)
        topomap_profile_free(P[i].p);
}

/* one: one slot per node on the shipped tori and Tianhe-3. */
static void set_one(const char *tdir, const struct prof *shared, int nshared,
                    struct bench_plan *plan, int quick)
{
    static const struct {
        const char *topo;
        int x, y, z; /* the machine-sized stencil; 0: none (the large set has it) */
    } machines[] = {{"torus-8x8x8", 8, 8, 8},
                    {"tianhe3-prototype", 16, 12, 8},
                    {"torus-16x16x16", 0, 0, 0}};
    for (size_t m = 0; m < sizeof machines / sizeof machines[0]; m++) {
        if (quick && m > 0)
            break;
        topomap_topology_t *t = load_topology(tdir, machines[m].topo);
        if (!t)
            continue;
        run_cases(shared, nshared, t, machines[m].topo, 1, 0, plan);
        struct prof P[4];
        int np = 0, x = machines[m].x, y = machines[m].y, z = machines[m].z;
        if (x) {
            if (!quick && synth(&P[np], "stencil", x, y, z) == 0)
                np++;
            if (synth(&P[np], "perm-stencil", x, y, z) == 0)
                np++;
            if (synth(&P[np], "rgg", x * y * z, 0, 0) == 0)
                np++;
            if (!quick && synth(&P[np], "metis-4elt", x * y * z, 0, 0) == 0)
                np++;
        }
        run_cases(P, np, t, machines[m].topo, 1, 0, plan);
        free_profs(P, np);
        topomap_topology_free(t);
    }
}

/* large: 4096 ranks on 4096 nodes, then 32,768 and 65,536 on the 16x16x16
 * torus with 8 and 16 cores per node. */
static void set_large(const char *tdir, struct bench_plan *plan, int quick)
{
    static const struct {
        int cores; /* 1: the shipped torus-16x16x16, one slot per node */
        const char *kind;
        int x, y, z;
    } cases[] = {
        {1, "perm-stencil", 16, 16, 16},     {1, "rgg", 4096, 0, 0},
        {1, "metis-copter2", 4096, 0, 0},    {1, "metis-mdual", 4096, 0, 0},
        {8, "perm-stencil", 32, 32, 32},     {8, "rgg", 32768, 0, 0},
        {8, "metis-mdual", 32768, 0, 0},     {16, "stencil", 64, 32, 32},
        {16, "perm-stencil", 64, 32, 32},    {16, "rgg", 65536, 0, 0},
        {16, "metis-mdual", 65536, 0, 0},
    };
    topomap_topology_t *t = NULL;
    int tcores = 0;
    char tname[40];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (quick && c > 0)
            break;
        if (cases[c].cores != tcores) {
            topomap_topology_free(t);
            tcores = cases[c].cores;
            if (tcores == 1) {
                snprintf(tname, sizeof tname, "torus-16x16x16");
                t = load_topology(tdir, tname);
            } else {
                int dims[3] = {16, 16, 16}, wrap[3] = {1, 1, 1};
                snprintf(tname, sizeof tname, "torus-16^3x%dc", tcores);
                t = topomap_topology_torus(3, dims, wrap, tcores, NULL, bench_err,
                                           sizeof bench_err);
                if (!t)
                    bench_emit("# skipping the %s cases: %s\n", tname, bench_err);
            }
        }
        struct prof P;
        if (!t || synth(&P, cases[c].kind, cases[c].x, cases[c].y, cases[c].z) < 0)
            continue;
        run_cases(&P, 1, t, tname, tcores == 1, 0, plan);
        free_profs(&P, 1);
    }
    topomap_topology_free(t);
}

/* ---- main -------------------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of dir ending in ext, sorted; caller frees. */
static int list_files(const char *dir, const char *ext, char ***out_names)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    int n = 0;
    struct dirent *e;
    size_t el = strlen(ext);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > el && !strcmp(e->d_name + l - el, ext)) {
            names = bench_xrealloc(names, sizeof(char *) * (size_t)(n + 1));
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), by_name);
    *out_names = names;
    return n;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: topomap-bench [-w WORKLOADS] [-t TOPOLOGIES] [-g GRAPHS] [-o PREFIX]\n"
            "                     [-a ALGO,...] [-T SECONDS] [-j THREADS] [-s SET,...] [-L] [-S]\n"
            "                     [-q]\n"
            "Per case and algorithm: hop-bytes (/block, /scotch), max link = congestion,\n"
            "the bytes on the busiest channel under the network's routing (/scotch), time.\n"
            "  -w DIR  profiles (*.txt); default $TOPOMAP_WORKLOADS or %s\n"
            "  -t DIR  topologies (*.yaml); default %s\n"
            "  -g DIR  METIS graphs 4elt, copter2, mdual (*.graph, Debian's libmetis-doc); default\n"
            "          %s;\n"
            "          the cases of a missing one are skipped, with a line saying so\n"
            "  -o PFX  write the table to PFX.txt and the plot to PFX.svg (default bench-results)\n"
            "  -a LIST algorithms (default: block,greedy,rcm,metis,ohtma,ohtma-fast,ohtma+refine,\n"
            "          drb,drb+refine,analytic,analytic-bft,analytic-anchor,grid,spectral,\n"
            "          spectral-plain,spectral-ff,spectral-mr,spectral-fit,treematch,auto,scotch;\n"
            "          analytic* run on tori and meshes only, grid on grid profiles only, treematch\n"
            "          on trees only, the spectral-plain/ff/mr scheme study on Tianhe-3 and\n"
            "          fat-trees only; also cyclic, random, exact...; NAME+refine adds\n"
            "          the refinement engine; bound: no mapping, the Gilmore-Lawler lower\n"
            "          bound of hop-bytes on the case's nodes, in the hop-bytes column)\n"
            "  -T SEC  time limit of every algorithm run (default 60, 10 with -q; 0: none); a\n"
            "          run over it is reported as timeout, and the algorithm is not run on the\n"
            "          larger profiles of the same family in the large set and the sweeps\n"
            "  -j N    OpenMP threads of every run (opts.nthreads; default 0: the runtime's);\n"
            "          -j 1 steadies the times of sub-millisecond runs on a loaded machine\n"
            "  -s LIST case sets among base, one, large, scaling, grid, tree, dragonfly, huge,\n"
            "          cong, manycore, threads, all (default base,one,tree,dragonfly,cong,\n"
            "          manycore; all: every set but huge and threads):\n"
            "          base     shared workloads + small synthetic profiles, every topology,\n"
            "                   compact and scattered allocations\n"
            "          one      one slot per node on torus-8x8x8, torus-16x16x16, Tianhe-3\n"
            "          large    4096 ranks on 4096 nodes, 32768 and 65536 ranks on a 16^3 torus\n"
            "          scaling  time against ranks (4096..65536) and nodes (64..4096)\n"
            "          grid     process grids: Bhatele et al.'s aspect-ratio study (Fig. 6),\n"
            "                   2D/3D grids on the tori, heuristic times at 65,536 cells\n"
            "          tree     treematch and SumCom on fat-trees and topology.conf trees with\n"
            "                   2x2x6, 2x4x8 and 2x2x4 nodes, Scotch on the whole hierarchy;\n"
            "                   times at 4096 and 65,536 ranks\n"
            "          dragonfly busiest global link on a 2048-node dragonfly: block, random,\n"
            "                   drb+refine, auto (2 s), Scotch (distance matrix)\n"
            "          huge     time and hop-bytes past 65,536 ranks: shuffled stencils and\n"
            "                   random geometric graphs of 65,536 to 1,048,576 ranks on the\n"
            "                   32x32x32 torus (make bench-scale-large; minutes per run)\n"
            "          cong     busiest link and hop-bytes against block's: 128 ranks on every\n"
            "                   128th node of torus-16x16x16, auto with either objective\n"
            "          manycore auto at 0.25..5 s against Scotch: 8-nearest-neighbour graphs of\n"
            "                   4096..65536 ranks on 2x64- and 2x32-core nodes of a fat-tree, a\n"
            "                   torus and a dragonfly\n"
            "          threads  auto at 1, 2, 4... threads (up to the CPUs online): speedup\n"
            "                   without a limit, same mapping, quality at 2 s; 16,384 and\n"
            "                   65,536 ranks on 2x64-core nodes (-q: 16,384)\n"
            "  -L      add the large set (make bench: -L -S, everything)\n"
            "  -S      add the scaling set\n"
            "  -q      quick: a reduced version of each set chosen (alone: every set), a few\n"
            "          minutes on 2 cores\n",
            BENCH_WORKLOADS, BENCH_TOPOLOGIES, BENCH_GRAPHS);
}

static int parse_sets(char *list)
{
    int sets = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "base"))
            sets |= SET_BASE;
        else if (!strcmp(tok, "one"))
            sets |= SET_ONE;
        else if (!strcmp(tok, "large"))
            sets |= SET_LARGE;
        else if (!strcmp(tok, "scaling"))
            sets |= SET_SCALING;
        else if (!strcmp(tok, "grid"))
            sets |= SET_GRID;
        else if (!strcmp(tok, "tree"))
            sets |= SET_TREE;
        else if (!strcmp(tok, "dragonfly"))
            sets |= SET_DRAGONFLY;
        else if (!strcmp(tok, "huge"))
            sets |= SET_HUGE;
        else if (!strcmp(tok, "cong"))
            sets |= SET_CONG;
        else if (!strcmp(tok, "manycore"))
            sets |= SET_MANYCORE;
        else if (!strcmp(tok, "threads"))
            sets |= SET_THREADS;
        else if (!strcmp(tok, "all"))
            sets |= SET_BASE | SET_ONE | SET_LARGE | SET_SCALING | SET_GRID | SET_TREE |
                    SET_DRAGONFLY | SET_CONG | SET_MANYCORE;
        else {
            fprintf(stderr, "topomap-bench: unknown case set '%s' (base, one, large, scaling, grid, "
                            "tree, dragonfly, huge, cong, manycore, threads, all)\n", tok);
            return -1;
        }
    }
    return sets;
}

/* The command line, with its defaults. */
struct bench_args {
    const char *wdir, *tdir, *prefix;
    const char *algos[BENCH_MAXALG];
    int nalgo, quick, sets;
};

/* Reads the options into a. -1 to go on, else main's exit status. */
static int parse_args(int argc, char **argv, struct bench_args *a)
{
    int extra = 0, chosen = 0, ret, opt;
    double limit = -1;
    char *alist = NULL, *end;
    a->wdir = getenv("TOPOMAP_WORKLOADS");
    a->tdir = BENCH_TOPOLOGIES;
    a->prefix = "bench-results";
    a->nalgo = a->quick = a->sets = 0;
    if (!a->wdir || !*a->wdir)
        a->wdir = BENCH_WORKLOADS;
    while ((opt = getopt(argc, argv, "w:t:g:o:a:T:j:s:LSqh")) != -1) {
        switch (opt) {
        case 'w': a->wdir = optarg; break;
        case 't': a->tdir = optarg; break;
        case 'g': gdir = optarg; break;
        case 'o': a->prefix = optarg; break;
        case 'a': alist = optarg; break;
        case 'T':
            limit = strtod(optarg, &end);
            if (end == optarg || *end || !(limit >= 0)) {
                fprintf(stderr, "topomap-bench: -T wants seconds (0: no limit), not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'j':
            bench_threads = (int)strtol(optarg, &end, 10);
            if (end == optarg || *end || bench_threads < 0) {
                fprintf(stderr, "topomap-bench: -j wants a thread count (0: the default)\n");
                return 2;
            }
            break;
        case 's':
            if ((ret = parse_sets(optarg)) < 0)
                return 2;
            a->sets |= ret;
            chosen = 1;
            break;
        case 'L': extra |= SET_LARGE; break;
        case 'S': extra |= SET_SCALING; break;
        case 'q': a->quick = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    /* -s names the sets, else base, one and tree (quick: all); -L and -S add. */
    if (!chosen)
        a->sets = a->quick ? SET_BASE | SET_ONE | SET_LARGE | SET_SCALING | SET_GRID | SET_TREE |
                                 SET_DRAGONFLY | SET_CONG | SET_MANYCORE
                           : SET_BASE | SET_ONE | SET_TREE | SET_DRAGONFLY | SET_CONG |
                                 SET_MANYCORE;
    a->sets |= extra;
    bench_time_limit = limit >= 0 ? limit : a->quick ? 10 : 60;
    if (alist) {
        for (char *tok = strtok(alist, ","); tok && a->nalgo < BENCH_MAXALG;
             tok = strtok(NULL, ","))
            a->algos[a->nalgo++] = tok;
    } else {
        for (size_t k = 0;
             k < sizeof default_algos / sizeof default_algos[0] && a->nalgo < BENCH_MAXALG; k++)
            a->algos[a->nalgo++] = default_algos[k];
    }
    if (!a->nalgo) {
        fprintf(stderr, "topomap-bench: -a names no algorithm\n");
        return 2;
    }
    return -1;
}

/* The head of the table: version, machine, inputs, sets. */
static void emit_header(const struct bench_args *a)
{
    int sets = a->sets;
    double load[3] = {0};
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
            load[0] = NAN;
        fclose(la);
    }
    time_t now_t = time(NULL);
    bench_emit("# topomap %s benchmark, %s", topomap_version(), ctime(&now_t));
    bench_emit("# %ld CPUs online, load average %.2f at start; Scotch: %s\n",
               sysconf(_SC_NPROCESSORS_ONLN), load[0],
#ifdef HAVE_SCOTCH
               "yes"
#else
               "no"
#endif
    );
    bench_emit("# workloads %s, topologies %s, METIS graphs %s\n", a->wdir, a->tdir, gdir);
    bench_emit("# sets:%s%s%s%s%s%s%s%s%s%s%s%s; time limit %g s per run; threads %d (0: the default)\n\n",
               sets & SET_BASE ? " base" : "", sets & SET_ONE ? " one" : "",
               sets & SET_LARGE ? " large" : "", sets & SET_SCALING ? " scaling" : "",
               sets & SET_GRID ? " grid" : "", sets & SET_TREE ? " tree" : "",
               sets & SET_DRAGONFLY ? " dragonfly" : "", sets & SET_HUGE ? " huge" : "",
               sets & SET_CONG ? " cong" : "", sets & SET_MANYCORE ? " manycore" : "", sets & SET_THREADS ? " threads" : "",
               a->quick ? " (quick)" : "", bench_time_limit, bench_threads);
}

/* Profiles: the shared workloads (their count in *nshared), then synthetic
 * ones (the random graph first: it draws from the shared generator).
 * profs: room for 64. Returns how many. */
static int load_profiles(const struct bench_args *a, char **pfiles, int npf, struct prof *profs,
                         int *nshared)
{
    char path[4096];
    int nprof = 0;
    *nshared = 0;
    for (int i = 0; i < npf && nprof < 60; i++) {
        snprintf(path, sizeof path, "%s/%s", a->wdir, pfiles[i]);
        topomap_profile_t *p = topomap_profile_load(path, TOPOMAP_FMT_AUTO, bench_err,
                                                    sizeof bench_err);
        if (!p) {
            fprintf(stderr, "topomap-bench: skipping %s\n", bench_err);
            continue;
        }
        snprintf(profs[nprof].name, sizeof profs[0].name, "%.*s", (int)strlen(pfiles[i]) - 4,
                 pfiles[i]);
        profs[nprof++].p = p;
        (*nshared)++;
    }
    if ((a->sets & SET_BASE) && !a->quick) {
        if (synth(&profs[nprof], "stencil", 8, 8, 8) == 0)
            nprof++;
        snprintf(profs[nprof].name, sizeof profs[0].name, "random-1024");
        if ((profs[nprof].p = bench_random_sparse(1024, 6)))
            nprof++;
        if (synth(&profs[nprof], "stencil", 16, 16, 16) == 0)
            nprof++;
    }
    return nprof;
}

/* The plot, drawn from the table just written (topomap plot bench). */
static void draw_plot(const char *prefix, const char *paper_topo)
{
    char table[4096], path[4096], err[TOPOMAP_ERRLEN] = "";
    topomap_plot_bench_opts_t po;
    topomap_plot_bench_opts_init(&po);
    po.topology = paper_topo;
    snprintf(table, sizeof table, "%s.txt", prefix);
    snprintf(path, sizeof path, "%s.svg", prefix);
    if (topomap_plot_bench(path, NULL, table, &po, err, sizeof err) < 0)
        printf("# no plot: %s\n", err);
}

/* The many-core set's time-quality curves (topomap plot curves). */
static void draw_curves(const char *prefix)
{
    char table[4096], path[4096], err[TOPOMAP_ERRLEN] = "";
    snprintf(table, sizeof table, "%s.txt", prefix);
    snprintf(path, sizeof path, "%s-curves.svg", prefix);
    if (topomap_plot_curves(path, NULL, table, err, sizeof err) < 0)
        printf("# no curves: %s\n", err);
}

int main(int argc, char **argv)
{
    static struct bench_args args;
    int ret = parse_args(argc, argv, &args);
    if (ret >= 0)
        return ret;
    const char *wdir = args.wdir, *tdir = args.tdir, *prefix = args.prefix;
    const char **algos = args.algos;
    int nalgo = args.nalgo, quick = args.quick, sets = args.sets;
    char path[4096];
    snprintf(path, sizeof path, "%s.txt", prefix);
    bench_out = fopen(path, "w");
    if (!bench_out) {
        fprintf(stderr, "topomap-bench: %s: %s\n", path, strerror(errno));
        return 1;
    }

    char **pfiles = NULL, **tfiles = NULL;
    int npf = list_files(wdir, ".txt", &pfiles);
    int ntf = list_files(tdir, ".yaml", &tfiles);
    if (npf < 0)
        fprintf(stderr, "topomap-bench: %s: %s (no shared workloads)\n", wdir, strerror(errno));
    if (ntf <= 0) {
        fprintf(stderr, "topomap-bench: no topologies in %s\n", tdir);
        return 1;
    }
    double t_start = bench_now();
    emit_header(&args);
    bench_table_head();

    struct prof profs[64];
    int nshared, nprof = load_profiles(&args, pfiles, npf, profs, &nshared);
    static struct bench_plan all, large;
    all.algos = large.algos = algos;
    all.nalgo = large.nalgo = nalgo;
    large.skip_larger = 1;
    const char *paper_topo = "tianhe3-prototype";
    for (int ti = 0; ti < ntf && (sets & SET_BASE); ti++) {
        snprintf(path, sizeof path, "%s/%s", tdir, tfiles[ti]);
        topomap_topology_t *t = topomap_topology_load(path, bench_err, sizeof bench_err);
        if (!t) {
            fprintf(stderr, "topomap-bench: skipping %s\n", bench_err);
            continue;
        }
        char tname[40];
        snprintf(tname, sizeof tname, "%.*s", (int)strlen(tfiles[ti]) - 5, tfiles[ti]);
        run_cases(profs, nprof, t, tname, 0, 1, &all);
        topomap_topology_free(t);
    }
    if (sets & SET_ONE)
        set_one(tdir, profs, nshared, &all, quick);
    if (sets & SET_LARGE)
        set_large(tdir, &large, quick);
    if (sets & SET_SCALING)
        bench_scaling_run(tdir, algos, nalgo, quick);
    if (sets & SET_HUGE)
        bench_scaling_large_run(tdir, algos, nalgo);
    if (sets & SET_GRID)
        bench_grid_run(tdir, quick);
    if (sets & SET_TREE)
        bench_tree_run(tdir, wdir, quick);
    if (sets & SET_DRAGONFLY)
        bench_dragonfly_run(tdir, wdir, quick);
    if (sets & SET_CONG)
        bench_cong_run(tdir, wdir, quick);
    if (sets & SET_MANYCORE)
        bench_manycore_run(tdir, quick);
    if (sets & SET_THREADS)
        bench_threads_run(quick);

    char shared[64][48];
    for (int i = 0; i < nshared; i++)
        memcpy(shared[i], profs[i].name, sizeof shared[i]);
    bench_summary(algos, nalgo, paper_topo, nshared, shared);
    bench_scaling_table(algos, nalgo);
    /* The bar picture needs case lines, which the many-core and threads
     * sets do not write (the many-core set has its curves). */
    bench_emit("\n# %.0f s in all; table: %s.txt", bench_now() - t_start, prefix);
    if (bench_nres)
        bench_emit(", plot: %s.svg", prefix);
    if (sets & SET_MANYCORE)
        bench_emit(", curves: %s-curves.svg", prefix);
    bench_emit("\n");
    fclose(bench_out);
    if (bench_nres)
        draw_plot(prefix, paper_topo);
    if (sets & SET_MANYCORE)
        draw_curves(prefix);
    free_profs(profs, nprof);
    for (int i = 0; i < ngraphs; i++)
        bench_graph_free(graphs[i].g);
    for (int i = 0; i < npf; i++)
        free(pfiles[i]);
    for (int i = 0; i < ntf; i++)
        free(tfiles[i]);
    free(pfiles);
    free(tfiles);
    free(bench_res);
    return 0;
}
