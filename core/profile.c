/* SPDX-License-Identifier: BSD-3-Clause */
/* Communication profiles: the three file formats, the sparse storage every
 * other module reads through topomap_profile_graph(), and the writer.
 *
 * Formats and how TOPOMAP_FMT_AUTO picks one:
 *  1. a path ending in ".mtx", or a first line starting with "%%MatrixMarket":
 *     Matrix Market coordinate (real, integer or pattern; general or
 *     symmetric; 1-based; '%' comments). A symmetric file lists one triangle;
 *     each off-diagonal entry (i, j) stands for both i -> j and j -> i.
 *     Pattern entries count as 1 byte.
 *  2. a path ending in ".mat": dense square matrix, n lines of n numbers,
 *     line i holding what rank i sent to each rank (TreeMatch and Open MPI's
 *     profile2mat.pl write this).
 *  3. otherwise the first data line (not blank, not a '#' comment) decides:
 *     1, 3 or 4 fields is an edge list ("N" rank-count header, or "src dst
 *     bytes [msgs]"), any other count a dense matrix. So a 1x1, 3x3 or 4x4
 *     dense matrix needs the ".mat" extension or TOPOMAP_FMT_DENSE.
 *
 * Fields are separated by blanks or tabs (commas are also accepted); CRLF
 * line ends and a last line without newline are fine. A line cut short by
 * truncation is caught by the field counts (a dense row, an edge line) or
 * the declared entry count (Matrix Market); a number cut short but still a
 * number cannot be told from a real one.
 *
 * Any of them may be gzip-compressed ("X.mtx.gz" is Matrix Market) or come
 * from standard input (path "-", no side file); see core/input.c.
 *
 * Edge lists and dense matrices take '#' comments, whole-line or after the
 * data; whole-line "# key=value" comments are metadata (topomap_profile_meta),
 * "# nranks=N" also sets the rank count. The side file PATH.meta (key=value
 * lines, as next to the shared workloads) adds metadata the file itself does
 * not set, and gives the rank count of an edge list that declares none.
 * Rank count of an edge list: "# nranks=" or the header line (which must
 * agree when both are given), else PATH.meta, else the largest rank + 1;
 * ranks past it are errors naming the line. A matrix's size is its rank
 * count (a "# nranks=" in a dense file must agree with it).
 *
 * Duplicates: the same (src, dst) given twice (two lines of an edge list, an
 * entry repeated in a Matrix Market file, both triangles of a symmetric one)
 * is summed, bytes and messages alike, in file order. Profilers that flush
 * per phase write such files, so this is not an error.
 *
 * Storage: entries with zero bytes and zero messages are dropped; the rest is
 * kept as a directed CSR (diagonal kept) and a symmetric CSR holding
 * A + A^T without its diagonal, both with byte and message weights sharing one
 * structure, built once at load with counting sorts (O(nnz + n), stable, so
 * sums happen in input order and results never depend on anything else).
 * No n x n array exists at any point; the dense reader streams row by row.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"

#include "internal.h"

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

/* ------------------------------------------------------------------------ */
/* Metadata                                                                   */
/* ------------------------------------------------------------------------ */

static struct meta_entry *meta_find(struct meta_entry *m, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(m[i].key, key))
            return &m[i];
    return NULL;
}

/* Set key to val; the later value wins unless keep_old (side-file merge). */
static int meta_set(struct meta_entry **m, size_t *n, const char *key, size_t klen,
                    const char *val, size_t vlen, int keep_old)
{
    char *k = strndup(key, klen), *v = strndup(val, vlen);
    if (!k || !v)
        goto nomem;
    struct meta_entry *e = meta_find(*m, *n, k);
    if (e) {
        free(k);
        if (keep_old) {
            free(v);
        } else {
            free(e->val);
            e->val = v;
        }
        return 0;
    }
    struct meta_entry *nm = realloc(*m, (*n + 1) * sizeof *nm);
    if (!nm)
        goto nomem;
    *m = nm;
    nm[*n].key = k;
    nm[*n].val = v;
    (*n)++;
    return 0;
nomem:
    free(k);
    free(v);
    errno = ENOMEM;
    return -1;
}

static void meta_free(struct meta_entry *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(m[i].key);
        free(m[i].val);
    }
    free(m);
}

/* ------------------------------------------------------------------------ */
/* Building the CSR matrices                                                  */
/* ------------------------------------------------------------------------ */

static void csr_free(struct csr *c)
{
    free(c->xadj);
    free(c->adj);
    free(c->bytes);
    free(c->msgs);
}

/* A stable counting sort of idx[0..m) by key[idx[k]] into out; cnt has n + 1
 * entries. */
static void counting_sort(const int *key, const size_t *idx, size_t m, int n, int64_t *cnt,
                          size_t *out)
{
    memset(cnt, 0, ((size_t)n + 1) * sizeof *cnt);
    for (size_t k = 0; k < m; k++)
        cnt[key[idx[k]] + 1]++;
    for (int i = 0; i < n; i++)
        cnt[i + 1] += cnt[i];
    for (size_t k = 0; k < m; k++)
        out[cnt[key[idx[k]]]++] = idx[k];
}

/* Directed CSR of the m entries, keeping only those with bytes or msgs
 * nonzero, duplicates summed. Ranks are already checked to be in [0, n). */
static int build_directed(int n, size_t m, const int *src, const int *dst, const double *bytes,
                          const double *msgs, struct csr *c)
{
    size_t keep = 0, *a = NULL, *b = NULL;
    int64_t *cnt = NULL;
    for (size_t k = 0; k < m; k++)
        keep += bytes[k] > 0 || (msgs && msgs[k] > 0);
    a = malloc((keep ? keep : 1) * sizeof *a);
    b = malloc((keep ? keep : 1) * sizeof *b);
    cnt = malloc(((size_t)n + 1) * sizeof *cnt);
    c->xadj = calloc((size_t)n + 1, sizeof *c->xadj);
    c->adj = malloc((keep ? keep : 1) * sizeof *c->adj);
    c->bytes = malloc((keep ? keep : 1) * sizeof *c->bytes);
    c->msgs = msgs ? malloc((keep ? keep : 1) * sizeof *c->msgs) : NULL;
    if (!a || !b || !cnt || !c->xadj || !c->adj || !c->bytes || (msgs && !c->msgs))
        goto nomem;
    keep = 0;
    for (size_t k = 0; k < m; k++)
        if (bytes[k] > 0 || (msgs && msgs[k] > 0))
            a[keep++] = k;
    /* LSD radix sort: by dst, then stably by src, gives (src, dst) order with
     * duplicates in input order. */
    counting_sort(dst, a, keep, n, cnt, b);
    counting_sort(src, b, keep, n, cnt, a);

    size_t nnz = 0;
    for (size_t t = 0; t < keep; t++) {
        size_t k = a[t];
        if (nnz && t && src[a[t - 1]] == src[k] && dst[a[t - 1]] == dst[k]) {
            c->bytes[nnz - 1] += bytes[k];
            if (msgs)
                c->msgs[nnz - 1] += msgs[k];
            continue;
        }
        c->adj[nnz] = dst[k];
        c->bytes[nnz] = bytes[k];
        if (msgs)
            c->msgs[nnz] = msgs[k];
        c->xadj[src[k] + 1]++;
        nnz++;
    }
    for (int i = 0; i < n; i++)
        c->xadj[i + 1] += c->xadj[i];
    free(a);
    free(b);
    free(cnt);
    return 0;
nomem:
    free(a);
    free(b);
    free(cnt);
    csr_free(c);
    memset(c, 0, sizeof *c);
    errno = ENOMEM;
    return -1;
}

/* Symmetric CSR of d: row i merges row i of d and row i of d^T (column i of
 * d), both sorted, skipping the diagonal. w(i,j) = d(i,j) + d(j,i), exactly
 * symmetric because floating-point addition commutes. */
static int build_symmetric(int n, const struct csr *d, struct csr *s)
{
    int64_t nnz = d->xadj[n];
    int64_t *txadj = calloc((size_t)n + 1, sizeof *txadj), *pos = NULL;
    int *tadj = malloc((size_t)(nnz ? nnz : 1) * sizeof *tadj);
    int64_t *tsrc = malloc((size_t)(nnz ? nnz : 1) * sizeof *tsrc); /* entry index in d */
    memset(s, 0, sizeof *s);
    if (!txadj || !tadj || !tsrc)
        goto nomem;
    /* Transpose: walking rows in increasing order leaves each column's list
     * sorted by row. */
    for (int64_t e = 0; e < nnz; e++)
        txadj[d->adj[e] + 1]++;
    for (int i = 0; i < n; i++)
        txadj[i + 1] += txadj[i];
    pos = malloc((size_t)(n ? n : 1) * sizeof *pos);
    if (!pos)
        goto nomem;
    memcpy(pos, txadj, (size_t)n * sizeof *pos);
    for (int i = 0; i < n; i++)
        for (int64_t e = d->xadj[i]; e < d->xadj[i + 1]; e++) {
            int64_t t = pos[d->adj[e]]++;
            tadj[t] = i;
            tsrc[t] = e;
        }
    free(pos);
    pos = NULL;

    /* At most 2 nnz entries; trimmed below. */
    size_t cap = nnz ? 2 * (size_t)nnz : 1;
    s->xadj = calloc((size_t)n + 1, sizeof *s->xadj);
    s->adj = malloc(cap * sizeof *s->adj);
    s->bytes = malloc(cap * sizeof *s->bytes);
    s->msgs = d->msgs ? malloc(cap * sizeof *s->msgs) : NULL;
    if (!s->xadj || !s->adj || !s->bytes || (d->msgs && !s->msgs))
        goto nomem;
    int64_t out = 0;
    for (int i = 0; i < n; i++) {
        int64_t a = d->xadj[i], ae = d->xadj[i + 1], b = txadj[i], be = txadj[i + 1];
        while (a < ae || b < be) {
            int ja = a < ae ? d->adj[a] : INT_MAX, jb = b < be ? tadj[b] : INT_MAX;
            int j = ja < jb ? ja : jb;
            double wb = 0, wm = 0;
            if (ja == j) {
                wb += d->bytes[a];
                wm += d->msgs ? d->msgs[a] : 0;
                a++;
            }
            if (jb == j) {
                wb += d->bytes[tsrc[b]];
                wm += d->msgs ? d->msgs[tsrc[b]] : 0;
                b++;
            }
            if (j == i)
                continue;
            s->adj[out] = j;
            s->bytes[out] = wb;
            if (s->msgs)
                s->msgs[out] = wm;
            out++;
        }
        s->xadj[i + 1] = out;
    }
    free(txadj);
    free(tadj);
    free(tsrc);
    return 0;
nomem:
    free(txadj);
    free(tadj);
    free(tsrc);
    free(pos);
    csr_free(s);
    memset(s, 0, sizeof *s);
    errno = ENOMEM;
    return -1;
}

/* Shrink a CSR's arrays to their final size (realloc failure is harmless). */
static void csr_trim(struct csr *c, int n)
{
    size_t m = (size_t)(c->xadj[n] ? c->xadj[n] : 1);
    void *t;
    if ((t = realloc(c->adj, m * sizeof *c->adj)))
        c->adj = t;
    if ((t = realloc(c->bytes, m * sizeof *c->bytes)))
        c->bytes = t;
    if (c->msgs && (t = realloc(c->msgs, m * sizeof *c->msgs)))
        c->msgs = t;
}

/* The profile of m entries on n ranks (ranks already validated). */
static topomap_profile_t *build_profile(int n, size_t m, const int *src, const int *dst,
                                        const double *bytes, const double *msgs)
{
    topomap_profile_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n;
    p->has_msgs = msgs != NULL;
    if (build_directed(n, m, src, dst, bytes, msgs, &p->dir) < 0 ||
        build_symmetric(n, &p->dir, &p->sym) < 0) {
        topomap_profile_free(p);
        errno = ENOMEM;
        return NULL;
    }
    csr_trim(&p->dir, n);
    csr_trim(&p->sym, n);
    for (int64_t e = 0; e < p->dir.xadj[n]; e++)
        p->total_bytes += p->dir.bytes[e];
    char num[24];
    int len = snprintf(num, sizeof num, "%d", n);
    if (meta_set(&p->meta, &p->nmeta, "nranks", 6, num, (size_t)len, 0) < 0) {
        topomap_profile_free(p);
        return NULL;
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                    */
/* ------------------------------------------------------------------------ */

/* Entries read so far. */
struct edges {
    size_t len, cap;
    int *src, *dst;
    double *bytes, *msgs;
};

static int edges_push(struct edges *e, int s, int d, double b, double m)
{
    if (e->len == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 1024;
        int *ns = realloc(e->src, cap * sizeof *ns);
        if (ns)
            e->src = ns;
        int *nd = realloc(e->dst, cap * sizeof *nd);
        if (nd)
            e->dst = nd;
        double *nb = realloc(e->bytes, cap * sizeof *nb);
        if (nb)
            e->bytes = nb;
        double *nm = realloc(e->msgs, cap * sizeof *nm);
        if (nm)
            e->msgs = nm;
        if (!ns || !nd || !nb || !nm) {
            errno = ENOMEM;
            return -1;
        }
        e->cap = cap;
    }
    e->src[e->len] = s;
    e->dst[e->len] = d;
    e->bytes[e->len] = b;
    e->msgs[e->len] = m;
    e->len++;
    return 0;
}

static void edges_free(struct edges *e)
{
    free(e->src);
    free(e->dst);
    free(e->bytes);
    free(e->msgs);
}

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

static int rd_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int rd_fail(struct reader *r, const char *fmt, ...)
{
    char msg[TOPOMAP_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return topomap_fail(r->err, r->errlen, EINVAL, "%s:%ld: %s", r->path, r->l.lineno, msg);
}

static int rd_nomem(struct reader *r)
{
    return topomap_fail(r->err, r->errlen, ENOMEM, "%s:%ld: out of memory", r->path,
                        r->l.lineno);
}

/* A token made printable and short for messages. */
static const char *shown(const char *tok, char buf[40])
{
    return topomap_printable(tok, buf, 40);
}

/* Next raw line: 1, 0 at end of file, -1 on a read error (message set). */
static int rd_raw(struct reader *r)
{
    if (r->pushed) {
        r->pushed = 0;
        return 1;
    }
    /* A NUL byte (a binary or corrupt file) is an error naming its line;
     * corrupt gzip data is one too (core/input.c). */
    return topomap_lines_next(&r->l, r->err, r->errlen);
}

/* Metadata keys: what rd_comment() recognises, so that written metadata reads
 * back. */
static int is_key(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return 0;
    return len > 0;
}

/* len bytes of s, all digits; values past LONG_MAX are errors. */
static int parse_count(const char *s, size_t len, long *out)
{
    int k = topomap_scan_count(s, LONG_MAX, out);
    return k > 0 && (size_t)k == len ? 0 : -1;
}

/* Record the rank count n declared on the current line. */
static int rd_declare(struct reader *r, long n, const char *what)
{
    if (n < 1)
        return rd_fail(r, "%s %ld is not a positive rank count", what, n);
    if (n > TOPOMAP_MAX_RANKS)
        return rd_fail(r, "%s %ld is over the limit of %d ranks", what, n, TOPOMAP_MAX_RANKS);
    if (r->declared && r->declared != n)
        return rd_fail(r, "%s %ld conflicts with nranks=%d given on line %ld", what, n,
                       r->declared, r->declared_line);
    r->declared = (int)n;
    r->declared_line = r->l.lineno;
    return 0;
}

/* A whole-line '#' comment: record "key=value" metadata, ignore the rest. */
static int rd_comment(struct reader *r, const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '#')
        s++;
    const char *k = s;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.')
        s++;
    size_t klen = (size_t)(s - k);
    while (*s == ' ' || *s == '\t')
        s++;
    if (!klen || *s != '=')
        return 0;
    s++;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t vlen = strlen(s);
    while (vlen && (s[vlen - 1] == ' ' || s[vlen - 1] == '\t'))
        vlen--;
    if (klen == 6 && !memcmp(k, "nranks", 6)) {
        long n;
        char buf[40], tmp[40];
        snprintf(tmp, sizeof tmp, "%.*s", (int)(vlen < 39 ? vlen : 39), s);
        if (parse_count(s, vlen, &n) < 0)
            return rd_fail(r, "nranks '%s' is not a positive integer", shown(tmp, buf));
        if (rd_declare(r, n, "nranks") < 0)
            return -1;
    }
    if (meta_set(&r->meta, &r->nmeta, k, klen, s, vlen, 0) < 0)
        return rd_nomem(r);
    return 0;
}

/* Next data line, skipping blank lines and comments (lines whose first
 * non-blank character is cc; '#' comments also end a data line early and
 * carry metadata). 1, 0 at end of file, -1 on error. */
static int rd_data(struct reader *r, char cc)
{
    for (;;) {
        int rc = rd_raw(r);
        if (rc <= 0)
            return rc;
        char *s = r->l.line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == cc) {
            if (cc == '#' && rd_comment(r, s) < 0)
                return -1;
            continue;
        }
        if (cc == '#') {
            char *h = strchr(s, '#');
            if (h)
                *h = 0;
        }
        if (*s)
            return 1;
    }
}

/* Split the current line in place: fills up to max token pointers, returns
 * the total number of tokens. */
static int rd_split(struct reader *r, char **tok, int max)
{
    int n = 0;
    char *s = r->l.line;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == ',')
            s++;
        if (!*s)
            return n;
        if (n < max)
            tok[n] = s;
        n++;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != ',')
            s++;
        if (*s)
            *s++ = 0;
    }
}

/* A non-negative finite number. Plain integers (what profilers write) take
 * a fast path; anything else goes through strtod in the C locale. */
static int rd_value(struct reader *r, const char *tok, double *out)
{
    uint64_t v = 0;
    int i = 0;
    while (i < 16 && tok[i] >= '0' && tok[i] <= '9')
        v = v * 10 + (uint64_t)(tok[i++] - '0');
    if (i > 0 && i < 16 && !tok[i]) {
        *out = (double)v; /* below 10^15: exact */
        return 0;
    }
    char *end, buf[40];
    double d = strtod(tok, &end);
    if (end == tok || *end)
        return rd_fail(r, "'%s' is not a number", shown(tok, buf));
    if (!isfinite(d))
        return rd_fail(r, "'%s' is not a finite number", shown(tok, buf));
    if (d < 0)
        return rd_fail(r, "negative value '%s'", shown(tok, buf));
    *out = d == 0 ? 0.0 : d; /* no -0 */
    return 0;
}

/* A rank written with base 0 (edge list) or 1 (Matrix Market), checked
 * against the declared rank count if there is one. */
static int rd_rank(struct reader *r, const char *tok, int base, int *out)
{
    long v;
    char buf[40];
    if (parse_count(tok, strlen(tok), &v) < 0) {
        if (tok[0] == '-' && !parse_count(tok + 1, strlen(tok + 1), &v))
            return rd_fail(r, "negative rank '%s'", shown(tok, buf));
        return rd_fail(r, "rank '%s' is not a non-negative integer", shown(tok, buf));
    }
    if (!r->declared && v - base >= TOPOMAP_MAX_RANKS)
        return rd_fail(r, "rank %s is over the limit of %d ranks", shown(tok, buf),
                       TOPOMAP_MAX_RANKS);
    if (v < base || (r->declared && v - base >= r->declared)) {
        if (base)
            return rd_fail(r, "index %s out of range 1..%d", shown(tok, buf), r->declared);
        if (r->declared)
            return rd_fail(r, "rank %s out of range (nranks=%d)", shown(tok, buf), r->declared);
        return rd_fail(r, "rank %s out of range", shown(tok, buf));
    }
    *out = (int)(v - base);
    if (*out > r->maxrank) {
        r->maxrank = *out;
        r->maxrank_line = r->l.lineno;
    }
    return 0;
}

static int rd_push(struct reader *r, int s, int d, double b, double m)
{
    /* Values are finite and non-negative, so every sum the profile and the
     * metrics form stays below the totals: bounding these keeps them finite. */
    r->tbytes += b;
    r->tmsgs += m;
    if (r->tbytes > TOPOMAP_MAX_TOTAL || r->tmsgs > TOPOMAP_MAX_TOTAL)
        return rd_fail(r, "total %s pass %g, the limit of a profile", r->tbytes >
                       TOPOMAP_MAX_TOTAL ? "bytes" : "messages", TOPOMAP_MAX_TOTAL);
    return edges_push(&r->e, s, d, b, m) < 0 ? rd_nomem(r) : 0;
}

/* "src dst bytes [msgs]" lines, optionally preceded by a rank-count line. */
static int parse_edges(struct reader *r)
{
    char *tok[5];
    int first = 1, want = 0, rc;
    while ((rc = rd_data(r, '#')) > 0) {
        int nt = rd_split(r, tok, 5);
        if (first && nt == 1) {
            long n;
            char buf[40];
            first = 0;
            if (parse_count(tok[0], strlen(tok[0]), &n) < 0)
                return rd_fail(r, "'%s' is not a rank count", shown(tok[0], buf));
            if (rd_declare(r, n, "rank count") < 0)
                return -1;
            continue;
        }
        first = 0;
        if (nt != 3 && nt != 4)
            return rd_fail(r, "expected 3 or 4 fields (src dst bytes [msgs]), found %d", nt);
        if (!want)
            want = nt;
        else if (nt != want)
            return rd_fail(r, "%d fields, but the first entry line had %d", nt, want);
        int s, d;
        double b, m = 0;
        if (rd_rank(r, tok[0], 0, &s) < 0 || rd_rank(r, tok[1], 0, &d) < 0 ||
            rd_value(r, tok[2], &b) < 0 || (nt == 4 && rd_value(r, tok[3], &m) < 0) ||
            rd_push(r, s, d, b, m) < 0)
            return -1;
    }
    r->has_msgs = want == 4;
    return rc;
}

/* n lines of n numbers; values are streamed, only nonzeros are kept. */
static int parse_dense(struct reader *r)
{
    int rc, row = 0, n = 0;
    long lastline = 0;
    while ((rc = rd_data(r, '#')) > 0) {
        char *s = r->l.line;
        int col = 0;
        for (;;) {
            while (*s == ' ' || *s == '\t' || *s == ',')
                s++;
            if (!*s)
                break;
            char *t = s;
            while (*s && *s != ' ' && *s != '\t' && *s != ',')
                s++;
            if (*s)
                *s++ = 0;
            double v;
            if (rd_value(r, t, &v) < 0)
                return -1;
            if (row == 0 && col == TOPOMAP_MAX_RANKS)
                return rd_fail(r, "more than %d columns: over the limit of %d ranks",
                               TOPOMAP_MAX_RANKS, TOPOMAP_MAX_RANKS);
            if (n && col >= n)
                return rd_fail(r, "more than %d values in a row of a %d x %d matrix", n, n, n);
            if (v > 0 && rd_push(r, row, col, v, 0) < 0)
                return -1;
            col++;
        }
        if (row == 0)
            n = col;
        else if (col != n)
            return rd_fail(r, "%d values in a row of a %d x %d matrix", col, n, n);
        if (row >= n)
            return rd_fail(r, "more than %d rows in a %d x %d matrix", n, n, n);
        row++;
        lastline = r->l.lineno;
    }
    if (rc < 0)
        return -1;
    if (row && row < n) {
        r->l.lineno = lastline;
        return rd_fail(r, "truncated dense matrix: %d of %d rows", row, n);
    }
    if (n && r->declared && r->declared != n)
        return topomap_fail(r->err, r->errlen, EINVAL,
                            "%s:%ld: nranks=%d but the matrix is %d x %d", r->path,
                            r->declared_line, r->declared, n, n);
    r->declared = n;
    r->maxrank = n - 1;
    return 0;
}

static int lower_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != *b)
            return 0;
    return *a == *b;
}

/* Matrix Market coordinate: banner, '%' comments, "M N NNZ", NNZ entries. */
static int parse_mtx(struct reader *r)
{
    char *tok[6], buf[40];
    int rc = rd_raw(r);
    if (rc <= 0)
        return rc;
    int nt = rd_split(r, tok, 6);
    if (nt < 1 || !lower_eq(tok[0], "%%matrixmarket"))
        return rd_fail(r, "missing '%%%%MatrixMarket' header line");
    if (nt != 5)
        return rd_fail(r, "expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
    if (!lower_eq(tok[1], "matrix"))
        return rd_fail(r, "unsupported Matrix Market object '%s'", shown(tok[1], buf));
    if (!lower_eq(tok[2], "coordinate"))
        return rd_fail(r, "unsupported Matrix Market format '%s' (only coordinate)",
                       shown(tok[2], buf));
    int pattern = lower_eq(tok[3], "pattern");
    if (!pattern && !lower_eq(tok[3], "real") && !lower_eq(tok[3], "integer") &&
        !lower_eq(tok[3], "double"))
        return rd_fail(r, "unsupported Matrix Market field '%s' (real, integer or pattern)",
                       shown(tok[3], buf));
    int sym = lower_eq(tok[4], "symmetric");
    if (!sym && !lower_eq(tok[4], "general"))
        return rd_fail(r, "unsupported Matrix Market symmetry '%s' (general or symmetric)",
                       shown(tok[4], buf));

    if ((rc = rd_data(r, '%')) <= 0) {
        if (rc == 0)
            return rd_fail(r, "truncated Matrix Market file: no size line");
        return -1;
    }
    long rows, cols, nnz;
    nt = rd_split(r, tok, 4);
    if (nt != 3)
        return rd_fail(r, "expected a size line 'ROWS COLS ENTRIES', found %d fields", nt);
    for (int k = 0; k < 3; k++)
        if (parse_count(tok[k], strlen(tok[k]), k == 0 ? &rows : k == 1 ? &cols : &nnz) < 0)
            return rd_fail(r, "'%s' is not a non-negative integer", shown(tok[k], buf));
    if (rows != cols)
        return rd_fail(r, "matrix is not square (%ld x %ld)", rows, cols);
    if (rows < 1)
        return rd_fail(r, "matrix size %ld out of range", rows);
    if (rows > TOPOMAP_MAX_RANKS)
        return rd_fail(r, "matrix size %ld is over the limit of %d ranks", rows,
                       TOPOMAP_MAX_RANKS);
    r->declared = (int)rows;
    r->declared_line = r->l.lineno;

    long seen = 0, lastline = r->l.lineno;
    int want = pattern ? 2 : 3;
    while ((rc = rd_data(r, '%')) > 0) {
        if (seen == nnz)
            return rd_fail(r, "more entries than the %ld declared", nnz);
        nt = rd_split(r, tok, 4);
        if (nt != want)
            return rd_fail(r, "expected %d fields (%s), found %d", want,
                           pattern ? "row col" : "row col value", nt);
        int i, j;
        double v = 1;
        if (rd_rank(r, tok[0], 1, &i) < 0 || rd_rank(r, tok[1], 1, &j) < 0 ||
            (!pattern && rd_value(r, tok[2], &v) < 0))
            return -1;
        if (v > 0 && (rd_push(r, i, j, v, 0) < 0 || (sym && i != j && rd_push(r, j, i, v, 0) < 0)))
            return -1;
        seen++;
        lastline = r->l.lineno;
    }
    if (rc < 0)
        return -1;
    if (seen < nnz) {
        r->l.lineno = lastline;
        return rd_fail(r, "truncated Matrix Market file: %ld of %ld entries", seen, nnz);
    }
    return 0;
}

static int has_suffix(const char *path, const char *suf)
{
    size_t lp = strlen(path), ls = strlen(suf);
    return lp >= ls && !strcasecmp(path + lp - ls, suf);
}

/* Pick the format from the extension, else from the first lines (see the
 * comment at the top). The lines read stay pushed back for the parser. */
static int detect(struct reader *r)
{
    if (has_suffix(r->path, ".grf") || has_suffix(r->path, ".src"))
        return topomap_fail(r->err, r->errlen, EINVAL,
                            "%s: Scotch graph files are not read as profiles: write the edges "
                            "as 'src dst bytes' lines (0-based ranks)",
                            r->path);
    if (has_suffix(r->path, ".mtx") || has_suffix(r->path, ".mtx.gz"))
        return TOPOMAP_FMT_MTX;
    if (has_suffix(r->path, ".mat") || has_suffix(r->path, ".mat.gz"))
        return TOPOMAP_FMT_DENSE;
    int rc = rd_raw(r);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return TOPOMAP_FMT_EDGES; /* empty: reported as such by the parser */
    r->pushed = 1;
    if (!strncasecmp(r->l.line, "%%MatrixMarket", 14))
        return TOPOMAP_FMT_MTX;
    if ((rc = rd_data(r, '#')) <= 0)
        return rc < 0 ? -1 : TOPOMAP_FMT_EDGES;
    /* Count fields without splitting: the parser splits again. */
    int nf = 0;
    for (const char *s = r->l.line; *s;) {
        while (*s == ' ' || *s == '\t' || *s == ',')
            s++;
        if (!*s)
            break;
        nf++;
        while (*s && *s != ' ' && *s != '\t' && *s != ',')
            s++;
    }
    r->pushed = 1;
    return nf == 1 || nf == 3 || nf == 4 ? TOPOMAP_FMT_EDGES : TOPOMAP_FMT_DENSE;
}

/* PATH.meta: key=value lines. Adds keys the profile does not set and returns
 * its nranks (0 if none) in *nranks. A missing side file is not an error. */
static int read_side_meta(struct reader *r, int *nranks)
{
    *nranks = 0;
    if (r->from_stdin)
        return 0;
    size_t plen = strlen(r->path);
    char *mpath = malloc(plen + 6);
    if (!mpath)
        return rd_nomem(r);
    memcpy(mpath, r->path, plen);
    memcpy(mpath + plen, ".meta", 6);
    struct topomap_lines ml = {.path = mpath};
    ml.f = topomap_input_open(mpath, r->err, r->errlen);
    if (!ml.f && errno == ENOENT && has_suffix(r->path, ".gz")) {
        /* PROFILE.txt.gz: the side file of the uncompressed PROFILE.txt. */
        memcpy(mpath + plen - 3, ".meta", 6);
        ml.f = topomap_input_open(mpath, r->err, r->errlen);
    }
    if (!ml.f) {
        if ((errno == ENOENT || errno == ENOTDIR) && r->err && r->errlen)
            r->err[0] = 0; /* no side file: not an error */
        free(mpath);
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    }
    int ret;
    while ((ret = topomap_lines_next(&ml, r->err, r->errlen)) > 0) {
        char *line = ml.line;
        size_t len = ml.len;
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = 0;
        char *s = line, *eq;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || !(eq = strchr(s, '=')))
            continue;
        size_t klen = (size_t)(eq - s);
        while (klen && (s[klen - 1] == ' ' || s[klen - 1] == '\t'))
            klen--;
        char *v = eq + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if (klen == 6 && !memcmp(s, "nranks", 6)) {
            long n;
            char buf[40];
            if (parse_count(v, strlen(v), &n) < 0 || n < 1) {
                ret = topomap_fail(r->err, r->errlen, EINVAL,
                                   "%s:%ld: nranks '%s' is not a positive integer", mpath,
                                   ml.lineno, shown(v, buf));
                break;
            }
            if (n > TOPOMAP_MAX_RANKS) {
                ret = topomap_fail(r->err, r->errlen, EINVAL,
                                   "%s:%ld: nranks %ld is over the limit of %d ranks", mpath,
                                   ml.lineno, n, TOPOMAP_MAX_RANKS);
                break;
            }
            *nranks = (int)n;
            continue;
        }
        if (is_key(s, klen) && meta_set(&r->meta, &r->nmeta, s, klen, v, strlen(v), 1) < 0) {
            ret = topomap_fail(r->err, r->errlen, ENOMEM, "%s:%ld: out of memory", mpath,
                               ml.lineno);
            break;
        }
    }
    topomap_lines_close(&ml);
    free(mpath);
    return ret < 0 ? -1 : 0;
}

static topomap_profile_t *load_stream(struct reader *r, int format)
{
    int rc;
    if (format == TOPOMAP_FMT_AUTO && (format = detect(r)) < 0)
        return NULL;
    switch (format) {
    case TOPOMAP_FMT_EDGES:
        rc = parse_edges(r);
        break;
    case TOPOMAP_FMT_DENSE:
        rc = parse_dense(r);
        break;
    case TOPOMAP_FMT_MTX:
        rc = parse_mtx(r);
        break;
    default:
        topomap_fail(r->err, r->errlen, EINVAL, "%s: unknown profile format %d", r->path,
                     format);
        return NULL;
    }
    if (rc < 0)
        return NULL;
    if (r->l.lineno == 0 || (!r->declared && r->maxrank < 0 && format != TOPOMAP_FMT_MTX)) {
        /* Nothing but blanks and comments (a rank-count line alone is a valid
         * profile without traffic). */
        topomap_fail(r->err, r->errlen, EINVAL, "%s: empty profile", r->path);
        return NULL;
    }

    int side_n;
    if (read_side_meta(r, &side_n) < 0)
        return NULL;
    int n = r->declared;
    const char *from = "";
    if (!n && side_n) {
        n = side_n;
        from = " from the .meta file";
    }
    if (!n)
        n = r->maxrank + 1;
    if (r->maxrank >= n) {
        r->l.lineno = r->maxrank_line;
        rd_fail(r, "rank %d out of range (nranks=%d%s)", r->maxrank, n, from);
        return NULL;
    }

    topomap_profile_t *p = build_profile(n, r->e.len, r->e.src, r->e.dst, r->e.bytes,
                                         r->has_msgs ? r->e.msgs : NULL);
    if (!p) {
        /* Name the line that asked for the size, if one did. */
        topomap_fail(r->err, r->errlen, ENOMEM,
                     "%s:%ld: out of memory for a profile of %d ranks and %zu entries", r->path,
                     r->declared ? r->declared_line : r->l.lineno, n, r->e.len);
        return NULL;
    }
    /* The file's metadata after nranks, in file order; "nranks" itself is
     * the final count already set by build_profile. */
    for (size_t i = 0; i < r->nmeta; i++) {
        if (!strcmp(r->meta[i].key, "nranks"))
            continue;
        if (meta_set(&p->meta, &p->nmeta, r->meta[i].key, strlen(r->meta[i].key),
                     r->meta[i].val, strlen(r->meta[i].val), 0) < 0) {
            topomap_profile_free(p);
            rd_nomem(r);
            return NULL;
        }
    }
    return p;
}

topomap_profile_t *topomap_profile_load(const char *path, int format, char *err, size_t errlen)
{
    if (!path) {
        topomap_fail(err, errlen, EINVAL, "no profile path given");
        return NULL;
    }
    FILE *f = topomap_input_open(path, err, errlen);
    if (!f)
        return NULL;
    struct reader r;
    memset(&r, 0, sizeof r);
    r.l.f = f;
    r.from_stdin = !strcmp(path, "-");
    r.path = r.from_stdin ? "standard input" : path;
    r.l.path = r.path;
    r.err = err;
    r.errlen = errlen;
    r.maxrank = -1;

    /* strtod must read "1.5" whatever locale the calling program set. */
    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old = (locale_t)0;
    if (cloc)
        old = uselocale(cloc);
    topomap_profile_t *p = load_stream(&r, format);
    int e = errno;
    if (cloc) {
        uselocale(old);
        freelocale(cloc);
    }
    topomap_lines_close(&r.l);
    edges_free(&r.e);
    meta_free(r.meta, r.nmeta);
    errno = e;
    return p;
}

topomap_profile_t *topomap_profile_create(int nranks, size_t nedges, const int *src,
                                          const int *dst, const double *bytes,
                                          const double *msgs, char *err, size_t errlen)
{
    if (nranks < 1) {
        topomap_fail(err, errlen, EINVAL, "nranks %d is not a positive rank count", nranks);
        return NULL;
    }
    if (nranks > TOPOMAP_MAX_RANKS) {
        topomap_fail(err, errlen, EINVAL, "nranks %d is over the limit of %d ranks", nranks,
                     TOPOMAP_MAX_RANKS);
        return NULL;
    }
    if (nedges && (!src || !dst || !bytes)) {
        topomap_fail(err, errlen, EINVAL, "%zu entries but no src, dst or bytes array", nedges);
        return NULL;
    }
    double tb = 0, tm = 0;
    for (size_t k = 0; k < nedges; k++) {
        if (src[k] < 0 || src[k] >= nranks || dst[k] < 0 || dst[k] >= nranks) {
            topomap_fail(err, errlen, EINVAL, "entry %zu: rank %d out of range (nranks=%d)", k,
                         src[k] < 0 || src[k] >= nranks ? src[k] : dst[k], nranks);
            return NULL;
        }
        if (!isfinite(bytes[k]) || bytes[k] < 0 || (msgs && (!isfinite(msgs[k]) || msgs[k] < 0))) {
            topomap_fail(err, errlen, EINVAL,
                         "entry %zu: bytes and messages must be finite and non-negative", k);
            return NULL;
        }
        /* As the file reader: bounded totals keep every sum and metric finite. */
        tb += bytes[k];
        tm += msgs ? msgs[k] : 0;
        if (tb > TOPOMAP_MAX_TOTAL || tm > TOPOMAP_MAX_TOTAL) {
            topomap_fail(err, errlen, EINVAL, "entry %zu: total %s pass %g, the limit of a profile",
                         k, tb > TOPOMAP_MAX_TOTAL ? "bytes" : "messages", TOPOMAP_MAX_TOTAL);
            return NULL;
        }
    }
    topomap_profile_t *p = build_profile(nranks, nedges, src, dst, bytes, msgs);
    if (!p)
        topomap_fail(err, errlen, ENOMEM, "out of memory for a profile of %d ranks", nranks);
    return p;
}

int topomap_profile_set_meta(topomap_profile_t *p, const char *key, const char *val)
{
    if (strcmp(key, "nranks") == 0)
        return 0;
    return meta_set(&p->meta, &p->nmeta, key, strlen(key), val, strlen(val), 0);
}

int topomap_profile_copy_meta(topomap_profile_t *dst, const topomap_profile_t *src)
{
    for (size_t i = 0; i < src->nmeta; i++)
        if (topomap_profile_set_meta(dst, src->meta[i].key, src->meta[i].val) < 0)
            return -1;
    return 0;
}

void topomap_profile_free(topomap_profile_t *p)
{
    if (!p)
        return;
    csr_free(&p->dir);
    csr_free(&p->sym);
    meta_free(p->meta, p->nmeta);
    free(p);
}

int topomap_profile_nranks(const topomap_profile_t *p)
{
    return p ? p->n : 0;
}

size_t topomap_profile_nedges(const topomap_profile_t *p)
{
    return p ? (size_t)p->dir.xadj[p->n] : 0;
}

double topomap_profile_total_bytes(const topomap_profile_t *p)
{
    return p ? p->total_bytes : 0;
}

int topomap_profile_has_msgs(const topomap_profile_t *p)
{
    return p ? p->has_msgs : 0;
}

const char *topomap_profile_meta(const topomap_profile_t *p, const char *key)
{
    if (!p || !key)
        return NULL;
    struct meta_entry *e = meta_find(p->meta, p->nmeta, key);
    return e ? e->val : NULL;
}

/* Append v to buf: integers exactly (by hand: fprintf per field made writing
 * three times slower than reading), anything else with the 17 significant
 * digits that read back the same double. Returns the new end. */
static char *put_value(char *buf, double v)
{
    if (v == floor(v) && v >= 0 && v < 9007199254740992.0) {
        char tmp[24];
        int k = 0;
        uint64_t u = (uint64_t)v;
        do
            tmp[k++] = (char)('0' + u % 10);
        while ((u /= 10));
        while (k)
            *buf++ = tmp[--k];
        return buf;
    }
    return buf + sprintf(buf, "%.17g", v);
}

int topomap_profile_write(const topomap_profile_t *p, FILE *f)
{
    if (!p || !f) {
        errno = EINVAL;
        return -1;
    }
    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old = (locale_t)0;
    if (cloc)
        old = uselocale(cloc);
    errno = 0;
    int bad = fprintf(f, "# nranks=%d\n", p->n) < 0;
    for (size_t i = 0; i < p->nmeta && !bad; i++)
        if (strcmp(p->meta[i].key, "nranks"))
            bad = fprintf(f, "# %s=%s\n", p->meta[i].key, p->meta[i].val) < 0;
    /* A profile with message counts but no entry left (every entry was zero)
     * still has its message column: one zero entry, dropped again on reading,
     * says so (a file without entry lines reads back without one). */
    if (!bad && p->has_msgs && p->dir.xadj[p->n] == 0)
        bad = fputs("0 0 0 0\n", f) == EOF;
    for (int i = 0; i < p->n && !bad; i++)
        for (int64_t e = p->dir.xadj[i]; e < p->dir.xadj[i + 1] && !bad; e++) {
            char line[128], *end = put_value(line, i);
            *end++ = ' ';
            end = put_value(end, p->dir.adj[e]);
            *end++ = ' ';
            end = put_value(end, p->dir.bytes[e]);
            if (p->has_msgs) {
                *end++ = ' ';
                end = put_value(end, p->dir.msgs[e]);
            }
            *end++ = '\n';
            bad = fwrite(line, 1, (size_t)(end - line), f) != (size_t)(end - line);
        }
    /* Flush so that a full disk shows up here, not at the caller's fclose. */
    if (!bad)
        bad = fflush(f) == EOF;
    int e = errno;
    if (cloc) {
        uselocale(old);
        freelocale(cloc);
    }
    if (bad || ferror(f)) {
        errno = e ? e : EIO;
        return -1;
    }
    return 0;
}

int topomap_profile_graph(const topomap_profile_t *p, int affinity, int symmetric,
                          topomap_graph_t *out)
{
    if (!p || !out || (affinity != TOPOMAP_AFFINITY_BYTES && affinity != TOPOMAP_AFFINITY_MSGS) ||
        (affinity == TOPOMAP_AFFINITY_MSGS && !p->has_msgs)) {
        errno = EINVAL;
        return -1;
    }
    const struct csr *c = symmetric ? &p->sym : &p->dir;
    out->n = p->n;
    out->xadj = c->xadj;
    out->adj = c->adj;
    out->w = affinity == TOPOMAP_AFFINITY_MSGS ? c->msgs : c->bytes;
    return 0;
}
