/* SPDX-License-Identifier: BSD-3-Clause */
/* slowfs: a FUSE passthrough of a directory whose every operation first sleeps,
 * to put the profile store on a slow filesystem (tests/store_slow.sh; the
 * NFS server far away, or busy, that sites may keep it on).
 *
 *   slowfs DELAYFILE SOURCE MOUNTPOINT [FUSE options, e.g. -f]
 *
 * DELAYFILE holds the delay in milliseconds, read again at every operation
 * (so a test changes it without remounting); missing or empty: no delay.
 * Every call of the filesystem (lookup, getattr, open, read, write, fsync,
 * rename, readdir...) sleeps that long before doing the same call on SOURCE.
 * The kernel's attribute and entry caches are off (attr_timeout=0,
 * entry_timeout=0), so each lookup of a path reaches slowfs. */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static int src = -1;          /* SOURCE, open */
static const char *delayfile; /* the delay in ms */

static void slow(void)
{
    FILE *f = fopen(delayfile, "r");
    long ms = 0;
    if (f) {
        if (fscanf(f, "%ld", &ms) != 1)
            ms = 0;
        fclose(f);
    }
    if (ms > 0) {
        struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&t, &t) < 0 && errno == EINTR)
            ;
    }
}

/* "/a/b" -> "a/b" relative to SOURCE; "/" -> "." */
static const char *rel(const char *path)
{
    while (*path == '/')
        path++;
    return *path ? path : ".";
}

#define RET(x) return (x) < 0 ? -errno : 0

static void *sf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    cfg->use_ino = 1;
    cfg->attr_timeout = 0;
    cfg->entry_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->direct_io = 1; /* every read and write reaches slowfs too */
    return NULL;
}

static int sf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    slow();
    if (fi)
        RET(fstat(fi->fh, st));
    RET(fstatat(src, rel(path), st, AT_SYMLINK_NOFOLLOW));
}

static int sf_readlink(const char *path, char *buf, size_t size)
{
    slow();
    ssize_t n = readlinkat(src, rel(path), buf, size - 1);
    if (n < 0)
        return -errno;
    buf[n] = 0;
    return 0;
}

static int sf_mkdir(const char *path, mode_t mode)
{
    slow();
    RET(mkdirat(src, rel(path), mode));
}

static int sf_unlink(const char *path)
{
    slow();
    RET(unlinkat(src, rel(path), 0));
}

static int sf_rmdir(const char *path)
{
    slow();
    RET(unlinkat(src, rel(path), AT_REMOVEDIR));
}

static int sf_symlink(const char *to, const char *path)
{
    slow();
    RET(symlinkat(to, src, rel(path)));
}

static int sf_rename(const char *from, const char *to, unsigned int flags)
{
    slow();
    RET(renameat2(src, rel(from), src, rel(to), flags));
}

static int sf_link(const char *from, const char *to)
{
    slow();
    RET(linkat(src, rel(from), src, rel(to), 0));
}

static int sf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    slow();
    if (fi)
        RET(fchmod(fi->fh, mode));
    RET(fchmodat(src, rel(path), mode, 0));
}

static int sf_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    slow();
    if (fi)
        RET(fchown(fi->fh, uid, gid));
    RET(fchownat(src, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW));
}

static int sf_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    slow();
    if (fi)
        RET(ftruncate(fi->fh, size));
    int fd = openat(src, rel(path), O_WRONLY | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    int r = ftruncate(fd, size) < 0 ? -errno : 0;
    close(fd);
    return r;
}

static int sf_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    slow();
    if (fi)
        RET(futimens(fi->fh, tv));
    RET(utimensat(src, rel(path), tv, AT_SYMLINK_NOFOLLOW));
}

static int sf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    slow();
    int fd = openat(src, rel(path), fi->flags, mode);
    if (fd < 0)
        return -errno;
    fi->fh = fd;
    return 0;
}

static int sf_open(const char *path, struct fuse_file_info *fi)
{
    slow();
    int fd = openat(src, rel(path), fi->flags & ~O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    fi->fh = fd;
    return 0;
}

static int sf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    slow();
    ssize_t n = pread(fi->fh, buf, size, off);
    return n < 0 ? -errno : (int)n;
}

static int sf_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    slow();
    ssize_t n = pwrite(fi->fh, buf, size, off);
    return n < 0 ? -errno : (int)n;
}

static int sf_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    slow();
    RET(fstatvfs(src, st));
}

static int sf_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    close(fi->fh);
    return 0;
}

static int sf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    slow();
    RET(datasync ? fdatasync(fi->fh) : fsync(fi->fh));
}

static int sf_opendir(const char *path, struct fuse_file_info *fi)
{
    slow();
    int fd = openat(src, rel(path), O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return -e;
    }
    fi->fh = (uintptr_t)d;
    return 0;
}

static int sf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)path, (void)off, (void)flags;
    slow();
    DIR *d = (DIR *)(uintptr_t)fi->fh;
    struct dirent *de;
    rewinddir(d);
    while ((de = readdir(d))) {
        struct stat st = {.st_ino = de->d_ino, .st_mode = (mode_t)de->d_type << 12};
        if (fill(buf, de->d_name, &st, 0, 0))
            break;
    }
    return 0;
}

static int sf_releasedir(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    closedir((DIR *)(uintptr_t)fi->fh);
    return 0;
}

static int sf_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path, (void)datasync;
    slow();
    RET(fsync(dirfd((DIR *)(uintptr_t)fi->fh)));
}

static int sf_access(const char *path, int mask)
{
    slow();
    RET(faccessat(src, rel(path), mask, AT_SYMLINK_NOFOLLOW));
}

static const struct fuse_operations ops = {
    .init = sf_init,
    .getattr = sf_getattr,
    .readlink = sf_readlink,
    .mkdir = sf_mkdir,
    .unlink = sf_unlink,
    .rmdir = sf_rmdir,
    .symlink = sf_symlink,
    .rename = sf_rename,
    .link = sf_link,
    .chmod = sf_chmod,
    .chown = sf_chown,
    .truncate = sf_truncate,
    .utimens = sf_utimens,
    .create = sf_create,
    .open = sf_open,
    .read = sf_read,
    .write = sf_write,
    .statfs = sf_statfs,
    .release = sf_release,
    .fsync = sf_fsync,
    .opendir = sf_opendir,
    .readdir = sf_readdir,
    .releasedir = sf_releasedir,
    .fsyncdir = sf_fsyncdir,
    .access = sf_access,
};

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: slowfs DELAYFILE SOURCE MOUNTPOINT [FUSE options]\n");
        return 2;
    }
    delayfile = argv[1];
    src = open(argv[2], O_RDONLY | O_DIRECTORY);
    if (src < 0) {
        fprintf(stderr, "slowfs: %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    /* fuse_main sees: slowfs MOUNTPOINT [options], allow_other (root mounts
     * it, Slurm's users read it) and default_permissions (the kernel checks
     * the modes, as on the source). */
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args)
        return 1;
    int n = 0;
    args[n++] = argv[0];
    for (int i = 3; i < argc; i++)
        args[n++] = argv[i];
    args[n++] = "-oallow_other,default_permissions";
    int r = fuse_main(n, args, &ops, NULL);
    free(args);
    return r;
}
