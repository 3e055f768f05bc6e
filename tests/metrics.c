/* SPDX-License-Identifier: BSD-3-Clause */
/* Metrics (hop-bytes, dilation, SumCom, MaxCom, internode share) computed by
 * hand on a tiny torus, their independence from the thread count, and the
 * mapping files: every write format and every read error class. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tap.h"
#include "topomap.h"

static char tmpdir[] = "/tmp/topomap-metrics-XXXXXX";

/* Write @text to a fresh file in tmpdir; returns its path (static buffer). */
static const char *file_with(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
    return path;
}

/* Read a mapping from @text for @nranks ranks; 0 or -1, message in err. */
static int read_text(const topomap_topology_t *t, const char *text, int nranks, int *node,
                     int *core, char *err, size_t errlen)
{
    err[0] = 0;
    return topomap_mapping_read(file_with("map.txt", text), t, nranks, node, core, err, errlen);
}

static void hand_computed(void)
{
    char err[TOPOMAP_ERRLEN];
    /* A 4 x 2 torus, wraparound along x only: node = x + 4y, nodes n[0-7].
     * Inside a node: 2 sockets x 2 cores; cost 0.5 between sockets, 0.25
     * inside a socket, 0.125 from a core to itself. */
    int dims[2] = {4, 2}, wrap[2] = {1, 0};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 1, "n[0-7]", err, sizeof err);
    ok(t != NULL, "4x2 torus: %s", t ? "built" : err);
    if (!t)
        return;
    int arity[2] = {2, 2};
    double cost[3] = {0.5, 0.25, 0.125};
    ok(topomap_topology_set_node_levels(t, 2, arity, cost, err, sizeof err) == 0,
       "2 sockets x 2 cores per node");
    is_int(topomap_topology_cores(t), 4, "4 cores per node");

    /* Placement (node, core) and the hops it implies:
     *   r0 (n0, 0)  r1 (n0, 2) other socket  r4 (n0, 1) same socket as r0
     *   r2 (n3, 0): x 3 -> 0 wraps, 1 hop from n0
     *   r3 (n6, 0) = (2, 1): 2 hops from n3 = (3, 0), 3 hops from n0 (x 2, y 1) */
    int node[5] = {0, 0, 3, 6, 0}, core[5] = {0, 2, 0, 0, 1};
    int src[8] = {0, 1, 0, 2, 3, 1, 4, 0};
    int dst[8] = {1, 0, 2, 3, 3, 3, 0, 4};
    double bytes[8] = {200, 50, 10, 7, 5, 20, 8, 2};
    topomap_profile_t *p = topomap_profile_create(5, 8, src, dst, bytes, NULL, err, sizeof err);
    ok(p != NULL, "5-rank profile: %s", p ? "built" : err);
    if (!p) {
        topomap_topology_free(t);
        return;
    }

    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    ok(topomap_eval(p, t, node, core, &m) == 0, "eval succeeds");
    /* total 200+50+10+7+5+20+8+2 = 302 */
    is_double(m.total_bytes, 302, 0, "total bytes include self traffic");
    /* hop-bytes: 10*1 (r0->r2) + 7*2 (r2->r3) + 20*3 (r1->r3), rest on one node */
    is_double(m.hop_bytes, 84, 0, "hop-bytes by hand (directed, with wraparound)");
    is_double(m.avg_hops_per_byte, 84.0 / 302, 1e-15, "avg hops per byte = 84/302");
    is_int(m.max_dilation, 3, "max dilation 3 (r1 -> r3)");
    /* SumCom (one network hop costs 1):
     *   r0->r1 200*0.5 + r1->r0 50*0.5 + r4->r0 8*0.25 + r0->r4 2*0.25
     *   + r3->r3 5*0.125 + 10*1 + 7*2 + 20*3
     *   = 100 + 25 + 2 + 0.5 + 0.625 + 10 + 14 + 60 = 212.125 */
    is_double(m.sumcom, 212.125, 1e-12, "SumCom with intra-node level costs");
    is_double(m.maxcom, 100, 0, "MaxCom is the socket-crossing r0 -> r1 (200 * 0.5)");
    is_double(m.internode_bytes, 37, 0, "internode bytes 10 + 7 + 20");
    is_double(m.internode_fraction, 37.0 / 302, 1e-15, "internode fraction 37/302");

    /* Moving r1 next to r0 on its socket lowers SumCom but not hop-bytes. */
    core[1] = 1;
    core[4] = 2;
    ok(topomap_eval(p, t, node, core, &m) == 0, "eval of the swapped cores");
    /* r0->r1 200*0.25 + r1->r0 50*0.25 + r4<->r0 10*0.5 + 0.625 + 84 = 152.125 */
    is_double(m.sumcom, 152.125, 1e-12, "SumCom sees the socket level");
    is_double(m.hop_bytes, 84, 0, "hop-bytes does not");
    is_double(m.maxcom, 60, 0, "MaxCom now the 3-hop r1 -> r3 (20 * 3)");

    /* Everyone on one node: no network at all. */
    int one[5] = {5, 5, 5, 5, 5}, cores5[5] = {0, 1, 2, 3, 3};
    ok(topomap_eval(p, t, one, cores5, &m) == 0, "all on node 5");
    ok(m.hop_bytes == 0 && m.max_dilation == 0 && m.internode_bytes == 0 &&
           m.internode_fraction == 0,
       "one node: no hop-bytes, dilation 0, nothing leaves the node");

    /* Errors. */
    int badnode[5] = {0, 0, 8, 6, 0}, badcore[5] = {0, 4, 0, 0, 1}, neg[5] = {0, -1, 0, 0, 0};
    errno = 0;
    ok(topomap_eval(p, t, badnode, core, &m) < 0 && errno == EINVAL, "node 8 of 8: EINVAL");
    errno = 0;
    ok(topomap_eval(p, t, node, badcore, &m) < 0 && errno == EINVAL, "core 4 of 4: EINVAL");
    errno = 0;
    ok(topomap_eval(p, t, neg, core, &m) < 0 && errno == EINVAL, "node -1: EINVAL");
    errno = 0;
    ok(topomap_eval(NULL, t, node, core, &m) < 0 && errno == EINVAL, "NULL profile: EINVAL");

    /* Through an allocation: n5 gets 2 slots (cores 0, 1), n2 gets 3. */
    topomap_alloc_t *a = topomap_alloc_create(t, "n[5,2]", "2,3", err, sizeof err);
    ok(a != NULL, "allocation n[5,2] 2,3: %s", a ? "built" : err);
    if (a) {
        /* slots: 0 (n5,0) 1 (n5,1) 2 (n2,0) 3 (n2,1) 4 (n2,2).
         * r0 s0, r1 s2, r2 s1, r3 s3, r4 s4. n5 = (1,1), n2 = (2,0): 2 hops.
         * Network: r0->r1 200, r1->r0 50, r0->r4 2, r4->r0 8, r2->r3 7: 267 bytes,
         * hop-bytes 534. Same node: r0->r2 (n5), r1->r3 and r3->r3 (n2). */
        int r2s[5] = {0, 2, 1, 3, 4};
        ok(topomap_eval_slots(p, a, r2s, &m) == 0, "eval through slots");
        is_double(m.hop_bytes, 534, 0, "hop-bytes through slots");
        is_double(m.internode_bytes, 267, 0, "internode bytes through slots");
        /* sumcom: 534 + r0->r2 10*0.25 (n5 cores 0,1: same socket) + r1->r3 20*0.25
         *         (n2 cores 0,1) + r3->r3 5*0.125 = 534 + 2.5 + 5 + 0.625 */
        is_double(m.sumcom, 542.125, 1e-12, "SumCom through slots");
        int bad[5] = {0, 2, 1, 3, 5};
        errno = 0;
        ok(topomap_eval_slots(p, a, bad, &m) < 0 && errno == EINVAL, "slot 5 of 5: EINVAL");
        /* The hop-bytes alone: the same number, and the same errors. */
        double hb = -1;
        ok(topomap_hop_bytes_slots(p, a, r2s, &hb) == 0, "hop-bytes alone through slots");
        is_double(hb, 534, 0, "hop-bytes alone: 534, as the full evaluation");
        errno = 0;
        ok(topomap_hop_bytes_slots(p, a, bad, &hb) < 0 && errno == EINVAL,
           "hop-bytes alone, slot 5 of 5: EINVAL");
        errno = 0;
        ok(topomap_hop_bytes_slots(p, a, r2s, NULL) < 0 && errno == EINVAL,
           "hop-bytes alone, NULL result: EINVAL");
        errno = 0;
        ok(topomap_hop_bytes_slots(NULL, a, r2s, &hb) < 0 && errno == EINVAL,
           "hop-bytes alone, NULL profile: EINVAL");
    }
    topomap_alloc_free(a);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

static int same_bits(double a, double b)
{
    return !memcmp(&a, &b, sizeof a);
}

/* Bit-identical results for 1 and 2 threads on a profile big enough that the
 * evaluation runs in parallel, and agreement with a plain serial sum. */
static void thread_independence(void)
{
    char err[TOPOMAP_ERRLEN];
    int dims[3] = {8, 8, 8}, wrap[3] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    ok(t != NULL, "8x8x8 torus: %s", t ? "built" : err);
    if (!t)
        return;
    enum { N = 2048, PER = 24 };
    int *src = malloc(sizeof(int) * N * PER), *dst = malloc(sizeof(int) * N * PER);
    double *bytes = malloc(sizeof(double) * N * PER);
    int *node = malloc(sizeof(int) * N), *core = malloc(sizeof(int) * N);
    uint64_t x = 12345;
    for (int i = 0; i < N * PER; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        src[i] = i / PER;
        dst[i] = (int)((x >> 33) % N);
        bytes[i] = (double)((x >> 13) % 100000) + 0.1 * (double)(i % 7);
    }
    for (int r = 0; r < N; r++) {
        node[r] = (r * 37) % 512;
        core[r] = r % 4;
    }
    topomap_profile_t *p =
        topomap_profile_create(N, (size_t)N * PER, src, dst, bytes, NULL, err, sizeof err);
    ok(p != NULL, "random profile of %d entries: %s", N * PER, p ? "built" : err);
    if (p) {
        topomap_metrics_t m1 = TOPOMAP_METRICS_INIT, m2 = TOPOMAP_METRICS_INIT;
#ifdef _OPENMP
        omp_set_num_threads(1);
#endif
        int rc1 = topomap_eval(p, t, node, core, &m1);
#ifdef _OPENMP
        omp_set_num_threads(2);
#endif
        int rc2 = topomap_eval(p, t, node, core, &m2);
        /* Field by field: memcmp of the structs would also compare padding. */
        ok(rc1 == 0 && rc2 == 0 && same_bits(m1.total_bytes, m2.total_bytes) &&
               same_bits(m1.hop_bytes, m2.hop_bytes) &&
               same_bits(m1.avg_hops_per_byte, m2.avg_hops_per_byte) &&
               m1.max_dilation == m2.max_dilation && same_bits(m1.sumcom, m2.sumcom) &&
               same_bits(m1.maxcom, m2.maxcom) &&
               same_bits(m1.internode_bytes, m2.internode_bytes) &&
               same_bits(m1.internode_fraction, m2.internode_fraction),
           "1 and 2 threads give bit-identical metrics");
        /* An independent total from the raw (unsorted, duplicated) entries. */
        double hb = 0, tot = 0;
        int dil = 0;
        for (int i = 0; i < N * PER; i++) {
            int h = topomap_topology_hops(t, node[src[i]], node[dst[i]]);
            hb += bytes[i] * h;
            tot += bytes[i];
            if (h > dil)
                dil = h;
        }
        is_double(m1.hop_bytes, hb, 1e-9 * hb, "hop-bytes agrees with a plain sum");
        is_double(m1.total_bytes, tot, 1e-9 * tot, "total bytes agrees");
        is_int(m1.max_dilation, dil, "max dilation agrees");
        ok(m1.max_dilation <= topomap_topology_diameter(t), "dilation within the diameter 12");
    }
    topomap_profile_free(p);
    topomap_topology_free(t);
    free(src);
    free(dst);
    free(bytes);
    free(node);
    free(core);
}

/* Contents written by topomap_mapping_write in @format (static buffer). */
static const char *written(int format, const topomap_alloc_t *a, int n, const int *r2s, int *rc)
{
    static char buf[4096];
    FILE *f = tmpfile();
    *rc = topomap_mapping_write(f, format, a, n, r2s);
    rewind(f);
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = 0;
    fclose(f);
    return buf;
}

static void mapping_files(void)
{
    char err[TOPOMAP_ERRLEN];
    int dims[1] = {4}, wrap[1] = {1};
    topomap_topology_t *t = topomap_topology_torus(1, dims, wrap, 2, "cn[01-04]", err, sizeof err);
    ok(t != NULL, "ring of 4 nodes x 2 cores: %s", t ? "built" : err);
    if (!t)
        return;
    topomap_alloc_t *a = topomap_alloc_create(t, "cn[03,01]", NULL, err, sizeof err);
    ok(a != NULL, "allocation cn[03,01]: %s", a ? "built" : err);
    if (!a) {
        topomap_topology_free(t);
        return;
    }
    /* slots: 0 (cn03,0) 1 (cn03,1) 2 (cn01,0) 3 (cn01,1) */
    int r2s[3] = {2, 1, 3}, rc;
    is_str(written(TOPOMAP_MAPPING_SLOTS, a, 3, r2s, &rc), "0 cn01 0\n1 cn03 1\n2 cn01 1\n",
           "slots format");
    is_int(rc, 0, "slots written");
    is_str(written(TOPOMAP_MAPPING_HOSTFILE, a, 3, r2s, &rc), "cn01\ncn03\ncn01\n",
           "hostfile format: a hostname per rank");
    is_str(written(TOPOMAP_MAPPING_RANKFILE, a, 3, r2s, &rc),
           "rank 0=cn01 slot=0\nrank 1=cn03 slot=1\nrank 2=cn01 slot=1\n", "rankfile format");
    written(7, a, 3, r2s, &rc);
    ok(rc < 0 && errno == EINVAL, "unknown format: EINVAL");
    int bad[3] = {2, 4, 3};
    written(TOPOMAP_MAPPING_SLOTS, a, 3, bad, &rc);
    ok(rc < 0 && errno == EINVAL, "slot 4 of 4: EINVAL");
    FILE *ro = fopen("/dev/null", "r");
    errno = 0;
    ok(topomap_mapping_write(ro, TOPOMAP_MAPPING_SLOTS, a, 3, r2s) < 0,
       "write to a read-only stream fails");
    fclose(ro);

    /* Round trip, comments, blank lines, ranks in any order. */
    int node[3] = {-1, -1, -1}, core[3] = {-1, -1, -1};
    ok(read_text(t, "# a comment\n\n2 cn01 1   # trailing comment\n0\tcn01 0\n1 cn03 1\n", 3,
                 node, core, err, sizeof err) == 0,
       "read: comments, blanks, tabs, any order: %s", err);
    ok(node[0] == 0 && core[0] == 0 && node[1] == 2 && core[1] == 1 && node[2] == 0 &&
           core[2] == 1,
       "read gives the nodes and cores written");
    ok(read_text(t, "0 cn04 1\n1 cn04 0\n2 cn04 1\n", 3, node, core, err, sizeof err) == 0,
       "two ranks on one core when every core is busy (oversubscription): %s", err);
    ok(read_text(t, "0 cn04 1\n1 cn04 1\n", 2, node, core, err, sizeof err) < 0 &&
           errno == EINVAL,
       "two ranks on one core while a core is idle: EINVAL");
    like(err, "map.txt:2: rank 1 shares core 1 of 'cn04' with rank 0 (line 1) while 1 of the "
              "node's 2 cores have no rank", "  message: %s", err);

    /* Every error class, with its message. */
    struct {
        const char *text, *want, *what;
    } bad_files[] = {
        {"0 cn01 0\n1 cn09 0\n2 cn01 1\n",
         "map.txt:2: unknown host 'cn09' (not in the topology, whose nodes are cn[01-04])",
         "unknown hostname"},
        {"0 cn01 0\n1 cn02 2\n2 cn01 1\n",
         "map.txt:2: core 2 out of range on 'cn02' (2 cores: 0 to 1)", "core out of range"},
        {"0 cn01 -1\n", "map.txt:1: core -1 out of range", "negative core"},
        {"0 cn01 0\n3 cn02 0\n", "map.txt:2: rank 3 out of range (the profile has 3 ranks: 0 to 2)",
         "rank out of range"},
        {"-1 cn01 0\n", "map.txt:1: rank -1 out of range", "negative rank"},
        {"0 cn01 0\n# c\n2 cn01 1\n", "map.txt:3: missing rank 1 at end of file (1 of the "
                                      "profile's 3 ranks have no line)",
         "missing rank"},
        {"0 cn01 0\n1 cn02 0\n0 cn03 0\n", "map.txt:3: duplicate rank 0 (already on line 1)",
         "duplicate rank"},
        {"0 cn01\n", "map.txt:1: malformed line: expected 'RANK HOSTNAME CORE', got 2 fields",
         "two fields"},
        {"0 cn01 0 7\n", "map.txt:1: malformed line: expected 'RANK HOSTNAME CORE', got more "
                         "than 3 fields",
         "four fields"},
        {"zero cn01 0\n", "map.txt:1: malformed line: rank 'zero' is not an integer",
         "rank not a number"},
        {"0 cn01 1.5\n", "map.txt:1: malformed line: core '1.5' is not an integer",
         "core not an integer"},
        {"", "map.txt:1: no mapping lines", "empty file"},
        {"# only a comment\n\n", "map.txt:2: no mapping lines", "only comments"},
    };
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        errno = 0;
        ok(read_text(t, bad_files[i].text, 3, node, core, err, sizeof err) < 0 && errno == EINVAL,
           "read error: %s gives EINVAL", bad_files[i].what);
        like(err, bad_files[i].want, "message for %s", bad_files[i].what);
    }
    /* The message starts with the path, so that a user knows which file. */
    ok(read_text(t, "0 cn01\n", 3, node, core, err, sizeof err) < 0 &&
           !strncmp(err, tmpdir, strlen(tmpdir)),
       "message starts with the file path");

    char missing[300];
    snprintf(missing, sizeof missing, "%s/no-such-file", tmpdir);
    errno = 0;
    ok(topomap_mapping_read(missing, t, 3, node, core, err, sizeof err) < 0 && errno == ENOENT,
       "missing file: ENOENT");
    like(err, "no-such-file: No such file or directory", "message names the missing file");
    errno = 0;
    ok(topomap_mapping_read(tmpdir, t, 3, node, core, err, sizeof err) < 0 && errno != 0,
       "a directory is refused");
    errno = 0;
    ok(topomap_mapping_read(missing, NULL, 3, node, core, err, sizeof err) < 0 && errno == EINVAL,
       "NULL topology: EINVAL");

    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! mkdtemp failed\n");
        return 1;
    }
    hand_computed();
    thread_independence();
    mapping_files();
    char path[300];
    snprintf(path, sizeof path, "%s/map.txt", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    return done_testing();
}
