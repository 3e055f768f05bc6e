/* SPDX-License-Identifier: BSD-3-Clause */
/* Site topology descriptions in YAML (schema: topologies/README.md), read
 * with libyaml's document API and checked strictly: every error names
 * FILE:LINE:COL of the offending key or value (unknown keys, wrong types,
 * values out of range, inconsistent sizes, missing required keys, syntax). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "internal.h"
#include "topo_yamldoc.h"
#include "topology_priv.h"
#include "input.h"

/* A file named in the YAML: relative to the YAML file's directory. Caller frees. */
static char *relative_path(const char *yaml_path, const char *file)
{
    const char *slash = strrchr(yaml_path, '/');
    size_t dl = (file[0] == '/' || !slash) ? 0 : (size_t)(slash - yaml_path) + 1;
    char *p = malloc(dl + strlen(file) + 1);
    if (p) {
        memcpy(p, yaml_path, dl);
        strcpy(p + dl, file);
    }
    return p;
}

/* A network kind's section: its keys (kind, hop_cost and link_bandwidth
 * are every kind's) and the loader that reads them and builds the network;
 * nodes_node is the top-level 'nodes' key or NULL. Adding a kind is one
 * topo_KIND.c, its section loader and one row of yaml_kinds. */
struct yaml_kind {
    const char *name[3];
    const char *const *keys;
    topomap_topology_t *(*load)(struct topo_yctx *c, yaml_node_t *net, yaml_node_t *nodes_node,
                                const char *kind);
};

static topomap_topology_t *load_torus(struct topo_yctx *c, yaml_node_t *net,
                                      yaml_node_t *nodes_node, const char *kind);
static topomap_topology_t *load_mesh(struct topo_yctx *c, yaml_node_t *net,
                                     yaml_node_t *nodes_node, const char *kind);
static topomap_topology_t *load_tianhe3(struct topo_yctx *c, yaml_node_t *net,
                                        yaml_node_t *nodes_node, const char *kind);
static topomap_topology_t *load_tree(struct topo_yctx *c, yaml_node_t *net,
                                     yaml_node_t *nodes_node, const char *kind);

static const char *const torus_keys[] = {"kind", "hop_cost", "link_bandwidth", "dims", "wrap",
                                         NULL};
static const char *const th3_keys[] = {"kind", "hop_cost", "link_bandwidth", "rows", "cols",
                                       "nodes_per_chip", NULL};
static const char *const tree_keys[] = {"kind", "hop_cost", "link_bandwidth", "levels",
                                        "slurm_topology", NULL};
static const struct yaml_kind yaml_kinds[] = {
    {.name = {"torus"}, .keys = torus_keys, .load = load_torus},
    {.name = {"mesh"}, .keys = torus_keys, .load = load_mesh},
    {.name = {"tianhe3"}, .keys = th3_keys, .load = load_tianhe3},
    {.name = {"fat-tree", "fattree", "tree"}, .keys = tree_keys, .load = load_tree},
    {.name = {"dragonfly"}, .keys = topo_y_dragonfly_keys, .load = topo_y_dragonfly},
};

/* The network section: the kind's row, the keys every kind has, then the
 * kind's own loader. */
static topomap_topology_t *load_network(struct topo_yctx *c, yaml_node_t *root, yaml_node_t *net,
                                        double *hop_cost, double *bandwidth)
{
    const char *kind;
    yaml_node_t *v;
    if (net->type != YAML_MAPPING_NODE) {
        topo_y_fail(c, net, EINVAL, "'network' must be a mapping, not %s", topo_y_type(net));
        return NULL;
    }
    if (!(v = topo_y_require(c, net, "kind", "network")) || topo_y_str(c, v, "kind", &kind) < 0)
        return NULL;
    const struct yaml_kind *yk = NULL;
    for (size_t i = 0; i < sizeof yaml_kinds / sizeof *yaml_kinds && !yk; i++)
        for (int k = 0; k < 3 && yaml_kinds[i].name[k]; k++)
            if (!strcmp(kind, yaml_kinds[i].name[k]))
                yk = &yaml_kinds[i];
    if (!yk) {
        topo_y_fail(c, v, EINVAL,
                    "unknown network kind '%s' (expected torus, mesh, tianhe3, fat-tree or "
                    "dragonfly)",
                    kind);
        return NULL;
    }
    if (topo_y_check_map(c, net, "network", yk->keys) < 0)
        return NULL;
    *hop_cost = 1.0;
    if ((v = topo_y_get(c, net, "hop_cost")) &&
        topo_y_double(c, v, "hop_cost", 0, 1, TOPOMAP_MAX_COST, hop_cost) < 0)
        return NULL;
    /* Bytes per second of one channel (one direction of a cable); 0 = unknown. */
    *bandwidth = 0;
    if ((v = topo_y_get(c, net, "link_bandwidth")) &&
        topo_y_double(c, v, "link_bandwidth", TOPOMAP_MIN_BANDWIDTH, 0, HUGE_VAL,
                      bandwidth) < 0)
        return NULL;
    return yk->load(c, net, topo_y_get(c, root, "nodes"), kind);
}

/* What every kind's loader does once its parameters are read: the node
 * count (count < 0: berr says why), then the names of the 'nodes' key. */
static int kind_names(struct topo_yctx *c, yaml_node_t *net, yaml_node_t *nodes_node, int count,
                      const char *berr, const char *kind, topomap_hostlist_t **names)
{
    if (count < 0) {
        topo_y_fail(c, net, EINVAL, "%s", berr);
        return -1;
    }
    if (nodes_node && topo_y_names(c, nodes_node, count, kind, names) < 0)
        return -1;
    return 0;
}

/* The kind's build t, its failure (berr) named at the nodes or network. */
static topomap_topology_t *kind_built(struct topo_yctx *c, yaml_node_t *net,
                                      yaml_node_t *nodes_node, topomap_topology_t *t,
                                      const char *berr)
{
    if (!t)
        topo_y_fail(c, nodes_node ? nodes_node : net, errno, "%s", berr);
    return t;
}

/* Tori and meshes: dims, and wrap (default: every dimension for a torus,
 * none for a mesh). */
static topomap_topology_t *load_grid(struct topo_yctx *c, yaml_node_t *net,
                                     yaml_node_t *nodes_node, const char *kind, int wrap_default)
{
    char berr[TOPOMAP_ERRLEN];
    yaml_node_t *v;
    topomap_hostlist_t *names = NULL;
    int dims[TOPO_MAX_DIMS], wrap[TOPO_MAX_DIMS], ndims = 0;
    if (!(v = topo_y_require(c, net, "dims", "network")))
        return NULL;
    if (v->type != YAML_SEQUENCE_NODE || topo_y_len(v) < 1 || topo_y_len(v) > TOPO_MAX_DIMS) {
        topo_y_fail(c, v, EINVAL, "'dims' must be a list of 1..%d sizes", TOPO_MAX_DIMS);
        return NULL;
    }
    ndims = topo_y_len(v);
    for (int k = 0; k < ndims; k++) {
        if (topo_y_int(c, topo_y_item(c, v, k), "dims", 1, TOPO_MAX_NODES, &dims[k]) < 0)
            return NULL;
        wrap[k] = wrap_default;
    }
    if ((v = topo_y_get(c, net, "wrap"))) {
        if (v->type == YAML_SEQUENCE_NODE) {
            if (topo_y_len(v) != ndims) {
                topo_y_fail(c, v, EINVAL, "'wrap' has %d entries but 'dims' has %d",
                            topo_y_len(v), ndims);
                return NULL;
            }
            for (int k = 0; k < ndims; k++)
                if (topo_y_bool(c, topo_y_item(c, v, k), "wrap", &wrap[k]) < 0)
                    return NULL;
        } else {
            int w;
            if (topo_y_bool(c, v, "wrap", &w) < 0)
                return NULL;
            for (int k = 0; k < ndims; k++)
                wrap[k] = w;
        }
    }
    int count = topo_torus_count(ndims, dims, wrap, berr, sizeof berr);
    if (kind_names(c, net, nodes_node, count, berr, kind, &names) < 0)
        return NULL;
    topomap_topology_t *t = topo_torus_build(ndims, dims, wrap, 1, names, berr, sizeof berr);
    return kind_built(c, net, nodes_node, t, berr);
}

static topomap_topology_t *load_torus(struct topo_yctx *c, yaml_node_t *net,
                                      yaml_node_t *nodes_node, const char *kind)
{
    return load_grid(c, net, nodes_node, kind, 1);
}

static topomap_topology_t *load_mesh(struct topo_yctx *c, yaml_node_t *net,
                                     yaml_node_t *nodes_node, const char *kind)
{
    return load_grid(c, net, nodes_node, kind, 0);
}

/* Tianhe-3: a mesh of chips, rows x cols, nodes_per_chip (even) each. */
static topomap_topology_t *load_tianhe3(struct topo_yctx *c, yaml_node_t *net,
                                        yaml_node_t *nodes_node, const char *kind)
{
    char berr[TOPOMAP_ERRLEN];
    yaml_node_t *v;
    topomap_hostlist_t *names = NULL;
    int rows = 0, cols = 0, npc = 96;
    if (!(v = topo_y_require(c, net, "rows", "network")) ||
        topo_y_int(c, v, "rows", 1, TOPO_MAX_NODES, &rows) < 0)
        return NULL;
    if (!(v = topo_y_require(c, net, "cols", "network")) ||
        topo_y_int(c, v, "cols", 1, TOPO_MAX_NODES, &cols) < 0)
        return NULL;
    if ((v = topo_y_get(c, net, "nodes_per_chip"))) {
        if (topo_y_int(c, v, "nodes_per_chip", 2, TOPO_MAX_NODES, &npc) < 0)
            return NULL;
        if (npc % 2) {
            topo_y_fail(c, v, EINVAL,
                        "'nodes_per_chip' must be even (left and right halves), not %d", npc);
            return NULL;
        }
    }
    int count = topo_tianhe3_count(rows, cols, npc, berr, sizeof berr);
    if (kind_names(c, net, nodes_node, count, berr, kind, &names) < 0)
        return NULL;
    topomap_topology_t *t = topo_tianhe3_build(rows, cols, npc, 1, names, berr, sizeof berr);
    return kind_built(c, net, nodes_node, t, berr);
}

/* A tree given by a Slurm topology.conf beside the YAML file (its path
 * relative to it); the names come from that file. */
static topomap_topology_t *load_tree_conf(struct topo_yctx *c, yaml_node_t *conf_node,
                                          const char *conf)
{
    char berr[TOPOMAP_ERRLEN];
    topomap_topology_t *t = NULL;
    char *cpath = relative_path(c->path, conf);
    size_t len;
    char *text = cpath ? topomap_input_slurp(cpath, TOPOMAP_MAX_TOPOLOGY_FILE, "a topology", &len,
                                             berr, sizeof berr)
                       : NULL;
    if (!cpath)
        topo_y_fail(c, conf_node, ENOMEM, "out of memory");
    else if (!text)
        topo_y_fail(c, conf_node, errno, "slurm_topology: %s", berr);
    else if (!topo_is_slurmconf(text))
        topo_y_fail(c, conf_node, EINVAL,
                    "slurm_topology: %s is not a Slurm topology.conf (no SwitchName= or "
                    "BlockName= line)",
                    cpath);
    else /* on failure the message names the topology.conf line */
        t = topo_slurmconf_parse(cpath, text, c->err, c->errlen);
    free(text);
    free(cpath);
    return t;
}

/* Regular trees (levels: arity, hops and bandwidth of each switch level,
 * from the top) or a Slurm topology.conf (slurm_topology). */
static topomap_topology_t *load_tree(struct topo_yctx *c, yaml_node_t *net,
                                     yaml_node_t *nodes_node, const char *kind)
{
    static const char *const level_keys[] = {"arity", "hops", "bandwidth", NULL};
    char berr[TOPOMAP_ERRLEN];
    yaml_node_t *v;
    topomap_hostlist_t *names = NULL;
    double levbw[TOPO_MAX_LEVELS] = {0};
    int nlevels = 0, arity[TOPO_MAX_LEVELS], hops[TOPO_MAX_LEVELS];
    const char *conf = NULL;
    yaml_node_t *lv = topo_y_get(c, net, "levels");
    yaml_node_t *conf_node = topo_y_get(c, net, "slurm_topology");
    if (lv && conf_node) {
        topo_y_fail(c, conf_node, EINVAL, "give either 'levels' or 'slurm_topology', not both");
        return NULL;
    }
    if (!lv && !conf_node) {
        topo_y_fail(c, net, EINVAL,
                    "missing required key 'levels' (or 'slurm_topology') in network");
        return NULL;
    }
    if (conf_node) {
        if (topo_y_str(c, conf_node, "slurm_topology", &conf) < 0)
            return NULL;
        if (nodes_node) {
            topo_y_fail(c, nodes_node, EINVAL,
                        "'nodes' cannot be given with 'slurm_topology' (the names come from "
                        "the topology.conf)");
            return NULL;
        }
        return load_tree_conf(c, conf_node, conf);
    }
    if (lv->type != YAML_SEQUENCE_NODE || topo_y_len(lv) < 1 ||
        topo_y_len(lv) > TOPO_MAX_LEVELS) {
        topo_y_fail(c, lv, EINVAL, "'levels' must be a list of 1..%d switch levels",
                    TOPO_MAX_LEVELS);
        return NULL;
    }
    nlevels = topo_y_len(lv);
    for (int k = 0; k < nlevels; k++) {
        yaml_node_t *l = topo_y_item(c, lv, k);
        if (topo_y_check_map(c, l, "a network level", level_keys) < 0)
            return NULL;
        if (!(v = topo_y_require(c, l, "arity", "a network level")) ||
            topo_y_int(c, v, "arity", 1, TOPO_MAX_NODES, &arity[k]) < 0)
            return NULL;
        /* Default: up to the switch and down again, one link per level. */
        hops[k] = 2 * (nlevels - k);
        if ((v = topo_y_get(c, l, "hops")) &&
            topo_y_int(c, v, "hops", 1, INT_MAX / 2, &hops[k]) < 0)
            return NULL;
        /* Cables from this level's switches down (tapering). */
        if ((v = topo_y_get(c, l, "bandwidth")) &&
            topo_y_double(c, v, "bandwidth", TOPOMAP_MIN_BANDWIDTH, 0, HUGE_VAL, &levbw[k]) < 0)
            return NULL;
    }
    int count = topo_tree_count(nlevels, arity, hops, berr, sizeof berr);
    if (kind_names(c, net, nodes_node, count, berr, kind, &names) < 0)
        return NULL;
    topomap_topology_t *t = topo_tree_build(nlevels, arity, hops, 1, names, berr, sizeof berr);
    if (kind_built(c, net, nodes_node, t, berr))
        memcpy(t->u.tree.bandwidth, levbw, sizeof levbw);
    return t;
}

/* The keys of a node description (the node section and each node_types
 * entry, whose keys the caller checked; what names it in messages):
 * exactly one of cores, levels or hwloc, and costs, self_cost, gpus
 * (topo_gpu_yaml.c: the slots become the GPUs). Fills ty
 * (the caller clears it on failure too). */
static int load_levels(struct topo_yctx *c, const topomap_topology_t *t, yaml_node_t *node,
                       const char *what, struct topo_ntype *ty)
{
    static const char *const level_keys[] = {"name", "arity", "cost", NULL};
    char berr[TOPOMAP_ERRLEN];
    yaml_node_t *v, *cores, *levels, *hw, *costs, *self;
    int arity[TOPO_MAX_LEVELS], nl = 0;
    double cost[TOPO_MAX_LEVELS + 1];
    const char *names[TOPO_MAX_LEVELS];

    cores = topo_y_get(c, node, "cores");
    levels = topo_y_get(c, node, "levels");
    hw = topo_y_get(c, node, "hwloc");
    costs = topo_y_get(c, node, "costs");
    self = topo_y_get(c, node, "self_cost");
    if (!!cores + !!levels + !!hw != 1)
        return topo_y_fail(c, node, EINVAL,
                           "%s: give exactly one of 'cores', 'levels' or 'hwloc' (%d given)",
                           what, !!cores + !!levels + !!hw);
    if (costs && !hw)
        return topo_y_fail(c, costs, EINVAL, "'costs' goes with 'hwloc' (with 'levels', give each "
                           "level a 'cost')");
    double self_cost = 0;
    if (self && topo_y_double(c, self, "self_cost", 0, 0, TOPOMAP_MAX_COST, &self_cost) < 0)
        return -1;
    if (cores) {
        nl = 1;
        if (topo_y_int(c, cores, "cores", 1, TOPO_MAX_CORES, &arity[0]) < 0)
            return -1;
        names[0] = "core";
        cost[0] = topo_default_cost(t, 0);
    } else if (levels) {
        if (levels->type != YAML_SEQUENCE_NODE || topo_y_len(levels) < 1 ||
            topo_y_len(levels) > TOPO_MAX_LEVELS)
            return topo_y_fail(c, levels, EINVAL, "'levels' must be a list of 1..%d node levels",
                               TOPO_MAX_LEVELS);
        nl = topo_y_len(levels);
        long total = 1;
        for (int k = 0; k < nl; k++) {
            yaml_node_t *l = topo_y_item(c, levels, k);
            if (topo_y_check_map(c, l, "a node level", level_keys) < 0)
                return -1;
            if (!(v = topo_y_require(c, l, "arity", "a node level")) ||
                topo_y_int(c, v, "arity", 1, TOPO_MAX_CORES, &arity[k]) < 0)
                return -1;
            total *= arity[k];
            if (total > TOPO_MAX_CORES)
                return topo_y_fail(c, v, EINVAL, "a node may have at most %d cores",
                                   TOPO_MAX_CORES);
            names[k] = k == nl - 1 ? "core" : "level";
            if ((v = topo_y_get(c, l, "name")) && topo_y_str(c, v, "name", &names[k]) < 0)
                return -1;
            if (v && strlen(names[k]) >= TOPO_NAME_LEN)
                return topo_y_fail(c, v, EINVAL, "'name' must be at most %d characters",
                                   TOPO_NAME_LEN - 1);
            cost[k] = topo_default_cost(t, k);
            if ((v = topo_y_get(c, l, "cost")) &&
                topo_y_double(c, v, "cost", 0, 0, TOPOMAP_MAX_COST, &cost[k]) < 0)
                return -1;
        }
    } else {
        const char *file;
        if (topo_y_str(c, hw, "hwloc", &file) < 0)
            return -1;
        char *xml = relative_path(c->path, file);
        if (!xml)
            return topo_y_fail(c, hw, ENOMEM, "out of memory");
        int rc = topo_hwloc_type(t, xml, ty, berr, sizeof berr);
        free(xml);
        if (rc < 0)
            return topo_y_fail(c, hw, errno, "hwloc: %s", berr);
        nl = ty->nlevels;
        for (int k = 0; k < nl; k++) {
            arity[k] = ty->arity[k];
            names[k] = ty->level_name[k]; /* topo_type_levels copies them first */
            cost[k] = ty->cost[k];
        }
        if (costs) {
            /* By level name, so one YAML fits machines with or without a
             * NUMA level. */
            if (costs->type != YAML_MAPPING_NODE)
                return topo_y_fail(c, costs, EINVAL, "'costs' must be a mapping, not %s",
                                   topo_y_type(costs));
            for (yaml_node_pair_t *p = costs->data.mapping.pairs.start;
                 p < costs->data.mapping.pairs.top; p++) {
                yaml_node_t *k = topo_y_node(c, p->key), *val = topo_y_node(c, p->value);
                int found = -1;
                for (int i = 0; k->type == YAML_SCALAR_NODE && i < nl; i++)
                    if (!strcmp(names[i], topo_y_scalar(k)))
                        found = i;
                if (found < 0) {
                    char list[128] = "";
                    for (int i = 0; i < nl; i++) {
                        size_t l = strlen(list);
                        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
                    }
                    return topo_y_fail(c, k, EINVAL,
                                       "'costs': hwloc found no level '%s' (levels: %s)",
                                       k->type == YAML_SCALAR_NODE ? topo_y_scalar(k) : "?", list);
                }
                if (topo_y_double(c, val, topo_y_scalar(k), 0, 0, TOPOMAP_MAX_COST,
                                  &cost[found]) < 0)
                    return -1;
            }
        }
    }
    cost[nl] = self_cost;
    if (topo_type_levels(t, ty, nl, arity, cost, names, berr, sizeof berr) < 0)
        return topo_y_fail(c, node, errno, "%s", berr);
    if ((v = topo_y_get(c, node, "gpus"))) {
        const char *file = NULL;
        char *xml = hw && topo_y_str(c, hw, "hwloc", &file) == 0 ? relative_path(c->path, file)
                                                                  : NULL;
        if (hw && !xml)
            return topo_y_fail(c, hw, ENOMEM, "out of memory");
        int rc = topo_y_gpus(c, t, v, xml, ty);
        free(xml);
        return rc;
    }
    return 0;
}

/* The node section: the default node type (type 0). */
static int load_node(struct topo_yctx *c, topomap_topology_t *t, yaml_node_t *node)
{
    static const char *const node_keys[] = {"cores", "levels", "hwloc", "costs", "self_cost",
                                            "gpus", NULL};
    struct topo_ntype ty = {0};
    int n1 = 1;
    if (!node) /* no node section: one core per node */
        return topo_set_levels(t, 1, &n1, NULL, NULL, c->err, c->errlen);
    if (topo_y_check_map(c, node, "node", node_keys) < 0)
        return -1;
    if (load_levels(c, t, node, "node", &ty) < 0) {
        topo_type_clear(&ty);
        return -1;
    }
    topo_types_reset(t, &ty);
    return 0;
}

/* The hostlist of node_types entry i: every name a node of t, named by no
 * earlier entry (owner[v]: the entry that named node v, -1 none). */
static int claim_nodes(struct topo_yctx *c, const topomap_topology_t *t, yaml_node_t *hn, int i,
                       int *owner, const yaml_node_t *const *hnodes)
{
    char herr[TOPOMAP_ERRLEN];
    const char *expr;
    if (topo_y_str(c, hn, "hostlist", &expr) < 0)
        return -1;
    topomap_hostlist_t *hl = topomap_hostlist_parse(expr, herr, sizeof herr);
    if (!hl)
        return topo_y_fail(c, hn, errno, "node_types: %s", herr);
    int rc = 0;
    for (size_t k = 0; k < topomap_hostlist_count(hl) && !rc; k++) {
        const char *name = topomap_hostlist_get(hl, k);
        int v = topomap_topology_node_lookup(t, name);
        if (v < 0)
            rc = topo_y_fail(c, hn, EINVAL, "node_types: node '%s' is not a node of the network",
                             name);
        else if (owner[v] == i)
            rc = topo_y_fail(c, hn, EINVAL,
                             "node_types: node '%s' is named twice in this hostlist", name);
        else if (owner[v] >= 0)
            rc = topo_y_fail(c, hn, EINVAL,
                             "node_types: node '%s' already has a type (the entry at line %lu)",
                             name, (unsigned long)hnodes[owner[v]]->start_mark.line + 1);
        else
            owner[v] = i;
    }
    topomap_hostlist_free(hl);
    return rc;
}

/* node_types: a list of node types, each a hostlist and a node
 * description; nodes named by none take the node section's type (type 0),
 * and without a node section the first entry becomes type 0. */
static int load_node_types(struct topo_yctx *c, topomap_topology_t *t, yaml_node_t *list,
                           yaml_node_t *node)
{
    static const char *const keys[] = {"hostlist", "cores", "levels", "hwloc", "costs",
                                       "self_cost", "gpus", NULL};
    if (list->type != YAML_SEQUENCE_NODE || topo_y_len(list) < 1)
        return topo_y_fail(c, list, EINVAL,
                           "'node_types' must be a non-empty list of node types");
    int nt = topo_y_len(list), rc = -1;
    if (nt + (node != NULL) > TOPOMAP_MAX_NODE_TYPES)
        return topo_y_fail(c, list, EINVAL, "a topology may have at most %d node types",
                           TOPOMAP_MAX_NODE_TYPES);
    int *owner = malloc(sizeof(int) * (size_t)t->nnodes);
    struct topo_ntype *ty = calloc((size_t)nt, sizeof *ty);
    const yaml_node_t **hnodes = calloc((size_t)nt, sizeof *hnodes);
    if (!owner || !ty || !hnodes) {
        topo_y_fail(c, list, ENOMEM, "out of memory");
        goto out;
    }
    for (int v = 0; v < t->nnodes; v++)
        owner[v] = -1;
    for (int i = 0; i < nt; i++) {
        yaml_node_t *e = topo_y_item(c, list, i), *hn;
        if (topo_y_check_map(c, e, "a node_types entry", keys) < 0 ||
            !(hn = topo_y_require(c, e, "hostlist", "a node_types entry")))
            goto out;
        hnodes[i] = hn;
        if (claim_nodes(c, t, hn, i, owner, hnodes) < 0 ||
            load_levels(c, t, e, "node_types entry", &ty[i]) < 0)
            goto out;
    }
    for (int v = 0; v < t->nnodes && !node; v++)
        if (owner[v] < 0) {
            topo_y_fail(c, list, EINVAL,
                        "node_types: node '%s' has no type (no entry names it and there is no "
                        "'node' section for the other nodes)",
                        topomap_topology_node_name(t, v));
            goto out;
        }
    if (!node) { /* type 0: entry 0's nodes; the others are added */
        topo_types_reset(t, &ty[0]);
        memset(&ty[0], 0, sizeof ty[0]); /* taken over */
    }
    for (int i = !node; i < nt; i++) {
        char berr[TOPOMAP_ERRLEN];
        if (topo_types_add(t, &ty[i], topo_y_scalar(hnodes[i]), berr, sizeof berr) < 0) {
            topo_y_fail(c, hnodes[i], errno, "%s", berr); /* ENOMEM: checked above */
            goto out;
        }
    }
    rc = 0;
out:
    for (int i = 0; ty && i < nt; i++)
        topo_type_clear(&ty[i]); /* taken over ones are zeroed */
    free(owner);
    free(ty);
    free(hnodes);
    return rc;
}

topomap_topology_t *topo_yaml_load(const char *path, const char *text, size_t len,
                                   const char *name, char *err, size_t errlen)
{
    static const char *const top_keys[] = {"name", "description", "network", "nodes", "node",
                                           "node_types", "gpu_fabric", NULL};
    yaml_document_t doc;
    struct topo_yctx c = {path, &doc, err, errlen};
    topomap_topology_t *t = NULL;

    if (topo_y_load(path, text, len, &doc, err, errlen) < 0)
        return NULL;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || (root->type == YAML_SCALAR_NODE && !*topo_y_scalar(root))) {
        topomap_fail(err, errlen, EINVAL,
                     "%s:1:1: empty topology description (expected a mapping with 'network')",
                     path);
        goto out;
    }
    if (topo_is_slurmyaml(&doc, root)) {
        t = topo_slurmyaml_load(&c, root, name);
        goto out;
    }
    if (name) {
        topomap_fail(err, errlen, EINVAL, "%s: no topology named '%s': only a Slurm topology.yaml "
                     "names its topologies", path, name);
        goto out;
    }
    if (root->type != YAML_MAPPING_NODE) {
        topo_y_fail(&c, root, EINVAL,
                    "a topology description must be a mapping with 'network', not %s",
                    topo_y_type(root));
        goto out;
    }
    if (topo_y_check_map(&c, root, "the topology", top_keys) < 0)
        goto out;
    yaml_node_t *v, *net = topo_y_require(&c, root, "network", "the topology");
    if (!net)
        goto out;
    const char *tname = NULL, *desc = NULL; /* description: for humans only */
    if ((v = topo_y_get(&c, root, "name")) && topo_y_str(&c, v, "name", &tname) < 0)
        goto out;
    if ((v = topo_y_get(&c, root, "description")) && topo_y_str(&c, v, "description", &desc) < 0)
        goto out;
    double hop_cost, bandwidth;
    if (!(t = load_network(&c, root, net, &hop_cost, &bandwidth)))
        goto out;
    t->hop_cost = hop_cost;
    t->link_bandwidth = bandwidth;
    yaml_node_t *node = topo_y_get(&c, root, "node"), *types = topo_y_get(&c, root, "node_types");
    if ((node || !types) && load_node(&c, t, node) < 0)
        goto fail;
    if (types && load_node_types(&c, t, types, node) < 0)
        goto fail;
    if ((v = topo_y_get(&c, root, "gpu_fabric")) && topo_y_fabric(&c, t, v) < 0)
        goto fail;
    if (tname && !(t->name = strdup(tname))) {
        topo_y_fail(&c, topo_y_get(&c, root, "name"), ENOMEM, "out of memory");
        goto fail;
    }
    goto out;
fail:
    topomap_topology_free(t);
    t = NULL;
out:
    yaml_document_delete(&doc);
    return t;
}
