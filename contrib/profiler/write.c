/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: putting every rank's pieces of the profile at their
 * offsets in one file, without funnelling the file through one rank's memory.
 *
 * Each rank knows where its rows go (an MPI_Exscan of their sizes, format.c)
 * and hands TP_PIECES (offset, length, data) pieces here. On a file system
 * every rank sees (checked: every rank looks for the file rank 0 created),
 * they are written with MPI-IO, TP_PIECES collective MPI_File_write_at_all
 * calls that every rank makes, empty pieces included, so that the MPI library
 * can aggregate. Otherwise (TOPOMAP_PROFILE_OUT on rank 0's local disk, or
 * TOPOMAP_PROFILE_WRITE=rank0) each rank sends its pieces to rank 0 in turn,
 * which writes them with pwrite: one rank's pieces in memory at a time. */
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

/* 1 if every rank sees path (rank 0 has just created it). */
static int tp_shared(MPI_Comm c, const char *path)
{
    struct stat st;
    int mine = stat(path, &st) == 0, all = 0;
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, c);
    return all;
}

static int tp_all_ok(MPI_Comm c, int ok)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c);
    return all;
}

static int tp_write_mpiio(MPI_Comm c, const char *path, const struct tp_piece *pc)
{
    MPI_File fh;
    int ok = PMPI_File_open(c, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS;
    if (!tp_all_ok(c, ok)) {
        if (ok)
            PMPI_File_close(&fh);
        return -1;
    }
    for (int i = 0; i < TP_PIECES; i++) {
        int len = pc[i].len <= INT_MAX ? (int)pc[i].len : 0;
        ok &= pc[i].len <= INT_MAX &&
              PMPI_File_write_at_all(fh, (MPI_Offset)pc[i].off, pc[i].p, len, MPI_BYTE,
                                     MPI_STATUS_IGNORE) == MPI_SUCCESS;
    }
    ok &= PMPI_File_close(&fh) == MPI_SUCCESS;
    return tp_all_ok(c, ok) ? 0 : -1;
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

/* Rank 0's side of the funnel: its own pieces, then every other rank's. A
 * rank that could not encode its rows sends a length of UINT64_MAX. */
static int tp_funnel_recv(MPI_Comm c, int fd, const struct tp_piece *pc, int size)
{
    int ok = fd >= 0;
    for (int i = 0; i < TP_PIECES; i++)
        ok = ok && tp_pwrite_all(fd, pc[i].p, pc[i].len, pc[i].off) == 0;
    unsigned char *buf = NULL;
    uint64_t cap = 0;
    for (int src = 1; src < size; src++) {
        uint64_t hd[2 * TP_PIECES], tot = 0;
        PMPI_Recv(hd, 2 * TP_PIECES, MPI_UINT64_T, src, TP_TAG_PIECES, c, MPI_STATUS_IGNORE);
        for (int i = 0; i < TP_PIECES; i++)
            tot = hd[2 * i + 1] == UINT64_MAX || tot == UINT64_MAX ? UINT64_MAX
                                                                     : tot + hd[2 * i + 1];
        if (tot == UINT64_MAX || tot > INT_MAX) {
            ok = 0;
            continue;
        }
        if (tot > cap) {
            free(buf);
            buf = malloc(tot);
            cap = buf ? tot : 0;
        }
        /* Out of memory here, the data must still be taken off the wire. */
        unsigned char *tmp = tot && !buf ? malloc(tot) : NULL;
        if (tot)
            PMPI_Recv(buf ? buf : tmp, tmp || buf ? (int)tot : 0, MPI_BYTE, src, TP_TAG_DATA, c,
                      MPI_STATUS_IGNORE);
        free(tmp);
        ok = ok && (buf || !tot);
        for (uint64_t i = 0, at = 0; ok && i < TP_PIECES; at += hd[2 * i + 1], i++)
            ok = tp_pwrite_all(fd, buf + at, hd[2 * i + 1], hd[2 * i]) == 0;
    }
    free(buf);
    return ok;
}

static int tp_funnel(MPI_Comm c, const char *path, const struct tp_piece *pc, int rank, int size)
{
    if (!rank) {
        int fd = open(path, O_WRONLY);
        int ok = tp_funnel_recv(c, fd, pc, size);
        if (fd >= 0 && close(fd) != 0)
            ok = 0;
        return tp_all_ok(c, ok) ? 0 : -1;
    }
    uint64_t hd[2 * TP_PIECES], tot = 0;
    for (int i = 0; i < TP_PIECES; i++) {
        hd[2 * i] = pc[i].off;
        hd[2 * i + 1] = pc[i].len;
        tot += pc[i].len;
    }
    unsigned char *buf = tot && tot <= INT_MAX ? malloc(tot) : NULL;
    if (tot && !buf)
        hd[1] = UINT64_MAX;
    PMPI_Send(hd, 2 * TP_PIECES, MPI_UINT64_T, 0, TP_TAG_PIECES, c);
    if (buf) {
        for (int i = 0, at = 0; i < TP_PIECES; at += (int)pc[i].len, i++)
            if (pc[i].len)
                memcpy(buf + at, pc[i].p, pc[i].len);
        PMPI_Send(buf, (int)tot, MPI_BYTE, 0, TP_TAG_DATA, c);
        free(buf);
    }
    return tp_all_ok(c, 1) ? 0 : -1;
}

int tp_write_pieces(MPI_Comm c, const char *path, const struct tp_piece *pc, int rank, int size)
{
    const char *how = getenv("TOPOMAP_PROFILE_WRITE");
    int funnel = how && !strcmp(how, "rank0");
    if (!funnel && tp_shared(c, path))
        return tp_write_mpiio(c, path, pc);
    return tp_funnel(c, path, pc, rank, size);
}
