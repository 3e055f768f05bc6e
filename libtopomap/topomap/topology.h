/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/topology.h
 * @brief libtopomap: Topologies.
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_TOPOLOGY_H
#define TOPOMAP_API_TOPOLOGY_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/topology.h>"
#endif

/**
 * A machine: a network of nodes (hostnames) and the inside of its nodes.
 * Nodes may be of several types (node types: a partition of 128-core CPU
 * nodes beside one of GPU nodes with two sockets of 24 cores): each type has
 * its own levels, cores and costs, and every node has exactly one type.
 * Type 0 is the default that every topology starts with; the YAML key
 * node_types and topomap_topology_set_node_levels_for() add others.
 */
typedef struct topomap_topology topomap_topology_t;

/**
 * Load a topology from @p path: a site YAML description (see
 * topologies/README.md), a Slurm topology.conf (topology/tree's SwitchName=
 * lines or topology/block's BlockName= lines), or a Slurm topology.yaml (a
 * list of named tree, block and flat topologies, Slurm 25.05; its default
 * one is read: the first with cluster_default: true, else the first). Slurm's
 * descriptions give every node one core unless @p path is YAML naming them.
 * Errors: errno EINVAL with "FILE:LINE:COL: problem" in @p err for YAML,
 * "FILE:LINE: problem" for topology.conf (unknown keys, wrong types,
 * inconsistent sizes, nodes twice), or the errno of the failed open.
 * @return a new topology (caller frees with topomap_topology_free) or NULL.
 */
topomap_topology_t *topomap_topology_load(const char *path, char *err, size_t errlen);
/**
 * topomap_topology_load() with one topology of a Slurm topology.yaml chosen
 * by its `topology:` name @p name (not kept; NULL: the file's default, as
 * topomap_topology_load()). The topology's name (topomap_topology_describe's
 * "name:") is then @p name.
 * @return a new topology (caller frees with topomap_topology_free), or NULL
 *         with errno EINVAL and err: no topology of that name (the message
 *         lists the file's), or a name given for a file that is not a Slurm
 *         topology.yaml, or the errors of topomap_topology_load().
 */
topomap_topology_t *topomap_topology_load_named(const char *path, const char *name, char *err,
                                                size_t errlen);
/**
 * Find a Slurm cluster's network description from the path of its
 * slurm.conf, by Slurm's rules: a topology.yaml beside slurm.conf if there is
 * one (Slurm then ignores topology.conf), else topology.conf beside it when
 * slurm.conf's TopologyPlugin= is topology/tree or topology/block. Only
 * slurm.conf itself is read (not the files it includes). Give the result to
 * topomap_topology_load() (a topology.yaml's default topology) or
 * topomap_topology_load_named().
 * @param slurm_conf  path of slurm.conf (not kept)
 * @param out         caller's buffer of @p outlen bytes for the path (the
 *                    directory of @p slurm_conf, then the file name)
 * @return 0, or -1 with errno and a one-line @p err: ENOENT when the cluster
 *         describes no network (TopologyPlugin= unset, topology/flat or
 *         topology/default, and no topology.yaml) or the topology.conf that
 *         TopologyPlugin= needs is missing; EINVAL for another plugin
 *         ("SLURM_CONF:LINE: TopologyPlugin=..."); ERANGE when @p out is too
 *         small; the errno of reading slurm.conf.
 */
int topomap_slurm_topology_path(const char *slurm_conf, char *out, size_t outlen, char *err,
                                size_t errlen);

/**
 * Build an n-D mesh/torus: dims[k] nodes along dimension k, wrap[k] nonzero for
 * wraparound. Node index = x0 + d0*(x1 + d1*(x2 + ...)). @p hostlist names the
 * nodes in index order (NULL: "node[0-N]" with zero padding). Each node has
 * @p cores cores in one flat level.
 */
topomap_topology_t *topomap_topology_torus(int ndims, const int *dims, const int *wrap,
                                           int cores, const char *hostlist,
                                           char *err, size_t errlen);
/**
 * Build a Tianhe-3 style machine (OHTMA paper, section 4.2, Table 1): a
 * @p rows x @p cols mesh of chips, @p nodes_per_chip nodes per chip (even; the
 * first half is the left side). Node index = chip * nodes_per_chip + k with
 * chip = row * cols + col. Hops: same chip 1, same row or column 3, else 5;
 * one more when the two nodes are on different sides; 0 for the same node.
 */
topomap_topology_t *topomap_topology_tianhe3(int rows, int cols, int nodes_per_chip,
                                             int cores, const char *hostlist,
                                             char *err, size_t errlen);
/**
 * Build a tree (fat-tree) network: @p nlevels switch levels, arity[0] children
 * of the top switch, ..., arity[nlevels-1] nodes per leaf switch. hops[k] is the
 * hop count between two nodes whose lowest common switch is at level k
 * (0 = top), e.g. {4, 2} for leaf switches under one top switch.
 */
topomap_topology_t *topomap_topology_tree(int nlevels, const int *arity, const int *hops,
                                          int cores, const char *hostlist,
                                          char *err, size_t errlen);

/**
 * Replace the inside of every node with a hierarchy of @p nlevels levels, from
 * the outermost (e.g. socket) to the innermost (core): arity[k] children per
 * object of the level above; cost[k] is the SumCom cost between two cores whose
 * deepest common object is at level k-1 (cost[0]: only the node is shared),
 * and cost[nlevels] the cost between a core and itself.
 * Cores per node = product of arity. Every node gets this one type (type 0):
 * node types added before are dropped.
 * @return 0, or -1 with errno EINVAL and @p err (bad levels or costs).
 */
int topomap_topology_set_node_levels(topomap_topology_t *t, int nlevels, const int *arity,
                                     const double *cost, char *err, size_t errlen);
/**
 * Add a node type: the nodes named by the hostlist expression @p hostlist get
 * the levels and costs given (as topomap_topology_set_node_levels()); the
 * other nodes keep theirs. Every node named must be in @p t, be named once,
 * and still be of type 0 (a node has exactly one type). On failure @p t is
 * unchanged.
 * @return the new type's number (1, 2, ...), or -1 with errno EINVAL and a
 *         sentence in @p err ("node 'x' is not in the topology", "node 'x' is
 *         named twice", "node 'x' already has node type 1", bad levels, more
 *         than TOPOMAP_MAX_NODE_TYPES types), or ENOMEM.
 */
int topomap_topology_set_node_levels_for(topomap_topology_t *t, const char *hostlist,
                                         int nlevels, const int *arity, const double *cost,
                                         char *err, size_t errlen);
/**
 * Replace the inside of every node by what hwloc reports: from the XML file
 * @p xml_path (as written by `lstopo node.xml`), or from the running machine
 * when @p xml_path is NULL. Levels: packages, NUMA nodes (when they split a
 * package), cores. Like topomap_topology_set_node_levels(), every node gets
 * this one type.
 */
int topomap_topology_set_node_hwloc(topomap_topology_t *t, const char *xml_path,
                                    char *err, size_t errlen);
void topomap_topology_free(topomap_topology_t *t);

/** "torus", "mesh", "tianhe3", "fat-tree" or "dragonfly". */
const char *topomap_topology_kind(const topomap_topology_t *t);
/** Number of nodes. */
int topomap_topology_nnodes(const topomap_topology_t *t);
/** Hostname of node @p node, valid until topomap_topology_free(); NULL if out of range. */
const char *topomap_topology_node_name(const topomap_topology_t *t, int node);
/** Node index of @p hostname, or -1 with errno ENOENT. O(1) average. */
int topomap_topology_node_lookup(const topomap_topology_t *t, const char *hostname);
/**
 * The most cores a node has: with one node type, the cores of every node;
 * with several, the largest of the types' counts (what a per-node array
 * indexed by core needs). The cores of a given node are
 * topomap_topology_node_cores().
 */
int topomap_topology_cores(const topomap_topology_t *t);
/** Number of node types (1 .. TOPOMAP_MAX_NODE_TYPES); 1 unless node types were added. */
int topomap_topology_ntypes(const topomap_topology_t *t);
/** Node type of @p node (0 .. ntypes-1), O(1); -1 with errno EINVAL when out of range. */
int topomap_topology_node_type(const topomap_topology_t *t, int node);
/** Cores of @p node (its type's), O(1); -1 with errno EINVAL when out of range. */
int topomap_topology_node_cores(const topomap_topology_t *t, int node);
/** Cores of a node of type @p type; -1 with errno EINVAL when out of range. */
int topomap_topology_type_cores(const topomap_topology_t *t, int type);
/**
 * The nodes of type @p type as a compressed hostlist expression, in node
 * order ("" when the type has no node left).
 * @return a malloc'ed string (caller frees), or NULL with errno EINVAL (no
 *         such type) or ENOMEM.
 */
char *topomap_topology_type_hostlist(const topomap_topology_t *t, int type);
/**
 * Network hops between nodes @p a and @p b (0 when a == b). O(1)/O(levels),
 * no allocation. -1 with errno EINVAL when a node is out of range.
 */
int topomap_topology_hops(const topomap_topology_t *t, int a, int b);
/**
 * SumCom cost of moving one byte from core @p ca of node @p na to core @p cb of
 * node @p nb: hops * hop_cost between nodes, the node-level cost of node
 * @p na's type inside a node. -1.0 with errno EINVAL when a node is out of
 * range, or a core is not one of its node's (type's) cores.
 */
double topomap_topology_cost(const topomap_topology_t *t, int na, int ca, int nb, int cb);
/** GPU vendors (topomap_gpu_t vendor): which variable selects a task's GPU. */
enum topomap_gpu_vendor {
    TOPOMAP_GPU_NVIDIA = 1, /**< CUDA_VISIBLE_DEVICES */
    TOPOMAP_GPU_AMD = 2,    /**< ROCR_VISIBLE_DEVICES */
    TOPOMAP_GPU_INTEL = 3   /**< ZE_AFFINITY_MASK */
};
typedef enum topomap_gpu_vendor topomap_gpu_vendor_t;
/** The most GPUs of one node. */
#define TOPOMAP_MAX_GPUS 64
/** One GPU of a node (topomap_topology_gpu); strings valid while the topology lives. */
typedef struct {
    topomap_gpu_vendor_t vendor; /**< which variable selects it */
    const char *cpus; /**< the CPU cores near it, a CPU list of node core numbers ("0-19") */
    int numa;         /**< its NUMA domain, -1 when not known */
    const char *nic;  /**< the NIC near it as the MPI library names it, or NULL */
    int cpu_cores;    /**< CPU cores of the node */
} topomap_gpu_t;
/**
 * GPUs of @p node: 0 for a node of cores only. On a node with GPUs the slots
 * (cores, topomap_topology_node_cores) are its GPUs, slot g being GPU g, and
 * topomap_topology_cost() of two slots of the node is the GPU pair's cost.
 * -1 with errno EINVAL when @p node is out of range.
 */
int topomap_topology_node_gpus(const topomap_topology_t *t, int node);
/** GPU @p gpu of @p node into @p out; -1 with errno EINVAL (no such GPU). */
int topomap_topology_gpu(const topomap_topology_t *t, int node, int gpu, topomap_gpu_t *out);
/** "nvidia", "amd", "intel", or NULL for another number. */
const char *topomap_gpu_vendor_name(topomap_gpu_vendor_t vendor);
/** The vendor named @p name (a topomap_gpu_vendor_t value), or -1 with errno
 *  EINVAL: an int, so that the -1 survives (the enum has no negative value). */
int topomap_gpu_vendor_parse(const char *name);
/** Largest hop count between two nodes. */
int topomap_topology_diameter(const topomap_topology_t *t);
/**
 * Set the SumCom cost of one network hop (default 1, or the YAML hop_cost).
 * Intra-node costs already set are not rescaled.
 * @return 0, or -1 with errno EINVAL (negative, not finite, or over
 *         TOPOMAP_MAX_COST).
 */
int topomap_topology_set_hop_cost(topomap_topology_t *t, double hop_cost);
/** The SumCom cost of one network hop. */
double topomap_topology_hop_cost(const topomap_topology_t *t);
/**
 * Set the bandwidth of one channel (one direction of a cable), in bytes per
 * second (the YAML key network.link_bandwidth); 0 means not known.
 * @return 0, or -1 with errno EINVAL (negative, not finite, or between 0 and
 *         TOPOMAP_MIN_BANDWIDTH).
 */
int topomap_topology_set_link_bandwidth(topomap_topology_t *t, double bytes_per_s);
/** Bandwidth of one channel in bytes per second, 0 when not known. */
double topomap_topology_link_bandwidth(const topomap_topology_t *t);
/** The number of classes of links the network tells apart in
 *  topomap_metrics_t.congestion_class_max: TOPOMAP_LINK_CLASSES on a
 *  dragonfly (node, local and global links), 1 elsewhere (every channel is
 *  TOPOMAP_LINK_LOCAL). */
int topomap_topology_link_classes(const topomap_topology_t *t);
/** What a network looks like, for the algorithms and pictures that follow
 *  its structure (topomap_topology_shape). */
enum topomap_shape {
    TOPOMAP_SHAPE_GRID = 1, /**< a torus or mesh (topomap_topology_grid) */
    TOPOMAP_SHAPE_CHIPS,    /**< a mesh of chips of two halves (Tianhe-3); the
                                 coordinates are row, column, half, node */
    TOPOMAP_SHAPE_TREE,     /**< switches above the nodes (fat-trees, Slurm's
                                 topology/tree and topology/block) */
    TOPOMAP_SHAPE_GROUPS    /**< groups of switches (a dragonfly) */
};
typedef enum topomap_shape topomap_shape_t;
/** The shape of @p t's network. */
topomap_shape_t topomap_topology_shape(const topomap_topology_t *t);

/*
 * Routes and channels. The network's elements are the nodes (0 .. nnodes-1)
 * and, from nnodes on, its switches: none on a torus/mesh (the nodes route);
 * on a tree the switches level by level from the top (a Slurm topology.conf:
 * in definition order, then the virtual root if any); on Tianhe-3 the two
 * halves of each chip (nnodes + 2 x chip + side); on a dragonfly its
 * switches (nnodes + switch). A channel is one direction of a cable between
 * two neighbouring elements. Routing is deterministic and minimal:
 * dimension-ordered on tori/meshes (dimension 0 first; on a ring the shorter
 * way, the + direction when both are equally long), up-down on trees,
 * row-then-column over the direct chip links on Tianhe-3, local, global,
 * local on a dragonfly (doc/user-guide.md#reading-eval-and-stats,
 * doc/networks.md).
 */
/** Number of network elements (nodes and switches). */
int topomap_topology_nelements(const topomap_topology_t *t);
/** Longest route in channels (a route needs room for this + 1 elements). */
int topomap_topology_route_max(const topomap_topology_t *t);
/**
 * The route from node @p a to node @p b: fills @p elems[0 .. h] with the
 * elements passed (a first, b last; elems[0] = a alone when a == b).
 * @return h, the number of channels (0 when a == b), or -1 with errno EINVAL
 *         (node out of range, NULL @p elems, @p max < 1), ERANGE (@p max < h + 1)
 *         or ENOMEM.
 */
int topomap_topology_route(const topomap_topology_t *t, int a, int b, int *elems, int max);
/**
 * Coordinates of @p node: fills up to @p maxdims entries of @p coords and
 * returns the number of dimensions (torus/mesh: one per dimension; tianhe3:
 * row, col, side, slot; tree: the switch index at each level, then the port;
 * dragonfly: group, switch in the group, port).
 */
int topomap_topology_coords(const topomap_topology_t *t, int node, int *coords, int maxdims);
/**
 * Print a human summary (kind, size, node names, cores, levels, diameter) to @p f;
 * with several node types, each type with its nodes (a hostlist), cores,
 * levels and costs.
 * @return 0 or -1 with errno from the stream.
 */
int topomap_topology_describe(const topomap_topology_t *t, FILE *f);

#endif /* TOPOMAP_API_TOPOLOGY_H */
