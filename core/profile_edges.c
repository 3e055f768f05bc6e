/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiles as edge lists: "src dst bytes [msgs]" lines (0-based ranks),
 * optionally after a rank-count line; see profile_read.c for the rules all
 * formats share. */
#include <string.h>

#include "internal.h"
#include "profile_priv.h"

/* "src dst bytes [msgs]" lines, optionally preceded by a rank-count line. */
int topomap_profile_parse_edges(struct reader *r)
{
    char *tok[5];
    int first = 1, want = 0, rc;
    while ((rc = topomap_rd_data(r, '#')) > 0) {
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
