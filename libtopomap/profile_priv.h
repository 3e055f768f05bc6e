/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the communication profiles: the object and its storage
 * (profile.c), the reading (profile_read.c) with its shared line reader
 * (profile_reader.c) and its format parsers (profile_edges.c,
 * profile_dense.c, profile_mtx.c, profile_bin.c), the writer
 * (profile_write.c). */
#ifndef TOPOMAP_PROFILE_PRIV_H
#define TOPOMAP_PROFILE_PRIV_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "internal.h"
#include "input.h"

struct meta_entry {
    char *key, *val;
};

/* One compressed sparse row matrix; msgs is NULL when no message counts. */
struct csr {
    int64_t *xadj;
    int *adj;
    double *bytes, *msgs;
};

struct topomap_profile {
    int n;
    int has_msgs;
    double total_bytes;
    struct csr dir; /* A as recorded, diagonal kept */
    struct csr sym; /* A + A^T, diagonal dropped */
    struct meta_entry *meta;
    size_t nmeta;
};

/* ---- profile.c: the object ---------------------------------------------- */

/* Set key to val (klen and vlen bytes) in the list *m of *n entries; the
 * later value wins unless keep_old (side-file merge). 0, or -1 + ENOMEM. */
int topomap_meta_set(struct meta_entry **m, size_t *n, const char *key, size_t klen,
                     const char *val, size_t vlen, int keep_old);
/* Free the n entries of m and m itself. */
void topomap_meta_free(struct meta_entry *m, size_t n);
/* The profile of m entries on n ranks (ranks already validated, values
 * finite and non-negative); NULL + errno ENOMEM. Caller frees with
 * topomap_profile_free(). */
topomap_profile_t *topomap_profile_build(int n, size_t m, const int *src, const int *dst,
                                         const double *bytes, const double *msgs);

/* The profile of n ranks over the directed CSR *d (rows sorted, no
 * duplicate, values finite and non-negative), which it takes over: *d is
 * emptied, and freed on failure too. NULL + errno ENOMEM. */
topomap_profile_t *topomap_profile_from_csr(int n, int has_msgs, struct csr *d);

/* ---- profile_reader.c: the line reader the format parsers share --------- */

/* Entries read so far. */
struct edges {
    size_t len, cap;
    int *src, *dst;
    double *bytes, *msgs;
};
/* Append one entry, growing the arrays: 0, or -1 with errno ENOMEM (the
 * entries so far kept). Also used by profile_synth.c. */
int topomap_edges_push(struct edges *e, int s, int d, double b, double m);

/* A line reader over one file, with one line of push-back (format detection
 * reads ahead) and the state that the three parsers share. */
struct reader {
    struct topomap_lines l; /* l.line: current line, newline stripped */
    const char *path; /* as shown in messages ("standard input" for "-") */
    int from_stdin;   /* 1: no side file, no extension */
    int pushed;     /* 1: the next read returns the current line again */
    char *err;
    size_t errlen;
    struct meta_entry *meta;
    size_t nmeta;
    int declared;      /* rank count from "# nranks=" or the header line, 0 = none */
    long declared_line;
    int maxrank;       /* largest rank seen, -1 = none */
    long maxrank_line; /* where it was first seen */
    struct edges e;
    int has_msgs;
    double tbytes, tmsgs; /* running totals, kept below TOPOMAP_MAX_TOTAL */
};

/* -1 with errno EINVAL and "PATH:LINE: message" (the current line). */
int topomap_rd_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A token made printable and short for messages, in buf. */
const char *topomap_rd_shown(const char *tok, char buf[40]);
/* Next raw line: 1, 0 at end of file, -1 on a read error (message set). */
int topomap_rd_raw(struct reader *r);
/* Next data line, skipping blank lines and comments starting with cc
 * ('#' comments also end a data line and carry metadata). 1, 0, -1. */
int topomap_rd_data(struct reader *r, char cc);
/* Split the current line in place into up to max tokens; returns the total
 * number of tokens. */
int topomap_rd_split(struct reader *r, char **tok, int max);
/* len bytes of s, all digits, into *out; -1 otherwise or past LONG_MAX. */
int topomap_rd_count(const char *s, size_t len, long *out);
/* 1 if len bytes of s make a metadata key (A-Z a-z 0-9 _ - .), else 0. */
int topomap_rd_is_key(const char *s, size_t len);
/* Record the rank count n declared on the current line (what names it). */
int topomap_rd_declare(struct reader *r, long n, const char *what);
/* A non-negative finite number, or -1 with a message. */
int topomap_rd_value(struct reader *r, const char *tok, double *out);
/* A rank written with base 0 or 1, checked against the declared count. */
int topomap_rd_rank(struct reader *r, const char *tok, int base, int *out);
/* Append an entry, keeping the totals bounded. 0, or -1 with a message. */
int topomap_rd_push(struct reader *r, int s, int d, double b, double m);
/* -1 with errno ENOMEM and "PATH:LINE: out of memory". */
int topomap_rd_nomem(struct reader *r);
/* Free the entries' arrays (not e itself). */
void topomap_rd_edges_free(struct edges *e);

/* ---- the format parsers: 0, or -1 with a message ------------------------- */

/* profile_edges.c: "src dst bytes [msgs]" lines, optionally after a
 * rank-count line. */
int topomap_profile_parse_edges(struct reader *r);
/* profile_dense.c: n lines of n numbers. */
int topomap_profile_parse_dense(struct reader *r);
/* profile_mtx.c: Matrix Market coordinate. */
int topomap_profile_parse_mtx(struct reader *r);

/* ---- profile_bin.c: the binary format ----------------------------------- */

/* Its first 8 bytes. */
extern const char topomap_bin_magic[8];
/* The profile of the binary data of r's stream (read whole; r->meta gets
 * its metadata); NULL with errno and "PATH: problem". */
topomap_profile_t *topomap_profile_read_binary(struct reader *r);
/* The same from the regular file path, read in one go, when its first bytes
 * are the magic (*handled = 1; NULL with the message when malformed); else
 * NULL with *handled = 0, for the stream reader (gzip data, errors). */
topomap_profile_t *topomap_profile_read_binary_file(struct reader *r, const char *path, int *handled);
/* p in the binary format to f (flushed, not closed). 0, or -1 with errno. */
int topomap_profile_write_binary(const topomap_profile_t *p, FILE *f);

#endif
