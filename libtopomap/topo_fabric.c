/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU fabrics: the YAML key gpu_fabric (rails of a rail-optimised fat-tree,
 * multi-node NVLink domains, their bandwidths); the fabric's getters and its
 * description belong to the topology object (topo_gpu.c). The nodes'
 * network (hops, routes) stays the network section's: a domain is what the
 * tree's lowest switches (a Slurm topology/block block) or a list of
 * hostlists say it is, and the rails only classify GPU traffic
 * (metrics_fabric.c). doc/networks.md, "GPU fabrics". */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"
#include "topo_yamldoc.h"

/* domains: blocks: the switch each node hangs from (a Slurm block, the
 * lowest level of a regular tree). */
static int domains_blocks(struct topo_yctx *c, const topomap_topology_t *t, yaml_node_t *n,
                          struct topo_fabric *f)
{
    if (strcmp(t->kind, "fat-tree"))
        return topo_y_fail(c, n, EINVAL,
                           "domains: blocks needs a fat-tree network (a Slurm topology/block "
                           "file or tree levels), not a %s",
                           t->kind);
    int maxd = -1;
    for (int v = 0; v < t->nnodes; v++) {
        if (t->ops == &topo_itree_ops)
            f->domain[v] = t->u.itree.leaf[v];
        else
            f->domain[v] = v / t->u.tree.arity[t->u.tree.nlevels - 1];
        if (f->domain[v] > maxd)
            maxd = f->domain[v];
    }
    /* Number the switches that have nodes 0 .. ndomains - 1, in node order. */
    int *num = malloc(sizeof(int) * (size_t)(maxd + 1));
    if (!num)
        return topo_y_fail(c, n, ENOMEM, "out of memory");
    for (int s = 0; s <= maxd; s++)
        num[s] = -1;
    for (int v = 0; v < t->nnodes; v++) {
        if (num[f->domain[v]] < 0)
            num[f->domain[v]] = f->ndomains++;
        f->domain[v] = num[f->domain[v]];
    }
    free(num);
    f->from = TOPO_DOM_BLOCKS;
    return 0;
}

/* domains: a list of hostlists, one per domain; nodes named by none are in
 * none. */
static int domains_list(struct topo_yctx *c, const topomap_topology_t *t, yaml_node_t *n,
                        struct topo_fabric *f)
{
    for (int i = 0; i < topo_y_len(n); i++) {
        yaml_node_t *e = topo_y_item(c, n, i);
        const char *expr;
        char berr[TOPOMAP_ERRLEN];
        if (topo_y_str(c, e, "domains", &expr) < 0)
            return -1;
        topomap_hostlist_t *hl = topomap_hostlist_parse(expr, berr, sizeof berr);
        if (!hl)
            return topo_y_fail(c, e, errno, "domains: %s", berr);
        for (size_t k = 0; k < topomap_hostlist_count(hl); k++) {
            const char *name = topomap_hostlist_get(hl, k);
            int v = topomap_topology_node_lookup(t, name);
            int bad = v < 0 ? 1 : f->domain[v] >= 0 ? 2 : 0;
            if (bad) {
                topo_y_fail(c, e, EINVAL,
                            bad == 1 ? "domains: node '%s' is not in the topology"
                                     : "domains: node '%s' is in two domains",
                            name);
                topomap_hostlist_free(hl);
                return -1;
            }
            f->domain[v] = i;
        }
        topomap_hostlist_free(hl);
    }
    f->ndomains = topo_y_len(n);
    f->from = TOPO_DOM_LIST;
    return 0;
}

/* domains: node | blocks | {size: N} | [hostlist, ...]. */
static int load_domains(struct topo_yctx *c, const topomap_topology_t *t, yaml_node_t *n,
                        struct topo_fabric *f)
{
    static const char *const size_keys[] = {"size", NULL};
    if (!(f->domain = malloc(sizeof(int) * (size_t)t->nnodes)))
        return topo_y_fail(c, n, ENOMEM, "out of memory");
    for (int v = 0; v < t->nnodes; v++)
        f->domain[v] = -1;
    if (n->type == YAML_SEQUENCE_NODE && topo_y_len(n) > 0)
        return domains_list(c, t, n, f);
    if (n->type == YAML_MAPPING_NODE) {
        int size;
        yaml_node_t *v;
        if (topo_y_check_map(c, n, "domains", size_keys) < 0 ||
            !(v = topo_y_require(c, n, "size", "domains")) ||
            topo_y_int(c, v, "size", 1, TOPO_MAX_NODES, &size) < 0)
            return -1;
        for (int u = 0; u < t->nnodes; u++)
            f->domain[u] = u / size;
        f->ndomains = (t->nnodes + size - 1) / size;
        f->from = TOPO_DOM_SIZE;
        return 0;
    }
    const char *s = n->type == YAML_SCALAR_NODE ? topo_y_scalar(n) : "";
    if (!strcmp(s, "node")) {
        for (int u = 0; u < t->nnodes; u++)
            f->domain[u] = u;
        f->ndomains = t->nnodes;
        f->from = TOPO_DOM_NODE;
        return 0;
    }
    if (!strcmp(s, "blocks"))
        return domains_blocks(c, t, n, f);
    return topo_y_fail(c, n, EINVAL,
                       "domains must be node, blocks, {size: N} or a list of hostlists");
}

int topo_y_fabric(struct topo_yctx *c, topomap_topology_t *t, yaml_node_t *n)
{
    static const char *const keys[] = {"rails", "domains", "nic_bandwidth", "nvlink_bandwidth",
                                       "spine_bandwidth", NULL};
    if (topo_y_check_map(c, n, "gpu_fabric", keys) < 0)
        return -1;
    struct topo_fabric *f = calloc(1, sizeof *f);
    if (!f)
        return topo_y_fail(c, n, ENOMEM, "out of memory");
    yaml_node_t *v;
    int rc = 0;
    if ((v = topo_y_get(c, n, "rails")) && topo_y_int(c, v, "rails", 1, 64, &f->rails) < 0)
        rc = -1;
    if (!rc && (v = topo_y_get(c, n, "nic_bandwidth")) &&
        topo_y_double(c, v, "nic_bandwidth", TOPOMAP_MIN_BANDWIDTH, 0, HUGE_VAL, &f->nic_bw) < 0)
        rc = -1;
    if (!rc && (v = topo_y_get(c, n, "nvlink_bandwidth")) &&
        topo_y_double(c, v, "nvlink_bandwidth", TOPOMAP_MIN_BANDWIDTH, 0, HUGE_VAL,
                      &f->nvlink_bw) < 0)
        rc = -1;
    if (!rc && (v = topo_y_get(c, n, "spine_bandwidth")) &&
        topo_y_double(c, v, "spine_bandwidth", TOPOMAP_MIN_BANDWIDTH, 0, HUGE_VAL,
                      &f->spine_bw) < 0)
        rc = -1;
    if (!rc && (v = topo_y_get(c, n, "domains")) && load_domains(c, t, v, f) < 0)
        rc = -1;
    if (!rc && (v = topo_y_get(c, n, "spine_bandwidth")) && !f->rails)
        rc = topo_y_fail(c, v, EINVAL, "spine_bandwidth goes with rails");
    if (rc) {
        topo_fabric_free(f);
        return -1;
    }
    /* Non-blocking by default: a rail switch's uplinks carry what its nodes'
     * NICs can send. */
    if (f->rails && !f->spine_bw)
        f->spine_bw = f->nic_bw * t->nnodes;
    topo_fabric_free(t->fabric);
    t->fabric = f;
    return 0;
}
