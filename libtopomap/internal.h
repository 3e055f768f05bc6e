/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: never installed. What algorithms and modules share. */
#ifndef TOPOMAP_INTERNAL_H
#define TOPOMAP_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include "topomap.h"
#include "tuning.h"

/* One mapping problem, built once by topomap_map() and handed to an algorithm.
 * All arrays are owned by topomap_map() and valid during the call. */
struct topomap_problem {
    const topomap_profile_t *profile;
    const topomap_alloc_t *alloc;
    const topomap_topology_t *topo;
    const topomap_opts_t *opts;
    topomap_graph_t g;    /* symmetric affinity graph (A + A^T, no diagonal) */
    int n;                /* ranks */
    int nslots;
    const int *slot_node; /* nslots: topology node of each slot */
    const int *slot_core; /* nslots: core of each slot */
    double deadline;      /* topomap_now() value past which to stop, 0 = none */
    /* Work accounting of auto (map_auto.c), independent of the machine and
     * of the thread count: algorithms that count their steps add them to
     * *work in work units (about a nanosecond each on the benchmark machine,
     * see TOPOMAP_WORK_*); NULL: nobody counts. An algorithm that can
     * estimate its cost before spending it declines (ECANCELED) when the
     * estimate exceeds work_limit (0: no limit). */
    double *work;
    double work_limit;
    /* A process grid already found in the profile (auto looks once for its
     * candidate list and hands it to grid: at a million ranks the search
     * costs a second) and its n x TOPOMAP_GRID_MAXDIMS coordinates; NULL:
     * grid looks itself. */
    const topomap_grid_t *grid;
    const int *grid_coords;
    /* 1: node placements inside an algorithm (treematch's) use the SumCom
     * refinement alone, not TreeMatch on every node first (auto's
     * candidates on large many-core jobs, map_auto.c); 0: as asked. */
    int quick_place;
};

/* Work units per counted step: about a nanosecond each on the benchmark
 * machine (2 cores; fitted to CPU times of `topomap map -v` at 512 to 4096
 * ranks on tori and Tianhe-3, within 30%): in the refinement, an edge summed
 * (a neighbour's weight and hops), a group looked at (a hop or a table
 * entry) and a rank searched in a pass; in drb, a vertex or edge of a METIS
 * bisection's input and a METIS call; in analytic, a flop of a Cholesky
 * factorisation or solve. */
#define TOPOMAP_WORK_EDGE 9.5
#define TOPOMAP_WORK_LOOK 3.0
#define TOPOMAP_WORK_RANK 580.0
#define TOPOMAP_WORK_METIS 135.0
#define TOPOMAP_WORK_METIS_CALL 4500.0
#define TOPOMAP_WORK_FLOP 0.45
static inline void topomap_work_add(const struct topomap_problem *pb, double units)
{
    if (pb->work)
        *pb->work += units;
}

/* Index of j in row i of a CSR graph whose rows are sorted (xadj, adj), or
 * -1 when i and j are not adjacent; O(log degree). */
static inline int64_t topomap_adj_find(const int64_t *xadj, const int *adj, int i, int j)
{
    int64_t lo = xadj[i], hi = xadj[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (adj[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < xadj[i + 1] && adj[lo] == j ? lo : -1;
}

/* The largest row length of a CSR graph. */
static inline int topomap_graph_maxdeg(const topomap_graph_t *g, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (g->xadj[i + 1] - g->xadj[i] > m)
            m = (int)(g->xadj[i + 1] - g->xadj[i]);
    return m;
}

/* Hop distance between two slots: network hops of their nodes (0 inside a node). */
static inline int topomap_slot_hops(const struct topomap_problem *pb, int s1, int s2)
{
    return topomap_topology_hops(pb->topo, pb->slot_node[s1], pb->slot_node[s2]);
}

/* Hops between coordinates ca and cb of a torus/mesh (shortest way round
 * in each wrapped dimension). */
static inline int topomap_coord_hops(const int *ca, const int *cb, const int *dims,
                                    const int *wrap, int nd)
{
    int h = 0;
    for (int k = 0; k < nd; k++) {
        int d = ca[k] > cb[k] ? ca[k] - cb[k] : cb[k] - ca[k];
        if (wrap[k] && 2 * d > dims[k])
            d = dims[k] - d;
        h += d;
    }
    return h;
}

/* An algorithm fills rank_to_slot[0..n-1] with distinct slots; 0 or -1 + errno. */
typedef int (*topomap_map_fn)(const struct topomap_problem *pb, int *rank_to_slot,
                              char *err, size_t errlen);

struct topomap_algo {
    const char *name;
    const char *summary;
    topomap_map_fn map;
    int budgeted; /* 1: keeps to the time limit itself, returning its best so far */
    int baseline; /* 1: block, cyclic, random: no node-internal placement after it */
    /* 1: auto: under the congestion objective it has refined its winner for
     * the busiest link itself, --refine does not again */
    int congestion_done;
};

/* The algorithms, one file each (libtopomap/map_NAME.c). */
int topomap_map_block(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_cyclic(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_random(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_auto(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_metis(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_ohtma(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_ohtma_fast(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_greedy(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_rcm(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_drb(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
/* drb for the multilevel scheme's groups (coarsen.c): jobs of at most
 * DRB_EXACT_MAX ranks bisected exactly, the others with one METIS try
 * (map_drb.c, "quick"). */
int topomap_map_drb_quick(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_analytic(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_analytic_bft(const struct topomap_problem *pb, int *r2s, char *err,
                             size_t errlen);
int topomap_map_analytic_anchor(const struct topomap_problem *pb, int *r2s, char *err,
                                size_t errlen);
int topomap_map_grid(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_spectral(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_spectral_plain(const struct topomap_problem *pb, int *r2s, char *err,
                               size_t errlen);
int topomap_map_spectral_ff(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_spectral_mr(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_spectral_fit(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_treematch(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
/* treematch from opts.seed alone (auto's candidates, one per seed: they are
 * judged by auto's key, not SumCom alone). */
int topomap_map_treematch_one(const struct topomap_problem *pb, int *r2s, char *err,
                              size_t errlen);
int topomap_map_treematch_paper(const struct topomap_problem *pb, int *r2s, char *err,
                                size_t errlen);
int topomap_map_exact(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
/* map_exact.c, auto's last step on small jobs: exact's search from the
 * mapping r2s of a job of at most 24 nodes with one rank per node, for at
 * most max_visits search nodes (0: none) or until pb's deadline. 1: a
 * mapping of lower hop-bytes found, in r2s and *hop_bytes; 0: none (or the
 * job is not one exact takes); -1 with errno ENOMEM. */
int topomap_exact_improve(const struct topomap_problem *pb, int *r2s, long max_visits,
                          double *hop_bytes);
/* refine_tabu.c, auto's step on small jobs: the robust tabu search from
 * r2s for iters iterations, at most work units of work (0: no cap; qap.h),
 * or until pb's deadline. 1: a mapping of lower hop-bytes found, in r2s and
 * *hop_bytes; 0: none; -1 with errno ENOMEM. */
int topomap_tabu_improve(const struct topomap_problem *pb, int *r2s, long iters, double work,
                         double *hop_bytes);

/* map_ohtma.c: the initial greedy phase of OHTMA alone (Algorithm 1, lines
 * 1-19), exposed for tests. Fills r2s[0..n-1] and, when order is not NULL,
 * order[k] = the process selected at step k (its slot is r2s[order[k]]). */
int topomap_ohtma_greedy(const struct topomap_problem *pb, int *r2s, int *order, char *err,
                         size_t errlen);

/* map_rcm.c: reverse Cuthill-McKee order of the vertices of g (every
 * component in turn) into order[0..g->n-1]. 0, or -1 on out of memory. */
int topomap_rcm_order(const topomap_graph_t *g, int *order);

/* congestion.c: fill the congestion_* fields of m for ranks placed on
 * node[] (checked to be in range); 0, or -1 with errno (EINVAL, ENOMEM). */
int topomap_congestion(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                       topomap_metrics_t *m);
/* profile.c: metadata of a profile built in the library ("nranks" is the
 * rank count and never set). 0, or -1 + errno ENOMEM. */
int topomap_profile_set_meta(topomap_profile_t *p, const char *key, const char *val);
/* Every metadata entry of src into dst (later values win). */
int topomap_profile_copy_meta(topomap_profile_t *dst, const topomap_profile_t *src);

/* topo_torus.c: the shape of a torus/mesh: fills dims[k] and wrap[k] for
 * k < min(ndims, maxdims) and returns ndims; 0 for other kinds. */
int topomap_topology_grid(const topomap_topology_t *t, int *dims, int *wrap, int maxdims);

/* sparse_chol.c: A x = b for a symmetric positive definite A with the
 * off-diagonal pattern of a symmetric graph (A_ij = -w_ij) and a diagonal
 * given at each factorisation (CHOLMOD). The pattern is analysed once by
 * _new (NULL + errno on failure); _factor takes a new diagonal (n values);
 * _solve takes nrhs right-hand sides column by column (n x nrhs, x likewise).
 * 0, or -1 + errno (EDOM: not positive definite). _free accepts NULL. */
struct topomap_chol;
struct topomap_chol *topomap_chol_new(int n, const int64_t *xadj, const int *adj,
                                      const double *w);
int topomap_chol_factor(struct topomap_chol *c, const double *diag);
int topomap_chol_solve(struct topomap_chol *c, const double *b, double *x, int nrhs);
void topomap_chol_free(struct topomap_chol *c);
/* The flops of one factorisation and the nonzeros of the factor (a solve
 * costs about 4 x lnz flops per right-hand side), from the analysis. */
void topomap_chol_cost(const struct topomap_chol *c, double *flops, double *lnz);

/* node_place.c: the node-internal placement (opts.node_place, enum
 * topomap_node_place) of r2s, in place; *gain (may be NULL): the SumCom it
 * removed. Never changes the node of a rank. 0, or -1 + errno (ENOMEM). */
int topomap_node_place(const struct topomap_problem *pb, int *r2s, int mode, double *gain,
                       char *err, size_t errlen);
/* node_rails.c: on a fabric with rails, each node's ranks permuted over its
 * GPUs so that their bytes to other nodes stay on one rail; never raises a
 * node's SumCom, never moves a rank to another node. 0, or -1 (ENOMEM). */
int topomap_node_rails(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
/* fabric_guard.c: auto's placement, or block on the rails when auto's
 * busiest NIC is above that one's (topologies with NVLink domains). */
int topomap_fabric_guard(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);

/* node_exact.c: the largest node placed by exhaustive search. */
#define TOPOMAP_EXACT_MAX 8
/* The placement of ranks 0 .. nr-1 (a symmetric graph in CSR) on slots
 * 0 .. ns-1 (ns <= TOPOMAP_EXACT_MAX) of cost table cost (ns x ns,
 * symmetric) with the least SumCom, if below *best: then written to pos,
 * *best updated, returns 1. 0 when none is below *best; -1 with errno. */
int topomap_place_exact(int nr, int ns, const int64_t *xadj, const int *adj, const double *w,
                        const double *cost, int *pos, double *best);
/* topo_gpu.c: 1 when a node of t has GPUs with a links matrix. */
int topomap_topology_gpu_links(const topomap_topology_t *t);

/* treematch_sumcom.c: the SumCom refinement of any mapping r2s on a tree
 * network (ours): TreeMatch's level refinement on every level from the top,
 * the processes under a vertex being one entity (whole sockets, nodes...
 * move). No-op on other networks. Stops at pb's deadline. 0, or -1 + errno
 * (ENOMEM) with err. */
int topomap_refine_sumcom(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);

/* topo_levels.c: the machine as a tree of levels (treematch, node
 * placement, the traffic split). */
/* Switch levels above the nodes of a tree network (fat-tree levels, or the
 * deepest node's depth in a topology.conf), -1 when the network is no tree. */
int topomap_topology_net_depth(const topomap_topology_t *t);
/* topology.c: the number of leading coordinates (topomap_topology_coords)
 * that are nested groups of nodes, outermost first: a regular tree's switch
 * levels, a dragonfly's group and switch; 0 for other networks. Lets the
 * algorithms that split by level treat every hierarchical kind alike. */
int topomap_topology_group_levels(const topomap_topology_t *t);
/* 1 when nodes hang from switches (a node's first hop is its leaf switch),
 * 0 when there are none or the nodes are the routers (tori, rings). */
int topomap_topology_leaf_switches(const topomap_topology_t *t);
/* 1 when t's hops obey the triangle inequality (lengths of shortest
 * routes: tori, meshes, Tianhe-3). */
int topomap_topology_shortest_hops(const topomap_topology_t *t);
/* keys[0 .. net_depth): the switch above node at each level from the top
 * (numbered within the level; unbalanced trees padded, see the file). */
void topomap_topology_net_path(const topomap_topology_t *t, int node, int *keys);
/* The levels of a node of type `type` (topomap_topology_node_type()):
 * their number, the object of level k holding a core (numbered within the
 * node), the level's name ("socket", "numa", "core"). */
int topomap_topology_type_nlevels(const topomap_topology_t *t, int type);
int topomap_topology_type_object(const topomap_topology_t *t, int type, int k, int core);
const char *topomap_topology_type_level_name(const topomap_topology_t *t, int type, int k);
/* The most levels of a node of any type; the same as above for type 0. */
int topomap_topology_node_nlevels(const topomap_topology_t *t);
int topomap_topology_node_object(const topomap_topology_t *t, int k, int core);
const char *topomap_topology_level_name(const topomap_topology_t *t, int k);

/* grid_rescale.c: the refusal of a profile of @p had ranks for a job of
 * @p nranks (topomap_profile_adapt's message, which the store also gives
 * from a file's header alone): -1, errno ERANGE. */
int topomap_count_refused(const char *name, int had, int nranks, char *err, size_t errlen);

/* util.c */
/* printf into err (if non-NULL) and return -1 after setting errno = e. */
int topomap_fail(char *err, size_t errlen, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Send one progress line to opts->log, if the caller gave one. */
void topomap_log(const struct topomap_problem *pb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Monotonic clock in seconds. */
double topomap_now(void);
/* Something sorted by a key, ties by index, with qsort(): the order never
 * depends on qsort's handling of ties (deterministic answers), and the
 * comparator needs no global (threads may sort at once). */
struct topomap_keyed {
    double key;
    long idx;
};
/* qsort comparator of struct topomap_keyed: key, then idx, ascending. */
int topomap_keyed_cmp(const void *a, const void *b);
/* The end of field F of struct T: where a caller's T from an older header
 * may end (doc/api.md#growth-safe-structs). */
#define TOPOMAP_FIELD_END(T, F) (offsetof(T, F) + sizeof(((T *)0)->F))
/* A caller-allocated struct that starts with its size_t size: where its
 * fields end (in order), its alignment and this header's sizeof. */
struct topomap_sized {
    const size_t *ends;
    size_t n, align, full;
};
#define TOPOMAP_SIZED(T, ENDS) {ENDS, sizeof ENDS / sizeof *ENDS, _Alignof(T), sizeof(T)}
/* 1 if @p size is the sizeof of such a struct of this or an older header:
 * @p d->full, or a field's end rounded up to the alignment; else 0. */
int topomap_size_known(const struct topomap_sized *d, size_t size);
/* The first @p size bytes of @p from (this header's struct) into the
 * caller's @p to, its size field set to @p size: 0, or -1 with errno
 * EINVAL (@p to NULL, @p size unknown) and @p to untouched. */
int topomap_sized_put(const struct topomap_sized *d, void *to, size_t size, const void *from);
/* OpenMP threads when none were asked for: 1, or OMP_NUM_THREADS's. */
int topomap_default_threads(void);
/* The threads a parallel region started here may use for a problem of n
 * entities: 1 below the tuning's par_min, or where no further region
 * may be active (inside node_place()'s loop over nodes, say); else the
 * current thread count (util.c). */
int topomap_par_threads(long n);
/* The tuning's par_trace, if set (util.c). */
void topomap_par_trace(const char *where);
/* omp_get_thread_num(), 0 without OpenMP. */
int topomap_thread_num(void);
/* 1 once the problem's deadline has passed. */
int topomap_expired(const struct topomap_problem *pb);
/* siphash.c: SipHash-2-4 of len bytes under a 16-byte key. */
uint64_t topomap_siphash24(const unsigned char key[16], const void *data, size_t len);
/* The hash of a name (node, switch) for open-addressing tables: SipHash-2-4
 * under a key drawn at random once per process, so that names cannot be
 * chosen to collide. Table order therefore differs from run to run: never
 * let it reach an output. */
uint64_t topomap_name_hash(const char *s);
/* Replace the process's key (tests: results must not depend on it). Not
 * thread-safe: only while no table is in use. */
void topomap_name_key_set(const unsigned char key[16]);
/* splitmix64's finaliser: every output bit depends on every input bit. */
uint64_t topomap_mix64(uint64_t z);
/* splitmix64: small, seedable, same stream on every platform. */
uint64_t topomap_rng_next(uint64_t *state);
/* Uniform integer in [0, n). */
uint64_t topomap_rng_below(uint64_t *state, uint64_t n);
/* qsort comparator of ints, ascending. */
int topomap_cmp_int(const void *a, const void *b);
/* qsort comparator of int64_t, ascending. */
int topomap_cmp_i64(const void *a, const void *b);
/* Strict number parsing (topomap_parse_long() and friends are public):
 * the decimal digits at the start of s (at least one, no sign, no blanks)
 * as a value <= max. Returns the number of digits read, or -1 (no digit,
 * or above max) with errno EINVAL / ERANGE. */
int topomap_scan_count(const char *s, long max, long *out);
/* The node names of @p t as a hostlist ("n[1-4]"), cut with "..." to fit
 * @p len, for messages about a name it does not have. Returns @p buf. */
const char *topomap_topology_names_hint(const topomap_topology_t *t, char *buf, size_t len);

#endif
