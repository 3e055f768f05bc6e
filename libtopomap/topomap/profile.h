/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/profile.h
 * @brief libtopomap: Communication profiles.
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_PROFILE_H
#define TOPOMAP_API_PROFILE_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/profile.h>"
#endif

/** A communication profile: bytes (and messages) sent from rank to rank. */
typedef struct topomap_profile topomap_profile_t;

/** File formats of profiles. */
enum topomap_profile_format {
    TOPOMAP_FMT_AUTO = 0, /**< by extension (.mtx, .mat) and content */
    TOPOMAP_FMT_EDGES,    /**< "src dst bytes [msgs]" lines, 0-based ranks */
    TOPOMAP_FMT_DENSE,    /**< n lines of n numbers (TreeMatch, profile2mat.pl) */
    TOPOMAP_FMT_MTX,      /**< Matrix Market coordinate, 1-based */
    TOPOMAP_FMT_BINARY    /**< topomap's binary CSR (doc/formats.md#communication-profile);
                               TOPOMAP_FMT_AUTO knows it by its magic */
};
typedef enum topomap_profile_format topomap_profile_format_t;

/** Which quantity is the affinity between two ranks. */
enum topomap_affinity {
    TOPOMAP_AFFINITY_BYTES = 0, /**< bytes (default) */
    TOPOMAP_AFFINITY_MSGS = 1   /**< message counts (needs a msgs column) */
};
typedef enum topomap_affinity topomap_affinity_t;

/**
 * Load a profile from @p path in format @p format.
 * @p path "-" reads standard input (messages then say "standard input"); gzip
 * data (a "PROFILE.txt.gz", or piped in) is decompressed, the extension before
 * ".gz" picks the format as without it, and PROFILE.txt.meta is the side file
 * when PROFILE.txt.gz.meta is absent.
 * Files in the binary format (TOPOMAP_FMT_BINARY, known by their magic under
 * TOPOMAP_FMT_AUTO) are read whole and checked (size, version, flags, CRC-32,
 * row offsets, peers, values); their errors read "PATH: problem" and they
 * have no side file.
 * Duplicate (src, dst) entries are summed. The rank count comes from, in order:
 * a "# nranks=N" comment or a first data line holding a single integer (edge
 * list), the matrix size (dense, mtx), "nranks=" in the side file PATH.meta,
 * else the largest rank + 1.
 * Rejected with file:line in @p err and errno EINVAL: negative, NaN or infinite
 * values, totals over TOPOMAP_MAX_TOTAL, rank counts over TOPOMAP_MAX_RANKS,
 * ranks out of range, malformed or truncated lines, NUL bytes, empty files,
 * files that are not regular files. errno is ENOENT/EACCES etc. for files
 * that cannot be read, ENOMEM (with file:line) when memory runs out.
 * @return a new profile (caller frees with topomap_profile_free) or NULL.
 */
topomap_profile_t *topomap_profile_load(const char *path, topomap_profile_format_t format,
                                        char *err, size_t errlen);

/**
 * Build a profile from @p nedges directed entries (src[k] -> dst[k], bytes[k],
 * msgs[k]); @p msgs may be NULL (no message counts). Duplicates are summed.
 * Arrays are copied. @return a new profile or NULL (errno EINVAL: ranks out
 * of range or over TOPOMAP_MAX_RANKS, values negative or not finite, totals
 * over TOPOMAP_MAX_TOTAL; ENOMEM).
 */
topomap_profile_t *topomap_profile_create(int nranks, size_t nedges, const int *src,
                                          const int *dst, const double *bytes,
                                          const double *msgs, char *err, size_t errlen);
void topomap_profile_free(topomap_profile_t *p);

/** Number of ranks. */
int topomap_profile_nranks(const topomap_profile_t *p);
/** Number of distinct directed (src, dst) entries with a nonzero value. */
size_t topomap_profile_nedges(const topomap_profile_t *p);
/** Total bytes over all entries (self traffic included). */
double topomap_profile_total_bytes(const topomap_profile_t *p);
/** 1 if the profile carries message counts, else 0. */
int topomap_profile_has_msgs(const topomap_profile_t *p);
/**
 * Metadata value recorded in the file's "# key=value" comments (e.g.
 * "application", "date", "counted"), or NULL. Valid until topomap_profile_free.
 */
const char *topomap_profile_meta(const topomap_profile_t *p, const char *key);

/**
 * Write @p p in the edge-list format to @p f: "# key=value" header lines
 * (nranks first, then every metadata entry of @p p), then one
 * "src dst bytes msgs" line per entry in (src, dst) order ("src dst bytes"
 * when the profile has no message counts; a profile with message counts but
 * no nonzero entry gets one "0 0 0 0" line, so that it reads back with its
 * message column). Values read back bit for bit.
 * The stream is flushed, not closed.
 * @return 0, or -1 with errno from the stream (EINVAL for NULL arguments).
 */
int topomap_profile_write(const topomap_profile_t *p, FILE *f);

/**
 * Write @p p to @p f in @p format: TOPOMAP_FMT_EDGES (or TOPOMAP_FMT_AUTO),
 * as topomap_profile_write(), or TOPOMAP_FMT_BINARY, the binary format
 * (doc/formats.md#communication-profile: header, metadata, the directed CSR of
 * (peer, bytes, messages), CRC-32), which topomap_profile_load() reads back
 * to the same profile, bit for bit, far faster than text.
 * The stream is flushed, not closed.
 * @return 0, or -1 with errno from the stream, EINVAL for NULL arguments, a
 *         format that is not written (dense, Matrix Market, unknown) or
 *         metadata holding a newline (binary).
 */
int topomap_profile_write_as(const topomap_profile_t *p, topomap_profile_format_t format, FILE *f);

/**
 * A compressed sparse row view of a profile. Row i lists the ranks j that i
 * exchanges with, in increasing order, with weights w. Arrays belong to the
 * profile and are valid until topomap_profile_free().
 */
typedef struct topomap_graph {
    int n;               /**< number of ranks (rows) */
    const int64_t *xadj; /**< n + 1 row offsets */
    const int *adj;      /**< xadj[n] column indices */
    const double *w;     /**< xadj[n] weights */
} topomap_graph_t;

/**
 * Get a CSR view of @p p, weighted by @p affinity.
 * With @p symmetric 0: directed, w = A[i][j] as recorded (diagonal kept).
 * With @p symmetric 1: w = A[i][j] + A[j][i], diagonal dropped (what mapping
 * algorithms use; sum over it of w * hops is twice the directed hop-bytes).
 * Both views share one structure for bytes and messages, so an entry that
 * carried messages of zero bytes appears with w = 0 in the byte view.
 * @return 0, or -1 with errno EINVAL (messages asked for, none recorded).
 */
int topomap_profile_graph(const topomap_profile_t *p, topomap_affinity_t affinity, int symmetric,
                          topomap_graph_t *out);

#endif /* TOPOMAP_API_PROFILE_H */
