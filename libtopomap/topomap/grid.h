/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/grid.h
 * @brief libtopomap: Process grids (Bhatele et al. 2010, "Automated mapping
 *        of regular communication graphs on mesh interconnects", section
 *        IV).
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_GRID_H
#define TOPOMAP_API_GRID_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/grid.h>"
#endif

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

#endif /* TOPOMAP_API_GRID_H */
