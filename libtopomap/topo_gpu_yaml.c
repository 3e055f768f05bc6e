/* SPDX-License-Identifier: BSD-3-Clause */
/* The gpus: key of a node description (topologies/README.md, doc/gpu-nodes.md):
 *
 *   gpus:
 *     from: hwloc          # GPUs, NICs and links from the node's hwloc XML
 *     vendor: nvidia       # nvidia | amd | intel
 *     devices:             # one entry per GPU, in the runtime's order
 *       - {cpus: 0-19, numa: 0, nic: "mlx5_0:1"}
 *     links: [[0, 1, ...], ...]  # links (or bandwidth) per pair, symmetric
 *     link_cost: 0.25      # cost of a pair with one link (cost = link_cost / links)
 *     host_cost: 0.5       # cost of a pair without links (PCIe, host)
 *
 * Keys given next to from: hwloc replace what hwloc found. Every problem is
 * one FILE:LINE:COL message. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topo_yamldoc.h"
#include "topology_priv.h"

static int load_devices(struct topo_yctx *c, yaml_node_t *dev, int cores, struct topo_gpus *g)
{
    static const char *const keys[] = {"cpus", "numa", "nic", NULL};
    if (dev->type != YAML_SEQUENCE_NODE || topo_y_len(dev) < 1 ||
        topo_y_len(dev) > TOPOMAP_MAX_GPUS)
        return topo_y_fail(c, dev, EINVAL, "'devices' must be a list of 1..%d GPUs",
                           TOPOMAP_MAX_GPUS);
    int n = topo_y_len(dev);
    if (g->ngpu && g->ngpu != n)
        return topo_y_fail(c, dev, EINVAL, "'devices' lists %d GPUs but hwloc found %d", n,
                           g->ngpu);
    if (!g->gpu) {
        if (!(g->gpu = calloc((size_t)n, sizeof *g->gpu)))
            return topo_y_fail(c, dev, ENOMEM, "out of memory");
        g->ngpu = n;
        for (int i = 0; i < n; i++)
            g->gpu[i].numa = -1;
    }
    for (int i = 0; i < n; i++) {
        yaml_node_t *e = topo_y_item(c, dev, i), *v;
        const char *s;
        if (topo_y_check_map(c, e, "a GPU", keys) < 0 || !(v = topo_y_require(c, e, "cpus", "a GPU")))
            return -1;
        if (topo_y_str(c, v, "cpus", &s) < 0)
            return -1;
        long max = topo_cpulist_max(s);
        if (max < 0)
            return topo_y_fail(c, v, EINVAL, "'cpus' must be a CPU list such as 0-9,20-29, not '%s'",
                               s);
        if (max >= cores)
            return topo_y_fail(c, v, EINVAL, "'cpus': core %ld is past the node's %d cores (0-%d)",
                               max, cores, cores - 1);
        free(g->gpu[i].cpus);
        if (!(g->gpu[i].cpus = strdup(s)))
            return topo_y_fail(c, v, ENOMEM, "out of memory");
        if ((v = topo_y_get(c, e, "numa")) &&
            topo_y_int(c, v, "numa", 0, TOPO_MAX_CORES, &g->gpu[i].numa) < 0)
            return -1;
        if ((v = topo_y_get(c, e, "nic"))) {
            if (topo_y_str(c, v, "nic", &s) < 0)
                return -1;
            free(g->gpu[i].nic);
            if (!(g->gpu[i].nic = strdup(s)))
                return topo_y_fail(c, v, ENOMEM, "out of memory");
        }
    }
    return 0;
}

static int load_links(struct topo_yctx *c, yaml_node_t *ln, struct topo_gpus *g)
{
    int n = g->ngpu;
    if (ln->type != YAML_SEQUENCE_NODE || topo_y_len(ln) != n)
        return topo_y_fail(c, ln, EINVAL, "'links' must be a list of %d rows (one per GPU)", n);
    double *m = malloc(sizeof(double) * (size_t)n * (size_t)n);
    if (!m)
        return topo_y_fail(c, ln, ENOMEM, "out of memory");
    free(g->links);
    g->links = m;
    for (int a = 0; a < n; a++) {
        yaml_node_t *row = topo_y_item(c, ln, a);
        if (row->type != YAML_SEQUENCE_NODE || topo_y_len(row) != n)
            return topo_y_fail(c, row, EINVAL, "row %d of 'links' must be a list of %d numbers",
                               a, n);
        for (int b = 0; b < n; b++)
            if (topo_y_double(c, topo_y_item(c, row, b), "links", 0, 0, TOPOMAP_MAX_COST,
                              &m[(size_t)a * n + b]) < 0)
                return -1;
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < a; b++)
            if (m[(size_t)a * n + b] != m[(size_t)b * n + a])
                return topo_y_fail(c, topo_y_item(c, topo_y_item(c, ln, a), b), EINVAL,
                                   "'links' must be symmetric: GPUs %d-%d have %g, %d-%d %g", a,
                                   b, m[(size_t)a * n + b], b, a, m[(size_t)b * n + a]);
    return 0;
}

int topo_y_gpus(struct topo_yctx *c, const topomap_topology_t *t, yaml_node_t *n,
                const char *xml, struct topo_ntype *ty)
{
    static const char *const keys[] = {"from", "vendor", "devices", "links", "link_cost",
                                       "host_cost", NULL};
    char berr[TOPOMAP_ERRLEN];
    struct topo_gpus *g = NULL;
    yaml_node_t *v, *from, *dev;
    const char *s;
    int rc = -1;
    if (n->type != YAML_MAPPING_NODE)
        return topo_y_fail(c, n, EINVAL, "'gpus' must be a mapping, not %s", topo_y_type(n));
    if (topo_y_check_map(c, n, "gpus", keys) < 0)
        return -1;
    from = topo_y_get(c, n, "from");
    dev = topo_y_get(c, n, "devices");
    if (from) {
        if (topo_y_str(c, from, "from", &s) < 0)
            return -1;
        if (strcmp(s, "hwloc"))
            return topo_y_fail(c, from, EINVAL, "'from' must be hwloc, not '%s'", s);
        if (!xml)
            return topo_y_fail(c, from, EINVAL,
                               "'from: hwloc' needs the node's 'hwloc' file beside 'gpus'");
        if (!(g = topo_hwloc_gpus(xml, berr, sizeof berr)))
            return topo_y_fail(c, from, errno, "%s", berr);
    } else {
        if (!dev)
            return topo_y_fail(c, n, EINVAL, "'gpus' needs 'devices' (or 'from: hwloc')");
        if (!(g = calloc(1, sizeof *g)))
            return topo_y_fail(c, n, ENOMEM, "out of memory");
        g->vendor = TOPOMAP_GPU_NVIDIA;
    }
    g->link_cost = topo_default_cost(t, 1);
    g->host_cost = topo_default_cost(t, 0);
    if ((v = topo_y_get(c, n, "vendor"))) {
        if (topo_y_str(c, v, "vendor", &s) < 0)
            goto out;
        if ((g->vendor = topomap_gpu_vendor_parse(s)) < 0) {
            topo_y_fail(c, v, EINVAL, "'vendor' must be nvidia, amd or intel, not '%s'", s);
            goto out;
        }
    }
    if (dev && load_devices(c, dev, ty->cores, g) < 0)
        goto out;
    if ((v = topo_y_get(c, n, "links")) && load_links(c, v, g) < 0)
        goto out;
    if ((v = topo_y_get(c, n, "link_cost")) &&
        topo_y_double(c, v, "link_cost", 0, 0, TOPOMAP_MAX_COST, &g->link_cost) < 0)
        goto out;
    if ((v = topo_y_get(c, n, "host_cost")) &&
        topo_y_double(c, v, "host_cost", 0, 0, TOPOMAP_MAX_COST, &g->host_cost) < 0)
        goto out;
    rc = topo_gpus_attach(t, ty, g, berr, sizeof berr);
    g = NULL; /* taken over */
    if (rc < 0)
        topo_y_fail(c, dev ? dev : n, errno, "gpus: %s", berr);
out:
    topo_gpus_free(g);
    return rc;
}
