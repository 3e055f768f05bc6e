/* SPDX-License-Identifier: BSD-3-Clause */
/* The profile store, one directory of NAME.profile files: site profiles here,
 * the per-user directories and the lookup order in store_user.c (see
 * topomap.h for the rules).
 *
 * Concurrency: the only operation that changes a profile is renameat(2) of a
 * complete, fsync'ed temporary file from the same directory, which POSIX makes
 * atomic, so any number of jobs may store and read profiles at once without
 * locks. Readers never take locks either: they open whatever complete file the
 * name points to at that moment.
 *
 * Trust: every read and write goes through a descriptor of the directory and
 * never follows a link in it, and a profile is used only when nobody but the
 * directory's owner (or root) could have written it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "store_priv.h"

#define SUFFIX TOPOMAP_STORE_SUFFIX
#define NAME_MAX_LEN TOPOMAP_STORE_NAME_MAX

/* The header ("#" lines) read to find the rank count, at most this much. */
#define HEADER_MAX 65536
/* A process grid has at most 8 neighbours per rank (4D); a line of the edge
 * list is under 80 bytes. A file larger than this per declared rank is no
 * grid, so a profile for another rank count that large is refused before it
 * is read (it could not be rescaled). */
#define GRID_BYTES_PER_RANK 1024

const char *topomap_store_clean(const char *s, char *buf, size_t len)
{
    return topomap_printable(s ? s : "(null)", buf, len); /* the library's one helper */
}

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

int topomap_store_check_name(const char *name, char *err, size_t errlen)
{
    char c[64];
    if (topomap_store_name_valid(name))
        return 0;
    return topomap_fail(err, errlen, EINVAL,
                        "invalid profile name '%s' (1 to %d characters from A-Z a-z 0-9 . _ + -, "
                        "not starting with '.' or '-')",
                        topomap_store_clean(name, c, sizeof c), NAME_MAX_LEN);
}

int topomap_store_check_dir(const struct stat *st, const char *shown, char *err, size_t errlen)
{
    char c[256];
    if (!S_ISDIR(st->st_mode))
        return topomap_fail(err, errlen, ENOTDIR, "%s is not a directory",
                            topomap_store_clean(shown, c, sizeof c));
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return topomap_fail(err, errlen, EPERM,
                            "%s is writable by others than its owner (mode %04o): its profiles "
                            "are not used",
                            topomap_store_clean(shown, c, sizeof c),
                            (unsigned)(st->st_mode & 07777));
    return 0;
}

int topomap_store_path(const char *dir, const char *name, char *buf, size_t len, char *err,
                       size_t errlen)
{
    char c[256];
    if (topomap_store_check_name(name, err, errlen) < 0)
        return -1;
    dir = topomap_store_dir(dir);
    int k = snprintf(buf, len, "%s/%s" SUFFIX, dir, name);
    if (k < 0 || (size_t)k >= len)
        return topomap_fail(err, errlen, ENAMETOOLONG, "%s/%s" SUFFIX ": path too long",
                            topomap_store_clean(dir, c, sizeof c), name);
    return 0;
}

int topomap_store_mkdirs(const char *dir, int *made)
{
    char path[PATH_MAX];
    size_t n = strlen(dir);
    if (made)
        *made = 0;
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
    if (mkdir(path, 0755) == 0) {
        if (made)
            *made = 1;
    } else if (errno != EEXIST)
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

int topomap_store_close(int fd, int rc)
{
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* A name for a temporary file, `.NAME.profile.` and TEMP_HEX hex digits;
 * O_EXCL makes it safe, the randomness only avoids collisions between
 * concurrent writers. */
#define TEMP_HEX 6
static void temp_name(char *buf, size_t len, const char *name, unsigned attempt)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long x = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^
                      ((unsigned long)attempt * 2654435761UL) ^ (unsigned long)(uintptr_t)buf;
    x ^= x >> 13;
    x *= 0x5bd1e995UL;
    snprintf(buf, len, ".%s" SUFFIX ".%0*lx", name, TEMP_HEX, x & 0xffffff);
}

/* A writer killed between creating its temporary file and renaming it (kill
 * -9, a node lost) leaves `.NAME.profile.XXXXXX` behind; readers never see it
 * (a profile name cannot start with '.'), but nothing else would remove it.
 * The next writer of NAME removes those of its own user older than this: a
 * live writer touches its file at every write, and one stalled that long on a
 * hung filesystem has lost its step anyway (its rename then fails, one line). */
#define STALE_TEMP_SECONDS 3600

static void remove_stale_temps(int dfd, const char *name, uid_t owner)
{
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char prefix[NAME_MAX_LEN + 16];
    int plen = snprintf(prefix, sizeof prefix, ".%s" SUFFIX ".", name);
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *x = e->d_name;
        if (strncmp(x, prefix, (size_t)plen) || strlen(x + plen) != TEMP_HEX ||
            strspn(x + plen, "0123456789abcdef") != TEMP_HEX)
            continue;
        struct stat st;
        if (fstatat(dfd, x, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == owner && now - st.st_mtime > STALE_TEMP_SECONDS)
            unlinkat(dfd, x, 0);
    }
    closedir(d);
}

int topomap_store_write_at(int dfd, const char *shown, const char *name,
                           const topomap_profile_t *p, uid_t owner, gid_t group, char *err,
                           size_t errlen)
{
    char tmp[NAME_MAX_LEN + 32], final[NAME_MAX_LEN + 16], c[256];
    int fd = -1, e;
    topomap_store_clean(shown, c, sizeof c);
    snprintf(final, sizeof final, "%s" SUFFIX, name);
    for (unsigned attempt = 0; attempt < 100 && fd < 0; attempt++) {
        temp_name(tmp, sizeof tmp, name, attempt);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return topomap_fail(err, errlen, errno, "%s: cannot write to the profile store: %s", c,
                            strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        e = errno;
        close(fd);
        unlinkat(dfd, tmp, 0);
        return topomap_fail(err, errlen, e, "%s/%s: %s", c, tmp, strerror(e));
    }
    /* Readable by every user's jobs; the file is created 0600. Root writing
     * into a user's directory (a recording) gives the file to that user. */
    int give = geteuid() == 0 && owner != 0;
    int bad = fchmod(fd, 0644) < 0 || (give && fchown(fd, owner, group) < 0) ||
              topomap_profile_write(p, f) < 0 || fflush(f) == EOF || fsync(fd) < 0;
    e = errno;
    if (fclose(f) == EOF && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && renameat(dfd, tmp, dfd, final) < 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlinkat(dfd, tmp, 0);
        return topomap_fail(err, errlen, e ? e : EIO, "%s/%s: cannot store the profile: %s", c,
                            final, strerror(e ? e : EIO));
    }
    fsync(dfd); /* the rename itself; a failure here loses nothing readers see */
    remove_stale_temps(dfd, name, give ? owner : geteuid());
    return 0;
}

/* The rank count declared in the header of @p fd ("# nranks=N" among the
 * leading '#' lines), -1 if none. Reads at most HEADER_MAX bytes. */
static int header_nranks(int fd)
{
    char buf[HEADER_MAX + 1];
    ssize_t k, got = 0;
    while (got < HEADER_MAX && (k = pread(fd, buf + got, (size_t)(HEADER_MAX - got), got)) > 0)
        got += k;
    buf[got] = 0;
    const char *key = "# nranks=";
    for (char *line = buf; *line == '#';) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break; /* a header line cut by HEADER_MAX */
        *nl = 0;
        if (nl > line && nl[-1] == '\r')
            nl[-1] = 0;
        long v;
        if (!strncmp(line, key, strlen(key)) &&
            topomap_parse_long(line + strlen(key), &v) == 0 && v > 0 && v <= INT_MAX)
            return (int)v;
        line = nl + 1;
    }
    return -1;
}

/* Load the profile open on @p fd; messages name @p shown, not the descriptor. */
static topomap_profile_t *load_fd(int fd, const char *shown, char *err, size_t errlen)
{
    char fdpath[64], c[512];
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
    topomap_profile_t *p = topomap_profile_load(fdpath, TOPOMAP_FMT_EDGES, err, errlen);
    if (!p && err && errlen) {
        int e = errno;
        size_t fl = strlen(fdpath);
        if (!strncmp(err, fdpath, fl)) {
            char *rest = strdup(err + fl);
            if (rest)
                snprintf(err, errlen, "%s%s", topomap_store_clean(shown, c, sizeof c), rest);
            free(rest);
        }
        errno = e;
    }
    return p;
}

topomap_profile_t *topomap_store_read_at(int dfd, const struct stat *dst, const char *shown,
                                         const char *name, int nranks, char *err, size_t errlen)
{
    char file[NAME_MAX_LEN + 16], path[PATH_MAX + 256], c[PATH_MAX + 256];
    struct stat st;
    if (topomap_store_check_name(name, err, errlen) < 0)
        return NULL;
    snprintf(file, sizeof file, "%s" SUFFIX, name);
    snprintf(path, sizeof path, "%s/%s", shown, file);
    topomap_store_clean(path, c, sizeof c);
    int fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        char d[256];
        if (e == ENOENT)
            topomap_fail(err, errlen, e, "no profile '%s' in the store %s", name,
                         topomap_store_clean(shown, d, sizeof d));
        else if (e == ELOOP)
            topomap_fail(err, errlen, EPERM, "%s is a symbolic link: not used", c);
        else
            topomap_fail(err, errlen, e, "%s: %s", c, strerror(e));
        return NULL;
    }
    topomap_profile_t *p = NULL;
    if (fstat(fd, &st) < 0)
        topomap_fail(err, errlen, errno, "%s: %s", c, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        topomap_fail(err, errlen, EPERM, "%s is not a regular file: not used", c);
    else if (st.st_uid != dst->st_uid && st.st_uid != 0)
        topomap_fail(err, errlen, EPERM,
                     "%s belongs to uid %lu, not to the owner of its directory (uid %lu): not "
                     "used",
                     c, (unsigned long)st.st_uid, (unsigned long)dst->st_uid);
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        topomap_fail(err, errlen, EPERM,
                     "%s is writable by others than its owner (mode %04o): not used", c,
                     (unsigned)(st.st_mode & 07777));
    else {
        /* Another rank count: refused from the header alone when the file
         * is too large to be a grid (see GRID_BYTES_PER_RANK). */
        int declared = header_nranks(fd);
        if (nranks > 0 && declared > 0 && declared != nranks &&
            st.st_size > (off_t)declared * GRID_BYTES_PER_RANK + HEADER_MAX)
            topomap_count_refused(name, declared, nranks, err, errlen);
        else
            p = load_fd(fd, path, err, errlen);
    }
    topomap_store_close(fd, 0);
    if (!p)
        return NULL;
    /* Another rank count: a grid is rescaled, the rest refused. */
    return topomap_profile_adapt(p, nranks, name, err, errlen);
}

/* The store's directory, opened (symbolic links in @p dir are the admin's);
 * 0 or -1 with a message. */
static int open_site(const char *dir, int *dfd, struct stat *st, char *err, size_t errlen)
{
    char c[256];
    *dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*dfd < 0 || fstat(*dfd, st) < 0) {
        int e = errno;
        if (*dfd >= 0)
            close(*dfd);
        *dfd = -1;
        return topomap_fail(err, errlen, e, "%s: cannot read the profile store: %s",
                            topomap_store_clean(dir, c, sizeof c), strerror(e));
    }
    return 0;
}

/* DIR/users, where the store's users keep their own profiles (store_user.c):
 * made with the site store, so that it belongs to the store's owner. */
int topomap_store_make_users(int rfd, const char *dir, char *err, size_t errlen)
{
    char c[256];
    if (mkdirat(rfd, TOPOMAP_STORE_USERS, 0755) < 0) {
        if (errno == EEXIST)
            return 0; /* check_users judges it */
        return topomap_fail(err, errlen, errno, "%s/" TOPOMAP_STORE_USERS ": %s",
                            topomap_store_clean(dir, c, sizeof c), strerror(errno));
    }
    /* Sticky, like /tmp: every user makes his own directory there, nobody
     * renames or removes another's. */
    int fd = openat(rfd, TOPOMAP_STORE_USERS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fchmod(fd, 01777) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return topomap_fail(err, errlen, e, "%s/" TOPOMAP_STORE_USERS ": %s",
                            topomap_store_clean(dir, c, sizeof c), strerror(e));
    }
    close(fd);
    return 0;
}

int topomap_store_add(const char *dir, const char *name, const topomap_profile_t *p, char *err,
                      size_t errlen)
{
    char c[256];
    struct stat st;
    int dfd, made = 0;
    if (!p)
        return topomap_fail(err, errlen, EINVAL, "no profile to store");
    if (topomap_store_check_name(name, err, errlen) < 0)
        return -1;
    dir = topomap_store_dir(dir);
    topomap_store_clean(dir, c, sizeof c);
    if (topomap_store_mkdirs(dir, &made) < 0)
        return topomap_fail(err, errlen, errno, "%s: cannot create the profile store: %s", c,
                            strerror(errno));
    if (open_site(dir, &dfd, &st, err, errlen) < 0)
        return -1;
    if (geteuid() != 0 && geteuid() != st.st_uid) {
        close(dfd);
        return topomap_fail(err, errlen, EPERM,
                            "%s: only the store's owner (uid %lu) writes its site profiles", c,
                            (unsigned long)st.st_uid);
    }
    /* Where its users keep their own profiles. */
    int rc = topomap_store_check_dir(&st, dir, err, errlen);
    if (rc == 0)
        rc = topomap_store_make_users(dfd, dir, err, errlen);
    if (rc == 0)
        rc = topomap_store_write_at(dfd, dir, name, p, st.st_uid, st.st_gid, err, errlen);
    return topomap_store_close(dfd, rc);
}

topomap_profile_t *topomap_store_lookup(const char *dir, const char *name, int nranks, char *err,
                                        size_t errlen)
{
    struct stat st;
    int dfd;
    if (topomap_store_check_name(name, err, errlen) < 0)
        return NULL;
    dir = topomap_store_dir(dir);
    if (open_site(dir, &dfd, &st, err, errlen) < 0) {
        if (errno == ENOENT) /* no store: no such profile */
            topomap_fail(err, errlen, ENOENT, "no profile '%s' in the store %s", name,
                         topomap_store_clean(dir, (char[256]){0}, 256));
        return NULL;
    }
    topomap_profile_t *p = NULL;
    if (topomap_store_check_dir(&st, dir, err, errlen) == 0)
        p = topomap_store_read_at(dfd, &st, dir, name, nranks, err, errlen);
    topomap_store_close(dfd, 0);
    return p;
}

static int entry_cmp(const void *a, const void *b)
{
    const topomap_store_entry_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (int)y->scope - (int)x->scope; /* the user's first, the lookup order */
}

void topomap_store_sort(topomap_store_entry_t *v, size_t n)
{
    if (n)
        qsort(v, n, sizeof *v, entry_cmp);
}

int topomap_store_list_at(int dfd, const struct stat *dst, const char *shown,
                          topomap_store_scope_t scope, topomap_store_entry_t **v, size_t *n,
                          size_t *cap, char *err, size_t errlen)
{
    char c[256];
    int dup = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
    if (!d) {
        int e = errno;
        if (dup >= 0)
            close(dup);
        return topomap_fail(err, errlen, e, "%s: cannot read the profile store: %s",
                            topomap_store_clean(shown, c, sizeof c), strerror(e));
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name), sl = strlen(SUFFIX);
        if (len <= sl || strcmp(de->d_name + len - sl, SUFFIX) || len - sl > NAME_MAX_LEN)
            continue;
        char name[NAME_MAX_LEN + 1];
        memcpy(name, de->d_name, len - sl);
        name[len - sl] = 0;
        if (!topomap_store_name_valid(name))
            continue;
        /* What a lookup would refuse is not listed (removed meanwhile, not a
         * regular file, not written by the directory's owner). */
        struct stat st;
        int fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
            (st.st_uid != dst->st_uid && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
            close(fd);
            continue;
        }
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 16;
            topomap_store_entry_t *nv = realloc(*v, nc * sizeof *nv);
            if (!nv) {
                close(fd);
                closedir(d);
                return topomap_fail(err, errlen, ENOMEM, "out of memory listing %s",
                                    topomap_store_clean(shown, c, sizeof c));
            }
            *v = nv;
            *cap = nc;
        }
        topomap_store_entry_t *e = &(*v)[(*n)++];
        memset(e, 0, sizeof *e);
        memcpy(e->name, name, strlen(name) + 1);
        e->bytes = (long long)st.st_size;
        e->mtime = (long long)st.st_mtime;
        e->nranks = header_nranks(fd);
        e->scope = scope;
        close(fd);
    }
    closedir(d);
    return 0;
}

int topomap_store_list(const char *dir, topomap_store_entry_t **entries, size_t *n, char *err,
                       size_t errlen)
{
    struct stat st;
    int dfd;
    size_t cap = 0;
    if (!entries || !n)
        return topomap_fail(err, errlen, EINVAL, "no output for the store listing");
    *entries = NULL;
    *n = 0;
    dir = topomap_store_dir(dir);
    if (open_site(dir, &dfd, &st, err, errlen) < 0)
        return -1;
    int rc = topomap_store_check_dir(&st, dir, err, errlen);
    if (rc == 0)
        rc = topomap_store_list_at(dfd, &st, dir, TOPOMAP_STORE_SITE, entries, n, &cap, err,
                                   errlen);
    topomap_store_close(dfd, 0);
    if (rc < 0 || !*n) {
        int e = errno;
        free(*entries);
        *entries = NULL;
        *n = 0;
        errno = e;
    }
    topomap_store_sort(*entries, *n);
    return rc;
}

int topomap_store_remove_at(int dfd, const char *shown, const char *name, char *err,
                            size_t errlen)
{
    char file[NAME_MAX_LEN + 16], c[256];
    if (topomap_store_check_name(name, err, errlen) < 0)
        return -1;
    snprintf(file, sizeof file, "%s" SUFFIX, name);
    topomap_store_clean(shown, c, sizeof c);
    if (unlinkat(dfd, file, 0) < 0) {
        int e = errno;
        if (e == ENOENT)
            return topomap_fail(err, errlen, e, "no profile '%s' in the store %s", name, c);
        return topomap_fail(err, errlen, e, "%s/%s: cannot remove: %s", c, file, strerror(e));
    }
    return 0;
}

int topomap_store_remove(const char *dir, const char *name, char *err, size_t errlen)
{
    struct stat st;
    int dfd;
    if (topomap_store_check_name(name, err, errlen) < 0)
        return -1;
    dir = topomap_store_dir(dir);
    if (open_site(dir, &dfd, &st, err, errlen) < 0) {
        if (errno == ENOENT)
            topomap_fail(err, errlen, ENOENT, "no profile '%s' in the store %s", name,
                         topomap_store_clean(dir, (char[256]){0}, 256));
        return -1;
    }
    return topomap_store_close(dfd, topomap_store_remove_at(dfd, dir, name, err, errlen));
}
