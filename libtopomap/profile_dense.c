/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiles as dense matrices (".mat"): n lines of n numbers, line i holding
 * what rank i sent to each rank; see profile_read.c for the rules all
 * formats share. */
#include <errno.h>

#include "internal.h"
#include "profile_priv.h"

/* n lines of n numbers; values are streamed, only nonzeros are kept. */
int topomap_profile_parse_dense(struct reader *r)
{
    int rc, row = 0, n = 0;
    long lastline = 0;
    while ((rc = topomap_rd_data(r, '#')) > 0) {
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
            if (topomap_rd_value(r, t, &v) < 0)
                return -1;
            if (row == 0 && col == TOPOMAP_MAX_RANKS)
                return topomap_rd_fail(r, "more than %d columns: over the limit of %d ranks",
                                       TOPOMAP_MAX_RANKS, TOPOMAP_MAX_RANKS);
            if (n && col >= n)
                return topomap_rd_fail(r, "more than %d values in a row of a %d x %d matrix",
                                       n, n, n);
            if (v > 0 && topomap_rd_push(r, row, col, v, 0) < 0)
                return -1;
            col++;
        }
        if (row == 0)
            n = col;
        else if (col != n)
            return topomap_rd_fail(r, "%d values in a row of a %d x %d matrix", col, n, n);
        if (row >= n)
            return topomap_rd_fail(r, "more than %d rows in a %d x %d matrix", n, n, n);
        row++;
        lastline = r->l.lineno;
    }
    if (rc < 0)
        return -1;
    if (row && row < n) {
        r->l.lineno = lastline;
        return topomap_rd_fail(r, "truncated dense matrix: %d of %d rows", row, n);
    }
    if (n && r->declared && r->declared != n)
        return topomap_fail(r->err, r->errlen, EINVAL,
                            "%s:%ld: nranks=%d but the matrix is %d x %d", r->path,
                            r->declared_line, r->declared, n, n);
    r->declared = n;
    r->maxrank = n - 1;
    return 0;
}
