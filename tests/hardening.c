/* SPDX-License-Identifier: BSD-3-Clause */
/* Regression tests of the hardening against hostile inputs (library side):
 * one section per finding, each failing on the code before the fix.
 *  - undefined behaviour: n + 1 with n = INT_MAX (profile.c), arithmetic on
 *    NULL after the last "procs:" entry (import_ompi.c; seen by UBSan);
 *  - silent wrong results: an all-zero message column, 1e308 entries, NUL
 *    bytes, '+' and blanks in numbers (two ranks on one core: metrics.c);
 *  - tiny inputs with a huge cost: declared sizes over the limits are
 *    refused before any allocation, YAML depth and size, many switches;
 *  - FIFOs and devices as inputs (a hang before; an alarm catches it);
 *  - control characters from the input in messages;
 *  - FILE:LINE in out-of-memory messages (under an address-space limit).
 * The CLI side (--threads, --slots, messages on a terminal) is in
 * hardening_cli.sh. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static char dir[] = "/tmp/topomap-hardening-XXXXXX";
static char err[TOPOMAP_ERRLEN];

static const char *path(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Write len bytes (NULs allowed) to dir/name; returns the path. */
static const char *put_bytes(const char *name, const char *data, size_t len)
{
    const char *p = path(name);
    FILE *f = fopen(p, "w");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
        perror(p);
        exit(1);
    }
    return p;
}

static const char *put(const char *name, const char *text)
{
    return put_bytes(name, text, strlen(text));
}

/* No byte of s is a control character (what a terminal would act on). */
static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

static void hung(int sig)
{
    (void)sig;
    static const char m[] = "Bail out! not finished in time (a reader blocked on a FIFO?)\n";
    if (write(1, m, sizeof m - 1) < 0)
        _exit(2);
    _exit(1);
}

/* ---- undefined behaviour ------------------------------------------------ */

static void test_ub(void)
{
    /* 12 bytes: n + 1 overflowed int in build_directed(). */
    topomap_profile_t *p =
        topomap_profile_load(put("intmax.txt", "# nranks=2147483647\n"), 0, err, sizeof err);
    ok(!p && errno == EINVAL, "nranks=INT_MAX: refused (was n + 1 overflowing)");
    like(err, "intmax.txt:1: nranks 2147483647 is over the limit of 4194304 ranks", "  %s", err);
    topomap_profile_free(p);

    /* After the last "procs:" entry the old loop computed NULL + 1. */
    put("w.0.prof", "# POINT TO POINT\nE\t0\t1\t10 bytes\t1 msgs sent\n"
                    "D\tMPI_COMM_WORLD\tprocs: 0,1\n");
    put("w.1.prof", "# POINT TO POINT\nE\t1\t0\t20 bytes\t2 msgs sent\n"
                    "D\tMPI_COMM_WORLD\tprocs: 0,1\n");
    const char *w[2] = {path("w.0.prof"), path("w.1.prof")};
    p = topomap_import_ompi(w, 2, 0, err, sizeof err);
    ok(p && topomap_profile_nranks(p) == 2 && topomap_profile_total_bytes(p) == 30,
       "procs: list read to its end without arithmetic on NULL: %s", p ? "2 ranks" : err);
    topomap_profile_free(p);
}

/* ---- silent wrong results ------------------------------------------------ */

static void test_zero_msgs(void)
{
    /* Every entry has zero bytes and zero messages: none is kept, but the
     * profile has a message column; written and read back it must still
     * have one (it lost it: map --affinity msgs then failed). */
    int src[2] = {0, 1}, dst[2] = {1, 0};
    double zero[2] = {0, 0};
    topomap_profile_t *p = topomap_profile_create(2, 2, src, dst, zero, zero, err, sizeof err);
    ok(p && topomap_profile_has_msgs(p) && topomap_profile_nedges(p) == 0,
       "all-zero message column: a profile with messages and no entry");
    FILE *f = fopen(path("zm.txt"), "w");
    ok(f && topomap_profile_write(p, f) == 0 && fclose(f) == 0, "written");
    topomap_profile_free(p);
    p = topomap_profile_load(path("zm.txt"), 0, err, sizeof err);
    topomap_graph_t g;
    ok(p && topomap_profile_has_msgs(p) && topomap_profile_nranks(p) == 2 &&
           topomap_profile_graph(p, TOPOMAP_AFFINITY_MSGS, 1, &g) == 0,
       "read back with its message column: %s", p ? "yes" : err);
    ok(p && topomap_profile_nedges(p) == 0, "... and still no entry");
    topomap_profile_free(p);
    /* Found by tests/fuzz/fuzz_ompi: monitoring files that record nothing
     * but zero lines gave a profile without a message column. */
    put("z.0.prof", "# POINT TO POINT\nE\t0\t1\t0 bytes\t0 msgs sent\n");
    put("z.1.prof", "# POINT TO POINT\n");
    const char *z[2] = {path("z.0.prof"), path("z.1.prof")};
    p = topomap_import_ompi(z, 2, 0, err, sizeof err);
    ok(p && topomap_profile_has_msgs(p) && topomap_profile_nedges(p) == 0,
       "Open MPI files without traffic: a profile with a message column: %s", p ? "yes" : err);
    topomap_profile_free(p);
}

static void test_totals(void)
{
    /* 1e308 + 1e308 = inf bytes, then NaN statistics; now one line. */
    topomap_profile_t *p =
        topomap_profile_load(put("big.txt", "0 1 1e308\n1 0 1e308\n"), 0, err, sizeof err);
    ok(!p && errno == EINVAL, "two entries of 1e308: refused");
    like(err, "big.txt:1: total bytes pass 1e+30, the limit of a profile", "  %s", err);
    topomap_profile_free(p);
    p = topomap_profile_load(put("bigm.txt", "0 1 1 1e300\n"), 0, err, sizeof err);
    ok(!p && errno == EINVAL, "1e300 messages: refused");
    like(err, "bigm.txt:1: total messages pass 1e+30", "  %s", err);
    topomap_profile_free(p);
    p = topomap_profile_load(put("bigsym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                               "2 2 1\n2 1 6e29\n"),
                             0, err, sizeof err);
    ok(!p && errno == EINVAL, "a symmetric entry counted twice past the limit: refused");
    like(err, "bigsym.mtx:3: total bytes pass", "  %s", err);
    topomap_profile_free(p);

    int src[2] = {0, 1}, dst[2] = {1, 0};
    double b[2] = {1e308, 1e308};
    p = topomap_profile_create(2, 2, src, dst, b, NULL, err, sizeof err);
    ok(!p && errno == EINVAL, "create: 1e308 twice refused");
    like(err, "entry 0: total bytes pass 1e+30", "  %s", err);
    topomap_profile_free(p);

    /* Just below the limit, every metric and statistic is finite even on
     * the longest routes of a big torus with a large hop cost. */
    p = topomap_profile_load(put("near.txt", "0 1 4.9e29 1e29\n1 0 4.9e29 1e29\n"), 0, err,
                             sizeof err);
    int dims[3] = {64, 64, 64}, node[2] = {0, 32 + 64 * 32 + 4096 * 32}, core[2] = {0, 0};
    topomap_topology_t *t = topomap_topology_torus(3, dims, NULL, 1, NULL, err, sizeof err);
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    ok(p && t && topomap_topology_set_hop_cost(t, 1e6) == 0 && topomap_eval(p, t, node, core, &m) == 0,
       "totals of 9.8e29 bytes evaluated");
    ok(isfinite(m.total_bytes) && isfinite(m.hop_bytes) && isfinite(m.sumcom) &&
           isfinite(m.maxcom) && isfinite(m.avg_hops_per_byte) && isfinite(m.congestion_max) &&
           isfinite(m.congestion_avg) && isfinite(m.internode_fraction),
       "... every metric finite (hop-bytes %g)", m.hop_bytes);
    int ks[1] = {1};
    topomap_stats_t st;
    ok(p && topomap_stats(p, ks, 1, &st) == 0 && isfinite(st.ch) && isfinite(st.cb) &&
           isfinite(st.cc) && isfinite(st.nbc) && isfinite(st.sp[0]),
       "... every statistic finite");
    topomap_topology_free(t);
    topomap_profile_free(p);
}

static void test_nul(void)
{
    /* A NUL in a topology.conf silently dropped the rest of the file. */
    static const char conf[] = "SwitchName=s0 Nodes=a[0-1]\n"
                               "SwitchName=s1 Nodes=b[0-1]\0\n"
                               "SwitchName=s2 Nodes=c[0-1]\n"
                               "SwitchName=top Switches=s[0-2]\n";
    topomap_topology_t *t =
        topomap_topology_load(put_bytes("nul.conf", conf, sizeof conf - 1), err, sizeof err);
    ok(!t && errno == EINVAL, "NUL byte in a topology.conf: refused");
    like(err, "nul.conf:2: NUL byte in line", "  %s", err);
    topomap_topology_free(t);
    static const char yaml[] = "network:\n  kind: mesh\n  dims: [2]\n\0node:\n  cores: 2\n";
    t = topomap_topology_load(put_bytes("nul.yaml", yaml, sizeof yaml - 1), err, sizeof err);
    ok(!t && errno == EINVAL, "NUL byte in a YAML topology: refused");
    like(err, "nul.yaml:4: NUL byte in line", "  %s", err);
    topomap_topology_free(t);
    put("side.txt", "0 1 5\n");
    put_bytes("side.txt.meta", "application=x\0y\nnranks=3\n", 24);
    topomap_profile_t *p = topomap_profile_load(path("side.txt"), 0, err, sizeof err);
    ok(!p && errno == EINVAL, "NUL byte in a profile's .meta side file: refused");
    like(err, "side.txt.meta:1: NUL byte in line", "  %s", err);
    topomap_profile_free(p);
    static const char map[] = "0 n0 0\n1 n1\0 0\n";
    int dims[1] = {2}, node[2], core[2];
    t = topomap_topology_torus(1, dims, NULL, 1, "n[0-1]", err, sizeof err);
    ok(topomap_mapping_read(put_bytes("nul.map", map, sizeof map - 1), t, 2, node, core, err,
                            sizeof err) < 0 && errno == EINVAL,
       "NUL byte in a mapping: refused");
    like(err, "nul.map:2: NUL byte in line", "  %s", err);
    topomap_topology_free(t);
}

static void test_strict_numbers(void)
{
    long v;
    uint64_t u;
    double d;
    static const char *const bad_long[] = {" 4", "+4", "4 ", "0x10", "-", "", "1e3", "4\n", NULL};
    int all = 1;
    for (int i = 0; bad_long[i]; i++)
        all &= topomap_parse_long(bad_long[i], &v) < 0 && errno == EINVAL;
    ok(all, "parse_long: blanks, '+', base prefixes, exponents refused");
    ok(topomap_parse_long("-42", &v) == 0 && v == -42 && topomap_parse_long("007", &v) == 0 &&
           v == 7,
       "parse_long: -42 and 007");
    ok(topomap_parse_long("9223372036854775808", &v) < 0 && errno == ERANGE,
       "parse_long: 2^63 is ERANGE");
    ok(topomap_parse_u64("18446744073709551615", &u) == 0 && u == UINT64_MAX,
       "parse_u64: 2^64 - 1");
    ok(topomap_parse_u64("18446744073709551616", &u) < 0 && errno == ERANGE &&
           topomap_parse_u64("-1", &u) < 0 && topomap_parse_u64(" 1", &u) < 0 &&
           topomap_parse_u64("+1", &u) < 0,
       "parse_u64: 2^64, -1, ' 1', '+1' refused");
    ok(topomap_parse_double("1.5", &d) == 0 && d == 1.5 && topomap_parse_double(" 1", &d) < 0 &&
           topomap_parse_double("inf", &d) < 0 && topomap_parse_double("nan", &d) < 0 &&
           topomap_parse_double("1e999", &d) < 0 && topomap_parse_double("1x", &d) < 0,
       "parse_double: 1.5; ' 1', inf, nan, 1e999, 1x refused");
    ok(topomap_parse_duration("2s", 1e-3, &d) == 0 && d == 2 &&
           topomap_parse_duration("2000ms", 1, &d) == 0 && d == 2 &&
           topomap_parse_duration("1.5min", 1, &d) == 0 && d == 90 &&
           topomap_parse_duration("2000", 1e-3, &d) == 0 && d == 2 &&
           topomap_parse_duration("2", 1, &d) == 0 && d == 2,
       "parse_duration: 2s, 2000ms, 1.5min; a bare number in the given unit");
    ok(topomap_parse_duration("s", 1, &d) < 0 && topomap_parse_duration("2 s", 1, &d) < 0 &&
           topomap_parse_duration("2sec", 1, &d) < 0 && topomap_parse_duration("ms", 1, &d) < 0 &&
           topomap_parse_duration("2e", 1, &d) < 0 && topomap_parse_duration("", 1, &d) < 0,
       "parse_duration: s, '2 s', 2sec, ms, 2e, '' refused");

    int dims[1] = {2};
    topomap_topology_t *t = topomap_topology_torus(1, dims, NULL, 4, "n[0-1]", err, sizeof err);
    static const char *const bad_slots[] = {" +4", "+4", "4(x+2)", "4(x 2)", " 4", "4,+4", NULL};
    for (int i = 0; bad_slots[i]; i++) {
        topomap_alloc_t *a = topomap_alloc_create(t, "n[0-1]", bad_slots[i], err, sizeof err);
        ok(!a && errno == EINVAL, "slots '%s' refused: %s", bad_slots[i], a ? "accepted" : err);
        topomap_alloc_free(a);
    }
    topomap_alloc_t *a = topomap_alloc_create(t, "n[0-1]", "2(x2)", err, sizeof err);
    ok(a && topomap_alloc_nslots(a) == 4, "slots '2(x2)' still read");
    topomap_alloc_free(a);
    int node[1], core[1];
    ok(topomap_mapping_read(put("plus.map", "0 n0 +1\n"), t, 1, node, core, err, sizeof err) < 0,
       "mapping: core '+1' refused");
    like(err, "plus.map:1: malformed line: core '+1' is not an integer", "  %s", err);
    topomap_topology_free(t);
    t = topomap_topology_load(put("plus.yaml", "network:\n  kind: mesh\n  dims: [+4]\n"), err,
                              sizeof err);
    ok(!t, "YAML: dims [+4] refused");
    like(err, "plus.yaml:3:10: 'dims' must be an integer, not a plain scalar '+4'", "  %s", err);
    topomap_topology_free(t);
}

/* ---- input limits ---------------------------------------------------------- */

static void refused(const char *what, void *obj, int e, const char *want)
{
    ok(!obj && errno == e, "%s: refused (errno %d)", what, errno);
    like(err, want, "  %s", err);
}

static void test_limits(void)
{
    /* Ten bytes declaring 200,000,000 ranks: 6.7 s and 3 GB before. */
    topomap_profile_t *p = topomap_profile_load(put("decl.txt", "200000000\n"), 0, err, sizeof err);
    refused("a 10-byte profile of 200,000,000 ranks", p,
            EINVAL, "decl.txt:1: rank count 200000000 is over the limit of 4194304 ranks");
    p = topomap_profile_load(
        put("decl.mtx", "%%MatrixMarket matrix coordinate real general\n5000000 5000000 0\n"), 0,
        err, sizeof err);
    refused("a Matrix Market size over the limit", p, EINVAL,
            "decl.mtx:2: matrix size 5000000 is over the limit");
    p = topomap_profile_load(put("far.txt", "0 4194304 1\n"), 0, err, sizeof err);
    refused("an undeclared rank at the limit", p, EINVAL,
            "far.txt:1: rank 4194304 is over the limit of 4194304 ranks");
    p = topomap_profile_load(put("atlim.txt", "0 4194303 1\n"), 0, err, sizeof err);
    ok(p && topomap_profile_nranks(p) == 4194304, "rank 4194303: a profile of 4194304 ranks");
    topomap_profile_free(p);
    put("sidebig.txt", "0 1 1\n");
    put("sidebig.txt.meta", "nranks=300000000\n");
    p = topomap_profile_load(path("sidebig.txt"), 0, err, sizeof err);
    refused("nranks over the limit in a .meta file", p, EINVAL,
            "sidebig.txt.meta:1: nranks 300000000 is over the limit");
    put("big.0.prof", "# POINT TO POINT\nE\t0\t99999999\t1 bytes\t1 msgs sent\n");
    const char *one[1] = {path("big.0.prof")};
    p = topomap_import_ompi(one, 1, 0, err, sizeof err);
    refused("an Open MPI rank over the limit", p, EINVAL,
            "big.0.prof:2: rank is over the limit of 4194304 ranks");

    /* 44 bytes of YAML for 16.7 M nodes: 4 s and 722 MB before. */
    topomap_topology_t *t = topomap_topology_load(
        put("t.yaml", "network: {kind: torus, dims: [256,256,256]}\n"), err, sizeof err);
    refused("a YAML torus of 16.7 M nodes", t, EINVAL, "more than 1048576 nodes");
    /* 33 bytes of topology.conf: 4 s and 813 MB before. */
    t = topomap_topology_load(put("n.conf", "SwitchName=s Nodes=n[0-16777215]\n"), err,
                              sizeof err);
    refused("a topology.conf of 16.7 M nodes", t, EINVAL,
            "n.conf:1: Nodes=: hostlist 'n[0-16777215]' expands to more than 1048576 names");
    topomap_hostlist_t *hl = topomap_hostlist_parse("a[0-1023]b[0-1024]", err, sizeof err);
    refused("a hostlist whose product passes the limit", hl, EINVAL,
            "expands to more than 1048576 names");
    hl = topomap_hostlist_parse("n[0-1048575]", err, sizeof err);
    ok(hl && topomap_hostlist_count(hl) == 1048576, "a hostlist of exactly 1048576 names");
    topomap_hostlist_free(hl);
    /* Aliases repeat a long expression: the names stop at the network's size. */
    t = topomap_topology_load(put("alias.yaml", "network: {kind: mesh, dims: [4]}\n"
                                                "nodes: [&a 'n[0-1048575]', *a, *a, *a]\n"),
                              err, sizeof err);
    refused("aliased hostlists past the network's size", t, EINVAL,
            "alias.yaml:2:9: 'nodes' names more than the 4 hosts of the network");

    /* Deeply nested YAML was quadratic inside libyaml (100 k: > 20 s). */
    size_t deep = 100000;
    char *y = malloc(2 * deep + 2);
    memset(y, '[', deep);
    memset(y + deep, ']', deep);
    y[2 * deep] = '\n';
    t = topomap_topology_load(put_bytes("deep.yaml", y, 2 * deep + 1), err, sizeof err);
    refused("YAML nested 100,000 deep", t, EINVAL,
            "deep.yaml:1:65: lists and mappings nested more than 64 deep");
    free(y);
    /* More YAML nodes than the limit, each one character. */
    size_t many = (size_t)TOPOMAP_MAX_YAML_NODES + 10;
    y = malloc(2 * many + 16);
    size_t k = (size_t)sprintf(y, "x: [");
    for (size_t i = 0; i < many; i++) {
        y[k++] = '1';
        y[k++] = ',';
    }
    y[k++] = ']';
    y[k++] = '\n';
    t = topomap_topology_load(put_bytes("wide.yaml", y, k), err, sizeof err);
    refused("a YAML of more than 2 M nodes", t, EINVAL, "wide.yaml:1:");
    like(err, "more than 2097152 YAML nodes", "  %s", err);
    free(y);
    /* 101 MB passed the 64 MiB cap (the buffer doubled past it). */
    int fd = open(path("huge.yaml"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ok(fd >= 0 && ftruncate(fd, 101L << 20) == 0 && close(fd) == 0, "a sparse 101 MB file");
    t = topomap_topology_load(path("huge.yaml"), err, sizeof err);
    refused("a 101 MB topology", t, EFBIG, "huge.yaml: 105906176 bytes, over the 67108864");

    /* Many switches: the name checks were quadratic (100 k: > 20 s). Linear
     * now: 300,000 switches load well inside the alarm set in main(). */
    int nsw = 300000;
    FILE *f = fopen(path("many.conf"), "w");
    fprintf(f, "SwitchName=top Switches=s[0-%d]\n", nsw - 1);
    for (int i = 0; i < nsw; i++)
        fprintf(f, "SwitchName=s%d Nodes=n%d\n", i, i);
    fclose(f);
    t = topomap_topology_load(path("many.conf"), err, sizeof err);
    ok(t && topomap_topology_nnodes(t) == nsw, "a topology.conf of 300,001 switches: %s",
       t ? "loaded" : err);
    ok(t && topomap_topology_hops(t, 0, nsw - 1) == 4, "... n0 to n299999: 4 hops");
    topomap_topology_free(t);
    /* Hops climb the tree switch by switch: its height is bounded. */
    f = fopen(path("tall.conf"), "w");
    fprintf(f, "SwitchName=s0 Nodes=n0\n");
    for (int i = 1; i <= 20; i++)
        fprintf(f, "SwitchName=s%d Switches=s%d\n", i, i - 1);
    fclose(f);
    t = topomap_topology_load(path("tall.conf"), err, sizeof err);
    refused("a chain of 21 switches", t, EINVAL,
            "tall.conf:5: switch 's4' is 16 levels below the top: at most 16 switch levels");
    f = fopen(path("wide.conf"), "w");
    fprintf(f, "SwitchName=top Nodes=n0\n");
    for (long i = 0; i < TOPOMAP_MAX_SWITCHES; i++)
        fprintf(f, "SwitchName=s%ld\n", i);
    fclose(f);
    t = topomap_topology_load(path("wide.conf"), err, sizeof err);
    refused("more than 1048576 switches", t, EINVAL,
            "wide.conf:1048577: more than 1048576 switches");

    /* Slots: counted before the slot arrays exist. */
    int dims[1] = {4};
    t = topomap_topology_torus(1, dims, NULL, 1, "n[0-3]", err, sizeof err);
    topomap_alloc_t *a = topomap_alloc_create(t, "n[0-3]", "8388608(x4)", err, sizeof err);
    refused("33,554,432 slots", a, EINVAL, "33554432 slots is over the limit of 16777216");
    topomap_topology_free(t);

    /* Threads: the OpenMP runtime aborts when it cannot start them. */
    int src[1] = {0}, dst[1] = {1}, r2s[2];
    double b[1] = {1};
    p = topomap_profile_create(2, 1, src, dst, b, NULL, err, sizeof err);
    t = topomap_topology_torus(1, dims, NULL, 1, "n[0-3]", err, sizeof err);
    a = topomap_alloc_create(t, "n[0-3]", NULL, err, sizeof err);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.nthreads = 4096;
    ok(topomap_map("block", p, a, &o, r2s, err, sizeof err) < 0 && errno == EINVAL,
       "4096 threads refused");
    like(err, "4096 threads: not in 0..1024", "  %s", err);
    topomap_alloc_free(a);
    topomap_topology_free(t);
    topomap_profile_free(p);
}

/* ---- FIFOs and devices ---------------------------------------------------- */

static void test_special_files(void)
{
    const char *fifo = path("fifo");
    if (mkfifo(fifo, 0600) < 0) {
        ok(0, "mkfifo: %s", strerror(errno));
        return;
    }
    const char *fifo_msg = "fifo: is a FIFO (named pipe), not a regular file";
    void *o = topomap_profile_load(fifo, 0, err, sizeof err);
    refused("profile from a FIFO", o, EINVAL, fifo_msg);
    o = topomap_topology_load(fifo, err, sizeof err);
    refused("topology from a FIFO", o, EINVAL, fifo_msg);
    int dims[1] = {2}, node[2], core[2];
    topomap_topology_t *t = topomap_topology_torus(1, dims, NULL, 1, "n[0-1]", err, sizeof err);
    ok(topomap_mapping_read(fifo, t, 2, node, core, err, sizeof err) < 0 && errno == EINVAL,
       "mapping from a FIFO: refused");
    like(err, fifo_msg, "  %s", err);
    ok(topomap_topology_set_node_hwloc(t, fifo, err, sizeof err) < 0 && errno == EINVAL,
       "hwloc XML from a FIFO: refused");
    like(err, fifo_msg, "  %s", err);
    o = topomap_topology_load(put("st.yaml", "network: {kind: fat-tree, slurm_topology: fifo}\n"),
                              err, sizeof err);
    refused("slurm_topology: a FIFO", o, EINVAL, "st.yaml:1:43: slurm_topology: ");
    like(err, fifo_msg, "  %s", err);
    o = topomap_topology_load(put("hw.yaml", "network: {kind: mesh, dims: [2]}\nnode: {hwloc: fifo}\n"),
                              err, sizeof err);
    refused("node hwloc: a FIFO", o, EINVAL, fifo_msg);
    const char *fifos[1] = {fifo};
    o = topomap_import(fifos, 1, 0, err, sizeof err);
    refused("import of a FIFO", o, EINVAL, fifo_msg);
    ok(topomap_import_is_ompi(fifo) < 0, "import_is_ompi(FIFO): -1, no hang");
    put("pf.txt", "0 1 1\n");
    if (mkfifo(path("pf.txt.meta"), 0600) == 0) {
        o = topomap_profile_load(path("pf.txt"), 0, err, sizeof err);
        refused("a FIFO as the .meta side file", o, EINVAL, "pf.txt.meta: is a FIFO");
    }
    /* /dev/zero read 2 GB before giving the wrong reason. */
    o = topomap_profile_load("/dev/zero", 0, err, sizeof err);
    refused("profile /dev/zero", o, EINVAL, "/dev/zero: is a character device, not a regular file");
    ok(topomap_mapping_read("/dev/zero", t, 2, node, core, err, sizeof err) < 0,
       "mapping /dev/zero: refused");
    like(err, "/dev/zero: is a character device", "  %s", err);
    o = topomap_topology_load("/dev/null", err, sizeof err);
    refused("topology /dev/null", o, EINVAL, "/dev/null: is a character device");
    o = topomap_topology_load(dir, err, sizeof err);
    refused("topology: a directory", o, EISDIR, ": is a directory, not a regular file");
    topomap_topology_free(t);
}

/* ---- messages ---------------------------------------------------------------- */

static void no_controls(const char *what, int failed)
{
    ok(failed && printable(err), "%s: message without control characters", what);
    if (!printable(err) || !failed)
        printf("#   %s\n", topomap_printable(err, (char[TOPOMAP_ERRLEN]){0}, TOPOMAP_ERRLEN));
}

static void test_messages(void)
{
    char buf[64];
    is_str(topomap_printable("caf\xc3\xa9 \xe2\x86\x92 ok", buf, sizeof buf),
           "caf\xc3\xa9 \xe2\x86\x92 ok", "printable: UTF-8 text kept");
    is_str(topomap_printable("a\x1b[2Jb\rc\td\x7f", buf, sizeof buf), "a?[2Jb?c?d?",
           "printable: ESC, CR, tab, DEL become '?'");
    /* One '?' per byte of a refused sequence: the text never grows. */
    is_str(topomap_printable("x\xc2\x9b" "31m\x9by", buf, sizeof buf), "x??31m?y",
           "printable: C1 CSI as UTF-8 and as a raw byte become '?'");
    is_str(topomap_printable("\xe2\x80\xae" "abc\xc0\xaf\xed\xa0\x80", buf, sizeof buf),
           "???abc?????", "printable: bidi override, overlong and surrogate sequences");
    is_str(topomap_printable("abcdefghij", buf, 8), "abcd...", "printable: cut with '...'");
    is_str(topomap_printable("ab\xc3\xa9", buf, 4), "ab?", "printable: a sequence cut in two");

    static const char esc[] = "\x1b]0;owned\x07\x1b[2J\r";
    char text[256];
    snprintf(text, sizeof text, "0 1 %s\n", esc);
    no_controls("profile value", !topomap_profile_load(put("esc.txt", text), 0, err, sizeof err));
    like(err, "esc.txt:1: '?]0;owned??[2J' is not a number", "  %s", err);
    snprintf(text, sizeof text, "# POINT TO POINT\n%s\t0\t1\t1 bytes\t1 msgs sent\n", esc);
    const char *one[1] = {put("e.0.prof", text)};
    no_controls("Open MPI line type", !topomap_import_ompi(one, 1, 0, err, sizeof err));
    snprintf(text, sizeof text, "SwitchName=s0 Nodes=n0 %s=1\n", esc);
    no_controls("topology.conf key", !topomap_topology_load(put("esc.conf", text), err, sizeof err));
    snprintf(text, sizeof text, "SwitchName=s0 Nodes=n[0-%s]\n", esc);
    no_controls("topology.conf hostlist",
                !topomap_topology_load(put("esc2.conf", text), err, sizeof err));
    snprintf(text, sizeof text, "n[%s]", esc);
    no_controls("hostlist", !topomap_hostlist_parse(text, err, sizeof err));
    /* Host names go to mapping files and terminals: control characters in
     * them are refused, not only escaped in messages. */
    ok(!topomap_hostlist_parse("n1,n\x1bPx", err, sizeof err) && errno == EINVAL,
       "a host name with ESC refused");
    like(err, "control character 0x1b in a host name", "  %s", err);
    int dims[1] = {2}, node[1], core[1];
    topomap_topology_t *t = topomap_topology_torus(1, dims, NULL, 1, "n[0-1]", err, sizeof err);
    snprintf(text, sizeof text, "n0,x%s", esc);
    no_controls("allocation host", !topomap_alloc_create(t, text, NULL, err, sizeof err));
    no_controls("allocation slots", !topomap_alloc_create(t, "n0", esc, err, sizeof err));
    snprintf(text, sizeof text, "0 host%s 0\n", esc);
    no_controls("mapping host",
                topomap_mapping_read(put("esc.map", text), t, 1, node, core, err, sizeof err) < 0);
    snprintf(text, sizeof text, "network:\n  kind: \"%s\"\n", "\\e]0;x\\a\\r");
    no_controls("YAML value", !topomap_topology_load(put("esc.yaml", text), err, sizeof err));
    no_controls("a file name", !topomap_profile_load(path("no\x1b[1msuch\r.txt"), 0, err,
                                                     sizeof err));
    topomap_topology_free(t);
}

/* ---- FILE:LINE when memory runs out ------------------------------------------ */

/* Run f in a child whose address space is capped at its current size plus
 * extra bytes; the child prints f's message on its stdout pipe. */
static int in_small_space(long extra, int (*f)(void), char *out, size_t len)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        long pages = 0, page = sysconf(_SC_PAGESIZE);
        FILE *s = fopen("/proc/self/statm", "r");
        if (!s || fscanf(s, "%ld", &pages) != 1)
            _exit(3);
        fclose(s);
        struct rlimit rl = {(rlim_t)(pages * page + extra), (rlim_t)(pages * page + extra)};
        if (setrlimit(RLIMIT_AS, &rl) < 0)
            _exit(3);
        int rc = f();
        int e = errno;
        if (write(pfd[1], err, strlen(err)) < 0)
            _exit(4);
        _exit(rc < 0 && e == ENOMEM ? 0 : 5);
    }
    close(pfd[1]);
    ssize_t n = read(pfd[0], out, len - 1);
    out[n > 0 ? n : 0] = 0;
    close(pfd[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int load_big_profile(void)
{
    topomap_profile_t *p = topomap_profile_load(path("oom.txt"), 0, err, sizeof err);
    topomap_profile_free(p);
    return p ? 0 : -1;
}

static int load_big_conf(void)
{
    topomap_topology_t *t = topomap_topology_load(path("oom.conf"), err, sizeof err);
    topomap_topology_free(t);
    return t ? 0 : -1;
}

static int load_big_yaml(void)
{
    topomap_topology_t *t = topomap_topology_load(path("oom.yaml"), err, sizeof err);
    topomap_topology_free(t);
    return t ? 0 : -1;
}

static void test_oom(void)
{
    if (UNDER_ASAN) {
        printf("ok %d # SKIP out-of-memory messages: AddressSanitizer needs an unlimited "
               "address space\n", ++tap_n);
        return;
    }
    char out[TOPOMAP_ERRLEN];
    /* 4 M ranks need 64 MB of row arrays at the least (the two views' offsets);
     * 16 MB more are given. */
    put("oom.txt", "# nranks=4194304\n0 1 1\n");
    ok(in_small_space(16L << 20, load_big_profile, out, sizeof out) == 0,
       "profile of 4 M ranks in a small address space: ENOMEM");
    like(out, "oom.txt:1: out of memory for a profile of 4194304 ranks and 1 entries", "  %s",
         out);
    put("oom.conf", "SwitchName=s Nodes=node-with-a-long-name-to-fill-memory[0-1048575]\n");
    ok(in_small_space(16L << 20, load_big_conf, out, sizeof out) == 0,
       "topology.conf of 1 M nodes in a small address space: ENOMEM");
    like(out, "oom.conf:1: ", "  %s", out);
    like(out, "out of memory", "  %s", out);
    put("oom.yaml", "network: {kind: torus, dims: [1024, 1024]}\n"
                    "nodes: 'node-with-a-long-name-to-fill-memory[0-1048575]'\n");
    ok(in_small_space(16L << 20, load_big_yaml, out, sizeof out) == 0,
       "YAML of 1 M nodes in a small address space: ENOMEM");
    like(out, "oom.yaml:2:8: ", "  %s", out);
    like(out, "out of memory", "  %s", out);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    signal(SIGALRM, hung);
    alarm(UNDER_ASAN ? 600 : 120);
    /* First: its address-space limit is the process's size plus a margin,
     * and the free heap the other tests leave behind (tens of MB, never
     * returned) would hold the allocations it expects to fail. */
    test_oom();
    test_ub();
    test_zero_msgs();
    test_totals();
    test_nul();
    test_strict_numbers();
    test_limits();
    test_special_files();
    test_messages();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    return done_testing();
}
