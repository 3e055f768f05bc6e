/* SPDX-License-Identifier: BSD-3-Clause */
/* The optimising algorithms (ohtma, ohtma-fast, greedy, rcm, metis, auto)
 * and the swap-refinement engine, checked against independent evaluations
 * (naive.h): brute force on tiny cases, incremental costs against
 * recomputation, thread-count independence, known answers, errors.
 * Problems are built through the public API; the engine through internal.h.
 * OHTMA against its naive Algorithm 1 and a hand trace: ohtma.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "naive.h"
#include "problem.h"
#include "refine.h"
#include "tap.h"

static const char *algos[] = {"block", "cyclic", "random", "ohtma", "ohtma-fast", "greedy", "rcm"};
#define NALG ((int)(sizeof algos / sizeof algos[0]))

/* Brute force on tiny cases: reported quality, optimum bound, refinement. */
static void test_brute(void)
{
    struct {
        const char *what;
        int kind; /* 0 torus 2x2x1, 1 tianhe3 1x2x2, 2 tree */
        int cores, n;
        const char *hosts, *slots;
    } cases[] = {
        {"torus 2x2, 2 cores, 8 ranks", 0, 2, 8, "t[0-3]", NULL},
        {"torus 2x2, 2 cores, 6 ranks on 8 slots", 0, 2, 6, "t[0-3]", NULL},
        {"tianhe3 1x2x2, 2 cores, 7 ranks", 1, 2, 7, "n[0-3]", NULL},
        {"tianhe3 1x2x2, 1 core, 4 ranks", 1, 1, 4, "n[0-3]", NULL},
        {"tree 2x2, uneven slots 3,1,2,2, 8 ranks", 2, 3, 8, "f[0-3]", "3,1,2,2"},
        {"torus 3x2 (mesh in y), 1 core, 5 ranks on 6", 3, 1, 5, "t[0-5]", NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        topomap_topology_t *t = NULL;
        if (cases[c].kind == 0) {
            int dims[] = {2, 2}, wrap[] = {1, 1};
            t = topomap_topology_torus(2, dims, wrap, cases[c].cores, "t[0-3]", err, sizeof err);
        } else if (cases[c].kind == 1) {
            t = topomap_topology_tianhe3(1, 2, 2, cases[c].cores, "n[0-3]", err, sizeof err);
        } else if (cases[c].kind == 2) {
            int ar[] = {2, 2}, hops[] = {4, 2};
            t = topomap_topology_tree(2, ar, hops, cases[c].cores, "f[0-3]", err, sizeof err);
        } else {
            int dims[] = {3, 2}, wrap[] = {1, 0};
            t = topomap_topology_torus(2, dims, wrap, cases[c].cores, "t[0-5]", err, sizeof err);
        }
        topomap_alloc_t *a = t ? topomap_alloc_create(t, cases[c].hosts, cases[c].slots, err,
                                                      sizeof err)
                               : NULL;
        if (!ok(a != NULL, "%s: set up (%s)", cases[c].what, a ? "ok" : err))
            continue;
        for (int rep = 0; rep < 3; rep++) {
            topomap_profile_t *p = random_profile(cases[c].n, 2 + rep, 20);
            struct dense d;
            dense_init(&d, p, a);
            int f[8];
            char used[16] = {0};
            double opt = INFINITY;
            brute(&d, 0, f, used, &opt);
            int good = 1, reported = 1, locopt = 1, bound = 1, naive = 1;
            for (int k = 0; k < NALG; k++)
                for (int refine = 0; refine < 2; refine++) {
                    topomap_opts_t o;
                    topomap_opts_init(&o);
                    o.refine = refine;
                    int r2s[8];
                    if (topomap_map(algos[k], p, a, &o, r2s, err, sizeof err) < 0 ||
                        !valid(r2s, d.n, d.ns)) {
                        good = 0;
                        diag("%s%s failed: %s", algos[k], refine ? "+refine" : "", err);
                        continue;
                    }
                    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
                    topomap_eval_slots(p, a, r2s, &m);
                    double hb = dense_hb(&d, r2s);
                    if (m.hop_bytes != hb)
                        reported = 0;
                    if (hb < opt)
                        bound = 0;
                    if (refine && !no_improving_swap(&d, r2s)) {
                        locopt = 0;
                        diag("%s+refine left an improving swap", algos[k]);
                    }
                    if (!refine && !strcmp(algos[k], "ohtma")) {
                        int ref[8];
                        ohtma_naive(&d, -1, ref);
                        if (memcmp(ref, r2s, sizeof(int) * (size_t)d.n))
                            naive = 0;
                    }
                }
            ok(good, "%s #%d: every algorithm gives a valid mapping", cases[c].what, rep);
            ok(reported, "%s #%d: topomap_eval_slots agrees with the dense evaluation",
               cases[c].what, rep);
            ok(bound, "%s #%d: nobody beats the brute-force optimum %.0f", cases[c].what, rep, opt);
            ok(locopt, "%s #%d: refinement leaves no improving swap or move", cases[c].what, rep);
            ok(naive, "%s #%d: ohtma equals the naive Algorithm 1", cases[c].what, rep);
            dense_free(&d);
            topomap_profile_free(p);
        }
        topomap_alloc_free(a);
        topomap_topology_free(t);
    }
}

/* The engine: predicted gains and costs against recomputation after every swap. */
static void test_incremental(void)
{
    topomap_topology_t *t = topomap_topology_tianhe3(2, 3, 4, 3, NULL, err, sizeof err);
    int dims[] = {4, 3, 2}, wrap[] = {1, 0, 1};
    topomap_topology_t *tt = topomap_topology_torus(3, dims, wrap, 2, NULL, err, sizeof err);
    ok(t && tt, "topologies for the property test");
    if (!t || !tt)
        return;
    topomap_alloc_t *a;
    int gains_ok = 1, costs_ok = 1, frac_ok = 1, nswaps = 0;
    for (int rep = 0; rep < 6; rep++) {
        const topomap_topology_t *tp = rep % 2 ? tt : t;
        /* All nodes, fewer ranks than slots so that moves to free slots occur. */
        const char *hosts = "node[00-23]";
        a = topomap_alloc_create(tp, hosts, NULL, err, sizeof err);
        if (!a) {
            ok(0, "allocation %s: %s", hosts, err);
            continue;
        }
        int ns = topomap_alloc_nslots(a), n = ns - 1 - rnd(ns / 4);
        int frac = rep >= 4;
        topomap_profile_t *p = random_profile(n, 3, 50);
        if (frac) { /* fractional weights: equal up to rounding only */
            topomap_graph_t dg;
            topomap_profile_graph(p, 0, 0, &dg);
            size_t m = (size_t)dg.xadj[n];
            int *src = malloc(sizeof(int) * m), *dst = malloc(sizeof(int) * m);
            double *w = malloc(sizeof(double) * m);
            for (int i = 0; i < n; i++)
                for (int64_t e = dg.xadj[i]; e < dg.xadj[i + 1]; e++) {
                    src[e] = i;
                    dst[e] = dg.adj[e];
                    w[e] = dg.w[e] / 7.3 + 1e-3;
                }
            topomap_profile_free(p);
            p = topomap_profile_create(n, m, src, dst, w, NULL, err, sizeof err);
            free(src);
            free(dst);
            free(w);
        }
        struct dense d;
        dense_init(&d, p, a);
        struct prob P;
        prob_init(&P, p, a);
        struct topomap_xchg x;
        int *r2s = malloc(sizeof(int) * (size_t)n);
        topomap_map("random", p, a, NULL, r2s, err, sizeof err);
        ok(topomap_xchg_init(&x, &P.pb, err, sizeof err) == 0, "engine set up (%d ranks, %d slots)",
           n, ns);
        topomap_xchg_place(&x, r2s);
        double hb = dense_hb(&d, x.r2s);
        for (int step = 0; step < 300; step++) {
            int s1 = rnd(ns), s2 = rnd(ns);
            double pred = topomap_xchg_gain(&x, s1, s2);
            topomap_xchg_swap(&x, s1, s2);
            nswaps++;
            double hb2 = dense_hb(&d, x.r2s);
            double tol = frac ? 1e-9 * (hb + 1) : 0;
            if (fabs((hb - hb2) - pred) > tol) {
                if (frac)
                    frac_ok = 0;
                else
                    gains_ok = 0;
                diag("step %d: predicted %.17g, recomputed %.17g", step, pred, hb - hb2);
            }
            hb = hb2;
            for (int i = 0; i < n; i++) {
                double c = topomap_xchg_cost_at(&x, i, x.rgrp[i]);
                if (fabs(c - x.cost[i]) > (frac ? 1e-9 * (c + 1) : 0))
                    costs_ok = 0;
            }
            if (fabs(topomap_xchg_hop_bytes(&x) - hb) > (frac ? 1e-9 * (hb + 1) : 0))
                costs_ok = 0;
        }
        /* The refinement engine's reported gain is the true one. */
        struct topomap_refine_stats st;
        double before = dense_hb(&d, x.r2s);
        int rrc = topomap_xchg_refine(&x, NULL, &st, err, sizeof err);
        ok(rrc == 0 && st.converged, "refinement converges (%ld passes, %ld swaps, %ld moves)",
           st.passes, st.swaps, st.moves);
        is_double(before - dense_hb(&d, x.r2s), st.gain, 1e-6 * (before + 1),
                  "refinement reports the hop-bytes it removed");
        ok(no_improving_swap(&d, x.r2s), "refined placement is a local optimum");
        free(r2s);
        topomap_xchg_free(&x);
        prob_free(&P);
        dense_free(&d);
        topomap_profile_free(p);
        topomap_alloc_free(a);
    }
    ok(gains_ok, "integer weights: predicted gain = recomputed difference, exactly (%d swaps)",
       nswaps);
    ok(frac_ok, "fractional weights: predicted gain = recomputed difference up to rounding");
    ok(costs_ok, "incremental per-rank costs equal recomputation after every swap");
    topomap_topology_free(t);
    topomap_topology_free(tt);
}

/* Same seed, same mapping for 1, 2 and 4 threads, on cases big enough for
 * the parallel paths. */
static void test_threads(void)
{
    int dims[] = {8, 8, 8}, wrap[] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 6, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "node[000-511]", NULL, err, sizeof err) : NULL;
    ok(a != NULL, "8x8x8 torus, 6 cores: %s", a ? "" : err);
    if (!a)
        return;
    topomap_profile_t *ps[2] = {stencil(16, 16, 12, 100), random_profile(2600, 4, 1000)};
    for (int c = 0; c < 2; c++) {
        int n = topomap_profile_nranks(ps[c]);
        int *ref = malloc(sizeof(int) * (size_t)n), *got = malloc(sizeof(int) * (size_t)n);
        for (int k = 0; k < NALG; k++)
            for (int refine = 0; refine < 2; refine++) {
                if (refine && strcmp(algos[k], "ohtma-fast") && strcmp(algos[k], "rcm"))
                    continue; /* the refinement is the same code after any of them */
                int same = 1;
                for (int th = 1; th <= 4; th *= 2) {
                    topomap_opts_t o;
                    topomap_opts_init(&o);
                    o.seed = 7;
                    o.nthreads = th;
                    o.refine = refine;
                    if (topomap_map(algos[k], ps[c], a, &o, th == 1 ? ref : got, err,
                                    sizeof err) < 0) {
                        same = 0;
                        diag("%s: %s", algos[k], err);
                    } else if (th > 1 && memcmp(ref, got, sizeof(int) * (size_t)n))
                        same = 0;
                }
                ok(same, "%s%s on %s (%d ranks): same mapping with 1, 2 and 4 threads", algos[k],
                   refine ? "+refine" : "", c ? "random graph" : "3D stencil", n);
            }
        free(ref);
        free(got);
    }
    topomap_profile_free(ps[0]);
    topomap_profile_free(ps[1]);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* auto = the best of its candidates (map_auto.c), each refined, then the
 * iterated local search from it: its hop-bytes must be at most the minimum
 * of the NAME+refine runs, on a stencil (where block's order is good) and on
 * random graphs (where it is not). */
static void test_auto(void)
{
    topomap_topology_t *t = topomap_topology_tianhe3(2, 2, 8, 4, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "node[00-31]", NULL, err, sizeof err) : NULL;
    if (!ok(a != NULL, "auto: Tianhe-3 2x2 chips x 8 nodes x 4 cores"))
        return;
    /* auto's candidates (map_auto.c) on a small job, where it tries all. */
    const char *cand[] = {"block",      "drb+refine", "block+refine",    "greedy+refine",
                          "drb+refine", "drb+refine", "spectral-fit+refine", "ohtma+refine"};
    const int seedoff[] = {0, 0, 0, 0, 1, 2, 0, 0};
    for (int c = 0; c < 4; c++) {
        topomap_profile_t *p = c == 0 ? stencil(8, 4, 4, 10) : random_profile(100 + 9 * c, 4, 50);
        int r2s[128], tmp[128];
        topomap_metrics_t m = TOPOMAP_METRICS_INIT;
        double best = INFINITY, got = -1;
        for (int k = 0; k < 8; k++) {
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.seed += (uint64_t)seedoff[k];
            if (topomap_map(cand[k], p, a, &o, tmp, err, sizeof err) == 0 &&
                topomap_eval_slots(p, a, tmp, &m) == 0 && m.hop_bytes < best)
                best = m.hop_bytes;
        }
        if (topomap_map("auto", p, a, NULL, r2s, err, sizeof err) == 0 &&
            valid(r2s, topomap_profile_nranks(p), topomap_alloc_nslots(a)) &&
            topomap_eval_slots(p, a, r2s, &m) == 0)
            got = m.hop_bytes;
        ok(got >= 0 && got <= best, "auto on %s: hop-bytes %g <= best refined candidate %g",
           c == 0 ? "stencil 8x4x4" : "random graph", got, best);
        topomap_profile_free(p);
    }
    topomap_alloc_free(a);
    topomap_topology_free(t);
    /* One slot per node on a torus: a stencil that fits reaches the floor
     * (every byte one hop), where auto ends its search; with 4 slots per
     * node there is no floor and auto runs on. */
    int dims[] = {6, 4, 4}, wrap[] = {1, 1, 1};
    topomap_topology_t *tt = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    topomap_profile_t *p = stencil(6, 4, 4, 10);
    for (int k = 0; k < 2 && tt; k++) {
        topomap_alloc_t *at = prob_all_nodes(tt, k ? NULL : "1", err, sizeof err);
        int n = topomap_profile_nranks(p), r2s[96];
        topomap_metrics_t m = TOPOMAP_METRICS_INIT;
        int good = at && topomap_map("auto", p, at, NULL, r2s, err, sizeof err) == 0 &&
                   valid(r2s, n, topomap_alloc_nslots(at)) &&
                   topomap_eval_slots(p, at, r2s, &m) == 0 && m.total_bytes > 0 &&
                   (k ? m.hop_bytes < m.total_bytes : m.hop_bytes == m.total_bytes);
        ok(good, "auto, stencil 6x4x4 on the 6x4x4 torus, %s: hop-bytes %g, total bytes %g",
           k ? "4 slots per node (below: ranks share nodes)" : "1 slot per node (optimal)",
           m.hop_bytes, m.total_bytes);
        topomap_alloc_free(at);
    }
    topomap_profile_free(p);
    topomap_topology_free(tt);
}

/* metis: 4 disconnected cliques of 4 ranks, interleaved (rank i in clique
 * i mod 4), on 4 nodes of 4 cores: the minimum cut is 0, so every clique
 * must land on one node, where block puts every edge between nodes. With 14
 * ranks on 16 slots the first nodes of the allocation are filled as block
 * fills them; with uneven slots the parts follow the slot counts. */
static void test_metis(void)
{
    int dims[] = {4}, wrap[] = {1};
    topomap_topology_t *t = topomap_topology_torus(1, dims, wrap, 4, "m[0-3]", err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "m[0-3]", NULL, err, sizeof err) : NULL;
    if (!ok(a != NULL, "metis: ring of 4 nodes x 4 cores"))
        return;
    int src[64], dst[64], m = 0;
    double w[64];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            if (i != j && i % 4 == j % 4) {
                src[m] = i, dst[m] = j, w[m] = 100 + i + j;
                m++;
            }
    topomap_profile_t *p = topomap_profile_create(16, (size_t)m, src, dst, w, NULL, err, sizeof err);
    int r2s[16];
    topomap_metrics_t mm = TOPOMAP_METRICS_INIT, mb = TOPOMAP_METRICS_INIT;
    ok(topomap_map("metis", p, a, NULL, r2s, err, sizeof err) == 0 && valid(r2s, 16, 16) &&
           topomap_eval_slots(p, a, r2s, &mm) == 0 && mm.internode_bytes == 0,
       "metis puts each clique on one node (internode bytes %g)", mm.internode_bytes);
    ok(topomap_map("block", p, a, NULL, r2s, err, sizeof err) == 0 &&
           topomap_eval_slots(p, a, r2s, &mb) == 0 && mb.internode_fraction == 1,
       "where block sends every byte between nodes");
    topomap_profile_free(p);

    /* 14 ranks, 3 interleaved cliques of 4 (i mod 3 for i < 12) and ranks
     * 12-13: nodes used are m0..m3 with 4,4,4,2 slots, so a zero cut exists. */
    m = 0;
    for (int i = 0; i < 14; i++)
        for (int j = 0; j < 14; j++)
            if (i != j && (i < 12 ? i % 3 : 3) == (j < 12 ? j % 3 : 3)) {
                src[m] = i, dst[m] = j, w[m] = 10;
                m++;
            }
    p = topomap_profile_create(14, (size_t)m, src, dst, w, NULL, err, sizeof err);
    ok(topomap_map("metis", p, a, NULL, r2s, err, sizeof err) == 0 && valid(r2s, 14, 16) &&
           topomap_eval_slots(p, a, r2s, &mm) == 0,
       "metis: 14 ranks on 16 slots");
    ok(mm.internode_bytes == 0, "... the two ranks of the small clique share the last node (%g)",
       mm.internode_bytes);
    topomap_profile_free(p);

    /* Brute-force-sized random cases: valid, deterministic, never an error. */
    for (int rep = 0; rep < 5; rep++) {
        p = random_profile(9 + rep, 3, 40);
        int x[16], y[16];
        ok(topomap_map("metis", p, a, NULL, x, err, sizeof err) == 0 &&
               topomap_map("metis", p, a, NULL, y, err, sizeof err) == 0 &&
               valid(x, topomap_profile_nranks(p), 16) && !memcmp(x, y, sizeof(int) * 9),
           "metis on a random graph of %d ranks: valid and repeatable", 9 + rep);
        topomap_profile_free(p);
    }
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* Baselines on cases whose answer is known. */
static void test_baselines(void)
{
    /* A path of 16 ranks (scrambled numbering) on a line of 16 one-core nodes:
     * reverse Cuthill-McKee orders both the same way, every edge 1 hop. */
    int dims[] = {16}, wrap[] = {0};
    topomap_topology_t *t = topomap_topology_torus(1, dims, wrap, 1, "l[00-15]", err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "l[00-15]", NULL, err, sizeof err) : NULL;
    int perm[16], src[15], dst[15];
    double w[15];
    for (int i = 0; i < 16; i++)
        perm[i] = (i * 7 + 3) % 16;
    for (int e = 0; e < 15; e++) {
        src[e] = perm[e];
        dst[e] = perm[e + 1];
        w[e] = 10;
    }
    topomap_profile_t *p = topomap_profile_create(16, 15, src, dst, w, NULL, err, sizeof err);
    int r2s[16];
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    ok(a && p && topomap_map("rcm", p, a, NULL, r2s, err, sizeof err) == 0 &&
           topomap_eval_slots(p, a, r2s, &m) == 0,
       "rcm maps a scrambled path on a line");
    is_double(m.hop_bytes, 150, 0, "rcm: every edge of the path is 1 hop (150 hop-bytes)");
    is_int(m.max_dilation, 1, "rcm: dilation 1");
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
    /* A ring of 16 on 4 nodes of 4 cores in a line: greedy keeps runs of 4
     * consecutive ring ranks on a node (the heaviest neighbours stay close). */
    int d4[] = {4};
    t = topomap_topology_torus(1, d4, wrap, 4, "q[0-3]", err, sizeof err);
    a = t ? topomap_alloc_create(t, "q[0-3]", NULL, err, sizeof err) : NULL;
    for (int e = 0; e < 15; e++) {
        src[e] = e;
        dst[e] = e + 1;
        w[e] = 100 + e; /* distinct weights: a unique greedy order */
    }
    p = topomap_profile_create(16, 15, src, dst, w, NULL, err, sizeof err);
    ok(a && p && topomap_map("greedy", p, a, NULL, r2s, err, sizeof err) == 0 &&
           topomap_eval_slots(p, a, r2s, &m) == 0,
       "greedy maps a path of 16 on 4 nodes of 4 cores");
    ok(m.internode_bytes <= 3 * 114.0,
       "greedy: at most 3 path edges leave a node (%g inter-node bytes)", m.internode_bytes);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

static void test_errors(void)
{
    int dims[] = {4}, wrap[] = {0};
    topomap_topology_t *t = topomap_topology_torus(1, dims, wrap, 2, "h[0-3]", err, sizeof err);
    topomap_alloc_t *a = topomap_alloc_create(t, "h[0-3]", NULL, err, sizeof err);
    topomap_profile_t *p = random_profile(8, 3, 10);
    topomap_opts_t o;
    topomap_opts_init(&o);
    int r2s[8];
    o.loop = -2;
    err[0] = 0;
    ok(topomap_map("ohtma", p, a, &o, r2s, err, sizeof err) < 0 && errno == EINVAL,
       "ohtma: loop -2 rejected with EINVAL");
    like(err, "loop must be -1", "message explains loop");
    ok(topomap_map("ohtma-fast", p, a, &o, r2s, err, sizeof err) < 0 && errno == EINVAL,
       "ohtma-fast: loop -2 rejected");
    like(err, "ohtma-fast", "message names the algorithm");
    topomap_opts_init(&o);
    o.loop = 0;
    ok(topomap_map("ohtma", p, a, &o, r2s, err, sizeof err) == 0 && valid(r2s, 8, 8),
       "loop 0 is allowed");
    topomap_profile_t *one = random_profile(1, 0, 1);
    ok(one != NULL, "a one-rank profile");
    for (int k = 0; k < NALG; k++) {
        topomap_opts_init(&o);
        o.refine = 1;
        ok(one && topomap_map(algos[k], one, a, &o, r2s, err, sizeof err) == 0 && r2s[0] >= 0 &&
               r2s[0] < 8,
           "%s maps a single rank (with refinement)", algos[k]);
    }
    topomap_profile_t *big = random_profile(9, 2, 10);
    ok(topomap_map("ohtma", big, a, NULL, r2s, err, sizeof err) < 0 && errno == E2BIG,
       "ohtma: 9 ranks on 8 slots is E2BIG");
    /* A time limit the large case cannot meet. */
    int d3[] = {16, 16, 16}, w3[] = {1, 1, 1};
    topomap_topology_t *t3 = topomap_topology_torus(3, d3, w3, 2, NULL, err, sizeof err);
    topomap_alloc_t *a3 = topomap_alloc_create(t3, "node[0000-4095]", NULL, err, sizeof err);
    topomap_profile_t *s = stencil(32, 16, 16, 1);
    int *big_r2s = malloc(sizeof(int) * 8192);
    topomap_opts_init(&o);
    o.time_limit = 0.001;
    double t0 = topomap_now();
    err[0] = 0;
    ok(topomap_map("ohtma", s, a3, &o, big_r2s, err, sizeof err) < 0 && errno == ETIMEDOUT,
       "ohtma on 8192 ranks with a 1 ms limit: ETIMEDOUT");
    like(err, "time limit", "message says time limit");
    /* The whole run takes tens of seconds; giving up must not (5 s: slack
     * for sanitizers and a loaded machine). */
    ok(topomap_now() - t0 < 5.0, "and it gives up promptly (%.3f s)", topomap_now() - t0);
    /* Refinement under a time limit stops and keeps a valid mapping. */
    o.time_limit = 0.3;
    o.refine = 1;
    ok(topomap_map("block", s, a3, &o, big_r2s, err, sizeof err) == 0 && valid(big_r2s, 8192, 8192),
       "block + refine under a 0.3 s limit: stops in time, valid mapping (%s)", err);
    free(big_r2s);
    topomap_profile_free(s);
    topomap_alloc_free(a3);
    topomap_topology_free(t3);
    topomap_profile_free(big);
    topomap_profile_free(one);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    test_brute();
    test_incremental();
    test_auto();
    test_metis();
    test_threads();
    test_baselines();
    test_errors();
    return done_testing();
}
