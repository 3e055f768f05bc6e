/* SPDX-License-Identifier: BSD-3-Clause */
/* Mapping files: write a placement for people and launchers, read it back.
 *  slots    "RANK HOSTNAME CORE", one line per rank, what `topomap eval` reads;
 *  hostfile one hostname per line in rank order: Slurm's SLURM_HOSTFILE for
 *           srun --distribution=arbitrary (Slurm ignores the core there);
 *  rankfile Open MPI's rankfile, "rank R=HOST slot=CORE" (mpirun --rankfile);
 *           CORE is the 0-based logical core index inside the node. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int topomap_mapping_write(FILE *f, int format, const topomap_alloc_t *a, int n,
                          const int *rank_to_slot)
{
    if (!f || !a || n < 0 || (n > 0 && !rank_to_slot) || format < TOPOMAP_MAPPING_SLOTS ||
        format > TOPOMAP_MAPPING_RANKFILE) {
        errno = EINVAL;
        return -1;
    }
    const topomap_topology_t *t = topomap_alloc_topology(a);
    int nslots = topomap_alloc_nslots(a);
    for (int r = 0; r < n; r++)
        if (rank_to_slot[r] < 0 || rank_to_slot[r] >= nslots) {
            errno = EINVAL;
            return -1;
        }
    for (int r = 0; r < n; r++) {
        int s = rank_to_slot[r];
        const char *host = topomap_topology_node_name(t, topomap_alloc_slot_node(a, s));
        int core = topomap_alloc_slot_core(a, s);
        int rc;
        switch (format) {
        case TOPOMAP_MAPPING_SLOTS:
            rc = fprintf(f, "%d %s %d\n", r, host, core);
            break;
        case TOPOMAP_MAPPING_HOSTFILE:
            rc = fprintf(f, "%s\n", host);
            break;
        default:
            rc = fprintf(f, "rank %d=%s slot=%d\n", r, host, core);
            break;
        }
        if (rc < 0)
            return -1;
    }
    if (fflush(f) != 0 || ferror(f)) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}

/* Split a line into at most max whitespace-separated fields (in place). A '#'
 * starts a comment. Returns the field count, max + 1 if there are more. */
static int split(char *s, char **field, int max)
{
    int n = 0;
    for (;;) {
        while (*s && isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            return n;
        if (n == max)
            return max + 1;
        field[n++] = s;
        while (*s && !isspace((unsigned char)*s) && *s != '#')
            s++;
        if (*s == '#') {
            *s = 0;
            return n;
        }
        if (*s)
            *s++ = 0;
    }
}

int topomap_mapping_read(const char *path, const topomap_topology_t *t, int nranks, int *node,
                         int *core, char *err, size_t errlen)
{
    if (!path || !t || nranks < 0 || (nranks > 0 && (!node || !core)))
        return topomap_fail(err, errlen, EINVAL, "topomap_mapping_read: bad argument");
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        return topomap_fail(err, errlen, e, "%s: %s", path, strerror(e));
    }
    /* line_of[r]: the line that placed rank r (0: none yet), for duplicates. */
    long *line_of = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *line_of);
    char *buf = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = -1;
    if (!line_of) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    int cores = topomap_topology_cores(t);
    ssize_t len;
    errno = 0;
    while ((len = getline(&buf, &cap, f)) >= 0) {
        lineno++;
        if ((size_t)len != strlen(buf)) {
            topomap_fail(err, errlen, EINVAL, "%s:%ld: NUL byte in line", path, lineno);
            goto out;
        }
        char *fld[3];
        int nf = split(buf, fld, 3);
        if (nf == 0)
            continue;
        if (nf != 3) {
            topomap_fail(err, errlen, EINVAL,
                         "%s:%ld: malformed line: expected 'RANK HOSTNAME CORE', got %s%d field%s",
                         path, lineno, nf > 3 ? "more than " : "", nf > 3 ? 3 : nf,
                         nf == 1 ? "" : "s");
            goto out;
        }
        long r, c;
        if (topomap_parse_long(fld[0], &r) < 0) {
            topomap_fail(err, errlen, EINVAL, "%s:%ld: malformed line: rank '%s' is not an integer",
                         path, lineno, fld[0]);
            goto out;
        }
        if (topomap_parse_long(fld[2], &c) < 0) {
            topomap_fail(err, errlen, EINVAL, "%s:%ld: malformed line: core '%s' is not an integer",
                         path, lineno, fld[2]);
            goto out;
        }
        if (r < 0 || r >= nranks) {
            topomap_fail(err, errlen, EINVAL,
                         "%s:%ld: rank %ld out of range (the profile has %d ranks: 0 to %d)", path,
                         lineno, r, nranks, nranks - 1);
            goto out;
        }
        int nd = topomap_topology_node_lookup(t, fld[1]);
        if (nd < 0) {
            topomap_fail(err, errlen, EINVAL, "%s:%ld: unknown host '%s' (not in the topology)",
                         path, lineno, fld[1]);
            goto out;
        }
        if (c < 0 || c >= cores) {
            topomap_fail(err, errlen, EINVAL,
                         "%s:%ld: core %ld out of range on '%s' (%d cores: 0 to %d)", path, lineno,
                         c, fld[1], cores, cores - 1);
            goto out;
        }
        if (line_of[r]) {
            topomap_fail(err, errlen, EINVAL, "%s:%ld: duplicate rank %ld (already on line %ld)",
                         path, lineno, r, line_of[r]);
            goto out;
        }
        line_of[r] = lineno;
        node[r] = nd;
        core[r] = (int)c;
        errno = 0;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;
        topomap_fail(err, errlen, e, "%s:%ld: read error: %s", path, lineno + 1, strerror(e));
        goto out;
    }
    int missing = 0, first_missing = -1;
    for (int r = 0; r < nranks; r++)
        if (!line_of[r]) {
            missing++;
            if (first_missing < 0)
                first_missing = r;
        }
    if (missing == nranks && nranks > 0) {
        /* Report empty files at line 1, the line that should have held rank 0. */
        topomap_fail(err, errlen, EINVAL,
                     "%s:%ld: no mapping lines: expected one 'RANK HOSTNAME CORE' line for each "
                     "of the profile's %d ranks",
                     path, lineno ? lineno : 1, nranks);
        goto out;
    }
    if (missing) {
        topomap_fail(err, errlen, EINVAL,
                     "%s:%ld: missing rank %d at end of file (%d of the profile's %d ranks have "
                     "no line)",
                     path, lineno, first_missing, missing, nranks);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    free(line_of);
    fclose(f);
    return rc;
}
