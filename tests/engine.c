/* SPDX-License-Identifier: BSD-3-Clause */
/* The mapping engine at scale: dual recursive bisection (drb), the
 * neighbourhood refinement and auto inside a time limit. Splits are checked
 * through drb's trace hook against the allocation as the public API reports
 * it; placements against an independent hop-byte evaluation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "problem.h"
#include "refine.h"
#include "synth.h"
#include "tap.h"

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* ---- drb: every split --------------------------------------------------- */

static struct {
    const topomap_topology_t *t;
    int *slots_of; /* topology node -> slots in the allocation (0: not allocated) */
    int *seen;     /* topology node -> stamp */
    int stamp;
    int splits, bad_sizes, bad_caps, bad_counts, not_compact;
    char first_problem[256];
} tr;

static void problem(const char *what)
{
    if (!tr.first_problem[0])
        snprintf(tr.first_problem, sizeof tr.first_problem, "split %d: %s", tr.splits, what);
}

/* The two halves are separated in the network: on a torus/mesh their
 * coordinates along some dimension do not overlap; on Tianhe-3 they share no
 * chip unless all nodes are on one chip (then no side, unless on one side);
 * on a tree they share no leaf switch unless all hang from one. */
static int separated(const int *A, int na, const int *B, int nb)
{
    const char *kind = topomap_topology_kind(tr.t);
    int ca[20], cb[20];
    int nd = topomap_topology_coords(tr.t, A[0], ca, 20);
    if (!strcmp(kind, "torus") || !strcmp(kind, "mesh")) {
        for (int k = 0; k < nd; k++) {
            int disjoint = 1;
            tr.stamp++;
            for (int i = 0; i < na; i++) {
                topomap_topology_coords(tr.t, A[i], ca, 20);
                tr.seen[ca[k]] = tr.stamp;
            }
            for (int i = 0; i < nb && disjoint; i++) {
                topomap_topology_coords(tr.t, B[i], cb, 20);
                disjoint = tr.seen[cb[k]] != tr.stamp;
            }
            if (disjoint)
                return 1;
        }
        return 0;
    }
    /* Tianhe-3 (row, col, side, slot) and trees (switches..., port): the
     * deepest level shared by all nodes of both halves must be where they
     * part: below it, no prefix is common to A and B. */
    int depth = !strcmp(kind, "tianhe3") ? 3 : nd - 1; /* group key length */
    int common = depth;
    topomap_topology_coords(tr.t, A[0], ca, 20);
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < (s ? nb : na); i++) {
            topomap_topology_coords(tr.t, s ? B[i] : A[i], cb, 20);
            int k = 0;
            while (k < common && cb[k] == ca[k])
                k++;
            common = k;
        }
    /* Prefixes of length common + 1 (chip = row+col on Tianhe-3) differ. */
    int len = common + 1;
    if (!strcmp(kind, "tianhe3") && common < 2)
        len = 2;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            topomap_topology_coords(tr.t, A[i], ca, 20);
            topomap_topology_coords(tr.t, B[j], cb, 20);
            int same = 1;
            for (int k = 0; k < len && same; k++)
                same = ca[k] == cb[k];
            if (same)
                return 0;
        }
    return 1;
}

static void trace(const int *A, int na, const int *B, int nb, int cap_a, int cap_b, int ranks_a,
                  int ranks_b)
{
    tr.splits++;
    if (na < 1 || nb < 1) {
        tr.bad_sizes++;
        problem("empty half");
    }
    int ca = 0, cb = 0;
    tr.stamp++;
    for (int i = 0; i < na; i++) {
        ca += tr.slots_of[A[i]];
        tr.seen[A[i]] = tr.stamp;
        if (!tr.slots_of[A[i]])
            problem("node not in the allocation");
    }
    for (int i = 0; i < nb; i++) {
        cb += tr.slots_of[B[i]];
        if (tr.seen[B[i]] == tr.stamp) {
            tr.bad_sizes++;
            problem("a node in both halves");
        }
    }
    if (ca != cap_a || cb != cap_b) {
        tr.bad_caps++;
        problem("capacities differ from the allocation's slots");
    }
    if (ranks_a > ca || ranks_b > cb ||
        (ranks_a + ranks_b == ca + cb && (ranks_a != ca || ranks_b != cb))) {
        tr.bad_counts++;
        problem("graph parts do not match the halves");
    }
    if (!separated(A, na, B, nb)) {
        tr.not_compact++;
        problem("halves not separated in the network");
    }
}

static void check_splits(const char *what, const topomap_topology_t *t, const char *hosts,
                         const char *slots, const topomap_profile_t *p)
{
    topomap_alloc_t *a = topomap_alloc_create(t, hosts, slots, err, sizeof err);
    if (!a) {
        ok(0, "%s: allocation: %s", what, err);
        return;
    }
    int nn = topomap_topology_nnodes(t), n = topomap_profile_nranks(p);
    int ns = topomap_alloc_nslots(a);
    memset(&tr, 0, sizeof tr);
    tr.t = t;
    tr.slots_of = calloc((size_t)nn, sizeof(int));
    tr.seen = calloc((size_t)(nn > 64 ? nn : 64), sizeof(int));
    for (int s = 0; s < ns; s++)
        tr.slots_of[topomap_alloc_slot_node(a, s)]++;
    int *r2s = malloc(sizeof(int) * (size_t)n);
    topomap_tuning()->drb_trace = trace;
    int rc = topomap_map("drb", p, a, NULL, r2s, err, sizeof err);
    topomap_tuning()->drb_trace = NULL;
    ok(rc == 0 && valid(r2s, n, ns), "%s: valid injective mapping %s", what, rc ? err : "");
    ok(tr.bad_sizes == 0 && tr.bad_caps == 0,
       "%s: every split halves the nodes, capacities = the halves' slots (%d splits) %s", what,
       tr.splits, tr.first_problem);
    ok(tr.bad_counts == 0, "%s: every split gives each half ranks that fit, exactly its slots "
                           "when the job is full %s", what, tr.first_problem);
    ok(tr.not_compact == 0, "%s: the halves of every split are separated in the network %s",
       what, tr.first_problem);
    if (n == ns)
        is_int(tr.splits, topomap_alloc_nnodes(a) - 1, "%s: nodes - 1 splits", what);
    free(r2s);
    free(tr.slots_of);
    free(tr.seen);
    topomap_alloc_free(a);
}

static void test_splits(void)
{
    int d3[] = {4, 4, 4}, w3[] = {1, 1, 1}, d2[] = {6, 5}, w2[] = {0, 0};
    topomap_topology_t *torus = topomap_topology_torus(3, d3, w3, 2, NULL, err, sizeof err);
    topomap_topology_t *mesh = topomap_topology_torus(2, d2, w2, 1, NULL, err, sizeof err);
    int ar[] = {3, 4, 4}, hops[] = {6, 4, 2};
    topomap_topology_t *tree = topomap_topology_tree(3, ar, hops, 2, NULL, err, sizeof err);
    topomap_topology_t *th3 = topomap_topology_tianhe3(2, 3, 8, 2, NULL, err, sizeof err);
    ok(torus && mesh && tree && th3, "topologies for the bisection tests");
    if (!torus || !mesh || !tree || !th3)
        return;
    topomap_profile_t *p128 = random_profile(128, 4), *p30 = stencil(6, 5, 1, 0, 1);
    topomap_profile_t *p96 = random_profile(96, 3), *p90 = random_profile(90, 5);
    topomap_profile_t *p80 = random_profile(80, 5);
    check_splits("4x4x4 torus, 2 slots", torus, "node[00-63]", NULL, p128);
    check_splits("4x4x4 torus, 48 scattered nodes, 1-3 slots, 80 ranks on 88", torus,
                 "node[00-03,07-12,15-19,21-25,28-36,40-44,46-54,56-58,62-63]", "2(x20),3(x10),1(x18)",
                 p80);
    check_splits("6x5 mesh", mesh, "node[00-29]", NULL, p30);
    check_splits("3-level fat-tree, 2 slots", tree, "node[00-47]", NULL, p96);
    check_splits("fat-tree, 45 of 48 nodes, 90 ranks on 90 slots", tree,
                 "node[00-05,07-19,21-40,42-47]", NULL, p90);
    check_splits("Tianhe-3 2x3 chips x 8 nodes, 2 slots", th3, "node[00-47]", NULL, p96);
    check_splits("Tianhe-3, 96 slots, 90 ranks (not full)", th3, "node[00-47]", NULL, p90);
    topomap_profile_free(p128);
    topomap_profile_free(p30);
    topomap_profile_free(p96);
    topomap_profile_free(p90);
    topomap_profile_free(p80);
    topomap_topology_free(torus);
    topomap_topology_free(mesh);
    topomap_topology_free(tree);
    topomap_topology_free(th3);
}

/* ---- drb: stencils on matching machines ---------------------------------- */

static void stencil_case(int x, int y, int z, int wrap, int periodic, int cores)
{
    int dims[] = {x, y, z}, w[] = {wrap, wrap, wrap};
    topomap_topology_t *t = topomap_topology_torus(3, dims, w, cores, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
    /* The stencil has cores x as many points along x: a node holds a line
     * of cores points. */
    topomap_profile_t *p = stencil(x * cores, y, z, periodic, 1);
    int n = topomap_profile_nranks(p), *r2s = malloc(sizeof(int) * (size_t)n);
    int rc = a ? topomap_map("drb", p, a, NULL, r2s, err, sizeof err) : -1;
    /* Optimum: every edge between two nodes is one hop, and only the
     * x-edges between lines cross nodes. */
    double hb = rc == 0 ? hop_bytes(p, a, r2s) : -1;
    int *id = malloc(sizeof(int) * (size_t)n);
    /* The identity of an unshuffled stencil is optimal: recompute it. */
    topomap_profile_t *q = stencil(x * cores, y, z, periodic, 0);
    for (int i = 0; i < n; i++)
        id[i] = i;
    double opt = a ? hop_bytes(q, a, id) : -2;
    ok(rc == 0 && hb == opt, "%s stencil %dx%dx%d, shuffled, on the %dx%dx%d %s with %d core%s: "
                              "drb finds the optimum (%.6g, optimum %.6g)",
       periodic ? "periodic" : "open", x * cores, y, z, x, y, z, wrap ? "torus" : "mesh", cores,
       cores > 1 ? "s" : "", hb, opt);
    free(id);
    free(r2s);
    topomap_profile_free(p);
    topomap_profile_free(q);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

static void test_stencils(void)
{
    stencil_case(4, 4, 4, 0, 0, 1);
    stencil_case(8, 4, 4, 0, 0, 1);
    stencil_case(8, 8, 8, 0, 0, 1);
    stencil_case(4, 4, 4, 1, 1, 1);
    stencil_case(4, 4, 2, 1, 1, 1);
    /* Not reached, and not tested: an open stencil on a torus (the wrap lets
     * the bisections place the ends of the stencil on either side) and
     * stencils with several points per node whose cut shape differs from the
     * node shape (doc/limits.md#limits-and-known-gaps). */
}

/* ---- refinement ------------------------------------------------------------ */

/* After convergence in the neighbourhood scope, no rank i can gain by an
 * exchange with a slot of the group of one of its neighbours or of a group
 * adjacent to it in the torus: no exchange there improves while i itself
 * would be better off on that node (x_i > 0, the side from which the engine
 * looks; an exchange that only pays from the partner's side is the partner's
 * to find, in its own neighbourhood). The neighbourhoods are recomputed here
 * from coordinates; gains by topomap_xchg_gain (checked against
 * recomputation in algorithms.t). */
static int firstslot(const int *sn, int ns, int node)
{
    for (int s = 0; s < ns; s++)
        if (sn[s] == node)
            return s;
    return 0;
}

static void test_refine_local_optimum(void)
{
    int dims[] = {6, 5, 4}, wrap[] = {1, 0, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 2, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "node[000-119]", NULL, err, sizeof err) : NULL;
    ok(a != NULL, "6x5x4 torus/mesh, 2 cores");
    if (!a)
        return;
    for (int c = 0; c < 3; c++) {
        topomap_profile_t *p = c == 2 ? stencil(10, 6, 4, 0, 1) : random_profile(230 - c, 3);
        int n = topomap_profile_nranks(p);
        struct prob P;
        prob_init(&P, p, a);
        const struct topomap_problem *pbp = &P.pb;
        const int *sn = P.sn;
        int *r2s = malloc(sizeof(int) * (size_t)n);
        topomap_map("random", p, a, NULL, r2s, err, sizeof err);
        double before = hop_bytes(p, a, r2s);
        struct topomap_xchg x;
        topomap_xchg_init(&x, pbp, err, sizeof err);
        topomap_xchg_place(&x, r2s);
        struct topomap_refine_params rp = {0, 0, 0, TOPOMAP_REFINE_NEAR};
        struct topomap_refine_stats st;
        int rc = topomap_xchg_refine(&x, &rp, &st, err, sizeof err);
        ok(rc == 0 && st.converged && !st.all,
           "case %d: neighbourhood refinement converges (%ld passes, %ld swaps, %ld moves)", c,
           st.passes, st.swaps, st.moves);
        double after = hop_bytes(p, a, x.r2s);
        is_double(before - after, st.gain, 1e-9 * before,
                  "case %d: reported gain is the true one", c);
        /* Independent neighbourhoods. */
        int bad = 0, checked = 0;
        for (int i = 0; i < n && !bad; i++) {
            for (int64_t e = pbp->g.xadj[i]; e < pbp->g.xadj[i + 1] && !bad; e++) {
                int v = sn[x.r2s[pbp->g.adj[e]]], cv[3];
                topomap_topology_coords(t, v, cv, 3);
                for (int q = -1; q < 6 && !bad; q++) {
                    int cw[3] = {cv[0], cv[1], cv[2]};
                    if (q >= 0) {
                        int k = q / 2, dir = q % 2 ? 1 : -1;
                        cw[k] += dir;
                        if (cw[k] < 0 || cw[k] >= dims[k]) {
                            if (!wrap[k])
                                continue;
                            cw[k] = (cw[k] + dims[k]) % dims[k];
                        }
                    }
                    int node = cw[0] + dims[0] * (cw[1] + dims[1] * cw[2]);
                    double xi = x.cost[i] - topomap_xchg_cost_at(
                                         &x, i, x.slot_grp[firstslot(sn, pbp->nslots, node)]);
                    for (int s = 0; s < pbp->nslots; s++)
                        if (sn[s] == node && node != sn[x.r2s[i]]) {
                            double gsw = topomap_xchg_gain(&x, x.r2s[i], s);
                            checked++;
                            if (xi > 0 && gsw > 1e-9 * (x.cost[i] + 1)) {
                                bad = 1;
                                diag("rank %d -> slot %d gains %g", i, s, gsw);
                            }
                        }
                }
            }
        }
        ok(!bad, "case %d: no improving exchange or move left in the neighbourhoods (%d checked)",
           c, checked);
        topomap_xchg_free(&x);
        free(r2s);
        prob_free(&P);
        topomap_profile_free(p);
    }
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* ---- threads, time limits, auto ------------------------------------------- */

static void test_threads(void)
{
    int dims[] = {16, 16, 16}, wrap[] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 1, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "node[0000-4095]", NULL, err, sizeof err) : NULL;
    ok(a != NULL, "16x16x16 torus, one slot per node");
    if (!a)
        return;
    topomap_profile_t *p = stencil(16, 16, 16, 0, 1);
    int n = 4096, *ref = malloc(sizeof(int) * n), *got = malloc(sizeof(int) * n);
    const char *names[] = {"drb", "drb+refine", "block+refine", "auto"};
    for (int k = 0; k < 4; k++) {
        int same = 1;
        for (int th = 1; th <= 4; th *= 2) {
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.nthreads = th;
            if (topomap_map(names[k], p, a, &o, th == 1 ? ref : got, err, sizeof err) < 0) {
                same = 0;
                diag("%s: %s", names[k], err);
            } else if (th > 1 && memcmp(ref, got, sizeof(int) * (size_t)n))
                same = 0;
        }
        ok(same, "%s, 4096 ranks on 4096 nodes (neighbourhood refinement): same mapping for 1, "
                 "2 and 4 threads", names[k]);
    }
    /* auto at the smallest time limit: block at least, valid, no error. */
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.time_limit = 1e-6;
    int rc = topomap_map("auto", p, a, &o, got, err, sizeof err);
    for (int i = 0; i < n; i++)
        ref[i] = i;
    ok(rc == 0 && valid(got, n, n) && hop_bytes(p, a, got) <= hop_bytes(p, a, ref),
       "auto with a 1 us time limit: a valid mapping no worse than block %s", rc ? err : "");
    o.time_limit = 1e-6;
    rc = topomap_map("drb", p, a, &o, got, err, sizeof err);
    ok(rc < 0 && errno == ETIMEDOUT, "drb (not budgeted) with a 1 us limit: ETIMEDOUT");
    free(ref);
    free(got);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

static void test_auto_floor(void)
{
    /* Cases where block is already optimal or hard to beat: auto keeps it
     * (ties go to block), and is never worse on random cases. */
    int dims[] = {4, 4, 2}, wrap[] = {1, 1, 0};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 1, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "node[00-31]", NULL, err, sizeof err) : NULL;
    topomap_profile_t *p = stencil(4, 4, 2, 0, 0); /* block order: every edge one hop */
    int *r2s = malloc(sizeof(int) * 32), *id = malloc(sizeof(int) * 32);
    for (int i = 0; i < 32; i++)
        id[i] = i;
    ok(a && topomap_map("auto", p, a, NULL, r2s, err, sizeof err) == 0 &&
           !memcmp(r2s, id, sizeof(int) * 32),
       "auto on a stencil whose rank order is optimal: block's layout itself kept (ties)");
    topomap_alloc_free(a);
    topomap_topology_free(t);
    t = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    a = t ? topomap_alloc_create(t, "node[00-31]", NULL, err, sizeof err) : NULL;
    free(r2s);
    free(id);
    r2s = malloc(sizeof(int) * 128);
    id = malloc(sizeof(int) * 128);
    for (int i = 0; i < 128; i++)
        id[i] = i;
    int worse = 0;
    for (int c = 0; c < 6; c++) {
        topomap_profile_t *q = random_profile(100 + 5 * c, 2 + c % 3);
        int n = topomap_profile_nranks(q);
        if (topomap_map("auto", q, a, NULL, r2s, err, sizeof err) < 0 ||
            hop_bytes(q, a, r2s) > hop_bytes(q, a, id) || !valid(r2s, n, 128))
            worse++;
        (void)n;
        topomap_profile_free(q);
    }
    is_int(worse, 0, "auto never worse than block on 6 random profiles");
    free(r2s);
    free(id);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

static void count_skips(const char *line, void *arg)
{
    if (strstr(line, "skipped"))
        ++*(int *)arg;
}

/* auto's work budget (map_auto.c): the algorithms count their work, the
 * same for any thread count; analytic declines over its allowance; auto with
 * no budget left runs only its fixed candidates, deterministically. */
static void test_work_budget(void)
{
    int dims[] = {8, 8, 8}, wrap[] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 1, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
    ok(a != NULL, "8x8x8 torus, one slot per node");
    if (!a)
        return;
    /* A random graph: no process grid for auto's grid candidate. */
    topomap_profile_t *p = random_profile(512, 3);
    int n = 512, *r2s = malloc(sizeof(int) * n), *ref = malloc(sizeof(int) * n);
    struct prob P;
    prob_init(&P, p, a);
    double w = 0;
    P.pb.work = &w;
    int rc = topomap_map_drb(&P.pb, r2s, err, sizeof err);
    ok(rc == 0 && w > 0, "drb counts its METIS work (%g units)", w);
    double w_drb = w;
    struct topomap_refine_stats st;
    struct topomap_refine_params rp = {0, 0, REFINE_MIN_GAIN, TOPOMAP_REFINE_NEAR};
    rc = topomap_refine(&P.pb, r2s, &rp, &st, err, sizeof err);
    ok(rc == 0 && st.work > 0 && st.looks > 0 && w > w_drb,
       "the refinement counts edges (%ld) and group looks (%ld)", st.work, st.looks);
    w = 0;
    P.pb.work_limit = 1;
    rc = topomap_map_analytic_anchor(&P.pb, r2s, err, sizeof err);
    ok(rc < 0 && errno == ECANCELED, "analytic-anchor declines over a 1-unit allowance");
    like(err, "work units", "and says its estimate: %s", err);
    P.pb.work_limit = 0;
    w = 0;
    rc = topomap_map_analytic_anchor(&P.pb, r2s, err, sizeof err);
    ok(rc == 0 && w > 0, "without an allowance it runs and counts its flops (%g units)", w);
    P.pb.work = NULL;
    prob_free(&P);

    /* No budget: block, then drb + refine, so auto gives drb + refine's
     * mapping, which beats block. */
    double budget = topomap_tuning()->auto_work_budget;
    topomap_tuning()->auto_work_budget = 0;
    int same = 1;
    ok(topomap_map("drb+refine", p, a, NULL, ref, err, sizeof err) == 0, "drb+refine");
    for (int th = 1; th <= 4; th *= 2) {
        topomap_opts_t o;
        topomap_opts_init(&o);
        o.nthreads = th;
        same = same && topomap_map("auto", p, a, &o, r2s, err, sizeof err) == 0 &&
               !memcmp(r2s, ref, sizeof(int) * (size_t)n);
    }
    ok(same, "auto without budget: drb + refine's mapping, for 1, 2 and 4 threads");
    /* Budgets between nothing and everything: the same choices for any
     * thread count (the work counts do not depend on it). */
    double budgets[] = {1e6, 2e8, 4e8, 1e12};
    int skipped[4];
    for (int b = 0; b < 4; b++) {
        topomap_tuning()->auto_work_budget = budgets[b];
        same = 1;
        for (int th = 1; th <= 4; th *= 2) {
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.nthreads = th;
            o.log = count_skips;
            o.log_arg = &skipped[b];
            skipped[b] = 0;
            same = same &&
                   topomap_map("auto", p, a, &o, th == 1 ? ref : r2s, err, sizeof err) == 0 &&
                   (th == 1 || !memcmp(r2s, ref, sizeof(int) * (size_t)n));
        }
        ok(same, "auto with a budget of %g units: the same mapping for 1, 2 and 4 threads",
           budgets[b]);
        diag("budget %g: %d candidates skipped, hop-bytes %g", budgets[b], skipped[b],
             hop_bytes(p, a, ref));
    }
    ok(skipped[0] > skipped[2] && skipped[2] > skipped[3] && skipped[3] == 0,
       "the smaller the budget, the more candidates skipped (%d, %d, %d, %d)", skipped[0],
       skipped[1], skipped[2], skipped[3]);
    topomap_tuning()->auto_work_budget = budget;
    free(r2s);
    free(ref);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    test_splits();
    test_stencils();
    test_refine_local_optimum();
    test_threads();
    test_auto_floor();
    test_work_budget();
    return done_testing();
}
