/* SPDX-License-Identifier: BSD-3-Clause */
/* OHTMA (Li et al. 2020, Algorithm 1; libtopomap/map_ohtma.c) against independent
 * evaluations (naive.h): a hand trace of its greedy phase (section 4.3), a
 * naive dense implementation of Algorithm 1 on random cases and loop values,
 * the quality relations its phases must keep, and its parallel branches and
 * caches against the default path. The greedy phase through internal.h. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "naive.h"
#include "problem.h"
#include "tap.h"

/* Section 4.3 by hand on a 3-node Tianhe-3 allocation. See the comments. */
static void test_greedy_trace(void)
{
    /* 1 x 2 chips, 2 nodes per chip (left, right), 2 cores: nodes 0,1 on
     * chip 0, 2,3 on chip 1. Allocation: nodes 0, 1, 2 -> slots 0-1 on
     * node 0, 2-3 on node 1, 4-5 on node 2. Hops: 0-1: 2 (same chip, other
     * side), 0-2: 3 (same row, same side), 1-2: 4.
     * T (sum of hops over all slots): node0 2(0+2+3) = 10, node1 12, node2 14.
     * (1+k) hops_n = k S_n + T_n:
     *   k=0: 10, 12, 14                  -> node 0, slot 0
     *   k=1: S = 0,2,3: 10, 14, 17       -> node 0, slot 1 (paper: 5, 7, 8.5)
     *   k=2: S = 0,4,6: -, 20, 26        -> node 1, slot 2
     *   k=3: S = -,4,10: -, 24, 44       -> slot 3; then slots 4, 5.
     * Processes (directed bytes): 0->1 10, 1->0 2, 1->2 5, 2->3 7, 3->4 1,
     * 0->4 4, 2->4 3. Symmetric g: g01 12, g12 5, g23 7, g34 1, g04 4, g24 3.
     * W = 16, 17, 15, 8, 8. (1+k) comm_p = k C_p + W_p:
     *   k=0: W: p1 (17)                                   -> p1
     *   k=1: C = 12,-,5,0,0: 28, 20, 8, 8                 -> p0 (paper: 14)
     *   k=2: C = -,-,5,0,4: p2 25, p3 8, p4 16            -> p2
     *   k=3: C = p3 7, p4 7: 29 and 29, tie, lowest index -> p3, then p4. */
    int src[] = {0, 1, 1, 2, 3, 0, 2}, dst[] = {1, 0, 2, 3, 4, 4, 4};
    double b[] = {10, 2, 5, 7, 1, 4, 3};
    topomap_topology_t *t = topomap_topology_tianhe3(1, 2, 2, 2, "n[0-3]", err, sizeof err);
    ok(t != NULL, "tianhe3 1x2 chips of 2 nodes: %s", t ? "" : err);
    topomap_alloc_t *a = topomap_alloc_create(t, "n[0-2]", NULL, err, sizeof err);
    topomap_profile_t *p = topomap_profile_create(5, 7, src, dst, b, NULL, err, sizeof err);
    ok(a && p, "allocation and profile");
    if (!a || !p)
        return;
    is_int(topomap_topology_hops(t, 0, 1), 2, "hops(0,1) = 2 as in Table 1");
    is_int(topomap_topology_hops(t, 1, 2), 4, "hops(1,2) = 4");
    struct prob P;
    prob_init(&P, p, a);
    int r2s[5], order[5];
    ok(topomap_ohtma_greedy(&P.pb, r2s, order, err, sizeof err) == 0, "greedy phase runs");
    int want_order[5] = {1, 0, 2, 3, 4}, want_slot[5] = {1, 0, 2, 3, 4};
    for (int k = 0; k < 5; k++)
        is_int(order[k], want_order[k], "greedy step %d picks process %d", k, want_order[k]);
    for (int i = 0; i < 5; i++)
        is_int(r2s[i], want_slot[i], "process %d on slot %d", i, want_slot[i]);
    /* The whole algorithm against the naive one on the same case. */
    struct dense d;
    dense_init(&d, p, a);
    int f[5], got[5];
    ohtma_naive(&d, -1, f);
    ok(topomap_map("ohtma", p, a, NULL, got, err, sizeof err) == 0, "ohtma maps the trace case");
    ok(!memcmp(f, got, sizeof f), "ohtma equals the naive Algorithm 1");
    dense_free(&d);
    prob_free(&P);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* ohtma against the naive Algorithm 1 on larger random cases, loop values. */
static void test_naive(void)
{
    int dims[] = {3, 3}, wrap[] = {0, 0};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 4, "m[0-8]", err, sizeof err);
    topomap_topology_t *t3 = topomap_topology_tianhe3(2, 2, 4, 2, "c[00-15]", err, sizeof err);
    topomap_alloc_t *a = topomap_alloc_create(t, "m[0-8]", NULL, err, sizeof err);
    topomap_alloc_t *a3 = topomap_alloc_create(t3, "c[00-02,04-07,09,12-15]", "2,1,2(x9),1", err,
                                               sizeof err);
    /* A torus wrapped in one dimension with holes: the greedy phase's sums
     * by dimension (map_ohtma.c, struct sep) against the literal one. */
    int dw[] = {5, 3}, ww[] = {1, 0};
    topomap_topology_t *tw = topomap_topology_torus(2, dw, ww, 3, "w[0-14]", err, sizeof err);
    topomap_alloc_t *aw = tw ? topomap_alloc_create(tw, "w[0-2,4,6-9,11-14]", "3,1,2(x4),3(x6)",
                                                    err, sizeof err)
                             : NULL;
    ok(a && a3 && aw, "3x3 mesh, Tianhe-3 2x2 and partial 5x3 torus allocations: %s",
       a && a3 && aw ? "" : err);
    if (!a || !a3 || !aw)
        return;
    int same = 1, cases = 0;
    for (int rep = 0; rep < 18; rep++) {
        const topomap_alloc_t *al = rep % 3 == 2 ? aw : rep % 2 ? a3 : a;
        int n = 10 + rnd(topomap_alloc_nslots(al) - 10 + 1);
        topomap_profile_t *p = random_profile(n, 1 + rnd(4), rep % 4 ? 9 : 1000);
        struct dense d;
        dense_init(&d, p, al);
        long loops[] = {-1, 0, 3, 1000};
        for (int l = 0; l < 4; l++) {
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.loop = loops[l];
            int *ref = malloc(sizeof(int) * (size_t)n), *got = malloc(sizeof(int) * (size_t)n);
            ohtma_naive(&d, loops[l], ref);
            if (topomap_map("ohtma", p, al, &o, got, err, sizeof err) < 0 ||
                memcmp(ref, got, sizeof(int) * (size_t)n)) {
                same = 0;
                diag("case %d (n=%d, loop %ld) differs", rep, n, loops[l]);
            }
            cases++;
            free(ref);
            free(got);
        }
        dense_free(&d);
        topomap_profile_free(p);
    }
    ok(same, "ohtma equals the naive Algorithm 1 on %d random cases (loop -1, 0, 3, 1000)", cases);
    topomap_alloc_free(a);
    topomap_alloc_free(a3);
    topomap_alloc_free(aw);
    topomap_topology_free(t);
    topomap_topology_free(t3);
    topomap_topology_free(tw);
}

/* Every parallel branch (forced with a zero work threshold) and the path
 * without the cost cache give the mapping of the default settings. */
static void test_paths(void)
{
    topomap_topology_t *t = topomap_topology_tianhe3(2, 2, 8, 4, NULL, err, sizeof err);
    int dims[] = {6, 6, 6}, wrap[] = {1, 1, 1};
    topomap_topology_t *tt = topomap_topology_torus(3, dims, wrap, 2, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "node[00-31]", NULL, err, sizeof err) : NULL;
    topomap_alloc_t *at = tt ? topomap_alloc_create(tt, "node[000-215]", NULL, err, sizeof err)
                             : NULL;
    ok(a && at, "Tianhe-3 (128 slots) and 6x6x6 torus (432 slots) allocations");
    if (!a || !at)
        return;
    struct {
        topomap_profile_t *p;
        const topomap_alloc_t *a;
        const char *what;
    } cases[] = {{random_profile(120, 3, 100), a, "random 120 on Tianhe-3"},
                 {stencil(8, 6, 9, 10), at, "stencil 8x6x9 on a torus"},
                 {random_profile(400, 2, 7), at, "random 400 on a torus"}};
    long par0 = topomap_tuning()->ohtma_par_work, dc0 = topomap_tuning()->ohtma_dcache_max;
    int table0 = topomap_tuning()->ohtma_table_max;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int n = topomap_profile_nranks(cases[c].p);
        int *ref = malloc(sizeof(int) * (size_t)n), *got = malloc(sizeof(int) * (size_t)n);
        for (int k = 0; k < 2; k++) {
            const char *al = k ? "ohtma-fast" : "ohtma";
            topomap_opts_t o;
            topomap_opts_init(&o);
            topomap_tuning()->ohtma_par_work = par0;
            topomap_tuning()->ohtma_dcache_max = dc0;
            int same = topomap_map(al, cases[c].p, cases[c].a, &o, ref, err, sizeof err) == 0;
            for (int v = 0; v < 8 && same; v++) {
                topomap_tuning()->ohtma_par_work = v % 2 ? 0 : par0;
                topomap_tuning()->ohtma_dcache_max = v / 2 == 1 ? 0 : dc0;
                topomap_tuning()->ohtma_table_max = v < 6 ? table0 : 0;
                o.nthreads = v < 4 ? 2 : 4;
                same = topomap_map(al, cases[c].p, cases[c].a, &o, got, err, sizeof err) == 0 &&
                       !memcmp(ref, got, sizeof(int) * (size_t)n);
                if (!same)
                    diag("variant %d differs", v);
            }
            topomap_tuning()->ohtma_table_max = table0;
            ok(same, "%s, %s: same mapping with every loop parallel, without the cost cache, "
               "without the hop table (tori), 2 and 4 threads", al, cases[c].what);
        }
        free(ref);
        free(got);
        topomap_profile_free(cases[c].p);
    }
    topomap_tuning()->ohtma_par_work = par0;
    topomap_tuning()->ohtma_dcache_max = dc0;
    topomap_alloc_free(a);
    topomap_alloc_free(at);
    topomap_topology_free(t);
    topomap_topology_free(tt);
}

/* Quality relations that must hold by construction. */
static void test_quality(void)
{
    topomap_topology_t *t = topomap_topology_tianhe3(2, 2, 8, 4, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "node[00-31]", NULL, err, sizeof err) : NULL;
    ok(a != NULL, "Tianhe-3 2x2 chips x 8 nodes x 4 cores");
    if (!a)
        return;
    topomap_profile_t *p = stencil(8, 4, 4, 10);
    struct prob P;
    prob_init(&P, p, a);
    int n = 128, greedy[128], full[128], fast[128], fr[128];
    topomap_metrics_t mg = TOPOMAP_METRICS_INIT, mo = TOPOMAP_METRICS_INIT,
                      mf = TOPOMAP_METRICS_INIT, mr = TOPOMAP_METRICS_INIT;
    ok(topomap_ohtma_greedy(&P.pb, greedy, NULL, err, sizeof err) == 0, "greedy phase");
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.loop = 0;
    ok(topomap_map("ohtma", p, a, &o, full, err, sizeof err) == 0 &&
           !memcmp(full, greedy, sizeof greedy),
       "ohtma with loop 0 is the greedy phase alone");
    ok(topomap_map("ohtma", p, a, NULL, full, err, sizeof err) == 0, "ohtma");
    ok(topomap_map("ohtma-fast", p, a, NULL, fast, err, sizeof err) == 0, "ohtma-fast");
    o.loop = -1;
    o.refine = 1;
    ok(topomap_map("ohtma", p, a, &o, fr, err, sizeof err) == 0, "ohtma + refine");
    topomap_eval_slots(p, a, greedy, &mg);
    topomap_eval_slots(p, a, full, &mo);
    topomap_eval_slots(p, a, fast, &mf);
    topomap_eval_slots(p, a, fr, &mr);
    ok(mo.hop_bytes <= mg.hop_bytes, "backtracking never ends above the greedy phase (%g <= %g)",
       mo.hop_bytes, mg.hop_bytes);
    ok(mf.hop_bytes <= mg.hop_bytes, "nor does ohtma-fast (%g <= %g)", mf.hop_bytes, mg.hop_bytes);
    ok(mr.hop_bytes <= mo.hop_bytes, "refinement never makes it worse (%g <= %g)", mr.hop_bytes,
       mo.hop_bytes);
    diag("stencil 8x4x4 on Tianhe-3: greedy phase %g, ohtma %g, ohtma-fast %g, +refine %g",
         mg.hop_bytes, mo.hop_bytes, mf.hop_bytes, mr.hop_bytes);
    (void)n;
    prob_free(&P);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    test_greedy_trace();
    test_naive();
    test_quality();
    test_paths();
    return done_testing();
}
