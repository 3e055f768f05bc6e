/* SPDX-License-Identifier: BSD-3-Clause */
/* METIS's partitioners, a SIGTERM they trapped raised again (metis_call.h). */
#include <signal.h>

#include "metis_call.h"

/* METIS_ERROR is what GKlib's trap returns: the SIGTERM it swallowed goes
 * back to the process, whose handler METIS has restored by now. */
static int passed_on(int st)
{
    if (st == METIS_ERROR)
        raise(SIGTERM);
    return st;
}

int topomap_metis_kway(idx_t *nvtxs, idx_t *ncon, idx_t *xadj, idx_t *adjncy, idx_t *vwgt,
                       idx_t *vsize, idx_t *adjwgt, idx_t *nparts, real_t *tpwgts,
                       real_t *ubvec, idx_t *options, idx_t *objval, idx_t *part)
{
    return passed_on(METIS_PartGraphKway(nvtxs, ncon, xadj, adjncy, vwgt, vsize, adjwgt, nparts,
                                         tpwgts, ubvec, options, objval, part));
}

int topomap_metis_recursive(idx_t *nvtxs, idx_t *ncon, idx_t *xadj, idx_t *adjncy, idx_t *vwgt,
                            idx_t *vsize, idx_t *adjwgt, idx_t *nparts, real_t *tpwgts,
                            real_t *ubvec, idx_t *options, idx_t *objval, idx_t *part)
{
    return passed_on(METIS_PartGraphRecursive(nvtxs, ncon, xadj, adjncy, vwgt, vsize, adjwgt,
                                              nparts, tpwgts, ubvec, options, objval, part));
}
