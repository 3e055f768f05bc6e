/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/mapfile.h
 * @brief libtopomap: Mapping files.
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_MAPFILE_H
#define TOPOMAP_API_MAPFILE_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/mapfile.h>"
#endif

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

#endif /* TOPOMAP_API_MAPFILE_H */
