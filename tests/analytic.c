/* SPDX-License-Identifier: BSD-3-Clause */
/* The analytical torus/mesh mapping (Wu et al. 2016): the box it
 * places into, legalization on its own (capacities, moves between
 * neighbours, hop-bytes kept right), optimal placements of stencils on
 * matching machines, several slots per node, partial allocations, errors and
 * thread independence. Placements are judged by an independent hop-byte
 * evaluation (synth.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "problem.h"
#include "synth.h"
#include "tap.h"

static const char *variants[] = {"analytic", "analytic-bft", "analytic-anchor"};

/* ---- the box ------------------------------------------------------------------ */

static void test_box(void)
{
    /* Nodes at x = 6, 7, 0, 1 of a ring of 8 (y = 2, 3 of a 4-node mesh line):
     * the box starts after the gap, at x = 6, 4 x 2 bins, no wrap link. */
    int dims[] = {8, 4}, wrap[] = {1, 0};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 1, NULL, err, sizeof err);
    topomap_alloc_t *a =
        topomap_alloc_create(t, "node[22-23,16-17,30-31,24-25]", NULL, err, sizeof err);
    topomap_profile_t *p = stencil(4, 2, 1, 0, 0);
    struct prob P;
    prob_init(&P, p, a);
    struct an_box B;
    int rc = topomap_an_box_init(&B, &P.pb, 0, err, sizeof err);
    ok(rc == 0 && B.nd == 2 && B.len[0] == 4 && B.len[1] == 2 && B.start[0] == 6 &&
           B.start[1] == 2 && !B.wrap[0] && B.ring[0] == 8 && B.nbins == 8 && B.m == 8,
       "box across the wrap: 4 x 2 bins from x = 6 (got %d x %d from %d, %d nodes)", B.len[0],
       B.len[1], B.start[0], B.m);
    int allin = 1;
    for (int b = 0; b < B.nbins; b++)
        allin &= B.bin_node[b] >= 0 && B.node_bin[B.bin_node[b]] == b;
    ok(rc == 0 && allin, "every bin holds its node and back");
    /* Hops between the two ends of the box go the short way (8 - 3 = 5 > 3). */
    ok(rc == 0 && an_hops(&B, 0, 3) == 3 && an_hops(&B, 0, 7) == 4, "hops inside the box");
    topomap_an_box_free(&B);
    /* Shrinking: 8 nodes needed of the whole 8 x 4 machine. */
    topomap_alloc_t *all = prob_all_nodes(t, NULL, err, sizeof err);
    struct prob Q;
    prob_init(&Q, p, all);
    rc = topomap_an_box_init(&B, &Q.pb, 8, err, sizeof err);
    ok(rc == 0 && B.nbins >= 8 && B.nbins <= 9 && B.m == B.nbins,
       "shrunk to a compact sub-box of 8 nodes (%d bins: %d x %d)", B.nbins, B.len[0], B.len[1]);
    topomap_an_box_free(&B);
    prob_free(&Q);
    prob_free(&P);
    topomap_alloc_free(all);
    topomap_alloc_free(a);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* ---- legalization --------------------------------------------------------------- */

static struct {
    const struct an_box *B;
    int moves, far;
} mv;

static void trace(int v, int a, int b)
{
    (void)v;
    mv.moves++;
    int nb[2 * AN_MAXD], d = topomap_an_neighbours(mv.B, a, 1, nb), adj = 0;
    for (int i = 0; i < d; i++)
        adj |= nb[i] == b;
    mv.far += !adj;
}

/* Random almost-legal inputs (at most 4 groups a bin) on a box with holes. */
static void test_legalize(void)
{
    int dims[] = {6, 5, 4}, wrap[] = {1, 1, 0};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 1, NULL, err, sizeof err);
    int nn = topomap_topology_nnodes(t);
    for (int c = 0; c < 6; c++) {
        /* Every node, or about 3 in 4 of them (scattered). */
        const char **names = malloc(sizeof(char *) * (size_t)nn);
        int m = 0;
        for (int i = 0; i < nn; i++)
            if (c < 2 || rnd(4))
                names[m++] = topomap_topology_node_name(t, i);
        char *hl = topomap_hostlist_compress(names, (size_t)m);
        topomap_alloc_t *a = topomap_alloc_create(t, hl, NULL, err, sizeof err);
        int n = m - (c % 2) * (m / 3); /* some cases: fewer groups than nodes */
        topomap_profile_t *p = random_profile(n, 4);
        struct prob P;
        prob_init(&P, p, a);
        struct an_box B;
        topomap_an_box_init(&B, &P.pb, 0, err, sizeof err);
        int *vbin = malloc(sizeof(int) * (size_t)n), *load = calloc((size_t)B.nbins, sizeof(int));
        for (int v = 0; v < n; v++) {
            int b;
            do
                b = rnd(B.nbins);
            while (load[b] >= 4);
            load[b]++;
            vbin[v] = b;
        }
        memset(&mv, 0, sizeof mv);
        mv.B = &B;
        topomap_tuning()->an_move_trace = trace;
        struct an_legal_stats st;
        int rc = topomap_an_legalize(&P.pb, &P.pb.g, &B, vbin, &st, err, sizeof err);
        topomap_tuning()->an_move_trace = NULL;
        memset(load, 0, sizeof(int) * (size_t)B.nbins);
        int bad = 0;
        for (int v = 0; v < n; v++)
            load[vbin[v]]++;
        for (int b = 0; b < B.nbins; b++)
            bad += load[b] > (B.bin_node[b] >= 0);
        double hb = 0;
        for (int v = 0; v < n; v++)
            for (int64_t e = P.pb.g.xadj[v]; e < P.pb.g.xadj[v + 1]; e++)
                if (P.pb.g.adj[e] > v)
                    hb += P.pb.g.w[e] *
                          topomap_topology_hops(t, P.sn[B.node_of[B.bin_node[vbin[v]]]],
                                                P.sn[B.node_of[B.bin_node[vbin[P.pb.g.adj[e]]]]]);
        ok(rc == 0 && bad == 0 && st.fallback == 0,
           "case %d (%d groups, %d nodes, %d bins): legal, capacities respected, no safety net "
           "(%d rounds, %ld moves)",
           c, n, m, B.nbins, st.rounds, st.moves);
        ok(mv.moves == st.moves && mv.far == 0, "case %d: every move between neighbouring nodes",
           c);
        ok(rc == 0 && hb == st.hop_bytes, "case %d: hop-bytes kept up to date (%.6g, recomputed %.6g)",
           c, st.hop_bytes, hb);
        topomap_an_box_free(&B);
        free(vbin);
        free(load);
        prob_free(&P);
        topomap_profile_free(p);
        topomap_alloc_free(a);
        free(hl);
        free(names);
    }
    topomap_topology_free(t);
}

/* ---- placements ------------------------------------------------------------------ */

/* A shuffled open stencil x*y*z on allocation a: the optimum puts every edge
 * on one hop (hop-bytes = the stencil's bytes). exact: require it; else
 * require at most slack x the optimum (the fixed processes of the paper's
 * RCM heuristic can be badly placed on small symmetric grids:
 * doc/algorithms.md#analytic). */
static void stencil_case(const char *algo, const char *what, int x, int y, int z, int shuffle,
                         const topomap_alloc_t *a, int exact, double slack)
{
    topomap_profile_t *p = stencil(x, y, z, 0, shuffle);
    int n = topomap_profile_nranks(p), *r2s = malloc(sizeof(int) * (size_t)n);
    int rc = topomap_map(algo, p, a, NULL, r2s, err, sizeof err);
    double hb = rc == 0 ? hop_bytes(p, a, r2s) : -1, total = 0;
    topomap_graph_t g;
    topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g);
    for (int64_t e = 0; e < g.xadj[g.n]; e++)
        total += g.w[e];
    if (exact)
        ok(rc == 0 && hb == total, "%s: %s %dx%dx%d stencil on %s: every edge one hop "
                                   "(hop-bytes %.6g, bytes %.6g) %s",
           algo, shuffle ? "shuffled" : "in-order", x, y, z, what, hb, total, rc ? err : "");
    else
        ok(rc == 0 && hb >= total && hb <= slack * total,
           "%s: %s %dx%dx%d stencil on %s: within %.2f x the optimum (%.3f) %s", algo,
           shuffle ? "shuffled" : "in-order", x, y, z, what, slack, hb / total, rc ? err : "");
    free(r2s);
    topomap_profile_free(p);
}

static void test_optimal(void)
{
    int d4[] = {4, 4, 4}, d8[] = {8, 8, 8}, no[] = {0, 0, 0}, yes[] = {1, 1, 1};
    topomap_topology_t *mesh = topomap_topology_torus(3, d4, no, 1, NULL, err, sizeof err);
    topomap_topology_t *torus = topomap_topology_torus(3, d8, yes, 1, NULL, err, sizeof err);
    topomap_alloc_t *am = prob_all_nodes(mesh, NULL, err, sizeof err), *at = prob_all_nodes(torus, NULL, err, sizeof err);
    /* The matching torus and mesh. In rank order (RCM then orders the grid
     * like the machine, so the fixed processes sit at the right corners) the
     * anchored variant finds the optimum on both, the paper's forces on the
     * mesh only: on the torus they stop at bin loads of 4 and legalization
     * moves processes away from their neighbours (doc/algorithms.md#analytic).
     * Shuffled, the fixed processes can be at the wrong corners. */
    for (int i = 0; i < 3; i++) {
        stencil_case(variants[i], "the 8x8x8 torus", 8, 8, 8, 0, at, i == 2, 1.6);
        stencil_case(variants[i], "the 4x4x4 mesh", 4, 4, 4, 0, am, 1, 1);
        stencil_case(variants[i], "the 8x8x8 torus", 8, 8, 8, 1, at, 0, i == 1 ? 2.4 : 1.8);
        stencil_case(variants[i], "the 4x4x4 mesh", 4, 4, 4, 1, am, 0, 1.8);
    }
    topomap_alloc_free(am);
    topomap_alloc_free(at);
    topomap_topology_free(mesh);
    topomap_topology_free(torus);
}

/* Several slots per node, partial and scattered allocations: valid, better
 * than block, same answer for 1, 2 and 4 threads. */
static void test_slots(void)
{
    int dims[] = {8, 4, 4}, wrap[] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    /* Whole machine; half of it, 3 slots a node; 43 scattered nodes of
     * mixed slot counts. */
    const char *allocs[] = {"node[000-127]", "node[000-063]",
                            "node[000,003,006,009,012,015,018,021,024,027,030,033,036,039,042,"
                            "045,048,051,054,057,060,063,066,069,072,075,078,081,084,087,090,"
                            "093,096,099,102,105,108,111,114,117,120,123,126]"};
    const char *slots[] = {NULL, "3(x64)", "4,2(x10),1(x2),4(x30)"};
    for (int c = 0; c < 3; c++) {
        topomap_alloc_t *a = topomap_alloc_create(t, allocs[c], slots[c], err, sizeof err);
        if (!a) {
            ok(0, "alloc %s: %s", allocs[c], err);
            continue;
        }
        int ns = topomap_alloc_nslots(a);
        topomap_profile_t *p = c == 0 ? stencil(16, 8, 4, 1, 1) : random_profile(ns - 3, 5);
        int n = topomap_profile_nranks(p);
        int *r2s = malloc(sizeof(int) * (size_t)n), *r2 = malloc(sizeof(int) * (size_t)n);
        int *blk = malloc(sizeof(int) * (size_t)n);
        for (int v = 0; v < 3; v += 2) {
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.nthreads = 1;
            int rc = topomap_map(variants[v], p, a, &o, r2s, err, sizeof err);
            topomap_map("block", p, a, NULL, blk, err, sizeof err);
            double hb = rc == 0 ? hop_bytes(p, a, r2s) : -1, hbb = hop_bytes(p, a, blk);
            ok(rc == 0 && valid(r2s, n, ns) && hb < hbb,
               "%s, allocation %d (%d ranks, %d slots): valid, below block (%.4g vs %.4g) %s",
               variants[v], c, n, ns, hb, hbb, rc ? err : "");
            int same = 1;
            for (int th = 2; th <= 4; th += 2) {
                o.nthreads = th;
                rc = topomap_map(variants[v], p, a, &o, r2, err, sizeof err);
                same &= rc == 0 && !memcmp(r2, r2s, sizeof(int) * (size_t)n);
            }
            ok(same, "%s, allocation %d: same mapping with 1, 2 and 4 threads", variants[v], c);
        }
        free(r2s);
        free(r2);
        free(blk);
        topomap_profile_free(p);
        topomap_alloc_free(a);
    }
    topomap_topology_free(t);
}

static void test_errors(void)
{
    int arity[] = {2, 4}, hops[] = {4, 2};
    topomap_topology_t *t = topomap_topology_tree(2, arity, hops, 2, NULL, err, sizeof err);
    topomap_alloc_t *a = prob_all_nodes(t, NULL, err, sizeof err);
    topomap_profile_t *p = random_profile(12, 3);
    int r2s[12];
    errno = 0;
    int rc = topomap_map("analytic", p, a, NULL, r2s, err, sizeof err);
    ok(rc < 0 && errno == ENOTSUP && strstr(err, "torus or mesh"),
       "analytic on a fat-tree: ENOTSUP (does not apply), one clear line (%s)", err);
    rc = topomap_map("auto", p, a, NULL, r2s, err, sizeof err);
    ok(rc == 0 && valid(r2s, 12, topomap_alloc_nslots(a)), "auto on a fat-tree skips analytic");
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    test_box();
    test_legalize();
    test_optimal();
    test_slots();
    test_errors();
    return done_testing();
}
