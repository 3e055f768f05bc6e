/* SPDX-License-Identifier: BSD-3-Clause */
/* Mapping files: write a placement for people and launchers, read it back.
 *  slots    "RANK HOSTNAME CORE", one line per rank, what `topomap eval` reads;
 *  hostfile one hostname per line in rank order: Slurm's SLURM_HOSTFILE for
 *           srun --distribution=arbitrary (Slurm ignores the core there);
 *  rankfile Open MPI's rankfile, "rank R=HOST slot=CORE" (mpirun --rankfile);
 *           CORE is the 0-based logical core index inside the node;
 *  MPICH_RANK_ORDER  Cray MPICH's rank order file (written only);
 *  map_cpu  srun --cpu-bind=map_cpu:LIST (written only).
 * All three readable formats come back through one reader (read_stream),
 * from a file, standard input ("-") or gzip data (libtopomap/input.c). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "input.h"

/* rank_of[s]: the rank on slot s, -1 when free. Caller frees. */
static int *slot_ranks(int nslots, int n, const int *rank_to_slot)
{
    int *rank_of = malloc(sizeof(int) * (size_t)(nslots > 0 ? nslots : 1));
    if (!rank_of)
        return NULL;
    for (int s = 0; s < nslots; s++)
        rank_of[s] = -1;
    for (int r = 0; r < n; r++)
        rank_of[rank_to_slot[r]] = r;
    return rank_of;
}

/* MPICH_RANK_ORDER: the ranks of slots 0, 1, ... one node per line, runs of
 * consecutive ranks as "A-B". Cray puts the file's first ranks on the first
 * node, so a free slot before the last rank cannot be said. */
static int write_rank_order(FILE *f, const topomap_alloc_t *a, int n, const int *rank_to_slot)
{
    int nslots = topomap_alloc_nslots(a);
    int *rank_of = slot_ranks(nslots, n, rank_to_slot);
    if (!rank_of)
        return -1;
    for (int s = 0; s < n; s++)
        if (rank_of[s] < 0) {
            free(rank_of);
            errno = EDOM;
            return -1;
        }
    fprintf(f, "# MPICH_RANK_ORDER (MPICH_RANK_REORDER_METHOD=3) written by topomap: %d ranks "
               "in the order of the slots, one node per line\n",
            n);
    for (int s = 0; s < n;) {
        int node = topomap_alloc_slot_node(a, s), first = 1;
        while (s < n && topomap_alloc_slot_node(a, s) == node) {
            int lo = rank_of[s];
            while (s + 1 < n && topomap_alloc_slot_node(a, s + 1) == node &&
                   rank_of[s + 1] == rank_of[s] + 1)
                s++;
            if (rank_of[s] == lo)
                fprintf(f, "%s%d", first ? "" : ",", lo);
            else
                fprintf(f, "%s%d-%d", first ? "" : ",", lo, rank_of[s]);
            first = 0;
            s++;
        }
        fputc('\n', f);
    }
    free(rank_of);
    return 0;
}

/* map_cpu: list[k] = the core of the k-th task (rank order) of every node. */
static int write_map_cpu(FILE *f, const topomap_alloc_t *a, int n, const int *rank_to_slot)
{
    const topomap_topology_t *t = topomap_alloc_topology(a);
    int nnodes = topomap_topology_nnodes(t), cores = topomap_topology_cores(t);
    int *count = calloc((size_t)nnodes, sizeof(int));
    int *list = malloc(sizeof(int) * (size_t)(cores > 0 ? cores : 1));
    int len = 0, rc = 0;
    if (!count || !list) {
        free(count);
        free(list);
        errno = ENOMEM;
        return -1;
    }
    for (int r = 0; r < n && rc == 0; r++) {
        int nd = topomap_alloc_slot_node(a, rank_to_slot[r]);
        int c = topomap_alloc_slot_core(a, rank_to_slot[r]), k = count[nd]++;
        if (k == len && len < cores)
            list[len++] = c;
        else if (k >= len || list[k] != c) {
            errno = EDOM;
            rc = -1;
        }
    }
    if (rc == 0) {
        fputs("map_cpu:", f);
        for (int k = 0; k < len; k++)
            fprintf(f, "%s%d", k ? "," : "", list[k]);
        fputc('\n', f);
    }
    free(count);
    free(list);
    return rc;
}

int topomap_mapping_write(FILE *f, topomap_mapping_format_t format, const topomap_alloc_t *a, int n,
                          const int *rank_to_slot)
{
    if (!f || !a || n < 0 || (n > 0 && !rank_to_slot) || format < TOPOMAP_MAPPING_SLOTS ||
        format > TOPOMAP_MAPPING_MAP_CPU) {
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
    if (format == TOPOMAP_MAPPING_MPICH_RANK_ORDER || format == TOPOMAP_MAPPING_MAP_CPU) {
        int rc = format == TOPOMAP_MAPPING_MAP_CPU ? write_map_cpu(f, a, n, rank_to_slot)
                                                   : write_rank_order(f, a, n, rank_to_slot);
        if (rc < 0)
            return -1;
    }
    for (int r = 0; r < n && format <= TOPOMAP_MAPPING_RANKFILE; r++) {
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
    struct placed *by = malloc((nranks > 0 ? (size_t)nranks : 1) * sizeof *by);
    if (!by)
        return topomap_fail(err, errlen, ENOMEM, "%s:%ld: out of memory", path,
                            nranks ? line_of[nranks - 1] : 1L);
    for (int r = 0; r < nranks; r++)
        by[r] = (struct placed){node[r], core[r], r};
    qsort(by, (size_t)nranks, sizeof *by, placed_cmp);
    int rc = 0;
    for (int i = 0; i < nranks && !rc;) {
        int cores = topomap_topology_node_cores(t, by[i].node);
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

/* One mapping line of @format into its fields: slots "RANK HOST CORE",
 * rankfile "rank R=HOST slot=CORE" (returned as R, HOST, CORE), hostfile
 * "HOST". Returns 1, or -1 with the message set. */
static int parse_line(char *buf, int format, const char *path, long lineno, char **fld,
                      char *err, size_t errlen)
{
    int nf;
    switch (format) {
    case TOPOMAP_MAPPING_HOSTFILE:
        nf = split(buf, fld, 1);
        if (nf != 1)
            return topomap_fail(err, errlen, EINVAL,
                                "%s:%ld: malformed line: expected one hostname (a hostfile), got "
                                "more than one field",
                                path, lineno);
        return 1;
    case TOPOMAP_MAPPING_RANKFILE: {
        char *w[3], *eq;
        nf = split(buf, w, 3);
        if (nf != 3 || strcmp(w[0], "rank") || !(eq = strchr(w[1], '=')) ||
            strncmp(w[2], "slot=", 5))
            return topomap_fail(err, errlen, EINVAL,
                                "%s:%ld: malformed line: expected 'rank R=HOST slot=CORE'", path,
                                lineno);
        *eq = 0;
        fld[0] = w[1];
        fld[1] = eq + 1;
        fld[2] = w[2] + 5;
        if (strpbrk(fld[2], ":-,"))
            return topomap_fail(err, errlen, EINVAL,
                                "%s:%ld: slot '%s' is not a core number (socket:core and "
                                "ranges are not read)",
                                path, lineno, fld[2]);
        return 1;
    }
    default:
        nf = split(buf, fld, 3);
        if (nf != 3)
            return topomap_fail(
                err, errlen, EINVAL,
                "%s:%ld: malformed line: expected 'RANK HOSTNAME CORE', got %s%d field%s", path,
                lineno, nf > 3 ? "more than " : "", nf > 3 ? 3 : nf, nf == 1 ? "" : "s");
        return 1;
    }
}

/* The format of a first data line (TOPOMAP_MAPPING_AUTO). */
static int detect_format(const char *line)
{
    char copy[64], *fld[4];
    snprintf(copy, sizeof copy, "%s", line);
    int nf = split(copy, fld, 3);
    if (nf >= 1 && !strcmp(fld[0], "rank"))
        return TOPOMAP_MAPPING_RANKFILE;
    return nf == 1 ? TOPOMAP_MAPPING_HOSTFILE : TOPOMAP_MAPPING_SLOTS;
}

static const char *const format_line[] = {"'RANK HOSTNAME CORE'", "hostname",
                                          "'rank R=HOST slot=CORE'"};

static int read_stream(FILE *f, const char *path, int format, const topomap_topology_t *t,
                       int nranks, int *node, int *core, char *err, size_t errlen)
{
    struct topomap_lines ln = {.f = f, .path = path};
    /* line_of[r]: the line that placed rank r (0: none yet), for duplicates. */
    long *line_of = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *line_of);
    /* A hostfile gives the k-th rank of a node its core k. */
    int *next_core = NULL;
    long hostfile_rank = 0;
    int rc = -1, got;
    if (!line_of) {
        topomap_fail(err, errlen, ENOMEM, "%s:1: out of memory for %d ranks", path, nranks);
        goto out;
    }
    /* NUL bytes, read errors and corrupt gzip data end it with PATH:LINE. */
    while ((got = topomap_lines_next(&ln, err, errlen)) > 0) {
        long lineno = ln.lineno;
        char *buf = ln.line, *fld[3];
        char *scan = buf;
        while (*scan && isspace((unsigned char)*scan))
            scan++;
        if (!*scan || *scan == '#')
            continue;
        if (format == TOPOMAP_MAPPING_AUTO)
            format = detect_format(scan);
        if (parse_line(buf, format, path, lineno, fld, err, errlen) < 0)
            goto out;
        long r, c;
        const char *host;
        if (format == TOPOMAP_MAPPING_HOSTFILE) {
            if (!next_core && !(next_core = calloc((size_t)topomap_topology_nnodes(t), sizeof(int)))) {
                topomap_fail(err, errlen, ENOMEM, "%s:%ld: out of memory", path, lineno);
                goto out;
            }
            r = hostfile_rank++;
            host = fld[0];
            if (r >= nranks) {
                topomap_fail(err, errlen, EINVAL,
                             "%s:%ld: more hostnames than the profile's %d ranks", path, lineno,
                             nranks);
                goto out;
            }
        } else {
            host = fld[1];
            if (topomap_parse_long(fld[0], &r) < 0) {
                topomap_fail(err, errlen, EINVAL,
                             "%s:%ld: malformed line: rank '%s' is not an integer", path, lineno,
                             fld[0]);
                goto out;
            }
            if (topomap_parse_long(fld[2], &c) < 0) {
                topomap_fail(err, errlen, EINVAL,
                             "%s:%ld: malformed line: core '%s' is not an integer", path, lineno,
                             fld[2]);
                goto out;
            }
            if (r < 0 || r >= nranks) {
                topomap_fail(err, errlen, EINVAL,
                             "%s:%ld: rank %ld out of range (the profile has %d ranks: 0 to %d)",
                             path, lineno, r, nranks, nranks - 1);
                goto out;
            }
        }
        int nd = topomap_topology_node_lookup(t, host);
        if (nd < 0) {
            char known[160];
            topomap_fail(err, errlen, EINVAL,
                         "%s:%ld: unknown host '%s' (not in the topology, whose nodes are %s)",
                         path, lineno, host, topomap_topology_names_hint(t, known, sizeof known));
            goto out;
        }
        int cores = topomap_topology_node_cores(t, nd);
        if (format == TOPOMAP_MAPPING_HOSTFILE) {
            c = next_core[nd]++;
            if (c >= cores) {
                topomap_fail(err, errlen, EINVAL,
                             "%s:%ld: more ranks on '%s' than its %d cores", path, lineno, host,
                             cores);
                goto out;
            }
        } else if (c < 0 || c >= cores) {
            topomap_fail(err, errlen, EINVAL,
                         "%s:%ld: core %ld out of range on '%s' (%d cores: 0 to %d)", path, lineno,
                         c, host, cores, cores - 1);
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
    const char *what = format_line[format == TOPOMAP_MAPPING_AUTO ? 0 : format];
    if (missing == nranks && nranks > 0) {
        /* Report empty files at line 1, the line that should have held rank 0. */
        topomap_fail(err, errlen, EINVAL,
                     "%s:%ld: no mapping lines: expected one %s line for each of the profile's "
                     "%d ranks",
                     path, ln.lineno ? ln.lineno : 1, what, nranks);
        goto out;
    }
    if (missing) {
        topomap_fail(err, errlen, EINVAL,
                     "%s:%ld: missing rank %d at end of file (%d of the profile's %d ranks have "
                     "no line)",
                     path, ln.lineno, first_missing, missing, nranks);
        goto out;
    }
    /* A hostfile cannot share a core (next_core); the others are checked. */
    rc = check_shared_cores(path, t, nranks, node, core, line_of, err, errlen);
out:
    free(ln.buf); /* f is the caller's */
    free(line_of);
    free(next_core);
    return rc;
}

int topomap_mapping_read_format(const char *path, topomap_mapping_format_t format, const topomap_topology_t *t,
                                int nranks, int *node, int *core, char *err, size_t errlen)
{
    if (!path || !t || nranks < 0 || (nranks > 0 && (!node || !core)) ||
        format < TOPOMAP_MAPPING_AUTO || format > TOPOMAP_MAPPING_RANKFILE)
        return topomap_fail(err, errlen, EINVAL, "topomap_mapping_read: bad argument");
    FILE *f = topomap_input_open(path, err, errlen);
    if (!f)
        return -1;
    int rc = read_stream(f, strcmp(path, "-") ? path : "standard input", format, t, nranks, node,
                         core, err, errlen);
    int e = errno;
    fclose(f);
    errno = e;
    return rc;
}

int topomap_mapping_read(const char *path, const topomap_topology_t *t, int nranks, int *node,
                         int *core, char *err, size_t errlen)
{
    return topomap_mapping_read_format(path, TOPOMAP_MAPPING_SLOTS, t, nranks, node, core, err,
                                       errlen);
}
