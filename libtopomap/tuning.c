/* SPDX-License-Identifier: BSD-3-Clause */
/* The tuning of the algorithms (tuning.h): its defaults, and the reasons for
 * them where a size was chosen rather than given. */
#include "tuning.h"

static struct topomap_tuning tuning = {
    /* 32 MiB of doubles. */
    .ohtma_dcache_max = 1L << 22,
    /* Candidates are sampled by class when there are more than FAST_SLOTS
     * (ohtma.h) ranks per node, so that candidate lists hold about as many
     * processes as with FAST_SLOTS ranks per node (see sampled_candidates in
     * ohtma_fast.c). */
    .ohtma_sample_min = 4096,
    /* A 1 MiB hop table. Above, no table is built and ohtma-fast works from
     * the coordinates (a three-dimensional torus or mesh has its own loop in
     * topomap_xchg_cost_at), same answers. Measured at 4096 nodes of the 16^3
     * torus, one slot each, side by side: coordinates 0.20 s against the 16
     * MiB table's 0.48 s (shuffled stencil), 0.30 / 0.56 s (random geometric
     * graph), 0.79 / 1.20 s (METIS mdual), but 14.0 / 11.9 s on the METIS
     * partition of copter2, whose 43 partners per rank sit on few rows of the
     * table that stay in the caches. */
    .ohtma_table_max = 1024,
    /* Candidate evaluations: a parallel region costs microseconds, much more
     * when the machine is shared. */
    .ohtma_par_work = 32768,
    /* About 1.3 s on the benchmark machine (map_auto.c). */
    .auto_work_budget = 1.3e9,
    /* See spectral_cluster.c. */
    .cpnsc_dense_max = 1024,
    /* Every tree of up to 8 leaves is searched exhaustively. */
    .tm_exact_max = 20000,
    .tm_list_max = 100000,
    /* At 65,536 ranks drb+refine is still within the budget and 3.9% better
     * than the multilevel scheme; past it its cost grows far above n log n
     * (doc/scaling.md). */
    .coarse_min = 65536,
    /* A task costs microseconds; splitting 2048 processes, milliseconds. */
    .par_min = 2048,
};

struct topomap_tuning *topomap_tuning(void)
{
    return &tuning;
}
