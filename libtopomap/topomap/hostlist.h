/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/hostlist.h
 * @brief libtopomap: Hostlists (Slurm hostlist expressions such as
 *        "cn[0000-0003,0010],login1").
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_HOSTLIST_H
#define TOPOMAP_API_HOSTLIST_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/hostlist.h>"
#endif

typedef struct topomap_hostlist topomap_hostlist_t;

/**
 * Expand a Slurm hostlist expression. Order is preserved, duplicates are kept.
 * Supports several bracket groups per name ("r[1-2]n[01-02]" expands the last
 * group fastest, as Slurm does) and zero padding.
 * @return a new hostlist (caller frees with topomap_hostlist_free), or NULL
 *         with errno EINVAL (syntax, message in @p err) or ENOMEM.
 */
topomap_hostlist_t *topomap_hostlist_parse(const char *expr, char *err, size_t errlen);
/** Number of hostnames in @p hl. */
size_t topomap_hostlist_count(const topomap_hostlist_t *hl);
/** The @p i-th hostname; valid until topomap_hostlist_free(). NULL if out of range. */
const char *topomap_hostlist_get(const topomap_hostlist_t *hl, size_t i);
void topomap_hostlist_free(topomap_hostlist_t *hl);
/**
 * Compress @p n hostnames, in the given order, into a hostlist expression
 * (consecutive numeric suffixes with the same prefix and width are ranged).
 * @return a malloc'ed string (caller frees), or NULL with errno ENOMEM.
 */
char *topomap_hostlist_compress(const char *const *names, size_t n);

#endif /* TOPOMAP_API_HOSTLIST_H */
