/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm 26.05's ring and torus3d topologies of topology.yaml
 * (libtopomap/topo_slurmyaml_torus.c, the pods model of topo_pods.c). The
 * fixtures are topology.yaml(5)'s example of slurm-26-05-3-1
 * (data/topologies/slurm-2605.yaml) and a file with regions, holes and two
 * tori, and topology/ring's RingName= lines of a topology.conf
 * (data/topologies/ring.conf); every hop count below was worked out by hand
 * from the coordinates the file gives (x varies fastest), and every broken
 * file gives one FILE:LINE[:COL] line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topo_check.h"
#include "topomap.h"

#define DATA SRCDIR "/data/topologies/"

static topomap_topology_t *load(const char *file, const char *name)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load_named(file, name, err, sizeof err);
    ok(t != NULL, "%s of %s loads: %s", name, strrchr(file, '/') + 1, t ? "" : err);
    return t;
}

/* Routes: a to b, as many channels as hops inside a pod (same pod: the same
 * coordinate 0), two (up to the virtual switch and down) between pods; hops
 * symmetric; the diameter the largest hop count. */
static void check_routes(const topomap_topology_t *t, int pods, const char *what)
{
    int n = topomap_topology_nnodes(t), max = topomap_topology_route_max(t), bad = 0, diam = 0;
    int *el = malloc(sizeof(int) * (size_t)(max + 1));
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            int h = topomap_topology_hops(t, a, b), ca[4], cb[4];
            diam = h > diam ? h : diam;
            if (a == b)
                continue;
            topomap_topology_coords(t, a, ca, 4);
            topomap_topology_coords(t, b, cb, 4);
            int len = topomap_topology_route(t, a, b, el, max + 1);
            int want = !pods || ca[0] == cb[0] ? h : 2;
            bad += len != want || el[0] != a || el[len] != b || h != topomap_topology_hops(t, b, a);
        }
    free(el);
    ok(bad == 0, "%s: every route goes from a to b, one channel a hop inside a pod", what);
    is_int(topomap_topology_diameter(t), diam, "%s: diameter %d", what, diam);
}

static void test_manpage(void)
{
    /* topo5: one 4 x 4 x 2 torus, node01..node32 in x-major order: node k
     * is at ((k-1) % 4, (k-1) / 4 % 4, (k-1) / 16). */
    topomap_topology_t *t = load(DATA "slurm-2605.yaml", "topo5");
    if (t) {
        is_str(topomap_topology_kind(t), "torus", "torus3d topo5: topomap's torus");
        is_int(topomap_topology_nnodes(t), 32, "  32 nodes");
        int c[4];
        ok(topomap_topology_shape(t) == TOPOMAP_SHAPE_GRID, "  a grid");
        is_int(topomap_topology_coords(t, topomap_topology_node_lookup(t, "node27"), c, 4), 3,
               "  3 coordinates");
        ok(c[0] == 2 && c[1] == 2 && c[2] == 1, "  node27 at (2, 2, 1)");
        is_int(hops_by_name(t, "node01", "node04"), 1, "  node01 (0,0,0) - node04 (3,0,0): 1, "
               "round the x ring");
        is_int(hops_by_name(t, "node01", "node06"), 2, "  node01 - node06 (1,1,0): 2");
        is_int(hops_by_name(t, "node01", "node11"), 4, "  node01 - node11 (2,2,0): 4");
        is_int(hops_by_name(t, "node01", "node32"), 3, "  node01 - node32 (3,3,1): 3");
        is_int(hops_by_name(t, "node01", "node27"), 5, "  node01 - node27 (2,2,1): 5");
        is_int(topomap_topology_diameter(t), 5, "  diameter 2 + 2 + 1");
        check_routes(t, 0, "topo5");
    }
    topomap_topology_free(t);

    /* topo4: rings node[01-08] and node[09-16]. */
    t = load(DATA "slurm-2605.yaml", "topo4");
    if (t) {
        is_str(topomap_topology_kind(t), "rings", "ring topo4: two rings");
        is_int(topomap_topology_nnodes(t), 16, "  16 nodes");
        is_int(hops_by_name(t, "node01", "node05"), 4, "  node01 - node05: 4, half the ring");
        is_int(hops_by_name(t, "node01", "node08"), 1, "  node01 - node08: 1, round the ring");
        is_int(hops_by_name(t, "node02", "node07"), 3, "  node02 - node07: 3 (8 - 5)");
        is_int(hops_by_name(t, "node09", "node16"), 1, "  node09 - node16: 1");
        is_int(hops_by_name(t, "node01", "node09"), 5, "  two rings: the longest in a ring + 1");
        is_int(topomap_topology_diameter(t), 5, "  diameter 5");
        int c[4];
        is_int(topomap_topology_coords(t, topomap_topology_node_lookup(t, "node11"), c, 4), 2,
               "  coordinates: ring, position");
        ok(c[0] == 1 && c[1] == 2, "  node11: ring 1, position 2");
        like(describe(t), "rings: 2 (Slurm topology/ring), every dimension wrapped; nodes of two "
             "different rings are 5 hops apart (a virtual switch)\n  ring0: 8 nodes in ring "
             "order\n", "  describe");
        is_int(topomap_topology_nelements(t), 17, "  16 nodes and the virtual switch");
        check_routes(t, 1, "topo4");
    }
    topomap_topology_free(t);

    /* 26.05's flat: {alpha_step_rank: true}; its nodes those of the others. */
    t = load(DATA "slurm-2605.yaml", "topo3a");
    ok(t && topomap_topology_nnodes(t) == 32, "flat as a mapping: the 32 nodes the others name");
    topomap_topology_free(t);
    t = load(DATA "slurm-2605.yaml", NULL);
    ok(t && !strcmp(topomap_topology_kind(t), "fat-tree"), "the default is still the tree");
    topomap_topology_free(t);
}

static void test_regions(void)
{
    /* Pod a, 4 x 2 x 2: a0k at (k % 4, k / 4, 0), a1k at (k % 3, k / 3, 1),
     * holes at (3, 0, 1) and (3, 1, 1); pod b, 2 x 2 x 1: bk at (k % 2, k / 2). */
    topomap_topology_t *t = load(DATA "slurm-torus3d-regions.yaml", NULL);
    if (t) {
        is_str(topomap_topology_kind(t), "tori", "regions with holes and two tori: kind tori");
        is_int(topomap_topology_nnodes(t), 18, "  14 + 4 nodes");
        is_int(hops_by_name(t, "a00", "a15"), 4, "  a00 (0,0,0) - a15 (2,1,1): 2 + 1 + 1");
        is_int(hops_by_name(t, "a03", "a10"), 2, "  a03 (3,0,0) - a10 (0,0,1): round x, then z");
        is_int(hops_by_name(t, "a12", "a07"), 3, "  a12 (2,0,1) - a07 (3,1,0): 3");
        is_int(hops_by_name(t, "b0", "b3"), 2, "  b0 - b3: 2");
        is_int(hops_by_name(t, "a00", "b0"), 5, "  two tori: a's diameter 4 + 1");
        is_int(topomap_topology_nelements(t), 21, "  18 nodes, 2 holes, the virtual switch");
        int el[8], a12 = topomap_topology_node_lookup(t, "a12");
        int a07 = topomap_topology_node_lookup(t, "a07");
        ok(topomap_topology_route(t, a12, a07, el, 8) == 3 && el[0] == a12 && el[1] == 18 &&
           el[2] == 19 && el[3] == a07, "  a12 -> a07: x through hole (3,0,1), y through hole "
           "(3,1,1), z down to a07");
        int b0 = topomap_topology_node_lookup(t, "b0"), a00 = topomap_topology_node_lookup(t, "a00");
        ok(topomap_topology_route(t, a00, b0, el, 8) == 2 && el[1] == 20 && el[2] == b0,
           "  a00 -> b0: up to the virtual switch and down");
        int c[4];
        ok(topomap_topology_coords(t, topomap_topology_node_lookup(t, "a15"), c, 4) == 4 &&
           c[0] == 0 && c[1] == 2 && c[2] == 1 && c[3] == 1, "  a15: torus 0 at (2, 1, 1)");
        like(describe(t), "  a: 4 x 2 x 2, 14 of 16 positions hold nodes (x varies fastest)\n",
             "  describe: the holes");
        check_routes(t, 1, "tori");
    }
    topomap_topology_free(t);

    t = load(DATA "slurm-torus3d-regions.yaml", "one-ring");
    if (t) {
        is_str(topomap_topology_kind(t), "torus", "one ring: a 1-D torus");
        is_int(hops_by_name(t, "r1", "r4"), 3, "  r1 - r4: 3 of 6");
        is_int(hops_by_name(t, "r1", "r6"), 1, "  r1 - r6: 1, round the ring");
    }
    topomap_topology_free(t);

    /* Two regions filling a 2 x 2 x 2 torus, z = 1 first: nodes in
     * position order whatever the regions' order. */
    t = load(DATA "slurm-torus3d-regions.yaml", "one-torus");
    if (t) {
        is_str(topomap_topology_kind(t), "torus", "regions filling the torus: a torus");
        is_str(topomap_topology_node_name(t, 0), "t0", "  node 0 is t0, at (0, 0, 0)");
        is_str(topomap_topology_node_name(t, 4), "t4", "  node 4 is t4, at (0, 0, 1)");
        is_int(hops_by_name(t, "t0", "t7"), 3, "  t0 - t7 (1,1,1): 3");
    }
    topomap_topology_free(t);
}

static void test_rejects(void)
{
    static const struct topo_reject bad[] = {
        {"syaml-ring-big.yaml", "syaml-ring-big.yaml:4:9: ring 'big' has 17 nodes; Slurm allows "
                                "at most 16 in a ring"},
        {"syaml-ring-dup.yaml", "syaml-ring-dup.yaml:6:9: ring 'r0' is already defined at line 4"},
        {"syaml-ring-key.yaml", "syaml-ring-key.yaml:5:9: unknown key 'node' in ring (expected "
                                "one of: ring, nodes)"},
        {"syaml-ring-twice.yaml", "syaml-ring-twice.yaml:6:9: node 'n4' is in ring 'r1' and "
                                  "already in ring 'r0' (line 4)"},
        {"syaml-torus-both.yaml", "syaml-torus-both.yaml:4:9: torus 'pod1': give exactly one of "
                                  "'nodes' or 'regions'"},
        {"syaml-torus-no-nodes.yaml", "syaml-torus-no-nodes.yaml:4:9: torus 'a': give exactly one "
                                      "of 'nodes' or 'regions'"},
        {"syaml-torus-count.yaml", "syaml-torus-count.yaml:6:16: 'nodes' names 31 nodes but dims "
                                   "4 x 4 x 2 have 32 positions (Slurm fills them in x-major "
                                   "order)"},
        {"syaml-torus-dims.yaml", "syaml-torus-dims.yaml:5:31: 'dims.z' must be in 1..65535, "
                                  "not 0"},
        {"syaml-torus-no-z.yaml", "syaml-torus-no-z.yaml:5:15: missing required key 'z' in dims"},
        {"syaml-torus-dup.yaml", "syaml-torus-dup.yaml:7:9: torus 'a' is already defined at line "
                                 "4"},
        {"syaml-torus-overlap.yaml", "syaml-torus-overlap.yaml:9:13: the region overlaps the one "
                                     "at line 7 at (1, 1, 0)"},
        {"syaml-torus-past.yaml", "syaml-torus-past.yaml:7:13: the region from (3, 0, 0) of 2 x 1 "
                                  "x 1 goes past the torus (4 x 2 x 1); regions do not wrap"},
        {"syaml-torus-placement.yaml", "syaml-torus-placement.yaml:8:23: 'placement dims.x' must "
                                       "be in 1..2, not 4"},
        {"syaml-torus-seed.yaml", "syaml-torus-seed.yaml:9:36: 'anchor_seed.y' must be in 0..1, "
                                  "not 2"},
        {"syaml-torus-shared.yaml", "syaml-torus-shared.yaml:9:16: node 'n2' is already placed "
                                    "at line 6 (a node has one place)"},
    };
    check_rejects(DATA "bad/", bad, sizeof bad / sizeof bad[0]);
}

/* topology/ring in a topology.conf: the same rings as topo4. */
static void test_ring_conf(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load(DATA "ring.conf", err, sizeof err);
    ok(t != NULL, "ring.conf (RingName= lines) loads: %s", t ? "" : err);
    if (t) {
        is_str(topomap_topology_kind(t), "rings", "  kind rings");
        is_int(topomap_topology_nnodes(t), 16, "  16 nodes (a continued line included)");
        is_int(hops_by_name(t, "node01", "node08"), 1, "  node01 - node08: 1");
        is_int(hops_by_name(t, "node10", "node14"), 4, "  node10 - node14: 4");
        is_int(hops_by_name(t, "node08", "node09"), 5, "  node08 - node09: two rings, 5");
    }
    topomap_topology_free(t);
    static const struct topo_reject bad[] = {
        {"ring-big.conf", "ring-big.conf:2: ring 'ring0' has 17 nodes; Slurm allows at most 16 "
                          "in a ring"},
        {"ring-mixed.conf", "ring-mixed.conf:2: SwitchName= in a topology/ring file (RingName= at "
                            "line 1): a topology.conf describes one of topology/tree, "
                            "topology/block or topology/ring"},
        {"ring-no-nodes.conf", "ring-no-nodes.conf:2: ring 'ring1' has no Nodes="},
        {"ring-node-twice.conf", "ring-node-twice.conf:2: node 'node08' is in ring 'ring1' and "
                                 "already in ring 'ring0' (line 1)"},
        {"ring-unknown-key.conf", "ring-unknown-key.conf:1: unknown key 'Node' (expected "
                                  "RingName, Nodes)"},
    };
    check_rejects(DATA "bad/", bad, sizeof bad / sizeof bad[0]);
}

/* topology=slurm: topology/ring reads topology.conf, topology/torus3d
 * topology.yaml only. */
static void test_slurm_path(void)
{
    char dir[] = "/tmp/topomap-ringpath.XXXXXX", slurm[1100], out[1100];
    char err[TOPOMAP_ERRLEN] = "";
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(slurm, sizeof slurm, "%s/slurm.conf", dir);
    topo_put(dir, "slurm.conf", "TopologyPlugin=topology/ring\n");
    topo_put(dir, "topology.conf", "RingName=r Nodes=n[1-4]\n");
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) == 0 &&
       strstr(out, "/topology.conf"), "topology/ring: topology.conf: %s", err);
    topomap_topology_t *t = topomap_topology_load(out, err, sizeof err);
    ok(t && !strcmp(topomap_topology_kind(t), "torus") && topomap_topology_diameter(t) == 2,
       "  one ring of 4: a 1-D torus, diameter 2");
    topomap_topology_free(t);
    topo_put(dir, "slurm.conf", "TopologyPlugin=topology/torus3d\n");
    errno = 0;
    ok(topomap_slurm_topology_path(slurm, out, sizeof out, err, sizeof err) < 0 &&
       errno == ENOENT, "topology/torus3d without topology.yaml: ENOENT");
    like(err, "slurm.conf:1: TopologyPlugin=topology/torus3d reads ", "  message: %s", err);
    like(err, "/topology.yaml, which does not exist", "  names topology.yaml");
    snprintf(out, sizeof out, "%s/topology.conf", dir);
    unlink(out);
    unlink(slurm);
    rmdir(dir);
}

int main(void)
{
    test_manpage();
    test_regions();
    test_rejects();
    test_ring_conf();
    test_slurm_path();
    return done_testing();
}
