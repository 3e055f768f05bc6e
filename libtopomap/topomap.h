/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap.h
 * @brief libtopomap: place the ranks of a parallel job onto a machine so that
 *        ranks which talk a lot sit close together.
 *
 * The one public header of libtopomap. Everything it declares is prefixed
 * topomap_ / TOPOMAP_. Conventions (hwloc's):
 *  - functions returning int give 0 on success, -1 with errno set on failure;
 *  - functions returning a pointer give NULL with errno set on failure;
 *  - loaders and algorithms also fill an optional error buffer @p err of
 *    @p errlen bytes with one human sentence, prefixed "FILE:LINE:COL: " or
 *    "FILE:LINE: " where a file is involved. @p err may be NULL;
 *  - handles are opaque; *_free() accepts NULL;
 *  - the library never prints, exits or aborts; inputs marked const are never
 *    modified; results depend only on inputs and an explicit seed, never on
 *    the number of threads.
 */
#ifndef TOPOMAP_H
#define TOPOMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h> /* uid_t, gid_t: the profile store */

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with -fvisibility=hidden: what this header declares
 * is its exported surface, and nothing else is. */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

/** Suggested size of error buffers. */
#define TOPOMAP_ERRLEN 512

/** Version of this header. configure takes the package version from the
 *  TOPOMAP_VERSION line, so the two cannot differ. */
#define TOPOMAP_VERSION "0.1.0"
#define TOPOMAP_VERSION_MAJOR 0
#define TOPOMAP_VERSION_MINOR 1
#define TOPOMAP_VERSION_PATCH 0
/** One comparable number: (major << 16) | (minor << 8) | patch, e.g.
 *  #if TOPOMAP_VERSION_NUMBER >= 0x000100 (as hwloc's HWLOC_API_VERSION). */
#define TOPOMAP_VERSION_NUMBER \
    ((TOPOMAP_VERSION_MAJOR << 16) | (TOPOMAP_VERSION_MINOR << 8) | TOPOMAP_VERSION_PATCH)

/** Version of the library linked at run time, e.g. "0.1.0" (compare with
 *  TOPOMAP_VERSION, the header's). */
const char *topomap_version(void);

/**
 * For a program that maps in its main thread (the topomap command, srun's
 * plugin): stops the idle thread pool OpenBLAS starts when it is loaded (it
 * starts again when a BLAS call asks for more than one thread; libtopomap's
 * own calls ask for one). libtopomap blocks SIGTERM in the calling thread
 * while METIS runs, since METIS traps it (libtopomap/metis_call.h); with no
 * other thread to receive it, a SIGTERM then waits for METIS's call to end
 * and ends the process as usual. Not for a library inside someone else's
 * program.
 * @return 0 when a pool was stopped, 1 when this BLAS has none to stop.
 */
int topomap_blas_pool_stop(void);

/* ======================================================================== */
/* Input limits and small helpers for callers                                 */
/* ======================================================================== */

/*
 * Input limits (doc/formats.md#input-limits). An input that declares more is
 * refused with errno EINVAL and a "FILE:LINE: ..." message before anything
 * proportional to the declared size is allocated: a 10-byte file cannot ask
 * for gigabytes. Every input file must be a regular file: FIFOs, devices and
 * directories are refused before anything is read, so that a reader never
 * blocks on them.
 */
/** Ranks of a profile (declared rank count, matrix size, a rank number + 1). */
#define TOPOMAP_MAX_RANKS (1 << 22)
/** Nodes of a topology, and the names one hostlist expression expands to. */
#define TOPOMAP_MAX_NODES (1 << 20)
/** Node types of a topology (type 0 included). */
#define TOPOMAP_MAX_NODE_TYPES 256
/** Switches of a Slurm topology.conf. */
#define TOPOMAP_MAX_SWITCHES (1 << 20)
/** Slots of an allocation (nodes x slots per node). */
#define TOPOMAP_MAX_SLOTS (1 << 24)
/** Bytes of a topology file (YAML, topology.conf) or hwloc XML file. */
#define TOPOMAP_MAX_TOPOLOGY_FILE (64L << 20)
/** Nesting depth (mappings and lists inside each other) of a topology YAML. */
#define TOPOMAP_MAX_YAML_DEPTH 64
/** Nodes (scalars, mappings, lists) of a topology YAML. */
#define TOPOMAP_MAX_YAML_NODES (1 << 21)
/** Total bytes, and total messages, of a profile (real traffic is far below).
 *  With the cost and bandwidth bounds below, every metric stays finite:
 *  hop-bytes, SumCom, congestion, statistics. */
#define TOPOMAP_MAX_TOTAL 1e30
/** Largest SumCom cost of one hop and of a node level (YAML hop_cost, cost,
 *  self_cost, costs; topomap_topology_set_hop_cost(), _set_node_levels()). */
#define TOPOMAP_MAX_COST 1e6
/** Smallest link bandwidth other than 0 (unknown), in bytes per second. */
#define TOPOMAP_MIN_BANDWIDTH 1.0
/** OpenMP threads of topomap_opts_t.nthreads. */
#define TOPOMAP_MAX_THREADS 1024

/**
 * A copy of @p s that is safe to print on a terminal: control characters
 * (C0 including tab, DEL, C1), bytes that are not UTF-8 and Unicode
 * bidirectional overrides become '?'; other UTF-8 text is kept. At most
 * @p len - 1 bytes: a longer @p s is cut and ends with "...". @p buf may be
 * @p s itself (in place). Every error message of the library is made safe
 * this way.
 * @return @p buf (NUL-terminated when @p len > 0).
 */
char *topomap_printable(const char *s, char *buf, size_t len);

/**
 * Strict decimal integer: an optional '-' and digits, nothing else (no
 * blanks, no '+', no base prefix), that fits in a long.
 * @return 0 with *@p out set, or -1 with errno EINVAL (not such an integer)
 *         or ERANGE (too large).
 */
int topomap_parse_long(const char *s, long *out);
/** Same for an unsigned 64-bit integer (digits only). */
int topomap_parse_u64(const char *s, uint64_t *out);
/**
 * Strict finite number: what strtod() reads in the C locale, all of @p s,
 * with no leading blanks, not inf or nan.
 * @return 0, or -1 with errno EINVAL or ERANGE (overflow).
 */
int topomap_parse_double(const char *s, double *out);
/**
 * A duration: a strict number (as topomap_parse_double) followed by a unit,
 * "ms", "s" or "min" ("2s", "2000ms", "0.5s"), or a bare number counted in
 * @p unit seconds (1: the command line's seconds, 0.001: plugstack.conf's
 * milliseconds), into *@p seconds. The sign is not checked.
 * @return 0, or -1 with errno EINVAL or ERANGE.
 */
int topomap_parse_duration(const char *s, double unit, double *seconds);

/* ======================================================================== */
/* Hostlists (Slurm hostlist expressions such as "cn[0000-0003,0010],login1") */
/* ======================================================================== */

typedef struct topomap_hostlist topomap_hostlist_t;

/**
 * Expand a Slurm hostlist expression. Order is preserved, duplicates are kept.
 * Supports several bracket groups per name ("r[1-2]n[01-02]" expands the last
 * group fastest, as Slurm does) and zero padding.
 * @return a new hostlist (caller frees with topomap_hostlist_free), or NULL
 *         with errno EINVAL (syntax, message in @p err) or ENOMEM.
 */
topomap_hostlist_t *topomap_hostlist_parse(const char *expr, char *err, size_t errlen);
/** Number of hostnames in @p hl. */
size_t topomap_hostlist_count(const topomap_hostlist_t *hl);
/** The @p i-th hostname; valid until topomap_hostlist_free(). NULL if out of range. */
const char *topomap_hostlist_get(const topomap_hostlist_t *hl, size_t i);
void topomap_hostlist_free(topomap_hostlist_t *hl);
/**
 * Compress @p n hostnames, in the given order, into a hostlist expression
 * (consecutive numeric suffixes with the same prefix and width are ranged).
 * @return a malloc'ed string (caller frees), or NULL with errno ENOMEM.
 */
char *topomap_hostlist_compress(const char *const *names, size_t n);

/* ======================================================================== */
/* Communication profiles                                                     */
/* ======================================================================== */

/** A communication profile: bytes (and messages) sent from rank to rank. */
typedef struct topomap_profile topomap_profile_t;

/** File formats of profiles. */
enum topomap_profile_format {
    TOPOMAP_FMT_AUTO = 0, /**< by extension (.mtx, .mat) and content */
    TOPOMAP_FMT_EDGES,    /**< "src dst bytes [msgs]" lines, 0-based ranks */
    TOPOMAP_FMT_DENSE,    /**< n lines of n numbers (TreeMatch, profile2mat.pl) */
    TOPOMAP_FMT_MTX,      /**< Matrix Market coordinate, 1-based */
    TOPOMAP_FMT_BINARY    /**< topomap's binary CSR (doc/formats.md#communication-profile);
                               TOPOMAP_FMT_AUTO knows it by its magic */
};
typedef enum topomap_profile_format topomap_profile_format_t;

/** Which quantity is the affinity between two ranks. */
enum topomap_affinity {
    TOPOMAP_AFFINITY_BYTES = 0, /**< bytes (default) */
    TOPOMAP_AFFINITY_MSGS = 1   /**< message counts (needs a msgs column) */
};
typedef enum topomap_affinity topomap_affinity_t;

/**
 * Load a profile from @p path in format @p format.
 * @p path "-" reads standard input (messages then say "standard input"); gzip
 * data (a "PROFILE.txt.gz", or piped in) is decompressed, the extension before
 * ".gz" picks the format as without it, and PROFILE.txt.meta is the side file
 * when PROFILE.txt.gz.meta is absent.
 * Files in the binary format (TOPOMAP_FMT_BINARY, known by their magic under
 * TOPOMAP_FMT_AUTO) are read whole and checked (size, version, flags, CRC-32,
 * row offsets, peers, values); their errors read "PATH: problem" and they
 * have no side file.
 * Duplicate (src, dst) entries are summed. The rank count comes from, in order:
 * a "# nranks=N" comment or a first data line holding a single integer (edge
 * list), the matrix size (dense, mtx), "nranks=" in the side file PATH.meta,
 * else the largest rank + 1.
 * Rejected with file:line in @p err and errno EINVAL: negative, NaN or infinite
 * values, totals over TOPOMAP_MAX_TOTAL, rank counts over TOPOMAP_MAX_RANKS,
 * ranks out of range, malformed or truncated lines, NUL bytes, empty files,
 * files that are not regular files. errno is ENOENT/EACCES etc. for files
 * that cannot be read, ENOMEM (with file:line) when memory runs out.
 * @return a new profile (caller frees with topomap_profile_free) or NULL.
 */
topomap_profile_t *topomap_profile_load(const char *path, topomap_profile_format_t format,
                                        char *err, size_t errlen);

/**
 * Build a profile from @p nedges directed entries (src[k] -> dst[k], bytes[k],
 * msgs[k]); @p msgs may be NULL (no message counts). Duplicates are summed.
 * Arrays are copied. @return a new profile or NULL (errno EINVAL: ranks out
 * of range or over TOPOMAP_MAX_RANKS, values negative or not finite, totals
 * over TOPOMAP_MAX_TOTAL; ENOMEM).
 */
topomap_profile_t *topomap_profile_create(int nranks, size_t nedges, const int *src,
                                          const int *dst, const double *bytes,
                                          const double *msgs, char *err, size_t errlen);
void topomap_profile_free(topomap_profile_t *p);

/** Number of ranks. */
int topomap_profile_nranks(const topomap_profile_t *p);
/** Number of distinct directed (src, dst) entries with a nonzero value. */
size_t topomap_profile_nedges(const topomap_profile_t *p);
/** Total bytes over all entries (self traffic included). */
double topomap_profile_total_bytes(const topomap_profile_t *p);
/** 1 if the profile carries message counts, else 0. */
int topomap_profile_has_msgs(const topomap_profile_t *p);
/**
 * Metadata value recorded in the file's "# key=value" comments (e.g.
 * "application", "date", "counted"), or NULL. Valid until topomap_profile_free.
 */
const char *topomap_profile_meta(const topomap_profile_t *p, const char *key);

/**
 * Write @p p in the edge-list format to @p f: "# key=value" header lines
 * (nranks first, then every metadata entry of @p p), then one
 * "src dst bytes msgs" line per entry in (src, dst) order ("src dst bytes"
 * when the profile has no message counts; a profile with message counts but
 * no nonzero entry gets one "0 0 0 0" line, so that it reads back with its
 * message column). Values read back bit for bit.
 * The stream is flushed, not closed.
 * @return 0, or -1 with errno from the stream (EINVAL for NULL arguments).
 */
int topomap_profile_write(const topomap_profile_t *p, FILE *f);

/**
 * Write @p p to @p f in @p format: TOPOMAP_FMT_EDGES (or TOPOMAP_FMT_AUTO),
 * as topomap_profile_write(), or TOPOMAP_FMT_BINARY, the binary format
 * (doc/formats.md#communication-profile: header, metadata, the directed CSR of
 * (peer, bytes, messages), CRC-32), which topomap_profile_load() reads back
 * to the same profile, bit for bit, far faster than text.
 * The stream is flushed, not closed.
 * @return 0, or -1 with errno from the stream, EINVAL for NULL arguments, a
 *         format that is not written (dense, Matrix Market, unknown) or
 *         metadata holding a newline (binary).
 */
int topomap_profile_write_as(const topomap_profile_t *p, topomap_profile_format_t format, FILE *f);

/**
 * A compressed sparse row view of a profile. Row i lists the ranks j that i
 * exchanges with, in increasing order, with weights w. Arrays belong to the
 * profile and are valid until topomap_profile_free().
 */
typedef struct topomap_graph {
    int n;               /**< number of ranks (rows) */
    const int64_t *xadj; /**< n + 1 row offsets */
    const int *adj;      /**< xadj[n] column indices */
    const double *w;     /**< xadj[n] weights */
} topomap_graph_t;

/**
 * Get a CSR view of @p p, weighted by @p affinity.
 * With @p symmetric 0: directed, w = A[i][j] as recorded (diagonal kept).
 * With @p symmetric 1: w = A[i][j] + A[j][i], diagonal dropped (what mapping
 * algorithms use; sum over it of w * hops is twice the directed hop-bytes).
 * Both views share one structure for bytes and messages, so an entry that
 * carried messages of zero bytes appears with w = 0 in the byte view.
 * @return 0, or -1 with errno EINVAL (messages asked for, none recorded).
 */
int topomap_profile_graph(const topomap_profile_t *p, topomap_affinity_t affinity, int symmetric,
                          topomap_graph_t *out);

/* ======================================================================== */
/* Training jobs: profiles from the parallel layout (profile_synth.c)         */
/* ======================================================================== */

/** The parallel dimensions of a training job (Megatron-Core's names). */
enum topomap_par {
    TOPOMAP_PAR_TP = 0, /**< tensor parallel */
    TOPOMAP_PAR_CP,     /**< context parallel */
    TOPOMAP_PAR_EP,     /**< expert parallel (carved out of data parallel) */
    TOPOMAP_PAR_DP,     /**< data parallel */
    TOPOMAP_PAR_PP,     /**< pipeline parallel */
    TOPOMAP_PAR_DIMS
};
typedef enum topomap_par topomap_par_t;
/** Name of dimension @p d ("tp", "cp", "ep", "dp", "pp"), NULL out of range. */
const char *topomap_par_name(topomap_par_t d);

/**
 * The layout of a training job's ranks, as Megatron-Core's RankGenerator
 * builds it: ranks = tp x cp x dp x pp, ep divides dp (the expert-parallel
 * ranks are data-parallel ranks, as in Megatron-Core); the rank is a mixed
 * radix number of the coordinates along order[0] (innermost, fastest) to
 * order[4], where the extent of TOPOMAP_PAR_EP is ep and that of
 * TOPOMAP_PAR_DP is dp / ep.
 */
typedef struct topomap_layout {
    int size[TOPOMAP_PAR_DIMS];  /**< tp, cp, ep, dp, pp, each >= 1 */
    topomap_par_t order[TOPOMAP_PAR_DIMS]; /**< a permutation of the dimensions, innermost first */
} topomap_layout_t;

/**
 * Parse a rank order "tp-cp-ep-dp-pp" (innermost first, Megatron's
 * --order) into @p order: names separated by '-', each at most once; the
 * dimensions left out follow in their default order. 0, or -1 with errno
 * EINVAL and a sentence in @p err.
 */
int topomap_layout_order(const char *s, topomap_par_t *order, char *err, size_t errlen);
/** Ranks of @p l, or -1 with errno EINVAL (a size < 1, ep not dividing dp,
 *  order not a permutation, more than TOPOMAP_MAX_RANKS ranks). */
int topomap_layout_nranks(const topomap_layout_t *l);
/** The coordinate of @p rank along dimension @p d (for TOPOMAP_PAR_DP:
 *  0 .. dp / ep - 1), or -1 with errno EINVAL. */
int topomap_layout_coord(const topomap_layout_t *l, int rank, topomap_par_t d);
/**
 * The group of @p rank among the groups that vary the dimensions of @p mask
 * (bit d for dimension d) and keep the others: a number 0 .. ranks / (the
 * product of their extents) - 1, the same for every member. The TP groups
 * are mask 1 << TOPOMAP_PAR_TP; the data-parallel groups of the dense
 * parameters vary CP, EP and DP. -1 with errno EINVAL.
 */
int topomap_layout_group(const topomap_layout_t *l, unsigned mask, int rank);

/**
 * One training step, either as bytes given per group (bytes mode: any
 * bytes[d] > 0) or from the model's shape (layers ... > 0). The formulas
 * and their sources are in doc/training.md.
 */
typedef struct topomap_train {
    /** Bytes mode, per step: tp, cp: the buffer each TP (ring all-reduce)
     *  and CP (ring all-gather) group reduces or gathers; dp: the gradient
     *  bytes each data-parallel group all-reduces (ring); ep: the bytes each
     *  rank sends in all-to-alls, spread evenly over its EP group; pp: the
     *  bytes each stage sends to the next, and its next sends back. */
    double bytes[TOPOMAP_PAR_DIMS];
    /** Model mode: layers, hidden size, sequence length, micro-batch size
     *  and micro-batches per step; bytes of an activation element
     *  (dtype_bytes, 2 for bf16) and of a gradient element (grad_bytes, 0:
     *  dtype_bytes); zero: 0 (all-reduce of the gradients), 1 or 2
     *  (distributed optimizer: reduce-scatter of the gradients, all-gather of
     *  the parameters), 3 (also the parameters gathered in forward and
     *  backward); experts (0: a dense model) and topk for MoE layers. */
    int layers, hidden, seq, micro_batch, micro_batches, zero, experts, topk;
    double dtype_bytes, grad_bytes;
} topomap_train_t;

/** Per-dimension totals of a synthesized step (topomap_profile_synth). */
typedef struct topomap_train_bytes {
    double bytes[TOPOMAP_PAR_DIMS]; /**< directed bytes of the step per kind of group */
    int groups[TOPOMAP_PAR_DIMS];   /**< number of groups of each kind with traffic */
} topomap_train_bytes_t;

/**
 * The profile of one training step of layout @p l: a ring (rank order inside
 * the group) for the all-reduces, all-gathers and reduce-scatters of each
 * TP, CP and DP group, all-to-all in each EP group, sends between
 * consecutive pipeline stages, with bytes and messages. @p sum (may be
 * NULL) gets the bytes per kind of group. Metadata "source" tells the
 * layout. @return a new profile (caller frees with topomap_profile_free) or
 * NULL with errno EINVAL and a sentence in @p err (a bad layout, a model
 * that does not divide: layers by pp, hidden by tp, seq by cp, experts by
 * ep), ENOMEM.
 */
topomap_profile_t *topomap_profile_synth(const topomap_layout_t *l, const topomap_train_t *m,
                                         topomap_train_bytes_t *sum, char *err, size_t errlen);

/* ======================================================================== */
/* Topologies                                                                 */
/* ======================================================================== */

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

/* ======================================================================== */
/* Allocations: the slots (node, core) a job may use                          */
/* ======================================================================== */

typedef struct topomap_alloc topomap_alloc_t;

/**
 * The allocation of a job on @p t: nodes given by the hostlist expression
 * @p hostlist in allocation order (any order, non-contiguous), and the number
 * of slots on each node by @p slots: NULL or "" for all cores of each node
 * (each node's own count, topomap_topology_node_cores(), when nodes are of
 * several types), "K" for K on every node, or Slurm's
 * SLURM_JOB_CPUS_PER_NODE syntax ("4(x3),2": one count per node). Slot s on
 * a node uses core s mod the node's cores.
 * Slots are numbered node by node in allocation order, cores ascending.
 * Errors (errno EINVAL, message in @p err): unknown hostname, a node listed
 * twice, count mismatch, zero slots.
 */
topomap_alloc_t *topomap_alloc_create(const topomap_topology_t *t, const char *hostlist,
                                      const char *slots, char *err, size_t errlen);
void topomap_alloc_free(topomap_alloc_t *a);
/** The topology @p a was made on. */
const topomap_topology_t *topomap_alloc_topology(const topomap_alloc_t *a);
int topomap_alloc_nslots(const topomap_alloc_t *a);
/** Number of nodes in the allocation. */
int topomap_alloc_nnodes(const topomap_alloc_t *a);
/** Topology node index of the @p i-th allocated node. */
int topomap_alloc_node(const topomap_alloc_t *a, int i);
/** Topology node index of slot @p s. */
int topomap_alloc_slot_node(const topomap_alloc_t *a, int s);
/** Core (0-based inside the node) of slot @p s. */
int topomap_alloc_slot_core(const topomap_alloc_t *a, int s);

/* ======================================================================== */
/* Mapping algorithms                                                         */
/* ======================================================================== */

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

/* ======================================================================== */
/* Metrics and matrix statistics                                              */
/* ======================================================================== */

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

/* ======================================================================== */
/* Process grids (Bhatele et al. 2010, "Automated mapping of regular          */
/* communication graphs on mesh interconnects", section IV)                   */
/* ======================================================================== */

#define TOPOMAP_GRID_MAXDIMS 4
/** Default weak-edge threshold: edges below this fraction of the average edge are ignored. */
#define TOPOMAP_GRID_WEAK 0.2

/** A process grid found in a profile by topomap_grid_detect(). Dimension 0 is
 *  called x, then y, z, w. */
typedef struct topomap_grid {
    int ndims;                          /**< 2..4: a grid; 0: not a grid (see why) */
    int dims[TOPOMAP_GRID_MAXDIMS];     /**< extent of each dimension */
    int periodic[TOPOMAP_GRID_MAXDIMS]; /**< 1: the dimension wraps around */
    int rank_order;  /**< 1: rank = x + dims[0] * (y + dims[1] * (z + ...)), x fastest;
                          0: another order (the coordinates of each rank say which) */
    int rank0_ignored; /**< 1: edges of rank 0 that are no grid edges were ignored
                            (collective traffic to/from rank 0) */
    long weak_edges;   /**< (undirected) edges below the threshold, ignored */
    double threshold;  /**< bytes below which an edge was weak */
    double dim_bytes[TOPOMAP_GRID_MAXDIMS]; /**< mean bytes of a directed grid entry
                                                 along each dimension */
    double dim_msgs[TOPOMAP_GRID_MAXDIMS];  /**< same for messages (0 without counts) */
    char why[192];     /**< ndims == 0: why the profile is not a grid */
} topomap_grid_t;

/**
 * The process topology analyzer: decide whether @p p is a 2D, 3D or 4D grid
 * (nearest-neighbour stencil, each dimension periodic or not) and find its
 * dimensions and the rank order, ignoring edges lighter than @p weak times
 * the average edge (<= 0: TOPOMAP_GRID_WEAK) and the traffic of rank 0 that
 * is no grid edge. libtopomap/grid_detect.c says how, and where it departs from the
 * paper. @p coords (caller-allocated, nranks * TOPOMAP_GRID_MAXDIMS ints, may
 * be NULL) receives the grid coordinates of each rank: coords[r * 4 + k].
 * O(nnz) for rank-ordered grids, O(nnz * degree^2) for permuted ones.
 * @return ndims (2..4), 0 when @p p is not a grid (@p g->why says why), or
 * -1 with errno EINVAL (NULL argument) or ENOMEM.
 */
int topomap_grid_detect(const topomap_profile_t *p, double weak, topomap_grid_t *g, int *coords);

/**
 * One line describing @p g into @p buf: "3D grid 8 x 4 x 4, periodic, x
 * fastest", "2D grid 16 x 8, open, ranks permuted", "not a grid: WHY".
 * @return the length snprintf() would write.
 */
int topomap_grid_describe(const topomap_grid_t *g, char *buf, size_t len);

/**
 * The profile a grid application would have at @p nranks ranks, from @p p
 * recorded at another count (a grid in rank order): the dimensions of
 * MPI_Dims_create(nranks, ndims), the largest extent given to the dimension
 * that was largest in @p p (ties: the slowest-varying dimension first, as
 * MPI_Cart_create lays out MPI_Dims_create's answer), the same periodicity,
 * ranks in x-fastest order, and every grid entry of dimension k carrying the
 * mean bytes (and messages) of that dimension in @p p times the ratio of the
 * new to the old face area of a subdomain, prod over j != k of
 * old_dims[j] / new_dims[j] (a fixed global domain cut into nranks boxes:
 * surface-to-volume). Traffic off the grid (rank 0's collectives, weak
 * edges) is not carried over. Metadata of @p p is kept, plus
 * "rescaled_from=N" and "grid=DIMS". @p weak as in topomap_grid_detect();
 * @p g (may be NULL) receives the new grid.
 * @return a new profile (caller frees with topomap_profile_free) or NULL with
 * errno EINVAL (not a grid, or not in rank order: the order at another count
 * cannot be predicted; @p err says which), ERANGE (no grid of nranks ranks
 * has ndims dimensions of at least 2), ENOMEM.
 */
topomap_profile_t *topomap_grid_rescale(const topomap_profile_t *p, int nranks, double weak,
                                        topomap_grid_t *g, char *err, size_t errlen);

/**
 * The one rule for a profile recorded at another rank count, which the
 * profile store (topomap_store_lookup(), topomap_store_find()) and the SPANK
 * plugin (a profile given as a file) apply: @p p as it is when it has
 * @p nranks ranks (or @p nranks < 1: no count asked), else its
 * topomap_grid_rescale() to @p nranks (default weak edges), else refused.
 * @p p is consumed: freed unless it is what is returned. @p name is the
 * profile's name in the message.
 * @return @p p, a new profile (caller frees with topomap_profile_free), or
 * NULL with errno ERANGE and @p err "profile 'NAME' was recorded with N
 * ranks, this job has M: not used" (not a grid in rank order, or no grid
 * of @p nranks ranks), EINVAL (@p p NULL) or ENOMEM.
 */
topomap_profile_t *topomap_profile_adapt(topomap_profile_t *p, int nranks, const char *name,
                                         char *err, size_t errlen);

/* ======================================================================== */
/* Mapping files                                                              */
/* ======================================================================== */

enum topomap_mapping_format {
    TOPOMAP_MAPPING_AUTO = -1, /**< reading only: by the first data line */
    TOPOMAP_MAPPING_SLOTS = 0, /**< "RANK HOSTNAME CORE" per line */
    TOPOMAP_MAPPING_HOSTFILE,  /**< SLURM_HOSTFILE: a hostname per line, rank order */
    TOPOMAP_MAPPING_RANKFILE,  /**< Open MPI rankfile: "rank R=HOST slot=CORE" */
    /** Cray MPICH's MPICH_RANK_ORDER file (MPICH_RANK_REORDER_METHOD=3, as
     *  grid_order writes it): the ranks in the order of the slots, which Cray
     *  fills node by node in allocation order, comma-separated with "A-B"
     *  ranges. Writing only. */
    TOPOMAP_MAPPING_MPICH_RANK_ORDER,
    /** srun's "map_cpu:C0,C1,..." (--cpu-bind=map_cpu:...): the core of each
     *  node's k-th task (local ids in rank order, as with SLURM_HOSTFILE and
     *  --distribution=arbitrary); cores are taken as Slurm's CPU ids, so one
     *  CPU per core. Writing only. */
    TOPOMAP_MAPPING_MAP_CPU
};
typedef enum topomap_mapping_format topomap_mapping_format_t;

/**
 * Write the placement of @p n ranks to @p f in @p format.
 * @return 0, or -1 with errno: EINVAL bad argument; EDOM the placement
 *         cannot be said in @p format: MPICH_RANK_ORDER leaves a free slot
 *         before the last used one (Cray fills nodes in order), MAP_CPU
 *         gives two nodes' k-th tasks different cores (srun takes one list);
 *         or the stream's errno.
 */
int topomap_mapping_write(FILE *f, topomap_mapping_format_t format, const topomap_alloc_t *a, int n,
                          const int *rank_to_slot);
/**
 * Read a mapping in the slots format (as written above; '#' comments) for a
 * profile of @p nranks ranks on @p t: fills node[r] and core[r].
 * Errors (errno EINVAL, "FILE:LINE: problem"): unknown hostname, core out of
 * range, rank out of range, missing or duplicate rank, malformed line, NUL
 * byte, two ranks on one core while that node has a core without a rank
 * (Slurm shares a CPU only when every CPU is busy), a path that is not a
 * regular file.
 */
int topomap_mapping_read(const char *path, const topomap_topology_t *t, int nranks,
                         int *node, int *core, char *err, size_t errlen);
/**
 * Read a mapping in @p format: TOPOMAP_MAPPING_SLOTS (as above), HOSTFILE
 * (one hostname per line in rank order, what SLURM_HOSTFILE and `topomap map
 * --format hostfile` hold: the k-th rank named on a node gets its core k, as
 * Slurm binds the k-th task of a node to its k-th CPU), RANKFILE (Open MPI's
 * "rank R=HOST slot=CORE", CORE a plain core number), or AUTO: a first data
 * line "rank R=..." is a rankfile, one field a hostfile, else slots.
 * @p path "-" is standard input. Errors as topomap_mapping_read(), and EINVAL
 * for a hostfile with more or fewer lines than @p nranks or a node with more
 * ranks than cores, or a rankfile slot that is not a core number
 * ("slot=0:1" socket:core forms).
 */
int topomap_mapping_read_format(const char *path, topomap_mapping_format_t format,
                                const topomap_topology_t *t, int nranks, int *node, int *core,
                                char *err, size_t errlen);

/* ======================================================================== */
/* Profile store                                                              */
/* ======================================================================== */

/*
 * Communication profiles keyed by name (usually the application's executable
 * name), in a store directory DIR (the plugin's profiles=, or
 * $TOPOMAP_STORE, or TOPOMAP_STORE_DEFAULT), in two scopes:
 *  - site profiles, DIR/NAME.profile, written by the store's owner (the
 *    owner of DIR: the admins) only;
 *  - user profiles, DIR/users/UID/NAME.profile, recorded by and used for user
 *    UID only: DIR/users/UID belongs to UID (mode 0700), and DIR/users is the
 *    store owner's sticky directory (mode 1777) in which each user makes his
 *    own (or the plugin does, as root, for a recording).
 * Lookup order for user UID (topomap_store_find): his own profile, then the
 * site's. A profile is only used when nobody but its owner can change it:
 * the directory writable by its owner only (DIR/users: sticky), the file a
 * regular file (links are not followed) owned by the directory's owner (or
 * root) and writable by its owner only, DIR/users/UID owned by UID. So no
 * user can change what another user's jobs read (a directory planted under
 * another user's uid is refused, not used: errno EPERM).
 *
 * A profile is the file NAME.profile in the edge-list format of
 * topomap_profile_write(), whose "# nranks=N" first line records the rank
 * count it was recorded with.
 *
 * Writes are atomic: a profile is written to a temporary file in its
 * directory, flushed to disk and renamed over NAME.profile, so readers see
 * either the old or the new complete profile, never a partial one, and when
 * several jobs store the same name at once the last rename wins. Names are 1
 * to 200 characters from [A-Za-z0-9._+-], not starting with '.' or '-'.
 *
 * Rank counts (topomap_profile_adapt()): a stored profile is used as it is
 * for a job with the same number of ranks. For another count, a profile that
 * is a process grid in rank order (topomap_grid_detect()) gives the profile
 * of the same grid application at the job's count (topomap_grid_rescale():
 * metadata "rescaled_from" and "grid" say so); any other profile is refused
 * (errno ERANGE, the message says both counts); callers report it and keep
 * the default layout. The count in the file's header is checked first: a file
 * too large to be a grid of its declared count is refused without reading
 * it.
 */

/** The store used when neither a directory nor $TOPOMAP_STORE is given. */
#define TOPOMAP_STORE_DEFAULT "/var/lib/topomap/profiles"

/** Scopes of stored profiles (topomap_store_entry_t, topomap_store_find()). */
enum topomap_store_scope { TOPOMAP_STORE_SITE = 0, TOPOMAP_STORE_USER = 1 };
typedef enum topomap_store_scope topomap_store_scope_t;

/**
 * The store directory to use: @p dir when non-NULL and non-empty, else the
 * environment variable TOPOMAP_STORE when set and non-empty, else
 * TOPOMAP_STORE_DEFAULT. The result points to @p dir, the environment or a
 * constant: valid until the environment changes; never NULL.
 */
const char *topomap_store_dir(const char *dir);

/** 1 if @p name is a valid profile name (see above), else 0. */
int topomap_store_name_valid(const char *name);

/**
 * Write the path of site profile @p name in store @p dir into @p buf (@p len
 * bytes). @return 0, or -1 with errno EINVAL (invalid name, message in
 * @p err) or ENAMETOOLONG (does not fit in @p buf).
 */
int topomap_store_path(const char *dir, const char *name, char *buf, size_t len,
                       char *err, size_t errlen);

/**
 * Write the path of user @p uid's profile @p name in store @p dir into
 * @p buf (@p name NULL: the path of his directory, DIR/users/UID).
 * @return 0, or -1 with errno EINVAL or ENAMETOOLONG as above.
 */
int topomap_store_user_path(const char *dir, uid_t uid, const char *name, char *buf,
                            size_t len, char *err, size_t errlen);

/**
 * Store @p p as site profile @p name in @p dir, atomically replacing any
 * profile of that name. Only the owner of @p dir (or root) may: others get
 * EPERM. Creates @p dir (and its parents, mode 0755) when missing, and
 * DIR/users (mode 1777) beside the site profiles. The file is made readable
 * by everyone (mode 0644) so that every user's jobs can use it.
 * @return 0, or -1 with errno EINVAL (invalid name), EPERM, or the errno of
 *         the failed mkdir/write/rename (EACCES, ENOSPC, ...), with a message
 *         in @p err. On failure no temporary file is left behind.
 */
int topomap_store_add(const char *dir, const char *name, const topomap_profile_t *p,
                      char *err, size_t errlen);

/**
 * Store @p p as user @p uid's profile @p name in @p dir (DIR/users/UID),
 * atomically as above. The caller is user @p uid himself, or root (the
 * plugin storing a recording), who creates the missing directories (DIR/users
 * mode 1777, DIR/users/UID mode 0700 owned by @p uid:@p gid) and gives the
 * file to @p uid:@p gid. No link is followed under DIR.
 * @return 0, or -1 with errno EINVAL, EPERM (DIR/users/UID is not @p uid's,
 *         or the caller is neither @p uid nor root), ENOENT (no DIR/users and
 *         the caller may not create it) or the errno of the failed write,
 *         with a message in @p err.
 */
int topomap_store_user_add(const char *dir, uid_t uid, gid_t gid, const char *name,
                           const topomap_profile_t *p, char *err, size_t errlen);

/**
 * Load site profile @p name from @p dir for a job of @p nranks ranks (@p nranks
 * <= 0: any rank count).
 * @return a new profile (caller frees with topomap_profile_free), or NULL with
 *         errno ENOENT (no such profile), EPERM (a file or directory others
 *         than its owner could have changed, see above), ERANGE (recorded for
 *         another rank count and not a grid that can be rescaled), EINVAL
 *         (invalid name, or a corrupt file: "FILE:LINE: problem" in @p err),
 *         or the errno of the failed open.
 */
topomap_profile_t *topomap_store_lookup(const char *dir, const char *name, int nranks,
                                        char *err, size_t errlen);

/**
 * The lookup order of user @p uid: his profile @p name (DIR/users/UID), else
 * the site's (DIR), for @p nranks ranks as topomap_store_lookup(). A user
 * directory that is not his is an error (EPERM), not skipped. *@p scope (if
 * non-NULL) gets TOPOMAP_STORE_USER or TOPOMAP_STORE_SITE, @p path (if
 * non-NULL, @p pathlen bytes) the file read.
 * @return a new profile, or NULL with errno as topomap_store_lookup() (ENOENT:
 *         in neither scope).
 */
topomap_profile_t *topomap_store_find(const char *dir, uid_t uid, const char *name,
                                      int nranks, topomap_store_scope_t *scope, char *path,
                                      size_t pathlen, char *err, size_t errlen);

/** One profile of a store, as listed by topomap_store_list(). */
typedef struct topomap_store_entry {
    char name[201];   /**< profile name */
    int nranks;       /**< recorded rank count, -1 if the header does not say */
    long long bytes;  /**< file size */
    long long mtime;  /**< last modification, seconds since the epoch */
    topomap_store_scope_t scope; /**< site or user */
} topomap_store_entry_t;

/**
 * List the site profiles of @p dir, sorted by name. Temporary files of writes
 * in progress, files that are not NAME.profile and files that would not be
 * used (see above) are skipped.
 * @return 0 with *@p entries (caller frees with free(); NULL when *@p n is 0)
 *         and *@p n set, or -1 with the errno of the failed opendir (ENOENT
 *         for a missing store), EPERM or ENOMEM, with a message in @p err.
 */
int topomap_store_list(const char *dir, topomap_store_entry_t **entries, size_t *n,
                       char *err, size_t errlen);

/**
 * List what user @p uid sees in @p dir: his profiles, then the site's, sorted
 * by name (his before the site's of the same name, the lookup order), each
 * with its scope. A missing DIR/users/UID lists none of his.
 * @return as topomap_store_list().
 */
int topomap_store_user_list(const char *dir, uid_t uid, topomap_store_entry_t **entries,
                            size_t *n, char *err, size_t errlen);

/**
 * Remove site profile @p name from @p dir.
 * @return 0, or -1 with errno EINVAL (invalid name), ENOENT (no such profile)
 *         or the errno of the failed unlink, with a message in @p err.
 */
int topomap_store_remove(const char *dir, const char *name, char *err, size_t errlen);

/** Remove user @p uid's profile @p name from @p dir (as topomap_store_remove()). */
int topomap_store_user_remove(const char *dir, uid_t uid, const char *name, char *err,
                              size_t errlen);

/* ======================================================================== */
/* Importers: profiles recorded by other tools                                */
/* ======================================================================== */

/** Which lines of Open MPI's monitoring files to import (bit mask). */
enum topomap_ompi_kind {
    /** "E": the application's point-to-point messages (run with
     *  pml_monitoring_enable=2; with =1 every PML message, collectives too) */
    TOPOMAP_OMPI_EXTERNAL = 1,
    /** "I": PML messages generated by collectives (pml_monitoring_enable=2) */
    TOPOMAP_OMPI_INTERNAL = 2,
    /** "S" (sent, rank -> peer) and "R" (received, peer -> rank): one-sided */
    TOPOMAP_OMPI_OSC = 4,
    /** "C": per-peer collective traffic counted by the coll component */
    TOPOMAP_OMPI_COLL = 8
};
typedef enum topomap_ompi_kind topomap_ompi_kind_t;

/**
 * Import Open MPI's monitoring output: the per-rank files PREFIX.RANK.prof
 * written by `mpirun --mca pml_monitoring_enable 2 --mca
 * pml_monitoring_enable_output 3 --mca pml_monitoring_filename PREFIX`
 * (tab-separated "E|I|S|R|C<TAB>src<TAB>dst<TAB>N bytes<TAB>M msgs sent" lines).
 * @p paths: the @p npaths files, one per rank, any order, every rank present.
 * @p kinds: OR of topomap_ompi_kind_t bits (a mask, hence unsigned); 0 means TOPOMAP_OMPI_EXTERNAL (what
 * the application sent point to point, like libtopomap-profiler's default).
 * The rank count comes from the "D MPI_COMM_WORLD procs: ..." line when
 * present, else the highest rank seen + 1. Bytes and messages of the selected
 * kinds are summed per (src, dst). The profile carries no metadata but nranks.
 * Errors (errno EINVAL, "FILE:LINE: problem" in @p err): unknown line type,
 * malformed fields, a line of another rank than the file's (name or first
 * line), two files of one rank, a missing rank, ranks beyond MPI_COMM_WORLD;
 * the errno of a file that cannot be read; ENOMEM.
 * @return a new profile (caller frees with topomap_profile_free) or NULL.
 */
topomap_profile_t *topomap_import_ompi(const char *const *paths, size_t npaths,
                                       unsigned kinds, char *err, size_t errlen);

/**
 * 1 if @p path looks like an Open MPI monitoring file (its name ends in
 * ".prof" or its first line is "# POINT TO POINT"), 0 if not, -1 with errno
 * if it cannot be opened.
 */
int topomap_import_is_ompi(const char *path);

/**
 * Import @p npaths files as one profile, whatever recorded them (what
 * `topomap profile add` calls):
 *  - all Open MPI monitoring files: topomap_import_ompi(@p ompi_kinds);
 *  - one path naming no file while PATH.0.prof exists: the monitoring PREFIX,
 *    read as PATH.0.prof, PATH.1.prof, ... up to the first missing number;
 *  - else exactly one file in a format topomap_profile_load() reads with
 *    TOPOMAP_FMT_AUTO: libtopomap-profiler's edge list (metadata kept), a
 *    dense ".mat" matrix (TreeMatch, Open MPI's profile2mat.pl), Matrix Market.
 * Errors as those functions; EINVAL when several files are given and one is
 * not a monitoring file, or none is given.
 * @return a new profile (caller frees with topomap_profile_free) or NULL.
 */
topomap_profile_t *topomap_import(const char *const *paths, size_t npaths, unsigned ompi_kinds,
                                  char *err, size_t errlen);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif /* TOPOMAP_H */
