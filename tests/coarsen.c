/* SPDX-License-Identifier: BSD-3-Clause */
/* The multilevel mapping of large jobs (coarsen.c): node-sized groups that
 * respect the slot counts, valid mappings no worse than block, the same
 * answer for any thread count, nodes of unequal slot counts declined, and
 * auto's switch to it above the tuning's coarse_min ranks; drb's quick mode,
 * which maps its groups. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coarsen.h"
#include "internal.h"
#include "problem.h"
#include "synth.h"
#include "tap.h"

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* Groups of at most cap ranks, sizes within one of each other, every group
 * used, ceil(n / cap) of them. */
static void check_groups(const struct prob *P, int cap, const char *what)
{
    int n = P->pb.n, ng = -1;
    int *group = malloc(sizeof(int) * (size_t)n), *again = malloc(sizeof(int) * (size_t)n);
    int rc = topomap_coarsen_groups(&P->pb, cap, group, &ng, err, sizeof err);
    ok(rc == 0, "%s: coarsened (%s)", what, rc ? err : "ok");
    if (rc) {
        free(group), free(again);
        return;
    }
    is_int(ng, (n + cap - 1) / cap, "%s: ceil(%d / %d) groups", what, n, cap);
    int *cnt = calloc((size_t)ng, sizeof(int)), range = 1;
    for (int i = 0; i < n; i++) {
        if (group[i] < 0 || group[i] >= ng)
            range = 0;
        else
            cnt[group[i]]++;
    }
    ok(range, "%s: every rank in a group", what);
    int lo = n, hi = 0;
    for (int g = 0; range && g < ng; g++) {
        lo = cnt[g] < lo ? cnt[g] : lo;
        hi = cnt[g] > hi ? cnt[g] : hi;
    }
    ok(range && hi <= cap && lo >= 1 && hi - lo <= 1,
       "%s: group sizes %d to %d, at most the %d slots of a node", what, lo, hi, cap);
    int ng2 = -1;
    rc = topomap_coarsen_groups(&P->pb, cap, again, &ng2, err, sizeof err);
    ok(rc == 0 && ng2 == ng && !memcmp(group, again, sizeof(int) * (size_t)n),
       "%s: the same groups twice", what);
    free(cnt), free(group), free(again);
}

/* topomap_map_coarse: valid, below block's hop-bytes, below a random
 * placement's by far. */
static void check_map(struct prob *P, const topomap_profile_t *p, const topomap_alloc_t *a,
                      const char *what)
{
    int n = P->pb.n, ns = P->pb.nslots;
    int *r2s = malloc(sizeof(int) * (size_t)n), *blk = malloc(sizeof(int) * (size_t)n);
    int rc = topomap_map_coarse(&P->pb, r2s, err, sizeof err);
    ok(rc == 0 && valid(r2s, n, ns), "%s: multilevel mapping valid (%s)", what,
       rc ? err : "ok");
    topomap_map_block(&P->pb, blk, err, sizeof err);
    double hb = hop_bytes(p, a, r2s), hblk = hop_bytes(p, a, blk);
    ok(rc == 0 && hb < hblk, "%s: hop-bytes %.6g below block's %.6g", what, hb, hblk);
    free(r2s), free(blk);
}

/* Every node of a torus (dims[0..nd), wrapped) of `cores` cores, with the
 * slots given (NULL: every core); NULL when it cannot be made (said). */
static topomap_alloc_t *whole_torus(int nd, const int *dims, int cores, const char *slots,
                                    const char *what, topomap_topology_t **t)
{
    int wrap[3] = {1, 1, 1};
    *t = topomap_topology_torus(nd, dims, wrap, cores, NULL, err, sizeof err);
    topomap_alloc_t *a = *t ? prob_all_nodes(*t, slots, err, sizeof err) : NULL;
    ok(a != NULL, "%s (%s)", what, a ? "ok" : err);
    if (!a) {
        topomap_topology_free(*t);
        *t = NULL;
    }
    return a;
}

static void test_groups_and_map(void)
{
    int dims[] = {8, 8, 4};
    topomap_topology_t *t;
    topomap_alloc_t *a = whole_torus(3, dims, 8, NULL, "8x8x4 torus of 8 cores, every node", &t);
    if (!a)
        return;
    /* Full: 2048 ranks on 256 nodes x 8 slots, a shuffled stencil. */
    topomap_profile_t *p = stencil(16, 16, 8, 1, 1);
    struct prob P;
    prob_init(&P, p, a);
    ok(topomap_coarse_applies(&P.pb), "every node holds 8 slots: multilevel applies");
    check_groups(&P, 8, "stencil 2048 ranks, 8 per node");
    check_map(&P, p, a, "stencil 2048 ranks, 8 per node");
    prob_free(&P);
    topomap_profile_free(p);
    /* Not full and irregular: 1500 ranks of a random graph (188 groups, the
     * last ones of 7 ranks). */
    p = random_profile(1500, 4);
    prob_init(&P, p, a);
    check_groups(&P, 8, "random graph 1500 ranks, 8 per node");
    check_map(&P, p, a, "random graph 1500 ranks, 8 per node");
    /* Groups of one rank and a single group. */
    check_groups(&P, 1, "random graph 1500 ranks, groups of 1");
    check_groups(&P, 2048, "random graph 1500 ranks, one group");
    prob_free(&P);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* Nodes of unequal slot counts: declined with ECANCELED, auto goes on with
 * drb + refine. */
static void test_unequal(void)
{
    int dims[] = {4, 4};
    topomap_topology_t *t;
    topomap_alloc_t *a =
        whole_torus(2, dims, 4, "4(x15),2", "4x4 torus, 15 nodes of 4 slots and one of 2", &t);
    if (!a)
        return;
    topomap_profile_t *p = stencil(62, 1, 1, 1, 1);
    struct prob P;
    prob_init(&P, p, a);
    int *r2s = malloc(sizeof(int) * 62);
    ok(!topomap_coarse_applies(&P.pb), "unequal slot counts: multilevel does not apply");
    int rc = topomap_map_coarse(&P.pb, r2s, err, sizeof err);
    ok(rc < 0 && errno == ECANCELED && strstr(err, "unequal"), "declined: %s", err);
    int min = topomap_tuning()->coarse_min;
    topomap_tuning()->coarse_min = 16;
    topomap_opts_t o;
    topomap_opts_init(&o);
    rc = topomap_map("auto", p, a, &o, r2s, err, sizeof err);
    ok(rc == 0 && valid(r2s, 62, 62), "auto above the threshold on them: valid (drb + refine)");
    topomap_tuning()->coarse_min = min;
    free(r2s);
    prob_free(&P);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* auto with the threshold lowered to this job: the same mapping for 1, 2
 * and 4 threads, valid, below block. */
static void test_auto_threads(void)
{
    int dims[] = {8, 8, 8};
    topomap_topology_t *t;
    topomap_alloc_t *a = whole_torus(3, dims, 4, NULL, "8x8x8 torus of 4 cores, every node", &t);
    if (!a)
        return;
    int n = 2048;
    topomap_profile_t *p = random_profile(n, 3);
    int *ref = malloc(sizeof(int) * n), *got = malloc(sizeof(int) * n), *blk = malloc(sizeof(int) * n);
    int min = topomap_tuning()->coarse_min, same = 1;
    topomap_tuning()->coarse_min = 1024;
    for (int th = 1; th <= 4; th *= 2) {
        topomap_opts_t o;
        topomap_opts_init(&o);
        o.nthreads = th;
        if (topomap_map("auto", p, a, &o, th == 1 ? ref : got, err, sizeof err) < 0) {
            same = 0;
            diag("auto, %d threads: %s", th, err);
        } else if (th > 1 && memcmp(ref, got, sizeof(int) * (size_t)n)) {
            same = 0;
        }
    }
    ok(same, "auto through multilevel, 2048 ranks: same mapping for 1, 2 and 4 threads");
    topomap_tuning()->coarse_min = min;
    topomap_opts_t o;
    topomap_opts_init(&o);
    topomap_map("block", p, a, &o, blk, err, sizeof err);
    ok(valid(ref, n, n) && hop_bytes(p, a, ref) < hop_bytes(p, a, blk),
       "auto through multilevel: valid, hop-bytes %.6g below block's %.6g", hop_bytes(p, a, ref),
       hop_bytes(p, a, blk));
    free(ref), free(got), free(blk);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* The hop-bytes of the best of all n! placements of n ranks on the n
 * one-slot nodes (n <= 8), by Heap's algorithm. */
static double best_placement(const topomap_profile_t *p, const topomap_alloc_t *a, int n)
{
    int perm[8], c[8] = {0};
    for (int i = 0; i < n; i++)
        perm[i] = i;
    double best = hop_bytes(p, a, perm);
    for (int i = 1; i < n;) {
        if (c[i] < i) {
            int j = i % 2 ? c[i] : 0, x = perm[j];
            perm[j] = perm[i], perm[i] = x;
            double hb = hop_bytes(p, a, perm);
            best = hb < best ? hb : best;
            c[i]++, i = 1;
        } else {
            c[i++] = 0;
        }
    }
    return best;
}

/* drb's quick mode (the multilevel scheme's, map_drb.c): on 8 ranks every
 * split is a job of at most 8 and bisected exactly. Two heavy cliques of 4
 * ranks, interleaved in rank order (0 2 4 6 and 1 3 5 7) and tied by light
 * edges, on a ring of 8: the exact bisection separates the cliques, which
 * gives the best of the 8! placements. Then on a random graph of 512 ranks,
 * 8 per node: valid, the same twice, and no worse than block. */
static void test_drb_quick(void)
{
    int dims[] = {8};
    topomap_topology_t *t;
    topomap_alloc_t *a = whole_torus(1, dims, 1, NULL, "ring of 8 one-core nodes", &t);
    if (!a)
        return;
    int src[40], dst[40], m = 0;
    double b[40];
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++) {
            src[m] = i, dst[m] = j;
            b[m++] = i % 2 == j % 2 ? 1000 : 1;
        }
    topomap_profile_t *p = topomap_profile_create(8, (size_t)m, src, dst, b, NULL, err, sizeof err);
    struct prob P;
    prob_init(&P, p, a);
    int r2s[8];
    int rc = topomap_map_drb_quick(&P.pb, r2s, err, sizeof err);
    double best = best_placement(p, a, 8), hb = rc == 0 ? hop_bytes(p, a, r2s) : -1;
    ok(rc == 0 && valid(r2s, 8, 8) && hb == best,
       "quick drb, two cliques on a ring of 8: hop-bytes %.6g, the best of 8! placements %.6g", hb,
       best);
    prob_free(&P);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);

    int d3[] = {4, 4, 4};
    a = whole_torus(3, d3, 8, NULL, "4x4x4 torus of 8 cores, every node", &t);
    if (!a)
        return;
    p = random_profile(512, 4);
    prob_init(&P, p, a);
    int *q1 = malloc(sizeof(int) * 512), *q2 = malloc(sizeof(int) * 512);
    int *blk = malloc(sizeof(int) * 512);
    int rc1 = topomap_map_drb_quick(&P.pb, q1, err, sizeof err);
    int rc2 = topomap_map_drb_quick(&P.pb, q2, err, sizeof err);
    topomap_map_block(&P.pb, blk, err, sizeof err);
    ok(rc1 == 0 && rc2 == 0 && valid(q1, 512, 512) && !memcmp(q1, q2, sizeof(int) * 512),
       "quick drb, random graph of 512 ranks: valid, the same twice");
    ok(rc1 == 0 && hop_bytes(p, a, q1) < hop_bytes(p, a, blk),
       "quick drb: hop-bytes %.6g below block's %.6g", hop_bytes(p, a, q1), hop_bytes(p, a, blk));
    free(q1), free(q2), free(blk);
    prob_free(&P);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    test_drb_quick();
    test_groups_and_map();
    test_unequal();
    test_auto_threads();
    return done_testing();
}
