/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/store.h
 * @brief libtopomap: Profile store.
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_STORE_H
#define TOPOMAP_API_STORE_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/store.h>"
#endif

/*
 * Communication profiles keyed by name (usually the application's executable
 * name), in a store directory DIR (the plugin's profiles=, or
 * $TOPOMAP_STORE, or TOPOMAP_STORE_DEFAULT), in two scopes:
 *  - site profiles, DIR/NAME.profile, written by the store's owner (the
 *    owner of DIR: the admins) only;
 *  - user profiles, DIR/users/UID/NAME.profile, recorded by and used for user
 *    UID only: DIR/users/UID belongs to UID (mode 0700), and DIR/users is the
 *    store owner's sticky directory (mode 1777) in which each user makes his
 *    own (or the plugin does, as root, for a recording).
 * Lookup order for user UID (topomap_store_find): his own profile, then the
 * site's. A profile is only used when nobody but its owner can change it:
 * the directory writable by its owner only (DIR/users: sticky), the file a
 * regular file (links are not followed) owned by the directory's owner (or
 * root) and writable by its owner only, DIR/users/UID owned by UID. So no
 * user can change what another user's jobs read (a directory planted under
 * another user's uid is refused, not used: errno EPERM).
 *
 * A profile is the file NAME.profile in the edge-list format of
 * topomap_profile_write(), whose "# nranks=N" first line records the rank
 * count it was recorded with.
 *
 * Writes are atomic: a profile is written to a temporary file in its
 * directory, flushed to disk and renamed over NAME.profile, so readers see
 * either the old or the new complete profile, never a partial one, and when
 * several jobs store the same name at once the last rename wins. Names are 1
 * to 200 characters from [A-Za-z0-9._+-], not starting with '.' or '-'.
 *
 * Rank counts (topomap_profile_adapt()): a stored profile is used as it is
 * for a job with the same number of ranks. For another count, a profile that
 * is a process grid in rank order (topomap_grid_detect()) gives the profile
 * of the same grid application at the job's count (topomap_grid_rescale():
 * metadata "rescaled_from" and "grid" say so); any other profile is refused
 * (errno ERANGE, the message says both counts); callers report it and keep
 * the default layout. The count in the file's header is checked first: a file
 * too large to be a grid of its declared count is refused without reading
 * it.
 */

/** The store used when neither a directory nor $TOPOMAP_STORE is given. */
#define TOPOMAP_STORE_DEFAULT "/var/lib/topomap/profiles"

/** Scopes of stored profiles (topomap_store_entry_t, topomap_store_find()). */
enum topomap_store_scope { TOPOMAP_STORE_SITE = 0, TOPOMAP_STORE_USER = 1 };
typedef enum topomap_store_scope topomap_store_scope_t;

/**
 * The store directory to use: @p dir when non-NULL and non-empty, else the
 * environment variable TOPOMAP_STORE when set and non-empty, else
 * TOPOMAP_STORE_DEFAULT. The result points to @p dir, the environment or a
 * constant: valid until the environment changes; never NULL.
 */
const char *topomap_store_dir(const char *dir);

/** 1 if @p name is a valid profile name (see above), else 0. */
int topomap_store_name_valid(const char *name);

/**
 * Write the path of site profile @p name in store @p dir into @p buf (@p len
 * bytes). @return 0, or -1 with errno EINVAL (invalid name, message in
 * @p err) or ENAMETOOLONG (does not fit in @p buf).
 */
int topomap_store_path(const char *dir, const char *name, char *buf, size_t len,
                       char *err, size_t errlen);

/**
 * Write the path of user @p uid's profile @p name in store @p dir into
 * @p buf (@p name NULL: the path of his directory, DIR/users/UID).
 * @return 0, or -1 with errno EINVAL or ENAMETOOLONG as above.
 */
int topomap_store_user_path(const char *dir, uid_t uid, const char *name, char *buf,
                            size_t len, char *err, size_t errlen);

/**
 * Store @p p as site profile @p name in @p dir, atomically replacing any
 * profile of that name. Only the owner of @p dir (or root) may: others get
 * EPERM. Creates @p dir (and its parents, mode 0755) when missing, and
 * DIR/users (mode 1777) beside the site profiles. The file is made readable
 * by everyone (mode 0644) so that every user's jobs can use it.
 * @return 0, or -1 with errno EINVAL (invalid name), EPERM, or the errno of
 *         the failed mkdir/write/rename (EACCES, ENOSPC, ...), with a message
 *         in @p err. On failure no temporary file is left behind.
 */
int topomap_store_add(const char *dir, const char *name, const topomap_profile_t *p,
                      char *err, size_t errlen);

/**
 * Store @p p as user @p uid's profile @p name in @p dir (DIR/users/UID),
 * atomically as above. The caller is user @p uid himself, or root (the
 * plugin storing a recording), who creates the missing directories (DIR/users
 * mode 1777, DIR/users/UID mode 0700 owned by @p uid:@p gid) and gives the
 * file to @p uid:@p gid. No link is followed under DIR.
 * @return 0, or -1 with errno EINVAL, EPERM (DIR/users/UID is not @p uid's,
 *         or the caller is neither @p uid nor root), ENOENT (no DIR/users and
 *         the caller may not create it) or the errno of the failed write,
 *         with a message in @p err.
 */
int topomap_store_user_add(const char *dir, uid_t uid, gid_t gid, const char *name,
                           const topomap_profile_t *p, char *err, size_t errlen);

/**
 * Load site profile @p name from @p dir for a job of @p nranks ranks (@p nranks
 * <= 0: any rank count).
 * @return a new profile (caller frees with topomap_profile_free), or NULL with
 *         errno ENOENT (no such profile), EPERM (a file or directory others
 *         than its owner could have changed, see above), ERANGE (recorded for
 *         another rank count and not a grid that can be rescaled), EINVAL
 *         (invalid name, or a corrupt file: "FILE:LINE: problem" in @p err),
 *         or the errno of the failed open.
 */
topomap_profile_t *topomap_store_lookup(const char *dir, const char *name, int nranks,
                                        char *err, size_t errlen);

/**
 * The lookup order of user @p uid: his profile @p name (DIR/users/UID), else
 * the site's (DIR), for @p nranks ranks as topomap_store_lookup(). A user
 * directory that is not his is an error (EPERM), not skipped. *@p scope (if
 * non-NULL) gets TOPOMAP_STORE_USER or TOPOMAP_STORE_SITE, @p path (if
 * non-NULL, @p pathlen bytes) the file read.
 * @return a new profile, or NULL with errno as topomap_store_lookup() (ENOENT:
 *         in neither scope).
 */
topomap_profile_t *topomap_store_find(const char *dir, uid_t uid, const char *name,
                                      int nranks, topomap_store_scope_t *scope, char *path,
                                      size_t pathlen, char *err, size_t errlen);

/** One profile of a store, as listed by topomap_store_list(). */
typedef struct topomap_store_entry {
    char name[201];   /**< profile name */
    int nranks;       /**< recorded rank count, -1 if the header does not say */
    long long bytes;  /**< file size */
    long long mtime;  /**< last modification, seconds since the epoch */
    topomap_store_scope_t scope; /**< site or user */
} topomap_store_entry_t;

/**
 * List the site profiles of @p dir, sorted by name. Temporary files of writes
 * in progress, files that are not NAME.profile and files that would not be
 * used (see above) are skipped.
 * @return 0 with *@p entries (caller frees with free(); NULL when *@p n is 0)
 *         and *@p n set, or -1 with the errno of the failed opendir (ENOENT
 *         for a missing store), EPERM or ENOMEM, with a message in @p err.
 */
int topomap_store_list(const char *dir, topomap_store_entry_t **entries, size_t *n,
                       char *err, size_t errlen);

/**
 * List what user @p uid sees in @p dir: his profiles, then the site's, sorted
 * by name (his before the site's of the same name, the lookup order), each
 * with its scope. A missing DIR/users/UID lists none of his.
 * @return as topomap_store_list().
 */
int topomap_store_user_list(const char *dir, uid_t uid, topomap_store_entry_t **entries,
                            size_t *n, char *err, size_t errlen);

/**
 * Remove site profile @p name from @p dir.
 * @return 0, or -1 with errno EINVAL (invalid name), ENOENT (no such profile)
 *         or the errno of the failed unlink, with a message in @p err.
 */
int topomap_store_remove(const char *dir, const char *name, char *err, size_t errlen);

/** Remove user @p uid's profile @p name from @p dir (as topomap_store_remove()). */
int topomap_store_user_remove(const char *dir, uid_t uid, const char *name, char *err,
                              size_t errlen);

#endif /* TOPOMAP_API_STORE_H */
