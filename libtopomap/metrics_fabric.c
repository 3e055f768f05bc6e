/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU traffic on a fabric of NVLink domains and rails (topo_fabric.c): the
 * bytes of a placement by path class, the busiest NVLink port, NIC and
 * rail uplink in bytes and seconds, and how far the groups of a training
 * layout spread over domains, nodes and rails (the "spread" of ByteDance's
 * Arnold, NeurIPS 2025). The path of a pair of GPUs (doc/networks.md, "GPU
 * fabrics"): same node: NVLink; same domain: NVLink through the domain's
 * switches; else the network, through one rail switch when both GPUs are on
 * the same rail, else up to the spine (no PXN: NCCL's PXN would first move
 * the data over NVLink to the GPU on the peer's rail). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

const char *topomap_fabric_class_name(topomap_fabric_class_t k)
{
    static const char *const n[] = {"nvlink-node", "nvlink-domain", "rail", "spine"};
    return (unsigned)k < TOPOMAP_FABRIC_CLASSES ? n[k] : NULL; /* a negative k too */
}

const char *topomap_fabric_link_name(topomap_fabric_link_t k)
{
    static const char *const n[] = {"nvlink", "nic", "spine"};
    return (unsigned)k < TOPOMAP_FLINK_KINDS ? n[k] : NULL;
}

/* A node's domain, nodes outside any being their own (numbered after the
 * domains). */
static int dom_of(const topomap_topology_t *t, int v)
{
    int d = topomap_topology_domain(t, v);
    return d >= 0 ? d : topomap_topology_domains(t) + v;
}

static int check_place(const topomap_topology_t *t, int n, const int *node, const int *slot)
{
    for (int i = 0; i < n; i++)
        if ((unsigned)node[i] >= (unsigned)t->nnodes ||
            (unsigned)slot[i] >= (unsigned)topo_type_of(t, node[i])->cores) {
            errno = EINVAL;
            return -1;
        }
    return 0;
}

static int pair_class(const topomap_topology_t *t, int na, int sa, int nb, int sb)
{
    int rails = topomap_topology_rails(t);
    if (na == nb)
        return TOPOMAP_FABRIC_NODE;
    if (dom_of(t, na) == dom_of(t, nb))
        return TOPOMAP_FABRIC_DOMAIN;
    return rails && sa % rails != sb % rails ? TOPOMAP_FABRIC_SPINE : TOPOMAP_FABRIC_RAIL;
}

/* Ranks on one GPU share its links: number the distinct (node, slot). */
static int *gpu_ids(const topomap_topology_t *t, int n, const int *node, const int *slot,
                    int *ngpu)
{
    int64_t *key = malloc(sizeof *key * (size_t)(n ? n : 1));
    int *id = malloc(sizeof *id * (size_t)(n ? n : 1));
    if (!key || !id) {
        free(key);
        free(id);
        errno = ENOMEM;
        return NULL;
    }
    for (int i = 0; i < n; i++)
        key[i] = (int64_t)node[i] * t->cores + slot[i];
    int64_t *sorted = malloc(sizeof *sorted * (size_t)(n ? n : 1));
    if (!sorted) {
        free(key);
        free(id);
        errno = ENOMEM;
        return NULL;
    }
    memcpy(sorted, key, sizeof *key * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, topomap_cmp_i64);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!m || sorted[m - 1] != sorted[i])
            sorted[m++] = sorted[i];
    for (int i = 0; i < n; i++) {
        int lo = 0, hi = m - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (sorted[mid] < key[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        id[i] = lo;
    }
    free(sorted);
    free(key);
    *ngpu = m;
    return id;
}

int topomap_fabric_traffic(const topomap_profile_t *p, const topomap_topology_t *t,
                           const int *node, const int *slot, topomap_fabric_traffic_t *out)
{
    if (!p || !t || !node || !slot || !out) {
        errno = EINVAL;
        return -1;
    }
    int n = topomap_profile_nranks(p), ngpu = 0, rails = topomap_topology_rails(t);
    if (check_place(t, n, node, slot) < 0)
        return -1;
    topomap_graph_t g;
    if (topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) < 0)
        return -1;
    int *id = gpu_ids(t, n, node, slot, &ngpu);
    /* Per GPU: NVLink out, in; NIC out, in. Per rail: spine up, down. */
    double *load = calloc((size_t)ngpu * 4 + (size_t)rails * 2 + 1, sizeof *load);
    if (!id || !load) {
        free(id);
        free(load);
        errno = ENOMEM;
        return -1;
    }
    double *spine = load + (size_t)ngpu * 4;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++)
        for (int64_t k = g.xadj[i]; k < g.xadj[i + 1]; k++) {
            int j = g.adj[k];
            double b = g.w[k];
            if (id[i] == id[j] || b <= 0)
                continue;
            int c = pair_class(t, node[i], slot[i], node[j], slot[j]);
            out->bytes[c] += b;
            int net = c == TOPOMAP_FABRIC_RAIL || c == TOPOMAP_FABRIC_SPINE;
            load[(size_t)id[i] * 4 + 2 * net] += b;
            load[(size_t)id[j] * 4 + 2 * net + 1] += b;
            if (net)
                out->between_domains += b;
            if (c == TOPOMAP_FABRIC_SPINE) {
                spine[2 * (slot[i] % rails)] += b;
                spine[2 * (slot[j] % rails) + 1] += b;
            }
        }
    for (int q = 0; q < ngpu * 4; q++) {
        int kind = q % 4 < 2 ? TOPOMAP_FLINK_NVLINK : TOPOMAP_FLINK_NIC;
        if (load[q] > out->busiest[kind])
            out->busiest[kind] = load[q];
    }
    for (int q = 0; q < rails * 2; q++)
        if (spine[q] > out->busiest[TOPOMAP_FLINK_SPINE])
            out->busiest[TOPOMAP_FLINK_SPINE] = spine[q];
    const struct topo_fabric *f = t->fabric;
    double bw[TOPOMAP_FLINK_KINDS] = {f ? f->nvlink_bw : 0, f ? f->nic_bw : 0,
                                      f ? f->spine_bw : 0};
    for (int k = 0; k < TOPOMAP_FLINK_KINDS; k++)
        out->seconds[k] = bw[k] > 0 ? out->busiest[k] / bw[k] : 0;
    free(id);
    free(load);
    return 0;
}

/* Distinct values of v[0 .. n-1] (n small: a group), sorting v in place. */
static int distinct(int *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, topomap_cmp_int);
    int d = n > 0;
    for (int i = 1; i < n; i++)
        d += v[i] != v[i - 1];
    return d;
}

int topomap_group_spread(const topomap_layout_t *l, unsigned mask, const topomap_topology_t *t,
                         const int *node, const int *slot, topomap_group_spread_t *out)
{
    int n = topomap_layout_nranks(l);
    if (n < 0 || !t || !node || !slot || !out || check_place(t, n, node, slot) < 0) {
        errno = EINVAL;
        return -1;
    }
    memset(out, 0, sizeof *out);
    /* Ranks by group: counting sort on the group number. */
    int ng = 0;
    int *grp = malloc(sizeof(int) * (size_t)n), *first = NULL, *order = NULL, *buf = NULL;
    if (!grp)
        goto nomem;
    for (int r = 0; r < n; r++) {
        grp[r] = topomap_layout_group(l, mask, r);
        if (grp[r] + 1 > ng)
            ng = grp[r] + 1;
    }
    first = calloc((size_t)ng + 1, sizeof *first);
    order = malloc(sizeof(int) * (size_t)n);
    buf = malloc(sizeof(int) * (size_t)n);
    if (!first || !order || !buf)
        goto nomem;
    for (int r = 0; r < n; r++)
        first[grp[r] + 1]++;
    for (int q = 0; q < ng; q++)
        first[q + 1] += first[q];
    for (int r = 0; r < n; r++)
        order[first[grp[r]]++] = r;
    for (int q = ng; q > 0; q--)
        first[q] = first[q - 1];
    first[0] = 0;
    int rails = topomap_topology_rails(t);
    for (int q = 0; q < ng; q++) {
        int *m = order + first[q], size = first[q + 1] - first[q], c[3];
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < size; i++)
                buf[i] = k == 0   ? dom_of(t, node[m[i]])
                         : k == 1 ? node[m[i]]
                                  : (rails ? slot[m[i]] % rails : 0);
            c[k] = distinct(buf, size);
        }
        out->groups++;
        out->split_domains += c[0] > 1;
        out->split_nodes += c[1] > 1;
        out->mean_domains += c[0];
        out->mean_nodes += c[1];
        out->mean_rails += c[2];
        out->max_domains = c[0] > out->max_domains ? c[0] : out->max_domains;
        out->max_nodes = c[1] > out->max_nodes ? c[1] : out->max_nodes;
        out->max_rails = c[2] > out->max_rails ? c[2] : out->max_rails;
    }
    if (out->groups) {
        out->mean_domains /= out->groups;
        out->mean_nodes /= out->groups;
        out->mean_rails /= out->groups;
    }
    free(grp);
    free(first);
    free(order);
    free(buf);
    return 0;
nomem:
    free(grp);
    free(first);
    free(order);
    free(buf);
    errno = ENOMEM;
    return -1;
}
