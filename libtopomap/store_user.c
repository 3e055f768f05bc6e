/* SPDX-License-Identifier: BSD-3-Clause */
/* The profile store's per-user directories DIR/users/UID and the lookup order
 * (user, then site); see topomap.h for the rules.
 *
 * DIR/users is the store owner's sticky directory (mode 1777): every user may
 * make his own directory there and nobody may rename or remove another's.
 * A directory named after a uid but owned by someone else (planted before
 * its user made his) is refused, never used: no user can decide what
 * another user's jobs read. Everything below DIR is opened relative to a
 * descriptor of its parent without following links, so root (the plugin
 * storing a recording in slurmstepd) cannot be redirected elsewhere by a user
 * who renames his directory or puts a link in its place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_priv.h"

int topomap_store_user_path(const char *dir, uid_t uid, const char *name, char *buf, size_t len,
                            char *err, size_t errlen)
{
    char c[256];
    if (name && topomap_store_check_name(name, err, errlen) < 0)
        return -1;
    dir = topomap_store_dir(dir);
    int k = name ? snprintf(buf, len, "%s/" TOPOMAP_STORE_USERS "/%lu/%s" TOPOMAP_STORE_SUFFIX,
                            dir, (unsigned long)uid, name)
                 : snprintf(buf, len, "%s/" TOPOMAP_STORE_USERS "/%lu", dir, (unsigned long)uid);
    if (k < 0 || (size_t)k >= len)
        return topomap_fail(err, errlen, ENAMETOOLONG,
                            "%s/" TOPOMAP_STORE_USERS "/%lu: path too long",
                            topomap_store_clean(dir, c, sizeof c), (unsigned long)uid);
    return 0;
}

/* The sticky DIR/users of the store open on @p root (fstat @p rst): owned by
 * the store's owner or root, and either writable by its owner only or
 * sticky. 0, or -1 with a message. */
static int check_users(const struct stat *st, const struct stat *rst, const char *shown,
                       char *err, size_t errlen)
{
    char c[256];
    topomap_store_clean(shown, c, sizeof c);
    if (!S_ISDIR(st->st_mode))
        return topomap_fail(err, errlen, ENOTDIR, "%s is not a directory", c);
    if (st->st_uid != rst->st_uid && st->st_uid != 0)
        return topomap_fail(err, errlen, EPERM,
                            "%s belongs to uid %lu, not to the store's owner (uid %lu): its "
                            "profiles are not used",
                            c, (unsigned long)st->st_uid, (unsigned long)rst->st_uid);
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
        return topomap_fail(err, errlen, EPERM,
                            "%s is writable by others but not sticky (mode %04o): its profiles "
                            "are not used",
                            c, (unsigned)(st->st_mode & 07777));
    return 0;
}

/* DIR/users/UID of user @p uid, opened into *@p ufd (fstat into @p ust); with
 * @p create, the missing directories are made (see topomap_store_user_add).
 * 0, or -1 with errno (ENOENT: no such directory and !create) and a message. */
static int open_user(const char *dir, uid_t uid, gid_t gid, int create, int *ufd,
                     struct stat *ust, char *shown, size_t shownlen, char *err, size_t errlen)
{
    char c[256], users[PATH_MAX];
    struct stat rst, sst;
    int rfd = -1, sfd = -1, e, made = 0;
    *ufd = -1;
    if (topomap_store_user_path(dir, uid, NULL, shown, shownlen, err, errlen) < 0)
        return -1;
    dir = topomap_store_dir(dir);
    snprintf(users, sizeof users, "%s/" TOPOMAP_STORE_USERS, dir);
    topomap_store_clean(dir, c, sizeof c);
    if (create && topomap_store_mkdirs(dir, &made) < 0)
        return topomap_fail(err, errlen, errno, "%s: cannot create the profile store: %s", c,
                            strerror(errno));
    rfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0 || fstat(rfd, &rst) < 0) {
        e = errno;
        if (!create && e == ENOENT)
            topomap_fail(err, errlen, e, "no profile store %s", c);
        else
            topomap_fail(err, errlen, e, "%s: cannot read the profile store: %s", c, strerror(e));
        goto fail;
    }
    if (topomap_store_check_dir(&rst, dir, err, errlen) < 0)
        goto fail;
    sfd = openat(rfd, TOPOMAP_STORE_USERS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0 && errno == ENOENT && create) {
        /* Only the store's owner (or root) makes it, sticky. */
        if (geteuid() != 0 && geteuid() != rst.st_uid) {
            topomap_fail(err, errlen, ENOENT,
                         "%s does not exist: the store's owner (uid %lu) creates it (mode 1777: "
                         "mkdir -m 1777 %s)",
                         topomap_store_clean(users, c, sizeof c), (unsigned long)rst.st_uid, c);
            goto fail;
        }
        if (topomap_store_make_users(rfd, dir, err, errlen) < 0)
            goto fail;
        sfd = openat(rfd, TOPOMAP_STORE_USERS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (sfd < 0 || fstat(sfd, &sst) < 0) {
        e = errno == ELOOP || errno == ENOTDIR ? EPERM : errno;
        topomap_store_clean(users, c, sizeof c);
        if (e == ENOENT)
            topomap_fail(err, errlen, e, "no user profiles in %s", c);
        else if (e == EPERM)
            topomap_fail(err, errlen, e, "%s is not a directory: not used", c);
        else
            topomap_fail(err, errlen, e, "%s: %s", c, strerror(e));
        goto fail;
    }
    if (check_users(&sst, &rst, users, err, errlen) < 0)
        goto fail;

    char id[32];
    snprintf(id, sizeof id, "%lu", (unsigned long)uid);
    *ufd = openat(sfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*ufd < 0 && errno == ENOENT && create) {
        if (geteuid() != 0 && geteuid() != uid) {
            topomap_fail(err, errlen, EPERM, "only user %lu (or root) creates %s",
                         (unsigned long)uid, topomap_store_clean(shown, c, sizeof c));
            goto fail;
        }
        if (mkdirat(sfd, id, 0700) < 0 && errno != EEXIST) {
            e = errno;
            topomap_fail(err, errlen, e, "%s: %s", topomap_store_clean(shown, c, sizeof c),
                         strerror(e));
            goto fail;
        }
        *ufd = openat(sfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        /* Made by root for a recording: the user's. A directory someone
         * else made meanwhile is not chown'ed: refused below. */
        if (*ufd >= 0 && fstat(*ufd, ust) == 0 && ust->st_uid == geteuid() && geteuid() == 0 &&
            uid != 0 && (fchmod(*ufd, 0700) < 0 || fchown(*ufd, uid, gid) < 0)) {
            e = errno;
            topomap_fail(err, errlen, e, "%s: %s", topomap_store_clean(shown, c, sizeof c),
                         strerror(e));
            goto fail;
        }
    }
    if (*ufd < 0 || fstat(*ufd, ust) < 0) {
        e = errno == ELOOP || errno == ENOTDIR ? EPERM : errno;
        topomap_store_clean(shown, c, sizeof c);
        if (e == ENOENT)
            topomap_fail(err, errlen, e, "no profiles of user %lu (no %s)", (unsigned long)uid, c);
        else if (e == EPERM)
            topomap_fail(err, errlen, e, "%s is not a directory: not used", c);
        else
            topomap_fail(err, errlen, e, "%s: %s", c, strerror(e));
        goto fail;
    }
    if (ust->st_uid != uid) {
        topomap_fail(err, errlen, EPERM,
                     "%s belongs to uid %lu, not to user %lu: not used (the store's owner "
                     "should remove it)",
                     topomap_store_clean(shown, c, sizeof c), (unsigned long)ust->st_uid,
                     (unsigned long)uid);
        goto fail;
    }
    if (topomap_store_check_dir(ust, shown, err, errlen) < 0)
        goto fail;
    close(sfd);
    close(rfd);
    return 0;
fail:
    e = errno;
    if (*ufd >= 0)
        close(*ufd);
    *ufd = -1;
    if (sfd >= 0)
        close(sfd);
    if (rfd >= 0)
        close(rfd);
    errno = e;
    return -1;
}

int topomap_store_user_add(const char *dir, uid_t uid, gid_t gid, const char *name,
                           const topomap_profile_t *p, char *err, size_t errlen)
{
    char shown[PATH_MAX];
    struct stat ust;
    int ufd;
    if (!p)
        return topomap_fail(err, errlen, EINVAL, "no profile to store");
    if (topomap_store_check_name(name, err, errlen) < 0)
        return -1;
    if (geteuid() != 0 && geteuid() != uid)
        return topomap_fail(err, errlen, EPERM,
                            "only user %lu (or root) stores profiles as user %lu",
                            (unsigned long)uid, (unsigned long)uid);
    if (open_user(dir, uid, gid, 1, &ufd, &ust, shown, sizeof shown, err, errlen) < 0)
        return -1;
    return topomap_store_close(ufd, topomap_store_write_at(ufd, shown, name, p, uid, gid, err,
                                                           errlen));
}

topomap_profile_t *topomap_store_find(const char *dir, uid_t uid, const char *name, int nranks,
                                      topomap_store_scope_t *scope, char *path, size_t pathlen,
                                      char *err, size_t errlen)
{
    char shown[PATH_MAX];
    struct stat ust;
    int ufd;
    if (topomap_store_check_name(name, err, errlen) < 0)
        return NULL;
    if (open_user(dir, uid, 0, 0, &ufd, &ust, shown, sizeof shown, err, errlen) == 0) {
        topomap_profile_t *p = topomap_store_read_at(ufd, &ust, shown, name, nranks, err, errlen);
        int e = errno;
        topomap_store_close(ufd, 0);
        if (p || e != ENOENT) {
            if (p && scope)
                *scope = TOPOMAP_STORE_USER;
            if (p && path)
                topomap_store_user_path(dir, uid, name, path, pathlen, NULL, 0);
            errno = e;
            return p;
        }
    } else if (errno != ENOENT)
        return NULL; /* a user directory that is not his: said, not skipped */
    topomap_profile_t *p = topomap_store_lookup(dir, name, nranks, err, errlen);
    if (p && scope)
        *scope = TOPOMAP_STORE_SITE;
    if (p && path)
        topomap_store_path(dir, name, path, pathlen, NULL, 0);
    return p;
}

int topomap_store_user_list(const char *dir, uid_t uid, topomap_store_entry_t **entries,
                            size_t *n, char *err, size_t errlen)
{
    char shown[PATH_MAX];
    struct stat ust;
    int ufd;
    size_t cap = 0;
    if (!entries || !n)
        return topomap_fail(err, errlen, EINVAL, "no output for the store listing");
    *entries = NULL;
    *n = 0;
    /* The site's first (its errors are the store's), then his. */
    if (topomap_store_list(dir, entries, n, err, errlen) < 0)
        return -1;
    cap = *n;
    int rc = 0;
    if (open_user(dir, uid, 0, 0, &ufd, &ust, shown, sizeof shown, err, errlen) == 0) {
        rc = topomap_store_list_at(ufd, &ust, shown, TOPOMAP_STORE_USER, entries, n, &cap, err,
                                   errlen);
        close(ufd);
    } else if (errno != ENOENT)
        rc = -1;
    if (rc < 0) {
        int e = errno;
        free(*entries);
        *entries = NULL;
        *n = 0;
        errno = e;
        return -1;
    }
    topomap_store_sort(*entries, *n);
    return 0;
}

int topomap_store_user_remove(const char *dir, uid_t uid, const char *name, char *err,
                              size_t errlen)
{
    char shown[PATH_MAX];
    struct stat ust;
    int ufd;
    if (topomap_store_check_name(name, err, errlen) < 0)
        return -1;
    if (open_user(dir, uid, 0, 0, &ufd, &ust, shown, sizeof shown, err, errlen) < 0) {
        if (errno == ENOENT)
            topomap_fail(err, errlen, ENOENT, "no profile '%s' of user %lu in the store %s",
                         name, (unsigned long)uid,
                         topomap_store_clean(topomap_store_dir(dir), (char[256]){0}, 256));
        return -1;
    }
    return topomap_store_close(ufd, topomap_store_remove_at(ufd, shown, name, err, errlen));
}
