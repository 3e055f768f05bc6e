/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: the sparse counter rows (peer -> bytes, messages) and
 * the finalize-time exchange that moves receiver-counted traffic back to its
 * sender without arrays of the world size.
 *
 * A row is an open-addressing table with linear probing, Fibonacci-hashed
 * MPI_COMM_WORLD ranks, at most half full, doubled when it would be more:
 * memory per rank follows the number of distinct peers (24 bytes each, times
 * 2 to 4), so a 6-neighbour stencil costs the same at 16 ranks and at 10^6.
 * The inline fast path (profiler.h) handles the last peer and a hit at the
 * home slot; everything else, and every add of an MPI_THREAD_MULTIPLE
 * program (under one lock: the table can move when it grows), comes here. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

#define TP_ROW_MIN_BITS 4

static pthread_mutex_t tp_row_lock = PTHREAD_MUTEX_INITIALIZER;

static struct tp_pent *tp_table(uint32_t bits)
{
    struct tp_pent *t = malloc(((size_t)1 << bits) * sizeof *t);
    if (t)
        for (size_t i = 0; i < (size_t)1 << bits; i++)
            t[i] = (struct tp_pent){-1, 0, 0};
    return t;
}

int tp_row_init(struct tp_row *r)
{
    *r = (struct tp_row){.shift = 32 - TP_ROW_MIN_BITS};
    r->t = tp_table(TP_ROW_MIN_BITS);
    return r->t ? 0 : -1;
}

static size_t tp_row_cap(const struct tp_row *r)
{
    return (size_t)1 << (32 - r->shift);
}

/* The entry of peer w: its own, or the empty one where it belongs. */
static struct tp_pent *tp_probe(const struct tp_row *r, int64_t w)
{
    size_t mask = tp_row_cap(r) - 1;
    for (size_t i = tp_peer_home(r, (int)w);; i = (i + 1) & mask)
        if (r->t[i].peer == w || r->t[i].peer < 0)
            return &r->t[i];
}

static int tp_grow(struct tp_row *r)
{
    uint32_t bits = 32 - r->shift + 1;
    if (bits > 31)
        return -1;
    struct tp_pent *t = tp_table(bits), *old = r->t;
    if (!t)
        return -1;
    size_t cap = tp_row_cap(r);
    r->t = t;
    r->shift--;
    r->lastp = NULL;
    for (size_t i = 0; i < cap; i++)
        if (old[i].peer >= 0)
            *tp_probe(r, old[i].peer) = old[i];
    free(old);
    return 0;
}

static void tp_row_add(struct tp_row *r, int w, uint64_t bytes, uint64_t msgs)
{
    if (!r->t || r->oom)
        return;
    struct tp_pent *e = tp_probe(r, w);
    if (e->peer < 0) {
        if (2 * ((size_t)r->used + 1) > tp_row_cap(r)) {
            if (tp_grow(r) < 0) {
                r->oom = 1;
                tp_warn("rank %d: out of memory for the counters of %u peers: "
                        "no profile will be written", tp.rank, r->used + 1);
                return;
            }
            e = tp_probe(r, w);
        }
        e->peer = w;
        r->used++;
    }
    e->bytes += bytes;
    e->msgs += msgs;
    if (!tp.multi)
        r->lastp = e;
}

void tp_add_slow(struct tp_row *r, int w, uint64_t bytes, uint64_t msgs)
{
    if (w < 0) {
        if (tp.multi) {
            __atomic_fetch_add(&tp.lost[0], bytes, __ATOMIC_RELAXED);
            __atomic_fetch_add(&tp.lost[1], msgs, __ATOMIC_RELAXED);
        } else {
            tp.lost[0] += bytes;
            tp.lost[1] += msgs;
        }
        return;
    }
    if (!tp.multi) {
        tp_row_add(r, w, bytes, msgs);
        return;
    }
    pthread_mutex_lock(&tp_row_lock);
    tp_row_add(r, w, bytes, msgs);
    pthread_mutex_unlock(&tp_row_lock);
}

static int tp_by_peer(const void *a, const void *b)
{
    int64_t x = ((const struct tp_pent *)a)->peer, y = ((const struct tp_pent *)b)->peer;
    return (x > y) - (x < y);
}

struct tp_pent *tp_row_sorted(const struct tp_row *r, size_t *k)
{
    struct tp_pent *e = malloc((r->used ? r->used : 1) * sizeof *e);
    *k = 0;
    if (!e)
        return NULL;
    for (size_t i = 0; r->t && i < tp_row_cap(r); i++)
        if (r->t[i].peer >= 0)
            e[(*k)++] = r->t[i];
    qsort(e, *k, sizeof *e, tp_by_peer);
    return e;
}

enum { TP_TAG_BACK = 7103 };

/* The sparse exchange is Hoefler, Siebert & Lumsdaine's NBX ("Scalable
 * communication protocols for dynamic sparse data exchange", PPoPP 2010,
 * section 3.2): synchronous sends, receive whatever arrives, and once every
 * send of this rank has been matched, a nonblocking barrier; when the barrier
 * completes every message has been received. No rank learns the world size's
 * worth of counts, and each rank sends and receives one message per peer. */
int tp_row_send_back(MPI_Comm c, const struct tp_row *in, struct tp_row *out)
{
    size_t k = 0;
    struct tp_pent *e = tp_row_sorted(in, &k);
    MPI_Request *req = malloc((k ? k : 1) * sizeof *req);
    int bad = !e || !req;
    if (bad)
        k = 0;
    for (size_t i = 0; i < k; i++)
        PMPI_Issend(&e[i].bytes, 2, MPI_UINT64_T, (int)e[i].peer, TP_TAG_BACK, c, &req[i]);
    MPI_Request bar = MPI_REQUEST_NULL;
    size_t sent = 0;
    for (int done = 0, barrier = 0; !done;) {
        int flag = 0;
        MPI_Status st;
        PMPI_Iprobe(MPI_ANY_SOURCE, TP_TAG_BACK, c, &flag, &st);
        if (flag) {
            uint64_t v[2];
            PMPI_Recv(v, 2, MPI_UINT64_T, st.MPI_SOURCE, TP_TAG_BACK, c, MPI_STATUS_IGNORE);
            tp_add_slow(out, st.MPI_SOURCE, v[0], v[1]);
        }
        if (!barrier) {
            int flag2 = 1;
            while (sent < k && flag2) {
                PMPI_Test(&req[sent], &flag2, MPI_STATUS_IGNORE);
                sent += (size_t)flag2;
            }
            if (sent == k) {
                PMPI_Ibarrier(c, &bar);
                barrier = 1;
            }
        } else {
            PMPI_Test(&bar, &done, MPI_STATUS_IGNORE);
        }
    }
    free(req);
    free(e);
    return bad ? -1 : 0;
}

void tp_row_sum(const struct tp_row *r, uint64_t *sum)
{
    for (size_t i = 0; r->t && i < tp_row_cap(r); i++)
        if (r->t[i].peer >= 0) {
            sum[0] += r->t[i].bytes;
            sum[1] += r->t[i].msgs;
        }
}
