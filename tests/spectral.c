/* SPDX-License-Identifier: BSD-3-Clause */
/* spectral (Wang et al. 2015): CP-NSC on cliques with both
 * eigensolvers, the cluster mapping schemes on worked examples, the scheme
 * rule, the hierarchical mapping on a two-level fat-tree, and the same
 * result for 1, 2 and 4 threads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "spectral.h"
#include "tap.h"

static char err[TOPOMAP_ERRLEN];

/* A fixed shuffle of 0..n-1 (LCG-driven Fisher-Yates). */
static void shuffle(int *perm, int n, unsigned seed)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* ncl cliques of size cs, rank perm[c * cs + t] in clique c; every pair of
 * a clique exchanges w (w grows with the pair so that volumes vary), and
 * consecutive cliques of the same group of gsize cliques (0: none) exchange
 * weak. */
static topomap_profile_t *cliques(int ncl, int cs, const int *perm, double weak, int gsize)
{
    int n = ncl * cs, ne = 0, cap = n * n;
    int *src = malloc(sizeof(int) * (size_t)cap), *dst = malloc(sizeof(int) * (size_t)cap);
    double *b = malloc(sizeof(double) * (size_t)cap);
    for (int c = 0; c < ncl; c++)
        for (int s = 0; s < cs; s++)
            for (int t = 0; t < cs; t++)
                if (s != t) {
                    src[ne] = perm[c * cs + s];
                    dst[ne] = perm[c * cs + t];
                    b[ne++] = 1000 + 10 * (s + t);
                }
    for (int c = 0; gsize && c + 1 < ncl; c++)
        if ((c + 1) % gsize) {
            src[ne] = perm[c * cs];
            dst[ne] = perm[(c + 1) * cs + 1];
            b[ne++] = weak;
        }
    topomap_profile_t *p = topomap_profile_create(n, (size_t)ne, src, dst, b, NULL, err, sizeof err);
    free(src);
    free(dst);
    free(b);
    return p;
}

/* 1 if label groups the ranks exactly as the cliques (rank perm[c*cs+t]). */
static int same_partition(const int *label, const int *perm, int ncl, int cs)
{
    int n = ncl * cs;
    int *clique = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        clique[perm[i]] = i / cs;
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        for (int j = 0; j < n && ok; j++)
            ok = (label[i] == label[j]) == (clique[i] == clique[j]);
    free(clique);
    return ok;
}

/* Number of cliques whose ranks do not all sit on one node. */
static int split_cliques(const topomap_alloc_t *a, const int *r2s, const int *perm, int ncl,
                         int cs)
{
    int bad = 0;
    for (int c = 0; c < ncl; c++)
        for (int t = 1; t < cs; t++)
            if (topomap_alloc_slot_node(a, r2s[perm[c * cs + t]]) !=
                topomap_alloc_slot_node(a, r2s[perm[c * cs]])) {
                bad++;
                break;
            }
    return bad;
}

static void test_cliques(void)
{
    enum { NCL = 8, CS = 6 };
    int perm[NCL * CS], label[NCL * CS], loc[NCL * CS], ranks[NCL * CS];
    shuffle(perm, NCL * CS, 7);
    int arity[1] = {NCL}, hops[1] = {2};
    topomap_topology_t *t = topomap_topology_tree(1, arity, hops, CS, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
    for (int weakcase = 0; weakcase < 2; weakcase++) {
        /* Disjoint cliques, then cliques with weak links between them. */
        topomap_profile_t *p = cliques(NCL, CS, perm, weakcase ? 5 : 0, weakcase ? NCL : 0);
        ok(a && p, "clique profile and a flat machine of %d nodes x %d cores", NCL, CS);
        if (!a || !p)
            return;
        struct prob P;
        prob_init(&P, p, a);
        for (int i = 0; i < NCL * CS; i++) {
            ranks[i] = i;
            loc[i] = -1;
        }
        for (int solver = 0; solver < 2; solver++) {
            int saved = topomap_tuning()->cpnsc_dense_max;
            topomap_tuning()->cpnsc_dense_max = solver ? 0 : saved; /* 0: ARPACK */
            memset(label, -1, sizeof label);
            int k = topomap_cpnsc(&P.pb, ranks, NCL * CS, NCL, loc, label, err, sizeof err);
            topomap_tuning()->cpnsc_dense_max = saved;
            is_int(k, NCL, "CP-NSC (%s, %s): %d clusters", solver ? "ARPACK" : "dsyevr",
                   weakcase ? "weak links" : "disjoint", NCL);
            ok(same_partition(label, perm, NCL, CS), "CP-NSC (%s, %s) finds exactly the cliques",
               solver ? "ARPACK" : "dsyevr", weakcase ? "weak links" : "disjoint");
            int allneg = 1;
            for (int i = 0; i < NCL * CS; i++)
                allneg &= loc[i] == -1;
            ok(allneg, "CP-NSC leaves its scratch as it found it");
        }
        int r2s[NCL * CS];
        int rc = topomap_map("spectral", p, a, NULL, r2s, err, sizeof err);
        ok(rc == 0 && split_cliques(a, r2s, perm, NCL, CS) == 0,
           "spectral (%s): every clique on one node %s", weakcase ? "weak links" : "disjoint", err);
        rc = topomap_map("spectral-fit", p, a, NULL, r2s, err, sizeof err);
        ok(rc == 0 && split_cliques(a, r2s, perm, NCL, CS) == 0,
           "spectral-fit (%s): every clique on one node %s", weakcase ? "weak links" : "disjoint",
           err);
        prob_free(&P);
        topomap_profile_free(p);
    }
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* Clusters given as member lists: cx offsets, cmem members. */
static void check_scheme(int scheme, int nclus, const int *cx, const int *cmem, int nbins,
                         const int *cap, const int *want, const char *what)
{
    int got[64];
    int n = cx[nclus];
    int rc = topomap_cluster_map(scheme, nclus, cx, cmem, nbins, cap, got);
    int same = rc == 0;
    for (int i = 0; i < n && same; i++)
        same = got[i] == want[i];
    ok(same, "%s: %s", topomap_cluster_scheme_name(scheme), what);
    if (!same) {
        char line[256];
        size_t len = 0;
        for (int i = 0; i < n; i++)
            len += (size_t)snprintf(line + len, sizeof line - len, " %d", got[i]);
        printf("# got:%s\n", line);
    }
}

static void test_schemes(void)
{
    /* Example 1: clusters c0 = {0,2,5} (3), c1 = {1,3} (2), c2 = {4,6,7} (3)
     * on three nodes of 4 cores. Cores form one line, 4 per node.
     *  Plain: c0 (first rank 0), c1 (1), c2 (4) in turn on the next free
     *   cores: c0 -> node 0 x3; c1 -> node 0 x1 (rank 1), node 1 x1 (rank 3);
     *   c2 -> node 1 x3.
     *  First-Fit: stable sort by size: c0, c2, c1; c0 -> node 0 (empty);
     *   c2: node 0 has 1 free core, node 1 is empty -> node 1; c1: nodes 0
     *   and 1 have 1 free core each, node 2 is empty -> node 2.
     *  Most-Reservation: c0 -> node 0; c1 (2): node 0 has 1 free core, node
     *   1 is empty -> pos = node 1; preIdle holds (node 0's free core) but
     *   starting there still uses one empty node (node 1), as starting at
     *   pos does: not moreReserve -> node 1; c2 (3): likewise -> node 2. */
    static const int cx1[] = {0, 3, 5, 8}, cm1[] = {0, 2, 5, 1, 3, 4, 6, 7};
    static const int cap1[] = {4, 4, 4};
    /* want[member] */
    static const int plain1[] = {0, 0, 0, 1, 1, 0, 1, 1};
    static const int ff1[] = {0, 2, 0, 2, 1, 0, 1, 1};
    static const int mr1[] = {0, 1, 0, 1, 2, 0, 2, 2};
    check_scheme(TOPOMAP_CLUSTER_PLAIN, 3, cx1, cm1, 3, cap1, plain1, "example 1 (3, 2, 3 on 3 x 4)");
    check_scheme(TOPOMAP_CLUSTER_FF, 3, cx1, cm1, 3, cap1, ff1, "example 1 (3, 2, 3 on 3 x 4)");
    check_scheme(TOPOMAP_CLUSTER_MR, 3, cx1, cm1, 3, cap1, mr1, "example 1 (3, 2, 3 on 3 x 4)");

    /* Example 2: c0 = {0,1} (2), c1 = {2..7} (6) on three nodes of 4.
     *  Most-Reservation: c0 -> node 0 (2 used). c1: node 0 has 2 free < 6,
     *   node 1 is empty and 8 cores are free from it -> pos = node 1.
     *   preIdle: node 0 has 2 free cores just before pos; moreReserve:
     *   from pos, c1 fills node 1 and half of node 2 (two empty nodes
     *   used); from node 0's free cores it fills those and node 1 (one
     *   empty node used) -> moved forward: ranks 2,3 on node 0, 4..7 on
     *   node 1, node 2 stays empty.
     *  First-Fit: c1 first (larger): node 0 empty -> ranks 2..5 on node 0,
     *   6,7 on node 1; c0: node 0 full, node 1 has 2 free -> node 1.
     *  Plain: c0 then c1 on the next free cores: same as MR here. */
    static const int cx2[] = {0, 2, 8}, cm2[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const int mr2[] = {0, 0, 0, 0, 1, 1, 1, 1};
    static const int ff2[] = {1, 1, 0, 0, 0, 0, 1, 1};
    check_scheme(TOPOMAP_CLUSTER_MR, 2, cx2, cm2, 3, cap1, mr2, "example 2 (2, 6 on 3 x 4): moves forward");
    check_scheme(TOPOMAP_CLUSTER_FF, 2, cx2, cm2, 3, cap1, ff2, "example 2 (2, 6 on 3 x 4)");
    check_scheme(TOPOMAP_CLUSTER_PLAIN, 2, cx2, cm2, 3, cap1, mr2, "example 2 (2, 6 on 3 x 4)");

    /* Example 3: c0 = {0,1}, c1 = {2,3}, c2 = {4,5} on two nodes of 3.
     *  First-Fit and Most-Reservation: c0 -> node 0, c1 -> node 1 (node 0
     *   has 1 free), c2: 1 free core on each node, no position holds it ->
     *   split in order: rank 4 on node 0, rank 5 on node 1.
     *  MR does not move c1 forward: from node 0's free core it would still
     *   use node 1, so no more empty node is kept. */
    static const int cx3[] = {0, 2, 4, 6}, cm3[] = {0, 1, 2, 3, 4, 5}, cap3[] = {3, 3};
    static const int split3[] = {0, 0, 1, 1, 0, 1};
    static const int plain3[] = {0, 0, 0, 1, 1, 1};
    check_scheme(TOPOMAP_CLUSTER_FF, 3, cx3, cm3, 2, cap3, split3, "example 3 (2, 2, 2 on 2 x 3): split");
    check_scheme(TOPOMAP_CLUSTER_MR, 3, cx3, cm3, 2, cap3, split3, "example 3 (2, 2, 2 on 2 x 3): split");
    check_scheme(TOPOMAP_CLUSTER_PLAIN, 3, cx3, cm3, 2, cap3, plain3, "example 3 (2, 2, 2 on 2 x 3)");

    /* Example 4: fewer members than cores: c0 = {0} (1), c1 = {1,2,3,4,5}
     * (5) on two nodes of 4 and one of 2. FF: c1 -> node 0 (empty, 10 free
     * from it) x4 and node 1 x1, c0 -> node 1. */
    static const int cx4[] = {0, 1, 6}, cm4[] = {0, 1, 2, 3, 4, 5}, cap4[] = {4, 4, 2};
    static const int ff4[] = {1, 0, 0, 0, 0, 1};
    check_scheme(TOPOMAP_CLUSTER_FF, 2, cx4, cm4, 3, cap4, ff4, "example 4 (1, 5 on 4, 4, 2)");

    int got[8];
    static const int cap_small[] = {2, 2};
    errno = 0;
    ok(topomap_cluster_map(TOPOMAP_CLUSTER_FF, 3, cx3, cm3, 2, cap_small, got) < 0 &&
           errno == ENOSPC,
       "more members than cores: ENOSPC");

    /* The rule of section 4.4.2 (T_l = 0.1 mean, T_h = 0.5 mean, T_k = 256). */
    static const int even[] = {0, 4, 8, 12, 16};   /* sd 0 */
    static const int mid[] = {0, 4, 9, 13, 16};    /* 4 5 4 3: sd 0.71, mean 4 */
    static const int uneven[] = {0, 8, 9, 10, 16}; /* 8 1 1 6: sd 3.1 */
    is_int(topomap_cluster_scheme(4, even), TOPOMAP_CLUSTER_PLAIN, "rule: equal sizes -> Plain");
    is_int(topomap_cluster_scheme(4, mid), TOPOMAP_CLUSTER_MR, "rule: sd between T_l and T_h -> MR");
    is_int(topomap_cluster_scheme(4, uneven), TOPOMAP_CLUSTER_FF, "rule: sd above T_h, few clusters -> FF");
    int *many = malloc(sizeof(int) * 601);
    many[0] = 0;
    for (int c = 0; c < 600; c++)
        many[c + 1] = many[c] + (c % 2 ? 1 : 7); /* sd 3 = 0.75 mean, k = 600 >= T_k */
    is_int(topomap_cluster_scheme(600, many), TOPOMAP_CLUSTER_MR, "rule: sd above T_h, many clusters -> MR");
    free(many);
}

/* Two groups of 4 cliques of 4 on a fat-tree of 2 leaf switches x 4 nodes x
 * 4 cores: the groups (weakly linked inside, not between them) go one per
 * leaf switch, the cliques one per node. */
static void test_hierarchy(void)
{
    enum { NCL = 8, CS = 4 };
    int perm[NCL * CS], r2s[NCL * CS];
    shuffle(perm, NCL * CS, 11);
    int arity[2] = {2, 4}, hops[2] = {4, 2};
    topomap_topology_t *t = topomap_topology_tree(2, arity, hops, CS, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
    topomap_profile_t *p = cliques(NCL, CS, perm, 50, 4);
    for (int fit = 0; fit < 2; fit++) {
        const char *algo = fit ? "spectral-fit" : "spectral";
        int rc = a && p ? topomap_map(algo, p, a, NULL, r2s, err, sizeof err) : -1;
        ok(rc == 0, "%s on a two-level fat-tree %s", algo, err);
        int bad_group = 0;
        for (int c = 0; rc == 0 && c < NCL; c++)
            for (int k = 0; k < CS; k++) {
                int node = topomap_alloc_slot_node(a, r2s[perm[c * CS + k]]);
                int first = topomap_alloc_slot_node(a, r2s[perm[(c / 4) * 4 * CS]]);
                bad_group += node / 4 != first / 4;
            }
        ok(rc == 0 && bad_group == 0, "%s: each group of 4 cliques under one leaf switch", algo);
        ok(rc == 0 && split_cliques(a, r2s, perm, NCL, CS) == 0, "%s: each clique on one node",
           algo);
    }
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* A random sparse profile: each rank talks to deg random others. */
static topomap_profile_t *random_profile(int n, int deg, unsigned seed)
{
    int ne = n * deg;
    int *src = malloc(sizeof(int) * (size_t)ne), *dst = malloc(sizeof(int) * (size_t)ne);
    double *b = malloc(sizeof(double) * (size_t)ne);
    for (int e = 0; e < ne; e++) {
        seed = seed * 1103515245u + 12345u;
        src[e] = e / deg;
        dst[e] = (int)((seed >> 8) % (unsigned)n);
        if (dst[e] == src[e])
            dst[e] = (dst[e] + 1) % n;
        b[e] = 1 + (double)((seed >> 4) % 1000);
    }
    topomap_profile_t *p = topomap_profile_create(n, (size_t)ne, src, dst, b, NULL, err, sizeof err);
    free(src);
    free(dst);
    free(b);
    return p;
}

/* Same mapping for 1, 2 and 4 threads, on Tianhe-3 (chips, sides, nodes),
 * with the dense solver and with ARPACK. */
static void test_threads(void)
{
    topomap_topology_t *t = topomap_topology_tianhe3(2, 2, 8, 16, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
    int n = 500;
    topomap_profile_t *p = random_profile(n, 6, 3);
    ok(a && p, "Tianhe-3 2 x 2 chips x 8 nodes x 16 cores, %d random ranks", n);
    if (!a || !p)
        return;
    int *ref = malloc(sizeof(int) * 2 * (size_t)n), *got = malloc(sizeof(int) * (size_t)n);
    for (int solver = 0; solver < 2; solver++) {
        int saved = topomap_tuning()->cpnsc_dense_max;
        topomap_tuning()->cpnsc_dense_max = solver ? 32 : saved;
        for (int th = 1; th <= 4; th *= 2) {
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.seed = 5;
            o.nthreads = th;
            for (int fit = 0; fit < 2; fit++) {
                const char *algo = fit ? "spectral-fit" : "spectral";
                int *out = th == 1 ? ref + fit * n : got;
                int rc = topomap_map(algo, p, a, &o, out, err, sizeof err);
                ok(rc == 0, "%s, %s, %d thread(s) %s", algo, solver ? "ARPACK" : "dsyevr", th, err);
                if (th > 1)
                    ok(rc == 0 && !memcmp(ref + fit * n, got, sizeof(int) * (size_t)n),
                       "%s, %s: %d threads give the 1-thread mapping", algo,
                       solver ? "ARPACK" : "dsyevr", th);
            }
        }
        topomap_tuning()->cpnsc_dense_max = saved;
    }
    /* Another seed may give another mapping, but always a valid one. */
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.seed = 6;
    ok(topomap_map("spectral-ff", p, a, &o, got, err, sizeof err) == 0 &&
           topomap_map("spectral-mr", p, a, &o, got, err, sizeof err) == 0 &&
           topomap_map("spectral-plain", p, a, &o, got, err, sizeof err) == 0,
       "each forced scheme maps %d ranks", n);
    free(ref);
    free(got);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* spectral-fit on a shuffled path of 4 x 6 ranks over 4 nodes of 6 cores,
 * then 20 ranks (nodes not full): every node holds one stretch of the path,
 * so 3 edges cross nodes, the fewest possible. */
static void test_fit_path(void)
{
    enum { N = 24, CS = 6 };
    int perm[N], src[N - 1], dst[N - 1], r2s[N];
    double b[N - 1];
    int arity[1] = {4}, hops[1] = {2};
    topomap_topology_t *t = topomap_topology_tree(1, arity, hops, CS, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
    for (int n = N; n >= 20; n -= 4) {
        shuffle(perm, n, 3);
        for (int e = 0; e < n - 1; e++) {
            src[e] = perm[e];
            dst[e] = perm[e + 1];
            b[e] = 100;
        }
        topomap_profile_t *p = topomap_profile_create(n, (size_t)n - 1, src, dst, b, NULL, err,
                                                      sizeof err);
        int rc = a && p ? topomap_map("spectral-fit", p, a, NULL, r2s, err, sizeof err) : -1;
        int cut = 0;
        for (int e = 0; rc == 0 && e < n - 1; e++)
            cut += topomap_alloc_slot_node(a, r2s[src[e]]) != topomap_alloc_slot_node(a, r2s[dst[e]]);
        ok(rc == 0 && cut == 3, "spectral-fit: a path of %d ranks on 4 nodes crosses nodes 3 times "
                                "(%d) %s", n, cut, err);
        topomap_profile_free(p);
    }
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* The periodic 8 x 4 x 4 grid (every rank exchanges the same volume with
 * its 6 neighbours, ranks shuffled) on 8 nodes of 16 cores: spectral-fit
 * cuts it into 8 sets of 16 ranks with 128 grid edges between nodes, the
 * least possible. Proof: for 16 vertices S of C8 x C4 x C4, let s_x be
 * those in the slice x (a C4 x C4, which is the 4-cube Q4); S spans at most
 * sum_x h(s_x) + sum_x min(s_x, s_x+1) edges, h(m) the most edges of m
 * vertices of a hypercube (Harper 1964: h(16) = 32); the maximum of that sum
 * over the ways to write 16 as 8 slice sizes is 32 (enumerated: 245,157
 * of them), so every node has at least 6 x 16 - 2 x 32 = 32 edges leaving
 * it, 128 in all; one 4 x 4 plane per node reaches it. The grid's Fiedler
 * vectors come in degenerate pairs (along the 8-cycle). Same mapping for 1,
 * 2 and 4 threads, and with ARPACK on every coarse graph. */
static void test_fit_torus_grid(void)
{
    enum { X = 8, Y = 4, Z = 4, N = X * Y * Z, NE = 3 * N };
    int perm[N], src[NE], dst[NE], r2s[N], ref[N];
    double b[NE];
    shuffle(perm, N, 7);
    int ne = 0;
    for (int x = 0; x < X; x++)
        for (int y = 0; y < Y; y++)
            for (int z = 0; z < Z; z++) {
                int v = (x * Y + y) * Z + z;
                int nb[3] = {(((x + 1) % X) * Y + y) * Z + z, (x * Y + (y + 1) % Y) * Z + z,
                             (x * Y + y) * Z + (z + 1) % Z};
                for (int d = 0; d < 3; d++) {
                    src[ne] = perm[v];
                    dst[ne] = perm[nb[d]];
                    b[ne++] = 1000;
                }
            }
    int arity[1] = {8}, hops[1] = {2};
    topomap_topology_t *t = topomap_topology_tree(1, arity, hops, 16, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
    topomap_profile_t *p = topomap_profile_create(N, NE, src, dst, b, NULL, err, sizeof err);
    for (int solver = 0; solver < 2; solver++) {
        int saved = topomap_tuning()->cpnsc_dense_max;
        topomap_tuning()->cpnsc_dense_max = solver ? 0 : saved;
        for (int th = 1; th <= 4; th *= 2) {
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.nthreads = th;
            int rc = a && p ? topomap_map("spectral-fit", p, a, &o, r2s, err, sizeof err) : -1;
            int cut = 0;
            for (int e = 0; rc == 0 && e < NE; e++)
                cut += topomap_alloc_slot_node(a, r2s[src[e]]) !=
                       topomap_alloc_slot_node(a, r2s[dst[e]]);
            if (th == 1) {
                memcpy(ref, r2s, sizeof ref);
                ok(rc == 0 && cut == 128,
                   "spectral-fit (%s): the periodic 8x4x4 grid on 8 nodes of 16 cuts the least, "
                   "128 edges (%d) %s",
                   solver ? "ARPACK" : "dsyevr", cut, err);
            } else {
                ok(rc == 0 && !memcmp(ref, r2s, sizeof ref),
                   "spectral-fit (%s): %d threads give the 1-thread mapping", solver ? "ARPACK" : "dsyevr",
                   th);
            }
        }
        topomap_tuning()->cpnsc_dense_max = saved;
    }
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* topomap_fit_bisect keeps the weight on the left in the band it is given,
 * exactly: random graphs of 50 to 3000 ranks (coarsened above 128), bands of
 * one point far from the middle and wide ones; a star (a master and its
 * workers, which heavy-edge matching cannot coarsen: two-hop matching). */
static void test_fit_bisect(void)
{
    static const int sizes[] = {50, 700, 3000};
    for (int k = 0; k < 3; k++) {
        for (int star = 0; star < 2; star++) {
            int n = sizes[k];
            topomap_profile_t *p;
            if (star) {
                int *src = malloc(sizeof(int) * (size_t)n), *dst = malloc(sizeof(int) * (size_t)n);
                double *b = malloc(sizeof(double) * (size_t)n);
                for (int i = 1; i < n; i++) {
                    src[i - 1] = 0;
                    dst[i - 1] = i;
                    b[i - 1] = 10 + i % 7;
                }
                p = topomap_profile_create(n, (size_t)n - 1, src, dst, b, NULL, err, sizeof err);
                free(src);
                free(dst);
                free(b);
            } else {
                p = random_profile(n, 4, (unsigned)n);
            }
            int arity[1] = {n}, hops[1] = {2};
            topomap_topology_t *t = topomap_topology_tree(1, arity, hops, 1, NULL, err, sizeof err);
            topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
            struct prob P;
            prob_init(&P, p, a);
            const topomap_graph_t *g = &P.pb.g;
            struct topomap_bgraph B = {n, (int64_t *)g->xadj, (int *)g->adj, (double *)g->w,
                                       malloc(sizeof(double) * (size_t)n),
                                       malloc(sizeof(int) * (size_t)n)};
            for (int i = 0; i < n; i++) {
                B.self[i] = 1;
                B.vw[i] = 1;
            }
            char *side = malloc((size_t)n);
            long bands[3][2] = {{n / 7, n / 7}, {n - n / 3, n - n / 3}, {n / 4, n / 2}};
            int bad = 0;
            for (int j = 0; j < 3; j++) {
                int rc = topomap_fit_bisect(&P.pb, &B, bands[j][0], bands[j][1], bands[j][0], 9, 1,
                                            side, NULL, err, sizeof err);
                long wl = 0;
                for (int i = 0; i < n; i++)
                    wl += !side[i];
                bad += rc != 1 || wl < bands[j][0] || wl > bands[j][1];
            }
            ok(bad == 0, "fit_bisect: %d ranks (%s), the left side within its band in 3 of 3 %s", n,
               star ? "a star" : "random", err);
            free(side);
            free(B.self);
            free(B.vw);
            prob_free(&P);
            topomap_alloc_free(a);
            topomap_topology_free(t);
            topomap_profile_free(p);
        }
    }
}

int main(void)
{
    test_fit_path();
    test_fit_torus_grid();
    test_fit_bisect();
    test_cliques();
    test_schemes();
    test_hierarchy();
    test_threads();
    return done_testing();
}
