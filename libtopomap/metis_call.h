/* SPDX-License-Identifier: BSD-3-Clause */
/* METIS's partitioners, called so that a SIGTERM is not swallowed.
 *
 * Every METIS_PartGraph* call traps SIGTERM (GKlib's SIGERR: gk_sigtrap() in
 * GKlib's error.c installs gk_sigthrow, which longjmps back into the call) and
 * then returns METIS_ERROR: a `kill` or a `scancel --signal=TERM` during a
 * placement turned into "METIS_PartGraphRecursive failed (status -4)" and the
 * process went on (srun with Slurm's layout, the CLI with exit status 1).
 * These wrappers raise SIGTERM again in the calling thread when METIS returns
 * METIS_ERROR, after METIS has put the caller's handler back, so the process's
 * own disposition applies: by default it ends, as it would have without
 * METIS; a handler of the caller's runs (srun's). GKlib's internal errors take
 * the same path (gk_errexit raises SIGERR, that is SIGTERM), so they too end
 * the process as GKlib meant them to without its trap; METIS 5.1 reports bad
 * input and memory with their own codes (METIS_ERROR_INPUT,
 * METIS_ERROR_MEMORY), which are returned as they are.
 *
 * Blocking SIGTERM in the calling thread for the call does not do: the signal
 * then goes to another thread of the process (OpenBLAS's pool, started when
 * the library is loaded), where GKlib's handler longjmps into a thread that
 * has no jump buffer (a segmentation fault, measured). Same arguments and
 * return values as METIS's. */
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
