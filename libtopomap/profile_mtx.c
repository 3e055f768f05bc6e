/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiles as Matrix Market coordinate files (".mtx"); see profile_read.c
 * for what is accepted and the rules all formats share. */
#include <ctype.h>
#include <string.h>

#include "internal.h"
#include "profile_priv.h"

static int lower_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != *b)
            return 0;
    return *a == *b;
}

/* Matrix Market coordinate: banner, '%' comments, "M N NNZ", NNZ entries. */
int topomap_profile_parse_mtx(struct reader *r)
{
    char *tok[6], buf[40];
    int rc = topomap_rd_raw(r);
    if (rc <= 0)
        return rc;
    int nt = topomap_rd_split(r, tok, 6);
    if (nt < 1 || !lower_eq(tok[0], "%%matrixmarket"))
        return topomap_rd_fail(r, "missing '%%%%MatrixMarket' header line");
    if (nt != 5)
        return topomap_rd_fail(r, "expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
    if (!lower_eq(tok[1], "matrix"))
        return topomap_rd_fail(r, "unsupported Matrix Market object '%s'",
                               topomap_rd_shown(tok[1], buf));
    if (!lower_eq(tok[2], "coordinate"))
        return topomap_rd_fail(r, "unsupported Matrix Market format '%s' (only coordinate)",
                               topomap_rd_shown(tok[2], buf));
    int pattern = lower_eq(tok[3], "pattern");
    if (!pattern && !lower_eq(tok[3], "real") && !lower_eq(tok[3], "integer") &&
        !lower_eq(tok[3], "double"))
        return topomap_rd_fail(r, "unsupported Matrix Market field '%s' (real, integer or pattern)",
                               topomap_rd_shown(tok[3], buf));
    int sym = lower_eq(tok[4], "symmetric");
    if (!sym && !lower_eq(tok[4], "general"))
        return topomap_rd_fail(r, "unsupported Matrix Market symmetry '%s' (general or symmetric)",
                               topomap_rd_shown(tok[4], buf));

    if ((rc = topomap_rd_data(r, '%')) <= 0) {
        if (rc == 0)
            return topomap_rd_fail(r, "truncated Matrix Market file: no size line");
        return -1;
    }
    long rows, cols, nnz;
    nt = topomap_rd_split(r, tok, 4);
    if (nt != 3)
        return topomap_rd_fail(r, "expected a size line 'ROWS COLS ENTRIES', found %d fields", nt);
    for (int k = 0; k < 3; k++)
        if (topomap_rd_count(tok[k], strlen(tok[k]), k == 0 ? &rows : k == 1 ? &cols : &nnz) < 0)
            return topomap_rd_fail(r, "'%s' is not a non-negative integer",
                                   topomap_rd_shown(tok[k], buf));
    if (rows != cols)
        return topomap_rd_fail(r, "matrix is not square (%ld x %ld)", rows, cols);
    if (rows < 1)
        return topomap_rd_fail(r, "matrix size %ld out of range", rows);
    if (rows > TOPOMAP_MAX_RANKS)
        return topomap_rd_fail(r, "matrix size %ld is over the limit of %d ranks", rows,
                               TOPOMAP_MAX_RANKS);
    r->declared = (int)rows;
    r->declared_line = r->l.lineno;

    long seen = 0, lastline = r->l.lineno;
    int want = pattern ? 2 : 3;
    while ((rc = topomap_rd_data(r, '%')) > 0) {
        if (seen == nnz)
            return topomap_rd_fail(r, "more entries than the %ld declared", nnz);
        nt = topomap_rd_split(r, tok, 4);
        if (nt != want)
            return topomap_rd_fail(r, "expected %d fields (%s), found %d", want,
                                   pattern ? "row col" : "row col value", nt);
        int i, j;
        double v = 1;
        if (topomap_rd_rank(r, tok[0], 1, &i) < 0 || topomap_rd_rank(r, tok[1], 1, &j) < 0 ||
            (!pattern && topomap_rd_value(r, tok[2], &v) < 0))
            return -1;
        if (v > 0 && (topomap_rd_push(r, i, j, v, 0) < 0 ||
                      (sym && i != j && topomap_rd_push(r, j, i, v, 0) < 0)))
            return -1;
        seen++;
        lastline = r->l.lineno;
    }
    if (rc < 0)
        return -1;
    if (seen < nnz) {
        r->l.lineno = lastline;
        return topomap_rd_fail(r, "truncated Matrix Market file: %ld of %ld entries", seen, nnz);
    }
    return 0;
}
