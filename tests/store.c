/* SPDX-License-Identifier: BSD-3-Clause */
/* The profile store: names, atomic add, lookup with rank-count checks (the
 * header before the rest), list, remove, error paths, concurrent writers
 * racing a reader; what is trusted (links, owners, modes) and the per-user
 * directories with the lookup order (as root: other owners). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

/* A ring of n ranks, 100 bytes per message, rank i -> i+1. */
static topomap_profile_t *ring(int n)
{
    int *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
    double *b = malloc(n * sizeof *b);
    for (int i = 0; i < n; i++) {
        src[i] = i;
        dst[i] = (i + 1) % n;
        b[i] = 100.0 * (i + 1);
    }
    topomap_profile_t *p = topomap_profile_create(n, n, src, dst, b, NULL, NULL, 0);
    free(src);
    free(dst);
    free(b);
    return p;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Number of directory entries starting with '.' other than . and .. */
static int hidden_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

/* Trust and scopes: files and directories others could have changed are not
 * used; user directories, as root for other uids (a recording). */
static void scope_tests(const char *base, topomap_profile_t *p8, topomap_profile_t *p4)
{
    char err[TOPOMAP_ERRLEN], dir[512], path[1024], want[2048];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/scoped", base);
    ok(topomap_store_add(dir, "site", p8, err, sizeof err) == 0, "site profile: %s", err);
    snprintf(path, sizeof path, "%s/users", dir);
    ok(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 01777,
       "creating the store makes DIR/users, mode 1777");

    /* A link, a group-writable file, a directory anyone can write. */
    snprintf(path, sizeof path, "%s/link.profile", dir);
    snprintf(want, sizeof want, "%s/site.profile", dir);
    ok(symlink(want, path) == 0, "a symbolic link in the store");
    err[0] = 0;
    ok(topomap_store_lookup(dir, "link", 8, err, sizeof err) == NULL && errno == EPERM,
       "... is not followed: EPERM");
    like(err, "link.profile is a symbolic link: not used", "... said");
    snprintf(path, sizeof path, "%s/gw.profile", dir);
    write_file(path, "# nranks=2\n0 1 5\n");
    chmod(path, 0664);
    ok(topomap_store_lookup(dir, "gw", 2, err, sizeof err) == NULL && errno == EPERM,
       "a group-writable profile: EPERM");
    like(err, "gw.profile is writable by others than its owner (mode 0664): not used", "... said");
    topomap_store_entry_t *e = NULL;
    size_t n = 0;
    ok(topomap_store_list(dir, &e, &n, err, sizeof err) == 0 && n == 1 &&
           !strcmp(e[0].name, "site") && e[0].scope == TOPOMAP_STORE_SITE,
       "list shows only what a lookup would use (site, not link or gw)");
    free(e);
    chmod(dir, 0777);
    ok(topomap_store_lookup(dir, "site", 8, err, sizeof err) == NULL && errno == EPERM,
       "a store anyone can write: EPERM");
    like(err, "is writable by others than its owner (mode 0777): its profiles are not used",
         "... said");
    chmod(dir, 0755);

    /* A user's own profile, then the site's. */
    uid_t me = geteuid();
    topomap_store_scope_t scope = (topomap_store_scope_t)-1; /* not set */
    char found[1024];
    ok(topomap_store_user_add(dir, me, getegid(), "site", p4, err, sizeof err) == 0,
       "the caller stores his own 'site': %s", err);
    snprintf(path, sizeof path, "%s/users/%lu", dir, (unsigned long)me);
    ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0700 && st.st_uid == me,
       "DIR/users/UID: mode 0700, his");
    topomap_profile_t *q = topomap_store_find(dir, me, "site", 0, &scope, found, sizeof found, err,
                                              sizeof err);
    snprintf(want, sizeof want, "%s/site.profile", path);
    ok(q && topomap_profile_nranks(q) == 4 && scope == TOPOMAP_STORE_USER && !strcmp(found, want),
       "find: his own first (%s)", found);
    topomap_profile_free(q);
    q = topomap_store_find(dir, me + 1, "site", 0, &scope, found, sizeof found, err, sizeof err);
    ok(q && topomap_profile_nranks(q) == 8 && scope == TOPOMAP_STORE_SITE,
       "find for a user without a directory: the site's");
    topomap_profile_free(q);
    ok(topomap_store_find(dir, me, "none", 0, &scope, NULL, 0, err, sizeof err) == NULL &&
           errno == ENOENT,
       "find of a name in neither scope: ENOENT");
    like(err, "no profile 'none' in the store", "... said");
    ok(topomap_store_user_list(dir, me, &e, &n, err, sizeof err) == 0 && n == 2 &&
           e[0].scope == TOPOMAP_STORE_USER && e[1].scope == TOPOMAP_STORE_SITE &&
           e[0].nranks == 4 && e[1].nranks == 8,
       "user_list: his 'site' before the site's (the lookup order)");
    free(e);
    ok(topomap_store_user_remove(dir, me, "site", err, sizeof err) == 0, "user_remove");
    q = topomap_store_find(dir, me, "site", 0, &scope, NULL, 0, err, sizeof err);
    ok(q && scope == TOPOMAP_STORE_SITE, "... then find gives the site's");
    topomap_profile_free(q);

    if (me != 0) {
        ok(topomap_store_user_add(dir, me + 1, getegid(), "x", p4, err, sizeof err) < 0 &&
               errno == EPERM,
           "storing as another user: EPERM");
        ok(1, "# SKIP not root: cannot check other owners");
        return;
    }
    /* As root: another user's directory (a recording of his job). */
    ok(topomap_store_user_add(dir, 65534, 65534, "rec", p4, err, sizeof err) == 0,
       "root stores user 65534's 'rec': %s", err);
    snprintf(path, sizeof path, "%s/users/65534", dir);
    ok(stat(path, &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534 &&
           (st.st_mode & 07777) == 0700,
       "... DIR/users/65534 made for him, his, mode 0700");
    snprintf(path, sizeof path, "%s/users/65534/rec.profile", dir);
    ok(stat(path, &st) == 0 && st.st_uid == 65534 && (st.st_mode & 0777) == 0644,
       "... the file is his, mode 0644");
    q = topomap_store_find(dir, 65534, "rec", 4, &scope, NULL, 0, err, sizeof err);
    ok(q && scope == TOPOMAP_STORE_USER, "... and found for him");
    topomap_profile_free(q);
    ok(topomap_store_find(dir, 65533, "rec", 4, &scope, NULL, 0, err, sizeof err) == NULL &&
           errno == ENOENT,
       "... not for anyone else");
    /* A site file of another owner is not the store owner's: refused. */
    snprintf(path, sizeof path, "%s/other.profile", dir);
    write_file(path, "# nranks=2\n0 1 5\n");
    ok(chown(path, 65534, 65534) == 0, "a site file owned by uid 65534");
    ok(topomap_store_lookup(dir, "other", 2, err, sizeof err) == NULL && errno == EPERM,
       "... is not used: EPERM");
    like(err, "belongs to uid 65534, not to the owner of its directory (uid 0): not used",
         "... said");
    /* A directory planted under uid 4242 by someone else (here: 65534). */
    snprintf(path, sizeof path, "%s/users/4242", dir);
    ok(mkdir(path, 0755) == 0 && chown(path, 65534, 65534) == 0, "a planted DIR/users/4242");
    snprintf(want, sizeof want, "%s/site.profile", path);
    write_file(want, "# nranks=2\n0 1 31337\n");
    chown(want, 65534, 65534);
    err[0] = 0;
    ok(topomap_store_find(dir, 4242, "site", 0, &scope, NULL, 0, err, sizeof err) == NULL &&
           errno == EPERM,
       "find for uid 4242 refuses it (EPERM), does not fall back");
    like(err, "users/4242 belongs to uid 65534, not to user 4242: not used", "... said");
    ok(topomap_store_user_add(dir, 4242, 4242, "site", p8, err, sizeof err) < 0 && errno == EPERM,
       "root storing a recording for 4242 refuses it too");
    ok(stat(want, &st) == 0 && st.st_uid == 65534 && st.st_size < 100,
       "... and wrote nothing there");
    /* A link in place of a user's directory is not followed, even by root. */
    snprintf(path, sizeof path, "%s/users/4343", dir);
    ok(symlink(base, path) == 0, "DIR/users/4343 a link to elsewhere");
    ok(topomap_store_user_add(dir, 4343, 4343, "evil", p8, err, sizeof err) < 0 && errno == EPERM,
       "root does not store through it: EPERM");
    snprintf(path, sizeof path, "%s/evil.profile", base);
    ok(access(path, F_OK) < 0, "... nothing written where it points");
}

/* The rank count of the header is checked before the file is read: a file
 * declaring 4 ranks on line 2, far too large to be a grid of 4 ranks, with a
 * corrupt last line that a full read would report. */
static void header_tests(const char *base)
{
    char err[TOPOMAP_ERRLEN], dir[512], path[1024];
    snprintf(dir, sizeof dir, "%s/header", base);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/big.profile", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# application=big\n# nranks=4\n", f);
        for (int i = 0; i < 20000; i++)
            fprintf(f, "%d %d 100\n", i % 4, (i + 1) % 4);
        fputs("0 1 corrupt\n", f);
        fclose(f);
    }
    err[0] = 0;
    ok(topomap_store_lookup(dir, "big", 8, err, sizeof err) == NULL && errno == ERANGE,
       "another rank count on line 2 of a large file: ERANGE before reading it (%s)", err);
    like(err, "recorded with 4 ranks, this job has 8", "... said");
    err[0] = 0;
    ok(topomap_store_lookup(dir, "big", 4, err, sizeof err) == NULL && errno == EINVAL,
       "the same file for its own count is read, corrupt line found");
    like(err, "big.profile:20003", "... with file:line");
    topomap_store_entry_t *e = NULL;
    size_t n = 0;
    ok(topomap_store_list(dir, &e, &n, err, sizeof err) == 0 && n == 1 && e[0].nranks == 4,
       "list reads the rank count from line 2");
    free(e);
    /* Messages: a control character in the store's name is not echoed. */
    char odd[600];
    snprintf(odd, sizeof odd, "%s/a\033]0;x\007b", base);
    err[0] = 0;
    ok(topomap_store_list(odd, &e, &n, err, sizeof err) < 0 && !strchr(err, '\033') &&
           !strchr(err, '\007') && strstr(err, "a?]0;x?b"),
       "control characters in a path are shown as '?': %s", err);
}

/* Which directory, which names, which path. */
static void name_tests(void)
{
    char err[TOPOMAP_ERRLEN], path[1024];
    /* Which directory. */
    unsetenv("TOPOMAP_STORE");
    is_str(topomap_store_dir(NULL), TOPOMAP_STORE_DEFAULT, "default store without env");
    is_str(topomap_store_dir(""), TOPOMAP_STORE_DEFAULT, "empty dir means default");
    setenv("TOPOMAP_STORE", "/env/store", 1);
    is_str(topomap_store_dir(NULL), "/env/store", "TOPOMAP_STORE overrides the default");
    is_str(topomap_store_dir("/given"), "/given", "an explicit dir overrides TOPOMAP_STORE");
    unsetenv("TOPOMAP_STORE");

    /* Names. */
    ok(topomap_store_name_valid("lammps"), "plain name valid");
    ok(topomap_store_name_valid("a.out_v2+x-1"), "name with . _ + - valid");
    ok(!topomap_store_name_valid(""), "empty name invalid");
    ok(!topomap_store_name_valid(NULL), "NULL name invalid");
    ok(!topomap_store_name_valid(".hidden"), "leading dot invalid");
    ok(!topomap_store_name_valid("-opt"), "leading dash invalid");
    ok(!topomap_store_name_valid("../etc/passwd"), "path traversal invalid");
    ok(!topomap_store_name_valid("a/b"), "slash invalid");
    ok(!topomap_store_name_valid("a b"), "space invalid");
    char longname[260];
    memset(longname, 'x', 201);
    longname[201] = 0;
    ok(!topomap_store_name_valid(longname), "201 characters invalid");
    longname[200] = 0;
    ok(topomap_store_name_valid(longname), "200 characters valid");

    ok(topomap_store_path("/s", "app", path, sizeof path, err, sizeof err) == 0, "path");
    is_str(path, "/s/app.profile", "path is DIR/NAME.profile");
    char small[8];
    ok(topomap_store_path("/s", "app", small, sizeof small, err, sizeof err) < 0 &&
           errno == ENAMETOOLONG,
       "path too long for the buffer: ENAMETOOLONG");
    err[0] = 0;
    ok(topomap_store_path("/s", "a/b", path, sizeof path, err, sizeof err) < 0 && errno == EINVAL,
       "invalid name: EINVAL");
    like(err, "invalid profile name 'a/b'", "message names the bad name");
}

/* Concurrency: 4 writers store rings of 10..13 ranks under one name while
 * a reader looks it up; every lookup must see a complete profile. */
static void race_tests(const char *dir)
{
    char err[TOPOMAP_ERRLEN];
    pid_t pids[4];
    for (int w = 0; w < 4; w++) {
        pids[w] = fork();
        if (pids[w] == 0) {
            topomap_profile_t *r = ring(10 + w);
            char e2[TOPOMAP_ERRLEN];
            int bad = 0;
            for (int k = 0; k < 200; k++)
                bad |= topomap_store_add(dir, "race", r, e2, sizeof e2) < 0;
            topomap_profile_free(r);
            _exit(bad);
        }
    }
    /* Read for as long as any writer runs, and once more after. */
    int reads = 0, complete = 0, running = 4, writers_ok = 1;
    for (;;) {
        int last = running == 0;
        topomap_profile_t *r = topomap_store_lookup(dir, "race", 0, err, sizeof err);
        if (r || errno != ENOENT) { /* ENOENT: before the first rename */
            reads++;
            if (r && topomap_profile_nranks(r) >= 10 && topomap_profile_nranks(r) <= 13 &&
                (int)topomap_profile_nedges(r) == topomap_profile_nranks(r))
                complete++;
            topomap_profile_free(r);
        }
        if (last)
            break;
        for (int w = 0; w < 4; w++) {
            int status = 1;
            if (pids[w] > 0 && waitpid(pids[w], &status, WNOHANG) == pids[w]) {
                writers_ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
                pids[w] = 0;
                running--;
            }
        }
    }
    ok(writers_ok, "4 concurrent writers x 200 stores all succeeded");
    ok(reads > 0 && complete == reads, "every one of %d concurrent lookups saw a complete profile",
       reads);
    is_int(hidden_files(dir), 0, "no temporary files left after the race");
}

/* A writer killed before its rename leaves its temporary file: the next
 * writer of the same name removes those of its user older than an hour, and
 * nothing else (a fresh one may be a live writer's; other names are theirs). */
static void stale_temp_tests(const char *dir, topomap_profile_t *p)
{
    char err[TOPOMAP_ERRLEN], path[1024];
    const char *files[] = {".app.profile.abc123", ".app.profile.def456", ".other.profile.aaaaaa",
                           ".app.profile.zzz"};
    const int old[] = {1, 0, 1, 1};
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= 7200;
    ts[1] = ts[0];
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        write_file(path, "# nranks=2\n0 1 1\n");
        if (old[k])
            utimensat(AT_FDCWD, path, ts, 0);
    }
    ok(topomap_store_add(dir, "app", p, err, sizeof err) == 0, "add over stale temporaries: %s",
       err);
    const int gone[] = {1, 0, 0, 0};
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        struct stat st;
        is_int(stat(path, &st) < 0, gone[k], "%s (%s): %s", files[k],
               old[k] ? "2 h old" : "fresh", gone[k] ? "removed by the next writer of app" : "kept");
        if (!gone[k])
            unlink(path);
    }
}

int main(void)
{
    char err[TOPOMAP_ERRLEN] = "", base[] = "/tmp/topomap-store-test.XXXXXX", dir[512], path[1024];
    if (!mkdtemp(base)) {
        printf("1..0 # SKIP cannot create a temporary directory\n");
        return 0;
    }
    snprintf(dir, sizeof dir, "%s/a/b/profiles", base);

    name_tests();

    /* Add creates the store, atomically, readable by all. */
    topomap_profile_t *p8 = ring(8);
    ok(topomap_store_add(dir, "app", p8, err, sizeof err) == 0, "add into a missing nested dir: %s",
       err);
    snprintf(path, sizeof path, "%s/app.profile", dir);
    struct stat st;
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "stored file has mode 0644");
    is_int(hidden_files(dir), 0, "no temporary file left behind");
    FILE *f = fopen(path, "r");
    char line[64] = "";
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        fclose(f);
    }
    is_str(line, "# nranks=8\n", "first line records the rank count");

    topomap_profile_t *q = topomap_store_lookup(dir, "app", 8, err, sizeof err);
    ok(q != NULL, "lookup with the right rank count: %s", q ? "" : err);
    is_int(topomap_profile_nranks(q), 8, "8 ranks read back");
    is_int(topomap_profile_nedges(q), 8, "8 edges read back");
    is_double(topomap_profile_total_bytes(q), topomap_profile_total_bytes(p8), 0,
              "same total bytes");
    topomap_profile_free(q);
    q = topomap_store_lookup(dir, "app", 0, err, sizeof err);
    ok(q != NULL, "lookup with nranks 0 accepts any count");
    topomap_profile_free(q);

    err[0] = 0;
    ok(topomap_store_lookup(dir, "app", 16, err, sizeof err) == NULL && errno == ERANGE,
       "another rank count refused with ERANGE");
    like(err, "recorded with 8 ranks, this job has 16", "message gives both counts");

    err[0] = 0;
    ok(topomap_store_lookup(dir, "nothere", 8, err, sizeof err) == NULL && errno == ENOENT,
       "missing profile: ENOENT");
    like(err, "no profile 'nothere' in the store", "message says which profile");
    ok(topomap_store_lookup(dir, "../x", 8, err, sizeof err) == NULL && errno == EINVAL,
       "lookup of an invalid name: EINVAL");

    /* Replace: the new content wins. */
    topomap_profile_t *p4 = ring(4);
    ok(topomap_store_add(dir, "app", p4, err, sizeof err) == 0, "replace an existing profile");
    q = topomap_store_lookup(dir, "app", 4, err, sizeof err);
    ok(q && topomap_profile_nranks(q) == 4, "replacement read back");
    topomap_profile_free(q);

    /* Corrupt files: caught by the loader, with file:line. */
    snprintf(path, sizeof path, "%s/broken.profile", dir);
    write_file(path, "# nranks=4\n0 1 100\n1 zz 5\n");
    err[0] = 0;
    ok(topomap_store_lookup(dir, "broken", 4, err, sizeof err) == NULL && errno == EINVAL,
       "corrupt profile: EINVAL");
    like(err, "broken.profile:3", "message has file:line");
    /* A file without a header is checked after loading. */
    snprintf(path, sizeof path, "%s/nohead.profile", dir);
    write_file(path, "0 1 100\n1 2 100\n");
    err[0] = 0;
    ok(topomap_store_lookup(dir, "nohead", 8, err, sizeof err) == NULL && errno == ERANGE,
       "headerless profile with another rank count refused after loading");
    like(err, "recorded with 3 ranks", "count inferred from the largest rank");

    /* Listing skips what is not a profile. */
    snprintf(path, sizeof path, "%s/.app.profile.abc123", dir);
    write_file(path, "# nranks=2\n");
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_file(path, "hello\n");
    snprintf(path, sizeof path, "%s/sub.profile", dir);
    mkdir(path, 0755);
    topomap_store_entry_t *e = NULL;
    size_t n = 0;
    ok(topomap_store_list(dir, &e, &n, err, sizeof err) == 0, "list");
    is_int(n, 3, "three profiles listed (app, broken, nohead)");
    if (n == 3) {
        is_str(e[0].name, "app", "sorted: app first");
        is_int(e[0].nranks, 4, "app has 4 ranks");
        ok(e[0].bytes > 0 && e[0].mtime > 0, "size and mtime filled");
        is_str(e[1].name, "broken", "then broken");
        is_str(e[2].name, "nohead", "then nohead");
        is_int(e[2].nranks, -1, "no header: nranks -1");
    }
    free(e);
    snprintf(path, sizeof path, "%s/.app.profile.abc123", dir);
    unlink(path);

    err[0] = 0;
    ok(topomap_store_list("/nonexistent/store", &e, &n, err, sizeof err) < 0 && errno == ENOENT,
       "listing a missing store: ENOENT");
    like(err, "/nonexistent/store: cannot read the profile store", "message names the store");

    /* Remove. */
    ok(topomap_store_remove(dir, "broken", err, sizeof err) == 0, "remove");
    ok(topomap_store_lookup(dir, "broken", 0, err, sizeof err) == NULL && errno == ENOENT,
       "removed profile is gone");
    err[0] = 0;
    ok(topomap_store_remove(dir, "broken", err, sizeof err) < 0 && errno == ENOENT,
       "removing a missing profile: ENOENT");
    like(err, "no profile 'broken'", "message names it");
    ok(topomap_store_remove(dir, "a/b", err, sizeof err) < 0 && errno == EINVAL,
       "remove of an invalid name: EINVAL");

    /* Add errors. */
    snprintf(path, sizeof path, "%s/plainfile", base);
    write_file(path, "x");
    err[0] = 0;
    ok(topomap_store_add(path, "app", p4, err, sizeof err) < 0 && errno == ENOTDIR,
       "store path that is a file: ENOTDIR");
    like(err, "cannot create the profile store", "message says so");
    ok(topomap_store_add(dir, "bad/name", p4, err, sizeof err) < 0 && errno == EINVAL,
       "add with an invalid name: EINVAL");
    ok(topomap_store_add(dir, "app", NULL, err, sizeof err) < 0 && errno == EINVAL,
       "add of no profile: EINVAL");

    race_tests(dir);
    stale_temp_tests(dir, p8);

    scope_tests(base, p8, p4);
    header_tests(base);
    topomap_profile_free(p8);
    topomap_profile_free(p4);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", base);
    return done_testing();
}
