/* SPDX-License-Identifier: BSD-3-Clause */
/* Quality of a placement: hop-bytes (OHTMA paper, Li et al. 2020, eq. 1),
 * SumCom and MaxCom (Bordage & Jeannot 2017, section 2), max dilation, the
 * share of bytes that leave the node, and congestion (libtopomap/congestion.c).
 *
 * Departures from the papers, on purpose:
 *  - both papers sum over all (i, j) of a matrix; Bordage & Jeannot assume it
 *    symmetric. We use the directed profile as recorded (A[i][j] = bytes sent
 *    by i to j), so a pair that talks both ways counts both directions, exactly
 *    as eq. 1 of the OHTMA paper reads. This is half of what the symmetric
 *    graph the algorithms optimise would give.
 *  - B (the SumCom cost) is topomap_topology_cost(): network hops times the
 *    per-hop cost between nodes, the node-internal level cost inside a node,
 *    so SumCom also sees whether two ranks share a socket or a NUMA node.
 *  - self traffic (A[i][i]) is kept: it costs the core-to-itself cost and zero
 *    hops, and counts in total_bytes.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* Per-row partial results. Sums are kept per row and added up afterwards in
 * row order, so the result is bit-identical for any number of threads. */
struct row_acc {
    double hop_bytes;
    double sumcom;
    double internode;
    double maxcom;
    int dilation;
};

/* Small profiles stay serial: starting the thread pool costs more than
 * evaluating a few thousand entries. Measured on 2 cores: once the pool runs,
 * 2 threads halve the time from about 2,000 entries up (1M entries: 14 ms
 * serial, 7.8 ms with 2 threads). */
#define METRICS_PARALLEL_MIN 4096

/* The metrics; with congestion 0, everything but the congestion fields
 * (left 0), which route every pair: most of the cost of evaluating a
 * scattered mapping of a million ranks. */
static int eval(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                const int *core, topomap_metrics_t *m, int congestion)
{
    if (!p || !t || !node || !core || !m) {
        errno = EINVAL;
        return -1;
    }
    topomap_graph_t g;
    if (topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) < 0)
        return -1;
    int n = g.n;
    int nnodes = topomap_topology_nnodes(t);
    for (int r = 0; r < n; r++)
        if (node[r] < 0 || node[r] >= nnodes || core[r] < 0 ||
            core[r] >= topomap_topology_node_cores(t, node[r])) {
            errno = EINVAL;
            return -1;
        }

    struct row_acc *acc = calloc(n > 0 ? (size_t)n : 1, sizeof *acc);
    if (!acc) {
        errno = ENOMEM;
        return -1;
    }
    int64_t nnz = g.xadj[n];
#pragma omp parallel for schedule(dynamic, 64) if (nnz >= METRICS_PARALLEL_MIN) \
    num_threads(topomap_default_threads())
    for (int i = 0; i < n; i++) {
        struct row_acc a = {0, 0, 0, 0, 0};
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++) {
            int j = g.adj[e];
            double w = g.w[e];
            if (w <= 0)
                continue;
            int hops = topomap_topology_hops(t, node[i], node[j]);
            double c = w * topomap_topology_cost(t, node[i], core[i], node[j], core[j]);
            a.hop_bytes += w * hops;
            a.sumcom += c;
            if (c > a.maxcom)
                a.maxcom = c;
            if (hops > a.dilation)
                a.dilation = hops;
            if (node[i] != node[j])
                a.internode += w;
        }
        acc[i] = a;
    }

    topomap_metrics_t r = {0};
    for (int i = 0; i < n; i++) {
        r.hop_bytes += acc[i].hop_bytes;
        r.sumcom += acc[i].sumcom;
        r.internode_bytes += acc[i].internode;
        if (acc[i].maxcom > r.maxcom)
            r.maxcom = acc[i].maxcom;
        if (acc[i].dilation > r.max_dilation)
            r.max_dilation = acc[i].dilation;
    }
    free(acc);
    if (congestion && topomap_congestion(p, t, node, &r) < 0)
        return -1;
    /* The profile's own total (summed in its order) rather than ours, so that
     * total_bytes is the same number `topomap stats` and the loader report. */
    r.total_bytes = topomap_profile_total_bytes(p);
    if (r.total_bytes > 0) {
        r.avg_hops_per_byte = r.hop_bytes / r.total_bytes;
        r.internode_fraction = r.internode_bytes / r.total_bytes;
    }
    *m = r;
    return 0;
}

/* Where a topomap_metrics_t of this or an older header may end: each
 * field's end, in order. A field appended to topomap_metrics_t is appended
 * here. */
#define METRICS_END(F) TOPOMAP_FIELD_END(topomap_metrics_t, F)
static const size_t metrics_ends[] = {
    METRICS_END(total_bytes),
    METRICS_END(hop_bytes),
    METRICS_END(avg_hops_per_byte),
    METRICS_END(max_dilation),
    METRICS_END(sumcom),
    METRICS_END(maxcom),
    METRICS_END(internode_bytes),
    METRICS_END(internode_fraction),
    METRICS_END(congestion_max),
    METRICS_END(congestion_avg),
    METRICS_END(congestion_channels),
    METRICS_END(congestion_max_seconds),
    METRICS_END(congestion_avg_seconds),
    METRICS_END(congestion_class_max),
    METRICS_END(congestion_global_bytes),
};

static const struct topomap_sized metrics_sized = TOPOMAP_SIZED(topomap_metrics_t, metrics_ends);

int topomap_metrics_init_size(topomap_metrics_t *m, size_t size)
{
    topomap_metrics_t zero = {0};
    return topomap_sized_put(&metrics_sized, m, size, &zero);
}

/* EINVAL unless the caller's @m has a size this library knows. */
static int metrics_check(const topomap_metrics_t *m)
{
    if (m && topomap_size_known(&metrics_sized, m->size))
        return 0;
    errno = EINVAL;
    return -1;
}

int topomap_eval(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                 const int *core, topomap_metrics_t *m)
{
    topomap_metrics_t r;
    if (metrics_check(m) < 0 || eval(p, t, node, core, &r, 1) < 0)
        return -1;
    return topomap_sized_put(&metrics_sized, m, m->size, &r); /* within its size */
}

static int eval_slots(const topomap_profile_t *p, const topomap_alloc_t *a,
                      const int *rank_to_slot, topomap_metrics_t *m, int congestion)
{
    if (!p || !a || !rank_to_slot || !m) {
        errno = EINVAL;
        return -1;
    }
    int n = topomap_profile_nranks(p), nslots = topomap_alloc_nslots(a);
    int *node = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *core = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int rc = -1;
    if (!node || !core) {
        errno = ENOMEM;
        goto out;
    }
    for (int r = 0; r < n; r++) {
        int s = rank_to_slot[r];
        if (s < 0 || s >= nslots) {
            errno = EINVAL;
            goto out;
        }
        node[r] = topomap_alloc_slot_node(a, s);
        core[r] = topomap_alloc_slot_core(a, s);
    }
    rc = eval(p, topomap_alloc_topology(a), node, core, m, congestion);
out:
    free(node);
    free(core);
    return rc;
}

int topomap_eval_slots(const topomap_profile_t *p, const topomap_alloc_t *a,
                       const int *rank_to_slot, topomap_metrics_t *m)
{
    topomap_metrics_t r;
    if (metrics_check(m) < 0 || eval_slots(p, a, rank_to_slot, &r, 1) < 0)
        return -1;
    return topomap_sized_put(&metrics_sized, m, m->size, &r); /* within its size */
}

int topomap_hop_bytes_slots(const topomap_profile_t *p, const topomap_alloc_t *a,
                            const int *rank_to_slot, double *hop_bytes)
{
    topomap_metrics_t m;
    if (!hop_bytes) {
        errno = EINVAL;
        return -1;
    }
    if (eval_slots(p, a, rank_to_slot, &m, 0) < 0)
        return -1;
    *hop_bytes = m.hop_bytes;
    return 0;
}
