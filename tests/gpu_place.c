/* SPDX-License-Identifier: BSD-3-Clause */
/* Placing training jobs on GPU fabrics (issue 38's targets): on 16 NVL72
 * racks, three fragmented allocations of 32-64 nodes and Megatron layouts
 * (TP 4 and 8, PP 2-8, DP the rest, with and without EP), `auto` against
 * Slurm's layout (block: ranks in allocation order): bytes between domains,
 * the busiest NIC, TP groups split between domains against the number the
 * allocation forces; on the rail-optimised DGX H100 pod, DP and PP bytes
 * through the spine. Figures as TAP comments (doc/networks.md quotes them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "topomap.h"

#define SHIPPED SRCDIR "/../topologies/"

static char err[TOPOMAP_ERRLEN];

struct layout_case {
    int tp, ep, dp, pp;
    int experts;
    const char *order; /* NULL: Megatron's */
};

/* The model: 32 layers of hidden 4096, sequence 4096, micro-batch 1, 8
 * micro-batches per step, bf16, distributed optimizer; MoE: 8 experts, top 2. */
static topomap_profile_t *profile(const struct layout_case *c, topomap_layout_t *l)
{
    topomap_layout_t L = {{c->tp, 1, c->ep, c->dp, c->pp}, {0, 1, 2, 3, 4}};
    if (c->order && topomap_layout_order(c->order, L.order, err, sizeof err) < 0)
        return NULL;
    topomap_train_t m = {.layers = 32, .hidden = 4096, .seq = 4096, .micro_batch = 1,
                         .micro_batches = 8, .zero = 1, .dtype_bytes = 2,
                         .experts = c->experts, .topk = c->experts ? 2 : 0};
    *l = L;
    return topomap_profile_synth(&L, &m, NULL, err, sizeof err);
}

/* TP groups the allocation forces over two domains: those that do not fit
 * in the whole groups each domain's GPUs hold. */
static int forced_splits(const topomap_alloc_t *a, const topomap_topology_t *t, int tp)
{
    int nd = topomap_topology_domains(t), fit = 0;
    int *gpus = calloc((size_t)nd, sizeof *gpus);
    for (int s = 0; s < topomap_alloc_nslots(a); s++)
        gpus[topomap_topology_domain(t, topomap_alloc_slot_node(a, s))]++;
    for (int d = 0; d < nd; d++)
        fit += gpus[d] / tp;
    free(gpus);
    int groups = topomap_alloc_nslots(a) / tp;
    return groups > fit ? groups - fit : 0;
}

struct result {
    topomap_fabric_traffic_t f;
    topomap_group_spread_t tp, dp, pp;
    double seconds;
};

static int place(const char *algo, const topomap_profile_t *p, const topomap_alloc_t *a,
                 const topomap_layout_t *l, struct result *r)
{
    int n = topomap_profile_nranks(p);
    int *r2s = malloc(sizeof(int) * (size_t)n), *node = malloc(sizeof(int) * (size_t)n),
        *slot = malloc(sizeof(int) * (size_t)n);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.time_limit = 20;
    if (getenv("GPU_PLACE_CONGESTION"))
        o.objective = TOPOMAP_OBJECTIVE_CONGESTION;
    const topomap_topology_t *t = topomap_alloc_topology(a);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = topomap_map(algo, p, a, &o, r2s, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (rc == 0) {
        for (int i = 0; i < n; i++) {
            node[i] = topomap_alloc_slot_node(a, r2s[i]);
            slot[i] = topomap_alloc_slot_core(a, r2s[i]);
        }
        rc = topomap_fabric_traffic(p, t, node, slot, &r->f) ||
             topomap_group_spread(l, 1u << TOPOMAP_PAR_TP, t, node, slot, &r->tp) ||
             topomap_group_spread(l, 1u << TOPOMAP_PAR_EP | 1u << TOPOMAP_PAR_DP, t, node, slot,
                                  &r->dp) ||
             topomap_group_spread(l, 1u << TOPOMAP_PAR_PP, t, node, slot, &r->pp);
    }
    free(r2s);
    free(node);
    free(slot);
    return rc;
}

static void racks(void)
{
    topomap_topology_t *t = topomap_topology_load(SHIPPED "nvl72-16racks.yaml", err, sizeof err);
    ok(t != NULL, "NVL72 racks load %s", t ? "" : err);
    if (!t)
        return;
    /* Rack r is gb[18r-17 .. 18r]. */
    static const struct {
        const char *name, *nodes;
        int count;
    } allocs[] = {
        {"40 = 17 + 13 + 10", "gb[001-017,019-031,037-046]", 40},
        {"32 = 16 + 16", "gb[073-080,083-090,091-106]", 32},
        {"64 = 18 + 17 + 15 + 14", "gb[127-144,145-153,155-162,163-177,181-194]", 64},
    };
    /* Megatron's order, and one that puts DP innermost (Slurm's layout
     * then spreads the TP groups). */
    static const struct layout_case lay[][4] = {
        {{4, 1, 20, 2, 0, NULL}, {8, 1, 5, 4, 0, NULL}, {4, 4, 20, 2, 8, NULL},
         {4, 1, 20, 2, 0, "dp-tp-pp"}},
        {{8, 1, 4, 4, 0, NULL}, {4, 1, 4, 8, 0, NULL}, {4, 2, 4, 8, 8, NULL},
         {8, 1, 4, 4, 0, "pp-dp-tp"}},
        {{8, 1, 16, 2, 0, NULL}, {4, 1, 16, 4, 0, NULL}, {4, 8, 16, 4, 8, NULL},
         {4, 4, 16, 4, 8, "dp-tp-pp"}},
    };
    for (int k = 0; k < 3; k++) {
        topomap_alloc_t *a = topomap_alloc_create(t, allocs[k].nodes, NULL, err, sizeof err);
        ok(a && topomap_alloc_nnodes(a) == allocs[k].count, "allocation %s %s", allocs[k].name,
           a ? "" : err);
        for (int j = 0; a && j < 4; j++) {
            const struct layout_case *c = &lay[k][j];
            topomap_layout_t l;
            topomap_profile_t *p = profile(c, &l);
            struct result b, x;
            if (!p || place("block", p, a, &l, &b) || place("auto", p, a, &l, &x)) {
                ok(0, "%s TP%d PP%d DP%d EP%d: %s", allocs[k].name, c->tp, c->pp, c->dp, c->ep,
                   err);
                topomap_profile_free(p);
                continue;
            }
            int forced = forced_splits(a, t, c->tp);
            printf("# %s, TP%d PP%d DP%d EP%d%s%s: between domains block %.4g auto %.4g (%.3f); "
                   "busiest NIC block %.4g auto %.4g; spine block %.4g auto %.4g; TP split block %d auto %d forced %d; "
                   "auto %.2f s\n",
                   allocs[k].name, c->tp, c->pp, c->dp, c->ep, c->order ? " " : "",
                   c->order ? c->order : "", b.f.between_domains,
                   x.f.between_domains,
                   b.f.between_domains > 0 ? x.f.between_domains / b.f.between_domains : 0,
                   b.f.busiest[TOPOMAP_FLINK_NIC], x.f.busiest[TOPOMAP_FLINK_NIC],
                   b.f.bytes[TOPOMAP_FABRIC_SPINE], x.f.bytes[TOPOMAP_FABRIC_SPINE],
                   b.tp.split_domains, x.tp.split_domains, forced, x.seconds);
            printf("#   spread (mean domains / nodes / rails) TP block %.2f/%.2f/%.2f auto "
                   "%.2f/%.2f/%.2f; DP block %.2f/%.2f/%.2f auto %.2f/%.2f/%.2f\n",
                   b.tp.mean_domains, b.tp.mean_nodes, b.tp.mean_rails, x.tp.mean_domains,
                   x.tp.mean_nodes, x.tp.mean_rails, b.dp.mean_domains, b.dp.mean_nodes,
                   b.dp.mean_rails, x.dp.mean_domains, x.dp.mean_nodes, x.dp.mean_rails);
            ok(x.f.between_domains <= b.f.between_domains * (1 + 1e-9),
               "%s TP%d PP%d EP%d: auto's bytes between domains <= block's", allocs[k].name, c->tp,
               c->pp, c->ep);
            ok(x.f.busiest[TOPOMAP_FLINK_NIC] <= b.f.busiest[TOPOMAP_FLINK_NIC] * (1 + 1e-9),
               "%s TP%d PP%d EP%d: auto's busiest NIC <= block's", allocs[k].name, c->tp, c->pp,
               c->ep);
            if (b.tp.split_domains > forced)
                ok(x.f.between_domains <= 0.5 * b.f.between_domains,
                   "%s TP%d %s: block splits %d TP groups (%d forced): auto's bytes between "
                   "domains %.3f x block's <= 0.5",
                   allocs[k].name, c->tp, c->order ? c->order : "", b.tp.split_domains, forced,
                   x.f.between_domains / b.f.between_domains);
            ok(x.tp.split_domains <= forced, "%s TP%d PP%d EP%d: auto splits %d TP groups, %d forced",
               allocs[k].name, c->tp, c->pp, c->ep, x.tp.split_domains, forced);
            topomap_profile_free(p);
        }
        topomap_alloc_free(a);
    }
    topomap_topology_free(t);
}

/* The rail-optimised pod: bytes of DP and PP through the spine (the
 * placement is made for the whole step, evaluated on its DP and PP traffic
 * alone). */
static void pod(void)
{
    topomap_topology_t *t =
        topomap_topology_load(SHIPPED "dgx-h100-superpod-32.yaml", err, sizeof err);
    ok(t != NULL, "DGX H100 pod loads %s", t ? "" : err);
    if (!t)
        return;
    static const struct {
        const char *nodes;
        struct layout_case c;
        int zero; /* 1: the allocation allows no spine bytes */
    } cases[] = {
        {"dgx[001-032]", {8, 1, 8, 4, 0, NULL}, 1},
        {"dgx[001-010,013-020,025-030]", {8, 1, 12, 2, 0, NULL}, 1},
        {"dgx[001-010,013-020,025-030]", {4, 1, 24, 2, 0, NULL}, 0},
        {"dgx[001-010,013-020,025-030]", {8, 1, 12, 2, 0, "pp-dp-tp"}, 1},
        {"dgx[002-009,011-026]", {2, 4, 48, 2, 8, NULL}, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct layout_case *c = &cases[k].c;
        topomap_alloc_t *a = topomap_alloc_create(t, cases[k].nodes, NULL, err, sizeof err);
        topomap_layout_t l;
        topomap_profile_t *p = a ? profile(c, &l) : NULL;
        topomap_train_t dpp = {.bytes = {0, 0, 0, 1e9, 1e8}};
        topomap_profile_t *q = p ? topomap_profile_synth(&l, &dpp, NULL, err, sizeof err) : NULL;
        struct result b, x, bq, xq;
        int n = q ? topomap_profile_nranks(q) : 0;
        int *r2s = malloc(sizeof(int) * (size_t)(n + 1) * 3), *node = r2s + n, *slot = node + n;
        topomap_opts_t o;
        topomap_opts_init(&o);
        int good = q && place("block", p, a, &l, &b) == 0 && place("auto", p, a, &l, &x) == 0;
        /* Again, evaluated on the DP and PP traffic. */
        for (int w = 0; good && w < 2; w++) {
            good = topomap_map(w ? "auto" : "block", p, a, &o, r2s, err, sizeof err) == 0;
            for (int i = 0; good && i < n; i++) {
                node[i] = topomap_alloc_slot_node(a, r2s[i]);
                slot[i] = topomap_alloc_slot_core(a, r2s[i]);
            }
            good = good && topomap_fabric_traffic(q, t, node, slot, w ? &xq.f : &bq.f) == 0;
        }
        ok(good, "pod %s TP%d: mapped %s", cases[k].nodes, c->tp, good ? "" : err);
        if (good) {
            double bs = bq.f.bytes[TOPOMAP_FABRIC_SPINE], xs = xq.f.bytes[TOPOMAP_FABRIC_SPINE];
            printf("# pod %s TP%d PP%d DP%d EP%d%s%s: DP+PP bytes through the spine block %.4g "
                   "auto %.4g (of %.4g between nodes); whole step's spine block %.4g auto %.4g, "
                   "busiest spine uplink %.3g s / %.3g s\n",
                   cases[k].nodes, c->tp, c->pp, c->dp, c->ep, c->order ? " " : "",
                   c->order ? c->order : "", bs, xs, xq.f.between_domains,
                   b.f.bytes[TOPOMAP_FABRIC_SPINE], x.f.bytes[TOPOMAP_FABRIC_SPINE],
                   b.f.seconds[TOPOMAP_FLINK_SPINE], x.f.seconds[TOPOMAP_FLINK_SPINE]);
            ok(xs <= bs * (1 + 1e-9) && (!cases[k].zero || xs == 0),
               "pod %s TP%d%s%s: auto's DP+PP spine bytes %.4g <= block's %.4g%s", cases[k].nodes,
               c->tp, c->order ? " " : "", c->order ? c->order : "", xs, bs,
               cases[k].zero ? ", and 0" : "");
        }
        free(r2s);
        topomap_profile_free(q);
        topomap_profile_free(p);
        topomap_alloc_free(a);
    }
    topomap_topology_free(t);
}

int main(void)
{
    racks();
    pod();
    return done_testing();
}
