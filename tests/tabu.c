/* SPDX-License-Identifier: BSD-3-Clause */
/* Taillard's robust tabu search (libtopomap/refine_tabu.c): against brute
 * force on random small instances (free slots, metric and arbitrary hops);
 * with several slots per node; from the local minima of the exchange
 * descent, which it must leave; the same answer twice; the deadline; and
 * auto's tabu step on a 64-node job (its log line, its answer). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "qap_test.h"
#include "tap.h"

/* Iterations against brute force: 400 left 3 of the 192 above the optimum
 * (tiny instances make most exchanges tabu), 2000 none. */
#define ITERS 2000
#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

static int injective(const int *node, int n, int m)
{
    char seen[512] = {0};
    for (int i = 0; i < n; i++) {
        if (node[i] < 0 || node[i] >= m || seen[node[i]])
            return 0;
        seen[node[i]] = 1;
    }
    return 1;
}

/* Steepest descent over exchanges of two ranks' nodes and moves to a free
 * node, to a local minimum (as the refinement engine stops). */
static void descend(const struct qap *q, int *node)
{
    for (;;) {
        double c = qcost(q, node), best = c;
        int bi = -1, bk = -1;
        for (int i = 0; i < q->n; i++)
            for (int k = 0; k < q->m; k++) {
                int j = -1, old = node[i];
                if (k == old)
                    continue;
                for (int l = 0; l < q->n; l++)
                    if (node[l] == k)
                        j = l;
                node[i] = k;
                if (j >= 0)
                    node[j] = old;
                double x = qcost(q, node);
                node[i] = old;
                if (j >= 0)
                    node[j] = k;
                if (x < best - 1e-9)
                    best = x, bi = i, bk = k;
            }
        if (bi < 0)
            return;
        for (int l = 0; l < q->n; l++)
            if (node[l] == bk)
                node[l] = node[bi];
        node[bi] = bk;
    }
}

static const int one_per_node[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static void test_brute(void)
{
    int bad = 0, invalid = 0, cases = 0, stuck = 0, left = 0;
    double f[64], d[100];
    int node[10];
    for (int n = 3; n <= 8; n++)
        for (int extra = 0; extra <= 1 && n + extra <= 9; extra++)
            for (int metric = 0; metric <= 3; metric++)
                for (int rep = 0; rep < 4; rep++, cases++) {
                    int m = n + extra;
                    random_qap(n, m, metric, f, d);
                    struct qap q = {n, m, f, d, NULL, NULL};
                    double want = 1e300;
                    char used[10] = {0};
                    brute(&q, 0, node, used, &want);
                    for (int i = 0; i < n; i++)
                        node[i] = i;
                    descend(&q, node);
                    double start = qcost(&q, node), cost = start;
                    int at_min = fabs(start - want) <= 1e-9 * (want > 1 ? want : 1);
                    long it = topomap_qap_tabu(&q, one_per_node, node, &cost, ITERS, 0, 7, 0);
                    int reached = fabs(cost - want) <= 1e-9 * (want > 1 ? want : 1);
                    bad += !reached;
                    invalid += it != ITERS || !injective(node, n, m) ||
                               fabs(qcost(&q, node) - cost) > 1e-6 || cost > start;
                    stuck += !at_min;
                    left += !at_min && reached;
                    if (!reached)
                        diag("n %d m %d metric %d rep %d: tabu %.17g, brute force %.17g", n, m,
                             metric, rep, cost, want);
                }
    ok(!bad, "from the descent's local minimum it reaches brute force's optimum on %d random "
             "instances of 3-8 ranks (%d not)", cases, bad);
    ok(stuck > 0 && left == stuck,
       "it leaves every local minimum above the optimum (%d of %d, of %d instances)", left, stuck,
       cases);
    ok(!invalid, "400 iterations made, the placement injective, costing what it says, never "
                 "above the start (%d not)", invalid);
}

/* 8 slots on 4 nodes, 2 each (hops 0 inside a node): the optimum over
 * slots, and no exchange inside a node taken as a free move. */
static void test_shared_nodes(void)
{
    int bad = 0, cases = 0, still = 0;
    static const int group[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    double f[64], d[64], nd[16];
    int node[8];
    for (int n = 5; n <= 8; n++)
        for (int rep = 0; rep < 6; rep++, cases++) {
            random_qap(n, 4, rep % 4, f, nd); /* f for n ranks; hops of 4 nodes */
            for (int k = 0; k < 8; k++)
                for (int l = 0; l < 8; l++)
                    d[k * 8 + l] = nd[group[k] * 4 + group[l]];
            struct qap q = {n, 8, f, d, NULL, NULL};
            double want = 1e300;
            char used[8] = {0};
            brute(&q, 0, node, used, &want);
            for (int i = 0; i < n; i++)
                node[i] = i;
            double cost = qcost(&q, node);
            topomap_qap_tabu(&q, group, node, &cost, 300, 0, 3, 0);
            bad += fabs(cost - want) > 1e-9 * (want > 1 ? want : 1) || !injective(node, n, 8);
        }
    ok(!bad, "two slots per node: brute force's optimum on %d instances (%d not)", cases, bad);
    /* Every slot on one node: nothing to exchange, nothing moves. */
    static const int alone[8] = {0};
    random_qap(8, 8, 0, f, d);
    struct qap q = {8, 8, f, d, NULL, NULL};
    for (int i = 0; i < 8; i++)
        node[i] = i;
    double cost = qcost(&q, node);
    topomap_qap_tabu(&q, alone, node, &cost, 50, 0, 3, 0);
    for (int i = 0; i < 8; i++)
        still += node[i] == i;
    ok(still == 8, "every slot on one node: no exchange made (%d of 8 ranks in place)", still);
}

/* A random dense instance of m slots (hops of a 2D torus), in *q. */
static void big_instance(int n, int m, struct qap *q)
{
    double *f = calloc((size_t)n * n, sizeof *f), *d = malloc(sizeof(double) * (size_t)m * m);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (rnd(8) == 0)
                f[i * n + j] = f[j * n + i] = 1 + rnd(100);
    int side = (int)ceil(sqrt(m));
    for (int k = 0; k < m; k++)
        for (int l = 0; l < m; l++)
            d[k * m + l] = ring(k % side, l % side, side) + ring(k / side, l / side, side);
    *q = (struct qap){n, m, f, d, NULL, NULL};
}

/* The same answer twice; a deadline kept; free slots. */
static void test_repeat_deadline(void)
{
    struct qap q;
    big_instance(100, 120, &q);
    int *a = malloc(sizeof(int) * 100), *b = malloc(sizeof(int) * 100);
    int *group = malloc(sizeof(int) * 120);
    for (int k = 0; k < 120; k++)
        group[k] = k;
    for (int i = 0; i < 100; i++)
        a[i] = b[i] = i;
    double ca = qcost(&q, a), cb = ca, start = ca;
    topomap_qap_tabu(&q, group, a, &ca, 300, 0, 11, 0);
    topomap_qap_tabu(&q, group, b, &cb, 300, 0, 11, 0);
    ok(ca < start && ca == cb && !memcmp(a, b, sizeof(int) * 100),
       "100 ranks on 120 slots: lower (%.6g -> %.6g), the same answer twice", start, ca);
    ok(injective(a, 100, 120), "its placement is injective over the 120 slots");
    free((void *)q.f), free((void *)q.d), free(group);
    free(a), free(b);

    big_instance(400, 400, &q);
    int *node = malloc(sizeof(int) * 400), *g4 = malloc(sizeof(int) * 400);
    for (int k = 0; k < 400; k++)
        node[k] = g4[k] = k;
    double cost = qcost(&q, node), c0 = cost, t0 = topomap_now();
    long it = topomap_qap_tabu(&q, g4, node, &cost, 1000000, 0, 1, t0 + 0.05);
    double took = topomap_now() - t0;
    ok(took < 0.05 * 1.1 + 0.05, "a 50 ms deadline on 400 slots is kept (%.3f s, %ld iterations)",
       took, it);
    ok(it < 1000000 && cost <= c0 && injective(node, 400, 400) &&
           fabs(qcost(&q, node) - cost) <= 1e-9 * cost,
       "it stopped early with a valid placement no worse than the start");
    /* The work cap: an iteration of 400 slots is worth at least 79,800. */
    for (int k = 0; k < 400; k++)
        node[k] = k;
    cost = c0;
    it = topomap_qap_tabu(&q, g4, node, &cost, 1000000, 79800.0 * 10, 1, 0);
    ok(it > 0 && it <= 10, "a work cap of 10 iterations' scans makes at most 10 (%ld)", it);
    free((void *)q.f), free((void *)q.d), free(node), free(g4);
}

static void log_tabu(const char *line, void *arg)
{
    double *ab = arg;
    if (sscanf(line, "auto: tabu search %lf -> %lf kept", &ab[0], &ab[1]) == 2)
        ab[2] = 1;
}

/* auto's step: a random 64-rank profile on the 8 x 8 plane of the 8^3
 * torus, where the tabu search improves on the iterated local search; the
 * answer is the step's, its busiest link not above block's. */
static void test_auto_step(void)
{
    topomap_topology_t *t = topology_text("name: t8\nnetwork:\n  kind: torus\n"
                                          "  dims: [8, 8, 8]\n");
    topomap_profile_t *p = random_profile(64, 4);
    topomap_alloc_t *a =
        t ? topomap_alloc_create(t, "node[000-063]", "1(x64)", err, sizeof err) : NULL;
    ok(a != NULL, "the 8 x 8 plane of the 8^3 torus: %s", a ? "" : err);
    if (!a || !p)
        return;
    double ab[3] = {0, 0, 0};
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.log = log_tabu;
    o.log_arg = ab;
    int r2s[64];
    int rc = topomap_map("auto", p, a, &o, r2s, err, sizeof err);
    double hb = hop_bytes(p, a, r2s);
    ok(rc == 0 && ab[2] == 1 && ab[1] < ab[0],
       "auto's tabu step lowers the hop-bytes of the iterated local search (%.6g -> %.6g)", ab[0],
       ab[1]);
    ok(fabs(hb - ab[1]) <= 1e-6 * hb, "and auto's answer is its mapping (%.6g)", hb);
    int blk[64];
    topomap_map("block", p, a, &o, blk, err, sizeof err);
    topomap_metrics_t ma = TOPOMAP_METRICS_INIT, mb = TOPOMAP_METRICS_INIT;
    topomap_eval_slots(p, a, r2s, &ma);
    topomap_eval_slots(p, a, blk, &mb);
    ok(ma.congestion_max <= mb.congestion_max,
       "its busiest link is not above block's (%.6g, block %.6g): the guard", ma.congestion_max,
       mb.congestion_max);
    topomap_alloc_free(a), topomap_profile_free(p), topomap_topology_free(t);
}

int main(void)
{
    test_brute();
    test_shared_nodes();
    test_repeat_deadline();
    test_auto_step();
    return done_testing();
}
