/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: collectives counted as the point-to-point messages of
 * a model algorithm (only with TOPOMAP_PROFILE_COLLECTIVES=1; written to a
 * separate file so that the default profile stays point-to-point only).
 *
 * The real algorithm depends on the MPI library, its version, the message
 * size and tuning; what matters for placement is which pairs talk and how
 * much, so each collective gets one classic algorithm, among those MPICH
 * chooses from (Thakur, Rabenseifner & Gropp, "Optimization of Collective
 * Communication Operations in MPICH", IJHPCA 19(1), 2005). Ranks below are
 * relative to the root (r = (rank - root) mod n) for rooted collectives;
 * lowbit(r) = r & -r.
 *  - barrier: dissemination, round k sends an empty message to rank + 2^k.
 *  - bcast: binomial tree, r sends the whole buffer to r + 2^k for every
 *    2^k < lowbit(r) (all 2^k < n at the root).
 *  - reduce: binomial tree, r != 0 sends the whole buffer to r - lowbit(r).
 *  - gather: binomial tree, r != 0 sends its subtree's blocks,
 *    min(lowbit(r), n - r) of them, to r - lowbit(r).
 *  - scatter: binomial tree, r sends to each child c = r + 2^k the
 *    min(2^k, n - c) blocks of c's subtree.
 *  - gatherv, scatterv: linear, straight to / from the root (block sizes
 *    differ per rank and only the root knows them all).
 *  - allreduce, scan, exscan: recursive doubling, each round sends the whole
 *    buffer to rank XOR 2^k; allreduce on a non-power-of-two size first folds
 *    the 2*rem first ranks pairwise (even to odd) and unfolds at the end.
 *  - allgather, allgatherv: ring, n - 1 steps, each sends one block to
 *    rank + 1.
 *  - alltoall, reduce_scatter, reduce_scatter_block: pairwise exchange, one
 *    block to each other rank.
 *  - alltoallv: pairwise exchange, counted at the receiver from recvcounts
 *    (always valid, unlike sendcounts with MPI_IN_PLACE, whose Fortran
 *    sentinel this library would otherwise have to recognise) and moved to
 *    the sender's row at finalize.
 * Zero-byte messages are not counted (they carry nothing to place), except
 * barrier's.
 * Not counted: inter-communicator collectives, alltoallw, neighbourhood
 * collectives, persistent collectives (MPI 4) and the MPI 4 large-count "_c"
 * collectives. Nonblocking collectives are counted when they are started.
 */
#include <stdint.h>

#include "profiler.h"

#define TP_STRIP(...) __VA_ARGS__

/* One message of b bytes to rank `to` of the communicator. */
static void tp_snd(const struct tp_cinfo *ci, int to, uint64_t b)
{
    if (!b)
        return;
    tp_add(&tp.cout, ci->map ? ci->map[to] : to, b, 1);
}

/* The communicator if it is modelled: an intra-communicator of 2+ ranks. */
static int tp_intra(MPI_Comm comm, struct tp_cinfo *ci)
{
    return tp_comm_info(comm, ci) == 0 && !ci->inter && ci->size > 1;
}

static int tp_lowbit(int r)
{
    return r & -r;
}

void tp_coll_barrier(MPI_Comm comm)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci))
        return;
    for (long m = 1; m < ci.size; m <<= 1) {
        int to = (int)((ci.rank + m) % ci.size);
        tp_add(&tp.cout, ci.map ? ci.map[to] : to, 0, 1);
    }
}

void tp_coll_bcast(MPI_Comm comm, MPI_Count count, MPI_Datatype t, int root)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci) || root < 0 || root >= ci.size)
        return;
    uint64_t b = tp_bytes(t, count);
    int n = ci.size, r = (ci.rank - root + n) % n;
    long lim = r ? tp_lowbit(r) : (long)n;
    for (long m = 1; m < lim && r + m < n; m <<= 1)
        tp_snd(&ci, (int)((r + m + root) % n), b);
}

void tp_coll_reduce(MPI_Comm comm, MPI_Count count, MPI_Datatype t, int root)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci) || root < 0 || root >= ci.size)
        return;
    int n = ci.size, r = (ci.rank - root + n) % n;
    if (r)
        tp_snd(&ci, (r - tp_lowbit(r) + root) % n, tp_bytes(t, count));
}

void tp_coll_gather(MPI_Comm comm, MPI_Count scount, MPI_Datatype st, int root)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci) || root < 0 || root >= ci.size)
        return;
    int n = ci.size, r = (ci.rank - root + n) % n;
    if (!r)
        return;
    int sub = tp_lowbit(r) < n - r ? tp_lowbit(r) : n - r;
    tp_snd(&ci, (r - tp_lowbit(r) + root) % n, (uint64_t)sub * tp_bytes(st, scount));
}

void tp_coll_gatherv(MPI_Comm comm, MPI_Count scount, MPI_Datatype st, int root)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci) || root < 0 || root >= ci.size || ci.rank == root)
        return;
    tp_snd(&ci, root, tp_bytes(st, scount));
}

void tp_coll_scatter(MPI_Comm comm, MPI_Count scount, MPI_Datatype st, MPI_Count rcount,
                     MPI_Datatype rt, int root)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci) || root < 0 || root >= ci.size)
        return;
    int n = ci.size, r = (ci.rank - root + n) % n;
    /* The root's send arguments are the significant ones there (its receive
     * buffer may be MPI_IN_PLACE); elsewhere only the receive ones are. */
    uint64_t blk = r ? tp_bytes(rt, rcount) : tp_bytes(st, scount);
    long lim = r ? tp_lowbit(r) : (long)n;
    for (long m = 1; m < lim && r + m < n; m <<= 1) {
        long c = r + m, sub = m < n - c ? m : n - c;
        tp_snd(&ci, (int)((c + root) % n), (uint64_t)sub * blk);
    }
}

void tp_coll_scatterv(MPI_Comm comm, const int *scounts, MPI_Datatype st, int root)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci) || root < 0 || root >= ci.size || ci.rank != root)
        return;
    for (int j = 0; j < ci.size; j++)
        if (j != root)
            tp_snd(&ci, j, tp_bytes(st, scounts[j]));
}

void tp_coll_allreduce(MPI_Comm comm, MPI_Count count, MPI_Datatype t)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci))
        return;
    uint64_t b = tp_bytes(t, count);
    int n = ci.size, me = ci.rank, pof2 = 1;
    while (pof2 <= n / 2)
        pof2 *= 2;
    int rem = n - pof2, newrank;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            tp_snd(&ci, me + 1, b); /* fold: the even rank hands its data over */
            newrank = -1;
        } else {
            newrank = me / 2;
        }
    } else {
        newrank = me - rem;
    }
    if (newrank >= 0)
        for (int m = 1; m < pof2; m <<= 1) {
            int nd = newrank ^ m;
            tp_snd(&ci, nd < rem ? 2 * nd + 1 : nd + rem, b);
        }
    if (me < 2 * rem && me % 2 == 1)
        tp_snd(&ci, me - 1, b); /* unfold: the result goes back */
}

void tp_coll_scan(MPI_Comm comm, MPI_Count count, MPI_Datatype t)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci))
        return;
    uint64_t b = tp_bytes(t, count);
    for (long m = 1; m < ci.size; m <<= 1) {
        long to = ci.rank ^ m;
        if (to < ci.size)
            tp_snd(&ci, (int)to, b);
    }
}

void tp_coll_allgather(MPI_Comm comm, MPI_Count rcount, MPI_Datatype rt)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci))
        return;
    uint64_t b = tp_bytes(rt, rcount);
    if (b)
        tp_add(&tp.cout, ci.map ? ci.map[(ci.rank + 1) % ci.size] : (ci.rank + 1) % ci.size,
               (uint64_t)(ci.size - 1) * b, (uint64_t)(ci.size - 1));
}

void tp_coll_allgatherv(MPI_Comm comm, const int *rcounts, MPI_Datatype rt)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci))
        return;
    int n = ci.size, right = (ci.rank + 1) % n;
    /* Step s forwards block (rank - s) mod n, s = 0 .. n-2: every block but
     * the right neighbour's own. */
    for (int s = 0; s < n - 1; s++)
        tp_snd(&ci, right, tp_bytes(rt, rcounts[(ci.rank - s + n) % n]));
}

void tp_coll_alltoall(MPI_Comm comm, MPI_Count rcount, MPI_Datatype rt)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci))
        return;
    uint64_t b = tp_bytes(rt, rcount);
    for (int j = 0; j < ci.size; j++)
        if (j != ci.rank)
            tp_snd(&ci, j, b);
}

void tp_coll_alltoallv(MPI_Comm comm, const int *rcounts, MPI_Datatype rt)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci))
        return;
    for (int j = 0; j < ci.size; j++) {
        uint64_t b = j != ci.rank ? tp_bytes(rt, rcounts[j]) : 0;
        if (b)
            tp_add(&tp.cin, ci.map ? ci.map[j] : j, b, 1);
    }
}

void tp_coll_reduce_scatter(MPI_Comm comm, const int *rcounts, MPI_Datatype t)
{
    struct tp_cinfo ci;
    if (!tp_intra(comm, &ci))
        return;
    for (int j = 0; j < ci.size; j++)
        if (j != ci.rank)
            tp_snd(&ci, j, tp_bytes(t, rcounts[j]));
}

void tp_coll_reduce_scatter_block(MPI_Comm comm, MPI_Count rcount, MPI_Datatype t)
{
    tp_coll_alltoall(comm, rcount, t);
}

/* ------------------------------------------------------------------------ */
/* C wrappers, blocking and nonblocking.                                    */
/* ------------------------------------------------------------------------ */

#define TP_COLL(NAME, INAME, PARAMS, ARGS, MODEL)                                           \
    TP_EXPORT int MPI_##NAME(TP_STRIP PARAMS)                                                \
    {                                                                                       \
        int rc = PMPI_##NAME(TP_STRIP ARGS);                                                 \
        if (rc == MPI_SUCCESS && tp_coll_on())                                              \
            MODEL;                                                                          \
        return rc;                                                                          \
    }                                                                                       \
    TP_EXPORT int MPI_##INAME(TP_STRIP PARAMS, MPI_Request *req)                             \
    {                                                                                       \
        int rc = PMPI_##INAME(TP_STRIP ARGS, req);                                           \
        if (rc == MPI_SUCCESS && tp_coll_on())                                              \
            MODEL;                                                                          \
        return rc;                                                                          \
    }

TP_COLL(Barrier, Ibarrier, (MPI_Comm comm), (comm), tp_coll_barrier(comm))
TP_COLL(Bcast, Ibcast, (void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm),
        (buf, count, t, root, comm), tp_coll_bcast(comm, count, t, root))
TP_COLL(Reduce, Ireduce,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, int root,
         MPI_Comm comm),
        (sbuf, rbuf, count, t, op, root, comm), tp_coll_reduce(comm, count, t, root))
TP_COLL(Allreduce, Iallreduce,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, count, t, op, comm), tp_coll_allreduce(comm, count, t))
TP_COLL(Scan, Iscan,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, count, t, op, comm), tp_coll_scan(comm, count, t))
TP_COLL(Exscan, Iexscan,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, count, t, op, comm), tp_coll_scan(comm, count, t))
TP_COLL(Gather, Igather,
        (const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt,
         int root, MPI_Comm comm),
        (sbuf, scount, st, rbuf, rcount, rt, root, comm), tp_coll_gather(comm, scount, st, root))
TP_COLL(Gatherv, Igatherv,
        (const void *sbuf, int scount, MPI_Datatype st, void *rbuf, const int rcounts[],
         const int displs[], MPI_Datatype rt, int root, MPI_Comm comm),
        (sbuf, scount, st, rbuf, rcounts, displs, rt, root, comm),
        tp_coll_gatherv(comm, scount, st, root))
TP_COLL(Scatter, Iscatter,
        (const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt,
         int root, MPI_Comm comm),
        (sbuf, scount, st, rbuf, rcount, rt, root, comm),
        tp_coll_scatter(comm, scount, st, rcount, rt, root))
TP_COLL(Scatterv, Iscatterv,
        (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype st, void *rbuf,
         int rcount, MPI_Datatype rt, int root, MPI_Comm comm),
        (sbuf, scounts, displs, st, rbuf, rcount, rt, root, comm),
        tp_coll_scatterv(comm, scounts, st, root))
TP_COLL(Allgather, Iallgather,
        (const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt,
         MPI_Comm comm),
        (sbuf, scount, st, rbuf, rcount, rt, comm), tp_coll_allgather(comm, rcount, rt))
TP_COLL(Allgatherv, Iallgatherv,
        (const void *sbuf, int scount, MPI_Datatype st, void *rbuf, const int rcounts[],
         const int displs[], MPI_Datatype rt, MPI_Comm comm),
        (sbuf, scount, st, rbuf, rcounts, displs, rt, comm),
        tp_coll_allgatherv(comm, rcounts, rt))
TP_COLL(Alltoall, Ialltoall,
        (const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt,
         MPI_Comm comm),
        (sbuf, scount, st, rbuf, rcount, rt, comm), tp_coll_alltoall(comm, rcount, rt))
TP_COLL(Alltoallv, Ialltoallv,
        (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype st, void *rbuf,
         const int rcounts[], const int rdispls[], MPI_Datatype rt, MPI_Comm comm),
        (sbuf, scounts, sdispls, st, rbuf, rcounts, rdispls, rt, comm),
        tp_coll_alltoallv(comm, rcounts, rt))
TP_COLL(Reduce_scatter, Ireduce_scatter,
        (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype t, MPI_Op op,
         MPI_Comm comm),
        (sbuf, rbuf, rcounts, t, op, comm), tp_coll_reduce_scatter(comm, rcounts, t))
TP_COLL(Reduce_scatter_block, Ireduce_scatter_block,
        (const void *sbuf, void *rbuf, int rcount, MPI_Datatype t, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, rcount, t, op, comm), tp_coll_reduce_scatter_block(comm, rcount, t))
