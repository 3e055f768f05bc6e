/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: each rank's rows of the profile as byte pieces at
 * their file offsets, in the text edge-list format or the binary format of
 * libtopomap/profile_bin.c (doc/formats.md#communication-profile), so that
 * write.c can write them in parallel. Offsets come from MPI_Exscan of this rank's sizes; no rank
 * holds anything of the world size.
 *
 * The binary file ends with the CRC-32 of every byte before it. CRC-32 is
 * computed piecewise: crc(A B) = crc32_combine(crc(A), crc(B), len(B)), an
 * associative operation on (crc, length) pairs, so an MPI_Reduce with that
 * non-commutative operation gives rank 0 the CRC of each section in rank
 * order; rank 0 adds its header and the zero padding. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profiler.h"

/* What libtopomap/profile_bin.c reads. */
#define TP_BIN_MAGIC "\x89TMPROF\n"
#define TP_BIN_VERSION 1
#define TP_BIN_HEADER 48
#define TP_BIN_MSGS 1u
#define TP_BIN_BYTES32 2u
#define TP_BIN_MSGS32 4u

static uint64_t tp_exscan(MPI_Comm c, uint64_t v)
{
    uint64_t before = 0;
    int rank;
    PMPI_Comm_rank(c, &rank);
    PMPI_Exscan(&v, &before, 1, MPI_UINT64_T, MPI_SUM, c);
    return rank ? before : 0;
}

int tp_text_pieces(MPI_Comm c, const char *head, size_t hlen, const struct tp_pent *e, size_t k,
                   struct tp_piece *pc, void **own)
{
    int rank;
    PMPI_Comm_rank(c, &rank);
    /* "src dst bytes msgs\n": at most 11 + 11 + 21 + 21 characters. */
    size_t cap = k * 64 + 1, len = 0;
    char *buf = malloc(cap);
    for (size_t i = 0; buf && i < k; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%d %" PRId64 " %" PRIu64 " %" PRIu64 "\n",
                                rank, e[i].peer, e[i].bytes, e[i].msgs);
    memset(pc, 0, TP_PIECES * sizeof *pc);
    *own = buf;
    uint64_t off = tp_exscan(c, (rank ? 0 : hlen) + len);
    if (!rank) {
        pc[0] = (struct tp_piece){0, hlen, head};
        off = hlen;
    }
    pc[1] = (struct tp_piece){off, len, buf};
    return buf ? 0 : -1;
}

static void tp_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void tp_put64(unsigned char *p, uint64_t v)
{
    tp_put32(p, (uint32_t)v);
    tp_put32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t tp_pad8(uint64_t x)
{
    return (x + 7) & ~(uint64_t)7;
}

static unsigned char *tp_put_values(unsigned char *p, const struct tp_pent *e, size_t k, int msgs,
                                    int narrow)
{
    for (size_t i = 0; i < k; i++) {
        uint64_t v = msgs ? e[i].msgs : e[i].bytes;
        if (narrow) {
            tp_put32(p, (uint32_t)v);
            p += 4;
        } else {
            double d = (double)v;
            uint64_t u;
            memcpy(&u, &d, 8);
            tp_put64(p, u);
            p += 8;
        }
    }
    return p;
}

/* (crc, length) pairs, in rank order: inout = in then inout. */
static void tp_crc_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    uint64_t *a = in, *b = inout;
    for (int i = 0; i + 1 < *len; i += 2) {
        b[i] = crc32_combine((uLong)a[i], (uLong)b[i], (z_off_t)b[i + 1]);
        b[i + 1] += a[i + 1];
    }
}

static uLong tp_crc_zeros(uLong crc, uint64_t n)
{
    static const unsigned char zero[8];
    return crc32(crc, zero, (uInt)n);
}

/* The section layout every rank computes alike. */
struct tp_bin {
    uint64_t n, m, mlen, bw, mw;
    uint64_t off, peers, bytes, msgs, end;
};

static void tp_bin_layout(struct tp_bin *b)
{
    b->off = TP_BIN_HEADER + tp_pad8(b->mlen);
    b->peers = b->off + 8 * (b->n + 1);
    b->bytes = b->peers + tp_pad8(4 * b->m);
    b->msgs = b->bytes + tp_pad8(b->bw * b->m);
    b->end = b->msgs + tp_pad8(b->mw * b->m);
}

/* Rank 0: header, metadata and padding, into buf (TP_BIN_HEADER + pad8(mlen)). */
static void tp_bin_head(unsigned char *buf, const struct tp_bin *b, const char *meta)
{
    memset(buf, 0, TP_BIN_HEADER + tp_pad8(b->mlen));
    memcpy(buf, TP_BIN_MAGIC, 8);
    tp_put32(buf + 8, TP_BIN_VERSION);
    tp_put32(buf + 12, TP_BIN_MSGS | (b->bw == 4 ? TP_BIN_BYTES32 : 0) |
                           (b->mw == 4 ? TP_BIN_MSGS32 : 0));
    tp_put64(buf + 16, b->n);
    tp_put64(buf + 24, b->m);
    tp_put64(buf + 32, b->mlen);
    memcpy(buf + TP_BIN_HEADER, meta, b->mlen);
}

/* Rank 0: the file's CRC from the header's and the sections' (s: 4 pairs). */
static uint32_t tp_bin_crc(const unsigned char *head, const struct tp_bin *b, const uint64_t *s)
{
    uLong crc = crc32(crc32(0, Z_NULL, 0), head, (uInt)(TP_BIN_HEADER + tp_pad8(b->mlen)));
    uint64_t pads[4] = {0, tp_pad8(4 * b->m) - 4 * b->m, tp_pad8(b->bw * b->m) - b->bw * b->m,
                        tp_pad8(b->mw * b->m) - b->mw * b->m};
    for (int i = 0; i < 4; i++)
        crc = tp_crc_zeros(crc32_combine(crc, (uLong)s[2 * i], (z_off_t)s[2 * i + 1]), pads[i]);
    return (uint32_t)crc;
}

int tp_bin_pieces(MPI_Comm c, const char *meta, size_t mlen, const struct tp_pent *e, size_t k,
                  struct tp_piece *pc, void **own)
{
    int rank, size;
    PMPI_Comm_rank(c, &rank);
    PMPI_Comm_size(c, &size);
    struct tp_bin b = {.n = (uint64_t)size, .mlen = mlen};
    int wide = 0, anywide = 0;
    for (size_t i = 0; i < k; i++)
        wide |= (e[i].bytes >> 32 ? 1 : 0) | (e[i].msgs >> 32 ? 2 : 0);
    uint64_t kk = k;
    PMPI_Allreduce(&kk, &b.m, 1, MPI_UINT64_T, MPI_SUM, c);
    PMPI_Allreduce(&wide, &anywide, 1, MPI_INT, MPI_BOR, c);
    PMPI_Bcast(&b.mlen, 1, MPI_UINT64_T, 0, c);
    b.bw = anywide & 1 ? 8 : 4;
    b.mw = anywide & 2 ? 8 : 4;
    tp_bin_layout(&b);
    uint64_t e0 = tp_exscan(c, kk), hlen = rank ? 0 : TP_BIN_HEADER + tp_pad8(b.mlen);
    uint64_t olen = rank == size - 1 ? 16 : 8;
    unsigned char *buf = malloc(hlen + 8 + olen + k * (4 + b.bw + b.mw));
    memset(pc, 0, TP_PIECES * sizeof *pc);
    *own = buf;
    uint64_t sec[8] = {0};
    if (buf) {
        unsigned char *o = buf + hlen, *p = o + olen, *by = p + 4 * k;
        tp_put64(o, e0);
        if (olen == 16)
            tp_put64(o + 8, b.m);
        for (size_t i = 0; i < k; i++)
            tp_put32(p + 4 * i, (uint32_t)e[i].peer);
        unsigned char *ms = tp_put_values(by, e, k, 0, b.bw == 4);
        tp_put_values(ms, e, k, 1, b.mw == 4);
        pc[1] = (struct tp_piece){b.off + 8 * (uint64_t)rank, olen, o};
        pc[2] = (struct tp_piece){b.peers + 4 * e0, 4 * k, p};
        pc[3] = (struct tp_piece){b.bytes + b.bw * e0, b.bw * k, by};
        pc[4] = (struct tp_piece){b.msgs + b.mw * e0, b.mw * k, ms};
        for (int i = 0; i < 4; i++) {
            sec[2 * i] = crc32(crc32(0, Z_NULL, 0), pc[i + 1].p, (uInt)pc[i + 1].len);
            sec[2 * i + 1] = pc[i + 1].len;
        }
    }
    uint64_t all[8] = {0};
    MPI_Op op;
    PMPI_Op_create(tp_crc_op, 0, &op);
    PMPI_Reduce(sec, all, 8, MPI_UINT64_T, op, 0, c);
    PMPI_Op_free(&op);
    if (!rank && buf) {
        tp_bin_head(buf, &b, meta);
        pc[0] = (struct tp_piece){0, hlen, buf};
        tp_put32(buf + hlen + olen + k * (4 + b.bw + b.mw), tp_bin_crc(buf, &b, all));
        tp_put32(buf + hlen + olen + k * (4 + b.bw + b.mw) + 4, 0);
        pc[5] = (struct tp_piece){b.end, 8, buf + hlen + olen + k * (4 + b.bw + b.mw)};
    }
    return buf ? 0 : -1;
}
