/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: putting every rank's pieces of the profile at their
 * offsets in one file, without funnelling the file through one rank.
 *
 * Each rank knows where its rows go (an MPI_Exscan of their sizes, format.c)
 * and hands TP_PIECES (offset, length, data) pieces here. Consecutive ranks'
 * pieces are consecutive in the file, so ranks are taken in groups of
 * TOPOMAP_PROFILE_GROUP consecutive ranks (default 256): the first of each,
 * the writer, receives its group's pieces (memory: the group's rows, whatever
 * the world size) and writes each piece of the group as one block with
 * MPI-IO (on MPI_COMM_SELF: no collective over the world, and ROMIO's
 * collective writes gather every process's offsets on every process, arrays
 * of the world size). When a writer cannot see the file rank 0 created
 * (TOPOMAP_PROFILE_OUT on rank 0's local disk), or with
 * TOPOMAP_PROFILE_WRITE=rank0, the only writer is rank 0, which writes each
 * rank's pieces as they arrive: one rank's pieces in memory at a time, time
 * linear in the world size. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiler.h"

enum { TP_TAG_PIECES = 7101, TP_TAG_DATA = 7102 };

static int tp_group_size(void)
{
    const char *v = getenv("TOPOMAP_PROFILE_GROUP");
    long g = v && *v ? strtol(v, NULL, 10) : 256;
    return g >= 1 && g <= INT_MAX ? (int)g : 256;
}

int tp_write_can(const char *path, int rank)
{
    const char *how = getenv("TOPOMAP_PROFILE_WRITE");
    struct stat st;
    if (how && !strcmp(how, "rank0"))
        return 0;
    return rank % tp_group_size() || stat(path, &st) == 0;
}

/* A member's pieces to its writer: their (offset, length) pairs, then their
 * bytes in one message; a length of UINT64_MAX when out of memory. */
static void tp_send_pieces(MPI_Comm c, const struct tp_piece *pc, int to)
{
    uint64_t hd[2 * TP_PIECES], tot = 0;
    for (int i = 0; i < TP_PIECES; i++) {
        hd[2 * i] = pc[i].off;
        hd[2 * i + 1] = pc[i].len;
        tot += pc[i].len;
    }
    unsigned char *buf = tot && tot <= INT_MAX ? malloc(tot) : NULL;
    if (tot && !buf)
        hd[1] = UINT64_MAX;
    PMPI_Send(hd, 2 * TP_PIECES, MPI_UINT64_T, to, TP_TAG_PIECES, c);
    if (buf) {
        for (int i = 0, at = 0; i < TP_PIECES; at += (int)pc[i].len, i++)
            if (pc[i].len)
                memcpy(buf + at, pc[i].p, pc[i].len);
        PMPI_Send(buf, (int)tot, MPI_BYTE, to, TP_TAG_DATA, c);
        free(buf);
    }
}

/* The writer's side of tp_send_pieces: hd and the bytes in *buf (grown as
 * needed, capacity *cap). 1, or 0 when the member or this rank failed. */
static int tp_recv_pieces(MPI_Comm c, int src, uint64_t *hd, unsigned char **buf, uint64_t *cap)
{
    uint64_t tot = 0;
    PMPI_Recv(hd, 2 * TP_PIECES, MPI_UINT64_T, src, TP_TAG_PIECES, c, MPI_STATUS_IGNORE);
    for (int i = 0; i < TP_PIECES; i++)
        tot = hd[2 * i + 1] == UINT64_MAX || tot == UINT64_MAX ? UINT64_MAX : tot + hd[2 * i + 1];
    if (tot == UINT64_MAX || tot > INT_MAX)
        return 0;
    if (tot > *cap) {
        free(*buf);
        *buf = malloc(tot);
        *cap = *buf ? tot : 0;
    }
    if (!tot)
        return 1;
    /* Out of memory here, the data must still be taken off the wire. */
    unsigned char *tmp = *buf ? NULL : malloc(tot);
    PMPI_Recv(*buf ? *buf : tmp, *buf || tmp ? (int)tot : 0, MPI_BYTE, src, TP_TAG_DATA, c,
              MPI_STATUS_IGNORE);
    free(tmp);
    return *buf != NULL;
}

static int tp_pwrite_all(int fd, const unsigned char *p, uint64_t len, uint64_t off)
{
    while (len) {
        ssize_t k = pwrite(fd, p, len, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k, off += (uint64_t)k, len -= (uint64_t)k;
    }
    return 0;
}

/* Rank 0 alone: its pieces, then every other rank's as they come. */
static int tp_funnel(MPI_Comm c, const char *path, const struct tp_piece *pc, int size)
{
    int fd = open(path, O_WRONLY), ok = fd >= 0;
    for (int i = 0; i < TP_PIECES; i++)
        ok = ok && tp_pwrite_all(fd, pc[i].p, pc[i].len, pc[i].off) == 0;
    unsigned char *buf = NULL;
    uint64_t cap = 0, hd[2 * TP_PIECES];
    for (int src = 1; src < size; src++) {
        ok &= tp_recv_pieces(c, src, hd, &buf, &cap);
        for (uint64_t i = 0, at = 0; ok && i < TP_PIECES; at += hd[2 * i + 1], i++)
            ok = tp_pwrite_all(fd, buf + at, hd[2 * i + 1], hd[2 * i]) == 0;
    }
    free(buf);
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    return ok;
}

/* A group's piece i, the writer's own first, the members' appended. */
struct tp_block {
    uint64_t off, len, cap;
    unsigned char *p;
};

static int tp_block_add(struct tp_block *b, uint64_t off, const void *p, uint64_t len)
{
    if (!len)
        return 1;
    if (b->len && off != b->off + b->len)
        return 0; /* not where the group's block goes on: refuse rather than corrupt */
    if (!b->len)
        b->off = off;
    if (b->len + len > b->cap) {
        uint64_t cap = 2 * (b->len + len);
        unsigned char *q = realloc(b->p, cap);
        if (!q)
            return 0;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, len);
    b->len += len;
    return 1;
}

static int tp_group_write(MPI_Comm c, const char *path, const struct tp_piece *pc, int rank,
                          int last)
{
    struct tp_block blk[TP_PIECES] = {{0}};
    int ok = 1;
    for (int i = 0; i < TP_PIECES; i++)
        ok &= tp_block_add(&blk[i], pc[i].off, pc[i].p, pc[i].len);
    unsigned char *buf = NULL;
    uint64_t cap = 0, hd[2 * TP_PIECES];
    for (int src = rank + 1; src <= last; src++) {
        int got = tp_recv_pieces(c, src, hd, &buf, &cap);
        ok &= got;
        for (uint64_t i = 0, at = 0; got && i < TP_PIECES; at += hd[2 * i + 1], i++)
            ok &= tp_block_add(&blk[i], hd[2 * i], buf + at, hd[2 * i + 1]);
    }
    free(buf);
    MPI_File fh;
    if (ok && PMPI_File_open(MPI_COMM_SELF, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) ==
                  MPI_SUCCESS) {
        for (int i = 0; i < TP_PIECES; i++)
            for (uint64_t at = 0; ok && at < blk[i].len;) {
                int n = blk[i].len - at > (1u << 30) ? 1 << 30 : (int)(blk[i].len - at);
                ok = PMPI_File_write_at(fh, (MPI_Offset)(blk[i].off + at), blk[i].p + at, n,
                                        MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS;
                at += (uint64_t)n;
            }
        ok &= PMPI_File_close(&fh) == MPI_SUCCESS;
    } else {
        ok = 0;
    }
    for (int i = 0; i < TP_PIECES; i++)
        free(blk[i].p);
    return ok;
}

int tp_write_pieces(MPI_Comm c, const char *path, const struct tp_piece *pc, int shared)
{
    int rank, size;
    PMPI_Comm_rank(c, &rank);
    PMPI_Comm_size(c, &size);
    int gs = shared ? tp_group_size() : size, first = rank - rank % gs;
    int last = size - 1 - first < gs - 1 ? size - 1 : first + gs - 1;
    if (rank != first) {
        tp_send_pieces(c, pc, first);
        return 1;
    }
    return shared ? tp_group_write(c, path, pc, rank, last) : tp_funnel(c, path, pc, size);
}
