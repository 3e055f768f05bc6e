/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/mapping.h
 * @brief libtopomap: Mapping algorithms.
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_MAPPING_H
#define TOPOMAP_API_MAPPING_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/mapping.h>"
#endif

/** Node-internal placement after the algorithm (topomap_opts_t.node_place):
 *  the ranks of each node are placed on its slots by the node's hierarchy
 *  (sockets, NUMA domains, cores). Never moves a rank to another node, so
 *  hop-bytes are unchanged; a node's new placement is kept only when it
 *  lowers its SumCom. Not applied to the baselines block, cyclic, random. */
enum topomap_node_place {
    TOPOMAP_NODE_PLACE_AUTO = 0,  /**< TreeMatch on each node's subtree, then the
                                       SumCom refinement (default) */
    TOPOMAP_NODE_PLACE_OFF,       /**< cores as the algorithm gave them */
    TOPOMAP_NODE_PLACE_TREEMATCH, /**< TreeMatch on each node's subtree only */
    TOPOMAP_NODE_PLACE_REFINE     /**< the SumCom refinement only */
};
typedef enum topomap_node_place topomap_node_place_t;

/** What the mapping minimises (topomap_opts_t.objective). Whatever the
 *  objective, `auto` never returns a placement whose busiest link
 *  (congestion_max) is above `block`'s unless it is `block`'s own. */
enum topomap_objective {
    TOPOMAP_OBJECTIVE_HOP_BYTES = 0, /**< hop-bytes (default) */
    TOPOMAP_OBJECTIVE_CONGESTION     /**< a weighted mix of the busiest link's
                                          load and hop-bytes: `auto` judges its
                                          candidates by it and refines the
                                          winner for it; other algorithms with
                                          refinement (+refine) refine for it
                                          after the hop-bytes refinement */
};
typedef enum topomap_objective topomap_objective_t;
/**
 * The objective called @p name: "hop-bytes" or "congestion" ("hop_bytes"
 * accepted too, any case).
 * @return the topomap_objective_t value, or -1 with errno EINVAL (an int,
 *         so that the -1 survives: the enum has no negative value).
 */
int topomap_objective_parse(const char *name);

/**
 * Options of topomap_map(). Initialise with topomap_opts_init(), which sets
 * @p size: the library reads the fields that fit in @p size and takes the
 * defaults for the others, so that a program built against an older header
 * (a shorter struct: fields are only ever appended) keeps working, and
 * refuses a size that is not the end of one of its fields (errno EINVAL:
 * an uninitialised struct, or a header newer than the library);
 * doc/api.md#growth-safe-structs.
 */
typedef struct topomap_opts {
    size_t size;       /**< sizeof the caller's struct, set by topomap_opts_init() */
    uint64_t seed;     /**< seed of randomised algorithms (default 1) */
    topomap_affinity_t affinity; /**< default bytes */
    int nthreads;      /**< OpenMP threads; 0 (default): 1, or OMP_NUM_THREADS
                            when the environment sets it (the runtime's
                            default of every CPU busy-waits on shared nodes);
                            at most TOPOMAP_MAX_THREADS (else topomap_map():
                            EINVAL) */
    double time_limit; /**< seconds, 0 = none; exceeded: -1, errno ETIMEDOUT,
                            except `auto`, which returns its best so far */
    int refine;        /**< 1: run the swap-refinement engine afterwards */
    long loop;         /**< pair-exchange steps (ohtma), -1 = algorithm default */
    /** Progress lines (e.g. which candidate `auto` tried, its hop-bytes and
     *  time, which one it chose), one call per line without a newline; NULL
     *  (default): none. Called from the calling thread. */
    void (*log)(const char *line, void *arg);
    void *log_arg;     /**< passed to log */
    double grid_weak;  /**< weak-edge threshold of the grid analyzer (`grid`,
                            `auto`); 0 = TOPOMAP_GRID_WEAK */
    topomap_node_place_t node_place; /**< default AUTO */
    topomap_objective_t objective; /**< default hop-bytes; another value:
                                        topomap_map() EINVAL */
} topomap_opts_t;

/**
 * The defaults into the @p size first bytes of @p o, @p size included
 * (what topomap_opts_init() passes: the size of the struct the caller was
 * compiled with).
 * @return 0, or -1 with errno EINVAL (NULL, or a size this library does not
 *         know as above; @p o is left as it was).
 */
int topomap_opts_init_size(topomap_opts_t *o, size_t size);
/** topomap_opts_init_size() with the caller's sizeof: use this. */
#define topomap_opts_init(o) topomap_opts_init_size((o), sizeof *(o))

/**
 * Map the ranks of @p p onto the slots of @p a with algorithm @p algo.
 * Fills @p rank_to_slot[0 .. nranks-1] (caller-allocated) with distinct slots.
 * Errors: EINVAL unknown algorithm (message lists the known ones), ENOTSUP the
 * algorithm does not apply to these inputs (treematch on a torus, analytic or
 * grid off a torus or mesh, grid on a profile that is not a process grid),
 * E2BIG more ranks than slots, ETIMEDOUT time limit exceeded, ENOMEM.
 * @p o may be NULL for defaults.
 */
int topomap_map(const char *algo, const topomap_profile_t *p, const topomap_alloc_t *a,
                const topomap_opts_t *o, int *rank_to_slot, char *err, size_t errlen);

/** Name of the @p i-th algorithm (0-based), NULL past the end. */
const char *topomap_algo_name(int i);
/** One-line description of the @p i-th algorithm, NULL past the end. */
const char *topomap_algo_summary(int i);
/**
 * 1 if @p name is a known algorithm (in any case: "OHTMA" is "ohtma"), or a
 * known algorithm followed by "+refine" (e.g. "ohtma+refine": the algorithm, then the swap-refinement
 * engine, as with opts->refine = 1), else 0. topomap_map() accepts the same names.
 */
int topomap_algo_valid(const char *name);

#endif /* TOPOMAP_API_MAPPING_H */
