/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: never installed. The tuning of the algorithms: the
 * sizes at which one switches between two ways of computing (most give the
 * same answers either way) and the hooks that trace their steps, which only
 * the tests change. One struct behind an accessor rather than variables:
 * libtopomap.so exports no mutable state (doc/architecture.md, "The
 * library's surface"), and the tests, which link libtopomap-internal.la,
 * reach it as the library does. Process-wide, like the variables were: a
 * test changes it between calls, never while a mapping runs. */
#ifndef TOPOMAP_TUNING_H
#define TOPOMAP_TUNING_H

struct topomap_tuning {
    /* map_ohtma.c: the largest n x nodes cost cache of phase 2 (entries);
     * beyond it costs are recomputed, same values. */
    long ohtma_dcache_max;
    /* ohtma-fast samples its candidates above this many ranks. */
    int ohtma_sample_min;
    /* ohtma-fast on tori and meshes of more nodes than this works without a
     * hop table, from the coordinates (same answers). */
    int ohtma_table_max;
    /* The work below which a per-step loop of OHTMA runs without a parallel
     * region (PAR_WORK in ohtma.h; does not change results). */
    long ohtma_par_work;
    /* auto's work budget in work units (map_auto.c, TOPOMAP_WORK_* in
     * internal.h). */
    double auto_work_budget;
    /* Spectral problems of up to this many ranks use the dense eigensolver
     * (LAPACK), larger ones ARPACK (spectral_eigen.c). */
    int cpnsc_dense_max;
    /* treematch_group.c: an exhaustive search over the partitions runs when
     * there are at most tm_exact_max of them, the paper's list of all groups
     * when there are at most tm_list_max groups. */
    long tm_exact_max, tm_list_max;
    /* map_auto.c: above this many ranks, where no grid is found, the
     * multilevel scheme (coarsen.c) replaces drb+refine. */
    int coarse_min;
    /* Subproblems of at least this many processes run as OpenMP tasks or
     * loops of their own (treematch_kpart.c, treematch_refine.c); results
     * do not depend on it: tests lower it so that the parallel paths run on
     * small cases. */
    int par_min;
    /* map_drb.c: called at every split of dual recursive bisection with the
     * topology nodes of the two halves, their slots and the ranks each
     * receives. NULL outside tests. */
    void (*drb_trace)(const int *topo_nodes_a, int na, const int *topo_nodes_b, int nb, int cap_a,
                      int cap_b, int ranks_a, int ranks_b);
    /* Called (from any thread) each time a parallel path of par_min runs
     * with two threads or more: where says which ("kpart level", "kpart
     * split", "kpart pairs", "sumcom sweep"). NULL outside tests. */
    void (*par_trace)(const char *where);
    /* analytic_legal.c: called for every migration of vertex v from bin a to
     * bin b. NULL outside tests. */
    void (*an_move_trace)(int v, int a, int b);
};

/* The process's tuning (tuning.c), the defaults until a test changes them.
 * Hidden: declared here, not in topomap.h. */
struct topomap_tuning *topomap_tuning(void);

#endif
