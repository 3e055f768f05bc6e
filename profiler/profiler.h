/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: what the C wrappers (profiler.c), the counter rows
 * (peers.c), the collective models (coll.c), the Fortran wrappers
 * (fortran.c) and the finalize (finish.c, format.c, write.c) share. Private to
 * profiler; the library is built with -fvisibility=hidden so that
 * only the MPI_* / mpi_* entry points are exported. See README.md. */
#ifndef TOPOMAP_PROFILER_H
#define TOPOMAP_PROFILER_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define TP_EXPORT __attribute__((visibility("default")))
#define TP_LIKELY(x) __builtin_expect(!!(x), 1)
#define TP_UNLIKELY(x) __builtin_expect(!!(x), 0)

#ifndef TP_FLAVOUR
#error "build with -DTP_FLAVOUR=\"openmpi\" or \"mpich\""
#endif

/* One row of counters: the peers this process sent to (MPI_COMM_WORLD
 * ranks) with their bytes and messages, in an open-addressing hash table
 * (peers.c), so that memory follows the number of peers, not the world size.
 * lastp is the entry of the last peer counted: a stencil's sends hit it or
 * the home slot, one cache line either way. */
struct tp_pent {
    int64_t peer; /* -1: empty */
    uint64_t bytes, msgs;
};
struct tp_row {
    struct tp_pent *t;
    struct tp_pent *lastp;
    uint32_t shift;  /* 32 - log2(capacity) */
    uint32_t used;
    int oom;         /* a peer could not be added: the row is incomplete */
};

struct tp_state {
    int ready;         /* set up and recording (read with acquire) */
    int failed;        /* set-up failed: record nothing, say so at finalize */
    int rank, size;    /* in MPI_COMM_WORLD */
    int multi;         /* MPI_THREAD_MULTIPLE: locked counters and tables */
    int coll;          /* TOPOMAP_PROFILE_COLLECTIVES: model collectives */
    struct tp_row p2p;  /* point-to-point, sender side */
    struct tp_row cout; /* collectives, sender side */
    struct tp_row cin;  /* collectives counted at the receiver (alltoallv) */
    uint64_t lost[2];  /* p2p bytes, msgs to processes outside MPI_COMM_WORLD */
};
extern struct tp_state tp;

/* Depth of Fortran wrappers on this thread. While a Fortran wrapper forwards
 * to the MPI library's Fortran binding, the C wrappers that binding may call
 * (MPICH's does, Open MPI's calls PMPI_* directly) must not count again: the
 * Fortran wrapper counts once, after the call. */
extern __thread int tp_fdepth __attribute__((tls_model("initial-exec")));

/* 1 when recording (setting up on first use), 0 when not. */
int tp_setup_slow(void);
static inline int tp_on(void)
{
    return TP_LIKELY(__atomic_load_n(&tp.ready, __ATOMIC_ACQUIRE)) || tp_setup_slow();
}

/* peers.c: 0, or -1 out of memory. */
int tp_row_init(struct tp_row *r);
void tp_add_slow(struct tp_row *r, int w, uint64_t bytes, uint64_t msgs);

static inline uint32_t tp_peer_home(const struct tp_row *r, int w)
{
    return ((uint32_t)w * 0x9e3779b1u) >> r->shift;
}

/* Count bytes and msgs to MPI_COMM_WORLD rank w (-1: outside the world). */
static inline void tp_add(struct tp_row *r, int w, uint64_t bytes, uint64_t msgs)
{
    if (TP_LIKELY(!tp.multi && w >= 0)) {
        struct tp_pent *e = r->lastp;
        if (!(e && e->peer == w)) {
            e = &r->t[tp_peer_home(r, w)];
            if (TP_UNLIKELY(e->peer != w)) {
                tp_add_slow(r, w, bytes, msgs);
                return;
            }
            r->lastp = e;
        }
        e->bytes += bytes;
        e->msgs += msgs;
        return;
    }
    tp_add_slow(r, w, bytes, msgs);
}

/* This row's entries sorted by peer, in a new array (caller frees), *k of
 * them; NULL when out of memory. */
struct tp_pent *tp_row_sorted(const struct tp_row *r, size_t *k);
/* Move the traffic counted at its receiver (in) to its sender's row (out),
 * one message per (receiver, sender) pair, without arrays of the world
 * size; collective over c. 0, or -1 if this rank ran out of memory. */
int tp_row_send_back(MPI_Comm c, const struct tp_row *in, struct tp_row *out);
/* Add the row's bytes and messages to sum[0], sum[1]. */
void tp_row_sum(const struct tp_row *r, uint64_t *sum);

/* One line on stderr, "topomap-profiler: ..."; the profiler never aborts
 * the program it watches. */
void tp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int tp_env_flag(const char *name);

/* Sizes of recently used datatypes, direct-mapped by handle. PMPI_Type_size
 * costs 2-4 ns, more than all the rest of a send's bookkeeping (measured with
 * msgrate -p self); the cache is cleared by every MPI_Type_free (C and Fortran
 * wrappers), the only way a handle can come to name another type. Not used in
 * MPI_THREAD_MULTIPLE programs (an entry is two words). */
#define TP_TCACHE_BITS 4
#define TP_TCACHE (1 << TP_TCACHE_BITS)
struct tp_tcache {
    uint64_t key;
    int64_t size; /* -1: empty */
};
extern struct tp_tcache tp_tc[TP_TCACHE];
uint64_t tp_bytes_slow(MPI_Datatype t, MPI_Count count);
void tp_tcache_clear(void);

static inline uint64_t tp_handle(const void *h, size_t len)
{
    uint64_t k = 0;
    __builtin_memcpy(&k, h, len < sizeof k ? len : sizeof k);
    return k;
}

/* The cache entry of a handle value (Fibonacci hashing: handles are aligned
 * pointers in Open MPI, dense integers in MPICH). */
static inline struct tp_tcache *tp_tc_slot(uint64_t k)
{
    return &tp_tc[(k * 0x9e3779b97f4a7c15ULL) >> (64 - TP_TCACHE_BITS)];
}

/* count elements of type t, in bytes (0 for a negative count or a type of
 * undefined size). */
static inline uint64_t tp_bytes(MPI_Datatype t, MPI_Count count)
{
    if (count <= 0)
        return 0;
    uint64_t k = tp_handle(&t, sizeof t);
    const struct tp_tcache *e = tp_tc_slot(k);
    if (TP_LIKELY(e->key == k && e->size >= 0 && !tp.multi))
        return (uint64_t)count * (uint64_t)e->size;
    return tp_bytes_slow(t, count);
}

/* A communicator as the models see it: its size, this process's rank in it
 * (local group for an inter-communicator) and the MPI_COMM_WORLD rank of
 * each rank of the group messages go to (the remote group of an
 * inter-communicator; -1 for a process outside MPI_COMM_WORLD). map is NULL
 * for MPI_COMM_WORLD itself (identity). Owned by the communicator's
 * attribute, valid until the communicator is freed. */
struct tp_cinfo {
    int size, rank, inter;
    const int *map;
};
/* 0, or -1 when the communicator cannot be translated (out of memory). */
int tp_comm_info(MPI_Comm comm, struct tp_cinfo *ci);
/* MPI_COMM_WORLD rank of rank r of comm's destination group, -1 if none. */
int tp_world_slow(MPI_Comm comm, int r);

/* One point-to-point send of count x t to dest of comm. */
static inline void tp_p2p(MPI_Comm comm, int dest, MPI_Datatype t, MPI_Count count)
{
    if (tp_fdepth || dest == MPI_PROC_NULL || !tp_on())
        return;
    int w = comm == MPI_COMM_WORLD ? dest : tp_world_slow(comm, dest);
    tp_add(&tp.p2p, w, tp_bytes(t, count), 1);
}

/* Whether this collective call is to be modelled (C wrappers). */
static inline int tp_coll_on(void)
{
    return !tp_fdepth && tp_on() && tp.coll;
}

/* Persistent sends: remember what a request sends at *_init, count it at
 * MPI_Start/MPI_Startall, forget it at MPI_Request_free (and when a handle is
 * reused by a receive or a MPI_PROC_NULL send). */
void tp_persist_add(MPI_Request req, MPI_Comm comm, int dest, MPI_Datatype t, MPI_Count count);
void tp_persist_start(MPI_Request req);
void tp_persist_forget(MPI_Request req);

/* Gather the counters on rank 0 and write the profile(s); collective over
 * MPI_COMM_WORLD, once (later calls do nothing). */
void tp_finish(void);

/* Collective models (coll.c): each adds what this process sends in the
 * documented algorithm. Counts of "v" collectives are C int arrays (MPI_Fint
 * is int on every platform these libraries are built for). */
void tp_coll_barrier(MPI_Comm comm);
void tp_coll_bcast(MPI_Comm comm, MPI_Count count, MPI_Datatype t, int root);
void tp_coll_reduce(MPI_Comm comm, MPI_Count count, MPI_Datatype t, int root);
void tp_coll_allreduce(MPI_Comm comm, MPI_Count count, MPI_Datatype t);
void tp_coll_gather(MPI_Comm comm, MPI_Count scount, MPI_Datatype st, int root);
void tp_coll_gatherv(MPI_Comm comm, MPI_Count scount, MPI_Datatype st, int root);
void tp_coll_scatter(MPI_Comm comm, MPI_Count scount, MPI_Datatype st, MPI_Count rcount,
                     MPI_Datatype rt, int root);
void tp_coll_scatterv(MPI_Comm comm, const int *scounts, MPI_Datatype st, int root);
void tp_coll_allgather(MPI_Comm comm, MPI_Count rcount, MPI_Datatype rt);
void tp_coll_allgatherv(MPI_Comm comm, const int *rcounts, MPI_Datatype rt);
void tp_coll_alltoall(MPI_Comm comm, MPI_Count rcount, MPI_Datatype rt);
void tp_coll_alltoallv(MPI_Comm comm, const int *rcounts, MPI_Datatype rt);
void tp_coll_reduce_scatter(MPI_Comm comm, const int *rcounts, MPI_Datatype t);
void tp_coll_reduce_scatter_block(MPI_Comm comm, MPI_Count rcount, MPI_Datatype t);
void tp_coll_scan(MPI_Comm comm, MPI_Count count, MPI_Datatype t);

/* Finalize (finish.c, format.c, write.c). A piece of the profile file:
 * len bytes at p to be written at byte offset off. */
#define TP_PIECES 6
struct tp_piece {
    uint64_t off, len;
    const void *p;
};
/* The pieces of this rank's row e[0..k) of the text (head: rank 0's header,
 * "# key=value" lines) or binary (meta: rank 0's "key=value" lines) format;
 * collective over c. *own is to be freed after writing. 0, or -1 when this
 * rank ran out of memory (its pieces are then empty). */
int tp_text_pieces(MPI_Comm c, const char *head, size_t hlen, const struct tp_pent *e, size_t k,
                   struct tp_piece *pc, void **own);
int tp_bin_pieces(MPI_Comm c, const char *meta, size_t mlen, const struct tp_pent *e, size_t k,
                  struct tp_piece *pc, void **own);
/* Whether this rank can take part in writing path (created empty by rank 0)
 * in parallel: 1 if it is no writer or sees the file. */
int tp_write_can(const char *path, int rank);
/* Write every rank's pieces into path, in parallel when shared (every rank's
 * tp_write_can), else through rank 0; over c. 1 if this rank's part went
 * well (agree on the outcome after). */
int tp_write_pieces(MPI_Comm c, const char *path, const struct tp_piece *pc, int shared);

/* select.c: pick the build that matches the program's MPI (constructor). */
void tp_select(const char *self_flavour);

#endif
