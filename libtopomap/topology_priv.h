/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the topology model (topology.c, topo_*.c): never
 * installed. A topology is a generic part (node names, the inside of a node,
 * hop_cost) plus one network kind, described by a class of function pointers
 * (struct topo_ops), the way Scotch's arch.c describes target architectures. */
#ifndef TOPOMAP_TOPOLOGY_PRIV_H
#define TOPOMAP_TOPOLOGY_PRIV_H

#include <stdint.h>
#include <stdio.h>

#include "hostlist.h"
#include "topomap.h"

/* Bounds that keep every product in an int and reject typos early. */
#define TOPO_MAX_NODES TOPOMAP_MAX_NODES
#define TOPO_MAX_CORES (1 << 20)
#define TOPO_MAX_LEVELS 16 /* node levels and tree levels */
#define TOPO_MAX_DIMS 16   /* torus/mesh dimensions */
#define TOPO_NAME_LEN 24   /* node level names, NUL included */

/* One network kind. */
struct topo_ops {
    /* Hops between nodes a != b, both in range (checked by the caller). */
    int (*hops)(const topomap_topology_t *t, int a, int b);
    /* Largest hop count; computed once at build time. */
    int (*diameter)(const topomap_topology_t *t);
    /* See topomap_topology_coords(); node is in range. */
    int (*coords)(const topomap_topology_t *t, int node, int *coords, int maxdims);
    /* Print the "network:" line(s) of topomap_topology_describe(). */
    int (*describe)(const topomap_topology_t *t, FILE *f);
    /* Free the kind's data (may be NULL). */
    void (*destroy)(topomap_topology_t *t);
    /* Channels (libtopomap/congestion.c): one direction of a cable between two
     * network elements. Elements are the nodes 0 .. nnodes-1, then the
     * kind's switches from nnodes on. Channel numbers are the kind's own
     * (int64, not dense). Called once at build time: the number of switches
     * and the longest route in channels. */
    void (*channels)(const topomap_topology_t *t, int *nswitches, int *route_max);
    /* Write the channels of the deterministic minimal route from node a to
     * node b (a != b, both in range) into chan in path order; returns their
     * count (<= route_max). */
    int (*route)(const topomap_topology_t *t, int a, int b, int64_t *chan);
    /* The elements channel c (from route()) leaves and enters. */
    void (*channel_ends)(const topomap_topology_t *t, int64_t c, int *from, int *to);
    /* Optional (NULL: every channel is TOPOMAP_LINK_LOCAL): the class of
     * channel c, so that congestion can be reported per class of link. */
    int (*channel_class)(const topomap_topology_t *t, int64_t c);
    /* Optional (NULL: t->link_bandwidth for every channel): bytes per
     * second of channel c, 0 when unknown; congestion in seconds divides
     * each channel's load by its own bandwidth. */
    double (*channel_bandwidth)(const topomap_topology_t *t, int64_t c);
    /* Optional (NULL: route() with weight 1): the routes of the kind's
     * spread (non-minimal, adaptive) routing model from a to b, as channels
     * chan[i] each carrying the share w[i] of the bytes (a channel may
     * appear several times); returns the count (<= route_max). Used by
     * congestion when t->spread is set. */
    int (*spread)(const topomap_topology_t *t, int a, int b, int64_t *chan, double *w);
    /* Optional (NULL: 0): the number of leading coordinates (coords()) that
     * are nested groups of nodes, outermost first (a tree's switches, a
     * dragonfly's group and switch), for algorithms that split by level. */
    int (*group_levels)(const topomap_topology_t *t);
    /* What the network looks like (TOPOMAP_SHAPE_*), for the algorithms and
     * pictures that follow its structure, not only its hops. */
    int shape;
    /* 1 when the nodes are the routers although the kind has switches (the
     * holes and the virtual switch of topo_pods.c): no node has a leaf
     * switch (the traffic split of metrics_levels.c). */
    int node_routers;
    /* 1 when hops are the lengths of shortest routes, so that they obey the
     * triangle inequality (the refinement prunes groups on it). */
    int shortest_hops;
};

struct topo_torus {
    int ndims;
    int dims[TOPO_MAX_DIMS];
    int wrap[TOPO_MAX_DIMS];
    int *coord; /* nnodes * ndims, precomputed so hops() does no division */
};

/* Rings or 3-D tori side by side, with holes (topo_pods.c). */
struct topo_pods {
    int npods, ndims;  /* ndims: 1 (rings) or 3 (tori), the same for all pods */
    int *dims;         /* npods x 3, 1 past ndims */
    int *cell0;        /* npods + 1: the first global cell of each pod */
    int *cell_elem;    /* cells: the node there, or nnodes + hole number */
    int *node_cell;    /* nnodes: its global cell */
    int *node_pod;     /* nnodes */
    int nholes;
    int inter;         /* hops between nodes of two pods */
    char **name;       /* npods */
};

struct topo_tianhe3 {
    int rows, cols, npc, half; /* npc nodes per chip, half = npc / 2 */
};

/* A regular tree: every switch of level k has arity[k] children. */
struct topo_tree {
    int nlevels;
    /* bandwidth[k]: bytes per second of a cable between a level-k switch and
     * one of its children, 0 = the topology's link_bandwidth (tapering). */
    double bandwidth[TOPO_MAX_LEVELS];
    int arity[TOPO_MAX_LEVELS];
    int hops[TOPO_MAX_LEVELS];  /* hops[k]: lowest common switch at level k */
    int below[TOPO_MAX_LEVELS]; /* nodes under one child of a level-k switch */
    int first[TOPO_MAX_LEVELS]; /* element number of the first level-k switch */
};

/* What an irregular tree was read from, for describe(). */
enum topo_itree_from { TOPO_FROM_TREE, TOPO_FROM_BLOCK, TOPO_FROM_FLAT };

/* An irregular tree (Slurm topology.conf): switches with parents. */
struct topo_itree {
    int nsw;
    char **swname;  /* nsw names ("(root)" for a virtual root) */
    int *parent;    /* nsw, -1 for the root */
    int *depth;     /* nsw, root 0 */
    int *leaf;      /* nnodes: the switch a node hangs from */
    int *port;      /* nnodes: position of the node in its switch's Nodes= list */
    int maxdepth;   /* deepest node (a node is one below its switch) */
    int diameter;   /* computed by topo_itree_prepare() */
    int virtual_root; /* 1 when several top switches were joined */
    enum topo_itree_from from;
    /* TOPO_FROM_BLOCK: the blocks (switches 0 .. nblocks-1) and the block
     * size of each switch level above them, the base size first. */
    int nblocks, nbsizes, sizes_given;
    long bsize[TOPO_MAX_LEVELS];
};

/* The GPUs of a node type (topo_gpu.c). With GPUs, the node's slots are
 * its GPUs (struct topo_ntype cores = ngpu) and the CPU cores are only the
 * cores near each GPU, for binding. */
struct topo_gpu {
    char *cpus;  /* cores near it, a CPU list of node core numbers ("0-19") */
    int numa;    /* its NUMA domain, -1 when not given */
    char *nic;   /* the NIC near it, as the MPI library names it, or NULL */
};
struct topo_gpus {
    int ngpu;
    int cpu_cores;       /* CPU cores of the node (the cpus lists are below it) */
    int vendor;          /* TOPOMAP_GPU_NVIDIA, _AMD, _INTEL */
    struct topo_gpu *gpu;
    double *links;       /* ngpu x ngpu, links (or bandwidth) per pair; NULL: none given */
    double link_cost, host_cost;
    double *cost;        /* ngpu x ngpu pair costs, NULL without links (GPU-unaware) */
};

/* How the global links of a dragonfly are laid out (topo_dragonfly.c). */
enum topo_df_arrangement { TOPO_DF_ABSOLUTE, TOPO_DF_RELATIVE, TOPO_DF_CIRCULANT, TOPO_DF_EXPLICIT };

/* The parameters of a dragonfly, as given. */
struct topo_df_params {
    int groups, switches, nodes, globals; /* globals: global links per switch */
    enum topo_df_arrangement arrangement;
    int nlinks;        /* TOPO_DF_EXPLICIT: the links, 4 ints each: */
    const int *links;  /* group, switch, group, switch (switch within its group) */
    double bw_node, bw_local, bw_global; /* 0: the topology's link_bandwidth */
};

/* A dragonfly: groups of switches, all-to-all inside a group, groups joined
 * by global links. Switch s (0 .. groups x switches - 1) is switch
 * s % switches of group s / switches; global port q of s is s x globals + k. */
struct topo_dragonfly {
    struct topo_df_params p;  /* links not kept (NULL) */
    int nsw;
    int *peer;      /* nsw x globals: the port at the other end, -1 unused */
    int *reach;     /* nsw x groups: the first port of s to group g, -1 none */
    int *pair_first;/* groups^2 + 1: CSR of the ports from group i to j */
    int *pair_port;
    int min_links, max_links; /* links between two groups, over the pairs */
};

/* One node type: the inside of a node, nlevels levels, outermost first
 * (topo_nodetypes.c). */
struct topo_ntype {
    int cores;
    int nlevels;
    int arity[TOPO_MAX_LEVELS];
    int inner[TOPO_MAX_LEVELS]; /* cores per object of level k */
    double cost[TOPO_MAX_LEVELS + 1];
    char level_name[TOPO_MAX_LEVELS][TOPO_NAME_LEN];
    char *node_source;          /* where the levels came from ("hwloc XML FILE") or NULL */
    struct topo_gpus *gpus;     /* NULL: a node of cores only */
};

/* A GPU fabric (topo_fabric.c): rails and multi-node NVLink domains. */
enum topo_domains_from { TOPO_DOM_NONE, TOPO_DOM_NODE, TOPO_DOM_BLOCKS, TOPO_DOM_SIZE,
                         TOPO_DOM_LIST };
struct topo_fabric {
    int rails;                 /* 0: no rails */
    double nic_bw, nvlink_bw, spine_bw; /* bytes per second, 0 = not given */
    int ndomains;              /* 0: none */
    int *domain;               /* nnodes: a node's domain, -1 none; NULL when ndomains 0 */
    enum topo_domains_from from;
};

struct topomap_topology {
    const struct topo_ops *ops;
    const char *kind;          /* "torus", "mesh", "tianhe3", "fat-tree", "dragonfly" */
    int nnodes;
    topomap_hostlist_t *names; /* nnodes names, index order */
    int *hash;                 /* open addressing, -1 = empty */
    size_t hmask;              /* table size - 1 (a power of two) */
    double hop_cost;           /* SumCom cost of one network hop */
    double link_bandwidth;     /* bytes per second of a channel, 0 = not given */
    int diameter;
    int nswitches;             /* network elements beyond the nodes */
    int route_max;             /* longest route, in channels (spread included) */
    int spread;                /* 1: congestion uses ops->spread (the YAML routing key) */
    /* The inside of the nodes: ntypes node types, node v of type
     * node_type[v] (node_type NULL while there is one type: every node is
     * of type 0). cores: the most cores of a node of any type. */
    int ntypes;
    struct topo_ntype *types;
    int *node_type;
    int cores;
    struct topo_fabric *fabric; /* the YAML gpu_fabric key, or NULL */
    char *name;                /* from the YAML "name" key, or NULL */
    char *source;              /* file it was loaded from, or NULL */
    union {
        struct topo_torus torus;
        struct topo_tianhe3 th3;
        struct topo_tree tree;
        struct topo_itree itree;
        struct topo_dragonfly df;
        struct topo_pods pods;
    } u;
};

/* topology.c */
/* A new topology of nnodes nodes of kind ops with one core per node; names
 * from names (taken over, freed on failure too) or "node[0-N]" when NULL.
 * The kind's data (t->u) is filled by the caller, which then calls
 * topo_finish(). NULL with err on failure. */
topomap_topology_t *topo_new(const struct topo_ops *ops, const char *kind, int nnodes,
                             topomap_hostlist_t *names, char *err, size_t errlen);
/* Flat node of cores cores (default costs), diameter; on failure frees t. */
topomap_topology_t *topo_finish(topomap_topology_t *t, int cores, char *err, size_t errlen);

/* topo_nodetypes.c: node types. */
/* The type of node v (in range): O(1). */
static inline const struct topo_ntype *topo_type_of(const topomap_topology_t *t, int v)
{
    return &t->types[t->node_type ? t->node_type[v] : 0];
}
/* Fill ty with levels; names may be NULL (generic names), cost may be NULL
 * (defaults: hop_cost of t / 2^(k+1) for level k, 0 for a core and
 * itself). ty->node_source is left as it is. */
int topo_type_levels(const topomap_topology_t *t, struct topo_ntype *ty, int nlevels,
                     const int *arity, const double *cost, const char *const *names, char *err,
                     size_t errlen);
/* Make ty (taken over: its string too) the one type of every node. */
void topo_types_reset(topomap_topology_t *t, struct topo_ntype *ty);
/* Add ty (taken over, also on failure) as a new type of the nodes of the
 * hostlist expression hostlist; every node named must exist, be named once
 * and still be of type 0. The new type's number, or -1 with err. */
int topo_types_add(topomap_topology_t *t, struct topo_ntype *ty, const char *hostlist,
                   char *err, size_t errlen);
/* Free the strings of ty. */
void topo_type_clear(struct topo_ntype *ty);
/* Free every type (topomap_topology_free). */
void topo_types_free(topomap_topology_t *t);
/* Print the node lines of topomap_topology_describe(). */
void topo_types_describe(const topomap_topology_t *t, FILE *f);
/* Set every node to the levels given (one type); see topo_type_levels. */
int topo_set_levels(topomap_topology_t *t, int nlevels, const int *arity, const double *cost,
                    const char *const *names, char *err, size_t errlen);
/* The first name of the sealed list names that repeats an earlier one: 1
 * with their indices (*second the smallest such), 0 if all differ, -1 with
 * errno ENOMEM. */
int topo_names_repeat(const topomap_hostlist_t *names, int *first, int *second);
/* The same, adding to *probes the table slots visited: the work a load of
 * these names does in the name table (tests of the keyed hash). */
int topo_names_repeat_probes(const topomap_hostlist_t *names, int *first, int *second,
                             size_t *probes);
/* The same for the strings of n items of size bytes, each a char pointer at
 * offset (a field of an array of structs, by offsetof). */
int topo_fields_repeat(const void *items, size_t size, size_t offset, int n, int *first,
                       int *second);
/* The names of the sealed list names, each once, in order of first
 * appearance (a new sealed list, caller frees), or NULL with errno ENOMEM. */
topomap_hostlist_t *topo_names_unique(const topomap_hostlist_t *names);
/* Default cost of level k of a node (see topologies/README.md). */
double topo_default_cost(const topomap_topology_t *t, int k);

/* Builders taking a parsed hostlist (owned, may be NULL), used by the loaders. */
topomap_topology_t *topo_torus_build(int ndims, const int *dims, const int *wrap, int cores,
                                     topomap_hostlist_t *names, char *err, size_t errlen);
topomap_topology_t *topo_tianhe3_build(int rows, int cols, int npc, int cores,
                                       topomap_hostlist_t *names, char *err, size_t errlen);
topomap_topology_t *topo_tree_build(int nlevels, const int *arity, const int *hops, int cores,
                                    topomap_hostlist_t *names, char *err, size_t errlen);
/* Node count of the networks above, or -1 with err (bad parameters). */
int topo_torus_count(int ndims, const int *dims, const int *wrap, char *err, size_t errlen);
int topo_tianhe3_count(int rows, int cols, int npc, char *err, size_t errlen);
int topo_tree_count(int nlevels, const int *arity, const int *hops, char *err, size_t errlen);

/* topo_pods.c: npods rings (ndims 1) or 3-D tori (ndims 3), all of one
 * ndims, every dimension wrapped; node v (of names, taken over) sits in pod
 * node_pod[v] at cell node_cell[v] (x + dx (y + dy z) inside its pod); the
 * cells no node holds are holes. One core per node; NULL with err. */
struct topo_pod_def {
    const char *name;
    int ndims, dims[3];
};
topomap_topology_t *topo_pods_build(const struct topo_pod_def *pods, int npods, const int *node_pod,
                                    const int *node_cell, topomap_hostlist_t *names, char *err,
                                    size_t errlen);

/* Slurm's rings (26.05 topology/ring: topology.yaml's rings, topology.conf's
 * RingName= lines), each a name and its nodes in ring order (at most 16),
 * defined at line (col 0: topology.conf) of path: one ring is a 1-D torus,
 * several are pods. NULL with "PATH:LINE[:COL]: problem" in err; yaml picks
 * the key names of messages. */
struct topo_block_def;
topomap_topology_t *topo_rings_build(const char *path, int yaml, const struct topo_block_def *r,
                                     int n, char *err, size_t errlen);

/* Node count of a dragonfly, or -1 with err (bad parameters). */
int topo_dragonfly_count(const struct topo_df_params *p, char *err, size_t errlen);
/* A dragonfly; on failure err says what is wrong with the parameters or
 * which explicit link (by its index) is. */
topomap_topology_t *topo_dragonfly_build(const struct topo_df_params *p, int cores,
                                         topomap_hostlist_t *names, char *err, size_t errlen);
/* The names of the arrangements, indexed by enum topo_df_arrangement. */
extern const char *const topo_df_arrangement_names[];

/* topo_tree.c: the irregular tree kind. Fill t->u.itree (arrays owned by
 * t), call topo_itree_prepare() (depth of nodes, diameter), then topo_finish(). */
extern const struct topo_ops topo_itree_ops;
int topo_itree_prepare(topomap_topology_t *t, char *err, size_t errlen);

/* topo_slurmconf.c */
/* 1 if text looks like a Slurm topology.conf (a SwitchName= line). */
int topo_is_slurmconf(const char *text);
/* Parse a topology.conf held in text (path for messages); one core per node. */
topomap_topology_t *topo_slurmconf_parse(const char *path, const char *text, char *err,
                                         size_t errlen);

/* "PATH:LINE" (col 0, a topology.conf) or "PATH:LINE:COL" (YAML) into buf. */
const char *topo_where(char *buf, size_t len, const char *path, int line, int col);

/* A tree of switches from a Slurm topology.yaml (the tree of a topology.conf
 * from its lines): names and hostlists, where each switch is defined. */
struct topo_switch_def {
    const char *name, *nodes, *switches; /* nodes, switches: NULL when absent */
    int line, col;
};
topomap_topology_t *topo_switches_build(const char *path, const struct topo_switch_def *sw, int nsw,
                                        char *err, size_t errlen);

/* topo_slurmblock.c: Slurm's topology/block and topology/flat as irregular
 * trees (the model is described there). */
struct topo_block_def {
    const char *name;  /* BlockName= / block: */
    const char *nodes; /* its hostlist expression */
    int line, col;     /* where it is defined, 1-based; col 0 for topology.conf */
};
struct topo_block_sizes {
    int n;                           /* 0: not given */
    long size[TOPO_MAX_LEVELS];      /* the base block size first */
    int line[TOPO_MAX_LEVELS], col[TOPO_MAX_LEVELS]; /* where each is; col 0 as above */
};
/* A topology of nblocks blocks (file order) with one core per node, or NULL
 * with "PATH:LINE[:COL]: problem" in err; yaml picks the key names of the
 * messages (block_sizes, nodes rather than BlockSizes=, Nodes=). */
topomap_topology_t *topo_block_build(const char *path, int yaml, const struct topo_block_def *blocks,
                                     int nblocks, const struct topo_block_sizes *sizes, char *err,
                                     size_t errlen);
/* One switch over all the nodes of names (taken over); one core per node. */
topomap_topology_t *topo_flat_build(topomap_hostlist_t *names, char *err, size_t errlen);
/* The largest number of BlockSizes (the levels of switches stay within
 * TOPO_MAX_LEVELS with the blocks and a root). */
#define TOPO_MAX_BLOCK_SIZES (TOPO_MAX_LEVELS - 1)

/* topo_yaml.c */
/* Parse the YAML description held in text (len bytes; path for messages and
 * for files it names, relative to its directory): topomap's schema, or a
 * Slurm topology.yaml (topo_slurmyaml.c) of which the topology called name
 * is built (NULL: Slurm's default). A name with topomap's schema is an error. */
topomap_topology_t *topo_yaml_load(const char *path, const char *text, size_t len,
                                   const char *name, char *err, size_t errlen);

/* topo_fabric.c: free t->fabric; print its lines of describe(). */
void topo_fabric_free(struct topo_fabric *f);
void topo_fabric_describe(const topomap_topology_t *t, FILE *f);

/* topo_hwloc.c: topomap_topology_set_node_hwloc(); levels are named
 * "package", "numa", "core" and get the default costs. The same into a node
 * type (topo_type_levels, node_source set): */
int topo_hwloc_type(const topomap_topology_t *t, const char *xml_path, struct topo_ntype *ty,
                    char *err, size_t errlen);

/* topo_gpu.c: GPU nodes. */
/* Free g (NULL is fine). */
void topo_gpus_free(struct topo_gpus *g);
/* Turn ty (its CPU levels filled) into a GPU node type of the GPUs g (taken
 * over, freed on failure too): checks the CPU lists against ty's cores,
 * computes the pair costs, sets the slot levels (one per NUMA domain when
 * the GPUs split evenly over them, then the GPUs). 0, or -1 with err. */
int topo_gpus_attach(const topomap_topology_t *t, struct topo_ntype *ty, struct topo_gpus *g,
                     char *err, size_t errlen);
/* Pair cost of GPUs a and b of a type with links (a != b). */
static inline double topo_gpu_cost(const struct topo_gpus *g, int a, int b)
{
    return g->cost[(size_t)a * (size_t)g->ngpu + (size_t)b];
}
/* The largest core of a CPU list ("0-9,20-29"), or -1 when it is not one. */
long topo_cpulist_max(const char *s);
/* Print the GPU lines of describe(). */
void topo_gpus_describe(const struct topo_gpus *g, const char *indent, FILE *f);
/* topo_hwloc_gpu.c: the GPUs and NICs of an hwloc XML file, with their
 * cores, NUMA domain, nearest NIC and the NVLink/XGMI matrix hwloc reports.
 * A new struct (caller frees with topo_gpus_free) or NULL with err. */
struct topo_gpus *topo_hwloc_gpus(const char *xml_path, char *err, size_t errlen);

#endif
