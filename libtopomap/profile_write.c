/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing a profile: the edge-list format with its metadata as "# key=value"
 * comments, which topomap_profile_load() reads back to the same profile; the
 * binary format is written by profile_bin.c. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#include "internal.h"
#include "profile_priv.h"

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

int topomap_profile_write_as(const topomap_profile_t *p, topomap_profile_format_t format, FILE *f)
{
    if (format == TOPOMAP_FMT_AUTO || format == TOPOMAP_FMT_EDGES)
        return topomap_profile_write(p, f);
    if (!p || !f || format != TOPOMAP_FMT_BINARY) {
        errno = EINVAL;
        return -1;
    }
    return topomap_profile_write_binary(p, f);
}
