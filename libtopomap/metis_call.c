/* SPDX-License-Identifier: BSD-3-Clause */
/* METIS's partitioners one at a time, with SIGTERM blocked in the calling
 * thread for the call (metis_call.h says why), and OpenBLAS's idle thread
 * pool stopped on request. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include "metis_call.h"
#include "topomap.h"

/* One METIS call at a time in the process (metis_call.h says why). */
static pthread_mutex_t metis_mu = PTHREAD_MUTEX_INITIALIZER;

static void block_term(sigset_t *old)
{
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, old);
    pthread_mutex_lock(&metis_mu);
}

/* The lock released, then the caller's mask back: a SIGTERM that came
 * during the call is delivered now, unless the caller itself blocks it. */
static void restore(const sigset_t *old)
{
    pthread_mutex_unlock(&metis_mu);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

int topomap_metis_kway(idx_t *nvtxs, idx_t *ncon, idx_t *xadj, idx_t *adjncy, idx_t *vwgt,
                       idx_t *vsize, idx_t *adjwgt, idx_t *nparts, real_t *tpwgts,
                       real_t *ubvec, idx_t *options, idx_t *objval, idx_t *part)
{
    sigset_t old;
    block_term(&old);
    int st = METIS_PartGraphKway(nvtxs, ncon, xadj, adjncy, vwgt, vsize, adjwgt, nparts, tpwgts,
                                 ubvec, options, objval, part);
    restore(&old);
    return st;
}

int topomap_metis_recursive(idx_t *nvtxs, idx_t *ncon, idx_t *xadj, idx_t *adjncy, idx_t *vwgt,
                            idx_t *vsize, idx_t *adjwgt, idx_t *nparts, real_t *tpwgts,
                            real_t *ubvec, idx_t *options, idx_t *objval, idx_t *part)
{
    sigset_t old;
    block_term(&old);
    int st = METIS_PartGraphRecursive(nvtxs, ncon, xadj, adjncy, vwgt, vsize, adjwgt, nparts,
                                      tpwgts, ubvec, options, objval, part);
    restore(&old);
    return st;
}

/* OpenBLAS (pthreads build) starts its pool when it is loaded and starts it
 * again when a BLAS call asks for more than one thread; libtopomap's
 * eigensolves ask for one (spectral_eigen.c). Looked up at run time, as
 * spectral_eigen.c does: another BLAS has no such function. */
int topomap_blas_pool_stop(void)
{
    typedef int (*stop_fn)(void);
    stop_fn stop = (stop_fn)dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
    if (!stop)
        return 1;
    stop();
    return 0;
}
