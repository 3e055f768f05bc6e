/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: the Fortran bindings (mpif.h and `use mpi`).
 *
 * Why: Open MPI 4.1's Fortran layer (libmpi_mpifh) calls PMPI_* directly, so
 * C wrappers never see Fortran traffic, nor Fortran's MPI_FINALIZE (checked
 * with `nm -D libmpi_mpifh.so`: only PMPI_Send & co. are undefined there).
 * MPICH 4.0's Fortran layer (libmpichfort) calls the C MPI_* functions, which
 * are ours: each wrapper below raises tp_fdepth while it forwards, the C
 * wrappers count nothing while it is raised, and the Fortran wrapper counts
 * once after the call. So each call is counted once whichever way the MPI
 * library's Fortran layer is built.
 *
 * Each wrapper forwards, unchanged, to the MPI library's own Fortran entry
 * point of the same name (dlsym(RTLD_NEXT)), so Fortran-only details
 * (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE sentinels, handle conversion)
 * stay the library's business; this file only reads integer arguments and
 * converts handles with PMPI_*_f2c to count. Four spellings are exported per
 * routine: mpi_send_ (gfortran), mpi_send__ (g77 style), mpi_send and
 * MPI_SEND. `use mpi_f08` calls other symbols and is not covered.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

#include "profiler.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");

#define TP_STRIP(...) __VA_ARGS__
typedef MPI_Fint F;
/* All Fortran MPI routines take pointers only; called through an
 * unprototyped pointer with the caller's own arguments (hence -std=gnu17:
 * C23 has no unprototyped functions). */
typedef void (*tp_ffn)();

static void *tp_next(void **cache, const char *sym)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, sym);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}

static void tp_missing(const char *sym, F *ierr)
{
    fprintf(stderr, "topomap-profiler: %s not found in the MPI library: call not made\n", sym);
    *ierr = MPI_ERR_INTERN;
}

/* Forward to the library: `req` (NULL for blocking routines) goes just before
 * ierr, as in every nonblocking Fortran MPI routine. */
#define TP_FORWARD(req, ...)                                                                \
    do {                                                                                    \
        if (!next) {                                                                        \
            tp_missing(sym, ierr);                                                          \
            return;                                                                         \
        }                                                                                   \
        tp_fdepth++;                                                                        \
        if (req)                                                                            \
            ((tp_ffn)next)(__VA_ARGS__, req, ierr);                                         \
        else                                                                                \
            ((tp_ffn)next)(__VA_ARGS__, ierr);                                              \
        tp_fdepth--;                                                                        \
    } while (0)

/* The four exported spellings of one routine. */
#define TP_F(BODY, lname, UNAME, PARAMS, ARGS)                                              \
    TP_EXPORT void lname##_ PARAMS                                                          \
    {                                                                                       \
        static void *f;                                                                     \
        BODY(tp_next(&f, #lname "_"), #lname "_", TP_STRIP ARGS);                           \
    }                                                                                       \
    TP_EXPORT void lname##__ PARAMS                                                         \
    {                                                                                       \
        static void *f;                                                                     \
        BODY(tp_next(&f, #lname "__"), #lname "__", TP_STRIP ARGS);                         \
    }                                                                                       \
    TP_EXPORT void lname PARAMS                                                             \
    {                                                                                       \
        static void *f;                                                                     \
        BODY(tp_next(&f, #lname), #lname, TP_STRIP ARGS);                                   \
    }                                                                                       \
    TP_EXPORT void UNAME PARAMS                                                             \
    {                                                                                       \
        static void *f;                                                                     \
        BODY(tp_next(&f, #UNAME), #UNAME, TP_STRIP ARGS);                                   \
    }

#define OK (*ierr == MPI_SUCCESS)
#define COMM(c) PMPI_Comm_f2c(*(c))
#define TYPE(t) PMPI_Type_f2c(*(t))

/* ------------------------------------------------------------------------ */
/* Point-to-point                                                            */
/* ------------------------------------------------------------------------ */

static void fw_send(void *next, const char *sym, F *req, void *buf, F *count, F *type, F *dest,
                    F *tag, F *comm, F *ierr)
{
    TP_FORWARD(req, buf, count, type, dest, tag, comm);
    if (OK)
        tp_p2p(COMM(comm), *dest, TYPE(type), *count);
}

static void fw_send_init(void *next, const char *sym, void *buf, F *count, F *type, F *dest,
                         F *tag, F *comm, F *req, F *ierr)
{
    TP_FORWARD(req, buf, count, type, dest, tag, comm);
    if (OK)
        tp_persist_add(PMPI_Request_f2c(*req), COMM(comm), *dest, TYPE(type), *count);
}

static void fw_recv_init(void *next, const char *sym, void *buf, F *count, F *type, F *src,
                         F *tag, F *comm, F *req, F *ierr)
{
    TP_FORWARD(req, buf, count, type, src, tag, comm);
    if (OK)
        tp_persist_forget(PMPI_Request_f2c(*req));
}

static void fw_sendrecv(void *next, const char *sym, void *sbuf, F *scount, F *stype, F *dest,
                        F *stag, void *rbuf, F *rcount, F *rtype, F *src, F *rtag, F *comm,
                        F *status, F *ierr)
{
    TP_FORWARD(NULL, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
               status);
    if (OK)
        tp_p2p(COMM(comm), *dest, TYPE(stype), *scount);
}

static void fw_sendrecv_replace(void *next, const char *sym, void *buf, F *count, F *type,
                                F *dest, F *stag, F *src, F *rtag, F *comm, F *status, F *ierr)
{
    TP_FORWARD(NULL, buf, count, type, dest, stag, src, rtag, comm, status);
    if (OK)
        tp_p2p(COMM(comm), *dest, TYPE(type), *count);
}

static void fw_start(void *next, const char *sym, F *req, F *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    TP_FORWARD(NULL, req);
    if (OK)
        tp_persist_start(r);
}

static void fw_startall(void *next, const char *sym, F *n, F *reqs, F *ierr)
{
    TP_FORWARD(NULL, n, reqs);
    if (OK)
        for (F i = 0; i < *n; i++)
            tp_persist_start(PMPI_Request_f2c(reqs[i]));
}

static void fw_request_free(void *next, const char *sym, F *req, F *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    TP_FORWARD(NULL, req);
    if (OK)
        tp_persist_forget(r);
}

static void fw_type_free(void *next, const char *sym, F *type, F *ierr)
{
    tp_tcache_clear();
    TP_FORWARD(NULL, type);
}

static void fw_finalize(void *next, const char *sym, F *ierr)
{
    if (!tp_fdepth)
        tp_finish();
    if (!next) {
        tp_missing(sym, ierr);
        return;
    }
    tp_fdepth++;
    ((tp_ffn)next)(ierr);
    tp_fdepth--;
}

#define P_SEND (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
#define A_SEND (NULL, buf, count, type, dest, tag, comm, ierr)
#define P_ISEND (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
#define A_ISEND (req, buf, count, type, dest, tag, comm, ierr)
#define A_INIT (buf, count, type, dest, tag, comm, req, ierr)

TP_F(fw_send, mpi_send, MPI_SEND, P_SEND, A_SEND)
TP_F(fw_send, mpi_bsend, MPI_BSEND, P_SEND, A_SEND)
TP_F(fw_send, mpi_ssend, MPI_SSEND, P_SEND, A_SEND)
TP_F(fw_send, mpi_rsend, MPI_RSEND, P_SEND, A_SEND)
TP_F(fw_send, mpi_isend, MPI_ISEND, P_ISEND, A_ISEND)
TP_F(fw_send, mpi_ibsend, MPI_IBSEND, P_ISEND, A_ISEND)
TP_F(fw_send, mpi_issend, MPI_ISSEND, P_ISEND, A_ISEND)
TP_F(fw_send, mpi_irsend, MPI_IRSEND, P_ISEND, A_ISEND)
TP_F(fw_send_init, mpi_send_init, MPI_SEND_INIT, P_ISEND, A_INIT)
TP_F(fw_send_init, mpi_bsend_init, MPI_BSEND_INIT, P_ISEND, A_INIT)
TP_F(fw_send_init, mpi_ssend_init, MPI_SSEND_INIT, P_ISEND, A_INIT)
TP_F(fw_send_init, mpi_rsend_init, MPI_RSEND_INIT, P_ISEND, A_INIT)
TP_F(fw_recv_init, mpi_recv_init, MPI_RECV_INIT, P_ISEND, A_INIT)
TP_F(fw_sendrecv, mpi_sendrecv, MPI_SENDRECV,
     (void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype,
      F *src, F *rtag, F *comm, F *status, F *ierr),
     (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status, ierr))
TP_F(fw_sendrecv_replace, mpi_sendrecv_replace, MPI_SENDRECV_REPLACE,
     (void *buf, F *count, F *type, F *dest, F *stag, F *src, F *rtag, F *comm, F *status,
      F *ierr),
     (buf, count, type, dest, stag, src, rtag, comm, status, ierr))
TP_F(fw_start, mpi_start, MPI_START, (F *req, F *ierr), (req, ierr))
TP_F(fw_startall, mpi_startall, MPI_STARTALL, (F *n, F *reqs, F *ierr), (n, reqs, ierr))
TP_F(fw_request_free, mpi_request_free, MPI_REQUEST_FREE, (F *req, F *ierr), (req, ierr))
TP_F(fw_type_free, mpi_type_free, MPI_TYPE_FREE, (F *type, F *ierr), (type, ierr))
TP_F(fw_finalize, mpi_finalize, MPI_FINALIZE, (F *ierr), (ierr))

/* ------------------------------------------------------------------------ */
/* Collectives (modelled only with TOPOMAP_PROFILE_COLLECTIVES=1, coll.c).   */
/* Each body serves the blocking routine (req NULL) and the nonblocking one. */
/* ------------------------------------------------------------------------ */

static void fw_barrier(void *next, const char *sym, F *req, F *comm, F *ierr)
{
    TP_FORWARD(req, comm);
    if (OK && tp_coll_on())
        tp_coll_barrier(COMM(comm));
}

static void fw_bcast(void *next, const char *sym, F *req, void *buf, F *count, F *type, F *root,
                     F *comm, F *ierr)
{
    TP_FORWARD(req, buf, count, type, root, comm);
    if (OK && tp_coll_on())
        tp_coll_bcast(COMM(comm), *count, TYPE(type), *root);
}

static void fw_reduce(void *next, const char *sym, F *req, void *sbuf, void *rbuf, F *count,
                      F *type, F *op, F *root, F *comm, F *ierr)
{
    TP_FORWARD(req, sbuf, rbuf, count, type, op, root, comm);
    if (OK && tp_coll_on())
        tp_coll_reduce(COMM(comm), *count, TYPE(type), *root);
}

/* Allreduce, scan and exscan share a signature; `which` picks the model. */
static void fw_allreduce_like(void *next, const char *sym, int which, F *req, void *sbuf,
                              void *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
{
    TP_FORWARD(req, sbuf, rbuf, count, type, op, comm);
    if (OK && tp_coll_on()) {
        if (which == 0)
            tp_coll_allreduce(COMM(comm), *count, TYPE(type));
        else if (which == 1)
            tp_coll_scan(COMM(comm), *count, TYPE(type));
        else
            tp_coll_reduce_scatter_block(COMM(comm), *count, TYPE(type));
    }
}
#define fw_allreduce(next, sym, ...) fw_allreduce_like(next, sym, 0, __VA_ARGS__)
#define fw_scan(next, sym, ...) fw_allreduce_like(next, sym, 1, __VA_ARGS__)
#define fw_reduce_scatter_block(next, sym, ...) fw_allreduce_like(next, sym, 2, __VA_ARGS__)

/* Gather, scatter, allgather and alltoall share a signature (allgather and
 * alltoall without the root). */
static void fw_gather_like(void *next, const char *sym, int which, F *req, void *sbuf,
                           F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
                           F *comm, F *ierr)
{
    if (which >= 2)
        TP_FORWARD(req, sbuf, scount, stype, rbuf, rcount, rtype, comm);
    else
        TP_FORWARD(req, sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    if (!OK || !tp_coll_on())
        return;
    MPI_Comm c = COMM(comm);
    if (which == 0)
        tp_coll_gather(c, *scount, TYPE(stype), *root);
    else if (which == 1)
        tp_coll_scatter(c, *scount, TYPE(stype), *rcount, TYPE(rtype), *root);
    else if (which == 2)
        tp_coll_allgather(c, *rcount, TYPE(rtype));
    else
        tp_coll_alltoall(c, *rcount, TYPE(rtype));
}
#define fw_gather(next, sym, ...) fw_gather_like(next, sym, 0, __VA_ARGS__)
#define fw_scatter(next, sym, ...) fw_gather_like(next, sym, 1, __VA_ARGS__)

static void fw_allgather(void *next, const char *sym, F *req, void *sbuf, F *scount, F *stype,
                         void *rbuf, F *rcount, F *rtype, F *comm, F *ierr)
{
    fw_gather_like(next, sym, 2, req, sbuf, scount, stype, rbuf, rcount, rtype, NULL, comm,
                   ierr);
}

static void fw_alltoall(void *next, const char *sym, F *req, void *sbuf, F *scount, F *stype,
                        void *rbuf, F *rcount, F *rtype, F *comm, F *ierr)
{
    fw_gather_like(next, sym, 3, req, sbuf, scount, stype, rbuf, rcount, rtype, NULL, comm,
                   ierr);
}

static void fw_gatherv(void *next, const char *sym, F *req, void *sbuf, F *scount, F *stype,
                       void *rbuf, F *rcounts, F *displs, F *rtype, F *root, F *comm, F *ierr)
{
    TP_FORWARD(req, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    if (OK && tp_coll_on())
        tp_coll_gatherv(COMM(comm), *scount, TYPE(stype), *root);
}

static void fw_scatterv(void *next, const char *sym, F *req, void *sbuf, F *scounts, F *displs,
                        F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr)
{
    TP_FORWARD(req, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    if (OK && tp_coll_on())
        tp_coll_scatterv(COMM(comm), scounts, TYPE(stype), *root);
}

static void fw_allgatherv(void *next, const char *sym, F *req, void *sbuf, F *scount, F *stype,
                          void *rbuf, F *rcounts, F *displs, F *rtype, F *comm, F *ierr)
{
    TP_FORWARD(req, sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    if (OK && tp_coll_on())
        tp_coll_allgatherv(COMM(comm), rcounts, TYPE(rtype));
}

static void fw_alltoallv(void *next, const char *sym, F *req, void *sbuf, F *scounts,
                         F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls, F *rtype,
                         F *comm, F *ierr)
{
    TP_FORWARD(req, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    if (OK && tp_coll_on())
        tp_coll_alltoallv(COMM(comm), rcounts, TYPE(rtype));
}

static void fw_reduce_scatter(void *next, const char *sym, F *req, void *sbuf, void *rbuf,
                              F *rcounts, F *type, F *op, F *comm, F *ierr)
{
    TP_FORWARD(req, sbuf, rbuf, rcounts, type, op, comm);
    if (OK && tp_coll_on())
        tp_coll_reduce_scatter(COMM(comm), rcounts, TYPE(type));
}

/* Blocking and nonblocking entry points of one collective. */
#define TP_FC(BODY, lname, UNAME, ilname, IUNAME, PARAMS, ARGS)                             \
    TP_F(BODY, lname, UNAME, (TP_STRIP PARAMS, F *ierr), (NULL, TP_STRIP ARGS, ierr))       \
    TP_F(BODY, ilname, IUNAME, (TP_STRIP PARAMS, F *req, F *ierr), (req, TP_STRIP ARGS, ierr))

TP_FC(fw_barrier, mpi_barrier, MPI_BARRIER, mpi_ibarrier, MPI_IBARRIER, (F *comm), (comm))
TP_FC(fw_bcast, mpi_bcast, MPI_BCAST, mpi_ibcast, MPI_IBCAST,
      (void *buf, F *count, F *type, F *root, F *comm), (buf, count, type, root, comm))
TP_FC(fw_reduce, mpi_reduce, MPI_REDUCE, mpi_ireduce, MPI_IREDUCE,
      (void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm),
      (sbuf, rbuf, count, type, op, root, comm))
#define P_RED (void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm)
#define A_RED (sbuf, rbuf, count, type, op, comm)
TP_FC(fw_allreduce, mpi_allreduce, MPI_ALLREDUCE, mpi_iallreduce, MPI_IALLREDUCE, P_RED, A_RED)
TP_FC(fw_scan, mpi_scan, MPI_SCAN, mpi_iscan, MPI_ISCAN, P_RED, A_RED)
TP_FC(fw_scan, mpi_exscan, MPI_EXSCAN, mpi_iexscan, MPI_IEXSCAN, P_RED, A_RED)
TP_FC(fw_reduce_scatter_block, mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
      mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, P_RED, A_RED)
#define P_GATHER                                                                            \
    (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm)
#define A_GATHER (sbuf, scount, stype, rbuf, rcount, rtype, root, comm)
TP_FC(fw_gather, mpi_gather, MPI_GATHER, mpi_igather, MPI_IGATHER, P_GATHER, A_GATHER)
TP_FC(fw_scatter, mpi_scatter, MPI_SCATTER, mpi_iscatter, MPI_ISCATTER, P_GATHER, A_GATHER)
#define P_ALLGATHER (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm)
#define A_ALLGATHER (sbuf, scount, stype, rbuf, rcount, rtype, comm)
TP_FC(fw_allgather, mpi_allgather, MPI_ALLGATHER, mpi_iallgather, MPI_IALLGATHER, P_ALLGATHER,
      A_ALLGATHER)
TP_FC(fw_alltoall, mpi_alltoall, MPI_ALLTOALL, mpi_ialltoall, MPI_IALLTOALL, P_ALLGATHER,
      A_ALLGATHER)
TP_FC(fw_gatherv, mpi_gatherv, MPI_GATHERV, mpi_igatherv, MPI_IGATHERV,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root,
       F *comm),
      (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm))
TP_FC(fw_scatterv, mpi_scatterv, MPI_SCATTERV, mpi_iscatterv, MPI_ISCATTERV,
      (void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
       F *comm),
      (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm))
TP_FC(fw_allgatherv, mpi_allgatherv, MPI_ALLGATHERV, mpi_iallgatherv, MPI_IALLGATHERV,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm),
      (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
TP_FC(fw_alltoallv, mpi_alltoallv, MPI_ALLTOALLV, mpi_ialltoallv, MPI_IALLTOALLV,
      (void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls,
       F *rtype, F *comm),
      (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
TP_FC(fw_reduce_scatter, mpi_reduce_scatter, MPI_REDUCE_SCATTER, mpi_ireduce_scatter,
      MPI_IREDUCE_SCATTER, (void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm),
      (sbuf, rbuf, rcounts, type, op, comm))
