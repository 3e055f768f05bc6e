/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's topology.yaml (Slurm 25.05 and 26.05, topology.yaml(5)): a list
 * of named topologies, each with exactly one of
 *   tree:    {switches: [{switch: NAME, children: HOSTLIST, nodes: HOSTLIST}]}
 *   block:   {block_sizes: [4, 16], blocks: [{block: NAME, nodes: HOSTLIST}]}
 *   flat:    true, or (26.05) {alpha_step_rank: BOOL}
 *   ring:    {rings: [...]}          (26.05, topo_slurmyaml_torus.c)
 *   torus3d: {toruses: [...]}        (26.05, topo_slurmyaml_torus.c)
 * and an optional cluster_default (the first one with true is Slurm's
 * default; without any, the first topology). One topology is built: the one
 * named, else the default. Every entry's keys and types are checked; the
 * chosen one is checked in full by the builders of topology.conf's trees
 * (topo_slurmconf.c) and blocks (topo_slurmblock.c), with the same model,
 * or by the ring and torus3d reader. A flat topology lists no nodes (Slurm
 * takes them from slurm.conf): its nodes are those the file's other
 * topologies name, in file order, each once; a file that names none cannot
 * give a flat topology. (26.05's flat keys: slurm-26-05-3-1
 * src/plugins/data_parser/v0.0.45/parsers.c, TOPOLOGY_FLAT_CONFIG.) */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topo_yamldoc.h"
#include "topology_priv.h"

/* One entry of the list, checked. */
struct entry {
    const char *name;
    yaml_node_t *node, *tree, *block, *ring, *torus3d; /* the kind's value, or NULL */
    int is_default, flat;
};

static int line_of(const yaml_node_t *n)
{
    return (int)n->start_mark.line + 1;
}

static int col_of(const yaml_node_t *n)
{
    return (int)n->start_mark.column + 1;
}

/* 1 if root looks like a Slurm topology.yaml: a list whose first item is a
 * mapping (topomap's own YAML is a mapping). */
int topo_is_slurmyaml(yaml_document_t *doc, yaml_node_t *root)
{
    struct topo_yctx c = {"", doc, NULL, 0};
    return root && root->type == YAML_SEQUENCE_NODE && topo_y_len(root) > 0 &&
           topo_y_item(&c, root, 0)->type == YAML_MAPPING_NODE;
}

/* Check one item of the list into e. */
static int check_entry(struct topo_yctx *c, yaml_node_t *item, struct entry *e)
{
    static const char *const keys[] = {"topology", "cluster_default", "tree", "block", "flat",
                                       "ring", "torus3d", NULL};
    yaml_node_t *v, *flat;
    memset(e, 0, sizeof *e);
    e->node = item;
    if (topo_y_check_map(c, item, "a topology", keys) < 0)
        return -1;
    if (!(v = topo_y_require(c, item, "topology", "a topology")) ||
        topo_y_str(c, v, "topology", &e->name) < 0)
        return -1;
    yaml_node_t *k0 = topo_y_node(c, item->data.mapping.pairs.start->key);
    if (strcmp(topo_y_scalar(k0), "topology"))
        return topo_y_fail(c, k0, EINVAL, "'topology' must be the first key of a topology, not "
                           "'%s'", topo_y_scalar(k0));
    if ((v = topo_y_get(c, item, "cluster_default")) &&
        topo_y_bool(c, v, "cluster_default", &e->is_default) < 0)
        return -1;
    e->tree = topo_y_get(c, item, "tree");
    e->block = topo_y_get(c, item, "block");
    e->ring = topo_y_get(c, item, "ring");
    e->torus3d = topo_y_get(c, item, "torus3d");
    flat = topo_y_get(c, item, "flat");
    int kinds = !!e->tree + !!e->block + !!e->ring + !!e->torus3d + !!flat;
    if (kinds != 1)
        return topo_y_fail(c, item, EINVAL, "topology '%s': give exactly one of 'tree', 'block', "
                           "'ring', 'torus3d' or 'flat' (%d given)", e->name, kinds);
    if (flat && flat->type == YAML_MAPPING_NODE) {
        static const char *const flat_keys[] = {"alpha_step_rank", NULL};
        int alpha;
        yaml_node_t *a;
        if (topo_y_check_map(c, flat, "flat", flat_keys) < 0 ||
            ((a = topo_y_get(c, flat, "alpha_step_rank")) &&
             topo_y_bool(c, a, "alpha_step_rank", &alpha) < 0))
            return -1;
        e->flat = 1;
    } else if (flat) {
        if (topo_y_bool(c, flat, "flat", &e->flat) < 0)
            return -1;
        if (!e->flat)
            return topo_y_fail(c, flat, EINVAL, "topology '%s': 'flat' must be true (a network "
                               "that is not flat is a 'tree', 'block', 'ring' or 'torus3d')",
                               e->name);
    }
    static const char *const tree_keys[] = {"switches", NULL};
    static const char *const block_keys[] = {"block_sizes", "blocks", NULL};
    if (e->tree && topo_y_check_map(c, e->tree, "tree", tree_keys) < 0)
        return -1;
    if (e->block && topo_y_check_map(c, e->block, "block", block_keys) < 0)
        return -1;
    static const char *const ring_keys[] = {"rings", NULL};
    static const char *const torus3d_keys[] = {"toruses", NULL};
    if (e->ring && topo_y_check_map(c, e->ring, "ring", ring_keys) < 0)
        return -1;
    if (e->torus3d && topo_y_check_map(c, e->torus3d, "torus3d", torus3d_keys) < 0)
        return -1;
    return 0;
}

/* The list under key of map: a non-empty list of mappings with keys among
 * allowed, whose key `named` is required; what names an item. */
static yaml_node_t *item_list(struct topo_yctx *c, yaml_node_t *map, const char *key,
                              const char *what, const char *const *allowed)
{
    yaml_node_t *l = topo_y_require(c, map, key, key[0] == 's' ? "tree" : "block");
    if (!l)
        return NULL;
    if (l->type != YAML_SEQUENCE_NODE || topo_y_len(l) < 1) {
        topo_y_fail(c, l, EINVAL, "'%s' must be a non-empty list of %ss", key, what);
        return NULL;
    }
    for (int i = 0; i < topo_y_len(l); i++)
        if (topo_y_check_map(c, topo_y_item(c, l, i), what, allowed) < 0)
            return NULL;
    return l;
}

static topomap_topology_t *build_tree(struct topo_yctx *c, yaml_node_t *tree)
{
    static const char *const keys[] = {"switch", "children", "nodes", NULL};
    yaml_node_t *l = item_list(c, tree, "switches", "switch", keys), *v;
    if (!l)
        return NULL;
    int n = topo_y_len(l);
    struct topo_switch_def *sw = calloc((size_t)n, sizeof *sw);
    if (!sw) {
        topo_y_fail(c, l, ENOMEM, "out of memory");
        return NULL;
    }
    topomap_topology_t *t = NULL;
    for (int i = 0; i < n; i++) {
        yaml_node_t *it = topo_y_item(c, l, i);
        sw[i].line = line_of(it);
        sw[i].col = col_of(it);
        if (!(v = topo_y_require(c, it, "switch", "a switch")) ||
            topo_y_str(c, v, "switch", &sw[i].name) < 0)
            goto out;
        if ((v = topo_y_get(c, it, "children")) && topo_y_str(c, v, "children", &sw[i].switches) < 0)
            goto out;
        if ((v = topo_y_get(c, it, "nodes")) && topo_y_str(c, v, "nodes", &sw[i].nodes) < 0)
            goto out;
    }
    t = topo_switches_build(c->path, sw, n, c->err, c->errlen);
out:
    free(sw);
    return t;
}

static topomap_topology_t *build_block(struct topo_yctx *c, yaml_node_t *block)
{
    static const char *const keys[] = {"block", "nodes", NULL};
    struct topo_block_sizes bs = {0};
    yaml_node_t *v = topo_y_get(c, block, "block_sizes");
    if (v) {
        if (v->type != YAML_SEQUENCE_NODE || topo_y_len(v) < 1 ||
            topo_y_len(v) > TOPO_MAX_BLOCK_SIZES)
            return topo_y_fail(c, v, EINVAL, "'block_sizes' must be a list of 1..%d node counts",
                               TOPO_MAX_BLOCK_SIZES), NULL;
        for (int k = 0; k < topo_y_len(v); k++) {
            yaml_node_t *it = topo_y_item(c, v, k);
            int size;
            if (topo_y_int(c, it, "block_sizes", 1, TOPO_MAX_NODES, &size) < 0)
                return NULL;
            bs.size[k] = size;
            bs.line[k] = line_of(it);
            bs.col[k] = col_of(it);
        }
        bs.n = topo_y_len(v);
    }
    yaml_node_t *l = item_list(c, block, "blocks", "block", keys);
    if (!l)
        return NULL;
    int n = topo_y_len(l);
    struct topo_block_def *b = calloc((size_t)n, sizeof *b);
    if (!b)
        return topo_y_fail(c, l, ENOMEM, "out of memory"), NULL;
    topomap_topology_t *t = NULL;
    for (int i = 0; i < n; i++) {
        yaml_node_t *it = topo_y_item(c, l, i);
        b[i].line = line_of(it);
        b[i].col = col_of(it);
        if (!(v = topo_y_require(c, it, "block", "a block")) ||
            topo_y_str(c, v, "block", &b[i].name) < 0 ||
            !(v = topo_y_require(c, it, "nodes", "a block")) ||
            topo_y_str(c, v, "nodes", &b[i].nodes) < 0)
            goto out;
    }
    t = topo_block_build(c->path, 1, b, n, &bs, c->err, c->errlen);
out:
    free(b);
    return t;
}

/* Push the names of hostlist expression v (a scalar) not seen yet. */
static int add_names(struct topo_yctx *c, yaml_node_t *v, topomap_hostlist_t *all)
{
    char herr[TOPOMAP_ERRLEN];
    if (v->type != YAML_SCALAR_NODE)
        return topo_y_fail(c, v, EINVAL, "'nodes' must be a hostlist expression, not %s",
                           topo_y_type(v));
    topomap_hostlist_t *hl = topomap_hostlist_parse(topo_y_scalar(v), herr, sizeof herr);
    if (!hl)
        return topo_y_fail(c, v, errno, "nodes: %s", herr);
    int rc = 0;
    for (size_t k = 0; !rc && k < topomap_hostlist_count(hl); k++) {
        const char *nm = topomap_hostlist_get(hl, k);
        if (topomap_hostlist_count(all) >= TOPO_MAX_NODES)
            rc = topo_y_fail(c, v, EINVAL, "more than %d nodes", TOPO_MAX_NODES);
        else if (topo_hostlist_push(all, nm, strlen(nm)) < 0)
            rc = topo_y_fail(c, v, ENOMEM, "out of memory");
    }
    topomap_hostlist_free(hl);
    return rc;
}

/* Push the names of the 'nodes' of each item of list l (if a list), and
 * with sub, of each item of the list under key sub of each item (a torus's
 * regions). */
static int list_names(struct topo_yctx *c, yaml_node_t *l, const char *sub,
                      topomap_hostlist_t *all)
{
    int rc = 0;
    yaml_node_t *v;
    for (int k = 0; !rc && l && l->type == YAML_SEQUENCE_NODE && k < topo_y_len(l); k++) {
        yaml_node_t *it = topo_y_item(c, l, k);
        if (it->type != YAML_MAPPING_NODE)
            continue;
        if ((v = topo_y_get(c, it, "nodes")))
            rc = add_names(c, v, all);
        if (!rc && sub)
            rc = list_names(c, topo_y_get(c, it, sub), NULL, all);
    }
    return rc;
}

/* A flat topology over the nodes the other entries name, each once. */
static topomap_topology_t *build_flat(struct topo_yctx *c, const struct entry *e, int n,
                                      const struct entry *flat)
{
    topomap_hostlist_t *all = topo_hostlist_new(), *once = NULL;
    int rc = all ? 0 : topo_y_fail(c, flat->node, ENOMEM, "out of memory");
    for (int i = 0; !rc && i < n; i++) {
        if (e[i].tree)
            rc = list_names(c, topo_y_get(c, e[i].tree, "switches"), NULL, all);
        else if (e[i].block)
            rc = list_names(c, topo_y_get(c, e[i].block, "blocks"), NULL, all);
        else if (e[i].ring)
            rc = list_names(c, topo_y_get(c, e[i].ring, "rings"), NULL, all);
        else if (e[i].torus3d)
            rc = list_names(c, topo_y_get(c, e[i].torus3d, "toruses"), "regions", all);
    }
    if (!rc && topomap_hostlist_count(all) == 0)
        rc = topo_y_fail(c, flat->node, EINVAL, "topology '%s' is flat and no other topology of "
                         "the file names nodes (Slurm takes them from slurm.conf): describe the "
                         "nodes in a tree, block, ring or torus3d topology", flat->name);
    /* A node is in several topologies: keep its first place. */
    if (!rc && (topo_hostlist_seal(all) < 0 || !(once = topo_names_unique(all))))
        rc = topo_y_fail(c, flat->node, ENOMEM, "out of memory");
    topomap_hostlist_free(all);
    if (rc)
        return NULL;
    char berr[TOPOMAP_ERRLEN];
    topomap_topology_t *t = topo_flat_build(once, berr, sizeof berr);
    if (!t)
        topo_y_fail(c, flat->node, errno, "%s", berr);
    return t;
}

/* Distinct topology names. */
static int check_names(struct topo_yctx *c, const struct entry *e, int n)
{
    int a, b, rc = topo_fields_repeat(e, sizeof *e, offsetof(struct entry, name), n, &a, &b);
    if (rc < 0)
        return topo_y_fail(c, e[0].node, ENOMEM, "out of memory");
    if (rc > 0)
        return topo_y_fail(c, e[b].node, EINVAL, "topology '%s' is already defined at line %d",
                           e[b].name, line_of(e[a].node));
    return 0;
}

/* The entry called name, or the default; -1 with err. */
static int choose(struct topo_yctx *c, yaml_node_t *root, const struct entry *e, int n,
                  const char *name)
{
    if (!name) {
        for (int i = 0; i < n; i++)
            if (e[i].is_default)
                return i;
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (!strcmp(e[i].name, name))
            return i;
    char list[256] = "";
    for (int i = 0; i < n; i++) {
        size_t l = strlen(list);
        if (l + strlen(e[i].name) + 8 >= sizeof list) {
            snprintf(list + l, sizeof list - l, "%s...", i ? ", " : "");
            break;
        }
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", e[i].name);
    }
    return topo_y_fail(c, root, EINVAL, "no topology named '%s' (the file has: %s)", name, list);
}

topomap_topology_t *topo_slurmyaml_load(struct topo_yctx *c, yaml_node_t *root, const char *name)
{
    int n = topo_y_len(root);
    struct entry *e = calloc((size_t)n, sizeof *e);
    topomap_topology_t *t = NULL;
    if (!e) {
        topo_y_fail(c, root, ENOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (check_entry(c, topo_y_item(c, root, i), &e[i]) < 0)
            goto out;
    if (check_names(c, e, n) < 0)
        goto out;
    int k = choose(c, root, e, n, name);
    if (k < 0)
        goto out;
    if (e[k].tree)
        t = build_tree(c, e[k].tree);
    else if (e[k].block)
        t = build_block(c, e[k].block);
    else if (e[k].ring)
        t = topo_slurmyaml_ring(c, e[k].ring);
    else if (e[k].torus3d)
        t = topo_slurmyaml_torus3d(c, e[k].torus3d);
    else
        t = build_flat(c, e, n, &e[k]);
    if (t && !(t->name = strdup(e[k].name))) {
        topo_y_fail(c, e[k].node, ENOMEM, "out of memory");
        topomap_topology_free(t);
        t = NULL;
    }
out:
    free(e);
    return t;
}
