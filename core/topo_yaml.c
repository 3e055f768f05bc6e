/* SPDX-License-Identifier: BSD-3-Clause */
/* Site topology descriptions in YAML (schema: topologies/README.md), read
 * with libyaml's document API and checked strictly: every error names
 * FILE:LINE:COL of the offending key or value (unknown keys, wrong types,
 * values out of range, inconsistent sizes, missing required keys, syntax). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "internal.h"
#include "topology_priv.h"

struct ctx {
    const char *path;
    yaml_document_t *doc;
    char *err;
    size_t errlen;
};

/* "FILE:LINE:COL: message" at node n (1-based line and column). */
__attribute__((format(printf, 4, 5))) static int fail_at(struct ctx *c, const yaml_node_t *n,
                                                         int e, const char *fmt, ...)
{
    char msg[TOPOMAP_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return topomap_fail(c->err, c->errlen, e, "%s:%lu:%lu: %s", c->path,
                        n ? (unsigned long)n->start_mark.line + 1 : 1UL,
                        n ? (unsigned long)n->start_mark.column + 1 : 1UL, msg);
}

static yaml_node_t *node_of(struct ctx *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static const char *type_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    default:
        return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "a plain scalar" : "a string";
    }
}

/* Check that map is a mapping whose keys are distinct scalars among allowed
 * (a NULL-terminated list); what names the map in messages. */
static int check_map(struct ctx *c, yaml_node_t *map, const char *what, const char *const *allowed)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(c, map, EINVAL, "'%s' must be a mapping, not %s", what, type_name(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_of(c, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return fail_at(c, k, EINVAL, "keys of '%s' must be plain words", what);
        int known = 0;
        for (int i = 0; allowed[i] && !known; i++)
            known = !strcmp(allowed[i], scalar(k));
        if (!known) {
            char list[256] = "";
            for (int i = 0; allowed[i]; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", allowed[i]);
            }
            return fail_at(c, k, EINVAL, "unknown key '%s' in %s (expected one of: %s)",
                           scalar(k), what, list);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *k2 = node_of(c, q->key);
            if (k2->type == YAML_SCALAR_NODE && !strcmp(scalar(k2), scalar(k)))
                return fail_at(c, k, EINVAL, "duplicate key '%s' in %s (first at line %lu)",
                               scalar(k), what, (unsigned long)k2->start_mark.line + 1);
        }
    }
    return 0;
}

/* Value of key in a checked mapping, or NULL. */
static yaml_node_t *get(struct ctx *c, yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_of(c, p->key);
        if (!strcmp(scalar(k), key))
            return node_of(c, p->value);
    }
    return NULL;
}

static yaml_node_t *require(struct ctx *c, yaml_node_t *map, const char *key, const char *what)
{
    yaml_node_t *v = get(c, map, key);
    if (!v)
        fail_at(c, map, EINVAL, "missing required key '%s' in %s", key, what);
    return v;
}

static int get_int(struct ctx *c, yaml_node_t *n, const char *key, long min, long max, int *out)
{
    long v;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        topomap_parse_long(scalar(n), &v) < 0)
        return fail_at(c, n, EINVAL, "'%s' must be an integer, not %s%s%s%s", key, type_name(n),
                       n->type == YAML_SCALAR_NODE ? " '" : "",
                       n->type == YAML_SCALAR_NODE ? scalar(n) : "",
                       n->type == YAML_SCALAR_NODE ? "'" : "");
    if (v < min || v > max)
        return fail_at(c, n, EINVAL, "'%s' must be in %ld..%ld, not %ld", key, min, max, v);
    *out = (int)v;
    return 0;
}

/* A number in [min, max] (min excluded when min_open). */
static int get_double(struct ctx *c, yaml_node_t *n, const char *key, double min, int min_open,
                      double max, double *out)
{
    double v;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        topomap_parse_double(scalar(n), &v) < 0)
        return fail_at(c, n, EINVAL, "'%s' must be a number, not %s%s%s%s", key, type_name(n),
                       n->type == YAML_SCALAR_NODE ? " '" : "",
                       n->type == YAML_SCALAR_NODE ? scalar(n) : "",
                       n->type == YAML_SCALAR_NODE ? "'" : "");
    if (v < min || (min_open && v == min))
        return fail_at(c, n, EINVAL, "'%s' must be %s %g, not %g", key, min_open ? ">" : ">=",
                       min, v);
    if (v > max)
        return fail_at(c, n, EINVAL, "'%s' must be at most %g, not %g", key, max, v);
    *out = v;
    return 0;
}

static int get_bool(struct ctx *c, yaml_node_t *n, const char *key, int *out)
{
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        for (int i = 0; i < 3; i++) {
            if (!strcasecmp(scalar(n), yes[i]))
                return *out = 1, 0;
            if (!strcasecmp(scalar(n), no[i]))
                return *out = 0, 0;
        }
    return fail_at(c, n, EINVAL, "'%s' must be true or false, not %s%s%s%s", key, type_name(n),
                   n->type == YAML_SCALAR_NODE ? " '" : "",
                   n->type == YAML_SCALAR_NODE ? scalar(n) : "",
                   n->type == YAML_SCALAR_NODE ? "'" : "");
}

static int get_str(struct ctx *c, yaml_node_t *n, const char *key, const char **out)
{
    if (n->type != YAML_SCALAR_NODE || !*scalar(n))
        return fail_at(c, n, EINVAL, "'%s' must be a non-empty string, not %s", key,
                       n->type == YAML_SCALAR_NODE ? "empty" : type_name(n));
    *out = scalar(n);
    return 0;
}

static int seq_len(const yaml_node_t *n)
{
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_item(struct ctx *c, const yaml_node_t *n, int i)
{
    return node_of(c, n->data.sequence.items.start[i]);
}

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

/* nodes: one hostlist expression, or a list of them (concatenated), of at
 * most max names (aliases can repeat a long expression: stop at the cap). */
static topomap_hostlist_t *parse_nodes(struct ctx *c, yaml_node_t *n, size_t max)
{
    char herr[TOPOMAP_ERRLEN];
    if (n->type == YAML_SCALAR_NODE) {
        topomap_hostlist_t *hl = topomap_hostlist_parse(scalar(n), herr, sizeof herr);
        if (!hl)
            fail_at(c, n, errno, "nodes: %s", herr);
        return hl;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        fail_at(c, n, EINVAL, "'nodes' must be a hostlist expression or a list of them, not %s",
                type_name(n));
        return NULL;
    }
    topomap_hostlist_t *all = topo_hostlist_new();
    if (!all) {
        fail_at(c, n, ENOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < seq_len(n); i++) {
        yaml_node_t *it = seq_item(c, n, i);
        if (it->type != YAML_SCALAR_NODE) {
            fail_at(c, it, EINVAL, "items of 'nodes' must be hostlist expressions, not %s",
                    type_name(it));
            goto fail;
        }
        topomap_hostlist_t *hl = topomap_hostlist_parse(scalar(it), herr, sizeof herr);
        if (!hl) {
            fail_at(c, it, errno, "nodes: %s", herr);
            goto fail;
        }
        if (topomap_hostlist_count(all) + topomap_hostlist_count(hl) > max) {
            topomap_hostlist_free(hl);
            fail_at(c, it, EINVAL, "'nodes' names more than the %zu hosts of the network", max);
            goto fail;
        }
        for (size_t k = 0; k < topomap_hostlist_count(hl); k++) {
            const char *nm = topomap_hostlist_get(hl, k);
            if (topo_hostlist_push(all, nm, strlen(nm)) < 0) {
                topomap_hostlist_free(hl);
                fail_at(c, it, ENOMEM, "out of memory");
                goto fail;
            }
        }
        topomap_hostlist_free(hl);
    }
    if (topo_hostlist_seal(all) == 0)
        return all;
    fail_at(c, n, ENOMEM, "out of memory");
fail:
    topomap_hostlist_free(all);
    return NULL;
}

/* The network section: builds the topology (one core per node for now). */
static topomap_topology_t *load_network(struct ctx *c, yaml_node_t *root, yaml_node_t *net,
                                        double *hop_cost, double *bandwidth)
{
    static const char *const torus_keys[] = {"kind", "hop_cost", "link_bandwidth", "dims", "wrap",
                                             NULL};
    static const char *const th3_keys[] = {"kind", "hop_cost", "link_bandwidth", "rows", "cols",
                                           "nodes_per_chip", NULL};
    static const char *const tree_keys[] = {"kind", "hop_cost", "link_bandwidth", "levels",
                                            "slurm_topology", NULL};
    static const char *const level_keys[] = {"arity", "hops", NULL};
    char berr[TOPOMAP_ERRLEN];
    const char *kind;
    yaml_node_t *v, *nodes_node = get(c, root, "nodes");
    topomap_hostlist_t *names = NULL;
    int count = -1;

    if (net->type != YAML_MAPPING_NODE) {
        fail_at(c, net, EINVAL, "'network' must be a mapping, not %s", type_name(net));
        return NULL;
    }
    if (!(v = require(c, net, "kind", "network")) || get_str(c, v, "kind", &kind) < 0)
        return NULL;
    yaml_node_t *kind_node = v;
    int is_torus = !strcmp(kind, "torus"), is_mesh = !strcmp(kind, "mesh");
    int is_th3 = !strcmp(kind, "tianhe3");
    int is_tree = !strcmp(kind, "fat-tree") || !strcmp(kind, "fattree") || !strcmp(kind, "tree");
    if (!is_torus && !is_mesh && !is_th3 && !is_tree) {
        fail_at(c, kind_node, EINVAL,
                "unknown network kind '%s' (expected torus, mesh, tianhe3 or fat-tree)", kind);
        return NULL;
    }
    if (check_map(c, net, "network",
                  is_th3 ? th3_keys : is_tree ? tree_keys : torus_keys) < 0)
        return NULL;
    *hop_cost = 1.0;
    if ((v = get(c, net, "hop_cost")) && get_double(c, v, "hop_cost", 0, 1, TOPOMAP_MAX_COST, hop_cost) < 0)
        return NULL;
    /* Bytes per second of one channel (one direction of a cable); 0 = unknown. */
    *bandwidth = 0;
    if ((v = get(c, net, "link_bandwidth")) &&
        get_double(c, v, "link_bandwidth", TOPOMAP_MIN_BANDWIDTH, 0, HUGE_VAL,
                   bandwidth) < 0)
        return NULL;

    /* Parameters and node count, then the names, then the build. */
    int dims[TOPO_MAX_DIMS], wrap[TOPO_MAX_DIMS], ndims = 0;
    int rows = 0, cols = 0, npc = 96;
    int nlevels = 0, arity[TOPO_MAX_LEVELS], hops[TOPO_MAX_LEVELS];
    const char *conf = NULL;
    yaml_node_t *conf_node = NULL;
    if (is_torus || is_mesh) {
        if (!(v = require(c, net, "dims", "network")))
            return NULL;
        if (v->type != YAML_SEQUENCE_NODE || seq_len(v) < 1 || seq_len(v) > TOPO_MAX_DIMS) {
            fail_at(c, v, EINVAL, "'dims' must be a list of 1..%d sizes", TOPO_MAX_DIMS);
            return NULL;
        }
        ndims = seq_len(v);
        for (int k = 0; k < ndims; k++) {
            if (get_int(c, seq_item(c, v, k), "dims", 1, TOPO_MAX_NODES, &dims[k]) < 0)
                return NULL;
            wrap[k] = is_torus;
        }
        if ((v = get(c, net, "wrap"))) {
            if (v->type == YAML_SEQUENCE_NODE) {
                if (seq_len(v) != ndims) {
                    fail_at(c, v, EINVAL, "'wrap' has %d entries but 'dims' has %d",
                            seq_len(v), ndims);
                    return NULL;
                }
                for (int k = 0; k < ndims; k++)
                    if (get_bool(c, seq_item(c, v, k), "wrap", &wrap[k]) < 0)
                        return NULL;
            } else {
                int w;
                if (get_bool(c, v, "wrap", &w) < 0)
                    return NULL;
                for (int k = 0; k < ndims; k++)
                    wrap[k] = w;
            }
        }
        count = topo_torus_count(ndims, dims, wrap, berr, sizeof berr);
    } else if (is_th3) {
        if (!(v = require(c, net, "rows", "network")) ||
            get_int(c, v, "rows", 1, TOPO_MAX_NODES, &rows) < 0)
            return NULL;
        if (!(v = require(c, net, "cols", "network")) ||
            get_int(c, v, "cols", 1, TOPO_MAX_NODES, &cols) < 0)
            return NULL;
        if ((v = get(c, net, "nodes_per_chip"))) {
            if (get_int(c, v, "nodes_per_chip", 2, TOPO_MAX_NODES, &npc) < 0)
                return NULL;
            if (npc % 2) {
                fail_at(c, v, EINVAL,
                        "'nodes_per_chip' must be even (left and right halves), not %d", npc);
                return NULL;
            }
        }
        count = topo_tianhe3_count(rows, cols, npc, berr, sizeof berr);
    } else {
        yaml_node_t *lv = get(c, net, "levels");
        conf_node = get(c, net, "slurm_topology");
        if (lv && conf_node) {
            fail_at(c, conf_node, EINVAL, "give either 'levels' or 'slurm_topology', not both");
            return NULL;
        }
        if (!lv && !conf_node) {
            fail_at(c, net, EINVAL,
                    "missing required key 'levels' (or 'slurm_topology') in network");
            return NULL;
        }
        if (conf_node) {
            if (get_str(c, conf_node, "slurm_topology", &conf) < 0)
                return NULL;
            if (nodes_node) {
                fail_at(c, nodes_node, EINVAL,
                        "'nodes' cannot be given with 'slurm_topology' (the names come from "
                        "the topology.conf)");
                return NULL;
            }
        } else {
            if (lv->type != YAML_SEQUENCE_NODE || seq_len(lv) < 1 ||
                seq_len(lv) > TOPO_MAX_LEVELS) {
                fail_at(c, lv, EINVAL, "'levels' must be a list of 1..%d switch levels",
                        TOPO_MAX_LEVELS);
                return NULL;
            }
            nlevels = seq_len(lv);
            for (int k = 0; k < nlevels; k++) {
                yaml_node_t *l = seq_item(c, lv, k);
                if (check_map(c, l, "a network level", level_keys) < 0)
                    return NULL;
                if (!(v = require(c, l, "arity", "a network level")) ||
                    get_int(c, v, "arity", 1, TOPO_MAX_NODES, &arity[k]) < 0)
                    return NULL;
                /* Default: up to the switch and down again, one link per level. */
                hops[k] = 2 * (nlevels - k);
                if ((v = get(c, l, "hops")) && get_int(c, v, "hops", 1, INT_MAX / 2, &hops[k]) < 0)
                    return NULL;
            }
            count = topo_tree_count(nlevels, arity, hops, berr, sizeof berr);
        }
    }
    if (!conf && count < 0) {
        fail_at(c, net, EINVAL, "%s", berr);
        return NULL;
    }
    if (nodes_node) {
        if (!(names = parse_nodes(c, nodes_node, (size_t)count)))
            return NULL;
        if (topomap_hostlist_count(names) != (size_t)count) {
            fail_at(c, nodes_node, EINVAL, "'nodes' names %zu hosts but the %s network has %d nodes",
                    topomap_hostlist_count(names), kind, count);
            topomap_hostlist_free(names);
            return NULL;
        }
    }
    topomap_topology_t *t = NULL;
    if (conf) {
        char *cpath = relative_path(c->path, conf);
        size_t len;
        char *text = cpath ? topomap_input_slurp(cpath, TOPOMAP_MAX_TOPOLOGY_FILE, "a topology",
                                                 &len, berr, sizeof berr)
                           : NULL;
        if (!cpath)
            fail_at(c, conf_node, ENOMEM, "out of memory");
        else if (!text)
            fail_at(c, conf_node, errno, "slurm_topology: %s", berr);
        else if (!topo_is_slurmconf(text))
            fail_at(c, conf_node, EINVAL,
                    "slurm_topology: %s is not a Slurm topology.conf (no SwitchName= line)",
                    cpath);
        else /* on failure the message names the topology.conf line */
            t = topo_slurmconf_parse(cpath, text, c->err, c->errlen);
        free(text);
        free(cpath);
        return t;
    }
    if (is_torus || is_mesh)
        t = topo_torus_build(ndims, dims, wrap, 1, names, berr, sizeof berr);
    else if (is_th3)
        t = topo_tianhe3_build(rows, cols, npc, 1, names, berr, sizeof berr);
    else
        t = topo_tree_build(nlevels, arity, hops, 1, names, berr, sizeof berr);
    if (!t)
        fail_at(c, nodes_node ? nodes_node : net, errno, "%s", berr);
    return t;
}

/* The keys of a node description (the node section and each node_types
 * entry, whose keys the caller checked; what names it in messages):
 * exactly one of cores, levels or hwloc, and costs, self_cost. Fills ty
 * (the caller clears it on failure too). */
static int load_levels(struct ctx *c, const topomap_topology_t *t, yaml_node_t *node,
                       const char *what, struct topo_ntype *ty)
{
    static const char *const level_keys[] = {"name", "arity", "cost", NULL};
    char berr[TOPOMAP_ERRLEN];
    yaml_node_t *v, *cores, *levels, *hw, *costs, *self;
    int arity[TOPO_MAX_LEVELS], nl = 0;
    double cost[TOPO_MAX_LEVELS + 1];
    const char *names[TOPO_MAX_LEVELS];

    cores = get(c, node, "cores");
    levels = get(c, node, "levels");
    hw = get(c, node, "hwloc");
    costs = get(c, node, "costs");
    self = get(c, node, "self_cost");
    if (!!cores + !!levels + !!hw != 1)
        return fail_at(c, node, EINVAL,
                       "%s: give exactly one of 'cores', 'levels' or 'hwloc' (%d given)", what,
                       !!cores + !!levels + !!hw);
    if (costs && !hw)
        return fail_at(c, costs, EINVAL, "'costs' goes with 'hwloc' (with 'levels', give each "
                                         "level a 'cost')");
    double self_cost = 0;
    if (self && get_double(c, self, "self_cost", 0, 0, TOPOMAP_MAX_COST, &self_cost) < 0)
        return -1;
    if (cores) {
        nl = 1;
        if (get_int(c, cores, "cores", 1, TOPO_MAX_CORES, &arity[0]) < 0)
            return -1;
        names[0] = "core";
        cost[0] = topo_default_cost(t, 0);
    } else if (levels) {
        if (levels->type != YAML_SEQUENCE_NODE || seq_len(levels) < 1 ||
            seq_len(levels) > TOPO_MAX_LEVELS)
            return fail_at(c, levels, EINVAL, "'levels' must be a list of 1..%d node levels",
                           TOPO_MAX_LEVELS);
        nl = seq_len(levels);
        long total = 1;
        for (int k = 0; k < nl; k++) {
            yaml_node_t *l = seq_item(c, levels, k);
            if (check_map(c, l, "a node level", level_keys) < 0)
                return -1;
            if (!(v = require(c, l, "arity", "a node level")) ||
                get_int(c, v, "arity", 1, TOPO_MAX_CORES, &arity[k]) < 0)
                return -1;
            total *= arity[k];
            if (total > TOPO_MAX_CORES)
                return fail_at(c, v, EINVAL, "a node may have at most %d cores", TOPO_MAX_CORES);
            names[k] = k == nl - 1 ? "core" : "level";
            if ((v = get(c, l, "name")) && get_str(c, v, "name", &names[k]) < 0)
                return -1;
            if (v && strlen(names[k]) >= TOPO_NAME_LEN)
                return fail_at(c, v, EINVAL, "'name' must be at most %d characters",
                               TOPO_NAME_LEN - 1);
            cost[k] = topo_default_cost(t, k);
            if ((v = get(c, l, "cost")) && get_double(c, v, "cost", 0, 0, TOPOMAP_MAX_COST, &cost[k]) < 0)
                return -1;
        }
    } else {
        const char *file;
        if (get_str(c, hw, "hwloc", &file) < 0)
            return -1;
        char *xml = relative_path(c->path, file);
        if (!xml)
            return fail_at(c, hw, ENOMEM, "out of memory");
        int rc = topo_hwloc_type(t, xml, ty, berr, sizeof berr);
        free(xml);
        if (rc < 0)
            return fail_at(c, hw, errno, "hwloc: %s", berr);
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
                return fail_at(c, costs, EINVAL, "'costs' must be a mapping, not %s",
                               type_name(costs));
            for (yaml_node_pair_t *p = costs->data.mapping.pairs.start;
                 p < costs->data.mapping.pairs.top; p++) {
                yaml_node_t *k = node_of(c, p->key), *val = node_of(c, p->value);
                int found = -1;
                for (int i = 0; k->type == YAML_SCALAR_NODE && i < nl; i++)
                    if (!strcmp(names[i], scalar(k)))
                        found = i;
                if (found < 0) {
                    char list[128] = "";
                    for (int i = 0; i < nl; i++) {
                        size_t l = strlen(list);
                        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
                    }
                    return fail_at(c, k, EINVAL, "'costs': hwloc found no level '%s' (levels: %s)",
                                   k->type == YAML_SCALAR_NODE ? scalar(k) : "?", list);
                }
                if (get_double(c, val, scalar(k), 0, 0, TOPOMAP_MAX_COST, &cost[found]) < 0)
                    return -1;
            }
        }
    }
    cost[nl] = self_cost;
    if (topo_type_levels(t, ty, nl, arity, cost, names, berr, sizeof berr) < 0)
        return fail_at(c, node, errno, "%s", berr);
    return 0;
}

/* The node section: the default node type (type 0). */
static int load_node(struct ctx *c, topomap_topology_t *t, yaml_node_t *node)
{
    static const char *const node_keys[] = {"cores", "levels", "hwloc", "costs", "self_cost",
                                            NULL};
    struct topo_ntype ty = {0};
    int n1 = 1;
    if (!node) /* no node section: one core per node */
        return topo_set_levels(t, 1, &n1, NULL, NULL, c->err, c->errlen);
    if (check_map(c, node, "node", node_keys) < 0)
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
static int claim_nodes(struct ctx *c, const topomap_topology_t *t, yaml_node_t *hn, int i,
                       int *owner, const yaml_node_t *const *hnodes)
{
    char herr[TOPOMAP_ERRLEN];
    const char *expr;
    if (get_str(c, hn, "hostlist", &expr) < 0)
        return -1;
    topomap_hostlist_t *hl = topomap_hostlist_parse(expr, herr, sizeof herr);
    if (!hl)
        return fail_at(c, hn, errno, "node_types: %s", herr);
    int rc = 0;
    for (size_t k = 0; k < topomap_hostlist_count(hl) && !rc; k++) {
        const char *name = topomap_hostlist_get(hl, k);
        int v = topomap_topology_node_lookup(t, name);
        if (v < 0)
            rc = fail_at(c, hn, EINVAL, "node_types: node '%s' is not a node of the network",
                         name);
        else if (owner[v] == i)
            rc = fail_at(c, hn, EINVAL, "node_types: node '%s' is named twice in this hostlist",
                         name);
        else if (owner[v] >= 0)
            rc = fail_at(c, hn, EINVAL,
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
static int load_node_types(struct ctx *c, topomap_topology_t *t, yaml_node_t *list,
                           yaml_node_t *node)
{
    static const char *const keys[] = {"hostlist", "cores", "levels", "hwloc", "costs",
                                       "self_cost", NULL};
    if (list->type != YAML_SEQUENCE_NODE || seq_len(list) < 1)
        return fail_at(c, list, EINVAL, "'node_types' must be a non-empty list of node types");
    int nt = seq_len(list), rc = -1;
    if (nt + (node != NULL) > TOPOMAP_MAX_NODE_TYPES)
        return fail_at(c, list, EINVAL, "a topology may have at most %d node types",
                       TOPOMAP_MAX_NODE_TYPES);
    int *owner = malloc(sizeof(int) * (size_t)t->nnodes);
    struct topo_ntype *ty = calloc((size_t)nt, sizeof *ty);
    const yaml_node_t **hnodes = calloc((size_t)nt, sizeof *hnodes);
    if (!owner || !ty || !hnodes) {
        fail_at(c, list, ENOMEM, "out of memory");
        goto out;
    }
    for (int v = 0; v < t->nnodes; v++)
        owner[v] = -1;
    for (int i = 0; i < nt; i++) {
        yaml_node_t *e = seq_item(c, list, i), *hn;
        if (check_map(c, e, "a node_types entry", keys) < 0 ||
            !(hn = require(c, e, "hostlist", "a node_types entry")))
            goto out;
        hnodes[i] = hn;
        if (claim_nodes(c, t, hn, i, owner, hnodes) < 0 ||
            load_levels(c, t, e, "node_types entry", &ty[i]) < 0)
            goto out;
    }
    for (int v = 0; v < t->nnodes && !node; v++)
        if (owner[v] < 0) {
            fail_at(c, list, EINVAL,
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
        if (topo_types_add(t, &ty[i], scalar(hnodes[i]), berr, sizeof berr) < 0) {
            fail_at(c, hnodes[i], errno, "%s", berr); /* ENOMEM: checked above */
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

topomap_topology_t *topo_yaml_load(const char *path, const char *text, size_t len, char *err,
                                   size_t errlen)
{
    static const char *const top_keys[] = {"name", "description", "network", "nodes", "node",
                                           "node_types", NULL};
    yaml_parser_t parser;
    yaml_document_t doc;
    struct ctx c = {path, &doc, err, errlen};
    topomap_topology_t *t = NULL;

    if (topo_yaml_bounds(path, text, len, err, errlen) < 0)
        return NULL;
    if (!yaml_parser_initialize(&parser)) {
        topomap_fail(err, errlen, ENOMEM, "%s:1:1: out of memory", path);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        unsigned long line = parser.problem_mark.line + 1, col = parser.problem_mark.column + 1;
        if (parser.error == YAML_READER_ERROR)
            topo_yaml_mark(text, len, parser.problem_offset, &line, &col);
        if (parser.error == YAML_MEMORY_ERROR)
            topomap_fail(err, errlen, ENOMEM, "%s:%lu:%lu: out of memory", path,
                         (unsigned long)parser.mark.line + 1,
                         (unsigned long)parser.mark.column + 1);
        else
            topomap_fail(err, errlen, EINVAL, "%s:%lu:%lu: YAML syntax error: %s%s%s", path, line,
                         col, parser.problem ? parser.problem : "unknown problem",
                         parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return NULL;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || (root->type == YAML_SCALAR_NODE && !*scalar(root))) {
        topomap_fail(err, errlen, EINVAL,
                     "%s:1:1: empty topology description (expected a mapping with 'network')",
                     path);
        goto out;
    }
    if (root->type != YAML_MAPPING_NODE) {
        fail_at(&c, root, EINVAL, "a topology description must be a mapping with 'network', "
                                  "not %s", type_name(root));
        goto out;
    }
    /* One document per file: a second one is almost surely a mistake. */
    {
        yaml_document_t next;
        if (!yaml_parser_load(&parser, &next)) {
            unsigned long line = parser.problem_mark.line + 1;
            unsigned long col = parser.problem_mark.column + 1;
            if (parser.error == YAML_READER_ERROR)
                topo_yaml_mark(text, len, parser.problem_offset, &line, &col);
            topomap_fail(err, errlen, EINVAL, "%s:%lu:%lu: YAML syntax error: %s%s%s", path, line,
                         col, parser.problem ? parser.problem : "unknown problem",
                         parser.context ? " " : "", parser.context ? parser.context : "");
            goto out;
        }
        yaml_node_t *r2 = yaml_document_get_root_node(&next);
        if (r2) {
            fail_at(&c, r2, EINVAL, "only one YAML document is allowed per topology file");
            yaml_document_delete(&next);
            goto out;
        }
        yaml_document_delete(&next);
    }
    if (check_map(&c, root, "the topology", top_keys) < 0)
        goto out;
    yaml_node_t *v, *net = require(&c, root, "network", "the topology");
    if (!net)
        goto out;
    const char *name = NULL, *desc = NULL; /* description: for humans only */
    if ((v = get(&c, root, "name")) && get_str(&c, v, "name", &name) < 0)
        goto out;
    if ((v = get(&c, root, "description")) && get_str(&c, v, "description", &desc) < 0)
        goto out;
    double hop_cost, bandwidth;
    if (!(t = load_network(&c, root, net, &hop_cost, &bandwidth)))
        goto out;
    t->hop_cost = hop_cost;
    t->link_bandwidth = bandwidth;
    yaml_node_t *node = get(&c, root, "node"), *types = get(&c, root, "node_types");
    if ((node || !types) && load_node(&c, t, node) < 0)
        goto fail;
    if (types && load_node_types(&c, t, types, node) < 0)
        goto fail;
    if (name && !(t->name = strdup(name))) {
        fail_at(&c, get(&c, root, "name"), ENOMEM, "out of memory");
        goto fail;
    }
    goto out;
fail:
    topomap_topology_free(t);
    t = NULL;
out:
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return t;
}
