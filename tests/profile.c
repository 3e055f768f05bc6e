/* SPDX-License-Identifier: BSD-3-Clause */
/* Communication profiles: the three formats give the same CSR, duplicates are
 * summed, the symmetric view, metadata, every malformed-input class with its
 * message, write/load round trips, and a real workload. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

#define DATA SRCDIR "/data/profiles/"

static char tmpdir[64];
static char *made[128];
static int nmade;

/* Write content to tmpdir/name; returns the path (freed at exit). */
static const char *put(const char *name, const char *content)
{
    size_t len = strlen(tmpdir) + strlen(name) + 2;
    char *path = malloc(len);
    snprintf(path, len, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(content, f);
        fclose(f);
    }
    made[nmade++] = path;
    return path;
}

/* The file must be rejected with errno e and a one-line message
 * "PATH<want>", e.g. want = ":2: negative value '-3'". */
static void bad_file(const char *path, int format, int e, const char *want, const char *what)
{
    char err[TOPOMAP_ERRLEN] = "", full[1024];
    errno = 0;
    topomap_profile_t *p = topomap_profile_load(path, format, err, sizeof err);
    int got = errno;
    ok(p == NULL && got == e, "%s: rejected with errno %d (got %d)", what, e, got);
    snprintf(full, sizeof full, "%s%s", path, want);
    like(err, full, "%s: message", what);
    ok(!strchr(err, '\n'), "%s: message is one line", what);
    topomap_profile_free(p);
}

static void bad(const char *name, const char *content, int format, const char *want)
{
    bad_file(put(name, content), format, EINVAL, want, name);
}

static topomap_profile_t *load(const char *path, int format)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_profile_load(path, format, err, sizeof err);
    ok(p != NULL, "load %s%s%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
       p ? "" : ": ", p ? "" : err);
    return p;
}

/* Two graphs are the same matrix: same structure, same weights. */
static int same_graph(const topomap_graph_t *a, const topomap_graph_t *b)
{
    if (a->n != b->n || memcmp(a->xadj, b->xadj, (size_t)(a->n + 1) * sizeof *a->xadj))
        return 0;
    int64_t m = a->xadj[a->n];
    return !memcmp(a->adj, b->adj, (size_t)m * sizeof *a->adj) &&
           !memcmp(a->w, b->w, (size_t)m * sizeof *a->w);
}

static int graph_is(const topomap_graph_t *g, int n, const int64_t *xadj, const int *adj,
                    const double *w)
{
    topomap_graph_t want = {n, xadj, adj, w};
    return g->n == n && same_graph(g, &want);
}

static void test_formats(void)
{
    /* small.txt holds A (5 ranks):
     *   0->1 100 (2 msgs), 1->0 50 (1), 1->2 30 (3), 2->2 5 (1), 2->3 20 (4),
     *   3->0 10 (5), 4->3 40 (2).
     * Directed CSR, diagonal kept: rows 0:{1}, 1:{0,2}, 2:{2,3}, 3:{0}, 4:{3}. */
    static const int64_t dx[] = {0, 1, 3, 5, 6, 7};
    static const int da[] = {1, 0, 2, 2, 3, 0, 3};
    static const double db[] = {100, 50, 30, 5, 20, 10, 40};
    static const double dm[] = {2, 1, 3, 1, 4, 5, 2};
    /* A + A^T without diagonal: C(0,1) = 150, C(0,3) = 10, C(1,2) = 30,
     * C(2,3) = 20, C(3,4) = 40; messages 3, 5, 3, 4, 2. */
    static const int64_t sx[] = {0, 2, 4, 6, 9, 10};
    static const int sa[] = {1, 3, 0, 2, 1, 3, 0, 2, 4, 3};
    static const double sb[] = {150, 10, 150, 30, 30, 20, 10, 20, 40, 40};
    static const double sm[] = {3, 5, 3, 3, 3, 4, 5, 4, 2, 2};

    topomap_profile_t *e = load(DATA "small.txt", TOPOMAP_FMT_AUTO);
    topomap_profile_t *m = load(DATA "small.mat", TOPOMAP_FMT_AUTO);
    topomap_profile_t *d = load(DATA "small.dense", TOPOMAP_FMT_AUTO);
    topomap_profile_t *x = load(DATA "small.mtx", TOPOMAP_FMT_AUTO);
    topomap_profile_t *xe = load(DATA "small.mtx", TOPOMAP_FMT_MTX);
    if (!e || !m || !d || !x || !xe)
        goto out;

    topomap_graph_t g, h;
    is_int(topomap_profile_nranks(e), 5, "edges: 5 ranks");
    is_int(topomap_profile_nedges(e), 7, "edges: 7 entries");
    is_double(topomap_profile_total_bytes(e), 255, 0, "edges: 255 bytes, self traffic included");
    ok(topomap_profile_has_msgs(e), "edges: 4 columns carry messages");
    ok(topomap_profile_graph(e, TOPOMAP_AFFINITY_BYTES, 0, &g) == 0 &&
           graph_is(&g, 5, dx, da, db),
       "edges: directed byte CSR as computed by hand");
    ok(topomap_profile_graph(e, TOPOMAP_AFFINITY_MSGS, 0, &g) == 0 && graph_is(&g, 5, dx, da, dm),
       "edges: directed message CSR");
    ok(topomap_profile_graph(e, TOPOMAP_AFFINITY_BYTES, 1, &g) == 0 &&
           graph_is(&g, 5, sx, sa, sb),
       "edges: symmetric byte CSR is A + A^T without diagonal");
    ok(topomap_profile_graph(e, TOPOMAP_AFFINITY_MSGS, 1, &g) == 0 && graph_is(&g, 5, sx, sa, sm),
       "edges: symmetric message CSR");

    topomap_profile_t *others[] = {m, d, x, xe};
    const char *names[] = {"dense (.mat)", "dense (by content)", "mtx (.mtx)", "mtx (explicit)"};
    for (int k = 0; k < 4; k++) {
        is_int(topomap_profile_nranks(others[k]), 5, "%s: 5 ranks", names[k]);
        ok(!topomap_profile_has_msgs(others[k]), "%s: no message counts", names[k]);
        ok(topomap_profile_graph(others[k], TOPOMAP_AFFINITY_BYTES, 0, &g) == 0 &&
               topomap_profile_graph(e, TOPOMAP_AFFINITY_BYTES, 0, &h) == 0 && same_graph(&g, &h),
           "%s: same directed CSR as the edge list", names[k]);
        ok(topomap_profile_graph(others[k], TOPOMAP_AFFINITY_BYTES, 1, &g) == 0 &&
               topomap_profile_graph(e, TOPOMAP_AFFINITY_BYTES, 1, &h) == 0 && same_graph(&g, &h),
           "%s: same symmetric CSR as the edge list", names[k]);
        errno = 0;
        ok(topomap_profile_graph(others[k], TOPOMAP_AFFINITY_MSGS, 0, &g) < 0 && errno == EINVAL,
           "%s: asking for messages is EINVAL", names[k]);
    }

    /* Format forced against the content: read as a dense matrix, the first
     * data line of small.txt ("0 1 100 2") makes it 4 x 4, and its fifth
     * data line (file line 11) is one row too many. */
    char err[TOPOMAP_ERRLEN] = "";
    errno = 0;
    ok(topomap_profile_load(DATA "small.txt", TOPOMAP_FMT_DENSE, err, sizeof err) == NULL &&
           errno == EINVAL,
       "small.txt forced dense is rejected");
    like(err, "small.txt:11: more than 4 rows in a 4 x 4 matrix", "... at its fifth data row");
    errno = 0;
    ok(topomap_profile_load(DATA "small.txt", 42, err, sizeof err) == NULL && errno == EINVAL,
       "unknown format number rejected");
    like(err, "unknown profile format 42", "... with its number");
out:
    topomap_profile_free(e);
    topomap_profile_free(m);
    topomap_profile_free(d);
    topomap_profile_free(x);
    topomap_profile_free(xe);
}

static void test_duplicates_and_symmetric(void)
{
    topomap_graph_t g;
    topomap_profile_t *p = load(DATA "dup.txt", TOPOMAP_FMT_AUTO);
    if (p) {
        /* 0->1: 10 + 7 + 3 = 20 bytes, 1 + 2 + 1 = 4 messages; 1->0: 5, 1. */
        static const int64_t x[] = {0, 1, 2};
        static const int a[] = {1, 0};
        static const double b[] = {20, 5}, m[] = {4, 1}, sb[] = {25, 25};
        is_int(topomap_profile_nedges(p), 2, "dup: 2 distinct entries");
        ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) == 0 && graph_is(&g, 2, x, a, b),
           "dup: bytes summed");
        ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_MSGS, 0, &g) == 0 && graph_is(&g, 2, x, a, m),
           "dup: messages summed");
        ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) == 0 &&
               graph_is(&g, 2, x, a, sb),
           "dup: symmetric weight 20 + 5");
    }
    topomap_profile_free(p);

    p = load(DATA "sym.mtx", TOPOMAP_FMT_AUTO);
    if (p) {
        /* (2,1) 4.5 and (3,2) 1 stand for both directions, (3,3) 2 once:
         * A = [0 4.5 0; 4.5 0 1; 0 1 2] (0-based). */
        static const int64_t x[] = {0, 1, 3, 5};
        static const int a[] = {1, 0, 2, 1, 2};
        static const double b[] = {4.5, 4.5, 1, 1, 2};
        static const int64_t sx[] = {0, 1, 3, 4};
        static const int sa[] = {1, 0, 2, 1};
        static const double sb[] = {9, 9, 2, 2};
        is_int(topomap_profile_nranks(p), 3, "sym.mtx: 3 ranks");
        is_int(topomap_profile_nedges(p), 5, "sym.mtx: 5 directed entries");
        is_double(topomap_profile_total_bytes(p), 13, 0, "sym.mtx: 4.5*2 + 1*2 + 2 bytes");
        ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) == 0 && graph_is(&g, 3, x, a, b),
           "sym.mtx: both triangles");
        ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) == 0 &&
               graph_is(&g, 3, sx, sa, sb),
           "sym.mtx: symmetric view doubles, diagonal dropped");
    }
    topomap_profile_free(p);

    p = load(DATA "pattern.mtx", TOPOMAP_FMT_AUTO);
    if (p) {
        static const int64_t x[] = {0, 1, 2, 2, 3};
        static const int a[] = {1, 2, 0};
        static const double b[] = {1, 1, 1};
        ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) == 0 && graph_is(&g, 4, x, a, b),
           "pattern.mtx: each entry is 1 byte");
    }
    topomap_profile_free(p);

    /* create(): duplicates summed, zero entries dropped, arrays copied. */
    int src[] = {2, 0, 2, 1, 0}, dst[] = {0, 1, 0, 1, 2};
    double bytes[] = {1.5, 8, 2.5, 3, 0}, msgs[] = {1, 1, 1, 1, 0};
    char err[TOPOMAP_ERRLEN];
    p = topomap_profile_create(3, 5, src, dst, bytes, msgs, err, sizeof err);
    ok(p != NULL, "create a 3-rank profile");
    if (p) {
        static const int64_t x[] = {0, 1, 2, 3};
        static const int a[] = {1, 1, 0};
        static const double b[] = {8, 3, 4};
        static const int64_t sx[] = {0, 2, 3, 4};
        static const int sa[] = {1, 2, 0, 0};
        static const double sb[] = {8, 4, 8, 4};
        src[0] = 1; /* the profile holds its own copy */
        is_int(topomap_profile_nedges(p), 3, "create: (2,0) summed, (0,2) with 0 bytes dropped");
        ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) == 0 && graph_is(&g, 3, x, a, b),
           "create: directed CSR");
        ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) == 0 &&
               graph_is(&g, 3, sx, sa, sb),
           "create: symmetric CSR");
        is_str(topomap_profile_meta(p, "nranks"), "3", "create: nranks metadata");
        ok(topomap_profile_meta(p, "application") == NULL, "create: no other metadata");
    }
    topomap_profile_free(p);

    int s2[] = {0, 3}, d2[] = {1, 0};
    double b2[] = {1, 1}, bn[] = {1, -1}, bnan[] = {1, NAN};
    errno = 0;
    ok(!topomap_profile_create(3, 2, s2, d2, b2, NULL, err, sizeof err) && errno == EINVAL,
       "create: rank out of range is EINVAL");
    like(err, "entry 1: rank 3 out of range (nranks=3)", "... message names the entry");
    s2[1] = 2;
    errno = 0;
    ok(!topomap_profile_create(3, 2, s2, d2, bn, NULL, err, sizeof err) && errno == EINVAL,
       "create: negative bytes is EINVAL");
    like(err, "entry 1: bytes and messages must be finite and non-negative", "... message");
    errno = 0;
    ok(!topomap_profile_create(3, 2, s2, d2, b2, bnan, err, sizeof err) && errno == EINVAL,
       "create: NaN messages is EINVAL");
    errno = 0;
    ok(!topomap_profile_create(0, 0, NULL, NULL, NULL, NULL, err, sizeof err) && errno == EINVAL,
       "create: 0 ranks is EINVAL");
    like(err, "nranks 0 is not a positive rank count", "... message");

    /* 70,000 ranks on a ring, built in place: no n x n anything. */
    int n = 70000;
    int *rs = malloc(n * sizeof *rs), *rd = malloc(n * sizeof *rd);
    double *rb = malloc(n * sizeof *rb);
    for (int i = 0; i < n; i++) {
        rs[i] = (i + 1) % n; /* given out of order on purpose */
        rd[i] = i;
        rb[i] = 1;
    }
    p = topomap_profile_create(n, (size_t)n, rs, rd, rb, NULL, err, sizeof err);
    int good = p && topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) == 0;
    for (int i = 0; good && i < n; i++)
        good = g.xadj[i + 1] - g.xadj[i] == 2 && g.adj[g.xadj[i]] < g.adj[g.xadj[i] + 1];
    ok(good, "70,000-rank ring: every symmetric row has 2 sorted neighbours");
    topomap_profile_free(p);
    free(rs);
    free(rd);
    free(rb);
}

static void test_meta(void)
{
    topomap_profile_t *p = load(DATA "small.txt", TOPOMAP_FMT_AUTO);
    is_str(topomap_profile_meta(p, "application"), "handmade", "meta: application");
    is_str(topomap_profile_meta(p, "date"), "2024-05-01", "meta: date");
    is_str(topomap_profile_meta(p, "nranks"), "5", "meta: nranks");
    ok(topomap_profile_meta(p, "rank") == NULL, "meta: plain comments are not metadata");
    ok(topomap_profile_meta(p, "nosuch") == NULL, "meta: unknown key gives NULL");
    topomap_profile_free(p);

    /* side.txt declares no rank count; side.txt.meta says 8. */
    p = load(DATA "side.txt", TOPOMAP_FMT_AUTO);
    is_int(topomap_profile_nranks(p), 8, "side file: nranks=8 from side.txt.meta");
    is_str(topomap_profile_meta(p, "application"), "fromfile", "side file: the file's own value wins");
    is_str(topomap_profile_meta(p, "counted"), "p2p sends, sender side",
           "side file: other keys merged");
    is_str(topomap_profile_meta(p, "nranks"), "8", "side file: nranks metadata is the count");
    topomap_profile_free(p);

    /* No declaration anywhere: largest rank + 1. */
    p = load(put("norank.txt", "0 6 1\n2 1 1\n"), TOPOMAP_FMT_AUTO);
    is_int(topomap_profile_nranks(p), 7, "no declaration: largest rank + 1");
    ok(!topomap_profile_has_msgs(p), "3 columns: no message counts");
    errno = 0;
    topomap_graph_t g;
    ok(topomap_profile_graph(p, TOPOMAP_AFFINITY_MSGS, 1, &g) < 0 && errno == EINVAL,
       "messages asked of a 3-column profile: EINVAL");
    topomap_profile_free(p);

    /* A rank-count header line. */
    p = load(put("header.txt", "# two silent ranks at the end\n6\n0 1 5\n1 0 5\n"),
             TOPOMAP_FMT_AUTO);
    is_int(topomap_profile_nranks(p), 6, "header line: 6 ranks");
    is_int(topomap_profile_nedges(p), 2, "header line: 2 entries");
    topomap_profile_free(p);

    p = load(put("onlyheader.txt", "4\n"), TOPOMAP_FMT_AUTO);
    is_int(topomap_profile_nranks(p), 4, "a header alone: 4 ranks without traffic");
    is_int(topomap_profile_nedges(p), 0, "... and no entries");
    topomap_profile_free(p);

    /* Agreeing declarations are fine; CRLF line ends and a last line
     * without newline are accepted. */
    p = load(put("crlf.txt", "# nranks=3\r\n3\r\n0 2 7 1\r\n2 0 1 1"), TOPOMAP_FMT_AUTO);
    is_int(topomap_profile_nedges(p), 2, "CRLF and no final newline: 2 entries");
    is_double(topomap_profile_total_bytes(p), 8, 0, "... 8 bytes");
    topomap_profile_free(p);

    /* Non-integer values take the strtod path. */
    p = load(put("float.txt", "0 1 1.5e3 2.5\n1 0 0.25 1\n"), TOPOMAP_FMT_AUTO);
    is_double(topomap_profile_total_bytes(p), 1500.25, 0, "1.5e3 + 0.25 bytes");
    topomap_profile_free(p);
}

static void test_malformed(void)
{
    const int A = TOPOMAP_FMT_AUTO;
    bad("neg.txt", "0 1 5\n1 0 -3\n", A, ":2: negative value '-3'");
    bad("negmsgs.txt", "0 1 5 1\n1 0 3 -1\n", A, ":2: negative value '-1'");
    bad("nan.txt", "# comment\n0 1 nan\n", A, ":2: 'nan' is not a finite number");
    bad("inf.txt", "0 1 5 inf\n", A, ":1: 'inf' is not a finite number");
    bad("huge.txt", "0 1 1e999\n", A, ":1: '1e999' is not a finite number");
    bad("alpha.txt", "0 1 5\n0 2 12abc\n", A, ":2: '12abc' is not a number");
    bad("alpharank.txt", "0 1 5\nx 1 5\n", A, ":2: rank 'x' is not a non-negative integer");
    bad("floatrank.txt", "0 1.0 5\n", A, ":1: rank '1.0' is not a non-negative integer");
    bad("negrank.txt", "0 1 5\n-1 0 5\n", A, ":2: negative rank '-1'");
    bad("bigrank.txt", "0 99999999999 5\n", A, ":1: rank 99999999999 is over the limit of 4194304 ranks");

    /* Ranks against each way of declaring the count. */
    bad("range-comment.txt", "# nranks=2\n0 1 5\n1 2 5\n", A, ":3: rank 2 out of range (nranks=2)");
    bad("range-header.txt", "2\n0 1 5\n0 3 1\n", A, ":3: rank 3 out of range (nranks=2)");
    bad("range-late.txt", "0 1 1\n0 5 1\n1 0 1\n# nranks=3\n", A,
        ":2: rank 5 out of range (nranks=3)");
    put("range-side.txt.meta", "nranks=2\n");
    bad("range-side.txt", "0 1 5\n5 0 5\n", A, ":2: rank 5 out of range (nranks=2 from the .meta file)");
    put("badside.txt.meta", "application=x\nnranks=lots\n");
    bad_file(put("badside.txt", "0 1 5\n"), A, EINVAL, ".meta:2: nranks 'lots' is not a positive integer",
             "bad nranks in the side file");
    bad("badnranks.txt", "# nranks=abc\n0 1 5\n", A, ":1: nranks 'abc' is not a positive integer");
    bad("zeronranks.txt", "# nranks=0\n0 1 5\n", A, ":1: nranks 0 is not a positive rank count");
    bad("zeroheader.txt", "0\n", A, ":1: rank count 0 is not a positive rank count");
    bad("conflict.txt", "# nranks=3\n4\n0 1 5\n", A,
        ":2: rank count 4 conflicts with nranks=3 given on line 1");
    bad("badheader.txt", "abc\n0 1 5\n", A, ":1: 'abc' is not a rank count");

    /* Field counts. */
    bad("fields2.txt", "0 1 5\n0 1\n", A, ":2: expected 3 or 4 fields (src dst bytes [msgs]), found 2");
    bad("fields5.txt", "0 1 5\n\n0 1 5 2 9\n", A, ":3: expected 3 or 4 fields (src dst bytes [msgs]), found 5");
    bad("mixed.txt", "0 1 5\n1 0 5 1\n", A, ":2: 4 fields, but the first entry line had 3");
    bad("late1.txt", "0 1 5\n7\n", A, ":2: expected 3 or 4 fields (src dst bytes [msgs]), found 1");
    bad("cut.txt", "0 1 5\n1 0", A, ":2: expected 3 or 4 fields (src dst bytes [msgs]), found 2");

    /* Dense matrices. */
    bad("short.mat", "0 1 2\n1 0\n2 1 0\n", A, ":2: 2 values in a row of a 3 x 3 matrix");
    bad("long.mat", "0 1 2\n1 0 1 1\n2 1 0\n", A, ":2: more than 3 values in a row of a 3 x 3 matrix");
    bad("trunc.dense", "0 1 2 3 4\n1 0 2 3 4\n# comment\n1 2 0 3 4\n", A,
        ":4: truncated dense matrix: 3 of 5 rows");
    bad("extra.mat", "0 1\n1 0\n1 1\n", A, ":3: more than 2 rows in a 2 x 2 matrix");
    bad("negdense.mat", "0 1\n-1 0\n", A, ":2: negative value '-1'");
    bad("nandense.mat", "0 NaN\n1 0\n", A, ":1: 'NaN' is not a finite number");
    bad("nrdense.mat", "# nranks=3\n0 1\n1 0\n", A, ":1: nranks=3 but the matrix is 2 x 2");
    bad("cutdense.mat", "0 1 2\n1 0 3\n2 3", A, ":3: 2 values in a row of a 3 x 3 matrix");

    /* Matrix Market. */
    const char *hdr = "%%MatrixMarket matrix coordinate real general\n";
    char buf[512];
#define MTX(name, body, want)                                                                    \
    do {                                                                                          \
        snprintf(buf, sizeof buf, "%s%s", hdr, body);                                             \
        bad(name, buf, A, want);                                                                  \
    } while (0)
    MTX("few.mtx", "3 3 3\n1 2 1\n2 3 1\n", ":4: truncated Matrix Market file: 2 of 3 entries");
    MTX("nosize.mtx", "% only a comment\n", ":2: truncated Matrix Market file: no size line");
    MTX("many.mtx", "3 3 1\n1 2 1\n2 3 1\n", ":4: more entries than the 1 declared");
    MTX("zero.mtx", "3 3 1\n0 2 1\n", ":3: index 0 out of range 1..3");
    MTX("four.mtx", "3 3 1\n1 4 1\n", ":3: index 4 out of range 1..3");
    MTX("rect.mtx", "3 4 1\n1 2 1\n", ":2: matrix is not square (3 x 4)");
    MTX("negmtx.mtx", "3 3 1\n1 2 -1\n", ":3: negative value '-1'");
    MTX("fieldsmtx.mtx", "3 3 1\n1 2\n", ":3: expected 3 fields (row col value), found 2");
    MTX("sizemtx.mtx", "3 3\n", ":2: expected a size line 'ROWS COLS ENTRIES', found 2 fields");
    bad("nobanner.mtx", "3 3 1\n1 2 1\n", A, ":1: missing '%%MatrixMarket' header line");
    bad("array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", A,
        ":1: unsupported Matrix Market format 'array' (only coordinate)");
    bad("complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", A,
        ":1: unsupported Matrix Market field 'complex'");
    bad("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", A,
        ":1: unsupported Matrix Market symmetry 'skew-symmetric'");
    /* The banner is recognised by content too, whatever the extension. */
    bad("content-mtx.txt", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n", A,
        ":3: truncated Matrix Market file: 1 of 2 entries");
    bad("forced-mtx.txt", "0 1 5\n", TOPOMAP_FMT_MTX, ":1: missing '%%MatrixMarket' header line");

    /* Empty inputs: no line number, just the file. */
    const char *paths[] = {put("empty.txt", ""), put("blank.txt", "\n  \n\t\n"),
                           put("comments.txt", "# application=x\n# nothing else\n"),
                           put("empty.mtx", ""), put("empty.mat", "# just a comment\n")};
    for (int k = 0; k < 5; k++) {
        char err[TOPOMAP_ERRLEN] = "", want[600];
        errno = 0;
        ok(topomap_profile_load(paths[k], A, err, sizeof err) == NULL && errno == EINVAL,
           "%s rejected", strrchr(paths[k], '/') + 1);
        snprintf(want, sizeof want, "%s: empty profile", paths[k]);
        is_str(err, want, "... as an empty profile");
    }

    /* Unreadable inputs keep the errno of the failure. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/does-not-exist.txt", tmpdir);
    bad_file(missing, A, ENOENT, ": No such file or directory", "missing file");
    bad_file(tmpdir, A, EISDIR, ": is a directory, not a regular file", "a directory");
    FILE *f = fopen(put("nul.txt", ""), "w");
    fwrite("0 1 5\n1 0\0 5\n", 1, 13, f);
    fclose(f);
    bad_file(made[nmade - 1], A, EINVAL, ":2: NUL byte in line", "binary file");

    char err[TOPOMAP_ERRLEN];
    errno = 0;
    ok(topomap_profile_load(NULL, A, err, sizeof err) == NULL && errno == EINVAL, "NULL path");
    ok(topomap_profile_load(missing, A, NULL, 0) == NULL && errno == ENOENT,
       "a NULL error buffer is allowed");
}

static void test_roundtrip(void)
{
    char path[600], err[TOPOMAP_ERRLEN] = "";
    topomap_graph_t g, h;
    topomap_profile_t *p = load(DATA "small.txt", TOPOMAP_FMT_AUTO);
    snprintf(path, sizeof path, "%s/written.txt", tmpdir);
    made[nmade++] = strdup(path);
    FILE *f = fopen(path, "w");
    ok(f && topomap_profile_write(p, f) == 0, "write small.txt back");
    if (f)
        fclose(f);
    topomap_profile_t *q = load(path, TOPOMAP_FMT_AUTO);
    if (p && q) {
        is_int(topomap_profile_nranks(q), 5, "round trip: nranks");
        ok(topomap_profile_has_msgs(q), "round trip: messages kept");
        for (int aff = 0; aff < 2; aff++)
            for (int sym = 0; sym < 2; sym++)
                ok(topomap_profile_graph(p, aff, sym, &g) == 0 &&
                       topomap_profile_graph(q, aff, sym, &h) == 0 && same_graph(&g, &h),
                   "round trip: same %s %s CSR", aff ? "message" : "byte",
                   sym ? "symmetric" : "directed");
        is_str(topomap_profile_meta(q, "application"), "handmade", "round trip: metadata kept");
        is_str(topomap_profile_meta(q, "date"), "2024-05-01", "round trip: date kept");
    }
    /* What the file looks like: nranks first, then metadata, then entries. */
    f = fopen(path, "r");
    char line[256] = "";
    ok(f && fgets(line, sizeof line, f) && !strcmp(line, "# nranks=5\n"), "first line is # nranks=5");
    ok(f && fgets(line, sizeof line, f) && !strcmp(line, "# application=handmade\n"),
       "then the metadata in file order");
    if (f)
        fclose(f);
    topomap_profile_free(q);
    topomap_profile_free(p);

    /* Values that are not small integers survive exactly, and a profile
     * without messages is written with 3 columns. */
    int src[] = {0, 1, 2}, dst[] = {1, 2, 0};
    double bytes[] = {0.1, 1e20, 123456789012345678.0};
    p = topomap_profile_create(4, 3, src, dst, bytes, NULL, err, sizeof err);
    f = fopen(path, "w");
    ok(p && f && topomap_profile_write(p, f) == 0, "write a created profile");
    if (f)
        fclose(f);
    q = load(path, TOPOMAP_FMT_AUTO);
    ok(q && !topomap_profile_has_msgs(q), "3 columns read back without messages");
    is_int(topomap_profile_nranks(q), 4, "silent rank 3 kept through nranks=4");
    ok(p && q && topomap_profile_graph(p, 0, 0, &g) == 0 && topomap_profile_graph(q, 0, 0, &h) == 0 &&
           same_graph(&g, &h),
       "0.1, 1e20 and 123456789012345678 read back bit for bit");
    topomap_profile_free(q);

    /* Write errors come back as -1 with the stream's errno. */
    f = fopen("/dev/full", "w");
    if (f) {
        errno = 0;
        ok(topomap_profile_write(p, f) < 0 && errno == ENOSPC, "writing to /dev/full: ENOSPC");
        fclose(f);
    } else {
        ok(1, "# SKIP no /dev/full");
    }
    errno = 0;
    ok(topomap_profile_write(NULL, stdout) < 0 && errno == EINVAL, "write(NULL) is EINVAL");
    topomap_profile_free(p);
}

static void test_workload(void)
{
    /* A shipped example, with its .meta side file as recorded. */
    const char *path = SRCDIR "/../examples/lammps-lj32k-16.txt";
    topomap_profile_t *p = load(path, TOPOMAP_FMT_AUTO);
    if (!p)
        return;
    /* The .meta side file records what the profiler counted. */
    const char *nnz = topomap_profile_meta(p, "nnz"), *tot = topomap_profile_meta(p, "total_bytes");
    is_int(topomap_profile_nranks(p), 16, "lammps-lj32k-16: 16 ranks");
    is_int(topomap_profile_nedges(p), 64, "lammps-lj32k-16: 64 entries");
    ok(nnz && topomap_profile_nedges(p) == strtoull(nnz, NULL, 10), "nnz agrees with the .meta");
    ok(tot && topomap_profile_total_bytes(p) == strtod(tot, NULL),
       "total bytes agree with the .meta (%.0f)", topomap_profile_total_bytes(p));
    is_double(topomap_profile_total_bytes(p), 334245456, 0, "... 334,245,456 bytes");
    ok(topomap_profile_has_msgs(p), "messages recorded");
    topomap_graph_t g;
    int good = topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) == 0;
    for (int i = 0; good && i < g.n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++) {
            /* w(i,j) == w(j,i): find j's entry for i. */
            int j = g.adj[e], found = 0;
            for (int64_t f = g.xadj[j]; f < g.xadj[j + 1]; f++)
                found |= g.adj[f] == i && g.w[f] == g.w[e];
            good &= found && j != i;
        }
    ok(good, "symmetric view is symmetric with an empty diagonal");
    topomap_profile_free(p);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s", "/tmp/topomap-profile-t.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        ok(0, "mkdtemp");
        return done_testing();
    }
    test_formats();
    test_duplicates_and_symmetric();
    test_meta();
    test_malformed();
    test_roundtrip();
    test_workload();
    for (int i = nmade - 1; i >= 0; i--) {
        unlink(made[i]);
        free(made[i]);
    }
    rmdir(tmpdir);
    return done_testing();
}
