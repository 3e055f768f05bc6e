/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the YAML readers of machine descriptions (topo_yaml.c for
 * topomap's own schema, topo_slurmyaml.c for Slurm's topology.yaml): a
 * libyaml document loaded within bounds, and strict accessors whose every
 * error names FILE:LINE:COL of the offending key or value. Never installed. */
#ifndef TOPOMAP_TOPO_YAMLDOC_H
#define TOPOMAP_TOPO_YAMLDOC_H

#include <stddef.h>

#include <yaml.h>

/* One loaded document and where its errors go. */
struct topo_yctx {
    const char *path;
    yaml_document_t *doc;
    char *err;
    size_t errlen;
};

/* Load the one document of text (len bytes; path for messages) into *doc
 * (caller deletes it with yaml_document_delete). Checks the nesting and
 * node bounds (TOPOMAP_MAX_YAML_DEPTH, TOPOMAP_MAX_YAML_NODES) before
 * building it, and that no second document follows. The root may be NULL
 * (an empty file). 0, or -1 with errno and err (nothing to delete). */
int topo_y_load(const char *path, const char *text, size_t len, yaml_document_t *doc, char *err,
                size_t errlen);

/* "FILE:LINE:COL: message" at node n (1:1 when n is NULL); returns -1. */
int topo_y_fail(struct topo_yctx *c, const yaml_node_t *n, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
yaml_node_t *topo_y_node(struct topo_yctx *c, int id);
/* The text of a scalar node. */
const char *topo_y_scalar(const yaml_node_t *n);
/* "a mapping", "a list", "a plain scalar" or "a string", for messages. */
const char *topo_y_type(const yaml_node_t *n);
/* map is a mapping whose keys are distinct scalars among allowed (a
 * NULL-terminated list); what names the map in messages. 0 or -1. */
int topo_y_check_map(struct topo_yctx *c, yaml_node_t *map, const char *what,
                     const char *const *allowed);
/* The value of key in a checked mapping, or NULL. */
yaml_node_t *topo_y_get(struct topo_yctx *c, yaml_node_t *map, const char *key);
/* The same, failing with "missing required key" when absent. */
yaml_node_t *topo_y_require(struct topo_yctx *c, yaml_node_t *map, const char *key,
                            const char *what);
/* Typed scalars (key names the value in messages); 0 or -1. */
int topo_y_int(struct topo_yctx *c, yaml_node_t *n, const char *key, long min, long max,
               int *out);
/* A number in [min, max] (min excluded when min_open). */
int topo_y_double(struct topo_yctx *c, yaml_node_t *n, const char *key, double min, int min_open,
                  double max, double *out);
int topo_y_bool(struct topo_yctx *c, yaml_node_t *n, const char *key, int *out);
/* A non-empty scalar; *out points into the document. */
int topo_y_str(struct topo_yctx *c, yaml_node_t *n, const char *key, const char **out);
/* Items of a sequence node. */
int topo_y_len(const yaml_node_t *n);
yaml_node_t *topo_y_item(struct topo_yctx *c, const yaml_node_t *n, int i);

/* topo_gpu_yaml.c: the gpus: value n of a node description into ty (its
 * CPU levels filled); xml is the node's hwloc file or NULL. 0 or -1. */
struct topomap_topology;
struct topo_ntype;
int topo_y_gpus(struct topo_yctx *c, const struct topomap_topology *t, yaml_node_t *n,
                const char *xml, struct topo_ntype *ty);

/* The top-level 'nodes' key (a hostlist expression or a list of them)
 * checked to name exactly count hosts for a network of kind (*names NULL on
 * failure; caller frees). */
int topo_y_names(struct topo_yctx *c, yaml_node_t *nodes_node, int count, const char *kind,
                 struct topomap_hostlist **names);

/* topo_fabric.c: the gpu_fabric key (rails, NVLink domains) of t. 0 or -1. */
int topo_y_fabric(struct topo_yctx *c, struct topomap_topology *t, yaml_node_t *n);

/* topo_yaml_dragonfly.c: the network section of kind dragonfly. */
extern const char *const topo_y_dragonfly_keys[];
struct topomap_topology *topo_y_dragonfly(struct topo_yctx *c, yaml_node_t *net,
                                          yaml_node_t *nodes_node, const char *kind);

/* topo_slurmyaml.c: Slurm's topology.yaml. */
/* 1 if root (of doc) is a list whose first item is a mapping. */
int topo_is_slurmyaml(yaml_document_t *doc, yaml_node_t *root);
/* Build the topology called name of the list root (NULL: the first with
 * cluster_default: true, else the first); NULL with c's err. */
struct topomap_topology;
struct topomap_topology *topo_slurmyaml_load(struct topo_yctx *c, yaml_node_t *root,
                                             const char *name);
/* topo_slurmyaml_torus.c: the value of a topology's ring: or torus3d: key
 * (Slurm 26.05) as a topology; NULL with c's err. */
struct topomap_topology *topo_slurmyaml_ring(struct topo_yctx *c, yaml_node_t *ring);
struct topomap_topology *topo_slurmyaml_torus3d(struct topo_yctx *c, yaml_node_t *torus3d);

#endif
