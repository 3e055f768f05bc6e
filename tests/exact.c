/* SPDX-License-Identifier: BSD-3-Clause */
/* exact (libtopomap/map_exact.c) and the Gilmore-Lawler bound
 * (libtopomap/bound_glb.c, lap.c): the branch-and-bound against brute force
 * over every placement on random small instances (with and without free
 * nodes, metric and arbitrary hops); the bound below every placement, the
 * linear assignment against brute force; the bound tight where it is known
 * to be (a ring on a ring); the whole-job bound of the public API below
 * random placements, with several ranks per node; auto's exact step; the
 * deadline on 24 ranks; the refusals. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "qap_test.h"
#include "tap.h"

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

static void test_brute(void)
{
    int bad = 0, unproven = 0, above = 0, invalid = 0, cases = 0;
    double f[64], d[100];
    int node[10];
    for (int n = 1; n <= 8; n++)
        for (int extra = 0; extra <= 1 && n + extra <= 9; extra++)
            for (int metric = 0; metric <= 3; metric++)
                for (int rep = 0; rep < (n <= 6 ? 6 : 2); rep++) {
                    int m = n + extra;
                    random_qap(n, m, metric, f, d);
                    struct qap q = {n, m, f, d, NULL, NULL};
                    double want = 1e300, cost = -1, bound = 0;
                    char used[10] = {0};
                    brute(&q, 0, node, used, &want);
                    /* No start: the search alone finds the optimum. */
                    int rc = topomap_qap_solve(&q, 0, 0, node, &cost, &bound, NULL);
                    cases++;
                    unproven += rc != 1;
                    bad += fabs(cost - want) > 1e-9 * (want > 1 ? want : 1);
                    above += bound > want * (1 + 1e-12) + 1e-9;
                    char seen[10] = {0};
                    for (int i = 0; i < n; i++) {
                        invalid += node[i] < 0 || node[i] >= m || seen[node[i]];
                        if (node[i] >= 0 && node[i] < m)
                            seen[node[i]] = 1;
                    }
                    invalid += fabs(qcost(&q, node) - cost) > 1e-6;
                    if (fabs(cost - want) > 1e-9 * (want > 1 ? want : 1))
                        diag("n %d m %d metric %d rep %d: exact %.17g, brute force %.17g", n, m,
                             metric, rep, cost, want);
                }
    ok(!unproven, "the search proves optimality on %d random instances of 1-8 ranks (%d not)",
       cases, unproven);
    ok(!bad, "its cost is brute force's on every one (%d differ)", bad);
    ok(!invalid, "its placement is injective and costs what it says (%d not)", invalid);
    ok(!above, "the root Gilmore-Lawler bound is never above the optimum (%d above)", above);
}

/* The linear assignment against every permutation (n <= 7), rectangular too,
 * and its dual: u + v <= c, v <= 0, sum = optimum. */
static void perm_min(const double *c, int nr, int nc, int i, char *used, double sum, double *best)
{
    if (i == nr) {
        if (sum < *best)
            *best = sum;
        return;
    }
    for (int k = 0; k < nc; k++)
        if (!used[k]) {
            used[k] = 1;
            perm_min(c, nr, nc, i + 1, used, sum + c[i * nc + k], best);
            used[k] = 0;
        }
}

static void test_lap(void)
{
    int bad = 0, dual = 0, cases = 0;
    double c[64], u[8], v[8];
    int col[8];
    for (int nr = 1; nr <= 7; nr++)
        for (int nc = nr; nc <= 8 && nc <= nr + 2; nc++)
            for (int rep = 0; rep < 10; rep++) {
                for (int e = 0; e < nr * nc; e++)
                    c[e] = rnd(rep < 5 ? 10 : 100000);
                double best = 1e300;
                char used[8] = {0};
                perm_min(c, nr, nc, 0, used, 0, &best);
                double got = topomap_lap(nr, nc, c, col, u, v), s = 0, dsum = 0;
                char seen[8] = {0};
                for (int r = 0; r < nr; r++) {
                    s += c[r * nc + col[r]];
                    bad += seen[col[r]]++ != 0;
                    dsum += u[r];
                }
                for (int k = 0; k < nc; k++) {
                    dual += v[k] > 1e-9;
                    dsum += v[k];
                    for (int r = 0; r < nr; r++)
                        dual += u[r] + v[k] > c[r * nc + k] + 1e-6;
                }
                cases++;
                bad += fabs(got - best) > 1e-6 || fabs(s - best) > 1e-6;
                dual += fabs(dsum - best) > 1e-6;
            }
    ok(!bad, "the linear assignment is brute force's on %d matrices (%d differ)", cases, bad);
    ok(!dual, "its dual is feasible, v <= 0, and sums to the optimum (%d violations)", dual);
}

static const char torus_yaml[] = "name: t8\nnetwork:\n  kind: torus\n  dims: [8, 8, 8]\n"
                                 "  wrap: [true, true, true]\nnodes: \"t[000-511]\"\n"
                                 "node:\n  cores: 4\n";

/* A ring of 8 ranks, w bytes each way between neighbours, on the first 8
 * nodes of an 8^3 torus (a ring of 8): every rank's two partners can be 1
 * hop away, so the bound is the identity's hop-bytes, 8 pairs x 2 w. */
static void test_tight(const topomap_topology_t *t)
{
    int src[16], dst[16];
    double b[16];
    for (int i = 0; i < 8; i++) {
        src[2 * i] = i, dst[2 * i] = (i + 1) % 8, b[2 * i] = 1000;
        src[2 * i + 1] = (i + 1) % 8, dst[2 * i + 1] = i, b[2 * i + 1] = 1000;
    }
    topomap_profile_t *p = topomap_profile_create(8, 16, src, dst, b, NULL, err, sizeof err);
    int node[8];
    for (int i = 0; i < 8; i++)
        node[i] = (i * 3) % 8; /* any placement on those nodes: the bound is the nodes' */
    double bound = -1;
    ok(p && topomap_hop_bytes_bound(p, t, node, &bound) == 0, "bound of a ring on a ring");
    is_double(bound, 16000, 1e-9, "it is tight: the identity's 8 x 2 x 1000 hop-bytes");
    topomap_alloc_t *a = topomap_alloc_create(t, "t[000-007]", "1(x8)", err, sizeof err);
    int r2s[8];
    topomap_opts_t o;
    topomap_opts_init(&o);
    ok(a && topomap_map("exact", p, a, &o, r2s, err, sizeof err) == 0, "exact maps it: %s", err);
    double hb = 0;
    topomap_hop_bytes_slots(p, a, r2s, &hb);
    is_double(hb, 16000, 1e-9, "exact reaches the bound");
    topomap_alloc_free(a);
    topomap_profile_free(p);
}

/* The public bound below random placements of a random profile, 1 and 2
 * ranks per node, and its refusals. */
static void test_public_bound(const topomap_topology_t *t)
{
    int nn = topomap_topology_nnodes(t), above = 0, cases = 0;
    for (int per = 1; per <= 2; per++)
        for (int rep = 0; rep < 5; rep++) {
            int n = 24;
            topomap_profile_t *p = random_profile(n, 4);
            int nodes[24], node[24];
            for (int k = 0; k < n / per; k++) {
                int v, dup;
                do {
                    v = rnd(nn), dup = 0;
                    for (int l = 0; l < k; l++)
                        dup |= nodes[l] == v;
                } while (dup);
                nodes[k] = v;
            }
            for (int r = 0; r < n; r++)
                node[r] = nodes[r / per];
            double bound = -1;
            if (topomap_hop_bytes_bound(p, t, node, &bound) < 0) {
                above++;
                continue;
            }
            /* Random placements on the same nodes, the same count each. */
            for (int s = 0; s < 200; s++, cases++) {
                for (int r = n - 1; r > 0; r--) {
                    int o = rnd(r + 1), x = node[r];
                    node[r] = node[o], node[o] = x;
                }
                topomap_metrics_t mt = TOPOMAP_METRICS_INIT;
                int core[24] = {0};
                for (int r = 0; r < n; r++)
                    for (int l = 0; l < r; l++)
                        core[r] += node[l] == node[r];
                topomap_eval(p, t, node, core, &mt);
                above += bound > mt.hop_bytes * (1 + 1e-12);
            }
            topomap_profile_free(p);
        }
    ok(!above, "the whole-job bound is below %d random placements, 1 and 2 ranks per node "
               "(%d above)", cases, above);
    topomap_profile_t *p = random_profile(4, 2);
    int node[4] = {0, 1, 2, nn};
    double bound;
    ok(topomap_hop_bytes_bound(p, t, node, &bound) < 0 && errno == EINVAL,
       "bound: a node out of range is EINVAL");
    ok(topomap_hop_bytes_bound(NULL, t, node, &bound) < 0 && errno == EINVAL,
       "bound: NULL is EINVAL");
    topomap_profile_free(p);
    p = random_profile(TOPOMAP_HOP_BYTES_BOUND_MAX + 1, 2);
    int *big = calloc(TOPOMAP_HOP_BYTES_BOUND_MAX + 1, sizeof(int));
    ok(p && topomap_hop_bytes_bound(p, t, big, &bound) < 0 && errno == E2BIG,
       "bound: more than %d ranks is E2BIG", TOPOMAP_HOP_BYTES_BOUND_MAX);
    free(big);
    topomap_profile_free(p);
}

/* auto's step (topomap_exact_improve): from block's mapping of random
 * 8-rank jobs on 8 scattered nodes it reaches brute force's optimum; from
 * that optimum it finds nothing lower; two slots on a node: not its job. */
static void test_improve(const topomap_topology_t *t)
{
    int reached = 0, still = 0, cases = 0;
    for (int rep = 0; rep < 6; rep++, cases++) {
        topomap_profile_t *p = random_profile(8, 3);
        char hl[64];
        snprintf(hl, sizeof hl, "t[%03d,%03d,%03d,%03d,%03d,%03d,%03d,%03d]", 3, 17 + rep,
                 70, 99 + 2 * rep, 200, 311, 400 + rep, 509);
        topomap_alloc_t *a = topomap_alloc_create(t, hl, "1(x8)", err, sizeof err);
        struct prob P;
        prob_init(&P, p, a);
        /* Brute force over the 8! placements. */
        struct qap q;
        double f[64] = {0}, d[64];
        for (int i = 0; i < 8; i++)
            for (int64_t e = P.pb.g.xadj[i]; e < P.pb.g.xadj[i + 1]; e++)
                f[i * 8 + P.pb.g.adj[e]] = P.pb.g.w[e];
        for (int x = 0; x < 8; x++)
            for (int y = 0; y < 8; y++)
                d[x * 8 + y] = topomap_slot_hops(&P.pb, x, y);
        q = (struct qap){8, 8, f, d, NULL, NULL};
        double want = 1e300, hb = -1;
        int node[8];
        char used[8] = {0};
        brute(&q, 0, node, used, &want);
        int r2s[8];
        for (int r = 0; r < 8; r++)
            r2s[r] = r;
        int rc = topomap_exact_improve(&P.pb, r2s, 0, &hb);
        reached += rc == 1 && fabs(hb - want) <= 1e-9 * want &&
                   fabs(hop_bytes(p, a, r2s) - want) <= 1e-6 * want;
        rc = topomap_exact_improve(&P.pb, r2s, 0, &hb);
        still += rc == 0;
        prob_free(&P);
        topomap_alloc_free(a);
        topomap_profile_free(p);
    }
    ok(reached == cases, "auto's exact step reaches brute force's optimum from block (%d of %d)",
       reached, cases);
    ok(still == cases, "and finds nothing below it (%d of %d)", still, cases);
    topomap_profile_t *p = random_profile(8, 3);
    topomap_alloc_t *a = topomap_alloc_create(t, "t[000-003]", "2(x4)", err, sizeof err);
    struct prob P;
    prob_init(&P, p, a);
    int r2s[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    double hb;
    ok(topomap_exact_improve(&P.pb, r2s, 0, &hb) == 0, "two slots on a node: not its job (0)");
    prob_free(&P);
    topomap_alloc_free(a);
    topomap_profile_free(p);
}

/* 24 dense random ranks on 24 nodes (an 8 x 3 patch): a 50 ms limit is
 * kept, the answer is valid and no worse than block; 25 slots and two
 * slots per node are refused. */
static void test_deadline(const topomap_topology_t *t)
{
    topomap_profile_t *p = random_profile(24, 23);
    topomap_alloc_t *a = topomap_alloc_create(t, "t[000-023]", "1(x24)", err, sizeof err);
    int r2s[25], blk[25];
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.time_limit = 0.05;
    double t0 = topomap_now();
    int rc = topomap_map("exact", p, a, &o, r2s, err, sizeof err);
    double took = topomap_now() - t0;
    ok(rc == 0 && valid(r2s, 24, 24), "exact on 24 ranks with a 50 ms limit: a valid mapping (%s)",
       err);
    ok(took < 0.05 * 1.1 + 0.02, "it ends in time (%.3f s)", took);
    topomap_map("block", p, a, &o, blk, err, sizeof err);
    double he = hop_bytes(p, a, r2s), hb = hop_bytes(p, a, blk);
    ok(he <= hb, "no worse than block (%.6g against %.6g)", he, hb);
    topomap_alloc_free(a);
    topomap_profile_free(p);

    p = random_profile(25, 4);
    a = topomap_alloc_create(t, "t[000-024]", "1(x25)", err, sizeof err);
    rc = topomap_map("exact", p, a, &o, r2s, err, sizeof err);
    ok(rc < 0 && errno == ENOTSUP, "exact refuses 25 nodes (does not apply)");
    like(err, "at most 24 nodes", "saying its limit");
    topomap_alloc_free(a);
    topomap_profile_free(p);
    p = random_profile(8, 4);
    a = topomap_alloc_create(t, "t[000-003]", "2(x4)", err, sizeof err);
    rc = topomap_map("exact", p, a, &o, r2s, err, sizeof err);
    ok(rc < 0 && errno == ENOTSUP, "exact refuses two slots on a node");
    like(err, "one rank per node", "saying why");
    topomap_alloc_free(a);
    topomap_profile_free(p);
}

int main(void)
{
    test_lap();
    test_brute();
    topomap_topology_t *t = topology_text(torus_yaml);
    ok(t != NULL, "the 8^3 torus loads: %s", err);
    if (t) {
        test_tight(t);
        test_public_bound(t);
        test_improve(t);
        test_deadline(t);
    }
    topomap_topology_free(t);
    return done_testing();
}
