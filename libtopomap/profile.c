/* SPDX-License-Identifier: BSD-3-Clause */
/* Communication profiles: the object every other module reads through
 * topomap_profile_graph(), built from entries by topomap_profile_create() and
 * by the file reader, its metadata and accessors. Reading files:
 * profile_read.c (the formats, their detection, the side file) with one file
 * per format (profile_edges.c, profile_dense.c, profile_mtx.c); writing:
 * profile_write.c.
 *
 * Storage: entries with zero bytes and zero messages are dropped; the rest is
 * kept as a directed CSR (diagonal kept) and a symmetric CSR holding
 * A + A^T without its diagonal, both with byte and message weights sharing one
 * structure, built once at load with counting sorts (O(nnz + n), stable, so
 * sums happen in input order and results never depend on anything else).
 * No n x n array exists at any point; the dense reader streams row by row.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "internal.h"
#include "profile_priv.h"

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
int topomap_meta_set(struct meta_entry **m, size_t *n, const char *key, size_t klen,
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

void topomap_meta_free(struct meta_entry *m, size_t n)
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

/* Scratch space for sorting the long rows that are not in order. */
struct row_tmp {
    size_t cap;
    uint64_t *key;
    int *adj;
    double *b, *m;
};

/* Sort row [0, len) of adj (with its bytes b and messages m, m may be NULL)
 * by column, stably: duplicates stay in input order, so their sums do not
 * depend on anything else. Rows in order (a dense matrix, a written profile)
 * are left alone, short ones get an insertion sort, long ones a sort of
 * (column, position) keys. 0, or -1 (ENOMEM). */
static int row_sort(int *adj, double *b, double *m, size_t len, struct row_tmp *t)
{
    size_t k = 1;
    while (k < len && adj[k - 1] <= adj[k])
        k++;
    if (k >= len)
        return 0;
    if (len <= 32) {
        for (; k < len; k++) {
            int a = adj[k];
            double vb = b[k], vm = m ? m[k] : 0;
            size_t j = k;
            for (; j > 0 && adj[j - 1] > a; j--) {
                adj[j] = adj[j - 1];
                b[j] = b[j - 1];
                if (m)
                    m[j] = m[j - 1];
            }
            adj[j] = a;
            b[j] = vb;
            if (m)
                m[j] = vm;
        }
        return 0;
    }
    if (len > t->cap) {
        free(t->key);
        free(t->adj);
        free(t->b);
        free(t->m);
        t->key = malloc(len * sizeof *t->key);
        t->adj = malloc(len * sizeof *t->adj);
        t->b = malloc(len * sizeof *t->b);
        t->m = malloc(len * sizeof *t->m);
        t->cap = t->key && t->adj && t->b && t->m ? len : 0;
        if (!t->cap)
            return -1;
    }
    for (k = 0; k < len; k++)
        t->key[k] = (uint64_t)(unsigned)adj[k] << 32 | k;
    qsort(t->key, len, sizeof *t->key, topomap_cmp_i64); /* keys < 2^54 */
    memcpy(t->adj, adj, len * sizeof *adj);
    memcpy(t->b, b, len * sizeof *b);
    if (m)
        memcpy(t->m, m, len * sizeof *m);
    for (k = 0; k < len; k++) {
        size_t from = (size_t)(t->key[k] & 0xffffffffu);
        adj[k] = t->adj[from];
        b[k] = t->b[from];
        if (m)
            m[k] = t->m[from];
    }
    return 0;
}

/* Directed CSR of the m entries, keeping only those with bytes or msgs
 * nonzero, duplicates summed. Ranks are already checked to be in [0, n).
 * One counting sort by source places each entry in its row (input order
 * kept), then each row is sorted by destination and its duplicates summed
 * in place. */
static int build_directed(int n, size_t m, const int *src, const int *dst, const double *bytes,
                          const double *msgs, struct csr *c)
{
    size_t keep = 0;
    int64_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
    struct row_tmp t = {0};
    c->xadj = calloc((size_t)n + 1, sizeof *c->xadj);
    if (!pos || !c->xadj)
        goto nomem;
    for (size_t k = 0; k < m; k++)
        if (bytes[k] > 0 || (msgs && msgs[k] > 0)) {
            c->xadj[src[k] + 1]++;
            keep++;
        }
    c->adj = malloc((keep ? keep : 1) * sizeof *c->adj);
    c->bytes = malloc((keep ? keep : 1) * sizeof *c->bytes);
    c->msgs = msgs ? malloc((keep ? keep : 1) * sizeof *c->msgs) : NULL;
    if (!c->adj || !c->bytes || (msgs && !c->msgs))
        goto nomem;
    for (int i = 0; i < n; i++)
        c->xadj[i + 1] += c->xadj[i];
    memcpy(pos, c->xadj, ((size_t)n + 1) * sizeof *pos);
    for (size_t k = 0; k < m; k++)
        if (bytes[k] > 0 || (msgs && msgs[k] > 0)) {
            int64_t e = pos[src[k]]++;
            c->adj[e] = dst[k];
            c->bytes[e] = bytes[k];
            if (msgs)
                c->msgs[e] = msgs[k];
        }
    /* Rows sorted and merged, moved down over the duplicates removed. */
    int64_t out = 0;
    for (int i = 0; i < n; i++) {
        int64_t a = c->xadj[i], e = c->xadj[i + 1];
        double *rm = msgs ? c->msgs + a : NULL;
        if (row_sort(c->adj + a, c->bytes + a, rm, (size_t)(e - a), &t) < 0)
            goto nomem;
        c->xadj[i] = out;
        for (int64_t k = a; k < e; k++) {
            if (k > a && c->adj[k] == c->adj[out - 1]) {
                c->bytes[out - 1] += c->bytes[k];
                if (msgs)
                    c->msgs[out - 1] += c->msgs[k];
                continue;
            }
            c->adj[out] = c->adj[k];
            c->bytes[out] = c->bytes[k];
            if (msgs)
                c->msgs[out] = c->msgs[k];
            out++;
        }
    }
    c->xadj[n] = out;
    free(pos);
    free(t.key);
    free(t.adj);
    free(t.b);
    free(t.m);
    return 0;
nomem:
    free(pos);
    free(t.key);
    free(t.adj);
    free(t.b);
    free(t.m);
    csr_free(c);
    memset(c, 0, sizeof *c);
    errno = ENOMEM;
    return -1;
}

/* One entry of the transpose on its way to its column. */
struct tentry {
    int dst, src;
    double b, m;
};

/* Rows [b0, b0 + w) of the symmetric CSR: row i merges row i of d with
 * column i of d, the len entries t (in row order) sorted here by column into
 * the scratch arrays (cnt: w + 1 offsets, pos: w), skipping the diagonal.
 * Appends at s's entry *out and sets s->xadj[b0 + 1 ..]. */
static void sym_block(const struct csr *d, const struct tentry *t, int64_t len, int b0, int w,
                      struct csr *s, int64_t *out, int64_t *cnt, int64_t *pos, int *ladj,
                      double *lb, double *lm)
{
    memset(cnt, 0, ((size_t)w + 1) * sizeof *cnt);
    for (int64_t k = 0; k < len; k++)
        cnt[t[k].dst - b0 + 1]++;
    for (int c = 0; c < w; c++)
        cnt[c + 1] += cnt[c];
    memcpy(pos, cnt, (size_t)w * sizeof *pos);
    for (int64_t k = 0; k < len; k++) {
        int64_t q = pos[t[k].dst - b0]++;
        ladj[q] = t[k].src;
        lb[q] = t[k].b;
        lm[q] = t[k].m;
    }
    int64_t o = *out;
    for (int i = b0; i < b0 + w; i++) {
        int64_t a = d->xadj[i], ae = d->xadj[i + 1], b = cnt[i - b0], be = cnt[i - b0 + 1];
        while (a < ae || b < be) {
            int ja = a < ae ? d->adj[a] : INT_MAX, jb = b < be ? ladj[b] : INT_MAX;
            int j = ja < jb ? ja : jb;
            double wb = 0, wm = 0;
            if (ja == j) {
                wb += d->bytes[a];
                wm += d->msgs ? d->msgs[a] : 0;
                a++;
            }
            if (jb == j) {
                wb += lb[b];
                wm += lm[b];
                b++;
            }
            if (j == i)
                continue;
            s->adj[o] = j;
            s->bytes[o] = wb;
            if (s->msgs)
                s->msgs[o] = wm;
            o++;
        }
        s->xadj[i + 1] = o;
    }
    *out = o;
}

/* Symmetric CSR of d: row i merges row i of d and row i of d^T (column i of
 * d), both sorted, skipping the diagonal. w(i,j) = d(i,j) + d(j,i), exactly
 * symmetric because floating-point addition commutes.
 * The transpose is never built whole: with many ranks, scattering entries
 * straight to their columns misses the cache at every entry (most of a
 * million-rank load). Entries go first to blocks of 2048 columns, in row
 * order; each block is then sorted by column within a few hundred kB and
 * merged at once with the rows of d it covers. */
static int build_symmetric(int n, const struct csr *d, struct csr *s)
{
    enum { SHIFT = 11, BLOCK = 1 << SHIFT };
    int64_t nnz = d->xadj[n], big = 1;
    int nb = ((n - 1) >> SHIFT) + 1;
    int64_t *bstart = calloc((size_t)nb + 1, sizeof *bstart);
    int64_t *bpos = malloc((size_t)nb * sizeof *bpos);
    int64_t *cnt = malloc((BLOCK + 1) * sizeof *cnt), *pos = malloc(BLOCK * sizeof *pos);
    struct tentry *tmp = malloc((size_t)(nnz ? nnz : 1) * sizeof *tmp);
    int *ladj = NULL;
    double *lb = NULL, *lm = NULL;
    memset(s, 0, sizeof *s);
    if (!bstart || !bpos || !cnt || !pos || !tmp)
        goto nomem;
    for (int64_t e = 0; e < nnz; e++)
        bstart[(d->adj[e] >> SHIFT) + 1]++;
    for (int b = 0; b < nb; b++) {
        big = bstart[b + 1] > big ? bstart[b + 1] : big;
        bstart[b + 1] += bstart[b];
    }
    memcpy(bpos, bstart, (size_t)nb * sizeof *bpos);
    for (int i = 0; i < n; i++)
        for (int64_t e = d->xadj[i]; e < d->xadj[i + 1]; e++) {
            struct tentry *x = &tmp[bpos[d->adj[e] >> SHIFT]++];
            x->dst = d->adj[e];
            x->src = i;
            x->b = d->bytes[e];
            x->m = d->msgs ? d->msgs[e] : 0;
        }
    ladj = malloc((size_t)big * sizeof *ladj);
    lb = malloc((size_t)big * sizeof *lb);
    lm = malloc((size_t)big * sizeof *lm);
    /* At most 2 nnz entries; trimmed by the caller. */
    size_t cap = nnz ? 2 * (size_t)nnz : 1;
    s->xadj = calloc((size_t)n + 1, sizeof *s->xadj);
    s->adj = malloc(cap * sizeof *s->adj);
    s->bytes = malloc(cap * sizeof *s->bytes);
    s->msgs = d->msgs ? malloc(cap * sizeof *s->msgs) : NULL;
    if (!ladj || !lb || !lm || !s->xadj || !s->adj || !s->bytes || (d->msgs && !s->msgs))
        goto nomem;
    int64_t out = 0;
    for (int b = 0; b < nb; b++) {
        int b0 = b << SHIFT, w = n - b0 < BLOCK ? n - b0 : BLOCK;
        sym_block(d, tmp + bstart[b], bstart[b + 1] - bstart[b], b0, w, s, &out, cnt, pos, ladj,
                  lb, lm);
    }
    int rc = 0;
    goto done;
nomem:
    csr_free(s);
    memset(s, 0, sizeof *s);
    rc = -1;
done:
    free(bstart);
    free(bpos);
    free(cnt);
    free(pos);
    free(tmp);
    free(ladj);
    free(lb);
    free(lm);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
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

/* The profile of n ranks over the directed CSR *d, taken over (and freed on
 * failure too). */
topomap_profile_t *topomap_profile_from_csr(int n, int has_msgs, struct csr *d)
{
    topomap_profile_t *p = calloc(1, sizeof *p);
    if (!p) {
        csr_free(d);
        memset(d, 0, sizeof *d);
        return NULL;
    }
    p->n = n;
    p->has_msgs = has_msgs;
    p->dir = *d;
    memset(d, 0, sizeof *d);
    if (build_symmetric(n, &p->dir, &p->sym) < 0) {
        topomap_profile_free(p);
        errno = ENOMEM;
        return NULL;
    }
    csr_trim(&p->sym, n);
    for (int64_t e = 0; e < p->dir.xadj[n]; e++)
        p->total_bytes += p->dir.bytes[e];
    char num[24];
    int len = snprintf(num, sizeof num, "%d", n);
    if (topomap_meta_set(&p->meta, &p->nmeta, "nranks", 6, num, (size_t)len, 0) < 0) {
        topomap_profile_free(p);
        return NULL;
    }
    return p;
}

/* The profile of m entries on n ranks (ranks already validated). */
topomap_profile_t *topomap_profile_build(int n, size_t m, const int *src, const int *dst,
                                         const double *bytes, const double *msgs)
{
    struct csr d;
    memset(&d, 0, sizeof d);
    if (build_directed(n, m, src, dst, bytes, msgs, &d) < 0)
        return NULL;
    csr_trim(&d, n);
    return topomap_profile_from_csr(n, msgs != NULL, &d);
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
    topomap_profile_t *p = topomap_profile_build(nranks, nedges, src, dst, bytes, msgs);
    if (!p)
        topomap_fail(err, errlen, ENOMEM, "out of memory for a profile of %d ranks", nranks);
    return p;
}

int topomap_profile_set_meta(topomap_profile_t *p, const char *key, const char *val)
{
    if (strcmp(key, "nranks") == 0)
        return 0;
    return topomap_meta_set(&p->meta, &p->nmeta, key, strlen(key), val, strlen(val), 0);
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
    topomap_meta_free(p->meta, p->nmeta);
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

int topomap_profile_graph(const topomap_profile_t *p, topomap_affinity_t affinity, int symmetric,
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
