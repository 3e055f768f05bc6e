/* SPDX-License-Identifier: BSD-3-Clause */
/* The profile store: a directory of NAME.profile files (see topomap.h).
 *
 * Concurrency: the only operation that changes a profile is rename(2) of a
 * complete, fsync'ed temporary file from the same directory, which POSIX makes
 * atomic, so any number of jobs may store and read profiles at once without
 * locks. Readers never take locks either: they open whatever complete file the
 * name points to at that moment. A profile recorded for another rank count
 * is loaded whole: when it is a process grid it is rescaled to the job's
 * count (grid_rescale.c), else refused. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#include "internal.h"

#define SUFFIX ".profile"
#define NAME_MAX_LEN 200

const char *topomap_store_dir(const char *dir)
{
    if (dir && *dir)
        return dir;
    const char *env = getenv("TOPOMAP_STORE");
    if (env && *env)
        return env;
    return TOPOMAP_STORE_DEFAULT;
}

int topomap_store_name_valid(const char *name)
{
    if (!name || !*name || name[0] == '.' || name[0] == '-')
        return 0;
    size_t n = 0;
    for (const char *c = name; *c; c++, n++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                 (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '+' || *c == '-';
        if (!ok || n >= NAME_MAX_LEN)
            return 0;
    }
    return 1;
}

static int check_name(const char *name, char *err, size_t errlen)
{
    if (topomap_store_name_valid(name))
        return 0;
    return topomap_fail(err, errlen, EINVAL,
                        "invalid profile name '%s' (1 to %d characters from A-Z a-z 0-9 . _ + -, "
                        "not starting with '.' or '-')",
                        name ? name : "(null)", NAME_MAX_LEN);
}

int topomap_store_path(const char *dir, const char *name, char *buf, size_t len, char *err,
                       size_t errlen)
{
    if (check_name(name, err, errlen) < 0)
        return -1;
    dir = topomap_store_dir(dir);
    int k = snprintf(buf, len, "%s/%s" SUFFIX, dir, name);
    if (k < 0 || (size_t)k >= len)
        return topomap_fail(err, errlen, ENAMETOOLONG, "%s/%s" SUFFIX ": path too long", dir,
                            name);
    return 0;
}

/* mkdir -p with mode 0755; 0 or -1 with errno. */
static int mkdirs(const char *dir)
{
    char path[PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(path, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int topomap_store_add(const char *dir, const char *name, const topomap_profile_t *p, char *err,
                      size_t errlen)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    if (!p)
        return topomap_fail(err, errlen, EINVAL, "no profile to store");
    if (topomap_store_path(dir, name, path, sizeof path, err, errlen) < 0)
        return -1;
    dir = topomap_store_dir(dir);
    if (mkdirs(dir) < 0)
        return topomap_fail(err, errlen, errno, "%s: cannot create the profile store: %s", dir,
                            strerror(errno));
    int k = snprintf(tmp, sizeof tmp, "%s/.%s" SUFFIX ".XXXXXX", dir, name);
    if (k < 0 || (size_t)k >= sizeof tmp)
        return topomap_fail(err, errlen, ENAMETOOLONG, "%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return topomap_fail(err, errlen, errno, "%s: cannot write to the profile store: %s", dir,
                            strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return topomap_fail(err, errlen, e, "%s: %s", tmp, strerror(e));
    }
    /* Readable by every user's jobs; mkstemp creates 0600. */
    int bad = fchmod(fd, 0644) < 0 || topomap_profile_write(p, f) < 0 || fsync(fd) < 0;
    int e = errno;
    if (fclose(f) == EOF && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(tmp, path) < 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        return topomap_fail(err, errlen, e ? e : EIO, "%s: cannot store the profile: %s", path,
                            strerror(e ? e : EIO));
    }
    /* Make the rename itself durable; a failure here loses nothing readers see. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

/* The rank count recorded on the first line ("# nranks=N"), -1 if none. */
static int peek_nranks(FILE *f)
{
    char line[128];
    if (!fgets(line, sizeof line, f))
        return -1;
    const char *key = "# nranks=";
    if (strncmp(line, key, strlen(key)))
        return -1;
    line[strcspn(line, "\r\n")] = 0;
    long v;
    if (topomap_parse_long(line + strlen(key), &v) < 0 || v <= 0 || v > INT_MAX)
        return -1;
    return (int)v;
}

static int refuse_count(const char *name, int recorded, int nranks, char *err, size_t errlen)
{
    return topomap_fail(err, errlen, ERANGE,
                        "profile '%s' was recorded with %d ranks, this job has %d: not used", name,
                        recorded, nranks);
}

topomap_profile_t *topomap_store_lookup(const char *dir, const char *name, int nranks, char *err,
                                        size_t errlen)
{
    char path[PATH_MAX];
    if (topomap_store_path(dir, name, path, sizeof path, err, errlen) < 0)
        return NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        if (e == ENOENT)
            topomap_fail(err, errlen, e, "no profile '%s' in the store %s", name,
                         topomap_store_dir(dir));
        else
            topomap_fail(err, errlen, e, "%s: %s", path, strerror(e));
        return NULL;
    }
    fclose(f);
    topomap_profile_t *p = topomap_profile_load(path, TOPOMAP_FMT_EDGES, err, errlen);
    if (!p)
        return NULL;
    /* Another rank count: a grid is rescaled (issue 12), the rest refused. */
    if (nranks > 0 && topomap_profile_nranks(p) != nranks) {
        topomap_profile_t *r = topomap_grid_rescale(p, nranks, 0, NULL, NULL, 0);
        if (!r)
            refuse_count(name, topomap_profile_nranks(p), nranks, err, errlen);
        topomap_profile_free(p);
        return r;
    }
    return p;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const topomap_store_entry_t *)a)->name, ((const topomap_store_entry_t *)b)->name);
}

int topomap_store_list(const char *dir, topomap_store_entry_t **entries, size_t *n, char *err,
                       size_t errlen)
{
    if (!entries || !n)
        return topomap_fail(err, errlen, EINVAL, "no output for the store listing");
    *entries = NULL;
    *n = 0;
    dir = topomap_store_dir(dir);
    DIR *d = opendir(dir);
    if (!d)
        return topomap_fail(err, errlen, errno, "%s: cannot read the profile store: %s", dir,
                            strerror(errno));
    topomap_store_entry_t *v = NULL;
    size_t cap = 0, cnt = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name), sl = strlen(SUFFIX);
        if (len <= sl || strcmp(de->d_name + len - sl, SUFFIX))
            continue;
        char name[NAME_MAX_LEN + 1];
        if (len - sl > NAME_MAX_LEN)
            continue;
        memcpy(name, de->d_name, len - sl);
        name[len - sl] = 0;
        if (!topomap_store_name_valid(name))
            continue;
        char path[PATH_MAX];
        struct stat st;
        int k = snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (k < 0 || (size_t)k >= sizeof path || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
            continue; /* removed meanwhile, or not a file */
        if (cnt == cap) {
            size_t nc = cap ? 2 * cap : 16;
            topomap_store_entry_t *nv = realloc(v, nc * sizeof *nv);
            if (!nv) {
                free(v);
                closedir(d);
                return topomap_fail(err, errlen, ENOMEM, "out of memory listing %s", dir);
            }
            v = nv;
            cap = nc;
        }
        topomap_store_entry_t *e = &v[cnt++];
        memset(e, 0, sizeof *e);
        memcpy(e->name, name, strlen(name) + 1);
        e->bytes = (long long)st.st_size;
        e->mtime = (long long)st.st_mtime;
        FILE *f = fopen(path, "r");
        e->nranks = f ? peek_nranks(f) : -1;
        if (f)
            fclose(f);
    }
    closedir(d);
    if (cnt)
        qsort(v, cnt, sizeof *v, entry_cmp);
    else {
        free(v);
        v = NULL;
    }
    *entries = v;
    *n = cnt;
    return 0;
}

int topomap_store_remove(const char *dir, const char *name, char *err, size_t errlen)
{
    char path[PATH_MAX];
    if (topomap_store_path(dir, name, path, sizeof path, err, errlen) < 0)
        return -1;
    if (unlink(path) < 0) {
        int e = errno;
        if (e == ENOENT)
            return topomap_fail(err, errlen, e, "no profile '%s' in the store %s", name,
                                topomap_store_dir(dir));
        return topomap_fail(err, errlen, e, "%s: cannot remove: %s", path, strerror(e));
    }
    return 0;
}
