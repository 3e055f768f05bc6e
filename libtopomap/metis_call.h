/* SPDX-License-Identifier: BSD-3-Clause */
/* METIS's partitioners, called so that a SIGTERM neither vanishes nor hangs
 * the process.
 *
 * Every METIS_PartGraph* call traps SIGTERM (GKlib's SIGERR: gk_sigtrap() in
 * GKlib's error.c installs gk_sigthrow, which longjmps back into the call)
 * and returns METIS_ERROR. A `kill` during a placement therefore turned into
 * "METIS_PartGraphRecursive failed (status -4)" and the process went on (srun
 * with Slurm's layout, the CLI with exit status 1); and when the signal came
 * while METIS was inside malloc, the longjmp left malloc's lock held and
 * METIS's own clean-up then waited on it for ever (seen: `topomap map` hung
 * in gk_malloc_cleanup -> free). These wrappers block SIGTERM in the calling
 * thread for the length of the call, so GKlib's handler never runs there,
 * and restore the caller's mask after it: a SIGTERM that came meanwhile is
 * delivered then, to the process's own disposition (by default it ends the
 * process, exit status 143).
 *
 * A process-directed SIGTERM goes to a thread that does not block it: in a
 * process whose other threads do not block SIGTERM, it may reach one of them
 * during the call and meet GKlib's handler there, which crashes the process
 * (SIGSEGV; measured with OpenBLAS's thread pool): it ends, but not cleanly.
 * The CLI and the plugin stop OpenBLAS's idle pool first
 * (topomap_blas_pool_stop()), so that the mapping thread is the only one;
 * auto's candidates side by side (auto_batch.c) block SIGTERM in each of
 * their threads.
 *
 * Threads: the calls are serialised (a process-wide lock), for two reasons
 * found in METIS 5.1.0 as Debian builds it (libmetis.so.5):
 *  - its random numbers come from the C library's rand(), seeded by srand()
 *    at the start of every call (METIS_OPTION_SEED): one stream for the
 *    whole process, so two calls at once draw from each other's and their
 *    partitions depend on the timing (seen: drb's second seed gave another
 *    mapping with two threads); one at a time, each call's stream is its
 *    own seed's, and the answers are those of one thread;
 *  - GKlib keeps its memory core (gk_malloc's list of what to free), its
 *    jump buffers (gk_jbufs, gk_cur_jbufs: TLS symbols) and the handlers
 *    it saves in thread-local storage, but signal() sets process-wide
 *    dispositions: two overlapping calls restore each other's, and
 *    gk_sigthrow could stay installed after both have ended.
 * So METIS itself does not run in parallel; what surrounds it in each
 * caller (refinements, placements, scoring) does.
 * Same arguments and return values as METIS's. */
#ifndef TOPOMAP_METIS_CALL_H
#define TOPOMAP_METIS_CALL_H

#include <metis.h>

int topomap_metis_kway(idx_t *nvtxs, idx_t *ncon, idx_t *xadj, idx_t *adjncy, idx_t *vwgt,
                       idx_t *vsize, idx_t *adjwgt, idx_t *nparts, real_t *tpwgts,
                       real_t *ubvec, idx_t *options, idx_t *objval, idx_t *part);
int topomap_metis_recursive(idx_t *nvtxs, idx_t *ncon, idx_t *xadj, idx_t *adjncy, idx_t *vwgt,
                            idx_t *vsize, idx_t *adjwgt, idx_t *nparts, real_t *tpwgts,
                            real_t *ubvec, idx_t *options, idx_t *objval, idx_t *part);

#endif
