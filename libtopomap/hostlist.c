/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm hostlist expressions: "cn[0000-0003,0010],login1", "r[1-2]n[01-02]".
 * Follows the syntax of Slurm's hostlist.c (scontrol show hostnames), written
 * from its documented behaviour: zero padding is the width of the lower bound
 * ("[08-10]" -> 08 09 10, "[8-10]" -> 8 9 10), several bracket groups expand as
 * a cartesian product with the last group fastest, order and duplicates kept.
 * Commas and whitespace outside brackets separate names. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "internal.h"

/* Cap on the names one expression may expand to: "n[0-999999999]" is a typo,
 * not a machine, and must not exhaust memory. Checked on the counts of the
 * ranges before any name is made. */
#define HOSTLIST_MAX_NAMES ((unsigned)TOPOMAP_MAX_NODES)
/* Range bounds have at most this many digits (fits in unsigned long long). */
#define HOSTLIST_MAX_DIGITS 18

struct topomap_hostlist {
    size_t n, cap;     /* names */
    size_t *off;       /* n offsets into buf */
    char *buf;         /* NUL-terminated names back to back */
    size_t len, bufcap;
    const char **name; /* n pointers into buf, built by hostlist_seal() */
};

topomap_hostlist_t *topo_hostlist_new(void)
{
    return calloc(1, sizeof(topomap_hostlist_t));
}

int topo_hostlist_push(topomap_hostlist_t *hl, const char *name, size_t len)
{
    if (hl->n == hl->cap) {
        size_t cap = hl->cap ? 2 * hl->cap : 16;
        size_t *off = realloc(hl->off, cap * sizeof *off);
        if (!off)
            return -1;
        hl->off = off;
        hl->cap = cap;
    }
    if (hl->len + len + 1 > hl->bufcap) {
        size_t cap = hl->bufcap ? 2 * hl->bufcap : 256;
        while (cap < hl->len + len + 1)
            cap *= 2;
        char *buf = realloc(hl->buf, cap);
        if (!buf)
            return -1;
        hl->buf = buf;
        hl->bufcap = cap;
    }
    memcpy(hl->buf + hl->len, name, len);
    hl->buf[hl->len + len] = 0;
    hl->off[hl->n++] = hl->len;
    hl->len += len + 1;
    free(hl->name); /* stale once names move */
    hl->name = NULL;
    return 0;
}

/* Build the pointer array once all names are in (buf no longer moves). */
int topo_hostlist_seal(topomap_hostlist_t *hl)
{
    free(hl->name);
    hl->name = malloc((hl->n ? hl->n : 1) * sizeof *hl->name);
    if (!hl->name)
        return -1;
    for (size_t i = 0; i < hl->n; i++)
        hl->name[i] = hl->buf + hl->off[i];
    return 0;
}

size_t topomap_hostlist_count(const topomap_hostlist_t *hl)
{
    return hl ? hl->n : 0;
}

const char *topomap_hostlist_get(const topomap_hostlist_t *hl, size_t i)
{
    if (!hl || i >= hl->n)
        return NULL;
    return hl->name ? hl->name[i] : hl->buf + hl->off[i];
}

void topomap_hostlist_free(topomap_hostlist_t *hl)
{
    if (!hl)
        return;
    free(hl->off);
    free(hl->buf);
    free(hl->name);
    free(hl);
}

/* ---- parsing ------------------------------------------------------------ */

struct range {
    unsigned long long lo, hi;
    int width;
};

struct group {          /* one "[...]" */
    size_t prefix_start, prefix_len; /* literal text before it, in the item */
    struct range *r;
    int nr;
    unsigned long long count;
    /* group_value's place: the range of the last value asked and the
     * number of values in the ranges before it. */
    int cur_k;
    unsigned long long cur_base;
};

/* Parse the inside of one bracket group, item[start..end) (brackets excluded). */
static int parse_group(const char *expr, const char *s, size_t len, struct group *g, char *err,
                       size_t errlen)
{
    size_t i = 0;
    int cap = 0;
    g->count = 0;
    if (len == 0)
        return topomap_fail(err, errlen, EINVAL, "hostlist '%s': empty brackets '[]'", expr);
    while (i <= len) {
        char lo[HOSTLIST_MAX_DIGITS + 1], hi[HOSTLIST_MAX_DIGITS + 1];
        size_t a = i, nlo = 0, nhi = 0;
        while (i < len && isdigit((unsigned char)s[i]))
            i++;
        nlo = i - a;
        if (nlo == 0) {
            if (i < len && s[i] != ',' && s[i] != '-')
                return topomap_fail(err, errlen, EINVAL,
                                    "hostlist '%s': unexpected '%c' inside brackets", expr, s[i]);
            return topomap_fail(err, errlen, EINVAL,
                                "hostlist '%s': missing number inside brackets", expr);
        }
        if (nlo > HOSTLIST_MAX_DIGITS)
            return topomap_fail(err, errlen, EINVAL, "hostlist '%s': number '%.*s' is too long",
                                expr, (int)nlo, s + a);
        memcpy(lo, s + a, nlo);
        lo[nlo] = 0;
        const char *hs = lo;
        if (i < len && s[i] == '-') {
            a = ++i;
            while (i < len && isdigit((unsigned char)s[i]))
                i++;
            nhi = i - a;
            if (nhi == 0)
                return topomap_fail(err, errlen, EINVAL,
                                    "hostlist '%s': range '%s-' has no upper bound", expr, lo);
            if (nhi > HOSTLIST_MAX_DIGITS)
                return topomap_fail(err, errlen, EINVAL,
                                    "hostlist '%s': number '%.*s' is too long", expr, (int)nhi,
                                    s + a);
            memcpy(hi, s + a, nhi);
            hi[nhi] = 0;
            hs = hi;
        }
        if (i < len && s[i] != ',')
            return topomap_fail(err, errlen, EINVAL,
                                "hostlist '%s': unexpected '%c' inside brackets", expr, s[i]);
        struct range r = {strtoull(lo, NULL, 10), strtoull(hs, NULL, 10), (int)nlo};
        if (r.hi < r.lo)
            return topomap_fail(err, errlen, EINVAL,
                                "hostlist '%s': reversed range '%s-%s'", expr, lo, hs);
        if (g->nr == cap) {
            cap = cap ? 2 * cap : 4;
            struct range *nr = realloc(g->r, (size_t)cap * sizeof *nr);
            if (!nr)
                return topomap_fail(err, errlen, ENOMEM, "out of memory");
            g->r = nr;
        }
        g->r[g->nr++] = r;
        g->count += r.hi - r.lo + 1;
        if (g->count > HOSTLIST_MAX_NAMES)
            return topomap_fail(err, errlen, EINVAL,
                                "hostlist '%s' expands to more than %u names", expr,
                                HOSTLIST_MAX_NAMES);
        if (i == len)
            break;
        i++; /* ',' */
        if (i == len)
            return topomap_fail(err, errlen, EINVAL,
                                "hostlist '%s': missing number inside brackets", expr);
    }
    return 0;
}

/* The v-th value (0-based) of a group, formatted into out. The expansion
 * asks for a group's values in increasing order, starting again from 0 when
 * a group to its left moves on, so the search resumes at the range of the
 * previous value: O(1) amortised per name instead of O(ranges), which made
 * a bracket of 80,000 single numbers (what topomap_hostlist_compress writes
 * for names numbered in the middle) take seconds to expand (found by
 * fuzzing: tests/fuzz/regress/hostlist/long-list). */
static int group_value(struct group *g, unsigned long long v, char *out)
{
    int k = g->cur_k;
    unsigned long long base = g->cur_base;
    if (v < base) {
        k = 0;
        base = 0;
    }
    for (; k < g->nr; k++) {
        unsigned long long c = g->r[k].hi - g->r[k].lo + 1;
        if (v - base < c) {
            g->cur_k = k;
            g->cur_base = base;
            return sprintf(out, "%0*llu", g->r[k].width, g->r[k].lo + (v - base));
        }
        base += c;
    }
    return 0; /* not reached: v < g->count */
}

/* Expand one item (no top-level separators) into hl. */
static int expand_item(const char *expr, const char *item, size_t len, topomap_hostlist_t *hl,
                       char *err, size_t errlen)
{
    struct group *g = NULL;
    int ng = 0, cap = 0, rc = -1;
    size_t lit = 0, i = 0;
    char *name = NULL;
    /* Host names end up in mapping files, hostfiles and on terminals: no
     * control characters (Slurm's names have none either). */
    for (size_t k = 0; k < len; k++)
        if ((unsigned char)item[k] < 0x20 || item[k] == 0x7f) {
            topomap_fail(err, errlen, EINVAL,
                         "hostlist '%s': control character 0x%02x in a host name", expr,
                         (unsigned char)item[k]);
            goto out;
        }
    while (i < len) {
        if (item[i] == ']') {
            topomap_fail(err, errlen, EINVAL, "hostlist '%s': unbalanced ']'", expr);
            goto out;
        }
        if (item[i] != '[') {
            i++;
            continue;
        }
        size_t close = i + 1;
        while (close < len && item[close] != ']' && item[close] != '[')
            close++;
        if (close == len || item[close] == '[') {
            topomap_fail(err, errlen, EINVAL, "hostlist '%s': unbalanced '['", expr);
            goto out;
        }
        if (ng == cap) {
            cap = cap ? 2 * cap : 4;
            struct group *ngp = realloc(g, (size_t)cap * sizeof *ngp);
            if (!ngp) {
                topomap_fail(err, errlen, ENOMEM, "out of memory");
                goto out;
            }
            g = ngp;
        }
        memset(&g[ng], 0, sizeof g[ng]);
        g[ng].prefix_start = lit;
        g[ng].prefix_len = i - lit;
        ng++;
        if (parse_group(expr, item + i + 1, close - i - 1, &g[ng - 1], err, errlen) < 0)
            goto out;
        i = lit = close + 1;
    }
    /* lit..len is the text after the last group. */
    unsigned long long total = 1;
    for (int k = 0; k < ng; k++) {
        total *= g[k].count;
        if (total > HOSTLIST_MAX_NAMES || hl->n + total > HOSTLIST_MAX_NAMES) {
            topomap_fail(err, errlen, EINVAL, "hostlist '%s' expands to more than %u names", expr,
                         HOSTLIST_MAX_NAMES);
            goto out;
        }
    }
    /* Longest name: the item's literal text plus the widest value per group. */
    size_t maxlen = len + 1 + (size_t)ng * (HOSTLIST_MAX_DIGITS + 2);
    name = malloc(maxlen);
    if (!name) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if (ng > 64) {
        topomap_fail(err, errlen, EINVAL, "hostlist '%s': too many bracket groups", expr);
        goto out;
    }
    for (unsigned long long idx = 0; idx < total; idx++) {
        /* Mixed radix, last group fastest. */
        unsigned long long rest = idx, digit[64];
        for (int k = ng - 1; k >= 0; k--) {
            digit[k] = rest % g[k].count;
            rest /= g[k].count;
        }
        size_t p = 0;
        for (int k = 0; k < ng; k++) {
            memcpy(name + p, item + g[k].prefix_start, g[k].prefix_len);
            p += g[k].prefix_len;
            p += (size_t)group_value(&g[k], digit[k], name + p);
        }
        memcpy(name + p, item + lit, len - lit);
        p += len - lit;
        if (topo_hostlist_push(hl, name, p) < 0) {
            topomap_fail(err, errlen, ENOMEM, "out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    for (int k = 0; k < ng; k++)
        free(g[k].r);
    free(g);
    free(name);
    return rc;
}

topomap_hostlist_t *topomap_hostlist_parse(const char *expr, char *err, size_t errlen)
{
    if (!expr) {
        topomap_fail(err, errlen, EINVAL, "hostlist: NULL expression");
        return NULL;
    }
    topomap_hostlist_t *hl = topo_hostlist_new();
    if (!hl) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        return NULL;
    }
    const char *p = expr;
    int depth = 0, after_comma = 0;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == ',') {
        topomap_fail(err, errlen, EINVAL, "hostlist '%s': empty host name before ','", expr);
        goto fail;
    }
    while (*p) {
        /* One item: up to a comma or whitespace outside brackets. */
        const char *s = p;
        depth = 0;
        while (*p && (depth > 0 || (*p != ',' && !isspace((unsigned char)*p)))) {
            if (*p == '[')
                depth++;
            else if (*p == ']')
                depth--;
            if (depth < 0 || depth > 1)
                break;
            p++;
        }
        if (depth < 0) {
            topomap_fail(err, errlen, EINVAL, "hostlist '%s': unbalanced ']'", expr);
            goto fail;
        }
        if (depth > 1) {
            topomap_fail(err, errlen, EINVAL, "hostlist '%s': nested '['", expr);
            goto fail;
        }
        if (depth == 1) {
            topomap_fail(err, errlen, EINVAL, "hostlist '%s': unbalanced '['", expr);
            goto fail;
        }
        if (p == s) {
            topomap_fail(err, errlen, EINVAL, "hostlist '%s': empty host name", expr);
            goto fail;
        }
        if (expand_item(expr, s, (size_t)(p - s), hl, err, errlen) < 0)
            goto fail;
        /* Separator: whitespace, at most one comma, whitespace. */
        after_comma = 0;
        while (*p == ',' || isspace((unsigned char)*p)) {
            if (*p == ',') {
                if (after_comma) {
                    topomap_fail(err, errlen, EINVAL, "hostlist '%s': empty host name between ','",
                                 expr);
                    goto fail;
                }
                after_comma = 1;
            }
            p++;
        }
        if (after_comma && !*p) {
            topomap_fail(err, errlen, EINVAL, "hostlist '%s': empty host name after ','", expr);
            goto fail;
        }
    }
    if (topo_hostlist_seal(hl) < 0) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    return hl;
fail:
    topomap_hostlist_free(hl);
    return NULL;
}

/* ---- compression -------------------------------------------------------- */

struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

/* Split name into prefix length and numeric suffix; 0 if it has no usable
 * numeric suffix (none, too long, or characters a hostlist cannot carry). */
static int split_suffix(const char *name, size_t *plen, unsigned long long *val, int *width)
{
    size_t n = strlen(name), i = n;
    if (strpbrk(name, "[],") || n == 0)
        return 0;
    while (i > 0 && isdigit((unsigned char)name[i - 1]))
        i--;
    if (i == n || n - i > HOSTLIST_MAX_DIGITS)
        return 0;
    *plen = i;
    *val = strtoull(name + i, NULL, 10);
    *width = (int)(n - i);
    return 1;
}

/* Does the suffix of value v, printed with group width w, give back the name's
 * digits? (natural numbers fit any width up to their length; zero-padded ones
 * only their own width). */
static int fits(unsigned long long v, int len, int w)
{
    char tmp[32];
    return snprintf(tmp, sizeof tmp, "%0*llu", w, v) == len;
}

char *topomap_hostlist_compress(const char *const *names, size_t n)
{
    struct sbuf b = {0};
    char num[64];
    sb_add(&b, "", 0);
    size_t i = 0;
    while (i < n) {
        size_t plen;
        unsigned long long v;
        int w;
        if (i)
            sb_add(&b, ",", 1);
        if (!split_suffix(names[i], &plen, &v, &w)) {
            sb_add(&b, names[i], strlen(names[i]));
            i++;
            continue;
        }
        /* Extend the group while the prefix matches and the width fits. */
        size_t j = i + 1;
        for (; j < n; j++) {
            size_t pl2;
            unsigned long long v2;
            int w2;
            if (!split_suffix(names[j], &pl2, &v2, &w2) || pl2 != plen ||
                memcmp(names[j], names[i], plen) || !fits(v2, w2, w))
                break;
        }
        sb_add(&b, names[i], plen);
        if (j == i + 1) {
            sb_add(&b, names[i] + plen, strlen(names[i] + plen));
            i = j;
            continue;
        }
        sb_add(&b, "[", 1);
        size_t k = i;
        while (k < j) {
            unsigned long long lo, hi;
            size_t pl2;
            int w2;
            split_suffix(names[k], &pl2, &lo, &w2);
            hi = lo;
            size_t m = k + 1;
            while (m < j) {
                unsigned long long v2;
                split_suffix(names[m], &pl2, &v2, &w2);
                if (hi == ~0ULL || v2 != hi + 1)
                    break;
                hi = v2;
                m++;
            }
            if (k > i)
                sb_add(&b, ",", 1);
            sb_add(&b, num, (size_t)snprintf(num, sizeof num, "%0*llu", w, lo));
            if (hi > lo) {
                sb_add(&b, "-", 1);
                sb_add(&b, num, (size_t)snprintf(num, sizeof num, "%0*llu", w, hi));
            }
            k = m;
        }
        sb_add(&b, "]", 1);
        i = j;
    }
    if (b.oom) {
        free(b.s);
        errno = ENOMEM;
        return NULL;
    }
    return b.s;
}
