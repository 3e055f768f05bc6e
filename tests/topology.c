/* SPDX-License-Identifier: BSD-3-Clause */
/* The topology model: hop counts computed by hand (Tianhe-3 Table 1, torus
 * wraparound, meshes, trees), checked against breadth-first search on the
 * explicit link graph of small tori, node costs, topology.conf import, hwloc
 * XML import (synthetic fixtures, never the host), the shipped YAML files,
 * describe(), and the argument errors of the builders. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topo_check.h"
#include "topomap.h"

#define DATA SRCDIR "/data/topologies/"
#define SHIPPED SRCDIR "/../topologies/"

/* Hops on an n-D torus/mesh by BFS over its links: an independent check of
 * the closed formula. Returns the number of pairs that disagree. */
static int torus_bfs_check(const topomap_topology_t *t, int ndims, const int *dims,
                           const int *wrap)
{
    int n = topomap_topology_nnodes(t), bad = 0;
    int *dist = malloc(sizeof(int) * (size_t)n), *queue = malloc(sizeof(int) * (size_t)n);
    for (int src = 0; src < n; src++) {
        for (int i = 0; i < n; i++)
            dist[i] = -1;
        int head = 0, tail = 0;
        dist[src] = 0;
        queue[tail++] = src;
        while (head < tail) {
            int u = queue[head++], stride = 1;
            for (int k = 0; k < ndims; k++) {
                int x = (u / stride) % dims[k];
                for (int dir = -1; dir <= 1; dir += 2) {
                    int y = x + dir;
                    if (y < 0 || y >= dims[k]) {
                        if (!wrap[k])
                            continue;
                        y = (y + dims[k]) % dims[k];
                    }
                    int v = u + (y - x) * stride;
                    if (dist[v] < 0) {
                        dist[v] = dist[u] + 1;
                        queue[tail++] = v;
                    }
                }
                stride *= dims[k];
            }
        }
        for (int i = 0; i < n; i++)
            bad += dist[i] != topomap_topology_hops(t, src, i);
    }
    free(dist);
    free(queue);
    return bad;
}

static void test_tianhe3(void)
{
    char err[TOPOMAP_ERRLEN];
    topomap_topology_t *t = topomap_topology_tianhe3(4, 4, 96, 16, NULL, err, sizeof err);
    ok(t != NULL, "tianhe3 4x4 chips x 96 nodes: %s", t ? "" : err);
    if (!t)
        return;
    is_str(topomap_topology_kind(t), "tianhe3", "kind tianhe3");
    is_int(topomap_topology_nnodes(t), 1536, "1536 nodes");
    /* Chip (r,c) = r * 4 + c holds nodes 96 * chip + k, k < 48 left. */
    is_int(topomap_topology_hops(t, 5, 5), 0, "same node: 0");
    is_int(topomap_topology_hops(t, 0, 47), 1, "same chip, same side (left): 1");
    is_int(topomap_topology_hops(t, 48, 95), 1, "same chip, same side (right): 1");
    is_int(topomap_topology_hops(t, 0, 48), 2, "same chip, different sides: 2");
    is_int(topomap_topology_hops(t, 0, 3 * 96), 3, "same row (chips 0 and 3), same side: 3");
    is_int(topomap_topology_hops(t, 0, 3 * 96 + 50), 4, "same row, different sides: 4");
    is_int(topomap_topology_hops(t, 96 + 1, 13 * 96 + 2), 3, "same column (chips 1, 13): 3");
    is_int(topomap_topology_hops(t, 13 * 96 + 60, 96 + 1), 4, "same column, different sides: 4");
    is_int(topomap_topology_hops(t, 0, 5 * 96), 5, "different row and column, same side: 5");
    is_int(topomap_topology_hops(t, 15 * 96 + 95, 0), 6, "chip 15 right to chip 0 left: 6");
    is_int(topomap_topology_hops(t, 6 * 96 + 10, 9 * 96 + 10), 5, "chips (1,2) and (2,1): 5");
    is_int(topomap_topology_diameter(t), 6, "diameter 6");
    int c[4];
    is_int(topomap_topology_coords(t, 5 * 96 + 47, c, 4), 4, "4 coordinates");
    ok(c[0] == 1 && c[1] == 1 && c[2] == 0 && c[3] == 47, "node 527: row 1 col 1 left slot 47");
    topomap_topology_coords(t, 5 * 96 + 48, c, 4);
    ok(c[0] == 1 && c[1] == 1 && c[2] == 1 && c[3] == 0, "node 528: row 1 col 1 right slot 0");
    topomap_topology_free(t);

    /* One row of chips: no "different row and column" pair. */
    t = topomap_topology_tianhe3(1, 3, 2, 1, "a[1-6]", err, sizeof err);
    is_int(topomap_topology_diameter(t), 4, "1 x 3 chips: diameter 4");
    is_int(hops_by_name(t, "a1", "a6"), 4, "a1 (chip 0 left) to a6 (chip 2 right): 4");
    topomap_topology_free(t);
    t = topomap_topology_tianhe3(1, 1, 2, 1, NULL, err, sizeof err);
    is_int(topomap_topology_diameter(t), 2, "a single chip: diameter 2");
    topomap_topology_free(t);

    errno = 0;
    ok(!topomap_topology_tianhe3(2, 2, 7, 1, NULL, err, sizeof err) && errno == EINVAL,
       "odd nodes per chip rejected");
    like(err, "nodes per chip must be even", "  message: %s", err);
    ok(!topomap_topology_tianhe3(0, 2, 2, 1, NULL, err, sizeof err) && errno == EINVAL,
       "0 rows rejected");
    like(err, "at least 1 x 1", "  message: %s", err);
}

static void test_torus(void)
{
    char err[TOPOMAP_ERRLEN];
    int dims[3] = {8, 8, 8}, wrap[3] = {1, 1, 1}, nowrap[3] = {0, 0, 0};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    ok(t != NULL, "8x8x8 torus: %s", t ? "" : err);
    is_str(topomap_topology_kind(t), "torus", "kind torus");
    is_str(topomap_topology_node_name(t, 0), "node000", "default names are padded: node000");
    is_str(topomap_topology_node_name(t, 511), "node511", "... node511");
    ok(topomap_topology_node_name(t, 512) == NULL && topomap_topology_node_name(t, -1) == NULL,
       "node_name out of range: NULL");
    is_int(topomap_topology_hops(t, 0, 7), 1, "(0,0,0)-(7,0,0) wraps: 1");
    is_int(topomap_topology_hops(t, 0, 7 * 8), 1, "(0,0,0)-(0,7,0) wraps: 1");
    is_int(topomap_topology_hops(t, 0, 7 * 64), 1, "(0,0,0)-(0,0,7) wraps: 1");
    is_int(topomap_topology_hops(t, 0, 4 + 4 * 8 + 4 * 64), 12, "(0,0,0)-(4,4,4): 12");
    is_int(topomap_topology_hops(t, 1 + 2 * 8 + 3 * 64, 6 + 7 * 8), 9, "(1,2,3)-(6,7,0): 3+3+3");
    is_int(topomap_topology_hops(t, 3, 5), 2, "(3,0,0)-(5,0,0): 2");
    is_int(topomap_topology_diameter(t), 12, "diameter 4+4+4");
    int c[3];
    is_int(topomap_topology_coords(t, 1 + 2 * 8 + 3 * 64, c, 3), 3, "3 coordinates");
    ok(c[0] == 1 && c[1] == 2 && c[2] == 3, "node 209 is (1,2,3)");
    is_int(topomap_topology_coords(t, 5, c, 1), 3, "coords with maxdims 1 still returns 3");
    is_int(c[0], 5, "  and fills x");
    topomap_topology_free(t);

    t = topomap_topology_torus(3, dims, nowrap, 1, NULL, err, sizeof err);
    is_str(topomap_topology_kind(t), "mesh", "no wrap: kind mesh");
    is_int(topomap_topology_hops(t, 0, 7), 7, "mesh (0,0,0)-(7,0,0): 7");
    is_int(topomap_topology_hops(t, 0, 511), 21, "mesh corner to corner: 21");
    is_int(topomap_topology_diameter(t), 21, "mesh diameter 7+7+7");
    topomap_topology_free(t);

    /* Mixed wrap, odd sizes: formula = BFS over every pair. */
    int d2[3] = {3, 4, 5}, w2[3] = {1, 0, 1};
    t = topomap_topology_torus(3, d2, w2, 1, NULL, err, sizeof err);
    is_int(topomap_topology_hops(t, 0, 2 + 3 * 3 + 4 * 12), 1 + 3 + 1, "3x4x5 (x,z wrap): (2,3,4) is 5 away");
    is_int(topomap_topology_diameter(t), 1 + 3 + 2, "diameter 1+3+2");
    is_int(torus_bfs_check(t, 3, d2, w2), 0, "3x4x5 with wrap {1,0,1}: all pairs equal BFS");
    topomap_topology_free(t);
    int d3[2] = {6, 7}, w3[2] = {1, 1};
    t = topomap_topology_torus(2, d3, w3, 1, NULL, err, sizeof err);
    is_int(torus_bfs_check(t, 2, d3, w3), 0, "6x7 torus: all pairs equal BFS");
    is_int(topomap_topology_diameter(t), 3 + 3, "6x7 torus diameter 3+3");
    topomap_topology_free(t);
    int d4[1] = {5}, w4[1] = {0};
    t = topomap_topology_torus(1, d4, w4, 1, NULL, err, sizeof err);
    is_int(torus_bfs_check(t, 1, d4, w4), 0, "1-D mesh of 5: all pairs equal BFS");
    topomap_topology_free(t);
    int d5[4] = {2, 3, 2, 3}, w5[4] = {1, 1, 0, 1};
    t = topomap_topology_torus(4, d5, w5, 1, NULL, err, sizeof err);
    is_int(torus_bfs_check(t, 4, d5, w5), 0, "4-D 2x3x2x3: all pairs equal BFS");
    topomap_topology_free(t);

    /* Errors. */
    int bad[2] = {4, 0};
    errno = 0;
    ok(!topomap_topology_torus(2, bad, NULL, 1, NULL, err, sizeof err) && errno == EINVAL,
       "a dimension of size 0 rejected");
    like(err, "dimension 1 has size 0", "  message: %s", err);
    ok(!topomap_topology_torus(0, dims, NULL, 1, NULL, err, sizeof err) && errno == EINVAL,
       "0 dimensions rejected");
    int big[3] = {1024, 1024, 1024};
    ok(!topomap_topology_torus(3, big, NULL, 1, NULL, err, sizeof err) && errno == EINVAL,
       "2^30 nodes rejected");
    like(err, "more than 1048576 nodes", "  message: %s", err);
    int two[1] = {2};
    ok(!topomap_topology_torus(1, two, NULL, 1, "a,b,c", err, sizeof err) && errno == EINVAL,
       "3 names for 2 nodes rejected");
    like(err, "names 3 nodes but the mesh has 2", "  message: %s", err);
    ok(!topomap_topology_torus(1, two, NULL, 1, "a,a", err, sizeof err) && errno == EINVAL,
       "duplicate names rejected");
    like(err, "node name 'a' is given twice", "  message: %s", err);
    ok(!topomap_topology_torus(1, two, NULL, 1, "a[2-1]", err, sizeof err) && errno == EINVAL,
       "bad hostlist rejected");
    like(err, "reversed range", "  message: %s", err);
    ok(!topomap_topology_torus(1, two, NULL, 0, NULL, err, sizeof err) && errno == EINVAL,
       "0 cores rejected");
    like(err, "cores per node must be in 1..", "  message: %s", err);
}

static void test_tree(void)
{
    char err[TOPOMAP_ERRLEN];
    int arity[2] = {4, 22}, hops[2] = {4, 2};
    topomap_topology_t *t = topomap_topology_tree(2, arity, hops, 1, "p[001-088]", err, sizeof err);
    ok(t != NULL, "tree 4 x 22: %s", t ? "" : err);
    is_str(topomap_topology_kind(t), "fat-tree", "kind fat-tree");
    is_int(hops_by_name(t, "p001", "p022"), 2, "p001-p022 on one leaf switch: 2");
    is_int(hops_by_name(t, "p022", "p023"), 4, "p022-p023 across leaf switches: 4");
    is_int(hops_by_name(t, "p088", "p001"), 4, "p088-p001: 4");
    is_int(topomap_topology_diameter(t), 4, "diameter 4");
    int c[4];
    is_int(topomap_topology_coords(t, 23, c, 4), 3, "coords: top, leaf, port");
    ok(c[0] == 0 && c[1] == 1 && c[2] == 1, "node 23: top 0, leaf switch 1, port 1");
    topomap_topology_free(t);

    /* Three levels: 2 spines x 3 leaves x 4 nodes. */
    int a3[3] = {2, 3, 4}, h3[3] = {6, 4, 2};
    t = topomap_topology_tree(3, a3, h3, 1, NULL, err, sizeof err);
    is_int(topomap_topology_nnodes(t), 24, "2x3x4 tree: 24 nodes");
    is_int(topomap_topology_hops(t, 0, 3), 2, "same leaf: 2");
    is_int(topomap_topology_hops(t, 0, 4), 4, "same middle switch: 4");
    is_int(topomap_topology_hops(t, 11, 12), 6, "across the top: 6");
    is_int(topomap_topology_diameter(t), 6, "diameter 6");
    topomap_topology_coords(t, 17, c, 4);
    ok(c[0] == 0 && c[1] == 1 && c[2] == 4 && c[3] == 1, "node 17: top, middle 1, leaf 4, port 1");
    topomap_topology_free(t);

    /* A top level of arity 1 never separates nodes. */
    int a1[2] = {1, 3}, hh[2] = {9, 2};
    t = topomap_topology_tree(2, a1, hh, 1, NULL, err, sizeof err);
    is_int(topomap_topology_diameter(t), 2, "arity-1 top level: diameter 2, not 9");
    topomap_topology_free(t);

    int bad[2] = {4, 0};
    errno = 0;
    ok(!topomap_topology_tree(2, bad, hops, 1, NULL, err, sizeof err) && errno == EINVAL,
       "arity 0 rejected");
    like(err, "tree level 1: arity must be >= 1", "  message: %s", err);
    int h0[2] = {4, 0};
    ok(!topomap_topology_tree(2, arity, h0, 1, NULL, err, sizeof err) && errno == EINVAL,
       "0 hops rejected");
    like(err, "hops must be >= 1", "  message: %s", err);
}

static void test_slurmconf(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load(DATA "irregular.conf", err, sizeof err);
    ok(t != NULL, "irregular.conf loads: %s", t ? "" : err);
    if (!t)
        return;
    is_str(topomap_topology_kind(t), "fat-tree", "kind fat-tree");
    is_int(topomap_topology_nnodes(t), 10, "10 nodes");
    is_int(topomap_topology_cores(t), 1, "one core per node");
    /* Depth-first from top: mid (s0, s1) then s2. */
    is_str(topomap_topology_node_name(t, 0), "n01", "node 0 is n01");
    is_str(topomap_topology_node_name(t, 7), "n08", "node 7 is n08 (continued line)");
    is_str(topomap_topology_node_name(t, 9), "n10", "node 9 is n10");
    is_int(hops_by_name(t, "n01", "n04"), 2, "same leaf switch: 2");
    is_int(hops_by_name(t, "n01", "n08"), 4, "s0 to s1 through mid: 4");
    is_int(hops_by_name(t, "n09", "n10"), 2, "under s2: 2");
    is_int(hops_by_name(t, "n02", "n10"), 5, "n02 (depth 3) to n10 (depth 2) through top: 5");
    is_int(hops_by_name(t, "n10", "n05"), 5, "symmetric: 5");
    is_int(topomap_topology_diameter(t), 5, "diameter 5");
    int c[5];
    is_int(topomap_topology_coords(t, 5, c, 5), 4, "n06: top, mid, s1, port");
    ok(c[0] == 4 && c[1] == 2 && c[2] == 1 && c[3] == 1, "n06: switches 4 (top), 2 (mid), 1 (s1), port 1");
    is_int(topomap_topology_coords(t, 9, c, 5), 3, "n10: top, s2, port");
    ok(c[0] == 4 && c[1] == 3 && c[2] == 1, "n10: switches 4, 3, port 1");
    like(describe(t), "switches: 5", "describe counts 5 switches");
    topomap_topology_free(t);

    /* A balanced topology.conf equals the regular tree with 2 x levels hops. */
    t = topomap_topology_load(DATA "balanced.conf", err, sizeof err);
    int arity[2] = {4, 3}, hops[2] = {4, 2};
    topomap_topology_t *r = topomap_topology_tree(2, arity, hops, 1, "b[01-12]", err, sizeof err);
    ok(t && r, "balanced.conf and the regular tree");
    int same = t && r;
    for (int a = 0; same && a < 12; a++)
        for (int b = 0; b < 12; b++)
            same &= topomap_topology_hops(t, a, b) == topomap_topology_hops(r, a, b) &&
                    !strcmp(topomap_topology_node_name(t, a), topomap_topology_node_name(r, a));
    ok(same, "balanced.conf: all 144 pairs and names equal the regular tree");
    is_int(topomap_topology_diameter(t), 4, "balanced.conf diameter 4");
    topomap_topology_free(t);
    topomap_topology_free(r);

    t = topomap_topology_load(DATA "forest.conf", err, sizeof err);
    ok(t != NULL, "two top switches load");
    is_int(topomap_topology_hops(t, 0, 1), 2, "x1-x2: 2");
    is_int(topomap_topology_hops(t, 0, 2), 4, "x1-y1 through the virtual root: 4");
    like(describe(t), "virtual root", "describe mentions the virtual root");
    topomap_topology_free(t);

    /* A YAML naming the topology.conf, with hwloc node levels and costs. */
    t = topomap_topology_load(DATA "with-conf.yaml", err, sizeof err);
    ok(t != NULL, "with-conf.yaml loads: %s", t ? "" : err);
    if (t) {
        is_int(topomap_topology_nnodes(t), 10, "10 nodes from the conf");
        is_int(topomap_topology_cores(t), 24, "24 cores from hwloc XML");
        is_double(topomap_topology_hop_cost(t), 2, 0, "hop_cost 2");
        is_double(topomap_topology_cost(t, 0, 0, 9, 0), 2 * 5, 1e-12, "n01-n10: 5 hops x 2");
        is_double(topomap_topology_cost(t, 0, 0, 0, 12), 0.9, 1e-12, "packages: 0.9 (costs)");
        is_double(topomap_topology_cost(t, 0, 0, 0, 6), 0.5, 1e-12,
                  "NUMA: default hop_cost / 4 = 0.5");
        is_double(topomap_topology_cost(t, 0, 0, 0, 1), 0.1, 1e-12, "cores: 0.1 (costs)");
        is_double(topomap_topology_cost(t, 3, 7, 3, 7), 0.01, 1e-12, "same core: self_cost");
        topomap_topology_free(t);
    }

    /* Errors, each with the file and line. */
    static const struct topo_reject bad[] = {
        {"conf-unknown-key.conf", "conf-unknown-key.conf:2: unknown key 'Speed'"},
        {"conf-undefined-switch.conf", "conf-undefined-switch.conf:1: switch 's1' is not defined"},
        {"conf-node-twice.conf",
         "conf-node-twice.conf:3: node 'n2' is under switch 's1' and already under switch 's0' (line 2)"},
        {"conf-switch-twice.conf",
         "conf-switch-twice.conf:2: switch 's0' is already defined at line 1"},
        {"conf-cycle.conf", "conf-cycle.conf:1: the switches form a cycle"},
        {"conf-cycle2.conf", "conf-cycle2.conf:2: switch 'a' is on a cycle"},
        {"conf-two-parents.conf",
         "conf-two-parents.conf:2: switch 's0' is already under switch 't1' (line 1)"},
        {"conf-bad-hostlist.conf", "conf-bad-hostlist.conf:1: Nodes=: hostlist 'n[2-1]': reversed"},
        {"conf-no-nodes.conf", "conf-no-nodes.conf: no switch has Nodes="},
        {"conf-mixed.conf", "conf-mixed.conf:3: SwitchName= in a topology/block file"},
    };
    check_rejects(DATA "bad/", bad, sizeof bad / sizeof bad[0]);
}

static void test_hwloc(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    int dims[1] = {2};
    topomap_topology_t *t = topomap_topology_torus(1, dims, NULL, 1, NULL, err, sizeof err);
    ok(topomap_topology_set_node_hwloc(t, DATA "node-2x2x6.xml", err, sizeof err) == 0,
       "hwloc XML pack:2 numa:2 core:6: %s", err);
    is_int(topomap_topology_cores(t), 24, "24 cores");
    /* Default costs: hop_cost / 2, / 4, / 8, and 0 for the same core. */
    is_double(topomap_topology_cost(t, 0, 0, 0, 0), 0, 0, "same core: 0");
    is_double(topomap_topology_cost(t, 0, 0, 0, 5), 0.125, 1e-12, "cores 0 and 5, one NUMA: 1/8");
    is_double(topomap_topology_cost(t, 0, 5, 0, 6), 0.25, 1e-12, "cores 5 and 6, NUMA 0 and 1: 1/4");
    is_double(topomap_topology_cost(t, 0, 11, 0, 12), 0.5, 1e-12, "cores 11 and 12, two packages: 1/2");
    is_double(topomap_topology_cost(t, 0, 23, 1, 0), 1, 1e-12, "other node: 1 hop");
    char *d = describe(t);
    like(d, "cores per node: 24 (package 2 x numa 2 x core 6) from hwloc XML", "describe: levels");
    like(d, "node costs: package 0.5, numa 0.25, core 0.125, same core 0", "describe: costs");

    ok(topomap_topology_set_node_hwloc(t, DATA "node-smt.xml", err, sizeof err) == 0,
       "hwloc XML pack:2 core:4 pu:2: %s", err);
    is_int(topomap_topology_cores(t), 8, "8 cores (hyperthreads are not cores)");
    is_double(topomap_topology_cost(t, 0, 3, 0, 4), 0.5, 1e-12, "cores 3 and 4: two packages");
    is_double(topomap_topology_cost(t, 0, 1, 0, 2), 0.25, 1e-12, "cores 1 and 2: one package");
    like(describe(t), "(package 2 x core 4)", "no NUMA level when NUMA does not split a package");

    errno = 0;
    ok(topomap_topology_set_node_hwloc(t, DATA "node-asym.xml", err, sizeof err) < 0 &&
           errno == EINVAL,
       "asymmetric node rejected");
    like(err, "node-asym.xml: 5 cores do not split evenly over 2 packages", "  message: %s", err);
    is_int(topomap_topology_cores(t), 8, "  the topology is unchanged");
    ok(topomap_topology_set_node_hwloc(t, DATA "no-such.xml", err, sizeof err) < 0 &&
           errno == ENOENT,
       "missing XML: ENOENT");
    like(err, "no-such.xml: No such file", "  message: %s", err);
    ok(topomap_topology_set_node_hwloc(t, DATA "node-bad.xml", err, sizeof err) < 0 &&
           errno == EINVAL,
       "garbage XML: EINVAL");
    like(err, "node-bad.xml", "  message names the file: %s", err);

    /* The running machine: whatever it is, a sane answer or a clear error. */
    err[0] = 0;
    int rc = topomap_topology_set_node_hwloc(t, NULL, err, sizeof err);
    ok(rc == 0 ? topomap_topology_cores(t) >= 1 : errno == EINVAL && err[0],
       "live machine: %d cores (or a clear error: %s)", topomap_topology_cores(t), err);
    topomap_topology_free(t);
}

static void test_costs(void)
{
    char err[TOPOMAP_ERRLEN];
    int dims[2] = {4, 4};
    topomap_topology_t *t = topomap_topology_torus(2, dims, NULL, 8, NULL, err, sizeof err);
    is_double(topomap_topology_cost(t, 0, 0, 0, 7), 0.5, 1e-12, "flat node: two cores cost 1/2");
    is_double(topomap_topology_cost(t, 0, 3, 0, 3), 0, 0, "same core: 0");
    is_double(topomap_topology_cost(t, 0, 0, 15, 0), 6, 1e-12, "mesh (0,0)-(3,3): 6 hops x 1");
    ok(topomap_topology_set_hop_cost(t, 2.5) == 0, "hop_cost 2.5");
    is_double(topomap_topology_cost(t, 0, 0, 15, 0), 15, 1e-12, "6 hops x 2.5");
    errno = 0;
    ok(topomap_topology_set_hop_cost(t, -1) < 0 && errno == EINVAL, "negative hop_cost: EINVAL");

    int arity[2] = {2, 4};
    double cost[3] = {0.7, 0.2, 0.05};
    ok(topomap_topology_set_node_levels(t, 2, arity, cost, err, sizeof err) == 0,
       "levels 2 x 4 with costs 0.7, 0.2, 0.05");
    is_int(topomap_topology_cores(t), 8, "8 cores");
    is_double(topomap_topology_cost(t, 1, 3, 1, 4), 0.7, 1e-12, "cores 3 and 4: 0.7");
    is_double(topomap_topology_cost(t, 1, 4, 1, 7), 0.2, 1e-12, "cores 4 and 7: 0.2");
    is_double(topomap_topology_cost(t, 1, 6, 1, 6), 0.05, 1e-12, "same core: 0.05");
    errno = 0;
    is_double(topomap_topology_cost(t, 1, 8, 1, 0), -1, 0, "core 8 out of range: -1");
    ok(errno == EINVAL, "  errno EINVAL");
    errno = 0;
    is_int(topomap_topology_hops(t, 0, 16), -1, "node 16 out of range: -1");
    ok(errno == EINVAL, "  errno EINVAL");
    ok(topomap_topology_coords(t, -1, NULL, 0) < 0 && errno == EINVAL, "coords of node -1: EINVAL");

    int bad[2] = {2, 0};
    ok(topomap_topology_set_node_levels(t, 2, bad, cost, err, sizeof err) < 0 && errno == EINVAL,
       "arity 0 rejected");
    like(err, "node level 1: arity must be >= 1", "  message: %s", err);
    double neg[3] = {1, -1, 0};
    ok(topomap_topology_set_node_levels(t, 2, arity, neg, err, sizeof err) < 0 && errno == EINVAL,
       "negative cost rejected");
    like(err, "node cost 1 must be a number from 0 to 1e+06", "  message: %s", err);
    is_int(topomap_topology_cores(t), 8, "  the topology is unchanged");
    is_int(topomap_topology_node_lookup(t, "node15"), 15, "lookup node15");
    errno = 0;
    ok(topomap_topology_node_lookup(t, "node16") < 0 && errno == ENOENT, "lookup node16: ENOENT");
    ok(topomap_topology_node_lookup(t, NULL) < 0 && errno == ENOENT, "lookup NULL: ENOENT");
    topomap_topology_free(t);
}

static void test_shipped(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load(SHIPPED "torus-8x8x8.yaml", err, sizeof err);
    ok(t != NULL, "torus-8x8x8.yaml loads: %s", t ? "" : err);
    if (t) {
        is_str(topomap_topology_kind(t), "torus", "  torus");
        is_int(topomap_topology_nnodes(t), 512, "  512 nodes");
        is_int(topomap_topology_cores(t), 4, "  4 cores");
        is_int(topomap_topology_diameter(t), 12, "  diameter 12");
        int c[3];
        topomap_topology_coords(t, topomap_topology_node_lookup(t, "t073"), c, 3);
        ok(c[0] == 1 && c[1] == 1 && c[2] == 1, "  t073 = 1 + 8 + 64 is (1,1,1)");
        is_int(hops_by_name(t, "t000", "t007"), 1, "  t000-t007 wrap: 1");
        is_int(hops_by_name(t, "t000", "t292"), 12, "  t000-t292 = (4,4,4): 12");
        char *d = describe(t);
        like(d, "name: torus-8x8x8\n", "  describe: name");
        like(d, "kind: torus\n", "  describe: kind");
        like(d, "dims: 8 x 8 x 8 (wrap: yes yes yes", "  describe: dims");
        like(d, "nodes: 512 (t000 .. t511)\n", "  describe: nodes");
        like(d, "cores per node: 4 (core 4)\n", "  describe: cores");
        like(d, "diameter: 12 hops\n", "  describe: diameter");
        like(d, "hop_cost: 1\n", "  describe: hop_cost");
        topomap_topology_free(t);
    }
    t = topomap_topology_load(SHIPPED "torus-16x16x16.yaml", err, sizeof err);
    ok(t != NULL, "torus-16x16x16.yaml loads: %s", t ? "" : err);
    if (t) {
        is_int(topomap_topology_nnodes(t), 4096, "  4096 nodes");
        is_int(topomap_topology_cores(t), 4, "  4 cores");
        is_int(topomap_topology_diameter(t), 24, "  diameter 24");
        int c[3];
        topomap_topology_coords(t, topomap_topology_node_lookup(t, "t0273"), c, 3);
        ok(c[0] == 1 && c[1] == 1 && c[2] == 1, "  t0273 = 1 + 16 + 256 is (1,1,1)");
        is_int(hops_by_name(t, "t0000", "t4095"), 3, "  (0,0,0)-(15,15,15) wraps: 3");
        topomap_topology_free(t);
    }
    t = topomap_topology_load(SHIPPED "fattree-plafrim2.yaml", err, sizeof err);
    ok(t != NULL, "fattree-plafrim2.yaml loads: %s", t ? "" : err);
    if (t) {
        is_str(topomap_topology_kind(t), "fat-tree", "  fat-tree");
        is_int(topomap_topology_nnodes(t), 88, "  88 nodes");
        is_int(topomap_topology_cores(t), 24, "  24 cores");
        is_int(topomap_topology_diameter(t), 4, "  diameter 4");
        is_int(hops_by_name(t, "plafrim001", "plafrim022"), 2, "  plafrim001-022 same leaf: 2");
        is_int(hops_by_name(t, "plafrim022", "plafrim023"), 4, "  plafrim022-023: 4");
        is_int(hops_by_name(t, "plafrim045", "plafrim088"), 4, "  plafrim045-088: 4");
        is_double(topomap_topology_cost(t, 0, 0, 0, 1), 0.125, 1e-12, "  same NUMA: 0.125");
        is_double(topomap_topology_cost(t, 0, 0, 0, 6), 0.25, 1e-12, "  same socket: 0.25");
        is_double(topomap_topology_cost(t, 0, 0, 0, 12), 0.5, 1e-12, "  two sockets: 0.5");
        is_double(topomap_topology_cost(t, 0, 0, 30, 0), 4, 1e-12, "  across leaves: 4");
        like(describe(t), "cores per node: 24 (socket 2 x numa 2 x core 6)", "  describe");
        topomap_topology_free(t);
    }
    t = topomap_topology_load(SHIPPED "tianhe3-prototype.yaml", err, sizeof err);
    ok(t != NULL, "tianhe3-prototype.yaml loads: %s", t ? "" : err);
    if (t) {
        is_str(topomap_topology_kind(t), "tianhe3", "  tianhe3");
        is_int(topomap_topology_nnodes(t), 1536, "  1536 nodes");
        is_int(topomap_topology_cores(t), 16, "  16 cores");
        is_int(topomap_topology_diameter(t), 6, "  diameter 6");
        is_int(hops_by_name(t, "cn0000", "cn0047"), 1, "  cn0000-cn0047 one chip, left: 1");
        is_int(hops_by_name(t, "cn0000", "cn0048"), 2, "  cn0000-cn0048 other side: 2");
        is_int(hops_by_name(t, "cn0000", "cn0096"), 3, "  cn0000-cn0096 chip (0,1): 3");
        is_int(hops_by_name(t, "cn0000", "cn0384"), 3, "  cn0000-cn0384 chip (1,0): 3");
        is_int(hops_by_name(t, "cn0000", "cn0432"), 4, "  cn0000-cn0432 chip (1,0) right: 4");
        is_int(hops_by_name(t, "cn0000", "cn0480"), 5, "  cn0000-cn0480 chip (1,1): 5");
        is_int(hops_by_name(t, "cn1535", "cn0000"), 6, "  cn1535-cn0000: 6");
        like(describe(t), "chips: 4 x 4 mesh, 96 nodes per chip (48 left, 48 right)",
             "  describe");
        topomap_topology_free(t);
    }
    errno = 0;
    ok(!topomap_topology_load(SHIPPED "no-such.yaml", err, sizeof err) && errno == ENOENT,
       "missing file: ENOENT");
    like(err, "no-such.yaml: No such file or directory", "  message: %s", err);
    ok(!topomap_topology_load(SHIPPED, err, sizeof err) && errno == EISDIR, "a directory: EISDIR");
}

static void test_yaml(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load(DATA "mesh-list.yaml", err, sizeof err);
    ok(t != NULL, "mesh-list.yaml loads: %s", t ? "" : err);
    if (t) {
        is_str(topomap_topology_kind(t), "torus", "  a wrapping dimension makes it a torus");
        is_int(topomap_topology_nnodes(t), 6, "  6 nodes from two hostlists");
        is_str(topomap_topology_node_name(t, 3), "b1", "  node 3 is b1");
        is_int(hops_by_name(t, "a1", "a3"), 1, "  a1-a3: x wraps, 1");
        is_int(hops_by_name(t, "a1", "b3"), 2, "  a1-b3: 1 (x, wrapped) + 1 (y)");
        is_int(topomap_topology_diameter(t), 2, "  diameter 1 + 1");
        is_double(topomap_topology_cost(t, 0, 0, 5, 0), 8, 1e-12, "  a1-b3: 2 hops x hop_cost 4");
        is_int(topomap_topology_cores(t), 6, "  2 x 3 cores");
        is_double(topomap_topology_cost(t, 0, 2, 0, 3), 2, 1e-12, "  sockets: hop_cost / 2");
        is_double(topomap_topology_cost(t, 0, 0, 0, 1), 1, 1e-12, "  cores: hop_cost / 4");
        is_double(topomap_topology_cost(t, 0, 1, 0, 1), 0, 0, "  same core: 0");
        like(describe(t), "cores per node: 6 (socket 2 x core 3)", "  the last level is 'core'");
        topomap_topology_free(t);
    }
    t = topomap_topology_load(DATA "tree-defaults.yaml", err, sizeof err);
    ok(t != NULL, "tree-defaults.yaml loads: %s", t ? "" : err);
    if (t) {
        is_int(topomap_topology_nnodes(t), 12, "  12 nodes");
        is_str(topomap_topology_node_name(t, 11), "node11", "  default names node00..node11");
        is_int(topomap_topology_hops(t, 0, 2), 2, "  same leaf: 2");
        is_int(topomap_topology_hops(t, 0, 3), 4, "  one level up: 4");
        is_int(topomap_topology_hops(t, 0, 6), 6, "  two levels up: 6");
        is_double(topomap_topology_cost(t, 0, 1, 0, 1), 0.5, 0, "  self_cost 0.5");
        is_double(topomap_topology_cost(t, 0, 0, 0, 1), 0.5, 0, "  two cores: default 1/2");
        topomap_topology_free(t);
    }
}

int main(void)
{
    test_tianhe3();
    test_torus();
    test_tree();
    test_costs();
    test_slurmconf();
    test_hwloc();
    test_shipped();
    test_yaml();
    topomap_topology_free(NULL);
    return done_testing();
}
