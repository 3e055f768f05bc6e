/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: PMPI wrappers that record, per (sender, receiver) pair
 * of MPI_COMM_WORLD ranks, the bytes and messages of point-to-point sends, and
 * write one profile in topomap's edge-list format at MPI_Finalize.
 *
 * The spectral-clustering mapping paper (Wang et al. 2015, section 4.1) and
 * the metrics study (Bordage & Jeannot, section 4.1) record their profiles the
 * same way: a thin library around MPI through the standard profiling interface.
 * This file: state, set-up, communicator translation, persistent requests
 * and the point-to-point C wrappers; peers.c holds the counter rows,
 * finish.c and write.c what happens at MPI_Finalize. What is counted, the
 * environment variables and the limits are in README.md.
 *
 * Cost on the send path (what the 5% overhead target is about): one TLS read,
 * one flag, one comparison with MPI_COMM_WORLD, a datatype size cache lookup,
 * the last peer's entry or one hash slot, two adds.
 * Other communicators cost an attribute lookup, cached for the last one used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiler.h"

struct tp_state tp;
__thread int tp_fdepth __attribute__((tls_model("initial-exec")));

struct tp_tcache tp_tc[TP_TCACHE] = {[0 ... TP_TCACHE - 1] = {0, -1}};

static pthread_once_t tp_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t tp_lock = PTHREAD_MUTEX_INITIALIZER;
static int tp_keyval = MPI_KEYVAL_INVALID;
static MPI_Group tp_wgroup = MPI_GROUP_NULL;

void tp_warn(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "topomap-profiler: %s\n", line);
}

/* ------------------------------------------------------------------------ */
/* Set-up: lazily, at the first recorded call (or at finalize), so that no   */
/* MPI_Init wrapper is needed and MPI_Init_thread's level is already known.  */
/* ------------------------------------------------------------------------ */

int tp_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") && strcasecmp(v, "no") && strcasecmp(v, "false");
}

static void tp_do_setup(void)
{
    int init = 0, fin = 0, level = MPI_THREAD_SINGLE;
    if (PMPI_Initialized(&init) != MPI_SUCCESS || !init || PMPI_Finalized(&fin) != MPI_SUCCESS ||
        fin) {
        tp.failed = 1;
        return;
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &tp.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &tp.size);
    if (PMPI_Query_thread(&level) == MPI_SUCCESS)
        tp.multi = level == MPI_THREAD_MULTIPLE;
    tp.coll = tp_env_flag("TOPOMAP_PROFILE_COLLECTIVES");
    int bad = tp_row_init(&tp.p2p) < 0;
    if (tp.coll)
        bad |= (tp_row_init(&tp.cout) < 0) | (tp_row_init(&tp.cin) < 0);
    if (bad) {
        tp_warn("rank %d: out of memory for the counters: recording nothing", tp.rank);
        tp.failed = 1;
        return;
    }
    PMPI_Comm_group(MPI_COMM_WORLD, &tp_wgroup);
    __atomic_store_n(&tp.ready, 1, __ATOMIC_RELEASE);
}

int tp_setup_slow(void)
{
    pthread_once(&tp_once, tp_do_setup);
    return __atomic_load_n(&tp.ready, __ATOMIC_ACQUIRE);
}

uint64_t tp_bytes_slow(MPI_Datatype t, MPI_Count count)
{
    int s;
    int64_t size = 0;
    if (PMPI_Type_size(t, &s) == MPI_SUCCESS && s != MPI_UNDEFINED) {
        size = s > 0 ? s : 0;
    } else {
        MPI_Count sx;
        if (PMPI_Type_size_x(t, &sx) == MPI_SUCCESS && sx > 0)
            size = (int64_t)sx;
    }
    if (!tp.multi) {
        uint64_t k = tp_handle(&t, sizeof t);
        struct tp_tcache *e = tp_tc_slot(k);
        e->key = k;
        e->size = size;
    }
    return (uint64_t)count * (uint64_t)size;
}

void tp_tcache_clear(void)
{
    for (int i = 0; i < TP_TCACHE; i++)
        tp_tc[i].size = -1;
}

/* ------------------------------------------------------------------------ */
/* Communicator translation: rank in comm -> MPI_COMM_WORLD rank, computed   */
/* once per communicator and kept as an attribute, so MPI frees it (and our  */
/* one-entry cache forgets it) when the communicator is freed.               */
/* ------------------------------------------------------------------------ */

struct tp_cmap {
    struct tp_cinfo info;
    int map[];
};

/* The last communicator translated (single-threaded programs only). */
static MPI_Comm tp_last_comm = MPI_COMM_NULL;
static struct tp_cmap *tp_last_map;

static int tp_delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    if (tp_last_map == val) {
        tp_last_map = NULL;
        tp_last_comm = MPI_COMM_NULL;
    }
    free(val);
    return MPI_SUCCESS;
}

static struct tp_cmap *tp_cmap_build(MPI_Comm comm)
{
    int inter = 0, n = 0, rank = 0;
    MPI_Group g;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return NULL;
    if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
        return NULL;
    PMPI_Group_size(g, &n);
    PMPI_Comm_rank(comm, &rank);
    struct tp_cmap *m = malloc(sizeof *m + (size_t)n * sizeof(int));
    int *in = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (m && in) {
        for (int i = 0; i < n; i++)
            in[i] = i;
        if (PMPI_Group_translate_ranks(g, n, in, tp_wgroup, m->map) != MPI_SUCCESS) {
            free(m);
            m = NULL;
        }
    } else {
        free(m);
        m = NULL;
    }
    free(in);
    PMPI_Group_free(&g);
    if (!m)
        return NULL;
    for (int i = 0; i < n; i++)
        if (m->map[i] == MPI_UNDEFINED || m->map[i] < 0 || m->map[i] >= tp.size)
            m->map[i] = -1;
    m->info.size = n;
    m->info.rank = rank;
    m->info.inter = inter;
    m->info.map = m->map;
    return m;
}

/* The translation of comm; NULL if it cannot be made. Called with tp_lock
 * held in MPI_THREAD_MULTIPLE programs. */
static struct tp_cmap *tp_cmap_get(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (tp_keyval == MPI_KEYVAL_INVALID &&
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, tp_delete_fn, &tp_keyval, NULL) !=
            MPI_SUCCESS) {
        tp_keyval = MPI_KEYVAL_INVALID;
        return NULL;
    }
    if (PMPI_Comm_get_attr(comm, tp_keyval, &v, &flag) == MPI_SUCCESS && flag)
        return v;
    struct tp_cmap *m = tp_cmap_build(comm);
    if (m && PMPI_Comm_set_attr(comm, tp_keyval, m) != MPI_SUCCESS) {
        free(m);
        m = NULL;
    }
    return m;
}

int tp_world_slow(MPI_Comm comm, int r)
{
    struct tp_cmap *m;
    int w = -1;
    if (!tp.multi) {
        if (comm != tp_last_comm || !tp_last_map) {
            m = tp_cmap_get(comm);
            if (!m)
                return -1;
            tp_last_comm = comm;
            tp_last_map = m;
        }
        m = tp_last_map;
        return r >= 0 && r < m->info.size ? m->map[r] : -1;
    }
    pthread_mutex_lock(&tp_lock);
    m = tp_cmap_get(comm);
    if (m && r >= 0 && r < m->info.size)
        w = m->map[r];
    pthread_mutex_unlock(&tp_lock);
    return w;
}

int tp_comm_info(MPI_Comm comm, struct tp_cinfo *ci)
{
    if (comm == MPI_COMM_WORLD) {
        ci->size = tp.size;
        ci->rank = tp.rank;
        ci->inter = 0;
        ci->map = NULL;
        return 0;
    }
    if (tp.multi)
        pthread_mutex_lock(&tp_lock);
    struct tp_cmap *m = tp_cmap_get(comm);
    if (m)
        *ci = m->info;
    if (tp.multi)
        pthread_mutex_unlock(&tp_lock);
    return m ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* Persistent requests: an open-addressing table keyed by the request handle */
/* (a pointer in Open MPI, an int in MPICH), linear probing, deletion by     */
/* backward shift so that no tombstones accumulate.                          */
/* ------------------------------------------------------------------------ */

struct tp_preq {
    uint64_t key; /* 0: empty slot (no live request handle is 0 in either MPI) */
    int world;    /* destination, -1 outside MPI_COMM_WORLD */
    uint64_t bytes;
};
static struct tp_preq *tp_ptab;
static size_t tp_pcap, tp_pcount;

static uint64_t tp_req_key(MPI_Request r)
{
    return tp_handle(&r, sizeof r);
}

static size_t tp_hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

static struct tp_preq *tp_pfind(uint64_t k)
{
    if (!tp_pcap)
        return NULL;
    for (size_t i = tp_hash(k, tp_pcap);; i = (i + 1) & (tp_pcap - 1)) {
        if (tp_ptab[i].key == k)
            return &tp_ptab[i];
        if (!tp_ptab[i].key)
            return NULL;
    }
}

static int tp_pgrow(void)
{
    size_t cap = tp_pcap ? 2 * tp_pcap : 64;
    struct tp_preq *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t j = 0; j < tp_pcap; j++) {
        if (!tp_ptab[j].key)
            continue;
        size_t i = tp_hash(tp_ptab[j].key, cap);
        while (t[i].key)
            i = (i + 1) & (cap - 1);
        t[i] = tp_ptab[j];
    }
    free(tp_ptab);
    tp_ptab = t;
    tp_pcap = cap;
    return 0;
}

static void tp_pdelete(uint64_t k)
{
    struct tp_preq *e = tp_pfind(k);
    if (!e)
        return;
    size_t i = (size_t)(e - tp_ptab), j = i;
    for (;;) {
        j = (j + 1) & (tp_pcap - 1);
        if (!tp_ptab[j].key)
            break;
        size_t h = tp_hash(tp_ptab[j].key, tp_pcap);
        /* Move j back into the hole at i unless its home lies cyclically in (i, j]. */
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            tp_ptab[i] = tp_ptab[j];
            i = j;
        }
    }
    tp_ptab[i].key = 0;
    tp_pcount--;
}

void tp_persist_forget(MPI_Request req)
{
    if (tp_fdepth || !tp_on())
        return;
    if (tp.multi)
        pthread_mutex_lock(&tp_lock);
    tp_pdelete(tp_req_key(req));
    if (tp.multi)
        pthread_mutex_unlock(&tp_lock);
}

void tp_persist_add(MPI_Request req, MPI_Comm comm, int dest, MPI_Datatype t, MPI_Count count)
{
    if (tp_fdepth || !tp_on())
        return;
    if (dest == MPI_PROC_NULL) {
        tp_persist_forget(req);
        return;
    }
    int w = comm == MPI_COMM_WORLD ? dest : tp_world_slow(comm, dest);
    uint64_t k = tp_req_key(req), b = tp_bytes(t, count);
    if (!k)
        return;
    if (tp.multi)
        pthread_mutex_lock(&tp_lock);
    struct tp_preq *e = tp_pfind(k);
    if (!e && 2 * (tp_pcount + 1) > tp_pcap && tp_pgrow() < 0) {
        if (tp.multi)
            pthread_mutex_unlock(&tp_lock);
        tp_warn("rank %d: out of memory for persistent requests: one is not counted", tp.rank);
        return;
    }
    if (!e) {
        size_t i = tp_hash(k, tp_pcap);
        while (tp_ptab[i].key)
            i = (i + 1) & (tp_pcap - 1);
        e = &tp_ptab[i];
        e->key = k;
        tp_pcount++;
    }
    e->world = w;
    e->bytes = b;
    if (tp.multi)
        pthread_mutex_unlock(&tp_lock);
}

void tp_persist_start(MPI_Request req)
{
    if (tp_fdepth || !tp_on())
        return;
    if (tp.multi)
        pthread_mutex_lock(&tp_lock);
    struct tp_preq *e = tp_pfind(tp_req_key(req));
    int w = e ? e->world : 0;
    uint64_t b = e ? e->bytes : 0;
    if (tp.multi)
        pthread_mutex_unlock(&tp_lock);
    if (e)
        tp_add(&tp.p2p, w, b, 1);
}

/* ------------------------------------------------------------------------ */
/* Point-to-point C wrappers. Counted after the call succeeds, so that a     */
/* send that fails under MPI_ERRORS_RETURN is not recorded.                 */
/* ------------------------------------------------------------------------ */

#define TP_BLOCKING(NAME, CT)                                                               \
    TP_EXPORT int MPI_##NAME(const void *buf, CT count, MPI_Datatype t, int dest, int tag,   \
                             MPI_Comm comm)                                                 \
    {                                                                                       \
        int rc = PMPI_##NAME(buf, count, t, dest, tag, comm);                               \
        if (rc == MPI_SUCCESS)                                                              \
            tp_p2p(comm, dest, t, count);                                                   \
        return rc;                                                                          \
    }
#define TP_NONBLOCKING(NAME, CT)                                                            \
    TP_EXPORT int MPI_##NAME(const void *buf, CT count, MPI_Datatype t, int dest, int tag,   \
                             MPI_Comm comm, MPI_Request *req)                               \
    {                                                                                       \
        int rc = PMPI_##NAME(buf, count, t, dest, tag, comm, req);                          \
        if (rc == MPI_SUCCESS)                                                              \
            tp_p2p(comm, dest, t, count);                                                   \
        return rc;                                                                          \
    }
#define TP_PERSISTENT(NAME, CT)                                                             \
    TP_EXPORT int MPI_##NAME(const void *buf, CT count, MPI_Datatype t, int dest, int tag,   \
                             MPI_Comm comm, MPI_Request *req)                               \
    {                                                                                       \
        int rc = PMPI_##NAME(buf, count, t, dest, tag, comm, req);                          \
        if (rc == MPI_SUCCESS)                                                              \
            tp_persist_add(*req, comm, dest, t, count);                                     \
        return rc;                                                                          \
    }
#define TP_SENDRECV(SUFFIX, CT)                                                             \
    TP_EXPORT int MPI_Sendrecv##SUFFIX(const void *sbuf, CT scount, MPI_Datatype st,         \
                                       int dest, int stag, void *rbuf, CT rcount,           \
                                       MPI_Datatype rt, int source, int rtag, MPI_Comm comm, \
                                       MPI_Status *status)                                  \
    {                                                                                       \
        int rc = PMPI_Sendrecv##SUFFIX(sbuf, scount, st, dest, stag, rbuf, rcount, rt,      \
                                       source, rtag, comm, status);                         \
        if (rc == MPI_SUCCESS)                                                              \
            tp_p2p(comm, dest, st, scount);                                                 \
        return rc;                                                                          \
    }                                                                                       \
    TP_EXPORT int MPI_Sendrecv_replace##SUFFIX(void *buf, CT count, MPI_Datatype t,          \
                                               int dest, int stag, int source, int rtag,    \
                                               MPI_Comm comm, MPI_Status *status)           \
    {                                                                                       \
        int rc = PMPI_Sendrecv_replace##SUFFIX(buf, count, t, dest, stag, source, rtag,     \
                                               comm, status);                               \
        if (rc == MPI_SUCCESS)                                                              \
            tp_p2p(comm, dest, t, count);                                                   \
        return rc;                                                                          \
    }
#define TP_RECV_INIT(SUFFIX, CT)                                                            \
    TP_EXPORT int MPI_Recv_init##SUFFIX(void *buf, CT count, MPI_Datatype t, int source,     \
                                        int tag, MPI_Comm comm, MPI_Request *req)           \
    {                                                                                       \
        int rc = PMPI_Recv_init##SUFFIX(buf, count, t, source, tag, comm, req);             \
        if (rc == MPI_SUCCESS)                                                              \
            tp_persist_forget(*req); /* a recycled handle must not count */                 \
        return rc;                                                                          \
    }

#define TP_ALL_P2P(SUFFIX, CT)                                                              \
    TP_BLOCKING(Send##SUFFIX, CT)                                                           \
    TP_BLOCKING(Bsend##SUFFIX, CT)                                                          \
    TP_BLOCKING(Ssend##SUFFIX, CT)                                                          \
    TP_BLOCKING(Rsend##SUFFIX, CT)                                                          \
    TP_NONBLOCKING(Isend##SUFFIX, CT)                                                       \
    TP_NONBLOCKING(Ibsend##SUFFIX, CT)                                                      \
    TP_NONBLOCKING(Issend##SUFFIX, CT)                                                      \
    TP_NONBLOCKING(Irsend##SUFFIX, CT)                                                      \
    TP_PERSISTENT(Send_init##SUFFIX, CT)                                                    \
    TP_PERSISTENT(Bsend_init##SUFFIX, CT)                                                   \
    TP_PERSISTENT(Ssend_init##SUFFIX, CT)                                                   \
    TP_PERSISTENT(Rsend_init##SUFFIX, CT)                                                   \
    TP_SENDRECV(SUFFIX, CT)                                                                 \
    TP_RECV_INIT(SUFFIX, CT)

TP_ALL_P2P(, int)

#if MPI_VERSION >= 4
/* MPI 4.0 (MPICH 4): large-count variants and the nonblocking Sendrecv. */
TP_ALL_P2P(_c, MPI_Count)

#define TP_ISENDRECV(SUFFIX, CT)                                                            \
    TP_EXPORT int MPI_Isendrecv##SUFFIX(const void *sbuf, CT scount, MPI_Datatype st,        \
                                        int dest, int stag, void *rbuf, CT rcount,          \
                                        MPI_Datatype rt, int source, int rtag,              \
                                        MPI_Comm comm, MPI_Request *req)                    \
    {                                                                                       \
        int rc = PMPI_Isendrecv##SUFFIX(sbuf, scount, st, dest, stag, rbuf, rcount, rt,     \
                                        source, rtag, comm, req);                           \
        if (rc == MPI_SUCCESS)                                                              \
            tp_p2p(comm, dest, st, scount);                                                 \
        return rc;                                                                          \
    }                                                                                       \
    TP_EXPORT int MPI_Isendrecv_replace##SUFFIX(void *buf, CT count, MPI_Datatype t,         \
                                                int dest, int stag, int source, int rtag,   \
                                                MPI_Comm comm, MPI_Request *req)            \
    {                                                                                       \
        int rc = PMPI_Isendrecv_replace##SUFFIX(buf, count, t, dest, stag, source, rtag,    \
                                                comm, req);                                 \
        if (rc == MPI_SUCCESS)                                                              \
            tp_p2p(comm, dest, t, count);                                                   \
        return rc;                                                                          \
    }
TP_ISENDRECV(, int)
TP_ISENDRECV(_c, MPI_Count)
#endif

TP_EXPORT int MPI_Start(MPI_Request *req)
{
    MPI_Request r = *req;
    int rc = PMPI_Start(req);
    if (rc == MPI_SUCCESS)
        tp_persist_start(r);
    return rc;
}

TP_EXPORT int MPI_Startall(int n, MPI_Request reqs[])
{
    int rc = PMPI_Startall(n, reqs);
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < n; i++)
            tp_persist_start(reqs[i]);
    return rc;
}

TP_EXPORT int MPI_Request_free(MPI_Request *req)
{
    MPI_Request r = *req;
    int rc = PMPI_Request_free(req);
    if (rc == MPI_SUCCESS)
        tp_persist_forget(r);
    return rc;
}

TP_EXPORT int MPI_Type_free(MPI_Datatype *t)
{
    tp_tcache_clear(); /* even inside a Fortran wrapper: the handle dies either way */
    return PMPI_Type_free(t);
}

TP_EXPORT int MPI_Finalize(void)
{
    if (!tp_fdepth)
        tp_finish();
    return PMPI_Finalize();
}

/* ------------------------------------------------------------------------ */
/* Load time: make sure this build matches the program's MPI (select.c).    */
/* ------------------------------------------------------------------------ */

__attribute__((constructor)) static void tp_load(void)
{
    tp_select(TP_FLAVOUR);
}
