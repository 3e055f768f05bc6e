/* SPDX-License-Identifier: BSD-3-Clause */
/* The line reader the profile parsers share (profile_edges.c,
 * profile_dense.c, profile_mtx.c, and profile_bin.c for its metadata keys):
 * lines with one line of push-back, comments and "# key=value" metadata,
 * fields, numbers and ranks checked with messages naming the line, and the
 * entries read so far with their bounded totals. The formats are described
 * at the top of profile_read.c, which drives it. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "profile_priv.h"
#include "input.h"

int topomap_edges_push(struct edges *e, int s, int d, double b, double m)
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

void topomap_rd_edges_free(struct edges *e)
{
    free(e->src);
    free(e->dst);
    free(e->bytes);
    free(e->msgs);
}

int topomap_rd_fail(struct reader *r, const char *fmt, ...)
{
    char msg[TOPOMAP_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return topomap_fail(r->err, r->errlen, EINVAL, "%s:%ld: %s", r->path, r->l.lineno, msg);
}

int topomap_rd_nomem(struct reader *r)
{
    return topomap_fail(r->err, r->errlen, ENOMEM, "%s:%ld: out of memory", r->path,
                        r->l.lineno);
}

/* A token made printable and short for messages. */
const char *topomap_rd_shown(const char *tok, char buf[40])
{
    return topomap_printable(tok, buf, 40);
}

/* Next raw line: 1, 0 at end of file, -1 on a read error (message set). */
int topomap_rd_raw(struct reader *r)
{
    if (r->pushed) {
        r->pushed = 0;
        return 1;
    }
    /* A NUL byte (a binary or corrupt file) is an error naming its line;
     * corrupt gzip data is one too (libtopomap/input.c). */
    return topomap_lines_next(&r->l, r->err, r->errlen);
}

/* Metadata keys: what rd_comment() recognises, so that written metadata reads
 * back. */
int topomap_rd_is_key(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return 0;
    return len > 0;
}

/* len bytes of s, all digits; values past LONG_MAX are errors. */
int topomap_rd_count(const char *s, size_t len, long *out)
{
    int k = topomap_scan_count(s, LONG_MAX, out);
    return k > 0 && (size_t)k == len ? 0 : -1;
}

/* Record the rank count n declared on the current line. */
int topomap_rd_declare(struct reader *r, long n, const char *what)
{
    if (n < 1)
        return topomap_rd_fail(r, "%s %ld is not a positive rank count", what, n);
    if (n > TOPOMAP_MAX_RANKS)
        return topomap_rd_fail(r, "%s %ld is over the limit of %d ranks", what, n,
                               TOPOMAP_MAX_RANKS);
    if (r->declared && r->declared != n)
        return topomap_rd_fail(r, "%s %ld conflicts with nranks=%d given on line %ld", what, n,
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
        if (topomap_rd_count(s, vlen, &n) < 0)
            return topomap_rd_fail(r, "nranks '%s' is not a positive integer",
                                   topomap_rd_shown(tmp, buf));
        if (topomap_rd_declare(r, n, "nranks") < 0)
            return -1;
    }
    if (topomap_meta_set(&r->meta, &r->nmeta, k, klen, s, vlen, 0) < 0)
        return topomap_rd_nomem(r);
    return 0;
}

/* Next data line, skipping blank lines and comments (lines whose first
 * non-blank character is cc; '#' comments also end a data line early and
 * carry metadata). 1, 0 at end of file, -1 on error. */
int topomap_rd_data(struct reader *r, char cc)
{
    for (;;) {
        int rc = topomap_rd_raw(r);
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
int topomap_rd_split(struct reader *r, char **tok, int max)
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
int topomap_rd_value(struct reader *r, const char *tok, double *out)
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
        return topomap_rd_fail(r, "'%s' is not a number", topomap_rd_shown(tok, buf));
    if (!isfinite(d))
        return topomap_rd_fail(r, "'%s' is not a finite number", topomap_rd_shown(tok, buf));
    if (d < 0)
        return topomap_rd_fail(r, "negative value '%s'", topomap_rd_shown(tok, buf));
    *out = d == 0 ? 0.0 : d; /* no -0 */
    return 0;
}

/* A rank written with base 0 (edge list) or 1 (Matrix Market), checked
 * against the declared rank count if there is one. */
int topomap_rd_rank(struct reader *r, const char *tok, int base, int *out)
{
    long v;
    char buf[40];
    if (topomap_rd_count(tok, strlen(tok), &v) < 0) {
        if (tok[0] == '-' && !topomap_rd_count(tok + 1, strlen(tok + 1), &v))
            return topomap_rd_fail(r, "negative rank '%s'", topomap_rd_shown(tok, buf));
        return topomap_rd_fail(r, "rank '%s' is not a non-negative integer",
                               topomap_rd_shown(tok, buf));
    }
    if (!r->declared && v - base >= TOPOMAP_MAX_RANKS)
        return topomap_rd_fail(r, "rank %s is over the limit of %d ranks",
                               topomap_rd_shown(tok, buf), TOPOMAP_MAX_RANKS);
    if (v < base || (r->declared && v - base >= r->declared)) {
        if (base)
            return topomap_rd_fail(r, "index %s out of range 1..%d", topomap_rd_shown(tok, buf),
                                   r->declared);
        if (r->declared)
            return topomap_rd_fail(r, "rank %s out of range (nranks=%d)",
                                   topomap_rd_shown(tok, buf), r->declared);
        return topomap_rd_fail(r, "rank %s out of range", topomap_rd_shown(tok, buf));
    }
    *out = (int)(v - base);
    if (*out > r->maxrank) {
        r->maxrank = *out;
        r->maxrank_line = r->l.lineno;
    }
    return 0;
}

int topomap_rd_push(struct reader *r, int s, int d, double b, double m)
{
    /* Values are finite and non-negative, so every sum the profile and the
     * metrics form stays below the totals: bounding these keeps them finite. */
    r->tbytes += b;
    r->tmsgs += m;
    if (r->tbytes > TOPOMAP_MAX_TOTAL || r->tmsgs > TOPOMAP_MAX_TOTAL)
        return topomap_rd_fail(r, "total %s pass %g, the limit of a profile",
                               r->tbytes > TOPOMAP_MAX_TOTAL ? "bytes" : "messages",
                               TOPOMAP_MAX_TOTAL);
    return topomap_edges_push(&r->e, s, d, b, m) < 0 ? topomap_rd_nomem(r) : 0;
}
