/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading a profile file: format detection, the dispatch to the format
 * parsers (profile_edges.c, profile_dense.c, profile_mtx.c, profile_bin.c),
 * the side file and topomap_profile_load(). The line reader the parsers
 * share is profile_reader.c.
 *
 * Formats and how TOPOMAP_FMT_AUTO picks one:
 *  1. a path ending in ".mtx", or a first line starting with "%%MatrixMarket":
 *     Matrix Market coordinate (real, integer or pattern; general or
 *     symmetric; 1-based; '%' comments). A symmetric file lists one triangle;
 *     each off-diagonal entry (i, j) stands for both i -> j and j -> i.
 *     Pattern entries count as 1 byte.
 *  2. a path ending in ".mat": dense square matrix, n lines of n numbers,
 *     line i holding what rank i sent to each rank (TreeMatch and Open MPI's
 *     profile2mat.pl write this).
 *  3. otherwise the first data line (not blank, not a '#' comment) decides:
 *     1, 3 or 4 fields is an edge list ("N" rank-count header, or "src dst
 *     bytes [msgs]"), any other count a dense matrix. So a 1x1, 3x3 or 4x4
 *     dense matrix needs the ".mat" extension or TOPOMAP_FMT_DENSE.
 *  Before 3., data starting with the binary format's magic is that format
 *  (profile_bin.c; whatever the extension but .mtx and .mat), read whole,
 *  without a side file.
 *
 * Fields are separated by blanks or tabs (commas are also accepted); CRLF
 * line ends and a last line without newline are fine. A line cut short by
 * truncation is caught by the field counts (a dense row, an edge line) or
 * the declared entry count (Matrix Market); a number cut short but still a
 * number cannot be told from a real one.
 *
 * Any of them may be gzip-compressed ("X.mtx.gz" is Matrix Market) or come
 * from standard input (path "-", no side file); see libtopomap/input.c.
 *
 * Edge lists and dense matrices take '#' comments, whole-line or after the
 * data; whole-line "# key=value" comments are metadata (topomap_profile_meta),
 * "# nranks=N" also sets the rank count. The side file PATH.meta (key=value
 * lines, as next to the shared workloads) adds metadata the file itself does
 * not set, and gives the rank count of an edge list that declares none.
 * Rank count of an edge list: "# nranks=" or the header line (which must
 * agree when both are given), else PATH.meta, else the largest rank + 1;
 * ranks past it are errors naming the line. A matrix's size is its rank
 * count (a "# nranks=" in a dense file must agree with it).
 *
 * Duplicates: the same (src, dst) given twice (two lines of an edge list, an
 * entry repeated in a Matrix Market file, both triangles of a symmetric one)
 * is summed, bytes and messages alike, in file order. Profilers that flush
 * per phase write such files, so this is not an error.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"

#include "internal.h"
#include "profile_priv.h"
#include "input.h"

static int has_suffix(const char *path, const char *suf)
{
    size_t lp = strlen(path), ls = strlen(suf);
    return lp >= ls && !strcasecmp(path + lp - ls, suf);
}

/* Pick the format from the extension, else from the first lines (see the
 * comment at the top). The lines read stay pushed back for the parser. */
static int detect(struct reader *r)
{
    if (has_suffix(r->path, ".grf") || has_suffix(r->path, ".src"))
        return topomap_fail(r->err, r->errlen, EINVAL,
                            "%s: Scotch graph files are not read as profiles: write the edges "
                            "as 'src dst bytes' lines (0-based ranks)",
                            r->path);
    if (has_suffix(r->path, ".mtx") || has_suffix(r->path, ".mtx.gz"))
        return TOPOMAP_FMT_MTX;
    if (has_suffix(r->path, ".mat") || has_suffix(r->path, ".mat.gz"))
        return TOPOMAP_FMT_DENSE;
    /* The binary format by its magic, before any line is read (its bytes
     * hold NULs, which the line reader refuses). */
    size_t got = 0;
    const char *head = topomap_lines_peek(&r->l, 8, &got, r->err, r->errlen);
    if (!head && errno == ENOMEM)
        return -1;
    /* A read error: the line reader reports it, naming the line. */
    if (head && got == 8 && !memcmp(head, topomap_bin_magic, 8))
        return TOPOMAP_FMT_BINARY;
    int rc = topomap_rd_raw(r);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return TOPOMAP_FMT_EDGES; /* empty: reported as such by the parser */
    r->pushed = 1;
    if (!strncasecmp(r->l.line, "%%MatrixMarket", 14))
        return TOPOMAP_FMT_MTX;
    if ((rc = topomap_rd_data(r, '#')) <= 0)
        return rc < 0 ? -1 : TOPOMAP_FMT_EDGES;
    /* Count fields without splitting: the parser splits again. */
    int nf = 0;
    for (const char *s = r->l.line; *s;) {
        while (*s == ' ' || *s == '\t' || *s == ',')
            s++;
        if (!*s)
            break;
        nf++;
        while (*s && *s != ' ' && *s != '\t' && *s != ',')
            s++;
    }
    r->pushed = 1;
    return nf == 1 || nf == 3 || nf == 4 ? TOPOMAP_FMT_EDGES : TOPOMAP_FMT_DENSE;
}

/* PATH.meta: key=value lines. Adds keys the profile does not set and returns
 * its nranks (0 if none) in *nranks. A missing side file is not an error. */
static int read_side_meta(struct reader *r, int *nranks)
{
    *nranks = 0;
    if (r->from_stdin)
        return 0;
    size_t plen = strlen(r->path);
    char *mpath = malloc(plen + 6);
    if (!mpath)
        return topomap_rd_nomem(r);
    memcpy(mpath, r->path, plen);
    memcpy(mpath + plen, ".meta", 6);
    struct topomap_lines ml = {.path = mpath};
    ml.f = topomap_input_open(mpath, r->err, r->errlen);
    if (!ml.f && errno == ENOENT && has_suffix(r->path, ".gz")) {
        /* PROFILE.txt.gz: the side file of the uncompressed PROFILE.txt. */
        memcpy(mpath + plen - 3, ".meta", 6);
        ml.f = topomap_input_open(mpath, r->err, r->errlen);
    }
    if (!ml.f) {
        if ((errno == ENOENT || errno == ENOTDIR) && r->err && r->errlen)
            r->err[0] = 0; /* no side file: not an error */
        free(mpath);
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    }
    int ret;
    while ((ret = topomap_lines_next(&ml, r->err, r->errlen)) > 0) {
        char *line = ml.line;
        size_t len = ml.len;
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = 0;
        char *s = line, *eq;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || !(eq = strchr(s, '=')))
            continue;
        size_t klen = (size_t)(eq - s);
        while (klen && (s[klen - 1] == ' ' || s[klen - 1] == '\t'))
            klen--;
        char *v = eq + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if (klen == 6 && !memcmp(s, "nranks", 6)) {
            long n;
            char buf[40];
            if (topomap_rd_count(v, strlen(v), &n) < 0 || n < 1) {
                ret = topomap_fail(r->err, r->errlen, EINVAL,
                                   "%s:%ld: nranks '%s' is not a positive integer", mpath,
                                   ml.lineno, topomap_rd_shown(v, buf));
                break;
            }
            if (n > TOPOMAP_MAX_RANKS) {
                ret = topomap_fail(r->err, r->errlen, EINVAL,
                                   "%s:%ld: nranks %ld is over the limit of %d ranks", mpath,
                                   ml.lineno, n, TOPOMAP_MAX_RANKS);
                break;
            }
            *nranks = (int)n;
            continue;
        }
        if (topomap_rd_is_key(s, klen) &&
            topomap_meta_set(&r->meta, &r->nmeta, s, klen, v, strlen(v), 1) < 0) {
            ret = topomap_fail(r->err, r->errlen, ENOMEM, "%s:%ld: out of memory", mpath,
                               ml.lineno);
            break;
        }
    }
    topomap_lines_close(&ml);
    free(mpath);
    return ret < 0 ? -1 : 0;
}

/* The file's metadata after nranks, in file order, into p ("nranks" itself
 * is the final count that p has already). 0, or -1 with the message. */
static int add_meta(struct reader *r, topomap_profile_t *p)
{
    for (size_t i = 0; i < r->nmeta; i++) {
        if (!strcmp(r->meta[i].key, "nranks"))
            continue;
        if (topomap_meta_set(&p->meta, &p->nmeta, r->meta[i].key, strlen(r->meta[i].key),
                             r->meta[i].val, strlen(r->meta[i].val), 0) < 0)
            return topomap_rd_nomem(r);
    }
    return 0;
}

static topomap_profile_t *load_stream(struct reader *r, int format)
{
    int rc;
    if (format == TOPOMAP_FMT_AUTO && (format = detect(r)) < 0)
        return NULL;
    if (format == TOPOMAP_FMT_BINARY) {
        /* No side file: the binary file holds all its metadata. */
        topomap_profile_t *p = topomap_profile_read_binary(r);
        if (p && add_meta(r, p) < 0) {
            topomap_profile_free(p);
            return NULL;
        }
        return p;
    }
    switch (format) {
    case TOPOMAP_FMT_EDGES:
        rc = topomap_profile_parse_edges(r);
        break;
    case TOPOMAP_FMT_DENSE:
        rc = topomap_profile_parse_dense(r);
        break;
    case TOPOMAP_FMT_MTX:
        rc = topomap_profile_parse_mtx(r);
        break;
    default:
        topomap_fail(r->err, r->errlen, EINVAL, "%s: unknown profile format %d", r->path,
                     format);
        return NULL;
    }
    if (rc < 0)
        return NULL;
    if (r->l.lineno == 0 || (!r->declared && r->maxrank < 0 && format != TOPOMAP_FMT_MTX)) {
        /* Nothing but blanks and comments (a rank-count line alone is a valid
         * profile without traffic). */
        topomap_fail(r->err, r->errlen, EINVAL, "%s: empty profile", r->path);
        return NULL;
    }

    int side_n;
    if (read_side_meta(r, &side_n) < 0)
        return NULL;
    int n = r->declared;
    const char *from = "";
    if (!n && side_n) {
        n = side_n;
        from = " from the .meta file";
    }
    if (!n)
        n = r->maxrank + 1;
    if (r->maxrank >= n) {
        r->l.lineno = r->maxrank_line;
        topomap_rd_fail(r, "rank %d out of range (nranks=%d%s)", r->maxrank, n, from);
        return NULL;
    }

    topomap_profile_t *p = topomap_profile_build(n, r->e.len, r->e.src, r->e.dst, r->e.bytes,
                                                 r->has_msgs ? r->e.msgs : NULL);
    if (!p) {
        /* Name the line that asked for the size, if one did. */
        topomap_fail(r->err, r->errlen, ENOMEM,
                     "%s:%ld: out of memory for a profile of %d ranks and %zu entries", r->path,
                     r->declared ? r->declared_line : r->l.lineno, n, r->e.len);
        return NULL;
    }
    if (add_meta(r, p) < 0) {
        topomap_profile_free(p);
        return NULL;
    }
    return p;
}

topomap_profile_t *topomap_profile_load(const char *path, topomap_profile_format_t format, char *err, size_t errlen)
{
    if (!path) {
        topomap_fail(err, errlen, EINVAL, "no profile path given");
        return NULL;
    }
    FILE *f = topomap_input_open(path, err, errlen);
    if (!f)
        return NULL;
    struct reader r;
    memset(&r, 0, sizeof r);
    r.l.f = f;
    r.from_stdin = !strcmp(path, "-");
    r.path = r.from_stdin ? "standard input" : path;
    r.l.path = r.path;
    r.err = err;
    r.errlen = errlen;
    r.maxrank = -1;

    /* strtod must read "1.5" whatever locale the calling program set. */
    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old = (locale_t)0;
    if (cloc)
        old = uselocale(cloc);
    topomap_profile_t *p = NULL;
    int whole = 0;
    if (!r.from_stdin && (format == TOPOMAP_FMT_BINARY ||
                          (format == TOPOMAP_FMT_AUTO && !has_suffix(path, ".mtx") &&
                           !has_suffix(path, ".mat") && !has_suffix(path, ".grf") &&
                           !has_suffix(path, ".src")))) {
        /* A binary file is read in one go, not through the stream. */
        p = topomap_profile_read_binary_file(&r, path, &whole);
        if (p && add_meta(&r, p) < 0) {
            topomap_profile_free(p);
            p = NULL;
        }
    }
    if (!whole)
        p = load_stream(&r, format);
    int e = errno;
    if (cloc) {
        uselocale(old);
        freelocale(cloc);
    }
    topomap_lines_close(&r.l);
    topomap_rd_edges_free(&r.e);
    topomap_meta_free(r.meta, r.nmeta);
    errno = e;
    return p;
}
