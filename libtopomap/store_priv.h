/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the profile store (store.c: one directory of profiles;
 * store_user.c: the per-user directories and the lookup order). */
#ifndef TOPOMAP_STORE_PRIV_H
#define TOPOMAP_STORE_PRIV_H

#include <sys/stat.h>
#include <sys/types.h>

#include "internal.h"

#define TOPOMAP_STORE_SUFFIX ".profile"
#define TOPOMAP_STORE_NAME_MAX 200
/** DIR/users/UID holds the profiles of user UID. */
#define TOPOMAP_STORE_USERS "users"

/** @p s made printable for a message into @p buf: control characters become
 *  '?', long strings are cut with "...". Returns @p buf. (A minimal sanitiser
 *  of the store's own; the library is to get a shared one.) */
const char *topomap_store_clean(const char *s, char *buf, size_t len);

/** 0 for a valid name, else -1 with errno EINVAL and a message. */
int topomap_store_check_name(const char *name, char *err, size_t errlen);

/** 0 when @p st (a directory of profiles shown as @p shown) can be trusted:
 *  writable by its owner only. Else -1, errno EPERM and a message. */
int topomap_store_check_dir(const struct stat *st, const char *shown, char *err,
                            size_t errlen);

/**
 * Write @p p as NAME.profile into the directory @p dfd (shown as @p shown):
 * a temporary file created there without following links, mode 0644, owned
 * by @p owner:@p group when the caller is root and that differs, flushed, then
 * renamed over NAME.profile. 0, or -1 with errno and a message.
 */
int topomap_store_write_at(int dfd, const char *shown, const char *name,
                           const topomap_profile_t *p, uid_t owner, gid_t group, char *err,
                           size_t errlen);

/**
 * Read NAME.profile from the directory @p dfd (whose fstat is @p dst, shown as
 * @p shown) for @p nranks ranks (<= 0: any). The file must be a regular file
 * (links are not followed) owned by the directory's owner or root and
 * writable by its owner only. The rank count of its header ("# nranks=" in
 * the leading comment lines) is checked before the rest is read. NULL with
 * errno ENOENT, EPERM, ERANGE, EINVAL... and a message.
 */
topomap_profile_t *topomap_store_read_at(int dfd, const struct stat *dst, const char *shown,
                                         const char *name, int nranks, char *err,
                                         size_t errlen);

/** The profiles in directory @p dfd (shown as @p shown), appended to
 *  *@p v (*@p n entries, *@p cap allocated) with @p scope. 0 or -1 (ENOMEM). */
int topomap_store_list_at(int dfd, const struct stat *dst, const char *shown,
                          topomap_store_scope_t scope, topomap_store_entry_t **v, size_t *n,
                          size_t *cap, char *err, size_t errlen);

/** Remove NAME.profile from @p dfd (shown as @p shown). 0 or -1 with a message. */
int topomap_store_remove_at(int dfd, const char *shown, const char *name, char *err,
                            size_t errlen);

/** mkdir -p @p dir with mode 0755; 0 or -1 with errno. Sets *@p made when the
 *  last component was created. */
int topomap_store_mkdirs(const char *dir, int *made);

/** close(@p fd) keeping errno; returns @p rc. */
int topomap_store_close(int fd, int rc);

/** Make DIR/users (the store open on @p rfd, shown as @p dir), mode 1777
 *  (sticky). 0 (also when it exists), or -1 with errno and a message. */
int topomap_store_make_users(int rfd, const char *dir, char *err, size_t errlen);

/** Sort listed entries by name, the user's before the site's. */
void topomap_store_sort(topomap_store_entry_t *v, size_t n);

#endif
