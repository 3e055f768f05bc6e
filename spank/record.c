/* SPDX-License-Identifier: BSD-3-Clause */
/* Recording a profile with --topomap-record: the name, the preload, the
 * per-node directory, storing what rank 0 wrote (see policy.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

int tmsp_record_name(const struct topomap_srun *o, char *name, size_t len, char *msg,
                     size_t msglen)
{
    const char *n = NULL, *from = NULL;
    if (o->record && *o->record) {
        n = o->record;
        from = "--topomap-record";
    } else if (o->profile && *o->profile && !strchr(o->profile, '/')) {
        /* The name the next run looks up with the same options. */
        n = o->profile;
        from = "--topomap-profile";
    } else if (o->app) {
        n = o->app;
        from = "the executable's name";
    }
    if (!n)
        return tmsp_fail(msg, msglen, EINVAL,
                         "topomap: --topomap-record: no name to record under (give "
                         "--topomap-record=NAME); not recording");
    if (!topomap_store_name_valid(n))
        return tmsp_fail(
            msg, msglen, EINVAL,
            "topomap: --topomap-record: '%.200s' (%s) is not a valid profile name (1 to "
            "200 characters from A-Z a-z 0-9 . _ + -, not starting with '.' or '-'); "
            "not recording",
            n, from);
    if (strlen(n) >= len)
        return tmsp_fail(msg, msglen, EINVAL,
                         "topomap: --topomap-record: name too long; not recording");
    strcpy(name, n);
    return 0;
}

char *tmsp_preload_prepend(const char *lib, const char *cur)
{
    size_t ll = strlen(lib);
    /* ld.so separates LD_PRELOAD entries with ':' or ' '. */
    if (cur && !strncmp(cur, lib, ll) && (!cur[ll] || cur[ll] == ':' || cur[ll] == ' ')) {
        char *same = strdup(cur);
        if (!same)
            errno = ENOMEM;
        return same;
    }
    size_t cl = cur ? strlen(cur) : 0;
    char *s = malloc(ll + cl + 2);
    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(s, lib, ll + 1);
    if (cl) {
        s[ll] = ':';
        memcpy(s + ll + 1, cur, cl + 1);
    }
    return s;
}

int tmsp_record_mkdir(const char *spool, unsigned long job, unsigned long step, uid_t uid,
                      gid_t gid, char *path, size_t len, char *err, size_t errlen)
{
    int e;
    if (!spool)
        spool = TOPOMAP_SPOOL_DEFAULT;
    if (len)
        path[0] = 0;
    if (mkdir(spool, 0755) < 0 && errno != EEXIST) {
        e = errno;
        return tmsp_fail(err, errlen, e, "cannot create the spool directory %s: %s", spool,
                         strerror(e));
    }
    int k = snprintf(path, len, "%s/topomap-record.%lu.%lu.XXXXXX", spool, job, step);
    if (k < 0 || (size_t)k >= len) {
        if (len)
            path[0] = 0;
        return tmsp_fail(err, errlen, ENAMETOOLONG, "spool directory %.200s: path too long",
                         spool);
    }
    /* A fresh, unguessable name: the spool may be world-writable (/tmp). */
    if (!mkdtemp(path)) {
        e = errno;
        path[0] = 0;
        return tmsp_fail(err, errlen, e, "cannot create a directory in %s: %s", spool,
                         strerror(e));
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        e = errno;
        rmdir(path);
        path[0] = 0;
        return tmsp_fail(err, errlen, e, "cannot open a directory in %s: %s", spool,
                         strerror(e));
    }
    /* The job's rank 0 writes into it as the job's user. */
    if ((uid != geteuid() || gid != getegid()) && fchown(fd, uid, gid) < 0) {
        e = errno;
        tmsp_fail(err, errlen, e, "cannot give %s to uid %lu: %s", path, (unsigned long)uid,
                  strerror(e));
        close(fd);
        rmdir(path);
        path[0] = 0;
        errno = e;
        return -1;
    }
    return fd;
}

int tmsp_record_register(int dirfd, const char *dirpath, uid_t uid, gid_t gid, long ntasks,
                         const char *store, const char *name, const char *step, char *msg,
                         size_t msglen)
{
    char shown[PATH_MAX + 32], fdpath[64], err[TOPOMAP_ERRLEN] = "";
    struct stat st;
    int e;

    snprintf(shown, sizeof shown, "%s/%s", dirpath, TOPOMAP_RECORD_FILE);
    if (!name || !topomap_store_name_valid(name))
        return tmsp_fail(msg, msglen, EINVAL,
                         "topomap: '%.200s' is not a valid profile name; nothing recorded",
                         name ? name : "");
    /* Through the directory this process created and kept open, without
     * following links: the job's user owns the directory and its contents. */
    int fd = openat(dirfd, TOPOMAP_RECORD_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        e = errno;
        if (e == ENOENT)
            return tmsp_fail(
                msg, msglen, ENOENT,
                "topomap: step %s wrote no profile for '%s' (rank 0 did not reach "
                "MPI_Finalize: not an MPI program, an abort, or a failed start); "
                "nothing recorded",
                step, name);
        if (e == ELOOP)
            return tmsp_fail(msg, msglen, EPERM,
                             "topomap: %s is a symbolic link; nothing recorded", shown);
        return tmsp_fail(msg, msglen, e, "topomap: cannot open %s: %s; nothing recorded",
                         shown, strerror(e));
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != uid) {
        close(fd);
        return tmsp_fail(msg, msglen, EPERM,
                         "topomap: %s is not a regular file of uid %lu; nothing recorded",
                         shown, (unsigned long)uid);
    }
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
    topomap_profile_t *p = topomap_profile_load(fdpath, TOPOMAP_FMT_EDGES, err, sizeof err);
    e = errno;
    close(fd);
    if (!p) {
        /* Show the file's name, not the descriptor's. */
        size_t fl = strlen(fdpath);
        const char *rest = !strncmp(err, fdpath, fl) ? err + fl : NULL;
        if (rest)
            tmsp_fail(msg, msglen, e, "topomap: cannot record '%s': %s%s; nothing recorded",
                      name, shown, rest);
        else
            tmsp_fail(msg, msglen, e,
                      "topomap: cannot record '%s' from %s: %s; nothing recorded", name,
                      shown, err);
        errno = e == ENOENT ? EINVAL : e;
        return -1;
    }
    int n = topomap_profile_nranks(p);
    if (ntasks > 0 && n != ntasks) {
        topomap_profile_free(p);
        return tmsp_fail(
            msg, msglen, ERANGE,
            "topomap: the profile step %s wrote has %d ranks but the step %ld tasks "
            "(MPI did not start the tasks as one job, e.g. MPICH under --mpi=pmix: use "
            "--mpi=pmi2); nothing recorded",
            step, n, ntasks);
    }
    if (topomap_store_user_add(store, uid, gid, name, p, err, sizeof err) < 0) {
        e = errno;
        topomap_profile_free(p);
        return tmsp_fail(
            msg, msglen, e, "topomap: cannot store profile '%s': %s; nothing recorded", name, err);
    }
    char where[PATH_MAX];
    if (topomap_store_user_path(store, uid, NULL, where, sizeof where, NULL, 0) < 0)
        snprintf(where, sizeof where, "%s", topomap_store_dir(store));
    snprintf(msg, msglen, "topomap: recorded profile '%s' (%d ranks, %.0f bytes) in %s", name, n,
             topomap_profile_total_bytes(p), where);
    tmsp_clean(msg);
    topomap_profile_free(p);
    return 0;
}

int tmsp_record_cleanup(int dirfd, const char *dirpath, char *err, size_t errlen)
{
    int e = 0, left = 0;
    int dup = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
    if (!d) {
        e = errno;
        if (dup >= 0)
            close(dup);
        left = 1;
    } else {
        for (struct dirent *de; (de = readdir(d));) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            /* Files only: a directory here was made by the job, not rank 0. */
            if (unlinkat(dirfd, de->d_name, 0) < 0) {
                if (!left)
                    e = errno;
                left++;
            }
        }
        closedir(d);
    }
    /* The job's user owns the directory and may have moved it: remove the
     * path only while it is still ours. */
    struct stat a, b;
    int moved = 0;
    if (!left) {
        if (fstat(dirfd, &a) < 0 || lstat(dirpath, &b) < 0 || a.st_dev != b.st_dev ||
            a.st_ino != b.st_ino)
            moved = 1;
        else if (rmdir(dirpath) < 0) {
            e = errno;
            left = 1;
        }
    }
    close(dirfd);
    if (moved)
        return tmsp_fail(err, errlen, ENOENT,
                         "the recording directory %s was moved; left in place", dirpath);
    if (left)
        return tmsp_fail(err, errlen, e, "cannot remove the recording directory %s: %s",
                         dirpath, strerror(e));
    return 0;
}
