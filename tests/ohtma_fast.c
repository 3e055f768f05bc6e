/* SPDX-License-Identifier: BSD-3-Clause */
/* ohtma-fast with sampled candidates (libtopomap/ohtma_fast.c, sampled_candidates): the
 * exchange loop against a naive one that, at every step, recomputes every
 * gain of every candidate pair from scratch and takes the best (lowest pair
 * on ties), then backtracks as Algorithm 1 does; validity and the same mapping
 * for 1, 2 and 4 threads with every loop parallel. Sampling is forced on
 * small jobs through ohtma_sample_min (libtopomap/tuning.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "synth.h"
#include "tap.h"

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

static void swap_slots(int *r2s, int i, int j)
{
    int t = r2s[i];
    r2s[i] = r2s[j];
    r2s[j] = t;
}

/* The mapping ohtma-fast gives with sampling, recomputed naively from the
 * greedy phase. The candidate relation as documented in libtopomap/ohtma_fast.c: i and j
 * (i != j, both not yet exchanged) are candidates when they are partners, or
 * when they have the same class and j's node is, or is next to, the node of a
 * partner of i, or the same with i and j swapped. Classes: position on the
 * node at the start modulo `sample`; the nodes next to a node: its K nearest
 * allocated nodes by (hops, index), made symmetric. */
static void naive_sampled(struct prob *P, int sample, int *r2s)
{
    struct topomap_problem *pb = &P->pb;
    const topomap_graph_t *g = &pb->g;
    int n = pb->n, ns = pb->nslots;
    topomap_ohtma_greedy(pb, r2s, NULL, err, sizeof err);
    /* Groups by first slot, slots ascending; classes by position. */
    int nn = topomap_topology_nnodes(pb->topo), ng = 0;
    int *node_grp = malloc(sizeof(int) * (size_t)nn), *sg = malloc(sizeof(int) * (size_t)ns);
    int *s2r = malloc(sizeof(int) * (size_t)ns), *gnode = malloc(sizeof(int) * (size_t)ns);
    for (int v = 0; v < nn; v++)
        node_grp[v] = -1;
    for (int s = 0; s < ns; s++) {
        int v = pb->slot_node[s];
        if (node_grp[v] < 0) {
            node_grp[v] = ng;
            gnode[ng++] = v;
        }
        sg[s] = node_grp[v];
        s2r[s] = -1;
    }
    for (int i = 0; i < n; i++)
        s2r[r2s[i]] = i;
    int *cls = malloc(sizeof(int) * (size_t)n), *pos = calloc((size_t)ng, sizeof(int));
    for (int s = 0; s < ns; s++)
        if (s2r[s] >= 0)
            cls[s2r[s]] = pos[sg[s]]++ % sample;
    /* Near nodes: K = min(8, 64 / (slots per node / sample), ng - 1), none
     * below 2. */
    int K = (int)(64 / ((double)ns / ng / sample));
    K = K > 8 ? 8 : K;
    K = K > ng - 1 ? ng - 1 : K;
    char *near = calloc((size_t)ng * (size_t)ng, 1);
    for (int u = 0; u < ng && K >= 2; u++) {
        char *taken = calloc((size_t)ng, 1);
        for (int k = 0; k < K; k++) {
            int best = -1, bh = 0;
            for (int v = 0; v < ng; v++) {
                int h = topomap_topology_hops(pb->topo, gnode[u], gnode[v]);
                if (v != u && !taken[v] && (best < 0 || h < bh))
                    best = v, bh = h;
            }
            taken[best] = 1;
            near[(size_t)u * ng + best] = near[(size_t)best * ng + u] = 1;
        }
        free(taken);
    }
    char *elig = malloc((size_t)n);
    memset(elig, 1, (size_t)n);
    long loop = n / 2;
    int *pi = malloc(sizeof(int) * (size_t)loop), *pj = malloc(sizeof(int) * (size_t)loop);
    double *res = malloc(sizeof(double) * (size_t)loop);
    long steps = 0;
    for (; steps < loop; steps++) {
        int bi = -1, bj = -1;
        double bv = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                if (!elig[i] || !elig[j])
                    continue;
                int a = sg[r2s[i]], b = sg[r2s[j]], rel = 0;
                double wij = 0;
                for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
                    if (g->adj[e] == j)
                        wij = g->w[e], rel = 1;
                for (int side = 0; side < 2 && !rel && cls[i] == cls[j]; side++) {
                    int p = side ? j : i, qg = side ? a : b; /* qg near a partner of p? */
                    for (int64_t e = g->xadj[p]; e < g->xadj[p + 1] && !rel; e++) {
                        int lg = sg[r2s[g->adj[e]]];
                        rel = lg == qg || near[(size_t)lg * ng + qg];
                    }
                }
                if (!rel)
                    continue;
                double v = 0;
                if (a != b) {
                    double ci = 0, dib = 0, cj = 0, dja = 0;
                    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
                        int lg = gnode[sg[r2s[g->adj[e]]]];
                        ci += g->w[e] * topomap_topology_hops(pb->topo, gnode[a], lg);
                        dib += g->w[e] * topomap_topology_hops(pb->topo, gnode[b], lg);
                    }
                    for (int64_t e = g->xadj[j]; e < g->xadj[j + 1]; e++) {
                        int lg = gnode[sg[r2s[g->adj[e]]]];
                        cj += g->w[e] * topomap_topology_hops(pb->topo, gnode[b], lg);
                        dja += g->w[e] * topomap_topology_hops(pb->topo, gnode[a], lg);
                    }
                    v = (ci - dib) + (cj - dja) -
                        2 * wij * topomap_topology_hops(pb->topo, gnode[a], gnode[b]);
                }
                if (bi < 0 || v > bv)
                    bi = i, bj = j, bv = v;
            }
        if (bi < 0)
            break;
        /* Exchanged processes never move again: undoing is swapping back. */
        pi[steps] = bi, pj[steps] = bj, res[steps] = bv;
        swap_slots(r2s, bi, bj);
        elig[bi] = elig[bj] = 0;
    }
    long keep = best_prefix(res, steps);
    for (long k = steps - 1; k >= keep; k--)
        swap_slots(r2s, pi[k], pj[k]);
    free(node_grp);
    free(sg);
    free(s2r);
    free(gnode);
    free(cls);
    free(pos);
    free(near);
    free(elig);
    free(pi);
    free(pj);
    free(res);
}

int main(void)
{
    int dims[] = {4, 4, 4}, wrap[] = {1, 1, 1};
    topomap_topology_t *tt = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    topomap_topology_t *t3 = topomap_topology_tianhe3(2, 4, 8, 4, NULL, err, sizeof err);
    ok(tt && t3, "4x4x4 torus and Tianhe-3 2x4 chips of 8 nodes, 4 cores each");
    if (!tt || !t3)
        return done_testing();
    topomap_alloc_t *at = prob_all_nodes(tt, NULL, err, sizeof err);
    topomap_alloc_t *a3 = prob_all_nodes(t3, NULL, err, sizeof err);
    /* Holes: the nodes next to a node found through unallocated ones. */
    topomap_alloc_t *ah = topomap_alloc_create(tt, "node[00-09,12-20,24-40,45-63]", NULL, err,
                                               sizeof err);
    ok(at && a3 && ah, "allocations of every core, and of the torus with holes");
    struct {
        topomap_profile_t *p;
        const topomap_alloc_t *a;
        const char *what;
    } cases[] = {{stencil(8, 8, 4, 1, 1), at, "shuffled periodic stencil 8x8x4 on the torus"},
                 {random_profile(200, 2), at, "random 200 ranks on the torus (partly full nodes)"},
                 {stencil(8, 8, 4, 0, 1), a3, "shuffled stencil 8x8x4 on Tianhe-3"},
                 {random_profile(180, 2), ah, "random 180 ranks on the torus with holes"}};
    int sample_min = topomap_tuning()->ohtma_sample_min;
    int table_max = topomap_tuning()->ohtma_table_max;
    long par0 = topomap_tuning()->ohtma_par_work;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const topomap_profile_t *p = cases[c].p;
        const topomap_alloc_t *a = cases[c].a;
        int n = topomap_profile_nranks(p), ns = topomap_alloc_nslots(a);
        int *ref = malloc(sizeof(int) * (size_t)n), *got = malloc(sizeof(int) * (size_t)n);
        int *plain = malloc(sizeof(int) * (size_t)n);
        struct prob P;
        prob_init(&P, p, a);
        int nodes = topomap_alloc_nnodes(a);
        int sample = (int)ceil((double)n / nodes);
        naive_sampled(&P, sample, ref);
        topomap_tuning()->ohtma_sample_min = 0;
        int rc = topomap_map("ohtma-fast", p, a, NULL, got, err, sizeof err);
        ok(rc == 0 && valid(got, n, ns) && !memcmp(ref, got, sizeof(int) * (size_t)n),
           "%s: sampled ohtma-fast (%d classes) equals the naive exchange loop", cases[c].what,
           sample);
        int same = 1;
        for (int v = 0; v < 3 && same; v++) {
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.nthreads = 1 << v;
            topomap_tuning()->ohtma_par_work = v ? 0 : par0;
            same = topomap_map("ohtma-fast", p, a, &o, got, err, sizeof err) == 0 &&
                   !memcmp(ref, got, sizeof(int) * (size_t)n);
        }
        topomap_tuning()->ohtma_par_work = par0;
        ok(same, "%s: the same mapping for 1, 2 and 4 threads, every loop parallel",
           cases[c].what);
        /* Without the hop table (tori of many nodes): near lists from the
         * coordinates, hops computed; the same answer. */
        int torus = topomap_topology_grid(topomap_alloc_topology(a), NULL, NULL, 0) > 0;
        topomap_tuning()->ohtma_table_max = 0;
        if (torus)
            ok(topomap_map("ohtma-fast", p, a, NULL, got, err, sizeof err) == 0 &&
                   !memcmp(ref, got, sizeof(int) * (size_t)n),
               "%s: the same mapping without the hop table", cases[c].what);
        /* Below the threshold: the unsampled lists. */
        topomap_tuning()->ohtma_sample_min = sample_min;
        int notab = torus && topomap_map("ohtma-fast", p, a, NULL, got, err, sizeof err) == 0;
        topomap_tuning()->ohtma_table_max = table_max;
        ok(topomap_map("ohtma-fast", p, a, NULL, plain, err, sizeof err) == 0 &&
               valid(plain, n, ns),
           "%s: unsampled ohtma-fast below the threshold", cases[c].what);
        if (torus)
            ok(notab && !memcmp(plain, got, sizeof(int) * (size_t)n),
               "%s: unsampled, the same mapping without the hop table", cases[c].what);
        diag("%s: hop-bytes greedy+exchanges sampled %g, unsampled %g", cases[c].what,
             hop_bytes(p, a, ref), hop_bytes(p, a, plain));
        prob_free(&P);
        free(ref);
        free(got);
        free(plain);
        topomap_profile_free(cases[c].p);
    }
    topomap_tuning()->ohtma_sample_min = sample_min;
    topomap_alloc_free(at);
    topomap_alloc_free(a3);
    topomap_alloc_free(ah);
    topomap_topology_free(tt);
    topomap_topology_free(t3);
    return done_testing();
}
