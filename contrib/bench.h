/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench's private header, shared by its files (never installed):
 *   bench.c          options, the case sets, main
 *   bench_run.c      allocations, one algorithm run under the time limit, one case
 *   bench_summary.c  the summary tables under the case table
 *   bench_scale.c    the scaling tables (time against ranks and against nodes)
 *   bench_gen.c      synthetic profiles and METIS partitions of mesh graphs
 *   bench_scotch.c   Scotch's static mapping, the rival
 *   bench_grid.c     the grid set: Bhatele et al.'s aspect-ratio study
 *   bench_tree.c     the tree set: treematch and SumCom on hierarchical machines
 *   bench_dragonfly.c the dragonfly set: the busiest global link
 *   bench_cong.c     the congestion set: the busiest link on scattered tori
 *   bench_taper.c    its tapered fat-tree table: auto with and without the taper
 *   bench_manycore.c the manycore set: 128-core nodes, auto at the plugin's limits
 *   bench_threads.c  the threads set: auto's speedup with threads on those nodes
 * The benchmark uses libtopomap's public API only (topomap.h), except
 * bench_grid.c, which calls the 2D grid heuristics one by one (internal.h). */
#ifndef TOPOMAP_BENCH_H
#define TOPOMAP_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "topomap.h"

#define BENCH_MAXALG 32
/* Seeds of the shuffled stencils and the random geometric graphs. */
#define BENCH_PERM_SEED 20240607
#define BENCH_RGG_SEED 4242

/* One line of the case table: one algorithm on one case (profile x topology
 * x allocation). NAN where a value is missing (the run failed, timed out, or
 * the baseline did not run). */
struct bench_result {
    char profile[48];
    int n; /* ranks */
    char topo[40];
    char shape[16]; /* allocation: compact, scattered, compact:1, scattered:1 */
    char algo[24];
    double hb;      /* hop-bytes */
    double rel;     /* hb / block's hb */
    double srel;    /* hb / Scotch's hb */
    double cong;    /* congestion: bytes on the busiest channel (congestion_max) */
    double crel;    /* cong / Scotch's cong */
    double cbrel;   /* cong / block's cong */
    double sumcom;  /* SumCom over the whole hierarchy (topomap_metrics_t.sumcom) */
    double sumrel;  /* sumcom / Scotch's sumcom */
    double secs;    /* wall-clock seconds of the mapping */
    double stime;   /* secs / Scotch's secs */
    int timeout;    /* 1: hit the time limit */
    int skipped;    /* 1: not run (timed out on a smaller case of its set) */
    int scaling;    /* 1: not in the summary: run for the scaling tables, or
                       a set with its own table (tree) */
    char note[80];
};

/* All results so far, in run order (bench_run.c). */
extern struct bench_result *bench_res;
extern size_t bench_nres;
/* Error buffer for library calls. */
extern char bench_err[TOPOMAP_ERRLEN];
/* The table file (PREFIX.txt), or NULL. */
extern FILE *bench_out;
/* Seconds allowed to every algorithm run (opts.time_limit; Scotch is killed). */
extern double bench_time_limit;
/* OpenMP threads of every run (opts.nthreads), 0: the runtime's default. */
extern int bench_threads;

/* How bench_run_case() runs the algorithms of a case. */
#define BENCH_MAXTIMEOUTS 128
struct bench_plan {
    const char **algos;
    int nalgo;
    /* 1: an algorithm that timed out on a profile is not run on the larger
     * profiles of its family (the name without its last "-" part: rgg,
     * perm-stencil, metis-mdual...); 0: every algorithm runs on every case. */
    int skip_larger;
    int scaling; /* tag results as scaling-only (left out of the summary) */
    int sumcom;  /* 1: lines show SumCom (and /scotch) before hop-bytes */
    /* The smallest rank count at which each algorithm timed out, per family. */
    struct {
        char family[40];
        int algo, n;
    } timeouts[BENCH_MAXTIMEOUTS];
    int ntimeouts;
};

/* bench_run.c */
double bench_now(void);
/* printf to stdout and to the table file; flushes stdout (progress). */
void bench_emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* splitmix64 step of *state. */
uint64_t bench_rng_next(uint64_t *state);
/* The shared generator (allocations, Scotch's distance check, random graphs). */
uint64_t bench_rng(void);
extern uint64_t bench_rng_state;
int bench_cmp_double(const void *a, const void *b);
/* malloc, calloc, realloc that end the program on failure. */
void *bench_xmalloc(size_t size);
void *bench_xcalloc(size_t n, size_t size);
void *bench_xrealloc(void *ptr, size_t size);
/* An allocation on t for n ranks: one slot per node (one_per_node) or all
 * cores of ceil(n / cores) nodes (the last one partly); the first nodes in
 * index order, or (scattered) nodes drawn at random (seeded by n and the
 * machine size) listed in index order. NULL when the machine is too small
 * (silently) or the library refuses (a line on stderr). Caller frees with
 * topomap_alloc_free. */
topomap_alloc_t *bench_make_alloc(const topomap_topology_t *t, int n, int scattered,
                                  int one_per_node);
/* Print the column heads of the case table (plan.sumcom: of its SumCom lines). */
void bench_table_head(void);
void bench_table_head_sumcom(void);
/* Run every algorithm of plan on p mapped onto a: one result and one
 * progress line each. */
void bench_run_case(const char *pname, const topomap_profile_t *p, const char *tname,
                    const char *shape, const topomap_alloc_t *a, struct bench_plan *plan);
/* Record that algorithm k of plan timed out on profile pname of n ranks. */
void bench_plan_timeout(struct bench_plan *plan, const char *pname, int k, int n);

/* bench_summary.c */
const struct bench_result *bench_find(const char *profile, const char *topo, const char *shape,
                                      const char *algo);
/* Geometric mean of the field at byte offset off (rel, srel, stime) of the
 * summary results of topo x shape x algo that have it > 0; count in *count. */
double bench_geomean(size_t off, const char *topo, const char *shape, const char *algo,
                     int *count);
/* Distinct values of the string field at offset off over the summary
 * results, in first-seen order; pointers into bench_res. */
int bench_distinct(size_t off, const char **vals, int max);
void bench_summary(const char **algos, int nalgo, const char *paper_topo, int nshared,
                   char shared[][48]);

/* bench_scale.c */
/* Run the scaling sweeps (results tagged scaling, or reused from the case
 * table); topologies named in them are loaded from tdir when shipped. */
void bench_scaling_run(const char *tdir, const char **algos, int nalgo, int quick);
/* The scaling sweeps past 65,536 ranks (the huge set): shuffled stencils and
 * random geometric graphs of 65,536, 262,144 and 1,048,576 ranks on the
 * 32x32x32 torus; minutes per algorithm. */
void bench_scaling_large_run(const char *tdir, const char **algos, int nalgo);
/* Print the scaling tables of what bench_scaling_run() and
 * bench_scaling_large_run() ran. */
void bench_scaling_table(const char **algos, int nalgo);

/* bench_grid.c: the grid set (its own table after the case table). */
void bench_grid_run(const char *tdir, int quick);

/* bench_tree.c: the tree set (its own table and summary). */
void bench_tree_run(const char *tdir, const char *wdir, int quick);

/* bench_dragonfly.c: the dragonfly set (its own table and summary). */
void bench_dragonfly_run(const char *tdir, const char *wdir, int quick);
/* bench_cong.c: the congestion set (busiest link on scattered torus
 * allocations; its own table). */
void bench_cong_run(const char *tdir, const char *wdir, int quick);
/* bench_taper.c: the tapered fat-tree table (run by the congestion set). */
void bench_taper_run(const char *wdir);
/* bench_manycore.c: the manycore set (its own table): auto at time limits
 * of 0.25 to 5 s against Scotch on nodes of 2 x 64 cores. */
void bench_manycore_run(const char *tdir, int quick);
/* Its fat-tree of 16 leaf switches x 32 nodes of 2 sockets x c cores, and
 * the hop-bytes of r2s (NAN when it cannot be evaluated). */
topomap_topology_t *bench_manycore_fat_tree(int c);
double bench_manycore_hb(const topomap_profile_t *p, const topomap_alloc_t *a, const int *r2s);
/* bench_threads.c: the threads set: auto on the manycore fat-tree at 1, 2,
 * 4... threads, without a limit (same mapping at every count?) and at 2 s. */
void bench_threads_run(int quick);

/* bench_gen.c: profiles; caller frees with topomap_profile_free; NULL with a
 * reason in bench_err. */
/* x*y*z 3D stencil, face bytes to each of the 6 face neighbours (no wrap);
 * seed != 0: rank numbers shuffled by a permutation drawn from seed. */
topomap_profile_t *bench_stencil(int x, int y, int z, double face, uint64_t seed);
/* Each rank sends to deg random others (the shared generator), 1..1e5 bytes. */
topomap_profile_t *bench_random_sparse(int n, int deg);
/* Random geometric graph: n points uniform in the unit cube (seeded), an edge
 * between points closer than the radius giving deg neighbours on average,
 * bytes decreasing with the distance. */
topomap_profile_t *bench_rgg(int n, double deg, uint64_t seed);
/* k nearest neighbours (k <= 16) of n points uniform in the unit cube
 * (seeded): rank i sends to each of its k nearest points 1e5..1e6 bytes
 * (uniform); ranks numbered in the order drawn, or (curve) along a Morton
 * curve through the cube. The manycore set's profiles (issue 37). */
topomap_profile_t *bench_knn(int n, int k, int curve, uint64_t seed);
/* A graph in METIS's file format (CSR, 0-based). */
struct bench_graph {
    int n;
    int64_t *xadj;
    int *adj;
    int *w; /* edge weights, 1 when the file has none */
};
/* Load path; NULL with a reason in bench_err. Free with bench_graph_free. */
struct bench_graph *bench_graph_load(const char *path);
void bench_graph_free(struct bench_graph *g);
/* Cut g into k parts with METIS_PartGraphKway (seed 1), one rank per part,
 * bytes from part to part = weight of the cut edges between them (each
 * edge in both directions), as the shared metis-*-kK workloads. */
topomap_profile_t *bench_graph_parts(const struct bench_graph *g, int k);

/* bench_scotch.c: 1: on trees, Scotch's target is the whole hierarchy with
 * SumCom costs (the tree set); 0: the network's hops, cores flat. */
extern int bench_scotch_hier;
/* bench_scotch.c: map p onto a with Scotch, one rank per slot (no time
 * limit: the caller runs it in a child process). 0 with r2s and *secs, or -1
 * with a note. */
int bench_scotch_map(const topomap_profile_t *p, const topomap_alloc_t *a, int *r2s,
                     double *secs, char *note, size_t len);

#endif
