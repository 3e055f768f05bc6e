/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-reorder without MPI (reorder/reorder_plan.c): the
 * graphs of Cartesian, adjacency-list and edge arguments, the mapping decision
 * over the slots the processes hold, and finding the topology. */
#include "reorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* Weight of edge s -> d (0: none). */
static double wt(const tr_graph_t *g, int s, int d)
{
    for (size_t k = 0; k < g->nedges; k++)
        if (g->src[k] == s && g->dst[k] == d)
            return g->w[k];
    return 0;
}

static double total(const tr_graph_t *g)
{
    double t = 0;
    for (size_t k = 0; k < g->nedges; k++)
        t += g->w[k];
    return t;
}

static int sorted_unique(const tr_graph_t *g)
{
    for (size_t k = 1; k < g->nedges; k++)
        if (g->src[k] < g->src[k - 1] ||
            (g->src[k] == g->src[k - 1] && g->dst[k] <= g->dst[k - 1]))
            return 0;
    return 1;
}

static void cart(void)
{
    tr_graph_t g;
    int d4[] = {4}, p0[] = {0}, p1[] = {1};
    ok(tr_graph_cart(1, d4, p0, 64, &g) == 0 && g.n == 4 && g.nedges == 6 && total(&g) == 6,
       "1-D chain of 4: 6 edges of weight 1");
    ok(wt(&g, 0, 1) == 1 && wt(&g, 0, 3) == 0 && wt(&g, 3, 2) == 1, "chain: no wrap-around");
    tr_graph_free(&g);
    ok(tr_graph_cart(1, d4, p1, 64, &g) == 0 && g.nedges == 8 && wt(&g, 0, 3) == 1 &&
           wt(&g, 3, 0) == 1 && sorted_unique(&g),
       "1-D ring of 4: 8 edges, 0 <-> 3 wrap");
    tr_graph_free(&g);
    int d2[] = {2};
    ok(tr_graph_cart(1, d2, p1, 64, &g) == 0 && g.nedges == 2 && wt(&g, 0, 1) == 2 &&
           wt(&g, 1, 0) == 2,
       "periodic dimension of 2: both directions merged into weight 2");
    tr_graph_free(&g);
    ok(tr_graph_cart(1, d2, p0, 64, &g) == 0 && g.nedges == 2 && wt(&g, 0, 1) == 1,
       "non-periodic dimension of 2: weight 1");
    tr_graph_free(&g);
    int d1[] = {1};
    ok(tr_graph_cart(1, d1, p1, 64, &g) == 0 && g.n == 1 && g.nedges == 1 && wt(&g, 0, 0) == 2,
       "periodic dimension of 1: a self loop of weight 2");
    tr_graph_free(&g);
    ok(tr_graph_cart(1, d1, p0, 64, &g) == 0 && g.n == 1 && g.nedges == 0,
       "non-periodic dimension of 1: no edges");
    tr_graph_free(&g);
    /* 2 x 3, rows fixed, columns periodic: v = 3 x + y. */
    int d23[] = {2, 3}, p01[] = {0, 1};
    ok(tr_graph_cart(2, d23, p01, 64, &g) == 0 && g.n == 6 && g.nedges == 18 &&
           wt(&g, 0, 3) == 1 && wt(&g, 0, 1) == 1 && wt(&g, 0, 2) == 1 && wt(&g, 0, 4) == 0 &&
           wt(&g, 5, 3) == 1 && wt(&g, 5, 2) == 1,
       "2-D 2x3 periods {0,1}: row-major, last dimension fastest");
    tr_graph_free(&g);
    int d222[] = {2, 2, 2}, p111[] = {1, 1, 1};
    ok(tr_graph_cart(3, d222, p111, 64, &g) == 0 && g.n == 8 && g.nedges == 24 &&
           total(&g) == 48 && wt(&g, 0, 4) == 2 && wt(&g, 0, 2) == 2 && wt(&g, 0, 1) == 2,
       "3-D 2x2x2 periodic: 3 neighbours each, weight 2");
    tr_graph_free(&g);
    int d345[] = {3, 4, 5}, p010[] = {0, 1, 0};
    ok(tr_graph_cart(3, d345, p010, 60, &g) == 0 && g.n == 60 &&
           g.nedges == (size_t)(2 * 2 * 20 + 4 * 2 * 15 + 4 * 2 * 12) && sorted_unique(&g),
       "3-D 3x4x5: edge count of each dimension");
    tr_graph_free(&g);
    ok(tr_graph_cart(0, NULL, NULL, 4, &g) == 0 && g.n == 1 && g.nedges == 0,
       "0 dimensions: one vertex");
    tr_graph_free(&g);
    int dz[] = {2, 0};
    errno = 0;
    ok(tr_graph_cart(2, dz, p01, 64, &g) < 0 && errno == EINVAL, "a dimension of 0: EINVAL");
    errno = 0;
    ok(tr_graph_cart(1, d4, p0, 3, &g) < 0 && errno == EINVAL, "more vertices than ranks: EINVAL");
    errno = 0;
    ok(tr_graph_cart(-1, d4, p0, 3, &g) < 0 && errno == EINVAL, "negative ndims: EINVAL");
}

static void lists(void)
{
    tr_graph_t g;
    /* 0 -> 1 (5), 2 (7); 1 -> nothing; 2 -> 2 (1), 0 (2), 0 (3). */
    int off[] = {0, 2, 2, 5}, dst[] = {1, 2, 2, 0, 0}, w[] = {5, 7, 1, 2, 3};
    ok(tr_graph_lists(3, off, dst, w, NULL, &g) == 0 && g.nedges == 4 && wt(&g, 0, 1) == 5 &&
           wt(&g, 0, 2) == 7 && wt(&g, 2, 2) == 1 && wt(&g, 2, 0) == 5 && sorted_unique(&g),
       "weights kept, duplicates summed, self loop kept, empty neighbourhood");
    tr_graph_free(&g);
    int unw[] = {1, 0, 0};
    ok(tr_graph_lists(3, off, dst, w, unw, &g) == 0 && wt(&g, 0, 1) == 1 && wt(&g, 0, 2) == 1 &&
           wt(&g, 2, 0) == 5,
       "MPI_UNWEIGHTED vertex: weight 1");
    tr_graph_free(&g);
    ok(tr_graph_lists(3, off, dst, NULL, NULL, &g) == 0 && wt(&g, 2, 0) == 2 && total(&g) == 5,
       "no weights at all: 1 per declared edge");
    tr_graph_free(&g);
    int off0[] = {0, 0, 0};
    ok(tr_graph_lists(2, off0, dst, w, NULL, &g) == 0 && g.n == 2 && g.nedges == 0,
       "every neighbourhood empty");
    tr_graph_free(&g);
    int zero[] = {0, 0, 0, 0, 0};
    ok(tr_graph_lists(3, off, dst, zero, NULL, &g) == 0 && g.nedges == 4 && total(&g) == 0,
       "weights of 0 kept");
    tr_graph_free(&g);
    int bad[] = {1, 3, 2, 0, 0};
    errno = 0;
    ok(tr_graph_lists(3, off, bad, w, NULL, &g) < 0 && errno == EINVAL,
       "destination out of range: EINVAL");
    int neg[] = {5, -1, 1, 2, 3};
    errno = 0;
    ok(tr_graph_lists(3, off, dst, neg, NULL, &g) < 0 && errno == EINVAL,
       "negative weight: EINVAL");
    int offbad[] = {0, 2, 1, 5};
    errno = 0;
    ok(tr_graph_lists(3, offbad, dst, w, NULL, &g) < 0 && errno == EINVAL,
       "decreasing offsets: EINVAL");
}

static void edges(void)
{
    tr_graph_t g;
    int s[] = {2, 0, 2, 1, 1}, d[] = {0, 1, 0, 1, 2}, w[] = {3, 4, 5, 6, 0};
    ok(tr_graph_edges(3, 5, s, d, w, &g) == 0 && g.nedges == 4 && wt(&g, 2, 0) == 8 &&
           wt(&g, 1, 1) == 6 && wt(&g, 0, 1) == 4 && sorted_unique(&g),
       "edge triples: sorted, duplicates summed, self loop kept");
    tr_graph_free(&g);
    ok(tr_graph_edges(3, 5, s, d, NULL, &g) == 0 && wt(&g, 2, 0) == 2 && total(&g) == 5,
       "edge triples unweighted: 1 each");
    tr_graph_free(&g);
    ok(tr_graph_edges(4, 0, NULL, NULL, NULL, &g) == 0 && g.n == 4 && g.nedges == 0,
       "no edges at all");
    tr_graph_free(&g);
    int bad[] = {2, 0, 3, 1, 1};
    errno = 0;
    ok(tr_graph_edges(3, 5, bad, d, w, &g) < 0 && errno == EINVAL, "source out of range: EINVAL");
    int neg[] = {3, 4, -5, 6, 0};
    errno = 0;
    ok(tr_graph_edges(3, 5, s, d, neg, &g) < 0 && errno == EINVAL, "negative weight: EINVAL");
}

/* Hop-bytes of vertex v on process p with newrank[p] = v, slots computed here
 * independently: hosts in first-appearance order, processes by rank. */
static double placed_hb(const tr_graph_t *g, int n, const char *const *host,
                        const topomap_topology_t *t, const int *newrank)
{
    int *node = calloc((size_t)n, sizeof *node), *core = calloc((size_t)n, sizeof *core);
    for (int i = 0; i < n; i++) {
        int k = 0;
        for (int j = 0; j < i; j++)
            k += !strcmp(host[j], host[i]);
        if (newrank[i] < g->n) {
            node[newrank[i]] = topomap_topology_node_lookup(t, host[i]);
            core[newrank[i]] = k % topomap_topology_node_cores(t, node[newrank[i]]);
        }
    }
    topomap_profile_t *p =
        topomap_profile_create(g->n, g->nedges, g->src, g->dst, g->w, NULL, NULL, 0);
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    topomap_eval(p, t, node, core, &m);
    topomap_profile_free(p);
    free(node);
    free(core);
    return m.hop_bytes;
}

static int is_perm(const int *a, int n)
{
    int seen[64] = {0};
    for (int i = 0; i < n; i++) {
        if (a[i] < 0 || a[i] >= n || seen[a[i]])
            return 0;
        seen[a[i]] = 1;
    }
    return 1;
}

static void decide(void)
{
    char err[256] = "";
    setenv("TOPOMAP_TOPOLOGY_PATH", SRCDIR "/../topologies", 1);
    topomap_topology_t *t = tr_topology_find("local-4node", NULL, err, sizeof err);
    ok(t && topomap_topology_nnodes(t) == 4, "shipped name found on TOPOMAP_TOPOLOGY_PATH");
    errno = 0;
    ok(!tr_topology_find("no-such-machine", NULL, err, sizeof err) && errno == ENOENT,
       "unknown topology name: NULL, ENOENT");
    like(err, "no-such-machine", "the message names it");
    if (!t)
        return;
    topomap_topology_t *t2 =
        tr_topology_find(SRCDIR "/../topologies/local-4node.yaml", "/nonexistent", err, 256);
    ok(t2 != NULL, "a path is loaded as it is");
    topomap_topology_free(t2);

    const char *cyc[] = {"n1", "n2", "n3", "n4", "n1", "n2", "n3", "n4"};
    int d[] = {8}, per[] = {1}, nr[8];
    double hb[2];
    tr_graph_t g;
    tr_graph_cart(1, d, per, 8, &g);
    int rc = tr_decide(&g, 8, cyc, NULL, t, 0, nr, hb, err, sizeof err);
    ok(rc == 1 && is_perm(nr, 8), "ring on cyclic hosts: reordered, a permutation");
    ok(hb[1] < hb[0], "hop-bytes go down (%g -> %g)", hb[0], hb[1]);
    is_double(placed_hb(&g, 8, cyc, t, nr), hb[1], 1e-9, "hop-bytes of the placement it implies");
    int id[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    is_double(placed_hb(&g, 8, cyc, t, id), hb[0], 1e-9, "hop-bytes before: the identity");
    int nr2[8];
    double hb2[2];
    tr_decide(&g, 8, cyc, NULL, t, 0, nr2, hb2, err, sizeof err);
    ok(!memcmp(nr, nr2, sizeof nr), "deterministic");

    const char *blk[] = {"n1", "n1", "n2", "n2", "n4", "n4", "n3", "n3"};
    int d8[] = {8}, p0[] = {0};
    tr_graph_t chain;
    tr_graph_cart(1, d8, p0, 8, &chain);
    rc = tr_decide(&chain, 8, blk, NULL, t, 0, nr, hb, err, sizeof err);
    ok(rc == 0 && !memcmp(nr, id, sizeof id) && hb[0] == hb[1],
       "chain already on a path of nodes: identity kept");
    like(err, "no gain", "saying why");
    tr_graph_free(&chain);

    int d23[] = {2, 3}, p00[] = {0, 0};
    tr_graph_t small;
    tr_graph_cart(2, d23, p00, 8, &small);
    rc = tr_decide(&small, 8, cyc, NULL, t, 0, nr, hb, err, sizeof err);
    ok(rc >= 0 && is_perm(nr, 8), "6 vertices on 8 processes: a permutation of 8");
    is_double(placed_hb(&small, 8, cyc, t, nr), hb[1], 1e-9, "its hop-bytes");
    tr_graph_free(&small);

    /* Processes of a host take its slots in order of their CPU. */
    const char *two[] = {"n1", "n1", "n4", "n4"};
    int cpu[] = {3, 1, -1, -1};
    int dd[] = {4};
    tr_graph_t c4;
    tr_graph_cart(1, dd, p0, 4, &c4);
    rc = tr_decide(&c4, 4, two, cpu, t, 0, nr, hb, err, sizeof err);
    ok(rc >= 0 && is_perm(nr, 4), "CPUs given: a permutation");
    tr_graph_free(&c4);

    const char *unk[] = {"n1", "n2", "zz9", "n4", "n1", "n2", "n3", "n4"};
    errno = 0;
    ok(tr_decide(&g, 8, unk, NULL, t, 0, nr, hb, err, sizeof err) < 0 && errno == EINVAL,
       "unknown host: -1, EINVAL");
    like(err, "zz9", "the message names the host");
    errno = 0;
    ok(tr_decide(&g, 4, cyc, NULL, t, 0, nr, hb, err, sizeof err) < 0 && errno == EINVAL,
       "more vertices than processes: EINVAL");
    tr_graph_free(&g);
    topomap_topology_free(t);
}

int main(void)
{
    cart();
    lists();
    edges();
    decide();
    return done_testing();
}
