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

/* Ranks sharing a core. Slurm binds one task per CPU and shares a CPU only
 * when every CPU of the node already has a task (--overcommit), and topomap's
 * own allocations give slot s core s mod cores: so two ranks on one core are
 * refused while the node has a core without a rank. by[] holds the ranks
 * sorted by (node, core). */
struct placed {
    int node, core, rank;
};

static int placed_cmp(const void *a, const void *b)
{
    const struct placed *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int check_shared_cores(const char *path, const topomap_topology_t *t, int nranks,
                              const int *node, const int *core, const long *line_of, char *err,
                              size_t errlen)
{
    struct placed *by = malloc((nranks ? (size_t)nranks : 1) * sizeof *by);
    if (!by)
        return topomap_fail(err, errlen, ENOMEM, "%s:%ld: out of memory", path,
                            nranks ? line_of[nranks - 1] : 1L);
    for (int r = 0; r < nranks; r++)
        by[r] = (struct placed){node[r], core[r], r};
    qsort(by, (size_t)nranks, sizeof *by, placed_cmp);
    int cores = topomap_topology_cores(t), rc = 0;
    for (int i = 0; i < nranks && !rc;) {
        /* One node: by[i..j). shared: the first entry whose core repeats. */
        int j = i, distinct = 0, shared = -1;
        for (; j < nranks && by[j].node == by[i].node; j++) {
            if (j == i || by[j].core != by[j - 1].core)
                distinct++;
            else if (shared < 0)
                shared = j;
        }
        if (shared >= 0 && distinct < cores) {
            /* The lowest shared core: its two ranks placed first, by line. */
            int a = -1, b = -1;
            for (int k = shared - 1; k < j && by[k].core == by[shared].core; k++) {
                int r = by[k].rank;
                if (a < 0 || line_of[r] < line_of[a]) {
                    b = a;
                    a = r;
                } else if (b < 0 || line_of[r] < line_of[b]) {
                    b = r;
                }
            }
            rc = topomap_fail(err, errlen, EINVAL,
                              "%s:%ld: rank %d shares core %d of '%s' with rank %d (line %ld) "
                              "while %d of the node's %d cores have no rank",
                              path, line_of[b], b, core[b], topomap_topology_node_name(t, node[b]),
                              a, line_of[a], cores - distinct, cores);
        }
        i = j;
    }
    free(by);
    return rc;
}

int topomap_mapping_read(const char *path, const topomap_topology_t *t, int nranks, int *node,
                         int *core, char *err, size_t errlen)
{
    if (!path || !t || nranks < 0 || (nranks > 0 && (!node || !core)))
        return topomap_fail(err, errlen, EINVAL, "topomap_mapping_read: bad argument");
    struct topomap_lines ln = {.path = path};
    if (!(ln.f = topomap_input_open(path, err, errlen)))
        return -1;
    /* line_of[r]: the line that placed rank r (0: none yet), for duplicates. */
    long *line_of = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *line_of);
    int rc = -1, got;
    if (!line_of) {
        topomap_fail(err, errlen, ENOMEM, "%s:1: out of memory for %d ranks", path, nranks);
        goto out;
    }
    int cores = topomap_topology_cores(t);
    while ((got = topomap_lines_next(&ln, err, errlen)) > 0) {
        long lineno = ln.lineno;
        char *fld[3];
        int nf = split(ln.line, fld, 3);
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
    }
    if (got < 0)
        goto out;
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
                     path, ln.lineno ? ln.lineno : 1, nranks);
        goto out;
    }
    if (missing) {
        topomap_fail(err, errlen, EINVAL,
                     "%s:%ld: missing rank %d at end of file (%d of the profile's %d ranks have "
                     "no line)",
                     path, ln.lineno, first_missing, missing, nranks);
        goto out;
    }
    rc = check_shared_cores(path, t, nranks, node, core, line_of, err, errlen);
out:
    free(line_of);
    topomap_lines_close(&ln);
    return rc;
}
