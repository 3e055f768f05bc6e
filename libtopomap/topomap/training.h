/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/training.h
 * @brief libtopomap: Training jobs: profiles from the parallel layout
 *        (profile_synth.c).
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_TRAINING_H
#define TOPOMAP_API_TRAINING_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/training.h>"
#endif

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

#endif /* TOPOMAP_API_TRAINING_H */
