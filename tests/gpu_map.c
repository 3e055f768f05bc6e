/* SPDX-License-Identifier: BSD-3-Clause */
/* Mapping onto GPU nodes (4 DGX-1 V100 nodes, topologies/dgx1-v100.yaml, a
 * rank per GPU): the SumCom of `auto` against the block layout (rank i on
 * GPU i mod 8 of node i / 8) and against a GPU-unaware placement (`auto` on
 * the same nodes without the links matrix, tests/data/topologies/
 * dgx1-nolinks.yaml, evaluated on the real node), for synthetic 32-rank
 * profiles and, when ../shared/workloads is there, the shared profiles
 * (16 ranks on 2 nodes; ranks 0-31 of the 64-rank ones on 4). The placement
 * inside one node is checked against every one of the 8! placements. The
 * figures are printed as TAP comments (doc/gpu-nodes.md quotes them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"

#define SHIPPED SRCDIR "/../topologies/"
#define TOPOS SRCDIR "/data/topologies/"
#define SHARED SRCDIR "/../../shared/workloads/"

static char err[TOPOMAP_ERRLEN];
static topomap_topology_t *aware, *unaware;

/* A profile builder: directed edges both ways. */
struct pb {
    int n, m, cap;
    int *src, *dst;
    double *w;
};

static void add(struct pb *b, int i, int j, double w)
{
    if (b->m + 2 > b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->src = realloc(b->src, sizeof(int) * (size_t)b->cap);
        b->dst = realloc(b->dst, sizeof(int) * (size_t)b->cap);
        b->w = realloc(b->w, sizeof(double) * (size_t)b->cap);
        if (!b->src || !b->dst || !b->w)
            abort();
    }
    b->src[b->m] = i, b->dst[b->m] = j, b->w[b->m++] = w;
    b->src[b->m] = j, b->dst[b->m] = i, b->w[b->m++] = w;
}

static topomap_profile_t *build(struct pb *b)
{
    topomap_profile_t *p =
        topomap_profile_create(b->n, (size_t)b->m, b->src, b->dst, b->w, NULL, err, sizeof err);
    free(b->src), free(b->dst), free(b->w);
    memset(b, 0, sizeof *b);
    return p;
}

static uint64_t lcg = 12345;
static int rnd(int n)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((lcg >> 33) % (uint64_t)n);
}

/* Synthetic 32-rank profiles: kind 0 tensor-parallel groups of 4 (all to
 * all inside, heavy) with data-parallel rings across groups; 1 an 8 x 4
 * stencil, x heavier than y; 2 random pairs. */
static topomap_profile_t *synthetic(int kind, int n)
{
    struct pb b = {n, 0, 0, NULL, NULL, NULL};
    if (kind == 0) {
        for (int g = 0; g < n; g += 4)
            for (int i = 0; i < 4; i++)
                for (int j = i + 1; j < 4; j++)
                    add(&b, g + i, g + j, 1e6 * (1 + (i + j) % 3));
        for (int r = 0; r + 4 < n; r++)
            add(&b, r, r + 4, 2e5);
    } else if (kind == 1) {
        for (int y = 0; y < n / 8; y++)
            for (int x = 0; x < 8; x++) {
                int r = y * 8 + x;
                if (x + 1 < 8)
                    add(&b, r, r + 1, 1e6);
                if (y + 1 < n / 8)
                    add(&b, r, r + 8, 3e5);
            }
    } else {
        for (int k = 0; k < 3 * n; k++) {
            int i = rnd(n), j = rnd(n);
            if (i != j)
                add(&b, i, j, 1e4 * (1 + rnd(100)));
        }
    }
    return build(&b);
}

/* Ranks 0 .. n-1 of p (the traffic among them). */
static topomap_profile_t *subset(const topomap_profile_t *p, int n)
{
    topomap_graph_t g;
    if (topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) < 0)
        return NULL;
    struct pb b = {n, 0, 0, NULL, NULL, NULL};
    for (int i = 0; i < n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            if (g.adj[e] < n && g.adj[e] > i)
                add(&b, i, g.adj[e], g.w[e] / 2); /* add() puts both ways back */
    return build(&b);
}

static double sumcom(const topomap_profile_t *p, const topomap_alloc_t *a, const int *r2s)
{
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    return topomap_eval_slots(p, a, r2s, &m) < 0 ? -1 : m.sumcom;
}

/* SumCom of block, GPU-unaware and auto for p on the first nodes of the
 * machine; 0 or -1. */
static int compare(const topomap_profile_t *p, const char *nodes, double *s)
{
    int n = topomap_profile_nranks(p), rc = -1;
    int *r2s = malloc(sizeof(int) * (size_t)n);
    topomap_alloc_t *a = topomap_alloc_create(aware, nodes, NULL, err, sizeof err);
    topomap_alloc_t *u = topomap_alloc_create(unaware, nodes, NULL, err, sizeof err);
    topomap_opts_t o;
    topomap_opts_init(&o);
    if (!r2s || !a || !u)
        goto out;
    if (topomap_map("block", p, a, &o, r2s, err, sizeof err) < 0 || (s[0] = sumcom(p, a, r2s)) < 0)
        goto out;
    if (topomap_map("auto", p, u, &o, r2s, err, sizeof err) < 0 || (s[1] = sumcom(p, a, r2s)) < 0)
        goto out;
    if (topomap_map("auto", p, a, &o, r2s, err, sizeof err) < 0 || (s[2] = sumcom(p, a, r2s)) < 0)
        goto out;
    rc = 0;
out:
    topomap_alloc_free(a);
    topomap_alloc_free(u);
    free(r2s);
    return rc;
}

static void report(const char *name, const topomap_profile_t *p, const char *nodes)
{
    double s[3] = {0, 0, 0};
    if (!ok(p && compare(p, nodes, s) == 0, "%s: block, GPU-unaware and auto map (%s)", name,
            p ? "ok" : err))
        return;
    printf("# %-24s block %.6g  gpu-unaware %.6g  auto %.6g  (auto/block %.4f, "
           "auto/unaware %.4f)\n",
           name, s[0], s[1], s[2], s[2] / s[0], s[2] / s[1]);
    ok(s[2] < s[0], "%s: auto below block", name);
    ok(s[2] < s[1], "%s: auto below GPU-unaware", name);
}

/* Inside one node: auto's placement of 8 ranks against all 8! placements. */
static void exact_node(void)
{
    topomap_profile_t *p = synthetic(2, 8);
    topomap_alloc_t *a = topomap_alloc_create(aware, "dgx1", NULL, err, sizeof err);
    int r2s[8], perm[8];
    if (!ok(p && a && topomap_map("auto", p, a, NULL, r2s, err, sizeof err) == 0,
            "8 random ranks on one node (%s)", a ? "ok" : err))
        goto out;
    double got = sumcom(p, a, r2s), best = -1;
    /* Heap's algorithm over the 8! placements. */
    int c[8] = {0};
    for (int i = 0; i < 8; i++)
        perm[i] = i;
    for (int i = 0;;) {
        double s = sumcom(p, a, perm);
        if (best < 0 || s < best)
            best = s;
        while (i < 8 && c[i] >= i)
            c[i++] = 0;
        if (i == 8)
            break;
        int j = i % 2 ? c[i] : 0, tmp = perm[j];
        perm[j] = perm[i], perm[i] = tmp;
        c[i]++;
        i = 0;
    }
    is_double(got, best, 1e-9 * best, "auto inside a node: the least SumCom of the 40,320");
out:
    topomap_alloc_free(a);
    topomap_profile_free(p);
}

static void shared(void)
{
    static const struct {
        const char *file, *nodes;
        int n;
    } w[] = {{"lammps-lj32k-16.txt", "dgx[1-2]", 16},  {"petsc-ex45-mg65-16.txt", "dgx[1-2]", 16},
             {"lammps-lj32k-64.txt", "dgx[1-4]", 32},  {"petsc-ex45-mg65-64.txt", "dgx[1-4]", 32},
             {"metis-4elt-k256.txt", "dgx[1-4]", 32},  {"metis-add32-k256.txt", "dgx[1-4]", 32}};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
        char path[512], name[64];
        snprintf(path, sizeof path, "%s%s", SHARED, w[i].file);
        topomap_profile_t *full = topomap_profile_load(path, 0, err, sizeof err);
        if (!full) {
            ok(1, "# SKIP %s not available (../shared/workloads)", w[i].file);
            continue;
        }
        topomap_profile_t *p = topomap_profile_nranks(full) == w[i].n ? full : subset(full, w[i].n);
        snprintf(name, sizeof name, "%.*s%s", (int)(strlen(w[i].file) - 4), w[i].file,
                 p == full ? "" : "[0-31]");
        report(name, p, w[i].nodes);
        if (p != full)
            topomap_profile_free(p);
        topomap_profile_free(full);
    }
}

/* The second shipped GPU node (topologies/frontier-mi250x.yaml: 8 MI250X
 * GCDs with 4, 2, 1 or no Infinity Fabric links per pair): auto's SumCom
 * below block's for the synthetic profiles on its 4 nodes. */
static void frontier(void)
{
    topomap_topology_t *t = topomap_topology_load(SHIPPED "frontier-mi250x.yaml", err, sizeof err);
    if (!ok(t != NULL, "frontier-mi250x loads%s%s", t ? "" : ": ", t ? "" : err))
        return;
    topomap_topology_t *tu = topomap_topology_load(TOPOS "frontier-nolinks.yaml", err, sizeof err);
    topomap_alloc_t *a = topomap_alloc_create(t, "frontier[00001-00004]", NULL, err, sizeof err);
    topomap_alloc_t *u =
        tu ? topomap_alloc_create(tu, "frontier[00001-00004]", NULL, err, sizeof err) : NULL;
    static const char *const names[] = {"tensor-groups", "stencil 8x4", "random"};
    topomap_opts_t o;
    topomap_opts_init(&o);
    for (int k = 0; a && u && k < 3; k++) {
        topomap_profile_t *p = synthetic(k, 32);
        int r2s[32];
        double sb = -1, sa = -1, su = -1;
        if (p && topomap_map("block", p, a, &o, r2s, err, sizeof err) == 0)
            sb = sumcom(p, a, r2s);
        if (p && topomap_map("auto", p, u, &o, r2s, err, sizeof err) == 0)
            su = sumcom(p, a, r2s);
        if (p && topomap_map("auto", p, a, &o, r2s, err, sizeof err) == 0)
            sa = sumcom(p, a, r2s);
        printf("# frontier-mi250x %-14s block %.6g  gpu-unaware %.6g  auto %.6g  (auto/block "
               "%.4f, auto/unaware %.4f)\n",
               names[k], sb, su, sa, sa / sb, sa / su);
        ok(sa >= 0 && sb > 0 && sa < sb, "frontier-mi250x, synthetic %s: auto below block",
           names[k]);
        ok(sa >= 0 && su > 0 && sa <= su, "frontier-mi250x, synthetic %s: auto not above "
                                          "GPU-unaware",
           names[k]);
        topomap_profile_free(p);
    }
    ok(a && u, "frontier-mi250x and its GPU-unaware copy: 4 nodes allocated%s%s",
       a && u ? "" : ": ", a && u ? "" : err);
    topomap_alloc_free(a);
    topomap_alloc_free(u);
    topomap_topology_free(tu);
    topomap_topology_free(t);
}

int main(void)
{
    aware = topomap_topology_load(SHIPPED "dgx1-v100.yaml", err, sizeof err);
    unaware = topomap_topology_load(TOPOS "dgx1-nolinks.yaml", err, sizeof err);
    if (!aware || !unaware) {
        printf("Bail out! %s\n", err);
        return 1;
    }
    static const char *const names[] = {"synthetic tensor-groups", "synthetic stencil 8x4",
                                        "synthetic random"};
    for (int k = 0; k < 3; k++) {
        topomap_profile_t *p = synthetic(k, 32);
        report(names[k], p, "dgx[1-4]");
        topomap_profile_free(p);
    }
    exact_node();
    shared();
    frontier();
    topomap_topology_free(aware);
    topomap_topology_free(unaware);
    return done_testing();
}
