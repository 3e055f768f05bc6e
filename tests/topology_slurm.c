/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's own network descriptions: topology/block files (BlockName= lines
 * of a topology.conf), Slurm 25.05's topology.yaml (tree, block and flat
 * topologies, picked by name), and finding a site's topology file beside
 * slurm.conf. Fixtures in data/topologies/ are written from the examples of
 * Slurm's topology.conf(5) and topology.yaml(5); hop counts were worked out
 * by hand from the model of libtopomap/topo_slurmblock.c; every error is one line
 * naming FILE:LINE (topology.conf) or FILE:LINE:COL (YAML). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "topo_check.h"
#include "topomap.h"

#define DATA SRCDIR "/data/topologies/"

/* Every route has as many channels as hops, each pair both ways, and the
 * diameter is the largest hop count: routes and channels (congestion.c)
 * agree with the hop counts of the tree. */
static void check_routes(const topomap_topology_t *t, const char *what)
{
    int n = topomap_topology_nnodes(t), max = topomap_topology_route_max(t), bad = 0, diam = 0;
    int *el = malloc(sizeof(int) * (size_t)(max + 1));
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            int h = topomap_topology_hops(t, a, b);
            if (h > diam)
                diam = h;
            if (a == b)
                continue;
            int len = topomap_topology_route(t, a, b, el, max + 1);
            bad += len != h || el[0] != a || el[len] != b || h != topomap_topology_hops(t, b, a);
        }
    free(el);
    ok(bad == 0, "%s: every route has one channel per hop, from a to b", what);
    is_int(topomap_topology_diameter(t), diam, "%s: diameter %d", what, diam);
}

static void test_block_conf(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load(DATA "block.conf", err, sizeof err);
    ok(t != NULL, "block.conf (topology.conf(5)'s example) loads: %s", t ? "" : err);
    if (t) {
        is_str(topomap_topology_kind(t), "fat-tree", "kind fat-tree (a tree of switches)");
        is_int(topomap_topology_nnodes(t), 128, "128 nodes");
        is_str(topomap_topology_node_name(t, 0), "node1", "node 0 is node1");
        is_str(topomap_topology_node_name(t, 127), "node128", "node 127 is node128");
        is_int(hops_by_name(t, "node1", "node32"), 2, "same block: 2 hops");
        is_int(hops_by_name(t, "node32", "node33"), 4, "blocks 1 and 2, one aggregate of 120: 4");
        is_int(hops_by_name(t, "node1", "node128"), 4, "blocks 1 and 4: 4");
        is_int(topomap_topology_diameter(t), 4, "diameter 4 (no root above the aggregate)");
        like(describe(t), "blocks: 4 (Slurm topology/block), base block size 30; hops: 2 in a "
             "block, 4 in an aggregated block of 120 nodes (4 blocks)\n", "describe: the levels");
        check_routes(t, "block.conf");
        topomap_topology_free(t);
    }

    t = topomap_topology_load(DATA "block-levels.conf", err, sizeof err);
    ok(t != NULL, "block-levels.conf loads: %s", t ? "" : err);
    if (t) {
        is_int(topomap_topology_nnodes(t), 32, "32 nodes");
        is_str(topomap_topology_node_name(t, 13), "n14", "node 13 is n14 (continued line)");
        is_str(topomap_topology_node_name(t, 16), "n17", "node 16 is n17 (quoted Nodes=)");
        is_int(hops_by_name(t, "n01", "n04"), 2, "b1: 2 hops");
        is_int(hops_by_name(t, "n04", "n05"), 4, "b1-b2, one block of 8: 4");
        is_int(hops_by_name(t, "n01", "n16"), 6, "b1-b4, one block of 16: 6");
        is_int(hops_by_name(t, "n16", "n17"), 8, "b4-b5, through the root: 8");
        is_int(hops_by_name(t, "n09", "n32"), 8, "b3-b8: 8");
        is_int(topomap_topology_route_max(t), 8, "routes of up to 8 channels");
        like(describe(t), "hops: 2 in a block, 4 in an aggregated block of 8 nodes (2 blocks), 6 "
             "in one of 16 nodes (4 blocks), 8 between those\n", "describe: the levels");
        int c[6];
        is_int(topomap_topology_coords(t, 20, c, 6), 5, "n21: root, 16, 8, block, port");
        ok(c[4] == 0 && c[3] == 5, "n21: port 0 of block 5 (b6)");
        check_routes(t, "block-levels.conf");
        topomap_topology_free(t);
    }

    t = topomap_topology_load(DATA "block-default.conf", err, sizeof err);
    ok(t != NULL, "block-default.conf (no BlockSizes) loads: %s", t ? "" : err);
    if (t) {
        is_int(topomap_topology_nnodes(t), 10, "10 nodes");
        is_int(hops_by_name(t, "x1", "x4"), 2, "r1: 2");
        is_int(hops_by_name(t, "x1", "x8"), 4, "r1-r2, paired: 4");
        is_int(hops_by_name(t, "x1", "x10"), 6, "r1-r3, in the pair of pairs: 6");
        like(describe(t), "base block size 2 (the smallest block: no BlockSizes)",
             "describe: the levels");
        check_routes(t, "block-default.conf");
        topomap_topology_free(t);
    }

    static const struct topo_reject bad[] = {
        {"block-unknown-key.conf",
         "block-unknown-key.conf:3: unknown key 'Node' (expected BlockName, Nodes, BlockSizes)"},
        {"block-node-twice.conf",
         "block-node-twice.conf:2: node 'n4' is in block 'b2' and already in block 'b1' (line 1)"},
        {"block-no-nodes.conf", "block-no-nodes.conf:2: block 'b2' has no Nodes="},
        {"block-empty-nodes.conf", "block-empty-nodes.conf:2: empty Nodes="},
        {"block-no-name.conf", "block-no-name.conf:2: line has no BlockName="},
        {"block-twice.conf", "block-twice.conf:3: block 'b1' is already defined at line 1"},
        {"block-sizes-order.conf",
         "block-sizes-order.conf:3: BlockSizes=: 4 after 16: the sizes must ascend"},
        {"block-sizes-pow2.conf",
         "block-sizes-pow2.conf:3: BlockSizes=: 12 is not 4 times a power of two"},
        {"block-small.conf",
         "block-small.conf:2: block 'b2' has 2 nodes, fewer than the base block size 4 "
         "(BlockSizes= line 3)"},
        {"block-sizes-twice.conf",
         "block-sizes-twice.conf:3: BlockSizes= is already given at line 1"},
        {"block-sizes-bad.conf",
         "block-sizes-bad.conf:2: BlockSizes=: 'eight' is not a number of nodes"},
        {"block-sizes-inline.conf",
         "block-sizes-inline.conf:1: BlockSizes= goes on a line of its own"},
        {"block-only-sizes.conf", "block-only-sizes.conf: no BlockName= lines"},
        {"conf-mixed.conf",
         "conf-mixed.conf:3: SwitchName= in a topology/block file (BlockName= at line 2): a "
         "topology.conf describes topology/tree or topology/block, not both"},
    };
    check_rejects(DATA "bad/", bad, sizeof bad / sizeof bad[0]);
}

static void test_slurm_yaml(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    /* topology.yaml(5)'s example: the default is topo1 (cluster_default). */
    topomap_topology_t *t = topomap_topology_load(DATA "slurm-topology.yaml", err, sizeof err);
    ok(t != NULL, "slurm-topology.yaml (topology.yaml(5)'s example) loads: %s", t ? "" : err);
    if (t) {
        like(describe(t), "name: topo1\n", "the default is topo1 (cluster_default: True)");
        is_int(topomap_topology_nnodes(t), 4, "topo1: 4 nodes under sw_root");
        is_int(hops_by_name(t, "node01", "node04"), 2, "topo1: one switch, 2 hops");
        topomap_topology_free(t);
    }
    t = topomap_topology_load_named(DATA "slurm-topology.yaml", "topo2", err, sizeof err);
    ok(t != NULL, "topo2 by name: %s", t ? "" : err);
    if (t) {
        like(describe(t), "name: topo2\n", "describe names topo2");
        like(describe(t), "blocks: 4 (Slurm topology/block), base block size 4; hops: 2 in a "
             "block, 4 in an aggregated block of 16 nodes (4 blocks)\n", "topo2: blocks");
        is_int(topomap_topology_nnodes(t), 16, "topo2: 16 nodes");
        is_str(topomap_topology_node_name(t, 4), "node05", "topo2: node 4 is node05 (b2)");
        is_int(hops_by_name(t, "node01", "node04"), 2, "topo2: same block, 2");
        is_int(hops_by_name(t, "node04", "node13"), 4, "topo2: b1-b4 in the block of 16, 4");
        check_routes(t, "topo2");
        topomap_topology_free(t);
    }
    t = topomap_topology_load_named(DATA "slurm-topology.yaml", "topo3", err, sizeof err);
    ok(t != NULL, "topo3 (flat) by name: %s", t ? "" : err);
    if (t) {
        like(describe(t), "flat (Slurm topology/flat)", "topo3: flat");
        is_int(topomap_topology_nnodes(t), 16, "topo3: the 16 nodes the file names, once each");
        is_str(topomap_topology_node_name(t, 0), "node01", "topo3: node01 first");
        is_str(topomap_topology_node_name(t, 15), "node16", "topo3: node16 last");
        is_int(hops_by_name(t, "node01", "node16"), 2, "topo3: 2 hops between any two");
        is_int(topomap_topology_diameter(t), 2, "topo3: diameter 2");
        check_routes(t, "topo3");
        topomap_topology_free(t);
    }
    t = topomap_topology_load(DATA "slurm-tree.yaml", err, sizeof err);
    ok(t != NULL, "slurm-tree.yaml: the default is the second (flat) topology: %s", t ? "" : err);
    if (t) {
        like(describe(t), "name: everything\n", "  named everything");
        is_int(topomap_topology_nnodes(t), 18, "  18 nodes");
        topomap_topology_free(t);
    }
    t = topomap_topology_load_named(DATA "slurm-tree.yaml", "fabric", err, sizeof err);
    ok(t != NULL, "fabric by name: %s", t ? "" : err);
    if (t) {
        is_int(topomap_topology_nnodes(t), 18, "fabric: 18 nodes");
        is_str(topomap_topology_node_name(t, 6), "dev6", "fabric: depth first from s3: dev6 7th");
        is_int(hops_by_name(t, "dev0", "dev5"), 2, "fabric: under s0, 2");
        is_int(hops_by_name(t, "dev0", "dev17"), 4, "fabric: s0 to s2 through s3, 4");
        like(describe(t), "switches: 4", "fabric: 4 switches");
        check_routes(t, "fabric");
        topomap_topology_free(t);
    }

    /* Names: an unknown one, and names for files that have none. */
    errno = 0;
    t = topomap_topology_load_named(DATA "slurm-topology.yaml", "topo9", err, sizeof err);
    ok(!t && errno == EINVAL, "an unknown name: EINVAL");
    like(err, "slurm-topology.yaml:3:1: no topology named 'topo9' (the file has: topo1, topo2, "
         "topo3)", "  message: %s", err);
    errno = 0;
    t = topomap_topology_load_named(DATA "block.conf", "b", err, sizeof err);
    ok(!t && errno == EINVAL, "a name for a topology.conf: EINVAL");
    like(err, "block.conf: no topology named 'b': a topology.conf describes one topology",
         "  message: %s", err);
    errno = 0;
    t = topomap_topology_load_named(DATA "tree-defaults.yaml", "x", err, sizeof err);
    ok(!t && errno == EINVAL, "a name for topomap's YAML: EINVAL");
    like(err, "tree-defaults.yaml: no topology named 'x': only a Slurm topology.yaml names its "
         "topologies", "  message: %s", err);
    errno = 0;
    ok(!topomap_topology_load_named(DATA "slurm-topology.yaml", "", err, sizeof err) &&
       errno == EINVAL, "an empty name: EINVAL");
    t = topomap_topology_load_named(DATA "slurm-topology.yaml", NULL, err, sizeof err);
    ok(t && strstr(describe(t), "name: topo1\n"), "a NULL name: the default");
    topomap_topology_free(t);

    static const struct topo_reject bad[] = {
        {"syaml-unknown-key.yaml", "syaml-unknown-key.yaml:5:7: unknown key 'node' in switch "
                                   "(expected one of: switch, children, nodes)"},
        {"syaml-missing-nodes.yaml",
         "syaml-missing-nodes.yaml:6:7: missing required key 'nodes' in a block"},
        {"syaml-node-twice.yaml",
         "syaml-node-twice.yaml:7:7: node 'n4' is in block 'b2' and already in block 'b1' (line 5)"},
        {"syaml-empty-block.yaml",
         "syaml-empty-block.yaml:7:14: 'nodes' must be a non-empty string, not empty"},
        {"syaml-block-sizes.yaml",
         "syaml-block-sizes.yaml:5:9: block_sizes: 12 is not 4 times a power of two"},
        {"syaml-syntax.yaml", "syaml-syntax.yaml:5:6: YAML syntax error: did not find expected key"},
        {"syaml-two-kinds.yaml", "syaml-two-kinds.yaml:3:3: topology 't2': give exactly one of "
                                 "'tree', 'block', 'ring', 'torus3d' or 'flat' (2 given)"},
        {"syaml-first-key.yaml", "syaml-first-key.yaml:1:3: 'topology' must be the first key of a "
                                 "topology, not 'cluster_default'"},
        {"syaml-dup-name.yaml", "syaml-dup-name.yaml:5:3: topology 't1' is already defined at "
                                "line 1"},
        {"syaml-flat-false.yaml", "syaml-flat-false.yaml:2:9: topology 't1': 'flat' must be true"},
        {"syaml-flat-alone.yaml", "syaml-flat-alone.yaml:1:3: topology 'only' is flat and no other "
                                  "topology of the file names nodes"},
        {"syaml-no-name.yaml",
         "syaml-no-name.yaml:1:3: missing required key 'topology' in a topology"},
        {"syaml-undefined-switch.yaml",
         "syaml-undefined-switch.yaml:4:7: switch 's1' is not defined"},
    };
    check_rejects(DATA "bad/", bad, sizeof bad / sizeof bad[0]);
}

static void test_slurm_path(void)
{
    char dir[] = "/tmp/topomap-slurmpath.XXXXXX", conf[1100], yaml[1100], slurm[1100];
    char out[1100], err[TOPOMAP_ERRLEN] = "";
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp: %s", strerror(errno));
        return;
    }
    snprintf(slurm, sizeof slurm, "%s/slurm.conf", dir);
    snprintf(conf, sizeof conf, "%s/topology.conf", dir);
    snprintf(yaml, sizeof yaml, "%s/topology.yaml", dir);

    topo_put(dir, "slurm.conf", "ClusterName=c\n# TopologyPlugin=topology/tree\nNodeName=n[1-4]\n");
    errno = 0;
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) < 0 &&
       errno == ENOENT, "no TopologyPlugin=, no topology.yaml: ENOENT");
    like(err, "slurm.conf: the cluster describes no network topology (no TopologyPlugin=: "
         "topology/flat, and no ", "  message: %s", err);

    topo_put(dir, "slurm.conf", "ClusterName=c\ntopologyplugin=topology/flat # the default\n");
    errno = 0;
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) < 0 &&
       errno == ENOENT, "topology/flat: ENOENT");
    like(err, "(TopologyPlugin=topology/flat, and no ", "  message: %s", err);

    topo_put(dir, "slurm.conf", "TopologyPlugin=topology/tree\n");
    errno = 0;
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) < 0 &&
       errno == ENOENT, "topology/tree without topology.conf: ENOENT");
    like(err, "slurm.conf:1: TopologyPlugin=topology/tree reads ", "  message: %s", err);

    topo_put(dir, "topology.conf", "BlockName=b1 Nodes=n[1-4]\n");
    topo_put(dir, "slurm.conf", "ClusterName=c\nTopologyPlugin=\"topology/block\"\n");
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) == 0,
       "topology/block: found: %s", err);
    is_str(out, conf, "  topology.conf beside slurm.conf");
    topomap_topology_t *t = topomap_topology_load(out, err, sizeof err);
    ok(t && topomap_topology_nnodes(t) == 4, "  and it loads: %s", t ? "" : err);
    topomap_topology_free(t);
    errno = 0;
    ok(topomap_slurm_topology_path(slurm, out, 10, err, sizeof err) < 0 && errno == ERANGE,
       "a buffer too small: ERANGE");

    topo_put(dir, "slurm.conf", "TopologyPlugin=topology/3d_torus\n");
    errno = 0;
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) < 0 &&
       errno == EINVAL, "topology/3d_torus: EINVAL");
    like(err, "slurm.conf:1: TopologyPlugin=topology/3d_torus: topomap reads the networks of "
         "topology/tree, topology/block, topology/ring, topology/torus3d and topology/flat only",
         "  message: %s", err);

    /* A topology.yaml wins over topology.conf, whatever TopologyPlugin= says. */
    topo_put(dir, "topology.yaml", "- topology: t\n  flat: true\n- topology: u\n  tree:\n"
                              "    switches:\n    - {switch: s, nodes: \"n[1-2]\"}\n");
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) == 0,
       "topology.yaml: found: %s", err);
    is_str(out, yaml, "  topology.yaml beside slurm.conf");
    topo_put(dir, "slurm.conf", "TopologyPlugin=topology/tree\n");
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) == 0 &&
       !strcmp(out, yaml), "  before topology.conf");
    t = topomap_topology_load(out, err, sizeof err);
    ok(t && topomap_topology_nnodes(t) == 2, "  its default (flat t over u's nodes) loads: %s",
       t ? "" : err);
    topomap_topology_free(t);

    errno = 0;
    snprintf(out, sizeof out, "%s/none.conf", dir);
    ok(topomap_slurm_topology_path(out, out, sizeof out, err, sizeof err) < 0 && errno == ENOENT,
       "a missing slurm.conf: ENOENT");
    errno = 0;
    ok(topomap_slurm_topology_path(NULL, out, sizeof out, err, sizeof err) < 0 && errno == EINVAL,
       "a NULL slurm.conf: EINVAL");
    unlink(slurm);
    unlink(conf);
    unlink(yaml);
    rmdir(dir);
}

int main(void)
{
    test_block_conf();
    test_slurm_yaml();
    test_slurm_path();
    return done_testing();
}
