/* SPDX-License-Identifier: BSD-3-Clause */
/* Node types: several kinds of node in one machine. The YAML key node_types
 * (a valid file, every error class with its exact message), the API
 * (topomap_topology_set_node_levels_for and its errors), costs within and
 * across types, metrics and the traffic split by hand on a small case, an
 * allocation across types, and every algorithm of the table on mixed
 * allocations: a valid mapping (each rank on its own slot, never more ranks
 * on a node than its cores) or a clear error. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"

#define TOPOS SRCDIR "/data/topologies/"
#define BAD TOPOS "bad/"

static char err[TOPOMAP_ERRLEN];

static void yaml_valid(void)
{
    topomap_topology_t *t = topomap_topology_load(TOPOS "mixed.yaml", err, sizeof err);
    if (!ok(t != NULL, "mixed.yaml loads (%s)", t ? "ok" : err))
        return;
    is_int(topomap_topology_ntypes(t), 3, "three node types: node: and two entries");
    int want_type[6] = {0, 0, 0, 1, 1, 2}, want_cores[6] = {2, 2, 2, 6, 6, 8};
    int types_ok = 1;
    for (int v = 0; v < 6; v++)
        types_ok &= topomap_topology_node_type(t, v) == want_type[v] &&
                    topomap_topology_node_cores(t, v) == want_cores[v];
    ok(types_ok, "m1-m3 type 0 (2 cores), m4-m5 type 1 (6), m6 type 2 (8)");
    is_int(topomap_topology_cores(t), 8, "topomap_topology_cores: the most of any type");
    char *hl = topomap_topology_type_hostlist(t, 1);
    is_str(hl, "m[4-5]", "type 1's hostlist");
    free(hl);
    hl = topomap_topology_type_hostlist(t, 0);
    is_str(hl, "m[1-3]", "type 0: the nodes no entry names");
    free(hl);
    errno = 0;
    ok(topomap_topology_node_type(t, 6) < 0 && errno == EINVAL, "node 6 out of range: EINVAL");
    ok(!topomap_topology_type_hostlist(t, 3) && errno == EINVAL, "type 3 out of range: EINVAL");
    /* Costs: type 1 has its own levels and self cost. */
    is_double(topomap_topology_cost(t, 3, 0, 3, 2), 0.1, 1e-12, "m4 cores 0, 2: one socket 0.1");
    is_double(topomap_topology_cost(t, 3, 0, 3, 3), 0.4, 1e-12, "m4 cores 0, 3: two sockets 0.4");
    is_double(topomap_topology_cost(t, 4, 5, 4, 5), 0.01, 1e-12, "m5 core 5 itself: 0.01");
    is_double(topomap_topology_cost(t, 0, 0, 0, 1), 0.5, 1e-12, "m1: default flat cost 0.5");
    is_double(topomap_topology_cost(t, 5, 7, 5, 0), 0.5, 1e-12, "m6: 8 flat cores, 0.5");
    is_double(topomap_topology_cost(t, 0, 1, 5, 7), 4, 1e-12, "m1 to m6: 4 hops");
    ok(topomap_topology_cost(t, 0, 2, 0, 0) == -1.0 && errno == EINVAL,
       "m1 has no core 2: EINVAL");
    ok(topomap_topology_cost(t, 3, 0, 4, 6) == -1.0 && errno == EINVAL,
       "m5 has no core 6 (across nodes too): EINVAL");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ok(f && topomap_topology_describe(t, f) == 0 && fclose(f) == 0, "describe");
    like(buf, "node types: 3\n"
              "type 0: 3 nodes (m[1-3])\n"
              "  cores per node: 2 (core 2)\n"
              "  node costs: core 0.5, same core 0\n"
              "type 1: 2 nodes (m[4-5])\n"
              "  cores per node: 6 (socket 2 x core 3)\n"
              "  node costs: socket 0.4, core 0.1, same core 0.01\n"
              "type 2: 1 node (m6)\n"
              "  cores per node: 8 (core 8)\n",
         "describe prints each type with its hostlist");
    free(buf);
    topomap_topology_free(t);
}

static void yaml_hwloc(void)
{
    topomap_topology_t *t = topomap_topology_load(TOPOS "mixed-hwloc.yaml", err, sizeof err);
    if (!ok(t != NULL, "mixed-hwloc.yaml loads (%s)", t ? "ok" : err))
        return;
    ok(topomap_topology_ntypes(t) == 2 && topomap_topology_node_type(t, 0) == 0 &&
           topomap_topology_node_type(t, 3) == 1,
       "no node section: the first entry is type 0");
    is_int(topomap_topology_node_cores(t, 1), 24, "m2: 24 cores from hwloc XML");
    is_int(topomap_topology_node_cores(t, 2), 1, "m3: 1 core");
    is_double(topomap_topology_cost(t, 0, 0, 0, 12), 0.7, 1e-12, "m1 packages: 0.7 (costs)");
    is_double(topomap_topology_cost(t, 0, 0, 0, 6), 0.3, 1e-12, "m1 NUMA domains: 0.3");
    is_double(topomap_topology_cost(t, 0, 0, 0, 1), 0.125, 1e-12, "m1 cores: default 0.125");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ok(f && topomap_topology_describe(t, f) == 0 && fclose(f) == 0, "describe");
    like(buf, "type 0: 2 nodes (m[1-2])\n  cores per node: 24 (package 2 x numa 2 x core 6) "
              "from hwloc XML ", "  type 0 says where its levels came from");
    free(buf);
    topomap_topology_free(t);
}

static void yaml_errors(void)
{
    static const struct {
        const char *file, *msg;
    } cases[] = {
        {"types-twice.yaml",
         "types-twice.yaml:5:16: node_types: node 'n1' already has a type (the entry at line 4)"},
        {"types-unknown.yaml",
         "types-unknown.yaml:5:16: node_types: node 'n4' is not a node of the network"},
        {"types-uncovered.yaml",
         "types-uncovered.yaml:4:3: node_types: node 'n2' has no type (no entry names it and "
         "there is no 'node' section for the other nodes)"},
        {"types-same-entry.yaml",
         "types-same-entry.yaml:5:16: node_types: node 'n1' is named twice in this hostlist"},
        {"types-no-hostlist.yaml",
         "types-no-hostlist.yaml:4:5: missing required key 'hostlist' in a node_types entry"},
        {"types-two-kinds.yaml", "types-two-kinds.yaml:5:5: node_types entry: give exactly one "
                                 "of 'cores', 'levels' or 'hwloc' (2 given)"},
        {"types-not-list.yaml",
         "types-not-list.yaml:2:13: 'node_types' must be a non-empty list of node types"},
        {"types-bad-hostlist.yaml",
         "types-bad-hostlist.yaml:5:16: node_types: hostlist 'n[3-1]': reversed range '3-1'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", BAD, cases[i].file);
        err[0] = 0;
        errno = 0;
        topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
        ok(!t && errno == EINVAL, "%s: EINVAL", cases[i].file);
        /* The message is "PATH:LINE:COL: problem" with the full path. */
        size_t lb = strlen(BAD);
        ok(!strncmp(err, BAD, lb) && !strcmp(err + lb, cases[i].msg), "  message: %s", err);
        ok(!strchr(err, '\n'), "  one line");
        topomap_topology_free(t);
    }
}

/* The small case: a line of 3 nodes (mesh 3 x 1, hop_cost 1): n0 and n1 of
 * type 0 (2 flat cores, cost 0.3, self 0), n2 of type 1 (2 sockets x 2
 * cores: sockets 0.5, cores 0.25, self 0.05). Caller frees. */
static topomap_topology_t *small_mixed(void)
{
    int dims[1] = {3}, wrap[1] = {0};
    topomap_topology_t *t = topomap_topology_torus(1, dims, wrap, 1, "n[0-2]", err, sizeof err);
    int a0[1] = {2}, a1[2] = {2, 2};
    double c0[2] = {0.3, 0}, c1[3] = {0.5, 0.25, 0.05};
    if (!t || topomap_topology_set_node_levels(t, 1, a0, c0, err, sizeof err) < 0 ||
        topomap_topology_set_node_levels_for(t, "n2", 2, a1, c1, err, sizeof err) != 1) {
        topomap_topology_free(t);
        return NULL;
    }
    return t;
}

static void api(void)
{
    topomap_topology_t *t = small_mixed();
    if (!ok(t != NULL, "3-node line, types 2 x (2 cores) + 1 x (2 x 2): %s", t ? "ok" : err))
        return;
    is_int(topomap_topology_ntypes(t), 2, "two types");
    is_int(topomap_topology_node_cores(t, 1), 2, "n1: 2 cores");
    is_int(topomap_topology_node_cores(t, 2), 4, "n2: 4 cores");
    is_int(topomap_topology_type_cores(t, 1), 4, "type 1: 4 cores");
    is_int(topomap_topology_cores(t), 4, "the most: 4");
    is_double(topomap_topology_cost(t, 0, 0, 0, 1), 0.3, 1e-12, "n0 cores 0, 1: 0.3 (type 0)");
    is_double(topomap_topology_cost(t, 0, 1, 0, 1), 0, 0, "n0 core 1 itself: 0 (type 0)");
    is_double(topomap_topology_cost(t, 2, 0, 2, 1), 0.25, 1e-12, "n2 cores 0, 1: 0.25");
    is_double(topomap_topology_cost(t, 2, 1, 2, 2), 0.5, 1e-12, "n2 cores 1, 2: sockets 0.5");
    is_double(topomap_topology_cost(t, 2, 3, 2, 3), 0.05, 1e-12, "n2 core 3 itself: 0.05");
    is_double(topomap_topology_cost(t, 0, 1, 2, 3), 2, 1e-12, "n0 to n2: 2 hops x 1");
    is_double(topomap_topology_cost(t, 2, 3, 1, 0), 1, 1e-12, "n2 core 3 to n1: 1 hop");
    ok(topomap_topology_cost(t, 1, 3, 2, 0) == -1.0 && errno == EINVAL, "n1 core 3: EINVAL");

    int a2[1] = {8};
    double c2[2] = {0.1, 0};
    static const struct {
        const char *hl, *msg;
    } bad[] = {
        {"n[1,5]", "node 'n5' is not in the topology (its nodes: n[0-2])"},
        {"n2", "node 'n2' already has node type 1"},
        {"n[0-1],n0", "node 'n0' is named twice"},
        {"n[", "hostlist: hostlist 'n[': unbalanced '['"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        errno = 0;
        int rc = topomap_topology_set_node_levels_for(t, bad[i].hl, 1, a2, c2, err, sizeof err);
        ok(rc < 0 && errno == EINVAL, "set_node_levels_for('%s'): EINVAL", bad[i].hl);
        is_str(err, bad[i].msg, "  message");
    }
    ok(topomap_topology_ntypes(t) == 2 && topomap_topology_node_type(t, 0) == 0 &&
           topomap_topology_node_cores(t, 0) == 2,
       "failed calls leave the topology as it was");
    ok(topomap_topology_set_node_levels_for(NULL, "n0", 1, a2, c2, err, sizeof err) < 0 &&
           errno == EINVAL,
       "NULL topology: EINVAL");
    int bad_arity[1] = {0};
    ok(topomap_topology_set_node_levels_for(t, "n0", 1, bad_arity, c2, err, sizeof err) < 0 &&
           errno == EINVAL,
       "arity 0: EINVAL (%s)", err);

    /* An allocation across the two types: all cores = each node's own. */
    topomap_alloc_t *a = topomap_alloc_create(t, "n[0-2]", NULL, err, sizeof err);
    ok(a && topomap_alloc_nslots(a) == 8, "n[0-2], all cores: 2 + 2 + 4 = 8 slots");
    int cores_ok = a != NULL;
    static const int want[8] = {0, 1, 0, 1, 0, 1, 2, 3};
    for (int s = 0; a && s < 8; s++)
        cores_ok &= topomap_alloc_slot_core(a, s) == want[s];
    ok(cores_ok, "slot cores 0 1 | 0 1 | 0 1 2 3");
    topomap_alloc_free(a);
    a = topomap_alloc_create(t, "n2,n0", "6,3", err, sizeof err);
    cores_ok = a != NULL;
    static const int want2[9] = {0, 1, 2, 3, 0, 1, 0, 1, 0};
    for (int s = 0; a && s < 9; s++)
        cores_ok &= topomap_alloc_slot_core(a, s) == want2[s];
    ok(cores_ok, "slots 6,3: cores wrap at each node's own count (4, then 2)");
    topomap_alloc_free(a);

    /* One type again: set_node_levels replaces every node's inside. */
    ok(topomap_topology_set_node_levels(t, 1, a2, c2, err, sizeof err) == 0 &&
           topomap_topology_ntypes(t) == 1 && topomap_topology_node_cores(t, 2) == 8 &&
           topomap_topology_node_type(t, 2) == 0,
       "set_node_levels: back to one type");
    topomap_topology_free(t);
}

static void metrics_by_hand(void)
{
    topomap_topology_t *t = small_mixed();
    if (!ok(t != NULL, "metrics: the 3-node line (%s)", t ? "ok" : err))
        return;
    /* Placement: r0 (n0, 0), r1 (n0, 1), r2 (n2, 0), r3 (n2, 1).
     *   r0 -> r1  50 bytes: one type-0 node, cost 0.3      SumCom 15, hops 0
     *   r1 -> r2 100 bytes: n0 to n2, 2 hops               SumCom 200, hop-bytes 200
     *   r2 -> r3  40 bytes: n2, one socket, cost 0.25      SumCom 10
     *   r3 -> r2  10 bytes: the same                       SumCom 2.5
     *   r2 -> r2   7 bytes: itself on type 1, cost 0.05    SumCom 0.35
     * hop-bytes 200, SumCom 15 + 200 + 10 + 2.5 + 0.35 = 227.85, total 207,
     * internode 100, dilation 2, MaxCom 200.
     * Split, counted from the core (type 0 has 1 level, type 1 has 2):
     * core 7 (r2 -> r2), socket 50 (r2 <-> r3: one socket of n2), node 50
     * (r0 -> r1: two cores of a flat node share only the node), beyond 100. */
    int src[5] = {0, 1, 2, 3, 2}, dst[5] = {1, 2, 3, 2, 2};
    double bytes[5] = {50, 100, 40, 10, 7};
    topomap_profile_t *p = topomap_profile_create(4, 5, src, dst, bytes, NULL, err, sizeof err);
    int node[4] = {0, 0, 2, 2}, core[4] = {0, 1, 0, 1};
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    ok(p && topomap_eval(p, t, node, core, &m) == 0, "eval on two types");
    is_double(m.hop_bytes, 200, 0, "hop-bytes 200");
    is_double(m.sumcom, 227.85, 1e-9, "SumCom 227.85 (each node's own costs)");
    is_double(m.total_bytes, 207, 0, "total 207");
    is_double(m.internode_bytes, 100, 0, "internode 100");
    is_int(m.max_dilation, 2, "dilation 2");
    is_double(m.maxcom, 200, 0, "MaxCom 200");
    topomap_traffic_split_t s;
    ok(topomap_traffic_split(p, t, node, core, &s) == 0 && s.n == 4, "split: 4 categories");
    is_str(s.name[0], "core", "  0: core");
    is_str(s.name[1], "socket", "  1: socket (type 1 only)");
    is_str(s.name[2], "node", "  2: node");
    is_str(s.name[3], "beyond", "  3: beyond (a mesh has no switch)");
    ok(s.bytes[0] == 7 && s.bytes[1] == 50 && s.bytes[2] == 50 && s.bytes[3] == 100,
       "  bytes 7, 50, 50, 100");
    /* A core that its node does not have: EINVAL, not a wrong answer. */
    int bad_core[4] = {0, 2, 0, 1};
    ok(topomap_eval(p, t, node, bad_core, &m) < 0 && errno == EINVAL, "n0 core 2: EINVAL");
    ok(topomap_traffic_split(p, t, node, bad_core, &s) < 0 && errno == EINVAL,
       "split: n0 core 2: EINVAL");

    /* The same through an allocation: slots 0 1 | 0 1 | 0 1 2 3. */
    topomap_alloc_t *a = topomap_alloc_create(t, "n[0-2]", NULL, err, sizeof err);
    int r2s[4] = {0, 1, 4, 5};
    ok(a && topomap_eval_slots(p, a, r2s, &m) == 0 && fabs(m.sumcom - 227.85) < 1e-9,
       "eval_slots: the same SumCom");
    topomap_alloc_free(a);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* A profile of n ranks: a ring plus random pairs (seeded), or a 2D
 * stencil nx x ny (n = nx * ny) when ny > 0. */
static topomap_profile_t *make_profile(int n, int nx, int ny, uint64_t seed)
{
    int cap = 8 * n, m = 0;
    int *src = malloc(sizeof(int) * (size_t)cap), *dst = malloc(sizeof(int) * (size_t)cap);
    double *b = malloc(sizeof(double) * (size_t)cap);
    for (int i = 0; i < n; i++) {
        if (ny > 0) {
            int x = i % nx, y = i / nx;
            if (x + 1 < nx)
                src[m] = i, dst[m] = i + 1, b[m++] = 1000;
            if (y + 1 < ny)
                src[m] = i, dst[m] = i + nx, b[m++] = 1000;
            continue;
        }
        src[m] = i, dst[m] = (i + 1) % n, b[m++] = 500;
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        src[m] = i, dst[m] = (int)((seed >> 33) % (uint64_t)n), b[m++] = (double)(seed % 997);
    }
    topomap_profile_t *p = topomap_profile_create(n, (size_t)m, src, dst, b, NULL, err,
                                                  sizeof err);
    free(src), free(dst), free(b);
    return p;
}

/* rank_to_slot is valid: distinct slots in range, at most a node's cores
 * ranks on it. */
static int valid(const topomap_alloc_t *a, const int *r2s, int n)
{
    const topomap_topology_t *t = topomap_alloc_topology(a);
    int ns = topomap_alloc_nslots(a), nn = topomap_topology_nnodes(t), good = 1;
    char *used = calloc((size_t)ns, 1);
    int *on = calloc((size_t)nn, sizeof(int));
    for (int r = 0; r < n && good; r++) {
        int s = r2s[r];
        good = s >= 0 && s < ns && !used[s];
        if (good) {
            int v = topomap_alloc_slot_node(a, s);
            used[s] = 1;
            good = ++on[v] <= topomap_topology_node_cores(t, v) &&
                   topomap_alloc_slot_core(a, s) < topomap_topology_node_cores(t, v);
        }
    }
    free(used), free(on);
    return good;
}

/* Every algorithm of the table (and with +refine) on allocation a. */
static void every_algorithm(const char *what, const topomap_alloc_t *a,
                            const topomap_profile_t *p)
{
    int n = topomap_profile_nranks(p);
    int *r2s = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; topomap_algo_name(i); i++)
        for (int refine = 0; refine < 2; refine++) {
            const char *name = topomap_algo_name(i);
            topomap_opts_t o;
            topomap_opts_init(&o);
            o.refine = refine;
            o.time_limit = 20;
            err[0] = 0;
            errno = 0;
            int rc = topomap_map(name, p, a, &o, r2s, err, sizeof err);
            if (rc == 0)
                ok(valid(a, r2s, n), "%s: %s%s maps validly", what, name,
                   refine ? "+refine" : "");
            else
                ok(errno != 0 && err[0] && !strchr(err, '\n'), "%s: %s%s declines: %s", what,
                   name, refine ? "+refine" : "", err);
        }
    free(r2s);
}

static void algorithms(void)
{
    /* A 4 x 4 torus: t[00-07] of 2 flat cores, t[08-15] of 2 sockets x 2
     * cores (48 slots in all). */
    int dims[2] = {4, 4}, wrap[2] = {1, 1}, a1[2] = {2, 2};
    double c1[3] = {0.5, 0.25, 0};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 2, "t[00-15]", err, sizeof err);
    ok(t && topomap_topology_set_node_levels_for(t, "t[08-15]", 2, a1, c1, err, sizeof err) == 1,
       "4x4 torus, two types: %s", t ? "ok" : err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "t[00-15]", NULL, err, sizeof err) : NULL;
    if (ok(a && topomap_alloc_nslots(a) == 48, "torus: all cores, 8 x 2 + 8 x 4 = 48 slots")) {
        topomap_profile_t *full = make_profile(48, 8, 6, 0); /* every slot used */
        topomap_profile_t *part = make_profile(30, 6, 5, 0);
        topomap_profile_t *rnd = make_profile(40, 0, 0, 7);
        every_algorithm("torus 48/48 stencil", a, full);
        every_algorithm("torus 30/48 stencil", a, part);
        every_algorithm("torus 40/48 random", a, rnd);
        topomap_profile_free(full), topomap_profile_free(part), topomap_profile_free(rnd);
    }
    topomap_alloc_free(a);
    /* An allocation on part of the torus, types interleaved in its order. */
    a = t ? topomap_alloc_create(t, "t09,t01,t10,t02", NULL, err, sizeof err) : NULL;
    if (ok(a && topomap_alloc_nslots(a) == 12, "torus t09,t01,t10,t02: 12 slots")) {
        topomap_profile_t *p = make_profile(12, 0, 0, 3);
        every_algorithm("torus 12/12 interleaved", a, p);
        topomap_profile_free(p);
    }
    topomap_alloc_free(a);
    topomap_topology_free(t);

    /* The fat-tree of mixed.yaml: 3 x 2 + 2 x 6 + 8 = 26 slots. */
    t = topomap_topology_load(TOPOS "mixed.yaml", err, sizeof err);
    a = t ? topomap_alloc_create(t, "m[1-6]", NULL, err, sizeof err) : NULL;
    if (ok(a && topomap_alloc_nslots(a) == 26, "fat-tree of three types: 26 slots")) {
        topomap_profile_t *full = make_profile(26, 0, 0, 11);
        topomap_profile_t *part = make_profile(17, 0, 0, 5);
        every_algorithm("fat-tree 26/26", a, full);
        every_algorithm("fat-tree 17/26", a, part);
        topomap_profile_free(full), topomap_profile_free(part);
    }
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    yaml_valid();
    yaml_hwloc();
    yaml_errors();
    api();
    metrics_by_hand();
    algorithms();
    return done_testing();
}
