/* SPDX-License-Identifier: BSD-3-Clause */
/* Recording a profile (spank/record.c): the name, LD_PRELOAD, the per-node
 * directory, storing what rank 0 wrote, and the cleanup. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_test.h"
#include "tap.h"

/* Files for the recording tests. */
static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

/* The name a step records under, and LD_PRELOAD. */
static void name_tests(void)
{
    char name[256], msg[1024], err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    const char *none[] = {NULL};

    /* The name: --topomap-record=NAME, --topomap-profile=NAME, the executable. */
    parse(&o, none, err, "srun", "--topomap-record=rec", "--topomap-profile=prof", "./a.out", NULL);
    ok(tmsp_record_name(&o, name, sizeof name, msg, sizeof msg) == 0, "name given");
    is_str(name, "rec", "--topomap-record=rec wins");
    tmsp_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record", "--topomap-profile=prof", "./a.out", NULL);
    tmsp_record_name(&o, name, sizeof name, msg, sizeof msg);
    is_str(name, "prof", "then --topomap-profile's name (what the next run looks up)");
    tmsp_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record", "--topomap-profile=/p/x.txt", "./a.out",
          NULL);
    tmsp_record_name(&o, name, sizeof name, msg, sizeof msg);
    is_str(name, "a.out", "a --topomap-profile path is no name: the executable's");
    tmsp_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record", "--multi-prog", "conf", NULL);
    msg[0] = 0;
    ok(tmsp_record_name(&o, name, sizeof name, msg, sizeof msg) < 0 && errno == EINVAL,
       "--multi-prog and no name: refused");
    like(msg, "topomap: --topomap-record: no name to record under (give --topomap-record=NAME); "
              "not recording", "... with one line");
    tmsp_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record=../etc/x", "a", NULL);
    ok(tmsp_record_name(&o, name, sizeof name, msg, sizeof msg) < 0 && errno == EINVAL,
       "--topomap-record=../etc/x: refused");
    like(msg, "'../etc/x' (--topomap-record) is not a valid profile name", "... named: %s", msg);
    tmsp_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record=a\rb\033c", "a", NULL);
    ok(tmsp_record_name(&o, name, sizeof name, msg, sizeof msg) < 0 && !strpbrk(msg, "\r\033") &&
           strstr(msg, "'a?b?c' (--topomap-record) is not a valid profile name"),
       "a name with CR and ESC: refused, shown as '?' (%s)", msg);
    tmsp_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record", "./.hidden", NULL);
    ok(tmsp_record_name(&o, name, sizeof name, msg, sizeof msg) < 0, "executable .hidden");
    like(msg, "'.hidden' (the executable's name) is not a valid profile name", "... named");
    tmsp_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record=abcdef", "a", NULL);
    ok(tmsp_record_name(&o, name, 4, msg, sizeof msg) < 0 && errno == EINVAL,
       "a name longer than the buffer: refused");
    tmsp_srun_free(&o);

    /* LD_PRELOAD. */
    char *pl = tmsp_preload_prepend("/l/p.so", NULL);
    is_str(pl, "/l/p.so", "LD_PRELOAD unset");
    free(pl);
    pl = tmsp_preload_prepend("/l/p.so", "");
    is_str(pl, "/l/p.so", "LD_PRELOAD empty");
    free(pl);
    pl = tmsp_preload_prepend("/l/p.so", "/x/y.so z.so");
    is_str(pl, "/l/p.so:/x/y.so z.so", "prepended to the user's");
    free(pl);
    pl = tmsp_preload_prepend("/l/p.so", "/l/p.so:/x/y.so");
    is_str(pl, "/l/p.so:/x/y.so", "already first: unchanged");
    free(pl);
    pl = tmsp_preload_prepend("/l/p.so", "/l/p.so.1");
    is_str(pl, "/l/p.so:/l/p.so.1", "a longer name is another library");
    free(pl);
}

static void record_tests(const char *tmp)
{
    char msg[1024], err[TOPOMAP_ERRLEN], dir[600], path[1024], spool[600];

    name_tests();

    /* The recording directory: created with the spool, private, the user's. */
    snprintf(spool, sizeof spool, "%s/spool", tmp);
    int fd = tmsp_record_mkdir(spool, 12, 3, geteuid(), getegid(), dir, sizeof dir, err,
                               sizeof err);
    ok(fd >= 0, "recording directory in a new spool: %s", fd < 0 ? err : dir);
    snprintf(path, sizeof path, "%s/topomap-record.12.3.", spool);
    ok(!strncmp(dir, path, strlen(path)) && strlen(dir) == strlen(path) + 6,
       "named SPOOL/topomap-record.JOB.STEP.XXXXXX");
    struct stat st;
    ok(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 &&
           st.st_uid == geteuid(),
       "mode 0700, owned by the caller");
    ok(stat(spool, &st) == 0 && (st.st_mode & 0777) == 0755, "the spool made with mode 0755");

    /* Registering: the step wrote nothing. */
    char store[600], mine[700];
    snprintf(store, sizeof store, "%s/store", tmp);
    /* Recordings are the job user's profiles: DIR/users/UID. */
    snprintf(mine, sizeof mine, "%s/users/%lu", store, (unsigned long)geteuid());
    msg[0] = 0;
    ok(tmsp_record_register(fd, dir, geteuid(), getegid(), 4, store, "rec", "12.3", msg,
                            sizeof msg) < 0 &&
           errno == ENOENT,
       "no profile: ENOENT");
    is_str(msg,
           "topomap: step 12.3 wrote no profile for 'rec' (rank 0 did not reach MPI_Finalize: "
           "not an MPI program, an abort, or a failed start); nothing recorded",
           "... and one line");
    snprintf(path, sizeof path, "%s/rec.profile", mine);
    ok(access(path, F_OK) < 0, "... and no store entry");

    /* A good profile (as the profiler writes it). */
    snprintf(path, sizeof path, "%s/%s", dir, TOPOMAP_RECORD_FILE);
    write_file(path, "# nranks=4\n# application=rec\n0 2 1200 3\n2 0 1212 3\n1 3 8 2\n");
    ok(tmsp_record_register(fd, dir, geteuid(), getegid(), 4, store, "rec", "12.3", msg,
                            sizeof msg) == 0,
       "a profile of 4 ranks for a step of 4: stored (%s)", msg);
    char want[1500];
    snprintf(want, sizeof want, "topomap: recorded profile 'rec' (4 ranks, 2420 bytes) in %s",
             mine);
    is_str(msg, want, "... and said");
    snprintf(path, sizeof path, "%s/rec.profile", mine);
    like(slurp(path), "0 2 1200 3\n1 3 8 2\n2 0 1212 3", "the store holds the matrix");
    topomap_store_scope_t scope = (topomap_store_scope_t)-1; /* not set */
    topomap_profile_t *p =
        topomap_store_find(store, geteuid(), "rec", 4, &scope, NULL, 0, err, sizeof err);
    ok(p && topomap_profile_total_bytes(p) == 2420 && topomap_profile_nedges(p) == 3 &&
           scope == TOPOMAP_STORE_USER,
       "... and reads back as the user's profile");
    topomap_profile_free(p);

    /* Rank count, owner, links, corruption, names, the store. */
    ok(tmsp_record_register(fd, dir, geteuid(), getegid(), 8, store, "rec8", "12.3", msg,
                            sizeof msg) < 0 &&
           errno == ERANGE,
       "4 ranks for a step of 8 tasks: ERANGE");
    like(msg, "the profile step 12.3 wrote has 4 ranks but the step 8 tasks", "... said: %s", msg);
    snprintf(path, sizeof path, "%s/rec8.profile", mine);
    ok(access(path, F_OK) < 0, "... nothing stored");
    ok(tmsp_record_register(fd, dir, geteuid() + 1, getegid(), 4, store, "rec2", "12.3", msg,
                            sizeof msg) < 0 &&
           errno == EPERM,
       "a file of another user: EPERM");
    like(msg, "is not a regular file of uid", "... said");
    ok(tmsp_record_register(fd, dir, geteuid(), getegid(), 4, store, "a/b", "12.3", msg,
                            sizeof msg) < 0 &&
           errno == EINVAL,
       "an invalid name: EINVAL");
    like(msg, "'a/b' is not a valid profile name; nothing recorded", "... said");
    ok(tmsp_record_register(fd, dir, geteuid(), getegid(), 4, "/dev/null/store", "rec", "12.3",
                            msg, sizeof msg) < 0,
       "an unusable store: refused");
    like(msg, "topomap: cannot store profile 'rec': ", "... said: %s", msg);
    snprintf(path, sizeof path, "%s/%s", dir, TOPOMAP_RECORD_FILE);
    write_file(path, "# nranks=4\n0 1 5\n1 x 5\n");
    ok(tmsp_record_register(fd, dir, geteuid(), getegid(), 4, store, "bad", "12.3", msg,
                            sizeof msg) < 0 &&
           errno == EINVAL,
       "a corrupt profile: EINVAL");
    snprintf(want, sizeof want, "topomap: cannot record 'bad': %s:3", path);
    like(msg, want, "... the message names the file and line: %s", msg);
    ok(strstr(msg, "/proc/self/fd") == NULL, "... not the descriptor");
    unlink(path);
    snprintf(want, sizeof want, "%s/rec.profile", mine);
    ok(symlink(want, path) == 0, "a symbolic link as the profile");
    ok(tmsp_record_register(fd, dir, geteuid(), getegid(), 4, store, "link", "12.3", msg,
                            sizeof msg) < 0 &&
           errno == EPERM,
       "... is not followed: EPERM");
    like(msg, "is a symbolic link; nothing recorded", "... said");
    unlink(path);
    ok(mkdir(path, 0700) == 0, "a directory as the profile");
    ok(tmsp_record_register(fd, dir, geteuid(), getegid(), 4, store, "dir", "12.3", msg,
                            sizeof msg) < 0 &&
           errno == EPERM,
       "... is refused: EPERM");
    rmdir(path);

    /* Cleanup: the directory and what is in it go. */
    write_file(path, "x");
    snprintf(want, sizeof want, "%s/%s.tmp.123", dir, TOPOMAP_RECORD_FILE);
    write_file(want, "x");
    ok(tmsp_record_cleanup(fd, dir, err, sizeof err) == 0, "cleanup: %s", err);
    ok(access(dir, F_OK) < 0 && errno == ENOENT, "the directory is gone");

    /* A directory the job's user moved is left alone. */
    fd = tmsp_record_mkdir(spool, 12, 4, geteuid(), getegid(), dir, sizeof dir, err,
                           sizeof err);
    char moved[700];
    snprintf(moved, sizeof moved, "%s.moved", dir);
    ok(fd >= 0 && rename(dir, moved) == 0 && mkdir(dir, 0700) == 0,
       "directory moved, another made");
    ok(tmsp_record_cleanup(fd, dir, err, sizeof err) < 0 && errno == ENOENT,
       "cleanup of a moved directory: ENOENT");
    like(err, "was moved; left in place", "... said: %s", err);
    ok(access(dir, F_OK) == 0, "... and the other directory is not removed");
    rmdir(dir);
    rmdir(moved);

    /* Errors creating it. */
    ok(tmsp_record_mkdir("/dev/null/spool", 1, 0, geteuid(), getegid(), dir, sizeof dir, err,
                         sizeof err) < 0 && errno == ENOTDIR,
       "a spool under a file: ENOTDIR");
    like(err, "cannot create the spool directory /dev/null/spool", "... said: %s", err);
    ok(dir[0] == 0, "... no path");
    ok(tmsp_record_mkdir(spool, 1, 0, geteuid(), getegid(), dir, 20, err, sizeof err) < 0 &&
           errno == ENAMETOOLONG,
       "a path that does not fit: ENAMETOOLONG");
    if (geteuid() == 0) {
        fd = tmsp_record_mkdir(spool, 5, 0, 65534, 65534, dir, sizeof dir, err, sizeof err);
        ok(fd >= 0 && stat(dir, &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534,
           "as root: the directory is given to the job's user");
        if (fd >= 0)
            tmsp_record_cleanup(fd, dir, err, sizeof err);
    } else
        ok(1, "# SKIP not root: cannot give a directory away");
    rmdir(spool);
}

int main(void)
{
    char tmp[] = "/tmp/topomap-record-test.XXXXXX";
    if (make_store(tmp) < 0)
        return done_testing();
    record_tests(tmp);
    remove_store(tmp);
    return done_testing();
}
