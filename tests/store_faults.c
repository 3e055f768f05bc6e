/* SPDX-License-Identifier: BSD-3-Clause */
/* The profile store when its filesystem fails (root: it mounts a small
 * tmpfs; skipped otherwise, saying so):
 *  - full (ENOSPC), read-only (EROFS), a directory removed under a writer
 *    (ENOENT), each through the library (topomap_store_add,
 *    topomap_store_user_add, the write into an open directory), the plugin's
 *    recording (tmsp_record_register) and the CLI (topomap profile add);
 *  - each failure gives one line (no newline inside the message, one line on
 *    the CLI's stderr), leaves the profile that was there readable and
 *    unchanged, and leaves no temporary file behind;
 *  - a lookup in a store that is gone or unreadable fails with one line
 *    (the plugin then keeps Slurm's layout: spank_decide.t).
 * A slow filesystem is not tested: see doc/robustness.md. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_test.h"
#include "store_priv.h"
#include "tap.h"

/* A ring of n ranks: about 16 bytes of text per entry. */
static topomap_profile_t *ring(int n, double bytes)
{
    int *s = malloc(sizeof(int) * (size_t)n), *d = malloc(sizeof(int) * (size_t)n);
    double *b = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        s[i] = i;
        d[i] = (i + 1) % n;
        b[i] = bytes;
    }
    char err[TOPOMAP_ERRLEN];
    topomap_profile_t *p = topomap_profile_create(n, (size_t)n, s, d, b, NULL, err, sizeof err);
    free(s);
    free(d);
    free(b);
    return p;
}

/* Files in dir whose name starts with '.' (the store's temporary files)
 * other than . and .. */
static int temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static int one_line(const char *msg)
{
    return msg[0] && !strchr(msg, '\n');
}

/* The profile name in dir reads back with n ranks and total bytes. */
static int intact(const char *dir, const char *name, int n, double total)
{
    char err[TOPOMAP_ERRLEN];
    topomap_profile_t *p = topomap_store_lookup(dir, name, 0, err, sizeof err);
    int good = p && topomap_profile_nranks(p) == n && topomap_profile_total_bytes(p) == total;
    topomap_profile_free(p);
    return good;
}

/* Lines the CLI wrote to stderr, and its exit status, for profile add. */
static int cli_add(const char *store, const char *name, const char *file, int *lines)
{
    char cmd[2048], out[700];
    snprintf(out, sizeof out, "%s.stderr", file);
    snprintf(cmd, sizeof cmd, "'%s/cli/topomap' profile add %s '%s' --site --store '%s' 2> '%s'",
             TOPBUILDDIR, name, file, store, out);
    int rc = system(cmd);
    FILE *f = fopen(out, "r");
    int c;
    *lines = 0;
    while (f && (c = getc(f)) != EOF)
        *lines += c == '\n';
    if (f)
        fclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void full_tests(const char *mnt, const char *tmp, topomap_profile_t *small,
                       topomap_profile_t *big)
{
    char err[TOPOMAP_ERRLEN] = "", filler[1024], file[1024];
    ok(topomap_store_add(mnt, "app", small, err, sizeof err) == 0, "a small profile fits: %s",
       err);
    /* Fill the rest of the filesystem. */
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    FILE *f = fopen(filler, "w");
    static char block[4096];
    while (f && fwrite(block, 1, sizeof block, f) == sizeof block && fflush(f) == 0)
        ;
    if (f)
        fclose(f);
    err[0] = 0;
    ok(topomap_store_add(mnt, "app", big, err, sizeof err) < 0 && errno == ENOSPC,
       "full: replacing the profile fails with ENOSPC");
    ok(one_line(err), "... one line: %s", err);
    ok(intact(mnt, "app", 16, 16 * 100.0), "... the old profile reads back unchanged");
    ok(temp_files(mnt) == 0, "... no temporary file left");
    ok(topomap_store_add(mnt, "new", big, err, sizeof err) < 0 && errno == ENOSPC &&
           access(mnt, F_OK) == 0,
       "full: a new profile fails with ENOSPC");
    char path[1024];
    snprintf(path, sizeof path, "%s/new.profile", mnt);
    ok(access(path, F_OK) < 0 && temp_files(mnt) == 0, "... and leaves no file at all");
    /* The CLI: exit 1, one line. */
    snprintf(file, sizeof file, "%s/big.txt", tmp);
    FILE *g = fopen(file, "w");
    ok(g && topomap_profile_write(big, g) == 0 && fclose(g) == 0, "the big profile as a file");
    int lines, rc = cli_add(mnt, "app", file, &lines);
    ok(rc == 1 && lines == 1, "CLI profile add on a full store: exit 1, one line (exit %d, %d "
       "lines)", rc, lines);
    ok(intact(mnt, "app", 16, 1600.0) && temp_files(mnt) == 0,
       "... the old profile intact, no temporary file");
}

/* The recording of a step (the plugin at the step's end) into a full or
 * read-only store: one line, nothing stored, the recording removable. */
static void record_into(const char *store, const char *tmp, const char *what, int want_errno)
{
    char spool[700], dir[700], path[1100], msg[1024], err[TOPOMAP_ERRLEN];
    snprintf(spool, sizeof spool, "%s/spool", tmp);
    int fd = tmsp_record_mkdir(spool, 7, 1, geteuid(), getegid(), dir, sizeof dir, err,
                               sizeof err);
    snprintf(path, sizeof path, "%s/%s", dir, TOPOMAP_RECORD_FILE);
    FILE *f = fd >= 0 ? fopen(path, "w") : NULL;
    for (int i = 0; f && i < 4000; i++) /* about 60 KB: more than the free space */
        fprintf(f, "%d %d 1000\n", i, (i + 1) % 4000);
    if (f)
        fclose(f);
    msg[0] = 0;
    int rc = fd >= 0 ? tmsp_record_register(fd, dir, geteuid(), getegid(), 4000, store, "rec",
                                            "7.1", msg, sizeof msg)
                     : 0;
    ok(rc < 0 && errno == want_errno, "recording into a %s store: refused (errno %d)", what,
       errno);
    ok(one_line(msg) && strstr(msg, "topomap: cannot store profile 'rec': ") == msg &&
           strstr(msg, "; nothing recorded"),
       "... one line: %s", msg);
    char mine[1024];
    snprintf(mine, sizeof mine, "%s/users/%lu", store, (unsigned long)geteuid());
    snprintf(path, sizeof path, "%s/rec.profile", mine);
    ok(access(path, F_OK) < 0 && temp_files(mine) == 0, "... nothing half-written in %s", mine);
    ok(fd >= 0 && tmsp_record_cleanup(fd, dir, err, sizeof err) == 0,
       "... and the recording directory is removed");
}

static void readonly_tests(const char *mnt, const char *tmp, topomap_profile_t *small,
                           topomap_profile_t *big)
{
    char err[TOPOMAP_ERRLEN], file[700];
    ok(mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0, "remounted read-only");
    err[0] = 0;
    ok(topomap_store_add(mnt, "app", big, err, sizeof err) < 0 && errno == EROFS,
       "read-only: replacing the profile fails with EROFS");
    ok(one_line(err), "... one line: %s", err);
    ok(intact(mnt, "app", 16, 1600.0), "... the old profile reads back unchanged");
    ok(topomap_store_user_add(mnt, geteuid(), getegid(), "mine", small, err, sizeof err) < 0 &&
           errno == EROFS && one_line(err),
       "read-only: a user's profile (DIR/users/UID to create) fails with EROFS, one line: %s",
       err);
    snprintf(file, sizeof file, "%s/big.txt", tmp);
    int lines, rc = cli_add(mnt, "app", file, &lines);
    ok(rc == 1 && lines == 1, "CLI profile add on a read-only store: exit 1, one line");
    record_into(mnt, tmp, "read-only", EROFS);
    ok(mount(NULL, mnt, NULL, MS_REMOUNT, NULL) == 0, "remounted read-write");
}

static void vanished_tests(const char *tmp, topomap_profile_t *small)
{
    char dir[700], err[TOPOMAP_ERRLEN];
    snprintf(dir, sizeof dir, "%s/gone", tmp);
    mkdir(dir, 0755);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    ok(dfd >= 0 && rmdir(dir) == 0, "a store directory open, then removed");
    err[0] = 0;
    ok(topomap_store_write_at(dfd, dir, "app", small, 0, 0, err, sizeof err) < 0 &&
           errno == ENOENT,
       "writing into it fails with ENOENT");
    ok(one_line(err), "... one line: %s", err);
    ok(access(dir, F_OK) < 0, "... and nothing is re-created");
    close(dfd);
    topomap_profile_t *p = topomap_store_find(dir, geteuid(), "app", 16, NULL, NULL, 0, err,
                                              sizeof err);
    ok(!p && errno == ENOENT && one_line(err),
       "a lookup in a store that is gone: ENOENT, one line (Slurm's layout): %s", err);
    topomap_profile_free(p);
}

int main(void)
{
    char tmp[] = "/tmp/topomap-faults.XXXXXX", mnt[700];
    if (geteuid() != 0) {
        printf("1..0 # SKIP not root: mounting a small or read-only filesystem needs root\n");
        return 0;
    }
    if (make_store(tmp) < 0)
        return done_testing();
    snprintf(mnt, sizeof mnt, "%s/mnt", tmp);
    mkdir(mnt, 0755);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=48k,mode=0755") < 0) {
        printf("1..0 # SKIP cannot mount a tmpfs: %s\n", strerror(errno));
        remove_store(tmp);
        return 0;
    }
    topomap_profile_t *small = ring(16, 100), *big = ring(4000, 123456);
    full_tests(mnt, tmp, small, big);
    record_into(mnt, tmp, "full", ENOSPC);
    char filler[800];
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    unlink(filler);
    readonly_tests(mnt, tmp, small, big);
    vanished_tests(tmp, small);
    topomap_profile_free(small);
    topomap_profile_free(big);
    umount(mnt);
    remove_store(tmp);
    return done_testing();
}
