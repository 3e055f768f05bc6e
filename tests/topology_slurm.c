/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's own network descriptions: topology/block files (BlockName= lines
 * of a topology.conf), Slurm 25.05's topology.yaml (tree, block and flat
 * topologies, picked by name), and finding a site's topology file beside
 * slurm.conf. Fixtures in data/topologies/ are written from the examples of
 * Slurm's topology.conf(5) and topology.yaml(5); hop counts were worked out
 * by hand from the model of core/topo_slurmblock.c; every error is one line
 * naming FILE:LINE (topology.conf) or FILE:LINE:COL (YAML). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

#define DATA SRCDIR "/data/topologies/"

static int hops(const topomap_topology_t *t, const char *a, const char *b)
{
    return topomap_topology_hops(t, topomap_topology_node_lookup(t, a),
                                 topomap_topology_node_lookup(t, b));
}

static char *describe(const topomap_topology_t *t)
{
    static char buf[4096];
    FILE *f = tmpfile();
    size_t n = 0;
    if (f && topomap_topology_describe(t, f) == 0) {
        rewind(f);
        n = fread(buf, 1, sizeof buf - 1, f);
    }
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

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
        is_int(hops(t, "node1", "node32"), 2, "same block: 2 hops");
        is_int(hops(t, "node32", "node33"), 4, "blocks 1 and 2, one aggregate of 120: 4");
        is_int(hops(t, "node1", "node128"), 4, "blocks 1 and 4: 4");
        is_int(topomap_topology_diameter(t), 4, "diameter 4 (no root above the aggregate)");
        like(describe(t), "blocks: 4 (Slurm topology/block), base block size 30; hops: 2 in a "
             "block, 4 in an aggregated block of 120 nodes (4 blocks)\n", "describe: %s",
             describe(t));
        check_routes(t, "block.conf");
        topomap_topology_free(t);
    }

    t = topomap_topology_load(DATA "block-levels.conf", err, sizeof err);
    ok(t != NULL, "block-levels.conf loads: %s", t ? "" : err);
    if (t) {
        is_int(topomap_topology_nnodes(t), 32, "32 nodes");
        is_str(topomap_topology_node_name(t, 13), "n14", "node 13 is n14 (continued line)");
        is_str(topomap_topology_node_name(t, 16), "n17", "node 16 is n17 (quoted Nodes=)");
        is_int(hops(t, "n01", "n04"), 2, "b1: 2 hops");
        is_int(hops(t, "n04", "n05"), 4, "b1-b2, one block of 8: 4");
        is_int(hops(t, "n01", "n16"), 6, "b1-b4, one block of 16: 6");
        is_int(hops(t, "n16", "n17"), 8, "b4-b5, through the root: 8");
        is_int(hops(t, "n09", "n32"), 8, "b3-b8: 8");
        is_int(topomap_topology_route_max(t), 8, "routes of up to 8 channels");
        like(describe(t), "hops: 2 in a block, 4 in an aggregated block of 8 nodes (2 blocks), 6 "
             "in one of 16 nodes (4 blocks), 8 between those\n", "describe: %s", describe(t));
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
        is_int(hops(t, "x1", "x4"), 2, "r1: 2");
        is_int(hops(t, "x1", "x8"), 4, "r1-r2, paired: 4");
        is_int(hops(t, "x1", "x10"), 6, "r1-r3, in the pair of pairs: 6");
        like(describe(t), "base block size 2 (the smallest block: no BlockSizes)", "describe: %s",
             describe(t));
        check_routes(t, "block-default.conf");
        topomap_topology_free(t);
    }

    static const struct {
        const char *file, *msg;
    } bad[] = {
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
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, DATA "bad/%s", bad[i].file);
        err[0] = 0;
        errno = 0;
        t = topomap_topology_load(path, err, sizeof err);
        ok(!t && errno == EINVAL, "%s rejected with EINVAL", bad[i].file);
        like(err, bad[i].msg, "  message: %s", err);
        ok(!strchr(err, '\n') && !strncmp(err, path, strlen(path)), "  one line, from the path");
        topomap_topology_free(t);
    }
}

int main(void)
{
    test_block_conf();
    return done_testing();
}
