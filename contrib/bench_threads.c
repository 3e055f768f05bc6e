/* SPDX-License-Identifier: BSD-3-Clause */
/* The threads set: auto's speedup with threads on the manycore set's
 * fat-tree of 2 x 64-core nodes (bench_manycore.c), 8-nearest-neighbour
 * graphs numbered at random, 16,384 ranks (quick) and 65,536.
 *  - Without a time limit (the work budget alone) at 1, 2, 4... threads up
 *    to the CPUs online (at least 2, at most 16): wall and processor
 *    seconds of topomap_map(), the speedup over one thread, and whether the
 *    mapping is the one of one thread (it must be: doc/benchmarks.md).
 *  - With a limit of 2 s at each thread count: hop-bytes / block's (what
 *    more threads buy within the plugin's default limit).
 * TOPOMAP_BENCH_LOG=1 in the environment prints auto's progress lines on
 * stderr, each after the wall and processor seconds since the start, to see
 * where the time goes (with threads, a batch's line gives each job's
 * processor time). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MAX_COUNTS 8

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A progress line with the wall and processor seconds since the start. */
static void log_line(const char *line, void *arg)
{
    const double *t0 = arg;
    fprintf(stderr, "[%.3f %.3f] %s\n", bench_now() - t0[0], cpu_now() - t0[1], line);
}

/* auto with t threads and the limit (0: none) into r2s; 0 or -1. */
static int run_auto(const topomap_profile_t *p, const topomap_alloc_t *a, int t, double limit,
                    int *r2s, double *wall, double *cpu)
{
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.nthreads = t;
    o.time_limit = limit;
    double t0[2] = {bench_now(), cpu_now()};
    const char *env = getenv("TOPOMAP_BENCH_LOG");
    if (env && *env && strcmp(env, "0")) {
        o.log = log_line;
        o.log_arg = t0;
        fprintf(stderr, "# auto, %d threads, time limit %g s\n", t, limit);
    }
    int rc = topomap_map("auto", p, a, &o, r2s, bench_err, sizeof bench_err);
    *wall = bench_now() - t0[0];
    *cpu = cpu_now() - t0[1];
    if (rc < 0)
        bench_emit("# threads: auto with %d threads: %s\n", t, bench_err);
    return rc;
}

static void one_case(const char *pname, const topomap_profile_t *p, const topomap_alloc_t *a,
                     const int *counts, int ncounts)
{
    int n = topomap_profile_nranks(p);
    size_t sz = sizeof(int) * (size_t)n;
    int *r2s = bench_xmalloc(sz), *first = bench_xmalloc(sz);
    double hb_block = NAN, wall1 = NAN, wall, cpu;
    if (topomap_map("block", p, a, NULL, r2s, bench_err, sizeof bench_err) == 0)
        hb_block = bench_manycore_hb(p, a, r2s);
    for (int i = 0; i < ncounts; i++) {
        int t = counts[i];
        if (run_auto(p, a, t, 0, r2s, &wall, &cpu) < 0)
            continue;
        if (i == 0)
            memcpy(first, r2s, sz), wall1 = wall;
        double rel = bench_manycore_hb(p, a, r2s) / hb_block;
        double rel2 = NAN, wall2 = NAN, cpu2;
        int *lim = bench_xmalloc(sz);
        if (run_auto(p, a, t, 2, lim, &wall2, &cpu2) == 0)
            rel2 = bench_manycore_hb(p, a, lim) / hb_block;
        free(lim);
        bench_emit("%-20s %7d %7.4f %8.2f %8.2f %7.2f %-5s %7.4f %6.2f\n", pname, t, rel, wall,
                   cpu, wall1 / wall, memcmp(first, r2s, sz) ? "NO" : "yes", rel2, wall2);
    }
    free(r2s), free(first);
}

void bench_threads_run(int quick)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int counts[MAX_COUNTS], nc = 0;
    for (int t = 1; nc < MAX_COUNTS && t <= 16 && (t <= cpus || t <= 2); t *= 2)
        counts[nc++] = t;
    bench_emit("\n# threads set: auto on 2x64-core nodes of a fat-tree, %ld CPUs online; without "
               "a limit: hop-bytes / block's, wall and processor s, speedup over 1 thread, same "
               "mapping as 1 thread; with a 2 s limit: hop-bytes / block's and wall s\n",
               cpus);
    bench_emit("# %-18s %7s %7s %8s %8s %7s %-5s %7s %6s\n", "profile", "threads", "x block",
               "wall", "cpu", "speedup", "same", "@2s", "wall");
    topomap_topology_t *t = bench_manycore_fat_tree(64);
    if (!t)
        return;
    for (int n = 16384; n <= (quick ? 16384 : 65536); n *= 4) {
        char pname[48];
        snprintf(pname, sizeof pname, "knn8-%d-random", n);
        topomap_profile_t *p = bench_knn(n, 8, 0, BENCH_RGG_SEED);
        topomap_alloc_t *a = p ? bench_make_alloc(t, n, 0, 0) : NULL;
        if (a)
            one_case(pname, p, a, counts, nc);
        else
            bench_emit("# threads: %s: %s\n", pname, bench_err);
        topomap_alloc_free(a);
        topomap_profile_free(p);
    }
    topomap_topology_free(t);
}
