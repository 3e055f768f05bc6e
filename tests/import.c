/* SPDX-License-Identifier: BSD-3-Clause */
/* Importers (libtopomap/import_ompi.c): Open MPI monitoring files, the dispatch of
 * topomap_import(), error paths. The fixtures are written here, in the
 * format Open MPI 4.1.4 writes (tab-separated; see import_ompi.c), into a
 * fresh temporary directory.
 *
 * Also a tool for tests/profiler.sh, which imports a real monitoring run:
 *   import.t --import [-k KINDS] FILE...   writes the profile to stdout
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

static char dir[] = "/tmp/topomap-import-XXXXXX";
static char err[TOPOMAP_ERRLEN];

static const char *path(const char *name)
{
    static char buf[8][256];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(path(name), "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) {
        perror(name);
        exit(1);
    }
}

/* What p records from s to d (bytes or messages), -1 if no entry. */
static double entry(const topomap_profile_t *p, int s, int d, int affinity)
{
    topomap_graph_t g;
    if (!p || topomap_profile_graph(p, affinity, 0, &g) < 0 || s >= g.n)
        return -1;
    for (int64_t k = g.xadj[s]; k < g.xadj[s + 1]; k++)
        if (g.adj[k] == d)
            return g.w[k];
    return -1;
}

#define H "# POINT TO POINT\n"
#define HIST "\t0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
/* Three ranks as written with pml_monitoring_enable=2. */
static const char *rank0 = H "E\t0\t1\t1200 bytes\t3 msgs sent" HIST
                             "I\t0\t2\t40 bytes\t1 msgs sent\n"
                             "# OSC\n"
                             "S\t0\t1\t100 bytes\t1 msgs sent\n"
                             "# COLLECTIVES\n"
                             "C\t0\t1\t40 bytes\t1 msgs sent\n"
                             "C\t0\t2\t40 bytes\t1 msgs sent\n"
                             "D\tMPI_COMM_WORLD\tprocs: 0,1,2\n"
                             "O2A\t0\t0 bytes\t0 msgs sent\n"
                             "A2O\t0\t0 bytes\t0 msgs sent\n"
                             "A2A\t0\t120 bytes\t1 msgs sent\n";
static const char *rank1 = H "E\t1\t2\t8 bytes\t1 msgs sent" HIST
                             "E\t1\t0\t0 bytes\t2 msgs sent\n"
                             "I\t1\t0\t40 bytes\t1 msgs sent" HIST
                             "# OSC\n"
                             "R\t1\t2\t28 bytes\t1 msgs sent\n"
                             "# COLLECTIVES\n"
                             "D\tMPI COMMUNICATOR 3 DUP FROM 0\tprocs: 0,1,2\n"
                             "D\tMPI_COMM_WORLD\tprocs: 0,1,2\n";
static const char *rank2 = H "E\t2\t0\t16 bytes\t2 msgs sent\n"
                             "# OSC\n# COLLECTIVES\n";

static topomap_profile_t *imp(int n, const char *const *names, unsigned kinds)
{
    const char *paths[8];
    for (int i = 0; i < n; i++)
        paths[i] = path(names[i]);
    err[0] = 0;
    return topomap_import_ompi(paths, (size_t)n, kinds, err, sizeof err);
}

static void test_ompi(void)
{
    put("m.0.prof", rank0);
    put("m.1.prof", rank1);
    put("m.2.prof", rank2);
    const char *all[] = {"m.0.prof", "m.1.prof", "m.2.prof"};
    const char *rev[] = {"m.2.prof", "m.0.prof", "m.1.prof"};

    topomap_profile_t *p = imp(3, all, 0);
    ok(p != NULL, "three monitoring files import (%s)", err);
    is_int(topomap_profile_nranks(p), 3, "nranks from MPI_COMM_WORLD's process list");
    is_int(topomap_profile_nedges(p), 4, "default: E lines only (0->1, 1->2, 2->0, 1->0)");
    is_double(entry(p, 0, 1, TOPOMAP_AFFINITY_BYTES), 1200, 0, "0->1 bytes");
    is_double(entry(p, 0, 1, TOPOMAP_AFFINITY_MSGS), 3, 0, "0->1 messages");
    is_double(entry(p, 1, 2, TOPOMAP_AFFINITY_BYTES), 8, 0, "1->2 bytes, histogram ignored");
    is_double(entry(p, 2, 0, TOPOMAP_AFFINITY_MSGS), 2, 0, "2->0 messages");
    is_double(entry(p, 0, 2, TOPOMAP_AFFINITY_BYTES), -1, 0, "I line not imported by default");
    is_double(topomap_profile_total_bytes(p), 1224, 0, "total bytes");
    ok(topomap_profile_has_msgs(p), "message counts kept");
    topomap_profile_free(p);

    p = imp(3, all, TOPOMAP_OMPI_EXTERNAL);
    is_double(entry(p, 1, 0, TOPOMAP_AFFINITY_MSGS), 2, 0,
              "zero-byte E messages count (1->0: 2 messages)");
    topomap_profile_free(p);

    p = imp(3, rev, 0);
    is_double(entry(p, 0, 1, TOPOMAP_AFFINITY_BYTES), 1200, 0, "file order does not matter");
    topomap_profile_free(p);

    p = imp(3, all, TOPOMAP_OMPI_INTERNAL);
    is_double(entry(p, 0, 2, TOPOMAP_AFFINITY_BYTES), 40, 0, "I lines: 0->2");
    is_double(entry(p, 1, 0, TOPOMAP_AFFINITY_BYTES), 40, 0, "I lines: 1->0");
    is_double(topomap_profile_total_bytes(p), 80, 0, "I lines only");
    topomap_profile_free(p);

    p = imp(3, all, TOPOMAP_OMPI_OSC);
    is_double(entry(p, 0, 1, TOPOMAP_AFFINITY_BYTES), 100, 0, "S: origin -> target");
    is_double(entry(p, 2, 1, TOPOMAP_AFFINITY_BYTES), 28, 0, "R: peer -> reader (reversed)");
    is_double(entry(p, 1, 2, TOPOMAP_AFFINITY_BYTES), -1, 0, "R is not read as reader -> peer");
    topomap_profile_free(p);

    p = imp(3, all, TOPOMAP_OMPI_COLL);
    is_double(topomap_profile_total_bytes(p), 80, 0, "C lines only");
    topomap_profile_free(p);

    p = imp(3, all, TOPOMAP_OMPI_EXTERNAL | TOPOMAP_OMPI_INTERNAL | TOPOMAP_OMPI_OSC |
                        TOPOMAP_OMPI_COLL);
    is_double(entry(p, 0, 1, TOPOMAP_AFFINITY_BYTES), 1200 + 100 + 40, 0, "kinds are summed");
    is_double(topomap_profile_total_bytes(p), 1224 + 80 + 128 + 80, 0, "all kinds: total");
    topomap_profile_free(p);

    /* A rank that sent nothing still has its file; D gives the rank count. */
    put("q.0.prof", H "E\t0\t1\t5 bytes\t1 msgs sent\nD\tMPI_COMM_WORLD\tprocs: 0,1,2,3\n");
    put("q.1.prof", H "# OSC\n# COLLECTIVES\n");
    put("q.2.prof", H);
    put("q.3.prof", H "E\t3\t0\t7 bytes\t1 msgs sent\n");
    const char *q[] = {"q.0.prof", "q.1.prof", "q.2.prof", "q.3.prof"};
    p = imp(4, q, 0);
    ok(p != NULL, "empty files of silent ranks (%s)", err);
    is_int(topomap_profile_nranks(p), 4, "4 ranks");
    topomap_profile_free(p);

    /* Without a D line: highest rank + 1 (file names count). */
    put("r.0.prof", H "E\t0\t1\t5 bytes\t1 msgs sent\n");
    put("r.1.prof", H);
    put("r.2.prof", H);
    const char *r[] = {"r.0.prof", "r.1.prof", "r.2.prof"};
    p = imp(3, r, 0);
    is_int(topomap_profile_nranks(p), 3, "no D line: rank count from the files");
    topomap_profile_free(p);

    /* topomap_import: a PREFIX, and the dispatch on file kinds. */
    const char *pre[] = {path("m")};
    p = topomap_import(pre, 1, 0, err, sizeof err);
    ok(p != NULL, "topomap_import(PREFIX) reads PREFIX.0.prof... (%s)", err);
    is_double(entry(p, 0, 1, TOPOMAP_AFFINITY_BYTES), 1200, 0, "PREFIX import");
    topomap_profile_free(p);
    const char *files[] = {path("m.0.prof"), path("m.1.prof"), path("m.2.prof")};
    p = topomap_import(files, 3, TOPOMAP_OMPI_INTERNAL, err, sizeof err);
    is_double(topomap_profile_total_bytes(p), 80, 0, "topomap_import passes the kinds on");
    topomap_profile_free(p);
}

static void test_other_formats(void)
{
    put("app.txt", "# nranks=3\n# application=ring\n0 1 10 1\n1 2 20 2\n");
    put("app.mat", "0 5 0\n0 0 6\n7 0 0\n");
    put("noname.txt", H "E\t0\t1\t5 bytes\t1 msgs sent\n");
    is_int(topomap_import_is_ompi(path("m.0.prof")), 1, "is_ompi: .prof");
    is_int(topomap_import_is_ompi(path("noname.txt")), 1, "is_ompi: by first line");
    is_int(topomap_import_is_ompi(path("app.txt")), 0, "is_ompi: edge list is not");
    errno = 0;
    ok(topomap_import_is_ompi(path("missing")) == -1 && errno == ENOENT, "is_ompi: ENOENT");

    const char *one[] = {path("app.txt")};
    topomap_profile_t *p = topomap_import(one, 1, 0, err, sizeof err);
    ok(p != NULL, "edge list through topomap_import (%s)", err);
    is_str(topomap_profile_meta(p, "application"), "ring", "its metadata is kept");
    is_double(entry(p, 1, 2, TOPOMAP_AFFINITY_MSGS), 2, 0, "edge list entry");
    topomap_profile_free(p);
    one[0] = path("app.mat");
    p = topomap_import(one, 1, 0, err, sizeof err);
    ok(p != NULL, "dense .mat through topomap_import (%s)", err);
    is_int(topomap_profile_nranks(p), 3, ".mat: 3 ranks");
    is_double(entry(p, 2, 0, TOPOMAP_AFFINITY_BYTES), 7, 0, ".mat: row = sender");
    topomap_profile_free(p);
}

/* One malformed input: NULL, errno, message. */
#define BAD(call, e, text, what)                                                            \
    do {                                                                                    \
        err[0] = 0;                                                                         \
        errno = 0;                                                                          \
        topomap_profile_t *p_ = (call);                                                     \
        ok(!p_ && errno == (e), "%s: fails with errno %d", what, e);                        \
        like(err, text, "%s: message", what);                                               \
        topomap_profile_free(p_);                                                           \
    } while (0)

static void test_errors(void)
{
    const char *a[] = {"bad.0.prof", "bad.1.prof"};
    put("bad.1.prof", H);
    put("bad.0.prof", H "E\t0\t1\t5 bytes\t1 msgs sent\nX\t0\t1\t5 bytes\t1 msgs sent\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:3: unknown line type 'X'", "unknown line type");
    put("bad.0.prof", H "E\t0\t1\t5 byts\t1 msgs sent\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:2: expected \"N bytes\"", "malformed bytes");
    put("bad.0.prof", H "E\t0\t1\t-5 bytes\t1 msgs sent\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:2: expected", "negative bytes");
    put("bad.0.prof", H "E\t0\t1\t5 bytes\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:2: E line has 4 tab-separated fields", "short line");
    put("bad.0.prof", H "E 0 1 5 bytes 1 msgs sent\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:2: unknown line type", "spaces, not tabs");
    put("bad.0.prof", H "E\tzero\t1\t5 bytes\t1 msgs sent\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:2: rank is not a non-negative integer", "bad rank");
    put("bad.0.prof", H "E\t1\t0\t5 bytes\t1 msgs sent\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:2: rank 1 wrote this line but the file name says 0",
        "rank and file name disagree");
    put("bad.0.prof", H "E\t0\t1\t5 bytes\t1 msgs sent\nE\t1\t0\t5 bytes\t1 msgs sent\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:3: line of rank 1 in a file of rank 0",
        "two ranks in one file");
    put("bad.0.prof", H "E\t0\t1\t5 bytes\t1 msgs sent\nD\tMPI_COMM_WORLD\tprocs: 0,2\n");
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof:3: MPI_COMM_WORLD process list", "bad process list");
    put("bad.0.prof", H "E\t0\t5\t5 bytes\t1 msgs sent\nD\tMPI_COMM_WORLD\tprocs: 0,1\n");
    BAD(imp(2, a, 0), EINVAL, "MPI_COMM_WORLD has 2 processes but rank 5 appears",
        "rank beyond MPI_COMM_WORLD");
    put("bad.0.prof", H "D\tMPI_COMM_WORLD\tprocs: 0,1\n");
    put("bad.1.prof", H "D\tMPI_COMM_WORLD\tprocs: 0,1,2\n");
    BAD(imp(2, a, 0), EINVAL, "bad.1.prof:2: MPI_COMM_WORLD has 3 processes here but 2 in",
        "files of different runs");
    put("bad.0.prof", H "E\t0\t2\t5 bytes\t1 msgs sent\n");
    put("bad.1.prof", H);
    BAD(imp(2, a, 0), EINVAL, "bad.0.prof: no file for rank 2 of 3", "missing rank");
    const char *twice[] = {"bad.0.prof", "bad.1.prof", "bad.0.prof"};
    BAD(imp(3, twice, 0), EINVAL, "bad.0.prof: rank 0 already read from", "same rank twice");
    put("anon.txt", H);
    const char *anon[] = {"anon.txt"};
    BAD(imp(1, anon, 0), EINVAL, "anon.txt: cannot tell which rank wrote this file",
        "rank unknown");
    put("nul.0.prof", "# POINT TO POINT\nE\t0\t0\t5 bytes\t1 msgs\0 sent\n");
    {
        /* fputs stops at the NUL: write the bytes themselves. */
        FILE *f = fopen(path("nul.0.prof"), "w");
        static const char t[] = "E\t0\t0\t5 bytes\t1 msgs\0 sent\n";
        fwrite(t, 1, sizeof t - 1, f);
        fclose(f);
    }
    const char *nul[] = {"nul.0.prof"};
    BAD(imp(1, nul, 0), EINVAL, "nul.0.prof:1: NUL byte", "NUL byte");
    const char *missing[] = {"none.0.prof"};
    BAD(imp(1, missing, 0), ENOENT, "none.0.prof: No such file", "missing file");
    BAD(imp(2, a, 16), EINVAL, "unknown Open MPI line kinds 0x10", "unknown kinds");
    BAD(topomap_import_ompi(NULL, 0, 0, err, sizeof err), EINVAL, "no Open MPI monitoring file",
        "no file");
    BAD(topomap_import(NULL, 0, 0, err, sizeof err), EINVAL, "no profile file given",
        "import: no file");
    const char *mixed[] = {path("m.0.prof"), path("app.txt")};
    BAD(topomap_import(mixed, 2, 0, err, sizeof err), EINVAL,
        "app.txt: only Open MPI monitoring files", "import: monitoring and other mixed");
    const char *gone[] = {path("nothing-here")};
    BAD(topomap_import(gone, 1, 0, err, sizeof err), ENOENT, "nothing-here", "import: ENOENT");
    put("garbage.txt", "0 1 x\n");
    const char *garbage[] = {path("garbage.txt")};
    BAD(topomap_import(garbage, 1, 0, err, sizeof err), EINVAL, "garbage.txt:1",
        "import: loader errors come through");
}

static int tool(int argc, char **argv)
{
    unsigned kinds = 0;
    int i = 2;
    if (i + 1 < argc && !strcmp(argv[i], "-k")) {
        kinds = (unsigned)strtoul(argv[i + 1], NULL, 0);
        i += 2;
    }
    topomap_profile_t *p =
        topomap_import((const char *const *)argv + i, (size_t)(argc - i), kinds, err, sizeof err);
    if (!p) {
        fprintf(stderr, "import.t: %s\n", err);
        return 1;
    }
    int rc = topomap_profile_write(p, stdout) < 0;
    topomap_profile_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--import"))
        return tool(argc, argv);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_ompi();
    test_other_formats();
    test_errors();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return done_testing();
}
