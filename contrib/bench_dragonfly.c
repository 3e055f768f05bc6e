/* SPDX-License-Identifier: BSD-3-Clause */
/* The dragonfly case set: on the shipped dragonfly-slingshot-2048 (16
 * groups x 32 switches x 4 nodes), the objective of dragonfly mapping
 * studies (Bhatele et al., SC 2011; Prisacari et al. 2013; Jain et al., SC
 * 2014): the load of the busiest global link, under minimal routing and
 * under the Valiant spread (routing: valiant), the bytes between groups, and
 * hop-bytes second. Rivals: block, random placement (the baseline adaptive
 * routing favours), drb + refine, auto with the plugin's 2 s budget, and
 * Scotch given the dragonfly as a distance matrix (its "deco 0"
 * architecture holding the exact hop table of the allocated nodes,
 * bench_scotch.c). Profiles: the shared workloads found (one rank per node,
 * the first nodes and nodes drawn at random), a 16x16x8 stencil plain and
 * shuffled and a random geometric graph of 2048 ranks (the whole machine),
 * and 4096 ranks two per node (time at 4096 ranks). Mappings run in this
 * process (no child, no kill): auto has its time limit, the others are
 * fast here. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const char *df_algos[] = {"block", "random", "drb+refine", "auto", "scotch"};
#define NDF ((int)(sizeof df_algos / sizeof df_algos[0]))
#define DF_MAXCASE 64

/* Per case and algorithm: busiest global link (minimal, valiant), global
 * bytes, hop-bytes, seconds; NAN when the run failed. */
struct df_res {
    double gmax, gval, gbytes, hb, secs;
};
static struct df_res res[DF_MAXCASE][NDF];
static char case_name[DF_MAXCASE][80];
static int ncase;

/* The shipped dragonfly, and the same with routing: valiant. */
static int load_pair(const char *tdir, topomap_topology_t **t, topomap_topology_t **tv)
{
    char path[4096], vpath[4096];
    snprintf(path, sizeof path, "%s/dragonfly-slingshot-2048.yaml", tdir);
    *t = topomap_topology_load(path, bench_err, sizeof bench_err);
    if (!*t) {
        bench_emit("# dragonfly set skipped: %s\n", bench_err);
        return -1;
    }
    FILE *in = fopen(path, "r");
    snprintf(vpath, sizeof vpath, "/tmp/topomap-bench-df-%d.yaml", (int)getpid());
    FILE *out = fopen(vpath, "w");
    char line[512];
    while (in && out && fgets(line, sizeof line, in))
        fputs(strstr(line, "routing: minimal") ? "  routing: valiant\n" : line, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    *tv = topomap_topology_load(vpath, bench_err, sizeof bench_err);
    unlink(vpath);
    if (!*tv) {
        bench_emit("# dragonfly set skipped: valiant copy: %s\n", bench_err);
        topomap_topology_free(*t);
        return -1;
    }
    return 0;
}

/* n ranks, per ranks on each of the first n / per nodes. */
static topomap_alloc_t *alloc_per(const topomap_topology_t *t, int n, int per)
{
    int k = n / per;
    const char **names = bench_xmalloc(sizeof(char *) * (size_t)k);
    for (int i = 0; i < k; i++)
        names[i] = topomap_topology_node_name(t, i);
    char *hl = topomap_hostlist_compress(names, (size_t)k), slots[16];
    snprintf(slots, sizeof slots, "%d", per);
    topomap_alloc_t *a = hl ? topomap_alloc_create(t, hl, slots, bench_err, sizeof bench_err) : NULL;
    free(hl);
    free(names);
    return a;
}

static void run_algo(int k, const topomap_profile_t *p, const topomap_alloc_t *a,
                     const topomap_topology_t *tv, struct df_res *R)
{
    int n = topomap_profile_nranks(p);
    int *r2s = bench_xmalloc(sizeof(int) * (size_t)n), *node = bench_xmalloc(sizeof(int) * (size_t)n);
    int *core = bench_xmalloc(sizeof(int) * (size_t)n);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.nthreads = bench_threads;
    if (!strcmp(df_algos[k], "auto"))
        o.time_limit = 2.0; /* the plugin's budget */
    *R = (struct df_res){NAN, NAN, NAN, NAN, NAN};
    double t0 = bench_now(), secs;
    char note[80] = "";
    int rc = !strcmp(df_algos[k], "scotch")
                 ? bench_scotch_map(p, a, r2s, &secs, note, sizeof note)
                 : topomap_map(df_algos[k], p, a, &o, r2s, bench_err, sizeof bench_err);
    if (strcmp(df_algos[k], "scotch"))
        secs = bench_now() - t0;
    if (rc < 0) {
        bench_emit("#   %s failed: %s\n", df_algos[k], note[0] ? note : bench_err);
        goto out;
    }
    for (int r = 0; r < n; r++) {
        node[r] = topomap_alloc_slot_node(a, r2s[r]);
        core[r] = topomap_alloc_slot_core(a, r2s[r]);
    }
    topomap_metrics_t m = TOPOMAP_METRICS_INIT, mv = TOPOMAP_METRICS_INIT;
    if (topomap_eval(p, topomap_alloc_topology(a), node, core, &m) < 0 ||
        topomap_eval(p, tv, node, core, &mv) < 0)
        goto out;
    *R = (struct df_res){m.congestion_class_max[TOPOMAP_LINK_GLOBAL],
                         mv.congestion_class_max[TOPOMAP_LINK_GLOBAL], m.congestion_global_bytes,
                         m.hop_bytes, secs};
out:
    free(r2s);
    free(node);
    free(core);
}

static void run_case(const char *pname, const char *shape, const topomap_profile_t *p,
                     const topomap_alloc_t *a, const topomap_topology_t *tv)
{
    if (!a || ncase == DF_MAXCASE)
        return;
    int c = ncase++;
    snprintf(case_name[c], sizeof case_name[c], "%s %s", pname, shape);
    for (int k = 0; k < NDF; k++)
        run_algo(k, p, a, tv, &res[c][k]);
    /* Lines once every algorithm ran: each is compared with block and random. */
    for (int k = 0; k < NDF; k++) {
        const struct df_res *R = &res[c][k], *B = &res[c][0], *X = &res[c][1];
        bench_emit("%-34s %-11s %12.4g %6.3f %6.3f %12.4g %12.4g %7.3f %9.3f\n", case_name[c],
                   df_algos[k], R->gmax, R->gmax / B->gmax, R->gmax / X->gmax, R->gval,
                   R->gbytes, R->hb / B->hb, R->secs);
    }
}

/* Geometric mean over the cases of algorithm k's field (offset) over
 * algorithm base's. */
static double geo(int k, int base, size_t off, int *count)
{
    double s = 0;
    *count = 0;
    for (int c = 0; c < ncase; c++) {
        double x = *(const double *)((const char *)&res[c][k] + off);
        double y = *(const double *)((const char *)&res[c][base] + off);
        if (x > 0 && y > 0) {
            s += log(x / y);
            ++*count;
        }
    }
    return *count ? exp(s / *count) : NAN;
}

static void summary(void)
{
    bench_emit("\n# dragonfly summary: geometric means over %d cases (busiest global link under "
               "minimal routing; valiant: under the Valiant spread)\n",
               ncase);
    bench_emit("%-12s %10s %10s %12s %12s %10s %9s\n", "algorithm", "glob/block", "glob/random",
               "valiant/block", "valiant/rand", "hb/block", "max secs");
    for (int k = 0; k < NDF; k++) {
        int n1, n2, n3, n4, n5;
        double a = geo(k, 0, offsetof(struct df_res, gmax), &n1);
        double b = geo(k, 1, offsetof(struct df_res, gmax), &n2);
        double cv = geo(k, 0, offsetof(struct df_res, gval), &n3);
        double d = geo(k, 1, offsetof(struct df_res, gval), &n4);
        double e = geo(k, 0, offsetof(struct df_res, hb), &n5);
        double mx = 0;
        for (int c = 0; c < ncase; c++)
            mx = res[c][k].secs > mx ? res[c][k].secs : mx;
        bench_emit("%-12s %10.3f %10.3f %12.3f %12.3f %10.3f %9.3f\n", df_algos[k], a, b, cv, d,
                   e, mx);
    }
    bench_emit("# targets: auto's busiest global link <= 0.8 x block's and <= random's (geometric "
               "mean), hop-bytes <= block's, <= 2 s at 4096 ranks\n");
}

void bench_dragonfly_run(const char *tdir, const char *wdir, int quick)
{
    topomap_topology_t *t, *tv;
    if (load_pair(tdir, &t, &tv) < 0)
        return;
    bench_emit("\n## Dragonfly set: dragonfly-slingshot-2048 (16 groups x 32 switches x 4 nodes), "
               "busiest global link (bytes) under minimal routing, /block, /random, under the "
               "Valiant spread, bytes on global links, hop-bytes / block's, seconds; Scotch: "
               "distance matrix (deco 0)\n\n");
    bench_emit("%-34s %-11s %12s %6s %6s %12s %12s %7s %9s\n", "case", "algorithm", "glob max",
               "/block", "/rand", "glob valiant", "glob bytes", "hb/blk", "secs");
    static const char *shared[] = {"lammps-lj32k-128",  "petsc-ex45-mg65-128", "metis-4elt-k256",
                                   "metis-add32-k256", "metis-4elt-k1024",    "metis-add32-k1024",
                                   "lammps-lj32k-64",  "petsc-ex45-mg65-64"};
    int found = 0;
    for (size_t i = 0; i < sizeof shared / sizeof *shared; i++) {
        if (quick && i % 2)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.txt", wdir, shared[i]);
        topomap_profile_t *p;
        if (access(path, R_OK) != 0 ||
            !(p = topomap_profile_load(path, TOPOMAP_FMT_AUTO, bench_err, sizeof bench_err)))
            continue;
        found++;
        int n = topomap_profile_nranks(p);
        for (int sh = 0; sh < 2; sh++) {
            topomap_alloc_t *a = bench_make_alloc(t, n, sh, 1);
            run_case(shared[i], sh ? "scattered:1" : "compact:1", p, a, tv);
            topomap_alloc_free(a);
        }
        topomap_profile_free(p);
    }
    if (!found)
        bench_emit("# dragonfly set: no shared workloads in %s: synthetic profiles only\n", wdir);
    struct {
        const char *name;
        topomap_profile_t *p;
        int per;
    } syn[] = {
        {"stencil-16x16x8", bench_stencil(16, 16, 8, 1e4, 0), 1},
        {"perm-stencil-16x16x8", quick ? NULL : bench_stencil(16, 16, 8, 1e4, BENCH_PERM_SEED), 1},
        {"rgg-2048", bench_rgg(2048, 8, BENCH_RGG_SEED), 1},
        {"stencil-16x16x16", bench_stencil(16, 16, 16, 1e4, 0), 2},
        {"rgg-4096", quick ? NULL : bench_rgg(4096, 8, BENCH_RGG_SEED), 2},
    };
    for (size_t i = 0; i < sizeof syn / sizeof *syn; i++) {
        if (!syn[i].p)
            continue;
        topomap_alloc_t *a = alloc_per(t, topomap_profile_nranks(syn[i].p), syn[i].per);
        run_case(syn[i].name, syn[i].per == 1 ? "all:1" : "all:2", syn[i].p, a, tv);
        topomap_alloc_free(a);
        topomap_profile_free(syn[i].p);
    }
    summary();
    topomap_topology_free(t);
    topomap_topology_free(tv);
}
