/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiles as edge lists: "src dst bytes [msgs]" lines (0-based ranks),
 * optionally after a rank-count line; see profile_read.c for the rules all
 * formats share. */
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "profile_priv.h"

static int is_sep(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == ',';
}

/* At most max digits at *s followed by a separator or the end, as an integer
 * in *v; advances *s past them and the separators after. 0, or -1 (nothing
 * read: anything else goes through the general path). */
static int fast_digits(const char **s, int max, uint64_t *v)
{
    const char *p = *s;
    uint64_t x = 0;
    int i = 0;
    while (i < max && p[i] >= '0' && p[i] <= '9') {
        x = x * 10 + (uint64_t)(p[i] - '0');
        i++;
    }
    if (!i || (p[i] && !is_sep(p[i])))
        return -1;
    p += i;
    while (is_sep(*p))
        p++;
    *s = p;
    *v = x;
    return 0;
}

/* The common line, "src dst bytes [msgs]" with want fields of plain
 * integers and ranks in range, read without splitting it: 1 when read and
 * pushed, 0 for anything else (the general path then reads it and words any
 * error), -1 when pushing fails (message set). Ranks of at most 9 digits and
 * values of at most 15 are exact and take the same checks as
 * topomap_rd_rank() and topomap_rd_value(). */
static int fast_line(struct reader *r, int want)
{
    const char *s = r->l.line;
    uint64_t f[4];
    while (is_sep(*s))
        s++;
    for (int k = 0; k < want; k++)
        if (fast_digits(&s, k < 2 ? 9 : 15, &f[k]) < 0)
            return 0;
    uint64_t lim = r->declared ? (uint64_t)r->declared : TOPOMAP_MAX_RANKS;
    if (*s || f[0] >= lim || f[1] >= lim)
        return 0;
    int src = (int)f[0], dst = (int)f[1];
    int top = src > dst ? src : dst;
    if (top > r->maxrank) {
        r->maxrank = top;
        r->maxrank_line = r->l.lineno;
    }
    return topomap_rd_push(r, src, dst, (double)f[2], want == 4 ? (double)f[3] : 0) < 0 ? -1 : 1;
}

/* "src dst bytes [msgs]" lines, optionally preceded by a rank-count line. */
int topomap_profile_parse_edges(struct reader *r)
{
    char *tok[5];
    int first = 1, want = 0, rc;
    while ((rc = topomap_rd_data(r, '#')) > 0) {
        int fast = want ? fast_line(r, want) : 0;
        if (fast < 0)
            return -1;
        if (fast)
            continue;
        int nt = topomap_rd_split(r, tok, 5);
        if (first && nt == 1) {
            long n;
            char buf[40];
            first = 0;
            if (topomap_rd_count(tok[0], strlen(tok[0]), &n) < 0)
                return topomap_rd_fail(r, "'%s' is not a rank count",
                                       topomap_rd_shown(tok[0], buf));
            if (topomap_rd_declare(r, n, "rank count") < 0)
                return -1;
            continue;
        }
        first = 0;
        if (nt != 3 && nt != 4)
            return topomap_rd_fail(r, "expected 3 or 4 fields (src dst bytes [msgs]), found %d",
                                   nt);
        if (!want)
            want = nt;
        else if (nt != want)
            return topomap_rd_fail(r, "%d fields, but the first entry line had %d", nt, want);
        int s, d;
        double b, m = 0;
        if (topomap_rd_rank(r, tok[0], 0, &s) < 0 || topomap_rd_rank(r, tok[1], 0, &d) < 0 ||
            topomap_rd_value(r, tok[2], &b) < 0 ||
            (nt == 4 && topomap_rd_value(r, tok[3], &m) < 0) || topomap_rd_push(r, s, d, b, m) < 0)
            return -1;
    }
    r->has_msgs = want == 4;
    return rc;
}
