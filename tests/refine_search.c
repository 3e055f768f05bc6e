/* SPDX-License-Identifier: BSD-3-Clause */
/* The searches beyond single exchanges. Whole-node exchanges
 * (libtopomap/refine_groups.c): cliques of node size placed in the wrong order
 * along a line, which no exchange of single ranks can repair, come out in
 * order; the hop-bytes reported removed are the true ones; after convergence
 * no exchange of two nodes' contents improves (checked by brute force); the
 * same mapping for 1, 2 and 4 threads. Local descent and iterated local
 * search (libtopomap/refine_ils.c): the descent ends where no rank it looked at can
 * improve, the search never returns worse than it got, reports the true gain,
 * escapes the local optima of the refinement on random profiles, and auto
 * (which runs it) gives the same mapping for 1, 2 and 4 threads. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "problem.h"
#include "synth.h"
#include "tap.h"
#include "refine.h"

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* k cliques of c ranks (1000 bytes each way inside), clique i linked to
 * clique i + 1 by one edge of 10 bytes each way. */
static topomap_profile_t *clique_chain(int k, int c)
{
    int n = k * c, m = 0, cap = n * c + 2 * k;
    int *src = malloc(sizeof(int) * (size_t)cap), *dst = malloc(sizeof(int) * (size_t)cap);
    double *b = malloc(sizeof(double) * (size_t)cap);
    for (int q = 0; q < k; q++) {
        for (int i = 0; i < c; i++)
            for (int j = 0; j < c; j++)
                if (i != j)
                    src[m] = q * c + i, dst[m] = q * c + j, b[m++] = 1000;
        if (q + 1 < k) {
            src[m] = q * c + c - 1, dst[m] = (q + 1) * c, b[m++] = 10;
            src[m] = (q + 1) * c, dst[m] = q * c + c - 1, b[m++] = 10;
        }
    }
    topomap_profile_t *p = topomap_profile_create(n, (size_t)m, src, dst, b, NULL, err, sizeof err);
    free(src);
    free(dst);
    free(b);
    return p;
}

/* The best exchange of two nodes' contents, evaluated from scratch (every
 * pair of groups whose contents fit each other's slots). */
static double best_group_exchange(const struct prob *P, const topomap_profile_t *p,
                                  const topomap_alloc_t *a, const int *r2s)
{
    int n = P->pb.n, ns = P->pb.nslots, nn = topomap_topology_nnodes(P->pb.topo);
    int *cnt = calloc((size_t)nn, sizeof(int)), *slots = calloc((size_t)nn, sizeof(int));
    int *t = malloc(sizeof(int) * (size_t)n), *fill = malloc(sizeof(int) * (size_t)nn);
    for (int s = 0; s < ns; s++)
        slots[P->sn[s]]++;
    for (int i = 0; i < n; i++)
        cnt[P->sn[r2s[i]]]++;
    double base = hop_bytes(p, a, r2s), best = 0;
    for (int u = 0; u < nn; u++)
        for (int v = u + 1; v < nn; v++) {
            if (!slots[u] || !slots[v] || (!cnt[u] && !cnt[v]) || cnt[u] > slots[v] ||
                cnt[v] > slots[u])
                continue;
            memset(fill, 0, sizeof(int) * (size_t)nn);
            for (int i = 0; i < n; i++) {
                int w = P->sn[r2s[i]];
                int to = w == u ? v : w == v ? u : -1;
                if (to < 0) {
                    t[i] = r2s[i];
                    continue;
                }
                /* The fill[to]-th slot of node to. */
                int k = fill[to]++;
                for (int s = 0; s < ns; s++)
                    if (P->sn[s] == to && k-- == 0) {
                        t[i] = s;
                        break;
                    }
            }
            double g = base - hop_bytes(p, a, t);
            if (g > best)
                best = g;
        }
    free(cnt);
    free(slots);
    free(t);
    free(fill);
    return best;
}

/* A torus (wrap in every dimension) of the given cores, every node
 * allocated; NULL after a failed ok(). */
static topomap_alloc_t *torus_alloc(int nd, int *dims, int cores, topomap_topology_t **t)
{
    int wrap[3] = {1, 1, 1};
    *t = topomap_topology_torus(nd, dims, wrap, cores, NULL, err, sizeof err);
    topomap_alloc_t *a = *t ? prob_all_nodes(*t, NULL, err, sizeof err) : NULL;
    ok(a != NULL, "%dx%dx%d torus of %d cores", dims[0], dims[1], dims[2], cores);
    return a;
}

/* 1 when algo gives the same mapping for 1, 2 and 4 threads (ref and got:
 * n ints of scratch). */
static int same_for_threads(const char *algo, const topomap_profile_t *p,
                            const topomap_alloc_t *a, int *ref, int *got, int n)
{
    int same = 1;
    for (int th = 1; th <= 4; th *= 2) {
        topomap_opts_t o;
        topomap_opts_init(&o);
        o.nthreads = th;
        if (topomap_map(algo, p, a, &o, th == 1 ? ref : got, err, sizeof err) < 0)
            same = 0;
        else if (th > 1 && memcmp(ref, got, sizeof(int) * (size_t)n))
            same = 0;
    }
    return same;
}

static void test_clique_chain(void)
{
    int dims[] = {6}, wrap[] = {0};
    topomap_topology_t *t = topomap_topology_torus(1, dims, wrap, 4, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, NULL, err, sizeof err) : NULL;
    ok(a != NULL, "a line of 6 nodes of 4 cores");
    if (!a)
        return;
    topomap_profile_t *p = clique_chain(6, 4);
    struct prob P;
    prob_init(&P, p, a);
    /* Clique q on node order[q]: cliques 2 and 4 exchanged. */
    int order[6] = {0, 1, 4, 3, 2, 5}, r2s[24];
    for (int q = 0; q < 6; q++)
        for (int i = 0; i < 4; i++)
            r2s[q * 4 + i] = order[q] * 4 + i;
    double before = hop_bytes(p, a, r2s);

    /* Single-rank exchanges alone cannot repair it. */
    struct topomap_xchg x;
    topomap_xchg_init(&x, &P.pb, err, sizeof err);
    topomap_xchg_place(&x, r2s);
    struct topomap_refine_stats st;
    struct topomap_refine_params rp = {0, 0, 0, TOPOMAP_REFINE_ALL};
    topomap_xchg_refine(&x, &rp, &st, err, sizeof err);
    ok(st.converged && st.gain == 0, "clique chain: no single-rank exchange improves (gain %g)",
       st.gain);
    double removed = -1;
    int rc = topomap_refine_groups(&x, 0, &removed, err, sizeof err);
    double after = hop_bytes(p, a, x.r2s);
    ok(rc == 0 && valid(x.r2s, 24, 24), "clique chain: whole-node exchanges give a valid mapping");
    is_double(before - after, removed, 1e-9 * before, "clique chain: removed = the true change");
    /* Optimum: the 5 links of the chain one hop each, 10 bytes each way. */
    is_double(after, 5 * 2 * 10, 1e-9, "clique chain: in order along the line (%g -> %g)", before,
              after);
    int whole = 1;
    for (int q = 0; q < 6; q++)
        for (int i = 1; i < 4; i++)
            whole &= P.sn[x.r2s[q * 4 + i]] == P.sn[x.r2s[q * 4]];
    ok(whole, "clique chain: every clique still on one node");
    topomap_xchg_free(&x);

    /* The public refinement does the same. */
    rc = topomap_refine(&P.pb, r2s, NULL, NULL, err, sizeof err);
    is_double(rc == 0 ? hop_bytes(p, a, r2s) : -1, 100, 1e-9,
              "clique chain: topomap_refine reaches the optimum too");
    prob_free(&P);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* Random profiles on a 4x3x3 torus of 4 cores, full and partial: removed =
 * true change, no improving group exchange left, same for 1, 2, 4 threads. */
static void test_random(void)
{
    int dims[] = {4, 3, 3};
    topomap_topology_t *t;
    topomap_alloc_t *a = torus_alloc(3, dims, 4, &t);
    if (!a)
        return;
    int sizes[] = {144, 130, 97};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        topomap_profile_t *p = random_profile(n, 3);
        struct prob P;
        prob_init(&P, p, a);
        int *r2s = malloc(sizeof(int) * (size_t)n), *ref = malloc(sizeof(int) * (size_t)n);
        topomap_map("random", p, a, NULL, r2s, err, sizeof err);
        struct topomap_xchg x;
        topomap_xchg_init(&x, &P.pb, err, sizeof err);
        topomap_xchg_place(&x, r2s);
        double before = hop_bytes(p, a, r2s), removed = -1;
        int rc = topomap_refine_groups(&x, 0, &removed, err, sizeof err);
        double after = hop_bytes(p, a, x.r2s);
        ok(rc == 0 && valid(x.r2s, n, P.pb.nslots) && removed > 0,
           "%d ranks: valid, %g removed", n, removed);
        is_double(before - after, removed, 1e-9 * before, "%d ranks: removed = the true change", n);
        double left = best_group_exchange(&P, p, a, x.r2s);
        ok(left <= 1e-9 * after, "%d ranks: no improving whole-node exchange left (best %g)", n,
           left);
        topomap_xchg_free(&x);
        ok(same_for_threads("random+refine", p, a, ref, r2s, n), "%d ranks: random+refine gives the same mapping for 1, 2 and 4 threads", n);
        free(r2s);
        free(ref);
        prob_free(&P);
        topomap_profile_free(p);
    }
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* The descent from every rank, with free slots: afterwards no rank can
 * improve by moving to a free slot on the node of one of its partners
 * (checked by brute force; such a move depends only on where the rank's
 * partners are, and a rank is looked at again whenever one of them moves). */
static void test_descend(void)
{
    int dims[] = {4, 3, 3};
    topomap_topology_t *t;
    topomap_alloc_t *a = torus_alloc(3, dims, 4, &t);
    if (!a)
        return;
    int n = 126;
    topomap_profile_t *p = random_profile(n, 4);
    struct prob P;
    prob_init(&P, p, a);
    int *r2s = malloc(sizeof(int) * (size_t)n), *all = malloc(sizeof(int) * (size_t)n);
    topomap_map("random", p, a, NULL, r2s, err, sizeof err);
    for (int i = 0; i < n; i++)
        all[i] = i;
    struct topomap_xchg x;
    topomap_xchg_init(&x, &P.pb, err, sizeof err);
    topomap_xchg_place(&x, r2s);
    double before = hop_bytes(p, a, r2s), gain = -1;
    /* A deadline already past: nothing taken from the queue. */
    double late = -1;
    int rc = topomap_xchg_descend(&x, all, n, topomap_now() - 1, &late, err, sizeof err);
    ok(rc == 0 && late == 0 && hop_bytes(p, a, x.r2s) == before,
       "descent past its deadline: nothing done (%g removed)", late);
    rc = topomap_xchg_descend(&x, all, n, 0, &gain, err, sizeof err);
    double after = hop_bytes(p, a, x.r2s);
    ok(rc == 0 && valid(x.r2s, n, P.pb.nslots) && gain > 0, "descent: valid, %g removed", gain);
    is_double(before - after, gain, 1e-9 * before, "descent: removed = the true change");
    int bad = 0;
    for (int i = 0; i < n && !bad; i++)
        for (int64_t e = P.pb.g.xadj[i]; e < P.pb.g.xadj[i + 1] && !bad; e++) {
            int v = P.sn[x.r2s[P.pb.g.adj[e]]];
            for (int s = 0; s < P.pb.nslots && !bad; s++)
                if (P.sn[s] == v && v != P.sn[x.r2s[i]] && x.s2r[s] < 0) {
                    int *t2 = malloc(sizeof(int) * (size_t)n);
                    memcpy(t2, x.r2s, sizeof(int) * (size_t)n);
                    int j = x.s2r[s];
                    if (j >= 0)
                        t2[j] = x.r2s[i];
                    t2[i] = s;
                    if (hop_bytes(p, a, t2) < after * (1 - 1e-9)) {
                        bad = 1;
                        diag("rank %d -> slot %d improves", i, s);
                    }
                    free(t2);
                }
        }
    ok(!bad, "descent: no rank can improve by moving to a free slot on a partner's node");
    topomap_xchg_free(&x);
    free(r2s);
    free(all);
    prob_free(&P);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* Iterated local search from refined mappings of random profiles. */
static void test_ils(void)
{
    int dims[] = {4, 4, 4};
    topomap_topology_t *t;
    topomap_alloc_t *a = torus_alloc(3, dims, 2, &t);
    if (!a)
        return;
    int sizes[] = {128, 100, 64};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        topomap_profile_t *p = random_profile(n, 3);
        struct prob P;
        prob_init(&P, p, a);
        int *r2s = malloc(sizeof(int) * (size_t)n), *ref = malloc(sizeof(int) * (size_t)n);
        topomap_map("drb+refine", p, a, NULL, r2s, err, sizeof err);
        double before = hop_bytes(p, a, r2s), removed = -1;
        int rc = topomap_refine_ils(&P.pb, r2s, 100, 0, &removed, err, sizeof err);
        double after = hop_bytes(p, a, r2s);
        ok(rc == 0 && valid(r2s, n, P.pb.nslots), "%d ranks: iterated local search: valid", n);
        is_double(before - after, removed, 1e-9 * before, "%d ranks: removed = the true change", n);
        ok(removed > 0, "%d ranks: it escapes drb+refine's local optimum (%g -> %g)", n, before,
           after);
        ok(same_for_threads("auto", p, a, ref, r2s, n), "%d ranks: auto (with the search) gives the same mapping for 1, 2, 4 threads", n);
        free(r2s);
        free(ref);
        prob_free(&P);
        topomap_profile_free(p);
    }
    /* Nothing to gain: a stencil already optimal stays as it is. */
    topomap_profile_t *p = stencil(4, 4, 4, 1, 0);
    topomap_topology_t *t1;
    topomap_alloc_t *a1 = torus_alloc(3, dims, 1, &t1);
    if (p && a1) {
        struct prob P;
        prob_init(&P, p, a1);
        int r2s[64];
        for (int i = 0; i < 64; i++)
            r2s[i] = i;
        double removed = -1;
        int rc = topomap_refine_ils(&P.pb, r2s, 50, 0, &removed, err, sizeof err);
        int same = 1;
        for (int i = 0; i < 64; i++)
            same &= r2s[i] == i;
        ok(rc == 0 && removed == 0 && same, "optimal periodic stencil: left as it is");
        prob_free(&P);
    }
    topomap_profile_free(p);
    topomap_alloc_free(a1);
    topomap_topology_free(t1);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    test_clique_chain();
    test_random();
    test_descend();
    test_ils();
    return done_testing();
}
