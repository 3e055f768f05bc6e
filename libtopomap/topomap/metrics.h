/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/metrics.h
 * @brief libtopomap: Metrics and matrix statistics.
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_METRICS_H
#define TOPOMAP_API_METRICS_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/metrics.h>"
#endif

/** Classes of links (topomap_topology_link_classes(),
 *  topomap_metrics_t.congestion_class_max). */
enum topomap_link_class {
    TOPOMAP_LINK_NODE,   /**< a node's cable to its switch (dragonfly) */
    TOPOMAP_LINK_LOCAL,  /**< between switches of a group; every link of other networks */
    TOPOMAP_LINK_GLOBAL, /**< between groups of a dragonfly */
    TOPOMAP_LINK_CLASSES
};
typedef enum topomap_link_class topomap_link_class_t;
/** Name of link class @p k ("node", "local", "global"), NULL out of range. */
const char *topomap_link_class_name(topomap_link_class_t k);

/**
 * Quality of a mapping. All byte quantities use the directed profile as
 * recorded. Before topomap_eval() or topomap_eval_slots(), set @p size with
 * topomap_metrics_init(): they write the fields that fit in @p size and no
 * byte beyond (a program built against an older header has a shorter
 * struct), and refuse a size that is not the end of one of its fields
 * (errno EINVAL); doc/api.md#growth-safe-structs.
 */
typedef struct topomap_metrics {
    size_t size;               /**< sizeof the caller's struct, set by topomap_metrics_init() */
    double total_bytes;        /**< sum of A[i][j], self traffic included */
    double hop_bytes;          /**< sum A[i][j] * hops(node(i), node(j)) (OHTMA eq. 1) */
    double avg_hops_per_byte;  /**< hop_bytes / total_bytes (0 if no bytes) */
    int max_dilation;          /**< max hops over pairs with A[i][j] > 0 */
    double sumcom;             /**< sum A[i][j] * cost(slot(i), slot(j)) */
    double maxcom;             /**< max A[i][j] * cost(slot(i), slot(j)) */
    double internode_bytes;    /**< bytes between ranks on different nodes */
    double internode_fraction; /**< internode_bytes / total_bytes */
    /** Congestion: every pair's bytes routed over the network's channels
     *  (topomap_link_loads()). Largest load of one channel, in bytes. */
    double congestion_max;
    /** Mean load of the channels that carry traffic, in bytes (0 if none). */
    double congestion_avg;
    /** Number of channels that carry traffic. */
    long congestion_channels;
    /** congestion_max and _avg divided by the link bandwidth: seconds to
     *  drain the channel; 0 when the topology gives no bandwidth. */
    double congestion_max_seconds;
    double congestion_avg_seconds;
    /** The largest load of a channel of each class of link
     *  (TOPOMAP_LINK_NODE, _LOCAL, _GLOBAL), in bytes; a class the network
     *  does not have stays 0 (every channel of a torus or a tree is local). */
    double congestion_class_max[TOPOMAP_LINK_CLASSES];
    /** Bytes carried by the global links of a dragonfly (the bytes between
     *  groups under minimal routing), 0 elsewhere. */
    double congestion_global_bytes;
} topomap_metrics_t;

/**
 * Zero the @p size first bytes of @p m and set its size field to @p size
 * (what topomap_metrics_init() passes).
 * @return 0, or -1 with errno EINVAL (NULL, or a size as topomap_opts_t's
 *         that this library does not know; @p m is left as it was).
 */
int topomap_metrics_init_size(topomap_metrics_t *m, size_t size);
/** topomap_metrics_init_size() with the caller's sizeof: use this (or
 *  TOPOMAP_METRICS_INIT in a declaration). */
#define topomap_metrics_init(m) topomap_metrics_init_size((m), sizeof *(m))
/** Initialiser of a declared topomap_metrics_t: zero, with its size. */
#define TOPOMAP_METRICS_INIT {.size = sizeof(topomap_metrics_t)}

/**
 * Evaluate the placement rank i -> (node[i], core[i]) of @p p on @p t into
 * @p m (its size set by topomap_metrics_init()).
 * @return 0, or -1 with errno EINVAL (node or core out of range, @p m's size
 *         unknown).
 */
int topomap_eval(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                 const int *core, topomap_metrics_t *m);
/** Same for rank -> slot of allocation @p a. */
int topomap_eval_slots(const topomap_profile_t *p, const topomap_alloc_t *a,
                       const int *rank_to_slot, topomap_metrics_t *m);
/**
 * The hop-bytes of rank -> slot of allocation @p a alone, the same number
 * topomap_eval_slots() gives, without routing every pair for the congestion
 * fields (the bulk of the cost on a scattered mapping).
 * @return 0, or -1 with errno EINVAL (a slot out of range, NULL), ENOMEM.
 */
int topomap_hop_bytes_slots(const topomap_profile_t *p, const topomap_alloc_t *a,
                            const int *rank_to_slot, double *hop_bytes);

/** The most ranks topomap_hop_bytes_bound() takes (its cost grows as the cube). */
#define TOPOMAP_HOP_BYTES_BOUND_MAX 2048
/**
 * A lower bound of the hop-bytes of every placement of the ranks of @p p on
 * the nodes of @p t that @p node (rank -> node, as for topomap_eval()) uses,
 * each node holding as many ranks as in @p node: the Gilmore-Lawler bound of
 * that quadratic assignment (doc/algorithms.md#exact). No placement of the
 * job on those nodes goes below *@p bound; the gap of a mapping to it is
 * what any mapper could still gain, at most.
 * O(n^3) time and O(n^2) memory for n ranks: a second at 1,024 ranks.
 * @return 0, or -1 with errno EINVAL (NULL, a node out of range), E2BIG
 *         (more than TOPOMAP_HOP_BYTES_BOUND_MAX ranks), ENOMEM.
 */
int topomap_hop_bytes_bound(const topomap_profile_t *p, const topomap_topology_t *t,
                            const int *node, double *bound);

/** Most categories of topomap_traffic_split(). */
#define TOPOMAP_SPLIT_MAX 24
/**
 * Traffic of a placement split by the innermost level of the machine two
 * ranks share (the study's traffic by level, Bordage & Jeannot 2017,
 * section 4.4), innermost first: name[0] the core (two ranks on one core,
 * and self traffic), then each level of the node from the inside out
 * ("numa", "socket": same object, different cores or objects below), "node"
 * (same node, different objects of its outermost level), "leaf_switch"
 * (different nodes under one switch; only on networks with switches: trees,
 * Tianhe-3's chip halves) and "beyond" (everything else).
 */
typedef struct topomap_traffic_split {
    int n;                                /**< number of categories */
    char name[TOPOMAP_SPLIT_MAX][24];     /**< their names */
    double bytes[TOPOMAP_SPLIT_MAX];      /**< directed bytes as recorded; they sum to
                                               total_bytes */
} topomap_traffic_split_t;

/**
 * Split the traffic of @p p placed at rank i -> (@p node[i], @p core[i]) on
 * @p t by level (see topomap_traffic_split_t). With several node types the
 * node levels are counted from the core up: category c (0 < c < the most
 * levels of a type) holds the pairs whose deepest common object is c levels
 * above the core, named after that level in every type that has it, joined
 * by '/' where the types name it differently ("socket/numa"); cores that
 * share nothing but a node of fewer levels count as "node". Serial, in rank order:
 * bit-identical on every run. O(edges x node levels) time.
 * @return 0, or -1 with errno EINVAL (NULL argument, node or core out of
 *         range) or ENOMEM.
 */
int topomap_traffic_split(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                          const int *core, topomap_traffic_split_t *s);

/* ---- GPU fabrics: NVLink domains and rails (topo_fabric.c, metrics_fabric.c;
 *      the YAML key gpu_fabric, doc/networks.md "GPU fabrics") ---------- */

/** Rails of @p t: GPU g of a node has its own NIC on rail switch g mod
 *  rails (a rail-optimised fat-tree); 0 when the network has no rails. */
int topomap_topology_rails(const topomap_topology_t *t);
/** Number of NVLink domains of @p t (groups of nodes whose GPUs reach each
 *  other over NVLink), 0 when none are described. */
int topomap_topology_domains(const topomap_topology_t *t);
/** The NVLink domain of node @p node (0 .. domains - 1), -1 when it is in
 *  none (then its GPUs share NVLink with its own node's only), or -1 with
 *  errno EINVAL (node out of range). */
int topomap_topology_domain(const topomap_topology_t *t, int node);

/** Path classes of GPU traffic. */
enum topomap_fabric_class {
    TOPOMAP_FABRIC_NODE = 0, /**< NVLink inside a node */
    TOPOMAP_FABRIC_DOMAIN,   /**< NVLink between nodes of one domain */
    TOPOMAP_FABRIC_RAIL,     /**< the network through one rail switch (any
                                  network path when there are no rails) */
    TOPOMAP_FABRIC_SPINE,    /**< the network from one rail to another (spine) */
    TOPOMAP_FABRIC_CLASSES
};
typedef enum topomap_fabric_class topomap_fabric_class_t;
/** Links whose busiest one is reported. */
enum topomap_fabric_link {
    TOPOMAP_FLINK_NVLINK = 0, /**< a GPU's NVLink port (node and domain traffic) */
    TOPOMAP_FLINK_NIC,        /**< a GPU's NIC (traffic leaving its domain or node) */
    TOPOMAP_FLINK_SPINE,      /**< the uplinks of one rail switch to the spine */
    TOPOMAP_FLINK_KINDS
};
typedef enum topomap_fabric_link topomap_fabric_link_t;
/** Name of class @p k ("nvlink-node", "nvlink-domain", "rail", "spine") and
 *  of link kind @p k ("nvlink", "nic", "spine"); NULL out of range. */
const char *topomap_fabric_class_name(topomap_fabric_class_t k);
const char *topomap_fabric_link_name(topomap_fabric_link_t k);

/** GPU traffic of a placement by path class, and the busiest link of each kind. */
typedef struct topomap_fabric_traffic {
    double bytes[TOPOMAP_FABRIC_CLASSES]; /**< directed bytes of each class (self excluded) */
    double between_domains;               /**< bytes between different domains (or
                                               nodes outside any domain) */
    double busiest[TOPOMAP_FLINK_KINDS];  /**< bytes of the busiest link, one direction */
    double seconds[TOPOMAP_FLINK_KINDS];  /**< busiest / its bandwidth, 0 when unknown */
} topomap_fabric_traffic_t;

/**
 * The traffic of @p p placed at rank i -> GPU @p slot[i] of node @p node[i]
 * on @p t, by path class (a GPU's rail is its slot mod rails), and the load
 * of the busiest NVLink port, NIC and rail uplink. Without PXN: a pair on
 * different rails goes through the spine. @return 0, or -1 with errno
 * EINVAL (NULL argument, node or slot out of range) or ENOMEM.
 */
int topomap_fabric_traffic(const topomap_profile_t *p, const topomap_topology_t *t,
                           const int *node, const int *slot, topomap_fabric_traffic_t *out);

/** How far the groups of one kind spread (Arnold's spread). */
typedef struct topomap_group_spread {
    int groups;           /**< number of groups */
    int split_domains;    /**< groups over more than one domain (a node outside
                               any domain counts as its own domain) */
    int split_nodes;      /**< groups over more than one node */
    double mean_domains, mean_nodes, mean_rails; /**< per group */
    int max_domains, max_nodes, max_rails;
} topomap_group_spread_t;

/**
 * The spread of the groups of layout @p l that vary the dimensions of
 * @p mask (topomap_layout_group), ranks placed as in topomap_fabric_traffic.
 * @return 0, or -1 with errno EINVAL (a profile rank count that is not the
 * layout's, bad placement) or ENOMEM.
 */
int topomap_group_spread(const topomap_layout_t *l, unsigned mask, const topomap_topology_t *t,
                         const int *node, const int *slot, topomap_group_spread_t *out);

/** The load of one channel: bytes routed from element @p from to @p to. */
typedef struct topomap_link_load {
    int from, to; /**< network elements (see topomap_topology_route()) */
    double load;  /**< bytes */
} topomap_link_load_t;

/**
 * Route every directed pair of @p p placed on nodes @p node[rank] of @p t
 * (bytes as recorded, pairs on one node use no channel) and return the load of
 * every channel that carries traffic, in increasing channel order (fixed by
 * the topology). Loads are summed in rank order, serially: bit-identical for
 * any thread count. Cost O(communicating pairs x route length) time and
 * O(loaded channels) memory.
 * @return 0 with *@p links (caller frees with free(); NULL when *@p n is 0)
 *         and *@p n set; -1 with errno EINVAL (NULL argument, node out of
 *         range) or ENOMEM.
 */
int topomap_link_loads(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                       topomap_link_load_t **links, size_t *n);

/** Matrix statistics of the metrics study (Bordage & Jeannot, section 4.4). */
#define TOPOMAP_STATS_MAXK 8
typedef struct topomap_stats {
    double ch;  /**< communication heterogeneity */
    double cb;  /**< communication balance */
    double cc;  /**< communication centrality */
    double nbc; /**< neighbour communication fraction (the square root of NBC^2) */
    int nk;     /**< number of SP(k) values */
    int k[TOPOMAP_STATS_MAXK];
    double sp[TOPOMAP_STATS_MAXK]; /**< split fraction SP(k[i]) */
} topomap_stats_t;

/**
 * Compute the statistics of @p p on the symmetrised byte matrix C = A + A^T
 * (the study assumes C symmetric) without its diagonal (self traffic is not
 * placement dependent), for the @p nk (<= TOPOMAP_STATS_MAXK) block sizes
 * @p ks (SP(k): ranks i and j share a block when i / k == j / k). All zero
 * for a profile without traffic between ranks. O(nnz + n log n), no dense
 * matrix; libtopomap/stats.c documents how the formulas' edge cases are read.
 * @return 0, or -1 with errno EINVAL (NULL argument, nk out of range, k < 1).
 */
int topomap_stats(const topomap_profile_t *p, const int *ks, int nk, topomap_stats_t *s);

#endif /* TOPOMAP_API_METRICS_H */
