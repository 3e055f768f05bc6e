/* SPDX-License-Identifier: BSD-3-Clause */
/* The tapered fat-tree table of the congestion set: does auto gain from
 * knowing a tree's per-level bandwidths? A two-level tree of 16 leaf
 * switches x 16 nodes (4 cores each), its top level tapered 2:1 or 4:1
 * (the cables between the top switch and the leaves at 1/2 or 1/4 of the
 * node cables' bandwidth), 128 ranks on 32 scattered nodes (every 8th node:
 * 2 on each leaf; 8 on each of 4 leaves; 32 drawn at random). For each case
 * auto runs on the tapered tree (it sees the bandwidths: candidates keyed
 * by the congestion objective in seconds, map_auto.c) and on the same tree
 * without the taper ("ignored": what auto answers when the site does not
 * describe it); both answers are evaluated on the tapered tree: congestion
 * in seconds (congestion_max_seconds) and hop-bytes. auto@congestion on the
 * untapered tree separates what the bandwidths add from what the objective
 * adds. No time limit: the answers depend only on the inputs. Target (issue
 * "tapered fat-tree"): aware below ignored where the two answers differ. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define TAPER_RANKS 128
#define TAPER_NODES 32

/* The 16 x 16 tree with its top level at bw bytes/s (0: untapered). */
static topomap_topology_t *taper_tree(double bw)
{
    char path[64], top[64] = "";
    snprintf(path, sizeof path, "/tmp/topomap-bench-taper-%d.yaml", (int)getpid());
    if (bw > 0)
        snprintf(top, sizeof top, ", bandwidth: %g", bw);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f, "name: fattree-taper\nnodes: \"n[000-255]\"\nnetwork:\n  kind: fat-tree\n"
               "  link_bandwidth: 25e9\n  levels:\n    - {arity: 16, hops: 4%s}\n"
               "    - {arity: 16, hops: 2}\nnode:\n  cores: 4\n",
            top);
    fclose(f);
    topomap_topology_t *t = topomap_topology_load(path, bench_err, sizeof bench_err);
    unlink(path);
    if (!t)
        bench_emit("# taper table skipped: %s\n", bench_err);
    return t;
}

/* Allocation `shape` (0: every 8th node, 1: 8 nodes on each of leaves 0, 4,
 * 8, 12, 2: random nodes) on t, 4 slots per node. */
static topomap_alloc_t *taper_alloc(const topomap_topology_t *t, int shape)
{
    if (shape == 2)
        return bench_make_alloc(t, TAPER_RANKS, 1, 0);
    const char *names[TAPER_NODES];
    for (int i = 0; i < TAPER_NODES; i++)
        names[i] = topomap_topology_node_name(t, shape ? (i / 8) * 64 + i % 8 : 8 * i);
    char *hl = topomap_hostlist_compress(names, TAPER_NODES);
    topomap_alloc_t *a = hl ? topomap_alloc_create(t, hl, "4", bench_err, sizeof bench_err) : NULL;
    free(hl);
    return a;
}

/* Map p with algo on a (objective congestion when cong) and evaluate the
 * answer on the same nodes of tt: *secs, *hb. 0, or -1 (a line said why). */
static int taper_run(const char *algo, int cong, const topomap_profile_t *p,
                     const topomap_alloc_t *a, const topomap_topology_t *tt, int *node,
                     double *secs, double *hb)
{
    int n = topomap_profile_nranks(p);
    int *r2s = bench_xmalloc(sizeof(int) * (size_t)n), *core = bench_xmalloc(sizeof(int) * (size_t)n);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.nthreads = bench_threads;
    if (cong)
        o.objective = TOPOMAP_OBJECTIVE_CONGESTION;
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    int rc = topomap_map(algo, p, a, &o, r2s, bench_err, sizeof bench_err);
    for (int r = 0; rc == 0 && r < n; r++) {
        node[r] = topomap_alloc_slot_node(a, r2s[r]);
        core[r] = topomap_alloc_slot_core(a, r2s[r]);
    }
    if (rc == 0)
        rc = topomap_eval(p, tt, node, core, &m);
    if (rc < 0)
        bench_emit("#   %s failed: %s\n", algo, bench_err);
    *secs = rc < 0 ? NAN : m.congestion_max_seconds;
    *hb = rc < 0 ? NAN : m.hop_bytes;
    free(r2s);
    free(core);
    return rc;
}

/* Aware against ignored over the cases where the two answers differ. */
struct taper_sum {
    int cases, differ, below;
    double lsum;
};

/* One profile on one allocation shape, for both tapers. */
static void taper_case(const char *pname, const topomap_profile_t *p, int shape,
                       topomap_topology_t *const tt[3], struct taper_sum sum[2])
{
    static const char *shapes[] = {"every8", "4leaves", "random"};
    int n = topomap_profile_nranks(p);
    int *ni = bench_xmalloc(sizeof(int) * (size_t)n), *na = bench_xmalloc(sizeof(int) * (size_t)n);
    int *nb = bench_xmalloc(sizeof(int) * (size_t)n), *nc = bench_xmalloc(sizeof(int) * (size_t)n);
    topomap_alloc_t *a0 = taper_alloc(tt[0], shape);
    for (int x = 1; x <= 2 && a0; x++) {
        topomap_alloc_t *ax = taper_alloc(tt[x], shape);
        double bs, bh, is, ih, as, ah, cs, ch;
        double t0 = bench_now();
        if (!ax || taper_run("block", 0, p, ax, tt[x], nb, &bs, &bh) < 0 ||
            taper_run("auto", 0, p, a0, tt[x], ni, &is, &ih) < 0 ||
            taper_run("auto", 0, p, ax, tt[x], na, &as, &ah) < 0 ||
            taper_run("auto", 1, p, a0, tt[x], nc, &cs, &ch) < 0) {
            topomap_alloc_free(ax);
            continue;
        }
        int differ = memcmp(ni, na, sizeof(int) * (size_t)n) != 0;
        struct taper_sum *S = &sum[x - 1];
        S->cases++;
        if (differ && is > 0 && as > 0) {
            S->differ++;
            S->below += as < is;
            S->lsum += log(as / is);
        }
        bench_emit("%-22s %-8s %d:1 %11.4g %11.4g %11.4g %7.3f %11.4g %7.3f %7.3f %-6s %6.1f\n",
                   pname, shapes[shape], 2 * x, bs, is, as, as / is, cs, ah / bh, ih / bh,
                   differ ? "yes" : "no", bench_now() - t0);
        topomap_alloc_free(ax);
    }
    topomap_alloc_free(a0);
    free(ni), free(na), free(nb), free(nc);
}

void bench_taper_run(const char *wdir)
{
    topomap_topology_t *tt[3] = {taper_tree(0), taper_tree(12.5e9), taper_tree(6.25e9)};
    if (!tt[0] || !tt[1] || !tt[2]) {
        for (int x = 0; x < 3; x++)
            topomap_topology_free(tt[x]);
        return;
    }
    bench_emit("\n# Tapered fat-tree: 16 leaves x 16 nodes x 4 cores, top level at 1/2 (2:1) or "
               "1/4 (4:1) of the node cables' 25 GB/s; 128 ranks on 32 nodes; congestion in "
               "seconds on the tapered tree of: block, auto without the taper (ignored), auto "
               "with it (aware), auto@congestion without it; hop-bytes / block's\n");
    bench_emit("%-22s %-8s %4s %11s %11s %11s %7s %11s %7s %7s %-6s %6s\n", "profile", "alloc",
               "tap", "block s", "ignored s", "aware s", "aw/ign", "cong-ign s", "aw hb",
               "ign hb", "differ", "secs");
    static const char *shared[] = {"lammps-lj32k-128", "petsc-ex45-mg65-128"};
    struct {
        const char *name;
        topomap_profile_t *p;
    } P[] = {{shared[0], NULL},
             {shared[1], NULL},
             {"stencil-8x4x4", bench_stencil(8, 4, 4, 1e4, 0)},
             {"perm-stencil-8x4x4", bench_stencil(8, 4, 4, 1e4, BENCH_PERM_SEED)},
             {"rgg-128", bench_rgg(TAPER_RANKS, 8, BENCH_RGG_SEED)}};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.txt", wdir, shared[i]);
        if (access(path, R_OK) == 0)
            P[i].p = topomap_profile_load(path, TOPOMAP_FMT_AUTO, bench_err, sizeof bench_err);
    }
    struct taper_sum sum[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++) {
        for (int shape = 0; P[i].p && shape < 3; shape++)
            taper_case(P[i].name, P[i].p, shape, tt, sum);
        topomap_profile_free(P[i].p);
    }
    for (int x = 0; x < 2; x++)
        bench_emit("# %d:1 taper: answers differ in %d of %d cases; aware below ignored in %d of "
                   "them, geometric mean aware/ignored %.3f; target (below in every one): %s\n",
                   2 * (x + 1), sum[x].differ, sum[x].cases, sum[x].below,
                   sum[x].differ ? exp(sum[x].lsum / sum[x].differ) : NAN,
                   sum[x].differ && sum[x].below == sum[x].differ ? "met" : "MISSED");
    for (int x = 0; x < 3; x++)
        topomap_topology_free(tt[x]);
}
